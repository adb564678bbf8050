#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of `weft`: help and exit codes, the bundled example with
# its hand-derived step time, byte-identical repeated runs, and every kind of
# bad input failing with exit 1 and a message that names the culprit.
set -u
: "${WEFT:?set by make check}" "${MKTRACE:?}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"

# weft prints paths it resolves in canonical form; so must the expectations
# (make distcheck hands tests a srcdir such as .../_build/sub/../..)
WEFT_SRCDIR=$(cd "$WEFT_SRCDIR" && pwd -P)
dgx="$WEFT_SRCDIR/topologies/dgx-h100.ini"
ring8="$WEFT_SRCDIR/topologies/ring-8.ini"

# ---- help, version, usage errors (exit 2) ----
expect 0 "weft --help" "" -- "$WEFT" --help
grep -q "replay" "$tmp/out" || bad "weft --help lists replay"
expect 0 "weft --version" "" -- "$WEFT" --version
grep -Eq "^weft [0-9]+\.[0-9]+\.[0-9]+$" "$tmp/out" || bad "weft --version prints 'weft X.Y.Z'"
expect 0 "weft replay --help" "" -- "$WEFT" replay --help
grep -q -- "--cluster" "$tmp/out" || bad "weft replay --help lists --cluster"
expect 2 "no command" "" -- "$WEFT"
expect 2 "unknown command" "unknown command 'frobnicate'" -- "$WEFT" frobnicate
expect 2 "replay without --trace" "required" -- "$WEFT" replay --cluster "$dgx"
expect 2 "replay --chunks 0" "chunks" -- "$WEFT" replay --cluster "$dgx" --trace x --chunks 0
expect 2 "replay unknown option" "" -- "$WEFT" replay --frobnicate
expect 2 "replay stray argument" "unexpected argument 'extra'" -- "$WEFT" replay --cluster "$dgx" --trace x scenario.ini extra
expect 2 "replay unknown network model" "analytical" -- "$WEFT" replay --cluster "$dgx" --trace x --network packet

# ---- the bundled example ----
# traces/ holds exactly what mktrace makes
"$MKTRACE" dp-step 8 "$tmp/dp-step" || bad "mktrace dp-step"
for r in 0 1 2 3 4 5 6 7; do
    cmp -s "$tmp/dp-step.$r.et" "$WEFT_SRCDIR/traces/dp-step-8/dp-step.$r.et" ||
        bad "traces/dp-step-8/dp-step.$r.et differs from mktrace's output"
done
# The plain-ring model (collectives.tuning = off) has a closed form.
expect 0 "replay bundled dp-step on DGX H100, plain rings" "" -- "$WEFT" replay --cluster "$dgx" --trace "$WEFT_SRCDIR/traces/dp-step-8/dp-step" --set collectives.tuning=off
cp "$tmp/out" "$tmp/run1"
# Hand derivation (tuning off): ring all-reduce of 128 MiB over 8 GPUs through the NVSwitch planes:
# 14 steps of 0.6 us (two 300 ns NVLink hops, the default nvlink_latency) + 16777216 B /
# 450e9 B/s (37.282702 us) = 14 x 37.882702 = 530.357831 us each. forward 1500 +
# backward_layer2 1000 = 2500 us; grad2 runs 2500..3030.36 (hidden behind
# backward_layer1 2500..3500); grad1 3500..4030.36; optimizer 200 us:
# step = 4230.357831 us (weft rounds each transfer to 1 ps: 4230.357828).
step=$(awk '/^step time/ {print $3}' "$tmp/run1")
awk -v s="$step" 'BEGIN { e = 2500 + 1000 + 14 * (0.6 + 16777216 / 450e9 * 1e6) + 200;
    d = s - e; if (d < 0) d = -d; exit !(d < 1e-4) }' &&
    ok "dp-step step time $step us = hand-derived 4230.357831 us" ||
    bad "dp-step step time $step us, expected 4230.357831 us"
awk '$1 == 0 { exit !($3 == "3700.000000" && $4 + 0 > 530.35 && $4 + 0 < 530.36) }' "$tmp/run1" &&
    ok "rank 0: 3700 us compute, 530.36 us exposed communication" || bad "rank 0 breakdown"

# The default (collectives.tuning = auto: nccl on a DGX H100) runs each collective as weft coll predicts it: the
# same engine, the same selection for the same cluster, op, size and communicator (all 8 GPUs).
expect 0 "replay bundled dp-step on DGX H100, NCCL's tuning (default)" "" -- "$WEFT" replay --cluster "$dgx" --trace "$WEFT_SRCDIR/traces/dp-step-8/dp-step" --out "$tmp/dflt"
cp "$tmp/out" "$tmp/dflt.out"
# Links count the bytes on the wire alike under both models (the analytical model slows
# channels that share a pair with a rate cap, not by inflating their bytes): the two
# all-reduces' traffic, 7,247,757,312 B in all, within a byte of rounding.
expect 0 "the same step under flow" "" -- "$WEFT" replay --cluster "$dgx" --trace "$WEFT_SRCDIR/traces/dp-step-8/dp-step" --network flow --out "$tmp/flowout"
ab=$(sed -n 's/.*"link_bytes_total" *: *\([0-9]*\).*/\1/p' "$tmp/dflt/summary.json")
fb=$(sed -n 's/.*"link_bytes_total" *: *\([0-9]*\).*/\1/p' "$tmp/flowout/summary.json")
awk -v a="$ab" -v b="$fb" 'BEGIN { d = a - b; exit !(a > 7.2e9 && a < 7.3e9 && d <= 2 && d >= -2) }' &&
    ok "link bytes: analytical $ab B = flow $fb B" || bad "link bytes: analytical $ab B, flow $fb B"
expect 0 "weft coll, 128 MiB all-reduce on the DGX H100" "" -- "$WEFT" coll --cluster "$dgx" -b 128M -e 128M --csv "$tmp/coll.csv"
# time_us is column 4 of weft coll's CSV (3 decimals: within 0.0005 us, < 1e-6 of ~500 us)
coll_us=$(awk -F, 'NR == 2 { print $4 }' "$tmp/coll.csv")
# collectives.csv: op is column 4, bytes 5, members 6, time_us 15; both all-reduces must match
awk -F, -v c="$coll_us" 'NR == 1 { next } { n++; d = ($15 - c) / c; if (d < 0) d = -d;
        if (!($4 == "all_reduce" && $5 == 134217728 && $6 == 8 && d < 1e-6)) bad_row = 1 }
    END { exit !(n == 2 && !bad_row) }' "$tmp/dflt/collectives.csv" &&
    ok "each replayed 128 MiB all-reduce takes weft coll's $coll_us us" ||
    bad "replayed all-reduces differ from weft coll's $coll_us us: $(cut -d, -f4,5,6,15 "$tmp/dflt/collectives.csv" | tr '\n' ' ')"
# Derivation: forward 1500 + backward_layer2 1000 = 2500 us; grad2 runs 2500..2500 + T, hidden
# behind backward_layer1 (2500..3500) when T < 1000 us, and its NVLS kernel holds 16 of the
# H100's 132 SMs meanwhile (compute.sm_contention, doc/replay.md): backward_layer1 ends
# T x 16/132 late; grad1 then runs exposed for T; optimizer 200 us:
# step = 3700 + T x 16/132 + T, rank 0's compute 3700 + T x 16/132, exposed communication T.
step=$(awk '/^step time/ {print $3}' "$tmp/dflt.out")
awk -v s="$step" -v t="$coll_us" 'BEGIN { e = 3700 + t * 16 / 132 + t; d = (s - e) / e;
    if (d < 0) d = -d; exit !(t < 1000 && d < 1e-6) }' &&
    ok "default dp-step step time $step us = 3700 us + $coll_us us x (1 + 16/132)" ||
    bad "default dp-step step time $step us, expected 3700 us + $coll_us us x (1 + 16/132)"
awk -v t="$coll_us" '$1 == 0 { d = ($4 - t) / t; if (d < 0) d = -d; c = 3700 + t * 16 / 132;
        e = ($3 - c) / c; if (e < 0) e = -e; exit !(e < 1e-6 && d < 1e-6) }' "$tmp/dflt.out" &&
    ok "rank 0: 3700 us + T x 16/132 compute, $coll_us us exposed communication" ||
    bad "rank 0 breakdown (default)"
expect 0 "dp-step without SM contention" "" -- "$WEFT" replay --cluster "$dgx" --trace "$WEFT_SRCDIR/traces/dp-step-8/dp-step" --set compute.sm_contention=false
step=$(awk '/^step time/ {print $3}' "$tmp/out")
awk -v s="$step" -v t="$coll_us" 'BEGIN { e = 3700 + t; d = (s - e) / e; if (d < 0) d = -d;
    exit !(d < 1e-6) }' && ok "compute.sm_contention=false: step $step us = 3700 us + $coll_us us" ||
    bad "compute.sm_contention=false: step $step us, expected 3700 us + $coll_us us"

# ---- determinism: the same inputs give byte-identical output ----
"$WEFT" replay --cluster "$dgx" --trace "$WEFT_SRCDIR/traces/dp-step-8/dp-step" --set collectives.tuning=off >"$tmp/run2" 2>&1
"$WEFT" replay --cluster "$dgx" --trace "$WEFT_SRCDIR/traces/dp-step-8/dp-step" >"$tmp/dflt2.out" 2>&1
cmp -s "$tmp/dflt.out" "$tmp/dflt2.out" && ok "two default (tuned) runs are byte-identical" ||
    bad "two default runs differ"
cmp -s "$tmp/run1" "$tmp/run2" && ok "two runs are byte-identical" || bad "two runs differ"

# ---- a one-rank trace: the one-member warning, --replicate, --pg-size ----
# dp-step's ranks are all alike, so rank 0 copied to 8 ranks is the bundled 8-rank step,
# to the picosecond; alone its two all-reduces have one member (3700 us of compute only).
"$MKTRACE" dp-step 1 "$tmp/dp1" || bad "mktrace dp-step 1"
expect 0 "one-rank dp-step" "" -- "$WEFT" replay --cluster "$dgx" --trace "$tmp/dp1"
grep -q '^step time    3700.000000 us' "$tmp/out" &&
    grep -q '^warning      every communicator has one member .*2 collectives move no data.*--pg-size NAME=N.*--replicate N' "$tmp/out" &&
    ok "one-rank dp-step: 3700 us, warned that its 2 collectives move no data" ||
    { bad "one-rank dp-step: step time or warning"; cat "$tmp/out"; }
dflt_step=$(awk '/^step time/ {print $3}' "$tmp/dflt.out")
expect 0 "one-rank dp-step --replicate 8" "" -- "$WEFT" replay --cluster "$dgx" --trace "$tmp/dp1" --replicate 8
awk -v e="$dflt_step" '/^step time/ { exit !($3 == e) }' "$tmp/out" && ! grep -q 'one member' "$tmp/out" &&
    ok "--replicate 8: the 8-rank dp-step's $dflt_step us, no warning" ||
    { bad "--replicate 8: expected the 8-rank step $dflt_step us and no warning"; grep -E '^(step|warning)' "$tmp/out"; }
expect 0 "--replicate 8 --pg-size 0=4" "" -- "$WEFT" replay --cluster "$dgx" --trace "$tmp/dp1" --replicate 8 --pg-size 0=4
grep -q '^  #1  0\.[01]:' "$tmp/out" && awk '/^  #1 / { exit !($NF > 0) }' "$tmp/out" &&
    ok "--pg-size 0=4: all-reduces in groups 0.0 and 0.1, busbw > 0" ||
    { bad "--pg-size 0=4: communicators 0.0/0.1 with busbw > 0"; grep -A3 '^most expensive' "$tmp/out"; }
"$WEFT" replay --cluster "$dgx" --trace "$tmp/dp1" --set workload.replicate=8 -q >"$tmp/sc.out" 2>&1 &&
    grep -q "^step time    $dflt_step us" "$tmp/sc.out" && ok "workload.replicate = 8 is --replicate 8" ||
    bad "workload.replicate = 8 differs from --replicate 8"
expect 2 "--replicate 0" "--replicate.*\"0\"" -- "$WEFT" replay --cluster "$dgx" --trace "$tmp/dp1" --replicate 0
expect 2 "--pg-size 0=0" "--pg-size.*0=0" -- "$WEFT" replay --cluster "$dgx" --trace "$tmp/dp1" --replicate 8 --pg-size 0=0
expect 2 "--pg-size without =N" "--pg-size.*'tp'" -- "$WEFT" replay --cluster "$dgx" --trace "$tmp/dp1" --replicate 8 --pg-size tp
expect 1 "--pg-size 0=3 does not divide 8" "--pg-size 0=3: 3 does not divide the workload's 8 ranks" -- "$WEFT" replay --cluster "$dgx" --trace "$tmp/dp1" --replicate 8 --pg-size 0=3
expect 1 "--pg-size of an unknown group" "--pg-size tp=2: .*no process group 'tp'" -- "$WEFT" replay --cluster "$dgx" --trace "$tmp/dp1" --replicate 8 --pg-size tp=2
expect 1 "--pg-size on one rank needs --replicate" "--pg-size 0=8: .*--replicate" -- "$WEFT" replay --cluster "$dgx" --trace "$tmp/dp1" --pg-size 0=8
expect 1 "--replicate of an 8-rank trace" "--replicate 8: the workload has 8 ranks" -- "$WEFT" replay --cluster "$dgx" --trace "$WEFT_SRCDIR/traces/dp-step-8/dp-step" --replicate 8
expect 1 "--replicate beyond the cluster's GPUs" "16.*8" -- "$WEFT" replay --cluster "$dgx" --trace "$tmp/dp1" --replicate 16
expect 1 "workload.replicate without a trace" "workload.replicate is for a trace" -- "$WEFT" replay --cluster "$dgx" --set workload.collective=all_reduce --set workload.collective_bytes=1MiB --set workload.replicate=2

# ---- bad input: exit 1, message naming the file, rank or node ----
for s in empty truncated corrupt-varint missing-dep cycle unmatched-send coll-deadlock p2p-size-mismatch; do
    "$MKTRACE" $s 4 "$tmp/$s" || bad "mktrace $s"
done
expect 1 "empty file" "empty\.0\.et" -- "$WEFT" replay --cluster "$ring8" --trace "$tmp/empty"
expect 1 "truncated file" "truncated\.0\.et.*(offset|byte)" -- "$WEFT" replay --cluster "$ring8" --trace "$tmp/truncated"
expect 1 "corrupt varint" "corrupt-varint\.0\.et" -- "$WEFT" replay --cluster "$ring8" --trace "$tmp/corrupt-varint"
expect 1 "prefix matching no file" "nosuchtrace" -- "$WEFT" replay --cluster "$ring8" --trace "$tmp/nosuchtrace"
expect 1 "a file given as the prefix gets a hint" "prefix is probably '$tmp/empty'" -- "$WEFT" replay --cluster "$ring8" --trace "$tmp/empty.0.et"
expect 1 "a directory given as the prefix gets a hint" "prefix is probably '$WEFT_SRCDIR/traces/dp-step-8/dp-step'" -- "$WEFT" replay --cluster "$ring8" --trace "$WEFT_SRCDIR/traces/dp-step-8"
expect 1 "dependency on a missing node" "missing-dep\.0\.et.*99" -- "$WEFT" replay --cluster "$ring8" --trace "$tmp/missing-dep"
expect 1 "dependency cycle" "cycle\.0\.et" -- "$WEFT" replay --cluster "$ring8" --trace "$tmp/cycle"
expect 1 "unmatched send" "unmatched-send\.0\.et.*send_activations" -- "$WEFT" replay --cluster "$ring8" --trace "$tmp/unmatched-send"
expect 1 "send and receive of different sizes name both nodes and sizes" "p2p-size-mismatch\.0\.et: rank 0 node 2 \(send_activations\) sends 1048576 bytes but .*p2p-size-mismatch\.1\.et: rank 1 node 2 \(recv_activations\) receives 2097152 bytes" -- "$WEFT" replay --cluster "$ring8" --trace "$tmp/p2p-size-mismatch"
expect 1 "collective a member never reaches" "deadlock.*" -- "$WEFT" replay --cluster "$ring8" --trace "$tmp/coll-deadlock"
grep -q "rank(s) 3 that never reached it" "$tmp/err" && ok "deadlock report names the missing rank 3" ||
    { bad "deadlock report names rank 3"; cat "$tmp/err"; }
"$MKTRACE" dp-step 16 "$tmp/dp16"
expect 1 "more ranks than GPUs" "16.*8|8.*16" -- "$WEFT" replay --cluster "$dgx" --trace "$tmp/dp16"
printf '[cluster]\nkind = ring\ngpus = 8\nlink_bandwidth = 50 furlongs/s\nlink_latency = 500ns\n' >"$tmp/badunit.ini"
expect 1 "unknown unit in the cluster file" "badunit\.ini.*link_bandwidth.*furlongs" -- "$WEFT" replay --cluster "$tmp/badunit.ini" --trace "$WEFT_SRCDIR/traces/dp-step-8/dp-step"
printf '[cluster]\nkind = ring\ngpus = 8\nlink_bandwidth = 50\nlink_latency = 500ns\n' >"$tmp/nounit.ini"
expect 1 "missing unit in the cluster file" "nounit\.ini.*link_bandwidth" -- "$WEFT" replay --cluster "$tmp/nounit.ini" --trace "$WEFT_SRCDIR/traces/dp-step-8/dp-step"
printf '[cluster]\nkind = ring\ngpus = 8\nlink_bandwidth = 50GB/s\nlink_latency = 500ns\nlink_latency = 1us\n' >"$tmp/twice.ini"
expect 1 "a key set twice in the cluster file" "twice\.ini: line 6: key 'link_latency' of \[cluster\] is set twice" -- "$WEFT" replay --cluster "$tmp/twice.ini" --trace "$WEFT_SRCDIR/traces/dp-step-8/dp-step"
expect 1 "missing cluster file" "nosuch\.ini" -- "$WEFT" replay --cluster "$tmp/nosuch.ini" --trace "$WEFT_SRCDIR/traces/dp-step-8/dp-step"

finish cli.sh
