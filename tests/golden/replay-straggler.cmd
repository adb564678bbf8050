# a straggler at half speed for 1 ms from 0 us (doc/failures.md)
replay $SRC/scenarios/dp-step-dgx-h100.ini --set "faults.events=0us straggler node0/gpu0 0.5 for 1000us"
