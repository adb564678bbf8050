#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of logging (doc/outputs.md, "Logging"): -v/--verbose,
# after the subcommand or before it, prints debug lines on stderr, the
# cluster's "built" line first, stamped with the simulated time inside the
# run, and leaves stdout byte for byte as without it; every subcommand's
# --help shows the flag; G_MESSAGES_DEBUG picks domains; without either,
# stderr stays empty.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"

scen="$WEFT_SRCDIR/scenarios/dp-step-dgx-h100.ini"
unset G_MESSAGES_DEBUG

expect 0 "replay without --verbose" "" -- "$WEFT" replay "$scen"
cp "$tmp/out" "$tmp/plain.out"
[ ! -s "$tmp/err" ] && ok "no debug lines unless asked for" || bad "stderr not empty without --verbose"

for flag in --verbose -v; do
    expect 0 "replay $flag" '^\[weft-topo\] cluster dgx-h100 built: 8 GPUs, 1 hosts, [0-9]+ vertices, [0-9]+ links' \
        -- "$WEFT" replay "$scen" $flag
    cmp -s "$tmp/out" "$tmp/plain.out" && ok "replay $flag: stdout unchanged" || bad "replay $flag: stdout differs"
done
grep -Eq '^\[weft-workload\] workload .*dp-step loaded and checked: 8 ranks, 48 nodes' "$tmp/err" &&
    grep -Eq '^\[weft-net\] network model analytical' "$tmp/err" &&
    grep -Eq '^\[weft-replay\] replay of .* starts: 8 ranks' "$tmp/err" &&
    grep -Eq '^\[weft-coll t=[0-9]+\.[0-9]{6}ms\] plan all_reduce of 128 MiB over 8 members: NCCL.s model chose [a-z_]+, [A-Za-z0-9]+, [0-9]+ channels, [0-9]+ chunks$' "$tmp/err" &&
    grep -Eq '^\[weft-replay\] replay of .* done: step [0-9.]+ ms, [0-9]+ events' "$tmp/err" &&
    ok "replay -v: workload, network model, replay start and end, the plan NCCL's model chose" ||
    { bad "replay -v lacks a line"; sed 's/^/     /' "$tmp/err"; }
grep -v '^\[weft-[a-z]*\( t=[0-9.+ms]*\)\?\] ' "$tmp/err" | grep -q . &&
    bad "a stderr line without the [weft-DOMAIN t=...] prefix" || ok "every line carries its domain"

expect 0 "--verbose before the subcommand" '^\[weft-topo\] cluster dgx-h100 built' -- "$WEFT" --verbose replay "$scen"
cmp -s "$tmp/out" "$tmp/plain.out" && ok "weft --verbose replay: stdout unchanged" || bad "weft --verbose replay: stdout differs"

# the flow model: its solver's state and re-solve counts, the same stdout as without
expect 0 "flow replay" "" -- "$WEFT" replay "$scen" --network flow
cp "$tmp/out" "$tmp/flow.out"
expect 0 "flow replay -v" '^\[weft-net\] flow solver: [0-9]+ re-solves' -- "$WEFT" replay "$scen" --network flow -v
cmp -s "$tmp/out" "$tmp/flow.out" && ok "flow replay -v: stdout unchanged" || bad "flow replay -v: stdout differs"
grep -Eq '^\[weft-net t=[0-9.]+ms\+[0-9.]+ms\] flow solver state \(busiest so far\): lmm: [0-9]+ constraints' "$tmp/err" &&
    grep -Eq '^\[weft-net t=[0-9.]+ms\+[0-9.]+ms\]   constraint [0-9]+: capacity [0-9.e+]+ B/s, usage' "$tmp/err" &&
    ok "flow replay -v: the solver's dump, stamped with both clocks of the collective measured alone" ||
    { bad "flow replay -v: no solver dump"; sed 's/^/     /' "$tmp/err" | head -20; }

# G_MESSAGES_DEBUG picks domains
expect 0 "G_MESSAGES_DEBUG=weft-topo" '^\[weft-topo\] cluster dgx-h100 built' -- env G_MESSAGES_DEBUG=weft-topo "$WEFT" replay "$scen"
grep -v '^\[weft-topo\]' "$tmp/err" | grep -q . && bad "G_MESSAGES_DEBUG=weft-topo: other domains" ||
    ok "G_MESSAGES_DEBUG=weft-topo: that domain alone"
cmp -s "$tmp/out" "$tmp/plain.out" && ok "G_MESSAGES_DEBUG=weft-topo: stdout unchanged" || bad "G_MESSAGES_DEBUG: stdout differs"

# a study: every point's start and end, with its key=value list
expect 0 "sweep -v" '^\[weft-study\] point 0 of 28 starts: nodes=1 chunks=1 model=analytical$' \
    -- "$WEFT" sweep -v -o "$tmp/s.csv" "$WEFT_SRCDIR/studies/chunks-model.ini"
[ "$(grep -c '^\[weft-study\] point [0-9]* done in [0-9.]* s: ok$' "$tmp/err")" -eq 28 ] &&
    ok "sweep -v: 28 points done" || bad "sweep -v: $(grep -c 'done in' "$tmp/err") points done"

# every subcommand's help shows the flag
for cmd in replay coll sweep train "gen transformer" plot "topo show" "topo export" "topo check"; do
    # shellcheck disable=SC2086
    "$WEFT" $cmd --help >"$tmp/help" 2>&1
    grep -Eq '^  -v, --verbose ' "$tmp/help" && ok "weft $cmd --help shows -v, --verbose" ||
        bad "weft $cmd --help lacks --verbose"
done
"$WEFT" --help | grep -q -- '--verbose' && ok "weft --help shows --verbose" || bad "weft --help lacks --verbose"
finish log_cli.sh
