# a plain ring all-reduce of 64 MiB, twice, on 768 GPUs of the 2:1 leaf-spine: 1,177,344
# transfers each (an implicit plan), crossing the spines by ECMP. Under analytical both are
# timed from one run alone (the sweep needs fixed routes), their cross-leaf transfers
# replayed on their own flows' routes (issue 14); the checksum of links.csv (every link's
# bytes, busy time, peak) must equal the transfer-level run's
replay --cluster $SRC/topologies/leaf-spine-2to1.ini --set cluster.nodes=96 --set workload.collective=all_reduce --set workload.collective_bytes=64MiB --set workload.collective_iterations=2 --set collectives.tuning=off --out o
then: cksum < o/links.csv
full: none
