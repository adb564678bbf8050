/* SPDX-License-Identifier: MIT */
/*
 * Tests of per-rank memory (workload/memory.h and its use by the generator and the
 * replay): the published closed forms reproduced exactly (Korthikanti et al. 2022 Table 2,
 * the ZeRO paper's Figure 1, Megatron's bytes per parameter), and the peak the replay finds
 * from the simulated order (1F1B holds pp - p micro-batches' activations on stage p).
 */
#include "workload/memory.h"

#include <check.h>
#include <stdlib.h>

#include "core/sim.h"
#include "net/net.h"
#include "replay/replay.h"
#include "topo/topo.h"
#include "workload/gen.h"

/* GPT-3 175B's layer (Brown et al. 2020 Table 2.1: h 12288, 96 heads) at s 2048, b 1, t 8:
 * s b h = 2048 x 12288 = 25,165,824 bytes per unit of Table 2's brackets; 5 a s / h = 5 x 96 x
 * 2048 / 12288 = 80. */
#define SBH 25165824.0

START_TEST(korthikanti_table2_rows)
{
    const double s = 2048, b = 1, h = 12288, a = 96;
    /* no parallelism: s b h (34 + 80) = 114 s b h */
    ck_assert_double_eq(weft_mem_activation_layer_bytes(s, b, h, a, 1, FALSE,
                                                        WEFT_MEM_RECOMPUTE_NONE, FALSE),
                        114 * SBH);
    /* tensor parallel, t 8: s b h (10 + 24 / 8 + 80 / 8) = 23 s b h */
    ck_assert_double_eq(weft_mem_activation_layer_bytes(s, b, h, a, 8, FALSE,
                                                        WEFT_MEM_RECOMPUTE_NONE, FALSE),
                        23 * SBH);
    /* tensor + sequence parallel: s b h (34 / 8 + 80 / 8) = 14.25 s b h */
    ck_assert_double_eq(weft_mem_activation_layer_bytes(s, b, h, a, 8, TRUE,
                                                        WEFT_MEM_RECOMPUTE_NONE, FALSE),
                        14.25 * SBH);
    /* tensor + selective: s b h (10 + 3) = 13 s b h */
    ck_assert_double_eq(weft_mem_activation_layer_bytes(s, b, h, a, 8, FALSE,
                                                        WEFT_MEM_RECOMPUTE_SELECTIVE, FALSE),
                        13 * SBH);
    /* tensor + sequence + selective: 34 / 8 = 4.25 s b h */
    ck_assert_double_eq(weft_mem_activation_layer_bytes(s, b, h, a, 8, TRUE,
                                                        WEFT_MEM_RECOMPUTE_SELECTIVE, FALSE),
                        4.25 * SBH);
    /* full recompute: 2 s b h; sequence-sharded with SP: 2 s b h / 8 */
    ck_assert_double_eq(weft_mem_activation_layer_bytes(s, b, h, a, 8, FALSE,
                                                        WEFT_MEM_RECOMPUTE_FULL, FALSE),
                        2 * SBH);
    ck_assert_double_eq(weft_mem_activation_layer_bytes(s, b, h, a, 8, TRUE,
                                                        WEFT_MEM_RECOMPUTE_FULL, FALSE),
                        2 * SBH / 8);
    /* flash attention, no recompute: the selective row + the log-sum-exp, 4 a s b / t =
     * 4 x 96 x 2048 / 8 = 98,304: 106,954,752 + 98,304 */
    ck_assert_double_eq(weft_mem_activation_layer_bytes(s, b, h, a, 8, TRUE,
                                                        WEFT_MEM_RECOMPUTE_NONE, TRUE),
                        107053056.0);
    /* flash with selective recompute keeps no attention state: the selective row */
    ck_assert_double_eq(weft_mem_activation_layer_bytes(s, b, h, a, 8, TRUE,
                                                        WEFT_MEM_RECOMPUTE_SELECTIVE, TRUE),
                        4.25 * SBH);
}
END_TEST

/* ZeRO (Rajbhandari et al. 2020, Figure 1, p. 3): Psi = 7.5B, Nd = 64, K = 12, FP16 weights
 * and gradients. */
START_TEST(zero_figure1_stages)
{
    const double psi = 7.5e9;
    weft_mem_states_t st = {.weight_bytes = 2, .master_bytes = 4, .grad_bytes = 2,
                            .optimizer_bytes = 8, .shard = 64};
    double out[WEFT_MEM_N_CATS];
    /* baseline: (2 + 2 + 12) Psi = 120 GB */
    st.zero_stage = 0;
    ck_assert_double_eq(weft_mem_model_states(psi, &st, out), 120e9);
    /* P_os: 4 Psi + 12 Psi / 64 = 30 + 1.40625 = 31.40625 GB (the figure's 31.4) */
    st.zero_stage = 1;
    ck_assert_double_eq(weft_mem_model_states(psi, &st, out), 31.40625e9);
    ck_assert_double_eq(out[WEFT_MEM_MASTER], 4 * psi / 64);
    ck_assert_double_eq(out[WEFT_MEM_OPTIMIZER], 8 * psi / 64);
    ck_assert_double_eq(out[WEFT_MEM_GRADS], 2 * psi);
    /* P_os+g: 2 Psi + 14 Psi / 64 = 15 + 1.640625 = 16.640625 GB (16.6) */
    st.zero_stage = 2;
    ck_assert_double_eq(weft_mem_model_states(psi, &st, out), 16.640625e9);
    /* P_os+g+p: 16 Psi / 64 = 1.875 GB (1.9) */
    st.zero_stage = 3;
    ck_assert_double_eq(weft_mem_model_states(psi, &st, out), 1.875e9);
    ck_assert_double_eq(out[WEFT_MEM_WEIGHTS], 2 * psi / 64);
    ck_assert_double_eq(out[WEFT_MEM_ACTIVATIONS], 0);
}
END_TEST

/* Megatron Core's distributed optimizer table: BF16 parameters, FP32 gradients: 18 bytes per
 * parameter, 6 + 12 / d distributed. */
START_TEST(megatron_bytes_per_parameter)
{
    weft_mem_states_t st = {.weight_bytes = 2, .master_bytes = 4, .grad_bytes = 4,
                            .optimizer_bytes = 8, .shard = 8};
    double out[WEFT_MEM_N_CATS];
    st.zero_stage = 0;
    ck_assert_double_eq(weft_mem_model_states(1e9, &st, out), 18e9);
    st.zero_stage = 1;
    ck_assert_double_eq(weft_mem_model_states(1e9, &st, out), 6e9 + 12e9 / 8);
}
END_TEST

/* A tiny model: 4 layers, h 64, 4 heads (d 16), FFN 256 (2 matrices), vocab 128, seq 32,
 * one sequence per micro-batch, fused attention, no recomputation. One layer keeps
 * s b h (10 + 24) + 4 a s b = 32 x 64 x 34 + 4 x 4 x 32 = 69,632 + 512 = 70,144 bytes
 * (Korthikanti Table 2's selective row + the log-sum-exp, t = 1). */
#define TINY_LAYER 70144u

static weft_gen_config_t
tiny(guint pp, guint vpp, guint micro_batches)
{
    weft_gen_config_t c = {.layers = 4, .hidden = 64, .heads = 4, .kv_heads = 4, .ffn = 256,
                           .vocab = 128, .seq = 32, .tp = 1, .pp = pp, .dp = 1, .cp = 1,
                           .ep = 1, .vpp = vpp, .micro_batch = 1,
                           .global_batch = micro_batches, .overlap_dp = TRUE};
    return c;
}

/* @n H100 GPUs in a chain of NVLinks (25 GB/s, 500 ns). */
static weft_topo_t *
chain(guint n)
{
    weft_topo_t *t = weft_topo_new("chain");
    g_autoptr(GError) e = NULL;
    const weft_hw_gpu_t *h100 = weft_hw_gpu("h100", &e);
    ck_assert_ptr_nonnull(h100);
    for (guint i = 0; i < n; i++) {
        g_autofree char *name = g_strdup_printf("gpu%u", i);
        ck_assert_int_eq(weft_topo_add_vertex(t, WEFT_VERTEX_GPU, name, -1, -1, &e), (gint)i);
        weft_topo_set_vertex_gpu_model(t, (gint)i, h100);
    }
    for (guint i = 0; i + 1 < n; i++) {
        ck_assert_int_ge(weft_topo_add_link(t, (gint)i, (gint)i + 1, WEFT_LINK_NVLINK, 25e9,
                                            500 * WEFT_PS_PER_NS, 1, &e),
                         0);
    }
    ck_assert_msg(weft_topo_finalize(t, &e), "%s", e != NULL ? e->message : "");
    return t;
}

static weft_replay_result_t *
replay(const weft_gen_config_t *c, weft_workload_t **out)
{
    g_autoptr(GError) e = NULL;
    guint n = c->tp * c->pp * c->dp;
    g_autoptr(weft_topo_t) topo = chain(n);
    weft_workload_t *wl = weft_gen_transformer(c, weft_hw_gpu("h100", NULL), &e);
    ck_assert_msg(wl != NULL, "%s", e != NULL ? e->message : "");
    ck_assert_msg(weft_workload_check(wl, n, &e), "%s", e != NULL ? e->message : "");
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    weft_replay_result_t *res = weft_replay_run(sim, net, wl, NULL, &e);
    ck_assert_msg(res != NULL, "%s", e != NULL ? e->message : "");
    *out = wl;
    return res;
}

/* 1F1B: stage p runs pp - p - 1 warm-up forwards, then one more forward before its first
 * backward frees anything: pp - p micro-batches' activations at its peak (Narayanan et al.
 * 2021, Section 2.2; Korthikanti et al. 2022, Section 4.2.3), found by the replay's order. */
START_TEST(one_f_one_b_holds_pp_minus_stage)
{
    weft_gen_config_t c = tiny(4, 1, 8); /* 1 layer per stage, 8 micro-batches */
    g_autoptr(weft_workload_t) wl = NULL;
    g_autoptr(weft_replay_result_t) res = replay(&c, &wl);
    ck_assert(res->mem_known);
    for (guint p = 0; p < 4; p++) {
        const weft_rank_result_t *rr = &res->ranks[p];
        ck_assert_uint_eq(rr->mem_at_peak[WEFT_MEM_ACTIVATIONS], (4 - p) * TINY_LAYER);
        /* weights: a layer's parameters h (h + 2 g d) + h^2 + 2 h + 2 h f = 12,288 + 4,096 +
         * 128 + 32,768 = 49,280, with the embedding (stage 0) or the output layer (stage 3),
         * v h = 8,192; 2 bytes each; master 4, gradients 4, Adam 8 (no sharding) */
        guint64 params = 49280 + (p == 0 || p == 3 ? 8192 : 0);
        ck_assert_uint_eq(rr->mem_at_peak[WEFT_MEM_WEIGHTS], 2 * params);
        ck_assert_uint_eq(rr->mem_at_peak[WEFT_MEM_MASTER], 4 * params);
        ck_assert_uint_eq(rr->mem_at_peak[WEFT_MEM_GRADS], 4 * params);
        ck_assert_uint_eq(rr->mem_at_peak[WEFT_MEM_OPTIMIZER], 8 * params);
        ck_assert_uint_eq(rr->mem_peak_bytes, 18 * params + (4 - p) * TINY_LAYER);
        /* the peak comes after the warm-up, inside the step */
        ck_assert_int_gt(rr->mem_peak_ps, 0);
        ck_assert_int_lt(rr->mem_peak_ps, rr->finish_ps);
    }
}
END_TEST

/* Interleaved (vpp 2, pp 2, 4 layers: one per model chunk): stage 0 runs (pp - 1) 2 +
 * (vpp - 1) pp = 4 warm-up chunk forwards, then one more: 5 layers' activations, Korthikanti's
 * L (1 + (p - 1) / (p v)) = 4 x (1 + 1 / 4) = 5 (Section 4.2.3); stage 1: 2 + 1 = 3. */
START_TEST(interleaved_in_flight)
{
    weft_gen_config_t c = tiny(2, 2, 4);
    g_autoptr(weft_workload_t) wl = NULL;
    g_autoptr(weft_replay_result_t) res = replay(&c, &wl);
    ck_assert_uint_eq(res->ranks[0].mem_at_peak[WEFT_MEM_ACTIVATIONS], 5 * TINY_LAYER);
    ck_assert_uint_eq(res->ranks[1].mem_at_peak[WEFT_MEM_ACTIVATIONS], 3 * TINY_LAYER);
}
END_TEST

/* Full recomputation keeps each layer's input, 2 s b h = 4,096 bytes, and rebuilds one layer's
 * activations (70,144) before its backward: one stage (pp 1) of 4 layers and 1 micro-batch
 * peaks at 4 x 4,096 + 70,144. With the distributed optimizer over dp 2 the master weights and
 * moments halve: (2 + 4 + 12 / 2) bytes per parameter. */
START_TEST(full_recompute_rebuilds_one_layer)
{
    weft_gen_config_t c = tiny(1, 1, 2);
    c.recompute = WEFT_GEN_RECOMPUTE_FULL;
    c.dp = 2;
    c.dist_opt = TRUE;
    g_autoptr(weft_workload_t) wl = NULL;
    g_autoptr(weft_replay_result_t) res = replay(&c, &wl);
    const weft_rank_result_t *rr = &res->ranks[0];
    ck_assert_uint_eq(rr->mem_at_peak[WEFT_MEM_ACTIVATIONS], 4 * 4096 + TINY_LAYER);
    /* 4 layers + embedding + output layer: 4 x 49,280 + 2 x 8,192 = 213,504 parameters */
    ck_assert_uint_eq(rr->mem_at_peak[WEFT_MEM_MASTER], 4 * 213504 / 2);
    ck_assert_uint_eq(rr->mem_at_peak[WEFT_MEM_OPTIMIZER], 8 * 213504 / 2);
    ck_assert_uint_eq(rr->mem_at_peak[WEFT_MEM_GRADS], 4 * 213504);
}
END_TEST

/* Every byte a generated step allocates is freed by the end of the step, whatever the
 * configuration (tensor, sequence, context, expert parallelism, interleaving, recomputation,
 * overlap off): the sums of mem_alloc and mem_free of each stage are equal and positive. */
START_TEST(generated_allocations_balance)
{
    weft_gen_config_t cs[6];
    cs[0] = tiny(2, 1, 4);
    cs[1] = tiny(2, 2, 4);
    cs[1].tp = 2;
    cs[1].sp = TRUE;
    cs[2] = tiny(1, 1, 2);
    cs[2].recompute = WEFT_GEN_RECOMPUTE_FULL;
    cs[2].cp = 2;
    cs[3] = tiny(2, 1, 2);
    cs[3].recompute = WEFT_GEN_RECOMPUTE_SELECTIVE;
    cs[3].overlap_dp = FALSE;
    cs[4] = tiny(1, 1, 2);
    cs[4].experts = 4;
    cs[4].top_k = 2;
    cs[4].dp = 2;
    cs[4].ep = 2;
    cs[4].global_batch = 4;
    cs[5] = tiny(2, 1, 2);
    cs[5].unfused_attention = TRUE;
    for (guint k = 0; k < G_N_ELEMENTS(cs); k++) {
        g_autoptr(GError) e = NULL;
        g_autoptr(weft_workload_t) wl = weft_gen_transformer(&cs[k], weft_hw_gpu("h100", NULL), &e);
        ck_assert_msg(wl != NULL, "config %u: %s", k, e != NULL ? e->message : "");
        for (guint r = 0; r < wl->n_ranks; r++) {
            const weft_rank_trace_t *t = &wl->ranks[r];
            guint64 alloc = 0, freed = 0;
            for (guint i = 0; i < t->n_nodes; i++) {
                alloc += t->mem_alloc[i];
                freed += t->mem_free[i];
                ck_assert_uint_eq(t->mem_cat[i], WEFT_MEM_ACTIVATIONS);
            }
            ck_assert_msg(alloc > 0 && alloc == freed, "config %u rank %u: %" G_GUINT64_FORMAT
                          " allocated, %" G_GUINT64_FORMAT " freed", k, r, alloc, freed);
        }
    }
}
END_TEST

/* ---- ZeRO stages and fine-tuning in the generated step (issue 18) ------------------- */

/* The tiny model's parameters on one stage: 4 layers x 49,280 + embedding and output layer
 * 2 x 8,192 = 213,504 (Psi). */
#define TINY_PSI 213504u

/* Per-rank model states of the generated step on dp 4 (Nd = 4) for ZeRO stages 0-3: Megatron's
 * 18 Psi and 6 Psi + 12 Psi / Nd (FP32 main_grad, not sharded by its distributed optimizer =
 * ZeRO-1), then the ZeRO paper's (Rajbhandari et al. 2020, Figure 1: 2 + 2 + K, K = 12) 2 Psi
 * + 14 Psi / Nd and 16 Psi / Nd with BF16 gradients; FSDP full shard is stage 3. */
START_TEST(zero_stages_shard_model_states)
{
    static const guint64 total[4] = {18 * TINY_PSI, 6 * TINY_PSI + 12 * TINY_PSI / 4,
                                     2 * TINY_PSI + 14 * TINY_PSI / 4, 16 * TINY_PSI / 4};
    /* weights, master, gradients, optimizer */
    static const guint64 cat[4][4] = {
        {2 * TINY_PSI, 4 * TINY_PSI, 4 * TINY_PSI, 8 * TINY_PSI},
        {2 * TINY_PSI, 4 * TINY_PSI / 4, 4 * TINY_PSI, 8 * TINY_PSI / 4},
        {2 * TINY_PSI, 4 * TINY_PSI / 4, 2 * TINY_PSI / 4, 8 * TINY_PSI / 4},
        {2 * TINY_PSI / 4, 4 * TINY_PSI / 4, 2 * TINY_PSI / 4, 8 * TINY_PSI / 4},
    };
    for (guint z = 0; z < 5; z++) {
        weft_gen_config_t c = tiny(1, 1, 4);
        c.dp = 4;
        c.zero = MIN(z, 3u);
        if (z == 4) {
            c.zero = 0;
            c.fsdp = WEFT_GEN_FSDP_FULL;
        }
        guint k = MIN(z, 3u);
        g_autoptr(GError) e = NULL;
        g_autoptr(weft_workload_t) wl = weft_gen_transformer(&c, weft_hw_gpu("h100", NULL), &e);
        ck_assert_msg(wl != NULL, "%s", e != NULL ? e->message : "");
        for (guint r = 0; r < 4; r++) {
            const guint64 *res = wl->resident[r];
            ck_assert_uint_eq(res[WEFT_MEM_WEIGHTS], cat[k][0]);
            ck_assert_uint_eq(res[WEFT_MEM_MASTER], cat[k][1]);
            ck_assert_uint_eq(res[WEFT_MEM_GRADS], cat[k][2]);
            ck_assert_uint_eq(res[WEFT_MEM_OPTIMIZER], cat[k][3]);
            ck_assert_uint_eq(res[WEFT_MEM_WEIGHTS] + res[WEFT_MEM_MASTER] + res[WEFT_MEM_GRADS] +
                                  res[WEFT_MEM_OPTIMIZER],
                              total[k]);
        }
    }
}
END_TEST

/* ZeRO-3 on dp 4, one micro-batch: each unit's BF16 parameters are gathered (2 bytes per
 * local parameter) before it runs and freed after it, the next unit's gathered while it runs.
 * The peak comes in the backward of the last layer: all 4 layers' activations still live, that
 * layer's parameters and the prefetched next layer's gathered, 2 x 2 x 49,280 = 197,120 bytes
 * above the 2 Psi / 4 = 106,752 resident shard: 303,872 bytes of weights, and a peak of
 * 16 Psi / 4 + 197,120 + 4 x 70,144 = 854,016 + 197,120 + 280,576 = 1,331,712. Every gathered
 * byte is freed by the end of the step. */
START_TEST(zero3_gathered_parameters_in_the_peak)
{
    weft_gen_config_t c = tiny(1, 1, 4);
    c.dp = 4;
    c.zero = 3;
    g_autoptr(weft_workload_t) wl = NULL;
    g_autoptr(weft_replay_result_t) res = replay(&c, &wl);
    const weft_rank_result_t *rr = &res->ranks[0];
    ck_assert_uint_eq(rr->mem_at_peak[WEFT_MEM_WEIGHTS], 106752 + 197120);
    ck_assert_uint_eq(rr->mem_at_peak[WEFT_MEM_ACTIVATIONS], 4 * TINY_LAYER);
    ck_assert_uint_eq(rr->mem_peak_bytes, 854016 + 197120 + 4 * TINY_LAYER);
    const weft_rank_trace_t *t = &wl->ranks[0];
    guint64 alloc[WEFT_MEM_N_CATS] = {0}, freed[WEFT_MEM_N_CATS] = {0};
    for (guint i = 0; i < t->n_nodes; i++) {
        alloc[t->mem_cat[i]] += t->mem_alloc[i];
        freed[t->mem_cat[i]] += t->mem_free[i];
    }
    /* forward and backward gather every unit once: 2 x 2 x 213,504 */
    ck_assert_uint_eq(alloc[WEFT_MEM_WEIGHTS], 4 * TINY_PSI);
    ck_assert_uint_eq(freed[WEFT_MEM_WEIGHTS], 4 * TINY_PSI);
    ck_assert_uint_eq(alloc[WEFT_MEM_ACTIVATIONS], freed[WEFT_MEM_ACTIVATIONS]);
}
END_TEST

/* LoRA (r 2 on W_q, W_v: 2 (64 + 64) + 2 (64 + 64) = 512 adapter parameters per layer, 2,048
 * on the 4 layers) keeps the base frozen: its weights alone (2 bytes each; QLoRA: NF4, 0.5159
 * bytes, for the layers' linear weights, 4 x 49,152 = 196,608 x (4 + 8/64 + 32/(64 x 256)) / 8
 * = 101,424, BF16 for the norms, 4 x 128, and the embedding and output layer, 16,384: 33,792),
 * and the adapters' 18 bytes per parameter (Megatron's states). */
START_TEST(lora_freezes_the_base)
{
    weft_gen_config_t c = tiny(1, 1, 1);
    c.finetune = WEFT_GEN_FINETUNE_LORA;
    c.lora_rank = 2;
    for (guint q = 0; q < 2; q++) {
        c.finetune = q ? WEFT_GEN_FINETUNE_QLORA : WEFT_GEN_FINETUNE_LORA;
        g_autoptr(GError) e = NULL;
        g_autoptr(weft_workload_t) wl = weft_gen_transformer(&c, weft_hw_gpu("h100", NULL), &e);
        ck_assert_msg(wl != NULL, "%s", e != NULL ? e->message : "");
        const guint64 *res = wl->resident[0];
        guint64 base = q ? 101424 + 33792 : 2 * TINY_PSI;
        ck_assert_uint_eq(res[WEFT_MEM_WEIGHTS], base + 2 * 2048);
        ck_assert_uint_eq(res[WEFT_MEM_GRADS], 4 * 2048);
        ck_assert_uint_eq(res[WEFT_MEM_MASTER], 4 * 2048);
        ck_assert_uint_eq(res[WEFT_MEM_OPTIMIZER], 8 * 2048);
    }
}
END_TEST

static Suite *
memory_suite(void)
{
    Suite *s = suite_create("memory");
    TCase *tc = tcase_create("memory");
    tcase_add_test(tc, korthikanti_table2_rows);
    tcase_add_test(tc, zero_figure1_stages);
    tcase_add_test(tc, megatron_bytes_per_parameter);
    tcase_add_test(tc, one_f_one_b_holds_pp_minus_stage);
    tcase_add_test(tc, interleaved_in_flight);
    tcase_add_test(tc, full_recompute_rebuilds_one_layer);
    tcase_add_test(tc, generated_allocations_balance);
    tcase_add_test(tc, zero_stages_shard_model_states);
    tcase_add_test(tc, zero3_gathered_parameters_in_the_peak);
    tcase_add_test(tc, lora_freezes_the_base);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(memory_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
