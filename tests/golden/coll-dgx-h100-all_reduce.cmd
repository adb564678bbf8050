# nccl-tests-like sweep of all_reduce on one DGX H100
coll --cluster $SRC/topologies/dgx-h100.ini --op all_reduce -b 1K -e 1G -f 32
full: none
