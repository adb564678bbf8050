#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of `weft sweep`: a 50-point study gives the same CSV with
# -j 1 and -j 2, and the same after a SIGKILL halfway and --resume; --shard
# K/4 for K = 1..4 covers every point once and --merge gives the unsharded
# CSV; a bad axis fails (exit 1) before any point runs, naming the axis; a
# journal left behind is refused without --resume; usage errors exit 2; no
# progress is printed when stderr is not a terminal; the bundled studies run.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
tmp=$(mktemp -d) || exit 99
pid=
trap 'if [ -n "$pid" ]; then kill -9 "$pid" 2>/dev/null; fi; rm -rf "$tmp"' EXIT
fails=0
ok() { printf 'ok   %s\n' "$1"; }
bad() { printf 'FAIL %s\n' "$1"; fails=$((fails + 1)); }

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

# ---- the bundled studies ----
for s in "$WEFT_SRCDIR"/studies/*.ini; do
    name=$(basename "$s" .ini)
    expect 0 "bundled study $name" "0 failed" -- "$WEFT" sweep -o "$tmp/$name.csv" "$s"
done

[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
