/* SPDX-License-Identifier: MIT */
/*
 * The cluster graph.
 *
 * A cluster is an igraph directed graph. Vertices are GPUs, NVSwitches, NICs,
 * network switches and hosts (CPUs); each full-duplex link is two directed edges,
 * one per direction, so a link's two directions are independent resources (as
 * they are in NVLink, PCIe and InfiniBand). Per-vertex and per-edge attributes
 * live in typed arrays indexed by igraph vertex and edge ids, not in igraph's
 * attribute tables, so the hot paths read plain arrays.
 *
 * Links that run in parallel between the same two vertices (the 18 NVLink4
 * links of an H100 spread 5/4/4/5 over four NVSwitch chips) are one edge whose
 * bandwidth is their sum and whose `lanes` attribute counts them.
 *
 * GPUs are numbered 0..n_gpus-1 in the order they were added; that number is
 * what placement maps ranks onto.
 *
 * NVLink domains. finalize numbers the connected components of the NVLink
 * edges (see weft_topo_vertex_domain()) and builds three views of the graph
 * with the same vertex ids: the NVLink edges, the "fabric" (every other edge:
 * PCIe, InfiniBand, Ethernet, generic), and the "network" (the fabric edges
 * but those joining two vertices of one host: NIC-switch and switch-switch
 * links, and links of vertices with no host).
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
 * choice (and for sprayed routes), and are never freed while the cluster lives
 * (changing the ECMP seed only empties the look-up table). Route latency is the
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
 * least-recently-used cache of 64 MiB keyed by view and funnel; own-rail NICs
 * are looked up once per GPU. A route then costs O(hops x degree). Measured
 * with bench/bench_topo (2 cores, -O2), ring over all GPUs (GPU g -> g+1) and
 * with stride 8 (every step crosses nodes: one BFS per destination leaf):
 * 2,048-node DGX H100-like rail-optimized cluster (16,384 GPUs, 42k vertices,
 * 262k edges) 0.06 s to build, routes 0.10 s and 0.49 s, 107 MiB peak; the
 * same file with kind = dgx-a100 (PCIe switches, 55k vertices) 0.12 s and
 * 0.5-0.7 s, 119 MiB, where the fabric view's funnel was the PCIe switch (four
 * times as many BFS) before the rail segment rule: 4.1 s and 16 s; the
 * Selene-like 560-node A100 SuperPOD 0.02 s and 0.06 s (0.31 s and 1.1 s
 * before).
 */
#ifndef WEFT_TOPO_TOPO_H
#define WEFT_TOPO_TOPO_H

#include <glib.h>

#include "core/time.h"

G_BEGIN_DECLS

#define WEFT_TOPO_ERROR (weft_topo_error_quark())
GQuark weft_topo_error_quark(void);

typedef enum {
    WEFT_TOPO_ERROR_PARSE, /* the file is not valid INI/YAML, or a value does not parse */
    WEFT_TOPO_ERROR_KEY,   /* unknown or missing group, key or kind */
    WEFT_TOPO_ERROR_VALUE, /* a value out of range (zero bandwidth, negative count, ...) */
    WEFT_TOPO_ERROR_GRAPH, /* the graph is invalid: self-loop, duplicate name, disconnected GPU */
    WEFT_TOPO_ERROR_NO_ROUTE, /* no path between two vertices */
    WEFT_TOPO_ERROR_IO,       /* the file cannot be read */
} weft_topo_error_t;

typedef enum {
    WEFT_VERTEX_GPU,
    WEFT_VERTEX_NVSWITCH,
    WEFT_VERTEX_NIC,
    WEFT_VERTEX_SWITCH,
    WEFT_VERTEX_HOST,
} weft_vertex_kind_t;

typedef enum {
    WEFT_LINK_NVLINK,
    WEFT_LINK_PCIE,
    WEFT_LINK_INFINIBAND,
    WEFT_LINK_ETHERNET,
    WEFT_LINK_GENERIC,
} weft_link_kind_t;

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

typedef struct weft_topo weft_topo_t;

/** weft_topo_new: an empty cluster named @name (for messages; may be NULL). */
weft_topo_t *weft_topo_new(const char *name);

/** weft_topo_free: NULL is a no-op. */
void weft_topo_free(weft_topo_t *topo);

/**
 * weft_topo_add_vertex:
 * @topo: a cluster not yet finalized.
 * @kind: what the vertex is.
 * @name: unique name, copied (e.g. "node3/gpu5").
 * @host: index of the host (node) it belongs to, or -1.
 * @rail: rail index (GPU i of a node and its NIC are on rail i), or -1.
 * @error: WEFT_TOPO_ERROR_GRAPH for a duplicate name.
 * Returns: the vertex id, or -1 on error. GPUs get GPU numbers in order of addition.
 */
gint weft_topo_add_vertex(weft_topo_t *topo, weft_vertex_kind_t kind, const char *name, gint host,
                          gint rail, GError **error);

/**
 * weft_topo_add_link:
 * @topo: a cluster not yet finalized.
 * @u, @v: vertex ids; different.
 * @kind: the link technology.
 * @bw_Bps: bandwidth per direction in bytes per second (> 0, finite).
 * @latency_ps: one-way latency in picoseconds (>= 0).
 * @lanes: how many physical links this edge stands for (>= 1).
 * @error: WEFT_TOPO_ERROR_GRAPH (self-loop, unknown vertex) or WEFT_TOPO_ERROR_VALUE.
 *
 * Adds a full-duplex link: two directed edges, u->v then v->u.
 * Returns: the id of the u->v edge (v->u is that id + 1), or -1 on error.
 */
gint weft_topo_add_link(weft_topo_t *topo, gint u, gint v, weft_link_kind_t kind, double bw_Bps,
                        weft_time_t latency_ps, guint lanes, GError **error);

/**
 * weft_topo_finalize:
 * @topo: the cluster.
 * @error: WEFT_TOPO_ERROR_GRAPH if it has no GPU or a GPU cannot reach every other GPU.
 *
 * Checks the cluster and makes it ready for routing; no vertex or link may be
 * added afterwards. Returns: TRUE on success.
 */
gboolean weft_topo_finalize(weft_topo_t *topo, GError **error);

/**
 * weft_topo_load:
 * @path: a cluster file: INI (weft's own, see doc/clusters.md), ASTRA-sim
 *        network YAML (.yml/.yaml) or GraphML (.graphml, or content starting
 *        "<?xml" or "<graphml"), chosen by name and content.
 * @error: WEFT_TOPO_ERROR_* with the file name, key and value.
 * Returns: (transfer full): a finalized cluster, or NULL.
 */
weft_topo_t *weft_topo_load(const char *path, GError **error);

/** weft_topo_load_ini: as weft_topo_load() for an INI file. */
weft_topo_t *weft_topo_load_ini(const char *path, GError **error);

/** weft_topo_load_astra_yaml: as weft_topo_load() for an ASTRA-sim network YAML file. */
weft_topo_t *weft_topo_load_astra_yaml(const char *path, GError **error);

/* Accessors; ids must be valid. */
const char *weft_topo_name(const weft_topo_t *topo);
guint weft_topo_n_vertices(const weft_topo_t *topo);
guint weft_topo_n_edges(const weft_topo_t *topo);
guint weft_topo_n_gpus(const weft_topo_t *topo);
/** weft_topo_gpu_vertex: the vertex id of GPU number @gpu. */
gint weft_topo_gpu_vertex(const weft_topo_t *topo, guint gpu);
weft_vertex_kind_t weft_topo_vertex_kind(const weft_topo_t *topo, gint v);
const char *weft_topo_vertex_name(const weft_topo_t *topo, gint v);
gint weft_topo_vertex_host(const weft_topo_t *topo, gint v);
gint weft_topo_vertex_rail(const weft_topo_t *topo, gint v);
/** weft_topo_find_vertex: the id of the vertex named @name, or -1. */
gint weft_topo_find_vertex(const weft_topo_t *topo, const char *name);
gint weft_topo_edge_from(const weft_topo_t *topo, gint e);
gint weft_topo_edge_to(const weft_topo_t *topo, gint e);
double weft_topo_edge_bw(const weft_topo_t *topo, gint e);
weft_time_t weft_topo_edge_latency(const weft_topo_t *topo, gint e);
weft_link_kind_t weft_topo_edge_kind(const weft_topo_t *topo, gint e);
guint weft_topo_edge_lanes(const weft_topo_t *topo, gint e);
const char *weft_topo_vertex_kind_name(weft_vertex_kind_t kind);
const char *weft_topo_link_kind_name(weft_link_kind_t kind);

/**
 * weft_topo_route:
 * @topo: a finalized cluster.
 * @src, @dst: vertex ids; may be equal (an empty route: no paths, latency 0,
 *   rate infinite).
 * @error: WEFT_TOPO_ERROR_NO_ROUTE naming both vertices.
 *
 * Returns: (transfer none): the cached route, valid as long as @topo; NULL on
 * error. Not thread-safe: one cluster per simulation thread.
 */
const weft_route_t *weft_topo_route(weft_topo_t *topo, gint src, gint dst, GError **error);

/* ---- more per-vertex attributes ------------------------------------------------ */

/**
 * weft_topo_set_vertex_tier:
 * @topo: a cluster not yet finalized.
 * @v: a switch vertex.
 * @tier: its tier in a scale-out fabric: 1 = leaf (top of rack / rail switch),
 *   2 = spine, 3 = core (super-spine); 0 = not part of a tiered fabric (the default).
 *
 * Tiers let reports give the oversubscription of each tier (bandwidth towards
 * the GPUs : bandwidth towards the next tier up). Builders set them; GraphML
 * keeps them.
 */
void weft_topo_set_vertex_tier(weft_topo_t *topo, gint v, guint tier);
guint weft_topo_vertex_tier(const weft_topo_t *topo, gint v);

/* In-network features of a switch vertex (weft_topo_set_vertex_features()). */
enum {
    /* an NVSwitch that reduces and multicasts (NVLink SHARP, "NVLS": NVSwitch gen3+) */
    WEFT_TOPO_FEATURE_NVLS = 1u << 0,
    /* an InfiniBand switch with in-network reduction (SHARP: Quantum HDR, NDR, XDR) */
    WEFT_TOPO_FEATURE_SHARP = 1u << 1,
};

/**
 * weft_topo_set_vertex_features:
 * @topo: a cluster (finalized or not: features do not change routes).
 * @v: a vertex: NVLS only on an NVSwitch, SHARP only on a network switch.
 * @features: a mask of WEFT_TOPO_FEATURE_* (0: none, the default).
 *
 * Collectives read them (coll.h: NVLS and CollNet algorithms). Builders set
 * them from the catalog (an NVSwitch generation with sharp; InfiniBand leaf,
 * spine and core switches of HDR or faster fabrics); GraphML keeps them as the
 * vertex attribute "features" ("nvls", "sharp", comma-separated).
 */
void weft_topo_set_vertex_features(weft_topo_t *topo, gint v, guint features);

/** weft_topo_vertex_features: the mask set by weft_topo_set_vertex_features(), 0 by default. */
guint weft_topo_vertex_features(const weft_topo_t *topo, gint v);

/**
 * weft_topo_set_vertex_msg_cost:
 * @topo: a cluster (finalized or not: the cost does not change routes).
 * @v: a NIC vertex (any vertex for 0).
 * @cost_ps: the NIC's cost per network message, ps, >= 0 (0: none, the default): the
 *   time its host stack spends on each message, which caps its message rate (hw.h:
 *   weft_hw_nic_t.msg_cost_ps; AWS EFA 3 us). Builders set it from the catalog;
 *   GraphML keeps it as the vertex attribute "msg_cost_ps" (picoseconds).
 * Collectives read it (coll/tuning.h: weft_coll_system_init()).
 */
void weft_topo_set_vertex_msg_cost(weft_topo_t *topo, gint v, weft_time_t cost_ps);

/** weft_topo_vertex_msg_cost: the cost set by weft_topo_set_vertex_msg_cost(), 0 by default. */
weft_time_t weft_topo_vertex_msg_cost(const weft_topo_t *topo, gint v);

/**
 * weft_topo_is_abstract:
 * TRUE for a cluster with no NVLink link and no NIC: bare GPUs joined by
 * generic, PCIe or network links (an ASTRA-sim network, a ring, torus or
 * switch of GPUs), whose hardware NCCL's tuning tables do not describe.
 */
gboolean weft_topo_is_abstract(const weft_topo_t *topo);

/** weft_topo_nic_msg_cost: the largest per-message cost of any NIC of @topo, ps (0: none). */
weft_time_t weft_topo_nic_msg_cost(const weft_topo_t *topo);

/**
 * weft_topo_vertex_domain:
 * The NVLink domain of vertex @v: finalize numbers the connected components of
 * the NVLink edges (GPUs and NVSwitches joined by WEFT_LINK_NVLINK links) 0, 1, ...
 * in order of their lowest GPU number; a GPU with no NVLink link is a domain of
 * its own. Returns -1 for vertices in no domain (NICs, network switches, hosts).
 */
gint weft_topo_vertex_domain(const weft_topo_t *topo, gint v);

/** weft_topo_n_domains: NVLink domains (finalized clusters). */
guint weft_topo_n_domains(const weft_topo_t *topo);

/** weft_topo_n_hosts: 1 + the largest host index of any vertex (0 if none has one). */
guint weft_topo_n_hosts(const weft_topo_t *topo);

/* ---- link state (faults) ---------------------------------------------------------- */

/**
 * weft_topo_set_link_fraction:
 * @topo: a finalized cluster.
 * @e: a directed edge id.
 * @fraction: the share of the edge's bandwidth in service, in [0, 1]: 1 =
 *   nominal (the default), 0 < f < 1 = degraded (a link retrained to fewer
 *   lanes or a lower rate), 0 = down.
 * @error: WEFT_TOPO_ERROR_VALUE naming the link and the value outside [0, 1].
 *
 * A link that is down leaves every routing view: routes computed from now on
 * avoid it (equal-cost paths that survive, else longer ones, else
 * WEFT_TOPO_ERROR_NO_ROUTE); the own-rail NIC of a GPU whose NIC lost its
 * links becomes the nearest NIC that still has them (NCCL falls back to
 * another NIC likewise). A degraded link stays in the routes; routes computed
 * from now on see its bandwidth times @fraction (weft_topo_edge_bw_now()). A
 * change forgets the cached routes and distances (routes already handed out
 * stay valid, with the rates they were computed with); going down or up also
 * rebuilds the views: O(V + E). NVLink domains keep their numbering.
 * Returns: TRUE on success (also when nothing changes).
 */
gboolean weft_topo_set_link_fraction(weft_topo_t *topo, gint e, double fraction, GError **error);

/** weft_topo_edge_fraction: the fraction set by weft_topo_set_link_fraction(), 1 by default. */
double weft_topo_edge_fraction(const weft_topo_t *topo, gint e);

/** weft_topo_edge_bw_now: weft_topo_edge_bw() x weft_topo_edge_fraction(), bytes/s. */
double weft_topo_edge_bw_now(const weft_topo_t *topo, gint e);

/**
 * weft_topo_route_ecmp_slot:
 * weft_topo_route_ecmp() for a pair known to have an ECMP choice (src != dst): the
 * flow's slot is looked up at once, skipping the lookup of a fixed route; the same route.
 * One hash lookup when the slot's route is cached.
 */
const weft_route_t *weft_topo_route_ecmp_slot(weft_topo_t *topo, gint src, gint dst,
                                              guint64 flow_id, GError **error);

/**
 * WEFT_TOPO_ECMP_SLOTS: how many ECMP slots a pair's flows hash to (route.c): a pair with an
 * ECMP choice has at most this many distinct routes, one per slot.
 */
#define WEFT_TOPO_ECMP_SLOTS 64u

/**
 * weft_topo_ecmp_slot:
 * @topo: a cluster.
 * @src, @dst: vertex ids.
 * @flow_id: the flow (weft_topo_route_ecmp()).
 * Returns: the slot, in [0, WEFT_TOPO_ECMP_SLOTS), that flow @flow_id of (@src, @dst) hashes
 * to under the cluster's ECMP seed; weft_topo_route_ecmp() is weft_topo_route_slot() of it.
 * O(1), no lookup.
 */
guint weft_topo_ecmp_slot(const weft_topo_t *topo, gint src, gint dst, guint64 flow_id);

/**
 * weft_topo_route_slot:
 * @topo: a finalized cluster.
 * @src, @dst: vertex ids.
 * @slot: an ECMP slot, < WEFT_TOPO_ECMP_SLOTS.
 * @error: WEFT_TOPO_ERROR_NO_ROUTE naming both vertices.
 * Returns: (transfer none): the route of every flow of (@src, @dst) that hashes to @slot
 * (the fixed route when the pair has no ECMP choice), computed and cached on first use,
 * valid as long as @topo; NULL on error. One or two hash lookups when cached.
 */
const weft_route_t *weft_topo_route_slot(weft_topo_t *topo, gint src, gint dst, guint slot,
                                         GError **error);

/**
 * weft_topo_route_epoch: a count that changes whenever the route cache is emptied (link
 * state changes, weft_topo_set_ecmp_seed()): a caller's own note of a pair's route (fixed
 * or not, and the pointer) holds while it stays the same.
 */
guint64 weft_topo_route_epoch(const weft_topo_t *topo);

/** weft_topo_link_version: how many link state changes @topo has seen (0 at finalize). */
guint64 weft_topo_link_version(const weft_topo_t *topo);

/**
 * weft_topo_edges_between:
 * @topo: a cluster.
 * @u, @v: vertex ids.
 * @out: (out caller-allocates): a GArray of gint, emptied, then filled with
 *   the directed edges u -> v and v -> u (parallel links included).
 * Returns: how many (0 when @u and @v are not adjacent).
 */
guint weft_topo_edges_between(const weft_topo_t *topo, gint u, gint v, GArray *out);

/* ---- ECMP --------------------------------------------------------------------------- */

/** weft_topo_set_ecmp_seed: the seed mixed into every ECMP hash (default 0). Clears the route
 * cache. */
void weft_topo_set_ecmp_seed(weft_topo_t *topo, guint64 seed);

/**
 * weft_topo_route_is_fixed:
 * @topo: a finalized cluster.
 * @src, @dst: vertex ids.
 * Returns: TRUE when every flow id gets the same route from @src to @dst (one
 * path, or NVSwitch planes sprayed as one route), FALSE when ECMP hashing picks
 * among paths or there is no route. Time complexity: one route lookup.
 */
gboolean weft_topo_route_is_fixed(weft_topo_t *topo, gint src, gint dst);

/**
 * weft_topo_route_fixed_cached:
 * @topo: a finalized cluster.
 * @src, @dst: vertex ids, @src != @dst.
 * Returns: (nullable): the route from @src to @dst if it is fixed (see
 * weft_topo_route_is_fixed()) and already in the route cache, else NULL (not
 * computed yet, or chosen per flow). One hash lookup; never computes a route.
 */
const weft_route_t *weft_topo_route_fixed_cached(weft_topo_t *topo, gint src, gint dst);

/**
 * weft_topo_route_ecmp:
 * @topo: a finalized cluster.
 * @src, @dst: vertex ids.
 * @flow_id: identifies the transfer (the network model numbers the transfers of
 *   each (src, dst) pair: net.h, weft_net_next_flow_id()); the route
 *   among equal-cost paths is chosen by a deterministic hash of (seed, src,
 *   dst, flow_id), as switches hash a flow's header fields.
 * @error: WEFT_TOPO_ERROR_NO_ROUTE naming both vertices.
 *
 * Returns: (transfer none): the route, valid as long as @topo (also across
 * weft_topo_set_ecmp_seed()); NULL on error. weft_topo_route() is this with
 * @flow_id 0. Not thread-safe.
 */
const weft_route_t *weft_topo_route_ecmp(weft_topo_t *topo, gint src, gint dst, guint64 flow_id,
                                         GError **error);

/**
 * weft_topo_count_paths:
 * The number of equal-cost paths ECMP chooses among from @src to @dst (1 where
 * there is one, and for @src == @dst; a sprayed NVLink route counts as 1): for
 * each segment of the route (see above), in the view it uses, by dynamic
 * programming over the distance layers, before rail affinity narrows them;
 * the product over the segments. Saturates at G_MAXUINT64.
 * Returns: FALSE with WEFT_TOPO_ERROR_NO_ROUTE if there is no path.
 */
gboolean weft_topo_count_paths(weft_topo_t *topo, gint src, gint dst, guint64 *n_paths,
                               GError **error);

/* ---- files ---------------------------------------------------------------------------- */

/**
 * weft_topo_load_keyfile:
 * @kf: a key file holding a cluster description in group @group (the keys of
 *   an INI cluster file, see doc/clusters.md).
 * @group: usually "cluster".
 * @origin: the file name (or "scenario") used in messages.
 * @error: as weft_topo_load_ini().
 * Returns: (transfer full): a finalized cluster, or NULL.
 */
weft_topo_t *weft_topo_load_keyfile(GKeyFile *kf, const char *group, const char *origin,
                                    GError **error);

/**
 * weft_topo_load_graphml: reads a cluster written by weft_topo_write_graphml()
 * (or any GraphML whose vertices and edges carry weft's attributes, see
 * doc/clusters.md), through igraph's GraphML reader. Required: vertex kind and
 * name, edge kind and bandwidth_Bps; host and rail default to -1, tier,
 * latency_ps to 0, lanes to 1. A directed graph holds each link as two
 * consecutive opposite edges with the same attributes; in an undirected one
 * each edge is a link. The cluster is built through add_vertex/add_link/
 * finalize. Errors: WEFT_TOPO_ERROR_IO, _PARSE (not GraphML, wrong attribute
 * type), _KEY (unknown kind, missing attribute), _VALUE, _GRAPH (duplicate
 * name, unpaired edges, disconnected GPU), naming the file, the vertex or
 * edge and the value. Installs igraph's C attribute handler (process-wide).
 */
weft_topo_t *weft_topo_load_graphml(const char *path, GError **error);

/**
 * weft_topo_write_graphml: writes @topo as GraphML through igraph, with vertex
 * attributes kind, name, host, rail, tier, edge attributes kind,
 * bandwidth_Bps, latency_ps, lanes (every directed edge, in id order) and graph
 * attribute name. Written by weft_output_open() (core/output.h: a temporary
 * name, then renamed; "-" is standard output). igraph 0.10 writes
 * numbers with 15 significant digits, so a bandwidth with more (1e10/3 B/s)
 * reads back rounded; every value a cluster file can state round-trips.
 * Errors: WEFT_TOPO_ERROR_IO.
 */
gboolean weft_topo_write_graphml(const weft_topo_t *topo, const char *path, GError **error);

/**
 * weft_topo_write_dot: writes @topo in Graphviz DOT for drawing: one
 * undirected edge per link labelled "<kind> <GB/s> [xlanes]", the vertices of
 * host N (GPUs, NVSwitches, NICs, CPUs) in "subgraph cluster_hostN". Atomic as
 * above. Errors: WEFT_TOPO_ERROR_IO.
 */
gboolean weft_topo_write_dot(const weft_topo_t *topo, const char *path, GError **error);

/**
 * weft_topo_equal:
 * TRUE if @a and @b have the same vertices and directed edges, in the same
 * order, with the same attributes. When they differ and @why is not NULL, the
 * first difference is appended to it.
 */
gboolean weft_topo_equal(const weft_topo_t *a, const weft_topo_t *b, GString *why);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_topo_t, weft_topo_free)

G_END_DECLS

#endif /* WEFT_TOPO_TOPO_H */
