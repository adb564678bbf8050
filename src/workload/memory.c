/* SPDX-License-Identifier: MIT */
/*
 * Per-rank memory closed forms (memory.h): Korthikanti et al.'s activation bytes per
 * layer and the ZeRO paper's model states, which the generator emits and the tests
 * hold it to.
 */
#define G_LOG_DOMAIN "weft-workload"

#include "workload/memory.h"

const char *
weft_mem_cat_name(weft_mem_cat_t cat)
{
    static const char *const names[WEFT_MEM_N_CATS] = {"weights", "master", "gradients",
                                                       "optimizer", "activations"};
    g_return_val_if_fail((guint)cat < WEFT_MEM_N_CATS, "?");
    return names[cat];
}

gboolean
weft_mem_cat_from_name(const char *name, weft_mem_cat_t *cat)
{
    for (guint k = 0; name != NULL && k < WEFT_MEM_N_CATS; k++) {
        if (g_strcmp0(name, weft_mem_cat_name((weft_mem_cat_t)k)) == 0) {
            *cat = (weft_mem_cat_t)k;
            return TRUE;
        }
    }
    return FALSE;
}

double
weft_mem_activation_layer_bytes(double s, double b, double h, double a, double t, gboolean sp,
                                weft_mem_recompute_t recompute, gboolean flash)
{
    g_return_val_if_fail(t >= 1 && h > 0, 0);
    double sbh = s * b * h;
    if (recompute == WEFT_MEM_RECOMPUTE_FULL) {
        return 2 * sbh / (sp ? t : 1);
    }
    /* Korthikanti Table 2: 34 s b h of which 24 s b h are inside the tensor-parallel
     * regions and 10 s b h (layernorms, dropouts, their inputs) outside them */
    double base = sp ? sbh * 34 / t : sbh * (10 + 24 / t);
    if (recompute == WEFT_MEM_RECOMPUTE_SELECTIVE) {
        return base; /* the attention core reruns in the backward: none of it is kept */
    }
    if (flash) {
        return base + 4 * a * s * b / t; /* the log-sum-exp, FP32 per row and head */
    }
    return base + 5 * a * s * s * b / t;
}

double
weft_mem_model_states(double params, const weft_mem_states_t *st, double *out)
{
    g_return_val_if_fail(st != NULL && out != NULL && st->shard >= 1 && st->zero_stage <= 3, 0);
    double nd = st->shard;
    out[WEFT_MEM_WEIGHTS] = params * st->weight_bytes / (st->zero_stage >= 3 ? nd : 1);
    out[WEFT_MEM_GRADS] = params * st->grad_bytes / (st->zero_stage >= 2 ? nd : 1);
    out[WEFT_MEM_MASTER] = params * st->master_bytes / (st->zero_stage >= 1 ? nd : 1);
    out[WEFT_MEM_OPTIMIZER] = params * st->optimizer_bytes / (st->zero_stage >= 1 ? nd : 1);
    out[WEFT_MEM_ACTIVATIONS] = 0;
    double total = 0;
    for (guint k = 0; k < WEFT_MEM_N_CATS; k++) {
        total += out[k];
    }
    return total;
}
