# nccl-tests-like sweep of all_gather on one DGX H100
coll --cluster $SRC/topologies/dgx-h100.ini --op all_gather -b 1K -e 1G -f 32
full: none
