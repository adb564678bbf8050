# an all-to-all on the dragonfly under flow
replay --cluster $SRC/topologies/dragonfly.ini --network flow --set workload.collective=alltoall --set workload.collective_bytes=8MiB
