/* SPDX-License-Identifier: MIT */
/*
 * Tests of the transformer step generator (workload/gen.h) and the Chakra
 * writer: for small configurations the collectives (by operation and
 * communicator size), sends and receives per rank are the ones the parallel
 * configuration implies, counted by hand in comments; the pipeline order is
 * 1F1B; generated workloads pass weft_workload_check() and survive a round trip
 * through Chakra ET files; impossible configurations are errors; the roofline
 * and the memory estimate follow their formulas.
 */
#include "hw/kernel.h"
#include "workload/gen.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tiny model: 2 layers, h 64, 4 heads (d 16), 4 KV heads, FFN 256 (2 matrices), vocab 128,
 * seq 32; one micro-batch of one sequence; no parallelism. */
static weft_gen_config_t
tiny(void)
{
    weft_gen_config_t c = {.layers = 2,
                           .hidden = 64,
                           .heads = 4,
                           .kv_heads = 4,
                           .ffn = 256,
                           .vocab = 128,
                           .seq = 32,
                           .tp = 1,
                           .pp = 1,
                           .dp = 1,
                           .cp = 1,
                           .ep = 1,
                           .vpp = 1,
                           .micro_batch = 1,
                           .global_batch = 1};
    return c;
}

typedef struct {
    guint comp, send, recv, coll[WEFT_COLL_N_OPS];
} counts_t;

static counts_t
count(const weft_workload_t *wl, guint r)
{
    counts_t c = {0};
    const weft_rank_trace_t *t = &wl->ranks[r];
    for (guint i = 0; i < t->n_nodes; i++) {
        c.comp += t->type[i] == WEFT_NODE_COMP;
        c.send += t->type[i] == WEFT_NODE_SEND;
        c.recv += t->type[i] == WEFT_NODE_RECV;
        if (t->type[i] == WEFT_NODE_COLL) {
            c.coll[t->coll_op[i]]++;
        }
    }
    return c;
}

static const weft_hw_gpu_t *
h100(void)
{
    const weft_hw_gpu_t *g = weft_hw_gpu("h100", NULL);
    ck_assert_ptr_nonnull(g);
    return g;
}

/* Generates @c, checks it, and round-trips it through Chakra files (same node counts). */
static weft_workload_t *
gen_checked(const weft_gen_config_t *c)
{
    g_autoptr(GError) e = NULL;
    weft_workload_t *wl = weft_gen_transformer(c, h100(), &e);
    ck_assert_msg(wl != NULL, "%s", e != NULL ? e->message : "");
    ck_assert_msg(weft_workload_check(wl, 0, &e), "%s", e != NULL ? e->message : "");
    g_autofree char *dir = g_dir_make_tmp("weft-gen-XXXXXX", NULL);
    g_autofree char *prefix = g_build_filename(dir, "step", NULL);
    g_autofree char *json = g_strdup_printf("%s.json", prefix);
    ck_assert(weft_workload_write_chakra(wl, prefix, &e));
    g_autoptr(weft_workload_t) back = weft_workload_load_chakra(prefix, json, &e);
    ck_assert_msg(back != NULL, "%s", e != NULL ? e->message : "");
    ck_assert_msg(weft_workload_check(back, 0, &e), "%s", e != NULL ? e->message : "");
    ck_assert_uint_eq(back->n_ranks, wl->n_ranks);
    for (guint r = 0; r < wl->n_ranks; r++) {
        ck_assert_uint_eq(back->ranks[r].n_nodes, wl->ranks[r].n_nodes);
        counts_t a = count(wl, r), b = count(back, r);
        ck_assert_mem_eq(&a, &b, sizeof(a));
        g_autofree char *f = g_strdup_printf("%s.%u.et", prefix, r);
        g_unlink(f);
    }
    g_unlink(json);
    g_rmdir(dir);
    return wl;
}

/* ---- collectives and sends per rank, by hand ------------------------------------ */

START_TEST(tensor_parallel_all_reduces)
{
    weft_gen_config_t c = tiny();
    c.tp = 2;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    ck_assert_uint_eq(wl->n_ranks, 2);
    counts_t n;
    for (guint r = 0; r < 2; r++) {
        n = count(wl, r);
        /* Forward: embedding AR, 2 per layer x 2 (attention, MLP), 3 cross-entropy ARs = 8;
         * backward: output-gradient AR, 2 per layer x 2 = 5; no DP: 13 all-reduces. */
        ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_REDUCE], 13);
        ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_GATHER], 0);
        ck_assert_uint_eq(n.coll[WEFT_COLL_REDUCE_SCATTER], 0);
        /* Compute: forward embedding + 6 per layer x 2 + output + cross-entropy = 15,
         * backward the same 15 and one weight-gradient accumulation per layer (2), the
         * optimizer 1 = 33. */
        ck_assert_uint_eq(n.comp, 33);
        ck_assert_uint_eq(n.send + n.recv, 0);
    }
    /* Every collective runs in TP group {0, 1}. */
    const weft_rank_trace_t *t = &wl->ranks[1];
    for (guint i = 0; i < t->n_nodes; i++) {
        if (t->type[i] == WEFT_NODE_COLL) {
            const weft_comm_t *cm = g_ptr_array_index(wl->comms, t->comm[i]);
            ck_assert_uint_eq(cm->n_ranks, 2);
        }
    }
    /* Unfused attention: each attention core is two operators (GEMMs, then softmax and
     * dropout through HBM): 33 + 2 layers x 2 passes = 37 compute nodes, the same
     * collectives. The softmax's bytes: 13 per score, T S a / t = 32 x 32 x 4 / 2 = 2048
     * scores: 26624 bytes forward. */
    c.unfused_attention = TRUE;
    g_autoptr(weft_workload_t) unf = gen_checked(&c);
    n = count(unf, 0);
    ck_assert_uint_eq(n.comp, 37);
    ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_REDUCE], 13);
    const weft_rank_trace_t *u = &unf->ranks[0];
    guint found = 0;
    for (guint i = 0; i < u->n_nodes; i++) {
        if (strcmp(u->name[i], "attn_core.fwd.softmax_dropout") == 0) {
            ck_assert_uint_eq(u->tensor_bytes[i], 26624);
            found++;
        }
    }
    ck_assert_uint_eq(found, 2);
    c.unfused_attention = FALSE;
    /* Full recomputation reruns each layer's forward (2 ARs) before its backward: 13 + 4. */
    c.recompute = WEFT_GEN_RECOMPUTE_FULL;
    g_autoptr(weft_workload_t) full = gen_checked(&c);
    ck_assert_uint_eq(count(full, 0).coll[WEFT_COLL_ALL_REDUCE], 17);
}
END_TEST

START_TEST(sequence_parallel_gathers_and_scatters)
{
    weft_gen_config_t c = tiny();
    c.tp = 2;
    c.sp = TRUE;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    counts_t n = count(wl, 0);
    /* Forward: embedding RS; per layer AG, RS (attention), AG, RS (MLP); output AG; 3 ARs.
     * Backward: output RS; per layer AG, RS (MLP), AG, RS (attention); embedding AG.
     * AG: 2 x 2 + 1 + 2 x 2 + 1 = 10; RS: 1 + 2 x 2 + 1 + 2 x 2 = 10; AR: 3. */
    ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_GATHER], 10);
    ck_assert_uint_eq(n.coll[WEFT_COLL_REDUCE_SCATTER], 10);
    ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_REDUCE], 3);
    /* The activation is T h e = 32 x 64 x 2 = 4096 bytes: reduce-scatters take it whole,
     * all-gathers each rank's half (2048), the cross-entropy all-reduces T x 4 = 128. */
    const weft_rank_trace_t *t = &wl->ranks[0];
    for (guint i = 0; i < t->n_nodes; i++) {
        if (t->type[i] == WEFT_NODE_COLL) {
            guint64 want = t->coll_op[i] == WEFT_COLL_ALL_GATHER       ? 2048
                           : t->coll_op[i] == WEFT_COLL_REDUCE_SCATTER ? 4096
                                                                       : 128;
            ck_assert_uint_eq(t->comm_bytes[i], want);
        }
    }
}
END_TEST

START_TEST(pipeline_1f1b_sends_in_order)
{
    weft_gen_config_t c = tiny();
    c.pp = 2;
    c.global_batch = 4; /* 4 micro-batches */
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    ck_assert_uint_eq(wl->n_ranks, 2);
    /* Stage 0 sends 4 activations and receives 4 gradients; stage 1 the reverse. */
    counts_t s0 = count(wl, 0), s1 = count(wl, 1);
    ck_assert_uint_eq(s0.send, 4);
    ck_assert_uint_eq(s0.recv, 4);
    ck_assert_uint_eq(s1.send, 4);
    ck_assert_uint_eq(s1.recv, 4);
    /* 1F1B on stage 0: warm-up min(pp - 0 - 1, 4) = 1 forward, then F B pairs:
     * F0 F1 B0 F2 B1 F3 B2 B3 -> SEND SEND RECV SEND RECV SEND RECV RECV, all with rank 1. */
    const guint8 want[] = {WEFT_NODE_SEND, WEFT_NODE_SEND, WEFT_NODE_RECV, WEFT_NODE_SEND,
                           WEFT_NODE_RECV, WEFT_NODE_SEND, WEFT_NODE_RECV, WEFT_NODE_RECV};
    const weft_rank_trace_t *t = &wl->ranks[0];
    guint k = 0;
    for (guint i = 0; i < t->n_nodes; i++) {
        if (t->type[i] == WEFT_NODE_SEND || t->type[i] == WEFT_NODE_RECV) {
            ck_assert_uint_lt(k, G_N_ELEMENTS(want));
            ck_assert_int_eq(t->type[i], want[k]);
            ck_assert_int_eq(t->peer[i], 1);
            /* activation of one sequence, 32 tokens x 64 x 2 bytes = 4096 */
            ck_assert_uint_eq(t->comm_bytes[i], 4096);
            k++;
        }
    }
    ck_assert_uint_eq(k, 8);
}
END_TEST

START_TEST(interleaved_pipeline_sends_per_virtual_stage)
{
    weft_gen_config_t c = tiny();
    c.layers = 4;
    c.pp = 2;
    c.vpp = 2;
    c.global_batch = 4;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    /* 4 virtual stages 0..3 (v = chunk x 2 + p). Per micro-batch, forward sends leave
     * v = 0, 1, 2 and backward sends leave v = 3, 2, 1. Stage 0 (v 0, 2): forward 2 sends,
     * backward 1 (v 2); stage 1 (v 1, 3): forward 1, backward 2. x 4 micro-batches:
     * 12 sends and 12 receives per rank. */
    for (guint r = 0; r < 2; r++) {
        counts_t n = count(wl, r);
        ck_assert_uint_eq(n.send, 12);
        ck_assert_uint_eq(n.recv, 12);
    }
}
END_TEST

START_TEST(data_parallel_all_reduce_or_distributed_optimizer)
{
    weft_gen_config_t c = tiny();
    c.dp = 4;
    c.global_batch = 4;
    g_autoptr(weft_workload_t) ar = gen_checked(&c);
    /* Parameters: layer = h (h + 2 g d) + h^2 + 2 h + 2 h f = 64 x 192 + 4096 + 128 + 32768
     * = 49280; 2 layers + embedding and output 2 x 128 x 64 = 98560 + 16384 = 114944.
     * One FP32 gradient all-reduce of 4 x 114944 = 459776 bytes over the 4 DP ranks. */
    counts_t n = count(ar, 2);
    ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_REDUCE], 1);
    const weft_rank_trace_t *t = &ar->ranks[2];
    for (guint i = 0; i < t->n_nodes; i++) {
        if (t->type[i] == WEFT_NODE_COLL) {
            ck_assert_uint_eq(t->comm_bytes[i], 459776);
            const weft_comm_t *cm = g_ptr_array_index(ar->comms, t->comm[i]);
            ck_assert_uint_eq(cm->n_ranks, 4);
        }
    }
    /* Distributed optimizer: reduce-scatter of the FP32 gradients, all-gather of the BF16
     * parameters (2 x 114944 = 229888 bytes gathered; comm_size is each rank's share,
     * 229888 / 4 = 57472). */
    c.dist_opt = TRUE;
    g_autoptr(weft_workload_t) dopt = gen_checked(&c);
    n = count(dopt, 0);
    ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_REDUCE], 0);
    ck_assert_uint_eq(n.coll[WEFT_COLL_REDUCE_SCATTER], 1);
    ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_GATHER], 1);
    t = &dopt->ranks[0];
    for (guint i = 0; i < t->n_nodes; i++) {
        if (t->type[i] == WEFT_NODE_COLL && t->coll_op[i] == WEFT_COLL_ALL_GATHER) {
            ck_assert_uint_eq(t->comm_bytes[i], 57472);
        }
    }
    /* Without overlap the gradients are reduced after the last backward, on the compute
     * chain: the reduce-scatter is third from last (RS, optimizer, AG). */
    ck_assert_int_eq(t->coll_op[t->n_nodes - 3], WEFT_COLL_REDUCE_SCATTER);
    ck_assert_int_eq(t->type[t->n_nodes - 1], WEFT_NODE_COLL);
    /* With overlap (Megatron's flags) the same two collectives: the parameter all-gather
     * first (node 0, no predecessor), the first forward node waiting for it, and the
     * reduce-scatter just before the optimizer, which waits for it. */
    c.overlap_dp = TRUE;
    g_autoptr(weft_workload_t) ov = gen_checked(&c);
    n = count(ov, 0);
    ck_assert_uint_eq(n.coll[WEFT_COLL_REDUCE_SCATTER], 1);
    ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_GATHER], 1);
    t = &ov->ranks[0];
    ck_assert_int_eq(t->coll_op[0], WEFT_COLL_ALL_GATHER);
    ck_assert_uint_eq(t->dep_off[1] - t->dep_off[0], 0);
    ck_assert_uint_eq(t->dep_off[2] - t->dep_off[1], 1); /* embedding.fwd after the gather */
    ck_assert_uint_eq(t->deps[t->dep_off[1]], 0);
    guint last = t->n_nodes - 1; /* the optimizer: after the chain and the reduce-scatter */
    ck_assert_int_eq(t->type[last], WEFT_NODE_COMP);
    ck_assert_int_eq(t->coll_op[last - 1], WEFT_COLL_REDUCE_SCATTER);
    ck_assert_uint_eq(t->dep_off[last + 1] - t->dep_off[last], 2);
}
END_TEST

START_TEST(expert_parallel_all_to_alls)
{
    weft_gen_config_t c = tiny();
    c.experts = 4;
    c.top_k = 2;
    c.ep = 2;
    c.dp = 2;
    c.global_batch = 2;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    counts_t n = count(wl, 1);
    /* Dispatch and combine, forward and backward: 4 per layer x 2 layers = 8 all-to-alls in
     * EP group {0, 1}; the dense gradients all-reduced over DP {0, 1}; the expert-data
     * groups (dp / ep = 1 rank) have none. */
    ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_TO_ALL], 8);
    ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_REDUCE], 1);
    /* Each all-to-all moves T k h e = 32 x 2 x 64 x 2 = 8192 bytes. */
    const weft_rank_trace_t *t = &wl->ranks[1];
    for (guint i = 0; i < t->n_nodes; i++) {
        if (t->type[i] == WEFT_NODE_COLL && t->coll_op[i] == WEFT_COLL_ALL_TO_ALL) {
            ck_assert_uint_eq(t->comm_bytes[i], 8192);
        }
    }
}
END_TEST

START_TEST(context_parallel_ring_exchanges)
{
    weft_gen_config_t c = tiny();
    c.cp = 2;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    ck_assert_uint_eq(wl->n_ranks, 2);
    for (guint r = 0; r < 2; r++) {
        counts_t n = count(wl, r);
        /* cp - 1 = 1 KV exchange per attention core, forward and backward, 2 layers: 2 x 2
         * sends and receives with the other rank; the gradients all-reduced over DP x CP. */
        ck_assert_uint_eq(n.send, 4);
        ck_assert_uint_eq(n.recv, 4);
        ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_REDUCE], 1);
        const weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 0; i < t->n_nodes; i++) {
            if (t->type[i] == WEFT_NODE_SEND) {
                ck_assert_int_eq(t->peer[i], 1 - (gint)r);
                /* K and V of 16 local tokens: 2 x 16 x 4 x 16 x 2 = 4096 bytes */
                ck_assert_uint_eq(t->comm_bytes[i], 4096);
            }
        }
    }
}
END_TEST

START_TEST(presets_generate_and_check)
{
    for (const char *const *p = weft_gen_preset_names(); *p != NULL; p++) {
        weft_gen_config_t c;
        ck_assert(weft_gen_preset(*p, &c, NULL));
        ck_assert(weft_gen_validate(&c, 1, NULL));
    }
    weft_gen_config_t c;
    g_autoptr(GError) e = NULL;
    ck_assert(!weft_gen_preset("gpt5", &c, &e));
    ck_assert_int_eq(e->code, WEFT_WORKLOAD_ERROR_VALUE);
    g_clear_error(&e);
    /* Llama 3.1 405B: 126 layers, 16384 hidden (the model card). */
    ck_assert(weft_gen_preset("Llama3.1-405B", &c, NULL));
    ck_assert_uint_eq(c.layers, 126);
    ck_assert_uint_eq(c.hidden, 16384);
    /* A preset with 2-way tensor and pipeline parallelism generates and checks. */
    ck_assert(weft_gen_preset("gpt3-1.3b", &c, NULL));
    c.tp = 2;
    c.pp = 2;
    c.sp = TRUE;
    c.global_batch = 2;
    g_autoptr(weft_workload_t) wl = weft_gen_transformer(&c, h100(), &e);
    ck_assert_ptr_nonnull(wl);
    ck_assert(weft_workload_check(wl, 4, &e));
    /* num_ops and tensor_size are filled on GEMMs. */
    const weft_rank_trace_t *t = &wl->ranks[0];
    gboolean found = FALSE;
    for (guint i = 0; i < t->n_nodes && !found; i++) {
        found = t->type[i] == WEFT_NODE_COMP && t->num_ops[i] > 0 && t->tensor_bytes[i] > 0;
    }
    ck_assert(found);
}
END_TEST

/* ---- impossible configurations ------------------------------------------------------ */

static void
expect_invalid(const weft_gen_config_t *c, guint n_ranks)
{
    g_autoptr(GError) e = NULL;
    ck_assert(!weft_gen_validate(c, n_ranks, &e));
    ck_assert_ptr_nonnull(e);
    ck_assert(e->domain == WEFT_WORKLOAD_ERROR);
    ck_assert_int_eq(e->code, WEFT_WORKLOAD_ERROR_VALUE);
    g_autoptr(GError) e2 = NULL;
    if (n_ranks == 0) {
        ck_assert_ptr_null(weft_gen_transformer(c, h100(), &e2));
        ck_assert_int_eq(e2->code, WEFT_WORKLOAD_ERROR_VALUE);
    }
}

START_TEST(impossible_configurations_are_errors)
{
    weft_gen_config_t c = tiny();
    c.tp = 3; /* does not divide 4 heads */
    expect_invalid(&c, 0);
    c = tiny();
    c.tp = 2;
    expect_invalid(&c, 3); /* 3 ranks != tp 2 x pp 1 x dp 1 x cp 1 */
    c = tiny();
    c.experts = 4;
    c.top_k = 1;
    c.ep = 3; /* does not divide 4 experts */
    c.dp = 3;
    c.global_batch = 3;
    expect_invalid(&c, 0);
    c = tiny();
    c.ep = 2; /* experts 0: no experts to place */
    expect_invalid(&c, 0);
    c = tiny();
    c.dp = 2;
    c.global_batch = 3; /* not a multiple of micro-batch 1 x dp 2 */
    expect_invalid(&c, 0);
    c = tiny();
    c.pp = 2;
    c.vpp = 2;
    c.layers = 4;
    c.global_batch = 3; /* interleaving: 3 micro-batches not a multiple of pp 2 */
    expect_invalid(&c, 0);
    c = tiny();
    c.pp = 3; /* does not divide 2 layers */
    expect_invalid(&c, 0);
    c = tiny();
    c.sp = TRUE; /* sequence parallelism without tp */
    expect_invalid(&c, 0);
    c = tiny();
    c.cp = 3; /* 2 x 3 does not divide seq 32 */
    expect_invalid(&c, 0);
    c = tiny();
    c.cp = 2;
    c.unfused_attention = TRUE; /* ring attention needs the fused core */
    expect_invalid(&c, 0);
}
END_TEST

/* Each layer's backward accumulates its weight gradients into the FP32 main_grad: one
 * memory-bound node per layer and micro-batch moving GRAD_ACCUM_BYTES per local parameter. */
START_TEST(backward_accumulates_weight_gradients)
{
    g_autoptr(GError) e = NULL;
    weft_gen_config_t c = tiny();
    c.tp = 2;
    g_autoptr(weft_workload_t) wl = weft_gen_transformer(&c, h100(), &e);
    ck_assert_ptr_nonnull(wl);
    const weft_rank_trace_t *t = &wl->ranks[0];
    guint n = 0;
    for (guint i = 0; i < t->n_nodes; i++) {
        if (t->type[i] != WEFT_NODE_COMP || strcmp(t->name[i], "wgrad_accumulate.bwd") != 0) {
            continue;
        }
        n++;
        /* Layer parameters: QKV 64 x 192 + projection 64 x 64 + 2 norms x 64 + MLP 2 x 64 x
         * 256 = 12288 + 4096 + 128 + 32768 = 49280; / tp 2 = 24640; x 8 bytes = 197120 bytes,
         * no FLOPs; at H100's streaming 2.778e12 B/s (hw catalog): 197120 / 2.778e12 s =
         * 70.96 ns. */
        ck_assert_uint_eq(t->tensor_bytes[i], 197120);
        ck_assert(t->num_ops[i] == 0);
        ck_assert(fabs((double)t->duration_ps[i] - 197120 / h100()->hbm_stream_Bps * 1e12) < 2);
        ck_assert(fabs((double)t->duration_ps[i] - 70960) < 20);
    }
    /* 2 layers x 1 micro-batch. */
    ck_assert_uint_eq(n, 2);
}
END_TEST

/* ---- formulas ------------------------------------------------------------------------ */

/* The duration of the @nth (from 0) node named @name on rank 0, or -1. */
static weft_time_t
node_nth_ps(const weft_workload_t *wl, const char *name, guint nth)
{
    const weft_rank_trace_t *t = &wl->ranks[0];
    for (guint i = 0; i < t->n_nodes; i++) {
        if (strcmp(t->name[i], name) == 0 && nth-- == 0) {
            return t->duration_ps[i];
        }
    }
    return -1;
}

static weft_time_t
node_ps(const weft_workload_t *wl, const char *name)
{
    return node_nth_ps(wl, name, 0);
}

/* GEMM nodes take the kernel model's time for their shapes, at the sustained clock; with
 * precision fp8 only Transformer Engine's linear layers change: their GEMMs in FP8 plus the
 * cast kernels; the attention core and the output layer stay BF16. */
START_TEST(gemm_nodes_use_the_kernel_model)
{
    const weft_hw_gpu_t *g = h100();
    weft_gen_config_t c = tiny();
    c.hidden = 4096;
    c.heads = c.kv_heads = 32;
    c.ffn = 16384;
    c.vocab = 32768;
    c.seq = 2048;
    c.layers = 1;
    c.tp = 2;
    g_autoptr(GError) e = NULL;
    g_autoptr(weft_workload_t) bf = weft_gen_transformer(&c, g, &e);
    ck_assert_ptr_nonnull(bf);
    c.fp8 = TRUE;
    g_autoptr(weft_workload_t) f8 = weft_gen_transformer(&c, g, &e);
    ck_assert_ptr_nonnull(f8);
    double clk = WEFT_GEN_SUSTAINED_CLOCK;
    /* QKV forward: [2048, 4096] x [4096, 3 x 4096 / 2]. */
    weft_kernel_gemm_t qkv = {1, 2048, 6144, 4096, WEFT_KERNEL_BF16};
    ck_assert_int_eq(node_ps(bf, "attn_qkv.fwd"), llround(weft_kernel_gemm_s(g, &qkv, clk) * 1e12));
    /* In FP8: the FP8 GEMM, then the input's cast-transpose (4 B x 2048 x 4096) and the
     * weight's (4 B x 4096 x 6144, once per step: 1 micro-batch here). */
    qkv.dtype = WEFT_KERNEL_FP8;
    double cast = 4.0 * 2048 * 4096 + 4.0 * 4096 * 6144;
    ck_assert_int_eq(node_ps(f8, "attn_qkv.fwd"),
                     llround((weft_kernel_gemm_s(g, &qkv, clk) + cast / g->hbm_stream_Bps) * 1e12));
    ck_assert(node_ps(f8, "attn_qkv.fwd") < node_ps(bf, "attn_qkv.fwd"));
    /* Backward MLP: dgrad and wgrad of FC2 (8192 -> 4096) and FC1 (4096 -> 8192) in FP8, with
     * the output-gradient casts (4 B x 2048 x 4096, 4 B x 2048 x 8192). */
    weft_kernel_gemm_t g1 = {1, 2048, 8192, 4096, WEFT_KERNEL_FP8},
                       g2 = {1, 8192, 4096, 2048, WEFT_KERNEL_FP8};
    weft_kernel_gemm_t g3 = {1, 2048, 4096, 8192, WEFT_KERNEL_FP8},
                       g4 = {1, 4096, 8192, 2048, WEFT_KERNEL_FP8};
    double mlp_s = weft_kernel_gemm_s(g, &g1, clk) + weft_kernel_gemm_s(g, &g2, clk) +
                   weft_kernel_gemm_s(g, &g3, clk) + weft_kernel_gemm_s(g, &g4, clk) +
                   4.0 * 2048 * (4096 + 8192) / g->hbm_stream_Bps;
    ck_assert(llabs(node_ps(f8, "mlp.bwd") - llround(mlp_s * 1e12)) <= 1);
    /* BF16 everywhere else. */
    ck_assert_int_eq(node_ps(f8, "attn_core.fwd"), node_ps(bf, "attn_core.fwd"));
    ck_assert_int_eq(node_ps(f8, "attn_core.bwd"), node_ps(bf, "attn_core.bwd"));
    ck_assert_int_eq(node_ps(f8, "output.fwd"), node_ps(bf, "output.fwd"));
    ck_assert_int_eq(node_ps(f8, "optimizer"), node_ps(bf, "optimizer"));
    /* The fused core: one causal flash-attention kernel of 16 heads x 128 over 2048 tokens. */
    weft_kernel_attn_t at = {1, 16, 16, 128, 2048, 2048, TRUE, FALSE};
    ck_assert_int_eq(node_ps(bf, "attn_core.fwd"), llround(weft_kernel_attn_s(g, &at, clk) * 1e12));
    /* An A100 has no FP8: refused, not a step of zero-length GEMMs. */
    g_autoptr(GError) e8 = NULL;
    ck_assert_ptr_null(weft_gen_transformer(&c, weft_hw_gpu("a100", NULL), &e8));
    ck_assert(g_error_matches(e8, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE));
}
END_TEST

/* Context parallelism: the first chunk of the attention core is the rank's own causal block of
 * S / CP tokens, the later one its queries against half a block, unmasked (the load-balanced
 * ring): together the causal half of the FLOPs. */
START_TEST(cp_chunks_are_the_load_balanced_ring)
{
    const weft_hw_gpu_t *g = h100();
    weft_gen_config_t c = tiny();
    c.hidden = 2048;
    c.heads = c.kv_heads = 16;
    c.ffn = 8192;
    c.seq = 4096;
    c.layers = 1;
    c.cp = 2;
    g_autoptr(GError) e = NULL;
    g_autoptr(weft_workload_t) wl = weft_gen_transformer(&c, g, &e);
    ck_assert_ptr_nonnull(wl);
    double clk = WEFT_GEN_SUSTAINED_CLOCK;
    weft_kernel_attn_t own = {1, 16, 16, 128, 2048, 2048, TRUE, FALSE};
    weft_kernel_attn_t half = {1, 16, 16, 128, 2048, 1024, FALSE, FALSE};
    ck_assert_int_eq(node_nth_ps(wl, "attn_core.fwd", 0),
                     llround(weft_kernel_attn_s(g, &own, clk) * 1e12));
    ck_assert_int_eq(node_nth_ps(wl, "attn_core.fwd", 1),
                     llround(weft_kernel_attn_s(g, &half, clk) * 1e12));
    ck_assert_int_eq(node_nth_ps(wl, "attn_core.fwd", 2), -1);
    /* FLOPs: 2048^2 / 2 + 2048 x 1024 = the causal half of 2048 x 4096. */
    ck_assert(fabs(weft_kernel_attn_flops(&own) + weft_kernel_attn_flops(&half) -
                   4.0 * 16 * 128 * 2048 * 4096 / 2) < 1);
}
END_TEST

START_TEST(memory_estimate)
{
    weft_gen_config_t c = tiny();
    c.tp = 2;
    weft_gen_memory_t m;
    weft_gen_memory(&c, &m);
    /* Local parameters (2 x 49280 + 2 x 128 x 64) / 2 = 57472: BF16 weights 114944 bytes,
     * FP32 gradients 229888, master + Adam m, v 689664. */
    ck_assert(fabs(m.weights - 114944) < 1e-6);
    ck_assert(fabs(m.grads - 229888) < 1e-6);
    ck_assert(fabs(m.optimizer - 689664) < 1e-6);
    /* Activations (Korthikanti et al., without the attention scores flash attention does not
     * store), no SP: s b h (10 + 24 / t) = 32 x 64 x 22 = 45056 per layer, 2 layers, 1
     * micro-batch in flight: 90112. */
    ck_assert(fabs(m.activations - 90112) < 1e-6);
    ck_assert(fabs(m.total - (114944 + 229888 + 689664 + 90112)) < 1e-6);
    /* Full recomputation keeps only each layer's input: 2 s b h = 4096 per layer: 8192. */
    c.recompute = WEFT_GEN_RECOMPUTE_FULL;
    weft_gen_memory(&c, &m);
    ck_assert(fabs(m.activations - 8192) < 1e-6);
    c.recompute = WEFT_GEN_RECOMPUTE_NONE;
    /* The distributed optimizer shards the optimizer states over DP. */
    c.dp = 4;
    c.global_batch = 4;
    c.dist_opt = TRUE;
    weft_gen_memory(&c, &m);
    ck_assert(fabs(m.optimizer - 689664.0 / 4) < 1e-6);
    /* GPT-3 175B on one GPU does not fit 80 GB. */
    ck_assert(weft_gen_preset("gpt3-175b", &c, NULL));
    weft_gen_memory(&c, &m);
    ck_assert(m.total > h100()->hbm_bytes);
}
END_TEST

/* memory.oom: a step above the GPU's HBM warns (warn, the default) or fails (error). */
START_TEST(memory_oom_policy)
{
    weft_gen_spec_t spec;
    weft_gen_spec_init(&spec);
    spec.model = "gpt3-13b";
    ck_assert(weft_gen_preset(spec.model, &spec.c, NULL));
    /* 13e9 parameters on one H100: 2 (BF16) + 4 (gradients) + 12 (Adam) bytes each
     * already exceed 80 GB */
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_workload_t) wl = weft_gen_spec_generate(&spec, 0, "t", &err);
    ck_assert_msg(wl != NULL, "%s", err ? err->message : "");
    ck_assert_ptr_nonnull(wl->warnings);
    ck_assert_uint_eq(wl->warnings->len, 1);
    const char *w = g_ptr_array_index(wl->warnings, 0);
    ck_assert_msg(strstr(w, "do not fit the 75 GiB of H100-SXM's HBM (memory.oom = warn)"), "%s",
                  w);
    weft_gen_spec_init(&spec);
    spec.model = "gpt3-13b";
    ck_assert(weft_gen_preset(spec.model, &spec.c, NULL));
    spec.oom = WEFT_GEN_OOM_ERROR;
    ck_assert_ptr_null(weft_gen_spec_generate(&spec, 0, "t", &err));
    ck_assert(g_error_matches(err, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE));
    ck_assert_msg(strstr(err->message, "(memory.oom = error)"), "%s", err->message);
    /* GPT-3 1.3B fits: no warning */
    g_clear_error(&err);
    weft_gen_spec_init(&spec);
    spec.model = "gpt3-1.3b";
    ck_assert(weft_gen_preset(spec.model, &spec.c, NULL));
    g_autoptr(weft_workload_t) small = weft_gen_spec_generate(&spec, 0, "t", &err);
    ck_assert_msg(small != NULL, "%s", err ? err->message : "");
    ck_assert(small->warnings == NULL || small->warnings->len == 0);
}
END_TEST

/* weft_gen_load_keyfile: an unset dp fills the GPUs it is given; unset, 0 GPUs, dp is 1. */
START_TEST(keyfile_derives_dp_from_the_gpus)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_key_file_set_string(kf, "transformer", "model", "gpt3-1.3b");
    g_key_file_set_string(kf, "transformer", "tp", "2");
    g_key_file_set_string(kf, "transformer", "pp", "2");
    g_autoptr(GError) err = NULL;
    /* 16 GPUs / (tp 2 x pp 2 x cp 1) = dp 4: 16 ranks */
    g_autoptr(weft_workload_t) a = weft_gen_load_keyfile(kf, "k", 16, &err);
    ck_assert_msg(a != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(a->n_ranks, 16);
    ck_assert_str_eq(a->source, "k");
    /* no GPU count: dp 1, 4 ranks */
    g_autoptr(weft_workload_t) b = weft_gen_load_keyfile(kf, "k", 0, &err);
    ck_assert_msg(b != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(b->n_ranks, 4);
    /* 6 GPUs are not a multiple of 4 */
    ck_assert_ptr_null(weft_gen_load_keyfile(kf, "k", 6, &err));
    ck_assert(g_error_matches(err, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE));
    g_clear_error(&err);
    /* dp given wins over the GPU count: 2 replicas, 8 ranks */
    g_key_file_set_string(kf, "transformer", "dp", "2");
    g_autoptr(weft_workload_t) c = weft_gen_load_keyfile(kf, "k", 16, &err);
    ck_assert_msg(c != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(c->n_ranks, 8);
    /* the spec parser's errors: an unknown key, a bad integer */
    g_key_file_set_string(kf, "transformer", "tensor", "2");
    ck_assert_ptr_null(weft_gen_load_keyfile(kf, "k", 16, &err));
    ck_assert(g_error_matches(err, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE));
    g_clear_error(&err);
    g_key_file_remove_key(kf, "transformer", "tensor", NULL);
    g_key_file_set_string(kf, "transformer", "tp", "two");
    ck_assert_ptr_null(weft_gen_load_keyfile(kf, "k", 16, &err));
    ck_assert(g_error_matches(err, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE));
}
END_TEST

static Suite *
gen_suite(void)
{
    Suite *s = suite_create("gen");
    TCase *tc = tcase_create("gen");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, tensor_parallel_all_reduces);
    tcase_add_test(tc, sequence_parallel_gathers_and_scatters);
    tcase_add_test(tc, pipeline_1f1b_sends_in_order);
    tcase_add_test(tc, interleaved_pipeline_sends_per_virtual_stage);
    tcase_add_test(tc, data_parallel_all_reduce_or_distributed_optimizer);
    tcase_add_test(tc, expert_parallel_all_to_alls);
    tcase_add_test(tc, context_parallel_ring_exchanges);
    tcase_add_test(tc, presets_generate_and_check);
    tcase_add_test(tc, impossible_configurations_are_errors);
    tcase_add_test(tc, gemm_nodes_use_the_kernel_model);
    tcase_add_test(tc, cp_chunks_are_the_load_balanced_ring);
    tcase_add_test(tc, backward_accumulates_weight_gradients);
    tcase_add_test(tc, memory_estimate);
    tcase_add_test(tc, keyfile_derives_dp_from_the_gpus);
    tcase_add_test(tc, memory_oom_policy);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(gen_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
