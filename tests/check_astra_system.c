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

START_TEST(implementation_lists_checked_against_the_network)
{
    GError *error = NULL;
    g_autoptr(weft_astra_system_t) one = load("{\"all-reduce-implementation\": [\"ring\"]}",
                                              NULL, &error);
    ck_assert_ptr_nonnull(one);
    /* one implementation on a 2-D network: ASTRA-sim would index past the list */
    const guint dims2[] = {4, 8};
    GPtrArray *w = NULL;
    ck_assert(!weft_astra_system_check_network(one, dims2, 2, &w, &error));
    ck_assert(g_error_matches(error, WEFT_ASTRA_SYSTEM_ERROR, WEFT_ASTRA_SYSTEM_ERROR_VALUE));
    ck_assert_ptr_nonnull(strstr(error->message, "\"all-reduce-implementation\" lists 1 "
                                                 "implementation but the network has 2 dimensions"));
    g_clear_error(&error);
    g_clear_pointer(&w, g_ptr_array_unref);
    /* ... and on a 1-D network or a weft cluster it is what runs: no warning */
    const guint dims1[] = {8};
    ck_assert(weft_astra_system_check_network(one, dims1, 1, &w, &error));
    ck_assert_uint_eq(w->len, 0);
    g_clear_pointer(&w, g_ptr_array_unref);
    ck_assert(weft_astra_system_check_network(one, NULL, 0, &w, &error));
    ck_assert_uint_eq(w->len, 0);
    g_clear_pointer(&w, g_ptr_array_unref);
    /* three on a 1-D network: the first is used, and said; on a weft cluster, dimension 0's */
    g_autoptr(weft_astra_system_t) three = load(
        "{\"all-reduce-implementation\": [\"ring\", \"direct\", \"ring\"]}", NULL, &error);
    ck_assert(weft_astra_system_check_network(three, dims1, 1, &w, &error));
    ck_assert_uint_eq(w->len, 1);
    ck_assert_ptr_nonnull(strstr(g_ptr_array_index(w, 0), "3 implementations for a network of 1 "
                                                          "dimension: the first 1 are used"));
    g_clear_pointer(&w, g_ptr_array_unref);
    ck_assert(weft_astra_system_check_network(three, NULL, 0, &w, &error));
    ck_assert_uint_eq(w->len, 1);
    ck_assert_ptr_nonnull(strstr(g_ptr_array_index(w, 0), "dimension 0's implementation (ring)"));
    g_clear_pointer(&w, g_ptr_array_unref);
    /* implementations weft runs by its own builder are said, per dimension */
    g_autoptr(weft_astra_system_t) hd = load(
        "{\"all-reduce-implementation\": [\"halvingDoubling\", \"doubleBinaryTree\"]}", NULL,
        &error);
    const guint dims6[] = {6, 4};
    ck_assert(weft_astra_system_check_network(hd, dims6, 2, &w, &error));
    ck_assert_uint_eq(w->len, 2);
    ck_assert_ptr_nonnull(strstr(g_ptr_array_index(w, 0), "dimension 0 has 6 NPUs, not a power "
                                                          "of two: weft's own halving_doubling"));
    ck_assert_ptr_nonnull(strstr(g_ptr_array_index(w, 1), "dimension 1: doubleBinaryTree runs "
                                                          "as weft's tree"));
    g_clear_pointer(&w, g_ptr_array_unref);
    const guint dims8[] = {8, 4};
    ck_assert(weft_astra_system_check_network(hd, dims8, 2, &w, &error));
    ck_assert_uint_eq(w->len, 1); /* 8 NPUs: HalvingDoubling.cc's own plan; the tree still said */
    g_clear_pointer(&w, g_ptr_array_unref);
    /* as many as the network has: nothing to say */
    const guint dims3[] = {2, 2, 2};
    ck_assert(weft_astra_system_check_network(three, dims3, 3, &w, &error));
    ck_assert_uint_eq(w->len, 0);
    g_ptr_array_unref(w);
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
    /* honored since the trial of issue 17 (the replay applies it): no warning at load */
    ck_assert(!warned(w, "roofline-enabled") && sys->roofline_enabled);
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
    /* ...and the message says how weft does run it */
    ck_assert_ptr_nonnull(strstr(error->message, "weft coll --algo custom:ar.et"));
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

START_TEST(dimensions_run_phase_by_phase_over_the_whole_network)
{
    GError *error = NULL;
    g_autoptr(weft_astra_system_t) sys =
        load("{\"collective-optimization\": \"localBWAware\", "
             "\"all-reduce-implementation\": [\"ring\", \"oneRing\", \"ring\"], "
             "\"all-gather-implementation\": [\"ring\", \"ring\"]}",
             NULL, &error);
    ck_assert(sys != NULL);
    const guint d24[] = {2, 4}, d124[] = {1, 2, 4}, d224[] = {2, 2, 4}, d8[] = {8};
    ck_assert(weft_astra_system_phases(sys, WEFT_COLL_ALL_REDUCE, 8, d24, 2));
    ck_assert(weft_astra_system_phases(sys, WEFT_COLL_ALL_REDUCE, 8, d124, 3));
    ck_assert(weft_astra_system_phases(sys, WEFT_COLL_ALL_REDUCE, 16, d224, 3));
    ck_assert(weft_astra_system_phases(sys, WEFT_COLL_ALL_GATHER, 8, d24, 2));
    /* one active dimension, a sub-communicator, no network, an implementation list shorter
     * than the dimensions, no list: not phase by phase */
    ck_assert(!weft_astra_system_phases(sys, WEFT_COLL_ALL_REDUCE, 8, d8, 1));
    ck_assert(!weft_astra_system_phases(sys, WEFT_COLL_ALL_REDUCE, 4, d24, 2));
    ck_assert(!weft_astra_system_phases(sys, WEFT_COLL_ALL_REDUCE, 8, NULL, 0));
    ck_assert(!weft_astra_system_phases(sys, WEFT_COLL_ALL_GATHER, 16, d224, 3));
    ck_assert(!weft_astra_system_phases(sys, WEFT_COLL_ALL_TO_ALL, 8, d24, 2));

    /* localBWAware all-reduce of c = 1000 B on 2 x 2 x 4 (Sys.cc generate_collective()):
     * RS dim 0 (1000 -> 500), RS dim 1 (500 -> 250), AR dim 2 (250), AG dim 1 (250 per NPU
     * -> 500), AG dim 0 (500 per NPU) */
    g_autoptr(GArray) ph =
        weft_astra_system_stream_phases(sys, WEFT_COLL_ALL_REDUCE, 1000, d224, 3, 0, &error);
    ck_assert(ph != NULL);
    ck_assert_uint_eq(ph->len, 5);
    const weft_coll_op_t ops[] = {WEFT_COLL_REDUCE_SCATTER, WEFT_COLL_REDUCE_SCATTER,
                                  WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALL_GATHER, WEFT_COLL_ALL_GATHER};
    const guint dim[] = {0, 1, 2, 1, 0};
    const guint64 bytes[] = {1000, 500, 250, 250, 500};
    for (guint p = 0; p < 5; p++) {
        const weft_astra_phase_t *x = &g_array_index(ph, weft_astra_phase_t, p);
        ck_assert_int_eq(x->op, ops[p]);
        ck_assert_uint_eq(x->dim, dim[p]);
        ck_assert_uint_eq(x->bytes, bytes[p]);
        ck_assert_uint_eq(x->queue, dim[p]);
        ck_assert_int_eq(x->algo, WEFT_COLL_ALGO_RING);
    }
    /* a dimension of one NPU is skipped: 1 x 2 x 4 gives RS dim 1, AR dim 2, AG dim 1 */
    g_autoptr(GArray) ph3 =
        weft_astra_system_stream_phases(sys, WEFT_COLL_ALL_REDUCE, 1000, d124, 3, 0, &error);
    ck_assert(ph3 != NULL);
    ck_assert_uint_eq(ph3->len, 3);
    ck_assert_uint_eq(g_array_index(ph3, weft_astra_phase_t, 0).dim, 1);
    ck_assert_uint_eq(g_array_index(ph3, weft_astra_phase_t, 1).dim, 2);
    ck_assert_uint_eq(g_array_index(ph3, weft_astra_phase_t, 2).dim, 1);
    /* all-gather (any optimization) from the last dimension down: 100 B per NPU on 2 x 4:
     * AG dim 1 (100 -> 400), AG dim 0 (400 per NPU) */
    g_autoptr(GArray) ag =
        weft_astra_system_stream_phases(sys, WEFT_COLL_ALL_GATHER, 100, d24, 2, 0, &error);
    ck_assert(ag != NULL);
    ck_assert_uint_eq(ag->len, 2);
    ck_assert_uint_eq(g_array_index(ag, weft_astra_phase_t, 0).dim, 1);
    ck_assert_uint_eq(g_array_index(ag, weft_astra_phase_t, 1).bytes, 400);
    /* baseline all-reduce: a whole all-reduce of c on each dimension */
    g_autoptr(weft_astra_system_t) base =
        load("{\"all-reduce-implementation\": [\"halvingDoubling\", \"direct\"]}", NULL, &error);
    g_autoptr(GArray) b =
        weft_astra_system_stream_phases(base, WEFT_COLL_ALL_REDUCE, 64, d24, 2, 0, &error);
    ck_assert(b != NULL);
    ck_assert_uint_eq(b->len, 2);
    ck_assert_int_eq(g_array_index(b, weft_astra_phase_t, 0).algo, WEFT_COLL_ALGO_HALVING_DOUBLING);
    ck_assert_int_eq(g_array_index(b, weft_astra_phase_t, 1).algo, WEFT_COLL_ALGO_DIRECT);
    ck_assert_uint_eq(g_array_index(b, weft_astra_phase_t, 1).bytes, 64);
    /* involved_dim [true, false, true] (entries 3, mask 0b101) on 2 x 2 x 4: dimension 1 left
     * out: RS dim 0 (1000 -> 500), AR dim 2 (500), AG dim 0 (500 per NPU) */
    g_autoptr(GArray) inv = weft_astra_system_stream_phases(sys, WEFT_COLL_ALL_REDUCE, 1000, d224,
                                                            3, (3 << 8) | 5, &error);
    ck_assert(inv != NULL);
    ck_assert_uint_eq(inv->len, 3);
    ck_assert_uint_eq(g_array_index(inv, weft_astra_phase_t, 1).dim, 2);
    ck_assert_uint_eq(g_array_index(inv, weft_astra_phase_t, 1).bytes, 500);
    ck_assert_uint_eq(g_array_index(inv, weft_astra_phase_t, 2).dim, 0);
    /* [false, false, false]: no phase at all */
    g_autoptr(GArray) none =
        weft_astra_system_stream_phases(sys, WEFT_COLL_ALL_REDUCE, 1000, d224, 3, 3 << 8, &error);
    ck_assert(none != NULL);
    ck_assert_uint_eq(none->len, 0);
    /* involved_dim of 2 entries on 3 dimensions: refused */
    ck_assert(weft_astra_system_stream_phases(sys, WEFT_COLL_ALL_REDUCE, 1000, d224, 3,
                                              (2 << 8) | 3, &error) == NULL);
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    /* a list shorter than the network's dimensions: refused */
    ck_assert(weft_astra_system_stream_phases(base, WEFT_COLL_ALL_REDUCE, 64, d224, 3, 0, &error) ==
              NULL);
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
}
END_TEST

START_TEST(halving_doubling_as_astra_sim_runs_it)
{
    /* HalvingDoubling.cc on 8 NPUs: reduce-scatter of 1000 B sends to i ^ 1, i ^ 2, i ^ 4
     * messages of 500, 250, 125 B, each after the previous receive; without a reduction
     * cost the plan is the 24 sends alone */
    g_autoptr(weft_coll_plan_t) rs = weft_astra_hd_plan(WEFT_COLL_REDUCE_SCATTER, 8, 1000, 1, NULL);
    ck_assert_uint_eq(rs->n_xfers, 24);
    const guint64 rs_b[] = {500, 250, 125};
    for (guint st = 0; st < 3; st++) {
        const weft_coll_xfer_t *x = &rs->xfers[st * 8 + 3];
        ck_assert_uint_eq(x->src, 3);
        ck_assert_uint_eq(x->dst, 3u ^ (1u << st));
        ck_assert_uint_eq(x->bytes, rs_b[st]);
        ck_assert(!(x->flags & (WEFT_COLL_XFER_REDUCE | WEFT_COLL_XFER_COPY)));
        ck_assert_uint_eq(rs->n_preds[st * 8 + 3], st > 0 ? 1 : 0);
    }
    /* member 3's step-1 send waits for its step-0 receive, from 3 ^ 1 = 2 (transfer #2) */
    ck_assert_uint_eq(rs->succ[rs->succ_off[2]], 8 + 3);
    /* local-mem-bw 50 GB/s, truncated as PacketBundle::call(): insert_packet() marks the
     * group's log2(8) - 1 = 2 non-zero-latency packets processed, messages 2 and 3, each
     * reduced at its own size before it goes: 3 floor(250 / 50) = 15 ns and 3 floor(125 /
     * 50) = 6 ns; message 1 and the last receive carry none: 24 sends + 16 delays */
    weft_coll_exec_t ex = {.hbm_Bps = 50e9, .reduce_trunc_ns = TRUE};
    g_autoptr(weft_coll_plan_t) rsr = weft_astra_hd_plan(WEFT_COLL_REDUCE_SCATTER, 8, 1000, 1, &ex);
    ck_assert_uint_eq(rsr->n_xfers, 40);
    ck_assert_uint_eq(rsr->moved_bytes, rs->moved_bytes);
    guint delays = 0;
    guint64 delay_ps = 0;
    for (guint t = 0; t < rsr->n_xfers; t++) {
        const weft_coll_xfer_t *x = &rsr->xfers[t];
        if (x->flags & WEFT_COLL_XFER_DELAY) {
            ck_assert_uint_eq(x->src, x->dst);
            ck_assert_uint_eq(rsr->n_preds[t], 1); /* after the previous receive */
            delays++;
            delay_ps += x->bytes;
        }
    }
    ck_assert_uint_eq(delays, 16);
    ck_assert_uint_eq(delay_ps, 8 * (15000 + 6000));
    /* all-reduce: then i ^ 4, i ^ 2, i ^ 1 with 125, 250, 500 B, not reduced: 2 x 7/8 x 1000
     * x 8 = 14000 B moved */
    g_autoptr(weft_coll_plan_t) ar = weft_astra_hd_plan(WEFT_COLL_ALL_REDUCE, 8, 1000, 1, NULL);
    ck_assert_uint_eq(ar->n_xfers, 48);
    ck_assert_uint_eq(ar->xfers[3 * 8].dst, 4);
    ck_assert_uint_eq(ar->xfers[3 * 8].bytes, 125);
    ck_assert_uint_eq(ar->xfers[5 * 8].bytes, 500);
    ck_assert_uint_eq(ar->moved_bytes, 14000);
    /* with the cost, the same 16 reductions and none in the all-gather half */
    g_autoptr(weft_coll_plan_t) arr = weft_astra_hd_plan(WEFT_COLL_ALL_REDUCE, 8, 1000, 1, &ex);
    ck_assert_uint_eq(arr->n_xfers, 64);
    /* all-gather of 100 B per NPU: i ^ 4, i ^ 2, i ^ 1 with 100, 200, 400 B: 700 x 8 moved,
     * no reduction whatever the cost */
    g_autoptr(weft_coll_plan_t) ag = weft_astra_hd_plan(WEFT_COLL_ALL_GATHER, 8, 100, 1, &ex);
    ck_assert_uint_eq(ag->n_xfers, 24);
    ck_assert_uint_eq(ag->xfers[0].dst, 4);
    ck_assert_uint_eq(ag->xfers[16].bytes, 400);
    ck_assert_uint_eq(ag->moved_bytes, 5600);
}
END_TEST

START_TEST(schedule_pipelines_streams_over_queues)
{
    /* K = 3 streams, phases RS on queue 0 (10 ps), AR on queue 1 (25 ps), AG on queue 0
     * (4 ps), one stream per queue at once. By hand (Sys.cc, FIFO among one collective):
     *  t 0: s0 RS starts; s1, s2 wait on q0.
     *  t10: s0 RS ends: s0 waits on q1; q0 admits s1 RS (slot of s0 RS), then q1 admits
     *       s0 AR (free).
     *  t20: s1 RS ends: q0 admits s2 RS (slot of s1 RS); s1 waits on q1 (s0 AR runs).
     *  t30: s2 RS ends: s2 waits on q1 behind s1; q0 is idle.
     *  t35: s0 AR ends: s0 joins q0; q1 admits s1 AR (slot of s0 AR), then q0 admits s0 AG
     *       (free).
     *  t39: s0 AG ends.  t60: s1 AR ends: q1 admits s2 AR (slot of s1 AR); q0 admits
     *       s1 AG (free).  t64: s1 AG ends.  t85: s2 AR ends, s2 AG starts (free).
     * Stream-phase index s x 3 + p; order 0 3 1 6 4 2 7 5 8. */
    const guint queue[] = {0, 1, 0};
    const weft_time_t dur[] = {10, 25, 4};
    guint order[9];
    gint pred[9];
    weft_time_t start[9];
    weft_astra_system_schedule(3, 3, queue, 2, dur, 1, order, pred, start);
    const guint want_order[] = {0, 3, 1, 6, 4, 2, 7, 5, 8};
    const gint want_pred[] = {-1, -1, -1, 0, 1, -1, 3, 4, -1};
    const weft_time_t want_start[] = {0, 10, 35, 10, 35, 60, 20, 60, 85};
    for (guint i = 0; i < 9; i++) {
        ck_assert_uint_eq(order[i], want_order[i]);
        ck_assert_int_eq(pred[i], want_pred[i]);
        ck_assert_int_eq(start[i], want_start[i]);
    }
    /* two at once: s0 and s1 run RS together, s2 takes s0's slot at 10 */
    weft_astra_system_schedule(3, 3, queue, 2, dur, 2, order, pred, start);
    ck_assert_int_eq(start[6], 10);
    ck_assert_int_eq(pred[6], 0);
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
    tcase_add_test(reader, implementation_lists_checked_against_the_network);
    suite_add_tcase(s, reader);
    TCase *plan = tcase_create("plan");
    tcase_add_test(plan, plan_follows_splits_active_chunks_and_delay);
    tcase_add_test(plan, network_time_is_truncated_to_whole_ns);
    tcase_add_test(plan, dimensions_run_phase_by_phase_over_the_whole_network);
    tcase_add_test(plan, schedule_pipelines_streams_over_queues);
    tcase_add_test(plan, halving_doubling_as_astra_sim_runs_it);
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
