#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_plan: `weft plan` of GPT-3 175B on 1,024 A100 (128 DGX A100 of the Selene-like
# SuperPOD), global batch 1536 (Narayanan et al. 2021, Table 1's 1,024-GPU row), Megatron's
# 2021 unfused attention: wall time, peak resident memory, the candidates (enumerated, not
# fitting, simulated, pruned) and the winner. Issue 18 item 6's target: under 5 minutes on
# the 2-core machine (missed: bench/README.md). THREADS (default 2) replays at once; more
# arguments go to weft plan (--max-sims 6 caps the replays: a run of minutes, not hours).
# Usage: WEFT=./weft WEFT_SRCDIR=SRC sh bench_plan.sh [THREADS [OPTION...]]   (make bench)
set -eu
: "${WEFT:=./weft}" "${WEFT_SRCDIR:=.}"
threads=${1:-2}
[ $# -gt 0 ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x /usr/bin/time ] || { echo "bench_plan: needs GNU time (/usr/bin/time)"; exit 0; }
/usr/bin/time -f '%e %U %M' -o "$tmp/time" "$WEFT" plan -q -m gpt3-175b \
    -c "$WEFT_SRCDIR/topologies/selene-a100-superpod.ini" --set cluster.nodes=128 \
    --set transformer.attention=unfused -b 1536 -j "$threads" --csv "$tmp/plan.csv" "$@" \
    >"$tmp/out" 2>"$tmp/err" || { echo "bench_plan: failed"; cat "$tmp/err"; exit 1; }
read -r wall user kb <"$tmp/time"
printf 'weft plan gpt3-175b, 1,024 A100, GBS 1536, -j %s: %.1f s wall (%.1f s user), %d MiB\n' \
    "$threads" "$wall" "$user" "$((kb / 1024))"
sed -n 2p "$tmp/out"
sed -n 3,4p "$tmp/out"
