# SPDX-License-Identifier: MIT
# Link utilization over time as a heatmap: one row per link (the busiest first), one
# column per sample, from the links_timeseries.csv that
# `weft replay --network flow --link-series INTERVAL --out DIR` writes (doc/outputs.md).
#
#   gnuplot -c plots/links_heatmap.gp DIR/links_timeseries.csv OUT.pdf|OUT.png|OUT.svg [N]
#
# ARG1: links_timeseries.csv, read by column name (the names below); ARG2: the figure
# (its extension picks the terminal; default links_heatmap.pdf); ARG3: draw only the N
# busiest links of the series (default: all of them, 16 unless the replay kept others). Utilization is the
# usage sampled at each instant over the link's capacity, 0 to 1. Palette: viridis
# (van der Walt and Smith, 2015), perceptually uniform and safe for colour-blind readers.
if (ARGC < 1) {
    print "usage: gnuplot -c links_heatmap.gp links_timeseries.csv [OUT.pdf|.png|.svg]"
    exit status 2
}
csv = ARG1
out = (ARGC >= 2) ? ARG2 : "links_heatmap.pdf"
ext = out[strlen(out) - 3:]
if (ext eq ".pdf") {
    set terminal pdfcairo size 6in,3.5in font "sans,10"
} else {
    if (ext eq ".png") {
        set terminal pngcairo size 1200,700 font "sans,12"
    } else {
        set terminal svg size 960,560 dynamic font "sans,12"
    }
}
set output out
set datafile separator ","
# the columns this script reads, by name: a renamed column is one line here
c_time = "time_us"; c_rank = "link_rank"; c_link = "link"; c_util = "util"
set datafile columnheaders
stats csv using (column(c_time)) nooutput
t_max = STATS_max
stats csv using (column(c_rank)) nooutput
n_all = int(STATS_max) + 1
n_links = (ARGC >= 3 && int(ARG3) > 0 && int(ARG3) < n_all) ? int(ARG3) : n_all
scale = (t_max > 1e4) ? 1e3 : 1.0
unit = (scale > 1) ? "ms" : "us"
# samples per link (rows are link-major) and the sampling interval
n_samples = int(STATS_records / n_all)
# rows run link by link, the busiest first: the first n_links x n_samples rows are drawn
last = n_links * n_samples - 1
dt = (n_samples > 1 && t_max > 0) ? t_max / (n_samples - 1) : 1.0
set palette defined (0 "#440154", 0.25 "#3B528B", 0.5 "#21908C", 0.75 "#5DC963", 1 "#FDE725")
set cbrange [0:1]
set cblabel "utilization (usage / capacity)"
set xlabel sprintf("time (%s)", unit)
set ylabel (n_links <= 24) ? "" : "link (busiest at the top)"
set yrange [n_links - 0.5:-0.5]
set xrange [-dt / 2 / scale:(t_max + dt / 2) / scale]
set ytics scale 0 font ",8"
set lmargin 22
set tics out nomirror
unset key
# link names as y tics, from the first sample of each link
if (n_links <= 24) {
    plot csv every ::0::last using (column(c_time) / scale):(column(c_rank)):(dt / 2 / scale * 1.02):\
             (0.51):(column(c_util)) with boxxyerror fillstyle solid noborder lc palette, \
         '' every n_samples::0::last using (NaN):(column(c_rank)):ytic(strcol(c_link)) \
             with points notitle
} else {
    plot csv every ::0::last using (column(c_time) / scale):(column(c_rank)):(dt / 2 / scale * 1.02):\
             (0.51):(column(c_util)) with boxxyerror fillstyle solid noborder lc palette
}
