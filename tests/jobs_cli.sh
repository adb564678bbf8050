#!/bin/sh
# SPDX-License-Identifier: MIT
# Several jobs on one fabric (weft replay --jobs, workload.jobs; scenario/jobs.h): two
# all-reduces sharing one uplink under flow, derived by hand; placements; start times and
# iterations; jobs.csv and jobs_links.csv; and the errors of a bad jobs file, each naming
# the file, the job, the key and the value.
set -u
: "${WEFT:?set by make check}" "${WEFT_SRCDIR:?}"
. "$WEFT_SRCDIR/tests/testlib.sh"

# A leaf-spine of 4 GPUs: 2 leaves of 2 GPUs, one spine, one uplink per leaf (2:1 at the
# leaves), every link 100 GB/s per direction and 1 us. An abstract cluster: collectives run
# as plain rings (no protocol costs), one chunk.
cat >"$tmp/ls.ini" <<'EOF'
[cluster]
kind = leaf-spine
gpus = 4
switch_radix = 3
oversubscription = 2:1
link_bandwidth = 100GB/s
link_latency = 1us
EOF
job() { # NAME PLACEMENT [KEY=VALUE...]: a 2-rank all-reduce of 100 MB (1e8 B)
    name=$1 place=$2
    shift 2
    printf '[job.%s]\ncollective = all_reduce\ncollective_bytes = 100MB\ngpus = 2\nplacement = %s\n' "$name" "$place"
    for kv in "$@"; do printf '%s\n' "$kv"; done
}
run() { # JOBS-FILE OUT-DIR: replay under flow
    "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$1" --network flow --out "$2" >"$tmp/out" 2>"$tmp/err"
}

# ---- two jobs, one uplink ----
# interleaved on a cluster without hosts deals GPUs (each its own node) in turn: a gets
# GPUs 0 and 2, b GPUs 1 and 3, so each job's ring crosses leaf0 -> spine0 -> leaf1 and back.
# A ring all-reduce of S = 1e8 B on 2 ranks is 2 (n - 1) = 2 steps; in each, each rank sends
# S / n = 5e7 B to the other over 4 links (gpu, leaf, spine, leaf, gpu): 4 us of latency.
#   alone:    5e7 B / 100 GB/s = 500 us; a step 504 us; the all-reduce 1,008 us.
#   together: leaf0 -> spine0 carries a's flow and b's, max-min fair: 50 GB/s each, so
#             5e7 B / 50 GB/s = 1,000 us; a step 1,004 us; the all-reduce 2,008 us.
#   slowdown 2,008 / 1,008 = 1.992063 for both.
#   bytes on leaf0 -> spine0: per job 2 steps x 5e7 = 1e8; 2e8 in all.
{ job a interleaved; job b interleaved; } >"$tmp/two.jobs"
if run "$tmp/two.jobs" "$tmp/two"; then ok "two interleaved jobs run"; else bad "two jobs: $(cat "$tmp/err")"; fi
grep -q '^step time    2008.000000 us$' "$tmp/out" && ok "step 2,008 us (shared uplink: half the bandwidth each)" ||
    bad "step: $(grep '^step time' "$tmp/out")"
grep -q '^placement    a interleaved GPUs 0,2; b interleaved GPUs 1,3$' "$tmp/out" &&
    ok "interleaved: a on GPUs 0,2, b on 1,3" || bad "placement: $(grep '^placement' "$tmp/out")"
for j in a b; do
    grep -Eq "^job $j +2 ranks, interleaved, start 0.000000 us, 1 iteration: time 2008.000000 us .*alone 1008.000000 us, slowdown 1.9921$" "$tmp/out" &&
        ok "job $j: 2,008 us, alone 1,008 us, slowdown 1.9921" || bad "job $j line: $(grep "^job $j " "$tmp/out")"
done
grep -q '^1,a,2,interleaved,"GPUs 0,2",0.000000,0,2008.000000,2008.000000,2008.000000,1008.000000,1.992063$' "$tmp/two/jobs.csv" &&
    grep -q '^2,b,2,interleaved,"GPUs 1,3",0.000000,0,2008.000000,2008.000000,2008.000000,1008.000000,1.992063$' "$tmp/two/jobs.csv" &&
    ok "jobs.csv: one row per job" || bad "jobs.csv: $(cat "$tmp/two/jobs.csv")"
head -1 "$tmp/two/jobs_links.csv" | grep -q '^edge,kind,from,to,capacity_GBps,wire_bytes,bytes_a,bytes_b,jobs_sum_matches$' &&
    sed -n 2p "$tmp/two/jobs_links.csv" | grep -q '^[0-9]*,generic,leaf0,spine0,100.000000,200000000,100000000,100000000,yes$' &&
    ok "jobs_links.csv: the uplink first, 1e8 bytes of each job" || bad "jobs_links.csv: $(head -3 "$tmp/two/jobs_links.csv")"
[ "$(grep -c ',no$' "$tmp/two/jobs_links.csv")" -eq 0 ] && ok "each link's job bytes add up to its bytes" ||
    bad "job bytes do not add up: $(grep ',no$' "$tmp/two/jobs_links.csv")"
# a job's collectives stay in its own communicators
grep -Eq '^  #[12] +a/0:0 +all_reduce' "$tmp/out" && grep -Eq '^  #[12] +b/0:0 +all_reduce' "$tmp/out" &&
    ok "communicators a/0 and b/0" || bad "communicators: $(grep 'all_reduce' "$tmp/out")"

# ---- packed: no link shared ----
# a on GPUs 0, 1 (leaf0), b on 2, 3 (leaf1): each ring stays under its leaf, 2 links of 1 us:
# a step 2 + 500 = 502 us, the all-reduce 1,004 us, alone or not: slowdown 1.
{ job a packed; job b packed; } >"$tmp/packed.jobs"
if run "$tmp/packed.jobs" "$tmp/packed"; then ok "two packed jobs run"; else bad "packed: $(cat "$tmp/err")"; fi
grep -q '^placement    a packed GPUs 0-1; b packed GPUs 2-3$' "$tmp/out" && ok "packed: a on GPUs 0-1, b on 2-3" ||
    bad "packed placement: $(grep '^placement' "$tmp/out")"
grep -Eq '^job a +.*time 1004.000000 us .*alone 1004.000000 us, slowdown 1.0000$' "$tmp/out" &&
    grep -Eq '^job b +.*time 1004.000000 us .*alone 1004.000000 us, slowdown 1.0000$' "$tmp/out" &&
    ok "packed: 1,004 us each, slowdown 1" || bad "packed jobs: $(grep '^job ' "$tmp/out")"
grep -q '"spine0"' "$tmp/packed/jobs_links.csv" && bad "packed: a link to the spine carried bytes" ||
    ok "packed: nothing crosses the spine"

# ---- a later start and iterations ----
# a runs 2 iterations from 0, b one from 1,008 us: a's first all-reduce runs alone
# [0, 1,008]; at 1,008 us a's second and b's start together and share the uplink: both end
# at 1,008 + 2,008 = 3,016 us. a: time 3,016 us, alone 2 x 1,008 = 2,016 us, slowdown
# 1.496032; b: time 3,016 - 1,008 = 2,008 us, alone 1,008 us, slowdown 1.992063. b's ranks
# are idle until they start: idle 1,008 us, compute 0.
{ job a interleaved iterations=2; job b interleaved start=1008us; } >"$tmp/later.jobs"
if run "$tmp/later.jobs" "$tmp/later"; then ok "start and iterations run"; else bad "later: $(cat "$tmp/err")"; fi
grep -q '^1,a,2,interleaved,"GPUs 0,2",0.000000,0,1008.000000,1008.000000,3016.000000,2016.000000,1.496032$' "$tmp/later/jobs.csv" &&
    grep -q '^1,a,2,interleaved,"GPUs 0,2",0.000000,1,3016.000000,2008.000000,3016.000000,2016.000000,1.496032$' "$tmp/later/jobs.csv" &&
    grep -q '^2,b,2,interleaved,"GPUs 1,3",1008.000000,0,3016.000000,2008.000000,2008.000000,1008.000000,1.992063$' "$tmp/later/jobs.csv" &&
    ok "jobs.csv: a's iterations end at 1,008 and 3,016 us, b at 3,016 us" || bad "later jobs.csv: $(cat "$tmp/later/jobs.csv")"
grep -q '^2,1,3016.000000,0.000000,2008.000000,1008.000000,,$' "$tmp/later/ranks.csv" &&
    ok "b's rank waits idle until its start" || bad "later ranks.csv: $(cat "$tmp/later/ranks.csv")"
[ "$(sed -n 2p "$tmp/later/jobs_links.csv" | cut -d, -f6-9)" = "300000000,200000000,100000000,yes" ] &&
    ok "uplink: a's 2 iterations 2e8 bytes, b's 1e8" || bad "later links: $(sed -n 2p "$tmp/later/jobs_links.csv")"

# ---- alone = false ----
{ printf '[jobs]\nalone = false\n'; job a interleaved; job b interleaved; } >"$tmp/noalone.jobs"
if run "$tmp/noalone.jobs" "$tmp/noalone"; then ok "alone = false runs"; else bad "noalone: $(cat "$tmp/err")"; fi
grep -q 'slowdown' "$tmp/out" && bad "alone = false still runs alone" || ok "alone = false: no slowdown"

# ---- spread over nodes, workload.jobs_placement ----
# 2 DGX H100 (GPUs 0-7 on node0, 8-15 on node1): spread deals one GPU of each node in turn.
cat >"$tmp/dgx2.ini" <<'EOF'
[cluster]
kind = dgx-h100
nodes = 2
fabric = rail-optimized
EOF
printf '[job.a]\ncollective = all_reduce\ncollective_bytes = 1MB\ngpus = 4\nplacement = spread\n[job.b]\ncollective = all_reduce\ncollective_bytes = 1MB\ngpus = 4\n' >"$tmp/spread.jobs"
expect 0 "spread" "" -- "$WEFT" replay --cluster "$tmp/dgx2.ini" --jobs "$tmp/spread.jobs" --quiet
expect 0 "spread placement" "" -- "$WEFT" replay --cluster "$tmp/dgx2.ini" --jobs "$tmp/spread.jobs"
grep -q '^placement    a spread GPUs 0,8,1,9; b packed GPUs 2-5$' "$tmp/out" && ok "spread: a on GPUs 0,8,1,9; b packed after it" ||
    bad "spread placement: $(grep '^placement' "$tmp/out")"
expect 0 "workload.jobs_placement" "" -- "$WEFT" replay --cluster "$tmp/dgx2.ini" --jobs "$tmp/spread.jobs" --set workload.jobs_placement=interleaved
grep -q '^placement    a interleaved GPUs 0-3; b interleaved GPUs 8-11$' "$tmp/out" && ok "interleaved by nodes: a node0, b node1" ||
    bad "interleaved placement: $(grep '^placement' "$tmp/out")"

# ---- one job is the plain replay ----
# A lone packed job is the workload on GPUs 0, 1, ... as `--gen` runs it: the same step to
# the picosecond; starting 1 ms later moves its end by 1 ms exactly; 2 iterations of a step
# whose ranks all end together (tp = 8 on one node: the last collective joins them) take
# twice its time, each iteration as long as the step.
dgx="$WEFT_SRCDIR/topologies/dgx-h100.ini"
expect 0 "gpt3-1.3b with --gen" "" -- "$WEFT" replay --cluster "$dgx" --gen model=gpt3-1.3b,tp=8 --quiet
plain=$(sed -n 's/^step time    \([0-9.]*\) us$/\1/p' "$tmp/out")
printf '[job.a]\ngen = model=gpt3-1.3b,tp=8\n' >"$tmp/one.jobs"
expect 0 "gpt3-1.3b as one job" "" -- "$WEFT" replay --cluster "$dgx" --jobs "$tmp/one.jobs" --quiet
[ -n "$plain" ] && [ "$(cat "$tmp/out")" = "step time    $plain us" ] && ok "one job: the plain replay's step ($plain us)" ||
    bad "one job: $(cat "$tmp/out") against $plain"
printf '[job.a]\ngen = model=gpt3-1.3b,tp=8\nstart = 1ms\niterations = 2\n' >"$tmp/one.jobs"
expect 0 "one job, later, twice" "" -- "$WEFT" replay --cluster "$dgx" --jobs "$tmp/one.jobs" --out "$tmp/one"
rows=$(awk -F, -v p="$plain" 'NR > 1 { d = $9 - p; if (d < 0) d = -d; if (d < 1e-6) n++ } END { print n + 0 }' "$tmp/one/jobs.csv")
end=$(sed -n 's/^step time    \([0-9.]*\) us$/\1/p' "$tmp/out")
[ "$rows" = 2 ] && awk -v e="$end" -v p="$plain" 'BEGIN { d = e - (1000 + 2 * p); exit !(d < 1e-5 && d > -1e-5) }' &&
    ok "from 1 ms, 2 iterations: each $plain us, the end at 1000 + 2 x $plain us" ||
    bad "later, twice: step $end, jobs.csv $(cat "$tmp/one/jobs.csv")"

# ---- errors: the file, the job, the key and the value ----
j="$tmp/bad.jobs"
printf '0\n1\n' >"$tmp/a.placement"
printf '1\n3\n' >"$tmp/b.placement"
{ job a file placement_file=a.placement; job b file placement_file=b.placement; } >"$j"
expect 1 "overlapping GPUs" "bad.jobs: \[job.b\] placement_file = \".*b.placement\": rank 0 is on GPU 1 \(gpu1\), which job a has" -- \
    "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
{ job a packed; job b packed collective_ranks=3; } >"$j"
expect 1 "more ranks than free GPUs" "bad.jobs: \[job.b\] placement = packed: the job has 3 ranks and 2 of the cluster's 4 GPUs are free" -- \
    "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
{ job a interleaved; job b interleaved collective_ranks=3; } >"$j"
expect 1 "interleaved jobs that do not fit" "bad.jobs: \[job.b\] placement = interleaved: the job has 3 ranks and got 2 GPUs" -- \
    "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
{ job a diagonal; } >"$j"
expect 1 "unknown placement" "bad.jobs: \[job.a\] placement = \"diagonal\": .*packed, spread, interleaved, file" -- \
    "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
{ job a packed start=-1ms; } >"$j"
expect 1 "negative start" "bad.jobs: \[job.a\] start = \"-1ms\": expected a time from 0" -- "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
{ job a packed start=5; } >"$j"
expect 1 "start without a unit" "bad.jobs: \[job.a\] start = \"5\": expected a time" -- "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
{ job a packed iterations=0; } >"$j"
expect 1 "iterations 0" "bad.jobs: \[job.a\] iterations = \"0\": expected a whole number from 1" -- "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
{ job a packed colour=red; } >"$j"
expect 1 "unknown key" "bad.jobs: \[job.a\] colour = \"red\": unknown key; valid keys: placement" -- "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
{ job a file; } >"$j"
expect 1 "placement = file without its file" "bad.jobs: \[job.a\] placement = file needs placement_file" -- "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
printf '[job.a]\nplacement = packed\n' >"$j"
expect 1 "a job without workload" "bad.jobs: \[job.a\]: no workload" -- "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
{ job a packed; printf 'gen = model=gpt3-1.3b\n'; } >"$j"
expect 1 "two workloads in one job" "bad.jobs: \[job.a\] collective and gen both describe the job's workload" -- "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
printf '[jobz]\n' >"$j"
expect 1 "unknown group" "bad.jobs: \[jobz\]: unknown group" -- "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
printf '[job.a]\ngen = model=gpt3-1.3b,tp=8\n' >"$j"
expect 1 "gen without gpus nor dp on a small cluster" "bad.jobs: \[job.a\]" -- "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$j"
expect 1 "jobs and a trace" "workload.jobs = .* and workload.trace both describe the workload" -- \
    "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$tmp/two.jobs" --trace x
expect 1 "jobs_placement = file" "workload.jobs_placement = \"file\"" -- \
    "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$tmp/two.jobs" --set workload.jobs_placement=file
expect 1 "a missing jobs file" "jobs file .*missing.jobs" -- "$WEFT" replay --cluster "$tmp/ls.ini" --jobs "$tmp/missing.jobs"

# Per-layer accounting of several jobs (layers.csv): each job's layers under its name, its
# TP collectives counted as tp (its communicators are "a/tp.0")
printf '[job.a]\ngen = model=gpt3-1.3b,tp=4\ngpus = 4\n[job.b]\ngen = model=gpt3-1.3b,tp=4\ngpus = 4\niterations = 2\n' >"$tmp/two-gen.jobs"
expect 0 "two generated jobs with --out" "" -- "$WEFT" replay --cluster "$dgx" --jobs "$tmp/two-gen.jobs" --quiet --out "$tmp/two-gen"
grep -q '^[0-9]*,a/layer\.0,forward,4,' "$tmp/two-gen/layers.csv" && grep -q '^[0-9]*,b/layer\.23,igrad,4,' "$tmp/two-gen/layers.csv" &&
    ok "layers.csv names each job's layers" || bad "layers.csv: job layers"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         $2 == "a/embedding" && $3 == "forward" { found = 1; if ($c["exposed_other_us"] != 0 || $c["exposed_tp_us"] <= 0) bad = 1 }
         END { exit !(found && !bad) }' "$tmp/two-gen/layers.csv" &&
    ok "a job's TP collectives count as tp" || bad "a job's TP collectives not tp"
# that run was analytical: it says that jobs on their own GPUs cannot slow each other there
grep -q "warning: several jobs under the analytical model, which shares only the endpoints' ports" "$tmp/err" &&
    ok "jobs under analytical: the summary says flow shares the links" || bad "jobs under analytical: no warning"
# a job given twice is an error with its lines (GKeyFile alone merged the two groups)
printf '[job.a]\ngen = model=gpt3-1.3b,tp=4\n[job.a]\ngen = model=gpt3-1.3b,tp=8\n' >"$tmp/twice.jobs"
expect 1 "a job given twice" "twice.jobs: line 3: group \\[job.a\\] appears twice \\(first on line 1\\)" -- \
    "$WEFT" replay --cluster "$dgx" --jobs "$tmp/twice.jobs"

finish jobs_cli
