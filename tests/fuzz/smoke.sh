#!/bin/sh
# SPDX-License-Identifier: MIT
# make fuzz-smoke: for each loader named on the command line, replays its regression
# inputs (tests/fuzz/regressions/LOADER, each must run clean), then fuzzes it for
# FUZZ_SECONDS (default 20) from a scratch copy of its seed corpus
# (tests/fuzz/corpus/LOADER; the tree's corpus is never written), with the words of its
# format (tests/fuzz/dict/LOADER.dict, when there is one). Per input: at most
# FUZZ_MAX_LEN bytes (32768), FUZZ_TIMEOUT seconds (10) and FUZZ_RSS_MB MiB (2048).
# A crash, leak, sanitizer report, timeout or out-of-memory fails the loader; its input
# is kept in fuzz-findings/LOADER/ of the build directory, to be fixed and added to
# tests/fuzz/regressions/LOADER/. Writes fuzz-smoke.log (automake's "# PASS:" and
# "# FAIL:" lines) and exits 1 when a loader failed.
set -u
: "${WEFT_SRCDIR:?set by make fuzz-smoke}" "${FUZZ_BIN:?set by make fuzz-smoke}"
seconds=${FUZZ_SECONDS:-20}
max_len=${FUZZ_MAX_LEN:-32768}
timeout=${FUZZ_TIMEOUT:-10}
rss=${FUZZ_RSS_MB:-2048}
log=fuzz-smoke.log
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

pass=0 fail=0
: >"$log"
for loader in "$@"; do
    bin="$FUZZ_BIN/fuzz_$loader"
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/weft-fuzz-smoke.XXXXXX") || exit 1
    found="fuzz-findings/$loader"
    ok=1
    # 1. the regression inputs: each must run clean (libFuzzer runs files once each)
    regs="$WEFT_SRCDIR/tests/fuzz/regressions/$loader"
    if [ -d "$regs" ] && [ -n "$(ls -A "$regs")" ]; then
        if ! TMPDIR="$scratch" "$bin" -rss_limit_mb="$rss" -timeout="$timeout" "$regs"/* >"$scratch/regress.out" 2>&1; then
            echo "FAIL: $loader: a regression input fails again" | tee -a "$log"
            tail -40 "$scratch/regress.out"
            ok=0
        else
            echo "fuzz_$loader: $(ls "$regs" | wc -l) regression inputs run clean"
        fi
    fi
    # 2. fuzzing from a scratch copy of the seeds
    mkdir -p "$scratch/corpus" "$scratch/artifacts" "$scratch/tmp"
    cp "$WEFT_SRCDIR/tests/fuzz/corpus/$loader"/* "$scratch/corpus/" 2>/dev/null
    echo "fuzz_$loader: $(ls "$scratch/corpus" | wc -l) seeds, ${seconds} s"
    dict="$WEFT_SRCDIR/tests/fuzz/dict/$loader.dict"
    set --
    [ -f "$dict" ] && set -- -dict="$dict"
    # the harness's own scratch directory goes there too (a crash skips its cleanup)
    if ! TMPDIR="$scratch/tmp" "$bin" "$@" -max_total_time="$seconds" -max_len="$max_len" -timeout="$timeout" \
        -rss_limit_mb="$rss" -artifact_prefix="$scratch/artifacts/" -print_final_stats=1 \
        "$scratch/corpus" >"$scratch/fuzz.out" 2>&1; then
        mkdir -p "$found"
        cp "$scratch"/artifacts/* "$found/" 2>/dev/null
        echo "FAIL: $loader: the fuzzer found an input (kept in $found; ASAN_OPTIONS=fast_unwind_on_malloc=0 $bin FILE shows whole stacks):" | tee -a "$log"
        tail -60 "$scratch/fuzz.out"
        ok=0
    else
        grep -E '^stat::number_of_executed_units|^Done' "$scratch/fuzz.out" | sed "s/^/  /"
    fi
    if [ $ok = 1 ]; then
        echo "PASS: $loader" >>"$log"
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
    fi
    rm -rf "$scratch"
done
printf '# PASS: %d\n# FAIL: %d\n' "$pass" "$fail" >>"$log"
echo "fuzz-smoke: $pass passed, $fail failed"
[ "$fail" = 0 ]
