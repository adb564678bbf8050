/* SPDX-License-Identifier: MIT */
/*
 * Roofline times for compute nodes that carry work but no duration. A Chakra
 * COMP node may give its floating-point operations (num_ops) and the bytes it
 * touches (tensor_size) instead of a measured duration_micros; ASTRA-sim's
 * roofline mode times such nodes (astra-sim/astra-sim @ 3ad841a5,
 * astra-sim/workload/Workload.cc, Workload::issue_comp: operational intensity
 * I = num_ops / tensor_size, perf = Roofline::get_perf(I) = min(bandwidth x I,
 * peak_perf) in astra-sim/system/Roofline.cc, time = num_ops / perf), which is
 *
 *     t = max(num_ops / peak FLOP/s, tensor_size / HBM bandwidth)
 *
 * and is what weft uses, with the peak and the bandwidth of the cluster's GPU
 * from the hardware catalog (src/hw/hw.c, datasheet figures).
 */
#define G_LOG_DOMAIN "weft-workload"

#include "workload/workload.h"

#include <math.h>

weft_time_t
weft_workload_roofline_ps(double num_ops, guint64 tensor_bytes, const weft_hw_gpu_t *gpu)
{
    g_return_val_if_fail(gpu != NULL && gpu->bf16_flops > 0 && gpu->hbm_Bps > 0, 0);
    double t_s = MAX(num_ops / gpu->bf16_flops, (double)tensor_bytes / gpu->hbm_Bps);
    return (weft_time_t)llround(t_s * 1e12);
}

guint64
weft_workload_roofline(weft_workload_t *wl, const weft_hw_gpu_t *gpu)
{
    g_return_val_if_fail(wl != NULL, 0);
    guint64 n = 0;
    guint first_rank = 0, first_node = 0;
    for (guint r = 0; r < wl->n_ranks; r++) {
        weft_rank_trace_t *t = &wl->ranks[r];
        if (t->borrows_arrays) {
            continue; /* its arrays are another rank's, timed there */
        }
        for (guint i = 0; i < t->n_nodes; i++) {
            if (t->type[i] != WEFT_NODE_COMP || t->is_cpu_op[i] || t->duration_ps[i] != 0 ||
                (t->num_ops[i] <= 0 && t->tensor_bytes[i] == 0)) {
                continue;
            }
            if (n++ == 0) {
                first_rank = r;
                first_node = i;
            }
            if (gpu != NULL) {
                t->duration_ps[i] = weft_workload_roofline_ps(t->num_ops[i], t->tensor_bytes[i], gpu);
            }
        }
    }
    if (n == 0) {
        return 0;
    }
    const weft_rank_trace_t *f = &wl->ranks[first_rank];
    char *line;
    if (gpu != NULL) {
        line = g_strdup_printf(
            "%" G_GUINT64_FORMAT " compute node%s without a duration %s timed by a roofline on "
            "%s, max(num_ops / %.0f TFLOP/s dense BF16, tensor_size / %.3g TB/s HBM) (the first: "
            "%s: rank %u: node %" G_GUINT64_FORMAT " (%s), %.6f us)",
            n, n == 1 ? "" : "s", n == 1 ? "is" : "are", gpu->name, gpu->bf16_flops / 1e12,
            gpu->hbm_Bps / 1e12, f->file, first_rank, f->id[first_node], f->name[first_node],
            (double)f->duration_ps[first_node] / 1e6);
    } else {
        line = g_strdup_printf(
            "%" G_GUINT64_FORMAT " compute node%s %s num_ops or tensor_size but no duration, and "
            "the cluster has no single GPU model to time them by a roofline: they take 0 (the "
            "first: %s: rank %u: node %" G_GUINT64_FORMAT " (%s)); give the cluster a gpu "
            "(doc/clusters.md)",
            n, n == 1 ? "" : "s", n == 1 ? "has" : "have", f->file, first_rank, f->id[first_node],
            f->name[first_node]);
    }
    if (wl->warnings == NULL) {
        wl->warnings = g_ptr_array_new_with_free_func(g_free);
    }
    g_ptr_array_add(wl->warnings, line);
    return n;
}

guint64
weft_workload_astra_roofline(weft_workload_t *wl, double peak_flops, double mem_Bps,
                             const char *origin)
{
    g_return_val_if_fail(wl != NULL && peak_flops > 0 && mem_Bps > 0, 0);
    guint64 timed = 0, skipped = 0;
    for (guint r = 0; r < wl->n_ranks; r++) {
        weft_rank_trace_t *t = &wl->ranks[r];
        if (t->borrows_arrays) {
            continue; /* its arrays are another rank's, timed there */
        }
        for (guint i = 0; i < t->n_nodes; i++) {
            if (t->type[i] != WEFT_NODE_COMP || t->is_cpu_op[i]) {
                continue;
            }
            if (t->tensor_bytes[i] == 0) {
                t->duration_ps[i] = 0;
                skipped++;
                continue;
            }
            /* min(bw x I, peak) as Roofline::get_perf(), then num_ops / perf in whole ns */
            double intensity = t->num_ops[i] / (double)t->tensor_bytes[i];
            double perf = MIN(mem_Bps * intensity, peak_flops);
            double ns = perf > 0 ? floor(t->num_ops[i] / perf * 1e9) : 0.0;
            t->duration_ps[i] = (weft_time_t)MIN(ns * 1e3, 4e18);
            timed++;
        }
    }
    if (wl->warnings == NULL) {
        wl->warnings = g_ptr_array_new_with_free_func(g_free);
    }
    g_ptr_array_add(wl->warnings,
                    g_strdup_printf("%s: roofline-enabled: %" G_GUINT64_FORMAT " GPU compute "
                                    "node%s timed by ASTRA-sim's roofline, num_ops / min(%.6g GB/s "
                                    "x num_ops / tensor_size, %.6g TFLOP/s), whole ns, their "
                                    "durations ignored; %" G_GUINT64_FORMAT " without tensor_size "
                                    "take 0, as ASTRA-sim skips them",
                                    origin, timed, timed == 1 ? "" : "s", mem_Bps / 1e9,
                                    peak_flops / 1e12, skipped));
    return timed;
}
