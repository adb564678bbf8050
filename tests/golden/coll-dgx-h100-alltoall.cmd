# nccl-tests-like sweep of alltoall on one DGX H100
coll --cluster $SRC/topologies/dgx-h100.ini --op alltoall -b 1K -e 1G -f 32
full: none
