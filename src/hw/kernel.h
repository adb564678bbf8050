/* SPDX-License-Identifier: MIT */
/*
 * The kernel-level compute model: how long one GEMM, one fused (flash)
 * attention kernel or one memory-bound kernel takes on a GPU of the catalog.
 *
 * GEMM (C[m,n] = A[m,k] B[k,n], `batch` times). A cuBLAS/CUTLASS kernel cuts C
 * into output tiles of BM x BN, one thread block (CTA) per tile, one CTA per SM
 * at a time (the large tiles use the whole shared memory), and walks k in steps
 * of BK (128 bytes of k: 64 BF16 or 128 FP8 elements, the TMA/cp.async box of
 * the Hopper and Ampere kernels). With S SMs and a per-SM rate R = peak / S:
 *
 *   tiles  = batch ceil(m / BM) ceil(n / BN)          (tile-edge waste: the
 *   waves  = ceil(tiles / S)                            last row and column of
 *   iters  = ceil(k / BK)                               tiles compute in full)
 *   t_comp = waves (iters + F) 2 BM BN BK / (R e c)     (wave quantization)
 *   t_mem  = (batch (m k + k n) s_in + batch m n s_out) / HBM_stream
 *   t      = t0 + max(min over tiles of t_comp, t_mem), and never faster than
 *            2 batch m n k / (MAMF c)
 *
 * F is the k-pipeline fill and epilogue of one tile in main-loop iterations
 * (the prologue loads stages before the first MMA, the epilogue writes C): it
 * makes short-k GEMMs slow. t0 is the fixed time of a kernel (launch ramp, the
 * first wave's start, the tail), which dominates tiny GEMMs. The tile is the
 * best of the candidates 128x256, 256x128, 128x128, 64x128, 128x64, 64x64
 * (cuBLAS's heuristics pick among such shapes; split-K and stream-K are not
 * modelled: their error shows on the small-m,n, long-k rows, doc/workloads.md).
 * e, the main loop's fraction of the tensor-core peak, is not a free constant:
 * it is solved so that the model gives exactly the measured maximum achievable
 * matmul rate (MAMF, ../shared/validation/compute_peaks.csv) at the shape where
 * it was measured; MAMF is also the ceiling. c is the caller's clock fraction
 * (a training run's sustained clock against the benchmark's; 1 for the
 * benchmark itself) and scales the compute rates only.
 *
 * t0 and F are fitted per GPU architecture on half of the XLA measured matmul
 * table's rows of that architecture (ROCm/xla
 * xla/service/gpu/model/matmul_interpolator_data.h @ea2c45f, in
 * compute_gemm.csv: keys sm_90 and sm_100_B200, every even row of a GPU in file
 * order); tests/check_kernel.c reports the error on the other half and on the
 * architecture not fitted.
 *
 * Attention (flash attention 2/3 as Dao et al. 2022/2024 structure it): a CTA
 * per (batch, head, block of BM = 128 query rows); it walks the key/value
 * blocks of BN = 128 columns (64 when head_dim > 128); causal masking skips the
 * blocks above the diagonal. With U the key blocks all CTAs walk and L the
 * longest CTA's:
 *   per SM  = max(U / S, L) + F_attn ceil(CTAs / S)   (blocks)
 *   t_fwd   = per SM 4 BM BN d / (R e_fwd c)
 *   t_bwd   = 2.5 per SM 4 BM BN d / (R e_bwd c)      (the benchmarks' 2.5 x FLOPs)
 * and never below the bytes of Q, K, V, O (and their gradients) over the
 * streaming bandwidth. e_fwd, e_bwd and F_attn are fitted per GPU on the
 * compute_attention.csv rows of the implementation a training run uses there
 * (H100/H200: flash-attn-3; A100: flash-attn-2; B200: flash-attn-4).
 *
 * Memory-bound kernels (norms, residuals, casts, optimizer): bytes over the
 * measured streaming bandwidth of the part (weft_hw_gpu_t.hbm_stream_Bps).
 *
 * All functions are pure, thread-safe and O(1) (a few tile candidates).
 */
#ifndef WEFT_HW_KERNEL_H
#define WEFT_HW_KERNEL_H

#include <glib.h>

#include "hw/hw.h"

G_BEGIN_DECLS

/** The element type of a GEMM's inputs (its output is BF16 in both). */
typedef enum {
    WEFT_KERNEL_BF16, /* 2-byte inputs, BF16 tensor-core peak */
    WEFT_KERNEL_FP8,  /* 1-byte E4M3/E5M2 inputs, FP8 tensor-core peak */
    WEFT_KERNEL_N_DTYPES,
} weft_kernel_dtype_t;

/** One (batched) GEMM: C[m,n] = A[m,k] B[k,n], @batch independent times. */
typedef struct {
    guint64 batch, m, n, k;
    weft_kernel_dtype_t dtype;
} weft_kernel_gemm_t;

/** One fused attention kernel (BF16): @heads query heads, @kv_heads key/value heads. */
typedef struct {
    guint64 batch, heads, kv_heads, head_dim;
    guint64 seq_q, seq_kv; /* query rows and key columns per (batch, head) */
    gboolean causal;       /* lower-triangular mask, the queries aligned to the keys' end */
    gboolean bwd;          /* the backward kernel (dQ, dK, dV), else the forward */
} weft_kernel_attn_t;

/**
 * weft_kernel_supports:
 * Returns: TRUE when @gpu has a calibration for @dtype (FP8: a tensor-core FP8
 * peak and a measured FP8 MAMF; every catalog GPU has BF16).
 */
gboolean weft_kernel_supports(const weft_hw_gpu_t *gpu, weft_kernel_dtype_t dtype);

/**
 * weft_kernel_mamf_flops:
 * Returns: the maximum achievable matmul rate (FLOP/s) of @gpu in @dtype, the
 * model's ceiling (compute_peaks.csv kind=max_achievable; H200 BF16 is the H100
 * figure, which the source says is the same), or 0 when not supported.
 */
double weft_kernel_mamf_flops(const weft_hw_gpu_t *gpu, weft_kernel_dtype_t dtype);

/**
 * weft_kernel_gemm_s:
 * @gpu: a catalog GPU; @g: the shape (m, n, k >= 1; batch >= 1);
 * @clock: fraction (0, 1] of the benchmark clock the compute runs at.
 * Returns: the kernel's time in seconds (formula above). A dtype @gpu does not
 * support is a programming error (returns 0 after a critical warning).
 */
double weft_kernel_gemm_s(const weft_hw_gpu_t *gpu, const weft_kernel_gemm_t *g, double clock);

/**
 * weft_kernel_gemm_on_s:
 * @gpu, @g, @clock: as weft_kernel_gemm_s();
 * @sms: the SMs the GEMM may use (a communication kernel holds the others:
 *   Transformer Engine's userbuffers overlap launches its GEMMs with an SM margin,
 *   set_sm_margin); 0 or the GPU's count: all of them.
 * Returns: the kernel's time in seconds with weft_kernel_gemm_s()'s formula on
 * @sms SMs: the same main-loop efficiency e (the whole GPU's calibration), waves
 * of @sms SMs at the per-SM peak, the MAMF ceiling scaled by @sms / SMs, and the
 * same HBM bound (the SMs share the memory). Never below weft_kernel_gemm_s().
 * O(1).
 */
double weft_kernel_gemm_on_s(const weft_hw_gpu_t *gpu, const weft_kernel_gemm_t *g, double clock,
                             guint sms);

/** weft_kernel_gemm_bytes: HBM bytes of the GEMM's operands: A and B read, C written (BF16). */
double weft_kernel_gemm_bytes(const weft_kernel_gemm_t *g);

/**
 * weft_kernel_attn_s:
 * @a: the attention shape (every size >= 1; heads a multiple of kv_heads).
 * Returns: the time in seconds of the forward or backward kernel (formula above).
 */
double weft_kernel_attn_s(const weft_hw_gpu_t *gpu, const weft_kernel_attn_t *a, double clock);

/**
 * weft_kernel_attn_flops:
 * Returns: the FLOPs of @a as the flash-attention benchmarks count them (the
 * convention of compute_attention.csv): forward 4 batch heads seq_q seq_kv
 * head_dim, halved when causal (for seq_q = seq_kv; else the unmasked area),
 * backward 2.5 x that.
 */
double weft_kernel_attn_flops(const weft_kernel_attn_t *a);

/** weft_kernel_attn_bytes: HBM bytes of @a: Q, K, V read and O written (BF16); x 2 backward. */
double weft_kernel_attn_bytes(const weft_kernel_attn_t *a);

/** weft_kernel_stream_s: seconds a memory-bound kernel moving @bytes takes on @gpu. */
double weft_kernel_stream_s(const weft_hw_gpu_t *gpu, double bytes);

G_END_DECLS

#endif /* WEFT_HW_KERNEL_H */
