#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of scenario files: `weft replay SCENARIO.ini` gives the
# same step as the options it stands for; --set and the shorthand options
# override the file; --show-config prints an effective configuration that runs
# again to identical results; --out writes its three files; unknown keys and
# bad values fail with exit 1, malformed command lines with exit 2; workloads
# without a trace ([transformer] by --gen or --set, workload.collective) give the
# spec's step and the closed-form ring.
set -u
: "${WEFT:?set by make check}" "${MKTRACE:?}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"

# results without the two lines that name the input files (paths differ by how they were given)
results() { grep -v -e '^cluster ' -e '^workload ' "$1"; }
step_of() { awk '/^step time/ {print $3}' "$1"; }

scen="$WEFT_SRCDIR/scenarios/dp-step-dgx-h100.ini"
dgx="$WEFT_SRCDIR/topologies/dgx-h100.ini"
trace="$WEFT_SRCDIR/traces/dp-step-8/dp-step"

# ---- the bundled scenario = the options it stands for ----
expect 0 "replay the bundled scenario" "" -- "$WEFT" replay "$scen"
cp "$tmp/out" "$tmp/scen.out"
expect 0 "replay with --cluster and --trace" "" -- "$WEFT" replay --cluster "$dgx" --trace "$trace"
cp "$tmp/out" "$tmp/opts.out"
results "$tmp/scen.out" >"$tmp/a"; results "$tmp/opts.out" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && ok "scenario and options give identical results" ||
    bad "scenario and options differ"
# the hand derivation of tests/cli.sh for plain rings (collectives.tuning = off):
# 2500 + 1000 + 14 (0.6 us + 16777216 B / 450e9 B/s) + 200
# = 3700 + 14 x 37.882702 = 4230.357831 us (0.6 us: two NVLink hops of the default 300 ns)
expect 0 "replay the bundled scenario, plain rings" "" -- "$WEFT" replay "$scen" --set collectives.tuning=off
step=$(step_of "$tmp/out")
awk -v s="$step" 'BEGIN { e = 3700 + 14 * (0.6 + 16777216 / 450e9 * 1e6); d = s - e;
    if (d < 0) d = -d; exit !(d < 1e-4) }' && ok "scenario step $step us = 4230.357831 us" ||
    bad "scenario step $step us, expected 4230.357831 us"
grep -q '^placement    in-order$' "$tmp/scen.out" && ok "report names the placement" ||
    bad "no placement line"

# ---- overrides: --set and shorthands beat the file ----
# duration_scale 2 doubles the 3700 us of compute: 7400 + 14 * 37.882702 = 7930.357831 us
# (plain rings: collectives.tuning = off)
expect 0 "--set compute.duration_scale=2" "" -- "$WEFT" replay "$scen" --set compute.duration_scale=2 --set collectives.tuning=off
step=$(step_of "$tmp/out")
awk -v s="$step" 'BEGIN { e = 7400 + 14 * (0.6 + 16777216 / 450e9 * 1e6); d = s - e;
    if (d < 0) d = -d; exit !(d < 1e-4) }' && ok "doubled compute: step $step us = 7930.357831 us" ||
    bad "doubled compute: step $step us, expected 7930.357831 us"
expect 0 "--chunks 4 sets collectives.chunks" "" -- "$WEFT" replay "$scen" --chunks 4
grep -q '4 chunk(s) per collective' "$tmp/out" && ok "--chunks reached the run" || bad "--chunks ignored"
expect 0 "--set after --chunks wins" "" -- "$WEFT" replay "$scen" --chunks 4 --set collectives.chunks=2
grep -q '2 chunk(s) per collective' "$tmp/out" && ok "--set applied after the shorthand" ||
    bad "--set did not win over --chunks"
expect 0 "later --set wins" "" -- "$WEFT" replay "$scen" --set collectives.chunks=3 --set collectives.chunks=5
grep -q '5 chunk(s) per collective' "$tmp/out" && ok "the last --set wins" || bad "the last --set lost"
# a scenario-less run described entirely by --set, cluster inline
expect 0 "inline cluster by --set" "" -- "$WEFT" replay --trace "$trace" --set cluster.kind=dgx-h100 --set cluster.nodes=1
results "$tmp/out" >"$tmp/a"; results "$tmp/opts.out" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && ok "inline cluster gives the same results" || bad "inline cluster differs"

# ---- --show-config: the effective configuration runs again to identical results ----
expect 0 "--show-config" "" -- "$WEFT" replay "$scen" --set collectives.chunks=2 --show-config
cp "$tmp/out" "$tmp/effective.ini"
grep -Eq '^# weft [0-9]+\.[0-9]+\.[0-9]+' "$tmp/effective.ini" && ok "config names the version" ||
    bad "config header"
for line in '^\[faults\]$' '^chunks = 2$' '^placement_seed = 1$' '^ecmp_seed = 0$' "^file = /" "^trace = /" '^kind = dgx-h100$'; do
    grep -Eq "$line" "$tmp/effective.ini" || bad "effective config lacks /$line/"
done
ok "effective config lists defaults, overrides and absolute paths"
[ ! -s "$tmp/err" ] || bad "--show-config wrote to stderr"
expect 0 "replay the effective configuration" "" -- "$WEFT" replay "$tmp/effective.ini"
cp "$tmp/out" "$tmp/again.out"
"$WEFT" replay "$scen" --set collectives.chunks=2 >"$tmp/orig.out" 2>&1
results "$tmp/orig.out" >"$tmp/a"; results "$tmp/again.out" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && ok "effective configuration reproduces the run" ||
    { bad "effective configuration gives different results"; diff "$tmp/a" "$tmp/b"; }
"$WEFT" replay "$tmp/effective.ini" --show-config >"$tmp/effective2.ini"
cmp -s "$tmp/effective.ini" "$tmp/effective2.ini" && ok "--show-config is a fixed point" ||
    bad "--show-config of the effective configuration differs"

# ---- --out: the three files, written before nothing else is left ----
expect 0 "--out DIR" "" -- "$WEFT" replay "$scen" --out "$tmp/results/run1"
for f in scenario.ini ranks.csv summary.txt; do
    [ -s "$tmp/results/run1/$f" ] || bad "--out did not write $f"
done
cmp -s "$tmp/out" "$tmp/results/run1/summary.txt" && ok "summary.txt is what stdout shows" ||
    bad "summary.txt differs from stdout"
head -1 "$tmp/results/run1/ranks.csv" | grep -qx 'rank,gpu,finish_us,compute_us,exposed_comm_us,idle_us,mem_peak_bytes,mem_peak_us' &&
    ok "ranks.csv header" || bad "ranks.csv header"
[ "$(wc -l <"$tmp/results/run1/ranks.csv")" -eq 9 ] && ok "ranks.csv has 8 ranks" || bad "ranks.csv rows"
# compute: the trace's 3700 us and what grad2's NVLS kernel (16 of 132 SMs) takes from
# backward_layer1 beside it (doc/replay.md): 3700 + T x 16/132, T rank 0's exposed comm
awk -F, 'NR == 2 { c = 3700 + $5 * 16 / 132; d = $4 - c; if (d < 0) d = -d;
        exit !($1 == 0 && $2 == 0 && d < 1e-3) }' "$tmp/results/run1/ranks.csv" &&
    ok "ranks.csv rank 0 on GPU 0 with 3700 us + T x 16/132 compute" || bad "ranks.csv rank 0"
grep -q "^dir = $tmp/results/run1\$" "$tmp/results/run1/scenario.ini" && ok "scenario.ini saved with its dir" ||
    bad "scenario.ini lacks output.dir"
: >"$tmp/plainfile"
expect 1 "--out under a regular file fails" "plainfile" -- "$WEFT" replay "$scen" --out "$tmp/plainfile/sub"
[ ! -s "$tmp/out" ] && ok "nothing ran before the output check" || bad "ran before failing on --out"

# ---- errors ----
printf '[workload]\ntrace = x\n[bogus]\n' >"$tmp/badgroup.ini"
expect 1 "unknown group in a scenario" "badgroup\.ini.*bogus.*\[cluster\].*\[workload\]" -- "$WEFT" replay "$tmp/badgroup.ini"
printf '[workload]\ntracee = x\n' >"$tmp/badkey.ini"
expect 1 "unknown key in a scenario" "badkey\.ini.*tracee.*trace, comm_groups" -- "$WEFT" replay "$tmp/badkey.ini"
expect 1 "--set of an unknown key" "collectives\.chunk \(did you mean chunks\?\).*chunks" -- "$WEFT" replay "$scen" --set collectives.chunk=4
expect 1 "--set of an unknown group" "bogus.*\[workload\]" -- "$WEFT" replay "$scen" --set bogus.x=1
# A scaled duration past the picosecond clock (2^63 ps, about 106 days) is the clock's error,
# not an abort (issue 19, item 1): the dp-step's forward node (hundreds of us) x 1e10 passes 2^63 ps.
for sm in true false; do
    expect 1 "compute.duration_scale=1e10 (sm_contention $sm): the clock overflow" \
        "rank 0 node 1 \(forward\) would finish after 107 days" -- \
        "$WEFT" replay "$scen" --set compute.duration_scale=1e10 --set compute.sm_contention=$sm
done
expect 1 "--set of a faults key" "faults" -- "$WEFT" replay "$scen" --set faults.link_down=1
expect 1 "--set of a bad value" "collectives\.chunks.*\"0\"" -- "$WEFT" replay "$scen" --set collectives.chunks=0
expect 1 "--set of a bad choice" "workload\.placement.*diagonal.*in-order" -- "$WEFT" replay "$scen" --set workload.placement=diagonal
expect 1 "--set of a bad cluster key" "cluster.*colour" -- "$WEFT" replay "$scen" --set cluster.colour=blue
expect 1 "--set of a value without its unit" "cluster.*nvlink_latency" -- "$WEFT" replay "$scen" --set cluster.nvlink_latency=500
expect 1 "missing scenario file" "nosuch\.ini" -- "$WEFT" replay "$tmp/nosuch.ini"
printf '[cluster]\nkind = ring\ngpus = 8\nlink_bandwidth = 50GB/s\nlink_latency = 1us\n' >"$tmp/notrace.ini"
expect 1 "scenario without a trace" "workload\.trace" -- "$WEFT" replay "$tmp/notrace.ini"
expect 2 "--set without '='" "collectives\.chunks" -- "$WEFT" replay "$scen" --set collectives.chunks
expect 2 "--set without a group" "chunks=4" -- "$WEFT" replay "$scen" --set chunks=4
expect 2 "two scenario files" "unexpected argument" -- "$WEFT" replay "$scen" "$scen"
expect 2 "no scenario, no --trace" "required" -- "$WEFT" replay --cluster "$dgx"

# ---- workloads without a trace: [transformer] (--gen) and workload.collective ----
ring8="$WEFT_SRCDIR/topologies/ring-8.ini"
sw8="$WEFT_SRCDIR/topologies/switch-8.ini"
# ring all-reduce of S = 64 MiB on ring-8 (50 GiB/s, 500 ns links), plain rings:
# 2 (n - 1) = 14 steps of S / n = 8 MiB: 14 (0.5 + 8 MiB / 50 GiB/s) = 14 x 156.75 = 2194.5 us
expect 0 "one all-reduce by --set" "" -- "$WEFT" replay -q --cluster "$ring8" \
    --set workload.collective=all_reduce --set workload.collective_bytes=64MiB \
    --set collectives.tuning=off
[ "$(step_of "$tmp/out")" = "2194.500000" ] && ok "all-reduce step 2194.5 us" ||
    bad "all-reduce step $(step_of "$tmp/out") us, expected 2194.5 us"
expect 0 "three all-reduces" "" -- "$WEFT" replay -q --cluster "$ring8" \
    --set workload.collective=all_reduce --set workload.collective_bytes=64MiB \
    --set workload.collective_iterations=3 --set collectives.tuning=off
[ "$(step_of "$tmp/out")" = "6583.500000" ] && ok "three all-reduces 3 x 2194.5 us" ||
    bad "three all-reduces $(step_of "$tmp/out") us, expected 6583.5 us"
expect 1 "unknown collective lists the valid ones" "allgatherv.*all_gather" -- "$WEFT" replay \
    --cluster "$ring8" --set workload.collective=allgatherv --set workload.collective_bytes=1MiB
expect 1 "collective of 0 bytes" "collective_bytes.*0B" -- "$WEFT" replay \
    --cluster "$ring8" --set workload.collective=all_reduce --set workload.collective_bytes=0B

# --gen and --set transformer.* = the spec weft gen writes (dp 2 from 8 GPUs / (tp 2 x pp 2))
expect 0 "weft gen --spec" "" -- "$WEFT" gen transformer --model gpt3-1.3b --tp 2 --pp 2 --dp 2 \
    --spec "$tmp/step.gen"
expect 0 "replay of the spec" "" -- "$WEFT" replay -q --cluster "$sw8" --trace "$tmp/step.gen"
spec_step=$(step_of "$tmp/out")
expect 0 "replay --gen" "" -- "$WEFT" replay -q --cluster "$sw8" --gen model=gpt3-1.3b,tp=2,pp=2
[ "$(step_of "$tmp/out")" = "$spec_step" ] && ok "--gen step = spec step ($spec_step us)" ||
    bad "--gen step $(step_of "$tmp/out") us, spec step $spec_step us"
expect 0 "replay --set transformer.*" "" -- "$WEFT" replay -q --cluster "$sw8" \
    --set transformer.model=gpt3-1.3b --set transformer.tp=2 --set transformer.pp=2
[ "$(step_of "$tmp/out")" = "$spec_step" ] && ok "--set transformer step = spec step" ||
    bad "--set transformer step $(step_of "$tmp/out") us, spec step $spec_step us"
# the saved configuration runs again (plain rings: a saved collectives.chunks = 1 forces one
# chunk under NCCL's tuning)
expect 0 "--show-config with --gen" "" -- "$WEFT" replay --cluster "$sw8" \
    --gen model=gpt3-1.3b,tp=2,pp=2 --set collectives.tuning=off --show-config
cp "$tmp/out" "$tmp/gen.ini"
grep -q '^\[transformer\]$' "$tmp/gen.ini" && grep -q '^tp = 2$' "$tmp/gen.ini" &&
    ok "--show-config prints [transformer]" || bad "no [transformer] in --show-config"
expect 0 "replay the saved [transformer] scenario" "" -- "$WEFT" replay -q "$tmp/gen.ini"
cp "$tmp/out" "$tmp/gen_again.out"
expect 0 "replay --gen, plain rings" "" -- "$WEFT" replay -q --cluster "$sw8" \
    --gen model=gpt3-1.3b,tp=2,pp=2 --set collectives.tuning=off
cmp -s "$tmp/out" "$tmp/gen_again.out" && ok "saved [transformer] scenario reruns identically" ||
    bad "saved [transformer] scenario differs"
expect 1 "trace and [transformer] together" "transformer\.tp.*workload\.trace" -- "$WEFT" replay \
    --cluster "$sw8" --trace "$tmp/step.gen" --gen tp=2
expect 1 "--gen of a bad value" "transformer\.tp.*\"x\"" -- "$WEFT" replay --cluster "$sw8" --gen tp=x
expect 1 "--gen of an impossible split" "dp is unset.*8 GPUs" -- "$WEFT" replay --cluster "$sw8" \
    --gen model=gpt3-1.3b,tp=3
expect 2 "--gen without '='" "model=" -- "$WEFT" replay --cluster "$sw8" --gen gpt3-1.3b

# Under NCCL's tuning (the default) too: the saved configuration leaves chunks
# unset (`chunks =`), so NCCL chooses them again instead of being forced to 1.
expect 0 "dp step under NCCL tuning" "" -- "$WEFT" replay -q "$scen"
nccl_step=$(step_of "$tmp/out")
"$WEFT" replay "$scen" --show-config >"$tmp/nccl.ini" 2>/dev/null
grep -q '^chunks =$' "$tmp/nccl.ini" && ok "saved configuration leaves chunks unset" ||
    bad "saved configuration sets chunks"
expect 0 "saved NCCL-tuned configuration" "" -- "$WEFT" replay -q "$tmp/nccl.ini"
[ "$(step_of "$tmp/out")" = "$nccl_step" ] && ok "saved NCCL-tuned configuration reruns identically" ||
    bad "saved NCCL-tuned configuration: $(step_of "$tmp/out") us, expected $nccl_step us"

# ---- forced algorithms under the plain model (abstract clusters, collectives.tuning = off) ----
# An ASTRA-sim Switch of 8 NPUs, 50 GB/s (ASTRA-sim's GB/s: 2^30 B/s) and 10 ns per link: a
# route is 2 links, 20 ns. All-reduce of S = 100 MiB:
#   ring: 14 steps of S/8: 14 (0.02 + 13107200 / 53687091200 s) = 14 x 244.160625 = 3418.24875 us
#   halving-doubling (n = 2^3): 6 steps, 2 (7/8) S bytes: 6 x 0.02 + 3417.96875 = 3418.08875 us
printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]\nlatency: [ 10.0 ]\n' \
    >"$tmp/sw8.yml"
ar100() { "$WEFT" replay --cluster "$tmp/sw8.yml" --set workload.collective=all_reduce \
    --set workload.collective_bytes=100MiB "$@"; }
expect 0 "plain ring on an ASTRA-sim switch" "" -- ar100 -q
[ "$(step_of "$tmp/out")" = "3418.248750" ] && ok "plain ring 3418.24875 us" ||
    bad "plain ring $(step_of "$tmp/out") us, expected 3418.24875 us"
expect 0 "plain halving-doubling, forced" "" -- ar100 --set collectives.all_reduce_algorithm=halving_doubling
[ "$(step_of "$tmp/out")" = "3418.088750" ] && ok "plain halving-doubling 3418.08875 us" ||
    bad "plain halving-doubling $(step_of "$tmp/out") us, expected 3418.08875 us (was ignored: ring)"
grep -q '^algorithms   all_reduce halving_doubling (forced' "$tmp/out" &&
    ok "the summary names the forced algorithm" || bad "no algorithms line"
expect 0 "plain tree, forced" "" -- ar100 -q --set collectives.tuning=off \
    --set collectives.all_reduce_algorithm=tree
[ "$(step_of "$tmp/out")" != "3418.248750" ] && ok "plain tree is not the ring" ||
    bad "plain tree ran the ring"
expect 1 "nvls under the plain model is refused" "all_reduce_algorithm = nvls.*tuning = nccl" -- \
    ar100 --set collectives.all_reduce_algorithm=nvls
expect 1 "a protocol under the plain model is refused" "all_reduce_protocol = ll.*no protocols" -- \
    ar100 --set collectives.all_reduce_protocol=ll
# the plain model runs ASTRA-sim's direct all-reduce (build_direct(), coll.h)
expect 0 "direct all-reduce (plain) runs ASTRA-sim's direct" "" \
    -- ar100 --set collectives.all_reduce_algorithm=direct
expect 1 "direct all-reduce (NCCL) says what to do" "no direct algorithm: direct runs all-to-all.*choose auto" \
    -- ar100 --set collectives.tuning=nccl --set collectives.all_reduce_algorithm=direct
# NCCL's tuning forced on the switch: each NPU is a node; the ring's latency term was
# 2^32 hops (3,417,991 us); now a ring at NCCL's bandwidth, within 25 % of the plain one
expect 0 "NCCL ring on an ASTRA-sim switch" "" -- ar100 -q --set collectives.tuning=nccl \
    --set collectives.all_reduce_algorithm=ring
awk -v s="$(step_of "$tmp/out")" 'BEGIN { exit !(s > 3418.0 && s < 1.25 * 3418.25) }' &&
    ok "NCCL ring $(step_of "$tmp/out") us, within 25 % of 3418.25 us" ||
    bad "NCCL ring $(step_of "$tmp/out") us, expected within 25 % of 3418.25 us"
expect 0 "NCCL halving-doubling on an ASTRA-sim switch" "" -- ar100 -q --set collectives.tuning=nccl \
    --set collectives.all_reduce_algorithm=halving_doubling
awk -v s="$(step_of "$tmp/out")" 'BEGIN { exit !(s > 3418.0 && s < 1.25 * 3418.25) }' &&
    ok "NCCL halving-doubling $(step_of "$tmp/out") us, within 25 % of 3418.09 us" ||
    bad "NCCL halving-doubling $(step_of "$tmp/out") us, expected within 25 % of 3418.09 us"

# ---- collectives.detail = coarse (doc/replay.md) ----
# A plain 16 MiB ring all-reduce on 256 GPUs of the 2:1 leaf-spine, under flow: its ring
# crosses the spines by ECMP (32,640 transfers), so it runs as one aggregate flow, which
# alone takes exactly its run alone: the step of every transfer simulated.
ls="$WEFT_SRCDIR/topologies/leaf-spine-2to1.ini"
lsargs="--cluster $ls --set cluster.nodes=32 --set workload.collective=all_reduce --set workload.collective_bytes=16MiB --set collectives.tuning=off --network flow"
# shellcheck disable=SC2086
expect 0 "coarse under flow" "" -- "$WEFT" replay $lsargs --set collectives.detail=coarse --out "$tmp/coarse"
cp "$tmp/out" "$tmp/coarse.out"
# shellcheck disable=SC2086
expect 0 "the same, every transfer" "" -- "$WEFT" replay $lsargs --set collectives.detail=transfers
grep -q '^coarse       1 collective(s) ran as one aggregate flow' "$tmp/coarse.out" &&
    ok "the summary counts the aggregate" || bad "no coarse line counting 1: $(grep coarse "$tmp/coarse.out")"
[ "$(step_of "$tmp/coarse.out")" = "$(step_of "$tmp/out")" ] && [ -n "$(step_of "$tmp/out")" ] &&
    ok "coarse alone = transfers: $(step_of "$tmp/out") us" ||
    bad "coarse $(step_of "$tmp/coarse.out") us, transfers $(step_of "$tmp/out") us"
grep -q '"coarse_collectives" : 1' "$tmp/coarse/summary.json" && ok "summary.json counts it" ||
    bad "summary.json: no coarse_collectives 1"
# shellcheck disable=SC2086
expect 0 "coarse under analytical" "" -- "$WEFT" replay $lsargs --network analytical --set collectives.detail=coarse
grep -q '^coarse       not applied: under analytical' "$tmp/out" && ok "coarse says why it did not apply" ||
    bad "no 'not applied' line under analytical"
expect 1 "collectives.detail = bogus" "collectives.detail.*bogus" -- "$WEFT" replay "$scen" --set collectives.detail=bogus

# memory.oom: GPT-3 13B unsharded peaks at 233 GiB per GPU in the replay (18 bytes per
# parameter of model states, 219.73 GiB, and 40 layers of one micro-batch's activations,
# 13.29 GiB) against the H100's 74.51 GiB (80 GB)
expect 1 "memory.oom = error refuses what does not fit" \
    "rank 0 peaks at 233.03 GiB at .* above the 74.51 GiB of H100-SXM's HBM.*optimizer 97.66.*8 of 8 ranks do not fit \\(memory.oom = error\\)" -- \
    "$WEFT" replay --cluster "$dgx" --gen model=gpt3-13b --set memory.oom=error
expect 0 "memory.oom = warn runs it" "" -- "$WEFT" replay --cluster "$dgx" --gen model=gpt3-13b
grep -Eq "^warning      out of memory: rank 0 peaks at 233.03 GiB.*memory.oom = warn" "$tmp/out" &&
    ok "memory.oom = warn says so in the summary" || bad "no out-of-memory warning line"
expect 1 "memory.oom = maybe" "memory.oom = \"maybe\": expected one of warn, error" -- \
    "$WEFT" replay --cluster "$dgx" --gen model=gpt3-13b --set memory.oom=maybe

# A peer's file given where a scenario goes says what it looks like and where it goes
printf '# an ASTRA-sim network\ntopology: [ Ring ]\nnpus_count: [ 8 ]\n' > "$tmp/net.yml"
expect 1 "a YAML as the scenario" \
    "net.yml: not an INI file: .*topology: \\[ Ring \\].*looks like YAML: an ASTRA-sim network file goes to --cluster" -- \
    "$WEFT" replay "$tmp/net.yml"
printf '{\n  "endpoint-delay": 10\n}\n' > "$tmp/sys.json"
expect 1 "a JSON as the scenario" "sys.json: not an INI file: .*looks like JSON: an ASTRA-sim system file goes to --system" -- \
    "$WEFT" replay "$tmp/sys.json"

finish scenario_cli.sh
