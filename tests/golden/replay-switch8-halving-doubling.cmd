# a forced halving-doubling all-reduce under the plain model
replay --cluster $SRC/topologies/switch-8.ini --set workload.collective=all_reduce --set workload.collective_bytes=100MiB --set collectives.all_reduce_algorithm=halving_doubling
