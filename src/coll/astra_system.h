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
 * at once. Scheduling (Sys.cc schedule(), proceed_to_next_vnet_baseline(), SchedulerUnit;
 * QueueLevelHandler.cc): each dimension has num-queues-per-dim queues (1, the default of
 * ASTRA-sim's analytical frontends, CmdLineParser.cc; a dimension visited twice then
 * gives its one queue to both visits, the "half the queues" rule splitting nothing), and
 * a queue runs ceil(A / queues) = A streams at once; the others wait in arrival order
 * (one collective's streams share one priority, so insert_stream() puts a newcomer behind
 * every waiting one whatever LIFO or FIFO says; the policies order different
 * collectives). A stream whose phase ends joins its next queue, the queue it left
 * admits its next waiting stream, then the new queue admits while it has room.
 *
 * weft runs every collective over all the NPUs of an ASTRA-sim network with at least two
 * dimensions of more than one NPU phase by phase (weft_astra_system_plan_phases()): the
 * phases of one stream (weft_astra_system_stream_phases()), each the dimension's plan over
 * every group of NPUs that differ only in that dimension's coordinate (rank = c_0 + n_0
 * (c_1 + n_1 (c_2 ...)), ASTRA-sim's numbering), each opened on every NPU by an
 * endpoint-delay local step (the phase's StreamInit PacketBundle), so that
 *     T_phase = d + steps (net(m) + d) + reductions      (ring; direct as above)
 * as on one dimension. The K streams are the plan's channels; the queue order is
 * replayed over each phase's time alone (weft_astra_system_schedule()) and written into
 * the plan as dependencies: stream s's phase p starts on an NPU once its phase p - 1 and
 * the stream-phase that held the queue slot before it have ended there. Exact where every
 * group of a dimension has the same links (a network YAML) and the analytical model runs
 * it (ASTRA-sim's congestion-unaware one: streams do not share links, so each transfer
 * has sharing 1, within the port caveat below); under the flow model the concurrent
 * streams share links, as under ASTRA-sim's congestion-aware backend, while the queue
 * order stays the congestion-unaware one. Phases that end at the same instant are
 * handled in the order they started.
 * halvingDoubling runs as HalvingDoubling.cc does (weft_astra_hd_plan(): one message per
 * step to i ^ o) where the NPU count is a power of two, here and on one dimension.
 * Not modelled: two collectives holding the queues at once (weft runs each collective's
 * plan on its own: the scheduling policy's order between collectives). A collective's
 * involved_dim (workload.h, read for the world as Workload.cc does) leaves dimensions out.
 * A communicator group of fewer NPUs than the network runs, as in ASTRA-sim
 * (CommunicatorGroup.cc get_collective_plan()), as one dimension over its NPUs with Ring
 * when the file lists more than one implementation (its one implementation otherwise),
 * chunks raised to the network's NPU count; on a cluster that is not an ASTRA-sim
 * network dimension 0's implementation runs over the communicator (warned at load).
 * Caveat: weft's analytical model serves an NPU's endpoint port first come first served
 * (net.h), so transfers that leave one NPU through one port at once (a direct phase on a
 * Switch dimension, or active-chunks-per-dimension > 1 streams on one dimension) take
 * turns there, where ASTRA-sim's congestion-unaware backend lets them overlap: weft's
 * time is then longer (direct all-reduce of 1 MiB on a 4-NPU Switch: 47.052 us against
 * 27.520 us). Ring and halvingDoubling phases send one message per NPU at a time and are
 * exact.
 *
 * On one dimension weft runs this as an ordinary plan (coll.h) with: algorithm from the
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

/**
 * weft_astra_system_check_network:
 * @sys: a system.
 * @dims: (nullable): the dimensions' NPU counts of the ASTRA-sim network the system runs on
 *   (weft_topo_astra_dims()); NULL: a weft cluster.
 * @n_dims: entries of @dims.
 * @warnings: (out) (transfer full): the lines for what runs otherwise than the file says:
 *   a list longer than the network's dimensions (the first n_dims are used, as Sys.cc
 *   indexes them), or a multi-dimension list on a weft cluster (dimension 0's
 *   implementation over each communicator).
 * @error: WEFT_ASTRA_SYSTEM_ERROR_VALUE when a list is shorter than the network's
 *   dimensions (ASTRA-sim would index past it, Sys.cc generate_collective()), naming the
 *   file, the key and both counts.
 * Returns: FALSE on error. O(operations).
 */
gboolean weft_astra_system_check_network(const weft_astra_system_t *sys, const guint *dims,
                                         guint n_dims, GPtrArray **warnings, GError **error);

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
 *
 * Whether weft runs @op dimension by dimension as ASTRA-sim does (see the essay,
 * weft_astra_system_plan_phases()): @op has a native implementation in @sys, the
 * communicator is all the NPUs of the network (taken as the world in rank order), and at
 * least two dimensions have more than one NPU. Otherwise the caller runs dimension 0's
 * implementation over the whole communicator (weft_astra_system_plan(), warned at load).
 * O(n_dims).
 */
gboolean weft_astra_system_phases(const weft_astra_system_t *sys, weft_coll_op_t op,
                                  guint n_members, const guint *dims, guint n_dims);

/** One phase of an ASTRA-sim stream (weft_astra_system_stream_phases()). */
typedef struct {
    weft_coll_op_t op;     /* the phase's operation: reduce-scatter, all-reduce, all-gather
                              or all-to-all */
    guint dim;             /* the network dimension it runs on */
    guint n_d;             /* that dimension's NPU count (> 1) */
    weft_coll_algo_t algo; /* weft's algorithm for the dimension's implementation */
    guint64 bytes;         /* the S of the phase's plan (coll.h): the stream's data size when
                              the phase starts (all-gather: each NPU's block) */
    guint queue;           /* ASTRA-sim's queue: the dimension's one queue
                              (num-queues-per-dim 1, its analytical frontends' default) */
} weft_astra_phase_t;

/**
 * weft_astra_system_stream_phases:
 * @sys: a system.
 * @op: all-reduce, all-gather, reduce-scatter or all-to-all.
 * @chunk_bytes: the stream's size c (Sys.cc determine_chunk_size()), bytes.
 * @dims: (array length=n_dims): NPUs per dimension.
 * @n_dims: entries of @dims.
 * @involved_dim: the collective's involved_dim (workload.h: (entries << 8) | mask; 0:
 *   absent, every dimension).
 * @error: WEFT_COLL_ERROR_UNSUPPORTED when @op has no native implementation in @sys, its
 *   implementation list is shorter than @n_dims, or @involved_dim lists fewer entries
 *   than @n_dims (ASTRA-sim would read past its list).
 *
 * The phases of one stream in the order it runs them (Sys.cc generate_collective(), see
 * the essay): dimensions of one NPU or not involved skipped, the next phase's size the
 * previous one's final data size (Ring.cc: reduce-scatter c / n_d truncated, all-gather
 * c x n_d).
 * Returns: (transfer full): a GArray of weft_astra_phase_t (empty when no dimension has
 * more than one NPU), or NULL on error. O(n_dims).
 */
GArray *weft_astra_system_stream_phases(const weft_astra_system_t *sys, weft_coll_op_t op,
                                        guint64 chunk_bytes, const guint *dims, guint n_dims,
                                        guint16 involved_dim, GError **error);

/**
 * weft_astra_system_schedule:
 * @n_streams: K, the streams of one collective.
 * @n_phases: P, the phases of each stream.
 * @queue: (array length=n_phases): each phase's queue (< @n_queues).
 * @n_queues: queue count.
 * @dur_ps: (array length=n_phases): each phase's duration run alone, ps.
 * @active: streams a queue runs at once (active-chunks-per-dimension, >= 1).
 * @order: (out caller-allocates) (array length=n_streams * n_phases): the stream-phases
 *   (s x P + p) in the order the queues admit them.
 * @slot_pred: (out caller-allocates): per stream-phase, the stream-phase whose end freed
 *   the queue slot it took, or -1 when it found one free.
 * @start_ps: (out caller-allocates) (nullable): per stream-phase, when it starts.
 *
 * ASTRA-sim's scheduling of one collective's streams over its queues (Sys.cc
 * generate_collective(), schedule(), proceed_to_next_vnet_baseline(), SchedulerUnit
 * notify_stream_added() / notify_stream_removed(); 518bd513): streams enter their first
 * queue in creation order; a queue runs at most @active streams, the others wait in
 * arrival order (one collective's streams share one priority, so LIFO and FIFO order
 * them alike: insert_stream() puts a stream behind the waiting ones of equal priority);
 * when a phase ends the stream joins its next queue's waiting line, the queue it left
 * admits its next stream, then the new queue admits while it has room. Phases that end at
 * the same instant are handled in the order they started. Every stream-phase takes
 * @dur_ps of its phase (a congestion-unaware network: streams do not slow each other).
 * Time complexity: O(K P (K + P)).
 */
void weft_astra_system_schedule(guint n_streams, guint n_phases, const guint *queue, guint n_queues,
                                const weft_time_t *dur_ps, guint active, guint *order,
                                gint *slot_pred, weft_time_t *start_ps);

/**
 * weft_astra_system_plan_phases:
 * @sys: a system.
 * @fabric: the cluster's fabric (an ASTRA-sim network), whose routes time each phase.
 * @member_vertex: (array length=n_members): the NPUs' cluster vertices in rank order.
 * @op: the operation (weft_astra_system_phases() holds).
 * @n_members: communicator size, all the NPUs of the network.
 * @size_bytes: S, as in doc/collectives.md (ASTRA-sim's comm_size).
 * @dims: (array length=n_dims): NPUs per dimension; rank = c_0 + n_0 (c_1 + n_1 (c_2 ...)).
 * @n_dims: entries of @dims.
 * @involved_dim: the collective's involved_dim, as weft_astra_system_stream_phases()
 *   (a plan with no transfer when no involved dimension has more than one NPU).
 * @error: WEFT_COLL_ERROR_UNSUPPORTED as weft_astra_system_plan() and
 *   weft_astra_system_stream_phases(), or when a dimension's implementation cannot run its
 *   phase; WEFT_COLL_ERROR_VALUE for a plan of 2^31 transfers or more; WEFT_NET_ERROR_*
 *   when a group's NPUs cannot reach each other.
 *
 * One plan for the K = preferred-dataset-splits streams of @op (see the essay): stream s
 * is channel s; its phase p is the phase's plan (weft_coll_plan_build() of the
 * dimension's algorithm over one group, flat, explicit) copied onto every group of the
 * dimension, opened on every NPU by a local delay of endpoint-delay ps
 * (WEFT_COLL_XFER_DELAY) that waits for every transfer into that NPU of the stream's
 * phase p - 1 and of the stream-phase that held the queue slot before it
 * (weft_astra_system_schedule() over each phase's time alone on group 0). Transfers keep
 * their phase plan's offsets (each phase's own data space). exec: base_ps 0, step
 * latencies endpoint-delay, reductions and truncation as weft_astra_system_plan(), one
 * wave. Exact against ASTRA-sim's congestion-unaware model where every group of a
 * dimension has the same links (an ASTRA-sim network YAML) and no other collective holds
 * the queues at the same time.
 * Returns: (transfer full): the plan, or NULL. Time complexity: O(K x transfers of the
 * phases over every group + K P (K + P)).
 */
weft_coll_plan_t *weft_astra_system_plan_phases(const weft_astra_system_t *sys,
                                                weft_fabric_t *fabric, const gint *member_vertex,
                                                weft_coll_op_t op, guint n_members,
                                                guint64 size_bytes, const guint *dims, guint n_dims,
                                                guint16 involved_dim, GError **error);

/**
 * weft_astra_hd_plan:
 * @op: all-reduce, reduce-scatter or all-gather.
 * @n: NPUs, a power of two >= 2.
 * @size_bytes: S (coll.h: all-gather's is each NPU's block), cut evenly over @channels.
 * @channels: concurrent streams (>= 1), each moving size_bytes / channels.
 * @exec: (nullable): the costs the plan will run with; its hbm_Bps (local-mem-bw, bytes/s)
 *   and reduce_trunc_ns price the reductions, which the plan holds as local delays; NULL
 *   or hbm_Bps 0: reductions are free.
 *
 * ASTRA-sim's halvingDoubling (HalvingDoubling.cc, 518bd513) as a plan: NPU i exchanges
 * with i ^ o, one message per step, each step's send waiting for the previous step's
 * receive: reduce-scatter o = 1, 2, ..., n/2 with messages c/2, c/4, ... (halved,
 * truncating); all-reduce that, then o = n/2, ..., 1 with messages doubling from the last
 * one; all-gather o = n/2, ..., 1 with messages c, 2c, 4c, .... The reduce-scatter's
 * messages 2 .. log2(n) are reduced before they are sent, at their own size: a local delay
 * (WEFT_COLL_XFER_DELAY) of 3 floor(m / local-mem-bw) ns between the receive and the send
 * (insert_packet()'s `toggle` marks log2(n) - 1 packets of a group `processed`); the first
 * message and the last receive carry no reduction, as in ASTRA-sim. weft's own
 * halving_doubling (coll.h) instead moves block by block and lets a block go as soon as it
 * is in, which is not ASTRA-sim's timing. Transfers carry no data-space offsets (all 0).
 * Returns: (transfer full): the plan; NULL (a programming error) for other @op or @n.
 * O(channels x n log n).
 */
weft_coll_plan_t *weft_astra_hd_plan(weft_coll_op_t op, guint n, guint64 size_bytes,
                                     guint channels, const weft_coll_exec_t *exec);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_astra_system_t, weft_astra_system_free)

G_END_DECLS

#endif /* WEFT_COLL_ASTRA_SYSTEM_H */
