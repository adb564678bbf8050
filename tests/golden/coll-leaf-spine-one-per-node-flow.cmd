# four nodes, one GPU each: the ring (its latency once wrapped to 2^32 hops)
coll --cluster $SRC/topologies/leaf-spine-2to1.ini -g 0,8,16,24 -n flow -b 1M -e 256M -f 16
full: --update full
