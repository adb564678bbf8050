/* SPDX-License-Identifier: MIT */
/*
 * Replay: executing a workload on a cluster.
 *
 * Each rank runs on one GPU: the placement in the options, rank i on GPU i by
 * default. A rank has three streams that run concurrently: the GPU compute stream (COMP and MEM
 * nodes), the GPU communication stream (COMM_COLL nodes, one collective at a time, in issue order,
 * as NCCL runs them on one stream) and the host CPU (nodes marked is_cpu_op). A node becomes ready
 * when all its predecessors have finished; ready nodes queue on their stream in the order they
 * became ready (ties by node index), which makes issue order deterministic.
 *
 * - COMP / MEM nodes occupy their stream for duration_micros.
 * - COMM_COLL: the k-th collective a rank issues in communicator c is matched
 *   with the k-th of every other member of c (per-communicator sequence
 *   numbers, as NCCL requires). When the last member reaches it, its plan runs
 *   on the network; every member's node finishes when the plan finishes.
 * - SEND / RECV do not occupy the collective stream (NCCL groups point-to-point
 *   calls). Sends are eager, as ASTRA-sim models them: the transfer starts when
 *   the send is issued and the send finishes when its last byte arrives. A
 *   receive finishes once it is issued and its message has arrived. Sends and
 *   receives match by (src, dst, tag) in issue order; a matched pair must agree
 *   on comm_size (NCCL requires equal counts), else the run fails with
 *   WEFT_REPLAY_ERROR_MISMATCH naming both nodes and both sizes.
 *
 * Accounting per rank, over [0, finish]: compute = time the compute stream is
 * busy; exposed communication = time communication is in progress and compute
 * is not; idle = the rest. compute + exposed + idle = finish, exactly.
 * Overlapped communication = time communication is in progress while compute
 * is busy (it is part of compute, hidden behind it). The same figures are split
 * by the nodes' layer and phase and by parallelism kind (weft_replay_layer_t,
 * weft_replay_result_t.layers): compute to the node computing, communication to
 * the oldest in progress, so that the split adds up to them.
 *
 * If the event queue empties with nodes unfinished, the replay fails with a
 * deadlock report naming, per blocked rank, the node it waits on and for what
 * (the members of a collective that never arrived, the send a receive waits for).
 */
#ifndef WEFT_REPLAY_REPLAY_H
#define WEFT_REPLAY_REPLAY_H

#include <glib.h>

#include "coll/planner.h"
#include "coll/tuning.h"
#include "net/net.h"
#include "fault/step.h"
#include "workload/workload.h"

G_BEGIN_DECLS

#define WEFT_REPLAY_ERROR (weft_replay_error_quark())
GQuark weft_replay_error_quark(void);

typedef enum {
    WEFT_REPLAY_ERROR_DEADLOCK, /* nodes left when nothing can happen any more */
    WEFT_REPLAY_ERROR_NETWORK,  /* a transfer could not be routed */
    WEFT_REPLAY_ERROR_MISMATCH, /* members of one collective disagree on operation or size, or
                                   a SEND and the RECV it matches disagree on size */
    WEFT_REPLAY_ERROR_OVERFLOW, /* simulated time beyond the ~106 days int64 picoseconds hold */
    WEFT_REPLAY_ERROR_STRANDED, /* a link fault left a transfer with no path (fault/step.h) */
    WEFT_REPLAY_ERROR_FAILED,   /* a GPU or node failed during the step (fault/step.h) */
    WEFT_REPLAY_ERROR_DETAIL_CONFLICT, /* collective_detail = auto: a collective run as one
                                          timed event was not alone; rerun (see options) */
} weft_replay_error_t;

/** Per-rank results, in picoseconds. */
typedef struct {
    weft_time_t finish_ps;
    weft_time_t compute_ps;
    weft_time_t exposed_comm_ps;
    weft_time_t idle_ps;
    weft_time_t overlapped_comm_ps; /* communication in progress while compute is busy (part of
                                       compute_ps) */
    guint64 nodes_done;
    /* memory (workload/memory.h), when the workload carries it (weft_replay_result_t.
     * mem_known): the highest live bytes (resident + what started nodes allocated - what
     * finished ones freed) over the step, the simulated time it was first reached, and the
     * bytes per category (weft_mem_cat_t) at that instant; all 0 when unknown */
    guint64 mem_peak_bytes;
    weft_time_t mem_peak_ps;
    guint64 mem_at_peak[WEFT_MEM_N_CATS];
} weft_rank_result_t;

/**
 * Parallelism kinds of communication, for the per-layer accounting: a collective's is
 * its communicator's (weft_replay_par_kind_of_comm()); a SEND or RECV is pipeline
 * parallel (pp), or context parallel (cp) when its name starts with "cp_" (weft gen's
 * ring-attention exchanges).
 */
typedef enum {
    WEFT_PAR_TP,
    WEFT_PAR_DP,
    WEFT_PAR_PP,
    WEFT_PAR_EP,
    WEFT_PAR_CP,
    WEFT_PAR_OTHER, /* the world, and communicators whose name says nothing of these */
    WEFT_PAR_N
} weft_par_kind_t;

/** weft_par_kind_name: "tp", "dp", "pp", "ep", "cp", "other"; NULL out of range. O(1). */
const char *weft_par_kind_name(weft_par_kind_t kind);

/**
 * weft_replay_par_kind_of_comm: the parallelism kind a communicator's name says.
 * @name: (nullable): the name: its part before the first '.' (case-insensitive) "tp", "tpx"
 *   or "etp" is tp; "dp", "dpx", "edp" or "dp_ep" dp (expert data parallel is data
 *   parallel); "pp" pp; "ep" ep; "cp" cp (weft gen's and the text reader's groups,
 *   "tp.0"); else a name containing "tensor", "pipeline", "expert", "context" or "data"
 *   (case-insensitive, in this order) is of that kind (Megatron-LM's process-group
 *   descriptions); else other.
 * Returns: the kind. O(length of @name).
 */
weft_par_kind_t weft_replay_par_kind_of_comm(const char *name);

/**
 * The time of one (layer, phase) of a replay (doc/replay.md, "Where the time goes, per
 * layer"), summed over the ranks, in picoseconds. On each rank, every instant of
 * [0, finish] that is compute goes to the layer and phase of the node running on the
 * compute stream (else on the CPU stream); every instant with communication in progress
 * goes to the layer and phase of the communication in progress that started first (a
 * collective from its issue, a receive from its posting, a send until its last byte
 * arrives), as exposed when no compute runs then and as overlapped when compute does, in
 * that communication's parallelism kind. So over the rows, for every rank, compute sums
 * to weft_rank_result_t.compute_ps, exposed to exposed_comm_ps and overlapped to
 * overlapped_comm_ps, exactly.
 */
typedef struct {
    guint16 layer; /* index into the workload's layers (0: "other") */
    guint8 phase;  /* weft_phase_t */
    guint n_ranks; /* ranks that spent time in it (compute or communication) */
    weft_time_t compute_ps;
    weft_time_t exposed_ps[WEFT_PAR_N];
    weft_time_t overlapped_ps[WEFT_PAR_N];
    weft_time_t max_rank_ps; /* the largest compute + exposed of one rank */
    /* its collective instances (of its node on the communicator's first member), once
     * each, not per member: how many, their time from the last member's issue to the end
     * (as collectives.csv's time_us), and the sum of their bus bytes, nccl-tests' size
     * times its busbw factor (weft_coll_tuning_busbw_factor()), so that busbw over them is
     * busbw_bytes / coll_time (the time-weighted mean busbw); sends and receives are not
     * collectives and are left out */
    guint64 collectives;
    weft_time_t coll_time_ps;
    double busbw_bytes;
} weft_replay_layer_t;

/** Results of one replay. */
typedef struct {
    guint n_ranks;
    weft_rank_result_t *ranks; /* n_ranks */
    weft_time_t step_ps;       /* max over ranks of finish */
    guint64 events;            /* events the simulation ran */
    guint64 timed_collectives; /* collectives run as one timed event (collective_detail = auto) */
    guint64 coarse_collectives; /* collectives run as one aggregate flow (collective_detail = coarse) */
    guint64 collectives;       /* collective instances run */
    guint64 p2p_transfers;     /* send/recv pairs run */
    gboolean mem_known;        /* the workload carries memory (weft_workload_t.resident) */
    /* the in-step faults applied before the step ended, as
     * weft_fault_run_applied() words them (char *, owned); empty without faults. */
    GPtrArray *faults_applied;
    /* weft_replay_layer_t of every (layer, phase) some rank spent time in or that had
     * collectives, ordered by
     * layer id, then phase; a workload without layers or phases has one row (other,
     * other) */
    GArray *layers;
} weft_replay_result_t;

/** Where a node ran, for observers. */
typedef enum {
    WEFT_REPLAY_STREAM_COMPUTE, /* GPU compute stream: COMP, MEM_LOAD, MEM_STORE */
    WEFT_REPLAY_STREAM_COMM,    /* GPU communication stream: COMM_COLL */
    WEFT_REPLAY_STREAM_CPU,     /* host: is_cpu_op nodes */
    WEFT_REPLAY_STREAM_P2P,     /* COMM_SEND / COMM_RECV (no stream) */
    WEFT_REPLAY_STREAM_NONE,    /* METADATA and other zero-time nodes */
    WEFT_REPLAY_N_STREAMS
} weft_replay_stream_t;

/** One finished collective instance, for observers. */
typedef struct {
    guint comm; /* index into the workload's communicators */
    guint seq;  /* 0-based sequence number within the communicator */
    const weft_coll_plan_t
        *plan; /* what ran (operation, size, algorithm, ...); valid during the call */
    weft_time_t first_arrival_ps; /* the first member issued it */
    weft_time_t start_ps;         /* the last member issued it: the plan started */
    weft_time_t end_ps;           /* the plan finished */
    guint64 moved_bytes;          /* the sizes of the plan's transfers, summed (over its waves) */
    guint64 size_bytes;           /* the collective's S as the trace gives it (the plan may be
                                     one of several dataset splits: plan->size_bytes is then
                                     smaller) */
} weft_replay_coll_event_t;

/**
 * Observers of a replay (reports, timelines). Any callback may be NULL. They
 * are called from the event loop in simulated-time order and must not change
 * the run; nothing in the model depends on them.
 */
typedef struct {
    void *data;
    /* node @node of @rank ran on @stream over [@start_ps, @end_ps] (collectives: from the
     * rank's issue to the collective's end; receives: from issue to arrival) */
    void (*node)(void *data, guint rank, guint node, weft_replay_stream_t stream,
                 weft_time_t start_ps, weft_time_t end_ps);
    /* a collective instance finished */
    void (*collective)(void *data, const weft_replay_coll_event_t *ev);
} weft_replay_observer_t;

/**
 * How collectives are executed (scenario key replay.collective_detail).
 * TRANSFERS: every transfer of every plan is simulated. AUTO: a collective whose
 * links provably carry nothing else while it runs (the network's guard, net.h)
 * runs as one timed event of its plan's isolated duration, measured once per
 * shape (see replay.c, "collectives run as one timed event"): the same times to
 * the picosecond, and the same link statistics; faults force TRANSFERS.
 */
typedef enum {
    WEFT_REPLAY_DETAIL_TRANSFERS = 0,
    WEFT_REPLAY_DETAIL_AUTO,
    /* AUTO, and under flow a ring all-reduce, reduce-scatter or all-gather of at least
     * WEFT_REPLAY_COARSE_MIN_XFERS transfers that cannot be timed exactly (an ECMP route,
     * or links it shares) runs as one aggregate flow (replay.c, "coarse collectives"):
     * an approximation, with the error bound of doc/replay.md */
    WEFT_REPLAY_DETAIL_COARSE,
} weft_replay_detail_t;

/**
 * Which collectives of a rank run one after another (scenario key collectives.streams).
 * RANK (the default, 0): one stream for all of a rank's collectives, in the order they
 * became ready. COMMUNICATOR: one in-order stream per communicator, as PyTorch runs them:
 * ProcessGroupNCCL gives each process group its own NCCL stream per device
 * (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp, ncclStreams_, PyTorch 2.4), and
 * Megatron-LM's tensor-, data- and pipeline-parallel groups are separate process groups, so
 * a data-parallel reduce-scatter runs beside the tensor-parallel collectives that follow it.
 * COMMUNICATOR is the more faithful; it is not the default because collectives that run
 * at once share ports, so they cannot run as one timed event (collectives.detail = auto)
 * and a large step runs transfer by transfer: GPT-3 175B on 2,048 H100 takes over 16 min
 * under analytical instead of 90 s (issue 16; doc/replay.md). It moves that step from
 * 8.31 s to 8.07 s (measured 9.02 s).
 */
typedef enum {
    WEFT_REPLAY_STREAMS_RANK = 0,
    WEFT_REPLAY_STREAMS_COMMUNICATOR,
} weft_replay_streams_t;

/** The replay's keys (weft_replay_keys[]: collectives.detail, collectives.streams,
 * compute.duration_scale), resolved. */
typedef struct {
    weft_replay_detail_t detail;   /* asked for; faults and link series may force TRANSFERS */
    weft_replay_streams_t streams; /* which collectives of a rank run in order */
    double duration_scale;         /* multiplies every trace duration; > 0 */
    gboolean sm_contention;        /* compute.sm_contention (weft_replay_options_t) */
} weft_replay_config_t;

extern const weft_key_t weft_replay_keys[];
extern const guint weft_replay_n_keys;
/* transfers, auto, coarse (in weft_replay_detail_t's order) */
extern const weft_enum_t weft_replay_detail_enum;

/** WEFT_REPLAY_COARSE_MIN_XFERS: the smallest plan WEFT_REPLAY_DETAIL_COARSE aggregates. */
#define WEFT_REPLAY_COARSE_MIN_XFERS 4096u

/** Options of a replay; zero-initialize, then set what differs. */
typedef struct {
    guint coll_chunks;     /* pipeline chunks per collective; 0 means 1 */
    const guint *rank_gpu; /* rank -> GPU number (topo/placement.h); NULL: rank r on GPU r */
    double compute_scale;  /* multiplies COMP/MEM/CPU durations (0 means 1): 0.5 = twice as fast */
    /* compute.sm_contention: a collective's NCCL kernel holds one SM per channel on every
     * member while it runs, and the compute stream's node beside it runs at (SMs - held) /
     * SMs of its rate (the rank's GPU model's sm_count; none without one, nor with in-step
     * faults armed). FALSE (0): compute and collectives never slow each other. */
    gboolean sm_contention;
    const weft_replay_observer_t *observer; /* (nullable) */
    /* (nullable) NCCL-style collectives: when set, every collective goes through
     * weft_coll_tune() (forced choices from here; its chunks, 0 = NCCL's; coll_chunks
     * is ignored)
     * and weft_coll_plan_build() over its communicator's layout on the cluster, with the
     * executor's costs from the tuning model; plans are cached per (communicator,
     * operation, size) (coll/planner.h). NULL: the plain single-ring / direct plans of
     * weft_coll_plan_new() with coll_chunks and no protocol costs. */
    const weft_coll_tuning_t *coll_tuning;
    /* The plain model's algorithm per operation (used only when coll_tuning is NULL):
     * WEFT_COLL_ALGO_AUTO (0, the zero-initialized default) = ring, direct for all-to-all,
     * gather and scatter; ring, direct, tree and halving_doubling run on the flat plans of
     * weft_coll_plan_new(); an algorithm the operation lacks fails the collective with
     * WEFT_COLL_ERROR_UNSUPPORTED. */
    weft_coll_algo_t plain_algo[WEFT_COLL_N_OPS];
    weft_replay_detail_t collective_detail;
    weft_replay_streams_t comm_streams; /* RANK (0): one stream per rank; or per communicator */
    /* (nullable) AUTO only: signatures (GBytes, g_bytes_hash/equal, owning its keys) of
     * collective shapes that must run at transfer level; a run that finds one of its timed
     * collectives not alone adds its signature here and fails with
     * WEFT_REPLAY_ERROR_DETAIL_CONFLICT, and the caller reruns (weft_scenario_run_full()
     * does, until no conflict is left). */
    GHashTable *detail_banned;
    /* (nullable) faults inside the step (fault/step.h), armed on @sim at time 0:
     * link, NIC and switch faults change the network; stragglers stretch the
     * compute-stream nodes of their GPU (not CPU-stream ones: the host is not
     * slowed); a GPU or node failure stops the step. Faults due after the last
     * rank has finished are not applied. Faults of an instant apply before
     * anything else at it, 0 included: with faults, the nodes without
     * predecessors are released from an event at 0 queued after the faults'
     * (one more event in weft_replay_result_t.events). */
    const weft_fault_plan_t *faults;
    /* (nullable) the planner to plan every collective with, instead of one the run makes
     * from coll_tuning, plain_algo and coll_chunks (which are then ignored): not owned, over
     * @net's cluster, alive until the run returns. The run registers the workload's
     * communicators in it (one with the members of a communicator it holds is that one),
     * so a caller that plans a collective before the run gets the very plan the run
     * executes, built once (weft coll reads its choices that way). */
    weft_coll_planner_t *planner;
    /* (nullable) ASTRA-sim's system configuration for the plain model (coll_tuning NULL):
     * weft_coll_planner_config_t.astra; not owned, alive until the run returns. */
    const weft_astra_system_t *astra;
    /* (nullable) per rank, the simulated time (ps, >= the run's start) at which its nodes
     * without predecessors are released, by one event per rank that starts later, in rank
     * order; until then the rank is idle (idle_ps). Several jobs on one fabric
     * (scenario/jobs.h) start their ranks so. NULL: every rank at the run's start. */
    const weft_time_t *rank_start_ps;
} weft_replay_options_t;

/**
 * weft_replay_run:
 * @sim: an idle simulation, normally at time 0. A run may start later (weft coll
 *   replays size after size on one network): it starts at the simulation's time and
 *   every time it reports is the simulation's (step_ps, finish_ps, the observers'), so it
 *   lasted step_ps minus its start, and idle_ps counts from time 0.
 * @net: the network over the cluster (its topology gives GPUs).
 * @wl: a workload that passed weft_workload_check() for this cluster.
 * @opts: (nullable): options.
 * @error: WEFT_REPLAY_ERROR_DEADLOCK with the report, _MISMATCH (a collective's
 *   members or a matched SEND/RECV pair disagree: both nodes named with file,
 *   rank, id, name and the values), or _NETWORK; with faults,
 *   _FAILED (what failed, where and when, and how far each rank got) or
 *   _STRANDED (the transfer a link fault left with no path, or the collective
 *   that could not start because links a fault took down left two of its
 *   members without a path, and the ranks left waiting).
 *
 * Runs one step of @wl to completion.
 * Returns: (transfer full): the results (free with weft_replay_result_free()),
 * or NULL on error.
 */
weft_replay_result_t *weft_replay_run(weft_sim_t *sim, weft_net_t *net, const weft_workload_t *wl,
                                      const weft_replay_options_t *opts, GError **error);

/** weft_replay_result_free: NULL is a no-op. */
void weft_replay_result_free(weft_replay_result_t *res);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_replay_result_t, weft_replay_result_free)

G_END_DECLS

#endif /* WEFT_REPLAY_REPLAY_H */
