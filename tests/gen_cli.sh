#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of `weft gen transformer`: a small configuration written as
# Chakra ET files and a comm-group JSON (keyed by integer ids, as ASTRA-sim
# reads it) replays on one DGX H100; the same
# configuration as a spec file replays through --trace within 1 % of it (the
# files round durations to microseconds); impossible configurations exit 1
# naming the value; a model that does not fit HBM is warned about; usage
# errors exit 2. The end-to-end validation rows are in validate.sh (make
# check-slow).
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { printf 'ok   %s\n' "$1"; }
bad() { printf 'FAIL %s\n' "$1"; fails=$((fails + 1)); }
dgx="$WEFT_SRCDIR/topologies/dgx-h100.ini"

# expect CODE NAME PATTERN -- CMD...: CMD exits with CODE and its stderr matches PATTERN
expect() {
    code=$1 name=$2 pattern=$3
    shift 4
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne "$code" ]; then
        bad "$name: exit $rc, expected $code"; sed 's/^/     /' "$tmp/err"; return
    fi
    if [ -n "$pattern" ] && ! grep -Eq -e "$pattern" "$tmp/err"; then
        bad "$name: stderr does not match /$pattern/"; sed 's/^/     /' "$tmp/err"; return
    fi
    ok "$name"
}

step() { awk '/^step time/ {print $3}' "$1"; }

cfg="--model gpt3-1.3b --tp 2 --pp 2 --dp 2 --sp --dist-opt --global-batch 8"
expect 0 "gen writes traces" "" -- "$WEFT" gen transformer $cfg --out "$tmp/t/step" \
    --spec "$tmp/step.gen"
n=$(ls "$tmp/t" | grep -c '\.et$')
[ "$n" -eq 8 ] && ok "8 trace files" || bad "8 trace files: $n"
[ -s "$tmp/t/step.json" ] && ok "comm-group file" || bad "comm-group file missing"
# ASTRA-sim reads the keys with std::stoi: ids 1.. (tp.0 is 1), not weft's names
case "$(cat "$tmp/t/step.json")" in
'{"1":[0,1],"2":[2,3],'*) ok "comm-group keys are integer ids" ;;
*) bad "comm-group keys: $(cut -c1-60 "$tmp/t/step.json")" ;;
esac
expect 0 "replay of the files" "" -- "$WEFT" replay -q --cluster "$dgx" \
    --trace "$tmp/t/step" --comm-groups "$tmp/t/step.json"
a=$(step "$tmp/out")
expect 0 "replay of the spec" "" -- "$WEFT" replay -q --cluster "$dgx" --trace "$tmp/step.gen"
b=$(step "$tmp/out")
if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" \
    'BEGIN {d = (a - b) / b; if (d < 0) d = -d; exit !(b > 0 && d < 0.01)}'; then
    ok "files ($a us) and spec ($b us) agree within 1 %"
else
    bad "files ($a us) and spec ($b us) differ"
fi
# layers and phases round-trip through the Chakra files (attributes layer and phase)
"$WEFT" replay -q --cluster "$dgx" --trace "$tmp/t/step" --out "$tmp/lf" >/dev/null 2>&1
"$WEFT" replay -q --cluster "$dgx" --trace "$tmp/step.gen" --out "$tmp/ls" >/dev/null 2>&1
cut -d, -f2-4 "$tmp/lf/layers.csv" | sort >"$tmp/lf.rows"
cut -d, -f2-4 "$tmp/ls/layers.csv" | sort >"$tmp/ls.rows"
if [ "$(wc -l <"$tmp/ls.rows")" -eq 83 ] && cmp -s "$tmp/lf.rows" "$tmp/ls.rows"; then
    ok "files and spec: the same 82 (layer, phase) rows in layers.csv"
else
    bad "layers.csv rows differ between files and spec: $(diff "$tmp/lf.rows" "$tmp/ls.rows" | head -3)"
fi
grep -q '^13,layer.11,wgrad,4,' "$tmp/ls/layers.csv" && ok "layer.11 (id 13) wgrad on the 4 ranks of stage 0" ||
    bad "layer.11 wgrad row: $(grep -m1 'layer.11,wgrad' "$tmp/ls/layers.csv")"
# memory round-trips too (mem_alloc_bytes, mem_free_bytes, mem_category on the nodes, the
# resident bytes in each file's GlobalMetadata): every rank's peak is the same byte count
# (its instant may move: Chakra rounds durations to whole us)
peak_col() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "mem_peak_bytes") c = i; next } { print $1, $c }' "$1"; }
if [ -n "$(peak_col "$tmp/lf/ranks.csv" | awk '$2 > 0')" ] &&
    [ "$(peak_col "$tmp/lf/ranks.csv")" = "$(peak_col "$tmp/ls/ranks.csv")" ]; then
    ok "files and spec: the same peak memory on every rank"
else
    bad "peak memory differs between files and spec"
fi

expect 1 "tp not dividing heads" "tp 3 does not divide heads 32" -- \
    "$WEFT" gen transformer --model gpt3-2.7b --tp 3
expect 1 "ranks mismatch" "ranks 6 != tp 2" -- \
    "$WEFT" gen transformer --model gpt3-2.7b --tp 2 --dp 2 --ranks 6
expect 1 "ep not dividing experts" "ep 3 does not divide experts 8" -- \
    "$WEFT" gen transformer --model mixtral-8x7b --ep 3 --dp 3
expect 2 "unknown preset" "is not a preset" -- "$WEFT" gen transformer --model gpt5
expect 0 "memory warning" "do not fit" -- "$WEFT" gen transformer --model gpt3-175b
expect 2 "a parallel size of 0" "--tp 0: expected a whole number from 1 to" -- "$WEFT" gen transformer \
    --model gpt3-1.3b --tp 0 --spec "$tmp/zero.gen"
expect 2 "no generator" "transformer" -- "$WEFT" gen
expect 2 "bad recompute" "recompute" -- "$WEFT" gen transformer --model gpt3-1.3b \
    --recompute some
# A step generated in memory grows linearly with its layers (issue 19 saw layers=100000 not
# finish in 600 s; now about 3 s): nodes, collectives and events at 10,000 layers are those
# of 100 plus 99 times the difference between 200 and 100 (168 nodes, 4 collectives and 140
# events per layer of gpt3-1.3b on tp=8). Counts, not times, are asserted.
counts() {
    "$WEFT" replay --cluster "$dgx" --gen "model=gpt3-1.3b,tp=8,layers=$1" |
        awk '/^workload/ { for (i = 1; i <= NF; i++) if ($i == "nodes)") n = $(i - 1) }
             /^collectives/ { c = $2 + 0; e = $NF } END { print n, c, e }'
}
set -- $(counts 100) $(counts 200) $(counts 10000)
if [ $# -eq 9 ] && [ "$7" -eq $(($1 + 99 * ($4 - $1))) ] && [ "$8" -eq $(($2 + 99 * ($5 - $2))) ] &&
    [ "$9" -eq $(($3 + 99 * ($6 - $3))) ] && [ $(($4 - $1)) -eq 16800 ]; then
    ok "10,000 layers: $7 nodes, $8 collectives, $9 events (linear in the layers)"
else
    bad "layers 100, 200, 10000: nodes, collectives, events = $*: not linear"
fi
set --

# A spec replayed on another cluster computes on that cluster's GPUs: one that names other
# GPUs is refused (as a scenario's [transformer] is), one without gpu takes the cluster's.
a100="$WEFT_SRCDIR/topologies/dgx-a100.ini"
expect 1 "an H100 spec on DGX A100s" 'gpu = "H100-SXM" .H100-SXM. disagrees with cluster dgx-a100' -- \
    "$WEFT" replay -q --cluster "$a100" --trace "$tmp/step.gen"
grep -v '^gpu' "$tmp/step.gen" >"$tmp/nogpu.gen"
expect 0 "a spec without gpu on DGX H100s" "" -- "$WEFT" replay -q --cluster "$dgx" --trace "$tmp/nogpu.gen"
h=$(step "$tmp/out")
expect 0 "a spec without gpu on DGX A100s" "" -- "$WEFT" replay -q --cluster "$a100" --trace "$tmp/nogpu.gen"
a=$(step "$tmp/out")
# the A100's 312 against the H100's 989 TFLOP/s of BF16 (hw.c): the step is much longer
if awk -v a="$a" -v h="$h" 'BEGIN {exit !(h > 0 && a > 1.5 * h)}'; then
    ok "the spec computes on the cluster's A100s ($a us against $h us on H100s)"
else
    bad "the spec on A100s ($a us) is not slower than on H100s ($h us)"
fi
printf '[transformer]\nmodel = gpt3-1.3b\ntp = 3\n' >"$tmp/bad.gen"
expect 1 "bad spec through replay" "tp 3" -- "$WEFT" replay -q --cluster "$dgx" \
    --trace "$tmp/bad.gen"

# A model given by its sizes through replay --gen: kv_heads defaults to heads (it used to be
# left 0: "kv-heads is 0"), and the data-parallel overlap stays on as with a preset (it
# shows with interleaving: a chunk's gradients are reduced while the other chunk's backward runs).
small="layers=4,hidden=256,heads=4,tp=2,pp=2,vpp=2,global_batch=4"
expect 0 "--gen without a model" "" -- "$WEFT" replay -q --cluster "$dgx" --gen "$small"
d=$(step "$tmp/out")
expect 0 "--gen overlap_dp=true" "" -- "$WEFT" replay -q --cluster "$dgx" \
    --gen "$small,overlap_dp=true"
on=$(step "$tmp/out")
expect 0 "--gen overlap_dp=false" "" -- "$WEFT" replay -q --cluster "$dgx" \
    --gen "$small,overlap_dp=false"
off=$(step "$tmp/out")
if [ -n "$d" ] && [ "$d" = "$on" ] && [ "$d" != "$off" ]; then
    ok "--gen without a model overlaps dp ($d us; without overlap $off us)"
else
    bad "--gen without a model: default $d us, overlap_dp=true $on us, false $off us"
fi
# The generated step computes on the cluster's GPU (issue 16): the same step on a DGX A100
# (312 TFLOP/s dense BF16, 2.0 TB/s HBM) takes more than 1.5 x the DGX H100's (989 TFLOP/s,
# 3.35 TB/s; datasheets, src/hw/hw.c); it used to compute as H100 on both. FP8 on an A100
# and a gpu the cluster contradicts are errors naming the GPU.
a100="$WEFT_SRCDIR/topologies/dgx-a100.ini"
mid="layers=4,hidden=2048,heads=16,tp=2,pp=2,vpp=2,global_batch=4"
expect 0 "--gen on dgx-h100" "" -- "$WEFT" replay -q --cluster "$dgx" --gen "$mid"
h=$(step "$tmp/out")
expect 0 "--gen on dgx-a100" "" -- "$WEFT" replay -q --cluster "$a100" --gen "$mid"
a=$(step "$tmp/out")
awk -v a="$a" -v h="$h" 'BEGIN { exit !(a > 1.5 * h) }' &&
    ok "A100 step $a us > 1.5 x H100 step $h us" || bad "A100 step $a us, H100 step $h us"
expect 1 "fp8 on an A100 cluster" "A100.*no FP8" -- "$WEFT" replay -q --cluster "$a100" \
    --gen "$mid,precision=fp8"
expect 1 "gpu contradicting the cluster" "disagrees with cluster dgx-a100" -- "$WEFT" replay -q \
    --cluster "$a100" --gen "$mid,gpu=h100"
# replay --gen warns when the replay's peak does not fit the HBM (summary, or stderr with -q)
expect 0 "replay --gen HBM warning (-q)" "weft replay: warning: out of memory: rank 0 .* do not fit" -- \
    "$WEFT" replay -q --cluster "$dgx" --gen model=gpt3-13b
"$WEFT" replay --cluster "$dgx" --gen model=gpt3-13b >"$tmp/out" 2>"$tmp/err"
if grep -Eq '^warning +out of memory: .*above the 74.51 GiB of H100-SXM' "$tmp/out"; then
    ok "replay --gen HBM warning (summary)"
else
    bad "replay --gen HBM warning (summary)"; sed 's/^/     /' "$tmp/out"
fi
# tp_overlap needs sequence parallelism; a spec file carries it
expect 1 "tp-overlap without sp" "tp-overlap .*needs sequence parallelism" -- \
    "$WEFT" gen transformer --model gpt3-1.3b --tp 2 --tp-overlap
expect 0 "tp-overlap spec" "" -- "$WEFT" gen transformer -q --model gpt3-1.3b --tp 2 --pp 2 \
    --dp 2 --sp --tp-overlap --global-batch 4 --spec "$tmp/ov.gen"
grep -q '^tp_overlap=true' "$tmp/ov.gen" && ok "spec records tp_overlap" || bad "spec: tp_overlap"
expect 0 "replay of the tp-overlap spec" "" -- "$WEFT" replay -q --cluster "$dgx" \
    --trace "$tmp/ov.gen"
a=$(step "$tmp/out")
expect 0 "replay --gen tp_overlap=true" "" -- "$WEFT" replay -q --cluster "$dgx" \
    --gen model=gpt3-1.3b,tp=2,pp=2,dp=2,sp=true,tp_overlap=true,global_batch=4
b=$(step "$tmp/out")
expect 0 "replay --gen tp_overlap=false" "" -- "$WEFT" replay -q --cluster "$dgx" \
    --gen model=gpt3-1.3b,tp=2,pp=2,dp=2,sp=true,global_batch=4
c=$(step "$tmp/out")
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "$c" ]; then
    ok "tp_overlap: spec and --gen agree ($a us; off: $c us)"
else
    bad "tp_overlap: spec $a us, --gen $b us, off $c us"
fi
# uneven pipeline stages: 70 layers on 12 stages only with the embedding and loss counted
expect 1 "70 layers on 12 stages" "does not divide layers 70" -- "$WEFT" gen transformer \
    --layers 70 --hidden 256 --heads 4 --pp 12 --global-batch 12
expect 0 "70 layers on 12 stages, embedding and loss counted" "" -- "$WEFT" gen transformer \
    --layers 70 --hidden 256 --heads 4 --pp 12 --global-batch 12 --account-embedding \
    --account-loss
# (70 + 2) / 12 = 6 per stage, the first and last one layer fewer
grep -q '^layers       5 6 6 6 6 6 6 6 6 6 6 5 (per virtual stage)$' "$tmp/out" &&
    ok "uneven split printed" || { bad "uneven split printed"; cat "$tmp/out"; }
expect 1 "first-stage-layers not dividing the rest" "do not divide evenly" -- \
    "$WEFT" gen transformer --layers 70 --hidden 256 --heads 4 --pp 12 --first-stage-layers 10

[ "$fails" -eq 0 ]
