/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the ASTRA-sim system JSON reader (coll/astra_system.h): every key of a
 * sample file read into its typed field, Sys.cc's defaults where keys are absent, the
 * error code of each bad value (a file error for unreadable or non-object input, a value
 * error for a wrong type, range or name), warnings for keys weft does not know or honor,
 * the plan parameters weft_astra_system_plan() derives, and a run on a tiny world (2 GPUs
 * on 1 link) whose network time is truncated to whole ns as ASTRA-sim's is.
 */
#include "coll/astra_system.h"

#include <check.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "coll/planner.h"
#include "core/sim.h"
#include "net/net.h"
#include "topo/fabric.h"
#include "topo/topo.h"

/* Writes @json to a fresh file; returns its path (g_free; the file is left in a temp dir
 * removed by the caller's rm_file()). */
static char *
write_json(const char *json)
{
    GError *error = NULL;
    char *path = NULL;
    gint fd = g_file_open_tmp("weft-astra-XXXXXX.json", &path, &error);
    ck_assert_msg(fd >= 0, "%s", error ? error->message : "");
    close(fd);
    ck_assert(g_file_set_contents(path, json, -1, &error));
    return path;
}

static void
rm_file(char *path)
{
    g_unlink(path);
    g_free(path);
}

/* Loads @json; returns the system (NULL on error, with *error set). */
static weft_astra_system_t *
load(const char *json, GPtrArray **warnings, GError **error)
{
    char *path = write_json(json);
    weft_astra_system_t *sys = weft_astra_system_load(path, warnings, error);
    rm_file(path);
    return sys;
}

/* Whether some warning names @key. */
static gboolean
warned(const GPtrArray *w, const char *key)
{
    g_autofree char *needle = g_strdup_printf("key \"%s\"", key);
    for (guint i = 0; w != NULL && i < w->len; i++) {
        if (strstr(g_ptr_array_index(w, i), needle) != NULL) {
            return TRUE;
        }
    }
    return FALSE;
}

START_TEST(sample_file_reads_into_typed_values)
{
    /* every key ASTRA-sim 518bd513 reads, with values unlike the defaults */
    const char *json = "{\"scheduling-policy\": \"FIFO\", \"collective-optimization\": "
                       "\"localBWAware\", \"local-reduction-delay\": 3, "
                       "\"active-chunks-per-dimension\": 2, \"L\": 1, \"o\": 2, \"g\": 3.5, "
                       "\"G\": 0.25, \"endpoint-delay\": 7, \"model-shared-bus\": 0, "
                       "\"preferred-dataset-splits\": 8, \"peak-perf\": 900, "
                       "\"local-mem-bw\": 1600.5, \"roofline-enabled\": 0, "
                       "\"trace-enabled\": 0, \"replay-only\": 0, \"track-local-mem\": 0, "
                       "\"local-mem-trace-filename\": \"mem.txt\", "
                       "\"all-reduce-implementation\": [\"ring\", \"direct8\"], "
                       "\"all-gather-implementation\": [\"oneRing\"], "
                       "\"reduce-scatter-implementation\": [\"halvingDoubling\", \"oneDirect\"], "
                       "\"all-to-all-implementation\": [\"direct\"]}";
    GError *error = NULL;
    GPtrArray *w = NULL;
    g_autoptr(weft_astra_system_t) sys = load(json, &w, &error);
    ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
    ck_assert_int_eq(sys->scheduling_policy, WEFT_ASTRA_SCHED_FIFO);
    ck_assert_int_eq(sys->collective_optimization, WEFT_ASTRA_OPT_LOCAL_BW_AWARE);
    ck_assert_int_eq(sys->local_reduction_delay, 3);
    ck_assert_uint_eq(sys->active_chunks, 2);
    ck_assert_uint_eq(sys->dataset_splits, 8);
    ck_assert_int_eq(sys->endpoint_delay_ns, 7);
    ck_assert(sys->loggp[0] == 1.0 && sys->loggp[1] == 2.0);
    ck_assert(sys->loggp[2] == 3.5 && sys->loggp[3] == 0.25);
    ck_assert(!sys->model_shared_bus);
    ck_assert(sys->peak_perf_given && sys->peak_perf_TFLOPs == 900.0);
    ck_assert(sys->local_mem_bw_given && sys->local_mem_bw_GBps == 1600.5);
    ck_assert(!sys->roofline_enabled && !sys->trace_enabled && !sys->replay_only);
    ck_assert(!sys->track_local_mem);
    ck_assert_str_eq(sys->local_mem_trace_filename, "mem.txt");
    ck_assert(!sys->boost_mode_given);
    ck_assert_uint_eq(sys->n_dims[WEFT_ASTRA_OP_ALL_REDUCE], 2);
    ck_assert_int_eq(sys->impl[WEFT_ASTRA_OP_ALL_REDUCE][0].impl, WEFT_ASTRA_IMPL_RING);
    ck_assert_int_eq(sys->impl[WEFT_ASTRA_OP_ALL_REDUCE][0].window, -1);
    ck_assert_int_eq(sys->impl[WEFT_ASTRA_OP_ALL_REDUCE][1].impl, WEFT_ASTRA_IMPL_DIRECT);
    ck_assert_int_eq(sys->impl[WEFT_ASTRA_OP_ALL_REDUCE][1].window, 8);
    ck_assert_uint_eq(sys->n_dims[WEFT_ASTRA_OP_ALL_GATHER], 1);
    ck_assert_int_eq(sys->impl[WEFT_ASTRA_OP_ALL_GATHER][0].impl, WEFT_ASTRA_IMPL_ONE_RING);
    ck_assert_int_eq(sys->impl[WEFT_ASTRA_OP_REDUCE_SCATTER][0].impl,
                     WEFT_ASTRA_IMPL_HALVING_DOUBLING);
    ck_assert_int_eq(sys->impl[WEFT_ASTRA_OP_REDUCE_SCATTER][1].impl, WEFT_ASTRA_IMPL_ONE_DIRECT);
    ck_assert_int_eq(sys->impl[WEFT_ASTRA_OP_ALL_TO_ALL][0].impl, WEFT_ASTRA_IMPL_DIRECT);
    ck_assert_ptr_null(sys->custom[WEFT_ASTRA_OP_ALL_REDUCE]);
    ck_assert_ptr_null(sys->per_node_custom);
    ck_assert_str_eq(sys->path + strlen(sys->path) - 5, ".json");
    /* honored keys do not warn; the direct window and the second dimension do */
    ck_assert(!warned(w, "endpoint-delay") && !warned(w, "local-mem-bw"));
    ck_assert(warned(w, "scheduling-policy"));
    g_ptr_array_unref(w);
}
END_TEST

START_TEST(absent_keys_hold_sys_cc_defaults)
{
    GError *error = NULL;
    GPtrArray *w = NULL;
    g_autoptr(weft_astra_system_t) sys = load("{}", &w, &error);
    ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
    ck_assert_int_eq(sys->scheduling_policy, WEFT_ASTRA_SCHED_LIFO);
    ck_assert_int_eq(sys->collective_optimization, WEFT_ASTRA_OPT_BASELINE);
    ck_assert_int_eq(sys->endpoint_delay_ns, 10);
    ck_assert_int_eq(sys->local_reduction_delay, 1);
    ck_assert_uint_eq(sys->active_chunks, 1);
    ck_assert_uint_eq(sys->dataset_splits, 1);
    ck_assert(!sys->local_mem_bw_given && !sys->peak_perf_given);
    for (guint op = 0; op < WEFT_ASTRA_N_OPS; op++) {
        ck_assert_uint_eq(sys->n_dims[op], 0);
    }
    ck_assert_uint_eq(w->len, 0);
    g_ptr_array_unref(w);
    /* warnings are optional */
    g_autoptr(weft_astra_system_t) again = load("{\"frobnicate\": 1}", NULL, &error);
    ck_assert(again != NULL);
}
END_TEST

/* Each bad input and the error code it must give. */
static const struct {
    const char *json;
    gint code;
} bad_inputs[] = {
    {"{\"endpoint-delay\": 10", WEFT_ASTRA_SYSTEM_ERROR_FILE}, /* not JSON */
    {"[1, 2]", WEFT_ASTRA_SYSTEM_ERROR_FILE},                  /* not an object */
    {"17", WEFT_ASTRA_SYSTEM_ERROR_FILE},
    {"", WEFT_ASTRA_SYSTEM_ERROR_FILE},
    {"{\"endpoint-delay\": \"ten\"}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"endpoint-delay\": -1}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"endpoint-delay\": 1.5}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"endpoint-delay\": null}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"endpoint-delay\": 99999999999}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"local-reduction-delay\": -3}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"preferred-dataset-splits\": 0}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"preferred-dataset-splits\": [4]}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"active-chunks-per-dimension\": 0}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"local-mem-bw\": 0}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"local-mem-bw\": -50}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"local-mem-bw\": \"50\"}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"peak-perf\": 0}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"L\": -1}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"G\": \"x\"}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"scheduling-policy\": \"RANDOM\"}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"scheduling-policy\": 1}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"collective-optimization\": \"fast\"}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"roofline-enabled\": \"yes\"}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"trace-enabled\": true}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"boost-mode\": 0.5}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"local-mem-trace-filename\": 3}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"all-reduce-implementation\": []}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"all-reduce-implementation\": \"ring\"}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"all-reduce-implementation\": [\"spiral\"]}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"all-gather-implementation\": [\"ring\", 2]}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"reduce-scatter-implementation\": [\"direct0\"]}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"all-to-all-implementation\": [\"directx\"]}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"all-reduce-implementation-custom\": [\"a.et\", \"b.et\"]}",
     WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"all-reduce-implementation-custom\": [7]}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
    {"{\"per-node-custom-implementation\": 3}", WEFT_ASTRA_SYSTEM_ERROR_VALUE},
};

START_TEST(each_bad_value_gives_its_error_code)
{
    GError *error = NULL;
    GPtrArray *w = NULL;
    weft_astra_system_t *sys = load(bad_inputs[_i].json, &w, &error);
    ck_assert_msg(sys == NULL, "%s: accepted", bad_inputs[_i].json);
    ck_assert_ptr_null(w); /* no warnings handed out on error */
    ck_assert_msg(g_error_matches(error, WEFT_ASTRA_SYSTEM_ERROR, bad_inputs[_i].code),
                  "%s: %s", bad_inputs[_i].json, error ? error->message : "no error");
    g_error_free(error);
}
END_TEST

START_TEST(a_missing_file_is_a_file_error)
{
    GError *error = NULL;
    ck_assert_ptr_null(weft_astra_system_load("/nonexistent/weft/sys.json", NULL, &error));
    ck_assert(g_error_matches(error, WEFT_ASTRA_SYSTEM_ERROR, WEFT_ASTRA_SYSTEM_ERROR_FILE));
    g_error_free(error);
}
END_TEST

START_TEST(unknown_and_unhonored_keys_warn)
{
    GError *error = NULL;
    GPtrArray *w = NULL;
    g_autoptr(weft_astra_system_t) sys =
        load("{\"frobnicate\": 1, \"boost-mode\": 1, \"roofline-enabled\": 1, "
             "\"model-shared-bus\": 1, \"trace-enabled\": 1, "
             "\"all-reduce-implementation-custom\": [\"ar.et\"], "
             "\"per-node-custom-implementation\": \"p.yaml\", "
             "\"all-to-all-implementation\": [\"ring\"], \"endpoint-delay\": 5}",
             &w, &error);
    ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
    ck_assert(warned(w, "frobnicate"));
    ck_assert(warned(w, "boost-mode"));
    ck_assert(sys->boost_mode_given && sys->boost_mode == 1);
    ck_assert(warned(w, "roofline-enabled") && sys->roofline_enabled);
    ck_assert(warned(w, "model-shared-bus") && sys->model_shared_bus);
    ck_assert(warned(w, "trace-enabled"));
    ck_assert(warned(w, "all-reduce-implementation-custom"));
    ck_assert_str_eq(sys->custom[WEFT_ASTRA_OP_ALL_REDUCE], "ar.et");
    ck_assert(warned(w, "per-node-custom-implementation"));
    ck_assert_str_eq(sys->per_node_custom, "p.yaml");
    ck_assert(warned(w, "all-to-all-implementation"));
    ck_assert(!warned(w, "endpoint-delay"));
    /* every warning names the file */
    for (guint i = 0; i < w->len; i++) {
        ck_assert(g_str_has_prefix(g_ptr_array_index(w, i), sys->path));
    }
    g_ptr_array_unref(w);
}
END_TEST

START_TEST(plan_follows_splits_active_chunks_and_delay)
{
    GError *error = NULL;
    g_autoptr(weft_astra_system_t) sys =
        load("{\"preferred-dataset-splits\": 4, \"active-chunks-per-dimension\": 2, "
             "\"endpoint-delay\": 10, \"local-mem-bw\": 50, "
             "\"all-reduce-implementation\": [\"ring\"], "
             "\"all-gather-implementation\": [\"direct\"], "
             "\"all-to-all-implementation\": [\"direct\"]}",
             NULL, &error);
    ck_assert(sys != NULL);
    weft_coll_algo_t algo;
    guint channels;
    guint64 bytes;
    weft_coll_exec_t exec = {0};
    /* S = 1 MiB, K = 4, A = 2: c = 262144 B, 2 chunks at once, 2 waves */
    ck_assert(weft_astra_system_plan(sys, WEFT_COLL_ALL_REDUCE, 8, 1 << 20, &algo, &channels,
                                     &bytes, &exec, &error));
    ck_assert_int_eq(algo, WEFT_COLL_ALGO_RING);
    ck_assert_uint_eq(channels, 2);
    ck_assert_uint_eq(bytes, 2 * 262144);
    ck_assert_uint_eq(exec.waves, 2);
    ck_assert_int_eq(exec.base_ps, 10 * WEFT_PS_PER_NS);
    ck_assert_int_eq(exec.step_intra_ps, 10 * WEFT_PS_PER_NS);
    ck_assert_int_eq(exec.step_inter_ps, 10 * WEFT_PS_PER_NS);
    ck_assert(exec.hbm_Bps == 50e9);
    ck_assert(exec.reduce_trunc_ns && exec.net_trunc_ns);
    /* S = 12 B on 8 NPUs: c = 3 B is raised to 8 (Sys.cc), not for all-gather */
    ck_assert(weft_astra_system_plan(sys, WEFT_COLL_ALL_REDUCE, 8, 12, &algo, &channels, &bytes,
                                     &exec, &error));
    ck_assert_uint_eq(bytes, 2 * 8);
    ck_assert(weft_astra_system_plan(sys, WEFT_COLL_ALL_GATHER, 8, 12, &algo, &channels, &bytes,
                                     &exec, &error));
    ck_assert_int_eq(algo, WEFT_COLL_ALGO_DIRECT);
    ck_assert_uint_eq(bytes, 2 * 3);
    /* no list for reduce-scatter; broadcast is not the system layer's */
    ck_assert(!weft_astra_system_plan(sys, WEFT_COLL_REDUCE_SCATTER, 8, 64, &algo, &channels,
                                      &bytes, &exec, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    ck_assert(!weft_astra_system_plan(sys, WEFT_COLL_BROADCAST, 8, 64, &algo, &channels, &bytes,
                                      &exec, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    /* a custom implementation is refused when run */
    g_autoptr(weft_astra_system_t) custom =
        load("{\"all-reduce-implementation-custom\": [\"ar.et\"]}", NULL, &error);
    ck_assert(custom != NULL);
    ck_assert(!weft_astra_system_plan(custom, WEFT_COLL_ALL_REDUCE, 8, 64, &algo, &channels,
                                      &bytes, &exec, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
}
END_TEST

/* The all-reduce of @S bytes over 2 GPUs on one 500 ns link of 3 GB/s, planned by @sys. */
static weft_time_t
time_2gpu(const weft_astra_system_t *sys, guint64 S, gboolean truncate)
{
    GError *error = NULL;
    g_autoptr(weft_topo_t) t = weft_topo_new("pair");
    ck_assert_int_eq(weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "gpu0", 0, 0, &error), 0);
    ck_assert_int_eq(weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "gpu1", 1, 0, &error), 1);
    ck_assert_int_ge(
        weft_topo_add_link(t, 0, 1, WEFT_LINK_GENERIC, 3e9, 500 * WEFT_PS_PER_NS, 1, &error), 0);
    ck_assert_msg(weft_topo_finalize(t, &error), "%s", error ? error->message : "");
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(t);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    weft_coll_planner_config_t cfg = {.astra = sys};
    g_autoptr(weft_coll_planner_t) planner = weft_coll_planner_new(fabric, &cfg);
    gint members[2] = {weft_topo_gpu_vertex(t, 0), weft_topo_gpu_vertex(t, 1)};
    guint comm = weft_coll_planner_add_comm(planner, members, 2);
    const weft_coll_plan_t *plan =
        weft_coll_planner_plan(planner, WEFT_COLL_ALL_REDUCE, S, comm, NULL, &error);
    ck_assert_msg(plan != NULL, "%s", error ? error->message : "");
    weft_coll_exec_t exec = plan->exec;
    exec.net_trunc_ns = truncate;
    weft_time_t T = weft_coll_time_full(sim, net, plan, members, &exec, &error);
    ck_assert_msg(T >= 0, "%s", error ? error->message : "");
    return T;
}

START_TEST(network_time_is_truncated_to_whole_ns)
{
    GError *error = NULL;
    g_autoptr(weft_astra_system_t) sys =
        load("{\"endpoint-delay\": 10, \"all-reduce-implementation\": [\"ring\"]}", NULL,
             &error);
    ck_assert(sys != NULL);
    /* S = 1000 B, K = 1, n = 2: messages of m = 500 B; net = 500 + 500 / 3 ns
     * = 666.666... ns, ASTRA-sim's 666 ns. Ring (Ring.cc): d + 2(n-1)(net + d), no
     * reduction cost (no local-mem-bw):
     *   truncated: 10 + 2 x (666 + 10) = 1362 ns;
     *   to the ps: 10 + 2 x (666.667 + 10) = 1363.334 ns (each message 666667 ps). */
    ck_assert_int_eq(time_2gpu(sys, 1000, TRUE), 1362 * WEFT_PS_PER_NS);
    ck_assert_int_eq(time_2gpu(sys, 1000, FALSE), 10000 + 2 * (666667 + 10000));
}
END_TEST

START_TEST(two_dimensions_run_phase_by_phase_only_where_modelled)
{
    GError *error = NULL;
    g_autoptr(weft_astra_system_t) sys =
        load("{\"collective-optimization\": \"localBWAware\", "
             "\"all-reduce-implementation\": [\"ring\", \"oneRing\", \"ring\"], "
             "\"all-gather-implementation\": [\"ring\", \"ring\"]}",
             NULL, &error);
    ck_assert(sys != NULL);
    const guint d24[] = {2, 4}, d124[] = {1, 2, 4}, d224[] = {2, 2, 4}, d8[] = {8};
    guint block = 0;
    ck_assert(weft_astra_system_phases(sys, WEFT_COLL_ALL_REDUCE, 8, d24, 2, &block));
    ck_assert_uint_eq(block, 2);
    /* a dimension of one NPU is skipped, as Sys.cc skips it */
    ck_assert(weft_astra_system_phases(sys, WEFT_COLL_ALL_REDUCE, 8, d124, 3, &block));
    ck_assert_uint_eq(block, 2);
    /* three active dimensions, one dimension, a sub-communicator, no network, another
     * operation: not modelled */
    ck_assert(!weft_astra_system_phases(sys, WEFT_COLL_ALL_REDUCE, 16, d224, 3, &block));
    ck_assert(!weft_astra_system_phases(sys, WEFT_COLL_ALL_REDUCE, 8, d8, 1, &block));
    ck_assert(!weft_astra_system_phases(sys, WEFT_COLL_ALL_REDUCE, 4, d24, 2, &block));
    ck_assert(!weft_astra_system_phases(sys, WEFT_COLL_ALL_REDUCE, 8, NULL, 0, &block));
    ck_assert(!weft_astra_system_phases(sys, WEFT_COLL_ALL_GATHER, 8, d24, 2, &block));
    /* baseline, or a non-ring dimension: not modelled */
    g_autoptr(weft_astra_system_t) base =
        load("{\"all-reduce-implementation\": [\"ring\", \"ring\"]}", NULL, &error);
    ck_assert(!weft_astra_system_phases(base, WEFT_COLL_ALL_REDUCE, 8, d24, 2, &block));
    g_autoptr(weft_astra_system_t) hd =
        load("{\"collective-optimization\": \"localBWAware\", "
             "\"all-reduce-implementation\": [\"halvingDoubling\", \"ring\"]}",
             NULL, &error);
    ck_assert(!weft_astra_system_phases(hd, WEFT_COLL_ALL_REDUCE, 8, d24, 2, &block));
}
END_TEST

static Suite *
astra_system_suite(void)
{
    Suite *s = suite_create("astra_system");
    TCase *reader = tcase_create("reader");
    tcase_add_test(reader, sample_file_reads_into_typed_values);
    tcase_add_test(reader, absent_keys_hold_sys_cc_defaults);
    tcase_add_loop_test(reader, each_bad_value_gives_its_error_code, 0, G_N_ELEMENTS(bad_inputs));
    tcase_add_test(reader, a_missing_file_is_a_file_error);
    tcase_add_test(reader, unknown_and_unhonored_keys_warn);
    suite_add_tcase(s, reader);
    TCase *plan = tcase_create("plan");
    tcase_add_test(plan, plan_follows_splits_active_chunks_and_delay);
    tcase_add_test(plan, network_time_is_truncated_to_whole_ns);
    tcase_add_test(plan, two_dimensions_run_phase_by_phase_only_where_modelled);
    suite_add_tcase(s, plan);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(astra_system_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
