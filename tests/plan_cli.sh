#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of `weft plan` (study/plan.h, doc/plan.md) on a plan small enough to
# check by hand: GPT-3 175B's layer (h 12288, 96 heads) cut to 4 layers, 16 H100 (two DGX
# H100 on a rail-optimized fabric), global batch 64, tp up to 2, micro-batch 1. It asserts
# the candidate count, the candidates that do not fit and why, that every simulated step is
# at least its bound, that the table ranks by step time, that pruning finds the exhaustive
# search's winner, that the bounds extrapolated from small generations equal those of the
# whole step, and the usage errors.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"

plan() {
    "$WEFT" plan -q -m gpt3-175b --set transformer.layers=4 \
        -c "$WEFT_SRCDIR/topologies/dgx-h100.ini" --set cluster.nodes=2 \
        --set cluster.fabric=rail-optimized -b 64 --max-tp 2 --max-micro-batch 1 "$@"
}

plan -j 2 --csv "$tmp/p.csv" >"$tmp/p.txt" 2>"$tmp/err" || { bad "plan ran"; cat "$tmp/err"; }
# Candidates by hand: tp in {1, 2} (divides 96 heads and 16 GPUs, <= 2); pp dividing 4 layers
# with tp pp dividing 16: {1, 2, 4}; vpp: pp 1 -> {1}, pp 2 (2 layers a stage) -> {1, 2},
# pp 4 (1 layer) -> {1}: 4 (tp, pp, vpp) per tp, 8 in all; dp = 16 / (tp pp) >= 2, so
# dist_opt off and on; micro-batch 1 (64 / dp a multiple of pp for vpp 2); recompute none,
# selective, full: 8 x 2 x 3 = 48.
n=$(tail -n +2 "$tmp/p.csv" | wc -l)
[ "$n" -eq 48 ] && ok "48 candidates" || bad "candidates: $n, expected 48"
grep -q '^candidates 48:' "$tmp/p.txt" && ok "summary line counts 48" || bad "summary line"
# tp 1 pp 1 without the distributed optimizer holds every parameter at 18 B: 4 layers x
# (12 h^2 + 13 h) + embedding and output layer 2 x 51200 h = 8,506,687,488 parameters x 18 B
# = 142.6 GiB > the H100's 80 GB (74.5 GiB): does not fit, by its model states, whatever the
# recomputation (3 rows).
k=$(awk -F, '$2 == 1 && $3 == 1 && $10 == "false" && $11 == "does not fit" &&
             $21 ~ /^memory: model states \(weights \+ gradients \+ optimizer\) 142.6 GiB > HBM 74.5 GiB/' \
    "$tmp/p.csv" | wc -l)
[ "$k" -eq 3 ] && ok "tp 1 pp 1 without dist_opt: model states 142.6 GiB do not fit" ||
    bad "tp 1 pp 1 without dist_opt: $k rows flagged by their states, expected 3"
# tp 1 pp 2 vpp 2 without dist_opt: stage 0 holds 2 layers and the embedding, 2 x (12 h^2 +
# 13 h) + 51200 h = 4,253,343,744 parameters x 18 B = 71.3 GiB, below the HBM; the
# activations of a layer and micro-batch (fused attention, no recomputation, tp 1) are
# s b h 34 + 4 a s b = 856,424,448 B (selective: s b h 34, 855,638,016 B), x 2 layers x
# 2.5 micro-batches in flight (interleaved: pp (1 + (pp - 1) / (pp vpp))) = 4.0 GiB: 75.3 GiB
# > 74.5 GiB, the activations' fault. Full recomputation keeps 2 s b h a layer: it fits.
k=$(awk -F, '$2 == 1 && $3 == 2 && $4 == 2 && $10 == "false" && $11 == "does not fit" &&
             ($8 == "none" || $8 == "selective") &&
             $21 ~ /^memory: activations 4.0 GiB \+ states 71.3 GiB > HBM 74.5 GiB/' \
    "$tmp/p.csv" | wc -l)
[ "$k" -eq 2 ] && ok "tp 1 pp 2 vpp 2 without dist_opt: activations 4.0 GiB do not fit" ||
    bad "tp 1 pp 2 vpp 2 without dist_opt: $k rows flagged by their activations, expected 2"
k=$(awk -F, '$2 == 1 && $3 == 2 && $4 == 2 && $10 == "false" && $8 == "full" &&
             $11 != "does not fit"' "$tmp/p.csv" | wc -l)
[ "$k" -eq 1 ] && ok "the same with full recomputation fits" || bad "full recomputation: $k"
# With the distributed optimizer (6 + 12 / 16 B) the states are 53.5 GiB: it fits.
k=$(awk -F, '$2 == 1 && $3 == 1 && $10 == "true" && $11 == "does not fit"' "$tmp/p.csv" | wc -l)
[ "$k" -eq 0 ] && ok "tp 1 pp 1 with dist_opt fits" || bad "tp 1 pp 1 with dist_opt: $k no-fit"
# Every simulated step is at least its bound (the busiest rank's compute).
k=$(awk -F, 'NR > 1 && $11 == "ok" && $12 + 0 < $13 + 0' "$tmp/p.csv" | wc -l)
[ "$k" -eq 0 ] && ok "no step below its bound" || bad "$k steps below their bound"
# Ranked: the simulated rows first, by step time; each pruned bound above the best step.
awk -F, 'NR > 1 { if ($11 == "ok") { if (seen || $12 + 0 < last) bad = 1; last = $12 + 0 }
                  else seen = 1 }
         END { exit bad }' "$tmp/p.csv" && ok "ranked by step time" || bad "not ranked by step"
best=$(awk -F, 'NR == 2 { print $12 }' "$tmp/p.csv")
k=$(awk -F, -v b="$best" '$11 == "pruned" && $13 + 0 <= b + 0' "$tmp/p.csv" | wc -l)
p=$(awk -F, '$11 == "pruned"' "$tmp/p.csv" | wc -l)
[ "$k" -eq 0 ] && [ "$p" -gt 0 ] && ok "$p pruned, each bound above the best $best s" ||
    bad "pruned rows: $p, $k with a bound at or below the best $best s"
# Pruning is exact: the exhaustive search has the same winner and step time.
plan -j 2 --no-prune --csv "$tmp/all.csv" >/dev/null 2>"$tmp/err" || bad "plan --no-prune ran"
w1=$(awk -F, 'NR == 2 { print $2, $3, $4, $5, $6, $7, $8, $10, $12 }' "$tmp/p.csv")
w2=$(awk -F, 'NR == 2 { print $2, $3, $4, $5, $6, $7, $8, $10, $12 }' "$tmp/all.csv")
[ -n "$w1" ] && [ "$w1" = "$w2" ] && ok "the exhaustive search's winner: $w1" ||
    bad "winner with pruning '$w1', without '$w2'"
k=$(awk -F, '$11 == "pruned"' "$tmp/all.csv" | wc -l)
[ "$k" -eq 0 ] && ok "--no-prune prunes nothing" || bad "--no-prune pruned $k"
# The top 3 are exact too: --top 3 gives the exhaustive search's first three rows.
plan -j 2 --top 3 --csv "$tmp/t3.csv" >/dev/null 2>"$tmp/err" || bad "plan --top 3 ran"
t3=$(awk -F, 'NR >= 2 && NR <= 4 { print $2, $3, $4, $6, $8, $10, $12 }' "$tmp/t3.csv")
ta=$(awk -F, 'NR >= 2 && NR <= 4 { print $2, $3, $4, $6, $8, $10, $12 }' "$tmp/all.csv")
[ "$t3" = "$ta" ] && ok "--top 3 equals the exhaustive top 3" || bad "--top 3: $t3 / $ta"
# Bounds from three small generations equal those of the whole step (sorted by candidate).
WEFT_PLAN_EXACT_BOUNDS=1 plan -j 2 --max-sims 1 --csv "$tmp/x.csv" >/dev/null 2>&1 ||
    bad "plan with exact bounds ran"
cut -d, -f2-8,10,13 "$tmp/p.csv" | sort >"$tmp/b1"
cut -d, -f2-8,10,13 "$tmp/x.csv" | sort >"$tmp/b2"
cmp -s "$tmp/b1" "$tmp/b2" && ok "extrapolated bounds equal the whole step's" ||
    { bad "extrapolated bounds differ"; diff "$tmp/b1" "$tmp/b2" | head -5; }
# tp_overlap from --set applies where tp > 1: no tp 1 candidate fails for want of sp.
"$WEFT" plan -q -m gpt3-1.3b --set transformer.layers=2 -c "$WEFT_SRCDIR/topologies/dgx-h100.ini" \
    --gpus 4 -b 8 -j 1 --max-tp 2 --max-micro-batch 1 --set transformer.tp_overlap=true \
    --csv "$tmp/o.csv" >/dev/null 2>"$tmp/err" || bad "plan with tp_overlap ran"
k=$(awk -F, '$11 == "failed"' "$tmp/o.csv" | wc -l)
t1=$(awk -F, '$2 == 1 && $11 == "ok"' "$tmp/o.csv" | wc -l)
[ "$k" -eq 0 ] && [ "$t1" -gt 0 ] && ok "tp_overlap=true: tp 1 candidates run without it" ||
    bad "tp_overlap=true: $k failed, $t1 tp 1 rows simulated"
# Usage and input errors name the option and value.
expect 2 "global batch 0" 'global-batch 0' -- "$WEFT" plan -m gpt3-1.3b \
    -c "$WEFT_SRCDIR/topologies/dgx-h100.ini" -b 0
expect 2 "no --model" '--model' -- "$WEFT" plan -c "$WEFT_SRCDIR/topologies/dgx-h100.ini" -b 8
expect 2 "a searched key in --set" 'transformer.tp' -- "$WEFT" plan -m gpt3-1.3b \
    -c "$WEFT_SRCDIR/topologies/dgx-h100.ini" -b 8 --set transformer.tp=2
expect 2 "more GPUs than the cluster" 'gpus 16: the cluster .* has 8 GPUs' -- "$WEFT" plan \
    -m gpt3-1.3b -c "$WEFT_SRCDIR/topologies/dgx-h100.ini" -b 8 --gpus 16
expect 1 "unknown model" 'gpt9' -- "$WEFT" plan -m gpt9 \
    -c "$WEFT_SRCDIR/topologies/dgx-h100.ini" -b 8
expect 2 "threads 0" 'threads 0' -- "$WEFT" plan -m gpt3-1.3b \
    -c "$WEFT_SRCDIR/topologies/dgx-h100.ini" -b 8 -j 0
expect 1 "no candidate" 'no parallel configuration' -- "$WEFT" plan -m gpt3-1.3b \
    -c "$WEFT_SRCDIR/topologies/dgx-h100.ini" -b 7 --max-tp 1 --gpus 8 --set transformer.layers=3
expect 1 "a missing cluster file" 'cluster /nonexistent.ini: no such file' -- "$WEFT" plan \
    -m gpt3-1.3b -c /nonexistent.ini -b 8
expect 1 "an unknown --set group" 'bogus.key=1' -- "$WEFT" plan -m gpt3-1.3b \
    -c "$WEFT_SRCDIR/topologies/dgx-h100.ini" -b 8 --set bogus.key=1
# -j2 is -j 2, as in weft sweep; tp 1, pp 1 or 2 of 2 layers (vpp 1: 1 layer a stage),
# recompute 3 x dist_opt 2 (dp = 4 or 2): 12 candidates.
"$WEFT" plan -q -m gpt3-1.3b --set transformer.layers=2 -c "$WEFT_SRCDIR/topologies/dgx-h100.ini" \
    --gpus 4 -b 8 -j2 --max-tp 1 --max-micro-batch 1 >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^candidates 12:' "$tmp/out" && ok "-j2, 12 candidates" || bad "-j2: $(cat "$tmp/err")"
finish plan_cli.sh
