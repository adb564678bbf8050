#!/bin/sh
# SPDX-License-Identifier: MIT
# ASTRA-sim's system JSON (weft replay --system, system.file; coll/astra_system.h):
# the MICRO 2024 tutorial's 8-NPU 1 MiB all-reduce under Ring_sys.json and
# Direct_sys.json, with the step times derived by hand from ASTRA-sim's model
# (astra-sim/astra-sim @ 518bd513: Sys.cc, MemBus.cc, PacketBundle.cc, Ring.cc,
# AllToAll.cc; astra-network-analytical @ 599a0473 BasicTopology.cpp), and the
# reader's errors and warnings. Skips (exit 77) where ../shared is absent.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
data="${WEFT_SHARED:-}/data"
if [ ! -d "$data" ]; then
    echo "astra_system_cli.sh: $data not found: skipped"
    exit 77
fi
. "$WEFT_SRCDIR/tests/testlib.sh"

demo="$data/astra-sim-tutorials/micro2024/astra-sim-demo/demo1"
trace="$demo/allreduce/allreduce"

# step NAME EXPECTED_US SYSTEM CLUSTER: the step time must equal EXPECTED_US to 1e-6 us (1 ps).
step() {
    name=$1 expected=$2 sys=$3 cluster=$4
    if ! "$WEFT" replay -q --system "$sys" --cluster "$cluster" --trace "$trace" \
        >"$tmp/out" 2>"$tmp/err"; then
        bad "$name: weft replay failed"; sed 's/^/     /' "$tmp/err"; return
    fi
    got=$(awk '/^step time/ {print $3}' "$tmp/out")
    if awk "BEGIN { d = $got - ($expected); if (d < 0) d = -d; exit !(d < 1e-6) }"; then
        ok "$name: $got us as derived"
    else
        bad "$name: $got us, expected $expected us"
    fi
}

# Both systems: endpoint-delay d = 10 ns, preferred-dataset-splits K = 4,
# active-chunks-per-dimension A = 1, local-mem-bw 50 GB/s (1e9). The trace's
# all-reduce is S = 1 MiB on n = 8 NPUs, so K streams of c = S / 4 = 262144 B run
# one after another (A = 1), and a stream's messages are m = c / n = 32768 B.
# Network (Ring_8.yml, FullyConnected_8.yml): 500 ns links of 50 GB/s with
# ASTRA-sim's GB = 2^30 B, so one hop of m takes 500 + 32768 / (50 x 2^30 / 1e9)
# = 1110.3515625 ns, which ASTRA-sim truncates to whole ns (astra-network-analytical
# @ 599a0473, congestion_unaware/basic-topology/BasicTopology.cpp,
# compute_communication_delay(): static_cast<EventTime>, EventTime = uint64_t), and
# so does weft under --system: net = 1110 ns.
# A reduced message costs P = 3 x floor(32768 / 50e9 x 1e9) = 3 x 655 = 1965 ns
# (PacketBundle::call()).
#
# Ring (Ring.cc): a stream waits d before its first send, then 2(n-1) = 14 steps
# each of net + d, the first n-1 = 7 receives also paying P:
#   T_stream = d + 14 (net + d) + 7 P = 10 + 14 x 1120 + 13755 = 29445 ns
#   T = 4 T_stream = 117780 ns = 117.780 us, ASTRA-sim's own number for this tutorial.
step "Ring_sys.json on Ring_8" "4 * (10 + 14 * (1110 + 10) + 7 * 1965) / 1000" \
    "$demo/inputs/Ring_sys.json" "$demo/inputs/Ring_8.yml"
# The same on FullyConnected_8 (a ring's neighbours are one hop there too).
step "Ring_sys.json on FullyConnected_8" "4 * (10 + 14 * (1110 + 10) + 7 * 1965) / 1000" \
    "$demo/inputs/Ring_sys.json" "$demo/inputs/FullyConnected_8.yml"
# Direct (AllToAll.cc, window -1: all n - 1 peers at once): d, the 7 reduce-scatter
# messages in parallel (net), each receive d + P, the 7 all-gather messages (net),
# and d after the last receive:
#   T_stream = 3 d + 2 net + P = 30 + 2220 + 1965 = 4215 ns
#   T = 4 T_stream = 16860 ns = 16.860 us, ASTRA-sim's own number.
step "Direct_sys.json on FullyConnected_8" "4 * (30 + 2 * 1110 + 1965) / 1000" \
    "$demo/inputs/Direct_sys.json" "$demo/inputs/FullyConnected_8.yml"

# A 2-D network, 2 x 4 Ring x Switch (500 ns, 50 GB/s of 2^30 B), under a localBWAware
# ring/ring system with one chunk (K = A = 1), d = 10 ns, local-mem-bw 50 GB/s: ASTRA-sim
# (Sys.cc generate_collective()) runs reduce-scatter on dimension 0 (n0 = 2), all-reduce
# on dimension 1 (n1 = 4, a switch: 2 hops) on c / 2, all-gather on dimension 0; each phase
# T = d + steps (net + d) + reductions (Ring.cc, as above), net truncated to ns:
#   RS dim 0: m = 524288 B: net = trunc(500 + 9765.625) = 10265, P = 3 x 10485 = 31455:
#             10 + (10265 + 10) + 31455 = 41740 ns
#   AR dim 1: m = 131072 B: net = trunc(1000 + 2441.40625) = 3441, P = 3 x 2621 = 7863:
#             10 + 6 (3441 + 10) + 3 x 7863 = 44305 ns
#   AG dim 0: m = 524288 B: 10 + (10265 + 10) = 10285 ns
#   T = 41740 + 44305 + 10285 = 96330 ns
printf 'topology: [ Ring, Switch ]\nnpus_count: [ 2, 4 ]\nbandwidth: [ 50, 50 ]\nlatency: [ 500, 500 ]\n' \
    >"$tmp/rs24.yml"
printf '{"endpoint-delay": 10, "preferred-dataset-splits": 1, "local-mem-bw": 50, "collective-optimization": "localBWAware", "all-reduce-implementation": ["ring", "ring"]}\n' \
    >"$tmp/sys2d.json"
step "2-D Ring x Switch, localBWAware ring/ring" "96.330" "$tmp/sys2d.json" "$tmp/rs24.yml"
# baseline (a whole all-reduce per dimension) is not run phase by phase yet: warned
sed 's/localBWAware/baseline/' "$tmp/sys2d.json" >"$tmp/sys2db.json"
expect 0 "2-D baseline warns" 'sys2db.json: key "all-reduce-implementation": 2 dimensions' -- \
    "$WEFT" replay -q --system "$tmp/sys2db.json" --cluster "$tmp/rs24.yml" --trace "$trace"

# Without --system weft runs one pipelined ring with no endpoint cost: 14 (500 +
# 131072 B / 53.6870912 B/ns) = 41.179684 us, whatever the system file says.
if "$WEFT" replay -q --cluster "$demo/inputs/Ring_8.yml" --trace "$trace" >"$tmp/out" 2>&1 &&
    grep -q '41.179684 us' "$tmp/out"; then
    ok "no --system: unchanged"
else
    bad "no --system: $(cat "$tmp/out")"
fi

# The collectives table reports the collective's own bytes and what its splits moved in all:
# Ring_sys.json cuts the 1 MiB all-reduce into 4 dataset splits, yet the row is 1048576 B
# (busbw 2 x 7/8 x 1 MiB / 117.78 us = 15.580 GB/s), and collectives.csv's moved_bytes is the
# 4 splits' 14 transfers of 262144 / 8 B per rank: 8 x 14 x 32768 x 4 = 14680064 B
expect 0 "Ring_sys.json: the collective's bytes" "" -- "$WEFT" replay --system \
    "$demo/inputs/Ring_sys.json" --cluster "$demo/inputs/Ring_8.yml" --trace "$trace" \
    --out "$tmp/ringout"
grep -Eq '^ +#1 +0:0 +all_reduce +1048576 ring .* 15\.580$' "$tmp/out" &&
    ok "the row is 1048576 B at 15.580 GB/s" || bad "the collectives row: $(grep '#1' "$tmp/out")"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { exit !($c["size_bytes"] == 1048576 && $c["moved_bytes"] == 14680064) }' \
    "$tmp/ringout/collectives.csv" && ok "collectives.csv: 1048576 B, 14680064 B moved" ||
    bad "collectives.csv: $(sed -n 2p "$tmp/ringout/collectives.csv")"

# The tutorial's point: the two systems differ on its network.
r=$("$WEFT" replay -q --system "$demo/inputs/Ring_sys.json" --cluster "$demo/inputs/Ring_8.yml" \
    --trace "$trace" 2>/dev/null | awk '/^step time/ {print $3}')
d=$("$WEFT" replay -q --system "$demo/inputs/Direct_sys.json" --cluster "$demo/inputs/Ring_8.yml" \
    --trace "$trace" 2>/dev/null | awk '/^step time/ {print $3}')
if [ -n "$r" ] && [ -n "$d" ] && [ "$r" != "$d" ]; then
    ok "Ring_sys.json ($r us) and Direct_sys.json ($d us) differ on Ring_8"
else
    bad "Ring_sys.json ($r) and Direct_sys.json ($d) on Ring_8"
fi

# weft coll --system: the sweep runs the same plans (time_us in the CSV to the ns).
coll_us() { # SYSTEM CLUSTER: the 1 MiB all-reduce's time_us
    "$WEFT" coll --system "$1" --cluster "$2" -b 1M -e 1M --csv "$tmp/coll.csv" \
        >/dev/null 2>"$tmp/err" && awk -F, 'NR == 2 {print $4}' "$tmp/coll.csv"
}
r=$(coll_us "$demo/inputs/Ring_sys.json" "$demo/inputs/Ring_8.yml")
d=$(coll_us "$demo/inputs/Direct_sys.json" "$demo/inputs/FullyConnected_8.yml")
if [ "$r" = "117.780" ] && [ "$d" = "16.860" ]; then
    ok "coll --system: ring 117.780 us, direct 16.860 us as derived above"
else
    bad "coll --system: ring '$r', direct '$d' (expected 117.780, 16.860)"; sed 's/^/     /' "$tmp/err"
fi
expect 2 "coll --system excludes --algo" '--system: ASTRA-sim' -- \
    "$WEFT" coll --system "$demo/inputs/Ring_sys.json" --cluster "$demo/inputs/Ring_8.yml" --algo ring
printf '{"endpoint-delay": -1}\n' >"$tmp/neg.json"
expect 1 "coll --system: a bad value is an error" 'neg.json: key "endpoint-delay"' -- \
    "$WEFT" coll --system "$tmp/neg.json" --cluster "$demo/inputs/Ring_8.yml"
expect 1 "coll --system: a missing file is an error" 'nosuch.json' -- \
    "$WEFT" coll --system "$tmp/nosuch.json" --cluster "$demo/inputs/Ring_8.yml"

# Keys not honored warn, naming file and key.
expect 0 "boost-mode warns" 'Ring_sys.json: key "boost-mode"' -- \
    "$WEFT" replay -q --system "$demo/inputs/Ring_sys.json" --cluster "$demo/inputs/Ring_8.yml" \
    --trace "$trace"
printf '{"endpoint-delay": 10, "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"], "frobnicate": 1}\n' \
    >"$tmp/unknown.json"
expect 0 "unknown key warns" 'unknown.json: key "frobnicate": unknown key' -- \
    "$WEFT" replay -q --system "$tmp/unknown.json" --cluster "$demo/inputs/Ring_8.yml" \
    --trace "$trace"
printf '{"preferred-dataset-splits": 3, "active-chunks-per-dimension": 2, "all-reduce-implementation": ["ring"]}\n' \
    >"$tmp/waves.json"
expect 0 "uneven waves warn" 'waves.json: key "active-chunks-per-dimension": 3 splits' -- \
    "$WEFT" replay -q --system "$tmp/waves.json" --cluster "$demo/inputs/Ring_8.yml" --trace "$trace"
# Bad values are errors naming file, key and value.
printf '{"endpoint-delay": "ten"}\n' >"$tmp/bad.json"
expect 1 "endpoint-delay a string" 'bad.json: key "endpoint-delay": value "ten"' -- \
    "$WEFT" replay -q --system "$tmp/bad.json" --cluster "$demo/inputs/Ring_8.yml" --trace "$trace"
printf '{"all-reduce-implementation": ["spiral"]}\n' >"$tmp/impl.json"
expect 1 "unknown implementation" 'impl.json: key "all-reduce-implementation": value "spiral"' -- \
    "$WEFT" replay -q --system "$tmp/impl.json" --cluster "$demo/inputs/Ring_8.yml" --trace "$trace"
printf '{"preferred-dataset-splits": 0}\n' >"$tmp/zero.json"
expect 1 "zero splits" 'zero.json: key "preferred-dataset-splits": value 0' -- \
    "$WEFT" replay -q --system "$tmp/zero.json" --cluster "$demo/inputs/Ring_8.yml" --trace "$trace"
printf '[1, 2]\n' >"$tmp/list.json"
expect 1 "not an object" 'list.json: an ASTRA-sim system file is a JSON object' -- \
    "$WEFT" replay -q --system "$tmp/list.json" --cluster "$demo/inputs/Ring_8.yml" --trace "$trace"
# A collective the system gives no implementation is refused, not guessed.
printf '{"all-gather-implementation": ["ring"]}\n' >"$tmp/noar.json"
expect 1 "no all-reduce implementation" 'noar.json: no key "all-reduce-implementation"' -- \
    "$WEFT" replay -q --system "$tmp/noar.json" --cluster "$demo/inputs/Ring_8.yml" --trace "$trace"
# Every shipped system file reads; the custom collective's all-reduce is refused by name.
ex="$data/astra-sim-examples"
for f in $(find "$ex/examples/system" "$ex/inputs/system" "$ex/tests/rt_template/inputs" \
    "$demo/inputs" "$data/astra-sim-tutorials/micro2024/astra-sim-demo/demo2/inputs" \
    -name '*.json' ! -iname '*memory*'); do
    case $f in
    *custom_collective.json) code=1 pat='key "all-reduce-implementation-custom": custom' ;;
    *) code=0 pat='' ;;
    esac
    expect $code "reads $(basename "$f")" "$pat" -- "$WEFT" replay -q --system "$f" \
        --cluster "$demo/inputs/Ring_8.yml" --trace "$trace"
done
finish astra_system_cli.sh
