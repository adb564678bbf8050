#!/bin/sh
# SPDX-License-Identifier: MIT
# Every kind of `weft plot` rendered to PNG from small real outputs made here, and looked at
# as a reviewer would (tests/png_ink.py decodes the PNG): the plot area is not blank (the
# data's colours cover part of it; a 512-rank breakdown most of it, which the old white bar
# borders hid), and its colours are Okabe-Ito (viridis for the heatmap), as doc/outputs.md
# says. The sweep's labels, key and title come from the axis names and units, not the CSV's
# columns or file name (read from an SVG's text); top-links shows each tier with a key.
# The same inputs give the same figure, byte for byte. Skipped (77) without gnuplot or
# python3.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"

if ! command -v gnuplot >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    echo "skip: gnuplot or python3 is not installed (apt-get install gnuplot-nox python3)"
    exit 77
fi
ink() { python3 "$WEFT_SRCDIR/tests/png_ink.py" "$@"; }
pod="$WEFT_SRCDIR/topologies/dgx-h100-superpod.ini"

# ---- the inputs: real runs, small ----
# 512 ranks: GPT-3 175B, tp 8, pp 8, dp 8 on 64 DGX H100 nodes (about 3 s)
expect 0 "replay: 512 ranks" "" -- "$WEFT" replay --cluster "$pod" --set cluster.nodes=64 \
    --gen model=gpt3-175b,tp=8,pp=8,global_batch=16 --quiet --out "$tmp/r512"
# 8 ranks, and 16 ranks on 2 nodes under flow with the link series
expect 0 "replay: 8 ranks" "" -- "$WEFT" replay "$WEFT_SRCDIR/scenarios/dp-step-dgx-h100.ini" \
    --quiet --out "$tmp/r8"
expect 0 "replay: flow, link series" "" -- "$WEFT" replay --cluster "$pod" --set cluster.nodes=2 \
    --set workload.collective=all_reduce --set workload.collective_bytes=16MiB --network flow \
    --link-series 2us --quiet --out "$tmp/fl"
expect 0 "coll --csv" "" -- "$WEFT" coll --cluster "$WEFT_SRCDIR/topologies/dgx-h100.ini" \
    --min-bytes 1K --max-bytes 64M --csv "$tmp/coll.csv"
expect 0 "train --out" "" -- "$WEFT" train --gpus 16384 --steps 500000 --step-time 9.02s \
    --checkpoint-interval auto --samples 20 --out "$tmp/tr"
expect 0 "sweep: fabrics (categories)" "" -- "$WEFT" sweep "$WEFT_SRCDIR/studies/fabric-allreduce.ini" \
    -o "$tmp/fa.csv"
# sizes on a log axis, one line per algorithm, times from us to ms
cat >"$tmp/sizes.ini" <<EOF
[study]
axis.algo = collectives.all_reduce_algorithm: ring, tree
axis.size = workload.collective_bytes: log 1MiB 1024MiB x4
metrics = step_time_us
results = sizes.csv
[cluster]
file = $WEFT_SRCDIR/topologies/dgx-h100.ini
[workload]
collective = all_reduce
EOF
expect 0 "sweep: sizes" "" -- "$WEFT" sweep "$tmp/sizes.ini" -o "$tmp/sizes.csv"

# ---- every kind to PNG: not blank, Okabe-Ito or viridis ----
# NAME KIND INPUT PALETTE MIN_INK_PERMILLE [OPTIONS...]: MIN_INK_PERMILLE is the least
# share of the central box the data's colours cover, in 1/1000
check() {
    fig=$1 kind=$2 input=$3 palette=$4 min=$5
    shift 5
    expect 0 "plot $fig" "" -- "$WEFT" plot "$kind" "$input" -o "$tmp/$fig.png" "$@"
    [ -s "$tmp/$fig.png" ] || { bad "$fig.png missing"; return; }
    ink "$tmp/$fig.png" "$palette" >"$tmp/$fig.ink" || { bad "$fig.png does not decode"; return; }
    awk -v min="$min" '$1 == "ink" { i = $2 } $1 == "box" { b = $2 }
        END { exit !(i > 0 && 1000 * i >= min * b) }' "$tmp/$fig.ink" &&
        ok "$fig: the plot area is not blank" ||
        bad "$fig: too little ink: $(tr '\n' ' ' <"$tmp/$fig.ink")"
    if grep -q '^foreign' "$tmp/$fig.ink"; then
        bad "$fig: colours outside $palette: $(grep '^foreign' "$tmp/$fig.ink" | tr '\n' ' ')"
    else
        ok "$fig: colours are $palette"
    fi
}
# the 512 bars cover most of the area (with the old white borders, 35 %)
check breakdown512 breakdown "$tmp/r512" okabe-ito 600
check breakdown8 breakdown "$tmp/r8" okabe-ito 500
check top-links top-links "$tmp/r512" okabe-ito 200
check top-links-ib top-links "$tmp/r512" okabe-ito 200 --kind infiniband --links 5
check heatmap links-heatmap "$tmp/fl" viridis 900 --links 8
check busbw busbw "$tmp/coll.csv" okabe-ito 1
check goodput goodput "$tmp/tr" okabe-ito 1
check run-timeline run-timeline "$tmp/tr" okabe-ito 20
check sweep-categories sweep "$tmp/fa.csv" okabe-ito 0 --x fabric --lines model \
    --where placement=round-robin --y step_time_us
check sweep-sizes sweep "$tmp/sizes.csv" okabe-ito 1 --x size --lines algo --y step_time_us \
    --logx --logy

# ---- what the figures say (SVG text) ----
svgtext() { sed -e 's/<[^>]*>//g' "$1"; }
expect 0 "sweep to SVG" "" -- "$WEFT" plot sweep "$tmp/sizes.csv" --x size --lines algo \
    --y step_time_us --logx --logy -o "$tmp/s.svg"
svgtext "$tmp/s.svg" >"$tmp/s.txt"
grep -q 'step time (ms)' "$tmp/s.txt" && ok "sweep: y label in ms (the largest time is ms)" ||
    bad "sweep: y label: $(grep -i 'step' "$tmp/s.txt")"
# six sizes of up to 7 characters do not fit side by side in 5 in: every second labelled
grep -q '1 MiB' "$tmp/s.txt" && grep -q '16 MiB' "$tmp/s.txt" && grep -q '256 MiB' "$tmp/s.txt" &&
    ! grep -Eq '1024MiB|4 MiB' "$tmp/s.txt" && ok "sweep: byte ticks 1 MiB, 16 MiB, 256 MiB" ||
    bad "sweep: byte ticks"
grep -Eq 'workload\.collective_bytes|sizes\.csv|10\^|1x10' "$tmp/s.txt" &&
    bad "sweep: raw column, file name or mixed tick formats in the figure" ||
    ok "sweep: no raw column name, no file-name title"
grep -q 'algo:' "$tmp/s.txt" && ok "sweep: the key is titled by the axis name" || bad "sweep: key title"
expect 0 "sweep: --title --xlabel --ylabel --legend" "" -- "$WEFT" plot sweep "$tmp/sizes.csv" \
    --x size --lines algo --y step_time_us --logx --title "All-reduce on one DGX H100" \
    --xlabel "message size" --ylabel "time (µs)" --legend top-left -o "$tmp/t.svg"
svgtext "$tmp/t.svg" >"$tmp/t.txt"
grep -q 'All-reduce on one DGX H100' "$tmp/t.txt" && grep -q 'message size' "$tmp/t.txt" &&
    grep -q 'time (µs)' "$tmp/t.txt" && ok "sweep: the given title and labels" ||
    bad "sweep: given title and labels"
# with --ylabel the values stay in the column's unit (µs: ticks in the thousands), not
# rescaled to ms behind the user's label
grep -Eq '^[[:space:]]*[1-9][0-9]*000[[:space:]]*$' "$tmp/t.txt" && ok "sweep: --ylabel keeps the column's unit" ||
    bad "sweep: --ylabel rescaled the values: $(grep -E '^ *[0-9.]+ *$' "$tmp/t.txt" | tr '\n' ' ')"
expect 2 "sweep: bad --legend" "--legend middle" -- "$WEFT" plot sweep "$tmp/sizes.csv" --x size \
    --y step_time_us --where algo=ring --legend middle -o "$tmp/e.png"
expect 0 "sweep: identical lines" "" -- "$WEFT" plot sweep "$tmp/fa.csv" --x fabric --lines model \
    --where placement=in-order --y step_time_us -o "$tmp/same.svg"
# in-order keeps the ring in one node's NVLink: both models give the same times
svgtext "$tmp/same.svg" | grep -q 'flow (= analytical)' && ok "sweep: a line equal to another says so" ||
    bad "sweep: no note on identical lines"
expect 0 "top-links to SVG" "" -- "$WEFT" plot top-links "$tmp/r512" -o "$tmp/tl.svg"
svgtext "$tmp/tl.svg" >"$tmp/tl.txt"
for k in nvlink pcie infiniband; do
    grep -Eqx "[[:space:]]*$k[[:space:]]*" "$tmp/tl.txt" || bad "top-links: no key entry $k"
done
grep -q 'spine' "$tmp/tl.txt" && grep -q 'nvswitch' "$tmp/tl.txt" &&
    ok "top-links: every tier, NVSwitch to spine, with a key" || bad "top-links: tiers"
expect 2 "top-links: bad --kind" "--kind optical" -- "$WEFT" plot top-links "$tmp/r512" \
    --kind optical -o "$tmp/e.png"
expect 1 "top-links: a kind that carried nothing" "no link of ethernet carried any bytes" -- \
    "$WEFT" plot top-links "$tmp/r512" --kind ethernet -o "$tmp/e.png"
[ -e "$tmp/e.png" ] && bad "top-links: a figure written on error" || ok "top-links: nothing written on error"
expect 2 "--kind with another kind" "top-links only" -- "$WEFT" plot breakdown "$tmp/r512" \
    --kind nvlink -o "$tmp/e.png"

# ---- deterministic: the same inputs, the same bytes ----
"$WEFT" plot sweep "$tmp/sizes.csv" --x size --lines algo --y step_time_us --logx --logy \
    -o "$tmp/s2.svg" 2>/dev/null
cmp -s "$tmp/s.svg" "$tmp/s2.svg" && ok "sweep: the same figure twice" || bad "sweep: figures differ"

finish "plot_cli"
