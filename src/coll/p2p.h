/* SPDX-License-Identifier: MIT */
/*
 * Point-to-point messages as NCCL 2.20.3 runs ncclSend / ncclRecv.
 *
 * NCCL does not tune sends: it cuts each message over a fixed set of channels
 * and moves each channel's piece through the connection's buffer one step at a
 * time. What decides the time, and what this module restates (every figure
 * cites NCCL's file at tag v2.20.3-1):
 *
 *  - Channels (src/graph/paths.cc, ncclTopoComputeP2pChannels()):
 *      p2pnChannels = nextPow2(min(comm->nChannels, MAXCHANNELS = 32));
 *      p2pnChannelsPerPeer = nextPow2(min over the peers of p2pnChannels and
 *      ncclTopoGetNchannels(): 2 x max(1, NVLink links) for an NVLink peer,
 *      2 for a PCI peer, max(NICs by bandwidth, c) for a network peer, where c
 *      starts at 2 and halves while c x nRanks > 4 x p2pnChannels (the NICs by
 *      bandwidth are 1 on the clusters weft builds: one NIC vertex per GPU,
 *      p5's four EFA devices being one 400 Gb/s device to NCCL).
 *  - Pieces (src/enqueue.cc, scheduleP2pTasksToPlan(), calcP2pChunkSize()):
 *      nChannelsMin = p2pnChannelsPerPeer, halved while nChannelsMin x nRanks >
 *      p2pnChannels; minSize = stepSize / 2 across nodes, stepSize / 8 on one;
 *      maxSize = stepSize across nodes, 32 stepSize on one; the piece is
 *      max(minSize, ceil(S / nChannelsMin)), the channel count doubling up to
 *      p2pnChannelsPerPeer while the piece exceeds maxSize, rounded up to a
 *      multiple of minSize. Piece k goes to the peer's channel k mod
 *      p2pnChannelsPerPeer: a message of S bytes runs on ceil(S / piece)
 *      channels at once.
 *  - Step (chunk) size: stepSize = comm->p2pChunkSize (src/init.cc
 *      computeBuffSizes(): NCCL_P2P_NET_CHUNKSIZE = 128 KiB across nodes,
 *      NCCL_P2P_NVL_CHUNKSIZE = 512 KiB when every GPU pair is on NVLink,
 *      NCCL_P2P_PCI_CHUNKSIZE = 128 KiB otherwise, at most the Simple buffer /
 *      NCCL_STEPS = 4 MiB / 8). On a network connection the proxy cuts it for
 *      a short piece (src/proxy.cc, ncclProxyComputeP2p()): / 4 for a Simple
 *      piece below one step, / 2 below 8 steps. Each step over the network is
 *      one message (a send posted by the proxy thread).
 *  - Protocol (src/enqueue.cc addP2pToPlan()): LL for a piece of at most
 *      NCCL_P2P_LL_THRESHOLD = 16384 bytes, else Simple (never LL128). LL moves
 *      8 bytes of data per 16-byte line (efficiency 0.5; its step is the LL
 *      buffer / NCCL_STEPS = 64 KiB of lines, 32 KiB of data: src/init.cc
 *      DEFAULT_LL_BUFFSIZE), Simple the bytes themselves.
 *  - Latency: NCCL's ring figures for one step (tuning.h,
 *      weft_coll_tuning_p2p_latency(): baseLat + hwLat of the link crossed).
 *
 * A point-to-point plan is a weft_coll_plan_t run by the collective executor
 * (coll.h): one transfer per step, those of one piece chained by link
 * dependencies (a step leaves when the previous one has left: the wire is the
 * limit, not the round trip; NCCL's 8 buffer slots per channel hold more than a
 * bandwidth-delay product on every cluster weft builds); the pieces of one
 * message share its route (xfer->sharing, so the analytical model divides the
 * route among them as the flow model does); base_ps once, the hop's latency
 * after the last step (executor step latency = hwLat minus the route's own
 * latency); the protocol's efficiency; and, with Simple across nodes, the
 * NIC's per-message cost (weft_coll_exec_t msg_ps, one message per step
 * transfer: msg_bytes 0). The plan carries op all_to_all and algorithm direct,
 * the operation NCCL runs as grouped sends; only messages print them.
 *
 * Merged steps (pc->merge_steps, what the replay uses unless collectives.detail =
 * transfers): where no per-message cost applies (NVLink and PCI peers, LL), a piece's
 * steps, chained back to back on one route with nothing between them but the link
 * dependency, move the piece's bytes as one transfer of them does when the piece's route
 * carries nothing else, to within a picosecond per step (one rounding of the piece's time
 * instead of one per step: tests/check_replay.c); the plan then has one transfer per
 * piece. Where
 * other traffic shares the route the two differ only in how that traffic interleaves
 * with the steps (tests/golden runs every replay both ways and compares them). Network
 * pieces with the NIC's message cost keep their steps: each is a message.
 *
 * Simplification: a message of several pieces whose last (remainder) piece is
 * at most 16 KiB runs that piece with LL in NCCL; weft charges the whole
 * message the first piece's protocol (Simple): at most 16 KiB of a message of
 * more than 64 KiB.
 *
 * Complexity: weft_coll_p2p_comm_init() O(1); weft_coll_p2p_split() O(log
 * channels); weft_coll_p2p_plan_build() O(messages x pieces x steps).
 */
#ifndef WEFT_COLL_P2P_H
#define WEFT_COLL_P2P_H

#include <glib.h>

#include "coll/coll.h"
#include "coll/tuning.h"

G_BEGIN_DECLS

/* NCCL_P2P_LL_THRESHOLD (src/enqueue.cc, v2.20.3-1): the largest piece sent with LL. */
#define WEFT_COLL_P2P_LL_THRESHOLD 16384u

/** NCCL's point-to-point set-up of one communicator (its ncclComm p2p fields). */
typedef struct {
    guint n_ranks;
    guint n_nodes;
    guint p2p_channels;           /* p2pnChannels (a power of 2) */
    guint per_peer;               /* p2pnChannelsPerPeer (a power of 2) */
    guint min_channels;           /* scheduleP2pTasksToPlan()'s nChannelsMin */
    guint64 chunk_bytes;          /* p2pChunkSize: Simple's step, bytes */
    weft_time_t base_ps[2];       /* per protocol (0 LL, 1 Simple): baseLat */
    weft_time_t step_intra_ps[2]; /* hwLat of NVLink / PCI minus the route's latency, >= 0 */
    weft_time_t step_inter_ps[2]; /* hwLat of the network minus the route's latency, >= 0 */
    weft_time_t msg_ps;           /* the NIC's per-message cost (sys->net_msg_ps); 0: none */
    /* Build a piece as one transfer of all its steps where no per-message cost applies
     * (see the essay); weft_coll_p2p_comm_init() sets FALSE, the caller may set TRUE. */
    gboolean merge_steps;
} weft_coll_p2p_comm_t;

/** How one message of S bytes to one peer is cut (see the essay). */
typedef struct {
    weft_coll_proto_t proto; /* LL or Simple */
    guint pieces;            /* channels the message runs on (>= 1; 1 for S = 0) */
    guint64 piece_bytes;     /* NCCL's chunkBytesMax: every piece but the last */
    guint64 step_bytes;      /* data per step (one network message) */
    guint steps;             /* steps of the first piece (>= 1) */
} weft_coll_p2p_split_t;

/** One message of a point-to-point plan: from member @src to member @dst. */
typedef struct {
    guint32 src;
    guint32 dst;
} weft_coll_p2p_msg_t;

/**
 * weft_coll_p2p_comm_init:
 * @pc: (out): filled.
 * @sys: NCCL's view of the communicator (tuning.h, weft_coll_system_init()): n_ranks,
 *   n_nodes, ppn, nvlink, intra_GBps and arch (NVLink links), coll_channels (NCCL's
 *   comm->nChannels), the route latencies and net_msg_ps are read.
 * Derives p2pnChannels, p2pnChannelsPerPeer, nChannelsMin, p2pChunkSize and the
 * latencies as the essay says. O(1).
 */
void weft_coll_p2p_comm_init(weft_coll_p2p_comm_t *pc, const weft_coll_system_t *sys);

/**
 * weft_coll_p2p_split:
 * @pc: the communicator.
 * @size_bytes: S, the message.
 * @net: the peer is reached over the network (another node), else NVLink or PCI.
 * @out: (out): protocol, pieces, piece size, step size and steps per piece.
 * O(log channels).
 */
void weft_coll_p2p_split(const weft_coll_p2p_comm_t *pc, guint64 size_bytes, gboolean net,
                         weft_coll_p2p_split_t *out);

/**
 * weft_coll_p2p_plan_build:
 * @pc: the communicator.
 * @n_members: its members (endpoints 0 .. n_members - 1 of the plan).
 * @domain: per member its NVLink domain (weft_topo_vertex_domain()): two members of
 *   different domains talk over the network.
 * @msgs: the messages, all of @size_bytes, run at once; src != dst.
 * @n_msgs: their count (0: a plan with no transfers).
 * @size_bytes: S of each message.
 * @error: WEFT_COLL_ERROR_VALUE for a member out of range, a message to itself, or a plan
 *   of more than 2^31 transfers.
 * Builds the plan of the essay: message i's bytes are [i S, (i + 1) S) of the data space,
 * channel = piece index; plan->exec carries the protocol's latencies, efficiency and (Simple
 * across nodes) the per-message cost; channels and chunks the most pieces and steps.
 * Returns: (transfer full): the plan (free with weft_coll_plan_free()), or NULL.
 * Time complexity: O(transfers).
 */
weft_coll_plan_t *weft_coll_p2p_plan_build(const weft_coll_p2p_comm_t *pc, guint n_members,
                                           const gint *domain, const weft_coll_p2p_msg_t *msgs,
                                           guint n_msgs, guint64 size_bytes, GError **error);

G_END_DECLS

#endif /* WEFT_COLL_P2P_H */
