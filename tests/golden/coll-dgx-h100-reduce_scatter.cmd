# nccl-tests-like sweep of reduce_scatter on one DGX H100
coll --cluster $SRC/topologies/dgx-h100.ini --op reduce_scatter -b 1K -e 1G -f 32
full: none
