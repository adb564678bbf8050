# an all-gather on the 3D torus (abstract: plain ring)
replay --cluster $SRC/topologies/torus-3d.ini --set workload.collective=all_gather --set workload.collective_bytes=4MiB
