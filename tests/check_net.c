/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the network module: the analytical model's transfer times on
 * tiny clusters (two GPUs on one link; two GPUs through a switch), its endpoint
 * ports (transfers that oversubscribe a port go one after another, those that fit
 * run side by side), local copies, byte accounting, cancellation, the record pool
 * under re-entrant starts, and error codes; and, on every bundled cluster, that
 * neither model gives a collective less time than its members' ports need.
 *
 * Numbers used throughout: 50 GB/s = 50e9 B/s, so one byte takes
 * 1e12 / 50e9 = 20 ps exactly; 1 MB = 1e6 bytes takes 2e7 ps = 20 us.
 */
#include "net/net.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "coll/coll.h"

#define RATE_50GBPS 50e9
#define LAT_500NS ((weft_time_t)500 * WEFT_PS_PER_NS)

/* ---- fixture: 2 GPUs on one 50 GB/s, 500 ns link ------------------------------ */

static weft_sim_t *sim;
static weft_topo_t *topo;
static weft_fabric_t *fabric;
static weft_net_t *net;
static gint gpu0, gpu1, lonely;

static void
setup_pair(void)
{
    GError *error = NULL;
    sim = weft_sim_new(1);
    topo = weft_topo_new("pair");
    gpu0 = weft_topo_add_vertex(topo, WEFT_VERTEX_GPU, "gpu0", 0, 0, &error);
    gpu1 = weft_topo_add_vertex(topo, WEFT_VERTEX_GPU, "gpu1", 0, 1, &error);
    /* A host with no links: nothing can reach it. */
    lonely = weft_topo_add_vertex(topo, WEFT_VERTEX_HOST, "lonely", 1, -1, &error);
    ck_assert_int_ge(
        weft_topo_add_link(topo, gpu0, gpu1, WEFT_LINK_NVLINK, RATE_50GBPS, LAT_500NS, 1, &error),
        0);
    ck_assert_msg(weft_topo_finalize(topo, &error), "%s", error ? error->message : "");
    fabric = weft_fabric_new(topo);
    net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
}

static void
teardown_pair(void)
{
    weft_net_free(net);
    weft_fabric_free(fabric);
    weft_topo_free(topo);
    weft_sim_free(sim);
}

/* Records each completion: the time it came and its tag. */
typedef struct {
    guint n;
    weft_time_t at[16];
    guint64 tag[16];
} log_t;

static void
on_done(void *ctx, guint64 tag)
{
    log_t *log = ctx;
    ck_assert_uint_lt(log->n, 16);
    log->at[log->n] = weft_sim_now(sim);
    log->tag[log->n] = tag;
    log->n++;
}

/* ---- model names ------------------------------------------------------------------ */

START_TEST(model_names_parse_and_unknown_is_an_error)
{
    weft_net_model_t m = (weft_net_model_t)99;
    GError *error = NULL;
    ck_assert(weft_net_model_from_name("analytical", &m, &error));
    ck_assert_int_eq(m, WEFT_NET_ANALYTICAL);
    ck_assert_str_eq(weft_net_model_name(WEFT_NET_ANALYTICAL), "analytical");
    ck_assert(!weft_net_model_from_name("packet", &m, &error));
    ck_assert(g_error_matches(error, WEFT_NET_ERROR, WEFT_NET_ERROR_MODEL));
    g_clear_error(&error);
}
END_TEST

/* ---- analytical times ---------------------------------------------------------------- */

START_TEST(one_megabyte_takes_latency_plus_size_over_rate)
{
    log_t log = {0};
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 1000000, on_done, &log, 42, NULL));
    ck_assert_uint_eq(log.n, 0); /* never synchronous */
    weft_sim_run(sim);
    ck_assert_uint_eq(log.n, 1);
    /* 500 ns + 1e6 B * 20 ps/B = 500000 + 20000000 = 20500000 ps */
    ck_assert_int_eq(log.at[0], 20500000);
    ck_assert_uint_eq(log.tag[0], 42);
    /* The idle-network query agrees, in both directions (full duplex, same link). */
    ck_assert_int_eq(weft_net_transfer_time(net, gpu0, gpu1, 1000000, NULL), 20500000);
    ck_assert_int_eq(weft_net_transfer_time(net, gpu1, gpu0, 1000000, NULL), 20500000);
}
END_TEST

START_TEST(zero_bytes_take_the_latency)
{
    log_t log = {0};
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 0, on_done, &log, 1, NULL));
    weft_sim_run(sim);
    ck_assert_uint_eq(log.n, 1);
    ck_assert_int_eq(log.at[0], 500000); /* 500 ns, nothing to serialize */
}
END_TEST

START_TEST(self_transfer_is_free_but_goes_through_the_event_loop)
{
    log_t log = {0};
    ck_assert(weft_net_transfer_start(net, gpu1, gpu1, 1000000, on_done, &log, 7, NULL));
    ck_assert_uint_eq(log.n, 0);                 /* not called from inside start */
    ck_assert_uint_eq(weft_sim_pending(sim), 1); /* but queued */
    weft_sim_run(sim);
    ck_assert_uint_eq(log.n, 1);
    ck_assert_int_eq(log.at[0], 0); /* a local copy costs 0 at this level */
    ck_assert_int_eq(weft_net_transfer_time(net, gpu1, gpu1, 1000000, NULL), 0);
}
END_TEST

START_TEST(concurrent_transfers_on_one_port_go_one_after_another)
{
    /* gpu0 -> gpu1 is a port (both ends are GPUs): the second of two transfers started
     * together queues behind the first, which is served over [0, 20 us); the second over
     * [20, 40 us): 20.5 us and 40.5 us (flow: 40.5 us both; the same makespan). */
    log_t log = {0};
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 1000000, on_done, &log, 1, NULL));
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 1000000, on_done, &log, 2, NULL));
    ck_assert_uint_eq(weft_net_in_flight(net), 2);
    weft_sim_run(sim);
    ck_assert_uint_eq(log.n, 2);
    ck_assert_int_eq(log.at[0], 20500000);
    ck_assert_int_eq(log.at[1], 40500000);
    ck_assert_uint_eq(log.tag[0], 1);
    ck_assert_uint_eq(log.tag[1], 2);
    ck_assert_uint_eq(weft_net_in_flight(net), 0);
}
END_TEST

START_TEST(congestion_none_times_every_transfer_alone)
{
    /* The same two transfers as above under network.congestion = none (ASTRA-sim's
     * congestion-unaware backend): both end at 0.5 + 20 = 20.5 us, the link carrying twice
     * its capacity meanwhile; the default keeps them one after another (above). */
    weft_net_options_t opts = {.model = WEFT_NET_ANALYTICAL,
                               .congestion = WEFT_NET_CONGESTION_NONE};
    weft_net_t *unaware = weft_net_new_full(sim, fabric, &opts);
    log_t log = {0};
    ck_assert(weft_net_transfer_start(unaware, gpu0, gpu1, 1000000, on_done, &log, 1, NULL));
    ck_assert(weft_net_transfer_start(unaware, gpu0, gpu1, 1000000, on_done, &log, 2, NULL));
    weft_sim_run(sim);
    ck_assert_uint_eq(log.n, 2);
    ck_assert_int_eq(log.at[0], 20500000);
    ck_assert_int_eq(log.at[1], 20500000);
    weft_net_free(unaware);
    /* the key's names */
    gint v = -1;
    ck_assert(weft_enum_from_name(&weft_net_congestion_enum, "none", &v, NULL));
    ck_assert_int_eq(v, WEFT_NET_CONGESTION_NONE);
    ck_assert(!weft_enum_from_name(&weft_net_congestion_enum, "unaware", &v, NULL));
}
END_TEST

START_TEST(a_later_start_ends_later_by_its_start_offset)
{
    /* One transfer at 0 and one started from the first's callback at 20500000:
     * the second ends at 2 x 20500000 = 41000000 ps. */
    log_t log = {0};
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 1000000, on_done, &log, 1, NULL));
    weft_sim_run(sim);
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 1000000, on_done, &log, 2, NULL));
    weft_sim_run(sim);
    ck_assert_uint_eq(log.n, 2);
    ck_assert_int_eq(log.at[1], 41000000);
}
END_TEST

/* ---- byte accounting --------------------------------------------------------------------- */

START_TEST(bytes_sent_equal_bytes_delivered)
{
    log_t log = {0};
    guint64 sizes[] = {0, 1, 999, 1000000, 123456789};
    guint64 total = 0; /* 0 + 1 + 999 + 1000000 + 123456789 = 124457789 */
    for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
        ck_assert(weft_net_transfer_start(net, i % 2 ? gpu0 : gpu1, i % 2 ? gpu1 : gpu0, sizes[i],
                                          on_done, &log, i, NULL));
        total += sizes[i];
    }
    const weft_net_stats_t *st = weft_net_stats(net);
    ck_assert_uint_eq(st->transfers_started, 5);
    ck_assert_uint_eq(st->bytes_sent, 124457789);
    ck_assert_uint_eq(st->bytes_delivered, 0); /* nothing arrived yet */
    weft_sim_run(sim);
    ck_assert_uint_eq(st->transfers_done, 5);
    ck_assert_uint_eq(st->bytes_delivered, total);
    ck_assert_uint_eq(st->bytes_sent, st->bytes_delivered);
    ck_assert_uint_eq(st->transfers_cancelled, 0);
}
END_TEST

/* ---- cancel and free -------------------------------------------------------------------- */

START_TEST(cancel_by_ctx_drops_only_that_ctx)
{
    log_t a = {0}, b = {0};
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 100, on_done, &a, 1, NULL));
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 200, on_done, &b, 2, NULL));
    ck_assert(weft_net_transfer_start(net, gpu1, gpu0, 300, on_done, &a, 3, NULL));
    ck_assert_uint_eq(weft_net_transfer_cancel_ctx(net, &a), 2);
    ck_assert_uint_eq(weft_net_transfer_cancel_ctx(net, &a), 0); /* nothing left */
    ck_assert_uint_eq(weft_sim_pending(sim), 1);
    weft_sim_run(sim);
    ck_assert_uint_eq(a.n, 0);
    ck_assert_uint_eq(b.n, 1);
    /* b's 200 B queued behind a's 100 B at gpu0's port; a's bytes stay queued when it is
     * cancelled (net.h): 500 ns + 300 B x 20 ps */
    ck_assert_int_eq(b.at[0], 500000 + 300 * 20); /* 506000 ps */
    const weft_net_stats_t *st = weft_net_stats(net);
    ck_assert_uint_eq(st->transfers_cancelled, 2);
    ck_assert_uint_eq(st->bytes_cancelled, 400);                  /* 100 + 300 */
    ck_assert_uint_eq(st->bytes_sent, st->bytes_delivered + 400); /* 600 = 200 + 400 */
}
END_TEST

START_TEST(free_with_pending_transfers_leaves_no_events)
{
    log_t log = {0};
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 100, on_done, &log, 1, NULL));
    ck_assert(weft_net_transfer_start(net, gpu0, gpu0, 100, on_done, &log, 2, NULL));
    ck_assert_uint_eq(weft_sim_pending(sim), 2);
    weft_net_free(net);
    net = NULL;
    ck_assert_uint_eq(weft_sim_pending(sim), 0);
    weft_sim_run(sim);
    ck_assert_uint_eq(log.n, 0);
}
END_TEST

/* ---- link statistics: busy time and peak utilization --------------------------------- */

/* Edge 0 is gpu0 -> gpu1 (weft_topo_add_link() adds the two directions in that order). */

/* Statistics of edge 0 at the instants of the events that call probe(). */
typedef struct {
    guint n;
    weft_net_link_stats_t at[8];
} probes_t;

static void
probe(void *ctx, void *data)
{
    (void)data;
    probes_t *p = ctx;
    ck_assert_uint_lt(p->n, 8);
    p->at[p->n++] = weft_net_link_stats(net, 0);
}

/* Starts 1e6 B gpu0 -> gpu1 when transfer 1 arrives. */
static void
on_done_then_start(void *ctx, guint64 tag)
{
    on_done(ctx, tag);
    if (tag == 1) {
        ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 1000000, on_done, ctx, 3, NULL));
    }
}

START_TEST(busy_time_is_the_union_of_bandwidth_phases)
{
    /*
     * At 20 ps/B: transfer 1, 1e6 B from 0, sends over [0, 20 us) and arrives at 20.5 us;
     * transfer 2, 5e5 B from 0, sends over [0, 10 us) on the reverse edge, gpu1 -> gpu0;
     * transfer 3, 1e6 B started when 1 arrives, sends over [20.5 us, 40.5 us) and arrives
     * at 41 us. Busy (usage > 0, as flow counts it) on gpu0 -> gpu1 is the union:
     * [0, 20) + [20.5, 40.5) = 40 us; the latency between is idle. Peak: one transfer at a
     * time at 50 GB/s, 1. Mean: 2e6 B / (50e9 B/s x 41e-6 s) = 2e6 / 2.05e6.
     */
    log_t log = {0};
    probes_t pr = {0};
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 1000000, on_done_then_start, &log, 1, NULL));
    ck_assert(weft_net_transfer_start(net, gpu1, gpu0, 500000, on_done, &log, 2, NULL));
    weft_sim_at(sim, 5 * WEFT_PS_PER_US, probe, &pr, NULL);     /* both sending */
    weft_sim_at(sim, 15 * WEFT_PS_PER_US, probe, &pr, NULL);    /* 2 is done, 1 sends */
    weft_sim_at(sim, 20250 * WEFT_PS_PER_NS, probe, &pr, NULL); /* in 1's latency */
    weft_sim_at(sim, 30 * WEFT_PS_PER_US, probe, &pr, NULL);    /* 3 sends */
    weft_sim_run(sim);
    ck_assert_uint_eq(log.n, 3);
    ck_assert_int_eq(log.at[2], 41 * WEFT_PS_PER_US);
    ck_assert_int_eq(pr.at[0].busy_ps, 5 * WEFT_PS_PER_US);
    ck_assert_int_eq(pr.at[1].busy_ps, 15 * WEFT_PS_PER_US);
    ck_assert_int_eq(pr.at[2].busy_ps, 20 * WEFT_PS_PER_US);
    ck_assert_int_eq(pr.at[3].busy_ps, 20 * WEFT_PS_PER_US + 9500 * WEFT_PS_PER_NS); /* 29.5 */
    ck_assert_double_eq(pr.at[0].peak_util, 1.0);
    weft_net_link_stats_t st = weft_net_link_stats(net, 0);
    ck_assert_int_eq(st.busy_ps, 40 * WEFT_PS_PER_US);
    ck_assert_double_eq(st.peak_util, 1.0);
    ck_assert_double_eq_tol(st.mean_util, 2e6 / 2.05e6, 1e-12);
    /* the other direction carried transfer 2 alone: [0, 10 us) at its capacity */
    ck_assert_int_eq(weft_net_link_stats(net, 1).busy_ps, 10 * WEFT_PS_PER_US);
    ck_assert_double_eq(weft_net_link_stats(net, 1).peak_util, 1.0);
}
END_TEST

/* At 8 us: cancels the transfers of ctx @data's log and starts 1e5 B on edge 0. */
static void
cancel_then_start(void *ctx, void *data)
{
    ck_assert_uint_eq(weft_net_transfer_cancel_ctx(net, data), 1);
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 100000, on_done, ctx, 4, NULL));
}

START_TEST(a_cancelled_transfer_is_busy_until_cancelled)
{
    /*
     * Transfer 1 (ctx a), 1e6 B from 0, would send until 20 us; transfer 2 (ctx b),
     * 2.5e5 B from 0, queues behind it at gpu0's port: served over [20, 25 us), so its
     * phase is [0, 25 us) at 2.5e5 B / 25 us = 10 GB/s, and it arrives at 25.5 us. At 8 us,
     * 1 is cancelled (its phase ends; its bytes stay in the port's queue, net.h) and 4
     * (ctx b), 1e5 B, queues behind them: served over [25, 27 us), arrives at 27.5 us.
     * Busy: [0, 8) u [0, 25) u [8, 27) = 27 us (not the 20 us 1 would have sent plus the
     * others). Peak at 0: (50 + 10) / 50 = 1.2.
     */
    log_t a = {0}, b = {0};
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 1000000, on_done, &a, 1, NULL));
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 250000, on_done, &b, 2, NULL));
    weft_sim_at(sim, 8 * WEFT_PS_PER_US, cancel_then_start, &b, &a);
    weft_sim_run(sim);
    ck_assert_uint_eq(a.n, 0);
    ck_assert_uint_eq(b.n, 2);
    ck_assert_int_eq(b.at[0], 25500 * WEFT_PS_PER_NS);
    ck_assert_int_eq(b.at[1], 27500 * WEFT_PS_PER_NS);
    ck_assert_int_eq(weft_net_link_stats(net, 0).busy_ps, 27 * WEFT_PS_PER_US);
    ck_assert_double_eq_tol(weft_net_link_stats(net, 0).peak_util, 1.2, 1e-12);
}
END_TEST

/* At 5 us: gpu0 -> gpu1 at half its bandwidth. */
static void
degrade_edge0(void *ctx, void *data)
{
    (void)ctx;
    (void)data;
    ck_assert(weft_net_set_link_fraction(net, 0, 0.5, NULL));
}

/* At 6 us: records edge 0's statistics in @ctx, then starts 1e5 B on it (log @data). */
static void
probe_then_start(void *ctx, void *data)
{
    probe(ctx, NULL);
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 100000, on_done, data, 2, NULL));
}

START_TEST(a_transfer_keeps_its_rate_on_a_link_degraded_under_it)
{
    /*
     * 1e6 B from 0 at 50 GB/s: sends over [0, 20 us) whatever happens to the link (the
     * analytical model fixes a rate at the start, and its port time with it). The link
     * goes to 25 GB/s at 5 us: its usage, 50 GB/s, is then 2 x its capacity. A transfer of
     * 1e5 B started at 6 us gets the degraded route's 25 GB/s, which fills the degraded
     * port: its 4 us are served after the first's bytes, over [20, 24 us); it arrives at
     * 24.5 us, and its phase [6, 24 us) is at 1e5 B / 18 us. Peak at 6 us:
     * (50 + 1e5 / 18e-6 / 1e9) / 25 = 2.2222. Busy: 24 us.
     */
    log_t log = {0};
    probes_t pr = {0};
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 1000000, on_done, &log, 1, NULL));
    weft_sim_at(sim, 5 * WEFT_PS_PER_US, degrade_edge0, NULL, NULL);
    weft_sim_at(sim, 6 * WEFT_PS_PER_US, probe_then_start, &pr, &log);
    weft_sim_run(sim);
    ck_assert_double_eq(pr.at[0].peak_util, 2.0);
    ck_assert_int_eq(log.at[0], 20500 * WEFT_PS_PER_NS);
    ck_assert_int_eq(log.at[1], 24500 * WEFT_PS_PER_NS);
    ck_assert_double_eq_tol(weft_net_link_stats(net, 0).peak_util,
                            (50e9 + 1e5 / 18e-6) / 25e9, 1e-12);
    ck_assert_int_eq(weft_net_link_stats(net, 0).busy_ps, 24 * WEFT_PS_PER_US);
}
END_TEST

/* ---- the record pool under re-entrant starts ------------------------------------------- */

typedef struct {
    weft_net_t *net;
    guint left;
    guint finished;
} chain_t;

/* Each completion starts the next transfer (and a self copy), reusing freed records. */
static void
on_chain(void *ctx, guint64 tag)
{
    chain_t *ch = ctx;
    ch->finished++;
    if (tag == 1 && ch->left > 0) {
        ch->left--;
        ck_assert(weft_net_transfer_start(ch->net, gpu0, gpu1, 1000000, on_chain, ch, 1, NULL));
        ck_assert(weft_net_transfer_start(ch->net, gpu1, gpu1, 5, on_chain, ch, 2, NULL));
    }
}

START_TEST(callbacks_may_start_transfers)
{
    chain_t ch = {.net = net, .left = 999, .finished = 0};
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 1000000, on_chain, &ch, 1, NULL));
    weft_sim_run(sim);
    /* 1000 link transfers back to back, 20500000 ps each: 20500000000 ps; plus
     * 999 free self copies: 1999 completions in all. */
    ck_assert_uint_eq(ch.finished, 1999);
    ck_assert_int_eq(weft_sim_now(sim), (weft_time_t)20500000 * 1000);
    ck_assert_uint_eq(weft_net_in_flight(net), 0);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------------- */

START_TEST(unreachable_vertex_is_no_route)
{
    log_t log = {0};
    GError *error = NULL;
    ck_assert(!weft_net_transfer_start(net, gpu0, lonely, 10, on_done, &log, 1, &error));
    ck_assert(g_error_matches(error, WEFT_NET_ERROR, WEFT_NET_ERROR_NO_ROUTE));
    g_clear_error(&error);
    ck_assert_int_eq(weft_net_transfer_time(net, lonely, gpu1, 10, &error), -1);
    ck_assert(g_error_matches(error, WEFT_NET_ERROR, WEFT_NET_ERROR_NO_ROUTE));
    g_clear_error(&error);
    /* A failed start leaves no trace. */
    ck_assert_uint_eq(weft_net_stats(net)->transfers_started, 0);
    ck_assert_uint_eq(weft_sim_pending(sim), 0);
}
END_TEST

START_TEST(accessors_return_what_was_given)
{
    ck_assert_ptr_eq(weft_net_sim(net), sim);
    ck_assert_ptr_eq(weft_net_topo(net), topo);
    ck_assert_ptr_eq(weft_net_fabric(net), fabric);
}
END_TEST

/* ---- two hops through a switch: the bottleneck rate and summed latency --------------------- */

START_TEST(two_hop_route_uses_bottleneck_and_summed_latency)
{
    GError *error = NULL;
    g_autoptr(weft_sim_t) s2 = weft_sim_new(1);
    g_autoptr(weft_topo_t) t2 = weft_topo_new("star");
    gint a = weft_topo_add_vertex(t2, WEFT_VERTEX_GPU, "a", 0, 0, &error);
    gint b = weft_topo_add_vertex(t2, WEFT_VERTEX_GPU, "b", 1, 0, &error);
    gint sw = weft_topo_add_vertex(t2, WEFT_VERTEX_SWITCH, "sw", -1, -1, &error);
    weft_topo_add_link(t2, a, sw, WEFT_LINK_INFINIBAND, 100e9, 200 * WEFT_PS_PER_NS, 1, &error);
    weft_topo_add_link(t2, sw, b, WEFT_LINK_INFINIBAND, 25e9, 300 * WEFT_PS_PER_NS, 1, &error);
    ck_assert_msg(weft_topo_finalize(t2, &error), "%s", error ? error->message : "");
    g_autoptr(weft_fabric_t) f2 = weft_fabric_new(t2);
    g_autoptr(weft_net_t) n2 = weft_net_new(s2, f2, WEFT_NET_ANALYTICAL);
    /* latency 200 + 300 = 500 ns; bottleneck 25 GB/s = 40 ps/B; 1e6 B -> 4e7 ps;
     * total 500000 + 40000000 = 40500000 ps */
    ck_assert_int_eq(weft_net_transfer_time(n2, a, b, 1000000, NULL), 40500000);
}
END_TEST

/* ---- endpoint ports: hand-derived cases on a switch ----------------------------------- */

/* A switch joining @n GPUs, each by a 50 GB/s, 500 ns link: every route is 2 hops, a = 1 us,
 * 20 ps/B, and every GPU's link is its port both ways. */
static weft_topo_t *
star(guint n, gint *gpu)
{
    GError *error = NULL;
    weft_topo_t *t = weft_topo_new("star");
    gint sw = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "sw", -1, -1, &error);
    for (guint i = 0; i < n; i++) {
        g_autofree char *name = g_strdup_printf("gpu%u", i);
        gpu[i] = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, name, (gint)i, 0, &error);
        ck_assert_int_ge(
            weft_topo_add_link(t, gpu[i], sw, WEFT_LINK_ETHERNET, RATE_50GBPS, LAT_500NS, 1, &error),
            0);
    }
    ck_assert_msg(weft_topo_finalize(t, &error), "%s", error ? error->message : "");
    return t;
}

/* Starts the transfers (@src[i] -> @dst[i], 1e6 B, payload cap @cap[i] or none) at 0 under
 * @model on @t and logs their completions. */
static void
run_star(weft_topo_t *t, weft_net_model_t model, guint n, const gint *src, const gint *dst,
         const double *cap, log_t *log)
{
    g_autoptr(weft_sim_t) s = weft_sim_new(1);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    g_autoptr(weft_net_t) nt = weft_net_new(s, f, model);
    sim = s; /* on_done() stamps with the global simulation */
    for (guint i = 0; i < n; i++) {
        ck_assert(weft_net_transfer_start_capped(nt, src[i], dst[i], 1000000,
                                                 cap != NULL ? cap[i] : INFINITY, on_done, log,
                                                 i, NULL));
    }
    weft_sim_run(s);
    sim = NULL;
    ck_assert_uint_eq(log->n, n);
}

START_TEST(two_transfers_from_one_gpu_share_its_egress_port)
{
    /* gpu0 sends 1e6 B to gpu1 and 1e6 B to gpu2 at 0. Alone each takes 2a + S/B = 1 + 20 =
     * 21 us; gpu0's port to the switch carries both, 2 S at B = 40 us, so the last ends at
     * 2a + 2 S/B = 41 us: twice the bandwidth time. Analytical serves them one after the
     * other (21 and 41 us), flow shares the port (41 us both). */
    gint g[3];
    g_autoptr(weft_topo_t) t = star(3, g);
    const gint src[] = {g[0], g[0]}, dst[] = {g[1], g[2]};
    log_t an = {0}, fl = {0};
    run_star(t, WEFT_NET_ANALYTICAL, 2, src, dst, NULL, &an);
    ck_assert_int_eq(an.at[0], 21 * WEFT_PS_PER_US);
    ck_assert_int_eq(an.at[1], 41 * WEFT_PS_PER_US);
    run_star(t, WEFT_NET_FLOW, 2, src, dst, NULL, &fl);
    ck_assert_int_eq(fl.at[0], 41 * WEFT_PS_PER_US);
    ck_assert_int_eq(fl.at[1], 41 * WEFT_PS_PER_US);
}
END_TEST

START_TEST(two_transfers_into_one_gpu_share_its_ingress_port)
{
    /* Incast: gpu1 and gpu2 send 1e6 B each to gpu0 at 0. Their own ports are free; the
     * switch's link into gpu0 carries 2 S: 21 and 41 us (flow: 41 us both). */
    gint g[3];
    g_autoptr(weft_topo_t) t = star(3, g);
    const gint src[] = {g[1], g[2]}, dst[] = {g[0], g[0]};
    log_t an = {0}, fl = {0};
    run_star(t, WEFT_NET_ANALYTICAL, 2, src, dst, NULL, &an);
    ck_assert_int_eq(an.at[0], 21 * WEFT_PS_PER_US);
    ck_assert_int_eq(an.at[1], 41 * WEFT_PS_PER_US);
    run_star(t, WEFT_NET_FLOW, 2, src, dst, NULL, &fl);
    ck_assert_int_eq(fl.at[1], 41 * WEFT_PS_PER_US);
}
END_TEST

START_TEST(transfers_that_fit_a_port_together_run_side_by_side)
{
    /* gpu0 sends 1e6 B to gpu1 and to gpu2, each capped at B/2 = 25 GB/s (as a collective's
     * channels are): together they fill its port exactly, so neither waits: both end at
     * 2a + S/(B/2) = 1 + 40 = 41 us, as under flow. Three capped at B/3 (one of them one
     * byte larger would not change that: its own time is the longest) end at 2a + 3 S/B =
     * 61 us. */
    gint g[4];
    g_autoptr(weft_topo_t) t = star(4, g);
    const gint src[] = {g[0], g[0], g[0]}, dst[] = {g[1], g[2], g[3]};
    const double half[] = {RATE_50GBPS / 2, RATE_50GBPS / 2};
    log_t an = {0}, fl = {0};
    run_star(t, WEFT_NET_ANALYTICAL, 2, src, dst, half, &an);
    ck_assert_int_eq(an.at[0], 41 * WEFT_PS_PER_US);
    ck_assert_int_eq(an.at[1], 41 * WEFT_PS_PER_US);
    run_star(t, WEFT_NET_FLOW, 2, src, dst, half, &fl);
    ck_assert_int_eq(fl.at[1], 41 * WEFT_PS_PER_US);
    const double third[] = {RATE_50GBPS / 3, RATE_50GBPS / 3, RATE_50GBPS / 3};
    log_t an3 = {0};
    run_star(t, WEFT_NET_ANALYTICAL, 3, src, dst, third, &an3);
    for (guint i = 0; i < 3; i++) {
        ck_assert_int_eq(an3.at[i], 61 * WEFT_PS_PER_US);
    }
}
END_TEST

START_TEST(a_transfer_that_does_not_fit_waits_for_the_port_to_serve_its_bytes)
{
    /* gpu0 sends 1e6 B to gpu1 capped at B/2 and, at the same instant, 1e6 B to gpu2 at
     * full rate: 1/2 + 1 of the port is more than it has, so the second waits until the
     * port has served both: 1e6 B x (1/2 of the port for 40 us) + 1e6 B at B = 20 + 20 us
     * of the port's time: it ends at 2a + 40 us = 41 us; the first runs at its own rate
     * and ends at 2a + 40 us = 41 us too. The port is never above its capacity. */
    gint g[3];
    g_autoptr(weft_topo_t) t = star(3, g);
    const gint src[] = {g[0], g[0]}, dst[] = {g[1], g[2]};
    const double cap[] = {RATE_50GBPS / 2, INFINITY};
    log_t an = {0};
    run_star(t, WEFT_NET_ANALYTICAL, 2, src, dst, cap, &an);
    ck_assert_int_eq(an.at[0], 41 * WEFT_PS_PER_US);
    ck_assert_int_eq(an.at[1], 41 * WEFT_PS_PER_US);
}
END_TEST

/* ---- a timed collective's hold on a port ------------------------------------------------ */

static guint n_conflicts;

static void
count_conflict(void *ctx, gint edge)
{
    (void)ctx;
    ck_assert_int_eq(edge, 0);
    n_conflicts++;
}

/* Starts @data bytes (a GUINT_TO_POINTER) gpu0 -> gpu1 now; @ctx: the log. */
static void
start_now(void *ctx, void *data)
{
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, GPOINTER_TO_UINT(data), on_done, ctx, 0,
                                      NULL));
}

START_TEST(a_held_port_admits_transfers_only_between_the_holders_busy_periods)
{
    /* A timed collective holds gpu0 -> gpu1 from 0 to 40 us; alone it kept the port busy
     * over [0, 10) and [30, 40) us. At 20 ps/B (each transfer alone: 1e5 B 2 us, 2.5e5 B
     * 5 us):
     *  - 1e5 B at 12 us: the port is idle until 14 us < 30: no conflict;
     *  - 2.5e5 B at 25 us: busy until 30 us, the holder's next period's start: none;
     *  - 2.5e5 B at 26 us: it does not fit beside the previous one (u 1 + 1), so it waits
     *    for the port to serve both: busy until 35 us > 30: a conflict;
     *  - 1e5 B at 5 us: inside the holder's first period: a conflict. */
    log_t log = {0};
    n_conflicts = 0;
    weft_net_enable_guard(net, count_conflict, NULL);
    const gint e0 = 0;
    ck_assert(weft_net_ports_idle(net, &e0, 1));
    g_autoptr(GArray) busy = g_array_new(FALSE, FALSE, sizeof(weft_net_busy_t));
    weft_net_busy_t b[] = {{0, 10 * WEFT_PS_PER_US}, {30 * WEFT_PS_PER_US, 40 * WEFT_PS_PER_US}};
    g_array_append_vals(busy, b, 2);
    GArray *const per_port[] = {busy};
    weft_net_hold_ports(net, 1, &e0, per_port, 40 * WEFT_PS_PER_US, &log);
    ck_assert(!weft_net_ports_idle(net, &e0, 1)); /* held */
    weft_sim_at(sim, 12 * WEFT_PS_PER_US, start_now, &log, GUINT_TO_POINTER(100000));
    weft_sim_at(sim, 25 * WEFT_PS_PER_US, start_now, &log, GUINT_TO_POINTER(250000));
    weft_sim_run(sim);
    ck_assert_uint_eq(n_conflicts, 0);
    ck_assert_int_eq(log.at[0], 14500 * WEFT_PS_PER_NS);
    ck_assert_int_eq(log.at[1], 30500 * WEFT_PS_PER_NS);
    log_t log2 = {0};
    g_autoptr(weft_sim_t) s2 = weft_sim_new(1);
    g_autoptr(weft_net_t) n2 = weft_net_new(s2, fabric, WEFT_NET_ANALYTICAL);
    weft_sim_t *keep_sim = sim;
    weft_net_t *keep_net = net;
    sim = s2;
    net = n2;
    weft_net_enable_guard(n2, count_conflict, NULL);
    weft_net_hold_ports(n2, 1, &e0, per_port, 40 * WEFT_PS_PER_US, &log2);
    weft_sim_at(s2, 25 * WEFT_PS_PER_US, start_now, &log2, GUINT_TO_POINTER(250000));
    weft_sim_at(s2, 26 * WEFT_PS_PER_US, start_now, &log2, GUINT_TO_POINTER(250000));
    weft_sim_run(s2);
    ck_assert_uint_eq(n_conflicts, 1);
    weft_net_hold_ports(n2, 1, &e0, per_port, weft_sim_now(s2) + 40 * WEFT_PS_PER_US, &log2);
    weft_sim_at(s2, weft_sim_now(s2) + 5 * WEFT_PS_PER_US, start_now, &log2,
                GUINT_TO_POINTER(100000));
    weft_sim_run(s2);
    ck_assert_uint_eq(n_conflicts, 2);
    sim = keep_sim;
    net = keep_net;
}
END_TEST

/* ---- the ports' bound on every bundled cluster ---------------------------------------- */

/* The bundled cluster @file, with at most 2 nodes where it has a node count. */
static weft_topo_t *
load_small(const char *src, const char *file)
{
    g_autofree char *path = g_build_filename(src, "topologies", file, NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) error = NULL;
    ck_assert_msg(g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &error), "%s: %s", path,
                  error ? error->message : "");
    if (g_key_file_has_key(kf, "cluster", "nodes", NULL) &&
        g_key_file_get_integer(kf, "cluster", "nodes", NULL) > 2) {
        g_key_file_set_integer(kf, "cluster", "nodes", 2);
    }
    weft_topo_t *t = weft_topo_load_keyfile(kf, "cluster", path, &error);
    ck_assert_msg(t != NULL, "%s: %s", path, error ? error->message : "");
    return t;
}

START_TEST(no_model_beats_the_ports_bound_on_any_bundled_cluster)
{
    /*
     * A GPU cannot send faster than the sum of the bandwidths of its links out (its ports),
     * nor receive faster than the sum of its links in. So a collective takes at least
     * max over members g of max(sent_g / out_g, received_g / in_g), whatever the algorithm
     * or the network model, with the bytes each member must move (doc/collectives.md's S):
     *  - all-to-all: S is what one member sends, S/n to each peer: it sends and receives
     *    (n - 1) S / n;
     *  - all-gather: S is one member's contribution: it receives the n - 1 others', (n - 1) S;
     *  - all-reduce: S is the vector: every element of a member's result depends on the
     *    other members' inputs, so at least one value per element reaches it: S received.
     * Checked for the first min(GPUs, 16) GPUs of every bundled cluster (2 nodes where it
     * has a node count: the NICs are then on the way), 1 MiB, both models.
     */
    const char *src = g_getenv("WEFT_SRCDIR");
    if (src == NULL) {
        printf("no_model_beats_the_ports_bound_on_any_bundled_cluster: skipped (WEFT_SRCDIR not "
               "set)\n");
        return;
    }
    g_autofree char *dir = g_build_filename(src, "topologies", NULL);
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    ck_assert_ptr_nonnull(d);
    guint checked = 0;
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_suffix(name, ".ini")) {
            continue;
        }
        g_autoptr(weft_topo_t) t = load_small(src, name);
        g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
        guint n = MIN(weft_topo_n_gpus(t), 16u);
        ck_assert_uint_ge(n, 2);
        g_autofree gint *mv = g_new(gint, n);
        g_autofree double *out_bw = g_new0(double, n);
        g_autofree double *in_bw = g_new0(double, n);
        for (guint i = 0; i < n; i++) {
            mv[i] = weft_topo_gpu_vertex(t, i);
        }
        for (guint e = 0; e < weft_topo_n_edges(t); e++) {
            for (guint i = 0; i < n; i++) {
                if (weft_topo_edge_from(t, (gint)e) == mv[i]) {
                    out_bw[i] += weft_topo_edge_bw(t, (gint)e);
                }
                if (weft_topo_edge_to(t, (gint)e) == mv[i]) {
                    in_bw[i] += weft_topo_edge_bw(t, (gint)e);
                }
            }
        }
        const guint64 S = 1 << 20;
        const struct {
            weft_coll_op_t op;
            double sent, received; /* per member, bytes */
        } ops[] = {
            {WEFT_COLL_ALL_TO_ALL, (double)(n - 1) * S / n, (double)(n - 1) * S / n},
            {WEFT_COLL_ALL_GATHER, 0.0, (double)(n - 1) * S},
            {WEFT_COLL_ALL_REDUCE, 0.0, (double)S},
        };
        for (guint o = 0; o < G_N_ELEMENTS(ops); o++) {
            double bound_s = 0.0;
            for (guint i = 0; i < n; i++) {
                bound_s = MAX(bound_s, ops[o].sent / out_bw[i]);
                bound_s = MAX(bound_s, ops[o].received / in_bw[i]);
            }
            /* rounded down to the picosecond: transfers round their times to the nearest */
            weft_time_t bound = (weft_time_t)floor(bound_s * 1e12) - 1;
            g_autoptr(GError) error = NULL;
            g_autoptr(weft_coll_plan_t) plan =
                weft_coll_plan_new(ops[o].op, WEFT_COLL_ALGO_AUTO, n, S, 1, &error);
            ck_assert_msg(plan != NULL, "%s", error ? error->message : "");
            for (guint m = 0; m < 2; m++) {
                weft_net_model_t model = m == 0 ? WEFT_NET_ANALYTICAL : WEFT_NET_FLOW;
                g_autoptr(weft_sim_t) s = weft_sim_new(1);
                g_autoptr(weft_net_t) nt = weft_net_new(s, f, model);
                weft_time_t got = weft_coll_time(s, nt, plan, mv, &error);
                ck_assert_msg(got >= 0, "%s", error ? error->message : "");
                ck_assert_msg(got >= bound, "%s, %s over %u GPUs, %s: %" G_GINT64_FORMAT
                              " ps, below the ports' bound %" G_GINT64_FORMAT " ps", name,
                              weft_coll_op_name(ops[o].op), n, weft_net_model_name(model), got,
                              bound);
                checked++;
            }
        }
    }
    ck_assert_uint_ge(checked, 13 * 3 * 2); /* every bundled cluster (13 now) */
}
END_TEST

static Suite *
net_suite(void)
{
    Suite *s = suite_create("net");
    TCase *tc = tcase_create("analytical");
    tcase_add_checked_fixture(tc, setup_pair, teardown_pair);
    tcase_add_test(tc, model_names_parse_and_unknown_is_an_error);
    tcase_add_test(tc, one_megabyte_takes_latency_plus_size_over_rate);
    tcase_add_test(tc, zero_bytes_take_the_latency);
    tcase_add_test(tc, self_transfer_is_free_but_goes_through_the_event_loop);
    tcase_add_test(tc, concurrent_transfers_on_one_port_go_one_after_another);
    tcase_add_test(tc, congestion_none_times_every_transfer_alone);
    tcase_add_test(tc, a_later_start_ends_later_by_its_start_offset);
    tcase_add_test(tc, bytes_sent_equal_bytes_delivered);
    tcase_add_test(tc, busy_time_is_the_union_of_bandwidth_phases);
    tcase_add_test(tc, a_cancelled_transfer_is_busy_until_cancelled);
    tcase_add_test(tc, a_transfer_keeps_its_rate_on_a_link_degraded_under_it);
    tcase_add_test(tc, cancel_by_ctx_drops_only_that_ctx);
    tcase_add_test(tc, free_with_pending_transfers_leaves_no_events);
    tcase_add_test(tc, callbacks_may_start_transfers);
    tcase_add_test(tc, unreachable_vertex_is_no_route);
    tcase_add_test(tc, accessors_return_what_was_given);
    tcase_add_test(tc, two_hop_route_uses_bottleneck_and_summed_latency);
    suite_add_tcase(s, tc);
    TCase *ports = tcase_create("ports");
    tcase_add_test(ports, two_transfers_from_one_gpu_share_its_egress_port);
    tcase_add_test(ports, two_transfers_into_one_gpu_share_its_ingress_port);
    tcase_add_test(ports, transfers_that_fit_a_port_together_run_side_by_side);
    tcase_add_test(ports, a_transfer_that_does_not_fit_waits_for_the_port_to_serve_its_bytes);
    tcase_add_test(ports, no_model_beats_the_ports_bound_on_any_bundled_cluster);
    TCase *hold = tcase_create("hold");
    tcase_add_checked_fixture(hold, setup_pair, teardown_pair);
    tcase_add_test(hold, a_held_port_admits_transfers_only_between_the_holders_busy_periods);
    suite_add_tcase(s, hold);
    suite_add_tcase(s, ports);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(net_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
