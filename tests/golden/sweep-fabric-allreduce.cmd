# the bundled fabric study (12 points, both models)
sweep $SRC/studies/fabric-allreduce.ini -q -j 1 -o $OUT/results.csv
then: cat results.csv
full: none
