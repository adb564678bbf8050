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

# the columns of ranks.csv this script reads, by name: a renamed column is one line here
c_rank = "rank"; c_finish = "finish_us"; c_compute = "compute_us"
c_exposed = "exposed_comm_us"; c_idle = "idle_us"
set datafile columnheaders
stats csv using (column(c_finish)) nooutput
n = STATS_records
scale = (STATS_max > 1e4) ? 1e3 : 1.0
unit = (scale > 1) ? "ms" : "us"
every_tic = (n > 32) ? ceil(n / 16.0) : 1

set style data histograms
set style histogram rowstacked
# A white border separates a few bars; past 64 ranks the borders would cover the bars'
# fill (a 5 in figure gives 512 ranks 0.01 in each), so the bars touch, without borders,
# and the x label says so.
if (n > 64) {
    set style fill solid 1.0 noborder
    set boxwidth 1.0
    set xlabel sprintf("rank (%d ranks in rank order, one borderless bar each)", n)
} else {
    set style fill solid 1.0 border rgb "white"
    set boxwidth 0.8
    set xlabel "rank"
}
set key outside top center horizontal samplen 1.5 width 1
set ylabel sprintf("time per step (%s)", unit)
set yrange [0:*]
set grid ytics
set xtics nomirror scale 0
plot csv using (column(c_compute) / scale):xtic(int($0) % every_tic == 0 ? stringcolumn(c_rank) : "") \
         title "compute" lc rgb "#0072B2", \
     '' using (column(c_exposed) / scale) title "exposed communication" lc rgb "#D55E00", \
     '' using (column(c_idle) / scale) title "idle" lc rgb "#BBBBBB"
