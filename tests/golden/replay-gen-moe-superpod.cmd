# a generated MoE step (expert parallel all-to-alls) on 4 SuperPOD nodes, flow
replay --cluster $SRC/topologies/dgx-h100-superpod.ini --set cluster.nodes=4 --network flow --gen model=mixtral-8x7b,tp=2,pp=2,ep=4,global_batch=16,layers=4
