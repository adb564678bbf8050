/* SPDX-License-Identifier: MIT */
/*
 * Private layout of the cluster graph, shared by topo.c and the file readers
 * (topo_ini.c, topo_yaml.c). Nothing outside src/topo/ may include it: other
 * modules see only the opaque weft_topo_t of topo/topo.h.
 *
 * Vertices and edges are first collected in typed arrays; the igraph graph is
 * built once, by weft_topo_finalize(), from the edge arrays (igraph_create keeps
 * the order, so igraph edge id == index in the arrays).
 */
#ifndef WEFT_TOPO_TOPO_PRIVATE_H
#define WEFT_TOPO_TOPO_PRIVATE_H

#include <igraph.h>

#include "topo/topo.h"

G_BEGIN_DECLS

struct weft_topo {
    char *name;         /* for messages; never NULL */
    gboolean finalized; /* vertices and links are frozen, graph is built */
    igraph_t graph;     /* valid only when finalized */

    /* per vertex, indexed by vertex id */
    GArray *v_kind;      /* weft_vertex_kind_t */
    GPtrArray *v_name;   /* char *, owned */
    GArray *v_host;      /* gint */
    GArray *v_rail;      /* gint */
    GArray *gpu_vertex;  /* gint: GPU number -> vertex id */
    GHashTable *by_name; /* char * (borrowed from v_name) -> vertex id + 1 */

    /* per directed edge, indexed by edge id */
    GArray *e_from;  /* gint */
    GArray *e_to;    /* gint */
    GArray *e_kind;  /* weft_link_kind_t */
    GArray *e_bw;    /* double, bytes per second */
    GArray *e_lat;   /* weft_time_t, picoseconds */
    GArray *e_lanes; /* guint */

    /* route cache: guint64 (src << 32 | dst) -> route_entry (see topo.c) */
    GHashTable *routes;
};

/*
 * weft_topo_i_units_error: turns a failure of core/units (@uerr, consumed) into
 * a WEFT_TOPO_ERROR naming @file, @key and @value: WEFT_TOPO_ERROR_VALUE for an
 * out-of-range number (negative, not finite), WEFT_TOPO_ERROR_PARSE otherwise
 * (no number, missing or wrong unit).
 */
void weft_topo_i_units_error(GError **error, GError *uerr, const char *file, const char *key,
                             const char *value);

G_END_DECLS

#endif /* WEFT_TOPO_TOPO_PRIVATE_H */
