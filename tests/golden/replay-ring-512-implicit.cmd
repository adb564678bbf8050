# one all-reduce of 64 MiB on a 512-NPU ring in 4 chunks: 2,093,056 transfers, an implicit plan swept (issue 14); the transfers run also proves it
replay --cluster $SRC/topologies/ring-8.ini --set cluster.gpus=512 --set workload.collective=all_reduce --set workload.collective_bytes=64MiB --chunks 4
