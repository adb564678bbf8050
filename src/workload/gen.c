/* SPDX-License-Identifier: MIT */
/*
 * The transformer training-step generator (gen.h): model presets, validation
 * of the parallel configuration, the per-GPU memory estimate, the GEMM shapes
 * timed by the kernel model (hw/kernel.h), and the expansion of one Megatron-LM
 * step (1F1B or interleaved pipeline schedule, tensor/sequence, context, expert
 * and data parallelism, recomputation) into a weft_workload_t whose ranks of one
 * pipeline stage share node arrays, as text workloads do.
 */
#define G_LOG_DOMAIN "weft-workload"

#include "workload/gen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/keyfile.h"
#include "core/output.h"
#include "hw/kernel.h"
#include "workload/chakra.h"
#include "workload/seq.h"

/* ---- presets ------------------------------------------------------------------ */

typedef struct {
    const char *name;
    guint layers, hidden, heads, kv_heads, ffn, vocab, seq, experts, top_k;
    gboolean gated;
} preset_t;

/* GPT-3: Brown et al. 2020, Table 2.1 (FFN 4h, seq 2048; vocab 50257 padded to 51200 by
 * Megatron-LM). Llama 2: Touvron et al. 2023 (70B: GQA 8 KV heads, FFN 28672, seq 4096).
 * Llama 3 / 3.1: Meta model cards and "The Llama 3 Herd of Models" Table 3 (vocab 128256,
 * seq 8192; 405B: 126 layers, 16384 hidden, 128 heads, 8 KV heads, FFN 53248).
 * Mixtral 8x7B: Jiang et al. 2024 (32 layers, 4096 hidden, 32 heads, 8 KV, FFN 14336, 8
 * experts, top-2, vocab 32000, seq 4096 as trained in Megatron examples). */
static const preset_t presets[] = {
    {"gpt3-1.3b", 24, 2048, 16, 16, 8192, 51200, 2048, 0, 0, FALSE},
    {"gpt3-2.7b", 32, 2560, 32, 32, 10240, 51200, 2048, 0, 0, FALSE},
    {"gpt3-6.7b", 32, 4096, 32, 32, 16384, 51200, 2048, 0, 0, FALSE},
    {"gpt3-13b", 40, 5120, 40, 40, 20480, 51200, 2048, 0, 0, FALSE},
    {"gpt3-175b", 96, 12288, 96, 96, 49152, 51200, 2048, 0, 0, FALSE},
    {"llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096, 0, 0, TRUE},
    {"llama2-13b", 40, 5120, 40, 40, 13824, 32000, 4096, 0, 0, TRUE},
    {"llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096, 0, 0, TRUE},
    {"llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192, 0, 0, TRUE},
    {"llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192, 0, 0, TRUE},
    {"llama3.1-8b", 32, 4096, 32, 8, 14336, 128256, 8192, 0, 0, TRUE},
    {"llama3.1-70b", 80, 8192, 64, 8, 28672, 128256, 8192, 0, 0, TRUE},
    {"llama3.1-405b", 126, 16384, 128, 8, 53248, 128256, 8192, 0, 0, TRUE},
    {"mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 4096, 8, 2, TRUE},
};

const char *const *
weft_gen_preset_names(void)
{
    static const char *const names[] = {
        "gpt3-1.3b",   "gpt3-2.7b",    "gpt3-6.7b",     "gpt3-13b",     "gpt3-175b",
        "llama2-7b",   "llama2-13b",   "llama2-70b",    "llama3-8b",    "llama3-70b",
        "llama3.1-8b", "llama3.1-70b", "llama3.1-405b", "mixtral-8x7b", NULL};
    return names;
}

gboolean
weft_gen_preset(const char *name, weft_gen_config_t *cfg, GError **error)
{
    g_return_val_if_fail(name != NULL && cfg != NULL, FALSE);
    for (gsize i = 0; i < G_N_ELEMENTS(presets); i++) {
        const preset_t *p = &presets[i];
        if (g_ascii_strcasecmp(p->name, name) != 0) {
            continue;
        }
        memset(cfg, 0, sizeof(*cfg));
        cfg->layers = p->layers;
        cfg->hidden = p->hidden;
        cfg->heads = p->heads;
        cfg->kv_heads = p->kv_heads;
        cfg->ffn = p->ffn;
        cfg->vocab = p->vocab;
        cfg->seq = p->seq;
        cfg->experts = p->experts;
        cfg->top_k = p->top_k;
        cfg->gated = p->gated;
        cfg->tp = cfg->pp = cfg->dp = cfg->cp = cfg->ep = cfg->vpp = 1;
        cfg->micro_batch = cfg->global_batch = 1;
        cfg->overlap_dp = TRUE;
        cfg->pp_scatter_gather = TRUE;
        cfg->lora_rank = WEFT_GEN_LORA_RANK_DEFAULT;
        return TRUE;
    }
    g_autofree char *list = g_strjoinv(", ", (char **)weft_gen_preset_names());
    g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                "model '%s' is not a preset (%s); give --layers, --hidden, ... instead", name,
                list);
    return FALSE;
}

/* ---- validation ------------------------------------------------------------------ */

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE, __VA_ARGS__);           \
        return FALSE;                                                                              \
    } while (0)

/* The divisions weft_gen_chunk_layers() needs to give whole layers to every virtual stage
 * (Megatron-LM's get_transformer_layer_offset divides the same way, gen.h); the two ways of
 * splitting unevenly are exclusive. */
static gboolean
check_stage_layers(const weft_gen_config_t *c, GError **error)
{
    guint pp = c->pp, vpp = c->vpp, F = c->first_stage_layers, L = c->last_stage_layers;
    gboolean explicit_ = F > 0 || L > 0, account = c->account_embedding || c->account_loss;
    if (explicit_ && account) {
        FAIL("first-stage-layers / last-stage-layers and account-embedding / account-loss "
             "both split the pipeline: give one or the other");
    }
    if (explicit_) {
        guint given = (F > 0) + (L > 0);
        if (pp < 2) {
            FAIL("first-stage-layers %u / last-stage-layers %u need pp > 1 (pp is %u)", F, L, pp);
        }
        if ((guint64)F + L > c->layers) {
            FAIL("first-stage-layers %u + last-stage-layers %u exceed layers %u", F, L, c->layers);
        }
        guint middle = pp - given, rest = c->layers - F - L;
        if (F % vpp != 0 || L % vpp != 0) {
            FAIL("vpp %u does not divide first-stage-layers %u and last-stage-layers %u", vpp, F,
                 L);
        }
        if (middle == 0 ? rest != 0 : rest % (middle * vpp) != 0) {
            FAIL("the %u layers outside the first and last stages (layers %u - %u - %u) do not "
                 "divide evenly over the other %u stages x vpp %u",
                 rest, c->layers, F, L, middle, vpp);
        }
        return TRUE;
    }
    guint total = c->layers + (c->account_embedding ? 1 : 0) + (c->account_loss ? 1 : 0);
    if (total % (pp * vpp) != 0) {
        if (account) {
            FAIL("pp %u x vpp %u = %u does not divide layers %u + %u (the embedding and loss "
                 "counted as layers: account-embedding, account-loss) = %u",
                 pp, vpp, pp * vpp, c->layers, total - c->layers, total);
        }
        FAIL("pp %u x vpp %u = %u does not divide layers %u (uneven stages: set "
             "account-embedding and account-loss, or first-stage-layers / last-stage-layers)",
             pp, vpp, pp * vpp, c->layers);
    }
    return TRUE;
}

guint
weft_gen_zero_stage(const weft_gen_config_t *c)
{
    g_return_val_if_fail(c != NULL, 0);
    if (c->fsdp != WEFT_GEN_FSDP_NONE) {
        return 3;
    }
    return MAX(c->zero, c->dist_opt ? 1u : 0u);
}

/* ZeRO stages, FSDP and fine-tuning: the combinations weft models (gen.h, doc/workloads.md). */
static gboolean
check_sharding(const weft_gen_config_t *c, GError **error)
{
    if (c->zero > 3) {
        FAIL("zero %u: the ZeRO stages are 0, 1, 2 and 3", c->zero);
    }
    if (c->dist_opt && c->zero > 1) {
        FAIL("dist-opt (Megatron's distributed optimizer, ZeRO-1) and zero %u: give zero alone",
             c->zero);
    }
    if (c->fsdp != WEFT_GEN_FSDP_NONE && (c->dist_opt || (c->zero != 0 && c->zero != 3))) {
        FAIL("fsdp %s is ZeRO-3; it cannot run with zero %u%s",
             weft_enum_name(&weft_gen_fsdp_enum, (gint)c->fsdp), c->zero,
             c->dist_opt ? " and dist-opt" : "");
    }
    guint64 dpcp = (guint64)c->dp * c->cp;
    if (c->fsdp == WEFT_GEN_FSDP_HYBRID) {
        if (c->fsdp_shard_group < 1) {
            FAIL("fsdp hybrid needs fsdp-shard-group (the ranks of a shard group; it must divide "
                 "dp %u x cp %u = %" G_GUINT64_FORMAT ")",
                 c->dp, c->cp, dpcp);
        }
        if (dpcp % c->fsdp_shard_group != 0) {
            FAIL("fsdp-shard-group %u does not divide dp %u x cp %u = %" G_GUINT64_FORMAT
                 " (fsdp hybrid)",
                 c->fsdp_shard_group, c->dp, c->cp, dpcp);
        }
    } else if (c->fsdp_shard_group != 0) {
        FAIL("fsdp-shard-group %u is only for fsdp hybrid (fsdp is %s)", c->fsdp_shard_group,
             weft_enum_name(&weft_gen_fsdp_enum, (gint)c->fsdp));
    }
    guint z = weft_gen_zero_stage(c);
    if (z == 3 && c->experts > 1) {
        FAIL("zero 3 / fsdp with experts %u: sharded expert weights are not modelled (use zero "
             "2 or less)",
             c->experts);
    }
    if (c->finetune != WEFT_GEN_FINETUNE_FULL) {
        const char *ft = weft_enum_name(&weft_gen_finetune_enum, (gint)c->finetune);
        if (c->lora_rank == 0) {
            FAIL("finetune %s: lora-rank is 0; it must be at least 1 (PEFT's default: %u)", ft,
                 WEFT_GEN_LORA_RANK_DEFAULT);
        }
        if (c->experts > 1) {
            FAIL("finetune %s with experts %u: adapters on MoE layers are not modelled", ft,
                 c->experts);
        }
        if (z >= 2) {
            FAIL("finetune %s with zero %u%s: sharded LoRA is not modelled (zero 0 or 1, "
                 "dist-opt)",
                 ft, z, c->fsdp != WEFT_GEN_FSDP_NONE ? " (fsdp)" : "");
        }
    }
    return TRUE;
}

guint
weft_gen_chunk_layers(const weft_gen_config_t *c, guint v)
{
    g_return_val_if_fail(c != NULL && c->pp > 0 && c->vpp > 0, 0);
    guint pp = c->pp, vpp = c->vpp, V = pp * vpp, p = v % pp;
    g_return_val_if_fail(v < V, 0);
    guint F = c->first_stage_layers, L = c->last_stage_layers;
    if (F > 0 || L > 0) {
        guint middle = pp - (F > 0) - (L > 0);
        guint per_middle = middle > 0 ? (c->layers - F - L) / middle : 0;
        guint stage = p == 0 && F > 0 ? F : p == pp - 1 && L > 0 ? L : per_middle;
        return stage / vpp;
    }
    guint total = c->layers + (c->account_embedding ? 1 : 0) + (c->account_loss ? 1 : 0);
    guint n = total / V;
    n -= v == 0 && c->account_embedding ? 1 : 0;
    n -= v == V - 1 && c->account_loss ? 1 : 0;
    return n;
}

/* The most ranks a step may have: the most GPUs a weft cluster holds (the cluster builders'
 * and the ASTRA-sim YAML reader's limit, 2^20; 2^20 ranks of a 2-layer step take 4.7 s and
 * 0.6 GB). More (dp = 100000000) used to be generated, for minutes and GBs, before any
 * cluster refused it (found with tests/fuzz/fuzz_gen_spec). Under the fuzzer 2^16. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define MAX_RANKS (1u << 16)
#else
#define MAX_RANKS (1u << 20)
#endif
/* The most layers x micro-batches of a step, over all stages (the node count grows with
 * it, about 20 nodes each): 2^20 takes 22 s and 1.6 GB to generate (-O2); the largest
 * published runs are far below it (GPT-3 175B, 96 layers x 96 micro-batches: 9,216; Llama
 * 3.1 405B, 126 x 64: 8,064). layers = 10^8 or global_batch = 10^8 used to run for minutes.
 * Under the fuzzer (./configure --enable-fuzz) 2^14, so that every input runs within the
 * harness's 10 s. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define MAX_LAYER_MICRO_BATCHES (1u << 14)
#else
#define MAX_LAYER_MICRO_BATCHES (1u << 20)
#endif

gboolean
weft_gen_validate(const weft_gen_config_t *c, guint n_ranks, GError **error)
{
    g_return_val_if_fail(c != NULL, FALSE);
    struct {
        const char *name;
        guint v;
    } positive[] = {{"layers", c->layers},
                    {"hidden", c->hidden},
                    {"heads", c->heads},
                    {"kv-heads", c->kv_heads},
                    {"ffn", c->ffn},
                    {"vocab", c->vocab},
                    {"seq", c->seq},
                    {"tp", c->tp},
                    {"pp", c->pp},
                    {"dp", c->dp},
                    {"cp", c->cp},
                    {"ep", c->ep},
                    {"vpp", c->vpp},
                    {"micro-batch", c->micro_batch},
                    {"global-batch", c->global_batch}};
    for (gsize i = 0; i < G_N_ELEMENTS(positive); i++) {
        if (positive[i].v == 0) {
            FAIL("%s is 0; it must be at least 1", positive[i].name);
        }
    }
    if (c->hidden % c->heads != 0) {
        FAIL("heads %u do not divide hidden %u", c->heads, c->hidden);
    }
    if (c->heads % c->kv_heads != 0) {
        FAIL("kv-heads %u do not divide heads %u", c->kv_heads, c->heads);
    }
    if (c->heads % c->tp != 0) {
        FAIL("tp %u does not divide heads %u", c->tp, c->heads);
    }
    if (c->kv_heads % c->tp != 0 && c->tp % c->kv_heads != 0) {
        FAIL("tp %u and kv-heads %u: one must divide the other", c->tp, c->kv_heads);
    }
    if (c->ffn % c->tp != 0) {
        FAIL("tp %u does not divide ffn %u", c->tp, c->ffn);
    }
    if (c->vocab % c->tp != 0) {
        FAIL("tp %u does not divide vocab %u (pad the vocabulary)", c->tp, c->vocab);
    }
    if (c->sp && c->tp == 1) {
        FAIL("sequence parallelism needs tp > 1 (tp is 1)");
    }
    if (!check_stage_layers(c, error)) {
        return FALSE;
    }
    if (c->tp_overlap && !c->sp) {
        FAIL("tp-overlap (userbuffers) needs sequence parallelism: set sp (tp is %u)", c->tp);
    }
    if (c->unfused_attention && c->cp > 1) {
        FAIL("context parallelism (cp %u) needs fused attention (ring attention)", c->cp);
    }
    if (c->vpp > 1 && c->pp == 1) {
        FAIL("vpp %u (interleaved schedule) needs pp > 1", c->vpp);
    }
    if (c->seq % (2 * c->cp) != 0 && c->cp > 1) {
        FAIL("2 x cp %u does not divide seq %u (ring attention's load-balanced halves)", c->cp,
             c->seq);
    }
    if ((c->seq / c->cp) * c->micro_batch % (c->sp ? c->tp : 1) != 0) {
        FAIL("tp %u does not divide the %u tokens of a micro-batch (sequence parallelism)", c->tp,
             c->seq / c->cp * c->micro_batch);
    }
    gboolean moe = c->experts > 1;
    if (!moe && c->ep > 1) {
        FAIL("ep %u needs experts > 1 (experts is %u)", c->ep, c->experts);
    }
    if (moe) {
        if (c->top_k == 0 || c->top_k > c->experts) {
            FAIL("top-k %u must be in 1..experts %u", c->top_k, c->experts);
        }
        if (c->experts % c->ep != 0) {
            FAIL("ep %u does not divide experts %u", c->ep, c->experts);
        }
        if (c->dp % c->ep != 0) {
            FAIL("ep %u does not divide dp %u (expert groups are made of data-parallel ranks)",
                 c->ep, c->dp);
        }
    }
    if (!check_sharding(c, error)) {
        return FALSE;
    }
    /* in 64 bits: micro-batch 65536 x dp 65536 wrapped to 0 in 32, and the remainder below
     * divided by it (SIGFPE; found with tests/fuzz/fuzz_gen_spec) */
    guint64 per_step = (guint64)c->micro_batch * c->dp;
    if (c->global_batch % per_step != 0) {
        FAIL("global-batch %u is not a multiple of micro-batch %u x dp %u", c->global_batch,
             c->micro_batch, c->dp);
    }
    guint m = (guint)(c->global_batch / per_step);
    if ((guint64)c->layers * m > MAX_LAYER_MICRO_BATCHES) {
        FAIL("layers %u x %u micro-batches (global-batch %u / (micro-batch %u x dp %u)) = "
             "%" G_GUINT64_FORMAT " is more than weft generates: at most %u",
             c->layers, m, c->global_batch, c->micro_batch, c->dp, (guint64)c->layers * m,
             MAX_LAYER_MICRO_BATCHES);
    }
    if (c->vpp > 1 && m % c->pp != 0) {
        FAIL("interleaved schedule: %u micro-batches (global-batch %u / (micro-batch %u x dp %u)) "
             "are not a multiple of pp %u",
             m, c->global_batch, c->micro_batch, c->dp, c->pp);
    }
    guint64 world = (guint64)c->tp * c->pp * c->dp * c->cp;
    if (world > MAX_RANKS) {
        FAIL("tp x pp x dp x cp = %" G_GUINT64_FORMAT " ranks are more than any cluster holds: "
             "at most %u",
             world, MAX_RANKS);
    }
    if (n_ranks != 0 && world != n_ranks) {
        FAIL("ranks %u != tp %u x pp %u x dp %u x cp %u = %" G_GUINT64_FORMAT, n_ranks, c->tp,
             c->pp, c->dp, c->cp, world);
    }
    return TRUE;
}

/* ---- sizes, memory and operator times --------------------------------------------- */

/* Parameters of one layer: attention (QKV and projection), MLP or experts, router. */
static void
layer_params(const weft_gen_config_t *c, double *dense, double *expert)
{
    double h = c->hidden, d = (double)c->hidden / c->heads;
    double attn = h * (h + 2.0 * c->kv_heads * d) + h * h + 2 * h; /* + 2 norms */
    double mlp = h * c->ffn * (c->gated ? 3.0 : 2.0);
    if (c->experts > 1) {
        *dense = attn + h * c->experts; /* router */
        *expert = mlp * c->experts;
    } else {
        *dense = attn + mlp;
        *expert = 0;
    }
}

/* The linear layers of a transformer layer as lin_t values name them. */
typedef enum { LIN_QKV, LIN_PROJ, LIN_FC1, LIN_FC2, LIN_N } lin_id_t;

/* The LoRA adapters of linear layer @id on one TP rank: @ad[i] = {in, out} local features of
 * adapter i (its A is in x r, its B r x out); returns how many (0 when finetune is full or the
 * layer is not a target). Column-parallel layers (QKV, FC1) keep A whole and split B, row-
 * parallel ones (projection, FC2) split A and keep B whole. QKV holds three matrices: q
 * (h -> h), k and v (h -> g d); a gated FC1 two (gate and up, h -> f). */
static guint
lin_adapters(const weft_gen_config_t *c, lin_id_t id, guint64 ad[3][2])
{
    if (c->finetune == WEFT_GEN_FINETUNE_FULL) {
        return 0;
    }
    gboolean all = c->lora_targets == WEFT_GEN_LORA_ALL;
    guint64 h = c->hidden, t = c->tp, d = c->hidden / c->heads;
    guint64 kv = MAX((guint64)c->kv_heads * d / t, d); /* KV heads replicated when g < tp */
    guint n = 0;
    switch (id) {
    case LIN_QKV:
        ad[n][0] = h, ad[n++][1] = h / t; /* q */
        if (all) {
            ad[n][0] = h, ad[n++][1] = kv; /* k */
        }
        ad[n][0] = h, ad[n++][1] = kv; /* v */
        break;
    case LIN_PROJ:
        if (all) {
            ad[n][0] = h / t, ad[n++][1] = h;
        }
        break;
    case LIN_FC1:
        for (guint k = 0; all && k < (c->gated ? 2u : 1u); k++) {
            ad[n][0] = h, ad[n++][1] = c->ffn / t;
        }
        break;
    case LIN_FC2:
        if (all) {
            ad[n][0] = c->ffn / t, ad[n++][1] = h;
        }
        break;
    default:
        g_assert_not_reached();
    }
    return n;
}

double
weft_gen_trainable_layer_params(const weft_gen_config_t *c)
{
    g_return_val_if_fail(c != NULL && c->tp > 0 && c->heads > 0, 0);
    if (c->finetune == WEFT_GEN_FINETUNE_FULL) {
        double dense = 0, expert = 0;
        layer_params(c, &dense, &expert);
        return dense / c->tp;
    }
    double n = 0;
    for (guint id = 0; id < LIN_N; id++) {
        guint64 ad[3][2];
        guint k = lin_adapters(c, (lin_id_t)id, ad);
        for (guint i = 0; i < k; i++) {
            n += (double)c->lora_rank * (double)(ad[i][0] + ad[i][1]);
        }
    }
    return n;
}

/* The model states of one rank holding @dense dense and @expert expert local parameters
 * (frozen base ones with lora / qlora: @dense and @expert are then the base's, the adapters
 * counted from @layers transformer layers) into @out (bytes per category). Megatron-LM's
 * mixed precision (18 bytes per parameter: BF16 weights, FP32 main_grad, master and Adam;
 * memory.h) for ZeRO 0 and 1 (dist_opt); ZeRO 2 and 3 as the ZeRO paper counts them (16: FP16/
 * BF16 gradients, 2 bytes, as DeepSpeed reduces and partitions them), sharded over the DP x CP
 * group (FSDP hybrid: the shard group), the experts' over the expert-data group. LoRA: the
 * adapters' states as full training's, the frozen base weights alone (2 bytes; QLoRA: NF4 for the
 * layers' linear weights, BF16 for the norms, the embedding and the output layer, which
 * bitsandbytes does not quantize). @layers is the stage's transformer layers; @nonlayer its
 * embedding and output parameters. */
static void
model_states(const weft_gen_config_t *c, double dense, double expert, double layers,
             double nonlayer, double *out)
{
    guint z = weft_gen_zero_stage(c);
    double nd =
        c->fsdp == WEFT_GEN_FSDP_HYBRID ? (double)c->fsdp_shard_group : (double)c->dp * c->cp;
    weft_mem_states_t st = {.weight_bytes = 2,
                            .master_bytes = 4,
                            .grad_bytes = z >= 2 ? 2 : 4,
                            .optimizer_bytes = 8,
                            .zero_stage = z,
                            .shard = nd};
    double part[WEFT_MEM_N_CATS];
    if (c->finetune == WEFT_GEN_FINETUNE_FULL) {
        weft_mem_model_states(dense, &st, out);
        st.shard = (double)c->dp / c->ep;
        weft_mem_model_states(expert, &st, part);
        for (guint k = 0; k < WEFT_MEM_N_CATS; k++) {
            out[k] += part[k];
        }
        return;
    }
    weft_mem_model_states(layers * weft_gen_trainable_layer_params(c), &st, out);
    double base = dense; /* validated: no experts with LoRA */
    if (c->finetune == WEFT_GEN_FINETUNE_QLORA) {
        double norms = layers * 2.0 * c->hidden / c->tp;
        double linear = base - norms - nonlayer;
        out[WEFT_MEM_WEIGHTS] += WEFT_GEN_NF4_BYTES * linear + 2 * (norms + nonlayer);
    } else {
        out[WEFT_MEM_WEIGHTS] += 2 * base;
    }
}

/* The transformer layers of pipeline rank 0 (the sum over its chunks); a configuration
 * weft_gen_validate() refuses (the memory estimate runs before it) gets layers / pp. */
static double
stage0_layers(const weft_gen_config_t *c)
{
    if (c->pp == 0 || c->vpp == 0 || !check_stage_layers(c, NULL)) {
        return c->pp > 0 ? (double)c->layers / c->pp : c->layers;
    }
    guint n = 0;
    for (guint ch = 0; ch < c->vpp; ch++) {
        n += weft_gen_chunk_layers(c, ch * c->pp);
    }
    return n;
}

/* Local (per-GPU) parameters of stage 0: dense ones, expert ones. */
static void
stage_params(const weft_gen_config_t *c, double *dense, double *expert)
{
    double ld = 0, le = 0;
    layer_params(c, &ld, &le);
    double per_stage = stage0_layers(c);
    /* Stage 0 has the embedding, and the (untied) output layer too when pp = 1. */
    *dense = (per_stage * ld + (c->pp == 1 ? 2.0 : 1.0) * c->vocab * c->hidden) / c->tp;
    *expert = per_stage * le / ((double)c->tp * c->ep);
}

static void gen_activations(const weft_gen_config_t *c, double *stored, double *work);

void
weft_gen_memory(const weft_gen_config_t *c, weft_gen_memory_t *mem)
{
    g_return_if_fail(c != NULL && mem != NULL);
    double dense = 0, expert = 0;
    stage_params(c, &dense, &expert);
    /* the model states as the generated step holds them (model_states()) */
    double st[WEFT_MEM_N_CATS];
    double nonlayer = (c->pp == 1 ? 2.0 : 1.0) * c->vocab * c->hidden / c->tp;
    model_states(c, dense, expert, stage0_layers(c), nonlayer, st);
    mem->weights = st[WEFT_MEM_WEIGHTS];
    double nd =
        c->fsdp == WEFT_GEN_FSDP_HYBRID ? (double)c->fsdp_shard_group : (double)c->dp * c->cp;
    if (weft_gen_zero_stage(c) == 3 && nd > 1) {
        /* ZeRO-3: two units' BF16 parameters gathered at a time (the prefetch, chunk_pass()) */
        double ld = 0, le = 0;
        layer_params(c, &ld, &le);
        mem->weights += 2 * 2.0 * ld / c->tp;
    }
    mem->grads = st[WEFT_MEM_GRADS];
    mem->optimizer = st[WEFT_MEM_MASTER] + st[WEFT_MEM_OPTIMIZER];
    /* Activations per layer and micro-batch: memory.h (Korthikanti et al. 2022, Table 2; a
     * fused attention keeps no scores, its log-sum-exp instead), what the generated step
     * allocates and frees; a full recomputation rebuilds one layer at a time. */
    double per_layer = 0, rebuilt = 0;
    gen_activations(c, &per_layer, &rebuilt);
    /* Stage 0 holds pp micro-batches in flight in 1F1B (interleaved: x (1 + (pp-1)/(pp vpp))). */
    double layers_stage = stage0_layers(c);
    double m = (double)c->global_batch / ((double)c->micro_batch * c->dp);
    double in_flight = MIN((double)c->pp, m);
    if (c->vpp > 1) {
        in_flight *= 1.0 + (c->pp - 1.0) / (c->pp * c->vpp);
    }
    mem->activations = per_layer * layers_stage * in_flight + rebuilt;
    mem->total = mem->weights + mem->grads + mem->optimizer + mem->activations;
}

/* ---- the node sequence of a stage ---------------------------------------------------- */

/* Where a collective runs. */
/* K_SHARD, K_REPL: FSDP hybrid's shard groups (fsdp_shard_group consecutive members of a DP x
 * CP group) and replicate groups (the members at the same place in every shard group). */
typedef enum { K_NONE, K_TP, K_DPCP, K_EP, K_EDP, K_SHARD, K_REPL, K_N } kind_t;
static const char *const kind_prefix[K_N] = {"", "tp", "dp", "ep", "edp", "dpshard", "dprepl"};

/* Whose rank a SEND/RECV names. */
typedef enum { P_NONE, P_STAGE, P_CP_NEXT, P_CP_PREV } peer_kind_t;

/* A stage's node sequence while it is built: the shared columns (seq.h), each SEND/RECV's
 * peer (kind and stage), and each node's FLOPs and tensor bytes. */
typedef struct {
    weft_workload_i_seq_t b;
    GArray *pkind;  /* guint8: peer_kind_t */
    GArray *pstage; /* guint32: the peer's stage (P_STAGE) */
    GArray *ops;    /* double: num_ops */
    GArray *tsize;  /* guint64: tensor_bytes */
    GArray *smsc;   /* guint8: sms_counted */
    GArray *malloc_; /* guint64: mem_alloc (bytes allocated when the node starts) */
    GArray *mfree;   /* guint64: mem_free (bytes freed when it finishes) */
    GArray *mcat;    /* guint8: mem_cat */
    GArray *layer;   /* guint16: the node's layer id (weft_workload_layer_id()) */
    GArray *phase;   /* guint8: its weft_phase_t */
    gboolean any_smsc;
} seq_t;

static void
seq_init(seq_t *s)
{
    weft_workload_i_seq_init(&s->b);
    s->pkind = g_array_new(FALSE, FALSE, sizeof(guint8));
    s->pstage = g_array_new(FALSE, FALSE, sizeof(guint32));
    s->ops = g_array_new(FALSE, FALSE, sizeof(double));
    s->tsize = g_array_new(FALSE, FALSE, sizeof(guint64));
    s->smsc = g_array_new(FALSE, FALSE, sizeof(guint8));
    s->malloc_ = g_array_new(FALSE, FALSE, sizeof(guint64));
    s->mfree = g_array_new(FALSE, FALSE, sizeof(guint64));
    s->mcat = g_array_new(FALSE, FALSE, sizeof(guint8));
    s->layer = g_array_new(FALSE, FALSE, sizeof(guint16));
    s->phase = g_array_new(FALSE, FALSE, sizeof(guint8));
    s->any_smsc = FALSE;
}

static void
seq_clear(seq_t *s)
{
    weft_workload_i_seq_clear(&s->b);
    g_clear_pointer(&s->pkind, g_array_unref);
    g_clear_pointer(&s->pstage, g_array_unref);
    g_clear_pointer(&s->ops, g_array_unref);
    g_clear_pointer(&s->tsize, g_array_unref);
    g_clear_pointer(&s->smsc, g_array_unref);
    g_clear_pointer(&s->malloc_, g_array_unref);
    g_clear_pointer(&s->mfree, g_array_unref);
    g_clear_pointer(&s->mcat, g_array_unref);
    g_clear_pointer(&s->layer, g_array_unref);
    g_clear_pointer(&s->phase, g_array_unref);
}

/* The generator's state while it expands one stage. */
typedef struct {
    const weft_gen_config_t *c;
    const weft_hw_gpu_t *gpu;
    weft_workload_t *wl;
    seq_t s;
    gint64 prev;   /* the last node of the GPU stream chain (-1: none) */
    guint stage;   /* pipeline stage p */
    gint64 cp_tag; /* running tag of ring-attention exchanges */
    guint64 T;     /* tokens per rank per micro-batch: b S / cp */
    double e;      /* bytes per activation element (2: BF16) */
    GArray *extra; /* guint32: further predecessors of the next node added */
    guint ub_sms;  /* SMs a userbuffers overlap holds from the GEMMs added now (0: none) */
    gboolean ub_coll; /* collectives added now are userbuffers' (sms_counted, workload.h) */
    double act_stored; /* activation bytes a layer keeps from its forward to its backward */
    double act_work;   /* full recomputation: what the recomputed forward rebuilds */
    double resident[WEFT_MEM_N_CATS]; /* the stage's model states per rank (expand_stage) */
    guint zero;                       /* weft_gen_zero_stage() */
    double grad_bytes; /* bytes per gradient element reduced over DP: 4 (Megatron's FP32
                          main_grad), 2 with ZeRO 2 / 3 (memory.h) */
    gboolean adapter;  /* linear_s() times a LoRA adapter's GEMMs (trained, BF16) */
    GArray *z3_grads;  /* gint64: ZeRO-3's gradient reductions the optimizer waits for */
    guint16 layer; /* the layer (id) and phase (weft_phase_t) of the nodes added now */
    guint8 phase;
    const guint16 *chunk_layer; /* per virtual stage, the layer id of its first layer */
} gen_t;

static gint64
add(gen_t *G, guint8 type, const char *name, weft_time_t dur, guint8 op, guint64 bytes, guint8 kind,
    guint8 pkind, guint32 pstage, gint64 tag, double num_ops, guint64 tsize, gboolean chain)
{
    seq_t *s = &G->s;
    const char *n = g_string_chunk_insert_const(G->wl->strings, name);
    gint64 i = weft_workload_i_seq_push(&s->b, type, n, dur, op, bytes, kind, tag);
    g_array_append_val(s->pkind, pkind);
    g_array_append_val(s->pstage, pstage);
    g_array_append_val(s->ops, num_ops);
    g_array_append_val(s->tsize, tsize);
    guint8 smsc = type == WEFT_NODE_COLL && G->ub_coll ? 1 : 0;
    g_array_append_val(s->smsc, smsc);
    guint64 zero = 0;
    guint8 act = WEFT_MEM_ACTIVATIONS;
    g_array_append_val(s->malloc_, zero);
    g_array_append_val(s->mfree, zero);
    g_array_append_val(s->mcat, act);
    g_array_append_val(s->layer, G->layer);
    g_array_append_val(s->phase, G->phase);
    s->any_smsc |= smsc;
    if (G->prev >= 0) {
        weft_workload_i_seq_dep(&s->b, (guint32)G->prev);
    }
    for (guint k = 0; G->extra != NULL && k < G->extra->len; k++) {
        guint32 d = g_array_index(G->extra, guint32, k);
        if ((gint64)d != G->prev) {
            weft_workload_i_seq_dep(&s->b, d);
        }
    }
    if (G->extra != NULL) {
        g_array_set_size(G->extra, 0);
    }
    weft_workload_i_seq_end(&s->b);
    if (chain) {
        G->prev = i;
    }
    return i;
}

/* A compute operator of @seconds (kernel model), recorded with @flops FLOPs and @bytes bytes. */
static void
comp_s(gen_t *G, const char *name, double seconds, double flops, double bytes)
{
    weft_time_t t = (weft_time_t)llround(seconds * 1e12);
    add(G, WEFT_NODE_COMP, name, t, 0, 0, K_NONE, P_NONE, 0, 0, flops, (guint64)bytes, TRUE);
}

/* A memory-bound operator moving @bytes at the GPU's streaming bandwidth. @flops must be 0:
 * GEMMs and attention go through comp_s with the kernel model's time. */
static void
comp(gen_t *G, const char *name, double flops, double bytes)
{
    g_assert(flops == 0);
    comp_s(G, name, weft_kernel_stream_s(G->gpu, bytes), 0, bytes);
}

/* Which GEMMs of a linear layer a node runs. */
typedef enum {
    LIN_FWD,   /* Y[T,out] = X[T,in] W */
    LIN_DGRAD, /* the data gradient dX[T,in] = dY[T,out] W^T */
    LIN_WGRAD, /* the weight gradient dW[in,out] = X^T dY */
    LIN_BWD,   /* both gradients, one after the other (LIN_DGRAD + LIN_WGRAD exactly) */
} lin_mode_t;

/* The GEMMs of @mode of a linear layer over @T tokens (@in -> @out features, @batch of them:
 * the local experts); @bytes gets their operand bytes. With precision fp8 the GEMMs of
 * Transformer Engine's modules (@te: QKV, projection, FC1, FC2, experts) run in FP8 and pay
 * TE's casts (TransformerEngine transformer_engine/pytorch/module/linear.py @0004dbd, _Linear:
 * fp8_cast_transpose_fused of the input in forward and of the output gradient in backward,
 * BF16 read and FP8 + FP8-transpose written: FP8_CAST_BYTES per element; the weight's cast and
 * transpose on the first micro-batch only, is_first_microbatch caching it: charged 1 / M per
 * micro-batch so every micro-batch is alike, exact over the step). The casts go where TE runs
 * them: the input's and (@weight_cast: not in a recompute pass, and once per layer when the
 * GEMM is chunked) the weight's to LIN_FWD; the output gradient's to LIN_DGRAD: the weight
 * gradient reads the same cast (its transpose), so LIN_WGRAD pays none and LIN_DGRAD +
 * LIN_WGRAD is LIN_BWD. The router and the output layer are not TE modules in Megatron-LM:
 * BF16. */
/* A GEMM's time on the SMs a userbuffers overlap leaves it (G->ub_sms held). */
static double
gemm_s(const gen_t *G, const weft_kernel_gemm_t *g, double clock)
{
    if (G->ub_sms == 0 || G->ub_sms >= G->gpu->sm_count) {
        return weft_kernel_gemm_s(G->gpu, g, clock);
    }
    return weft_kernel_gemm_on_s(G->gpu, g, clock, G->gpu->sm_count - G->ub_sms);
}

static double
linear_s(gen_t *G, guint64 T, guint64 in, guint64 out, guint64 batch, lin_mode_t mode, gboolean te,
         gboolean weight_cast, double *bytes)
{
    const weft_gen_config_t *c = G->c;
    gboolean fp8 = te && c->fp8 && !G->adapter;
    weft_kernel_dtype_t dt = fp8 ? WEFT_KERNEL_FP8 : WEFT_KERNEL_BF16;
    double clock = WEFT_GEN_SUSTAINED_CLOCK;
    double s = 0, cast = 0;
    /* LoRA / QLoRA: a frozen base weight gets no weight gradient (its input gradient is still
     * computed); QLoRA dequantizes the transformer layers' NF4 weights (@te: the layer's
     * linears; the output layer stays BF16) to BF16 before each GEMM that reads them, forward
     * and data gradient (bitsandbytes bitsandbytes/autograd/_functions.py, MatMul4Bit.forward:
     * linear(A, dequantize_4bit(B).t()), .backward: grad_output @ dequantize_4bit(B)):
     * NF4_BYTES read and 2 written per weight element, at the streaming bandwidth */
    gboolean frozen = c->finetune != WEFT_GEN_FINETUNE_FULL && !G->adapter;
    if (frozen) {
        if (mode == LIN_WGRAD) {
            return 0;
        }
        mode = mode == LIN_BWD ? LIN_DGRAD : mode;
        if (c->finetune == WEFT_GEN_FINETUNE_QLORA && te) {
            cast += (WEFT_GEN_NF4_BYTES + 2.0) * (double)batch * (double)in * (double)out;
        }
    }
    if (mode == LIN_FWD) {
        weft_kernel_gemm_t f = {batch, T, out, in, dt};
        s = gemm_s(G, &f, clock);
        *bytes += weft_kernel_gemm_bytes(&f);
        if (fp8) {
            double M = (double)c->global_batch / ((double)c->micro_batch * c->dp);
            cast += WEFT_GEN_FP8_CAST_BYTES * (double)batch * (double)T * (double)in;
            if (weight_cast) {
                cast += WEFT_GEN_FP8_CAST_BYTES * (double)batch * (double)in * (double)out / M;
            }
        }
    }
    if (mode == LIN_DGRAD || mode == LIN_BWD) {
        weft_kernel_gemm_t dg = {batch, T, in, out, dt};
        s += gemm_s(G, &dg, clock);
        *bytes += weft_kernel_gemm_bytes(&dg);
        if (fp8) {
            cast += WEFT_GEN_FP8_CAST_BYTES * (double)batch * (double)T * (double)out;
        }
    }
    if (mode == LIN_WGRAD || mode == LIN_BWD) {
        weft_kernel_gemm_t wg = {batch, in, out, T, dt};
        s += gemm_s(G, &wg, clock);
        *bytes += weft_kernel_gemm_bytes(&wg);
    }
    *bytes += cast;
    return s + weft_kernel_stream_s(G->gpu, cast);
}

/* One node for the linear layers @lin[0..@n-1] (in, out features) run one after the other over
 * @T tokens, @batch times each, in @mode, recorded with @flops FLOPs. */
static void
linears(gen_t *G, const char *name, double flops, const guint64 (*lin)[2], guint n, guint64 T,
        guint64 batch, lin_mode_t mode, gboolean te, gboolean recompute_pass)
{
    double s = 0, bytes = 0;
    for (guint i = 0; i < n; i++) {
        s += linear_s(G, T, lin[i][0], lin[i][1], batch, mode, te, !recompute_pass, &bytes);
    }
    comp_s(G, name, s, flops, bytes);
}

/* One tensor-parallel linear layer of a transformer layer (QKV, projection, FC1, FC2, the
 * output layer) for one micro-batch: its GEMM shape, its token count and the FLOPs its
 * forward records. */
typedef struct {
    guint64 T;       /* tokens: the GEMM is [T,in] x [in,out] */
    guint64 in, out; /* features */
    double flops;    /* forward FLOPs over the T tokens (each gradient records as many) */
    gboolean te;     /* a Transformer Engine module (FP8 with precision fp8) */
    guint n_ad;      /* LoRA adapters on it (lin_adapters()) */
    guint64 ad[3][2];
} lin_t;

/* One node running @mode of @L over @T of its L->T tokens (a chunk, or all of them), recorded
 * with its share T / L->T of the FLOPs; @weight_cast as linear_s(). */
static void
lin_node(gen_t *G, const char *name, const lin_t *L, guint64 T, lin_mode_t mode,
         gboolean weight_cast)
{
    double bytes = 0;
    double s = linear_s(G, T, L->in, L->out, 1, mode, L->te, weight_cast, &bytes);
    double mult = mode == LIN_BWD ? 2.0 : 1.0;
    if (G->c->finetune != WEFT_GEN_FINETUNE_FULL) {
        mult = mode == LIN_WGRAD ? 0.0 : 1.0; /* frozen: no weight gradient */
    }
    double flops = L->flops * mult * ((double)T / (double)L->T);
    /* each adapter: x A (in -> r) then B (r -> out), forward; their data and weight gradients
     * backward (dY B^T is the data gradient's first GEMM and feeds A's weight gradient):
     * 2 T r (in + out) FLOPs per pass, in BF16 (PEFT's lora.Linear runs them outside TE) */
    G->adapter = TRUE;
    for (guint i = 0; i < L->n_ad; i++) {
        guint64 r = G->c->lora_rank, in = L->ad[i][0], out = L->ad[i][1];
        s += linear_s(G, T, in, r, 1, mode, FALSE, FALSE, &bytes);
        s += linear_s(G, T, r, out, 1, mode, FALSE, FALSE, &bytes);
        flops += (mode == LIN_BWD ? 2.0 : 1.0) * 2.0 * (double)T * (double)r * (double)(in + out);
    }
    G->adapter = FALSE;
    guint8 phase = G->phase;
    if (mode == LIN_WGRAD && phase == WEFT_PHASE_IGRAD) {
        G->phase = WEFT_PHASE_WGRAD;
    }
    comp_s(G, name, s, flops, bytes);
    G->phase = phase;
}

/* The tokens of chunk @i of @n over @T tokens: T (i + 1) / n - T i / n (integer divisions),
 * so that the chunks differ by at most one token and add up to T exactly. */
static guint64
chunk_tokens(guint64 T, guint i, guint n)
{
    return T * (i + 1) / n - T * i / n;
}

/* A collective in the group @kind when that group has 2+ ranks; returns its index or -1.
 * @bytes is the whole vector: the all-reduce's, the reduce-scatter's input, the
 * all-gather's output (written as each rank's share, comm_size's meaning in
 * doc/formats.md), the bytes one rank sends in an all-to-all. */
static gint64
coll(gen_t *G, const char *name, weft_coll_op_t op, double bytes, kind_t kind, gboolean chain)
{
    const weft_gen_config_t *c = G->c;
    guint size = kind == K_TP      ? c->tp
                 : kind == K_DPCP  ? c->dp * c->cp
                 : kind == K_EP    ? c->ep
                 : kind == K_SHARD ? c->fsdp_shard_group
                 : kind == K_REPL  ? c->dp * c->cp / MAX(c->fsdp_shard_group, 1u)
                                   : c->dp / c->ep;
    if (size < 2 || bytes <= 0) {
        return -1;
    }
    if (op == WEFT_COLL_ALL_GATHER) {
        bytes /= size; /* callers give the gathered output; comm_size is each rank's share */
    }
    return add(G, WEFT_NODE_COLL, name, 0, (guint8)op, (guint64)llround(bytes), kind, P_NONE, 0, 0,
               0, (guint64)llround(bytes), chain);
}

/* Makes @node (if >= 0) a further predecessor of the next node added. */
static void
extra_dep(gen_t *G, gint64 node)
{
    if (node >= 0) {
        guint32 d = (guint32)node;
        g_array_append_val(G->extra, d);
    }
}

/* ---- tensor-parallel GEMMs and their collectives ------------------------------------ */

/* Chunks of a pipelined all-gather + GEMM or GEMM + reduce-scatter with tp_overlap, as the
 * GPT-3 175B H100 configuration of NeMo runs them (NeMo 2.0
 * nemo/collections/llm/recipes/tp_overlap_configs/userbuffers.py,
 * userbuffers_bf16_h100_h12288_tp4_mbs1_seqlen2048, which
 * nemo/collections/llm/recipes/gpt3_175b.py pretrain_performance_optimizations enables):
 * ring exchange (qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad, fc2_fprop) steps through the tp
 * ranks' shards, one GEMM chunk per shard: tp chunks; the pipeline method (proj_fprop) splits
 * the GEMM in num_splits = 4. */
#define TP_OVERLAP_PIPELINE_SPLITS 4u

/* SMs userbuffers' communication kernels hold from the GEMMs they overlap, in the same NeMo
 * configuration (userbuffers_bf16_h100_h12288_tp4_mbs1_seqlen2048):
 *  - proj_fprop PipelineOverlapCfg(num_sm=24, set_sm_margin=True): the projection's GEMM
 *    chunks are launched on SMs - 24 (132 - 24 = 108 on H100);
 *  - fc2_fprop RingExchangeOverlapCfg(num_sm=1, set_sm_margin=True): SMs - 1;
 *  - the ring exchanges of qkv_fprop, fc1_fprop, proj_dgrad and fc2_dgrad keep every SM
 *    (set_sm_margin False; their peer copies run on the copy engines);
 *  - the bulk overlaps (BulkOverlapCfg, set_sm_margin False) qkv_dgrad 4 (the input's
 *    all-gather beside the data gradient), qkv_wgrad 4 (the data gradient's reduce-scatter
 *    beside the weight gradient), fc1_dgrad 2, fc1_wgrad 4: the GEMM is timed on SMs -
 *    num_sm, an upper bound (it gets them back once the communication kernel is done, within
 *    num_sm / SMs <= 3 % on H100).
 * Without tp_overlap, NCCL's own kernels beside a GEMM (Megatron's async all-gather and
 * reduce-scatter, the data-parallel collectives) take no SMs from it: not modelled. */
#define UB_PROJ_FPROP_SMS 24u
#define UB_FC2_FPROP_SMS 1u
#define UB_QKV_DGRAD_SMS 4u
#define UB_QKV_WGRAD_SMS 4u
#define UB_FC1_DGRAD_SMS 2u
#define UB_FC1_WGRAD_SMS 4u

/* The GEMM @mode of @L (LIN_FWD, or LIN_DGRAD over an output gradient) that reads the
 * all-gather @ag_name of @act bytes (sequence parallelism): without tp_overlap the gather,
 * then the GEMM over all L->T tokens; with it (Transformer Engine's ring exchange) the gather
 * in n' = min(@n, T) chunks of @act / n', each GEMM chunk i over its chunk_tokens(T, i, n')
 * tokens after its chunk has arrived and after the previous GEMM chunk: the first chunk's
 * gather is exposed, the rest overlaps the GEMM (or the GEMM it, if the gathers are slower).
 * A chunk is a GEMM of T / n' rows with the whole weight, which the kernel model times at its
 * own shape (less efficient than the whole GEMM where that takes it off the MAMF ceiling:
 * small GEMMs, FP8); the weight's FP8 cast goes to the first chunk (none when
 * @recompute_pass). */
static void
ag_gemm(gen_t *G, const char *ag_name, double act, const char *name, const lin_t *L,
        lin_mode_t mode, gboolean recompute_pass, guint n)
{
    guint64 T = L->T;
    n = (guint)MIN((guint64)n, T);
    if (!G->c->tp_overlap || G->c->tp < 2 || n < 2) {
        coll(G, ag_name, WEFT_COLL_ALL_GATHER, act, K_TP, TRUE);
        lin_node(G, name, L, T, mode, !recompute_pass);
        return;
    }
    g_autofree gint64 *ag = g_new(gint64, n);
    G->ub_coll = TRUE; /* ring exchange: peer copies on the copy engines, no SMs */
    for (guint i = 0; i < n; i++) {
        ag[i] = coll(G, ag_name, WEFT_COLL_ALL_GATHER, act / n, K_TP, FALSE);
    }
    G->ub_coll = FALSE;
    for (guint i = 0; i < n; i++) {
        extra_dep(G, ag[i]);
        lin_node(G, name, L, chunk_tokens(T, i, n), mode, i == 0 && !recompute_pass);
    }
}

/* The forward GEMM of @L whose output (@act bytes) is reduced in the TP group by @op
 * (@red_name): a reduce-scatter with sequence parallelism, else an all-reduce. Without
 * tp_overlap the GEMM over all L->T tokens, then the collective; with it (Transformer
 * Engine's pipeline or ring exchange) the GEMM in n' = min(@n, T) chunks over
 * chunk_tokens(T, i, n') tokens, each chunk's reduce-scatter of @act / n' after it on the
 * communication stream while the next chunk computes: the last chunk's reduce-scatter is
 * exposed. The node added next waits for every chunk's reduction. The weight's FP8 cast goes
 * to the first chunk (none when @recompute_pass). */
static void
gemm_reduce(gen_t *G, const char *name, const lin_t *L, gboolean recompute_pass,
            const char *red_name, weft_coll_op_t op, double act, guint n, guint ub_sms)
{
    guint64 T = L->T;
    n = (guint)MIN((guint64)n, T);
    if (!G->c->tp_overlap || G->c->tp < 2 || n < 2 || op != WEFT_COLL_REDUCE_SCATTER) {
        lin_node(G, name, L, T, LIN_FWD, !recompute_pass);
        coll(G, red_name, op, act, K_TP, TRUE);
        return;
    }
    g_autofree gint64 *rs = g_new(gint64, n);
    G->ub_sms = ub_sms;
    for (guint i = 0; i < n; i++) {
        lin_node(G, name, L, chunk_tokens(T, i, n), LIN_FWD, i == 0 && !recompute_pass);
        G->ub_coll = TRUE; /* its SMs are the GEMM chunks' margin */
        rs[i] = coll(G, red_name, op, act / n, K_TP, FALSE);
        G->ub_coll = FALSE;
    }
    G->ub_sms = 0;
    for (guint i = 0; i < n; i++) {
        extra_dep(G, rs[i]);
    }
}

/* The backward of a column-parallel linear layer @L (QKV, FC1, the output layer) as
 * Megatron-LM runs it (megatron/core/tensor_parallel/layers.py,
 * LinearWithGradAccumulationAndAsyncCommunication.backward, Megatron-LM commit 000c4ac):
 * with sequence parallelism the layer's input is all-gathered again (@ag_name, @act bytes;
 * the forward kept only this rank's shard) asynchronously while the input (data) gradient
 * GEMM runs (@dgrad_name, LIN_DGRAD); then the input gradient's reduction (@red_name:
 * reduce-scatter with SP, else the all-reduce that Megatron's async_grad_allreduce /
 * allreduce_dgrad launches) runs while the weight gradient GEMM runs (@wgrad_name,
 * LIN_WGRAD), which also waits for the gather. The node added next waits for the reduction.
 * With tp 1 there is no collective: the two GEMMs run in turn. */
static void
column_parallel_bwd(gen_t *G, const char *dgrad_name, const char *wgrad_name, const lin_t *L,
                    const char *ag_name, const char *red_name, double act, guint dgrad_sms,
                    guint wgrad_sms)
{
    gboolean sp = G->c->sp;
    /* with tp_overlap these are userbuffers' bulk overlaps (their SMs: see UB_QKV_DGRAD_SMS) */
    gboolean ub = sp && G->c->tp_overlap && G->c->tp >= 2;
    G->ub_coll = ub; /* bulk overlaps: their SMs are in the GEMMs' times */
    gint64 ag = sp ? coll(G, ag_name, WEFT_COLL_ALL_GATHER, act, K_TP, FALSE) : -1;
    G->ub_coll = FALSE;
    G->ub_sms = ub ? dgrad_sms : 0;
    lin_node(G, dgrad_name, L, L->T, LIN_DGRAD, FALSE);
    G->ub_coll = ub;
    gint64 red =
        coll(G, red_name, sp ? WEFT_COLL_REDUCE_SCATTER : WEFT_COLL_ALL_REDUCE, act, K_TP, FALSE);
    G->ub_coll = FALSE;
    extra_dep(G, ag);
    G->ub_sms = ub ? wgrad_sms : 0;
    lin_node(G, wgrad_name, L, L->T, LIN_WGRAD, FALSE);
    G->ub_sms = 0;
    extra_dep(G, red);
}

/* The backward of a row-parallel linear layer @L (projection, FC2): with SP the all-gather
 * @ag_name of its output gradient (@act bytes), then its data and weight gradients in one node
 * @name (LIN_BWD); with tp_overlap the gather pipelined with the data gradient (Transformer
 * Engine's proj_dgrad / fc2_dgrad ring exchange, ag_gemm() in @n chunks: nodes @dgrad_name),
 * then the weight gradient (@wgrad_name). */
static void
row_parallel_bwd(gen_t *G, const char *name, const char *dgrad_name, const char *wgrad_name,
                 const lin_t *L, const char *ag_name, double act, guint n)
{
    if (G->c->sp && G->c->tp_overlap) {
        ag_gemm(G, ag_name, act, dgrad_name, L, LIN_DGRAD, FALSE, n);
        lin_node(G, wgrad_name, L, L->T, LIN_WGRAD, FALSE);
        return;
    }
    if (G->c->sp) {
        coll(G, ag_name, WEFT_COLL_ALL_GATHER, act, K_TP, TRUE);
    }
    lin_node(G, name, L, L->T, LIN_BWD, FALSE);
}

/* ---- one layer, forward or backward ------------------------------------------------ */

/* The attention core of one micro-batch, in cp chunks with ring exchanges; @mult scales FLOPs
 * (1 forward, 2 backward). */
static void
attn_core(gen_t *G, const char *name, double mult)
{
    const weft_gen_config_t *c = G->c;
    double h = c->hidden, t = c->tp, d = h / c->heads;
    double flops = mult * 2.0 * G->T * (double)c->seq * h / t; /* causal: half of 4 T S h */
    double kv_bytes = 2.0 * G->T * c->kv_heads * d * G->e / MIN(t, (double)c->kv_heads);
    gboolean bwd = mult > 1.5;
    guint64 b = c->micro_batch, heads = c->heads / c->tp, dh = c->hidden / c->heads;
    guint64 kvh = MAX(1, c->kv_heads / c->tp);
    double clock = WEFT_GEN_SUSTAINED_CLOCK;
    if (c->unfused_attention) {
        /* Megatron before flash attention: batched GEMMs QK^T [S,d]x[d,S] and AV [S,S]x[S,d]
         * over the whole S x S score matrix of each of b a / t heads (4 T S h / t FLOPs, no
         * causal skipping); backward the four of dA = dO V^T, dV = A^T dO, dQ = dS K,
         * dK = dS^T Q. Then the scores of a / t heads (T S a / t elements) go through HBM: QK^T
         * writes them, the fused scale-mask-softmax reads and writes them, dropout reads them
         * and writes them and its 1-byte mask, AV reads them: UNFUSED_BYTES per element
         * forward; @mult (2) scales both backward. */
        double scores = G->T * (double)c->seq * c->heads / t;
        guint64 S = c->seq, bh = b * heads;
        weft_kernel_gemm_t qk = {bh, S, S, dh, WEFT_KERNEL_BF16};
        weft_kernel_gemm_t av = {bh, S, dh, S, WEFT_KERNEL_BF16};
        double sec, io;
        if (!bwd) {
            sec = weft_kernel_gemm_s(G->gpu, &qk, clock) + weft_kernel_gemm_s(G->gpu, &av, clock);
            io = weft_kernel_gemm_bytes(&qk) + weft_kernel_gemm_bytes(&av);
        } else {
            sec =
                weft_kernel_gemm_s(G->gpu, &qk, clock) + 3 * weft_kernel_gemm_s(G->gpu, &av, clock);
            io = weft_kernel_gemm_bytes(&qk) + 3 * weft_kernel_gemm_bytes(&av);
        }
        char gemm_name[64];
        g_snprintf(gemm_name, sizeof(gemm_name), "%s.gemm", name);
        comp_s(G, gemm_name, sec, 2.0 * flops, io);
        char sm_name[64];
        g_snprintf(sm_name, sizeof(sm_name), "%s.softmax_dropout", name);
        comp(G, sm_name, 0, mult * WEFT_GEN_UNFUSED_BYTES * scores);
        return;
    }
    /* Fused (flash) attention per CP chunk: the first chunk is the rank's own causal block;
     * each later one, in the load-balanced ring of Megatron-LM's context parallelism (two
     * sequence chunks per rank), the queries against half of a block, unmasked: together
     * the causal half of the FLOPs. */
    guint64 sr = c->seq / c->cp;
    for (guint i = 0; i < c->cp; i++) {
        if (i > 0) {
            /* Ring attention: pass the KV block on, take the previous rank's. */
            add(G, WEFT_NODE_SEND, "cp_send_kv", 0, 0, (guint64)kv_bytes, K_NONE, P_CP_NEXT, 0,
                G->cp_tag, 0, (guint64)kv_bytes, FALSE);
            add(G, WEFT_NODE_RECV, "cp_recv_kv", 0, 0, (guint64)kv_bytes, K_NONE, P_CP_PREV, 0,
                G->cp_tag, 0, (guint64)kv_bytes, TRUE);
            G->cp_tag++;
        }
        weft_kernel_attn_t a = {b, heads, kvh, dh, sr, i == 0 ? sr : sr / 2, i == 0, bwd};
        comp_s(G, name, weft_kernel_attn_s(G->gpu, &a, clock), flops / c->cp,
               weft_kernel_attn_bytes(&a));
    }
}

/* Forward (@bwd FALSE) or backward of one transformer layer for one micro-batch. */
static void
layer(gen_t *G, gboolean bwd, gboolean recompute_pass)
{
    const weft_gen_config_t *c = G->c;
    double T = G->T, h = c->hidden, t = c->tp, d = h / c->heads, e = G->e;
    double g = (double)c->kv_heads;
    double act = T * h * e; /* a full activation */
    double mult = bwd ? 2.0 : 1.0;
    gboolean sp = c->sp;
    double elem = WEFT_GEN_ELEM_PASSES * act / (sp ? t : 1);
    double ffn_mats = c->gated ? 3.0 : 2.0;
    gboolean moe = c->experts > 1;
    double k = moe ? c->top_k : 1;
    guint n_ring = c->tp; /* ring exchange: one chunk per TP rank's shard */
    weft_coll_op_t red = sp ? WEFT_COLL_REDUCE_SCATTER : WEFT_COLL_ALL_REDUCE;
    const char *ph = recompute_pass ? "recompute" : bwd ? "bwd" : "fwd";
    /* GEMM shapes: QKV h -> (h + 2 g d) / t, projection h / t -> h, FC1 h -> (2 gated | 1) f / t,
     * FC2 f / t -> h; experts: E / ep local ones, each over its share of the T k routed tokens.
     * A dense MLP is two nodes, FC1 (column-parallel) then FC2 (row-parallel); the experts'
     * GEMMs one node. */
    guint64 Tn = G->T, hn = c->hidden, dn = c->hidden / c->heads;
    guint64 fn = c->ffn / c->tp, mats1 = c->gated ? 2 : 1;
    lin_t qkv = {.T = Tn,
                 .in = hn,
                 .out = (hn + 2 * c->kv_heads * dn + c->tp - 1) / c->tp,
                 .flops = 2 * T * h * (h + 2 * g * d) / t,
                 .te = TRUE};
    lin_t proj = {.T = Tn, .in = hn / c->tp, .out = hn, .flops = 2 * T * h * h / t, .te = TRUE};
    lin_t fc1 = {.T = Tn,
                 .in = hn,
                 .out = mats1 * fn,
                 .flops = 2 * T * h * c->ffn * (ffn_mats - 1) / t,
                 .te = TRUE};
    lin_t fc2 = {.T = Tn, .in = fn, .out = hn, .flops = 2 * T * h * c->ffn / t, .te = TRUE};
    qkv.n_ad = lin_adapters(c, LIN_QKV, qkv.ad);
    proj.n_ad = lin_adapters(c, LIN_PROJ, proj.ad);
    fc1.n_ad = lin_adapters(c, LIN_FC1, fc1.ad);
    fc2.n_ad = lin_adapters(c, LIN_FC2, fc2.ad);
    const guint64 mlp[2][2] = {{hn, mats1 * fn}, {fn, hn}};
    const guint64 router[1][2] = {{hn, c->experts}};
    double mlp_flops = 2 * T * k * h * c->ffn * ffn_mats / t; /* the experts' forward */
    guint64 n_local = moe ? c->experts / c->ep : 1;
    guint64 T_expert = moe ? (guint64)ceil((double)Tn * k / (double)n_local) : Tn;
    char name[64];
    if (!bwd) {
        /* Attention block: [AG] QKV (column-parallel), core, projection (row-parallel),
         * RS or AR. */
        g_snprintf(name, sizeof(name), "attn_qkv.%s", ph);
        if (sp) {
            ag_gemm(G, "tp_allgather_attn", act, name, &qkv, LIN_FWD, recompute_pass, n_ring);
        } else {
            lin_node(G, name, &qkv, qkv.T, LIN_FWD, !recompute_pass);
        }
        g_snprintf(name, sizeof(name), "attn_core.%s", ph);
        attn_core(G, name, 1.0);
        g_snprintf(name, sizeof(name), "attn_proj.%s", ph);
        gemm_reduce(G, name, &proj, recompute_pass,
                    sp ? "tp_reducescatter_attn" : "tp_allreduce_attn", red, act,
                    TP_OVERLAP_PIPELINE_SPLITS, UB_PROJ_FPROP_SMS);
        g_snprintf(name, sizeof(name), "attn_elementwise.%s", ph);
        comp(G, name, 0, elem);
        /* MLP block. */
        if (moe) {
            if (sp) {
                coll(G, "tp_allgather_mlp", WEFT_COLL_ALL_GATHER, act, K_TP, TRUE);
            }
            g_snprintf(name, sizeof(name), "moe_router.%s", ph);
            linears(G, name, 2 * T * h * c->experts, router, 1, Tn, 1, LIN_FWD, FALSE,
                    recompute_pass);
            coll(G, "ep_alltoall_dispatch", WEFT_COLL_ALL_TO_ALL, T * k * h * e, K_EP, TRUE);
            g_snprintf(name, sizeof(name), "mlp.%s", ph);
            linears(G, name, mlp_flops, mlp, 2, T_expert, n_local, LIN_FWD, TRUE, recompute_pass);
            coll(G, "ep_alltoall_combine", WEFT_COLL_ALL_TO_ALL, T * k * h * e, K_EP, TRUE);
            coll(G, sp ? "tp_reducescatter_mlp" : "tp_allreduce_mlp", red, act, K_TP, TRUE);
        } else {
            g_snprintf(name, sizeof(name), "mlp_fc1.%s", ph);
            if (sp) {
                ag_gemm(G, "tp_allgather_mlp", act, name, &fc1, LIN_FWD, recompute_pass, n_ring);
            } else {
                lin_node(G, name, &fc1, fc1.T, LIN_FWD, !recompute_pass);
            }
            g_snprintf(name, sizeof(name), "mlp_fc2.%s", ph);
            gemm_reduce(G, name, &fc2, recompute_pass,
                        sp ? "tp_reducescatter_mlp" : "tp_allreduce_mlp", red, act, n_ring,
                        UB_FC2_FPROP_SMS);
        }
        g_snprintf(name, sizeof(name), "mlp_elementwise.%s", ph);
        comp(G, name, 0, elem);
        return;
    }
    /* Backward: the MLP block, then the attention block, each in reverse. */
    g_snprintf(name, sizeof(name), "mlp_elementwise.%s", ph);
    comp(G, name, 0, 2 * elem);
    if (moe) {
        if (sp) {
            coll(G, "tp_allgather_mlp_grad", WEFT_COLL_ALL_GATHER, act, K_TP, TRUE);
        }
        g_snprintf(name, sizeof(name), "moe_router.%s", ph);
        linears(G, name, mult * 2 * T * h * c->experts, router, 1, Tn, 1, LIN_BWD, FALSE, FALSE);
        coll(G, "ep_alltoall_combine_grad", WEFT_COLL_ALL_TO_ALL, T * k * h * e, K_EP, TRUE);
        g_snprintf(name, sizeof(name), "mlp.%s", ph);
        linears(G, name, mult * mlp_flops, mlp, 2, T_expert, n_local, LIN_BWD, TRUE, FALSE);
        coll(G, "ep_alltoall_dispatch_grad", WEFT_COLL_ALL_TO_ALL, T * k * h * e, K_EP, TRUE);
        /* the experts' input gradient reduced in the TP group, serialized: the grouped
         * expert GEMMs are not LinearWithGradAccumulationAndAsyncCommunication */
        coll(G, sp ? "tp_reducescatter_mlp_grad" : "tp_allreduce_mlp_grad", red, act, K_TP, TRUE);
    } else {
        /* FC2 (row-parallel), then FC1 (column-parallel, its collectives overlapped with its
         * GEMMs). */
        row_parallel_bwd(G, "mlp_fc2.bwd", "mlp_fc2_dgrad.bwd", "mlp_fc2_wgrad.bwd", &fc2,
                         "tp_allgather_mlp_grad", act, n_ring);
        column_parallel_bwd(G, "mlp_fc1_dgrad.bwd", "mlp_fc1_wgrad.bwd", &fc1,
                            "tp_allgather_mlp_input_grad",
                            sp ? "tp_reducescatter_mlp_grad" : "tp_allreduce_mlp_grad", act,
                            UB_FC1_DGRAD_SMS, UB_FC1_WGRAD_SMS);
    }
    /* Attention backward. */
    g_snprintf(name, sizeof(name), "attn_elementwise.%s", ph);
    comp(G, name, 0, 2 * elem);
    row_parallel_bwd(G, "attn_proj.bwd", "attn_proj_dgrad.bwd", "attn_proj_wgrad.bwd", &proj,
                     "tp_allgather_attn_grad", act, n_ring);
    if (c->recompute == WEFT_GEN_RECOMPUTE_SELECTIVE) {
        G->phase = WEFT_PHASE_RECOMPUTE;
        attn_core(G, "attn_core.recompute", 1.0);
        G->phase = WEFT_PHASE_IGRAD;
    }
    g_snprintf(name, sizeof(name), "attn_core.%s", ph);
    attn_core(G, name, 2.0);
    column_parallel_bwd(G, "attn_qkv_dgrad.bwd", "attn_qkv_wgrad.bwd", &qkv,
                        "tp_allgather_attn_input_grad",
                        sp ? "tp_reducescatter_attn_grad" : "tp_allreduce_attn_grad", act,
                        UB_QKV_DGRAD_SMS, UB_QKV_WGRAD_SMS);
    /* The layer's weight gradients accumulated into the FP32 main_grad (GRAD_ACCUM_BYTES per
     * local parameter: the dense ones, and the local experts' ones). */
    double ld = 0, le = 0;
    layer_params(c, &ld, &le);
    if (c->finetune != WEFT_GEN_FINETUNE_FULL) {
        ld = weft_gen_trainable_layer_params(c) * t; /* the adapters only (no experts) */
    }
    G->phase = WEFT_PHASE_WGRAD;
    comp(G, "wgrad_accumulate.bwd", 0,
         WEFT_GEN_GRAD_ACCUM_BYTES * (ld / t + le / (t * (moe ? c->ep : 1))));
    G->phase = WEFT_PHASE_IGRAD;
}

/* Node @i allocates @alloc activation bytes when it starts and frees @freed when it ends
 * (workload.h: mem_alloc, mem_free), rounded to whole bytes. */
static void
mem_effect(gen_t *G, guint i, double alloc, double freed)
{
    g_array_index(G->s.malloc_, guint64, i) += (guint64)llround(alloc);
    g_array_index(G->s.mfree, guint64, i) += (guint64)llround(freed);
}

/* What a model chunk's pass runs, in order; each is one FSDP unit with ZeRO-3: the embedding,
 * each transformer layer (FSDP's transformer_auto_wrap_policy unit), the output layer. */
typedef enum { U_EMBED, U_LAYER, U_OUTPUT } unit_t;

/* Forward or backward of unit @u of virtual stage @v for one micro-batch. */
static void
unit_pass(gen_t *G, unit_t u, gboolean bwd, guint16 layer_id)
{
    const weft_gen_config_t *c = G->c;
    double T = G->T, h = c->hidden, t = c->tp, e = G->e, act = T * h * e;
    double vt = (double)c->vocab / t;
    /* the output layer: h -> vocab / t, not a Transformer Engine module (BF16) */
    const lin_t out = {
        .T = G->T, .in = c->hidden, .out = c->vocab / c->tp, .flops = 2 * T * h * vt, .te = FALSE};
    /* the unit's layer (weft_gen_transformer()'s ids) and phase; the nodes after it (ZeRO-3's
     * gathers and releases) belong to no layer */
    G->layer = layer_id;
    G->phase = bwd ? WEFT_PHASE_IGRAD : WEFT_PHASE_FORWARD;
    if (u == U_LAYER && !bwd) {
        /* the layer's activations are allocated as its first node starts */
        guint first = G->s.b.type->len;
        layer(G, FALSE, FALSE);
        mem_effect(G, first, G->act_stored, 0);
    } else if (u == U_LAYER) {
        double rebuilt = 0;
        if (c->recompute == WEFT_GEN_RECOMPUTE_FULL) {
            /* the recomputed forward rebuilds the layer's activations from its kept input */
            guint first = G->s.b.type->len;
            G->phase = WEFT_PHASE_RECOMPUTE;
            layer(G, FALSE, TRUE);
            G->phase = WEFT_PHASE_IGRAD;
            rebuilt = G->act_work;
            mem_effect(G, first, rebuilt, 0);
        }
        layer(G, TRUE, FALSE);
        /* freed as the layer's backward ends (its last node: the main_grad accumulation) */
        mem_effect(G, G->s.b.type->len - 1, 0, G->act_stored + rebuilt);
    } else if (u == U_EMBED && !bwd) {
        comp(G, "embedding.fwd", 0, 2 * act);
        coll(G, c->sp ? "tp_reducescatter_embedding" : "tp_allreduce_embedding",
             c->sp ? WEFT_COLL_REDUCE_SCATTER : WEFT_COLL_ALL_REDUCE, act, K_TP, TRUE);
    } else if (u == U_EMBED) {
        if (c->sp) {
            coll(G, "tp_allgather_embedding_grad", WEFT_COLL_ALL_GATHER, act, K_TP, TRUE);
        }
        /* the embedding's backward is its weight gradient (it has no input to differentiate) */
        G->phase = WEFT_PHASE_WGRAD;
        comp(G, "embedding.bwd", 0, 2 * act + h * vt * 4);
    } else if (!bwd) {
        if (c->sp) {
            coll(G, "tp_allgather_output", WEFT_COLL_ALL_GATHER, act, K_TP, TRUE);
        }
        lin_node(G, "output.fwd", &out, out.T, LIN_FWD, TRUE);
        for (guint i = 0; i < 3; i++) {
            coll(G, "tp_allreduce_cross_entropy", WEFT_COLL_ALL_REDUCE, T * 4, K_TP, TRUE);
        }
        comp(G, "cross_entropy.fwd", 0, 3 * T * vt * 4);
    } else {
        comp(G, "cross_entropy.bwd", 0, 2 * T * vt * 4);
        /* the output layer is a ColumnParallelLinear: its collectives overlap its GEMMs (NCCL's,
         * not userbuffers': it is not a Transformer Engine module, so no SMs are held) */
        column_parallel_bwd(
            G, "output_dgrad.bwd", "output_wgrad.bwd", &out, "tp_allgather_output_input_grad",
            c->sp ? "tp_reducescatter_output_grad" : "tp_allreduce_output_grad", act, 0, 0);
    }
    G->layer = 0;
    G->phase = bwd ? WEFT_PHASE_IGRAD : WEFT_PHASE_FORWARD;
}

/* The local parameters (one TP rank's, unsharded) of unit @u. */
static double
unit_params(const weft_gen_config_t *c, unit_t u)
{
    if (u != U_LAYER) {
        return (double)c->vocab * c->hidden / c->tp;
    }
    double ld = 0, le = 0;
    layer_params(c, &ld, &le);
    return ld / c->tp; /* validated: no experts with ZeRO-3 */
}

/* ZeRO-3's all-gather of unit @u's BF16 parameters (2 bytes each, gathered over the shard
 * group), off the compute stream; the gathered copy (2 bytes per local parameter) is allocated
 * as it starts (category weights). Returns the node or -1 (a group of one rank: nothing to
 * gather, the weights are resident). */
static gint64
z3_gather(gen_t *G, unit_t u, const char *name)
{
    double bytes = 2.0 * unit_params(G->c, u);
    kind_t k = G->c->fsdp == WEFT_GEN_FSDP_HYBRID ? K_SHARD : K_DPCP;
    gint64 ag = coll(G, name, WEFT_COLL_ALL_GATHER, bytes, k, FALSE);
    if (ag >= 0) {
        mem_effect(G, (guint)ag, bytes, 0);
        g_array_index(G->s.mcat, guint8, ag) = WEFT_MEM_WEIGHTS;
    }
    return ag;
}

/* Forward or backward of model chunk @chunk (virtual stage @v) for one micro-batch: its units
 * in order. With ZeRO-3 (gen.h) each unit's parameters are all-gathered before it and freed
 * after it, the next unit's gather issued as this one starts (it waits for the previous
 * unit's release: FSDP's rate limiter), and after each unit's backward its gradients are
 * reduce-scattered (hybrid: then all-reduced across the shard groups), off the stream. */
static void
chunk_pass(gen_t *G, guint v, gboolean bwd)
{
    const weft_gen_config_t *c = G->c;
    guint V = c->pp * c->vpp, per = weft_gen_chunk_layers(c, v);
    guint n = 0;
    g_autofree unit_t *units = g_new(unit_t, per + 2);
    /* layer ids (weft_gen_transformer()): embedding 1, transformer layer i 2 + i, output after;
     * backward runs the chunk's layers last to first */
    g_autofree guint16 *ids = g_new(guint16, per + 2);
    G->phase = bwd ? WEFT_PHASE_IGRAD : WEFT_PHASE_FORWARD;
    guint16 first_layer = G->chunk_layer[v];
    const guint16 output_layer = (guint16)(2 + c->layers);
    if (v == (bwd ? V - 1 : 0)) {
        ids[n] = bwd ? output_layer : 1;
        units[n++] = bwd ? U_OUTPUT : U_EMBED;
    }
    for (guint l = 0; l < per; l++) {
        ids[n] = (guint16)(first_layer + (bwd ? per - 1 - l : l));
        units[n++] = U_LAYER;
    }
    if (v == (bwd ? 0 : V - 1)) {
        ids[n] = bwd ? 1 : output_layer;
        units[n++] = bwd ? U_EMBED : U_OUTPUT;
    }
    if (G->zero < 3) {
        for (guint i = 0; i < n; i++) {
            unit_pass(G, units[i], bwd, ids[i]);
        }
        return;
    }
    const char *ag_name = bwd ? "dp_allgather_params_bwd" : "dp_allgather_params_fwd";
    gboolean hybrid = c->fsdp == WEFT_GEN_FSDP_HYBRID;
    kind_t k = hybrid ? K_SHARD : K_DPCP;
    gint64 ag = n > 0 ? z3_gather(G, units[0], ag_name) : -1;
    for (guint i = 0; i < n; i++) {
        /* prefetch: the next unit's gather, issued before this unit's compute, after this
         * unit's gather on the same stream */
        gint64 next = -1;
        if (i + 1 < n) {
            extra_dep(G, ag);
            next = z3_gather(G, units[i + 1], ag_name);
        }
        extra_dep(G, ag);
        unit_pass(G, units[i], bwd, ids[i]);
        double p = unit_params(c, units[i]);
        if (bwd) {
            /* what the unit left for the node after it (a TP reduction) waits for the
             * release, not for the gradient reduction */
            g_autoptr(GArray) pending = g_array_copy(G->extra);
            g_array_set_size(G->extra, 0);
            gint64 rs = coll(G, "dp_reducescatter_grads", WEFT_COLL_REDUCE_SCATTER,
                             G->grad_bytes * p, k, FALSE);
            gint64 last = rs;
            if (hybrid) {
                extra_dep(G, rs);
                gint64 ar = coll(G, "dp_allreduce_grads_replicas", WEFT_COLL_ALL_REDUCE,
                                 G->grad_bytes * p / c->fsdp_shard_group, K_REPL, FALSE);
                last = ar >= 0 ? ar : rs;
                g_array_set_size(G->extra, 0); /* consumed by the all-reduce, or not needed */
            }
            if (last >= 0) {
                g_array_append_val(G->z3_grads, last);
            }
            g_array_append_vals(G->extra, pending->data, pending->len);
        }
        if (ag >= 0) {
            /* the gathered parameters are freed once the unit's compute is done */
            comp_s(G, "free_gathered_params", 0, 0, 0);
            guint i_free = G->s.b.type->len - 1;
            mem_effect(G, i_free, 0, 2.0 * p);
            g_array_index(G->s.mcat, guint8, i_free) = WEFT_MEM_WEIGHTS;
        }
        ag = next;
    }
}

/* The FP32 gradient reduction of @dense and @expert local parameters: reduce-scatter with
 * the distributed optimizer, else all-reduce; the node indexes go to @out[0..1]. */
static void
grad_sync(gen_t *G, double dense, double expert, gboolean chain, gint64 *out)
{
    gboolean rs = G->zero >= 1;
    double gb = G->grad_bytes;
    weft_coll_op_t op = rs ? WEFT_COLL_REDUCE_SCATTER : WEFT_COLL_ALL_REDUCE;
    guint8 phase = G->phase;
    G->phase = WEFT_PHASE_WGRAD; /* of no one layer: the chunk's, or the stage's */
    out[0] = coll(G, rs ? "dp_reducescatter_grads" : "dp_allreduce_grads", op, gb * dense, K_DPCP,
                  chain);
    out[1] = coll(G, rs ? "edp_reducescatter_grads" : "edp_allreduce_grads", op, gb * expert, K_EDP,
                  chain);
    G->phase = phase;
}

/* One pipeline stage's step: the parameter all-gathers, the schedule with the gradient
 * reductions, the optimizer. */
static void
expand_stage(gen_t *G)
{
    const weft_gen_config_t *c = G->c;
    guint pp = c->pp, vpp = c->vpp, p = G->stage, V = pp * vpp;
    guint M = c->global_batch / (c->micro_batch * c->dp);
    guint total = M * vpp;
    guint warm;
    if (vpp == 1) {
        warm = MIN(pp - p - 1, M);
    } else {
        warm = MIN((pp - p - 1) * 2 + (vpp - 1) * pp, total);
    }
    double act = (double)G->T * c->hidden * G->e / (c->sp ? c->tp : 1);
    /* Megatron-LM's scatter/gather (megatron/p2p_communication.py _communicate(): with
     * scatter_gather_tensors_in_pipeline and not sequence_parallel, each TP rank sends its
     * 1/tp chunk, split_tensor_into_1d_equal_chunks(), and the receiver re-forms the tensor
     * with gather_split_1d_tensor(), an all-gather in the TP group; Narayanan et al., SC21,
     * section 4.1): every TP rank has its own NIC, so 1/tp of the bytes cross the network */
    gboolean sg = c->pp_scatter_gather && !c->sp && c->tp > 1;
    guint64 pp_bytes = (guint64)llround(sg ? act / c->tp : act);
    /* Local parameters of model chunk ch: its layers, the embedding on virtual stage 0, the
     * (untied) output layer on the last. */
    double ld = 0, le = 0;
    layer_params(c, &ld, &le);
    double vh = (double)c->vocab * c->hidden / c->tp;
    double edp = (double)c->dp / c->ep;
    g_autofree double *dense = g_new(double, vpp);
    g_autofree double *expert = g_new(double, vpp);
    g_autofree gint64 *ag = g_new(gint64, 2 * vpp);
    g_autofree gint64 *grad = g_new(gint64, 2 * vpp);
    g_autofree guint *bwd_done = g_new0(guint, vpp);
    g_autofree guint8 *started = g_new0(guint8, vpp);
    double local = 0, dense_all = 0, expert_all = 0, base_all = 0, layers_all = 0, nonlayer = 0;
    gboolean lora = c->finetune != WEFT_GEN_FINETUNE_FULL;
    double nd =
        c->fsdp == WEFT_GEN_FSDP_HYBRID ? (double)c->fsdp_shard_group : (double)c->dp * c->cp;
    for (guint ch = 0; ch < vpp; ch++) {
        guint v = ch * pp + p;
        double per_chunk = weft_gen_chunk_layers(c, v);
        double ends = (v == 0 ? vh : 0) + (v == V - 1 ? vh : 0);
        base_all += per_chunk * ld / c->tp + ends;
        layers_all += per_chunk;
        nonlayer += ends;
        /* what is trained, reduced over DP and stepped: with LoRA the adapters only */
        dense[ch] =
            lora ? per_chunk * weft_gen_trainable_layer_params(c) : per_chunk * ld / c->tp + ends;
        expert[ch] = per_chunk * le / ((double)c->tp * c->ep);
        dense_all += dense[ch];
        expert_all += expert[ch];
        local += G->zero >= 1 ? dense[ch] / nd + expert[ch] / edp : dense[ch] + expert[ch];
        ag[2 * ch] = ag[2 * ch + 1] = grad[2 * ch] = grad[2 * ch + 1] = -1;
    }
    /* The model states (memory.h, model_states()): BF16 weights (2), FP32 main_grad (4, never
     * sharded by Megatron's distributed optimizer), FP32 master weights (4) and Adam's moments
     * (8) sharded over DP x CP (the experts' over the expert-data group) with the distributed
     * optimizer: 18 bytes per parameter, 6 + 12 / d distributed (Megatron Core developer
     * guide, "Distributed Optimizer"); ZeRO 2 / 3 as the ZeRO paper counts them. */
    model_states(c, lora ? base_all : dense_all, expert_all, layers_all, nonlayer, G->resident);
    /* Distributed optimizer (ZeRO 1, 2) with overlap: the BF16 parameters the previous step
     * updated are all-gathered at the start, each chunk's before its first forward (Megatron's
     * --overlap-param-gather); without overlap they are gathered after the optimizer. ZeRO 3
     * gathers them per layer instead (chunk_pass()). */
    G->layer = 0;
    G->phase = WEFT_PHASE_OPTIMIZER; /* the previous step's update, gathered */
    gboolean gathers = G->zero == 1 || G->zero == 2;
    if (gathers && c->overlap_dp) {
        for (guint ch = 0; ch < vpp; ch++) {
            ag[2 * ch] =
                coll(G, "dp_allgather_params", WEFT_COLL_ALL_GATHER, 2 * dense[ch], K_DPCP, FALSE);
            ag[2 * ch + 1] =
                coll(G, "edp_allgather_params", WEFT_COLL_ALL_GATHER, 2 * expert[ch], K_EDP, FALSE);
        }
    }
    guint nf = 0, nb = 0;
    /* Megatron's order: warm-up forwards, then (forward, backward) pairs, then backwards. */
    for (guint step = 0; step < 2 * total; step++) {
        gboolean fwd;
        if (nf < warm) {
            fwd = TRUE;
        } else if (nf == total) {
            fwd = FALSE;
        } else {
            fwd = (nf - warm) == nb; /* alternate: F then B */
        }
        guint k = fwd ? nf++ : nb++;
        guint chunk, mb;
        if (vpp == 1) {
            chunk = 0;
            mb = k;
        } else {
            guint grp = k / (pp * vpp);
            chunk = (k / pp) % vpp;
            mb = grp * pp + k % pp;
            if (!fwd) {
                chunk = vpp - 1 - chunk;
            }
        }
        guint v = chunk * pp + p;
        gint64 tag_base = ((gint64)mb * V + v) * 2;
        G->phase = fwd ? WEFT_PHASE_FORWARD : WEFT_PHASE_IGRAD; /* pipeline transfers */
        if (fwd) {
            if (!started[chunk]) {
                started[chunk] = 1;
                extra_dep(G, ag[2 * chunk]);
                extra_dep(G, ag[2 * chunk + 1]);
            }
            if (v > 0) {
                add(G, WEFT_NODE_RECV, "pp_recv_activation", 0, 0, pp_bytes, K_NONE, P_STAGE,
                    (p + pp - 1) % pp, tag_base, 0, pp_bytes, TRUE);
                if (sg) {
                    coll(G, "pp_gather_activation", WEFT_COLL_ALL_GATHER, act, K_TP, TRUE);
                }
            }
            chunk_pass(G, v, FALSE);
            /* Megatron's p2p calls (send_forward, send_forward_recv_backward, ...) wait for
             * their requests: the stage's stream continues once the send is done. Sends
             * are eager in weft, so this cannot deadlock. */
            if (v < V - 1) {
                add(G, WEFT_NODE_SEND, "pp_send_activation", 0, 0, pp_bytes, K_NONE, P_STAGE,
                    (p + 1) % pp, tag_base + 2, 0, pp_bytes, TRUE);
            }
        } else {
            if (v < V - 1) {
                add(G, WEFT_NODE_RECV, "pp_recv_gradient", 0, 0, pp_bytes, K_NONE, P_STAGE,
                    (p + 1) % pp, tag_base + 1, 0, pp_bytes, TRUE);
                if (sg) {
                    coll(G, "pp_gather_gradient", WEFT_COLL_ALL_GATHER, act, K_TP, TRUE);
                }
            }
            chunk_pass(G, v, TRUE);
            if (v > 0) {
                add(G, WEFT_NODE_SEND, "pp_send_gradient", 0, 0, pp_bytes, K_NONE, P_STAGE,
                    (p + pp - 1) % pp, tag_base - 2 + 1, 0, pp_bytes, TRUE);
            }
            /* With overlap, a chunk's gradients are reduced once its last backward is done
             * (Megatron's --overlap-grad-reduce), off the compute stream. */
            if (++bwd_done[chunk] == M && c->overlap_dp && G->zero < 3) {
                grad_sync(G, dense[chunk], expert[chunk], FALSE, &grad[2 * chunk]);
            }
        }
    }
    if (!c->overlap_dp && G->zero < 3) {
        grad_sync(G, dense_all, expert_all, TRUE, &grad[0]);
    }
    for (guint k = 0; k < 2 * vpp; k++) {
        extra_dep(G, grad[k]);
    }
    for (guint k = 0; k < G->z3_grads->len; k++) {
        extra_dep(G, g_array_index(G->z3_grads, gint64, k));
    }
    G->phase = WEFT_PHASE_OPTIMIZER;
    comp(G, "optimizer", 0, WEFT_GEN_ADAM_BYTES * local);
    if (gathers && !c->overlap_dp) {
        coll(G, "dp_allgather_params", WEFT_COLL_ALL_GATHER, 2 * dense_all, K_DPCP, TRUE);
        coll(G, "edp_allgather_params", WEFT_COLL_ALL_GATHER, 2 * expert_all, K_EDP, TRUE);
    }
}

/* ---- ranks and communicators --------------------------------------------------------- */

typedef struct {
    guint tp, cp, dp, pp, ep;
    gint base[K_N];
    guint shard; /* FSDP hybrid's shard group size (1 otherwise) */
} layout_t;

/* The group id of rank @r in @kind. */
static guint
group_of(const layout_t *lo, kind_t kind, guint r)
{
    guint t = r % lo->tp, c = (r / lo->tp) % lo->cp, d = (r / (lo->tp * lo->cp)) % lo->dp;
    guint p = r / (lo->tp * lo->cp * lo->dp);
    guint e = d % lo->ep, k = d / lo->ep;
    switch (kind) {
    case K_TP:
        return (p * lo->dp + d) * lo->cp + c;
    case K_DPCP:
        return p * lo->tp + t;
    case K_EP:
        return ((p * lo->tp + t) * lo->cp + c) * (lo->dp / lo->ep) + k;
    case K_EDP:
        return ((p * lo->tp + t) * lo->cp + c) * lo->ep + e;
    case K_SHARD: /* j = c + cp d, the rank's place in its DP x CP group */
        return (p * lo->tp + t) * (lo->cp * lo->dp / lo->shard) + (c + lo->cp * d) / lo->shard;
    case K_REPL:
        return (p * lo->tp + t) * lo->shard + (c + lo->cp * d) % lo->shard;
    default:
        g_assert_not_reached();
    }
}

static void
build_groups(weft_workload_t *wl, layout_t *lo, kind_t kind, guint size)
{
    guint n = lo->tp * lo->cp * lo->dp * lo->pp;
    lo->base[kind] = -1;
    if (size < 2) {
        return;
    }
    guint n_groups = n / size;
    g_autofree guint *fill = g_new0(guint, n_groups);
    g_autofree guint *members = g_new(guint, n);
    for (guint r = 0; r < n; r++) {
        guint g = group_of(lo, kind, r);
        g_assert(g < n_groups && fill[g] < size);
        members[g * size + fill[g]++] = r;
    }
    lo->base[kind] = (gint)wl->comms->len;
    for (guint g = 0; g < n_groups; g++) {
        g_autofree char *name = g_strdup_printf("%s.%u", kind_prefix[kind], g);
        g_ptr_array_add(wl->comms, weft_workload_i_comm_new(name, members + g * size, size));
    }
}

/* One layer's activations per micro-batch (memory.h, Korthikanti et al. 2022 Table 2) at
 * S / CP tokens per rank: @stored what its forward keeps until its backward, @work what a
 * full recomputation rebuilds before the backward (the layer without recomputation; 0
 * otherwise). */
static void
gen_activations(const weft_gen_config_t *c, double *stored, double *work)
{
    static const weft_mem_recompute_t mode[] = {
        [WEFT_GEN_RECOMPUTE_NONE] = WEFT_MEM_RECOMPUTE_NONE,
        [WEFT_GEN_RECOMPUTE_SELECTIVE] = WEFT_MEM_RECOMPUTE_SELECTIVE,
        [WEFT_GEN_RECOMPUTE_FULL] = WEFT_MEM_RECOMPUTE_FULL,
    };
    double s = (double)c->seq / c->cp, b = c->micro_batch, h = c->hidden, a = c->heads;
    gboolean sp = c->sp && c->tp > 1, flash = !c->unfused_attention;
    *stored = weft_mem_activation_layer_bytes(s, b, h, a, c->tp, sp, mode[c->recompute], flash);
    *work = c->recompute == WEFT_GEN_RECOMPUTE_FULL
                ? weft_mem_activation_layer_bytes(s, b, h, a, c->tp, sp, WEFT_MEM_RECOMPUTE_NONE,
                                                  flash)
                : 0;
}

weft_workload_t *
weft_gen_transformer(const weft_gen_config_t *c, const weft_hw_gpu_t *gpu, GError **error)
{
    g_return_val_if_fail(c != NULL && gpu != NULL, NULL);
    if (!weft_gen_validate(c, 0, error)) {
        return NULL;
    }
    if (c->fp8 && !weft_kernel_supports(gpu, WEFT_KERNEL_FP8)) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "precision fp8: %s %s; use precision bf16", gpu->name,
                    gpu->fp8_flops > 0 ? "has no measured FP8 matmul rate to calibrate on"
                                       : "has no FP8 tensor cores (FP8 came with Hopper)");
        return NULL;
    }
    guint n = c->tp * c->pp * c->dp * c->cp;
    g_autoptr(weft_workload_t) wl = g_new0(weft_workload_t, 1);
    wl->source = g_strdup("weft gen transformer");
    wl->strings = g_string_chunk_new(4096);
    wl->comms = g_ptr_array_new_with_free_func(weft_workload_i_comm_free);
    wl->n_ranks = n;
    {
        g_autofree guint *world = g_new(guint, n);
        for (guint r = 0; r < n; r++) {
            world[r] = r;
        }
        g_ptr_array_add(wl->comms, weft_workload_i_comm_new("0", world, n));
    }
    gboolean hybrid = c->fsdp == WEFT_GEN_FSDP_HYBRID;
    layout_t lo = {c->tp,
                   c->cp,
                   c->dp,
                   c->pp,
                   c->ep,
                   {-1, -1, -1, -1, -1, -1, -1},
                   hybrid ? c->fsdp_shard_group : 1};
    build_groups(wl, &lo, K_TP, c->tp);
    build_groups(wl, &lo, K_DPCP, c->dp * c->cp);
    build_groups(wl, &lo, K_EP, c->experts > 1 ? c->ep : 1);
    build_groups(wl, &lo, K_EDP, c->experts > 1 ? c->dp / c->ep : 1);
    build_groups(wl, &lo, K_SHARD, hybrid ? c->fsdp_shard_group : 1);
    build_groups(wl, &lo, K_REPL, hybrid ? c->dp * c->cp / c->fsdp_shard_group : 1);
    /* layer ids in model order: embedding 1, transformer layers 2 .. layers + 1, output
     * (chunk_pass() counts on it) */
    if (c->layers + 3 > WEFT_LAYER_MAX) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "layers %u: at most %u can be told apart", c->layers, WEFT_LAYER_MAX - 3);
        return NULL;
    }
    weft_workload_layer_id(wl, "embedding");
    for (guint l = 0; l < c->layers; l++) {
        char lname[32];
        g_snprintf(lname, sizeof(lname), "layer.%u", l);
        weft_workload_layer_id(wl, lname);
    }
    weft_workload_layer_id(wl, "output");
    g_autofree guint16 *chunk_layer = g_new(guint16, c->pp * c->vpp);
    for (guint v = 0, l = 2; v < c->pp * c->vpp; v++) {
        chunk_layer[v] = (guint16)l;
        l += weft_gen_chunk_layers(c, v);
    }

    wl->ranks = g_new0(weft_rank_trace_t, n);
    wl->resident = g_malloc0_n(n, sizeof(*wl->resident));
    guint per_stage = c->tp * c->cp * c->dp;
    for (guint st = 0; st < c->pp; st++) {
        gen_t G = {
            .c = c, .gpu = gpu, .wl = wl, .prev = -1, .stage = st, .chunk_layer = chunk_layer};
        G.extra = g_array_new(FALSE, FALSE, sizeof(guint32));
        G.z3_grads = g_array_new(FALSE, FALSE, sizeof(gint64));
        G.zero = weft_gen_zero_stage(c);
        G.grad_bytes = G.zero >= 2 ? 2.0 : 4.0;
        G.T = (guint64)c->micro_batch * c->seq / c->cp;
        G.e = 2.0; /* BF16 activations (FP8 runs GEMMs in FP8 but keeps BF16 activations) */
        gen_activations(c, &G.act_stored, &G.act_work);
        /* whole bytes before they are added up, so what a layer frees is what it allocated */
        G.act_stored = (double)llround(G.act_stored);
        G.act_work = (double)llround(G.act_work);
        seq_init(&G.s);
        expand_stage(&G);
        seq_t *s = &G.s;
        guint nn = s->b.type->len;
        guint owner = st * per_stage;
        for (guint r = owner; r < owner + per_stage; r++) {
            weft_rank_trace_t *t = &wl->ranks[r];
            t->file = g_strdup_printf("generated rank %u", r);
            t->comm = g_new(gint32, MAX(nn, 1));
            t->peer = g_new(gint32, MAX(nn, 1));
            guint ci = (r / c->tp) % c->cp;
            for (guint i = 0; i < nn; i++) {
                guint8 k = g_array_index(s->b.kind, guint8, i);
                t->comm[i] = k == K_NONE ? -1 : lo.base[k] + (gint32)group_of(&lo, k, r);
                switch (g_array_index(s->pkind, guint8, i)) {
                case P_STAGE:
                    t->peer[i] =
                        (gint32)(r - owner + g_array_index(s->pstage, guint32, i) * per_stage);
                    break;
                case P_CP_NEXT:
                    t->peer[i] = (gint32)(r + (((ci + 1) % c->cp) - ci) * c->tp);
                    break;
                case P_CP_PREV:
                    t->peer[i] = (gint32)(r + (((ci + c->cp - 1) % c->cp) - ci) * c->tp);
                    break;
                default:
                    t->peer[i] = -1;
                    break;
                }
            }
        }
        weft_rank_trace_t *o = &wl->ranks[owner];
        weft_workload_i_seq_to_trace(&s->b, o);
        o->num_ops = (double *)g_array_steal(s->ops, NULL);
        o->tensor_bytes = (guint64 *)g_array_steal(s->tsize, NULL);
        if (s->any_smsc) {
            o->sms_counted = (guint8 *)g_array_steal(s->smsc, NULL);
        }
        o->mem_alloc = (guint64 *)g_array_steal(s->malloc_, NULL);
        o->mem_free = (guint64 *)g_array_steal(s->mfree, NULL);
        o->mem_cat = (guint8 *)g_array_steal(s->mcat, NULL);
        o->layer = (guint16 *)g_array_steal(s->layer, NULL);
        o->phase = (guint8 *)g_array_steal(s->phase, NULL);
        for (guint r = owner; r < owner + per_stage; r++) {
            for (guint k = 0; k < WEFT_MEM_N_CATS; k++) {
                wl->resident[r][k] = (guint64)llround(G.resident[k]);
            }
        }
        weft_workload_i_seq_lend(o, per_stage);
        seq_clear(s);
        g_array_unref(G.extra);
        g_array_unref(G.z3_grads);
    }
    return g_steal_pointer(&wl);
}

/* ---- generator specs: a step to generate at load time ------------------------------ */

gboolean
weft_gen_is_spec(const char *path)
{
    g_return_val_if_fail(path != NULL, FALSE);
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
        return FALSE;
    }
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        return FALSE;
    }
    char buf[256];
    gboolean found = FALSE;
    /* The first line that is not blank or a comment opens the [transformer] group. */
    while (fgets(buf, sizeof(buf), fp) != NULL) {
        g_strstrip(buf);
        if (buf[0] == '\0' || buf[0] == '#' || buf[0] == ';') {
            continue;
        }
        found = strcmp(buf, "[transformer]") == 0;
        break;
    }
    fclose(fp);
    return found;
}

/* ---- the [transformer] keys -------------------------------------------------------- */

static const char *const recompute_names[] = {"none", "selective", "full", NULL};
const weft_enum_t weft_gen_recompute_enum = {"recompute mode", recompute_names};
static const char *const precision_names[] = {"bf16", "fp8", NULL};
const weft_enum_t weft_gen_precision_enum = {"GEMM precision", precision_names};
static const char *const attention_names[] = {"fused", "unfused", NULL};
static const char *const oom_names[] = {"warn", "error", NULL};
const weft_enum_t weft_gen_oom_enum = {"out-of-memory policy", oom_names};
const weft_enum_t weft_gen_attention_enum = {"attention kind", attention_names};
static const char *const fsdp_names[] = {"none", "full", "hybrid", NULL};
const weft_enum_t weft_gen_fsdp_enum = {"FSDP sharding strategy", fsdp_names};
static const char *const finetune_names[] = {"full", "lora", "qlora", NULL};
const weft_enum_t weft_gen_finetune_enum = {"fine-tuning method", finetune_names};
static const char *const lora_targets_names[] = {"qv", "all", NULL};
const weft_enum_t weft_gen_lora_targets_enum = {"LoRA targets", lora_targets_names};

/* transformer.model: a preset (the error lists them), applied before every other key. */
static gboolean
check_model(const char *text, GError **error)
{
    weft_gen_config_t c;
    return weft_gen_preset(text, &c, error);
}

static gboolean
apply_model(void *obj, const char *text, GError **error)
{
    return weft_gen_preset(text, &((weft_gen_spec_t *)obj)->c, error);
}

/* transformer.gpu: a GPU of the hw catalog; the error lists them. */
static gboolean
check_gpu(const char *text, GError **error)
{
    return weft_hw_gpu(text, error) != NULL;
}

#define C_FIELD(m) WEFT_KEY_FIELD(weft_gen_spec_t, c.m)
#define TF_UINT(name, lo, m, opt, what)                                                            \
    {                                                                                              \
        "transformer", name, WEFT_KEY_UINT, NULL, what, .imin = lo, .imax = G_MAXUINT32,           \
        .field = C_FIELD(m), .option = opt, .arg = "N"                                             \
    }
#define TF_BOOL(name, m, opt, flag, what)                                                          \
    {                                                                                              \
        "transformer", name, WEFT_KEY_BOOL, NULL, what, .field = C_FIELD(m), .option = opt,        \
        .flag_value = flag, .arg = "0|1"                                                           \
    }
#define TF_ENUM(name, m, table, opt, arg_, what)                                                   \
    {                                                                                              \
        "transformer", name, WEFT_KEY_ENUM, NULL, what, .choices = &table, .field = C_FIELD(m),   \
        .option = opt, .arg = arg_                                                                 \
    }

/* In the order they apply (model first) and are written. */
const weft_key_t weft_gen_keys[] = {
    {"transformer", "model", WEFT_KEY_STRING, NULL,
     "instead of a trace, generate a training step: a weft gen preset (gpt3-175b, "
     "llama3.1-405b, ...) whose fields the keys below override",
     .check = check_model, .apply = apply_model, .field = WEFT_KEY_FIELD(weft_gen_spec_t, model),
     .option = "model", .short_option = 'm', .arg = "NAME"},
    TF_UINT("layers", 1, layers, "layers", "transformer layers"),
    TF_UINT("hidden", 1, hidden, "hidden", "hidden size"),
    TF_UINT("heads", 1, heads, "heads", "attention heads"),
    TF_UINT("kv_heads", 1, kv_heads, "kv-heads", "key-value heads (grouped-query attention)"),
    TF_UINT("ffn", 1, ffn, "ffn", "MLP hidden size"),
    TF_UINT("vocab", 1, vocab, "vocab", "vocabulary size"),
    TF_UINT("seq", 1, seq, "seq", "sequence length (tokens)"),
    TF_UINT("experts", 0, experts, "experts", "MoE experts (0 or 1: dense MLP)"),
    TF_UINT("top_k", 0, top_k, "top-k", "experts per token"),
    TF_BOOL("gated", gated, "gated", NULL,
            "SwiGLU MLP, 3 matrices (Llama, Mixtral)"),
    TF_ENUM("attention", unfused_attention, weft_gen_attention_enum, "attention", "KIND",
            "fused (flash attention) or unfused (Megatron-LM 2022)"),
    TF_UINT("tp", 1, tp, "tp", "tensor-parallel size (default 1)"),
    TF_UINT("pp", 1, pp, "pp", "pipeline-parallel size (default 1)"),
    {"transformer", "dp", WEFT_KEY_UINT, NULL,
     "data-parallel size; unset: the cluster's GPUs / (tp x pp x cp)", .imin = 1,
     .imax = G_MAXUINT32, .field = C_FIELD(dp), .given = WEFT_KEY_FIELD(weft_gen_spec_t, dp_given),
     .option = "dp", .arg = "N"},
    TF_UINT("cp", 1, cp, "cp", "context-parallel size (default 1)"),
    TF_UINT("ep", 1, ep, "ep", "expert-parallel size, inside dp (default 1)"),
    TF_UINT("vpp", 1, vpp, "vpp", "virtual pipeline stages per rank (default 1: 1F1B)"),
    TF_BOOL("sp", sp, "sp", "true", "sequence parallelism (with tp > 1)"),
    TF_BOOL("dist_opt", dist_opt, "dist-opt", "true",
            "distributed optimizer (reduce-scatter + all-gather)"),
    {"transformer", "zero", WEFT_KEY_UINT, NULL,
     "ZeRO stage: 0 replicated, 1 optimizer states sharded (= dist_opt), 2 + gradients "
     "(reduce-scattered), 3 + weights (all-gathered per layer before its forward and its "
     "backward, DeepSpeed stage 3 / FSDP semantics); default 0",
     .imin = 0, .imax = 3, .field = C_FIELD(zero), .option = "zero", .arg = "0-3"},
    TF_ENUM("fsdp", fsdp, weft_gen_fsdp_enum, "fsdp", "MODE",
            "PyTorch FSDP: none (default), full (FULL_SHARD: ZeRO-3 over dp x cp) or hybrid "
            "(HYBRID_SHARD: ZeRO-3 in shard groups of fsdp_shard_group ranks, gradients "
            "all-reduced across them)"),
    TF_UINT("fsdp_shard_group", 0, fsdp_shard_group, "fsdp-shard-group",
            "ranks per FSDP hybrid shard group (divides dp x cp; e.g. the GPUs of a node)"),
    TF_ENUM("finetune", finetune, weft_gen_finetune_enum, "finetune", "MODE",
            "full (default: every weight trained), lora (frozen BF16 base, rank-r adapters "
            "trained) or qlora (frozen 4-bit NF4 base)"),
    /* 0 is read (a spec written from a configuration with finetune full may hold it) and
     * refused by weft_gen_validate() with lora / qlora */
    TF_UINT("lora_rank", 0, lora_rank, "lora-rank",
            "LoRA rank r, at least 1 with finetune lora or qlora (default 8, PEFT's LoraConfig)"),
    TF_ENUM("lora_targets", lora_targets, weft_gen_lora_targets_enum, "lora-targets", "WHICH",
            "LoRA's adapted matrices: qv (W_q, W_v: Hu et al. 2021 and PEFT's default) or all "
            "(every linear layer of a transformer layer, as QLoRA)"),
    TF_BOOL("overlap_dp", overlap_dp, "no-overlap", "false",
            "overlap gradient reduction and parameter gathering with compute (presets: true)"),
    TF_BOOL("pp_scatter_gather", pp_scatter_gather, "no-pp-scatter-gather", "false",
            "without sp, each TP rank sends 1/tp of a pipeline activation or gradient and the "
            "receiving stage all-gathers it over NVLink (Megatron-LM's scatter/gather "
            "optimization, --no-scatter-gather-tensors-in-pipeline: false; default true)"),
    TF_BOOL("tp_overlap", tp_overlap, "tp-overlap", "true",
            "tensor-parallel communication overlap (NeMo's tp_comm_overlap, Transformer "
            "Engine userbuffers): SP all-gathers and reduce-scatters pipelined with their GEMMs "
            "in chunks; needs sp (Megatron-LM's default: false)"),
    TF_UINT("first_stage_layers", 0, first_stage_layers, "first-stage-layers",
            "layers of the first pipeline stage (Megatron's "
            "--decoder-first-pipeline-num-layers; 0: even stages)"),
    TF_UINT("last_stage_layers", 0, last_stage_layers, "last-stage-layers",
            "layers of the last pipeline stage (--decoder-last-pipeline-num-layers; 0: even)"),
    TF_BOOL("account_embedding", account_embedding, "account-embedding", "true",
            "the embedding counts as a layer in the pipeline split (Megatron's "
            "--account-for-embedding-in-pipeline-split)"),
    TF_BOOL("account_loss", account_loss, "account-loss", "true",
            "the loss counts as a layer in the pipeline split "
            "(--account-for-loss-in-pipeline-split)"),
    TF_UINT("micro_batch", 1, micro_batch, "micro-batch", "sequences per micro-batch (default 1)"),
    {"transformer", "global_batch", WEFT_KEY_UINT, NULL,
     "sequences per step; unset: micro_batch x dp", .imin = 1, .imax = G_MAXUINT32,
     .field = C_FIELD(global_batch), .given = WEFT_KEY_FIELD(weft_gen_spec_t, global_batch_given),
     .option = "global-batch", .arg = "N"},
    TF_ENUM("recompute", recompute, weft_gen_recompute_enum, "recompute", "MODE",
            "activation recomputation: none, selective, full"),
    TF_ENUM("precision", fp8, weft_gen_precision_enum, "precision", "P",
            "GEMM precision: bf16 (default) or fp8"),
    {"transformer", "gpu", WEFT_KEY_STRING, NULL,
     "GPU model of the compute times (hw catalog); unset: h100", .check = check_gpu,
     .field = WEFT_KEY_FIELD(weft_gen_spec_t, gpu), .option = "gpu", .arg = "NAME"},
    {"memory", "oom", WEFT_KEY_ENUM, "warn",
     "a generated step whose per-GPU memory estimate (weights, gradients, optimizer, "
     "activations of stage 0; weft gen) exceeds the GPU's HBM: warn (a warning line) or error "
     "(the run fails)",
     .choices = &weft_gen_oom_enum, .field = WEFT_KEY_FIELD(weft_gen_spec_t, oom)},
};
const guint weft_gen_n_keys = G_N_ELEMENTS(weft_gen_keys);

void
weft_gen_spec_init(weft_gen_spec_t *spec)
{
    g_return_if_fail(spec != NULL);
    memset(spec, 0, sizeof *spec);
    weft_gen_config_t *c = &spec->c;
    c->tp = c->pp = c->dp = c->cp = c->ep = c->vpp = c->micro_batch = 1;
    c->overlap_dp = TRUE;
    c->pp_scatter_gather = TRUE;
    c->lora_rank = WEFT_GEN_LORA_RANK_DEFAULT;
}

gboolean
weft_gen_spec_finish(weft_gen_spec_t *spec, guint n_gpus, const char *origin, GError **error)
{
    g_return_val_if_fail(spec != NULL && origin != NULL, FALSE);
    weft_gen_config_t *c = &spec->c;
    if (spec->model == NULL) {
        if (c->layers == 0 || c->hidden == 0 || c->heads == 0) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        "%s: give a model preset (model, --model NAME), or layers, hidden and "
                        "heads (and optionally ffn, vocab, ...)",
                        origin);
            return FALSE;
        }
        /* the defaults of a model described by its sizes (doc/workloads.md) */
        c->kv_heads = c->kv_heads > 0 ? c->kv_heads : c->heads;
        c->ffn = c->ffn > 0 ? c->ffn : 4 * c->hidden;
        c->vocab = c->vocab > 0 ? c->vocab : 51200;
        c->seq = c->seq > 0 ? c->seq : 2048;
    }
    /* dp unset: every GPU of the cluster (when the caller knows it) takes part. */
    if (n_gpus > 0 && !spec->dp_given) {
        guint per_replica = c->tp * c->pp * c->cp;
        if (per_replica == 0 || n_gpus % per_replica != 0) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        "%s: [transformer] dp is unset and the cluster's %u GPUs are not a "
                        "multiple of tp x pp x cp = %u x %u x %u = %u: set dp",
                        origin, n_gpus, c->tp, c->pp, c->cp, per_replica);
            return FALSE;
        }
        c->dp = n_gpus / per_replica;
    }
    /* global_batch unset: one micro-batch per data-parallel rank (weft gen's default). */
    if (!spec->global_batch_given) {
        guint64 gb = (guint64)c->micro_batch * c->dp;
        if (gb > G_MAXUINT32) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        "%s: [transformer] global_batch is unset and micro_batch %u x dp %u = "
                        "%" G_GUINT64_FORMAT " does not fit (at most %u)",
                        origin, c->micro_batch, c->dp, gb, G_MAXUINT32);
            return FALSE;
        }
        c->global_batch = (guint)gb;
    }
    if (spec->gpu == NULL) {
        spec->gpu = "h100";
    }
    return TRUE;
}

gboolean
weft_gen_write_spec(const weft_gen_config_t *c, const char *gpu, const char *path, GError **error)
{
    g_return_val_if_fail(c != NULL && gpu != NULL && path != NULL, FALSE);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    /* every field of the table, as its row stores it (the model is already applied) */
    weft_gen_spec_t spec = {.c = *c, .gpu = gpu};
    for (guint i = 0; i < weft_gen_n_keys; i++) {
        const weft_key_t *k = &weft_gen_keys[i];
        if (strcmp(k->group, "transformer") != 0) {
            continue; /* memory.oom is the scenario's, not the spec's */
        }
        gconstpointer f = G_STRUCT_MEMBER_P(&spec, k->field - 1);
        if (k->type == WEFT_KEY_UINT) {
            g_key_file_set_uint64(kf, "transformer", k->key, *(const guint *)f);
        } else if (k->type == WEFT_KEY_BOOL) {
            g_key_file_set_boolean(kf, "transformer", k->key, *(const gboolean *)f);
        } else if (k->type == WEFT_KEY_ENUM) {
            g_key_file_set_string(kf, "transformer", k->key,
                                  weft_enum_name(k->choices, *(const gint *)f));
        } else if (*(const char *const *)f != NULL) {
            g_key_file_set_string(kf, "transformer", k->key, *(const char *const *)f);
        }
    }
    gsize len = 0;
    g_autofree char *body = g_key_file_to_data(kf, &len, NULL);
    g_autofree char *text = g_strdup_printf("# weft gen transformer: one training step, "
                                            "generated when weft replay --trace loads it\n%s",
                                            body);
    g_autoptr(GError) e = NULL;
    if (!weft_output_write(path, text, -1, &e)) {
        g_set_error_literal(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_IO, e->message);
        return FALSE;
    }
    return TRUE;
}

static weft_workload_t *load_keyfile(GKeyFile *kf, const char *path, guint n_gpus,
                                     const weft_hw_gpu_t *cluster_gpu, const char *cluster,
                                     GError **error);

weft_workload_t *
weft_gen_load_spec(const char *path, GError **error)
{
    return weft_gen_load_spec_on(path, NULL, NULL, error);
}

weft_workload_t *
weft_gen_load_spec_on(const char *path, const weft_hw_gpu_t *cluster_gpu, const char *cluster,
                      GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_return_val_if_fail(cluster_gpu == NULL || cluster != NULL, NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) e = NULL;
    /* a key or group given twice is refused, as in every other weft file */
    if (!weft_keyfile_load_file(kf, path, &e)) {
        gint code = e->domain == G_FILE_ERROR ? WEFT_WORKLOAD_ERROR_IO : WEFT_WORKLOAD_ERROR_VALUE;
        if (g_str_has_prefix(e->message, path)) {
            g_set_error_literal(error, WEFT_WORKLOAD_ERROR, code, e->message);
        } else {
            g_set_error(error, WEFT_WORKLOAD_ERROR, code, "%s: %s", path, e->message);
        }
        return NULL;
    }
    return load_keyfile(kf, path, 0, cluster_gpu, cluster, error);
}

weft_workload_t *
weft_gen_load_keyfile(GKeyFile *kf, const char *path, guint n_gpus, GError **error)
{
    g_return_val_if_fail(kf != NULL && path != NULL, NULL);
    return load_keyfile(kf, path, n_gpus, NULL, NULL, error);
}

/* weft_gen_load_keyfile(), the step computing on @cluster_gpu (NULL: the spec's gpu) as
 * weft_gen_spec_use_cluster_gpu() says. */
static weft_workload_t *
load_keyfile(GKeyFile *kf, const char *path, guint n_gpus, const weft_hw_gpu_t *cluster_gpu,
             const char *cluster, GError **error)
{
    /* each key checked against its row; then the rows apply in the table's order */
    g_autofree char **texts = g_new0(char *, weft_gen_n_keys);
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "transformer", NULL, NULL);
    gboolean ok = TRUE;
    for (guint k = 0; ok && keys != NULL && keys[k] != NULL; k++) {
        g_autofree char *v = g_strstrip(g_key_file_get_value(kf, "transformer", keys[k], NULL));
        const weft_key_t *row = weft_keys_find(weft_gen_keys, weft_gen_n_keys, "transformer",
                                               keys[k]);
        g_autoptr(GError) e = NULL;
        if (row == NULL) {
            g_autofree char *valid = weft_keys_list(weft_gen_keys, weft_gen_n_keys, "transformer");
            g_autofree char *hint =
                weft_keys_suggest(weft_gen_keys, weft_gen_n_keys, "transformer", keys[k]);
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        "%s: [transformer] unknown key '%s' (value '%s')%s; valid keys: %s", path,
                        keys[k], v, hint != NULL ? hint : "", valid);
            ok = FALSE;
        } else {
            /* GKeyFile lists a key loaded twice twice (both with its last value): the text
             * of the first is replaced, not leaked */
            char **slot = &texts[row - weft_gen_keys];
            g_clear_pointer(slot, g_free);
            if (!weft_key_check(row, v, NULL, slot, &e)) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE, "%s: %s",
                            path, e->message);
                ok = FALSE;
            }
        }
    }
    weft_gen_spec_t spec;
    weft_gen_spec_init(&spec);
    for (guint i = 0; ok && i < weft_gen_n_keys; i++) {
        g_autoptr(GError) e = NULL;
        if (!weft_key_apply(&weft_gen_keys[i], texts[i], &spec, &e)) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE, "%s: %s", path,
                        e->message);
            ok = FALSE;
        }
    }
    if (ok && cluster_gpu != NULL) {
        ok = weft_gen_spec_use_cluster_gpu(&spec, cluster_gpu, cluster, path, error);
    }
    weft_workload_t *wl = ok ? weft_gen_spec_generate(&spec, n_gpus, path, error) : NULL;
    for (guint i = 0; i < weft_gen_n_keys; i++) {
        g_free(texts[i]);
    }
    return wl;
}

/* The catalog GPU @spec names, or NULL with @error naming @origin's gpu key. */
static const weft_hw_gpu_t *
spec_gpu(const weft_gen_spec_t *spec, const char *origin, GError **error)
{
    g_autoptr(GError) e = NULL;
    const weft_hw_gpu_t *gpu = weft_hw_gpu(spec->gpu, &e);
    if (gpu == NULL) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "%s: [transformer] gpu: %s", origin, e->message);
    }
    return gpu;
}

gboolean
weft_gen_spec_use_cluster_gpu(weft_gen_spec_t *spec, const weft_hw_gpu_t *cluster_gpu,
                              const char *cluster, const char *origin, GError **error)
{
    g_return_val_if_fail(spec != NULL && cluster != NULL && origin != NULL, FALSE);
    if (cluster_gpu == NULL) {
        return TRUE;
    }
    if (spec->gpu == NULL) {
        spec->gpu = cluster_gpu->name; /* the catalog's: lives as long as the program */
        return TRUE;
    }
    const weft_hw_gpu_t *given = spec_gpu(spec, origin, error);
    if (given == NULL) {
        return FALSE;
    }
    if (given != cluster_gpu) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "%s: [transformer] gpu = \"%s\" (%s) disagrees with cluster %s, whose GPUs "
                    "are %s: the cluster's GPUs run the step; leave gpu unset (or set it to %s), "
                    "or change the cluster's gpu",
                    origin, spec->gpu, given->name, cluster, cluster_gpu->name, cluster_gpu->name);
        return FALSE;
    }
    return TRUE;
}

weft_workload_t *
weft_gen_spec_generate(weft_gen_spec_t *spec, guint n_gpus, const char *origin, GError **error)
{
    g_return_val_if_fail(spec != NULL && origin != NULL, NULL);
    if (!weft_gen_spec_finish(spec, n_gpus, origin, error)) {
        return NULL;
    }
    const weft_hw_gpu_t *gpu = spec_gpu(spec, origin, error);
    if (gpu == NULL) {
        return NULL;
    }
    /* memory.oom is applied to the replay's peaks (scenario_run.c), not here: the peak comes
     * from the simulated order (doc/memory.md) */
    weft_workload_t *wl = weft_gen_transformer(&spec->c, gpu, error);
    if (wl == NULL) {
        g_prefix_error(error, "%s: ", origin);
        return NULL;
    }
    g_free(wl->source);
    wl->source = g_strdup(origin);
    return wl;
}
