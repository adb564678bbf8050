# a training run: Llama 3 failure rates on 16,384 GPUs for 54 days, 200 samples, one thread
train --gpus 16384 --days 54 --step-time 9.02s --samples 200 --threads 1 --seed 7 -k auto
full: none
