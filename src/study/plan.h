/* SPDX-License-Identifier: MIT */
/*
 * Planning: which parallel configuration of a model trains fastest on a cluster at a given
 * global batch (doc/plan.md is the user's description; this is the contract).
 *
 * Candidates. The search space is a table of [transformer] spec keys (plan.c: axes[]),
 * each with the values it takes for the model and cluster: tp (divisors of the heads and
 * KV heads up to max_tp, the NVLink domain), pp (divisors of the layers), vpp (the
 * interleaved schedule's chunks: pp x vpp divides the layers), cp, dp = GPUs / (tp pp cp),
 * micro_batch (dividing global_batch / dp), recompute (none, selective, full) and dist_opt
 * (off, on); sp is on whenever tp > 1. A candidate is one point of their product that
 * weft_gen_validate() accepts (interleaving needs pp > 1 and micro-batches a multiple of pp).
 * Keys another part of the generator adds (ZeRO stage, offload) are one row each there.
 *
 * Fit. Each candidate's per-GPU memory is the closed form of weft_gen_memory() (Megatron's
 * 18 or 6 + 12 / d bytes per parameter, Korthikanti et al.'s activations, the pipeline's
 * micro-batches in flight): above the GPU's HBM the candidate is listed as not fitting,
 * with what exceeds it (the model states alone, or states + activations). A candidate that
 * is simulated and whose replayed peak exceeds the HBM is not fitting either.
 *
 * Bound. The replay runs a rank's GPU compute nodes (COMP, MEM_LOAD, MEM_STORE) one at a
 * time on its compute stream, for at least their durations (replay/replay.h: SM contention
 * and stragglers only lengthen them), so no rank finishes before the sum of its compute
 * durations x compute.duration_scale, and the step (the latest finish) never before
 *     B = max over ranks r of sum over r's GPU compute nodes of duration.
 * B is exact for the generated workload (its own durations, not an estimate). It is computed
 * from three generations of a few ranks: a rank's compute is A + B m + D / dp in the
 * micro-batches m and the data-parallel size dp (plan.c: bound_of()), exactly, so small m and
 * dp give it at a fraction of the generation of the step; WEFT_PLAN_EXACT_BOUNDS=1 in the
 * environment generates the whole step instead (tests/plan_cli.sh compares the two).
 *
 * Search (branch and bound). Fitting candidates run in ascending B, `threads` at a time,
 * each a full replay (scenario/scenario.h) on one cluster shared read-only. Once K fitting
 * candidates have been simulated (K = top, default 1), a candidate whose B exceeds the K-th
 * best step time cannot enter the top K: it and every later one are pruned, so the top K are
 * exactly those an exhaustive search finds (ties broken by candidate order). prune = FALSE
 * simulates every fitting candidate (the check of the pruning); max_sims caps the
 * simulations (the rest are "not simulated", and exactness is lost: the result says so).
 *
 * MFU: model FLOPs per step / (step time x GPUs x the GPU's dense BF16 peak), the model
 * FLOPs without recomputation (Korthikanti et al. 2022, Section 5; Narayanan et al. 2021,
 * equation 3 without its recomputed forward: per token 3 x (L (QKV, projection and MLP GEMMs
 * 2 x their weights, attention 4 s h) + the output layer 2 h V)).
 */
#ifndef WEFT_STUDY_PLAN_H
#define WEFT_STUDY_PLAN_H

#include <glib.h>

#include "core/progress.h"

G_BEGIN_DECLS

#define WEFT_PLAN_ERROR (weft_plan_error_quark())
GQuark weft_plan_error_quark(void);

typedef enum {
    WEFT_PLAN_ERROR_USAGE,   /* an option out of range, or a --set of a searched key */
    WEFT_PLAN_ERROR_SETUP,   /* the model, the cluster or a --set does not load */
    WEFT_PLAN_ERROR_NOTHING, /* no candidate: the GPUs and the batch leave none */
} weft_plan_error_t;

/** What became of a candidate. */
typedef enum {
    WEFT_PLAN_SIMULATED, /* replayed, fits */
    WEFT_PLAN_OOM,       /* replayed, its peak exceeds the HBM */
    WEFT_PLAN_PRUNED,    /* its bound exceeds the K-th best step time: never simulated */
    WEFT_PLAN_SKIPPED,   /* not simulated: max_sims reached */
    WEFT_PLAN_NO_FIT,    /* the closed-form memory exceeds the HBM: never simulated */
    WEFT_PLAN_FAILED,    /* generation or replay failed (note says why) */
} weft_plan_status_t;

/** weft_plan_status_name: "ok", "oom", "pruned", "not simulated", "does not fit", "failed". */
const char *weft_plan_status_name(weft_plan_status_t s);

/** One candidate and its results; the plan owns the strings. */
typedef struct {
    guint tp, pp, vpp, cp, dp, micro_batch;
    guint recompute; /* weft_gen_recompute_t */
    gboolean sp, dist_opt;
    char *keys; /* its [transformer] keys, "tp=8 pp=16 ..." */
    weft_plan_status_t status;
    double mem_est_bytes;    /* closed form (weft_gen_memory()), per GPU of stage 0 */
    double mem_states_bytes; /* of which weights, gradients and optimizer states */
    double bound_s;          /* B (header); 0 when not computed (no fit) */
    double step_s;           /* replayed step time; 0 unless simulated */
    double mfu;              /* fraction, 0..1; 0 unless simulated */
    double tokens_per_s;     /* global batch x seq / step; 0 unless simulated */
    double mem_peak_bytes;   /* replayed peak of the busiest rank; 0 unless simulated */
    double compute_s, exposed_comm_s, idle_s; /* the slowest rank's breakdown (replay) */
    char *limiter; /* "compute", "exposed comm", "pipeline bubble / idle",
                      "memory: ...", "bound ... > ..." */
} weft_plan_row_t;

/** Options of weft_plan_run(); zero-initialize, then set. */
typedef struct {
    const char *model;         /* a weft gen preset (workload/gen.h) */
    const char *cluster;       /* a cluster file (doc/clusters.md) */
    const char *const *sets;   /* (nullable) NULL-terminated "group.key=value" overrides */
    guint global_batch;        /* sequences per step; required */
    guint seq;                 /* tokens per sequence; 0: the model's */
    guint gpus;                /* ranks; 0: every GPU of the cluster */
    guint max_tp;              /* largest tp; 0: 8 (an HGX node's NVLink domain) */
    guint max_cp;              /* largest cp; 0: 1 (no context parallelism) */
    guint max_mb;              /* largest micro-batch; 0: 8 */
    guint top;                 /* K of the exact top K; 0: 1 */
    guint threads;             /* replays at once; 0: g_get_num_processors() */
    guint max_sims;            /* 0: no cap */
    gboolean no_prune;         /* simulate every fitting candidate */
    weft_progress_t *progress; /* (nullable) not freed */
} weft_plan_options_t;

typedef struct weft_plan weft_plan_t;

/**
 * weft_plan_run: enumerates, checks, bounds and simulates the candidates (header).
 * @opts: the problem; strings are copied.
 * @error: WEFT_PLAN_ERROR_USAGE naming the option and value, _SETUP (the model, cluster or
 *   a --set: the message is the loader's), _NOTHING (no candidate at all).
 * Returns: (transfer full): the plan, its rows ranked (weft_plan_row()), or NULL.
 * Time complexity: one generation per fitting candidate (the bound) plus one replay per
 * candidate simulated; memory: one workload per running thread.
 */
weft_plan_t *weft_plan_run(const weft_plan_options_t *opts, GError **error);

/** weft_plan_free: NULL is a no-op. */
void weft_plan_free(weft_plan_t *plan);

/** weft_plan_n_rows: the candidates enumerated (fitting or not). O(1). */
guint weft_plan_n_rows(const weft_plan_t *plan);

/**
 * weft_plan_row: (transfer none): the @i-th ranked row: simulated fitting rows by step time,
 * then replayed OOM rows, pruned and not simulated rows by bound, not fitting rows by
 * estimated memory, failed rows; ties in candidate order. @i < weft_plan_n_rows(). O(1).
 */
const weft_plan_row_t *weft_plan_row(const weft_plan_t *plan, guint i);

/** Counts of a plan. */
typedef struct {
    guint candidates, no_fit, simulated, pruned, skipped, failed, oom;
    gboolean exact;     /* the top K are the exhaustive search's (no max_sims cut) */
    double model_flops; /* per step (MFU's numerator) */
    double peak_flops;  /* per GPU, dense BF16 */
    double hbm_bytes;   /* per GPU */
    guint gpus;
} weft_plan_stats_t;

/** weft_plan_stats: @out filled from @plan. O(1). */
void weft_plan_stats(const weft_plan_t *plan, weft_plan_stats_t *out);

/**
 * weft_plan_table: (transfer full): the ranked table as text, one line per row, with a
 * header: rank, tp pp vpp cp dp mb recompute dist_opt, status, step (s), bound (s), MFU (%),
 * peak memory (GiB: replayed, else the estimate marked ~), tokens/s, limiter. O(rows).
 */
char *weft_plan_table(const weft_plan_t *plan);

/**
 * weft_plan_write_csv: the ranked rows as CSV to @path (a temporary name, then renamed):
 * rank,tp,pp,vpp,cp,dp,micro_batch,recompute,sp,dist_opt,status,step_time_s,bound_s,mfu_pct,
 * mem_peak_GiB,mem_est_GiB,tokens_per_s,compute_s,exposed_comm_s,idle_s,limiter.
 * Returns: FALSE with a GFileError naming @path.
 */
gboolean weft_plan_write_csv(const weft_plan_t *plan, const char *path, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_plan_t, weft_plan_free)

G_END_DECLS

#endif /* WEFT_STUDY_PLAN_H */
