# SPDX-License-Identifier: MIT
# A study's metric over one axis, one line per value of another, from the data blocks
# `weft plot sweep RESULTS.csv --x AXIS --lines AXIS --y METRIC` writes from a `weft sweep`
# results CSV (weft reads the CSV, keeps the points whose status is ok, sorts each line by
# x, puts the values in the unit it shows and hands this script one block per line).
#
#   gnuplot -c plots/sweep.gp DATA OUT.pdf|OUT.png|OUT.svg LINES XLABEL YLABEL KEYTITLE FLAGS TITLE
#
# ARG1: the data: blocks separated by two blank lines, each a "title" line then rows
# x <TAB> y <TAB> "x tick label"; ARG2: the figure (its extension picks the terminal); ARG3:
# the number of blocks; ARG4, ARG5: the axis labels; ARG6: the key's title (the --lines
# axis); ARG7: words among
#   logx, logy    logarithmic axes
#   ypow          log y ticks as 10^n (values span big numbers), else plain numbers
#   y125          log y ticks at 1, 2, 5 x 10^n (less than two decades shown)
#   xticlabels    label every x value with the block's third column (few values, categories)
#   rotate        turn those labels (they would not fit side by side)
#   xbytes        x in bytes, ticks as 1 KiB, 1 MiB, ...
#   categories    x is categories: points, no lines between them
#   flat          every y is the same: a range around it
#   key=POS       below (default), right, top-left, top-right, bottom-left, bottom-right, none
# ARG8: the title ("" for none: a paper's caption says it).
# Colours: Okabe-Ito (Okabe and Ito, "Color Universal Design", 2008) without its yellow,
# which does not show on white; each line also has its own point shape, size and dash
# pattern, so lines in grey print or lying on each other stay apart.
if (ARGC < 3) {
    print "usage: gnuplot -c sweep.gp DATA OUT LINES [XLABEL YLABEL KEYTITLE FLAGS TITLE]"
    exit status 2
}
data = ARG1
out = ARG2
n = ARG3 + 0
flags = (ARGC >= 7) ? ARG7 : ""
has(w) = strstrt(" " . flags . " ", " " . w . " ") > 0
ext = out[strlen(out) - 3:]
# the key's font: 80 % of the figure's, so that a key below takes a line or two
keyfont = (ext eq ".pdf") ? ",8" : ",10"
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
if (ARGC >= 4) { set xlabel ARG4 noenhanced }
if (ARGC >= 5) { set ylabel ARG5 noenhanced }
if (ARGC >= 8 && strlen(ARG8) > 0) { set title ARG8 noenhanced }

# the key: below the plot in as many columns as fit by default, a line or two of a paper's
# figure; inside a corner, or at the right, when asked
set key noenhanced samplen 2 spacing 1 font keyfont
if (has("key=none")) {
    unset key
} else {
    if (has("key=right")) {
        set key outside right top vertical
    } else {
        if (has("key=top-left")) { set key inside top left vertical opaque box lc rgb "#CCCCCC" }
        if (has("key=top-right")) { set key inside top right vertical opaque box lc rgb "#CCCCCC" }
        if (has("key=bottom-left")) { set key inside bottom left vertical opaque box lc rgb "#CCCCCC" }
        if (has("key=bottom-right")) { set key inside bottom right vertical opaque box lc rgb "#CCCCCC" }
        if (has("key=below")) { set key outside below center horizontal Left reverse width -1 }
    }
    if (ARGC >= 6 && strlen(ARG6) > 0) { set key title ARG6 . ":" noenhanced left font keyfont }
}

set grid xtics ytics lt 1 lw 0.5 lc rgb "#C8C8C8"
set tics nomirror
set border 3
# no padding of the axes out to the next tick (a log axis to the next decade): the data's
# range and a margin
set autoscale fix
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
if (has("logx")) { set logscale x }
if (has("logy")) {
    set logscale y
    set format y (has("ypow") ? "10^{%L}" : "%g")
    set mytics 10
}
if (has("xbytes")) {
    set format x "%.0b %BB"
    if (has("logx")) { set logscale x 2 }
}
if (has("rotate")) { set xtics rotate by -30 }
if (has("categories")) { set offsets 0.5, 0.5, graph 0.06, graph 0.06 }
# a linear y axis: about five ticks at 1, 2 or 5 x 10^n, whatever the font, so that a small
# figure's labels do not run into each other
if (!has("logy") && !has("flat")) {
    stats data using 2 nooutput
    raw = (STATS_max - STATS_min) / 5.0
    if (raw > 0) {
        mag = 10**floor(log10(raw))
        f = raw / mag
        ystep = (f <= 1) ? mag : (f <= 2) ? 2 * mag : (f <= 5) ? 5 * mag : 10 * mag
        set ytics ystep
    }
}
if (has("flat")) {
    stats data using 2 nooutput
    v = STATS_min
    if (v == 0) { set yrange [-1:1] } else { set yrange [v - 0.1 * abs(v) : v + 0.1 * abs(v)] }
}
# 1-2-5 ticks on a short log axis: the decades alone would leave one label or none
if (has("y125")) {
    stats data using 2 nooutput
    do for [d = floor(log10(STATS_min)) - 1 : ceil(log10(STATS_max))] {
        set ytics add (gprintf("%g", 10**d) 10**d, gprintf("%g", 2 * 10**d) 2 * 10**d, \
                       gprintf("%g", 5 * 10**d) 5 * 10**d)
    }
}

array colour[7] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]
# open square, open circle, open triangle, open diamond, open inverted triangle, open
# pentagon, then filled ones; sizes shrink along the lines so coinciding points nest
array shape[9] = [4, 6, 8, 12, 10, 14, 5, 7, 9]
col(i) = colour[(i % 7) + 1]
pt(i) = shape[(i % 9) + 1]
ps(i) = (has("categories") ? 1.8 : 1.3) - 0.12 * (i % 5)
dt(i) = (i % 4) + 1
style = has("categories") ? "points" : "linespoints"
if (has("xticlabels")) {
    plot for [i = 0:n - 1] data index i using 1:2:xtic(3) with @style pt pt(i) ps ps(i) \
         lw 1.5 dt dt(i) lc rgb col(i) title columnheader(1)
} else {
    plot for [i = 0:n - 1] data index i using 1:2 with @style pt pt(i) ps ps(i) \
         lw 1.5 dt dt(i) lc rgb col(i) title columnheader(1)
}
