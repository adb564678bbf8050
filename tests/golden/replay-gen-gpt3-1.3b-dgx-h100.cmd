# the same spec on one DGX H100 under NCCL tuning
replay --cluster $SRC/topologies/dgx-h100.ini --gen model=gpt3-1.3b,tp=2,pp=2
