#!/bin/sh
# SPDX-License-Identifier: MIT
# Every weft command prints the same bytes on every event-queue implementation
# (src/core/evq.h; ../shared/STYLE.md, principle 1): each case below runs once
# with WEFT_EVQ=heap and once with WEFT_EVQ=radix, in the same directory,
# and the two runs' files (stdout, stderr, exit code, every file --out,
# --timeline or a study writes) must be identical. The cases cover both network
# models, collectives, a reroute after a link fault (which cancels and
# reschedules transfers), a generated transformer step and a study. An unknown
# WEFT_EVQ stops the run, naming the known queues.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"

scen="$WEFT_SRCDIR/scenarios/dp-step-dgx-h100.ini"
dgx="$WEFT_SRCDIR/topologies/dgx-h100.ini"
superpod="$WEFT_SRCDIR/topologies/dgx-h100-superpod.ini"
trace="$WEFT_SRCDIR/traces/dp-step-8/dp-step"

# 4 DGX H100 nodes, one per 16-port leaf, two spines (as in fault_cli.sh)
cat >"$tmp/ls.ini" <<'INI'
[cluster]
kind = dgx-h100
nodes = 4
fabric = leaf-spine
nic = ndr
switch_radix = 16
nodes_per_leaf = 1
INI
cat >"$tmp/study.ini" <<INI
[study]
scenario = $scen
axis.model = network.model: analytical, flow
axis.chunks = collectives.chunks: 1, 4
metrics = step_time_us, exposed_comm_us_max, events
results = study.csv
INI

# same NAME CMD...: CMD under each queue, in $tmp/run (outputs name their
# directory), kept as $tmp/run.KIND; the two runs must match.
same() {
    name=$1
    shift
    for kind in heap radix; do
        d="$tmp/run"
        rm -rf "$d" "$d.$kind" && mkdir -p "$d" || exit 99
        cp "$tmp/study.ini" "$d/"
        (cd "$d" && WEFT_EVQ=$kind "$@" >stdout 2>stderr; echo "$?" >rc)
        mv "$d" "$d.$kind" || exit 99
    done
    if [ "$(cat "$tmp/run.heap/rc")" -ne 0 ]; then
        bad "$name: exit $(cat "$tmp/run.heap/rc")"
        sed 's/^/     /' "$tmp/run.heap/stderr"
    elif diff -r "$tmp/run.heap" "$tmp/run.radix" >"$tmp/diff"; then
        ok "$name: same bytes on heap and radix"
    else
        bad "$name: heap and radix differ"
        head -20 "$tmp/diff" | sed 's/^/     /'
    fi
}

same "dp step, analytical, --out and --timeline" \
    "$WEFT" replay "$scen" --out o --timeline o/timeline
same "dp step, flow, --out" "$WEFT" replay --cluster "$dgx" --trace "$trace" -n flow --out o
same "all-reduce sweep on 4 superpod nodes, flow" \
    "$WEFT" coll --cluster "$superpod" --nodes 4 -b 1K -e 1G -f 32 -n flow
same "all-to-all rerouted around a link down, flow" \
    "$WEFT" replay --cluster "$tmp/ls.ini" --set workload.collective=alltoall \
    --set workload.collective_bytes=1GiB --set workload.collective_ranks=4 \
    --set workload.placement=round-robin --set network.model=flow \
    --set "faults.events=5ms link_down leaf0 spine0; 6ms link_up leaf0 spine0" --out o
same "generated transformer step, flow, --json" \
    "$WEFT" replay --cluster "$tmp/ls.ini" --gen model=gpt3-1.3b,tp=8,pp=2,layers=4 -n flow \
    --json --out o
same "a study of 4 points" "$WEFT" sweep study.ini -j 1

# an unknown queue is refused, not replaced by the default
# (the subshell's stderr takes the shell's own "Trace/breakpoint trap")
(
    cd "$tmp" && ulimit -c 0
    WEFT_EVQ=calendar "$WEFT" replay "$scen" >out 2>err
    echo "$?" >rc
) 2>/dev/null
rc=$(cat "$tmp/rc")
if [ "$rc" -eq 2 ] && grep -q 'WEFT_EVQ=calendar: unknown event queue; expected heap or radix' \
    "$tmp/err"; then
    ok "WEFT_EVQ=calendar refused (exit $rc)"
else
    bad "WEFT_EVQ=calendar: exit $rc"
    sed 's/^/     /' "$tmp/err"
fi

finish evq_cli.sh
