/* SPDX-License-Identifier: MIT */
/*
 * Executing a collective plan on the network. The executor keeps, per
 * transfer, how many predecessors are still running; it starts the plan's
 * roots at once and, each time a transfer finishes, starts the successors
 * whose count drops to zero. When the last transfer finishes it calls the
 * collective's completion callback. It knows nothing about the network model:
 * it only starts transfers and waits for their callbacks.
 */
#include "coll/coll.h"

struct weft_coll_run {
    weft_net_t *net;
    const weft_coll_plan_t *plan;
    gint *member_vertex; /* plan->n_members cluster vertex ids */
    guint32 *waiting;    /* per transfer: predecessors not yet finished */
    guint32 n_done;      /* transfers finished */
    weft_coll_done_fn done;
    void *ctx;
    guint64 tag;
    weft_event_handle_t empty_event; /* the completion event of a plan with no transfers */
    gboolean finished;
};

static void on_xfer_done(void *ctx, guint64 tag);

static void
start_xfer(weft_coll_run_t *run, guint32 t)
{
    const weft_coll_xfer_t *x = &run->plan->xfers[t];
    GError *error = NULL;
    /* Every pair was checked routable in weft_coll_run(), so this cannot fail. */
    gboolean ok =
        weft_net_transfer_start(run->net, run->member_vertex[x->src], run->member_vertex[x->dst],
                                x->bytes, on_xfer_done, run, t, &error);
    if (!ok) {
        g_error("collective %s transfer #%u: %s", weft_coll_op_name(run->plan->op), t,
                error->message);
    }
}

static void
finish(weft_coll_run_t *run)
{
    run->finished = TRUE;
    run->done(run->ctx, run->tag);
}

static void
on_xfer_done(void *ctx, guint64 tag)
{
    weft_coll_run_t *run = ctx;
    const weft_coll_plan_t *plan = run->plan;
    guint32 t = (guint32)tag;
    for (guint32 s = plan->succ_off[t]; s < plan->succ_off[t + 1]; s++) {
        guint32 u = plan->succ[s];
        g_assert(run->waiting[u] > 0);
        if (--run->waiting[u] == 0) {
            start_xfer(run, u);
        }
    }
    if (++run->n_done == plan->n_xfers) {
        finish(run);
    }
}

static void
on_empty(void *ctx, void *data)
{
    (void)data;
    weft_coll_run_t *run = ctx;
    run->empty_event = 0;
    finish(run);
}

weft_coll_run_t *
weft_coll_run(weft_net_t *net, const weft_coll_plan_t *plan, const gint *member_vertex,
              weft_coll_done_fn done, void *ctx, guint64 tag, GError **error)
{
    g_return_val_if_fail(net != NULL, NULL);
    g_return_val_if_fail(plan != NULL, NULL);
    g_return_val_if_fail(member_vertex != NULL, NULL);
    g_return_val_if_fail(done != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);

    /* Check every pair first, so that a run either starts whole or not at all. */
    for (guint32 t = 0; t < plan->n_xfers; t++) {
        const weft_coll_xfer_t *x = &plan->xfers[t];
        if (weft_net_transfer_time(net, member_vertex[x->src], member_vertex[x->dst], 0, error) <
            0) {
            g_prefix_error(error, "%s over %u members: member %u to member %u: ",
                           weft_coll_op_name(plan->op), plan->n_members, x->src, x->dst);
            return NULL;
        }
    }

    weft_coll_run_t *run = g_new0(weft_coll_run_t, 1);
    run->net = net;
    run->plan = plan;
    run->member_vertex = g_memdup2(member_vertex, sizeof(gint) * plan->n_members);
    run->waiting = g_memdup2(plan->n_preds, sizeof(guint32) * MAX(plan->n_xfers, 1));
    run->done = done;
    run->ctx = ctx;
    run->tag = tag;
    if (plan->n_xfers == 0) {
        run->empty_event = weft_sim_after(weft_net_sim(net), 0, on_empty, run, NULL);
        return run;
    }
    for (guint32 t = 0; t < plan->n_xfers; t++) {
        if (plan->n_preds[t] == 0) {
            start_xfer(run, t);
        }
    }
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
        if (run->empty_event != 0) {
            weft_sim_cancel(weft_net_sim(run->net), run->empty_event);
        }
        weft_net_transfer_cancel_ctx(run->net, run);
    }
    g_free(run->member_vertex);
    g_free(run->waiting);
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

weft_time_t
weft_coll_time(weft_sim_t *sim, weft_net_t *net, const weft_coll_plan_t *plan,
               const gint *member_vertex, GError **error)
{
    g_return_val_if_fail(sim != NULL && net != NULL && plan != NULL, -1);
    g_return_val_if_fail(weft_net_sim(net) == sim, -1);
    /* Anything else on the queue would make the elapsed time meaningless. */
    g_return_val_if_fail(weft_sim_pending(sim) == 0, -1);
    timer_t_ tm = {.done = FALSE, .at = 0, .sim = sim};
    weft_time_t t0 = weft_sim_now(sim);
    weft_coll_run_t *run = weft_coll_run(net, plan, member_vertex, on_timed_done, &tm, 0, error);
    if (run == NULL) {
        return -1;
    }
    weft_sim_run(sim);
    g_assert(tm.done); /* the queue drained, so every transfer has finished */
    weft_coll_run_free(run);
    return tm.at - t0;
}
