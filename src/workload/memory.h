/* SPDX-License-Identifier: MIT */
/*
 * Per-rank memory: the categories a rank's HBM holds and the published closed
 * forms weft's accounting is built from (doc/memory.md).
 *
 * A rank's live bytes over a step are a static resident part (weights, FP32
 * master weights, gradients, optimizer states: the model states of the ZeRO
 * paper) plus what its nodes allocate and free as they run (activations, kept
 * from a layer's forward to its backward). The workload carries both
 * (workload.h: weft_workload_t.resident, weft_rank_trace_t.mem_alloc/mem_free);
 * the replay adds them up in the simulated order, so the peak and its instant
 * come from the schedule, not from a formula. The closed forms here are what the
 * generator (gen.h) emits, and what the tests hold it to.
 *
 * Model states (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training
 * Trillion Parameter Models", SC20, Section 3.1 and Figure 1, p. 3): Psi
 * parameters in mixed precision hold 2 Psi of FP16/BF16 weights, 2 Psi of
 * FP16/BF16 gradients and K Psi of optimizer states (Adam: FP32 master weights,
 * momentum and variance, K = 12). ZeRO stage 1 (P_os) shards the K Psi over the
 * Nd data-parallel ranks, stage 2 (P_os+g) the gradients too, stage 3
 * (P_os+g+p) the weights too: 16 Psi, 4 Psi + K Psi / Nd, 2 Psi + (2 + K) Psi /
 * Nd, (2 + 2 + K) Psi / Nd. Megatron-LM keeps the gradients in an FP32 main_grad
 * buffer (4 bytes per parameter, not sharded by its distributed optimizer, which
 * is ZeRO-1): 18 bytes per parameter, 6 + 12 / d distributed (Megatron Core
 * developer guide, "Distributed Optimizer", table of bytes per parameter).
 * PyTorch FSDP FULL_SHARD is stage 3 over the data-parallel group, HYBRID_SHARD
 * stage 3 over the shard group (Zhao et al., "PyTorch FSDP", VLDB 2023, Section
 * 3.2.2): give that group's size as Nd.
 *
 * Activations per transformer layer and micro-batch (Korthikanti et al.,
 * "Reducing Activation Recomputation in Large Transformer Models", MLSys 2023,
 * arXiv:2205.05198, Table 2, p. 6), s sequence length, b micro-batch, h hidden,
 * a heads, t tensor-parallel size, in bytes (16-bit activations, 1-byte
 * dropout masks):
 *   no parallelism               s b h (34 + 5 a s / h)
 *   tensor parallel              s b h (10 + 24 / t + 5 a s / (h t))
 *   tensor + sequence parallel   s b h (34 / t + 5 a s / (h t))
 *   tensor + selective recompute s b h (10 + 24 / t)
 *   tensor + sequence + selective s b h (34 / t)
 *   full recompute               2 s b h (the layer's input; / t with SP, as
 *                                Megatron-LM keeps it sequence-sharded)
 * The 5 a s^2 b term is the attention scores (softmax output 2, its dropout
 * mask 1, the dropout output 2 bytes per element). A fused (flash) attention
 * core stores none of them: it keeps its output, already counted as the
 * projection's input, and the softmax statistics (the log-sum-exp, one FP32
 * per row and head: 4 a s b / t bytes; Dao, "FlashAttention-2", 2023,
 * Algorithm 1, line 13, and Algorithm 2's input L), so without recomputation
 * its per-layer bytes are the selective-recompute form plus 4 a s b / t.
 */
#ifndef WEFT_WORKLOAD_MEMORY_H
#define WEFT_WORKLOAD_MEMORY_H

#include <glib.h>

G_BEGIN_DECLS

/** What a rank's bytes hold; the summary's breakdown at the peak names them. */
typedef enum {
    WEFT_MEM_WEIGHTS,     /* model weights in their training precision (BF16: 2 B/param) */
    WEFT_MEM_MASTER,      /* FP32 master weights of mixed precision (4 B/param) */
    WEFT_MEM_GRADS,       /* gradients (Megatron: FP32 main_grad, 4 B/param) */
    WEFT_MEM_OPTIMIZER,   /* optimizer states (Adam: two FP32 moments, 8 B/param) */
    WEFT_MEM_ACTIVATIONS, /* activations kept for the backward pass */
    WEFT_MEM_N_CATS
} weft_mem_cat_t;

/** weft_mem_cat_name: "weights", "master", "gradients", "optimizer", "activations". */
const char *weft_mem_cat_name(weft_mem_cat_t cat);

/**
 * weft_mem_cat_from_name: the category named @name (weft_mem_cat_name()'s words).
 * @cat: (out): the category.
 * Returns: FALSE when @name is NULL or none of them. O(categories).
 */
gboolean weft_mem_cat_from_name(const char *name, weft_mem_cat_t *cat);

/** Activation recomputation, as Korthikanti et al. name the modes. */
typedef enum {
    WEFT_MEM_RECOMPUTE_NONE,
    WEFT_MEM_RECOMPUTE_SELECTIVE, /* the attention core is recomputed: no scores kept */
    WEFT_MEM_RECOMPUTE_FULL,      /* only each layer's input is kept */
} weft_mem_recompute_t;

/**
 * weft_mem_activation_layer_bytes: activation bytes one transformer layer keeps for one
 * micro-batch (Korthikanti et al. 2022, Table 2; header).
 * @s: sequence length per rank (tokens); @b: micro-batch (sequences); @h: hidden size;
 * @a: attention heads; @t: tensor-parallel size (>= 1; 1 is the "no parallelism" row);
 * @sp: sequence parallelism (the 10 s b h of layernorms, dropouts and inputs split over t);
 * @recompute: the mode; @flash: fused attention (no scores kept; with @recompute NONE its
 *   4 a s b / t bytes of softmax statistics instead; the other modes keep no attention core
 *   state either way).
 * Returns: bytes (exact in double for the sizes of real models). O(1).
 */
double weft_mem_activation_layer_bytes(double s, double b, double h, double a, double t,
                                       gboolean sp, weft_mem_recompute_t recompute,
                                       gboolean flash);

/** Bytes per parameter of the model states before sharding, and how they are sharded. */
typedef struct {
    double weight_bytes;    /* 2: BF16/FP16 weights */
    double master_bytes;    /* 4: FP32 master weights (part of ZeRO's K) */
    double grad_bytes;      /* 2: FP16 gradients (ZeRO); 4: Megatron's FP32 main_grad */
    double optimizer_bytes; /* 8: Adam's two FP32 moments (K = master + these = 12) */
    guint zero_stage;       /* 0: replicated; 1: optimizer (and master) sharded (Megatron's
                               distributed optimizer); 2: + gradients; 3: + weights (FSDP) */
    double shard;           /* Nd: the ranks the shards spread over (>= 1) */
} weft_mem_states_t;

/**
 * weft_mem_model_states: the per-rank bytes of @params parameters' model states.
 * @params: Psi, the parameters this rank's replica holds (after tensor and pipeline
 *   parallelism); @st: precisions and sharding (ZeRO, header);
 * @out: (out caller-allocates) (array fixed-size=WEFT_MEM_N_CATS): bytes per category;
 *   activations 0.
 * Returns: the total. ZeRO's Figure 1 (7.5B, Nd = 64, 2/2/12): 120, 31.4, 16.6, 1.9 GB
 *   for stages 0-3. O(1).
 */
double weft_mem_model_states(double params, const weft_mem_states_t *st, double *out);

G_END_DECLS

#endif /* WEFT_WORKLOAD_MEMORY_H */
