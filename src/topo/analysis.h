/* SPDX-License-Identifier: MIT */
/*
 * Figures of merit of a cluster, for `weft topo show` and studies.
 *
 *  - counts of vertices and of full-duplex links by kind;
 *  - scale-up bandwidth per GPU: the sum of its NVLink edges' bandwidth, per
 *    direction (min and max over GPUs);
 *  - injection bandwidth per GPU: what one GPU can push into the scale-out
 *    fabric, per direction: the max flow from the GPU to the fabric switches
 *    (tier >= 1, or any WEFT_VERTEX_SWITCH) when NVLink edges are not used
 *    (min and max over GPUs);
 *  - bisection bandwidth: the max flow (igraph's push-relabel max flow, edge
 *    capacities = bandwidth) from the first half of the GPUs (by GPU number) to
 *    the second half, per direction; for clusters whose GPU numbering follows
 *    nodes this is the usual cut between two halves of the nodes;
 *  - diameter: the largest number of links on a route between two GPUs;
 *  - per tier: switches, bandwidth down (towards the GPUs) and up (towards the
 *    next tier), and their ratio, the oversubscription (1.0 = non-blocking).
 */
#ifndef WEFT_TOPO_ANALYSIS_H
#define WEFT_TOPO_ANALYSIS_H

#include <glib.h>

#include "topo/topo.h"

G_BEGIN_DECLS

#define WEFT_TOPO_MAX_TIERS 4

typedef struct {
    guint tier;          /* 1 leaf, 2 spine, 3 core */
    guint n_switches;
    double down_Bps;     /* sum over the tier's switches of links towards lower tiers/endpoints */
    double up_Bps;       /* sum of links towards the tier above (0 for the top tier) */
    double oversubscription; /* down / up; 0 for the top tier */
} weft_topo_tier_t;

typedef struct {
    guint n_vertices_by_kind[WEFT_VERTEX_HOST + 1];
    guint n_links_by_kind[WEFT_LINK_GENERIC + 1];   /* full-duplex links */
    guint n_gpus, n_hosts, n_domains;
    double scaleup_min_Bps, scaleup_max_Bps;
    double injection_min_Bps, injection_max_Bps;
    double bisection_Bps;
    guint diameter_hops;
    guint n_tiers;
    weft_topo_tier_t tiers[WEFT_TOPO_MAX_TIERS];
} weft_topo_summary_t;

/**
 * weft_topo_summarize:
 * @topo: a finalized cluster.
 * @out: (out): the figures.
 * @error: WEFT_TOPO_ERROR_GRAPH if igraph fails.
 * Returns: TRUE on success. Time: dominated by one max flow, O(V^2 sqrt(E)) worst case.
 */
gboolean weft_topo_summarize(weft_topo_t *topo, weft_topo_summary_t *out, GError **error);

/**
 * weft_topo_check:
 * Checks a finalized cluster beyond what finalize checks: every GPU pair has a
 * route, no link has zero bandwidth, every tiered switch connects up and down.
 * Appends one line per finding to @report. Returns: TRUE if nothing is wrong.
 */
gboolean weft_topo_check(weft_topo_t *topo, GString *report, GError **error);

G_END_DECLS

#endif /* WEFT_TOPO_ANALYSIS_H */
