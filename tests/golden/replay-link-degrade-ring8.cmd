# a link degraded at 0 us under analytical: it applies before the first transfer
replay --cluster $SRC/topologies/ring-8.ini --set workload.collective=all_reduce --set workload.collective_bytes=1MiB --set "faults.events=0us link_degrade gpu0 gpu1 0.5"
