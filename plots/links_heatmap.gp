# SPDX-License-Identifier: MIT
# Link utilization over time as a heatmap: one row per link (the busiest first), one
# column per sample, from the links_timeseries.csv that
# `weft replay --network flow --link-series INTERVAL --out DIR` writes (doc/outputs.md).
#
#   gnuplot -c plots/links_heatmap.gp DIR/links_timeseries.csv OUT.pdf|OUT.png|OUT.svg
#
# ARG1: links_timeseries.csv (1 time_us, 2 link_rank, 3 link, 4 util); ARG2: the figure
# (its extension picks the terminal; default links_heatmap.pdf). Utilization is the
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
stats csv using 1 skip 1 nooutput
t_max = STATS_max
stats csv using 2 skip 1 nooutput
n_links = int(STATS_max) + 1
scale = (t_max > 1e4) ? 1e3 : 1.0
unit = (scale > 1) ? "ms" : "us"
# samples per link (rows are link-major) and the sampling interval
n_samples = int(STATS_records / n_links)
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
    plot csv skip 1 using ($1 / scale):2:(dt / 2 / scale * 1.02):(0.51):4 \
             with boxxyerror fillstyle solid noborder lc palette, \
         '' skip 1 every n_samples using (NaN):2:ytic(3) with points notitle
} else {
    plot csv skip 1 using ($1 / scale):2:(dt / 2 / scale * 1.02):(0.51):4 \
             with boxxyerror fillstyle solid noborder lc palette
}
