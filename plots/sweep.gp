# SPDX-License-Identifier: MIT
# A study's metric over one axis, one line per value of another, from the data blocks
# `weft plot sweep RESULTS.csv --x AXIS --lines AXIS --y METRIC` writes from a `weft sweep`
# results CSV (weft reads the CSV, keeps the points whose status is ok, sorts each line by
# x and hands this script one block per line).
#
#   gnuplot -c plots/sweep.gp DATA OUT.pdf|OUT.png|OUT.svg LINES XLABEL YLABEL KEYTITLE FLAGS TITLE
#
# ARG1: the data: blocks separated by two blank lines, each a "title" line then rows
# x <TAB> y <TAB> "x as written in the study"; ARG2: the figure (its extension picks the
# terminal); ARG3: the number of blocks; ARG4, ARG5: the axis labels; ARG6: the key's title
# (the --lines column); ARG7: words among logx, logy, xticlabels (label every x value with
# the study's text: categories, or few values); ARG8: the title (the CSV's name).
# Colours: Okabe-Ito, cycled after eight lines.
if (ARGC < 3) {
    print "usage: gnuplot -c sweep.gp DATA OUT LINES [XLABEL YLABEL KEYTITLE FLAGS TITLE]"
    exit status 2
}
data = ARG1
out = ARG2
n = ARG3 + 0
flags = (ARGC >= 7) ? ARG7 : ""
ext = out[strlen(out) - 3:]
if (ext eq ".pdf") {
    set terminal pdfcairo size 5in,3.2in font "sans,10"
} else {
    if (ext eq ".png") {
        set terminal pngcairo size 1000,640 font "sans,12"
    } else {
        set terminal svg size 800,520 dynamic font "sans,12"
    }
}
set output out
set datafile separator "\t"
if (ARGC >= 4) { set xlabel ARG4 }
if (ARGC >= 5) { set ylabel ARG5 }
if (ARGC >= 8) { set title ARG8 noenhanced }
set xlabel noenhanced
set ylabel noenhanced
set key outside right top noenhanced
if (ARGC >= 6 && strlen(ARG6) > 0) { set key title ARG6 noenhanced }
set grid xtics ytics
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
if (strstrt(flags, "logx") > 0) { set logscale x }
if (strstrt(flags, "logy") > 0) { set logscale y }
set xtics nomirror rotate by -30
array colour[8] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", \
                   "#F0E442", "#000000"]
if (strstrt(flags, "xticlabels") > 0) {
    plot for [i = 0:n - 1] data index i using 1:2:xtic(3) with linespoints pt (i % 7) + 4 \
         ps 0.8 lw 1.5 lc rgb colour[(i % 8) + 1] title columnheader(1)
} else {
    plot for [i = 0:n - 1] data index i using 1:2 with linespoints pt (i % 7) + 4 ps 0.8 \
         lw 1.5 lc rgb colour[(i % 8) + 1] title columnheader(1)
}
