# the p5 pair under flow, AMD hosts (the validated configuration)
coll --cluster $SRC/topologies/p5-h100-2node.ini --cpu amd -n flow -b 8 -e 4G -f 16
full: --update full
