/* SPDX-License-Identifier: MIT */
/*
 * Choosing how a collective runs, the way NCCL chooses.
 *
 * NCCL predicts, for every (algorithm, protocol) pair it can use for a call,
 * time = base latency + steps x per-hop latency + bytes / bandwidth, with its
 * published tuning tables (src/graph/tuning.cc: base and hardware latencies per
 * algorithm and protocol, per-channel bandwidths per GPU generation and link
 * type, protocol efficiencies), and runs the cheapest. weft does the same with
 * the same tables (each constant cited; a constant weft fitted itself says on
 * what data), then simulates the choice on the actual cluster graph. Any choice
 * can be forced per collective type, like NCCL_ALGO and NCCL_PROTO.
 */
#ifndef WEFT_COLL_TUNING_H
#define WEFT_COLL_TUNING_H

#include <glib.h>

#include "coll/coll.h"
#include "topo/topo.h"

G_BEGIN_DECLS

/** Forced choices and limits; zero-initialized = everything automatic. */
typedef struct {
    weft_coll_algo_t algo[WEFT_COLL_N_OPS];   /* per operation; AUTO = let the model choose */
    weft_coll_proto_t proto[WEFT_COLL_N_OPS]; /* per operation; AUTO = let the model choose */
    guint channels;                           /* 0 = as NCCL would (NCCL_MIN/MAX_NCHANNELS) */
    guint chunks;                             /* 0 = as the protocol's step size implies */
} weft_coll_tuning_t;

/**
 * weft_coll_tune:
 * @tuning: (nullable): forced choices.
 * @op: the operation.
 * @size_bytes: S, as in doc/collectives.md.
 * @layout: where the members are.
 * @config: (out): the resolved configuration (no AUTO).
 * @predicted_ps: (out) (optional): NCCL's predicted time for it.
 * @error: WEFT_COLL_ERROR_UNSUPPORTED when a forced algorithm cannot run this
 *   operation on this layout (e.g. NVLS without NVLS-capable switches).
 */
gboolean weft_coll_tune(const weft_coll_tuning_t *tuning, weft_coll_op_t op, guint64 size_bytes,
                        const weft_coll_layout_t *layout, weft_coll_config_t *config,
                        weft_time_t *predicted_ps, GError **error);

G_END_DECLS

#endif /* WEFT_COLL_TUNING_H */
