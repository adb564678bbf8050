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
#include <stdlib.h>

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

/* Runs a fresh plan (@op, AUTO, @n, @S, @C) alone on @topo, members = GPUs 0..n-1. */
static weft_time_t
time_on(weft_topo_t *topo, weft_coll_op_t op, guint n, guint64 S, guint C)
{
    GError *error = NULL;
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_net_t) net = weft_net_new(sim, topo, WEFT_NET_ANALYTICAL);
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
    /* Each of a member's n-1 transfers of S/n runs at once (analytical: no sharing),
     * over a 2-hop route: 2a + (S/n)/B = 1000000 + 131072 * 20 = 3621440 ps */
    ck_assert_int_eq(time_on(t, WEFT_COLL_ALL_TO_ALL, 8, MIB, 1), 3621440);
    /* Chunks do not apply to a direct algorithm. */
    ck_assert_int_eq(time_on(t, WEFT_COLL_ALL_TO_ALL, 8, MIB, 5), 3621440);
}
END_TEST

START_TEST(direct_gather_and_scatter_cost_one_transfer_of_S)
{
    g_autoptr(weft_topo_t) t = switch_cluster(4, B_50GBPS, ALPHA);
    /* 2a + S/B = 1000000 + 1048576 * 20 = 21971520 ps (the n-1 transfers overlap) */
    ck_assert_int_eq(time_on(t, WEFT_COLL_GATHER, 4, MIB, 1), 21971520);
    ck_assert_int_eq(time_on(t, WEFT_COLL_SCATTER, 4, MIB, 1), 21971520);
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

START_TEST(empty_plan_completes_through_the_event_loop)
{
    g_autoptr(weft_topo_t) t = switch_cluster(2, B_50GBPS, ALPHA);
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_net_t) net = weft_net_new(sim, t, WEFT_NET_ANALYTICAL);
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
    g_autoptr(weft_net_t) net = weft_net_new(sim, t, WEFT_NET_ANALYTICAL);
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
    g_autoptr(weft_net_t) net = weft_net_new(sim, t, WEFT_NET_ANALYTICAL);
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
        weft_coll_plan_new(WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_DIRECT, 4, 8, 1, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    ck_assert_ptr_null(weft_coll_plan_new(WEFT_COLL_N_OPS, WEFT_COLL_ALGO_AUTO, 4, 8, 1, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    /* 2 * 65535 * 65536 * 64 transfers would not fit a plan */
    ck_assert_ptr_null(weft_coll_plan_new(WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_RING, 65536,
                                          G_GUINT64_CONSTANT(1) << 40, 64, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE));
    g_clear_error(&error);
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
                     "0 B/s, HBM 0 B/s\n"
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
    suite_add_tcase(s, exec);
    TCase *plans = tcase_create("plans");
    tcase_add_test(plans, bad_requests_are_errors);
    tcase_add_test(plans, op_names_follow_nccl_tests_and_round_trip);
    tcase_add_test(plans, plan_print_lists_every_transfer);
    tcase_add_test(plans, chunks_never_exceed_the_smallest_piece);
    tcase_add_test(plans, every_plan_delivers_exact_bytes_in_topological_order);
    tcase_add_test(plans, even_sizes_give_the_textbook_per_member_volumes);
    suite_add_tcase(s, plans);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(coll_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
