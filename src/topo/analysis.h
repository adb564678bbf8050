/* SPDX-License-Identifier: MIT */
/*
 * Figures of merit of a cluster, for `weft topo show` and studies.
 *
 * Every bandwidth is per direction, in bytes per second (a full-duplex link of
 * 50 GB/s carries 50e9 B/s each way); every figure is computed on the static
 * graph (no faults). Definitions:
 *
 *  - counts: vertices by kind; full-duplex links by kind (directed edges / 2).
 *  - scale-up bandwidth of a GPU: the sum of the bandwidths of its NVLink edges
 *    (one direction). Reported as min and max over the GPUs.
 *  - injection bandwidth of a GPU: what each GPU can push into the scale-out
 *    fabric when every GPU of its host pushes at once. The fabric is the
 *    switches of tier >= 1; a cluster without tiered switches takes every
 *    SWITCH vertex outside a host (host index -1) instead. For a host h, the
 *    max flow from all GPUs of h (joined by a super source) to the fabric
 *    switches (joined by a super sink) is computed over the host's own vertices
 *    (PCIe switches, NICs, CPUs of host h) without NVLink edges and without
 *    NVSwitches, and divided by the host's GPU count. A GPU with no host (-1)
 *    is its own "host" and may cross only NICs and host-less non-GPU vertices.
 *    A DGX H100 with one 400 Gb/s NIC per GPU gives 8 x 50 GB/s / 8 = 50 GB/s,
 *    however the PCIe switches share the NICs. Min and max over GPUs; 0 when
 *    the cluster has no scale-out fabric (ring, torus of GPUs, one NVLink node).
 *  - bisection bandwidth: the max flow (igraph's push-relabel
 *    igraph_maxflow_value(), capacities = edge bandwidth) from the first half
 *    of the GPUs by GPU number (0 .. n/2-1, joined by a super source) to the
 *    rest (joined by a super sink); traffic may cross any vertex, GPUs included.
 *    For clusters whose GPU numbering follows the nodes this is the cut between
 *    the two halves of the nodes, which is the bisection of the fabrics weft
 *    builds; it is not the minimum over every balanced cut. 0 with one GPU.
 *  - diameter: the largest, over pairs of GPUs, of the fewest links on any path
 *    between them (hop count on the graph, not along weft's routes, which may
 *    prefer NVLink over a shorter path). Exact: one breadth-first search from
 *    every GPU, run bit-parallel (512 sources per sweep over igraph's adjacency
 *    list), O(n_gpus / 512 * diameter * (V + E)) word operations.
 *  - tiers: for each tier t present (1 leaf, 2 spine, 3 core), its switches;
 *    down: the bandwidth of their links to vertices of lower tiers (GPUs, NICs,
 *    untiered vertices count as tier 0); up: to vertices of higher tiers; peer:
 *    to switches of the same tier (dragonfly global links); oversubscription =
 *    down / up (1.0 = non-blocking), 0 where up is 0 (the top tier).
 */
#ifndef WEFT_TOPO_ANALYSIS_H
#define WEFT_TOPO_ANALYSIS_H

#include <glib.h>

#include "topo/topo.h"

G_BEGIN_DECLS

#define WEFT_TOPO_MAX_TIERS 4

typedef struct {
    guint tier; /* 1 leaf, 2 spine, 3 core */
    guint n_switches;
    double down_Bps; /* sum over the tier's switches of links towards lower tiers/endpoints */
    double up_Bps;   /* sum of links towards higher tiers (0 for the top tier) */
    double peer_Bps; /* sum of links to switches of the same tier */
    double oversubscription; /* down / up; 0 where up is 0 */
} weft_topo_tier_t;

/**
 * WEFT_TOPO_DIAMETER_MAX_GPUS:
 *
 * The most GPUs whose diameter weft_topo_summarize() computes: it is an
 * all-pairs search, O(GPUs x (vertices + links) / 512), 0.55 s at 65,536 GPUs
 * on one switch, four times that for twice the GPUs (1,048,576 GPUs ran past
 * 120 s). Above it the summary says the diameter was not computed.
 */
#define WEFT_TOPO_DIAMETER_MAX_GPUS 65536u

typedef struct {
    guint n_vertices_by_kind[WEFT_VERTEX_HOST + 1];
    guint n_links_by_kind[WEFT_LINK_GENERIC + 1]; /* full-duplex links */
    guint n_gpus, n_hosts, n_domains;
    double scaleup_min_Bps, scaleup_max_Bps;
    double injection_min_Bps, injection_max_Bps;
    double bisection_Bps;                        /* GPUs 0..n/2-1 to the rest, per direction */
    guint diameter_hops;      /* 0 with one GPU, or when not computed (diameter_exact FALSE) */
    gboolean diameter_exact;  /* FALSE above WEFT_TOPO_DIAMETER_MAX_GPUS GPUs */
    guint n_tiers;                               /* the highest tier present; 0 if none */
    weft_topo_tier_t tiers[WEFT_TOPO_MAX_TIERS]; /* tiers[i] is tier i + 1 */
} weft_topo_summary_t;

/**
 * weft_topo_summarize:
 * @topo: a finalized cluster.
 * @out: (out): the figures.
 * @error: WEFT_TOPO_ERROR_GRAPH if igraph fails; WEFT_TOPO_ERROR_VALUE if a
 *   switch has a tier above WEFT_TOPO_MAX_TIERS.
 * Returns: TRUE on success. Time: the bisection max flow, O(V^2 sqrt(E)) worst
 * case (push-relabel; far less on fabrics), plus the diameter sweeps (above);
 * about a second for 16,384 GPUs.
 */
gboolean weft_topo_summarize(const weft_topo_t *topo, weft_topo_summary_t *out, GError **error);

/**
 * weft_topo_check:
 * Checks a finalized cluster beyond what finalize checks: every GPU reaches
 * every other GPU; every vertex can be reached from GPU 0; every directed edge
 * has its reverse (a full-duplex link); no link has a zero, negative or
 * non-finite bandwidth or a negative latency; tiers are set on switches only;
 * every tiered switch has a link down (to a lower tier or an endpoint) and,
 * below the top tier, a link up.
 * Appends one line per finding to @report (at most 10 per kind of finding, then
 * a count of the rest). Returns: TRUE if nothing is wrong; FALSE with @error
 * unset when there are findings; FALSE with WEFT_TOPO_ERROR_GRAPH set when the
 * check itself failed (igraph).
 */
gboolean weft_topo_check(const weft_topo_t *topo, GString *report, GError **error);

G_END_DECLS

#endif /* WEFT_TOPO_ANALYSIS_H */
