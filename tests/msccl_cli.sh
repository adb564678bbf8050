#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of custom collectives, `weft coll --algo custom:FILE` with an MSCCL-IR
# XML (coll/msccl.h): the hand-written 4-GPU ring all-gather of tests/data on a 4-GPU ring
# whose times are derived by hand, under both network models; the shared ASTRA-sim custom
# ring all-reduce on ring-8 (when WEFT_SHARED holds it); and the errors of bad input.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"

ag4="$WEFT_SRCDIR/tests/data/ring_allgather_4.xml"
printf '[cluster]\nkind = ring\nname = ring-4\ngpus = 4\nlink_bandwidth = 50GB/s\nlink_latency = 500ns\n' \
    >"$tmp/ring4.ini"

# nccl-tests' all-gather size 4 MiB is the whole output: each GPU's block S = 1 MiB, one chunk.
# The ring's 3 hops run one after the other, each a + S/B = 500 ns + 1048576 B x 20 ps
# = 21471.52 ns: T = 3 x 21471.52 = 64414.56 ns = 64.41 us, under both models.
for net in analytical flow; do
    expect 0 "4-GPU MSCCL ring all-gather, $net" "" -- \
        "$WEFT" coll --cluster "$tmp/ring4.ini" --algo "custom:$ag4" -b 4M -e 4M --network "$net"
    awk '$3 == "float" && $1 == 4194304 && $4 == "64.41" && $7 == "custom" && $8 == "simple"' \
        "$tmp/out" | grep -q . && ok "$net: 64.41 us, algo custom" ||
        { bad "$net: not 64.41 us"; cat "$tmp/out"; }
done
grep -q '^# custom collective: .*ring_allgather_4.xml (MSCCL algorithm "ring_allgather_4")' \
    "$tmp/out" && ok "header names the file" || bad "no custom header"
expect 0 "--plan lists the custom plan" "" -- \
    "$WEFT" coll --cluster "$tmp/ring4.ini" --algo "custom:$ag4" -b 4M --plan
grep -c ' B inter' "$tmp/out" | grep -qx 12 && ok "12 network transfers (and 4 local receives)" ||
    { bad "--plan transfers"; cat "$tmp/out"; }

# errors
expect 2 "--op against the file's coll" "all_gather" -- \
    "$WEFT" coll --cluster "$tmp/ring4.ini" --algo "custom:$ag4" --op all_reduce
expect 1 "gpu count against the communicator" "ngpus=4 but the communicator has 2" -- \
    "$WEFT" coll --cluster "$tmp/ring4.ini" --algo "custom:$ag4" --gpus 0,1
expect 1 "missing file" "nope.xml" -- \
    "$WEFT" coll --cluster "$tmp/ring4.ini" --algo "custom:$tmp/nope.xml"
expect 2 "custom: without a file" "--algo custom: needs a file: custom:FILE.xml .* custom:PREFIX" -- \
    "$WEFT" coll --cluster "$tmp/ring4.ini" --algo "custom:"
sed 's/type="rcs"/type="rxs"/' "$ag4" >"$tmp/bad.xml"
expect 1 "unknown step type" 'bad.xml:[0-9]+: gpu 0 tb 0 step 1 .*type="rxs"' -- \
    "$WEFT" coll --cluster "$tmp/ring4.ini" --algo "custom:$tmp/bad.xml"
grep -v 'type="r" ' "$ag4" >"$tmp/norecv.xml"
expect 1 "send without its receive" "gpu [0-9] tb 0 step 2: type rcs sends to gpu [0-9]" -- \
    "$WEFT" coll --cluster "$tmp/ring4.ini" --algo "custom:$tmp/norecv.xml"
head -c 300 "$ag4" >"$tmp/cut.xml"
expect 1 "truncated XML" "cut.xml" -- \
    "$WEFT" coll --cluster "$tmp/ring4.ini" --algo "custom:$tmp/cut.xml"

# The shared ASTRA-sim custom ring all-reduce (8 GPUs, LL128, 1 chunk = S/8 per hop) on
# ring-8 (50 GiB/s, 500 ns): 14 hops of 500 ns + 131072 B / 0.9375 / 53.687 GB/s
# = 500 + 2604.19 ns = 3104.19 ns: 43458.6 ns = 43.46 us.
x="${WEFT_SHARED:-}/data/astra-sim-examples/examples/system/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce.xml"
if [ -n "${WEFT_SHARED:-}" ] && [ -f "$x" ]; then
    for net in analytical flow; do
        expect 0 "shared custom_allreduce.xml, $net" "" -- \
            "$WEFT" coll --cluster "$WEFT_SRCDIR/topologies/ring-8.ini" --algo "custom:$x" \
            -b 1M -e 1M --network "$net"
        awk '$3 == "float" && $1 == 1048576 && $4 == "43.46" && $8 == "ll128"' "$tmp/out" |
            grep -q . && ok "$net: 43.46 us" || { bad "$net: not 43.46 us"; cat "$tmp/out"; }
    done
    # The same ring as Chakra ET (custom_allreduce.N.et): Simple, and 7 COMP nodes of 7 us on
    # every rank's chain: 14 x (500 + 131072 B / 53.687 GB/s = 2441.41 ns) + 49000 ns
    # = 41179.69 + 49000 = 90179.69 ns = 90.18 us, as weft replay of the same files.
    et="${x%.xml}"
    for net in analytical flow; do
        expect 0 "shared custom_allreduce ET, $net" "" -- \
            "$WEFT" coll --cluster "$WEFT_SRCDIR/topologies/ring-8.ini" --algo "custom:$et" \
            -b 1M -e 1M --network "$net"
        awk '$3 == "float" && $1 == 1048576 && $4 == "90.18" && $7 == "custom"' "$tmp/out" |
            grep -q . && ok "$net: ET 90.18 us" || { bad "$net: ET not 90.18 us"; cat "$tmp/out"; }
    done
    expect 1 "ET rank count against the communicator" "8 ranks of Chakra ET but the communicator has 2" -- \
        "$WEFT" coll --cluster "$WEFT_SRCDIR/topologies/ring-8.ini" --algo "custom:$et" --gpus 0,1
    mkdir -p "$tmp/et"
    for r in 0 1 2 3 4 5 6; do cp "$et.$r.et" "$tmp/et/c.$r.et"; done
    cp "$et.3.et" "$tmp/et/c.7.et" # rank 7 sends to 4 and receives from 2, as rank 3
    expect 1 "ET whose sends do not match" "no matching" -- \
        "$WEFT" coll --cluster "$WEFT_SRCDIR/topologies/ring-8.ini" --algo "custom:$tmp/et/c"
else
    echo "skipped: the shared custom_allreduce.xml is absent"
fi

finish msccl_cli.sh
