/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of faults inside a step (fault/step.h) and what the network,
 * routing and replay do with them: a link down in the middle of an all-to-all
 * on a two-spine leaf-spine (traffic moves to the other spine; completion time
 * derived by hand), both spines down (the stranded-transfer report, not a
 * hang), a degraded link, routes avoiding a link that is down under the
 * analytical model, a straggler delaying a ring all-reduce step, a GPU failure
 * stopping the step, straggler windows integrated exactly, determinism, and
 * every bad fault line refused with its error. Expected values are derived
 * beside each assertion.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "coll/coll.h"
#include "core/sim.h"
#include "fault/step.h"
#include "net/net.h"
#include "replay/replay.h"
#include "testutil.h"
#include "topo/topo.h"
#include "workload/workload.h"

#define US WEFT_PS_PER_US

/* ---- the two-spine leaf-spine ------------------------------------------------------ */

/*
 * leaf0 joins GPUs a0, a1; leaf1 joins b0, b1; each leaf has one link to each of
 * spine0 and spine1. Uplinks (leaf-spine) carry B = 50 GB/s = 5e10 B/s; GPU
 * links 100 B, so that only uplinks limit cross-leaf traffic. Every link has a
 * latency of A = 1 us. GPU vertices are 0..3 (a0, a1, b0, b1).
 */
#define B 5e10
#define A (1 * US)

static weft_topo_t *
two_spines(void)
{
    weft_topo_t *t = weft_topo_new("two-spines");
    GError *err = NULL;
    const char *gpus[] = {"a0", "a1", "b0", "b1"};
    for (guint i = 0; i < 4; i++) {
        ck_assert_int_eq(weft_topo_add_vertex(t, WEFT_VERTEX_GPU, gpus[i], -1, -1, &err), (gint)i);
    }
    gint leaf0 = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "leaf0", -1, -1, &err);
    gint leaf1 = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "leaf1", -1, -1, &err);
    gint spine0 = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "spine0", -1, -1, &err);
    gint spine1 = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "spine1", -1, -1, &err);
    for (gint g = 0; g < 4; g++) {
        ck_assert_int_ge(weft_topo_add_link(t, g, g < 2 ? leaf0 : leaf1, WEFT_LINK_ETHERNET,
                                            100 * B, A, 1, &err),
                         0);
    }
    gint leaves[] = {leaf0, leaf1}, spines[] = {spine0, spine1};
    for (guint l = 0; l < 2; l++) {
        for (guint s = 0; s < 2; s++) {
            ck_assert_int_ge(
                weft_topo_add_link(t, leaves[l], spines[s], WEFT_LINK_ETHERNET, B, A, 1, &err), 0);
        }
    }
    ck_assert_msg(weft_topo_finalize(t, &err), "%s", err ? err->message : "");
    return t;
}

/* The directed edge u -> v. */
static gint
edge(const weft_topo_t *t, const char *u, const char *v)
{
    g_autoptr(GArray) es = g_array_new(FALSE, FALSE, sizeof(gint));
    gint a = weft_topo_find_vertex(t, u), b = weft_topo_find_vertex(t, v);
    weft_topo_edges_between(t, a, b, es);
    for (guint i = 0; i < es->len; i++) {
        gint e = g_array_index(es, gint, i);
        if (weft_topo_edge_from(t, e) == a) {
            return e;
        }
    }
    ck_abort_msg("no edge %s -> %s", u, v);
    return -1;
}

typedef struct {
    weft_sim_t *sim;
    weft_time_t at;
} done_t;

static void
on_coll_done(void *ctx, guint64 tag)
{
    (void)tag;
    done_t *d = ctx;
    d->at = weft_sim_now(d->sim);
}

/* Bytes each rank sends each peer in the all-to-all: c = 1e6 B. */
#define C 1000000ull

/*
 * Runs a direct all-to-all of c bytes per pair over the 4 GPUs under flow with
 * ECMP seed @seed and the faults @events (nullable) on fabric state @f; returns its
 * completion time (-1 if it did not finish) and leaves the network (over @f) in *net_out.
 */
static weft_time_t
all_to_all(weft_fabric_t *f, guint64 seed, const char *events, weft_sim_t **sim_out,
           weft_net_t **net_out)
{
    const weft_topo_t *t = weft_fabric_topo(f);
    weft_fabric_set_ecmp_seed(f, seed);
    GError *err = NULL;
    weft_sim_t *sim = weft_sim_new(1);
    weft_net_options_t o = {.model = WEFT_NET_FLOW, .check_solves = TRUE};
    weft_net_t *net = weft_net_new_full(sim, f, &o);
    g_autoptr(weft_fault_plan_t) plan = weft_fault_plan_new(t);
    if (events != NULL) {
        ck_assert_msg(weft_fault_plan_add_text(plan, events, "test", TRUE, &err), "%s",
                      err ? err->message : "");
    }
    g_autoptr(weft_fault_run_t) fr = weft_fault_run_arm(plan, sim, net);
    g_autoptr(weft_coll_plan_t) cp =
        weft_coll_plan_new(WEFT_COLL_ALL_TO_ALL, WEFT_COLL_ALGO_DIRECT, 4, 4 * C, 1, &err);
    ck_assert_ptr_nonnull(cp);
    gint members[] = {0, 1, 2, 3};
    done_t d = {sim, -1};
    weft_coll_run_t *run = weft_coll_run(net, cp, members, on_coll_done, &d, 0, &err);
    ck_assert_msg(run != NULL, "%s", err ? err->message : "");
    weft_sim_run(sim);
    ck_assert_msg(weft_net_check_error(net) == NULL, "%s", weft_net_check_error(net)->message);
    weft_coll_run_free(run);
    weft_fault_run_free(g_steal_pointer(&fr));
    *sim_out = sim;
    *net_out = net;
    return d.at;
}

/*
 * The first ECMP seed under which each direction's 4 cross-leaf flows split 2/2
 * over the spines (the case derived by hand below); the test says so if none does.
 */
static guint64
balanced_seed(weft_fabric_t *f)
{
    const weft_topo_t *t = weft_fabric_topo(f);
    for (guint64 seed = 0; seed < 256; seed++) {
        weft_sim_t *sim;
        weft_net_t *net;
        weft_time_t end = all_to_all(f, seed, NULL, &sim, &net);
        double up = weft_net_link_stats(net, edge(t, "leaf0", "spine0")).bytes;
        double down = weft_net_link_stats(net, edge(t, "spine0", "leaf0")).bytes;
        weft_net_free(net);
        weft_sim_free(sim);
        if (up == 2.0 * C && down == 2.0 * C) {
            /* No fault: 2 flows per uplink at B/2 each: c / (B/2) = 2e6 / 5e10 s = 40 us,
             * then 4 hops of A: 44 us. */
            ck_assert_int_eq(end, 40 * US + 4 * A);
            return seed;
        }
    }
    ck_abort_msg("no ECMP seed in 0..255 splits the cross-leaf flows 2/2");
    return 0;
}

START_TEST(link_down_mid_all_to_all_moves_traffic_to_the_other_spine)
{
    g_autoptr(weft_topo_t) t = two_spines();
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    guint64 seed = balanced_seed(f);
    weft_sim_t *sim;
    weft_net_t *net;
    /*
     * At T = 10 us the link leaf0 -- spine0 goes down (both directions). Until then
     * each direction's 4 cross-leaf flows run 2 per spine at B/2 and have sent
     * (B/2) T = 2.5e5 B each. The 2 flows on spine0 in each direction move to
     * spine1, which then carries 4 flows at B/4: the 7.5e5 B left take
     * 7.5e5 / 1.25e10 s = 60 us. Bandwidth phase ends at 10 + 60 = 70 us; arrival
     * 4 hops later (the new route also has 4 links): 74 us, against 44 us unfaulted.
     * Equivalently 4c/B - T + 4A = 80 - 10 + 4.
     */
    weft_time_t end = all_to_all(f, seed, "10us link_down leaf0 spine0", &sim, &net);
    ck_assert_int_eq(end, 74 * US);
    /* leaf0 -> spine0 carried only what its 2 flows sent before T: 2 x 2.5e5 = 5e5 B;
     * leaf0 -> spine1 the rest of the 4c = 4e6 B crossing from leaf0: 3.5e6 B */
    ck_assert_double_eq_tol(weft_net_link_stats(net, edge(t, "leaf0", "spine0")).bytes, 5e5, 1e-3);
    ck_assert_double_eq_tol(weft_net_link_stats(net, edge(t, "leaf0", "spine1")).bytes, 3.5e6,
                            1e-3);
    ck_assert_double_eq_tol(weft_net_link_stats(net, edge(t, "spine0", "leaf0")).bytes, 5e5, 1e-3);
    /* every byte still delivered: 4 ranks x 3 peers x c */
    ck_assert_uint_eq(weft_net_stats(net)->bytes_delivered, 12 * C);
    ck_assert_ptr_null(weft_net_stranded(net));
    weft_net_free(net);
    weft_sim_free(sim);

    /* Same seed, same faults: the same picosecond (determinism). */
    weft_time_t again = all_to_all(f, seed, "10us link_down leaf0 spine0", &sim, &net);
    ck_assert_int_eq(again, end);
    weft_net_free(net);
    weft_sim_free(sim);

    /*
     * Down for 10 us only (link_down ... for 10us): from 20 us new transfers could use
     * spine0 again, but the moved flows keep their new routes (routes handed out
     * stay), so the all-to-all still ends at 74 us.
     */
    end = all_to_all(f, seed, "10us link_down leaf0 spine0 for 10us", &sim, &net);
    ck_assert_int_eq(end, 74 * US);
    ck_assert_double_eq(weft_fabric_edge_fraction(f, edge(t, "leaf0", "spine0")), 1.0);
    weft_net_free(net);
    weft_sim_free(sim);
}
END_TEST

START_TEST(both_spines_down_gives_the_stranded_report_not_a_hang)
{
    g_autoptr(weft_topo_t) t = two_spines();
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    weft_sim_t *sim;
    weft_net_t *net;
    weft_time_t end =
        all_to_all(f, 0, "10us link_down leaf0 spine0; 10us link_down leaf0 spine1", &sim, &net);
    ck_assert_int_eq(end, -1); /* never finished */
    const GError *e = weft_net_stranded(net);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->domain, WEFT_NET_ERROR);
    ck_assert_int_eq(e->code, WEFT_NET_ERROR_STRANDED);
    /* the run stopped at the instant the second link went down */
    ck_assert_int_eq(weft_sim_now(sim), 10 * US);
    weft_net_free(net);
    weft_sim_free(sim);
}
END_TEST

START_TEST(degraded_link_halves_a_transfer_rate)
{
    g_autoptr(weft_topo_t) t = two_spines();
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    for (guint model = 0; model < 2; model++) {
        g_autoptr(weft_sim_t) sim = weft_sim_new(1);
        weft_net_options_t o = {.model = model == 0 ? WEFT_NET_FLOW : WEFT_NET_ANALYTICAL};
        g_autoptr(weft_net_t) net = weft_net_new_full(sim, f, &o);
        g_autoptr(weft_fault_plan_t) plan = weft_fault_plan_new(t);
        GError *err = NULL;
        /* every uplink at half bandwidth from time 0 */
        ck_assert(weft_fault_plan_add_text(plan,
                                           "0us link_degrade leaf0 spine0 0.5\n"
                                           "0us link_degrade leaf0 spine1 0.5 # both spines\n",
                                           "test", FALSE, &err));
        ck_assert_uint_eq(weft_fault_plan_len(plan), 2);
        g_autoptr(weft_fault_run_t) fr = weft_fault_run_arm(plan, sim, net);
        weft_sim_run(sim); /* apply the faults at 0 */
        /* a0 -> b0, 1e6 B alone: bottleneck B/2 = 2.5e10 B/s: 40 us + 4 hops of 1 us */
        ck_assert_int_eq(weft_net_transfer_time(net, 0, 2, C, &err), 44 * US);
        g_autoptr(weft_coll_plan_t) cp =
            weft_coll_plan_new(WEFT_COLL_BROADCAST, WEFT_COLL_ALGO_RING, 2, C, 1, &err);
        ck_assert_ptr_nonnull(cp);
        gint members[] = {0, 2};
        ck_assert_int_eq(weft_coll_time(sim, net, cp, members, &err), 44 * US);
        ck_assert_uint_eq(weft_fault_run_applied(fr)->len, 2);
    }
}
END_TEST

START_TEST(analytical_routes_avoid_a_link_that_is_down)
{
    g_autoptr(weft_topo_t) t = two_spines();
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_net_t) net = weft_net_new(sim, f, WEFT_NET_ANALYTICAL);
    GError *err = NULL;
    gint down = edge(t, "leaf0", "spine0");
    ck_assert(weft_net_set_link_fraction(net, down, 0.0, &err));
    ck_assert(weft_net_set_link_fraction(net, edge(t, "spine0", "leaf0"), 0.0, &err));
    /* every one of the 64 ECMP slots of a0 -> b0 now goes through spine1 */
    for (guint64 flow = 0; flow < 256; flow++) {
        const weft_route_t *r = weft_fabric_route_ecmp(f, 0, 2, flow, &err);
        ck_assert_ptr_nonnull(r);
        for (guint32 k = 0; k < r->path_off[r->n_paths]; k++) {
            ck_assert_int_ne(r->edges[k], down);
        }
        ck_assert_int_eq(r->hops, 4);
    }
    /* a fraction outside [0, 1] is refused */
    ck_assert(!weft_net_set_link_fraction(net, down, 1.5, &err));
    ck_assert_int_eq(err->code, WEFT_NET_ERROR_LINK);
    g_clear_error(&err);
    /* both uplinks of leaf0 down: no path from a0 to b0 */
    ck_assert(weft_net_set_link_fraction(net, edge(t, "leaf0", "spine1"), 0.0, &err));
    ck_assert(weft_net_transfer_time(net, 0, 2, C, &err) < 0);
    ck_assert_int_eq(err->code, WEFT_NET_ERROR_NO_ROUTE);
    g_clear_error(&err);
    /* and back up: the route exists again */
    ck_assert(weft_net_set_link_fraction(net, down, 1.0, &err));
    ck_assert_int_eq(weft_net_transfer_time(net, 0, 2, C, &err), 20 * US + 4 * A);
}
END_TEST

/* ---- straggler windows ------------------------------------------------------------- */

START_TEST(compute_end_integrates_straggler_windows)
{
    g_autoptr(weft_topo_t) t = two_spines();
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    g_autoptr(weft_net_t) net = weft_net_new(sim, f, WEFT_NET_ANALYTICAL);
    g_autoptr(weft_fault_plan_t) plan = weft_fault_plan_new(t);
    GError *err = NULL;
    ck_assert(weft_fault_plan_add_text(plan,
                                       "10us straggler a0 0.5 for 20us\n"
                                       "20us straggler gpu:0 0.5 for 20us\n"
                                       "0us straggler b1 0.25\n",
                                       "test", FALSE, &err));
    g_autoptr(weft_fault_run_t) fr = weft_fault_run_arm(plan, sim, net);
    /* a0: speed 1 on [0,10), 0.5 on [10,20), 0.25 on [20,30), 0.5 on [30,40), 1 after.
     * 40 us of work from 0: 10 by t=10, +5 by 20, +2.5 by 30, +5 by 40 = 22.5; the
     * 17.5 left at full speed end at 57.5 us. */
    ck_assert_int_eq(weft_fault_run_compute_end(fr, 0, 0, 40 * US), 57500 * WEFT_PS_PER_NS);
    /* 5 us of work from 12 us: the 8 us to 20 us at 0.5 do 4 us of it, the last 1 us at
     * 0.25 takes 4 us: 24 us */
    ck_assert_int_eq(weft_fault_run_compute_end(fr, 0, 12 * US, 5 * US), 24 * US);
    /* a1 has no window: start + work */
    ck_assert_int_eq(weft_fault_run_compute_end(fr, 1, 7, 100), 107);
    /* b1 at 0.25 forever: 10 us take 40 us */
    ck_assert_int_eq(weft_fault_run_compute_end(fr, 3, 0, 10 * US), 40 * US);
    /* no run: start + work */
    ck_assert_int_eq(weft_fault_run_compute_end(NULL, 3, 5, 10), 15);
}
END_TEST

/* A straggler window of the reference below. */
typedef struct {
    gint gpu;
    weft_time_t start, end; /* end WEFT_TIME_MAX: lasts */
    double fraction;
} ref_window_t;

/* The speed of @gpu at @t by step.h's words: the product of the fractions of its windows
 * in force, in file order. O(windows). */
static double
ref_speed(const ref_window_t *w, guint n, gint gpu, weft_time_t t)
{
    double speed = 1.0;
    for (guint i = 0; i < n; i++) {
        if (w[i].gpu == gpu && w[i].start <= t && t < w[i].end) {
            speed *= w[i].fraction;
        }
    }
    return speed;
}

/* The next window edge of @gpu after @t, or WEFT_TIME_MAX. O(windows). */
static weft_time_t
ref_next(const ref_window_t *w, guint n, gint gpu, weft_time_t t)
{
    weft_time_t next = WEFT_TIME_MAX;
    for (guint i = 0; i < n; i++) {
        if (w[i].gpu == gpu && w[i].start > t) {
            next = MIN(next, w[i].start);
        }
        if (w[i].gpu == gpu && w[i].end > t) {
            next = MIN(next, w[i].end);
        }
    }
    return next;
}

/* weft_fault_run_compute_end() literally: the speed integrated edge by edge. */
static weft_time_t
ref_compute_end(const ref_window_t *w, guint n, gint gpu, weft_time_t start, weft_time_t work)
{
    double left = (double)work;
    for (weft_time_t t = start;;) {
        double speed = ref_speed(w, n, gpu, t);
        weft_time_t next = ref_next(w, n, gpu, t);
        double can = speed * (double)(next - t);
        if (next == WEFT_TIME_MAX || can >= left) {
            return (weft_time_t)llround((double)t + left / speed);
        }
        left -= can;
        t = next;
    }
}

/* weft_fault_run_work_done() literally. */
static double
ref_work_done(const ref_window_t *w, guint n, gint gpu, weft_time_t start, weft_time_t end)
{
    double done = 0.0;
    for (weft_time_t t = start; t < end;) {
        weft_time_t next = MIN(ref_next(w, n, gpu, t), end);
        done += ref_speed(w, n, gpu, t) * (double)(next - t);
        t = next;
    }
    return done;
}

/*
 * 400 random windows on the four GPUs (several in force at once on one GPU, some lasting,
 * some sharing edges), fractions 1/8, 1/4, 1/2, 3/4 and 1, whose products stay exact in any
 * order up to 33 windows at once (3^33 < 2^53), so the product tree must give the same speed:
 * compute_end and work_done must equal the edge-by-edge reference exactly at 2,000 random
 * (GPU, start, work) points, and work_done must undo compute_end.
 */
START_TEST(straggler_profile_matches_the_edge_by_edge_reference)
{
    g_autoptr(weft_topo_t) t = two_spines();
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    g_autoptr(weft_net_t) net = weft_net_new(sim, f, WEFT_NET_ANALYTICAL);
    g_autoptr(weft_fault_plan_t) plan = weft_fault_plan_new(t);
    g_autoptr(GRand) r = g_rand_new_with_seed(19);
    enum { N = 400 };
    ref_window_t w[N];
    g_autoptr(GString) text = g_string_new(NULL);
    for (guint i = 0; i < N; i++) {
        w[i].gpu = g_rand_int_range(r, 0, 4);
        w[i].start = (weft_time_t)g_rand_int_range(r, 0, 200) * 100 * WEFT_PS_PER_NS;
        gint len_ns = g_rand_int_range(r, 0, 30) * 100; /* 0: lasts */
        w[i].end = len_ns == 0 ? WEFT_TIME_MAX : w[i].start + len_ns * WEFT_PS_PER_NS;
        static const double fractions[] = {0.125, 0.25, 0.5, 0.75, 1.0};
        w[i].fraction = fractions[g_rand_int_range(r, 0, G_N_ELEMENTS(fractions))];
        if (len_ns == 0 && g_rand_int_range(r, 0, 4) != 0) {
            w[i].end = w[i].start + 50 * WEFT_PS_PER_NS; /* few lasting ones */
            len_ns = 50;
        }
        g_string_append_printf(text, "%" G_GINT64_FORMAT "ns straggler gpu:%d %.3f",
                               w[i].start / WEFT_PS_PER_NS, w[i].gpu, w[i].fraction);
        if (w[i].end != WEFT_TIME_MAX) {
            g_string_append_printf(text, " for %dns", len_ns);
        }
        g_string_append_c(text, '\n');
    }
    GError *err = NULL;
    ck_assert_msg(weft_fault_plan_add_text(plan, text->str, "random", FALSE, &err), "%s",
                  err ? err->message : "");
    ck_assert_uint_eq(weft_fault_plan_len(plan), N);
    g_autoptr(weft_fault_run_t) fr = weft_fault_run_arm(plan, sim, net);
    for (guint q = 0; q < 2000; q++) {
        gint gpu = g_rand_int_range(r, 0, 4);
        weft_time_t start = (weft_time_t)g_rand_int_range(r, 0, 25000) * WEFT_PS_PER_NS;
        weft_time_t work = (weft_time_t)g_rand_int_range(r, 0, 5000) * WEFT_PS_PER_NS;
        weft_time_t end = weft_fault_run_compute_end(fr, gpu, start, work);
        ck_assert_int_eq(end, ref_compute_end(w, N, gpu, start, work));
        weft_time_t until = start + (weft_time_t)g_rand_int_range(r, 0, 5000) * WEFT_PS_PER_NS;
        ck_assert_double_eq(weft_fault_run_work_done(fr, gpu, start, until),
                            ref_work_done(w, N, gpu, start, until));
        /* the work done up to the end is the work, to the rounding of the end */
        ck_assert_double_eq_tol(weft_fault_run_work_done(fr, gpu, start, end), (double)work, 1.0);
    }
}
END_TEST

/* ---- replay: straggler and failure -------------------------------------------------- */

static char *tmpdir;

static void
setup(void)
{
    tmpdir = g_dir_make_tmp("weft-fault-XXXXXX", NULL);
    ck_assert_ptr_nonnull(tmpdir);
}

static void
teardown(void)
{
    test_tmpdir_remove(tmpdir);
    g_free(tmpdir);
}

/* 4 GPUs on a bidirectional ring: 50 GB/s per direction, 500 ns per link (as check_replay);
 * GPUs 0, 1 in node 0 and 2, 3 in node 1. */
static weft_topo_t *
ring4(void)
{
    weft_topo_t *t = weft_topo_new("ring");
    GError *err = NULL;
    for (guint i = 0; i < 4; i++) {
        g_autofree char *name = g_strdup_printf("gpu%u", i);
        ck_assert_int_eq(weft_topo_add_vertex(t, WEFT_VERTEX_GPU, name, (gint)i / 2, -1, &err),
                         (gint)i);
    }
    for (guint i = 0; i < 4; i++) {
        ck_assert_int_ge(weft_topo_add_link(t, (gint)i, (gint)((i + 1) % 4), WEFT_LINK_NVLINK, 50e9,
                                            500 * WEFT_PS_PER_NS, 1, &err),
                         0);
    }
    ck_assert(weft_topo_finalize(t, &err));
    return t;
}

/* Replays the data-parallel step of testutil.h on 4 ranks of @t with @events. */
static weft_replay_result_t *
dp_step(weft_topo_t *t, const char *events, GError **error)
{
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_dp_step(et);
        g_autofree char *path = test_et_path(tmpdir, "dp", r);
        test_et_write(et, path, FALSE);
    }
    g_autofree char *prefix = g_build_filename(tmpdir, "dp", NULL);
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(prefix, NULL, error);
    ck_assert_ptr_nonnull(wl);
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    g_autoptr(weft_net_t) net = weft_net_new(sim, f, WEFT_NET_ANALYTICAL);
    g_autoptr(weft_fault_plan_t) plan = weft_fault_plan_new(t);
    weft_replay_options_t opts = {0};
    if (events != NULL) {
        ck_assert(weft_fault_plan_add_text(plan, events, "test", TRUE, NULL));
        opts.faults = plan;
    }
    return weft_replay_run(sim, net, wl, &opts, error);
}

START_TEST(straggler_at_half_speed_delays_a_ring_all_reduce_step)
{
    g_autoptr(weft_topo_t) t = ring4();
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) base = dp_step(t, NULL, &err);
    ck_assert_msg(base != NULL, "%s", err ? err->message : "");
    /* check_replay derives the unfaulted step: 10759063680 ps (two ring all-reduces of
     * 128 MiB, 4029531840 ps each, after 2500 us of compute, then 200 us) */
    ck_assert_int_eq(base->step_ps, 10759063680);
    ck_assert_uint_eq(base->faults_applied->len, 0);
    /*
     * gpu3 at half speed for the first 1000 us: its 1500 us forward does 500 us of
     * work by 1000 us and the remaining 1000 us at full speed: it ends at 2000 us,
     * 500 us late. backward_layer2 ends at 3000 us; the first all-reduce waits for
     * rank 3 and starts at 3000 us instead of 2500 us; everything after is 500 us
     * later: 10759063680 + 500e6 = 11259063680 ps.
     */
    g_autoptr(weft_replay_result_t) slow = dp_step(t, "0us straggler gpu3 0.5 for 1000us", &err);
    ck_assert_msg(slow != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(slow->step_ps, 11259063680);
    /* rank 3 computed 500 us longer: 3700 + 500 us */
    ck_assert_int_eq(slow->ranks[3].compute_ps, 4200 * US);
    ck_assert_int_eq(slow->ranks[0].compute_ps, 3700 * US);
    /* the fault and its end are logged */
    ck_assert_uint_eq(slow->faults_applied->len, 2);
    /* a straggler window after the step ends changes nothing and is not applied; the
     * run says so */
    g_autoptr(weft_replay_result_t) late = dp_step(t, "20ms straggler gpu3 0.5", &err);
    ck_assert_int_eq(late->step_ps, 10759063680);
    ck_assert_uint_eq(late->faults_applied->len, 1);
    ck_assert(g_str_has_prefix(g_ptr_array_index(late->faults_applied, 0),
                               "not applied (the step ended first): test:1: 20ms straggler"));
}
END_TEST

START_TEST(gpu_failure_stops_the_step)
{
    g_autoptr(weft_topo_t) t = ring4();
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = dp_step(t, "3ms gpu_fail gpu2", &err);
    ck_assert_ptr_null(res);
    ck_assert_int_eq(err->domain, WEFT_REPLAY_ERROR);
    ck_assert_int_eq(err->code, WEFT_REPLAY_ERROR_FAILED);
    g_clear_error(&err);
    res = dp_step(t, "3ms node_fail gpu2", &err); /* gpu2's node, node 1 */
    ck_assert_ptr_null(res);
    ck_assert_int_eq(err->code, WEFT_REPLAY_ERROR_FAILED);
    g_clear_error(&err);
    res = dp_step(t, "3ms node_fail 0", &err);
    ck_assert_ptr_null(res);
    ck_assert_int_eq(err->code, WEFT_REPLAY_ERROR_FAILED);
    g_clear_error(&err);
    /* a failure due after the step (10.76 ms) does not happen */
    res = dp_step(t, "11ms gpu_fail gpu2", &err);
    ck_assert_ptr_nonnull(res); /* freed by g_autoptr */
}
END_TEST

/*
 * gpu1's two links down at 1 ms, during the 2500 us of compute before the first
 * all-reduce (check_replay): gpu1 is cut off, so the all-reduce cannot start at 2500 us.
 * That is the stranded report (what a link fault did), not a plain routing error.
 */
START_TEST(a_collective_with_no_path_left_is_stranded)
{
    g_autoptr(weft_topo_t) t = ring4();
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res =
        dp_step(t, "1ms link_down gpu0 gpu1; 1ms link_down gpu1 gpu2", &err);
    ck_assert_ptr_null(res);
    ck_assert_int_eq(err->domain, WEFT_REPLAY_ERROR);
    ck_assert_int_eq(err->code, WEFT_REPLAY_ERROR_STRANDED);
    g_clear_error(&err);
}
END_TEST

/* ---- faults apply first at their instant, in both models -------------------------- */

/*
 * ASTRA-sim's Ring_8npus.yml as weft reads it (topo_yaml.c): 8 GPUs, link i between
 * gpu i and gpu i+1 (mod 8), both directions, 50 GB/s in ASTRA-sim's GB = 2^30 B,
 * so R = 50 x 2^30 = 53687091200 B/s, and a latency of a = 500 ns.
 */
#define RING8_BW (50.0 * 1073741824.0)

static weft_topo_t *
ring8(void)
{
    weft_topo_t *t = weft_topo_new("ring8");
    GError *err = NULL;
    for (guint i = 0; i < 8; i++) {
        g_autofree char *name = g_strdup_printf("gpu%u", i);
        ck_assert_int_eq(weft_topo_add_vertex(t, WEFT_VERTEX_GPU, name, (gint)i, -1, &err),
                         (gint)i);
    }
    for (guint i = 0; i < 8; i++) {
        ck_assert_int_ge(weft_topo_add_link(t, (gint)i, (gint)((i + 1) % 8), WEFT_LINK_GENERIC,
                                            RING8_BW, 500 * WEFT_PS_PER_NS, 1, &err),
                         0);
    }
    ck_assert_msg(weft_topo_finalize(t, &err), "%s", err ? err->message : "");
    return t;
}

/* The step time of one ring all-reduce of 1 MiB on the 8 ranks of ring8() under @model
 * with the faults @events (nullable). */
static weft_time_t
ring8_all_reduce(weft_net_model_t model, const char *events)
{
    g_autoptr(weft_topo_t) t = ring8();
    GError *err = NULL;
    g_autoptr(weft_workload_t) wl =
        weft_workload_collective(WEFT_COLL_ALL_REDUCE, 1048576, 1, 8, &err);
    ck_assert_msg(wl != NULL, "%s", err ? err->message : "");
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    g_autoptr(weft_net_t) net = weft_net_new(sim, f, model);
    g_autoptr(weft_fault_plan_t) plan = weft_fault_plan_new(t);
    weft_replay_options_t opts = {0};
    if (events != NULL) {
        ck_assert_msg(weft_fault_plan_add_text(plan, events, "test", TRUE, &err), "%s",
                      err ? err->message : "");
        opts.faults = plan;
    }
    g_autoptr(weft_replay_result_t) res = weft_replay_run(sim, net, wl, &opts, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    return res->step_ps;
}

/*
 * The ring all-reduce of S = 1 MiB on 8 ranks is 2 (8 - 1) = 14 steps; in each, every
 * gpu i sends one chunk of S / 8 = 131072 B to gpu i+1. A chunk takes
 * 131072 B / R = 2441406.25 ps -> 2441406 ps at full rate, and
 * 131072 B / (R / 2) = 4882812.5 ps -> 4882813 ps (rounded to the nearest ps) on a link
 * at half bandwidth. A member sends step k when its link has sent step k-1 and step k-1
 * has arrived from its predecessor (doc/collectives.md).
 *
 * Healthy: every step waits for the previous one's arrival, 14 x (2441406 + 500000)
 * = 41179684 ps.
 *
 * gpu0 -> gpu1 at half bandwidth from 0: that link must send all 14 chunks,
 * 14 x 4882813 = 68359382 ps, and the last one arrives a = 500000 ps later:
 * 68859382 ps is a lower bound. It is reached, because gpu0 never waits for data:
 * gpu0's step k + 8 needs the chunk gpu0 sent at step k to have gone once round the
 * ring, 4882813 + 500000 + 7 x 2941406 = 25972655 ps after it started, less than the
 * 8 x 4882813 = 39062504 ps the link takes for 8 chunks (and step k <= 7, needing gpu
 * 8-k's step 0 after k x 2941406 ps, is not held up either). Every other link's last
 * chunk arrives earlier: gpu i's step 13 follows gpu0's step 13 - i, at
 * (14 - i) x 4882813 + 500000 + i x 2941406 < 68859382 for i >= 1.
 * Before the fix the analytical model started the first chunks at 0 before the fault
 * applied, so gpu0's step 0 ran at full rate: 66917975 ps (the figure below).
 */
START_TEST(a_fault_at_0_applies_before_the_first_transfer)
{
    for (guint m = 0; m < 2; m++) {
        weft_net_model_t model = m == 0 ? WEFT_NET_ANALYTICAL : WEFT_NET_FLOW;
        ck_assert_int_eq(ring8_all_reduce(model, NULL), 41179684);
        ck_assert_int_eq(ring8_all_reduce(model, "0us link_degrade gpu0 gpu1 0.5"), 68859382);
    }
}
END_TEST

/*
 * At full rate, gpu0's step 0 is sent at 2441406 ps and gpu7's chunk arrives at
 * 2441406 + 500000 = 2941406 ps, which is when gpu0 starts step 1. A degrade at that
 * instant applies before step 1 starts (faults first at their instant), so steps 1 to 13
 * run at half rate, back to back (as above): 2941406 + 13 x 4882813 + 500000 = 66917975 ps.
 * (Were it applied after step 1 had started, step 1 would run at full rate and step 2
 * start at 5882812 ps: 5882812 + 12 x 4882813 + 500000 = 64976568 ps.)
 */
START_TEST(a_fault_at_t_applies_before_a_transfer_starting_at_t)
{
    for (guint m = 0; m < 2; m++) {
        weft_net_model_t model = m == 0 ? WEFT_NET_ANALYTICAL : WEFT_NET_FLOW;
        ck_assert_int_eq(ring8_all_reduce(model, "2941406ps link_degrade gpu0 gpu1 0.5"), 66917975);
    }
}
END_TEST

/*
 * A degrade at 1 us, while gpu0's step 0 is sending (0 to 2441406 ps).
 * analytical: a transfer in flight keeps its rate (doc/failures.md), so step 0 ends as
 * planned and steps 1 to 13 run at half rate from 2941406 ps, 66917975 ps as above.
 * flow: step 0 is re-rated at 1 us: it has sent 1e-6 s x R = 53687.0912 B and sends the
 * 77384.9088 B left at R / 2 in 2882812.5 ps, so the link is free at 3882812.5 ps;
 * gpu7's chunk came at 2941406, so step 1 starts then and steps 1 to 13 take
 * 13 x 4882813 = 63476569 ps: 3882812.5 + 63476569 + 500000 = 67859381.5 ps; the
 * re-rated end is rounded to the nearest picosecond (net.h), the half up: 67859382 ps.
 */
START_TEST(a_fault_mid_transfer_rerates_it_under_flow_only)
{
    ck_assert_int_eq(ring8_all_reduce(WEFT_NET_ANALYTICAL, "1us link_degrade gpu0 gpu1 0.5"),
                     66917975);
    ck_assert_int_eq(ring8_all_reduce(WEFT_NET_FLOW, "1us link_degrade gpu0 gpu1 0.5"), 67859382);
}
END_TEST

/* ---- bad fault lines ---------------------------------------------------------------- */

static void
assert_bad(weft_topo_t *t, const char *text, gint code)
{
    g_autoptr(weft_fault_plan_t) plan = weft_fault_plan_new(t);
    GError *err = NULL;
    ck_assert(weft_fault_plan_add_text(plan, "0us link_down leaf0 spine0\n1us link_up spine0 leaf0\n",
                                       "ok", FALSE, &err));
    guint before = weft_fault_plan_len(plan);
    ck_assert_msg(!weft_fault_plan_add_text(plan, text, "bad.faults", TRUE, &err), "accepted: %s",
                  text);
    ck_assert_int_eq(err->domain, WEFT_FAULT_ERROR);
    ck_assert_msg(err->code == code, "%s: code %d, want %d (%s)", text, err->code, code,
                  err->message);
    ck_assert_uint_eq(weft_fault_plan_len(plan), before); /* nothing added */
    g_clear_error(&err);
}

START_TEST(bad_fault_lines_are_clear_errors)
{
    g_autoptr(weft_topo_t) t = two_spines();
    /* unknown link: two vertices with no link between them */
    assert_bad(t, "1us link_down leaf0 leaf1", WEFT_FAULT_ERROR_KEY);
    assert_bad(t, "1us link_down leaf0 spine9", WEFT_FAULT_ERROR_KEY);
    /* time in the past, or not a time */
    assert_bad(t, "-1us link_down leaf0 spine0", WEFT_FAULT_ERROR_VALUE);
    assert_bad(t, "soon link_down leaf0 spine0", WEFT_FAULT_ERROR_VALUE);
    assert_bad(t, "5 link_down leaf0 spine0", WEFT_FAULT_ERROR_VALUE); /* no unit */
    /* fraction outside (0, 1] */
    assert_bad(t, "1us link_degrade leaf0 spine0 0", WEFT_FAULT_ERROR_VALUE);
    assert_bad(t, "1us link_degrade leaf0 spine0 1.5", WEFT_FAULT_ERROR_VALUE);
    assert_bad(t, "1us straggler a0 -0.5", WEFT_FAULT_ERROR_VALUE);
    assert_bad(t, "1us straggler a0 half", WEFT_FAULT_ERROR_VALUE);
    /* unknown kind, wrong target kind, wrong word count, bad durations */
    assert_bad(t, "1us link_explodes leaf0 spine0", WEFT_FAULT_ERROR_KEY);
    assert_bad(t, "1us nic_down spine0", WEFT_FAULT_ERROR_KEY);
    assert_bad(t, "1us straggler leaf0 0.5", WEFT_FAULT_ERROR_KEY);
    assert_bad(t, "1us gpu_fail gpu:9", WEFT_FAULT_ERROR_KEY);
    assert_bad(t, "1us node_fail 3", WEFT_FAULT_ERROR_KEY); /* no hosts in this cluster */
    assert_bad(t, "1us link_down leaf0", WEFT_FAULT_ERROR_VALUE);
    assert_bad(t, "1us link_down leaf0 spine0 spine1", WEFT_FAULT_ERROR_VALUE);
    assert_bad(t, "1us link_down leaf0 spine0 for 0us", WEFT_FAULT_ERROR_VALUE);
    assert_bad(t, "1us gpu_fail a0 for 1us", WEFT_FAULT_ERROR_VALUE);
    /* an up with nothing to bring up (issue 19, item 8): no down of that link at all, one that
     * ends by itself, one that starts later; and a NIC's */
    assert_bad(t, "1us link_up leaf0 spine1", WEFT_FAULT_ERROR_VALUE);
    assert_bad(t, "1us link_down leaf0 spine1 for 1us; 3us link_up leaf0 spine1",
               WEFT_FAULT_ERROR_VALUE);
    assert_bad(t, "5us link_down leaf0 spine1; 2us link_up leaf0 spine1", WEFT_FAULT_ERROR_VALUE);
    /* the bad line among good ones: nothing is added */
    assert_bad(t, "1us link_down leaf0 spine0; 2us link_up leaf0 spine1; 3us oops",
               WEFT_FAULT_ERROR_VALUE);
    /* an unreadable file */
    g_autoptr(weft_fault_plan_t) plan = weft_fault_plan_new(t);
    GError *err = NULL;
    ck_assert(!weft_fault_plan_add_file(plan, "/nonexistent/faults.txt", &err));
    ck_assert_int_eq(err->code, WEFT_FAULT_ERROR_VALUE);
    g_clear_error(&err);
    /* good lines: comments, blank lines, gpu:N, `for` */
    ck_assert(weft_fault_plan_add_text(plan,
                                       "# a schedule\n\n1us link_down leaf0 spine0 for 2us\n"
                                       "2.5us straggler gpu:1 0.5\n",
                                       "good", FALSE, &err));
    ck_assert_uint_eq(weft_fault_plan_len(plan), 2);
    const weft_step_fault_t *f = weft_fault_plan_get(plan, 0);
    ck_assert_int_eq(f->kind, WEFT_STEP_LINK_DOWN);
    ck_assert_int_eq(f->at_ps, 1 * US);
    ck_assert_int_eq(f->for_ps, 2 * US);
    ck_assert_int_eq(weft_fault_plan_get(plan, 1)->u, 1);
    ck_assert_double_eq(weft_fault_plan_get(plan, 1)->fraction, 0.5);
}
END_TEST

static Suite *
fault_suite(void)
{
    Suite *s = suite_create("fault");
    TCase *tc = tcase_create("network");
    tcase_add_test(tc, link_down_mid_all_to_all_moves_traffic_to_the_other_spine);
    tcase_add_test(tc, both_spines_down_gives_the_stranded_report_not_a_hang);
    tcase_add_test(tc, degraded_link_halves_a_transfer_rate);
    tcase_add_test(tc, analytical_routes_avoid_a_link_that_is_down);
    tcase_add_test(tc, compute_end_integrates_straggler_windows);
    tcase_add_test(tc, straggler_profile_matches_the_edge_by_edge_reference);
    tcase_add_test(tc, bad_fault_lines_are_clear_errors);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("replay");
    tcase_add_checked_fixture(tr, setup, teardown);
    tcase_add_test(tr, straggler_at_half_speed_delays_a_ring_all_reduce_step);
    tcase_add_test(tr, gpu_failure_stops_the_step);
    tcase_add_test(tr, a_collective_with_no_path_left_is_stranded);
    tcase_add_test(tr, a_fault_at_0_applies_before_the_first_transfer);
    tcase_add_test(tr, a_fault_at_t_applies_before_a_transfer_starting_at_t);
    tcase_add_test(tr, a_fault_mid_transfer_rerates_it_under_flow_only);
    suite_add_tcase(s, tr);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(fault_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
