/* SPDX-License-Identifier: MIT */
/*
 * Executing a collective plan on the network. The executor keeps, per
 * transfer, how many predecessors are still unmet. After the plan's base
 * latency it starts the roots; a transfer's sent callback (its last byte left
 * the source) releases its link successors, its delivery plus the post-delay
 * (per-step latency, and the receiver's reduction through HBM) releases its
 * data successors; a transfer starts when its count drops to zero; a local copy
 * (WEFT_COLL_XFER_COPY) is a timer of its HBM time, then both. When every
 * transfer's post-delay has passed, the collective's completion callback runs.
 * It knows nothing about the network model beyond one rule: under the
 * analytical model a transfer's efficiency is divided by the channels sharing
 * its pair (coll.h), since that model does not share links. With a per-message
 * cost (exec.msg_ps), a member's transfers across domains start one after
 * another, each holding the member's network path for msg_ps per msg_bytes it
 * carries (coll.h, weft_coll_exec_t).
 */
#define G_LOG_DOMAIN "weft-coll"

#include "coll/coll.h"

#include <math.h>
#include <string.h>

#include "coll/coll_private.h"

struct weft_coll_run {
    weft_net_t *net;
    const weft_coll_plan_t *plan;
    weft_coll_exec_t exec;
    gint *vertex;              /* cluster vertex of every endpoint (members, then virtual) */
    guint32 *waiting;          /* per transfer: predecessors not yet met */
    weft_event_handle_t *post; /* per transfer: its pending post-delay or deferred start, 0 if
                                  none (a transfer has at most one of them at a time) */
    weft_time_t *t_sent;       /* exec.net_trunc_ns: per transfer, when the network took it */
    weft_time_t *nic_free;     /* per member: when its network path takes the next message */
    weft_time_t t_roots;       /* when the roots could start (after the base latency) */
    guint32 n_done;            /* transfers whose data successors were released */
    gboolean analytical;
    /* analytical: per source endpoint, the last destination whose route rate it looked up
     * (-1: none), that rate (NAN: no route) and the link version it holds for; a ring's
     * endpoint sends to one peer on every channel and step, so one entry serves them all */
    gint32 *rate_dst;
    double *rate_Bps;
    guint64 rate_version;
    weft_coll_done_fn done;
    void *ctx;
    guint64 tag;
    weft_event_handle_t start_event; /* the base latency, or the completion of an empty plan */
    guint wave;                      /* runs of the plan finished (exec.waves) */
    gboolean finished;
};

static void on_xfer_sent(void *ctx, guint64 tag);
static void on_xfer_done(void *ctx, guint64 tag);

/* Whether transfer @t has a link successor (then the network must report its send end). */
static gboolean
has_link_succ(const weft_coll_plan_t *plan, guint32 t)
{
    for (guint32 s = plan->succ_off[t]; s < plan->succ_off[t + 1]; s++) {
        if (plan->succ_kind[s] == WEFT_COLL_DEP_LINK) {
            return TRUE;
        }
    }
    return FALSE;
}

static void start_xfer_now(weft_coll_run_t *run, guint32 t);

static void
on_deferred_start(void *ctx, void *data)
{
    weft_coll_run_t *run = ctx;
    guint32 t = GPOINTER_TO_UINT(data);
    run->post[t] = 0;
    start_xfer_now(run, t);
}

/*
 * Member @m's network path (its NIC and the proxy thread that posts and completes its
 * messages) takes a message of @bytes from @at on, when it is free, and holds it for
 * exec.msg_ps per msg_bytes of data (msg_ps a transfer when msg_bytes is 0). Returns when
 * it took the message.
 */
static weft_time_t
take_path(weft_coll_run_t *run, guint32 m, weft_time_t at, guint64 bytes)
{
    at = MAX(at, run->nic_free[m]);
    double msgs = run->exec.msg_bytes > 0 ? (double)bytes / run->exec.msg_bytes : 1.0;
    run->nic_free[m] = at + (weft_time_t)llround(run->exec.msg_ps * msgs);
    return at;
}

/*
 * The network's costs at a transfer's start (exec.rendezvous_ps and exec.msg_ps, see
 * weft_coll_exec_t): a transfer across domains starts no earlier than rendezvous_ps after
 * the roots could (the receiver's first control message), and its sender's path takes it
 * (take_path()); the receiver's path takes it on delivery (on_xfer_done()). A transfer
 * that finds its sender's path busy starts when it frees up.
 */
static void
start_xfer(weft_coll_run_t *run, guint32 t)
{
    const weft_coll_xfer_t *x = &run->plan->xfers[t];
    if ((run->exec.msg_ps <= 0 && run->exec.rendezvous_ps <= 0) ||
        !(x->flags & WEFT_COLL_XFER_INTER) || x->src >= run->plan->n_members) {
        start_xfer_now(run, t);
        return;
    }
    weft_sim_t *sim = weft_net_sim(run->net);
    weft_time_t now = weft_sim_now(sim);
    weft_time_t at = now;
    if (run->exec.rendezvous_ps > 0) {
        at = MAX(at, run->t_roots + run->exec.rendezvous_ps);
    }
    if (run->exec.msg_ps > 0) {
        at = take_path(run, x->src, at, x->bytes);
    }
    if (at > now) {
        run->post[t] = weft_sim_after(sim, at - now, on_deferred_start, run, GUINT_TO_POINTER(t));
        return;
    }
    start_xfer_now(run, t);
}

void
weft_coll_i_xfer_rate(const weft_coll_exec_t *exec, guint8 flags, guint16 sharing,
                      double route_Bps, gboolean analytical, double *eff, double *cap)
{
    *eff = exec->efficiency > 0.0 ? exec->efficiency : 1.0;
    if (exec->efficiency_shared > 0.0) {
        /* both models share the links themselves (flow by max-min fairness, analytical by
         * serializing at the endpoint ports, net.h), e.g. an NVLS tree node's NIC between
         * its parent and its two children: NCCL's figure without its factor for that */
        *eff = exec->efficiency_shared;
    }
    if (!(flags & WEFT_COLL_XFER_INTER) && exec->efficiency_intra > 0.0) {
        *eff = exec->efficiency_intra; /* e.g. CollNet's NVLink part (tuning.h) */
    }
    *cap = exec->channel_Bps > 0.0 ? exec->channel_Bps : INFINITY;
    if (analytical && sharing > 1 && !isnan(route_Bps)) {
        /* The channels on this pair share its route; the analytical model cannot see that:
         * cap the payload rate at the route's share (a cap, not a lower efficiency, so the
         * links' byte counts stay the bytes on the wire). */
        *cap = MIN(*cap, route_Bps * *eff / sharing);
    }
}

/* A local copy's end (WEFT_COLL_XFER_COPY): its last byte is written, nothing to deliver. */
static void
on_copy_done(void *ctx, void *data)
{
    weft_coll_run_t *run = ctx;
    guint32 t = GPOINTER_TO_UINT(data);
    run->post[t] = 0;
    if (has_link_succ(run->plan, t)) {
        on_xfer_sent(run, t);
    }
    on_xfer_done(run, t);
}

static void
start_xfer_now(weft_coll_run_t *run, guint32 t)
{
    const weft_coll_xfer_t *x = &run->plan->xfers[t];
    if (x->flags & WEFT_COLL_XFER_COPY) {
        /* a member's SMs read and write the bytes through HBM (coll.h) */
        weft_time_t d =
            (x->flags & WEFT_COLL_XFER_DELAY) ? (weft_time_t)MIN(x->bytes, (guint64)G_MAXINT64 / 4)
            : run->exec.copy_Bps > 0.0 ? weft_time_for_bytes(2 * x->bytes, run->exec.copy_Bps)
                                       : 0;
        run->post[t] =
            weft_sim_after(weft_net_sim(run->net), d, on_copy_done, run, GUINT_TO_POINTER(t));
        return;
    }
    double route_Bps = NAN;
    if (run->analytical && x->sharing > 1) {
        /* the rate of the pair's route, looked up once per source (a source sends to one
         * destination per ring and channel) */
        weft_fabric_t *fabric = weft_net_fabric(run->net);
        guint64 version = weft_fabric_link_version(fabric);
        if (version != run->rate_version) {
            /* a fault changed links: routes (and their rates) may have changed */
            guint n_ep = run->plan->n_members + run->plan->n_virtual;
            memset(run->rate_dst, 0xff, sizeof(gint32) * MAX(n_ep, 1));
            run->rate_version = version;
        }
        if (run->rate_dst[x->src] != (gint32)x->dst) {
            const weft_route_t *r =
                weft_fabric_route(fabric, run->vertex[x->src], run->vertex[x->dst], NULL);
            run->rate_dst[x->src] = (gint32)x->dst;
            run->rate_Bps[x->src] = r != NULL && r->n_paths > 0 ? r->rate_Bps : NAN;
        }
        route_Bps = run->rate_Bps[x->src];
    }
    double eff, cap;
    weft_coll_i_xfer_rate(&run->exec, x->flags, x->sharing, route_Bps, run->analytical, &eff,
                          &cap);
    if (run->t_sent != NULL) {
        run->t_sent[t] = weft_sim_now(weft_net_sim(run->net));
    }
    GError *error = NULL;
    /* Every pair was checked routable in weft_coll_run_full(), so this fails only when a
     * fault has taken links down since (net.h: weft_net_stranded()). */
    gboolean ok = weft_net_transfer_start_full(
        run->net, run->vertex[x->src], run->vertex[x->dst], x->bytes, cap, eff,
        has_link_succ(run->plan, t) ? on_xfer_sent : NULL, on_xfer_done, run, t, &error);
    if (!ok) {
        if (weft_net_stranded(run->net) != NULL) {
            /* a link fault left no path: the network stopped the run with its report */
            g_error_free(error);
            return;
        }
        g_error("collective %s transfer #%u: %s", weft_coll_op_name(run->plan->op), t,
                error->message);
    }
}

static void on_start(void *ctx, void *data);

/* The plan's last transfer is complete: run it again (exec.waves) or report the end. */
static void
finish(weft_coll_run_t *run)
{
    if (++run->wave < MAX(run->exec.waves, 1)) {
        const weft_coll_plan_t *plan = run->plan;
        memcpy(run->waiting, plan->n_preds, sizeof(guint32) * MAX(plan->n_xfers, 1));
        memset(run->nic_free, 0, sizeof(weft_time_t) * MAX(plan->n_members, 1));
        run->n_done = 0;
        run->start_event = weft_sim_after(weft_net_sim(run->net), MAX(run->exec.base_ps, 0),
                                          on_start, run, NULL);
        return;
    }
    run->finished = TRUE;
    run->done(run->ctx, run->tag);
}

/* Releases the successors of @t of @kind; starts those with nothing left to wait for. */
static void
release(weft_coll_run_t *run, guint32 t, guint8 kind)
{
    const weft_coll_plan_t *plan = run->plan;
    for (guint32 s = plan->succ_off[t]; s < plan->succ_off[t + 1]; s++) {
        if (plan->succ_kind[s] != kind) {
            continue;
        }
        guint32 u = plan->succ[s];
        g_assert(run->waiting[u] > 0);
        if (--run->waiting[u] == 0) {
            start_xfer(run, u);
        }
    }
}

static void
on_xfer_sent(void *ctx, guint64 tag)
{
    release(ctx, (guint32)tag, WEFT_COLL_DEP_LINK);
}

/* Transfer @t is complete (delivered, post-delay passed): release its data successors. */
static void
complete(weft_coll_run_t *run, guint32 t)
{
    release(run, t, WEFT_COLL_DEP_DATA);
    if (++run->n_done == run->plan->n_xfers) {
        finish(run);
    }
}

static void
on_post(void *ctx, void *data)
{
    weft_coll_run_t *run = ctx;
    guint32 t = GPOINTER_TO_UINT(data);
    run->post[t] = 0;
    complete(run, t);
}

/*
 * What a data successor waits after @t's delivery: the protocol's per-step
 * latency (intra or inter domain) and, for a reduction into a member, two
 * reads and one write of the bytes through HBM.
 */
static weft_time_t
post_delay(const weft_coll_run_t *run, const weft_coll_xfer_t *x)
{
    if (x->flags & WEFT_COLL_XFER_COPY) {
        return 0; /* a local copy: its time was its duration */
    }
    weft_time_t d =
        (x->flags & WEFT_COLL_XFER_INTER) ? run->exec.step_inter_ps : run->exec.step_intra_ps;
    if (run->exec.msg_ps > 0 && (x->flags & WEFT_COLL_XFER_INTER)) {
        /* The message's completion, written up to the host, before anyone may use the data. */
        d += run->exec.msg_ps;
    }
    if ((x->flags & WEFT_COLL_XFER_REDUCE) && x->dst < run->plan->n_members &&
        run->exec.hbm_Bps > 0.0) {
        if (run->exec.reduce_trunc_ns) {
            /* ASTRA-sim's PacketBundle::call(): each of the three passes is
             * (uint64_t)(bytes / bw * 1e9) ns, bw in bytes/s (a pass beyond the clock
             * saturates: the run then ends with the clock's error, not a wrapped value) */
            double ns = floor((double)x->bytes / run->exec.hbm_Bps * 1e9);
            d = weft_time_add(d, weft_time_from_ps(3.0 * ns * WEFT_PS_PER_NS));
        } else {
            d = weft_time_add(d, weft_time_for_bytes(3 * x->bytes, run->exec.hbm_Bps));
        }
    }
    return d;
}

static void
on_xfer_done(void *ctx, guint64 tag)
{
    weft_coll_run_t *run = ctx;
    guint32 t = (guint32)tag;
    const weft_coll_xfer_t *x = &run->plan->xfers[t];
    weft_time_t d = post_delay(run, x);
    if (run->exec.msg_ps > 0 && (x->flags & WEFT_COLL_XFER_INTER) && x->dst < run->plan->n_members) {
        /* the receiver's side of the message (see start_xfer()) */
        weft_time_t now = weft_sim_now(weft_net_sim(run->net));
        d += take_path(run, x->dst, now, x->bytes) - now;
    }
    if (run->t_sent != NULL && !(x->flags & WEFT_COLL_XFER_COPY)) {
        /* ASTRA-sim's network returns whole ns (astra-network-analytical 599a0473,
         * congestion_unaware/basic-topology/BasicTopology.cpp,
         * compute_communication_delay(): static_cast<EventTime>, EventTime = uint64_t ns):
         * what the successors wait loses the network time's sub-ns part. */
        weft_time_t now = weft_sim_now(weft_net_sim(run->net));
        d = MAX(d - (now - run->t_sent[t]) % WEFT_PS_PER_NS, 0);
    }
    if (d > 0) {
        run->post[t] = weft_sim_after(weft_net_sim(run->net), d, on_post, run, GUINT_TO_POINTER(t));
        return;
    }
    complete(run, t);
}

static void
start_roots(weft_coll_run_t *run)
{
    for (guint32 t = 0; t < run->plan->n_xfers; t++) {
        if (run->plan->n_preds[t] == 0) {
            start_xfer(run, t);
        }
    }
}

static void
on_start(void *ctx, void *data)
{
    (void)data;
    weft_coll_run_t *run = ctx;
    run->start_event = 0;
    run->t_roots = weft_sim_now(weft_net_sim(run->net));
    if (run->plan->n_xfers == 0) {
        finish(run);
        return;
    }
    start_roots(run);
}

weft_coll_run_t *
weft_coll_run(weft_net_t *net, const weft_coll_plan_t *plan, const gint *member_vertex,
              weft_coll_done_fn done, void *ctx, guint64 tag, GError **error)
{
    return weft_coll_run_full(net, plan, member_vertex, NULL, done, ctx, tag, error);
}

weft_coll_run_t *
weft_coll_run_full(weft_net_t *net, const weft_coll_plan_t *plan, const gint *member_vertex,
                   const weft_coll_exec_t *exec, weft_coll_done_fn done, void *ctx, guint64 tag,
                   GError **error)
{
    g_return_val_if_fail(net != NULL, NULL);
    g_return_val_if_fail(plan != NULL, NULL);
    g_return_val_if_fail(member_vertex != NULL, NULL);
    g_return_val_if_fail(done != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);

    const weft_coll_exec_t *costs = exec != NULL ? exec : &plan->exec;
    plan = weft_coll_plan_explicit(plan, error); /* an implicit plan runs its transfers */
    if (plan == NULL) {
        return NULL;
    }
    guint n_ep = plan->n_members + plan->n_virtual;
    g_autofree gint *vertex = g_new(gint, MAX(n_ep, 1));
    memcpy(vertex, member_vertex, sizeof(gint) * plan->n_members);
    if (plan->n_virtual > 0) {
        memcpy(vertex + plan->n_members, plan->virtual_vertex, sizeof(gint) * plan->n_virtual);
    }
    /* Check every pair first, so that a run either starts whole or not at all. */
    for (guint32 t = 0; t < plan->n_xfers; t++) {
        const weft_coll_xfer_t *x = &plan->xfers[t];
        if ((x->flags & WEFT_COLL_XFER_COPY) ||
            (t > 0 && x->src == plan->xfers[t - 1].src && x->dst == plan->xfers[t - 1].dst)) {
            continue; /* a local copy needs no route */
        }
        if (weft_net_transfer_time(net, vertex[x->src], vertex[x->dst], 0, error) < 0) {
            g_prefix_error(error, "%s over %u members: endpoint %u to endpoint %u: ",
                           weft_coll_op_name(plan->op), plan->n_members, x->src, x->dst);
            return NULL;
        }
    }

    weft_coll_run_t *run = g_new0(weft_coll_run_t, 1);
    run->net = net;
    run->plan = plan;
    run->exec = *costs;
    run->vertex = g_steal_pointer(&vertex);
    run->waiting = g_memdup2(plan->n_preds, sizeof(guint32) * MAX(plan->n_xfers, 1));
    run->post = g_new0(weft_event_handle_t, MAX(plan->n_xfers, 1));
    run->nic_free = g_new0(weft_time_t, MAX(plan->n_members, 1));
    if (run->exec.net_trunc_ns) {
        run->t_sent = g_new0(weft_time_t, MAX(plan->n_xfers, 1));
    }
    /* the channels' share of a route is capped where the analytical model queues at ports;
     * under network.congestion = none nothing is shared, channels included */
    run->analytical = weft_net_model(net) == WEFT_NET_ANALYTICAL &&
                      weft_net_options(net)->congestion == WEFT_NET_CONGESTION_PORTS;
    if (run->analytical) {
        run->rate_dst = g_new(gint32, MAX(n_ep, 1));
        memset(run->rate_dst, 0xff, sizeof(gint32) * MAX(n_ep, 1));
        run->rate_Bps = g_new(double, MAX(n_ep, 1));
        run->rate_version = weft_fabric_link_version(weft_net_fabric(net));
    }
    run->done = done;
    run->ctx = ctx;
    run->tag = tag;
    if (plan->n_xfers == 0 || run->exec.base_ps > 0) {
        run->start_event =
            weft_sim_after(weft_net_sim(net), MAX(run->exec.base_ps, 0), on_start, run, NULL);
        return run;
    }
    run->t_roots = weft_sim_now(weft_net_sim(net));
    start_roots(run);
    return run;
}

void
weft_coll_run_free(weft_coll_run_t *run)
{
    if (run == NULL) {
        return;
    }
    if (!run->finished) {
        /* Abandoned: nothing may call back into freed memory. */
        weft_sim_t *sim = weft_net_sim(run->net);
        if (run->start_event != 0) {
            weft_sim_cancel(sim, run->start_event);
        }
        for (guint32 t = 0; t < run->plan->n_xfers; t++) {
            if (run->post[t] != 0) {
                weft_sim_cancel(sim, run->post[t]);
            }
        }
        weft_net_transfer_cancel_ctx(run->net, run);
    }
    g_free(run->vertex);
    g_free(run->waiting);
    g_free(run->post);
    g_free(run->nic_free);
    g_free(run->t_sent);
    g_free(run->rate_dst);
    g_free(run->rate_Bps);
    g_free(run);
}

gboolean
weft_coll_run_finished(const weft_coll_run_t *run)
{
    g_return_val_if_fail(run != NULL, FALSE);
    return run->finished;
}

typedef struct {
    gboolean done;
    weft_time_t at;
    weft_sim_t *sim;
} timer_t_;

static void
on_timed_done(void *ctx, guint64 tag)
{
    (void)tag;
    timer_t_ *tm = ctx;
    tm->done = TRUE;
    tm->at = weft_sim_now(tm->sim);
}

static void
on_noop(void *ctx, void *data)
{
    (void)ctx;
    (void)data;
}

/*
 * An implicit plan swept (weft_coll_sweep()) instead of run: its links credited with what its
 * transfers would have carried (weft_net_credit()), the totals with its transfers, and the
 * clock moved on by its duration, so that the network reads as after an event run. -1 with
 * @error set (WEFT_COLL_ERROR_UNSUPPORTED: run it).
 */
static weft_time_t
sweep_time(weft_sim_t *sim, weft_net_t *net, const weft_coll_plan_t *plan,
           const gint *member_vertex, const weft_coll_exec_t *exec, GError **error)
{
    weft_time_t ps;
    g_autoptr(GArray) links = NULL;
    if (!weft_coll_sweep(net, plan, member_vertex, exec, &ps, &links, error)) {
        return -1;
    }
    for (guint i = 0; i < links->len; i++) {
        const weft_coll_sweep_link_t *l = &g_array_index(links, weft_coll_sweep_link_t, i);
        weft_net_credit(net, l->edge, weft_net_bytes_from_fx(l->bytes_fx), l->busy_ps,
                        l->peak_util);
    }
    guint64 n = weft_coll_plan_n_transfers(plan);
    weft_net_stats_t st = {.transfers_started = n,
                           .transfers_done = n,
                           .bytes_sent = plan->moved_bytes,
                           .bytes_delivered = plan->moved_bytes};
    weft_net_credit_stats(net, &st);
    weft_sim_after(sim, ps, on_noop, NULL, NULL);
    weft_sim_run(sim);
    return ps;
}

weft_time_t
weft_coll_time(weft_sim_t *sim, weft_net_t *net, const weft_coll_plan_t *plan,
               const gint *member_vertex, GError **error)
{
    return weft_coll_time_full(sim, net, plan, member_vertex, NULL, error);
}

weft_time_t
weft_coll_time_full(weft_sim_t *sim, weft_net_t *net, const weft_coll_plan_t *plan,
                    const gint *member_vertex, const weft_coll_exec_t *exec, GError **error)
{
    g_return_val_if_fail(sim != NULL && net != NULL && plan != NULL, -1);
    g_return_val_if_fail(weft_net_sim(net) == sim, -1);
    /* Anything else on the queue would make the elapsed time meaningless. */
    g_return_val_if_fail(weft_sim_pending(sim) == 0, -1);
    if (plan->implicit != NULL && weft_net_model(net) == WEFT_NET_ANALYTICAL) {
        GError *local = NULL;
        weft_time_t ps = sweep_time(sim, net, plan, member_vertex, exec, &local);
        if (ps >= 0) {
            return ps;
        }
        if (!g_error_matches(local, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED)) {
            g_propagate_error(error, local);
            return -1;
        }
        g_debug("%s over %u members not swept: %s; running its transfers",
                weft_coll_op_name(plan->op), plan->n_members, local->message);
        g_error_free(local); /* the sweep does not apply: run the transfers */
    }
    timer_t_ tm = {.done = FALSE, .at = 0, .sim = sim};
    weft_time_t t0 = weft_sim_now(sim);
    weft_coll_run_t *run =
        weft_coll_run_full(net, plan, member_vertex, exec, on_timed_done, &tm, 0, error);
    if (run == NULL) {
        return -1;
    }
    weft_sim_run(sim);
    if (!tm.done && weft_sim_now(sim) == WEFT_TIME_MAX) {
        /* the clock saturated (core/time.h) before the collective ended, e.g. under a
         * reduction of an absurd local-mem-bw: an error, not a wrong time */
        weft_coll_run_free(run);
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s over %u members would finish after %.0f days of simulated time, more "
                    "than weft's picosecond clock holds: check sizes, bandwidths and delays",
                    weft_coll_op_name(plan->op), plan->n_members,
                    weft_time_to_s(WEFT_TIME_MAX) / 86400.0);
        return -1;
    }
    g_assert(tm.done); /* the queue drained, so every transfer has finished */
    weft_coll_run_free(run);
    return tm.at - t0;
}
