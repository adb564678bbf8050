#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_sweep: wall time of a 60-point study (the bundled data-parallel step on
# 8 DGX H100 nodes of a rail-optimized fabric, one rank per node, flow model,
# 20 to 79 chunks per collective: tens of milliseconds per point) with -j 1
# and -j N (default 2), the speedup, and a check that both CSVs are
# byte-identical. Each setting runs REPEAT times (default 3); the best wall
# time counts, since other work on the machine only ever adds time.
# Usage: WEFT=./weft WEFT_SRCDIR=SRC sh bench_sweep.sh [JOBS [REPEAT]]
set -eu
: "${WEFT:=./weft}" "${WEFT_SRCDIR:=.}"
jobs=${1:-2}
repeat=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/study.ini" <<EOS
[study]
scenario = $WEFT_SRCDIR/scenarios/dp-step-dgx-h100.ini
axis.chunks = collectives.chunks: range 20 79 1
metrics = step_time_us, exposed_comm_us_max, events
[cluster]
nodes = 8
fabric = rail-optimized
[workload]
placement = round-robin
[network]
model = flow
EOS
now() { date +%s.%N; }
best() { # best JOBS OUT: the best wall time in seconds over $repeat runs
    b=
    i=0
    while [ "$i" -lt "$repeat" ]; do
        t0=$(now)
        "$WEFT" sweep -q -j "$1" -o "$2" "$tmp/study.ini"
        t=$(echo "$(now) - $t0" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" -eq 1 ]; then b=$t; fi
        i=$((i + 1))
    done
    echo "$b"
}
t1=$(best 1 "$tmp/j1.csv")
tn=$(best "$jobs" "$tmp/jn.csv")
cmp -s "$tmp/j1.csv" "$tmp/jn.csv" && same=yes || same=NO
points=$(($(wc -l <"$tmp/j1.csv") - 1))
printf 'bench_sweep: %d points, %d processors, load %s\n' "$points" "$(nproc)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  -j 1: %.2f s (%.1f ms per point)\n' "$t1" "$(echo "$t1 * 1000 / $points" | bc -l)"
printf '  -j %d: %.2f s\n' "$jobs" "$tn"
printf '  speedup %.2f, CSVs identical: %s\n' "$(echo "$t1 / $tn" | bc -l)" "$same"
[ "$same" = yes ]
