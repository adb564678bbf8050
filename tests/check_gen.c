/* SPDX-License-Identifier: MIT */
/*
 * Tests of the transformer step generator (workload/gen.h) and the Chakra
 * writer: for small configurations the collectives (by operation and
 * communicator size), sends and receives per rank are the ones the parallel
 * configuration implies, counted by hand in comments; the pipeline order is
 * 1F1B; generated workloads pass weft_workload_check() and survive a round trip
 * through Chakra ET files; impossible configurations are errors; the GEMM nodes
 * take the kernel model's time for their shapes and the memory estimate follows
 * its formulas.
 */
#include "hw/kernel.h"
#include "workload/gen.h"

#include <check.h>

#include "core/sim.h"
#include "net/net.h"
#include "replay/replay.h"
#include "topo/topo.h"
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
        /* Compute: forward embedding + 7 per layer (QKV, core, projection, elementwise,
         * FC1, FC2, elementwise) x 2 + output + cross-entropy = 17; backward cross-entropy,
         * the output layer's data and weight gradients (3), per layer 10 (elementwise, FC2,
         * FC1 data and weight gradients, elementwise, projection, core, QKV data and weight
         * gradients, the main_grad accumulation) x 2, embedding = 24; the optimizer 1: 42. */
        ck_assert_uint_eq(n.comp, 42);
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
     * dropout through HBM): 42 + 2 layers x 2 passes = 46 compute nodes, the same
     * collectives. The softmax's bytes: 13 per score, T S a / t = 32 x 32 x 4 / 2 = 2048
     * scores: 26624 bytes forward. */
    c.unfused_attention = TRUE;
    g_autoptr(weft_workload_t) unf = gen_checked(&c);
    n = count(unf, 0);
    ck_assert_uint_eq(n.comp, 46);
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
     * Backward: output layer AG (its input gathered again, Megatron's column-parallel
     * backward) and RS; per layer AG (FC2's output gradient), AG (FC1's input again), RS
     * (MLP), the same three for attention; embedding AG.
     * AG: 2 x 2 + 1 + 1 + 4 x 2 + 1 = 15; RS: 1 + 2 x 2 + 1 + 2 x 2 = 10; AR: 3. */
    ck_assert_uint_eq(n.coll[WEFT_COLL_ALL_GATHER], 15);
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

/* The nodes named @name on rank @r. */
static guint
count_named(const weft_workload_t *wl, guint r, const char *name)
{
    guint n = 0;
    const weft_rank_trace_t *t = &wl->ranks[r];
    for (guint i = 0; i < t->n_nodes; i++) {
        n += strcmp(t->name[i], name) == 0;
    }
    return n;
}

/* Uneven stages as Megatron-LM splits them (transformer_layer.py get_transformer_layer_offset):
 * 70 layers do not divide over 12 stages; with the embedding and the loss counted as layers,
 * 72 / 12 = 6 per stage, the first and last stage building one transformer layer fewer. */
START_TEST(uneven_pipeline_stages)
{
    weft_gen_config_t c = tiny();
    c.layers = 70;
    c.pp = 12;
    g_autoptr(GError) e = NULL;
    ck_assert(!weft_gen_validate(&c, 0, &e)); /* 70 % 12 != 0 */
    ck_assert_int_eq(e->code, WEFT_WORKLOAD_ERROR_VALUE);
    g_clear_error(&e);
    c.account_embedding = c.account_loss = TRUE;
    ck_assert_msg(weft_gen_validate(&c, 0, &e), "%s", e != NULL ? e->message : "");
    guint sum = 0;
    for (guint v = 0; v < 12; v++) {
        guint want = v == 0 || v == 11 ? 5 : 6;
        ck_assert_uint_eq(weft_gen_chunk_layers(&c, v), want);
        sum += want;
    }
    ck_assert_uint_eq(sum, 70);
    /* One micro-batch: stage 0 runs 5 layer forwards, stage 5 six, stage 11 five. */
    {
        g_autoptr(weft_workload_t) wl = gen_checked(&c);
        ck_assert_uint_eq(count_named(wl, 0, "attn_qkv.fwd"), 5);
        ck_assert_uint_eq(count_named(wl, 5, "attn_qkv.fwd"), 6);
        ck_assert_uint_eq(count_named(wl, 11, "attn_qkv.fwd"), 5);
        /* the embedding on stage 0, the output layer on stage 11 */
        ck_assert_uint_eq(count_named(wl, 0, "embedding.fwd"), 1);
        ck_assert_uint_eq(count_named(wl, 11, "output.fwd"), 1);
    }
    /* Memory of stage 0: 5 layers' activations, s b h (10 + 24 / t) = 32 x 64 x 34 bytes
     * each and the fused attention's log-sum-exp, 4 a s b = 4 x 4 x 32 = 512 (memory.h),
     * pp 12 > 1 micro-batch: 1 in flight: 5 x (69632 + 512) = 350720 bytes. */
    weft_gen_memory_t mem;
    weft_gen_memory(&c, &mem);
    ck_assert_double_eq_tol(mem.activations, 350720.0, 1e-6);
    /* Only the loss counted: 71 layers, not a multiple of 12. */
    c.account_embedding = FALSE;
    ck_assert(!weft_gen_validate(&c, 0, NULL));
    /* --decoder-first-pipeline-num-layers 4: the other 11 stages share 66 layers, 6 each. */
    c.account_loss = FALSE;
    c.first_stage_layers = 4;
    ck_assert_msg(weft_gen_validate(&c, 0, &e), "%s", e != NULL ? e->message : "");
    ck_assert_uint_eq(weft_gen_chunk_layers(&c, 0), 4);
    for (guint v = 1; v < 12; v++) {
        ck_assert_uint_eq(weft_gen_chunk_layers(&c, v), 6);
    }
    /* first 5 + last 5: 60 layers over 10 middle stages. */
    c.last_stage_layers = 5;
    c.first_stage_layers = 5;
    ck_assert(weft_gen_validate(&c, 0, NULL));
    ck_assert_uint_eq(weft_gen_chunk_layers(&c, 0), 5);
    ck_assert_uint_eq(weft_gen_chunk_layers(&c, 6), 6);
    ck_assert_uint_eq(weft_gen_chunk_layers(&c, 11), 5);
    /* first 10: 60 layers do not divide over 11 stages; with account-loss: two splits. */
    c.last_stage_layers = 0;
    c.first_stage_layers = 10;
    ck_assert(!weft_gen_validate(&c, 0, NULL));
    c.first_stage_layers = 4;
    c.account_loss = TRUE;
    ck_assert(!weft_gen_validate(&c, 0, NULL));
    /* Interleaved, 6 layers on pp 2 x vpp 2 with both counted: 8 / 4 = 2 per virtual stage;
     * virtual stage 0 (rank 0's first chunk) and 3 (rank 1's last) hold 1. */
    c = tiny();
    c.layers = 6;
    c.pp = 2;
    c.vpp = 2;
    c.global_batch = 2;
    c.account_embedding = c.account_loss = TRUE;
    ck_assert(weft_gen_validate(&c, 0, NULL));
    ck_assert_uint_eq(weft_gen_chunk_layers(&c, 0), 1);
    ck_assert_uint_eq(weft_gen_chunk_layers(&c, 1), 2);
    ck_assert_uint_eq(weft_gen_chunk_layers(&c, 2), 2);
    ck_assert_uint_eq(weft_gen_chunk_layers(&c, 3), 1);
    g_autoptr(weft_workload_t) il = gen_checked(&c);
    /* rank 0: chunks v 0 (1 layer) and v 2 (2 layers) x 2 micro-batches = 6 forwards */
    ck_assert_uint_eq(count_named(il, 0, "attn_qkv.fwd"), 6);
    ck_assert_uint_eq(count_named(il, 1, "attn_qkv.fwd"), 6);
}
END_TEST

/* ---- tensor-parallel overlap: the node graph and replays derived by hand ---------- */

/* The index of the @k-th node named @name on rank 0 of @wl (asserted to exist). */
static guint
node_named(const weft_workload_t *wl, const char *name, guint k)
{
    const weft_rank_trace_t *t = &wl->ranks[0];
    for (guint i = 0; i < t->n_nodes; i++) {
        if (strcmp(t->name[i], name) == 0 && k-- == 0) {
            return i;
        }
    }
    ck_abort_msg("no node %s", name);
    return 0;
}

/* TRUE if node @a is a direct predecessor of node @b on rank 0. */
static gboolean
is_dep(const weft_workload_t *wl, guint a, guint b)
{
    const weft_rank_trace_t *t = &wl->ranks[0];
    for (guint k = t->dep_off[b]; k < t->dep_off[b + 1]; k++) {
        if (t->deps[k] == a) {
            return TRUE;
        }
    }
    return FALSE;
}

/* Megatron-LM's column-parallel backward (layers.py LinearWithGradAccumulationAndAsync-
 * Communication): the input gradient's all-reduce runs beside the weight-gradient GEMM;
 * with SP the input is gathered again beside the data-gradient GEMM and the reduce-scatter
 * runs beside the weight-gradient GEMM. */
START_TEST(column_parallel_backward_overlaps)
{
    weft_gen_config_t c = tiny();
    c.tp = 2;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    /* layer 1's backward comes first (reverse order); its QKV: */
    guint dq = node_named(wl, "attn_qkv_dgrad.bwd", 0),
          wq = node_named(wl, "attn_qkv_wgrad.bwd", 0);
    guint ar = node_named(wl, "tp_allreduce_attn_grad", 0);
    guint acc = node_named(wl, "wgrad_accumulate.bwd", 0);
    ck_assert(is_dep(wl, dq, ar) && is_dep(wl, dq, wq));
    ck_assert(!is_dep(wl, ar, wq)); /* the weight gradient does not wait for the all-reduce */
    ck_assert(is_dep(wl, ar, acc) && is_dep(wl, wq, acc));
    guint d1 = node_named(wl, "mlp_fc1_dgrad.bwd", 0), w1 = node_named(wl, "mlp_fc1_wgrad.bwd", 0);
    guint ar1 = node_named(wl, "tp_allreduce_mlp_grad", 0);
    guint next = node_named(wl, "attn_elementwise.bwd", 0);
    ck_assert(is_dep(wl, d1, ar1) && is_dep(wl, d1, w1) && !is_dep(wl, ar1, w1));
    ck_assert(is_dep(wl, ar1, next) && is_dep(wl, w1, next));
    /* dgrad + wgrad FLOPs are the backward's 2 x 2 T h (h + 2 g d) / t = 2 x 2 x 32 x 64 x 192
     * / 2 = 786432, half each. */
    ck_assert_double_eq(wl->ranks[0].num_ops[dq], 393216.0);
    ck_assert_double_eq(wl->ranks[0].num_ops[wq], 393216.0);

    c.sp = TRUE;
    g_autoptr(weft_workload_t) sp = gen_checked(&c);
    guint core = node_named(sp, "attn_core.bwd", 0);
    guint ag = node_named(sp, "tp_allgather_attn_input_grad", 0);
    dq = node_named(sp, "attn_qkv_dgrad.bwd", 0);
    wq = node_named(sp, "attn_qkv_wgrad.bwd", 0);
    guint rs = node_named(sp, "tp_reducescatter_attn_grad", 0);
    acc = node_named(sp, "wgrad_accumulate.bwd", 0);
    ck_assert(is_dep(sp, core, ag) && is_dep(sp, core, dq) && !is_dep(sp, ag, dq));
    ck_assert(is_dep(sp, ag, wq) && is_dep(sp, dq, wq));
    ck_assert(is_dep(sp, dq, rs) && !is_dep(sp, rs, wq));
    ck_assert(is_dep(sp, rs, acc) && is_dep(sp, wq, acc));
    /* the gathered input is the whole activation: each rank's share 32 x 64 x 2 / 2 = 2048 */
    ck_assert_uint_eq(sp->ranks[0].comm_bytes[ag], 2048);
}
END_TEST

/* 2 GPUs on one NVLink of @Bps per direction and 500 ns. */
static weft_topo_t *
pair(double Bps)
{
    weft_topo_t *t = weft_topo_new("pair");
    g_autoptr(GError) e = NULL;
    ck_assert_int_eq(weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "gpu0", -1, -1, &e), 0);
    ck_assert_int_eq(weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "gpu1", -1, -1, &e), 1);
    ck_assert_int_ge(
        weft_topo_add_link(t, 0, 1, WEFT_LINK_NVLINK, Bps, 500 * WEFT_PS_PER_NS, 1, &e), 0);
    ck_assert_msg(weft_topo_finalize(t, &e), "%s", e != NULL ? e->message : "");
    return t;
}

/* The step time of @wl on @topo (analytical network, the plain ring collectives). */
static weft_time_t
replay_step(weft_topo_t *topo, const weft_workload_t *wl)
{
    g_autoptr(GError) e = NULL;
    ck_assert_msg(weft_workload_check(wl, weft_topo_n_gpus(topo), &e), "%s",
                  e != NULL ? e->message : "");
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    g_autoptr(weft_replay_result_t) res = weft_replay_run(sim, net, wl, NULL, &e);
    ck_assert_msg(res != NULL, "%s", e != NULL ? e->message : "");
    return res->step_ps;
}

/* Sum of the compute nodes' durations on rank 0 (all on the one compute stream). */
static weft_time_t
compute_ps(const weft_workload_t *wl)
{
    weft_time_t sum = 0;
    const weft_rank_trace_t *t = &wl->ranks[0];
    for (guint i = 0; i < t->n_nodes; i++) {
        sum += t->type[i] == WEFT_NODE_COMP ? t->duration_ps[i] : 0;
    }
    return sum;
}

/* The duration of the k-th node named @name on rank 0. */
static weft_time_t
dur(const weft_workload_t *wl, const char *name, guint k)
{
    return wl->ranks[0].duration_ps[node_named(wl, name, k)];
}

/* A lone collective of @bytes (comm_size) on @topo's 2 GPUs. */
static weft_time_t
lone(weft_topo_t *topo, weft_coll_op_t op, guint64 bytes)
{
    g_autoptr(weft_workload_t) wl = weft_workload_collective(op, bytes, 1, 2, NULL);
    ck_assert_ptr_nonnull(wl);
    return replay_step(topo, wl);
}

/*
 * One layer, tp 2, no SP, on a slow link (1e8 B/s: 10,000 ps per byte; 500 ns): the
 * ring all-reduce of B bytes on 2 ranks is a reduce-scatter step and an all-gather step of
 * B / 2 bytes each, A(B) = 2 (500 ns + B / 2 x 10 ns): A(4096) = 41.96 us, A(128) = 2.28 us.
 * The compute stream runs every compute node in turn (C); exposed are the forward's
 * all-reduces (embedding, attention, MLP: 3 A(4096); cross-entropy: 3 A(128)) and, of each
 * column-parallel backward (output layer, FC1, QKV), what its all-reduce takes beyond the
 * weight-gradient GEMM it runs beside: max(0, A(4096) - wgrad).
 */
START_TEST(overlapped_backward_replays_as_derived)
{
    g_autoptr(weft_topo_t) topo = pair(1e8);
    weft_time_t a4096 = 2 * (500 * WEFT_PS_PER_NS + 2048 * 10000);
    weft_time_t a128 = 2 * (500 * WEFT_PS_PER_NS + 64 * 10000);
    ck_assert_int_eq(lone(topo, WEFT_COLL_ALL_REDUCE, 4096), a4096); /* 41.96 us */
    ck_assert_int_eq(lone(topo, WEFT_COLL_ALL_REDUCE, 128), a128);
    weft_gen_config_t c = tiny();
    c.layers = 1;
    c.tp = 2;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    weft_time_t want = compute_ps(wl) + 3 * a4096 + 3 * a128;
    /* the weight gradients dW[in,out] = X^T dY over T = 32 tokens: output layer 64 -> 128 / 2,
     * FC1 64 -> 256 / 2, QKV 64 -> (64 + 2 x 4 x 16) / 2; the kernel model's times (about
     * 5.8 us each on an H100: its fixed 5.5 us and one short tile) */
    const char *wgrads[] = {"output_wgrad.bwd", "mlp_fc1_wgrad.bwd", "attn_qkv_wgrad.bwd"};
    const guint64 shape[][2] = {{64, 64}, {64, 128}, {64, 96}};
    for (guint i = 0; i < G_N_ELEMENTS(wgrads); i++) {
        weft_time_t w = dur(wl, wgrads[i], 0);
        weft_kernel_gemm_t wg = {1, shape[i][0], shape[i][1], 32, WEFT_KERNEL_BF16};
        ck_assert_int_eq(w,
                         llround(weft_kernel_gemm_s(h100(), &wg, WEFT_GEN_SUSTAINED_CLOCK) * 1e12));
        ck_assert_int_lt(w, a4096);
        want += a4096 - w;
    }
    ck_assert_int_eq(replay_step(topo, wl), want);
}
END_TEST

START_TEST(pipeline_tensors_are_scattered_and_gathered_without_sp)
{
    /* Megatron-LM's scatter/gather of pipeline tensors (p2p_communication.py, on unless
     * --no-scatter-gather-tensors-in-pipeline): tp 2, pp 2, no SP. The activation is
     * T h e = 32 x 64 x 2 = 4096 bytes; each TP rank sends 4096 / 2 = 2048 of it, and the
     * receiving rank all-gathers the 4096 in its TP group (each rank's share 2048), on its
     * stream right after the receive, before the backward that reads it. */
    weft_gen_config_t c = tiny();
    c.tp = 2;
    c.pp = 2;
    c.pp_scatter_gather = TRUE;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    const weft_rank_trace_t *t = &wl->ranks[0];
    guint s0 = node_named(wl, "pp_send_activation", 0);
    ck_assert_uint_eq(t->comm_bytes[s0], 2048);
    guint r0 = node_named(wl, "pp_recv_gradient", 0);
    guint g0 = node_named(wl, "pp_gather_gradient", 0);
    ck_assert_uint_eq(t->comm_bytes[r0], 2048);
    ck_assert_uint_eq(t->comm_bytes[g0], 2048);
    ck_assert_int_eq(t->coll_op[g0], WEFT_COLL_ALL_GATHER);
    ck_assert(is_dep(wl, r0, g0));
    const weft_comm_t *cm = g_ptr_array_index(wl->comms, t->comm[g0]);
    ck_assert_uint_eq(cm->n_ranks, 2); /* the TP group */
    /* off: the whole activation, no gather */
    c.pp_scatter_gather = FALSE;
    g_autoptr(weft_workload_t) off = gen_checked(&c);
    ck_assert_uint_eq(off->ranks[0].comm_bytes[node_named(off, "pp_send_activation", 0)], 4096);
    for (guint i = 0; i < off->ranks[0].n_nodes; i++) {
        ck_assert(strcmp(off->ranks[0].name[i], "pp_gather_gradient") != 0);
    }
    /* with SP the activation is already the rank's 1/tp (2048 bytes): nothing to gather */
    c.pp_scatter_gather = TRUE;
    c.sp = TRUE;
    g_autoptr(weft_workload_t) sp = gen_checked(&c);
    ck_assert_uint_eq(sp->ranks[0].comm_bytes[node_named(sp, "pp_send_activation", 0)], 2048);
    for (guint i = 0; i < sp->ranks[0].n_nodes; i++) {
        ck_assert(strcmp(sp->ranks[0].name[i], "pp_gather_gradient") != 0);
    }
}
END_TEST

/*
 * tp_overlap (NeMo's tp_comm_overlap) on one layer, tp 2, SP, on a fast link (5e10 B/s:
 * 20 ps per byte; 500 ns), where every collective chunk is shorter than the GEMM chunk it
 * overlaps (a GEMM of the tiny model, or a chunk of one, takes about 5.8 us in the kernel
 * model, a collective about 0.5 us): a
 * pipelined all-gather + GEMM exposes its first chunk's all-gather, a GEMM + reduce-scatter
 * its last chunk's reduce-scatter, a column-parallel backward nothing.
 * Ring collectives on 2 ranks, one step each: all-gather of a share s: 500 ns + 20 s ps;
 * reduce-scatter of B: 500 ns + 20 B / 2 ps; all-reduce of B: twice that.
 * The activation is 32 x 64 x 2 = 4096 bytes. Exposed:
 *   forward: embedding RS(4096); QKV's first AG chunk (4096 / 2 gathered, share 1024);
 *   the projection's last RS chunk (4 splits: RS(1024)); FC1's first AG chunk (share 1024);
 *   FC2's last RS chunk (2 chunks, ring exchange: RS(2048)); the output layer's AG (share
 *   2048); cross-entropy 3 AR(128);
 *   backward: FC2's and the projection's first AG chunks of the output gradient (share
 *   1024 each); the embedding gradient's AG (share 2048).
 */
START_TEST(tp_overlap_replays_as_derived)
{
    g_autoptr(weft_topo_t) topo = pair(50e9);
    weft_time_t lat = 500 * WEFT_PS_PER_NS;
#define AG(s) (lat + 20 * (weft_time_t)(s))
#define RS(b) (lat + 10 * (weft_time_t)(b))
    ck_assert_int_eq(lone(topo, WEFT_COLL_ALL_GATHER, 1024), AG(1024));
    ck_assert_int_eq(lone(topo, WEFT_COLL_REDUCE_SCATTER, 1024), RS(1024));
    ck_assert_int_eq(lone(topo, WEFT_COLL_ALL_REDUCE, 128), 2 * RS(128));
    weft_gen_config_t c = tiny();
    c.layers = 1;
    c.tp = 2;
    c.sp = TRUE;
    c.tp_overlap = TRUE;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    /* the pipelined structure: 2 AG chunks before QKV's 2 GEMM chunks, chunk i after AG i */
    guint ag0 = node_named(wl, "tp_allgather_attn", 0),
          ag1 = node_named(wl, "tp_allgather_attn", 1);
    guint q0 = node_named(wl, "attn_qkv.fwd", 0), q1 = node_named(wl, "attn_qkv.fwd", 1);
    ck_assert(is_dep(wl, ag0, q0) && is_dep(wl, ag1, q1) && is_dep(wl, q0, q1));
    ck_assert(!is_dep(wl, ag1, q0));
    ck_assert_uint_eq(wl->ranks[0].comm_bytes[ag0], 1024);
    /* 4 projection chunks, each followed by its RS chunk of 1024 bytes; the elementwise
     * node after waits for all four */
    guint el = node_named(wl, "attn_elementwise.fwd", 0);
    for (guint i = 0; i < 4; i++) {
        guint p = node_named(wl, "attn_proj.fwd", i),
              r = node_named(wl, "tp_reducescatter_attn", i);
        ck_assert(is_dep(wl, p, r) && is_dep(wl, r, el));
        ck_assert_uint_eq(wl->ranks[0].comm_bytes[r], 1024);
    }
    /* each chunk is a GEMM over its share of the T = 32 tokens with the whole weight: QKV's
     * 2 chunks [16, 64] x [64, 96], the projection's 4 [8, 32] x [32, 64] */
    double clk = WEFT_GEN_SUSTAINED_CLOCK;
    weft_kernel_gemm_t qc = {1, 16, 96, 64, WEFT_KERNEL_BF16},
                       pc = {1, 8, 64, 32, WEFT_KERNEL_BF16};
    ck_assert_int_eq(dur(wl, "attn_qkv.fwd", 1),
                     llround(weft_kernel_gemm_s(h100(), &qc, clk) * 1e12));
    ck_assert_int_eq(dur(wl, "attn_proj.fwd", 3),
                     llround(weft_kernel_gemm_s(h100(), &pc, clk) * 1e12));
    /* the data gradient of the projection pipelined with the gather of its output gradient:
     * 2 chunks dX[16, 32] = dY[16, 64] W^T; its weight gradient [32, 64] over all 32 tokens */
    weft_kernel_gemm_t dc = {1, 16, 32, 64, WEFT_KERNEL_BF16},
                       wc = {1, 32, 64, 32, WEFT_KERNEL_BF16};
    ck_assert_int_eq(dur(wl, "attn_proj_dgrad.bwd", 0),
                     llround(weft_kernel_gemm_s(h100(), &dc, clk) * 1e12));
    ck_assert_int_eq(dur(wl, "attn_proj_wgrad.bwd", 0),
                     llround(weft_kernel_gemm_s(h100(), &wc, clk) * 1e12));
    weft_time_t exposed = RS(4096) + AG(1024) + RS(1024) + AG(1024) + RS(2048) + AG(2048) +
                          3 * 2 * RS(128) + AG(1024) + AG(1024) + AG(2048);
    ck_assert_int_eq(replay_step(topo, wl), compute_ps(wl) + exposed);
    /* without SP there is nothing to pipeline: an error naming the option */
    c.sp = FALSE;
    g_autoptr(GError) e = NULL;
    ck_assert(!weft_gen_validate(&c, 0, &e));
    ck_assert(strstr(e->message, "tp-overlap") != NULL);
#undef AG
#undef RS
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

/* Steps too large to generate are refused before anything is built, and products of sizes
 * are taken in 64 bits (found with tests/fuzz/fuzz_gen_spec): micro-batch 65536 x dp 65536
 * wrapped to 0, and the remainder global-batch % 0 stopped weft with SIGFPE. */
START_TEST(oversized_steps_are_errors)
{
    g_autoptr(GError) e = NULL;
    weft_gen_config_t c = tiny();
    c.dp = 65536;
    c.micro_batch = 65536;
    c.global_batch = 1; /* not a multiple of 2^32 (it was: of 0) */
    ck_assert(!weft_gen_validate(&c, 0, &e));
    ck_assert_msg(strstr(e->message, "micro-batch 65536 x dp 65536") != NULL, "%s", e->message);
    g_clear_error(&e);
    /* 2^20 + 1 ranks: more than any cluster holds */
    c = tiny();
    c.dp = (1u << 20) + 1;
    c.global_batch = c.dp;
    ck_assert(!weft_gen_validate(&c, 0, &e));
    ck_assert_msg(strstr(e->message, "1048577 ranks are more than any cluster holds") != NULL,
                  "%s", e->message);
    g_clear_error(&e);
    /* layers x micro-batches: 2 x 2^19 = 2^20 is accepted by validation (not generated here),
     * 2 x (2^19 + 1) is not */
    c = tiny();
    c.global_batch = 1u << 19;
    ck_assert_msg(weft_gen_validate(&c, 0, &e), "%s", e ? e->message : "");
    c.global_batch = (1u << 19) + 1;
    ck_assert(!weft_gen_validate(&c, 0, &e));
    ck_assert_msg(strstr(e->message, "layers 2 x 524289 micro-batches") != NULL, "%s",
                  e->message);
    g_clear_error(&e);
    /* an unset global-batch of micro-batch x dp that does not fit in 32 bits */
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_key_file_set_string(kf, "transformer", "model", "gpt3-1.3b");
    g_key_file_set_string(kf, "transformer", "dp", "65536");
    g_key_file_set_string(kf, "transformer", "micro_batch", "65536");
    ck_assert_ptr_null(weft_gen_load_keyfile(kf, "k", 0, &e));
    ck_assert_msg(strstr(e->message, "= 4294967296 does not fit") != NULL, "%s", e->message);
}
END_TEST

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
    /* A dense MLP is two nodes forward (FC1, FC2) and three backward: FC2's gradients in one
     * (row-parallel), FC1's data gradient, then its weight gradient (column-parallel, beside
     * the input gradient's all-reduce). The output-gradient casts go to the data gradients;
     * the weight gradient reads the same cast and pays none. */
    double cast2 = 4.0 * 2048 * 4096, cast1 = 4.0 * 2048 * 8192;
    double fc2_s = weft_kernel_gemm_s(g, &g1, clk) + weft_kernel_gemm_s(g, &g2, clk) +
                   cast2 / g->hbm_stream_Bps;
    double fc1_dgrad_s = weft_kernel_gemm_s(g, &g3, clk) + cast1 / g->hbm_stream_Bps;
    ck_assert_int_eq(node_ps(f8, "mlp_fc2.bwd"), llround(fc2_s * 1e12));
    ck_assert_int_eq(node_ps(f8, "mlp_fc1_dgrad.bwd"), llround(fc1_dgrad_s * 1e12));
    ck_assert_int_eq(node_ps(f8, "mlp_fc1_wgrad.bwd"),
                     llround(weft_kernel_gemm_s(g, &g4, clk) * 1e12));
    /* together the one node the MLP's backward was (each node rounds to a picosecond) */
    ck_assert(llabs(node_ps(f8, "mlp_fc2.bwd") + node_ps(f8, "mlp_fc1_dgrad.bwd") +
                    node_ps(f8, "mlp_fc1_wgrad.bwd") - llround(mlp_s * 1e12)) <= 2);
    /* FC1 forward in FP8: [2048, 4096] x [4096, 8192], the input's cast (4 B x 2048 x 4096)
     * and the weight's (4 B x 4096 x 8192). */
    weft_kernel_gemm_t f1 = {1, 2048, 8192, 4096, WEFT_KERNEL_FP8};
    ck_assert_int_eq(node_ps(f8, "mlp_fc1.fwd"),
                     llround((weft_kernel_gemm_s(g, &f1, clk) +
                              (4.0 * 2048 * 4096 + 4.0 * 4096 * 8192) / g->hbm_stream_Bps) *
                             1e12));
    /* With tp_overlap (SP) the QKV forward runs in tp = 2 chunks of 1024 tokens, each a GEMM
     * [1024, 4096] x [4096, 6144] with its share of the input's cast (4 B x 1024 x 4096); the
     * weight's cast once, in the first chunk. */
    c.sp = TRUE;
    c.tp_overlap = TRUE;
    g_autoptr(weft_workload_t) ov = weft_gen_transformer(&c, g, &e);
    ck_assert_ptr_nonnull(ov);
    weft_kernel_gemm_t q2 = {1, 1024, 6144, 4096, WEFT_KERNEL_FP8};
    double q2_s = weft_kernel_gemm_s(g, &q2, clk) + 4.0 * 1024 * 4096 / g->hbm_stream_Bps;
    ck_assert_int_eq(node_nth_ps(ov, "attn_qkv.fwd", 0),
                     llround((q2_s + 4.0 * 4096 * 6144 / g->hbm_stream_Bps) * 1e12));
    ck_assert_int_eq(node_nth_ps(ov, "attn_qkv.fwd", 1), llround(q2_s * 1e12));
    ck_assert_int_eq(node_nth_ps(ov, "attn_qkv.fwd", 2), -1);
    /* userbuffers' SM margins (gen.c UB_*_SMS, NeMo's GPT-3 175B H100 configuration): the
     * projection's 4 pipelined chunks [512, 2048] x [2048, 4096] run on 132 - 24 = 108 SMs
     * (chunk 1: no weight cast, its input's 4 B x 512 x 2048); FC1's weight gradient beside
     * the bulk reduce-scatter on 132 - 4 = 128 SMs, its data gradient beside the bulk
     * all-gather on 130 */
    weft_kernel_gemm_t pj = {1, 512, 4096, 2048, WEFT_KERNEL_FP8};
    double pj_s = weft_kernel_gemm_on_s(g, &pj, clk, 108) + 4.0 * 512 * 2048 / g->hbm_stream_Bps;
    ck_assert_int_eq(node_nth_ps(ov, "attn_proj.fwd", 1), llround(pj_s * 1e12));
    ck_assert(weft_kernel_gemm_on_s(g, &pj, clk, 108) > weft_kernel_gemm_s(g, &pj, clk));
    ck_assert_int_eq(node_ps(ov, "mlp_fc1_wgrad.bwd"),
                     llround(weft_kernel_gemm_on_s(g, &g4, clk, 128) * 1e12));
    ck_assert_int_eq(node_ps(ov, "mlp_fc1_dgrad.bwd"),
                     llround((weft_kernel_gemm_on_s(g, &g3, clk, 130) +
                              cast1 / g->hbm_stream_Bps) *
                             1e12));
    ck_assert_int_gt(node_ps(ov, "mlp_fc1_wgrad.bwd"), node_ps(f8, "mlp_fc1_wgrad.bwd"));
    /* two half GEMMs take longer than the whole one (the kernel's fixed time twice,
     * whatever the tiles): the price of the overlap */
    ck_assert(node_nth_ps(ov, "attn_qkv.fwd", 0) + node_nth_ps(ov, "attn_qkv.fwd", 1) >
              node_ps(f8, "attn_qkv.fwd"));
    c.sp = FALSE;
    c.tp_overlap = FALSE;
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
     * store, with its log-sum-exp 4 a s b / t = 4 x 4 x 32 / 2 = 256), no SP:
     * s b h (10 + 24 / t) = 32 x 64 x 22 = 45056 + 256 = 45312 per layer, 2 layers, 1
     * micro-batch in flight: 90624. */
    ck_assert(fabs(m.activations - 90624) < 1e-6);
    ck_assert(fabs(m.total - (114944 + 229888 + 689664 + 90624)) < 1e-6);
    /* Full recomputation keeps only each layer's input, 2 s b h = 4096 per layer: 8192, and
     * rebuilds one layer (45312) before its backward: 53504. */
    c.recompute = WEFT_GEN_RECOMPUTE_FULL;
    weft_gen_memory(&c, &m);
    ck_assert(fabs(m.activations - 53504) < 1e-6);
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

/* The generator leaves memory.oom to the replay (scenario_run.c, doc/memory.md): a step
 * that does not fit is generated, without a warning of its own, and carries its memory. */
START_TEST(memory_oom_left_to_replay)
{
    weft_gen_spec_t spec;
    weft_gen_spec_init(&spec);
    spec.model = "gpt3-13b";
    ck_assert(weft_gen_preset(spec.model, &spec.c, NULL));
    spec.oom = WEFT_GEN_OOM_ERROR;
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_workload_t) wl = weft_gen_spec_generate(&spec, 0, "t", &err);
    ck_assert_msg(wl != NULL, "%s", err ? err->message : "");
    ck_assert(wl->warnings == NULL || wl->warnings->len == 0);
    ck_assert_ptr_nonnull(wl->resident);
    ck_assert_ptr_nonnull(wl->ranks[0].mem_alloc);
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

/* A key given twice: a spec file is refused, naming the file, the group and the key, as
 * every weft file is (it used to be read, and the first value's text leaked: found by
 * tests/fuzz/fuzz_gen_spec, regression input tests/fuzz/regressions/gen_spec/); a
 * GKeyFile loaded by GLib itself, which keeps both lines, takes the last value. */
START_TEST(a_key_given_twice)
{
    static const char text[] = "[transformer]\nmodel = gpt3-1.3b\ntp = 4\npp = 1\ndp = 1\n"
                               "tp = 2\n";
    g_autofree char *path = NULL;
    g_autoptr(GError) err = NULL;
    int fd = g_file_open_tmp("weft-gen-XXXXXX.gen", &path, &err);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert(g_file_set_contents(path, text, -1, &err));
    ck_assert_ptr_null(weft_gen_load_spec(path, &err));
    g_unlink(path);
    ck_assert(g_error_matches(err, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE));
    ck_assert_msg(strstr(err->message, path) != NULL && strstr(err->message, "tp") != NULL &&
                      strstr(err->message, "transformer") != NULL,
                  "%s", err->message);
    g_clear_error(&err);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    ck_assert(g_key_file_load_from_data(kf, text, sizeof text - 1, G_KEY_FILE_NONE, &err));
    g_autoptr(weft_workload_t) wl = weft_gen_load_keyfile(kf, "k", 0, &err);
    ck_assert_msg(wl != NULL, "%s", err ? err->message : "");
    /* tp 2 (the last line) x pp 1 x dp 1 = 2 ranks */
    ck_assert_uint_eq(wl->n_ranks, 2);
}
END_TEST

/* A model given by its sizes (no preset; weft replay --gen layers=...,hidden=...,heads=...):
 * the keys' defaults, not 0 ("kv-heads is 0"), and the presets' overlap flags. */
START_TEST(sizes_without_a_model_take_their_defaults)
{
    weft_gen_spec_t spec;
    weft_gen_spec_init(&spec);
    const char *keys[][2] = {{"layers", "2"}, {"hidden", "64"}, {"heads", "4"}, {"tp", "2"}};
    for (guint i = 0; i < G_N_ELEMENTS(keys); i++) {
        const weft_key_t *row =
            weft_keys_find(weft_gen_keys, weft_gen_n_keys, "transformer", keys[i][0]);
        ck_assert_ptr_nonnull(row);
        ck_assert(weft_key_apply(row, keys[i][1], &spec, NULL));
    }
    g_autoptr(GError) e = NULL;
    ck_assert_msg(weft_gen_spec_finish(&spec, 8, "--gen", &e), "%s", e ? e->message : "");
    ck_assert_uint_eq(spec.c.kv_heads, 4); /* = heads */
    ck_assert_uint_eq(spec.c.ffn, 256);    /* 4 x hidden */
    ck_assert_uint_eq(spec.c.vocab, 51200);
    ck_assert_uint_eq(spec.c.seq, 2048);
    ck_assert_uint_eq(spec.c.dp, 4); /* 8 GPUs / tp 2 */
    ck_assert(spec.c.overlap_dp);    /* as with a preset */
    ck_assert(!spec.c.tp_overlap);   /* Megatron-LM's default */
    ck_assert_uint_eq(spec.c.first_stage_layers + spec.c.last_stage_layers, 0);
    ck_assert(!spec.c.account_embedding && !spec.c.account_loss);
    ck_assert_str_eq(spec.gpu, "h100");
    ck_assert(weft_gen_validate(&spec.c, 8, &e));
    /* the same through a spec key file, generated: 8 ranks */
    g_autoptr(GKeyFile) kf = g_key_file_new();
    for (guint i = 0; i < G_N_ELEMENTS(keys); i++) {
        g_key_file_set_string(kf, "transformer", keys[i][0], keys[i][1]);
    }
    g_autoptr(weft_workload_t) wl = weft_gen_load_keyfile(kf, "k", 8, &e);
    ck_assert_msg(wl != NULL, "%s", e ? e->message : "");
    ck_assert_uint_eq(wl->n_ranks, 8);
}
END_TEST

/* ---- ZeRO stages, FSDP, LoRA (issue 18) ------------------------------------------ */

/* The @k-th node named @name on rank @r, its comm_size in bytes. */
static guint64
bytes_named(const weft_workload_t *wl, guint r, const char *name, guint k)
{
    const weft_rank_trace_t *t = &wl->ranks[r];
    for (guint i = 0; i < t->n_nodes; i++) {
        if (strcmp(t->name[i], name) == 0 && k-- == 0) {
            return t->comm_bytes[i];
        }
    }
    ck_abort_msg("no node %s on rank %u", name, r);
    return 0;
}

/* The members of the communicator of rank @r's @k-th node named @name. */
static const weft_comm_t *
comm_named(const weft_workload_t *wl, guint r, const char *name, guint k)
{
    const weft_rank_trace_t *t = &wl->ranks[r];
    for (guint i = 0; i < t->n_nodes; i++) {
        if (strcmp(t->name[i], name) == 0 && k-- == 0) {
            return g_ptr_array_index(wl->comms, t->comm[i]);
        }
    }
    ck_abort_msg("no node %s on rank %u", name, r);
    return NULL;
}

/* ZeRO-3 (FSDP full shard) on dp 4, 2 micro-batches: each pass gathers its 4 FSDP units (the
 * embedding, 2 layers, the output layer) once, forward and again backward, and reduce-scatters
 * each unit's gradients after its backward: 4 x 2 = 8 of each per rank. A layer holds
 * h (h + 2 g d) + h^2 + 2 h + 2 h f = 12,288 + 4,096 + 128 + 32,768 = 49,280 parameters, the
 * embedding and the output layer v h = 8,192: an all-gather's comm_size is each rank's share of
 * the BF16 weights, 2 x 49,280 / 4 = 24,640 (4,096); a reduce-scatter's its input, the BF16
 * gradients, 2 x 49,280 = 98,560 (16,384). No step-level gradient reduction or parameter
 * gather is left; the optimizer waits for every reduce-scatter. */
START_TEST(zero3_gathers_and_scatters_per_layer)
{
    weft_gen_config_t c = tiny();
    c.dp = 4;
    c.global_batch = 8;
    c.overlap_dp = TRUE;
    c.zero = 3;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    for (guint r = 0; r < 4; r++) {
        ck_assert_uint_eq(count_named(wl, r, "dp_allgather_params_fwd"), 8);
        ck_assert_uint_eq(count_named(wl, r, "dp_allgather_params_bwd"), 8);
        ck_assert_uint_eq(count_named(wl, r, "dp_reducescatter_grads"), 8);
        ck_assert_uint_eq(count_named(wl, r, "free_gathered_params"), 16);
        ck_assert_uint_eq(count_named(wl, r, "dp_allreduce_grads"), 0);
        ck_assert_uint_eq(count_named(wl, r, "dp_allgather_params"), 0);
    }
    /* forward order: embedding, layer, layer, output; backward the reverse */
    static const guint64 ag[4] = {4096, 24640, 24640, 4096};
    for (guint k = 0; k < 4; k++) {
        ck_assert_uint_eq(bytes_named(wl, 0, "dp_allgather_params_fwd", k), ag[k]);
        ck_assert_uint_eq(bytes_named(wl, 0, "dp_allgather_params_bwd", k), ag[3 - k]);
        ck_assert_uint_eq(bytes_named(wl, 0, "dp_reducescatter_grads", k), 4 * ag[3 - k]);
    }
    ck_assert_uint_eq(comm_named(wl, 0, "dp_allgather_params_fwd", 0)->n_ranks, 4);
    /* prefetch: the first layer's gather (the 2nd) is issued before the embedding computes
     * and waits only for the embedding's gather; the first layer's compute waits for it */
    guint ag0 = node_named(wl, "dp_allgather_params_fwd", 0);
    guint ag1 = node_named(wl, "dp_allgather_params_fwd", 1);
    guint emb = node_named(wl, "embedding.fwd", 0);
    guint qkv = node_named(wl, "attn_qkv.fwd", 0);
    ck_assert(is_dep(wl, ag0, ag1));
    ck_assert(is_dep(wl, ag0, emb));
    ck_assert(ag1 < emb);
    ck_assert(is_dep(wl, ag1, qkv));
    /* the second layer's gather waits for the embedding's parameters to be freed (FSDP's
     * rate limit of two gathered units) */
    guint ag2 = node_named(wl, "dp_allgather_params_fwd", 2);
    ck_assert(is_dep(wl, node_named(wl, "free_gathered_params", 0), ag2));
    guint opt = node_named(wl, "optimizer", 0);
    for (guint k = 0; k < 8; k++) {
        ck_assert(is_dep(wl, node_named(wl, "dp_reducescatter_grads", k), opt));
    }
    /* fsdp full is the same step */
    weft_gen_config_t f = c;
    f.zero = 0;
    f.fsdp = WEFT_GEN_FSDP_FULL;
    g_autoptr(weft_workload_t) wf = gen_checked(&f);
    ck_assert_uint_eq(wf->ranks[0].n_nodes, wl->ranks[0].n_nodes);
}
END_TEST

/* FSDP hybrid shard over dp 4 in shard groups of 2: gathers and reduce-scatters in the shard
 * group (ranks {0, 1}, {2, 3}), then each layer's gradient shard, 2 x 49,280 / 2 = 49,280
 * bytes, all-reduced across the replicas (ranks {0, 2}, {1, 3}). */
START_TEST(fsdp_hybrid_shards_in_groups)
{
    weft_gen_config_t c = tiny();
    c.dp = 4;
    c.global_batch = 4;
    c.fsdp = WEFT_GEN_FSDP_HYBRID;
    c.fsdp_shard_group = 2;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    const weft_comm_t *sh = comm_named(wl, 1, "dp_allgather_params_fwd", 0);
    ck_assert_uint_eq(sh->n_ranks, 2);
    ck_assert_uint_eq(sh->ranks[0], 0);
    ck_assert_uint_eq(sh->ranks[1], 1);
    const weft_comm_t *rp = comm_named(wl, 1, "dp_allreduce_grads_replicas", 0);
    ck_assert_uint_eq(rp->n_ranks, 2);
    ck_assert_uint_eq(rp->ranks[0], 1);
    ck_assert_uint_eq(rp->ranks[1], 3);
    ck_assert_uint_eq(count_named(wl, 0, "dp_allreduce_grads_replicas"), 4);
    /* backward order: output layer, layer, layer, embedding */
    ck_assert_uint_eq(bytes_named(wl, 0, "dp_allreduce_grads_replicas", 1), 49280);
    ck_assert_uint_eq(bytes_named(wl, 0, "dp_allgather_params_fwd", 1), 2 * 49280 / 2);
    /* each all-reduce waits for its reduce-scatter */
    guint rs = node_named(wl, "dp_reducescatter_grads", 1);
    ck_assert(is_dep(wl, rs, node_named(wl, "dp_allreduce_grads_replicas", 1)));
}
END_TEST

/* ZeRO-2 reduce-scatters the BF16 gradients once per step (the model's 2 x 49,280 + 2 x 8,192
 * = 114,944 local parameters, 2 bytes each: 229,888 bytes) and all-gathers the updated
 * parameters (each rank's share of 2 x 114,944 over dp 2: 114,944); ZeRO-1 (= dist_opt)
 * reduce-scatters Megatron's FP32 main_grad, 4 x 114,944 = 459,776. */
START_TEST(zero2_reduce_scatters_bf16_gradients)
{
    weft_gen_config_t c = tiny();
    c.dp = 2;
    c.global_batch = 2;
    c.overlap_dp = TRUE;
    c.zero = 2;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    ck_assert_uint_eq(count_named(wl, 0, "dp_reducescatter_grads"), 1);
    ck_assert_uint_eq(bytes_named(wl, 0, "dp_reducescatter_grads", 0), 229888);
    ck_assert_uint_eq(bytes_named(wl, 0, "dp_allgather_params", 0), 114944);
    c.zero = 1;
    g_autoptr(weft_workload_t) w1 = gen_checked(&c);
    ck_assert_uint_eq(bytes_named(w1, 0, "dp_reducescatter_grads", 0), 459776);
    c.zero = 0;
    c.dist_opt = TRUE;
    g_autoptr(weft_workload_t) wd = gen_checked(&c);
    ck_assert_uint_eq(wd->ranks[0].n_nodes, w1->ranks[0].n_nodes);
    ck_assert_uint_eq(bytes_named(wd, 0, "dp_reducescatter_grads", 0), 459776);
}
END_TEST

/* LoRA's trainable parameters: r (d_in + d_out) per adapted matrix (Hu et al. 2021, Section
 * 4.1), for GPT-3 175B (96 layers, d_model 12,288) on W_q and W_v 2 x 2 d r = 4 d r per layer,
 * the paper's |Theta| = 2 L_LoRA d_model r (Section 5.1) with L_LoRA = 192 matrices: r = 1
 * 4,718,592 and r = 8 37,748,736 (Table 4: GPT-3 (LoRA) 4.7M and 37.7M); r = 4 18,874,368
 * (Section 7.1, Table 5: the 18M budget spent on W_q and W_v). */
START_TEST(lora_trainable_parameters_of_gpt3)
{
    weft_gen_config_t c;
    ck_assert(weft_gen_preset("gpt3-175b", &c, NULL));
    ck_assert_uint_eq(c.lora_rank, 8); /* PEFT's default */
    c.finetune = WEFT_GEN_FINETUNE_LORA;
    static const struct {
        guint r;
        double params;
    } rows[] = {{1, 4718592.0}, {4, 18874368.0}, {8, 37748736.0}};
    for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
        c.lora_rank = rows[i].r;
        ck_assert_double_eq(96 * weft_gen_trainable_layer_params(&c), rows[i].params);
    }
    /* all linear layers, r 1: q, k, v, o 4 x 2 d + FC1, FC2 2 x (d + 4 d) = 18 d per layer */
    c.lora_rank = 1;
    c.lora_targets = WEFT_GEN_LORA_ALL;
    ck_assert_double_eq(weft_gen_trainable_layer_params(&c), 18.0 * 12288);
    /* full fine-tuning trains the layer's weights */
    c.finetune = WEFT_GEN_FINETUNE_FULL;
    ck_assert_double_eq(weft_gen_trainable_layer_params(&c),
                        12288.0 * 3 * 12288 + 12288.0 * 12288 + 2 * 12288 + 2 * 12288.0 * 49152);
}
END_TEST

/* LoRA (r 2 on W_q, W_v) on the tiny model, dp 2: the data-parallel all-reduce carries the
 * adapters' FP32 gradients only, 2 layers x (2 (64 + 64) + 2 (64 + 64)) = 1,024 parameters x 4
 * = 4,096 bytes; a frozen layer without adapters (FC1) gets no weight-gradient GEMM (0 ps); QKV's
 * weight-gradient node runs the adapters' only: per adapter [64, T 32] x [32, 2] (A) and
 * [2, 32] x [32, 64] (B), for q and v. */
START_TEST(lora_trains_adapters_only)
{
    weft_gen_config_t c = tiny();
    c.dp = 2;
    c.global_batch = 2;
    c.finetune = WEFT_GEN_FINETUNE_LORA;
    c.lora_rank = 2;
    g_autoptr(weft_workload_t) wl = gen_checked(&c);
    ck_assert_uint_eq(bytes_named(wl, 0, "dp_allreduce_grads", 0), 4096);
    ck_assert_int_eq(dur(wl, "mlp_fc1_wgrad.bwd", 0), 0);
    weft_kernel_gemm_t a = {1, 64, 2, 32, WEFT_KERNEL_BF16}, b = {1, 2, 64, 32, WEFT_KERNEL_BF16};
    double s = 2 * (weft_kernel_gemm_s(h100(), &a, WEFT_GEN_SUSTAINED_CLOCK) +
                    weft_kernel_gemm_s(h100(), &b, WEFT_GEN_SUSTAINED_CLOCK));
    ck_assert_int_eq(dur(wl, "attn_qkv_wgrad.bwd", 0), (weft_time_t)llround(s * 1e12));
}
END_TEST

/* Impossible sharding and fine-tuning settings are VALUE errors, never crashes. */
START_TEST(sharding_and_finetune_errors)
{
    weft_gen_config_t c = tiny();
    c.dp = 4;
    c.global_batch = 4;
    weft_gen_config_t b = c;
    b.zero = 4;
    expect_invalid(&b, 0);
    b = c;
    b.finetune = WEFT_GEN_FINETUNE_LORA; /* lora_rank 0 */
    expect_invalid(&b, 0);
    b = c;
    b.fsdp = WEFT_GEN_FSDP_HYBRID; /* no shard group */
    expect_invalid(&b, 0);
    b.fsdp_shard_group = 3; /* does not divide dp 4 */
    expect_invalid(&b, 0);
    b = c;
    b.fsdp_shard_group = 2; /* without hybrid */
    expect_invalid(&b, 0);
    b = c;
    b.fsdp = WEFT_GEN_FSDP_FULL;
    b.zero = 1;
    expect_invalid(&b, 0);
    b = c;
    b.dist_opt = TRUE;
    b.zero = 2;
    expect_invalid(&b, 0);
    b = c;
    b.zero = 3;
    b.experts = 4;
    b.top_k = 2;
    expect_invalid(&b, 0);
    b = c;
    b.zero = 2;
    b.finetune = WEFT_GEN_FINETUNE_QLORA;
    b.lora_rank = 8;
    expect_invalid(&b, 0);
    /* the spec keys say which key and value */
    g_autoptr(GKeyFile) kf = g_key_file_new();
    ck_assert(
        g_key_file_load_from_data(kf, "[transformer]\nmodel=gpt3-1.3b\nzero=4\n", -1, 0, NULL));
    g_autoptr(GError) e = NULL;
    ck_assert_ptr_null(weft_gen_load_keyfile(kf, "z.gen", 8, &e));
    ck_assert_msg(strstr(e->message, "zero") != NULL && strstr(e->message, "4") != NULL, "%s",
                  e->message);
}
END_TEST

static Suite *
gen_suite(void)
{
    Suite *s = suite_create("gen");
    TCase *tc = tcase_create("gen");
    tcase_add_test(tc, tensor_parallel_all_reduces);
    tcase_add_test(tc, sequence_parallel_gathers_and_scatters);
    tcase_add_test(tc, pipeline_1f1b_sends_in_order);
    tcase_add_test(tc, interleaved_pipeline_sends_per_virtual_stage);
    tcase_add_test(tc, uneven_pipeline_stages);
    tcase_add_test(tc, column_parallel_backward_overlaps);
    tcase_add_test(tc, overlapped_backward_replays_as_derived);
    tcase_add_test(tc, tp_overlap_replays_as_derived);
    tcase_add_test(tc, pipeline_tensors_are_scattered_and_gathered_without_sp);
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
    tcase_add_test(tc, a_key_given_twice);
    tcase_add_test(tc, oversized_steps_are_errors);
    tcase_add_test(tc, sizes_without_a_model_take_their_defaults);
    tcase_add_test(tc, memory_oom_left_to_replay);
    tcase_add_test(tc, zero3_gathers_and_scatters_per_layer);
    tcase_add_test(tc, fsdp_hybrid_shards_in_groups);
    tcase_add_test(tc, zero2_reduce_scatters_bf16_gradients);
    tcase_add_test(tc, lora_trainable_parameters_of_gpt3);
    tcase_add_test(tc, lora_trains_adapters_only);
    tcase_add_test(tc, sharding_and_finetune_errors);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(gen_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
