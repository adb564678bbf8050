/* SPDX-License-Identifier: MIT */
/*
 * Collectives: plans and their execution.
 *
 * A collective (operation, size, n members, algorithm, chunk count) is lowered
 * to a plan: plain data, a DAG of transfers between member indexes 0..n-1. A
 * transfer may start when all its predecessors have finished. Members are
 * mapped onto cluster vertices only when the plan runs, so one plan serves
 * every communicator of the same size (plans are cacheable by their key).
 *
 * Algorithms in this version:
 *  - ring (all-reduce, all-gather, reduce-scatter): members in communicator
 *    order form a ring; member i sends to i+1 mod n. All-reduce is a
 *    reduce-scatter followed by an all-gather: 2(n-1) steps of S/n bytes per
 *    member (S = the comm_size convention of doc/collectives.md); all-gather
 *    and reduce-scatter are n-1 steps each. With C chunks the data is cut into
 *    C pieces that pipeline through the ring: step k of chunk c waits for
 *    step k-1 of chunk c on the upstream member (the data) and for step k of
 *    chunk c-1 on the same member (the link is busy until then), so on a ring
 *    of identical links with latency a and per-direction bandwidth B the
 *    all-reduce takes (2(n-1) + C - 1)(a + S/(n C B)); with C = 1 that is the
 *    textbook 2(n-1)(a + S/(nB)).
 *  - direct all-to-all: every member sends S/n bytes to each of the n-1 others
 *    at once (S = bytes one member sends in total, including its own share).
 *  - broadcast and reduce (ring pipeline rooted at member 0), gather and
 *    scatter (direct to/from member 0), barrier (a ring all-reduce of 0 bytes):
 *    simple forms until the NCCL algorithms arrive. Broadcast runs the chain
 *    0 -> 1 -> ... -> n-1 and reduce the chain 1 -> 2 -> ... -> n-1 -> 0, each
 *    hop carrying S in C pipelined chunks with the same dependency rule as the
 *    ring; gather and scatter move S (the buffer each rank holds) between the
 *    root and each other member, all at once.
 * Chunks: a plan never uses more chunks than its smallest piece has bytes
 * (plan->chunks holds the count used; direct algorithms and barrier use 1).
 * A collective over one member moves no data and costs nothing (NCCL with one
 * rank performs, at most, a local copy, which this level does not charge).
 * Local reductions are not charged a cost in this version.
 *
 * Byte counts: when S/n (or S/(nC)) is not a whole number, the remainder bytes
 * go to the first pieces, so every plan moves exactly the bytes the operation
 * requires.
 */
#ifndef WEFT_COLL_COLL_H
#define WEFT_COLL_COLL_H

#include <glib.h>

#include "net/net.h"

G_BEGIN_DECLS

#define WEFT_COLL_ERROR (weft_coll_error_quark())
GQuark weft_coll_error_quark(void);

typedef enum {
    WEFT_COLL_ERROR_UNSUPPORTED, /* no such (operation, algorithm) pair */
    WEFT_COLL_ERROR_VALUE,       /* n == 0, chunks == 0, ... */
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
    WEFT_COLL_ALGO_HIERARCHICAL,     /* intra-node reduce-scatter, inter-node per rail, intra-node all-gather */
    WEFT_COLL_ALGO_NVLS,             /* reduction and multicast inside a gen3+ NVSwitch */
    WEFT_COLL_ALGO_NVLS_TREE,        /* NVLS inside nodes, tree across nodes */
    WEFT_COLL_ALGO_COLLNET,          /* in-network reduction in InfiniBand switches (SHARP) */
    WEFT_COLL_N_ALGOS
} weft_coll_algo_t;

/** NCCL's protocols (NCCL_PROTO). */
typedef enum {
    WEFT_COLL_PROTO_AUTO, /* chosen by the tuning model */
    WEFT_COLL_PROTO_LL,
    WEFT_COLL_PROTO_LL128,
    WEFT_COLL_PROTO_SIMPLE,
    WEFT_COLL_N_PROTOS
} weft_coll_proto_t;

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
} weft_coll_config_t;

/**
 * Where a communicator's members sit in the cluster, as algorithms need it:
 * which members share an NVLink domain (node), their rails, and which
 * in-network features the hardware has. Built by weft_coll_layout_new() from
 * the cluster; arrays have n_members entries.
 */
typedef struct {
    guint n_members;
    gint *vertex;       /* cluster vertex of each member */
    gint *domain;       /* NVLink domain (weft_topo_vertex_domain) */
    gint *host;
    gint *rail;
    guint n_domains;    /* distinct domains among the members */
    guint max_per_domain; /* most members in one domain */
    gboolean nvls;      /* every member's domain has NVSwitches that reduce and multicast (gen3+) */
    gboolean collnet;   /* the fabric between the domains reduces in-network (SHARP) */
} weft_coll_layout_t;

/** One transfer of a plan: @bytes from member @src to member @dst. */
typedef struct {
    guint32 src;
    guint32 dst;
    guint64 bytes;
} weft_coll_xfer_t;

/**
 * A plan. Transfer i has n_preds[i] predecessors; its successors are
 * succ[succ_off[i] .. succ_off[i+1]). Transfers are in a topological order.
 */
typedef struct {
    weft_coll_op_t op;
    weft_coll_algo_t algo; /* resolved: never AUTO */
    guint n_members;
    guint64 size_bytes; /* S, as in doc/collectives.md */
    guint chunks; /* chunks used: <= the requested count (see the essay) */
    guint n_xfers;
    weft_coll_xfer_t *xfers;
    guint32 *n_preds;
    guint32 *succ_off; /* n_xfers + 1 */
    guint32 *succ;
} weft_coll_plan_t;

/**
 * weft_coll_plan_new:
 * @op: the operation.
 * @algo: the algorithm, or WEFT_COLL_ALGO_AUTO.
 * @n_members: communicator size (>= 1).
 * @size_bytes: S per doc/collectives.md.
 * @chunks: pipeline chunks (>= 1; used by ring algorithms).
 * @error: WEFT_COLL_ERROR_*.
 * Returns: (transfer full): the plan, or NULL. Time complexity: O(transfers).
 */
weft_coll_plan_t *weft_coll_plan_new(weft_coll_op_t op, weft_coll_algo_t algo, guint n_members,
                                     guint64 size_bytes, guint chunks, GError **error);

/** weft_coll_plan_free: NULL is a no-op. */
void weft_coll_plan_free(weft_coll_plan_t *plan);

/** weft_coll_plan_print: appends a readable listing of @plan to @out. */
void weft_coll_plan_print(const weft_coll_plan_t *plan, GString *out);

/** weft_coll_op_name: "all_reduce", "all_gather", ... (nccl-tests spelling). */
const char *weft_coll_op_name(weft_coll_op_t op);

/**
 * weft_coll_op_from_name: parses weft_coll_op_name() spellings, ignoring case,
 * '_' and '-' (so "all_to_all", "ALLREDUCE" and "reduce-scatter" are accepted);
 * FALSE if unknown.
 */
gboolean weft_coll_op_from_name(const char *name, weft_coll_op_t *op);

/** weft_coll_algo_name: "auto", "ring", "direct". */
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
 * Starts the plan's transfers now; each starts when its predecessors have
 * finished. A plan with no transfers completes at the current time (through
 * the event queue, never by calling @done from inside this function).
 * Returns: (transfer full): the running collective (free it with
 * weft_coll_run_free() after @done, or to abandon it), or NULL on error.
 */
weft_coll_run_t *weft_coll_run(weft_net_t *net, const weft_coll_plan_t *plan,
                               const gint *member_vertex, weft_coll_done_fn done, void *ctx,
                               guint64 tag, GError **error);

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

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_coll_plan_t, weft_coll_plan_free)

G_END_DECLS

#endif /* WEFT_COLL_COLL_H */
