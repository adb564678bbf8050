#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of text workloads in `weft replay --trace FILE.txt`: every
# ASTRA-sim 1.0 and SimAI text workload in $WEFT_SHARED/data replays on a
# cluster with enough GPUs (one DGX H100 for the 8-rank ones; the 9,216-GPU
# SimAI MoE step on 1,152 DGX H100 nodes only when WEFT_BIG=1, since it takes
# minutes and GBs), prints a positive step time, and a comm-group file with a
# text workload and a text workload needing more GPUs than the cluster has are
# refused (exit 1). Skips (77) when ../shared is absent.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
shared=${WEFT_SHARED:-}
if [ -z "$shared" ] || [ ! -d "$shared/data/astra-sim-text-workloads" ]; then
    echo "skipped: $shared/data/astra-sim-text-workloads is absent"; exit 77
fi
. "$WEFT_SRCDIR/tests/testlib.sh"
dgx="$WEFT_SRCDIR/topologies/dgx-h100.ini"

# replay NAME FILE ARGS...: exit 0 and a positive "step time" line
replay() {
    name=$1 file=$2
    shift 2
    if ! "$WEFT" replay -q --cluster "$dgx" --trace "$file" "$@" >"$tmp/out" 2>"$tmp/err"; then
        bad "$name: exit $?"; sed 's/^/     /' "$tmp/err"; return
    fi
    t=$(awk '/^step time/ {print $3}' "$tmp/out")
    if [ -z "$t" ] || ! awk -v t="$t" 'BEGIN {exit !(t > 0)}'; then
        bad "$name: no positive step time"; sed 's/^/     /' "$tmp/out"; return
    fi
    ok "$name: step time $t us"
}

for f in "$shared"/data/astra-sim-text-workloads/*.txt "$shared"/data/simai-workloads/*.txt; do
    case $f in
    */workload_analytical.txt)
        if [ "${WEFT_BIG:-0}" = 1 ]; then
            replay "$(basename "$f")" "$f" --set cluster.nodes=1152 \
                --cluster "$WEFT_SRCDIR/topologies/dgx-h100-superpod.ini"
        else
            echo "skipped: $(basename "$f") (9,216 GPUs; set WEFT_BIG=1)"
        fi
        ;;
    *) replay "$(basename "$f")" "$f" ;;
    esac
done

# A text workload takes its groups from its header: a comm-group file is refused.
f="$shared/data/astra-sim-text-workloads/microAllReduce.txt"
printf '{"1": [0, 1]}\n' >"$tmp/g.json"
if "$WEFT" replay -q --cluster "$dgx" --trace "$f" --comm-groups "$tmp/g.json" \
    >"$tmp/out" 2>"$tmp/err"; then
    bad "comm groups with a text workload: accepted"
elif grep -q "Chakra traces only" "$tmp/err"; then
    ok "comm groups with a text workload: refused"
else
    bad "comm groups with a text workload: wrong message"; sed 's/^/     /' "$tmp/err"
fi

# On an ASTRA-sim network an ASTRA-sim 1.0 workload without all_gpus runs on every NPU, as
# ASTRA-sim 1.0 runs it; with all_gpus, on that many, and a warning says why NPUs are idle.
ring32="$shared/data/astra-sim-examples/inputs/network/tpu_v3_32_ring.yml"
if [ -f "$ring32" ]; then
    expect 0 "Resnet50 on a 32-NPU ring" "" -- "$WEFT" replay --cluster "$ring32" \
        --trace "$shared/data/astra-sim-text-workloads/Resnet50_DataParallel.txt"
    grep -q "Resnet50_DataParallel.txt (32 ranks," "$tmp/out" && ! grep -q "^warning .*idle" "$tmp/out" &&
        ok "Resnet50 on a 32-NPU ring: 32 ranks, no idle NPUs" || bad "Resnet50 on a 32-NPU ring: not 32 ranks"
    printf 'DATA all_gpus: 8\n1\nconv -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1048576 5\n' >"$tmp/w8.txt"
    expect 0 "all_gpus 8 on a 32-NPU ring" "" -- "$WEFT" replay --cluster "$ring32" --trace "$tmp/w8.txt"
    grep -q "^warning      the trace has 8 ranks and the network 32 NPUs: .*its header's all_gpus says so" "$tmp/out" &&
        ok "all_gpus 8 on 32 NPUs: the warning names all_gpus" || bad "all_gpus 8 on 32 NPUs: warning"
fi

# 16 ranks (all_gpus) do not fit one 8-GPU node.
printf 'DATA all_gpus: 16\n1\nconv -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1048576 5\n' >"$tmp/w16.txt"
if "$WEFT" replay -q --cluster "$dgx" --trace "$tmp/w16.txt" >"$tmp/out" 2>"$tmp/err"; then
    bad "16 ranks on 8 GPUs: accepted"
else
    ok "16 ranks on 8 GPUs: refused"
fi
replay "16 ranks on two nodes" "$tmp/w16.txt" --set cluster.nodes=2 \
    --cluster "$WEFT_SRCDIR/topologies/dgx-h100-superpod.ini"

# issue 19, item 9: an empty or foreign file is said to be one, not "no Chakra trace files match"
: >"$tmp/empty.txt"
expect 1 "an empty .txt workload" "empty\.txt: the file is empty: not a text workload" -- \
    "$WEFT" replay --cluster "$dgx" --trace "$tmp/empty.txt"
printf 'hello world\n' >"$tmp/hello.txt"
expect 1 "a .txt that is no workload" "hello\.txt: a file weft cannot read as a workload" -- \
    "$WEFT" replay --cluster "$dgx" --trace "$tmp/hello.txt"

finish text_cli.sh
