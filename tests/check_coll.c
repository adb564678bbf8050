/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the collectives module: plan shapes and byte accounting for
 * every operation (property tests over n = 1..17 and several chunk counts and
 * sizes), the closed-form times of ring and direct algorithms on tiny ring and
 * switch clusters under the analytical network model, the executor's
 * completion rules (never synchronous, abandon without callbacks), names and
 * error codes.
 *
 * Symbols: n members, S = size_bytes (doc/collectives.md convention), C chunks,
 * a = per-hop latency, B = link bandwidth per direction. With B = 50 GB/s one
 * byte takes 1e12 / 50e9 = 20 ps exactly, so the closed forms are exact
 * integers there; a separate test uses an awkward bandwidth to bound rounding.
 */
#include "coll/coll.h"

#include <check.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "coll/coll_private.h"

#define B_50GBPS 50e9
#define PS_PER_BYTE_50GBPS 20                     /* 1e12 / 50e9 */
#define ALPHA ((weft_time_t)500 * WEFT_PS_PER_NS) /* 500000 ps */
#define MIB ((guint64)1 << 20)

/* ---- tiny clusters --------------------------------------------------------------- */

/* n GPUs in a ring: GPU i <-> GPU i+1 mod n (for n == 2 one link), each link @bw, @lat. */
static weft_topo_t *
ring_cluster(guint n, double bw, weft_time_t lat)
{
    GError *error = NULL;
    weft_topo_t *t = weft_topo_new("ring");
    for (guint i = 0; i < n; i++) {
        g_autofree char *name = g_strdup_printf("gpu%u", i);
        ck_assert_int_eq(weft_topo_add_vertex(t, WEFT_VERTEX_GPU, name, (gint)i, 0, &error),
                         (gint)i);
    }
    for (guint i = 0; i < (n == 2 ? 1 : n); i++) {
        ck_assert_int_ge(
            weft_topo_add_link(t, i, (i + 1) % n, WEFT_LINK_GENERIC, bw, lat, 1, &error), 0);
    }
    ck_assert_msg(weft_topo_finalize(t, &error), "%s", error ? error->message : "");
    return t;
}

/* n GPUs each on its own link @bw, @lat to one switch: every pair is 2 hops. */
static weft_topo_t *
switch_cluster(guint n, double bw, weft_time_t lat)
{
    GError *error = NULL;
    weft_topo_t *t = weft_topo_new("switch");
    for (guint i = 0; i < n; i++) {
        g_autofree char *name = g_strdup_printf("gpu%u", i);
        ck_assert_int_eq(weft_topo_add_vertex(t, WEFT_VERTEX_GPU, name, (gint)i, 0, &error),
                         (gint)i);
    }
    gint sw = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "sw", -1, -1, &error);
    for (guint i = 0; i < n; i++) {
        ck_assert_int_ge(weft_topo_add_link(t, i, sw, WEFT_LINK_ETHERNET, bw, lat, 1, &error), 0);
    }
    ck_assert_msg(weft_topo_finalize(t, &error), "%s", error ? error->message : "");
    return t;
}

/* The layout of members @v[0..n) on @topo, found over a fabric state of its own (ECMP seed 0,
 * every link up): a layout keeps no route. */
static weft_coll_layout_t *
layout_on(const weft_topo_t *topo, const gint *v, guint n)
{
    g_autoptr(weft_fabric_t) f = weft_fabric_new(topo);
    return weft_coll_layout_new(f, v, n);
}

/* Runs a fresh plan (@op, AUTO, @n, @S, @C) alone on @topo, members = GPUs 0..n-1. */
static weft_time_t
time_on(weft_topo_t *topo, weft_coll_op_t op, guint n, guint64 S, guint C)
{
    GError *error = NULL;
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    g_autoptr(weft_coll_plan_t) plan = weft_coll_plan_new(op, WEFT_COLL_ALGO_AUTO, n, S, C, &error);
    ck_assert_msg(plan != NULL, "%s", error ? error->message : "");
    g_autofree gint *members = g_new(gint, n);
    for (guint i = 0; i < n; i++) {
        members[i] = weft_topo_gpu_vertex(topo, i);
    }
    weft_time_t t = weft_coll_time(sim, net, plan, members, &error);
    ck_assert_msg(t >= 0, "%s", error ? error->message : "");
    /* The executor moved exactly the plan's bytes and left nothing behind. */
    const weft_net_stats_t *st = weft_net_stats(net);
    ck_assert_uint_eq(st->transfers_done, plan->n_xfers);
    ck_assert_uint_eq(st->bytes_sent, st->bytes_delivered);
    ck_assert_uint_eq(weft_sim_pending(sim), 0);
    return t;
}

/* ---- closed forms: ring algorithms on a ring cluster ----------------------------------- */

START_TEST(ring_all_reduce_n4_one_chunk_is_textbook)
{
    g_autoptr(weft_topo_t) topo = ring_cluster(4, B_50GBPS, ALPHA);
    /* 2(n-1)(a + S/(nB)) = 6 * (500000 + 262144 B * 20 ps) = 6 * 5742880 = 34457280 ps */
    ck_assert_int_eq(time_on(topo, WEFT_COLL_ALL_REDUCE, 4, MIB, 1), 34457280);
}
END_TEST

START_TEST(ring_all_reduce_n8_four_chunks_pipelines)
{
    g_autoptr(weft_topo_t) topo = ring_cluster(8, B_50GBPS, ALPHA);
    /* K = 14 steps, t = S/(nCB) = 32768 B * 20 ps = 655360, C t = 2621440 > a + t = 1155360:
     * (K - 1) max(C t, a + t) + C t + a = 13 * 2621440 + 2621440 + 500000 = 37200160 ps.
     * (Before link dependencies this plan took (K + C - 1)(a + t) = 19641120 ps, faster
     * than the 2(n-1)/n S/B = 36700160 ps the links can carry: two chunks shared a link
     * at full rate each.) */
    ck_assert_int_eq(time_on(topo, WEFT_COLL_ALL_REDUCE, 8, MIB, 4), 37200160);
    /* and C = 1 on the same ring: 14 * (500000 + 131072 * 20) = 14 * 3121440 = 43700160 */
    ck_assert_int_eq(time_on(topo, WEFT_COLL_ALL_REDUCE, 8, MIB, 1), 43700160);
}
END_TEST

START_TEST(ring_all_gather_moves_the_whole_contribution_per_step)
{
    /* All-gather: S is each member's contribution, so a step moves S (S/C per chunk):
     * C = 1: (n - 1)(a + S/B). */
    g_autoptr(weft_topo_t) t4 = ring_cluster(4, B_50GBPS, ALPHA);
    /* n=4, C=1: 3 * (500000 + 1048576 * 20) = 3 * 21471520 = 64414560 ps */
    ck_assert_int_eq(time_on(t4, WEFT_COLL_ALL_GATHER, 4, MIB, 1), 64414560);
    g_autoptr(weft_topo_t) t8 = ring_cluster(8, B_50GBPS, ALPHA);
    /* n=8, C=4: K = 7, t = 262144 * 20 = 5242880, C t = 20971520 > a + t:
     * 6 * 20971520 + 20971520 + 500000 = 147300640 ps (the bandwidth bound 7 S/B =
     * 146800640 plus one latency) */
    ck_assert_int_eq(time_on(t8, WEFT_COLL_ALL_GATHER, 8, MIB, 4), 147300640);
}
END_TEST

START_TEST(ring_reduce_scatter_moves_a_slice_per_step)
{
    /* Reduce-scatter: S is the whole input, a step moves S/n (S/(nC) per chunk):
     * C = 1: (n - 1)(a + S/(nB)). */
    g_autoptr(weft_topo_t) t4 = ring_cluster(4, B_50GBPS, ALPHA);
    /* n=4, C=1: 3 * (500000 + 262144 * 20) = 3 * 5742880 = 17228640 ps */
    ck_assert_int_eq(time_on(t4, WEFT_COLL_REDUCE_SCATTER, 4, MIB, 1), 17228640);
    ck_assert_int_eq(time_on(t4, WEFT_COLL_REDUCE_SCATTER_BLOCK, 4, MIB, 1), 17228640);
    g_autoptr(weft_topo_t) t8 = ring_cluster(8, B_50GBPS, ALPHA);
    /* n=8, C=4: K = 7, t = 32768 * 20 = 655360, C t = 2621440 > a + t = 1155360:
     * 6 * 2621440 + 2621440 + 500000 = 18850080 ps */
    ck_assert_int_eq(time_on(t8, WEFT_COLL_REDUCE_SCATTER, 8, MIB, 4), 18850080);
}
END_TEST

START_TEST(chain_broadcast_and_reduce_pipeline_the_whole_buffer)
{
    /* Broadcast 0 -> 1 -> 2 -> 3 and reduce 1 -> 2 -> 3 -> 0: n - 1 hops of S in C
     * chunks of t = S/(CB). Hop h of chunk c starts at max(its data: end of hop h-1 of
     * chunk c, its wire: hop h of chunk c-1 sent) = h (a + t) + c t (every hop is its own
     * link), so the last ends at (n - 1)(a + t) + (C - 1) t. */
    g_autoptr(weft_topo_t) t4 = ring_cluster(4, B_50GBPS, ALPHA);
    /* C=1: 3 * (500000 + 1048576 * 20) = 64414560 ps */
    ck_assert_int_eq(time_on(t4, WEFT_COLL_BROADCAST, 4, MIB, 1), 64414560);
    ck_assert_int_eq(time_on(t4, WEFT_COLL_REDUCE, 4, MIB, 1), 64414560);
    /* C=4: t = 262144 * 20 = 5242880: 3 * 5742880 + 3 * 5242880 = 32957280 ps */
    ck_assert_int_eq(time_on(t4, WEFT_COLL_BROADCAST, 4, MIB, 4), 32957280);
    ck_assert_int_eq(time_on(t4, WEFT_COLL_REDUCE, 4, MIB, 4), 32957280);
}
END_TEST

START_TEST(barrier_is_an_empty_ring_all_reduce)
{
    g_autoptr(weft_topo_t) t4 = ring_cluster(4, B_50GBPS, ALPHA);
    /* 2(n-1) latencies: 6 * 500000 = 3000000 ps, whatever size or chunks are asked */
    ck_assert_int_eq(time_on(t4, WEFT_COLL_BARRIER, 4, MIB, 8), 3000000);
}
END_TEST

START_TEST(critical_path_follows_the_data_around_a_ring_with_one_slow_link)
{
    /* Ring of 4 where link 0 -> 1 runs at 25 GB/s (40 ps/B), the others at 50 GB/s.
     * Transfer (step k, member i) waits for the delivery of (k-1, i-1) (its data) and
     * for (k-1, i) to be sent (its wire). Member 0 sends a piece of 262144 B in
     * t_s = 10485760 ps over the slow link; the others in t_f = 5242880. Member 0's
     * data always arrives before its wire is free (by hand, step by step: member 3's
     * step k-1 is delivered at 5742880, 11485760, 17228640, 28214400, 38700160 for
     * k = 1..5, member 0's step k-1 is sent at k t_s = 10485760, ..., 52428800), so
     * member 0 sends back to back and its last piece arrives at 6 t_s + a =
     * 62914560 + 500000 = 63414560 ps, the slow link's bandwidth bound plus one
     * latency. (Before link dependencies the plan gave 44943040 ps by letting member 0
     * send two steps over the slow link at once at full rate each.) */
    GError *error = NULL;
    g_autoptr(weft_topo_t) t = weft_topo_new("slow-ring");
    for (guint i = 0; i < 4; i++) {
        g_autofree char *name = g_strdup_printf("gpu%u", i);
        weft_topo_add_vertex(t, WEFT_VERTEX_GPU, name, (gint)i, 0, &error);
    }
    for (guint i = 0; i < 4; i++) {
        double bw = i == 0 ? 25e9 : B_50GBPS;
        ck_assert_int_ge(
            weft_topo_add_link(t, i, (i + 1) % 4, WEFT_LINK_GENERIC, bw, ALPHA, 1, &error), 0);
    }
    ck_assert_msg(weft_topo_finalize(t, &error), "%s", error ? error->message : "");
    ck_assert_int_eq(time_on(t, WEFT_COLL_ALL_REDUCE, 4, MIB, 1), 63414560);
}
END_TEST

START_TEST(rounding_stays_within_one_ps_per_step)
{
    /* At 46 GB/s a byte takes 21.739... ps, so every transfer's duration is rounded
     * to the nearest ps (weft_time_for_bytes): each of the K C transfers at most on
     * the critical path is off by at most 0.5 ps, so the total is within K C ps of
     * (K - 1) max(C t, a + t) + C t + a evaluated in real numbers. */
    const double bw = 46e9;
    for (guint n = 4; n <= 8; n += 4) {
        for (guint C = 1; C <= 4; C += 3) {
            g_autoptr(weft_topo_t) t = ring_cluster(n, bw, ALPHA);
            double K = 2.0 * (n - 1);
            double tc = (double)MIB / (n * C) * 1e12 / bw;
            double exact = (K - 1) * MAX(C * tc, ALPHA + tc) + C * tc + ALPHA;
            weft_time_t got = time_on(t, WEFT_COLL_ALL_REDUCE, n, MIB, C);
            ck_assert_double_le(fabs((double)got - exact), K * C);
        }
    }
}
END_TEST

/* ---- closed forms: direct algorithms on a switch cluster --------------------------------- */

START_TEST(direct_all_to_all_sends_all_pieces_at_once)
{
    g_autoptr(weft_topo_t) t = switch_cluster(8, B_50GBPS, ALPHA);
    /* A member's n-1 transfers of S/n all start at once, but its port to the switch
     * (and every port from it) serves them one after another (net.h, analytical): the
     * endpoint bound, 7 x (S/n)/B = 7 x 131072 x 20 = 18350080 ps, + 2a = 19350080 ps
     * (before ports queued: 3621440 ps, 7 x a GPU's port bandwidth) */
    ck_assert_int_eq(time_on(t, WEFT_COLL_ALL_TO_ALL, 8, MIB, 1), 19350080);
    /* Chunks do not apply to a direct algorithm. */
    ck_assert_int_eq(time_on(t, WEFT_COLL_ALL_TO_ALL, 8, MIB, 5), 19350080);
}
END_TEST

START_TEST(direct_gather_and_scatter_cost_one_transfer_of_S)
{
    g_autoptr(weft_topo_t) t = switch_cluster(4, B_50GBPS, ALPHA);
    /* the n-1 transfers of S start at once and queue at the root's port (from the switch
     * for a gather, to it for a scatter): 2a + 3 S/B = 1000000 + 3 * 1048576 * 20 =
     * 63914560 ps */
    ck_assert_int_eq(time_on(t, WEFT_COLL_GATHER, 4, MIB, 1), 63914560);
    ck_assert_int_eq(time_on(t, WEFT_COLL_SCATTER, 4, MIB, 1), 63914560);
}
END_TEST

/* ---- the one-member rule ------------------------------------------------------------------ */

START_TEST(one_member_has_no_transfers_and_costs_nothing)
{
    g_autoptr(weft_topo_t) t = switch_cluster(2, B_50GBPS, ALPHA);
    for (guint op = 0; op < WEFT_COLL_N_OPS; op++) {
        g_autoptr(weft_coll_plan_t) plan =
            weft_coll_plan_new(op, WEFT_COLL_ALGO_AUTO, 1, MIB, 4, NULL);
        ck_assert_ptr_nonnull(plan);
        ck_assert_uint_eq(plan->n_xfers, 0);
        ck_assert_int_eq(time_on(t, op, 1, MIB, 4), 0);
    }
}
END_TEST

static void
on_flag(void *ctx, guint64 tag)
{
    guint64 *flag = ctx;
    *flag = tag;
}

/* Records the current time in rec->at[tag] for the first call of a tag, at[tag + 1] for the next.
 */
typedef struct {
    weft_sim_t *sim;
    weft_time_t *at;
} mark_t;

static void
on_mark_time(void *ctx, guint64 tag)
{
    mark_t *r = ctx;
    guint i = r->at[tag] < 0 ? (guint)tag : (guint)tag + 1;
    r->at[i] = weft_sim_now(r->sim);
}

START_TEST(empty_plan_completes_through_the_event_loop)
{
    g_autoptr(weft_topo_t) t = switch_cluster(2, B_50GBPS, ALPHA);
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(t);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    g_autoptr(weft_coll_plan_t) plan =
        weft_coll_plan_new(WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_AUTO, 1, 100, 1, NULL);
    gint member = weft_topo_gpu_vertex(t, 1);
    guint64 flag = 0;
    weft_coll_run_t *run = weft_coll_run(net, plan, &member, on_flag, &flag, 77, NULL);
    ck_assert_ptr_nonnull(run);
    ck_assert_uint_eq(flag, 0); /* not called from inside weft_coll_run() */
    ck_assert(!weft_coll_run_finished(run));
    ck_assert_uint_eq(weft_sim_pending(sim), 1);
    weft_sim_run(sim);
    ck_assert_uint_eq(flag, 77);
    ck_assert(weft_coll_run_finished(run));
    ck_assert_int_eq(weft_sim_now(sim), 0);
    weft_coll_run_free(run);
}
END_TEST

/* ---- executor: abandon, errors ------------------------------------------------------------ */

static void
stop_sim(void *ctx, void *data)
{
    (void)data;
    weft_sim_stop(ctx);
}

START_TEST(abandoned_run_never_calls_back)
{
    g_autoptr(weft_topo_t) t = ring_cluster(4, B_50GBPS, ALPHA);
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(t);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    g_autoptr(weft_coll_plan_t) plan =
        weft_coll_plan_new(WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_RING, 4, MIB, 1, NULL);
    gint members[4] = {0, 1, 2, 3};
    guint64 flag = 0;
    weft_coll_run_t *run = weft_coll_run(net, plan, members, on_flag, &flag, 5, NULL);
    /* Stop after the first step (5742880 ps) and before the second ends (11485760). */
    weft_sim_at(sim, 6000000, stop_sim, sim, NULL);
    weft_sim_run(sim);
    ck_assert(!weft_coll_run_finished(run));
    /* 4 first-step transfers done, 4 second-step ones in flight */
    ck_assert_uint_eq(weft_net_stats(net)->transfers_done, 4);
    ck_assert_uint_eq(weft_net_in_flight(net), 4);
    weft_coll_run_free(run);
    ck_assert_uint_eq(weft_net_in_flight(net), 0);
    ck_assert_uint_eq(weft_sim_pending(sim), 0);
    weft_sim_run(sim);
    ck_assert_uint_eq(flag, 0);
}
END_TEST

START_TEST(unreachable_member_is_no_route)
{
    GError *error = NULL;
    g_autoptr(weft_topo_t) t = weft_topo_new("split");
    gint g0 = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "g0", 0, 0, &error);
    gint g1 = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "g1", 0, 1, &error);
    gint h = weft_topo_add_vertex(t, WEFT_VERTEX_HOST, "island", 1, -1, &error);
    weft_topo_add_link(t, g0, g1, WEFT_LINK_NVLINK, B_50GBPS, ALPHA, 1, &error);
    ck_assert_msg(weft_topo_finalize(t, &error), "%s", error ? error->message : "");
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(t);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    g_autoptr(weft_coll_plan_t) plan =
        weft_coll_plan_new(WEFT_COLL_ALL_GATHER, WEFT_COLL_ALGO_AUTO, 3, 64, 1, NULL);
    gint members[3] = {g0, g1, h};
    guint64 flag = 0;
    ck_assert_ptr_null(weft_coll_run(net, plan, members, on_flag, &flag, 1, &error));
    ck_assert(g_error_matches(error, WEFT_NET_ERROR, WEFT_NET_ERROR_NO_ROUTE));
    g_clear_error(&error);
    /* Nothing started: the run starts whole or not at all. */
    ck_assert_uint_eq(weft_net_stats(net)->transfers_started, 0);
    ck_assert_int_eq(weft_coll_time(sim, net, plan, members, &error), -1);
    ck_assert(g_error_matches(error, WEFT_NET_ERROR, WEFT_NET_ERROR_NO_ROUTE));
    g_clear_error(&error);
}
END_TEST

START_TEST(bad_requests_are_errors)
{
    GError *error = NULL;
    ck_assert_ptr_null(
        weft_coll_plan_new(WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_AUTO, 0, 8, 1, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE));
    g_clear_error(&error);
    ck_assert_ptr_null(
        weft_coll_plan_new(WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_AUTO, 4, 8, 0, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE));
    g_clear_error(&error);
    ck_assert_ptr_null(
        weft_coll_plan_new(WEFT_COLL_ALL_TO_ALL, WEFT_COLL_ALGO_RING, 4, 8, 1, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    ck_assert_ptr_null(
        weft_coll_plan_new(WEFT_COLL_BROADCAST, WEFT_COLL_ALGO_DIRECT, 4, 8, 1, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    ck_assert_ptr_null(weft_coll_plan_new(WEFT_COLL_N_OPS, WEFT_COLL_ALGO_AUTO, 4, 8, 1, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    /* 2 * 65535 * 65536 * 64 transfers would not fit a plan: as a ring it is implicit, and
     * only its explicit form is refused; a direct all-to-all of 65536^2 is refused outright */
    g_autoptr(weft_coll_plan_t) huge = weft_coll_plan_new(
        WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_RING, 65536, G_GUINT64_CONSTANT(1) << 40, 64, &error);
    ck_assert_msg(huge != NULL && weft_coll_plan_is_implicit(huge), "%s",
                  error ? error->message : "");
    ck_assert_uint_eq(weft_coll_plan_n_transfers(huge), 2ull * 65535 * 65536 * 64);
    ck_assert_ptr_null(weft_coll_plan_explicit(huge, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE));
    g_clear_error(&error);
    ck_assert_ptr_null(weft_coll_plan_new(WEFT_COLL_ALL_TO_ALL, WEFT_COLL_ALGO_DIRECT, 65536,
                                          G_GUINT64_CONSTANT(1) << 40, 1, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE));
    g_clear_error(&error);
    /* issue 19, item 5: 16384^2 - 16384 = 268,419,072 direct transfers fit the 2^31 count but
     * take over 20 GiB to build (more than 80 bytes each): on a machine whose budget (half its
     * memory) is below that, refused before any allocation instead of aborting in GLib */
    double budget = weft_coll_plan_memory_budget();
    ck_assert(budget > 0);
    if (budget < 20.0 * (1u << 30)) {
        ck_assert_ptr_null(weft_coll_plan_new(WEFT_COLL_ALL_TO_ALL, WEFT_COLL_ALGO_DIRECT, 16384,
                                              G_GUINT64_CONSTANT(1) << 40, 1, &error));
        ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE));
        ck_assert_ptr_nonnull(strstr(error->message, "GiB"));
        g_clear_error(&error);
    }
}
END_TEST

/* ---- names and printing ------------------------------------------------------------------- */

START_TEST(op_names_follow_nccl_tests_and_round_trip)
{
    ck_assert_str_eq(weft_coll_op_name(WEFT_COLL_ALL_REDUCE), "all_reduce");
    ck_assert_str_eq(weft_coll_op_name(WEFT_COLL_ALL_GATHER), "all_gather");
    ck_assert_str_eq(weft_coll_op_name(WEFT_COLL_REDUCE_SCATTER), "reduce_scatter");
    ck_assert_str_eq(weft_coll_op_name(WEFT_COLL_ALL_TO_ALL), "alltoall");
    for (guint op = 0; op < WEFT_COLL_N_OPS; op++) {
        weft_coll_op_t back = WEFT_COLL_N_OPS;
        ck_assert(weft_coll_op_from_name(weft_coll_op_name(op), &back));
        ck_assert_int_eq(back, op);
    }
    weft_coll_op_t op = WEFT_COLL_N_OPS;
    ck_assert(weft_coll_op_from_name("all_to_all", &op));
    ck_assert_int_eq(op, WEFT_COLL_ALL_TO_ALL);
    ck_assert(weft_coll_op_from_name("ALLREDUCE", &op));
    ck_assert_int_eq(op, WEFT_COLL_ALL_REDUCE);
    ck_assert(weft_coll_op_from_name("reduce-scatter", &op));
    ck_assert_int_eq(op, WEFT_COLL_REDUCE_SCATTER);
    ck_assert(!weft_coll_op_from_name("allscatter", &op));
    ck_assert(!weft_coll_op_from_name("", &op));
    ck_assert_str_eq(weft_coll_algo_name(WEFT_COLL_ALGO_AUTO), "auto");
    ck_assert_str_eq(weft_coll_algo_name(WEFT_COLL_ALGO_RING), "ring");
    ck_assert_str_eq(weft_coll_algo_name(WEFT_COLL_ALGO_DIRECT), "direct");
}
END_TEST

START_TEST(plan_print_lists_every_transfer)
{
    /* 2 members, 10 bytes: pieces [0, 5) and [5, 10). Step 0 (reduce-scatter): member 0
     * sends piece 1, member 1 piece 0, each reduced by the receiver; step 1 (all-gather):
     * each forwards its reduced piece. Transfer 2 (step 1, member 0) waits for the
     * delivery of transfer 1 (its data) and for transfer 0 to be sent (same link);
     * transfer 3 likewise for 0 and 1. A flat layout puts every member in its own
     * domain, so every transfer is "inter". */
    g_autoptr(weft_coll_plan_t) plan =
        weft_coll_plan_new(WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_AUTO, 2, 10, 1, NULL);
    g_autoptr(GString) out = g_string_new("");
    weft_coll_plan_print(plan, out);
    ck_assert_str_eq(out->str,
                     "plan all_reduce ring Simple: 2 members, 0 virtual, 10 bytes, 1 channels, "
                     "1 chunks, 4 transfers\n"
                     "  costs: base 0 ps, step 0 ps intra, 0 ps inter, efficiency 1, channel cap "
                     "0 B/s, HBM 0 B/s, copy 0 B/s\n"
                     "  #0 ch0 m0 -> m1 [5, 10) 5 B reduce inter, 0 preds, succ [2 l, 3 d]\n"
                     "  #1 ch0 m1 -> m0 [0, 5) 5 B reduce inter, 0 preds, succ [2 d, 3 l]\n"
                     "  #2 ch0 m0 -> m1 [0, 5) 5 B inter, 2 preds, succ []\n"
                     "  #3 ch0 m1 -> m0 [5, 10) 5 B inter, 2 preds, succ []\n");
}
END_TEST

START_TEST(chunks_never_exceed_the_smallest_piece)
{
    /* all-reduce of 10 bytes over 4 members: pieces 3,3,2,2; 8 chunks would leave
     * empty chunks, so the plan uses min piece = 2 chunks. */
    g_autoptr(weft_coll_plan_t) p =
        weft_coll_plan_new(WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_AUTO, 4, 10, 8, NULL);
    ck_assert_uint_eq(p->chunks, 2);
    ck_assert_uint_eq(p->n_xfers, 2 * 3 * 2 * 4); /* 2(n-1) steps x C x n = 48 */
    /* 3 bytes over 4 members: a piece is empty, so 1 chunk (0-byte transfers remain,
     * each still costing a latency, as the ring's synchronisation does). */
    g_autoptr(weft_coll_plan_t) q =
        weft_coll_plan_new(WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_AUTO, 4, 3, 8, NULL);
    ck_assert_uint_eq(q->chunks, 1);
}
END_TEST

/* ---- properties over every operation -------------------------------------------------------- */

/* Piece p of S over n: the remainder goes to the first pieces. */
static guint64
piece(guint64 S, guint n, guint p)
{
    return S / n + (p < S % n ? 1 : 0);
}

/*
 * What member m must receive in total, derived per operation (pieces as above,
 * indexes mod n):
 *  - all-reduce: reduce-scatter phase brings every piece but m-1 (the one m
 *    sends first, holding only its own data), all-gather phase every piece but
 *    m (which m reduced itself): 2S - piece(m-1) - piece(m); 2(n-1)S/n when n | S.
 *  - reduce-scatter: S - piece(m-1); (n-1)S/n when n | S.
 *  - all-gather: the n-1 other contributions, (n-1)S.
 *  - broadcast: S for every member but the root 0.
 *  - reduce (chain 1 -> ... -> n-1 -> 0): S for every member but 1, the chain's head.
 *  - gather: (n-1)S at the root, nothing elsewhere; scatter: S at every non-root.
 *  - all-to-all: piece m from each of the n-1 others, (n-1) piece(m).
 *  - barrier: nothing.
 */
static guint64
expected_recv(weft_coll_op_t op, guint n, guint64 S, guint m)
{
    switch (op) {
    case WEFT_COLL_ALL_REDUCE:
        return 2 * S - piece(S, n, (m + n - 1) % n) - piece(S, n, m);
    case WEFT_COLL_REDUCE_SCATTER:
    case WEFT_COLL_REDUCE_SCATTER_BLOCK:
        return S - piece(S, n, (m + n - 1) % n);
    case WEFT_COLL_ALL_GATHER:
        return (n - 1) * S;
    case WEFT_COLL_BROADCAST:
    case WEFT_COLL_SCATTER:
        return m == 0 ? 0 : S;
    case WEFT_COLL_REDUCE:
        return m == 1 ? 0 : S;
    case WEFT_COLL_GATHER:
        return m == 0 ? (n - 1) * S : 0;
    case WEFT_COLL_ALL_TO_ALL:
        return (n - 1) * piece(S, n, m);
    case WEFT_COLL_BARRIER:
    case WEFT_COLL_N_OPS:
        break;
    }
    return 0;
}

START_TEST(every_plan_delivers_exact_bytes_in_topological_order)
{
    const guint64 sizes[] = {0, 1, 5, 1000003, MIB};
    const guint chunk_counts[] = {1, 3};
    guint checked = 0;
    for (guint op = 0; op < WEFT_COLL_N_OPS; op++) {
        for (guint n = 1; n <= 17; n++) {
            for (guint ci = 0; ci < G_N_ELEMENTS(chunk_counts); ci++) {
                for (guint si = 0; si < G_N_ELEMENTS(sizes); si++) {
                    guint64 S = sizes[si];
                    GError *error = NULL;
                    g_autoptr(weft_coll_plan_t) p =
                        weft_coll_plan_new(op, WEFT_COLL_ALGO_AUTO, n, S, chunk_counts[ci], &error);
                    ck_assert_msg(p != NULL, "%s", error ? error->message : "");
                    ck_assert_uint_ge(p->chunks, 1);
                    ck_assert_uint_le(p->chunks, chunk_counts[ci]);
                    g_autofree guint64 *recv = g_new0(guint64, n);
                    g_autofree guint32 *seen_preds = g_new0(guint32, MAX(p->n_xfers, 1));
                    for (guint t = 0; t < p->n_xfers; t++) {
                        const weft_coll_xfer_t *x = &p->xfers[t];
                        ck_assert_uint_lt(x->src, n);
                        ck_assert_uint_lt(x->dst, n);
                        ck_assert_uint_ne(x->src, x->dst);
                        recv[x->dst] += x->bytes;
                        /* every successor comes later: the plan is topological */
                        ck_assert_uint_le(p->succ_off[t], p->succ_off[t + 1]);
                        for (guint32 s = p->succ_off[t]; s < p->succ_off[t + 1]; s++) {
                            ck_assert_uint_gt(p->succ[s], t);
                            seen_preds[p->succ[s]]++;
                        }
                    }
                    for (guint t = 0; t < p->n_xfers; t++) {
                        ck_assert_uint_eq(seen_preds[t], p->n_preds[t]);
                    }
                    for (guint m = 0; m < n; m++) {
                        guint64 want = n == 1 ? 0 : expected_recv(op, n, S, m);
                        ck_assert_msg(recv[m] == want,
                                      "%s n=%u S=%" G_GUINT64_FORMAT " C=%u member %u: "
                                      "received %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
                                      weft_coll_op_name(op), n, S, chunk_counts[ci], m, recv[m],
                                      want);
                    }
                    checked++;
                }
            }
        }
    }
    ck_assert_uint_eq(checked, WEFT_COLL_N_OPS * 17 * 2 * 5); /* 1700 plans */
}
END_TEST

START_TEST(even_sizes_give_the_textbook_per_member_volumes)
{
    /* With n | S the exact forms reduce to the textbook ones, e.g. n=8, S=1 MiB:
     * all-reduce 2 * 7/8 * 1048576 = 1835008 B per member; reduce-scatter 917504 B;
     * all-gather 7 * 1048576 = 7340032 B; all-to-all 7/8 * 1048576 = 917504 B. */
    const weft_coll_op_t ops[] = {WEFT_COLL_ALL_REDUCE, WEFT_COLL_REDUCE_SCATTER,
                                  WEFT_COLL_ALL_GATHER, WEFT_COLL_ALL_TO_ALL};
    const guint64 want[] = {1835008, 917504, 7340032, 917504};
    for (guint k = 0; k < G_N_ELEMENTS(ops); k++) {
        g_autoptr(weft_coll_plan_t) p =
            weft_coll_plan_new(ops[k], WEFT_COLL_ALGO_AUTO, 8, MIB, 4, NULL);
        guint64 recv3 = 0;
        for (guint t = 0; t < p->n_xfers; t++) {
            if (p->xfers[t].dst == 3) {
                recv3 += p->xfers[t].bytes;
            }
        }
        ck_assert_uint_eq(recv3, want[k]);
    }
}
END_TEST

START_TEST(ring_times_match_the_closed_form_for_every_n)
{
    /* On a ring cluster at 20 ps/B with S = 720720 * 12 (720720 = lcm(1..16), so n C
     * divides S for every n up to 16 and C in {1, 4}), a ring of K steps with chunks of
     * t bytes-time takes exactly (K - 1) max(C t, a + t) + C t + a (coll.h), with
     * K = 2(n-1), t = S/(nCB) for all-reduce and K = n-1, t = S/(CB) for all-gather. */
    const guint64 S = G_GUINT64_CONSTANT(720720) * 4 * 3;
    for (guint n = 2; n <= 16; n++) {
        g_autoptr(weft_topo_t) t = ring_cluster(n, B_50GBPS, ALPHA);
        for (guint C = 1; C <= 4; C += 3) {
            weft_time_t tc = (weft_time_t)(S / (n * C)) * PS_PER_BYTE_50GBPS;
            weft_time_t K = 2 * (n - 1);
            ck_assert_int_eq(time_on(t, WEFT_COLL_ALL_REDUCE, n, S, C),
                             (K - 1) * MAX(C * tc, ALPHA + tc) + C * tc + ALPHA);
            tc = (weft_time_t)(S / C) * PS_PER_BYTE_50GBPS;
            K = n - 1;
            ck_assert_int_eq(time_on(t, WEFT_COLL_ALL_GATHER, n, S, C),
                             (K - 1) * MAX(C * tc, ALPHA + tc) + C * tc + ALPHA);
        }
    }
}
END_TEST

/* ==== layouts, algorithms and execution costs (issue 5) ==================================== */

/* A cluster from INI text (the keys of doc/clusters.md). */
static weft_topo_t *
cluster_from(const char *ini)
{
    GError *error = NULL;
    g_autoptr(GKeyFile) kf = g_key_file_new();
    ck_assert(g_key_file_load_from_data(kf, ini, -1, G_KEY_FILE_NONE, &error));
    weft_topo_t *t = weft_topo_load_keyfile(kf, "cluster", "test", &error);
    ck_assert_msg(t != NULL, "%s", error ? error->message : "");
    return t;
}

/* One DGX H100 node: 8 GPUs, 4 NVSwitch gen3 chips (NVLS), 300 ns per NVLink hop (the default
 * nvlink_latency). */
static weft_topo_t *
dgx_h100(guint nodes)
{
    g_autofree char *ini =
        g_strdup_printf("[cluster]\nkind = dgx-h100\nnodes = %u\n%s", nodes,
                        nodes > 1 ? "fabric = rail-optimized\nsharp = true\n" : "");
    return cluster_from(ini);
}

/* Runs @plan alone under @model with members = GPUs @gpus[0..n) (NULL: 0..n-1). */
static weft_time_t
run_plan(weft_topo_t *topo, const weft_coll_plan_t *plan, const guint *gpus, weft_net_model_t model,
         const weft_coll_exec_t *exec)
{
    GError *error = NULL;
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    weft_net_options_t opts = {.model = model, .check_solves = TRUE};
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    g_autoptr(weft_net_t) net = weft_net_new_full(sim, fabric, &opts);
    g_autofree gint *members = g_new(gint, plan->n_members);
    for (guint i = 0; i < plan->n_members; i++) {
        members[i] = weft_topo_gpu_vertex(topo, gpus != NULL ? gpus[i] : i);
    }
    weft_time_t t = weft_coll_time_full(sim, net, plan, members, exec, &error);
    ck_assert_msg(t >= 0, "%s", error ? error->message : "");
    guint64 copies = 0; /* local copies never reach the network */
    for (guint i = 0; i < plan->n_xfers; i++) {
        copies += (plan->xfers[i].flags & WEFT_COLL_XFER_COPY) != 0;
    }
    ck_assert_uint_eq(weft_net_stats(net)->transfers_done,
                      weft_coll_plan_n_transfers(plan) - copies);
    ck_assert_ptr_null(weft_net_check_error(net));
    return t;
}

/* A plan of (@op, @algo, @proto, @channels, @chunks) over GPUs 0..n-1 of @topo. */
static weft_coll_plan_t *
plan_on(weft_topo_t *topo, guint n, weft_coll_op_t op, weft_coll_algo_t algo,
        weft_coll_proto_t proto, guint channels, guint chunks, guint64 S)
{
    GError *error = NULL;
    g_autofree gint *members = g_new(gint, n);
    for (guint i = 0; i < n; i++) {
        members[i] = weft_topo_gpu_vertex(topo, i);
    }
    g_autoptr(weft_coll_layout_t) L = layout_on(topo, members, n);
    weft_coll_config_t cfg = {algo, proto, channels, chunks, 0};
    weft_coll_plan_t *p = weft_coll_plan_build(op, &cfg, L, S, &error);
    ck_assert_msg(p != NULL, "%s", error ? error->message : "");
    return p;
}

START_TEST(chunked_ring_formula_holds_under_both_models)
{
    /* (K - 1) max(C t, a + t) + C t + a, K = 2(n - 1), t = S/(nCB) (coll.h), on a ring of
     * 50 GB/s links (20 ps/B) with a = 500 ns, S = 720720 * 12, n = 6:
     *  C = 1: t = 1441440 * 20 = 28828800 -> 10 * 29328800 = 293288000 ps (= 2(n-1)(a + t));
     *  C = 5: t = 288288 * 20 = 5765760, C t = 28828800 > a + t = 6265760
     *         -> 9 * 28828800 + 28828800 + 500000 = 288788000 ps;
     *  C = 100: t = 14414.4 B -> pieces of 14414 or 14415 B; C t ~ 28828800 (the same
     *         bandwidth bound), checked only to be >= the bound K S/(nB) = 288288000.
     * The flow model gives the same picoseconds: the link dependencies keep one transfer
     * per link at a time, so nothing is shared. */
    const guint64 S = G_GUINT64_CONSTANT(720720) * 12;
    g_autoptr(weft_topo_t) t = ring_cluster(6, B_50GBPS, ALPHA);
    const weft_time_t want[] = {293288000, 288788000};
    const guint chunks[] = {1, 5};
    for (guint k = 0; k < 2; k++) {
        g_autoptr(weft_coll_plan_t) p =
            weft_coll_plan_new(WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_RING, 6, S, chunks[k], NULL);
        ck_assert_int_eq(run_plan(t, p, NULL, WEFT_NET_ANALYTICAL, NULL), want[k]);
        ck_assert_int_eq(run_plan(t, p, NULL, WEFT_NET_FLOW, NULL), want[k]);
    }
    g_autoptr(weft_coll_plan_t) p =
        weft_coll_plan_new(WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_RING, 6, S, 100, NULL);
    ck_assert_int_ge(run_plan(t, p, NULL, WEFT_NET_ANALYTICAL, NULL), 288288000);
    ck_assert_int_eq(run_plan(t, p, NULL, WEFT_NET_ANALYTICAL, NULL),
                     run_plan(t, p, NULL, WEFT_NET_FLOW, NULL));
}
END_TEST

START_TEST(net_sent_callback_ends_the_bandwidth_phase)
{
    /* One link of 50 GB/s, a = 500 ns, 1 MiB: sent at 1048576 * 20 = 20971520 ps,
     * delivered a later at 21471520 ps, under both models; a 0-byte transfer is sent at
     * its start (through an event) and delivered a later. */
    g_autoptr(weft_topo_t) t = ring_cluster(2, B_50GBPS, ALPHA);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(t);
    for (guint m = 0; m < 2; m++) {
        g_autoptr(weft_sim_t) sim = weft_sim_new(1);
        g_autoptr(weft_net_t) net =
            weft_net_new(sim, fabric, m == 0 ? WEFT_NET_ANALYTICAL : WEFT_NET_FLOW);
        weft_time_t at[4] = {-1, -1, -1, -1};
        mark_t rec = {sim, at};
        ck_assert(weft_net_transfer_start_full(net, 0, 1, MIB, 0, 1.0, on_mark_time, on_mark_time,
                                               &rec, 0, NULL));
        ck_assert(weft_net_transfer_start_full(net, 0, 1, 0, 0, 1.0, on_mark_time, on_mark_time,
                                               &rec, 2, NULL));
        ck_assert_int_eq(at[0], -1); /* never from inside the start call */
        weft_sim_run(sim);
        ck_assert_int_eq(at[0], 20971520);
        ck_assert_int_eq(at[1], 21471520);
        ck_assert_int_eq(at[2], 0);
        ck_assert_int_eq(at[3], 500000);
    }
}
END_TEST

START_TEST(tree_all_reduce_takes_two_log2_n_levels)
{
    /* Double binary tree over a flat layout on a switch cluster (every pair 2 hops:
     * A = 2a = 1 us, B = 50 GB/s). Both trees have depth D = log2 n for n a power of
     * two (NCCL's btree: 8 ranks give 0 <- 4 <- {2, 6}, 2 <- {1, 3}, 6 <- {5, 7}; the
     * mirror for tree 1) and each carries S/2 in C chunks of t = S/(2CB). A position
     * sends chunk c up at h (A + t) + c t (its children's chunk c arrives then, its
     * wire is free then), the root turns it around, and the deepest leaf receives the
     * last chunk at 2 D (A + t) + (C - 1) t, were every transfer alone on its ports.
     * They are not: a parent's one port from the switch takes its two children's pieces
     * one after the other going up, and its one port to the switch sends its two
     * children theirs one after the other going down (net.h, analytical; flow gives the
     * same), so a level with two children costs A + 2t and the root's, with one, A + t:
     * 2 ((A + t) + (D - 1)(A + 2t)) = 2 D A + (4 D - 2) t.
     *  n = 2, 4, 8, 16, C = 1: t = 524288 * 20 = 10485760, A = 1 us: 22971520,
     *  66914560, 110857600, 154800640 ps.
     *  n = 8, C = 4: pipelining can only help, and the chunks still wait for each other
     *  at the ports: between the lone critical path 6 (A + t/4) + 3 t/4 = 29592960 ps and
     *  the single chunk's 110857600 ps. */
    const weft_time_t A = 2 * ALPHA;
    g_autoptr(weft_topo_t) t = switch_cluster(16, B_50GBPS, ALPHA);
    for (guint n = 2, lg = 1; n <= 16; n *= 2, lg++) {
        g_autoptr(weft_coll_layout_t) L = weft_coll_layout_new_flat(n);
        weft_coll_config_t cfg = {WEFT_COLL_ALGO_TREE, WEFT_COLL_PROTO_SIMPLE, 1, 1, 0};
        g_autoptr(weft_coll_plan_t) p =
            weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L, MIB, NULL);
        ck_assert_int_eq(run_plan(t, p, NULL, WEFT_NET_ANALYTICAL, NULL),
                         2 * lg * A + (4 * lg - 2) * 524288 * PS_PER_BYTE_50GBPS);
        /* 2 trees x (n - 1) edges x up and down */
        ck_assert_uint_eq(p->n_xfers, 2 * (n - 1) * 2);
    }
    g_autoptr(weft_coll_layout_t) L8 = weft_coll_layout_new_flat(8);
    weft_coll_config_t cfg = {WEFT_COLL_ALGO_TREE, WEFT_COLL_PROTO_SIMPLE, 1, 4, 0};
    g_autoptr(weft_coll_plan_t) p = weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L8, MIB, NULL);
    weft_time_t c4 = run_plan(t, p, NULL, WEFT_NET_ANALYTICAL, NULL);
    ck_assert_int_gt(c4, 29592960);
    ck_assert_int_lt(c4, 110857600);
    cfg.chunks = 1;
    g_autoptr(weft_coll_plan_t) q = weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L8, MIB, NULL);
    ck_assert_int_eq(run_plan(t, q, NULL, WEFT_NET_ANALYTICAL, NULL), 110857600);
}
END_TEST

START_TEST(halving_doubling_takes_log2_n_steps_each_way)
{
    /* Switch cluster, A = 1 us per pair, 20 ps/B. Power of two n = 2^k: k halving steps
     * of S/2, S/4, ..., S/n and k doubling steps back: 2 k A + 2 (n-1)/n S/B.
     *  n = 8, S = 1 MiB: 6 us + 2 * 917504 * 20 = 6000000 + 36700160 = 42700160 ps.
     * n = 3 (p = 2, r = 1), S = 786432: member 0 folds S into member 1 (A + S/B, done at
     * T1 = 1000000 + 15728640 = 16728640); halving: member 2 sends super-piece 0 (pieces 0
     * and 1, 2S/3) at once, member 1 sends piece 2 (S/3) at T1; doubling: member 2 sends
     * piece 2 back once member 1's S/3 arrived (T1 + A + S/(3B)), arriving at
     * T1 + 2A + 2S/(3B) at member 1, which then unfolds S to member 0:
     * T = T1 + 3A + 2S/(3B) + S/B = 4A + 8S/(3B) = 4000000 + 41943040 = 45943040 ps were
     * every transfer alone on its ports. At member 1's port from the switch the fold (S,
     * [0, S/B)) and member 2's super-piece (2S/3, sent at 0) queue: the super-piece ends
     * at S/B + 2S/(3B) = 26214400 and arrives at 27214400; piece 2 back from member 2
     * (sent at T1 + A + S/(3B) = 22971520) queues behind them: served by 31457280, arrives
     * at 32457280. Member 1 has meanwhile started sending the reduced pieces 0 and 1
     * (2S/3) to member 2 at 27214400, on its port to the switch until 37700160, so the
     * unfold of S to member 0, ready at 32457280, queues behind them: sent by 37700160 +
     * S/B = 53428800, arriving at T = 54428800 ps (2S/B + 4S/(3B) + 2A). */
    g_autoptr(weft_topo_t) t = switch_cluster(8, B_50GBPS, ALPHA);
    weft_coll_config_t cfg = {WEFT_COLL_ALGO_HALVING_DOUBLING, WEFT_COLL_PROTO_SIMPLE, 1, 1, 0};
    g_autoptr(weft_coll_layout_t) L8 = weft_coll_layout_new_flat(8);
    g_autoptr(weft_coll_plan_t) p = weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L8, MIB, NULL);
    ck_assert_int_eq(run_plan(t, p, NULL, WEFT_NET_ANALYTICAL, NULL), 42700160);
    ck_assert_int_eq(run_plan(t, p, NULL, WEFT_NET_FLOW, NULL), 42700160);
    /* 3 halving + 3 doubling transfers per member */
    ck_assert_uint_eq(p->n_xfers, 8 * 6);
    g_autoptr(weft_coll_layout_t) L3 = weft_coll_layout_new_flat(3);
    g_autoptr(weft_coll_plan_t) q =
        weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L3, 786432, NULL);
    ck_assert_int_eq(run_plan(t, q, NULL, WEFT_NET_ANALYTICAL, NULL), 54428800);
    /* fold, 2 halving, 2 doubling, unfold */
    ck_assert_uint_eq(q->n_xfers, 6);
}
END_TEST

START_TEST(direct_all_to_all_sends_n_minus_1_transfers_per_rank)
{
    for (guint n = 2; n <= 9; n++) {
        g_autoptr(weft_coll_plan_t) p =
            weft_coll_plan_new(WEFT_COLL_ALL_TO_ALL, WEFT_COLL_ALGO_DIRECT, n, 1000, 1, NULL);
        g_autofree guint *sent = g_new0(guint, n);
        for (guint i = 0; i < p->n_xfers; i++) {
            sent[p->xfers[i].src]++;
            ck_assert_uint_eq(p->n_preds[i], 0); /* all at once */
        }
        for (guint m = 0; m < n; m++) {
            ck_assert_uint_eq(sent[m], n - 1);
        }
    }
}
END_TEST

START_TEST(nvls_on_a_dgx_h100_node_goes_up_and_down_once)
{
    /* DGX H100: each GPU reaches the 4 NVSwitch chips over 5, 4, 4, 5 NVLink4 lanes of
     * 25 GB/s (125, 100, 100, 125 GB/s; 450 GB/s in all), a = 300 ns per hop. NVLS
     * all-reduce splits every chunk over the chips in proportion 5:4:4:5, so each part
     * takes the same t = (chunk)/(450 GB/s); up, then down once the chip has every GPU's
     * part: with link dependencies the last chunk lands at (C + 1) t + 2a.
     * Before its ups each GPU copies its chunk into the NVLS buffer (scatter), after its
     * downs out of it (gather), reading and writing it through HBM: H100 SXM streams
     * 3350 GB/s x 0.8293 = 2778.27 GB/s (hw.c, H100_STREAM_BPS), shared by 2 copy
     * streams x 1 channel, so a copy of l bytes takes t_c = 2 l / 1389.14 GB/s.
     * S = 18 * 65536 = 1179648 B (parts are whole bytes at 8 and 10 ps/B):
     *  C = 1: t = 1179648 / 450e9 s = 2621440 ps, t_c = 1698391 ps
     *         -> t_c + 2 * 2621440 + 600000 + t_c = 9239662 ps;
     *  C = 4: t = 655360, t_c = 424598 (< t: the copies keep ahead of the links) ->
     *         the first scatter, the ups and downs, the last gather:
     *         424598 + 5 * 655360 + 600000 + 424598 = 4725996 ps.
     * The ring over the same node moves 2(n-1)/n S through 2-hop routes of 2 x 300 ns:
     * 14 * (0.6 us + 147456 B / 450 GB/s = 327680 ps) = 14 * 927680 = 12987520 ps. */
    const guint64 S = 18 * 65536;
    g_autoptr(weft_topo_t) t = dgx_h100(1);
    g_autoptr(weft_coll_plan_t) p1 =
        plan_on(t, 8, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_NVLS, WEFT_COLL_PROTO_SIMPLE, 1, 1, S);
    ck_assert_uint_eq(p1->n_virtual, 4);
    /* up and down, 8 GPUs x 4 chips; a scatter and a gather copy per GPU */
    ck_assert_uint_eq(p1->n_xfers, 2 * 8 * 4 + 2 * 8);
    ck_assert_uint_eq(p1->moved_bytes, 2 * 8 * S); /* the copies move nothing on the network */
    ck_assert_int_eq(run_plan(t, p1, NULL, WEFT_NET_ANALYTICAL, NULL), 9239662);
    ck_assert_int_eq(run_plan(t, p1, NULL, WEFT_NET_FLOW, NULL), 9239662);
    g_autoptr(weft_coll_plan_t) p4 =
        plan_on(t, 8, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_NVLS, WEFT_COLL_PROTO_SIMPLE, 1, 4, S);
    ck_assert_int_eq(run_plan(t, p4, NULL, WEFT_NET_ANALYTICAL, NULL), 4725996);
    ck_assert_int_eq(run_plan(t, p4, NULL, WEFT_NET_FLOW, NULL), 4725996);
    g_autoptr(weft_coll_plan_t) r =
        plan_on(t, 8, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_RING, WEFT_COLL_PROTO_SIMPLE, 1, 1, S);
    ck_assert_int_eq(run_plan(t, r, NULL, WEFT_NET_ANALYTICAL, NULL), 12987520);
}
END_TEST

START_TEST(protocols_cost_latency_and_efficiency)
{
    /* Ring all-reduce, n = 4, S = 1 MiB on the 50 GB/s ring: K = 6 steps of 262144 B.
     *  Simple: 6 * (500000 + 262144 * 20) = 34457280 ps.
     *  LL128 (efficiency 120/128, the plan's default): a step's bytes take
     *    262144 / 46.875e9 s = 5592405.33 -> 5592405 ps: 6 * 6092405 = 36554430 ps.
     *  LL with a per-step latency of 600 ns (as tuning.c would set from NCCL's table):
     *    6 * (500000 + 600000 + 262144 * 40) = 6 * 11585760 = 69514560 ps.
     * Both network models agree (nothing is shared). */
    g_autoptr(weft_topo_t) t = ring_cluster(4, B_50GBPS, ALPHA);
    g_autoptr(weft_coll_layout_t) L = weft_coll_layout_new_flat(4);
    const weft_coll_proto_t protos[] = {WEFT_COLL_PROTO_SIMPLE, WEFT_COLL_PROTO_LL128,
                                        WEFT_COLL_PROTO_LL};
    const weft_time_t want[] = {34457280, 36554430, 69514560};
    for (guint k = 0; k < 3; k++) {
        weft_coll_config_t cfg = {WEFT_COLL_ALGO_RING, protos[k], 1, 1, 0};
        g_autoptr(weft_coll_plan_t) p =
            weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L, MIB, NULL);
        ck_assert_double_eq(p->exec.efficiency, weft_coll_proto_efficiency(protos[k]));
        weft_coll_exec_t x = p->exec;
        if (protos[k] == WEFT_COLL_PROTO_LL) {
            x.step_inter_ps = 600000; /* a flat layout: every pair crosses domains */
            x.step_intra_ps = 1;      /* unused here */
        }
        ck_assert_int_eq(run_plan(t, p, NULL, WEFT_NET_ANALYTICAL, &x), want[k]);
        ck_assert_int_eq(run_plan(t, p, NULL, WEFT_NET_FLOW, &x), want[k]);
    }
    ck_assert_double_eq(weft_coll_proto_efficiency(WEFT_COLL_PROTO_LL), 0.5);
    ck_assert_double_eq(weft_coll_proto_efficiency(WEFT_COLL_PROTO_LL128), 0.9375);
    ck_assert_double_eq(weft_coll_proto_efficiency(WEFT_COLL_PROTO_SIMPLE), 1.0);
}
END_TEST

START_TEST(base_latency_and_reductions_are_charged)
{
    /* Ring reduce-scatter, n = 4, S = 1 MiB: 3 steps of a + t, t = 262144 * 20 = 5242880.
     * With HBM at 1e12 B/s, every reduction of 262144 B reads two and writes one copy:
     * 3 * 262144 * 1 ps = 786432 ps after each delivery; with a base latency of 2 us:
     * 2000000 + 3 * (500000 + 5242880 + 786432) = 2000000 + 19587936 = 21587936 ps.
     * All-gather has no reduction: 2000000 + 3 * (500000 + 1048576 * 20) = 66414560. */
    g_autoptr(weft_topo_t) t = ring_cluster(4, B_50GBPS, ALPHA);
    weft_coll_exec_t x = {.base_ps = 2000000, .efficiency = 1.0, .hbm_Bps = 1e12};
    g_autoptr(weft_coll_plan_t) rs =
        weft_coll_plan_new(WEFT_COLL_REDUCE_SCATTER, WEFT_COLL_ALGO_RING, 4, MIB, 1, NULL);
    ck_assert_int_eq(run_plan(t, rs, NULL, WEFT_NET_ANALYTICAL, &x), 21587936);
    g_autoptr(weft_coll_plan_t) ag =
        weft_coll_plan_new(WEFT_COLL_ALL_GATHER, WEFT_COLL_ALGO_RING, 4, MIB, 1, NULL);
    ck_assert_int_eq(run_plan(t, ag, NULL, WEFT_NET_ANALYTICAL, &x), 66414560);
}
END_TEST

START_TEST(channels_do_not_create_bandwidth)
{
    /* Four channels over one ring of 4 members use the same pairs (sharing = 4), so under
     * the analytical model each of their transfers (S/16 B) runs at B/4: the time is
     * the one channel's 6 (a + S/(4B)) = 34457280 ps, not a quarter of its bandwidth
     * term. Under flow the four transfers of a link share it: the same picoseconds. */
    g_autoptr(weft_topo_t) t = ring_cluster(4, B_50GBPS, ALPHA);
    g_autoptr(weft_coll_layout_t) L = weft_coll_layout_new_flat(4);
    weft_coll_config_t cfg = {WEFT_COLL_ALGO_RING, WEFT_COLL_PROTO_SIMPLE, 4, 1, 0};
    g_autoptr(weft_coll_plan_t) p = weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L, MIB, NULL);
    ck_assert_uint_eq(p->channels, 4);
    for (guint i = 0; i < p->n_xfers; i++) {
        ck_assert_uint_eq(p->xfers[i].sharing, 4);
    }
    ck_assert_int_eq(run_plan(t, p, NULL, WEFT_NET_ANALYTICAL, NULL), 34457280);
    ck_assert_int_eq(run_plan(t, p, NULL, WEFT_NET_FLOW, NULL), 34457280);
}
END_TEST

START_TEST(layouts_know_domains_rails_nvls_and_sharp)
{
    /* 2 DGX H100 nodes on a rail-optimized NDR fabric: 2 domains of 8 sorted by rail,
     * NVLS (gen3 NVSwitch), SHARP on the rail leaves (NDR InfiniBand): rail j's GPUs of
     * both nodes meet at leaf j, the highest tier on their route. */
    g_autoptr(weft_topo_t) t = dgx_h100(2);
    gint members[16];
    for (guint i = 0; i < 16; i++) {
        members[i] = weft_topo_gpu_vertex(t, 15 - i); /* reversed: sorting must undo it */
    }
    g_autoptr(weft_coll_layout_t) L = layout_on(t, members, 16);
    ck_assert_uint_eq(L->n_domains, 2);
    ck_assert_uint_eq(L->max_per_domain, 8);
    ck_assert(L->uniform);
    ck_assert(L->nvls);
    ck_assert(L->collnet);
    ck_assert_uint_eq(L->nvls_off[1], 4);
    ck_assert_uint_eq(L->nvls_off[2], 8);
    ck_assert_double_eq(L->nvls_weight[0], 125e9); /* 5 lanes x 25 GB/s */
    ck_assert_double_eq(L->nvls_weight[1], 100e9);
    for (guint j = 0; j < 8; j++) {
        /* layout domain 0 is node 1 (member 0 = GPU 15); its rail-j member is GPU 8 + j */
        ck_assert_int_eq(L->vertex[L->dom_members[j]], weft_topo_gpu_vertex(t, 8 + j));
        gint sw = L->collnet_switch[j];
        ck_assert_int_eq(weft_topo_vertex_kind(t, sw), WEFT_VERTEX_SWITCH);
        ck_assert_uint_eq(weft_topo_vertex_tier(t, sw), 1);
        ck_assert_int_eq(weft_topo_vertex_rail(t, sw), (gint)j);
        ck_assert(weft_topo_vertex_features(t, sw) & WEFT_TOPO_FEATURE_SHARP);
    }
    /* Channel c's ring leaves every node on the rail it enters the next one on. */
    g_autofree guint32 *order = g_new(guint32, 16);
    for (guint c = 0; c < 8; c++) {
        weft_coll_i_ring_order(L, c, order);
        ck_assert_int_eq(L->rail[order[7]], L->rail[order[8]]);
        ck_assert_int_eq(L->rail[order[0]], (gint)c);
    }
    /* A DGX A100 node has gen2 NVSwitches: no NVLS; one node: no CollNet. */
    g_autoptr(weft_topo_t) a = cluster_from("[cluster]\nkind = dgx-a100\n");
    gint am[8];
    for (guint i = 0; i < 8; i++) {
        am[i] = weft_topo_gpu_vertex(a, i);
    }
    g_autoptr(weft_coll_layout_t) LA = layout_on(a, am, 8);
    ck_assert(!LA->nvls);
    ck_assert(!LA->collnet);
    GError *error = NULL;
    weft_coll_config_t cfg = {WEFT_COLL_ALGO_NVLS, WEFT_COLL_PROTO_SIMPLE, 1, 1, 0};
    ck_assert_ptr_null(weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, LA, MIB, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    cfg.algo = WEFT_COLL_ALGO_COLLNET;
    ck_assert_ptr_null(weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, LA, MIB, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    /* NVLS runs inside one domain; over two it is nvls_tree's job. */
    cfg.algo = WEFT_COLL_ALGO_NVLS;
    ck_assert_ptr_null(weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L, MIB, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    /* 9 members over 2 nodes (8 + 1): hierarchical needs equal domains. */
    g_autoptr(weft_coll_layout_t) L9 = layout_on(t, members, 9);
    ck_assert(!L9->uniform);
    cfg.algo = WEFT_COLL_ALGO_HIERARCHICAL;
    ck_assert_ptr_null(weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L9, MIB, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
}
END_TEST

START_TEST(nvls_tree_copies_in_and_out_around_the_rest)
{
    /* NVLS tree on 2 DGX H100 nodes, 1 channel, 1 chunk: every GPU first copies its S into
     * the NVLS buffer, last copies S out (NCCL 2.20.3 all_reduce.h, NVLS_TREE's scatter
     * and gather warps). With one chunk every copy of a kind runs at once and nothing
     * overlaps them, so the plan takes exactly 2 t_c more than the same plan with free
     * copies, t_c = 2 S / (2778.27 GB/s / 2 streams): S = 1 MiB -> 1509681 ps each. */
    const guint64 S = MIB;
    g_autoptr(weft_topo_t) t = dgx_h100(2);
    g_autoptr(weft_coll_plan_t) p = plan_on(t, 16, WEFT_COLL_ALL_REDUCE,
                                            WEFT_COLL_ALGO_NVLS_TREE, WEFT_COLL_PROTO_SIMPLE, 1, 1, S);
    guint copies = 0;
    for (guint i = 0; i < p->n_xfers; i++) {
        const weft_coll_xfer_t *x = &p->xfers[i];
        if (x->flags & WEFT_COLL_XFER_COPY) {
            ck_assert_uint_eq(x->src, x->dst);
            ck_assert_uint_eq(x->bytes, S);
            copies++;
        }
    }
    ck_assert_uint_eq(copies, 2 * 16);
    ck_assert_double_eq_tol(p->exec.copy_Bps,
                            3350e9 * (0.916 + 1350.0 / 2800 * (0.73625 - 0.916)) / 2, 1.0);
    weft_coll_exec_t free_copies = p->exec;
    free_copies.copy_Bps = 0.0;
    weft_time_t t_c = weft_time_for_bytes(2 * S, p->exec.copy_Bps);
    ck_assert_int_eq(t_c, 1509681);
    for (guint m = 0; m < 2; m++) {
        weft_net_model_t model = m == 0 ? WEFT_NET_ANALYTICAL : WEFT_NET_FLOW;
        weft_time_t with = run_plan(t, p, NULL, model, NULL);
        weft_time_t without = run_plan(t, p, NULL, model, &free_copies);
        ck_assert_int_eq(with, without + 2 * t_c);
    }
}
END_TEST

START_TEST(graphml_keeps_vertex_features)
{
    GError *error = NULL;
    g_autoptr(weft_topo_t) t = dgx_h100(2);
    g_autofree char *dir = g_dir_make_tmp("weft-coll-XXXXXX", &error);
    ck_assert_ptr_nonnull(dir);
    g_autofree char *path = g_build_filename(dir, "c.graphml", NULL);
    ck_assert(weft_topo_write_graphml(t, path, &error));
    g_autoptr(weft_topo_t) back = weft_topo_load_graphml(path, &error);
    ck_assert_msg(back != NULL, "%s", error ? error->message : "");
    /* (weft_topo_equal() would trip on the PCIe rate, which GraphML keeps to 15 digits.) */
    ck_assert_uint_eq(weft_topo_n_vertices(back), weft_topo_n_vertices(t));
    guint nvls = 0, sharp = 0;
    for (guint v = 0; v < weft_topo_n_vertices(back); v++) {
        guint f = weft_topo_vertex_features(back, (gint)v);
        ck_assert_uint_eq(f, weft_topo_vertex_features(t, (gint)v));
        nvls += (f & WEFT_TOPO_FEATURE_NVLS) ? 1 : 0;
        sharp += (f & WEFT_TOPO_FEATURE_SHARP) ? 1 : 0;
    }
    ck_assert_uint_eq(nvls, 8); /* 4 chips per node */
    /* 8 rail leaves (one per rail) and ceil(8 leaves x 32 uplinks / 64 ports) = 4 spines */
    ck_assert_uint_eq(sharp, 12);
    g_unlink(path);
    g_rmdir(dir);
}
END_TEST

/* ---- the data check: replaying plans on symbolic data --------------------------------------- */

static guint64
mix64(guint64 x)
{
    x += G_GUINT64_CONSTANT(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * G_GUINT64_CONSTANT(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * G_GUINT64_CONSTANT(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* Replays @p's transfers in @order on values: a reduce adds the source's values into the
 * destination's, otherwise they are copied; then checks what the operation promises. */
static void
check_data(const weft_coll_plan_t *p, const guint32 *order, const char *what)
{
    guint n = p->n_members, ne = n + p->n_virtual;
    guint64 S = p->size_bytes, X = p->space_bytes;
    g_autofree guint64 *v = g_new0(guint64, (gsize)ne * MAX(X, 1));
    guint64 sum = 0;
    for (guint m = 0; m < n; m++) {
        sum += mix64(1000 + m);
    }
    for (guint m = 0; m < n; m++) {
        guint64 *vm = v + (gsize)m * X;
        switch (p->op) {
        case WEFT_COLL_ALL_REDUCE:
        case WEFT_COLL_REDUCE_SCATTER:
        case WEFT_COLL_REDUCE_SCATTER_BLOCK:
        case WEFT_COLL_REDUCE:
            for (guint64 b = 0; b < X; b++) {
                vm[b] = mix64(1000 + m);
            }
            break;
        case WEFT_COLL_BROADCAST:
        case WEFT_COLL_SCATTER:
            for (guint64 b = 0; m == 0 && b < X; b++) {
                vm[b] = mix64(b);
            }
            break;
        case WEFT_COLL_ALL_GATHER:
        case WEFT_COLL_GATHER:
        case WEFT_COLL_ALL_TO_ALL:
            for (guint64 b = m * S; b < (m + 1) * S; b++) {
                vm[b] = mix64(b);
            }
            break;
        default:
            break;
        }
    }
    for (guint i = 0; i < p->n_xfers; i++) {
        const weft_coll_xfer_t *x = &p->xfers[order[i]];
        const guint64 *src = v + (gsize)x->src * X + x->offset;
        guint64 *dst = v + (gsize)x->dst * X + x->offset;
        for (guint64 b = 0; b < x->bytes; b++) {
            dst[b] = (x->flags & WEFT_COLL_XFER_REDUCE) ? dst[b] + src[b] : src[b];
        }
    }
    for (guint m = 0; m < n; m++) {
        const guint64 *vm = v + (gsize)m * X;
        for (guint64 b = 0; b < X; b++) {
            gboolean need = FALSE;
            guint64 want = mix64(b);
            switch (p->op) {
            case WEFT_COLL_ALL_REDUCE:
                need = TRUE;
                want = sum;
                break;
            case WEFT_COLL_REDUCE_SCATTER:
            case WEFT_COLL_REDUCE_SCATTER_BLOCK:
                need = b >= coll_split_off(S, n, m) && b < coll_split_off(S, n, m + 1);
                want = sum;
                break;
            case WEFT_COLL_REDUCE:
                need = m == 0;
                want = sum;
                break;
            case WEFT_COLL_BROADCAST:
            case WEFT_COLL_ALL_GATHER:
                need = TRUE;
                break;
            case WEFT_COLL_GATHER:
                need = m == 0;
                break;
            case WEFT_COLL_SCATTER:
                need = b / S == m;
                break;
            case WEFT_COLL_ALL_TO_ALL: {
                guint64 r = b % S; /* within sender b / S's buffer: the piece for m? */
                need = r >= coll_split_off(S, n, m) && r < coll_split_off(S, n, m + 1);
                break;
            }
            default:
                break;
            }
            if (need && vm[b] != want) {
                ck_abort_msg("%s: member %u byte %" G_GUINT64_FORMAT " is wrong", what, m, b);
            }
        }
    }
}

/* Checks the plan's structure, then replays it in plan order and in an order that runs
 * every transfer as late as its data dependencies allow (last in, first out). */
static void
check_plan(const weft_coll_plan_t *p, guint req_channels, guint req_chunks, const char *what)
{
    guint ne = p->n_members + p->n_virtual;
    ck_assert_uint_le(p->channels, MAX(req_channels, 1));
    ck_assert_uint_le(p->chunks, MAX(req_chunks, 1));
    g_autofree guint32 *preds = g_new0(guint32, MAX(p->n_xfers, 1));
    g_autofree guint32 *data_preds = g_new0(guint32, MAX(p->n_xfers, 1));
    for (guint i = 0; i < p->n_xfers; i++) {
        const weft_coll_xfer_t *x = &p->xfers[i];
        gboolean copy = (x->flags & WEFT_COLL_XFER_COPY) != 0;
        ck_assert_msg(x->src < ne && x->dst < ne &&
                          (copy ? x->src == x->dst && x->src < p->n_members : x->src != x->dst),
                      "%s: #%u endpoints", what, i);
        ck_assert_msg(x->offset + x->bytes <= p->space_bytes, "%s: #%u outside the data", what, i);
        ck_assert_uint_ge(x->sharing, 1);
        for (guint32 s = p->succ_off[i]; s < p->succ_off[i + 1]; s++) {
            ck_assert_msg(p->succ[s] > i, "%s: #%u -> #%u is not topological", what, i, p->succ[s]);
            preds[p->succ[s]]++;
            if (p->succ_kind[s] == WEFT_COLL_DEP_DATA) {
                data_preds[p->succ[s]]++;
            }
        }
    }
    for (guint i = 0; i < p->n_xfers; i++) {
        ck_assert_uint_eq(preds[i], p->n_preds[i]);
    }
    g_autofree guint32 *order = g_new(guint32, MAX(p->n_xfers, 1));
    for (guint i = 0; i < p->n_xfers; i++) {
        order[i] = i;
    }
    check_data(p, order, what);
    /* Kahn's algorithm over data dependencies only: with a queue every transfer runs as
     * early as they allow (a missing dependency lets a transfer run before the one that
     * should have brought its data), with a stack depth first. */
    for (guint lifo = 0; lifo < 2; lifo++) {
        g_autofree guint32 *q = g_new(guint32, MAX(p->n_xfers, 1));
        g_autofree guint32 *left = g_memdup2(data_preds, sizeof(guint32) * MAX(p->n_xfers, 1));
        guint head = 0, tail = 0, k = 0;
        for (guint i = 0; i < p->n_xfers; i++) {
            if (left[i] == 0) {
                q[tail++] = i;
            }
        }
        while (tail > head) {
            guint32 t = lifo ? q[--tail] : q[head++];
            order[k++] = t;
            for (guint32 s = p->succ_off[t]; s < p->succ_off[t + 1]; s++) {
                if (p->succ_kind[s] == WEFT_COLL_DEP_DATA && --left[p->succ[s]] == 0) {
                    q[tail++] = p->succ[s];
                }
            }
        }
        ck_assert_uint_eq(k, p->n_xfers);
        check_data(p, order, what);
    }
}

START_TEST(blocks_layout_hierarchical_keeps_positions_aligned)
{
    /* ASTRA-sim's 2-D all-reduce as weft's hierarchical one over blocks of g consecutive
     * members (weft_coll_layout_new_blocks()): it delivers the all-reduce, and every
     * cross-block transfer joins members of the same position m mod g (one dimension-1
     * group of ASTRA-sim's network), never two positions. */
    const guint shapes[][2] = {{2, 4}, {4, 2}, {3, 3}, {8, 4}, {2, 2}};
    for (guint s = 0; s < G_N_ELEMENTS(shapes); s++) {
        guint g = shapes[s][0], D = shapes[s][1], n = g * D;
        g_autoptr(weft_coll_layout_t) L = weft_coll_layout_new_blocks(n, g);
        for (guint ch = 1; ch <= 2; ch++) {
            weft_coll_config_t cfg = {WEFT_COLL_ALGO_HIERARCHICAL, WEFT_COLL_PROTO_SIMPLE, ch, 1,
                                      0};
            GError *error = NULL;
            g_autoptr(weft_coll_plan_t) p =
                weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L, 1000, &error);
            ck_assert_msg(p != NULL, "%s", error ? error->message : "");
            g_autofree char *what = g_strdup_printf("blocks %u x %u ch=%u", g, D, ch);
            check_plan(p, ch, 1, what);
            for (guint32 t = 0; t < p->n_xfers; t++) {
                const weft_coll_xfer_t *x = &p->xfers[t];
                if (x->src / g != x->dst / g) {
                    ck_assert_msg(x->src % g == x->dst % g, "%s: #%u %u -> %u", what, t, x->src,
                                  x->dst);
                }
            }
        }
    }
}
END_TEST

START_TEST(every_plan_delivers_the_operations_data)
{
    /* Every (operation, algorithm) on 2..17 members, over a flat layout, the first n GPUs
     * of 4 DGX H100 nodes, and n GPUs dealt round-robin over those nodes; several sizes,
     * channel and chunk counts. Each supported pair must deliver exactly the operation's
     * result (sums of every member's distinct weight, no contribution missing or twice)
     * whatever order its data dependencies allow; an unsupported one must say so. */
    g_autoptr(weft_topo_t) t = dgx_h100(4);
    const guint64 sizes[] = {0, 1, 7, 100};
    const guint cfgs[][2] = {{1, 1}, {2, 3}};
    guint built = 0, refused = 0;
    guint per_algo[WEFT_COLL_N_ALGOS] = {0};
    for (guint n = 2; n <= 17; n++) {
        for (guint shape = 0; shape < 3; shape++) {
            weft_coll_layout_t *L = NULL;
            if (shape == 0) {
                L = weft_coll_layout_new_flat(n);
            } else {
                g_autofree gint *mv = g_new(gint, n);
                for (guint i = 0; i < n; i++) {
                    guint gpu = shape == 1 ? i : (i % 4) * 8 + i / 4;
                    mv[i] = weft_topo_gpu_vertex(t, gpu);
                }
                L = layout_on(t, mv, n);
            }
            for (guint op = 0; op < WEFT_COLL_N_OPS; op++) {
                for (guint algo = WEFT_COLL_ALGO_RING; algo < WEFT_COLL_N_ALGOS; algo++) {
                    for (guint si = 0; si < G_N_ELEMENTS(sizes); si++) {
                        for (guint ci = 0; ci < G_N_ELEMENTS(cfgs); ci++) {
                            weft_coll_config_t cfg = {algo, WEFT_COLL_PROTO_SIMPLE, cfgs[ci][0],
                                                      cfgs[ci][1], 0};
                            GError *error = NULL;
                            g_autoptr(weft_coll_plan_t) p =
                                weft_coll_plan_build(op, &cfg, L, sizes[si], &error);
                            g_autofree char *what = g_strdup_printf(
                                "%s %s n=%u shape %u S=%" G_GUINT64_FORMAT " ch=%u C=%u",
                                weft_coll_op_name(op), weft_coll_algo_name(algo), n, shape,
                                sizes[si], cfgs[ci][0], cfgs[ci][1]);
                            if (p == NULL) {
                                ck_assert_msg(g_error_matches(error, WEFT_COLL_ERROR,
                                                              WEFT_COLL_ERROR_UNSUPPORTED),
                                              "%s: %s", what, error->message);
                                g_clear_error(&error);
                                refused++;
                                continue;
                            }
                            check_plan(p, cfgs[ci][0], cfgs[ci][1], what);
                            built++;
                            per_algo[algo]++;
                        }
                    }
                }
            }
            weft_coll_layout_free(L);
        }
    }
    /* Every algorithm ran somewhere: the layouts cover NVLS (n <= 8 on one node),
     * NVLS_TREE and CollNet (16 GPUs on two nodes, 4 x 4 round robin, ...). */
    for (guint algo = WEFT_COLL_ALGO_RING; algo < WEFT_COLL_N_ALGOS; algo++) {
        ck_assert_msg(per_algo[algo] > 0, "%s never checked", weft_coll_algo_name(algo));
    }
    ck_assert_uint_gt(refused, 0);
    printf("data check: %u plans replayed (ring %u, direct %u, tree %u, halving_doubling %u, "
           "hierarchical %u, nvls %u, nvls_tree %u, collnet %u), %u refused as unsupported\n",
           built, per_algo[1], per_algo[2], per_algo[3], per_algo[4], per_algo[5], per_algo[6],
           per_algo[7], per_algo[8], refused);
}
END_TEST

/* Asserts that every plan (op, algo) of @L builds has exactly weft_coll_i_count_xfers()
 * transfers, the same per channel and chunk; returns how many plans it checked. */
static guint
check_counts(const weft_coll_layout_t *L, guint64 S, const char *where, guint *per_algo)
{
    static const guint cfgs[][2] = {{1, 1}, {3, 2}};
    guint checked = 0;
    for (guint op = 0; op < WEFT_COLL_N_OPS; op++) {
        for (guint algo = WEFT_COLL_ALGO_RING; algo < WEFT_COLL_N_ALGOS; algo++) {
            for (guint ci = 0; ci < G_N_ELEMENTS(cfgs); ci++) {
                weft_coll_config_t cfg = {algo, WEFT_COLL_PROTO_SIMPLE, cfgs[ci][0], cfgs[ci][1],
                                          G_MAXUINT64}; /* always explicit: count them */
                GError *error = NULL;
                g_autoptr(weft_coll_plan_t) p = weft_coll_plan_build(op, &cfg, L, S, &error);
                if (p == NULL) {
                    g_clear_error(&error);
                    continue;
                }
                guint64 want = weft_coll_i_count_xfers(op, algo, L, p->channels, p->chunks);
                guint64 one = weft_coll_i_count_xfers(op, algo, L, 1, 1);
                guint64 direct = algo == WEFT_COLL_ALGO_DIRECT ? 1 : p->chunks;
                ck_assert_msg(p->n_xfers == want && want == one * p->channels * direct,
                              "%s: %s %s n=%u ch=%u C=%u: the plan has %u transfers, the count "
                              "says %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " per channel "
                              "and chunk)",
                              where, weft_coll_op_name(op), weft_coll_algo_name(algo), L->n_members,
                              p->channels, p->chunks, p->n_xfers, want, one);
                checked++;
                per_algo[algo]++;
            }
        }
    }
    return checked;
}

START_TEST(transfer_counts_are_the_plans_exactly)
{
    /* The plan budget of coll/tuning.c reads weft_coll_i_count_xfers(): it must be the
     * builder's count exactly, for every operation and algorithm, on a flat layout, on
     * DGX H100 nodes (first GPUs and dealt round-robin: NVLS, NVLS_TREE, CollNet), on a
     * whole GB200 NVL72 rack (18 NVLS chips) and on 8 nodes of the DGX H100 SuperPOD
     * (SHARP leaves under the spine for CollNet). */
    guint per_algo[WEFT_COLL_N_ALGOS] = {0};
    guint checked = 0;
    g_autoptr(weft_topo_t) t = dgx_h100(4);
    for (guint n = 2; n <= 17; n += 5) {
        for (guint shape = 0; shape < 3; shape++) {
            weft_coll_layout_t *L = NULL;
            if (shape == 0) {
                L = weft_coll_layout_new_flat(n);
            } else {
                g_autofree gint *mv = g_new(gint, n);
                for (guint i = 0; i < n; i++) {
                    mv[i] = weft_topo_gpu_vertex(t, shape == 1 ? i : (i % 4) * 8 + i / 4);
                }
                L = layout_on(t, mv, n);
            }
            checked += check_counts(L, 1000, "dgx-h100 x 4", per_algo);
            weft_coll_layout_free(L);
        }
    }
    /* the SuperPOD with SHARP on (sharp = true), as the CollNet golden runs it */
    static const char *const files[] = {"topologies/gb200-nvl72.ini",
                                        "tests/golden/dgx-h100-superpod-sharp.ini"};
    for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
        GError *error = NULL;
        const char *src = g_getenv("WEFT_SRCDIR");
        g_autofree char *path = g_build_filename(src ? src : ".", files[i], NULL);
        g_autoptr(weft_topo_t) c = weft_topo_load(path, &error);
        ck_assert_msg(c != NULL, "%s", error ? error->message : "");
        gint mv[72];
        guint n = i == 0 ? 72 : 64; /* the rack; the first 8 nodes */
        for (guint g = 0; g < n; g++) {
            mv[g] = weft_topo_gpu_vertex(c, g);
        }
        g_autoptr(weft_coll_layout_t) L = layout_on(c, mv, n);
        ck_assert(i == 0 ? L->nvls && L->n_domains == 1 : L->collnet && L->n_domains == 8);
        checked += check_counts(L, 1u << 20, files[i], per_algo);
    }
    for (guint algo = WEFT_COLL_ALGO_RING; algo < WEFT_COLL_N_ALGOS; algo++) {
        ck_assert_msg(per_algo[algo] > 0, "%s never counted", weft_coll_algo_name(algo));
    }
    printf("transfer counts: %u plans, each the count exactly\n", checked);
}
END_TEST

START_TEST(every_algorithm_is_exercised_by_the_data_check)
{
    /* The layouts of the data check reach every algorithm for all-reduce. */
    g_autoptr(weft_topo_t) t = dgx_h100(4);
    gint mv[16];
    for (guint i = 0; i < 16; i++) {
        mv[i] = weft_topo_gpu_vertex(t, (i % 4) * 8 + i / 4); /* 4 per node */
    }
    g_autoptr(weft_coll_layout_t) L = layout_on(t, mv, 16);
    ck_assert(L->nvls && L->collnet && L->uniform);
    ck_assert_uint_eq(L->n_domains, 4);
    for (guint algo = WEFT_COLL_ALGO_RING; algo < WEFT_COLL_N_ALGOS; algo++) {
        weft_coll_config_t cfg = {algo, WEFT_COLL_PROTO_SIMPLE, 2, 2, 0};
        GError *error = NULL;
        g_autoptr(weft_coll_plan_t) p = weft_coll_plan_build(
            algo == WEFT_COLL_ALGO_DIRECT ? WEFT_COLL_ALL_TO_ALL : WEFT_COLL_ALL_REDUCE, &cfg, L,
            1000, &error);
        if (algo == WEFT_COLL_ALGO_NVLS) {
            ck_assert_ptr_null(p); /* 4 domains */
            g_clear_error(&error);
            continue;
        }
        ck_assert_msg(p != NULL, "%s: %s", weft_coll_algo_name(algo), error->message);
        check_plan(p, 2, 2, weft_coll_algo_name(algo));
        /* and it runs on the cluster under both models */
        weft_time_t a = run_plan(
            t, p, (const guint[]){0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27},
            WEFT_NET_ANALYTICAL, NULL);
        weft_time_t f = run_plan(
            t, p, (const guint[]){0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27},
            WEFT_NET_FLOW, NULL);
        /* (flow is no longer a bound of analytical either way: analytical serves a port's
         * oversubscribers one after another, flow shares it; tests/check_net.c checks
         * both against the ports' bound) */
        ck_assert_int_gt(a, 0);
        ck_assert_int_gt(f, 0);
    }
}
END_TEST

START_TEST(collnet_aggregates_at_sharp_leaves_first)
{
    /* 64 DGX H100 nodes in two scalable units of 32: rail 0's GPUs of SU 0 meet at one
     * rail-0 leaf, those of SU 1 at another, and the two leaves at a spine (the root).
     * A SHARP tree reduces at the leaves first: one all-reduce of S over GPU 0 of every
     * node (64 domains of 1 member, so no reduce-scatter inside nodes) is, per chunk,
     * 64 member -> leaf, 2 leaf -> root, 2 root -> leaf and 64 leaf -> member
     * transfers (132), where a one-level tree would send 64 pieces into the root. */
    g_autoptr(weft_topo_t) t = dgx_h100(64);
    gint mv[64];
    for (guint i = 0; i < 64; i++) {
        mv[i] = weft_topo_gpu_vertex(t, 8 * i);
    }
    g_autoptr(weft_coll_layout_t) L = layout_on(t, mv, 64);
    ck_assert(L->collnet);
    gint root = L->collnet_switch[0];
    ck_assert_uint_eq(weft_topo_vertex_tier(t, root), 2); /* a spine */
    for (guint i = 0; i < 64; i++) {
        gint leaf = L->collnet_leaf[i];
        ck_assert_uint_eq(weft_topo_vertex_tier(t, leaf), 1);
        ck_assert_int_eq(leaf, L->collnet_leaf[i < 32 ? 0 : 32]); /* one leaf per SU */
    }
    ck_assert_int_ne(L->collnet_leaf[0], L->collnet_leaf[32]);
    weft_coll_config_t cfg = {WEFT_COLL_ALGO_COLLNET, WEFT_COLL_PROTO_SIMPLE, 1, 1, 0};
    GError *error = NULL;
    g_autoptr(weft_coll_plan_t) p =
        weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L, MIB, &error);
    ck_assert_msg(p != NULL, "%s", error ? error->message : "");
    ck_assert_uint_eq(p->n_xfers, 132);
    ck_assert_uint_eq(p->n_virtual, 3); /* the root and the two leaves */
    guint into_root = 0;
    for (guint i = 0; i < p->n_xfers; i++) {
        guint dst = p->xfers[i].dst;
        if (dst >= p->n_members && p->virtual_vertex[dst - p->n_members] == root) {
            into_root++;
        }
    }
    ck_assert_uint_eq(into_root, 2);
    check_plan(p, 1, 1, "collnet two-level");
}
END_TEST

/* ==== implicit ring plans and the analytical sweep (issue 14) ============================ */

/* Builds (@op, ring, @ch channels, @C chunks) over @layout: explicit, or implicit at any size. */
static weft_coll_plan_t *
ring_plan(weft_coll_op_t op, const weft_coll_layout_t *layout, guint64 S, guint ch, guint C,
          gboolean implicit)
{
    GError *error = NULL;
    weft_coll_config_t cfg = {.algo = WEFT_COLL_ALGO_RING,
                              .proto = WEFT_COLL_PROTO_SIMPLE,
                              .channels = ch,
                              .chunks = C,
                              .implicit_xfers = implicit ? 1 : G_MAXUINT64};
    weft_coll_plan_t *p = weft_coll_plan_build(op, &cfg, layout, S, &error);
    ck_assert_msg(p != NULL, "%s", error ? error->message : "");
    ck_assert(weft_coll_plan_is_implicit(p) == (implicit && layout->n_members > 1));
    return p;
}

static const weft_coll_op_t ring_ops[] = {WEFT_COLL_ALL_REDUCE, WEFT_COLL_REDUCE_SCATTER,
                                          WEFT_COLL_ALL_GATHER};

START_TEST(implicit_ring_builds_the_same_transfers)
{
    /* The transfers an implicit plan stands for are the builder's, on flat layouts and on two
     * DGX H100 nodes (domains, rails, rotated rings per channel), even and odd sizes. */
    g_autoptr(weft_topo_t) topo = dgx_h100(2);
    g_autofree gint *v = g_new(gint, 16);
    for (guint i = 0; i < 16; i++) {
        v[i] = weft_topo_gpu_vertex(topo, i);
    }
    g_autoptr(weft_coll_layout_t) node2 = layout_on(topo, v, 16);
    const guint64 sizes[] = {1000003, 16 * MIB};
    guint checked = 0;
    for (guint k = 0; k < G_N_ELEMENTS(ring_ops); k++) {
        for (guint n = 2; n <= 17; n += 5) {
            g_autoptr(weft_coll_layout_t) flat = weft_coll_layout_new_flat(n);
            for (guint si = 0; si < G_N_ELEMENTS(sizes); si++) {
                for (guint ch = 1; ch <= 4; ch += 3) {
                    const weft_coll_layout_t *L = n == 17 ? node2 : flat;
                    g_autoptr(weft_coll_plan_t) e = ring_plan(ring_ops[k], L, sizes[si], ch, 3, FALSE);
                    g_autoptr(weft_coll_plan_t) im = ring_plan(ring_ops[k], L, sizes[si], ch, 3, TRUE);
                    ck_assert_uint_eq(weft_coll_plan_n_transfers(im), e->n_xfers);
                    ck_assert_uint_eq(im->moved_bytes, e->moved_bytes);
                    ck_assert(!weft_coll_plan_equal(e, im));
                    GError *error = NULL;
                    const weft_coll_plan_t *x = weft_coll_plan_explicit(im, &error);
                    ck_assert_msg(x != NULL, "%s", error ? error->message : "");
                    ck_assert(weft_coll_plan_explicit(im, NULL) == x); /* cached */
                    ck_assert(weft_coll_plan_equal(e, x));
                    g_autoptr(GArray) pe = weft_coll_plan_pairs(e);
                    g_autoptr(GArray) pi = weft_coll_plan_pairs(im);
                    ck_assert_uint_eq(pe->len, pi->len);
                    ck_assert(memcmp(pe->data, pi->data, pe->len * sizeof(guint64)) == 0);
                    checked++;
                }
            }
        }
    }
    ck_assert_uint_eq(checked, 3 * 4 * 2 * 2);
    /* 2,048 members, 64 chunks: 536,608,768 transfers, counted and swept but never stored */
    g_autoptr(weft_coll_layout_t) big = weft_coll_layout_new_flat(2048);
    g_autoptr(weft_coll_plan_t) huge = ring_plan(WEFT_COLL_ALL_REDUCE, big, 1ull << 30, 1, 64, TRUE);
    ck_assert_uint_eq(weft_coll_plan_n_transfers(huge), 2ull * 2047 * 64 * 2048);
    ck_assert_uint_eq(huge->moved_bytes, 2ull * 2047 * (1ull << 30));
    /* the default threshold: 2^20 transfers */
    weft_coll_config_t cfg = {WEFT_COLL_ALGO_RING, WEFT_COLL_PROTO_SIMPLE, 1, 1, 0};
    g_autoptr(weft_coll_layout_t) l512 = weft_coll_layout_new_flat(512);
    g_autoptr(weft_coll_layout_t) l1024 = weft_coll_layout_new_flat(1024);
    g_autoptr(weft_coll_plan_t) below = weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, l512, MIB, NULL);
    g_autoptr(weft_coll_plan_t) above = weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, l1024, MIB, NULL);
    ck_assert(!weft_coll_plan_is_implicit(below)); /* 2 x 511 x 512 = 523,264 */
    ck_assert(weft_coll_plan_is_implicit(above));  /* 2 x 1023 x 1024 = 2,095,104 */
}
END_TEST

/* Runs @plan alone under the analytical model on @topo (members @v): time, link statistics of
 * every edge, and the network's totals. */
static weft_time_t
run_with_links(weft_topo_t *topo, const weft_coll_plan_t *plan, const gint *v,
               const weft_coll_exec_t *exec, weft_net_link_stats_t *links, weft_net_stats_t *st,
               guint64 *events)
{
    GError *error = NULL;
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    weft_time_t ps = weft_coll_time_full(sim, net, plan, v, exec, &error);
    ck_assert_msg(ps >= 0, "%s", error ? error->message : "");
    for (guint e = 0; e < weft_topo_n_edges(topo); e++) {
        links[e] = weft_net_link_stats(net, (gint)e);
    }
    *st = *weft_net_stats(net);
    *events = weft_sim_events(sim);
    ck_assert_int_eq(weft_sim_now(sim), ps);
    return ps;
}

/* The sweep of the implicit plan against the event run of the same transfers: time and busy
 * time to the picosecond, bytes exactly, peaks to the last bits, the same totals. */
static void
check_sweep(weft_topo_t *topo, const weft_coll_layout_t *L, const gint *v, weft_coll_op_t op,
            guint64 S, guint ch, guint C, const weft_coll_exec_t *exec)
{
    guint ne = weft_topo_n_edges(topo);
    g_autofree weft_net_link_stats_t *a = g_new0(weft_net_link_stats_t, ne);
    g_autofree weft_net_link_stats_t *b = g_new0(weft_net_link_stats_t, ne);
    g_autoptr(weft_coll_plan_t) e = ring_plan(op, L, S, ch, C, FALSE);
    g_autoptr(weft_coll_plan_t) im = ring_plan(op, L, S, ch, C, TRUE);
    weft_net_stats_t sa, sb;
    guint64 ea, eb;
    weft_time_t ta = run_with_links(topo, e, v, exec, a, &sa, &ea);
    {
        /* the sweep applies (no fallback to events) */
        GError *error = NULL;
        g_autoptr(weft_sim_t) sim = weft_sim_new(1);
        g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
        g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
        weft_time_t d;
        g_autoptr(GArray) links = NULL;
        ck_assert_msg(weft_coll_sweep(net, im, v, exec, &d, &links, &error), "%s",
                      error ? error->message : "");
    }
    weft_time_t tb = run_with_links(topo, im, v, exec, b, &sb, &eb);
    ck_assert_msg(ta == tb, "%s S=%" G_GUINT64_FORMAT " ch=%u C=%u: events %" G_GINT64_FORMAT
                  " ps, sweep %" G_GINT64_FORMAT " ps", weft_coll_op_name(op), S, ch, C, ta, tb);
    ck_assert_uint_le(eb, 1);  /* swept, not run: the clock moved by one event */
    ck_assert_uint_gt(ea, e->n_xfers);
    ck_assert_uint_eq(sa.transfers_started, sb.transfers_started);
    ck_assert_uint_eq(sa.transfers_done, sb.transfers_done);
    ck_assert_uint_eq(sa.bytes_sent, sb.bytes_sent);
    ck_assert_uint_eq(sa.bytes_delivered, sb.bytes_delivered);
    for (guint k = 0; k < ne; k++) {
        ck_assert_msg(a[k].bytes == b[k].bytes, "edge %u bytes %.17g vs %.17g", k, a[k].bytes,
                      b[k].bytes);
        ck_assert_msg(a[k].busy_ps == b[k].busy_ps, "edge %u busy %" G_GINT64_FORMAT
                      " vs %" G_GINT64_FORMAT, k, a[k].busy_ps, b[k].busy_ps);
        ck_assert_msg(fabs(a[k].peak_util - b[k].peak_util) <= 1e-12 * MAX(a[k].peak_util, 1.0),
                      "edge %u peak %.17g vs %.17g", k, a[k].peak_util, b[k].peak_util);
    }
}

START_TEST(sweep_matches_the_event_run)
{
    /* rings of 50 GB/s links, a switch (two hops per pair, every pair across domains), one
     * DGX H100 (routes sprayed over 4 NVSwitch chips, whose edges every pair shares: phases
     * kept and sorted); even sizes (every position alike: one position computed) and odd
     * ones; with and without costs */
    g_autoptr(weft_topo_t) ring = ring_cluster(7, 50e9, ALPHA);
    g_autoptr(weft_topo_t) sw = switch_cluster(6, 25e9, ALPHA);
    g_autoptr(weft_topo_t) dgx = dgx_h100(1);
    weft_topo_t *topos[] = {ring, sw, dgx};
    const guint ns[] = {7, 6, 8};
    weft_coll_exec_t costs = {.base_ps = 7000000,
                              .step_intra_ps = 600000,
                              .step_inter_ps = 2000000,
                              .efficiency = 0.9,
                              .efficiency_intra = 0.95,
                              .channel_Bps = 20e9,
                              .hbm_Bps = 3.35e12};
    const guint64 sizes[] = {7 * 6 * 16 * 4 * MIB / 8, 1000003};
    guint checked = 0;
    for (guint t = 0; t < G_N_ELEMENTS(topos); t++) {
        guint n = ns[t];
        g_autofree gint *v = g_new(gint, n);
        for (guint i = 0; i < n; i++) {
            v[i] = weft_topo_gpu_vertex(topos[t], i);
        }
        g_autoptr(weft_coll_layout_t) L = layout_on(topos[t], v, n);
        for (guint k = 0; k < G_N_ELEMENTS(ring_ops); k++) {
            for (guint si = 0; si < G_N_ELEMENTS(sizes); si++) {
                for (guint ch = 1; ch <= 3; ch += 2) {
                    for (guint x = 0; x < 2; x++) {
                        check_sweep(topos[t], L, v, ring_ops[k], sizes[si], ch, 1 + 2 * x,
                                    x ? &costs : NULL);
                        checked++;
                    }
                }
            }
        }
    }
    ck_assert_uint_eq(checked, 3 * 3 * 2 * 2 * 2);
}
END_TEST

/* Starts a collective from inside the event loop, at a time other than 0. */
typedef struct {
    weft_net_t *net;
    const weft_coll_plan_t *plan;
    const gint *members;
    const weft_coll_exec_t *exec;
    weft_coll_run_t *run;
    weft_time_t started, done;
} late_start_t;

static void
on_late_done(void *ctx, guint64 tag)
{
    (void)tag;
    late_start_t *ls = ctx;
    ls->done = weft_sim_now(weft_net_sim(ls->net));
}

static void
on_late_start(void *ctx, void *data)
{
    (void)data;
    late_start_t *ls = ctx;
    ls->started = weft_sim_now(weft_net_sim(ls->net));
    ls->run = weft_coll_run_full(ls->net, ls->plan, ls->members, ls->exec, on_late_done, ls, 0,
                                 NULL);
    ck_assert_ptr_nonnull(ls->run);
}

/* Runs @plan with @exec on GPUs 0..n-1 of @topo under @model, started @at ps into the
 * simulation; returns how long it took. */
static weft_time_t
run_late(weft_topo_t *topo, const weft_coll_plan_t *plan, const weft_coll_exec_t *exec,
         weft_net_model_t model, weft_time_t at)
{
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    weft_net_options_t opts = {.model = model, .check_solves = TRUE};
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    g_autoptr(weft_net_t) net = weft_net_new_full(sim, fabric, &opts);
    g_autofree gint *members = g_new(gint, plan->n_members);
    for (guint i = 0; i < plan->n_members; i++) {
        members[i] = weft_topo_gpu_vertex(topo, i);
    }
    late_start_t ls = {net, plan, members, exec, NULL, -1, -1};
    weft_sim_at(sim, at, on_late_start, &ls, NULL);
    weft_sim_run(sim);
    ck_assert(ls.run != NULL && weft_coll_run_finished(ls.run));
    weft_coll_run_free(ls.run);
    ck_assert_int_eq(ls.started, at);
    ck_assert_int_ge(ls.done, at);
    return ls.done - at;
}

START_TEST(network_messages_hold_both_ends_and_wait_for_the_rendezvous)
{
    /* Two GPUs on two hosts, one 50 GB/s link of 500 ns: a ring all-gather of 256 KiB each in
     * C = 4 chunks of 64 KiB, w = 65536 x 20 = 1310720 ps on the wire. Plain: chunk k leaves
     * when chunk k - 1 has left, so the last is delivered at 4 w + a = 5742880 ps. */
    g_autoptr(weft_topo_t) t = ring_cluster(2, B_50GBPS, ALPHA);
    g_autoptr(weft_coll_plan_t) plan =
        weft_coll_plan_new(WEFT_COLL_ALL_GATHER, WEFT_COLL_ALGO_RING, 2, 256u << 10, 4, NULL);
    const weft_time_t w = 1310720, M = 10000000, R = 7000000, X = 3000000;
    const weft_net_model_t models[] = {WEFT_NET_ANALYTICAL, WEFT_NET_FLOW};
    for (guint k = 0; k < G_N_ELEMENTS(models); k++) {
        weft_coll_exec_t plain = {.efficiency = 1.0};
        ck_assert_int_eq(run_late(t, plan, &plain, models[k], X), 4 * w + ALPHA);
        /* A per-message cost M = 10 us (msg_bytes 0: a message per transfer), far above w + a.
         * Each member's path takes its own 4 sends and the other's 4 receives, one at a time
         * in the order they are booked: sends c0 [0, M) and c1 [M, 2M) (booked when c0 left,
         * at w), receive 0 [2M, 3M) (booked at its delivery, w + a), send c2 [3M, 4M) (c1
         * left at M + w), receive 1 [4M, 5M), send c3 [5M, 6M), receive 2 [6M, 7M), receive
         * 3 [7M, 8M) (delivered at 5M + w + a); the last is complete M after it is taken,
         * at 8M = 80 us. Sends alone would end at 3M + w + a + M = 41.81 us. */
        weft_coll_exec_t msg = {.efficiency = 1.0, .msg_ps = M};
        ck_assert_int_eq(run_late(t, plan, &msg, models[k], X), 8 * M);
        /* A rendezvous R = 7 us: no transfer across hosts starts before R after the run
         * started (X = 3 us into the simulation, not 0), so everything shifts by R. */
        weft_coll_exec_t rdv = {.efficiency = 1.0, .rendezvous_ps = R};
        ck_assert_int_eq(run_late(t, plan, &rdv, models[k], X), R + 4 * w + ALPHA);
        weft_coll_exec_t both = {.efficiency = 1.0, .msg_ps = M, .rendezvous_ps = R};
        ck_assert_int_eq(run_late(t, plan, &both, models[k], X), R + 8 * M);
        /* with a base latency the rendezvous counts from the roots' start, after it */
        weft_coll_exec_t based = {.efficiency = 1.0, .base_ps = 2000000, .rendezvous_ps = R};
        ck_assert_int_eq(run_late(t, plan, &based, models[k], X), 2000000 + R + 4 * w + ALPHA);
    }
}
END_TEST

START_TEST(sweep_refuses_what_it_cannot_compute)
{
    GError *error = NULL;
    g_autoptr(weft_topo_t) ring = ring_cluster(5, 50e9, ALPHA);
    g_autofree gint *v = g_new(gint, 5);
    for (guint i = 0; i < 5; i++) {
        v[i] = weft_topo_gpu_vertex(ring, i);
    }
    g_autoptr(weft_coll_layout_t) L = layout_on(ring, v, 5);
    g_autoptr(weft_coll_plan_t) im = ring_plan(WEFT_COLL_ALL_REDUCE, L, MIB, 1, 2, TRUE);
    g_autoptr(weft_coll_plan_t) e = ring_plan(WEFT_COLL_ALL_REDUCE, L, MIB, 1, 2, FALSE);
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    weft_net_options_t fopts = {.model = WEFT_NET_FLOW, .check_solves = TRUE};
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(ring);
    g_autoptr(weft_net_t) flow = weft_net_new_full(sim, fabric, &fopts);
    weft_time_t d;
    GArray *links = NULL;
    ck_assert(!weft_coll_sweep(flow, im, v, NULL, &d, &links, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    /* under flow the implicit plan runs its transfers: the same time as the explicit one */
    ck_assert_int_eq(run_plan(ring, im, NULL, WEFT_NET_FLOW, NULL),
                     run_plan(ring, e, NULL, WEFT_NET_FLOW, NULL));
    /* per-message costs across domains: not swept, run */
    weft_coll_exec_t msg = {.msg_ps = 1000000, .efficiency = 1.0};
    g_autoptr(weft_net_t) an = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    ck_assert(!weft_coll_sweep(an, im, v, &msg, &d, &links, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    ck_assert_int_eq(run_plan(ring, im, NULL, WEFT_NET_ANALYTICAL, &msg),
                     run_plan(ring, e, NULL, WEFT_NET_ANALYTICAL, &msg));
    /* nor is the rendezvous */
    weft_coll_exec_t rdv = {.rendezvous_ps = 1000000, .efficiency = 1.0};
    ck_assert(!weft_coll_sweep(an, im, v, &rdv, &d, &links, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    ck_assert_int_eq(run_plan(ring, im, NULL, WEFT_NET_ANALYTICAL, &rdv),
                     run_plan(ring, e, NULL, WEFT_NET_ANALYTICAL, &rdv));
    /* an implicit plan too large to store refuses to be built transfer by transfer */
    g_autoptr(weft_coll_layout_t) big = weft_coll_layout_new_flat(16384);
    g_autoptr(weft_coll_plan_t) huge = ring_plan(WEFT_COLL_ALL_REDUCE, big, 64 * MIB, 1, 8, TRUE);
    ck_assert(weft_coll_plan_explicit(huge, &error) == NULL);
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE));
    ck_assert(strstr(error->message, "4294705152 transfers") != NULL);
    g_clear_error(&error);
    /* just under that limit, but about 192 GiB to store: refused, not left to the allocator
     * (on a machine with less memory than that) */
    g_autoptr(weft_coll_plan_t) big4 = ring_plan(WEFT_COLL_ALL_REDUCE, big, MIB, 1, 4, TRUE);
    ck_assert_uint_eq(weft_coll_plan_n_transfers(big4), 2147352576u);
    double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    if (ram < 2147352576.0 * 96) {
        ck_assert(weft_coll_plan_explicit(big4, &error) == NULL);
        ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE));
        ck_assert_msg(strstr(error->message, "GiB of memory") != NULL, "%s", error->message);
        g_clear_error(&error);
    }
}
END_TEST

static Suite *
coll_suite(void)
{
    Suite *s = suite_create("coll");
    TCase *forms = tcase_create("closed_forms");
    tcase_add_test(forms, ring_all_reduce_n4_one_chunk_is_textbook);
    tcase_add_test(forms, ring_all_reduce_n8_four_chunks_pipelines);
    tcase_add_test(forms, ring_all_gather_moves_the_whole_contribution_per_step);
    tcase_add_test(forms, ring_reduce_scatter_moves_a_slice_per_step);
    tcase_add_test(forms, chain_broadcast_and_reduce_pipeline_the_whole_buffer);
    tcase_add_test(forms, barrier_is_an_empty_ring_all_reduce);
    tcase_add_test(forms, critical_path_follows_the_data_around_a_ring_with_one_slow_link);
    tcase_add_test(forms, rounding_stays_within_one_ps_per_step);
    tcase_add_test(forms, direct_all_to_all_sends_all_pieces_at_once);
    tcase_add_test(forms, direct_gather_and_scatter_cost_one_transfer_of_S);
    tcase_add_test(forms, ring_times_match_the_closed_form_for_every_n);
    suite_add_tcase(s, forms);
    TCase *exec = tcase_create("executor");
    tcase_add_test(exec, one_member_has_no_transfers_and_costs_nothing);
    tcase_add_test(exec, empty_plan_completes_through_the_event_loop);
    tcase_add_test(exec, abandoned_run_never_calls_back);
    tcase_add_test(exec, unreachable_member_is_no_route);
    tcase_add_test(exec, network_messages_hold_both_ends_and_wait_for_the_rendezvous);
    suite_add_tcase(s, exec);
    TCase *plans = tcase_create("plans");
    tcase_add_test(plans, bad_requests_are_errors);
    tcase_add_test(plans, op_names_follow_nccl_tests_and_round_trip);
    tcase_add_test(plans, plan_print_lists_every_transfer);
    tcase_add_test(plans, chunks_never_exceed_the_smallest_piece);
    tcase_add_test(plans, every_plan_delivers_exact_bytes_in_topological_order);
    tcase_add_test(plans, even_sizes_give_the_textbook_per_member_volumes);
    suite_add_tcase(s, plans);
    TCase *algos = tcase_create("algorithms");
    tcase_add_test(algos, chunked_ring_formula_holds_under_both_models);
    tcase_add_test(algos, net_sent_callback_ends_the_bandwidth_phase);
    tcase_add_test(algos, tree_all_reduce_takes_two_log2_n_levels);
    tcase_add_test(algos, halving_doubling_takes_log2_n_steps_each_way);
    tcase_add_test(algos, direct_all_to_all_sends_n_minus_1_transfers_per_rank);
    tcase_add_test(algos, nvls_on_a_dgx_h100_node_goes_up_and_down_once);
    tcase_add_test(algos, nvls_tree_copies_in_and_out_around_the_rest);
    tcase_add_test(algos, protocols_cost_latency_and_efficiency);
    tcase_add_test(algos, base_latency_and_reductions_are_charged);
    tcase_add_test(algos, channels_do_not_create_bandwidth);
    tcase_add_test(algos, layouts_know_domains_rails_nvls_and_sharp);
    tcase_add_test(algos, collnet_aggregates_at_sharp_leaves_first);
    tcase_add_test(algos, graphml_keeps_vertex_features);
    tcase_add_test(algos, every_plan_delivers_the_operations_data);
    tcase_add_test(algos, blocks_layout_hierarchical_keeps_positions_aligned);
    tcase_add_test(algos, every_algorithm_is_exercised_by_the_data_check);
    tcase_add_test(algos, transfer_counts_are_the_plans_exactly);
    tcase_add_test(algos, implicit_ring_builds_the_same_transfers);
    tcase_add_test(algos, sweep_matches_the_event_run);
    tcase_add_test(algos, sweep_refuses_what_it_cannot_compute);
    suite_add_tcase(s, algos);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(coll_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
