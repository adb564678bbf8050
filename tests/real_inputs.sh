#!/bin/sh
# SPDX-License-Identifier: MIT
# Replays the real inputs of other tools in ../shared/data, unchanged, and
# checks the step times that can be derived by hand. Skips (exit 77) where
# ../shared is absent, as it is for users who clone weft alone.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}" "${MKTRACE:?}"
data="${WEFT_SHARED:-}/data"
if [ ! -d "$data" ]; then
    echo "real_inputs.sh: $data not found: skipped"
    exit 77
fi
. "$WEFT_SRCDIR/tests/testlib.sh"

# run NAME EXPECTED_US CLUSTER PREFIX: replays and compares the step time with
# EXPECTED_US (an awk expression; "-" only requires success) to 1e-4 us
# (every transfer is rounded to 1 ps, a step has at most a few dozen).
# The derivations are of the plain ring model, so run asks for it
# (collectives.tuning = off; the default is NCCL's tuning, tests/cli.sh);
# a later --set among the options wins.
run() {
    name=$1 expected=$2 cluster=$3 prefix=$4
    shift 4 # the rest: more options for weft replay
    if ! "$WEFT" replay --cluster "$cluster" --trace "$prefix" --set collectives.tuning=off "$@" \
        >"$tmp/out" 2>"$tmp/err"; then
        bad "$name: weft replay failed"; sed 's/^/     /' "$tmp/err"; return
    fi
    step=$(awk '/^step time/ {print $3}' "$tmp/out")
    if [ "$expected" = "-" ]; then
        ok "$name: step $step us"; return
    fi
    if awk "BEGIN { e = $expected; d = $step - e; if (d < 0) d = -d; exit !(d < 1e-4) }"; then
        ok "$name: step $step us as derived"
    else
        bad "$name: step $step us, expected $(awk "BEGIN { printf \"%.6f\", $expected }") us"
    fi
}

micro="$data/astra-sim-examples/examples/workload/microbenchmarks"
nets="$data/astra-sim-examples/examples/network/analytical"
dgx="$WEFT_SRCDIR/topologies/dgx-h100.ini"

# ASTRA-sim's Ring_Nnpus.yml: a ring, 50 GB/s per link where ASTRA-sim's GB is
# 2^30 B, so B = 53687091200 B/s; a = 500 ns per hop. Each microbenchmark is one
# collective with comm_size S = 1 MiB (1048576 B), so S/B = 19.53125 us exactly.
# With n ranks (doc/collectives.md), in us:
#   all_reduce     2(n-1) (a + S/(nB))     n=4: 32.296875  n=8: 41.1796875  n=16: 51.62109375
#   all_gather      (n-1) (a + S/B)        n=4: 60.09375   n=8: 140.21875   n=16: 300.46875
#   reduce_scatter  (n-1) (a + S/(nB))     n=4: 16.1484375 n=8: 20.58984375 n=16: 25.810546875
#   all_to_all      the ring's links join NPUs, so they are ports (doc/network.md): the
#                   transfers crossing one go one after another. n=4: 3 (S/4)/B + 2a =
#                   15.6484375, as flow (derived below); n = 8, 16: the same as flow
#                   (checked below; the loads depend on the ECMP hash of the n/2-hop ones)
SB=19.53125
for n in 4 8 16; do
    run "all_reduce ${n} ranks on Ring_${n}npus" "2*($n-1)*(0.5+$SB/$n)" "$nets/Ring_${n}npus.yml" "$micro/all_reduce/${n}npus_1MB/all_reduce"
    run "all_gather ${n} ranks on Ring_${n}npus" "($n-1)*(0.5+$SB)" "$nets/Ring_${n}npus.yml" "$micro/all_gather/${n}npus_1MB/all_gather"
    run "reduce_scatter ${n} ranks on Ring_${n}npus" "($n-1)*(0.5+$SB/$n)" "$nets/Ring_${n}npus.yml" "$micro/reduce_scatter/${n}npus_1MB/reduce_scatter"
    if [ "$n" = 4 ]; then a2a="3*$SB/4+1"; else a2a=-; fi
    run "all_to_all ${n} ranks on Ring_${n}npus" "$a2a" "$nets/Ring_${n}npus.yml" "$micro/all_to_all/${n}npus_1MB/all_to_all"
    eval "a2a_step_$n=\$step"
done

# The DGX H100 node: GPU to GPU is two 300 ns NVLink hops (0.6 us, the default
# nvlink_latency) at 450e9 B/s (18 links x 25 GB/s sprayed over the four NVSwitch
# chips); S/B = 2.330168889 us, S/8B = 0.291271111 us.
#   all_reduce 14 (0.6 + S/8B) = 12.477796    all_gather 7 (0.6 + S/B) = 20.511182
#   reduce_scatter 7 (0.6 + S/8B) = 6.238898
#   all_to_all 0.6 + 7 S/8B = 2.638898 (a GPU's 7 pieces queue at its NVSwitch ports, as
#   under flow, derived below)
HB="1048576/450e9*1e6"
run "all_reduce 8 ranks on DGX H100" "14*(0.6+$HB/8)" "$dgx" "$micro/all_reduce/8npus_1MB/all_reduce"
run "all_gather 8 ranks on DGX H100" "7*(0.6+$HB)" "$dgx" "$micro/all_gather/8npus_1MB/all_gather"
run "reduce_scatter 8 ranks on DGX H100" "7*(0.6+$HB/8)" "$dgx" "$micro/reduce_scatter/8npus_1MB/reduce_scatter"
run "all_to_all 8 ranks on DGX H100" "0.6+7*$HB/8" "$dgx" "$micro/all_to_all/8npus_1MB/all_to_all"

# Two DGX H100 nodes on a rail-optimized NDR fabric (the bundled node file with
# two --set overrides). In order, all 8 ranks sit on node 0: the same times as one
# node. Round-robin puts rank r on node r mod 2 as GPU r/2, so every ring hop
# crosses nodes: rank 2k -> 2k+1 stays on rail k (GPU, NIC, leaf, NIC, GPU:
# 2 x 250 ns PCIe + 2 x 500 ns fabric = 1.5 us), rank 2k+1 -> 2k+2 changes rail
# through a spine (2 x 250 + 4 x 500 ns = 2.5 us); every hop runs at one NDR
# NIC's 50e9 B/s (below PCIe Gen5's 63 GB/s), so a 131072 B step costs 2.62144 us.
# A ring all-reduce's 14 dependent steps walk the ring's 4 fast and 4 slow hops
# 1.75 times: 7 (1.5 + 2.62144) + 7 (2.5 + 2.62144) = 64.70016 us. The direct
# all-to-all's 4 cross-node pieces of each rank queue at its NIC: 2.5 + 4 x 2.62144 us,
# as under flow (derived below).
two="--set cluster.nodes=2 --set cluster.fabric=rail-optimized"
NB="131072/50e9*1e6"
run "all_reduce 8 ranks on 2 DGX H100 nodes, in order" "14*(0.6+$HB/8)" "$dgx" "$micro/all_reduce/8npus_1MB/all_reduce" $two
run "all_reduce 8 ranks on 2 DGX H100 nodes, round-robin" "7*(1.5+$NB)+7*(2.5+$NB)" "$dgx" "$micro/all_reduce/8npus_1MB/all_reduce" $two --set workload.placement=round-robin
run "all_to_all 8 ranks on 2 DGX H100 nodes, round-robin" "2.5+4*$NB" "$dgx" "$micro/all_to_all/8npus_1MB/all_to_all" $two --set workload.placement=round-robin
for c in all_gather reduce_scatter; do
    run "$c 8 ranks on 2 DGX H100 nodes, round-robin" - "$dgx" "$micro/$c/8npus_1MB/$c" $two --set workload.placement=round-robin
done

# ASTRA-sim's custom ring all-reduce written as SEND/RECV/COMP nodes (8 ranks):
# 14 sends of 1 MiB / 8 = 131072 B, one hop each (0.5 + 2.44140625 us), in a chain
# through each rank, plus the 7 reduction COMP nodes of rank 0's chain. The
# communication part equals the native ring all-reduce above (41.1796875 us).
custom="$data/astra-sim-examples/examples/system/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce"
run "custom ring all-reduce (SEND/RECV/COMP) on Ring_8npus" - "$nets/Ring_8npus.yml" "$custom"
comm=$(awk '$1 == 0 {print $4}' "$tmp/out"); comp=$(awk '$1 == 0 {print $3}' "$tmp/out")
awk "BEGIN { d = $comm - 14*(0.5+$SB/8); if (d < 0) d = -d; exit !(d < 1e-4) }" &&
    ok "custom ring all-reduce: exposed communication $comm us = 14 (a + S/8B)" ||
    bad "custom ring all-reduce: exposed communication $comm us, expected 41.179688"

# demo1 of the ASTRA-sim tutorial: an 8-rank all-reduce on its own ring
demo1="$data/astra-sim-tutorials/micro2024/astra-sim-demo/demo1"
run "tutorial demo1 all-reduce on Ring_8" - "$demo1/inputs/Ring_8.yml" "$demo1/allreduce/allreduce"

# The 32-rank model-parallel MLP of the ASTRA-sim tutorial on its DGX H100 x 4 network
demo2="$data/astra-sim-tutorials/micro2024/astra-sim-demo/demo2"
run "MLP_ModelParallel (32 ranks) on DGX_H100-32" - "$demo2/inputs/DGX_H100-32.yml" "$demo2/workload/MLP_ModelParallel"
grep -q "32 ranks" "$tmp/out" || bad "MLP_ModelParallel has 32 ranks"
grep -q "^collectives  11," "$tmp/out" && ok "MLP_ModelParallel ran its 11 collectives" || bad "MLP_ModelParallel collective count"
run "MLP_ModelParallel (32 ranks) on 4 DGX H100 nodes, rail-optimized" - "$dgx" "$demo2/workload/MLP_ModelParallel" --set cluster.nodes=4 --set cluster.fabric=rail-optimized
grep -q "(32 GPUs" "$tmp/out" && ok "4 DGX H100 nodes have 32 GPUs" || bad "4 DGX H100 nodes: GPU count"

# One rank of a real PyTorch trace: its collectives have one member and cost
# nothing, so the step is its compute critical path.
run "chakra-pytorch rank 0 (3,664 nodes) on one DGX H100" - "$dgx" "$data/chakra-pytorch/chakra"
grep -q "3664 nodes" "$tmp/out" || bad "chakra.0.et has 3,664 nodes"
awk '$1 == 0 { exit !($4 == "0.000000") }' "$tmp/out" &&
    ok "chakra-pytorch: one-rank collectives cost nothing" || bad "chakra-pytorch: exposed communication is not 0"
grep -q '^collectives  7,' "$tmp/out" &&
    grep -q '^warning      1660 ctrl_deps on a node that is not in the file or on the node itself are ignored' "$tmp/out" &&
    grep -q '^warning      .*chakra\.0\.et: rank 0: its 2004 other ctrl_deps close a cycle' "$tmp/out" &&
    grep -q '^warning      every communicator has one member (the workload has 1 rank): its 7 collectives move no data.*--pg-size NAME=N.*--replicate N' "$tmp/out" &&
    [ "$(grep -c '^warning ' "$tmp/out")" -eq 3 ] &&
    ok "chakra-pytorch: three warning lines: 1660 dangling or self ctrl_deps, 2004 closing cycles, 7 collectives of one member; its 14 c10d:: host records stay on the CPU" ||
    { bad "chakra-pytorch: warning lines"; grep '^warning' "$tmp/out"; }
# Issue 17: the trace names no group and carries no size (its NCCL kernels have only
# involved_dim), so --replicate 8 puts its 7 collectives in a world of 8: data moves.
run "chakra-pytorch rank 0 copied to the 8 GPUs of one DGX H100" - "$dgx" "$data/chakra-pytorch/chakra" --replicate 8 --set collectives.tuning=nccl
grep -q "(8 ranks, 29312 nodes)" "$tmp/out" && ! grep -q 'one member' "$tmp/out" &&
    [ "$(grep -c '^warning ' "$tmp/out")" -eq 2 ] &&
    awk '/^most expensive/ { on = 1; next } on && /^  #[0-9]/ { n++; if (!($NF > 0)) z++ } on && /^$/ { on = 0 }
         END { exit !(n == 5 && z == 0) }' "$tmp/out" &&
    grep -Eq '^busiest links by bytes \(5 shown; [1-9][0-9]* of 64 directed links carried data' "$tmp/out" &&
    ok "chakra-pytorch --replicate 8: every listed collective has busbw > 0, links carry data, no one-member warning" ||
    { bad "chakra-pytorch --replicate 8: collectives move data, warning gone"; grep -E '^(warning|  #|busiest)' "$tmp/out"; }

# Issue 13: one dangling ctrl_dep no longer drops the file's other ctrl_deps.
# 2 ranks on Ring_4npus: forward 10 us, then (ctrl_dep) a 1 MiB all-reduce, 2 (a + S/2B)
# = 20.53125 us: 30.53125 us (20.53125 us when the ordering was dropped); one warning line.
"$MKTRACE" dangling-ctrl-dep 2 "$tmp/dangling" || bad "mktrace dangling-ctrl-dep"
run "dangling ctrl_dep on 2 ranks of Ring_4npus keeps the other ctrl_deps" "10+2*(0.5+$SB/2)" "$nets/Ring_4npus.yml" "$tmp/dangling"
[ "$(grep -c '^warning ' "$tmp/out")" -eq 2 ] &&
    grep -q "^warning      the trace has 2 ranks and the network 4 NPUs: weft runs the ranks on 2 of them and leaves 2 idle (ASTRA-sim stops" "$tmp/out" &&
    grep -q "^warning      2 ctrl_deps on a node that is not in the file or on the node itself are ignored (in 2 of 2 files); the first: .*dangling\.0\.et: rank 0: node 3 (optimizer): a ctrl_dep on node 0, which is not in the file$" "$tmp/out" &&
    ok "dangling ctrl_dep: one warning line naming the first and the count; one for the 2 idle NPUs" ||
    { bad "dangling ctrl_dep: warning line"; grep '^warning' "$tmp/out"; }

# Issue 13: an all-reduce marked is_cpu_op that no GPU collective depends on is replayed
# as a GPU collective (it used to vanish: 100 us, "collectives 0"). 8 ranks on Ring_8npus:
# forward 100 us, then 64 MiB: 14 (a + 64 S/8B) = 14 x 156.75 = 2194.5 us: 2294.5 us.
"$MKTRACE" cpu-flagged-coll 8 "$tmp/cpuflag" || bad "mktrace cpu-flagged-coll"
run "is_cpu_op all-reduce on 8 ranks of Ring_8npus runs as a GPU collective" "100+14*(0.5+64*$SB/8)" "$nets/Ring_8npus.yml" "$tmp/cpuflag"
grep -q "^collectives  1," "$tmp/out" && [ "$(grep -c '^warning ' "$tmp/out")" -eq 1 ] &&
    grep -q "^warning      8 COMM_COLL nodes marked is_cpu_op are replayed as GPU collectives (in 8 of 8 files), .*; the first: .*cpuflag\.0\.et: rank 0: node 2 (all_reduce_grad)$" "$tmp/out" &&
    ok "is_cpu_op all-reduce: one collective, said once in one warning line" ||
    { bad "is_cpu_op all-reduce: collective count or warning line"; grep -E '^(collectives|warning)' "$tmp/out"; }

# ---- the same inputs under the flow model (max-min sharing, doc/network.md) ----
# Where no two transfers share a link direction, flow gives the analytical
# picoseconds: every ring collective above (member i sends only to i+1, over its
# own links; on the DGX H100 node over its own NVSwitch up- and downlinks; on two
# nodes round-robin each hop has its own NIC and rail leaf, and the one
# cross-rail transfer leaving a leaf has the spines to itself).
for n in 4 8 16; do
    run "flow: all_reduce ${n} ranks on Ring_${n}npus" "2*($n-1)*(0.5+$SB/$n)" "$nets/Ring_${n}npus.yml" "$micro/all_reduce/${n}npus_1MB/all_reduce" --network flow
    run "flow: all_gather ${n} ranks on Ring_${n}npus" "($n-1)*(0.5+$SB)" "$nets/Ring_${n}npus.yml" "$micro/all_gather/${n}npus_1MB/all_gather" --network flow
    run "flow: reduce_scatter ${n} ranks on Ring_${n}npus" "($n-1)*(0.5+$SB/$n)" "$nets/Ring_${n}npus.yml" "$micro/reduce_scatter/${n}npus_1MB/reduce_scatter" --network flow
done
run "flow: all_reduce 8 ranks on DGX H100" "14*(0.6+$HB/8)" "$dgx" "$micro/all_reduce/8npus_1MB/all_reduce" --network flow
run "flow: all_gather 8 ranks on DGX H100" "7*(0.6+$HB)" "$dgx" "$micro/all_gather/8npus_1MB/all_gather" --network flow
run "flow: reduce_scatter 8 ranks on DGX H100" "7*(0.6+$HB/8)" "$dgx" "$micro/reduce_scatter/8npus_1MB/reduce_scatter" --network flow
run "flow: all_reduce 8 ranks on 2 DGX H100 nodes, round-robin" "7*(1.5+$NB)+7*(2.5+$NB)" "$dgx" "$micro/all_reduce/8npus_1MB/all_reduce" $two --set workload.placement=round-robin --network flow
run "flow: all_reduce 8 ranks on 2 DGX H100 nodes, round-robin, full update" "7*(1.5+$NB)+7*(2.5+$NB)" "$dgx" "$micro/all_reduce/8npus_1MB/all_reduce" $two --set workload.placement=round-robin --network flow --set network.update=full

# The direct all-to-all shares links; analytical takes the transfers of an NPU's ports
# one after another (doc/network.md), flow shares them, and here both end together:
# - 4 ranks on Ring_4npus: each member sends S/4 = 262144 B to its two
#   neighbours (one hop each way) and to the member opposite (two hops, an
#   ECMP choice of direction). With network.ecmp_seed = 0 all four two-hop
#   transfers hash onto the decreasing direction (i -> i-1 -> i-2), so each
#   link i -> i-1 carries three transfers: the neighbour's, member i's two-hop
#   one and member i+1's, at B/3 each (and the increasing direction one, at B).
#   The three end together after 3 (S/4)/B = 3 x 4.8828125 us; the two-hop ones
#   arrive 2a = 1 us later: 15.6484375 us (analytical too: its link i -> i-1 is a
#   port, serving the three one after another).
# - 8 ranks on one DGX H100 node: each GPU sends 131072 B to 7 peers over its
#   own NVSwitch uplinks (and receives 7 on its downlinks): 450e9/7 each, so
#   7 (S/8)/B + 0.6 us = 2.638898 us (analytical too).
# - 8 ranks on 2 DGX H100 nodes, round-robin: each rank sends to the 4 ranks on
#   the other node through its own NIC, 50e9/4 each: 4 x 131072 B / 50e9 =
#   10.48576 us, plus the cross-rail latency 2.5 us = 12.98576 us (the NVLink
#   transfers to its 3 node mates end first; the fabric above the NICs has room).
run "flow: all_to_all 4 ranks on Ring_4npus" "3*$SB/4+1" "$nets/Ring_4npus.yml" "$micro/all_to_all/4npus_1MB/all_to_all" --network flow
run "flow: all_to_all 8 ranks on DGX H100" "0.6+7*$HB/8" "$dgx" "$micro/all_to_all/8npus_1MB/all_to_all" --network flow
run "flow: all_to_all 8 ranks on 2 DGX H100 nodes, round-robin" "2.5+4*$NB" "$dgx" "$micro/all_to_all/8npus_1MB/all_to_all" $two --set workload.placement=round-robin --network flow
# 8 and 16 ranks on their rings: more two-hop and longer transfers share each
# link (26.414063 and 45.503906 us with seed 0); analytical's ports give the same.
for n in 8 16; do
    run "flow: all_to_all ${n} ranks on Ring_${n}npus" - "$nets/Ring_${n}npus.yml" "$micro/all_to_all/${n}npus_1MB/all_to_all" --network flow
    eval "an=\$a2a_step_$n"
    awk "BEGIN { d = $step - $an; if (d < 0) d = -d; exit !(d < 1e-4) }" &&
        ok "flow: all_to_all ${n} ranks as analytical ($an us)" || bad "flow: all_to_all ${n} ranks $step us, analytical $an us"
done

# Custom SEND/RECV ring, the tutorial inputs and the PyTorch trace run under flow too.
run "flow: custom ring all-reduce (SEND/RECV/COMP) on Ring_8npus" - "$nets/Ring_8npus.yml" "$custom" --network flow
comm=$(awk '$1 == 0 {print $4}' "$tmp/out")
awk "BEGIN { d = $comm - 14*(0.5+$SB/8); if (d < 0) d = -d; exit !(d < 1e-4) }" &&
    ok "flow: custom ring all-reduce: exposed communication $comm us = 14 (a + S/8B)" ||
    bad "flow: custom ring all-reduce: exposed communication $comm us, expected 41.179688"
run "flow: tutorial demo1 all-reduce on Ring_8" - "$demo1/inputs/Ring_8.yml" "$demo1/allreduce/allreduce" --network flow
run "flow: MLP_ModelParallel (32 ranks) on DGX_H100-32" - "$demo2/inputs/DGX_H100-32.yml" "$demo2/workload/MLP_ModelParallel" --network flow
run "flow: MLP_ModelParallel (32 ranks) on 4 DGX H100 nodes, rail-optimized" - "$dgx" "$demo2/workload/MLP_ModelParallel" --set cluster.nodes=4 --set cluster.fabric=rail-optimized --network flow
run "flow: chakra-pytorch rank 0 (3,664 nodes) on one DGX H100" - "$dgx" "$data/chakra-pytorch/chakra" --network flow

# The default, NCCL's tuning (collectives.tuning = nccl): the real inputs run through
# selection and planning too, under both models, and give the same output twice.
for model in analytical flow; do
    run "tuned ($model): MLP_ModelParallel (32 ranks) on 4 DGX H100 nodes" - "$dgx" "$demo2/workload/MLP_ModelParallel" --set cluster.nodes=4 --set cluster.fabric=rail-optimized --network $model --set collectives.tuning=nccl
    cp "$tmp/out" "$tmp/tuned1"
    run "tuned ($model): all_reduce 8 ranks on 2 DGX H100 nodes, round-robin" - "$dgx" "$micro/all_reduce/8npus_1MB/all_reduce" $two --set workload.placement=round-robin --network $model --set collectives.tuning=nccl
    run "tuned ($model): MLP_ModelParallel again" - "$dgx" "$demo2/workload/MLP_ModelParallel" --set cluster.nodes=4 --set cluster.fabric=rail-optimized --network $model --set collectives.tuning=nccl
    cmp -s "$tmp/tuned1" "$tmp/out" && ok "tuned ($model): byte-identical twice" ||
        bad "tuned ($model): two runs differ"
done

finish real_inputs.sh
