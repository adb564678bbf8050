# the other NVLink systems: one DGX A100
coll --cluster $SRC/topologies/dgx-a100.ini -b 1K -e 1G -f 32
full: none
