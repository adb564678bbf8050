/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of topo/analysis: the figures of `weft topo show` (counts,
 * scale-up, injection, bisection, diameter, oversubscription per tier) on small
 * clusters built through the public topo API, each figure derived by hand in a
 * comment, and the findings of weft_topo_check() on broken clusters.
 */
#include <check.h>
#include <igraph.h>
#include <math.h>
#include <stdlib.h>

#include "topo/analysis.h"

#define GBPS 1e9 /* bytes per second in one GB/s */

/* ---- helpers ------------------------------------------------------------------ */

static gint
vertex(weft_topo_t *t, weft_vertex_kind_t kind, const char *name, gint host, gint rail)
{
    g_autoptr(GError) err = NULL;
    gint v = weft_topo_add_vertex(t, kind, name, host, rail, &err);
    ck_assert_msg(v >= 0, "add_vertex %s: %s", name, err ? err->message : "?");
    return v;
}

static void
link(weft_topo_t *t, gint u, gint v, weft_link_kind_t kind, double bw_Bps)
{
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_topo_add_link(t, u, v, kind, bw_Bps, 500000, 1, &err) >= 0,
                  "add_link %d-%d: %s", u, v, err ? err->message : "?");
}

static void
finalize(weft_topo_t *t)
{
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_topo_finalize(t, &err), "finalize: %s", err ? err->message : "?");
}

static weft_topo_summary_t
summarize(weft_topo_t *t)
{
    weft_topo_summary_t s;
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_topo_summarize(t, &s, &err), "summarize: %s", err ? err->message : "?");
    ck_assert_ptr_null(err);
    return s;
}

/* Bandwidths are sums of exact multiples of 1e9 B/s; allow push-relabel rounding. */
#define ck_assert_bw(got, want)                                                                    \
    ck_assert_msg(fabs((got) - (double)(want)) <= 1e-6 * fabs((double)(want)) + 1e-3,              \
                  "%s = %.6f, expected %.6f", #got, (double)(got), (double)(want))

static guint
lines(const GString *s)
{
    guint n = 0;
    for (gsize i = 0; i < s->len; i++) {
        n += s->str[i] == '\n' ? 1 : 0;
    }
    return n;
}

/*
 * Cluster A: 4 nodes x 2 GPUs on a 2-leaf, 2-spine fabric, not rail-optimized.
 * Node h: GPUs h/gpu0, h/gpu1 (GPU numbers 2h, 2h+1) joined by one NVLink of
 * 100 GB/s; each GPU has its own NIC over PCIe (64 GB/s); each NIC has one
 * 50 GB/s InfiniBand link to its node's leaf: nodes 0,1 on leaf0, nodes 2,3 on
 * leaf1 (tier 1). Each leaf has one 50 GB/s link to each of spine0, spine1
 * (tier 2).
 */
static weft_topo_t *
cluster_a(void)
{
    weft_topo_t *t = weft_topo_new("a");
    gint leaf[2], spine[2];
    for (gint i = 0; i < 2; i++) {
        g_autofree char *ln = g_strdup_printf("leaf%d", i);
        g_autofree char *sn = g_strdup_printf("spine%d", i);
        leaf[i] = vertex(t, WEFT_VERTEX_SWITCH, ln, -1, -1);
        spine[i] = vertex(t, WEFT_VERTEX_SWITCH, sn, -1, -1);
        weft_topo_set_vertex_tier(t, leaf[i], 1);
        weft_topo_set_vertex_tier(t, spine[i], 2);
    }
    for (gint h = 0; h < 4; h++) {
        gint gpu[2];
        for (gint r = 0; r < 2; r++) {
            g_autofree char *gn = g_strdup_printf("node%d/gpu%d", h, r);
            g_autofree char *nn = g_strdup_printf("node%d/nic%d", h, r);
            gpu[r] = vertex(t, WEFT_VERTEX_GPU, gn, h, r);
            gint nic = vertex(t, WEFT_VERTEX_NIC, nn, h, r);
            link(t, gpu[r], nic, WEFT_LINK_PCIE, 64 * GBPS);
            link(t, nic, leaf[h / 2], WEFT_LINK_INFINIBAND, 50 * GBPS);
        }
        link(t, gpu[0], gpu[1], WEFT_LINK_NVLINK, 100 * GBPS);
    }
    for (gint l = 0; l < 2; l++) {
        for (gint s = 0; s < 2; s++) {
            link(t, leaf[l], spine[s], WEFT_LINK_INFINIBAND, 50 * GBPS);
        }
    }
    finalize(t);
    return t;
}

/*
 * Cluster B: the same 4 nodes x 2 GPUs, rail-optimized, with a shared PCIe
 * switch per node. Node h: GPUs (GPU numbers 2h, 2h+1) and their two NICs all
 * on one PCIe switch (a host-h SWITCH of tier 0, 64 GB/s links); GPUs joined by
 * 100 GB/s NVLink. NIC r of every node goes to rail r's leaf (50 GB/s); each
 * leaf has a 100 GB/s edge (2 lanes) to each of two spines.
 */
static weft_topo_t *
cluster_b(void)
{
    weft_topo_t *t = weft_topo_new("b");
    gint leaf[2], spine[2];
    for (gint i = 0; i < 2; i++) {
        g_autofree char *ln = g_strdup_printf("rail%d-leaf", i);
        g_autofree char *sn = g_strdup_printf("spine%d", i);
        leaf[i] = vertex(t, WEFT_VERTEX_SWITCH, ln, -1, i);
        spine[i] = vertex(t, WEFT_VERTEX_SWITCH, sn, -1, -1);
        weft_topo_set_vertex_tier(t, leaf[i], 1);
        weft_topo_set_vertex_tier(t, spine[i], 2);
    }
    for (gint h = 0; h < 4; h++) {
        g_autofree char *pn = g_strdup_printf("node%d/pcie", h);
        gint pcie = vertex(t, WEFT_VERTEX_SWITCH, pn, h, -1);
        gint gpu[2];
        for (gint r = 0; r < 2; r++) {
            g_autofree char *gn = g_strdup_printf("node%d/gpu%d", h, r);
            g_autofree char *nn = g_strdup_printf("node%d/nic%d", h, r);
            gpu[r] = vertex(t, WEFT_VERTEX_GPU, gn, h, r);
            gint nic = vertex(t, WEFT_VERTEX_NIC, nn, h, r);
            link(t, gpu[r], pcie, WEFT_LINK_PCIE, 64 * GBPS);
            link(t, nic, pcie, WEFT_LINK_PCIE, 64 * GBPS);
            link(t, nic, leaf[r], WEFT_LINK_INFINIBAND, 50 * GBPS);
        }
        link(t, gpu[0], gpu[1], WEFT_LINK_NVLINK, 100 * GBPS);
    }
    g_autoptr(GError) err = NULL;
    for (gint l = 0; l < 2; l++) {
        for (gint s = 0; s < 2; s++) {
            ck_assert(weft_topo_add_link(t, leaf[l], spine[s], WEFT_LINK_INFINIBAND, 100 * GBPS,
                                         500000, 2, &err) >= 0);
        }
    }
    finalize(t);
    return t;
}

/* A ring of @n GPUs (host-less), 50 GB/s generic links. */
static weft_topo_t *
ring(guint n)
{
    weft_topo_t *t = weft_topo_new("ring");
    for (guint i = 0; i < n; i++) {
        g_autofree char *name = g_strdup_printf("gpu%u", i);
        vertex(t, WEFT_VERTEX_GPU, name, -1, -1);
    }
    guint n_links = n > 2 ? n : n - 1; /* 2 GPUs: one link; 1 GPU: none */
    for (guint i = 0; i < n_links; i++) {
        link(t, (gint)i, (gint)((i + 1) % n), WEFT_LINK_GENERIC, 50 * GBPS);
    }
    finalize(t);
    return t;
}

/* ---- cluster A: leaf-spine, 2:1 at the leaves ----------------------------------- */

START_TEST(a_counts_by_kind)
{
    g_autoptr(weft_topo_t) t = cluster_a();
    weft_topo_summary_t s = summarize(t);
    /* 4 nodes x (2 GPUs + 2 NICs) + 2 leaves + 2 spines */
    ck_assert_uint_eq(s.n_vertices_by_kind[WEFT_VERTEX_GPU], 8);
    ck_assert_uint_eq(s.n_vertices_by_kind[WEFT_VERTEX_NIC], 8);
    ck_assert_uint_eq(s.n_vertices_by_kind[WEFT_VERTEX_SWITCH], 4);
    ck_assert_uint_eq(s.n_vertices_by_kind[WEFT_VERTEX_NVSWITCH], 0);
    ck_assert_uint_eq(s.n_vertices_by_kind[WEFT_VERTEX_HOST], 0);
    /* links: 4 NVLink (one per node), 8 PCIe (GPU-NIC), 8 NIC-leaf + 2 x 2 leaf-spine = 12 IB */
    ck_assert_uint_eq(s.n_links_by_kind[WEFT_LINK_NVLINK], 4);
    ck_assert_uint_eq(s.n_links_by_kind[WEFT_LINK_PCIE], 8);
    ck_assert_uint_eq(s.n_links_by_kind[WEFT_LINK_INFINIBAND], 12);
    ck_assert_uint_eq(s.n_links_by_kind[WEFT_LINK_ETHERNET], 0);
    ck_assert_uint_eq(s.n_gpus, 8);
    /* hosts 0..3; each node's two GPUs form one NVLink domain */
    ck_assert_uint_eq(s.n_hosts, 4);
    ck_assert_uint_eq(s.n_domains, 4);
}
END_TEST

START_TEST(a_scaleup_is_the_nvlink_bandwidth)
{
    g_autoptr(weft_topo_t) t = cluster_a();
    weft_topo_summary_t s = summarize(t);
    /* every GPU has one 100 GB/s NVLink edge */
    ck_assert_bw(s.scaleup_min_Bps, 100 * GBPS);
    ck_assert_bw(s.scaleup_max_Bps, 100 * GBPS);
}
END_TEST

START_TEST(a_injection_is_one_nic)
{
    g_autoptr(weft_topo_t) t = cluster_a();
    weft_topo_summary_t s = summarize(t);
    /* per node: 2 GPUs -> 2 x PCIe 64 -> 2 x NIC-leaf 50: min(128, 100) = 100 GB/s over
     * 2 GPUs = 50 GB/s each (the NVLink between them does not count) */
    ck_assert_bw(s.injection_min_Bps, 50 * GBPS);
    ck_assert_bw(s.injection_max_Bps, 50 * GBPS);
}
END_TEST

START_TEST(a_bisection_is_the_leaf_uplinks)
{
    g_autoptr(weft_topo_t) t = cluster_a();
    weft_topo_summary_t s = summarize(t);
    /* GPUs 0-3 = nodes 0,1, all under leaf0; GPUs 4-7 under leaf1. Every path
     * leaves leaf0 through its two 50 GB/s spine links: 100 GB/s (the NIC links
     * of nodes 0,1 would allow 4 x 50 = 200). */
    ck_assert_bw(s.bisection_Bps, 100 * GBPS);
}
END_TEST

START_TEST(a_diameter_crosses_a_spine)
{
    g_autoptr(weft_topo_t) t = cluster_a();
    weft_topo_summary_t s = summarize(t);
    /* node0/gpu0 -> nic -> leaf0 -> spine -> leaf1 -> nic -> node2/gpu0: 6 links;
     * under one leaf 4, inside a node 1 */
    ck_assert_uint_eq(s.diameter_hops, 6);
}
END_TEST

START_TEST(a_oversubscription_two_to_one_at_leaves)
{
    g_autoptr(weft_topo_t) t = cluster_a();
    weft_topo_summary_t s = summarize(t);
    ck_assert_uint_eq(s.n_tiers, 2);
    /* tier 1: 2 leaves, each 4 NICs x 50 = 200 down and 2 x 50 = 100 up: 400 / 200 = 2.0 */
    ck_assert_uint_eq(s.tiers[0].tier, 1);
    ck_assert_uint_eq(s.tiers[0].n_switches, 2);
    ck_assert_bw(s.tiers[0].down_Bps, 400 * GBPS);
    ck_assert_bw(s.tiers[0].up_Bps, 200 * GBPS);
    ck_assert_bw(s.tiers[0].peer_Bps, 0);
    ck_assert(fabs(s.tiers[0].oversubscription - 2.0) < 1e-12);
    /* tier 2: 2 spines, each 2 leaf links x 50 = 100 down, nothing above: 0 */
    ck_assert_uint_eq(s.tiers[1].tier, 2);
    ck_assert_uint_eq(s.tiers[1].n_switches, 2);
    ck_assert_bw(s.tiers[1].down_Bps, 200 * GBPS);
    ck_assert_bw(s.tiers[1].up_Bps, 0);
    ck_assert(s.tiers[1].oversubscription == 0);
}
END_TEST

START_TEST(a_passes_check)
{
    g_autoptr(weft_topo_t) t = cluster_a();
    g_autoptr(GString) report = g_string_new(NULL);
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_topo_check(t, report, &err), "findings: %s", report->str);
    ck_assert_ptr_null(err);
    ck_assert_uint_eq(report->len, 0);
}
END_TEST

/* ---- cluster B: rail-optimized, shared PCIe switch ------------------------------- */

START_TEST(b_shared_pcie_switch_does_not_inflate_injection)
{
    g_autoptr(weft_topo_t) t = cluster_b();
    weft_topo_summary_t s = summarize(t);
    /* one GPU alone could push min(64 PCIe, 2 NICs x 50) = 64 GB/s through the
     * shared switch; both GPUs at once get min(2 x 64, 2 x 64, 2 x 50) = 100 over
     * 2 GPUs = 50 GB/s each: one NIC per GPU */
    ck_assert_bw(s.injection_min_Bps, 50 * GBPS);
    ck_assert_bw(s.injection_max_Bps, 50 * GBPS);
}
END_TEST

START_TEST(b_bisection_is_half_the_nodes_times_rails_times_nic)
{
    g_autoptr(weft_topo_t) t = cluster_b();
    weft_topo_summary_t s = summarize(t);
    /* non-blocking rails: N/2 nodes x 2 rails x 50 GB/s = 2 x 2 x 50 = 200 GB/s,
     * the NIC links of nodes 0,1; leaves and spines carry more */
    ck_assert_bw(s.bisection_Bps, 200 * GBPS);
}
END_TEST

START_TEST(b_rail_optimized_figures)
{
    g_autoptr(weft_topo_t) t = cluster_b();
    weft_topo_summary_t s = summarize(t);
    /* gpu -> pcie -> nic (any rail) -> leaf -> nic -> pcie -> gpu: 6 links */
    ck_assert_uint_eq(s.diameter_hops, 6);
    /* 8 switches: 2 leaves, 2 spines and 4 untiered PCIe switches; 2 in tier 1 */
    ck_assert_uint_eq(s.n_vertices_by_kind[WEFT_VERTEX_SWITCH], 8);
    ck_assert_uint_eq(s.tiers[0].n_switches, 2);
    /* per leaf 4 NICs x 50 = 200 down, 2 spines x 100 = 200 up; tier 1 = 2 leaves:
     * 400 down, 400 up, 1:1 (non-blocking) */
    ck_assert_bw(s.tiers[0].down_Bps, 400 * GBPS);
    ck_assert_bw(s.tiers[0].up_Bps, 400 * GBPS);
    ck_assert(fabs(s.tiers[0].oversubscription - 1.0) < 1e-12);
    /* each node's NVLink pair is one domain */
    ck_assert_uint_eq(s.n_domains, 4);
}
END_TEST

/* ---- rings and tori: no fabric, diameter by hop count ------------------------------ */

START_TEST(ring8_figures)
{
    g_autoptr(weft_topo_t) t = ring(8);
    weft_topo_summary_t s = summarize(t);
    /* opposite GPUs are 4 links apart */
    ck_assert_uint_eq(s.diameter_hops, 4);
    /* GPUs 0-3 vs 4-7: the cut crosses links 3-4 and 7-0: 2 x 50 GB/s */
    ck_assert_bw(s.bisection_Bps, 100 * GBPS);
    /* no switch at all: no scale-out fabric, no NVLink, no tiers */
    ck_assert_bw(s.injection_max_Bps, 0);
    ck_assert_bw(s.scaleup_max_Bps, 0);
    ck_assert_uint_eq(s.n_tiers, 0);
    ck_assert_uint_eq(s.n_links_by_kind[WEFT_LINK_GENERIC], 8);
    /* no host indices; each GPU with no NVLink is a domain of its own */
    ck_assert_uint_eq(s.n_hosts, 0);
    ck_assert_uint_eq(s.n_domains, 8);
}
END_TEST

/* rings of 1200 and 1201 GPUs span three 512-source sweeps, the last one partial */
START_TEST(long_ring_diameter_across_sweeps)
{
    g_autoptr(weft_topo_t) even = ring(1200);
    g_autoptr(weft_topo_t) odd = ring(1201);
    weft_topo_summary_t s = summarize(even);
    /* n/2 = 600 links to the opposite GPU */
    ck_assert_uint_eq(s.diameter_hops, 600);
    ck_assert_bw(s.bisection_Bps, 100 * GBPS);
    s = summarize(odd);
    /* floor(1201 / 2) = 600 */
    ck_assert_uint_eq(s.diameter_hops, 600);
}
END_TEST

START_TEST(torus_4x4x4_figures)
{
    /* GPU (x, y, z) is number x + 4y + 16z, linked to its +1 neighbour in each
     * dimension, wrapping round: 3 x 64 = 192 links of 50 GB/s */
    g_autoptr(weft_topo_t) t = weft_topo_new("torus");
    for (gint i = 0; i < 64; i++) {
        g_autofree char *name = g_strdup_printf("gpu%d", i);
        vertex(t, WEFT_VERTEX_GPU, name, -1, -1);
    }
    for (gint z = 0; z < 4; z++) {
        for (gint y = 0; y < 4; y++) {
            for (gint x = 0; x < 4; x++) {
                gint v = x + 4 * y + 16 * z;
                link(t, v, (x + 1) % 4 + 4 * y + 16 * z, WEFT_LINK_GENERIC, 50 * GBPS);
                link(t, v, x + 4 * ((y + 1) % 4) + 16 * z, WEFT_LINK_GENERIC, 50 * GBPS);
                link(t, v, x + 4 * y + 16 * ((z + 1) % 4), WEFT_LINK_GENERIC, 50 * GBPS);
            }
        }
    }
    finalize(t);
    weft_topo_summary_t s = summarize(t);
    ck_assert_uint_eq(s.n_links_by_kind[WEFT_LINK_GENERIC], 192);
    /* 2 + 2 + 2 links to the opposite corner */
    ck_assert_uint_eq(s.diameter_hops, 6);
    /* GPUs 0-31 are z = 0, 1: the cut crosses z 1-2 and z 3-0, 16 links each: 32 x 50 */
    ck_assert_bw(s.bisection_Bps, 1600 * GBPS);
}
END_TEST

/*
 * Property: on random clusters (600 GPUs, so two sweeps, and 150 switches; a
 * random spanning tree plus 300 random links) the diameter equals the largest
 * entry of igraph's GPU-to-GPU distance matrix, computed independently.
 */
START_TEST(diameter_matches_igraph_all_pairs_on_random_clusters)
{
    const guint n_gpus = 600, n_sw = 150, n = n_gpus + n_sw;
    g_autoptr(GRand) rng = g_rand_new_with_seed(1234 + (guint32)_i);
    g_autoptr(weft_topo_t) t = weft_topo_new("random");
    for (guint v = 0; v < n; v++) {
        g_autofree char *name = g_strdup_printf("v%u", v);
        vertex(t, v < n_gpus ? WEFT_VERTEX_GPU : WEFT_VERTEX_SWITCH, name, -1, -1);
    }
    g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, sizeof(igraph_integer_t));
    for (guint v = 1; v < n + 300; v++) {
        guint a = v < n ? v : (guint)g_rand_int_range(rng, 0, (gint32)n);
        guint b = v < n ? (guint)g_rand_int_range(rng, 0, (gint32)v)
                        : (guint)g_rand_int_range(rng, 0, (gint32)n);
        if (a == b) {
            continue;
        }
        link(t, (gint)a, (gint)b, WEFT_LINK_GENERIC, GBPS);
        igraph_integer_t ab[2] = {a, b};
        g_array_append_vals(pairs, ab, 2);
    }
    finalize(t);
    weft_topo_summary_t s = summarize(t);

    igraph_t g;
    igraph_vector_int_t ev;
    igraph_vector_int_view(&ev, (const igraph_integer_t *)(void *)pairs->data, pairs->len);
    ck_assert_int_eq(igraph_create(&g, &ev, n, IGRAPH_UNDIRECTED), IGRAPH_SUCCESS);
    igraph_matrix_t d;
    ck_assert_int_eq(igraph_matrix_init(&d, 0, 0), IGRAPH_SUCCESS);
    ck_assert_int_eq(igraph_distances(&g, &d, igraph_vss_range(0, n_gpus),
                                      igraph_vss_range(0, n_gpus), IGRAPH_ALL),
                     IGRAPH_SUCCESS);
    double want = igraph_matrix_max(&d);
    igraph_matrix_destroy(&d);
    igraph_destroy(&g);
    ck_assert_msg(s.diameter_hops == (guint)want, "diameter %u, igraph all-pairs %g",
                  s.diameter_hops, want);
}
END_TEST

START_TEST(one_gpu_has_no_bisection_or_diameter)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("one");
    gint g = vertex(t, WEFT_VERTEX_GPU, "gpu0", 0, 0);
    gint sw = vertex(t, WEFT_VERTEX_SWITCH, "sw", -1, -1);
    link(t, g, sw, WEFT_LINK_ETHERNET, 25 * GBPS);
    finalize(t);
    weft_topo_summary_t s = summarize(t);
    ck_assert_bw(s.bisection_Bps, 0);
    ck_assert_uint_eq(s.diameter_hops, 0);
    /* no tiers: the host-less switch is the fabric; the GPU reaches it at 25 GB/s */
    ck_assert_bw(s.injection_min_Bps, 25 * GBPS);
    ck_assert_uint_eq(s.n_links_by_kind[WEFT_LINK_ETHERNET], 1);
}
END_TEST

START_TEST(uneven_hosts_give_min_and_max)
{
    /* host 0: a GPU with a 50 GB/s link to the (host-less, untiered) switch;
     * host 1: a GPU with a 25 GB/s link to it and a 300 GB/s NVLink to an NVSwitch */
    g_autoptr(weft_topo_t) t = weft_topo_new("uneven");
    gint sw = vertex(t, WEFT_VERTEX_SWITCH, "sw", -1, -1);
    gint g0 = vertex(t, WEFT_VERTEX_GPU, "h0/gpu", 0, 0);
    gint g1 = vertex(t, WEFT_VERTEX_GPU, "h1/gpu", 1, 0);
    gint nvs = vertex(t, WEFT_VERTEX_NVSWITCH, "h1/nvs", 1, -1);
    link(t, g0, sw, WEFT_LINK_INFINIBAND, 50 * GBPS);
    link(t, g1, sw, WEFT_LINK_INFINIBAND, 25 * GBPS);
    link(t, g1, nvs, WEFT_LINK_NVLINK, 300 * GBPS);
    finalize(t);
    weft_topo_summary_t s = summarize(t);
    ck_assert_bw(s.injection_min_Bps, 25 * GBPS);
    ck_assert_bw(s.injection_max_Bps, 50 * GBPS);
    /* GPU 0 has no NVLink (0), GPU 1 300 GB/s */
    ck_assert_bw(s.scaleup_min_Bps, 0);
    ck_assert_bw(s.scaleup_max_Bps, 300 * GBPS);
    /* GPU 0 -> GPU 1: min(50, 25) = 25 GB/s */
    ck_assert_bw(s.bisection_Bps, 25 * GBPS);
}
END_TEST

START_TEST(tier_above_four_is_value_error)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("t5");
    gint sw = vertex(t, WEFT_VERTEX_SWITCH, "sw", -1, -1);
    gint a = vertex(t, WEFT_VERTEX_GPU, "a", -1, -1);
    gint b = vertex(t, WEFT_VERTEX_GPU, "b", -1, -1);
    link(t, a, sw, WEFT_LINK_ETHERNET, GBPS);
    link(t, b, sw, WEFT_LINK_ETHERNET, GBPS);
    weft_topo_set_vertex_tier(t, sw, WEFT_TOPO_MAX_TIERS + 1);
    finalize(t);
    weft_topo_summary_t s;
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_topo_summarize(t, &s, &err));
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE));
}
END_TEST

/* ---- check ---------------------------------------------------------------------- */

START_TEST(check_finds_unreachable_vertex_and_leaf_without_downlink)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("broken");
    gint a = vertex(t, WEFT_VERTEX_GPU, "a", 0, 0);
    gint b = vertex(t, WEFT_VERTEX_GPU, "b", 1, 0);
    gint na = vertex(t, WEFT_VERTEX_NIC, "a/nic", 0, 0);
    gint nb = vertex(t, WEFT_VERTEX_NIC, "b/nic", 1, 0);
    gint leaf0 = vertex(t, WEFT_VERTEX_SWITCH, "leaf0", -1, -1);
    gint leaf1 = vertex(t, WEFT_VERTEX_SWITCH, "leaf1", -1, -1);
    gint spine = vertex(t, WEFT_VERTEX_SWITCH, "spine", -1, -1);
    vertex(t, WEFT_VERTEX_SWITCH, "stray", -1, -1); /* no link at all */
    link(t, a, na, WEFT_LINK_PCIE, 64 * GBPS);
    link(t, b, nb, WEFT_LINK_PCIE, 64 * GBPS);
    link(t, na, leaf0, WEFT_LINK_INFINIBAND, 50 * GBPS);
    link(t, nb, leaf0, WEFT_LINK_INFINIBAND, 50 * GBPS);
    link(t, leaf0, spine, WEFT_LINK_INFINIBAND, 50 * GBPS);
    link(t, leaf1, spine, WEFT_LINK_INFINIBAND, 50 * GBPS);
    weft_topo_set_vertex_tier(t, leaf0, 1);
    weft_topo_set_vertex_tier(t, leaf1, 1); /* nothing below it */
    weft_topo_set_vertex_tier(t, spine, 2);
    finalize(t);
    g_autoptr(GString) report = g_string_new(NULL);
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_topo_check(t, report, &err));
    /* findings, not a failure of the check itself */
    ck_assert_ptr_null(err);
    /* one line each: stray is unreachable; leaf1 has no link down (only the
     * spine). leaf0 (down to NICs, up to the spine) and the top-tier spine
     * (down to the leaves, nothing above it) are fine. */
    ck_assert_msg(lines(report) == 2, "report:\n%s", report->str);
}
END_TEST

START_TEST(check_lists_ten_then_counts)
{
    /* 12 stray switches: 10 lines, then one "... and 2 more" line */
    g_autoptr(weft_topo_t) t = weft_topo_new("strays");
    gint a = vertex(t, WEFT_VERTEX_GPU, "a", -1, -1);
    gint b = vertex(t, WEFT_VERTEX_GPU, "b", -1, -1);
    link(t, a, b, WEFT_LINK_GENERIC, GBPS);
    for (gint i = 0; i < 12; i++) {
        g_autofree char *name = g_strdup_printf("stray%d", i);
        vertex(t, WEFT_VERTEX_SWITCH, name, -1, -1);
    }
    finalize(t);
    g_autoptr(GString) report = g_string_new(NULL);
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_topo_check(t, report, &err));
    ck_assert_ptr_null(err);
    ck_assert_msg(lines(report) == 11, "report:\n%s", report->str);
}
END_TEST

START_TEST(check_passes_ring_and_rail_optimized)
{
    g_autoptr(weft_topo_t) r = ring(8);
    g_autoptr(weft_topo_t) b = cluster_b();
    g_autoptr(GString) report = g_string_new(NULL);
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_topo_check(r, report, &err), "ring: %s", report->str);
    ck_assert_msg(weft_topo_check(b, report, &err), "b: %s", report->str);
    ck_assert_uint_eq(report->len, 0);
}
END_TEST

static Suite *
analysis_suite(void)
{
    Suite *s = suite_create("analysis");
    TCase *tc = tcase_create("leaf-spine");
    tcase_add_test(tc, a_counts_by_kind);
    tcase_add_test(tc, a_scaleup_is_the_nvlink_bandwidth);
    tcase_add_test(tc, a_injection_is_one_nic);
    tcase_add_test(tc, a_bisection_is_the_leaf_uplinks);
    tcase_add_test(tc, a_diameter_crosses_a_spine);
    tcase_add_test(tc, a_oversubscription_two_to_one_at_leaves);
    tcase_add_test(tc, a_passes_check);
    suite_add_tcase(s, tc);

    tc = tcase_create("rail-optimized");
    tcase_add_test(tc, b_shared_pcie_switch_does_not_inflate_injection);
    tcase_add_test(tc, b_bisection_is_half_the_nodes_times_rails_times_nic);
    tcase_add_test(tc, b_rail_optimized_figures);
    suite_add_tcase(s, tc);

    tc = tcase_create("direct");
    tcase_add_test(tc, ring8_figures);
    tcase_add_test(tc, long_ring_diameter_across_sweeps);
    tcase_add_test(tc, torus_4x4x4_figures);
    tcase_add_loop_test(tc, diameter_matches_igraph_all_pairs_on_random_clusters, 0, 4);
    tcase_add_test(tc, one_gpu_has_no_bisection_or_diameter);
    tcase_add_test(tc, uneven_hosts_give_min_and_max);
    tcase_add_test(tc, tier_above_four_is_value_error);
    suite_add_tcase(s, tc);

    tc = tcase_create("check");
    tcase_add_test(tc, check_finds_unreachable_vertex_and_leaf_without_downlink);
    tcase_add_test(tc, check_lists_ten_then_counts);
    tcase_add_test(tc, check_passes_ring_and_rail_optimized);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
    SRunner *sr = srunner_create(analysis_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
