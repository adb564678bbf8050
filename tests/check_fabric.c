/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the cluster builders (src/topo/topo_build.c) and the INI
 * reader's kind dispatch (src/topo/topo_ini.c): per kind, vertex and link
 * counts derived by hand, link rates taken from the hardware catalog, hosts,
 * rails and tiers; every bundled topology in $WEFT_SRCDIR/topologies loads and
 * finalizes (the 16,384-GPU one included); a scenario's [cluster] group loads
 * through weft_topo_load_keyfile; bad files give their error codes.
 */
#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/hw.h"
#include "topo/fabric.h"
#include "topo/topo.h"
#include "testutil.h"

/* ---- helpers ----------------------------------------------------------------- */

static char *tmpdir;

static void
tmp_setup(void)
{
    GError *err = NULL;
    tmpdir = g_dir_make_tmp("check_fabric-XXXXXX", &err);
    ck_assert_msg(tmpdir != NULL, "g_dir_make_tmp: %s", err ? err->message : "?");
}

static void
tmp_teardown(void)
{
    test_tmpdir_remove(tmpdir);
    g_clear_pointer(&tmpdir, g_free);
}

static char *
write_file(const char *name, const char *text)
{
    return test_write_file(tmpdir, name, text);
}

static weft_topo_t *
load_text(const char *name, const char *text)
{
    g_autofree char *path = write_file(name, text);
    g_autoptr(GError) err = NULL;
    weft_topo_t *t = weft_topo_load(path, &err);
    ck_assert_msg(t != NULL, "%s: %s", name, err ? err->message : "?");
    return t;
}

static void
expect_load_error(const char *name, const char *text, gint code)
{
    g_autofree char *path = write_file(name, text);
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_topo_t) t = weft_topo_load(path, &err);
    ck_assert_msg(t == NULL, "%s: loaded, expected error code %d", name, code);
    ck_assert_msg(g_error_matches(err, WEFT_TOPO_ERROR, code), "%s: got %s/%d (%s), expected %d",
                  name, g_quark_to_string(err->domain), err->code, err->message, code);
}

/* Vertices of @kind; of switches, those of @tier when @tier >= 0. */
static guint
count_vertices(const weft_topo_t *t, weft_vertex_kind_t kind, gint tier)
{
    guint n = 0;
    for (guint v = 0; v < weft_topo_n_vertices(t); v++) {
        if (weft_topo_vertex_kind(t, (gint)v) == kind &&
            (tier < 0 || weft_topo_vertex_tier(t, (gint)v) == (guint)tier)) {
            n++;
        }
    }
    return n;
}

/* Links (directed edges / 2) of @kind. */
static guint
count_links(const weft_topo_t *t, weft_link_kind_t kind)
{
    guint n = 0;
    for (guint e = 0; e < weft_topo_n_edges(t); e++) {
        if (weft_topo_edge_kind(t, (gint)e) == kind) {
            n++;
        }
    }
    return n / 2;
}

/* The directed edge from the vertex named @u to the one named @v, or -1. */
static gint
edge_between(const weft_topo_t *t, const char *u, const char *v)
{
    gint a = weft_topo_find_vertex(t, u), b = weft_topo_find_vertex(t, v);
    ck_assert_msg(a >= 0 && b >= 0, "no vertex %s or %s", u, v);
    for (guint e = 0; e < weft_topo_n_edges(t); e++) {
        if (weft_topo_edge_from(t, (gint)e) == a && weft_topo_edge_to(t, (gint)e) == b) {
            return (gint)e;
        }
    }
    return -1;
}

static const weft_hw_gpu_t *
gpu(const char *name)
{
    const weft_hw_gpu_t *g = weft_hw_gpu(name, NULL);
    ck_assert_ptr_nonnull(g);
    return g;
}

static double
nic_Bps(const char *name)
{
    const weft_hw_nic_t *n = weft_hw_nic(name, NULL);
    ck_assert_ptr_nonnull(n);
    return n->rate_Bps;
}

static double
pcie_Bps(const char *name)
{
    const weft_hw_pcie_t *p = weft_hw_pcie(name, NULL);
    ck_assert_ptr_nonnull(p);
    return p->x16_Bps;
}

/* ---- node kinds -------------------------------------------------------------------- */

START_TEST(dgx_a100_node_has_six_nvswitches_two_links_each)
{
    g_autoptr(weft_topo_t) t = load_text("a.ini", "[cluster]\nkind = dgx-a100\n");
    /* 8 GPUs + 6 NVSwitch gen2; no fabric, so no NIC or PCIe switch */
    ck_assert_uint_eq(weft_topo_n_gpus(t), 8);
    ck_assert_uint_eq(weft_topo_n_vertices(t), 14);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_NVSWITCH, -1), 6);
    /* 8 GPUs x 6 chips = 48 NVLink edges pairs = 96 directed edges */
    ck_assert_uint_eq(weft_topo_n_edges(t), 96);
    ck_assert_uint_eq(count_links(t, WEFT_LINK_NVLINK), 48);
    gint e = edge_between(t, "node0/gpu5", "node0/nvswitch3");
    ck_assert_int_ge(e, 0);
    /* 2 of the A100's 12 NVLink3 links go to each chip: 2 x 25 GB/s */
    ck_assert_uint_eq(weft_topo_edge_lanes(t, e), 2);
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), 2 * gpu("a100")->nvlink_link_Bps, 1.0);
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), 50e9, 1.0);
    gint g5 = weft_topo_find_vertex(t, "node0/gpu5");
    ck_assert_int_eq(weft_topo_vertex_rail(t, g5), 5);
    ck_assert_int_eq(weft_topo_vertex_host(t, g5), 0);
    ck_assert_int_eq(weft_topo_vertex_host(t, weft_topo_find_vertex(t, "node0/nvswitch0")), 0);
    /* the 8 GPUs and 6 chips are joined by NVLink: one domain */
    ck_assert_uint_eq(weft_topo_n_domains(t), 1);
}
END_TEST

START_TEST(dgx_a100_on_rail_fabric_has_pcie_switches_and_hdr_nics)
{
    g_autoptr(weft_topo_t) t =
        load_text("a2.ini", "[cluster]\nkind = dgx-a100\nnodes = 2\nfabric = rail-optimized\n"
                            "nodes_per_su = 2\n");
    /*
     * per node 8 GPU + 6 NVSwitch + 4 PCIe switch + 8 NIC = 26, x 2 = 52;
     * 1 SU x 8 rails = 8 leaves (2 ports down, 2 up at 1:1); 8 leaves <= radix 40
     * (HDR default), so 2 tiers with ceil(8 x 2 / 40) = 1 spine: 52 + 8 + 1 = 61.
     */
    ck_assert_uint_eq(weft_topo_n_gpus(t), 16);
    ck_assert_uint_eq(weft_topo_n_vertices(t), 61);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_NIC, -1), 16);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 0), 8); /* PCIe switches */
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 1), 8);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 2), 1);
    /*
     * links per node: 48 NVLink + 4 PCIe switches x (2 GPU + 2 NIC) = 16 PCIe
     * + 8 NIC-leaf = 72, x 2 = 144; + 8 leaf-spine (2 lanes each) = 152.
     */
    ck_assert_uint_eq(weft_topo_n_edges(t), 2 * 152);
    ck_assert_uint_eq(count_links(t, WEFT_LINK_NVLINK), 96);
    ck_assert_uint_eq(count_links(t, WEFT_LINK_PCIE), 32);
    ck_assert_uint_eq(count_links(t, WEFT_LINK_INFINIBAND), 24);
    /* GPUs 2 and 3 and NICs 2 and 3 share PCIe switch 1, Gen4 x16 */
    gint e = edge_between(t, "node1/gpu3", "node1/pcie1");
    ck_assert_int_ge(e, 0);
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), pcie_Bps("gen4"), 1.0);
    ck_assert_int_ge(edge_between(t, "node1/nic2", "node1/pcie1"), 0);
    ck_assert_int_eq(edge_between(t, "node1/gpu3", "node1/pcie0"), -1);
    /* NIC 3 of node 1 on rail 3's leaf at HDR 200 Gb/s = 25e9 B/s */
    e = edge_between(t, "node1/nic3", "su0/leaf3");
    ck_assert_int_ge(e, 0);
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), nic_Bps("hdr"), 1.0);
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), 25e9, 1.0);
    /* each leaf's 2 uplinks both go to the one spine: one edge of 2 lanes */
    e = edge_between(t, "su0/leaf3", "spine0");
    ck_assert_uint_eq(weft_topo_edge_lanes(t, e), 2);
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), 50e9, 1.0);
    gint nic = weft_topo_find_vertex(t, "node1/nic3");
    ck_assert_int_eq(weft_topo_vertex_host(t, nic), 1);
    ck_assert_int_eq(weft_topo_vertex_rail(t, nic), 3);
    ck_assert_int_eq(weft_topo_vertex_host(t, weft_topo_find_vertex(t, "node1/pcie1")), 1);
    ck_assert_int_eq(weft_topo_vertex_rail(t, weft_topo_find_vertex(t, "su0/leaf3")), 3);
    ck_assert_uint_eq(weft_topo_n_hosts(t), 2);
    ck_assert_uint_eq(weft_topo_n_domains(t), 2);
}
END_TEST

/* The route from the GPU named @a to the one named @b, in a fabric state of its own. */
static gboolean
route_has_edge(weft_fabric_t *f, const char *a, const char *b, gint edge, weft_time_t *lat_ps)
{
    const weft_topo_t *t = weft_fabric_topo(f);
    g_autoptr(GError) err = NULL;
    const weft_route_t *r =
        weft_fabric_route(f, weft_topo_find_vertex(t, a), weft_topo_find_vertex(t, b), &err);
    ck_assert_msg(r != NULL, "route %s -> %s: %s", a, b, err ? err->message : "?");
    *lat_ps = r->latency_ps;
    for (guint p = 0; p < r->n_paths; p++) {
        for (guint32 i = r->path_off[p]; i < r->path_off[p + 1]; i++) {
            if (r->edges[i] == edge) {
                return TRUE;
            }
        }
    }
    return FALSE;
}

#define H100_RAIL "[cluster]\nkind = dgx-h100\nnodes = 2\nfabric = rail-optimized\n"

#define P4DE                                                                                       \
    "[cluster]\nkind = dgx-a100\nnodes = 2\nfabric = rail-optimized\nnic = efa-v1\n"               \
    "nics_per_node = 4\nswitch_radix = 64\n"

START_TEST(fewer_nics_than_gpus_share_a_nic_behind_a_pcie_switch)
{
    /* p4de: 4 EFA (100 Gb/s) for 8 A100, each EFA and two GPUs on one PCIe switch
     * (aws-ofi-nccl topology/p4de-24xl-topo.xml). */
    g_autoptr(weft_topo_t) t = load_text("p4de.ini", P4DE);
    /*
     * per node 8 GPU + 6 NVSwitch + 4 PCIe switch + 4 NIC = 22, x 2 = 44; 4 rails x 1 SU
     * = 4 leaves (32 ports down at the default SU of 64 / 2 nodes, 32 up), ceil(4 x 32 /
     * 64) = 2 spines: 50.
     */
    ck_assert_uint_eq(weft_topo_n_vertices(t), 50);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_NIC, -1), 8);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 0), 8);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 1), 4);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 2), 2);
    /*
     * links per node: 48 NVLink + 4 x (2 GPU + 1 NIC) = 12 PCIe + 4 NIC-leaf; x 2 = 128;
     * + 4 leaves x 2 spines = 136. EFA cables count as Ethernet.
     */
    ck_assert_uint_eq(weft_topo_n_edges(t), 2 * 136);
    ck_assert_uint_eq(count_links(t, WEFT_LINK_PCIE), 24);
    ck_assert_uint_eq(count_links(t, WEFT_LINK_ETHERNET), 16);
    ck_assert_uint_eq(count_links(t, WEFT_LINK_INFINIBAND), 0);
    /* GPUs 2 and 3 and NIC 1 on PCIe switch 1; NIC 1 on rail 1 with both GPUs */
    ck_assert_int_ge(edge_between(t, "node0/gpu2", "node0/pcie1"), 0);
    ck_assert_int_ge(edge_between(t, "node0/gpu3", "node0/pcie1"), 0);
    ck_assert_int_ge(edge_between(t, "node0/nic1", "node0/pcie1"), 0);
    ck_assert_int_eq(weft_topo_find_vertex(t, "node0/nic4"), -1);
    ck_assert_int_eq(weft_topo_vertex_rail(t, weft_topo_find_vertex(t, "node0/nic1")), 1);
    ck_assert_int_eq(weft_topo_vertex_rail(t, weft_topo_find_vertex(t, "node0/gpu2")), 1);
    ck_assert_int_eq(weft_topo_vertex_rail(t, weft_topo_find_vertex(t, "node0/gpu3")), 1);
    /* one EFA v1 device: 100 Gb/s = 12.5e9 B/s */
    gint up = edge_between(t, "node0/nic0", "su0/leaf0");
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, up), 12.5e9, 1.0);
    /*
     * GPUs 0 and 1 both leave through NIC 0: their routes to node 1 share its uplink, so
     * the flow model shares its 12.5e9 B/s. Latency on one rail, 20 us as the catalog's
     * EFA figure: GPU-PCIe 0.25 + PCIe-NIC (20 - 2 x 0.5) / 2 - 0.25 = 9.25 + leaf 2 x 0.5
     * + 9.25 + 0.25 = 20 us.
     */
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    weft_time_t lat0 = 0, lat1 = 0;
    ck_assert(route_has_edge(f, "node0/gpu0", "node1/gpu0", up, &lat0));
    ck_assert(route_has_edge(f, "node0/gpu1", "node1/gpu1", up, &lat1));
    ck_assert_int_eq(lat0, 20 * WEFT_PS_PER_US);
    ck_assert_int_eq(lat1, 20 * WEFT_PS_PER_US);
    ck_assert_int_eq(weft_topo_edge_latency(t, edge_between(t, "node0/nic0", "node0/pcie0")),
                     9250000);
    ck_assert_int_eq(weft_topo_edge_latency(t, edge_between(t, "node0/gpu0", "node0/pcie0")),
                     250000);
    /* GPU 2 leaves through NIC 1, not NIC 0 */
    ck_assert(!route_has_edge(f, "node0/gpu2", "node1/gpu2", up, &lat0));
    /* every NIC carries EFA's 3 us per message */
    ck_assert_int_eq(weft_topo_nic_msg_cost(t), 3 * WEFT_PS_PER_US);
}
END_TEST

START_TEST(catalog_nic_latency_sits_on_the_nic_link_unless_pcie_latency_is_given)
{
    /* dgx-h100, GPU-NIC direct: EFA's 20 us -> (20 - 2 x 0.5) / 2 = 9.5 us per GPU-NIC link;
     * fabric_latency = 2us: (20 - 4) / 2 = 8 us; pcie_latency given: it, on every PCIe link;
     * InfiniBand (no catalog latency): the 250 ns default. */
    static const struct {
        const char *extra;
        weft_time_t link_ps;
    } cases[] = {
        {"nic = efa\nswitch_radix = 64\n", 9500000},
        {"nic = efa\nswitch_radix = 64\nfabric_latency = 2us\n", 8000000},
        {"nic = efa\nswitch_radix = 64\npcie_latency = 1us\n", 1000000},
        {"nic = ndr\n", 250000},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *text = g_strconcat(H100_RAIL, cases[i].extra, NULL);
        g_autoptr(weft_topo_t) t = load_text("lat.ini", text);
        gint e = edge_between(t, "node1/gpu5", "node1/nic5");
        ck_assert_int_ge(e, 0);
        ck_assert_int_eq(weft_topo_edge_latency(t, e), cases[i].link_ps);
    }
}
END_TEST

START_TEST(gpu_key_swaps_the_gpu_of_the_chassis)
{
    /* a DGX H200 (p5e) is a DGX H100 with H200s: NVLink4, 18 x 25e9 per GPU; its links are
     * the H100's, so the graph is the same but the builder looked the H200 up */
    g_autoptr(weft_topo_t) t = load_text("h200.ini", "[cluster]\nkind = dgx-h100\ngpu = h200\n");
    ck_assert_uint_eq(weft_topo_n_vertices(t), 12);
    gint e = edge_between(t, "node0/gpu0", "node0/nvswitch0");
    ck_assert_uint_eq(weft_topo_edge_lanes(t, e), 5);
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), 5 * gpu("h200")->nvlink_link_Bps, 1.0);
    /* gb200 on the DGX B200 chassis speaks NVLink5 as its gen4 switches do, but GB200 is a
     * Grace superchip, never on an HGX baseboard (NVIDIA's GB200 NVL72 datasheet): refused */
    expect_load_error("gb.ini", "[cluster]\nkind = dgx-b200\ngpu = gb200\n",
                      WEFT_TOPO_ERROR_VALUE);
    /* and the B200 SXM module is not a rack's superchip */
    expect_load_error("nvl.ini", "[cluster]\nkind = gb200-nvl72\ngpu = b200\n",
                      WEFT_TOPO_ERROR_VALUE);
}
END_TEST

START_TEST(dgx_h100_two_nodes_rail_optimized_counts)
{
    g_autoptr(weft_topo_t) t =
        load_text("h2.ini", "[cluster]\nkind = dgx-h100\nnodes = 2\nfabric = rail-optimized\n"
                            "nodes_per_su = 2\n");
    /*
     * per node 8 GPU + 4 NVSwitch + 8 NIC = 20, x 2 = 40; 8 rail leaves of 2
     * ports down and 2 up; 8 <= 64 (NDR radix) so ceil(8 x 2 / 64) = 1 spine:
     * 40 + 8 + 1 = 49 vertices. Links: per node 32 NVLink + 8 GPU-NIC PCIe + 8
     * NIC-leaf = 48, x 2 = 96, + 8 leaf-spine = 104 links = 208 edges.
     */
    ck_assert_uint_eq(weft_topo_n_vertices(t), 49);
    ck_assert_uint_eq(weft_topo_n_edges(t), 208);
    ck_assert_uint_eq(count_links(t, WEFT_LINK_PCIE), 16);
    gint e = edge_between(t, "node0/gpu6", "node0/nic6");
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), pcie_Bps("gen5"), 1.0);
    e = edge_between(t, "node1/nic6", "su0/leaf6");
    /* NDR 400 Gb/s = 50e9 B/s */
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), nic_Bps("ndr"), 1.0);
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), 50e9, 1.0);
    ck_assert_int_eq(weft_topo_edge_kind(t, e), WEFT_LINK_INFINIBAND);
    /* 5 NVLink4 lanes to chip 0: 5 x 25 GB/s */
    e = edge_between(t, "node1/gpu0", "node1/nvswitch0");
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), 5 * gpu("h100")->nvlink_link_Bps, 1.0);
    ck_assert_uint_eq(weft_topo_n_domains(t), 2);
}
END_TEST

START_TEST(dgx_h100_default_su_leaves_have_32_uplinks)
{
    g_autoptr(weft_topo_t) t =
        load_text("h2d.ini", "[cluster]\nkind = dgx-h100\nnodes = 2\nfabric = rail-optimized\n");
    /*
     * default nodes_per_su = 64 x 1/2 = 32, so each leaf is cabled for a full
     * SU: 32 down, 32 up even though 2 nodes are present; ceil(8 x 32 / 64) = 4
     * spines, each leaf 32 / 4 = 8 lanes to each: 40 + 8 + 4 = 52 vertices,
     * 96 + 8 x 4 = 128 links.
     */
    ck_assert_uint_eq(weft_topo_n_vertices(t), 52);
    ck_assert_uint_eq(weft_topo_n_edges(t), 256);
    gint e = edge_between(t, "su0/leaf7", "spine3");
    ck_assert_uint_eq(weft_topo_edge_lanes(t, e), 8);
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), 8 * 50e9, 1.0);
}
END_TEST

START_TEST(rail_fabric_grows_a_core_tier_past_one_spine)
{
    /*
     * switch_radix 8 forces three tiers on a small cluster: 8 nodes, 2 per SU
     * -> 4 SUs x 8 rails = 32 leaves > 8. Leaves: 2 down, 2 up. Each rail's 4
     * leaves form one pod (<= 8/2), with ceil(4 x 2 / 4) = 2 spines: 16 spines.
     * Cores: ceil(16 x 4 / 8) = 8. Vertices: 8 x 20 + 32 + 16 + 8 = 216.
     * Links: 8 x 48 = 384 + 32 leaves x 2 spines + 16 spines x 4 cores = 512.
     */
    g_autoptr(weft_topo_t) t =
        load_text("h8.ini", "[cluster]\nkind = dgx-h100\nnodes = 8\nfabric = rail-optimized\n"
                            "nodes_per_su = 2\nswitch_radix = 8\n");
    ck_assert_uint_eq(weft_topo_n_vertices(t), 216);
    ck_assert_uint_eq(weft_topo_n_edges(t), 1024);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 1), 32);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 2), 16);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 3), 8);
    /* pod q = rail q: SU 3's rail-5 leaf is in pod 5 and reaches both its spines */
    ck_assert_int_ge(edge_between(t, "su3/leaf5", "pod5/spine0"), 0);
    ck_assert_int_ge(edge_between(t, "su3/leaf5", "pod5/spine1"), 0);
    ck_assert_int_eq(edge_between(t, "su3/leaf5", "pod4/spine0"), -1);
    /* spine u = 2q + s sends uplinks 4u..4u+3 to cores (4u + j) mod 8 */
    ck_assert_int_ge(edge_between(t, "pod5/spine1", "core4"), 0); /* u = 11: 44 mod 8 = 4 */
    ck_assert_int_ge(edge_between(t, "pod5/spine1", "core7"), 0);
    ck_assert_int_eq(edge_between(t, "pod5/spine1", "core0"), -1);
    /* every core has 8 ports: 16 spines x 4 uplinks / 8 cores */
    gint core0 = weft_topo_find_vertex(t, "core0");
    guint ports = 0;
    for (guint e = 0; e < weft_topo_n_edges(t); e++) {
        if (weft_topo_edge_from(t, (gint)e) == core0) {
            ports += weft_topo_edge_lanes(t, (gint)e);
        }
    }
    ck_assert_uint_eq(ports, 8);
}
END_TEST

START_TEST(dgx_h100_leaf_spine_puts_a_node_on_one_leaf)
{
    /*
     * 3 nodes, 2 per leaf: leaf0 has nodes 0-1 (16 NICs), leaf1 node 2;
     * 16 down, 8 up at 2:1; 2 leaves <= 64: ceil(2 x 8 / 64) = 1 spine.
     * Vertices 3 x 20 + 2 + 1 = 63; links 3 x 48 + 2 = 146.
     */
    g_autoptr(weft_topo_t) t =
        load_text("hl.ini", "[cluster]\nkind = dgx-h100\nnodes = 3\nfabric = leaf-spine\n"
                            "nodes_per_leaf = 2\noversubscription = 2:1\n");
    ck_assert_uint_eq(weft_topo_n_vertices(t), 63);
    ck_assert_uint_eq(weft_topo_n_edges(t), 292);
    ck_assert_int_ge(edge_between(t, "node1/nic7", "leaf0"), 0);
    ck_assert_int_ge(edge_between(t, "node2/nic0", "leaf1"), 0);
    ck_assert_uint_eq(weft_topo_edge_lanes(t, edge_between(t, "leaf1", "spine0")), 8);
    /* leaves of a plain leaf-spine are on no rail */
    ck_assert_int_eq(weft_topo_vertex_rail(t, weft_topo_find_vertex(t, "leaf0")), -1);
}
END_TEST

START_TEST(dgx_h100_on_fat_tree_picks_smallest_k)
{
    /* 2 nodes = 16 NICs; k = 4 holds 4^3/4 = 16: 16 endpoints, 8 edge, 8 agg, 4 core */
    g_autoptr(weft_topo_t) t =
        load_text("hf.ini", "[cluster]\nkind = dgx-h100\nnodes = 2\nfabric = fat-tree\n");
    /* 40 + 20 switches = 60; links 96 + 16 edge-agg + 16 agg-core = 128 */
    ck_assert_uint_eq(weft_topo_n_vertices(t), 60);
    ck_assert_uint_eq(weft_topo_n_edges(t), 256);
    /* NIC 2 of node 0 is endpoint 2, on edge switch 2 / 2 = 1 of pod 0 */
    ck_assert_int_ge(edge_between(t, "node0/nic2", "pod0/edge1"), 0);
}
END_TEST

START_TEST(dgx_b200_node_has_two_switch_chips)
{
    g_autoptr(weft_topo_t) t = load_text("b.ini", "[cluster]\nkind = dgx-b200\n");
    /* 8 GPUs + 2 chips; 16 links of 9 NVLink5 lanes */
    ck_assert_uint_eq(weft_topo_n_vertices(t), 10);
    ck_assert_uint_eq(weft_topo_n_edges(t), 32);
    gint e = edge_between(t, "node0/gpu7", "node0/nvswitch1");
    ck_assert_uint_eq(weft_topo_edge_lanes(t, e), 9);
    /* 9 x 50 GB/s = 450 GB/s per chip, 900 GB/s per GPU */
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), 9 * gpu("b200")->nvlink_link_Bps, 1.0);
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), 450e9, 1.0);
}
END_TEST

START_TEST(gb200_nvl72_is_one_nvlink_domain_of_18_trays)
{
    g_autoptr(weft_topo_t) t = load_text("g.ini", "[cluster]\nkind = gb200-nvl72\n");
    /* 72 GPUs + 18 chips = 90 vertices; 72 x 18 = 1,296 links of one lane */
    ck_assert_uint_eq(weft_topo_n_gpus(t), 72);
    ck_assert_uint_eq(weft_topo_n_vertices(t), 90);
    ck_assert_uint_eq(weft_topo_n_edges(t), 2592);
    ck_assert_uint_eq(weft_topo_n_domains(t), 1);
    ck_assert_uint_eq(weft_topo_n_hosts(t), 18);
    /* GPU number 29 = tray 7 (29 / 4), GPU 1 in its tray */
    gint g = weft_topo_gpu_vertex(t, 29);
    ck_assert_str_eq(weft_topo_vertex_name(t, g), "rack0/tray7/gpu1");
    ck_assert_int_eq(weft_topo_vertex_host(t, g), 7);
    ck_assert_int_eq(weft_topo_vertex_rail(t, g), 1);
    /* the switch trays belong to the rack, to no compute tray */
    ck_assert_int_eq(weft_topo_vertex_host(t, weft_topo_find_vertex(t, "rack0/nvswitch17")), -1);
    gint e = edge_between(t, "rack0/tray7/gpu1", "rack0/nvswitch17");
    ck_assert_uint_eq(weft_topo_edge_lanes(t, e), 1);
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), gpu("gb200")->nvlink_link_Bps, 1.0);
}
END_TEST

START_TEST(gb200_nvl72_racks_on_rail_fabric)
{
    /*
     * 2 racks, rail = GPU within its tray (4 rails); nodes_per_su = 1 rack:
     * a rail leaf takes the 18 trays' NICs of that rail, 18 up at 1:1.
     * Vertices: 2 x (72 + 18 + 72) = 324 + 2 SU x 4 rails = 8 leaves +
     * ceil(8 x 18 / 64) = 3 spines = 335.
     */
    g_autoptr(weft_topo_t) t = load_text("g2.ini", "[cluster]\nkind = gb200-nvl72\nnodes = 2\n"
                                                   "fabric = rail-optimized\nnodes_per_su = 1\n");
    ck_assert_uint_eq(weft_topo_n_vertices(t), 335);
    ck_assert_uint_eq(weft_topo_n_domains(t), 2);
    ck_assert_uint_eq(weft_topo_n_hosts(t), 36);
    ck_assert_int_ge(edge_between(t, "rack1/tray17/nic3", "su1/leaf3"), 0);
    ck_assert_int_eq(weft_topo_vertex_host(t, weft_topo_find_vertex(t, "rack1/tray17/nic3")), 35);
}
END_TEST

/* ---- bare-GPU fabrics -------------------------------------------------------------- */

START_TEST(fat_tree_k4_has_al_fares_counts)
{
    g_autoptr(weft_topo_t) t = load_text("ft.ini", "[cluster]\nkind = fat-tree\nk = 4\n"
                                                   "link_bandwidth = 100Gb/s\nlink_latency = "
                                                   "1us\n");
    /*
     * k = 4: k^3/4 = 16 GPUs, k x k/2 = 8 edge, 8 aggregation, (k/2)^2 = 4 core:
     * 36 vertices; links 16 + 8 x 2 edge-agg + 8 x 2 agg-core = 48.
     */
    ck_assert_uint_eq(weft_topo_n_gpus(t), 16);
    ck_assert_uint_eq(weft_topo_n_vertices(t), 36);
    ck_assert_uint_eq(weft_topo_n_edges(t), 96);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 1), 8);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 2), 8);
    ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 3), 4);
    /* agg 1 of pod 3 reaches cores 2 and 3 (j x k/2 + m) */
    ck_assert_int_ge(edge_between(t, "pod3/agg1", "core2"), 0);
    ck_assert_int_ge(edge_between(t, "pod3/agg1", "core3"), 0);
    ck_assert_int_eq(edge_between(t, "pod3/agg1", "core0"), -1);
    /* GPU 13 on edge switch 13 / 2 = 6 = pod 3, edge 0; 100 Gb/s = 12.5e9 B/s */
    gint e = edge_between(t, "gpu13", "pod3/edge0");
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), 12.5e9, 1.0);
}
END_TEST

START_TEST(fat_tree_partial_gpus)
{
    g_autoptr(weft_topo_t) t =
        load_text("ft10.ini", "[cluster]\nkind = fat-tree\nk = 4\ngpus = 10\n"
                              "link_bandwidth = 100Gb/s\nlink_latency = 1us\n");
    /* 10 GPUs + 20 switches; links 10 + 32 */
    ck_assert_uint_eq(weft_topo_n_vertices(t), 30);
    ck_assert_uint_eq(weft_topo_n_edges(t), 84);
}
END_TEST

START_TEST(leaf_spine_bare_gpus_with_2to1)
{
    g_autoptr(weft_topo_t) t =
        load_text("ls.ini", "[cluster]\nkind = leaf-spine\ngpus = 8\ngpus_per_leaf = 4\n"
                            "switch_radix = 8\noversubscription = 2:1\n"
                            "link_bandwidth = 10GB/s\nlink_latency = 1us\n");
    /* 2 leaves of 4 down and 4 x 1/2 = 2 up; ceil(2 x 2 / 8) = 1 spine: 11 vertices, 10 links */
    ck_assert_uint_eq(weft_topo_n_vertices(t), 11);
    ck_assert_uint_eq(weft_topo_n_edges(t), 20);
    gint e = edge_between(t, "leaf1", "spine0");
    ck_assert_uint_eq(weft_topo_edge_lanes(t, e), 2);
    /* 2 lanes x 10 GB/s: half of the 40 GB/s the leaf's 4 GPUs inject */
    ck_assert_double_eq_tol(weft_topo_edge_bw(t, e), 20e9, 1.0);
    ck_assert_uint_eq(weft_topo_vertex_tier(t, weft_topo_find_vertex(t, "leaf1")), 1);
    ck_assert_uint_eq(weft_topo_vertex_tier(t, weft_topo_find_vertex(t, "spine0")), 2);
}
END_TEST

START_TEST(leaf_spine_default_gpus_per_leaf_follows_radix)
{
    /* radix 12 at 1:1: 6 GPUs per leaf, 6 up; 12 GPUs -> 2 leaves, ceil(12/12) = 1 spine */
    g_autoptr(weft_topo_t) t =
        load_text("ls2.ini", "[cluster]\nkind = leaf-spine\ngpus = 12\nswitch_radix = 12\n"
                             "link_bandwidth = 10GB/s\nlink_latency = 1us\n");
    ck_assert_uint_eq(weft_topo_n_vertices(t), 15);
    ck_assert_int_ge(edge_between(t, "gpu5", "leaf0"), 0);
    ck_assert_int_ge(edge_between(t, "gpu6", "leaf1"), 0);
    ck_assert_uint_eq(weft_topo_edge_lanes(t, edge_between(t, "leaf0", "spine0")), 6);
}
END_TEST

START_TEST(dragonfly_balanced_kim_example)
{
    g_autoptr(weft_topo_t) t =
        load_text("df.ini", "[cluster]\nkind = dragonfly\ngroups = 9\nrouters_per_group = 4\n"
                            "gpus_per_router = 2\nglobal_links_per_router = 2\n"
                            "link_bandwidth = 200Gb/s\nlink_latency = 500ns\n"
                            "global_link_latency = 1us\n");
    /*
     * p = 2, a = 4, h = 2, g = 9 = a h + 1: 72 GPUs + 36 routers = 108.
     * Links: 72 terminal + 9 x C(4,2) = 54 local + 9 x 8 / 2 = 36 global = 162.
     */
    ck_assert_uint_eq(weft_topo_n_vertices(t), 108);
    ck_assert_uint_eq(weft_topo_n_edges(t), 324);
    /*
     * group 0 port k = 0 (router 0) goes to group 1; group 1 reaches back with
     * offset 8 = port 7 (router 3). Group 0 port 7 (router 3) goes to group 8.
     */
    gint e = edge_between(t, "group0/router0", "group1/router3");
    ck_assert_int_ge(e, 0);
    ck_assert_int_eq(weft_topo_edge_latency(t, e), 1000000);
    ck_assert_int_ge(edge_between(t, "group0/router3", "group8/router0"), 0);
    /* every router: 2 GPUs + 3 local + 2 global = 7 links */
    gint r = weft_topo_find_vertex(t, "group4/router2");
    guint deg = 0;
    for (guint i = 0; i < weft_topo_n_edges(t); i++) {
        deg += weft_topo_edge_from(t, (gint)i) == r;
    }
    ck_assert_uint_eq(deg, 7);
    /* GPU 13 = group 1 (13 / 8), router 2 ((13 / 2) mod 4) */
    ck_assert_int_ge(edge_between(t, "gpu13", "group1/router2"), 0);
}
END_TEST

START_TEST(dragonfly_fewer_groups_doubles_global_links)
{
    /* g = 5: (g-1) = 4 divides a h = 8, so m = 2 global links per pair of groups */
    g_autoptr(weft_topo_t) t =
        load_text("df5.ini", "[cluster]\nkind = dragonfly\ngroups = 5\nrouters_per_group = 4\n"
                             "gpus_per_router = 2\nglobal_links_per_router = 2\n"
                             "link_bandwidth = 200Gb/s\nlink_latency = 500ns\n");
    /* 5 groups x 8 ports / 2 = 20 global links = lanes over inter-group edges */
    guint lanes = 0;
    for (guint e = 0; e < weft_topo_n_edges(t); e++) {
        const char *u = weft_topo_vertex_name(t, weft_topo_edge_from(t, (gint)e));
        const char *v = weft_topo_vertex_name(t, weft_topo_edge_to(t, (gint)e));
        if (g_str_has_prefix(u, "group") && g_str_has_prefix(v, "group") && strncmp(u, v, 6) != 0 &&
            u[5] < v[5]) {
            lanes += weft_topo_edge_lanes(t, (gint)e);
        }
    }
    ck_assert_uint_eq(lanes, 20);
    ck_assert_uint_eq(weft_topo_n_gpus(t), 40);
}
END_TEST

START_TEST(torus_counts_per_dimension)
{
    g_autoptr(weft_topo_t) t =
        load_text("t3.ini", "[cluster]\nkind = torus\ndims = 4x4x4\n"
                            "link_bandwidth = 50GB/s\nlink_latency = 500ns\n");
    /* 64 GPUs, 3 dimensions of size 4: 3 x 64 = 192 links; 6 neighbours each */
    ck_assert_uint_eq(weft_topo_n_vertices(t), 64);
    ck_assert_uint_eq(weft_topo_n_edges(t), 384);
    /* wraparound: gpu 3 = (3,0,0) to gpu 0; gpu 48 = (0,0,3) to gpu 0 */
    ck_assert_int_ge(edge_between(t, "gpu3", "gpu0"), 0);
    ck_assert_int_ge(edge_between(t, "gpu48", "gpu0"), 0);
    ck_assert_int_eq(edge_between(t, "gpu2", "gpu0"), -1);

    g_autoptr(weft_topo_t) t2 =
        load_text("t2.ini", "[cluster]\nkind = torus\ndims = 2x3\n"
                            "link_bandwidth = 50GB/s\nlink_latency = 500ns\n");
    /* size 2: 6 / 2 = 3 links (no double link); size 3: 6 links; total 9 */
    ck_assert_uint_eq(weft_topo_n_edges(t2), 18);
}
END_TEST

/* ---- bundled files -------------------------------------------------------------------- */

START_TEST(bundled_topologies_load_with_derived_counts)
{
    const char *src = g_getenv("WEFT_SRCDIR");
    if (src == NULL) {
        printf("bundled_topologies_load_with_derived_counts: skipped (WEFT_SRCDIR not set)\n");
        return;
    }
    static const struct {
        const char *file;
        guint gpus, vertices, edges, nics; /* NICs: one per GPU, or nics_per_node */
    } cases[] = {
        /* 8 + 6; 48 links */
        {"dgx-a100.ini", 8, 14, 96, 0},
        /* 8 + 4; 32 links */
        {"dgx-h100.ini", 8, 12, 64, 0},
        /* 8 + 2; 16 links */
        {"dgx-b200.ini", 8, 10, 32, 0},
        /* 72 + 18; 1,296 links */
        {"gb200-nvl72.ini", 72, 90, 2592, 0},
        /*
         * 560 x (8 + 6 + 4 + 8) = 14,560 + 224 leaves + 224 spines + 112 cores
         * = 15,120. Links: 560 x 72 = 40,320; each rail's 28 leaves form 2
         * pods of 14 with 14 spines; a leaf's 20 uplinks over 14 spines
         * touch all 14: 224 x 14 = 3,136; spines 224 x 20 uplinks to 20
         * distinct of 112 cores = 4,480; total 47,936.
         */
        {"selene-a100-superpod.ini", 4480, 15120, 95872, 4480},
        /*
         * 256 x 20 = 5,120 + 64 leaves + 32 spines = 5,216; links 256 x 48 =
         * 12,288 + 64 x 32 = 2,048 -> 14,336.
         */
        {"dgx-h100-superpod.ini", 2048, 5216, 28672, 2048},
        /*
         * 2,048 x 20 = 40,960 + 512 + 512 + 256 = 42,240; links 2,048 x 48 =
         * 98,304 + 512 x 32 + 512 x 32 = 131,072.
         */
        {"h100-2048-nodes.ini", 16384, 42240, 262144, 16384},
        /* 32 x 20 + 8 + 2 = 650; 32 x 48 + 8 x 2 = 1,552 links */
        {"leaf-spine-2to1.ini", 256, 650, 3104, 256},
        /* 72 + 36; 162 links */
        {"dragonfly.ini", 72, 108, 324, 0},
        /* 64; 192 links */
        {"torus-3d.ini", 64, 64, 384, 0},
        /* 8 GPUs, 8 ring links */
        {"ring-8.ini", 8, 8, 16, 0},
        /* 8 GPUs + 1 switch, 8 links */
        {"switch-8.ini", 8, 9, 16, 0},
        /*
         * p4de: 2 x (8 GPU + 6 NVSwitch + 4 PCIe switch + 4 EFA) = 44 + 4 rail leaves + 2
         * spines = 50; links 2 x (48 NVLink + 12 PCIe + 4 NIC-leaf) + 4 x 2 leaf-spine = 136.
         */
        {"p4de-a100-2node.ini", 16, 50, 272, 8},
        /*
         * p5e as p5: 2 x (8 + 4 + 8 NIC) = 40 + 8 leaves + 4 spines = 52; links 2 x (32
         * NVLink + 8 PCIe + 8 NIC-leaf) + 8 leaves x 4 spines = 128.
         */
        {"p5e-h200-2node.ini", 16, 52, 256, 16},
        /* p5 itself: the same shape (16 NIC vertices of 4 EFA ports each) */
        {"p5-h100-2node.ini", 16, 52, 256, 16},
        /* p6-b200: 2 x (8 + 2 + 8) + 8 + 4 = 48; 2 x (16 + 8 + 8) + 32 = 96 links */
        {"p6-b200-2node.ini", 16, 48, 192, 16},
        /* A3 Mega: 8 NICs per node as p5: 52 vertices, 128 links */
        {"a3-mega-h100-2node.ini", 16, 52, 256, 16},
        /* A3 High: 2 x (8 + 4 + 4 PCIe switch + 4 NIC) + 4 + 2 = 46; 2 x (32 + 12 + 4) + 8 */
        {"a3-high-h100-2node.ini", 16, 46, 208, 8},
        /*
         * 2 NVL72 racks: 2 x (72 GPU + 18 NVSwitch + 72 NIC) = 324; SU of 1 rack (64 / 2
         * / 18 trays = 1), 4 rails: 8 leaves of 18 down, 18 up, ceil(8 x 18 / 64) = 3
         * spines: 335. Links 2 x (1,296 NVLink + 72 PCIe + 72 NIC-leaf) + 8 x 3 = 2,904.
         */
        {"gb200-nvl72-2rack.ini", 144, 335, 5808, 144},
        /*
         * NDm A100 v4, 4 VMs on a leaf-spine of 40-port HDR: 4 x 26 = 104 + 2 leaves (2
         * nodes = 16 ports down, 16 up) + ceil(2 x 16 / 40) = 1 spine = 107; links 4 x 72
         * + 2 = 290.
         */
        {"azure-ndm-a100-v4.ini", 32, 107, 580, 32},
        /* ND H100 v5, 8 VMs, 64-port NDR: 8 x 20 + 2 leaves + 1 spine; 8 x 48 + 2 links */
        {"azure-nd-h100-v5.ini", 64, 163, 772, 64},
        /*
         * Jean Zay, 48 nodes of 4 Omni-Path NICs: 48 x (8 + 6 + 4 + 4) = 1,056 + 8 leaves
         * (48-port: 6 nodes = 24 down, 24 up) + ceil(8 x 24 / 48) = 4 spines = 1,068; links
         * 48 x (48 + 12 + 4) = 3,072 + 8 x 4 = 3,104.
         */
        {"jean-zay-a100-opa.ini", 384, 1068, 6208, 192},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *path = g_build_filename(src, "topologies", cases[i].file, NULL);
        g_autoptr(GError) err = NULL;
        g_autoptr(weft_topo_t) t = weft_topo_load(path, &err);
        ck_assert_msg(t != NULL, "%s: %s", path, err ? err->message : "?");
        ck_assert_msg(weft_topo_n_gpus(t) == cases[i].gpus, "%s: gpus %u", cases[i].file,
                      weft_topo_n_gpus(t));
        ck_assert_msg(weft_topo_n_vertices(t) == cases[i].vertices, "%s: vertices %u",
                      cases[i].file, weft_topo_n_vertices(t));
        ck_assert_msg(weft_topo_n_edges(t) == cases[i].edges, "%s: edges %u", cases[i].file,
                      weft_topo_n_edges(t));
        ck_assert_msg(count_vertices(t, WEFT_VERTEX_NIC, -1) == cases[i].nics, "%s: NICs %u",
                      cases[i].file, count_vertices(t, WEFT_VERTEX_NIC, -1));
    }
    /* every bundled file has its hand-derived row above */
    g_autofree char *dir = g_build_filename(src, "topologies", NULL);
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    ck_assert_ptr_nonnull(d);
    const char *name;
    guint n_files = 0;
    while ((name = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_suffix(name, ".ini")) {
            continue;
        }
        n_files++;
        gboolean listed = FALSE;
        for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
            listed = listed || strcmp(cases[i].file, name) == 0;
        }
        ck_assert_msg(listed, "topologies/%s has no row of derived counts", name);
    }
    ck_assert_uint_eq(n_files, G_N_ELEMENTS(cases));
    /* the p5 cluster's NICs are AWS EFA: 3 us per message (hw catalog); InfiniBand's none */
    g_autofree char *p5 = g_build_filename(src, "topologies", "p5-h100-2node.ini", NULL);
    g_autoptr(weft_topo_t) t5 = weft_topo_load(p5, NULL);
    ck_assert_ptr_nonnull(t5);
    ck_assert_int_eq(weft_topo_nic_msg_cost(t5), 3 * WEFT_PS_PER_US);
    ck_assert_int_eq(weft_topo_vertex_msg_cost(t5, weft_topo_find_vertex(t5, "node1/nic7")),
                     3 * WEFT_PS_PER_US);
    g_autofree char *pod = g_build_filename(src, "topologies", "dgx-h100-superpod.ini", NULL);
    g_autoptr(weft_topo_t) tp = weft_topo_load(pod, NULL);
    ck_assert_int_eq(weft_topo_nic_msg_cost(tp), 0);
}
END_TEST

START_TEST(superpod_tiers_match_reference_architecture)
{
    const char *src = g_getenv("WEFT_SRCDIR");
    if (src == NULL) {
        printf("superpod_tiers_match_reference_architecture: skipped (WEFT_SRCDIR not set)\n");
        return;
    }
    /* RA table: 8 SU -> 64 leaf, 32 spine; 64 SU -> 512 leaf, 512 spine, 256 core */
    static const struct {
        const char *file;
        guint leaf, spine, core;
    } cases[] = {
        {"dgx-h100-superpod.ini", 64, 32, 0},
        {"h100-2048-nodes.ini", 512, 512, 256},
        {"selene-a100-superpod.ini", 224, 224, 112},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *path = g_build_filename(src, "topologies", cases[i].file, NULL);
        g_autoptr(weft_topo_t) t = weft_topo_load(path, NULL);
        ck_assert_ptr_nonnull(t);
        ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 1), cases[i].leaf);
        ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 2), cases[i].spine);
        ck_assert_uint_eq(count_vertices(t, WEFT_VERTEX_SWITCH, 3), cases[i].core);
        /* one NVLink domain and one host per node */
        ck_assert_uint_eq(weft_topo_n_domains(t), weft_topo_n_gpus(t) / 8);
        ck_assert_uint_eq(weft_topo_n_hosts(t), weft_topo_n_gpus(t) / 8);
    }
}
END_TEST

/* ---- a scenario's [cluster] group ------------------------------------------------------ */

START_TEST(keyfile_group_of_a_scenario_loads)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    const char *text = "[workload]\ntrace = x\n[cluster]\nkind = torus\ndims = 8\n"
                       "link_bandwidth = 50GB/s\nlink_latency = 1us\n[network]\nmodel = flow\n";
    ck_assert(g_key_file_load_from_data(kf, text, -1, G_KEY_FILE_NONE, NULL));
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_topo_t) t = weft_topo_load_keyfile(kf, "cluster", "run.ini", &err);
    ck_assert_msg(t != NULL, "%s", err ? err->message : "?");
    /* dims 8: a ring of 8, 8 links; named after the origin */
    ck_assert_uint_eq(weft_topo_n_edges(t), 16);
    ck_assert_str_eq(weft_topo_name(t), "run");

    g_autoptr(GError) err2 = NULL;
    ck_assert_ptr_null(weft_topo_load_keyfile(kf, "fabric", "run.ini", &err2));
    ck_assert(g_error_matches(err2, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY));
}
END_TEST

/* ---- bad files ------------------------------------------------------------------------- */

#define DF                                                                                         \
    "[cluster]\nkind = dragonfly\nrouters_per_group = 4\ngpus_per_router = 2\n"                    \
    "global_links_per_router = 2\nlink_latency = 1us\n"

static const struct {
    const char *name;
    const char *text;
    gint code;
} bad[] = {
    {"unknown-kind.ini", "[cluster]\nkind = mesh\ngpus = 4\n", WEFT_TOPO_ERROR_KEY},
    {"unknown-key.ini", H100_RAIL "nodes_per_pod = 4\n", WEFT_TOPO_ERROR_KEY},
    {"key-of-other-fabric.ini", H100_RAIL "k = 8\n", WEFT_TOPO_ERROR_KEY},
    {"fabric-key-without-fabric.ini", "[cluster]\nkind = dgx-h100\nnodes_per_su = 4\n",
     WEFT_TOPO_ERROR_KEY},
    {"missing-unit.ini",
     "[cluster]\nkind = torus\ndims = 4x4\nlink_bandwidth = 50\n"
     "link_latency = 1us\n",
     WEFT_TOPO_ERROR_PARSE},
    {"missing-latency-unit.ini", H100_RAIL "fabric_latency = 700\n", WEFT_TOPO_ERROR_PARSE},
    {"zero-bandwidth.ini",
     "[cluster]\nkind = fat-tree\nk = 4\nlink_bandwidth = 0GB/s\n"
     "link_latency = 1us\n",
     WEFT_TOPO_ERROR_VALUE},
    {"negative-bandwidth.ini", DF "groups = 9\nlink_bandwidth = -1GB/s\n", WEFT_TOPO_ERROR_VALUE},
    {"zero-global-bandwidth.ini",
     DF "groups = 9\nlink_bandwidth = 1GB/s\nglobal_link_bandwidth = 0Gb/s\n",
     WEFT_TOPO_ERROR_VALUE},
    {"oversubscription-dash.ini", H100_RAIL "oversubscription = 2-1\n", WEFT_TOPO_ERROR_PARSE},
    {"oversubscription-one-side.ini", H100_RAIL "oversubscription = 2:\n", WEFT_TOPO_ERROR_PARSE},
    {"oversubscription-three.ini", H100_RAIL "oversubscription = 2:1:1\n", WEFT_TOPO_ERROR_PARSE},
    {"oversubscription-word.ini", H100_RAIL "oversubscription = half\n", WEFT_TOPO_ERROR_PARSE},
    {"oversubscription-zero.ini", H100_RAIL "oversubscription = 0:1\n", WEFT_TOPO_ERROR_VALUE},
    {"oversubscription-negative.ini", H100_RAIL "oversubscription = -2:1\n", WEFT_TOPO_ERROR_VALUE},
    /* issue 19, item 8: beyond 1024:1 either way (no switch has more ports) */
    {"oversubscription-huge.ini", H100_RAIL "oversubscription = 1e30:1\n", WEFT_TOPO_ERROR_VALUE},
    {"oversubscription-tiny.ini", H100_RAIL "oversubscription = 1:1025\n", WEFT_TOPO_ERROR_VALUE},
    {"dragonfly-not-dividing.ini", DF "groups = 4\nlink_bandwidth = 1GB/s\n",
     WEFT_TOPO_ERROR_VALUE},
    {"dragonfly-too-many-groups.ini", DF "groups = 10\nlink_bandwidth = 1GB/s\n",
     WEFT_TOPO_ERROR_VALUE},
    {"fat-tree-odd-k.ini",
     "[cluster]\nkind = fat-tree\nk = 5\nlink_bandwidth = 1GB/s\n"
     "link_latency = 1us\n",
     WEFT_TOPO_ERROR_VALUE},
    {"fat-tree-too-many-gpus.ini",
     "[cluster]\nkind = fat-tree\nk = 4\ngpus = 17\n"
     "link_bandwidth = 1GB/s\nlink_latency = 1us\n",
     WEFT_TOPO_ERROR_VALUE},
    {"fat-tree-nodes-too-many.ini",
     "[cluster]\nkind = dgx-h100\nnodes = 3\nfabric = fat-tree\nk = 4\n", WEFT_TOPO_ERROR_VALUE},
    {"fat-tree-k-beyond-max.ini",
     "[cluster]\nkind = fat-tree\nk = 130\nlink_bandwidth = 1GB/s\n"
     "link_latency = 1us\n",
     WEFT_TOPO_ERROR_VALUE},
    /* 40 down + 40 up > 64 ports */
    {"leaf-ports-exceeded.ini", H100_RAIL "nodes_per_su = 40\n", WEFT_TOPO_ERROR_VALUE},
    /* radix 4: 8 rail pods of one spine with 2 uplinks cannot reach 4 cores */
    {"beyond-three-tiers.ini", H100_RAIL "nodes_per_su = 1\nswitch_radix = 4\n",
     WEFT_TOPO_ERROR_VALUE},
    /* at most 2^20 GPUs: 131,072 nodes of 8 */
    {"more-nodes-than-max.ini", "[cluster]\nkind = dgx-h100\nnodes = 131073\nfabric = leaf-spine\n",
     WEFT_TOPO_ERROR_VALUE},
    {"nodes-without-fabric.ini", "[cluster]\nkind = dgx-a100\nnodes = 2\n", WEFT_TOPO_ERROR_VALUE},
    {"unknown-fabric.ini", "[cluster]\nkind = dgx-a100\nnodes = 2\nfabric = butterfly\n",
     WEFT_TOPO_ERROR_VALUE},
    {"unknown-nic.ini", H100_RAIL "nic = cx9\n", WEFT_TOPO_ERROR_VALUE},
    /* RoCE has no default switch radix */
    {"ethernet-needs-radix.ini", H100_RAIL "nic = roce-400\n", WEFT_TOPO_ERROR_KEY},
    {"torus-zero-dim.ini",
     "[cluster]\nkind = torus\ndims = 4x0x4\nlink_bandwidth = 1GB/s\n"
     "link_latency = 1us\n",
     WEFT_TOPO_ERROR_PARSE},
    {"torus-four-dims.ini",
     "[cluster]\nkind = torus\ndims = 4x4x4x4\nlink_bandwidth = 1GB/s\n"
     "link_latency = 1us\n",
     WEFT_TOPO_ERROR_PARSE},
    {"torus-too-big.ini",
     "[cluster]\nkind = torus\ndims = 1024x1024x2\n"
     "link_bandwidth = 1GB/s\nlink_latency = 1us\n",
     WEFT_TOPO_ERROR_VALUE},
    {"leaf-spine-no-radix.ini",
     "[cluster]\nkind = leaf-spine\ngpus = 8\n"
     "link_bandwidth = 1GB/s\nlink_latency = 1us\n",
     WEFT_TOPO_ERROR_KEY},
    {"fractional-nodes-per-su.ini", H100_RAIL "nodes_per_su = 2.5\n", WEFT_TOPO_ERROR_PARSE},
    /* B200 speaks NVLink5, the DGX H100's gen3 switches NVLink4; A100 NVLink3 */
    {"gpu-other-nvlink.ini", "[cluster]\nkind = dgx-h100\ngpu = b200\n", WEFT_TOPO_ERROR_VALUE},
    {"gpu-older-nvlink.ini", "[cluster]\nkind = dgx-b200\ngpu = a100\n", WEFT_TOPO_ERROR_VALUE},
    {"gpu-unknown.ini", "[cluster]\nkind = dgx-h100\ngpu = v100\n", WEFT_TOPO_ERROR_VALUE},
    /* 3 NICs do not divide 8 GPUs; 16 are more than the GPUs; 0 is below the range */
    {"nics-per-node-3.ini", H100_RAIL "nics_per_node = 3\n", WEFT_TOPO_ERROR_VALUE},
    {"nics-per-node-16.ini", H100_RAIL "nics_per_node = 16\n", WEFT_TOPO_ERROR_VALUE},
    {"nics-per-node-0.ini", H100_RAIL "nics_per_node = 0\n", WEFT_TOPO_ERROR_VALUE},
    /* NVL72: 72 NICs over 18 trays; 36 is 2 per tray of 4 GPUs (fine), 9 is not whole */
    {"nics-per-node-nvl72.ini",
     "[cluster]\nkind = gb200-nvl72\nnodes = 2\nfabric = rail-optimized\nnics_per_node = 9\n",
     WEFT_TOPO_ERROR_VALUE},
    /* a shared NIC is one port: nics_per_gpu does not apply */
    {"nics-per-node-and-per-gpu.ini", H100_RAIL "nics_per_node = 4\nnics_per_gpu = 2\n",
     WEFT_TOPO_ERROR_KEY},
    {"nics-per-node-without-fabric.ini", "[cluster]\nkind = dgx-h100\nnics_per_node = 4\n",
     WEFT_TOPO_ERROR_KEY},
    /* EFA's 20 us cannot hold two 10 us fabric links and a NIC link */
    {"efa-fabric-latency-too-long.ini",
     H100_RAIL "nic = efa\nswitch_radix = 64\nfabric_latency = 10us\n", WEFT_TOPO_ERROR_VALUE},
    /* Omni-Path has a default radix (48), TCPX none */
    {"tcpx-needs-radix.ini", H100_RAIL "nic = gcp-tcpx\n", WEFT_TOPO_ERROR_KEY},
};

START_TEST(bad_file_gives_its_error_code)
{
    expect_load_error(bad[_i].name, bad[_i].text, bad[_i].code);
}
END_TEST

static Suite *
fabric_suite(void)
{
    Suite *s = suite_create("fabric");
    TCase *tc = tcase_create("nodes");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_add_test(tc, dgx_a100_node_has_six_nvswitches_two_links_each);
    tcase_add_test(tc, dgx_a100_on_rail_fabric_has_pcie_switches_and_hdr_nics);
    tcase_add_test(tc, fewer_nics_than_gpus_share_a_nic_behind_a_pcie_switch);
    tcase_add_test(tc, catalog_nic_latency_sits_on_the_nic_link_unless_pcie_latency_is_given);
    tcase_add_test(tc, gpu_key_swaps_the_gpu_of_the_chassis);
    tcase_add_test(tc, dgx_h100_two_nodes_rail_optimized_counts);
    tcase_add_test(tc, dgx_h100_default_su_leaves_have_32_uplinks);
    tcase_add_test(tc, rail_fabric_grows_a_core_tier_past_one_spine);
    tcase_add_test(tc, dgx_h100_leaf_spine_puts_a_node_on_one_leaf);
    tcase_add_test(tc, dgx_h100_on_fat_tree_picks_smallest_k);
    tcase_add_test(tc, dgx_b200_node_has_two_switch_chips);
    tcase_add_test(tc, gb200_nvl72_is_one_nvlink_domain_of_18_trays);
    tcase_add_test(tc, gb200_nvl72_racks_on_rail_fabric);
    suite_add_tcase(s, tc);

    tc = tcase_create("fabrics");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_add_test(tc, fat_tree_k4_has_al_fares_counts);
    tcase_add_test(tc, fat_tree_partial_gpus);
    tcase_add_test(tc, leaf_spine_bare_gpus_with_2to1);
    tcase_add_test(tc, leaf_spine_default_gpus_per_leaf_follows_radix);
    tcase_add_test(tc, dragonfly_balanced_kim_example);
    tcase_add_test(tc, dragonfly_fewer_groups_doubles_global_links);
    tcase_add_test(tc, torus_counts_per_dimension);
    suite_add_tcase(s, tc);

    tc = tcase_create("files");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_add_test(tc, bundled_topologies_load_with_derived_counts);
    tcase_add_test(tc, superpod_tiers_match_reference_architecture);
    tcase_add_test(tc, keyfile_group_of_a_scenario_loads);
    tcase_add_loop_test(tc, bad_file_gives_its_error_code, 0, G_N_ELEMENTS(bad));
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(fabric_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
