/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the flow network model (max-min fair sharing, src/net/net.h):
 * hand-derived cases (two transfers on one link, the parking-lot line, incast
 * through a switch, an ECMP collision on a leaf-spine, an all-to-all over a 2:1
 * oversubscribed spine), rate caps and capacity changes, cancellation, link
 * statistics and time series, batching of changes into one solve, exact
 * agreement with the analytical model where nothing is shared (ring
 * all-reduce on the bundled ring and DGX H100 clusters), and property tests
 * on random clusters and random transfers: the max-min condition at every
 * solve, no link above capacity, bytes delivered = bytes sent, no transfer
 * faster than alone, and incremental == full.
 *
 * Numbers used throughout: B = 50 GB/s = 50e9 B/s, so a byte takes 20 ps and
 * S = 1 MB = 1e6 B takes S/B = 20 us = 2e7 ps alone; a = 500 ns per link.
 */
#include "coll/coll.h"
#include "net/net.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define B 50e9
#define S 1000000
#define A ((weft_time_t)500 * WEFT_PS_PER_NS)
#define US WEFT_PS_PER_US

/* ---- helpers ------------------------------------------------------------------------ */

/* Completion times by tag (tags are small integers). */
typedef struct {
    weft_sim_t *sim;
    guint n;
    weft_time_t at[4096];
} log_t;

static void
on_done(void *ctx, guint64 tag)
{
    log_t *log = ctx;
    ck_assert_uint_lt(tag, G_N_ELEMENTS(log->at));
    ck_assert_int_eq(log->at[tag], -1); /* called once */
    log->at[tag] = weft_sim_now(log->sim);
    log->n++;
}

static void
log_init(log_t *log, weft_sim_t *sim)
{
    log->sim = sim;
    log->n = 0;
    for (guint i = 0; i < G_N_ELEMENTS(log->at); i++) {
        log->at[i] = -1;
    }
}

static gint
add_vertex(weft_topo_t *t, weft_vertex_kind_t kind, const char *name)
{
    GError *error = NULL;
    gint v = weft_topo_add_vertex(t, kind, name, -1, -1, &error);
    ck_assert_msg(v >= 0, "%s", error ? error->message : "");
    return v;
}

static gint
add_link(weft_topo_t *t, gint u, gint v, double bw, weft_time_t lat)
{
    GError *error = NULL;
    gint e = weft_topo_add_link(t, u, v, WEFT_LINK_ETHERNET, bw, lat, 1, &error);
    ck_assert_msg(e >= 0, "%s", error ? error->message : "");
    return e;
}

static void
finalize(weft_topo_t *t)
{
    GError *error = NULL;
    ck_assert_msg(weft_topo_finalize(t, &error), "%s", error ? error->message : "");
}

static weft_net_t *
flow_net(weft_sim_t *sim, weft_fabric_t *fabric, weft_net_update_t update)
{
    weft_net_options_t o = {.model = WEFT_NET_FLOW, .update = update, .check_solves = TRUE};
    return weft_net_new_full(sim, fabric, &o);
}

static void
start(weft_net_t *net, gint src, gint dst, guint64 bytes, log_t *log, guint64 tag)
{
    GError *error = NULL;
    ck_assert_msg(weft_net_transfer_start(net, src, dst, bytes, on_done, log, tag, &error), "%s",
                  error ? error->message : "");
}

static void
assert_checks_passed(const weft_net_t *net)
{
    const GError *e = weft_net_check_error(net);
    ck_assert_msg(e == NULL, "max-min check failed: %s", e ? e->message : "");
}

/* ---- fixture: 2 GPUs on one 50 GB/s, 500 ns link --------------------------------------- */

static weft_sim_t *sim;
static weft_topo_t *topo;
static weft_fabric_t *fabric;
static weft_net_t *net;
static gint gpu0, gpu1;
static log_t lg;

static void
setup_pair(void)
{
    sim = weft_sim_new(1);
    topo = weft_topo_new("pair");
    gpu0 = add_vertex(topo, WEFT_VERTEX_GPU, "gpu0");
    gpu1 = add_vertex(topo, WEFT_VERTEX_GPU, "gpu1");
    add_link(topo, gpu0, gpu1, B, A); /* edge 0: gpu0 -> gpu1, edge 1: gpu1 -> gpu0 */
    finalize(topo);
    fabric = weft_fabric_new(topo);
    net = flow_net(sim, fabric, WEFT_NET_UPDATE_INCREMENTAL);
    log_init(&lg, sim);
}

static void
teardown_pair(void)
{
    weft_net_free(net);
    weft_fabric_free(fabric);
    weft_topo_free(topo);
    weft_sim_free(sim);
}

START_TEST(names_of_models_and_update_modes)
{
    weft_net_model_t m = WEFT_NET_ANALYTICAL;
    weft_net_update_t u = WEFT_NET_UPDATE_FULL;
    GError *error = NULL;
    ck_assert(weft_net_model_from_name("flow", &m, &error));
    ck_assert_int_eq(m, WEFT_NET_FLOW);
    ck_assert_str_eq(weft_net_model_name(WEFT_NET_FLOW), "flow");
    ck_assert_int_eq(weft_net_model(net), WEFT_NET_FLOW);
    ck_assert(weft_net_update_from_name("incremental", &u, &error));
    ck_assert_int_eq(u, WEFT_NET_UPDATE_INCREMENTAL);
    ck_assert(weft_net_update_from_name("full", &u, &error));
    ck_assert_int_eq(u, WEFT_NET_UPDATE_FULL);
    ck_assert_str_eq(weft_net_update_name(WEFT_NET_UPDATE_INCREMENTAL), "incremental");
    ck_assert(!weft_net_update_from_name("lazy", &u, &error));
    ck_assert(g_error_matches(error, WEFT_NET_ERROR, WEFT_NET_ERROR_UPDATE));
    g_clear_error(&error);
}
END_TEST

START_TEST(lone_transfer_takes_the_analytical_time)
{
    start(net, gpu0, gpu1, S, &lg, 0);
    weft_sim_run(sim);
    /* a + S/B = 500000 + 20000000 = 20500000 ps, as analytical */
    ck_assert_int_eq(lg.at[0], 20500000);
    ck_assert_int_eq(weft_net_transfer_time(net, gpu0, gpu1, S, NULL), 20500000);
    assert_checks_passed(net);
}
END_TEST

START_TEST(zero_bytes_and_local_copies_have_no_bandwidth_phase)
{
    start(net, gpu0, gpu1, 0, &lg, 0);
    start(net, gpu1, gpu1, S, &lg, 1);
    weft_sim_run(sim);
    ck_assert_int_eq(lg.at[0], 500000);                /* the latency a */
    ck_assert_int_eq(lg.at[1], 0);                     /* a local copy is free */
    ck_assert_uint_eq(weft_net_stats(net)->solves, 0); /* no variable, nothing to solve */
}
END_TEST

START_TEST(two_transfers_on_one_link_each_get_half)
{
    /* Both at B/2 = 25 GB/s (40 ps/B): 0 ends its bandwidth phase at S/(B/2) =
     * 40 us, arriving at 40.5 us. Transfer 1 (3S) has sent S by then and gets the
     * whole link for its remaining 2S: 2S/B = 40 us more, so it has sent all at
     * 80 us and arrives at 80.5 us. */
    start(net, gpu0, gpu1, S, &lg, 0);
    start(net, gpu0, gpu1, 3 * S, &lg, 1);
    /* the reverse direction is a separate resource: alone, 20.5 us */
    start(net, gpu1, gpu0, S, &lg, 2);
    weft_sim_run(sim);
    ck_assert_int_eq(lg.at[0], 40 * US + A);
    ck_assert_int_eq(lg.at[1], 80 * US + A);
    ck_assert_int_eq(lg.at[2], 20 * US + A);
    assert_checks_passed(net);
    /* solves: at 0 (three starts batched), at 20 us, at 40 us and at 80 us (ends) */
    ck_assert_uint_eq(weft_net_stats(net)->solves, 4);
    ck_assert_uint_eq(weft_net_stats(net)->bytes_delivered, 5 * S);
}
END_TEST

START_TEST(two_equal_transfers_end_together_in_two_solves)
{
    /* S each at B/2: both end sending at 40 us, arrive at 40.5 us. All changes
     * of one instant are one solve: one at 0 (two starts), one at 40 us (two ends). */
    start(net, gpu0, gpu1, S, &lg, 0);
    start(net, gpu0, gpu1, S, &lg, 1);
    weft_sim_run(sim);
    ck_assert_int_eq(lg.at[0], 40 * US + A);
    ck_assert_int_eq(lg.at[1], 40 * US + A);
    ck_assert_uint_eq(weft_net_stats(net)->solves, 2);
}
END_TEST

START_TEST(link_statistics_and_timeseries)
{
    weft_net_enable_timeseries(net, 10 * US);
    start(net, gpu0, gpu1, S, &lg, 0);
    start(net, gpu0, gpu1, 3 * S, &lg, 1);
    weft_sim_run(sim); /* ends at 80.5 us (two_transfers_on_one_link_each_get_half) */
    weft_net_link_stats_t st = weft_net_link_stats(net, 0);
    ck_assert_double_eq(st.capacity_Bps, B);
    ck_assert_double_eq(st.bytes, 4.0 * S); /* S + 3S */
    /* usage B from 0 to 80 us (the link saturated throughout), then 0 */
    ck_assert_int_eq(st.busy_ps, 80 * US);
    ck_assert_double_eq_tol(st.peak_util, 1.0, 1e-12);
    ck_assert_double_eq(st.usage_Bps, 0.0);
    ck_assert_uint_eq(st.n_transfers, 0);
    /* mean: 4e6 B / (50e9 B/s x 80.5e-6 s) = 4e6 / 4.025e6 = 0.99378882 */
    ck_assert_double_eq_tol(st.mean_util, 4e6 / 4.025e6, 1e-12);
    /* the unused direction */
    weft_net_link_stats_t back = weft_net_link_stats(net, 1);
    ck_assert_double_eq(back.bytes, 0.0);
    ck_assert_int_eq(back.busy_ps, 0);
    /* samples at 0, 10, ..., 80 us (80.5 / 10 -> 8, + 1 = 9): B up to 70 us, 0 at 80 us */
    guint n = 0;
    g_autofree double *ts = weft_net_link_timeseries(net, 0, &n);
    ck_assert_uint_eq(n, 9);
    for (guint i = 0; i < 8; i++) {
        ck_assert_double_eq_tol(ts[i], B, 1e-3);
    }
    ck_assert_double_eq(ts[8], 0.0);
    g_autofree double *ts_back = weft_net_link_timeseries(net, 1, &n);
    ck_assert_double_eq(ts_back[0], 0.0);
}
END_TEST

/* Records the statistics of edge 0 at the time of the event. */
static void
probe_link0(void *ctx, void *data)
{
    (void)data;
    weft_net_link_stats_t *out = ctx;
    *out = weft_net_link_stats(net, 0);
}

START_TEST(busy_time_counts_up_to_now_while_busy)
{
    weft_net_link_stats_t mid = {0};
    start(net, gpu0, gpu1, S, &lg, 0);
    weft_sim_at(sim, 5 * US, probe_link0, &mid, NULL);
    weft_sim_run(sim);
    /* at 5 us: one transfer at B, busy 5 us, no bytes counted yet (counted when sent) */
    ck_assert_int_eq(mid.busy_ps, 5 * US);
    ck_assert_double_eq(mid.usage_Bps, B);
    ck_assert_uint_eq(mid.n_transfers, 1);
    ck_assert_double_eq(mid.bytes, 0.0);
}
END_TEST

START_TEST(analytical_link_statistics_of_queued_transfers)
{
    g_autoptr(weft_net_t) an = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    ck_assert(weft_net_transfer_start(an, gpu0, gpu1, S, on_done, &lg, 0, NULL));
    ck_assert(weft_net_transfer_start(an, gpu0, gpu1, S, on_done, &lg, 1, NULL));
    weft_sim_run(sim);
    weft_net_link_stats_t st = weft_net_link_stats(an, 0);
    ck_assert_double_eq(st.bytes, 2.0 * S);
    /* the first sends over [0, 20 us) at B; the second queues behind it at gpu0's port and
     * is served over [20, 40 us), so the links see it over [0, 40 us) at B/2 (flow: both
     * [0, 40 us) at B/2): busy 40 us, peak (B + B/2) / B = 1.5 */
    ck_assert_int_eq(st.busy_ps, 40 * US);
    ck_assert_double_eq_tol(st.peak_util, 1.5, 1e-12);
    /* they end at 20.5 and 40.5 us: 2e6 / (50e9 x 40.5e-6) = 2e6 / 2.025e6 */
    ck_assert_double_eq_tol(st.mean_util, 2e6 / 2.025e6, 1e-12);
}
END_TEST

/* Cancels every transfer of ctx @data at the event's time. */
static void
cancel_ctx_event(void *ctx, void *data)
{
    (void)ctx;
    ck_assert_uint_eq(weft_net_transfer_cancel_ctx(net, data), 1);
}

START_TEST(cancel_frees_the_bandwidth_and_counts_sent_bytes)
{
    log_t other;
    log_init(&other, sim);
    start(net, gpu0, gpu1, S, &lg, 0);
    start(net, gpu0, gpu1, S, &other, 1);
    weft_sim_at(sim, 10 * US, cancel_ctx_event, NULL, &other);
    weft_sim_run(sim);
    /* 0 to 10 us both at B/2: transfer 0 sends 25e9 x 10e-6 = 250000 B; then alone
     * at B: 750000 B in 15 us, so it has sent all at 25 us and arrives at 25.5 us */
    ck_assert_int_eq(lg.at[0], 25 * US + A);
    ck_assert_uint_eq(other.n, 0);
    /* link bytes: S from transfer 0 plus the 250000 B the cancelled one sent */
    ck_assert_double_eq_tol(weft_net_link_stats(net, 0).bytes, 1250000.0, 1e-6);
    const weft_net_stats_t *st = weft_net_stats(net);
    ck_assert_uint_eq(st->bytes_sent, st->bytes_delivered + st->bytes_cancelled);
    assert_checks_passed(net);
}
END_TEST

START_TEST(free_with_transfers_in_flight_leaves_no_events)
{
    start(net, gpu0, gpu1, S, &lg, 0);
    start(net, gpu0, gpu1, 0, &lg, 1);
    ck_assert_uint_gt(weft_sim_pending(sim), 0); /* the solve and the zero-byte arrival */
    weft_net_free(net);
    net = NULL;
    ck_assert_uint_eq(weft_sim_pending(sim), 0);
    weft_sim_run(sim);
    ck_assert_uint_eq(lg.n, 0);
}
END_TEST

START_TEST(rate_cap_bounds_a_transfer_and_leaves_the_rest)
{
    /* Transfer 0 capped at B/4 = 12.5 GB/s; transfer 1 takes the rest, 3B/4 =
     * 37.5 GB/s (max-min: 0 is at its bound, 1 alone on the saturated link).
     * 0: S / 12.5e9 = 80 us; 1: S / 37.5e9 = 26.666..7 us, then 0 keeps its cap. */
    GError *error = NULL;
    ck_assert(weft_net_transfer_start_capped(net, gpu0, gpu1, S, B / 4, on_done, &lg, 0, &error));
    start(net, gpu0, gpu1, S, &lg, 1);
    weft_sim_run(sim);
    ck_assert_int_eq(lg.at[0], 80 * US + A);
    /* 1e6 x 1e12 / 37.5e9 = 26666666.67 -> 26666667 ps */
    ck_assert_int_eq(lg.at[1], 26666667 + A);
    /* The analytical model honours the cap too: a + S / min(B, B/4) = 80.5 us. */
    g_autoptr(weft_net_t) an = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    log_t alog;
    log_init(&alog, sim);
    weft_time_t t0 = weft_sim_now(sim);
    ck_assert(weft_net_transfer_start_capped(an, gpu0, gpu1, S, B / 4, on_done, &alog, 0, NULL));
    weft_sim_run(sim);
    ck_assert_int_eq(alog.at[0] - t0, 80 * US + A);
}
END_TEST

typedef struct {
    gint edge;
    double capacity;
} cap_change_t;

static void
set_capacity_event(void *ctx, void *data)
{
    (void)ctx;
    cap_change_t *c = data;
    weft_net_set_link_capacity(net, c->edge, c->capacity);
}

START_TEST(capacity_changes_reschedule_the_end)
{
    /* S alone at B; at 10 us (500000 B sent) the link drops to B/2: the other
     * 500000 B take 20 us, so sending ends at 30 us and the byte arrives at 30.5 us. */
    cap_change_t half = {0, B / 2};
    start(net, gpu0, gpu1, S, &lg, 0);
    weft_sim_at(sim, 10 * US, set_capacity_event, NULL, &half);
    weft_sim_run(sim);
    ck_assert_int_eq(lg.at[0], 30 * US + A);
    ck_assert_double_eq(weft_net_link_stats(net, 0).capacity_Bps, B / 2);
    /* the peak is relative to the capacity in force: usage = capacity after each solve */
    ck_assert_double_eq_tol(weft_net_link_stats(net, 0).peak_util, 1.0, 1e-12);
}
END_TEST

START_TEST(a_link_down_stalls_transfers_until_it_comes_back)
{
    /* S at B; down (capacity 0) from 10 us to 20 us: 500000 B sent before, the
     * rest after, 10 us at B: all sent at 30 us, arrives 30.5 us; busy 20 us. */
    cap_change_t down = {0, 0.0}, up = {0, B};
    start(net, gpu0, gpu1, S, &lg, 0);
    weft_sim_at(sim, 10 * US, set_capacity_event, NULL, &down);
    weft_sim_at(sim, 20 * US, set_capacity_event, NULL, &up);
    weft_sim_run(sim);
    ck_assert_int_eq(lg.at[0], 30 * US + A);
    ck_assert_int_eq(weft_net_link_stats(net, 0).busy_ps, 20 * US);
    assert_checks_passed(net);
}
END_TEST

typedef struct {
    weft_net_t *net;
    gint src, dst;
    guint left;
    guint finished;
} chain_t;

/* Each completion starts the next transfer, from inside the callback. */
static void
on_chain(void *ctx, guint64 tag)
{
    chain_t *ch = ctx;
    ch->finished++;
    if (ch->left > 0) {
        ch->left--;
        ck_assert(weft_net_transfer_start(ch->net, ch->src, ch->dst, S, on_chain, ch, tag, NULL));
    }
}

START_TEST(zero_latency_callbacks_start_transfers_in_the_same_instant)
{
    /* A link with no latency: a transfer completes when its last byte is sent,
     * inside the event that ends its bandwidth phase, and the next one it starts
     * joins that instant's solve. 100 transfers of S back to back at B: 100 x
     * 20 us = 2 ms; one solve per instant: 101 (the first start, then each end
     * together with the next start). */
    g_autoptr(weft_sim_t) s = weft_sim_new(1);
    g_autoptr(weft_topo_t) t = weft_topo_new("zero-latency");
    gint a = add_vertex(t, WEFT_VERTEX_GPU, "a");
    gint b = add_vertex(t, WEFT_VERTEX_GPU, "b");
    add_link(t, a, b, B, 0);
    finalize(t);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    g_autoptr(weft_net_t) n = flow_net(s, f, WEFT_NET_UPDATE_INCREMENTAL);
    chain_t ch = {n, a, b, 99, 0};
    ck_assert(weft_net_transfer_start(n, a, b, S, on_chain, &ch, 0, NULL));
    weft_sim_run(s);
    ck_assert_uint_eq(ch.finished, 100);
    ck_assert_int_eq(weft_sim_now(s), 100 * 20 * US);
    ck_assert_uint_eq(weft_net_stats(n)->solves, 101);
    assert_checks_passed(n);
}
END_TEST

/* ---- the parking-lot line ------------------------------------------------------------ */

static void
parking_lot(weft_net_update_t update, log_t *log, weft_time_t *makespan)
{
    /* g0 - g1 - g2 - g3, links of B and a: the long transfer g0 -> g3 crosses all
     * three links (0->1, 1->2, 2->3); one short transfer on each. */
    g_autoptr(weft_sim_t) s = weft_sim_new(1);
    g_autoptr(weft_topo_t) t = weft_topo_new("parking-lot");
    gint g[4];
    for (guint i = 0; i < 4; i++) {
        g_autofree char *name = g_strdup_printf("g%u", i);
        g[i] = add_vertex(t, WEFT_VERTEX_GPU, name);
    }
    for (guint i = 0; i < 3; i++) {
        add_link(t, g[i], g[i + 1], B, A);
    }
    finalize(t);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    g_autoptr(weft_net_t) n = flow_net(s, f, update);
    log_init(log, s);
    start(n, g[0], g[3], 2 * S, log, 0); /* long, 2S */
    start(n, g[0], g[1], S, log, 1);
    start(n, g[1], g[2], S, log, 2);
    start(n, g[2], g[3], S, log, 3);
    weft_sim_run(s);
    assert_checks_passed(n);
    *makespan = weft_sim_now(s);
}

START_TEST(parking_lot_gives_textbook_max_min_rates)
{
    /* Max-min (Bertsekas and Gallager 6.5.2): every link carries two transfers,
     * so all four get B/2 = 25 GB/s. The shorts send S in 40 us and arrive at
     * 40.5 us (one hop). The long one has sent S by 40 us; then it is alone on
     * all three links at B: S more in 20 us, all sent at 60 us, arriving three
     * hops later: 61.5 us. */
    log_t log;
    weft_time_t makespan;
    parking_lot(WEFT_NET_UPDATE_INCREMENTAL, &log, &makespan);
    ck_assert_int_eq(log.at[1], 40 * US + A);
    ck_assert_int_eq(log.at[2], 40 * US + A);
    ck_assert_int_eq(log.at[3], 40 * US + A);
    ck_assert_int_eq(log.at[0], 60 * US + 3 * A);
    log_t full;
    parking_lot(WEFT_NET_UPDATE_FULL, &full, &makespan);
    for (guint i = 0; i < 4; i++) {
        ck_assert_int_eq(full.at[i], log.at[i]);
    }
}
END_TEST

/* ---- incast ---------------------------------------------------------------------------- */

START_TEST(incast_through_a_switch_shares_the_receiver_link)
{
    /* Four senders g1..g4 and a receiver g0 on one switch, every link B and a.
     * The switch -> g0 link is the bottleneck: B/4 each while all four send.
     * Sizes kS (k = 1..4): all at B/4 until the first has sent S at 4S/B = 80 us;
     * the three others have k S - S left, at B/3: the second's S takes 3S/B = 60 us
     * (140 us); two left at B/2: the third's last S takes 2S/B = 40 us (180 us);
     * the fourth alone sends its last S in S/B = 20 us (200 us = 10 S/B, all the
     * bytes over the one link). Two hops: each arrives 2a = 1 us later. */
    g_autoptr(weft_sim_t) s = weft_sim_new(1);
    g_autoptr(weft_topo_t) t = weft_topo_new("incast");
    gint sw = add_vertex(t, WEFT_VERTEX_SWITCH, "sw");
    gint g[5];
    for (guint i = 0; i < 5; i++) {
        g_autofree char *name = g_strdup_printf("g%u", i);
        g[i] = add_vertex(t, WEFT_VERTEX_GPU, name);
        add_link(t, g[i], sw, B, A);
    }
    finalize(t);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    g_autoptr(weft_net_t) n = flow_net(s, f, WEFT_NET_UPDATE_INCREMENTAL);
    log_t log;
    log_init(&log, s);
    for (guint k = 1; k <= 4; k++) {
        start(n, g[k], g[0], (guint64)k * S, &log, k);
    }
    weft_sim_run(s);
    assert_checks_passed(n);
    ck_assert_int_eq(log.at[1], 80 * US + 2 * A);
    ck_assert_int_eq(log.at[2], 140 * US + 2 * A);
    ck_assert_int_eq(log.at[3], 180 * US + 2 * A);
    ck_assert_int_eq(log.at[4], 200 * US + 2 * A);
}
END_TEST

/* ---- ECMP collision on a leaf-spine ---------------------------------------------------- */

START_TEST(ecmp_collision_halves_the_spine_link)
{
    /* Two leaves, two spines; GPUs a0..a2 on leaf 0, b0..b2 on leaf 1; GPU links
     * 100 GB/s, leaf-spine links B = 50 GB/s, a = 500 ns everywhere. Transfer i
     * (flow id i: the network numbers transfers in start order) goes a_i -> b_i
     * over a0 -> leaf0 -> spine -> leaf1 -> b_i; ECMP picks the spine. We look for
     * the first ECMP seed under which flows 0 and 1 hash onto the same spine and
     * flow 2 onto the other (deterministic: the hash is a function of the seed). */
    g_autoptr(weft_sim_t) s = weft_sim_new(1);
    g_autoptr(weft_topo_t) t = weft_topo_new("leaf-spine");
    gint leaf[2], spine[2], a[3], b[3];
    for (guint i = 0; i < 2; i++) {
        g_autofree char *ln = g_strdup_printf("leaf%u", i);
        g_autofree char *sn = g_strdup_printf("spine%u", i);
        leaf[i] = add_vertex(t, WEFT_VERTEX_SWITCH, ln);
        spine[i] = add_vertex(t, WEFT_VERTEX_SWITCH, sn);
    }
    for (guint i = 0; i < 3; i++) {
        g_autofree char *an = g_strdup_printf("a%u", i);
        g_autofree char *bn = g_strdup_printf("b%u", i);
        a[i] = add_vertex(t, WEFT_VERTEX_GPU, an);
        b[i] = add_vertex(t, WEFT_VERTEX_GPU, bn);
        add_link(t, a[i], leaf[0], 100e9, A);
        add_link(t, b[i], leaf[1], 100e9, A);
    }
    for (guint l = 0; l < 2; l++) {
        for (guint sp = 0; sp < 2; sp++) {
            add_link(t, leaf[l], spine[sp], B, A);
        }
    }
    finalize(t);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    gint chosen[3] = {-1, -1, -1};
    guint64 seed;
    for (seed = 0; seed < 1000; seed++) {
        weft_fabric_set_ecmp_seed(f, seed);
        for (guint i = 0; i < 3; i++) {
            const weft_route_t *r = weft_fabric_route_ecmp(f, a[i], b[i], i, NULL);
            ck_assert_uint_eq(r->n_paths, 1);
            ck_assert_uint_eq(r->hops, 4);
            chosen[i] = weft_topo_edge_to(t, r->edges[1]); /* leaf0 -> spine: which spine */
        }
        if (chosen[0] == chosen[1] && chosen[2] != chosen[0]) {
            break;
        }
    }
    ck_assert_uint_lt(seed, 1000);
    g_autoptr(weft_net_t) n = flow_net(s, f, WEFT_NET_UPDATE_INCREMENTAL);
    log_t log;
    log_init(&log, s);
    for (guint i = 0; i < 3; i++) {
        start(n, a[i], b[i], S, &log, i);
    }
    weft_sim_run(s);
    assert_checks_passed(n);
    /* 0 and 1 share leaf0 -> spine and spine -> leaf1 at B: B/2 each, S in 40 us;
     * 2 has its spine alone, B: 20 us. Four hops: + 4a = 2 us. */
    ck_assert_int_eq(log.at[0], 40 * US + 4 * A);
    ck_assert_int_eq(log.at[1], 40 * US + 4 * A);
    ck_assert_int_eq(log.at[2], 20 * US + 4 * A);
    /* the analytical model shares nothing: 22 us for all three */
    g_autoptr(weft_net_t) an = weft_net_new(s, f, WEFT_NET_ANALYTICAL);
    for (guint i = 0; i < 3; i++) {
        ck_assert_int_eq(weft_net_transfer_time(an, a[i], b[i], S, NULL), 20 * US + 4 * A);
    }
}
END_TEST

/* ---- all-to-all over a 2:1 oversubscribed spine ------------------------------------------- */

START_TEST(all_to_all_on_oversubscribed_spine_takes_the_spine_time)
{
    /* Two leaves of four GPUs (links B down), one spine, each leaf -> spine link
     * 2B: 4B down : 2B up = 2:1. A direct all-to-all of S = 8e6 B per member
     * sends S/8 = 1e6 B to each of the 7 others: 3 on its leaf, 4 across.
     * Max-min: 16 transfers cross each leaf -> spine link of 2B, so the level
     * reaches B/8 there first (a GPU's uplink would allow B/7): the crossing
     * transfers freeze at B/8 = 6.25 GB/s; each GPU uplink then has B - 4 B/8 =
     * B/2 for its 3 intra-leaf transfers, B/6 each (the receiving GPU link is
     * saturated the same way: 3 B/6 + 4 B/8 = B). Intra-leaf transfers send 1e6 B
     * at B/6 in 1e6 / 8.33e9 = 120 us; the crossing ones keep B/8 (the spine link
     * still binds) and send 1e6 B in 160 us = S/B: the spine bottleneck, 16 x
     * 1e6 B out of each leaf over 2B = 100e9 B/s takes 160 us. They arrive 4 hops later: 160 us +
     * 4a = 162 us; intra-leaf ones 120 us + 2a. */
    g_autoptr(weft_sim_t) s = weft_sim_new(1);
    g_autoptr(weft_topo_t) t = weft_topo_new("leaf-spine-2to1");
    gint spine = add_vertex(t, WEFT_VERTEX_SWITCH, "spine");
    gint gpu[8];
    for (guint l = 0; l < 2; l++) {
        g_autofree char *ln = g_strdup_printf("leaf%u", l);
        gint leaf = add_vertex(t, WEFT_VERTEX_SWITCH, ln);
        add_link(t, leaf, spine, 2 * B, A);
        for (guint i = 0; i < 4; i++) {
            g_autofree char *gn = g_strdup_printf("gpu%u", 4 * l + i);
            gpu[4 * l + i] = add_vertex(t, WEFT_VERTEX_GPU, gn);
            add_link(t, gpu[4 * l + i], leaf, B, A);
        }
    }
    finalize(t);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_coll_plan_t) plan =
        weft_coll_plan_new(WEFT_COLL_ALL_TO_ALL, WEFT_COLL_ALGO_DIRECT, 8, 8 * S, 1, &error);
    ck_assert_ptr_nonnull(plan);
    g_autoptr(weft_sim_t) s2 = weft_sim_new(1);
    g_autoptr(weft_net_t) n = flow_net(s, f, WEFT_NET_UPDATE_INCREMENTAL);
    ck_assert_int_eq(weft_coll_time(s, n, plan, gpu, &error), 160 * US + 4 * A);
    assert_checks_passed(n);
    /* the leaf -> spine edge (the first edge added) carried 16 x 1e6 B, busy 160 us */
    ck_assert_double_eq_tol(weft_net_link_stats(n, 0).bytes, 16e6, 1e-3);
    ck_assert_int_eq(weft_net_link_stats(n, 0).busy_ps, 160 * US);
    /* analytical: the endpoint bound, 7 x 1e6 B through each GPU's port to its leaf at B
     * (and 7 into each GPU from its leaf) = 140 us, + 4a for the last, crossing, transfer;
     * it does not see the spine (a link between switches), which flow finds at 160 us */
    g_autoptr(weft_net_t) an = weft_net_new(s2, f, WEFT_NET_ANALYTICAL);
    ck_assert_int_eq(weft_coll_time(s2, an, plan, gpu, &error), 140 * US + 4 * A);
}
END_TEST

/* ---- uncongested: exactly the analytical times ------------------------------------------- */

/* Ring all-reduce and all-gather of @bytes over every GPU of @path, in GPU order,
 * under both models; the flow model must give the same picoseconds. */
static void
assert_ring_same_as_analytical(const char *file, guint64 bytes)
{
    const char *src = g_getenv("WEFT_SRCDIR");
    if (src == NULL) {
        printf("ring on %s: skipped (WEFT_SRCDIR not set)\n", file);
        return;
    }
    g_autofree char *path = g_build_filename(src, "topologies", file, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_topo_t) t = weft_topo_load(path, &error);
    ck_assert_msg(t != NULL, "%s", error ? error->message : "");
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    guint n = weft_topo_n_gpus(t);
    g_autofree gint *mv = g_new(gint, n);
    for (guint i = 0; i < n; i++) {
        mv[i] = weft_topo_gpu_vertex(t, i);
    }
    weft_coll_op_t ops[] = {WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALL_GATHER, WEFT_COLL_REDUCE_SCATTER};
    for (guint o = 0; o < G_N_ELEMENTS(ops); o++) {
        g_autoptr(weft_coll_plan_t) plan =
            weft_coll_plan_new(ops[o], WEFT_COLL_ALGO_RING, n, bytes, 1, &error);
        weft_time_t t_an, t_flow;
        guint ne = weft_topo_n_edges(t);
        g_autofree weft_net_link_stats_t *st_an = g_new0(weft_net_link_stats_t, ne);
        g_autofree weft_net_link_stats_t *st_flow = g_new0(weft_net_link_stats_t, ne);
        {
            g_autoptr(weft_sim_t) s = weft_sim_new(1);
            g_autoptr(weft_net_t) an = weft_net_new(s, f, WEFT_NET_ANALYTICAL);
            t_an = weft_coll_time(s, an, plan, mv, &error);
            for (guint e = 0; e < ne; e++) {
                st_an[e] = weft_net_link_stats(an, (gint)e);
            }
        }
        {
            g_autoptr(weft_sim_t) s = weft_sim_new(1);
            g_autoptr(weft_net_t) fl = flow_net(s, f, WEFT_NET_UPDATE_INCREMENTAL);
            t_flow = weft_coll_time(s, fl, plan, mv, &error);
            assert_checks_passed(fl);
            for (guint e = 0; e < ne; e++) {
                st_flow[e] = weft_net_link_stats(fl, (gint)e);
            }
        }
        ck_assert_int_gt(t_an, 0);
        ck_assert_msg(t_flow == t_an, "%s %s on %s: flow %ld ps, analytical %ld ps", file,
                      weft_coll_op_name(ops[o]), file, (long)t_flow, (long)t_an);
        /* nothing shared: the same busy time on every link (the union of the bandwidth
         * phases, which start and end at the same picoseconds) and the same peak */
        for (guint e = 0; e < ne; e++) {
            ck_assert_int_eq(st_an[e].busy_ps, st_flow[e].busy_ps);
            ck_assert_double_eq_tol(st_an[e].peak_util, st_flow[e].peak_util, 1e-12);
        }
    }
}

START_TEST(ring_collectives_on_a_ring_match_analytical_exactly)
{
    /* ring-8.ini: member i sends to i+1 over its own link direction; nothing is
     * shared, so each transfer runs at the link rate 50 GiB/s as in the
     * analytical model. 1 MiB: 2 x 7 steps of 131072 B; the analytical value is
     * 14 (0.5 us + 2.44140625 us) = 41.1796875 us, rounded per transfer. */
    assert_ring_same_as_analytical("ring-8.ini", 1048576);
    assert_ring_same_as_analytical("ring-8.ini", 1000003); /* uneven pieces */
}
END_TEST

START_TEST(ring_collectives_on_dgx_h100_match_analytical_exactly)
{
    /* dgx-h100.ini, one node: GPU i -> i+1 is sprayed over the four NVSwitch
     * chips (shares 5/18, 4/18, 4/18, 5/18 of 450 GB/s); in a ring each GPU's
     * uplinks carry only its own send and its downlinks only its receive, so the
     * solved rate is 450e9 B/s up to rounding, snapped to the route's rate. */
    assert_ring_same_as_analytical("dgx-h100.ini", 1048576);
    assert_ring_same_as_analytical("dgx-h100.ini", 12345678);
}
END_TEST

/* ---- property tests ------------------------------------------------------------------------ */

typedef struct {
    gint src, dst;
    guint64 bytes;
    weft_time_t at;
} planned_t;

typedef struct {
    weft_net_t *net;
    log_t *log;
    const planned_t *p;
    guint64 tag;
    weft_time_t *started;
    guint64 *flow_id; /* the ECMP flow id: the pair's transfers so far (net.h) */
} start_ev_t;

static void
start_event(void *ctx, void *data)
{
    (void)ctx;
    start_ev_t *ev = data;
    ev->started[ev->tag] = weft_sim_now(ev->log->sim);
    ev->flow_id[ev->tag] = weft_net_next_flow_id(ev->net, ev->p->src, ev->p->dst);
    start(ev->net, ev->p->src, ev->p->dst, ev->p->bytes, ev->log, ev->tag);
}

typedef struct {
    weft_net_t *net;
    gint edge;
    double capacity;
} cap_ev_t;

static void
cap_event(void *ctx, void *data)
{
    (void)ctx;
    cap_ev_t *c = data;
    weft_net_set_link_capacity(c->net, c->edge, c->capacity);
}

/*
 * A random two-tier cluster: 2..4 leaves of 1..4 GPUs, 1..3 spines, every leaf
 * on every spine; bandwidths from {25, 50, 100, 400} GB/s and latencies
 * 0..1000 ns per link, so routes differ in rate and ECMP has choices.
 */
static weft_topo_t *
random_cluster(GRand *r)
{
    weft_topo_t *t = weft_topo_new("random");
    const double bws[] = {25e9, 50e9, 100e9, 400e9};
    guint n_leaves = (guint)g_rand_int_range(r, 2, 5), n_spines = (guint)g_rand_int_range(r, 1, 4);
    gint spines[3];
    for (guint sp = 0; sp < n_spines; sp++) {
        g_autofree char *name = g_strdup_printf("spine%u", sp);
        spines[sp] = add_vertex(t, WEFT_VERTEX_SWITCH, name);
    }
    guint g = 0;
    for (guint l = 0; l < n_leaves; l++) {
        g_autofree char *name = g_strdup_printf("leaf%u", l);
        gint leaf = add_vertex(t, WEFT_VERTEX_SWITCH, name);
        for (guint sp = 0; sp < n_spines; sp++) {
            add_link(t, leaf, spines[sp], bws[g_rand_int_range(r, 0, 4)],
                     (weft_time_t)g_rand_int_range(r, 0, 1001) * WEFT_PS_PER_NS);
        }
        guint n_gpus = (guint)g_rand_int_range(r, 1, 5);
        for (guint i = 0; i < n_gpus; i++) {
            g_autofree char *gname = g_strdup_printf("gpu%u", g++);
            gint v = add_vertex(t, WEFT_VERTEX_GPU, gname);
            add_link(t, v, leaf, bws[g_rand_int_range(r, 0, 4)],
                     (weft_time_t)g_rand_int_range(r, 0, 1001) * WEFT_PS_PER_NS);
        }
    }
    finalize(t);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    return t;
}

/* Runs @plan on @t under @update (with capacity changes @caps); fills @log and @started. */
static void
run_random(weft_fabric_t *f, weft_net_update_t update, const planned_t *plan, guint n,
           const cap_ev_t *caps, guint n_caps, log_t *log, weft_time_t *started, guint64 *flow_id)
{
    const weft_topo_t *t = weft_fabric_topo(f);
    g_autoptr(weft_sim_t) s = weft_sim_new(1);
    g_autoptr(weft_net_t) n_ = flow_net(s, f, update);
    log_init(log, s);
    g_autofree start_ev_t *evs = g_new(start_ev_t, n);
    g_autofree cap_ev_t *cevs = g_new(cap_ev_t, n_caps + 1);
    for (guint i = 0; i < n; i++) {
        evs[i] = (start_ev_t){n_, log, &plan[i], i, started, flow_id};
        weft_sim_at(s, plan[i].at, start_event, NULL, &evs[i]);
    }
    for (guint i = 0; i < n_caps; i++) {
        cevs[i] = caps[i];
        cevs[i].net = n_;
        weft_sim_at(s, (weft_time_t)(i + 1) * 7 * US, cap_event, NULL, &cevs[i]);
    }
    weft_sim_run(s);
    assert_checks_passed(n_);
    const weft_net_stats_t *st = weft_net_stats(n_);
    ck_assert_uint_eq(st->transfers_done, n);
    ck_assert_uint_eq(st->bytes_delivered, st->bytes_sent);
    ck_assert_uint_eq(weft_net_in_flight(n_), 0);
    /* no link above capacity at any solve; link bytes = sum of bytes x hops */
    double link_bytes = 0.0, expected = 0.0;
    for (guint e = 0; e < weft_topo_n_edges(t); e++) {
        weft_net_link_stats_t ls = weft_net_link_stats(n_, (gint)e);
        ck_assert_double_le(ls.peak_util, 1.0 + 1e-9);
        ck_assert_uint_eq(ls.n_transfers, 0);
        link_bytes += ls.bytes;
    }
    for (guint i = 0; i < n; i++) {
        if (plan[i].src != plan[i].dst) {
            const weft_route_t *r =
                weft_fabric_route_ecmp(f, plan[i].src, plan[i].dst, flow_id[i], NULL);
            for (guint p = 0; p < r->n_paths; p++) {
                expected += (double)plan[i].bytes * r->share[p] *
                            (double)(r->path_off[p + 1] - r->path_off[p]);
            }
        }
    }
    ck_assert_double_eq_tol(link_bytes, expected, 1e-9 * expected + 1e-6);
}

START_TEST(random_transfers_keep_the_invariants_and_modes_agree)
{
    GRand *r = g_rand_new_with_seed(1000 + (guint32)_i);
    g_autoptr(weft_topo_t) t = random_cluster(r);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    guint n_gpus = weft_topo_n_gpus(t);
    guint n = (guint)g_rand_int_range(r, 5, 200);
    g_autofree planned_t *plan = g_new(planned_t, n);
    for (guint i = 0; i < n; i++) {
        plan[i].src = weft_topo_gpu_vertex(t, (guint)g_rand_int_range(r, 0, (gint32)n_gpus));
        plan[i].dst = weft_topo_gpu_vertex(t, (guint)g_rand_int_range(r, 0, (gint32)n_gpus));
        /* sizes 0 .. 2 MB, often equal so that ends coincide; starts on a 1 us grid */
        plan[i].bytes = g_rand_boolean(r) ? (guint64)g_rand_int_range(r, 0, 2000001) : S;
        plan[i].at = (weft_time_t)g_rand_int_range(r, 0, 50) * US;
    }
    /* Three capacity changes at 7, 14, 21 us: halve, zero, restore random edges. */
    guint n_edges = weft_topo_n_edges(t);
    cap_ev_t caps[3];
    for (guint i = 0; i < 3; i++) {
        gint e = g_rand_int_range(r, 0, (gint32)n_edges);
        double bw = weft_topo_edge_bw(t, e);
        caps[i] = (cap_ev_t){NULL, e, i == 0 ? bw / 2 : (i == 1 ? 0.0 : bw)};
    }
    caps[2].edge = caps[1].edge; /* the zeroed edge comes back, at its own bandwidth */
    caps[2].capacity = weft_topo_edge_bw(t, caps[2].edge);
    g_rand_free(r);

    g_autofree log_t *inc = g_new(log_t, 1);
    g_autofree log_t *full = g_new(log_t, 1);
    g_autofree weft_time_t *started = g_new(weft_time_t, n);
    g_autofree guint64 *flow_id = g_new(guint64, n);
    run_random(f, WEFT_NET_UPDATE_INCREMENTAL, plan, n, caps, 3, inc, started, flow_id);
    run_random(f, WEFT_NET_UPDATE_FULL, plan, n, caps, 3, full, started, flow_id);
    for (guint i = 0; i < n; i++) {
        /* incremental == full, picosecond for picosecond */
        ck_assert_int_eq(inc->at[i], full->at[i]);
        /* never faster than alone on its route over an idle network, L + S / B
         * (1 ps of rounding allowed) */
        weft_time_t alone = 0;
        if (plan[i].src != plan[i].dst) {
            const weft_route_t *rt =
                weft_fabric_route_ecmp(f, plan[i].src, plan[i].dst, flow_id[i], NULL);
            alone = rt->latency_ps + weft_time_for_bytes(plan[i].bytes, rt->rate_Bps);
        }
        ck_assert_int_ge(inc->at[i] - started[i], alone - 1);
    }
}
END_TEST

static void
count_done(void *ctx, guint64 tag)
{
    (void)tag;
    (*(guint *)ctx)++;
}

START_TEST(flow_ids_count_each_pair_apart_as_the_table_grows)
{
    /* Two leaves of 40 GPUs under two spines: every cross-leaf route has an ECMP
     * choice, so every transfer between two GPUs on different leaves is numbered
     * within its own pair. 40 x 40 x 2 = 3,200 pairs, each started 1 + (i + j) % 3
     * times (the table starts at 1,024 slots, half full at most: it doubles
     * three times); the next flow id of a pair is then its own count, 0 for a pair
     * never used (same leaf: a fixed route, no count), under both models. */
    enum { N = 40 };
    g_autoptr(weft_topo_t) t = weft_topo_new("leaf-spine-40");
    gint leaf[2], spine[2], gpu[2][N];
    for (guint i = 0; i < 2; i++) {
        g_autofree char *ln = g_strdup_printf("leaf%u", i);
        g_autofree char *sn = g_strdup_printf("spine%u", i);
        leaf[i] = add_vertex(t, WEFT_VERTEX_SWITCH, ln);
        spine[i] = add_vertex(t, WEFT_VERTEX_SWITCH, sn);
    }
    for (guint l = 0; l < 2; l++) {
        for (guint i = 0; i < N; i++) {
            g_autofree char *gn = g_strdup_printf("gpu%u.%u", l, i);
            gpu[l][i] = add_vertex(t, WEFT_VERTEX_GPU, gn);
            add_link(t, gpu[l][i], leaf[l], 100e9, A);
        }
        for (guint sp = 0; sp < 2; sp++) {
            add_link(t, leaf[l], spine[sp], B, A);
        }
    }
    finalize(t);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    for (int m = 0; m < 2; m++) {
        g_autoptr(weft_sim_t) s = weft_sim_new(1);
        g_autoptr(weft_net_t) n = weft_net_new(s, f, m == 0 ? WEFT_NET_FLOW : WEFT_NET_ANALYTICAL);
        guint done = 0, started = 0;
        for (guint l = 0; l < 2; l++) {
            for (guint i = 0; i < N; i++) {
                for (guint j = 0; j < N; j++) {
                    gint src = gpu[l][i], dst = gpu[1 - l][j];
                    for (guint k = 0; k < 1 + (i + j) % 3; k++) {
                        ck_assert_uint_eq(weft_net_next_flow_id(n, src, dst), k);
                        ck_assert(weft_net_transfer_start(n, src, dst, 1000, count_done, &done,
                                                          started++, NULL));
                    }
                }
            }
        }
        for (guint l = 0; l < 2; l++) {
            for (guint i = 0; i < N; i++) {
                for (guint j = 0; j < N; j++) {
                    ck_assert_uint_eq(weft_net_next_flow_id(n, gpu[l][i], gpu[1 - l][j]),
                                      1 + (i + j) % 3);
                    ck_assert_uint_eq(weft_net_next_flow_id(n, gpu[l][i], gpu[l][j]), 0);
                }
            }
        }
        weft_sim_run(s);
        ck_assert_uint_eq(done, started);
    }
}
END_TEST

static Suite *
flow_suite(void)
{
    Suite *s = suite_create("flow");
    TCase *tc = tcase_create("pair");
    tcase_add_checked_fixture(tc, setup_pair, teardown_pair);
    tcase_add_test(tc, names_of_models_and_update_modes);
    tcase_add_test(tc, lone_transfer_takes_the_analytical_time);
    tcase_add_test(tc, zero_bytes_and_local_copies_have_no_bandwidth_phase);
    tcase_add_test(tc, two_transfers_on_one_link_each_get_half);
    tcase_add_test(tc, two_equal_transfers_end_together_in_two_solves);
    tcase_add_test(tc, link_statistics_and_timeseries);
    tcase_add_test(tc, busy_time_counts_up_to_now_while_busy);
    tcase_add_test(tc, analytical_link_statistics_of_queued_transfers);
    tcase_add_test(tc, cancel_frees_the_bandwidth_and_counts_sent_bytes);
    tcase_add_test(tc, free_with_transfers_in_flight_leaves_no_events);
    tcase_add_test(tc, rate_cap_bounds_a_transfer_and_leaves_the_rest);
    tcase_add_test(tc, capacity_changes_reschedule_the_end);
    tcase_add_test(tc, a_link_down_stalls_transfers_until_it_comes_back);
    suite_add_tcase(s, tc);

    TCase *hand = tcase_create("hand-derived");
    tcase_add_test(hand, zero_latency_callbacks_start_transfers_in_the_same_instant);
    tcase_add_test(hand, parking_lot_gives_textbook_max_min_rates);
    tcase_add_test(hand, incast_through_a_switch_shares_the_receiver_link);
    tcase_add_test(hand, ecmp_collision_halves_the_spine_link);
    tcase_add_test(hand, flow_ids_count_each_pair_apart_as_the_table_grows);
    tcase_add_test(hand, all_to_all_on_oversubscribed_spine_takes_the_spine_time);
    tcase_add_test(hand, ring_collectives_on_a_ring_match_analytical_exactly);
    tcase_add_test(hand, ring_collectives_on_dgx_h100_match_analytical_exactly);
    suite_add_tcase(s, hand);

    TCase *prop = tcase_create("properties");
    tcase_add_loop_test(prop, random_transfers_keep_the_invariants_and_modes_agree, 0, 40);
    suite_add_tcase(s, prop);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(flow_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
