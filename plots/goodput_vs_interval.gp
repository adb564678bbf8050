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
set xlabel "checkpoint interval (s of compute between checkpoints)"
set ylabel "goodput (%)"
set grid
if (ARGC >= 3) {
    set arrow from ARG3 + 0, graph 0 to ARG3 + 0, graph 1 nohead dashtype 2 lc rgb "gray30"
    set label "Daly" at ARG3 + 0, graph 0.95 offset 0.5, 0
}
# columns: 2 interval_s, 3 goodput_mean, 4 goodput_ci95_lo, 5 goodput_ci95_hi
plot csv using 2:(100 * $3):(100 * $4):(100 * $5) skip 1 with yerrorlines pt 7 ps 0.5 \
     title "mean goodput, 95% CI"
