/* SPDX-License-Identifier: MIT */
/*
 * The kernel model's GEMM with its fitted constants as arguments, for the
 * calibration tests (tests/check_kernel.c re-runs the fit and applies one
 * architecture's constants to another's measurements). Not for models: they
 * call weft_kernel_gemm_s(), which passes the GPU's own calibration.
 */
#ifndef WEFT_HW_KERNEL_PRIVATE_H
#define WEFT_HW_KERNEL_PRIVATE_H

#include "hw/kernel.h"

G_BEGIN_DECLS

/**
 * weft_kernel_i_gemm_s:
 * weft_kernel_gemm_s() with the fixed time @t0_s (seconds) and the pipeline
 * fill @fill_iters (main-loop iterations) given instead of @gpu's calibration;
 * the main loop's efficiency is solved again from @gpu's MAMF with them.
 */
double weft_kernel_i_gemm_s(const weft_hw_gpu_t *gpu, const weft_kernel_gemm_t *g, double clock,
                            double t0_s, double fill_iters);

G_END_DECLS

#endif /* WEFT_HW_KERNEL_PRIVATE_H */
