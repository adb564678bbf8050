#!/bin/sh
# SPDX-License-Identifier: MIT
# `weft sweep --slurm` without a Slurm cluster (tests/slurm_cli.sh runs the
# scripts on a real one): the array and merge scripts carry what they must
# (absolute paths, --array=1-N, --requeue, --open-mode=append, the shard
# stamp, the user's #SBATCH lines); run by sh as Slurm would run them (task
# K = SLURM_ARRAY_TASK_ID), then the merge, they give the CSV of
# `weft sweep -j 2` byte for byte; a finished shard is skipped, a shard of
# another sharding is run again, a journal is resumed; --submit runs sbatch
# (a stand-in here) with --parsable and the merge with afterok on the array's
# id; sbatch missing, failing or printing no id, and bad options are clear
# errors.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"
same() { # same NAME A B
    if cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; diff "$2" "$3" | head -5; fi
}
has() { # has NAME FILE FIXED-STRING: FILE holds a line with FIXED-STRING
    if grep -qF -e "$3" "$2"; then ok "$1"; else bad "$1: no \"$3\" in $2"; fi
}

study="$WEFT_SRCDIR/studies/fabric-allreduce.ini" # 12 points, well under a second
weft_abs=$(cd "$(dirname "$WEFT")" && pwd)/$(basename "$WEFT")
expect 0 "reference: weft sweep -j 2" "" -- "$WEFT" sweep -q -j 2 -o "$tmp/ref.csv" "$study"

# ---- the scripts ----
d="$tmp/run"
expect 0 "--slurm writes the scripts" "" -- "$WEFT" sweep --slurm "$d" --slurm-tasks 3 \
    --slurm-opt=--time=10:00 --slurm-opt "--partition debug" -o "$tmp/merged.csv" "$study"
has "it says how to submit" "$tmp/out" "sbatch --dependency=afterok:\$jid --kill-on-invalid-dep=yes '$d/merge.sbatch'"
has "and names the merged CSV" "$tmp/out" "the merged CSV: $tmp/merged.csv"
if [ -d "$d/logs" ]; then ok "DIR/logs created"; else bad "DIR/logs created"; fi
a="$d/array.sbatch" m="$d/merge.sbatch"
has "array: 3 tasks" "$a" "#SBATCH --array=1-3"
has "array: requeued on failure" "$a" "#SBATCH --requeue"
has "array: logs appended across requeues" "$a" "#SBATCH --open-mode=append"
has "array: one log per task in DIR/logs" "$a" "#SBATCH --output=$d/logs/shard-%a.out"
has "array: the user's options" "$a" "#SBATCH --time=10:00"
has "array: ... in order" "$a" "#SBATCH --partition debug"
has "array: the absolute weft and study" "$a" "exec '$weft_abs' sweep -j \"\${SLURM_CPUS_PER_TASK:-1}\" --resume --shard \"\$k/3\" -o \"\$out\" '$study'"
hash=$(sed -n 's/.*"# weft sweep shard study=\([0-9a-f]*\) points=12 shard=\$k\/3".*/\1/p' "$a")
if [ "${#hash}" -eq 64 ]; then ok "array: the shard stamp with the study's hash"; else bad "array: shard stamp: \"$hash\""; fi
has "merge: the user's options too" "$m" "#SBATCH --time=10:00"
has "merge: its log" "$m" "#SBATCH --output=$d/logs/merge.out"
has "merge: the merged CSV" "$m" "exec '$weft_abs' sweep --merge -o '$tmp/merged.csv' \"\$@\""
has "merge: every shard" "$m" "while [ \"\$k\" -le 3 ]; do"
if [ "$(grep -c '^#SBATCH' "$a")" -eq 7 ] && [ "$(grep -c '^#SBATCH' "$m")" -eq 6 ]; then
    ok "no other #SBATCH lines"
else
    bad "#SBATCH lines: $(grep -c '^#SBATCH' "$a") in the array, $(grep -c '^#SBATCH' "$m") in the merge"
fi
expect 0 "default: one task per point up to 32" "" -- "$WEFT" sweep --slurm "$tmp/run12" "$study"
has "... 12 here" "$tmp/run12/array.sbatch" "#SBATCH --array=1-12"
has "... merged into the study's results, in the current directory" "$tmp/run12/merge.sbatch" "-o '$PWD/fabric-allreduce.csv'"
expect 0 "-j goes to every task" "" -- "$WEFT" sweep --slurm "$tmp/runj" -j 4 "$study"
has "... as -j 4" "$tmp/runj/array.sbatch" "sweep -j 4 --resume"

# ---- run as Slurm would: the tasks, then the merge ----
task() { # task K: array task K, its output appended to its log as --open-mode=append does
    SLURM_ARRAY_TASK_ID=$1 sh "$a" >>"$d/logs/shard-$1.out" 2>&1
}
# shard 1 was interrupted after its first row (point 0): its journal holds it
{
    echo "# weft sweep journal study=$hash points=12 shard=1/3"
    sed -n 2p "$tmp/ref.csv"
} >"$d/shard-1.csv.partial"
# shard 3 holds a CSV of another sharding (3/4): it must run again
"$WEFT" sweep -q --shard 3/4 -o "$d/shard-3.csv" "$study"
for k in 1 2 3; do
    if task "$k"; then ok "task $k"; else bad "task $k"; sed 's/^/     /' "$d/logs/shard-$k.out"; fi
done
has "task 1 resumed its journal" "$d/logs/shard-1.out" "4 points (3 run, 1 from the journal)"
has "task 3 ran its shard again" "$d/logs/shard-3.out" "4 points (4 run, 0 from the journal)"
if [ -e "$d/shard-1.csv.partial" ]; then bad "journal removed"; else ok "journal removed"; fi
if sh "$m" >"$d/logs/merge.out" 2>&1; then ok "merge"; else bad "merge"; cat "$d/logs/merge.out"; fi
same "merged CSV = weft sweep -j 2" "$tmp/ref.csv" "$tmp/merged.csv"
# a requeued task whose shard is complete exits at once, appending to its log
cp "$d/shard-2.csv" "$tmp/shard-2.before"
task 2
has "a finished shard is skipped" "$d/logs/shard-2.out" "weft: shard 2/3 of this study is done: $d/shard-2.csv"
if [ "$(wc -l <"$d/logs/shard-2.out")" -eq 2 ]; then ok "its log keeps both runs"; else bad "log of task 2: $(wc -l <"$d/logs/shard-2.out") lines"; fi
same "... and its CSV is untouched" "$tmp/shard-2.before" "$d/shard-2.csv"
if (unset SLURM_ARRAY_TASK_ID; sh "$a") 2>"$tmp/err"; then
    bad "the array script outside an array fails"
else
    has "the array script outside an array fails" "$tmp/err" "not a Slurm array task"
fi

# ---- --submit with a stand-in sbatch ----
mkdir -p "$tmp/bin"
cat >"$tmp/bin/sbatch" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/sbatch.log"
case "\$FAKE_SBATCH" in
fail) echo "sbatch: error: Batch job submission failed: Invalid partition name specified" >&2; exit 1 ;;
noid) echo "Submitted batch job" ;;
mergefail) case "\$*" in *dependency*) echo "sbatch: error: Job dependency problem" >&2; exit 1 ;; esac; echo 41 ;;
*) case "\$*" in *dependency*) echo "42;cluster0" ;; *) echo 41 ;; esac ;;
esac
EOF
chmod +x "$tmp/bin/sbatch"
: >"$tmp/sbatch.log"
expect 0 "--submit" "" -- env PATH="$tmp/bin:$PATH" FAKE_SBATCH=ok \
    "$WEFT" sweep --slurm "$d" --slurm-tasks 3 --submit -o "$tmp/merged.csv" "$study"
has "prints the array's id" "$tmp/out" "array job 41 (3 tasks): $d/array.sbatch"
has "prints the merge's id (cluster dropped)" "$tmp/out" "merge job 42 (afterok:41): $d/merge.sbatch"
if [ "$(sed -n 1p "$tmp/sbatch.log")" = "--parsable $d/array.sbatch" ] &&
    [ "$(sed -n 2p "$tmp/sbatch.log")" = "--parsable --dependency=afterok:41 --kill-on-invalid-dep=yes $d/merge.sbatch" ] &&
    [ "$(wc -l <"$tmp/sbatch.log")" -eq 2 ]; then
    ok "sbatch --parsable, then the merge after the array"
else
    bad "sbatch calls:"; sed 's/^/     /' "$tmp/sbatch.log"
fi
expect 1 "sbatch failing: its stderr shown" "exited with code 1: sbatch: error: Batch job submission failed: Invalid partition" -- \
    env PATH="$tmp/bin:$PATH" FAKE_SBATCH=fail "$WEFT" sweep --slurm "$d" --submit "$study"
expect 1 "sbatch printing no job id" "printed \"Submitted batch job\", not a job id" -- \
    env PATH="$tmp/bin:$PATH" FAKE_SBATCH=noid "$WEFT" sweep --slurm "$d" --submit "$study"
expect 1 "the merge refused: the array's id named" "array job 41 is queued, but its merge job is not: .*Job dependency problem" -- \
    env PATH="$tmp/bin:$PATH" FAKE_SBATCH=mergefail "$WEFT" sweep --slurm "$d" --submit "$study"
expect 1 "no sbatch in PATH" "sbatch is not in PATH: submit $d/array.sbatch" -- \
    env PATH="$tmp/nowhere" "$WEFT" sweep --slurm "$d" --submit "$study"

# ---- errors ----
expect 2 "--slurm-tasks above the points" "--slurm-tasks 13: more than the study's 12 points" -- \
    "$WEFT" sweep --slurm "$tmp/e" --slurm-tasks 13 "$study"
expect 2 "--slurm-tasks 0" "--slurm-tasks must be at least 1" -- \
    "$WEFT" sweep --slurm "$tmp/e" --slurm-tasks 0 "$study"
expect 2 "--slurm-opt that weft sets" "--slurm-opt \"--array=1-5\": weft sweep --slurm sets --array itself" -- \
    "$WEFT" sweep --slurm "$tmp/e" --slurm-opt=--array=1-5 "$study"
expect 2 "--slurm-opt -o" "sets -o itself" -- "$WEFT" sweep --slurm "$tmp/e" --slurm-opt=-oX "$study"
expect 2 "--slurm-opt not an option" "--slurm-opt \"time=10\": expected one sbatch option" -- \
    "$WEFT" sweep --slurm "$tmp/e" --slurm-opt=time=10 "$study"
expect 2 "--slurm-opt on two lines" "expected one sbatch option on one line" -- \
    "$WEFT" sweep --slurm "$tmp/e" --slurm-opt="--time=1
rm -rf /" "$study"
expect 2 "DIR with a blank" "a blank, quote, backslash or % in the directory" -- \
    "$WEFT" sweep --slurm "$tmp/e f" "$study"
if [ -e "$tmp/e" ] || [ -e "$tmp/e f" ]; then bad "nothing written on a bad option"; else ok "nothing written on a bad option"; fi
: >"$tmp/file"
expect 1 "DIR that cannot be created" "--slurm $tmp/file/d: cannot create the directory $tmp/file/d/logs" -- \
    "$WEFT" sweep --slurm "$tmp/file/d" "$study"
printf '[study]\naxis.x = nosuch.key: 1, 2\n' >"$tmp/bad.ini"
expect 1 "a bad study: nothing written" "axis.x" -- "$WEFT" sweep --slurm "$tmp/e" "$tmp/bad.ini"
if [ -e "$tmp/e" ]; then bad "... no DIR"; else ok "... no DIR"; fi
expect 2 "--submit without --slurm" "need --slurm DIR" -- "$WEFT" sweep --submit "$study"
expect 2 "--slurm-tasks without --slurm" "need --slurm DIR" -- "$WEFT" sweep --slurm-tasks 3 "$study"
expect 2 "--slurm with --shard" "--slurm takes no --merge, --resume or --shard" -- \
    "$WEFT" sweep --slurm "$tmp/e" --shard 1/2 "$study"
expect 2 "--slurm with --resume" "--slurm takes no" -- "$WEFT" sweep --slurm "$tmp/e" --resume "$study"
expect 2 "--slurm without a study" "no study file" -- "$WEFT" sweep --slurm "$tmp/e"

finish slurm_scripts
