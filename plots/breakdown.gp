# SPDX-License-Identifier: MIT
# Step-time breakdown per rank: stacked bars of compute, exposed communication and idle
# time (they sum to the rank's finish time), from the ranks.csv that
# `weft replay --out DIR` writes (doc/outputs.md).
#
#   gnuplot -c plots/breakdown.gp DIR/ranks.csv OUT.pdf|OUT.png|OUT.svg
#
# ARG1: ranks.csv; ARG2: the figure (its extension picks the terminal; default
# breakdown.pdf). Times in microseconds, or milliseconds when the longest rank
# takes more than 10 ms. Colours: Okabe-Ito (Okabe and Ito, "Color Universal Design",
# 2008), safe for colour-blind readers.
if (ARGC < 1) {
    print "usage: gnuplot -c breakdown.gp ranks.csv [OUT.pdf|.png|.svg]"
    exit status 2
}
csv = ARG1
out = (ARGC >= 2) ? ARG2 : "breakdown.pdf"
ext = out[strlen(out) - 3:]
if (ext eq ".pdf") {
    set terminal pdfcairo size 5in,3in font "sans,10"
} else {
    if (ext eq ".png") {
        set terminal pngcairo size 1000,600 font "sans,12"
    } else {
        set terminal svg size 800,480 dynamic font "sans,12"
    }
}
set output out
set datafile separator ","

# ranks.csv: 1 rank, 2 gpu, 3 finish_us, 4 compute_us, 5 exposed_comm_us, 6 idle_us
stats csv using 3 skip 1 nooutput
n = STATS_records
scale = (STATS_max > 1e4) ? 1e3 : 1.0
unit = (scale > 1) ? "ms" : "us"
every_tic = (n > 32) ? ceil(n / 16.0) : 1

set style data histograms
set style histogram rowstacked
set style fill solid 1.0 border rgb "white"
set boxwidth (n > 64) ? 1.0 : 0.8
set key outside top center horizontal samplen 1.5 width 1
set xlabel "rank"
set ylabel sprintf("time per step (%s)", unit)
set yrange [0:*]
set grid ytics
set xtics nomirror scale 0
plot csv skip 1 using ($4 / scale):xtic(int($0) % every_tic == 0 ? stringcolumn(1) : "") \
         title "compute" lc rgb "#0072B2", \
     '' skip 1 using ($5 / scale) title "exposed communication" lc rgb "#D55E00", \
     '' skip 1 using ($6 / scale) title "idle" lc rgb "#BBBBBB"
