/* SPDX-License-Identifier: MIT */
/*
 * A study's metrics as tables: each row is a column of the results CSV with
 * its name, unit and accessor. A replay point's metrics read the scenario's
 * run; a training-run point's read its resolved parameters and Monte Carlo
 * (job/job.h). Adding a metric is one row (and its accessor).
 */
#define G_LOG_DOMAIN "weft-study"
#include "study/study_private.h"

#include <math.h>
#include <string.h>

#include "scenario/jobs.h"
#include "topo/analysis.h"
#include "topo/topo.h"

/* ---- replay metrics ---------------------------------------------------------------------- */

/* The per-rank aggregates, as the argument of rank_metric(): field offset x 4 + aggregate. */
enum { AGG_MAX, AGG_MEAN, AGG_MIN };
#define GIB 1073741824.0
#define RANK_ARG(field, agg) (G_STRUCT_OFFSET(weft_rank_result_t, field) * 4 + (agg))

static double
rank_metric(const weft_scenario_run_t *run, gsize arg)
{
    const weft_replay_result_t *res = run->replay;
    gsize offset = arg / 4, agg = arg % 4;
    weft_time_t mx = G_MININT64, mn = G_MAXINT64;
    double sum = 0.0;
    for (guint r = 0; r < res->n_ranks; r++) {
        weft_time_t v = G_STRUCT_MEMBER(weft_time_t, &res->ranks[r], offset);
        mx = MAX(mx, v);
        mn = MIN(mn, v);
        sum += (double)v;
    }
    if (res->n_ranks == 0) {
        mx = mn = 0;
    }
    return agg == AGG_MAX   ? weft_time_to_us(mx)
           : agg == AGG_MIN ? weft_time_to_us(mn)
                            : (res->n_ranks > 0 ? sum / res->n_ranks / 1e6 : 0.0);
}

static double
step_time_us(const weft_scenario_run_t *run, gsize arg)
{
    (void)arg;
    return weft_time_to_us(run->replay->step_ps);
}

/* The counts, by the argument of count_metric(). */
enum { C_RANKS, C_GPUS, C_VERTICES, C_LINKS, C_NODES, C_COLLECTIVES, C_P2P, C_EVENTS };

static double
count_metric(const weft_scenario_run_t *run, gsize arg)
{
    const weft_replay_result_t *res = run->replay;
    switch (arg) {
    case C_RANKS:
        return res->n_ranks;
    case C_GPUS:
        return weft_topo_n_gpus(run->topo);
    case C_VERTICES:
        return weft_topo_n_vertices(run->topo);
    case C_LINKS:
        return weft_topo_n_edges(run->topo);
    case C_NODES:
        return (double)weft_workload_node_count(run->workload);
    case C_COLLECTIVES:
        return (double)res->collectives;
    case C_P2P:
        return (double)res->p2p_transfers;
    default:
        return (double)res->events;
    }
}

/* Memory (workload/memory.h), by the argument of mem_metric(); NaN (an empty cell) when the
 * workload carries no memory or, for the HBM columns, the cluster records no GPU model. */
enum { M_PEAK_MAX, M_PEAK_MEAN, M_PEAK_RANK, M_HBM, M_HEADROOM };

static double
mem_metric(const weft_scenario_run_t *run, gsize arg)
{
    const weft_replay_result_t *res = run->replay;
    if (!res->mem_known || res->n_ranks == 0) {
        return NAN;
    }
    guint best = 0;
    double sum = 0;
    for (guint r = 0; r < res->n_ranks; r++) {
        sum += (double)res->ranks[r].mem_peak_bytes;
        if (res->ranks[r].mem_peak_bytes > res->ranks[best].mem_peak_bytes) {
            best = r;
        }
    }
    double peak = (double)res->ranks[best].mem_peak_bytes;
    const weft_hw_gpu_t *gpu = weft_topo_vertex_gpu_model(
        run->topo, weft_topo_gpu_vertex(run->topo, run->rank_gpu[best]));
    switch (arg) {
    case M_PEAK_MAX:
        return peak / GIB;
    case M_PEAK_MEAN:
        return sum / res->n_ranks / GIB;
    case M_PEAK_RANK:
        return best;
    case M_HBM:
        return gpu != NULL ? gpu->hbm_bytes / GIB : NAN;
    default:
        return gpu != NULL ? (gpu->hbm_bytes - peak) / GIB : NAN;
    }
}

/* The cluster's figures (weft topo show), by the argument: 0 bisection in GB/s per direction,
 * 1 diameter in hops, 2 the leaf tier's realized oversubscription (down / up bandwidth of the
 * leaves as built: the ratio asked for is rounded to whole uplinks per leaf, at least one, and
 * a leaf with free ports has fewer links down than it was sized for). Each asks weft_topo_summarize() (a max flow and all-pairs hop counts:
 * about a second at 16,384 GPUs), so they cost only when a study asks for them. NaN when the
 * figure is not known: the summary failed, or the diameter above WEFT_TOPO_DIAMETER_MAX_GPUS. */
static double
topo_metric(const weft_scenario_run_t *run, gsize arg)
{
    weft_topo_summary_t s;
    g_autoptr(GError) error = NULL;
    if (!weft_topo_summarize(run->topo, &s, &error)) {
        g_debug("cluster figures: %s", error->message);
        return NAN;
    }
    if (arg == 0) {
        return s.bisection_Bps / 1e9;
    }
    if (arg == 2) {
        for (guint k = 0; k < s.n_tiers; k++) {
            if (s.tiers[k].tier == 1 && s.tiers[k].up_Bps > 0) {
                return s.tiers[k].oversubscription;
            }
        }
        return NAN; /* no leaf with uplinks: one switch tier, or none */
    }
    return s.diameter_exact || s.n_gpus <= 1 ? (double)s.diameter_hops : NAN;
}

/* Several jobs on one fabric (workload.jobs; scenario/jobs.h), by the argument: job k (from
 * 0, in the jobs file's order) x 4 + what: 0 its time in us, 1 its slowdown against running
 * alone; J_MAX_SLOWDOWN: the largest slowdown. NaN (an empty cell) without workload.jobs, for
 * a job the file lacks, and for slowdowns when the jobs were not run alone. */
enum { J_TIME, J_SLOWDOWN, J_MAX_SLOWDOWN = 4 * 8 };

static double
jobs_metric(const weft_scenario_run_t *run, gsize arg)
{
    if (run->jobs == NULL) {
        return NAN;
    }
    guint n = weft_jobs_n(run->jobs);
    if (arg == J_MAX_SLOWDOWN) {
        double worst = NAN;
        for (guint j = 0; j < n; j++) {
            double v = weft_jobs_slowdown(run->jobs, j);
            worst = isnan(worst) || v > worst ? v : worst;
        }
        return worst;
    }
    guint j = (guint)(arg / 4);
    if (j >= n) {
        return NAN;
    }
    return arg % 4 == J_TIME ? weft_time_to_us(weft_jobs_time_ps(run->jobs, j))
                             : weft_jobs_slowdown(run->jobs, j);
}

#define JOB_ROWS(k)                                                                                \
    {"job" #k "_time_us", "us", FALSE, jobs_metric, NULL, ((k) - 1) * 4 + J_TIME},                 \
        {"job" #k "_slowdown", "ratio", FALSE, jobs_metric, NULL, ((k) - 1) * 4 + J_SLOWDOWN}

#define RANK_ROWS(field, name)                                                                     \
    {name "_us_max", "us", FALSE, rank_metric, NULL, RANK_ARG(field, AGG_MAX)},                    \
        {name "_us_mean", "us", FALSE, rank_metric, NULL, RANK_ARG(field, AGG_MEAN)},              \
        {name "_us_min", "us", FALSE, rank_metric, NULL, RANK_ARG(field, AGG_MIN)}

const weft_study_metric_t weft_study_replay_metrics[] = {
    {"step_time_us", "us", FALSE, step_time_us, NULL, 0},
    RANK_ROWS(finish_ps, "finish"),
    RANK_ROWS(compute_ps, "compute"),
    RANK_ROWS(exposed_comm_ps, "exposed_comm"),
    RANK_ROWS(overlapped_comm_ps, "overlapped_comm"),
    RANK_ROWS(idle_ps, "idle"),
    {"ranks", "count", TRUE, count_metric, NULL, C_RANKS},
    {"gpus", "count", TRUE, count_metric, NULL, C_GPUS},
    {"vertices", "count", TRUE, count_metric, NULL, C_VERTICES},
    {"links", "count", TRUE, count_metric, NULL, C_LINKS},
    {"nodes", "count", TRUE, count_metric, NULL, C_NODES},
    {"collectives", "count", TRUE, count_metric, NULL, C_COLLECTIVES},
    {"p2p_transfers", "count", TRUE, count_metric, NULL, C_P2P},
    {"events", "count", TRUE, count_metric, NULL, C_EVENTS},
    {"mem_peak_GiB_max", "GiB", FALSE, mem_metric, NULL, M_PEAK_MAX},
    {"mem_peak_GiB_mean", "GiB", FALSE, mem_metric, NULL, M_PEAK_MEAN},
    {"mem_peak_rank", "rank", TRUE, mem_metric, NULL, M_PEAK_RANK},
    {"hbm_GiB", "GiB", FALSE, mem_metric, NULL, M_HBM},
    {"mem_headroom_GiB", "GiB", FALSE, mem_metric, NULL, M_HEADROOM},
    {"bisection_GBps", "GBps", FALSE, topo_metric, NULL, 0},
    {"diameter_hops", "count", TRUE, topo_metric, NULL, 1},
    {"leaf_oversubscription", "ratio", FALSE, topo_metric, NULL, 2},
    /* workload.jobs: jobs 1 to 4 in the jobs file's order, and the worst slowdown */
    JOB_ROWS(1),
    JOB_ROWS(2),
    JOB_ROWS(3),
    JOB_ROWS(4),
    {"jobs_slowdown_max", "ratio", FALSE, jobs_metric, NULL, J_MAX_SLOWDOWN},
};
const guint weft_study_n_replay_metrics = G_N_ELEMENTS(weft_study_replay_metrics);

/* ---- training-run metrics ---------------------------------------------------------------- */

#define DAY 86400.0
#define HOUR 3600.0

/* A training-run accessor: @expr over mc (weft_job_mc_t) and p (weft_job_params_t). */
#define TRAIN_ACCESSOR(fn, expr)                                                                   \
    static double fn(const weft_study_train_run_t *tr)                                            \
    {                                                                                              \
        const weft_job_mc_t *mc = &tr->mc;                                                         \
        const weft_job_params_t *p = &tr->p;                                                       \
        (void)mc;                                                                                  \
        (void)p;                                                                                   \
        return (expr);                                                                             \
    }

TRAIN_ACCESSOR(goodput_mean, 100.0 * mc->goodput.mean)
TRAIN_ACCESSOR(goodput_lo, 100.0 * mc->goodput.ci95_lo)
TRAIN_ACCESSOR(goodput_hi, 100.0 * mc->goodput.ci95_hi)
TRAIN_ACCESSOR(goodput_median, 100.0 * mc->goodput.median)
TRAIN_ACCESSOR(goodput_min, 100.0 * mc->goodput.min)
TRAIN_ACCESSOR(e2e_mean, mc->wall_s.mean / DAY)
TRAIN_ACCESSOR(e2e_lo, mc->wall_s.ci95_lo / DAY)
TRAIN_ACCESSOR(e2e_hi, mc->wall_s.ci95_hi / DAY)
TRAIN_ACCESSOR(e2e_median, mc->wall_s.median / DAY)
TRAIN_ACCESSOR(e2e_p90, mc->wall_s.p90 / DAY)
TRAIN_ACCESSOR(interruptions_mean, mc->interruptions.mean)
TRAIN_ACCESSOR(interruptions_p90, mc->interruptions.p90)
TRAIN_ACCESSOR(lost_mean, mc->lost_s.mean / HOUR)
TRAIN_ACCESSOR(checkpoint_mean, mc->checkpoint_s.mean / HOUR)
TRAIN_ACCESSOR(restart_mean, mc->restart_s.mean / HOUR)
TRAIN_ACCESSOR(slowdown_mean, mc->slowdown_s.mean / HOUR)
TRAIN_ACCESSOR(steps_done_mean, mc->steps_done.mean)
TRAIN_ACCESSOR(interval_steps, (double)mc->checkpoint_steps)
TRAIN_ACCESSOR(interval_s, (double)mc->checkpoint_steps * p->step_time_s)
TRAIN_ACCESSOR(step_time_s, p->step_time_s)
TRAIN_ACCESSOR(checkpoint_write_s, p->checkpoint_write_s)
TRAIN_ACCESSOR(restart_s, p->restart_s)
TRAIN_ACCESSOR(system_mtbf_h, weft_job_system_mtbf_s(p) / HOUR)
TRAIN_ACCESSOR(samples, (double)mc->samples)

/* Young's and Daly's intervals in steps; 0 when nothing fails (an infinite MTBF). */
static double
young_steps(const weft_study_train_run_t *tr)
{
    double M = weft_job_system_mtbf_s(&tr->p);
    return isfinite(M) ? (double)weft_job_interval_steps(
                             &tr->p, weft_job_young_s(tr->p.checkpoint_write_s, M))
                       : 0.0;
}

static double
daly_steps(const weft_study_train_run_t *tr)
{
    double M = weft_job_system_mtbf_s(&tr->p);
    return isfinite(M) ? (double)weft_job_interval_steps(
                             &tr->p, weft_job_daly_s(tr->p.checkpoint_write_s, M))
                       : 0.0;
}

/* Units in the names: pct (goodput x 100), days, h, s; counts bare. */
const weft_study_metric_t weft_study_train_metrics[] = {
    {"goodput_pct_mean", "pct", FALSE, NULL, goodput_mean, 0},
    {"goodput_pct_ci95_lo", "pct", FALSE, NULL, goodput_lo, 0},
    {"goodput_pct_ci95_hi", "pct", FALSE, NULL, goodput_hi, 0},
    {"goodput_pct_median", "pct", FALSE, NULL, goodput_median, 0},
    {"goodput_pct_min", "pct", FALSE, NULL, goodput_min, 0},
    {"e2e_days_mean", "days", FALSE, NULL, e2e_mean, 0},
    {"e2e_days_ci95_lo", "days", FALSE, NULL, e2e_lo, 0},
    {"e2e_days_ci95_hi", "days", FALSE, NULL, e2e_hi, 0},
    {"e2e_days_median", "days", FALSE, NULL, e2e_median, 0},
    {"e2e_days_p90", "days", FALSE, NULL, e2e_p90, 0},
    {"interruptions_mean", "count", FALSE, NULL, interruptions_mean, 0},
    {"interruptions_p90", "count", FALSE, NULL, interruptions_p90, 0},
    {"lost_work_h_mean", "h", FALSE, NULL, lost_mean, 0},
    {"checkpoint_h_mean", "h", FALSE, NULL, checkpoint_mean, 0},
    {"restart_h_mean", "h", FALSE, NULL, restart_mean, 0},
    {"slowdown_h_mean", "h", FALSE, NULL, slowdown_mean, 0},
    {"steps_done_mean", "steps", FALSE, NULL, steps_done_mean, 0},
    {"checkpoint_interval_steps", "steps", TRUE, NULL, interval_steps, 0},
    {"checkpoint_interval_s", "s", FALSE, NULL, interval_s, 0},
    {"step_time_s", "s", FALSE, NULL, step_time_s, 0},
    {"checkpoint_write_s", "s", FALSE, NULL, checkpoint_write_s, 0},
    {"restart_s", "s", FALSE, NULL, restart_s, 0},
    {"system_mtbf_h", "h", FALSE, NULL, system_mtbf_h, 0},
    {"young_interval_steps", "steps", TRUE, NULL, young_steps, 0},
    {"daly_interval_steps", "steps", TRUE, NULL, daly_steps, 0},
    {"samples", "count", TRUE, NULL, samples, 0},
};
const guint weft_study_n_train_metrics = G_N_ELEMENTS(weft_study_train_metrics);

/* ---- by name, and as text ------------------------------------------------------------------ */

void
weft_study_i_metrics(gboolean train, const weft_study_metric_t **table, guint *n)
{
    *table = train ? weft_study_train_metrics : weft_study_replay_metrics;
    *n = train ? weft_study_n_train_metrics : weft_study_n_replay_metrics;
}

const weft_study_metric_t *
weft_study_i_metric_find(gboolean train, const char *name)
{
    const weft_study_metric_t *table;
    guint n;
    weft_study_i_metrics(train, &table, &n);
    for (guint i = 0; i < n; i++) {
        if (strcmp(table[i].name, name) == 0) {
            return &table[i];
        }
    }
    return NULL;
}

char *
weft_study_i_metric_list(gboolean train)
{
    const weft_study_metric_t *table;
    guint n;
    weft_study_i_metrics(train, &table, &n);
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < n; i++) {
        g_string_append_printf(s, "%s%s", i > 0 ? ", " : "", table[i].name);
    }
    return g_string_free(s, FALSE);
}

void
weft_study_i_metric_append(GString *s, const weft_study_metric_t *m, const weft_scenario_run_t *run,
                           const weft_study_train_run_t *tr)
{
    double v = m->replay != NULL ? m->replay(run, m->arg) : m->train(tr);
    if (isnan(v)) {
        return; /* unknown (a memory metric of a trace without memory): an empty cell */
    }
    if (m->count) {
        g_string_append_printf(s, "%" G_GUINT64_FORMAT, (guint64)v);
    } else if (isfinite(v)) {
        g_string_append_printf(s, "%.6f", v);
    } else {
        g_string_append(s, "inf");
    }
}

/* NULL-terminated name lists, built once from the tables (study.h). */
static const char *const *
names_of(gboolean train)
{
    static const char **lists[2];
    static gsize once[2];
    if (g_once_init_enter(&once[train ? 1 : 0])) {
        const weft_study_metric_t *table;
        guint n;
        weft_study_i_metrics(train, &table, &n);
        const char **names = g_new0(const char *, n + 1);
        for (guint i = 0; i < n; i++) {
            names[i] = table[i].name;
        }
        lists[train ? 1 : 0] = names;
        g_once_init_leave(&once[train ? 1 : 0], 1);
    }
    return lists[train ? 1 : 0];
}

const char *const *
weft_study_metric_names(void)
{
    return names_of(FALSE);
}

const char *const *
weft_study_train_metric_names(void)
{
    return names_of(TRUE);
}
