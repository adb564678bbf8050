# a leaf-spine link down 20 us into an all-to-all over 64 GPUs, flow: its flows move to the other spine
replay --cluster $SRC/topologies/leaf-spine-2to1.ini --network flow --set workload.collective=alltoall --set workload.collective_bytes=16MiB --set workload.collective_ranks=64 --set "faults.events=20us link_down leaf0 spine0"
