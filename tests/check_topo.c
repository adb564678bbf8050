/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of topo/: building a cluster through the API and its checks
 * (duplicate names, self-loops, bad bandwidths, disconnected GPUs), routes
 * (hop count, latency, analytical rate, NVSwitch spraying, the cache), the INI
 * generators and their error codes, the ASTRA-sim YAML reader, and the real
 * ASTRA-sim network files from $WEFT_SHARED (skipped, visibly, when absent).
 */
#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/fabric.h"
#include "topo/topo.h"
#include "testutil.h"

#define NS 1000 /* picoseconds per nanosecond */
#define GIB 1073741824.0

/* ---- helpers ----------------------------------------------------------------- */

static char *tmpdir;

static void
tmp_setup(void)
{
    GError *err = NULL;
    tmpdir = g_dir_make_tmp("check_topo-XXXXXX", &err);
    ck_assert_msg(tmpdir != NULL, "g_dir_make_tmp: %s", err ? err->message : "?");
}

static void
tmp_teardown(void)
{
    test_tmpdir_remove(tmpdir);
    g_clear_pointer(&tmpdir, g_free);
}

/* Writes @text to @name in the test's temporary directory; returns the path. */
static char *
write_file(const char *name, const char *text)
{
    return test_write_file(tmpdir, name, text);
}

/* Loads @text written as @name and expects WEFT_TOPO_ERROR/@code. */
static void
expect_load_error(const char *name, const char *text, gint code)
{
    g_autofree char *path = write_file(name, text);
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_topo_t) t = weft_topo_load(path, &err);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(err);
    ck_assert_msg(g_error_matches(err, WEFT_TOPO_ERROR, code),
                  "%s: expected code %d, got %s %d: %s", name, code, g_quark_to_string(err->domain),
                  err->code, err->message);
    /* every load error names the file it is about */
    ck_assert_msg(strstr(err->message, name) != NULL, "%s: the error does not name the file: %s",
                  name, err->message);
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

static const weft_route_t *
route_gpus(weft_fabric_t *f, guint a, guint b)
{
    const weft_topo_t *t = weft_fabric_topo(f);
    g_autoptr(GError) err = NULL;
    const weft_route_t *r =
        weft_fabric_route(f, weft_topo_gpu_vertex(t, a), weft_topo_gpu_vertex(t, b), &err);
    ck_assert_msg(r != NULL, "route gpu%u->gpu%u: %s", a, b, err ? err->message : "?");
    return r;
}

static double
share_sum(const weft_route_t *r)
{
    double s = 0.0;
    for (guint p = 0; p < r->n_paths; p++) {
        s += r->share[p];
    }
    return s;
}

/* ---- building through the API ------------------------------------------------ */

START_TEST(api_gpu_numbers_follow_order_of_addition)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("t");
    GError *err = NULL;
    gint sw = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "sw", -1, -1, &err);
    gint a = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "a", 0, 0, &err);
    gint nic = weft_topo_add_vertex(t, WEFT_VERTEX_NIC, "nic", 0, 0, &err);
    gint b = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "b", 1, 0, &err);
    ck_assert_ptr_null(err);
    /* vertex ids are 0,1,2,3 in order; GPUs a (vertex 1) and b (vertex 3) are GPU 0 and 1 */
    ck_assert_int_eq(sw, 0);
    ck_assert_int_eq(nic, 2);
    ck_assert_uint_eq(weft_topo_n_gpus(t), 2);
    ck_assert_int_eq(weft_topo_gpu_vertex(t, 0), a);
    ck_assert_int_eq(weft_topo_gpu_vertex(t, 1), b);
    ck_assert_int_eq(weft_topo_find_vertex(t, "b"), b);
    ck_assert_int_eq(weft_topo_find_vertex(t, "nope"), -1);
    ck_assert_int_eq(weft_topo_vertex_host(t, b), 1);
    ck_assert_int_eq(weft_topo_vertex_kind(t, nic), WEFT_VERTEX_NIC);
    /* link a-sw is edges 0 (a->sw) and 1 (sw->a); b-sw is 2 and 3 */
    ck_assert_int_eq(weft_topo_add_link(t, a, sw, WEFT_LINK_NVLINK, 1e9, 5, 2, &err), 0);
    ck_assert_int_eq(weft_topo_add_link(t, b, sw, WEFT_LINK_PCIE, 2e9, 7, 1, &err), 2);
    ck_assert_int_eq(weft_topo_add_link(t, nic, sw, WEFT_LINK_INFINIBAND, 3e9, 0, 1, &err), 4);
    ck_assert_int_eq(weft_topo_edge_from(t, 1), sw);
    ck_assert_int_eq(weft_topo_edge_to(t, 1), a);
    ck_assert_uint_eq(weft_topo_edge_lanes(t, 1), 2);
    ck_assert_int_eq(weft_topo_edge_kind(t, 3), WEFT_LINK_PCIE);
    ck_assert(weft_topo_edge_bw(t, 3) == 2e9);
    ck_assert_int_eq(weft_topo_edge_latency(t, 2), 7);
    ck_assert_uint_eq(weft_topo_n_edges(t), 6);
    ck_assert(weft_topo_finalize(t, &err));
    ck_assert_ptr_null(err);
}
END_TEST

START_TEST(api_duplicate_name_is_graph_error)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("t");
    g_autoptr(GError) err = NULL;
    ck_assert_int_ge(weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "gpu0", -1, -1, &err), 0);
    ck_assert_int_eq(weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "gpu0", -1, -1, &err), -1);
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH));
    /* the rejected vertex was not added */
    ck_assert_uint_eq(weft_topo_n_vertices(t), 1);
}
END_TEST

START_TEST(api_self_loop_is_graph_error)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("t");
    g_autoptr(GError) err = NULL;
    gint a = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "a", -1, -1, &err);
    ck_assert_int_eq(weft_topo_add_link(t, a, a, WEFT_LINK_GENERIC, 1e9, 0, 1, &err), -1);
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH));
    ck_assert_uint_eq(weft_topo_n_edges(t), 0);
}
END_TEST

START_TEST(api_unknown_vertex_is_graph_error)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("t");
    g_autoptr(GError) err = NULL;
    gint a = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "a", -1, -1, &err);
    ck_assert_int_eq(weft_topo_add_link(t, a, 7, WEFT_LINK_GENERIC, 1e9, 0, 1, &err), -1);
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH));
}
END_TEST

/* _i: 0 zero, 1 negative, 2 NaN, 3 infinite bandwidth; 4 negative latency; 5 zero lanes */
START_TEST(api_bad_link_values_are_value_errors)
{
    static const double bw[] = {0.0, -1e9, NAN, INFINITY, 1e9, 1e9};
    static const weft_time_t lat[] = {0, 0, 0, 0, -1, 0};
    static const guint lanes[] = {1, 1, 1, 1, 1, 0};
    g_autoptr(weft_topo_t) t = weft_topo_new("t");
    g_autoptr(GError) err = NULL;
    gint a = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "a", -1, -1, &err);
    gint b = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "b", -1, -1, &err);
    ck_assert_int_eq(
        weft_topo_add_link(t, a, b, WEFT_LINK_GENERIC, bw[_i], lat[_i], lanes[_i], &err), -1);
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE));
}
END_TEST

START_TEST(api_disconnected_gpu_fails_finalize)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("t");
    g_autoptr(GError) err = NULL;
    gint a = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "a", -1, -1, &err);
    gint b = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "b", -1, -1, &err);
    weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "lonely", -1, -1, &err);
    ck_assert_int_ge(weft_topo_add_link(t, a, b, WEFT_LINK_GENERIC, 1e9, 0, 1, &err), 0);
    /* GPU 2 has no link: a, b form one component, "lonely" another */
    ck_assert(!weft_topo_finalize(t, &err));
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH));
}
END_TEST

START_TEST(api_no_gpu_fails_finalize)
{
    g_autoptr(weft_topo_t) t = weft_topo_new(NULL);
    g_autoptr(GError) err = NULL;
    weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "sw", -1, -1, &err);
    ck_assert(!weft_topo_finalize(t, &err));
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH));
}
END_TEST

/* ---- routes -------------------------------------------------------------------- */

START_TEST(route_to_self_is_empty)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("t");
    GError *err = NULL;
    gint a = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "a", -1, -1, &err);
    ck_assert(weft_topo_finalize(t, &err));
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    const weft_route_t *r = weft_fabric_route(f, a, a, &err);
    ck_assert_ptr_nonnull(r);
    /* contract: no paths, latency 0, rate infinite */
    ck_assert_uint_eq(r->n_paths, 0);
    ck_assert_int_eq(r->latency_ps, 0);
    ck_assert(isinf(r->rate_Bps));
    ck_assert_uint_eq(r->hops, 0);
}
END_TEST

START_TEST(route_to_unreachable_switch_is_no_route)
{
    /* GPUs a-b linked; an unlinked switch is allowed (only GPUs must be connected) */
    g_autoptr(weft_topo_t) t = weft_topo_new("t");
    g_autoptr(GError) err = NULL;
    gint a = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "a", -1, -1, &err);
    gint b = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "b", -1, -1, &err);
    gint sw = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "spare", -1, -1, &err);
    weft_topo_add_link(t, a, b, WEFT_LINK_GENERIC, 1e9, 0, 1, &err);
    ck_assert(weft_topo_finalize(t, &err));
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    ck_assert_ptr_null(weft_fabric_route(f, a, sw, &err));
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_NO_ROUTE));
}
END_TEST

START_TEST(route_is_cached_per_pair)
{
    g_autoptr(weft_topo_t) t = load_text("r.ini", "[cluster]\nkind=ring\ngpus=4\n"
                                                  "link_bandwidth=50GB/s\nlink_latency=500ns\n");
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    const weft_route_t *r1 = route_gpus(f, 0, 2);
    const weft_route_t *r2 = route_gpus(f, 0, 2);
    const weft_route_t *back = route_gpus(f, 2, 0);
    /* the same pair gives the same cached object; the reverse pair is its own route */
    ck_assert_ptr_eq(r1, r2);
    ck_assert_ptr_ne(r1, back);
    ck_assert_int_eq(weft_topo_edge_from(t, back->edges[0]), weft_topo_gpu_vertex(t, 2));
}
END_TEST

/* Two equal-cost paths through two ordinary switches: one path, not sprayed. */
START_TEST(route_over_plain_switches_takes_one_path)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("t");
    g_autoptr(GError) err = NULL;
    gint a = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "a", -1, -1, &err);
    gint b = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "b", -1, -1, &err);
    gint s0 = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "s0", -1, -1, &err);
    gint s1 = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "s1", -1, -1, &err);
    weft_topo_add_link(t, a, s0, WEFT_LINK_ETHERNET, 10e9, 100 * NS, 1, &err);
    weft_topo_add_link(t, s0, b, WEFT_LINK_ETHERNET, 10e9, 100 * NS, 1, &err);
    weft_topo_add_link(t, a, s1, WEFT_LINK_ETHERNET, 20e9, 300 * NS, 1, &err);
    weft_topo_add_link(t, s1, b, WEFT_LINK_ETHERNET, 20e9, 300 * NS, 1, &err);
    ck_assert(weft_topo_finalize(t, &err));
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    const weft_route_t *r = route_gpus(f, 0, 1);
    ck_assert_uint_eq(r->n_paths, 1);
    ck_assert(r->share[0] == 1.0);
    ck_assert_uint_eq(r->hops, 2);
    ck_assert_uint_eq(r->path_off[1], 2);
    /* whichever path igraph lists first, rate and latency must be that path's own */
    gint mid = weft_topo_edge_to(t, r->edges[0]);
    ck_assert(mid == s0 || mid == s1);
    ck_assert(r->rate_Bps == (mid == s0 ? 10e9 : 20e9));
    ck_assert_int_eq(r->latency_ps, mid == s0 ? 200 * NS : 600 * NS);
}
END_TEST

/* One path via an NVSwitch, one via a plain switch: not planes of one domain. */
START_TEST(route_mixed_nvswitch_and_switch_takes_one_path)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("t");
    g_autoptr(GError) err = NULL;
    gint a = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "a", -1, -1, &err);
    gint b = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "b", -1, -1, &err);
    gint s0 = weft_topo_add_vertex(t, WEFT_VERTEX_NVSWITCH, "nvs", -1, -1, &err);
    gint s1 = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, "sw", -1, -1, &err);
    weft_topo_add_link(t, a, s0, WEFT_LINK_NVLINK, 10e9, 0, 1, &err);
    weft_topo_add_link(t, s0, b, WEFT_LINK_NVLINK, 10e9, 0, 1, &err);
    weft_topo_add_link(t, a, s1, WEFT_LINK_ETHERNET, 10e9, 0, 1, &err);
    weft_topo_add_link(t, s1, b, WEFT_LINK_ETHERNET, 10e9, 0, 1, &err);
    ck_assert(weft_topo_finalize(t, &err));
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    ck_assert_uint_eq(route_gpus(f, 0, 1)->n_paths, 1);
}
END_TEST

/* Two NVSwitch planes with bottlenecks 30 and 10 GB/s: shares 3/4 and 1/4, rate 40 GB/s. */
START_TEST(route_sprays_over_nvswitch_planes_by_bottleneck)
{
    g_autoptr(weft_topo_t) t = weft_topo_new("t");
    g_autoptr(GError) err = NULL;
    gint a = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "a", -1, -1, &err);
    gint b = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, "b", -1, -1, &err);
    gint s0 = weft_topo_add_vertex(t, WEFT_VERTEX_NVSWITCH, "nvs0", -1, -1, &err);
    gint s1 = weft_topo_add_vertex(t, WEFT_VERTEX_NVSWITCH, "nvs1", -1, -1, &err);
    weft_topo_add_link(t, a, s0, WEFT_LINK_NVLINK, 30e9, 100 * NS, 3, &err);
    weft_topo_add_link(t, s0, b, WEFT_LINK_NVLINK, 40e9, 100 * NS, 4, &err); /* bottleneck 30 */
    weft_topo_add_link(t, a, s1, WEFT_LINK_NVLINK, 10e9, 200 * NS, 1, &err); /* bottleneck 10 */
    weft_topo_add_link(t, s1, b, WEFT_LINK_NVLINK, 10e9, 50 * NS, 1, &err);
    ck_assert(weft_topo_finalize(t, &err));
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    const weft_route_t *r = route_gpus(f, 0, 1);
    ck_assert_uint_eq(r->n_paths, 2);
    for (guint p = 0; p < 2; p++) {
        gint mid = weft_topo_edge_to(t, r->edges[r->path_off[p]]);
        /* share = bottleneck / (30 + 10) */
        ck_assert_double_eq_tol(r->share[p], mid == s0 ? 0.75 : 0.25, 1e-12);
        ck_assert_uint_eq(r->path_off[p + 1] - r->path_off[p], 2);
    }
    /* rate = 30e9 / 0.75 = 10e9 / 0.25 = 40e9 */
    ck_assert_double_eq_tol(r->rate_Bps, 40e9, 1.0);
    /* latency = max(100+100, 200+50) ns = 250 ns */
    ck_assert_int_eq(r->latency_ps, 250 * NS);
}
END_TEST

/* ---- INI generators ------------------------------------------------------------ */

START_TEST(ini_ring4_two_hops_to_opposite_gpu)
{
    g_autoptr(weft_topo_t) t = load_text("ring4.ini", "[cluster]\nkind = ring\ngpus = 4\n"
                                                      "link_bandwidth = 50GB/s\n"
                                                      "link_latency = 500ns\n");
    /* 4 GPUs, 4 links = 8 directed edges */
    ck_assert_uint_eq(weft_topo_n_gpus(t), 4);
    ck_assert_uint_eq(weft_topo_n_vertices(t), 4);
    ck_assert_uint_eq(weft_topo_n_edges(t), 8);
    ck_assert_str_eq(weft_topo_name(t), "ring4");
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    const weft_route_t *r = route_gpus(f, 0, 2);
    /* gpu0 -> gpu1 -> gpu2 (or via gpu3): 2 hops, 2 x 500 ns, rate = one link's 50e9 B/s;
     * the two directions round the ring are not NVSwitch planes, so one path */
    ck_assert_uint_eq(r->hops, 2);
    ck_assert_uint_eq(r->n_paths, 1);
    ck_assert_int_eq(r->latency_ps, 2 * 500 * NS);
    ck_assert(r->rate_Bps == 50e9);
    ck_assert_double_eq_tol(share_sum(r), 1.0, 1e-12);
    /* neighbours: 1 hop */
    ck_assert_uint_eq(route_gpus(f, 0, 3)->hops, 1);
}
END_TEST

START_TEST(ini_ring2_has_one_link)
{
    g_autoptr(weft_topo_t) t = load_text("ring2.ini", "[cluster]\nkind=ring\ngpus=2\n"
                                                      "link_bandwidth=1GB/s\nlink_latency=1us\n");
    /* N = 2: both neighbours are the same GPU, one link = 2 edges */
    ck_assert_uint_eq(weft_topo_n_edges(t), 2);
}
END_TEST

START_TEST(ini_switch8_two_hops)
{
    g_autoptr(weft_topo_t) t = load_text("sw.ini", "[cluster]\nkind = switch\nname = s8\n"
                                                   "gpus = 8\nlink_bandwidth = 400Gb/s\n"
                                                   "link_latency = 1.5us\n");
    /* 8 GPUs + 1 switch; 8 links = 16 edges */
    ck_assert_uint_eq(weft_topo_n_vertices(t), 9);
    ck_assert_uint_eq(weft_topo_n_edges(t), 16);
    ck_assert_str_eq(weft_topo_name(t), "s8");
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    const weft_route_t *r = route_gpus(f, 3, 7);
    /* gpu3 -> switch0 -> gpu7: 2 hops, 2 x 1.5 us, 400 Gb/s = 50e9 B/s */
    ck_assert_uint_eq(r->hops, 2);
    ck_assert_int_eq(r->latency_ps, 3000 * NS);
    ck_assert_double_eq_tol(r->rate_Bps, 50e9, 1.0);
    ck_assert_int_eq(weft_topo_vertex_kind(t, weft_topo_edge_to(t, r->edges[0])),
                     WEFT_VERTEX_SWITCH);
}
END_TEST

START_TEST(ini_fully_connected_one_hop)
{
    g_autoptr(weft_topo_t) t = load_text("fc.ini", "[cluster]\nkind=fully-connected\ngpus=5\n"
                                                   "link_bandwidth=100GB/s\nlink_latency=250ns\n");
    /* 5 GPUs: C(5,2) = 10 links = 20 edges; every pair 1 hop */
    ck_assert_uint_eq(weft_topo_n_edges(t), 20);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    const weft_route_t *r = route_gpus(f, 1, 4);
    ck_assert_uint_eq(r->hops, 1);
    ck_assert_int_eq(r->latency_ps, 250 * NS);
    ck_assert(r->rate_Bps == 100e9);
}
END_TEST

START_TEST(ini_dgx_h100_sprays_over_four_nvswitches)
{
    g_autoptr(weft_topo_t) t = load_text("dgx.ini", "[cluster]\nkind = dgx-h100\n");
    /* 8 GPUs + 4 NVSwitches; 8 x 4 links = 32 links = 64 edges */
    ck_assert_uint_eq(weft_topo_n_gpus(t), 8);
    ck_assert_uint_eq(weft_topo_n_vertices(t), 12);
    ck_assert_uint_eq(weft_topo_n_edges(t), 64);
    gint g3 = weft_topo_find_vertex(t, "node0/gpu3");
    ck_assert_int_eq(g3, weft_topo_gpu_vertex(t, 3));
    ck_assert_int_eq(weft_topo_vertex_rail(t, g3), 3);
    ck_assert_int_eq(weft_topo_vertex_host(t, g3), 0);

    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    const weft_route_t *r = route_gpus(f, 0, 1);
    /* four planes gpu0 -> nvswitch_k -> gpu1; a plane's bottleneck is lanes_k x 25 GB/s */
    ck_assert_uint_eq(r->n_paths, 4);
    ck_assert_uint_eq(r->hops, 2);
    guint lanes_total = 0;
    for (guint p = 0; p < 4; p++) {
        gint e0 = r->edges[r->path_off[p]];
        guint lanes = weft_topo_edge_lanes(t, e0);
        lanes_total += lanes;
        ck_assert(lanes == 4 || lanes == 5);
        ck_assert_int_eq(weft_topo_edge_kind(t, e0), WEFT_LINK_NVLINK);
        ck_assert(weft_topo_edge_bw(t, e0) == lanes * 25e9);
        /* share = lanes x 25 / 450 = lanes / 18: 5/18, 4/18, 4/18, 5/18 */
        ck_assert_double_eq_tol(r->share[p], lanes / 18.0, 1e-12);
        ck_assert_int_eq(weft_topo_vertex_kind(t, weft_topo_edge_to(t, e0)), WEFT_VERTEX_NVSWITCH);
    }
    /* 5 + 4 + 4 + 5 = 18 NVLink4 links per GPU */
    ck_assert_uint_eq(lanes_total, 18);
    ck_assert_double_eq_tol(share_sum(r), 1.0, 1e-12);
    /* rate = 125 + 100 + 100 + 125 GB/s = 450e9 B/s */
    ck_assert_double_eq_tol(r->rate_Bps, 450e9, 1.0);
    /* latency = 2 hops x default nvlink_latency 300 ns (NCCL's 0.6 us LL hop over two
     * links, topo_build.c NVLINK_LATENCY) = 600 ns */
    ck_assert_int_eq(r->latency_ps, 2 * 300 * NS);
}
END_TEST

START_TEST(ini_dgx_h100_nvlink_latency_override)
{
    g_autoptr(weft_topo_t) t =
        load_text("dgx2.ini", "[cluster]\nkind = dgx-h100\nnodes = 1\nnvlink_latency = 0.2us\n");
    /* 2 x 200 ns */
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    ck_assert_int_eq(route_gpus(f, 7, 2)->latency_ps, 400 * NS);
}
END_TEST

START_TEST(ini_bundled_topologies_load)
{
    const char *src = g_getenv("WEFT_SRCDIR");
    if (src == NULL) {
        printf("ini_bundled_topologies_load: skipped (WEFT_SRCDIR not set)\n");
        return;
    }
    static const struct {
        const char *file;
        guint gpus, vertices;
        double rate_0_1; /* route gpu0 -> gpu1, bytes/s */
        weft_time_t lat_0_1;
    } cases[] = {
        /* 4 planes of 125+100+100+125 GB/s, 2 x 300 ns (nvlink_latency = 300ns) */
        {"dgx-h100.ini", 8, 12, 450e9, 600 * NS},
        /* neighbours on the ring: 1 hop of 50 GB/s, 500 ns */
        {"ring-8.ini", 8, 8, 50.0 * 1073741824.0, 500 * NS}, /* 50 GiB/s */
        /* through the switch: 400 GiB/s, 2 x 936.25 ns */
        {"switch-8.ini", 8, 9, 400 * GIB, 1872500},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *path = g_build_filename(src, "topologies", cases[i].file, NULL);
        g_autoptr(GError) err = NULL;
        g_autoptr(weft_topo_t) t = weft_topo_load(path, &err);
        ck_assert_msg(t != NULL, "%s: %s", path, err ? err->message : "?");
        ck_assert_uint_eq(weft_topo_n_gpus(t), cases[i].gpus);
        ck_assert_uint_eq(weft_topo_n_vertices(t), cases[i].vertices);
        g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
        const weft_route_t *r = route_gpus(f, 0, 1);
        ck_assert_double_eq_tol(r->rate_Bps, cases[i].rate_0_1, 1.0);
        ck_assert_int_eq(r->latency_ps, cases[i].lat_0_1);
    }
}
END_TEST

/* Fabric switches of @t with the SHARP feature, and fabric switches (tier >= 1) in all. */
static guint
count_sharp(const weft_topo_t *t, guint *fabric_switches)
{
    guint n = 0, all = 0;
    for (guint v = 0; v < weft_topo_n_vertices(t); v++) {
        if (weft_topo_vertex_kind(t, (gint)v) != WEFT_VERTEX_SWITCH) {
            continue;
        }
        all += weft_topo_vertex_tier(t, (gint)v) >= 1 ? 1 : 0;
        n += (weft_topo_vertex_features(t, (gint)v) & WEFT_TOPO_FEATURE_SHARP) ? 1 : 0;
    }
    *fabric_switches = all;
    return n;
}

START_TEST(ini_sharp_is_a_cluster_property_default_off)
{
    /* Two DGX H100 nodes on a rail-optimized NDR fabric: 8 rails, one 64-port leaf per rail
     * (2 nodes fit one scalable unit) and 4 spines (`weft topo show`: tier 1 leaf 8
     * switches, tier 2 spine 4): 12 fabric switches. NCCL runs CollNet only
     * with NCCL_COLLNET_ENABLE=1, so SHARP is off unless the file says sharp = true. */
    const char *base = "[cluster]\nkind = dgx-h100\nnodes = 2\nfabric = rail-optimized\n";
    static const struct {
        const char *line;
        guint sharp; /* switches with SHARP */
    } cases[] = {{"", 0}, {"sharp = false\n", 0}, {"sharp = true\n", 12}, {"sharp = 1\n", 12}};
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *text = g_strconcat(base, cases[i].line, NULL);
        g_autoptr(weft_topo_t) t = load_text("sharp.ini", text);
        guint fabric = 0;
        ck_assert_uint_eq(count_sharp(t, &fabric), cases[i].sharp);
        ck_assert_uint_eq(fabric, 12);
    }
    /* HDR (200 Gb/s, Quantum) is the slowest InfiniBand that reduces: the DGX A100's NIC. */
    g_autoptr(weft_topo_t) a =
        load_text("sharp-hdr.ini",
                  "[cluster]\nkind = dgx-a100\nnodes = 2\nfabric = leaf-spine\nsharp = true\n");
    guint fabric = 0;
    guint n = count_sharp(a, &fabric);
    ck_assert_uint_gt(fabric, 0);
    ck_assert_uint_eq(n, fabric);
}
END_TEST

START_TEST(ini_sharp_on_a_fabric_that_cannot_reduce_is_an_error)
{
    const char *base = "[cluster]\nkind = dgx-h100\nnodes = 2\nfabric = rail-optimized\n";
    static const struct {
        const char *lines;
        gint code;
    } cases[] = {
        /* not a boolean */
        {"sharp = maybe\n", WEFT_TOPO_ERROR_VALUE},
        /* Ethernet (RoCE) and EFA switches do not reduce */
        {"nic = roce-400\nswitch_radix = 64\nsharp = true\n", WEFT_TOPO_ERROR_VALUE},
        {"nic = efa\nnics_per_gpu = 4\nswitch_radix = 64\nsharp = true\n", WEFT_TOPO_ERROR_VALUE},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *text = g_strconcat(base, cases[i].lines, NULL);
        expect_load_error("bad-sharp.ini", text, cases[i].code);
    }
    /* one node, no fabric: the key does not apply */
    expect_load_error("sharp-none.ini", "[cluster]\nkind = dgx-h100\nsharp = true\n",
                      WEFT_TOPO_ERROR_KEY);
    /* the message names the key, the value and why */
    g_autofree char *path = write_file(
        "sharp-roce.ini", "[cluster]\nkind = dgx-h100\nnodes = 2\nfabric = rail-optimized\n"
                          "nic = roce-400\nswitch_radix = 64\nsharp = true\n");
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_topo_t) t = weft_topo_load(path, &err);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(strstr(err->message, "sharp = true"));
    ck_assert_ptr_nonnull(strstr(err->message, "InfiniBand"));
}
END_TEST

START_TEST(ini_node_kind_records_its_gpu_model)
{
    /* dgx-a100 records the A100 on every GPU; gpu = h200 on dgx-h100 (the p5e chassis)
     * records H200; an abstract switch of GPUs records none (no error). */
    g_autoptr(weft_topo_t) a = load_text("a100.ini", "[cluster]\nkind = dgx-a100\n");
    g_autoptr(GError) err = NULL;
    const weft_hw_gpu_t *m = weft_topo_gpu_model(a, &err);
    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(m->name, "A100-SXM-80GB");
    ck_assert_ptr_eq(weft_topo_vertex_gpu_model(a, weft_topo_gpu_vertex(a, 7)), m);
    g_autoptr(weft_topo_t) h = load_text("h200.ini", "[cluster]\nkind = dgx-h100\ngpu = h200\n");
    ck_assert_str_eq(weft_topo_gpu_model(h, NULL)->name, "H200-SXM");
    g_autoptr(weft_topo_t) s = load_text(
        "sw.ini", "[cluster]\nkind = switch\ngpus = 4\nlink_bandwidth = 50GB/s\nlink_latency = 1us\n");
    ck_assert_ptr_null(weft_topo_gpu_model(s, &err));
    ck_assert_ptr_null(err);
    /* GraphML keeps it */
    g_autofree char *path = g_build_filename(tmpdir, "a100.graphml", NULL);
    ck_assert_msg(weft_topo_write_graphml(a, path, &err), "%s", err ? err->message : "");
    g_autoptr(weft_topo_t) back = weft_topo_load(path, &err);
    ck_assert_msg(back != NULL, "%s", err ? err->message : "");
    ck_assert_ptr_eq(weft_topo_gpu_model(back, NULL), m);
    ck_assert(weft_topo_equal(a, back, NULL));
}
END_TEST

/* _i selects one bad file and the code it must give. */
static const struct {
    const char *name;
    const char *text;
    gint code;
} bad_ini[] = {
    {"unknown-kind.ini", "[cluster]\nkind = torus\ngpus = 4\n", WEFT_TOPO_ERROR_KEY},
    {"unknown-key.ini",
     "[cluster]\nkind = ring\ngpus = 4\nlink_bandwidth = 50GB/s\nlink_latency = 1us\n"
     "link_bandwith = 50GB/s\n",
     WEFT_TOPO_ERROR_KEY},
    {"unknown-group.ini",
     "[cluster]\nkind = ring\ngpus = 4\nlink_bandwidth = 50GB/s\nlink_latency = 1us\n[net]\n"
     "x = 1\n",
     WEFT_TOPO_ERROR_KEY},
    {"missing-kind.ini", "[cluster]\ngpus = 4\n", WEFT_TOPO_ERROR_KEY},
    {"missing-group.ini", "# nothing\n", WEFT_TOPO_ERROR_KEY},
    {"missing-key.ini", "[cluster]\nkind = ring\ngpus = 4\nlink_latency = 1us\n",
     WEFT_TOPO_ERROR_KEY},
    {"bare-bandwidth.ini",
     "[cluster]\nkind = ring\ngpus = 4\nlink_bandwidth = 50\nlink_latency = 1us\n",
     WEFT_TOPO_ERROR_PARSE},
    {"bare-latency.ini",
     "[cluster]\nkind = switch\ngpus = 4\nlink_bandwidth = 50GB/s\nlink_latency = 500\n",
     WEFT_TOPO_ERROR_PARSE},
    {"count-with-unit.ini",
     "[cluster]\nkind = switch\ngpus = 4GB\nlink_bandwidth = 50GB/s\nlink_latency = 1us\n",
     WEFT_TOPO_ERROR_PARSE},
    {"fractional-gpus.ini",
     "[cluster]\nkind = switch\ngpus = 2.5\nlink_bandwidth = 50GB/s\nlink_latency = 1us\n",
     WEFT_TOPO_ERROR_PARSE},
    {"zero-bandwidth.ini",
     "[cluster]\nkind = ring\ngpus = 4\nlink_bandwidth = 0GB/s\nlink_latency = 1us\n",
     WEFT_TOPO_ERROR_VALUE},
    {"negative-bandwidth.ini",
     "[cluster]\nkind = ring\ngpus = 4\nlink_bandwidth = -50GB/s\nlink_latency = 1us\n",
     WEFT_TOPO_ERROR_VALUE},
    {"zero-gpus.ini",
     "[cluster]\nkind = fully-connected\ngpus = 0\nlink_bandwidth = 5GB/s\nlink_latency = 1us\n",
     WEFT_TOPO_ERROR_VALUE},
    {"dgx-nodes.ini", "[cluster]\nkind = dgx-h100\nnodes = 4\n", WEFT_TOPO_ERROR_VALUE},
    {"dgx-foreign-key.ini", "[cluster]\nkind = dgx-h100\ngpus = 8\n", WEFT_TOPO_ERROR_KEY},
    {"not-ini.ini", "this is not [an ini file\n", WEFT_TOPO_ERROR_PARSE},
};

START_TEST(ini_bad_file_gives_its_error_code)
{
    expect_load_error(bad_ini[_i].name, bad_ini[_i].text, bad_ini[_i].code);
}
END_TEST

START_TEST(load_missing_file_is_io_error)
{
    g_autofree char *path = g_build_filename(tmpdir, "absent.ini", NULL);
    g_autoptr(GError) err = NULL;
    ck_assert_ptr_null(weft_topo_load(path, &err));
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_IO));
    g_autofree char *ypath = g_build_filename(tmpdir, "absent.yml", NULL);
    g_autoptr(GError) yerr = NULL;
    ck_assert_ptr_null(weft_topo_load(ypath, &yerr));
    ck_assert(g_error_matches(yerr, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_IO));
}
END_TEST

/* ---- ASTRA-sim YAML ------------------------------------------------------------ */

START_TEST(yaml_switch_switch_8x4)
{
    /* demo2/inputs/DGX_H100-32.yml, written out so it runs without $WEFT_SHARED */
    g_autoptr(weft_topo_t) t = load_text("dgx32.yml", "topology: [ Switch, Switch ]\n"
                                                      "npus_count: [ 8, 4 ]\n"
                                                      "bandwidth: [ 450, 50.0 ]  # GB/s\n"
                                                      "latency: [ 500.0, 500.0 ]  # ns\n");
    /* 8 x 4 = 32 GPUs; dimension 0: 32/8 = 4 groups, one switch each; dimension 1: 32/4 = 8
     * groups, one switch each: 32 + 4 + 8 = 44 vertices; 32 + 32 links = 128 edges */
    ck_assert_uint_eq(weft_topo_n_gpus(t), 32);
    ck_assert_uint_eq(weft_topo_n_vertices(t), 44);
    ck_assert_uint_eq(weft_topo_n_edges(t), 128);
    /* gpu0 -> gpu1 share x1 = 0: dim-0 switch, 2 x 500 ns, 450 GiB/s */
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    const weft_route_t *r = route_gpus(f, 0, 1);
    ck_assert_uint_eq(r->hops, 2);
    ck_assert_int_eq(r->latency_ps, 1000 * NS);
    ck_assert_double_eq_tol(r->rate_Bps, 450 * GIB, 1.0);
    /* gpu0 -> gpu8: x = (0,0) -> (0,1): dim-1 switch, 50 GiB/s */
    r = route_gpus(f, 0, 8);
    ck_assert_uint_eq(r->hops, 2);
    ck_assert_double_eq_tol(r->rate_Bps, 50 * GIB, 1.0);
    /* gpu0 -> gpu9: x = (0,0) -> (1,1): 4 hops, 4 x 500 ns, bottleneck 50 GiB/s, one path */
    r = route_gpus(f, 0, 9);
    ck_assert_uint_eq(r->hops, 4);
    ck_assert_uint_eq(r->n_paths, 1);
    ck_assert_int_eq(r->latency_ps, 2000 * NS);
    ck_assert_double_eq_tol(r->rate_Bps, 50 * GIB, 1.0);
}
END_TEST

START_TEST(yaml_ring_by_fully_connected_block_structure)
{
    g_autoptr(weft_topo_t) t = load_text("rf.yaml", "topology:\n  - Ring\n  - FullyConnected\n"
                                                    "npus_count: [4, 3]\n"
                                                    "bandwidth: [100, 25]\nlatency: [10, 0]\n");
    /* 12 GPUs; Ring dim 0: 3 rings x 4 links; FC dim 1: 4 cliques x C(3,2) = 3 links;
     * 24 links = 48 edges, no switch vertices */
    ck_assert_uint_eq(weft_topo_n_vertices(t), 12);
    ck_assert_uint_eq(weft_topo_n_edges(t), 48);
    /* rank 5 = (1, 1), rank 9 = (1, 2): same x0, dim-1 neighbours in a clique: 1 hop */
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    const weft_route_t *r = route_gpus(f, 5, 9);
    ck_assert_uint_eq(r->hops, 1);
    ck_assert_double_eq_tol(r->rate_Bps, 25 * GIB, 1.0);
    ck_assert_int_eq(r->latency_ps, 0);
    /* rank 4 = (0,1) and 7 = (3,1) are ring neighbours (wrap-around): 1 hop of 10 ns */
    r = route_gpus(f, 4, 7);
    ck_assert_uint_eq(r->hops, 1);
    ck_assert_int_eq(r->latency_ps, 10 * NS);
    /* rank 0 -> rank 2: opposite on a 4-ring: 2 hops */
    ck_assert_uint_eq(route_gpus(f, 0, 2)->hops, 2);
}
END_TEST

START_TEST(yaml_chosen_by_content_without_extension)
{
    /* no .yml suffix: the first significant line "topology:" selects YAML */
    g_autoptr(weft_topo_t) t = load_text("net.cfg", "# ASTRA-sim network\n\ntopology: [ Ring ]\n"
                                                    "npus_count: [ 2 ]\nbandwidth: [ 1 ]\n"
                                                    "latency: [ 1 ]\n");
    /* Ring of 2: one link = 2 edges */
    ck_assert_uint_eq(weft_topo_n_edges(t), 2);
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    ck_assert_double_eq_tol(route_gpus(f, 0, 1)->rate_Bps, GIB, 1e-3);
}
END_TEST

static const struct {
    const char *name;
    const char *text;
    gint code;
} bad_yaml[] = {
    {"len.yml",
     "topology: [Ring, Switch]\nnpus_count: [4, 2]\nbandwidth: [50]\n"
     "latency: [500, 500]\n",
     WEFT_TOPO_ERROR_VALUE},
    {"name.yml", "topology: [Torus]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n",
     WEFT_TOPO_ERROR_KEY},
    {"zero-bw.yml", "topology: [Ring]\nnpus_count: [4]\nbandwidth: [0]\nlatency: [500]\n",
     WEFT_TOPO_ERROR_VALUE},
    {"neg-bw.yml", "topology: [Ring]\nnpus_count: [4]\nbandwidth: [-5]\nlatency: [500]\n",
     WEFT_TOPO_ERROR_VALUE},
    /* 1e300 GB/s is finite, 1e309 bytes/s is not: refused here, with the file and key */
    {"huge-bw.yml", "topology: [Ring]\nnpus_count: [4]\nbandwidth: [1e300]\nlatency: [500]\n",
     WEFT_TOPO_ERROR_VALUE},
    {"zero-npus.yml", "topology: [Ring]\nnpus_count: [0]\nbandwidth: [5]\nlatency: [500]\n",
     WEFT_TOPO_ERROR_VALUE},
    {"neg-lat.yml", "topology: [Ring]\nnpus_count: [4]\nbandwidth: [5]\nlatency: [-1]\n",
     WEFT_TOPO_ERROR_VALUE},
    {"tbd.yml", "topology: [Ring]\nnpus_count: [4]\nbandwidth: [tbd]\nlatency: [500]\n",
     WEFT_TOPO_ERROR_PARSE},
    {"key.yml", "topology: [Ring]\nnpus_count: [4]\nbandwidth: [5]\nlatency: [5]\nfoo: [1]\n",
     WEFT_TOPO_ERROR_KEY},
    {"missing.yml", "topology: [Ring]\nnpus_count: [4]\nbandwidth: [5]\n", WEFT_TOPO_ERROR_KEY},
    {"syntax.yml", "topology: [Ring\nnpus_count: [4]\n", WEFT_TOPO_ERROR_PARSE},
    /* issue 19, item 4: one clique limit with the INI's fully-connected kind, checked before
     * any link is made: 4097 NPUs (666666 used to build n^2 links until the allocator
     * aborted), and 16384 cliques of 64, 16384 x 64 x 63 / 2 = 33,030,144 links > 8,386,560 */
    {"clique.yml",
     "topology: [FullyConnected]\nnpus_count: [4097]\nbandwidth: [5]\nlatency: [5]\n",
     WEFT_TOPO_ERROR_VALUE},
    {"clique-huge.yml",
     "topology: [FullyConnected]\nnpus_count: [666666]\nbandwidth: [5]\nlatency: [5]\n",
     WEFT_TOPO_ERROR_VALUE},
    {"links.yml",
     "topology: [FullyConnected, Ring]\nnpus_count: [64, 16384]\nbandwidth: [5, 5]\n"
     "latency: [5, 5]\n",
     WEFT_TOPO_ERROR_VALUE},
};

START_TEST(yaml_bad_file_gives_its_error_code)
{
    expect_load_error(bad_yaml[_i].name, bad_yaml[_i].text, bad_yaml[_i].code);
}
END_TEST

/* ---- real ASTRA-sim files ------------------------------------------------------ */

/* Every ASTRA-sim network YAML under the shared data directory loads as it is. */
START_TEST(real_astra_sim_network_files_load)
{
    const char *shared = g_getenv("WEFT_SHARED");
    g_autofree char *data = shared ? g_build_filename(shared, "data", NULL) : NULL;
    if (data == NULL || !g_file_test(data, G_FILE_TEST_IS_DIR)) {
        printf("real_astra_sim_network_files_load: skipped (WEFT_SHARED data dir absent)\n");
        return;
    }
    static const struct {
        const char *file;
        guint gpus;     /* product of npus_count */
        guint vertices; /* GPUs + one switch per Switch group */
    } cases[] = {
        {"astra-sim-examples/examples/network/analytical/HGX-H100-validated.yml", 8, 9},
        {"astra-sim-examples/examples/network/analytical/Ring_16npus.yml", 16, 16},
        {"astra-sim-examples/examples/network/analytical/Ring_4npus.yml", 4, 4},
        {"astra-sim-examples/examples/network/analytical/Ring_8npus.yml", 8, 8},
        {"astra-sim-examples/inputs/network/dgx_v100_4gpu.yml", 4, 4},
        /* [Switch, Ring] x [8, 2]: 16 + 2 dim-0 switches */
        {"astra-sim-examples/inputs/network/hgx_h100_16gpu.yml", 16, 18},
        {"astra-sim-examples/inputs/network/hgx_h100_2gpu.yml", 2, 3},
        /* [Switch, Ring] x [8, 4]: 32 + 4 */
        {"astra-sim-examples/inputs/network/hgx_h100_32gpu.yml", 32, 36},
        {"astra-sim-examples/inputs/network/hgx_h100_4gpu.yml", 4, 5},
        {"astra-sim-examples/inputs/network/hgx_h100_8gpu.yml", 8, 9},
        {"astra-sim-examples/inputs/network/tpu_v3_32_2dtorus.yml", 32, 32},
        {"astra-sim-examples/inputs/network/tpu_v3_32_ring.yml", 32, 32},
        {"astra-sim-examples/inputs/network/tpu_v3_8.yml", 8, 8},
        {"astra-sim-examples/tests/rt_template/inputs/network_cfg.yml", 8, 8},
        /* [Switch, Switch] x [8, 4]: 32 + 4 + 8 */
        {"astra-sim-tutorials/micro2024/astra-sim-demo/demo2/inputs/DGX_H100-32.yml", 32, 44},
        {"astra-sim-tutorials/micro2024/astra-sim-demo/demo2/inputs/TPUv4-32.yml", 32, 32},
    };
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *path = g_build_filename(data, cases[i].file, NULL);
        g_autoptr(GError) err = NULL;
        g_autoptr(weft_topo_t) t = weft_topo_load(path, &err);
        ck_assert_msg(t != NULL, "%s: %s", cases[i].file, err ? err->message : "?");
        ck_assert_uint_eq(weft_topo_n_gpus(t), cases[i].gpus);
        ck_assert_uint_eq(weft_topo_n_vertices(t), cases[i].vertices);
        /* every GPU pair is routable: check the farthest rank from 0 */
        g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
        ck_assert(route_gpus(f, 0, cases[i].gpus - 1)->rate_Bps > 0);
    }
}
END_TEST

/*
 * dgx_v100_8gpu.yml is an unfinished upstream template: its bandwidth and
 * latency lists read "tbd". It must fail cleanly, naming the value, not load
 * with invented numbers.
 */
START_TEST(real_astra_sim_template_with_tbd_is_parse_error)
{
    const char *shared = g_getenv("WEFT_SHARED");
    g_autofree char *path = shared
                                ? g_build_filename(shared, "data", "astra-sim-examples", "inputs",
                                                   "network", "dgx_v100_8gpu.yml", NULL)
                                : NULL;
    if (path == NULL || !g_file_test(path, G_FILE_TEST_EXISTS)) {
        printf("real_astra_sim_template_with_tbd_is_parse_error: skipped (WEFT_SHARED absent)\n");
        return;
    }
    g_autoptr(GError) err = NULL;
    ck_assert_ptr_null(weft_topo_load(path, &err));
    ck_assert(g_error_matches(err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE));
}
END_TEST

static Suite *
topo_suite(void)
{
    Suite *s = suite_create("topo");

    TCase *tc = tcase_create("api");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_add_test(tc, api_gpu_numbers_follow_order_of_addition);
    tcase_add_test(tc, api_duplicate_name_is_graph_error);
    tcase_add_test(tc, api_self_loop_is_graph_error);
    tcase_add_test(tc, api_unknown_vertex_is_graph_error);
    tcase_add_loop_test(tc, api_bad_link_values_are_value_errors, 0, 6);
    tcase_add_test(tc, api_disconnected_gpu_fails_finalize);
    tcase_add_test(tc, api_no_gpu_fails_finalize);
    suite_add_tcase(s, tc);

    tc = tcase_create("route");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_add_test(tc, route_to_self_is_empty);
    tcase_add_test(tc, route_to_unreachable_switch_is_no_route);
    tcase_add_test(tc, route_is_cached_per_pair);
    tcase_add_test(tc, route_over_plain_switches_takes_one_path);
    tcase_add_test(tc, route_mixed_nvswitch_and_switch_takes_one_path);
    tcase_add_test(tc, route_sprays_over_nvswitch_planes_by_bottleneck);
    suite_add_tcase(s, tc);

    tc = tcase_create("ini");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_add_test(tc, ini_ring4_two_hops_to_opposite_gpu);
    tcase_add_test(tc, ini_ring2_has_one_link);
    tcase_add_test(tc, ini_switch8_two_hops);
    tcase_add_test(tc, ini_fully_connected_one_hop);
    tcase_add_test(tc, ini_dgx_h100_sprays_over_four_nvswitches);
    tcase_add_test(tc, ini_dgx_h100_nvlink_latency_override);
    tcase_add_test(tc, ini_bundled_topologies_load);
    tcase_add_test(tc, ini_sharp_is_a_cluster_property_default_off);
    tcase_add_test(tc, ini_node_kind_records_its_gpu_model);
    tcase_add_test(tc, ini_sharp_on_a_fabric_that_cannot_reduce_is_an_error);
    tcase_add_loop_test(tc, ini_bad_file_gives_its_error_code, 0, G_N_ELEMENTS(bad_ini));
    tcase_add_test(tc, load_missing_file_is_io_error);
    suite_add_tcase(s, tc);

    tc = tcase_create("yaml");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_add_test(tc, yaml_switch_switch_8x4);
    tcase_add_test(tc, yaml_ring_by_fully_connected_block_structure);
    tcase_add_test(tc, yaml_chosen_by_content_without_extension);
    tcase_add_loop_test(tc, yaml_bad_file_gives_its_error_code, 0, G_N_ELEMENTS(bad_yaml));
    tcase_add_test(tc, real_astra_sim_network_files_load);
    tcase_add_test(tc, real_astra_sim_template_with_tbd_is_parse_error);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(topo_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
