#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of `weft sweep`: a 50-point study gives the same CSV with
# -j 1 and -j 2, and the same after a SIGKILL halfway and --resume; --shard
# K/4 for K = 1..4 covers every point once and --merge gives the unsharded
# CSV; a bad axis fails (exit 1) before any point runs, naming the axis; a
# journal left behind is refused without --resume; usage errors exit 2; no
# progress is printed when stderr is not a terminal; points with the same
# [cluster] share one cluster built once (64 points: one build). The bundled
# studies and `weft plot sweep` are in studies.sh (make check-slow).
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"
pid= # a study run in the background, killed at exit if still running
trap 'if [ -n "$pid" ]; then kill -9 "$pid" 2>/dev/null; fi; rm -rf "$tmp"' EXIT
same() { # same NAME A B
    if cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; diff "$2" "$3" | head -5; fi
}

# 50 points of the bundled step on 8 DGX H100 nodes, one rank per node, flow
# model, 20 to 69 chunks per collective: each point takes tens of ms, so a
# kill lands halfway.
cat >"$tmp/s50.ini" <<EOF
[study]
scenario = $WEFT_SRCDIR/scenarios/dp-step-dgx-h100.ini
axis.chunks = collectives.chunks: range 20 69 1
metrics = step_time_us, exposed_comm_us_max, events
[cluster]
nodes = 8
fabric = rail-optimized
[workload]
placement = round-robin
[network]
model = flow
EOF

expect 0 "--help" "" -- "$WEFT" sweep --help
expect 0 "50 points, -j 1" "" -- "$WEFT" sweep -q -j 1 -o "$tmp/j1.csv" "$tmp/s50.ini"
rows=$(($(wc -l <"$tmp/j1.csv") - 1))
if [ "$rows" -eq 50 ] && [ "$(grep -c ',ok,$' "$tmp/j1.csv")" -eq 50 ]; then
    ok "50 rows, all ok"
else
    bad "50 rows, all ok: $rows rows"
fi
if [ -s "$tmp/err" ]; then bad "-q prints nothing"; else ok "-q prints nothing"; fi
expect 0 "50 points, -j 2" "" -- "$WEFT" sweep -j2 -o "$tmp/j2.csv" "$tmp/s50.ini"
same "-j 1 and -j 2 give the same CSV" "$tmp/j1.csv" "$tmp/j2.csv"
if grep -q "$(printf '\r')" "$tmp/err"; then
    bad "no progress when stderr is not a terminal"
else
    ok "no progress when stderr is not a terminal"
fi
if [ -e "$tmp/j2.csv.partial" ]; then bad "journal removed"; else ok "journal removed"; fi

# ---- SIGKILL halfway, then --resume ----
"$WEFT" sweep -q -j 2 -o "$tmp/k.csv" "$tmp/s50.ini" &
pid=$!
n=0 tries=0
while [ "$tries" -lt 2000 ]; do
    if [ -f "$tmp/k.csv.partial" ]; then
        n=$(($(wc -l <"$tmp/k.csv.partial") - 1))
        [ "$n" -ge 20 ] && break
    fi
    sleep 0.01
    tries=$((tries + 1))
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=
kept=$(($(wc -l <"$tmp/k.csv.partial") - 1))
if [ "$kept" -ge 20 ] && [ "$kept" -lt 50 ] && [ ! -e "$tmp/k.csv" ]; then
    ok "killed with $kept of 50 rows in the journal"
else
    bad "killed halfway: journal has $kept rows, k.csv exists: $([ -e "$tmp/k.csv" ] && echo yes || echo no)"
fi
expect 1 "a journal is refused without --resume" "--resume" -- \
    "$WEFT" sweep -q -j 2 -o "$tmp/k.csv" "$tmp/s50.ini"
expect 0 "--resume finishes the study" "from the journal" -- \
    "$WEFT" sweep --resume -j 2 -o "$tmp/k.csv" "$tmp/s50.ini"
if grep -Eq "\(([0-9]+) run, $kept from the journal\)" "$tmp/err"; then
    ok "--resume kept the $kept journaled rows"
else
    bad "--resume kept the journaled rows"; cat "$tmp/err"
fi
same "killed and resumed = uninterrupted" "$tmp/j1.csv" "$tmp/k.csv"

# ---- shards ----
for k in 1 2 3 4; do
    expect 0 "--shard $k/4" "" -- "$WEFT" sweep -q -j 2 --shard "$k/4" -o "$tmp/part$k.csv" \
        "$tmp/s50.ini"
done
# every point once: 13 + 13 + 12 + 12 rows, points i with i mod 4 = K - 1
cover=$(for k in 1 2 3 4; do tail -n +3 "$tmp/part$k.csv" | cut -d, -f1; done | sort -n | uniq | wc -l)
total=$(for k in 1 2 3 4; do tail -n +3 "$tmp/part$k.csv"; done | wc -l)
if [ "$cover" -eq 50 ] && [ "$total" -eq 50 ]; then
    ok "4 shards cover 50 points once"
else
    bad "4 shards cover 50 points once: $cover distinct, $total rows"
fi
wrong=$(tail -n +3 "$tmp/part3.csv" | cut -d, -f1 | awk '$1 % 4 != 2' | wc -l)
if [ "$wrong" -eq 0 ]; then ok "shard 3/4 holds i mod 4 = 2"; else bad "shard 3/4 holds i mod 4 = 2"; fi
expect 0 "--merge" "" -- "$WEFT" sweep --merge -o "$tmp/merged.csv" \
    "$tmp/part4.csv" "$tmp/part2.csv" "$tmp/part1.csv" "$tmp/part3.csv"
same "merge = unsharded" "$tmp/j1.csv" "$tmp/merged.csv"
expect 1 "--merge with a shard missing" "missing" -- "$WEFT" sweep --merge -o "$tmp/m2.csv" \
    "$tmp/part1.csv" "$tmp/part2.csv" "$tmp/part4.csv"
expect 1 "--merge with a shard twice" "twice" -- "$WEFT" sweep --merge -o "$tmp/m2.csv" \
    "$tmp/part1.csv" "$tmp/part2.csv" "$tmp/part3.csv" "$tmp/part4.csv" "$tmp/part2.csv"

# ---- points with the same [cluster] share one cluster, built once ----
# 64 points varying network.model and workload.collective_bytes (no [cluster] key): the
# cluster is built once before the threads start, so the builder's debug line appears once
# (G_MESSAGES_DEBUG output goes to stdout: both streams are counted); an axis over a
# [cluster] key builds one cluster per value. The rows are those of -j 1.
cat >"$tmp/s64.ini" <<EOF
[study]
axis.model = network.model: analytical, flow
axis.bytes = workload.collective_bytes: range 4KiB 128KiB 4KiB
metrics = step_time_us, gpus, events
[cluster]
kind = dgx-h100
nodes = 2
fabric = rail-optimized
[workload]
collective = all_reduce
EOF
built() { # built NAME COUNT: the builder's debug line COUNT times in $tmp/out and $tmp/err
    n=$(cat "$tmp/out" "$tmp/err" | grep -c 'cluster .* built: ')
    if [ "$n" -eq "$2" ]; then ok "$1"; else bad "$1: $n builds, expected $2"; fi
}
expect 0 "64 points sharing a cluster, -j 2" "" -- \
    env G_MESSAGES_DEBUG=all "$WEFT" sweep -j 2 -o "$tmp/s64.csv" "$tmp/s64.ini"
built "64 points: the cluster is built once" 1
rows=$(grep -c ',ok,$' "$tmp/s64.csv")
if [ "$rows" -eq 64 ]; then ok "64 points: 64 rows ok"; else bad "64 points: $rows rows ok"; fi
expect 0 "64 points, -j 1" "" -- "$WEFT" sweep -q -j 1 -o "$tmp/s64-j1.csv" "$tmp/s64.ini"
same "64 points: -j 1 and -j 2 give the same CSV" "$tmp/s64.csv" "$tmp/s64-j1.csv"
sed 's/range 4KiB 128KiB 4KiB/4KiB, 8KiB/' "$tmp/s64.ini" >"$tmp/s12.ini"
printf 'axis.nodes = cluster.nodes: 1, 2, 4\n' >"$tmp/axis"
sed "/^axis.bytes/r $tmp/axis" "$tmp/s12.ini" >"$tmp/s12b.ini"
expect 0 "12 points over 3 clusters" "" -- \
    env G_MESSAGES_DEBUG=all "$WEFT" sweep -j 2 -o "$tmp/s12.csv" "$tmp/s12b.ini"
# each value's cluster is built once to check it when the study loads (before any point
# runs), and once more to be shared by its 4 points: 6 builds, not 12
built "12 points over 3 clusters: 3 checks + 3 shared builds" 6

# ---- bad axes fail before any point runs ----
bad_axis() { # NAME AXIS-LINE PATTERN
    printf '[study]\nscenario = %s\n%s\n' "$WEFT_SRCDIR/scenarios/dp-step-dgx-h100.ini" "$2" \
        >"$tmp/bad.ini"
    expect 1 "$1" "$3" -- "$WEFT" sweep -o "$tmp/bad.csv" "$tmp/bad.ini"
    if [ -e "$tmp/bad.csv" ] || [ -e "$tmp/bad.csv.partial" ]; then
        bad "$1: nothing written"
    fi
}
bad_axis "unknown key" "axis.c = collectives.chunkz: 1, 2" "axis\.c .*chunkz"
bad_axis "value that does not parse" "axis.c = collectives.chunks: 1, 2, lots" \
    "axis\.c .*\"lots\""
bad_axis "unknown [cluster] key" "axis.spine = cluster.spine_count: 1, 2" "axis\.spine .*spine_count"
bad_axis "bad [cluster] value" "axis.lat = cluster.nvlink_latency: 500ns, 700" \
    "axis\.lat .*\"700\""

# ---- usage ----
expect 2 "no study" "no study" -- "$WEFT" sweep
expect 2 "--shard 0/4" "shard" -- "$WEFT" sweep --shard 0/4 "$tmp/s50.ini"
expect 2 "--shard 5/4" "shard" -- "$WEFT" sweep --shard 5/4 "$tmp/s50.ini"
expect 2 "--merge without -o" "-o" -- "$WEFT" sweep --merge "$tmp/part1.csv"
expect 2 "-j 0" "-j" -- "$WEFT" sweep -j 0 "$tmp/s50.ini"
expect 1 "missing study" "nothere" -- "$WEFT" sweep "$tmp/nothere.ini"

# Memory metrics (doc/memory.md): GPT-3 1.3B, tp 2, pp 4, 8 micro-batches on a DGX H100; stage 0
# peaks with pp = 4 micro-batches of 6 layers in flight, (2048 x 2048 x 22 + 4 x 16 x 2048 / 2)
# bytes each = 2.0639 GiB, over 3.4104 GiB of model states: 5.474327 GiB; full recomputation
# keeps 2 s b h = 8 MiB per layer (0.1875 GiB) and rebuilds one layer (0.0860 GiB): 3.683861.
# A trace without memory leaves the cells empty.
cat >"$tmp/mem.ini" <<EOF
[study]
axis.rc = transformer.recompute: none, full
metrics = mem_peak_GiB_max, mem_peak_rank, hbm_GiB, mem_headroom_GiB
results = $tmp/mem.csv
[cluster]
file = $WEFT_SRCDIR/topologies/dgx-h100.ini
[transformer]
model = gpt3-1.3b
tp = 2
pp = 4
global_batch = 8
EOF
expect 0 "sweep: memory metrics" "" -- "$WEFT" sweep "$tmp/mem.ini"
if grep -q '^0,none,5.474327,0,74.505806,69.031479,ok,$' "$tmp/mem.csv" &&
    grep -q '^1,full,3.683861,0,74.505806,70.821945,ok,$' "$tmp/mem.csv"; then
    ok "sweep: peak memory per point from the replay"
else
    bad "sweep: memory metrics"; cat "$tmp/mem.csv"
fi
printf '[study]\nscenario = %s\naxis.c = workload.placement: in-order\nmetrics = step_time_us, mem_peak_GiB_max\nresults = %s\n' \
    "$WEFT_SRCDIR/scenarios/dp-step-dgx-h100.ini" "$tmp/mem2.csv" >"$tmp/mem2.ini"
expect 0 "sweep: memory of a trace" "" -- "$WEFT" sweep "$tmp/mem2.ini"
if grep -Eq '^0,in-order,[0-9.]+,,ok,$' "$tmp/mem2.csv"; then
    ok "sweep: unknown memory is an empty cell"
else
    bad "sweep: unknown memory"; cat "$tmp/mem2.csv"
fi

# The realized leaf oversubscription: 8 DGX H100 on a leaf-spine asked for 2:1 get 1.60:1
# (2 leaves of 32 used ports down, 20 up: whole uplinks sized for the leaf's free ports too),
# as weft topo show prints it; the sweep records both
cat >"$tmp/ov.ini" <<EOF
[study]
axis.ov = cluster.oversubscription: 1:1, 2:1
metrics = leaf_oversubscription
results = ov.csv
[cluster]
file = $WEFT_SRCDIR/topologies/dgx-h100.ini
nodes = 8
fabric = leaf-spine
[workload]
collective = all_reduce
collective_bytes = 1MiB
EOF
expect 0 "sweep: leaf_oversubscription" "" -- "$WEFT" sweep -q "$tmp/ov.ini" -o "$tmp/ov.csv"
"$WEFT" topo show "$WEFT_SRCDIR/topologies/dgx-h100.ini" --set cluster.nodes=8 \
    --set cluster.fabric=leaf-spine --set cluster.oversubscription=2:1 >"$tmp/ov.txt"
grep -q '^1,2:1,2,1.600000,ok,$' "$tmp/ov.csv" && grep -q '^0,1:1,1,1.000000,ok,$' "$tmp/ov.csv" &&
    grep -q 'leaf: .*oversubscription 1.60:1' "$tmp/ov.txt" &&
    ok "sweep: the leaf oversubscription as built (2:1 asked, 1.60:1 built)" ||
    { bad "sweep: leaf_oversubscription"; cat "$tmp/ov.csv"; }

finish sweep_cli.sh
