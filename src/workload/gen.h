/* SPDX-License-Identifier: MIT */
/*
 * The training-step generator: one step of a decoder-only transformer trained
 * as Megatron-LM trains it, as a per-rank workload (and Chakra ET files).
 *
 * Ranks: r = t + TP (c + CP (d + DP p)) (tensor fastest, then context, data,
 * pipeline outermost: Megatron's "tp-cp-ep-dp-pp" order); expert-parallel
 * groups are blocks of EP consecutive data-parallel ranks, expert-data groups
 * the ranks with the same expert index (DP / EP members).
 *
 * Per layer and micro-batch (b sequences of S tokens, T = b S / CP tokens per
 * rank, hidden h, a heads, g KV heads, head dim d = h / a, FFN f, TP t):
 *   attention: [AG if SP] QKV GEMM 2 T h (h + 2 g d) / t, core 2 T S h / t
 *   (causal half of 4 T S h, split in CP chunks with a KV exchange SEND/RECV of
 *   2 T g d e / t bytes between ring neighbours before each chunk after the
 *   first: ring attention), projection 2 T h^2 / t, then RS (SP) or AR of
 *   T h e bytes in the TP group; MLP: [AG] FC1 + FC2 2 T h f (3 if gated,
 *   else 2) / t, then RS or AR; MoE: router, all-to-all dispatch and combine of
 *   T k h e bytes in the EP group, experts 2 T k h f (3|2) / t; elementwise
 *   work (norms, residuals, activation, dropout) as ELEM_PASSES passes over the
 *   T h e activation; a dense MLP is FC1 (column-parallel, h -> (2 gated | 1) f / t)
 *   then FC2 (row-parallel, f / t -> h), one node each. Backward: GEMMs and core x 2 (data and weight
 *   gradients), the TP collectives mirrored (AG <-> RS; AR for non-SP); each
 *   column-parallel layer (QKV, FC1, output) as Megatron-LM's
 *   LinearWithGradAccumulationAndAsyncCommunication runs it: data-gradient GEMM
 *   (beside, with SP, the all-gather of its input again), then weight-gradient GEMM
 *   beside the input gradient's AR or RS; then the
 *   weight gradients accumulated into FP32 main_grad (GRAD_ACCUM_BYTES per local
 *   parameter). With tp_overlap (Transformer Engine userbuffers, as NeMo configures
 *   them for GPT-3 175B) each SP all-gather and reduce-scatter next to a GEMM is
 *   pipelined with it in chunks (doc/workloads.md): chunk i of n is the GEMM over
 *   its T / n tokens with the whole weight, which the kernel model times as the
 *   smaller GEMM it is. Compute and communication that
 *   overlap on a rank do not slow each other (no SM contention is modelled). Full
 *   recomputation reruns the layer's forward before its backward, selective the
 *   attention core (Korthikanti et al., 2022). The first virtual stage has the
 *   embedding, the last the output layer (untied) and the vocab-parallel
 *   cross-entropy (three all-reduces of T x 4 bytes). Layers per virtual stage:
 *   weft_gen_chunk_layers() (even, or Megatron-LM's uneven splits).
 *
 * Pipeline: 1F1B (vpp = 1) or Megatron's interleaved schedule (vpp > 1; warm-up
 * (pp - p - 1) 2 + (vpp - 1) pp), activations and gradients of T h e bytes by
 * SEND/RECV, the sender's stream waiting for its send as Megatron's p2p calls
 * wait for their requests. Data: gradients (FP32, 4 B/param) all-reduced over DP x CP (dense)
 * and over the expert-data group (experts), or with the distributed optimizer
 * reduce-scattered, then the optimizer; the BF16 parameters all-gathered. With
 * overlap_dp (Megatron's overlap flags) each chunk's gradient reduction starts
 * after its last backward and its parameter all-gather before its first
 * forward, off the compute stream; without, all after the last backward. The optimizer is memory
 * bound: ADAM_BYTES per local parameter.
 *
 * ZeRO and FSDP (Rajbhandari et al., SC20; Zhao et al., VLDB 2023): zero 1 is the distributed
 * optimizer; zero 2 the same collectives on BF16 gradients (2 B/param, the ZeRO paper's and
 * DeepSpeed's), gradients sharded in memory; zero 3 / fsdp full / fsdp hybrid gather each FSDP
 * unit's BF16 parameters (a transformer layer; the embedding; the output layer) over the shard
 * group before its forward and again before its backward, every micro-batch, allocated as the
 * gather starts and freed after the unit (category weights), the next unit's gather issued as a
 * unit starts and after the free of the unit before it (PyTorch 2.1 FSDP: backward_prefetch
 * BACKWARD_PRE, torch/distributed/fsdp/_runtime_utils.py _pre_backward_hook -> _prefetch_handle;
 * forward_prefetch False, the CPU issuing the next unit's gather while the GPU computes; at most
 * two in-flight gathers, _limiter_utils.py _FreeEventQueue._max_num_inflight_all_gathers = 2),
 * and reduce-scatter each unit's BF16 gradients after its backward (hybrid: then all-reduce the
 * shard across the replicas), off the stream; the optimizer waits for them all.
 *
 * Fine-tuning (Hu et al., ICLR 2022; Dettmers et al., NeurIPS 2023): lora / qlora freeze the
 * base (no weight-gradient GEMMs, no main_grad, no optimizer states), add each adapter's GEMMs
 * (x A, (x A) B forward; their data and weight gradients backward) to its linear layer's node,
 * and reduce and step the adapters only; qlora keeps the layers' linear weights in NF4
 * (WEFT_GEN_NF4_BYTES) and dequantizes them before every GEMM that reads them (bitsandbytes
 * MatMul4Bit), a memory-bound pass of NF4_BYTES + 2 bytes per weight element.
 *
 * Compute time: each GEMM and attention node's time comes from the kernel model
 * (hw/kernel.h) for its shapes: a linear layer's forward GEMM [T, in] x [in, out],
 * backward its data-gradient [T, out] x [out, in] and weight-gradient [in, T] x
 * [T, out] GEMMs (one node, or two where the column-parallel backward or
 * tp_overlap puts a collective between them); the fused attention core as a flash-attention kernel of b, a / t
 * heads, d, S / CP, causal (forward, or backward); the unfused one as batched GEMMs.
 * Compute rates run at SUSTAINED_CLOCK of the benchmarks'. Memory-bound nodes take
 * bytes / the GPU's streaming bandwidth. precision fp8 runs the GEMMs of Transformer
 * Engine's modules (QKV, projection, FC1, FC2, experts) in FP8 and adds TE's casts
 * (FP8_CAST_BYTES per input element forward, per output-gradient element backward
 * charged to the data gradient, whose cast the weight gradient reuses, per weight
 * element once per step, to the forward); the attention core, router, embedding, output
 * layer and optimizer stay BF16. Constants below, with sources, are the same for
 * every model and configuration.
 */
#ifndef WEFT_WORKLOAD_GEN_H
#define WEFT_WORKLOAD_GEN_H

#include <glib.h>

#include "core/keyfile.h"
#include "hw/hw.h"
#include "workload/workload.h"

G_BEGIN_DECLS

/* Elementwise passes over the layer's activation per block and micro-batch: layernorm
 * (read, write), residual add (2 reads, write), dropout or activation (read, write),
 * bias: 8 reads or writes of T h elements. */
#define WEFT_GEN_ELEM_PASSES 8.0
/* Bytes per attention-score element an unfused attention core moves through HBM in the
 * forward pass: QK^T writes (2), scale-mask-softmax reads and writes (4), dropout reads (2)
 * and writes the result (2) and its mask (1), AV reads (2): 13 (the kernels of Megatron-LM
 * 2022, Korthikanti et al. Section 4.1's attention block; backward x 2). */
#define WEFT_GEN_UNFUSED_BYTES 13.0
/* Sustained tensor-core clock in a training run / the clock of a GEMM microbenchmark: 0.926.
 * A GEMM microbenchmark (the catalog's measured rate) runs in short bursts at the boost clock;
 * hours of dense GEMMs hold the GPU at its power limit, where the clock settles lower. NVIDIA
 * rates the A100 for HPL at the 1305 MHz it sustains at its power limit against its 1410 MHz
 * boost clock (G. Lockwood, "Peak FLOPS", glennklockwood.com/garden/peak-FLOPS): 1305 / 1410.
 * No H100 figure of the same kind was found; the A100 ratio is used for every GPU. Not fitted
 * to any row. */
#define WEFT_GEN_SUSTAINED_CLOCK (1305.0 / 1410.0)
/* Bytes per element of Transformer Engine's FP8 cast of a GEMM operand (precision fp8): the
 * fused cast-transpose reads the BF16 tensor (2) and writes it in FP8 (1) and its FP8 transpose
 * (1) for the other GEMM of the backward pass, computing the amax in the same pass
 * (TransformerEngine transformer_engine/pytorch/module/linear.py @0004dbd,
 * fp8_cast_transpose_fused; Hopper's FP8 GEMMs take only the TN layout): 4. */
#define WEFT_GEN_FP8_CAST_BYTES 4.0
/* Bytes per local parameter and micro-batch of the weight-gradient accumulation: Megatron-LM
 * accumulates each weight gradient into the FP32 main_grad buffer (gradient_accumulation_fusion:
 * the wgrad GEMM with beta = 1, or an add kernel), reading and writing 4 bytes per parameter
 * per micro-batch: 8. Charged as a memory-bound step after each layer's backward. */
#define WEFT_GEN_GRAD_ACCUM_BYTES 8.0
/* Bytes the Adam optimizer step moves per local parameter: reads FP32 master, m, v,
 * grad (16), writes master, m, v (12) and the BF16 parameter (2): 30. */
#define WEFT_GEN_ADAM_BYTES 30.0

/* PyTorch FSDP's sharding strategies that weft models (Zhao et al., "PyTorch FSDP", VLDB 2023,
 * Section 3.2.2): FULL_SHARD is ZeRO-3 over the data-parallel group, HYBRID_SHARD ZeRO-3 inside
 * shard groups of fsdp_shard_group ranks, replicated (gradients all-reduced) across them. */
typedef enum {
    WEFT_GEN_FSDP_NONE,
    WEFT_GEN_FSDP_FULL,
    WEFT_GEN_FSDP_HYBRID,
} weft_gen_fsdp_t;

/* Fine-tuning: full (every weight trained), LoRA (Hu et al., "LoRA: Low-Rank Adaptation of
 * Large Language Models", ICLR 2022: frozen BF16 base, rank-r adapters trained) or QLoRA
 * (Dettmers et al., "QLoRA: Efficient Finetuning of Quantized LLMs", NeurIPS 2023: the frozen
 * base in 4-bit NF4 with double-quantized constants). */
typedef enum {
    WEFT_GEN_FINETUNE_FULL,
    WEFT_GEN_FINETUNE_LORA,
    WEFT_GEN_FINETUNE_QLORA,
} weft_gen_finetune_t;

/* The linear layers LoRA adapts: qv (W_q and W_v: Hu et al. 2021 Section 4.2 and 7.1, and
 * PEFT's default for Llama, peft/utils/constants.py TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_
 * MAPPING "llama": ["q_proj", "v_proj"]) or all (every linear layer of a transformer layer:
 * q, k, v, o, the MLP's: QLoRA's choice, Dettmers et al. 2023 Section 4). */
typedef enum {
    WEFT_GEN_LORA_QV,
    WEFT_GEN_LORA_ALL,
} weft_gen_lora_targets_t;

/* LoRA's default rank: PEFT's LoraConfig r = 8 (peft/tuners/lora/config.py, field r,
 * default 8). */
#define WEFT_GEN_LORA_RANK_DEFAULT 8u
/* Bytes per frozen base parameter of QLoRA: 4-bit NF4 values plus the double-quantized
 * constants, 8-bit constants per block of 64 and one FP32 constant per 256 of those:
 * (4 + 8 / 64 + 32 / (64 x 256)) / 8 = 0.515869140625 bytes (Dettmers et al. 2023, Section 3,
 * "Double Quantization": 0.127 bits per parameter of constants). */
#define WEFT_GEN_NF4_BYTES ((4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)) / 8.0)

typedef enum {
    WEFT_GEN_RECOMPUTE_NONE,
    WEFT_GEN_RECOMPUTE_SELECTIVE,
    WEFT_GEN_RECOMPUTE_FULL,
} weft_gen_recompute_t;

/** A model and its parallel training configuration. */
typedef struct {
    /* model */
    guint layers, hidden, heads, kv_heads, ffn, vocab, seq;
    guint experts, top_k; /* experts 0 or 1: dense MLP */
    gboolean gated;       /* SwiGLU MLP (Llama, Mixtral): 3 matrices, else 2 (GPT) */
    /* parallelism */
    guint tp, pp, dp, cp, ep, vpp;
    gboolean sp;         /* sequence parallelism (with tp > 1) */
    gboolean dist_opt;   /* distributed optimizer: RS + AG instead of AR (= zero 1) */
    guint zero;          /* ZeRO stage 0..3 (Rajbhandari et al. SC20): 1 = dist_opt; 2 also
                            shards the gradients; 3 also the weights, gathered per layer */
    weft_gen_fsdp_t fsdp;   /* FSDP full / hybrid shard: ZeRO-3 semantics (gen.h essay) */
    guint fsdp_shard_group; /* hybrid: the ranks a shard group holds (divides dp x cp) */
    weft_gen_finetune_t finetune;         /* full, lora, qlora */
    guint lora_rank;                      /* r (>= 1 with lora / qlora) */
    weft_gen_lora_targets_t lora_targets; /* the adapted linear layers */
    gboolean overlap_dp; /* Megatron's --overlap-grad-reduce / --overlap-param-gather (the
                            presets' default): each model chunk's gradients reduced after its
                            last backward, its parameters gathered before its first forward,
                            off the compute stream; else all after the last backward */
    gboolean pp_scatter_gather; /* Megatron-LM's scatter/gather of pipeline tensors
                                   (--no-scatter-gather-tensors-in-pipeline turns it off;
                                   weft_gen_spec_init() and the presets: on): without SP each
                                   TP rank sends 1 / tp of the activation to the next stage and
                                   the receivers all-gather it over the TP group */
    gboolean tp_overlap; /* NeMo / Transformer Engine tp_comm_overlap (userbuffers): each SP
                            all-gather pipelined with the GEMM that reads it, each GEMM with the
                            reduce-scatter of its output, in chunks (needs sp); Megatron-LM's
                            default: off */
    /* Uneven pipeline stages (Megatron-LM's options; 0 / FALSE: even stages). */
    guint first_stage_layers;   /* --decoder-first-pipeline-num-layers */
    guint last_stage_layers;    /* --decoder-last-pipeline-num-layers */
    gboolean account_embedding; /* --account-for-embedding-in-pipeline-split */
    gboolean account_loss;      /* --account-for-loss-in-pipeline-split */
    guint micro_batch, global_batch;
    weft_gen_recompute_t recompute;
    gboolean fp8;               /* Transformer Engine's FP8 linear layers (delayed scaling) */
    gboolean unfused_attention; /* attention core as Megatron ran it before flash attention
                                   (2022): batched GEMMs over the whole score matrix and the
                                   scores through HBM; else fused (flash) attention */
} weft_gen_config_t;

/** memory.oom: what a generated step does when its memory estimate exceeds the HBM. */
typedef enum {
    WEFT_GEN_OOM_WARN,  /* the summary's warning line says so; the step runs */
    WEFT_GEN_OOM_ERROR, /* the run fails, naming the estimate and the capacity */
} weft_gen_oom_t;
extern const weft_enum_t weft_gen_oom_enum;

/*
 * The [transformer] group: a configuration with what decides its defaults.
 * weft_gen_keys[] is its one table (core/keyfile.h): scenario files, generator
 * specs and `weft gen transformer`'s options all read it. Strings are borrowed
 * from the texts the keys were applied from.
 */
typedef struct {
    weft_gen_config_t c;
    const char *model;           /* the preset applied first, or NULL (sizes given) */
    const char *gpu;             /* hw catalog name; NULL until finished: "h100" */
    gboolean dp_given;           /* unset: the cluster's GPUs / (tp x pp x cp) */
    gboolean global_batch_given; /* unset: micro_batch x dp */
    weft_gen_oom_t oom;          /* memory.oom: above the GPU's HBM, warn or fail */
} weft_gen_spec_t;

/* The rows of [transformer], in the order they apply (model first: a preset resets the
 * configuration, then the other keys override it). */
extern const weft_key_t weft_gen_keys[];
extern const guint weft_gen_n_keys;
/* Name tables of the enum keys: recompute (weft_gen_recompute_t), precision (bf16, fp8:
 * weft_gen_config_t.fp8) and attention (fused, unfused: .unfused_attention). */
extern const weft_enum_t weft_gen_recompute_enum;
extern const weft_enum_t weft_gen_precision_enum;
extern const weft_enum_t weft_gen_attention_enum;
/* fsdp (none, full, hybrid), finetune (full, lora, qlora), lora_targets (qv, all). */
extern const weft_enum_t weft_gen_fsdp_enum;
extern const weft_enum_t weft_gen_finetune_enum;
extern const weft_enum_t weft_gen_lora_targets_enum;

/**
 * weft_gen_zero_stage: the ZeRO stage a configuration runs: 3 with fsdp full or hybrid, else
 * the larger of zero and 1 for dist_opt (Megatron's distributed optimizer is ZeRO-1).
 * Returns: 0..3 (as configured; weft_gen_validate() refuses zero > 3). O(1).
 */
guint weft_gen_zero_stage(const weft_gen_config_t *cfg);

/**
 * weft_gen_trainable_layer_params: the parameters one transformer layer trains on one TP rank:
 * with finetune full every weight (the dense ones; experts not included); with lora / qlora the
 * adapters only, r (in + out) per adapted matrix of in x out local features (Hu et al. 2021,
 * Section 4.1: B (d x r) A (r x k); for square d x d matrices 2 d r, the paper's
 * |Theta| = 2 L d r, Section 5.1 / Table 4). A column-parallel matrix's adapter keeps A whole
 * (in = h) and B split (out / tp), a row-parallel one's A split and B whole.
 * Returns: parameters (exact in double). O(1).
 */
double weft_gen_trainable_layer_params(const weft_gen_config_t *cfg);

/** weft_gen_spec_init: the state before any key: parallel sizes and micro-batch 1, overlap on. */
void weft_gen_spec_init(weft_gen_spec_t *spec);

/**
 * weft_gen_spec_finish:
 * Fills what the keys left to defaults: without a model the sizes' defaults
 * (kv_heads = heads, ffn = 4 hidden, vocab 51200, seq 2048; layers, hidden and
 * heads are required), dp from @n_gpus (0: dp stays as set, default 1),
 * global_batch = micro_batch x dp, gpu "h100".
 * @origin: names the configuration in messages.
 * Returns: FALSE with WEFT_WORKLOAD_ERROR_VALUE naming @origin and the keys.
 */
gboolean weft_gen_spec_finish(weft_gen_spec_t *spec, guint n_gpus, const char *origin,
                              GError **error);

/**
 * weft_gen_spec_use_cluster_gpu:
 * Makes the step compute on the GPU the cluster records (topo.h: weft_topo_gpu_model()):
 * an unset gpu takes @cluster_gpu; a gpu set to the same model (any of its catalog names)
 * stays; a gpu set to another model is an error, since the cluster's GPUs are what run the
 * step. Call before weft_gen_spec_generate().
 * @cluster_gpu: (transfer none) (nullable): the cluster's model; NULL (an abstract cluster
 *   that records none): nothing changes (gpu as set, else "h100").
 * @cluster: the cluster's name for messages; @origin: the spec's.
 * Returns: FALSE with WEFT_WORKLOAD_ERROR_VALUE naming the key, both models and the
 *   cluster (or the unknown gpu name and the catalog's names). O(1).
 */
gboolean weft_gen_spec_use_cluster_gpu(weft_gen_spec_t *spec, const weft_hw_gpu_t *cluster_gpu,
                                       const char *cluster, const char *origin, GError **error);

/**
 * weft_gen_spec_generate: weft_gen_spec_finish(), then the step on the spec's GPU.
 * Returns: (transfer full): the workload (source = @origin), or NULL with the error.
 */
weft_workload_t *weft_gen_spec_generate(weft_gen_spec_t *spec, guint n_gpus, const char *origin,
                                        GError **error);

/** Per-GPU memory (bytes) of the most loaded pipeline stage (stage 0). */
typedef struct {
    double weights, grads, optimizer, activations, total;
} weft_gen_memory_t;

/**
 * weft_gen_preset:
 * @name: "gpt3-1.3b", "gpt3-2.7b", "gpt3-6.7b", "gpt3-13b", "gpt3-175b",
 *   "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b",
 *   "llama3.1-8b", "llama3.1-70b", "llama3.1-405b", "mixtral-8x7b"
 *   (case-insensitive).
 * @cfg: (out): the model fields are set (GPT-3: Brown et al. 2020 Table 2.1,
 *   seq 2048, vocab 51200 as Megatron pads it; Llama: the model cards; Mixtral:
 *   Jiang et al. 2024); parallel fields: tp = pp = dp = cp = ep = vpp = 1,
 *   micro-batch 1, global batch 1, no recompute.
 * Returns: FALSE with WEFT_WORKLOAD_ERROR_VALUE listing the names if unknown.
 */
gboolean weft_gen_preset(const char *name, weft_gen_config_t *cfg, GError **error);

/** weft_gen_preset_names: NULL-terminated list of preset names (static). */
const char *const *weft_gen_preset_names(void);

/**
 * weft_gen_validate:
 * @n_ranks: 0 or the rank count the caller expects (must be tp x pp x dp x cp).
 * Returns: FALSE with WEFT_WORKLOAD_ERROR_VALUE naming the fields and values of
 * an impossible configuration (tp not dividing heads or KV heads, ep not
 * dividing experts or dp, pp x vpp not dividing layers (+ the embedding and loss
 * with account_embedding / account_loss), first/last stage layers that leave the
 * other stages an uneven share, tp_overlap without sp, global batch not a
 * multiple of micro-batch x dp, interleaving with micro-batches not a multiple
 * of pp, cp not dividing seq, zero above 3, dist_opt or fsdp with another ZeRO stage, fsdp
 * hybrid without a fsdp_shard_group dividing dp x cp, ZeRO-3 with experts, lora_rank 0 with
 * lora / qlora, LoRA with experts or ZeRO 2 / 3, ...).
 * Time complexity: O(1).
 */
gboolean weft_gen_validate(const weft_gen_config_t *cfg, guint n_ranks, GError **error);

/**
 * weft_gen_chunk_layers: the transformer layers of virtual pipeline stage @v (model chunk
 * v / pp of pipeline rank v % pp; 0 <= v < pp x vpp) as Megatron-LM splits them
 * (megatron/core/transformer/transformer_layer.py, get_transformer_layer_offset, and
 * transformer_block.py, get_num_layers_to_build, of the Megatron-core versions that have
 * num_layers_in_first/last_pipeline_stage and account_for_embedding/loss_in_pipeline_split;
 * read in a copy whose tag was not recorded, so no tag is claimed):
 * - first_stage_layers F / last_stage_layers L (either or both): the first (last) pipeline
 *   rank holds F (L) layers, the other ranks share the rest evenly; a rank's layers are split
 *   evenly among its vpp chunks;
 * - account_embedding / account_loss: the embedding (the loss) counts as one layer, so
 *   layers + 1 (+ 1) are split evenly over pp x vpp virtual stages and the first (last)
 *   virtual stage builds one transformer layer fewer; 70 layers on 12 stages with both:
 *   72 / 12 = 6, stage 0 and 11 hold 5, the others 6;
 * - neither: layers / (pp x vpp) each.
 * @c must have passed weft_gen_validate() (which checks the divisions).
 * Returns: the layer count (0 is possible: an embedding-only virtual stage).
 * Time complexity: O(1).
 */
guint weft_gen_chunk_layers(const weft_gen_config_t *c, guint v);

/**
 * weft_gen_memory: the per-GPU memory estimate of stage 0 (Korthikanti et al. 2022 for
 * activations; the model states as the generated step holds them for the ZeRO stage, FSDP and
 * fine-tuning mode, doc/memory.md; with ZeRO-3 two layers' gathered BF16 parameters on top, the
 * most the prefetch holds). O(pp x vpp).
 */
void weft_gen_memory(const weft_gen_config_t *cfg, weft_gen_memory_t *mem);

/**
 * weft_gen_transformer:
 * @cfg: a configuration (validated here).
 * @gpu: the GPU model.
 * Returns: (transfer full): one step as a workload (tp x pp x dp x cp ranks;
 *   ranks of a stage share node arrays), or NULL with the validation error.
 */
weft_workload_t *weft_gen_transformer(const weft_gen_config_t *cfg, const weft_hw_gpu_t *gpu,
                                      GError **error);

/**
 * weft_gen_write_spec:
 * @gpu: the GPU name to record.
 * @path: a generator spec: a key file with one group [transformer] whose keys
 *   are the config's fields (layers, hidden, heads, kv_heads, ffn, vocab, seq,
 *   experts, top_k, gated, attention, tp, pp, dp, cp, ep, vpp, sp, dist_opt, zero, fsdp =
 *   none|full|hybrid, fsdp_shard_group, finetune = full|lora|qlora, lora_rank, lora_targets =
 *   qv|all, overlap_dp,
 *   tp_overlap, first_stage_layers, last_stage_layers, account_embedding, account_loss,
 *   micro_batch, global_batch, recompute = none|selective|full, precision = bf16|fp8, gpu;
 *   model = a preset whose fields the other keys override). Written by
 *   weft_output_write() (a temporary name, renamed).
 * Returns: FALSE with WEFT_WORKLOAD_ERROR_IO.
 */
gboolean weft_gen_write_spec(const weft_gen_config_t *cfg, const char *gpu, const char *path,
                             GError **error);

/** weft_gen_is_spec: TRUE if @path is a regular file whose first group is [transformer]. */
gboolean weft_gen_is_spec(const char *path);

/**
 * weft_gen_load_spec: generates the step a spec file describes, in memory.
 * weft_workload_load_chakra() calls it when its prefix is a spec file, so
 * `weft replay --trace STEP.gen` runs the generator's configuration without
 * writing traces (ranks of a stage share node arrays: GPT-3 175B on 2,048 GPUs
 * fits in little memory).
 * Returns: (transfer full): the workload, or NULL with WEFT_WORKLOAD_ERROR_IO
 *   or _VALUE naming the file, key and value.
 */
weft_workload_t *weft_gen_load_spec(const char *path, GError **error);

/**
 * weft_gen_load_spec_on: weft_gen_load_spec() for a run on a cluster whose GPUs are
 * @cluster_gpu (NULL: no model known, as weft_gen_load_spec()): the step computes on them,
 * and a spec whose gpu names another part is refused (weft_gen_spec_use_cluster_gpu(),
 * the message names @path, its gpu, @cluster and the cluster's GPU).
 * Returns: (transfer full): the workload, or NULL with @error set.
 */
weft_workload_t *weft_gen_load_spec_on(const char *path, const weft_hw_gpu_t *cluster_gpu,
                                       const char *cluster, GError **error);

/**
 * weft_gen_load_keyfile: the one parser of [transformer] keys, behind
 * weft_gen_load_spec() and the [transformer] group of scenario files.
 * @kf: a key file whose [transformer] group holds spec keys (as
 *   weft_gen_write_spec() documents; model first, the other keys override it).
 * @origin: names the spec in messages (a file name, or "SCENARIO").
 * @n_gpus: 0, or the cluster's GPU count: then an unset dp is derived as
 *   n_gpus / (tp x pp x cp), so the step uses every GPU.
 * An unset global_batch is micro_batch x dp (weft gen's default); an unset gpu
 * is "h100".
 * Returns: (transfer full): the generated step (source = @origin), or NULL
 *   with WEFT_WORKLOAD_ERROR_VALUE naming @origin, the key and its value (an
 *   unknown key, a bad value, n_gpus not a multiple of tp x pp x cp, or an
 *   impossible configuration as weft_gen_validate() reports it).
 */
weft_workload_t *weft_gen_load_keyfile(GKeyFile *kf, const char *origin, guint n_gpus,
                                       GError **error);

/**
 * weft_workload_write_chakra: writes @wl as Chakra ET traces that weft and
 * ASTRA-sim both replay (doc/formats.md, "Writing Chakra ET").
 * @wl: any workload (borrowed; not changed).
 * @prefix: files "<prefix>.<rank>.et" and "<prefix>.json" are written, each
 *   through a temporary name then renamed; the directory must exist.
 *   "<prefix>.<rank>.et": GlobalMetadata version "0.0.4", then one Node per
 *   node in file order with its data_deps and the attributes ASTRA-sim reads,
 *   each as the protobuf member both of its Chakra feeders accept. Durations
 *   are Chakra's integer duration_micros, rounded to the nearest microsecond;
 *   num_ops is rounded to an integer. A collective in communicator c > 0 of
 *   wl->comms has pg_name "c" (decimal) and pg_desc = the communicator's name;
 *   one in the world (c = 0) has no pg_name. "<prefix>.json": ASTRA-sim's
 *   comm-group file, {"1": [ranks of comms[1]], "2": ...}, on one line.
 * Returns: TRUE when every file is written; FALSE with WEFT_WORKLOAD_ERROR_IO
 *   on a write failure, _VALUE for a node a Chakra file cannot hold (a
 *   comm_size beyond int64, a collective outside CollectiveCommType 0..9),
 *   _COMM for a collective in a communicator @wl does not have; each message
 *   names the file, rank, node id and name. Files written before an error are
 *   left in place.
 * Time complexity: O(nodes + dependencies + communicator members).
 */
gboolean weft_workload_write_chakra(const weft_workload_t *wl, const char *prefix, GError **error);

G_END_DECLS

#endif /* WEFT_WORKLOAD_GEN_H */
