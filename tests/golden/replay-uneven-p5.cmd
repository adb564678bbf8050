# an all-reduce over 8 + 7 GPUs of two p5 nodes: NVLS tree cannot run, ring does
replay --cluster $SRC/topologies/p5-h100-2node.ini --network flow --set workload.collective=all_reduce --set workload.collective_bytes=256MiB --set workload.collective_ranks=15
