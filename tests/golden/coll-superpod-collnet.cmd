# CollNet (SHARP) on 4 SuperPOD nodes
coll --cluster $SRC/topologies/dgx-h100-superpod.ini --nodes 4 -b 1M -e 1G -f 32
full: none
