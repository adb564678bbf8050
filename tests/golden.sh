#!/bin/sh
# SPDX-License-Identifier: MIT
# Golden outputs (like SimGrid's tesh files): every tests/golden/NAME.cmd holds
# one weft command line; its standard output, standard error and exit status,
# with the source directory's path written as "$SRC" and without progress lines
# (wall-clock dependent), must equal
# tests/golden/NAME.out byte for byte. A change that moves any simulated time,
# choice or count shows in the diff. Each case that replays (`weft replay`,
# `weft sweep` through its scenarios) or simulates a collective (`weft coll`)
# runs again with the flow model's slow full update
# (`--set network.update=full`, `weft coll --update full`), which must give
# the same output but for the line naming the update mode; each replay also
# runs with every transfer simulated (`--set collectives.detail=transfers`),
# which must print the same but for the events count (collectives that ran
# as one timed event: src/replay/replay.c). `make check` compares the outputs;
# the two runs that cross-check them (minutes in all) are left to
# `make check-slow` (WEFT_SLOW=1), which runs only those.
#
#   WEFT_BLESS=1 make check TESTS=tests/golden.sh   writes the new outputs;
#   bless only what you can explain, and say why in the commit message.
#
# A .cmd file: the arguments of one weft command (shell words; $SRC is the
# source tree, $OUT a scratch directory the command may write to); lines
# starting with '#' are comments; an optional "then: CMD" line runs after it
# (e.g. `cat $OUT/results.csv`) with its output appended; a "full:" line gives
# the arguments added for the full-update run ("full: none" for none).
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"
SRC=$WEFT_SRCDIR
export SRC

run_case() { # CMDFILE EXTRA_ARGS... -> prints the normalized output
    cmdfile=$1
    shift
    args=$(grep -v -e '^#' -e '^then:' -e '^full:' "$cmdfile" | tr '\n' ' ')
    then=$(sed -n 's/^then: //p' "$cmdfile")
    OUT="$tmp/case"
    rm -rf "$OUT" && mkdir -p "$OUT"
    export OUT
    # shell words of the .cmd file, with $SRC and $OUT expanded
    eval "set -- $args \"\$@\""
    (cd "$OUT" && "$WEFT" "$@") >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    # progress lines (a line every 5 s of wall clock: doc/outputs.md) depend on the machine
    grep -Ev '^weft (replay|coll|sweep|train): .*, elapsed [0-9.]+ (s|min|h)$' "$tmp/stderr" \
        >"$tmp/stderr.kept"
    mv "$tmp/stderr.kept" "$tmp/stderr"
    {
        cat "$tmp/stdout"
        if [ -s "$tmp/stderr" ]; then
            echo "--- stderr"
            cat "$tmp/stderr"
        fi
        echo "--- exit $rc"
        if [ -n "$then" ]; then
            echo "--- $then"
            (cd "$OUT" && eval "$then")
        fi
    } | sed -e "s|$SRC|\$SRC|g" -e "s|$OUT|\$OUT|g"
}

n=0
for cmdfile in "$WEFT_SRCDIR"/tests/golden/*.cmd; do
    name=$(basename "$cmdfile" .cmd)
    want="$WEFT_SRCDIR/tests/golden/$name.out"
    n=$((n + 1))
    if [ "${WEFT_SLOW:-}" != 1 ]; then
        run_case "$cmdfile" >"$tmp/got"
        if [ "${WEFT_BLESS:-}" = 1 ]; then
            cp "$tmp/got" "$want"
            ok "$name: blessed"
            continue
        fi
        if [ ! -f "$want" ]; then
            bad "$name: no $name.out (WEFT_BLESS=1 writes it)"
            continue
        fi
        if cmp -s "$tmp/got" "$want"; then
            ok "$name"
        else
            bad "$name: output differs from tests/golden/$name.out"
            diff -u "$want" "$tmp/got" | head -40 | sed 's/^/     /'
        fi
        continue # the cross-checks below: make check-slow
    fi
    if [ ! -f "$want" ]; then
        bad "$name: no $name.out (WEFT_BLESS=1 writes it)"
        continue
    fi
    # replays run again with every transfer simulated (collectives.detail = transfers):
    # the same output but for the events count
    if grep -q '^replay' "$cmdfile"; then
        run_case "$cmdfile" --set collectives.detail=transfers |
            sed -e 's/, events [0-9]*$/, events N/' >"$tmp/got_tr"
        sed -e 's/, events [0-9]*$/, events N/' "$want" >"$tmp/want_tr"
        if cmp -s "$tmp/got_tr" "$tmp/want_tr"; then
            ok "$name, every transfer simulated"
        else
            bad "$name, every transfer simulated: differs from collectives.detail = auto"
            diff -u "$tmp/want_tr" "$tmp/got_tr" | head -20 | sed 's/^/     /'
        fi
    fi
    full=$(sed -n 's/^full: //p' "$cmdfile")
    [ -z "$full" ] && full="--set network.update=full"
    [ "$full" = none ] && continue
    # shellcheck disable=SC2086
    run_case "$cmdfile" $full | sed -e 's/update full/update incremental/' \
        -e 's/^update = full$/update = incremental/' >"$tmp/got_full"
    if cmp -s "$tmp/got_full" "$want"; then
        ok "$name, full update"
    else
        bad "$name, full update: differs from the incremental output"
        diff -u "$want" "$tmp/got_full" | head -20 | sed 's/^/     /'
    fi
done
[ "$n" -ge 20 ] && ok "$n golden cases" || bad "only $n golden cases, expected 20 or more"
finish golden.sh
