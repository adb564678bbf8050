# a generated GPT-3 1.3B step (tp 2, pp 2, dp 2) on an abstract 8-GPU switch (plain model)
replay --cluster $SRC/topologies/switch-8.ini --gen model=gpt3-1.3b,tp=2,pp=2
