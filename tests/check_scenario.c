/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of scenario/: defaults, loading a file, overrides, unknown groups
 * and keys, values checked per type, relative paths, the effective
 * configuration and its round trip, the cluster file merged with the
 * scenario's own [cluster] keys, a whole run on an inline ring with its step
 * time derived by hand, and the [output] files (and an unwritable output
 * directory failing before anything runs); workloads without a trace: the
 * [transformer] group against the equivalent generator spec, the one-collective
 * workload against the closed-form ring and against its plan run alone on
 * bundled clusters, and their cross-key errors. Scratch files live in a
 * temporary directory per test.
 */
#include <check.h>
#include <stdlib.h>

#include "config.h"
#include "coll/planner.h"
#include "core/sim.h"
#include "scenario/scenario.h"
#include "testutil.h"
#include "workload/gen.h"

static char *tmpdir;

static void
setup(void)
{
    tmpdir = g_dir_make_tmp("weft-scenario-XXXXXX", NULL);
    ck_assert_ptr_nonnull(tmpdir);
}

static void
teardown(void)
{
    test_tmpdir_remove(tmpdir);
    g_free(tmpdir);
}

/* Writes @text to tmpdir/@name (creating parent directories); returns the path. */
static char *
write_file(const char *name, const char *text)
{
    return test_write_file(tmpdir, name, text);
}

/*
 * Writes the 4-rank trace tmpdir/tiny.<r>.et: "forward" 100 us, then a 4 MB
 * (4,000,000 B) all-reduce over all ranks, then "optimizer" 50 us.
 */
static char *
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
    return g_build_filename(tmpdir, "tiny", NULL);
}

/*
 * The tiny scenario: 4 GPUs on a ring, 10 GB/s (1e10 B/s) per direction and
 * 1 us per link, described inline; compute durations halved. It asks for the
 * plain ring model (collectives.tuning = off) so that its step times have the
 * closed forms derived below; the default, NCCL's tuning, is tested apart
 * (test_run_default_tuning).
 */
static const char tiny_scenario[] = "[cluster]\n"
                                    "kind = ring\n"
                                    "gpus = 4\n"
                                    "link_bandwidth = 10GB/s\n"
                                    "link_latency = 1us\n"
                                    "[workload]\n"
                                    "trace = tiny\n"
                                    "[compute]\n"
                                    "duration_scale = 0.5\n"
                                    "[collectives]\n"
                                    "tuning = off\n";

/* ---- defaults, loading, overrides --------------------------------------------------- */

START_TEST(test_defaults)
{
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    /* defaults as the key table in scenario.c and doc/scenario.md give them */
    ck_assert_str_eq(weft_scenario_get(sc, "workload", "placement"), "in-order");
    ck_assert_str_eq(weft_scenario_get(sc, "workload", "placement_seed"), "1");
    /* unset: NCCL's choice under tuning = nccl, 1 under tuning = off (a saved configuration
     * writes `chunks =`, which reads back unset, so it reruns identically) */
    ck_assert_ptr_null(weft_scenario_get(sc, "collectives", "chunks"));
    /* auto: NCCL's tuning on clusters with NVLink or NICs, the plain model on abstract ones */
    ck_assert_str_eq(weft_scenario_get(sc, "collectives", "tuning"), "auto"); /* issue 5 */
    ck_assert_str_eq(weft_scenario_get(sc, "network", "model"), "analytical");
    ck_assert_str_eq(weft_scenario_get(sc, "network", "ecmp_seed"), "0");
    ck_assert_str_eq(weft_scenario_get(sc, "compute", "duration_scale"), "1");
    /* keys without a default are unset */
    ck_assert_ptr_null(weft_scenario_get(sc, "workload", "trace"));
    ck_assert_ptr_null(weft_scenario_get(sc, "cluster", "file"));
    ck_assert_ptr_null(weft_scenario_get(sc, "output", "dir"));
    ck_assert_ptr_null(weft_scenario_get(sc, "cluster", "kind"));
    ck_assert_ptr_null(weft_scenario_get(sc, "nosuch", "key"));
    /* nothing to run: no trace, no cluster */
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_scenario_check(sc, &err));
    ck_assert(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY));
}
END_TEST

START_TEST(test_load_file)
{
    g_autofree char *path = write_file("s.ini", "# a comment\n"
                                                "[collectives]\nchunks = 4\n"
                                                "[network]\nmodel = analytical\necmp_seed = 7\n"
                                                "[workload]\ntrace = /abs/trace\n"
                                                "placement = random\nplacement_seed = 42\n"
                                                "[faults]\n"
                                                "[cluster]\nkind = ring\ngpus = 4\n");
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_scenario_load(sc, path, &err), "%s", err ? err->message : "");
    ck_assert_str_eq(weft_scenario_get(sc, "collectives", "chunks"), "4");
    ck_assert_str_eq(weft_scenario_get(sc, "network", "ecmp_seed"), "7");
    ck_assert_str_eq(weft_scenario_get(sc, "workload", "trace"), "/abs/trace");
    ck_assert_str_eq(weft_scenario_get(sc, "workload", "placement"), "random");
    ck_assert_str_eq(weft_scenario_get(sc, "workload", "placement_seed"), "42");
    /* inline cluster keys pass through as written */
    ck_assert_str_eq(weft_scenario_get(sc, "cluster", "kind"), "ring");
    ck_assert_str_eq(weft_scenario_get(sc, "cluster", "gpus"), "4");
    /* not set by the file: still the default */
    ck_assert_str_eq(weft_scenario_get(sc, "compute", "duration_scale"), "1");
    ck_assert(weft_scenario_check(sc, &err));
}
END_TEST

START_TEST(test_overrides_win)
{
    g_autofree char *path = write_file("s.ini", "[collectives]\nchunks = 4\n"
                                                "[cluster]\nkind = ring\ngpus = 4\n");
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert(weft_scenario_load(sc, path, &err));
    /* --set after the file: the last assignment wins, spaces around '=' allowed */
    ck_assert(weft_scenario_set(sc, "collectives.chunks = 8", &err));
    ck_assert_str_eq(weft_scenario_get(sc, "collectives", "chunks"), "8");
    ck_assert(weft_scenario_set(sc, "cluster.gpus=8", &err));
    ck_assert_str_eq(weft_scenario_get(sc, "cluster", "gpus"), "8");
    ck_assert(weft_scenario_set_value(sc, "collectives", "chunks", "2", &err));
    ck_assert_str_eq(weft_scenario_get(sc, "collectives", "chunks"), "2");
    /* a file loaded later replaces only the keys it sets */
    g_autofree char *p2 = write_file("t.ini", "[collectives]\nchunks = 3\n");
    ck_assert(weft_scenario_load(sc, p2, &err));
    ck_assert_str_eq(weft_scenario_get(sc, "collectives", "chunks"), "3");
    ck_assert_str_eq(weft_scenario_get(sc, "cluster", "gpus"), "8");
}
END_TEST

/* ---- unknown groups and keys ---------------------------------------------------------- */

static void
assert_set_fails(const char *assignment, gint code)
{
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert_msg(!weft_scenario_set(sc, assignment, &err), "%s accepted", assignment);
    ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, code), "%s: code %d, expected %d: %s",
                  assignment, err->code, code, err->message);
}

static void
assert_load_fails(const char *text, gint code)
{
    g_autofree char *path = write_file("bad.ini", text);
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert_msg(!weft_scenario_load(sc, path, &err), "%s accepted", text);
    ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, code), "%s: code %d, expected %d: %s",
                  text, err->code, code, err->message);
}

START_TEST(test_unknown_group_and_key)
{
    assert_load_fails("[bogus]\nx = 1\n", WEFT_SCENARIO_ERROR_KEY);
    assert_load_fails("[bogus]\n", WEFT_SCENARIO_ERROR_KEY); /* an empty unknown group too */
    assert_load_fails("[workload]\ntracee = x\n", WEFT_SCENARIO_ERROR_KEY);
    assert_load_fails("[faults]\nlink_down = 1\n", WEFT_SCENARIO_ERROR_KEY);
    assert_set_fails("bogus.key=1", WEFT_SCENARIO_ERROR_KEY);
    assert_set_fails("collectives.chunk=1", WEFT_SCENARIO_ERROR_KEY);
    assert_set_fails("faults.straggler=1", WEFT_SCENARIO_ERROR_KEY);
    assert_set_fails("output.directory=x", WEFT_SCENARIO_ERROR_KEY);
}
END_TEST

START_TEST(test_bad_syntax)
{
    assert_set_fails("collectives.chunks", WEFT_SCENARIO_ERROR_PARSE); /* no '=' */
    assert_set_fails("chunks=4", WEFT_SCENARIO_ERROR_PARSE);           /* no group */
    assert_set_fails(".chunks=4", WEFT_SCENARIO_ERROR_PARSE);
    assert_set_fails("collectives.=4", WEFT_SCENARIO_ERROR_PARSE);
    assert_set_fails("cluster.a b=4", WEFT_SCENARIO_ERROR_PARSE); /* not a key name */
    assert_load_fails("this is not INI\n", WEFT_SCENARIO_ERROR_PARSE);
    /* a missing scenario file */
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    g_autofree char *path = g_build_filename(tmpdir, "nosuch.ini", NULL);
    ck_assert(!weft_scenario_load(sc, path, &err));
    ck_assert(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO));
}
END_TEST

/* ---- values checked per type ---------------------------------------------------------- */

START_TEST(test_bad_values)
{
    /* integer: range [1, 2^20], whole numbers only */
    assert_set_fails("collectives.chunks=0", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("collectives.chunks=-3", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("collectives.chunks=1048577", WEFT_SCENARIO_ERROR_VALUE); /* 2^20 + 1 */
    assert_set_fails("collectives.chunks=1.5", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("collectives.chunks=four", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("collectives.channels=",
                     WEFT_SCENARIO_ERROR_VALUE); /* a key with a default needs a value */
    assert_set_fails("network.ecmp_seed=-1", WEFT_SCENARIO_ERROR_VALUE);
    /* fault lines: their syntax when set (targets need the cluster: at run time) */
    assert_set_fails("faults.events=1ms straggler gpu:0 1.5", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("faults.events=-1ms straggler gpu:0 0.5", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("faults.events=1ms explode spine0", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("workload.placement_seed=1e3", WEFT_SCENARIO_ERROR_VALUE);
    /* number: > 0 and finite */
    assert_set_fails("compute.duration_scale=0", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("compute.duration_scale=-0.5", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("compute.duration_scale=fast", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("compute.duration_scale=inf", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("compute.duration_scale=2x", WEFT_SCENARIO_ERROR_VALUE);
    /* choice */
    assert_set_fails("workload.placement=diagonal", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("workload.placement=In-Order", WEFT_SCENARIO_ERROR_VALUE);
    assert_set_fails("network.model=packet", WEFT_SCENARIO_ERROR_VALUE);
    /* the same in a file, with the file named */
    assert_load_fails("[collectives]\nchunks = 0\n", WEFT_SCENARIO_ERROR_VALUE);

    /* boundaries that are accepted, stored in canonical form */
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert(weft_scenario_set(sc, "collectives.chunks=1048576", &err)); /* 2^20 */
    ck_assert(weft_scenario_set(sc, "collectives.chunks=+07", &err));
    ck_assert_str_eq(weft_scenario_get(sc, "collectives", "chunks"), "7");
    ck_assert(weft_scenario_set(sc, "compute.duration_scale=1e-3", &err));
    ck_assert_str_eq(weft_scenario_get(sc, "compute", "duration_scale"), "0.001");
    ck_assert(weft_scenario_set(sc, "workload.placement=round-robin", &err));
    /* a failed set leaves the old value */
    ck_assert(!weft_scenario_set(sc, "collectives.chunks=0", &err));
    ck_assert_str_eq(weft_scenario_get(sc, "collectives", "chunks"), "7");
}
END_TEST

START_TEST(test_quantities)
{
    g_autoptr(GError) err = NULL;
    double v = 0.0;
    /* 400 Gb/s = 400e9 bits/s / 8 = 50e9 B/s */
    ck_assert(weft_scenario_i_parse_quantity("rate", "400Gb/s", &v, &err));
    ck_assert_double_eq(v, 50e9);
    /* 2.5 us = 2,500,000 ps */
    ck_assert(weft_scenario_i_parse_quantity("time", "2.5us", &v, &err));
    ck_assert_double_eq(v, 2500000.0);
    /* 16 MiB = 16 * 2^20 = 16,777,216 B */
    ck_assert(weft_scenario_i_parse_quantity("bytes", "16MiB", &v, &err));
    ck_assert_double_eq(v, 16777216.0);
    /* a bare number where a unit is needed */
    const char *bad[][2] = {
        {"rate", "50"}, {"time", "500"}, {"bytes", "4096"}, {"rate", "500ns"}, {"time", "-1us"}};
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_clear_error(&err);
        ck_assert_msg(!weft_scenario_i_parse_quantity(bad[i][0], bad[i][1], &v, &err), "%s %s",
                      bad[i][0], bad[i][1]);
        ck_assert(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE));
    }
}
END_TEST

/* ---- paths ---------------------------------------------------------------------------- */

START_TEST(test_relative_paths)
{
    g_autofree char *path = write_file("sub/dir/s.ini", "[workload]\n"
                                                        "trace = ../traces/step\n"
                                                        "comm_groups = groups.json\n"
                                                        "[output]\ndir = ./out\n");
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert(weft_scenario_load(sc, path, &err));
    /* relative to the scenario file's directory tmpdir/sub/dir, '..' and '.' resolved */
    g_autofree char *trace = g_build_filename(tmpdir, "sub", "traces", "step", NULL);
    g_autofree char *groups = g_build_filename(tmpdir, "sub", "dir", "groups.json", NULL);
    g_autofree char *out = g_build_filename(tmpdir, "sub", "dir", "out", NULL);
    ck_assert_str_eq(weft_scenario_get(sc, "workload", "trace"), trace);
    ck_assert_str_eq(weft_scenario_get(sc, "workload", "comm_groups"), groups);
    ck_assert_str_eq(weft_scenario_get(sc, "output", "dir"), out);
    /* on the command line: relative to the working directory */
    ck_assert(weft_scenario_set(sc, "workload.trace=rel/prefix", &err));
    g_autofree char *cwd = g_get_current_dir();
    g_autofree char *expect = g_build_filename(cwd, "rel", "prefix", NULL);
    ck_assert_str_eq(weft_scenario_get(sc, "workload", "trace"), expect);
    /* an empty path unsets the key */
    ck_assert(weft_scenario_set(sc, "workload.comm_groups=", &err));
    ck_assert_ptr_null(weft_scenario_get(sc, "workload", "comm_groups"));
}
END_TEST

/* ---- the effective configuration ------------------------------------------------------ */

START_TEST(test_effective_config_round_trip)
{
    g_autofree char *cluster = write_file("c/ring.ini", "[cluster]\nkind = ring\ngpus = 4\n"
                                                        "link_bandwidth = 5GB/s\n"
                                                        "link_latency = 1us\n");
    g_autofree char *path = write_file("s.ini", "[cluster]\nfile = c/ring.ini\n"
                                                "link_bandwidth = 10GB/s\n"
                                                "[workload]\ntrace = tiny\n"
                                                "placement = random\n"
                                                "[compute]\nduration_scale = 0.25\n");
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_scenario_load(sc, path, &err), "%s", err ? err->message : "");
    ck_assert(weft_scenario_set(sc, "network.ecmp_seed=9", &err));
    g_autofree char *ini = weft_scenario_to_ini(sc);

    /* the header names the version; every group and key is there with its final value */
    g_autofree char *header = g_strdup_printf("# weft %s:", PACKAGE_VERSION);
    ck_assert(g_str_has_prefix(ini, header));
    const char *expected_lines[] = {
        "[cluster]",
        "[workload]",
        "[collectives]",
        "[network]",
        "[compute]",
        "[faults]",
        "[output]",
        "placement = random",
        "chunks =",
        "placement_seed = 1",
        "model = analytical",
        "ecmp_seed = 9",
        "dir =",
        "comm_groups =",
        "placement_file =",
        "duration_scale = 0.25",
        "kind = ring",
        "link_latency = 1us",
        "link_bandwidth = 10GB/s",
    };
    for (guint i = 0; i < G_N_ELEMENTS(expected_lines); i++) {
        g_autofree char *needle = g_strdup_printf("\n%s\n", expected_lines[i]);
        ck_assert_msg(strstr(ini, needle) != NULL, "no line \"%s\" in:\n%s", expected_lines[i],
                      ini);
    }
    /* the cluster file's bandwidth is overridden, not listed twice */
    ck_assert_ptr_null(strstr(ini, "link_bandwidth = 5GB/s"));
    /* paths are absolute: the scenario's directory is tmpdir */
    g_autofree char *file_line = g_strdup_printf("\nfile = %s/c/ring.ini\n", tmpdir);
    g_autofree char *trace_line = g_strdup_printf("\ntrace = %s/tiny\n", tmpdir);
    ck_assert(strstr(ini, file_line) != NULL);
    ck_assert(strstr(ini, trace_line) != NULL);
    /* groups in the fixed order */
    ck_assert(strstr(ini, "[cluster]") < strstr(ini, "[workload]"));
    ck_assert(strstr(ini, "[workload]") < strstr(ini, "[collectives]"));
    ck_assert(strstr(ini, "[collectives]") < strstr(ini, "[network]"));
    ck_assert(strstr(ini, "[network]") < strstr(ini, "[compute]"));
    ck_assert(strstr(ini, "[compute]") < strstr(ini, "[faults]"));
    ck_assert(strstr(ini, "[faults]") < strstr(ini, "[output]"));

    /* loaded back from another directory, it is the same configuration */
    g_autofree char *saved = write_file("elsewhere/effective.ini", ini);
    g_autoptr(weft_scenario_t) again = weft_scenario_new();
    ck_assert_msg(weft_scenario_load(again, saved, &err), "%s", err ? err->message : "");
    g_autofree char *ini2 = weft_scenario_to_ini(again);
    ck_assert_str_eq(ini2, ini);
    /* and the defaults alone round-trip too */
    g_autoptr(weft_scenario_t) empty = weft_scenario_new();
    g_autofree char *ini3 = weft_scenario_to_ini(empty);
    g_autofree char *saved3 = write_file("defaults.ini", ini3);
    g_autoptr(weft_scenario_t) empty2 = weft_scenario_new();
    ck_assert(weft_scenario_load(empty2, saved3, &err));
    g_autofree char *ini4 = weft_scenario_to_ini(empty2);
    ck_assert_str_eq(ini4, ini3);
}
END_TEST

START_TEST(test_yaml_cluster_takes_no_other_key)
{
    g_autofree char *yaml = write_file("ring.yml", "topology: [ Ring ]\nnpus_count: [ 4 ]\n"
                                                   "bandwidth: [ 50 ]\nlatency: [ 500 ]\n");
    g_autofree char *path = write_file("s.ini", "[cluster]\nfile = ring.yml\ngpus = 8\n"
                                                "[workload]\ntrace = tiny\n");
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert(weft_scenario_load(sc, path, &err));
    ck_assert(!weft_scenario_check(sc, &err));
    ck_assert(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY));
    /* a cluster.file that does not exist fails when it is set */
    g_clear_error(&err);
    ck_assert(!weft_scenario_set(sc, "cluster.file=nosuch.ini", &err));
    ck_assert(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO));
}
END_TEST

START_TEST(test_placement_file_required)
{
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert(weft_scenario_set(sc, "workload.trace=t", &err));
    ck_assert(weft_scenario_set(sc, "cluster.kind=ring", &err));
    ck_assert(weft_scenario_set(sc, "workload.placement=file", &err));
    ck_assert(!weft_scenario_check(sc, &err));
    ck_assert(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY));
}
END_TEST

/* ---- running ---------------------------------------------------------------------------- */

static weft_scenario_run_t *
run_tiny(const char *extra_set, GError **err)
{
    g_autofree char *prefix = write_tiny_trace();
    g_autofree char *path = write_file("tiny.ini", tiny_scenario);
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    ck_assert(weft_scenario_load(sc, path, err));
    if (extra_set != NULL) {
        ck_assert_msg(weft_scenario_set(sc, extra_set, err), "%s", (*err)->message);
    }
    return weft_scenario_run(sc, err);
}

START_TEST(test_run_inline_ring)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_scenario_run_t) run = run_tiny(NULL, &err);
    ck_assert_msg(run != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(weft_topo_n_gpus(run->topo), 4);
    ck_assert_uint_eq(run->replay->n_ranks, 4);
    ck_assert_uint_eq(run->chunks, 1);
    ck_assert_str_eq(run->network_model, "analytical");
    for (guint r = 0; r < 4; r++) {
        ck_assert_uint_eq(run->rank_gpu[r], r); /* in-order placement */
    }
    /*
     * Ring all-reduce of S = 4,000,000 B over n = 4: 2 (n - 1) = 6 steps, each
     * moving S / n = 1,000,000 B from GPU i to its ring neighbour i+1 over one
     * link: 1 us + 1e6 B / 1e10 B/s = 1 + 100 = 101 us per step, 606 us.
     * Compute is halved (duration_scale 0.5): forward 50 us, optimizer 25 us.
     * Step = 50 + 606 + 25 = 681 us on every rank.
     */
    ck_assert_int_eq(run->replay->step_ps, 681 * WEFT_PS_PER_US);
    for (guint r = 0; r < 4; r++) {
        ck_assert_int_eq(run->replay->ranks[r].finish_ps, 681 * WEFT_PS_PER_US);
        ck_assert_int_eq(run->replay->ranks[r].compute_ps, 75 * WEFT_PS_PER_US); /* 50 + 25 */
        ck_assert_int_eq(run->replay->ranks[r].exposed_comm_ps, 606 * WEFT_PS_PER_US);
    }
}
END_TEST

START_TEST(test_run_override_chunks)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_scenario_run_t) run = run_tiny("collectives.chunks=2", &err);
    ck_assert_msg(run != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(run->chunks, 2);
    /*
     * With C = 2 chunks each transfer moves S / (n C) = 500,000 B: a = 1 us of
     * latency, t = 50 us on the wire. Transfer (step k, chunk c) waits for the
     * delivery of (k - 1, c) (its data) and for the previous transfer on its
     * link to be sent (coll.h): the ring takes (K - 1) max(C t, a + t) + C t + a
     * = 5 x 100 + 100 + 1 = 601 us with K = 6 (the links' bandwidth bound, 600 us,
     * plus one latency). Step = 50 + 601 + 25 = 676 us.
     * (Before the collectives had link dependencies this was 432 us: the ring
     * ended after K + C - 1 = 7 transfers of 51 us, two chunks sharing a link at
     * full rate each.)
     */
    ck_assert_int_eq(run->replay->step_ps, 676 * WEFT_PS_PER_US);
}
END_TEST

START_TEST(test_run_default_tuning)
{
    /*
     * tuning = nccl runs NCCL's tuning model, not the plain ring of
     * test_run_inline_ring (681 us: 6 ring steps of 101 us, no protocol costs;
     * NCCL's model adds per-step protocol latency, so the ring of 4 cannot be
     * as fast). collectives.chunks is not given, so NCCL chooses the chunks.
     */
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_scenario_run_t) off = run_tiny(NULL, &err);
    ck_assert_msg(off != NULL, "%s", err ? err->message : "");
    ck_assert(!off->nccl_tuning);
    g_autoptr(weft_scenario_run_t) nccl = run_tiny("collectives.tuning=nccl", &err);
    ck_assert_msg(nccl != NULL, "%s", err ? err->message : "");
    ck_assert(nccl->nccl_tuning);
    ck_assert(!nccl->chunks_given);
    ck_assert_int_ne(nccl->replay->step_ps, off->replay->step_ps);

    /* the tiny scenario without its [collectives] group: the default, auto; a ring of
     * bare GPUs (no NVLink, no NIC) is abstract, so auto runs the plain model: the run
     * of tuning = off exactly, and the summary says why */
    g_autofree char *prefix = write_tiny_trace();
    g_autofree char *path = write_file("default.ini", "[cluster]\nkind = ring\ngpus = 4\n"
                                                      "link_bandwidth = 10GB/s\n"
                                                      "link_latency = 1us\n"
                                                      "[workload]\ntrace = tiny\n"
                                                      "[compute]\nduration_scale = 0.5\n");
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    ck_assert(weft_scenario_load(sc, path, &err));
    g_autoptr(weft_scenario_run_t) dflt = weft_scenario_run(sc, &err);
    ck_assert_msg(dflt != NULL, "%s", err ? err->message : "");
    ck_assert(!dflt->nccl_tuning);
    ck_assert(dflt->abstract);
    ck_assert_int_eq(dflt->replay->step_ps, off->replay->step_ps);
    for (guint r = 0; r < 4; r++) {
        ck_assert_int_eq(dflt->replay->ranks[r].finish_ps, off->replay->ranks[r].finish_ps);
    }
    g_autofree char *abstract_text = weft_scenario_run_summary(dflt);
    ck_assert_ptr_nonnull(strstr(abstract_text, "plain rings (an abstract cluster"));
    /* asked for, NCCL's tuning runs on the abstract cluster too (clusters with NVLink or
     * NICs get it by default: cli.sh replays the DGX H100 step under auto and nccl) */
    ck_assert(weft_scenario_set(sc, "collectives.tuning=nccl", &err));
    g_autoptr(weft_scenario_run_t) forced = weft_scenario_run(sc, &err);
    ck_assert_msg(forced != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(forced->replay->step_ps, nccl->replay->step_ps);
    /* the summary says who chose the chunks; a given chunks value forces them */
    g_autofree char *text = weft_scenario_run_summary(forced);
    ck_assert_ptr_nonnull(strstr(text, "chunks per collective as NCCL's tuning chooses"));
    ck_assert(weft_scenario_set(sc, "collectives.chunks=1", &err));
    g_autoptr(weft_scenario_run_t) one = weft_scenario_run(sc, &err);
    ck_assert_msg(one != NULL, "%s", err ? err->message : "");
    ck_assert(one->chunks_given);
    g_autofree char *text1 = weft_scenario_run_summary(one);
    ck_assert_ptr_nonnull(strstr(text1, "1 chunk(s) per collective (forced over NCCL's tuning)"));
}
END_TEST

START_TEST(test_run_cluster_file_with_override)
{
    g_autofree char *prefix = write_tiny_trace();
    /* The file says 5 GB/s; the scenario's own key makes it 10 GB/s: the tiny step again. */
    g_autofree char *cluster = write_file("c/ring.ini", "[cluster]\nkind = ring\ngpus = 4\n"
                                                        "link_bandwidth = 5GB/s\n"
                                                        "link_latency = 1us\n");
    g_autofree char *path = write_file("s.ini", "[cluster]\nfile = c/ring.ini\n"
                                                "link_bandwidth = 10GB/s\n"
                                                "[workload]\ntrace = tiny\n"
                                                "[compute]\nduration_scale = 0.5\n"
                                                "[collectives]\ntuning = off\n");
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert(weft_scenario_load(sc, path, &err));
    g_autoptr(weft_scenario_run_t) run = weft_scenario_run(sc, &err);
    ck_assert_msg(run != NULL, "%s", err ? err->message : "");
    /* as test_run_inline_ring: 50 + 6 (1 + 100) + 25 = 681 us */
    ck_assert_int_eq(run->replay->step_ps, 681 * WEFT_PS_PER_US);
    /* with 5 GB/s: 6 (1 + 200) = 1206 us of all-reduce, 50 + 1206 + 25 = 1281 us */
    ck_assert(weft_scenario_set(sc, "cluster.link_bandwidth=5GB/s", &err));
    g_autoptr(weft_scenario_run_t) run2 = weft_scenario_run(sc, &err);
    ck_assert_msg(run2 != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(run2->replay->step_ps, 1281 * WEFT_PS_PER_US);
}
END_TEST

START_TEST(test_run_bad_cluster_keys)
{
    g_autoptr(GError) err = NULL;
    /* the builders check [cluster]: an unknown key, a missing unit, an unknown kind */
    weft_scenario_run_t *run = run_tiny("cluster.link_colour=blue", &err);
    ck_assert_ptr_null(run);
    ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY), "%s",
                  err->message);
    g_clear_error(&err);
    run = run_tiny("cluster.link_bandwidth=10", &err);
    ck_assert_ptr_null(run);
    ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE), "%s",
                  err->message);
    g_clear_error(&err);
    run = run_tiny("cluster.kind=moebius", &err);
    ck_assert_ptr_null(run);
    ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY), "%s",
                  err->message);
}
END_TEST

/* ---- [output] ------------------------------------------------------------------------------ */

START_TEST(test_output_dir)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *out = g_build_filename(tmpdir, "results", "run1", NULL);
    g_autofree char *set = g_strdup_printf("output.dir=%s", out);
    g_autoptr(weft_scenario_run_t) run = run_tiny(set, &err); /* creates results/run1 */
    ck_assert_msg(run != NULL, "%s", err ? err->message : "");

    /* ranks.csv: a header and one row per rank; rank 0 as derived in test_run_inline_ring */
    g_autofree char *csv_path = g_build_filename(out, "ranks.csv", NULL);
    g_autofree char *csv = NULL;
    ck_assert(g_file_get_contents(csv_path, &csv, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
    ck_assert_uint_eq(g_strv_length(lines), 6); /* header, 4 rows, "" after the last newline */
    ck_assert_str_eq(lines[0], "rank,gpu,finish_us,compute_us,exposed_comm_us,idle_us,"
                               "mem_peak_bytes,mem_peak_us");
    /* 681 us finish = 75 us compute + 606 us exposed communication + 0 idle; a trace without
     * memory: empty memory cells */
    ck_assert_str_eq(lines[1], "0,0,681.000000,75.000000,606.000000,0.000000,,");
    ck_assert_str_eq(lines[5], "");

    /* summary.txt is what `weft replay` prints */
    g_autofree char *sum_path = g_build_filename(out, "summary.txt", NULL);
    g_autofree char *summary = NULL;
    ck_assert(g_file_get_contents(sum_path, &summary, NULL, NULL));
    g_autofree char *expect = weft_scenario_run_summary(run);
    ck_assert_str_eq(summary, expect);
    ck_assert(strstr(summary, "step time    681.000000 us\n") != NULL);

    /* scenario.ini loads back and runs to the same step time */
    g_autofree char *ini_path = g_build_filename(out, "scenario.ini", NULL);
    g_autoptr(weft_scenario_t) again = weft_scenario_new();
    ck_assert_msg(weft_scenario_load(again, ini_path, &err), "%s", err ? err->message : "");
    ck_assert_str_eq(weft_scenario_get(again, "output", "dir"), out);
    ck_assert_str_eq(weft_scenario_get(again, "compute", "duration_scale"), "0.5");
    g_autoptr(weft_scenario_run_t) run2 = weft_scenario_run(again, &err);
    ck_assert_msg(run2 != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(run2->replay->step_ps, run->replay->step_ps);

    /* no temporary or probe file is left behind: exactly the four files (scenario.ini,
     * ranks.csv, layers.csv, summary.txt) */
    g_autoptr(GDir) d = g_dir_open(out, 0, NULL);
    guint n = 0;
    while (g_dir_read_name(d) != NULL) {
        n++;
    }
    ck_assert_uint_eq(n, 4);
}
END_TEST

START_TEST(test_output_dir_unwritable_fails_first)
{
    /* a directory under a regular file cannot be created, by root either */
    g_autofree char *file = write_file("plain", "not a directory\n");
    g_autofree char *out = g_build_filename(file, "out", NULL);
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert(weft_scenario_set(sc, "cluster.kind=ring", &err));
    /* the trace does not exist: had anything been loaded first, that would be the error */
    g_autofree char *trace = g_build_filename(tmpdir, "nosuchtrace", NULL);
    ck_assert(weft_scenario_set_value(sc, "workload", "trace", trace, &err));
    ck_assert(weft_scenario_set_value(sc, "output", "dir", out, &err));
    g_autoptr(weft_scenario_run_t) run = weft_scenario_run(sc, &err);
    ck_assert_ptr_null(run);
    ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO), "%s",
                  err->message);
}
END_TEST

/* ---- workloads without a trace ------------------------------------------------------- */

/*
 * The 8-GPU switch cluster of the [transformer] tests, inline, with plain rings
 * (tuning = off): a saved configuration writes collectives.chunks = 1, which
 * under tuning = nccl would force one chunk when it runs again.
 */
static const char switch8_cluster[] = "[cluster]\n"
                                      "kind = switch\n"
                                      "gpus = 8\n"
                                      "link_bandwidth = 400GiB/s\n"
                                      "link_latency = 936.25ns\n"
                                      "[collectives]\n"
                                      "tuning = off\n";

/* Loads @text (written to tmpdir/@name) into a new scenario, then applies @sets. */
static weft_scenario_t *
scenario_of(const char *name, const char *text, const char *const *sets)
{
    g_autofree char *path = write_file(name, text);
    weft_scenario_t *sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_scenario_load(sc, path, &err), "%s", err ? err->message : "");
    for (guint i = 0; sets != NULL && sets[i] != NULL; i++) {
        ck_assert_msg(weft_scenario_set(sc, sets[i], &err), "%s", err ? err->message : "");
    }
    return sc;
}

START_TEST(test_transformer_equals_spec)
{
    /* The spec weft gen --spec would write for gpt3-1.3b, tp 2, pp 2, dp 2, global batch
     * 2 (= micro-batch 1 x dp 2, the scenario's default), on the H100 (the default gpu). */
    weft_gen_config_t c;
    ck_assert(weft_gen_preset("gpt3-1.3b", &c, NULL));
    c.tp = 2;
    c.pp = 2;
    c.dp = 2;
    c.global_batch = 2;
    g_autofree char *spec = g_build_filename(tmpdir, "step.gen", NULL);
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_gen_write_spec(&c, "h100", spec, &err), "%s", err ? err->message : "");
    g_autofree char *by_spec_text =
        g_strdup_printf("%s[workload]\ntrace = step.gen\n", switch8_cluster);
    g_autoptr(weft_scenario_t) by_spec = scenario_of("spec.ini", by_spec_text, NULL);
    g_autoptr(weft_scenario_run_t) a = weft_scenario_run(by_spec, &err);
    ck_assert_msg(a != NULL, "%s", err ? err->message : "");

    /* The same step from [transformer] keys; dp unset: 8 GPUs / (tp 2 x pp 2 x cp 1) = 2. */
    g_autofree char *by_keys_text = g_strdup_printf("%s[transformer]\nmodel = gpt3-1.3b\n"
                                                    "tp = 2\npp = 2\n",
                                                    switch8_cluster);
    g_autoptr(weft_scenario_t) by_keys = scenario_of("keys.ini", by_keys_text, NULL);
    g_autoptr(weft_scenario_run_t) b = weft_scenario_run(by_keys, &err);
    ck_assert_msg(b != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(b->workload->n_ranks, 8); /* tp 2 x pp 2 x dp 2 */
    ck_assert_uint_eq(weft_workload_node_count(b->workload), weft_workload_node_count(a->workload));
    ck_assert_int_gt(a->replay->step_ps, 0);
    ck_assert_int_eq(b->replay->step_ps, a->replay->step_ps); /* one generator, one parser */
    ck_assert_ptr_nonnull(strstr(b->trace_label, "dp=2 (from the cluster)"));

    /* The saved configuration runs again to the same step. */
    g_autofree char *ini = weft_scenario_to_ini(by_keys);
    g_autoptr(weft_scenario_t) again = scenario_of("again.ini", ini, NULL);
    ck_assert_str_eq(weft_scenario_get(again, "transformer", "tp"), "2");
    ck_assert_ptr_null(weft_scenario_get(again, "transformer", "dp")); /* still derived */
    g_autoptr(weft_scenario_run_t) r = weft_scenario_run(again, &err);
    ck_assert_msg(r != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(r->replay->step_ps, a->replay->step_ps);

    /* dp given: 1 replica of 4 ranks (fits the 8 GPUs), a different step. */
    const char *const dp1[] = {"transformer.dp=1", NULL};
    g_autoptr(weft_scenario_t) small = scenario_of("dp1.ini", by_keys_text, dp1);
    g_autoptr(weft_scenario_run_t) s = weft_scenario_run(small, &err);
    ck_assert_msg(s != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(s->workload->n_ranks, 4);
}
END_TEST

START_TEST(test_transformer_bad_values)
{
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    /* each value is checked when set: VALUE, naming the key and the value */
    const char *const bad[] = {"transformer.tp=0",          "transformer.tp=x",
                               "transformer.model=gpt9",    "transformer.gpu=z80",
                               "transformer.sp=maybe",      "transformer.recompute=some",
                               "transformer.precision=fp4", "transformer.attention=sparse",
                               "transformer.experts=-1",    NULL};
    for (guint i = 0; bad[i] != NULL; i++) {
        g_autoptr(GError) err = NULL;
        ck_assert_msg(!weft_scenario_set(sc, bad[i], &err), "%s accepted", bad[i]);
        ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE), "%s",
                      err->message);
        g_autofree char *key = g_strndup(bad[i], strchr(bad[i], '=') - bad[i]);
        ck_assert_msg(strstr(err->message, key) != NULL, "%s", err->message);
    }
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_scenario_set(sc, "transformer.layer=2", &err));
    ck_assert(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY));
    g_clear_error(&err);
    /* good spellings */
    ck_assert(weft_scenario_set(sc, "transformer.sp=true", NULL));
    ck_assert(weft_scenario_set(sc, "transformer.model=LLaMA3.1-405B", NULL));
    ck_assert(weft_scenario_set(sc, "transformer.gpu=a100", NULL));

    /* Values that pass alone but not together fail the run: VALUE. tp 3 does not
     * divide the 8 GPUs (dp unset), nor gpt3-1.3b's 16 heads with dp given. */
    const char *const tp3[] = {"transformer.model=gpt3-1.3b", "transformer.tp=3", NULL};
    g_autoptr(weft_scenario_t) a = scenario_of("tp3.ini", switch8_cluster, tp3);
    ck_assert_ptr_null(weft_scenario_run(a, &err));
    ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE), "%s",
                  err->message);
    g_clear_error(&err);
    ck_assert(weft_scenario_set(a, "transformer.dp=2", NULL));
    ck_assert_ptr_null(weft_scenario_run(a, &err));
    ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE), "%s",
                  err->message);
}
END_TEST

/* Runs @sets on top of a scenario without a workload; NULL with *err when it fails. */
static weft_scenario_run_t *
run_with(const char *cluster, const char *const *sets, GError **err)
{
    g_autoptr(weft_scenario_t) sc = scenario_of("w.ini", cluster, sets);
    return weft_scenario_run(sc, err);
}

START_TEST(test_workload_exclusive)
{
    /* Two descriptions of the workload, or a collective_* key alone: KEY, before any run. */
    const char *const cases[][3] = {
        {"workload.trace=t", "transformer.tp=2", NULL},
        {"workload.collective=all_reduce", "transformer.model=gpt3-1.3b", NULL},
        {"workload.collective=all_reduce", "workload.trace=t", NULL},
        {"workload.collective_bytes=1MB", NULL, NULL},
        {"workload.collective_iterations=3", NULL, NULL},
        {"workload.collective=all_gather", NULL, NULL}, /* no size */
        {"transformer.tp=2", "workload.comm_groups=g.json", NULL},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(weft_scenario_t) sc = scenario_of("x.ini", switch8_cluster, cases[i]);
        g_autoptr(GError) err = NULL;
        ck_assert_msg(!weft_scenario_check(sc, &err), "case %u passed", i);
        ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY), "%s",
                      err->message);
    }
    /* The conflict names both keys. */
    g_autoptr(weft_scenario_t) sc = scenario_of("x.ini", switch8_cluster, cases[0]);
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_scenario_check(sc, &err));
    ck_assert_ptr_nonnull(strstr(err->message, "transformer.tp"));
    ck_assert_ptr_nonnull(strstr(err->message, "workload.trace"));
}
END_TEST

/* 8 GPUs on a ring, 10 GB/s (1e10 B/s) per direction, 1 us per link; plain rings. */
static const char ring8_cluster[] = "[cluster]\n"
                                    "kind = ring\n"
                                    "gpus = 8\n"
                                    "link_bandwidth = 10GB/s\n"
                                    "link_latency = 1us\n"
                                    "[collectives]\n"
                                    "tuning = off\n";

START_TEST(test_collective_ring)
{
    g_autoptr(GError) err = NULL;
    const char *const ar[] = {"workload.collective=all_reduce", "workload.collective_bytes=8MB",
                              NULL};
    g_autoptr(weft_scenario_run_t) run = run_with(ring8_cluster, ar, &err);
    ck_assert_msg(run != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(run->workload->n_ranks, 8); /* collective_ranks unset: every GPU */
    ck_assert_uint_eq(run->replay->collectives, 1);
    /*
     * Ring all-reduce of S = 8 MB = 8,000,000 B over n = 8: 2 (n - 1) = 14 steps,
     * each moving S / n = 1,000,000 B to the ring neighbour over one link:
     * 1 us + 1e6 B / 1e10 B/s = 101 us per step; 14 x 101 = 1414 us, all exposed.
     */
    ck_assert_int_eq(run->replay->step_ps, 1414 * WEFT_PS_PER_US);
    for (guint r = 0; r < 8; r++) {
        ck_assert_int_eq(run->replay->ranks[r].compute_ps, 0);
        ck_assert_int_eq(run->replay->ranks[r].exposed_comm_ps, 1414 * WEFT_PS_PER_US);
    }

    /* Three iterations back to back, each after the previous: 3 x 1414 = 4242 us. */
    const char *const ar3[] = {"workload.collective=all_reduce", "workload.collective_bytes=8MB",
                               "workload.collective_iterations=3", NULL};
    g_autoptr(weft_scenario_run_t) run3 = run_with(ring8_cluster, ar3, &err);
    ck_assert_msg(run3 != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(run3->replay->collectives, 3);
    ck_assert_int_eq(run3->replay->step_ps, 3 * run->replay->step_ps);
    ck_assert_int_eq(run3->replay->step_ps, 4242 * WEFT_PS_PER_US);

    /*
     * All-gather, S = each rank's share (doc/collectives.md) = 1 MB: n - 1 = 7 ring
     * steps of one whole share, 1 us + 1e6 B / 1e10 B/s = 101 us each: 707 us.
     */
    const char *const ag[] = {"workload.collective=all-gather", "workload.collective_bytes=1MB",
                              NULL};
    g_autoptr(weft_scenario_run_t) rag = run_with(ring8_cluster, ag, &err);
    ck_assert_msg(rag != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(rag->replay->step_ps, 707 * WEFT_PS_PER_US);

    /* collective_ranks: ranks 0..N-1 only. */
    const char *const four[] = {"workload.collective=all_reduce", "workload.collective_bytes=8MB",
                                "workload.collective_ranks=4", NULL};
    g_autoptr(weft_scenario_run_t) r4 = run_with(ring8_cluster, four, &err);
    ck_assert_msg(r4 != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(r4->workload->n_ranks, 4);
    ck_assert_ptr_nonnull(strstr(r4->trace_label, "all_reduce of 8MB x 1 on 4 ranks"));
}
END_TEST

START_TEST(test_collective_takes_its_plan_alone)
{
    /*
     * The one-collective workload through the scenario run path (weft replay's) takes, to
     * the picosecond, what its plan takes run alone on an idle network of the cluster: the
     * plan of a planner over the same cluster, NCCL's tuning (the default, auto, on these
     * clusters), every GPU in order. That is weft coll's time for the first size of a
     * sweep (coll_cli.sh checks the command's own output against weft replay).
     */
    static const struct {
        const char *cluster, *op, *model;
        guint64 bytes;
    } cases[] = {
        {"dgx-h100.ini", "all_reduce", "analytical", 4096},
        {"dgx-h100.ini", "all_reduce", "analytical", 1u << 20},
        {"dgx-h100.ini", "all_reduce", "analytical", 256u << 20},
        {"dgx-h100.ini", "all_gather", "analytical", 1u << 20},
        {"dgx-h100.ini", "all_reduce", "flow", 64u << 20},
        {"p5-h100-2node.ini", "all_reduce", "analytical", 4096},
        {"p5-h100-2node.ini", "all_reduce", "analytical", 64u << 20},
        {"p5-h100-2node.ini", "all_reduce", "flow", 64u << 20},
        {"p5-h100-2node.ini", "reduce_scatter", "flow", 4u << 20},
    };
    const char *src = g_getenv("WEFT_SRCDIR");
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *path =
            g_build_filename(src != NULL ? src : ".", "topologies", cases[i].cluster, NULL);
        g_autofree char *bytes = g_strdup_printf("%" G_GUINT64_FORMAT "B", cases[i].bytes);
        g_autoptr(GError) err = NULL;
        g_autoptr(weft_scenario_t) sc = weft_scenario_new();
        ck_assert(weft_scenario_set_value(sc, "cluster", "file", path, &err));
        ck_assert(weft_scenario_set_value(sc, "workload", "collective", cases[i].op, &err));
        ck_assert(weft_scenario_set_value(sc, "workload", "collective_bytes", bytes, &err));
        ck_assert(weft_scenario_set_value(sc, "network", "model", cases[i].model, &err));
        g_autoptr(weft_scenario_run_t) run = weft_scenario_run(sc, &err);
        ck_assert_msg(run != NULL, "%s", err ? err->message : "");
        ck_assert(run->nccl_tuning);

        weft_coll_op_t op;
        ck_assert(weft_coll_op_from_name(cases[i].op, &op));
        weft_net_model_t model;
        ck_assert(weft_net_model_from_name(cases[i].model, &model, &err));
        g_autoptr(weft_topo_t) topo = weft_topo_load(path, &err);
        ck_assert_ptr_nonnull(topo);
        guint n = weft_topo_n_gpus(topo);
        g_autofree gint *members = g_new(gint, n);
        for (guint g = 0; g < n; g++) {
            members[g] = weft_topo_gpu_vertex(topo, g);
        }
        weft_coll_tuning_t tun = {0};
        weft_coll_planner_config_t pcfg = {.tuning = &tun};
        g_autoptr(weft_fabric_t) F = weft_fabric_new(topo);
        g_autoptr(weft_coll_planner_t) P = weft_coll_planner_new(F, &pcfg);
        weft_coll_planner_add_comm(P, members, n);
        const weft_coll_plan_t *plan =
            weft_coll_planner_plan(P, op, cases[i].bytes, 0, NULL, &err);
        ck_assert_msg(plan != NULL, "%s", err ? err->message : "");
        g_autoptr(weft_sim_t) sim = weft_sim_new(1);
        g_autoptr(weft_net_t) net = weft_net_new(sim, F, model);
        weft_time_t alone = weft_coll_time_full(sim, net, plan, members, NULL, &err);
        ck_assert_msg(run->replay->step_ps == alone,
                      "%s %s of %" G_GUINT64_FORMAT " B under %s: replayed %" G_GINT64_FORMAT
                      " ps, alone %" G_GINT64_FORMAT " ps",
                      cases[i].cluster, cases[i].op, cases[i].bytes, cases[i].model,
                      run->replay->step_ps, alone);
    }
}
END_TEST

START_TEST(test_collective_bad_values)
{
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    /* checked when set: VALUE naming the key and value */
    const char *const bad[] = {"workload.collective=allgatherv", "workload.collective_bytes=0B",
                               "workload.collective_bytes=12",   "workload.collective_iterations=0",
                               "workload.collective_ranks=0",    NULL};
    for (guint i = 0; bad[i] != NULL; i++) {
        g_autoptr(GError) err = NULL;
        ck_assert_msg(!weft_scenario_set(sc, bad[i], &err), "%s accepted", bad[i]);
        ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE), "%s",
                      err->message);
    }
    /* an unknown operation lists the valid ones */
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_scenario_set(sc, "workload.collective=allgatherv", &err));
    ck_assert_ptr_nonnull(strstr(err->message, "all_gather"));
    ck_assert_ptr_nonnull(strstr(err->message, "reduce_scatter"));
    g_clear_error(&err);

    /* A barrier carries no data: a size with it fails the run (VALUE). */
    const char *const barrier[] = {"workload.collective=barrier", "workload.collective_bytes=1MB",
                                   NULL};
    ck_assert_ptr_null(run_with(ring8_cluster, barrier, &err));
    ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE), "%s",
                  err->message);
    g_clear_error(&err);
    /* More ranks than GPUs: the workload check's RANKS. */
    const char *const many[] = {"workload.collective=all_reduce", "workload.collective_bytes=1MB",
                                "workload.collective_ranks=16", NULL};
    ck_assert_ptr_null(run_with(ring8_cluster, many, &err));
    ck_assert_msg(g_error_matches(err, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_RANKS), "%s",
                  err->message);
}
END_TEST

/* weft replay --help lists every key of the composed table with what it takes. */
START_TEST(test_keys_help)
{
    g_autofree char *help = weft_scenario_keys_help();
    ck_assert_ptr_nonnull(strstr(help, "  collectives.tuning "));
    ck_assert_ptr_nonnull(strstr(help, "auto|off|nccl (default auto)"));
    ck_assert_ptr_nonnull(strstr(help, "  transformer.recompute "));
    ck_assert_ptr_nonnull(strstr(help, "none|selective|full"));
    ck_assert_ptr_nonnull(strstr(help, "  network.model "));
    ck_assert_ptr_nonnull(strstr(help, "analytical|flow (default analytical)"));
    ck_assert_ptr_nonnull(strstr(help, "  workload.collective_iterations "));
    ck_assert_ptr_nonnull(strstr(help, "1..10000 (default 1)"));
}
END_TEST

/* doc/scenario.md has a row "| group | `key` |" (or "| group | `a`, `key`, ... |") for every
 * key of the table (and so for a key added as one row of a module's table). */
static gboolean
doc_has_row(const char *doc, const char *group, const char *key)
{
    g_autofree char *start = g_strdup_printf("| %s | ", group);
    g_autofree char *name = g_strdup_printf("`%s`", key);
    g_auto(GStrv) lines = g_strsplit(doc, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++) {
        if (!g_str_has_prefix(lines[i], start)) {
            continue;
        }
        const char *cell = lines[i] + strlen(start);
        const char *end = strchr(cell, '|');
        g_autofree char *keys = end != NULL ? g_strndup(cell, (gsize)(end - cell)) : NULL;
        if (keys != NULL && strstr(keys, name) != NULL) {
            return TRUE;
        }
    }
    return FALSE;
}

START_TEST(test_keys_documented)
{
    const char *srcdir = g_getenv("WEFT_SRCDIR");
    if (srcdir == NULL) {
        return; /* run outside make check */
    }
    g_autofree char *path = g_build_filename(srcdir, "doc", "scenario.md", NULL);
    g_autofree char *doc = NULL;
    ck_assert(g_file_get_contents(path, &doc, NULL, NULL));
    g_autofree char *help = weft_scenario_keys_help();
    g_auto(GStrv) lines = g_strsplit(help, "\n", -1);
    guint checked = 0;
    for (guint i = 0; lines[i] != NULL; i++) {
        g_auto(GStrv) words = g_strsplit_set(g_strstrip(lines[i]), " .", 3);
        if (words[0] == NULL || words[1] == NULL || strcmp(words[1], "KEY") == 0) {
            continue;
        }
        ck_assert_msg(doc_has_row(doc, words[0], words[1]), "doc/scenario.md has no row for %s.%s",
                      words[0], words[1]);
        checked++;
    }
    ck_assert_uint_ge(checked, 60);
}
END_TEST

static Suite *
scenario_suite(void)
{
    Suite *s = suite_create("scenario");
    TCase *tc = tcase_create("keys");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_load_file);
    tcase_add_test(tc, test_overrides_win);
    tcase_add_test(tc, test_unknown_group_and_key);
    tcase_add_test(tc, test_bad_syntax);
    tcase_add_test(tc, test_bad_values);
    tcase_add_test(tc, test_quantities);
    tcase_add_test(tc, test_relative_paths);
    tcase_add_test(tc, test_effective_config_round_trip);
    tcase_add_test(tc, test_yaml_cluster_takes_no_other_key);
    tcase_add_test(tc, test_placement_file_required);
    tcase_add_test(tc, test_keys_help);
    tcase_add_test(tc, test_keys_documented);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("run");
    tcase_add_checked_fixture(tr, setup, teardown);
    tcase_add_test(tr, test_run_inline_ring);
    tcase_add_test(tr, test_run_override_chunks);
    tcase_add_test(tr, test_run_default_tuning);
    tcase_add_test(tr, test_run_cluster_file_with_override);
    tcase_add_test(tr, test_run_bad_cluster_keys);
    tcase_add_test(tr, test_output_dir);
    tcase_add_test(tr, test_output_dir_unwritable_fails_first);
    suite_add_tcase(s, tr);
    TCase *tw = tcase_create("workloads");
    tcase_add_checked_fixture(tw, setup, teardown);
    tcase_add_test(tw, test_transformer_equals_spec);
    tcase_add_test(tw, test_transformer_bad_values);
    tcase_add_test(tw, test_workload_exclusive);
    tcase_add_test(tw, test_collective_ring);
    tcase_add_test(tw, test_collective_takes_its_plan_alone);
    tcase_add_test(tw, test_collective_bad_values);
    suite_add_tcase(s, tw);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(scenario_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
