# SPDX-License-Identifier: MIT
# Goodput against checkpoint interval, from the CSV `weft train --out DIR` writes with
# --checkpoint-interval auto or --sweep-interval (DIR/goodput_vs_interval.csv): the mean
# goodput of the Monte Carlo samples at each interval with its 95% confidence interval.
#
#   gnuplot -c plots/goodput_vs_interval.gp DIR/goodput_vs_interval.csv [OUT.svg|.pdf|.png] [DALY_S]
#   weft plot goodput DIR -o goodput.pdf
#
# ARG1: the CSV; ARG2: the figure, its extension picking the terminal (.pdf, .png, else
# SVG; default goodput_vs_interval.svg); ARG3 (optional):
# Daly's interval in seconds (summary.json: parameters.daly_interval_s), drawn as a line.
if (ARGC < 1) {
    print "usage: gnuplot -c goodput_vs_interval.gp FILE.csv [OUT.svg] [DALY_S]"
    exit status 2
}
csv = ARG1
out = (ARGC >= 2) ? ARG2 : "goodput_vs_interval.svg"
ext = out[strlen(out) - 3:]
if (ext eq ".pdf") {
    set terminal pdfcairo size 6in,3.75in font "sans,10"
} else {
    if (ext eq ".png") {
        set terminal pngcairo size 1200,750 font "sans,12"
    } else {
        set terminal svg size 800,500 dynamic font "sans,12"
    }
}
set output out
set datafile separator ","
set key bottom center
set logscale x
set format x "%g"
set xlabel "checkpoint interval (s of compute between checkpoints)"
set ylabel "goodput (%)"
set grid
if (ARGC >= 3) {
    set arrow from ARG3 + 0, graph 0 to ARG3 + 0, graph 1 nohead dashtype 2 lc rgb "gray30"
    set label "Daly" at ARG3 + 0, graph 0.95 offset 0.5, 0
}
# the columns this script reads, by name: a renamed column is one line here
c_interval = "checkpoint_interval_s"; c_mean = "goodput_mean"
c_lo = "goodput_ci95_lo"; c_hi = "goodput_ci95_hi"
set datafile columnheaders
# ticks at 1, 2 and 5 x 10^n: the grid spans a decade or two, too few decades to label
stats csv using (column(c_interval)) nooutput
do for [d = floor(log10(STATS_min)) : ceil(log10(STATS_max))] {
    set xtics add (2 * 10**d, 5 * 10**d)
}
# the data's range and a margin, not the next decade of the log axis
set autoscale xfix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
# Okabe-Ito blue (Okabe and Ito, "Color Universal Design", 2008), safe for colour-blind
# readers
plot csv using (column(c_interval)):(100 * column(c_mean)):(100 * column(c_lo)):\
         (100 * column(c_hi)) with yerrorlines pt 7 ps 0.5 lc rgb "#0072B2" \
     title "mean goodput, 95% CI"
