/* SPDX-License-Identifier: MIT */
/*
 * Network models and transfers.
 *
 * A transfer moves bytes from one vertex of the cluster to another over the
 * route the network's fabric state gives (topo/fabric.h: weft_fabric_route_ecmp());
 * the network model decides when its last byte
 * arrives and then calls the transfer's completion callback. Collectives and
 * replay only start transfers and wait for callbacks, so they never know which
 * model runs.
 *
 * Models:
 *  - analytical: a lone transfer of S bytes on a route with latency L and
 *    rate B (bottleneck bandwidth; for a sprayed route the sum over its
 *    planes; or its cap if lower) ends at start + L + S / B. Links between
 *    switches are not shared. Every *endpoint port* (a directed edge with an
 *    end that is not a switch: a GPU's NVLinks, its PCIe link to its NIC, the
 *    NIC's link to its leaf and back, a GPU-to-GPU link; weft_net_is_port_edge())
 *    serves its transfers within its capacity C_e: a transfer t on path p
 *    takes u_te = wire rate x share_p / C_e of it (snapped to 1 within 1e-12)
 *    and queues s_t u_te of work (s_t = S / rate, unrounded). At each port it
 *    is admitted at its own rate when no transfer the port delayed is still
 *    sending and the admitted ones' u plus its own sum to at most 1 (within
 *    1e-9); otherwise it waits until the port has served all the work of its
 *    busy period, its own included (FIFO at capacity). Its end is the latest
 *    over its ports and start + s_t, then L. Admitted transfers never exceed a
 *    port's capacity and delayed ones end after all its work, so no collective
 *    is faster than its members' ports allow (bytes each must send or receive
 *    over their capacity; tests/check_net.c). Flow shares an oversubscribed
 *    port instead (same makespan, another order). Queues keep unrounded time; a
 *    backlog or excess of at most half a picosecond counts as none, so
 *    transfers that together fill a port exactly (k channels at B/k) never
 *    wait, and transfers that follow one another on a link (ring steps) are
 *    timed as if alone. A cancelled transfer's bytes stay queued at its ports.
 *    Exact where no port is oversubscribed; the fast mode for sweeps (doc/network.md).
 *  - flow: links are shared max-min fairly (Bertsekas and Gallager, Data
 *    Networks, 2nd ed., 1992, section 6.5.2; the model of SimGrid's LMM,
 *    Velho et al., ACM TOMACS 23(4), 2013). Every directed edge e is a
 *    constraint of capacity C_e = its bandwidth; every transfer t in its
 *    bandwidth phase is a variable of weight 1 and rate x_t whose coefficient
 *    on e is the sum of the shares of its route's paths that cross e,
 *        a_te = sum_{p in route(t), e in p} share_p,
 *    and the rates are the max-min fair solution of
 *        sum_t a_te x_t <= C_e for every e,   0 <= x_t <= cap_t
 *    (src/net/lmm.h; cap_t is an optional per-transfer limit, none by default).
 *    A transfer of S bytes started at t0 first *sends*: its remaining bytes
 *    r(t) fall at its current rate, dr/dt = -x_t, and when r reaches 0 at
 *    t_s (the end of its bandwidth phase) its variable is removed, freeing its
 *    share of every link for the others. Bytes arrive route latency after they
 *    are sent, so it completes at t_s + L. A lone transfer therefore takes
 *    S / x + L with x = min_e C_e / a_te, which for a route whose paths share
 *    no edge is the analytical S / B + L.
 *    Rates change only when a transfer starts or ends its bandwidth phase or a
 *    capacity changes (weft_net_set_link_capacity()). Every such change at
 *    one simulated instant is batched into one solve: the first change of an
 *    instant schedules a solve event at that instant, later changes join it.
 *    The solve re-solves only the connected components (transfers linked by
 *    shared edges) touched since the last one (update = incremental), or
 *    everything (update = full, to check the incremental mode: both give
 *    bit-identical rates, so identical completion times). For each transfer
 *    whose rate changed, r is brought up to date, r -= x_old (now - t_last),
 *    and its bandwidth-phase end is rescheduled at now + r / x_new.
 *    Exactness: while a transfer's rate has never changed, its bandwidth
 *    phase ends at t0 + weft_time_for_bytes(S, x), rounded once over the
 *    whole size exactly as the analytical model rounds, and a solved rate
 *    within 1e-12 (relative) of the route's analytical rate is snapped to it:
 *    the solver computes C_e / a_te with a_te = a sum of shares, which can
 *    differ from the route's rate (computed by the topology as bottleneck /
 *    share, per path) in the last bit, and one bit would move a completion by
 *    a picosecond. So where nothing shares a link, flow and analytical give
 *    the same picoseconds. Once a rate has changed, the end is
 *    now + round(r x 1e12 / x) from the integrated r, good to a picosecond
 *    or so per rate change.
 *    Where two paths of one route cross the same edge, a_te is the sum of
 *    their shares and a lone flow transfer is slower than the analytical
 *    route rate (which ignores that overlap); no bundled cluster sprays that
 *    way.
 *
 * Link statistics (weft_net_link_stats()), per directed edge: bytes carried
 * (sum over transfers of a_te x the bytes they have sent over it), busy time
 * (time with usage sum_t a_te x_t > 0), mean utilization bytes / (C_e x
 * makespan) with makespan the current simulated time, peak utilization (the
 * largest usage / C_e after any solve), and optionally the usage sampled at a
 * fixed interval (weft_net_enable_timeseries()). Under the analytical model a
 * transfer's bandwidth phase is [start, start + S / rate) at its fixed rate,
 * so its usage is known when it starts: busy time is the length of the union
 * of the phases crossing the edge and peak utilization the largest sum of
 * their a_te x wire rate over the capacity in force, taken at every start and
 * capacity change (the same definitions as flow, which they match to the
 * picosecond wherever nothing is shared). Links are not shared, so the peak
 * exceeds 1 where phases overlap on an edge (k transfers at full rate: k) or
 * a transfer keeps its rate on a link degraded under it. Cost: a min-heap of
 * the phases not yet over per edge, O(log k) per (transfer, edge), no event.
 * Bytes are credited when a transfer completes; the current usage, transfer
 * count and time series stay 0 under analytical.
 *
 * Costs of the flow model: starting or ending a transfer costs O(hops) plus
 * its share of the next solve, which is progressive filling over the touched
 * components (O(E log C), lmm.h) plus O(log n) per transfer whose rate
 * changed (its end event is cancelled and rescheduled). Memory: one record
 * per transfer in flight, one LMM constraint per directed edge.
 *
 * A transfer from a vertex to itself completes at the current time plus 0 (a
 * local copy is free at this level; collectives charge their own reduction
 * costs). A transfer of 0 bytes takes the route latency (under flow too: it
 * has no bandwidth phase).
 */
#ifndef WEFT_NET_NET_H
#define WEFT_NET_NET_H

#include <glib.h>

#include "core/keyfile.h"
#include "core/sim.h"
#include "topo/fabric.h"
#include "topo/topo.h"

G_BEGIN_DECLS

#define WEFT_NET_ERROR (weft_net_error_quark())
GQuark weft_net_error_quark(void);

typedef enum {
    WEFT_NET_ERROR_MODEL,    /* unknown model name */
    WEFT_NET_ERROR_NO_ROUTE, /* a transfer between unconnected vertices */
    WEFT_NET_ERROR_UPDATE,   /* unknown update mode name */
    WEFT_NET_ERROR_STRANDED, /* a link went down under a transfer that has no other path */
    WEFT_NET_ERROR_LINK,     /* a link state outside its range */
} weft_net_error_t;

typedef enum {
    WEFT_NET_ANALYTICAL,
    WEFT_NET_FLOW,
} weft_net_model_t;

/** How the flow model re-solves rates (see the essay); the analytical model ignores it. */
typedef enum {
    WEFT_NET_UPDATE_INCREMENTAL, /* only the components touched since the last solve */
    WEFT_NET_UPDATE_FULL,        /* everything, every time: slow, to check the incremental mode */
} weft_net_update_t;

/**
 * What the analytical model shares (see the essay); the flow model shares every link.
 * NONE is ASTRA-sim's congestion-unaware analytical backend (astra-network-analytical
 * @ 599a0473, congestion_unaware/: every message takes latency x hops + S / B as if
 * alone), for side-by-side runs of ASTRA-sim's inputs (doc/peers.md).
 */
typedef enum {
    WEFT_NET_CONGESTION_PORTS, /* endpoint ports queue their transfers (the default) */
    WEFT_NET_CONGESTION_NONE,  /* nothing is shared: every transfer is timed alone */
} weft_net_congestion_t;

/** Options of weft_net_new_full(); zero-initialized means analytical, incremental, no checks. */
typedef struct {
    weft_net_model_t model;
    weft_net_update_t update;
    weft_net_congestion_t congestion; /* analytical only; flow with NONE is refused by
                                         weft_net_new_full()'s callers (scenario_run.c) */
    /* flow: run weft_lmm_check() after every solve and keep the first failure
     * (weft_net_check_error()); O(V + C + E) per solve, for property tests. */
    gboolean check_solves;
} weft_net_options_t;

/* The [network] keys over weft_net_options_t (model, update; core/keyfile.h) and the
 * name tables of the model (analytical, flow) and the update mode (incremental, full). */
extern const weft_key_t weft_net_keys[];
extern const guint weft_net_n_keys;
extern const weft_enum_t weft_net_model_enum;
extern const weft_enum_t weft_net_update_enum;
extern const weft_enum_t weft_net_congestion_enum; /* ports, none */

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
    guint64 solves;              /* flow: max-min solves run (one per instant with changes) */
    guint64 rate_changes; /* flow: transfers whose rate changed at a solve, over all solves */
} weft_net_stats_t;
/* Invariant: bytes_sent == bytes_delivered + bytes_cancelled + bytes still in flight. */

/**
 * weft_net_model_from_name:
 * @name: "analytical" or "flow".
 * @model: (out).
 * @error: WEFT_NET_ERROR_MODEL listing the known models.
 */
gboolean weft_net_model_from_name(const char *name, weft_net_model_t *model, GError **error);

/**
 * weft_net_new:
 * @sim: the simulation (not owned; must outlive the network).
 * @fabric: the fabric state of the cluster the network runs on (topo/fabric.h; not owned;
 *   must outlive the network): its routes, ECMP seed and link state. The network routes
 *   through it and changes its link state (weft_net_set_link_fraction()); the cluster under
 *   it is only read. Networks in turn on one fabric state (a run's idle copy for measuring)
 *   share its route caches.
 * @model: which model.
 * Returns: (transfer full): the network.
 */
weft_net_t *weft_net_new(weft_sim_t *sim, weft_fabric_t *fabric, weft_net_model_t model);

/**
 * weft_net_new_full:
 * @sim, @fabric: as weft_net_new().
 * @opts: the model, the flow model's update mode and checks (copied).
 * Returns: (transfer full): the network. weft_net_new() is this with
 * update = incremental and no checks.
 * Time complexity (flow): O(edges) to create one LMM constraint per directed edge.
 */
weft_net_t *weft_net_new_full(weft_sim_t *sim, weft_fabric_t *fabric,
                              const weft_net_options_t *opts);

/**
 * weft_net_update_from_name:
 * @name: "incremental" or "full".
 * @update: (out).
 * @error: WEFT_NET_ERROR_UPDATE listing the known modes.
 */
gboolean weft_net_update_from_name(const char *name, weft_net_update_t *update, GError **error);

/** weft_net_update_name: "incremental" or "full". */
const char *weft_net_update_name(weft_net_update_t update);

/** weft_net_free: NULL is a no-op. Pending transfers are dropped without callbacks. */
void weft_net_free(weft_net_t *net);

/**
 * weft_net_transfer_start:
 * @net: the network.
 * @src, @dst: vertex ids of the cluster.
 * @bytes: size of the transfer.
 * @done: called when the last byte arrives.
 * @ctx, @tag: passed to @done.
 * @error: WEFT_NET_ERROR_NO_ROUTE if @dst cannot be reached from @src. When
 *   that is because links went down (weft_net_set_link_fraction()), the
 *   transfer is also recorded as stranded (weft_net_stranded(), if it is the
 *   first) and the simulation stopped.
 *
 * Starts a transfer now. Returns: TRUE if it started.
 * Time complexity (analytical): O(log n) for the one event it schedules plus
 * O(hops x log k) for its ports and link statistics (k: transfers at a port or
 * on an edge at once); (flow): O(hops) now plus its part of the next solve (see
 * the essay).
 */
gboolean weft_net_transfer_start(weft_net_t *net, gint src, gint dst, guint64 bytes,
                                 weft_net_done_fn done, void *ctx, guint64 tag, GError **error);

/**
 * weft_net_transfer_start_capped:
 * As weft_net_transfer_start(), with @rate_cap_Bps (bytes/s) an upper bound
 * on the transfer's rate (a NIC or protocol limit; <= 0 or INFINITY: none).
 * Analytical: the transfer takes L + S / min(B, cap). Flow: the cap is the
 * bound of its LMM variable.
 */
gboolean weft_net_transfer_start_capped(weft_net_t *net, gint src, gint dst, guint64 bytes,
                                        double rate_cap_Bps, weft_net_done_fn done, void *ctx,
                                        guint64 tag, GError **error);

/**
 * weft_net_transfer_start_full:
 * As weft_net_transfer_start_capped(), plus:
 * @efficiency: payload bytes per byte on the wire, in (0, 1] (a protocol's
 *   overhead: NCCL's LL carries 8 data bytes per 16-byte line, 0.5); <= 0 or
 *   > 1 means 1. The transfer moves @bytes of payload but occupies its links
 *   as @bytes / @efficiency wire bytes: analytical, it takes
 *   L + S / min(B x efficiency, cap); flow, its LMM coefficient on each edge
 *   is share_p / efficiency, so its payload rate alone on a route is
 *   B x efficiency and link statistics count wire bytes.
 * @sent: (nullable): called once, from the event loop, when the bandwidth
 *   phase ends (the last byte has left the source: start + S / rate under the
 *   analytical model, the end of the flow model's sending phase), before
 *   @done, which follows route latency later (in the same event when the
 *   latency is 0). A transfer of 0 bytes or to itself is sent at its start
 *   (through an event, never from inside this call). @sent may start
 *   transfers but must not cancel its own.
 * @done, @ctx, @tag, @error: as weft_net_transfer_start().
 * Collectives use @sent to start the next transfer on a link as soon as the
 * link is free (pipelining) while data dependencies wait for @done.
 */
gboolean weft_net_transfer_start_full(weft_net_t *net, gint src, gint dst, guint64 bytes,
                                      double rate_cap_Bps, double efficiency, weft_net_done_fn sent,
                                      weft_net_done_fn done, void *ctx, guint64 tag,
                                      GError **error);

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

/** weft_net_topo: (transfer none): the cluster @net runs on (read only: shared). */
const weft_topo_t *weft_net_topo(const weft_net_t *net);

/**
 * weft_net_fabric: (transfer none): the fabric state @net routes through and whose links
 * it changes (the one given to weft_net_new()).
 */
weft_fabric_t *weft_net_fabric(const weft_net_t *net);

/** weft_net_sim: (transfer none): the simulation @net runs on. */
weft_sim_t *weft_net_sim(const weft_net_t *net);

/**
 * weft_net_transfer_start_route:
 * @net: the network.
 * @route: the route the transfer takes, owned by the caller, which keeps it
 *   until @done: each path p carries share[p] of the bytes (for an aggregate,
 *   such as replay's coarse collectives, the shares need not sum to 1: path p
 *   may be one edge carrying that fraction of the total), with the route's
 *   latency after the bandwidth phase; rate_Bps must be the analytical rate,
 *   min over paths of bottleneck / share.
 * @src, @dst: vertex ids naming the transfer (in errors and records).
 * @bytes, @done, @ctx, @tag: as weft_net_transfer_start(); no cap, efficiency 1.
 *
 * Starts a transfer on @route instead of the cluster's route from @src to
 * @dst: no ECMP flow id is taken. Returns: TRUE (FALSE only on a programming
 * error). Time complexity: as weft_net_transfer_start() for a route of as
 * many edges.
 */
gboolean weft_net_transfer_start_route(weft_net_t *net, const weft_route_t *route, gint src,
                                       gint dst, guint64 bytes, weft_net_done_fn done, void *ctx,
                                       guint64 tag);

/**
 * weft_net_conflict_fn:
 * @ctx: the pointer given to weft_net_enable_guard().
 * @edge: the reserved edge a transfer started on.
 *
 * Called (once per transfer and edge) when a transfer starts on an edge that
 * weft_net_reserve() holds for a collective run as one timed event.
 */
typedef void (*weft_net_conflict_fn)(void *ctx, gint edge);

/**
 * weft_net_enable_guard:
 * @net: a network with no transfer in flight (or the guard already on).
 * @conflict: (nullable): called when a transfer starts on a reserved edge;
 *   NULL detaches the caller (the counts go on).
 * @ctx: passed to @conflict.
 *
 * Starts counting, per directed edge, the transfers in flight whose route
 * crosses it (from start to completion or cancel, latency phase included) and
 * enables weft_net_reserve(): what replay's collective-level execution needs to
 * prove that a collective's links carry no other traffic while it runs
 * (replay.h, collective_detail). Routes must not change while the guard is on:
 * do not combine it with link faults. Memory: 12 bytes per edge. Cost: O(edges
 * of the route) per transfer start and end.
 */
void weft_net_enable_guard(weft_net_t *net, weft_net_conflict_fn conflict, void *ctx);

/**
 * weft_net_edges_idle:
 * @net: a network with the guard enabled.
 * @edges: (array length=n): directed edge ids.
 * Returns: TRUE when no transfer in flight crosses any of @edges and none of
 * them is reserved past the current time. Time complexity: O(n).
 */
gboolean weft_net_edges_idle(const weft_net_t *net, const gint *edges, guint n);

/**
 * weft_net_reserve:
 * @net: a network with the guard enabled.
 * @edges: (array length=n): directed edge ids.
 * @until_ps: the reservation's end (absolute simulated time).
 *
 * Holds @edges until @until_ps: a transfer starting on one of them before then
 * calls the conflict function. Time complexity: O(n).
 */
void weft_net_reserve(weft_net_t *net, const gint *edges, guint n, weft_time_t until_ps);

/**
 * weft_net_reserve_owned:
 * As weft_net_reserve(), and @owner (nullable) becomes the holder of @edges: the transfers
 * of a pair block of the same @owner (weft_net_add_pair_block()) replayed over them are not
 * a conflict (they are the holder's own). Time complexity: O(n).
 */
void weft_net_reserve_owned(weft_net_t *net, const gint *edges, guint n, weft_time_t until_ps,
                            void *owner);

/** One busy period of a port's queue (analytical): [start, end), picoseconds. */
typedef struct {
    weft_time_t start_ps;
    weft_time_t end_ps;
} weft_net_busy_t;

/**
 * weft_net_record_port_busy:
 * @net: an analytical network.
 * @edges: (array length=n): edges; those that are ports (weft_net_is_port_edge()) are
 *   recorded.
 *
 * Keeps the busy periods of the ports' queues from now on (weft_net_recorded_port_busy()):
 * what a collective run alone does to its ports, for weft_net_hold_ports(). A period
 * starts when a transfer arrives at an idle queue and ends when the queue has served all
 * it holds, rounded outwards to the picosecond. Memory: 16 bytes per period (at most one
 * per transfer and port).
 */
void weft_net_record_port_busy(weft_net_t *net, const gint *edges, guint n);

/** weft_net_recorded_port_busy: @edge's periods (weft_net_busy_t, in order), or NULL. */
const GArray *weft_net_recorded_port_busy(const weft_net_t *net, gint edge);

/**
 * weft_net_ports_idle:
 * @net: an analytical network with the guard enabled.
 * @edges: (array length=n): port edges.
 * Returns: TRUE when every one of @edges has an empty queue now (all the bytes queued on
 * it served, to the picosecond) and none is reserved past now. Transfers in flight may
 * still cross them: once their bytes are served at a port, nothing they do there affects
 * a later transfer. Time complexity: O(n).
 */
gboolean weft_net_ports_idle(const weft_net_t *net, const gint *edges, guint n);

/**
 * weft_net_hold_ports:
 * @net: an analytical network with the guard enabled.
 * @n: how many ports.
 * @edges: (array length=n): port edges whose queues are idle (weft_net_ports_idle()).
 * @busy: (array length=n): per port, the busy periods of the collective's run alone
 *   (weft_net_recorded_port_busy(), offsets from now; referenced until @until_ps).
 * @until_ps: the collective's end (absolute).
 * @owner: as weft_net_reserve_owned().
 *
 * Reserves @edges for a collective run as one timed event (weft_net_reserve_owned()), but
 * lets other transfers queue at them when they provably do not meet it: a transfer
 * arriving at a held port is a conflict (the guard's function is called) unless the
 * collective's queue there is empty at its arrival and the port serves the transfer (and
 * whatever else queued there meanwhile) before the collective's next busy period. Port
 * queues are independent of each other (net.h), so the collective and the others then
 * take exactly the times they take apart. Time complexity: O(n) now; O(log periods) per
 * transfer at a held port.
 */
void weft_net_hold_ports(weft_net_t *net, guint n, const gint *edges, GArray *const *busy,
                         weft_time_t until_ps, void *owner);

/**
 * weft_net_is_port_edge:
 * @topo: the cluster.
 * @edge: a directed edge id.
 * Returns: TRUE when @edge is an endpoint port of the analytical model (see the essay): one
 * of its ends is not a switch (a GPU, NIC or host: a GPU's NVLinks to its NVSwitches, a
 * GPU's PCIe to its NIC, a NIC's link to its leaf, a GPU-to-GPU link), FALSE for a link
 * between two switches (NVSwitch or network switch). O(1).
 */
gboolean weft_net_is_port_edge(const weft_topo_t *topo, gint edge);

/**
 * weft_net_credit:
 * @net: the network.
 * @edge: a directed edge id.
 * @bytes: bytes carried (as weft_net_link_stats() counts them).
 * @busy_ps: time the edge was busy, in a span when nothing else crossed it.
 * @peak_util: the largest utilization in that span.
 *
 * Credits the statistics of a collective run as one timed event (from its
 * isolated run) to @edge: bytes and busy time add, the peak is the larger one.
 * Exact because the guard proved the collective alone on the edge.
 */
void weft_net_credit(weft_net_t *net, gint edge, double bytes, weft_time_t busy_ps,
                     double peak_util);

/**
 * weft_net_credit_stats:
 * @net: the network.
 * @delta: totals of an isolated run to add (transfers, bytes; solves and rate
 *   changes are not added: they count the work this run did).
 *
 * Adds a timed collective's transfers to the totals, which then count what the
 * transfer-level run would have.
 */
void weft_net_credit_stats(weft_net_t *net, const weft_net_stats_t *delta);

/** One bandwidth phase of a transfer on an edge (analytical): [start, end), at @usage_Bps. */
typedef struct {
    weft_time_t start_ps;
    weft_time_t end_ps;
    double usage_Bps; /* wire rate times the share of the route on the edge */
} weft_net_phase_t;

/**
 * weft_net_record_phases:
 * @net: an analytical network with no transfer started yet.
 * @edges: (array length=n): the edges to record.
 *
 * Keeps every bandwidth phase that crosses @edges, in start order
 * (weft_net_recorded_phases()): what a collective run alone does to its links,
 * for weft_net_add_blocks(). Memory: 24 bytes per (transfer, edge).
 */
void weft_net_record_phases(weft_net_t *net, const gint *edges, guint n);

/** weft_net_recorded_phases: the phases of @edge so far (NULL if not recorded); owned by @net. */
const GArray *weft_net_recorded_phases(const weft_net_t *net, gint edge);

/**
 * weft_net_phases_busy_peak:
 * @phases: (array length=n): bandwidth phases on one edge, in start order.
 * @cap_Bps: the edge's capacity.
 * @busy_ps: (out): the length of their union.
 * @peak_util: (out): the largest sum of the usages of phases in force at a phase's start,
 *   over @cap_Bps (0 if @cap_Bps <= 0).
 *
 * What the analytical model's link statistics make of @phases alone (the same code).
 * Time complexity: O(n log k), k the most phases in force at once.
 */
void weft_net_phases_busy_peak(const weft_net_phase_t *phases, guint n, double cap_Bps,
                               weft_time_t *busy_ps, double *peak_util);

/**
 * weft_net_analytical_send_ps:
 * @route: (nullable): a route; NULL for a local copy.
 * @bytes: payload bytes.
 * @cap_Bps: payload-rate cap (<= 0 or INFINITY: none).
 * @efficiency: payload per wire byte, (0, 1] (else 1).
 *
 * The analytical model's bandwidth phase of a transfer: S / min(B x efficiency, cap),
 * rounded as weft_time_for_bytes() does; 0 for a local copy. Its delivery comes the
 * route's latency later (saturating at WEFT_TIME_MAX).
 */
weft_time_t weft_net_analytical_send_ps(const weft_route_t *route, guint64 bytes, double cap_Bps,
                                        double efficiency);

/**
 * weft_net_bytes_fx:
 * @bytes: wire bytes (payload over efficiency).
 * @share: the share of the route's path crossing an edge.
 *
 * @bytes x @share in the fixed-point unit links count bytes in (2^-16 byte), rounded as a
 * transfer's completion credits them; weft_net_bytes_from_fx() converts back to bytes.
 */
guint64 weft_net_bytes_fx(double bytes, double share);
double weft_net_bytes_from_fx(guint64 fx);

/**
 * weft_net_xfer_rec_t: one transfer as the analytical model ran it
 * (weft_net_record_transfers()); in a pair block (weft_net_add_pair_block()) the times are
 * offsets from the block's start.
 */
typedef struct {
    gint src, dst;        /* vertex ids */
    weft_time_t start_ps; /* start of its bandwidth phase */
    weft_time_t end_ps;   /* its end (== start_ps: no bandwidth phase) */
    double rate_Bps;      /* its wire rate: payload rate over the protocol's efficiency */
    double wire_bytes;    /* its bytes on the wire: payload over the efficiency */
} weft_net_xfer_rec_t;

/**
 * weft_net_record_transfers:
 * @net: an analytical network.
 * @out: (nullable): a GArray of weft_net_xfer_rec_t (referenced), or NULL to stop.
 *
 * Appends every transfer between two distinct vertices to @out as it starts (in start
 * order): what a collective run alone does, for weft_net_add_pair_block(). Memory: 40
 * bytes per transfer.
 */
void weft_net_record_transfers(weft_net_t *net, GArray *out);

/**
 * weft_net_pair_conflict_fn:
 * @ctx: the pointer given to weft_net_set_pair_conflict().
 * @owner: the owner of the pair block whose transfers' order is at stake.
 * @src, @dst: the pair.
 *
 * Called when a transfer or another pair block starts on a pair while a pair block's
 * transfers are still starting (at or before its last start): their ECMP flow ids, which
 * the block took in advance, would not be those of a transfer-level run.
 */
typedef void (*weft_net_pair_conflict_fn)(void *ctx, void *owner, gint src, gint dst);

/** weft_net_set_pair_conflict: sets (or, with NULL, clears) the pair-conflict function. */
void weft_net_set_pair_conflict(weft_net_t *net, weft_net_pair_conflict_fn conflict, void *ctx);

/**
 * weft_net_pair_block_t: the transfers of a collective run as one timed event on its pairs
 * whose routes have an ECMP choice (weft_net_add_pair_block()). Every array is kept by
 * reference until the block is replayed (weft_net_settle() replays all).
 */
typedef struct {
    guint n_pairs;
    const gint *pair_v;           /* 2 x n_pairs: each pair's source and destination vertex */
    const guint *pair_n;          /* n_pairs: how many of @recs are the pair's */
    const weft_time_t *pair_last; /* n_pairs: the latest start among them (an offset) */
    const weft_net_xfer_rec_t *recs; /* n: every transfer, in start order, offsets from the
                                      * block's start (src and dst ignored) */
    const guint *rec_pair;           /* n: the pair of each, < n_pairs */
    guint n;
} weft_net_pair_block_t;

/**
 * weft_net_add_pair_block:
 * @net: an analytical network.
 * @block: the transfers, as the collective's run alone recorded them
 *   (weft_net_record_transfers()); copied, its arrays referenced.
 * @owner: passed to the pair-conflict function.
 *
 * The transfers of a timed collective on pairs with an ECMP choice, without simulating
 * them: each pair's transfers take its next ECMP flow ids now (as they would, one by one,
 * at transfer level, when no other transfer starts on the pair before the last of them),
 * and each is replayed on its flow's route when simulated time reaches its start (before
 * anything else touches a link at or after it): its bandwidth phase on every edge of the
 * route and its bytes, as a transfer of the analytical model would add them. Exact when
 * every ECMP route of each pair has the same latency and rate (the run alone then took the
 * same times). A reserved edge (weft_net_reserve()) on the way calls the guard's conflict
 * function. Cost: O(pairs) now, O(log blocks + route edges) per transfer when replayed; no
 * event. Memory: 16 bytes per pair until replayed.
 */
void weft_net_add_pair_block(weft_net_t *net, const weft_net_pair_block_t *block, void *owner);

/**
 * weft_net_add_blocks:
 * @net: an analytical network.
 * @n: how many edges.
 * @edges: (array length=n): directed edge ids.
 * @phases: (array length=n): per edge, a GArray of weft_net_phase_t: the collective's phases
 *   on it, offsets from now, in start order (kept by reference: they must outlive @net's use
 *   of them).
 * @span_ps: (array length=n): per edge, the latest phase end.
 * @busy_ps, @peak_util: (array length=n): per edge, its busy time and peak utilization from
 *   those phases alone.
 * @bytes_fx: (array length=n): each edge's bytes, in weft_net_bytes_fx() units, credited now.
 *
 * Adds, at the current time, the bandwidth phases of a collective run as one timed event
 * to each edge's busy time and peak, and its bytes. While nothing else is on an edge its
 * phases count as the whole (@busy_ps, @peak_util, O(1)); when another transfer or block
 * starts on it before they end, they are replayed phase by phase in start order with it,
 * so busy time (the union of phases) and peak (the largest sum of usages) come out as if
 * every transfer had run. Call weft_net_settle() before reading statistics. Time
 * complexity: O(n) when the edges carry nothing else.
 */
void weft_net_add_blocks(weft_net_t *net, guint n, const gint *edges, GArray *const *phases,
                         const weft_time_t *span_ps, const weft_time_t *busy_ps,
                         const double *peak_util, const guint64 *bytes_fx);

/**
 * weft_net_settle:
 * @net: the network.
 *
 * Replays the phases of timed blocks (weft_net_add_blocks()) that started by now, so that
 * weft_net_link_stats() counts them; a no-op without blocks. Time complexity: O(phases
 * left).
 */
void weft_net_settle(weft_net_t *net);

/**
 * weft_net_next_flow_id:
 * @net: the network.
 * @src, @dst: vertex ids.
 * Returns: the ECMP flow id (weft_fabric_route_ecmp()) the next transfer from
 * @src to @dst gets: the number of transfers between them so far (pairs whose
 * route is fixed may count fewer: their flow id picks nothing). A path
 * therefore depends on its own pair's history only, never on unrelated
 * traffic. Time complexity: one hash lookup.
 */
guint64 weft_net_next_flow_id(const weft_net_t *net, gint src, gint dst);

/**
 * weft_net_options:
 * @net: the network.
 * Returns: the options it was created with (for a second network alike).
 */
const weft_net_options_t *weft_net_options(const weft_net_t *net);

/** weft_net_stats: totals so far. */
const weft_net_stats_t *weft_net_stats(const weft_net_t *net);

/** weft_net_model_name: "analytical" or "flow". */
const char *weft_net_model_name(weft_net_model_t model);

/** weft_net_model: the model @net runs. */
weft_net_model_t weft_net_model(const weft_net_t *net);

/* ---- links: capacity changes and statistics --------------------------------------- */

/**
 * weft_net_set_link_capacity:
 * @net: the network.
 * @edge: a directed edge id of the cluster.
 * @capacity_Bps: its new capacity in bytes/s, finite and >= 0 (0: a link that
 *   is down; transfers over it stall at rate 0 until it comes back).
 *
 * Flow: the rates of the transfers sharing the edge's component are re-solved
 * at the current instant (batched with other changes). Routes do not change
 * (rerouting around a failed link is the fault module's business). The
 * analytical model ignores this call (it reads route rates and its ports'
 * capacities from the fabric state: weft_net_set_link_fraction()).
 * Time complexity: O(1) now plus its part of the next solve.
 */
void weft_net_set_link_capacity(weft_net_t *net, gint edge, double capacity_Bps);

/**
 * weft_net_set_link_fraction:
 * @net: the network.
 * @edge: a directed edge id of the cluster.
 * @fraction: the share of its bandwidth in service, in [0, 1]: 1 nominal,
 *   (0, 1) degraded, 0 down (a fault: weft_fabric_set_link_fraction()).
 * @error: WEFT_NET_ERROR_LINK for a fraction outside [0, 1].
 *
 * Changes the link's state in the network's fabric state, never in the cluster
 * (routes computed from now on avoid a
 * link that is down and see a degraded one's bandwidth) and, under flow, its
 * capacity (edge bandwidth x @fraction, re-solved at this instant). Under
 * flow, a link going down also moves every transfer in its bandwidth phase
 * over it to a new route, computed with its own ECMP flow id over the links
 * that are up (a surviving equal-cost path when one is left, else the
 * shortest path left), with its remaining bytes; bytes already sent are
 * counted on the old route's links. A transfer left with no path stalls; the
 * first such one is kept as the stranded error (weft_net_stranded()) and the
 * simulation is stopped (weft_sim_stop()), so the run ends there instead of
 * hanging. Transfers in their latency phase (every byte sent) arrive as
 * planned. Under analytical, transfers already running end as scheduled and
 * only new ones see the change.
 * Time complexity: O(V + E) to rebuild the routing views when the link goes
 * down or up, plus O(transfers in flight x hops) to find those to move.
 * Returns: TRUE unless @fraction is out of range.
 */
gboolean weft_net_set_link_fraction(weft_net_t *net, gint edge, double fraction, GError **error);

/**
 * weft_net_stranded:
 * Returns: (transfer none) (nullable): the WEFT_NET_ERROR_STRANDED of the first
 * transfer a link left with no path (naming the transfer's ends, its size and
 * bytes left, the instant and the link), or NULL.
 */
const GError *weft_net_stranded(const weft_net_t *net);

/** Statistics of one directed edge (see the essay). */
typedef struct {
    double capacity_Bps; /* current capacity (the edge bandwidth unless changed) */
    double bytes;        /* bytes carried so far (a_te x bytes sent, summed over transfers) */
    weft_time_t busy_ps; /* time with usage > 0 up to now (analytical: the union of the
                            bandwidth phases crossing the edge) */
    double mean_util;    /* bytes / (edge bandwidth x now); 0 at time 0 */
    double peak_util;    /* max usage / capacity: flow, after any solve (<= 1); analytical,
                            at any start or capacity change (> 1 where transfers overlap) */
    double usage_Bps;    /* flow: current usage; analytical: 0 */
    guint n_transfers;   /* flow: transfers in their bandwidth phase on the edge; analytical: 0 */
} weft_net_link_stats_t;

/**
 * weft_net_link_stats:
 * @net: the network.
 * @edge: a directed edge id.
 * Returns: the edge's statistics as of now. Under flow, bytes of transfers
 * still in their bandwidth phase are counted when the phase ends (or when the
 * transfer is cancelled: the bytes it sent). Time complexity: O(1).
 */
weft_net_link_stats_t weft_net_link_stats(const weft_net_t *net, gint edge);

/**
 * weft_net_enable_timeseries:
 * @net: a network with no transfer started yet.
 * @interval_ps: sampling interval in picoseconds (> 0).
 *
 * Records every change of every edge's usage, so that
 * weft_net_link_timeseries() can sample it. Memory: one (time, usage) pair
 * per edge whose usage changes at a solve, per solve.
 */
void weft_net_enable_timeseries(weft_net_t *net, weft_time_t interval_ps);

/**
 * weft_net_link_timeseries:
 * @net: a network with time series enabled.
 * @edge: a directed edge id.
 * @n_samples: (out): floor(now / interval) + 1.
 * Returns: (transfer full): the edge's usage in bytes/s at times 0, interval,
 * 2 interval, ... <= now (the usage in force at that instant, after any solve
 * at it); all zero under the analytical model. Free with g_free().
 */
double *weft_net_link_timeseries(const weft_net_t *net, gint edge, guint *n_samples);

/**
 * weft_net_check_error:
 * Returns: (transfer none) (nullable): the first failure of weft_lmm_check()
 * after a solve, when options.check_solves is set; NULL if every check passed.
 */
const GError *weft_net_check_error(const weft_net_t *net);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_net_t, weft_net_free)

G_END_DECLS

#endif /* WEFT_NET_NET_H */
