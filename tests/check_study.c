/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of study/: axes expanded (lists, ranges and log ranges with
 * units, cartesian order with the last axis fastest, zip), a row's metrics
 * derived by hand, a 100-point study (half its points failing at run time)
 * giving the same CSV with 1 and 2 threads, after a stop halfway and a resume
 * (a torn journal line included), and as 3 shards merged; a journal of
 * another study refused; every bad axis (unknown key, bad value, unknown
 * cluster key, bad range) failing at load, before any point runs; merge
 * refusing missing, duplicate and foreign shards; training-run studies (a
 * `weft train` base) by hand without failures, against weft_job_monte_carlo()
 * with them, the same with 1 and 2 threads, and their bad axes and metrics.
 * The workload is a 4-rank
 * trace written by the test on an inline ring: forward 100 us, a 4,000,000 B
 * all-reduce, optimizer 50 us.
 */
#include <check.h>
#include <glib/gstdio.h>
#include <stdlib.h>

#include "config.h"
#include "job/job.h"
#include "study/study.h"
#include "testutil.h"

static char *tmpdir;

/* Writes the 4-rank trace tmpdir/tiny.<r>.et (see the file comment). */
static void
write_tiny_trace(void)
{
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node_dur(et, 1, "forward", TEST_COMP, 100);
        test_et_coll(et, 2, "all_reduce_grads", 0, 4000000, NULL);
        test_et_dep(et, 1);
        test_et_node_dur(et, 3, "optimizer", TEST_COMP, 50);
        test_et_dep(et, 2);
        g_autofree char *path = test_et_path(tmpdir, "tiny", r);
        test_et_write(et, path, FALSE);
    }
}

static char *old_cwd;

static void
setup(void)
{
    tmpdir = g_dir_make_tmp("weft-study-XXXXXX", NULL);
    ck_assert_ptr_nonnull(tmpdir);
    write_tiny_trace();
    /* a study's default results land in the current directory: the scratch one */
    old_cwd = g_get_current_dir();
    ck_assert_int_eq(g_chdir(tmpdir), 0);
}

static void
teardown(void)
{
    ck_assert_int_eq(g_chdir(old_cwd), 0);
    g_clear_pointer(&old_cwd, g_free);
    test_tmpdir_remove(tmpdir);
    g_free(tmpdir);
}

static char *
path_of(const char *name)
{
    return g_build_filename(tmpdir, name, NULL);
}

static char *
write_file(const char *name, const char *text)
{
    return test_write_file(tmpdir, name, text);
}

static char *
read_file(const char *path)
{
    char *text = NULL;
    ck_assert_msg(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
    return text;
}

/*
 * The study's base: the tiny trace (relative to the study file) on a 4-GPU ring,
 * plain rings (collectives.tuning = off, not the default NCCL tuning) so that the
 * step times have the closed forms derived below.
 */
#define BASE                                                                                       \
    "[cluster]\nkind = ring\ngpus = 4\nlink_bandwidth = 50GB/s\nlink_latency = 500ns\n"            \
    "[workload]\ntrace = tiny\n"                                                                   \
    "[collectives]\ntuning = off\n"

/*
 * 100 points: 10 latencies x 5 chunk counts x 2 GPU counts; gpus = 2 fails at
 * run time (4 ranks on 2 GPUs), so half the rows are errors.
 */
static const char big_study[] = "[study]\n"
                                "axis.lat = cluster.link_latency: range 100ns 1000ns 100ns\n"
                                "axis.chunks = collectives.chunks: 1, 2, 3, 4, 5\n"
                                "axis.gpus = cluster.gpus: 4, 2\n"
                                "metrics = step_time_us, exposed_comm_us_max, compute_us_mean, "
                                "events, gpus\n" BASE;

static weft_study_t *
load_ok(const char *name, const char *text)
{
    g_autofree char *path = write_file(name, text);
    g_autoptr(GError) error = NULL;
    weft_study_t *st = weft_study_load(path, &error);
    ck_assert_msg(st != NULL, "%s", error != NULL ? error->message : "");
    return st;
}

static void
run_ok(weft_study_t *st, const weft_study_options_t *opts, weft_study_stats_t *stats)
{
    g_autoptr(GError) error = NULL;
    ck_assert_msg(weft_study_run(st, opts, stats, &error), "%s",
                  error != NULL ? error->message : "");
}

START_TEST(test_axes_expand)
{
    g_autoptr(weft_study_t) st =
        load_ok("axes.ini", "[study]\n"
                            "axis.bw = cluster.link_bandwidth: log 50GB/s 800GB/s x2\n"
                            "axis.lat = cluster.link_latency: range 0.1us 0.3us 0.1us\n"
                            "axis.chunks = collectives.chunks: 1, 4\n" BASE);
    /* 5 bandwidths (50, 100, 200, 400, 800) x 3 latencies (0.1, 0.2, 0.3 with the 1e-9 slack)
     * x 2 chunk counts = 30 */
    ck_assert_uint_eq(weft_study_n_points(st), 30);
    /* the log form's count is found before its values are made: 1 to 2^20 by x2 is 21, the
     * last exactly STOP */
    g_autoptr(weft_study_t) lg =
        load_ok("log.ini", "[study]\naxis.c = collectives.chunks: log 1 1048576 x2\n" BASE);
    ck_assert_uint_eq(weft_study_n_points(lg), 21);
    g_autofree char *l20 = weft_study_point_text(lg, 20);
    ck_assert_str_eq(l20, "c=1048576");
    g_autofree char *p0 = weft_study_point_text(st, 0);
    ck_assert_str_eq(p0, "bw=50GB/s lat=0.1us chunks=1");
    /* last axis fastest: point 1 changes chunks only */
    g_autofree char *p1 = weft_study_point_text(st, 1);
    ck_assert_str_eq(p1, "bw=50GB/s lat=0.1us chunks=4");
    /* point 5 = 0 x 6 + 2 x 2 + 1: bw 50GB/s, lat 0.3us (printed %.15g, not
     * 0.30000000000000004), chunks 4 */
    g_autofree char *p5 = weft_study_point_text(st, 5);
    ck_assert_str_eq(p5, "bw=50GB/s lat=0.3us chunks=4");
    /* point 29 = the last of each axis */
    g_autofree char *p29 = weft_study_point_text(st, 29);
    ck_assert_str_eq(p29, "bw=800GB/s lat=0.3us chunks=4");
    ck_assert_uint_eq(strlen(weft_study_hash(st)), 64);
    /* default results: the study's name with .csv, in the current directory (not beside
     * the study: issue 20, item 7) */
    ck_assert_str_eq(weft_study_results_path(st), "axes.csv");
}
END_TEST

START_TEST(test_zip)
{
    g_autoptr(weft_study_t) st = load_ok("zip.ini", "[study]\nmode = zip\n"
                                                    "axis.gpus = cluster.gpus: 4, 8, 16\n"
                                                    "axis.chunks = collectives.chunks: 1, 2, 3\n"
                                                    "results = out/zip.csv\n" BASE);
    /* zip: point i takes the i-th value of every axis */
    ck_assert_uint_eq(weft_study_n_points(st), 3);
    g_autofree char *p2 = weft_study_point_text(st, 2);
    ck_assert_str_eq(p2, "gpus=16 chunks=3");
    /* results as written: relative to the current directory */
    ck_assert_str_eq(weft_study_results_path(st), "out/zip.csv");

    g_autofree char *path = write_file("zip-bad.ini", "[study]\nmode = zip\n"
                                                      "axis.gpus = cluster.gpus: 4, 8\n"
                                                      "axis.chunks = collectives.chunks: 1\n" BASE);
    g_autoptr(GError) error = NULL;
    ck_assert_ptr_null(weft_study_load(path, &error));
    ck_assert(g_error_matches(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE));
}
END_TEST

START_TEST(test_row_by_hand)
{
    g_autoptr(weft_study_t) st = load_ok("hand.ini", big_study);
    weft_study_options_t opts = {.jobs = 2};
    weft_study_stats_t stats;
    run_ok(st, &opts, &stats);
    ck_assert(stats.done);
    ck_assert_uint_eq(stats.points, 100);
    ck_assert_uint_eq(stats.ran, 100);
    ck_assert_uint_eq(stats.failed, 50); /* every gpus = 2 point: 4 ranks on 2 GPUs */
    g_autofree char *csv_path = path_of("hand.csv");
    g_autofree char *csv = read_file(csv_path);
    g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
    /* lat_us: the latency axis as numbers (its values are times), after its text */
    ck_assert_str_eq(lines[0], "point,lat:cluster.link_latency,lat_us,chunks:collectives.chunks,"
                               "gpus:cluster.gpus,step_time_us,exposed_comm_us_max,"
                               "compute_us_mean,events,gpus,status,error");
    /*
     * Point 0: latency 100 ns, 1 chunk, 4 GPUs. Ring all-reduce over 4 ranks:
     * 2 (4 - 1) = 6 steps of 4,000,000 / 4 = 1,000,000 B at 50 GB/s = 20 us,
     * each + 0.1 us latency: 6 x 20.1 = 120.6 us, all exposed. Step = 100 +
     * 120.6 + 50 = 270.6 us; compute 150 us on every rank.
     */
    ck_assert(g_str_has_prefix(lines[1], "0,100ns,0.100000,1,4,270.600000,120.600000,150.000000,"));
    ck_assert(g_str_has_suffix(lines[1], ",4,ok,"));
    /* Point 1: the same with 2 GPUs fails; its metrics are empty, the message names the GPUs */
    ck_assert(g_str_has_prefix(lines[1 + 1], "1,100ns,0.100000,1,2,,,,,,error,"));
    /* Point 98: latency 1000 ns, 5 chunks, 4 GPUs; point 99 its 2-GPU twin */
    ck_assert(g_str_has_prefix(lines[99], "98,1000ns,1.000000,5,4,"));
    ck_assert_str_eq(lines[101], ""); /* 100 rows, then the final newline */
    ck_assert_ptr_null(lines[102]);
    /* the journal is gone */
    g_autofree char *journal = path_of("hand.csv.partial");
    ck_assert(!g_file_test(journal, G_FILE_TEST_EXISTS));
}
END_TEST

/* Runs big_study with @opts into tmpdir/@out and returns the CSV text. */
static char *
run_big(const char *out, weft_study_options_t opts, weft_study_stats_t *stats)
{
    g_autoptr(weft_study_t) st = load_ok("big.ini", big_study);
    g_autofree char *path = path_of(out);
    opts.output = path;
    run_ok(st, &opts, stats);
    return stats->done ? read_file(path) : NULL;
}

START_TEST(test_same_csv_any_jobs)
{
    weft_study_stats_t s1, s2;
    g_autofree char *j1 = run_big("j1.csv", (weft_study_options_t){.jobs = 1}, &s1);
    g_autofree char *j2 = run_big("j2.csv", (weft_study_options_t){.jobs = 2}, &s2);
    g_autofree char *j7 = run_big("j7.csv", (weft_study_options_t){.jobs = 7}, &s2);
    ck_assert_str_eq(j1, j2);
    ck_assert_str_eq(j1, j7);
}
END_TEST

START_TEST(test_stop_and_resume)
{
    weft_study_stats_t s;
    g_autofree char *ref = run_big("ref.csv", (weft_study_options_t){.jobs = 1}, &s);
    /* stop after 37 rows, as a kill would leave it */
    g_autofree char *none =
        run_big("r.csv", (weft_study_options_t){.jobs = 2, .stop_after = 37}, &s);
    ck_assert_ptr_null(none);
    ck_assert(!s.done);
    ck_assert_uint_eq(s.ran, 37);
    g_autofree char *journal = path_of("r.csv.partial");
    g_autofree char *jtext = read_file(journal);
    /* the stamp line, then exactly 37 rows */
    g_auto(GStrv) jlines = g_strsplit(jtext, "\n", -1);
    ck_assert_uint_eq(g_strv_length(jlines) - 2, 37);
    /* a torn last line, as a kill during a write would leave */
    g_autofree char *torn = g_strconcat(jtext, "99,1000ns,5", NULL);
    ck_assert(g_file_set_contents(journal, torn, -1, NULL));
    /* without resume, the journal is refused */
    {
        g_autoptr(weft_study_t) st = load_ok("big.ini", big_study);
        g_autofree char *out = path_of("r.csv");
        weft_study_options_t opts = {.jobs = 2, .output = out};
        g_autoptr(GError) error = NULL;
        ck_assert(!weft_study_run(st, &opts, NULL, &error));
        ck_assert(g_error_matches(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_JOURNAL));
    }
    /* stop again after 20 more, then finish */
    g_autofree char *none2 =
        run_big("r.csv", (weft_study_options_t){.jobs = 1, .resume = TRUE, .stop_after = 20}, &s);
    ck_assert_ptr_null(none2);
    ck_assert_uint_eq(s.resumed, 37);
    ck_assert_uint_eq(s.ran, 20);
    g_autofree char *done = run_big("r.csv", (weft_study_options_t){.jobs = 2, .resume = TRUE}, &s);
    ck_assert(s.done);
    ck_assert_uint_eq(s.resumed, 57);
    ck_assert_uint_eq(s.ran, 43);    /* 100 - 57 */
    ck_assert_uint_eq(s.failed, 50); /* journal rows counted too */
    ck_assert_str_eq(done, ref);
    ck_assert(!g_file_test(journal, G_FILE_TEST_EXISTS));
}
END_TEST

START_TEST(test_journal_of_another_study)
{
    weft_study_stats_t s;
    g_autofree char *none =
        run_big("o.csv", (weft_study_options_t){.jobs = 1, .stop_after = 3}, &s);
    /* the same output, another study (one more chunk count) */
    g_autofree char *text = g_strdup(big_study);
    char *p = strstr(text, "1, 2, 3, 4, 5");
    ck_assert_ptr_nonnull(p);
    p[12] = '6';
    g_autoptr(weft_study_t) other = load_ok("other.ini", text);
    g_autofree char *out = path_of("o.csv");
    weft_study_options_t opts = {.jobs = 1, .output = out, .resume = TRUE};
    g_autoptr(GError) error = NULL;
    ck_assert(!weft_study_run(other, &opts, NULL, &error));
    ck_assert(g_error_matches(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_JOURNAL));
    /* nor may another shard of the same study resume it */
    g_autoptr(weft_study_t) same = load_ok("big.ini", big_study);
    weft_study_options_t sh = {
        .jobs = 1, .output = out, .resume = TRUE, .shard_k = 1, .shard_n = 2};
    g_clear_error(&error);
    ck_assert(!weft_study_run(same, &sh, NULL, &error));
    ck_assert(g_error_matches(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_JOURNAL));
}
END_TEST

START_TEST(test_shards_merge)
{
    weft_study_stats_t s;
    g_autofree char *ref = run_big("all.csv", (weft_study_options_t){.jobs = 2}, &s);
    const guint n = 3;
    char *parts[4] = {NULL};
    guint total = 0;
    for (guint k = 1; k <= n; k++) {
        g_autofree char *name = g_strdup_printf("part%u.csv", k);
        g_autofree char *text =
            run_big(name, (weft_study_options_t){.jobs = 2, .shard_k = k, .shard_n = n}, &s);
        /* shard k holds the points i with i mod 3 = k - 1: 34, 33, 33 of 100 */
        ck_assert_uint_eq(s.points, k == 1 ? 34 : 33);
        total += s.points;
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        ck_assert(g_str_has_prefix(lines[0], "# weft sweep shard study="));
        for (guint l = 2; lines[l][0] != '\0'; l++) {
            guint64 pt = g_ascii_strtoull(lines[l], NULL, 10);
            ck_assert_uint_eq(pt % n, k - 1);
        }
        parts[k - 1] = path_of(name);
    }
    ck_assert_uint_eq(total, 100);
    g_autofree char *merged_path = path_of("merged.csv");
    g_autoptr(GError) error = NULL;
    /* in any order */
    const char *order[] = {parts[2], parts[0], parts[1], NULL};
    ck_assert_msg(weft_study_merge(order, merged_path, &error), "%s",
                  error != NULL ? error->message : "");
    g_autofree char *merged = read_file(merged_path);
    ck_assert_str_eq(merged, ref);

    /* a missing shard: MERGE, naming the points */
    const char *missing[] = {parts[0], parts[1], NULL};
    ck_assert(!weft_study_merge(missing, merged_path, &error));
    ck_assert(g_error_matches(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_MERGE));
    g_clear_error(&error);
    /* a shard twice */
    const char *twice[] = {parts[0], parts[1], parts[2], parts[1], NULL};
    ck_assert(!weft_study_merge(twice, merged_path, &error));
    ck_assert(g_error_matches(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_MERGE));
    g_clear_error(&error);
    /* an unsharded CSV is not a shard */
    g_autofree char *all = path_of("all.csv");
    const char *plain[] = {all, NULL};
    ck_assert(!weft_study_merge(plain, merged_path, &error));
    ck_assert(g_error_matches(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_MERGE));
    g_clear_error(&error);
    /* a shard of another study */
    g_autoptr(weft_study_t) other =
        load_ok("small.ini", "[study]\naxis.c = collectives.chunks: range 1 100 1\n" BASE);
    g_autofree char *op = path_of("other1.csv");
    weft_study_options_t oo = {.jobs = 2, .output = op, .shard_k = 2, .shard_n = 3};
    run_ok(other, &oo, &s);
    const char *foreign[] = {parts[0], op, parts[2], NULL};
    ck_assert(!weft_study_merge(foreign, merged_path, &error));
    ck_assert(g_error_matches(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_MERGE));
    for (guint k = 0; k < n; k++) {
        g_free(parts[k]);
    }
}
END_TEST

/* Loading @study fails with @code, and nothing was written beside it. */
static void
expect_load_error(const char *study, gint code)
{
    g_autofree char *path = write_file("bad.ini", study);
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_study_t) st = weft_study_load(path, &error);
    ck_assert_ptr_null(st);
    ck_assert_msg(g_error_matches(error, WEFT_STUDY_ERROR, code), "%s: got %s", study,
                  error != NULL ? error->message : "no error");
    g_autofree char *csv = path_of("bad.csv");
    g_autofree char *journal = path_of("bad.csv.partial");
    ck_assert(!g_file_test(csv, G_FILE_TEST_EXISTS));
    ck_assert(!g_file_test(journal, G_FILE_TEST_EXISTS));
}

START_TEST(test_bad_axes_fail_before_running)
{
    /* an unknown scenario key */
    expect_load_error("[study]\naxis.c = collectives.chunkz: 1, 2\n" BASE, WEFT_STUDY_ERROR_AXIS);
    /* an unknown group */
    expect_load_error("[study]\naxis.c = colectives.chunks: 1, 2\n" BASE, WEFT_STUDY_ERROR_AXIS);
    /* a value that does not parse: the third */
    expect_load_error("[study]\naxis.c = collectives.chunks: 1, 2, two\n" BASE,
                      WEFT_STUDY_ERROR_AXIS);
    /* a quantity without its unit */
    expect_load_error("[study]\naxis.bw = cluster.link_bandwidth: 50GB/s, 50\n" BASE,
                      WEFT_STUDY_ERROR_AXIS);
    /* a [cluster] key the ring builder does not know (checked by building the cluster) */
    expect_load_error("[study]\naxis.o = cluster.oversubscription: 1:1, 2:1\n" BASE,
                      WEFT_STUDY_ERROR_AXIS);
    /* a [cluster] value the builder refuses */
    expect_load_error("[study]\naxis.g = cluster.gpus: 4, 0\n" BASE, WEFT_STUDY_ERROR_AXIS);
    /* malformed axes and ranges */
    expect_load_error("[study]\naxis.c = collectives.chunks 1, 2\n" BASE, WEFT_STUDY_ERROR_PARSE);
    expect_load_error("[study]\naxis.c = collectives.chunks: range 1 8\n" BASE,
                      WEFT_STUDY_ERROR_PARSE);
    expect_load_error("[study]\naxis.c = collectives.chunks: range 8 1 1\n" BASE,
                      WEFT_STUDY_ERROR_PARSE);
    expect_load_error("[study]\naxis.b = cluster.link_bandwidth: log 50GB/s 800Gb/s x2\n" BASE,
                      WEFT_STUDY_ERROR_PARSE);
    expect_load_error("[study]\naxis.b = cluster.link_bandwidth: log 50GB/s 800GB/s 2\n" BASE,
                      WEFT_STUDY_ERROR_PARSE);
    expect_load_error("[study]\naxis.c = collectives.chunks: 1, , 2\n" BASE,
                      WEFT_STUDY_ERROR_PARSE);
    /* an axis with no values at all (issue 19, item 2: it used to crash reading value 0) */
    expect_load_error("[study]\naxis.a = w.t:\n" BASE, WEFT_STUDY_ERROR_PARSE);
    expect_load_error("[study]\naxis.c = collectives.chunks:   \n" BASE, WEFT_STUDY_ERROR_PARSE);
    /* a log axis past range's cap: factor 1 + 2^-52 from 1 to 2 is ~2^52 values (issue 19,
     * item 3: it used to loop and grow without bound), and 1 to 2 by x(1 + 1e-8), ln 2 / 1e-8
     * = 6.9e7 values, over the cap of 2^24 = 1.7e7: refused before any value is made */
    expect_load_error("[study]\naxis.c = collectives.chunks: log 1 2 x1.0000000000000002\n" BASE,
                      WEFT_STUDY_ERROR_PARSE);
    expect_load_error("[study]\naxis.c = collectives.chunks: log 1 2 x1.00000001\n" BASE,
                      WEFT_STUDY_ERROR_PARSE);
    /* [study] keys, metrics, the base */
    expect_load_error("[study]\naxes.c = collectives.chunks: 1\n" BASE, WEFT_STUDY_ERROR_KEY);
    expect_load_error("[study]\nmetrics = step_time_ms\n" BASE, WEFT_STUDY_ERROR_KEY);
    expect_load_error("[study]\nmode = diagonal\n" BASE, WEFT_STUDY_ERROR_PARSE);
    expect_load_error("[study]\n" BASE "[output]\ndir = out\n", WEFT_STUDY_ERROR_KEY);
    expect_load_error("[study]\nscenario = missing.ini\n", WEFT_STUDY_ERROR_BASE);
    expect_load_error("[study]\n[cluster]\nkind = ring\n", WEFT_STUDY_ERROR_BASE);
    expect_load_error("[study]\naxis.c = collectives.chunks: 1\naxis.d = collectives.chunks: "
                      "2\n" BASE,
                      WEFT_STUDY_ERROR_AXIS);
    expect_load_error("[cluster]\nkind = ring\n", WEFT_STUDY_ERROR_KEY);
    /* a key set twice */
    expect_load_error("[study]\nmode = zip\nmode = zip\n" BASE, WEFT_STUDY_ERROR_PARSE);
}
END_TEST

START_TEST(test_paths_relative_to_study)
{
    /* a base scenario file in a subdirectory, with the trace relative to it */
    g_autofree char *sub = path_of("sub");
    ck_assert_int_eq(g_mkdir(sub, 0755), 0);
    g_autofree char *sc = write_file("sub/base.ini", "[cluster]\nkind = ring\ngpus = 4\n"
                                                     "link_bandwidth = 50GB/s\n"
                                                     "link_latency = 500ns\n"
                                                     "[workload]\ntrace = ../tiny\n"
                                                     "[collectives]\ntuning = off\n");
    g_autoptr(weft_study_t) st =
        load_ok("rel.ini", "[study]\nscenario = sub/base.ini\n"
                           "axis.t = workload.trace: tiny, nothere\nmetrics = step_time_us\n");
    weft_study_options_t opts = {.jobs = 1};
    weft_study_stats_t s;
    run_ok(st, &opts, &s);
    /* tiny (relative to the study) runs: 100 + 6 x 20.5 + 50 = 273 us; nothere fails */
    g_autofree char *csv_path = path_of("rel.csv");
    g_autofree char *csv = read_file(csv_path);
    g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
    ck_assert_str_eq(lines[1], "0,tiny,273.000000,ok,");
    ck_assert(g_str_has_prefix(lines[2], "1,nothere,,error,"));
    ck_assert_uint_eq(s.failed, 1);
}
END_TEST

/* ---- training-run studies ------------------------------------------------------------------ */

/* A `weft train` base: 1,024 GPUs, 20,000 steps of 10 s, checkpoint write 5.67 TB / 2 TB/s. */
static const char train_base[] = "[train]\ngpus = 1024\nstep_time = 10s\nsteps = 20000\n"
                                 "checkpoint_interval = 50\ncheckpoint_size = 5.67TB\n"
                                 "storage_write_bandwidth = 2TB/s\nsamples = 1000\nseed = 7\n"
                                 "[failures]\ndistribution = exponential\n";

START_TEST(test_train_by_hand)
{
    /*
     * No failures (every MTBF off): 1,000 steps of 10 s, a checkpoint of 1 TB at 1 TB/s =
     * 1 s after every K steps. Equation (1) of job.h: wall = N T + floor(N / K) delta.
     */
    g_autofree char *base = write_file("nofail.ini", train_base);
    g_autoptr(weft_study_t) st =
        load_ok("train-hand.ini",
                "[study]\nscenario = nofail.ini\n"
                "axis.k = train.checkpoint_interval: 100, 300, 1000\n"
                "metrics = goodput_pct_mean, e2e_days_mean, interruptions_mean, "
                "checkpoint_interval_s, checkpoint_write_s, checkpoint_interval_steps\n"
                "[train]\nsteps = 1000\ncheckpoint_size = 1TB\nstorage_write_bandwidth = 1TB/s\n"
                "samples = 10\n"
                "[failures]\nmtbf_gpu = off\nmtbf_host = off\nmtbf_nic = off\n"
                "mtbf_switch = off\nmtbf_cable = off\nmtbf_software = off\n"
                "mtbf_maintenance = off\nmtbf_unknown = off\nmtbf_planned = off\n");
    ck_assert_uint_eq(weft_study_n_points(st), 3);
    weft_study_options_t opts = {.jobs = 2};
    weft_study_stats_t stats;
    run_ok(st, &opts, &stats);
    ck_assert(stats.done);
    ck_assert_uint_eq(stats.failed, 0);
    g_autofree char *csv_path = path_of("train-hand.csv");
    g_autofree char *csv = read_file(csv_path);
    g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
    ck_assert_str_eq(lines[0], "point,k:train.checkpoint_interval,goodput_pct_mean,e2e_days_mean,"
                               "interruptions_mean,checkpoint_interval_s,checkpoint_write_s,"
                               "checkpoint_interval_steps,status,error");
    /* K = 100: 10,000 + 10 x 1 = 10,010 s = 0.115856 d; goodput 10,000 / 10,010 = 99.900100 %;
     * interval 100 x 10 s = 1,000 s of compute */
    ck_assert_str_eq(lines[1], "0,100,99.900100,0.115856,0.000000,1000.000000,1.000000,100,ok,");
    /* K = 300: 3 checkpoints (none after the last 100 steps): 10,003 s = 0.115775 d;
     * 10,000 / 10,003 = 99.970009 % */
    ck_assert_str_eq(lines[2], "1,300,99.970009,0.115775,0.000000,3000.000000,1.000000,300,ok,");
    /* K = 1,000: one checkpoint, after the last step: 10,001 s = 0.115752 d; 99.990001 % */
    ck_assert_str_eq(lines[3], "2,1000,99.990001,0.115752,0.000000,10000.000000,1.000000,1000,ok,");
    ck_assert_str_eq(lines[4], "");
}
END_TEST

/* The direct computation of one point: the base file, samples 40, then K and distribution. */
static void
direct_train(const char *base, const char *k, const char *dist, guint threads, weft_job_mc_t *mc,
             weft_job_params_t *p)
{
    g_autoptr(weft_job_config_t) cfg = weft_job_config_new();
    g_autoptr(GError) error = NULL;
    ck_assert(weft_job_config_load(cfg, base, &error));
    ck_assert(weft_job_config_set_value(cfg, "train", "samples", "40", &error));
    ck_assert(weft_job_config_set_value(cfg, "train", "checkpoint_interval", k, &error));
    ck_assert(weft_job_config_set_value(cfg, "failures", "distribution", dist, &error));
    ck_assert(weft_job_config_resolve(cfg, p, NULL, &error));
    p->threads = threads;
    if (p->checkpoint_auto) {
        g_autoptr(weft_job_search_t) search = weft_job_search(p, TRUE, &error);
        ck_assert_ptr_nonnull(search);
        ck_assert(weft_job_monte_carlo(p, search->best_steps, mc, NULL, &error));
    } else {
        ck_assert(weft_job_monte_carlo(p, p->checkpoint_steps, mc, NULL, &error));
    }
}

static const char train_study[] =
    "[study]\nscenario = base-train.ini\n"
    "axis.k = train.checkpoint_interval: 20, 80, auto\n"
    "axis.dist = failures.distribution: exponential, weibull\n"
    "metrics = goodput_pct_mean, e2e_days_mean, e2e_days_p90, interruptions_mean, "
    "checkpoint_interval_steps\n"
    "[train]\nsamples = 40\n";

START_TEST(test_train_matches_monte_carlo)
{
    g_autofree char *base = write_file("base-train.ini", train_base);
    g_autoptr(weft_study_t) st = load_ok("train-mc.ini", train_study);
    ck_assert_uint_eq(weft_study_n_points(st), 6);
    g_autofree char *out1 = path_of("train-j1.csv");
    g_autofree char *out2 = path_of("train-j2.csv");
    weft_study_stats_t stats;
    run_ok(st, &(weft_study_options_t){.jobs = 1, .output = out1}, &stats);
    ck_assert_uint_eq(stats.failed, 0);
    run_ok(st, &(weft_study_options_t){.jobs = 2, .output = out2}, &stats);
    g_autofree char *csv1 = read_file(out1);
    g_autofree char *csv2 = read_file(out2);
    ck_assert_str_eq(csv1, csv2); /* -j 1 and -j 2: the same bytes */
    g_auto(GStrv) lines = g_strsplit(csv1, "\n", -1);
    /* grid order, the last axis fastest: (20, exp), (20, weibull), (80, exp), ... (auto, weibull)
     */
    const char *ks[] = {"20", "80", "auto"};
    const char *dists[] = {"exponential", "weibull"};
    for (guint i = 0; i < 6; i++) {
        weft_job_mc_t mc;
        weft_job_params_t p;
        /* the direct call with 2 threads: the samples do not depend on the thread count */
        direct_train(base, ks[i / 2], dists[i % 2], 2, &mc, &p);
        g_autofree char *want =
            g_strdup_printf("%u,%s,%s,%.6f,%.6f,%.6f,%.6f,%" G_GUINT64_FORMAT ",ok,", i, ks[i / 2],
                            dists[i % 2], 100.0 * mc.goodput.mean, mc.wall_s.mean / 86400.0,
                            mc.wall_s.p90 / 86400.0, mc.interruptions.mean, mc.checkpoint_steps);
        ck_assert_str_eq(lines[i + 1], want);
        if (i < 4) {
            ck_assert_uint_eq(mc.checkpoint_steps, i < 2 ? 20 : 80);
        }
    }
    /* failures happen: 1,024 GPUs over >= 200,000 s at Llama 3's rates (an interruption
     * every ~49.5 h at this size: 16,384 / 1,024 x 3.09 h) give a goodput below 100 % */
    ck_assert(strstr(lines[1], ",100.000000,") == NULL);
}
END_TEST

START_TEST(test_train_bad_axes)
{
    g_autofree char *base = write_file("base-train.ini", train_base);
    static const struct {
        const char *line;
        gint code;
    } cases[] = {
        /* an unknown train key */
        {"axis.k = train.checkpoint_intervl: 10, 20\n", WEFT_STUDY_ERROR_AXIS},
        /* a value that does not parse */
        {"axis.k = train.checkpoint_interval: 10, often\n", WEFT_STUDY_ERROR_AXIS},
        /* a value only weft_job_config_resolve() refuses: more than 2^31 - 1 samples */
        {"axis.n = train.samples: 10, 4000000000\n", WEFT_STUDY_ERROR_AXIS},
        /* a replay metric in a training-run study */
        {"axis.k = train.checkpoint_interval: 10\nmetrics = step_time_us\n", WEFT_STUDY_ERROR_KEY},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *text =
            g_strdup_printf("[study]\nscenario = base-train.ini\n%s", cases[i].line);
        g_autofree char *path = write_file("bad-train.ini", text);
        g_autoptr(GError) error = NULL;
        g_autoptr(weft_study_t) st = weft_study_load(path, &error);
        ck_assert_msg(st == NULL, "case %u loaded", i);
        ck_assert_msg(g_error_matches(error, WEFT_STUDY_ERROR, cases[i].code), "case %u: %s", i,
                      error->message);
    }
    /* a scenario group in a training-run study */
    g_autofree char *path =
        write_file("bad-group.ini", "[study]\nscenario = base-train.ini\n[cluster]\nnodes = 2\n");
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_study_t) st = weft_study_load(path, &error);
    ck_assert_ptr_null(st);
    ck_assert(g_error_matches(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_BASE));
}
END_TEST

START_TEST(test_parse_shard)
{
    guint k = 0, n = 0;
    ck_assert(weft_study_parse_shard("3/8", &k, &n, NULL));
    ck_assert_uint_eq(k, 3);
    ck_assert_uint_eq(n, 8);
    const char *bad[] = {"0/8", "9/8", "3", "3/0", "a/b", "1/2/3", ""};
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(GError) error = NULL;
        ck_assert_msg(!weft_study_parse_shard(bad[i], &k, &n, &error), "%s", bad[i]);
        ck_assert(g_error_matches(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_USAGE));
    }
}
END_TEST

static Suite *
study_suite(void)
{
    Suite *s = suite_create("study");
    TCase *tc = tcase_create("study");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_axes_expand);
    tcase_add_test(tc, test_zip);
    tcase_add_test(tc, test_row_by_hand);
    tcase_add_test(tc, test_same_csv_any_jobs);
    tcase_add_test(tc, test_stop_and_resume);
    tcase_add_test(tc, test_journal_of_another_study);
    tcase_add_test(tc, test_shards_merge);
    tcase_add_test(tc, test_bad_axes_fail_before_running);
    tcase_add_test(tc, test_paths_relative_to_study);
    tcase_add_test(tc, test_train_by_hand);
    tcase_add_test(tc, test_train_matches_monte_carlo);
    tcase_add_test(tc, test_train_bad_axes);
    tcase_add_test(tc, test_parse_shard);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(study_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
