#!/bin/sh
# SPDX-License-Identifier: MIT
# `weft sweep --slurm --submit` on a real Slurm: munged, slurmctld and one
# slurmd (Debian's munge and slurm-wlm), started here on localhost with a
# one-node slurm.conf, state, spool, sockets, pid files and logs in the
# scratch directory, and stopped by their pid files at exit. The array of 3
# shards and its merge job run; the merged CSV equals `weft sweep -j 2` byte
# for byte; a task resumes its journal, skips a finished shard and reruns a
# foreign one; a requeued array appends to its logs and redoes nothing; a
# failed task cancels the merge, and resubmitting finishes the study.
# Skips (77) unless root with the Slurm and munge daemons installed, or when
# they do not start (no node idle within 60 s).
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: the Slurm daemons run as root here (SlurmUser=root)"
    exit 77
fi
for p in munged slurmctld slurmd sbatch scontrol sinfo; do
    if ! command -v "$p" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$p" ]; then
        echo "SKIP: $p not installed (Debian: apt-get install slurm-wlm munge)"
        exit 77
    fi
done
PATH="$PATH:/usr/sbin"

c="$tmp/slurm" # the cluster's files
SLURM_CONF="$c/slurm.conf"
export SLURM_CONF
stop() { # stop the daemons by their pid files, waiting (bounded) for each to exit
    [ -f "$c/slurmctld.pid" ] && timeout 30 scancel --quiet --user=root >/dev/null 2>&1
    for f in "$c/slurmd.pid" "$c/slurmctld.pid" "$c/munged.pid"; do
        [ -f "$f" ] || continue
        p=$(cat "$f")
        kill "$p" 2>/dev/null || continue
        n=0
        while kill -0 "$p" 2>/dev/null && [ "$n" -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
        kill -9 "$p" 2>/dev/null
    done
}
trap 'stop; rm -rf "$tmp"' EXIT
logs() { # the daemons' logs, for a failure or a skip
    for f in "$c"/*.log; do
        echo "---- $f"
        tail -20 "$f"
    done
}

mkdir -p "$c/state" "$c/spool"
chmod 700 "$c"
dd if=/dev/urandom bs=1 count=1024 of="$c/munge.key" 2>/dev/null
chmod 400 "$c/munge.key"
if ! munged --force --key-file="$c/munge.key" --socket="$c/munge.socket" \
    --pid-file="$c/munged.pid" --log-file="$c/munged.log" --seed-file="$c/munged.seed"; then
    echo "SKIP: munged does not start"
    logs
    exit 77
fi
# ports of their own, so that another Slurm on this machine is not disturbed
port=$((20000 + $$ % 20000))
cat >"$SLURM_CONF" <<EOF
ClusterName=wefttest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$c/munge.socket
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
StateSaveLocation=$c/state
SlurmdSpoolDir=$c/spool
SlurmctldPidFile=$c/slurmctld.pid
SlurmdPidFile=$c/slurmd.pid
SlurmctldLogFile=$c/slurmctld.log
SlurmdLogFile=$c/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
if ! slurmctld -f "$SLURM_CONF" || ! slurmd -f "$SLURM_CONF" -N localhost; then
    echo "SKIP: slurmctld or slurmd does not start"
    logs
    exit 77
fi
n=0
until [ "$(sinfo -h -n localhost -o %T 2>/dev/null)" = idle ]; do
    n=$((n + 1))
    if [ "$n" -gt 60 ]; then
        echo "SKIP: the Slurm node is not idle after 60 s: $(sinfo -h -o '%T %E' 2>&1)"
        logs
        exit 77
    fi
    sleep 1
done
ok "munged, slurmctld and slurmd up, node idle"

# Waits (bounded: 300 s, a sanitizer build is slow) for job $1 (an array: all its tasks)
# to end, then prints its job states, sorted and counted ("3 COMPLETED").
wait_job() {
    n=0
    while [ "$n" -lt 300 ]; do
        s=$(scontrol -o show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' |
            sort | uniq -c | awk '{print $1, $2}' | tr '\n' ' ')
        case "$s" in
        *PENDING* | *RUNNING* | *CONFIGURING* | *COMPLETING* | *REQUEUE* | '') ;;
        *)
            echo "${s% }"
            return
            ;;
        esac
        sleep 1
        n=$((n + 1))
    done
    echo "timeout: $s"
}
check_state() { # check_state NAME JOB EXPECTED
    got=$(wait_job "$2")
    if [ "$got" = "$3" ]; then
        ok "$1: $got"
    else
        bad "$1: \"$got\", expected \"$3\""
        scontrol -o show job "$2" | sed 's/^/     /'
        for f in "$d"/logs/*; do echo "     ---- $f"; sed 's/^/     /' "$f"; done
        logs | sed 's/^/     /'
    fi
}
ids() { # the array and merge job ids that weft sweep --submit printed in $tmp/out
    aid=$(sed -n 's/^array job \([0-9]*\) .*/\1/p' "$tmp/out")
    mid=$(sed -n 's/^merge job \([0-9]*\) .*/\1/p' "$tmp/out")
}
has() { # has NAME FILE FIXED-STRING
    if grep -qF -e "$3" "$2"; then ok "$1"; else bad "$1: no \"$3\" in $2"; sed 's/^/     /' "$2"; fi
}
same() { # same NAME A B
    if cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; diff "$2" "$3" | head -5; fi
}

study="$WEFT_SRCDIR/studies/fabric-allreduce.ini" # 12 points, well under a second
expect 0 "reference: weft sweep -j 2" "" -- "$WEFT" sweep -q -j 2 -o "$tmp/ref.csv" "$study"

# ---- the array and its merge, with a shard half done, one done and one foreign ----
d="$tmp/run"
expect 0 "--slurm writes the scripts" "" -- \
    "$WEFT" sweep --slurm "$d" --slurm-tasks 3 -o "$tmp/merged.csv" "$study"
hash=$(sed -n 's/.*"# weft sweep shard study=\([0-9a-f]*\) points=12 shard=\$k\/3".*/\1/p' "$d/array.sbatch")
{ # shard 1 was interrupted after its first row (point 0): its journal holds it
    echo "# weft sweep journal study=$hash points=12 shard=1/3"
    sed -n 2p "$tmp/ref.csv"
} >"$d/shard-1.csv.partial"
"$WEFT" sweep -q --shard 2/3 -o "$d/shard-2.csv" "$study" # shard 2 is done
"$WEFT" sweep -q --shard 3/4 -o "$d/shard-3.csv" "$study" # another sharding's: runs again
expect 0 "--submit" "" -- "$WEFT" sweep --slurm "$d" --slurm-tasks 3 --submit -o "$tmp/merged.csv" "$study"
ids
if [ -n "$aid" ] && [ -n "$mid" ]; then ok "job ids $aid and $mid"; else bad "job ids"; cat "$tmp/out"; fi
check_state "the merge job" "$mid" "1 COMPLETED"
check_state "the array" "$aid" "3 COMPLETED"
same "merged CSV = weft sweep -j 2" "$tmp/ref.csv" "$tmp/merged.csv"
has "task 1 resumed its journal" "$d/logs/shard-1.out" "4 points (3 run, 1 from the journal)"
has "task 2 skipped its finished shard" "$d/logs/shard-2.out" "weft: shard 2/3 of this study is done"
has "task 3 ran its foreign shard again" "$d/logs/shard-3.out" "4 points (4 run, 0 from the journal)"
has "the merge's log" "$d/logs/merge.out" "weft sweep: merged 3 shard(s) into $tmp/merged.csv"

# ---- requeue: the tasks run again, append to their logs and redo nothing ----
cp "$tmp/merged.csv" "$tmp/merged.before"
if scontrol requeue "$aid" && scontrol update jobid="$aid" StartTime=now; then
    ok "scontrol requeue"
else
    bad "scontrol requeue"
fi
check_state "the requeued array" "$aid" "3 COMPLETED"
for k in 1 2 3; do
    if [ "$(grep -c "weft: shard $k/3 of this study is done" "$d/logs/shard-$k.out")" -ge 1 ] &&
        [ "$(wc -l <"$d/logs/shard-$k.out")" -eq 2 ]; then
        ok "requeued task $k: skipped, its log appended"
    else
        bad "requeued task $k:"; sed 's/^/     /' "$d/logs/shard-$k.out"
    fi
done
same "the merged CSV unchanged" "$tmp/merged.before" "$tmp/merged.csv"

# ---- a failed task cancels the merge; resubmitting finishes the study ----
d="$tmp/run2"
mkdir -p "$d"
echo "# weft sweep journal study=0000 points=12 shard=2/3" >"$d/shard-2.csv.partial" # foreign
expect 0 "--submit, shard 2 to fail" "" -- \
    "$WEFT" sweep --slurm "$d" --slurm-tasks 3 --submit -o "$tmp/merged2.csv" "$study"
ids
check_state "the merge is cancelled" "$mid" "1 CANCELLED"
check_state "the array: one task failed" "$aid" "2 COMPLETED 1 FAILED"
has "task 2's log names its journal" "$d/logs/shard-2.out" "$d/shard-2.csv.partial"
if [ -e "$tmp/merged2.csv" ]; then bad "no merged CSV"; else ok "no merged CSV"; fi
rm "$d/shard-2.csv.partial"
expect 0 "--submit again" "" -- \
    "$WEFT" sweep --slurm "$d" --slurm-tasks 3 --submit -o "$tmp/merged2.csv" "$study"
ids
check_state "the merge job" "$mid" "1 COMPLETED"
has "task 1 skipped" "$d/logs/shard-1.out" "weft: shard 1/3 of this study is done"
same "merged CSV = weft sweep -j 2" "$tmp/ref.csv" "$tmp/merged2.csv"

finish slurm_cli
