# one DGX B200
coll --cluster $SRC/topologies/dgx-b200.ini -b 1K -e 1G -f 32
full: none
