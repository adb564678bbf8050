# the same step under the flow model
replay $SRC/scenarios/dp-step-dgx-h100.ini --network flow
