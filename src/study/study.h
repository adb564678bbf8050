/* SPDX-License-Identifier: MIT */
/*
 * Studies: the same workload over many variants of a scenario, in one command.
 *
 * A study file is an INI file (read with weft_keyfile_load_file(), so a key set
 * twice is an error) with one [study] group and, optionally, scenario groups:
 *
 *     [study]
 *     scenario = ../scenarios/dp-step-dgx-h100.ini   # base; relative to this file
 *     axis.spine = cluster.oversubscription: 1:1, 2:1, 4:1, 8:1
 *     axis.chunks = collectives.chunks: range 1 8 1
 *     axis.bw = cluster.link_bandwidth: log 50GB/s 800GB/s x2
 *     mode = cartesian                                # or zip
 *     metrics = step_time_us, exposed_comm_us_max
 *     results = spine.csv                             # relative to this file
 *
 *     [cluster]                                       # inline base overrides
 *     nodes = 8
 *
 * The base scenario is `scenario` (optional), then every key of the study's
 * scenario groups in file order. An axis `axis.NAME = GROUP.KEY: VALUES` sets
 * one scenario key; VALUES is a list `a, b, c` (values as a scenario file
 * would take them), `range START STOP STEP` (START, START + STEP, ... up to
 * and including STOP) or `log START STOP xF` (START, START F, START F^2, ... up
 * to and including STOP). Range and log bounds may carry one unit suffix,
 * the same on START and STOP (and STEP), which every value keeps: `log
 * 50GB/s 800GB/s x2` is 50GB/s, 100GB/s, 200GB/s, 400GB/s, 800GB/s. Generated
 * numbers are printed with %.15g, so 0.1 steps give 0.3, not
 * 0.30000000000000004; the inclusive end allows a relative slack of 1e-9.
 * Values of path keys (those a scenario resolves to absolute paths) are
 * relative to the study file, like the study's own scenario groups.
 *
 * The grid: `mode = cartesian` (default) is the product of the axes, in grid
 * order with the last axis varying fastest; `mode = zip` takes the i-th value
 * of every axis for point i (all axes must have the same length). Point i is
 * the base scenario with the point's axis values set on top
 * (weft_scenario_set_value()), in axis order.
 *
 * Everything is checked before any point runs: the base loads; every value of
 * every axis is set on a scratch scenario (base + first value of every axis),
 * which then passes weft_scenario_check(); for an axis over a [cluster] key,
 * whose values the cluster builders check, the cluster of each value is built
 * once. Any failure is a WEFT_STUDY_ERROR_AXIS naming the study file, the
 * axis, its key and the value. A combination of values that only fails
 * together (a fabric too big for its radix at 8 nodes but not at 4) is a failed
 * point: recorded with its error, and the study goes on.
 *
 * Results: one CSV row per point, in grid order: `point` (the index, from 0),
 * one column per axis named `NAME:GROUP.KEY` holding the value as written, the
 * metrics (weft_study_metric_names(); units in the names), then `status` (ok
 * or error) and `error` (the message of a failed point, quoted as RFC 4180
 * says; its metric cells are empty). Times in microseconds are printed with
 * %.6f (the replay's times are whole picoseconds, so this is exact for the
 * step and the per-rank maxima and minima; means are rounded to the
 * picosecond), counts as integers. A row depends only on its point, so the CSV
 * is byte-identical for any -j and any resume history.
 *
 * Training-run studies: when the `scenario` file is a `weft train`
 * configuration (it has a [train] or [failures] group; job/job.h,
 * doc/failures.md), or when there is no `scenario` and the study's own groups
 * are [train] or [failures], the base is that configuration
 * (weft_job_config_load(), then the study's groups) and the axes are over its
 * keys (train.checkpoint_interval, failures.mtbf_gpu, ...). The checks are the
 * same, with weft_job_config_resolve() as the cross-key check; a point resolves
 * its configuration and runs weft_job_monte_carlo() at its checkpoint interval
 * (with `auto`, weft_job_search() and its best interval), as `weft train` does,
 * in one thread per point (train.threads is ignored: the samples do not depend
 * on it). Its metrics are weft_study_train_metric_names().
 *
 * Parallel runs: points run on a GThreadPool of `jobs` threads, each with its
 * own scenario, workload, fabric state and simulation (weft keeps no global
 * mutable state; igraph, which on Debian 12 is built without thread-local
 * storage, is serialized inside topo: see weft_topo_i_igraph_lock()). Points
 * whose effective [cluster] configuration is the same (the same keys and
 * values, the same cluster.file) share one cluster, built once before the
 * threads start and freed when the last of them is done: a finalized cluster
 * is read only (topo/topo.h), and what a run changes about it is the run's
 * own fabric state (topo/fabric.h). An axis over a [cluster] key builds one
 * cluster per distinct value; a point alone with its cluster builds it in its
 * own thread.
 *
 * Journal and resume: each finished row is appended to RESULTS.partial and
 * flushed at once (one write per row), after a first line `# weft sweep
 * journal study=HASH points=N shard=K/N`. HASH is the SHA-256 of the study's
 * effective definition: the base scenario's effective configuration
 * (weft_scenario_to_ini(), paths absolute, weft version included), the mode,
 * every axis with its key and expanded values, and the metrics. A journal
 * whose hash or shard differs is refused (WEFT_STUDY_ERROR_JOURNAL); so is an
 * existing journal without `resume`. With `resume`, the journal's complete
 * rows are kept (a torn last line is dropped) and only the other points run.
 * When every point of the shard is done, the CSV is written to a temporary
 * name and renamed over RESULTS, and the journal is removed.
 *
 * Shards: shard K of N (1 <= K <= N) holds the points i with i mod N = K - 1
 * (round-robin, so neighbouring points, which often cost alike, spread over
 * the shards). A shard's CSV opens with a comment line `# weft sweep shard
 * study=HASH points=TOTAL shard=K/N`; weft_study_merge() checks that the shards
 * share the hash, the total and the header, that no point appears twice and
 * that none is missing, and writes the rows in grid order: the unsharded CSV,
 * byte for byte. An unsharded CSV has no comment line.
 */
#ifndef WEFT_STUDY_STUDY_H
#define WEFT_STUDY_STUDY_H

#include <glib.h>

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
    gboolean progress;  /* print progress to stderr (the caller checks isatty) */
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
