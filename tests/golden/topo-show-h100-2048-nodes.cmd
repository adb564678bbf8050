# the 16,384-GPU cluster as weft builds it (three tiers)
topo show $SRC/topologies/h100-2048-nodes.ini
full: none
