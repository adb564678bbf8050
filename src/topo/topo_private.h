/* SPDX-License-Identifier: MIT */
/*
 * Private layout of the cluster graph, shared by topo.c, route.c, the file
 * readers and writers (topo_ini.c, topo_yaml.c, topo_graphml.c) and
 * placement.c. Nothing outside src/topo/ may include it: other modules see only
 * the opaque weft_topo_t of topo/topo.h.
 *
 * Vertices and edges are first collected in typed arrays; the igraph graph is
 * built once, by weft_topo_finalize(), from the edge arrays (igraph_create keeps
 * the order, so igraph edge id == index in the arrays). Link i is the edge pair
 * (2i, 2i + 1): weft_topo_add_link() is the only way to add edges.
 */
#ifndef WEFT_TOPO_TOPO_PRIVATE_H
#define WEFT_TOPO_TOPO_PRIVATE_H

#include <igraph.h>

#include "topo/topo.h"

G_BEGIN_DECLS

/* The routing views built at finalize (NVLink, fabric, full, network); defined in route.c.
 * Immutable: shared by every fabric state over the cluster (topo/fabric.h), in any thread.
 * Their CSR arrays are only read. Their igraph graphs (and the cluster's own, the full view
 * while every link is up) are only passed to igraph as const, but igraph 0.10 may still fill
 * the property cache inside an igraph_t through a const pointer (igraph_t.cache), so every
 * igraph call on them runs under weft_topo_i_igraph_lock(), which serializes that too. */
typedef struct weft_topo_views weft_topo_views_t;

struct weft_topo {
    char *name;         /* for messages; never NULL */
    gboolean finalized; /* vertices and links are frozen, graph is built */
    /* an ASTRA-sim network YAML's npus_count, one per dimension (NULL: not such a
     * cluster); GPU r has coordinate (r / (n_0 ... n_{d-1})) mod n_d in dimension d */
    guint *astra_dims;
    guint n_astra_dims;
    igraph_t graph;     /* valid only when finalized */

    /* per vertex, indexed by vertex id */
    GArray *v_kind;      /* weft_vertex_kind_t */
    GPtrArray *v_name;   /* char *, owned */
    GArray *v_host;      /* gint */
    GArray *v_rail;      /* gint */
    GArray *v_tier;      /* guint: 0 untiered, 1 leaf, 2 spine, 3 core */
    GArray *v_features;  /* guint: WEFT_TOPO_FEATURE_* mask */
    GArray *v_msg_cost;  /* weft_time_t: per-message cost of a NIC, ps (0: none) */
    GPtrArray *v_gpu;    /* const weft_hw_gpu_t * (catalog, not owned): a GPU's model, or NULL */
    GArray *gpu_vertex;  /* gint: GPU number -> vertex id */
    GHashTable *by_name; /* char * (borrowed from v_name) -> vertex id + 1 */
    guint n_hosts;       /* 1 + largest host index seen */

    /* per directed edge, indexed by edge id */
    GArray *e_from;  /* gint */
    GArray *e_to;    /* gint */
    GArray *e_kind;  /* weft_link_kind_t */
    GArray *e_bw;    /* double, bytes per second */
    GArray *e_lat;   /* weft_time_t, picoseconds */
    GArray *e_lanes; /* guint */

    /* set by finalize (route.c), never changed afterwards: what changes in a run (link
     * fractions, the ECMP seed, route caches) is a fabric state's (topo/fabric.h) */
    gint *v_domain; /* NVLink domain per vertex, -1 for none */
    guint n_domains;
    weft_topo_views_t *views;

    gint64 created_us; /* g_get_monotonic_time() at weft_topo_new(), for the "built" log line */
};

/*
 * weft_topo_i_units_error: turns a failure of core/units (@uerr, consumed) into
 * a WEFT_TOPO_ERROR naming @file, @key and @value: WEFT_TOPO_ERROR_VALUE for an
 * out-of-range number (negative, not finite), WEFT_TOPO_ERROR_PARSE otherwise
 * (no number, missing or wrong unit).
 */
void weft_topo_i_units_error(GError **error, GError *uerr, const char *file, const char *key,
                             const char *value);

/*
 * weft_topo_i_igraph_quiet: installs igraph's "ignore" error and warning
 * handlers (igraph's default aborts); call before a batch of igraph calls.
 */
void weft_topo_i_igraph_quiet(void);

/*
 * weft_topo_i_igraph_lock, weft_topo_i_igraph_unlock: serialize igraph calls
 * between threads (a recursive lock, so locked sections may nest). igraph
 * keeps its error handler, its "finally" cleanup stack and its attribute
 * table in process-wide variables unless it is built thread-safe, and Debian
 * 12's libigraph 0.10.2 is not (igraph_threading.h: IGRAPH_THREAD_SAFE 0):
 * two threads inside igraph at once can corrupt the cleanup stack and abort.
 * Every batch of igraph calls (graph creation, BFS, components, GraphML,
 * analysis, destroy) runs under this lock, so `weft sweep` can run
 * simulations in threads. Uncontended, a lock costs about 20 ns.
 */
void weft_topo_i_igraph_lock(void);
void weft_topo_i_igraph_unlock(void);

/* weft_topo_i_igraph_check: TRUE if @rc is IGRAPH_SUCCESS, else a WEFT_TOPO_ERROR_GRAPH naming
 * @what. */
gboolean weft_topo_i_igraph_check(igraph_error_t rc, const weft_topo_t *topo, const char *what,
                                  GError **error);

/*
 * weft_topo_i_views_init (route.c): called by finalize, under the igraph lock, once
 * topo->graph is built: builds the NVLink, fabric, full and network views (see
 * topo/topo.h) with every link up and numbers the NVLink domains. The network view reads
 * v_host, so hosts must be final before finalize. Returns FALSE with a
 * WEFT_TOPO_ERROR_GRAPH if igraph fails.
 */
gboolean weft_topo_i_views_init(weft_topo_t *topo, GError **error);

/* weft_topo_i_views_free (route.c): frees what views_init built, under the igraph lock;
 * NULL-safe. */
void weft_topo_i_views_free(weft_topo_t *topo);

G_END_DECLS

#endif /* WEFT_TOPO_TOPO_PRIVATE_H */
