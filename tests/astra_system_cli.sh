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

# step NAME EXPECTED_US SYSTEM CLUSTER [ARG...]: the step time must equal EXPECTED_US to
# 1e-6 us (1 ps); ARGs go to weft replay.
step() {
    name=$1 expected=$2 sys=$3 cluster=$4
    shift 4
    if ! "$WEFT" replay -q --system "$sys" --cluster "$cluster" --trace "$trace" "$@" \
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
# Direct on Ring_8 under ASTRA-sim's congestion-unaware backend (network.congestion = none):
# every message alone, the farthest peer 4 hops away on the bidirectional ring:
# net = 4 x 500 + 610.35 = 2610.35 -> 2610 ns; T_stream = 30 + 2 x 2610 + 1965 = 7215 ns;
# T = 4 T_stream = 28.860 us.
step "Direct_sys.json on Ring_8, congestion none" "4 * (30 + 2 * 2610 + 1965) / 1000" \
    "$demo/inputs/Direct_sys.json" "$demo/inputs/Ring_8.yml" --set network.congestion=none
# ASTRA-sim's HGX-H100-validated example (its run script's inputs), 2 active chunks of the
# 4 splits at once, congestion-unaware: the two concurrent streams do not meet, so 2 waves of
# one stream's ring all-reduce: m = 262144 / 8 = 32768 B; net = trunc(2 x 936.25 + 32768 /
# (400 x 2^30 / 1e9) = 1872.5 + 76.29) = 1948 ns; P = 3 floor(32768 / 3350) = 27 ns;
# T_stream = 10 + 14 (1948 + 10) + 7 x 27 = 27611 ns; T = 2 x 27611 = 55.222 us.
exs_hgx="$data/astra-sim-examples/examples"
if "$WEFT" replay -q --system "$exs_hgx/system/native_collectives/HGX-H100-validated.json" \
    --cluster "$exs_hgx/network/analytical/HGX-H100-validated.yml" \
    --trace "$exs_hgx/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
    --set network.congestion=none >"$tmp/out" 2>/dev/null &&
    grep -q "^step time    55.222000 us" "$tmp/out"; then
    ok "HGX-H100-validated, 2 active chunks, congestion none: 55.222 us as derived"
else
    bad "HGX-H100-validated, congestion none: not 55.222 us"; cat "$tmp/out"
fi
# weft's own analytical model queues the 7 messages each NPU sends at once at its two ring
# ports (net.h), so the same run takes longer there.
if "$WEFT" replay -q --system "$demo/inputs/Direct_sys.json" --cluster "$demo/inputs/Ring_8.yml" \
    --trace "$trace" >"$tmp/out" 2>/dev/null &&
    awk '/^step time/ {exit !($3 > 28.860)}' "$tmp/out"; then
    ok "Direct_sys.json on Ring_8 with port queues: above 28.860 us"
else
    bad "Direct_sys.json on Ring_8 with port queues"; cat "$tmp/out"
fi
expect 1 "congestion none under flow" "network.congestion = none: the flow model" -- \
    "$WEFT" replay -q --system "$demo/inputs/Direct_sys.json" --cluster "$demo/inputs/Ring_8.yml" \
    --trace "$trace" --set network.congestion=none --set network.model=flow

# halvingDoubling on one dimension (HalvingDoubling.cc: one message per step to i ^ o,
# each after the previous receive): Ring_sys.json with every list halvingDoubling on
# FullyConnected_8 (one hop), c = 262144 B, K = 4 streams one after another. Reduce-
# scatter half: messages c/2, c/4, c/8 = 131072, 65536, 32768 B (net 2941, 1720, 1110);
# insert_packet() marks log2(8) - 1 = 2 packets of each group `processed`, messages 2
# and 3, reduced at their own size before they go: P = 3 floor(m / 50) = 3930, 1965; the
# first message and the last receive are not reduced; all-gather half: 32768, 65536, 131072:
#   T_stream = 10 + 2951 + (3930 + 1730) + (1965 + 1120) + 1120 + 1730 + 2951
#            = 17507 ns;  T = 4 x 17507 = 70028 ns
sed 's/"ring"/"halvingDoubling"/g' "$demo/inputs/Ring_sys.json" >"$tmp/hd1.json"
step "halvingDoubling on FullyConnected_8" "4 * 17507 / 1000" "$tmp/hd1.json" \
    "$demo/inputs/FullyConnected_8.yml"

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
# baseline: a whole ring all-reduce of c = 1 MiB on each dimension in turn (Sys.cc
# generate_collective()), each T = d + 2(n-1)(net + d) + (n-1) P:
#   AR dim 0 (n0 = 2): m = 524288 B: net = 10265, P = 31455: 10 + 2 x 10275 + 31455 = 52015 ns
#   AR dim 1 (n1 = 4): m = 262144 B: net = trunc(1000 + 4882.8125) = 5882,
#             P = 3 x floor(5242.88) = 15726: 10 + 6 x 5892 + 3 x 15726 = 82540 ns
#   T = 52015 + 82540 = 134555 ns
sed 's/localBWAware/baseline/' "$tmp/sys2d.json" >"$tmp/sys2db.json"
step "2-D Ring x Switch, baseline ring/ring" "(52015 + 82540) / 1000" "$tmp/sys2db.json" \
    "$tmp/rs24.yml"

# involved_dim (Workload.cc issue_coll_comm()): the tutorial's all-reduce carries [true,
# true]; rewritten to [true, false] its phases run on dimension 0 only, a localBWAware
# all-reduce there (the last involved dimension): 10 + 2 (10265 + 10) + 31455 = 52015 ns;
# to [false, true] on dimension 1 only: 10 + 6 (5882 + 10) + 3 x 15726 = 82540 ns.
if command -v perl >/dev/null 2>&1; then
    mkdir -p "$tmp/inv"
    for r in 0 1 2 3 4 5 6 7; do
        perl -0777 -pe 's/(involved_dim\xe2\x01\x04\n\x02\x01)\x01/${1}\x00/g' \
            "$trace.$r.et" >"$tmp/inv/d0.$r.et"
        perl -0777 -pe 's/(involved_dim\xe2\x01\x04\n\x02)\x01\x01/${1}\x00\x01/g' \
            "$trace.$r.et" >"$tmp/inv/d1.$r.et"
    done
    cmp -s "$trace.0.et" "$tmp/inv/d0.0.et" && bad "involved_dim: the rewrite changed nothing"
    trace_saved=$trace
    trace="$tmp/inv/d0"
    step "involved_dim [true, false]: dimension 0 only" "52.015" "$tmp/sys2d.json" "$tmp/rs24.yml"
    trace="$tmp/inv/d1"
    step "involved_dim [false, true]: dimension 1 only" "82.540" "$tmp/sys2d.json" "$tmp/rs24.yml"
    trace=$trace_saved
    # two entries on a 3-D network: ASTRA-sim would read past the list; weft refuses
    printf 'topology: [ Ring, Ring, Ring ]\nnpus_count: [ 2, 2, 2 ]\nbandwidth: [ 50, 50, 50 ]\nlatency: [ 500, 500, 500 ]\n' \
        >"$tmp/r222.yml"
    sed 's/\["ring", "ring"\]/["ring", "ring", "ring"]/' "$tmp/sys2d.json" >"$tmp/sys3d.json"
    expect 1 "involved_dim shorter than the network" "involved_dim lists 2 dimensions but the network has 3" -- \
        "$WEFT" replay -q --system "$tmp/sys3d.json" --cluster "$tmp/r222.yml" --trace "$trace"
fi

# A communicator group of fewer NPUs than the network runs as one ring dimension over its
# NPUs, with Ring whenever the file lists more than one implementation
# (CommunicatorGroup.cc get_collective_plan()): direct/direct on NPUs 0, 2, 4, 6 of the
# 2 x 4 network (a dimension-1 group: 2 hops through the switch) is a ring all-reduce of
# 1 MiB, m = 262144 B: 10 + 6 (5882 + 10) + 3 x 15726 = 82540 ns, not direct's
# 30 + 2 x 5882 + 15726 = 27520 ns.
printf '{"endpoint-delay": 10, "preferred-dataset-splits": 1, "local-mem-bw": 50, "all-reduce-implementation": ["direct", "direct"]}\n' \
    >"$tmp/dd.json"
got=$("$WEFT" coll -c "$tmp/rs24.yml" --system "$tmp/dd.json" -g 0,2,4,6 -b 1M -e 1M 2>/dev/null |
    awk '$1 == 1048576 {print $4, $7}')
[ "$got" = "82.54 ring" ] && ok "a group of 4 NPUs runs Ring: 82.54 us" ||
    bad "a group of 4 NPUs under direct/direct: '$got', expected '82.54 ring'"

# stepc NAME EXPECTED_US SYSTEM CLUSTER TRACE SEQ: collective #SEQ's time (collectives.csv
# time_us) must equal EXPECTED_US to 1e-6 us.
stepc() {
    name=$1 expected=$2 sys=$3 cluster=$4 tr=$5 seq=$6
    rm -rf "$tmp/c"
    if ! "$WEFT" replay -q --system "$sys" --cluster "$cluster" --trace "$tr" --out "$tmp/c" \
        >/dev/null 2>"$tmp/err"; then
        bad "$name: weft replay failed"; sed 's/^/     /' "$tmp/err"; return
    fi
    got=$(awk -F, -v s="$seq" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["seq"] == s { print $c["time_us"] }' "$tmp/c/collectives.csv")
    if [ -n "$got" ] && awk "BEGIN { d = $got - ($expected); if (d < 0) d = -d; exit !(d < 1e-6) }"; then
        ok "$name: $got us as derived"
    else
        bad "$name: '$got' us, expected $expected us"
    fi
}

# A baseline all-gather over 2 dimensions, pipelined: the examples' 8-NPU 1 MiB all-gather
# (S = 1 MiB per NPU, as weft reads comm_size) on 2 x 4 Ring x Switch, ring/ring, K = 2
# splits, A = 1: c = 524288 B per stream. All-gather runs the dimensions from the last:
#   AG dim 1 (n1 = 4, 2 hops): m = c: net = trunc(1000 + 9765.625) = 10765:
#             T1 = 10 + 3 x 10775 = 32335 ns
#   AG dim 0 (n0 = 2): m = 4c = 2097152 B: net = trunc(500 + 39062.5) = 39562:
#             T0 = 10 + 39572 = 39582 ns
# Stream 0: dim 1 [0, 32335], dim 0 [32335, 71917]; stream 1: dim 1 [32335, 64670] (the
# queue frees when stream 0 leaves it), dim 0 waits for stream 0: [71917, 111499].
#   T = 111499 ns (waves, one stream after the other, would give 2 x 71917 = 143834)
ag="$data/astra-sim-examples/examples/workload/microbenchmarks/all_gather/8npus_1MB/all_gather"
printf '{"endpoint-delay": 10, "preferred-dataset-splits": 2, "local-mem-bw": 50, "all-gather-implementation": ["ring", "ring"]}\n' \
    >"$tmp/ag2.json"
stepc "2-D baseline all-gather, 2 splits pipelined" "(32335 + 2 * 39582) / 1000" \
    "$tmp/ag2.json" "$tmp/rs24.yml" "$ag" 0

# The MICRO 2024 tutorial's demo2 (MLP_ModelParallel, 32 NPUs), each with its own system:
# K = 4 splits, A = 1, d = 10 ns, local-mem-bw 50 GB/s; its collectives span all 32 NPUs.
demo2="$data/astra-sim-tutorials/micro2024/astra-sim-demo/demo2"
mlp="$demo2/workload/MLP_ModelParallel"
# (a) TPUv4.json on TPUv4-32.yml: 2 x 4 x 4 rings, 50 GB/s (53.6870912 B/ns), latency 500,
# 500, 50 ns; a ring's neighbour is 1 hop. Collective #6 is a localBWAware all-reduce of
# 65536 B: c = 16384 B. Phases (T = d + steps (net + d) + reductions, P(m) = 3 floor(m/50)):
#   RS dim 0 (n 2): m 8192: net trunc(500 + 152.59) = 652, P 489: 10 + 662 + 489 = 1161
#   RS dim 1 (n 4): m 2048: net trunc(500 + 38.15) = 538, P 120: 10 + 3 x 548 + 360 = 2014
#   AR dim 2 (n 4): m 512: net trunc(50 + 9.54) = 59, P 30: 10 + 6 x 69 + 3 x 30 = 514
#   AG dim 1 (n 4): 2048 B per NPU, m 2048: 10 + 3 x 548 = 1654
#   AG dim 0 (n 2): 8192 B per NPU, m 8192: 10 + 662 = 672
# Queues: q0 (RS0, AG0), q1 (RS1, AG1), q2 (AR2), one stream each at once, waiting streams
# in arrival order (Sys.cc proceed_to_next_vnet_baseline(), SchedulerUnit):
#   q0: s0 RS0 [0, 1161], s1 [1161, 2322], s2 [2322, 3483], s3 [3483, 4644]
#   q1: s0 RS1 [1161, 3175], s1 RS1 [3175, 5189], s2 RS1 [5189, 7203]; s0 AG1 arrived at
#       3689 (after AR2 [3175, 3689]), before s3 RS1 (4644): s0 AG1 [7203, 8857],
#       s3 RS1 [8857, 10871], s1 AG1 [10871, 12525] (AR2 [5189, 5703]),
#       s2 AG1 [12525, 14179] (AR2 [7203, 7717]), s3 AG1 [14179, 15833] (AR2 [10871, 11385])
#   q0: s0 AG0 [8857, 9529], s1 AG0 [12525, 13197], s2 AG0 [14179, 14851],
#       s3 AG0 [15833, 16505]
#   T = 16505 ns
stepc "demo2 TPUv4 3-D ring localBWAware all-reduce, 4 splits" "16.505" \
    "$demo2/inputs/TPUv4.json" "$demo2/inputs/TPUv4-32.yml" "$mlp" 6
# Collective #1 there, an all-gather of 65536 B per NPU, c = 16384, dimensions 2, 1, 0:
#   AG dim 2: m 16384: net trunc(50 + 305.18) = 355: 10 + 3 x 365 = 1105
#   AG dim 1: m 65536: net trunc(500 + 1220.70) = 1720: 10 + 3 x 1730 = 5200
#   AG dim 0: m 262144: net trunc(500 + 4882.81) = 5382: 10 + 5392 = 5402
# q0 (dim 0) is the bottleneck: s0 reaches it at 1105 + 5200 = 6305, and the 4 streams
# run there back to back (each reaches it before the previous leaves):
#   T = 6305 + 4 x 5402 = 27913 ns
stepc "demo2 TPUv4 3-D ring all-gather, 4 splits" "(6305 + 4 * 5402) / 1000" \
    "$demo2/inputs/TPUv4.json" "$demo2/inputs/TPUv4-32.yml" "$mlp" 1
# (b) DGX_H100.json on DGX_H100-32.yml: 8 x 4 switches (2 hops: 1000 ns), 450 GB/s
# (483.1838208 B/ns) and 50 GB/s; halvingDoubling on both (HalvingDoubling.cc: one
# message per step, halving c/2, c/4, ... for reduce-scatter, messages 2 .. log2(n)
# reduced at their own size before they go; doubling from the block for all-gather).
# Collective #6, a localBWAware all-reduce of 65536 B, c = 16384:
#   RS dim 0 (n 8): m 8192, 4096, 2048: net 1016, 1008, 1004; P 243 (4096), 120 (2048):
#     10 + 1026 + (243 + 1018) + (120 + 1014) = 3431
#   AR dim 1 (n 4) of 2048: m 1024, 512 (net 1019, 1009; P 30 before the 512), then 512,
#     1024: 10 + 1029 + (30 + 1019) + 1019 + 1029 = 4136
#   AG dim 0 (n 8), 2048 B per NPU: m 2048, 4096, 8192: 10 + 1014 + 1018 + 1026 = 3068
# q0 holds RS0 and AG0: RS0 of s0..s3 run [0, 13724] back to back; AR1 of s0..s3
# [3431, 7567], [7567, 11703], [11703, 15839], [15839, 19975]; every AG0 arrives after
# the last RS0 was queued, so q0 then runs s0..s3 AG0 from 13724 back to back (each
# one's AR1 ends before its turn):
#   T = 13724 + 4 x 3068 = 25996 ns
stepc "demo2 DGX_H100 2-D halvingDoubling localBWAware all-reduce, 4 splits" \
    "(4 * 3431 + 4 * 3068) / 1000" "$demo2/inputs/DGX_H100.json" \
    "$demo2/inputs/DGX_H100-32.yml" "$mlp" 6

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
printf '{"endpoint-delay": 10, "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"], "active-chunks-per-dimesion": 1}\n' \
    >"$tmp/typo.json"
expect 0 "a misspelled key names the near one" \
    'typo.json: key "active-chunks-per-dimesion": unknown key \(did you mean "active-chunks-per-dimension"\?\)' -- \
    "$WEFT" replay -q --system "$tmp/typo.json" --cluster "$demo/inputs/Ring_8.yml" \
    --trace "$trace"
# A remote-memory file given as the system file says what it is.
expect 1 "RemoteMemory.json as --system" 'RemoteMemory.json: key "memory-type": this is an ASTRA-sim remote-memory file' -- \
    "$WEFT" replay -q --system "$demo/inputs/RemoteMemory.json" --cluster "$demo/inputs/Ring_8.yml" --trace "$trace"
# A local-mem-bw so small that a reduction outlasts the clock ends with the clock's error,
# never a wrapped (0) reduction time.
printf '{"local-mem-bw": 1e-30, "all-reduce-implementation": ["ring"]}\n' >"$tmp/slowmem.json"
expect 1 "local-mem-bw 1e-30" "would finish after 107 days" -- \
    "$WEFT" replay -q --system "$tmp/slowmem.json" --cluster "$demo/inputs/Ring_8.yml" --trace "$trace"
expect 1 "local-mem-bw 1e-30, flow" "would finish after 107 days" -- \
    "$WEFT" replay -q --system "$tmp/slowmem.json" --cluster "$demo/inputs/Ring_8.yml" --trace "$trace" \
    --set network.model=flow
# What json-glib accepts silently is refused, with the line: a key given twice (it keeps the
# last) and an integer past 64 bits (it reads 99999999999999999999 as -1).
printf '{"endpoint-delay": 5,\n"active-chunks-per-dimension": 1,\n"endpoint-delay": 10}\n' > "$tmp/dupkey.json"
expect 1 "a key given twice" "dupkey.json: line 3: member \"endpoint-delay\" is given twice" -- \
    "$WEFT" coll --cluster "$demo/inputs/Ring_8.yml" --system "$tmp/dupkey.json"
printf '{"endpoint-delay": 99999999999999999999}\n' > "$tmp/bigint.json"
expect 1 "an integer past 64 bits" "bigint.json: line 1: integer 99999999999999999999 is beyond a 64-bit integer" -- \
    "$WEFT" coll --cluster "$demo/inputs/Ring_8.yml" --system "$tmp/bigint.json"
# roofline-enabled (Workload.cc issue_comp(), Roofline.cc): every GPU compute node takes
# floor(num_ops / min(local-mem-bw x num_ops / tensor_size, peak-perf) x 1e9) ns, its
# duration ignored; peak-perf 1 TFLOP/s, local-mem-bw 3 GB/s:
#   gemm  1e12 ops on 2^20 B: compute-bound, 1e12 / 1e12 = 1 s             = 1000000000 ns
#   norm  2^20 ops on 2^30 B: min(3e9 / 1024, 1e12) = 2929687.5 FLOP/s,
#         2^20 / 2929687.5 = 0.357913941333 s                                 =  357913941 ns
#   nosize (no tensor_size): skipped, 0;  host (is_cpu_op): its 5 us
#   step = 1357913941 + 5000 ns = 1357918.941 us
# Without roofline-enabled the durations hold: 2 + 3 + 7 + 5 = 17 us.
"${MKTRACE:?}" roofline 8 "$tmp/roof" || bad "mktrace roofline"
printf '{"roofline-enabled": 1, "peak-perf": 1, "local-mem-bw": 3, "all-reduce-implementation": ["ring"]}\n' >"$tmp/sys-roof.json"
saved_trace=$trace
trace="$tmp/roof"
step "roofline-enabled: ASTRA-sim's roofline" "1357918.941" "$tmp/sys-roof.json" "$demo/inputs/Ring_8.yml"
printf '{"roofline-enabled": 0, "peak-perf": 1, "local-mem-bw": 3, "all-reduce-implementation": ["ring"]}\n' >"$tmp/sys-noroof.json"
step "roofline-enabled 0: the durations" "17" "$tmp/sys-noroof.json" "$demo/inputs/Ring_8.yml"
trace=$saved_trace
printf '{"roofline-enabled": 1, "all-reduce-implementation": ["ring"]}\n' >"$tmp/roofnopeak.json"
expect 1 "roofline-enabled without peak-perf" "roofnopeak.json: roofline-enabled needs peak-perf and local-mem-bw" -- \
    "$WEFT" replay -q --system "$tmp/roofnopeak.json" --cluster "$demo/inputs/Ring_8.yml" --trace "$tmp/roof"
# ... and a system file given as the comm-group file says where it goes
expect 1 "a system file as --comm-groups" "not a list of ranks \(it looks like an ASTRA-sim system file: that goes to --system" -- \
    "$WEFT" replay -q --cluster "$demo/inputs/Ring_8.yml" --trace "$trace" --comm-groups "$demo/inputs/Ring_sys.json"
# A file that is not a system JSON, or none, says what it was expected to be.
expect 1 "a YAML as --system" "Ring_8.yml: not an ASTRA-sim system JSON file \(line 1:" -- \
    "$WEFT" coll --cluster "$demo/inputs/Ring_8.yml" --system "$demo/inputs/Ring_8.yml"
expect 1 "a missing --system" "ASTRA-sim system file $tmp/nope.json: " -- \
    "$WEFT" coll --cluster "$demo/inputs/Ring_8.yml" --system "$tmp/nope.json"
expect 1 "a missing --comm-groups" "comm-group file $tmp/nope.json: " -- \
    "$WEFT" replay -q --cluster "$demo/inputs/Ring_8.yml" --trace "$trace" --comm-groups "$tmp/nope.json"
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
# ASTRA-sim's custom collective example, as its run script runs it
# (run_analytical_with_custom_collective.sh, from the repository's root): the all-reduce
# runs custom_allreduce.N.et as written, 7 COMP nodes of 7 us on every rank's chain and
# 14 SENDs of 131072 B over one 500 ns, 50 GB/s ring link each:
# 14 x (500 + 131072 / 53.687 = 2441.41 ns) + 7 x 7000 ns = 41179.69 + 49000 = 90.179684 us
# (ASTRA-sim casts each SEND to whole ns: 90.174 us, 0.006 % less).
exs="$data/astra-sim-examples/examples"
(cd "$data/astra-sim-examples" &&
    "$WEFT" replay -q --system examples/system/custom_collectives/custom_collective.json \
        --cluster examples/network/analytical/Ring_8npus.yml \
        --trace examples/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce) >"$tmp/out" 2>"$tmp/err"
grep -q "^step time    90.179684 us" "$tmp/out" && ok "custom collective from the repository root: 90.179684 us" ||
    { bad "custom collective: not 90.179684 us"; cat "$tmp/out" "$tmp/err"; }
# from elsewhere, the ET is found from the system file's directory up
expect 0 "custom collective from another directory" "CustomAlgorithm.cc ignores" -- \
    "$WEFT" replay -q --system "$exs/system/custom_collectives/custom_collective.json" \
    --cluster "$exs/network/analytical/Ring_8npus.yml" \
    --trace "$exs/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce"
grep -q "^step time    90.179684 us" "$tmp/out" && ok "custom collective from elsewhere: 90.179684 us" ||
    { bad "custom collective from elsewhere: not 90.179684 us"; cat "$tmp/out"; }
# the collective table names the user's plan "custom", not the built-in kind it runs as
"$WEFT" replay --system "$exs/system/custom_collectives/custom_collective.json" \
    --cluster "$exs/network/analytical/Ring_8npus.yml" \
    --trace "$exs/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce" >"$tmp/out" 2>"$tmp/err"
grep -Eq "^  #1  0:0 +all_reduce +1048576 custom +simple +1 +90.179684" "$tmp/out" &&
    ok "custom collective: its algorithm reads custom" ||
    { bad "custom collective: algorithm not custom"; grep -A2 "most expensive" "$tmp/out"; }
printf '{"all-reduce-implementation-custom": ["no/such/prefix"]}\n' >"$tmp/nocustom.json"
expect 1 "custom ET not found" 'nocustom.json: key "all-reduce-implementation-custom": no no/such/prefix.0.et' -- \
    "$WEFT" replay -q --system "$tmp/nocustom.json" --cluster "$demo/inputs/Ring_8.yml" --trace "$trace"
# Every shipped system file reads and runs.
ex="$data/astra-sim-examples"
for f in $(find "$ex/examples/system" "$ex/inputs/system" "$ex/tests/rt_template/inputs" \
    "$demo/inputs" "$data/astra-sim-tutorials/micro2024/astra-sim-demo/demo2/inputs" \
    -name '*.json' ! -iname '*memory*'); do
    expect 0 "reads $(basename "$f")" "" -- "$WEFT" replay -q --system "$f" \
        --cluster "$demo/inputs/Ring_8.yml" --trace "$trace"
done
finish astra_system_cli.sh
