#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of the reports (doc/outputs.md): weft replay's summary,
# --quiet and --json; --out writes its files atomically with the figures the
# run printed (per-rank sums, link bytes = the collectives' bytes x hops by
# hand); the timeline keeps one event per node of the kept ranks; unwritable
# outputs fail before the run; weft plot renders every kind from a real run
# (skipped, exit 77 at the end, where gnuplot is not installed).
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"

scen="$WEFT_SRCDIR/scenarios/dp-step-dgx-h100.ini"
# The expectations below (ring/simple on 1 channel, link bytes, timeline windows) are
# those of the plain ring model, so every replay asks for it; the default, NCCL's
# tuning, is tested in cli.sh and coll_cli.sh.
off="--set collectives.tuning=off"
dgx="$WEFT_SRCDIR/topologies/dgx-h100.ini"

# ---- the summary ----
expect 0 "replay with --out and --timeline" "" -- "$WEFT" replay "$scen" $off --out "$tmp/res" --timeline "$tmp/res/timeline.json"
cp "$tmp/out" "$tmp/summary.out"
[ ! -s "$tmp/err" ] && ok "no progress on stderr when it is not a terminal" || bad "stderr not empty"
for section in '^per rank \(us\)' '^  exposed comm ' '^  overlapped comm ' '^most expensive collectives \(2 of 2 instances\)' \
    '^  #1  0:0 +all_reduce +134217728 ring +simple' '^busiest links by bytes' '^collective choices' \
    '^  all_reduce +ring/simple, 1 channel: 2 instances' '^  network model analytical'; do
    grep -Eq "$section" "$tmp/summary.out" || bad "summary lacks /$section/"
done
ok "summary: distribution, top collectives, busiest links, choices"
[ "$(grep -c '^step time' "$tmp/summary.out")" -eq 1 ] && ok "one step time line" || bad "step time lines"
cmp -s "$tmp/summary.out" "$tmp/res/summary.txt" && ok "summary.txt is what stdout shows" || bad "summary.txt differs"
expect 0 "--quiet" "" -- "$WEFT" replay "$scen" $off --quiet
[ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q '^step time    [0-9.]* us$' "$tmp/out" &&
    [ "$(cat "$tmp/out")" = "$(grep '^step time' "$tmp/summary.out")" ] &&
    ok "--quiet prints the step time line alone" || bad "--quiet output: $(cat "$tmp/out")"
expect 0 "--json" "" -- "$WEFT" replay "$scen" $off --json --out "$tmp/res2"
cmp -s "$tmp/out" "$tmp/res2/summary.json" && ok "--json prints summary.json" || bad "--json differs from summary.json"
grep -q '"step_time_us"' "$tmp/out" && grep -q '"weft_version"' "$tmp/out" && grep -q '"configuration"' "$tmp/out" &&
    ok "summary.json has the version, the configuration and the step" || bad "summary.json members"
grep -q '"per_layer" : \[' "$tmp/out" && grep -q '"phase" : "optimizer"' "$tmp/out" &&
    ok "summary.json has layers.csv's rows" || bad "summary.json: no layers"

# ---- --out: files, units in the headers, fixed order ----
ls "$tmp/res" | sort >"$tmp/files"
printf '%s\n' collectives.csv layers.csv links.csv ranks.csv scenario.ini summary.json summary.txt timeline.json >"$tmp/want"
cmp -s "$tmp/files" "$tmp/want" && ok "--out wrote its seven files and nothing else (no temporary)" ||
    { bad "--out files"; diff "$tmp/want" "$tmp/files"; }
head -1 "$tmp/res/collectives.csv" | grep -qx 'communicator,communicator_name,seq,op,size_bytes,members,moved_bytes,algorithm,protocol,channels,chunks,first_arrival_us,start_us,end_us,time_us,algbw_GBps,busbw_GBps' &&
    ok "collectives.csv header" || bad "collectives.csv header"
[ "$(wc -l <"$tmp/res/collectives.csv")" -eq 3 ] && ok "collectives.csv: one row per instance (2)" || bad "collectives.csv rows"
# busbw of a 128 MiB ring all-reduce on 8 GPUs in 535.957... us: 134217728 / t x 7/4
awk -F, 'NR > 1 { b = $5 / ($15 * 1e-6) / 1e9 * 1.75; d = b - $17; if (d < 0) d = -d; if (d > 1e-3) exit 1 }' \
    "$tmp/res/collectives.csv" && ok "busbw = size / time x 2(n-1)/n" || bad "busbw column"
head -1 "$tmp/res/links.csv" | grep -qx 'edge,kind,from,to,capacity_GBps,wire_bytes,busy_us,mean_util,peak_util' &&
    ok "links.csv header" || bad "links.csv header"
[ "$(wc -l <"$tmp/res/links.csv")" -eq 65 ] && ok "links.csv: one row per directed link (64)" || bad "links.csv rows"
# by hand: 2 all-reduces x 8 ranks x 14 transfers of 128 MiB / 8 = 16777216 B, each crossing
# 2 links (GPU -> NVSwitch -> GPU, sprayed over the planes): 7516192768 bytes
awk -F, 'NR > 1 { s += $6 } END { exit !(s == 7516192768) }' "$tmp/res/links.csv" &&
    ok "links.csv bytes = collective bytes x hops (7516192768)" || bad "links.csv bytes sum"
awk -F, 'NR > 1 { d = $4 + $5 + $6 - $3; if (d < 0) d = -d; if (d > 2e-6) exit 1 }' "$tmp/res/ranks.csv" &&
    ok "ranks.csv: compute + exposed + idle = finish" || bad "ranks.csv sums"

# ---- link busy time and peak under both models ----
# The bundled ring-8.ini (50 GiB/s = 53687091200 B/s, 500 ns): a ring all-reduce of 1 MiB
# sends 14 chunks of 131072 B from each gpu i to gpu i+1, 2441406 ps each (131072 / 50 GiB/s
# = 2441406.25 ps, rounded), one at a time: each of those 8 links is busy 14 x 2.441406 =
# 34.179684 us at a peak of 1 (one transfer at the link's rate); the other direction
# carries nothing. The analytical model knows it as well as flow: nothing is shared.
r8="$WEFT_SRCDIR/topologies/ring-8.ini"
for model in analytical flow; do
    expect 0 "ring-8 all-reduce, $model, --out" "" -- "$WEFT" replay --cluster "$r8" \
        --set workload.collective=all_reduce --set workload.collective_bytes=1MiB \
        --set network.model=$model --out "$tmp/r8-$model"
    awk -F, 'NR > 1 && $3 ~ /^gpu[0-9]$/ {
            i = substr($3, 4); j = substr($4, 4)
            fwd = (j == (i + 1) % 8)
            if (fwd && ($7 != "34.179684" || $9 != "1.000000000")) exit 1
            if (!fwd && ($7 != "0.000000" || $9 != "0.000000000")) exit 1
            n += fwd
        } END { exit !(n == 8) }' "$tmp/r8-$model/links.csv" &&
        ok "$model: links.csv busy_us 34.179684 and peak_util 1 on the 8 ring links, 0 back" ||
        bad "$model: links.csv busy/peak: $(sed -n 2,3p "$tmp/r8-$model/links.csv" | tr '\n' ' ')"
    grep -Eq '^  #1  gpu0->gpu1 +generic +1835008 +34\.179684 +0\.8300 +1\.0000$' \
        "$tmp/r8-$model/summary.txt" && ok "$model: the summary's busiest link" ||
        bad "$model: summary: $(grep '#1  gpu0' "$tmp/r8-$model/summary.txt")"
    grep -q '"busy_us" : 34.179684' "$tmp/r8-$model/summary.json" &&
        ok "$model: summary.json busy_us" || bad "$model: summary.json busy_us"
done
cmp -s "$tmp/r8-analytical/links.csv" "$tmp/r8-flow/links.csv" &&
    ok "links.csv: analytical = flow where nothing is shared" || bad "links.csv differs by model"

# ---- the timeline ----
n_x=$(grep -o '"ph":"X"' "$tmp/res/timeline.json" | wc -l)
[ "$n_x" -eq 48 ] && ok "timeline: one event per node (8 ranks x 6 nodes)" || bad "timeline has $n_x events, expected 48"
grep -q '"name":"thread_name","args":{"name":"rank 3 compute"}' "$tmp/res/timeline.json" &&
    grep -q '"name":"process_name","args":{"name":"host 0"}' "$tmp/res/timeline.json" &&
    ok "timeline names hosts and rank streams" || bad "timeline metadata"
grep -q '"algorithm":"ring","protocol":"simple"' "$tmp/res/timeline.json" && ok "collective events carry the algorithm" ||
    bad "collective args"
expect 0 "--timeline-ranks 0-1,5" "" -- "$WEFT" replay "$scen" $off --timeline "$tmp/t2.json" --timeline-ranks 0-1,5
n_x=$(grep -o '"ph":"X"' "$tmp/t2.json" | wc -l)
[ "$n_x" -eq 18 ] && ok "timeline of 3 ranks: 18 events" || bad "--timeline-ranks kept $n_x events, expected 18"
# [2 ms, 2.6 ms]: backward_layer2 (1.5-2.5 ms), grad2 and backward_layer1 (from 2.5 ms) per rank
expect 0 "--timeline-window 2ms:2.6ms" "" -- "$WEFT" replay "$scen" $off --timeline "$tmp/t3.json" --timeline-window 2ms:2.6ms
n_x=$(grep -o '"ph":"X"' "$tmp/t3.json" | wc -l)
[ "$n_x" -eq 24 ] && ok "timeline window: 3 nodes per rank" || bad "--timeline-window kept $n_x events, expected 24"
expect 2 "bad --timeline-ranks" "timeline-ranks.*1-x" -- "$WEFT" replay "$scen" $off --timeline "$tmp/t4.json" --timeline-ranks 1-x
expect 1 "--timeline-ranks beyond the workload" "timeline_ranks.*8" -- "$WEFT" replay "$scen" $off --timeline "$tmp/t4.json" --timeline-ranks 8
[ ! -e "$tmp/t4.json" ] && ok "no timeline written on error" || bad "timeline written on error"
expect 2 "bad --timeline-window" "timeline-window.*3ms:1ms" -- "$WEFT" replay "$scen" $off --timeline "$tmp/t4.json" --timeline-window 3ms:1ms
expect 2 "bad --link-series" "link-series.*0us" -- "$WEFT" replay "$scen" $off --link-series 0us

# ---- unwritable outputs fail before the simulation ----
: >"$tmp/plainfile"
expect 1 "--out under a regular file" "output\.dir.*plainfile" -- "$WEFT" replay "$scen" $off --out "$tmp/plainfile/sub"
[ ! -s "$tmp/out" ] && ok "nothing ran before the --out check" || bad "ran before failing on --out"
expect 1 "--timeline under a regular file" "output\.timeline.*plainfile" -- "$WEFT" replay --cluster "$dgx" --trace "$tmp/nosuchtrace" --timeline "$tmp/plainfile/t.json"

# ---- flow with a link series ----
expect 0 "flow with --link-series" "" -- "$WEFT" replay "$scen" $off --network flow --link-series 50us --out "$tmp/flow" --timeline "$tmp/flow/t.json"
[ -s "$tmp/flow/links_timeseries.csv" ] && head -1 "$tmp/flow/links_timeseries.csv" | grep -qx 'time_us,link_rank,link,util' &&
    ok "links_timeseries.csv written" || bad "links_timeseries.csv"
awk -F, 'NR > 1 && ($4 < 0 || $4 > 1 + 1e-9) { exit 1 }' "$tmp/flow/links_timeseries.csv" &&
    ok "utilization within [0, 1]" || bad "utilization out of range"
grep -q '"ph":"C"' "$tmp/flow/t.json" && ok "timeline has link counters" || bad "no counters"
awk -F, 'NR > 1 { s += $6 } END { exit !(s == 7516192768) }' "$tmp/flow/links.csv" &&
    ok "flow: links.csv bytes = collective bytes x hops" || bad "flow links.csv bytes sum"

# ---- the series holds every tier's busiest links ----
# 4 DGX H100 of a SuperPOD, tp 8 inside nodes and dp 4 across them: NVLink carries the most
# bytes, yet the series also holds the 4 (16 / 4) busiest links of each other tier (PCIe
# GPU-NIC, InfiniBand NIC-leaf, leaf-spine), so a heatmap with --kind can show them.
"$WEFT" gen transformer --model gpt3-1.3b --tp 8 --dp 4 --micro-batch 1 --global-batch 8 \
    --spec "$tmp/g4.gen" -q
expect 0 "flow series on 4 nodes" "" -- "$WEFT" replay -q --cluster "$WEFT_SRCDIR/topologies/dgx-h100-superpod.ini" \
    --set cluster.nodes=4 --trace "$tmp/g4.gen" --network flow --link-series 1ms --out "$tmp/tiers"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp/tiers" <<'PY' && ok "links_timeseries.csv: the 16 busiest, and 4 of each tier" || bad "series tiers"
import csv, re, sys
d = sys.argv[1]
links = [r for r in csv.DictReader(open(d + "/links.csv")) if int(r["wire_bytes"]) > 0]
def tier(r):
    a, b = (re.sub(r"[0-9]", "", v.split("/")[-1]) for v in (r["from"], r["to"]))
    return (r["kind"], min(a, b), max(a, b))
links.sort(key=lambda r: (-int(r["wire_bytes"]), int(r["edge"])))
want, count = [], {}
for i, r in enumerate(links):
    t = tier(r)
    if i < 16 or count.get(t, 0) < 4:
        want.append(r["from"] + "->" + r["to"])
    count[t] = count.get(t, 0) + 1
got = []
for r in csv.DictReader(open(d + "/links_timeseries.csv")):
    if r["link"] not in got:
        got.append(r["link"])
assert len(count) >= 3, count  # nvlink, pcie, infiniband at least
assert got == want, (got, want)
PY
fi

# ---- weft plot ----
expect 2 "plot: unknown kind" "breakdown, busbw" -- "$WEFT" plot pie "$tmp/res"
expect 2 "plot: bad extension" "\.pdf, \.png or \.svg" -- "$WEFT" plot breakdown "$tmp/res" -o "$tmp/x.jpg"
expect 1 "plot: missing input" "links_timeseries\.csv.*link-series" -- "$WEFT" plot links-heatmap "$tmp/res" -o "$tmp/x.pdf"
expect 1 "plot: no gnuplot names the package" "gnuplot-nox" -- env PATH=/nonexistent "$WEFT" plot breakdown "$tmp/res" -o "$tmp/x.pdf"
have_gnuplot=yes
command -v gnuplot >/dev/null 2>&1 || have_gnuplot=no
if [ "$have_gnuplot" = yes ]; then
    "$WEFT" coll --cluster "$dgx" --min-bytes 1K --max-bytes 256M --csv "$tmp/coll.csv" >/dev/null 2>&1 ||
        bad "weft coll --csv"
    measured=""
    m="${WEFT_SHARED:-}/validation/nccl_allreduce_dgx_h100_8gpu.csv"
    [ -f "$m" ] && measured="--measured $m"
    for spec in "breakdown $tmp/res breakdown.pdf" "top-links $tmp/res top_links.svg" \
        "links-heatmap $tmp/flow links_heatmap.png" "busbw $tmp/coll.csv busbw.pdf"; do
        set -- $spec
        extra=""
        [ "$1" = busbw ] && extra=$measured
        # shellcheck disable=SC2086
        expect 0 "plot $1 -> $3" "" -- "$WEFT" plot "$1" "$2" -o "$tmp/$3" $extra
        [ -s "$tmp/$3" ] && ok "$3 is not empty" || bad "$3 missing or empty"
    done
    head -c 5 "$tmp/breakdown.pdf" | grep -q '%PDF-' && ok "breakdown.pdf is a PDF" || bad "breakdown.pdf not a PDF"
    grep -q '<svg' "$tmp/top_links.svg" && ok "top_links.svg is SVG" || bad "top_links.svg not SVG"
    ls -a "$tmp" | grep -q '^\.breakdown' && bad "temporary figure left" || ok "no temporary figure left"
else
    ok "weft plot renders # SKIP gnuplot not installed (apt-get install gnuplot-nox)"
fi

[ "$fails" -eq 0 ] || exit 1
[ "$have_gnuplot" = yes ] || exit 77
exit 0
