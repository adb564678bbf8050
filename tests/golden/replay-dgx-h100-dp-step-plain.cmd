# the same step with plain rings (closed form 4230.357831 us, tests/cli.sh)
replay $SRC/scenarios/dp-step-dgx-h100.ini --set collectives.tuning=off
