# the README example: NCCL-tuned NVLS all-reduces on one DGX H100
replay --cluster $SRC/topologies/dgx-h100.ini --trace $SRC/traces/dp-step-8/dp-step
