/* SPDX-License-Identifier: MIT */
/*
 * Tests of the ASTRA-sim 1.0 / SimAI text workload reader (workload/text.c):
 * every text workload in $WEFT_SHARED/data loads and passes
 * weft_workload_check() (skipped when absent); a small hand-written workload
 * with tensor, expert, data and pipeline parallelism has the node, collective,
 * send and receive counts, communicators and peers derived by hand; bad files
 * are errors of the right code naming file and line; the Chakra loader and the
 * dispatcher take text files.
 */
#include "workload/workload.h"

#include <check.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Asserts that @e is set with @domain and @code. */
#define ck_assert_error(e, domain_, code_)                                                         \
    do {                                                                                           \
        ck_assert_ptr_nonnull(e);                                                                  \
        ck_assert_msg((e)->domain == (domain_) && (e)->code == (code_), "code %d: %s", (e)->code,  \
                      (e)->message);                                                               \
    } while (0)

/* Writes @text to a fresh temporary file; returns its path (free with g_free, unlink). */
static char *
write_tmp(const char *text)
{
    g_autoptr(GError) e = NULL;
    char *path = NULL;
    int fd = g_file_open_tmp("weft-text-XXXXXX.txt", &path, &e);
    ck_assert_msg(fd >= 0, "%s", e != NULL ? e->message : "");
    close(fd);
    ck_assert(g_file_set_contents(path, text, -1, NULL));
    return path;
}

typedef struct {
    guint nodes, comp, coll, send, recv;
} counts_t;

static counts_t
count(const weft_rank_trace_t *t)
{
    counts_t c = {t->n_nodes, 0, 0, 0, 0};
    for (guint i = 0; i < t->n_nodes; i++) {
        c.comp += t->type[i] == WEFT_NODE_COMP;
        c.coll += t->type[i] == WEFT_NODE_COLL;
        c.send += t->type[i] == WEFT_NODE_SEND;
        c.recv += t->type[i] == WEFT_NODE_RECV;
    }
    return c;
}

/* ---- the shared samples ---------------------------------------------------------- */

static void
load_dir(const char *sub)
{
    const char *shared = g_getenv("WEFT_SHARED");
    if (shared == NULL) {
        printf("skipped: WEFT_SHARED is not set (%s)\n", sub);
        return;
    }
    g_autofree char *dir = g_build_filename(shared, "data", sub, NULL);
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    if (d == NULL) {
        printf("skipped: %s is absent\n", dir);
        return;
    }
    guint n = 0;
    const char *entry;
    while ((entry = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_suffix(entry, ".txt")) {
            continue;
        }
        g_autofree char *path = g_build_filename(dir, entry, NULL);
        g_autoptr(GError) e = NULL;
        ck_assert_msg(weft_workload_is_text(path), "%s", path);
        g_autoptr(weft_workload_t) wl = weft_workload_load_text(path, 0, &e);
        ck_assert_msg(wl != NULL, "%s: %s", path, e != NULL ? e->message : "");
        ck_assert_msg(weft_workload_check(wl, 0, &e), "%s: %s", path, e->message);
        ck_assert_uint_gt(weft_workload_node_count(wl), 0);
        n++;
    }
    ck_assert_uint_gt(n, 0); /* the folder holds workloads */
}

START_TEST(every_astra_sim_sample_loads_and_checks)
{
    load_dir("astra-sim-text-workloads");
}
END_TEST

START_TEST(every_simai_sample_loads_and_checks)
{
    load_dir("simai-workloads");
}
END_TEST

START_TEST(resnet_is_data_parallel_over_eight_ranks)
{
    const char *shared = g_getenv("WEFT_SHARED");
    if (shared == NULL) {
        printf("skipped: WEFT_SHARED is not set\n");
        return;
    }
    g_autofree char *path = g_build_filename(shared, "data", "astra-sim-text-workloads",
                                             "Resnet50_DataParallel.txt", NULL);
    if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        printf("skipped: %s is absent\n", path);
        return;
    }
    g_autoptr(GError) e = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_text(path, 0, &e);
    ck_assert_ptr_nonnull(wl);
    /* DATA without all_gpus: the default 8 ranks, every collective in the world (comm 0). */
    ck_assert_uint_eq(wl->n_ranks, 8);
    ck_assert_uint_eq(wl->comms->len, 1);
    counts_t c = count(&wl->ranks[3]);
    /* 54 lines, every time > 0: forward, input-gradient, weight-gradient and update
     * compute = 4 x 54 = 216; every line has a weight-gradient ALLREDUCE: 54 collectives. */
    ck_assert_uint_eq(c.comp, 216);
    ck_assert_uint_eq(c.coll, 54);
    ck_assert_uint_eq(c.nodes, 270);
    /* Cycles taken as ns: conv1's forward 13003 cycles = 13003000 ps, the first node. */
    ck_assert_int_eq(wl->ranks[3].duration_ps[0], 13003000);
    /* A hint gives the rank count when the header has none. */
    g_autoptr(weft_workload_t) wl16 = weft_workload_load_text(path, 16, &e);
    ck_assert_uint_eq(wl16->n_ranks, 16);
}
END_TEST

/* ---- a small hybrid workload, counted by hand ------------------------------------ */

/* tp 2, ep 2, pp 2, 8 ranks: dp = 8 / (2 x 2) = 2, expert-data groups of 2 / 2 = 1 rank.
 * Two micro-batches (each starts at an embedding_layer line). */
static const char *small =
    "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 2 pp: 2 vpp: 1 ga: 2 "
    "all_gpus: 8 checkpoints: 0 checkpoint_initiates: 0 pp_comm 1024\n"
    "4\n"
    "embedding_layer -1 10 ALLREDUCE 100 20 NONE 0 30 NONE 0 5\n"
    "mlp -1 10 ALLTOALL_EP 200 20 ALLGATHER 300 30 ALLREDUCE 400 5\n"
    "embedding_layer\t-1\t10\tALLREDUCE\t100\t20\tNONE\t0\t30\tNONE\t0\t5\n"
    "mlp -1 10 ALLTOALL_EP 200 20 ALLGATHER 300 30 ALLREDUCE_DP_EP 400 5\n";

START_TEST(small_hybrid_counts_derived_by_hand)
{
    g_autofree char *path = write_tmp(small);
    g_autoptr(GError) e = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_text(path, 0, &e);
    g_unlink(path);
    ck_assert_msg(wl != NULL, "%s", e != NULL ? e->message : "");
    ck_assert(weft_workload_check(wl, 8, &e));
    ck_assert_uint_eq(wl->n_ranks, 8);
    /* Communicators in order of first use: world; TP (8 / 2 = 4 groups) from line 1; EP
     * (4 groups) and DP (4 groups) from line 2; the expert-data groups (ALLREDUCE_DP_EP) have
     * one rank each: built (8 groups) but their collectives are dropped. 1 + 4 + 4 + 4 + 8. */
    ck_assert_uint_eq(wl->comms->len, 21);
    for (guint r = 0; r < 8; r++) {
        counts_t c = count(&wl->ranks[r]);
        /* Forward per micro-batch: 2 compute + 2 collectives (TP all-reduce, EP all-to-all),
         * plus a SEND on stage 0 or a RECV on stage 1 = 5; x 2 micro-batches = 10.
         * Backward per micro-batch: mlp ig compute + TP all-gather + wg compute (+ DP
         * all-reduce in micro-batch 0 only: micro-batch 1's is _DP_EP over one rank),
         * embedding ig + wg compute, + RECV (stage 0) or SEND (stage 1): 7 and 6 = 13.
         * Update: 4 lines = 4 compute. Total 10 + 13 + 4 = 27. */
        ck_assert_uint_eq(c.nodes, 27);
        /* compute: forward 4 + backward 8 + update 4 = 16 */
        ck_assert_uint_eq(c.comp, 16);
        /* collectives: forward 4 + backward (2 all-gathers + 1 all-reduce) = 7 */
        ck_assert_uint_eq(c.coll, 7);
        /* one send and one receive per micro-batch */
        ck_assert_uint_eq(c.send, 2);
        ck_assert_uint_eq(c.recv, 2);
    }
    /* Rank 5: stage p = 5 / 4 = 1, q = 1: t = 1, d = 0. Its forward starts with a RECV of
     * 1024 bytes from rank 5 - 4 = 1 (tag 0 = micro-batch 0). */
    const weft_rank_trace_t *t = &wl->ranks[5];
    ck_assert_int_eq(t->type[0], WEFT_NODE_RECV);
    ck_assert_int_eq(t->peer[0], 1);
    ck_assert_uint_eq(t->comm_bytes[0], 1024);
    ck_assert_int_eq(t->tag[0], 0);
    /* Then embedding forward compute (10 ns) and its TP all-reduce: TP group p * dp + d = 2,
     * communicator 1 + 2 = 3, ranks {4, 5}. */
    ck_assert_int_eq(t->duration_ps[1], 10000);
    ck_assert_int_eq(t->type[2], WEFT_NODE_COLL);
    ck_assert_int_eq(t->coll_op[2], WEFT_COLL_ALL_REDUCE);
    const weft_comm_t *tp = g_ptr_array_index(wl->comms, t->comm[2]);
    ck_assert_int_eq(t->comm[2], 3);
    ck_assert_uint_eq(tp->n_ranks, 2);
    ck_assert_uint_eq(tp->ranks[0], 4);
    ck_assert_uint_eq(tp->ranks[1], 5);
    /* The mlp all-to-all runs in EP group (p * tp + t) * (dp / ep) + k = 3: communicator
     * 5 + 3 = 8, ranks {5, 7} (d = 0, 1). */
    ck_assert_int_eq(t->coll_op[4], WEFT_COLL_ALL_TO_ALL);
    ck_assert_int_eq(t->comm[4], 8);
    const weft_comm_t *ep = g_ptr_array_index(wl->comms, 8);
    ck_assert_uint_eq(ep->ranks[0], 5);
    ck_assert_uint_eq(ep->ranks[1], 7);
    /* The mlp input-gradient ALLGATHER of 300 bytes (the gathered output, as the formats
     * write it) is 300 / 2 = 150 bytes per rank in the TP group. */
    guint n_ag = 0;
    for (guint i = 0; i < t->n_nodes; i++) {
        if (t->type[i] == WEFT_NODE_COLL && t->coll_op[i] == WEFT_COLL_ALL_GATHER) {
            ck_assert_uint_eq(t->comm_bytes[i], 150);
            n_ag++;
        }
    }
    ck_assert_uint_eq(n_ag, 2); /* one per micro-batch */
    /* Stage 0 ends each forward micro-batch with a SEND to rank + 4 (node 4 of rank 1). */
    ck_assert_int_eq(wl->ranks[1].type[4], WEFT_NODE_SEND);
    ck_assert_int_eq(wl->ranks[1].peer[4], 5);
    /* Ranks of a stage share arrays; the first of each stage owns them. */
    ck_assert(!wl->ranks[0].borrows_arrays);
    ck_assert(wl->ranks[1].borrows_arrays);
    ck_assert(!wl->ranks[4].borrows_arrays);
}
END_TEST

START_TEST(chakra_loader_and_dispatcher_take_text_files)
{
    g_autofree char *path = write_tmp(small);
    g_autoptr(GError) e = NULL;
    g_autoptr(weft_workload_t) a = weft_workload_load_chakra(path, NULL, &e);
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(a->n_ranks, 8);
    g_autoptr(weft_workload_t) b = weft_workload_load(path, NULL, &e);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(weft_workload_node_count(b), 8 * 27); /* as counted above */
    /* A comm-group file does not apply to a text workload. */
    g_autoptr(weft_workload_t) c = weft_workload_load_chakra(path, "groups.json", &e);
    ck_assert_ptr_null(c);
    ck_assert_error(e, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM);
    g_unlink(path);
}
END_TEST

/* ---- bad files ------------------------------------------------------------------ */

/* Loads @text; expects @code and a message starting "<file>:<line>:" (line 0: just "<file>"). */
static void
expect_error(const char *text, gint code, guint line)
{
    g_autofree char *path = write_tmp(text);
    g_autoptr(GError) e = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_text(path, 0, &e);
    g_unlink(path);
    ck_assert_ptr_null(wl);
    ck_assert_ptr_nonnull(e);
    ck_assert_msg(e->domain == WEFT_WORKLOAD_ERROR && e->code == code, "code %d, wanted %d: %s",
                  e->code, code, e->message);
    g_autofree char *where =
        line > 0 ? g_strdup_printf("%s:%u:", path, line) : g_strdup_printf("%s", path);
    ck_assert_msg(g_str_has_prefix(e->message, where), "'%s' does not start with '%s'", e->message,
                  where);
}

START_TEST(wrong_column_count_is_corrupt_with_line)
{
    /* line 4 has 11 columns */
    expect_error("DATA\n2\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\nb -1 1 NONE 0 1 NONE 0 1 "
                 "ALLREDUCE 8\n",
                 WEFT_WORKLOAD_ERROR_CORRUPT, 4);
}
END_TEST

START_TEST(unknown_comm_type_is_a_value_error_with_line)
{
    expect_error("DATA\n1\na -1 1 NONE 0 1 BROADCAST 8 1 ALLREDUCE 8 1\n",
                 WEFT_WORKLOAD_ERROR_VALUE, 3);
    expect_error("DATA\n1\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE_XY 8 1\n", WEFT_WORKLOAD_ERROR_VALUE,
                 3);
}
END_TEST

START_TEST(bad_number_is_a_value_error_with_line)
{
    expect_error("DATA\n1\na -1 12a NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n", WEFT_WORKLOAD_ERROR_VALUE,
                 3);
    expect_error("DATA\n1\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE -8 1\n", WEFT_WORKLOAD_ERROR_VALUE,
                 3);
    expect_error("DATA\nx\n", WEFT_WORKLOAD_ERROR_VALUE, 2);
    expect_error("HYBRID_TRANSFORMER model_parallel_NPU_group: four\n0\n",
                 WEFT_WORKLOAD_ERROR_VALUE, 1);
}
END_TEST

START_TEST(bad_structure_is_corrupt)
{
    expect_error("TRAINING\n0\n", WEFT_WORKLOAD_ERROR_CORRUPT, 1); /* unknown keyword */
    /* line 2 announces 2 layers, the file has 1 (3 lines: the count names the last line) */
    expect_error("DATA\n2\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n", WEFT_WORKLOAD_ERROR_CORRUPT,
                 4);
    /* HYBRID_CUSTOMIZED needs the 13th column */
    expect_error("HYBRID_CUSTOMIZED\n1\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n",
                 WEFT_WORKLOAD_ERROR_CORRUPT, 3);
}
END_TEST

START_TEST(unmappable_parallelism_is_refused)
{
    /* 6 ranks are not a multiple of model_parallel_NPU_group 4 x pp 1 */
    expect_error("HYBRID_TRANSFORMER model_parallel_NPU_group: 4 all_gpus: 6\n0\n",
                 WEFT_WORKLOAD_ERROR_RANKS, 1);
    /* more ranks than any cluster holds (2^20 = 1,048,576): refused before anything is built
     * (100,000,000 ranks took minutes and GBs: tests/fuzz/fuzz_text) */
    expect_error("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 all_gpus: 100000000\n"
                 "1\nmlp -1 10 ALLREDUCE 200 20 ALLGATHER 300 30 ALLREDUCE 400 5\n",
                 WEFT_WORKLOAD_ERROR_RANKS, 1);
    expect_error("HYBRID_TRANSFORMER model_parallel_NPU_group: 1 all_gpus: 1048577\n0\n",
                 WEFT_WORKLOAD_ERROR_RANKS, 1);
    /* dp = 8 / 2 = 4 is not a multiple of ep 3 */
    expect_error("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 3 all_gpus: 8\n0\n",
                 WEFT_WORKLOAD_ERROR_COMM, 1);
    /* an expert comm type in a DATA workload */
    expect_error("DATA\n1\na -1 1 NONE 0 1 NONE 0 1 ALLREDUCE_EP 8 1\n", WEFT_WORKLOAD_ERROR_VALUE,
                 3);
    /* an unknown header key */
    expect_error("HYBRID_TRANSFORMER sp: 2\n0\n", WEFT_WORKLOAD_ERROR_VALUE, 1);
}
END_TEST

START_TEST(missing_file_is_io)
{
    g_autoptr(GError) e = NULL;
    ck_assert_ptr_null(weft_workload_load_text("/nonexistent/w.txt", 0, &e));
    ck_assert_error(e, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_IO);
    ck_assert(!weft_workload_is_text("/nonexistent/w.txt"));
}
END_TEST

static Suite *
text_suite(void)
{
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("text");
    tcase_add_test(tc, every_astra_sim_sample_loads_and_checks);
    tcase_add_test(tc, every_simai_sample_loads_and_checks);
    tcase_add_test(tc, resnet_is_data_parallel_over_eight_ranks);
    tcase_add_test(tc, small_hybrid_counts_derived_by_hand);
    tcase_add_test(tc, chakra_loader_and_dispatcher_take_text_files);
    tcase_add_test(tc, wrong_column_count_is_corrupt_with_line);
    tcase_add_test(tc, unknown_comm_type_is_a_value_error_with_line);
    tcase_add_test(tc, bad_number_is_a_value_error_with_line);
    tcase_add_test(tc, bad_structure_is_corrupt);
    tcase_add_test(tc, unmappable_parallelism_is_refused);
    tcase_add_test(tc, missing_file_is_io);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(text_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
