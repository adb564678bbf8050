/* SPDX-License-Identifier: MIT */
/*
 * Several jobs on one fabric: two or more workloads, each on its own GPUs, sharing the
 * cluster's links (doc/replay.md, "Several jobs on one fabric").
 *
 * A jobs file (GKeyFile INI) has one group [job.NAME] per job, in the order jobs are
 * numbered (1, 2, ...), and an optional [jobs] group:
 *
 *     [jobs]
 *     alone = true
 *     [job.a]
 *     gen = model=gpt3-13b,tp=8,pp=2,dp=2
 *     placement = packed
 *     start = 0us
 *     iterations = 1
 *
 * [jobs] alone: also run each job alone, for its slowdown (default true). A job: `gen`
 * (or trace = PREFIX, or collective = ...); placement = packed | spread | interleaved |
 * file (then placement_file = PATH, one GPU a line); start, a time with its unit, when
 * its ranks begin; iterations, its step run that many times back to back. As in every
 * weft INI file, '#' starts a comment only at the start of a line.
 *
 * A job's workload is described by the [workload] keys of a scenario (trace, comm_groups,
 * pg_size, replicate, collective, collective_bytes, collective_iterations,
 * collective_ranks) or by `gen`, the [transformer] keys as weft replay --gen takes them;
 * `gpus = N` sizes a generated step whose dp is unset (dp = N / (tp pp cp)) and a
 * collective without collective_ranks. Relative paths are relative to the jobs file.
 *
 * Placement, in this order: jobs with placement = file take the GPUs their file names;
 * then the interleaved jobs are dealt whole free nodes in turn (node by node, skipping a
 * job that has enough), each filling its ranks from its nodes' GPUs in order; then, in
 * file order, a packed job takes the lowest-numbered free GPUs and a spread job takes
 * free GPUs round-robin over the nodes (one GPU of each node with a free one, then the
 * next). A GPU given twice or more ranks than free GPUs is an error naming the file, the
 * job, the key and the value.
 *
 * The run merges the jobs into one workload: job j's ranks follow job j-1's (its rank r
 * is merged rank base_j + r), its communicators become "NAME/pg" over the merged ranks
 * (communicators of two jobs never mix; the merged world, communicator 0, is used by no
 * collective), its sends' peers are offset the same way. A job with start > 0 has its
 * ranks' first nodes released at its start (weft_replay_options_t.rank_start_ps): its
 * GPUs are idle until then. A job of N > 1 iterations repeats its rank's nodes N times; the
 * first nodes of iteration k+1 of a rank depend on a zero-time "iteration k end" node
 * that depends on the last nodes of iteration k of that rank: a rank begins its next
 * step when it has finished its own previous one, as a training loop does (the
 * collectives, matched per communicator in order, synchronise the ranks as they would).
 * A job's iteration k ends when the last of its ranks passes that node.
 *
 * Results per job: the end of each iteration, its time (end of the last iteration minus
 * its start) and, when run alone (the same GPUs, start and iterations, the other jobs
 * absent), its time alone and the slowdown = time / time alone. Per directed link, the
 * bytes it carried, and each job's bytes: those it carried when the job ran alone. On a
 * fixed route the bytes a job moves do not depend on the traffic beside it, nor do ECMP
 * paths (hashed per pair of GPUs, and a pair belongs to one job), so the per-job bytes
 * add up to the total (jobs_links.csv checks it in its last column).
 */
#ifndef WEFT_SCENARIO_JOBS_H
#define WEFT_SCENARIO_JOBS_H

#include <glib.h>

#include "core/keyfile.h"
#include "net/net.h"
#include "replay/replay.h"
#include "topo/topo.h"
#include "workload/workload.h"

G_BEGIN_DECLS

typedef struct weft_jobs weft_jobs_t;

/* The placement policies of a job (workload.jobs_placement, a job's placement key). */
typedef enum {
    WEFT_JOBS_PACKED,
    WEFT_JOBS_SPREAD,
    WEFT_JOBS_INTERLEAVED,
    WEFT_JOBS_FILE,
} weft_jobs_place_t;

/* packed, spread, interleaved, file */
extern const weft_enum_t weft_jobs_place_enum;

/**
 * weft_jobs_load:
 * Reads and checks jobs file @path (see the essay). No workload is loaded yet.
 * @path: the jobs file.
 * @placement: (nullable): a placement for every job instead of the file's
 *   (workload.jobs_placement; packed, spread or interleaved); NULL: the file's.
 * @error: WEFT_SCENARIO_ERROR_IO (unreadable), _PARSE (not INI), _KEY (no job, an
 *   unknown group or key, a workload described twice or not at all, placement = file
 *   without placement_file), _VALUE (a bad placement, start, iterations, gpus or gen);
 *   each names the file, the job, the key and the value.
 * Returns: (transfer full): the jobs, or NULL. O(keys).
 */
weft_jobs_t *weft_jobs_load(const char *path, const char *placement, GError **error);

/** weft_jobs_free: NULL is a no-op. */
void weft_jobs_free(weft_jobs_t *jobs);

/** weft_jobs_n: how many jobs the file has. */
guint weft_jobs_n(const weft_jobs_t *jobs);

/** weft_jobs_alone_wanted: TRUE when the jobs are also to be run alone ([jobs] alone). */
gboolean weft_jobs_alone_wanted(const weft_jobs_t *jobs);

/**
 * weft_jobs_build:
 * Loads every job's workload on @topo, places them all (see the essay), and merges into
 * one workload the jobs that run: every job, or only job @only.
 * @topo: the cluster.
 * @only: -1: every job; else the index of the one job to run (its GPUs are those it has
 *   among all jobs).
 * @wl: (out) (transfer full): the merged workload; its nodes' names point into the
 *   jobs' own workloads, which @jobs keeps: free @wl before @jobs.
 * @rank_gpu: (out) (transfer full): merged rank -> GPU number, free with g_free().
 * @label: (out) (transfer full): "jobs FILE: a (LABEL), b (LABEL)".
 * @placement: (out) (transfer full): "a packed GPUs 0-31, b interleaved ...".
 * @error: the loaders' errors and WEFT_SCENARIO_ERROR_VALUE for a placement that does
 *   not fit, prefixed with the file and [job.NAME].
 * Returns: FALSE on error. O(jobs' nodes x iterations + GPUs).
 */
gboolean weft_jobs_build(weft_jobs_t *jobs, const weft_topo_t *topo, gint only,
                         weft_workload_t **wl, guint **rank_gpu, char **label, char **placement,
                         GError **error);

/**
 * weft_jobs_rank_start:
 * Returns: (transfer none) (nullable): after weft_jobs_build(), per merged rank the time
 *   (ps) its job starts, for weft_replay_options_t.rank_start_ps; NULL when every job
 *   starts at 0. Owned by @jobs.
 */
const weft_time_t *weft_jobs_rank_start(const weft_jobs_t *jobs);

/**
 * weft_jobs_observer:
 * An observer that records the jobs' iteration ends and passes every call on to @next.
 * @next: (nullable): the observer to call too (not owned; alive until the run returns).
 * Returns: (transfer none): owned by @jobs, valid until the next call or its free; @next
 *   itself when no running job has several iterations (nothing to watch). O(jobs).
 */
const weft_replay_observer_t *weft_jobs_observer(weft_jobs_t *jobs,
                                                 const weft_replay_observer_t *next);

/**
 * weft_jobs_finish:
 * Takes the results of the merged run @res on @net: each running job's iteration ends
 * and time, and every directed link's bytes. O(ranks + links).
 */
void weft_jobs_finish(weft_jobs_t *jobs, const weft_net_t *net, const weft_replay_result_t *res);

/**
 * weft_jobs_set_alone:
 * Records, as job @j's run alone, the results of @alone (the same jobs file, built with
 * only = @j and finished). O(links).
 */
void weft_jobs_set_alone(weft_jobs_t *jobs, guint j, const weft_jobs_t *alone);

/** weft_jobs_name: (transfer none): job @j's name (NAME of [job.NAME]). */
const char *weft_jobs_name(const weft_jobs_t *jobs, guint j);

/** weft_jobs_time_ps: job @j's time: the end of its last iteration minus its start. */
weft_time_t weft_jobs_time_ps(const weft_jobs_t *jobs, guint j);

/** weft_jobs_slowdown: job @j's time over its time alone; NAN when not run alone. */
double weft_jobs_slowdown(const weft_jobs_t *jobs, guint j);

/**
 * weft_jobs_summary:
 * Returns: (transfer full): the summary's jobs section: per job its ranks, placement,
 *   start, iterations, time, mean iteration, time alone and slowdown; then the 5 links
 *   that carried the most bytes, with each job's share.
 */
char *weft_jobs_summary(const weft_jobs_t *jobs);

/**
 * weft_jobs_csv:
 * Returns: (transfer full): jobs.csv (doc/outputs.md): one row per job and iteration.
 */
char *weft_jobs_csv(const weft_jobs_t *jobs);

/**
 * weft_jobs_links_csv:
 * Returns: (transfer full): jobs_links.csv (doc/outputs.md): every directed link that
 *   carried bytes, most bytes first (ties by edge id), with each job's bytes.
 */
char *weft_jobs_links_csv(const weft_jobs_t *jobs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_jobs_t, weft_jobs_free)

G_END_DECLS

#endif /* WEFT_SCENARIO_JOBS_H */
