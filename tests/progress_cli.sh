#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of progress lines (core/progress.h, doc/outputs.md
# "Progress"): with stderr not a terminal, replay, sweep, train and coll print
# a whole line every WEFT_PROGRESS_INTERVAL (here 1us, so every look at the
# clock prints); --progress=never and --quiet silence them, --progress=always
# beats --quiet; stdout and every output file are byte for byte the same with
# and without them; a bad --progress is a usage error, a bad
# WEFT_PROGRESS_INTERVAL bad input; --out holds scenario.ini from the start.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"

dgx="$WEFT_SRCDIR/topologies/dgx-h100.ini"
unset G_MESSAGES_DEBUG
export WEFT_PROGRESS_INTERVAL=1us
# 658,433 events (every transfer simulated): the hook looks at the clock every 4,096
replay="replay --cluster $dgx --gen model=gpt3-1.3b,tp=8 -n flow --set collectives.detail=transfers"
# (from 99 % of the nodes on: one decimal and an unknown ETA, src/core/progress.h)
line='^weft replay: simulated [0-9]+\.[0-9]{6} s, [0-9,]+ events, ([0-9]+ %, ETA [0-9.]+ (s|min|h)|99\.[0-9] %, ETA unknown \(the last items\)), elapsed [0-9.]+ (s|min|h)$'

expect 0 "replay: progress lines on stderr" "$line" -- $WEFT $replay -o "$tmp/run"
n=$(grep -c '^weft replay: simulated' "$tmp/err")
[ "$n" -ge 100 ] && ok "replay: a line at every look at the clock ($n)" || bad "replay: $n progress lines, expected >= 100"
grep -Evq "$line" "$tmp/err" && bad "replay: a stderr line is not a progress line" || ok "replay: every stderr line is a progress line"
# the fraction is trace nodes done: it never falls, and ends above half
sed -E 's/.* ([0-9.]+) %.*/\1/' "$tmp/err" | awk 'NR > 1 && $1 < last { exit 1 } { last = $1 } END { exit !(last > 50) }' &&
    ok "replay: the percentage never falls and passes 50" || bad "replay: the percentage falls or stays low"
cp "$tmp/out" "$tmp/with.out"
mv "$tmp/run" "$tmp/run.with"

expect 0 "replay --progress=never" "" -- $WEFT $replay -o "$tmp/run" --progress=never
[ ! -s "$tmp/err" ] && ok "replay --progress=never: stderr empty" || bad "replay --progress=never: stderr not empty"
cmp -s "$tmp/out" "$tmp/with.out" && ok "replay: stdout the same without progress" || bad "replay: stdout differs with progress"
diff -r "$tmp/run" "$tmp/run.with" >/dev/null && ok "replay: --out files the same without progress" ||
    bad "replay: --out files differ with progress"

expect 0 "replay --quiet" "" -- $WEFT $replay --quiet
[ ! -s "$tmp/err" ] && ok "replay --quiet: no progress" || bad "replay --quiet: stderr not empty"
expect 0 "replay --quiet --progress=always" "$line" -- $WEFT $replay --quiet --progress=always

expect 2 "bad --progress" "--progress=sometimes: expected auto, always or never" -- \
    $WEFT replay --progress=sometimes --cluster "$dgx" --gen model=gpt3-1.3b,tp=8
WEFT_PROGRESS_INTERVAL=5 expect 1 "WEFT_PROGRESS_INTERVAL without a unit" "WEFT_PROGRESS_INTERVAL=5: " -- \
    $WEFT replay --cluster "$dgx" --gen model=gpt3-1.3b,tp=8
WEFT_PROGRESS_INTERVAL=0s expect 1 "WEFT_PROGRESS_INTERVAL of 0" "WEFT_PROGRESS_INTERVAL=0s: " -- \
    $WEFT sweep "$tmp/none.ini"

# a run that fails (here: no such trace) leaves its configuration in --out
expect 1 "replay of a missing trace" "nothere" -- \
    $WEFT replay --cluster "$dgx" --trace "$tmp/nothere" -o "$tmp/failed"
[ -s "$tmp/failed/scenario.ini" ] && ok "--out holds scenario.ini before the run ends" ||
    bad "--out lacks scenario.ini after a failed run"

# sweep: points done
cat >"$tmp/s.ini" <<EOS
[study]
scenario = $WEFT_SRCDIR/scenarios/dp-step-dgx-h100.ini
axis.chunks = collectives.chunks: 1, 2, 4, 8
metrics = step_time_us
EOS
expect 0 "sweep: progress lines" '^weft sweep: [0-4]/4 points done, 0 failed, [0-9]+ running, [0-9]+ %' -- \
    $WEFT sweep -j 1 -o "$tmp/s1.csv" "$tmp/s.ini"
expect 0 "sweep --progress=never" "" -- $WEFT sweep -j 1 -o "$tmp/s2.csv" --progress=never "$tmp/s.ini"
grep -q 'points done' "$tmp/err" && bad "sweep --progress=never: progress printed" || ok "sweep --progress=never: no progress"
cmp -s "$tmp/s1.csv" "$tmp/s2.csv" && ok "sweep: the same CSV without progress" || bad "sweep: CSV differs with progress"

# train: samples done
train="train --gpus 16384 --days 54 --step-time 9.02s --samples 200 --threads 1"
expect 0 "train: progress lines" '^weft train: checkpoint every [0-9]+ steps: [0-9]+/200 samples done, [0-9]+ %, ETA' -- $WEFT $train
cp "$tmp/out" "$tmp/train.out"
expect 0 "train --progress=never" "" -- $WEFT $train --progress=never
[ ! -s "$tmp/err" ] && ok "train --progress=never: stderr empty" || bad "train --progress=never: stderr not empty"
cmp -s "$tmp/out" "$tmp/train.out" && ok "train: stdout the same without progress" || bad "train: stdout differs"

# coll: sizes done (a row is printed as soon as it is known)
expect 0 "coll: progress lines" '^weft coll: size [0-9]+ bytes, [0-9]+ %' -- \
    $WEFT coll --cluster "$dgx" -b 1KiB -e 1GiB --csv "$tmp/c1.csv"
cp "$tmp/out" "$tmp/coll.out"
expect 0 "coll --progress=never" "" -- $WEFT coll --cluster "$dgx" -b 1KiB -e 1GiB --csv "$tmp/c2.csv" --progress=never
[ ! -s "$tmp/err" ] && ok "coll --progress=never: stderr empty" || bad "coll --progress=never: stderr not empty"
expect 0 "coll -q" "" -- $WEFT coll -q --cluster "$dgx" -b 1KiB -e 1GiB --csv "$tmp/c3.csv"
[ ! -s "$tmp/err" ] && cmp -s "$tmp/c2.csv" "$tmp/c3.csv" && ok "coll -q: no progress, the same CSV" ||
    bad "coll -q: progress printed or CSV differs"
cmp -s "$tmp/out" "$tmp/coll.out" && cmp -s "$tmp/c1.csv" "$tmp/c2.csv" &&
    ok "coll: stdout and CSV the same without progress" || bad "coll: output differs with progress"

finish progress_cli
