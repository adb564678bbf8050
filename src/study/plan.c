/* SPDX-License-Identifier: MIT */
/*
 * weft plan's engine: enumerate the parallel configurations of a model on a cluster, drop
 * those that do not fit by the closed-form memory, bound the rest by their busiest rank's
 * compute, and replay them in ascending bound until the bound proves the top K (plan.h).
 */
#define G_LOG_DOMAIN "weft-plan"

#include "config.h"

#include "study/plan.h"

#include <math.h>
#include <string.h>

#include "core/output.h"
#include "hw/hw.h"
#include "replay/replay.h"
#include "scenario/scenario.h"
#include "topo/topo.h"
#include "workload/gen.h"
#include "workload/workload.h"

G_DEFINE_QUARK(weft-plan-error-quark, weft_plan_error)

static const char *const status_names[] = {"ok",           "oom",   "pruned", "not simulated",
                                           "does not fit", "failed"};

const char *
weft_plan_status_name(weft_plan_status_t s)
{
    g_return_val_if_fail((guint)s < G_N_ELEMENTS(status_names), "?");
    return status_names[s];
}

/* ---- the plan --------------------------------------------------------------------------- */

struct weft_plan {
    weft_plan_options_t o;
    GPtrArray *base;   /* char *: the assignments every candidate starts from */
    weft_topo_t *topo; /* shared, read only, by every replay */
    const weft_hw_gpu_t *gpu;
    guint gpus;
    weft_gen_config_t model; /* the model's sizes (parallel fields unused) */
    gboolean exact_bounds;   /* WEFT_PLAN_EXACT_BOUNDS set: bounds from one generation at the
                                step's micro-batches (bound_of()) */
    GArray *rows;            /* weft_plan_row_t, candidate order until ranked */
    guint *order;            /* ranked: row indexes */
    weft_plan_stats_t stats;
    /* phase B */
    GMutex lock;
    GCond done_cond;
    guint running, finished;
};

/* ---- the candidate space: a table of [transformer] keys -------------------------------- */

/* The axes, in enumeration order; a candidate is one value per axis. dp is derived
 * (GPUs / (tp pp cp)) and sp follows tp, so neither is an axis. To search another generator
 * key (zero, offload), add its row: a key and a function giving its values. */
enum { AX_TP, AX_PP, AX_VPP, AX_CP, AX_MB, AX_RECOMPUTE, AX_DIST_OPT, N_AXES };

typedef void (*values_fn)(const weft_plan_t *P, const guint *chosen, GArray *out);

typedef struct {
    const char *key;          /* [transformer] key */
    values_fn values;         /* the values given the axes before it (chosen[0..axis)) */
    const char *const *names; /* the value's text when an enum (NULL: the number) */
} axis_t;

static void
add(GArray *out, guint v)
{
    g_array_append_val(out, v);
}

static guint
dp_of(const weft_plan_t *P, const guint *c)
{
    return P->gpus / (c[AX_TP] * c[AX_PP] * c[AX_CP]);
}

/* tp: divides the heads and the KV heads (weft_gen_validate()) and the GPUs; at most max_tp,
 * so a tensor-parallel group stays inside the NVLink domain. */
static void
values_tp(const weft_plan_t *P, const guint *c, GArray *out)
{
    (void)c;
    for (guint t = 1; t <= P->o.max_tp; t++) {
        if (P->model.heads % t == 0 && P->model.kv_heads % t == 0 && P->gpus % t == 0) {
            add(out, t);
        }
    }
}

/* pp: divides the layers (even stages) and the GPUs left by tp. */
static void
values_pp(const weft_plan_t *P, const guint *c, GArray *out)
{
    for (guint p = 1; p <= P->model.layers; p++) {
        if (P->model.layers % p == 0 && P->gpus % (c[AX_TP] * p) == 0) {
            add(out, p);
        }
    }
}

/* vpp: 1, or (with pp > 1) each v > 1 with pp v dividing the layers (Megatron's
 * interleaved schedule). */
static void
values_vpp(const weft_plan_t *P, const guint *c, GArray *out)
{
    add(out, 1);
    guint per_stage = P->model.layers / c[AX_PP];
    for (guint v = 2; c[AX_PP] > 1 && v <= per_stage; v++) {
        if (per_stage % v == 0) {
            add(out, v);
        }
    }
}

/* cp: divides the sequence and the GPUs left, up to max_cp (1 by default: no context
 * parallelism below long sequences). */
static void
values_cp(const weft_plan_t *P, const guint *c, GArray *out)
{
    for (guint k = 1; k <= P->o.max_cp; k++) {
        if (P->model.seq % k == 0 && P->gpus % (c[AX_TP] * c[AX_PP] * k) == 0) {
            add(out, k);
        }
    }
}

/* micro_batch: divides global_batch / dp, at most max_mb; with vpp > 1 the micro-batches
 * must be a multiple of pp (weft_gen_validate()). */
static void
values_mb(const weft_plan_t *P, const guint *c, GArray *out)
{
    guint dp = dp_of(P, c);
    if (P->o.global_batch % dp != 0) {
        return;
    }
    guint per_dp = P->o.global_batch / dp;
    for (guint b = 1; b <= MIN(per_dp, P->o.max_mb); b++) {
        if (per_dp % b == 0 && (c[AX_VPP] == 1 || (per_dp / b) % c[AX_PP] == 0)) {
            add(out, b);
        }
    }
}

static void
values_recompute(const weft_plan_t *P, const guint *c, GArray *out)
{
    (void)P;
    (void)c;
    add(out, WEFT_GEN_RECOMPUTE_NONE);
    add(out, WEFT_GEN_RECOMPUTE_SELECTIVE);
    add(out, WEFT_GEN_RECOMPUTE_FULL);
}

/* dist_opt: only with dp > 1 (with dp = 1 the distributed optimizer shards nothing). */
static void
values_bool_dp(const weft_plan_t *P, const guint *c, GArray *out)
{
    add(out, 0);
    if (dp_of(P, c) * c[AX_CP] > 1) {
        add(out, 1);
    }
}

static const char *const recompute_names[] = {"none", "selective", "full", NULL};
static const char *const bool_names[] = {"false", "true", NULL};

static const axis_t axes[N_AXES] = {
    [AX_TP] = {"tp", values_tp, NULL},
    [AX_PP] = {"pp", values_pp, NULL},
    [AX_VPP] = {"vpp", values_vpp, NULL},
    [AX_CP] = {"cp", values_cp, NULL},
    [AX_MB] = {"micro_batch", values_mb, NULL},
    [AX_RECOMPUTE] = {"recompute", values_recompute, recompute_names},
    [AX_DIST_OPT] = {"dist_opt", values_bool_dp, bool_names},
};

/* The keys a --set may not give: the plan chooses them. */
static gboolean
is_searched(const char *key)
{
    for (guint a = 0; a < N_AXES; a++) {
        if (strcmp(key, axes[a].key) == 0) {
            return TRUE;
        }
    }
    return strcmp(key, "dp") == 0 || strcmp(key, "sp") == 0 || strcmp(key, "model") == 0 ||
           strcmp(key, "global_batch") == 0 || strcmp(key, "seq") == 0;
}

static void
add_candidate(weft_plan_t *P, const guint *c)
{
    weft_plan_row_t r = {0};
    r.tp = c[AX_TP];
    r.pp = c[AX_PP];
    r.vpp = c[AX_VPP];
    r.cp = c[AX_CP];
    r.dp = dp_of(P, c);
    r.micro_batch = c[AX_MB];
    r.recompute = c[AX_RECOMPUTE];
    r.dist_opt = c[AX_DIST_OPT];
    r.sp = r.tp > 1;
    GString *k = g_string_new(NULL);
    for (guint a = 0; a < N_AXES; a++) {
        if (axes[a].names != NULL) {
            g_string_append_printf(k, "%s=%s ", axes[a].key, axes[a].names[c[a]]);
        } else {
            g_string_append_printf(k, "%s=%u ", axes[a].key, c[a]);
        }
    }
    g_string_append_printf(k, "dp=%u sp=%s", r.dp, r.sp ? "true" : "false");
    r.keys = g_string_free(k, FALSE);
    g_array_append_val(P->rows, r);
}

static void
enumerate(weft_plan_t *P, guint axis, guint *chosen)
{
    if (axis == N_AXES) {
        add_candidate(P, chosen);
        return;
    }
    g_autoptr(GArray) vals = g_array_new(FALSE, FALSE, sizeof(guint));
    axes[axis].values(P, chosen, vals);
    for (guint i = 0; i < vals->len; i++) {
        chosen[axis] = g_array_index(vals, guint, i);
        enumerate(P, axis + 1, chosen);
    }
}

/* ---- one candidate ---------------------------------------------------------------------- */

/* The scenario of row @r: the base assignments, then its keys. */
static weft_scenario_t *
candidate_scenario(const weft_plan_t *P, const weft_plan_row_t *r, GError **error)
{
    weft_scenario_t *sc = weft_scenario_new();
    for (guint i = 0; i < P->base->len; i++) {
        if (!weft_scenario_set(sc, g_ptr_array_index(P->base, i), error)) {
            weft_scenario_free(sc);
            return NULL;
        }
    }
    g_auto(GStrv) kv = g_strsplit(r->keys, " ", -1);
    for (guint i = 0; kv[i] != NULL; i++) {
        g_autofree char *a = g_strconcat("transformer.", kv[i], NULL);
        if (!weft_scenario_set(sc, a, error)) {
            weft_scenario_free(sc);
            return NULL;
        }
    }
    /* a --set transformer.tp_overlap=true means "where there is tensor parallelism": without
     * it there is no TP communication to overlap (and the generator refuses it) */
    if (r->tp == 1 && !weft_scenario_set(sc, "transformer.tp_overlap=false", error)) {
        weft_scenario_free(sc);
        return NULL;
    }
    return sc;
}

/* The spec of @sc, finished for the plan's GPUs and the cluster's GPU model. */
static gboolean
resolve_spec(const weft_plan_t *P, const weft_scenario_t *sc, weft_gen_spec_t *spec,
             double *duration_scale, GError **error)
{
    weft_scenario_config_t cfg;
    if (!weft_scenario_resolve(sc, &cfg, error)) {
        return FALSE;
    }
    *spec = cfg.transformer;
    if (duration_scale != NULL) {
        *duration_scale = cfg.replay.duration_scale;
    }
    /* the cluster's GPU first: finishing sets an unset gpu to h100 */
    return weft_gen_spec_use_cluster_gpu(spec, P->gpu, P->o.cluster, "weft plan", error) &&
           weft_gen_spec_finish(spec, P->gpus, "weft plan", error);
}

/* Each rank's GPU compute (COMP, MEM_LOAD, MEM_STORE nodes), in picoseconds, into @out
 * (n_ranks). O(nodes). */
static void
rank_compute_ps(const weft_workload_t *wl, double *out)
{
    for (guint r = 0; r < wl->n_ranks; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        /* the ranks of a pipeline stage share their node arrays (gen.h): sum each once */
        if (r > 0 && t->duration_ps == wl->ranks[r - 1].duration_ps &&
            t->type == wl->ranks[r - 1].type && t->is_cpu_op == wl->ranks[r - 1].is_cpu_op &&
            t->n_nodes == wl->ranks[r - 1].n_nodes) {
            out[r] = out[r - 1];
            continue;
        }
        double sum = 0;
        for (guint i = 0; i < t->n_nodes; i++) {
            guint8 ty = t->type[i];
            if (!t->is_cpu_op[i] &&
                (ty == WEFT_NODE_COMP || ty == WEFT_NODE_MEM_LOAD || ty == WEFT_NODE_MEM_STORE)) {
                sum += (double)t->duration_ps[i];
            }
        }
        out[r] = sum;
    }
}

/* The compute of each (pipeline stage, context rank, tensor rank) of @c generated with @m
 * micro-batches per pipeline and @dp data-parallel ranks (global batch m x micro_batch x dp),
 * into @out (pp x cp x tp, in rank order of data-parallel rank 0: gen.h's rank formula).
 * Data-parallel replicas compute alike, so the replica 0 stands for them. */
static gboolean
compute_at(const weft_plan_t *P, const weft_gen_config_t *c, guint m, guint dp, double *out,
           GError **error)
{
    weft_gen_config_t k = *c;
    k.dp = dp;
    k.global_batch = m * c->micro_batch * dp;
    g_autoptr(weft_workload_t) wl = weft_gen_transformer(&k, P->gpu, error);
    if (wl == NULL) {
        return FALSE;
    }
    g_autofree double *all = g_new0(double, wl->n_ranks);
    rank_compute_ps(wl, all);
    guint tc = c->tp * c->cp;
    for (guint p = 0; p < c->pp; p++) {
        for (guint i = 0; i < tc; i++) {
            out[p * tc + i] = all[i + tc * dp * p];
        }
    }
    return TRUE;
}

/*
 * B (plan.h) of @c, in seconds, from small generations. A rank's compute is the same nodes
 * for every micro-batch, plus what runs once per step (the embedding's share, the optimizer,
 * whose parameters the distributed optimizer divides by dp), so it is
 *     C(m, dp) = A + B m + D / dp
 * exactly (durations are whole picoseconds, identical for each micro-batch), whatever the
 * schedule's order. Three generations of a few ranks -- (m1, 1), (m2, 1), (m1, 2) with
 * m1 = 1, m2 = 2 (interleaved: pp and 2 pp, the fewest it takes) -- give A, B and D and cost
 * far less than one of the step (GPT-3 175B at global batch 1536: 1,024 ranks and up to 192
 * micro-batches; the generator's time grows with both). With experts (ep > 1 needs dp) or
 * when a small configuration does not validate, the step itself is generated;
 * WEFT_PLAN_EXACT_BOUNDS always does (tests compare the two).
 */
static gboolean
bound_of(const weft_plan_t *P, const weft_gen_config_t *c, double scale, double *bound_s,
         GError **error)
{
    guint m = c->global_batch / (c->micro_batch * c->dp);
    guint m1 = c->vpp > 1 ? c->pp : 1, m2 = 2 * m1;
    guint n = c->pp * c->cp * c->tp;
    g_autofree double *g1 = g_new0(double, n);
    g_autofree double *g2 = g_new0(double, n);
    g_autofree double *g3 = g_new0(double, n);
    double best = 0;
    gboolean small = !P->exact_bounds && c->ep <= 1 && m > m2 && c->dp > 2;
    if (small) {
        small = compute_at(P, c, m1, 1, g1, NULL) && compute_at(P, c, m2, 1, g2, NULL) &&
                compute_at(P, c, m1, 2, g3, NULL);
    }
    if (small) {
        for (guint i = 0; i < n; i++) {
            double b = (g2[i] - g1[i]) / (double)(m2 - m1);
            double d = 2 * (g1[i] - g3[i]);
            best = MAX(best, g1[i] + b * (double)(m - m1) - d * (1 - 1.0 / c->dp));
        }
    } else {
        if (!compute_at(P, c, m, c->dp, g1, error)) {
            return FALSE;
        }
        for (guint i = 0; i < n; i++) {
            best = MAX(best, g1[i]);
        }
    }
    /* the replay multiplies each duration by compute.duration_scale and rounds it to a
     * picosecond: a part in 1e9 below covers that and the sums' rounding */
    *bound_s = best * scale * (1 - 1e-9) / 1e12;
    return TRUE;
}

/* Phase A of row @r: check, memory, bound. Runs in a pool thread. */
static void
prepare(gpointer data, gpointer user_data)
{
    weft_plan_row_t *r = data;
    weft_plan_t *P = user_data;
    g_autoptr(GError) err = NULL;
    weft_scenario_t *sc = candidate_scenario(P, r, &err);
    weft_gen_spec_t spec;
    double scale = 1;
    if (sc == NULL || !resolve_spec(P, sc, &spec, &scale, &err) ||
        !weft_gen_validate(&spec.c, P->gpus, &err)) {
        weft_scenario_free(sc);
        r->status = WEFT_PLAN_FAILED;
        r->limiter = g_strdup(err != NULL ? err->message : "unknown error");
        return;
    }
    weft_scenario_free(sc);
    weft_gen_memory_t mem;
    weft_gen_memory(&spec.c, &mem);
    r->mem_est_bytes = mem.total;
    r->mem_states_bytes = mem.weights + mem.grads + mem.optimizer;
    double hbm = P->gpu->hbm_bytes;
    if (mem.total > hbm) {
        r->status = WEFT_PLAN_NO_FIT;
        if (r->mem_states_bytes > hbm) {
            r->limiter = g_strdup_printf("memory: model states (weights + gradients + "
                                         "optimizer) %.1f GiB > HBM %.1f GiB",
                                         r->mem_states_bytes / 1073741824.0, hbm / 1073741824.0);
        } else {
            r->limiter = g_strdup_printf("memory: activations %.1f GiB + states %.1f GiB > "
                                         "HBM %.1f GiB",
                                         mem.activations / 1073741824.0,
                                         r->mem_states_bytes / 1073741824.0, hbm / 1073741824.0);
        }
        return;
    }
    if (!bound_of(P, &spec.c, scale, &r->bound_s, &err)) {
        r->status = WEFT_PLAN_FAILED;
        r->limiter = g_strdup(err->message);
        return;
    }
    r->status = WEFT_PLAN_SKIPPED; /* until simulated or pruned */
}

/* Phase B: the replay of @r (a copy of the row, filled here). */
static void
simulate(weft_plan_row_t *r, const weft_plan_t *P)
{
    g_autoptr(GError) err = NULL;
    weft_scenario_t *sc = candidate_scenario(P, r, &err);
    weft_scenario_run_options_t ro = {.cluster = P->topo};
    weft_scenario_run_t *run = sc != NULL ? weft_scenario_run_full(sc, &ro, &err) : NULL;
    weft_scenario_free(sc);
    if (run == NULL) {
        r->status = WEFT_PLAN_FAILED;
        r->limiter = g_strdup(err != NULL ? err->message : "unknown error");
        return;
    }
    const weft_replay_result_t *res = run->replay;
    r->step_s = (double)res->step_ps / 1e12;
    guint slow = 0;
    double peak = 0;
    for (guint i = 0; i < res->n_ranks; i++) {
        if (res->ranks[i].finish_ps > res->ranks[slow].finish_ps) {
            slow = i;
        }
        peak = MAX(peak, (double)res->ranks[i].mem_peak_bytes);
    }
    r->mem_peak_bytes = res->mem_known ? peak : 0;
    r->compute_s = (double)res->ranks[slow].compute_ps / 1e12;
    r->exposed_comm_s = (double)res->ranks[slow].exposed_comm_ps / 1e12;
    r->idle_s = (double)res->ranks[slow].idle_ps / 1e12;
    r->tokens_per_s = r->step_s > 0 ? (double)P->o.global_batch * P->model.seq / r->step_s : 0;
    r->mfu = r->step_s > 0 ? P->stats.model_flops / (r->step_s * P->gpus * P->stats.peak_flops) : 0;
    double hbm = P->gpu->hbm_bytes;
    if (res->mem_known && peak > hbm) {
        r->status = WEFT_PLAN_OOM;
        r->limiter = g_strdup_printf("memory: replayed peak %.1f GiB > HBM %.1f GiB",
                                     peak / 1073741824.0, hbm / 1073741824.0);
    } else {
        r->status = WEFT_PLAN_SIMULATED;
        double step = MAX(r->step_s, 1e-12);
        double comm = r->exposed_comm_s / step, idle = r->idle_s / step;
        if (comm >= idle && comm >= 0.1) {
            r->limiter = g_strdup_printf("exposed comm %.0f%%", 100 * comm);
        } else if (idle >= 0.1) {
            r->limiter = g_strdup_printf("pipeline bubble / idle %.0f%%", 100 * idle);
        } else {
            r->limiter = g_strdup_printf("compute %.0f%%", 100 * r->compute_s / step);
        }
        if (res->mem_known && peak > 0.9 * hbm) {
            char *more = g_strdup_printf("%s; memory %.0f%% of HBM", r->limiter, 100 * peak / hbm);
            g_free(r->limiter);
            r->limiter = more;
        }
    }
    weft_scenario_run_free(run);
}

/* ---- the search ------------------------------------------------------------------------- */

static void
sim_worker(gpointer data, gpointer user_data)
{
    weft_plan_row_t *r = data;
    weft_plan_t *P = user_data;
    weft_plan_row_t out = *r; /* the main thread reads the rows' status under the lock */
    out.limiter = NULL;
    gint64 t0 = g_get_monotonic_time();
    simulate(&out, P);
    g_debug("%s: %s, %.3f s simulated in %.1f s", out.keys, weft_plan_status_name(out.status),
            out.step_s, (double)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
    g_mutex_lock(&P->lock);
    *r = out;
    P->running--;
    P->finished++;
    g_cond_signal(&P->done_cond);
    g_mutex_unlock(&P->lock);
}

static gint
by_bound(gconstpointer a, gconstpointer b, gpointer data)
{
    const weft_plan_row_t *rows = data;
    guint i = *(const guint *)a, j = *(const guint *)b;
    double x = rows[i].bound_s, y = rows[j].bound_s;
    return x < y ? -1 : x > y ? 1 : (i > j) - (i < j);
}

static gint
cmp_double(gconstpointer a, gconstpointer b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The K-th best step time of the fitting simulated rows, or +inf while fewer than K.
 * Called with P->lock held. O(rows log rows). */
static double
kth_best(const weft_plan_t *P)
{
    g_autoptr(GArray) steps = g_array_new(FALSE, FALSE, sizeof(double));
    for (guint i = 0; i < P->rows->len; i++) {
        const weft_plan_row_t *r = &g_array_index(P->rows, weft_plan_row_t, i);
        if (r->status == WEFT_PLAN_SIMULATED) {
            g_array_append_val(steps, r->step_s);
        }
    }
    if (steps->len < P->o.top) {
        return INFINITY;
    }
    g_array_sort(steps, cmp_double);
    return g_array_index(steps, double, P->o.top - 1);
}

/* Model FLOPs of one step (plan.h): 3 passes (forward, and a backward of twice its FLOPs)
 * over the global batch's tokens, recomputation not counted. */
static double
model_flops(const weft_gen_config_t *m, guint global_batch)
{
    double h = m->hidden, s = m->seq, f = m->ffn, g = m->kv_heads, d = h / m->heads;
    double k = m->experts > 1 ? m->top_k : 1;
    double per_layer =
        2 * h * (h + 2 * g * d) + 2 * h * h + 2 * (m->gated ? 3 : 2) * h * f * k + 4 * s * h;
    double per_token = m->layers * per_layer + 2 * h * m->vocab;
    return 3.0 * per_token * (double)global_batch * s;
}

static int
row_class(weft_plan_status_t s)
{
    switch (s) {
    case WEFT_PLAN_SIMULATED:
        return 0;
    case WEFT_PLAN_OOM:
        return 1;
    case WEFT_PLAN_PRUNED:
        return 2;
    case WEFT_PLAN_SKIPPED:
        return 3;
    case WEFT_PLAN_NO_FIT:
        return 4;
    default:
        return 5;
    }
}

static double
row_key(const weft_plan_row_t *r)
{
    switch (r->status) {
    case WEFT_PLAN_SIMULATED:
    case WEFT_PLAN_OOM:
        return r->step_s;
    case WEFT_PLAN_PRUNED:
    case WEFT_PLAN_SKIPPED:
        return r->bound_s;
    case WEFT_PLAN_NO_FIT:
        return r->mem_est_bytes;
    default:
        return 0;
    }
}

static gint
by_rank(gconstpointer a, gconstpointer b, gpointer data)
{
    const weft_plan_row_t *rows = data;
    guint i = *(const guint *)a, j = *(const guint *)b;
    int ci = row_class(rows[i].status), cj = row_class(rows[j].status);
    if (ci != cj) {
        return ci - cj;
    }
    double x = row_key(&rows[i]), y = row_key(&rows[j]);
    return x < y ? -1 : x > y ? 1 : (i > j) - (i < j);
}

static void
row_clear(gpointer p)
{
    weft_plan_row_t *r = p;
    g_free(r->keys);
    g_free(r->limiter);
}

void
weft_plan_free(weft_plan_t *P)
{
    if (P == NULL) {
        return;
    }
    g_free((char *)P->o.model);
    g_free((char *)P->o.cluster);
    g_ptr_array_unref(P->base);
    weft_topo_free(P->topo);
    if (P->rows != NULL) {
        g_array_unref(P->rows);
    }
    g_free(P->order);
    g_mutex_clear(&P->lock);
    g_cond_clear(&P->done_cond);
    g_free(P);
}

/* The setup: options, base assignments, cluster, GPU, model. */
static gboolean
setup(weft_plan_t *P, const weft_plan_options_t *o, GError **error)
{
    if (o->model == NULL || o->cluster == NULL) {
        g_set_error(error, WEFT_PLAN_ERROR, WEFT_PLAN_ERROR_USAGE, "%s",
                    o->model == NULL ? "--model is required (a weft gen preset)"
                                     : "--cluster is required (a cluster file)");
        return FALSE;
    }
    if (o->global_batch == 0) {
        g_set_error(error, WEFT_PLAN_ERROR, WEFT_PLAN_ERROR_USAGE,
                    "--global-batch is required and must be at least 1");
        return FALSE;
    }
    P->o = *o;
    P->o.model = g_strdup(o->model);
    P->o.cluster = g_strdup(o->cluster);
    P->o.sets = NULL;
    P->exact_bounds = g_getenv("WEFT_PLAN_EXACT_BOUNDS") != NULL;
    P->o.max_tp = o->max_tp != 0 ? o->max_tp : 8;
    P->o.max_cp = o->max_cp != 0 ? o->max_cp : 1;
    P->o.max_mb = o->max_mb != 0 ? o->max_mb : 8;
    P->o.top = o->top != 0 ? o->top : 1;
    P->o.threads = o->threads != 0 ? o->threads : g_get_num_processors();
    g_ptr_array_add(P->base, g_strdup_printf("cluster.file=%s", o->cluster));
    for (guint i = 0; o->sets != NULL && o->sets[i] != NULL; i++) {
        const char *a = o->sets[i];
        if (g_str_has_prefix(a, "transformer.")) {
            g_autofree char *key = g_strdup(a + strlen("transformer."));
            char *eq = strchr(key, '=');
            if (eq != NULL) {
                *eq = '\0';
            }
            g_strstrip(key);
            if (is_searched(key)) {
                g_set_error(error, WEFT_PLAN_ERROR, WEFT_PLAN_ERROR_USAGE,
                            "--set %s: transformer.%s is chosen by the plan (or by --model, "
                            "--global-batch, --seq), not set",
                            a, key);
                return FALSE;
            }
        }
        g_ptr_array_add(P->base, g_strdup(a));
    }
    g_ptr_array_add(P->base, g_strdup_printf("transformer.model=%s", o->model));
    g_ptr_array_add(P->base, g_strdup_printf("transformer.global_batch=%u", o->global_batch));
    if (o->seq != 0) {
        g_ptr_array_add(P->base, g_strdup_printf("transformer.seq=%u", o->seq));
    }
    if (!g_file_test(o->cluster, G_FILE_TEST_IS_REGULAR)) {
        g_set_error(error, WEFT_PLAN_ERROR, WEFT_PLAN_ERROR_SETUP,
                    "--cluster %s: no such file (a cluster file: topologies/*.ini)", o->cluster);
        return FALSE;
    }
    g_autoptr(GError) err = NULL;
    weft_scenario_t *sc = weft_scenario_new();
    for (guint i = 0; i < P->base->len; i++) {
        if (!weft_scenario_set(sc, g_ptr_array_index(P->base, i), &err)) {
            weft_scenario_free(sc);
            /* the scenario's message quotes the assignment ("--set GROUP.KEY=VALUE: ...") */
            g_set_error(error, WEFT_PLAN_ERROR, WEFT_PLAN_ERROR_SETUP, "%s", err->message);
            return FALSE;
        }
    }
    P->topo = weft_scenario_build_cluster(sc, &err);
    if (P->topo == NULL) {
        weft_scenario_free(sc);
        g_set_error(error, WEFT_PLAN_ERROR, WEFT_PLAN_ERROR_SETUP, "--cluster %s: %s", o->cluster,
                    err->message);
        return FALSE;
    }
    guint n = weft_topo_n_gpus(P->topo);
    if (o->gpus > n) {
        weft_scenario_free(sc);
        g_set_error(error, WEFT_PLAN_ERROR, WEFT_PLAN_ERROR_USAGE,
                    "--gpus %u: the cluster %s has %u GPUs (--set cluster.nodes=N makes more)",
                    o->gpus, o->cluster, n);
        return FALSE;
    }
    P->gpus = o->gpus != 0 ? o->gpus : n;
    P->gpu = weft_topo_gpu_model(P->topo, &err);
    if (P->gpu == NULL && err != NULL) {
        weft_scenario_free(sc);
        g_set_error(error, WEFT_PLAN_ERROR, WEFT_PLAN_ERROR_SETUP, "--cluster %s: %s", o->cluster,
                    err->message);
        return FALSE;
    }
    weft_scenario_config_t cfg;
    if (!weft_scenario_resolve(sc, &cfg, &err)) {
        weft_scenario_free(sc);
        g_set_error(error, WEFT_PLAN_ERROR, WEFT_PLAN_ERROR_SETUP, "%s", err->message);
        return FALSE;
    }
    weft_gen_spec_t spec = cfg.transformer;
    gboolean ok = weft_gen_spec_use_cluster_gpu(&spec, P->gpu, o->cluster, "weft plan", &err) &&
                  weft_gen_spec_finish(&spec, P->gpus, "weft plan", &err);
    if (ok && P->gpu == NULL) {
        P->gpu = weft_hw_gpu(spec.gpu, &err);
        ok = P->gpu != NULL;
    }
    weft_scenario_free(sc);
    if (!ok) {
        g_set_error(error, WEFT_PLAN_ERROR, WEFT_PLAN_ERROR_SETUP, "%s", err->message);
        return FALSE;
    }
    P->model = spec.c;
    P->stats.gpus = P->gpus;
    P->stats.hbm_bytes = P->gpu->hbm_bytes;
    P->stats.peak_flops = P->gpu->bf16_flops;
    P->stats.model_flops = model_flops(&P->model, o->global_batch);
    return TRUE;
}

weft_plan_t *
weft_plan_run(const weft_plan_options_t *o, GError **error)
{
    g_return_val_if_fail(o != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    g_autoptr(weft_plan_t) P = g_new0(weft_plan_t, 1);
    g_mutex_init(&P->lock);
    g_cond_init(&P->done_cond);
    P->base = g_ptr_array_new_with_free_func(g_free);
    P->rows = g_array_new(FALSE, TRUE, sizeof(weft_plan_row_t));
    g_array_set_clear_func(P->rows, row_clear);
    if (!setup(P, o, error)) {
        return NULL;
    }
    gint64 t0 = g_get_monotonic_time();
    guint chosen[N_AXES] = {0};
    enumerate(P, 0, chosen);
    guint n = P->rows->len;
    if (n == 0) {
        g_set_error(error, WEFT_PLAN_ERROR, WEFT_PLAN_ERROR_NOTHING,
                    "no parallel configuration of %s on %u GPUs at global batch %u (tp up to "
                    "%u dividing the heads, pp dividing the layers, dp = GPUs / (tp pp cp) "
                    "dividing the batch)",
                    P->o.model, P->gpus, P->o.global_batch, P->o.max_tp);
        return NULL;
    }
    /* phase A: fit and bound, in threads (a generation per fitting candidate) */
    GThreadPool *pool = g_thread_pool_new(prepare, P, (gint)P->o.threads, FALSE, NULL);
    for (guint i = 0; i < n; i++) {
        g_thread_pool_push(pool, &g_array_index(P->rows, weft_plan_row_t, i), NULL);
    }
    /* the progress line polls the queue; the rows depend only on their candidate */
    while (P->o.progress != NULL && g_thread_pool_unprocessed(pool) > 0) {
        weft_progress_report(P->o.progress, -1, "fit and bound of %u candidates: %u queued", n,
                             g_thread_pool_unprocessed(pool));
        g_usleep(100000);
    }
    g_thread_pool_free(pool, FALSE, TRUE);
    g_debug("%u candidates checked and bounded in %.1f s", n,
            (double)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
    weft_plan_row_t *rows = (weft_plan_row_t *)P->rows->data;
    g_autoptr(GArray) fit = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint i = 0; i < n; i++) {
        if (rows[i].status == WEFT_PLAN_SKIPPED) {
            g_array_append_val(fit, i);
        }
    }
    g_array_sort_with_data(fit, by_bound, rows);
    /* phase B: replays in ascending bound until the bound proves the top K */
    pool = g_thread_pool_new(sim_worker, P, (gint)P->o.threads, FALSE, NULL);
    guint next = 0, sims = 0;
    g_mutex_lock(&P->lock);
    for (;;) {
        while (next < fit->len && P->running < P->o.threads) {
            weft_plan_row_t *r = &rows[g_array_index(fit, guint, next)];
            if (!P->o.no_prune && r->bound_s > kth_best(P)) {
                break;
            }
            if (P->o.max_sims != 0 && sims >= P->o.max_sims) {
                break;
            }
            P->running++;
            sims++;
            next++;
            g_thread_pool_push(pool, r, NULL);
        }
        if (P->running == 0) {
            break;
        }
        guint f = P->finished;
        while (P->finished == f) {
            g_cond_wait(&P->done_cond, &P->lock);
        }
        if (P->o.progress != NULL) {
            double best = kth_best(P);
            weft_progress_report(
                P->o.progress, -1, "%u of %u fitting candidates simulated, best %s%.3f s",
                P->finished, fit->len, isinf(best) ? ">" : "", isinf(best) ? 0.0 : best);
        }
    }
    double kth = kth_best(P);
    g_mutex_unlock(&P->lock);
    g_thread_pool_free(pool, FALSE, TRUE);
    weft_progress_finish(P->o.progress);
    gboolean capped = FALSE;
    for (guint k = next; k < fit->len; k++) {
        weft_plan_row_t *r = &rows[g_array_index(fit, guint, k)];
        if (!P->o.no_prune && r->bound_s > kth) {
            r->status = WEFT_PLAN_PRUNED;
            r->limiter = g_strdup_printf("pruned: bound %.3f s > %s best %.3f s", r->bound_s,
                                         P->o.top == 1 ? "the" : "the K-th", kth);
        } else {
            r->status = WEFT_PLAN_SKIPPED;
            r->limiter = g_strdup_printf("not simulated: --max-sims %u reached", P->o.max_sims);
            capped = TRUE;
        }
    }
    GArray *order = g_array_sized_new(FALSE, FALSE, sizeof(guint), n);
    for (guint i = 0; i < n; i++) {
        g_array_append_val(order, i);
    }
    g_array_sort_with_data(order, by_rank, rows);
    P->order = (guint *)(void *)g_array_free(order, FALSE);
    weft_plan_stats_t *st = &P->stats;
    st->candidates = n;
    for (guint i = 0; i < n; i++) {
        switch (rows[i].status) {
        case WEFT_PLAN_SIMULATED:
            st->simulated++;
            break;
        case WEFT_PLAN_OOM:
            st->simulated++;
            st->oom++;
            break;
        case WEFT_PLAN_PRUNED:
            st->pruned++;
            break;
        case WEFT_PLAN_SKIPPED:
            st->skipped++;
            break;
        case WEFT_PLAN_NO_FIT:
            st->no_fit++;
            break;
        default:
            st->failed++;
            break;
        }
    }
    st->exact = !capped;
    return g_steal_pointer(&P);
}

guint
weft_plan_n_rows(const weft_plan_t *P)
{
    g_return_val_if_fail(P != NULL, 0);
    return P->rows->len;
}

const weft_plan_row_t *
weft_plan_row(const weft_plan_t *P, guint i)
{
    g_return_val_if_fail(P != NULL && i < P->rows->len, NULL);
    return &g_array_index(P->rows, weft_plan_row_t, P->order[i]);
}

void
weft_plan_stats(const weft_plan_t *P, weft_plan_stats_t *out)
{
    g_return_if_fail(P != NULL && out != NULL);
    *out = P->stats;
}

static const char *
recompute_text(guint r)
{
    return r < G_N_ELEMENTS(recompute_names) - 1 ? recompute_names[r] : "?";
}

char *
weft_plan_table(const weft_plan_t *P)
{
    g_return_val_if_fail(P != NULL, NULL);
    GString *s = g_string_new(NULL);
    g_string_append_printf(s,
                           "%4s %3s %3s %3s %3s %5s %3s %-9s %4s %-13s %9s %9s %6s %9s %10s  %s\n",
                           "rank", "tp", "pp", "vpp", "cp", "dp", "mb", "recompute", "dopt",
                           "status", "step_s", "bound_s", "MFU%", "mem_GiB", "tokens/s", "limiter");
    for (guint i = 0; i < P->rows->len; i++) {
        const weft_plan_row_t *r = weft_plan_row(P, i);
        gboolean sim = r->status == WEFT_PLAN_SIMULATED || r->status == WEFT_PLAN_OOM;
        char step[32], bound[32], mfu[32], mem[32], tok[32];
        g_snprintf(step, sizeof step, sim ? "%.3f" : "-", r->step_s);
        g_snprintf(bound, sizeof bound, r->bound_s > 0 ? "%.3f" : "-", r->bound_s);
        g_snprintf(mfu, sizeof mfu, sim ? "%.1f" : "-", 100 * r->mfu);
        if (sim && r->mem_peak_bytes > 0) {
            g_snprintf(mem, sizeof mem, "%.1f", r->mem_peak_bytes / 1073741824.0);
        } else {
            g_snprintf(mem, sizeof mem, "~%.1f", r->mem_est_bytes / 1073741824.0);
        }
        g_snprintf(tok, sizeof tok, sim ? "%.0f" : "-", r->tokens_per_s);
        g_string_append_printf(
            s, "%4u %3u %3u %3u %3u %5u %3u %-9s %4s %-13s %9s %9s %6s %9s %10s  %s\n", i + 1,
            r->tp, r->pp, r->vpp, r->cp, r->dp, r->micro_batch, recompute_text(r->recompute),
            r->dist_opt ? "on" : "off", weft_plan_status_name(r->status), step, bound, mfu, mem,
            tok, r->limiter != NULL ? r->limiter : "");
    }
    return g_string_free(s, FALSE);
}

static void
csv_field(GString *s, const char *text)
{
    if (strpbrk(text, ",\"\n") == NULL) {
        g_string_append(s, text);
        return;
    }
    g_string_append_c(s, '"');
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '"') {
            g_string_append_c(s, '"');
        }
        g_string_append_c(s, *p);
    }
    g_string_append_c(s, '"');
}

gboolean
weft_plan_write_csv(const weft_plan_t *P, const char *path, GError **error)
{
    g_return_val_if_fail(P != NULL && path != NULL, FALSE);
    GString *s = g_string_new("rank,tp,pp,vpp,cp,dp,micro_batch,recompute,sp,dist_opt,status,"
                              "step_time_s,bound_s,mfu_pct,mem_peak_GiB,mem_est_GiB,"
                              "tokens_per_s,compute_s,exposed_comm_s,idle_s,limiter\n");
    for (guint i = 0; i < P->rows->len; i++) {
        const weft_plan_row_t *r = weft_plan_row(P, i);
        gboolean sim = r->status == WEFT_PLAN_SIMULATED || r->status == WEFT_PLAN_OOM;
        g_string_append_printf(s, "%u,%u,%u,%u,%u,%u,%u,%s,%s,%s,%s,", i + 1, r->tp, r->pp, r->vpp,
                               r->cp, r->dp, r->micro_batch, recompute_text(r->recompute),
                               r->sp ? "true" : "false", r->dist_opt ? "true" : "false",
                               weft_plan_status_name(r->status));
        if (sim) {
            g_string_append_printf(s, "%.6f,", r->step_s);
        } else {
            g_string_append_c(s, ',');
        }
        if (r->bound_s > 0) {
            g_string_append_printf(s, "%.6f,", r->bound_s);
        } else {
            g_string_append_c(s, ',');
        }
        if (sim) {
            g_string_append_printf(s, "%.3f,", 100 * r->mfu);
            if (r->mem_peak_bytes > 0) {
                g_string_append_printf(s, "%.3f,", r->mem_peak_bytes / 1073741824.0);
            } else {
                g_string_append_c(s, ',');
            }
        } else {
            g_string_append(s, ",,");
        }
        g_string_append_printf(s, "%.3f,", r->mem_est_bytes / 1073741824.0);
        if (sim) {
            g_string_append_printf(s, "%.1f,%.6f,%.6f,%.6f,", r->tokens_per_s, r->compute_s,
                                   r->exposed_comm_s, r->idle_s);
        } else {
            g_string_append(s, ",,,,");
        }
        csv_field(s, r->limiter != NULL ? r->limiter : "");
        g_string_append_c(s, '\n');
    }
    gboolean ok = weft_output_write(path, s->str, (gssize)s->len, error);
    g_string_free(s, TRUE);
    return ok;
}
