/* SPDX-License-Identifier: MIT */
/*
 * Studies: the same workload over many variants of a scenario, in one command.
 * doc/studies.md is the user's description (file format, axes, grid, journal,
 * shards, training-run studies); this is the contract.
 *
 *     [study]
 *     scenario = ../scenarios/dp-step-dgx-h100.ini   # base; relative to this file
 *     axis.spine = cluster.oversubscription: 1:1, 2:1, 4:1, 8:1
 *     axis.bw = cluster.link_bandwidth: log 50GB/s 800GB/s x2
 *     mode = cartesian                                # or zip
 *     metrics = step_time_us, exposed_comm_us_max
 *
 * - The [study] keys are a key table (core/keyfile.h); an axis `axis.NAME =
 *   GROUP.KEY: VALUES` (a list, `range START STOP STEP` or `log START STOP xF`,
 *   inclusive, one unit suffix kept by every value) sets one key of the base.
 * - Grid: cartesian (the last axis fastest) or zip. Point i is the base with
 *   its axis values set on top, in axis order (weft_scenario_set_value()).
 * - Everything is checked before any point runs (every value of every axis;
 *   the cluster of each [cluster] value is built once): WEFT_STUDY_ERROR_AXIS
 *   names the file, axis, key and value. A combination that only fails
 *   together is a failed point (status error), and the study goes on.
 * - Results: one CSV row per point in grid order: point, one column per axis
 *   (`NAME:GROUP.KEY`), the metrics (study/metrics.c: a table of name, unit and
 *   accessor), status, error. A row depends only on its point: the CSV is
 *   byte-identical for any -j, resume history and sharding.
 * - Training-run studies: a `weft train` configuration as the base (job/job.h);
 *   each point runs its Monte Carlo (weft_study_train_metric_names()).
 * - Threads: points run on a GThreadPool of `jobs` threads, each with its own
 *   scenario, workload, fabric state (topo/fabric.h) and simulation. Points
 *   with the same effective [cluster] configuration share one read-only
 *   cluster, built once before the threads start.
 * - Journal: finished rows are appended to RESULTS.partial at once, stamped
 *   with the SHA-256 of the study's effective definition; a foreign journal is
 *   refused, `resume` keeps its complete rows. Shard K of N holds the points
 *   i with i mod N = K - 1; weft_study_merge() rebuilds the unsharded CSV.
 */
#ifndef WEFT_STUDY_STUDY_H
#define WEFT_STUDY_STUDY_H

#include <glib.h>

#include "core/progress.h"

G_BEGIN_DECLS

#define WEFT_STUDY_ERROR (weft_study_error_quark())
GQuark weft_study_error_quark(void);

typedef enum {
    WEFT_STUDY_ERROR_IO,      /* a file cannot be read or written */
    WEFT_STUDY_ERROR_PARSE,   /* not INI, or a malformed [study] line or axis */
    WEFT_STUDY_ERROR_KEY,     /* an unknown [study] key or metric; a missing key; output.dir set */
    WEFT_STUDY_ERROR_BASE,    /* the base scenario does not load */
    WEFT_STUDY_ERROR_AXIS,    /* an axis over an unknown key, or a value that does not parse */
    WEFT_STUDY_ERROR_JOURNAL, /* a journal of another study or shard; a journal without resume */
    WEFT_STUDY_ERROR_MERGE,   /* shard CSVs that do not fit together */
    WEFT_STUDY_ERROR_USAGE,   /* bad options: shard K/N out of range, jobs 0 */
} weft_study_error_t;

typedef struct weft_study weft_study_t;

/**
 * weft_study_load:
 * Reads, expands and checks the study file @path (see the essay above). No
 * point runs. Time complexity: O(values x base load) plus one cluster build
 * per value of each [cluster] axis.
 * @error: WEFT_STUDY_ERROR_* naming the study file, the axis, key and value.
 * Returns: (transfer full): the study, or NULL.
 */
weft_study_t *weft_study_load(const char *path, GError **error);

/** weft_study_free: NULL is a no-op. */
void weft_study_free(weft_study_t *st);

/** weft_study_n_points: points in the grid. */
guint weft_study_n_points(const weft_study_t *st);

/** weft_study_hash: (transfer none): the SHA-256 of the effective definition, 64 hex digits. */
const char *weft_study_hash(const weft_study_t *st);

/**
 * weft_study_results_path: (transfer none): the CSV path from `results`
 * (relative to the study file), else the study file's name with `.ini`
 * replaced by `.csv`, beside it.
 */
const char *weft_study_results_path(const weft_study_t *st);

/**
 * weft_study_point_text:
 * Returns: (transfer full): point @i as `NAME=VALUE NAME=VALUE ...`, for messages.
 */
char *weft_study_point_text(const weft_study_t *st, guint i);

/**
 * weft_study_metric_names:
 * Returns: (transfer none): the NULL-terminated list of metrics a study may
 * record: step_time_us; {finish,compute,exposed_comm,overlapped_comm,idle}_us
 * with _max, _mean, _min over ranks; and the counts ranks, gpus, vertices,
 * links (directed), nodes, collectives, p2p_transfers, events.
 */
const char *const *weft_study_metric_names(void);

/**
 * weft_study_train_metric_names:
 * Returns: (transfer none): the NULL-terminated list of metrics a training-run
 * study (see above) may record: goodput_pct_{mean,ci95_lo,ci95_hi,median,min};
 * e2e_days_{mean,ci95_lo,ci95_hi,median,p90}; interruptions_{mean,p90};
 * {lost_work,checkpoint,restart,slowdown}_h_mean; steps_done_mean; the
 * parameters checkpoint_interval_steps (the interval run: the best one when
 * checkpoint_interval = auto), checkpoint_interval_s, step_time_s,
 * checkpoint_write_s, restart_s, system_mtbf_h, young_interval_steps,
 * daly_interval_steps, samples.
 */
const char *const *weft_study_train_metric_names(void);

/** Options of weft_study_run(); zero-initialize, then set what differs. */
typedef struct {
    guint jobs;         /* threads; 0: g_get_num_processors() */
    const char *output; /* CSV path; NULL: weft_study_results_path() */
    gboolean resume;    /* keep the rows of an existing journal */
    guint shard_k;      /* 1..shard_n; 0: the whole grid */
    guint shard_n;      /* number of shards; 0: the whole grid */
    /* (nullable) progress reporter (core/progress.h): points done of the shard, failed,
     * running; not freed */
    weft_progress_t *progress;
    guint stop_after;   /* test hook: stop once this many rows were journaled; 0: never */
} weft_study_options_t;

/** What weft_study_run() did. */
typedef struct {
    guint points;  /* points in this shard (or the grid) */
    guint resumed; /* rows taken from the journal */
    guint ran;     /* points run now */
    guint failed;  /* rows with status error, journal included */
    gboolean done; /* every point has a row and the CSV was written */
} weft_study_stats_t;

/**
 * weft_study_run:
 * Runs the points of the grid (or of one shard) that the journal does not
 * hold, appending each row to OUTPUT.partial as it finishes, then writes
 * OUTPUT (temporary name, then rename) in grid order and removes the journal.
 * A point that fails is a row with status error; it does not fail the study.
 * Before the threads start, the points to run that share an effective
 * [cluster] configuration get one cluster, built once (see the essay); the
 * rows are the same as with a cluster per point.
 * @stats: (out) (nullable): what was done.
 * @error: WEFT_STUDY_ERROR_JOURNAL, _IO or _USAGE.
 * Returns: TRUE unless the study could not run or write (stop_after stopping
 *   early returns TRUE with stats->done FALSE).
 */
gboolean weft_study_run(weft_study_t *st, const weft_study_options_t *opts,
                        weft_study_stats_t *stats, GError **error);

/**
 * weft_study_merge:
 * Joins shard CSVs (written with shard options) into the study's CSV in grid
 * order, written to a temporary name then renamed to @output.
 * @inputs: NULL-terminated list of shard CSV paths.
 * @error: WEFT_STUDY_ERROR_MERGE naming the file and the points missing or
 *   duplicated, or a hash, total or header that differs; WEFT_STUDY_ERROR_IO.
 */
gboolean weft_study_merge(const char *const *inputs, const char *output, GError **error);

/**
 * weft_study_parse_shard:
 * Parses "K/N" with 1 <= K <= N <= 2^20.
 * @error: WEFT_STUDY_ERROR_USAGE quoting @text.
 */
gboolean weft_study_parse_shard(const char *text, guint *k, guint *n, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_study_t, weft_study_free)

G_END_DECLS

#endif /* WEFT_STUDY_STUDY_H */
