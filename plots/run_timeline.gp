# SPDX-License-Identifier: MIT
# The timeline of one training run, from the CSV `weft train --out DIR` writes
# (DIR/run_timeline.csv: Monte Carlo sample 0 at the reported checkpoint interval): one
# lane per kind of span (kept training, work lost at a failure, restart, degraded), days
# on the x axis, so failures show as the points where training stops and restarts.
#
#   gnuplot -c plots/run_timeline.gp DIR/run_timeline.csv [OUT.svg|.pdf|.png]
#   weft plot run-timeline DIR -o timeline.pdf
#
# ARG1: the CSV; ARG2: the figure, its extension picking the terminal (.pdf, .png, else
# SVG; default run_timeline.svg).
if (ARGC < 1) {
    print "usage: gnuplot -c run_timeline.gp FILE.csv [OUT.svg]"
    exit status 2
}
csv = ARG1
out = (ARGC >= 2) ? ARG2 : "run_timeline.svg"
ext = out[strlen(out) - 3:]
if (ext eq ".pdf") {
    set terminal pdfcairo size 6in,2.2in font "sans,10"
} else {
    if (ext eq ".png") {
        set terminal pngcairo size 1500,540 font "sans,12"
    } else {
        set terminal svg size 1000,360 dynamic font "sans,12"
    }
}
set output out
set datafile separator ","
set xlabel "wall-clock time (days)"
set ytics ("train" 4, "lost" 3, "restart" 2, "degraded" 1)
set yrange [0.4:4.6]
set grid xtics
set key off
set title "one run: kept training, work lost at failures, restarts, degrading faults"
# the columns this script reads, by name: a renamed column is one line here
c_start = "start_days"; c_end = "end_days"; c_kind = "kind"
set datafile columnheaders
# Each span is a segment in its kind's lane;
# spans of minutes vanish at the scale of weeks, so each lost, restart and degraded span
# also gets a tick at its start.
lane(k) = (k eq "train") ? 4 : (k eq "lost") ? 3 : (k eq "restart") ? 2 : 1
# Okabe-Ito colours (Okabe and Ito, "Color Universal Design", 2008), safe for colour-blind
# readers (the lanes also tell the kinds apart)
color(k) = (k eq "train") ? 0x0072B2 : (k eq "lost") ? 0xD55E00 : (k eq "restart") ? 0xE69F00 : 0xCC79A7
tick(k) = (k eq "train") ? NaN : 1
plot csv using (column(c_start)):(lane(strcol(c_kind))):(column(c_end) - column(c_start)):(0):\
         (color(strcol(c_kind))) with vectors nohead lw 12 lc rgb variable notitle, \
     csv using (column(c_start)):(lane(strcol(c_kind)) - 0.3 * tick(strcol(c_kind))):(0):(0.6):\
         (color(strcol(c_kind))) with vectors nohead lw 1 lc rgb variable notitle
