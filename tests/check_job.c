/* SPDX-License-Identifier: MIT */
/*
 * Tests of the failure rates (src/fault/rates) and the whole-run model (src/job): the Llama 3
 * derivation, component counts, the samplers, hand-derived runs without and with injected
 * failures, degrading faults through a step-time provider, Monte Carlo determinism and
 * convergence, the 54-day prediction against the 419 interruptions of the table, the best
 * interval against Daly's, configuration errors and the reports.
 */
#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/time.h"
#include "fault/rates.h"
#include "fault/step.h"
#include "job/job.h"
#include "scenario/scenario.h"

/* ---- a tiny world: 10 steps of 2.5 s, a checkpoint every 3 steps costing 0.75 s, restarts of
 * 10 s. All these are exact in binary floating point, so sums compare exactly. */
static void
tiny_params(weft_job_params_t *p)
{
    weft_job_params_init(p);
    weft_fault_rates_init_none(&p->rates);
    weft_fault_counts_for_gpus(8, 8, &p->counts);
    p->steps = 10;
    p->step_time_s = 2.5;
    p->checkpoint_steps = 3;
    p->checkpoint_write_s = 0.75;
    p->restart_s = 10.0;
    p->samples = 4;
    p->threads = 1;
}

static weft_fault_event_t
gpu_failure(double t)
{
    return (weft_fault_event_t){t, WEFT_FAULT_GPU, 0};
}

/* the 16,384-GPU cluster of the Llama 3 table with its default rates */
static void
llama3_params(weft_job_params_t *p)
{
    weft_job_params_init(p);
    weft_fault_counts_for_gpus(16384, 8, &p->counts);
    p->step_time_s = 9.02;
    /* checkpoint: 405e9 parameters x 14 B (bf16 weights, fp32 master and two Adam moments) =
     * 5.67 TB at the 2 TB/s sustained by Llama 3's storage = 2.835 s; restart: detection 60 s
     * + rescheduling 300 s + reload 2.835 s = 362.835 s (the defaults of doc/failures.md) */
    p->checkpoint_write_s = 5.67e12 / 2e12;
    p->restart_s = 60.0 + 300.0 + 5.67e12 / 2e12;
    p->threads = 2;
}

/* ---- rates ------------------------------------------------------------------------------- */

START_TEST(test_default_rates_follow_the_table)
{
    weft_fault_rates_t r;
    weft_fault_rates_init_default(&r);
    /* GPU: 16,384 GPUs x 54 d x 86,400 s/d / 268 interruptions = 285,228,322.4 s (79,230.09 h) */
    ck_assert_double_eq_tol(r.mtbf_s[WEFT_FAULT_GPU], 16384.0 * 54 * 86400 / 268, 1e-3);
    ck_assert_double_eq_tol(r.mtbf_s[WEFT_FAULT_GPU] / 3600.0, 79230.09, 0.01);
    /* host hardware: 2,048 x 54 d / 14 = 7,899.4 d */
    ck_assert_double_eq_tol(r.mtbf_s[WEFT_FAULT_HOST] / 86400.0, 2048.0 * 54 / 14, 1e-9);
    /* cables: 49,152 x 54 d / 17.5 = 151,669.0 d */
    ck_assert_double_eq_tol(r.mtbf_s[WEFT_FAULT_CABLE] / 86400.0, 49152.0 * 54 / 17.5, 1e-6);
    ck_assert(isinf(r.mtbf_s[WEFT_FAULT_PLANNED]));
    ck_assert(isinf(r.degrade_mtbf_s[WEFT_FAULT_CABLE]));
    /* over the reference cluster for 54 days: exactly the 419 of the table */
    weft_fault_counts_t n;
    weft_fault_counts_for_gpus(16384, 8, &n);
    double lambda = weft_fault_rate_per_s(&r, &n, FALSE);
    ck_assert_double_eq_tol(lambda * 54 * 86400, 419.0, 1e-9);
    ck_assert_double_eq(weft_fault_rate_per_s(&r, &n, TRUE), 0.0); /* no degrading faults */
}
END_TEST

START_TEST(test_counts_for_gpus_are_the_reference)
{
    weft_fault_counts_t n;
    weft_fault_counts_for_gpus(16384, 8, &n);
    /* 2,048 hosts; 16,384 NICs; 512 + 512 + 256 switches; 3 x 16,384 cables (SuperPOD RA) */
    ck_assert_uint_eq(n.n[WEFT_FAULT_GPU], 16384);
    ck_assert_uint_eq(n.n[WEFT_FAULT_HOST], 2048);
    ck_assert_uint_eq(n.n[WEFT_FAULT_SOFTWARE], 2048);
    ck_assert_uint_eq(n.n[WEFT_FAULT_NIC], 16384);
    ck_assert_uint_eq(n.n[WEFT_FAULT_SWITCH], 1280);
    ck_assert_uint_eq(n.n[WEFT_FAULT_CABLE], 49152);
    ck_assert_uint_eq(n.n[WEFT_FAULT_PLANNED], 1);
    /* 12 GPUs at 8 per host: ceil(12 / 8) = 2 hosts; 12 x 5/64 = 0.94 -> 1 switch; 36 cables */
    weft_fault_counts_for_gpus(12, 8, &n);
    ck_assert_uint_eq(n.n[WEFT_FAULT_HOST], 2);
    ck_assert_uint_eq(n.n[WEFT_FAULT_SWITCH], 1);
    ck_assert_uint_eq(n.n[WEFT_FAULT_CABLE], 36);
}
END_TEST

START_TEST(test_counts_from_a_cluster)
{
    /* two hosts of one GPU and one NIC each, the NICs on one switch */
    weft_topo_t *t = weft_topo_new("tiny");
    gint g0 = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "h0/gpu0", 0, 0, NULL);
    gint g1 = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "h1/gpu0", 1, 0, NULL);
    gint n0 = weft_topo_add_vertex(t, WEFT_VERTEX_NIC, "h0/nic0", 0, 0, NULL);
    gint n1 = weft_topo_add_vertex(t, WEFT_VERTEX_NIC, "h1/nic0", 1, 0, NULL);
    gint sw = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "leaf0", -1, -1, NULL);
    ck_assert_int_ge(weft_topo_add_link(t, g0, n0, WEFT_LINK_PCIE, 50e9, 0, 1, NULL), 0);
    ck_assert_int_ge(weft_topo_add_link(t, g1, n1, WEFT_LINK_PCIE, 50e9, 0, 1, NULL), 0);
    ck_assert_int_ge(weft_topo_add_link(t, n0, sw, WEFT_LINK_INFINIBAND, 50e9, 0, 1, NULL), 0);
    /* an edge of 2 lanes stands for two cables */
    ck_assert_int_ge(weft_topo_add_link(t, n1, sw, WEFT_LINK_INFINIBAND, 50e9, 0, 2, NULL), 0);
    ck_assert(weft_topo_finalize(t, NULL));
    weft_fault_counts_t n;
    weft_fault_counts_from_topo(t, &n);
    ck_assert_uint_eq(n.n[WEFT_FAULT_GPU], 2);
    ck_assert_uint_eq(n.n[WEFT_FAULT_HOST], 2);
    ck_assert_uint_eq(n.n[WEFT_FAULT_NIC], 2);
    ck_assert_uint_eq(n.n[WEFT_FAULT_SWITCH], 1);
    /* PCIe links are not cables; InfiniBand: 1 + 2 lanes = 3 */
    ck_assert_uint_eq(n.n[WEFT_FAULT_CABLE], 3);
    ck_assert_uint_eq(n.n[WEFT_FAULT_UNKNOWN], 2);
    weft_topo_free(t);
}
END_TEST

START_TEST(test_counts_of_the_bundled_16k_cluster)
{
    const char *src = g_getenv("WEFT_SRCDIR");
    if (src == NULL) {
        return; /* only under make check */
    }
    g_autofree char *path = g_build_filename(src, "topologies", "h100-2048-nodes.ini", NULL);
    g_autoptr(GError) err = NULL;
    weft_topo_t *t = weft_topo_load(path, &err);
    ck_assert_msg(t != NULL, "%s", err ? err->message : "");
    weft_fault_counts_t a, b;
    weft_fault_counts_from_topo(t, &a);
    weft_fault_counts_for_gpus(16384, 8, &b);
    /* the cluster the default rates were derived on: the same counts class by class */
    for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
        ck_assert_uint_eq(a.n[c], b.n[c]);
    }
    weft_topo_free(t);
}
END_TEST

START_TEST(test_parse_duration)
{
    double s;
    ck_assert(weft_fault_parse_duration("54d", FALSE, &s, NULL));
    ck_assert_double_eq(s, 54.0 * 86400.0); /* 4,665,600 s */
    ck_assert(weft_fault_parse_duration(" 1.5 h ", FALSE, &s, NULL));
    ck_assert_double_eq(s, 5400.0);
    ck_assert(weft_fault_parse_duration("9.02s", FALSE, &s, NULL));
    ck_assert_double_eq(s, 9.02);
    ck_assert(weft_fault_parse_duration("2min", FALSE, &s, NULL));
    ck_assert_double_eq(s, 120.0);
    ck_assert(weft_fault_parse_duration("off", TRUE, &s, NULL));
    ck_assert(isinf(s));
    const char *bad[] = {"5", "-3h", "3 weeks", "", "h", "off"};
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(GError) err = NULL;
        ck_assert_msg(!weft_fault_parse_duration(bad[i], FALSE, &s, &err), "%s", bad[i]);
        ck_assert(g_error_matches(err, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE));
    }
}
END_TEST

START_TEST(test_rates_check_refuses_bad_values)
{
    weft_fault_rates_t r;
    weft_fault_rates_init_default(&r);
    ck_assert(weft_fault_rates_check(&r, NULL));
    r.mtbf_s[WEFT_FAULT_NIC] = -1.0;
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_fault_rates_check(&r, &err));
    ck_assert(g_error_matches(err, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE));
    g_clear_error(&err);
    weft_fault_rates_init_default(&r);
    r.weibull_shape = 0.0;
    ck_assert(!weft_fault_rates_check(&r, &err));
    ck_assert(g_error_matches(err, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE));
    weft_fault_dist_t d;
    g_clear_error(&err);
    ck_assert(!weft_fault_dist_from_name("lognormal", &d, &err));
    ck_assert(g_error_matches(err, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_KEY));
}
END_TEST

START_TEST(test_sampler_is_repeatable_per_stream)
{
    weft_fault_rates_t r;
    weft_fault_rates_init_default(&r);
    weft_fault_counts_t n;
    weft_fault_counts_for_gpus(16384, 8, &n);
    for (guint d = 0; d < 2; d++) {
        r.dist = d ? WEFT_FAULT_DIST_WEIBULL : WEFT_FAULT_DIST_EXPONENTIAL;
        g_autoptr(weft_fault_sampler_t) a = weft_fault_sampler_new(&r, &n, FALSE, 7, 3);
        g_autoptr(weft_fault_sampler_t) b = weft_fault_sampler_new(&r, &n, FALSE, 7, 3);
        g_autoptr(weft_fault_sampler_t) c = weft_fault_sampler_new(&r, &n, FALSE, 7, 4);
        double last = 0.0;
        gboolean differ = FALSE;
        for (guint i = 0; i < 50; i++) {
            weft_fault_event_t ea, eb, ec;
            weft_fault_sampler_next(a, &ea);
            weft_fault_sampler_next(b, &eb);
            weft_fault_sampler_next(c, &ec);
            ck_assert_double_eq(ea.time_s, eb.time_s); /* same (seed, stream): same failures */
            ck_assert_uint_eq(ea.component_class, eb.component_class);
            ck_assert_uint_eq(ea.component, eb.component);
            ck_assert_uint_lt(ea.component, n.n[ea.component_class]);
            ck_assert(ea.time_s >= last); /* in time order */
            last = ea.time_s;
            differ |= ea.time_s != ec.time_s;
        }
        ck_assert(differ); /* another stream: other failures */
    }
    /* nothing can fail: the first failure is never */
    weft_fault_rates_init_none(&r);
    g_autoptr(weft_fault_sampler_t) z = weft_fault_sampler_new(&r, &n, FALSE, 1, 0);
    weft_fault_event_t e;
    weft_fault_sampler_next(z, &e);
    ck_assert(isinf(e.time_s));
}
END_TEST

START_TEST(test_weibull_lifetimes_have_the_mtbf_as_mean)
{
    /* One component of MTBF 100 h, Weibull shape 0.5: its renewal gaps are i.i.d. Weibull with
     * scale s = 100 h / Gamma(1 + 2) = 50 h; mean 2 s = 100 h, variance s^2 (Gamma(5) -
     * Gamma(3)^2) = 20 s^2, sd 223.6 h. Over 20,000 gaps the mean's se is 1.58 h: within 4 se
     * (6.3 h) of 100 h unless the scale is wrong (using the MTBF as the scale would give 200 h). */
    weft_fault_rates_t r;
    weft_fault_rates_init_none(&r);
    r.dist = WEFT_FAULT_DIST_WEIBULL;
    r.weibull_shape = 0.5;
    r.mtbf_s[WEFT_FAULT_PLANNED] = 100.0 * 3600.0;
    weft_fault_counts_t n = {0};
    n.n[WEFT_FAULT_PLANNED] = 1;
    g_autoptr(weft_fault_sampler_t) s = weft_fault_sampler_new(&r, &n, FALSE, 11, 0);
    weft_fault_event_t e;
    const guint N = 20000;
    for (guint i = 0; i < N; i++) {
        weft_fault_sampler_next(s, &e);
    }
    double mean_h = e.time_s / N / 3600.0;
    ck_assert_msg(fabs(mean_h - 100.0) < 6.3, "mean gap %.2f h", mean_h);
}
END_TEST

/* ---- hand-derived runs ----------------------------------------------------------------------- */

START_TEST(test_no_failures_time_is_steps_and_checkpoints)
{
    weft_job_params_t p;
    tiny_params(&p);
    weft_job_sample_t s;
    /* K = 3: checkpoints after steps 3, 6, 9 (floor(10 / 3) = 3); wall = 10 x 2.5 + 3 x 0.75 =
     * 27.25 s exactly */
    ck_assert(weft_job_simulate(&p, 3, 0, &s, NULL));
    ck_assert_double_eq(s.wall_s, 27.25);
    ck_assert_double_eq(s.useful_s, 25.0);
    ck_assert_double_eq(s.checkpoint_s, 2.25);
    ck_assert_uint_eq(s.checkpoints, 3);
    ck_assert_uint_eq(s.interruptions, 0);
    ck_assert_double_eq(s.steps_done, 10.0);
    /* K = 5: after steps 5 and 10: 25 + 2 x 0.75 = 26.5 s */
    ck_assert(weft_job_simulate(&p, 5, 0, &s, NULL));
    ck_assert_double_eq(s.wall_s, 26.5);
    /* K = 1: ten checkpoints: 25 + 7.5 = 32.5 s; K = 11: none: 25 s */
    ck_assert(weft_job_simulate(&p, 1, 0, &s, NULL));
    ck_assert_double_eq(s.wall_s, 32.5);
    ck_assert(weft_job_simulate(&p, 11, 0, &s, NULL));
    ck_assert_double_eq(s.wall_s, 25.0);
    /* Monte Carlo of a run without failures: every sample 27.25 s, sd 0 */
    weft_job_mc_t mc;
    ck_assert(weft_job_monte_carlo(&p, 3, &mc, NULL, NULL));
    ck_assert_double_eq(mc.wall_s.mean, 27.25);
    ck_assert_double_eq(mc.wall_s.p90, 27.25);
    ck_assert_double_eq(mc.wall_s.sd, 0.0);
    ck_assert_double_eq(mc.goodput.mean, 25.0 / 27.25);
    /* a long run skipped in closed form: 1e9 steps, K = 1000: 1e9 x 2.5 + 1e6 x 0.75 s */
    p.steps = 1000000000;
    ck_assert(weft_job_simulate(&p, 1000, 0, &s, NULL));
    ck_assert_double_eq_tol(s.wall_s, 2.5e9 + 0.75e6, 1e-3);
    ck_assert_uint_eq(s.checkpoints, 1000000);
}
END_TEST

START_TEST(test_one_failure_loses_work_since_the_checkpoint)
{
    weft_job_params_t p;
    tiny_params(&p);
    weft_job_sample_t s;
    /* Segments of 3 steps + checkpoint last 8.25 s: [0, 8.25), [8.25, 16.5), ... A failure at
     * 12.0 s loses 12.0 - 8.25 = 3.75 s (1.5 steps), then the restart takes 10 s: the run ends
     * 3.75 + 10 = 13.75 s later than 27.25: at 41.0 s. */
    weft_fault_event_t f = gpu_failure(12.0);
    ck_assert(weft_job_simulate_events(&p, 3, &f, 1, NULL, 0, &s, NULL));
    ck_assert_double_eq(s.lost_s, 3.75);
    ck_assert_double_eq(s.restart_s, 10.0);
    ck_assert_double_eq(s.wall_s, 41.0);
    ck_assert_uint_eq(s.interruptions, 1);
    ck_assert_uint_eq(s.per_category[WEFT_FAULT_CAT_GPU], 1);
    ck_assert_uint_eq(s.checkpoints, 3);

    /* During the second checkpoint write [15.75, 16.5): at 16.0 the write is lost with the
     * steps: 16.0 - 8.25 = 7.75 s lost; 27.25 + 7.75 + 10 = 45.0 s; completed writes 3 x 0.75 */
    f = gpu_failure(16.0);
    ck_assert(weft_job_simulate_events(&p, 3, &f, 1, NULL, 0, &s, NULL));
    ck_assert_double_eq(s.lost_s, 7.75);
    ck_assert_double_eq(s.wall_s, 45.0);
    ck_assert_double_eq(s.checkpoint_s, 2.25);

    /* At 8.25 exactly, the first checkpoint completes (a segment ending at the failure wins),
     * the second segment is hit at its start: nothing lost, 27.25 + 10 = 37.25 s */
    f = gpu_failure(8.25);
    ck_assert(weft_job_simulate_events(&p, 3, &f, 1, NULL, 0, &s, NULL));
    ck_assert_double_eq(s.lost_s, 0.0);
    ck_assert_double_eq(s.wall_s, 37.25);

    /* Before the first checkpoint, at 5.0: 5.0 s lost from the start; 27.25 + 15 = 42.25 s */
    f = (weft_fault_event_t){5.0, WEFT_FAULT_CABLE, 17};
    ck_assert(weft_job_simulate_events(&p, 3, &f, 1, NULL, 0, &s, NULL));
    ck_assert_double_eq(s.wall_s, 42.25);
    ck_assert_uint_eq(s.per_category[WEFT_FAULT_CAT_NETWORK], 1);
}
END_TEST

START_TEST(test_failure_during_restart_restarts_it)
{
    weft_job_params_t p;
    tiny_params(&p);
    weft_job_sample_t s;
    /* 12.0: 3.75 s lost, restart [12, 22); 15.0 hits it: 3 s of restart wasted, the restart
     * runs again [15, 25); the run resumes at 25 from step 3 with 19 s to go (27.25 - 8.25):
     * 44.0 s. Restart time 3 + 10 = 13 s, two interruptions. */
    weft_fault_event_t f[2] = {gpu_failure(12.0), {15.0, WEFT_FAULT_SOFTWARE, 3}};
    ck_assert(weft_job_simulate_events(&p, 3, f, 2, NULL, 0, &s, NULL));
    ck_assert_double_eq(s.wall_s, 44.0);
    ck_assert_double_eq(s.restart_s, 13.0);
    ck_assert_double_eq(s.lost_s, 3.75);
    ck_assert_uint_eq(s.interruptions, 2);
    ck_assert_uint_eq(s.per_category[WEFT_FAULT_CAT_DEPENDENCY], 1);
    /* wall = useful + checkpoints + lost + restarts: 25 + 2.25 + 3.75 + 13 = 44 */
    ck_assert_double_eq(s.useful_s + s.checkpoint_s + s.lost_s + s.restart_s, s.wall_s);
}
END_TEST

START_TEST(test_span_stops_the_run)
{
    weft_job_params_t p;
    tiny_params(&p);
    p.steps = G_MAXUINT64;
    p.span_s = 20.0;
    weft_job_sample_t s;
    /* [0, 8.25) and [8.25, 16.5) complete; 3.5 s into the third segment's compute at 20 s:
     * useful 15 + 3.5 = 18.5 s, 6 + 1.4 = 7.4 steps, goodput 18.5 / 20 = 0.925 */
    ck_assert(weft_job_simulate(&p, 3, 0, &s, NULL));
    ck_assert_double_eq(s.wall_s, 20.0);
    ck_assert_double_eq(s.useful_s, 18.5);
    ck_assert_double_eq_tol(s.steps_done, 7.4, 1e-12);
    ck_assert_double_eq(s.checkpoint_s, 1.5);
    /* a failure at 19 s: 19 - 16.5 = 2.5 s lost, the restart is cut by the span at 20 s */
    weft_fault_event_t f[2] = {gpu_failure(19.0), gpu_failure(20.0)};
    ck_assert(weft_job_simulate_events(&p, 3, f, 2, NULL, 0, &s, NULL));
    ck_assert_double_eq(s.lost_s, 2.5);
    ck_assert_double_eq(s.restart_s, 1.0);
    ck_assert_double_eq(s.steps_done, 6.0);
    /* the failure at 20 s is at the end of the span: not an interruption of it */
    ck_assert_uint_eq(s.interruptions, 1);
}
END_TEST

static gboolean
twice_as_slow(const weft_fault_event_t *fault, double nominal_step_s, double *step_s,
              gpointer user_data, GError **error)
{
    (void)fault;
    (void)error;
    g_atomic_int_inc((gint *)user_data);
    *step_s = 2.0 * nominal_step_s;
    return TRUE;
}

static gboolean
provider_fails(const weft_fault_event_t *fault, double nominal_step_s, double *step_s,
               gpointer user_data, GError **error)
{
    (void)fault;
    (void)nominal_step_s;
    (void)step_s;
    (void)user_data;
    g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "no replay");
    return FALSE;
}

START_TEST(test_degrading_fault_asks_the_provider)
{
    weft_job_params_t p;
    tiny_params(&p);
    p.rates.degrade_repair_s = 5.0;
    weft_job_sample_t s;
    weft_fault_event_t deg = {1.0, WEFT_FAULT_CABLE, 4};
    /* without a provider: counted, ignored: 27.25 s as without it */
    ck_assert(weft_job_simulate_events(&p, 3, NULL, 0, &deg, 1, &s, NULL));
    ck_assert_double_eq(s.wall_s, 27.25);
    ck_assert_uint_eq(s.degradations, 1);
    ck_assert(s.degradations_ignored);
    /* with one that doubles the step: the fault lasts [1, 6); step 0 started at 0 (nominal),
     * step 1 starts at 2.5 in the fault: 5 s; step 2 starts at 7.5, after it: 2.5 s. The first
     * segment ends at 10.75 instead of 8.25: wall 27.25 + 2.5 = 29.75, slowdown 2.5 s */
    gint calls = 0;
    p.step_time_fn = twice_as_slow;
    p.step_time_data = &calls;
    ck_assert(weft_job_simulate_events(&p, 3, NULL, 0, &deg, 1, &s, NULL));
    ck_assert_double_eq(s.wall_s, 29.75);
    ck_assert_double_eq(s.slowdown_s, 2.5);
    ck_assert_double_eq(s.useful_s, 25.0);
    ck_assert(!s.degradations_ignored);
    ck_assert_int_eq(calls, 1);
    /* a failure at 9.0 inside the slowed segment loses all 9 s of it: 29.75 + 9 + 10 - 2.5
     * (the slowed step is redone at nominal speed after the fault is repaired) = 46.25 s */
    weft_fault_event_t f = gpu_failure(9.0);
    ck_assert(weft_job_simulate_events(&p, 3, &f, 1, &deg, 1, &s, NULL));
    ck_assert_double_eq(s.lost_s, 9.0);
    ck_assert_double_eq(s.wall_s, 46.25);
    ck_assert_double_eq(s.slowdown_s, 0.0);
    /* a provider error stops the run with it */
    p.step_time_fn = provider_fails;
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_job_simulate_events(&p, 3, NULL, 0, &deg, 1, &s, &err));
    ck_assert(g_error_matches(err, G_IO_ERROR, G_IO_ERROR_FAILED));
}
END_TEST

START_TEST(test_wall_time_splits_exactly)
{
    /* A harsh world (system MTBF 100 s against segments of ~30 s): every sample's wall time is
     * useful + checkpoints + lost + restarts (property over 200 samples) */
    weft_job_params_t p;
    tiny_params(&p);
    p.steps = 2000;
    p.rates.mtbf_s[WEFT_FAULT_GPU] = 800.0; /* 8 GPUs: M = 100 s */
    p.samples = 200;
    for (guint i = 0; i < p.samples; i++) {
        weft_job_sample_t s;
        ck_assert(weft_job_simulate(&p, 12, i, &s, NULL));
        double sum = s.useful_s + s.checkpoint_s + s.lost_s + s.restart_s + s.slowdown_s;
        ck_assert_double_eq_tol(sum, s.wall_s, 1e-9 * s.wall_s);
        ck_assert_double_eq(s.useful_s, 2000 * 2.5);
        ck_assert_uint_eq(s.checkpoints, 2000 / 12);
        ck_assert_uint_gt(s.interruptions, 0);
    }
}
END_TEST

/* ---- Monte Carlo -------------------------------------------------------------------------- */

START_TEST(test_same_seed_same_result_any_threads)
{
    weft_job_params_t p;
    llama3_params(&p);
    p.steps = 100000;
    p.samples = 200;
    weft_job_mc_t a, b, c, d;
    p.threads = 1;
    ck_assert(weft_job_monte_carlo(&p, 30, &a, NULL, NULL));
    p.threads = 4;
    ck_assert(weft_job_monte_carlo(&p, 30, &b, NULL, NULL));
    ck_assert(memcmp(&a, &b, sizeof a) == 0); /* bit for bit, whatever the threads */
    p.threads = 3;
    ck_assert(weft_job_monte_carlo(&p, 30, &c, NULL, NULL));
    ck_assert(memcmp(&a, &c, sizeof a) == 0);
    p.seed = 2;
    ck_assert(weft_job_monte_carlo(&p, 30, &d, NULL, NULL));
    ck_assert(a.wall_s.mean != d.wall_s.mean); /* another seed: other samples */
    /* and within one run, samples differ from one another */
    g_autofree weft_job_sample_t *samples = NULL;
    ck_assert(weft_job_monte_carlo(&p, 30, &d, &samples, NULL));
    ck_assert(samples[0].wall_s != samples[1].wall_s);
    ck_assert(d.wall_s.sd > 0.0);
}
END_TEST

START_TEST(test_standard_error_shrinks_as_one_over_sqrt_n)
{
    /* se = sd / sqrt(n): from 100 to 1,600 samples it shrinks by sqrt(16) = 4. The sd estimate
     * of 100 samples is itself off by ~1/sqrt(2 x 100) = 7% (1 sd), so the ratio lies in
     * 4 x (1 +/- 0.25) = [3, 5] with room to spare; and the mean of 1,600 samples lies within
     * the 95% CI of the mean of 100 widened to 4 se (fixed seed: deterministic). */
    weft_job_params_t p;
    llama3_params(&p);
    p.steps = 50000;
    weft_job_mc_t small, large;
    p.samples = 100;
    ck_assert(weft_job_monte_carlo(&p, 30, &small, NULL, NULL));
    p.samples = 1600;
    ck_assert(weft_job_monte_carlo(&p, 30, &large, NULL, NULL));
    double ratio = small.wall_s.se / large.wall_s.se;
    ck_assert_msg(ratio > 3.0 && ratio < 5.0, "se ratio %.3f", ratio);
    ck_assert(fabs(small.wall_s.mean - large.wall_s.mean) < 4.0 * small.wall_s.se);
    ck_assert(large.wall_s.ci95_lo < large.wall_s.mean && large.wall_s.mean < large.wall_s.ci95_hi);
    ck_assert_double_eq_tol(large.wall_s.ci95_hi - large.wall_s.mean, 1.96 * large.wall_s.se, 1e-9);
    ck_assert(large.wall_s.median <= large.wall_s.p90);
}
END_TEST

/* issue 19, item 6: a run that cannot progress is refused before any sample runs. The tiny
 * world with 8 GPUs of MTBF 80 s: Lambda = 8 / 80 = 0.1 per s. Segments of K = 3 steps and a
 * checkpoint, L = 3 x 2.5 + 0.75 = 8.25 s; ceil(10 / 3) = 4 segments; each needs
 * expm1(0.825) failures on average and each restart of 10 s is repeated e^(1.0) times:
 * 4 x expm1(0.825) x e = 4 x 1.28184 x 2.71828 = 13.938 interruptions per sample. */
START_TEST(test_no_progress_is_refused_up_front)
{
    weft_job_params_t p;
    tiny_params(&p);
    ck_assert_double_eq(weft_job_expected_interruptions(&p, 3), 0.0); /* nothing fails */
    p.rates.mtbf_s[WEFT_FAULT_GPU] = 80.0;
    ck_assert_double_eq_tol(weft_job_expected_interruptions(&p, 3),
                            4.0 * expm1(0.825) * exp(1.0), 1e-12);
    ck_assert_double_eq_tol(weft_job_expected_interruptions(&p, 3), 13.938, 1e-3);
    /* a span bounds it by Lambda x span: 0.1 x 50 s = 5 */
    p.span_s = 50.0;
    ck_assert_double_eq_tol(weft_job_expected_interruptions(&p, 3), 5.0, 1e-12);
    p.span_s = INFINITY;
    weft_job_mc_t mc;
    GError *error = NULL;
    ck_assert(weft_job_monte_carlo(&p, 3, &mc, NULL, &error));
    /* a step of 1e30 s can never complete between failures: refused, no sample run */
    p.step_time_s = 1e30;
    ck_assert(isinf(weft_job_expected_interruptions(&p, 3)));
    ck_assert(!weft_job_monte_carlo(&p, 3, &mc, NULL, &error));
    ck_assert(g_error_matches(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE));
    ck_assert_ptr_nonnull(strstr(error->message, "no progress possible"));
    g_clear_error(&error);
    weft_job_sample_t one;
    ck_assert(!weft_job_simulate(&p, 3, 0, &one, &error));
    ck_assert(g_error_matches(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE));
    g_clear_error(&error);
    /* 1 s steps over a span of 10^15 days: 0.1 x 8.64e19 s = 8.64e18 per sample */
    p.step_time_s = 2.5;
    p.steps = G_MAXUINT64;
    p.span_s = 8.64e19;
    ck_assert_double_eq_tol(weft_job_expected_interruptions(&p, 3), 8.64e18, 1e6);
    ck_assert(!weft_job_monte_carlo(&p, 3, &mc, NULL, &error));
    ck_assert(g_error_matches(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE));
    g_clear_error(&error);
}
END_TEST

START_TEST(test_stats_by_hand)
{
    /* 1, 2, 3, 4: mean 2.5, sd sqrt(5/3) = 1.290994, median 2.5, p90 at h = 3 x 0.9 = 2.7:
     * 3 + 0.7 x 1 = 3.7 */
    double x[] = {4, 1, 3, 2};
    weft_job_stat_t st;
    weft_job_stat_compute(x, 4, &st);
    ck_assert_double_eq_tol(st.mean, 2.5, 1e-12);
    ck_assert_double_eq_tol(st.sd, sqrt(5.0 / 3.0), 1e-12);
    ck_assert_double_eq_tol(st.se, sqrt(5.0 / 3.0) / 2.0, 1e-12);
    ck_assert_double_eq_tol(st.median, 2.5, 1e-12);
    ck_assert_double_eq_tol(st.p90, 3.7, 1e-12);
    ck_assert_double_eq(st.min, 1.0);
    ck_assert_double_eq(st.max, 4.0);
    ck_assert_double_eq(x[0], 4.0); /* not sorted in place */
}
END_TEST

START_TEST(test_54_days_on_16k_gpus_gives_419_interruptions)
{
    /* The default rates were derived from 419 interruptions of 16,384 GPUs in 54 days, so over
     * that span the count is Poisson with mean exactly 419 (failures arrive in wall-clock time
     * whatever the job does) and sd sqrt(419) = 20.47. Over 2,000 samples the mean's se is
     * 20.47 / sqrt(2000) = 0.46: the mean must lie within 4 se (1.8, 0.4%) of 419; a single
     * sample (sample 0) within 3 sd (61.4) of it; at least 99% of samples within 3 sd (a normal
     * tail beyond 3 sd is 0.27%); and the samples' sd within 10% of 20.47 (the sd estimate of
     * 2,000 samples is good to ~1.6%). */
    weft_job_params_t p;
    llama3_params(&p);
    p.steps = G_MAXUINT64;
    p.span_s = 54.0 * 86400.0;
    p.samples = 2000;
    weft_job_mc_t mc;
    g_autofree weft_job_sample_t *s = NULL;
    ck_assert(weft_job_monte_carlo(&p, 28, &mc, &s, NULL));
    const double sd = sqrt(419.0);
    ck_assert_msg(fabs(mc.interruptions.mean - 419.0) < 4.0 * sd / sqrt(2000.0), "mean %.2f",
                  mc.interruptions.mean);
    ck_assert(fabs((double)s[0].interruptions - 419.0) < 3.0 * sd);
    guint within = 0;
    for (guint i = 0; i < p.samples; i++) {
        within += fabs((double)s[i].interruptions - 419.0) < 3.0 * sd;
    }
    ck_assert_uint_ge(within, 1980);
    ck_assert_double_eq_tol(mc.interruptions.sd, sd, 0.1 * sd);
    /* per category, the table's counts: GPU 268 (se 16.4/sqrt(2000) = 0.37: within 1.5) */
    ck_assert_double_eq_tol(mc.per_category[WEFT_FAULT_CAT_GPU].mean, 268.0, 1.5);
    ck_assert_double_eq_tol(mc.per_category[WEFT_FAULT_CAT_NETWORK].mean, 35.0, 0.6);
    ck_assert_double_eq_tol(mc.per_category[WEFT_FAULT_CAT_HOST].mean, 21.0, 0.5);
    /* the wall time is the span */
    ck_assert_double_eq(mc.wall_s.mean, 54.0 * 86400.0);
}
END_TEST

START_TEST(test_stationary_weibull_keeps_the_rate)
{
    /* Weibull parts of stationary ages fail at the long-run rate sum n_c / MTBF_c from the
     * start, whatever the shape: 419 in 54 days again (300 samples: se <= 20.5 / sqrt(300) =
     * 1.18 if Poisson-like; 4 se = 4.7). Parts all new at k = 0.7 burn in: far more (the hazard
     * of a new part is highest; ~1,900), and at k = 2 (wear-out) far fewer (< 100). */
    weft_job_params_t p;
    llama3_params(&p);
    p.steps = G_MAXUINT64;
    p.span_s = 54.0 * 86400.0;
    p.samples = 300;
    p.rates.dist = WEFT_FAULT_DIST_WEIBULL;
    p.rates.weibull_shape = 0.7;
    weft_job_mc_t mc;
    ck_assert(weft_job_monte_carlo(&p, 37, &mc, NULL, NULL));
    ck_assert_msg(fabs(mc.interruptions.mean - 419.0) < 4.7, "mean %.2f", mc.interruptions.mean);
    p.rates.weibull_new = TRUE;
    p.samples = 20;
    ck_assert(weft_job_monte_carlo(&p, 37, &mc, NULL, NULL));
    ck_assert_msg(mc.interruptions.mean > 1000.0, "mean %.2f", mc.interruptions.mean);
    p.rates.weibull_shape = 2.0;
    ck_assert(weft_job_monte_carlo(&p, 37, &mc, NULL, NULL));
    ck_assert_msg(mc.interruptions.mean < 100.0, "mean %.2f", mc.interruptions.mean);
}
END_TEST

static void
check_best_near_daly(weft_job_params_t *p)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_job_search_t) s = weft_job_search(p, TRUE, &err);
    ck_assert_msg(s != NULL, "%s", err ? err->message : "");
    double rel = fabs((double)s->best_steps - (double)s->daly_steps) / (double)s->daly_steps;
    ck_assert_msg(rel <= 0.2, "best %" G_GUINT64_FORMAT " Daly %" G_GUINT64_FORMAT, s->best_steps,
                  s->daly_steps);
    /* the points are sorted and include the best */
    gboolean has_best = FALSE;
    for (guint i = 0; i < s->points->len; i++) {
        const weft_job_mc_t *q = &g_array_index(s->points, weft_job_mc_t, i);
        has_best |= q->checkpoint_steps == s->best_steps;
        if (i > 0) {
            ck_assert_uint_gt(q->checkpoint_steps,
                              g_array_index(s->points, weft_job_mc_t, i - 1).checkpoint_steps);
        }
    }
    ck_assert(has_best);
}

START_TEST(test_best_interval_is_near_daly)
{
    /* M = 54 d / 419 = 11,135.04 s. Checkpoint delta = 2.835 s (5.67 TB at 2 TB/s), restart
     * R = 362.835 s. Young sqrt(2 delta M) = 251.27 s; Daly: x = delta / 2M = 1.273e-4,
     * 251.27 (1 + sqrt(x)/3 + x/9) - 2.835 = 249.38 s = 27.6 -> 28 steps of 9.02 s. The best
     * interval of 500,000 steps (52 days) over 400 samples with common random numbers must lie
     * within 20% of it. */
    weft_job_params_t p;
    llama3_params(&p);
    p.steps = 500000;
    p.samples = 400;
    double M = weft_job_system_mtbf_s(&p);
    ck_assert_double_eq_tol(M, 54.0 * 86400 / 419, 1e-6);
    ck_assert_double_eq_tol(weft_job_young_s(p.checkpoint_write_s, M), 251.269, 1e-3);
    ck_assert_double_eq_tol(weft_job_daly_s(p.checkpoint_write_s, M), 249.382, 1e-3);
    ck_assert_uint_eq(weft_job_interval_steps(&p, weft_job_daly_s(p.checkpoint_write_s, M)), 28);
    check_best_near_daly(&p);
    /* a slow checkpoint, delta = 300 s: Young 2,584.8 s; Daly x = 0.01347: 2,584.8 (1 + 0.0387 +
     * 0.0015) - 300 = 2,388.7 s = 265 steps: Young's is 8% longer, and the best is Daly's */
    p.checkpoint_write_s = 300.0;
    p.restart_s = 660.0;
    check_best_near_daly(&p);
}
END_TEST

START_TEST(test_young_and_daly_by_hand)
{
    /* delta 2 s, M 100 s: Young sqrt(400) = 20 s; Daly x = 0.01: 20 (1 + 0.1/3 + 0.01/9) - 2 =
     * 18.688889 s; delta >= 2M: M */
    ck_assert_double_eq_tol(weft_job_young_s(2.0, 100.0), 20.0, 1e-12);
    ck_assert_double_eq_tol(weft_job_daly_s(2.0, 100.0), 20.0 * (1 + 0.1 / 3 + 0.01 / 9) - 2,
                            1e-12);
    ck_assert_double_eq_tol(weft_job_daly_s(2.0, 100.0), 18.688889, 1e-6);
    ck_assert_double_eq(weft_job_daly_s(250.0, 100.0), 100.0);
    /* nothing fails: no interval to search */
    weft_job_params_t p;
    tiny_params(&p);
    g_autoptr(GError) err = NULL;
    ck_assert(weft_job_search(&p, TRUE, &err) == NULL);
    ck_assert(g_error_matches(err, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE));
}
END_TEST

/* ---- configuration ------------------------------------------------------------------------- */

static void
expect_set_error(const char *assignment, gint code)
{
    g_autoptr(weft_job_config_t) cfg = weft_job_config_new();
    g_autoptr(GError) err = NULL;
    ck_assert_msg(!weft_job_config_set(cfg, assignment, &err), "%s accepted", assignment);
    ck_assert_msg(g_error_matches(err, WEFT_JOB_ERROR, code), "%s: %s", assignment, err->message);
}

START_TEST(test_bad_values_are_errors)
{
    expect_set_error("failures.mtbf_gpu=-5h", WEFT_JOB_ERROR_VALUE); /* negative MTBF */
    expect_set_error("failures.mtbf_gpu=0h", WEFT_JOB_ERROR_VALUE);  /* zero MTBF */
    expect_set_error("failures.mtbf_nic=5", WEFT_JOB_ERROR_VALUE);   /* no unit */
    expect_set_error("train.step_time=0s", WEFT_JOB_ERROR_VALUE);    /* zero step time */
    expect_set_error("train.checkpoint_interval=0", WEFT_JOB_ERROR_VALUE);
    expect_set_error("train.checkpoint_interval=2.5", WEFT_JOB_ERROR_VALUE);
    expect_set_error("failures.distribution=lognormal", WEFT_JOB_ERROR_VALUE);
    expect_set_error("failures.weibull_shape=-1", WEFT_JOB_ERROR_VALUE);
    expect_set_error("failures.weibull_start=old", WEFT_JOB_ERROR_VALUE);
    expect_set_error("train.storage_write_bandwidth=0GB/s", WEFT_JOB_ERROR_VALUE);
    expect_set_error("train.checkpoint_size=5", WEFT_JOB_ERROR_VALUE);
    expect_set_error("train.samples=0", WEFT_JOB_ERROR_VALUE);
    expect_set_error("train.seed=-1", WEFT_JOB_ERROR_VALUE);
    expect_set_error("train.stepz=3", WEFT_JOB_ERROR_KEY);
    expect_set_error("failures.mtbf_gpus=5h", WEFT_JOB_ERROR_KEY);
    expect_set_error("output.dir=x", WEFT_JOB_ERROR_KEY);
    expect_set_error("train.steps", WEFT_JOB_ERROR_PARSE);
}
END_TEST

static void
resolve_expect(const char *const *sets, gint code)
{
    g_autoptr(weft_job_config_t) cfg = weft_job_config_new();
    for (guint i = 0; sets[i] != NULL; i++) {
        ck_assert(weft_job_config_set(cfg, sets[i], NULL));
    }
    weft_job_params_t p;
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_job_config_resolve(cfg, &p, NULL, &err));
    ck_assert_msg(g_error_matches(err, WEFT_JOB_ERROR, code), "%s", err->message);
}

START_TEST(test_incomplete_configurations_are_errors)
{
    const char *no_step_time[] = {"train.gpus=8", "train.steps=10", NULL};
    resolve_expect(no_step_time, WEFT_JOB_ERROR_KEY);
    const char *no_length[] = {"train.gpus=8", "train.step_time=1s", NULL};
    resolve_expect(no_length, WEFT_JOB_ERROR_KEY);
    const char *two_lengths[] = {"train.gpus=8", "train.step_time=1s", "train.steps=10",
                                 "train.span=1d", NULL};
    resolve_expect(two_lengths, WEFT_JOB_ERROR_KEY);
    const char *no_cluster[] = {"train.step_time=1s", "train.steps=10", NULL};
    resolve_expect(no_cluster, WEFT_JOB_ERROR_KEY);
    const char *half_tokens[] = {"train.gpus=8", "train.step_time=1s", "train.tokens=1e9", NULL};
    resolve_expect(half_tokens, WEFT_JOB_ERROR_KEY);
    const char *missing_cluster[] = {"train.cluster=/nonexistent/c.ini", "train.step_time=1s",
                                     "train.steps=10", NULL};
    resolve_expect(missing_cluster, WEFT_JOB_ERROR_IO);
}
END_TEST

START_TEST(test_config_file_resolves)
{
    g_autofree char *dir = g_dir_make_tmp("check_job_XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "t.ini", NULL);
    const char *text = "[train]\n"
                       "gpus = 16384\n"
                       "step_time = 9.02s\n"
                       "tokens = 15.6e12\n"
                       "tokens_per_step = 16e6\n"
                       "checkpoint_interval = 30\n"
                       "detection_time = 2min\n"
                       "[failures]\n"
                       "mtbf_planned = 27.5h\n"
                       "distribution = weibull\n";
    ck_assert(g_file_set_contents(path, text, -1, NULL));
    g_autoptr(weft_job_config_t) cfg = weft_job_config_new();
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_job_config_load(cfg, path, &err), "%s", err ? err->message : "");
    weft_job_params_t p;
    ck_assert(weft_job_config_resolve(cfg, &p, NULL, &err));
    /* 15.6e12 / 16e6 = 975,000 steps */
    ck_assert_uint_eq(p.steps, 975000);
    ck_assert_double_eq(p.step_time_s, 9.02);
    ck_assert_uint_eq(p.checkpoint_steps, 30);
    ck_assert(!p.checkpoint_auto);
    /* 5.67 TB / 2 TB/s = 2.835 s; restart 120 + 300 + 2.835 = 422.835 s */
    ck_assert_double_eq_tol(p.checkpoint_write_s, 2.835, 1e-12);
    ck_assert_double_eq_tol(p.restart_s, 422.835, 1e-9);
    ck_assert_double_eq(p.rates.mtbf_s[WEFT_FAULT_PLANNED], 27.5 * 3600);
    ck_assert_int_eq(p.rates.dist, WEFT_FAULT_DIST_WEIBULL);
    ck_assert_double_eq(p.rates.weibull_shape, 0.7);
    ck_assert_uint_eq(p.counts.n[WEFT_FAULT_CABLE], 49152);
    /* a key set twice, an unknown group */
    ck_assert(g_file_set_contents(path, "[train]\nsteps = 1\nsteps = 2\n", -1, NULL));
    g_clear_error(&err);
    ck_assert(!weft_job_config_load(cfg, path, &err));
    ck_assert(g_error_matches(err, WEFT_JOB_ERROR, WEFT_JOB_ERROR_PARSE));
    ck_assert(g_file_set_contents(path, "[cluster]\nkind = switch\n", -1, NULL));
    g_clear_error(&err);
    ck_assert(!weft_job_config_load(cfg, path, &err));
    ck_assert(g_error_matches(err, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY));
    g_unlink(path);
    g_rmdir(dir);
}
END_TEST

START_TEST(test_keys_store_typed_values)
{
    /* 18 [train] rows, 4 shared [failures] rows, mtbf_ and degrade_mtbf_ for 9 classes */
    guint n = 0;
    const weft_key_t *keys = weft_job_keys(&n);
    ck_assert_uint_eq(n, 18 + 4 + 2 * WEFT_FAULT_N_CLASSES);
    ck_assert_ptr_nonnull(weft_keys_find(keys, n, "failures", "degrade_mtbf_planned"));
    ck_assert(weft_job_config_has_group("train") && weft_job_config_has_group("failures"));
    ck_assert(!weft_job_config_has_group("output"));

    g_autoptr(weft_job_config_t) cfg = weft_job_config_new();
    weft_job_settings_t s;
    ck_assert(weft_job_config_settings(cfg, &s, NULL));
    /* the defaults: auto is 0; 5.67 TB; 2 TB/s; 60 s; 1000 samples; the Llama 3 rates */
    weft_fault_rates_t def;
    weft_fault_rates_init_default(&def);
    ck_assert_uint_eq(s.checkpoint_interval, 0);
    ck_assert_uint_eq(s.checkpoint_size_B, 5670000000000);
    ck_assert_double_eq(s.storage_write_Bps, 2e12);
    ck_assert(!s.storage_read_given);
    ck_assert_double_eq(s.detection_s, 60.0);
    ck_assert_uint_eq(s.samples, 1000);
    ck_assert_uint_eq(s.gpus_per_host, 8);
    ck_assert_uint_eq(s.seed, 1);
    ck_assert(!s.steps_given && !s.gpus_given && s.cluster == NULL);
    ck_assert_int_eq(s.rates.dist, WEFT_FAULT_DIST_EXPONENTIAL);
    ck_assert(!s.rates.weibull_new);
    ck_assert_double_eq(s.rates.degrade_repair_s, 4 * 3600.0);
    for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
        ck_assert_double_eq(s.rates.mtbf_s[c], def.mtbf_s[c]);
        ck_assert(isinf(s.rates.degrade_mtbf_s[c]));
    }

    const char *sets[] = {"train.steps=1e6",
                          "train.checkpoint_interval=30",
                          "train.seed=18446744073709551615",
                          "failures.distribution=weibull",
                          "failures.weibull_start=new",
                          "failures.mtbf_gpu=off",
                          "failures.mtbf_host=10y" /* y: no such unit, refused */,
                          "failures.mtbf_nic=3650d",
                          "failures.degrade_mtbf_cable=1d",
                          "train.cluster=c.ini"};
    for (guint i = 0; i < G_N_ELEMENTS(sets); i++) {
        g_autoptr(GError) err = NULL;
        gboolean ok = weft_job_config_set(cfg, sets[i], &err);
        ck_assert_msg(ok == (i != 6), "%s: %s", sets[i], err != NULL ? err->message : "accepted");
    }
    ck_assert(weft_job_config_settings(cfg, &s, NULL));
    ck_assert(s.steps_given);
    ck_assert_uint_eq(s.steps, 1000000);
    ck_assert_uint_eq(s.checkpoint_interval, 30);
    ck_assert_uint_eq(s.seed, G_MAXUINT64); /* every bit of a 64-bit seed */
    ck_assert_int_eq(s.rates.dist, WEFT_FAULT_DIST_WEIBULL);
    ck_assert(s.rates.weibull_new);
    ck_assert(isinf(s.rates.mtbf_s[WEFT_FAULT_GPU]));
    ck_assert_double_eq(s.rates.mtbf_s[WEFT_FAULT_HOST], def.mtbf_s[WEFT_FAULT_HOST]);
    ck_assert_double_eq(s.rates.mtbf_s[WEFT_FAULT_NIC], 3650 * 86400.0); /* past int64 ps */
    ck_assert_double_eq(s.rates.degrade_mtbf_s[WEFT_FAULT_CABLE], 86400.0);
    ck_assert(g_path_is_absolute(s.cluster));
    /* the text as written, in the effective configuration */
    ck_assert_str_eq(weft_job_config_get(cfg, "train", "steps"), "1e6");
    g_autofree char *ini = weft_job_config_to_ini(cfg);
    ck_assert_ptr_nonnull(strstr(ini, "\nsteps = 1e6\n"));
    ck_assert_ptr_nonnull(strstr(ini, "\nmtbf_gpu = off\n"));
    ck_assert_ptr_nonnull(strstr(ini, "\n# gpus = (unset: "));
    /* an empty value of a key without default: back to unset */
    ck_assert(weft_job_config_set(cfg, "train.cluster=", NULL));
    ck_assert_ptr_null(weft_job_config_get(cfg, "train", "cluster"));
}
END_TEST

/* ---- reports ------------------------------------------------------------------------------- */

START_TEST(test_reports_are_written)
{
    weft_job_params_t p;
    llama3_params(&p);
    p.steps = 20000;
    p.samples = 50;
    g_autoptr(weft_job_search_t) s = weft_job_search(&p, FALSE, NULL);
    ck_assert(s != NULL);
    const weft_job_mc_t *mc = &g_array_index(s->points, weft_job_mc_t, 0);
    g_autofree char *dir = g_dir_make_tmp("check_job_XXXXXX", NULL);
    g_autofree char *json = g_build_filename(dir, "summary.json", NULL);
    g_autofree char *csv = g_build_filename(dir, "goodput.csv", NULL);
    ck_assert(weft_job_write_summary_json(json, &p, mc, s, NULL));
    ck_assert(weft_job_write_sweep_csv(csv, &p, s, NULL));
    g_autoptr(JsonParser) parser = json_parser_new();
    ck_assert(json_parser_load_from_file(parser, json, NULL));
    JsonObject *root = json_node_get_object(json_parser_get_root(parser));
    JsonObject *res = json_object_get_object_member(root, "results");
    JsonObject *in = json_object_get_object_member(res, "interruptions");
    ck_assert_double_eq(json_object_get_double_member(in, "mean"), mc->interruptions.mean);
    ck_assert(json_object_has_member(res, "lost_work_s"));
    ck_assert(json_object_has_member(res, "checkpoint_overhead_s"));
    JsonObject *cat = json_object_get_object_member(res, "interruptions_per_category");
    ck_assert(json_object_has_member(cat, "unplanned_maintenance"));
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(csv, &text, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    /* a header, one row per point, and the empty string after the last newline */
    ck_assert_uint_eq(g_strv_length(lines), s->points->len + 2);
    ck_assert(g_str_has_prefix(lines[0], "checkpoint_interval_steps,"));
    g_unlink(json);
    g_unlink(csv);
    g_rmdir(dir);
}
END_TEST

/* The step of @scenario replayed with fault line @line (NULL: none), in seconds. */
static double
replay_with(const char *scenario, const char *line)
{
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert(weft_scenario_load(sc, scenario, &err));
    if (line != NULL) {
        ck_assert(weft_scenario_set_value(sc, "faults", "events", line, &err));
    }
    weft_scenario_unset(sc, "output", "dir");
    g_autoptr(weft_scenario_run_t) run = weft_scenario_run(sc, &err);
    ck_assert_msg(run != NULL, "%s", err ? err->message : "");
    return weft_time_to_s(run->replay->step_ps);
}

/* The first cable (in weft_fault_counts_from_topo() order) whose fault line contains @what. */
static guint64
cable_with(const weft_topo_t *topo, const char *what, char **line)
{
    weft_fault_counts_t n;
    weft_fault_counts_from_topo(topo, &n);
    for (guint64 k = 0; k < n.n[WEFT_FAULT_CABLE]; k++) {
        weft_fault_event_t ev = {0.0, WEFT_FAULT_CABLE, k};
        char *l = weft_fault_degrade_line(topo, &ev, NULL);
        ck_assert_ptr_nonnull(l);
        if (strstr(l, what) != NULL) {
            *line = l;
            return k;
        }
        g_free(l);
    }
    ck_abort_msg("no cable with %s", what);
    return 0;
}

START_TEST(test_degrading_cable_fault_replays_the_step)
{
    /* 4 DGX H100 on one leaf-spine (2 leaves of 2 nodes, 1 spine; each leaf-spine link a
     * bundle of 16 cables); an all-to-all of 1 GiB over GPUs 0 and 1 of each node (8 ranks,
     * round-robin), under flow. Two GPUs per node, so that node0/gpu0, its NIC's cable down,
     * shares another GPU's NIC: with GPU 0 alone the detour runs on an idle NIC and NCCL's
     * per-hop latency covers its NVLink hop, so the step would not change. */
    g_autofree char *dir = g_dir_make_tmp("check_job_XXXXXX", NULL);
    g_autofree char *cluster = g_build_filename(dir, "c.ini", NULL);
    g_autofree char *scenario = g_build_filename(dir, "a2a.ini", NULL);
    g_autofree char *outdir = g_build_filename(dir, "out", NULL);
    ck_assert(g_file_set_contents(cluster,
                                  "[cluster]\nkind = dgx-h100\nnodes = 4\nfabric = leaf-spine\n"
                                  "nic = ndr\nswitch_radix = 32\nnodes_per_leaf = 2\n",
                                  -1, NULL));
    ck_assert(g_file_set_contents(scenario,
                                  "[cluster]\nfile = c.ini\n"
                                  "[workload]\ncollective = alltoall\ncollective_bytes = 1GiB\n"
                                  "collective_ranks = 8\nplacement = round-robin\n"
                                  "[network]\nmodel = flow\n[output]\ndir = out\n",
                                  -1, NULL));
    g_autoptr(weft_job_config_t) cfg = weft_job_config_new();
    g_autoptr(GError) err = NULL;
    g_autofree char *set_scenario = g_strdup_printf("train.scenario=%s", scenario);
    ck_assert(weft_job_config_set(cfg, set_scenario, &err));
    ck_assert(weft_job_config_set(cfg, "train.steps=10", &err));
    ck_assert(weft_job_config_set(cfg, "failures.degrade_mtbf_cable=1d", &err));
    weft_job_params_t p;
    ck_assert_msg(weft_job_config_resolve(cfg, &p, NULL, &err), "%s", err ? err->message : "");
    ck_assert_ptr_nonnull(p.step_time_fn);
    double nominal = p.step_time_s;
    ck_assert_double_eq(nominal, replay_with(scenario, NULL));

    g_autoptr(weft_topo_t) topo = weft_topo_load(cluster, &err);
    ck_assert_ptr_nonnull(topo);
    /* the cable of node0/nic0 (one lane: the link goes down, GPU 0 of node 0 reaches
     * the fabric through another NIC of its node) */
    g_autofree char *nic_line = NULL;
    guint64 nic_cable = cable_with(topo, "node0/nic0", &nic_line);
    ck_assert_str_eq(nic_line, "0us link_down node0/nic0 leaf0");
    weft_fault_event_t ev = {0.0, WEFT_FAULT_CABLE, nic_cable};
    double s = 0.0;
    ck_assert(p.step_time_fn(&ev, nominal, &s, p.step_time_data, &err));
    /* exactly the step replayed under that line, and slower than without it */
    ck_assert_double_eq(s, replay_with(scenario, nic_line));
    ck_assert(s > nominal);
    /* asked again: the cached answer */
    double again = 0.0;
    ck_assert(p.step_time_fn(&ev, nominal, &again, p.step_time_data, &err));
    ck_assert_double_eq(again, s);
    /* one cable of the leaf0 -- spine0 bundle of 16: the link keeps 15/16 */
    g_autofree char *bundle_line = NULL;
    guint64 bundle_cable = cable_with(topo, "leaf0 spine0", &bundle_line);
    ck_assert_str_eq(bundle_line, "0us link_degrade leaf0 spine0 0.9375");
    ev.component = bundle_cable;
    ck_assert(p.step_time_fn(&ev, nominal, &s, p.step_time_data, &err));
    ck_assert_double_eq(s, MAX(nominal, replay_with(scenario, bundle_line)));
    /* the step-time replays wrote nothing (output.dir is dropped for them) */
    ck_assert(!g_file_test(outdir, G_FILE_TEST_EXISTS));

    /* a degrading GPU fault has no in-step model: refused when resolving */
    ck_assert(weft_job_config_set(cfg, "failures.degrade_mtbf_gpu=1d", &err));
    g_clear_error(&err);
    ck_assert(!weft_job_config_resolve(cfg, &p, NULL, &err));
    ck_assert(g_error_matches(err, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY));
    g_remove(cluster);
    g_remove(scenario);
    g_rmdir(dir);
}
END_TEST

START_TEST(test_timeline_tiles_the_run)
{
    /* the 16,384-GPU cluster for 54 days: hundreds of failures */
    weft_job_params_t p;
    llama3_params(&p);
    p.steps = G_MAXUINT64;
    p.span_s = 54 * 86400.0;
    p.step_time_s = 9.02;
    p.checkpoint_write_s = 2.835;
    g_autoptr(GArray) spans = g_array_new(FALSE, FALSE, sizeof(weft_job_span_t));
    weft_job_sample_t with, without;
    ck_assert(weft_job_simulate_timeline(&p, 30, 3, spans, &with, NULL));
    ck_assert(weft_job_simulate(&p, 30, 3, &without, NULL));
    /* the timeline does not change the run */
    ck_assert_double_eq(with.wall_s, without.wall_s);
    ck_assert_uint_eq(with.interruptions, without.interruptions);
    /* train, lost and restart spans tile [0, wall) in order; lost and restart add up to the
     * sample's totals; one lost span per failure that hit a step (a failure during a
     * restart has none), at most one restart span per interruption */
    double t = 0.0, lost = 0.0, restart = 0.0;
    guint n_lost = 0, n_restart = 0;
    for (guint i = 0; i < spans->len; i++) {
        const weft_job_span_t *sp = &g_array_index(spans, weft_job_span_t, i);
        ck_assert(sp->kind != WEFT_JOB_SPAN_DEGRADED); /* none by default */
        ck_assert_msg(fabs(sp->start_s - t) <= 1e-6, "span %u starts at %.9f, not %.9f", i,
                      sp->start_s, t);
        ck_assert(sp->end_s > sp->start_s);
        t = sp->end_s;
        if (sp->kind == WEFT_JOB_SPAN_LOST) {
            lost += sp->end_s - sp->start_s;
            n_lost++;
        } else if (sp->kind == WEFT_JOB_SPAN_RESTART) {
            restart += sp->end_s - sp->start_s;
            n_restart++;
        }
    }
    ck_assert_double_eq_tol(t, with.wall_s, 1e-6);
    ck_assert_double_eq_tol(lost, with.lost_s, 1e-6);
    ck_assert_double_eq_tol(restart, with.restart_s, 1e-6);
    ck_assert_uint_le(n_lost, with.interruptions);
    ck_assert_uint_eq(n_restart, with.interruptions);
    ck_assert_uint_gt(with.interruptions, 300); /* ~419 expected over 54 days */
}
END_TEST

static Suite *
job_suite(void)
{
    Suite *s = suite_create("job");
    TCase *rates = tcase_create("rates");
    tcase_add_test(rates, test_default_rates_follow_the_table);
    tcase_add_test(rates, test_counts_for_gpus_are_the_reference);
    tcase_add_test(rates, test_counts_from_a_cluster);
    tcase_add_test(rates, test_counts_of_the_bundled_16k_cluster);
    tcase_add_test(rates, test_parse_duration);
    tcase_add_test(rates, test_rates_check_refuses_bad_values);
    tcase_add_test(rates, test_sampler_is_repeatable_per_stream);
    tcase_add_test(rates, test_weibull_lifetimes_have_the_mtbf_as_mean);
    suite_add_tcase(s, rates);
    TCase *run = tcase_create("run");
    tcase_add_test(run, test_no_failures_time_is_steps_and_checkpoints);
    tcase_add_test(run, test_one_failure_loses_work_since_the_checkpoint);
    tcase_add_test(run, test_failure_during_restart_restarts_it);
    tcase_add_test(run, test_span_stops_the_run);
    tcase_add_test(run, test_degrading_fault_asks_the_provider);
    tcase_add_test(run, test_wall_time_splits_exactly);
    tcase_add_test(run, test_timeline_tiles_the_run);
    suite_add_tcase(s, run);
    TCase *mc = tcase_create("monte_carlo");
    tcase_add_test(mc, test_same_seed_same_result_any_threads);
    tcase_add_test(mc, test_standard_error_shrinks_as_one_over_sqrt_n);
    tcase_add_test(mc, test_stats_by_hand);
    tcase_add_test(mc, test_54_days_on_16k_gpus_gives_419_interruptions);
    tcase_add_test(mc, test_stationary_weibull_keeps_the_rate);
    tcase_add_test(mc, test_best_interval_is_near_daly);
    tcase_add_test(mc, test_young_and_daly_by_hand);
    suite_add_tcase(s, mc);
    TCase *cfg = tcase_create("config");
    tcase_add_test(cfg, test_bad_values_are_errors);
    tcase_add_test(cfg, test_incomplete_configurations_are_errors);
    tcase_add_test(cfg, test_config_file_resolves);
    tcase_add_test(cfg, test_keys_store_typed_values);
    tcase_add_test(cfg, test_reports_are_written);
    tcase_add_test(cfg, test_degrading_cable_fault_replays_the_step);
    tcase_add_test(cfg, test_no_progress_is_refused_up_front);
    suite_add_tcase(s, cfg);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(job_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
