# the plan of a small tree all-reduce on two Selene nodes
coll --cluster $SRC/topologies/selene-a100-superpod.ini --nodes 2 --gpus-per-node 2 --algo tree --proto ll -b 4K --plan
full: none
