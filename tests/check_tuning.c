/* SPDX-License-Identifier: MIT */
/*
 * Tests of coll/tuning: NCCL 2.20.3's tuning model restated (tables derived by
 * hand from tuning.cc's constants for a DGX H100 node and two p5 nodes), the
 * choice of algorithm, protocol and channels by size and node count, forced
 * and refused choices, monotonic predictions; then the validation against the
 * published nccl-tests measurements in $WEFT_SHARED/validation (skipped when
 * WEFT_SHARED is absent), which prints the whole table predicted beside
 * measured; and the planner (coll/planner.h): its plans are those of the four
 * steps done by hand, cached, shared by shape, and its errors not cached.
 */
#include "coll/tuning.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/planner.h"
#include "coll/tuner_ofi.h"
#include "core/sim.h"
#include "hw/hw.h"
#include "net/net.h"
#include "topo/topo.h"
#include "testutil.h"

#define US 1000000.0 /* ps per us */

/* A DGX H100 node as NCCL sees it (by hand, see the derivation in each test). */
static void
sys_dgx_h100(weft_coll_system_t *s, gboolean nvls)
{
    memset(s, 0, sizeof *s);
    s->n_ranks = 8;
    s->n_nodes = 1;
    s->ppn = 8;
    s->arch = 90;
    s->nvlink = TRUE;
    s->intra_GBps = 18 * 20.6; /* 18 NVLink4 links x SM90_NVLINK_BW = 370.8 */
    s->nvls = nvls;
    s->intra_phys_GBps = 450.0;
    /* ring and tree graphs: 6 x 60 GB/s duplicated to 12 x 30; NVLS 8 x 40 */
    s->graph[WEFT_NCCL_RING] = (weft_coll_graph_t){12, 30.0, 30.0};
    s->graph[WEFT_NCCL_TREE] = (weft_coll_graph_t){12, 30.0, 30.0};
    if (nvls) {
        s->graph[WEFT_NCCL_NVLS] = (weft_coll_graph_t){8, 40.0, 40.0};
        s->graph[WEFT_NCCL_NVLS_TREE] = s->graph[WEFT_NCCL_NVLS];
    }
    weft_coll_system_fill_tables(s);
}

/* Two p5 nodes (16 H100, 50 GB/s of EFA per GPU, AMD hosts). */
static void
sys_p5(weft_coll_system_t *s)
{
    memset(s, 0, sizeof *s);
    s->n_ranks = 16;
    s->n_nodes = 2;
    s->ppn = 8;
    s->arch = 90;
    s->nvlink = TRUE;
    s->intra_GBps = 370.8;
    s->net_GBps = 50.0;
    s->nvls = TRUE;
    s->cpu = WEFT_COLL_CPU_AMD;
    s->intra_phys_GBps = 450.0;
    s->net_phys_GBps = 50.0;
    s->graph[WEFT_NCCL_RING] = (weft_coll_graph_t){8, 48.0, 48.0};
    s->graph[WEFT_NCCL_TREE] = (weft_coll_graph_t){8, 48.0, 48.0};
    s->graph[WEFT_NCCL_NVLS] = (weft_coll_graph_t){8, 40.0, 48.0};
    s->graph[WEFT_NCCL_NVLS_TREE] = s->graph[WEFT_NCCL_NVLS];
    weft_coll_system_fill_tables(s);
}

enum { F_AR = 4, F_AG = 2 }; /* NCCL's function indexes (ncclFuncAllReduce, AllGather) */
enum { LL, LL128, SIMPLE };

static char *
topo_path(const char *file)
{
    const char *src = g_getenv("WEFT_SRCDIR");
    return g_build_filename(src != NULL ? src : ".", "topologies", file, NULL);
}

/* A layout filled by hand (members = every GPU, in order), enough for system_init. */
typedef struct {
    weft_coll_layout_t l;
    gint vertex[64], domain[64], host[64], rail[64];
} hand_layout_t;

static void
hand_layout(weft_fabric_t *f, hand_layout_t *h)
{
    const weft_topo_t *t = weft_fabric_topo(f);
    memset(h, 0, sizeof *h);
    guint n = weft_topo_n_gpus(t);
    ck_assert_uint_le(n, 64);
    guint per[64] = {0};
    for (guint g = 0; g < n; g++) {
        h->vertex[g] = weft_topo_gpu_vertex(t, g);
        h->domain[g] = weft_topo_vertex_domain(t, h->vertex[g]);
        h->host[g] = weft_topo_vertex_host(t, h->vertex[g]);
        h->rail[g] = weft_topo_vertex_rail(t, h->vertex[g]);
        per[h->domain[g]]++;
    }
    h->l.n_members = n;
    h->l.vertex = h->vertex;
    h->l.domain = h->domain;
    h->l.host = h->host;
    h->l.rail = h->rail;
    h->l.n_domains = weft_topo_n_domains(t);
    for (guint d = 0; d < h->l.n_domains; d++) {
        h->l.max_per_domain = MAX(h->l.max_per_domain, per[d]);
    }
    /* NVLS as the cluster's own layout finds it (every member reaches an NVLS chip) */
    g_autoptr(weft_coll_layout_t) real = weft_coll_layout_new(f, h->vertex, n);
    h->l.nvls = real->nvls;
    h->l.uniform = real->uniform;
}

/* ---- NCCL's tables ------------------------------------------------------------------ */

START_TEST(dgx_h100_graphs_follow_nccl_search)
{
    g_autofree char *path = topo_path("dgx-h100.ini");
    g_autoptr(GError) error = NULL;
    weft_topo_t *t = weft_topo_load(path, &error);
    ck_assert_ptr_nonnull(t);
    weft_fabric_t *f = weft_fabric_new(t);
    hand_layout_t h;
    hand_layout(f, &h);
    weft_coll_system_t s;
    ck_assert(weft_coll_system_init(&s, f, &h.l, NULL, &error));
    /* 18 NVLink lanes of 25 GB/s: Hopper; NCCL counts 18 x 20.6 = 370.8 GB/s. */
    ck_assert_uint_eq(s.arch, 90);
    ck_assert_double_eq_tol(s.intra_GBps, 370.8, 1e-9);
    ck_assert_double_eq_tol(s.intra_phys_GBps, 450.0, 1e-9);
    ck_assert(s.nvls);
    /* Ring: speeds 60 (6 ch = 360), 50 (7 = 350), 40 (9 = 360, not better), 30 (12 = 360),
     * stop at 24 (24/60 < .49): 6 x 60, duplicated to 12 x 30. */
    ck_assert_uint_eq(s.graph[WEFT_NCCL_RING].channels, 12);
    ck_assert_double_eq_tol(s.graph[WEFT_NCCL_RING].bw_intra, 30.0, 1e-9);
    /* NVLS: 8 heads, (8 + 1) x s <= 370.8 -> s = 40 (sm90 intra speeds 60, 50, 40). */
    ck_assert_uint_eq(s.graph[WEFT_NCCL_NVLS].channels, 8);
    ck_assert_double_eq_tol(s.graph[WEFT_NCCL_NVLS].bw_intra, 40.0, 1e-9);
    /* comm->nChannels = 2 x min(12, 12) = 24 (NCCL logs "24 coll channels" on DGX H100). */
    ck_assert_uint_eq(s.coll_channels, 24);
    ck_assert_uint_eq(s.n_nodes, 1);
    ck_assert_double_eq_tol(s.net_GBps, 0.0, 1e-12);
    weft_fabric_free(f);
    weft_topo_free(t);
}
END_TEST

/* The system of every GPU of @file (a single NVLink domain). */
static void
whole_cluster_system(const char *file, weft_coll_system_t *s)
{
    g_autofree char *path = topo_path(file);
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_topo_t) t = weft_topo_load(path, &error);
    ck_assert_msg(t != NULL, "%s", error != NULL ? error->message : "?");
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    guint n = weft_topo_n_gpus(t);
    g_autofree gint *v = g_new(gint, n);
    for (guint i = 0; i < n; i++) {
        v[i] = weft_topo_gpu_vertex(t, i);
    }
    g_autoptr(weft_coll_layout_t) L = weft_coll_layout_new(f, v, n);
    ck_assert(weft_coll_system_init(s, f, L, NULL, &error));
}

START_TEST(blackwell_graphs_follow_nccl_2_25_search)
{
    /* NCCL 2.25.1, the first release with Blackwell (v2.25.1-1): SM100_NVLINK_BW 40.0
     * (topo.h), sm100SpeedArrayIntra 90, 80, 70, 60, 50, 40, 30, 24, 20, 19 (search.cc),
     * MAXCHANNELS 64 (device.h), NVLS_NCHANNELS_SM100 32 (nvls.cc), NCCL_MAX_NVLS_ARITY 32. */
    weft_coll_system_t s;
    whole_cluster_system("dgx-b200.ini", &s);
    /* 18 NVLink5 lanes of 50 GB/s: NCCL counts 18 x 40.0 = 720 GB/s. */
    ck_assert_uint_eq(s.arch, 100);
    ck_assert_double_eq_tol(s.intra_GBps, 720.0, 1e-9);
    /* Ring: 90 GB/s gives 720 / 90 = 8 channels (720 GB/s, NCCL's search stops there:
     * channels x speed reaches the GPU's total); duplicated (90 >= 50) to 16 x 45 = 720
     * GB/s, not sm90's 6 x 60 -> 16 x 30 = 480 (20.6 GB/s links: 370.8 / 60 = 6). */
    ck_assert_uint_eq(s.graph[WEFT_NCCL_RING].channels, 16);
    ck_assert_double_eq_tol(s.graph[WEFT_NCCL_RING].bw_intra, 45.0, 1e-9);
    ck_assert_uint_eq(s.coll_channels, 32); /* 2 x 16 */
    /* NVLS: 8 heads, (8 + 1) x s <= 720 -> s = 80. */
    ck_assert_uint_eq(s.graph[WEFT_NCCL_NVLS].channels, 8);
    ck_assert_double_eq_tol(s.graph[WEFT_NCCL_NVLS].bw_intra, 80.0, 1e-9);
    ck_assert_uint_eq(s.nvls_channels, 32);
    /* NCCL's ring all-reduce bandwidth: 16 x 45 x n / nsteps = 720 x 8 / 14 GB/s of
     * algorithm bandwidth, busbw 720. */
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_RING][SIMPLE], 720.0 * 8 / 14, 1e-9);

    whole_cluster_system("gb200-nvl72.ini", &s);
    ck_assert_uint_eq(s.n_ranks, 72);
    ck_assert_uint_eq(s.n_nodes, 1);
    ck_assert_uint_eq(s.arch, 100);
    ck_assert_uint_eq(s.graph[WEFT_NCCL_RING].channels, 16);
    ck_assert_double_eq_tol(s.graph[WEFT_NCCL_RING].bw_intra, 45.0, 1e-9);
    /* NVLS: min(32, 72) = 32 heads; every GPU's NVSwitch link carries s per head and its
     * own head twice: 33 s <= 720 -> s <= 21.8 -> 20 (not 72 heads x 6.0 from sm90's
     * array with a head per GPU). */
    ck_assert_uint_eq(s.graph[WEFT_NCCL_NVLS].channels, 32);
    ck_assert_double_eq_tol(s.graph[WEFT_NCCL_NVLS].bw_intra, 20.0, 1e-9);
    ck_assert_double_eq_tol(s.graph[WEFT_NCCL_NVLS].bw_inter, 20.0, 1e-9);
}
END_TEST

START_TEST(p5_graphs_follow_nccl_search)
{
    g_autofree char *path = topo_path("p5-h100-2node.ini");
    g_autoptr(GError) error = NULL;
    weft_topo_t *t = weft_topo_load(path, &error);
    ck_assert_ptr_nonnull(t);
    weft_fabric_t *f = weft_fabric_new(t);
    hand_layout_t h;
    hand_layout(f, &h);
    weft_coll_tuning_t tun = {0};
    tun.cpu = WEFT_COLL_CPU_AMD;
    weft_coll_system_t s;
    ck_assert(weft_coll_system_init(&s, f, &h.l, &tun, &error));
    ck_assert_uint_eq(s.n_nodes, 2);
    ck_assert_uint_eq(s.ppn, 8);
    /* 4 x 100 Gb/s EFA per GPU = 50 GB/s. */
    ck_assert_double_eq_tol(s.net_GBps, 50.0, 1e-9);
    /* Ring: max path bw 50 -> speed 48: one channel per NIC (8), NVLink 7/8 x 8 x 48 = 336
     * <= 370.8: 8 x 48 = 384; lower speeds never beat it (24: 16 x 24 = 384, equal); no
     * duplication on sm90 below 50 GB/s with > 4 channels. */
    ck_assert_uint_eq(s.graph[WEFT_NCCL_RING].channels, 8);
    ck_assert_double_eq_tol(s.graph[WEFT_NCCL_RING].bw_intra, 48.0, 1e-9);
    /* NVLS: 8 x 40 inside, inter raised to 48 (<= 2 x 40 and <= 50). */
    ck_assert_uint_eq(s.graph[WEFT_NCCL_NVLS].channels, 8);
    ck_assert_double_eq_tol(s.graph[WEFT_NCCL_NVLS].bw_intra, 40.0, 1e-9);
    ck_assert_double_eq_tol(s.graph[WEFT_NCCL_NVLS].bw_inter, 48.0, 1e-9);
    ck_assert_uint_eq(s.coll_channels, 16);
    weft_fabric_free(f);
    weft_topo_free(t);
}
END_TEST

START_TEST(dgx_h100_tables_restate_tuning_cc)
{
    weft_coll_system_t s;
    sys_dgx_h100(&s, TRUE);
    /* Ring all-reduce, busBw = 12 x 30 = 360, algbw = busBw x 8/14:
     * LL min(87.7, 360/4) = 87.7 -> 50.114; LL128 min(360 x .92, 12 x 36.7) = 331.2 ->
     * 189.26; Simple 360 -> 205.71. Latencies: 6.6 + 14 x .6 = 15.0; 14 + 14 x 1.9 = 40.6;
     * 8.4 + 14 x 3.4 = 56.0. */
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_RING][LL], 87.7 * 8 / 14, 1e-9);
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_RING][LL128], 331.2 * 8 / 14, 1e-9);
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_RING][SIMPLE], 360.0 * 8 / 14, 1e-9);
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_RING][LL], 15.0, 1e-9);
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_RING][LL128], 40.6, 1e-9);
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_RING][SIMPLE], 56.0, 1e-9);
    /* Tree: busBw min(360 x .92, 12 x 38.7) = 331.2; LL min(331.2/3.8, 87.7) x .5 = 43.58;
     * latency 6.8 + 2 x 7 x .6 = 15.2. */
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_TREE][LL], 331.2 / 3.8 * 0.5, 1e-9);
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_TREE][LL], 15.2, 1e-9);
    /* NVLS: 8 x 40 x 5/6 = 266.67, latency hwLat 23; no LL/LL128. */
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_NVLS][SIMPLE], 320.0 * 5 / 6, 1e-9);
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_NVLS][SIMPLE], 23.0, 1e-9);
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_NVLS][LL], 0.0, 1e-12);
    /* NVLS tree needs several nodes; CollNet needs SHARP. */
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_NVLS_TREE][SIMPLE], 0.0, 1e-12);
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_COLLNET_DIRECT][SIMPLE], 0.0, 1e-12);
    /* All-gather ring: nsteps 7, LL divides by 3 on one node: min(87.7, 120) x 8/7. */
    ck_assert_double_eq_tol(s.bw_GBps[F_AG][WEFT_NCCL_RING][LL], 87.7 * 8 / 7, 1e-9);
    ck_assert_double_eq_tol(s.lat_us[F_AG][WEFT_NCCL_RING][LL], 6.6 + 7 * 0.6, 1e-9);
}
END_TEST

START_TEST(p5_tables_restate_tuning_cc)
{
    weft_coll_system_t s;
    sys_p5(&s);
    /* Ring LL: AMD net overhead 2 us > .6: 6.6 + 26 x 2 + 4 x 2.7 = 69.4 us (the measured
     * 8-byte time is 69.12 us); bw min(llMaxBws[AMD][2 nodes] = 22.5, 384/4) x 16/30 = 12. */
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_RING][LL], 69.4, 1e-9);
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_RING][LL], 12.0, 1e-9);
    /* Ring Simple: 8.4 + 26 x max(3.4, 3 x 2) + 4 x 14 = 220.4. */
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_RING][SIMPLE], 220.4, 1e-9);
    /* Tree LL: 6.8 + 2 x (7 x .6 + 1 x 5) = 25.2. */
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_TREE][LL], 25.2, 1e-9);
    /* NVLS tree: bw min(40, 48) x 8 x 5/6 = 266.67; latency 23 + 2 x 1 x 14 = 51. */
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_NVLS_TREE][SIMPLE], 320.0 * 5 / 6, 1e-9);
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_NVLS_TREE][SIMPLE], 51.0, 1e-9);
    /* NVLS alone across nodes needs CollNet. */
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_NVLS][SIMPLE], 0.0, 1e-12);
}
END_TEST

/* ---- choosing ----------------------------------------------------------------------- */

static void
tune_ok(const weft_coll_tuning_t *t, const weft_coll_system_t *s, weft_coll_op_t op, guint64 size,
        weft_coll_config_t *cfg, weft_coll_costs_t *c)
{
    g_autoptr(GError) error = NULL;
    ck_assert_msg(weft_coll_tune(t, s, op, size, cfg, c, &error), "tune: %s",
                  error != NULL ? error->message : "?");
    ck_assert_int_ne(cfg->algo, WEFT_COLL_ALGO_AUTO);
    ck_assert_int_ne(cfg->proto, WEFT_COLL_PROTO_AUTO);
    ck_assert_uint_ge(cfg->channels, 1);
    ck_assert_uint_ge(cfg->chunks, 1);
}

START_TEST(one_node_chooses_ll_ring_small_and_nvls_large)
{
    weft_coll_system_t s;
    sys_dgx_h100(&s, TRUE);
    weft_coll_config_t cfg;
    weft_coll_costs_t c;
    /* 8 B: ring LL 15.0 us beats tree LL 15.2 and NVLS 23. */
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 8, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_RING);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_LL);
    ck_assert_int_eq(c.model_ps, (weft_time_t)llround((15.0 + 8 / (1000 * 87.7 * 8 / 14)) * US));
    /* Ring LL's channels shrink while nBytes < nc x 512 threads x 8 x 8 ranks: 1 at 8 B. */
    ck_assert_uint_eq(cfg.channels, 1);
    /* 256 KiB: ring LL 15 + 262144/50114 = 20.23 < NVLS 23 + 0.98 = 23.98. */
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 256 << 10, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_RING);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_LL);
    /* 512 KiB: ring LL 25.46 > NVLS 23 + 1.97 = 24.97. */
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 512 << 10, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_NVLS);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_SIMPLE);
    ck_assert_uint_eq(cfg.channels, 16); /* NCCL_NVLS_NCHANNELS */
    /* 1 GiB: NVLS, 23 + 1073741824 / (1000 x 266.67) = 4049.5 us. */
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 1ull << 30, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_NVLS);
    ck_assert_double_eq_tol(c.model_ps / US, 23.0 + 1073741824.0 / (1000.0 * 320 * 5 / 6), 1e-5);
    /* Efficiency: NCCL's 266.67 GB/s over the 450 GB/s of NVLink. */
    ck_assert_double_eq_tol(c.efficiency, 266.6666666 / 450.0, 1e-3);
}
END_TEST

START_TEST(protocol_moves_from_ll_to_ll128_to_simple_with_size)
{
    /* The same node without NVLS: LL vs LL128 cross where 15 + S/50114 = 40.6 + S/189257
     * (S = 1.75 MB); LL128 vs Simple where 40.6 + S/189257 = 56 + S/205714 (S = 36.6 MB).
     * Trees stay slower (correction factors <= 1, latency >= 15.2 us). */
    weft_coll_system_t s;
    sys_dgx_h100(&s, FALSE);
    weft_coll_config_t cfg;
    weft_coll_costs_t c;
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 64 << 10, &cfg, &c);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_LL);
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 8 << 20, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_RING);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_LL128);
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 1ull << 30, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_RING);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_SIMPLE);
    ck_assert_uint_eq(cfg.channels, 24);
}
END_TEST

START_TEST(two_nodes_choose_tree_small_and_nvls_tree_large)
{
    weft_coll_system_t s;
    sys_p5(&s);
    weft_coll_config_t cfg;
    weft_coll_costs_t c;
    /* 8 B: tree LL 25.2 us beats ring LL 69.4. */
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 8, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_TREE);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_LL);
    /* 1 GiB: NVLS tree 51 + 4026.5 us; ring Simple 220.4 x 1.4 + S/(384 x 16/30). */
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 1ull << 30, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_NVLS_TREE);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_SIMPLE);
    ck_assert_double_eq_tol(c.model_ps / US, 51.0 + 1073741824.0 / (1000.0 * 320 * 5 / 6), 1e-5);
    /* Per-hop costs: NVLS tree's network hop is hwLat 14 us; each of its 4 NVSwitch steps
     * (reduce-scatter up and down, all-gather up and down) costs what an NVLS step costs,
     * half of the 23 us of one pass through the switch: 11.5 us. */
    ck_assert_int_eq(c.hop_inter_ps, (weft_time_t)(14.0 * US));
    ck_assert_int_eq(c.hop_intra_ps, (weft_time_t)(23.0 / 2 * US));
    /* No NIC per-message cost given: none charged. */
    ck_assert_int_eq(c.msg_ps, 0);
    ck_assert_uint_eq(c.msg_bytes, 0);
    /* EFA's 3 us per message (catalog): charged to Simple, one message per NVLS tree chunk.
     * NCCL 2.20.3 computeCollChunkInfo() gives NVLS tree its own schedule from one 512 KiB
     * Simple step (2 nodes: NCCL_NVLSTREE_MAX_CHUNKSIZE does not cap it). 1 GiB on 16 NVLS
     * channels x 8 heads = 128 ops: 1 GiB < 32 x 128 x 512 KiB = 2 GiB, so 256 KiB; 1 GiB >=
     * 16 x 128 x 256 KiB = 512 MiB, so it stays 256 KiB. */
    s.net_msg_ps = (weft_time_t)(3.0 * US);
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 1ull << 30, &cfg, &c);
    ck_assert_int_eq(c.msg_ps, (weft_time_t)(3.0 * US));
    ck_assert_uint_eq(c.msg_bytes, 256u << 10);
    /* 1 MiB: below 32 x, 16 x and 4 x (128 ops x chunk) on the way down, and 1 MiB < 1 x 128 x
     * 64 KiB = 8 MiB, so NVLS tree's floor, 32 KiB messages (NVLS's own would be 16 KiB). */
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 1ull << 20, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_NVLS_TREE);
    ck_assert_uint_eq(c.msg_bytes, 32u << 10);
    /* 8 B: tree LL, no completion wait in LL: no per-message cost. */
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 8, &cfg, &c);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_LL);
    ck_assert_int_eq(c.msg_ps, 0);
    s.net_msg_ps = 0;
    /* The ring's intra-node steps cost the AMD network overhead, 3 x 2 us for Simple. */
    weft_coll_tuning_t ring = {0};
    ring.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_RING;
    ring.proto[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_PROTO_SIMPLE;
    tune_ok(&ring, &s, WEFT_COLL_ALL_REDUCE, 1ull << 30, &cfg, &c);
    ck_assert_int_eq(c.hop_intra_ps, (weft_time_t)(6.0 * US));
    /* All-gather across nodes: ring only (NVLS all-gather is one node only). */
    tune_ok(NULL, &s, WEFT_COLL_ALL_GATHER, 1 << 20, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_RING);
}
END_TEST

START_TEST(forced_choices_are_honoured)
{
    weft_coll_system_t s;
    sys_dgx_h100(&s, TRUE);
    weft_coll_tuning_t t = {0};
    t.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_RING;
    t.proto[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_PROTO_LL;
    weft_coll_config_t cfg;
    weft_coll_costs_t c;
    /* At 1 GiB auto would take NVLS; forced: ring LL, 15 + S / 50114. */
    tune_ok(&t, &s, WEFT_COLL_ALL_REDUCE, 1ull << 30, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_RING);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_LL);
    ck_assert_double_eq_tol(c.model_ps / US, 15.0 + 1073741824.0 / (1000.0 * 87.7 * 8 / 14), 1e-4);
    /* Forced algorithm only: the best protocol for it (tree at 1 GiB: Simple's 165.6 GB/s x
     * correction 1 beats LL128's 128.8). */
    weft_coll_tuning_t t2 = {0};
    t2.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_TREE;
    tune_ok(&t2, &s, WEFT_COLL_ALL_REDUCE, 1ull << 30, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_TREE);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_SIMPLE);
    /* Forced channels: kept, and NCCL's bandwidth scales by 4/24. */
    weft_coll_tuning_t t3 = {0};
    t3.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_RING;
    t3.proto[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_PROTO_SIMPLE;
    t3.channels = 4;
    t3.chunks = 3;
    tune_ok(&t3, &s, WEFT_COLL_ALL_REDUCE, 1ull << 30, &cfg, &c);
    ck_assert_uint_eq(cfg.channels, 4);
    ck_assert_uint_eq(cfg.chunks, 3);
    ck_assert_double_eq_tol(c.model_ps / US,
                            56.0 + 1073741824.0 / (1000.0 * 360.0 * 8 / 14 * 4 / 24), 1e-3);
    /* Point-to-point operations: direct, Simple. */
    tune_ok(NULL, &s, WEFT_COLL_ALL_TO_ALL, 1 << 20, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_DIRECT);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_SIMPLE);
    /* Forcing one operation leaves the others automatic: reduce-scatter at 1 GiB takes the
     * ring with Simple (8.4 + 7 x 3.4 + S / (360 x 8/7) = 2641 us; NVLS 4049.5 us). */
    tune_ok(&t, &s, WEFT_COLL_REDUCE_SCATTER, 1ull << 30, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_RING);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_SIMPLE);
}
END_TEST

static void
tune_refused(const weft_coll_system_t *s, weft_coll_op_t op, weft_coll_algo_t a,
             weft_coll_proto_t p)
{
    weft_coll_tuning_t t = {0};
    t.algo[op] = a;
    t.proto[op] = p;
    weft_coll_config_t cfg;
    g_autoptr(GError) error = NULL;
    ck_assert(!weft_coll_tune(&t, s, op, 1 << 20, &cfg, NULL, &error));
    ck_assert_msg(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED),
                  "%s/%s/%s: %s", weft_coll_op_name(op), weft_coll_algo_name(a),
                  weft_coll_tuning_proto_name(p), error != NULL ? error->message : "no error");
}

START_TEST(unsupported_forced_choices_are_errors)
{
    weft_coll_system_t one, no_nvls, two;
    sys_dgx_h100(&one, TRUE);
    sys_dgx_h100(&no_nvls, FALSE);
    sys_p5(&two);
    /* NVLS without NVLS switches; NVLS with LL or LL128. */
    tune_refused(&no_nvls, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_NVLS, WEFT_COLL_PROTO_AUTO);
    tune_refused(&one, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_NVLS, WEFT_COLL_PROTO_LL);
    tune_refused(&one, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_NVLS, WEFT_COLL_PROTO_LL128);
    /* NVLS tree on one node; NVLS alone across nodes without CollNet. */
    tune_refused(&one, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_NVLS_TREE, WEFT_COLL_PROTO_AUTO);
    tune_refused(&two, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_NVLS, WEFT_COLL_PROTO_SIMPLE);
    /* CollNet without SHARP. */
    tune_refused(&two, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_COLLNET, WEFT_COLL_PROTO_AUTO);
    /* Tree only for all-reduce (NCCL 2.20); ring not for all-to-all. */
    tune_refused(&one, WEFT_COLL_ALL_GATHER, WEFT_COLL_ALGO_TREE, WEFT_COLL_PROTO_AUTO);
    tune_refused(&one, WEFT_COLL_ALL_TO_ALL, WEFT_COLL_ALGO_RING, WEFT_COLL_PROTO_AUTO);
    tune_refused(&one, WEFT_COLL_ALL_TO_ALL, WEFT_COLL_ALGO_AUTO, WEFT_COLL_PROTO_LL);
    tune_refused(&one, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_DIRECT, WEFT_COLL_PROTO_AUTO);
    /* LL128 is off on Blackwell in NCCL 2.20. */
    weft_coll_system_t bw = one;
    bw.arch = 100;
    weft_coll_system_fill_tables(&bw);
    tune_refused(&bw, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_RING, WEFT_COLL_PROTO_LL128);
    /* An invalid operation is a value error. */
    weft_coll_config_t cfg;
    g_autoptr(GError) error = NULL;
    ck_assert(!weft_coll_tune(NULL, &one, WEFT_COLL_N_OPS, 8, &cfg, NULL, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE));
}
END_TEST

START_TEST(predicted_time_grows_with_size_for_a_fixed_choice)
{
    weft_coll_system_t sys[3];
    sys_dgx_h100(&sys[0], TRUE);
    sys_dgx_h100(&sys[1], FALSE);
    sys_p5(&sys[2]);
    const weft_coll_algo_t algos[] = {WEFT_COLL_ALGO_RING, WEFT_COLL_ALGO_TREE, WEFT_COLL_ALGO_NVLS,
                                      WEFT_COLL_ALGO_NVLS_TREE};
    const weft_coll_op_t ops[] = {WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALL_GATHER,
                                  WEFT_COLL_REDUCE_SCATTER, WEFT_COLL_BROADCAST};
    guint checked = 0;
    for (guint k = 0; k < G_N_ELEMENTS(sys); k++) {
        for (guint o = 0; o < G_N_ELEMENTS(ops); o++) {
            for (guint a = 0; a < G_N_ELEMENTS(algos); a++) {
                for (int p = WEFT_COLL_PROTO_LL; p <= WEFT_COLL_PROTO_SIMPLE; p++) {
                    weft_time_t prev = -1;
                    for (guint64 sz = 1; sz <= (1ull << 34); sz = sz * 2 + (sz % 3)) {
                        weft_time_t t = weft_coll_model_time(&sys[k], ops[o], algos[a],
                                                             (weft_coll_proto_t)p, sz);
                        if (t < 0) {
                            break; /* unavailable pair */
                        }
                        ck_assert_msg(t >= prev, "%s %s %s at %" G_GUINT64_FORMAT,
                                      weft_coll_op_name(ops[o]), weft_coll_algo_name(algos[a]),
                                      weft_coll_tuning_proto_name(p), sz);
                        prev = t;
                        checked++;
                    }
                }
            }
        }
    }
    /* Every system has ring x 3 protocols x 4 operations available at least. */
    ck_assert_uint_gt(checked, 3 * 3 * 4 * 30);
}
END_TEST

START_TEST(names_round_trip)
{
    weft_coll_algo_t a;
    ck_assert(weft_coll_tuning_algo_from_name("NVLS_TREE", &a));
    ck_assert_int_eq(a, WEFT_COLL_ALGO_NVLS_TREE);
    ck_assert(weft_coll_tuning_algo_from_name("nvlstree", &a));
    ck_assert_int_eq(a, WEFT_COLL_ALGO_NVLS_TREE);
    ck_assert(weft_coll_tuning_algo_from_name("CollNetDirect", &a));
    ck_assert_int_eq(a, WEFT_COLL_ALGO_COLLNET);
    ck_assert(weft_coll_tuning_algo_from_name("halving-doubling", &a));
    ck_assert_int_eq(a, WEFT_COLL_ALGO_HALVING_DOUBLING);
    ck_assert(!weft_coll_tuning_algo_from_name("bogus", &a));
    for (int p = 0; p < WEFT_COLL_N_PROTOS; p++) {
        weft_coll_proto_t q;
        ck_assert(weft_coll_tuning_proto_from_name(
            weft_coll_tuning_proto_name((weft_coll_proto_t)p), &q));
        ck_assert_int_eq(q, p);
    }
    weft_coll_proto_t q;
    ck_assert(weft_coll_tuning_proto_from_name("LL128", &q));
    ck_assert_int_eq(q, WEFT_COLL_PROTO_LL128);
    ck_assert(!weft_coll_tuning_proto_from_name("ll64", &q));
    weft_coll_cpu_t c;
    ck_assert(weft_coll_tuning_cpu_from_name("AMD", &c));
    ck_assert_int_eq(c, WEFT_COLL_CPU_AMD);
    ck_assert(!weft_coll_tuning_cpu_from_name("power", &c));
    /* nccl-tests' busbw factors on 8 ranks: 2 x 7/8, 7/8, 1. */
    ck_assert_double_eq_tol(weft_coll_tuning_busbw_factor(WEFT_COLL_ALL_REDUCE, 8), 1.75, 1e-12);
    ck_assert_double_eq_tol(weft_coll_tuning_busbw_factor(WEFT_COLL_ALL_GATHER, 8), 0.875, 1e-12);
    ck_assert_double_eq_tol(weft_coll_tuning_busbw_factor(WEFT_COLL_ALL_TO_ALL, 8), 0.875, 1e-12);
    ck_assert_double_eq_tol(weft_coll_tuning_busbw_factor(WEFT_COLL_BROADCAST, 8), 1.0, 1e-12);
}
END_TEST

/* ---- the planner (coll/planner.h) ----------------------------------------------------- */

/* GPUs @first .. @first + @n - 1 of @t as cluster vertices (@v holds @n). */
static void
gpu_range(weft_topo_t *t, guint first, guint n, gint *v)
{
    for (guint i = 0; i < n; i++) {
        v[i] = weft_topo_gpu_vertex(t, first + i);
    }
}

/* What the planner must return: the four steps by hand (layout, system, tune and the
 * executor's costs, build), as weft coll and the replay each wrote them out before. */
static weft_coll_plan_t *
plan_by_hand(weft_topo_t *t, const gint *members, guint n, const weft_coll_tuning_t *tun,
             weft_coll_op_t op, guint64 S, weft_coll_config_t *cfg, weft_coll_costs_t *c)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_fabric_t) F = weft_fabric_new(t); /* seed 0, every link up */
    g_autoptr(weft_coll_layout_t) L = weft_coll_layout_new(F, members, n);
    weft_coll_system_t sys;
    ck_assert(weft_coll_system_init(&sys, F, L, tun, &error));
    tune_ok(tun, &sys, op, S, cfg, c);
    weft_coll_plan_t *plan = weft_coll_plan_build(op, cfg, L, S, &error);
    ck_assert_msg(plan != NULL, "%s", error != NULL ? error->message : "");
    weft_coll_tuning_fill_exec(&sys, c, &plan->exec);
    return plan;
}

static void
assert_same_config(const weft_coll_config_t *a, const weft_coll_config_t *b)
{
    ck_assert_int_eq(a->algo, b->algo);
    ck_assert_int_eq(a->proto, b->proto);
    ck_assert_uint_eq(a->channels, b->channels);
    ck_assert_uint_eq(a->chunks, b->chunks);
}

START_TEST(planner_returns_its_cached_plan_and_the_same_choice)
{
    /* One DGX H100, every GPU: each size's plan is the one the four steps build by hand
     * (the same transfers and costs) with the same choice; asked again, the same pointer
     * and the same choice. */
    g_autofree char *path = topo_path("dgx-h100.ini");
    g_autoptr(GError) error = NULL;
    weft_topo_t *t = weft_topo_load(path, &error);
    ck_assert_ptr_nonnull(t);
    gint members[8];
    gpu_range(t, 0, 8, members);
    weft_coll_tuning_t tun = {0};
    weft_coll_planner_config_t pcfg = {.tuning = &tun};
    g_autoptr(weft_fabric_t) F = weft_fabric_new(t);
    g_autoptr(weft_coll_planner_t) P = weft_coll_planner_new(F, &pcfg);
    ck_assert_uint_eq(weft_coll_planner_add_comm(P, members, 8), 0);
    /* a communicator is its members: the same list again is communicator 0 */
    ck_assert_uint_eq(weft_coll_planner_add_comm(P, members, 8), 0);
    const weft_coll_system_t *sys = weft_coll_planner_system(P, 0, &error);
    ck_assert_ptr_nonnull(sys);
    ck_assert_uint_eq(sys->n_ranks, 8);
    ck_assert_uint_eq(sys->n_nodes, 1);
    static const guint64 sizes[] = {4096, 1u << 20, 256u << 20};
    const weft_coll_plan_t *prev = NULL;
    for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
        weft_coll_choice_t c1, c2;
        const weft_coll_plan_t *p =
            weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, sizes[i], 0, &c1, &error);
        ck_assert_msg(p != NULL, "%s", error != NULL ? error->message : "");
        ck_assert_ptr_eq(weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, sizes[i], 0, &c2, NULL),
                         p);
        ck_assert(c1.tuned && c2.tuned);
        assert_same_config(&c1.config, &c2.config);
        ck_assert_int_eq(c1.costs.model_ps, c2.costs.model_ps);
        ck_assert_int_eq(c1.costs.base_ps, c2.costs.base_ps);
        ck_assert_ptr_ne(p, prev); /* another size, another plan */
        prev = p;
        weft_coll_config_t cfg;
        weft_coll_costs_t c;
        g_autoptr(weft_coll_plan_t) h =
            plan_by_hand(t, members, 8, &tun, WEFT_COLL_ALL_REDUCE, sizes[i], &cfg, &c);
        assert_same_config(&c1.config, &cfg);
        ck_assert_int_eq(c1.costs.model_ps, c.model_ps);
        ck_assert_int_gt(c1.costs.model_ps, 0);
        ck_assert(weft_coll_plan_equal(p, h));
        ck_assert_int_eq(memcmp(&p->exec, &h->exec, sizeof p->exec), 0);
    }
    /* forgotten, a plan is built again: equal, wherever it lives */
    weft_coll_choice_t c3;
    weft_coll_planner_forget(P);
    const weft_coll_plan_t *again =
        weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, 1u << 20, 0, &c3, &error);
    ck_assert_ptr_nonnull(again);
    weft_coll_config_t cfg;
    weft_coll_costs_t c;
    g_autoptr(weft_coll_plan_t) h =
        plan_by_hand(t, members, 8, &tun, WEFT_COLL_ALL_REDUCE, 1u << 20, &cfg, &c);
    ck_assert(weft_coll_plan_equal(again, h));
    assert_same_config(&c3.config, &cfg);
    g_clear_pointer(&P, weft_coll_planner_free);
    weft_topo_free(t);
}
END_TEST

START_TEST(planner_shares_a_plan_between_communicators_of_one_shape)
{
    /* The two nodes of the p5 pair as two communicators: a forced ring all-reduce has one
     * shape on both (the same domains, positions and costs), so both get one plan; NVLS
     * names each node's NVSwitch chips, so each node gets its own. */
    g_autofree char *path = topo_path("p5-h100-2node.ini");
    g_autoptr(GError) error = NULL;
    weft_topo_t *t = weft_topo_load(path, &error);
    ck_assert_ptr_nonnull(t);
    gint a[8], b[8];
    gpu_range(t, 0, 8, a);
    gpu_range(t, 8, 8, b);
    weft_coll_tuning_t tun = {0};
    tun.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_RING;
    weft_coll_planner_config_t pcfg = {.tuning = &tun};
    g_autoptr(weft_fabric_t) F = weft_fabric_new(t);
    g_autoptr(weft_coll_planner_t) P = weft_coll_planner_new(F, &pcfg);
    ck_assert_uint_eq(weft_coll_planner_add_comm(P, a, 8), 0);
    ck_assert_uint_eq(weft_coll_planner_add_comm(P, b, 8), 1);
    const weft_coll_plan_t *pa =
        weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, 64u << 20, 0, NULL, &error);
    const weft_coll_plan_t *pb =
        weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, 64u << 20, 1, NULL, &error);
    ck_assert_ptr_nonnull(pa);
    ck_assert_ptr_eq(pa, pb);
    ck_assert_int_eq(pa->algo, WEFT_COLL_ALGO_RING);
    g_clear_pointer(&P, weft_coll_planner_free);

    weft_coll_tuning_t none = {0};
    weft_coll_planner_config_t auto_cfg = {.tuning = &none};
    P = weft_coll_planner_new(F, &auto_cfg);
    weft_coll_planner_add_comm(P, a, 8);
    weft_coll_planner_add_comm(P, b, 8);
    pa = weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, 1u << 30, 0, NULL, &error);
    pb = weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, 1u << 30, 1, NULL, &error);
    ck_assert_ptr_nonnull(pa);
    ck_assert_ptr_nonnull(pb);
    ck_assert_int_eq(pa->algo, WEFT_COLL_ALGO_NVLS); /* one node: NVLS at 1 GiB */
    ck_assert_ptr_ne(pa, pb);
    ck_assert_int_ne(pa->virtual_vertex[0], pb->virtual_vertex[0]);
    g_clear_pointer(&P, weft_coll_planner_free);
    weft_topo_free(t);
}
END_TEST

START_TEST(planner_plain_model_plans_by_member_count)
{
    /* No cluster: weft_coll_plan_new() with the forced algorithm and chunks, one plan for
     * every communicator of n members; the choice says the plain model chose. */
    weft_coll_planner_config_t pcfg = {.chunks = 4};
    pcfg.plain_algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_HALVING_DOUBLING;
    g_autoptr(weft_coll_planner_t) P = weft_coll_planner_new(NULL, &pcfg);
    const gint a[] = {0, 1, 2, 3}, b[] = {4, 5, 6, 7}, c[] = {0, 1};
    ck_assert_uint_eq(weft_coll_planner_add_comm(P, a, 4), 0);
    ck_assert_uint_eq(weft_coll_planner_add_comm(P, b, 4), 1);
    ck_assert_uint_eq(weft_coll_planner_add_comm(P, c, 2), 2);
    g_autoptr(GError) error = NULL;
    weft_coll_choice_t ch;
    const weft_coll_plan_t *p =
        weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, 1u << 20, 0, &ch, &error);
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_eq(weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, 1u << 20, 1, NULL, NULL), p);
    ck_assert_ptr_ne(weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, 1u << 20, 2, NULL, NULL), p);
    g_autoptr(weft_coll_plan_t) h = weft_coll_plan_new(
        WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_HALVING_DOUBLING, 4, 1u << 20, 4, &error);
    ck_assert(weft_coll_plan_equal(p, h));
    ck_assert(!ch.tuned);
    ck_assert_int_eq(ch.config.algo, WEFT_COLL_ALGO_HALVING_DOUBLING);
    ck_assert_int_eq(ch.config.proto, WEFT_COLL_PROTO_SIMPLE);
    ck_assert_uint_eq(ch.config.channels, 1);
    ck_assert_uint_eq(ch.config.chunks, 4);
    ck_assert_int_eq(ch.costs.model_ps, -1);
    /* an operation left to the default: the ring */
    const weft_coll_plan_t *bc =
        weft_coll_planner_plan(P, WEFT_COLL_BROADCAST, 1u << 20, 0, &ch, &error);
    ck_assert_ptr_nonnull(bc);
    ck_assert_int_eq(bc->algo, WEFT_COLL_ALGO_RING);
    ck_assert_int_eq(ch.config.algo, WEFT_COLL_ALGO_RING);
}
END_TEST

START_TEST(planner_errors_are_not_cached)
{
    /* NVLS tree on one node cannot run: the call fails, and fails again the same way. */
    g_autofree char *path = topo_path("dgx-h100.ini");
    g_autoptr(GError) error = NULL;
    weft_topo_t *t = weft_topo_load(path, &error);
    ck_assert_ptr_nonnull(t);
    gint members[8];
    gpu_range(t, 0, 8, members);
    weft_coll_tuning_t tun = {0};
    tun.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_NVLS_TREE;
    tun.algo[WEFT_COLL_BROADCAST] = WEFT_COLL_ALGO_HALVING_DOUBLING;
    weft_coll_planner_config_t pcfg = {.tuning = &tun};
    g_autoptr(weft_fabric_t) F = weft_fabric_new(t);
    g_autoptr(weft_coll_planner_t) P = weft_coll_planner_new(F, &pcfg);
    weft_coll_planner_add_comm(P, members, 8);
    for (guint k = 0; k < 2; k++) {
        ck_assert_ptr_null(
            weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, 1u << 20, 0, NULL, &error));
        ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
        g_clear_error(&error);
        /* a pair the plan builder refuses (the tuner lets it through: weft's own algorithm) */
        ck_assert_ptr_null(
            weft_coll_planner_plan(P, WEFT_COLL_BROADCAST, 1u << 20, 0, NULL, &error));
        ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
        g_clear_error(&error);
    }
    /* the rest of the communicator still plans */
    ck_assert_ptr_nonnull(
        weft_coll_planner_plan(P, WEFT_COLL_ALL_GATHER, 1u << 20, 0, NULL, &error));
    g_clear_pointer(&P, weft_coll_planner_free);
    weft_topo_free(t);
}
END_TEST

/* ---- validation against nccl-tests ---------------------------------------------------- */

typedef struct {
    guint64 size;
    double time_us, busbw;
} row_t;

static GArray *
read_rows(const char *path)
{
    g_autofree char *text = NULL;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(g_file_get_contents(path, &text, NULL, &error), "%s", path);
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(row_t));
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++) {
        if (lines[i][0] == '#' || lines[i][0] == '\0' || g_str_has_prefix(lines[i], "size")) {
            continue;
        }
        g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
        ck_assert_uint_ge(g_strv_length(f), 4);
        row_t r = {g_ascii_strtoull(f[0], NULL, 10), g_ascii_strtod(f[1], NULL),
                   g_ascii_strtod(f[3], NULL)};
        g_array_append_val(rows, r);
    }
    return rows;
}

/*
 * Predicts every size of @csv with `weft coll`'s path (tune, build the plan over the
 * layout, fill the executor's costs, simulate alone) under the flow network model, prints
 * the table, and returns the MAPE of the time below 1 MiB, of busbw from 1 MiB up and of
 * busbw from 1 GiB up. Flow, because NVLS tree's reduce-scatter, tree and all-gather run
 * at once and share each GPU's NVLink and NIC, which only the flow model sees (the
 * analytical model runs each transfer at its route's rate over the channels that share
 * its pair, so two parts of a channel on one link both get the whole of it); on one DGX
 * H100 both models give the same picoseconds for every row.
 */
static void
validate(const char *cluster, const char *csv, weft_coll_cpu_t cpu, const char *nic,
         double *mape_small, double *mape_big, double *mape_plateau)
{
    g_autofree char *tpath = topo_path(cluster);
    g_autofree char *cpath = g_build_filename(g_getenv("WEFT_SHARED"), "validation", csv, NULL);
    g_autoptr(GError) error = NULL;
    weft_topo_t *t = weft_topo_load(tpath, &error);
    ck_assert_ptr_nonnull(t);
    weft_fabric_t *f = weft_fabric_new(t);
    guint n = weft_topo_n_gpus(t);
    g_autofree gint *members = g_new(gint, n);
    for (guint g = 0; g < n; g++) {
        members[g] = weft_topo_gpu_vertex(t, g);
    }
    weft_coll_layout_t *layout = weft_coll_layout_new(f, members, n);
    weft_coll_tuning_t tun = {0};
    tun.cpu = cpu;
    if (nic != NULL) {
        /* The cluster file's NIC (its `nic` key): its per-message cost from the catalog. */
        const weft_hw_nic_t *hn = weft_hw_nic(nic, &error);
        ck_assert_ptr_nonnull(hn);
        tun.net_msg_ps = hn->msg_cost_ps;
    }
    weft_coll_system_t sys;
    ck_assert(weft_coll_system_init(&sys, f, layout, &tun, &error));
    weft_sim_t *sim = weft_sim_new(1);
    weft_net_t *net = weft_net_new(sim, f, WEFT_NET_FLOW);
    g_autoptr(GArray) rows = read_rows(cpath);
    double factor = weft_coll_tuning_busbw_factor(WEFT_COLL_ALL_REDUCE, n);
    double sum_s = 0.0, sum_b = 0.0, sum_p = 0.0;
    guint n_s = 0, n_b = 0, n_p = 0;
    printf("\n%s on %s (%u ranks, flow network)\n", csv, cluster, n);
    printf("%12s %10s %10s %8s %9s %9s %8s %-10s %-6s %9s\n", "size_bytes", "meas_us", "pred_us",
           "err_%", "meas_bus", "pred_bus", "err_%", "algo", "proto", "nccl_us");
    for (guint i = 0; i < rows->len; i++) {
        const row_t *r = &g_array_index(rows, row_t, i);
        weft_coll_config_t cfg;
        weft_coll_costs_t c;
        ck_assert(weft_coll_tune(&tun, &sys, WEFT_COLL_ALL_REDUCE, r->size, &cfg, &c, &error));
        weft_coll_plan_t *plan =
            weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, layout, r->size, &error);
        ck_assert_msg(plan != NULL, "%s", error != NULL ? error->message : "");
        weft_coll_tuning_fill_exec(&sys, &c, &plan->exec);
        weft_time_t ps = weft_coll_time_full(sim, net, plan, layout->vertex, NULL, &error);
        ck_assert_int_gt(ps, 0);
        double us = ps / US;
        double bus = r->size / (ps * 1e-12) / 1e9 * factor;
        double et = 100.0 * (us - r->time_us) / r->time_us;
        double eb = r->busbw > 0 ? 100.0 * (bus - r->busbw) / r->busbw : 0.0;
        if (r->size < (1u << 20)) {
            sum_s += fabs(et);
            n_s++;
        } else {
            sum_b += fabs(eb);
            n_b++;
        }
        if (r->size >= (1u << 30)) {
            sum_p += fabs(eb);
            n_p++;
        }
        printf("%12" G_GUINT64_FORMAT " %10.2f %10.2f %+8.1f %9.2f %9.2f %+8.1f %-10s %-6s "
               "%9.2f\n",
               r->size, r->time_us, us, et, r->busbw, bus, eb, weft_coll_algo_name(cfg.algo),
               weft_coll_tuning_proto_name(cfg.proto), c.model_ps / US);
        weft_coll_plan_free(plan);
    }
    *mape_small = n_s ? sum_s / n_s : 0.0;
    *mape_big = n_b ? sum_b / n_b : 0.0;
    *mape_plateau = n_p ? sum_p / n_p : 0.0;
    printf("MAPE time < 1 MiB (%u sizes): %.2f%%; MAPE busbw >= 1 MiB (%u sizes): %.2f%%; "
           "MAPE busbw >= 1 GiB (%u sizes): %.2f%%\n",
           n_s, *mape_small, n_b, *mape_big, n_p, *mape_plateau);
    fflush(stdout);
    weft_net_free(net);
    weft_sim_free(sim);
    weft_coll_layout_free(layout);
    weft_fabric_free(f);
    weft_topo_free(t);
}

START_TEST(dgx_h100_matches_nccl_tests)
{
    if (!test_have_shared()) {
        return; /* no measurements: nothing to compare */
    }
    double small, big, plateau;
    validate("dgx-h100.ini", "nccl_allreduce_dgx_h100_8gpu.csv", WEFT_COLL_CPU_INTEL, NULL, &small,
             &big, &plateau);
    /* issue 5's bounds, both met, and issue 16's 8 % for busbw: busbw MAPE from 1 MiB 4.94%
     * (9.01% before the plan had NVLS's copies into and out of its buffer, algos.c
     * build_nvls()), time within 20% below 1 MiB (17.40%). Below 1 MiB NCCL picks ring LL, 14 hops of hwLat 0.6 us each:
     * with the cluster's NVLink hops of 300 ns (GPU -> GPU 0.6 us) every step costs
     * max(0.6 us, route) = 0.6 us, and the 8-byte all-reduce 6.6 + 14 x 0.6 = 15.0 us
     * (measured 13.67) plus the 8 bytes; the one row far off is the measured 68.14 us at
     * 32 bytes (an outlier between 13.00 and 14.92 us), 4.6 points of the 17.40%. */
    ck_assert_double_le(big, 8.0); /* issue 16: DGX H100 busbw MAPE >= 1 MiB <= 8 % */
    ck_assert_double_le(small, 20.0);
}
END_TEST

START_TEST(p5_two_nodes_match_nccl_tests)
{
    if (!test_have_shared()) {
        return;
    }
    double small, big, plateau;
    validate("p5-h100-2node.ini", "nccl_allreduce_p5_h100_2node.csv", WEFT_COLL_CPU_AMD, "efa",
             &small, &big, &plateau);
    /* issue 5: the same constants, busbw within 15% MAPE from 1 MiB: met (10.34%; 10.30%
     * while the plan budget cut NVLS tree's chunks from 2 GiB up by more than 2 %; 50.45%
     * before EFA's per-message cost). NCCL 2.20.3's own choice (tree LL, tree LL128, NVLS
     * tree from 512 KiB: AWS's plugin tuner leaves 2-node jobs to NCCL) on the p5 file, with
     * the catalog EFA NIC's 3 us per message (aws-ofi-nccl's completion overhead): each
     * Simple message across nodes holds its GPU's network path for 3 us per NVLS chunk
     * (16-128 KiB by size), which caps a GPU's EFA throughput at chunk / 3 us (5.5 to 43.7
     * GB/s) and adds 3 us to each network hop; NVLS tree's 4 NVSwitch steps cost 11.5 us
     * each, as NVLS's. Nothing fitted (doc/collectives.md, Validation). From 1 GiB, where
     * NVLS tree runs at its bandwidth: 5.5%. NVLS tree's own chunk schedule (NCCL 2.20.3
     * computeCollChunkInfo(), 32-512 KiB where weft had used NVLS's 16-128 KiB) makes the
     * curve smooth and mid sizes fast: 17.63% (1 GiB up: 1.79%). The receiver's side of
     * each message (its proxy thread and NIC complete receives as well as sends,
     * coll_run.c on_xfer_done()) and aws-ofi-nccl's receiver-driven rendezvous: 8.66% (1 GiB
     * up: 1.84%). Issue 16 asks for 8 %; this bound guards against regression. */
    ck_assert_double_le(big, 9.0);
    ck_assert_double_le(plateau, 10.0);
}
END_TEST

START_TEST(one_gpu_per_node_ring_latency_is_signed_as_in_nccl)
{
    /* Two GPUs on two nodes (a data-parallel pair under TP = 8), Intel hosts: NCCL's ints
     * give the all-reduce ring nsteps = 2 (n - 1) = 2 and nInterSteps = 2 nodes = 4, so
     * the intra-node term is (2 - 4) = -2 hops: Simple 8.4 + (-2) x max(3.4, 3 x 1.0) +
     * 4 x 14 = 57.6 us (tuning.cc); unsigned, the -2 wrapped to 2^32 hops, 1.5e10 us. */
    weft_coll_system_t s;
    memset(&s, 0, sizeof s);
    s.n_ranks = 2;
    s.n_nodes = 2;
    s.ppn = 1;
    s.arch = 90;
    s.nvlink = TRUE;
    s.intra_GBps = 370.8;
    s.net_GBps = 50.0;
    s.intra_phys_GBps = 450.0;
    s.net_phys_GBps = 50.0;
    s.graph[WEFT_NCCL_RING] = (weft_coll_graph_t){2, 24.0, 24.0};
    s.graph[WEFT_NCCL_TREE] = s.graph[WEFT_NCCL_RING];
    weft_coll_system_fill_tables(&s);
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_RING][SIMPLE], 8.4 - 2 * 3.4 + 4 * 14.0,
                            1e-9);
    /* LL: 6.6 + (-2) x max(0.6, 1.0) + 4 x 2.7 = 15.4 us */
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_RING][LL], 6.6 - 2 * 1.0 + 4 * 2.7, 1e-9);
    /* all-gather: nsteps 1, nInterSteps 1: 8.4 + 0 + 14 */
    ck_assert_double_eq_tol(s.lat_us[F_AG][WEFT_NCCL_RING][SIMPLE], 8.4 + 14.0, 1e-9);
}
END_TEST

START_TEST(one_gpu_per_node_ring_runs_at_nic_speed)
{
    /* A forced ring/Simple all-reduce of 512 MiB on GPUs 0 and 8 of the p5 pair, flow.
     * With two members each GPU sends 2 (n - 1) / n S = S over its 50 GB/s of EFA: at
     * least 536870912 / 50e9 = 10,737 us. It took 10,737,449 us (the wrapped latency made
     * NCCL's time 2e10 us, and the executor's efficiency, NCCL's bandwidth over the
     * links', fell to its floor of 1e-3); within 10 % of the wire now, and so is NCCL's. */
    g_autofree char *path = topo_path("p5-h100-2node.ini");
    g_autoptr(GError) error = NULL;
    weft_topo_t *t = weft_topo_load(path, &error);
    ck_assert_ptr_nonnull(t);
    weft_fabric_t *f = weft_fabric_new(t);
    gint members[2] = {weft_topo_gpu_vertex(t, 0), weft_topo_gpu_vertex(t, 8)};
    g_autoptr(weft_coll_layout_t) L = weft_coll_layout_new(f, members, 2);
    weft_coll_tuning_t tun = {0};
    tun.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_RING;
    tun.proto[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_PROTO_SIMPLE;
    weft_coll_system_t sys;
    ck_assert(weft_coll_system_init(&sys, f, L, &tun, &error));
    weft_coll_config_t cfg;
    weft_coll_costs_t c;
    tune_ok(&tun, &sys, WEFT_COLL_ALL_REDUCE, 512u << 20, &cfg, &c);
    g_autoptr(weft_coll_plan_t) plan =
        weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L, 512u << 20, &error);
    ck_assert_ptr_nonnull(plan);
    weft_coll_tuning_fill_exec(&sys, &c, &plan->exec);
    weft_sim_t *sim = weft_sim_new(1);
    weft_net_t *net = weft_net_new(sim, f, WEFT_NET_FLOW);
    weft_time_t ps = weft_coll_time_full(sim, net, plan, L->vertex, NULL, &error);
    double bound_us = 536870912.0 / 50e9 * 1e6; /* 10737.4 us */
    ck_assert_double_ge(ps / US, bound_us);
    ck_assert_double_le(ps / US, 1.1 * bound_us);
    ck_assert_double_le(c.model_ps / US, 1.1 * bound_us);
    weft_net_free(net);
    weft_sim_free(sim);
    weft_fabric_free(f);
    weft_topo_free(t);
}
END_TEST

START_TEST(uneven_layouts_choose_what_they_can_run)
{
    /* GPUs 0-14 of the p5 pair: 8 + 7. NVLS tree (NCCL's choice at 256 MiB on 8 + 8) pairs
     * the members of every node and cannot run; auto takes the next best (ring/Simple,
     * NCCL 1509 us against tree's 1875), the plan builds, and a forced nvls_tree or
     * collnet is refused as unsupported. */
    g_autofree char *path = topo_path("p5-h100-2node.ini");
    g_autoptr(GError) error = NULL;
    weft_topo_t *t = weft_topo_load(path, &error);
    ck_assert_ptr_nonnull(t);
    weft_fabric_t *f = weft_fabric_new(t);
    gint members[15];
    for (guint g = 0; g < 15; g++) {
        members[g] = weft_topo_gpu_vertex(t, g);
    }
    g_autoptr(weft_coll_layout_t) L = weft_coll_layout_new(f, members, 15);
    ck_assert(!L->uniform);
    weft_coll_system_t sys;
    ck_assert(weft_coll_system_init(&sys, f, L, NULL, &error));
    ck_assert(sys.uneven);
    ck_assert_double_eq_tol(sys.bw_GBps[F_AR][WEFT_NCCL_NVLS_TREE][SIMPLE], 0.0, 1e-12);
    weft_coll_config_t cfg;
    weft_coll_costs_t c;
    tune_ok(NULL, &sys, WEFT_COLL_ALL_REDUCE, 256u << 20, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_RING);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_SIMPLE);
    g_autoptr(weft_coll_plan_t) plan =
        weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L, 256u << 20, &error);
    ck_assert_msg(plan != NULL, "%s", error != NULL ? error->message : "");
    weft_coll_tuning_t tun = {0};
    tun.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_NVLS_TREE;
    ck_assert(!weft_coll_tune(&tun, &sys, WEFT_COLL_ALL_REDUCE, 256u << 20, &cfg, &c, &error));
    ck_assert(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED));
    g_clear_error(&error);
    /* the same 16 GPUs evenly: NVLS tree again */
    g_autoptr(weft_coll_layout_t) L16 = NULL;
    gint all[16];
    for (guint g = 0; g < 16; g++) {
        all[g] = weft_topo_gpu_vertex(t, g);
    }
    L16 = weft_coll_layout_new(f, all, 16);
    ck_assert(weft_coll_system_init(&sys, f, L16, NULL, &error));
    tune_ok(NULL, &sys, WEFT_COLL_ALL_REDUCE, 256u << 20, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_NVLS_TREE);
    weft_fabric_free(f);
    weft_topo_free(t);
}
END_TEST

/* ---- CollNet (SHARP) -------------------------------------------------------------------- */

/* A cluster from INI text (the [cluster] group). */
static weft_topo_t *
cluster_text(const char *ini)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(GKeyFile) kf = g_key_file_new();
    ck_assert(g_key_file_load_from_data(kf, ini, -1, G_KEY_FILE_NONE, &error));
    weft_topo_t *t = weft_topo_load_keyfile(kf, "cluster", "test", &error);
    ck_assert_msg(t != NULL, "%s", error != NULL ? error->message : "?");
    return t;
}

/* 12 DGX H100 nodes of the SuperPOD (one SU, 8 NDR rail leaves), SHARP on or off. */
static weft_topo_t *
superpod12(gboolean sharp)
{
    g_autofree char *ini =
        g_strdup_printf("[cluster]\nkind = dgx-h100\nnodes = 12\nfabric = rail-optimized\n"
                        "nic = ndr\nnodes_per_su = 32\nswitch_radix = 64\nsharp = %s\n",
                        sharp ? "true" : "false");
    return cluster_text(ini);
}

/* Every GPU of @t as a communicator: its layout (@members must hold them). */
static weft_coll_layout_t *
all_gpus(weft_fabric_t *f, gint *members)
{
    const weft_topo_t *t = weft_fabric_topo(f);
    guint n = weft_topo_n_gpus(t);
    for (guint g = 0; g < n; g++) {
        members[g] = weft_topo_gpu_vertex(t, g);
    }
    return weft_coll_layout_new(f, members, n);
}

START_TEST(collnet_runs_only_with_sharp)
{
    /* 96 H100 on 12 nodes, 8 GiB all-reduce. NCCL 2.20.3 (tuning.cc) with CollNet on: the
     * CollNet graph is the ring's, 8 channels x 48 GB/s (init.cc: collNetGraph takes
     * ringGraph.nChannels; bwIntra as the ring's). CollNet chain: busBw 8 x 48 = 384,
     * x 0.5 = 192 GB/s of algbw, latency 2 x 7 x 2.8 (NVLink hwLat) + 30 (NET) = 69.2 us:
     * 69.2 + 8589934592 / 192e3 = 44808.43 us. CollNet direct: 384 x 0.85 (sm90) x 0.5 =
     * 163.2 GB/s, 44 + 52634.4 us. The ring (8 x 48 = 384 GB/s of busBw, x n / nsteps =
     * 96 / 190: 194.02 GB/s) has the higher bandwidth but 190 steps of latency: 8.4 +
     * 166 x 3.4 (NVLink Simple) + 24 x 14 (NET) = 908.8 us, x 1.4 for the ring's plateau
     * (Simple across nodes, sm80+) = 1272.32 us, + 44273.5 = 45545.8 us. So chain wins.
     * Without SHARP, CollNet is off and a forced collnet refused. */
    const guint64 S = 8ull << 30;
    gint members[96];
    for (int sharp = 0; sharp <= 1; sharp++) {
        weft_topo_t *t = superpod12(sharp);
        weft_fabric_t *f = weft_fabric_new(t);
        g_autoptr(weft_coll_layout_t) L = all_gpus(f, members);
        ck_assert_uint_eq(L->n_members, 96);
        ck_assert(L->collnet == (gboolean)sharp);
        g_autoptr(GError) error = NULL;
        weft_coll_system_t sys;
        ck_assert(weft_coll_system_init(&sys, f, L, NULL, &error));
        ck_assert(sys.collnet == (gboolean)sharp);
        weft_coll_config_t cfg;
        weft_coll_costs_t c;
        tune_ok(NULL, &sys, WEFT_COLL_ALL_REDUCE, S, &cfg, &c);
        if (sharp) {
            ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_COLLNET);
            ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_SIMPLE);
            ck_assert_double_eq_tol(sys.bw_GBps[F_AR][WEFT_NCCL_COLLNET_CHAIN][SIMPLE], 192.0,
                                    1e-9);
            ck_assert_double_eq_tol(sys.bw_GBps[F_AR][WEFT_NCCL_COLLNET_DIRECT][SIMPLE], 163.2,
                                    1e-9);
            ck_assert_double_eq_tol(c.model_ps / US, 69.2 + 8589934592.0 / 192e3, 0.01);
            weft_time_t ring = weft_coll_model_time(&sys, WEFT_COLL_ALL_REDUCE,
                                                    WEFT_COLL_ALGO_RING, WEFT_COLL_PROTO_SIMPLE, S);
            ck_assert_double_eq_tol(ring / US, 1272.32 + 8589934592.0 * 190.0 / (384e3 * 96.0),
                                    0.01);
        } else {
            ck_assert_int_ne(cfg.algo, WEFT_COLL_ALGO_COLLNET);
            tune_refused(&sys, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_COLLNET, WEFT_COLL_PROTO_AUTO);
            /* `weft coll --algo collnet` prints this message: it must say what to set */
            weft_coll_tuning_t ft = {0};
            ft.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_COLLNET;
            ck_assert(!weft_coll_tune(&ft, &sys, WEFT_COLL_ALL_REDUCE, S, &cfg, NULL, &error));
            ck_assert_ptr_nonnull(strstr(error->message, "sharp = true"));
        }
        weft_fabric_free(f);
        weft_topo_free(t);
    }
}
END_TEST

START_TEST(collnet_simulates_at_nccl_bandwidth)
{
    /* The simulated CollNet all-reduce on 12 SuperPOD nodes against NCCL's formula (NCCL's
     * choice, CollNet chain: 192 GB/s, see collnet_runs_only_with_sharp). By hand for S =
     * 8 GiB, 16 channels of 85 chunks (nccl_chunks()): every GPU is the head of 1/8 of
     * each chunk. Its NIC carries S / 8 up into the SHARP leaf of its rail and S / 8 back
     * at the efficiency NCCL's figure gives the network, 192 / (8 x 50 GB/s) = 0.48, that
     * is 24 GB/s: S / 8 / 24e9 = 44739.2 us, NCCL's bandwidth term. Its NVLink carries
     * 7/8 S of scatter and 7/8 S of broadcast each way, 1.75 x 8 GiB / 450 GB/s =
     * 33402.6 us, hidden behind the network as the chunks pipeline. The pipeline's fill
     * and drain add about one chunk's network time (44739 / 85 = 526 us) plus the steps'
     * latencies (scatter 3.7, up 15.5, down 15.5, broadcast 3.7 us: NCCL's hwLat, the NET
     * one split over the trip up and down): about 45,300 us, 1.1 % above NCCL's 44808.4.
     * The test asks for -5 % to +10 %, under both network models (flow shares
     * every link: nothing but the pipeline's ends may differ), at 1 GiB (5661.6 us) and
     * 8 GiB. Before this model (a ring reduce-scatter whose chunks ran step by step, so
     * the network waited for the whole reduce-scatter and the all-gather for the whole
     * network) it was 74,019 us, 1.65x. */
    weft_topo_t *t = superpod12(TRUE);
    weft_fabric_t *f = weft_fabric_new(t);
    gint members[96];
    g_autoptr(weft_coll_layout_t) L = all_gpus(f, members);
    g_autoptr(GError) error = NULL;
    weft_coll_system_t sys;
    ck_assert(weft_coll_system_init(&sys, f, L, NULL, &error));
    static const guint64 sizes[] = {1ull << 30, 8ull << 30};
    static const weft_net_model_t models[] = {WEFT_NET_ANALYTICAL, WEFT_NET_FLOW};
    for (guint si = 0; si < G_N_ELEMENTS(sizes); si++) {
        weft_coll_config_t cfg;
        weft_coll_costs_t c;
        tune_ok(NULL, &sys, WEFT_COLL_ALL_REDUCE, sizes[si], &cfg, &c);
        ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_COLLNET);
        ck_assert_double_eq_tol(c.efficiency, 192.0 / 400.0, 0.01);
        g_autoptr(weft_coll_plan_t) plan =
            weft_coll_plan_build(WEFT_COLL_ALL_REDUCE, &cfg, L, sizes[si], &error);
        ck_assert_msg(plan != NULL, "%s", error != NULL ? error->message : "?");
        weft_coll_tuning_fill_exec(&sys, &c, &plan->exec);
        for (guint mi = 0; mi < G_N_ELEMENTS(models); mi++) {
            weft_sim_t *sim = weft_sim_new(1);
            weft_net_t *net = weft_net_new(sim, f, models[mi]);
            weft_time_t ps = weft_coll_time_full(sim, net, plan, L->vertex, NULL, &error);
            ck_assert_msg(ps > 0, "%s", error != NULL ? error->message : "?");
            double ratio = (double)ps / (double)c.model_ps;
            printf("collnet 12 x 8 H100, %" G_GUINT64_FORMAT " B, %s: simulated %.2f us, NCCL "
                   "%.2f us, ratio %.3f\n",
                   sizes[si], models[mi] == WEFT_NET_FLOW ? "flow" : "analytical", ps / US,
                   c.model_ps / US, ratio);
            ck_assert_double_ge(ratio, 0.95);
            ck_assert_double_le(ratio, 1.10);
            weft_net_free(net);
            weft_sim_free(sim);
        }
    }
    weft_fabric_free(f);
    weft_topo_free(t);
}
END_TEST

START_TEST(nccl_time_never_beats_the_gpu_ports)
{
    /* Two GB200 NVL72 racks (144 GPUs, 72 per NVLink domain) on a rail-optimized NDR
     * fabric with SHARP. NCCL's CollNet direct (tuning.cc): 72 channels (one per GPU head)
     * x 48 GB/s (the ring graph's bwIntra) = 3456, / factor 1 (72 GPUs / 72 channels),
     * x 0.85 (compute capability >= 90), x 0.5 = 1468.8 GB/s of algbw. But an all-reduce
     * must move S out of every GPU and S into it (tuning.c, port_bound_us()), and a GB200's
     * ports are 18 NVLink5 links x 50 GB/s = 900 GB/s plus its NIC's 50 GB/s (NDR) each
     * way: 950 GB/s. So NCCL's predicted time for 8 GiB is at least 8589934592 / 950e3 =
     * 9042.04 us plus CollNet direct's latency, 2 x (3.7 + 71 x 0.4) + 31 = 95.2 us, where
     * the formula alone gives 95.2 + 5848.27 = 5943.47 us. */
    weft_topo_t *t = cluster_text("[cluster]\nkind = gb200-nvl72\nnodes = 2\n"
                                  "fabric = rail-optimized\nsharp = true\n");
    weft_fabric_t *f = weft_fabric_new(t);
    guint n = weft_topo_n_gpus(t);
    ck_assert_uint_eq(n, 144);
    g_autofree gint *members = g_new(gint, n);
    for (guint g = 0; g < n; g++) {
        members[g] = weft_topo_gpu_vertex(t, g);
    }
    g_autoptr(weft_coll_layout_t) L = weft_coll_layout_new(f, members, n);
    ck_assert(L->collnet);
    g_autoptr(GError) error = NULL;
    weft_coll_system_t sys;
    ck_assert(weft_coll_system_init(&sys, f, L, NULL, &error));
    ck_assert_double_eq_tol(sys.intra_phys_GBps + sys.net_phys_GBps, 950.0, 1e-6);
    /* the formula's own figure is above the bound (so the cap is what the test checks) */
    ck_assert_double_eq_tol(sys.bw_GBps[F_AR][WEFT_NCCL_COLLNET_DIRECT][SIMPLE], 1468.8, 1e-6);
    const guint64 S = 8ull << 30;
    double bound_us = 95.2 + 8589934592.0 / 950e3; /* 9137.24 */
    weft_time_t m = weft_coll_model_time(&sys, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_COLLNET,
                                         WEFT_COLL_PROTO_SIMPLE, S);
    ck_assert_double_eq_tol(m / US, bound_us, 0.01);
    weft_coll_tuning_t tun = {0};
    tun.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_COLLNET;
    weft_coll_config_t cfg;
    weft_coll_costs_t c;
    tune_ok(&tun, &sys, WEFT_COLL_ALL_REDUCE, S, &cfg, &c);
    ck_assert_double_eq_tol(c.model_ps / US, bound_us, 0.01);
    ck_assert_double_le(c.algbw_Bps, 950e9 * (1 + 1e-9));
    /* every NCCL choice, any size: algbw at most the ports' 950 GB/s */
    for (guint64 size = 1u << 20; size <= S; size <<= 3) {
        tune_ok(NULL, &sys, WEFT_COLL_ALL_REDUCE, size, &cfg, &c);
        ck_assert_double_le(c.algbw_Bps, 950e9 * (1 + 1e-9));
    }
    /* where the formula stays below the ports, nothing changes: one DGX H100 node's NVLS
     * all-reduce of 8 GiB is NCCL's 32235.25 us (weft coll, dgx-h100.ini; 266 GB/s) */
    weft_topo_t *h = cluster_text("[cluster]\nkind = dgx-h100\n");
    weft_fabric_t *hf = weft_fabric_new(h);
    gint hm[8];
    g_autoptr(weft_coll_layout_t) HL = all_gpus(hf, hm);
    weft_coll_system_t hs;
    ck_assert(weft_coll_system_init(&hs, hf, HL, NULL, &error));
    tune_ok(NULL, &hs, WEFT_COLL_ALL_REDUCE, S, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_NVLS);
    ck_assert_double_eq_tol(c.model_ps / US, 32235.25, 0.01);
    weft_fabric_free(hf);
    weft_topo_free(h);
    weft_fabric_free(f);
    weft_topo_free(t);
}
END_TEST

/* ---- properties over the bundled clusters ------------------------------------------- */

/* The first @g GPUs of each of the first @m NVLink domains of @t (fewer where a domain has
 * fewer); returns the member count. */
static guint
first_of_domains(const weft_topo_t *t, guint g, guint m, gint *members, guint cap)
{
    guint nd = weft_topo_n_domains(t), n = 0;
    g_autofree guint *taken = g_new0(guint, MAX(nd, 1u));
    for (guint i = 0; i < weft_topo_n_gpus(t) && n < cap; i++) {
        gint v = weft_topo_gpu_vertex(t, i);
        gint d = weft_topo_vertex_domain(t, v);
        if (d >= 0 && (guint)d < m && taken[d] < g) {
            taken[d]++;
            members[n++] = v;
        }
    }
    return n;
}

typedef struct {
    guint cases, forced, autos, slow_autos;
    double worst_ratio;
    guint per_reason[16];
} prop_stats_t;

/*
 * Where auto's choice simulates more than 25 % slower than the best alternative, and why:
 * NCCL chooses by its formula (tuning.cc), and in these classes weft's simulation of the
 * chosen plan takes longer than that formula says. Each is a known fidelity gap of the
 * plan or of NCCL's formula, not of the choice; a case outside them fails the test.
 */
static const struct {
    weft_coll_algo_t algo;
    weft_coll_proto_t proto;
    gboolean rooted; /* broadcast and reduce only */
    const char *why;
    gboolean best; /* matched by the best alternative's algorithm (any protocol), not auto's */
} slow_reasons[] = {
    {WEFT_COLL_ALGO_COLLNET, WEFT_COLL_PROTO_SIMPLE, FALSE,
     "CollNet of a few chunks per channel (1-16 MiB): each chunk crosses the SHARP tree "
     "store-and-forward, up then down, where the switches reduce cut-through and NCCL's "
     "formula charges the bytes once (from 1 GiB it is within 3 % of the formula: "
     "collnet_simulates_at_nccl_bandwidth)",
     FALSE},
    {WEFT_COLL_ALGO_TREE, WEFT_COLL_PROTO_LL, FALSE,
     "the tree's LL/LL128 plans pipeline finely (tuning.c tree_chunks()), but NCCL's formula "
     "counts log2i(nodes) levels, rounded down (3 nodes: 1, the tree is 2 deep), and sees "
     "neither a 2:1 fabric's shared spines nor the NIC an uneven layout's member shares", FALSE},
    {WEFT_COLL_ALGO_TREE, WEFT_COLL_PROTO_LL128, FALSE, "as tree/LL", FALSE},
    {WEFT_COLL_ALGO_TREE, WEFT_COLL_PROTO_SIMPLE, FALSE,
     "tree Simple moves NCCL's whole 512 KiB steps store-and-forward: the fill of the "
     "levels comes on top of NCCL's 28 us per hop (issue 16, item 5)", FALSE},
    {WEFT_COLL_ALGO_RING, WEFT_COLL_PROTO_LL, TRUE,
     "NCCL's formula charges a ring broadcast or reduce one hop of latency (sameChannels, "
     "tuning.cc); the simulated chain pays every hop", FALSE},
    {WEFT_COLL_ALGO_RING, WEFT_COLL_PROTO_LL128, FALSE,
     "the ring's LL128 runs whole 576,000-byte chunks store-and-forward step by step; NCCL "
     "forwards 128-byte lines as they arrive (the tree's plans pipeline finely, tuning.c "
     "tree_chunks(); the ring's do not)", FALSE},
    {WEFT_COLL_ALGO_NVLS_TREE, WEFT_COLL_PROTO_SIMPLE, FALSE,
     "NVLS tree with few GPUs per node runs below NCCL's formula (issue 16, item 3)", FALSE},
    {WEFT_COLL_ALGO_TREE, WEFT_COLL_PROTO_AUTO, FALSE,
     "the best is a tree, which the analytical model runs fast on few GPUs per node: an "
     "interior node's NIC carries its parent and two children, which only the flow model "
     "shares (issue 16, item 4)",
     TRUE},
    /* the last two: matched by the costs and by NCCL's times, not by the choice (see below) */
    {WEFT_COLL_ALGO_AUTO, WEFT_COLL_PROTO_AUTO, FALSE,
     "auto's first network messages exceed aws-ofi-nccl's 8 KiB eager limit (LL's lines are "
     "twice their data) where the best's fit it: auto waits for the receivers' control "
     "messages, which NCCL's formula does not see; without that wait auto is within 25 %",
     FALSE},
    {WEFT_COLL_ALGO_AUTO, WEFT_COLL_PROTO_AUTO, FALSE,
     "a near tie in NCCL's formula (the two within 5 %): NCCL could take either", FALSE},
};

/* Tunes @op of @size with @tun, builds and simulates the plan alone (analytical); returns
 * the simulated time (ps), -1 when the choice is unsupported; *@model_ps gets NCCL's time,
 * *@rdv_ps (when not NULL) the rendezvous the plan waits for (weft_coll_costs_t). */
static weft_time_t
sim_choice(weft_sim_t *sim, weft_net_t *net, const weft_coll_system_t *sys,
           weft_coll_layout_t *L, const weft_coll_tuning_t *tun, weft_coll_op_t op, guint64 size,
           weft_coll_config_t *cfg, weft_time_t *model_ps, weft_time_t *rdv_ps, const char *what)
{
    g_autoptr(GError) error = NULL;
    weft_coll_costs_t c;
    if (!weft_coll_tune(tun, sys, op, size, cfg, &c, &error)) {
        ck_assert_msg(g_error_matches(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED),
                      "%s: tune: %s", what, error->message);
        return -1;
    }
    g_autoptr(weft_coll_plan_t) plan = weft_coll_plan_build(op, cfg, L, size, &error);
    /* what the tuner offers, the layout must run: a valid communicator never fails */
    ck_assert_msg(plan != NULL, "%s: %s %s chosen but its plan fails: %s", what,
                  weft_coll_algo_name(cfg->algo), weft_coll_tuning_proto_name(cfg->proto),
                  error != NULL ? error->message : "?");
    weft_coll_tuning_fill_exec(sys, &c, &plan->exec);
    weft_time_t ps = weft_coll_time_full(sim, net, plan, L->vertex, NULL, &error);
    ck_assert_msg(ps > 0, "%s: simulation: %s", what, error != NULL ? error->message : "?");
    *model_ps = c.model_ps;
    if (rdv_ps != NULL) {
        *rdv_ps = c.rendezvous_ps;
    }
    return ps;
}

/*
 * For every layout of 1..8 GPUs per node on 1..4 nodes of @cluster, every tuned operation,
 * every forced (algorithm, protocol) the tuner accepts and auto: NCCL's predicted time is
 * finite, positive and at most 2x the simulated time of the plan it chose (the unsigned
 * ring latency of issue 13 made it 2^32 hop latencies, about 1e3-1e6x); the tuner only
 * offers what the layout can build; and auto's simulated time is within 25 % of the best
 * alternative's, else the case is printed with NCCL's own times for both (NCCL's choice
 * comes from its formula, which weft's simulation does not always share).
 */
static void
check_cluster_properties(const char *cluster, weft_net_model_t model, guint max_nodes,
                         prop_stats_t *st)
{
    g_autofree char *path = topo_path(cluster);
    g_autoptr(GError) error = NULL;
    weft_topo_t *t = weft_topo_load(path, &error);
    ck_assert_msg(t != NULL, "%s: %s", cluster, error != NULL ? error->message : "?");
    weft_fabric_t *f = weft_fabric_new(t);
    weft_sim_t *sim = weft_sim_new(1);
    weft_net_t *net = weft_net_new(sim, f, model);
    static const weft_coll_op_t ops[] = {WEFT_COLL_ALL_REDUCE,     WEFT_COLL_ALL_GATHER,
                                         WEFT_COLL_REDUCE_SCATTER, WEFT_COLL_BROADCAST,
                                         WEFT_COLL_REDUCE,         WEFT_COLL_ALL_TO_ALL};
    static const weft_coll_algo_t algos[] = {WEFT_COLL_ALGO_RING, WEFT_COLL_ALGO_TREE,
                                             WEFT_COLL_ALGO_NVLS, WEFT_COLL_ALGO_NVLS_TREE,
                                             WEFT_COLL_ALGO_COLLNET};
    static const guint64 sizes[] = {64u << 10, 1u << 20, 16u << 20};
    guint nd = MIN(weft_topo_n_domains(t), max_nodes);
    gint members[64];
    /* one node of a multi-node cluster is its node kind's single-node cluster, tested alone */
    for (guint m = nd > 1 ? 2 : 1; m <= nd; m++) {
        /* GPUs per node: one (every data-parallel group under TP = 8), two (TP = 4), odd
         * and a full DGX node; 4 to 7 behave as their neighbours (bounded time) */
        static const guint per_node[] = {1, 2, 3, 8};
        for (guint gi = 0; gi < G_N_ELEMENTS(per_node); gi++) {
            guint g = per_node[gi];
            guint n = first_of_domains(t, g, m, members, G_N_ELEMENTS(members));
            if (n < 2 || (gi > 0 && n == first_of_domains(t, per_node[gi - 1], m, members, 64))) {
                continue; /* one member, or no new layout (the domains are smaller) */
            }
            n = first_of_domains(t, g, m, members, G_N_ELEMENTS(members));
            /* and uneven: the last node one member short (8 + 7), which NCCL runs with the
             * algorithms such a layout supports */
            for (guint cut = 0; cut <= (m > 1 && g > 2 ? 1u : 0u); cut++) {
                if (model == WEFT_NET_FLOW && cut == 0) {
                    continue; /* the flow pass is for the uneven layouts (see below) */
                }
                g_autoptr(weft_coll_layout_t) L = weft_coll_layout_new(f, members, n - cut);
                weft_coll_tuning_t tun = {0};
                weft_coll_system_t sys;
                ck_assert(weft_coll_system_init(&sys, f, L, &tun, &error));
                for (guint o = 0; o < G_N_ELEMENTS(ops); o++) {
                    for (guint s = 0; s < G_N_ELEMENTS(sizes); s++) {
                        char what[160];
                        g_snprintf(what, sizeof what, "%s, %u GPUs x %u nodes%s, %s of %" G_GUINT64_FORMAT
                                   " B", cluster, g, m, cut ? " (the last one short)" : "",
                               weft_coll_op_name(ops[o]), sizes[s]);
                        weft_coll_config_t acfg;
                        weft_time_t amodel, ardv;
                        weft_time_t auto_ps = sim_choice(sim, net, &sys, L, &tun, ops[o], sizes[s],
                                                         &acfg, &amodel, &ardv, what);
                        ck_assert_msg(auto_ps > 0, "%s: auto has no choice", what);
                        st->autos++;
                        weft_time_t best_ps = auto_ps, best_model = amodel, best_rdv = ardv;
                        weft_coll_config_t bcfg = acfg;
                        for (guint a = 0; a < G_N_ELEMENTS(algos); a++) {
                            for (weft_coll_proto_t p = WEFT_COLL_PROTO_LL; p <= WEFT_COLL_PROTO_SIMPLE;
                                 p++) {
                                weft_coll_tuning_t ft = tun;
                                ft.algo[ops[o]] = algos[a];
                                ft.proto[ops[o]] = p;
                                weft_coll_config_t cfg;
                                weft_time_t nccl_ps, rdv;
                                weft_time_t ps =
                                    sim_choice(sim, net, &sys, L, &ft, ops[o], sizes[s], &cfg, &nccl_ps,
                                               &rdv, what);
                                if (ps < 0) {
                                    continue;
                                }
                                st->cases++;
                                st->forced++;
                                /* Under analytical a GPU's NIC shared by channels to
                                 * different peers is not seen (issue 16, item 4): on uneven
                                 * layouts the plan then runs up to 2x fast; the flow pass
                                 * checks those. */
                                gboolean exact = model == WEFT_NET_FLOW || cut == 0;
                                if (nccl_ps >= 0 && exact) {
                                    /* finite, positive, and not far above what the plan takes */
                                    ck_assert_msg(nccl_ps > 0 && nccl_ps <= 2 * ps,
                                                  "%s, %s/%s: NCCL's time %.3f us, simulated %.3f us",
                                                  what, weft_coll_algo_name(cfg.algo),
                                                  weft_coll_tuning_proto_name(cfg.proto), nccl_ps / US,
                                                  ps / US);
                                }
                                if (ps < best_ps) {
                                    best_ps = ps;
                                    best_model = nccl_ps;
                                    best_rdv = rdv;
                                    bcfg = cfg;
                                }
                            }
                        }
                        double ratio = (double)auto_ps / best_ps;
                        st->worst_ratio = MAX(st->worst_ratio, ratio);
                        if (ratio > 1.25) {
                            st->slow_autos++;
                            gboolean rooted =
                                ops[o] == WEFT_COLL_BROADCAST || ops[o] == WEFT_COLL_REDUCE;
                            gint why = -1;
                            if (best_model > 0 && amodel > 0 &&
                                fabs((double)best_model - (double)amodel) <= 0.05 * amodel) {
                                why = G_N_ELEMENTS(slow_reasons) - 1;
                            } else if (ardv > best_rdv &&
                                       (double)(auto_ps - (ardv - best_rdv)) <= 1.25 * best_ps) {
                                why = G_N_ELEMENTS(slow_reasons) - 2;
                            }
                            for (guint k = 0; k + 2 < G_N_ELEMENTS(slow_reasons) && why < 0;
                                 k++) {
                                if (slow_reasons[k].best
                                        ? slow_reasons[k].algo == bcfg.algo &&
                                              model == WEFT_NET_ANALYTICAL
                                        : slow_reasons[k].algo == acfg.algo &&
                                              slow_reasons[k].proto == acfg.proto &&
                                              (!slow_reasons[k].rooted || rooted)) {
                                    why = (gint)k;
                                }
                            }
                            printf("auto %.0f%% slower: %s: auto %s/%s %.2f us (NCCL %.2f), best "
                                   "%s/%s %.2f us (NCCL %.2f): %s\n",
                                   100.0 * (ratio - 1.0), what, weft_coll_algo_name(acfg.algo),
                                   weft_coll_tuning_proto_name(acfg.proto), auto_ps / US, amodel / US,
                                   weft_coll_algo_name(bcfg.algo),
                                   weft_coll_tuning_proto_name(bcfg.proto), best_ps / US,
                                   best_model / US, why >= 0 ? slow_reasons[why].why : "UNEXPLAINED");
                            ck_assert_msg(why >= 0, "%s: auto's choice is %.0f%% slower than %s/%s "
                                          "for no known reason", what, 100.0 * (ratio - 1.0),
                                          weft_coll_algo_name(bcfg.algo),
                                          weft_coll_tuning_proto_name(bcfg.proto));
                            st->per_reason[why]++;
                        }
                    }
                }
            }
        }
    }
    weft_net_free(net);
    weft_sim_free(sim);
    weft_fabric_free(f);
    weft_topo_free(t);
}

/* Four p5 nodes (32 H100) over EFA: AWS's tuner decides all-reduce (tuner_ofi.h). */
START_TEST(efa_over_four_nodes_follows_aws_tuner)
{
    weft_coll_system_t s;
    sys_p5(&s);
    s.n_ranks = 32;
    s.n_nodes = 4;
    weft_coll_system_fill_tables(&s);
    /* Not EFA: NCCL's formula, tree LL at 8 B: 6.8 + 2 (7 x 0.6 + log2i(4) x 5.0) = 35.2 us. */
    weft_coll_config_t cfg;
    weft_coll_costs_t c;
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 8, &cfg, &c);
    ck_assert_double_eq_tol(c.model_ps / US, 35.2, 0.01);
    s.ofi = TRUE;
    ck_assert(weft_coll_ofi_decides(&s, TRUE, FALSE));
    ck_assert(!weft_coll_ofi_decides(&s, FALSE, FALSE)); /* all-gather: no model */
    ck_assert(!weft_coll_ofi_decides(&s, TRUE, TRUE));   /* NCCL_ALGO set: not loaded */
    /* The plugin's constants, bytes per us: 12.5 GiB/s per rail x 4 rails x 8 channels. */
    const double B = 12.5 * 1073741824.0 * 1e-6 * 4 * 8;
    weft_coll_ofi_choice_t o;
    /* tree LL: 2 (8 - 1) 0.6 + 2 log2(4) 20 = 88.4 us, B / 2 x 0.5 */
    ck_assert_double_eq_tol(weft_coll_ofi_cost(&s, WEFT_NCCL_TREE, LL, 8, &o),
                            88.4 + 8.0 / (B / 4), 1e-9);
    ck_assert_double_eq_tol(o.latency_us, 88.4, 1e-9);
    ck_assert_double_eq(o.net_us, 20.0);
    ck_assert_double_eq(o.completion_us, 0.0);
    /* ring Simple: 2 x 4 x 23 + (62 - 8) x 3.4 = 367.6 us, B */
    ck_assert_double_eq_tol(weft_coll_ofi_cost(&s, WEFT_NCCL_RING, SIMPLE, 1 << 20, &o),
                            367.6 + 1048576.0 / B, 1e-9);
    ck_assert_double_eq(o.completion_us, 3.0);
    /* NVLS tree: 2 (23 + 2 x 23) = 138 us, 8 x min(20 GiB/s, 25 GiB/s) */
    ck_assert_double_eq_tol(weft_coll_ofi_cost(&s, WEFT_NCCL_NVLS_TREE, SIMPLE, 1 << 20, NULL),
                            138.0 + 1048576.0 / (20 * 1073741824.0 * 1e-6 * 8), 1e-9);
    ck_assert(weft_coll_ofi_cost(&s, WEFT_NCCL_NVLS_TREE, LL, 8, NULL) < 0);
    ck_assert(weft_coll_ofi_cost(&s, WEFT_NCCL_COLLNET_DIRECT, SIMPLE, 8, NULL) < 0);
    ck_assert(weft_coll_ofi_cost(&s, WEFT_NCCL_NVLS, SIMPLE, 8, NULL) < 0);
    /* Chosen: tree LL at 8 B (88.4 us, NCCL's formula said 35.2), its net hop 20 us; tree
     * LL128 at 2 MiB (97.5 + 10.42 = 107.92 against tree LL's 107.93); ring LL128 at 128
     * MiB (262.6 + 333.3 = 595.9 against ring Simple's 680.1). */
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 8, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_TREE);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_LL);
    ck_assert_double_eq_tol(c.model_ps / US, 88.4 + 8.0 / (B / 4), 1e-6);
    ck_assert_int_eq(c.hop_inter_ps, (weft_time_t)llround(20.0 * US));
    ck_assert_int_eq(c.hop_intra_ps, (weft_time_t)llround(0.6 * US));
    ck_assert_int_eq(c.base_ps, (weft_time_t)llround(6.8 * US)); /* the kernel's launch is NCCL's */
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 2u << 20, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_TREE);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_LL128);
    /* the executor runs at AWS's bandwidth, B / 2 x 0.9375 = 201.3 GB/s, over what the links
     * allow the tree on 4 nodes: 8 GPUs x 50 GB/s / 2 (the busiest NIC carries 2 S each way,
     * weft_coll_i_dtree_nic_load()): 1.0066, so the links' rate (clamped to 1) */
    ck_assert(B / 2 * 0.9375 * 1e6 / (400e9 / 2) > 1.0);
    ck_assert_double_eq_tol(c.efficiency, 1.0, 1e-12);
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 128u << 20, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_RING);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_LL128);
    ck_assert_double_eq_tol(c.model_ps / US, 262.6 + 134217728.0 / (B * 0.9375), 1e-6);
    /* Without LL128 (Blackwell in NCCL 2.20): the plugin's choice stays within what the
     * tables enable: tree LL at 2 MiB. */
    for (int f = 0; f < 5; f++) {
        for (int a = 0; a < WEFT_NCCL_N_ALGOS; a++) {
            s.bw_GBps[f][a][LL128] = 0.0;
        }
    }
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 2u << 20, &cfg, &c);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_LL);
    /* Forced, or another operation, or 2 nodes: NCCL's formula. */
    weft_coll_tuning_t tree = {0};
    tree.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_TREE;
    tune_ok(&tree, &s, WEFT_COLL_ALL_REDUCE, 8, &cfg, &c);
    ck_assert_double_eq_tol(c.model_ps / US, 35.2, 0.01);
    s.n_ranks = 16;
    s.n_nodes = 2;
    weft_coll_system_fill_tables(&s);
    ck_assert(!weft_coll_ofi_decides(&s, TRUE, FALSE));
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 8, &cfg, &c);
    ck_assert_double_eq_tol(c.model_ps / US, 25.2, 0.01);
}
END_TEST

/* The tree's LL/LL128 plans pipeline in at least 8 (h - 1) chunks (tuning.c tree_chunks()):
 * two p5 nodes, h = 2 ((8 - 1) + 1) = 16: 120; Simple keeps NCCL's 512 KiB steps. */
START_TEST(tree_ll_pipelines_finely)
{
    weft_coll_system_t s;
    sys_p5(&s);
    weft_coll_tuning_t t = {0};
    t.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_TREE;
    weft_coll_config_t cfg;
    weft_coll_costs_t c;
    t.proto[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_PROTO_LL;
    tune_ok(&t, &s, WEFT_COLL_ALL_REDUCE, 128u << 10, &cfg, &c);
    ck_assert_uint_eq(cfg.chunks, 120); /* NCCL's own: 1 chunk of 32 KiB per channel */
    /* 128 MiB over 16 channels: NCCL's 32 KiB chunks, 256 of them, are finer still */
    tune_ok(&t, &s, WEFT_COLL_ALL_REDUCE, 128u << 20, &cfg, &c);
    ck_assert_uint_eq(cfg.chunks, 256);
    t.proto[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_PROTO_LL128;
    tune_ok(&t, &s, WEFT_COLL_ALL_REDUCE, 128u << 20, &cfg, &c);
    /* LL128: nsteps = 1 + 1 + 0.8 = 2.8; 128 MiB / (16 x 576,000) = 14 < 2.8 x 64 / 8 = 22.4:
     * halved to 288,000 (29 >= 22.4), ceil(8 MiB / 288,000) = 30 chunks, fewer than 120 */
    ck_assert_uint_eq(cfg.chunks, 120);
    t.proto[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_PROTO_SIMPLE;
    tune_ok(&t, &s, WEFT_COLL_ALL_REDUCE, 128u << 20, &cfg, &c);
    ck_assert_uint_eq(cfg.chunks, 16); /* 8 MiB per channel / 512 KiB */
}
END_TEST

START_TEST(tuning_properties_hold_on_every_bundled_cluster)
{
    static const char *const clusters[] = {
        "dgx-h100.ini",   "dgx-a100.ini",         "dgx-b200.ini",          "gb200-nvl72.ini",
        "p5-h100-2node.ini", "leaf-spine-2to1.ini", "dgx-h100-superpod.ini",
        "selene-a100-superpod.ini", "switch-8.ini", "ring-8.ini",
        /* the SuperPOD with sharp = true: CollNet among the choices */
        "../tests/golden/dgx-h100-superpod-sharp.ini"};
    prop_stats_t st = {0};
    for (guint i = 0; i < G_N_ELEMENTS(clusters); i++) {
        check_cluster_properties(clusters[i], WEFT_NET_ANALYTICAL, 4, &st);
    }
    /* the uneven layouts' bound under flow, which sees a NIC shared (two fabrics) */
    check_cluster_properties("p5-h100-2node.ini", WEFT_NET_FLOW, 2, &st);
    check_cluster_properties("leaf-spine-2to1.ini", WEFT_NET_FLOW, 3, &st);
    printf("tuning properties: %u auto choices, %u forced choices simulated; auto more than 25%% "
           "slower than the best alternative in %u (worst %.2fx)\n",
           st.autos, st.forced, st.slow_autos, st.worst_ratio);
    for (guint k = 0; k < G_N_ELEMENTS(slow_reasons); k++) {
        printf("  %3u x auto %s/%s: %s\n", st.per_reason[k],
               weft_coll_algo_name(slow_reasons[k].algo),
               weft_coll_tuning_proto_name(slow_reasons[k].proto), slow_reasons[k].why);
    }
    fflush(stdout);
}
END_TEST

/* ---- the plan budget ------------------------------------------------------------------ */

/* Simulates (@op, @S) on the first @g GPUs of the first @m nodes of @cluster under @model as
 * NCCL's tuning chooses it (@algo forced unless AUTO), once with the plan budget and once
 * with NCCL's own chunk count; returns the relative change the budget made. */
static double
budget_change(const char *cluster, guint m, guint g, weft_coll_op_t op, weft_coll_algo_t algo,
              guint64 S, weft_net_model_t model)
{
    g_autofree char *path = topo_path(cluster);
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_topo_t) t = weft_topo_load(path, &error);
    ck_assert_msg(t != NULL, "%s: %s", cluster, error != NULL ? error->message : "?");
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    gint members[128];
    guint n = first_of_domains(t, g, m, members, G_N_ELEMENTS(members));
    g_autoptr(weft_coll_layout_t) L = weft_coll_layout_new(f, members, n);
    weft_coll_tuning_t tun = {0};
    tun.algo[op] = algo;
    weft_coll_system_t sys;
    ck_assert(weft_coll_system_init(&sys, f, L, &tun, &error));
    /* NCCL's count: the same system without the plan counts has no budget */
    weft_coll_system_t raw = sys;
    memset(raw.plan_xfers, 0, sizeof raw.plan_xfers);
    weft_coll_config_t cfg, full;
    weft_coll_costs_t c, cf;
    tune_ok(&tun, &sys, op, S, &cfg, &c);
    tune_ok(&tun, &raw, op, S, &full, &cf);
    ck_assert_int_eq(cfg.algo, full.algo);
    ck_assert_msg(cfg.chunks < full.chunks, "%s: the budget did not cut %u chunks", cluster,
                  full.chunks);
    weft_time_t ps[2];
    for (guint k = 0; k < 2; k++) {
        g_autoptr(weft_sim_t) sim = weft_sim_new(1);
        g_autoptr(weft_net_t) net = weft_net_new(sim, f, model);
        g_autoptr(weft_coll_plan_t) plan =
            weft_coll_plan_build(op, k == 0 ? &cfg : &full, L, S, &error);
        ck_assert_msg(plan != NULL, "%s", error != NULL ? error->message : "?");
        weft_coll_tuning_fill_exec(&sys, k == 0 ? &c : &cf, &plan->exec);
        ps[k] = weft_coll_time_full(sim, net, plan, L->vertex, NULL, &error);
        ck_assert_msg(ps[k] > 0, "%s", error != NULL ? error->message : "?");
    }
    double change = (double)ps[0] / (double)ps[1] - 1.0;
    printf("plan budget: %s, %u x %u GPUs, %s %s of %" G_GUINT64_FORMAT
           " B: %u chunks (%" G_GUINT64_FORMAT
           " transfers per channel and chunk) instead of NCCL's %u: %.1f us instead of %.1f "
           "(%+.2f%%)\n",
           cluster, m, g, weft_coll_algo_name(cfg.algo), weft_coll_op_name(op), S, cfg.chunks,
           sys.plan_xfers[op == WEFT_COLL_BROADCAST ? 0 : F_AR][cfg.algo], full.chunks, ps[0] / US,
           ps[1] / US, 100.0 * change);
    return change;
}

START_TEST(plan_budget_changes_no_result_by_more_than_2_percent)
{
    /* Cases where the plan budget (2^19 transfers) cuts NCCL's chunk count, each simulated
     * with the budget's count and with NCCL's (collectives.chunks forced to it). The floor
     * of tuning.c (fill depth k: C' >= k C / (0.02 C + 1.02 k)) bounds the change by 2 %
     * on uncongested links:
     * - NVLS on a GB200 NVL72 rack, 2 GiB: 2 x 72 x 18 = 2,592 transfers per channel and
     *   chunk (every GPU up to each of 18 NVLS chips and down), k = 1;
     * - NVLS tree on 8 DGX H100 nodes, 1 GiB: 8 x 4 chips x 8 x 17 + 8 x 2 x 2 x 7 = 4,576
     *   per channel and chunk, k = 2 + 2 x 3 (NCCL's trees over 8 nodes are 3 deep) + 2 - 1;
     * - a ring broadcast over the 72 GPUs of the rack, 4 GiB: 71 hops, k = 70. */
    double ch[3];
    ch[0] = budget_change("gb200-nvl72.ini", 1, 72, WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALGO_NVLS,
                          2ull << 30, WEFT_NET_ANALYTICAL);
    ch[1] = budget_change("dgx-h100-superpod.ini", 8, 8, WEFT_COLL_ALL_REDUCE,
                          WEFT_COLL_ALGO_NVLS_TREE, 1ull << 30, WEFT_NET_ANALYTICAL);
    ch[2] = budget_change("gb200-nvl72.ini", 1, 72, WEFT_COLL_BROADCAST, WEFT_COLL_ALGO_RING,
                          4ull << 30, WEFT_NET_ANALYTICAL);
    for (guint i = 0; i < G_N_ELEMENTS(ch); i++) {
        ck_assert_msg(fabs(ch[i]) <= 0.02, "case %u: the budget changed the time by %.2f%%", i,
                      100.0 * ch[i]);
    }
}
END_TEST

/* Simulates @op of @S on the first @m nodes (all their GPUs) of @cluster as NCCL's tuning
 * chooses it with @algo forced; returns the time in us and NCCL's model in *@model_us. */
static double
sim_nodes(const char *cluster, guint m, weft_coll_algo_t algo, guint64 S, weft_net_model_t model,
          double *model_us)
{
    g_autofree char *path = topo_path(cluster);
    g_autoptr(GError) error = NULL;
    g_autoptr(weft_topo_t) t = weft_topo_load(path, &error);
    ck_assert_msg(t != NULL, "%s", error != NULL ? error->message : "?");
    g_autoptr(weft_fabric_t) f = weft_fabric_new(t);
    gint members[128];
    guint n = first_of_domains(t, 8, m, members, G_N_ELEMENTS(members));
    g_autoptr(weft_coll_layout_t) L = weft_coll_layout_new(f, members, n);
    weft_coll_tuning_t tun = {0};
    tun.algo[WEFT_COLL_ALL_REDUCE] = algo;
    weft_coll_system_t sys;
    ck_assert(weft_coll_system_init(&sys, f, L, &tun, &error));
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_net_t) net = weft_net_new(sim, f, model);
    weft_coll_config_t cfg;
    weft_time_t mps;
    weft_time_t ps =
        sim_choice(sim, net, &sys, L, &tun, WEFT_COLL_ALL_REDUCE, S, &cfg, &mps, NULL, cluster);
    *model_us = mps / US;
    return ps / US;
}

START_TEST(nvls_tree_on_8_nodes_under_flow_is_bound_by_its_interior_nics)
{
    /* NVLS tree, 1 GiB all-reduce over 8 DGX H100 nodes of the SuperPOD (8 GPUs each,
     * NDR 50 GB/s per GPU on its rail). Each GPU's piece P = S / 8 crosses NCCL's two
     * trees over the 8 nodes, half each; an interior node (3 of 8 in each tree, interior
     * in one tree only) sends P/2 up and 2 x P/2 down and receives as much in that tree,
     * and P/2 each way as a leaf of the other: 2P per direction through its NIC.
     * NCCL's formula says so with min(bwIntra, bwInter / 2) = min(40, 48 / 2) beyond 2
     * nodes: 8 x 24 x 5/6 = 160 GB/s algbw (6,818 us). Under flow the plan's transfers
     * share that NIC themselves, so the efficiency is NCCL's figure without the halving:
     * 8 x min(40, 48) x 5/6 = 266.7 GB/s over what the links allow, min(450, 8 x 50) =
     * 400: 0.667. Bound: t >= 2P / (50 GB/s x 0.667), algbw <= 4 x 33.3 = 133.3 GB/s,
     * busbw <= 133.3 x 2 x 63 / 64 = 262.5. Charging the halved efficiency on top of the
     * shared NIC gave 129 (49 % of the bound; 2 nodes, which have no interior node, were
     * fine). The plan's tree keeps interior NICs busy 82 % of the time (215); the test
     * asks at least 3/4 of the bound. The analytical model serializes the same transfers
     * at the NIC's endpoint ports (net.h), with the same unhalved efficiency: the same
     * bound holds, and it too reaches 3/4 of it. */
    const guint64 S = 1ull << 30;
    double model_us;
    double flow_us = sim_nodes("dgx-h100-superpod.ini", 8, WEFT_COLL_ALGO_NVLS_TREE, S,
                               WEFT_NET_FLOW, &model_us);
    double busbw = S / (flow_us * 1e3) * 2.0 * 63.0 / 64.0;
    const double bound = 50.0 * (266.7 / 400.0) * 4.0 * 2.0 * 63.0 / 64.0;
    printf("nvls tree, 8 DGX H100 nodes, 1 GiB, flow: %.1f us, busbw %.1f GB/s (bound %.1f; "
           "NCCL's formula %.1f us)\n",
           flow_us, busbw, bound, model_us);
    ck_assert_double_le(busbw, bound * 1.001);
    ck_assert_double_ge(busbw, 0.75 * bound);
    double an_us = sim_nodes("dgx-h100-superpod.ini", 8, WEFT_COLL_ALGO_NVLS_TREE, S,
                             WEFT_NET_ANALYTICAL, &model_us);
    double an_busbw = S / (an_us * 1e3) * 2.0 * 63.0 / 64.0;
    printf("the same under analytical: %.1f us, busbw %.1f GB/s\n", an_us, an_busbw);
    ck_assert_double_le(an_busbw, bound * 1.001);
    ck_assert_double_ge(an_busbw, 0.75 * bound);
}
END_TEST

/* NCCL 2.27.3's tables (v2.27.3-1 src/graph/tuning.cc), by hand from the same graphs. */
START_TEST(nccl_2_27_3_tables_restate_its_tuning_cc)
{
    weft_coll_system_t s;
    sys_dgx_h100(&s, TRUE);
    s.nccl_version = WEFT_NCCL_2_27_3;
    weft_coll_system_fill_tables(&s);
    /* Ring LL: min(llMaxBws[Hopper][1 node] = 141, 360 x .5 = 180) = 141 x 8/14 (2.20.3:
     * min(87.7, 360/4) x 8/14); latency unchanged, 6.6 + 14 x .6 = 15.0. */
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_RING][LL], 141.0 * 8 / 14, 1e-9);
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_RING][LL], 15.0, 1e-9);
    /* All-gather ring LL: min(141, 180) x 8/7 (2.20.3 divided by 3 on one node). */
    ck_assert_double_eq_tol(s.bw_GBps[F_AG][WEFT_NCCL_RING][LL], 141.0 * 8 / 7, 1e-9);
    /* Tree Simple: baseLat 8.4 + 2 x 7 x hwLat 4.0 = 64.4 (2.20.3: 0 + 2 x 7 x 28 = 392). */
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_TREE][SIMPLE], 64.4, 1e-9);
    /* NVLS: hwLat 25 (23 in 2.20.3); all-gather: min(40 x 7/8, 40 x .9) x 8 = 280, no
     * conversion to algorithm bandwidth (2.20.3: 8 x 40 x 5/6 = 266.67). */
    ck_assert_double_eq_tol(s.lat_us[F_AR][WEFT_NCCL_NVLS][SIMPLE], 25.0, 1e-9);
    ck_assert_double_eq_tol(s.bw_GBps[F_AR][WEFT_NCCL_NVLS][SIMPLE], 320.0 * 5 / 6, 1e-9);
    ck_assert_double_eq_tol(s.bw_GBps[F_AG][WEFT_NCCL_NVLS][SIMPLE], 280.0, 1e-9);
    /* MAXCHANNELS is 64 for Hopper too: 2 x 12 = 24 coll channels either way here. */
    ck_assert_uint_eq(s.coll_channels, 24);

    /* One GPU per node on 4 nodes (Intel): the ring's network steps are 2 (nodes - 1) = 6
     * of nsteps 6 (2.20.3: 2 nodes = 8, signed -2 hops), each at the tree's network hwLat
     * since ppn = 1: Simple 8.4 + 6 x 14 = 92.4, LL 6.6 + 6 x 5.0 = 36.6 (the ring's own
     * 2.7 would give 22.8). */
    weft_coll_system_t r;
    memset(&r, 0, sizeof r);
    r.n_ranks = 4;
    r.n_nodes = 4;
    r.ppn = 1;
    r.arch = 90;
    r.nvlink = TRUE;
    r.intra_GBps = 370.8;
    r.net_GBps = 50.0;
    r.intra_phys_GBps = 450.0;
    r.net_phys_GBps = 50.0;
    r.graph[WEFT_NCCL_RING] = (weft_coll_graph_t){2, 24.0, 24.0};
    r.graph[WEFT_NCCL_TREE] = r.graph[WEFT_NCCL_RING];
    r.nccl_version = WEFT_NCCL_2_27_3;
    weft_coll_system_fill_tables(&r);
    ck_assert_double_eq_tol(r.lat_us[F_AR][WEFT_NCCL_RING][SIMPLE], 92.4, 1e-9);
    ck_assert_double_eq_tol(r.lat_us[F_AR][WEFT_NCCL_RING][LL], 36.6, 1e-9);
    /* LL128 at one GPU per node: .92 (2.20.3: .7): min(2 x 24 x .92, 2 x 36.7) x 4/6 */
    ck_assert_double_eq_tol(r.bw_GBps[F_AR][WEFT_NCCL_RING][LL128], 48.0 * 0.92 * 4 / 6, 1e-9);

    /* Blackwell: its own rows (2 x Hopper's) and LL128 on under 2.27.3; 2.20.3 reads
     * Hopper's row and leaves LL128 off. One B200 node, ring 16 x 45. */
    weft_coll_system_t b;
    memset(&b, 0, sizeof b);
    b.n_ranks = 8;
    b.n_nodes = 1;
    b.ppn = 8;
    b.arch = 100;
    b.nvlink = TRUE;
    b.intra_GBps = 18 * 40.0;
    b.intra_phys_GBps = 900.0;
    b.graph[WEFT_NCCL_RING] = (weft_coll_graph_t){16, 45.0, 45.0};
    b.graph[WEFT_NCCL_TREE] = b.graph[WEFT_NCCL_RING];
    weft_coll_system_fill_tables(&b);
    ck_assert_double_eq_tol(b.bw_GBps[F_AR][WEFT_NCCL_RING][LL], 87.7 * 8 / 14, 1e-9);
    ck_assert_double_eq_tol(b.bw_GBps[F_AR][WEFT_NCCL_RING][LL128], 0.0, 1e-12);
    b.nccl_version = WEFT_NCCL_2_27_3;
    weft_coll_system_fill_tables(&b);
    ck_assert_double_eq_tol(b.bw_GBps[F_AR][WEFT_NCCL_RING][LL], 282.0 * 8 / 14, 1e-9);
    /* LL128: min(720 x .92, 16 x 73.4) = 662.4, x 8/14 */
    ck_assert_double_eq_tol(b.bw_GBps[F_AR][WEFT_NCCL_RING][LL128], 662.4 * 8 / 14, 1e-9);
}
END_TEST

START_TEST(nccl_2_27_3_moves_the_nvls_threshold_to_2_mib)
{
    /* One DGX H100 node: under 2.20.3 NVLS takes over from ring LL at 512 KiB; under
     * 2.27.3 ring LL runs at 141 x 8/14 = 80.57 GB/s, so at 1 MiB ring LL takes
     * 15 + 1048576 / 80571 = 28.01 us against NVLS's 25 + 1048576 / 266667 = 28.93, and at
     * 2 MiB 41.03 against 32.86: NVLS from 2 MiB (NCCL 2.27's switch point on 8 H200). */
    weft_coll_system_t s;
    sys_dgx_h100(&s, TRUE);
    s.nccl_version = WEFT_NCCL_2_27_3;
    weft_coll_system_fill_tables(&s);
    weft_coll_config_t cfg;
    weft_coll_costs_t c;
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 1 << 20, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_RING);
    ck_assert_int_eq(cfg.proto, WEFT_COLL_PROTO_LL);
    ck_assert_double_eq_tol(c.model_ps / US, 15.0 + 1048576.0 / (1000.0 * 141 * 8 / 14), 1e-5);
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 2 << 20, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_NVLS);
    ck_assert_double_eq_tol(c.model_ps / US, 25.0 + 2097152.0 / (1000.0 * 320 * 5 / 6), 1e-5);
    /* The executor's NVLS step costs the new hwLat's half: 12.5 us. */
    ck_assert_int_eq(c.hop_intra_ps, 12500000);
    /* The default is still 2.20.3: NVLS at 1 MiB. */
    sys_dgx_h100(&s, TRUE);
    tune_ok(NULL, &s, WEFT_COLL_ALL_REDUCE, 1 << 20, &cfg, &c);
    ck_assert_int_eq(cfg.algo, WEFT_COLL_ALGO_NVLS);
}
END_TEST

START_TEST(nccl_2_27_3_nvls_tree_chunks_follow_its_schedule)
{
    /* Two p5 nodes, NVLS tree, 16 channels x 8 heads = 128 concurrent ops: 2.27.3 starts
     * from 128 KiB (2 nodes), 64 KiB below 4 x 128 x 128 KiB = 64 MiB, 32 KiB below
     * 128 x 64 KiB = 8 MiB. 1 GiB / (128 x 128 KiB) = 64 chunks; 16 MiB at 64 KiB: 2;
     * 4 MiB at 32 KiB: 1. On 4 nodes the start is 64 KiB: 1 GiB in 128 chunks. */
    weft_coll_system_t s;
    sys_p5(&s);
    s.nccl_version = WEFT_NCCL_2_27_3;
    weft_coll_system_fill_tables(&s);
    weft_coll_tuning_t t = {0};
    t.algo[WEFT_COLL_ALL_REDUCE] = WEFT_COLL_ALGO_NVLS_TREE;
    weft_coll_config_t cfg;
    weft_coll_costs_t c;
    tune_ok(&t, &s, WEFT_COLL_ALL_REDUCE, 1ull << 30, &cfg, &c);
    ck_assert_uint_eq(cfg.channels, 16);
    ck_assert_uint_eq(cfg.chunks, 64);
    tune_ok(&t, &s, WEFT_COLL_ALL_REDUCE, 16ull << 20, &cfg, &c);
    ck_assert_uint_eq(cfg.chunks, 2);
    tune_ok(&t, &s, WEFT_COLL_ALL_REDUCE, 4ull << 20, &cfg, &c);
    ck_assert_uint_eq(cfg.chunks, 1);
    s.n_nodes = 4;
    s.n_ranks = 32;
    weft_coll_system_fill_tables(&s);
    tune_ok(&t, &s, WEFT_COLL_ALL_REDUCE, 1ull << 30, &cfg, &c);
    ck_assert_uint_eq(cfg.chunks, 128);
}
END_TEST

static Suite *
tuning_suite(void)
{
    Suite *s = suite_create("tuning");
    TCase *tables = tcase_create("tables");
    tcase_add_test(tables, dgx_h100_graphs_follow_nccl_search);
    tcase_add_test(tables, p5_graphs_follow_nccl_search);
    tcase_add_test(tables, blackwell_graphs_follow_nccl_2_25_search);
    tcase_add_test(tables, dgx_h100_tables_restate_tuning_cc);
    tcase_add_test(tables, p5_tables_restate_tuning_cc);
    tcase_add_test(tables, nccl_2_27_3_tables_restate_its_tuning_cc);
    tcase_add_test(tables, nccl_2_27_3_moves_the_nvls_threshold_to_2_mib);
    tcase_add_test(tables, nccl_2_27_3_nvls_tree_chunks_follow_its_schedule);
    suite_add_tcase(s, tables);
    TCase *choice = tcase_create("choice");
    tcase_add_test(choice, one_node_chooses_ll_ring_small_and_nvls_large);
    tcase_add_test(choice, protocol_moves_from_ll_to_ll128_to_simple_with_size);
    tcase_add_test(choice, two_nodes_choose_tree_small_and_nvls_tree_large);
    tcase_add_test(choice, forced_choices_are_honoured);
    tcase_add_test(choice, unsupported_forced_choices_are_errors);
    tcase_add_test(choice, predicted_time_grows_with_size_for_a_fixed_choice);
    tcase_add_test(choice, names_round_trip);
    tcase_add_test(choice, one_gpu_per_node_ring_latency_is_signed_as_in_nccl);
    tcase_add_test(choice, one_gpu_per_node_ring_runs_at_nic_speed);
    tcase_add_test(choice, uneven_layouts_choose_what_they_can_run);
    tcase_add_test(choice, collnet_runs_only_with_sharp);
    tcase_add_test(choice, nccl_time_never_beats_the_gpu_ports);
    tcase_add_test(choice, efa_over_four_nodes_follows_aws_tuner);
    tcase_add_test(choice, tree_ll_pipelines_finely);
    suite_add_tcase(s, choice);
    TCase *planner = tcase_create("planner");
    tcase_add_test(planner, planner_returns_its_cached_plan_and_the_same_choice);
    tcase_add_test(planner, planner_shares_a_plan_between_communicators_of_one_shape);
    tcase_add_test(planner, planner_plain_model_plans_by_member_count);
    tcase_add_test(planner, planner_errors_are_not_cached);
    suite_add_tcase(s, planner);
    TCase *props = tcase_create("properties");
    tcase_add_test(props, tuning_properties_hold_on_every_bundled_cluster);
    tcase_add_test(props, collnet_simulates_at_nccl_bandwidth);
    tcase_set_tags(props, "slow"); /* make check-slow */
    suite_add_tcase(s, props);
    TCase *budget = tcase_create("budget");
    tcase_add_test(budget, plan_budget_changes_no_result_by_more_than_2_percent);
    tcase_add_test(budget, nvls_tree_on_8_nodes_under_flow_is_bound_by_its_interior_nics);
    tcase_set_tags(budget, "slow"); /* make check-slow */
    suite_add_tcase(s, budget);
    TCase *val = tcase_create("validation");
    tcase_add_test(val, dgx_h100_matches_nccl_tests);
    tcase_add_test(val, p5_two_nodes_match_nccl_tests);
    tcase_set_tags(val, "slow"); /* make check-slow */
    suite_add_tcase(s, val);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(tuning_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
