/* SPDX-License-Identifier: MIT */
/*
 * ASTRA-sim's system configuration (the JSON of `--system-configuration`), read
 * into typed values and mapped onto weft's collective executor.
 *
 * ASTRA-sim's system layer (astra-sim/astra-sim @ 518bd513, astra-sim/system/Sys.cc
 * initialize_sys(), astraccl/CollectiveImplLookup.cc) reads these keys:
 * scheduling-policy, collective-optimization, local-reduction-delay,
 * active-chunks-per-dimension, L, o, g, G, endpoint-delay, model-shared-bus,
 * preferred-dataset-splits, peak-perf, local-mem-bw, roofline-enabled,
 * trace-enabled, replay-only, track-local-mem, local-mem-trace-filename, the
 * four *-implementation lists, the four *-implementation-custom lists and
 * per-node-custom-implementation. Shipped inputs also carry boost-mode, which
 * ASTRA-sim at that commit does not read.
 *
 * The model of one collective of S bytes on a one-dimensional network under a
 * native implementation, as ASTRA-sim runs it (read in the files named; nothing
 * copied):
 *  - chunks (Sys.cc generate_collective(), determine_chunk_size()): S is cut
 *    into K = preferred-dataset-splits chunks of c = floor(S / K) bytes (c is
 *    raised to the NPU count when smaller, except for all-gather), each a
 *    stream; every stream moves c bytes;
 *  - active chunks (Sys.cc SchedulerUnit, num-queues-per-dim = 1 by default):
 *    at most A = active-chunks-per-dimension streams run at once on a
 *    dimension's queue; a stream starts when one ends. Under ASTRA-sim's
 *    congestion-unaware network the A streams do not meet, so the collective
 *    takes ceil(K / A) times one stream's time;
 *  - endpoint delay (MemBus.cc, PacketBundle.cc): before every send and after
 *    the last receive of a stream, a PacketBundle waits endpoint-delay ns
 *    (d); a received message that is reduced (all-reduce's first half,
 *    reduce-scatter) then waits 3 floor(m / local-mem-bw) ns more (two reads
 *    and a write through local memory, each truncated to whole ns);
 *  - ring (Ring.cc): 2(n-1) steps for all-reduce, n-1 otherwise, messages of
 *    m = c/n (all-gather: c), each step waiting for the previous receive:
 *        T_ring(all-reduce) = d + 2(n-1)(net(m) + d) + (n-1) 3 floor(m / bw);
 *  - direct (AllToAll.cc): all n-1 messages of a phase at once; all-reduce's
 *    second phase waits for every first-phase receive and its reduction:
 *        T_direct(all-reduce) = 3d + 2 net(m) + 3 floor(m / bw)
 *    where net(m) is the network's time for m bytes (the slowest destination),
 *    in whole ns: astra-network-analytical @ 599a0473,
 *    congestion_unaware/basic-topology/BasicTopology.cpp
 *    compute_communication_delay() returns static_cast<EventTime>(latency x hops +
 *    m / bw) with EventTime = uint64_t ns, and astra-sim's
 *    CongestionUnawareNetworkApi::sim_send() schedules the arrival that late.
 *
 * Multi-dimensional networks (Sys.cc generate_collective(), 518bd513): each
 * chunk (stream) is a list of phases, one CollectivePhase per dimension with more than
 * one NPU that the node's involved_dim (Workload.cc; absent: all of 4 dimensions, and
 * ignored for a collective with a pg_name, whose communicator group's plan decides)
 * includes, each on that dimension's queue and implementation, the next phase's data
 * size being the previous one's final_data_size (Ring.cc: all-reduce keeps c, message
 * c/n_d; reduce-scatter gives c/n_d; all-gather c x n_d, message c):
 *  - collective-optimization baseline, and every operation other than all-reduce: the
 *    operation itself on dimension 0, 1, ..., D-1 in turn (all-gather: D-1 down to 0),
 *    so a baseline all-reduce is a whole all-reduce of c on every dimension;
 *  - localBWAware all-reduce (the default Ascending inter-dimension scheduling):
 *    reduce-scatter on dimensions 0 .. L-1 (c -> c / (n_0 ... n_{L-1})), all-reduce on
 *    the last active dimension L, all-gather on L-1 down to 0; the dimensions visited
 *    twice give half their queues to each visit.
 * A chunk's phases run one after another; different chunks run on different dimensions
 * at once (each dimension's queues admit active-chunks-per-dimension streams), which
 * weft's waves (below) do not express (warned: weft's time is then longer).
 * weft runs one case phase by phase (weft_astra_system_phases()): a localBWAware
 * all-reduce over the whole of a network with two dimensions of more than one NPU, both
 * ring, as its hierarchical all-reduce over blocks of n_0 consecutive members
 * (weft_coll_layout_new_blocks(): position j of every block is dimension-0 coordinate
 * j, so the cross-block rings are dimension-1 groups), base_ps = 3 d (each phase opens
 * with its own endpoint delay):
 *     T = sum over phases of (d + steps (net(m) + d) + reductions).
 * Every other multi-dimensional case runs dimension 0's implementation over the whole
 * communicator, warned at load.
 *
 * weft runs this as an ordinary plan (coll.h) with: algorithm from the
 * dimension's implementation, channels = min(A, K) (the concurrent streams),
 * chunks 1, S' = c x channels, and executor costs base_ps = step_*_ps = d,
 * hbm_Bps = local-mem-bw with ASTRA-sim's truncation (reduce_trunc_ns), each
 * transfer's network time truncated to whole ns (net_trunc_ns), and
 * waves = ceil(K / A) runs of the plan one after another (weft_coll_exec_t).
 */
#ifndef WEFT_COLL_ASTRA_SYSTEM_H
#define WEFT_COLL_ASTRA_SYSTEM_H

#include <glib.h>

#include "coll/coll.h"

G_BEGIN_DECLS

#define WEFT_ASTRA_SYSTEM_ERROR (weft_astra_system_error_quark())
GQuark weft_astra_system_error_quark(void);

typedef enum {
    WEFT_ASTRA_SYSTEM_ERROR_FILE,  /* unreadable, not JSON, not an object */
    WEFT_ASTRA_SYSTEM_ERROR_VALUE, /* a key with a value of the wrong type or out of range */
} weft_astra_system_error_t;

/** ASTRA-sim's native collective implementations (CollectiveImplLookup.cc). */
typedef enum {
    WEFT_ASTRA_IMPL_RING,
    WEFT_ASTRA_IMPL_ONE_RING,
    WEFT_ASTRA_IMPL_DIRECT,
    WEFT_ASTRA_IMPL_ONE_DIRECT,
    WEFT_ASTRA_IMPL_HALVING_DOUBLING,
    WEFT_ASTRA_IMPL_ONE_HALVING_DOUBLING,
    WEFT_ASTRA_IMPL_DOUBLE_BINARY_TREE,
    WEFT_ASTRA_N_IMPLS
} weft_astra_impl_t;

/* The name table of the implementations as ASTRA-sim spells them: ring, oneRing, direct,
 * oneDirect, halvingDoubling, oneHalvingDoubling, doubleBinaryTree. */
extern const weft_enum_t weft_astra_impl_enum;

typedef enum {
    WEFT_ASTRA_SCHED_LIFO,
    WEFT_ASTRA_SCHED_FIFO,
    WEFT_ASTRA_SCHED_EXPLICIT,
} weft_astra_sched_t;

typedef enum {
    WEFT_ASTRA_OPT_BASELINE,
    WEFT_ASTRA_OPT_LOCAL_BW_AWARE,
} weft_astra_opt_t;

/** The four operations that carry an implementation list, in ASTRA-sim's key order. */
typedef enum {
    WEFT_ASTRA_OP_ALL_REDUCE,
    WEFT_ASTRA_OP_ALL_GATHER,
    WEFT_ASTRA_OP_REDUCE_SCATTER,
    WEFT_ASTRA_OP_ALL_TO_ALL,
    WEFT_ASTRA_N_OPS
} weft_astra_op_t;

/** One implementation of a dimension: the kind and, for direct, its window (-1: none). */
typedef struct {
    weft_astra_impl_t impl;
    gint window; /* "direct4": 4; -1 when not given */
} weft_astra_dim_impl_t;

/**
 * A system file, read. Each *_given says whether the key was present; absent keys hold
 * ASTRA-sim's defaults (Sys.cc's constructor): endpoint-delay 10 ns, local-reduction-delay
 * 1, active chunks 1, splits 1 (ASTRA-sim leaves it 0 and divides by it), LIFO, baseline.
 */
typedef struct {
    char *path;
    weft_astra_sched_t scheduling_policy;
    weft_astra_opt_t collective_optimization;
    gint64 endpoint_delay_ns;      /* "endpoint-delay", ns per PacketBundle (>= 0) */
    gint64 local_reduction_delay;  /* "local-reduction-delay": LogGP bus only */
    guint active_chunks;           /* "active-chunks-per-dimension" (>= 1) */
    guint dataset_splits;          /* "preferred-dataset-splits" (>= 1) */
    double local_mem_bw_GBps;      /* "local-mem-bw", GB/s of 1e9 bytes (> 0 when given) */
    gboolean local_mem_bw_given;
    double peak_perf_TFLOPs;       /* "peak-perf", TFLOP/s of 1e12 */
    gboolean peak_perf_given;
    gboolean roofline_enabled;     /* "roofline-enabled" != 0 */
    gboolean trace_enabled;        /* "trace-enabled" != 0 */
    gboolean replay_only;          /* "replay-only" != 0 */
    gboolean track_local_mem;      /* "track-local-mem" != 0 */
    char *local_mem_trace_filename; /* "local-mem-trace-filename" (NULL: absent) */
    gboolean model_shared_bus;     /* "model-shared-bus" == 1 */
    double loggp[4];               /* "L", "o", "g", "G" (LogGP bus; model-shared-bus only) */
    gint64 boost_mode;             /* "boost-mode" (not read by ASTRA-sim) */
    gboolean boost_mode_given;
    /* per operation: the implementation of each dimension (n_dims[op] entries; 0: absent) */
    guint n_dims[WEFT_ASTRA_N_OPS];
    weft_astra_dim_impl_t *impl[WEFT_ASTRA_N_OPS];
    /* "*-implementation-custom": the one Chakra ET prefix of each operation (NULL: none) */
    char *custom[WEFT_ASTRA_N_OPS];
    /* the plan of each custom ET, once loaded (weft_workload_astra_custom_plans(), which
     * reads the ET: coll/ cannot); owned; NULL: not loaded, and the operation is refused */
    weft_coll_plan_t *custom_plan[WEFT_ASTRA_N_OPS];
    char *per_node_custom; /* "per-node-custom-implementation" (NULL: none) */
} weft_astra_system_t;

/**
 * weft_astra_system_load:
 * @path: an ASTRA-sim system JSON file.
 * @warnings: (nullable) (out) (transfer full): a GPtrArray of strings, one per key weft
 *   does not know or does not honor ("FILE: key "K": why"); NULL when not wanted.
 * @error: WEFT_ASTRA_SYSTEM_ERROR_FILE for an unreadable file, bad JSON or a top level
 *   that is not an object; WEFT_ASTRA_SYSTEM_ERROR_VALUE for a value of the wrong type,
 *   out of range or not a known name, naming the file, the key and the value.
 *
 * Reads every key ASTRA-sim reads (see the essay) into the typed struct. Integer keys
 * accept JSON integers only; numbers accept integers or floats; the *-implementation
 * keys a list of names (weft_astra_impl_enum, "directN"/"oneDirectN" with a window).
 * Returns: (transfer full): the system, or NULL on error. Time complexity: O(file size).
 */
weft_astra_system_t *weft_astra_system_load(const char *path, GPtrArray **warnings,
                                            GError **error);

/** weft_astra_system_free: NULL is a no-op. */
void weft_astra_system_free(weft_astra_system_t *sys);

/** weft_astra_op_of: the ASTRA-sim operation of @op; FALSE for operations without a list. */
gboolean weft_astra_op_of(weft_coll_op_t op, weft_astra_op_t *aop);

/** weft_astra_op_key: (transfer none): the key stem of @aop in a system file ("all-reduce"). */
const char *weft_astra_op_key(weft_astra_op_t aop);

/**
 * weft_astra_system_plan:
 * @sys: a system.
 * @op: a collective operation.
 * @n_members: communicator size (>= 1), ASTRA-sim's NPU count of the dimension.
 * @size_bytes: S, as in doc/collectives.md (ASTRA-sim's comm_size).
 * @algo: (out): weft's algorithm for the implementation of dimension 0.
 * @channels: (out): the concurrent chunks, min(A, K).
 * @plan_bytes: (out): the S of one wave's plan: c x channels.
 * @exec: (inout): costs to charge; base_ps, step_intra_ps, step_inter_ps, hbm_Bps,
 *   reduce_trunc_ns, net_trunc_ns and waves are set (see the essay), the rest kept.
 * @error: WEFT_COLL_ERROR_UNSUPPORTED when @sys gives @op no implementation, a custom one,
 *   or an implementation weft cannot run for @op.
 *
 * Returns: FALSE (with @error) when the system does not decide @op; the caller then
 * refuses the collective rather than guessing. O(1).
 */
gboolean weft_astra_system_plan(const weft_astra_system_t *sys, weft_coll_op_t op,
                                guint n_members, guint64 size_bytes, weft_coll_algo_t *algo,
                                guint *channels, guint64 *plan_bytes, weft_coll_exec_t *exec,
                                GError **error);

/**
 * weft_astra_system_phases:
 * @sys: a system.
 * @op: a collective operation.
 * @n_members: communicator size.
 * @dims: (array length=n_dims) (nullable): the network's NPUs per dimension
 *   (weft_topo_astra_dims()); NULL: not an ASTRA-sim network.
 * @n_dims: entries of @dims.
 * @block: (out): the NPU count of the first dimension with more than one NPU.
 *
 * Whether weft runs @op dimension by dimension as ASTRA-sim does (see the essay): an
 * all-reduce under collective-optimization localBWAware over all the NPUs of a network
 * with exactly two dimensions of more than one NPU (the world, in rank order), each with a
 * ring (or oneRing) implementation: reduce-scatter in each block of @block consecutive
 * members, all-reduce across the blocks, all-gather in each block, which is weft's
 * hierarchical all-reduce over blocks of @block (weft_coll_layout_new_blocks()). Other
 * cases return FALSE and run dimension 0's implementation over the whole communicator
 * (warned at load). O(n_dims).
 */
gboolean weft_astra_system_phases(const weft_astra_system_t *sys, weft_coll_op_t op,
                                  guint n_members, const guint *dims, guint n_dims,
                                  guint *block);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_astra_system_t, weft_astra_system_free)

G_END_DECLS

#endif /* WEFT_COLL_ASTRA_SYSTEM_H */
