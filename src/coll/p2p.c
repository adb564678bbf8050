/* SPDX-License-Identifier: MIT */
/*
 * Point-to-point messages as NCCL 2.20.3 runs ncclSend / ncclRecv: its channel
 * counts, its cut of a message into pieces over channels and of a piece into
 * steps, its protocol choice, and the plan of transfers the collective executor
 * runs for them (coll/p2p.h has the model and its sources).
 */
#define G_LOG_DOMAIN "weft-coll"

#include "coll/p2p.h"

#include <string.h>

/* MAXCHANNELS (src/include/device.h, v2.20.3-1), the default of NCCL_MAX_P2P_NCHANNELS
 * (src/graph/paths.cc). */
#define P2P_MAX_CHANNELS 32u
/* NCCL_P2P_NET_CHUNKSIZE, NCCL_P2P_PCI_CHUNKSIZE, NCCL_P2P_NVL_CHUNKSIZE (src/init.cc,
 * v2.20.3-1): 128 KiB, 128 KiB, 512 KiB. */
#define P2P_NET_CHUNK (G_GUINT64_CONSTANT(1) << 17)
#define P2P_PCI_CHUNK (G_GUINT64_CONSTANT(1) << 17)
#define P2P_NVL_CHUNK (G_GUINT64_CONSTANT(1) << 19)
/* DEFAULT_BUFFSIZE / NCCL_STEPS (src/init.cc, src/include/device.h, v2.20.3-1): 4 MiB / 8,
 * the largest p2pChunkSize. */
#define P2P_SIMPLE_STEP_MAX ((G_GUINT64_CONSTANT(1) << 22) / 8)
/* DEFAULT_LL_BUFFSIZE / NCCL_STEPS (src/init.cc, v2.20.3-1): NCCL_LL_LINES_PER_THREAD (8) x
 * NCCL_LL_MAX_NTHREADS (512) x NCCL_STEPS (8) x 16-byte lines / 8 = 64 KiB of lines. */
#define P2P_LL_STEP (G_GUINT64_CONSTANT(8) * 512 * 8 * 16 / 8)
/* The most transfers a plan may hold (its indexes are 32-bit, coll.h). */
#define P2P_MAX_XFERS (G_GUINT64_CONSTANT(1) << 31)

static guint
next_pow2(guint v)
{
    guint p = 1;
    while (p < v) {
        p <<= 1;
    }
    return p;
}

static guint64
div_up(guint64 a, guint64 b)
{
    return (a + b - 1) / b;
}

void
weft_coll_p2p_comm_init(weft_coll_p2p_comm_t *pc, const weft_coll_system_t *sys)
{
    g_return_if_fail(pc != NULL && sys != NULL);
    memset(pc, 0, sizeof *pc);
    pc->n_ranks = MAX(sys->n_ranks, 1u);
    pc->n_nodes = MAX(sys->n_nodes, 1u);
    /* ncclTopoComputeP2pChannels(): p2pnChannels = min(nChannels, NCCL_MAX_P2P_NCHANNELS),
     * at least NCCL_MIN_P2P_NCHANNELS = 1 */
    guint raw = CLAMP(sys->coll_channels, 1u, P2P_MAX_CHANNELS);
    guint min_ch = raw;
    if (sys->ppn > 1) {
        /* a peer of the node (ncclTopoGetNchannels()): 2 x max(1, path bw / NVLink bw) over
         * NVLink, 2 otherwise */
        guint links = weft_coll_tuning_nvlink_links(sys);
        guint local = sys->nvlink ? 2 * MAX(1u, links) : 2;
        min_ch = MIN(min_ch, local);
    }
    if (pc->n_nodes > 1) {
        /* a peer over the network: 2 per NIC, halved while 8+ operations would share a
         * channel; at least the NICs it takes to match the GPU's bandwidth (1 here) */
        guint c = 2;
        while (c * pc->n_ranks > raw * 4 && c > 1) {
            c /= 2;
        }
        min_ch = MIN(min_ch, MAX(1u, c));
    }
    pc->per_peer = next_pow2(min_ch);
    pc->p2p_channels = next_pow2(raw);
    /* scheduleP2pTasksToPlan(): use all channels, one channel per operation */
    pc->min_channels = pc->per_peer;
    while (pc->min_channels * pc->n_ranks > pc->p2p_channels && pc->min_channels > 1) {
        pc->min_channels /= 2;
    }
    /* computeBuffSizes() */
    pc->chunk_bytes = pc->n_nodes > 1 ? P2P_NET_CHUNK : sys->nvlink ? P2P_NVL_CHUNK : P2P_PCI_CHUNK;
    pc->chunk_bytes = MIN(pc->chunk_bytes, P2P_SIMPLE_STEP_MAX);
    for (int i = 0; i < 2; i++) {
        weft_time_t base, intra, inter;
        weft_coll_tuning_p2p_latency(sys, i == 0 ? WEFT_COLL_PROTO_LL : WEFT_COLL_PROTO_SIMPLE,
                                     &base, &intra, &inter);
        pc->base_ps[i] = base;
        pc->step_intra_ps[i] = MAX(intra - sys->intra_route_ps, 0);
        pc->step_inter_ps[i] = MAX(inter - sys->inter_route_ps, 0);
    }
    pc->msg_ps = sys->net_msg_ps;
    pc->merge_steps = FALSE;
}

void
weft_coll_p2p_split(const weft_coll_p2p_comm_t *pc, guint64 size_bytes, gboolean net,
                    weft_coll_p2p_split_t *out)
{
    g_return_if_fail(pc != NULL && out != NULL);
    guint64 step = MAX(pc->chunk_bytes, 8u);
    gboolean multi = pc->n_nodes > 1;
    guint64 min_size = multi ? step / 2 : step / 8;
    guint64 max_size = multi ? step : step * 32;
    /* calcP2pChunkSize() */
    guint n_ch = MAX(pc->min_channels, 1u);
    guint64 size = MAX(min_size, div_up(size_bytes, n_ch));
    while (size > max_size && n_ch <= pc->per_peer / 2) {
        n_ch *= 2;
        size = div_up(size_bytes, n_ch);
    }
    guint64 piece = div_up(size, min_size) * min_size;
    out->piece_bytes = piece;
    out->pieces = size_bytes == 0 ? 1 : (guint)div_up(size_bytes, piece);
    guint64 first = MIN(size_bytes, piece);
    /* addP2pToPlan() */
    out->proto = first <= WEFT_COLL_P2P_LL_THRESHOLD ? WEFT_COLL_PROTO_LL : WEFT_COLL_PROTO_SIMPLE;
    gboolean ll = out->proto == WEFT_COLL_PROTO_LL;
    /* ncclProxyComputeP2p(): the step in the buffer's units (LL: lines, twice the data) */
    guint64 chunk = ll ? P2P_LL_STEP : step;
    if (net) {
        if (!ll && first < chunk) {
            chunk /= 4;
        } else if (first < 8 * chunk) {
            chunk /= 2;
        }
    }
    out->step_bytes = ll ? chunk / 2 : chunk;
    out->steps = (guint)MAX(div_up(first, out->step_bytes), 1);
}

/* Whether a piece of @s runs as one transfer: pc->merge_steps and no per-message cost on it
 * (the network with Simple and a NIC cost keeps one transfer per message; see p2p.h). */
static gboolean
merged(const weft_coll_p2p_comm_t *pc, const weft_coll_p2p_split_t *s, gboolean net)
{
    return pc->merge_steps && !(net && s->proto != WEFT_COLL_PROTO_LL && pc->msg_ps > 0);
}

weft_coll_plan_t *
weft_coll_p2p_plan_build(const weft_coll_p2p_comm_t *pc, guint n_members, const gint *domain,
                         const weft_coll_p2p_msg_t *msgs, guint n_msgs, guint64 size_bytes,
                         GError **error)
{
    g_return_val_if_fail(pc != NULL, NULL);
    g_return_val_if_fail(n_msgs == 0 || (msgs != NULL && domain != NULL), NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);

    /* Count first: every message's split, its transfers. */
    g_autofree weft_coll_p2p_split_t *split = g_new(weft_coll_p2p_split_t, MAX(n_msgs, 1));
    guint64 total = 0;
    gboolean any_net = FALSE;
    guint max_pieces = 1, max_steps = 1;
    for (guint i = 0; i < n_msgs; i++) {
        const weft_coll_p2p_msg_t *m = &msgs[i];
        if (m->src >= n_members || m->dst >= n_members || m->src == m->dst) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                        "point-to-point message %u: member %u to member %u, expected two "
                        "different members of %u",
                        i, m->src, m->dst, n_members);
            return NULL;
        }
        gboolean net = domain[m->src] != domain[m->dst];
        any_net |= net;
        weft_coll_p2p_split(pc, size_bytes, net, &split[i]);
        for (guint k = 0; k < split[i].pieces; k++) {
            guint64 b = size_bytes == 0 ? 0 : MIN(split[i].piece_bytes,
                                                  size_bytes - k * split[i].piece_bytes);
            total += merged(pc, &split[i], net) ? 1 : MAX(div_up(b, split[i].step_bytes), 1);
        }
        max_pieces = MAX(max_pieces, split[i].pieces);
        max_steps = MAX(max_steps, split[i].steps);
    }
    if (total >= P2P_MAX_XFERS) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "point-to-point plan of %u messages of %" G_GUINT64_FORMAT
                    " bytes needs %" G_GUINT64_FORMAT " transfers, more than the %" G_GUINT64_FORMAT
                    " a plan may hold",
                    n_msgs, size_bytes, total, P2P_MAX_XFERS - 1);
        return NULL;
    }
    weft_coll_p2p_split_t any;
    weft_coll_p2p_split(pc, size_bytes, FALSE, &any); /* the protocol depends on S alone */

    weft_coll_plan_t *plan = g_new0(weft_coll_plan_t, 1);
    plan->op = WEFT_COLL_ALL_TO_ALL; /* what NCCL runs as grouped sends (p2p.h) */
    plan->algo = WEFT_COLL_ALGO_DIRECT;
    plan->proto = any.proto;
    plan->n_members = n_members;
    plan->size_bytes = size_bytes;
    plan->space_bytes = size_bytes * n_msgs;
    plan->channels = max_pieces;
    plan->chunks = max_steps;
    int pi = any.proto == WEFT_COLL_PROTO_LL ? 0 : 1;
    plan->exec.base_ps = pc->base_ps[pi];
    plan->exec.step_intra_ps = pc->step_intra_ps[pi];
    plan->exec.step_inter_ps = pc->step_inter_ps[pi];
    plan->exec.efficiency = weft_coll_proto_efficiency(any.proto);
    /* the NIC's completion per message, Simple only, as for collectives (tuning.h,
     * weft_coll_tuning_fill_exec()): LL receivers poll flags in the data */
    if (any_net && pi == 1 && pc->msg_ps > 0) {
        plan->exec.msg_ps = pc->msg_ps;
        plan->exec.msg_bytes = 0; /* one message per transfer: a transfer is a step */
    }

    guint n = (guint)total;
    plan->n_xfers = n;
    plan->xfers = g_new(weft_coll_xfer_t, MAX(n, 1));
    plan->n_preds = g_new0(guint32, MAX(n, 1));
    plan->succ_off = g_new0(guint32, n + 1);
    plan->succ = g_new(guint32, MAX(n, 1));
    plan->succ_kind = g_new(guint8, MAX(n, 1));
    guint32 t = 0, e = 0;
    for (guint i = 0; i < n_msgs; i++) {
        const weft_coll_p2p_split_t *s = &split[i];
        gboolean net = domain[msgs[i].src] != domain[msgs[i].dst];
        for (guint k = 0; k < s->pieces; k++) {
            guint64 off = k * s->piece_bytes;
            guint64 b = size_bytes == 0 ? 0 : MIN(s->piece_bytes, size_bytes - off);
            gboolean one = merged(pc, s, net);
            guint64 steps = one ? 1 : MAX(div_up(b, s->step_bytes), 1);
            guint64 step_bytes = one ? MAX(b, 1) : s->step_bytes;
            for (guint64 j = 0; j < steps; j++) {
                guint64 sb = b == 0 ? 0 : MIN(step_bytes, b - j * step_bytes);
                plan->xfers[t] = (weft_coll_xfer_t){
                    .src = msgs[i].src,
                    .dst = msgs[i].dst,
                    .bytes = sb,
                    .offset = (guint64)i * size_bytes + off + j * step_bytes,
                    .channel = (guint16)k,
                    .sharing = (guint16)MIN(s->pieces, G_MAXUINT16),
                    .flags = net ? WEFT_COLL_XFER_INTER : 0,
                };
                plan->moved_bytes += sb;
                /* the next step of the piece leaves once this one has left */
                plan->succ_off[t + 1] = plan->succ_off[t];
                if (j + 1 < steps) {
                    plan->succ[e] = t + 1;
                    plan->succ_kind[e] = WEFT_COLL_DEP_LINK;
                    plan->succ_off[t + 1]++;
                    plan->n_preds[t + 1] = 1;
                    e++;
                }
                t++;
            }
        }
    }
    g_assert(t == n);
    return plan;
}
