/* SPDX-License-Identifier: MIT */
/*
 * ASTRA-sim's multi-dimensional collectives (coll/astra_system.h, "Multi-dimensional
 * networks"): the phases of one stream, the order in which the dimensions' queues admit
 * the streams, and the plan that composes every stream's phases over the dimension groups
 * of the network, with the dependencies that order.
 */
#define G_LOG_DOMAIN "weft-coll"

#include "coll/astra_system.h"

#include <string.h>

#include "core/sim.h"

/* weft's algorithm for @impl running @op (astra_system.h; all-to-all runs direct). */
static weft_coll_algo_t
impl_algo(weft_astra_impl_t impl, weft_coll_op_t op)
{
    if (op == WEFT_COLL_ALL_TO_ALL) {
        return WEFT_COLL_ALGO_DIRECT; /* warned at load when the file asks for another */
    }
    switch (impl) {
    case WEFT_ASTRA_IMPL_RING:
    case WEFT_ASTRA_IMPL_ONE_RING:
        return WEFT_COLL_ALGO_RING;
    case WEFT_ASTRA_IMPL_DIRECT:
    case WEFT_ASTRA_IMPL_ONE_DIRECT:
        return WEFT_COLL_ALGO_DIRECT;
    case WEFT_ASTRA_IMPL_HALVING_DOUBLING:
    case WEFT_ASTRA_IMPL_ONE_HALVING_DOUBLING:
        return WEFT_COLL_ALGO_HALVING_DOUBLING;
    case WEFT_ASTRA_IMPL_DOUBLE_BINARY_TREE:
        return WEFT_COLL_ALGO_TREE;
    default:
        g_assert_not_reached();
    }
}

/* Appends one phase of @op on dimension @d of @size bytes; returns the phase's final
 * data size (Ring.cc's final_data_size: all-reduce and all-to-all keep it,
 * reduce-scatter divides it by n_d, truncating, all-gather multiplies it by n_d). */
static guint64
add_phase(GArray *out, const weft_astra_system_t *sys, weft_astra_op_t aop, weft_coll_op_t op,
          guint d, guint n_d, guint64 size)
{
    weft_astra_phase_t ph = {.op = op,
                             .dim = d,
                             .n_d = n_d,
                             .algo = impl_algo(sys->impl[aop][d].impl, op),
                             .bytes = size,
                             .queue = d};
    g_array_append_val(out, ph);
    switch (op) {
    case WEFT_COLL_REDUCE_SCATTER:
        return size / n_d;
    case WEFT_COLL_ALL_GATHER:
        return size * n_d;
    default:
        return size;
    }
}

GArray *
weft_astra_system_stream_phases(const weft_astra_system_t *sys, weft_coll_op_t op,
                                guint64 chunk_bytes, const guint *dims, guint n_dims,
                                guint16 involved_dim, GError **error)
{
    g_return_val_if_fail(sys != NULL && (dims != NULL || n_dims == 0), NULL);
    weft_astra_op_t aop;
    if (!weft_astra_op_of(op, &aop) || sys->custom[aop] != NULL || sys->n_dims[aop] == 0) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s: no native implementation of %s", sys->path, weft_coll_op_name(op));
        return NULL;
    }
    if (sys->n_dims[aop] < n_dims) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s: key \"%s-implementation\" lists %u implementations but the network "
                    "has %u dimensions (ASTRA-sim needs one per dimension)",
                    sys->path, weft_astra_op_key(aop), sys->n_dims[aop], n_dims);
        return NULL;
    }
    guint entries = involved_dim >> 8;
    if (involved_dim != 0 && entries < n_dims) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s: the collective's involved_dim lists %u dimensions but the network "
                    "has %u (ASTRA-sim would read past the list)",
                    sys->path, entries, n_dims);
        return NULL;
    }
    /* a dimension takes part when it has more than one NPU and involved_dim (absent: all)
     * includes it (Sys.cc generate_collective()) */
    g_autofree gboolean *act = g_new0(gboolean, MAX(n_dims, 1));
    for (guint d = 0; d < n_dims; d++) {
        act[d] = dims[d] > 1 && (involved_dim == 0 || (involved_dim & (1u << d)) != 0);
    }
    GArray *out = g_array_new(FALSE, FALSE, sizeof(weft_astra_phase_t));
    guint64 size = chunk_bytes;
    if (op != WEFT_COLL_ALL_REDUCE || sys->collective_optimization == WEFT_ASTRA_OPT_BASELINE) {
        /* the operation on each dimension in turn; all-gather from the last (Sys.cc
         * generate_collective() reverses dim_mapper); dimensions of one NPU skipped */
        weft_coll_op_t pop = op == WEFT_COLL_REDUCE_SCATTER_BLOCK ? WEFT_COLL_REDUCE_SCATTER : op;
        for (guint i = 0; i < n_dims; i++) {
            guint d = op == WEFT_COLL_ALL_GATHER ? n_dims - 1 - i : i;
            if (act[d]) {
                size = add_phase(out, sys, aop, pop, d, dims[d], size);
            }
        }
        return out;
    }
    /* localBWAware all-reduce: reduce-scatter up to the last active dimension L,
     * all-reduce on L, all-gather back down */
    guint last = G_MAXUINT;
    for (guint d = 0; d < n_dims; d++) {
        if (act[d]) {
            last = d;
        }
    }
    if (last == G_MAXUINT) {
        return out;
    }
    for (guint d = 0; d < last; d++) {
        if (act[d]) {
            size = add_phase(out, sys, aop, WEFT_COLL_REDUCE_SCATTER, d, dims[d], size);
        }
    }
    size = add_phase(out, sys, aop, WEFT_COLL_ALL_REDUCE, last, dims[last], size);
    for (guint d = last; d-- > 0;) {
        if (act[d]) {
            size = add_phase(out, sys, aop, WEFT_COLL_ALL_GATHER, d, dims[d], size);
        }
    }
    return out;
}

/* An end of a phase in the queue simulation: (time, sequence) ordered. */
typedef struct {
    weft_time_t at;
    guint seq;
    guint sp; /* stream x n_phases + phase */
} sched_end_t;

static gint
end_cmp(gconstpointer a, gconstpointer b)
{
    const sched_end_t *x = a, *y = b;
    if (x->at != y->at) {
        return x->at < y->at ? -1 : 1;
    }
    return x->seq < y->seq ? -1 : (x->seq > y->seq ? 1 : 0);
}

typedef struct {
    guint n_phases;
    const weft_time_t *dur_ps;
    guint active;
    GQueue *waiting; /* per queue: stream-phase indices, FIFO */
    guint *running;  /* per queue */
    GArray *ends;    /* of sched_end_t, kept sorted */
    guint seq;
    guint *order;
    guint n_order;
    gint *slot_pred;
    weft_time_t *start_ps;
} sched_t;

static void
sched_start(sched_t *S, guint q, weft_time_t now, gint pred)
{
    while (S->running[q] < S->active && !g_queue_is_empty(&S->waiting[q])) {
        guint sp = GPOINTER_TO_UINT(g_queue_pop_head(&S->waiting[q]));
        S->running[q]++;
        S->order[S->n_order++] = sp;
        S->slot_pred[sp] = pred;
        pred = -1; /* a removal frees one slot */
        if (S->start_ps != NULL) {
            S->start_ps[sp] = now;
        }
        sched_end_t e = {.at = now + S->dur_ps[sp % S->n_phases], .seq = S->seq++, .sp = sp};
        guint at = S->ends->len;
        while (at > 0 && end_cmp(&g_array_index(S->ends, sched_end_t, at - 1), &e) > 0) {
            at--;
        }
        g_array_insert_val(S->ends, at, e);
    }
}

void
weft_astra_system_schedule(guint n_streams, guint n_phases, const guint *queue, guint n_queues,
                           const weft_time_t *dur_ps, guint active, guint *order, gint *slot_pred,
                           weft_time_t *start_ps)
{
    g_return_if_fail(queue != NULL && dur_ps != NULL && order != NULL && slot_pred != NULL);
    g_return_if_fail(active >= 1);
    sched_t S = {.n_phases = n_phases,
                 .dur_ps = dur_ps,
                 .active = active,
                 .waiting = g_new0(GQueue, n_queues),
                 .running = g_new0(guint, n_queues),
                 .ends = g_array_new(FALSE, FALSE, sizeof(sched_end_t)),
                 .order = order,
                 .slot_pred = slot_pred,
                 .start_ps = start_ps};
    if (n_phases > 0) {
        /* Sys.cc generate_collective(): each stream in turn enters the ready list and is
         * scheduled at once into its first phase's queue (notify_stream_added) */
        for (guint s = 0; s < n_streams; s++) {
            g_queue_push_tail(&S.waiting[queue[0]], GUINT_TO_POINTER(s * n_phases));
            sched_start(&S, queue[0], 0, -1);
        }
    }
    while (S.ends->len > 0) {
        sched_end_t e = g_array_index(S.ends, sched_end_t, 0);
        g_array_remove_index(S.ends, 0);
        guint p = e.sp % n_phases, q = queue[p];
        /* proceed_to_next_vnet_baseline(): the stream joins its next queue behind the
         * streams waiting there (one collective's streams share one priority), then the
         * queue it left admits its next stream (notify_stream_removed), then the new queue
         * admits while it has room (notify_stream_added) */
        S.running[q]--;
        if (p + 1 < n_phases) {
            g_queue_push_tail(&S.waiting[queue[p + 1]], GUINT_TO_POINTER(e.sp + 1));
        }
        sched_start(&S, q, e.at, (gint)e.sp);
        if (p + 1 < n_phases) {
            sched_start(&S, queue[p + 1], e.at, -1);
        }
    }
    g_assert(S.n_order == n_streams * n_phases);
    for (guint q = 0; q < n_queues; q++) {
        g_queue_clear(&S.waiting[q]);
    }
    g_free(S.waiting);
    g_free(S.running);
    g_array_unref(S.ends);
}

/* The members of group @g of a dimension with @n_d NPUs and stride @stride (the product
 * of the lower dimensions' NPU counts): the ranks that differ only in that coordinate. */
static void
group_members(guint g, guint n_d, guint stride, guint *out)
{
    guint base = (g / stride) * stride * n_d + g % stride;
    for (guint i = 0; i < n_d; i++) {
        out[i] = base + i * stride;
    }
}

typedef struct {
    guint32 pred, succ;
    guint8 kind;
} dep_t;

/* Moves @xf (consumed) into @plan and packs @deps (every pred < succ) as its successor
 * lists (coll.h's CSR). */
static void
pack_plan(weft_coll_plan_t *plan, GArray *xf, const GArray *deps)
{
    guint N = xf->len, nd = deps->len;
    plan->n_xfers = N;
    plan->n_preds = g_new0(guint32, MAX(N, 1));
    plan->succ_off = g_new0(guint32, N + 1);
    plan->succ = g_new(guint32, MAX(nd, 1));
    plan->succ_kind = g_new(guint8, MAX(nd, 1));
    const dep_t *dd = (const dep_t *)(void *)deps->data;
    for (guint e = 0; e < nd; e++) {
        g_assert(dd[e].pred < dd[e].succ);
        plan->n_preds[dd[e].succ]++;
        plan->succ_off[dd[e].pred + 1]++;
    }
    for (guint i = 0; i < N; i++) {
        plan->succ_off[i + 1] += plan->succ_off[i];
    }
    g_autofree guint32 *at = g_memdup2(plan->succ_off, sizeof(guint32) * (N + 1));
    for (guint e = 0; e < nd; e++) {
        guint32 k = at[dd[e].pred]++;
        plan->succ[k] = dd[e].succ;
        plan->succ_kind[k] = dd[e].kind;
    }
    plan->moved_bytes = 0;
    for (guint i = 0; i < N; i++) {
        const weft_coll_xfer_t *x = &g_array_index(xf, weft_coll_xfer_t, i);
        plan->moved_bytes += (x->flags & WEFT_COLL_XFER_COPY) ? 0 : x->bytes;
    }
    plan->xfers = (weft_coll_xfer_t *)(void *)g_array_free(xf, FALSE);
}

weft_coll_plan_t *
weft_astra_hd_plan(weft_coll_op_t op, guint n, guint64 size_bytes, guint channels,
                   const weft_coll_exec_t *exec)
{
    g_return_val_if_fail(n >= 2 && (n & (n - 1)) == 0 && channels >= 1, NULL);
    g_return_val_if_fail(op == WEFT_COLL_ALL_REDUCE || op == WEFT_COLL_REDUCE_SCATTER ||
                             op == WEFT_COLL_ALL_GATHER,
                         NULL);
    guint lg = 0;
    while ((1u << lg) < n) {
        lg++;
    }
    /* the steps: (partner offset, message bytes, reduced before it is sent) per
     * HalvingDoubling.cc: reduce-scatter offsets 1, 2, ..., n/2 with messages c/2, c/4, ...
     * (each halved, truncating); all-reduce that, then offsets n/2, ..., 1 with the
     * messages doubling back from c/n; all-gather offsets n/2, ..., 1 with messages c, 2c,
     * 4c, .... insert_packet() builds each message when the previous one arrives, in
     * groups of one zero-latency packet and log2(n) - 1 others, toggling `toggle` at each
     * group: the reduce-scatter's messages 2 .. log2(n) are the group's others, built
     * `processed` (PacketBundle::call() charges the reduction, on the message being
     * sent, before it goes); the first message and the all-gather's are not, and nor is
     * the last reduce-scatter receive (the next group's zero-latency packet, or the
     * stream's end). */
    guint n_steps = op == WEFT_COLL_ALL_REDUCE ? 2 * lg : lg;
    g_autofree guint *off = g_new(guint, n_steps);
    g_autofree guint64 *msg = g_new(guint64, n_steps);
    g_autofree gboolean *red = g_new(gboolean, n_steps);
    guint64 cb = size_bytes / channels; /* each channel one stream of c */
    guint k = 0;
    if (op != WEFT_COLL_ALL_GATHER) {
        guint64 m = cb;
        for (guint j = 0; j < lg; j++, k++) {
            m /= 2;
            off[k] = 1u << j;
            msg[k] = m;
            red[k] = j > 0;
        }
        for (guint j = 0; op == WEFT_COLL_ALL_REDUCE && j < lg; j++, k++) {
            off[k] = n >> (j + 1);
            msg[k] = m;
            red[k] = FALSE;
            m *= 2;
        }
    } else {
        guint64 m = cb;
        for (guint j = 0; j < lg; j++, k++) {
            off[k] = n >> (j + 1);
            msg[k] = m;
            red[k] = FALSE;
            m *= 2;
        }
    }
    weft_coll_plan_t *plan = g_new0(weft_coll_plan_t, 1);
    plan->op = op;
    plan->algo = WEFT_COLL_ALGO_HALVING_DOUBLING;
    plan->proto = WEFT_COLL_PROTO_SIMPLE;
    plan->n_members = n;
    plan->size_bytes = size_bytes;
    plan->space_bytes = op == WEFT_COLL_ALL_GATHER ? size_bytes * n : size_bytes;
    plan->channels = channels;
    plan->chunks = 1;
    plan->exec.efficiency = 1.0;
    double bw = exec != NULL ? exec->hbm_Bps : 0.0;
    GArray *xf = g_array_new(FALSE, FALSE, sizeof(weft_coll_xfer_t));
    g_autoptr(GArray) deps = g_array_new(FALSE, FALSE, sizeof(dep_t));
    /* per (ch, step, member i): member i's reduction (a local delay, when charged), then
     * its send to i ^ off, after its receive of the previous step (from i ^ off_prev) */
    g_autofree guint32 *send_at = g_new(guint32, (gsize)channels * n_steps * n);
    for (guint ch = 0; ch < channels; ch++) {
        for (guint st = 0; st < n_steps; st++) {
            weft_time_t red_ps = 0;
            if (red[st] && bw > 0.0) {
                /* PacketBundle::call(): three passes of (uint64_t)(bytes / bw * 1e9) ns */
                red_ps = exec->reduce_trunc_ns
                             ? weft_time_from_ps(3.0 * floor((double)msg[st] / bw * 1e9) *
                                                 WEFT_PS_PER_NS)
                             : weft_time_for_bytes(3 * msg[st], bw);
            }
            for (guint i = 0; i < n; i++) {
                guint32 prev = st > 0 ? send_at[(ch * n_steps + st - 1) * n + (i ^ off[st - 1])]
                                      : G_MAXUINT32;
                if (red[st] && bw > 0.0) {
                    weft_coll_xfer_t r = {.src = i,
                                          .dst = i,
                                          .bytes = (guint64)red_ps,
                                          .channel = (guint16)ch,
                                          .sharing = 1,
                                          .flags = WEFT_COLL_XFER_COPY | WEFT_COLL_XFER_DELAY};
                    guint32 t = xf->len;
                    g_array_append_val(xf, r);
                    dep_t d = {prev, t, WEFT_COLL_DEP_DATA};
                    g_array_append_val(deps, d);
                    prev = t;
                }
                weft_coll_xfer_t x = {.src = i,
                                      .dst = i ^ off[st],
                                      .bytes = msg[st],
                                      .channel = (guint16)ch,
                                      .sharing = (guint16)channels, /* as weft_coll_plan_build() */
                                      .flags = WEFT_COLL_XFER_INTER};
                guint32 t = xf->len;
                g_array_append_val(xf, x);
                send_at[(ch * n_steps + st) * n + i] = t;
                if (prev != G_MAXUINT32) {
                    dep_t d = {prev, t, WEFT_COLL_DEP_DATA};
                    g_array_append_val(deps, d);
                }
            }
        }
    }
    pack_plan(plan, xf, deps);
    return plan;
}

weft_coll_plan_t *
weft_astra_system_plan_phases(const weft_astra_system_t *sys, weft_fabric_t *fabric,
                              const gint *member_vertex, weft_coll_op_t op, guint n_members,
                              guint64 size_bytes, const guint *dims, guint n_dims,
                              guint16 involved_dim, GError **error)
{
    g_return_val_if_fail(sys != NULL && fabric != NULL && member_vertex != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    weft_coll_exec_t exec = {0};
    weft_coll_algo_t algo0;
    guint channels;
    guint64 bytes;
    /* the 1-D costs: chunk size, endpoint delay, reduction charge, truncation */
    if (!weft_astra_system_plan(sys, op, n_members, size_bytes, &algo0, &channels, &bytes, &exec,
                                error)) {
        return NULL;
    }
    guint64 c = bytes / MAX(channels, 1);
    guint K = sys->dataset_splits;
    g_autoptr(GArray) phases =
        weft_astra_system_stream_phases(sys, op, c, dims, n_dims, involved_dim, error);
    if (phases == NULL) {
        return NULL;
    }
    guint P = phases->len;
    if (P == 0) {
        /* no involved dimension has more than one NPU: ASTRA-sim generates no stream and
         * the collective is done at once (Sys.cc: dataset->active = false) */
        weft_coll_plan_t *empty = g_new0(weft_coll_plan_t, 1);
        empty->op = op;
        empty->algo = algo0;
        empty->proto = WEFT_COLL_PROTO_SIMPLE;
        empty->n_members = n_members;
        empty->size_bytes = size_bytes;
        empty->channels = 1;
        empty->chunks = 1;
        empty->exec.efficiency = 1.0;
        empty->n_preds = g_new0(guint32, 1);
        empty->succ_off = g_new0(guint32, 1);
        empty->succ = g_new0(guint32, 1);
        empty->succ_kind = g_new0(guint8, 1);
        empty->xfers = g_new0(weft_coll_xfer_t, 1);
        return empty;
    }
    const weft_astra_phase_t *ph = (const weft_astra_phase_t *)(void *)phases->data;
    weft_time_t d = exec.base_ps;
    weft_coll_exec_t phase_exec = exec;
    phase_exec.waves = 1;

    /* each phase's plan over one group, and its time alone (base d: its opening endpoint
     * delay), on the cluster's group 0 of the dimension */
    g_autoptr(GPtrArray) sub = g_ptr_array_new_with_free_func((GDestroyNotify)weft_coll_plan_free);
    g_autofree weft_time_t *dur = g_new0(weft_time_t, MAX(P, 1));
    g_autofree guint *queue = g_new0(guint, MAX(P, 1));
    g_autofree guint *stride = g_new0(guint, n_dims);
    for (guint e = 0, s = 1; e < n_dims; e++) {
        stride[e] = s;
        s *= dims[e];
    }
    weft_sim_t *sim = weft_sim_new(0);
    weft_net_t *net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    gboolean ok = TRUE;
    for (guint p = 0; p < P && ok; p++) {
        weft_coll_config_t cfg = {.algo = ph[p].algo,
                                  .proto = WEFT_COLL_PROTO_SIMPLE,
                                  .channels = 1,
                                  .chunks = 1,
                                  .implicit_xfers = G_MAXUINT64};
        g_autoptr(weft_coll_layout_t) flat = weft_coll_layout_new_flat(ph[p].n_d);
        weft_coll_plan_t *sp = ph[p].algo == WEFT_COLL_ALGO_HALVING_DOUBLING &&
                                       ph[p].op != WEFT_COLL_ALL_TO_ALL &&
                                       (ph[p].n_d & (ph[p].n_d - 1)) == 0
                                   ? weft_astra_hd_plan(ph[p].op, ph[p].n_d, ph[p].bytes, 1,
                                                        &phase_exec)
                                   : weft_coll_plan_build(ph[p].op, &cfg, flat, ph[p].bytes, error);
        if (sp == NULL) {
            g_prefix_error(error, "%s: dimension %u: ", sys->path, ph[p].dim);
            ok = FALSE;
            break;
        }
        g_ptr_array_add(sub, sp);
        g_autofree guint *gm = g_new(guint, ph[p].n_d);
        g_autofree gint *gv = g_new(gint, ph[p].n_d);
        group_members(0, ph[p].n_d, stride[ph[p].dim], gm);
        for (guint i = 0; i < ph[p].n_d; i++) {
            gv[i] = member_vertex[gm[i]];
        }
        dur[p] = weft_coll_time_full(sim, net, sp, gv, &phase_exec, error);
        ok = dur[p] >= 0;
        queue[p] = ph[p].queue;
        g_debug("ASTRA-sim phase %u: %s (%s) of %" G_GUINT64_FORMAT " B on dimension %u (%u NPUs): "
                "%" G_GINT64_FORMAT " ps alone",
                p, weft_coll_op_name(ph[p].op), weft_coll_algo_name(ph[p].algo), ph[p].bytes,
                ph[p].dim, ph[p].n_d, (gint64)dur[p]);
    }
    weft_net_free(net);
    weft_sim_free(sim);
    if (!ok) {
        return NULL;
    }

    /* the order in which the dimensions' queues admit the K streams' phases */
    guint KP = K * P;
    g_autofree guint *order = g_new(guint, MAX(KP, 1));
    g_autofree gint *slot_pred = g_new(gint, MAX(KP, 1));
    weft_astra_system_schedule(K, P, queue, n_dims, dur, MAX(sys->active_chunks, 1), order,
                               slot_pred, NULL);

    /* count, then emit in admission order (every predecessor is admitted earlier) */
    guint64 total = 0;
    for (guint p = 0; p < P; p++) {
        const weft_coll_plan_t *sp = g_ptr_array_index(sub, p);
        total += (guint64)K * (n_members + (guint64)(n_members / ph[p].n_d) * sp->n_xfers);
    }
    if (total >= G_MAXINT32 || KP == 0 || K > G_MAXUINT16) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s: %u dataset splits of %s over %u NPUs need %" G_GUINT64_FORMAT
                    " transfers, more than a plan may hold",
                    sys->path, K, weft_coll_op_name(op), n_members, total);
        return NULL;
    }
    g_autoptr(GArray) xf = g_array_sized_new(FALSE, FALSE, sizeof(weft_coll_xfer_t), (guint)total);
    g_autoptr(GArray) deps = g_array_new(FALSE, FALSE, sizeof(dep_t));
    /* per (stream, phase): its transfers' first index (the n delays come first, member m's
     * at first + m) and count */
    g_autofree guint32 *first = g_new0(guint32, KP);
    g_autofree guint32 *count = g_new0(guint32, KP);
    g_autofree guint *gm = g_new(guint, n_members);
    g_autofree guint32 *remap = NULL;
    for (guint o = 0; o < KP; o++) {
        guint sp_i = order[o], s = sp_i / P, p = sp_i % P;
        const weft_coll_plan_t *sp = g_ptr_array_index(sub, p);
        guint n_d = ph[p].n_d, groups = n_members / n_d;
        first[sp_i] = xf->len;
        /* each member opens the phase with its endpoint delay (StreamInit's first
         * PacketBundle), once the stream's previous phase and the stream that held the
         * queue's slot before it have ended on it: every transfer of theirs into it */
        for (guint m = 0; m < n_members; m++) {
            weft_coll_xfer_t x = {.src = m,
                                  .dst = m,
                                  .bytes = (guint64)d,
                                  .channel = (guint16)s,
                                  .sharing = 1,
                                  .flags = WEFT_COLL_XFER_COPY | WEFT_COLL_XFER_DELAY};
            g_array_append_val(xf, x);
        }
        gint preds[2] = {p > 0 ? (gint)(sp_i - 1) : -1, slot_pred[sp_i]};
        for (guint k = 0; k < 2; k++) {
            if (preds[k] < 0) {
                continue;
            }
            guint32 f = first[preds[k]], e = f + count[preds[k]];
            for (guint32 t = f + n_members; t < e; t++) {
                const weft_coll_xfer_t *x = &g_array_index(xf, weft_coll_xfer_t, t);
                dep_t dd = {t, first[sp_i] + x->dst, WEFT_COLL_DEP_DATA};
                g_array_append_val(deps, dd);
            }
        }
        /* the phase's plan over every group of its dimension */
        g_free(remap);
        remap = g_new(guint32, MAX(sp->n_xfers, 1));
        for (guint g = 0; g < groups; g++) {
            group_members(g, n_d, stride[ph[p].dim], gm);
            for (guint t = 0; t < sp->n_xfers; t++) {
                weft_coll_xfer_t x = sp->xfers[t];
                x.src = gm[x.src];
                x.dst = gm[x.dst];
                x.channel = (guint16)s;
                x.sharing = 1; /* congestion-unaware: ASTRA-sim's streams do not meet */
                remap[t] = xf->len;
                g_array_append_val(xf, x);
                if (sp->n_preds[t] == 0) {
                    dep_t dd = {first[sp_i] + x.src, remap[t], WEFT_COLL_DEP_DATA};
                    g_array_append_val(deps, dd);
                }
            }
            for (guint t = 0; t < sp->n_xfers; t++) {
                for (guint32 j = sp->succ_off[t]; j < sp->succ_off[t + 1]; j++) {
                    dep_t dd = {remap[t], remap[sp->succ[j]], sp->succ_kind[j]};
                    g_array_append_val(deps, dd);
                }
            }
        }
        count[sp_i] = xf->len - first[sp_i];
    }

    weft_coll_plan_t *plan = g_new0(weft_coll_plan_t, 1);
    const weft_coll_plan_t *s0 = g_ptr_array_index(sub, 0);
    plan->op = op;
    plan->algo = ph[0].algo;
    plan->proto = WEFT_COLL_PROTO_SIMPLE;
    plan->n_members = n_members;
    plan->size_bytes = size_bytes;
    plan->space_bytes = op == WEFT_COLL_ALL_GATHER || op == WEFT_COLL_ALL_TO_ALL
                            ? size_bytes * n_members
                            : size_bytes;
    plan->channels = K;
    plan->chunks = 1;
    plan->exec = s0->exec;
    plan->exec.base_ps = 0; /* each phase's delays open it */
    plan->exec.step_intra_ps = exec.step_intra_ps;
    plan->exec.step_inter_ps = exec.step_inter_ps;
    plan->exec.hbm_Bps = exec.hbm_Bps;
    plan->exec.reduce_trunc_ns = exec.reduce_trunc_ns;
    plan->exec.net_trunc_ns = exec.net_trunc_ns;
    plan->exec.waves = 1;
    pack_plan(plan, g_steal_pointer(&xf), deps);
    g_debug("plan %s over %u NPUs: ASTRA-sim system %s: %u phases per stream, %u streams, "
            "%u admitted per dimension",
            weft_coll_op_name(op), n_members, sys->path, P, K, sys->active_chunks);
    return plan;
}
