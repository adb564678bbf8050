/* SPDX-License-Identifier: MIT */
/*
 * The kernel-level compute model (kernel.h): per-GPU calibration (measured
 * maximum achievable matmul rates and the shapes they were found at, the fitted
 * GEMM fixed time and pipeline fill, the fitted flash-attention efficiencies)
 * and the GEMM, attention and streaming times built on the catalog's SM
 * counts, peaks and streaming bandwidths.
 */
#define G_LOG_DOMAIN "weft-hw"

#include "hw/kernel.h"

#include "hw/kernel_private.h"

#include <math.h>

/* One GPU's calibration. */
typedef struct {
    const char *gpu; /* catalog name (weft_hw_gpu_t.name) */
    /* MAMF per dtype (FLOP/s; 0: none) and the m, n, k it was measured at: stas00/ml-engineering
     * compute/accelerator/README.md @744d01e MAMF table, as in ../shared/validation/
     * compute_peaks.csv (kind max_achievable) and compute_gemm.csv. */
    double mamf[WEFT_KERNEL_N_DTYPES];
    guint64 mamf_shape[WEFT_KERNEL_N_DTYPES][3];
    double t0_s;       /* GEMM fixed time */
    double fill_iters; /* GEMM pipeline fill + epilogue, main-loop iterations */
    double attn_e_fwd, attn_e_bwd, attn_fill_blocks;
} calib_t;

/* GEMM t0 and F: fitted (grid search of the mean |relative error|, t0 in 0.5 us steps, F in
 * halves) on the even rows of the XLA table (ROCm/xla matmul_interpolator_data.h @ea2c45f):
 * sm_90 rows for Hopper (5.5 us, 2.5), sm_100_B200 rows for Blackwell (6 us, 6). The A100 has no
 * such table: it takes the Hopper values (an assumption, not a fit; its one MAMF row pins e).
 * Attention: fitted on compute_attention.csv, mean |relative error| over a grid of e in 0.02
 * steps and F_attn in {0, 0.5, 1, 2, 3, 4}: Hopper on the flash-attn-3 rows (sm90-unspecified,
 * Dao-AILab/flash-attention PR 1791 and pytorch/benchmark PR 2296: fwd 0.66, bwd 0.58, F 2);
 * A100 on liangan1/GPU_travel's flash-attn-2 forward rows with seqlen_q = seqlen_kv (heads x
 * head_dim = 4096, taken as 32 x 128: fwd 0.58, F 0.5), its backward efficiency the Hopper
 * bwd/fwd ratio (no A100 backward row: 0.58 x 0.58 / 0.66 = 0.510); Blackwell on the
 * flash-attn-4 CuTe DSL 1-CTA rows of PR 2270/2280 (sm100-unspecified: fwd 0.68, bwd 0.48, F 0). */
static const calib_t calibs[] = {
    {"A100-SXM-80GB",
     {271.2e12, 0},
     {{1024, 10240, 5120}, {0, 0, 0}},
     5.5e-6,
     2.5,
     0.58,
     0.510,
     0.5},
    {"H100-SXM",
     {794.5e12, 1402.6e12},
     {{2048, 2048, 13312}, {1024, 9216, 14336}},
     5.5e-6,
     2.5,
     0.66,
     0.58,
     2.0},
    /* H200: the same GH100 compute; its BF16 MAMF is H100's (the source says so), FP8 its own. */
    {"H200-SXM",
     {794.5e12, 1453.4e12},
     {{2048, 2048, 13312}, {1280, 4096, 12032}},
     5.5e-6,
     2.5,
     0.66,
     0.58,
     2.0},
    {"B200-SXM",
     {1745.0e12, 3432.5e12},
     {{1792, 16128, 3072}, {15360, 4096, 3072}},
     6e-6,
     6.0,
     0.68,
     0.48,
     0.0},
    {"GB200",
     {1822.0e12, 3615.6e12},
     {{4096, 9728, 2048}, {19456, 5120, 1536}},
     6e-6,
     6.0,
     0.68,
     0.48,
     0.0},
};

/* Output-tile candidates (BM, BN). */
static const guint tiles[][2] = {{128, 256}, {256, 128}, {128, 128},
                                 {64, 128},  {128, 64},  {64, 64}};

/* Bytes of k a main-loop iteration loads per row: 128 (64 BF16 or 128 FP8 elements). */
#define K_STEP_BYTES 128.0
/* Attention key/value block and query block. */
#define ATTN_BM 128.0

static const calib_t *
calib_of(const weft_hw_gpu_t *gpu)
{
    for (gsize i = 0; i < G_N_ELEMENTS(calibs); i++) {
        if (g_ascii_strcasecmp(calibs[i].gpu, gpu->name) == 0) {
            return &calibs[i];
        }
    }
    return NULL;
}

static double
elem_bytes(weft_kernel_dtype_t dt)
{
    return dt == WEFT_KERNEL_FP8 ? 1.0 : 2.0;
}

static double
peak_of(const weft_hw_gpu_t *gpu, weft_kernel_dtype_t dt)
{
    return dt == WEFT_KERNEL_FP8 ? gpu->fp8_flops : gpu->bf16_flops;
}

gboolean
weft_kernel_supports(const weft_hw_gpu_t *gpu, weft_kernel_dtype_t dtype)
{
    g_return_val_if_fail(gpu != NULL && dtype < WEFT_KERNEL_N_DTYPES, FALSE);
    const calib_t *c = calib_of(gpu);
    return c != NULL && c->mamf[dtype] > 0 && peak_of(gpu, dtype) > 0 && gpu->sm_count > 0;
}

double
weft_kernel_mamf_flops(const weft_hw_gpu_t *gpu, weft_kernel_dtype_t dtype)
{
    return weft_kernel_supports(gpu, dtype) ? calib_of(gpu)->mamf[dtype] : 0;
}

/* The best tile's compute time of @g at main-loop efficiency 1 and clock 1 on @sms of the
 * GPU's SMs (each at the per-SM peak). */
static double
gemm_compute_unit_on(const weft_hw_gpu_t *gpu, const weft_kernel_gemm_t *g, double fill,
                     double sms)
{
    double rate_sm = peak_of(gpu, g->dtype) / gpu->sm_count;
    double bk = K_STEP_BYTES / elem_bytes(g->dtype);
    double iters = ceil((double)g->k / bk);
    double best = INFINITY;
    for (gsize i = 0; i < G_N_ELEMENTS(tiles); i++) {
        double bm = tiles[i][0], bn = tiles[i][1];
        double n_tiles = (double)g->batch * ceil((double)g->m / bm) * ceil((double)g->n / bn);
        double waves = ceil(n_tiles / sms);
        double t = waves * (iters + fill) * 2.0 * bm * bn * bk / rate_sm;
        best = MIN(best, t);
    }
    return best;
}

/* The same on every SM. */
static double
gemm_compute_unit_s(const weft_hw_gpu_t *gpu, const weft_kernel_gemm_t *g, double fill)
{
    return gemm_compute_unit_on(gpu, g, fill, gpu->sm_count);
}

/* e: the main loop's efficiency that makes the model give the MAMF rate at its shape, with the
 * fixed time @t0 and fill @fill. */
static double
main_loop_eff(const weft_hw_gpu_t *gpu, const calib_t *c, weft_kernel_dtype_t dt, double t0,
              double fill)
{
    const guint64 *s = c->mamf_shape[dt];
    weft_kernel_gemm_t at = {1, s[0], s[1], s[2], dt};
    double t = 2.0 * (double)s[0] * (double)s[1] * (double)s[2] / c->mamf[dt];
    return gemm_compute_unit_s(gpu, &at, fill) / (t - t0);
}

double
weft_kernel_gemm_bytes(const weft_kernel_gemm_t *g)
{
    g_return_val_if_fail(g != NULL, 0);
    double b = (double)g->batch, m = (double)g->m, n = (double)g->n, k = (double)g->k;
    return b * (m * k + k * n) * elem_bytes(g->dtype) + b * m * n * 2.0;
}

double
weft_kernel_i_gemm_s(const weft_hw_gpu_t *gpu, const weft_kernel_gemm_t *g, double clock,
                     double t0_s, double fill_iters)
{
    g_return_val_if_fail(gpu != NULL && g != NULL && clock > 0 && t0_s >= 0 && fill_iters >= 0, 0);
    g_return_val_if_fail(g->batch > 0 && g->m > 0 && g->n > 0 && g->k > 0, 0);
    g_return_val_if_fail(weft_kernel_supports(gpu, g->dtype), 0);
    const calib_t *c = calib_of(gpu);
    double e = main_loop_eff(gpu, c, g->dtype, t0_s, fill_iters);
    double t_comp = gemm_compute_unit_s(gpu, g, fill_iters) / (e * clock);
    double flops = 2.0 * (double)g->batch * (double)g->m * (double)g->n * (double)g->k;
    double t_ceiling = flops / (c->mamf[g->dtype] * clock);
    double t_mem = weft_kernel_gemm_bytes(g) / gpu->hbm_stream_Bps;
    return MAX(t0_s + MAX(t_comp, t_mem), t_ceiling);
}

double
weft_kernel_gemm_s(const weft_hw_gpu_t *gpu, const weft_kernel_gemm_t *g, double clock)
{
    g_return_val_if_fail(gpu != NULL && g != NULL, 0);
    g_return_val_if_fail(weft_kernel_supports(gpu, g->dtype), 0);
    const calib_t *c = calib_of(gpu);
    return weft_kernel_i_gemm_s(gpu, g, clock, c->t0_s, c->fill_iters);
}

double
weft_kernel_gemm_on_s(const weft_hw_gpu_t *gpu, const weft_kernel_gemm_t *g, double clock,
                      guint sms)
{
    g_return_val_if_fail(gpu != NULL && g != NULL && clock > 0, 0);
    g_return_val_if_fail(weft_kernel_supports(gpu, g->dtype), 0);
    g_return_val_if_fail(g->batch > 0 && g->m > 0 && g->n > 0 && g->k > 0, 0);
    if (sms == 0 || sms >= gpu->sm_count) {
        return weft_kernel_gemm_s(gpu, g, clock);
    }
    const calib_t *c = calib_of(gpu);
    /* e is the whole GPU's (its calibration); the waves, and the MAMF ceiling's share, are
     * those of @sms SMs; HBM is shared by every SM, so its bound stays */
    double e = main_loop_eff(gpu, c, g->dtype, c->t0_s, c->fill_iters);
    double t_comp = gemm_compute_unit_on(gpu, g, c->fill_iters, sms) / (e * clock);
    double flops = 2.0 * (double)g->batch * (double)g->m * (double)g->n * (double)g->k;
    double share = (double)sms / gpu->sm_count;
    double t_ceiling = flops / (c->mamf[g->dtype] * share * clock);
    double t_mem = weft_kernel_gemm_bytes(g) / gpu->hbm_stream_Bps;
    return MAX(c->t0_s + MAX(t_comp, t_mem), t_ceiling);
}

double
weft_kernel_attn_flops(const weft_kernel_attn_t *a)
{
    g_return_val_if_fail(a != NULL, 0);
    double sq = (double)a->seq_q, skv = (double)a->seq_kv;
    double area = a->causal ? (sq <= skv ? sq * skv - sq * sq / 2.0 : skv * skv / 2.0) : sq * skv;
    double fwd = 4.0 * (double)a->batch * (double)a->heads * (double)a->head_dim * area;
    return a->bwd ? 2.5 * fwd : fwd;
}

double
weft_kernel_attn_bytes(const weft_kernel_attn_t *a)
{
    g_return_val_if_fail(a != NULL, 0);
    double d = (double)a->head_dim, b = (double)a->batch;
    double fwd =
        2.0 * b * d * (2.0 * (double)a->seq_q * a->heads + 2.0 * (double)a->seq_kv * a->kv_heads);
    return a->bwd ? 2.0 * fwd : fwd;
}

double
weft_kernel_attn_s(const weft_hw_gpu_t *gpu, const weft_kernel_attn_t *a, double clock)
{
    g_return_val_if_fail(gpu != NULL && a != NULL && clock > 0, 0);
    g_return_val_if_fail(
        a->batch > 0 && a->heads > 0 && a->head_dim > 0 && a->seq_q > 0 && a->seq_kv > 0, 0);
    g_return_val_if_fail(weft_kernel_supports(gpu, WEFT_KERNEL_BF16), 0);
    const calib_t *c = calib_of(gpu);
    double sms = gpu->sm_count;
    double bn = a->head_dim > 128 ? 64.0 : 128.0;
    double nq = ceil((double)a->seq_q / ATTN_BM), nk = ceil((double)a->seq_kv / bn);
    double bh = (double)a->batch * (double)a->heads;
    double units = 0, longest = 0;
    if (a->causal) {
        /* Query block i ends at row (seq_kv - seq_q) + (i + 1) BM of the keys; a block wider
         * than the keys stops at seq_kv. */
        for (double i = 0; i < nq; i++) {
            double last = (double)a->seq_kv - (double)a->seq_q + (i + 1) * ATTN_BM;
            double u = MIN(nk, MAX(1.0, ceil(last / bn)));
            units += u;
            longest = MAX(longest, u);
        }
    } else {
        units = nq * nk;
        longest = nk;
    }
    units *= bh;
    double ctas = nq * bh;
    double per_sm = MAX(units / sms, longest) + c->attn_fill_blocks * ceil(ctas / sms);
    double t_unit = 4.0 * ATTN_BM * bn * (double)a->head_dim / (gpu->bf16_flops / sms);
    double t = a->bwd ? 2.5 * per_sm * t_unit / (c->attn_e_bwd * clock)
                      : per_sm * t_unit / (c->attn_e_fwd * clock);
    return MAX(t, weft_kernel_attn_bytes(a) / gpu->hbm_stream_Bps);
}

double
weft_kernel_stream_s(const weft_hw_gpu_t *gpu, double bytes)
{
    g_return_val_if_fail(gpu != NULL && gpu->hbm_stream_Bps > 0, 0);
    return bytes > 0 ? bytes / gpu->hbm_stream_Bps : 0;
}
