/* SPDX-License-Identifier: MIT */
/*
 * Collectives: plans and their execution.
 *
 * A collective (operation, size S, a communicator's layout, a resolved
 * configuration: algorithm, protocol, channels, chunks) is lowered to a plan:
 * plain data, a DAG of transfers between endpoints. Endpoints 0..n-1 are the
 * members; endpoints n.. are "virtual members", cluster vertices that take part
 * without being ranks (the NVSwitch chips that reduce for NVLS, the InfiniBand
 * switch that reduces for SHARP), resolved from the layout when the plan is
 * built (plan->virtual_vertex). Members are mapped onto cluster vertices when
 * the plan runs, so a plan is cacheable by (layout identity, op, S, config).
 *
 * Dependencies come in two kinds. A data dependency (WEFT_COLL_DEP_DATA) waits
 * for the predecessor to be delivered (its last byte arrived, plus the plan's
 * per-step latency and the receiver's reduction, see below): the successor
 * forwards or reduces what it brought. A link dependency (WEFT_COLL_DEP_LINK)
 * waits only for the predecessor to be *sent* (its bandwidth phase over,
 * weft_net_transfer_start_full()'s sent callback): builders add one from each
 * transfer to the next one emitted on the same (channel, source, destination),
 * so a channel's transfers on one connection go one after the other, in the
 * order the algorithm emits them (k-major for the ring: every chunk of step
 * k, then step k + 1), as on a real link, while the next one starts as soon
 * as the wire is free. Without link dependencies the analytical model, which
 * does not share links, would let two chunks cross one link at full rate each.
 *
 * Pipelined ring, identical links of latency a and bandwidth B, K steps, C
 * chunks of t = S/(nCB) each (all-reduce: K = 2(n-1)): transfer (k, c) starts
 * at s(k, c) = max(s(k-1, c) + t + a, s(k, c-1) + t) (its data; the wire),
 * with s(k, -1) + t standing for the end of step k-1's last chunk on the
 * wire. By induction s(k, c) = k max(Ct, a + t) + c t, so the last transfer is
 * delivered at
 *     T = (K - 1) max(C t, a + t) + C t + a;
 * C = 1 gives the textbook K (a + S/(nB)); C large gives K C t = K S/(nB) at
 * most, the bandwidth bound. The flow model gives the same picoseconds on an
 * uncongested ring: the link dependencies serialize a channel's transfers on a
 * link, so no link is ever shared.
 *
 * Algorithms (which operations each supports: weft_coll_plan_build()):
 *  - ring: members ordered so that the members of an NVLink domain are
 *    consecutive, sorted by rail, and each domain's list rotated so that the
 *    ring leaves a domain and enters the next on the same rail (NCCL's ring
 *    search on NVSwitch systems: one NIC per ring per node); channel c starts
 *    its first domain at rail position c, so channels use different NICs.
 *    All-reduce = reduce-scatter (n-1 steps, the receiver reduces) + all-gather
 *    (n-1 steps); broadcast and reduce are chains along the ring from / to the
 *    root (member 0), pipelined in chunks.
 *  - direct: every pair at once (all-to-all, gather, scatter; no chunks). Also
 *    ASTRA-sim's direct (AllToAll.cc, astra-sim 518bd513): reduce-scatter sends
 *    member j's block to j from every member at once, j reducing; all-reduce
 *    adds, once all n - 1 parts of block j are in and reduced, j's block to
 *    every other member; all-gather sends every block to every member at once.
 *  - tree: NCCL's double binary tree. Over the layout's domains, tree 0 is
 *    NCCL's btree (ncclGetBtree: rank r's parent is (r ^ b) | (b << 1), or r ^ b
 *    when that is out of range, with b the lowest set bit of r; domain 0 is the
 *    root), tree 1 its mirror (n - 1 - r) for an even domain count or its shift
 *    (r + 1 mod n) for an odd one (ncclGetDtree); inside a domain the members
 *    form a chain below the head (for channel c the member at rail position c,
 *    c + g/2 for tree 1, so trees and channels leave through different NICs;
 *    the two trees are two lanes of one channel: separate link orders, one
 *    channel for the sharing rule). Each tree carries half of each channel's data:
 *    all-reduce reduces up the tree (a member sends chunk c to its parent once
 *    its children's chunk c arrived) and broadcasts down. Depth D over a flat
 *    layout of n = 2^k members is k, and the all-reduce takes
 *    2 D (a + t) + (C - 1) t with t = S/(2CB) on uncongested links.
 *  - halving_doubling: Rabenseifner's all-reduce (Thakur, Rabenseifner and
 *    Gropp, IJHPCA 19(1), 2005): reduce-scatter by recursive halving (log2 p
 *    steps sending S/2, S/4, ..., S/p) then all-gather by recursive doubling,
 *    in communicator order. For n = p + r with p = 2^floor(log2 n), the first
 *    2r members fold first: each even one sends its whole vector to the odd
 *    one after it, which reduces; the p remaining run the power-of-two
 *    algorithm; at the end the odd ones send the result back (all-reduce) or
 *    the folded member's piece (reduce-scatter). All-gather is the doubling
 *    half (with the fold mirrored: the even member first gives its block to its
 *    odd partner, which gives every block back at the end).
 *  - hierarchical (all-reduce): ring reduce-scatter inside each domain (the
 *    member at position j ends with piece j of S/g), ring all-reduce of piece
 *    j across domains among the members at position j (one ring per rail),
 *    ring all-gather inside each domain. Needs the same member count g in
 *    every domain.
 *  - nvls (all-reduce, reduce-scatter, all-gather on one NVLink domain): each
 *    GPU sends its data up to the domain's NVSwitch chips (split over the chips
 *    in proportion to its NVLink bandwidth to each, as NVLink stripes traffic
 *    over all its links); a chip reduces a chunk once every member's part of it
 *    has arrived and multicasts the result down to every member. All-reduce:
 *    S up and S down per member. Reduce-scatter: S up, piece m (S/n) down to
 *    member m. All-gather: S up (copied, not reduced), the n-1 other blocks
 *    down. The switch's reduction costs nothing (it runs at line rate).
 *  - nvls_tree (all-reduce): NVLS reduce-scatter inside each domain (up S,
 *    piece j down to the member at position j), double binary tree all-reduce
 *    of piece j across domains among the members at position j, NVLS
 *    all-gather inside each domain (piece j up from its owner, multicast down).
 *    The reduce-scatter and the all-gather are separate link orders (lanes)
 *    of a channel, as NCCL runs them on separate warps: the all-gather of a
 *    chunk does not wait for the reduce-scatter of later chunks; under the
 *    analytical model the two may then overlap on one NVLink without sharing
 *    it (use the flow model, see doc/collectives.md).
 *  - collnet (all-reduce, SHARP): ring reduce-scatter inside each domain; the
 *    member at position j sends its piece to the SHARP switch of rail j
 *    (layout->collnet_switch[j]), which reduces the pieces of every domain and
 *    sends the result back to each of them; ring all-gather inside each
 *    domain. Where members of position j share a SHARP leaf on the way
 *    (layout->collnet_leaf), the piece goes up a two-level SHARP tree as on a
 *    real fabric: members to their leaf, which reduces and sends one piece to
 *    the root; the root's result comes down to each leaf once and the leaf
 *    multicasts it to its members. Needs layout->collnet and the same member
 *    count in every domain.
 * Barrier is an all-reduce of 0 bytes with the chosen algorithm (ring, tree,
 * halving_doubling). A collective over one member moves nothing and costs
 * nothing. Rooted operations (broadcast, reduce, gather, scatter) are rooted
 * at member 0.
 *
 * Channels: the data of every operation is cut into plan->channels parts (the
 * first parts take the remainder bytes); channel ch runs the algorithm on its
 * part, with its own ring rotation, concurrently with the others. Chunks: each
 * channel's pieces are cut into plan->chunks chunks that pipeline. A plan uses
 * at most as many channels and chunks as leave every piece at least one byte
 * (plan->channels and plan->chunks hold the counts used; direct algorithms
 * and barrier use 1 and 1).
 *
 * Costs charged by the executor (plan->exec, weft_coll_exec_t):
 *  - protocol efficiency: transfers move bytes / efficiency on the wire
 *    (weft_net_transfer_start_full()): LL 0.5 (8 bytes of data and 8 of flags
 *    per 16-byte line), LL128 120/128 = 0.9375 (a 128-byte line carries 120
 *    bytes of data and 8 of flags), Simple 1 (NCCL's src/device/prims_ll.h,
 *    prims_ll128.h; NCCL_LL128_DATAELEMS = 15 of 16 8-byte words);
 *  - per-step latency: a data successor waits step_intra_ps (both ends in one
 *    NVLink domain, or a member and its NVSwitch) or step_inter_ps (across
 *    domains, or to a SHARP switch) after the delivery, for the protocol's
 *    synchronisation (NCCL's hwLat table; tuning.c fills it); base_ps once
 *    before the first transfer;
 *  - local reduction: a transfer flagged WEFT_COLL_XFER_REDUCE into a member
 *    delays its data successors by 3 x bytes / hbm_Bps (the reduction reads the
 *    received and the local data and writes the sum: two reads and one write of
 *    b bytes each through HBM); 0 when hbm_Bps is 0;
 *  - local copies: a transfer flagged WEFT_COLL_XFER_COPY (src == dst, a member)
 *    is a copy by the member's own SMs between its buffers, not network
 *    traffic: it reads and writes its bytes through HBM, taking
 *    2 x bytes / copy_Bps, then releases its successors with no step latency
 *    (0 when copy_Bps is 0). A member's copies of one kind on one channel run
 *    one after another (a link dependency, as on a network pair). NVLS on one
 *    NVLink domain has them (build_nvls(), algos.c): NCCL's scatter warps copy
 *    the user input into the NVLS buffer before the multimem reduction, its
 *    gather warps copy the result out to the user output;
 *  - local delays: a transfer flagged WEFT_COLL_XFER_DELAY (with COPY) takes exactly
 *    its bytes field in picoseconds and releases its successors with no step latency:
 *    a custom collective's COMP node (workload.h, weft_workload_custom_plan());
 *  - channel_Bps: a cap on every transfer's rate (0: none);
 *  - per-message cost of the network (msg_ps, msg_bytes): a member's
 *    transfers across domains (WEFT_COLL_XFER_INTER, from a member) start one
 *    after another, each holding the member's network path for msg_ps x
 *    bytes / msg_bytes (msg_ps per transfer when msg_bytes is 0) from its
 *    start; a transfer that finds the path busy starts when it is free. The
 *    wire still moves the bytes at the network's rate, so a member's network
 *    throughput is at most msg_bytes / msg_ps: the message rate of the NIC and
 *    of the host thread that completes each message (NCCL's proxy). The
 *    receiving member pays the same: a delivered message waits until the
 *    receiver's path is free, then holds it for msg_ps x bytes / msg_bytes
 *    before the data's successors may go (its completion, handled by the
 *    receiver's NIC and proxy thread, which also handle its own sends). 0: none;
 *  - rendezvous (rendezvous_ps): a receiver-driven network (aws-ofi-nccl's
 *    RDMA protocol writes a message only once the receiver's control message
 *    naming the destination buffer has reached the sender) lets no transfer
 *    across domains start before rendezvous_ps after the roots may start:
 *    every connection's first control message, posted when the collective
 *    starts. Later control messages are posted NCCL_STEPS steps ahead and are
 *    not charged. 0: none;
 *  - ASTRA-sim's system layer (coll/astra_system.h): reduce_trunc_ns charges a
 *    reduction as 3 x floor(bytes / hbm_Bps) whole ns; net_trunc_ns truncates
 *    each transfer's network time to whole ns; waves > 1 runs the plan
 *    that many times in sequence, base_ps before each run (ASTRA-sim's chunks,
 *    at most active-chunks-per-dimension at once);
 *  - channels under the analytical model: a transfer runs at most at its
 *    route's rate x efficiency / m, m = the number of channels of the plan with
 *    transfers on the same (source, destination) pair (xfer->sharing): the
 *    analytical model does not share links, so without this C channels on one
 *    route would move C times the data a link can carry. Under the flow model
 *    channels share links through the max-min solver and no such cap applies.
 *    Transfers of different pairs that share a link (a GPU's NVLink port, a
 *    NIC) are seen sharing only by the flow model.
 *
 * Data space and offsets: every transfer names the bytes it moves as
 * [offset, offset + bytes) of the operation's data space, so a plan can be
 * checked by replaying it on symbolic data: all-reduce, reduce-scatter,
 * reduce, broadcast: [0, S) (the vector); all-gather, gather, scatter:
 * [0, n S), member m's block at m S; all-to-all: [0, n S), member i's send
 * buffer at i S, its piece for member j (split(S, n, j) bytes) at i S +
 * split_off(S, n, j); barrier: empty. A transfer flagged
 * WEFT_COLL_XFER_REDUCE adds the source's values into the destination's,
 * otherwise it copies them.
 *
 * Byte counts: when a cut is not even, the remainder bytes go to the first
 * pieces, so every plan moves exactly the bytes the operation requires.
 */
#ifndef WEFT_COLL_COLL_H
#define WEFT_COLL_COLL_H

#include <glib.h>

#include "core/keyfile.h"

#include "net/net.h"

G_BEGIN_DECLS

#define WEFT_COLL_ERROR (weft_coll_error_quark())
GQuark weft_coll_error_quark(void);

typedef enum {
    WEFT_COLL_ERROR_UNSUPPORTED, /* no such (operation, algorithm) pair */
    WEFT_COLL_ERROR_VALUE,       /* n == 0, chunks == 0, ... */
    WEFT_COLL_ERROR_PARSE,       /* a malformed custom collective file (coll/msccl.h) */
} weft_coll_error_t;

/** Collective operations; the values are Chakra's CollectiveCommType numbers. */
typedef enum {
    WEFT_COLL_ALL_REDUCE = 0,
    WEFT_COLL_REDUCE = 1,
    WEFT_COLL_ALL_GATHER = 2,
    WEFT_COLL_GATHER = 3,
    WEFT_COLL_SCATTER = 4,
    WEFT_COLL_BROADCAST = 5,
    WEFT_COLL_ALL_TO_ALL = 6,
    WEFT_COLL_REDUCE_SCATTER = 7,
    WEFT_COLL_REDUCE_SCATTER_BLOCK = 8,
    WEFT_COLL_BARRIER = 9,
    WEFT_COLL_N_OPS
} weft_coll_op_t;

typedef enum {
    WEFT_COLL_ALGO_AUTO, /* chosen by the tuning model (coll/tuning.h) */
    WEFT_COLL_ALGO_RING,
    WEFT_COLL_ALGO_DIRECT,           /* pairwise / direct (all-to-all, gather, scatter) */
    WEFT_COLL_ALGO_TREE,             /* NCCL's double binary tree */
    WEFT_COLL_ALGO_HALVING_DOUBLING, /* recursive halving-doubling (Rabenseifner / Thakur et al.) */
    WEFT_COLL_ALGO_HIERARCHICAL,     /* intra-node reduce-scatter, inter-node per rail, intra-node
                                        all-gather */
    WEFT_COLL_ALGO_NVLS,             /* reduction and multicast inside a gen3+ NVSwitch */
    WEFT_COLL_ALGO_NVLS_TREE,        /* NVLS inside nodes, tree across nodes */
    WEFT_COLL_ALGO_COLLNET,          /* in-network reduction in InfiniBand switches (SHARP) */
    WEFT_COLL_N_ALGOS
} weft_coll_algo_t;

/* The name table of the algorithms, in weft_coll_algo_t's order: auto, ring, direct,
 * tree, halving_doubling, hierarchical, nvls, nvls_tree, collnet (core/keyfile.h). */
extern const weft_enum_t weft_coll_algo_enum;

/** NCCL's protocols (NCCL_PROTO). */
typedef enum {
    WEFT_COLL_PROTO_AUTO, /* chosen by the tuning model */
    WEFT_COLL_PROTO_LL,
    WEFT_COLL_PROTO_LL128,
    WEFT_COLL_PROTO_SIMPLE,
    WEFT_COLL_N_PROTOS
} weft_coll_proto_t;

/* The name table of the protocols as configuration keys spell them: auto, ll, ll128,
 * simple (weft_coll_proto_name() gives NCCL's display names LL, LL128, Simple). */
extern const weft_enum_t weft_coll_proto_enum;

/**
 * How to run one collective: what NCCL decides per call (algorithm, protocol,
 * channel count) plus the pipeline chunk count. A plan is built for a fully
 * resolved configuration (no AUTO left); coll/tuning.h resolves AUTO.
 */
typedef struct {
    weft_coll_algo_t algo;
    weft_coll_proto_t proto;
    guint channels; /* parallel rings/trees, each moving its share of the data; >= 1 */
    guint chunks;   /* pipeline chunks per channel; >= 1 */
    /* A ring all-reduce, reduce-scatter or all-gather with at least this many transfers is
     * built as an implicit plan (weft_coll_plan_is_implicit()); 0 means
     * WEFT_COLL_IMPLICIT_XFERS, G_MAXUINT64 never. */
    guint64 implicit_xfers;
} weft_coll_config_t;

/* The default of weft_coll_config_t.implicit_xfers: 2^20 transfers (about 80 MiB as an
 * explicit plan). */
#define WEFT_COLL_IMPLICIT_XFERS (G_GUINT64_CONSTANT(1) << 20)

/**
 * Where a communicator's members sit in the cluster, as algorithms need it:
 * which members share an NVLink domain (node), their rails, and which
 * in-network features the hardware has. Built by weft_coll_layout_new() from
 * the cluster; per-member arrays have n_members entries.
 *
 * Layout domains: the distinct NVLink domains of the members, numbered
 * 0..n_domains-1 in order of their first member (dom[m]); the members of
 * layout domain d are dom_members[dom_off[d] .. dom_off[d+1]), sorted by
 * (rail, member index) with rail -1 last; local[m] is m's position in that
 * list.
 */
typedef struct {
    guint n_members;
    gint *vertex; /* cluster vertex of each member (-1 in a flat layout) */
    gint *domain; /* NVLink domain (weft_topo_vertex_domain) */
    gint *host;
    gint *rail;
    guint n_domains;      /* distinct domains among the members */
    guint max_per_domain; /* most members in one domain */
    gboolean nvls;    /* every member's domain has NVSwitches that reduce and multicast (gen3+) */
    gboolean collnet; /* the fabric between the domains reduces in-network (SHARP) */
    /* added for the plan builders */
    guint *dom;         /* layout domain of each member */
    guint *local;       /* position of each member in its layout domain */
    guint *dom_off;     /* n_domains + 1 offsets into dom_members */
    guint *dom_members; /* members grouped by layout domain (see above) */
    gboolean uniform;   /* every layout domain has max_per_domain members */
    gboolean aligned;   /* every domain's rings start at the same position (no per-domain
                           rotation; weft_coll_layout_new_blocks(): ASTRA-sim's dimension-0
                           coordinate is the position, so a position's members share a
                           dimension-1 group) */
    /* NVLS: per layout domain d, its NVSwitch chips with WEFT_TOPO_FEATURE_NVLS
     * nvls_switch[nvls_off[d] .. nvls_off[d+1]) and the rate (bytes/s) of the
     * route from the domain's first member to each, nvls_weight (how NVLink
     * stripes a GPU's traffic over the chips). Empty (nvls_off all 0) without NVLS. */
    guint *nvls_off;
    gint *nvls_switch;
    double *nvls_weight;
    /* CollNet: per position j < max_per_domain, the SHARP switch that reduces the
     * data of the members at position j (-1 where none); NULL without collnet. */
    gint *collnet_switch;
    /* CollNet: per member, the SHARP switch nearest to it on its route to its
     * collnet_switch (a leaf) when that is another switch shared by at least two
     * members of its position: the SHARP tree aggregates there first; -1 where
     * the member reaches the root directly. NULL without collnet. */
    gint *collnet_leaf;
    double hbm_Bps; /* HBM bandwidth of the members' GPUs, for reductions; 0 = unknown */
    /* Achievable streaming HBM bandwidth of the slowest member's GPU (weft_hw_gpu_t
     * hbm_stream_Bps, from the cluster's gpu_model), for local copies; 0 = unknown */
    double hbm_stream_Bps;
} weft_coll_layout_t;

/** Kinds of plan dependencies (see the essay). */
typedef enum {
    WEFT_COLL_DEP_DATA = 0, /* wait for the predecessor's delivery (+ step latency + reduction) */
    WEFT_COLL_DEP_LINK = 1, /* wait for the predecessor's last byte to leave its source */
} weft_coll_dep_kind_t;

/** weft_coll_xfer_t.flags */
enum {
    WEFT_COLL_XFER_REDUCE = 1 << 0, /* the destination adds the bytes into its own */
    WEFT_COLL_XFER_INTER = 1 << 1,  /* crosses NVLink domains (step_inter_ps applies) */
    WEFT_COLL_XFER_COPY = 1 << 2,   /* a member's local copy through HBM: src == dst (coll.h) */
    WEFT_COLL_XFER_DELAY = 1 << 3,  /* with COPY: a local step of the member taking exactly
                                       @bytes picoseconds, not an HBM copy (a custom
                                       collective's COMP node, workload.h) */
};

/**
 * One transfer of a plan: @bytes from endpoint @src to endpoint @dst (members
 * 0..n-1, then virtual members), the bytes [@offset, @offset + @bytes) of the
 * data space (see the essay).
 */
typedef struct {
    guint32 src;
    guint32 dst;
    guint64 bytes;
    guint64 offset;
    guint16 channel; /* which channel (both trees of a tree channel count as one) */
    guint16 sharing; /* channels with transfers on the same (src, dst): the analytical divisor */
    guint8 flags;    /* WEFT_COLL_XFER_* */
} weft_coll_xfer_t;

/**
 * What the executor charges besides the network (see the essay). The plan
 * builder fills efficiency from the protocol and hbm_Bps from the layout,
 * the rest 0; coll/tuning.c overwrites them from NCCL's tables.
 */
typedef struct {
    weft_time_t base_ps;       /* once per collective, before the first transfer */
    weft_time_t step_intra_ps; /* per delivered transfer inside an NVLink domain */
    weft_time_t step_inter_ps; /* per delivered transfer across domains */
    double efficiency;         /* payload bytes per wire byte, (0, 1] */
    double efficiency_intra;   /* the same for transfers inside an NVLink domain; 0 = efficiency */
    double efficiency_shared;  /* efficiency where the network model shares links (both do): without
                                  the factors that stand for sharing the model simulates
                                  itself (NVLS tree's bwInter / 2 beyond 2 nodes); 0 =
                                  efficiency */
    double channel_Bps;        /* cap on a transfer's payload rate; 0 = none */
    double hbm_Bps;            /* GPU memory bandwidth for local reductions; 0 = free */
    double copy_Bps;           /* HBM bandwidth of one local copy stream (COPY transfers);
                                  0 = free */
    weft_time_t msg_ps;        /* per-message cost of a member's network path; 0 = none */
    guint64 msg_bytes;         /* bytes per network message (0: one message per transfer) */
    weft_time_t rendezvous_ps; /* no transfer across domains starts before this long after the
                                  first transfers may (the receivers' first control messages);
                                  0 = none */
    gboolean reduce_trunc_ns;  /* a reduction costs 3 x floor(bytes / hbm_Bps in ns) ns, each
                                  of its two reads and one write truncated to whole ns as
                                  ASTRA-sim's PacketBundle.cc does (astra_system.h); FALSE:
                                  3 x bytes / hbm_Bps to the ps */
    gboolean net_trunc_ns;     /* a transfer's network time (start to delivery) is truncated
                                  to whole ns, as astra-network-analytical's congestion-unaware
                                  BasicTopology::compute_communication_delay() casts it to
                                  uint64_t ns (astra_system.h); the sub-ns part comes off
                                  the transfer's post-delay (not below 0); FALSE: to the ps */
    guint waves;               /* the plan runs this many times one after another, each run
                                  paying base_ps again (ASTRA-sim's chunks beyond its active
                                  ones, astra_system.h); 0 and 1: once */
} weft_coll_exec_t;

typedef struct weft_coll_implicit weft_coll_implicit_t;

/**
 * A plan. Transfer i has n_preds[i] predecessors (of both kinds); its
 * successors are succ[succ_off[i] .. succ_off[i+1]) with kinds succ_kind[..].
 * Transfers are in a topological order (every predecessor has a smaller index).
 *
 * An implicit plan (a ring too large to store transfer by transfer; implicit
 * is set) has n_xfers 0 and no transfer arrays: its transfers are computed
 * from (channel, step, chunk, position) when it runs (weft_coll_sweep()) or
 * built on demand (weft_coll_plan_explicit()). weft_coll_plan_n_transfers()
 * counts them either way.
 */
typedef struct {
    weft_coll_op_t op;
    weft_coll_algo_t algo;   /* resolved: never AUTO */
    weft_coll_proto_t proto; /* resolved: never AUTO */
    guint n_members;
    guint n_virtual;      /* virtual members: endpoints n_members .. n_members + n_virtual - 1 */
    gint *virtual_vertex; /* their cluster vertices (n_virtual entries; NULL when 0) */
    guint64 size_bytes;   /* S, as in doc/collectives.md */
    guint64 space_bytes;  /* size of the data space (see the essay) */
    guint channels;       /* channels used: <= the requested count (see the essay) */
    guint chunks;         /* chunks used: <= the requested count (see the essay) */
    weft_coll_exec_t exec;
    guint n_xfers;
    weft_coll_xfer_t *xfers;
    guint32 *n_preds;
    guint32 *succ_off; /* n_xfers + 1 */
    guint32 *succ;
    guint8 *succ_kind;              /* weft_coll_dep_kind_t per successor entry */
    guint64 moved_bytes;            /* sum of the network transfers' bytes (no local copies) */
    weft_coll_implicit_t *implicit; /* NULL for an explicit plan (private, coll_private.h) */
    gboolean custom; /* written by the user (MSCCL-IR XML, a Chakra ET), not built by an
                        algorithm: algo is then DIRECT and outputs say "custom" */
} weft_coll_plan_t;

/**
 * weft_coll_layout_new:
 * @fabric: the fabric state of the cluster (topo/fabric.h): its routes, under the run's
 *   ECMP seed and link state, find the NVLS chips and SHARP switches; the cluster is read.
 * @member_vertex: the n members' cluster vertices (GPUs; copied).
 * @n: member count (>= 1).
 *
 * Fills every field: domains, hosts and rails from the cluster; nvls when
 * every layout domain has NVSwitch chips with WEFT_TOPO_FEATURE_NVLS that the
 * domain's first member reaches over NVLink in one hop (an NVSwitch domain of
 * gen3+ chips); collnet when there are at least two domains, they are uniform,
 * and for every position j the switch of highest tier on the routes from the
 * first domain's member j to the others' member j has WEFT_TOPO_FEATURE_SHARP
 * (that switch is collnet_switch[j], the root of the SHARP reduction). hbm_Bps
 * is left 0 (reductions are not charged; the caller may set it); hbm_stream_Bps is
 * the least streaming bandwidth of the members' GPU models (topo.h:
 * weft_topo_vertex_gpu_model()), 0 when a member has none.
 * Returns: (transfer full): the layout. Time complexity: O(n log n +
 * vertices + routes of max_per_domain x n_domains pairs).
 */
weft_coll_layout_t *weft_coll_layout_new(weft_fabric_t *fabric, const gint *member_vertex, guint n);

/**
 * weft_coll_layout_new_flat:
 * A layout of @n members with no cluster: each member its own domain (vertex,
 * host and rail -1), no NVLS, no CollNet. weft_coll_plan_new() uses it.
 * Returns: (transfer full).
 */
weft_coll_layout_t *weft_coll_layout_new_flat(guint n);

/**
 * weft_coll_layout_new_blocks:
 * A layout of @n members with no cluster in domains of @g consecutive members (member m
 * in domain m / @g; @g must divide @n): an ASTRA-sim network's dimension-0 blocks, over
 * which the hierarchical all-reduce runs one phase per dimension (astra_system.h).
 * Returns: (transfer full). O(n).
 */
weft_coll_layout_t *weft_coll_layout_new_blocks(guint n, guint g);

/** weft_coll_layout_free: NULL is a no-op. */
void weft_coll_layout_free(weft_coll_layout_t *layout);

/**
 * weft_coll_plan_build:
 * @op: the operation.
 * @cfg: the configuration; algo AUTO means the default of the operation (ring,
 *   or direct for all-to-all, gather and scatter), proto AUTO means Simple,
 *   channels and chunks 0 mean 1.
 * @layout: the communicator.
 * @size_bytes: S per doc/collectives.md.
 * @error: WEFT_COLL_ERROR_UNSUPPORTED for an (operation, algorithm) pair that
 *   does not exist or cannot run on @layout (NVLS without layout->nvls or over
 *   several domains; CollNet without layout->collnet; hierarchical or CollNet
 *   over domains of different sizes); WEFT_COLL_ERROR_VALUE for a plan too large:
 *   more than 2^31 transfers, or more memory to build than
 *   weft_coll_plan_memory_budget(), checked before anything is allocated.
 *
 * Supported pairs: ring: all-reduce, reduce-scatter (both kinds), all-gather,
 * broadcast, reduce, barrier; direct: all-to-all, gather, scatter, all-reduce,
 * reduce-scatter, all-gather; tree and
 * halving_doubling: all-reduce, barrier (and halving_doubling reduce-scatter,
 * all-gather); hierarchical, nvls_tree, collnet: all-reduce; nvls: all-reduce,
 * reduce-scatter, all-gather.
 * Returns: (transfer full): the plan, or NULL. Time complexity: O(transfers +
 * dependencies), with one hash lookup per transfer for its link predecessor.
 */
/**
 * weft_coll_plan_memory_budget:
 *
 * The most memory one explicit plan may take to build: half of the machine's
 * physical memory (sysconf(_SC_PHYS_PAGES) x _SC_PAGESIZE; 8 GiB where the
 * system does not say). A plan's need is counted from its exact transfer count
 * (the builder's transfers and dependencies, and the packed plan beside them)
 * before anything is allocated. Implicit ring plans, which store no transfers,
 * are not limited by it.
 *
 * Returns: the budget in bytes. Time complexity: O(1).
 */
double weft_coll_plan_memory_budget(void);

weft_coll_plan_t *weft_coll_plan_build(weft_coll_op_t op, const weft_coll_config_t *cfg,
                                       const weft_coll_layout_t *layout, guint64 size_bytes,
                                       GError **error);

/**
 * weft_coll_proto_efficiency: payload bytes per wire byte of @proto (see the
 * essay): LL 0.5, LL128 0.9375, Simple (and AUTO) 1.
 */
double weft_coll_proto_efficiency(weft_coll_proto_t proto);

/** weft_coll_proto_name: "auto", "LL", "LL128", "Simple" (NCCL's spellings). */
const char *weft_coll_proto_name(weft_coll_proto_t proto);

/**
 * weft_coll_plan_new:
 * @op: the operation.
 * @algo: the algorithm, or WEFT_COLL_ALGO_AUTO.
 * @n_members: communicator size (>= 1).
 * @size_bytes: S per doc/collectives.md.
 * @chunks: pipeline chunks (>= 1).
 * @error: WEFT_COLL_ERROR_*; VALUE for n_members or chunks 0.
 *
 * weft_coll_plan_build() over weft_coll_layout_new_flat(@n_members) with one
 * channel and the Simple protocol (members in communicator order, no cluster
 * knowledge), kept for callers that have no layout.
 * Returns: (transfer full): the plan, or NULL. Time complexity: O(transfers).
 */
weft_coll_plan_t *weft_coll_plan_new(weft_coll_op_t op, weft_coll_algo_t algo, guint n_members,
                                     guint64 size_bytes, guint chunks, GError **error);

/** weft_coll_plan_is_implicit: whether @plan keeps its rings rather than its transfers. */
gboolean weft_coll_plan_is_implicit(const weft_coll_plan_t *plan);

/** weft_coll_plan_n_transfers: @plan's transfer count (implicit or not). O(1). */
guint64 weft_coll_plan_n_transfers(const weft_coll_plan_t *plan);

/**
 * weft_coll_plan_explicit:
 * @plan: a plan.
 * @error: WEFT_COLL_ERROR_VALUE if an implicit plan has more transfers than a
 *   plan may hold (2^31 - 1).
 *
 * The plan with every transfer stored: @plan itself if explicit, else its
 * transfers built once (exactly those of weft_coll_plan_build() with
 * implicit_xfers = G_MAXUINT64, and @plan's exec) and cached in @plan.
 * Returns: (transfer none): owned by @plan, or NULL on error. O(transfers) the
 * first time, O(1) after.
 */
const weft_coll_plan_t *weft_coll_plan_explicit(const weft_coll_plan_t *plan, GError **error);

/**
 * weft_coll_plan_equal:
 * Whether @a and @b have the same transfers and dependencies (shape fields,
 * exec excepted: callers compare those). O(transfers) for explicit plans,
 * O(channels x members) for implicit ones; an implicit plan never equals an
 * explicit one.
 */
gboolean weft_coll_plan_equal(const weft_coll_plan_t *a, const weft_coll_plan_t *b);

/**
 * weft_coll_plan_pairs:
 * The distinct (source, destination) endpoint pairs of @plan's transfers in
 * order of first use, each as (src << 32 | dst).
 * Returns: (transfer full): a GArray of guint64. O(transfers) explicit,
 * O(channels x members) implicit.
 */
GArray *weft_coll_plan_pairs(const weft_coll_plan_t *plan);

/** weft_coll_plan_free: NULL is a no-op. */
void weft_coll_plan_free(weft_coll_plan_t *plan);

/**
 * weft_coll_plan_print: appends a readable listing of @plan to @out: a header
 * (operation, algorithm, protocol, members, virtual members with their
 * vertices, S, channels, chunks, transfers, costs), then one line per
 * transfer: "#i ch<c> <src> -> <dst> [offset, end) <bytes> B [reduce] [inter]
 * <preds> preds succ [j d, k l]" where members print as m<i>, virtual members
 * as v<i> and successors carry their kind (d data, l link).
 */
void weft_coll_plan_print(const weft_coll_plan_t *plan, GString *out);

/** weft_coll_op_name: "all_reduce", "all_gather", ... (nccl-tests spelling). */
const char *weft_coll_op_name(weft_coll_op_t op);

/**
 * weft_coll_op_from_name: parses weft_coll_op_name() spellings, ignoring case,
 * '_' and '-' (so "all_to_all", "ALLREDUCE" and "reduce-scatter" are accepted);
 * FALSE if unknown.
 */
gboolean weft_coll_op_from_name(const char *name, weft_coll_op_t *op);

/** weft_coll_algo_name: "auto", "ring", "direct", "tree", "halving_doubling", "hierarchical",
 * "nvls", "nvls_tree", "collnet". */
const char *weft_coll_algo_name(weft_coll_algo_t algo);

/**
 * weft_coll_done_fn: called once, from the event loop, when every transfer of
 * a running plan has finished. @ctx and @tag are those given to weft_coll_run().
 */
typedef void (*weft_coll_done_fn)(void *ctx, guint64 tag);

typedef struct weft_coll_run weft_coll_run_t;

/**
 * weft_coll_run:
 * @net: the network.
 * @plan: the plan (not owned; must outlive the run).
 * @member_vertex: array of plan->n_members cluster vertex ids (copied).
 * @done, @ctx, @tag: completion callback.
 * @error: WEFT_NET_ERROR_NO_ROUTE if two members cannot reach each other.
 *
 * weft_coll_run_full() with plan->exec.
 */
weft_coll_run_t *weft_coll_run(weft_net_t *net, const weft_coll_plan_t *plan,
                               const gint *member_vertex, weft_coll_done_fn done, void *ctx,
                               guint64 tag, GError **error);

/**
 * weft_coll_run_full:
 * @net, @plan, @member_vertex, @done, @ctx, @tag, @error: as weft_coll_run().
 * @exec: (nullable): the costs to charge (copied); NULL means plan->exec.
 *
 * After exec->base_ps, starts the plan's transfers whose predecessors are
 * all met: a data predecessor when it has been delivered and its post-delay
 * (step latency, plus the receiver's reduction) has passed, a link predecessor
 * when its last byte has been sent. The run finishes when every transfer's
 * post-delay has passed. A plan with no transfers completes after base_ps
 * (through the event queue, never by calling @done from inside this
 * function). Transfers go to weft_net_transfer_start_full() with the
 * efficiency, the channel cap and, under the analytical model, the sharing
 * divisor of the essay.
 * Returns: (transfer full): the running collective (free it with
 * weft_coll_run_free() after @done, or to abandon it), or NULL on error.
 */
weft_coll_run_t *weft_coll_run_full(weft_net_t *net, const weft_coll_plan_t *plan,
                                    const gint *member_vertex, const weft_coll_exec_t *exec,
                                    weft_coll_done_fn done, void *ctx, guint64 tag, GError **error);

/**
 * weft_coll_run_free:
 * @run: a running or finished collective; NULL is a no-op.
 *
 * Frees @run. If it has not finished, its transfers in flight are cancelled
 * (weft_net_transfer_cancel_ctx()) and @done is never called. The network
 * must still exist.
 */
void weft_coll_run_free(weft_coll_run_t *run);

/** weft_coll_run_finished: TRUE once @run's done callback has been called. */
gboolean weft_coll_run_finished(const weft_coll_run_t *run);

/**
 * weft_coll_time:
 * @net, @plan, @member_vertex: as weft_coll_run().
 * @sim: the simulation @net runs on; must be idle (no pending events).
 * @error: as weft_coll_run().
 *
 * Runs @plan alone on an idle network and returns how long it took, in
 * picoseconds, or -1 on error. For tests, `weft coll` and benchmarks.
 */
weft_time_t weft_coll_time(weft_sim_t *sim, weft_net_t *net, const weft_coll_plan_t *plan,
                           const gint *member_vertex, GError **error);

/** weft_coll_time_full: weft_coll_time() charging @exec (nullable: plan->exec). */
weft_time_t weft_coll_time_full(weft_sim_t *sim, weft_net_t *net, const weft_coll_plan_t *plan,
                                const gint *member_vertex, const weft_coll_exec_t *exec,
                                GError **error);

/** Per-edge totals of a sweep (weft_coll_sweep()), as weft_net_link_stats() counts them. */
typedef struct {
    gint edge;
    guint64 bytes_fx; /* bytes carried, in weft_net_bytes_fx() units */
    weft_time_t busy_ps;
    double peak_util;
} weft_coll_sweep_link_t;

/**
 * weft_coll_sweep:
 * @net: an analytical network (only its cluster and options are read).
 * @plan: an implicit plan (weft_coll_plan_is_implicit()).
 * @member_vertex: plan->n_members cluster vertices.
 * @exec: (nullable): the costs (NULL: plan->exec).
 * @duration_ps: (out): how long the plan takes run alone from an idle network.
 * @links: (out) (transfer full): per edge its routes cross, its totals (a GArray of
 *   weft_coll_sweep_link_t, in order of first use).
 * @error: WEFT_COLL_ERROR_UNSUPPORTED when the sweep does not apply (the flow
 *   model, a route with an ECMP choice, per-message costs across domains, or an
 *   edge shared by several of the plan's pairs with more phases than 2^22 to
 *   sort); WEFT_NET_ERROR_NO_ROUTE when two members cannot reach each other.
 *
 * Computes, without events, what weft_coll_time_full() would measure under the
 * analytical model: every transfer starts when its data predecessor's delivery
 * plus post-delay and its link predecessor's send end have passed (coll.h), and
 * takes the model's L + S / B. Transfers are visited in the plan's topological
 * order keeping one release time per (position, chunk) and one send end per
 * position, so memory is O(channels x members x chunks), never O(transfers).
 * When every position has the same route costs and piece length, every
 * position's times are the same (by induction over the steps) and one position
 * is computed, O(steps x chunks): for all channels at once when the streams
 * crossing each edge have equal shares (an edge crossed k times sees k copies of
 * each phase at once), else per channel whose edges no other stream crosses.
 * Durations and busy times are identical to the event run to the picosecond,
 * bytes exactly; peak utilization too, except on an edge that several unlike
 * streams cross, where equal-time phases may sum in another order (a last-bit
 * difference).
 * Returns: FALSE on error. Time complexity: O(transfers x hops), or O(steps x
 * chunks x channels + members x hops) in the uniform case.
 */
gboolean weft_coll_sweep(weft_net_t *net, const weft_coll_plan_t *plan, const gint *member_vertex,
                         const weft_coll_exec_t *exec, weft_time_t *duration_ps, GArray **links,
                         GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_coll_plan_t, weft_coll_plan_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_coll_layout_t, weft_coll_layout_free)

G_END_DECLS

#endif /* WEFT_COLL_COLL_H */
