/* SPDX-License-Identifier: MIT */
/*
 * A whole training run: the simulation of one run (checkpoint segments skipped in closed form
 * between failures, step by step only while a degrading fault lasts), Monte Carlo over seeded
 * samples in a thread pool, the Young and Daly intervals and the search for the best one. The
 * configuration files and reports are in job_config.c. See job.h for the model.
 */
#define G_LOG_DOMAIN "weft-job"

#include "job/job.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK(weft - job - error - quark, weft_job_error)

void
weft_job_params_init(weft_job_params_t *p)
{
    memset(p, 0, sizeof *p);
    p->steps = 0;
    p->span_s = INFINITY;
    p->checkpoint_steps = 1;
    weft_fault_rates_init_default(&p->rates);
    p->samples = 1000;
    p->seed = 1;
}

const char *
weft_job_span_kind_name(weft_job_span_kind_t kind)
{
    static const char *const names[] = {"train", "lost", "restart", "degraded"};
    g_return_val_if_fail(kind <= WEFT_JOB_SPAN_DEGRADED, "?");
    return names[kind];
}

/* ---- one run ------------------------------------------------------------------------------ */

/* Where a run's failures come from: a sampler, or a fixed list (the test hook). */
typedef struct {
    weft_fault_sampler_t *sampler;
    const weft_fault_event_t *events;
    guint n, i;
} source_t;

static void
source_next(source_t *s, weft_fault_event_t *ev)
{
    if (s->sampler != NULL) {
        weft_fault_sampler_next(s->sampler, ev);
    } else if (s->events != NULL && s->i < s->n) {
        *ev = s->events[s->i++];
    } else {
        ev->time_s = INFINITY;
        ev->component_class = WEFT_FAULT_UNKNOWN;
        ev->component = 0;
    }
}

/* A degrading fault in force: steps starting before end_s take step_s. */
typedef struct {
    double end_s;
    double step_s;
} window_t;

typedef struct {
    const weft_job_params_t *p;
    weft_job_sample_t *out;
    source_t *fails, *degs;
    weft_fault_event_t fail, deg;
    GArray *active;   /* window_t */
    double t;         /* wall-clock now */
    guint64 c;        /* steps committed by a checkpoint (or done, at the end) */
    double span;      /* wall-clock end, INFINITY without a span */
    guint64 K;        /* checkpoint interval, steps */
    GArray *tl;       /* (nullable) weft_job_span_t: the run's timeline */
    double kept_from; /* start of the progress not yet recorded in tl */
} run_t;

/* Appends a span to the timeline, if one is kept and the span is not empty. */
static void
record(run_t *r, weft_job_span_kind_t kind, double start_s, double end_s,
       const weft_fault_event_t *fault, double step_s)
{
    if (r->tl == NULL || !(end_s > start_s)) {
        return;
    }
    weft_job_span_t sp = {kind, start_s, end_s, {0.0, WEFT_FAULT_UNKNOWN, 0}, step_s};
    if (fault != NULL) {
        sp.fault = *fault;
    }
    g_array_append_val(r->tl, sp);
}

/* A failure at r->fail.time_s loses the work since @seg_start (the last checkpoint). */
static void
lose(run_t *r, double seg_start)
{
    r->out->lost_s += r->fail.time_s - seg_start;
    record(r, WEFT_JOB_SPAN_TRAIN, r->kept_from, seg_start, NULL, r->p->step_time_s);
    record(r, WEFT_JOB_SPAN_LOST, seg_start, r->fail.time_s, &r->fail, r->p->step_time_s);
    r->t = r->fail.time_s;
}

/* Admits every degrading fault that started by @now (asking the provider what it costs). */
static gboolean
admit_degradations(run_t *r, double now, GError **error)
{
    while (r->deg.time_s <= now && r->deg.time_s < r->span) {
        double step_s = r->p->step_time_s;
        if (!r->p->step_time_fn(&r->deg, r->p->step_time_s, &step_s, r->p->step_time_data, error)) {
            g_prefix_error(error, "step time under a degrading %s fault at %.3f s: ",
                           weft_fault_class_name(r->deg.component_class), r->deg.time_s);
            return FALSE;
        }
        window_t w = {r->deg.time_s + r->p->rates.degrade_repair_s, MAX(step_s, 0.0)};
        g_array_append_val(r->active, w);
        record(r, WEFT_JOB_SPAN_DEGRADED, r->deg.time_s, MIN(w.end_s, r->span), &r->deg, w.step_s);
        r->out->degradations++;
        source_next(r->degs, &r->deg);
    }
    /* drop the repaired ones */
    for (guint i = r->active->len; i-- > 0;) {
        if (g_array_index(r->active, window_t, i).end_s <= now) {
            g_array_remove_index(r->active, i);
        }
    }
    return TRUE;
}

/* The step time of a step starting now: the nominal one or the largest under a fault. */
static double
current_step_s(const run_t *r)
{
    double st = r->p->step_time_s;
    for (guint i = 0; i < r->active->len; i++) {
        st = MAX(st, g_array_index(r->active, window_t, i).step_s);
    }
    return st;
}

/* An interruption at r->fail: then restarts until one completes (or the span ends). */
static void
fail_and_restart(run_t *r)
{
    const double R = r->p->restart_s;
    weft_job_sample_t *out = r->out;
    for (;;) {
        /* r->fail happens at r->t */
        out->interruptions++;
        out->per_category[weft_fault_class_category(r->fail.component_class)]++;
        weft_fault_event_t cause = r->fail;
        source_next(r->fails, &r->fail);
        double end = r->t + R;
        if (r->fail.time_s < end && r->fail.time_s < r->span) {
            /* failed again while restarting: the restart starts over */
            out->restart_s += r->fail.time_s - r->t;
            record(r, WEFT_JOB_SPAN_RESTART, r->t, r->fail.time_s, &cause, 0.0);
            r->t = r->fail.time_s;
            continue;
        }
        double from = r->t;
        if (end >= r->span) {
            out->restart_s += r->span - r->t;
            r->t = r->span;
        } else {
            out->restart_s += R;
            r->t = end;
        }
        record(r, WEFT_JOB_SPAN_RESTART, from, r->t, &cause, 0.0);
        r->kept_from = r->t;
        return;
    }
}

/*
 * Runs the segment at hand (@s steps, then a checkpoint write of @ckpt) step by step, as
 * degrading faults change the step time: commits it, or ends it at the next failure or the
 * end of the span.
 */
static gboolean
segment_step_by_step(run_t *r, guint64 s, double ckpt, GError **error)
{
    const double T = r->p->step_time_s;
    const double start = r->t;
    double u = start;
    for (guint64 k = 0; k < s; k++) {
        if (!admit_degradations(r, u, error)) {
            return FALSE;
        }
        double st = current_step_s(r);
        double deadline = MIN(r->fail.time_s, r->span);
        if (u + st > deadline) {
            if (r->fail.time_s < r->span) {
                lose(r, start);
                fail_and_restart(r);
            } else {
                /* the span ends inside this step: steps done so far are progress */
                double part = (r->span - u) / st; /* fraction of this step done */
                r->out->useful_s += ((double)k + part) * T;
                r->out->slowdown_s += (r->span - start) - ((double)k + part) * T;
                r->out->steps_done = (double)r->c + (double)k + part;
                r->t = r->span;
            }
            return TRUE;
        }
        u += st;
    }
    double deadline = MIN(r->fail.time_s, r->span);
    if (u + ckpt > deadline) {
        if (r->fail.time_s < r->span) {
            lose(r, start);
            fail_and_restart(r);
        } else {
            r->out->useful_s += (double)s * T;
            r->out->slowdown_s += (u - start) - (double)s * T;
            r->out->checkpoint_s += r->span - u;
            r->out->steps_done = (double)(r->c + s);
            r->t = r->span;
        }
        return TRUE;
    }
    r->out->useful_s += (double)s * T;
    r->out->slowdown_s += (u - start) - (double)s * T;
    r->out->checkpoint_s += ckpt;
    r->out->checkpoints += s == r->K ? 1 : 0;
    r->t = u + ckpt;
    r->c += s;
    return TRUE;
}

static gboolean
run_sample(const weft_job_params_t *p, guint64 K, source_t *fails, source_t *degs, GArray *tl,
           weft_job_sample_t *out, GError **error)
{
    memset(out, 0, sizeof *out);
    const double T = p->step_time_s, delta = p->checkpoint_write_s;
    const guint64 N = p->steps;
    const gboolean provider = p->step_time_fn != NULL;
    const double L = (double)K * T + delta; /* one full segment: K steps and a checkpoint */
    g_autoptr(GArray) active = g_array_new(FALSE, FALSE, sizeof(window_t));
    run_t r = {
        .p = p, .out = out, .fails = fails, .degs = degs, .active = active, .K = K, .tl = tl};
    r.span = p->span_s > 0.0 ? p->span_s : INFINITY;
    source_next(fails, &r.fail);
    source_next(degs, &r.deg);
    gboolean ended_in_span = FALSE;

    while (r.c < N && r.t < r.span) {
        if (provider && !admit_degradations(&r, r.t, error)) {
            return FALSE;
        }
        guint64 remaining = N - r.c;
        guint64 s = MIN(K, remaining);
        /* floor(N / K) checkpoints: a segment of K steps ends with one, the remainder not */
        double ckpt = s == K ? delta : 0.0;
        if (provider && active->len > 0) {
            if (!segment_step_by_step(&r, s, ckpt, error)) {
                return FALSE;
            }
            ended_in_span = r.t >= r.span && r.c < N;
            continue;
        }
        double deadline = MIN(r.fail.time_s, r.span);
        double horizon = provider ? MIN(deadline, r.deg.time_s) : deadline;
        /* Skip, in closed form, the whole segments that end by the horizon: j L <= horizon - t */
        guint64 m_full = remaining / K;
        if (m_full > 1) {
            guint64 j = m_full;
            if (isfinite(horizon)) {
                double jd = floor((horizon - r.t) / L);
                j = jd <= 0.0 ? 0 : (jd >= (double)m_full ? m_full : (guint64)jd);
            }
            /* leave the last one to the exact test below, so that ties resolve one way */
            if (j > 0) {
                j = MIN(j, m_full - 1);
                r.t += (double)j * L;
                r.c += j * K;
                out->useful_s += (double)(j * K) * T;
                out->checkpoint_s += (double)j * delta;
                out->checkpoints += j;
                continue;
            }
        }
        double dur = (double)s * T + ckpt;
        if (r.t + dur <= horizon) {
            r.t += dur;
            r.c += s;
            out->useful_s += (double)s * T;
            out->checkpoint_s += ckpt;
            out->checkpoints += s == K ? 1 : 0;
            continue;
        }
        if (provider && r.deg.time_s < deadline) {
            /* a degrading fault starts inside this segment */
            if (!segment_step_by_step(&r, s, ckpt, error)) {
                return FALSE;
            }
            ended_in_span = r.t >= r.span && r.c < N;
            continue;
        }
        if (r.fail.time_s < r.span) {
            lose(&r, r.t);
            fail_and_restart(&r);
            continue;
        }
        /* the span ends inside this segment: the steps done so far count as progress */
        double elapsed = r.span - r.t;
        double comp = MIN(elapsed, (double)s * T);
        out->useful_s += comp;
        out->checkpoint_s += elapsed - comp;
        out->steps_done = (double)r.c + comp / T;
        r.t = r.span;
        ended_in_span = TRUE;
    }
    if (!ended_in_span) {
        out->steps_done = (double)r.c;
    }
    out->wall_s = r.t;
    record(&r, WEFT_JOB_SPAN_TRAIN, r.kept_from, r.t, NULL, p->step_time_s);
    /* degrading faults not admitted (all of them, without a provider) that started in the run */
    while (r.deg.time_s < out->wall_s) {
        out->degradations++;
        source_next(degs, &r.deg);
    }
    out->degradations_ignored = !provider && out->degradations > 0;
    return TRUE;
}

double
weft_job_expected_interruptions(const weft_job_params_t *p, guint64 checkpoint_steps)
{
    double lambda = weft_fault_rate_per_s(&p->rates, &p->counts, FALSE);
    if (!(lambda > 0.0)) {
        return 0.0;
    }
    double by_span = isfinite(p->span_s) && p->span_s > 0.0 ? lambda * p->span_s : INFINITY;
    double by_steps = INFINITY;
    if (p->steps != G_MAXUINT64) {
        guint64 K = MAX(checkpoint_steps, 1);
        double segments = ceil((double)p->steps / (double)K);
        double L = (double)K * p->step_time_s + p->checkpoint_write_s;
        by_steps = segments * expm1(lambda * L) * exp(lambda * p->restart_s);
        if (isnan(by_steps)) {
            by_steps = INFINITY;
        }
    }
    return MIN(by_span, by_steps);
}

/*
 * Refuses, before any sample runs, a run whose samples would simulate more than
 * WEFT_JOB_MAX_INTERRUPTIONS interruptions (see weft_job_expected_interruptions()).
 */
static gboolean
check_progress(const weft_job_params_t *p, guint64 K, guint samples, GError **error)
{
    double per = weft_job_expected_interruptions(p, K);
    if (per * samples <= WEFT_JOB_MAX_INTERRUPTIONS) {
        return TRUE;
    }
    double M = weft_job_system_mtbf_s(p);
    double L = (double)K * p->step_time_s + p->checkpoint_write_s;
    g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE,
                "no progress possible: the cluster fails every %.3g s (system MTBF) and a "
                "segment of %" G_GUINT64_FORMAT " steps of %.3g s and its checkpoint takes %.3g s "
                "(restart %.3g s)%s: about %.3g interruptions per sample expected, %u samples, "
                "more than the %.0e weft simulates; check failures.mtbf_*, train.step_time, "
                "train.checkpoint_interval, train.steps or train.span",
                M, K, p->step_time_s, L, p->restart_s,
                isfinite(p->span_s) && p->span_s > 0.0 ? " over the span" : "", per, samples,
                WEFT_JOB_MAX_INTERRUPTIONS);
    return FALSE;
}

/* One run drawn from the streams of Monte Carlo sample @sample; its timeline into @tl if
 * not NULL. */
static gboolean
simulate_sample(const weft_job_params_t *p, guint64 checkpoint_steps, guint sample, GArray *tl,
                weft_job_sample_t *out, GError **error)
{
    if (!check_progress(p, checkpoint_steps, 1, error)) {
        return FALSE;
    }
    g_autoptr(weft_fault_sampler_t) fs =
        weft_fault_sampler_new(&p->rates, &p->counts, FALSE, p->seed, 2 * sample);
    g_autoptr(weft_fault_sampler_t) ds = NULL;
    source_t fails = {.sampler = fs};
    source_t degs = {0};
    if (weft_fault_rate_per_s(&p->rates, &p->counts, TRUE) > 0.0) {
        ds = weft_fault_sampler_new(&p->rates, &p->counts, TRUE, p->seed, 2 * sample + 1);
        degs.sampler = ds;
    }
    return run_sample(p, checkpoint_steps, &fails, &degs, tl, out, error);
}

gboolean
weft_job_simulate(const weft_job_params_t *p, guint64 checkpoint_steps, guint sample,
                  weft_job_sample_t *out, GError **error)
{
    g_return_val_if_fail(checkpoint_steps >= 1 && p->step_time_s > 0.0, FALSE);
    return simulate_sample(p, checkpoint_steps, sample, NULL, out, error);
}

gboolean
weft_job_simulate_timeline(const weft_job_params_t *p, guint64 checkpoint_steps, guint sample,
                           GArray *spans, weft_job_sample_t *out, GError **error)
{
    g_return_val_if_fail(checkpoint_steps >= 1 && p->step_time_s > 0.0, FALSE);
    g_return_val_if_fail(spans != NULL, FALSE);
    g_array_set_size(spans, 0);
    return simulate_sample(p, checkpoint_steps, sample, spans, out, error);
}

gboolean
weft_job_simulate_events(const weft_job_params_t *p, guint64 checkpoint_steps,
                         const weft_fault_event_t *events, guint n_events,
                         const weft_fault_event_t *degradations, guint n_degradations,
                         weft_job_sample_t *out, GError **error)
{
    g_return_val_if_fail(checkpoint_steps >= 1 && p->step_time_s > 0.0, FALSE);
    source_t fails = {.events = events, .n = n_events};
    source_t degs = {.events = degradations, .n = n_degradations};
    return run_sample(p, checkpoint_steps, &fails, &degs, NULL, out, error);
}

/* ---- Monte Carlo ---------------------------------------------------------------------------- */

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile q of sorted @x by linear interpolation between order statistics (R's type 7). */
static double
quantile(const double *x, gsize n, double q)
{
    double h = (double)(n - 1) * q;
    gsize lo = (gsize)floor(h);
    gsize hi = MIN(lo + 1, n - 1);
    return x[lo] + (h - (double)lo) * (x[hi] - x[lo]);
}

void
weft_job_stat_compute(const double *x, gsize n, weft_job_stat_t *st)
{
    memset(st, 0, sizeof *st);
    if (n == 0) {
        return;
    }
    /* mean and sd by Welford's update, in index order (the same sums for any thread count) */
    double mean = 0.0, m2 = 0.0;
    for (gsize i = 0; i < n; i++) {
        double d = x[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * (x[i] - mean);
    }
    st->mean = mean;
    st->sd = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0.0;
    st->se = st->sd / sqrt((double)n);
    /* 1.96: the 97.5th percentile of the standard normal */
    st->ci95_lo = mean - 1.96 * st->se;
    st->ci95_hi = mean + 1.96 * st->se;
    g_autofree double *s = g_memdup2(x, n * sizeof *x);
    qsort(s, n, sizeof *s, cmp_double);
    st->min = s[0];
    st->max = s[n - 1];
    st->median = quantile(s, n, 0.5);
    st->p90 = quantile(s, n, 0.9);
}

typedef struct {
    const weft_job_params_t *p;
    guint64 K;
    weft_job_sample_t *samples;
    /* per chunk: the first error in it */
    GError **errors;
    guint *error_index;
    guint chunk;
    guint n_chunks;
    gint next; /* the next chunk to take (atomic) */
    gint done; /* samples done (atomic), for progress lines */
} mc_ctx_t;

static void
mc_chunk(mc_ctx_t *ctx, guint c)
{
    guint first = c * ctx->chunk;
    guint last = MIN(first + ctx->chunk, ctx->p->samples);
    for (guint i = first; i < last; i++) {
        GError *err = NULL;
        if (!weft_job_simulate(ctx->p, ctx->K, i, &ctx->samples[i], &err)) {
            ctx->errors[c] = err;
            ctx->error_index[c] = i;
            return;
        }
        guint done = (guint)g_atomic_int_add(&ctx->done, 1) + 1;
        if (weft_progress_due(ctx->p->progress)) {
            weft_progress_report(ctx->p->progress, (double)done / ctx->p->samples,
                                 "checkpoint every %" G_GUINT64_FORMAT " steps: %u/%u samples done",
                                 ctx->K, done, ctx->p->samples);
        }
    }
}

/* A worker thread: takes chunks until none is left. Which thread runs a chunk does not matter:
 * each sample has its own streams and its own slot. */
static gpointer
mc_worker(gpointer data)
{
    mc_ctx_t *ctx = data;
    for (;;) {
        guint c = (guint)g_atomic_int_add(&ctx->next, 1);
        if (c >= ctx->n_chunks) {
            return NULL;
        }
        mc_chunk(ctx, c);
    }
}

gboolean
weft_job_monte_carlo(const weft_job_params_t *p, guint64 checkpoint_steps, weft_job_mc_t *out,
                     weft_job_sample_t **samples_out, GError **error)
{
    g_return_val_if_fail(p->samples >= 1 && checkpoint_steps >= 1, FALSE);
    const guint n = p->samples;
    if (!check_progress(p, checkpoint_steps, n, error)) {
        return FALSE;
    }
    g_autofree weft_job_sample_t *samples = g_new0(weft_job_sample_t, n);
    guint threads = p->threads > 0 ? p->threads : (guint)MAX(g_get_num_processors(), 1);
    guint chunk = MAX(1u, (n + 4 * threads - 1) / (4 * threads));
    guint n_chunks = (n + chunk - 1) / chunk;
    g_autofree GError **errors = g_new0(GError *, n_chunks);
    g_autofree guint *error_index = g_new0(guint, n_chunks);
    mc_ctx_t ctx = {p, checkpoint_steps, samples, errors, error_index, chunk, n_chunks, 0, 0};
    threads = MIN(threads, n_chunks);
    if (threads <= 1) {
        for (guint c = 0; c < n_chunks; c++) {
            mc_chunk(&ctx, c);
        }
    } else {
        /* joined threads rather than a GThreadPool, whose idle threads outlive the call */
        g_autofree GThread **workers = g_new(GThread *, threads);
        for (guint i = 0; i < threads; i++) {
            workers[i] = g_thread_new("weft-train", mc_worker, &ctx);
        }
        for (guint i = 0; i < threads; i++) {
            g_thread_join(workers[i]);
        }
    }
    GError *first = NULL;
    guint first_index = G_MAXUINT;
    for (guint c = 0; c < n_chunks; c++) {
        if (errors[c] != NULL && error_index[c] < first_index) {
            g_clear_error(&first);
            first = g_steal_pointer(&errors[c]);
            first_index = error_index[c];
        }
        g_clear_error(&errors[c]);
    }
    if (first != NULL) {
        g_propagate_error(error, first);
        return FALSE;
    }

    memset(out, 0, sizeof *out);
    out->checkpoint_steps = checkpoint_steps;
    out->samples = n;
    g_autofree double *x = g_new(double, n);
#define STAT(field, expr)                                                                          \
    do {                                                                                           \
        for (guint i = 0; i < n; i++) {                                                            \
            const weft_job_sample_t *s = &samples[i];                                              \
            x[i] = (expr);                                                                         \
        }                                                                                          \
        weft_job_stat_compute(x, n, &out->field);                                                  \
    } while (0)
    STAT(wall_s, s->wall_s);
    STAT(goodput, s->wall_s > 0.0 ? s->useful_s / s->wall_s : 1.0);
    STAT(useful_s, s->useful_s);
    STAT(checkpoint_s, s->checkpoint_s);
    STAT(lost_s, s->lost_s);
    STAT(restart_s, s->restart_s);
    STAT(slowdown_s, s->slowdown_s);
    STAT(steps_done, s->steps_done);
    STAT(interruptions, (double)s->interruptions);
    for (guint k = 0; k < WEFT_FAULT_N_CATEGORIES; k++) {
        STAT(per_category[k], (double)s->per_category[k]);
    }
#undef STAT
    for (guint i = 0; i < n; i++) {
        out->degradations += samples[i].degradations;
        out->degradations_ignored |= samples[i].degradations_ignored;
    }
    g_debug("Monte Carlo at a checkpoint every %" G_GUINT64_FORMAT " steps: %u samples on %u "
            "threads, mean wall time %.6g s, mean goodput %.6f",
            checkpoint_steps, n, MAX(threads, 1u), out->wall_s.mean, out->goodput.mean);
    if (samples_out != NULL) {
        *samples_out = g_steal_pointer(&samples);
    }
    return TRUE;
}

/* ---- intervals ------------------------------------------------------------------------------ */

double
weft_job_system_mtbf_s(const weft_job_params_t *p)
{
    double lambda = weft_fault_rate_per_s(&p->rates, &p->counts, FALSE);
    return lambda > 0.0 ? 1.0 / lambda : INFINITY;
}

double
weft_job_young_s(double delta_s, double mtbf_s)
{
    return sqrt(2.0 * delta_s * mtbf_s);
}

double
weft_job_daly_s(double delta_s, double mtbf_s)
{
    if (!isfinite(mtbf_s)) {
        return INFINITY;
    }
    if (delta_s >= 2.0 * mtbf_s) {
        return mtbf_s;
    }
    /* Daly 2006, eq. 37 */
    double x = delta_s / (2.0 * mtbf_s);
    return sqrt(2.0 * delta_s * mtbf_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

guint64
weft_job_interval_steps(const weft_job_params_t *p, double tau_s)
{
    double k = round(tau_s / p->step_time_s);
    double cap = (double)G_MAXUINT32;
    if (p->steps > 0 && p->steps != G_MAXUINT64) {
        cap = MIN(cap, (double)p->steps);
    }
    if (!(k >= 1.0)) {
        return 1;
    }
    return (guint64)MIN(k, cap);
}

void
weft_job_search_free(weft_job_search_t *s)
{
    if (s == NULL) {
        return;
    }
    if (s->points != NULL) {
        g_array_unref(s->points);
    }
    g_free(s);
}

/* The Monte Carlo of interval @K, evaluated once and kept in s->points. */
static const weft_job_mc_t *
evaluate(const weft_job_params_t *p, weft_job_search_t *s, guint64 K, GError **error)
{
    for (guint i = 0; i < s->points->len; i++) {
        const weft_job_mc_t *mc = &g_array_index(s->points, weft_job_mc_t, i);
        if (mc->checkpoint_steps == K) {
            return mc;
        }
    }
    weft_job_mc_t mc;
    if (!weft_job_monte_carlo(p, K, &mc, NULL, error)) {
        return NULL;
    }
    g_array_append_val(s->points, mc);
    return &g_array_index(s->points, weft_job_mc_t, s->points->len - 1);
}

static int
cmp_point(const void *a, const void *b)
{
    guint64 x = ((const weft_job_mc_t *)a)->checkpoint_steps;
    guint64 y = ((const weft_job_mc_t *)b)->checkpoint_steps;
    return (x > y) - (x < y);
}

/* The evaluated point of largest mean goodput (ties: smaller K); points sorted first. */
static guint
best_point(weft_job_search_t *s)
{
    g_array_sort(s->points, cmp_point);
    guint best = 0;
    for (guint i = 1; i < s->points->len; i++) {
        if (g_array_index(s->points, weft_job_mc_t, i).goodput.mean >
            g_array_index(s->points, weft_job_mc_t, best).goodput.mean) {
            best = i;
        }
    }
    return best;
}

static gboolean
goodput_at(const weft_job_params_t *p, weft_job_search_t *s, guint64 K, double *g, GError **error)
{
    const weft_job_mc_t *mc = evaluate(p, s, K, error);
    if (mc == NULL) {
        return FALSE;
    }
    *g = mc->goodput.mean;
    return TRUE;
}

weft_job_search_t *
weft_job_search(const weft_job_params_t *p, gboolean refine, GError **error)
{
    double M = weft_job_system_mtbf_s(p);
    if (!isfinite(M)) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE,
                    "checkpoint_interval = auto: nothing fails (every MTBF is off), so there "
                    "is no best interval; give one");
        return NULL;
    }
    g_autoptr(weft_job_search_t) s = g_new0(weft_job_search_t, 1);
    s->points = g_array_new(FALSE, FALSE, sizeof(weft_job_mc_t));
    const double delta = p->checkpoint_write_s;
    s->young_s = weft_job_young_s(delta, M);
    s->daly_s = weft_job_daly_s(delta, M);
    s->young_steps = weft_job_interval_steps(p, s->young_s);
    s->daly_steps = weft_job_interval_steps(p, s->daly_s);

    g_debug("checkpoint interval search: system MTBF %.6g s, Young %" G_GUINT64_FORMAT
            " steps, Daly %" G_GUINT64_FORMAT " steps%s",
            M, s->young_steps, s->daly_steps, refine ? ", refined around the best grid point" : "");
    /* a geometric grid of 33 points from Daly / 4 to 4 Daly: ratio 16^(1/32) ~ 1.09 */
    const guint n_grid = 33;
    double lo = MAX(1.0, (double)s->daly_steps / 4.0);
    double hi = MAX(lo, (double)s->daly_steps * 4.0);
    if (p->steps != G_MAXUINT64) {
        hi = MIN(hi, (double)p->steps);
        lo = MIN(lo, hi);
    }
    for (guint i = 0; i < n_grid; i++) {
        double k = lo * pow(hi / lo, (double)i / (double)(n_grid - 1));
        guint64 K = (guint64)MAX(1.0, round(k));
        if (evaluate(p, s, K, error) == NULL) {
            return NULL;
        }
    }
    guint b = best_point(s);
    if (refine && s->points->len > 2) {
        /* golden-section search over integers between the best grid point's neighbours */
        guint64 a = g_array_index(s->points, weft_job_mc_t, b > 0 ? b - 1 : 0).checkpoint_steps;
        guint64 z = g_array_index(s->points, weft_job_mc_t, MIN(b + 1, s->points->len - 1))
                        .checkpoint_steps;
        const double invphi = (sqrt(5.0) - 1.0) / 2.0; /* 1/phi ~ 0.618 */
        while (z - a > 3) {
            guint64 c = z - (guint64)llround((double)(z - a) * invphi);
            guint64 d = a + (guint64)llround((double)(z - a) * invphi);
            if (c >= d) {
                d = c + 1;
            }
            double gc, gd;
            if (!goodput_at(p, s, c, &gc, error) || !goodput_at(p, s, d, &gd, error)) {
                return NULL;
            }
            if (gc >= gd) {
                z = d;
            } else {
                a = c;
            }
        }
        for (guint64 k = a; k <= z; k++) {
            double g;
            if (!goodput_at(p, s, k, &g, error)) {
                return NULL;
            }
        }
        b = best_point(s);
    }
    s->best_steps = g_array_index(s->points, weft_job_mc_t, b).checkpoint_steps;
    g_debug("checkpoint interval search: best every %" G_GUINT64_FORMAT " steps, over %u intervals",
            s->best_steps, s->points->len);
    return g_steal_pointer(&s);
}
