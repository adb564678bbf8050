#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_scale: the cluster sizes users study (issue 14's targets), each a generated
# training step replayed with NCCL-tuned collectives: wall time, peak memory (GNU time's
# maximum resident set), events and step time, once with collectives.detail = auto (the
# default: lone collectives as one timed event) and, for the smaller cases, once with
# every transfer simulated, whose step time must be the same to the picosecond.
#   one plain ring all-reduce on an ASTRA-sim Ring YAML: 64 MiB on 1,024 NPUs (also with
#     every transfer simulated) and 4,096, 1 MiB with 4 chunks on 16,384 (implicit plans)
#   GPT-3 175B (TP4 PP8 VP12, SP, distributed optimizer, GBS 2 x GPUs) on 2,048 H100
#   Llama 3.1 405B (TP8 PP16, 128 layers, SP, distributed optimizer, 16 micro-batches
#     per data-parallel rank) on 1,024 H100, and with WEFT_BENCH_BIG=1 on 16,384
#     (analytical, flow, and flow with collectives.detail = coarse) and 131,072 (DP 1,024,
#     analytical)
# Usage: WEFT=./weft WEFT_SRCDIR=SRC sh bench_scale.sh   (make bench runs it)
set -eu
: "${WEFT:=./weft}" "${WEFT_SRCDIR:=.}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T="$WEFT_SRCDIR/topologies"
[ -x /usr/bin/time ] || { echo "bench_scale: needs GNU time (/usr/bin/time)"; exit 0; }
printf '%-44s %9s %9s %12s %16s\n' case wall_s peak_MiB events step_us
run() { # NAME CLUSTER NODES SPEC [EXTRA...]
    name=$1 cluster=$2 nodes=$3 spec=$4
    shift 4
    /usr/bin/time -f '%e %M' -o "$tmp/time" "$WEFT" replay --cluster "$cluster" \
        --set cluster.nodes="$nodes" --trace "$spec" "$@" >"$tmp/out" 2>"$tmp/err" ||
        { echo "$name: failed"; cat "$tmp/err"; return; }
    read -r wall kb <"$tmp/time"
    ev=$(awk '/^collectives/ {print $NF}' "$tmp/out")
    st=$(awk '/^step time/ {print $3}' "$tmp/out")
    printf '%-44s %9.1f %9.0f %12s %16s\n' "$name" "$wall" "$((kb / 1024))" "$ev" "$st"
    echo "$st" >"$tmp/step.$name"
}
same() { # A B: the two cases' step times are identical
    if cmp -s "$tmp/step.$1" "$tmp/step.$2"; then
        echo "  $1 = $2 to the picosecond"
    else
        echo "  MISMATCH: $1 $(cat "$tmp/step.$1") us, $2 $(cat "$tmp/step.$2") us"
    fi
}
gen() { "$WEFT" gen transformer -q "$@" </dev/null 2>/dev/null; }
ring() { # NAME NPUS BYTES [EXTRA...]: one plain ring all-reduce on an ASTRA-sim Ring of NPUS
    name=$1 npus=$2 bytes=$3
    shift 3
    printf 'topology: [ Ring ]\nnpus_count: [ %d ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' \
        "$npus" >"$tmp/ring$npus.yml"
    /usr/bin/time -f '%e %M' -o "$tmp/time" "$WEFT" replay --cluster "$tmp/ring$npus.yml" \
        --set workload.collective=all_reduce --set workload.collective_bytes="$bytes" "$@" \
        >"$tmp/out" 2>"$tmp/err" || { echo "$name: failed"; cat "$tmp/err"; return; }
    read -r wall kb <"$tmp/time"
    ev=$(awk '/^collectives/ {print $NF}' "$tmp/out")
    st=$(awk '/^step time/ {print $3}' "$tmp/out")
    printf '%-44s %9.2f %9.0f %12s %16s\n' "$name" "$wall" "$((kb / 1024))" "$ev" "$st"
    echo "$st" >"$tmp/step.$name"
}
ring ring-allreduce-64MiB-1024 1024 64MiB
ring ring-allreduce-64MiB-1024-transfers 1024 64MiB --set collectives.detail=transfers
same ring-allreduce-64MiB-1024 ring-allreduce-64MiB-1024-transfers
ring ring-allreduce-64MiB-4096 4096 64MiB
ring ring-allreduce-1MiB-16384-chunks4 16384 1MiB --chunks 4

gen --model gpt3-175b --tp 4 --pp 8 --vpp 12 --dp 64 --sp --dist-opt --micro-batch 1 \
    --global-batch 4096 --seq 2048 --spec "$tmp/gpt3-2048.gen"
run gpt3-175b-2048-analytical "$T/dgx-h100-superpod.ini" 256 "$tmp/gpt3-2048.gen"
llama() { # DP FILE
    gen --model llama3.1-405b --layers 128 --tp 8 --pp 16 --dp "$1" --sp --dist-opt \
        --micro-batch 1 --global-batch $(($1 * 16)) --spec "$2"
}
llama 8 "$tmp/llama-1k.gen"
run llama405b-1024-analytical "$T/h100-2048-nodes.ini" 128 "$tmp/llama-1k.gen"
run llama405b-1024-analytical-transfers "$T/h100-2048-nodes.ini" 128 "$tmp/llama-1k.gen" \
    --set collectives.detail=transfers
same llama405b-1024-analytical llama405b-1024-analytical-transfers
run llama405b-1024-flow "$T/h100-2048-nodes.ini" 128 "$tmp/llama-1k.gen" --network flow
if [ "${WEFT_BENCH_BIG:-}" = 1 ]; then
    llama 128 "$tmp/llama-16k.gen"
    run llama405b-16384-analytical "$T/h100-2048-nodes.ini" 2048 "$tmp/llama-16k.gen"
    run llama405b-16384-flow "$T/h100-2048-nodes.ini" 2048 "$tmp/llama-16k.gen" --network flow
    # the opt-in coarse model of large ring collectives under flow (doc/replay.md): here
    # exact, so the step time must be the same
    run llama405b-16384-flow-coarse "$T/h100-2048-nodes.ini" 2048 "$tmp/llama-16k.gen" \
        --network flow --set collectives.detail=coarse
    same llama405b-16384-flow llama405b-16384-flow-coarse
    # 131,072 GPUs: 16,384 nodes, 64 per scalable unit, on 128-port switches
    llama 1024 "$tmp/llama-131k.gen"
    run llama405b-131072-analytical "$T/h100-2048-nodes.ini" 16384 "$tmp/llama-131k.gen" \
        --set cluster.switch_radix=128 --set cluster.nodes_per_su=64
fi
