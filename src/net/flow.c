/* SPDX-License-Identifier: MIT */
/*
 * The flow network model (see net.h for the model and its equations): every
 * directed edge is an LMM constraint (constraint id == edge id), every
 * transfer in its bandwidth phase an LMM variable. Changes (a start, the end
 * of a bandwidth phase, a cancel, a capacity change) mark the edges they touch
 * and request one solve event at the current instant; the solve event re-solves,
 * then brings the transfers whose rate changed up to date and moves their
 * bandwidth-phase end events, then updates the statistics of the marked edges.
 * Nothing here allocates per event once the arrays have grown to the peak.
 */
#define G_LOG_DOMAIN "weft-net"

#include <math.h>

#include "net/net_private.h"

/*
 * A solved rate within this relative distance of the route's analytical rate
 * is snapped to it, so that an uncongested transfer ends at exactly the
 * analytical picosecond. The solver's C_e / a_te and the topology's bottleneck
 * / share differ by a few units of 2^-52 ~ 2.2e-16 at most; 1e-12 leaves room
 * for that and never merges rates that differ for a physical reason (a
 * transfer sharing a link with another gets at most C (1 - 1e-6) or so of it
 * for any realistic count of transfers).
 */
#define SNAP_REL 1e-12

static inline xfer_t *
xfer_at(weft_net_t *net, guint32 idx)
{
    return &g_array_index(net->xfers, xfer_t, idx);
}

/* Remembers that the usage of @edge may change at the next solve. */
static inline void
mark_edge(weft_net_t *net, gint edge)
{
    link_t *l = &net->links[edge];
    if (l->stamp != net->stamp) {
        l->stamp = net->stamp;
        g_array_append_val(net->dirty, edge);
    }
}

static void
mark_route(weft_net_t *net, const weft_route_t *route)
{
    for (guint32 k = 0; k < route->path_off[route->n_paths]; k++) {
        mark_edge(net, route->edges[k]);
    }
}

static void on_solve(void *ctx, void *data);

/* Schedules the solve of this instant, unless one is already pending. */
static void
request_solve(weft_net_t *net)
{
    if (net->freeing || net->solve != 0) {
        return;
    }
    net->solve = weft_sim_at(net->sim, weft_sim_now(net->sim), on_solve, net, NULL);
}

/* Bytes of a sending transfer still to send at @now, from its last update at its current rate. */
static double
remaining_at(const xfer_t *x, weft_time_t now)
{
    double r = x->remaining - x->rate_Bps * weft_time_to_s(now - x->updated);
    return r > 0.0 ? r : 0.0;
}

static void
on_arrive(void *ctx, void *data)
{
    weft_net_t *net = ctx;
    guint32 idx = GPOINTER_TO_UINT(data);
    xfer_at(net, idx)->event = 0;
    weft_net_i_xfer_finish(net, idx);
}

/* The last byte of transfer @data has been sent: free its links, wait for the latency. */
static void
on_send_end(void *ctx, void *data)
{
    weft_net_t *net = ctx;
    guint32 idx = GPOINTER_TO_UINT(data);
    xfer_t *x = xfer_at(net, idx);
    g_assert(x->phase == PHASE_SENDING);
    x->event = 0;
    x->remaining = 0.0;
    weft_net_i_credit_bytes(net, x->route, ((double)x->bytes - x->credited) / x->efficiency);
    weft_lmm_variable_free(net->lmm, x->var);
    mark_route(net, x->route);
    request_solve(net);
    x->phase = PHASE_LATENCY;
    /* With latency 0 the transfer finishes inside this event rather than through
     * another, so that transfers its callbacks start join this instant's solve. */
    weft_net_i_xfer_sent(net, idx, on_arrive);
}

/* A transfer with no bandwidth phase and a sent callback: sent at its start. */
static void
on_zero_sent(void *ctx, void *data)
{
    weft_net_t *net = ctx;
    weft_net_i_xfer_sent(net, GPOINTER_TO_UINT(data), on_arrive);
}

/*
 * Gives transfer @idx (variable of the last solve) its new rate; moves its
 * bandwidth-phase end if the rate changed. See the essay for the exactness rule.
 */
static void
apply_rate(weft_net_t *net, guint32 idx, weft_time_t now)
{
    xfer_t *x = xfer_at(net, idx);
    g_assert(x->phase == PHASE_SENDING);
    double rate = weft_lmm_variable_rate(net->lmm, x->var);
    double lone = x->route->rate_Bps * x->efficiency; /* its payload rate alone on the route */
    if (fabs(rate - lone) <= SNAP_REL * lone) {
        rate = lone;
    }
    mark_route(net, x->route);
    if (x->rate_set && rate == x->rate_Bps) {
        return;
    }
    weft_time_t end;
    if (!x->rate_set) {
        /* First rate: one rounding over the whole size, as the analytical model does. */
        g_assert(x->updated == x->start);
        x->rate_set = TRUE;
        x->rate_Bps = rate;
        end = weft_net_i_time_add(x->start, weft_time_for_bytes(x->bytes, rate));
    } else {
        x->remaining = remaining_at(x, now);
        x->updated = now;
        x->rate_changed = TRUE;
        x->rate_Bps = rate;
        end = WEFT_TIME_MAX;
        if (rate > 0.0) {
            double ps = x->remaining * 1e12 / rate;
            end = ps < 9.2e18 ? weft_net_i_time_add(now, (weft_time_t)llround(ps)) : WEFT_TIME_MAX;
        }
    }
    net->stats.rate_changes++;
    if (end == x->send_end) {
        return;
    }
    if (x->event != 0) {
        weft_sim_cancel(net->sim, x->event);
        x->event = 0;
    }
    x->send_end = end;
    if (end != WEFT_TIME_MAX) {
        x->event = weft_sim_at(net->sim, end, on_send_end, net, GUINT_TO_POINTER(idx));
    }
}

/* Brings the statistics of the marked edges up to date with the usage just solved. */
static void
update_links(weft_net_t *net, weft_time_t now)
{
    for (guint i = 0; i < net->dirty->len; i++) {
        gint e = g_array_index(net->dirty, gint, i);
        link_t *l = &net->links[e];
        double u = weft_lmm_constraint_usage(net->lmm, (guint)e);
        double cap = weft_lmm_constraint_capacity(net->lmm, (guint)e);
        if (cap > 0.0 && u / cap > l->peak_util) {
            l->peak_util = u / cap;
        }
        if (u == l->usage) {
            continue;
        }
        if (l->usage > 0.0) {
            l->busy_ps += now - l->since;
        }
        l->since = now;
        l->usage = u;
        if (net->ts != NULL) {
            if (net->ts[e] == NULL) {
                net->ts[e] = g_array_new(FALSE, FALSE, sizeof(usage_point_t));
            }
            GArray *pts = net->ts[e];
            usage_point_t pt = {now, u};
            if (pts->len > 0 && g_array_index(pts, usage_point_t, pts->len - 1).time == now) {
                g_array_index(pts, usage_point_t, pts->len - 1) = pt;
            } else {
                g_array_append_val(pts, pt);
            }
        }
    }
    g_array_set_size(net->dirty, 0);
    if (++net->stamp == 0) {
        /* Wrapped after 2^32 solves: no edge may look marked by accident. */
        for (guint e = 0; e < net->n_edges; e++) {
            net->links[e].stamp = 0;
        }
        net->stamp = 1;
    }
}

/* Logs the solver's state (weft_lmm_dump()) in the weft-net domain, after a line saying why. */
static void
log_dump(weft_net_t *net, const char *why)
{
    if (!net->log_debug) {
        return;
    }
    g_autoptr(GString) text = g_string_new(NULL);
    weft_lmm_dump(net->lmm, text);
    g_debug("flow solver state (%s): %s", why, text->str);
}

static void
on_solve(void *ctx, void *data)
{
    (void)data;
    weft_net_t *net = ctx;
    net->solve = 0;
    weft_lmm_solve(net->lmm);
    net->stats.solves++;
    if (net->opts.check_solves && net->check_error == NULL &&
        !weft_lmm_check(net->lmm, &net->check_error)) {
        log_dump(net, net->check_error->message);
    }
    if (G_UNLIKELY(net->log_debug)) {
        /* the busiest states so far, at 1, 2, 4, 8... flows at once: a few dumps per run */
        guint n = weft_lmm_n_variables(net->lmm);
        net->log_peak = MAX(net->log_peak, n);
        if (n > 0 && n >= 2 * net->log_dumped) {
            net->log_dumped = n;
            log_dump(net, "busiest so far");
        }
    }
    weft_time_t now = weft_sim_now(net->sim);
    guint it = 0, v;
    while (weft_lmm_next_changed(net->lmm, &it, &v)) {
        apply_rate(net, g_array_index(net->var_xfer, guint32, v), now);
    }
    update_links(net, now);
}

/* Gives sending transfer @idx an LMM variable over its route. */
static void
new_variable(weft_net_t *net, guint32 idx)
{
    xfer_t *x = xfer_at(net, idx);
    const weft_route_t *route = x->route;
    guint n = route->path_off[route->n_paths];
    g_array_set_size(net->scratch_cnst, n);
    g_array_set_size(net->scratch_coef, n);
    guint *cnst = (guint *)(void *)net->scratch_cnst->data;
    double *coef = (double *)(void *)net->scratch_coef->data;
    /* One pair per (path, edge): the solver sums the shares of an edge listed twice. */
    for (guint p = 0; p < route->n_paths; p++) {
        for (guint32 k = route->path_off[p]; k < route->path_off[p + 1]; k++) {
            cnst[k] = (guint)route->edges[k];
            coef[k] = route->share[p] / x->efficiency; /* wire bytes per payload byte */
        }
    }
    x->var = weft_lmm_variable_new(net->lmm, 1.0, x->cap_Bps, cnst, coef, n);
    if (x->var >= net->var_xfer->len) {
        g_array_set_size(net->var_xfer, x->var + 1);
    }
    g_array_index(net->var_xfer, guint32, x->var) = idx;
}

static void
flow_start(weft_net_t *net, guint32 idx)
{
    xfer_t *x = xfer_at(net, idx);
    weft_time_t now = weft_sim_now(net->sim);
    if (x->route == NULL || x->bytes == 0) {
        /* No bandwidth phase: a local copy is free, zero bytes take the latency. */
        x->phase = PHASE_LATENCY;
        if (x->sent != NULL) {
            x->event = weft_sim_after(net->sim, 0, on_zero_sent, net, GUINT_TO_POINTER(idx));
            return;
        }
        weft_time_t d = x->route == NULL ? 0 : x->route->latency_ps;
        x->event = weft_sim_after(net->sim, d, on_arrive, net, GUINT_TO_POINTER(idx));
        return;
    }
    new_variable(net, idx);
    x->phase = PHASE_SENDING;
    x->rate_set = FALSE;
    x->rate_changed = FALSE;
    x->rate_Bps = 0.0;
    x->remaining = (double)x->bytes;
    x->start = now;
    x->updated = now;
    x->send_end = WEFT_TIME_MAX;
    x->event = 0;
    request_solve(net);
}

static void
flow_cancel(weft_net_t *net, guint32 idx)
{
    xfer_t *x = xfer_at(net, idx);
    if (x->event != 0) {
        weft_sim_cancel(net->sim, x->event);
        x->event = 0;
    }
    if (x->phase == PHASE_SENDING) {
        double left = remaining_at(x, weft_sim_now(net->sim));
        weft_net_i_credit_bytes(net, x->route,
                                ((double)x->bytes - left - x->credited) / x->efficiency);
        weft_lmm_variable_free(net->lmm, x->var);
        mark_route(net, x->route);
        request_solve(net);
    }
    x->phase = PHASE_NONE;
}

const model_ops_t weft_net_i_flow_ops = {
    .name = "flow",
    .start = flow_start,
    .cancel = flow_cancel,
};

void
weft_net_i_flow_init(weft_net_t *net)
{
    net->lmm = weft_lmm_new(net->opts.update == WEFT_NET_UPDATE_INCREMENTAL);
    for (guint e = 0; e < net->n_edges; e++) {
        guint c = weft_lmm_constraint_new(net->lmm, weft_topo_edge_bw(net->topo, (gint)e));
        g_assert(c == e);
    }
    net->var_xfer = g_array_new(FALSE, TRUE, sizeof(guint32));
    net->dirty = g_array_new(FALSE, FALSE, sizeof(gint));
    net->scratch_cnst = g_array_new(FALSE, FALSE, sizeof(guint));
    net->scratch_coef = g_array_new(FALSE, FALSE, sizeof(double));
    net->stamp = 1;
}

void
weft_net_i_flow_clear(weft_net_t *net)
{
    if (net->solve != 0) {
        weft_sim_cancel(net->sim, net->solve);
        net->solve = 0;
    }
    weft_lmm_stats_t st = weft_lmm_stats(net->lmm);
    g_debug("flow solver: %" G_GUINT64_FORMAT " re-solves, %" G_GUINT64_FORMAT
            " components and %" G_GUINT64_FORMAT " variables re-solved, %" G_GUINT64_FORMAT
            " rate changes, most flows at once %u",
            st.solves, st.components, st.variables_solved, net->stats.rate_changes, net->log_peak);
    weft_lmm_free(net->lmm);
    g_array_unref(net->var_xfer);
    g_array_unref(net->dirty);
    g_array_unref(net->scratch_cnst);
    g_array_unref(net->scratch_coef);
    g_clear_error(&net->check_error);
}

void
weft_net_i_flow_set_capacity(weft_net_t *net, gint edge, double capacity_Bps)
{
    weft_lmm_constraint_set_capacity(net->lmm, (guint)edge, capacity_Bps);
    mark_edge(net, edge);
    request_solve(net);
}

weft_time_t
weft_net_i_flow_busy(const weft_net_t *net, gint edge)
{
    const link_t *l = &net->links[edge];
    weft_time_t busy = l->busy_ps;
    if (l->usage > 0.0) {
        busy += weft_sim_now(net->sim) - l->since;
    }
    return busy;
}

/* Records the first stranded transfer and stops the run. */
static void
strand(weft_net_t *net, const xfer_t *x, gint edge, double left, const GError *why)
{
    if (net->stranded != NULL) {
        return;
    }
    const weft_topo_t *t = net->topo;
    g_set_error(&net->stranded, WEFT_NET_ERROR, WEFT_NET_ERROR_STRANDED,
                "transfer of %" G_GUINT64_FORMAT " bytes from %s to %s stranded at %.6f us with "
                "%.0f bytes left: link %s -> %s went down and no path is left (%s)",
                x->bytes, weft_topo_vertex_name(t, x->src), weft_topo_vertex_name(t, x->dst),
                weft_time_to_us(weft_sim_now(net->sim)), left,
                weft_topo_vertex_name(t, weft_topo_edge_from(t, edge)),
                weft_topo_vertex_name(t, weft_topo_edge_to(t, edge)), why->message);
    weft_sim_stop(net->sim);
}

static gboolean
route_uses(const weft_route_t *r, gint edge)
{
    for (guint32 k = 0; k < r->path_off[r->n_paths]; k++) {
        if (r->edges[k] == edge) {
            return TRUE;
        }
    }
    return FALSE;
}

void
weft_net_i_flow_reroute(weft_net_t *net, gint edge)
{
    weft_time_t now = weft_sim_now(net->sim);
    for (guint32 i = 0; i < net->xfers->len; i++) {
        xfer_t *x = xfer_at(net, i);
        if (!x->in_use || x->phase != PHASE_SENDING || !route_uses(x->route, edge)) {
            continue;
        }
        double left = x->rate_set ? remaining_at(x, now) : (double)x->bytes;
        const weft_route_t *route = NULL;
        g_autoptr(GError) err = NULL;
        if (!weft_net_i_lookup_route(net, x->src, x->dst, x->flow_id, &route, &err)) {
            strand(net, x, edge, left, err);
            continue; /* it stalls at rate 0 on the link that is down */
        }
        /* The bytes sent so far count on the old route; the rest goes the new way. */
        double sent = (double)x->bytes - left - x->credited;
        weft_net_i_credit_bytes(net, x->route, sent / x->efficiency);
        x->credited += sent;
        if (x->event != 0) {
            weft_sim_cancel(net->sim, x->event);
            x->event = 0;
        }
        weft_lmm_variable_free(net->lmm, x->var);
        mark_route(net, x->route);
        x->route = route;
        new_variable(net, i);
        /* From here its rate is integrated from @now over the remaining bytes (apply_rate()). */
        x = xfer_at(net, i);
        x->rate_set = TRUE;
        x->rate_changed = TRUE;
        x->rate_Bps = 0.0;
        x->remaining = left;
        x->updated = now;
        x->send_end = WEFT_TIME_MAX;
        request_solve(net);
    }
}
