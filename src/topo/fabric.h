/* SPDX-License-Identifier: MIT */
/*
 * Fabric state: what one run changes about a cluster, and the routes over it.
 *
 * A cluster (topo/topo.h) is immutable once finalized: its vertices, links,
 * nominal bandwidths and latencies, NVLink domains and routing views. What a
 * run changes lives here, in a weft_fabric_t made over a const cluster: the
 * fraction of each link's bandwidth in service (faults: down, degraded), the
 * ECMP seed, and everything routing caches (distances, own-rail NICs, routes
 * per ECMP slot). Many fabric states may share one cluster, one per thread:
 * a study's points run on one cluster built once, each with its own fabric
 * state. (Not to be confused with a cluster file's `fabric` key, the kind of
 * scale-out network, or with the "fabric view" below.)
 *
 * The cluster's views are shared while every link is up; a fabric state
 * whose links go down builds its own views without them (O(V + E)) and
 * drops them when the last one comes back up, so the views it routes on are
 * always exactly those a cluster built without the down links would have.
 * Nothing here writes into the cluster; the routes a fabric state hands out
 * live as long as it does.
 *
 * Threads: a fabric state belongs to one thread at a time (its caches change
 * on every lookup); the cluster under it may be shared by any number of
 * them. The igraph BFS behind uncached distances runs on the shared views
 * under weft_topo_i_igraph_lock() (topo_private.h), like every igraph call.
 *
 * Routes. A route from one vertex to another is a set of paths with the
 * fraction of the bytes each carries. It is made of segments, each a shortest
 * path by hop count in one view:
 *  - between two vertices of the same NVLink domain, one segment in the NVLink
 *    view: traffic inside a node stays on NVLink;
 *  - between vertices in different NVLink domains (or in none) that are not
 *    on one host (weft_topo_vertex_host(); -1 is no host), the rail segment
 *    rule when it applies: a GPU with a host and a rail has an own-rail NIC
 *    when a NIC of its host on its rail is reachable from it in the fabric
 *    view without leaving the host (the nearest such NIC, ties to the lowest
 *    vertex id). The source's own-rail NIC is the exit, the destination's the
 *    entry, and the route is
 *      source -> exit NIC (shortest within the source's host, fabric edges)
 *      + exit NIC -> entry NIC (ECMP over the network view, so the middle
 *        never crosses a host's PCIe switch)
 *      + entry NIC -> destination (shortest within the destination's host).
 *    On a rail-optimized cluster GPU i's traffic leaves through NIC i and
 *    reaches the destination GPU j through NIC j, as issue 3 asks, even on a
 *    DGX A100 where a shorter path leaves through the PCIe switch's other NIC.
 *    When only one end has an own-rail NIC, that end's segment stays and the
 *    other end is the middle segment's own end (a leaf to a GPU enters
 *    through the GPU's NIC; a GPU to a remote NIC leaves through its own).
 *    The rule applies when the network view joins the middle segment's ends.
 *    Where a GPU i is linked directly to NIC i (DGX H100, B200, GB200) the
 *    rule gives the routes shortest paths gave;
 *  - otherwise (no own-rail NIC at either end: bare GPUs on a fabric,
 *    ASTRA-sim YAML, GPUs with no rail or no NIC on their rail; an end that is
 *    reached only through its host's internal links, which the network view
 *    leaves out; two GPUs of one host in different domains, which talk over
 *    their PCIe switch), one segment in the fabric view: traffic between
 *    nodes never crosses another GPU's NVLink; only when the fabric cannot
 *    join the pair (a GPU without a NIC) does the route use every edge.
 * Among the equal-cost paths:
 *  - where they differ only in which NVSwitch chip they cross (the planes of
 *    one NVLink domain), the route sprays the bytes over all of them in
 *    proportion to each path's bottleneck bandwidth: NVLink hardware stripes
 *    traffic over every link of a GPU, which is how one H100 reaches 450 GB/s
 *    per direction to a peer through four NVSwitch chips;
 *  - otherwise ECMP picks one path, hop by hop, as switches hash a flow: at each
 *    vertex the candidates are the out-edges one hop closer to the segment's
 *    end; if some lead to a vertex on the rail of the route's source or
 *    destination (weft_topo_vertex_rail(), -1 matches nothing), only those
 *    stay (rail affinity: without own-rail NICs a GPU still prefers NIC i and
 *    rail i's leaf among equal paths); one is chosen by the transfer's ECMP
 *    slot. The slot is splitmix64(seed, src, dst, flow_id) mod 64; the slot's
 *    digits in mixed radix over the hops of the whole route that have a
 *    choice (all segments together), each rotated by splitmix64(seed, src,
 *    dst, hop number in the route), pick the candidates, so the 64 slots split
 *    evenly over the paths where the fan-outs divide 64 and a pair's
 *    transfers spread over the paths as their flow ids hash over slots (1,000
 *    transfers over 4 spines: 250 +- 14 each).
 * A segmented route is one path, the segments' edges in order: hops counts
 * them all, latency sums them, the rate is the bottleneck over all segments.
 * Routes are cached per (src, dst, slot), or once per pair when no hop has a
 * choice (and for sprayed routes), and are never freed while the fabric state
 * lives (changing the ECMP seed or a link only empties the look-up table).
 * Route latency is the
 * largest sum of link latencies over its paths; the analytical rate of a route
 * is min over paths of (path bottleneck bandwidth / path share), which for
 * proportional spraying is the sum of the paths' bottlenecks. Cross-rail
 * traffic climbs as high as the fabric needs (to the core of a three-tier
 * rail-optimized fabric, whose rails are separate spine groups): NCCL avoids
 * that with PXN, moving the data over NVLink to the GPU on the destination's
 * rail first, which is a collective algorithm's choice, not the route's.
 *
 * Complexity: building is O(V + E). Hop distances to a segment's end come
 * from a local BFS inside its NVLink domain or host (tens of vertices), or in
 * the fabric and network views from one igraph BFS (O(V + E)) to the end's
 * "funnel": following from the end while a vertex has exactly one other
 * neighbour in the view (an entry NIC -> its leaf, which is the funnel;
 * GPU -> NIC -> leaf in the fabric view); distances are then those to the
 * funnel plus the chain's length. Distance arrays are kept in a
 * least-recently-used cache of at most 1 GiB per fabric state, keyed by view
 * and funnel; own-rail NICs are looked up once per GPU. A route then costs
 * O(hops x degree). Measured with bench/bench_topo (2 cores, -O2), ring over
 * all GPUs (GPU g -> g+1) and with stride 8 (every step crosses nodes: one BFS
 * per destination leaf): 2,048-node DGX H100-like rail-optimized cluster
 * (16,384 GPUs, 42k vertices, 262k edges) 0.06 s to build, routes 0.10 s and
 * 0.49 s, 107 MiB peak; the same file with kind = dgx-a100 (PCIe switches, 55k
 * vertices) 0.12 s and 0.5-0.7 s, 119 MiB, where the fabric view's funnel was
 * the PCIe switch (four times as many BFS) before the rail segment rule: 4.1 s
 * and 16 s; the Selene-like 560-node A100 SuperPOD 0.02 s and 0.06 s (0.31 s
 * and 1.1 s before).
 */
#ifndef WEFT_TOPO_FABRIC_H
#define WEFT_TOPO_FABRIC_H

#include <glib.h>

#include "core/time.h"
#include "topo/topo.h"

G_BEGIN_DECLS

/** A route: @n_paths paths; path p is edges[path_off[p] .. path_off[p+1]) and carries share[p] of
 * the bytes. */
typedef struct {
    guint n_paths;
    const guint32 *path_off; /* n_paths + 1 offsets into edges */
    const gint32 *edges;     /* igraph edge ids, in order from source to destination */
    const double *share;     /* fraction of the bytes per path; sums to 1 */
    weft_time_t latency_ps;  /* max over paths of the sum of link latencies */
    double rate_Bps;         /* analytical rate: min over paths of bottleneck / share */
    guint hops;              /* edges on the longest path */
} weft_route_t;

typedef struct weft_fabric weft_fabric_t;

/**
 * weft_fabric_new:
 * @topo: a finalized cluster (borrowed, read only: it must outlive the fabric
 *   state; other fabric states and threads may share it).
 * Returns: (transfer full): the cluster's state at the start of a run: every
 * link up at its nominal bandwidth, ECMP seed 0, empty caches. Allocates
 * O(V) (scratch and own-rail NIC arrays); no igraph call. Thread-safe with
 * respect to other fabric states over @topo.
 */
weft_fabric_t *weft_fabric_new(const weft_topo_t *topo);

/** weft_fabric_free: frees @fab and every route it handed out; NULL is a no-op. */
void weft_fabric_free(weft_fabric_t *fab);

/** weft_fabric_topo: (transfer none): the cluster @fab is the state of. */
const weft_topo_t *weft_fabric_topo(const weft_fabric_t *fab);

/* ---- routes --------------------------------------------------------------------------- */

/**
 * weft_fabric_route:
 * @fab: the fabric state.
 * @src, @dst: vertex ids; may be equal (an empty route: no paths, latency 0,
 *   rate infinite).
 * @error: WEFT_TOPO_ERROR_NO_ROUTE naming both vertices.
 *
 * Returns: (transfer none): the cached route, valid as long as @fab (also
 * across later link and seed changes); NULL on error. weft_fabric_route_ecmp()
 * with flow id 0. Time: one or two hash lookups when cached, else O(hops x
 * degree) plus the distances (see above).
 */
const weft_route_t *weft_fabric_route(weft_fabric_t *fab, gint src, gint dst, GError **error);

/**
 * weft_fabric_route_ecmp:
 * @fab: the fabric state.
 * @src, @dst: vertex ids.
 * @flow_id: identifies the transfer (the network model numbers the transfers of
 *   each (src, dst) pair: net.h, weft_net_next_flow_id()); the route
 *   among equal-cost paths is chosen by a deterministic hash of (seed, src,
 *   dst, flow_id), as switches hash a flow's header fields.
 * @error: WEFT_TOPO_ERROR_NO_ROUTE naming both vertices.
 *
 * Returns: (transfer none): the route, valid as long as @fab (also across
 * weft_fabric_set_ecmp_seed()); NULL on error.
 */
const weft_route_t *weft_fabric_route_ecmp(weft_fabric_t *fab, gint src, gint dst, guint64 flow_id,
                                           GError **error);

/**
 * weft_fabric_route_ecmp_slot:
 * weft_fabric_route_ecmp() for a pair known to have an ECMP choice (src != dst): the
 * flow's slot is looked up at once, skipping the lookup of a fixed route; the same route.
 * One hash lookup when the slot's route is cached.
 */
const weft_route_t *weft_fabric_route_ecmp_slot(weft_fabric_t *fab, gint src, gint dst,
                                                guint64 flow_id, GError **error);

/**
 * WEFT_FABRIC_ECMP_SLOTS: how many ECMP slots a pair's flows hash to (route.c): a pair with
 * an ECMP choice has at most this many distinct routes, one per slot.
 */
#define WEFT_FABRIC_ECMP_SLOTS 64u

/**
 * weft_fabric_ecmp_slot:
 * @fab: the fabric state.
 * @src, @dst: vertex ids.
 * @flow_id: the flow (weft_fabric_route_ecmp()).
 * Returns: the slot, in [0, WEFT_FABRIC_ECMP_SLOTS), that flow @flow_id of (@src, @dst)
 * hashes to under @fab's ECMP seed; weft_fabric_route_ecmp() is weft_fabric_route_slot() of
 * it. O(1), no lookup.
 */
guint weft_fabric_ecmp_slot(const weft_fabric_t *fab, gint src, gint dst, guint64 flow_id);

/**
 * weft_fabric_route_slot:
 * @fab: the fabric state.
 * @src, @dst: vertex ids.
 * @slot: an ECMP slot, < WEFT_FABRIC_ECMP_SLOTS.
 * @error: WEFT_TOPO_ERROR_NO_ROUTE naming both vertices.
 * Returns: (transfer none): the route of every flow of (@src, @dst) that hashes to @slot
 * (the fixed route when the pair has no ECMP choice), computed and cached on first use,
 * valid as long as @fab; NULL on error. One or two hash lookups when cached.
 */
const weft_route_t *weft_fabric_route_slot(weft_fabric_t *fab, gint src, gint dst, guint slot,
                                           GError **error);

/**
 * weft_fabric_route_is_fixed:
 * @fab: the fabric state.
 * @src, @dst: vertex ids.
 * Returns: TRUE when every flow id gets the same route from @src to @dst (one
 * path, or NVSwitch planes sprayed as one route), FALSE when ECMP hashing picks
 * among paths or there is no route. Time complexity: one route lookup.
 */
gboolean weft_fabric_route_is_fixed(weft_fabric_t *fab, gint src, gint dst);

/**
 * weft_fabric_route_fixed_cached:
 * @fab: the fabric state.
 * @src, @dst: vertex ids, @src != @dst.
 * Returns: (nullable): the route from @src to @dst if it is fixed (see
 * weft_fabric_route_is_fixed()) and already in the route cache, else NULL (not
 * computed yet, or chosen per flow). One hash lookup; never computes a route.
 */
const weft_route_t *weft_fabric_route_fixed_cached(const weft_fabric_t *fab, gint src, gint dst);

/**
 * weft_fabric_route_epoch: a count that changes whenever the route cache is emptied (link
 * state changes, weft_fabric_set_ecmp_seed()): a caller's own note of a pair's route (fixed
 * or not, and the pointer) holds while it stays the same.
 */
guint64 weft_fabric_route_epoch(const weft_fabric_t *fab);

/**
 * weft_fabric_count_paths:
 * The number of equal-cost paths ECMP chooses among from @src to @dst (1 where
 * there is one, and for @src == @dst; a sprayed NVLink route counts as 1): for
 * each segment of the route (see above), in the view it uses, by dynamic
 * programming over the distance layers, before rail affinity narrows them;
 * the product over the segments. Saturates at G_MAXUINT64.
 * Returns: FALSE with WEFT_TOPO_ERROR_NO_ROUTE if there is no path.
 */
gboolean weft_fabric_count_paths(weft_fabric_t *fab, gint src, gint dst, guint64 *n_paths,
                                 GError **error);

/* ---- ECMP --------------------------------------------------------------------------- */

/**
 * weft_fabric_set_ecmp_seed: the seed mixed into every ECMP hash (0 at creation). Empties
 * the route look-up table (routes handed out stay valid). O(cached routes).
 */
void weft_fabric_set_ecmp_seed(weft_fabric_t *fab, guint64 seed);

/** weft_fabric_ecmp_seed: the seed set by weft_fabric_set_ecmp_seed(), 0 by default. */
guint64 weft_fabric_ecmp_seed(const weft_fabric_t *fab);

/* ---- link state (faults) ---------------------------------------------------------- */

/**
 * weft_fabric_set_link_fraction:
 * @fab: the fabric state.
 * @e: a directed edge id.
 * @fraction: the share of the edge's bandwidth in service, in [0, 1]: 1 =
 *   nominal (the default), 0 < f < 1 = degraded (a link retrained to fewer
 *   lanes or a lower rate), 0 = down.
 * @error: WEFT_TOPO_ERROR_VALUE naming the link and the value outside [0, 1];
 *   WEFT_TOPO_ERROR_GRAPH if igraph fails rebuilding the views.
 *
 * A link that is down leaves every routing view of @fab: routes computed from
 * now on avoid it (equal-cost paths that survive, else longer ones, else
 * WEFT_TOPO_ERROR_NO_ROUTE); the own-rail NIC of a GPU whose NIC lost its
 * links becomes the nearest NIC that still has them (NCCL falls back to
 * another NIC likewise). A degraded link stays in the routes; routes computed
 * from now on see its bandwidth times @fraction (weft_fabric_edge_bw_now()). A
 * change forgets the cached routes and distances (routes already handed out
 * stay valid, with the rates they were computed with); going down or up also
 * rebuilds @fab's own views (none once every link is up again): O(V + E).
 * NVLink domains keep their numbering. The cluster is not touched.
 * Returns: TRUE on success (also when nothing changes).
 */
gboolean weft_fabric_set_link_fraction(weft_fabric_t *fab, gint e, double fraction, GError **error);

/** weft_fabric_edge_fraction: the fraction set by weft_fabric_set_link_fraction(), 1 by
 * default. */
double weft_fabric_edge_fraction(const weft_fabric_t *fab, gint e);

/** weft_fabric_edge_bw_now: weft_topo_edge_bw() x weft_fabric_edge_fraction(), bytes/s. O(1). */
double weft_fabric_edge_bw_now(const weft_fabric_t *fab, gint e);

/** weft_fabric_link_version: how many link state changes @fab has seen (0 at creation). */
guint64 weft_fabric_link_version(const weft_fabric_t *fab);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_fabric_t, weft_fabric_free)

G_END_DECLS

#endif /* WEFT_TOPO_FABRIC_H */
