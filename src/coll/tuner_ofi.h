/* SPDX-License-Identifier: MIT */
/*
 * AWS's tuner for NCCL on EFA (aws-ofi-nccl v1.8.1-aws, src/tuner/nccl_ofi_tuner.c,
 * src/tuner/nccl_ofi_model.c, include/nccl_ofi_tuner.h), restated. NCCL 2.20.3 asks the
 * plugin first (src/enqueue.cc getTunerInfo()) and keeps whatever algorithm and protocol
 * it sets; NCCL's own model (tuning.c) chooses only what the plugin leaves unset.
 *
 * When it decides: communicators of more than 2 nodes ("Skip runs smaller than 2 nodes"),
 * all-reduce only (every other function has no model and falls back to NCCL), and never
 * when NCCL_ALGO or NCCL_PROTO is set (the plugin then refuses to load). It costs tree,
 * ring (LL, LL128, Simple) and NVLS tree (Simple, when NVLS is supported), never CollNet
 * or NVLS, and takes the cheapest (the first of equal costs, in NCCL's algorithm and
 * protocol order):
 *
 *     cost = latency x numPipeOps + nBytes / bw          (us; numPipeOps = 1 here)
 *
 * with net = 20 us (OFI_NCCL_TUNER_NET_LATENCY), + 3 us for Simple (the completion,
 * OFI_NCCL_TUNER_NET_COMP_OVERHEAD), p2p = NCCL's NVLink hwLat of the algorithm and
 * protocol, n ranks over N nodes, B_net = 12.5 GiB/s per rail x 4 rails per GPU, B_nvl =
 * 20 GiB/s, 8 channels (OFI_NCCL_TUNER_NUM_CHANNELS):
 *
 *     ring:       latency = 2N net + (2(n-1) - 2N) p2p,     bw = 8 B_net
 *     tree:       latency = 2 (n/N - 1) p2p + 2 log2(N) net, bw = 8 B_net / 2
 *     NVLS tree:  latency = 2 (p2p + log2(N) net),           bw = 8 min(B_nvl, B_net / 2)
 *
 * (n/N an integer division, log2 of a real), bw x 0.5 for LL and x 0.9375 for LL128. No
 * base latency: the plugin computes NCCL's baseLat into a table it never reads. The
 * plugin's figures are AWS p5's whatever the cluster (it has no other); weft applies them
 * to any cluster whose NICs are EFA (weft_coll_system_t.ofi).
 */
#ifndef WEFT_COLL_TUNER_OFI_H
#define WEFT_COLL_TUNER_OFI_H

#include <glib.h>

#include "coll/tuning.h"

G_BEGIN_DECLS

/** What AWS's tuner chose for one all-reduce, and what its model says it costs. */
typedef struct {
    weft_nccl_algo_t algo; /* WEFT_NCCL_TREE, _RING or _NVLS_TREE */
    int proto;             /* NCCL's protocol index: 0 LL, 1 LL128, 2 Simple */
    double cost_us;        /* the model's time for the call */
    double latency_us;     /* its latency part */
    double bw_Bpus;        /* its bandwidth, bytes per us (algorithm bandwidth) */
    double p2p_us;         /* the NVLink hop latency it charges */
    double net_us;         /* the network hop latency it charges, the completion apart */
    double completion_us;  /* what it adds to each network hop for the completion (Simple) */
} weft_coll_ofi_choice_t;

/**
 * weft_coll_ofi_decides:
 * @sys: NCCL's view of the communicator.
 * @all_reduce: whether the call is an all-reduce (or a barrier, weft's 0-byte all-reduce).
 * @forced: whether an algorithm or protocol is forced (NCCL_ALGO / NCCL_PROTO).
 * Returns: whether AWS's tuner makes the choice: @sys->ofi, more than 2 nodes, an
 * all-reduce, nothing forced. O(1).
 */
gboolean weft_coll_ofi_decides(const weft_coll_system_t *sys, gboolean all_reduce, gboolean forced);

/**
 * weft_coll_ofi_cost:
 * @sys: NCCL's view of the communicator (ranks and nodes are read).
 * @algo: NCCL's algorithm.
 * @proto: NCCL's protocol index (0 LL, 1 LL128, 2 Simple).
 * @nbytes: NCCL's nBytes of the all-reduce.
 * @out: (out) (optional): the cost and its parts.
 * Returns: the model's time in us, or -1 when the plugin has no model for the pair
 * (CollNet, NVLS, NVLS tree with LL or LL128). O(1).
 */
double weft_coll_ofi_cost(const weft_coll_system_t *sys, weft_nccl_algo_t algo, int proto,
                          guint64 nbytes, weft_coll_ofi_choice_t *out);

/**
 * weft_coll_ofi_choose:
 * @sys: NCCL's view of the communicator.
 * @avail: NCCL's all-reduce bandwidths of @sys, [algorithm][protocol index] (sys->bw_GBps
 *   of ncclFuncAllReduce): a pair is a candidate only where it is > 0.
 * @nbytes: NCCL's nBytes of the all-reduce.
 * @out: (out): the cheapest pair among those the plugin costs and @avail
 *   enables (bandwidth > 0: NCCL 2.20.3 runs what the plugin returns unchecked, but
 *   weft has no plan for a pair its tables disable, e.g. NVLS tree on uneven nodes, and
 *   no kernel costs for LL128 where NCCL 2.20 disables it, e.g. Blackwell).
 * Returns: FALSE when no pair qualifies (NCCL then chooses). O(algorithms x protocols).
 */
gboolean weft_coll_ofi_choose(const weft_coll_system_t *sys,
                              const double (*avail)[WEFT_COLL_N_PROTOS], guint64 nbytes,
                              weft_coll_ofi_choice_t *out);

G_END_DECLS

#endif /* WEFT_COLL_TUNER_OFI_H */
