#!/bin/sh
# SPDX-License-Identifier: MIT
# Replays every fuzzing regression input (tests/fuzz/regressions/LOADER) and seed
# (tests/fuzz/corpus/LOADER) through its harness linked with tests/fuzz/replay_main.c,
# so inputs that once crashed a loader stay fixed in any build, with any compiler (under
# --enable-sanitize, ASan and UBSan watch them). A harness aborts on a crash, a
# sanitizer report, or a loader answer it refuses (fuzz_*.c say which).
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"
bin="$(dirname "$WEFT")/tests/fuzz"
for loader in chakra text astra_yaml cluster_ini graphml scenario faults gen_spec comm_groups \
    study train jobs; do
    for kind in regressions corpus; do
        dir="$WEFT_SRCDIR/tests/fuzz/$kind/$loader"
        [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] || continue
        n=$(ls "$dir" | wc -l)
        if "$bin/replay_$loader" "$dir" >"$tmp/out" 2>&1; then
            ok "$loader: $n $kind inputs run clean"
        else
            bad "$loader: $kind: exit $?"
            tail -30 "$tmp/out" | sed 's/^/     /'
        fi
    done
done
finish fuzz_regress
