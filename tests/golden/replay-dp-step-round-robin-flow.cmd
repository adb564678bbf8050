# one rank per node of 8 DGX H100 nodes on a rail-optimized fabric: every ring step crosses the network
replay $SRC/scenarios/dp-step-dgx-h100.ini --set cluster.nodes=8 --set cluster.fabric=rail-optimized --set workload.placement=round-robin --network flow
