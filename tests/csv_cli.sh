#!/bin/sh
# SPDX-License-Identifier: MIT
# Every CSV weft writes loads as it is (issue 20, item 4; doc/outputs.md, "CSV
# conventions"): tests/csv_types.py checks the header comes first, the column
# names follow one convention, and each column holds one type (int, float or
# str; no empty cell in an int column) in the files of a replay's --out (with
# link time series), weft coll --csv (a sweep, all-to-all without NCCL's
# figure, --compare; layers.csv of a generated step too), a sweep over axes with units (and a shard, whose one
# '#' line is documented) and weft train --out --sweep-interval. The checker
# is first shown to refuse what it must.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"

check="python3 $WEFT_SRCDIR/tests/csv_types.py"
dgx="$WEFT_SRCDIR/topologies/dgx-h100.ini"
unset G_MESSAGES_DEBUG

# the checker fails where it must
printf '# a comment\nsize_bytes,time_us\n1,2.0\n' >"$tmp/bad1.csv"
printf 'size_bytes,algbw_gbs\n1,2.0\n' >"$tmp/bad2.csv"
printf 'size_bytes,count\n1,2\n2,\n' >"$tmp/bad3.csv"
printf 'size_bytes,x\n1,2\n2,abc\n' >"$tmp/bad4.csv"
for b in 1 2 3 4; do
    $check "$tmp/bad$b.csv" >"$tmp/out" 2>&1 && bad "checker accepts bad$b.csv" || ok "checker refuses bad$b.csv: $(tail -1 "$tmp/out")"
done
printf 'size_bytes,nccl_us,algorithm\n1,,ring\n2,3.5,\n' >"$tmp/good.csv"
$check "$tmp/good.csv" >"$tmp/out" 2>&1 && ok "checker accepts empty cells in float and str columns" ||
    bad "checker refuses good.csv: $(tail -1 "$tmp/out")"

types() { # FILE COLUMN TYPE: the checker's output says COLUMN of FILE has TYPE
    grep -qx "$1: $2 $3" "$tmp/types" && ok "$(basename "$1"): $2 is $3" || bad "$(basename "$1"): $2 is not $3"
}

# replay --out, with link time series (flow model)
expect 0 "replay --out" "" -- "$WEFT" replay "$WEFT_SRCDIR/scenarios/dp-step-dgx-h100.ini" \
    -n flow --link-series 100us -o "$tmp/run"
files="$tmp/run/ranks.csv $tmp/run/layers.csv $tmp/run/collectives.csv $tmp/run/links.csv $tmp/run/links_timeseries.csv"
# layers.csv of a generated step (issue 20, item 2): each row's means times its ranks, added
# over the rows, give ranks.csv's totals (to the rounding of 6 decimals per row)
expect 0 "replay --gen --out" "" -- "$WEFT" replay -q --cluster "$dgx" --gen model=gpt3-1.3b,tp=2,pp=2 \
    -o "$tmp/gen"
files="$files $tmp/gen/layers.csv"
if python3 - "$tmp/gen/layers.csv" "$tmp/gen/ranks.csv" >"$tmp/sums" 2>&1 <<'EOP'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ranks = list(csv.DictReader(open(sys.argv[2])))
for col in ("compute_us", "exposed_comm_us"):
    a = sum(float(r[col]) * int(r["ranks"]) for r in rows)
    b = sum(float(r[col]) for r in ranks)
    print(col, a, b)
    if abs(a - b) > 1e-6 * int(rows[0]["ranks"]) * len(rows) + 1e-6 * len(ranks):
        sys.exit(1)
kinds = ("tp", "dp", "pp", "ep", "cp", "other")
for r in rows:
    e = sum(float(r["exposed_%s_us" % k]) for k in kinds)
    if abs(e - float(r["exposed_comm_us"])) > 1e-5:
        print("exposed by kind", r)
        sys.exit(1)
EOP
then
    ok "layers.csv adds up to ranks.csv: $(tr '\n' ' ' <"$tmp/sums")"
else
    bad "layers.csv does not add up: $(tr '\n' ' ' <"$tmp/sums")"
fi
# coll --csv: all-reduce, all-to-all (no NCCL figure: empty nccl_us), --compare
expect 0 "coll --csv" "" -- "$WEFT" coll --cluster "$dgx" -b 1KiB -e 64MiB --csv "$tmp/coll.csv"
expect 0 "coll alltoall --csv" "" -- "$WEFT" coll --cluster "$dgx" --op alltoall -b 1KiB -e 1MiB --csv "$tmp/a2a.csv"
printf 'size_bytes,time_us,algbw_gbs,busbw_gbs\n1048576,30.0,34.95,61.17\n16777216,120.5,139.2,243.6\n' >"$tmp/meas.csv"
expect 0 "coll --compare --csv" "" -- "$WEFT" coll --cluster "$dgx" --compare "$tmp/meas.csv" --csv "$tmp/cmp.csv"
files="$files $tmp/coll.csv $tmp/a2a.csv $tmp/cmp.csv"
# a sweep over axes with units: a numeric column after each
cat >"$tmp/s.ini" <<EOS
[study]
axis.size = workload.collective_bytes: log 1MiB 16MiB x4
axis.lat = cluster.nvlink_latency: 500ns, 1us
axis.sub = cluster.oversubscription: 1:1, 2:1
axis.ch = collectives.chunks: 1, 2
metrics = step_time_us, events
[cluster]
file = $dgx
nodes = 2
fabric = leaf-spine
[workload]
collective = all_reduce
EOS
expect 0 "sweep" "" -- "$WEFT" sweep -q -j 1 -o "$tmp/sweep.csv" "$tmp/s.ini"
head -1 "$tmp/sweep.csv" | grep -qx 'point,size:workload.collective_bytes,size_bytes,lat:cluster.nvlink_latency,lat_us,sub:cluster.oversubscription,sub_ratio,ch:collectives.chunks,step_time_us,events,status,error' &&
    ok "sweep: a numeric column after each axis of quantities (none after chunks)" || bad "sweep header: $(head -1 "$tmp/sweep.csv")"
grep -q '^[0-9]*,4MiB,4194304,1us,1\.000000,2:1,2,' "$tmp/sweep.csv" && ok "sweep: 4MiB 4194304, 1us 1.000000, 2:1 2" ||
    bad "sweep: numeric values wrong"
# weft plot sweep still tells axes from metrics: the numeric columns go with their axis
expect 2 "plot sweep: numeric columns are not axes of their own" "axes: size:workload.collective_bytes, lat:cluster.nvlink_latency, sub:cluster.oversubscription, ch:collectives.chunks\$" -- \
    "$WEFT" plot sweep "$tmp/sweep.csv" --x size_bytes --y step_time_us -o "$tmp/p.svg"
if command -v gnuplot >/dev/null 2>&1; then
    expect 0 "plot sweep: an axis with a numeric column" "" -- "$WEFT" plot sweep "$tmp/sweep.csv" \
        --x size --lines lat --where sub=1:1 --where ch=1 --y step_time_us -o "$tmp/p.svg"
fi
# without -o: the study's results name, in the current directory, not beside the study
mkdir -p "$tmp/studies" "$tmp/cwd" && cp "$tmp/s.ini" "$tmp/studies/s.ini"
(cd "$tmp/cwd" && "$WEFT" sweep -q -j 1 "$tmp/studies/s.ini") &&
    [ -s "$tmp/cwd/s.csv" ] && [ ! -e "$tmp/studies/s.csv" ] &&
    ok "sweep: STUDY.csv in the current directory" || bad "sweep: default results not in the current directory"
cmp -s "$tmp/cwd/s.csv" "$tmp/sweep.csv" && ok "sweep: the same CSV" || bad "sweep: default results differ"
expect 0 "sweep --shard" "" -- "$WEFT" sweep -q -j 1 --shard 1/2 -o "$tmp/shard.csv" "$tmp/s.ini"
head -1 "$tmp/shard.csv" | grep -q '^# weft sweep shard ' && ok "shard CSV: its one documented '#' line" || bad "shard CSV: no '#' line"
tail -n +2 "$tmp/shard.csv" >"$tmp/shard_body.csv"
files="$files $tmp/sweep.csv $tmp/shard_body.csv"
# the cluster's figures as metrics (issue 20, item 7): as weft topo show prints them
cat >"$tmp/t.ini" <<EOS
[study]
axis.n = cluster.nodes: 2, 4
metrics = bisection_GBps, diameter_hops
[cluster]
file = $dgx
fabric = leaf-spine
[workload]
collective = all_reduce
collective_bytes = 1MiB
EOS
expect 0 "sweep: bisection and diameter" "" -- "$WEFT" sweep -q -j 1 -o "$tmp/topo.csv" "$tmp/t.ini"
"$WEFT" topo show "$dgx" --set cluster.nodes=4 --set cluster.fabric=leaf-spine >"$tmp/show.txt"
b=$(awk '$1 == "bisection" { print $2 }' "$tmp/show.txt")
d=$(awk '$1 == "diameter" { print $2 }' "$tmp/show.txt")
grep -qx "1,4,$b""000,$d,ok," "$tmp/topo.csv" && ok "sweep: bisection_GBps $b, diameter_hops $d as topo show" ||
    bad "sweep: cluster figures differ from topo show ($b, $d): $(tail -1 "$tmp/topo.csv")"
files="$files $tmp/topo.csv"
# train --out, with the interval sweep
expect 0 "train --out" "" -- "$WEFT" train --gpus 2048 --days 10 --step-time 9s --samples 20 \
    --threads 1 --sweep-interval -o "$tmp/train"
files="$files $tmp/train/goodput_vs_interval.csv $tmp/train/run_timeline.csv"

if $check $files >"$tmp/types" 2>&1; then
    ok "every CSV loads with one type per column"
else
    bad "$(tail -1 "$tmp/types")"
fi
types "$tmp/run/collectives.csv" size_bytes int
types "$tmp/run/collectives.csv" algbw_GBps float
types "$tmp/run/links.csv" wire_bytes int
types "$tmp/gen/layers.csv" layer str
types "$tmp/gen/layers.csv" ranks int
types "$tmp/gen/layers.csv" exposed_tp_us float
types "$tmp/coll.csv" algbw_GBps float
types "$tmp/coll.csv" algorithm str
types "$tmp/a2a.csv" nccl_us empty
types "$tmp/cmp.csv" predicted_busbw_GBps float
types "$tmp/sweep.csv" size_bytes int
types "$tmp/sweep.csv" lat_us float
types "$tmp/sweep.csv" sub_ratio int
types "$tmp/sweep.csv" events int
types "$tmp/train/run_timeline.csv" component int

finish csv_cli
