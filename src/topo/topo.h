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
 * Routes over the cluster, and everything a run changes about it (links down
 * or degraded by faults, the ECMP seed, the route caches), live in a fabric
 * state made over the finalized cluster (topo/fabric.h), never in the cluster.
 *
 * Immutability. Once finalized, a cluster is read only: every function that
 * takes it after finalize takes a const weft_topo_t *, and none of them changes
 * anything reachable from it, lazily or not (the views' igraph graphs are only
 * read, under weft_topo_i_igraph_lock() like every igraph call). So one
 * cluster may be shared by any number of threads, each with its own fabric
 * state, as a study's points do. The only setters that accept a finalized
 * cluster, weft_topo_set_vertex_features() and weft_topo_set_vertex_msg_cost()
 * (which do not change routes), are for the builders and readers, before the
 * cluster is handed out.
 */
#ifndef WEFT_TOPO_TOPO_H
#define WEFT_TOPO_TOPO_H

#include <glib.h>

#include "core/time.h"
#include "hw/hw.h"

G_BEGIN_DECLS

#define WEFT_TOPO_ERROR (weft_topo_error_quark())
GQuark weft_topo_error_quark(void);

/**
 * WEFT_TOPO_MAX_CLIQUE:
 *
 * The most GPUs (NPUs) one fully-connected group may hold, in every loader: a
 * weft cluster of kind fully-connected and a FullyConnected dimension of an
 * ASTRA-sim network YAML. n GPUs take n(n-1)/2 links: 4096 take 8,386,560,
 * about 3.4 GB once built (measured: 4097 NPUs took 3.4 GB).
 */
#define WEFT_TOPO_MAX_CLIQUE 4096u

/**
 * WEFT_TOPO_MAX_LINKS:
 *
 * The most links a generated cluster may have before it is built: as many as
 * the largest clique (WEFT_TOPO_MAX_CLIQUE GPUs), 8,386,560. An ASTRA-sim
 * network whose dimensions add up to more is refused with its count.
 */
#define WEFT_TOPO_MAX_LINKS ((guint64)WEFT_TOPO_MAX_CLIQUE * (WEFT_TOPO_MAX_CLIQUE - 1) / 2)

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

typedef struct weft_topo weft_topo_t;

/** weft_topo_new: an empty cluster named @name (for messages; may be NULL). */
weft_topo_t *weft_topo_new(const char *name);

/** weft_topo_free: NULL is a no-op. Free every fabric state over @topo (topo/fabric.h) first. */
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
/* weft_topo_edge_bw: the nominal bandwidth (a run's, faults included: weft_fabric_edge_bw_now()) */
double weft_topo_edge_bw(const weft_topo_t *topo, gint e);
weft_time_t weft_topo_edge_latency(const weft_topo_t *topo, gint e);
weft_link_kind_t weft_topo_edge_kind(const weft_topo_t *topo, gint e);
guint weft_topo_edge_lanes(const weft_topo_t *topo, gint e);
const char *weft_topo_vertex_kind_name(weft_vertex_kind_t kind);
const char *weft_topo_link_kind_name(weft_link_kind_t kind);

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
 * them from the catalog (an NVSwitch generation with sharp) and the cluster
 * file (`sharp = true`: the leaf, spine and core switches of an InfiniBand
 * fabric of HDR or faster, topo_build.c); GraphML keeps them as the
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
 * weft_topo_set_vertex_gpu_model:
 * @topo: a cluster not yet finalized.
 * @v: a GPU vertex (any vertex for NULL).
 * @gpu: (transfer none): the GPU's catalog entry (hw/hw.h; it lives as long as the
 *   program), or NULL: not recorded (the default; abstract clusters record none).
 * The node-kind builders record the kind's GPU or the file's `gpu`; GraphML keeps it as
 * the vertex attribute "gpu_model" (the catalog name). The compute model of a generated
 * step reads it (weft_topo_gpu_model()). O(1).
 */
void weft_topo_set_vertex_gpu_model(weft_topo_t *topo, gint v, const weft_hw_gpu_t *gpu);

/** weft_topo_vertex_gpu_model: (transfer none): the model of vertex @v, or NULL. O(1). */
const weft_hw_gpu_t *weft_topo_vertex_gpu_model(const weft_topo_t *topo, gint v);

/**
 * weft_topo_gpu_model:
 * The one GPU model of @topo: every GPU must record the same one (mixed models, or some
 * GPUs with a model and some without, are an error, since weft generates a step that
 * computes alike on every rank and a cluster file builds one node kind).
 * Returns: (transfer none): the model, or NULL: either no GPU records one (no error set:
 *   an abstract cluster, an ASTRA-sim network, a GraphML file without "gpu_model") or
 *   with WEFT_TOPO_ERROR_VALUE naming the cluster, two GPUs and their models.
 * Time complexity: O(GPUs).
 */
const weft_hw_gpu_t *weft_topo_gpu_model(const weft_topo_t *topo, GError **error);

/**
 * weft_topo_astra_dims:
 * @n_dims: (out): the dimension count (0: not an ASTRA-sim network).
 * The npus_count list of the ASTRA-sim network YAML @topo was read from, dimension 0
 * first (GPU r's coordinate in dimension d is (r / (n_0 ... n_{d-1})) mod n_d), so that
 * ASTRA-sim's system layer can run a collective one dimension at a time.
 * Returns: (transfer none) (nullable): the counts, NULL for other clusters. O(1).
 */
const guint *weft_topo_astra_dims(const weft_topo_t *topo, guint *n_dims);

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

/* ---- links ---------------------------------------------------------------------------- */

/**
 * weft_topo_edges_between:
 * @topo: a cluster.
 * @u, @v: vertex ids.
 * @out: (out caller-allocates): a GArray of gint, emptied, then filled with
 *   the directed edges u -> v and v -> u (parallel links included).
 * Returns: how many (0 when @u and @v are not adjacent).
 */
guint weft_topo_edges_between(const weft_topo_t *topo, gint u, gint v, GArray *out);

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
