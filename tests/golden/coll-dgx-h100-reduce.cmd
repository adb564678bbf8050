# nccl-tests-like sweep of reduce on one DGX H100
coll --cluster $SRC/topologies/dgx-h100.ini --op reduce -b 1K -e 1G -f 32
full: none
