/* SPDX-License-Identifier: MIT */
/*
 * AWS's EFA tuner plugin for NCCL (aws-ofi-nccl v1.8.1-aws), restated from its source
 * (tuner_ofi.h says what it models). The plugin's code is not copied; its constants are
 * restated with their source.
 */
#define G_LOG_DOMAIN "weft-coll"

#include "coll/tuner_ofi.h"

#include <math.h>

/* aws-ofi-nccl v1.8.1-aws include/nccl_ofi_tuner.h: OFI_NCCL_TUNER_NET_LATENCY (20 us),
 * OFI_NCCL_TUNER_NET_COMP_OVERHEAD (3 us, Simple only), OFI_NCCL_TUNER_NUM_CHANNELS (8),
 * NCCL_OFI_TUNER_INTERNODE_BW (12.5 GiB/s per rail, as bytes per us),
 * NCCL_OFI_TUNER_NET_NUM_RAILS (4 per GPU), NCCL_OFI_TUNER_INTRANODE_BW (20 GiB/s, NCCL's
 * SM90_NVLINK_BW per link, as bytes per us). */
#define OFI_NET_LATENCY_US 20.0
#define OFI_NET_COMP_OVERHEAD_US 3.0
#define OFI_NUM_CHANNELS 8.0
#define OFI_INTERNODE_BPUS (12.5 * 1024.0 * 1024.0 * 1024.0 * 1e-6)
#define OFI_NUM_RAILS 4.0
#define OFI_INTRANODE_BPUS (20.0 * 1024.0 * 1024.0 * 1024.0 * 1e-6)

/* include/nccl_ofi_tuner.h nccl_nvlink_lat[algo][proto]: NCCL's NVLink hwLat (tree, ring,
 * CollNet direct, CollNet chain, NVLS, NVLS tree x LL, LL128, Simple), us. */
static const double ofi_nvlink_lat[WEFT_NCCL_N_ALGOS][3] = {
    {0.6, 1.25, 28.0}, /* tree */
    {0.6, 1.9, 3.4},   /* ring */
    {0.0, 0.0, 3.7},   /* CollNet direct */
    {0.0, 0.0, 2.8},   /* CollNet chain */
    {0.0, 0.0, 23.0},  /* NVLS */
    {0.0, 0.0, 23.0},  /* NVLS tree */
};

gboolean
weft_coll_ofi_decides(const weft_coll_system_t *sys, gboolean all_reduce, gboolean forced)
{
    g_return_val_if_fail(sys != NULL, FALSE);
    /* nccl_ofi_tuner.c: init fails under NCCL_ALGO/NCCL_PROTO; get_coll_info returns at
     * once for <= 2 nodes; nccl_ofi_model.c models ncclFuncAllReduce only. */
    return sys->ofi && !forced && all_reduce && sys->n_nodes > 2;
}

double
weft_coll_ofi_cost(const weft_coll_system_t *sys, weft_nccl_algo_t algo, int proto, guint64 nbytes,
                   weft_coll_ofi_choice_t *out)
{
    g_return_val_if_fail(sys != NULL && proto >= 0 && proto < 3, -1.0);
    double completion = proto == 2 ? OFI_NET_COMP_OVERHEAD_US : 0.0;
    double net = OFI_NET_LATENCY_US + completion;
    double p2p = ofi_nvlink_lat[algo][proto];
    double ranks = sys->n_ranks, nodes = MAX(sys->n_nodes, 1u);
    double lat, bw;
    switch (algo) {
    case WEFT_NCCL_RING: {
        double steps = 2.0 * (ranks - 1), inter = 2.0 * nodes;
        lat = inter * net + (steps - inter) * p2p;
        bw = OFI_INTERNODE_BPUS * OFI_NUM_RAILS * OFI_NUM_CHANNELS;
        break;
    }
    case WEFT_NCCL_NVLS_TREE:
        if (proto != 2) {
            return -1.0; /* "not a supported combination in NCCL" */
        }
        lat = 2.0 * (p2p + log2(nodes) * net);
        bw = MIN(OFI_INTRANODE_BPUS, OFI_INTERNODE_BPUS * OFI_NUM_RAILS / 2.0) * OFI_NUM_CHANNELS;
        break;
    case WEFT_NCCL_TREE: {
        guint ppn = sys->n_ranks / MAX(sys->n_nodes, 1u); /* the plugin's integer division */
        lat = 2.0 * ((double)ppn - 1.0) * p2p + 2.0 * log2(nodes) * net;
        bw = OFI_INTERNODE_BPUS * OFI_NUM_RAILS * OFI_NUM_CHANNELS / 2.0;
        break;
    }
    default:
        return -1.0; /* CollNet ("No CollNet on AWS today"), NVLS (single node only) */
    }
    /* LL: 8-byte lines of 4 data bytes and 4 flag bytes; LL128: 120 of 128 bytes. */
    bw *= proto == 0 ? 0.5 : proto == 1 ? 0.9375 : 1.0;
    double cost = lat * 1.0 + (double)nbytes / bw; /* numPipeOps = 1: one call at a time */
    if (out != NULL) {
        *out = (weft_coll_ofi_choice_t){.algo = algo,
                                        .proto = proto,
                                        .cost_us = cost,
                                        .latency_us = lat,
                                        .bw_Bpus = bw,
                                        .p2p_us = p2p,
                                        .net_us = OFI_NET_LATENCY_US,
                                        .completion_us = completion};
    }
    return cost;
}

gboolean
weft_coll_ofi_choose(const weft_coll_system_t *sys, const double (*avail)[WEFT_COLL_N_PROTOS],
                     guint64 nbytes, weft_coll_ofi_choice_t *out)
{
    g_return_val_if_fail(sys != NULL && avail != NULL && out != NULL, FALSE);
    gboolean found = FALSE;
    for (int a = 0; a < WEFT_NCCL_N_ALGOS; a++) {
        for (int p = 0; p < 3; p++) {
            if (avail[a][p] <= 0.0) {
                continue;
            }
            weft_coll_ofi_choice_t c;
            double t = weft_coll_ofi_cost(sys, (weft_nccl_algo_t)a, p, nbytes, &c);
            if (t >= 0.0 && (!found || t < out->cost_us)) {
                *out = c;
                found = TRUE;
            }
        }
    }
    return found;
}
