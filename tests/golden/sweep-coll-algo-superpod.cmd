# the bundled algorithm study (48 points)
sweep $SRC/studies/coll-algo-superpod.ini -q -j 1 -o $OUT/results.csv
then: cat results.csv
full: none
