/* SPDX-License-Identifier: MIT */
/*
 * Network models and transfers (see net.h for the model essay).
 *
 * A transfer is a small record in a pool (a GArray of records recycled through
 * a stack of free indexes), so that once the pool has grown to the peak number
 * of transfers in flight, starting and finishing a transfer allocates nothing.
 * Which model runs is a table of operations chosen at weft_net_new(): the
 * analytical model schedules one event per transfer at start + L + S / B; a
 * flow model (max-min sharing) will fill in the same table with its own start,
 * finish and cancel, and nothing outside this file changes.
 */
#include "net/net.h"

/* The quark's name is stringified from tokens: clang-format must not space its dashes. */
/* clang-format off */
G_DEFINE_QUARK(weft-net-error-quark, weft_net_error)
/* clang-format on */

/* One transfer in flight. Records are addressed by index: the pool may move. */
typedef struct {
    weft_net_done_fn done;
    void *ctx;
    guint64 tag;
    guint64 bytes;
    weft_event_handle_t event; /* the completion event (analytical) */
    gboolean in_use;
} xfer_t;

/* What a network model does; one static table per model. */
typedef struct {
    const char *name;
    /* Starts the transfer in record @idx, whose route is @route (NULL when src == dst). */
    void (*start)(weft_net_t *net, guint32 idx, const weft_route_t *route);
    /* Stops the transfer in record @idx without calling its callback. */
    void (*cancel)(weft_net_t *net, guint32 idx);
} model_ops_t;

struct weft_net {
    weft_sim_t *sim;
    weft_topo_t *topo;
    weft_net_model_t model;
    const model_ops_t *ops;
    GArray *xfers;    /* of xfer_t */
    GArray *free_idx; /* of guint32: indexes of unused records */
    guint64 in_flight;
    weft_net_stats_t stats;
};

/* ---- the record pool ------------------------------------------------------- */

static guint32
xfer_alloc(weft_net_t *net)
{
    guint32 idx;
    if (net->free_idx->len > 0) {
        idx = g_array_index(net->free_idx, guint32, net->free_idx->len - 1);
        g_array_set_size(net->free_idx, net->free_idx->len - 1);
    } else {
        idx = net->xfers->len;
        g_array_set_size(net->xfers, net->xfers->len + 1);
    }
    xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    g_assert(!x->in_use);
    x->in_use = TRUE;
    net->in_flight++;
    return idx;
}

static void
xfer_release(weft_net_t *net, guint32 idx)
{
    xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    g_assert(x->in_use);
    x->in_use = FALSE;
    x->done = NULL;
    x->ctx = NULL;
    x->event = 0;
    g_array_append_val(net->free_idx, idx);
    net->in_flight--;
}

/*
 * Finishes record @idx: updates the totals, frees the record, then calls the
 * callback. The fields are copied first because the callback may start new
 * transfers, which may reuse this record or grow (and move) the pool.
 */
static void
xfer_finish(weft_net_t *net, guint32 idx)
{
    xfer_t x = g_array_index(net->xfers, xfer_t, idx);
    xfer_release(net, idx);
    net->stats.transfers_done++;
    net->stats.bytes_delivered += x.bytes;
    x.done(x.ctx, x.tag);
}

/* ---- the analytical model ---------------------------------------------------- */

/* Saturating a + b for non-negative picosecond values. */
static weft_time_t
time_add(weft_time_t a, weft_time_t b)
{
    return a > WEFT_TIME_MAX - b ? WEFT_TIME_MAX : a + b;
}

/* L + S / B for a route; 0 for a local copy (route == NULL). */
static weft_time_t
analytical_duration(const weft_route_t *route, guint64 bytes)
{
    if (route == NULL) {
        return 0;
    }
    return time_add(route->latency_ps, weft_time_for_bytes(bytes, route->rate_Bps));
}

static void
analytical_on_event(void *ctx, void *data)
{
    weft_net_t *net = ctx;
    xfer_finish(net, GPOINTER_TO_UINT(data));
}

static void
analytical_start(weft_net_t *net, guint32 idx, const weft_route_t *route)
{
    xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    weft_time_t d = analytical_duration(route, x->bytes);
    x->event = weft_sim_after(net->sim, d, analytical_on_event, net, GUINT_TO_POINTER(idx));
}

static void
analytical_cancel(weft_net_t *net, guint32 idx)
{
    xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    gboolean was_pending = weft_sim_cancel(net->sim, x->event);
    g_assert(was_pending);
}

static const model_ops_t analytical_ops = {
    .name = "analytical",
    .start = analytical_start,
    .cancel = analytical_cancel,
};

/* Indexed by weft_net_model_t. */
static const model_ops_t *const model_table[] = {
    [WEFT_NET_ANALYTICAL] = &analytical_ops,
};

/* ---- public functions -------------------------------------------------------- */

gboolean
weft_net_model_from_name(const char *name, weft_net_model_t *model, GError **error)
{
    g_return_val_if_fail(name != NULL, FALSE);
    g_return_val_if_fail(model != NULL, FALSE);
    for (guint m = 0; m < G_N_ELEMENTS(model_table); m++) {
        if (g_strcmp0(name, model_table[m]->name) == 0) {
            *model = (weft_net_model_t)m;
            return TRUE;
        }
    }
    g_set_error(error, WEFT_NET_ERROR, WEFT_NET_ERROR_MODEL,
                "unknown network model \"%s\" (known: analytical)", name);
    return FALSE;
}

const char *
weft_net_model_name(weft_net_model_t model)
{
    g_return_val_if_fail((guint)model < G_N_ELEMENTS(model_table), "?");
    return model_table[model]->name;
}

weft_net_t *
weft_net_new(weft_sim_t *sim, weft_topo_t *topo, weft_net_model_t model)
{
    g_return_val_if_fail(sim != NULL, NULL);
    g_return_val_if_fail(topo != NULL, NULL);
    g_return_val_if_fail((guint)model < G_N_ELEMENTS(model_table), NULL);
    weft_net_t *net = g_new0(weft_net_t, 1);
    net->sim = sim;
    net->topo = topo;
    net->model = model;
    net->ops = model_table[model];
    net->xfers = g_array_new(FALSE, TRUE, sizeof(xfer_t));
    net->free_idx = g_array_new(FALSE, FALSE, sizeof(guint32));
    return net;
}

void
weft_net_free(weft_net_t *net)
{
    if (net == NULL) {
        return;
    }
    /* Pending transfers are dropped; their events must not fire into freed memory. */
    for (guint32 i = 0; i < net->xfers->len; i++) {
        if (g_array_index(net->xfers, xfer_t, i).in_use) {
            net->ops->cancel(net, i);
        }
    }
    g_array_unref(net->xfers);
    g_array_unref(net->free_idx);
    g_free(net);
}

/*
 * The route for src -> dst (NULL for src == dst) or a WEFT_NET_ERROR_NO_ROUTE.
 * @flow_id picks among equal-cost paths (ECMP, see topo.h): transfers pass the
 * number of transfers started before them, so each transfer hashes as its own
 * flow and a run is repeatable.
 */
static gboolean
lookup_route(weft_net_t *net, gint src, gint dst, guint64 flow_id, const weft_route_t **route,
             GError **error)
{
    *route = NULL;
    if (src == dst) {
        return TRUE;
    }
    g_autoptr(GError) topo_error = NULL;
    *route = weft_topo_route_ecmp(net->topo, src, dst, flow_id, &topo_error);
    if (*route == NULL) {
        g_set_error(error, WEFT_NET_ERROR, WEFT_NET_ERROR_NO_ROUTE,
                    "no route from vertex %d to vertex %d: %s", src, dst,
                    topo_error != NULL ? topo_error->message : "unknown reason");
        return FALSE;
    }
    return TRUE;
}

gboolean
weft_net_transfer_start(weft_net_t *net, gint src, gint dst, guint64 bytes, weft_net_done_fn done,
                        void *ctx, guint64 tag, GError **error)
{
    g_return_val_if_fail(net != NULL, FALSE);
    g_return_val_if_fail(done != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    const weft_route_t *route;
    if (!lookup_route(net, src, dst, net->stats.transfers_started, &route, error)) {
        return FALSE;
    }
    guint32 idx = xfer_alloc(net);
    xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    x->done = done;
    x->ctx = ctx;
    x->tag = tag;
    x->bytes = bytes;
    net->stats.transfers_started++;
    net->stats.bytes_sent += bytes;
    net->ops->start(net, idx, route);
    return TRUE;
}

guint
weft_net_transfer_cancel_ctx(weft_net_t *net, void *ctx)
{
    g_return_val_if_fail(net != NULL, 0);
    guint n = 0;
    for (guint32 i = 0; i < net->xfers->len && net->in_flight > 0; i++) {
        xfer_t *x = &g_array_index(net->xfers, xfer_t, i);
        if (x->in_use && x->ctx == ctx) {
            net->ops->cancel(net, i);
            net->stats.transfers_cancelled++;
            net->stats.bytes_cancelled += x->bytes;
            xfer_release(net, i);
            n++;
        }
    }
    return n;
}

weft_time_t
weft_net_transfer_time(weft_net_t *net, gint src, gint dst, guint64 bytes, GError **error)
{
    g_return_val_if_fail(net != NULL, -1);
    g_return_val_if_fail(error == NULL || *error == NULL, -1);
    /* flow 0: the estimate is for a lone transfer, not one of the run's numbered transfers */
    const weft_route_t *route;
    if (!lookup_route(net, src, dst, 0, &route, error)) {
        return -1;
    }
    /* Every model agrees on a lone transfer over an idle network. */
    return analytical_duration(route, bytes);
}

guint64
weft_net_in_flight(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, 0);
    return net->in_flight;
}

weft_topo_t *
weft_net_topo(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, NULL);
    return net->topo;
}

weft_sim_t *
weft_net_sim(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, NULL);
    return net->sim;
}

const weft_net_stats_t *
weft_net_stats(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, NULL);
    return &net->stats;
}
