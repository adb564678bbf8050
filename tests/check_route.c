/* SPDX-License-Identifier: MIT */
/*
 * Check tests of routing (NVLink domains, the NVLink and fabric views, ECMP
 * spreading, rail affinity, the full-graph fallback, equal-cost path counts,
 * fabric states sharing one cluster with their own links and seeds),
 * GraphML and DOT files, and placement, on small fabrics built by hand through
 * the public API, with the expected values derived beside each assertion.
 */
#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topo/fabric.h"
#include "topo/placement.h"
#include "topo/topo.h"

#define NS 1000 /* picoseconds per nanosecond */

static gint
vtx(weft_topo_t *t, weft_vertex_kind_t kind, const char *name, gint host, gint rail)
{
    GError *err = NULL;
    gint v = weft_topo_add_vertex(t, kind, name, host, rail, &err);
    ck_assert_msg(v >= 0, "add_vertex %s: %s", name, err != NULL ? err->message : "?");
    return v;
}

static void
lnk(weft_topo_t *t, gint u, gint v, weft_link_kind_t kind, double bw, weft_time_t lat, guint lanes)
{
    GError *err = NULL;
    gint e = weft_topo_add_link(t, u, v, kind, bw, lat, lanes, &err);
    ck_assert_msg(e >= 0, "add_link: %s", err != NULL ? err->message : "?");
}

static void
finalize(weft_topo_t *t)
{
    GError *err = NULL;
    ck_assert_msg(weft_topo_finalize(t, &err), "finalize: %s", err != NULL ? err->message : "?");
}

/*
 * The leaf-spine fixture: 2 nodes x 2 GPUs. Node h: GPUs "node<h>/gpu<i>"
 * (GPU numbers 2h + i, rail i), one NVSwitch (NVLink 100 GB/s, 100 ns per
 * GPU link), NIC "node<h>/nic<i>" per GPU on rail i (PCIe 32 GB/s, 50 ns).
 * Both NICs of node h go to leaf<h> (tier 1; 25 GB/s, 200 ns); each leaf goes
 * to spine0..3 (tier 2; 50 GB/s, 300 ns).
 * With @zoo, also: a CPU per node (host kind, PCIe x16 to gpu0, 15 significant
 * digits of bandwidth), an Ethernet front-end switch (untiered) to both CPUs,
 * and a generic link leaf0 - leaf1 (every vertex and link kind appears).
 */
static weft_topo_t *
leaf_spine(gboolean zoo)
{
    weft_topo_t *t = weft_topo_new("leaf-spine");
    gint gpu[2][2];
    gint nic[2][2];
    gint nvs[2];
    gint leaf[2];
    for (gint h = 0; h < 2; h++) {
        for (gint i = 0; i < 2; i++) {
            g_autofree char *name = g_strdup_printf("node%d/gpu%d", h, i);
            gpu[h][i] = vtx(t, WEFT_VERTEX_GPU, name, h, i);
        }
    }
    for (gint h = 0; h < 2; h++) {
        g_autofree char *name = g_strdup_printf("node%d/nvswitch", h);
        nvs[h] = vtx(t, WEFT_VERTEX_NVSWITCH, name, h, -1);
        for (gint i = 0; i < 2; i++) {
            g_autofree char *nn = g_strdup_printf("node%d/nic%d", h, i);
            nic[h][i] = vtx(t, WEFT_VERTEX_NIC, nn, h, i);
            lnk(t, gpu[h][i], nvs[h], WEFT_LINK_NVLINK, 100e9, 100 * NS, 4);
            lnk(t, gpu[h][i], nic[h][i], WEFT_LINK_PCIE, 32e9, 50 * NS, 1);
        }
    }
    for (gint h = 0; h < 2; h++) {
        g_autofree char *name = g_strdup_printf("leaf%d", h);
        leaf[h] = vtx(t, WEFT_VERTEX_SWITCH, name, -1, -1);
        weft_topo_set_vertex_tier(t, leaf[h], 1);
        for (gint i = 0; i < 2; i++) {
            lnk(t, nic[h][i], leaf[h], WEFT_LINK_INFINIBAND, 25e9, 200 * NS, 1);
        }
    }
    for (gint s = 0; s < 4; s++) {
        g_autofree char *name = g_strdup_printf("spine%d", s);
        gint sp = vtx(t, WEFT_VERTEX_SWITCH, name, -1, -1);
        weft_topo_set_vertex_tier(t, sp, 2);
        for (gint h = 0; h < 2; h++) {
            lnk(t, leaf[h], sp, WEFT_LINK_INFINIBAND, 50e9, 300 * NS, 1);
        }
    }
    if (zoo) {
        gint fe = vtx(t, WEFT_VERTEX_SWITCH, "frontend \"eth\"", -1, -1);
        for (gint h = 0; h < 2; h++) {
            g_autofree char *name = g_strdup_printf("node%d/cpu", h);
            gint cpu = vtx(t, WEFT_VERTEX_HOST, name, h, -1);
            lnk(t, cpu, gpu[h][0], WEFT_LINK_PCIE, 31.5076923076923e9, 123456789, 16);
            lnk(t, cpu, fe, WEFT_LINK_ETHERNET, 12.5e9, 1 * NS, 2);
        }
        lnk(t, leaf[0], leaf[1], WEFT_LINK_GENERIC, 7.25e9, 0, 1);
    }
    finalize(t);
    return t;
}

static const weft_route_t *
route_flow(weft_fabric_t *fab, const char *a, const char *b, guint64 flow)
{
    const weft_topo_t *t = weft_fabric_topo(fab);
    GError *err = NULL;
    gint u = weft_topo_find_vertex(t, a);
    gint v = weft_topo_find_vertex(t, b);
    ck_assert(u >= 0 && v >= 0);
    const weft_route_t *r = weft_fabric_route_ecmp(fab, u, v, flow, &err);
    ck_assert_msg(r != NULL, "route %s -> %s: %s", a, b, err != NULL ? err->message : "?");
    return r;
}

/* The name of the vertex edge @i of path 0 of @r leads to. */
static const char *
hop_to(const weft_topo_t *t, const weft_route_t *r, guint i)
{
    ck_assert_uint_lt(i, r->path_off[1]);
    return weft_topo_vertex_name(t, weft_topo_edge_to(t, r->edges[i]));
}

static guint64
count(weft_fabric_t *fab, const char *a, const char *b)
{
    const weft_topo_t *t = weft_fabric_topo(fab);
    GError *err = NULL;
    guint64 n = 0;
    ck_assert(weft_fabric_count_paths(fab, weft_topo_find_vertex(t, a), weft_topo_find_vertex(t, b),
                                      &n, &err));
    return n;
}

/* ---- domains, hosts, tiers ---------------------------------------------------------- */

START_TEST(domains_are_nvlink_components_by_lowest_gpu)
{
    g_autoptr(weft_topo_t) t = leaf_spine(FALSE);
    /* one NVSwitch per node joins its 2 GPUs: 2 domains, node h is domain h */
    ck_assert_uint_eq(weft_topo_n_domains(t), 2);
    ck_assert_int_eq(weft_topo_vertex_domain(t, weft_topo_find_vertex(t, "node0/gpu1")), 0);
    ck_assert_int_eq(weft_topo_vertex_domain(t, weft_topo_find_vertex(t, "node1/gpu0")), 1);
    ck_assert_int_eq(weft_topo_vertex_domain(t, weft_topo_find_vertex(t, "node1/nvswitch")), 1);
    /* NICs and network switches are in no domain */
    ck_assert_int_eq(weft_topo_vertex_domain(t, weft_topo_find_vertex(t, "node0/nic0")), -1);
    ck_assert_int_eq(weft_topo_vertex_domain(t, weft_topo_find_vertex(t, "spine3")), -1);
    /* hosts 0 and 1: n_hosts = 1 + 1 */
    ck_assert_uint_eq(weft_topo_n_hosts(t), 2);
    ck_assert_uint_eq(weft_topo_vertex_tier(t, weft_topo_find_vertex(t, "leaf1")), 1);
    ck_assert_uint_eq(weft_topo_vertex_tier(t, weft_topo_find_vertex(t, "spine0")), 2);
    ck_assert_uint_eq(weft_topo_vertex_tier(t, weft_topo_find_vertex(t, "node0/gpu0")), 0);
}
END_TEST

/* GPUs 0-1 joined by NVLink, GPUs 2 and 3 without NVLink: three domains; a switch joins all. */
static weft_topo_t *
three_domains(void)
{
    weft_topo_t *t = weft_topo_new("three");
    gint g[4];
    for (gint i = 0; i < 4; i++) {
        g_autofree char *name = g_strdup_printf("g%d", i);
        g[i] = vtx(t, WEFT_VERTEX_GPU, name, -1, -1);
    }
    gint sw = vtx(t, WEFT_VERTEX_SWITCH, "sw", -1, -1);
    lnk(t, g[0], g[1], WEFT_LINK_NVLINK, 50e9, 0, 1);
    for (gint i = 0; i < 4; i++) {
        lnk(t, g[i], sw, WEFT_LINK_ETHERNET, 10e9, 0, 1);
    }
    finalize(t);
    return t;
}

START_TEST(gpu_without_nvlink_is_its_own_domain)
{
    g_autoptr(weft_topo_t) t = three_domains();
    /* {g0, g1} by lowest GPU 0 -> domain 0; g2 -> 1; g3 -> 2 */
    ck_assert_uint_eq(weft_topo_n_domains(t), 3);
    ck_assert_int_eq(weft_topo_vertex_domain(t, 1), 0);
    ck_assert_int_eq(weft_topo_vertex_domain(t, 2), 1);
    ck_assert_int_eq(weft_topo_vertex_domain(t, 3), 2);
    ck_assert_int_eq(weft_topo_vertex_domain(t, 4), -1);
    /* no vertex has a host */
    ck_assert_uint_eq(weft_topo_n_hosts(t), 0);
}
END_TEST

/* ---- routes ------------------------------------------------------------------------- */

START_TEST(intra_node_route_uses_nvlink_only)
{
    g_autoptr(weft_topo_t) t = leaf_spine(FALSE);
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    const weft_route_t *r = route_flow(fab, "node0/gpu0", "node0/gpu1", 0);
    /* gpu0 -> nvswitch -> gpu1 (the PCIe/NIC/leaf way is 4 hops and not in the NVLink view) */
    ck_assert_uint_eq(r->n_paths, 1);
    ck_assert_uint_eq(r->hops, 2);
    ck_assert_str_eq(hop_to(t, r, 0), "node0/nvswitch");
    ck_assert_str_eq(hop_to(t, r, 1), "node0/gpu1");
    for (guint i = 0; i < 2; i++) {
        ck_assert_int_eq(weft_topo_edge_kind(t, r->edges[i]), WEFT_LINK_NVLINK);
    }
    /* rate = 100 GB/s, latency = 2 x 100 ns */
    ck_assert(r->rate_Bps == 100e9);
    ck_assert_int_eq(r->latency_ps, 200 * NS);
    /* one path, and every flow id gets the same cached route */
    ck_assert_uint_eq(count(fab, "node0/gpu0", "node0/gpu1"), 1);
    ck_assert_ptr_eq(route_flow(fab, "node0/gpu0", "node0/gpu1", 12345), r);
}
END_TEST

START_TEST(inter_node_route_leaves_through_own_nic)
{
    g_autoptr(weft_topo_t) t = leaf_spine(FALSE);
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    const weft_route_t *r = route_flow(fab, "node0/gpu1", "node1/gpu1", 7);
    /* gpu -> own NIC -> leaf0 -> a spine -> leaf1 -> NIC -> gpu: 6 hops, no NVLink */
    ck_assert_uint_eq(r->n_paths, 1);
    ck_assert_uint_eq(r->hops, 6);
    ck_assert_str_eq(hop_to(t, r, 0), "node0/nic1");
    ck_assert_str_eq(hop_to(t, r, 1), "leaf0");
    ck_assert(g_str_has_prefix(hop_to(t, r, 2), "spine"));
    ck_assert_str_eq(hop_to(t, r, 3), "leaf1");
    ck_assert_str_eq(hop_to(t, r, 4), "node1/nic1");
    ck_assert_str_eq(hop_to(t, r, 5), "node1/gpu1");
    for (guint i = 0; i < 6; i++) {
        ck_assert_int_ne(weft_topo_edge_kind(t, r->edges[i]), WEFT_LINK_NVLINK);
    }
    /* bottleneck min(32, 25, 50, 50, 25, 32) GB/s = 25 GB/s;
     * latency 50 + 200 + 300 + 300 + 200 + 50 = 1100 ns */
    ck_assert(r->rate_Bps == 25e9);
    ck_assert_int_eq(r->latency_ps, 1100 * NS);
    /* one equal-cost path per spine */
    ck_assert_uint_eq(count(fab, "node0/gpu1", "node1/gpu1"), 4);
}
END_TEST

START_TEST(routes_to_and_from_network_vertices)
{
    g_autoptr(weft_topo_t) t = leaf_spine(FALSE);
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    /* leaf1 -> node1/gpu0: enters through gpu0's own NIC: leaf1 -> nic0 -> gpu0, 2 hops */
    ck_assert_uint_eq(route_flow(fab, "leaf1", "node1/gpu0", 0)->hops, 2);
    /* the NIC on the destination's chain: 1 hop */
    ck_assert_uint_eq(route_flow(fab, "node1/nic0", "node1/gpu0", 0)->hops, 1);
    /* GPU to a remote NIC: exits through its own NIC: gpu -> nic -> leaf0 -> spine -> leaf1 -> nic
     * = 5 hops, 1 x 4 paths */
    ck_assert_uint_eq(route_flow(fab, "node0/gpu0", "node1/nic0", 3)->hops, 5);
    ck_assert_uint_eq(count(fab, "node0/gpu0", "node1/nic0"), 4);
    /* a GPU to its own NVSwitch (same domain): 1 NVLink hop */
    const weft_route_t *r = route_flow(fab, "node0/gpu0", "node0/nvswitch", 0);
    ck_assert_uint_eq(r->hops, 1);
    ck_assert_int_eq(weft_topo_edge_kind(t, r->edges[0]), WEFT_LINK_NVLINK);
    /* a vertex to itself: one (empty) path */
    ck_assert_uint_eq(count(fab, "spine0", "spine0"), 1);
}
END_TEST

START_TEST(route_falls_back_to_full_graph_when_fabric_cannot_reach)
{
    /* node A: a0 - nvs - a1 by NVLink, only a0 has a NIC; node B: b0 with a NIC; one switch */
    g_autoptr(weft_topo_t) t = weft_topo_new("fallback");
    gint a0 = vtx(t, WEFT_VERTEX_GPU, "a0", 0, 0);
    gint a1 = vtx(t, WEFT_VERTEX_GPU, "a1", 0, 1);
    gint b0 = vtx(t, WEFT_VERTEX_GPU, "b0", 1, 0);
    gint nvs = vtx(t, WEFT_VERTEX_NVSWITCH, "nvs", 0, -1);
    gint na = vtx(t, WEFT_VERTEX_NIC, "na", 0, 0);
    gint nb = vtx(t, WEFT_VERTEX_NIC, "nb", 1, 0);
    gint sw = vtx(t, WEFT_VERTEX_SWITCH, "sw", -1, -1);
    lnk(t, a0, nvs, WEFT_LINK_NVLINK, 100e9, 0, 1);
    lnk(t, a1, nvs, WEFT_LINK_NVLINK, 100e9, 0, 1);
    lnk(t, a0, na, WEFT_LINK_PCIE, 32e9, 0, 1);
    lnk(t, b0, nb, WEFT_LINK_PCIE, 32e9, 0, 1);
    lnk(t, na, sw, WEFT_LINK_INFINIBAND, 25e9, 0, 1);
    lnk(t, nb, sw, WEFT_LINK_INFINIBAND, 25e9, 0, 1);
    finalize(t);
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    /* a1 has no fabric link: b0 -> nb -> sw -> na -> a0 -> nvs -> a1 = 6 hops over all edges */
    const weft_route_t *r = route_flow(fab, "b0", "a1", 0);
    ck_assert_uint_eq(r->hops, 6);
    ck_assert_str_eq(hop_to(t, r, 4), "nvs");
    /* b0 -> a0 stays in the fabric: 4 hops */
    ck_assert_uint_eq(route_flow(fab, "b0", "a0", 0)->hops, 4);
}
END_TEST

START_TEST(sprayed_nvlink_route_counts_as_one_path)
{
    /* two NVSwitch planes between g0 and g1: sprayed, one choice for ECMP */
    g_autoptr(weft_topo_t) t = weft_topo_new("planes");
    gint g0 = vtx(t, WEFT_VERTEX_GPU, "g0", 0, 0);
    gint g1 = vtx(t, WEFT_VERTEX_GPU, "g1", 0, 1);
    gint s0 = vtx(t, WEFT_VERTEX_NVSWITCH, "s0", 0, -1);
    gint s1 = vtx(t, WEFT_VERTEX_NVSWITCH, "s1", 0, -1);
    lnk(t, g0, s0, WEFT_LINK_NVLINK, 50e9, 0, 2);
    lnk(t, g1, s0, WEFT_LINK_NVLINK, 50e9, 0, 2);
    lnk(t, g0, s1, WEFT_LINK_NVLINK, 25e9, 0, 1);
    lnk(t, g1, s1, WEFT_LINK_NVLINK, 25e9, 0, 1);
    finalize(t);
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    const weft_route_t *r = route_flow(fab, "g0", "g1", 99);
    ck_assert_uint_eq(r->n_paths, 2);
    /* rate = 50 + 25 GB/s */
    ck_assert_double_eq_tol(r->rate_Bps, 75e9, 1.0);
    ck_assert_uint_eq(count(fab, "g0", "g1"), 1);
}
END_TEST

START_TEST(count_paths_unreachable_is_no_route)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("t");
    g_autoptr(GError) err = NULL;
    gint a = vtx(t, WEFT_VERTEX_GPU, "a", -1, -1);
    gint b = vtx(t, WEFT_VERTEX_GPU, "b", -1, -1);
    gint spare = vtx(t, WEFT_VERTEX_SWITCH, "spare", -1, -1);
    lnk(t, a, b, WEFT_LINK_GENERIC, 1e9, 0, 1);
    finalize(t);
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    guint64 n = 7;
    ck_assert(!weft_fabric_count_paths(fab, a, spare, &n, &err));
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_NO_ROUTE));
}
END_TEST

/* ---- ECMP ------------------------------------------------------------------------------- */

/* Spine index (0..3) that flow @f of node0/gpu0 -> node1/gpu0 crosses. */
static guint
spine_of(weft_fabric_t *fab, guint64 f)
{
    const weft_topo_t *t = weft_fabric_topo(fab);
    const char *s = hop_to(t, route_flow(fab, "node0/gpu0", "node1/gpu0", f), 2);
    ck_assert(g_str_has_prefix(s, "spine"));
    return (guint)(s[5] - '0');
}

START_TEST(ecmp_spreads_1000_transfers_evenly_over_spines)
{
    g_autoptr(weft_topo_t) t = leaf_spine(FALSE);
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    guint n[4] = {0, 0, 0, 0};
    GHashTable *distinct = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint64 f = 0; f < 1000; f++) {
        n[spine_of(fab, f)]++;
        g_hash_table_add(distinct, (gpointer)route_flow(fab, "node0/gpu0", "node1/gpu0", f));
    }
    /* even is 1000 / 4 = 250 per spine; within 10 %: 225 .. 275 */
    for (guint s = 0; s < 4; s++) {
        ck_assert_msg(n[s] >= 225 && n[s] <= 275, "spine%u carries %u of 1000", s, n[s]);
    }
    /* routes are cached per ECMP slot: at most 64 distinct routes, and one per spine at least */
    guint d = g_hash_table_size(distinct);
    ck_assert_msg(d >= 4 && d <= 64, "%u distinct routes", d);
    g_hash_table_destroy(distinct);
}
END_TEST

START_TEST(ecmp_same_seed_same_routes_other_seed_other_assignment)
{
    g_autoptr(weft_topo_t) a = leaf_spine(FALSE);
    g_autoptr(weft_fabric_t) fa = weft_fabric_new(a);
    g_autoptr(weft_topo_t) b = leaf_spine(FALSE);
    g_autoptr(weft_fabric_t) fb = weft_fabric_new(b);
    weft_fabric_set_ecmp_seed(fa, 42);
    weft_fabric_set_ecmp_seed(fb, 42);
    for (guint64 f = 0; f < 1000; f++) {
        ck_assert_uint_eq(spine_of(fa, f), spine_of(fb, f));
    }
    /* a route handed out before the seed changes stays valid */
    const weft_route_t *old = route_flow(fb, "node0/gpu0", "node1/gpu0", 5);
    guint old_spine = spine_of(fb, 5);
    weft_fabric_set_ecmp_seed(fb, 43);
    ck_assert_uint_eq(old->hops, 6);
    g_autofree char *want = g_strdup_printf("spine%u", old_spine);
    ck_assert_str_eq(hop_to(b, old, 2), want);
    /* two independent even assignments agree on a flow with probability 1/4: about 750 of
     * 1000 flows move; more than 500 is far outside chance agreement */
    guint moved = 0;
    guint n[4] = {0, 0, 0, 0};
    for (guint64 f = 0; f < 1000; f++) {
        guint s = spine_of(fb, f);
        n[s]++;
        moved += s != spine_of(fa, f);
    }
    ck_assert_msg(moved > 500, "%u flows moved", moved);
    for (guint s = 0; s < 4; s++) {
        ck_assert_msg(n[s] >= 225 && n[s] <= 275, "seed 43: spine%u carries %u", s, n[s]);
    }
}
END_TEST

/*
 * The DGX A100-like fabric: per node h, gpu0, gpu1 and nic0, nic1 under one
 * PCIe switch "node<h>/pcie" (32 GB/s, 50 ns per link), both GPUs on an
 * NVSwitch (300 GB/s); nic<i> of both nodes on rail i's leaf "rail<i>-leaf"
 * (25 GB/s, 200 ns); both leaves on spine0 and spine1 (25 GB/s, 300 ns).
 * Vertices: 2 leaves, 2 spines, then per node pcie, nvswitch, gpu0, nic0,
 * gpu1, nic1. Shortest paths alone would send node0/gpu0 -> node1/gpu1 through
 * node0/nic1 (gpu -> pcie -> nic1 -> rail1-leaf -> nic1 -> pcie -> gpu: 6 hops).
 * GPU i of node h is on rail i if bit h of @gpu_rails is set, else on no rail
 * (-1); NICs are always on their rails.
 */
static weft_topo_t *
a100_like_rails(guint gpu_rails)
{
    weft_topo_t *t = weft_topo_new("a100-like");
    gint leaf[2];
    for (gint r = 0; r < 2; r++) {
        g_autofree char *name = g_strdup_printf("rail%d-leaf", r);
        leaf[r] = vtx(t, WEFT_VERTEX_SWITCH, name, -1, r);
        weft_topo_set_vertex_tier(t, leaf[r], 1);
    }
    for (gint s = 0; s < 2; s++) {
        g_autofree char *name = g_strdup_printf("spine%d", s);
        gint sp = vtx(t, WEFT_VERTEX_SWITCH, name, -1, -1);
        weft_topo_set_vertex_tier(t, sp, 2);
        lnk(t, leaf[0], sp, WEFT_LINK_INFINIBAND, 25e9, 300 * NS, 1);
        lnk(t, leaf[1], sp, WEFT_LINK_INFINIBAND, 25e9, 300 * NS, 1);
    }
    for (gint h = 0; h < 2; h++) {
        g_autofree char *pn = g_strdup_printf("node%d/pcie", h);
        g_autofree char *nn = g_strdup_printf("node%d/nvswitch", h);
        gint pcie = vtx(t, WEFT_VERTEX_SWITCH, pn, h, -1);
        gint nvs = vtx(t, WEFT_VERTEX_NVSWITCH, nn, h, -1);
        for (gint i = 0; i < 2; i++) {
            g_autofree char *gn = g_strdup_printf("node%d/gpu%d", h, i);
            g_autofree char *cn = g_strdup_printf("node%d/nic%d", h, i);
            gint g = vtx(t, WEFT_VERTEX_GPU, gn, h, (gpu_rails >> h) & 1 ? i : -1);
            gint n = vtx(t, WEFT_VERTEX_NIC, cn, h, i);
            lnk(t, g, nvs, WEFT_LINK_NVLINK, 300e9, 0, 12);
            lnk(t, g, pcie, WEFT_LINK_PCIE, 32e9, 50 * NS, 1);
            lnk(t, n, pcie, WEFT_LINK_PCIE, 32e9, 50 * NS, 1);
            lnk(t, n, leaf[i], WEFT_LINK_INFINIBAND, 25e9, 200 * NS, 1);
        }
    }
    finalize(t);
    return t;
}

static weft_topo_t *
a100_like(void)
{
    return a100_like_rails(3);
}

/* Asserts that path 0 of @r visits the vertices named in @want (NULL-terminated), in order. */
static void
assert_hops(const weft_topo_t *t, const weft_route_t *r, const char *const *want)
{
    guint n = 0;
    while (want[n] != NULL) {
        n++;
    }
    ck_assert_uint_eq(r->n_paths, 1);
    ck_assert_uint_eq(r->hops, n);
    ck_assert_uint_eq(r->path_off[1], n);
    for (guint i = 0; i < n; i++) {
        ck_assert_str_eq(hop_to(t, r, i), want[i]);
    }
}

START_TEST(rail_segments_same_rail_stays_on_the_rail_leaf)
{
    g_autoptr(weft_topo_t) t = a100_like();
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    /* exit node0/nic0 (rail 0), entry node1/nic0 (rail 0): the middle segment nic0 -> rail0-leaf
     * -> nic0 is 2 hops, shorter than any way over a spine (4 hops): one path */
    static const char *const want[] = {"node0/pcie", "node0/nic0", "rail0-leaf", "node1/nic0",
                                       "node1/pcie", "node1/gpu0", NULL};
    for (guint64 f = 0; f < 100; f++) {
        assert_hops(t, route_flow(fab, "node0/gpu0", "node1/gpu0", f), want);
    }
    const weft_route_t *r = route_flow(fab, "node0/gpu0", "node1/gpu0", 0);
    /* bottleneck min(32, 32, 25, 25, 32, 32) GB/s = 25 GB/s; latency 50 + 50 + 200 + 200 + 50 + 50
     * = 600 ns */
    ck_assert(r->rate_Bps == 25e9);
    ck_assert_int_eq(r->latency_ps, 600 * NS);
    ck_assert_uint_eq(count(fab, "node0/gpu0", "node1/gpu0"), 1);
    /* rail 1 likewise: node0/gpu1 -> node0/nic1 -> rail1-leaf -> node1/nic1 */
    static const char *const want1[] = {"node0/pcie", "node0/nic1", "rail1-leaf", "node1/nic1",
                                        "node1/pcie", "node1/gpu1", NULL};
    assert_hops(t, route_flow(fab, "node0/gpu1", "node1/gpu1", 3), want1);
}
END_TEST

START_TEST(rail_segments_cross_rail_leaves_via_own_nic_enters_via_peer_nic)
{
    g_autoptr(weft_topo_t) t = a100_like();
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    /* GPU 0 exits through its rail's NIC 0, crosses a spine to rail 1, and enters through the
     * destination GPU 1's NIC 1: 2 + 4 + 2 = 8 hops (shortest paths alone would take node0/nic1
     * and 6 hops) */
    guint n_spine[2] = {0, 0};
    for (guint64 f = 0; f < 1000; f++) {
        const weft_route_t *r = route_flow(fab, "node0/gpu0", "node1/gpu1", f);
        const char *spine = hop_to(t, r, 3);
        ck_assert(g_str_has_prefix(spine, "spine"));
        n_spine[spine[5] - '0']++;
        const char *want[] = {"node0/pcie", "node0/nic0", "rail0-leaf", spine, "rail1-leaf",
                              "node1/nic1", "node1/pcie", "node1/gpu1", NULL};
        assert_hops(t, r, want);
        /* no NVLink on the way */
        for (guint i = 0; i < r->hops; i++) {
            ck_assert_int_ne(weft_topo_edge_kind(t, r->edges[i]), WEFT_LINK_NVLINK);
        }
    }
    /* 2 spines, one choice in the whole route: the 64 slots split 32/32 and 1000 flows hash to
     * 500 +- 16 each; within 10 %: 450 .. 550 */
    ck_assert_msg(n_spine[0] >= 450 && n_spine[0] <= 550, "spine0 carries %u", n_spine[0]);
    /* rate: min(32, 32, 25, 25, 25, 25, 32, 32) GB/s = 25 GB/s (the bottleneck over all three
     * segments); latency 50 + 50 + 200 + 300 + 300 + 200 + 50 + 50 = 1200 ns */
    const weft_route_t *r = route_flow(fab, "node0/gpu0", "node1/gpu1", 7);
    ck_assert(r->rate_Bps == 25e9);
    ck_assert_int_eq(r->latency_ps, 1200 * NS);
    /* ECMP chooses only among the spines: 1 x 2 x 1 paths */
    ck_assert_uint_eq(count(fab, "node0/gpu0", "node1/gpu1"), 2);
    /* and back: node1/gpu1 leaves via node1/nic1, enters node0/gpu0 via node0/nic0 */
    r = route_flow(fab, "node1/gpu1", "node0/gpu0", 7);
    ck_assert_uint_eq(r->hops, 8);
    ck_assert_str_eq(hop_to(t, r, 1), "node1/nic1");
    ck_assert_str_eq(hop_to(t, r, 5), "node0/nic0");
    /* inside a node the NVLink route is unchanged: gpu0 -> nvswitch -> gpu1 */
    ck_assert_uint_eq(route_flow(fab, "node0/gpu0", "node0/gpu1", 0)->hops, 2);
}
END_TEST

START_TEST(rail_segments_are_deterministic)
{
    g_autoptr(weft_topo_t) a = a100_like();
    g_autoptr(weft_fabric_t) fa = weft_fabric_new(a);
    g_autoptr(weft_topo_t) b = a100_like();
    g_autoptr(weft_fabric_t) fb = weft_fabric_new(b);
    /* the same cluster and seed give the same edges for every flow, and a flow gets its cached
     * route back */
    for (guint64 f = 0; f < 200; f++) {
        const weft_route_t *ra = route_flow(fa, "node0/gpu0", "node1/gpu1", f);
        const weft_route_t *rb = route_flow(fb, "node0/gpu0", "node1/gpu1", f);
        ck_assert_uint_eq(ra->hops, rb->hops);
        ck_assert_mem_eq(ra->edges, rb->edges, sizeof(gint32) * ra->hops);
        ck_assert_ptr_eq(route_flow(fa, "node0/gpu0", "node1/gpu1", f), ra);
    }
}
END_TEST

START_TEST(rail_segments_apply_on_each_side_alone)
{
    g_autoptr(weft_topo_t) t = a100_like();
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    /* to a remote NIC (no entry NIC: it is not a GPU): exit node0/nic0, then nic0 -> rail0-leaf
     * -> spine -> rail1-leaf -> node1/nic1 = 2 + 4 = 6 hops, one path per spine (shortest paths
     * alone: gpu0 -> pcie -> nic1 -> rail1-leaf -> nic1, 4 hops) */
    const weft_route_t *r = route_flow(fab, "node0/gpu0", "node1/nic1", 0);
    ck_assert_uint_eq(r->hops, 6);
    ck_assert_str_eq(hop_to(t, r, 1), "node0/nic0");
    ck_assert_uint_eq(count(fab, "node0/gpu0", "node1/nic1"), 2);
    /* from a leaf (no exit NIC) to node1/gpu0: enters through node1/nic0: rail1-leaf -> spine ->
     * rail0-leaf -> nic0 -> pcie -> gpu0 = 5 hops (not rail1-leaf -> nic1 -> pcie -> gpu0) */
    r = route_flow(fab, "rail1-leaf", "node1/gpu0", 0);
    ck_assert_uint_eq(r->hops, 5);
    ck_assert_str_eq(hop_to(t, r, 2), "node1/nic0");
    /* a GPU to its own NIC stays inside the host (one host: the current rule): gpu1 -> pcie ->
     * nic0 */
    r = route_flow(fab, "node0/gpu1", "node0/nic0", 0);
    ck_assert_uint_eq(r->hops, 2);
}
END_TEST

START_TEST(rail_segments_need_gpus_on_rails)
{
    /* no GPU on a rail: no own-rail NIC anywhere, shortest paths as before: node0/gpu0 -> pcie ->
     * nic0 or nic1 -> that rail's leaf -> nic -> pcie -> node1/gpu1 = 6 hops (the segment rule
     * would take 8), two paths (one per NIC), spread by ECMP */
    g_autoptr(weft_topo_t) t = a100_like_rails(0);
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    ck_assert_uint_eq(count(fab, "node0/gpu0", "node1/gpu1"), 2);
    guint via_nic1 = 0;
    for (guint64 f = 0; f < 100; f++) {
        const weft_route_t *r = route_flow(fab, "node0/gpu0", "node1/gpu1", f);
        ck_assert_uint_eq(r->hops, 6);
        via_nic1 += strcmp(hop_to(t, r, 1), "node0/nic1") == 0;
    }
    /* 100 flows over 2 paths: 50 +- 5 each; both are used */
    ck_assert_msg(via_nic1 > 20 && via_nic1 < 80, "%u of 100 via nic1", via_nic1);
}
END_TEST

START_TEST(rail_segments_need_the_far_gpu_reachable_in_the_network)
{
    /* node0's GPUs on rails, node1's not: node1/gpu1 has no entry NIC and is reached only
     * through its host's PCIe, so the network view does not join node0/nic0 to it: shortest
     * paths with rail affinity, as before: node0/pcie -> nic0 (rail 0 of the source) ->
     * rail0-leaf -> node1/nic0 -> pcie -> gpu1, 6 hops, not 8 */
    g_autoptr(weft_topo_t) t = a100_like_rails(1);
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    static const char *const want[] = {"node0/pcie", "node0/nic0", "rail0-leaf", "node1/nic0",
                                       "node1/pcie", "node1/gpu1", NULL};
    assert_hops(t, route_flow(fab, "node0/gpu0", "node1/gpu1", 0), want);
    /* and back: rail affinity towards the destination's rail 0 at node1/pcie */
    static const char *const back[] = {"node1/pcie", "node1/nic0", "rail0-leaf", "node0/nic0",
                                       "node0/pcie", "node0/gpu0", NULL};
    assert_hops(t, route_flow(fab, "node1/gpu1", "node0/gpu0", 0), back);
}
END_TEST

/* ---- fabric states: a run's link state and routes apart from the shared cluster ------------ */

/* Sets every directed edge between vertices @u and @v (both directions) to @fraction in @fab. */
static void
set_link(weft_fabric_t *fab, const char *u, const char *v, double fraction)
{
    const weft_topo_t *t = weft_fabric_topo(fab);
    g_autoptr(GArray) es = g_array_new(FALSE, FALSE, sizeof(gint));
    ck_assert_uint_eq(
        weft_topo_edges_between(t, weft_topo_find_vertex(t, u), weft_topo_find_vertex(t, v), es),
        2);
    for (guint i = 0; i < es->len; i++) {
        GError *err = NULL;
        ck_assert_msg(
            weft_fabric_set_link_fraction(fab, g_array_index(es, gint, i), fraction, &err), "%s",
            err != NULL ? err->message : "?");
    }
}

/* The edge u -> v. */
static gint
edge_of(const weft_topo_t *t, const char *u, const char *v)
{
    g_autoptr(GArray) es = g_array_new(FALSE, FALSE, sizeof(gint));
    gint a = weft_topo_find_vertex(t, u);
    weft_topo_edges_between(t, a, weft_topo_find_vertex(t, v), es);
    for (guint i = 0; i < es->len; i++) {
        if (weft_topo_edge_from(t, g_array_index(es, gint, i)) == a) {
            return g_array_index(es, gint, i);
        }
    }
    ck_abort_msg("no edge %s -> %s", u, v);
    return -1;
}

START_TEST(two_fabric_states_on_one_cluster_route_apart_and_leave_it_unchanged)
{
    /* The leaf-spine fixture shared by two fabric states. In fb leaf0's links to spine0..2
     * go down and the one to spine3 runs at 0.2 x 50 = 10 GB/s; fa keeps every link up. */
    g_autoptr(weft_topo_t) t = leaf_spine(FALSE);
    g_autoptr(weft_fabric_t) fa = weft_fabric_new(t);
    g_autoptr(weft_fabric_t) fb = weft_fabric_new(t);
    ck_assert_ptr_eq(weft_fabric_topo(fa), t);
    /* fa's routes before fb changes anything, kept to compare */
    guint before[64];
    for (guint64 f = 0; f < 64; f++) {
        before[f] = spine_of(fa, f);
    }
    for (guint s = 0; s < 3; s++) {
        g_autofree char *sp = g_strdup_printf("spine%u", s);
        set_link(fb, "leaf0", sp, 0.0);
    }
    set_link(fb, "leaf0", "spine3", 0.2);
    gint up3 = edge_of(t, "leaf0", "spine3");
    /* bandwidths: fb sees the degraded link, fa and the cluster the nominal 50 GB/s */
    ck_assert(weft_fabric_edge_bw_now(fb, up3) == 10e9);
    ck_assert(weft_fabric_edge_bw_now(fa, up3) == 50e9);
    ck_assert(weft_topo_edge_bw(t, up3) == 50e9);
    ck_assert_double_eq(weft_fabric_edge_fraction(fb, up3), 0.2);
    ck_assert_double_eq(weft_fabric_edge_fraction(fa, up3), 1.0);
    ck_assert_uint_eq(weft_fabric_link_version(fa), 0);
    ck_assert_uint_eq(weft_fabric_link_version(fb), 8); /* 4 links x 2 directions */
    /* routes: every fb flow crosses spine3 at the degraded 10 GB/s (1 equal-cost path left);
     * fa's flows keep their 4 spines at min(32, 25, 50, 50, 25, 32) = 25 GB/s, the same
     * routes as before fb's changes, and fa has 4 paths */
    guint fa_spines = 0;
    for (guint64 f = 0; f < 64; f++) {
        ck_assert_uint_eq(spine_of(fb, f), 3);
        ck_assert(route_flow(fb, "node0/gpu0", "node1/gpu0", f)->rate_Bps == 10e9);
        ck_assert_uint_eq(spine_of(fa, f), before[f]);
        ck_assert(route_flow(fa, "node0/gpu0", "node1/gpu0", f)->rate_Bps == 25e9);
        fa_spines |= 1u << before[f];
    }
    ck_assert_uint_eq(fa_spines, 0xf); /* 64 slots over 4 spines: each carries some */
    ck_assert_uint_eq(count(fb, "node0/gpu0", "node1/gpu0"), 1);
    ck_assert_uint_eq(count(fa, "node0/gpu0", "node1/gpu0"), 4);
    /* the cluster is what a fresh build gives, and a new fabric state sees it whole */
    g_autoptr(weft_topo_t) fresh = leaf_spine(FALSE);
    g_autoptr(GString) why = g_string_new(NULL);
    ck_assert_msg(weft_topo_equal(t, fresh, why), "%s", why->str);
    g_autoptr(weft_fabric_t) fc = weft_fabric_new(t);
    ck_assert_uint_eq(count(fc, "node0/gpu0", "node1/gpu0"), 4);
    ck_assert(weft_fabric_edge_bw_now(fc, up3) == 50e9);
    /* fb's links back up: the cluster's views again, the routes fa gives, per flow */
    for (guint s = 0; s < 4; s++) {
        g_autofree char *sp = g_strdup_printf("spine%u", s);
        set_link(fb, "leaf0", sp, 1.0);
    }
    for (guint64 f = 0; f < 64; f++) {
        const weft_route_t *ra = route_flow(fa, "node0/gpu0", "node1/gpu0", f);
        const weft_route_t *rb = route_flow(fb, "node0/gpu0", "node1/gpu0", f);
        ck_assert_uint_eq(ra->hops, rb->hops);
        ck_assert_mem_eq(ra->edges, rb->edges, sizeof(gint32) * ra->hops);
        ck_assert(ra->rate_Bps == rb->rate_Bps);
    }
}
END_TEST

START_TEST(fabric_state_seed_is_its_own)
{
    /* Two fabric states on one cluster, seeds 42 and 43: each gives the assignment a
     * cluster of its own with that seed gives (the seed is the state's, not the cluster's) */
    g_autoptr(weft_topo_t) t = leaf_spine(FALSE);
    g_autoptr(weft_topo_t) u = leaf_spine(FALSE);
    g_autoptr(weft_fabric_t) f42 = weft_fabric_new(t);
    g_autoptr(weft_fabric_t) f43 = weft_fabric_new(t);
    g_autoptr(weft_fabric_t) alone = weft_fabric_new(u);
    weft_fabric_set_ecmp_seed(f42, 42);
    weft_fabric_set_ecmp_seed(f43, 43);
    weft_fabric_set_ecmp_seed(alone, 43);
    ck_assert_uint_eq(weft_fabric_ecmp_seed(f42), 42);
    guint differ = 0;
    for (guint64 f = 0; f < 200; f++) {
        ck_assert_uint_eq(spine_of(f43, f), spine_of(alone, f));
        differ += spine_of(f42, f) != spine_of(f43, f);
    }
    ck_assert_uint_gt(differ, 100); /* about 3/4 of 200 */
}
END_TEST

/* ---- files -------------------------------------------------------------------------- */

static char *
tmp_dir(void)
{
    GError *err = NULL;
    char *d = g_dir_make_tmp("check_route-XXXXXX", &err);
    ck_assert_msg(d != NULL, "%s", err != NULL ? err->message : "?");
    return d;
}

static void
rm_dir(const char *d)
{
    GDir *dir = g_dir_open(d, 0, NULL);
    const char *n;
    while (dir != NULL && (n = g_dir_read_name(dir)) != NULL) {
        g_autofree char *p = g_build_filename(d, n, NULL);
        g_unlink(p);
    }
    if (dir != NULL) {
        g_dir_close(dir);
    }
    g_rmdir(d);
}

static guint
files_in(const char *d)
{
    GDir *dir = g_dir_open(d, 0, NULL);
    guint n = 0;
    while (dir != NULL && g_dir_read_name(dir) != NULL) {
        n++;
    }
    if (dir != NULL) {
        g_dir_close(dir);
    }
    return n;
}

START_TEST(graphml_round_trip_is_equal)
{
    g_autoptr(weft_topo_t) t = leaf_spine(TRUE);
    g_autoptr(weft_fabric_t) fab = weft_fabric_new(t);
    /* a NIC's per-message cost (EFA's 3 us) is kept too */
    weft_topo_set_vertex_msg_cost(t, weft_topo_find_vertex(t, "node1/nic0"), 3000000);
    g_autofree char *d = tmp_dir();
    /* no .graphml suffix: the loader must recognise the XML by content */
    g_autofree char *p = g_build_filename(d, "cluster.txt", NULL);
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_topo_write_graphml(t, p, &err), "%s", err != NULL ? err->message : "?");
    ck_assert_uint_eq(files_in(d), 1); /* the temporary file was renamed */
    g_autoptr(weft_topo_t) u = weft_topo_load(p, &err);
    g_autoptr(weft_fabric_t) fu = weft_fabric_new(u);
    ck_assert_msg(u != NULL, "%s", err != NULL ? err->message : "?");
    g_autoptr(GString) why = g_string_new(NULL);
    ck_assert_msg(weft_topo_equal(t, u, why), "%s", why->str);
    ck_assert_str_eq(weft_topo_name(u), "leaf-spine");
    ck_assert_int_eq(weft_topo_vertex_msg_cost(u, weft_topo_find_vertex(u, "node1/nic0")), 3000000);
    ck_assert_int_eq(weft_topo_vertex_msg_cost(u, weft_topo_find_vertex(u, "node0/nic0")), 0);
    ck_assert_int_eq(weft_topo_nic_msg_cost(u), 3000000);
    /* 4 GPUs + 2 NVSwitch + 4 NIC + 2 leaf + 4 spine + frontend + 2 CPU = 19 vertices;
     * 8 + 4 + 8 + 2 x 2 + 1 = 25 links = 50 edges */
    ck_assert_uint_eq(weft_topo_n_vertices(u), 19);
    ck_assert_uint_eq(weft_topo_n_edges(u), 50);
    /* same cluster, same routes */
    for (guint64 f = 0; f < 20; f++) {
        const weft_route_t *a = route_flow(fab, "node0/gpu1", "node1/gpu0", f);
        const weft_route_t *b = route_flow(fu, "node0/gpu1", "node1/gpu0", f);
        ck_assert_uint_eq(a->hops, b->hops);
        ck_assert_mem_eq(a->edges, b->edges, sizeof(gint32) * a->hops);
    }
    rm_dir(d);
}
END_TEST

/* igraph 0.10's GraphML writer keeps 15 significant digits: 1e10 / 3 comes back rounded */
START_TEST(graphml_keeps_15_significant_digits)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("thirds");
    gint a = vtx(t, WEFT_VERTEX_GPU, "a", -1, -1);
    gint b = vtx(t, WEFT_VERTEX_GPU, "b", -1, -1);
    lnk(t, a, b, WEFT_LINK_GENERIC, 1e10 / 3, 0, 1);
    finalize(t);
    g_autofree char *d = tmp_dir();
    g_autofree char *p = g_build_filename(d, "t.graphml", NULL);
    g_autoptr(GError) err = NULL;
    ck_assert(weft_topo_write_graphml(t, p, &err));
    g_autoptr(weft_topo_t) u = weft_topo_load(p, &err);
    ck_assert_ptr_nonnull(u);
    /* 3333333333.33333 against 3333333333.3333335: 15 digits keep the relative error below 5e-15 */
    ck_assert_double_eq_tol(weft_topo_edge_bw(u, 0), 1e10 / 3, 1e10 / 3 * 5e-15);
    ck_assert(!weft_topo_equal(t, u, NULL));
    rm_dir(d);
}
END_TEST

START_TEST(equal_reports_first_difference)
{
    g_autoptr(weft_topo_t) a = leaf_spine(FALSE);
    g_autoptr(weft_topo_t) b = leaf_spine(TRUE);
    g_autoptr(GString) why = g_string_new(NULL);
    ck_assert(!weft_topo_equal(a, b, why));
    ck_assert_uint_gt(why->len, 0);
    /* one attribute apart: rail of a GPU */
    g_autoptr(weft_topo_t) c = weft_topo_new("c");
    g_autoptr(weft_topo_t) e = weft_topo_new("c");
    vtx(c, WEFT_VERTEX_GPU, "g", 0, 0);
    vtx(e, WEFT_VERTEX_GPU, "g", 0, 1);
    finalize(c);
    finalize(e);
    ck_assert(!weft_topo_equal(c, e, NULL));
    ck_assert(weft_topo_equal(c, c, NULL));
}
END_TEST

START_TEST(dot_has_one_edge_per_link_and_host_clusters)
{
    g_autoptr(weft_topo_t) t = leaf_spine(TRUE);
    g_autofree char *d = tmp_dir();
    g_autofree char *p = g_build_filename(d, "c.dot", NULL);
    g_autoptr(GError) err = NULL;
    ck_assert(weft_topo_write_dot(t, p, &err));
    ck_assert_uint_eq(files_in(d), 1);
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(p, &text, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(text, "subgraph cluster_host0"));
    ck_assert_ptr_nonnull(strstr(text, "subgraph cluster_host1"));
    /* the quote in the front-end switch's name is escaped */
    ck_assert_ptr_nonnull(strstr(text, "\"frontend \\\"eth\\\"\""));
    /* 25 links -> 25 undirected edges " -- " */
    guint n = 0;
    for (const char *s = strstr(text, " -- "); s != NULL; s = strstr(s + 1, " -- ")) {
        n++;
    }
    ck_assert_uint_eq(n, 25);
    /* leaf - spine: 50e9 B/s = 50 GB/s */
    ck_assert_ptr_nonnull(strstr(text, "infiniband 50 GB/s"));
    rm_dir(d);
}
END_TEST

#define GRAPHML_HEAD                                                                               \
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"                                                 \
    "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"                                  \
    "<key id=\"vk\" for=\"node\" attr.name=\"kind\" attr.type=\"string\"/>\n"                      \
    "<key id=\"vn\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n"                      \
    "<key id=\"ek\" for=\"edge\" attr.name=\"kind\" attr.type=\"string\"/>\n"                      \
    "<key id=\"eb\" for=\"edge\" attr.name=\"bandwidth_Bps\" attr.type=\"double\"/>\n"

#define NODE(id, kind, name)                                                                       \
    "<node id=\"" id "\"><data key=\"vk\">" kind "</data><data key=\"vn\">" name "</data></"       \
    "node>\n"
#define EDGE(s, t, kind, bw)                                                                       \
    "<edge source=\"" s "\" target=\"" t "\"><data key=\"ek\">" kind "</data><data key=\"eb\">" bw \
    "</data></edge>\n"

static weft_topo_t *
load_graphml_text(const char *text, GError **err)
{
    g_autofree char *d = tmp_dir();
    g_autofree char *p = g_build_filename(d, "x.graphml", NULL);
    ck_assert(g_file_set_contents(p, text, -1, NULL));
    weft_topo_t *t = weft_topo_load(p, err);
    rm_dir(d);
    return t;
}

START_TEST(graphml_undirected_file_gives_one_link_per_edge)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_topo_t) t = load_graphml_text(
        GRAPHML_HEAD "<graph id=\"G\" edgedefault=\"undirected\">\n" NODE("a", "gpu", "a")
            NODE("b", "gpu", "b") EDGE("a", "b", "nvlink", "2.5e10") "</graph></graphml>\n",
        &err);
    ck_assert_msg(t != NULL, "%s", err != NULL ? err->message : "?");
    /* 1 link = 2 directed edges, 25 GB/s, latency 0 and 1 lane by default */
    ck_assert_uint_eq(weft_topo_n_edges(t), 2);
    ck_assert(weft_topo_edge_bw(t, 1) == 25e9);
    ck_assert_int_eq(weft_topo_edge_latency(t, 0), 0);
    ck_assert_uint_eq(weft_topo_edge_lanes(t, 0), 1);
    ck_assert_int_eq(weft_topo_vertex_host(t, 0), -1);
}
END_TEST

static void
assert_graphml_error(const char *body, gint code)
{
    g_autofree char *text = g_strconcat(GRAPHML_HEAD, body, NULL);
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_topo_t) t = load_graphml_text(text, &err);
    ck_assert_ptr_null(t);
    ck_assert_msg(g_error_matches(err, WEFT_TOPO_ERROR, code), "expected code %d, got %s", code,
                  err != NULL ? err->message : "no error");
}

#define UNDIRECTED "<graph id=\"G\" edgedefault=\"undirected\">\n"
#define DIRECTED "<graph id=\"G\" edgedefault=\"directed\">\n"
#define TAIL "</graph></graphml>\n"

START_TEST(graphml_bad_files_give_their_error_codes)
{
    /* unknown vertex kind */
    assert_graphml_error(UNDIRECTED NODE("a", "toaster", "a") NODE("b", "gpu", "b")
                             EDGE("a", "b", "nvlink", "1e9") TAIL,
                         WEFT_TOPO_ERROR_KEY);
    /* unknown link kind */
    assert_graphml_error(UNDIRECTED NODE("a", "gpu", "a") NODE("b", "gpu", "b")
                             EDGE("a", "b", "carrier-pigeon", "1e9") TAIL,
                         WEFT_TOPO_ERROR_KEY);
    /* zero bandwidth */
    assert_graphml_error(UNDIRECTED NODE("a", "gpu", "a") NODE("b", "gpu", "b")
                             EDGE("a", "b", "nvlink", "0") TAIL,
                         WEFT_TOPO_ERROR_VALUE);
    /* duplicate vertex name */
    assert_graphml_error(UNDIRECTED NODE("a", "gpu", "x") NODE("b", "gpu", "x")
                             EDGE("a", "b", "nvlink", "1e9") TAIL,
                         WEFT_TOPO_ERROR_GRAPH);
    /* an edge without bandwidth */
    assert_graphml_error(
        UNDIRECTED NODE("a", "gpu", "a")
            NODE("b", "gpu",
                 "b") "<edge source=\"a\" target=\"b\"><data key=\"ek\">pcie</data></edge>\n" TAIL,
        WEFT_TOPO_ERROR_KEY);
    /* a vertex without a name */
    assert_graphml_error(UNDIRECTED "<node id=\"a\"><data key=\"vk\">gpu</data></node>\n" TAIL,
                         WEFT_TOPO_ERROR_KEY);
    /* a directed edge without its reverse */
    assert_graphml_error(DIRECTED NODE("a", "gpu", "a") NODE("b", "gpu", "b")
                             EDGE("a", "b", "nvlink", "1e9") TAIL,
                         WEFT_TOPO_ERROR_GRAPH);
    /* a disconnected GPU, caught by finalize */
    assert_graphml_error(UNDIRECTED NODE("a", "gpu", "a") NODE("b", "gpu", "b") TAIL,
                         WEFT_TOPO_ERROR_GRAPH);
    /* not GraphML at all past the header */
    assert_graphml_error("<graph id=\"G\" edgedefault=\"undirected\"><node id=\"a\">",
                         WEFT_TOPO_ERROR_PARSE);
}
END_TEST

START_TEST(graphml_missing_kind_key_is_key_error)
{
    const char *text = "<?xml version=\"1.0\"?>\n"
                       "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
                       "<key id=\"vn\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n"
                       "<graph id=\"G\" edgedefault=\"undirected\">\n"
                       "<node id=\"a\"><data key=\"vn\">a</data></node>\n" TAIL;
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_topo_t) t = load_graphml_text(text, &err);
    ck_assert_ptr_null(t);
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY));
}
END_TEST

START_TEST(write_to_missing_directory_is_io_error)
{
    g_autoptr(weft_topo_t) t = leaf_spine(FALSE);
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_topo_write_graphml(t, "/nonexistent-dir/x.graphml", &err));
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_IO));
    g_clear_error(&err);
    ck_assert(!weft_topo_write_dot(t, "/nonexistent-dir/x.dot", &err));
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_IO));
}
END_TEST

/* ---- placement ---------------------------------------------------------------------- */

static guint *
place(weft_topo_t *t, guint n, weft_place_policy_t pol, guint64 seed, const char *file)
{
    GError *err = NULL;
    guint *m = weft_topo_place(t, n, pol, seed, file, &err);
    ck_assert_msg(m != NULL, "place: %s", err != NULL ? err->message : "?");
    return m;
}

START_TEST(place_in_order_and_round_robin_on_two_hosts)
{
    g_autoptr(weft_topo_t) t = leaf_spine(FALSE);
    /* GPUs 0, 1 on host 0; 2, 3 on host 1 */
    g_autofree guint *a = place(t, 4, WEFT_PLACE_IN_ORDER, 0, NULL);
    guint in_order[4] = {0, 1, 2, 3};
    ck_assert_mem_eq(a, in_order, sizeof in_order);
    /* rank r on host r mod 2: r0 -> h0 gpu0, r1 -> h1 gpu2, r2 -> h0 gpu1, r3 -> h1 gpu3 */
    g_autofree guint *b = place(t, 4, WEFT_PLACE_ROUND_ROBIN, 0, NULL);
    guint rr[4] = {0, 2, 1, 3};
    ck_assert_mem_eq(b, rr, sizeof rr);
    g_autofree guint *c = place(t, 3, WEFT_PLACE_ROUND_ROBIN, 0, NULL);
    ck_assert_mem_eq(c, rr, 3 * sizeof(guint));
}
END_TEST

START_TEST(place_round_robin_without_hosts_uses_domains)
{
    g_autoptr(weft_topo_t) t = three_domains();
    /* groups {0, 1}, {2}, {3}: r0 -> 0, r1 -> 2, r2 -> 3, r3 -> back to group 0: 1 */
    g_autofree guint *m = place(t, 4, WEFT_PLACE_ROUND_ROBIN, 0, NULL);
    guint want[4] = {0, 2, 3, 1};
    ck_assert_mem_eq(m, want, sizeof want);
}
END_TEST

START_TEST(place_random_is_a_seeded_permutation)
{
    g_autoptr(weft_topo_t) t = leaf_spine(FALSE);
    g_autofree guint *a = place(t, 4, WEFT_PLACE_RANDOM, 7, NULL);
    g_autofree guint *b = place(t, 4, WEFT_PLACE_RANDOM, 7, NULL);
    g_autofree guint *two = place(t, 2, WEFT_PLACE_RANDOM, 7, NULL);
    ck_assert_mem_eq(a, b, 4 * sizeof(guint));
    /* fewer ranks take the first GPUs of the same permutation */
    ck_assert_mem_eq(a, two, 2 * sizeof(guint));
    guint seen = 0;
    for (guint r = 0; r < 4; r++) {
        ck_assert_uint_lt(a[r], 4);
        seen |= 1u << a[r];
    }
    ck_assert_uint_eq(seen, 0xf); /* a permutation of 0..3 */
    /* 24 permutations: among seeds 0..9 at least two differ (all equal has odds 24^-9) */
    gboolean differ = FALSE;
    g_autofree guint *p0 = place(t, 4, WEFT_PLACE_RANDOM, 0, NULL);
    for (guint64 s = 1; s < 10 && !differ; s++) {
        g_autofree guint *ps = place(t, 4, WEFT_PLACE_RANDOM, s, NULL);
        differ = memcmp(p0, ps, 4 * sizeof(guint)) != 0;
    }
    ck_assert(differ);
}
END_TEST

static char *
write_place_file(const char *d, const char *text)
{
    char *p = g_build_filename(d, "place.txt", NULL);
    ck_assert(g_file_set_contents(p, text, -1, NULL));
    return p;
}

START_TEST(place_file_with_names_and_numbers)
{
    g_autoptr(weft_topo_t) t = leaf_spine(FALSE);
    g_autofree char *d = tmp_dir();
    g_autofree char *p =
        write_place_file(d, "# rank -> GPU\n3\n  node0/gpu1   # by name\n\nnode1/gpu0\n0\n");
    /* ranks 0..3: GPU 3, node0/gpu1 = GPU 1, node1/gpu0 = GPU 2, GPU 0 */
    g_autofree guint *m = place(t, 4, WEFT_PLACE_FILE, 0, p);
    guint want[4] = {3, 1, 2, 0};
    ck_assert_mem_eq(m, want, sizeof want);
    rm_dir(d);
}
END_TEST

static void
assert_place_error(weft_topo_t *t, guint n, weft_place_policy_t pol, const char *text, gint code)
{
    g_autofree char *d = tmp_dir();
    g_autofree char *p = text != NULL ? write_place_file(d, text) : g_strdup("/nonexistent/x");
    g_autoptr(GError) err = NULL;
    g_autofree guint *m = weft_topo_place(t, n, pol, 0, p, &err);
    ck_assert_ptr_null(m);
    ck_assert_msg(g_error_matches(err, WEFT_TOPO_ERROR, code), "expected %d: %s", code,
                  err != NULL ? err->message : "no error");
    rm_dir(d);
}

START_TEST(place_errors)
{
    g_autoptr(weft_topo_t) t = leaf_spine(FALSE);
    /* GPU 1 twice (by number, then by name) */
    assert_place_error(t, 2, WEFT_PLACE_FILE, "1\nnode0/gpu1\n", WEFT_TOPO_ERROR_VALUE);
    /* unknown name; a name that is not a GPU; a number past the 4 GPUs */
    assert_place_error(t, 1, WEFT_PLACE_FILE, "node9/gpu0\n", WEFT_TOPO_ERROR_VALUE);
    assert_place_error(t, 1, WEFT_PLACE_FILE, "leaf0\n", WEFT_TOPO_ERROR_VALUE);
    assert_place_error(t, 1, WEFT_PLACE_FILE, "4\n", WEFT_TOPO_ERROR_VALUE);
    /* fewer and more lines than ranks */
    assert_place_error(t, 3, WEFT_PLACE_FILE, "0\n1\n", WEFT_TOPO_ERROR_VALUE);
    assert_place_error(t, 1, WEFT_PLACE_FILE, "0\n1\n", WEFT_TOPO_ERROR_VALUE);
    assert_place_error(t, 1, WEFT_PLACE_FILE, NULL, WEFT_TOPO_ERROR_IO);
    /* 5 ranks on 4 GPUs, whatever the policy */
    for (gint pol = WEFT_PLACE_IN_ORDER; pol <= WEFT_PLACE_FILE; pol++) {
        assert_place_error(t, 5, pol, "0\n1\n2\n3\n", WEFT_TOPO_ERROR_VALUE);
    }
}
END_TEST

START_TEST(place_policy_names)
{
    g_autoptr(GError) err = NULL;
    weft_place_policy_t p;
    for (gint i = WEFT_PLACE_IN_ORDER; i <= WEFT_PLACE_FILE; i++) {
        ck_assert(weft_place_policy_from_name(weft_place_policy_name(i), &p, &err));
        ck_assert_int_eq(p, i);
    }
    ck_assert_str_eq(weft_place_policy_name(WEFT_PLACE_ROUND_ROBIN), "round-robin");
    ck_assert(!weft_place_policy_from_name("scatter", &p, &err));
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY));
}
END_TEST

static Suite *
route_suite(void)
{
    Suite *s = suite_create("route");
    TCase *tc = tcase_create("domains");
    tcase_add_test(tc, domains_are_nvlink_components_by_lowest_gpu);
    tcase_add_test(tc, gpu_without_nvlink_is_its_own_domain);
    suite_add_tcase(s, tc);

    tc = tcase_create("routes");
    tcase_add_test(tc, intra_node_route_uses_nvlink_only);
    tcase_add_test(tc, inter_node_route_leaves_through_own_nic);
    tcase_add_test(tc, routes_to_and_from_network_vertices);
    tcase_add_test(tc, route_falls_back_to_full_graph_when_fabric_cannot_reach);
    tcase_add_test(tc, sprayed_nvlink_route_counts_as_one_path);
    tcase_add_test(tc, count_paths_unreachable_is_no_route);
    suite_add_tcase(s, tc);

    tc = tcase_create("ecmp");
    tcase_add_test(tc, ecmp_spreads_1000_transfers_evenly_over_spines);
    tcase_add_test(tc, ecmp_same_seed_same_routes_other_seed_other_assignment);
    tcase_add_test(tc, rail_segments_same_rail_stays_on_the_rail_leaf);
    tcase_add_test(tc, rail_segments_cross_rail_leaves_via_own_nic_enters_via_peer_nic);
    tcase_add_test(tc, rail_segments_are_deterministic);
    tcase_add_test(tc, rail_segments_apply_on_each_side_alone);
    tcase_add_test(tc, rail_segments_need_gpus_on_rails);
    tcase_add_test(tc, rail_segments_need_the_far_gpu_reachable_in_the_network);
    suite_add_tcase(s, tc);

    tc = tcase_create("fabric state");
    tcase_add_test(tc, two_fabric_states_on_one_cluster_route_apart_and_leave_it_unchanged);
    tcase_add_test(tc, fabric_state_seed_is_its_own);
    suite_add_tcase(s, tc);

    tc = tcase_create("files");
    tcase_add_test(tc, graphml_round_trip_is_equal);
    tcase_add_test(tc, graphml_keeps_15_significant_digits);
    tcase_add_test(tc, equal_reports_first_difference);
    tcase_add_test(tc, dot_has_one_edge_per_link_and_host_clusters);
    tcase_add_test(tc, graphml_undirected_file_gives_one_link_per_edge);
    tcase_add_test(tc, graphml_bad_files_give_their_error_codes);
    tcase_add_test(tc, graphml_missing_kind_key_is_key_error);
    tcase_add_test(tc, write_to_missing_directory_is_io_error);
    suite_add_tcase(s, tc);

    tc = tcase_create("placement");
    tcase_add_test(tc, place_in_order_and_round_robin_on_two_hosts);
    tcase_add_test(tc, place_round_robin_without_hosts_uses_domains);
    tcase_add_test(tc, place_random_is_a_seeded_permutation);
    tcase_add_test(tc, place_file_with_names_and_numbers);
    tcase_add_test(tc, place_errors);
    tcase_add_test(tc, place_policy_names);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(route_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
