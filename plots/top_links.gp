# SPDX-License-Identifier: MIT
# The busiest links: a horizontal bar per link of the bytes it carried, from the links.csv
# that `weft replay --out DIR` writes (doc/outputs.md). By default the busiest links of each
# kind (tier: NVLink, PCIe, InfiniBand, Ethernet), grouped, so that a fabric's links are not
# hidden below a node's many NVLinks; or the busiest overall; or those of chosen kinds. A
# tier is a link kind between two kinds of vertex (their names without digits): GPU-NVSwitch
# NVLink, GPU-NIC PCIe, NIC-leaf and leaf-spine InfiniBand, both directions together.
#
#   gnuplot -c plots/top_links.gp DIR/links.csv OUT.pdf|OUT.png|OUT.svg [N] [SEL]
#
# ARG1: links.csv, read by column name (the names below); ARG2: the figure (its extension
# picks the terminal; default top_links.pdf); ARG3: how many links (per kind under tiers;
# default 4 under tiers, else 16); ARG4: tiers (default), all, or kinds such as
# nvlink,infiniband. Links that carried nothing are left out. The links are picked and
# sorted (bytes, then edge id) with awk and sort(1), so the script needs a POSIX shell.
# Bars are coloured by link kind with the Okabe-Ito palette (Okabe and Ito, "Color
# Universal Design", 2008), with a key; the mean utilization is printed beside each bar.
if (ARGC < 1) {
    print "usage: gnuplot -c top_links.gp links.csv [OUT.pdf|.png|.svg] [N] [tiers|all|KIND,...]"
    exit status 2
}
csv = ARG1
out = (ARGC >= 2) ? ARG2 : "top_links.pdf"
sel = (ARGC >= 4) ? ARG4 : "tiers"
n = (ARGC >= 3) ? int(ARG3) : ((sel eq "tiers") ? 4 : 16)
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

# the columns of links.csv this script reads: a renamed column is one line here
c_edge = "edge"; c_kind = "kind"; c_from = "from"; c_to = "to"; c_bytes = "wire_bytes"
c_util = "mean_util"
kinds = "nvlink pcie infiniband ethernet generic"
# awk finds the columns by name and writes group,tier,bytes,edge,kind,from,to,mean_util
# (under tiers, group is the kind's place in `kinds` and tier the kind and the two vertex
# names without their digits, in order: "infiniband node/nic-su/leaf", so both directions
# of a cable are one tier; else 0 and ""); sort orders them; awk keeps n per tier
pick = sprintf("awk -F, -v OFS=, -v sel='%s' -v kinds='%s' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } " . \
               "$c[\"%s\"] > 0 && (sel == \"all\" || sel == \"tiers\" || index(\",\" sel \",\", \",\" $c[\"%s\"] \",\") > 0) " . \
               "{ k = $c[\"%s\"]; a = $c[\"%s\"]; b = $c[\"%s\"]; gsub(/[0-9]+/, \"\", a); gsub(/[0-9]+/, \"\", b); " . \
               "g = 0; t = \"\"; if (sel == \"tiers\") { g = index(kinds, k); t = k \" \" (a < b ? a \"-\" b : b \"-\" a) } " . \
               "print g, t, $c[\"%s\"], $c[\"%s\"], k, $c[\"%s\"], $c[\"%s\"], $c[\"%s\"] }' '%s' " . \
               "| LC_ALL=C sort -t, -k1,1n -k2,2 -k3,3gr -k4,4n | awk -F, -v n=%d 'k[$1 $2]++ < n'", \
               sel, kinds, c_bytes, c_kind, c_kind, c_from, c_to, c_bytes, c_edge, c_from, c_to, \
               c_util, csv, n)
top = "< " . pick
present = system(pick . " | cut -d, -f5 | sort -u | tr '\\n' ' '")
if (strlen(present) == 0) {
    print sprintf("top_links.gp: %s: no link of %s carried any bytes", csv, sel)
    exit status 1
}
stats top using 3 nooutput
rows = STATS_records
big = STATS_max
scale = (big >= 1e9) ? 1e9 : ((big >= 1e6) ? 1e6 : 1.0)
unit = (scale == 1e9) ? "GB" : ((scale == 1e6) ? "MB" : "bytes")
kind_colour(k) = (k eq "nvlink") ? 0x0072B2 : (k eq "pcie") ? 0xE69F00 : \
                 (k eq "infiniband") ? 0x009E73 : (k eq "ethernet") ? 0xCC79A7 : 0xD55E00
set style fill solid 1.0 noborder
set yrange [rows - 0.5:-0.5]
set xrange [0:big / scale * 1.15]
set xlabel sprintf("bytes carried (%s); beside each bar: mean utilization", unit)
set ytics scale 0 font ",8" noenhanced
set lmargin 26
set grid xtics
set key outside top center horizontal samplen 1.5 noenhanced
if (sel eq "tiers") {
    set title sprintf("the %d busiest links of each tier (link kind and the vertices it joins)", n) font ",10"
}
plot top using (0):0:(0):($3 / scale):($0 - 0.4):($0 + 0.4):(kind_colour(stringcolumn(5))):\
         ytic(sprintf("%s -> %s", stringcolumn(6), stringcolumn(7))) \
         with boxxyerror lc rgb variable notitle, \
     top using ($3 / scale):0:(sprintf(" %.0f%%", 100 * $8)) with labels left font ",8" notitle, \
     for [k in kinds] NaN with boxes lc rgb kind_colour(k) title (strstrt(present, k) > 0 ? k : "")
