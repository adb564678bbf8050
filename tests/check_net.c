/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the network module: the analytical model's transfer times on
 * tiny clusters (two GPUs on one link; two GPUs through a switch), its
 * documented non-sharing, local copies, byte accounting, cancellation, the
 * record pool under re-entrant starts, and error codes.
 *
 * Numbers used throughout: 50 GB/s = 50e9 B/s, so one byte takes
 * 1e12 / 50e9 = 20 ps exactly; 1 MB = 1e6 bytes takes 2e7 ps = 20 us.
 */
#include "net/net.h"

#include <check.h>
#include <stdlib.h>

#define RATE_50GBPS 50e9
#define LAT_500NS ((weft_time_t)500 * WEFT_PS_PER_NS)

/* ---- fixture: 2 GPUs on one 50 GB/s, 500 ns link ------------------------------ */

static weft_sim_t *sim;
static weft_topo_t *topo;
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
    net = weft_net_new(sim, topo, WEFT_NET_ANALYTICAL);
}

static void
teardown_pair(void)
{
    weft_net_free(net);
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

START_TEST(concurrent_transfers_on_one_link_do_not_share_it)
{
    /* Documented analytical behaviour: no sharing, so each of two transfers
     * started together on the same link direction ends at the lone time,
     * 20500000 ps (a flow model would give 500 ns + 2 x 20 us to both). */
    log_t log = {0};
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 1000000, on_done, &log, 1, NULL));
    ck_assert(weft_net_transfer_start(net, gpu0, gpu1, 1000000, on_done, &log, 2, NULL));
    ck_assert_uint_eq(weft_net_in_flight(net), 2);
    weft_sim_run(sim);
    ck_assert_uint_eq(log.n, 2);
    ck_assert_int_eq(log.at[0], 20500000);
    ck_assert_int_eq(log.at[1], 20500000);
    /* Same time: completions come in start order (the queue breaks ties by insertion). */
    ck_assert_uint_eq(log.tag[0], 1);
    ck_assert_uint_eq(log.tag[1], 2);
    ck_assert_uint_eq(weft_net_in_flight(net), 0);
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
    ck_assert_int_eq(b.at[0], 500000 + 200 * 20); /* 504000 ps */
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
    g_autoptr(weft_net_t) n2 = weft_net_new(s2, t2, WEFT_NET_ANALYTICAL);
    /* latency 200 + 300 = 500 ns; bottleneck 25 GB/s = 40 ps/B; 1e6 B -> 4e7 ps;
     * total 500000 + 40000000 = 40500000 ps */
    ck_assert_int_eq(weft_net_transfer_time(n2, a, b, 1000000, NULL), 40500000);
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
    tcase_add_test(tc, concurrent_transfers_on_one_link_do_not_share_it);
    tcase_add_test(tc, a_later_start_ends_later_by_its_start_offset);
    tcase_add_test(tc, bytes_sent_equal_bytes_delivered);
    tcase_add_test(tc, cancel_by_ctx_drops_only_that_ctx);
    tcase_add_test(tc, free_with_pending_transfers_leaves_no_events);
    tcase_add_test(tc, callbacks_may_start_transfers);
    tcase_add_test(tc, unreachable_vertex_is_no_route);
    tcase_add_test(tc, accessors_return_what_was_given);
    tcase_add_test(tc, two_hop_route_uses_bottleneck_and_summed_latency);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(net_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
