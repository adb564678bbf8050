# the same with NCCL's tuning forced: ring/LL over 4 channels on the same links (an implicit plan whose every edge 4 streams cross alike)
replay --cluster $SRC/topologies/ring-8.ini --set cluster.gpus=512 --set workload.collective=all_reduce --set workload.collective_bytes=64MiB --set collectives.tuning=nccl --set collectives.all_reduce_algorithm=ring
