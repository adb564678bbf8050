/* SPDX-License-Identifier: MIT */
/*
 * Replay: runs every rank's trace on the cluster through the event queue.
 * Streams, matching of collectives and point-to-point pairs, per-rank time
 * accounting and the deadlock report are described in replay.h.
 */
#define G_LOG_DOMAIN "weft-replay"

#include "replay/replay.h"

#include <math.h>
#include <string.h>

#include "core/units.h"
#include "coll/p2p.h"

/* clang-format off */
G_DEFINE_QUARK(weft-replay-error-quark, weft_replay_error)

/* ---- the replay's keys ----------------------------------------------------------- */

static const char *const detail_names[] = {
    [WEFT_REPLAY_DETAIL_TRANSFERS] = "transfers",
    [WEFT_REPLAY_DETAIL_AUTO] = "auto",
    [WEFT_REPLAY_DETAIL_COARSE] = "coarse",
    NULL,
};
const weft_enum_t weft_replay_detail_enum = {"collective detail", detail_names};
static const char *const streams_names[] = {
    [WEFT_REPLAY_STREAMS_RANK] = "rank",
    [WEFT_REPLAY_STREAMS_COMMUNICATOR] = "communicator",
    NULL,
};
static const weft_enum_t weft_replay_streams_enum = {"collective streams", streams_names};

const weft_key_t weft_replay_keys[] = {
    {"collectives", "detail", WEFT_KEY_ENUM, "auto",
     "auto: a collective whose links provably carry nothing else while it runs takes one event "
     "of its plan's isolated time, measured once per shape (the same times and link "
     "statistics, far fewer events; faults and link time series run every transfer); "
     "transfers: simulate every transfer; coarse: auto, and under flow a large ring collective "
     "that cannot be timed exactly runs as one aggregate flow (approximate: doc/replay.md)",
     .choices = &weft_replay_detail_enum, .field = WEFT_KEY_FIELD(weft_replay_config_t, detail)},
    {"collectives", "streams", WEFT_KEY_ENUM, "rank",
     "rank: all of a rank's collectives one at a time, in the order they became ready; "
     "communicator: each communicator's collectives in order on its own stream, different "
     "communicators' at once (PyTorch: one NCCL stream per process group; more faithful, "
     "but concurrent collectives run transfer by transfer: slow on large steps, doc/replay.md)",
     .choices = &weft_replay_streams_enum,
     .field = WEFT_KEY_FIELD(weft_replay_config_t, streams)},
    {"compute", "duration_scale", WEFT_KEY_NUMBER, "1",
     "multiplies every trace duration (0.5 = compute twice as fast); > 0", .nmin = 0.0,
     .nmax = G_MAXDOUBLE, .nmin_open = TRUE,
     .field = WEFT_KEY_FIELD(weft_replay_config_t, duration_scale)},
    {"compute", "sm_contention", WEFT_KEY_BOOL, "true",
     "a collective's NCCL kernel holds one SM per channel on its GPUs while it runs, and the "
     "compute beside it runs on the other SMs, (SMs - held) / SMs as fast (doc/replay.md); "
     "false: compute and collectives never slow each other",
     .field = WEFT_KEY_FIELD(weft_replay_config_t, sm_contention)},
};
const guint weft_replay_n_keys = G_N_ELEMENTS(weft_replay_keys);
/* clang-format on */

/* A rank's compute and CPU streams (streams[]) and, apart, its communication streams
 * (comm_streams[]: one per communicator it belongs to, or one, weft_replay_streams_t), whose
 * kind is STREAM_COMM. */
enum { STREAM_COMPUTE, STREAM_CPU, N_STREAMS, STREAM_COMM = N_STREAMS };

/*
 * Per-rank state is kept per rank, not per node: a rank's nodes are waiting, queued on a
 * stream, running (on a stream or as a send or receive in flight) or done, and only the
 * running ones (the streams' and the messages', at most a few) and the number done are
 * needed (deadlock_report() rebuilds the rest). What a rank needs per node is how many
 * predecessors a node still waits for, and only nodes with two or more need a count: a
 * node with one is ready when that one finishes. So a rank counts only those (a trace's
 * counter indexes are shared: succ_t), which at scale is the difference between per-node
 * arrays over all ranks, missing the caches on every node, and a few counters per rank.
 */
#define NO_COUNTER G_MAXUINT32

/* A FIFO of node indexes: a ring buffer that doubles when full (no allocation per node). */
typedef struct {
    guint32 *buf;
    guint32 cap, head, len;
} node_fifo_t;

static void
fifo_push(node_fifo_t *q, guint32 node)
{
    if (q->len == q->cap) {
        guint32 cap = MAX(q->cap * 2, 8u);
        guint32 *buf = g_new(guint32, cap);
        for (guint32 i = 0; i < q->len; i++) {
            buf[i] = q->buf[(q->head + i) % q->cap];
        }
        g_free(q->buf);
        q->buf = buf;
        q->cap = cap;
        q->head = 0;
    }
    q->buf[(q->head + q->len) % q->cap] = node;
    q->len++;
}

static guint32
fifo_pop(node_fifo_t *q)
{
    g_assert(q->len > 0);
    guint32 node = q->buf[q->head];
    q->head = q->head + 1 == q->cap ? 0 : q->head + 1;
    q->len--;
    return node;
}

typedef struct replay replay_t;
typedef struct rank_state rank_state_t;

/* Per-layer accounting (weft_replay_layer_t): columns per (layer, phase) slot. */
enum {
    LCOL_COMPUTE,
    LCOL_EXPOSED,
    LCOL_OVERLAPPED = LCOL_EXPOSED + WEFT_PAR_N,
    LCOLS = LCOL_OVERLAPPED + WEFT_PAR_N
};

/* A trace's layers: its nodes' layer ids -> the trace's own dense numbering (so a rank sums
 * only the layers of its pipeline stage). Shared by the ranks of one layer array. */
typedef struct {
    guint16 *slot;     /* per workload layer id: the local layer, or G_MAXUINT16 if unused */
    guint16 *layer_of; /* per local layer: the workload's id */
    guint n_local;
} layer_map_t;

/* A communication in progress on a rank. */
typedef struct {
    guint32 node;
    guint8 kind; /* weft_par_kind_t */
} inflight_t;

/* One in-order stream of a rank: a FIFO of ready nodes and the one running. */
typedef struct {
    rank_state_t *rank;
    guint kind;
    node_fifo_t queue; /* ready node indexes */
    gint running; /* node index, or -1 */
} stream_t;

struct rank_state {
    replay_t *replay;
    guint rank;
    const weft_rank_trace_t *trace;
    gint vertex;             /* the GPU this rank runs on */
    const guint32 *succ_off; /* CSR of successors (shared by ranks of one trace: R->succs) */
    const guint32 *succ;
    const guint32 *counter; /* per node: its index in left, or NO_COUNTER (one predecessor or
                               none); shared like succ */
    guint32 *left;          /* per counted node: predecessors not finished yet */
    /* per node, the rank's side of it (rank_links()): GPU COLL: its communicator's place in
     * the rank's memberships (comm_of[comm_off[rank] + link]); SEND/RECV: the peer minus the
     * rank, as a guint32; else 0. Shared by the ranks of one trace when it is the same for all
     * of them (a pipeline stage's ranks), so the hot paths read a shared array instead of
     * each rank's own comm and peer arrays, which miss the caches at scale. */
    const guint32 *link;
    weft_time_t *start_ps; /* per node, when it started; only with a node observer */
    stream_t streams[N_STREAMS];
    stream_t *comm_streams; /* per membership (comm_of order), or one: comm_stream() */
    guint n_comm_streams;
    guint nodes_done;
    /* SM contention (compute.sm_contention): the GPU's SMs (0: unknown, none modelled), the
     * SMs the rank's NCCL kernels hold now, and the running compute node's end event, its
     * work left at the full rate and when that was last brought up to date */
    guint sm_count;
    guint nccl_sms;
    weft_event_handle_t comp_ev;
    double comp_left_ps;
    weft_time_t comp_mark;
    /* accounting */
    guint compute_busy; /* compute or CPU stream running */
    guint comm_busy;    /* collectives and point-to-point in progress */
    weft_time_t last_change;
    /* per layer and phase (weft_replay_layer_t): the trace's layer -> slot map, the sums
     * (LCOLS per slot, slot = local layer x WEFT_N_PHASES + phase) and the communication in
     * progress, oldest first */
    const layer_map_t *lmap;
    weft_time_t *lacc;
    inflight_t *inflight;
    guint n_inflight, cap_inflight;
    /* memory (workload.h: mem_alloc, mem_free), when the trace carries it: live bytes per
     * category and in all; the peak and its breakdown go to res */
    gint64 mem_live[WEFT_MEM_N_CATS];
    gint64 mem_total;
    weft_rank_result_t res;
};

typedef struct comm_memo comm_memo_t; /* a collective run as one timed event (below) */

/* One collective instance: the seq-th collective of a communicator. */
typedef struct {
    guint64 key; /* comm << 32 | seq */
    guint comm;
    guint seq;
    gboolean live; /* a member has reached it and it has not finished */
    guint n_arrived;
    gint32 *member_node; /* per member: node index, or -1 until it arrives (kept for reuse) */
    weft_coll_run_t *run;
    const weft_coll_plan_t *plan;
    guint64 moved_bytes; /* the plan's transfer sizes, summed over its waves (for observers) */
    guint64 size_bytes;  /* the collective's S as the trace gives it (for observers) */
    weft_time_t first_arrival_ps, start_ps;
    comm_memo_t *timed; /* set when it runs as one timed event */
    guint sms;          /* SMs its kernel holds on every member while it runs (its channels) */
} coll_inst_t;

/*
 * A communicator's collectives in flight. A member issues collective seq + 1 only after its
 * seq-th finished (one collective at a time on its communication stream), and the seq-th
 * finishes for all members at once (on_coll_done()), so at most two instances of one
 * communicator are live: the one finishing and the next, which members reach while the
 * first finishes them. They live in inst[seq % 2], reused, with no lookup.
 */
typedef struct {
    coll_inst_t inst[2];
    gint *vertices;  /* per member, the GPU vertex its rank runs on */
    guint plan_comm; /* its communicator id in R->planner */
    /* The communicator's last few (operation, size)s and what they resolved to, so that a
     * collective's plan and memo are one short scan, not two table lookups (a step repeats
     * a communicator's few collectives many times); plan NULL: empty */
    struct {
        const weft_coll_plan_t *plan;
        guint op;
        guint16 involved; /* ASTRA-sim's involved_dim (workload.h) */
        guint64 bytes;
        comm_memo_t *cm;     /* (collective_detail = auto) its memo, once looked up */
    } recent[8];
    guint recent_next; /* the entry to replace next */
} comm_state_t;

/* One point-to-point message, matched or waiting for its other side. */
typedef struct {
    guint src_rank, dst_rank;
    gint send_node, recv_node; /* -1 while that side has not been issued */
    gboolean arrived;          /* the last byte has arrived at dst */
    guint32 next;              /* the next message waiting on the same key (index + 1), or 0 */
    gboolean released;         /* both sides finished: the slot is free (p2p_release()) */
    weft_coll_run_t *run;      /* the send's NCCL point-to-point plan running, or NULL */
    guint sms;                 /* SMs its NCCL kernels hold on each side while it moves */
} p2p_t;

/* A point-to-point plan: of the pair's GPU vertices (sender, receiver) and the size. */
typedef struct {
    gint v0, v1;
    guint64 bytes;
} p2p_plan_key_t;

struct replay {
    weft_sim_t *sim;
    weft_net_t *net;
    const weft_topo_t *topo; /* the cluster, read only (it may be shared) */
    weft_fabric_t *fabric;   /* the net's: routes, ECMP seed, link state */
    const weft_workload_t *wl;
    const guint *rank_gpu;                  /* placement, or NULL for in order */
    const weft_time_t *rank_start_ps;       /* per rank, when it starts; or NULL: at once */
    double compute_scale;                   /* multiplies compute durations */
    gboolean sm_contention;                 /* NCCL kernels' SMs slow the compute stream */
    weft_replay_streams_t comm_streams;     /* one stream per communicator, or per rank */
    const weft_replay_observer_t *observer; /* or NULL */
    rank_state_t *ranks;
    /* per rank, its communicators and its member index in each, ascending by communicator
     * (CSR: rank r's are comm_of[comm_off[r] .. comm_off[r+1])): memory grows with the
     * members, not with ranks x communicators */
    guint32 *comm_off;
    guint32 (*comm_of)[2];
    guint32 *comm_seq;  /* parallel to comm_of: collectives the rank issued on it so far */
    GHashTable *succs;  /* a trace's deps array -> its successors (succ_t, owned) */
    GHashTable *links;  /* a trace's deps array -> the first rank's link array (owned) */
    GPtrArray *own_links;     /* link arrays of ranks that could not share one (owned) */
    comm_state_t *comm_state; /* per communicator */
    /* every collective's plan (comm_state_t.plan_comm: each communicator's id there); owns
     * the plans */
    weft_coll_planner_t *planner;
    gboolean own_planner; /* made here (else opts->planner) */
    /* p2p_key_t -> p2p_wait_t of the messages waiting for their other side; an entry goes
     * when its last message is matched, so the table holds what is in flight, not the step */
    GHashTable *p2p_waiting;
    GPtrArray *p2p_wait_pool;         /* p2p_wait_t not in use (owned) */
    GArray *p2p;                      /* p2p_t; a slot is reused once both sides finished */
    GArray *p2p_free;                 /* guint32 indexes of free slots of p2p */
    /* p2p_plan_key_t -> weft_coll_plan_t of a send as NCCL runs it (owned both) */
    GHashTable *p2p_plans;
    guint64 p2p_count;                /* messages matched or waiting, over the run */
    GArray *finish_stack;             /* (rank, node) pairs to finish at the current time */
    GError *error;                    /* first runtime error; stops the simulation */
    /* the first timed collective found not alone (WEFT_REPLAY_ERROR_DETAIL_CONFLICT): the
     * run goes on, inexact from then on, to name every shape that meets other traffic in
     * this attempt (opts->detail_banned), and then fails with it (on_detail_conflict()) */
    GError *conflict;
    guint64 collectives;
    weft_fault_run_t *faults; /* the armed in-step faults, or NULL */
    GError *stranded;         /* a collective that links a fault took down left with no path */
    guint ranks_left;         /* ranks with nodes not yet done */
    /* collective_detail = auto: collectives run as one timed event when alone (below) */
    gboolean detail_auto;
    GHashTable *memos;          /* signature (GBytes) -> memo_t (owned) */
    GHashTable *comm_memos;     /* comm_plan_key_t -> comm_memo_t (owned) */
    coll_inst_t **edge_holder;  /* per edge: the timed collective holding it, or NULL */
    GHashTable *detail_banned;  /* opts->detail_banned (not owned) */
    gboolean off_nvlink_banned; /* detail_banned holds BAN_OFF_NVLINK */
    gboolean off_nvlink_added;  /* this attempt added BAN_OFF_NVLINK (on_detail_conflict()) */
    guint64 timed_colls;
    guint64 coarse_colls;
    gboolean coarse; /* collective_detail = coarse under flow */
    guint8 *comm_kind; /* per communicator, its weft_par_kind_t */
    /* per (workload layer, phase): collective instances, their time and bus bytes
     * (weft_replay_layer_t) */
    guint64 *lcoll_n;
    weft_time_t *lcoll_ps;
    double *lcoll_bus;
    GHashTable *lmaps; /* a trace's layer array (or NULL) -> layer_map_t (owned) */
};

typedef struct {
    guint rank;
    guint node;
} rank_node_t;

/* Matching key of point-to-point messages. */
typedef struct {
    guint src, dst;
    gint64 tag;
} p2p_key_t;

/* The messages of one key waiting for their other side, in issue order (a list through
 * p2p_t.next); all sends or all receives. */
typedef struct {
    p2p_key_t key;      /* first: the entry is its own key in R->p2p_waiting */
    guint32 head, tail; /* indexes + 1 into R->p2p */
} p2p_wait_t;

static guint
p2p_key_hash(gconstpointer p)
{
    const p2p_key_t *k = p;
    return (guint)(k->src * 2654435761u) ^ (guint)(k->dst * 40503u) ^ (guint)k->tag ^
           (guint)((guint64)k->tag >> 32);
}

static gboolean
p2p_key_equal(gconstpointer a, gconstpointer b)
{
    const p2p_key_t *x = a, *y = b;
    return x->src == y->src && x->dst == y->dst && x->tag == y->tag;
}

static void finish_node(replay_t *R, guint rank, guint node);

/* The communication stream GPU collective @node of @rs runs on: its communicator's, or the
 * rank's one (weft_replay_streams_t). */
static inline stream_t *
comm_stream(rank_state_t *rs, guint node)
{
    if (rs->n_comm_streams == 1) {
        return &rs->comm_streams[0];
    }
    g_assert(rs->link[node] < rs->n_comm_streams);
    return &rs->comm_streams[rs->link[node]];
}

/* The stream node @i of @t runs on, as observers see it. */
static weft_replay_stream_t
node_stream(const weft_rank_trace_t *t, guint i)
{
    switch (t->type[i]) {
    case WEFT_NODE_COMP:
    case WEFT_NODE_MEM_LOAD:
    case WEFT_NODE_MEM_STORE:
        return t->is_cpu_op[i] ? WEFT_REPLAY_STREAM_CPU : WEFT_REPLAY_STREAM_COMPUTE;
    case WEFT_NODE_COLL:
        return t->is_cpu_op[i] ? WEFT_REPLAY_STREAM_CPU : WEFT_REPLAY_STREAM_COMM;
    case WEFT_NODE_SEND:
    case WEFT_NODE_RECV:
        return WEFT_REPLAY_STREAM_P2P;
    default:
        return WEFT_REPLAY_STREAM_NONE;
    }
}

/* Memory: @delta bytes of category @cat become live (> 0) or are freed (< 0); a new peak
 * records its instant and breakdown. O(1) (O(categories) on a new peak), no allocation. */
static void
mem_change(rank_state_t *rs, guint8 cat, gint64 delta)
{
    rs->mem_live[cat] += delta;
    rs->mem_total += delta;
    if (rs->mem_total > (gint64)rs->res.mem_peak_bytes) {
        rs->res.mem_peak_bytes = (guint64)rs->mem_total;
        rs->res.mem_peak_ps = weft_sim_now(rs->replay->sim);
        for (guint k = 0; k < WEFT_MEM_N_CATS; k++) {
            rs->res.mem_at_peak[k] = (guint64)rs->mem_live[k];
        }
    }
}

/* Records that node @i of @rs starts now (for a node observer), and what it allocates. */
static inline void
mark_start(rank_state_t *rs, guint i)
{
    if (rs->start_ps != NULL) {
        rs->start_ps[i] = weft_sim_now(rs->replay->sim);
    }
    if (rs->trace->mem_alloc != NULL && rs->trace->mem_alloc[i] != 0) {
        mem_change(rs, rs->trace->mem_cat[i], (gint64)rs->trace->mem_alloc[i]);
    }
}

/* ---- accounting ------------------------------------------------------------- */

/* The per-layer sums (LCOLS of them) of node @node's layer and phase on @rs. */
static inline weft_time_t *
layer_slot(const rank_state_t *rs, guint node)
{
    const weft_rank_trace_t *t = rs->trace;
    guint l = t->layer != NULL ? rs->lmap->slot[t->layer[node]] : 0;
    guint ph = t->phase != NULL ? t->phase[node] : WEFT_PHASE_OTHER;
    return rs->lacc + ((gsize)l * WEFT_N_PHASES + ph) * LCOLS;
}

/* Charges the time since the rank's last change to compute, exposed comm or idle, and to
 * the layer and phase of what ran (weft_replay_layer_t): compute to the compute stream's node
 * (else the CPU stream's), communication to the oldest in progress. O(1). */
static void
account(rank_state_t *rs)
{
    weft_time_t now = weft_sim_now(rs->replay->sim);
    weft_time_t dt = now - rs->last_change;
    if (dt == 0) {
        return;
    }
    if (rs->compute_busy > 0) {
        rs->res.compute_ps += dt;
        /* the compute stream's node, else the CPU stream's */
        gint c = rs->streams[STREAM_COMPUTE].running >= 0 ? rs->streams[STREAM_COMPUTE].running
                                                          : rs->streams[STREAM_CPU].running;
        g_assert(c >= 0);
        layer_slot(rs, (guint)c)[LCOL_COMPUTE] += dt;
        if (rs->comm_busy > 0) {
            rs->res.overlapped_comm_ps += dt;
            layer_slot(rs, rs->inflight[0].node)[LCOL_OVERLAPPED + rs->inflight[0].kind] += dt;
        }
    } else if (rs->comm_busy > 0) {
        rs->res.exposed_comm_ps += dt;
        layer_slot(rs, rs->inflight[0].node)[LCOL_EXPOSED + rs->inflight[0].kind] += dt;
    } else {
        rs->res.idle_ps += dt;
    }
    rs->last_change = now;
}

/* Communication node @node of @rs is now in progress (after account(): comm_busy + 1). */
static void
comm_begin(rank_state_t *rs, guint node)
{
    const weft_rank_trace_t *t = rs->trace;
    guint8 kind;
    if (t->type[node] == WEFT_NODE_COLL) {
        kind = rs->replay->comm_kind[t->comm[node]];
    } else {
        kind = g_str_has_prefix(t->name[node], "cp_") ? WEFT_PAR_CP : WEFT_PAR_PP;
    }
    if (rs->n_inflight == rs->cap_inflight) {
        rs->cap_inflight = MAX(8u, 2 * rs->cap_inflight);
        rs->inflight = g_renew(inflight_t, rs->inflight, rs->cap_inflight);
    }
    rs->inflight[rs->n_inflight++] = (inflight_t){node, kind};
    rs->comm_busy++;
    g_assert(rs->comm_busy == rs->n_inflight);
}

/* Communication node @node of @rs is done (after account()). O(communications in progress). */
static void
comm_end(rank_state_t *rs, guint node)
{
    guint k = 0, n = rs->n_inflight;
    while (k < n && rs->inflight[k].node != node) {
        k++;
    }
    g_assert(k < n);
    for (; k + 1 < n; k++) { /* mostly none or one to move: no memmove call */
        rs->inflight[k] = rs->inflight[k + 1];
    }
    rs->n_inflight = n - 1;
    rs->comm_busy--;
}

static const char *
node_name(const weft_rank_trace_t *t, guint node)
{
    return t->name[node] != NULL && t->name[node][0] != '\0' ? t->name[node] : "(unnamed)";
}

static void
fail(replay_t *R, GError *error)
{
    if (R->error == NULL) {
        R->error = error;
    } else {
        g_error_free(error);
    }
    weft_sim_stop(R->sim);
}

/* ---- compute and CPU streams --------------------------------------------------- */

static void stream_kick(stream_t *st);

/*
 * SM contention (compute.sm_contention, doc/replay.md): an NCCL kernel holds one SM per
 * channel (one CTA per channel, NCCL 2.20.3 src/enqueue.cc: a kernel of nChannels blocks)
 * while it runs, and the compute kernel running beside it on the GPU gets the other SMs:
 * it progresses at (SMs - held) / SMs of its rate (at least 1 / SMs). Its work left (at the
 * full rate) is brought up to date, and its end rescheduled, whenever the held SMs change.
 */
static gboolean
contention_on(const replay_t *R, const rank_state_t *rs)
{
    return R->sm_contention && rs->sm_count > 0;
}

static double
compute_rate(const rank_state_t *rs)
{
    guint held = MIN(rs->nccl_sms, rs->sm_count - 1);
    return (double)(rs->sm_count - held) / rs->sm_count;
}

/* When @rs's running compute node ends at the current rate, from its mark: its work left
 * over the rate, through the GPU's straggler windows when faults are armed (the speed is
 * then the windows' times the SM share). */
static weft_time_t
compute_end(const replay_t *R, const rank_state_t *rs)
{
    weft_time_t work = rs->nccl_sms == 0
                           ? weft_time_from_ps(rs->comp_left_ps)
                           : weft_time_from_ps(ceil(rs->comp_left_ps / compute_rate(rs) - 1e-6));
    if (R->faults != NULL) {
        return weft_fault_run_compute_end(R->faults, rs->vertex, rs->comp_mark, work);
    }
    return weft_time_add(rs->comp_mark, work); /* WEFT_TIME_MAX: the clock overflow error */
}

static void on_stream_node_done(void *ctx, void *data);

/* @rs's NCCL kernels now hold @delta SMs more (or fewer). */
static void
hold_sms(replay_t *R, rank_state_t *rs, gint delta)
{
    if (!contention_on(R, rs) || delta == 0) {
        return;
    }
    g_assert(delta > 0 || rs->nccl_sms >= (guint)-delta);
    stream_t *st = &rs->streams[STREAM_COMPUTE];
    if (st->running >= 0 && rs->comp_ev != 0) {
        weft_time_t now = weft_sim_now(R->sim);
        double done = R->faults != NULL
                          ? weft_fault_run_work_done(R->faults, rs->vertex, rs->comp_mark, now)
                          : (double)(now - rs->comp_mark);
        rs->comp_left_ps = MAX(rs->comp_left_ps - done * compute_rate(rs), 0.0);
        rs->comp_mark = now;
        weft_sim_cancel(R->sim, rs->comp_ev);
        rs->nccl_sms = (guint)((gint)rs->nccl_sms + delta);
        rs->comp_ev = weft_sim_at(R->sim, MAX(compute_end(R, rs), now), on_stream_node_done, R, st);
    } else {
        rs->nccl_sms = (guint)((gint)rs->nccl_sms + delta);
    }
}

/* Collective @ci's kernel starts (@on) or ends on every member: its SMs are held or given
 * back. */
static void
coll_hold_sms(replay_t *R, coll_inst_t *ci, gboolean on)
{
    if (!R->sm_contention || ci->sms == 0) {
        return;
    }
    const weft_comm_t *comm = g_ptr_array_index(R->wl->comms, ci->comm);
    for (guint m = 0; m < comm->n_ranks; m++) {
        hold_sms(R, &R->ranks[comm->ranks[m]], on ? (gint)ci->sms : -(gint)ci->sms);
    }
}

static void
on_stream_node_done(void *ctx, void *data)
{
    replay_t *R = ctx;
    stream_t *st = data;
    rank_state_t *rs = st->rank;
    guint node = (guint)st->running;
    account(rs);
    rs->compute_busy--;
    st->running = -1;
    if (st->kind == STREAM_COMPUTE) {
        rs->comp_ev = 0;
    }
    finish_node(R, rs->rank, node);
    stream_kick(st);
}

/* ---- collectives --------------------------------------------------------------- */

/* The live instance of collective @seq of communicator @c, or NULL. */
static coll_inst_t *
coll_inst(replay_t *R, guint c, guint seq)
{
    coll_inst_t *ci = &R->comm_state[c].inst[seq & 1];
    return ci->live && ci->seq == seq ? ci : NULL;
}

static void
on_coll_done(void *ctx, guint64 key)
{
    replay_t *R = ctx;
    coll_inst_t *ci = coll_inst(R, (guint)(key >> 32), (guint)(key & 0xffffffffu));
    g_assert(ci != NULL);
    const weft_comm_t *comm = g_ptr_array_index(R->wl->comms, ci->comm);
    coll_hold_sms(R, ci, FALSE);
    for (guint m = 0; m < comm->n_ranks; m++) {
        rank_state_t *rs = &R->ranks[comm->ranks[m]];
        stream_t *st = comm_stream(rs, (guint)ci->member_node[m]);
        g_assert(st->running == ci->member_node[m]);
        account(rs);
        comm_end(rs, (guint)ci->member_node[m]);
        st->running = -1;
        finish_node(R, rs->rank, (guint)ci->member_node[m]);
        stream_kick(st);
    }
    R->collectives++;
    {
        /* its (layer, phase): its node's on the first member */
        const weft_rank_trace_t *t0 = R->ranks[comm->ranks[0]].trace;
        guint n0 = (guint)ci->member_node[0];
        gsize row = (gsize)(t0->layer != NULL ? t0->layer[n0] : 0) * WEFT_N_PHASES +
                    (t0->phase != NULL ? t0->phase[n0] : WEFT_PHASE_OTHER);
        weft_coll_op_t op = (weft_coll_op_t)t0->coll_op[n0];
        double size = (double)ci->size_bytes;
        if (op == WEFT_COLL_ALL_GATHER || op == WEFT_COLL_GATHER || op == WEFT_COLL_SCATTER) {
            size *= comm->n_ranks; /* nccl-tests' size: the whole output (doc/outputs.md) */
        }
        R->lcoll_n[row]++;
        R->lcoll_ps[row] += weft_sim_now(R->sim) - ci->start_ps;
        R->lcoll_bus[row] += size * weft_coll_tuning_busbw_factor(op, comm->n_ranks);
    }
    if (R->observer != NULL && R->observer->collective != NULL) {
        weft_replay_coll_event_t ev = {ci->comm,       ci->seq,
                                       ci->plan,       ci->first_arrival_ps,
                                       ci->start_ps,   weft_sim_now(R->sim),
                                       ci->moved_bytes, ci->size_bytes};
        R->observer->collective(R->observer->data, &ev);
    }
    g_clear_pointer(&ci->run, weft_coll_run_free);
    ci->live = FALSE;
}

/* ---- collectives run as one timed event (collective_detail = auto) ----------------- */

/*
 * A collective whose links carry nothing else while it runs takes exactly the time of its
 * plan run alone on an idle copy of the network: the models are deterministic, a
 * transfer's timing depends only on the transfers sharing its edges, and simulated time is
 * integer picoseconds, so the run is invariant under a shift of its start. Such a
 * collective runs as one event of that duration. What it would have done to its links
 * (bytes, busy time, peak utilization) and to the network's totals (transfers started,
 * which seed later transfers' ECMP hashes) is credited when it ends.
 *
 * "Alone" is proven, not assumed: the network's guard (net.h, weft_net_enable_guard())
 * counts the transfers in flight on every edge, so a collective starts as one event only
 * when none crosses its edges, and it reserves them for its span; a transfer that starts
 * on a reserved edge is a conflict: the collective's signature goes into opts->detail_banned
 * and the run goes on, inexact from then on, naming every further shape that meets other
 * traffic, then fails (WEFT_REPLAY_ERROR_DETAIL_CONFLICT), so that the caller reruns once
 * with all those shapes at transfer level (a step used to rerun once per shape). Under flow every route of the plan must be fixed (a hashed
 * path would change what shares the collective's links); under analytical a pair with an
 * ECMP choice is allowed when all its routes have the same latency and rate (the transfer's
 * time is then the same on every path): its transfers take the pair's next flow ids at the
 * start and are replayed on their own flows' routes (weft_net_add_pair_block()); another
 * transfer starting on the pair before the last of them is a conflict, as above. The run
 * must have no faults.
 *
 * The duration is measured once per signature: the plan's shape (operation, sizes,
 * algorithm, protocol, channels, chunks, the executor's costs, the transfer DAG) and the
 * routes of its endpoint pairs with their edges renamed in order of first use (latency,
 * rate, paths, shares, each edge's bandwidth, latency and kind). Communicators of the same
 * shape on isomorphic parts of the cluster (the TP groups of every node) share one
 * measurement.
 */
/* The key of opts->detail_banned that stops timing collectives that leave NVLink (a
 * signature is never one byte long). */
static const char BAN_OFF_NVLINK[] = "n";

typedef struct {
    GBytes *sig;                  /* the signature (key of R->memos, owned there) */
    gboolean banned;              /* this attempt put sig in opts->detail_banned already */
    const weft_coll_plan_t *plan; /* the plan measured */
    weft_time_t duration_ps;
    guint n_edges; /* canonical edges */
    double *bytes;
    guint64 *bytes_fx; /* analytical: @bytes in weft_net_bytes_fx() units */
    weft_time_t *busy_ps;
    double *peak;
    /* analytical: per canonical edge, its bandwidth phases (offsets from the start) and the
     * last one's end, for weft_net_add_blocks() */
    GArray **phases;
    weft_time_t *span_ps;
    /* analytical: per canonical edge that is a port, its queue's busy periods alone
     * (weft_net_recorded_port_busy()), else NULL; for weft_net_hold_ports() */
    GArray **port_busy;
    /* analytical: the endpoint pairs whose routes have an ECMP choice (all of equal latency
     * and rate), n_ecmp of them in signature order, and each one's transfers as the run
     * alone recorded them (GArray of weft_net_xfer_rec_t), for weft_net_add_pair_block() */
    guint n_ecmp;
    guint *ecmp_n;          /* per pair: its transfers */
    weft_time_t *ecmp_last; /* per pair: its latest start */
    GArray *ecmp_recs;      /* their transfers (weft_net_xfer_rec_t), in start order */
    GArray *ecmp_rec_pair;  /* the pair of each (guint) */
    weft_net_stats_t stats;
} memo_t;

/* A communicator's view of a memo: its actual edges, canonical order. */
struct comm_memo {
    memo_t *memo; /* NULL: this (communicator, plan) runs at transfer level */
    gint *edges;
    gint *ports;  /* analytical: those of @edges that are endpoint ports (net.h) */
    GArray **port_busy; /* their busy periods alone (the memo's) */
    guint n_ports;
    gint *ecmp_v; /* the vertices (source, destination) of the memo's ECMP pairs */
    struct coarse *coarse; /* the aggregate flow (coarse_build()), NULL until built */
    gboolean coarse_refused;
};

typedef struct {
    guint comm;
    const weft_coll_plan_t *plan;
} comm_plan_key_t;

static guint
comm_plan_hash(gconstpointer p)
{
    const comm_plan_key_t *k = p;
    return k->comm * 2654435761u ^ (guint)GPOINTER_TO_SIZE(k->plan) ^
           (guint)(GPOINTER_TO_SIZE(k->plan) >> 32);
}

static gboolean
comm_plan_equal(gconstpointer a, gconstpointer b)
{
    const comm_plan_key_t *x = a, *y = b;
    return x->comm == y->comm && x->plan == y->plan;
}

static void
memo_free(gpointer p)
{
    memo_t *m = p;
    for (guint c = 0; m->phases != NULL && c < m->n_edges; c++) {
        if (m->phases[c] != NULL) {
            g_array_unref(m->phases[c]);
        }
    }
    g_free(m->phases);
    for (guint c = 0; m->port_busy != NULL && c < m->n_edges; c++) {
        if (m->port_busy[c] != NULL) {
            g_array_unref(m->port_busy[c]);
        }
    }
    g_free(m->port_busy);
    g_free(m->span_ps);
    g_free(m->ecmp_n);
    g_free(m->ecmp_last);
    if (m->ecmp_recs != NULL) {
        g_array_unref(m->ecmp_recs);
        g_array_unref(m->ecmp_rec_pair);
    }
    g_free(m->bytes);
    g_free(m->bytes_fx);
    g_free(m->busy_ps);
    g_free(m->peak);
    g_free(m);
}

static void coarse_free(struct coarse *c);

static void
comm_memo_free(gpointer p)
{
    comm_memo_t *cm = p;
    g_free(cm->edges);
    g_free(cm->ports);
    g_free(cm->port_busy);
    g_free(cm->ecmp_v);
    coarse_free(cm->coarse);
    g_free(cm);
}

/* The cluster vertex of endpoint @e of @plan (members by @vertices, then virtual ones). */
static gint
endpoint_vertex(const weft_coll_plan_t *plan, const gint *vertices, guint32 e)
{
    return e < plan->n_members ? vertices[e] : plan->virtual_vertex[e - plan->n_members];
}

/* The index of edge @e in @order (a GArray of gint, in order of first use; @idx: edge ->
 * index), appended if new (*@added). */
static guint
intern_edge(GHashTable *idx, GArray *order, gint e, gboolean *added)
{
    gpointer v = NULL;
    *added = !g_hash_table_lookup_extended(idx, GINT_TO_POINTER(e), NULL, &v);
    if (*added) {
        v = GUINT_TO_POINTER(order->len);
        g_hash_table_insert(idx, GINT_TO_POINTER(e), v);
        g_array_append_val(order, e);
    }
    return GPOINTER_TO_UINT(v);
}

/* Whether @a and @b cross the same endpoint ports (weft_net_is_port_edge()), in the same
 * order, with the same shares: what an analytical transfer's queueing depends on. */
static gboolean
same_ports(replay_t *R, const weft_route_t *a, const weft_route_t *b)
{
    guint pa = 0, ka = 0, pb = 0, kb = 0;
    for (;;) {
        /* the next port of each, or the end */
        while (pa < a->n_paths &&
               (ka >= a->path_off[pa + 1] || !weft_net_is_port_edge(R->topo, a->edges[ka]))) {
            if (ka >= a->path_off[pa + 1]) {
                pa++;
            } else {
                ka++;
            }
        }
        while (pb < b->n_paths &&
               (kb >= b->path_off[pb + 1] || !weft_net_is_port_edge(R->topo, b->edges[kb]))) {
            if (kb >= b->path_off[pb + 1]) {
                pb++;
            } else {
                kb++;
            }
        }
        if (pa >= a->n_paths || pb >= b->n_paths) {
            return pa >= a->n_paths && pb >= b->n_paths;
        }
        if (a->edges[ka] != b->edges[kb] || a->share[pa] != b->share[pb]) {
            return FALSE;
        }
        ka++;
        kb++;
    }
}

/*
 * Whether every ECMP route from @vs to @vd (one per slot) has the same latency and rate, and
 * crosses the same endpoint ports with the same shares (same_ports()), so that an analytical
 * transfer takes the same time whichever it hashes to (its queueing happens at the ports,
 * net.h); the first into *@first. O(WEFT_FABRIC_ECMP_SLOTS x route length).
 */
static gboolean
ecmp_uniform(replay_t *R, gint vs, gint vd, const weft_route_t **first)
{
    const weft_route_t *r0 = weft_fabric_route_slot(R->fabric, vs, vd, 0, NULL);
    if (r0 == NULL) {
        return FALSE;
    }
    for (guint s = 1; s < WEFT_FABRIC_ECMP_SLOTS; s++) {
        const weft_route_t *r = weft_fabric_route_slot(R->fabric, vs, vd, s, NULL);
        if (r == NULL || r->latency_ps != r0->latency_ps || r->rate_Bps != r0->rate_Bps ||
            !same_ports(R, r0, r)) {
            return FALSE;
        }
    }
    *first = r0;
    return TRUE;
}

/*
 * The signature of @plan over @vertices (see above) into @sig, the actual edge of each
 * canonical one into @edges, and (analytical, @ecmp_v not NULL) the vertices of each pair
 * whose route has an ECMP choice of uniform timing (ecmp_uniform()) into @ecmp_v; FALSE when
 * a route is not fixed (and not such a pair) or missing (transfer level).
 * Time complexity: O(transfers + pairs x route length).
 */
static gboolean
memo_signature(replay_t *R, const weft_coll_plan_t *plan, const gint *vertices,
               GByteArray *sig, GArray *edges, GArray *ecmp_v)
{
    guint64 head[] = {plan->op,
                      plan->algo,
                      plan->proto,
                      plan->n_members,
                      plan->n_virtual,
                      plan->size_bytes,
                      plan->space_bytes,
                      plan->channels,
                      plan->chunks,
                      weft_coll_plan_n_transfers(plan),
                      weft_coll_plan_is_implicit(plan)};
    for (guint i = 0; i < G_N_ELEMENTS(head); i++) {
        weft_coll_sig_u64(sig, head[i]);
    }
    weft_coll_sig_exec(sig, &plan->exec);
    g_autoptr(GHashTable) canon = g_hash_table_new(g_direct_hash, g_direct_equal);
    /* distinct endpoint pairs, in order of first use */
    g_autoptr(GArray) pair_keys = weft_coll_plan_pairs(plan);
    for (guint i = 0; i < pair_keys->len; i++) {
        guint64 k = g_array_index(pair_keys, guint64, i);
        guint32 se = (guint32)(k >> 32), de = (guint32)(k & 0xffffffff);
        gint vs = endpoint_vertex(plan, vertices, se), vd = endpoint_vertex(plan, vertices, de);
        weft_coll_sig_u64(sig, ((guint64)se << 32) | de);
        if (vs == vd) {
            weft_coll_sig_u64(sig, G_MAXUINT64); /* a local copy */
            continue;
        }
        const weft_route_t *u = NULL;
        if (!weft_fabric_route_is_fixed(R->fabric, vs, vd) && ecmp_v != NULL &&
            ecmp_uniform(R, vs, vd, &u)) {
            /* its transfers are replayed on their own flows' routes (weft_net_add_pair_block()) */
            weft_coll_sig_u64(sig, G_MAXUINT64 - 2);
            weft_coll_sig_u64(sig, (guint64)u->latency_ps);
            weft_coll_sig_f64(sig, u->rate_Bps);
            g_array_append_val(ecmp_v, vs);
            g_array_append_val(ecmp_v, vd);
            if (weft_net_model(R->net) == WEFT_NET_ANALYTICAL) {
                /* its ports (the same on every slot) are where its transfers queue with the
                 * others': canonical edges of the collective, guarded while it is timed */
                for (guint p = 0; p < u->n_paths; p++) {
                    for (guint32 j = u->path_off[p]; j < u->path_off[p + 1]; j++) {
                        gint e = u->edges[j];
                        if (!weft_net_is_port_edge(R->topo, e)) {
                            continue;
                        }
                        gboolean added = FALSE;
                        guint id = intern_edge(canon, edges, e, &added);
                        if (added) {
                            weft_coll_sig_u64(sig, G_MAXUINT64 - 1);
                            weft_coll_sig_f64(sig, weft_topo_edge_bw(R->topo, e));
                            weft_coll_sig_u64(sig, (guint64)weft_topo_edge_latency(R->topo, e));
                            weft_coll_sig_u64(sig, (guint64)weft_topo_edge_kind(R->topo, e));
                        }
                        weft_coll_sig_f64(sig, u->share[p]);
                        weft_coll_sig_u64(sig, id);
                    }
                }
            }
            continue;
        }
        if (!weft_fabric_route_is_fixed(R->fabric, vs, vd)) {
            g_debug("%s over %u members runs at transfer level: the route %s -> %s has an ECMP "
                    "choice",
                    weft_coll_op_name(plan->op), plan->n_members,
                    weft_topo_vertex_name(R->topo, vs), weft_topo_vertex_name(R->topo, vd));
            return FALSE;
        }
        const weft_route_t *r = weft_fabric_route(R->fabric, vs, vd, NULL);
        if (r == NULL) {
            return FALSE;
        }
        weft_coll_sig_u64(sig, (guint64)r->latency_ps);
        weft_coll_sig_f64(sig, r->rate_Bps);
        weft_coll_sig_u64(sig, r->n_paths);
        for (guint p = 0; p < r->n_paths; p++) {
            weft_coll_sig_f64(sig, r->share[p]);
            weft_coll_sig_u64(sig, r->path_off[p + 1] - r->path_off[p]);
            for (guint32 j = r->path_off[p]; j < r->path_off[p + 1]; j++) {
                gint e = r->edges[j];
                gboolean added = FALSE;
                guint id = intern_edge(canon, edges, e, &added);
                if (added) {
                    weft_coll_sig_u64(sig, G_MAXUINT64 - 1); /* a new edge: its properties */
                    weft_coll_sig_f64(sig, weft_topo_edge_bw(R->topo, e));
                    weft_coll_sig_u64(sig, (guint64)weft_topo_edge_latency(R->topo, e));
                    weft_coll_sig_u64(sig, (guint64)weft_topo_edge_kind(R->topo, e));
                }
                weft_coll_sig_u64(sig, id);
            }
        }
    }
    return TRUE;
}

/* The busy periods of the ports among @edges in the run alone on @net, into @m (whose
 * n_edges is set). */
static void
memo_port_busy(memo_t *m, const weft_net_t *net, const GArray *edges)
{
    m->port_busy = g_new0(GArray *, MAX(edges->len, 1u));
    for (guint c = 0; c < edges->len; c++) {
        const GArray *b = weft_net_recorded_port_busy(net, g_array_index(edges, gint, c));
        if (b != NULL) {
            m->port_busy[c] = g_array_ref((GArray *)b);
        }
    }
}

/* Runs @plan alone on an idle copy of the network: the memo of its signature. */
static gboolean memo_from_transfers(replay_t *R, memo_t *m, const GArray *edges,
                                    const GArray *ecmp_v, const GArray *recs);

static memo_t *
memo_measure(replay_t *R, const weft_coll_plan_t *plan, const gint *vertices, const GArray *edges,
             const GArray *ecmp_v, GError **error)
{
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_net_t) net = weft_net_new_full(sim, R->fabric, weft_net_options(R->net));
    /* Analytical: the phases of every edge, to replay them against other traffic
     * (weft_net_add_blocks()); an implicit plan (too many transfers to keep them) is swept and
     * runs alone under the guard instead, as under flow. */
    gboolean analytical =
        weft_net_model(net) == WEFT_NET_ANALYTICAL && !weft_coll_plan_is_implicit(plan);
    /* With ECMP pairs (analytical only), every transfer is recorded: their links are known
     * only in place. An implicit plan with such pairs is not swept (weft_coll_sweep() takes
     * fixed routes) but run transfer by transfer, once. */
    g_autoptr(GArray) recs = NULL;
    if (ecmp_v != NULL && ecmp_v->len > 0 && weft_net_model(net) == WEFT_NET_ANALYTICAL) {
        guint64 n = weft_coll_plan_n_transfers(plan);
        recs = g_array_sized_new(FALSE, FALSE, sizeof(weft_net_xfer_rec_t),
                                 (guint)MIN(n, (guint64)G_MAXUINT32 / 2));
        weft_net_record_transfers(net, recs);
    } else if (analytical) {
        weft_net_record_phases(net, (const gint *)(void *)edges->data, edges->len);
    }
    if (analytical || recs != NULL) {
        weft_net_record_port_busy(net, (const gint *)(void *)edges->data, edges->len);
    }
    weft_time_t ps = weft_coll_time_full(sim, net, plan, vertices, NULL, error);
    if (ps < 0) {
        return NULL;
    }
    memo_t *m = g_new0(memo_t, 1);
    m->plan = plan;
    m->duration_ps = ps;
    if (recs != NULL) {
        m->stats = *weft_net_stats(net);
        if (!memo_from_transfers(R, m, edges, ecmp_v, recs)) {
            memo_free(m);
            g_set_error(error, WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_FAILED,
                        "%s over %u members: its run alone cannot be replayed pair by pair",
                        weft_coll_op_name(plan->op), plan->n_members);
            return NULL;
        }
        memo_port_busy(m, net, edges);
        return m;
    }
    m->n_edges = edges->len;
    m->bytes = g_new(double, MAX(edges->len, 1u));
    m->busy_ps = g_new(weft_time_t, MAX(edges->len, 1u));
    m->peak = g_new(double, MAX(edges->len, 1u));
    if (analytical) {
        m->phases = g_new0(GArray *, MAX(edges->len, 1u));
        m->span_ps = g_new0(weft_time_t, MAX(edges->len, 1u));
        m->bytes_fx = g_new0(guint64, MAX(edges->len, 1u));
    }
    for (guint c = 0; c < edges->len; c++) {
        gint e = g_array_index(edges, gint, c);
        weft_net_link_stats_t st = weft_net_link_stats(net, e);
        m->bytes[c] = st.bytes;
        if (analytical) {
            m->bytes_fx[c] = weft_net_bytes_fx(st.bytes, 1.0); /* as weft_net_credit() */
        }
        m->busy_ps[c] = st.busy_ps;
        m->peak[c] = st.peak_util;
        if (analytical) {
            m->phases[c] = g_array_ref((GArray *)weft_net_recorded_phases(net, e));
            for (guint i = 0; i < m->phases[c]->len; i++) {
                const weft_net_phase_t *ph = &g_array_index(m->phases[c], weft_net_phase_t, i);
                m->span_ps[c] = MAX(m->span_ps[c], ph->end_ps);
            }
        }
    }
    if (analytical) {
        memo_port_busy(m, net, edges);
    }
    m->stats = *weft_net_stats(net);
    /* flow with ECMP pairs (collective_detail = coarse): the duration alone only */
    m->n_ecmp = ecmp_v != NULL ? ecmp_v->len / 2 : 0;
    return m;
}

static guint
pair_hash(gconstpointer p)
{
    guint64 k = *(const guint64 *)p;
    k ^= k >> 33;
    k *= G_GUINT64_CONSTANT(0xff51afd7ed558ccd);
    k ^= k >> 33;
    return (guint)k;
}

/*
 * The memo of a plan with ECMP pairs from every transfer of its run alone (@recs, in start
 * order): each ECMP pair's own transfers (ecmp_recs), and for the canonical @edges of the
 * fixed pairs, the phases, bytes, busy time and peak that the analytical model gives them
 * (the same arithmetic as net.c: weft_net_bytes_fx(), weft_net_phases_busy_peak()). FALSE
 * if a transfer is between vertices the plan's pairs do not name.
 * Time complexity: O(transfers x route length).
 */
static gboolean
memo_from_transfers(replay_t *R, memo_t *m, const GArray *edges, const GArray *ecmp_v,
                    const GArray *recs)
{
    guint n = edges->len;
    m->n_edges = n;
    m->bytes = g_new0(double, MAX(n, 1u));
    m->busy_ps = g_new0(weft_time_t, MAX(n, 1u));
    m->peak = g_new0(double, MAX(n, 1u));
    m->phases = g_new0(GArray *, MAX(n, 1u));
    m->span_ps = g_new0(weft_time_t, MAX(n, 1u));
    m->bytes_fx = g_new0(guint64, MAX(n, 1u));
    g_autofree guint64 *fx = g_new0(guint64, MAX(n, 1u));
    g_autofree guint *count = g_new0(guint, MAX(n, 1u));
    g_autoptr(GHashTable) canon = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint c = 0; c < n; c++) {
        g_hash_table_insert(canon, GINT_TO_POINTER(g_array_index(edges, gint, c)),
                            GUINT_TO_POINTER(c));
    }
    m->n_ecmp = ecmp_v->len / 2;
    m->ecmp_n = g_new0(guint, MAX(m->n_ecmp, 1u));
    m->ecmp_last = g_new0(weft_time_t, MAX(m->n_ecmp, 1u));
    /* per (vs, vd) pair, found once: its ECMP index, or its fixed route with the canonical
     * id of each of its edges (1 + index into @pinfo) */
    typedef struct {
        guint ecmp; /* 1 + ECMP pair index, 0: fixed */
        const weft_route_t *r;
        guint *cid;
    } pair_info_t;
    g_autoptr(GHashTable) pairs = g_hash_table_new_full(pair_hash, g_int64_equal, g_free, NULL);
    g_autoptr(GArray) pinfo = g_array_new(FALSE, TRUE, sizeof(pair_info_t));
    for (guint i = 0; i < m->n_ecmp; i++) {
        guint64 *k = g_new(guint64, 1);
        *k = ((guint64)(guint32)g_array_index(ecmp_v, gint, 2 * i) << 32) |
             (guint32)g_array_index(ecmp_v, gint, 2 * i + 1);
        pair_info_t pi = {i + 1, NULL, NULL};
        g_array_append_val(pinfo, pi);
        g_hash_table_insert(pairs, k, GUINT_TO_POINTER(pinfo->len));
    }
    g_autofree guint *rec_pi = g_new(guint, MAX(recs->len, 1u));
    gboolean ok = TRUE;
    guint n_ecmp_recs = 0;
    /* pass 1: each transfer's pair; phases per canonical edge, transfers per ECMP pair */
    for (guint t = 0; ok && t < recs->len; t++) {
        const weft_net_xfer_rec_t *x = &g_array_index(recs, weft_net_xfer_rec_t, t);
        guint64 k = ((guint64)(guint32)x->src << 32) | (guint32)x->dst;
        guint idx = GPOINTER_TO_UINT(g_hash_table_lookup(pairs, &k));
        if (idx == 0) {
            pair_info_t pi = {0, weft_fabric_route_fixed_cached(R->fabric, x->src, x->dst), NULL};
            if (pi.r == NULL) {
                ok = FALSE;
                break;
            }
            guint ne = pi.r->path_off[pi.r->n_paths];
            pi.cid = g_new(guint, MAX(ne, 1u));
            for (guint j = 0; j < ne; j++) {
                gpointer id = NULL;
                ok = ok && g_hash_table_lookup_extended(canon, GINT_TO_POINTER(pi.r->edges[j]),
                                                        NULL, &id);
                pi.cid[j] = GPOINTER_TO_UINT(id);
            }
            g_array_append_val(pinfo, pi);
            idx = pinfo->len;
            g_hash_table_insert(pairs, g_memdup2(&k, sizeof k), GUINT_TO_POINTER(idx));
        }
        rec_pi[t] = idx - 1;
        const pair_info_t *pi = &g_array_index(pinfo, pair_info_t, idx - 1);
        if (pi->ecmp > 0) {
            m->ecmp_n[pi->ecmp - 1]++;
            m->ecmp_last[pi->ecmp - 1] = MAX(m->ecmp_last[pi->ecmp - 1], x->start_ps);
            n_ecmp_recs++;
        } else if (x->end_ps > x->start_ps) {
            for (guint j = 0; j < pi->r->path_off[pi->r->n_paths]; j++) {
                count[pi->cid[j]]++;
            }
        }
    }
    for (guint i = 0; ok && i < m->n_ecmp; i++) {
        ok = m->ecmp_n[i] > 0; /* else not run transfer by transfer: nothing to replay */
    }
    if (ok) {
        /* pass 2: fill arrays of their exact sizes */
        for (guint c = 0; c < n; c++) {
            m->phases[c] = g_array_sized_new(FALSE, FALSE, sizeof(weft_net_phase_t), count[c]);
            count[c] = 0;
        }
        m->ecmp_recs =
            g_array_sized_new(FALSE, FALSE, sizeof(weft_net_xfer_rec_t), MAX(n_ecmp_recs, 1u));
        m->ecmp_rec_pair = g_array_sized_new(FALSE, FALSE, sizeof(guint), MAX(n_ecmp_recs, 1u));
        g_array_set_size(m->ecmp_recs, n_ecmp_recs);
        g_array_set_size(m->ecmp_rec_pair, n_ecmp_recs);
        weft_net_xfer_rec_t *er = (weft_net_xfer_rec_t *)(void *)m->ecmp_recs->data;
        guint *ep = (guint *)(void *)m->ecmp_rec_pair->data;
        guint ne_done = 0;
        for (guint t = 0; t < recs->len; t++) {
            const weft_net_xfer_rec_t *x = &g_array_index(recs, weft_net_xfer_rec_t, t);
            const pair_info_t *pi = &g_array_index(pinfo, pair_info_t, rec_pi[t]);
            if (pi->ecmp > 0) {
                er[ne_done] = *x;
                ep[ne_done++] = pi->ecmp - 1;
                continue;
            }
            const weft_route_t *r = pi->r;
            for (guint p = 0; p < r->n_paths; p++) {
                guint64 b = weft_net_bytes_fx(x->wire_bytes, r->share[p]);
                weft_net_phase_t ph = {x->start_ps, x->end_ps, x->rate_Bps * r->share[p]};
                for (guint32 j = r->path_off[p]; j < r->path_off[p + 1]; j++) {
                    guint c = pi->cid[j];
                    if (x->wire_bytes > 0.0) {
                        fx[c] += b;
                    }
                    if (ph.end_ps > ph.start_ps) {
                        /* within the size reserved in pass 1; the length is set below */
                        GArray *a = m->phases[c];
                        ((weft_net_phase_t *)(void *)a->data)[count[c]++] = ph;
                        m->span_ps[c] = MAX(m->span_ps[c], ph.end_ps);
                    }
                }
            }
        }
        for (guint c = 0; c < n; c++) {
            g_array_set_size(m->phases[c], count[c]);
            gint e = g_array_index(edges, gint, c);
            m->bytes[c] = weft_net_bytes_from_fx(fx[c]);
            m->bytes_fx[c] = weft_net_bytes_fx(m->bytes[c], 1.0); /* as weft_net_credit() */
            weft_net_phases_busy_peak((const weft_net_phase_t *)(void *)m->phases[c]->data,
                                      m->phases[c]->len, weft_fabric_edge_bw_now(R->fabric, e),
                                      &m->busy_ps[c], &m->peak[c]);
        }
    }
    for (guint i = 0; i < pinfo->len; i++) {
        g_free(g_array_index(pinfo, pair_info_t, i).cid);
    }
    return ok;
}

/* The memo of communicator @c's @plan (found, measured, or NULL: transfer level). */
static comm_memo_t *
comm_memo(replay_t *R, guint c, const weft_coll_plan_t *plan, const gint *vertices,
          GError **error)
{
    comm_plan_key_t key = {c, plan};
    comm_memo_t *cm = g_hash_table_lookup(R->comm_memos, &key);
    if (cm != NULL) {
        return cm;
    }
    cm = g_new0(comm_memo_t, 1);
    g_hash_table_insert(R->comm_memos, g_memdup2(&key, sizeof key), cm);
    g_autoptr(GByteArray) sig = g_byte_array_new();
    g_autoptr(GArray) edges = g_array_new(FALSE, FALSE, sizeof(gint));
    /* ECMP pairs are timed only under analytical (flow: a path changes its sharing) */
    g_autoptr(GArray) ecmp_v = NULL;
    if (weft_net_model(R->net) == WEFT_NET_ANALYTICAL || R->coarse) {
        ecmp_v = g_array_new(FALSE, FALSE, sizeof(gint));
    }
    if (!memo_signature(R, plan, vertices, sig, edges, ecmp_v)) {
        return cm;
    }
    g_autoptr(GBytes) bytes = g_byte_array_free_to_bytes(g_steal_pointer(&sig));
    if (R->detail_banned != NULL && g_hash_table_contains(R->detail_banned, bytes)) {
        return cm;
    }
    memo_t *m = g_hash_table_lookup(R->memos, bytes);
    if (m == NULL) {
        g_debug("%s over %u members (%" G_GUINT64_FORMAT " transfers, %u ECMP pairs): measured alone",
                weft_coll_op_name(plan->op), plan->n_members, weft_coll_plan_n_transfers(plan),
                ecmp_v != NULL ? ecmp_v->len / 2 : 0);
        m = memo_measure(R, plan, vertices, edges, ecmp_v, error);
        if (m == NULL) {
            return NULL;
        }
        m->sig = g_bytes_ref(bytes);
        g_hash_table_insert(R->memos, m->sig, m);
    } else if (!weft_coll_plan_equal(m->plan, plan)) {
        return cm; /* the same signature over another DAG: never seen, but never assumed */
    }
    cm->memo = m;
    if (m->phases != NULL) {
        cm->ports = g_new(gint, MAX(edges->len, 1u));
        cm->port_busy = g_new(GArray *, MAX(edges->len, 1u));
        for (guint i = 0; i < edges->len; i++) {
            gint e = g_array_index(edges, gint, i);
            if (m->port_busy[i] != NULL) {
                cm->port_busy[cm->n_ports] = m->port_busy[i];
                cm->ports[cm->n_ports++] = e;
            }
        }
    }
    cm->edges = (gint *)(void *)g_array_free(g_steal_pointer(&edges), FALSE);
    if (ecmp_v != NULL && ecmp_v->len > 0) {
        cm->ecmp_v = (gint *)(void *)g_array_free(g_steal_pointer(&ecmp_v), FALSE);
    }
    return cm;
}

/* A collective run as one event ends: credit what its transfers would have, then finish. */
static void
on_timed_coll_done(void *ctx, void *data)
{
    replay_t *R = ctx;
    coll_inst_t *ci = data;
    const memo_t *m = ci->timed->memo;
    /* analytical: bytes, busy time and peak went in at the start (timed_coll_start()) */
    for (guint c = 0; m->phases == NULL && c < m->n_edges; c++) {
        gint e = ci->timed->edges[c];
        weft_net_credit(R->net, e, m->bytes[c], m->busy_ps[c], m->peak[c]);
        if (R->edge_holder[e] == ci) {
            R->edge_holder[e] = NULL;
        }
    }
    for (guint c = 0; m->phases != NULL && c < ci->timed->n_ports; c++) {
        gint e = ci->timed->ports[c];
        if (R->edge_holder[e] == ci) {
            R->edge_holder[e] = NULL;
        }
    }
    weft_net_credit_stats(R->net, &m->stats);
    R->timed_colls++;
    on_coll_done(R, ci->key);
}

/* Starts @ci as one timed event if it provably runs alone; FALSE: run it at transfer level. */
static gboolean memo_off_nvlink(replay_t *R, const comm_memo_t *cm);

static gboolean coarse_start(replay_t *R, coll_inst_t *ci, const weft_coll_plan_t *plan,
                             const gint *vertices, comm_memo_t *cm);

/* (@cached: the memo of (communicator, @plan) if known, else where to keep it) */
static gboolean
timed_coll_start(replay_t *R, coll_inst_t *ci, const weft_coll_plan_t *plan, const gint *vertices,
                 comm_memo_t **cached)
{
    GError *error = NULL;
    comm_memo_t *cm = *cached != NULL ? *cached : comm_memo(R, ci->comm, plan, vertices, &error);
    if (cm == NULL) {
        /* the isolated run failed: the transfer-level run reports why */
        g_clear_error(&error);
        return FALSE;
    }
    *cached = cm;
    if (cm->memo != NULL && cm->memo->phases != NULL) {
        /* Analytical: a transfer's timing depends on others only through the endpoint
         * ports they share (net.h), so the collective is timed when no transfer is in
         * flight on its ports and no timed collective holds them, and it holds them for
         * its span, as under flow; its other links may carry anything: their busy time
         * and peak are replayed with whatever does (weft_net_add_blocks()). */
        if (!weft_net_ports_idle(R->net, cm->ports, cm->n_ports)) {
            return FALSE;
        }
        weft_time_t end = weft_sim_now(R->sim) + cm->memo->duration_ps;
        weft_net_hold_ports(R->net, cm->n_ports, cm->ports, cm->port_busy, end, ci);
        for (guint c = 0; c < cm->n_ports; c++) {
            R->edge_holder[cm->ports[c]] = ci;
        }
        /* its bytes now, while the links are at hand (sums of fixed-point bytes do not
         * depend on their order, and links are read after the run) */
        const memo_t *m = cm->memo;
        weft_net_add_blocks(R->net, m->n_edges, cm->edges, m->phases, m->span_ps, m->busy_ps,
                            m->peak, m->bytes_fx);
        ci->timed = cm;
        if (cm->memo->n_ecmp > 0) {
            weft_net_pair_block_t b = {m->n_ecmp,
                                       cm->ecmp_v,
                                       m->ecmp_n,
                                       m->ecmp_last,
                                       (const weft_net_xfer_rec_t *)(void *)m->ecmp_recs->data,
                                       (const guint *)(void *)m->ecmp_rec_pair->data,
                                       m->ecmp_recs->len};
            weft_net_add_pair_block(R->net, &b, ci);
        }
        weft_sim_at(R->sim, end, on_timed_coll_done, R, ci);
        return TRUE;
    }
    if (cm->memo == NULL || cm->memo->n_ecmp > 0 ||
        !weft_net_edges_idle(R->net, cm->edges, cm->memo->n_edges) ||
        (R->off_nvlink_banned && memo_off_nvlink(R, cm))) {
        return R->coarse && coarse_start(R, ci, plan, vertices, cm);
    }
    weft_time_t end = weft_sim_now(R->sim) + cm->memo->duration_ps;
    weft_net_reserve(R->net, cm->edges, cm->memo->n_edges, end);
    for (guint c = 0; c < cm->memo->n_edges; c++) {
        R->edge_holder[cm->edges[c]] = ci;
    }
    ci->timed = cm;
    weft_sim_at(R->sim, end, on_timed_coll_done, R, ci);
    return TRUE;
}

/* Whether the collective of @cm crosses an edge that is not NVLink. */
static gboolean
memo_off_nvlink(replay_t *R, const comm_memo_t *cm)
{
    for (guint c = 0; c < cm->memo->n_edges; c++) {
        if (weft_topo_edge_kind(R->topo, cm->edges[c]) != WEFT_LINK_NVLINK) {
            return TRUE;
        }
    }
    return FALSE;
}

/* A transfer started on an edge a timed collective holds: that collective was not alone. */
static void
on_detail_conflict(void *ctx, gint edge)
{
    replay_t *R = ctx;
    const coll_inst_t *ci = R->edge_holder[edge];
    if (R->error != NULL || ci == NULL || ci->timed == NULL) {
        return;
    }
    const weft_comm_t *comm = g_ptr_array_index(R->wl->comms, ci->comm);
    if (R->detail_banned != NULL) {
        /* once per shape and attempt: the continued attempt meets the same shapes again and
         * again, and hashing a signature costs its length */
        memo_t *memo = ci->timed->memo;
        if (!memo->banned) {
            g_hash_table_add(R->detail_banned, g_bytes_ref(memo->sig));
            memo->banned = TRUE;
        }
        if (!R->off_nvlink_added && weft_topo_edge_kind(R->topo, edge) != WEFT_LINK_NVLINK) {
            /* Off NVLink (NICs, fabric), traffic of other kinds (pipeline sends, other
             * groups) meets collectives of every shape alike: stop timing them all at once
             * rather than rerun once per shape. */
            g_hash_table_add(R->detail_banned, g_bytes_new_static(BAN_OFF_NVLINK, 1));
            R->off_nvlink_added = TRUE;
        }
    }
    if (R->conflict != NULL) {
        return;
    }
    R->conflict = g_error_new(WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_DETAIL_CONFLICT,
                        "collective #%u of communicator \"%s\" ran as one timed event, but a "
                        "transfer started on its link %s -> %s at %.6f us: rerun it at "
                        "transfer level",
                        ci->seq + 1, comm->name,
                        weft_topo_vertex_name(R->topo, weft_topo_edge_from(R->topo, edge)),
                        weft_topo_vertex_name(R->topo, weft_topo_edge_to(R->topo, edge)),
                        weft_time_to_us(weft_sim_now(R->sim)));
}

/* ---- coarse collectives (collective_detail = coarse, flow) ---------------------------
 *
 * A ring all-reduce, reduce-scatter or all-gather keeps, in steady state, every link of its
 * rings busy at once, each carrying its pairs' share of the bytes. Under flow, when it cannot
 * be timed exactly (a route with an ECMP choice, or links it shares), such a collective of
 * WEFT_REPLAY_COARSE_MIN_XFERS transfers or more runs as one aggregate flow instead: one
 * transfer on a synthetic route whose "paths" are the edges its transfers cross, each with
 * the fraction of the collective's wire bytes that crosses it (a pair with an ECMP choice
 * spreads its bytes evenly over its 64 slots' routes, as its many transfers do on average),
 * so the max-min solver gives the whole ring one rate against whatever shares its links.
 * Its latency is what the plan's exact run alone takes beyond its bandwidth phase alone:
 * T0 - S / R0, with T0 the memo's duration (the run alone, transfer by transfer, once per
 * shape) and R0 the aggregate's rate alone, so a collective alone takes exactly T0. Sharing
 * is approximate: the aggregate pipelines perfectly, spreads ECMP flows evenly and moves its
 * fixed part (latencies, protocol costs) to the end. Links count the wire bytes that cross
 * them (for ECMP pairs, the mean over slots) and the aggregate's busy time; the network's
 * totals count one transfer. */
struct coarse {
    weft_route_t route;
    guint32 *path_off;
    gint32 *edges;
    double *share;
    guint64 bytes; /* the aggregate's wire bytes */
    gint src, dst; /* the first pair's vertices (naming the aggregate) */
};

static void
coarse_free(struct coarse *c)
{
    if (c == NULL) {
        return;
    }
    g_free(c->path_off);
    g_free(c->edges);
    g_free(c->share);
    g_free(c);
}

/* Adds @bytes x @weight x share to every edge of @r (index by edge in @idx, bytes in @eb). */
static void
coarse_add_route(const weft_route_t *r, double bytes, GHashTable *idx, GArray *eb, GArray *ev)
{
    for (guint p = 0; p < r->n_paths; p++) {
        for (guint32 k = r->path_off[p]; k < r->path_off[p + 1]; k++) {
            gboolean added = FALSE;
            guint i = intern_edge(idx, ev, r->edges[k], &added);
            if (added) {
                double zero = 0.0;
                g_array_append_val(eb, zero);
            }
            g_array_index(eb, double, i) += bytes * r->share[p];
        }
    }
}

/*
 * The aggregate flow of @plan over @vertices whose run alone takes @t0_ps (see above); NULL
 * when it does not apply. Time complexity: O(transfers + pairs x 64 x route length).
 */
static struct coarse *
coarse_build(replay_t *R, const weft_coll_plan_t *plan, const gint *vertices, weft_time_t t0_ps)
{
    g_autoptr(GError) error = NULL;
    const weft_coll_plan_t *xp = weft_coll_plan_explicit(plan, &error);
    if (xp == NULL) {
        return NULL;
    }
    /* wire bytes per endpoint pair (the executor's efficiency: coll_run.c) */
    g_autoptr(GHashTable) pair_idx = g_hash_table_new_full(pair_hash, g_int64_equal, g_free, NULL);
    g_autoptr(GArray) pair_bytes = g_array_new(FALSE, TRUE, sizeof(double));
    g_autoptr(GArray) pair_key = g_array_new(FALSE, FALSE, sizeof(guint64));
    const weft_coll_exec_t *x = &plan->exec;
    for (guint32 t = 0; t < xp->n_xfers; t++) {
        const weft_coll_xfer_t *tx = &xp->xfers[t];
        double eff = x->efficiency > 0.0 ? x->efficiency : 1.0;
        if (x->efficiency_shared > 0.0) {
            eff = x->efficiency_shared; /* coarse runs under flow (coll_run.c) */
        }
        if (!(tx->flags & WEFT_COLL_XFER_INTER) && x->efficiency_intra > 0.0) {
            eff = x->efficiency_intra;
        }
        guint64 k = ((guint64)tx->src << 32) | tx->dst;
        gpointer v = g_hash_table_lookup(pair_idx, &k);
        if (v == NULL) {
            v = GUINT_TO_POINTER(pair_key->len + 1);
            g_hash_table_insert(pair_idx, g_memdup2(&k, sizeof k), v);
            g_array_append_val(pair_key, k);
            g_array_set_size(pair_bytes, pair_key->len);
        }
        g_array_index(pair_bytes, double, GPOINTER_TO_UINT(v) - 1) += (double)tx->bytes / eff;
    }
    g_autoptr(GHashTable) edge_idx = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GArray) eb = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) ev = g_array_new(FALSE, FALSE, sizeof(gint));
    double total = 0.0;
    gint first_src = -1, first_dst = -1;
    for (guint i = 0; i < pair_key->len; i++) {
        guint64 k = g_array_index(pair_key, guint64, i);
        gint vs = endpoint_vertex(plan, vertices, (guint32)(k >> 32));
        gint vd = endpoint_vertex(plan, vertices, (guint32)(k & 0xffffffffu));
        double b = g_array_index(pair_bytes, double, i);
        if (vs == vd || b <= 0.0) {
            continue; /* a local copy: no link */
        }
        if (first_src < 0) {
            first_src = vs;
            first_dst = vd;
        }
        total += b;
        if (weft_fabric_route_is_fixed(R->fabric, vs, vd)) {
            const weft_route_t *r = weft_fabric_route(R->fabric, vs, vd, NULL);
            if (r == NULL) {
                return NULL;
            }
            coarse_add_route(r, b, edge_idx, eb, ev);
            continue;
        }
        for (guint s = 0; s < WEFT_FABRIC_ECMP_SLOTS; s++) {
            const weft_route_t *r = weft_fabric_route_slot(R->fabric, vs, vd, s, NULL);
            if (r == NULL) {
                return NULL;
            }
            coarse_add_route(r, b / WEFT_FABRIC_ECMP_SLOTS, edge_idx, eb, ev);
        }
    }
    if (total <= 0.0 || ev->len == 0) {
        return NULL;
    }
    struct coarse *c = g_new0(struct coarse, 1);
    guint n = ev->len;
    c->path_off = g_new(guint32, n + 1);
    c->edges = g_new(gint32, n);
    c->share = g_new(double, n);
    double rate = INFINITY;
    for (guint i = 0; i < n; i++) {
        gint e = g_array_index(ev, gint, i);
        c->path_off[i] = i;
        c->edges[i] = e;
        c->share[i] = g_array_index(eb, double, i) / total;
        rate = MIN(rate, weft_fabric_edge_bw_now(R->fabric, e) / c->share[i]);
    }
    c->path_off[n] = n;
    c->bytes = (guint64)llround(total);
    weft_time_t send = weft_time_for_bytes(c->bytes, rate);
    c->route = (weft_route_t){.n_paths = n,
                              .path_off = c->path_off,
                              .edges = c->edges,
                              .share = c->share,
                              .latency_ps = MAX(t0_ps - send, 0),
                              .rate_Bps = rate,
                              .hops = 1};
    if (t0_ps < send) {
        g_debug("%s over %u members: its aggregate flow alone (%.6f us) is slower than its run "
                "alone (%.6f us)",
                weft_coll_op_name(plan->op), plan->n_members, weft_time_to_us(send),
                weft_time_to_us(t0_ps));
    }
    c->src = first_src;
    c->dst = first_dst;
    return c;
}

/* Starts @ci as one aggregate flow if it applies (see above); FALSE: run it transfer by
 * transfer. */
static gboolean
coarse_start(replay_t *R, coll_inst_t *ci, const weft_coll_plan_t *plan, const gint *vertices,
             comm_memo_t *cm)
{
    if (cm->memo == NULL || cm->coarse_refused || plan->algo != WEFT_COLL_ALGO_RING ||
        (plan->op != WEFT_COLL_ALL_REDUCE && plan->op != WEFT_COLL_REDUCE_SCATTER &&
         plan->op != WEFT_COLL_ALL_GATHER) ||
        weft_coll_plan_n_transfers(plan) < WEFT_REPLAY_COARSE_MIN_XFERS) {
        return FALSE;
    }
    if (cm->coarse == NULL) {
        cm->coarse = coarse_build(R, plan, vertices, cm->memo->duration_ps);
        if (cm->coarse == NULL) {
            cm->coarse_refused = TRUE;
            return FALSE;
        }
    }
    struct coarse *c = cm->coarse;
    weft_net_transfer_start_route(R->net, &c->route, c->src, c->dst, c->bytes, on_coll_done, R,
                                  ci->key);
    R->coarse_colls++;
    return TRUE;
}

/* A transfer or timed collective started on a pair (@src, @dst) while the timed collective
 * @owner's transfers were still starting there: their ECMP flow ids may not be those of a
 * transfer-level run. */
static void
on_pair_conflict(void *ctx, void *owner, gint src, gint dst)
{
    replay_t *R = ctx;
    const coll_inst_t *ci = owner;
    if (R->error != NULL || ci == NULL || ci->timed == NULL) {
        return;
    }
    const weft_comm_t *comm = g_ptr_array_index(R->wl->comms, ci->comm);
    if (R->detail_banned != NULL) {
        g_hash_table_add(R->detail_banned, g_bytes_ref(ci->timed->memo->sig));
    }
    if (R->conflict != NULL) {
        return;
    }
    R->conflict = g_error_new(WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_DETAIL_CONFLICT,
                        "collective #%u of communicator \"%s\" ran as one timed event, but a "
                        "transfer started from %s to %s at %.6f us while its own were still "
                        "starting there: rerun it at transfer level",
                        ci->seq + 1, comm->name, weft_topo_vertex_name(R->topo, src),
                        weft_topo_vertex_name(R->topo, dst),
                        weft_time_to_us(weft_sim_now(R->sim)));
}

/*
 * @error (consumed) is why collective @ci could not start. When that is a missing route and a
 * fault has taken links down (weft_fabric_link_version() > 0), the collective is stranded, as
 * a transfer about to start is (net.h): it is recorded for the stranded report
 * (fault_report()) and the simulation stops. Any other error fails the replay as it is.
 */
static void
coll_start_failed(replay_t *R, const coll_inst_t *ci, weft_coll_op_t op, guint64 bytes,
                  GError *error)
{
    const weft_comm_t *comm = g_ptr_array_index(R->wl->comms, ci->comm);
    gboolean no_route = g_error_matches(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_NO_ROUTE) ||
                        g_error_matches(error, WEFT_NET_ERROR, WEFT_NET_ERROR_NO_ROUTE);
    if (!no_route || R->faults == NULL || weft_fabric_link_version(R->fabric) == 0) {
        fail(R, error);
        return;
    }
    if (R->stranded == NULL) {
        R->stranded = g_error_new(WEFT_NET_ERROR, WEFT_NET_ERROR_STRANDED,
                                  "collective #%u of communicator \"%s\" (%s of %" G_GUINT64_FORMAT
                                  " bytes) stranded at %.6f us before it started: links are down "
                                  "and no path is left (%s)",
                                  ci->seq + 1, comm->name, weft_coll_op_name(op), bytes,
                                  weft_time_to_us(weft_sim_now(R->sim)), error->message);
    }
    g_error_free(error);
    weft_sim_stop(R->sim);
}

/* All members have reached collective @ci: check they agree, then run its plan. */
static void
coll_start(replay_t *R, coll_inst_t *ci)
{
    const weft_comm_t *comm = g_ptr_array_index(R->wl->comms, ci->comm);
    const weft_rank_trace_t *t0 = &R->wl->ranks[comm->ranks[0]];
    guint n0 = (guint)ci->member_node[0];
    weft_coll_op_t op = t0->coll_op[n0];
    guint64 bytes = t0->comm_bytes[n0];
    for (guint m = 1; m < comm->n_ranks; m++) {
        const weft_rank_trace_t *t = &R->wl->ranks[comm->ranks[m]];
        guint nm = (guint)ci->member_node[m];
        if (t->coll_op[nm] != op || t->comm_bytes[nm] != bytes) {
            fail(R,
                 g_error_new(
                     WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_MISMATCH,
                     "collective #%u of communicator \"%s\": rank %u (%s) node %" G_GUINT64_FORMAT
                     " (%s) is %s of %" G_GUINT64_FORMAT
                     " bytes but rank %u (%s) node %" G_GUINT64_FORMAT
                     " (%s) is %s of %" G_GUINT64_FORMAT " bytes",
                     ci->seq + 1, comm->name, comm->ranks[0], t0->file, t0->id[n0],
                     node_name(t0, n0), weft_coll_op_name(op), bytes, comm->ranks[m], t->file,
                     t->id[nm], node_name(t, nm), weft_coll_op_name(t->coll_op[nm]),
                     t->comm_bytes[nm]));
            return;
        }
    }
    GError *error = NULL;
    comm_state_t *cs = &R->comm_state[ci->comm];
    const gint *vertices = cs->vertices;
    /* ASTRA-sim's involved_dim, read by the planner under a system file only */
    guint16 involved = t0->involved_dim != NULL ? t0->involved_dim[n0] : 0;
    guint k = 0;
    while (k < G_N_ELEMENTS(cs->recent) &&
           (cs->recent[k].plan == NULL || cs->recent[k].op != op || cs->recent[k].bytes != bytes ||
            cs->recent[k].involved != involved)) {
        k++;
    }
    if (k == G_N_ELEMENTS(cs->recent)) {
        const weft_coll_plan_t *plan = weft_coll_planner_plan_dims(
            R->planner, op, bytes, cs->plan_comm, involved, NULL, &error);
        if (plan == NULL) {
            g_prefix_error(&error, "%s: rank %u node %" G_GUINT64_FORMAT " (%s): ", t0->file,
                           comm->ranks[0], t0->id[n0], node_name(t0, n0));
            coll_start_failed(R, ci, op, bytes, error);
            return;
        }
        k = cs->recent_next;
        cs->recent_next = (k + 1) % G_N_ELEMENTS(cs->recent);
        cs->recent[k].plan = plan;
        cs->recent[k].op = op;
        cs->recent[k].bytes = bytes;
        cs->recent[k].involved = involved;
        cs->recent[k].cm = NULL;
    }
    const weft_coll_plan_t *plan = cs->recent[k].plan;
    ci->plan = plan;
    /* an ASTRA-sim system's dataset splits run one split's plan once per wave */
    ci->moved_bytes = plan->moved_bytes * MAX(plan->exec.waves, 1u);
    ci->size_bytes = bytes;
    ci->start_ps = weft_sim_now(R->sim);
    /* its kernel's SMs: one per channel, unless the trace counts them already */
    const weft_rank_trace_t *tr0 = R->ranks[comm->ranks[0]].trace;
    ci->sms = !weft_coll_planner_tuned(R->planner) ||
                      (tr0->sms_counted != NULL && tr0->sms_counted[ci->member_node[0]])
                  ? 0
                  : plan->channels;
    coll_hold_sms(R, ci, TRUE);
    if (R->detail_auto && timed_coll_start(R, ci, plan, vertices, &cs->recent[k].cm)) {
        return;
    }
    ci->run = weft_coll_run(R->net, plan, vertices, on_coll_done, R, ci->key, &error);
    if (ci->run == NULL) {
        g_prefix_error(&error, "collective #%u of communicator \"%s\": ", ci->seq + 1, comm->name);
        coll_start_failed(R, ci, op, bytes, error);
    }
}

/* Where rank @r's membership of communicator @c is in comm_of (its member index there, its
 * collective count in comm_seq), or -1: a binary search of its few. */
static gint
member_slot(const replay_t *R, guint c, guint r)
{
    guint32 lo = R->comm_off[r], hi = R->comm_off[r + 1];
    while (lo < hi) {
        guint32 mid = lo + (hi - lo) / 2;
        if (R->comm_of[mid][0] < c) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < R->comm_off[r + 1] && R->comm_of[lo][0] == c ? (gint)lo : -1;
}

/* Rank @rs issues collective @node on its communication stream. */
static void
coll_arrive(replay_t *R, rank_state_t *rs, guint node)
{
    g_assert(rs->link[node] != G_MAXUINT32);
    guint32 slot = R->comm_off[rs->rank] + rs->link[node];
    guint c = R->comm_of[slot][0];
    const weft_comm_t *comm = g_ptr_array_index(R->wl->comms, c);
    guint seq = R->comm_seq[slot]++;
    coll_inst_t *ci = &R->comm_state[c].inst[seq & 1];
    if (!ci->live) {
        ci->live = TRUE;
        ci->key = ((guint64)c << 32) | seq;
        ci->comm = c;
        ci->seq = seq;
        ci->n_arrived = 0;
        ci->plan = NULL;
        ci->timed = NULL;
        ci->first_arrival_ps = weft_sim_now(R->sim);
        ci->start_ps = 0;
        if (ci->member_node == NULL) {
            ci->member_node = g_new(gint32, comm->n_ranks);
        }
        for (guint m = 0; m < comm->n_ranks; m++) {
            ci->member_node[m] = -1;
        }
    }
    /* the other live instance is seq - 1 or seq + 1 (comm_state_t): never this slot's */
    g_assert(ci->seq == seq);
    gint m = (gint)R->comm_of[slot][1];
    g_assert(ci->member_node[m] < 0);
    ci->member_node[m] = (gint32)node;
    if (++ci->n_arrived == comm->n_ranks) {
        coll_start(R, ci);
    }
}

/* ---- point-to-point ---------------------------------------------------------------- */

/* Message slot @idx is done with (both sides finished or about to): it can be reused. */
static void
p2p_release(replay_t *R, guint32 idx)
{
    g_array_index(R->p2p, p2p_t, idx).released = TRUE;
    g_array_append_val(R->p2p_free, idx);
}

static void
on_p2p_done(void *ctx, guint64 index)
{
    replay_t *R = ctx;
    g_array_index(R->p2p, p2p_t, index).arrived = TRUE;
    /* the plan's run has called back for the last time (coll.h): done with */
    g_clear_pointer(&g_array_index(R->p2p, p2p_t, index).run, weft_coll_run_free);
    /* a copy: finishing nodes issues new sends, which may move R->p2p */
    p2p_t p = g_array_index(R->p2p, p2p_t, index);
    rank_state_t *src = &R->ranks[p.src_rank];
    account(src);
    hold_sms(R, src, -(gint)p.sms);
    if (p.recv_node >= 0) {
        hold_sms(R, &R->ranks[p.dst_rank], -(gint)p.sms);
    }
    comm_end(src, (guint)p.send_node);
    finish_node(R, p.src_rank, (guint)p.send_node);
    if (p.recv_node >= 0) {
        /* the receive was posted before the data arrived */
        rank_state_t *dst = &R->ranks[p.dst_rank];
        account(dst);
        comm_end(dst, (guint)p.recv_node);
        finish_node(R, p.dst_rank, (guint)p.recv_node);
        p2p_release(R, (guint32)index);
    }
    /* else the receive, when issued, finishes at once and releases the slot */
}

static guint
p2p_plan_key_hash(gconstpointer k)
{
    const p2p_plan_key_t *x = k;
    return g_int64_hash(&x->bytes) ^ ((guint)x->v0 * 2654435761u) ^ ((guint)x->v1 * 40503u);
}

static gboolean
p2p_plan_key_equal(gconstpointer a, gconstpointer b)
{
    const p2p_plan_key_t *x = a, *y = b;
    return x->v0 == y->v0 && x->v1 == y->v1 && x->bytes == y->bytes;
}

/*
 * The plan of a @bytes message from GPU vertex @vertices[0] to @vertices[1] as NCCL 2.20.3
 * runs ncclSend / ncclRecv (coll/p2p.h) on the pair's own communicator: PyTorch's
 * ProcessGroupNCCL sends over a 2-rank NCCL communicator of the two ranks
 * (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp, pointToPoint(): the key
 * "lowRank:highRank"). Built once per (pair, size) and kept. NULL with @error set.
 */
static const weft_coll_plan_t *
p2p_plan(replay_t *R, const gint vertices[2], guint64 bytes, GError **error)
{
    p2p_plan_key_t key = {vertices[0], vertices[1], bytes};
    weft_coll_plan_t *plan = g_hash_table_lookup(R->p2p_plans, &key);
    if (plan != NULL) {
        return plan;
    }
    guint comm = weft_coll_planner_add_comm(R->planner, vertices, 2);
    const weft_coll_system_t *sys = weft_coll_planner_system(R->planner, comm, error);
    if (sys == NULL) {
        return NULL;
    }
    weft_coll_p2p_comm_t pc;
    weft_coll_p2p_comm_init(&pc, sys);
    pc.merge_steps = R->detail_auto; /* collectives.detail = transfers: every step */
    gint domain[2] = {weft_topo_vertex_domain(R->topo, vertices[0]),
                      weft_topo_vertex_domain(R->topo, vertices[1])};
    weft_coll_p2p_msg_t msg = {0, 1};
    plan = weft_coll_p2p_plan_build(&pc, 2, domain, &msg, 1, bytes, error);
    if (plan == NULL) {
        return NULL;
    }
    g_hash_table_insert(R->p2p_plans, g_memdup2(&key, sizeof key), plan);
    return plan;
}

/*
 * Issues a SEND or RECV. Sends are eager: the message starts when the send is
 * issued and the send finishes when its last byte arrives. Under NCCL's tuning
 * (a tuned planner) the message runs as NCCL runs it (p2p_plan()): its channels,
 * steps, protocol, latencies and the NIC's per-message cost; otherwise it is one
 * transfer at the route's rate. A receive finishes
 * when it has been issued and its matching message has arrived. Sends and
 * receives of one (src, dst, tag) match in issue order.
 */
static void
p2p_issue(replay_t *R, rank_state_t *rs, guint node)
{
    const weft_rank_trace_t *t = rs->trace;
    gboolean is_send = t->type[node] == WEFT_NODE_SEND;
    guint peer = rs->rank + rs->link[node]; /* modulo 2^32: the peer (rank_links()) */
    guint src = is_send ? rs->rank : peer;
    guint dst = is_send ? peer : rs->rank;
    mark_start(rs, node);

    /* Unmatched messages of one key wait in issue order; a queue holds only
     * sends or only receives at any time. */
    p2p_key_t key = {src, dst, t->tag[node]};
    p2p_wait_t *q = g_hash_table_lookup(R->p2p_waiting, &key);
    guint32 idx = 0;
    p2p_t *p = NULL;
    if (q != NULL) {
        idx = q->head - 1;
        p = &g_array_index(R->p2p, p2p_t, idx);
        if ((p->send_node >= 0) == is_send) {
            p = NULL; /* same kind as those waiting: wait behind them */
        } else if (p->next != 0) {
            q->head = p->next;
        } else {
            /* the last one waiting on this key: the entry goes back to the pool */
            g_hash_table_steal(R->p2p_waiting, &q->key);
            g_ptr_array_add(R->p2p_wait_pool, q);
            q = NULL;
        }
    }
    if (p != NULL) {
        /* matched with the waiting other side: NCCL requires ncclSend's and ncclRecv's
         * counts to agree, and a receive of another size is a trace error, not a message
         * of either size */
        guint send_node = is_send ? node : (guint)p->send_node;
        guint recv_node = is_send ? (guint)p->recv_node : node;
        const weft_rank_trace_t *ts = R->ranks[src].trace, *tr = R->ranks[dst].trace;
        if (ts->comm_bytes[send_node] != tr->comm_bytes[recv_node]) {
            fail(R, g_error_new(
                        WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_MISMATCH,
                        "point-to-point message from rank %u to rank %u, tag %" G_GINT64_FORMAT
                        ": %s: rank %u node %" G_GUINT64_FORMAT " (%s) sends %" G_GUINT64_FORMAT
                        " bytes but %s: rank %u node %" G_GUINT64_FORMAT
                        " (%s) receives %" G_GUINT64_FORMAT " bytes",
                        src, dst, t->tag[node], ts->file, src, ts->id[send_node],
                        node_name(ts, send_node), ts->comm_bytes[send_node], tr->file, dst,
                        tr->id[recv_node], node_name(tr, recv_node), tr->comm_bytes[recv_node]));
            return;
        }
    }
    if (p == NULL) {
        p2p_t fresh = {src, dst, -1, -1, FALSE, 0, FALSE, NULL, 0};
        if (R->p2p_free->len > 0) {
            idx = g_array_index(R->p2p_free, guint32, R->p2p_free->len - 1);
            g_array_set_size(R->p2p_free, R->p2p_free->len - 1);
            g_array_index(R->p2p, p2p_t, idx) = fresh;
        } else {
            g_return_if_fail(R->p2p->len < G_MAXUINT32);
            idx = R->p2p->len;
            g_array_append_val(R->p2p, fresh);
        }
        R->p2p_count++;
        p = &g_array_index(R->p2p, p2p_t, idx);
        if (q != NULL) {
            g_array_index(R->p2p, p2p_t, q->tail - 1).next = idx + 1;
            q->tail = idx + 1;
        } else {
            q = R->p2p_wait_pool->len > 0
                    ? g_ptr_array_steal_index_fast(R->p2p_wait_pool, R->p2p_wait_pool->len - 1)
                    : g_new(p2p_wait_t, 1);
            q->key = key;
            q->head = q->tail = idx + 1;
            g_hash_table_insert(R->p2p_waiting, &q->key, q);
        }
    }

    if (!is_send) {
        p->recv_node = (gint)node;
        if (p->arrived) {
            /* the data is already here: the receive completes now */
            rank_node_t rn = {rs->rank, node};
            g_array_append_val(R->finish_stack, rn);
            p2p_release(R, idx);
        } else {
            account(rs);
            comm_begin(rs, node);
            if (p->send_node >= 0) {
                /* the send is moving: the receiving kernel joins it */
                hold_sms(R, rs, (gint)p->sms);
            }
        }
        return;
    }
    p->send_node = (gint)node;
    account(rs);
    comm_begin(rs, node);
    GError *error = NULL;
    gint vertices[2] = {R->ranks[src].vertex, R->ranks[dst].vertex};
    if (weft_coll_planner_tuned(R->planner) && vertices[0] != vertices[1]) {
        const weft_coll_plan_t *plan = p2p_plan(R, vertices, t->comm_bytes[node], &error);
        weft_coll_run_t *run =
            plan != NULL ? weft_coll_run(R->net, plan, vertices, on_p2p_done, R, idx, &error)
                         : NULL;
        if (run == NULL) {
            g_prefix_error(&error, "%s: rank %u node %" G_GUINT64_FORMAT " (%s): ", t->file,
                           rs->rank, t->id[node], node_name(t, node));
            fail(R, error);
            return;
        }
        p2p_t *sent = &g_array_index(R->p2p, p2p_t, idx);
        sent->run = run;
        /* NCCL's send and receive kernels hold the plan's channels (one CTA each) on both
         * GPUs while the message moves: from now, or from the receive's posting */
        sent->sms = R->sm_contention ? plan->channels : 0;
        hold_sms(R, rs, (gint)sent->sms);
        if (sent->recv_node >= 0) {
            hold_sms(R, &R->ranks[dst], (gint)sent->sms);
        }
        return;
    }
    if (!weft_net_transfer_start(R->net, vertices[0], vertices[1], t->comm_bytes[node],
                                 on_p2p_done, R, idx, &error)) {
        g_prefix_error(&error, "%s: rank %u node %" G_GUINT64_FORMAT " (%s): ", t->file, rs->rank,
                       t->id[node], node_name(t, node));
        fail(R, error);
    }
}

/* ---- streams and readiness --------------------------------------------------------- */

static void stream_run(stream_t *st, guint node);

static void
stream_kick(stream_t *st)
{
    if (st->running >= 0 || st->queue.len == 0) {
        return;
    }
    stream_run(st, fifo_pop(&st->queue));
}

/* Node @node is ready on @st: it queues behind the stream's, or runs now if there are none
 * (what pushing it and kicking the stream would do, without touching the queue). */
static inline void
stream_ready(stream_t *st, guint node)
{
    if (st->running < 0 && st->queue.len == 0) {
        stream_run(st, node);
    } else {
        fifo_push(&st->queue, node);
    }
}

/* Idle stream @st starts @node. */
static void
stream_run(stream_t *st, guint node)
{
    rank_state_t *rs = st->rank;
    replay_t *R = rs->replay;
    mark_start(rs, node);
    account(rs); /* the time until now belongs to what ran before @node */
    st->running = (gint)node;
    if (st->kind == STREAM_COMM) {
        comm_begin(rs, node);
        coll_arrive(R, rs, node);
    } else {
        rs->compute_busy++;
        weft_time_t d = rs->trace->duration_ps[node];
        if (R->compute_scale != 1.0) {
            d = weft_time_from_ps((double)d * R->compute_scale); /* saturates: overflow below */
        }
        if (st->kind == STREAM_COMPUTE && contention_on(R, rs)) {
            /* at the SMs' share of its rate (and a straggler's inside its windows) */
            rs->comp_left_ps = (double)d;
            rs->comp_mark = weft_sim_now(R->sim);
            rs->comp_ev = weft_sim_at(R->sim, compute_end(R, rs), on_stream_node_done, R, st);
        } else if (R->faults != NULL && st->kind == STREAM_COMPUTE) {
            /* a straggler computes slower inside its windows */
            weft_time_t now = weft_sim_now(R->sim);
            weft_time_t end = weft_fault_run_compute_end(R->faults, rs->vertex, now, d);
            weft_sim_at(R->sim, end, on_stream_node_done, R, st);
        } else {
            weft_sim_after(R->sim, d, on_stream_node_done, R, st);
        }
    }
}

/* Node @node of @rs has no unfinished predecessor: dispatch it. */
static void
make_ready(replay_t *R, rank_state_t *rs, guint node)
{
    const weft_rank_trace_t *t = rs->trace;
    switch (t->type[node]) {
    case WEFT_NODE_COMP:
    case WEFT_NODE_MEM_LOAD:
    case WEFT_NODE_MEM_STORE: {
        stream_ready(&rs->streams[t->is_cpu_op[node] ? STREAM_CPU : STREAM_COMPUTE], node);
        break;
    }
    case WEFT_NODE_COLL: {
        /* A collective recorded on the host (is_cpu_op, e.g. PyTorch's c10d::allreduce_
         * call) is the CPU side of a GPU collective traced separately: it runs on the
         * CPU stream for its duration, as ASTRA-sim runs it. The reader has cleared the
         * flag of those that no GPU collective depends on (workload.h). */
        stream_ready(t->is_cpu_op[node] ? &rs->streams[STREAM_CPU] : comm_stream(rs, node), node);
        break;
    }
    case WEFT_NODE_SEND:
    case WEFT_NODE_RECV:
        p2p_issue(R, rs, node);
        break;
    default: {
        /* METADATA and INVALID nodes take no time. */
        mark_start(rs, node);
        rank_node_t rn = {rs->rank, node};
        g_array_append_val(R->finish_stack, rn);
        break;
    }
    }
}

/*
 * Marks nodes finished at the current time and releases their successors.
 * Instantaneous successors go on a stack instead of recursing, so long chains
 * of zero-time nodes cannot exhaust the C stack.
 */
static void
drain_finished(replay_t *R)
{
    rank_node_t rn;
    while (R->finish_stack->len > 0) {
        rn = g_array_index(R->finish_stack, rank_node_t, R->finish_stack->len - 1);
        g_array_set_size(R->finish_stack, R->finish_stack->len - 1);
        rank_state_t *rs = &R->ranks[rn.rank];
        if (weft_sim_now(R->sim) == WEFT_TIME_MAX) {
            /* the clock saturated (core/time.h): the results would be silently wrong */
            const weft_rank_trace_t *t = rs->trace;
            g_array_set_size(R->finish_stack, 0);
            fail(R, g_error_new(WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_OVERFLOW,
                                "%s: rank %u node %" G_GUINT64_FORMAT
                                " (%s) would finish after %.0f days of simulated time, more "
                                "than weft's picosecond clock holds (about 106 days): check "
                                "durations, sizes and link bandwidths",
                                t->file, rn.rank, t->id[rn.node], node_name(t, rn.node),
                                weft_time_to_s(WEFT_TIME_MAX) / 86400.0));
            return;
        }
        g_assert(rs->nodes_done < rs->trace->n_nodes);
        rs->nodes_done++;
        if (rs->trace->mem_free != NULL && rs->trace->mem_free[rn.node] != 0) {
            mem_change(rs, rs->trace->mem_cat[rn.node], -(gint64)rs->trace->mem_free[rn.node]);
        }
        weft_sim_work_add(R->sim, 1); /* progress lines: nodes done of all ranks' nodes */
        rs->res.finish_ps = weft_sim_now(R->sim);
        if (rs->nodes_done == rs->trace->n_nodes && --R->ranks_left == 0 && R->faults != NULL) {
            weft_fault_run_disarm(R->faults); /* the step is over: later faults do not happen */
        }
        if (rs->start_ps != NULL) {
            R->observer->node(R->observer->data, rn.rank, rn.node, node_stream(rs->trace, rn.node),
                              rs->start_ps[rn.node], rs->res.finish_ps);
        }
        for (guint32 k = rs->succ_off[rn.node]; k < rs->succ_off[rn.node + 1]; k++) {
            guint s = rs->succ[k];
            guint32 c = rs->counter[s];
            if (c == NO_COUNTER || --rs->left[c] == 0) {
                make_ready(R, rs, s);
            }
        }
    }
}

static void
finish_node(replay_t *R, guint rank, guint node)
{
    rank_node_t rn = {rank, node};
    g_array_append_val(R->finish_stack, rn);
    drain_finished(R);
}

/* ---- set-up and tear-down ----------------------------------------------------------- */

/* The successors of one trace's nodes (CSR) and its nodes' counters (rank_state_t), shared
 * by the ranks replaying it. */
typedef struct {
    guint32 *off;
    guint32 *succ;
    guint32 *counter; /* per node: its counter, or NO_COUNTER */
    guint32 *left0;   /* per counter: its node's predecessors */
    guint32 n_counters;
} succ_t;

static void
succ_free(gpointer p)
{
    succ_t *sc = p;
    g_free(sc->off);
    g_free(sc->succ);
    g_free(sc->counter);
    g_free(sc->left0);
    g_free(sc);
}

/*
 * The link array of @rs (see rank_state_t): shared with the first rank of its trace when
 * equal to that rank's, else its own. Time complexity: O(nodes x log memberships).
 */
static void
rank_links(replay_t *R, rank_state_t *rs)
{
    const weft_rank_trace_t *t = rs->trace;
    guint n = t->n_nodes;
    guint32 *link = g_new(guint32, MAX(n, 1));
    for (guint i = 0; i < n; i++) {
        link[i] = 0;
        if (t->type[i] == WEFT_NODE_COLL && !t->is_cpu_op[i] && t->comm[i] >= 0) {
            gint slot = member_slot(R, (guint)t->comm[i], rs->rank);
            /* not a member (weft_workload_check() rules it out): coll_arrive() asserts */
            link[i] = slot >= 0 ? (guint32)slot - R->comm_off[rs->rank] : G_MAXUINT32;
        } else if (t->type[i] == WEFT_NODE_SEND || t->type[i] == WEFT_NODE_RECV) {
            link[i] = (guint32)t->peer[i] - rs->rank;
        }
    }
    const guint32 *first = g_hash_table_lookup(R->links, t->deps);
    if (first == NULL) {
        g_hash_table_insert(R->links, (gpointer)t->deps, link);
        rs->link = link;
    } else if (memcmp(first, link, sizeof(guint32) * n) == 0) {
        rs->link = first;
        g_free(link);
    } else {
        g_ptr_array_add(R->own_links, link);
        rs->link = link;
    }
}

static void
layer_map_free(gpointer p)
{
    layer_map_t *m = p;
    g_free(m->slot);
    g_free(m->layer_of);
    g_free(m);
}

/* The layer map of @t's layer array, made once per array: the layers its nodes name, in
 * id order. O(nodes + layers). */
static const layer_map_t *
layer_map(replay_t *R, const weft_rank_trace_t *t)
{
    layer_map_t *m = g_hash_table_lookup(R->lmaps, t->layer);
    if (m != NULL) {
        return m;
    }
    guint n_layers = R->wl->layers != NULL ? R->wl->layers->len : 1;
    m = g_new0(layer_map_t, 1);
    m->slot = g_new(guint16, n_layers);
    m->layer_of = g_new(guint16, n_layers);
    g_autofree guint8 *used = g_new0(guint8, n_layers);
    used[0] = 1; /* "other": nodes without a layer */
    for (guint i = 0; t->layer != NULL && i < t->n_nodes; i++) {
        used[t->layer[i]] = 1; /* < n_layers: weft_workload_check() */
    }
    for (guint l = 0; l < n_layers; l++) {
        m->slot[l] = G_MAXUINT16;
        if (used[l]) {
            m->layer_of[m->n_local] = (guint16)l;
            m->slot[l] = (guint16)m->n_local++;
        }
    }
    g_hash_table_insert(R->lmaps, t->layer, m);
    return m;
}

static void
rank_init(replay_t *R, rank_state_t *rs, guint rank)
{
    const weft_rank_trace_t *t = &R->wl->ranks[rank];
    guint n = t->n_nodes;
    rs->replay = R;
    rs->rank = rank;
    rs->trace = t;
    rs->vertex = weft_topo_gpu_vertex(R->topo, R->rank_gpu != NULL ? R->rank_gpu[rank] : rank);
    const weft_hw_gpu_t *gpu_model = weft_topo_vertex_gpu_model(R->topo, rs->vertex);
    rs->sm_count = gpu_model != NULL ? gpu_model->sm_count : 0;
    if (R->wl->resident != NULL) {
        /* the model states are live from the start */
        for (guint k = 0; k < WEFT_MEM_N_CATS; k++) {
            mem_change(rs, (guint8)k, (gint64)R->wl->resident[rank][k]);
        }
    }
    if (R->observer != NULL && R->observer->node != NULL) {
        rs->start_ps = g_new0(weft_time_t, MAX(n, 1));
    }
    /* successors: a counting sort of the predecessor lists, once per trace (the ranks of a
     * generated pipeline stage share their arrays, workload.h) */
    succ_t *sc = g_hash_table_lookup(R->succs, t->deps);
    if (sc == NULL) {
        sc = g_new0(succ_t, 1);
        sc->counter = g_new(guint32, MAX(n, 1));
        for (guint i = 0; i < n; i++) {
            guint32 preds = t->dep_off[i + 1] - t->dep_off[i];
            sc->counter[i] = preds >= 2 ? sc->n_counters++ : NO_COUNTER;
        }
        sc->left0 = g_new(guint32, MAX(sc->n_counters, 1));
        for (guint i = 0; i < n; i++) {
            if (sc->counter[i] != NO_COUNTER) {
                sc->left0[sc->counter[i]] = t->dep_off[i + 1] - t->dep_off[i];
            }
        }
        sc->off = g_new0(guint32, n + 1);
        sc->succ = g_new(guint32, MAX(t->dep_off[n], 1));
        for (guint i = 0; i < n; i++) {
            for (guint32 k = t->dep_off[i]; k < t->dep_off[i + 1]; k++) {
                sc->off[t->deps[k] + 1]++;
            }
        }
        for (guint i = 0; i < n; i++) {
            sc->off[i + 1] += sc->off[i];
        }
        g_autofree guint32 *fill = g_memdup2(sc->off, sizeof(guint32) * n);
        for (guint i = 0; i < n; i++) {
            for (guint32 k = t->dep_off[i]; k < t->dep_off[i + 1]; k++) {
                sc->succ[fill[t->deps[k]]++] = i;
            }
        }
        g_hash_table_insert(R->succs, (gpointer)t->deps, sc);
    }
    rs->succ_off = sc->off;
    rs->succ = sc->succ;
    rs->counter = sc->counter;
    rs->left = g_memdup2(sc->left0, sizeof(guint32) * MAX(sc->n_counters, 1));
    rs->lmap = layer_map(R, t);
    rs->lacc = g_new0(weft_time_t, (gsize)rs->lmap->n_local * WEFT_N_PHASES * LCOLS);
    rank_links(R, rs);
    for (guint s = 0; s < N_STREAMS; s++) {
        rs->streams[s].rank = rs;
        rs->streams[s].kind = s;
        rs->streams[s].running = -1;
    }
    guint memberships = R->comm_off[rank + 1] - R->comm_off[rank];
    rs->n_comm_streams =
        R->comm_streams == WEFT_REPLAY_STREAMS_RANK ? 1 : MAX(memberships, 1u);
    rs->comm_streams = g_new0(stream_t, rs->n_comm_streams);
    for (guint s = 0; s < rs->n_comm_streams; s++) {
        rs->comm_streams[s].rank = rs;
        rs->comm_streams[s].kind = STREAM_COMM;
        rs->comm_streams[s].running = -1;
    }
}

static void
rank_clear(rank_state_t *rs)
{
    g_free(rs->lacc);
    g_free(rs->inflight);
    g_free(rs->left);
    g_free(rs->start_ps);
    for (guint s = 0; s < N_STREAMS; s++) {
        g_free(rs->streams[s].queue.buf);
    }
    for (guint s = 0; s < rs->n_comm_streams; s++) {
        g_free(rs->comm_streams[s].queue.buf);
    }
    g_free(rs->comm_streams);
}

static void
replay_clear(replay_t *R)
{
    if (R->ranks != NULL) {
        for (guint r = 0; r < R->wl->n_ranks; r++) {
            rank_clear(&R->ranks[r]);
        }
        g_free(R->ranks);
    }
    g_clear_pointer(&R->comm_off, g_free);
    g_clear_pointer(&R->comm_of, g_free);
    g_clear_pointer(&R->comm_kind, g_free);
    g_clear_pointer(&R->lcoll_n, g_free);
    g_clear_pointer(&R->lcoll_ps, g_free);
    g_clear_pointer(&R->lcoll_bus, g_free);
    g_clear_pointer(&R->lmaps, g_hash_table_unref);
    g_clear_pointer(&R->comm_seq, g_free);
    g_clear_pointer(&R->succs, g_hash_table_unref);
    g_clear_pointer(&R->links, g_hash_table_unref);
    g_clear_pointer(&R->own_links, g_ptr_array_unref);
    if (R->comm_state != NULL) {
        for (guint c = 0; c < R->wl->comms->len; c++) {
            for (guint k = 0; k < 2; k++) {
                weft_coll_run_free(R->comm_state[c].inst[k].run);
                g_free(R->comm_state[c].inst[k].member_node);
            }
            g_free(R->comm_state[c].vertices);
        }
        g_clear_pointer(&R->comm_state, g_free);
    }
    if (R->own_planner) {
        g_clear_pointer(&R->planner, weft_coll_planner_free);
    }
    g_clear_pointer(&R->p2p_waiting, g_hash_table_unref);
    g_clear_pointer(&R->p2p_wait_pool, g_ptr_array_unref);
    for (guint i = 0; R->p2p != NULL && i < R->p2p->len; i++) {
        /* a run stopped early: its sends' plans may still be running */
        g_clear_pointer(&g_array_index(R->p2p, p2p_t, i).run, weft_coll_run_free);
    }
    g_clear_pointer(&R->p2p, g_array_unref);
    g_clear_pointer(&R->p2p_plans, g_hash_table_unref);
    g_clear_pointer(&R->p2p_free, g_array_unref);
    g_clear_pointer(&R->finish_stack, g_array_unref);
    g_clear_error(&R->error);
    g_clear_error(&R->conflict);
    g_clear_error(&R->stranded);
    g_clear_pointer(&R->faults, weft_fault_run_free);
    if (R->detail_auto) {
        weft_net_enable_guard(R->net, NULL, NULL); /* the net outlives this replay */
        weft_net_set_pair_conflict(R->net, NULL, NULL);
    }
    g_clear_pointer(&R->comm_memos, g_hash_table_unref);
    g_clear_pointer(&R->memos, g_hash_table_unref);
    g_clear_pointer(&R->edge_holder, g_free);
}

/* ---- fault reports ------------------------------------------------------------------ */

/* The failure or stranded transfer that stopped the run, with how far the ranks got; NULL if
 * none. */
static GError *
fault_report(replay_t *R)
{
    const GError *why = R->faults != NULL ? weft_fault_run_failure(R->faults) : NULL;
    gint code = WEFT_REPLAY_ERROR_FAILED;
    if (why == NULL) {
        why = weft_net_stranded(R->net) != NULL ? weft_net_stranded(R->net) : R->stranded;
        code = WEFT_REPLAY_ERROR_STRANDED;
    }
    if (why == NULL) {
        return NULL;
    }
    guint unfinished = 0;
    guint64 done = 0, total = 0;
    for (guint r = 0; r < R->wl->n_ranks; r++) {
        const rank_state_t *rs = &R->ranks[r];
        unfinished += rs->nodes_done < rs->trace->n_nodes;
        done += rs->nodes_done;
        total += rs->trace->n_nodes;
    }
    return g_error_new(
        WEFT_REPLAY_ERROR, code,
        "%s; the step stopped at %.6f us with %u of %u ranks unfinished (%" G_GUINT64_FORMAT
        " of %" G_GUINT64_FORMAT " nodes done)",
        why->message, weft_time_to_us(weft_sim_now(R->sim)), unfinished, R->wl->n_ranks, done,
        total);
}

/* ---- the deadlock report ------------------------------------------------------------ */

/* Explains what running node @node of rank @rs waits for. */
static void
explain_waiting(replay_t *R, rank_state_t *rs, guint node, GString *out)
{
    const weft_rank_trace_t *t = rs->trace;
    g_string_append_printf(out, "\n  rank %u (%s): node %" G_GUINT64_FORMAT " (%s) ", rs->rank,
                           t->file, t->id[node], node_name(t, node));
    if (t->type[node] == WEFT_NODE_COLL) {
        guint c = (guint)t->comm[node];
        const weft_comm_t *comm = g_ptr_array_index(R->wl->comms, c);
        gint slot = member_slot(R, c, rs->rank);
        guint seq = slot >= 0 ? R->comm_seq[slot] - 1 : 0;
        coll_inst_t *ci = coll_inst(R, c, seq);
        g_string_append_printf(out,
                               "%s of %" G_GUINT64_FORMAT " bytes, collective #%u of "
                               "communicator \"%s\", waits for rank(s)",
                               weft_coll_op_name(t->coll_op[node]), t->comm_bytes[node], seq + 1,
                               comm->name);
        guint listed = 0;
        for (guint m = 0; ci != NULL && m < comm->n_ranks; m++) {
            if (ci->member_node[m] < 0) {
                if (listed < 16) {
                    g_string_append_printf(out, "%s %u", listed > 0 ? "," : "", comm->ranks[m]);
                }
                listed++;
            }
        }
        if (listed > 16) {
            g_string_append_printf(out, " and %u more", listed - 16);
        }
        g_string_append(out, " that never reached it");
    } else if (t->type[node] == WEFT_NODE_SEND) {
        g_string_append_printf(
            out, "COMM_SEND to rank %d tag %" G_GINT64_FORMAT " waits for the matching receive",
            t->peer[node], t->tag[node]);
    } else if (t->type[node] == WEFT_NODE_RECV) {
        g_string_append_printf(
            out, "COMM_RECV from rank %d tag %" G_GINT64_FORMAT " waits for the matching send",
            t->peer[node], t->tag[node]);
    } else {
        g_string_append_printf(out, "%s is still running", weft_node_type_name(t->type[node]));
    }
}

static gint
cmp_guint(gconstpointer a, gconstpointer b)
{
    guint x = *(const guint *)a, y = *(const guint *)b;
    return x < y ? -1 : x > y;
}

/* The running nodes of @rs, ascending: its streams' and its messages' in flight (a send from
 * its issue until its last byte arrives, a receive issued before its message arrived). */
static GArray *
running_nodes(replay_t *R, const rank_state_t *rs)
{
    GArray *run = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint s = 0; s < N_STREAMS + rs->n_comm_streams; s++) {
        const stream_t *st = s < N_STREAMS ? &rs->streams[s] : &rs->comm_streams[s - N_STREAMS];
        if (st->running >= 0) {
            guint node = (guint)st->running;
            g_array_append_val(run, node);
        }
    }
    for (guint i = 0; i < R->p2p->len; i++) {
        const p2p_t *p = &g_array_index(R->p2p, p2p_t, i);
        if (p->released || p->arrived) {
            continue;
        }
        if (p->src_rank == rs->rank && p->send_node >= 0) {
            guint node = (guint)p->send_node;
            g_array_append_val(run, node);
        }
        if (p->dst_rank == rs->rank && p->recv_node >= 0) {
            guint node = (guint)p->recv_node;
            g_array_append_val(run, node);
        }
    }
    g_array_sort(run, cmp_guint);
    return run;
}

static GError *
deadlock_report(replay_t *R)
{
    g_autoptr(GString) out = g_string_new(NULL);
    guint stuck = 0;
    for (guint r = 0; r < R->wl->n_ranks; r++) {
        stuck += R->ranks[r].nodes_done < R->ranks[r].trace->n_nodes;
    }
    g_string_append_printf(out, "deadlock at t = %.3f us: %u of %u ranks cannot finish",
                           weft_time_to_us(weft_sim_now(R->sim)), stuck, R->wl->n_ranks);
    guint shown = 0;
    for (guint r = 0; r < R->wl->n_ranks && shown < 32; r++) {
        rank_state_t *rs = &R->ranks[r];
        const weft_rank_trace_t *t = rs->trace;
        if (rs->nodes_done == t->n_nodes) {
            continue;
        }
        shown++;
        g_autoptr(GArray) running = running_nodes(R, rs);
        gboolean any = running->len > 0;
        for (guint k = 0; k < running->len; k++) {
            explain_waiting(R, rs, g_array_index(running, guint, k), out);
        }
        /* waiting or queued: neither done nor running */
        guint blocked = t->n_nodes - rs->nodes_done - running->len;
        if (!any) {
            g_string_append_printf(out, "\n  rank %u (%s): %u node(s) not started", r, t->file,
                                   blocked);
        } else if (blocked > 0) {
            g_string_append_printf(out, "\n  rank %u: %u more node(s) wait behind it", r, blocked);
        }
    }
    if (shown < stuck) {
        g_string_append_printf(out, "\n  ... and %u more ranks", stuck - shown);
    }
    return g_error_new_literal(WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_DEADLOCK, out->str);
}

/* ---- entry point ------------------------------------------------------------------- */

/* Releases the nodes without predecessors of rank GPOINTER_TO_UINT(@data), in node order
 * (called directly, or as an event: @ctx is the replay). */
static void
release_rank_first_nodes(void *ctx, void *data)
{
    replay_t *R = ctx;
    rank_state_t *rs = &R->ranks[GPOINTER_TO_UINT(data)];
    for (guint i = 0; i < rs->trace->n_nodes; i++) {
        if (rs->trace->dep_off[i + 1] == rs->trace->dep_off[i]) {
            /* no predecessor: nothing else makes it ready */
            make_ready(R, rs, i);
            drain_finished(R);
        }
    }
}

/* Releases every node without predecessors, rank by rank in node order (called directly
 * or as an event at time 0: @ctx is the replay, @data unused); a rank that starts later
 * (weft_replay_options_t.rank_start_ps) gets an event at its start, in rank order. */
static void
release_first_nodes(void *ctx, void *data)
{
    (void)data;
    replay_t *R = ctx;
    for (guint r = 0; r < R->wl->n_ranks && R->error == NULL; r++) {
        if (R->rank_start_ps != NULL && R->rank_start_ps[r] > weft_sim_now(R->sim)) {
            weft_sim_at(R->sim, R->rank_start_ps[r], release_rank_first_nodes, R,
                        GUINT_TO_POINTER(r));
            continue;
        }
        release_rank_first_nodes(R, GUINT_TO_POINTER(r));
    }
}

/* The per-layer sums over ranks (weft_replay_layer_t), ordered by (layer, phase).
 * O(ranks x their slots + layers x phases). */
static GArray *
layer_results(const replay_t *R)
{
    guint n_layers = R->wl->layers != NULL ? R->wl->layers->len : 1;
    guint n_rows = n_layers * WEFT_N_PHASES;
    g_autofree weft_replay_layer_t *rows = g_new0(weft_replay_layer_t, n_rows);
    for (guint r = 0; r < R->wl->n_ranks; r++) {
        const rank_state_t *rs = &R->ranks[r];
        for (guint l = 0; l < rs->lmap->n_local; l++) {
            for (guint ph = 0; ph < WEFT_N_PHASES; ph++) {
                const weft_time_t *a = rs->lacc + ((gsize)l * WEFT_N_PHASES + ph) * LCOLS;
                weft_replay_layer_t *row = &rows[rs->lmap->layer_of[l] * WEFT_N_PHASES + ph];
                weft_time_t busy = a[LCOL_COMPUTE], all = a[LCOL_COMPUTE];
                row->compute_ps += a[LCOL_COMPUTE];
                for (guint k = 0; k < WEFT_PAR_N; k++) {
                    row->exposed_ps[k] += a[LCOL_EXPOSED + k];
                    row->overlapped_ps[k] += a[LCOL_OVERLAPPED + k];
                    busy += a[LCOL_EXPOSED + k];
                    all += a[LCOL_EXPOSED + k] + a[LCOL_OVERLAPPED + k];
                }
                if (all > 0) {
                    row->n_ranks++;
                    row->max_rank_ps = MAX(row->max_rank_ps, busy);
                }
            }
        }
    }
    GArray *out = g_array_new(FALSE, FALSE, sizeof(weft_replay_layer_t));
    for (guint i = 0; i < n_rows; i++) {
        rows[i].collectives = R->lcoll_n[i];
        rows[i].coll_time_ps = R->lcoll_ps[i];
        rows[i].busbw_bytes = R->lcoll_bus[i];
        if (rows[i].n_ranks > 0 || rows[i].collectives > 0) {
            rows[i].layer = (guint16)(i / WEFT_N_PHASES);
            rows[i].phase = (guint8)(i % WEFT_N_PHASES);
            g_array_append_val(out, rows[i]);
        }
    }
    return out;
}

/* The nodes' layer ids and phases index the per-layer accounting's arrays: TRUE if all of
 * them are in range. O(nodes of the ranks that own their arrays). */
static gboolean
layers_in_range(const weft_workload_t *wl)
{
    guint n_layers = wl->layers != NULL ? wl->layers->len : 1;
    for (guint r = 0; r < wl->n_ranks; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 0; !t->borrows_arrays && i < t->n_nodes; i++) {
            if ((t->layer != NULL && t->layer[i] >= n_layers) ||
                (t->phase != NULL && t->phase[i] >= WEFT_N_PHASES)) {
                return FALSE;
            }
        }
    }
    return TRUE;
}

static const char *const par_kind_names[WEFT_PAR_N] = {"tp", "dp", "pp", "ep", "cp", "other"};

const char *
weft_par_kind_name(weft_par_kind_t kind)
{
    return (guint)kind < WEFT_PAR_N ? par_kind_names[kind] : NULL;
}

weft_par_kind_t
weft_replay_par_kind_of_comm(const char *name)
{
    if (name == NULL) {
        return WEFT_PAR_OTHER;
    }
    static const struct {
        const char *token;
        weft_par_kind_t kind;
    } tokens[] = {{"tp", WEFT_PAR_TP},    {"tpx", WEFT_PAR_TP}, {"etp", WEFT_PAR_TP},
                  {"dp", WEFT_PAR_DP},    {"dpx", WEFT_PAR_DP}, {"edp", WEFT_PAR_DP},
                  {"dp_ep", WEFT_PAR_DP}, {"pp", WEFT_PAR_PP},  {"ep", WEFT_PAR_EP},
                  {"cp", WEFT_PAR_CP},    {"dpshard", WEFT_PAR_DP}, {"dprepl", WEFT_PAR_DP}},
      words[] = {{"tensor", WEFT_PAR_TP},
                 {"pipeline", WEFT_PAR_PP},
                 {"expert", WEFT_PAR_EP},
                 {"context", WEFT_PAR_CP},
                 {"data", WEFT_PAR_DP}};
    /* a job's communicators are "JOB/tp.0" (scenario/jobs.h): the kind is after the job */
    const char *slash = strrchr(name, '/');
    g_autofree char *low = g_ascii_strdown(slash != NULL ? slash + 1 : name, -1);
    char *dot = strchr(low, '.');
    gsize len = dot != NULL ? (gsize)(dot - low) : strlen(low);
    for (guint i = 0; i < G_N_ELEMENTS(tokens); i++) {
        if (strlen(tokens[i].token) == len && strncmp(low, tokens[i].token, len) == 0) {
            return tokens[i].kind;
        }
    }
    for (guint i = 0; i < G_N_ELEMENTS(words); i++) {
        if (strstr(low, words[i].token) != NULL) {
            return words[i].kind;
        }
    }
    return WEFT_PAR_OTHER;
}

weft_replay_result_t *
weft_replay_run(weft_sim_t *sim, weft_net_t *net, const weft_workload_t *wl,
                const weft_replay_options_t *opts, GError **error)
{
    g_return_val_if_fail(sim != NULL && net != NULL && wl != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    g_return_val_if_fail(layers_in_range(wl), NULL); /* weft_workload_check() refuses them */
    replay_t R = {0};
    R.sim = sim;
    R.net = net;
    R.topo = weft_net_topo(net);
    R.fabric = weft_net_fabric(net);
    R.wl = wl;
    R.rank_gpu = opts != NULL ? opts->rank_gpu : NULL;
    R.rank_start_ps = opts != NULL ? opts->rank_start_ps : NULL;
    R.compute_scale = opts != NULL && opts->compute_scale > 0 ? opts->compute_scale : 1.0;
    R.sm_contention = opts != NULL && opts->sm_contention;
    R.comm_streams = opts != NULL ? opts->comm_streams : WEFT_REPLAY_STREAMS_RANK;
    R.observer = opts != NULL ? opts->observer : NULL;
    if (opts != NULL && opts->planner != NULL) {
        R.planner = opts->planner;
    } else {
        weft_coll_planner_config_t pcfg = {0};
        if (opts != NULL) {
            pcfg.tuning = opts->coll_tuning; /* its chunks, not coll_chunks, apply */
            memcpy(pcfg.plain_algo, opts->plain_algo, sizeof pcfg.plain_algo);
            pcfg.chunks = opts->coll_chunks;
            pcfg.astra = opts->astra;
        }
        R.planner = weft_coll_planner_new(R.fabric, &pcfg);
        R.own_planner = TRUE;
    }
    g_return_val_if_fail(wl->n_ranks <= weft_topo_n_gpus(R.topo), NULL);

    R.comm_off = g_new0(guint32, wl->n_ranks + 1);
    guint64 n_members = 0;
    for (guint c = 0; c < wl->comms->len; c++) {
        const weft_comm_t *comm = g_ptr_array_index(wl->comms, c);
        for (guint m = 0; m < comm->n_ranks; m++) {
            R.comm_off[comm->ranks[m] + 1]++;
        }
        n_members += comm->n_ranks;
    }
    g_return_val_if_fail(n_members < G_MAXUINT32, NULL);
    for (guint r = 0; r < wl->n_ranks; r++) {
        R.comm_off[r + 1] += R.comm_off[r];
    }
    R.comm_of = g_malloc_n(MAX(n_members, 1), sizeof *R.comm_of);
    R.comm_seq = g_new0(guint32, MAX(n_members, 1));
    R.succs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, succ_free);
    R.links = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    R.own_links = g_ptr_array_new_with_free_func(g_free);
    {
        g_autofree guint32 *fill = g_memdup2(R.comm_off, sizeof(guint32) * wl->n_ranks);
        for (guint c = 0; c < wl->comms->len; c++) { /* ascending c: each rank's list sorted */
            const weft_comm_t *comm = g_ptr_array_index(wl->comms, c);
            for (guint m = 0; m < comm->n_ranks; m++) {
                guint32 k = fill[comm->ranks[m]]++;
                R.comm_of[k][0] = c;
                R.comm_of[k][1] = m;
            }
        }
    }
    R.p2p_waiting = g_hash_table_new_full(p2p_key_hash, p2p_key_equal, NULL, g_free);
    R.p2p_wait_pool = g_ptr_array_new_with_free_func(g_free);
    R.p2p = g_array_new(FALSE, FALSE, sizeof(p2p_t));
    R.p2p_free = g_array_new(FALSE, FALSE, sizeof(guint32));
    R.p2p_plans = g_hash_table_new_full(p2p_plan_key_hash, p2p_plan_key_equal, g_free,
                                        (GDestroyNotify)weft_coll_plan_free);
    R.finish_stack = g_array_new(FALSE, FALSE, sizeof(rank_node_t));
    R.comm_kind = g_new(guint8, MAX(wl->comms->len, 1u));
    for (guint c = 0; c < wl->comms->len; c++) {
        const weft_comm_t *comm = g_ptr_array_index(wl->comms, c);
        R.comm_kind[c] = (guint8)weft_replay_par_kind_of_comm(comm->name);
    }
    R.lmaps = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, layer_map_free);
    {
        gsize rows = (gsize)(wl->layers != NULL ? wl->layers->len : 1) * WEFT_N_PHASES;
        R.lcoll_n = g_new0(guint64, rows);
        R.lcoll_ps = g_new0(weft_time_t, rows);
        R.lcoll_bus = g_new0(double, rows);
    }
    R.ranks = g_new0(rank_state_t, wl->n_ranks);
    for (guint r = 0; r < wl->n_ranks; r++) {
        rank_init(&R, &R.ranks[r], r);
    }
    R.comm_state = g_new0(comm_state_t, MAX(wl->comms->len, 1u));
    for (guint c = 0; c < wl->comms->len; c++) {
        const weft_comm_t *comm = g_ptr_array_index(wl->comms, c);
        R.comm_state[c].vertices = g_new(gint, MAX(comm->n_ranks, 1u));
        for (guint m = 0; m < comm->n_ranks; m++) {
            R.comm_state[c].vertices[m] = R.ranks[comm->ranks[m]].vertex;
        }
        R.comm_state[c].plan_comm =
            weft_coll_planner_add_comm(R.planner, R.comm_state[c].vertices, comm->n_ranks);
    }

    guint64 n_nodes = 0;
    for (guint r = 0; r < wl->n_ranks; r++) {
        R.ranks_left += R.ranks[r].trace->n_nodes > 0;
        n_nodes += R.ranks[r].trace->n_nodes;
    }
    weft_sim_set_work_total(sim, n_nodes);
    if (opts != NULL && opts->faults != NULL && R.ranks_left > 0) {
        R.faults = weft_fault_run_arm(opts->faults, sim, net);
    }

    if (opts != NULL &&
        (opts->collective_detail == WEFT_REPLAY_DETAIL_AUTO ||
         opts->collective_detail == WEFT_REPLAY_DETAIL_COARSE) &&
        R.faults == NULL &&
        weft_net_in_flight(net) == 0) {
        R.detail_auto = TRUE;
        R.coarse = opts->collective_detail == WEFT_REPLAY_DETAIL_COARSE &&
                   weft_net_model(net) == WEFT_NET_FLOW;
        R.detail_banned = opts->detail_banned;
        g_autoptr(GBytes) off = g_bytes_new_static(BAN_OFF_NVLINK, 1);
        R.off_nvlink_banned =
            R.detail_banned != NULL && g_hash_table_contains(R.detail_banned, off);
        R.memos = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
                                        (GDestroyNotify)g_bytes_unref, memo_free);
        R.comm_memos = g_hash_table_new_full(comm_plan_hash, comm_plan_equal, g_free,
                                             comm_memo_free);
        R.edge_holder = g_new0(coll_inst_t *, MAX(weft_topo_n_edges(R.topo), 1u));
        /* Under flow a collective's timing depends on what shares its links: the guard
         * proves it alone. Analytical timing never does (see above), but an implicit plan
         * (too many transfers to keep its link phases) needs its links to itself for their
         * statistics: the guard proves that too. */
        weft_net_enable_guard(net, on_detail_conflict, &R);
        weft_net_set_pair_conflict(net, on_pair_conflict, &R);
    }
    g_debug("replay of %s starts: %u ranks, %u communicators, collectives %s, detail %s%s",
            wl->source, wl->n_ranks, wl->comms->len,
            opts != NULL && opts->coll_tuning != NULL ? "tuned by NCCL's model"
                                      : "plain (collectives.tuning = off)",
            R.coarse        ? "coarse"
            : R.detail_auto ? "auto"
                            : "transfers",
            R.faults != NULL ? ", with faults" : "");
    guint64 events_before = weft_sim_events(sim);
    if (R.faults != NULL) {
        /* Faults of an instant apply before anything else at it (fault/step.h), time 0
         * included. Their events were queued first, so a release queued now runs after
         * those due at 0: the first transfers see the cluster as the faults left it
         * (under analytical, a transfer's rate is fixed when it starts). Without faults
         * the release runs here, and the run has no extra event. */
        weft_sim_at(sim, weft_sim_now(sim), release_first_nodes, &R, NULL);
    } else {
        release_first_nodes(&R, NULL);
    }
    if (R.error == NULL) {
        weft_sim_run(sim);
    }
    /* the timed collectives' link phases, before anyone reads the links (and before their
     * memos go with this replay) */
    weft_net_settle(net);
    if (R.conflict != NULL) {
        /* what ran after the first conflict is not exact: only the shapes it named count */
        g_clear_error(&R.error);
        R.error = g_steal_pointer(&R.conflict);
    }
    if (R.error == NULL) {
        R.error = fault_report(&R);
    }
    if (R.error != NULL) {
        g_propagate_error(error, g_steal_pointer(&R.error));
        replay_clear(&R);
        return NULL;
    }
    for (guint r = 0; r < wl->n_ranks; r++) {
        if (R.ranks[r].nodes_done < R.ranks[r].trace->n_nodes &&
            weft_sim_now(R.sim) == WEFT_TIME_MAX) {
            /* not a deadlock: the clock saturated (core/time.h) with work still under way */
            g_set_error(error, WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_OVERFLOW,
                        "%s: rank %u would finish after %.0f days of simulated time, more than "
                        "weft's picosecond clock holds (about 106 days): check durations, sizes "
                        "and link bandwidths",
                        R.ranks[r].trace->file, r, weft_time_to_s(WEFT_TIME_MAX) / 86400.0);
            replay_clear(&R);
            return NULL;
        }
        if (R.ranks[r].nodes_done < R.ranks[r].trace->n_nodes) {
            g_propagate_error(error, deadlock_report(&R));
            replay_clear(&R);
            return NULL;
        }
    }

    weft_replay_result_t *res = g_new0(weft_replay_result_t, 1);
    res->n_ranks = wl->n_ranks;
    res->ranks = g_new0(weft_rank_result_t, wl->n_ranks);
    for (guint r = 0; r < wl->n_ranks; r++) {
        rank_state_t *rs = &R.ranks[r];
        /* close the accounting at the rank's own finish time */
        weft_time_t dt = rs->res.finish_ps - rs->last_change;
        g_assert(dt >= 0 && rs->compute_busy == 0 && rs->comm_busy == 0);
        rs->res.idle_ps += dt;
        rs->res.nodes_done = rs->nodes_done;
        res->ranks[r] = rs->res;
        res->step_ps = MAX(res->step_ps, rs->res.finish_ps);
    }
    res->layers = layer_results(&R);
    res->events = weft_sim_events(sim) - events_before;
    res->timed_collectives = R.timed_colls;
    res->coarse_collectives = R.coarse_colls;
    res->collectives = R.collectives;
    res->p2p_transfers = R.p2p_count;
    res->mem_known = wl->resident != NULL;
    res->faults_applied = g_ptr_array_new_with_free_func(g_free);
    if (R.faults != NULL) {
        const GPtrArray *applied = weft_fault_run_applied(R.faults);
        for (guint i = 0; i < applied->len; i++) {
            g_ptr_array_add(res->faults_applied, g_strdup(g_ptr_array_index(applied, i)));
        }
    }
    g_debug("replay of %s done: step %.6f ms, %" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT
            " collectives (%" G_GUINT64_FORMAT " timed, %" G_GUINT64_FORMAT
            " coarse), %" G_GUINT64_FORMAT " send/recv pairs",
            wl->source, weft_time_to_us(res->step_ps) / 1e3, res->events, res->collectives,
            res->timed_collectives, res->coarse_collectives, res->p2p_transfers);
    replay_clear(&R);
    return res;
}

void
weft_replay_result_free(weft_replay_result_t *res)
{
    if (res == NULL) {
        return;
    }
    g_free(res->ranks);
    if (res->layers != NULL) {
        g_array_unref(res->layers);
    }
    if (res->faults_applied != NULL) {
        g_ptr_array_unref(res->faults_applied);
    }
    g_free(res);
}
