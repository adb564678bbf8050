/* SPDX-License-Identifier: MIT */
/*
 * Tests of the workload module: the Chakra ET reader on the real traces in
 * $WEFT_SHARED/data (skipped, not failed, when that is absent) and on small
 * traces written with tests/testutil.h, good and broken, and
 * weft_workload_check() on each kind of problem it reports; and the Chakra
 * writer's files as ASTRA-sim reads them, checked with the protobuf-c code of
 * chakra.proto alone.
 */
#include "workload/workload.h"
#include "workload/chakra.h"

#include <check.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/hw.h"
#include "testutil.h"
#include "workload/gen.h"

/* ---- helpers ---------------------------------------------------------------- */

/* $WEFT_SHARED/data/<rel>, or NULL (and a "skipped" line) when it is absent. */
static char *
shared_path(const char *rel)
{
    const char *shared = g_getenv("WEFT_SHARED");
    if (shared == NULL) {
        printf("skipped: WEFT_SHARED is not set (%s)\n", rel);
        return NULL;
    }
    char *p = g_build_filename(shared, "data", rel, NULL);
    g_autofree char *dir = g_path_get_dirname(p);
    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
        printf("skipped: %s is absent\n", dir);
        g_free(p);
        return NULL;
    }
    return p;
}

/* Counts the nodes of @type on rank @r. */
static guint
count_type(const weft_workload_t *wl, guint r, weft_node_type_t type)
{
    guint n = 0;
    for (guint i = 0; i < wl->ranks[r].n_nodes; i++) {
        n += wl->ranks[r].type[i] == type;
    }
    return n;
}

/* The index of node @id on rank @r, or -1. */
static int
node_index(const weft_workload_t *wl, guint r, guint64 id)
{
    for (guint i = 0; i < wl->ranks[r].n_nodes; i++) {
        if (wl->ranks[r].id[i] == id) {
            return (int)i;
        }
    }
    return -1;
}

/* TRUE if node index @pred is a predecessor of node index @i on rank @r. */
static gboolean
has_dep(const weft_workload_t *wl, guint r, guint i, guint pred)
{
    const weft_rank_trace_t *t = &wl->ranks[r];
    for (guint32 k = t->dep_off[i]; k < t->dep_off[i + 1]; k++) {
        if (t->deps[k] == pred) {
            return TRUE;
        }
    }
    return FALSE;
}

/* A scratch directory per test, removed in teardown. */
static char *tmp;

static void
tmp_setup(void)
{
    GError *error = NULL;
    tmp = g_dir_make_tmp("weft-workload-XXXXXX", &error);
    ck_assert_ptr_nonnull(tmp);
}

static void
tmp_teardown(void)
{
    test_tmpdir_remove(tmp);
    g_free(tmp);
    tmp = NULL;
}

/* Writes @et as rank @rank of trace "t" in the scratch directory. */
static void
put(test_et_t *et, guint rank)
{
    g_autofree char *p = test_et_path(tmp, "t", rank);
    test_et_write(et, p, FALSE);
}

/* The prefix of trace "t" in the scratch directory. */
static char *
prefix(void)
{
    return g_build_filename(tmp, "t", NULL);
}

/* Loads trace "t"; asserts it fails with @code; returns nothing. */
static void
expect_load_error(int code)
{
    g_autofree char *pre = prefix();
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(pre, NULL, &error);
    ck_assert_ptr_null(wl);
    ck_assert_ptr_nonnull(error);
    ck_assert_uint_eq(error->domain, WEFT_WORKLOAD_ERROR);
    ck_assert_int_eq(error->code, code);
}

/* Loads trace "t" (must succeed) and returns it. */
static weft_workload_t *
load_ok(const char *groups_json)
{
    g_autofree char *pre = prefix();
    g_autoptr(GError) error = NULL;
    weft_workload_t *wl = weft_workload_load_chakra(pre, groups_json, &error);
    ck_assert_msg(wl != NULL, "load failed: %s", error != NULL ? error->message : "?");
    return wl;
}

/* Asserts weft_workload_check(@wl, @n_gpus) fails with @code. */
static void
expect_check_error(const weft_workload_t *wl, guint n_gpus, int code)
{
    g_autoptr(GError) error = NULL;
    ck_assert(!weft_workload_check(wl, n_gpus, &error));
    ck_assert_ptr_nonnull(error);
    ck_assert_uint_eq(error->domain, WEFT_WORKLOAD_ERROR);
    ck_assert_int_eq(error->code, code);
}

static void
expect_check_ok(const weft_workload_t *wl, guint n_gpus)
{
    g_autoptr(GError) error = NULL;
    ck_assert_msg(weft_workload_check(wl, n_gpus, &error), "check failed: %s",
                  error != NULL ? error->message : "?");
}

/* ---- real traces --------------------------------------------------------------- */

START_TEST(pytorch_trace_loads_with_its_node_counts)
{
    g_autofree char *p = shared_path("chakra-pytorch/chakra");
    if (p == NULL) {
        return;
    }
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(p, NULL, &error);
    ck_assert_msg(wl != NULL, "%s", error != NULL ? error->message : "");
    /* PROVENANCE.md: one rank, 3,664 nodes: 3,643 COMP and 21 COMM_COLL. */
    ck_assert_uint_eq(wl->n_ranks, 1);
    ck_assert_uint_eq(weft_workload_node_count(wl), 3664);
    ck_assert_uint_eq(count_type(wl, 0, WEFT_NODE_COMP), 3643);
    ck_assert_uint_eq(count_type(wl, 0, WEFT_NODE_COLL), 21);
    /* 14 of the 21 collectives are host-side c10d:: operators (is_cpu_op = true);
     * the other 7 are NCCL kernels, all in the world communicator (no pg_name). */
    guint cpu_colls = 0, gpu_colls_world = 0;
    const weft_rank_trace_t *t = &wl->ranks[0];
    for (guint i = 0; i < t->n_nodes; i++) {
        if (t->type[i] == WEFT_NODE_COLL) {
            cpu_colls += t->is_cpu_op[i];
            gpu_colls_world += !t->is_cpu_op[i] && t->comm[i] == 0;
        }
    }
    ck_assert_uint_eq(cpu_colls, 14);
    ck_assert_uint_eq(gpu_colls_world, 7);
    /* Node 3256 'ncclKernel_AllReduce_RING_LL_Sum_float(...)': comm_type 0
     * (ALL_REDUCE), comm_size 8196000 (int64 attribute), duration_micros 5572
     * -> 5572 x 1e6 = 5,572,000,000 ps. */
    int k = node_index(wl, 0, 3256);
    ck_assert_int_ge(k, 0);
    ck_assert(g_str_has_prefix(t->name[k], "ncclKernel_AllReduce_RING_LL_Sum_float"));
    ck_assert_uint_eq(t->coll_op[k], WEFT_COLL_ALL_REDUCE);
    ck_assert_uint_eq(t->comm_bytes[k], 8196000);
    ck_assert_int_eq(t->duration_ps[k], 5572000000LL);
    /* Its data_deps include node 3254 (c10d::allreduce_(0)). */
    ck_assert(has_dep(wl, 0, (guint)k, (guint)node_index(wl, 0, 3254)));
    /* Every node carries exactly one ctrl_dep (3,664). 1,660 point at a node not
     * in the file (1,277 at the dropped thread roots 3, 2, ...) or at the node
     * itself (383): each is dropped alone. The other 3,664 - 1,660 = 2,004 close
     * cycles with the data_deps (a CPU operator after its own kernel), so they
     * are dropped as a whole: all 3,664 are ignored, as before, and the step
     * replays as it did. One warning line for each kind. */
    ck_assert_uint_eq(t->n_ctrl_deps_ignored, 3664);
    ck_assert_ptr_nonnull(wl->warnings);
    ck_assert_uint_eq(wl->warnings->len, 2);
    const char *w0 = g_ptr_array_index(wl->warnings, 0);
    const char *w1 = g_ptr_array_index(wl->warnings, 1);
    ck_assert_msg(g_str_has_prefix(w0, "1660 ctrl_deps on a node that is not in the file or on "
                                       "the node itself are ignored (in 1 of 1 files)"),
                  "%s", w0);
    ck_assert_msg(strstr(w0, "chakra.0.et: rank 0: node 216 (aten::flatten_dense_tensors(0)): "
                             "a ctrl_dep on node 3, which is not in the file") != NULL,
                  "%s", w0);
    ck_assert_msg(strstr(w1, "chakra.0.et: rank 0: its 2004 other ctrl_deps close a cycle") != NULL,
                  "%s", w1);
    ck_assert_msg(strstr(w1, "all of them are ignored") != NULL, "%s", w1);
    /* As a one-rank workload it passes the check on one GPU. */
    expect_check_ok(wl, 1);
}
END_TEST

/* Each microbenchmark: n ranks, one COMM_COLL node each, comm_size 1 MiB. */
START_TEST(microbenchmarks_load_with_type_and_size)
{
    static const struct {
        const char *name;
        weft_coll_op_t op;
    } ops[] = {
        /* comm_type values read from the files: 0, 2, 7, 6 (Chakra's CollectiveCommType). */
        {"all_reduce", WEFT_COLL_ALL_REDUCE},
        {"all_gather", WEFT_COLL_ALL_GATHER},
        {"reduce_scatter", WEFT_COLL_REDUCE_SCATTER},
        {"all_to_all", WEFT_COLL_ALL_TO_ALL},
    };
    static const guint npus[] = {4, 8, 16};
    for (guint o = 0; o < G_N_ELEMENTS(ops); o++) {
        for (guint s = 0; s < G_N_ELEMENTS(npus); s++) {
            g_autofree char *rel = g_strdup_printf(
                "astra-sim-examples/examples/workload/microbenchmarks/%s/%unpus_1MB/%s",
                ops[o].name, npus[s], ops[o].name);
            g_autofree char *p = shared_path(rel);
            if (p == NULL) {
                return;
            }
            g_autoptr(GError) error = NULL;
            g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(p, NULL, &error);
            ck_assert_msg(wl != NULL, "%s: %s", rel, error != NULL ? error->message : "");
            ck_assert_uint_eq(wl->n_ranks, npus[s]);
            for (guint r = 0; r < wl->n_ranks; r++) {
                ck_assert_uint_eq(wl->ranks[r].n_nodes, 1);
                ck_assert_uint_eq(wl->ranks[r].type[0], WEFT_NODE_COLL);
                ck_assert_uint_eq(wl->ranks[r].coll_op[0], ops[o].op);
                /* 1MB in the folder name; the files say comm_size 1048576 = 2^20. */
                ck_assert_uint_eq(wl->ranks[r].comm_bytes[0], 1048576);
                ck_assert_int_eq(wl->ranks[r].comm[0], 0);
                /* ASTRA-sim's generator numbers the only node of rank r with id r. */
                ck_assert_uint_eq(wl->ranks[r].id[0], r);
            }
            /* The world communicator holds ranks 0..n-1 in order. */
            const weft_comm_t *world = g_ptr_array_index(wl->comms, 0);
            ck_assert_str_eq(world->name, "0");
            ck_assert_uint_eq(world->n_ranks, npus[s]);
            ck_assert_uint_eq(world->ranks[npus[s] - 1], npus[s] - 1);
            expect_check_ok(wl, npus[s]);
        }
    }
}
END_TEST

START_TEST(custom_ring_allreduce_has_matching_sends_and_receives)
{
    g_autofree char *p = shared_path(
        "astra-sim-examples/examples/system/custom_collectives/custom_ring_allreduce_8npus_1MB/"
        "custom_allreduce");
    if (p == NULL) {
        return;
    }
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(p, NULL, &error);
    ck_assert_msg(wl != NULL, "%s", error != NULL ? error->message : "");
    ck_assert_uint_eq(wl->n_ranks, 8);
    for (guint r = 0; r < 8; r++) {
        /* Each rank: 7 COMP, 14 COMM_SEND, 14 COMM_RECV = 35 nodes. */
        ck_assert_uint_eq(wl->ranks[r].n_nodes, 35);
        ck_assert_uint_eq(count_type(wl, r, WEFT_NODE_COMP), 7);
        ck_assert_uint_eq(count_type(wl, r, WEFT_NODE_SEND), 14);
        ck_assert_uint_eq(count_type(wl, r, WEFT_NODE_RECV), 14);
    }
    /* Rank 0 node 0 'COMM_SEND_NODE_tb0_step0': comm_dst 1 (int32), tag 0,
     * 131072 bytes = 1 MiB / 8 ranks; node 1 receives from rank 7 (ring). */
    const weft_rank_trace_t *t = &wl->ranks[0];
    ck_assert_uint_eq(t->type[0], WEFT_NODE_SEND);
    ck_assert_int_eq(t->peer[0], 1);
    ck_assert_int_eq(t->tag[0], 0);
    ck_assert_uint_eq(t->comm_bytes[0], 131072);
    ck_assert_uint_eq(t->type[1], WEFT_NODE_RECV);
    ck_assert_int_eq(t->peer[1], 7);
    ck_assert_int_eq(t->comm[0], -1);
    /* Node 2 (COMP, 7 us) depends on node 1. */
    ck_assert_int_eq(t->duration_ps[2], 7000000);
    ck_assert(has_dep(wl, 0, 2, 1));
    expect_check_ok(wl, 8);
}
END_TEST

START_TEST(mlp_model_parallel_has_32_ranks)
{
    g_autofree char *p = shared_path("astra-sim-tutorials/micro2024/astra-sim-demo/demo2/workload/"
                                     "MLP_ModelParallel");
    if (p == NULL) {
        return;
    }
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(p, NULL, &error);
    ck_assert_msg(wl != NULL, "%s", error != NULL ? error->message : "");
    ck_assert_uint_eq(wl->n_ranks, 32);
    /* Rank 0: 29 nodes: 18 COMP (6 layers x FWD, BWD_IG, BWD_WG) and 11
     * COMM_COLL (6 forward all-gathers, one per layer, + 5 backward all-reduces,
     * layers mlp5..mlp1). */
    ck_assert_uint_eq(wl->ranks[0].n_nodes, 29);
    ck_assert_uint_eq(count_type(wl, 0, WEFT_NODE_COMP), 18);
    ck_assert_uint_eq(count_type(wl, 0, WEFT_NODE_COLL), 11);
    /* Node 1: ALL_GATHER (comm_type 2) of 37632 bytes after node 0 (32291 us). */
    ck_assert_uint_eq(wl->ranks[0].coll_op[1], WEFT_COLL_ALL_GATHER);
    ck_assert_uint_eq(wl->ranks[0].comm_bytes[1], 37632);
    ck_assert_int_eq(wl->ranks[0].duration_ps[0], 32291000000LL);
    ck_assert(has_dep(wl, 0, 1, 0));
    expect_check_ok(wl, 32);
    /* 32 ranks do not fit 16 GPUs. */
    expect_check_error(wl, 16, WEFT_WORKLOAD_ERROR_RANKS);
}
END_TEST

START_TEST(demo1_allreduce_loads)
{
    g_autofree char *p =
        shared_path("astra-sim-tutorials/micro2024/astra-sim-demo/demo1/allreduce/allreduce");
    if (p == NULL) {
        return;
    }
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(p, NULL, &error);
    ck_assert_msg(wl != NULL, "%s", error != NULL ? error->message : "");
    /* 8 ranks, one 'All-Reduce' node (id 1) of 1048576 bytes each, with an
     * involved_dim bool_list that weft reads past. */
    ck_assert_uint_eq(wl->n_ranks, 8);
    ck_assert_uint_eq(wl->ranks[7].n_nodes, 1);
    ck_assert_str_eq(wl->ranks[7].name[0], "All-Reduce");
    ck_assert_uint_eq(wl->ranks[7].comm_bytes[0], 1048576);
    ck_assert_uint_eq(wl->ranks[7].coll_op[0], WEFT_COLL_ALL_REDUCE);
    expect_check_ok(wl, 8);
}
END_TEST

/* ---- framing and file errors --------------------------------------------------- */

/* A good two-node rank: COMP 0 (5 us), then an all-reduce 1 after it. */
static test_et_t *
good_rank(void)
{
    test_et_t *et = test_et_new("0.0.4");
    test_et_node_dur(et, 0, "matmul", TEST_COMP, 5);
    test_et_coll(et, 1, "grad_allreduce", WEFT_COLL_ALL_REDUCE, 4096, NULL);
    test_et_dep(et, 0);
    return et;
}

START_TEST(good_synthetic_trace_loads)
{
    g_autoptr(test_et_t) et = good_rank();
    put(et, 0);
    put(et, 1);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    ck_assert_uint_eq(wl->n_ranks, 2);
    ck_assert_uint_eq(weft_workload_node_count(wl), 4); /* 2 ranks x 2 nodes */
    ck_assert_str_eq(wl->ranks[1].name[1], "grad_allreduce");
    ck_assert_int_eq(wl->ranks[1].duration_ps[0], 5000000); /* 5 us = 5e6 ps */
    ck_assert(has_dep(wl, 1, 1, 0));
    ck_assert_uint_eq(wl->ranks[1].dep_off[1], 0); /* node 0 has no predecessors */
    ck_assert_str_eq(weft_node_type_name(wl->ranks[1].type[1]), "COMM_COLL");
    expect_check_ok(wl, 2);
}
END_TEST

START_TEST(prefix_without_files_is_io_error)
{
    expect_load_error(WEFT_WORKLOAD_ERROR_IO);
}
END_TEST

START_TEST(missing_middle_rank_is_io_error)
{
    g_autoptr(test_et_t) et = good_rank();
    put(et, 0);
    put(et, 2); /* rank 1 absent, rank 2 present */
    expect_load_error(WEFT_WORKLOAD_ERROR_IO);
}
END_TEST

START_TEST(empty_file_is_corrupt)
{
    g_autoptr(test_et_t) et = test_et_empty();
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_CORRUPT);
}
END_TEST

START_TEST(truncated_message_is_corrupt)
{
    g_autoptr(test_et_t) et = good_rank();
    test_et_flush(et);
    g_byte_array_set_size(et->bytes, et->bytes->len - 3); /* cut the last node short */
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_CORRUPT);
}
END_TEST

START_TEST(overlong_varint_is_corrupt)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    static const guint8 ff[12] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    test_et_raw(et, ff, sizeof(ff)); /* 12 continuation bytes > 10 */
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_CORRUPT);
}
END_TEST

START_TEST(varint_off_the_end_is_corrupt)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    static const guint8 cont = 0x80; /* a continuation bit, then the end of the file */
    test_et_raw(et, &cont, 1);
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_CORRUPT);
}
END_TEST

START_TEST(zero_length_message_is_corrupt)
{
    g_autoptr(test_et_t) et = good_rank();
    static const guint8 zero = 0;
    test_et_flush(et);
    test_et_raw(et, &zero, 1);
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_CORRUPT);
}
END_TEST

START_TEST(unpackable_node_is_corrupt)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    /* Field 2 (name), length 5, but only one byte follows inside the frame. */
    static const guint8 bad[3] = {0x12, 0x05, 'a'};
    test_et_frame(et, bad, sizeof(bad));
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_CORRUPT);
}
END_TEST

START_TEST(gzip_wrapped_trace_loads_identically)
{
    g_autoptr(test_et_t) et = good_rank();
    test_et_send(et, 2, "p2p", 0, 3, 100);
    test_et_recv(et, 3, "p2p_back", 0, 3, 100);
    test_et_dep(et, 2);
    g_autofree char *plain = test_et_path(tmp, "t", 0);
    g_autofree char *gz = test_et_path(tmp, "z", 0);
    test_et_write(et, plain, FALSE);
    test_et_write(et, gz, TRUE);
    g_autofree char *raw = NULL;
    ck_assert(g_file_get_contents(gz, &raw, NULL, NULL));
    ck_assert_uint_eq((guint8)raw[0], 0x1f); /* really gzip: 1f 8b */
    ck_assert_uint_eq((guint8)raw[1], 0x8b);
    g_autofree char *pz = g_build_filename(tmp, "z", NULL);
    g_autoptr(weft_workload_t) a = load_ok(NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_workload_t) b = weft_workload_load_chakra(pz, NULL, &error);
    ck_assert_ptr_nonnull(b);
    const weft_rank_trace_t *x = &a->ranks[0], *y = &b->ranks[0];
    ck_assert_uint_eq(x->n_nodes, 4);
    ck_assert_uint_eq(y->n_nodes, x->n_nodes);
    guint n = x->n_nodes;
    ck_assert_mem_eq(x->id, y->id, n * sizeof(guint64));
    ck_assert_mem_eq(x->type, y->type, n);
    ck_assert_mem_eq(x->duration_ps, y->duration_ps, n * sizeof(weft_time_t));
    ck_assert_mem_eq(x->comm_bytes, y->comm_bytes, n * sizeof(guint64));
    ck_assert_mem_eq(x->peer, y->peer, n * sizeof(gint32));
    ck_assert_mem_eq(x->tag, y->tag, n * sizeof(gint64));
    ck_assert_mem_eq(x->dep_off, y->dep_off, (n + 1) * sizeof(guint32));
    ck_assert_mem_eq(x->deps, y->deps, x->dep_off[n] * sizeof(guint32));
    for (guint i = 0; i < n; i++) {
        ck_assert_str_eq(x->name[i], y->name[i]);
    }
}
END_TEST

/* ---- schema versions ------------------------------------------------------------ */

START_TEST(version_003_is_legacy)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.3");
    test_et_node(et, 0, "x", TEST_COMP);
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_LEGACY);
}
END_TEST

START_TEST(metadata_without_version_is_legacy)
{
    /* No version and an empty schema attribute (an entirely empty GlobalMetadata
     * packs to 0 bytes, which the framing already refuses as corrupt). */
    g_autoptr(test_et_t) et = test_et_new_metadata(NULL, "");
    test_et_node(et, 0, "x", TEST_COMP);
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_LEGACY);
}
END_TEST

START_TEST(node_first_without_metadata_is_legacy)
{
    /* A pre-2023 stream: the first message is a Node (id 7 as a varint in field 1). */
    g_autoptr(test_et_t) et = test_et_empty();
    test_et_node(et, 7, "legacy_node", TEST_COMP);
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_LEGACY);
}
END_TEST

START_TEST(schema_attribute_is_accepted_as_version)
{
    /* The PyTorch converter writes no version, only attr schema = "1.0.1";
     * ASTRA-sim's text converter writes "1.0.2-chakra.0.0.4". */
    g_autoptr(test_et_t) et = test_et_new_metadata(NULL, "1.0.2-chakra.0.0.4");
    test_et_node(et, 0, "x", TEST_COMP);
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    ck_assert_uint_eq(wl->ranks[0].n_nodes, 1);
}
END_TEST

/* ---- attributes --------------------------------------------------------------------- */

START_TEST(float_comm_size_is_value_error)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node(et, 0, "ar", TEST_COLL);
    test_et_attr_int(et, "comm_type", 0);
    test_et_attr_double(et, "comm_size", 1048576.0);
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_VALUE);
}
END_TEST

/* Layers and phases (issue 20, item 2): names, aliases, what node names say. */
START_TEST(phases_have_names_aliases_and_guesses)
{
    static const char *const names[WEFT_N_PHASES] = {"other", "forward", "recompute",
                                                     "igrad", "wgrad",   "optimizer"};
    for (guint p = 0; p < WEFT_N_PHASES; p++) {
        ck_assert_str_eq(weft_phase_name((weft_phase_t)p), names[p]);
        weft_phase_t got = WEFT_N_PHASES;
        ck_assert(weft_phase_from_name(names[p], &got));
        ck_assert_int_eq(got, p);
    }
    ck_assert_ptr_null(weft_phase_name(WEFT_N_PHASES));
    weft_phase_t ph = WEFT_PHASE_OTHER;
    ck_assert(weft_phase_from_name("fwd", &ph) && ph == WEFT_PHASE_FORWARD);
    ck_assert(weft_phase_from_name("ig", &ph) && ph == WEFT_PHASE_IGRAD);
    ck_assert(weft_phase_from_name("wg", &ph) && ph == WEFT_PHASE_WGRAD);
    ck_assert(weft_phase_from_name("backward", &ph) && ph == WEFT_PHASE_IGRAD);
    ck_assert(!weft_phase_from_name("Forward", &ph));
    ck_assert_int_eq(ph, WEFT_PHASE_IGRAD); /* left alone */
    /* weft gen's names */
    ck_assert_int_eq(weft_phase_guess("attn_qkv.fwd"), WEFT_PHASE_FORWARD);
    ck_assert_int_eq(weft_phase_guess("attn_qkv.recompute"), WEFT_PHASE_RECOMPUTE);
    ck_assert_int_eq(weft_phase_guess("mlp_fc1_wgrad.bwd"), WEFT_PHASE_WGRAD);
    ck_assert_int_eq(weft_phase_guess("mlp_fc1_dgrad.bwd"), WEFT_PHASE_IGRAD);
    ck_assert_int_eq(weft_phase_guess("attn_core.bwd"), WEFT_PHASE_IGRAD);
    ck_assert_int_eq(weft_phase_guess("optimizer"), WEFT_PHASE_OPTIMIZER);
    /* PyTorch's operator names (the chakra-pytorch trace) */
    ck_assert_int_eq(weft_phase_guess("aten::convolution_backward(1)"), WEFT_PHASE_IGRAD);
    ck_assert_int_eq(weft_phase_guess("Optimizer.step#SGD.step"), WEFT_PHASE_OPTIMIZER);
    ck_assert_int_eq(weft_phase_guess("aten::_foreach_add_"), WEFT_PHASE_OPTIMIZER);
    ck_assert_int_eq(weft_phase_guess("aten::conv2d"), WEFT_PHASE_OTHER);
    ck_assert_int_eq(weft_phase_guess(""), WEFT_PHASE_OTHER);
    ck_assert_int_eq(weft_phase_guess(NULL), WEFT_PHASE_OTHER);
}
END_TEST

START_TEST(layer_ids_are_given_in_order_of_first_mention)
{
    g_autoptr(weft_workload_t) wl = g_new0(weft_workload_t, 1);
    ck_assert_uint_eq(weft_workload_layer_id(wl, "other"), 0);
    ck_assert_ptr_null(wl->layers); /* "other" needs no table */
    ck_assert_uint_eq(weft_workload_layer_id(wl, "b"), 1);
    ck_assert_uint_eq(weft_workload_layer_id(wl, "a"), 2);
    ck_assert_uint_eq(weft_workload_layer_id(wl, "b"), 1);
    ck_assert_uint_eq(weft_workload_layer_id(wl, ""), 0);
    ck_assert_uint_eq(wl->layers->len, 3);
    ck_assert_str_eq(g_ptr_array_index(wl->layers, 0), "other");
    ck_assert_str_eq(g_ptr_array_index(wl->layers, 2), "a");
}
END_TEST

START_TEST(layer_and_phase_attributes_are_read_and_checked)
{
    /* strings: read; a phase the trace does not give is guessed from the name */
    {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node_dur(et, 0, "k0", TEST_COMP, 1);
        test_et_attr_string(et, "layer", "block.3");
        test_et_attr_string(et, "phase", "wg");
        test_et_node_dur(et, 1, "x_dgrad", TEST_COMP, 1);
        test_et_attr_string(et, "layer", "block.3");
        test_et_node_dur(et, 2, "k2", TEST_COMP, 1);
        put(et, 0);
        g_autoptr(weft_workload_t) wl = load_ok(NULL);
        const weft_rank_trace_t *t = &wl->ranks[0];
        ck_assert_uint_eq(wl->layers->len, 2);
        ck_assert_str_eq(g_ptr_array_index(wl->layers, 1), "block.3");
        ck_assert_uint_eq(t->layer[0], 1);
        ck_assert_uint_eq(t->layer[1], 1);
        ck_assert_uint_eq(t->layer[2], 0);
        ck_assert_uint_eq(t->phase[0], WEFT_PHASE_WGRAD);
        ck_assert_uint_eq(t->phase[1], WEFT_PHASE_IGRAD);
        ck_assert_uint_eq(t->phase[2], WEFT_PHASE_OTHER);
        expect_check_ok(wl, 1);
        /* a layer id beyond the table is refused before any replay */
        wl->ranks[0].layer[2] = 7;
        expect_check_error(wl, 1, WEFT_WORKLOAD_ERROR_VALUE);
        wl->ranks[0].layer[2] = 0;
        wl->ranks[0].phase[2] = WEFT_N_PHASES;
        expect_check_error(wl, 1, WEFT_WORKLOAD_ERROR_VALUE);
    }
    /* a layer that is not a string, a phase of no known name: value errors */
    {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node_dur(et, 0, "k0", TEST_COMP, 1);
        test_et_attr_int(et, "layer", 3);
        put(et, 0);
        expect_load_error(WEFT_WORKLOAD_ERROR_VALUE);
    }
    {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node_dur(et, 0, "k0", TEST_COMP, 1);
        test_et_attr_string(et, "phase", "backprop");
        put(et, 0);
        expect_load_error(WEFT_WORKLOAD_ERROR_VALUE);
    }
}
END_TEST

/* issue 19, item 8: a negative or NaN num_ops is a value error naming the node, not a
 * silently negative roofline time */
START_TEST(num_ops_must_be_a_finite_count)
{
    const double bad[] = {-1.0, NAN, INFINITY};
    for (guint k = 0; k < G_N_ELEMENTS(bad); k++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node(et, 0, "gemm", TEST_COMP);
        test_et_attr_double(et, "num_ops", bad[k]);
        put(et, 0);
        expect_load_error(WEFT_WORKLOAD_ERROR_VALUE);
    }
}
END_TEST

/* weft's own memory attributes (chakra_write.c) read back: a node's allocation and release
 * in its category; an unknown category or a negative size is a value error */
START_TEST(memory_attributes_are_read)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node_dur(et, 0, "layer.fwd", TEST_COMP, 5);
    test_et_attr_int(et, "mem_alloc_bytes", 4096);
    test_et_attr_string(et, "mem_category", "activations");
    test_et_node_dur(et, 1, "layer.bwd", TEST_COMP, 5);
    test_et_attr_int(et, "mem_free_bytes", 4096);
    test_et_attr_string(et, "mem_category", "activations");
    test_et_dep(et, 0);
    test_et_node_dur(et, 2, "gather", TEST_COMP, 1);
    test_et_attr_int(et, "mem_alloc_bytes", 100);
    test_et_attr_string(et, "mem_category", "weights");
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    const weft_rank_trace_t *t = &wl->ranks[0];
    ck_assert_ptr_nonnull(t->mem_alloc);
    ck_assert_uint_eq(t->mem_alloc[0], 4096);
    ck_assert_uint_eq(t->mem_free[1], 4096);
    ck_assert_uint_eq(t->mem_alloc[2], 100);
    ck_assert_uint_eq(t->mem_cat[2], WEFT_MEM_WEIGHTS);
    ck_assert_uint_eq(t->mem_cat[0], WEFT_MEM_ACTIVATIONS);
    /* no file says its resident bytes: memory stays unknown, not 0 */
    ck_assert_ptr_null(wl->resident);
    g_autoptr(test_et_t) bad = test_et_new("0.0.4");
    test_et_node_dur(bad, 0, "x", TEST_COMP, 5);
    test_et_attr_string(bad, "mem_category", "heap");
    put(bad, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_VALUE);
    g_autoptr(test_et_t) neg = test_et_new("0.0.4");
    test_et_node_dur(neg, 0, "x", TEST_COMP, 5);
    test_et_attr_int(neg, "mem_alloc_bytes", -1);
    put(neg, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_VALUE);
}
END_TEST

/* issue 19, item 8: a trace of METADATA nodes only loads (it is legal) with a warning that
 * the step takes 0 us; a trace with a compute node has no such warning */
START_TEST(metadata_only_trace_warns)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node(et, 0, "meta", TEST_METADATA);
    test_et_node(et, 1, "meta2", TEST_METADATA);
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    ck_assert_ptr_nonnull(wl->warnings);
    gboolean found = FALSE;
    for (guint i = 0; i < wl->warnings->len; i++) {
        found |= strstr(g_ptr_array_index(wl->warnings, i), "the step takes 0 us") != NULL;
    }
    ck_assert(found);
    g_autoptr(test_et_t) et2 = test_et_new("0.0.4");
    test_et_node(et2, 0, "meta", TEST_METADATA);
    test_et_node(et2, 1, "gemm", TEST_COMP);
    put(et2, 0);
    g_autoptr(weft_workload_t) wl2 = load_ok(NULL);
    for (guint i = 0; wl2->warnings != NULL && i < wl2->warnings->len; i++) {
        ck_assert_ptr_null(strstr(g_ptr_array_index(wl2->warnings, i), "the step takes 0 us"));
    }
}
END_TEST

START_TEST(integer_attributes_of_any_width_are_read)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node(et, 0, "ar", TEST_COLL);
    test_et_attr_int32(et, "comm_type", 2);            /* ALL_GATHER as int32 */
    test_et_attr_uint(et, "comm_size", 5000000000ULL); /* > 2^32 as uint64 */
    test_et_attr_bool(et, "is_cpu_op", FALSE);
    test_et_node(et, 1, "gemm", TEST_COMP);
    test_et_attr_double(et, "num_ops", 2.5e12);
    test_et_attr_uint(et, "tensor_size", 4096);
    test_et_attr_bool(et, "is_cpu_op", TRUE);
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    const weft_rank_trace_t *t = &wl->ranks[0];
    ck_assert_uint_eq(t->coll_op[0], WEFT_COLL_ALL_GATHER);
    ck_assert_uint_eq(t->comm_bytes[0], 5000000000ULL);
    ck_assert_uint_eq(t->is_cpu_op[0], 0);
    ck_assert_double_eq(t->num_ops[1], 2.5e12);
    ck_assert_uint_eq(t->tensor_bytes[1], 4096);
    ck_assert_uint_eq(t->is_cpu_op[1], 1);
    ck_assert_int_eq(t->peer[1], -1);
    ck_assert_int_eq(t->comm[1], -1);
}
END_TEST

START_TEST(gpu_collective_without_comm_type_is_value_error)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node(et, 0, "ar", TEST_COLL);
    test_et_attr_int(et, "comm_size", 64);
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_VALUE);
}
END_TEST

/* ---- dependencies ------------------------------------------------------------------ */

START_TEST(dependency_on_missing_node_is_dep_error)
{
    g_autoptr(test_et_t) et = good_rank();
    test_et_node(et, 2, "orphan", TEST_COMP);
    test_et_dep(et, 99); /* no node 99 */
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_DEP);
}
END_TEST

START_TEST(duplicate_node_id_is_dep_error)
{
    g_autoptr(test_et_t) et = good_rank();
    test_et_node(et, 1, "again", TEST_COMP); /* id 1 is the all-reduce already */
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_DEP);
}
END_TEST

START_TEST(forward_and_duplicate_deps_resolve)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node(et, 10, "late", TEST_COMP);
    test_et_dep(et, 30);      /* a later node */
    test_et_dep(et, 30);      /* twice */
    test_et_ctrl_dep(et, 30); /* and as a ctrl_dep: one predecessor in all */
    test_et_ctrl_dep(et, 20);
    test_et_node(et, 20, "mid", TEST_COMP);
    test_et_node(et, 30, "early", TEST_COMP);
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    const weft_rank_trace_t *t = &wl->ranks[0];
    /* Node index 0 (id 10) has predecessors {index 1 (id 20), index 2 (id 30)}. */
    ck_assert_uint_eq(t->dep_off[1] - t->dep_off[0], 2);
    ck_assert(has_dep(wl, 0, 0, 1));
    ck_assert(has_dep(wl, 0, 0, 2));
    ck_assert_uint_eq(t->n_ctrl_deps_ignored, 0);
    expect_check_ok(wl, 1);
}
END_TEST

START_TEST(unsound_ctrl_deps_are_ignored)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node(et, 1, "a", TEST_COMP);
    test_et_ctrl_dep(et, 3); /* node 3 is not in the file (a dropped parent) */
    test_et_node(et, 2, "b", TEST_COMP);
    test_et_dep(et, 1);
    test_et_ctrl_dep(et, 2); /* itself */
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    const weft_rank_trace_t *t = &wl->ranks[0];
    ck_assert_uint_eq(t->n_ctrl_deps_ignored, 2); /* the dangling one and the self one */
    ck_assert_uint_eq(t->dep_off[2], 1);          /* only b <- a (data) is left */
    ck_assert(has_dep(wl, 0, 1, 0));
    /* one line: the total (2) and the first, a's ctrl_dep on the missing node 3 */
    ck_assert_uint_eq(wl->warnings->len, 1);
    g_autofree char *first = g_strdup_printf("2 ctrl_deps on a node that is not in the file or on "
                                             "the node itself are ignored (in 1 of 1 files); the "
                                             "first: %s/t.0.et: rank 0: node 1 (a): a ctrl_dep on "
                                             "node 3, which is not in the file",
                                             tmp);
    ck_assert_str_eq(g_ptr_array_index(wl->warnings, 0), first);
    expect_check_ok(wl, 1);
}
END_TEST

/* Issue 13: one dangling ctrl_dep used to drop every ctrl_dep of its file. */
START_TEST(dangling_ctrl_dep_drops_only_itself)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node_dur(et, 1, "forward", TEST_COMP, 10);
    test_et_coll(et, 2, "all_reduce_grad", 0, 1048576, NULL);
    test_et_ctrl_dep(et, 1); /* a real ordering */
    test_et_node(et, 3, "optimizer", TEST_COMP);
    test_et_ctrl_dep(et, 0); /* no node 0 in the file */
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    const weft_rank_trace_t *t = &wl->ranks[0];
    ck_assert_uint_eq(t->n_ctrl_deps_ignored, 1); /* the ctrl_dep on 0 only */
    ck_assert(has_dep(wl, 0, 1, 0));              /* all_reduce_grad <- forward is kept */
    ck_assert_uint_eq(t->dep_off[3], 1);          /* and it is the only dependency */
    ck_assert_uint_eq(wl->warnings->len, 1);
    g_autofree char *line = g_strdup_printf("1 ctrl_dep on a node that is not in the file or on "
                                            "the node itself is ignored: %s/t.0.et: rank 0: node "
                                            "3 (optimizer): a ctrl_dep on node 0, which is not in "
                                            "the file",
                                            tmp);
    ck_assert_str_eq(g_ptr_array_index(wl->warnings, 0), line);
    expect_check_ok(wl, 1);
}
END_TEST

/* Many dangling ctrl_deps over several files: one line, the first case and the total. */
START_TEST(dangling_ctrl_deps_are_counted_in_one_line)
{
    for (guint r = 0; r < 3; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node(et, 1, "a", TEST_COMP);
        test_et_node(et, 2, "b", TEST_COMP);
        test_et_ctrl_dep(et, 1);
        if (r > 0) {
            /* ranks 1 and 2: three bad ctrl_deps each (two missing, one self) */
            test_et_ctrl_dep(et, 40 + r);
            test_et_ctrl_dep(et, 2);
            test_et_node(et, 3, "c", TEST_COMP);
            test_et_ctrl_dep(et, 50 + r);
        }
        put(et, r);
    }
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    ck_assert_uint_eq(wl->ranks[0].n_ctrl_deps_ignored, 0);
    ck_assert_uint_eq(wl->ranks[1].n_ctrl_deps_ignored, 3);
    ck_assert_uint_eq(wl->ranks[2].n_ctrl_deps_ignored, 3);
    for (guint r = 0; r < 3; r++) {
        ck_assert(has_dep(wl, r, 1, 0)); /* b <- a kept everywhere */
    }
    /* 2 files x 3 = 6; the first is rank 1's b -> 41 */
    ck_assert_uint_eq(wl->warnings->len, 1);
    g_autofree char *line = g_strdup_printf("6 ctrl_deps on a node that is not in the file or on "
                                            "the node itself are ignored (in 2 of 3 files); the "
                                            "first: %s/t.1.et: rank 1: node 2 (b): a ctrl_dep on "
                                            "node 41, which is not in the file",
                                            tmp);
    ck_assert_str_eq(g_ptr_array_index(wl->warnings, 0), line);
}
END_TEST

START_TEST(ctrl_deps_closing_a_cycle_are_ignored)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node(et, 1, "cpu_op", TEST_COMP);
    test_et_ctrl_dep(et, 2); /* the CPU op "after" its own kernel */
    test_et_ctrl_dep(et, 9); /* and one on a missing node, dropped alone */
    test_et_node(et, 2, "kernel", TEST_COMP);
    test_et_dep(et, 1);
    test_et_node(et, 3, "next", TEST_COMP);
    test_et_ctrl_dep(et, 2); /* sound, but dropped with the rest of the file's */
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    /* 1 dangling + the 2 others, which close the cycle cpu_op -> kernel -> cpu_op */
    ck_assert_uint_eq(wl->ranks[0].n_ctrl_deps_ignored, 3);
    ck_assert_uint_eq(wl->ranks[0].dep_off[3], 1); /* kernel <- cpu_op (data) alone */
    ck_assert_uint_eq(wl->warnings->len, 2);
    /* both nodes lie on the cycle; the search (weft_workload_i_toposort) names the kernel */
    g_autofree char *cycle = g_strdup_printf("%s/t.0.et: rank 0: its 2 other ctrl_deps close a "
                                             "cycle that its data_deps do not have (node 2 "
                                             "(kernel) lies on it): all of them are ignored, and "
                                             "its data_deps alone order it",
                                             tmp);
    ck_assert_str_eq(g_ptr_array_index(wl->warnings, 1), cycle);
    expect_check_ok(wl, 1);
}
END_TEST

START_TEST(sound_trace_has_no_warnings)
{
    g_autoptr(test_et_t) et = good_rank();
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    ck_assert(wl->warnings == NULL || wl->warnings->len == 0);
}
END_TEST

START_TEST(data_dep_cycle_is_cycle_error)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node(et, 0, "start", TEST_COMP);
    test_et_node(et, 1, "a", TEST_COMP);
    test_et_dep(et, 0);
    test_et_dep(et, 3);
    test_et_node(et, 2, "b", TEST_COMP);
    test_et_dep(et, 1);
    test_et_node(et, 3, "c", TEST_COMP); /* 1 -> 2 -> 3 -> 1 */
    test_et_dep(et, 2);
    test_et_node(et, 4, "after", TEST_COMP); /* downstream of the cycle, not on it */
    test_et_dep(et, 3);
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    expect_check_error(wl, 1, WEFT_WORKLOAD_ERROR_CYCLE);
}
END_TEST

/* ---- send / receive ------------------------------------------------------------------ */

START_TEST(matched_send_and_recv_pass)
{
    g_autoptr(test_et_t) r0 = test_et_new("0.0.4");
    test_et_send(r0, 0, "s", 1, 7, 1024);
    test_et_recv(r0, 1, "r", 1, 8, 1024);
    g_autoptr(test_et_t) r1 = test_et_new("0.0.4");
    test_et_send(r1, 0, "s", 0, 8, 1024); /* answers rank 0's receive (1 -> 0, tag 8) */
    test_et_recv(r1, 1, "r", 0, 7, 1024); /* answers rank 0's send (0 -> 1, tag 7) */
    put(r0, 0);
    put(r1, 1);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    expect_check_ok(wl, 2);
}
END_TEST

/* Messages listed out of key order on both sides, as the fast check sorts them. */
START_TEST(messages_in_any_order_match)
{
    g_autoptr(test_et_t) r0 = test_et_new("0.0.4");
    test_et_send(r0, 0, "a", 2, 9, 1024);
    test_et_send(r0, 1, "b", 1, 3, 1024);
    test_et_send(r0, 2, "c", 1, 1, 1024);
    g_autoptr(test_et_t) r1 = test_et_new("0.0.4");
    test_et_recv(r1, 0, "c", 0, 1, 1024);
    test_et_recv(r1, 1, "b", 0, 3, 1024);
    test_et_send(r1, 2, "d", 2, 5, 1024);
    g_autoptr(test_et_t) r2 = test_et_new("0.0.4");
    test_et_recv(r2, 0, "d", 1, 5, 1024);
    test_et_recv(r2, 1, "a", 0, 9, 1024);
    put(r0, 0);
    put(r1, 1);
    put(r2, 2);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    expect_check_ok(wl, 3);
}
END_TEST

/* As many sends as receives in all, but rank 2's receive from rank 0 has another tag. */
START_TEST(balanced_counts_other_tags_are_unmatched)
{
    g_autoptr(test_et_t) r0 = test_et_new("0.0.4");
    test_et_send(r0, 0, "a", 2, 9, 1024);
    test_et_send(r0, 1, "b", 1, 3, 1024);
    g_autoptr(test_et_t) r1 = test_et_new("0.0.4");
    test_et_recv(r1, 0, "b", 0, 3, 1024);
    g_autoptr(test_et_t) r2 = test_et_new("0.0.4");
    test_et_recv(r2, 0, "a", 0, 8, 1024);
    put(r0, 0);
    put(r1, 1);
    put(r2, 2);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    expect_check_error(wl, 3, WEFT_WORKLOAD_ERROR_UNMATCHED);
}
END_TEST

START_TEST(send_without_recv_is_unmatched)
{
    g_autoptr(test_et_t) r0 = test_et_new("0.0.4");
    test_et_send(r0, 0, "s", 1, 7, 1024);
    test_et_send(r0, 1, "s2", 1, 7, 1024); /* two sends 0 -> 1 tag 7 ... */
    g_autoptr(test_et_t) r1 = test_et_new("0.0.4");
    test_et_recv(r1, 0, "r", 0, 7, 1024); /* ... one receive */
    put(r0, 0);
    put(r1, 1);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    expect_check_error(wl, 2, WEFT_WORKLOAD_ERROR_UNMATCHED);
}
END_TEST

START_TEST(recv_without_send_is_unmatched)
{
    g_autoptr(test_et_t) r0 = test_et_new("0.0.4");
    test_et_send(r0, 0, "s", 1, 7, 1024);
    g_autoptr(test_et_t) r1 = test_et_new("0.0.4");
    test_et_recv(r1, 0, "r", 0, 9, 1024); /* tag 9: nobody sends it */
    put(r0, 0);
    put(r1, 1);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    expect_check_error(wl, 2, WEFT_WORKLOAD_ERROR_UNMATCHED);
}
END_TEST

START_TEST(peer_out_of_range_is_value_error)
{
    g_autoptr(test_et_t) r0 = test_et_new("0.0.4");
    test_et_send(r0, 0, "s", 5, 0, 1024); /* rank 5 of a 2-rank workload */
    put(r0, 0);
    put(r0, 1);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    expect_check_error(wl, 2, WEFT_WORKLOAD_ERROR_VALUE);
}
END_TEST

/* 300 ranks (checked in two threads: matching and the last 60 ranks in the second): rank r
 * sends to r + 1. Case 0: rank 299 receives from a rank out of range (and nobody receives
 * from rank 298), so both checks fail: the rank's error comes first, as with one thread.
 * Case 1: the receive fixed but with another tag: the unmatched message is the error. Case 2:
 * ranks 5 and 299 both receive from out of range: rank 5's error, the first in rank order. */
START_TEST(rank_errors_come_before_unmatched_messages_on_large_workloads)
{
    for (guint v = 0; v < 3; v++) {
        for (guint r = 0; r < 300; r++) {
            g_autoptr(test_et_t) et = test_et_new("0.0.4");
            if (r > 0) {
                gboolean bad_peer = (v != 1 && r == 299) || (v == 2 && r == 5);
                gint src = bad_peer ? 7000 : (gint)r - 1;
                test_et_recv(et, 0, "recv", src, r == 299 && v == 1 ? 5 : 1, 1024);
            }
            if (r + 1 < 300) {
                test_et_send(et, 1, "send", (gint)r + 1, 1, 1024);
            }
            put(et, r);
        }
        g_autoptr(weft_workload_t) wl = load_ok(NULL);
        g_autoptr(GError) error = NULL;
        ck_assert(!weft_workload_check(wl, 300, &error));
        ck_assert_int_eq(error->code,
                         v == 1 ? WEFT_WORKLOAD_ERROR_UNMATCHED : WEFT_WORKLOAD_ERROR_VALUE);
        /* case 1 names the first node on the surplus side: rank 298's send */
        const char *rank = v == 2 ? "rank 5:" : v == 1 ? "rank 298:" : "rank 299:";
        ck_assert_msg(strstr(error->message, rank) != NULL, "%s", error->message);
    }
}
END_TEST

/* ---- collectives and communicators ------------------------------------------------- */

START_TEST(comm_type_out_of_range_is_value_error)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_coll(et, 0, "weird", 42, 64, NULL); /* CollectiveCommType stops at 9 */
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    expect_check_error(wl, 1, WEFT_WORKLOAD_ERROR_VALUE);
}
END_TEST

/* Four ranks with process groups "1" = {0, 1} and "2" = {2, 3} in a METADATA
 * node of rank 0, written as the PyTorch converter writes them. */
static void
four_ranks_with_groups(const char *metadata_text, gboolean rank3_joins_group1)
{
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        if (r == 0) {
            test_et_node(et, 100, "process_group:init", TEST_METADATA);
            test_et_inputs(et, metadata_text);
        }
        const char *pg = r < 2 ? "1" : "2";
        if (r == 3 && rank3_joins_group1) {
            pg = "1";
        }
        test_et_coll(et, 0, "tp_allreduce", WEFT_COLL_ALL_REDUCE, 256, pg);
        test_et_coll(et, 1, "dp_allgather", WEFT_COLL_ALL_GATHER, 128, "0");
        test_et_dep(et, 0);
        put(et, r);
    }
}

static const char pg_python_literal[] =
    "[{'pg_name': '0', 'pg_desc': 'default_pg', 'backend_config': 'cuda:nccl', 'ranks': [], "
    "'group_size': 4, 'group_count': 3}, {'pg_name': '1', 'pg_desc': 'undefined', "
    "'backend_config': 'cuda:nccl', 'ranks': [0, 1], 'group_size': 2, 'group_count': 3}, "
    "{'pg_name': '2', 'pg_desc': 'undefined', 'backend_config': 'cuda:nccl', 'ranks': [2, 3], "
    "'group_size': 2, 'group_count': 3}]";

/* The same records as an escaped JSON string inside a Python list. */
static const char pg_escaped_json[] = "['[{\\\"pg_name\\\": \\\"1\\\", \\\"ranks\\\": [0, 1]}, "
                                      "{\\\"pg_name\\\": \\\"2\\\", \\\"ranks\\\": [2, 3]}]']";

START_TEST(metadata_process_groups_become_communicators)
{
    four_ranks_with_groups(pg_python_literal, FALSE);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    /* comms: 0 = world, then "1" (first used by rank 0), then "2" (rank 2). */
    ck_assert_uint_eq(wl->comms->len, 3);
    const weft_comm_t *g1 = g_ptr_array_index(wl->comms, 1);
    const weft_comm_t *g2 = g_ptr_array_index(wl->comms, 2);
    ck_assert_str_eq(g1->name, "1");
    ck_assert_uint_eq(g1->n_ranks, 2);
    ck_assert_uint_eq(g1->ranks[1], 1);
    ck_assert_str_eq(g2->name, "2");
    ck_assert_uint_eq(g2->ranks[0], 2);
    /* Rank 0's METADATA node comes first: the all-reduce is index 1. */
    ck_assert_uint_eq(wl->ranks[0].type[0], WEFT_NODE_METADATA);
    ck_assert_int_eq(wl->ranks[0].comm[1], 1);
    ck_assert_int_eq(wl->ranks[3].comm[0], 2);
    ck_assert_int_eq(wl->ranks[3].comm[1], 0); /* pg_name "0" = world */
    expect_check_ok(wl, 4);
}
END_TEST

START_TEST(escaped_json_process_groups_are_read)
{
    four_ranks_with_groups(pg_escaped_json, FALSE);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    ck_assert_uint_eq(wl->comms->len, 3);
    const weft_comm_t *g2 = g_ptr_array_index(wl->comms, 2);
    ck_assert_uint_eq(g2->n_ranks, 2);
    ck_assert_uint_eq(g2->ranks[1], 3);
}
END_TEST

START_TEST(rank_outside_its_group_is_comm_error)
{
    four_ranks_with_groups(pg_python_literal, TRUE); /* rank 3 runs a collective in "1" */
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    expect_check_error(wl, 4, WEFT_WORKLOAD_ERROR_COMM);
}
END_TEST

START_TEST(unknown_pg_name_is_comm_error)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_coll(et, 0, "ar", WEFT_COLL_ALL_REDUCE, 64, "tp_group_7");
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_COMM);
}
END_TEST

START_TEST(comm_group_json_defines_groups)
{
    four_ranks_with_groups("no groups here", FALSE);
    g_autofree char *json = g_build_filename(tmp, "groups.json", NULL);
    /* The JSON names the pairs the other way round: "1" = {1, 0}, "2" = {3, 2}. */
    ck_assert(g_file_set_contents(json, "{\"1\": [1, 0], \"2\": [3, 2]}", -1, NULL));
    g_autoptr(weft_workload_t) wl = load_ok(json);
    const weft_comm_t *g1 = g_ptr_array_index(wl->comms, 1);
    ck_assert_str_eq(g1->name, "1");
    ck_assert_uint_eq(g1->ranks[0], 1); /* communicator order as in the file */
    expect_check_ok(wl, 4);
}
END_TEST

START_TEST(comm_group_json_beside_the_traces_is_used)
{
    /* weft gen writes <prefix>.json next to the traces; without --comm-groups it is read */
    four_ranks_with_groups("no groups here", FALSE);
    g_autofree char *json = g_build_filename(tmp, "t.json", NULL);
    ck_assert(g_file_set_contents(json, "{\"1\": [1, 0], \"2\": [3, 2]}", -1, NULL));
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    const weft_comm_t *g1 = g_ptr_array_index(wl->comms, 1);
    ck_assert_str_eq(g1->name, "1");
    ck_assert_uint_eq(g1->ranks[0], 1); /* the file's order, so it was read */
    expect_check_ok(wl, 4);
}
END_TEST

/* Two ranks, each with one all-reduce in process group "1" = {0, 1} (the JSON beside
 * the traces), whose nodes carry pg_desc @desc0 (rank 0) and @desc1 (rank 1); with
 * @world, a second all-reduce in the world with pg_desc "everyone". */
static void
two_ranks_with_desc(const char *desc0, const char *desc1, gboolean world)
{
    for (guint r = 0; r < 2; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_coll(et, 0, "tp_allreduce", WEFT_COLL_ALL_REDUCE, 256, "1");
        test_et_attr_string(et, "pg_desc", r == 0 ? desc0 : desc1);
        if (world) {
            test_et_coll(et, 1, "world_allreduce", WEFT_COLL_ALL_REDUCE, 256, "0");
            test_et_attr_string(et, "pg_desc", "everyone");
        }
        put(et, r);
    }
    g_autofree char *json = g_build_filename(tmp, "t.json", NULL);
    ck_assert(g_file_set_contents(json, "{\"1\": [0, 1], \"2\": [1, 0]}", -1, NULL));
}

START_TEST(pg_desc_names_the_communicator)
{
    two_ranks_with_desc("tp.0", "tp.0", TRUE);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    /* comms: the world "0" (its pg_desc ignored), then group "1", named by its pg_desc */
    ck_assert_uint_eq(wl->comms->len, 2);
    const weft_comm_t *w = g_ptr_array_index(wl->comms, 0);
    const weft_comm_t *g1 = g_ptr_array_index(wl->comms, 1);
    ck_assert_str_eq(w->name, "0");
    ck_assert_str_eq(g1->name, "tp.0");
    ck_assert_uint_eq(g1->n_ranks, 2);
    ck_assert_int_eq(wl->ranks[1].comm[0], 1);
    expect_check_ok(wl, 2);
}
END_TEST

START_TEST(pg_desc_conflicts_are_comm_errors)
{
    /* one group, two descriptions */
    two_ranks_with_desc("tp.0", "tp.1", FALSE);
    expect_load_error(WEFT_WORKLOAD_ERROR_COMM);
    /* one description, two groups: rank 1 also runs one in "2" = {1, 0} named "tp.0" */
    two_ranks_with_desc("tp.0", "tp.0", FALSE);
    for (guint r = 0; r < 2; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_coll(et, 0, "tp_allreduce", WEFT_COLL_ALL_REDUCE, 256, "1");
        test_et_attr_string(et, "pg_desc", "tp.0");
        test_et_coll(et, 1, "other_allreduce", WEFT_COLL_ALL_REDUCE, 256, "2");
        test_et_attr_string(et, "pg_desc", "tp.0");
        put(et, r);
    }
    expect_load_error(WEFT_WORKLOAD_ERROR_COMM);
    /* a pg_desc that is not a string */
    two_ranks_with_desc("tp.0", "tp.0", FALSE);
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_coll(et, 0, "tp_allreduce", WEFT_COLL_ALL_REDUCE, 256, "1");
    test_et_attr_int(et, "pg_desc", 7);
    put(et, 1);
    expect_load_error(WEFT_WORKLOAD_ERROR_VALUE);
}
END_TEST

START_TEST(bad_comm_group_json_is_comm_error)
{
    four_ranks_with_groups("no groups here", FALSE);
    g_autofree char *json = g_build_filename(tmp, "groups.json", NULL);
    ck_assert(g_file_set_contents(json, "{\"1\": [0, \"one\"]}", -1, NULL));
    g_autofree char *pre = prefix();
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(pre, json, &error);
    ck_assert_ptr_null(wl);
    ck_assert_int_eq(error->code, WEFT_WORKLOAD_ERROR_COMM);
    /* issue 19, item 8: a group given twice (JSON would keep the last silently) */
    g_clear_error(&error);
    ck_assert(g_file_set_contents(json, "{\"1\": [0, 1], \"2\": [2, 3], \"1\": [2, 3]}", -1,
                                  NULL));
    g_autoptr(weft_workload_t) dup = weft_workload_load_chakra(pre, json, &error);
    ck_assert_ptr_null(dup);
    ck_assert_int_eq(error->code, WEFT_WORKLOAD_ERROR_COMM);
    ck_assert_ptr_nonnull(strstr(error->message, "groups.json: line 1: member \"1\" is given twice"));
}
END_TEST

START_TEST(unused_comm_groups_are_checked_when_read)
{
    /* groups no collective uses are still checked: a rank out of range, a rank
     * twice, and a redefinition of the world "0" are each a COMM error */
    static const char *const bad[] = {
        "{\"1\": [0, 1], \"2\": [2, 3], \"7\": [0, 1, 2, 99]}",
        "{\"1\": [0, 1], \"2\": [2, 3], \"7\": [0, 1, 1, 3]}",
        "{\"1\": [0, 1], \"2\": [2, 3], \"0\": [0, 1, 2]}",
    };
    four_ranks_with_groups("no groups here", FALSE);
    g_autofree char *json = g_build_filename(tmp, "groups.json", NULL);
    g_autofree char *pre = prefix();
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        ck_assert(g_file_set_contents(json, bad[i], -1, NULL));
        g_autoptr(GError) error = NULL;
        g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(pre, json, &error);
        ck_assert_msg(wl == NULL, "accepted %s", bad[i]);
        ck_assert(g_error_matches(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM));
    }
    /* the world given explicitly as all ranks in order is fine */
    ck_assert(
        g_file_set_contents(json, "{\"0\": [0, 1, 2, 3], \"1\": [0, 1], \"2\": [2, 3]}", -1, NULL));
    g_autoptr(weft_workload_t) ok = load_ok(json);
}
END_TEST

START_TEST(group_with_absent_rank_is_comm_error_on_many_ranks)
{
    four_ranks_with_groups("[{'pg_name': '1', 'ranks': [0, 1, 9]}, {'pg_name': '2', "
                           "'ranks': [2, 3]}]",
                           FALSE); /* rank 9 of 4 */
    expect_load_error(WEFT_WORKLOAD_ERROR_COMM);
}
END_TEST

START_TEST(single_rank_workload_reduces_groups_to_present_ranks)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node(et, 100, "process_group:init", TEST_METADATA);
    test_et_inputs(et, "[{'pg_name': '5', 'ranks': [0, 1, 2, 3, 4, 5, 6, 7]}]");
    test_et_coll(et, 0, "tp_allreduce", WEFT_COLL_ALL_REDUCE, 256, "5");
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    const weft_comm_t *g = g_ptr_array_index(wl->comms, 1);
    ck_assert_uint_eq(g->n_ranks, 1); /* of 0..7 only rank 0 is traced */
    ck_assert_uint_eq(g->ranks[0], 0);
    expect_check_ok(wl, 1);
}
END_TEST

/* ---- process-group sizes: --replicate, --pg-size (src/workload/groups.c) ------- */

/* The communicator rank @r's node @i runs in. */
static const weft_comm_t *
comm_of(const weft_workload_t *wl, guint r, guint i)
{
    ck_assert_int_ge(wl->ranks[r].comm[i], 0);
    return g_ptr_array_index(wl->comms, wl->ranks[r].comm[i]);
}

/* Applies "NAME=N,..." (NULL: none) and @replicate; expects success. */
static void
set_groups_ok(weft_workload_t *wl, guint replicate, const char *pg_sizes)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) sizes = NULL;
    if (pg_sizes != NULL) {
        ck_assert_msg(weft_workload_parse_pg_sizes(pg_sizes, &sizes, &error), "%s",
                      error != NULL ? error->message : "");
    }
    ck_assert_msg(weft_workload_set_groups(wl, replicate, sizes, &error), "%s",
                  error != NULL ? error->message : "");
}

/* Expects weft_workload_set_groups() to fail with @code and leave @wl as it was. */
static void
set_groups_error(weft_workload_t *wl, guint replicate, const char *pg_sizes, int code)
{
    guint n_ranks = wl->n_ranks, n_comms = wl->comms->len;
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) sizes = NULL;
    if (pg_sizes != NULL) {
        ck_assert(weft_workload_parse_pg_sizes(pg_sizes, &sizes, NULL));
    }
    ck_assert(!weft_workload_set_groups(wl, replicate, sizes, &error));
    ck_assert_msg(g_error_matches(error, WEFT_WORKLOAD_ERROR, code), "got: %s", error->message);
    ck_assert_uint_eq(wl->n_ranks, n_ranks);
    ck_assert_uint_eq(wl->comms->len, n_comms);
}

/* One rank: a world all-reduce (node 1) and, when @tp_ranks is not NULL, a METADATA
 * group '5' with those ranks and an all-reduce in it (node 2). */
static weft_workload_t *
one_rank(const char *tp_ranks)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    if (tp_ranks != NULL) {
        g_autofree char *md = g_strdup_printf("[{'pg_name': '5', 'ranks': %s}]", tp_ranks);
        test_et_node(et, 100, "process_group:init", TEST_METADATA);
        test_et_inputs(et, md);
    }
    test_et_coll(et, 1, "dp_allreduce", WEFT_COLL_ALL_REDUCE, 1 << 20, NULL);
    if (tp_ranks != NULL) {
        test_et_coll(et, 2, "tp_allreduce", WEFT_COLL_ALL_REDUCE, 4096, "5");
        test_et_dep(et, 1);
    }
    put(et, 0);
    return load_ok(NULL);
}

/* Whether @wl's warnings have the one-member line (it names both options). */
static gboolean
warns_one_member(const weft_workload_t *wl)
{
    for (guint i = 0; wl->warnings != NULL && i < wl->warnings->len; i++) {
        const char *w = g_ptr_array_index(wl->warnings, i);
        if (strstr(w, "--pg-size") != NULL && strstr(w, "--replicate") != NULL) {
            return TRUE;
        }
    }
    return FALSE;
}

START_TEST(one_member_communicators_are_warned_about)
{
    g_autoptr(weft_workload_t) wl = one_rank(NULL);
    ck_assert(!warns_one_member(wl)); /* loading alone says nothing */
    set_groups_ok(wl, 0, NULL);
    ck_assert(warns_one_member(wl)); /* 1 rank, 1 world collective of 1 member */
    ck_assert_uint_eq(wl->warnings->len, 1);
    g_autoptr(weft_workload_t) one = one_rank(NULL);
    set_groups_ok(one, 1, NULL); /* replicated once: still one member */
    ck_assert(warns_one_member(one));
    g_autoptr(weft_workload_t) two = one_rank(NULL);
    set_groups_ok(two, 2, NULL);
    ck_assert(!warns_one_member(two));
}
END_TEST

START_TEST(replicate_copies_the_rank_and_spans_unknown_groups)
{
    /* group '5' lists 4 ranks of the job: its size in the job is 4, so over 8 copies
     * it becomes 5.0 = {0..3} and 5.1 = {4..7}; the world spans the 8 */
    g_autoptr(weft_workload_t) wl = one_rank("[0, 1, 2, 3]");
    ck_assert_uint_eq(((const weft_comm_t *)g_ptr_array_index(wl->comms, 1))->job_size, 4);
    set_groups_ok(wl, 8, NULL);
    ck_assert_uint_eq(wl->n_ranks, 8);
    ck_assert_uint_eq(wl->comms->len, 3); /* 0, 5.0, 5.1 */
    for (guint r = 0; r < 8; r++) {
        int dp = node_index(wl, r, 1), tp = node_index(wl, r, 2);
        ck_assert_int_ge(dp, 0);
        ck_assert_uint_eq(wl->ranks[r].n_nodes, 3);
        ck_assert_str_eq(comm_of(wl, r, dp)->name, "0");
        ck_assert_uint_eq(comm_of(wl, r, dp)->n_ranks, 8);
        const weft_comm_t *g = comm_of(wl, r, tp);
        ck_assert_str_eq(g->name, r < 4 ? "5.0" : "5.1");
        ck_assert_uint_eq(g->n_ranks, 4);
        ck_assert_uint_eq(g->ranks[r % 4], r); /* consecutive ranks, in order */
        ck_assert_uint_eq(wl->ranks[r].comm_bytes[dp], 1 << 20);
    }
    ck_assert(!warns_one_member(wl));
    expect_check_ok(wl, 8);
}
END_TEST

START_TEST(pg_size_cuts_a_group_into_consecutive_ranks)
{
    /* the world's collectives in groups of 2 over 8 copies: 0.0 = {0,1} ... 0.3 = {6,7};
     * group 5 (4 ranks in the trace) restated as 8: one group of all, named 5 */
    g_autoptr(weft_workload_t) wl = one_rank("[0, 1, 2, 3]");
    set_groups_ok(wl, 8, "0=2, 5=8");
    ck_assert_uint_eq(wl->comms->len, 6); /* the world, 0.0 .. 0.3, 5 */
    const weft_comm_t *c = comm_of(wl, 3, (guint)node_index(wl, 3, 1));
    ck_assert_str_eq(c->name, "0.1");
    ck_assert_uint_eq(c->n_ranks, 2);
    ck_assert_uint_eq(c->ranks[0], 2);
    ck_assert_uint_eq(c->ranks[1], 3);
    c = comm_of(wl, 6, (guint)node_index(wl, 6, 2));
    ck_assert_str_eq(c->name, "5");
    ck_assert_uint_eq(c->n_ranks, 8);
    expect_check_ok(wl, 8);
    /* without --replicate, on a workload of several ranks: 4 ranks in groups of 2 */
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_coll(et, 1, "allreduce", WEFT_COLL_ALL_REDUCE, 1024, NULL);
        put(et, r);
    }
    g_autoptr(weft_workload_t) four = load_ok(NULL);
    set_groups_ok(four, 0, "0=2");
    ck_assert_str_eq(comm_of(four, 2, 0)->name, "0.1");
    ck_assert_uint_eq(comm_of(four, 2, 0)->ranks[0], 2);
    expect_check_ok(four, 4);
}
END_TEST

START_TEST(bad_group_sizes_are_errors_that_change_nothing)
{
    static const char *bad_text[] = {"0", "=4", "0=0", "0=x", "0=-2", "0=2,0=4", "0=4294967296"};
    for (guint i = 0; i < G_N_ELEMENTS(bad_text); i++) {
        g_autoptr(GError) error = NULL;
        ck_assert_msg(!weft_workload_parse_pg_sizes(bad_text[i], NULL, &error), "%s",
                      bad_text[i]);
        ck_assert(g_error_matches(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE));
    }
    g_autoptr(weft_workload_t) wl = one_rank("[0, 1, 2]");
    set_groups_error(wl, 8, NULL, WEFT_WORKLOAD_ERROR_COMM);   /* group 5 has 3: 3 does not divide 8 */
    set_groups_error(wl, 8, "0=3", WEFT_WORKLOAD_ERROR_COMM);  /* 3 does not divide 8 */
    set_groups_error(wl, 0, "0=8", WEFT_WORKLOAD_ERROR_COMM);  /* one rank: needs --replicate */
    set_groups_error(wl, 8, "7=2", WEFT_WORKLOAD_ERROR_COMM);  /* no group 7 */
    set_groups_error(wl, (1u << 20) + 1, NULL, WEFT_WORKLOAD_ERROR_RANKS);
    set_groups_ok(wl, 6, NULL);                                /* 3 divides 6 */
    set_groups_error(wl, 2, NULL, WEFT_WORKLOAD_ERROR_RANKS);  /* 6 ranks now */
    /* a send cannot be replicated */
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_send(et, 1, "send", 1, 0, 1024);
    put(et, 0);
    g_autoptr(weft_workload_t) p2p = load_ok(NULL);
    set_groups_error(p2p, 2, NULL, WEFT_WORKLOAD_ERROR_VALUE);
}
END_TEST

START_TEST(pytorch_trace_replicated_spans_the_world)
{
    g_autofree char *p = shared_path("chakra-pytorch/chakra");
    if (p == NULL) {
        return;
    }
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(p, NULL, &error);
    ck_assert_msg(wl != NULL, "%s", error != NULL ? error->message : "");
    g_autoptr(weft_workload_t) same = weft_workload_load_chakra(p, NULL, &error);
    ck_assert(same != NULL);
    set_groups_ok(same, 0, NULL);
    ck_assert(warns_one_member(same)); /* 7 NCCL kernels in a world of one */
    /* no pg_name, no METADATA: every GPU collective is the world's, of all 8 copies */
    set_groups_ok(wl, 8, NULL);
    ck_assert_uint_eq(wl->n_ranks, 8);
    ck_assert_uint_eq(wl->comms->len, 1);
    ck_assert_uint_eq(((const weft_comm_t *)g_ptr_array_index(wl->comms, 0))->n_ranks, 8);
    ck_assert_uint_eq(weft_workload_node_count(wl), 8 * 3664);
    ck_assert(!warns_one_member(wl));
    expect_check_ok(wl, 8);
}
END_TEST

/* ---- roofline times of compute nodes without a duration (src/workload/roofline.c) ---- */

START_TEST(roofline_times_compute_nodes_without_a_duration)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node(et, 1, "gemm", TEST_COMP); /* compute-bound */
    test_et_attr_int(et, "num_ops", 989000000000);
    test_et_attr_uint(et, "tensor_size", 1000000000);
    test_et_node(et, 2, "add", TEST_COMP); /* memory-bound */
    test_et_attr_int(et, "num_ops", 1000000);
    test_et_attr_uint(et, "tensor_size", 6700000000);
    test_et_node_dur(et, 3, "timed", TEST_COMP, 7); /* has a duration: kept */
    test_et_attr_int(et, "num_ops", 989000000000);
    test_et_attr_uint(et, "tensor_size", 1);
    test_et_node(et, 4, "host", TEST_COMP); /* on the CPU: no GPU roofline */
    test_et_attr_bool(et, "is_cpu_op", TRUE);
    test_et_attr_int(et, "num_ops", 1000);
    test_et_node(et, 5, "empty", TEST_COMP); /* nothing to time */
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    const weft_hw_gpu_t *h100 = weft_hw_gpu("h100", NULL);
    ck_assert(h100 != NULL);
    ck_assert_uint_eq(weft_workload_roofline(wl, h100), 2);
    const weft_time_t *d = wl->ranks[0].duration_ps;
    /* H100 SXM (hw.c: 989 TFLOP/s dense BF16, 3.35 TB/s HBM3):
     * gemm: max(989e9 / 989e12, 1e9 / 3.35e12) = max(1 ms, 0.2985 ms) = 1 ms = 1e9 ps;
     * add: max(1e6 / 989e12, 6.7e9 / 3.35e12) = max(1.01 ns, 2 ms) = 2e9 ps */
    ck_assert_int_eq(d[node_index(wl, 0, 1)], 1000000000);
    ck_assert_int_eq(d[node_index(wl, 0, 2)], 2000000000);
    ck_assert_int_eq(d[node_index(wl, 0, 3)], 7000000); /* 7 us, as the trace says */
    ck_assert_int_eq(d[node_index(wl, 0, 4)], 0);
    ck_assert_int_eq(d[node_index(wl, 0, 5)], 0);
    ck_assert(wl->warnings != NULL && wl->warnings->len == 1);
    ck_assert(strstr(g_ptr_array_index(wl->warnings, 0), "H100") != NULL);
    /* no GPU model (an abstract cluster): the nodes keep 0, one warning line */
    g_autoptr(weft_workload_t) abstract = load_ok(NULL);
    ck_assert_uint_eq(weft_workload_roofline(abstract, NULL), 2);
    ck_assert_int_eq(abstract->ranks[0].duration_ps[node_index(abstract, 0, 1)], 0);
    ck_assert(abstract->warnings != NULL && abstract->warnings->len == 1);
    /* B200 (hw.c: 2,250 TFLOP/s, 8 TB/s): gemm 989e9 / 2.25e15 = 439.5555... us */
    ck_assert_int_eq(weft_workload_roofline_ps(989e9, 1000000000, weft_hw_gpu("b200", NULL)),
                     439555556);
    /* a trace with durations only: nothing changes, nothing is said */
    g_autoptr(weft_workload_t) timed = load_ok(NULL);
    for (guint i = 0; i < timed->ranks[0].n_nodes; i++) {
        timed->ranks[0].duration_ps[i] += 1;
    }
    ck_assert_uint_eq(weft_workload_roofline(timed, h100), 0);
    ck_assert(timed->warnings == NULL);
}
END_TEST

START_TEST(host_side_collective_needs_no_comm_type)
{
    /* PyTorch's host record beside its NCCL kernel, which has a data_dep on it */
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node_dur(et, 0, "c10d::allreduce_", TEST_COLL, 85);
    test_et_attr_bool(et, "is_cpu_op", TRUE);
    test_et_attr_string(et, "pg_name", "no_such_group"); /* ignored on the host side */
    test_et_coll(et, 1, "ncclKernel_AllReduce", 0, 4096, NULL);
    test_et_dep(et, 0);
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    ck_assert_int_eq(wl->ranks[0].comm[0], -1);
    ck_assert_uint_eq(wl->ranks[0].is_cpu_op[0], 1);
    ck_assert_int_eq(wl->ranks[0].duration_ps[0], 85000000); /* 85 us */
    ck_assert_int_eq(wl->ranks[0].comm[1], 0);
    ck_assert(wl->warnings == NULL); /* nothing to say */
    expect_check_ok(wl, 1);
}
END_TEST

/* The converter's two halves of one host call: (1) depends on (0), the kernel on (0) only. */
START_TEST(host_record_halves_stay_on_the_cpu)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node_dur(et, 10, "c10d::allreduce_(0)", TEST_COLL, 151);
    test_et_attr_bool(et, "is_cpu_op", TRUE);
    test_et_node_dur(et, 11, "c10d::allreduce_(1)", TEST_COLL, 174);
    test_et_attr_bool(et, "is_cpu_op", TRUE);
    test_et_dep(et, 10);
    test_et_coll(et, 12, "ncclKernel_AllReduce", 0, 8196000, NULL);
    test_et_attr_bool(et, "is_cpu_op", FALSE);
    test_et_dep(et, 10);
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    const weft_rank_trace_t *t = &wl->ranks[0];
    ck_assert_uint_eq(t->is_cpu_op[0], 1);
    ck_assert_uint_eq(t->is_cpu_op[1], 1);
    ck_assert_int_eq(t->comm[0], -1);
    ck_assert_int_eq(t->comm[1], -1);
    ck_assert_int_eq(t->comm[2], 0);
    ck_assert(wl->warnings == NULL);
    expect_check_ok(wl, 1);
}
END_TEST

/* Issue 13: an is_cpu_op collective that no GPU collective depends on used to vanish. */
START_TEST(cpu_flagged_collective_alone_is_a_gpu_collective)
{
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node(et, 100, "process_group:init", TEST_METADATA);
        test_et_inputs(et, "[{'pg_name': '7', 'ranks': [0, 1, 2, 3]}]");
        test_et_node_dur(et, 1, "forward", TEST_COMP, 100);
        test_et_coll(et, 2, "all_reduce_grad", WEFT_COLL_ALL_REDUCE, 1048576, "7");
        test_et_attr_bool(et, "is_cpu_op", TRUE);
        test_et_dep(et, 1);
        test_et_coll(et, 3, "gpu_all_gather", WEFT_COLL_ALL_GATHER, 64, "7");
        test_et_dep(et, 1);
        /* it depends on a GPU collective (not the reverse) and on all_reduce_grad */
        test_et_coll(et, 4, "all_gather_after", WEFT_COLL_ALL_GATHER, 64, "7");
        test_et_attr_bool(et, "is_cpu_op", TRUE);
        test_et_dep(et, 2);
        test_et_dep(et, 3);
        put(et, r);
    }
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    /* comms: 0 = world, 1 = "7" from its pg_name, as a GPU collective's */
    ck_assert_uint_eq(wl->comms->len, 2);
    for (guint r = 0; r < 4; r++) {
        /* node indexes: 0 METADATA, 1 forward, 2 all_reduce_grad, 3 gpu_all_gather, 4 after */
        const weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 2; i <= 4; i++) {
            ck_assert_uint_eq(t->type[i], WEFT_NODE_COLL);
            ck_assert_uint_eq(t->is_cpu_op[i], 0);
            ck_assert_int_eq(t->comm[i], 1);
        }
    }
    /* 4 ranks x 2 = 8, said once, with rank 0's all_reduce_grad first */
    ck_assert_uint_eq(wl->warnings->len, 1);
    g_autofree char *line = g_strdup_printf("8 COMM_COLL nodes marked is_cpu_op are replayed as "
                                            "GPU collectives (in 4 of 4 files), since no GPU "
                                            "collective of their file depends on them (they are "
                                            "not the host side of one); the first: %s/t.0.et: "
                                            "rank 0: node 2 (all_reduce_grad)",
                                            tmp);
    ck_assert_str_eq(g_ptr_array_index(wl->warnings, 0), line);
    expect_check_ok(wl, 4);
}
END_TEST

/* Read as a GPU collective, its pg_name must name a group, like any collective's. */
START_TEST(cpu_flagged_collective_alone_needs_a_known_group)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_coll(et, 1, "all_reduce_grad", WEFT_COLL_ALL_REDUCE, 1048576, "no_such_group");
    test_et_attr_bool(et, "is_cpu_op", TRUE);
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_COMM);
}
END_TEST

/* A comm_size but no comm_type, and no GPU collective to be the host side of: refused. */
START_TEST(cpu_flagged_collective_alone_without_comm_type_is_value_error)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node(et, 1, "all_reduce_grad", TEST_COLL);
    test_et_attr_bool(et, "is_cpu_op", TRUE);
    test_et_attr_int(et, "comm_size", 1048576);
    put(et, 0);
    expect_load_error(WEFT_WORKLOAD_ERROR_VALUE);
}
END_TEST

/* A host record whose kernel is not in the trace: host time only, and said so. */
START_TEST(host_record_without_kernel_runs_on_the_host_with_a_warning)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node_dur(et, 0, "c10d::allreduce_", TEST_COLL, 85);
    test_et_attr_bool(et, "is_cpu_op", TRUE);
    put(et, 0);
    g_autoptr(weft_workload_t) wl = load_ok(NULL);
    ck_assert_int_eq(wl->ranks[0].comm[0], -1);
    ck_assert_uint_eq(wl->ranks[0].is_cpu_op[0], 1);
    ck_assert_int_eq(wl->ranks[0].duration_ps[0], 85000000); /* 85 us */
    ck_assert_uint_eq(wl->warnings->len, 1);
    g_autofree char *line = g_strdup_printf("1 COMM_COLL node marked is_cpu_op has no comm_type "
                                            "or comm_size and no GPU collective of its file "
                                            "depends on it: it runs on the host only, for its "
                                            "duration, and moves no data: %s/t.0.et: rank 0: "
                                            "node 0 (c10d::allreduce_)",
                                            tmp);
    ck_assert_str_eq(g_ptr_array_index(wl->warnings, 0), line);
    expect_check_ok(wl, 1);
}
END_TEST

START_TEST(free_of_null_is_noop)
{
    weft_workload_free(NULL);
    ck_assert_str_eq(weft_node_type_name(WEFT_NODE_COMP), "COMP");
}
END_TEST

/* ---- the synthetic one-collective workload ------------------------------------------ */

START_TEST(collective_workload_is_a_chain_on_every_rank)
{
    g_autoptr(GError) err = NULL;
    /* 3 all-gathers of 1 MiB (each rank's share) on 4 ranks */
    g_autoptr(weft_workload_t) wl =
        weft_workload_collective(WEFT_COLL_ALL_GATHER, 1048576, 3, 4, &err);
    ck_assert_msg(wl != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(wl->n_ranks, 4);
    ck_assert_uint_eq(wl->comms->len, 1); /* the world only */
    const weft_comm_t *world = g_ptr_array_index(wl->comms, 0);
    ck_assert_uint_eq(world->n_ranks, 4);
    ck_assert_uint_eq(weft_workload_node_count(wl), 12); /* 4 ranks x 3 */
    for (guint r = 0; r < 4; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        ck_assert_uint_eq(t->n_nodes, 3);
        for (guint i = 0; i < 3; i++) {
            ck_assert_uint_eq(t->type[i], WEFT_NODE_COLL);
            ck_assert_uint_eq(t->coll_op[i], WEFT_COLL_ALL_GATHER);
            ck_assert_uint_eq(t->comm_bytes[i], 1048576);
            ck_assert_int_eq(t->comm[i], 0);
            ck_assert_int_eq(t->peer[i], -1);
            ck_assert_int_eq(t->duration_ps[i], 0);
            /* node 0 has no predecessor; node i waits for node i - 1 only */
            ck_assert_uint_eq(t->dep_off[i + 1] - t->dep_off[i], i == 0 ? 0 : 1);
            if (i > 0) {
                ck_assert_uint_eq(t->deps[t->dep_off[i]], i - 1);
            }
        }
        ck_assert_str_eq(t->name[2], "all_gather.2");
    }
    ck_assert(weft_workload_check(wl, 4, NULL));
    /* a barrier carries no data */
    g_autoptr(weft_workload_t) b = weft_workload_collective(WEFT_COLL_BARRIER, 0, 1, 2, &err);
    ck_assert_msg(b != NULL, "%s", err ? err->message : "");
    ck_assert(weft_workload_check(b, 2, NULL));
}
END_TEST

/* A collective of a rank outside its communicator is refused, naming the rank and the group,
 * whatever the order of the members (membership is a binary search over them sorted, since
 * a scan made the check quadratic in the ranks: tests/fuzz/fuzz_text); and a world of
 * 131,072 ranks checks (3 collectives each: 3 x 131,072 searches, not 2.6e10 comparisons). */
START_TEST(collective_of_a_non_member_is_refused)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_workload_t) wl =
        weft_workload_collective(WEFT_COLL_ALL_REDUCE, 1024, 1, 4, &err);
    ck_assert_msg(wl != NULL, "%s", err ? err->message : "");
    ck_assert(weft_workload_check(wl, 0, &err));
    /* the world becomes ranks {3, 0, 2}: rank 1 runs a collective it is not a member of */
    static const guint members[] = {3, 0, 2};
    weft_workload_i_comm_free(g_ptr_array_index(wl->comms, 0));
    g_ptr_array_index(wl->comms, 0) = weft_workload_i_comm_new("0", members, 3);
    ck_assert(!weft_workload_check(wl, 0, &err));
    ck_assert(g_error_matches(err, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM));
    ck_assert_msg(strstr(err->message, "rank 1 is not a member of process group '0' (3 ranks)"),
                  "%s", err->message);
    g_clear_error(&err);
    g_autoptr(weft_workload_t) big =
        weft_workload_collective(WEFT_COLL_ALL_REDUCE, 1024, 3, 131072, &err);
    ck_assert_msg(big != NULL, "%s", err ? err->message : "");
    ck_assert_msg(weft_workload_check(big, 0, &err), "%s", err ? err->message : "");
}
END_TEST

START_TEST(collective_workload_bad_values_are_value_errors)
{
    const struct {
        weft_coll_op_t op;
        guint64 bytes;
        guint iterations, n_ranks;
    } bad[] = {
        {WEFT_COLL_ALL_REDUCE, 0, 1, 8},             /* size 0 */
        {WEFT_COLL_BARRIER, 64, 1, 8},               /* a barrier with data */
        {WEFT_COLL_ALL_REDUCE, 64, 0, 8},            /* no iteration */
        {WEFT_COLL_ALL_REDUCE, 64, 1, 0},            /* no rank */
        {(weft_coll_op_t)WEFT_COLL_N_OPS, 64, 1, 8}, /* no such operation */
    };
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(GError) err = NULL;
        weft_workload_t *wl = weft_workload_collective(bad[i].op, bad[i].bytes, bad[i].iterations,
                                                       bad[i].n_ranks, &err);
        ck_assert_msg(wl == NULL, "case %u accepted", i);
        ck_assert(g_error_matches(err, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE));
    }
}
END_TEST

/* ---- the writer, as ASTRA-sim reads it ----------------------------------------- */

/* One rank's file as a Chakra feeder sees it: framed messages unpacked with
 * chakra.proto's protobuf-c code, nothing of weft's reader. */
typedef struct {
    ChakraProtoMsg__GlobalMetadata *md;
    GPtrArray *nodes; /* ChakraProtoMsg__Node* */
} raw_et_t;

static void
raw_node_free(gpointer p)
{
    chakra_proto_msg__node__free_unpacked(p, NULL);
}

/* Splits @path into its varint-framed messages; asserts every frame unpacks. */
static raw_et_t
raw_read(const char *path)
{
    g_autofree char *d = NULL;
    gsize len = 0;
    ck_assert_msg(g_file_get_contents(path, &d, &len, NULL), "cannot read %s", path);
    raw_et_t et = {NULL, g_ptr_array_new_with_free_func(raw_node_free)};
    gsize off = 0;
    while (off < len) {
        guint64 n = 0;
        for (guint shift = 0;; shift += 7) {
            ck_assert_msg(off < len && shift < 64, "%s: bad varint at %zu", path, off);
            guint8 b = (guint8)d[off++];
            n |= (guint64)(b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
        }
        ck_assert_msg(n <= len - off, "%s: truncated message at %zu", path, off);
        const guint8 *msg = (const guint8 *)d + off;
        if (et.md == NULL) {
            et.md = chakra_proto_msg__global_metadata__unpack(NULL, n, msg);
            ck_assert_ptr_nonnull(et.md);
        } else {
            ChakraProtoMsg__Node *node = chakra_proto_msg__node__unpack(NULL, n, msg);
            ck_assert_msg(node != NULL, "%s: message at %zu is not a Node", path, off);
            g_ptr_array_add(et.nodes, node);
        }
        off += n;
    }
    ck_assert_ptr_nonnull(et.md);
    return et;
}

static void
raw_clear(raw_et_t *et)
{
    chakra_proto_msg__global_metadata__free_unpacked(et->md, NULL);
    g_ptr_array_unref(et->nodes);
}

/* The attribute @name of @n, or NULL; asserts it is there at most once. */
static const ChakraProtoMsg__AttributeProto *
raw_attr(const ChakraProtoMsg__Node *n, const char *name)
{
    const ChakraProtoMsg__AttributeProto *found = NULL;
    for (gsize k = 0; k < n->n_attr; k++) {
        if (strcmp(n->attr[k]->name, name) == 0) {
            ck_assert_msg(found == NULL, "node %" G_GUINT64_FORMAT ": %s twice", n->id, name);
            found = n->attr[k];
        }
    }
    return found;
}

/* The attribute @name of @n, which must be there as the member @member. */
static const ChakraProtoMsg__AttributeProto *
raw_attr_as(const ChakraProtoMsg__Node *n, const char *name,
            ChakraProtoMsg__AttributeProto__ValueCase member)
{
    const ChakraProtoMsg__AttributeProto *a = raw_attr(n, name);
    ck_assert_msg(a != NULL, "node %" G_GUINT64_FORMAT " (%s) has no %s", n->id, n->name, name);
    ck_assert_msg(a->value_case == member, "node %" G_GUINT64_FORMAT ": %s is member %d, not %d",
                  n->id, name, (int)a->value_case, (int)member);
    return a;
}

#define AV(x) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_##x

/* A GPT-like step: 2 layers, h 64, 4 heads, FFN 256, vocab 128, seq 32, on tp 2 x pp 2 x
 * dp 2 = 8 ranks with sequence parallelism and the distributed optimizer, 2 micro-batches. */
static weft_workload_t *
gen_small_gpt(void)
{
    weft_gen_config_t c = {.layers = 2,
                           .hidden = 64,
                           .heads = 4,
                           .kv_heads = 4,
                           .ffn = 256,
                           .vocab = 128,
                           .seq = 32,
                           .tp = 2,
                           .pp = 2,
                           .dp = 2,
                           .cp = 1,
                           .ep = 1,
                           .vpp = 1,
                           .sp = TRUE,
                           .dist_opt = TRUE,
                           .micro_batch = 1,
                           .global_batch = 4};
    g_autoptr(GError) e = NULL;
    const weft_hw_gpu_t *gpu = weft_hw_gpu("h100", &e);
    ck_assert_ptr_nonnull(gpu);
    weft_workload_t *wl = weft_gen_transformer(&c, gpu, &e);
    ck_assert_msg(wl != NULL, "%s", e != NULL ? e->message : "");
    return wl;
}

START_TEST(written_traces_have_what_astra_sim_reads)
{
    g_autoptr(weft_workload_t) wl = gen_small_gpt();
    g_autofree char *pre = prefix();
    g_autoptr(GError) e = NULL;
    ck_assert_msg(weft_workload_write_chakra(wl, pre, &e), "%s", e != NULL ? e->message : "");

    /* PREFIX.json: ASTRA-sim's comm-group file. Megatron-LM's layout (tensor fastest, then
     * data, pipeline outermost) gives 4 TP groups {0,1} {2,3} {4,5} {6,7} and 4 DP groups
     * {0,2} {1,3} {4,6} {5,7}; weft gen lists TP before DP, so ids 1..4 are tp.0..tp.3 and
     * 5..8 dp.0..dp.3. */
    static const guint members[8][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7},
                                        {0, 2}, {1, 3}, {4, 6}, {5, 7}};
    static const char *const names[8] = {"tp.0", "tp.1", "tp.2", "tp.3",
                                         "dp.0", "dp.1", "dp.2", "dp.3"};
    g_autofree char *json = g_strdup_printf("%s.json", pre);
    g_autoptr(JsonParser) jp = json_parser_new();
    ck_assert(json_parser_load_from_file(jp, json, NULL));
    JsonObject *groups = json_node_get_object(json_parser_get_root(jp));
    ck_assert_uint_eq(json_object_get_size(groups), 8);
    for (guint g = 0; g < 8; g++) {
        g_autofree char *key = g_strdup_printf("%u", g + 1);
        ck_assert_msg(json_object_has_member(groups, key), "no group \"%s\"", key);
        JsonArray *ranks = json_object_get_array_member(groups, key);
        ck_assert_uint_eq(json_array_get_length(ranks), 2);
        for (guint m = 0; m < 2; m++) {
            ck_assert_int_eq(json_array_get_int_element(ranks, m), members[g][m]);
        }
    }

    guint64 colls_per_group[8] = {0}, rs_dp = 0, ag_dp = 0;
    for (guint r = 0; r < wl->n_ranks; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        g_autofree char *path = g_strdup_printf("%s.%u.et", pre, r);
        raw_et_t et = raw_read(path);
        ck_assert_str_eq(et.md->version, "0.0.4");
        ck_assert_uint_eq(et.nodes->len, t->n_nodes);
        g_autoptr(GHashTable) seen = g_hash_table_new(g_int64_hash, g_int64_equal);
        guint sends = 0, recvs = 0;
        for (guint i = 0; i < et.nodes->len; i++) {
            const ChakraProtoMsg__Node *n = g_ptr_array_index(et.nodes, i);
            /* Dependencies point to nodes earlier in the file (both feeders take them so). */
            for (gsize k = 0; k < n->n_data_deps; k++) {
                ck_assert_msg(g_hash_table_contains(seen, &n->data_deps[k]),
                              "rank %u: node %" G_GUINT64_FORMAT " depends on %" G_GUINT64_FORMAT
                              ", not earlier in the file",
                              r, n->id, n->data_deps[k]);
            }
            ck_assert_msg(!g_hash_table_contains(seen, &n->id),
                          "node id %" G_GUINT64_FORMAT " twice", n->id);
            g_hash_table_add(seen, (gpointer)&n->id);
            const ChakraProtoMsg__AttributeProto *cpu = raw_attr(n, "is_cpu_op");
            if (cpu != NULL) {
                ck_assert_int_eq(cpu->value_case, AV(BOOL_VAL));
            }
            switch (n->type) {
            case CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE:
                /* ASTRA-sim's roofline reads both, as integers, without defaults */
                raw_attr_as(n, "num_ops", AV(INT64_VAL));
                raw_attr_as(n, "tensor_size", AV(UINT64_VAL));
                break;
            case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE: {
                ck_assert(cpu == NULL || !cpu->bool_val); /* ASTRA-sim refuses CPU comms */
                gint64 type = raw_attr_as(n, "comm_type", AV(INT64_VAL))->int64_val;
                /* Chakra's CollectiveCommType, and one ASTRA-sim runs: ALL_REDUCE 0,
                 * ALL_GATHER 2, ALL_TO_ALL 6, REDUCE_SCATTER 7 */
                ck_assert_msg(type == 0 || type == 2 || type == 6 || type == 7, "comm_type %d",
                              (int)type);
                ck_assert_int_gt(raw_attr_as(n, "comm_size", AV(INT64_VAL))->int64_val, 0);
                /* Every collective of this step runs in a TP or a DP group, none in the world */
                const char *pg = raw_attr_as(n, "pg_name", AV(STRING_VAL))->string_val;
                guint64 id = 0;
                ck_assert_msg(g_ascii_string_to_unsigned(pg, 10, 1, 8, &id, NULL),
                              "pg_name '%s' is not a decimal id 1..8", pg);
                ck_assert_msg(json_object_has_member(groups, pg), "pg_name %s not in the JSON", pg);
                ck_assert_msg(members[id - 1][0] == r || members[id - 1][1] == r,
                              "rank %u runs a collective in group %s", r, pg);
                const char *desc = raw_attr_as(n, "pg_desc", AV(STRING_VAL))->string_val;
                ck_assert_str_eq(desc, names[id - 1]);
                colls_per_group[id - 1]++;
                if (id > 4) {
                    rs_dp += type == 7;
                    ag_dp += type == 2;
                }
                break;
            }
            case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE:
            case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE: {
                gboolean send = n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE;
                gint32 src = raw_attr_as(n, "comm_src", AV(INT32_VAL))->int32_val;
                gint32 dst = raw_attr_as(n, "comm_dst", AV(INT32_VAL))->int32_val;
                raw_attr_as(n, "comm_tag", AV(INT32_VAL));
                ck_assert_int_gt(raw_attr_as(n, "comm_size", AV(INT64_VAL))->int64_val, 0);
                /* Pipeline stages are ranks 0-3 and 4-7: the peer is r + 4 or r - 4, and the
                 * issuing rank is the sender of a send and the receiver of a receive. */
                gint32 me = (gint32)r, peer = (gint32)((r + 4) % 8);
                ck_assert_int_eq(send ? src : dst, me);
                ck_assert_int_eq(send ? dst : src, peer);
                sends += send;
                recvs += !send;
                break;
            }
            default:
                ck_abort_msg("rank %u: node %" G_GUINT64_FORMAT ": type %d", r, n->id, n->type);
            }
        }
        /* 1F1B with 2 micro-batches over 2 stages: each rank sends and receives one tensor
         * per micro-batch, forward (activations) or backward (gradients): 2 and 2. */
        ck_assert_uint_eq(sends, 2);
        ck_assert_uint_eq(recvs, 2);
        raw_clear(&et);
    }
    /* Both members of each group reach it the same number of times; the distributed
     * optimizer reduce-scatters gradients and all-gathers parameters over DP. */
    for (guint g = 0; g < 8; g++) {
        ck_assert_msg(colls_per_group[g] > 0 && colls_per_group[g] % 2 == 0,
                      "group %u: %" G_GUINT64_FORMAT " collective nodes", g + 1,
                      colls_per_group[g]);
    }
    ck_assert_uint_gt(rs_dp, 0);
    ck_assert_uint_gt(ag_dp, 0);

    /* weft's reader gets weft's names back from pg_desc, node for node. */
    g_autoptr(weft_workload_t) back = weft_workload_load_chakra(pre, NULL, &e);
    ck_assert_msg(back != NULL, "%s", e != NULL ? e->message : "");
    ck_assert_uint_eq(back->comms->len, wl->comms->len);
    for (guint r = 0; r < wl->n_ranks; r++) {
        const weft_rank_trace_t *a = &wl->ranks[r], *b = &back->ranks[r];
        ck_assert_uint_eq(b->n_nodes, a->n_nodes);
        for (guint i = 0; i < a->n_nodes; i++) {
            if (a->type[i] != WEFT_NODE_COLL) {
                continue;
            }
            const weft_comm_t *ca = g_ptr_array_index(wl->comms, a->comm[i]);
            const weft_comm_t *cb = g_ptr_array_index(back->comms, b->comm[i]);
            ck_assert_str_eq(cb->name, ca->name);
            ck_assert_uint_eq(cb->n_ranks, ca->n_ranks);
            ck_assert_mem_eq(cb->ranks, ca->ranks, ca->n_ranks * sizeof(guint));
        }
    }
    expect_check_ok(back, 8);
}
END_TEST

#undef AV

static Suite *
workload_suite(void)
{
    Suite *s = suite_create("workload");
    TCase *real = tcase_create("real_traces");
    tcase_add_test(real, pytorch_trace_loads_with_its_node_counts);
    tcase_add_test(real, pytorch_trace_replicated_spans_the_world);
    tcase_add_test(real, microbenchmarks_load_with_type_and_size);
    tcase_add_test(real, custom_ring_allreduce_has_matching_sends_and_receives);
    tcase_add_test(real, mlp_model_parallel_has_32_ranks);
    tcase_add_test(real, demo1_allreduce_loads);
    suite_add_tcase(s, real);

    TCase *files = tcase_create("files");
    tcase_add_checked_fixture(files, tmp_setup, tmp_teardown);
    tcase_add_test(files, good_synthetic_trace_loads);
    tcase_add_test(files, prefix_without_files_is_io_error);
    tcase_add_test(files, missing_middle_rank_is_io_error);
    tcase_add_test(files, empty_file_is_corrupt);
    tcase_add_test(files, truncated_message_is_corrupt);
    tcase_add_test(files, overlong_varint_is_corrupt);
    tcase_add_test(files, varint_off_the_end_is_corrupt);
    tcase_add_test(files, zero_length_message_is_corrupt);
    tcase_add_test(files, unpackable_node_is_corrupt);
    tcase_add_test(files, gzip_wrapped_trace_loads_identically);
    tcase_add_test(files, version_003_is_legacy);
    tcase_add_test(files, metadata_without_version_is_legacy);
    tcase_add_test(files, node_first_without_metadata_is_legacy);
    tcase_add_test(files, schema_attribute_is_accepted_as_version);
    suite_add_tcase(s, files);

    TCase *nodes = tcase_create("nodes");
    tcase_add_checked_fixture(nodes, tmp_setup, tmp_teardown);
    tcase_add_test(nodes, float_comm_size_is_value_error);
    tcase_add_test(nodes, integer_attributes_of_any_width_are_read);
    tcase_add_test(nodes, metadata_only_trace_warns);
    tcase_add_test(nodes, memory_attributes_are_read);
    tcase_add_test(nodes, num_ops_must_be_a_finite_count);
    tcase_add_test(nodes, phases_have_names_aliases_and_guesses);
    tcase_add_test(nodes, layer_ids_are_given_in_order_of_first_mention);
    tcase_add_test(nodes, layer_and_phase_attributes_are_read_and_checked);
    tcase_add_test(nodes, gpu_collective_without_comm_type_is_value_error);
    tcase_add_test(nodes, dependency_on_missing_node_is_dep_error);
    tcase_add_test(nodes, duplicate_node_id_is_dep_error);
    tcase_add_test(nodes, forward_and_duplicate_deps_resolve);
    tcase_add_test(nodes, unsound_ctrl_deps_are_ignored);
    tcase_add_test(nodes, dangling_ctrl_dep_drops_only_itself);
    tcase_add_test(nodes, dangling_ctrl_deps_are_counted_in_one_line);
    tcase_add_test(nodes, ctrl_deps_closing_a_cycle_are_ignored);
    tcase_add_test(nodes, sound_trace_has_no_warnings);
    tcase_add_test(nodes, data_dep_cycle_is_cycle_error);
    tcase_add_test(nodes, free_of_null_is_noop);
    suite_add_tcase(s, nodes);

    TCase *comm = tcase_create("communication");
    tcase_add_checked_fixture(comm, tmp_setup, tmp_teardown);
    tcase_add_test(comm, matched_send_and_recv_pass);
    tcase_add_test(comm, messages_in_any_order_match);
    tcase_add_test(comm, balanced_counts_other_tags_are_unmatched);
    tcase_add_test(comm, send_without_recv_is_unmatched);
    tcase_add_test(comm, recv_without_send_is_unmatched);
    tcase_add_test(comm, peer_out_of_range_is_value_error);
    tcase_add_test(comm, rank_errors_come_before_unmatched_messages_on_large_workloads);
    tcase_add_test(comm, comm_type_out_of_range_is_value_error);
    tcase_add_test(comm, metadata_process_groups_become_communicators);
    tcase_add_test(comm, escaped_json_process_groups_are_read);
    tcase_add_test(comm, rank_outside_its_group_is_comm_error);
    tcase_add_test(comm, unknown_pg_name_is_comm_error);
    tcase_add_test(comm, comm_group_json_defines_groups);
    tcase_add_test(comm, bad_comm_group_json_is_comm_error);
    tcase_add_test(comm, group_with_absent_rank_is_comm_error_on_many_ranks);
    tcase_add_test(comm, unused_comm_groups_are_checked_when_read);
    tcase_add_test(comm, comm_group_json_beside_the_traces_is_used);
    tcase_add_test(comm, pg_desc_names_the_communicator);
    tcase_add_test(comm, pg_desc_conflicts_are_comm_errors);
    tcase_add_test(comm, single_rank_workload_reduces_groups_to_present_ranks);
    tcase_add_test(comm, host_side_collective_needs_no_comm_type);
    tcase_add_test(comm, host_record_halves_stay_on_the_cpu);
    tcase_add_test(comm, cpu_flagged_collective_alone_is_a_gpu_collective);
    tcase_add_test(comm, cpu_flagged_collective_alone_needs_a_known_group);
    tcase_add_test(comm, cpu_flagged_collective_alone_without_comm_type_is_value_error);
    tcase_add_test(comm, host_record_without_kernel_runs_on_the_host_with_a_warning);
    tcase_add_test(comm, one_member_communicators_are_warned_about);
    tcase_add_test(comm, roofline_times_compute_nodes_without_a_duration);
    tcase_add_test(comm, replicate_copies_the_rank_and_spans_unknown_groups);
    tcase_add_test(comm, pg_size_cuts_a_group_into_consecutive_ranks);
    tcase_add_test(comm, bad_group_sizes_are_errors_that_change_nothing);
    suite_add_tcase(s, comm);

    TCase *written = tcase_create("written");
    tcase_add_checked_fixture(written, tmp_setup, tmp_teardown);
    tcase_add_test(written, written_traces_have_what_astra_sim_reads);
    suite_add_tcase(s, written);

    TCase *synth = tcase_create("synthetic");
    tcase_add_test(synth, collective_workload_is_a_chain_on_every_rank);
    tcase_add_test(synth, collective_workload_bad_values_are_value_errors);
    tcase_add_test(synth, collective_of_a_non_member_is_refused);
    suite_add_tcase(s, synth);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(workload_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
