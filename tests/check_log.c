/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of logging (core/log.h) and of the flow solver's dump
 * (weft_lmm_dump(), net/lmm.h): debug lines go to stderr and never stdout,
 * stamped with the simulated time only while a simulation runs on the calling
 * thread (t=OUTER+INNER for a nested run), every line of a multi-line message
 * prefixed; domains picked by G_MESSAGES_DEBUG as whole words or all weft-*
 * ones by weft_log_set_verbose(); warnings keep GLib's format; the dump of a
 * hand-built 2-link 3-flow problem lists its capacities and rates, bounded.
 *
 * stderr and stdout are captured by pointing file descriptors 2 and 1 at
 * temporary files around the code under test. Check runs each test in a
 * child process, so the writer installed and the environment set in one test
 * do not reach another; each test still sets what it relies on.
 */
#define G_LOG_DOMAIN "weft-test"

#include "core/log.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sim.h"
#include "net/lmm.h"

/* ---- capturing a file descriptor ------------------------------------------------------- */

typedef struct {
    int fd;
    int saved;
    FILE *file;
} capture_t;

static void
capture_begin(capture_t *c, int fd)
{
    fflush(stdout);
    fflush(stderr);
    c->fd = fd;
    c->file = tmpfile();
    ck_assert_ptr_nonnull(c->file);
    c->saved = dup(fd);
    ck_assert_int_ge(c->saved, 0);
    ck_assert_int_ge(dup2(fileno(c->file), fd), 0);
}

/* Returns what was written to the descriptor since capture_begin(); free with g_free(). */
static char *
capture_end(capture_t *c)
{
    fflush(stdout);
    fflush(stderr);
    ck_assert_int_ge(dup2(c->saved, c->fd), 0);
    close(c->saved);
    GString *s = g_string_new(NULL);
    char buf[4096];
    size_t n;
    rewind(c->file);
    while ((n = fread(buf, 1, sizeof buf, c->file)) > 0) {
        g_string_append_len(s, buf, (gssize)n);
    }
    fclose(c->file);
    return g_string_free(s, FALSE);
}

/* Logging as weft does it, with the environment of the test alone. */
static void
setup_logging(const char *messages_debug, gboolean verbose)
{
    if (messages_debug != NULL) {
        g_setenv("G_MESSAGES_DEBUG", messages_debug, TRUE);
    } else {
        g_unsetenv("G_MESSAGES_DEBUG");
    }
    weft_log_init();
    weft_log_set_verbose(verbose);
}

/* ---- the time stamp -------------------------------------------------------------------- */

static void
log_inside(void *ctx, void *data)
{
    (void)ctx, (void)data;
    g_debug("inside the run");
}

START_TEST(lines_carry_the_simulated_time_only_while_a_simulation_runs)
{
    setup_logging(NULL, TRUE);
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    /* 12.345678 ms + 9 ps: the stamp shows whole nanoseconds, truncated */
    weft_sim_at(sim, 12 * WEFT_PS_PER_MS + 345678 * WEFT_PS_PER_NS + 9, log_inside, NULL, NULL);
    capture_t err, out;
    capture_begin(&err, 2);
    capture_begin(&out, 1);
    g_debug("before the run");
    weft_sim_run(sim);
    g_debug("after the run");
    g_autofree char *o = capture_end(&out);
    g_autofree char *e = capture_end(&err);
    ck_assert_str_eq(e, "[weft-test] before the run\n"
                        "[weft-test t=12.345678ms] inside the run\n"
                        "[weft-test] after the run\n");
    ck_assert_str_eq(o, ""); /* stdout is for results */
    ck_assert_ptr_null(weft_sim_current());
}
END_TEST

static void
inner_event(void *ctx, void *data)
{
    (void)data;
    ck_assert_ptr_eq(weft_sim_current(), ctx);
    g_debug("inner");
}

static void
outer_event(void *ctx, void *data)
{
    (void)data;
    const weft_sim_t *outer = ctx;
    g_autoptr(weft_sim_t) inner = weft_sim_new(2);
    weft_sim_at(inner, 5 * WEFT_PS_PER_US, inner_event, inner, NULL);
    weft_sim_run(inner);
    /* the outer run is current again once the inner one returns */
    ck_assert_ptr_eq(weft_sim_current(), outer);
    ck_assert_ptr_null(weft_sim_outer(inner));
    g_debug("outer");
}

START_TEST(a_run_inside_an_event_shows_both_clocks)
{
    setup_logging(NULL, TRUE);
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    weft_sim_at(sim, 2 * WEFT_PS_PER_MS, outer_event, sim, NULL);
    capture_t err;
    capture_begin(&err, 2);
    weft_sim_run(sim);
    g_autofree char *e = capture_end(&err);
    /* 2 ms outside, then 5 us = 0.005 ms on the inner clock */
    ck_assert_str_eq(e, "[weft-test t=2.000000ms+0.005000ms] inner\n"
                        "[weft-test t=2.000000ms] outer\n");
}
END_TEST

static gpointer
log_from_thread(gpointer data)
{
    (void)data;
    g_debug("from another thread");
    return weft_sim_current() == NULL ? GINT_TO_POINTER(1) : NULL;
}

static void
spawn_logger(void *ctx, void *data)
{
    (void)ctx, (void)data;
    GThread *th = g_thread_new("logger", log_from_thread, NULL);
    ck_assert_ptr_eq(g_thread_join(th), GINT_TO_POINTER(1));
    g_debug("from the simulation's thread");
}

START_TEST(the_running_simulation_is_per_thread)
{
    setup_logging(NULL, TRUE);
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    weft_sim_at(sim, WEFT_PS_PER_MS, spawn_logger, NULL, NULL);
    capture_t err;
    capture_begin(&err, 2);
    weft_sim_run(sim);
    g_autofree char *e = capture_end(&err);
    ck_assert_str_eq(e, "[weft-test] from another thread\n"
                        "[weft-test t=1.000000ms] from the simulation's thread\n");
}
END_TEST

START_TEST(every_line_of_a_message_gets_the_prefix)
{
    setup_logging(NULL, TRUE);
    capture_t err;
    capture_begin(&err, 2);
    g_debug("first\nsecond\n");
    g_autofree char *e = capture_end(&err);
    ck_assert_str_eq(e, "[weft-test] first\n[weft-test] second\n");
}
END_TEST

/* ---- choosing domains ------------------------------------------------------------------ */

static char *
log_four_domains(void)
{
    capture_t err;
    capture_begin(&err, 2);
    g_log("weft-a", G_LOG_LEVEL_DEBUG, "a");
    g_log("weft-b", G_LOG_LEVEL_INFO, "b");
    g_log("weft-c", G_LOG_LEVEL_DEBUG, "c");
    g_log("weft-ab", G_LOG_LEVEL_DEBUG, "ab");
    g_log("other", G_LOG_LEVEL_DEBUG, "other");
    return capture_end(&err);
}

START_TEST(debug_lines_are_off_unless_asked_for)
{
    setup_logging(NULL, FALSE);
    g_autofree char *e = log_four_domains();
    ck_assert_str_eq(e, "");
    ck_assert(!weft_log_enabled("weft-net"));
}
END_TEST

START_TEST(g_messages_debug_picks_domains_by_whole_word)
{
    setup_logging("weft-a,weft-c", FALSE);
    g_autofree char *e = log_four_domains();
    /* weft-ab is not weft-a; "other" is not listed */
    ck_assert_str_eq(e, "[weft-a] a\n[weft-c] c\n");
    ck_assert(weft_log_enabled("weft-a"));
    ck_assert(!weft_log_enabled("weft-ab"));
    ck_assert(!weft_log_enabled("weft-b"));
    g_setenv("G_MESSAGES_DEBUG", "weft-b weft-c", TRUE); /* spaces, as GLib documents */
    ck_assert(weft_log_enabled("weft-b"));
    ck_assert(!weft_log_enabled("weft-a"));
}
END_TEST

START_TEST(verbose_turns_on_every_weft_domain_and_no_other)
{
    setup_logging(NULL, TRUE);
    g_autofree char *e = log_four_domains();
    ck_assert_str_eq(e, "[weft-a] a\n[weft-b] b\n[weft-c] c\n[weft-ab] ab\n");
    ck_assert(weft_log_enabled("weft-net"));
    ck_assert(!weft_log_enabled("other"));
    ck_assert(!weft_log_enabled(NULL));
    weft_log_set_verbose(FALSE);
    ck_assert(!weft_log_get_verbose());
    ck_assert(!weft_log_enabled("weft-net"));
}
END_TEST

START_TEST(g_messages_debug_all_turns_on_everything)
{
    setup_logging("all", FALSE);
    g_autofree char *e = log_four_domains();
    ck_assert_ptr_nonnull(strstr(e, "[weft-b] b\n"));
    ck_assert_ptr_nonnull(strstr(e, "[weft-ab] ab\n"));
    /* another library's line keeps GLib's format, on stderr */
    ck_assert_ptr_nonnull(strstr(e, "other-DEBUG"));
}
END_TEST

START_TEST(warnings_keep_glib_format_on_stderr)
{
    setup_logging(NULL, FALSE);
    capture_t err, out;
    capture_begin(&err, 2);
    capture_begin(&out, 1);
    g_warning("something is off: %d", 42);
    g_message("a message");
    g_autofree char *o = capture_end(&out);
    g_autofree char *e = capture_end(&err);
    ck_assert_ptr_nonnull(strstr(e, "weft-test-WARNING **"));
    ck_assert_ptr_nonnull(strstr(e, "something is off: 42"));
    ck_assert_ptr_nonnull(strstr(e, "weft-test-Message"));
    ck_assert_ptr_null(strstr(e, "[weft-test"));
    ck_assert_str_eq(o, "");
}
END_TEST

START_TEST(the_prefix_is_the_domain_and_the_time)
{
    g_autoptr(GString) s = g_string_new(NULL);
    weft_log_format_prefix(s, "weft-net");
    ck_assert_str_eq(s->str, "[weft-net] ");
    g_string_truncate(s, 0);
    weft_log_format_prefix(s, NULL);
    ck_assert_str_eq(s->str, "[weft] ");
}
END_TEST

/* ---- the flow solver's dump ------------------------------------------------------------ */

/*
 * Two links, three flows: flow 0 crosses both links, flow 1 link 0 alone, flow 2 link 1
 * alone with a bound of 50 GB/s. Link 1 (60 GB/s, two flows) saturates first at 30 GB/s
 * each (below flow 2's bound); link 0 (100 GB/s) then gives flow 1 the 70 GB/s that flow
 * 0 leaves. Both links are saturated.
 */
START_TEST(the_dump_of_two_links_and_three_flows_lists_capacities_and_rates)
{
    g_autoptr(weft_lmm_t) lmm = weft_lmm_new(TRUE);
    guint l0 = weft_lmm_constraint_new(lmm, 100e9);
    guint l1 = weft_lmm_constraint_new(lmm, 60e9);
    guint both[] = {l0, l1};
    double ones[] = {1, 1};
    guint f0 = weft_lmm_variable_new(lmm, 1, 0, both, ones, 2);
    guint f1 = weft_lmm_variable_new(lmm, 1, 0, &l0, ones, 1);
    guint f2 = weft_lmm_variable_new(lmm, 1, 50e9, &l1, ones, 1);
    weft_lmm_solve(lmm);
    ck_assert_double_eq(weft_lmm_variable_rate(lmm, f0), 30e9);
    ck_assert_double_eq(weft_lmm_variable_rate(lmm, f1), 70e9);
    ck_assert_double_eq(weft_lmm_variable_rate(lmm, f2), 30e9);
    g_autoptr(GString) out = g_string_new(NULL);
    weft_lmm_dump(lmm, out);
    ck_assert_str_eq(
        out->str,
        "lmm: 2 constraints (2 with variables), 3 variables, 1 solves (incremental)\n"
        "  constraint 0: capacity 1e+11 B/s, usage 1e+11 B/s (saturated), 2 variables: 0 1\n"
        "  constraint 1: capacity 6e+10 B/s, usage 6e+10 B/s (saturated), 2 variables: 0 2\n"
        "  variable 0: weight 1, bound none, rate 3e+10 B/s, constraints 0 1\n"
        "  variable 1: weight 1, bound none, rate 7e+10 B/s, constraints 0\n"
        "  variable 2: weight 1, bound 5e+10 B/s, rate 3e+10 B/s, constraints 1\n");
}
END_TEST

/* 20 flows of weight 2 over one 80 B/s link at coefficient 0.5 and an idle second link:
 * each gets 80 / (20 x 0.5) = 8 B/s; the dump lists 8 of each and counts the rest. */
START_TEST(the_dump_is_bounded_and_skips_idle_constraints)
{
    g_autoptr(weft_lmm_t) lmm = weft_lmm_new(FALSE);
    guint c = weft_lmm_constraint_new(lmm, 80);
    (void)weft_lmm_constraint_new(lmm, 1);
    double half = 0.5;
    for (guint i = 0; i < 20; i++) {
        weft_lmm_variable_new(lmm, 2, 0, &c, &half, 1);
    }
    weft_lmm_solve(lmm);
    g_autoptr(GString) out = g_string_new(NULL);
    weft_lmm_dump(lmm, out);
    ck_assert_ptr_nonnull(
        strstr(out->str, "lmm: 2 constraints (1 with variables), 20 variables, 1 solves (full)\n"));
    ck_assert_ptr_nonnull(strstr(out->str, "  constraint 0: capacity 80 B/s, usage 80 B/s "
                                           "(saturated), 20 variables: 0 1 2 3 4 5 6 7 (+12)\n"));
    ck_assert_ptr_null(strstr(out->str, "constraint 1:"));
    ck_assert_ptr_nonnull(
        strstr(out->str, "  variable 7: weight 2, bound none, rate 8 B/s, constraints 0(x0.5)\n"));
    ck_assert_ptr_null(strstr(out->str, "variable 8:"));
    ck_assert_ptr_nonnull(strstr(out->str, "  ... and 12 more variables\n"));
}
END_TEST

static Suite *
log_suite(void)
{
    Suite *s = suite_create("log");
    TCase *tc = tcase_create("writer");
    tcase_add_test(tc, lines_carry_the_simulated_time_only_while_a_simulation_runs);
    tcase_add_test(tc, a_run_inside_an_event_shows_both_clocks);
    tcase_add_test(tc, the_running_simulation_is_per_thread);
    tcase_add_test(tc, every_line_of_a_message_gets_the_prefix);
    tcase_add_test(tc, the_prefix_is_the_domain_and_the_time);
    suite_add_tcase(s, tc);
    TCase *td = tcase_create("domains");
    tcase_add_test(td, debug_lines_are_off_unless_asked_for);
    tcase_add_test(td, g_messages_debug_picks_domains_by_whole_word);
    tcase_add_test(td, verbose_turns_on_every_weft_domain_and_no_other);
    tcase_add_test(td, g_messages_debug_all_turns_on_everything);
    tcase_add_test(td, warnings_keep_glib_format_on_stderr);
    suite_add_tcase(s, td);
    TCase *tl = tcase_create("lmm dump");
    tcase_add_test(tl, the_dump_of_two_links_and_three_flows_lists_capacities_and_rates);
    tcase_add_test(tl, the_dump_is_bounded_and_skips_idle_constraints);
    suite_add_tcase(s, tl);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(log_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
