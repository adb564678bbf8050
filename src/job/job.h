/* SPDX-License-Identifier: MIT */
/*
 * A whole training run (`weft train`): steps, checkpoints, failures, restarts.
 *
 * Model. The run has N steps of T seconds each (given, or the step time of a
 * scenario replay). After every K steps it writes a checkpoint that takes
 * delta = checkpoint size / storage write bandwidth; training stops while it
 * is written (synchronous checkpointing). A checkpoint is written after steps
 * K, 2K, ..., floor(N / K) K; none is written after the last N mod K steps, so
 * without failures
 *
 *   wall = N T + floor(N / K) delta.                                   (1)
 *
 * Failures arrive in wall-clock time from per-component rates over every
 * component of the cluster (fault/rates.h), whatever the job is doing. A
 * failure at time t_f loses everything since the end of the last completed
 * checkpoint (the steps since, and a checkpoint being written, which does not
 * count), then costs a restart
 *
 *   R = detection + rescheduling + checkpoint size / storage read bandwidth,
 *
 * after which the job resumes from that checkpoint. A failure during a restart
 * starts the restart again (and is an interruption too). A segment that ends
 * exactly when a failure arrives completes. The wall time splits exactly into
 *
 *   wall = useful (N T) + checkpoint writes + lost work + restarts + slowdown,
 *
 * goodput = useful / wall. With a fixed wall-clock span instead of N (the
 * "54 days" of a failure study), the run stops at that instant and useful is
 * the step time done by then (steps since the last checkpoint included).
 *
 * Degrading faults (fault/rates.h: a link down awaiting repair) slow steps
 * instead of stopping them: the job asks a step-time provider for the step time
 * under the fault (weft_job_step_time_fn) and runs every step that starts while
 * the fault lasts at that time (the largest, when several overlap); checkpoint
 * writes and restarts are not slowed. Without a provider such faults are
 * counted and ignored, and the report says so.
 *
 * Checkpoint interval. With system MTBF M = 1 / Lambda and tau the compute
 * time between checkpoints (K T):
 *
 *   Young (1974):  tau = sqrt(2 delta M)
 *   Daly (2006, FGCS 22 "A higher order estimate of the optimum checkpoint
 *   interval for restart dumps", eq. 37):
 *       tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta / (2M)) + (1/9) (delta / (2M))] - delta
 *             for delta < 2M, else tau = M.
 *
 * `auto` searches K: a geometric grid from a quarter to four times Daly's K,
 * then a golden-section search over integers between the best grid point's
 * neighbours; every K is evaluated by Monte Carlo over the same seeds (common
 * random numbers: sample i draws its failures from stream i of the seed for
 * every K, so differences between intervals are not drowned in sampling noise).
 *
 * Monte Carlo. Sample i uses stream 2i (interruptions) and 2i + 1 (degrading
 * faults) of the seed; samples run in worker threads (taking chunks of samples in turn) and land in
 * an array by index, so results do not depend on the number of threads. Each sample costs
 * O(failures) for exponential failures (whole runs of checkpoint segments are
 * skipped in closed form between failures), plus the sampler's O(n)
 * components for Weibull.
 */
#ifndef WEFT_JOB_JOB_H
#define WEFT_JOB_JOB_H

#include <glib.h>

#include "core/keyfile.h"
#include "core/progress.h"
#include "fault/rates.h"

G_BEGIN_DECLS

#define WEFT_JOB_ERROR (weft_job_error_quark())
GQuark weft_job_error_quark(void);

typedef enum {
    WEFT_JOB_ERROR_PARSE, /* not valid INI, or an override not of the form group.key=value */
    WEFT_JOB_ERROR_KEY,   /* unknown group or key; a required key missing; keys in conflict */
    WEFT_JOB_ERROR_VALUE, /* a value that does not parse or is out of range */
    WEFT_JOB_ERROR_IO,    /* a file cannot be read or written */
    WEFT_JOB_ERROR_RUN,   /* the step-time replay or a step-time provider failed */
} weft_job_error_t;

/**
 * weft_job_step_time_fn:
 * The step-time provider: the step time, in seconds, of a step run while degrading fault
 * @fault lasts (nominal: @nominal_step_s). Called from worker threads: must be thread-safe
 * (a replay-based provider caches per (class, component) under a lock).
 * Returns: TRUE with *@step_s >= @nominal_step_s, or FALSE with @error set.
 */
typedef gboolean (*weft_job_step_time_fn)(const weft_fault_event_t *fault, double nominal_step_s,
                                          double *step_s, gpointer user_data, GError **error);

/**
 * WEFT_JOB_MAX_SAMPLES:
 *
 * The most Monte Carlo samples one evaluation takes (train.samples): each is
 * kept for the statistics, so 10^7 take about 1.5 GB.
 */
#define WEFT_JOB_MAX_SAMPLES 10000000u

/**
 * WEFT_JOB_MAX_INTERRUPTIONS:
 *
 * The most interruptions the samples of one evaluation may be expected to
 * simulate (weft_job_expected_interruptions() x samples). Each is a loop
 * iteration (a failure, a restart); 10^9 of them are minutes of CPU. Past it
 * no progress is practically possible (a segment much longer than the system
 * MTBF, or a span of millions of MTBFs) and the run is refused up front.
 */
#define WEFT_JOB_MAX_INTERRUPTIONS 1e9

/** Everything one run needs, resolved (units in the names). */
typedef struct {
    guint64 steps;             /* N; G_MAXUINT64 with only a span */
    double span_s;             /* > 0: stop at this wall-clock time; INFINITY: run until N steps */
    double step_time_s;        /* T > 0 */
    guint64 checkpoint_steps;  /* K >= 1 (ignored while searching) */
    gboolean checkpoint_auto;  /* search K */
    double checkpoint_write_s; /* delta >= 0 */
    double restart_s;          /* R >= 0: detection + rescheduling + reload */
    weft_fault_rates_t rates;
    weft_fault_counts_t counts;
    guint samples; /* Monte Carlo samples >= 1 */
    guint64 seed;
    guint threads;                      /* worker threads; 0: one per CPU */
    weft_job_step_time_fn step_time_fn; /* (nullable) degrading faults: see weft_job_step_time_fn */
    gpointer step_time_data;
    /* (nullable) progress reporter (core/progress.h): samples done of each Monte Carlo; not
     * freed; reported to from the worker threads (it is thread-safe) */
    weft_progress_t *progress;
} weft_job_params_t;

/** weft_job_params_init: defaults (doc/failures.md): Llama 3 rates, 1000 samples, seed 1. */
void weft_job_params_init(weft_job_params_t *p);

/** One simulated run. Times in seconds. */
typedef struct {
    double wall_s;       /* end-to-end time (the span, with one) */
    double useful_s;     /* step time of the steps done: N T */
    double checkpoint_s; /* completed checkpoint writes */
    double lost_s;       /* work since the last checkpoint lost at failures */
    double restart_s;    /* time in restarts */
    double slowdown_s;   /* extra step time under degrading faults (kept steps) */
    double steps_done;   /* N, or (fractional) steps done by the end of the span */
    guint64 checkpoints; /* completed */
    guint64 interruptions;
    guint64 per_category[WEFT_FAULT_N_CATEGORIES];
    guint64 degradations;          /* degrading faults that started during the run */
    gboolean degradations_ignored; /* there was no step-time provider */
} weft_job_sample_t;

/**
 * weft_job_simulate:
 * One run with checkpoint interval @checkpoint_steps (>= 1) and the failures of Monte Carlo
 * sample @sample (streams 2 @sample and 2 @sample + 1 of p->seed).
 * @error: WEFT_JOB_ERROR_RUN from the step-time provider.
 */
gboolean weft_job_simulate(const weft_job_params_t *p, guint64 checkpoint_steps, guint sample,
                           weft_job_sample_t *out, GError **error);

/** What a stretch of a run's timeline was (weft_job_simulate_timeline()). */
typedef enum {
    WEFT_JOB_SPAN_TRAIN,    /* steps and checkpoints whose work was kept */
    WEFT_JOB_SPAN_LOST,     /* steps since the last checkpoint, lost at the failure @fault */
    WEFT_JOB_SPAN_RESTART,  /* detection, rescheduling and reload after @fault (cut short by
                               another failure: a new RESTART span follows) */
    WEFT_JOB_SPAN_DEGRADED, /* degrading fault @fault in force (overlaps the other kinds) */
} weft_job_span_kind_t;

/** One stretch of a run, in wall-clock seconds from its start. */
typedef struct {
    weft_job_span_kind_t kind;
    double start_s, end_s;
    weft_fault_event_t fault; /* LOST, RESTART, DEGRADED: the fault; TRAIN: unused */
    double step_s;            /* TRAIN, LOST: the nominal step time; DEGRADED: under the fault */
} weft_job_span_t;

/** weft_job_span_kind_name: "train", "lost", "restart", "degraded". */
const char *weft_job_span_kind_name(weft_job_span_kind_t kind);

/**
 * weft_job_simulate_timeline:
 * As weft_job_simulate() (the same sample gives the same @out), also filling @spans (a
 * GArray of weft_job_span_t, emptied first) with the run's timeline: TRAIN, LOST and
 * RESTART spans tile [0, wall_s) in time order; DEGRADED spans overlap them. O(failures)
 * spans: stretches without failures are one TRAIN span however many steps they hold.
 */
gboolean weft_job_simulate_timeline(const weft_job_params_t *p, guint64 checkpoint_steps,
                                    guint sample, GArray *spans, weft_job_sample_t *out,
                                    GError **error);

/**
 * weft_job_simulate_events: (test hook)
 * As weft_job_simulate() with the interruptions @events[0 .. @n_events) (in time order)
 * instead of drawn ones, and no degrading faults unless @degradations (n_degradations,
 * time order) are given. Lets a test inject one failure at a chosen instant.
 */
gboolean weft_job_simulate_events(const weft_job_params_t *p, guint64 checkpoint_steps,
                                  const weft_fault_event_t *events, guint n_events,
                                  const weft_fault_event_t *degradations, guint n_degradations,
                                  weft_job_sample_t *out, GError **error);

/** Statistics of one quantity over the samples. */
typedef struct {
    double mean, sd, se;          /* se = sd / sqrt(n) */
    double ci95_lo, ci95_hi;      /* mean -/+ 1.96 se (normal approximation: n is large) */
    double median, p90, min, max; /* quantiles by linear interpolation between order statistics */
} weft_job_stat_t;

/** Monte Carlo results for one checkpoint interval. */
typedef struct {
    guint64 checkpoint_steps;
    guint samples;
    weft_job_stat_t wall_s, goodput, useful_s, checkpoint_s, lost_s, restart_s, slowdown_s,
        steps_done, interruptions;
    weft_job_stat_t per_category[WEFT_FAULT_N_CATEGORIES];
    guint64 degradations;          /* summed over samples */
    gboolean degradations_ignored; /* some were ignored for want of a provider */
} weft_job_mc_t;

/**
 * weft_job_monte_carlo:
 * p->samples runs at interval @checkpoint_steps, in p->threads threads.
 * @samples_out: (out) (optional) (transfer full): the samples by index, or NULL.
 * Returns: FALSE with the first (lowest-index) sample's error, or, before any
 * sample runs, WEFT_JOB_ERROR_VALUE when the samples are expected to simulate
 * more than WEFT_JOB_MAX_INTERRUPTIONS interruptions (no progress possible:
 * weft_job_expected_interruptions()), naming the MTBF, the segment and the keys.
 */
gboolean weft_job_monte_carlo(const weft_job_params_t *p, guint64 checkpoint_steps,
                              weft_job_mc_t *out, weft_job_sample_t **samples_out, GError **error);

/**
 * weft_job_expected_interruptions:
 * @p: the run.
 * @checkpoint_steps: K >= 1.
 *
 * How many interruptions one sample is expected to simulate, from the system
 * failure rate Lambda = 1 / M (weft_job_system_mtbf_s()): with a span, Lambda x
 * span; otherwise ceil(N / K) segments, each of L = K T + delta, needing
 * expm1(Lambda L) failures on average before one completes (the exponential
 * law), each followed by a restart R that fails again with probability
 * 1 - e^(-Lambda R): ceil(N / K) expm1(Lambda L) e^(Lambda R); the smaller of
 * the two when both bound the run. 0 when nothing fails; INFINITY when no
 * progress is possible (Lambda L beyond a double's exponent).
 *
 * Returns: the expected count (>= 0, possibly INFINITY). Time complexity: O(1).
 */
double weft_job_expected_interruptions(const weft_job_params_t *p, guint64 checkpoint_steps);

/** weft_job_stat_compute: statistics of @x[0 .. @n) (n >= 1); @x is not changed. */
void weft_job_stat_compute(const double *x, gsize n, weft_job_stat_t *st);

/** weft_job_system_mtbf_s: M = 1 / Lambda of the interrupting failures; INFINITY if none. */
double weft_job_system_mtbf_s(const weft_job_params_t *p);

/** weft_job_young_s: sqrt(2 @delta_s @mtbf_s); INFINITY if @mtbf_s is. */
double weft_job_young_s(double delta_s, double mtbf_s);

/** weft_job_daly_s: Daly's higher-order optimum (see above); @mtbf_s if delta >= 2M. */
double weft_job_daly_s(double delta_s, double mtbf_s);

/**
 * weft_job_interval_steps:
 * @tau_s: compute time between checkpoints. Returns: max(1, round(@tau_s / T)), clamped to
 * N (and to G_MAXUINT32 steps).
 */
guint64 weft_job_interval_steps(const weft_job_params_t *p, double tau_s);

/** The search of `auto` and of a sweep: every interval evaluated, and the best. */
typedef struct {
    GArray *points;         /* weft_job_mc_t, ascending checkpoint_steps */
    guint64 best_steps;     /* largest mean goodput (ties: the smaller K) */
    double young_s, daly_s; /* the formulas' tau */
    guint64 young_steps, daly_steps;
} weft_job_search_t;

/**
 * weft_job_search:
 * Evaluates the grid (a quarter to four times Daly's K, geometric, ~33 points) and, with
 * @refine, a golden-section search between the best grid point's neighbours.
 * @error: WEFT_JOB_ERROR_VALUE when nothing fails (no M, no Daly interval), or a run error.
 * Returns: (transfer full): the search; free with weft_job_search_free().
 */
weft_job_search_t *weft_job_search(const weft_job_params_t *p, gboolean refine, GError **error);

/** weft_job_search_free: NULL is a no-op. */
void weft_job_search_free(weft_job_search_t *s);

/* ---- configuration: `weft train` files ---------------------------------------------------- */

/**
 * A `weft train` configuration: an INI file with groups [train] and [failures] (keys in
 * doc/failures.md), then overrides. Values are checked when set; weft_job_config_resolve()
 * checks the combination and builds weft_job_params_t (loading a cluster for component
 * counts and replaying a scenario for the step time when asked to).
 */
typedef struct weft_job_config weft_job_config_t;

/**
 * The keys of a `weft train` file, typed (units in the names): what the rows of
 * weft_job_keys() store, defaults included. weft_job_config_resolve() turns them into
 * weft_job_params_t (loading the cluster, replaying the scenario).
 */
typedef struct {
    /* [train] */
    const char *cluster; /* absolute; NULL: unset */
    guint64 gpus;        /* >= 1, with gpus_given */
    gboolean gpus_given;
    guint64 gpus_per_host; /* >= 1 */
    const char *scenario;  /* absolute; NULL: unset */
    double step_time_s;    /* > 0, with step_time_given */
    gboolean step_time_given;
    guint64 steps; /* >= 1, with steps_given */
    gboolean steps_given;
    double tokens, tokens_per_step; /* > 0, with their given flags */
    gboolean tokens_given, tokens_per_step_given;
    double span_s; /* > 0, with span_given */
    gboolean span_given;
    guint64 checkpoint_interval; /* K >= 1; 0: auto */
    guint64 checkpoint_size_B;
    double storage_write_Bps; /* > 0 */
    double storage_read_Bps;  /* > 0, with storage_read_given (else: the write one) */
    gboolean storage_read_given;
    double detection_s, reschedule_s; /* >= 0 */
    guint64 samples;                  /* >= 1 (at most 2^31 - 1: weft_job_config_resolve()) */
    guint64 seed;
    guint64 threads; /* 0: one per CPU */
    /* [failures]: distribution, weibull_shape, weibull_start (weibull_new), degrade_repair_time,
     * mtbf_CLASS, degrade_mtbf_CLASS; the MTBFs start at weft_fault_rates_init_default()'s */
    weft_fault_rates_t rates;
} weft_job_settings_t;

/**
 * weft_job_keys:
 * The rows of a `weft train` file over weft_job_settings_t (core/keyfile.h; keys and
 * defaults in doc/failures.md): [train], then [failures] (distribution, weibull_shape,
 * weibull_start, degrade_repair_time, then mtbf_CLASS and degrade_mtbf_CLASS for every
 * class of weft_fault_class_enum, in its order, made once). The per-class rows have no
 * default text: their default is the struct's, weft_fault_rates_init_default().
 * @n_keys: (out): the number of rows.
 * Returns: (transfer none): the rows, for the life of the process.
 */
const weft_key_t *weft_job_keys(guint *n_keys);

/** weft_job_config_has_group: TRUE if @group is a group of a train file (has rows). */
gboolean weft_job_config_has_group(const char *group);

/** weft_job_config_is_train_file: TRUE if @kf has a group of a train file ([train], [failures]). */
gboolean weft_job_config_is_train_file(GKeyFile *kf);

/** weft_job_config_new: every key at its default (unset keys). */
weft_job_config_t *weft_job_config_new(void);

/** weft_job_config_free: NULL is a no-op. */
void weft_job_config_free(weft_job_config_t *cfg);

/**
 * weft_job_config_load:
 * Reads @path (duplicate keys or groups refused; core/keyfile.h). Relative paths in it
 * are relative to its directory.
 * @error: WEFT_JOB_ERROR_PARSE/_IO, or _KEY/_VALUE naming the file, group, key and value.
 */
gboolean weft_job_config_load(weft_job_config_t *cfg, const char *path, GError **error);

/**
 * weft_job_config_set_value:
 * Sets @group.@key to @value after checking it (unit, range, choice).
 * @error: WEFT_JOB_ERROR_KEY (unknown group or key, listing the valid ones) or _VALUE
 *   naming group.key and the value.
 */
gboolean weft_job_config_set_value(weft_job_config_t *cfg, const char *group, const char *key,
                                   const char *value, GError **error);

/** weft_job_config_set: @assignment "group.key=value". _PARSE when it is not of that form. */
gboolean weft_job_config_set(weft_job_config_t *cfg, const char *assignment, GError **error);

/** weft_job_config_get: (transfer none): the current text of @group.@key or NULL if unset. */
const char *weft_job_config_get(const weft_job_config_t *cfg, const char *group, const char *key);

/**
 * weft_job_config_settings:
 * @s: (out): every key's value: the one set, else its default. Strings point into @cfg.
 * @error: WEFT_JOB_ERROR_VALUE (a value was checked when set: not expected).
 */
gboolean weft_job_config_settings(const weft_job_config_t *cfg, weft_job_settings_t *s,
                                  GError **error);

/**
 * weft_job_config_to_ini:
 * Returns: (transfer full): every key of both groups with its effective text (defaults
 * included, as comments when unset), in a fixed order.
 */
char *weft_job_config_to_ini(const weft_job_config_t *cfg);

/**
 * weft_job_config_resolve:
 * @p: (out): the parameters.
 * @notes: (out) (optional) (transfer full): lines saying where the step time and component
 *   counts came from, or NULL.
 * @error: WEFT_JOB_ERROR_KEY when no run length (steps, tokens + tokens_per_step, or span)
 *   or no step time (step_time or scenario) is given, or both of a pair are; _VALUE for a
 *   value out of range; _RUN when the scenario replay fails; _IO for a cluster that cannot
 *   be read; _KEY for a degrading fault class with no in-step model (degrade_mtbf_ of a
 *   class other than cable, nic and switch) when the step time comes from a scenario.
 *
 * With train.scenario and degrading faults (failures.degrade_mtbf_cable, _nic or
 * _switch set), @p gets a step-time provider that replays the scenario with the
 * fault in force from the step's start (fault/step.h: weft_fault_degrade_line();
 * under `network.model = flow` the traffic moves to the surviving paths), once
 * per failed component, cached. Its state belongs to @cfg: keep @cfg alive while
 * @p is used. Without a scenario (train.step_time), degrading faults are counted
 * but cost nothing (weft_job_sample_t.degradations_ignored).
 */
gboolean weft_job_config_resolve(const weft_job_config_t *cfg, weft_job_params_t *p, GString *notes,
                                 GError **error);

/* ---- reports -------------------------------------------------------------------------------- */

/**
 * weft_job_write_summary_json:
 * Writes @path by weft_output_write() (atomic: temporary name, then rename): the parameters,
 * M, Young and Daly, and @mc (mean, sd, se, 95% CI, median, p90 of every quantity;
 * interruptions per category; lost work; checkpoint overhead); doubles that are not finite
 * (an MTBF of "never") as null. @search may be NULL.
 */
gboolean weft_job_write_summary_json(const char *path, const weft_job_params_t *p,
                                     const weft_job_mc_t *mc, const weft_job_search_t *search,
                                     GError **error);

/**
 * weft_job_write_timeline_csv:
 * Writes @path atomically: the timeline of Monte Carlo sample 0 at @checkpoint_steps
 * (weft_job_simulate_timeline()), one span per row: start_s, end_s, start_days, end_days,
 * kind (train, lost, restart, degraded), category and class of the fault (empty for
 * train), component (its ordinal in the class), step_s. The input of plots/run_timeline.gp.
 * @error: WEFT_JOB_ERROR_IO, or WEFT_JOB_ERROR_RUN from a step-time provider.
 */
gboolean weft_job_write_timeline_csv(const char *path, const weft_job_params_t *p,
                                     guint64 checkpoint_steps, GError **error);

/**
 * weft_job_write_sweep_csv:
 * Writes @path atomically: one row per evaluated interval with
 * checkpoint_interval_steps, checkpoint_interval_s, goodput mean/CI, wall_s mean/CI, lost_s,
 * checkpoint_s, restart_s, interruptions means (the input of plots/goodput_vs_interval.gp).
 */
gboolean weft_job_write_sweep_csv(const char *path, const weft_job_params_t *p,
                                  const weft_job_search_t *search, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_job_config_t, weft_job_config_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_job_search_t, weft_job_search_free)

G_END_DECLS

#endif /* WEFT_JOB_JOB_H */
