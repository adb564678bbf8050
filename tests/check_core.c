/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of core/: the event queue's (time, sequence) order and cancel,
 * the simulation loop, random streams, and quantities with units.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/evq.h"
#include "core/keyfile.h"
#include "core/rng.h"
#include "core/sim.h"
#include "core/units.h"

typedef struct {
    weft_time_t time;
    guint64 id;
} ref_t;

static int
ref_cmp(const void *a, const void *b)
{
    const ref_t *x = a, *y = b;
    if (x->time != y->time) {
        return x->time < y->time ? -1 : 1;
    }
    return x->id < y->id ? -1 : (x->id > y->id);
}

static void
noop(void *ctx, void *data)
{
}

/* Random times with many ties: pops must equal a stable sort by (time, push order). */
START_TEST(evq_pops_in_time_then_sequence_order)
{
    g_autoptr(weft_rng_t) rng = weft_rng_new(42, (guint32)_i);
    g_autoptr(weft_evq_t) q = weft_evq_new();
    const guint n = 20000;
    ref_t *ref = g_new(ref_t, n);
    for (guint i = 0; i < n; i++) {
        ref[i].time = weft_rng_int_range(rng, 0, 500); /* ~40 events per instant */
        ref[i].id = i;
        weft_evq_push(q, ref[i].time, noop, NULL, GUINT_TO_POINTER(i + 1));
    }
    qsort(ref, n, sizeof(ref_t), ref_cmp);
    weft_event_t ev;
    for (guint i = 0; i < n; i++) {
        ck_assert(weft_evq_pop(q, &ev));
        ck_assert_int_eq(ev.time, ref[i].time);
        ck_assert_uint_eq(GPOINTER_TO_UINT(ev.data) - 1, ref[i].id);
    }
    ck_assert(!weft_evq_pop(q, &ev));
    ck_assert_uint_eq(weft_evq_size(q), 0);
    g_free(ref);
}
END_TEST

/* Interleaved pushes and pops (a real simulation's pattern) keep the order. */
START_TEST(evq_interleaved_push_pop_is_monotone)
{
    g_autoptr(weft_rng_t) rng = weft_rng_new(7, 0);
    g_autoptr(weft_evq_t) q = weft_evq_new();
    weft_time_t now = 0;
    guint64 last_seq = 0;
    weft_event_t ev;
    for (guint i = 0; i < 100; i++) {
        weft_evq_push(q, weft_rng_int_range(rng, 0, 10), noop, NULL, NULL);
    }
    for (guint i = 0; i < 50000; i++) {
        ck_assert(weft_evq_pop(q, &ev));
        /* time never goes backwards; at equal times the sequence grows */
        ck_assert_int_ge(ev.time, now);
        if (ev.time == now) {
            ck_assert_uint_gt(ev.seq, last_seq);
        }
        now = ev.time;
        last_seq = ev.seq;
        weft_evq_push(q, now + weft_rng_int_range(rng, 0, 10), noop, NULL, NULL);
    }
}
END_TEST

START_TEST(evq_cancel_skips_event_and_stale_handle_is_noop)
{
    g_autoptr(weft_evq_t) q = weft_evq_new();
    weft_event_handle_t a = weft_evq_push(q, 10, noop, NULL, GINT_TO_POINTER(1));
    weft_event_handle_t b = weft_evq_push(q, 5, noop, NULL, GINT_TO_POINTER(2));
    weft_evq_push(q, 20, noop, NULL, GINT_TO_POINTER(3));
    ck_assert_uint_eq(weft_evq_size(q), 3);
    ck_assert(weft_evq_cancel(q, b));
    ck_assert(!weft_evq_cancel(q, b)); /* twice: no-op */
    ck_assert_uint_eq(weft_evq_size(q), 2);
    weft_time_t t;
    ck_assert(weft_evq_peek_time(q, &t));
    ck_assert_int_eq(t, 10); /* the cancelled one at 5 is skipped */
    weft_event_t ev;
    ck_assert(weft_evq_pop(q, &ev));
    ck_assert_int_eq(GPOINTER_TO_INT(ev.data), 1);
    ck_assert(!weft_evq_cancel(q, a)); /* already fired */
    /* a's slot is recycled by the next push; the stale handle must not cancel it */
    weft_event_handle_t c = weft_evq_push(q, 30, noop, NULL, GINT_TO_POINTER(4));
    ck_assert(!weft_evq_cancel(q, a));
    ck_assert(!weft_evq_cancel(q, 0));
    ck_assert(weft_evq_cancel(q, c));
    ck_assert(weft_evq_pop(q, &ev));
    ck_assert_int_eq(GPOINTER_TO_INT(ev.data), 3);
    ck_assert(!weft_evq_pop(q, &ev));
}
END_TEST

typedef struct {
    weft_sim_t *sim;
    GString *log;
} sim_fixture_t;

static void
log_event(void *ctx, void *data)
{
    sim_fixture_t *f = ctx;
    g_string_append_printf(f->log, "%" G_GINT64_FORMAT ":%s ", weft_sim_now(f->sim),
                           (const char *)data);
    if (g_str_equal(data, "b")) {
        /* an event scheduled from an event at the same instant runs after those already queued */
        weft_sim_after(f->sim, 0, log_event, f, "d");
    }
}

START_TEST(sim_runs_events_in_order_and_advances_clock)
{
    sim_fixture_t f = {weft_sim_new(1), g_string_new(NULL)};
    weft_sim_at(f.sim, 100, log_event, &f, "c");
    weft_sim_at(f.sim, 50, log_event, &f, "b");
    weft_sim_at(f.sim, 50, log_event, &f, "b2");
    weft_event_handle_t h = weft_sim_at(f.sim, 60, log_event, &f, "x");
    weft_sim_at(f.sim, 0, log_event, &f, "a");
    ck_assert(weft_sim_cancel(f.sim, h));
    ck_assert_uint_eq(weft_sim_run(f.sim), 5);
    ck_assert_str_eq(f.log->str, "0:a 50:b 50:b2 50:d 100:c ");
    ck_assert_int_eq(weft_sim_now(f.sim), 100);
    ck_assert_uint_eq(weft_sim_events(f.sim), 5);
    g_string_free(f.log, TRUE);
    weft_sim_free(f.sim);
}
END_TEST

START_TEST(rng_same_seed_same_stream_different_otherwise)
{
    g_autoptr(weft_rng_t) a = weft_rng_new(123, 4);
    g_autoptr(weft_rng_t) b = weft_rng_new(123, 4);
    g_autoptr(weft_rng_t) c = weft_rng_new(123, 5);
    g_autoptr(weft_rng_t) d = weft_rng_new(124, 4);
    guint same_c = 0, same_d = 0;
    for (int i = 0; i < 1000; i++) {
        guint64 x = weft_rng_u64(a);
        ck_assert_uint_eq(x, weft_rng_u64(b));
        same_c += x == weft_rng_u64(c);
        same_d += x == weft_rng_u64(d);
    }
    ck_assert_uint_eq(same_c, 0);
    ck_assert_uint_eq(same_d, 0);
    /* uniform draws stay in [0, 1) and their mean is near 1/2 (sd of the mean ~0.003) */
    double sum = 0;
    for (int i = 0; i < 10000; i++) {
        double u = weft_rng_uniform(a);
        ck_assert(u >= 0.0 && u < 1.0);
        sum += u;
    }
    ck_assert_double_eq_tol(sum / 10000, 0.5, 0.02);
}
END_TEST

START_TEST(units_parse_rates_sizes_times)
{
    GError *err = NULL;
    double r;
    ck_assert(weft_units_parse_rate("400Gb/s", &r, &err));
    ck_assert_double_eq(r, 50e9); /* 400e9 bits / 8 */
    ck_assert(weft_units_parse_rate("50GB/s", &r, &err));
    ck_assert_double_eq(r, 50e9);
    ck_assert(weft_units_parse_rate("900 GB/s", &r, &err));
    ck_assert_double_eq(r, 900e9);
    ck_assert(weft_units_parse_rate("1GiB/s", &r, &err));
    ck_assert_double_eq(r, 1073741824.0);
    guint64 b;
    ck_assert(weft_units_parse_bytes("16MiB", &b, &err));
    ck_assert_uint_eq(b, 16777216);
    ck_assert(weft_units_parse_bytes("1GB", &b, &err));
    ck_assert_uint_eq(b, 1000000000);
    ck_assert(weft_units_parse_bytes(" 4096 B ", &b, &err));
    ck_assert_uint_eq(b, 4096);
    weft_time_t t;
    ck_assert(weft_units_parse_time("500ns", &t, &err));
    ck_assert_int_eq(t, 500000);
    ck_assert(weft_units_parse_time("2.5us", &t, &err));
    ck_assert_int_eq(t, 2500000);
    ck_assert(weft_units_parse_time("1s", &t, &err));
    ck_assert_int_eq(t, WEFT_PS_PER_S);
    double c;
    ck_assert(weft_units_parse_count("1e9", &c, &err));
    ck_assert_double_eq(c, 1e9);
    ck_assert_ptr_null(err);
}
END_TEST

START_TEST(units_refuse_missing_unknown_and_wrong_units)
{
    GError *err = NULL;
    double r;
    guint64 b;
    weft_time_t t;
    double c;
    ck_assert(!weft_units_parse_rate("50", &r, &err)); /* bare number where a unit is needed */
    ck_assert(g_error_matches(err, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_UNIT));
    g_clear_error(&err);
    ck_assert(!weft_units_parse_rate("50 furlongs/s", &r, &err));
    ck_assert(g_error_matches(err, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_UNIT));
    g_clear_error(&err);
    ck_assert(!weft_units_parse_bytes("5ns", &b, &err)); /* a time is not a size */
    ck_assert(g_error_matches(err, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_UNIT));
    g_clear_error(&err);
    ck_assert(!weft_units_parse_time("GB", &t, &err));
    ck_assert(g_error_matches(err, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_NUMBER));
    g_clear_error(&err);
    ck_assert(!weft_units_parse_time("-1us", &t, &err));
    ck_assert(g_error_matches(err, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_RANGE));
    g_clear_error(&err);
    ck_assert(!weft_units_parse_rate("nan GB/s", &r, &err));
    ck_assert(g_error_matches(err, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_RANGE));
    g_clear_error(&err);
    ck_assert(!weft_units_parse_count("12 GB", &c, &err));
    ck_assert(g_error_matches(err, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_NUMBER));
    g_clear_error(&err);
    ck_assert(!weft_units_parse_time("200 days", &t, &err));
    ck_assert(g_error_matches(err, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_UNIT));
    g_clear_error(&err);
}
END_TEST

START_TEST(time_conversions_round_to_nearest_ps)
{
    ck_assert_int_eq(weft_time_from_us(1.5), 1500000);
    ck_assert_double_eq(weft_time_to_us(2500000), 2.5);
    /* 1 MiB at 50 GB/s: 1048576 / 50e9 s = 20.97152 us = 20971520 ps exactly */
    ck_assert_int_eq(weft_time_for_bytes(1048576, 50e9), 20971520);
    /* 1 byte at 3 B/s = 333333333333.33 ps, rounds down */
    ck_assert_int_eq(weft_time_for_bytes(1, 3.0), 333333333333);
    ck_assert_int_eq(weft_time_for_bytes(1, 0.0), WEFT_TIME_MAX);
}
END_TEST

START_TEST(keyfile_refuses_a_key_or_group_set_twice)
{
    GError *err = NULL;
    g_autoptr(GKeyFile) ok = g_key_file_new();
    ck_assert(weft_keyfile_load_data(ok, "# c\n[a]\nx = 1\ny = 2\n[b]\nx = 3\n", "f.ini", &err));
    ck_assert_ptr_null(err);
    g_autoptr(GKeyFile) k = g_key_file_new();
    /* line 4 sets x of [a] again: refused, not last-wins */
    ck_assert(!weft_keyfile_load_data(k, "[a]\nx = 1\ny = 2\nx=3\n", "f.ini", &err));
    ck_assert(g_error_matches(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE));
    ck_assert_ptr_nonnull(strstr(err->message, "line 4"));
    g_clear_error(&err);
    g_autoptr(GKeyFile) g = g_key_file_new();
    ck_assert(!weft_keyfile_load_data(g, "[a]\nx = 1\n[b]\n[a]\ny = 2\n", "f.ini", &err));
    ck_assert(g_error_matches(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE));
    g_clear_error(&err);
    g_autoptr(GKeyFile) m = g_key_file_new();
    ck_assert(!weft_keyfile_load_file(m, "/nonexistent/weft.ini", &err));
    ck_assert_uint_eq(err->domain, G_FILE_ERROR);
    g_clear_error(&err);
}
END_TEST

static Suite *
core_suite(void)
{
    Suite *s = suite_create("core");
    TCase *tc = tcase_create("evq");
    tcase_add_loop_test(tc, evq_pops_in_time_then_sequence_order, 0, 3);
    tcase_add_test(tc, evq_interleaved_push_pop_is_monotone);
    tcase_add_test(tc, evq_cancel_skips_event_and_stale_handle_is_noop);
    suite_add_tcase(s, tc);
    tc = tcase_create("sim");
    tcase_add_test(tc, sim_runs_events_in_order_and_advances_clock);
    tcase_add_test(tc, rng_same_seed_same_stream_different_otherwise);
    suite_add_tcase(s, tc);
    tc = tcase_create("units");
    tcase_add_test(tc, units_parse_rates_sizes_times);
    tcase_add_test(tc, units_refuse_missing_unknown_and_wrong_units);
    tcase_add_test(tc, time_conversions_round_to_nearest_ps);
    tcase_add_test(tc, keyfile_refuses_a_key_or_group_set_twice);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(core_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
