# the bundled clusters as weft builds them
topo show $SRC/topologies/dgx-h100-superpod.ini
full: none
