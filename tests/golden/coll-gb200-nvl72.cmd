# one GB200 NVL72 rack
coll --cluster $SRC/topologies/gb200-nvl72.ini -b 1M -e 1G -f 32
full: none
