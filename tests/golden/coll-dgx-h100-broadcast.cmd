# nccl-tests-like sweep of broadcast on one DGX H100
coll --cluster $SRC/topologies/dgx-h100.ini --op broadcast -b 1K -e 1G -f 32
full: none
