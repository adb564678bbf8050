# SPDX-License-Identifier: MIT
# Collective bus bandwidth against size, nccl-tests style (log scales), from the CSV
# `weft coll --csv FILE` writes, optionally beside a measured nccl-tests CSV
# (size_bytes,time_us,algbw_gbs,busbw_gbs, as ../shared/validation/nccl_*.csv).
#
#   gnuplot -c plots/busbw.gp PREDICTED.csv OUT.pdf|OUT.png|OUT.svg [MEASURED.csv]
#
# ARG1: weft coll's CSV (1 size_bytes, 6 busbw_GBps); ARG2: the figure (its extension
# picks the terminal; default busbw.pdf); ARG3 (optional): measured CSV (1 size_bytes,
# 4 busbw_gbs; '#' lines and the header are skipped). Sizes are nccl-tests' (the whole
# output buffer for all_gather). Colours: Okabe-Ito.
if (ARGC < 1) {
    print "usage: gnuplot -c busbw.gp PREDICTED.csv [OUT.pdf|.png|.svg] [MEASURED.csv]"
    exit status 2
}
csv = ARG1
out = (ARGC >= 2) ? ARG2 : "busbw.pdf"
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
set logscale x 2
set logscale y 10
set format x "%.0b %BB"
set xlabel "size (bytes)"
set ylabel "bus bandwidth (GB/s)"
set grid xtics ytics
set key top left
# rows with busbw 0 (sizes too small to time) cannot sit on a log axis: skipped
pos(v) = (v > 0) ? v : NaN
if (ARGC >= 3) {
    plot csv skip 1 using 1:(pos($6)) with linespoints pt 7 ps 0.5 lc rgb "#0072B2" \
             title "weft (predicted)", \
         ARG3 using 1:(pos($4)) with linespoints pt 5 ps 0.5 dt 2 lc rgb "#D55E00" \
             title "measured"
} else {
    plot csv skip 1 using 1:(pos($6)) with linespoints pt 7 ps 0.5 lc rgb "#0072B2" \
             title "weft (predicted)"
}
