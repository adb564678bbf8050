# SPDX-License-Identifier: MIT
# The busiest links: a horizontal bar per link of the bytes it carried, the busiest at
# the top, from the links.csv that `weft replay --out DIR` writes (doc/outputs.md).
#
#   gnuplot -c plots/top_links.gp DIR/links.csv OUT.pdf|OUT.png|OUT.svg [N]
#
# ARG1: links.csv (1 edge, 2 kind, 3 from, 4 to, 5 capacity_GBps, 6 bytes, 7 busy_us,
# 8 mean_util, 9 peak_util); ARG2: the figure (its extension picks the terminal; default
# top_links.pdf); ARG3: how many links (default 16). The links are sorted by bytes with
# sort(1) (ties by edge id), so the script needs a POSIX shell. Bars are coloured by
# link kind with the Okabe-Ito palette; the mean utilization is printed beside each bar.
if (ARGC < 1) {
    print "usage: gnuplot -c top_links.gp links.csv [OUT.pdf|.png|.svg] [N]"
    exit status 2
}
csv = ARG1
out = (ARGC >= 2) ? ARG2 : "top_links.pdf"
n = (ARGC >= 3) ? int(ARG3) : 16
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
top = sprintf("< tail -n +2 '%s' | sort -t, -k6,6gr -k1,1n | awk 'NR <= %d'", csv, n)
stats top using 6 nooutput
rows = STATS_records
big = STATS_max
scale = (big >= 1e9) ? 1e9 : ((big >= 1e6) ? 1e6 : 1.0)
unit = (scale == 1e9) ? "GB" : ((scale == 1e6) ? "MB" : "bytes")
kind_colour(k) = (k eq "nvlink") ? 0x0072B2 : (k eq "pcie") ? 0xE69F00 : \
                 (k eq "infiniband") ? 0x009E73 : (k eq "ethernet") ? 0xCC79A7 : 0x999999
set style fill solid 1.0 noborder
set yrange [rows - 0.5:-0.5]
set xrange [0:big / scale * 1.15]
set xlabel sprintf("bytes carried (%s); beside each bar: mean utilization", unit)
set ytics scale 0 font ",8"
set lmargin 26
set grid xtics
unset key
plot top using (0):0:(0):($6 / scale):($0 - 0.4):($0 + 0.4):(kind_colour(stringcolumn(2))):\
         ytic(sprintf("%s -> %s", stringcolumn(3), stringcolumn(4))) \
         with boxxyerror lc rgb variable, \
     top using ($6 / scale):0:(sprintf(" %.0f%%", 100 * $8)) with labels left font ",8"
