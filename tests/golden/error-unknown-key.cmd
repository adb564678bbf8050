# a bad key: the error names it and lists the group
replay $SRC/scenarios/dp-step-dgx-h100.ini --set collectives.chunk=4
full: none
