/* SPDX-License-Identifier: MIT */
/*
 * Network models and transfers.
 *
 * A transfer moves bytes from one vertex of the cluster to another over the
 * route weft_topo_route() gives; the network model decides when its last byte
 * arrives and then calls the transfer's completion callback. Collectives and
 * replay only start transfers and wait for callbacks, so they never know which
 * model runs.
 *
 * Models:
 *  - analytical: a transfer of S bytes on a route with latency L and rate B
 *    (bottleneck bandwidth; for a sprayed route the sum over its planes) ends
 *    at start + L + S / B. Links are not shared: concurrent transfers do not
 *    slow each other. Exact where nothing shares a link, and the fast mode
 *    for sweeps. (The flow model, with max-min fair sharing, comes later behind
 *    this same interface.)
 *
 * A transfer from a vertex to itself completes at the current time plus 0 (a
 * local copy is free at this level; collectives charge their own reduction
 * costs). A transfer of 0 bytes takes the route latency.
 */
#ifndef WEFT_NET_NET_H
#define WEFT_NET_NET_H

#include <glib.h>

#include "core/sim.h"
#include "topo/topo.h"

G_BEGIN_DECLS

#define WEFT_NET_ERROR (weft_net_error_quark())
GQuark weft_net_error_quark(void);

typedef enum {
    WEFT_NET_ERROR_MODEL,    /* unknown model name */
    WEFT_NET_ERROR_NO_ROUTE, /* a transfer between unconnected vertices */
} weft_net_error_t;

typedef enum {
    WEFT_NET_ANALYTICAL,
} weft_net_model_t;

/**
 * weft_net_done_fn:
 * @ctx: the pointer given to weft_net_transfer_start().
 * @tag: the tag given to weft_net_transfer_start().
 *
 * Called once, from the event loop, when the transfer's last byte has arrived.
 */
typedef void (*weft_net_done_fn)(void *ctx, guint64 tag);

typedef struct weft_net weft_net_t;

/** Totals over a run, for reports and property tests. */
typedef struct {
    guint64 transfers_started;
    guint64 transfers_done;
    guint64 bytes_sent;          /* sum of transfer sizes at start */
    guint64 bytes_delivered;     /* sum of transfer sizes at completion */
    guint64 transfers_cancelled; /* by weft_net_transfer_cancel_ctx() */
    guint64 bytes_cancelled;     /* their sizes */
} weft_net_stats_t;
/* Invariant: bytes_sent == bytes_delivered + bytes_cancelled + bytes still in flight. */

/**
 * weft_net_model_from_name:
 * @name: "analytical".
 * @model: (out).
 * @error: WEFT_NET_ERROR_MODEL listing the known models.
 */
gboolean weft_net_model_from_name(const char *name, weft_net_model_t *model, GError **error);

/**
 * weft_net_new:
 * @sim: the simulation (not owned; must outlive the network).
 * @topo: a finalized cluster (not owned; must outlive the network).
 * @model: which model.
 * Returns: (transfer full): the network.
 */
weft_net_t *weft_net_new(weft_sim_t *sim, weft_topo_t *topo, weft_net_model_t model);

/** weft_net_free: NULL is a no-op. Pending transfers are dropped without callbacks. */
void weft_net_free(weft_net_t *net);

/**
 * weft_net_transfer_start:
 * @net: the network.
 * @src, @dst: vertex ids of the cluster.
 * @bytes: size of the transfer.
 * @done: called when the last byte arrives.
 * @ctx, @tag: passed to @done.
 * @error: WEFT_NET_ERROR_NO_ROUTE if @dst cannot be reached from @src.
 *
 * Starts a transfer now. Returns: TRUE if it started.
 * Time complexity (analytical): O(log n) for the one event it schedules.
 */
gboolean weft_net_transfer_start(weft_net_t *net, gint src, gint dst, guint64 bytes,
                                 weft_net_done_fn done, void *ctx, guint64 tag, GError **error);

/**
 * weft_net_transfer_cancel_ctx:
 * @net: the network.
 * @ctx: a ctx given to weft_net_transfer_start().
 *
 * Stops every transfer in flight whose ctx is @ctx; their callbacks are never
 * called. For abandoning a running collective (weft_coll_run_free()).
 * Returns: how many transfers were cancelled.
 * Time complexity: O(size of the transfer pool), i.e. O(peak transfers in flight).
 */
guint weft_net_transfer_cancel_ctx(weft_net_t *net, void *ctx);

/** weft_net_in_flight: transfers started and neither finished nor cancelled. */
guint64 weft_net_in_flight(const weft_net_t *net);

/**
 * weft_net_transfer_time:
 * @net: the network.
 * @src, @dst: vertex ids.
 * @bytes: size.
 * @error: as weft_net_transfer_start().
 *
 * The time a lone transfer of @bytes from @src to @dst takes on an idle
 * network: route latency + bytes / route rate. Returns: picoseconds, or -1 on error.
 */
weft_time_t weft_net_transfer_time(weft_net_t *net, gint src, gint dst, guint64 bytes,
                                   GError **error);

/** weft_net_topo: (transfer none): the cluster @net runs on. */
weft_topo_t *weft_net_topo(const weft_net_t *net);

/** weft_net_sim: (transfer none): the simulation @net runs on. */
weft_sim_t *weft_net_sim(const weft_net_t *net);

/** weft_net_stats: totals so far. */
const weft_net_stats_t *weft_net_stats(const weft_net_t *net);

/** weft_net_model_name: "analytical". */
const char *weft_net_model_name(weft_net_model_t model);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_net_t, weft_net_free)

G_END_DECLS

#endif /* WEFT_NET_NET_H */
