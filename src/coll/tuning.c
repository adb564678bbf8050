/* SPDX-License-Identifier: MIT */
/*
 * NCCL's tuning model restated: the latency and bandwidth tables of NCCL
 * 2.20.3 (src/graph/tuning.cc, commit b6475625), the inputs its topology search
 * would find on weft's clusters, the choice of algorithm, protocol and channels
 * per call (src/enqueue.cc), and the costs the executor charges for the choice.
 * No NCCL code is copied; the numbers are restated with their source.
 */
#define G_LOG_DOMAIN "weft-coll"

#include "coll/tuning.h"

#include "coll/tuner_ofi.h"

#include <math.h>
#include <string.h>

#include "coll/coll_private.h"

/* ---- NCCL's constants ----------------------------------------------------------------
 * Every table below is NCCL 2.20.3, src/graph/tuning.cc unless said otherwise. Rows are
 * NCCL's algorithm order (tree, ring, CollNet direct, CollNet chain, NVLS, NVLS tree),
 * columns NCCL's protocol order (LL, LL128, Simple); weft's protocol enum puts AUTO first,
 * so proto_index() maps it. Latencies are in us, bandwidths in GB/s (1e9 bytes/s).
 */

/* NCCL's protocol index of a resolved weft protocol. */
static int
proto_index(weft_coll_proto_t p)
{
    return (int)p - 1;
}

/* baseLat[version][algo][proto] (tuning.cc "baseLat"): launch and synchronisation per
 * call. NCCL 2.27.3 gives the tree's Simple protocol the ring's 8.4 us (v2.27.3-1
 * src/graph/tuning.cc). */
static const double base_lat[WEFT_NCCL_N_VERSIONS][WEFT_NCCL_N_ALGOS][3] = {
    {
        {6.8, 14.0, 0.0}, /* tree */
        {6.6, 14.0, 8.4}, /* ring */
        {0.0, 0.0, 0.0},  /* CollNet direct */
        {0.0, 0.0, 0.0},  /* CollNet chain */
        {0.0, 0.0, 0.0},  /* NVLS */
        {0.0, 0.0, 0.0},  /* NVLS tree */
    },
    {
        {6.8, 14.0, 8.4},
        {6.6, 14.0, 8.4},
        {0.0, 0.0, 0.0},
        {0.0, 0.0, 0.0},
        {0.0, 0.0, 0.0},
        {0.0, 0.0, 0.0},
    },
};

enum { HW_NVLINK, HW_PCI, HW_NET };

/* hwLat[version][link type][algo][proto] (tuning.cc "hwLat"): per-hop latency, the wire
 * included. NCCL 2.27.3 cut the tree's Simple hop from 28 to 4 us (NVLink, PCI) and 14 us
 * (network), raised NVLS and NVLS tree over NVLink from 23 to 25 us, and gives CollNet a
 * PCI row (v2.27.3-1 src/graph/tuning.cc). */
static const double hw_lat[WEFT_NCCL_N_VERSIONS][3][WEFT_NCCL_N_ALGOS][3] = {
    {
        /* NVLink */
        {{0.6, 1.25, 28.0},
         {0.6, 1.9, 3.4},
         {0.0, 0.0, 3.7},
         {0.0, 0.0, 2.8},
         {0.0, 0.0, 23.0},
         {0.0, 0.0, 23.0}},
        /* PCI */
        {{1.0, 1.9, 28.0},
         {1.0, 2.5, 5.7},
         {0.0, 0.0, 3.7},
         {0.0, 0.0, 2.8},
         {0.0, 0.0, 0.0},
         {0.0, 0.0, 0.0}},
        /* network */
        {{5.0, 8.5, 28.0},
         {2.7, 4.0, 14.0},
         {0.0, 0.0, 31.0},
         {0.0, 0.0, 30.0},
         {0.0, 0.0, 18.0},
         {0.0, 0.0, 14.0}},
    },
    {
        {{0.6, 1.25, 4.0},
         {0.6, 1.9, 3.4},
         {0.0, 0.0, 3.7},
         {0.0, 0.0, 2.8},
         {0.0, 0.0, 25.0},
         {0.0, 0.0, 25.0}},
        {{1.0, 1.9, 4.0},
         {1.0, 2.5, 5.7},
         {0.0, 0.0, 3.7},
         {0.0, 0.0, 2.8},
         {0.0, 0.0, 0.0},
         {0.0, 0.0, 0.0}},
        {{5.0, 8.5, 14.0},
         {2.7, 4.0, 14.0},
         {0.0, 0.0, 31.0},
         {0.0, 0.0, 30.0},
         {0.0, 0.0, 18.0},
         {0.0, 0.0, 14.0}},
    },
};

/* The latency tables of @sys's NCCL version. */
static double
base_latency(const weft_coll_system_t *sys, int a, int p)
{
    return base_lat[sys->nccl_version][a][p];
}

static double
hw_latency(const weft_coll_system_t *sys, int hw, int a, int p)
{
    return hw_lat[sys->nccl_version][hw][a][p];
}

/* The network hop NCCL's formula charges (a, p): its hwLat; NCCL 2.27.3 takes the tree's
 * network row at one GPU per node, where "latencies are fully exposed" (tuning.cc,
 * ncclTopoTuneModel() interLat). The graph's latencyInter that both versions add is 0 for
 * weft's networks (no net plugin reports a latency). */
static double
net_latency(const weft_coll_system_t *sys, int a, int p)
{
    if (sys->nccl_version >= WEFT_NCCL_2_27_3 && sys->ppn == 1 && sys->n_nodes == sys->n_ranks) {
        return hw_latency(sys, HW_NET, WEFT_NCCL_TREE, p);
    }
    return hw_latency(sys, HW_NET, a, p);
}

/* GPU generation index of the per-channel tables: Volta, Ampere, Hopper, and from NCCL
 * 2.27.3 Blackwell (tuning.cc VOLTA/AMPERE/HOPPER/BLACKWELL_COMPCAP_IDX; under 2.20.3
 * Blackwell takes Hopper's row, 2.20.3 having none). */
static int
cc_index(const weft_coll_system_t *sys)
{
    guint arch = sys->arch;
    if (arch >= 100 && sys->nccl_version >= WEFT_NCCL_2_27_3) {
        return 3;
    }
    return arch >= 90 ? 2 : arch >= 80 ? 1 : 0;
}

/* llMaxBws[version][index1][nodes index]: LL's cap in GB/s; index1 is the GPU generation
 * on one node, the CPU vendor (Intel 0, AMD 1) across nodes. NCCL 2.27.3 raised Hopper's
 * row to {141, 45, 35} and added Blackwell's, twice Hopper's. */
static const double ll_max_bws[WEFT_NCCL_N_VERSIONS][4][3] = {
    {
        {39.0, 39.0, 20.4},
        {87.7, 22.5, 19.0},
        {87.7, 22.5, 19.0},
        {87.7, 22.5, 19.0},
    },
    {
        {39.0, 39.0, 20.4},
        {87.7, 22.5, 19.0},
        {141.0, 45.0, 35.0},
        {2 * 141.0, 2 * 45.0, 2 * 35.0},
    },
};
/* perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws [generation][nodes index];
 * the Blackwell rows (2 x Hopper's) are NCCL 2.27.3's, read only under it (cc_index()). */
static const double per_ch_max_ring_ll128[4][3] = {
    {20.0, 20.0, 20.0},
    {20.0, 20.0, 20.0},
    {36.7, 36.7, 36.7},
    {2 * 36.7, 2 * 36.7, 2 * 36.7},
};
static const double per_ch_max_tree_ll128[4][3] = {
    {20.0, 20.0, 20.0},
    {20.0, 20.0, 20.0},
    {36.7, 36.7, 29.0},
    {2 * 36.7, 2 * 36.7, 2 * 29.0},
};
static const double per_ch_max_tree[4][3] = {
    {26.5, 18.5, 10.0},
    {24.0, 23.6, 17.8},
    {38.7, 41.4, 36.0},
    {2 * 38.7, 2 * 41.4, 2 * 36.0},
};

/* treeCorrectionFactor[proto][log2(nBytes / 64)] for sizes 64 B to 256 MiB (the same in
 * both versions). */
static const double tree_correction[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
};

/* Network post overhead in us per CPU vendor (tuning.cc getNetOverhead(): Intel 1, AMD 2,
 * others 1), tripled for Simple. */
static double
net_overhead_us(weft_coll_cpu_t cpu)
{
    return cpu == WEFT_COLL_CPU_AMD ? 2.0 : 1.0;
}

/* Speed arrays of the topology search, GB/s per channel (NCCL 2.20.3 src/graph/search.cc
 * speedArrayIntra/Inter and sm90SpeedArrayIntra/Inter; Blackwell's, sm100SpeedArrayIntra
 * and sm100SpeedArrayInter, came with NCCL 2.25.1, the first release that supports it:
 * v2.25.1-1 src/graph/search.cc). */
static const double speed_intra[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0,
                                     9.0,  7.0,  6.0,  5.0,  4.0,  3.0};
static const double speed_inter[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                     7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double sm90_speed_intra[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0};
static const double sm90_speed_inter[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                          15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double sm100_speed_intra[] = {90.0, 80.0, 70.0, 60.0, 50.0,
                                           40.0, 30.0, 24.0, 20.0, 19.0};
static const double sm100_speed_inter[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                           15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
/* NCCL 2.27.3's changes (v2.27.3-1 src/graph/search.cc): 11.0 added to sm90's intra array,
 * 18.0 to sm100's, and sm100's inter array starts at 47.9. */
static const double sm90_speed_intra_2_27[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
                                               15.0, 12.0, 11.0, 6.0,  3.0};
static const double sm100_speed_intra_2_27[] = {90.0, 80.0, 70.0, 60.0, 50.0, 40.0,
                                                30.0, 24.0, 20.0, 19.0, 18.0};
static const double sm100_speed_inter_2_27[] = {47.9, 45.0, 42.0, 40.0, 30.0, 24.0,
                                                22.0, 20.0, 17.5, 15.0, 12.0, 6.0,
                                                3.0,  2.4,  1.2,  0.24, 0.12};

/* The speed array NCCL's search walks for @sys (*@n entries): by GPU generation, intra on
 * one node (NCCL trims the NICs when every rank is local, src/graph/topo.cc
 * ncclTopoTrimSystem()), inter across nodes. */
static const double *
speed_array(const weft_coll_system_t *sys, guint *n)
{
    gboolean multi = sys->n_nodes > 1;
    if (sys->nccl_version >= WEFT_NCCL_2_27_3 && sys->arch >= 100) {
        *n = multi ? G_N_ELEMENTS(sm100_speed_inter_2_27) : G_N_ELEMENTS(sm100_speed_intra_2_27);
        return multi ? sm100_speed_inter_2_27 : sm100_speed_intra_2_27;
    }
    if (sys->nccl_version >= WEFT_NCCL_2_27_3 && sys->arch >= 90 && !multi) {
        *n = G_N_ELEMENTS(sm90_speed_intra_2_27);
        return sm90_speed_intra_2_27;
    }
    if (sys->arch >= 100) {
        *n = multi ? G_N_ELEMENTS(sm100_speed_inter) : G_N_ELEMENTS(sm100_speed_intra);
        return multi ? sm100_speed_inter : sm100_speed_intra;
    }
    if (sys->arch >= 90) {
        *n = multi ? G_N_ELEMENTS(sm90_speed_inter) : G_N_ELEMENTS(sm90_speed_intra);
        return multi ? sm90_speed_inter : sm90_speed_intra;
    }
    *n = multi ? G_N_ELEMENTS(speed_inter) : G_N_ELEMENTS(speed_intra);
    return multi ? speed_inter : speed_intra;
}

/* NVLink bandwidth per link as NCCL counts it (NCCL 2.20.3 src/graph/topo.h SM70_NVLINK_BW,
 * SM80_NVLINK_BW, SM90_NVLINK_BW; SM100_NVLINK_BW = 40.0 from NCCL 2.25.1, v2.25.1-1
 * src/graph/topo.h: 2.20.3 has none, and 40.1 is NCCL 2.28's figure), GB/s. */
static double
nvlink_per_link_GBps(guint arch)
{
    return arch >= 100 ? 40.0 : arch >= 90 ? 20.6 : 20.0;
}

/*
 * Search limits, by the NCCL version that runs the GPU. Under 2.20.3 (Blackwell: 2.25.1, the
 * first release with it): MAXCHANNELS = 32, 64 from 2.25.1 (src/include/device.h); ring
 * and tree graphs search at most MAXCHANNELS/2 (src/init.cc ringGraph->maxChannels); NVLS
 * runs 16 channels (NCCL_NVLS_NCHANNELS, src/transport/nvls.cc), 32 on sm100 in 2.25.1
 * (NVLS_NCHANNELS_SM100); the NVLS graph has a head per GPU, at most NCCL_MAX_NVLS_ARITY =
 * 32 in 2.25.1 (search.cc: maxChannels = min(NCCL_MAX_NVLS_ARITY, GPUs)). Under 2.27.3
 * (v2.27.3-1): MAXCHANNELS = 64 for every GPU; NVLS 16 channels on sm90, on sm100 32
 * across nodes and 24 in one NVLink domain (NVLS_NCHANNELS_SM100, NVLS_NCHANNELS_SM100_NVL);
 * NCCL_MAX_NVLS_ARITY = 32.
 */
static guint
max_channels(const weft_coll_system_t *sys)
{
    return sys->arch >= 100 || sys->nccl_version >= WEFT_NCCL_2_27_3 ? 64 : 32;
}

static guint
search_max_channels(const weft_coll_system_t *sys)
{
    return max_channels(sys) / 2;
}

static guint
nvls_nchannels(const weft_coll_system_t *sys)
{
    if (sys->arch < 100) {
        return 16;
    }
    if (sys->nccl_version >= WEFT_NCCL_2_27_3) {
        return sys->n_nodes > 1 ? 32 : 24;
    }
    return 32;
}

static guint
nvls_max_heads(const weft_coll_system_t *sys)
{
    return sys->arch >= 100 || sys->nccl_version >= WEFT_NCCL_2_27_3 ? MIN(sys->ppn, 32u)
                                                                       : sys->ppn;
}

/* Threads per block and per-thread work thresholds that decide channel counts (NCCL 2.20.3
 * src/include/device.h NCCL_LL_MAX_NTHREADS 512, NCCL_LL128_MAX_NTHREADS 640,
 * NCCL_SIMPLE_MAX_NTHREADS 512; src/include/comm.h NCCL_LL_THREAD_THRESHOLD 8,
 * NCCL_LL128_THREAD_THRESHOLD 8, NCCL_SIMPLE_THREAD_THRESHOLD 64; ring LL's threshold is
 * multiplied by the rank count in tuning.cc). */
static const guint max_threads[3] = {512, 640, 512};
static const guint64 thread_threshold[3] = {8, 8, 64};

/* NCCL's five tuned functions (ncclFunc*): broadcast, reduce, all-gather,
 * reduce-scatter, all-reduce. */
enum { F_BROADCAST, F_REDUCE, F_ALL_GATHER, F_REDUCE_SCATTER, F_ALL_REDUCE, N_FUNCS };

/* NCCL's function for a weft operation, or -1 when NCCL does not tune it. */
static int
nccl_func(weft_coll_op_t op)
{
    switch (op) {
    case WEFT_COLL_ALL_REDUCE:
    case WEFT_COLL_BARRIER:
        return F_ALL_REDUCE;
    case WEFT_COLL_REDUCE:
        return F_REDUCE;
    case WEFT_COLL_ALL_GATHER:
        return F_ALL_GATHER;
    case WEFT_COLL_REDUCE_SCATTER:
    case WEFT_COLL_REDUCE_SCATTER_BLOCK:
        return F_REDUCE_SCATTER;
    case WEFT_COLL_BROADCAST:
        return F_BROADCAST;
    default:
        return -1;
    }
}

static int
log2i(guint64 n)
{
    int l = 0;
    while (n >>= 1) {
        l++;
    }
    return l;
}

/* ---- the topology search, restated -------------------------------------------------- */

/*
 * Channels a ring or tree graph gets at per-channel speed @s: every channel passes
 * through each GPU of a node once, so a GPU's NVLink carries @s per channel (all but one
 * GPU per channel on several nodes, whose outgoing hop is its NIC); across nodes each
 * channel enters and leaves through a NIC, one per GPU, each carrying floor(net / s).
 */
static guint
ring_channels(const weft_coll_system_t *sys, double s)
{
    double per_gpu = sys->intra_GBps;
    guint ch;
    if (sys->n_nodes <= 1) {
        ch = (guint)floor(per_gpu / s + 1e-9);
    } else {
        guint by_nic = sys->ppn * (guint)floor(sys->net_GBps / s + 1e-9);
        double frac = sys->ppn > 1 ? (double)(sys->ppn - 1) / sys->ppn : 1.0;
        guint by_nvl = (guint)floor(per_gpu / (s * frac) + 1e-9);
        ch = MIN(by_nic, by_nvl);
    }
    return MIN(ch, search_max_channels(sys));
}

/* ncclTopoCompute() for the ring and tree patterns: speeds from the largest at most the
 * path bandwidth down, best channels x speed, stop below 0.49 x the best speed; then
 * ncclTopoDupChannels(). */
static weft_coll_graph_t
search_ring(const weft_coll_system_t *sys)
{
    gboolean multi = sys->n_nodes > 1;
    guint nsp;
    const double *sp = speed_array(sys, &nsp);
    double max_bw = multi ? MIN(sys->net_GBps, sys->intra_GBps) : sys->intra_GBps;
    guint i = 0;
    while (i < nsp - 1 && sp[i] > max_bw) {
        i++;
    }
    weft_coll_graph_t best = {0, 0.0, 0.0};
    for (; i < nsp; i++) {
        if (best.channels > 0 && sp[i] / best.bw_inter <= 0.49) {
            break;
        }
        guint ch = ring_channels(sys, sp[i]);
        if (ch > 0 && ch * sp[i] > best.channels * best.bw_intra + 1e-9) {
            best.channels = ch;
            best.bw_intra = best.bw_inter = sp[i];
        }
    }
    if (best.channels == 0) {
        /* NCCL falls back to one channel at 0.1 GB/s ("Could not find a path"). */
        best.channels = 1;
        best.bw_intra = best.bw_inter = 0.1;
        return best;
    }
    /* ncclTopoDupChannels(): not below 25 GB/s, nor on sm90+ below 50 GB/s with > 4 channels. */
    if (best.bw_intra >= 25.0 && !(sys->arch > 80 && best.bw_intra < 50.0 && best.channels > 4)) {
        guint dup = MIN(best.channels * 2, search_max_channels(sys));
        guint div = (dup + best.channels - 1) / best.channels;
        best.bw_intra /= div;
        best.bw_inter /= div;
        best.channels = dup;
    }
    return best;
}

/* The NVLS pattern: one channel per GPU of the node (each GPU a head; on sm100 at most 32
 * heads); the NVSwitch link of a GPU carries the speed once per channel and twice for its
 * own head (search.cc ncclTopoSearchTryNvls()), so (heads + 1) x s <= NVLink; across nodes
 * the inter speed is raised while below twice the intra speed and within the NIC (pass 2
 * of ncclTopoCompute()). */
static weft_coll_graph_t
search_nvls(const weft_coll_system_t *sys)
{
    weft_coll_graph_t g = {0, 0.0, 0.0};
    if (!sys->nvls || sys->arch < 90 || sys->ppn < 2) {
        return g;
    }
    guint heads = nvls_max_heads(sys);
    double budget = sys->intra_GBps / (heads + 1);
    gboolean multi = sys->n_nodes > 1;
    guint nsp;
    const double *sp = speed_array(sys, &nsp);
    for (guint i = 0; i < nsp; i++) {
        if (sp[i] <= budget + 1e-9 && (!multi || sp[i] <= sys->net_GBps + 1e-9)) {
            g.channels = heads;
            g.bw_intra = g.bw_inter = sp[i];
            break;
        }
    }
    if (g.channels > 0 && multi) {
        for (guint i = 0; i < nsp; i++) {
            if (sp[i] <= sys->net_GBps + 1e-9 && sp[i] <= 2.0 * g.bw_intra + 1e-9) {
                g.bw_inter = MAX(g.bw_inter, sp[i]);
                break;
            }
        }
    }
    return g;
}

/* ---- the tables (ncclTopoTuneModel) ---------------------------------------------------- */

void
weft_coll_system_fill_tables(weft_coll_system_t *sys)
{
    memset(sys->lat_us, 0, sizeof sys->lat_us);
    memset(sys->bw_GBps, 0, sizeof sys->bw_GBps);
    if ((guint)sys->nccl_version >= WEFT_NCCL_N_VERSIONS) {
        sys->nccl_version = WEFT_NCCL_2_20_3; /* a system filled by hand: the default */
    }
    const weft_coll_graph_t *ring = &sys->graph[WEFT_NCCL_RING];
    const weft_coll_graph_t *tree = &sys->graph[WEFT_NCCL_TREE];
    /* comm->nChannels: min of the ring and tree graphs, doubled by ncclTopoPostset()
     * (src/graph/connect.cc), at most MAXCHANNELS. */
    guint base_ch = MIN(ring->channels, tree->channels);
    sys->coll_channels = MAX(1u, MIN(2 * base_ch, max_channels(sys)));
    sys->nvls_channels = nvls_nchannels(sys);
    guint n = sys->n_ranks, nodes = MAX(sys->n_nodes, 1u);
    if (n <= 1) {
        return;
    }
    gboolean v2_27 = sys->nccl_version >= WEFT_NCCL_2_27_3;
    int cci = cc_index(sys);
    int index2 = nodes <= 2 ? (int)nodes - 1 : 2;
    int index1 = nodes == 1 ? cci : sys->cpu == WEFT_COLL_CPU_AMD ? 1 : 0;
    double ll_max = ll_max_bws[sys->nccl_version][index1][index2];
    double tree_max = per_ch_max_tree[cci][index2];
    double ring_ll128_max = per_ch_max_ring_ll128[cci][index2];
    double tree_ll128_max = per_ch_max_tree_ll128[cci][index2];
    double ppn = (double)n / nodes;
    int intra_hw = sys->nvlink ? HW_NVLINK : HW_PCI;
    int hw = nodes == 1 ? intra_hw : HW_NET;

    for (int f = 0; f < N_FUNCS; f++) {
        /* Signed, as NCCL's ints: with one GPU per node an all-reduce ring has 2(n-1) steps
         * of which 2n are counted as network steps, so the intra-node term is -2 hops
         * (NCCL 2.20.3 src/graph/tuning.cc, ncclTopoTuneModel(): nsteps - nInterSteps).
         * Unsigned, the difference wrapped to 2^32 hops (about 4.3e9 us). NCCL 2.27.3
         * counts 2 (nodes - 1) network steps for the all-reduce ring. */
        gint64 nsteps = f == F_ALL_REDUCE                            ? 2 * ((gint64)n - 1)
                        : f == F_REDUCE_SCATTER || f == F_ALL_GATHER ? (gint64)n - 1
                                                                     : (gint64)n;
        gint64 inter_steps = f == F_ALL_REDUCE
                                 ? (nodes > 1 ? 2 * ((gint64)nodes - (v2_27 ? 1 : 0)) : 0)
                             : f == F_REDUCE_SCATTER || f == F_ALL_GATHER ? (gint64)nodes - 1
                                                                          : (gint64)nodes;
        for (int a = 0; a < WEFT_NCCL_N_ALGOS; a++) {
            if ((f == F_BROADCAST || f == F_REDUCE) && a != WEFT_NCCL_RING) {
                continue;
            }
            if ((f == F_REDUCE_SCATTER || f == F_ALL_GATHER) && a != WEFT_NCCL_RING &&
                a != WEFT_NCCL_NVLS && a != WEFT_NCCL_COLLNET_DIRECT) {
                continue;
            }
            const weft_coll_graph_t *g = &sys->graph[a];
            for (int p = 0; p < 3; p++) {
                gboolean nvls_like = a == WEFT_NCCL_NVLS || a == WEFT_NCCL_NVLS_TREE;
                if (nvls_like && p != 2) {
                    continue;
                }
                gboolean collnet = a == WEFT_NCCL_COLLNET_DIRECT || a == WEFT_NCCL_COLLNET_CHAIN;
                double bw = nodes <= 2 || collnet ? g->bw_intra : g->bw_inter;
                if (a == WEFT_NCCL_NVLS) {
                    bw = MIN(g->bw_intra, g->bw_inter);
                    if (v2_27 && f != F_ALL_REDUCE) {
                        /* 2.27.3: all-gather and reduce-scatter move (ppn - 1) / ppn of
                         * their data through the NVSwitch, 0.9 of the NIC's */
                        bw = MIN(g->bw_intra * (ppn - 1.0) / ppn, g->bw_inter * 0.9);
                    }
                }
                if (a == WEFT_NCCL_NVLS_TREE) {
                    bw = MIN(g->bw_intra, nodes <= 2 ? g->bw_inter : g->bw_inter / 2);
                }
                double bus = g->channels * bw;
                /* The model refinements of tuning.cc, in its order. */
                if (a == WEFT_NCCL_RING && p == 0) {
                    /* 2.27.3: half the bus bandwidth for every function */
                    double div = v2_27 ? 2.0
                                 : (nodes > 1 || f == F_ALL_REDUCE || f == F_REDUCE) ? 4.0
                                                                                     : 3.0;
                    bus = MIN(ll_max, bus / div);
                }
                if (a == WEFT_NCCL_RING && p == 1) {
                    /* 2.27.3 dropped the 0.7 at one GPU per node */
                    double eff = ppn < 2 && !v2_27 ? 0.7 : 0.92;
                    bus = MIN(bus * eff, g->channels * ring_ll128_max);
                }
                if (a == WEFT_NCCL_TREE) {
                    bus = MIN(bus * 0.92, g->channels * tree_max);
                }
                if (a == WEFT_NCCL_TREE && p == 0) {
                    bus = MIN(bus / 3.8, ll_max);
                }
                if (a == WEFT_NCCL_TREE && p == 1) {
                    bus = MIN(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                              g->channels * tree_ll128_max);
                }
                if (collnet && p != 2) {
                    bus = 0.0;
                }
                gboolean collnet_ag_rs =
                    a == WEFT_NCCL_COLLNET_DIRECT && (f == F_ALL_GATHER || f == F_REDUCE_SCATTER);
                if (collnet_ag_rs) {
                    /* Needs a CollNet plugin with all-gather/reduce-scatter and one NIC per
                     * GPU; weft models neither: unavailable. */
                    bus = 0.0;
                } else if (a == WEFT_NCCL_COLLNET_DIRECT && p == 2 && g->channels > 0) {
                    double factor = ppn / g->channels;
                    factor -= (factor - 1.0) / 2.0;
                    bus /= factor;
                    if (sys->arch >= 90) {
                        bus *= 0.85;
                    }
                }
                /* bus to algorithm bandwidth: 2.20.3 converts all but CollNet direct's
                 * all-gather and reduce-scatter; 2.27.3 converts no all-gather or
                 * reduce-scatter but the ring's */
                gboolean ag_rs = f == F_ALL_GATHER || f == F_REDUCE_SCATTER;
                gboolean convert = v2_27 ? !(ag_rs && a != WEFT_NCCL_RING) : !collnet_ag_rs;
                if (convert) {
                    double ratio = a == WEFT_NCCL_RING ? (double)n / nsteps
                                   : nvls_like         ? 5.0 / 6.0
                                                       : 0.5;
                    bus *= ratio;
                }
                sys->bw_GBps[f][a][p] = bus;

                double lat = base_latency(sys, a, p);
                double intra_lat = hw_latency(sys, intra_hw, a, p);
                double inter_lat = net_latency(sys, a, p);
                if (a == WEFT_NCCL_RING) {
                    if (f == F_REDUCE || f == F_BROADCAST) {
                        /* weft's searches always find same-channel graphs. */
                        lat += hw_latency(sys, hw, a, p);
                    } else {
                        double over = 0.0;
                        if (nodes > 1) {
                            over = net_overhead_us(sys->cpu) * (p == 2 ? 3.0 : 1.0);
                        }
                        intra_lat = MAX(intra_lat, over);
                        lat += (double)(nsteps - inter_steps) * intra_lat +
                               (double)inter_steps * inter_lat;
                    }
                } else if (a == WEFT_NCCL_TREE) {
                    lat += 2.0 * ((n / nodes - 1) * intra_lat + log2i(nodes) * inter_lat);
                } else if (a == WEFT_NCCL_COLLNET_DIRECT) {
                    lat += 2.0 * (MIN(1.0, ppn - 1) * intra_lat + (ppn - 1) * 0.4) + inter_lat;
                } else if (a == WEFT_NCCL_COLLNET_CHAIN) {
                    lat += 2.0 * (ppn - 1) * intra_lat + inter_lat;
                } else if (a == WEFT_NCCL_NVLS) {
                    lat = intra_lat + (nodes > 1 ? inter_lat : 0.0);
                } else {
                    lat += intra_lat + 2.0 * log2i(nodes) * inter_lat;
                }
                sys->lat_us[f][a][p] = lat;
            }
        }
    }

    /* Enabling (tuning.cc): LL128 by default only on NVLink systems of one generation among
     * Volta, Ampere and Hopper; NVLS tree needs several nodes; CollNet needs in-network
     * reduction (CollNet direct also NVSwitches); NVLS across nodes needs CollNet. */
    gboolean ll128 = sys->nvlink && (sys->arch == 70 || sys->arch == 80 || sys->arch == 90 ||
                                     (v2_27 && sys->arch == 100));
    for (int f = 0; f < N_FUNCS; f++) {
        for (int a = 0; a < WEFT_NCCL_N_ALGOS; a++) {
            gboolean on = TRUE;
            if (a == WEFT_NCCL_NVLS_TREE && (nodes == 1 || sys->uneven)) {
                on = FALSE;
            }
            if ((a == WEFT_NCCL_NVLS || a == WEFT_NCCL_NVLS_TREE) && !sys->nvls) {
                on = FALSE;
            }
            /* NCCL runs NVLS across nodes only together with CollNet (SHARP); weft's NVLS
             * plan reduces inside one NVLink domain, so across nodes it is never chosen
             * (NVLS tree and CollNet remain). */
            if (a == WEFT_NCCL_NVLS && nodes > 1) {
                on = FALSE;
            }
            /* NVLS all-gather and reduce-scatter take at most NCCL_MAX_NVLS_ARITY = 32 GPUs
             * of a node (v2.25.1-1 src/enqueue.cc, v2.27.3-1 updateCollCostTable(); the
             * Hopper nodes weft builds have at most 8) */
            if (a == WEFT_NCCL_NVLS && (f == F_ALL_GATHER || f == F_REDUCE_SCATTER) &&
                sys->ppn > 32) {
                on = FALSE;
            }
            if (!sys->collnet) {
                if (a == WEFT_NCCL_COLLNET_DIRECT || a == WEFT_NCCL_COLLNET_CHAIN) {
                    on = FALSE;
                }
            } else if (a == WEFT_NCCL_COLLNET_DIRECT && !sys->nvlink) {
                on = FALSE;
            }
            for (int p = 0; p < 3; p++) {
                if (!on || (p == 1 && !ll128)) {
                    sys->bw_GBps[f][a][p] = 0.0;
                }
            }
        }
    }
}

/* ---- deriving the system from the cluster ----------------------------------------------- */

/*
 * Member 0's part of its NIC: 1 / the members on its host and rail, as weft's builders put
 * GPUs that share a NIC on that NIC's rail (topo_build.c nics_per_node; p4de: 2 GPUs per EFA);
 * 1 where every member has its own NIC (every GPU on its own rail, or no host or rail). The
 * collectives' figures count one NIC per member (ring_channels(): ppn x floor(net / speed)
 * channels; the efficiency's ppn x net), so a member's share keeps the node's channels x
 * speed within the NICs it has. NCCL's own search (search.cc) would put floor(NIC / speed)
 * channels on each shared NIC at up to its full speed: the same node total, possibly another
 * channel count. O(members).
 */
static double
member_nic_share(const weft_topo_t *topo, const weft_coll_layout_t *layout)
{
    gint v0 = layout->vertex != NULL ? layout->vertex[0] : -1;
    if (v0 < 0) {
        return 1.0;
    }
    gint host = weft_topo_vertex_host(topo, v0), rail = weft_topo_vertex_rail(topo, v0);
    if (host < 0 || rail < 0) {
        return 1.0;
    }
    guint same = 0;
    for (guint i = 0; i < layout->n_members; i++) {
        gint v = layout->vertex[i];
        if (v >= 0 && weft_topo_vertex_host(topo, v) == host &&
            weft_topo_vertex_rail(topo, v) == rail) {
            same++;
        }
    }
    return same > 1 ? 1.0 / same : 1.0;
}

/* The weft operation whose plan stands for NCCL function @f. */
static const weft_coll_op_t func_op[N_FUNCS] = {
    [F_BROADCAST] = WEFT_COLL_BROADCAST,   [F_REDUCE] = WEFT_COLL_REDUCE,
    [F_ALL_GATHER] = WEFT_COLL_ALL_GATHER, [F_REDUCE_SCATTER] = WEFT_COLL_REDUCE_SCATTER,
    [F_ALL_REDUCE] = WEFT_COLL_ALL_REDUCE,
};

/* sys->plan_xfers and fill_depth: what the plan builder makes of each (function, algorithm)
 * on @layout, per channel and chunk (weft_coll_i_count_xfers() of one channel and one
 * chunk: every channel has the same count). */
static void
fill_plan_counts(weft_coll_system_t *sys, const weft_coll_layout_t *layout)
{
    for (int f = 0; f < N_FUNCS; f++) {
        for (guint a = WEFT_COLL_ALGO_RING; a < WEFT_COLL_N_ALGOS; a++) {
            weft_coll_op_t op = func_op[f];
            gboolean nvls_a = a == WEFT_COLL_ALGO_NVLS || a == WEFT_COLL_ALGO_NVLS_TREE;
            if (layout->dom_off == NULL || (nvls_a && layout->nvls_off == NULL) ||
                !weft_coll_i_check_supported(op, (weft_coll_algo_t)a, layout, NULL)) {
                continue; /* a layout filled by hand without its tables: counts unknown */
            }
            sys->plan_xfers[f][a] = weft_coll_i_count_xfers(op, (weft_coll_algo_t)a, layout, 1, 1);
            sys->fill_depth[f][a] = weft_coll_i_fill_depth(op, (weft_coll_algo_t)a, layout);
        }
    }
}

gboolean
weft_coll_system_init(weft_coll_system_t *sys, weft_fabric_t *fabric,
                      const weft_coll_layout_t *layout, const weft_coll_tuning_t *tuning,
                      GError **error)
{
    g_return_val_if_fail(sys != NULL && fabric != NULL && layout != NULL, FALSE);
    const weft_topo_t *topo = weft_fabric_topo(fabric);
    memset(sys, 0, sizeof *sys);
    if (layout->n_members == 0) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "a communicator of 0 members has nothing to tune");
        return FALSE;
    }
    sys->n_ranks = layout->n_members;
    sys->n_nodes = MAX(layout->n_domains, 1u);
    sys->ppn = MAX(layout->max_per_domain, 1u);
    sys->cpu = tuning != NULL ? tuning->cpu : WEFT_COLL_CPU_INTEL;
    sys->nccl_version = tuning != NULL && (guint)tuning->nccl_version < WEFT_NCCL_N_VERSIONS
                            ? tuning->nccl_version
                            : WEFT_NCCL_2_20_3;
    /* the tuning's figure when given, else the cluster's NICs' (topo.h) */
    sys->net_msg_ps = tuning != NULL && tuning->net_msg_ps > 0 ? tuning->net_msg_ps
                                                               : weft_topo_nic_msg_cost(topo);
    sys->ofi = weft_topo_nic_msg_cost(topo) > 0;
    sys->collnet = layout->collnet && sys->n_nodes > 1;
    sys->uneven = !layout->uniform;

    /* NVLink lanes and rate of member 0; else its fastest link (a PCI-like system). */
    gint v0 = layout->vertex[0];
    guint lanes = 0;
    double nvl_Bps = 0.0, best_Bps = 0.0;
    gboolean nvswitch = FALSE;
    guint ne = weft_topo_n_edges(topo);
    for (guint e = 0; e < ne; e++) {
        if (weft_topo_edge_from(topo, (gint)e) != v0) {
            continue;
        }
        double bw = weft_topo_edge_bw(topo, (gint)e);
        best_Bps = MAX(best_Bps, bw);
        if (weft_topo_edge_kind(topo, (gint)e) == WEFT_LINK_NVLINK) {
            lanes += weft_topo_edge_lanes(topo, (gint)e);
            nvl_Bps += bw;
            if (weft_topo_vertex_kind(topo, weft_topo_edge_to(topo, (gint)e)) ==
                WEFT_VERTEX_NVSWITCH) {
                nvswitch = TRUE;
            }
        }
    }
    sys->intra_phys_GBps = (lanes > 0 ? nvl_Bps : best_Bps) / 1e9;
    if (lanes > 0) {
        double per_lane_GBps = nvl_Bps / lanes / 1e9;
        sys->arch = per_lane_GBps >= 49.0 ? 100 : lanes >= 18 ? 90 : lanes >= 12 ? 80 : 70;
        sys->nvlink = TRUE;
        sys->intra_GBps = lanes * nvlink_per_link_GBps(sys->arch);
    } else {
        sys->arch = 90;
        sys->nvlink = FALSE;
        sys->intra_GBps = best_Bps / 1e9;
    }
    /* The layout's NVLS (every member's domain reaches NVLS-capable NVSwitches over links
     * that are up), not the member's own switches: after a fault takes an NVSwitch down,
     * NCCL must not choose NVLS that the plan cannot build. A flat layout has no
     * vertices: its member's NVSwitches are all there is to go by. */
    gboolean nvls_hw = layout->vertex != NULL && layout->vertex[0] >= 0 ? layout->nvls : nvswitch;
    sys->nvls = nvls_hw && sys->arch >= 90 && sys->nvlink;

    gboolean have_intra = FALSE, have_inter = FALSE;
    for (guint i = 1; i < layout->n_members && !(have_intra && have_inter); i++) {
        gboolean same = layout->domain[i] == layout->domain[0];
        if ((same && have_intra) || (!same && have_inter)) {
            continue;
        }
        const weft_route_t *r = weft_fabric_route(fabric, v0, layout->vertex[i], error);
        if (r == NULL) {
            return FALSE;
        }
        if (same) {
            sys->intra_route_ps = r->latency_ps;
            have_intra = TRUE;
        } else {
            sys->inter_route_ps = r->latency_ps;
            /* where members share a NIC (p4de: 4 EFA for 8 A100), member 0's part of it */
            sys->net_phys_GBps = r->rate_Bps / 1e9 * member_nic_share(topo, layout);
            /* NCCL sees the NIC's rate (ncclNetProperties speed) as the path bandwidth. */
            sys->net_GBps = sys->net_phys_GBps;
            have_inter = TRUE;
        }
    }
    sys->graph[WEFT_NCCL_RING] = search_ring(sys);
    sys->graph[WEFT_NCCL_TREE] = sys->graph[WEFT_NCCL_RING];
    sys->graph[WEFT_NCCL_NVLS] = search_nvls(sys);
    sys->graph[WEFT_NCCL_NVLS_TREE] = sys->graph[WEFT_NCCL_NVLS];
    if (sys->collnet) {
        /* CollNet graphs: one channel per GPU head at the NIC's speed (NCCL searches them
         * with the tree pattern and collNet set). */
        weft_coll_graph_t c = {sys->ppn, sys->graph[WEFT_NCCL_RING].bw_intra,
                               sys->graph[WEFT_NCCL_RING].bw_inter};
        sys->graph[WEFT_NCCL_COLLNET_DIRECT] = c;
        sys->graph[WEFT_NCCL_COLLNET_CHAIN] = sys->graph[WEFT_NCCL_RING];
    }
    weft_coll_system_fill_tables(sys);
    fill_plan_counts(sys, layout);
    return TRUE;
}

/* ---- choosing ------------------------------------------------------------------------ */

/* nBytes as NCCL counts it: all-gather's is the output (n x S), the rest S. */
static guint64
nccl_bytes(const weft_coll_system_t *sys, weft_coll_op_t op, guint64 size_bytes)
{
    if (op == WEFT_COLL_BARRIER) {
        return 0;
    }
    if (op == WEFT_COLL_ALL_GATHER) {
        return size_bytes * sys->n_ranks;
    }
    return size_bytes;
}

/*
 * The port bound: the least time in us any algorithm needs to move @nbytes (NCCL's count) of
 * function @f through one GPU's ports. Every byte of an all-reduce's result depends on every
 * rank's input, so each GPU must send at least one byte per result byte (its input, or a
 * result it computed for the others) and receive at least one (the result, or the others'
 * partial sums): S out and S in, in-network reduction (SHARP, NVLS) or not; reduce-scatter
 * must send its contributions to the others' blocks, (n - 1) / n of nBytes; all-gather must
 * receive the others' blocks, (n - 1) / n of nBytes (NCCL's nBytes is the output);
 * broadcast and reduce move S into or out of every non-root GPU. A GPU's ports are its
 * NVLink (sys->intra_phys_GBps, the links' rates per direction) and, across nodes, its
 * network path (sys->net_phys_GBps): at most that many bytes per second each way.
 */
static double
port_bound_us(const weft_coll_system_t *sys, int f, guint64 nbytes)
{
    double port_GBps = sys->intra_phys_GBps + (sys->n_nodes > 1 ? sys->net_phys_GBps : 0.0);
    if (port_GBps <= 0.0 || sys->n_ranks < 2) {
        return 0.0;
    }
    double n = sys->n_ranks;
    double frac = f == F_REDUCE_SCATTER || f == F_ALL_GATHER ? (n - 1.0) / n : 1.0;
    return (double)nbytes * frac / (1000.0 * port_GBps);
}

/* NCCL's time @t_us for (@f, @a, @p) raised to the port bound: its formula's bandwidth can
 * exceed it (CollNet direct over 72-GPU NVLink domains counts 72 channels at the ring's
 * per-channel speed: 1,468.8 GB/s of algbw over two GB200 NVL72 racks, where a GPU's ports
 * move 900 (NVLink5) + 50 (NDR NIC) GB/s each way), and no algorithm can. O(1). */
static double
port_capped_us(const weft_coll_system_t *sys, int f, int a, int p, guint64 nbytes, double t_us)
{
    return MAX(t_us, sys->lat_us[f][a][p] + port_bound_us(sys, f, nbytes));
}

/* ncclTopoGetAlgoTime(): -1 when unavailable. */
static double
algo_time_us(const weft_coll_system_t *sys, int f, int a, int p, guint64 nbytes, guint channels)
{
    double bw = sys->bw_GBps[f][a][p];
    double lat = sys->lat_us[f][a][p];
    if (bw <= 0.0) {
        return -1.0;
    }
    int log_size = log2i(nbytes >> 6);
    if (a == WEFT_NCCL_TREE && log_size < 23) {
        bw *= tree_correction[p][log_size];
    }
    if (channels != 0 && sys->coll_channels > 0) {
        bw = bw / sys->coll_channels * channels;
    }
    if (a == WEFT_NCCL_RING && p == 2 && sys->n_nodes > 1 && f == F_ALL_REDUCE &&
        nbytes / ((guint64)sys->coll_channels * sys->n_ranks) >= 64) {
        lat *= sys->arch < 80 ? 1.9 : 1.4; /* "plateau effect of ring" */
    }
    return lat + (double)nbytes / (1000.0 * bw);
}

static weft_coll_algo_t
weft_algo(int a)
{
    switch (a) {
    case WEFT_NCCL_TREE:
        return WEFT_COLL_ALGO_TREE;
    case WEFT_NCCL_RING:
        return WEFT_COLL_ALGO_RING;
    case WEFT_NCCL_COLLNET_DIRECT:
    case WEFT_NCCL_COLLNET_CHAIN:
        return WEFT_COLL_ALGO_COLLNET;
    case WEFT_NCCL_NVLS:
        return WEFT_COLL_ALGO_NVLS;
    default:
        return WEFT_COLL_ALGO_NVLS_TREE;
    }
}

/* The NCCL algorithm whose costs a weft algorithm takes (-1: none): halving-doubling,
 * hierarchical and direct use the ring's. */
static gboolean
nccl_algo_matches(weft_coll_algo_t algo, int a)
{
    switch (algo) {
    case WEFT_COLL_ALGO_AUTO:
        return TRUE;
    case WEFT_COLL_ALGO_COLLNET:
        return a == WEFT_NCCL_COLLNET_DIRECT || a == WEFT_NCCL_COLLNET_CHAIN;
    case WEFT_COLL_ALGO_HALVING_DOUBLING:
    case WEFT_COLL_ALGO_HIERARCHICAL:
    case WEFT_COLL_ALGO_DIRECT:
        return a == WEFT_NCCL_RING;
    default:
        return weft_algo(a) == algo;
    }
}

/* Channels NCCL runs (algo, proto) with for @nbytes (topoGetAlgoInfo()). */
static guint
nccl_channels(const weft_coll_system_t *sys, int a, int p, guint64 nbytes)
{
    if (a == WEFT_NCCL_NVLS || a == WEFT_NCCL_NVLS_TREE) {
        return sys->nvls_channels;
    }
    guint nc = sys->coll_channels;
    if (a == WEFT_NCCL_COLLNET_DIRECT || a == WEFT_NCCL_COLLNET_CHAIN) {
        return nc;
    }
    guint64 nt = max_threads[p];
    if (a == WEFT_NCCL_RING && p == 2) {
        /* 256 threads when the ring's bandwidth is at most PCI_BW = 12 GB/s (topo.h). */
        const weft_coll_graph_t *g = &sys->graph[WEFT_NCCL_RING];
        nt = g->bw_intra * g->channels <= 12.0 ? 256 : 512;
    }
    guint64 thr = thread_threshold[p];
    if (a == WEFT_NCCL_RING && p == 0) {
        thr *= sys->n_ranks;
    }
    while (nbytes < nc * nt * thr) {
        if (nc >= 2) {
            nc--;
        } else if (nt % 128 == 0) {
            nt /= 2;
        } else {
            break;
        }
    }
    return nc;
}

/* NVLS's heads: one per channel of the NVLS graph (NCCL's nvls.nHeads), ppn when there is
 * no such graph (a system filled by hand). */
static guint
nvls_heads(const weft_coll_system_t *sys)
{
    guint h = sys->graph[WEFT_NCCL_NVLS].channels;
    return MAX(h > 0 ? h : sys->ppn, 1u);
}

/*
 * NCCL's chunk: the bytes of data one channel moves per pipeline step. Buffers of
 * NCCL 2.20 (src/include/device.h, src/init.cc): LL's 8 lines of 16 bytes per thread x 512
 * threads x NCCL_STEPS = 8 steps, half of each line data: 32 KiB per step; LL128's 120
 * 8-byte words per thread x 640 threads per step, 120 of every 128 bytes data: 576,000 B;
 * Simple's 4 MiB buffer over 8 steps, 512 KiB, times the ring's chunk steps
 * (src/include/collectives.h): ALLREDUCE_, ALLGATHER_ and REDUCESCATTER_CHUNKSTEPS =
 * NCCL_STEPS / 2 = 4, 2 MiB; BROADCAST_ and REDUCE_CHUNKSTEPS = 1, 512 KiB (a broadcast
 * cut into 2 MiB chunks ran 2-4x slower than NCCL's formula on one node: its chain fills
 * with a chunk per hop). NVLS (src/enqueue.cc): NCCL_NVLS_CHUNKSIZE =
 * 128 KiB, halved to 64 KiB below 64 x, 32 KiB below 8 x and 16 KiB below 2 x (channels x
 * heads x chunk) bytes; NVLS tree has a schedule of its own (below).
 */
static guint64
nccl_chunk_bytes(const weft_coll_system_t *sys, int f, int a, int p, guint64 nbytes,
                 guint channels)
{
    if (p == 0) {
        return 32768;
    }
    if (p == 1) {
        return 576000;
    }
    if (a == WEFT_NCCL_COLLNET_DIRECT || a == WEFT_NCCL_COLLNET_CHAIN) {
        /* NCCL 2.20.3 src/enqueue.cc computeCollChunkInfo(): CollNet direct starts from one
         * step (512 KiB) per head and halves it down to 128, 64, 32 KiB while fewer than
         * depth x 64, x 8, x 8 loops of channels x heads x chunk fit nBytes (depth 2 with
         * peers in the node, 1 without: src/graph/connect.cc); chain from 256 KiB, halving
         * while fewer than depth x 64, x 8, x 1 loops of channels x chunk fit (depth = GPUs
         * per node). A weft CollNet chunk holds one such chunk per head (algos.c,
         * build_collnet()), so it is heads x NCCL's chunk. */
        guint64 heads = MAX(sys->ppn, 1u), c, depth, per;
        if (a == WEFT_NCCL_COLLNET_DIRECT) {
            c = 512u << 10;
            depth = heads > 1 ? 2 : 1;
            per = (guint64)MAX(channels, 1u) * heads;
            while (nbytes / (per * c) < depth * 64 && c > (128u << 10)) {
                c /= 2;
            }
            while (nbytes / (per * c) < depth * 8 && c > (64u << 10)) {
                c /= 2;
            }
            while (nbytes / (per * c) < depth * 8 && c > (32u << 10)) {
                c /= 2;
            }
        } else {
            c = 256u << 10;
            depth = heads;
            per = MAX(channels, 1u);
            while (nbytes / (per * c) < depth * 64 && c > (128u << 10)) {
                c /= 2;
            }
            while (nbytes / (per * c) < depth * 8 && c > (64u << 10)) {
                c /= 2;
            }
            while (nbytes / (per * c) < depth && c > (32u << 10)) {
                c /= 2;
            }
        }
        return c * heads;
    }
    if (a == WEFT_NCCL_NVLS_TREE && sys->nccl_version >= WEFT_NCCL_2_27_3) {
        /* NCCL 2.27.3 calcCollChunking(): NVLS tree's own schedule, from NCCL_NVLS_CHUNKSIZE
         * = 128 KiB (64 KiB on 4 nodes or more, NCCL_NVLSTREE_MAX_CHUNKSIZE's default),
         * halved to 64 KiB below 4 x and to 32 KiB below 1 x (channels x heads x chunk)
         * bytes */
        guint64 ops = (guint64)channels * nvls_heads(sys);
        guint64 c = sys->n_nodes >= 4 ? 64u << 10 : 128u << 10;
        if (nbytes < 4 * ops * c && c > (64u << 10)) {
            c = 64u << 10;
        }
        if (nbytes < ops * c && c > (32u << 10)) {
            c = 32u << 10;
        }
        return c;
    }
    if (a == WEFT_NCCL_NVLS_TREE) {
        /* NCCL 2.20.3 computeCollChunkInfo(): NVLS tree's own schedule, from one Simple step
         * (512 KiB; NCCL_NVLSTREE_MAX_CHUNKSIZE's default caps it at 64 KiB on 4 nodes or
         * more), halved to 256 KiB below 32 x, 128 KiB below 16 x, 64 KiB below 4 x and
         * 32 KiB below 1 x (channels x heads x chunk) bytes */
        guint64 ops = (guint64)channels * nvls_heads(sys);
        guint64 c = sys->n_nodes >= 4 ? 64u << 10 : 512u << 10;
        if (nbytes < 32 * ops * c && c > (256u << 10)) {
            c = 256u << 10;
        }
        if (nbytes < 16 * ops * c && c > (128u << 10)) {
            c = 128u << 10;
        }
        if (nbytes < 4 * ops * c && c > (64u << 10)) {
            c = 64u << 10;
        }
        if (nbytes < ops * c && c > (32u << 10)) {
            c = 32u << 10;
        }
        return c;
    }
    if (a == WEFT_NCCL_NVLS) {
        guint64 ops = (guint64)channels * nvls_heads(sys);
        guint64 c = 128 << 10;
        if (nbytes < 64 * ops * c) {
            c = 64 << 10;
        }
        if (nbytes < 8 * ops * c) {
            c = 32 << 10;
        }
        if (nbytes < 2 * ops * c) {
            c = 16 << 10;
        }
        return c;
    }
    if (a == WEFT_NCCL_RING && f != F_BROADCAST && f != F_REDUCE) {
        return 2u << 20;
    }
    return 512u << 10;
}

/*
 * Bytes of one network message of the Simple protocol: NCCL's proxy posts one send per
 * step of a connection's buffer (src/transport/net.cc), and a step holds at most
 * buffSize / NCCL_STEPS = 4 MiB / 8 = 512 KiB (NCCL_BUFFSIZE default, src/init.cc;
 * NCCL_STEPS, src/include/device.h), less when the chunk is smaller: NVLS tree and NVLS
 * move one NVLS chunk per step (nccl_chunk_bytes()), the ring 512 KiB (its 2 MiB chunk is
 * ALLREDUCE_CHUNKSTEPS = 4 steps).
 */
static guint64
net_message_bytes(const weft_coll_system_t *sys, int f, int a, guint64 nbytes, guint channels)
{
    const guint64 step = 512u << 10;
    return MIN(step, nccl_chunk_bytes(sys, f, a, 2, nbytes, channels));
}

/*
 * aws-ofi-nccl's RDMA protocol is receiver-driven: send() writes a message only once the
 * receiver's control message naming the destination buffer has arrived, unless the
 * message fits its eager limit, OFI_NCCL_EAGER_MAX_SIZE = 8192 bytes (include/
 * nccl_ofi_param.h, the same in v1.8.1-aws and v1.19.2; src/nccl_ofi_rdma.cpp send():
 * without the control message and not eager, it returns no request and NCCL retries).
 */
#define OFI_EAGER_MAX_BYTES 8192u

/*
 * Wire bytes of a connection's first network message: one step of the protocol's buffer
 * (Simple's at most 512 KiB, net_message_bytes(); LL's 32 KiB of data on 64 KiB of lines,
 * LL128's 576,000 B of data on 128/120 as many), or less when a connection's share of the
 * data is smaller: nBytes over the channels and over the parts NCCL cuts a channel's data
 * into (the ring's ranks, NVLS's and CollNet's heads; one for trees).
 */
static guint64
net_first_message_bytes(const weft_coll_system_t *sys, int f, int a, int p, guint64 nbytes,
                        guint channels)
{
    guint64 parts = 1;
    if (a == WEFT_NCCL_RING) {
        parts = MAX(sys->n_ranks, 1u);
    } else if (a == WEFT_NCCL_NVLS || a == WEFT_NCCL_NVLS_TREE) {
        parts = nvls_heads(sys);
    } else if (a == WEFT_NCCL_COLLNET_DIRECT || a == WEFT_NCCL_COLLNET_CHAIN) {
        parts = MAX(sys->ppn, 1u);
    }
    guint64 per = parts * MAX(channels, 1u);
    guint64 share = (nbytes + per - 1) / per;
    guint64 step = p == 2 ? net_message_bytes(sys, f, a, nbytes, channels)
                          : nccl_chunk_bytes(sys, f, a, p, nbytes, channels);
    guint64 data = MIN(step, share);
    return p == 0 ? 2 * data : p == 1 ? (data * 128 + 119) / 120 : data;
}

/*
 * The plan budget: when weft chooses the chunk count itself, a plan should hold at most
 * this many transfers (a plan costs about 80 bytes a transfer once built, several times
 * that while the builder runs). The budget counts the plan exactly (sys->plan_xfers, what
 * the builder makes per channel and chunk) and may cut NCCL's chunk count C to C' only as
 * far as the pipeline's fill keeps the result within PLAN_BUDGET_ERROR: a plan of fill depth
 * k (weft_coll_i_fill_depth()) takes at most (C + k) chunk times of its slowest stage on
 * uncongested links, so C' chunks change its time by at most
 * k (1/C' - 1/C) / (1 + k/C) <= e, that is C' >= k C / (e C + k (1 + e)). A plan then may
 * exceed the budget (NVLS on 72 GPUs at 8 GiB: 2,592 transfers per channel and chunk,
 * 28 of NCCL's 64 chunks kept, 2.3 million transfers); rings have no fill (k = 0) and take
 * whatever the budget allows. tests/check_tuning.c runs budgeted cases both ways.
 */
#define PLAN_XFER_BUDGET (1u << 19)
#define PLAN_BUDGET_ERROR 0.02

/* The fewest chunks, out of NCCL's @c, that keep a pipeline of fill depth @k within
 * PLAN_BUDGET_ERROR of its time with @c (see above). */
static guint64
budget_floor(guint64 c, guint k)
{
    if (k == 0 || c <= 1) {
        return 1;
    }
    double e = PLAN_BUDGET_ERROR;
    double need = (double)k * (double)c / (e * (double)c + k * (1.0 + e));
    return MIN(c, (guint64)ceil(need - 1e-9));
}

/* ceil(log2(n)) for n >= 1. */
static int
log2_ceil(guint n)
{
    int l = 0;
    while ((1u << l) < n) {
        l++;
    }
    return l;
}

/*
 * The chunk count of a tree plan, given NCCL's count @c of a channel's data over
 * nccl_chunk_bytes() for protocol @p.
 *
 * Simple moves whole steps (buffSize / NCCL_STEPS = 512 KiB, NCCL 2.20.3 src/enqueue.cc
 * computeCollChunkInfo(), chunkSteps 1 for the tree): a GPU forwards a step once it has
 * arrived, so NCCL's chunk is the pipeline's grain and @c stands.
 *
 * LL128 first shrinks its 576,000-byte chunk as NCCL does for the tree (computeCollChunkInfo():
 * nstepsLL128 = 1 + log2i(nNodes) + 0.1 ppn; halved while nBytes / (nChannels x chunk) <
 * nstepsLL128 x 64 / ppn and chunk > 128 KiB, then while < nstepsLL128 x 16 / ppn and chunk
 * > 32 KiB).
 *
 * LL and LL128 then pipeline far finer than their chunk: each thread of a forwarding GPU
 * polls the flag of its own 16-byte line (LL) or 128-byte line (LL128), and reduces and
 * stores it to the next GPU as soon as it arrives (NCCL 2.20.3 src/device/prims_ll.h
 * recvReduceSend() over readLL()/storeLL(); prims_ll128.h the same per warp), so data
 * flows through a tree of h hops with h hop latencies and one pass of the bandwidth time,
 * which is NCCL's formula (lat + S / bw). A plan's transfer is delivered whole before its
 * successor starts (store and forward): C chunks through h hops take (h + C - 1) / C
 * times the bandwidth time. C >= 8 (h - 1) keeps that extra fill at most 1/8 of the
 * bandwidth time (h = 2 ((ppn - 1) + ceil(log2 nodes)): the chain up and down, the tree
 * of nodes up and down); the plan's transfer budget (below) and its one-byte pieces
 * (coll.c) may cut C, and tests/coll_props.sh measures the bound against a finer plan.
 */
static guint64
tree_chunks(const weft_coll_system_t *sys, int p, guint64 nbytes, guint channels, guint64 c)
{
    if (p == 2) {
        return c;
    }
    guint nodes = MAX(sys->n_nodes, 1u), ppn = MAX(sys->ppn, 1u);
    guint64 ch = MAX(channels, 1u);
    if (p == 1) {
        double ppn_f = (double)MAX(sys->n_ranks, 1u) / nodes;
        double nsteps = 1.0 + log2i(nodes) + 0.1 * ppn_f;
        guint64 chunk = 576000;
        while ((double)(nbytes / (ch * chunk)) < nsteps * 64.0 / ppn_f && chunk > 131072) {
            chunk /= 2;
        }
        while ((double)(nbytes / (ch * chunk)) < nsteps * 16.0 / ppn_f && chunk > 32768) {
            chunk /= 2;
        }
        c = (nbytes + ch * chunk - 1) / (ch * chunk);
    }
    guint64 hops = 2 * ((guint64)(ppn - 1) + (guint64)log2_ceil(nodes));
    guint64 fine = hops > 1 ? 8 * (hops - 1) : 1;
    return MAX(c, fine);
}

/* The chunk count of the plan of weft algorithm @walgo: the channel's data over NCCL's
 * chunk (ring: per piece), cut by the plan budget (see above). */
static guint
nccl_chunks(const weft_coll_system_t *sys, int f, weft_coll_algo_t walgo, int a, int p,
            guint64 nbytes, guint channels)
{
    guint n = MAX(sys->n_ranks, 1u);
    guint64 chunk = nccl_chunk_bytes(sys, f, a, p, nbytes, channels);
    guint64 unit = (guint64)MAX(channels, 1u) * chunk;
    if (a == WEFT_NCCL_RING) {
        unit *= (f == F_BROADCAST || f == F_REDUCE) ? 1 : n;
    } else if (a == WEFT_NCCL_NVLS || a == WEFT_NCCL_NVLS_TREE) {
        unit *= nvls_heads(sys);
    }
    guint64 c = unit > 0 ? (nbytes + unit - 1) / unit : 1;
    if (a == WEFT_NCCL_TREE) {
        c = tree_chunks(sys, p, nbytes, channels, c);
    }
    guint64 per = (guint)walgo < WEFT_COLL_N_ALGOS ? sys->plan_xfers[f][walgo] : 0;
    if (per > 0) {
        guint64 cap = PLAN_XFER_BUDGET / (per * MAX(channels, 1u));
        if (c > cap) {
            c = MAX(cap, budget_floor(c, sys->fill_depth[f][walgo]));
        }
    }
    return (guint)CLAMP(c, 1, G_MAXUINT32);
}

static gboolean
op_valid(weft_coll_op_t op)
{
    return (guint)op < WEFT_COLL_N_OPS;
}

gboolean
weft_coll_tune(const weft_coll_tuning_t *tuning, const weft_coll_system_t *sys, weft_coll_op_t op,
               guint64 size_bytes, weft_coll_config_t *config, weft_coll_costs_t *costs,
               GError **error)
{
    g_return_val_if_fail(sys != NULL && config != NULL, FALSE);
    *config = (weft_coll_config_t){0}; /* implicit_xfers: the default */
    if (!op_valid(op)) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE, "operation %d is not one of %d",
                    (int)op, WEFT_COLL_N_OPS);
        return FALSE;
    }
    weft_coll_algo_t want_a = tuning != NULL ? tuning->algo[op] : WEFT_COLL_ALGO_AUTO;
    weft_coll_proto_t want_p = tuning != NULL ? tuning->proto[op] : WEFT_COLL_PROTO_AUTO;
    guint forced_ch = tuning != NULL ? tuning->channels : 0;
    guint64 nbytes = nccl_bytes(sys, op, size_bytes);
    int f = nccl_func(op);
    weft_coll_costs_t c = {0};
    c.nccl_bytes = nbytes;

    if (f < 0) {
        /* Point-to-point based: direct, Simple. */
        if (want_a != WEFT_COLL_ALGO_AUTO && want_a != WEFT_COLL_ALGO_DIRECT) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                        "%s runs as point-to-point sends (algorithm direct), not %s",
                        weft_coll_op_name(op), weft_coll_algo_name(want_a));
            return FALSE;
        }
        if (want_p != WEFT_COLL_PROTO_AUTO && want_p != WEFT_COLL_PROTO_SIMPLE) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                        "%s runs with the simple protocol, not %s", weft_coll_op_name(op),
                        weft_coll_tuning_proto_name(want_p));
            return FALSE;
        }
        config->algo = WEFT_COLL_ALGO_DIRECT;
        config->proto = WEFT_COLL_PROTO_SIMPLE;
        config->channels = forced_ch != 0 ? forced_ch : 1;
        config->chunks = tuning != NULL && tuning->chunks != 0 ? tuning->chunks : 1;
        /* The ring's Simple step costs stand for one send/recv step. */
        int intra_hw = sys->nvlink ? HW_NVLINK : HW_PCI;
        c.base_ps = (weft_time_t)(base_latency(sys, WEFT_NCCL_RING, 2) * 1e6);
        c.hop_intra_ps = (weft_time_t)(hw_latency(sys, intra_hw, WEFT_NCCL_RING, 2) * 1e6);
        c.hop_inter_ps = (weft_time_t)(hw_latency(sys, HW_NET, WEFT_NCCL_RING, 2) * 1e6);
        c.model_ps = -1;
        c.efficiency = 1.0;
        if (costs != NULL) {
            *costs = c;
        }
        return TRUE;
    }

    /* Forced pairs NCCL could never run are refused before looking at the tables. */
    gboolean proto_ok = want_p == WEFT_COLL_PROTO_AUTO || want_p == WEFT_COLL_PROTO_SIMPLE;
    if ((want_a == WEFT_COLL_ALGO_NVLS || want_a == WEFT_COLL_ALGO_NVLS_TREE ||
         want_a == WEFT_COLL_ALGO_COLLNET) &&
        !proto_ok) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s runs only with the simple protocol, not %s", weft_coll_algo_name(want_a),
                    weft_coll_tuning_proto_name(want_p));
        return FALSE;
    }
    if (want_a == WEFT_COLL_ALGO_DIRECT) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s has no direct algorithm: direct runs all-to-all, gather and scatter; "
                    "under NCCL's tuning choose auto, or force ring, tree, nvls, nvls_tree or "
                    "collnet (NCCL_ALGO) or weft's halving_doubling or hierarchical, as the "
                    "operation has them (doc/collectives.md, Algorithms)",
                    weft_coll_op_name(op));
        return FALSE;
    }
    gboolean weft_only =
        want_a == WEFT_COLL_ALGO_HALVING_DOUBLING || want_a == WEFT_COLL_ALGO_HIERARCHICAL;

    double best = -1.0;
    int ba = -1, bp = -1;
    for (int a = 0; a < WEFT_NCCL_N_ALGOS; a++) {
        if (!nccl_algo_matches(want_a, a)) {
            continue;
        }
        for (int p = 0; p < 3; p++) {
            if (want_p != WEFT_COLL_PROTO_AUTO && proto_index(want_p) != p) {
                continue;
            }
            double t = algo_time_us(sys, f, a, p, nbytes, forced_ch);
            if (t >= 0.0 && (best < 0.0 || t < best)) {
                best = t;
                ba = a;
                bp = p;
            }
        }
    }
    if (ba < 0 && want_a == WEFT_COLL_ALGO_AUTO && sys->n_ranks > 1) {
        /* NCCL's backup: the ring with whatever protocol has a bandwidth. */
        for (int p = 0; p < 3 && ba < 0; p++) {
            if (want_p == WEFT_COLL_PROTO_AUTO || proto_index(want_p) == p) {
                best = algo_time_us(sys, f, WEFT_NCCL_RING, p, nbytes, forced_ch);
                if (best >= 0.0) {
                    ba = WEFT_NCCL_RING;
                    bp = p;
                }
            }
        }
    }
    if (ba < 0) {
        if (sys->n_ranks <= 1) {
            /* One rank: nothing moves; any choice is as good. */
            config->algo = want_a != WEFT_COLL_ALGO_AUTO ? want_a : WEFT_COLL_ALGO_RING;
            config->proto = want_p != WEFT_COLL_PROTO_AUTO ? want_p : WEFT_COLL_PROTO_SIMPLE;
            config->channels = 1;
            config->chunks = 1;
            if (costs != NULL) {
                *costs = c;
            }
            return TRUE;
        }
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s with algorithm %s and protocol %s cannot run on %u ranks over %u node%s%s",
                    weft_coll_op_name(op), weft_coll_algo_name(want_a),
                    weft_coll_tuning_proto_name(want_p), sys->n_ranks, sys->n_nodes,
                    sys->n_nodes == 1 ? "" : "s",
                    want_a == WEFT_COLL_ALGO_COLLNET && !sys->collnet
                        ? (sys->n_nodes == 1 ? " (CollNet reduces in the network between nodes; "
                                               "this communicator has one node)"
                           : sys->ofi ? " (EFA has no in-network reduction: CollNet needs "
                                        "SHARP switches, which are InfiniBand's; on EFA NCCL "
                                        "runs ring, tree and NVLS tree)"
                                      : " (no SHARP switches between its nodes: CollNet "
                                        "needs in-network reduction; set sharp = true in "
                                        "the cluster file's [cluster] group, on "
                                        "InfiniBand of 200 Gb/s or more)")
                    : want_a == WEFT_COLL_ALGO_COLLNET && op != WEFT_COLL_ALL_REDUCE
                        ? " (weft's CollNet plan is all-reduce only; NCCL 2.20.3's CollNet "
                          "direct all-gather and reduce-scatter are not modelled: force ring, "
                          "or choose auto)"
                    : !sys->nvls        ? " (no NVLS-capable NVSwitch)"
                    : want_a == WEFT_COLL_ALGO_NVLS && sys->n_nodes > 1
                        ? " (NCCL runs NVLS across nodes only together with CollNet, and "
                          "weft's NVLS plan is one node's: nvls_tree is NVLS across nodes)"
                    : sys->n_nodes == 1 ? " (one node)"
                    : sys->uneven       ? " (its nodes hold different numbers of members; ring "
                                          "and tree run on any layout)"
                                        : "");
        return FALSE;
    }

    /* On EFA, AWS's tuner plugin chooses first (NCCL 2.20.3 src/enqueue.cc getTunerInfo()):
     * for all-reduce over more than 2 nodes its choice and its model's time replace NCCL's,
     * and the executor charges its latencies and bandwidth (tuner_ofi.h). */
    weft_coll_ofi_choice_t ofi;
    gboolean by_ofi =
        weft_coll_ofi_decides(sys, f == F_ALL_REDUCE,
                              want_a != WEFT_COLL_ALGO_AUTO || want_p != WEFT_COLL_PROTO_AUTO) &&
        weft_coll_ofi_choose(sys, sys->bw_GBps[F_ALL_REDUCE], nbytes, &ofi);
    if (by_ofi) {
        ba = (int)ofi.algo;
        bp = ofi.proto;
        best = ofi.cost_us;
    }

    config->algo = weft_only ? want_a : weft_algo(ba);
    config->proto = (weft_coll_proto_t)(bp + 1);
    config->channels = forced_ch != 0 ? forced_ch : nccl_channels(sys, ba, bp, nbytes);
    if (tuning != NULL && tuning->chunks != 0) {
        config->chunks = tuning->chunks;
    } else {
        config->chunks = nccl_chunks(sys, f, config->algo, ba, bp, nbytes, config->channels);
    }

    int intra_hw = sys->nvlink ? HW_NVLINK : HW_PCI;
    /* The ring's steps inside a node cost at least the CPU's network post overhead when the
     * ring crosses nodes (tuning.cc); NCCL charges it to no other algorithm. */
    double intra_us = by_ofi ? ofi.p2p_us : hw_latency(sys, intra_hw, ba, bp);
    if (!by_ofi && ba == WEFT_NCCL_RING && sys->n_nodes > 1 && f != F_BROADCAST && f != F_REDUCE) {
        intra_us = MAX(intra_us, net_overhead_us(sys->cpu) * (bp == 2 ? 3.0 : 1.0));
    }
    /* NVLS's hwLat is the latency of one pass through the NVSwitch (tuning.cc), which a plan
     * crosses in 2 steps (up to the switch, down from it): each step gets half. NVLS tree
     * passes through the switch twice, for its reduce-scatter and for its all-gather (4
     * steps), and each step costs what it costs in NVLS: 23 / 2 us, 46 us in all. NCCL's
     * formula adds hwLat once for NVLS tree (23 us); AWS's tuner for EFA clusters charges
     * the NVLink part twice, 2 x (23 + network) (aws-ofi-nccl src/tuner/nccl_ofi_model.c,
     * NCCL_ALGO_NVLS_TREE), which is what the simulated steps give. */
    if (ba == WEFT_NCCL_NVLS || ba == WEFT_NCCL_NVLS_TREE) {
        intra_us /= 2.0;
    }
    /* CollNet's NET hwLat (31 us direct, 30 chain) is one trip through the SHARP tree,
     * which NCCL's formula charges once (interLat, tuning.cc) for the reduction up and the
     * result down; the plan crosses it in 2 steps (up to the root, down from it), as NVLS
     * crosses its NVSwitch: each step gets half. */
    double inter_us = net_latency(sys, ba, bp);
    if (ba == WEFT_NCCL_COLLNET_DIRECT || ba == WEFT_NCCL_COLLNET_CHAIN) {
        inter_us /= 2.0;
    }
    c.base_ps = (weft_time_t)llround(base_latency(sys, ba, bp) * 1e6);
    c.hop_intra_ps = (weft_time_t)llround(intra_us * 1e6);
    /* AWS's network hop: its 20 us (the completion is the executor's msg_ps, below) */
    c.hop_inter_ps = (weft_time_t)llround((by_ofi ? ofi.net_us : inter_us) * 1e6);
    /* NCCL (or AWS's tuner) chooses by its formula (above); what it predicts for the choice
     * may not beat the port bound (port_capped_us()). */
    best = port_capped_us(sys, f, ba, bp, nbytes, best);
    c.model_ps = (weft_time_t)llround(best * 1e6);
    if (by_ofi) {
        c.algbw_Bps = ofi.bw_Bpus * 1e6;
    } else {
        double t_bw = best - sys->lat_us[f][ba][bp];
        c.algbw_Bps = t_bw > 0.0 ? nbytes / (t_bw * 1e-6) : sys->bw_GBps[f][ba][bp] * 1e9;
    }
    c.busbw_Bps = c.algbw_Bps * weft_coll_tuning_busbw_factor(op, sys->n_ranks);
    c.channel_Bps = c.busbw_Bps / MAX(config->channels, 1u);
    /* What the links allow the algorithm, per GPU (see weft_coll_tuning_fill_exec()). */
    double phys = sys->n_nodes <= 1 ? sys->intra_phys_GBps
                                    : MIN(sys->intra_phys_GBps, sys->ppn * sys->net_phys_GBps);
    if (ba == WEFT_NCCL_TREE && sys->n_nodes > 1) {
        /* NCCL's tree figure (algbw = busBw x 0.5, tuning.cc) is what the busiest NIC allows
         * for the double binary tree's 2 S each way at >= 3 nodes; the plan moves those 2 S
         * through that NIC (algos.c), so the links allow ppn x NIC / load of algorithm
         * bandwidth, load the plan's bytes per S there (1 on 2 nodes, 2 beyond) */
        double load = weft_coll_i_dtree_nic_load(sys->n_nodes);
        phys = MIN(sys->intra_phys_GBps, sys->ppn * sys->net_phys_GBps / MAX(load, 1.0));
    }
    if (ba == WEFT_NCCL_RING) {
        guint nsteps = f == F_ALL_REDUCE                            ? 2 * (sys->n_ranks - 1)
                       : f == F_REDUCE_SCATTER || f == F_ALL_GATHER ? sys->n_ranks - 1
                                                                    : sys->n_ranks;
        phys = phys * sys->n_ranks / nsteps; /* bus -> algorithm bandwidth */
    }
    gboolean collnet = ba == WEFT_NCCL_COLLNET_DIRECT || ba == WEFT_NCCL_COLLNET_CHAIN;
    if (collnet && sys->n_nodes > 1) {
        /* NCCL's CollNet figure is the network's: a node's g GPUs send S into the SHARP
         * tree and take S back through their g NICs, S / g each (algos.c, build_collnet()),
         * so the network allows g x NIC rate of algorithm bandwidth; the efficiency that
         * makes the NICs deliver NCCL's figure applies to the network transfers, and the
         * NVLink part (scatter to the heads, broadcast from them) runs at link speed. Its
         * (g - 1) / g of S each way per phase then hides behind the network wherever NCCL's
         * figure is below 2 (g - 1) / g of the NVLink rate (every bundled InfiniBand
         * cluster: 8 x 50 GB/s NICs against 450 GB/s NVLink on DGX H100); where it is not,
         * the simulation is NVLink-bound, as the hardware is. */
        phys = sys->ppn * sys->net_phys_GBps;
        c.efficiency_intra = weft_coll_proto_efficiency(config->proto);
    }
    c.efficiency = phys > 0.0 ? CLAMP(c.algbw_Bps / (phys * 1e9), 1e-3, 1.0) : 1.0;
    if (ba == WEFT_NCCL_NVLS_TREE && sys->n_nodes > 2) {
        /* NCCL's figure halves bwInter beyond 2 nodes for the tree's interior nodes, whose
         * NIC carries their parent's and two children's traffic (fill_tables()); the flow
         * model shares the NIC among those transfers of the plan itself. */
        const weft_coll_graph_t *g = &sys->graph[WEFT_NCCL_NVLS_TREE];
        double halved = MIN(g->bw_intra, g->bw_inter / 2);
        double whole = MIN(g->bw_intra, g->bw_inter);
        if (halved > 0.0) {
            c.efficiency_shared = CLAMP(c.efficiency * whole / halved, 1e-3, 1.0);
        }
    }
    if (sys->n_nodes > 1 && bp == 2 && sys->net_msg_ps > 0) {
        c.msg_ps = sys->net_msg_ps;
        c.msg_bytes = net_message_bytes(sys, f, ba, nbytes, config->channels);
    }
    if (sys->n_nodes > 1 && sys->ofi &&
        net_first_message_bytes(sys, f, ba, bp, nbytes, config->channels) > OFI_EAGER_MAX_BYTES) {
        /* the receivers' first control messages: one network hop (route and NCCL's hwLat,
         * whichever is longer, as a step is charged) and their completion at the sender */
        c.rendezvous_ps = MAX(c.hop_inter_ps, sys->inter_route_ps) + sys->net_msg_ps;
    }
    if (costs != NULL) {
        *costs = c;
    }
    return TRUE;
}

void
weft_coll_tuning_p2p_latency(const weft_coll_system_t *sys, weft_coll_proto_t proto,
                             weft_time_t *base_ps, weft_time_t *hop_intra_ps,
                             weft_time_t *hop_inter_ps)
{
    g_return_if_fail(sys != NULL && base_ps != NULL && hop_intra_ps != NULL &&
                     hop_inter_ps != NULL);
    /* a send is one ring step: the ring's row of baseLat and hwLat */
    int p = proto == WEFT_COLL_PROTO_LL ? 0 : 2;
    int intra_hw = sys->nvlink ? HW_NVLINK : HW_PCI;
    *base_ps = (weft_time_t)llround(base_latency(sys, WEFT_NCCL_RING, p) * 1e6);
    *hop_intra_ps = (weft_time_t)llround(hw_latency(sys, intra_hw, WEFT_NCCL_RING, p) * 1e6);
    *hop_inter_ps = (weft_time_t)llround(hw_latency(sys, HW_NET, WEFT_NCCL_RING, p) * 1e6);
}

guint
weft_coll_tuning_nvlink_links(const weft_coll_system_t *sys)
{
    g_return_val_if_fail(sys != NULL, 0);
    if (!sys->nvlink) {
        return 0;
    }
    /* intra_GBps is links x NCCL's per-link figure (weft_coll_system_init()); the epsilon
     * keeps 18 x 20.6 / 20.6 from rounding down to 17 */
    return (guint)(sys->intra_GBps / nvlink_per_link_GBps(sys->arch) + 1e-9);
}

void
weft_coll_tuning_fill_exec(const weft_coll_system_t *sys, const weft_coll_costs_t *costs,
                           weft_coll_exec_t *exec)
{
    g_return_if_fail(sys != NULL && costs != NULL && exec != NULL);
    exec->base_ps = costs->base_ps;
    exec->step_intra_ps = MAX(costs->hop_intra_ps - sys->intra_route_ps, 0);
    exec->step_inter_ps = MAX(costs->hop_inter_ps - sys->inter_route_ps, 0);
    exec->efficiency = costs->efficiency > 0.0 ? costs->efficiency : 1.0;
    exec->efficiency_intra = costs->efficiency_intra;
    exec->efficiency_shared = costs->efficiency_shared;
    exec->channel_Bps = 0.0;
    exec->msg_ps = costs->msg_ps;
    exec->msg_bytes = costs->msg_bytes;
    exec->rendezvous_ps = costs->rendezvous_ps;
}

weft_time_t
weft_coll_model_time(const weft_coll_system_t *sys, weft_coll_op_t op, weft_coll_algo_t algo,
                     weft_coll_proto_t proto, guint64 size_bytes)
{
    g_return_val_if_fail(sys != NULL, -1);
    int f = op_valid(op) ? nccl_func(op) : -1;
    if (f < 0 || proto == WEFT_COLL_PROTO_AUTO || (guint)proto >= WEFT_COLL_N_PROTOS) {
        return -1;
    }
    guint64 nbytes = nccl_bytes(sys, op, size_bytes);
    double best = -1.0;
    for (int a = 0; a < WEFT_NCCL_N_ALGOS; a++) {
        if (algo == WEFT_COLL_ALGO_AUTO || !nccl_algo_matches(algo, a) ||
            (algo != WEFT_COLL_ALGO_COLLNET && weft_algo(a) != algo)) {
            continue;
        }
        double t = algo_time_us(sys, f, a, proto_index(proto), nbytes, 0);
        if (t >= 0.0) {
            t = port_capped_us(sys, f, a, proto_index(proto), nbytes, t);
        }
        if (t >= 0.0 && (best < 0.0 || t < best)) {
            best = t;
        }
    }
    return best < 0.0 ? -1 : (weft_time_t)llround(best * 1e6);
}

/* ---- names ---------------------------------------------------------------------------- */

/* ---- the [collectives] keys ------------------------------------------------------- */

static const char *const tuning_mode_names[] = {"auto", "off", "nccl", NULL};
const weft_enum_t weft_coll_tuning_mode_enum = {"collective tuning", tuning_mode_names};
static const char *const cpu_names[] = {"intel", "amd", "other", NULL};
const weft_enum_t weft_coll_cpu_enum = {"host CPU vendor", cpu_names};
static const char *const nccl_version_names[] = {"2.20.3", "2.27.3", NULL};
const weft_enum_t weft_coll_nccl_version_enum = {"NCCL version", nccl_version_names};

const char *
weft_coll_nccl_version_name(weft_coll_nccl_version_t v)
{
    return (guint)v < WEFT_NCCL_N_VERSIONS ? nccl_version_names[v] : "?";
}

gboolean
weft_coll_nccl_version_from_name(const char *name, weft_coll_nccl_version_t *v)
{
    static const char *const short_names[] = {"2.20", "2.27"};
    for (guint i = 0; name != NULL && i < WEFT_NCCL_N_VERSIONS; i++) {
        if (strcmp(name, nccl_version_names[i]) == 0 || strcmp(name, short_names[i]) == 0) {
            *v = (weft_coll_nccl_version_t)i;
            return TRUE;
        }
    }
    return FALSE;
}

/*
 * The upper bound of collectives.chunks only guards against typos: a ring
 * all-reduce plan over n members has 2 (n - 1) n C transfers, so C = 2^20 on
 * 8 GPUs is already 117 million transfers per collective.
 */
#define MAX_CHUNKS (1 << 20)

#define ALGO_KEY(op, k, what)                                                                      \
    {                                                                                              \
        "collectives", op "_algorithm", WEFT_KEY_ENUM, "auto",                                     \
            "algorithm of every " what ": auto (NCCL's tuning model) or forced (NCCL_ALGO)",       \
            .choices = &weft_coll_algo_enum,                                                       \
            .field = WEFT_KEY_FIELD(weft_coll_settings_t, algo[k])                                   \
    }
#define PROTO_KEY(op, k, what)                                                                     \
    {                                                                                              \
        "collectives", op "_protocol", WEFT_KEY_ENUM, "auto",                                      \
            "protocol of every " what ": auto (NCCL's tuning model) or forced (NCCL_PROTO)",       \
            .choices = &weft_coll_proto_enum,                                                      \
            .field = WEFT_KEY_FIELD(weft_coll_settings_t, proto[k])                                  \
    }
/* The first row of the operation keys; each has its _algorithm then its _protocol row. */
#define FIRST_OP_ROW 5

const weft_key_t weft_coll_keys[] = {
    {"collectives", "chunks", WEFT_KEY_UINT, NULL,
     "pipeline chunks per collective (1 to 1048576); unset: NCCL's choice under tuning = nccl, "
     "1 under tuning = off; given, it forces NCCL's choice",
     .imin = 1, .imax = MAX_CHUNKS, .field = WEFT_KEY_FIELD(weft_coll_settings_t, chunks),
     .given = WEFT_KEY_FIELD(weft_coll_settings_t, chunks_given)},
    {"collectives", "tuning", WEFT_KEY_ENUM, "auto",
     "nccl: every collective runs as NCCL's tuning model chooses (algorithm, protocol, "
     "channels, chunks; doc/collectives.md); off: one ring (direct for all-to-all) "
     "with collectives.chunks and no protocol costs (the closed-form model); auto: nccl "
     "on clusters with NVLink or NICs, off on abstract ones (ASTRA-sim networks, rings, "
     "tori of bare GPUs), where NCCL's tables do not apply",
     .choices = &weft_coll_tuning_mode_enum,
     .field = WEFT_KEY_FIELD(weft_coll_settings_t, tuning)},
    {"collectives", "channels", WEFT_KEY_UINT, "0",
     "channels per collective: 0 = as NCCL's tuning chooses (NCCL_MIN/MAX_NCHANNELS)", .imin = 0,
     .imax = 64, .field = WEFT_KEY_FIELD(weft_coll_settings_t, channels)},
    {"collectives", "cpu", WEFT_KEY_ENUM, "intel",
     "host CPU vendor, for NCCL's network overheads (AWS p5: amd)", .choices = &weft_coll_cpu_enum,
     .field = WEFT_KEY_FIELD(weft_coll_settings_t, cpu)},
    {"collectives", "nccl_version", WEFT_KEY_ENUM, "2.20.3",
     "the NCCL release whose tuning model collectives follow: 2.20.3 (Blackwell's limits from "
     "2.25.1) or 2.27.3 (its tables, channel limits and chunk schedules; doc/collectives.md)",
     .choices = &weft_coll_nccl_version_enum,
     .field = WEFT_KEY_FIELD(weft_coll_settings_t, nccl_version)},
    ALGO_KEY("all_reduce", WEFT_COLL_KEY_ALL_REDUCE, "all-reduce (and barrier)"),
    PROTO_KEY("all_reduce", WEFT_COLL_KEY_ALL_REDUCE, "all-reduce (and barrier)"),
    ALGO_KEY("all_gather", WEFT_COLL_KEY_ALL_GATHER, "all-gather"),
    PROTO_KEY("all_gather", WEFT_COLL_KEY_ALL_GATHER, "all-gather"),
    ALGO_KEY("reduce_scatter", WEFT_COLL_KEY_REDUCE_SCATTER, "reduce-scatter"),
    PROTO_KEY("reduce_scatter", WEFT_COLL_KEY_REDUCE_SCATTER, "reduce-scatter"),
    ALGO_KEY("alltoall", WEFT_COLL_KEY_ALLTOALL, "all-to-all (and gather, scatter)"),
    PROTO_KEY("alltoall", WEFT_COLL_KEY_ALLTOALL, "all-to-all (and gather, scatter)"),
    ALGO_KEY("broadcast", WEFT_COLL_KEY_BROADCAST, "broadcast"),
    PROTO_KEY("broadcast", WEFT_COLL_KEY_BROADCAST, "broadcast"),
    ALGO_KEY("reduce", WEFT_COLL_KEY_REDUCE, "reduce"),
    PROTO_KEY("reduce", WEFT_COLL_KEY_REDUCE, "reduce"),
};
const guint weft_coll_n_keys = G_N_ELEMENTS(weft_coll_keys);

/* The operations of each operation key. */
static const struct {
    weft_coll_op_t ops[3];
    guint n_ops;
} key_ops[WEFT_COLL_N_KEY_OPS] = {
    [WEFT_COLL_KEY_ALL_REDUCE] = {{WEFT_COLL_ALL_REDUCE, WEFT_COLL_BARRIER}, 2},
    [WEFT_COLL_KEY_ALL_GATHER] = {{WEFT_COLL_ALL_GATHER}, 1},
    [WEFT_COLL_KEY_REDUCE_SCATTER] = {{WEFT_COLL_REDUCE_SCATTER, WEFT_COLL_REDUCE_SCATTER_BLOCK},
                                      2},
    [WEFT_COLL_KEY_ALLTOALL] = {{WEFT_COLL_ALL_TO_ALL, WEFT_COLL_GATHER, WEFT_COLL_SCATTER}, 3},
    [WEFT_COLL_KEY_BROADCAST] = {{WEFT_COLL_BROADCAST}, 1},
    [WEFT_COLL_KEY_REDUCE] = {{WEFT_COLL_REDUCE}, 1},
};

weft_coll_op_t
weft_coll_key_op(weft_coll_key_op_t k)
{
    g_return_val_if_fail((guint)k < WEFT_COLL_N_KEY_OPS, WEFT_COLL_ALL_REDUCE);
    return key_ops[k].ops[0];
}

const weft_key_t *
weft_coll_key_op_row(weft_coll_key_op_t k, gboolean proto)
{
    g_return_val_if_fail((guint)k < WEFT_COLL_N_KEY_OPS, NULL);
    return &weft_coll_keys[FIRST_OP_ROW + 2 * k + (proto ? 1 : 0)];
}

void
weft_coll_settings_tuning(const weft_coll_settings_t *cfg, weft_coll_tuning_t *t)
{
    g_return_if_fail(cfg != NULL && t != NULL);
    memset(t, 0, sizeof *t);
    for (guint k = 0; k < WEFT_COLL_N_KEY_OPS; k++) {
        for (guint i = 0; i < key_ops[k].n_ops; i++) {
            t->algo[key_ops[k].ops[i]] = cfg->algo[k];
            t->proto[key_ops[k].ops[i]] = cfg->proto[k];
        }
    }
    t->channels = cfg->channels;
    /* collectives.chunks forces the chunk count only when given; NCCL's otherwise. */
    t->chunks = cfg->chunks_given ? cfg->chunks : 0;
    t->cpu = cfg->cpu;
    t->nccl_version = cfg->nccl_version;
}

static const char *const proto_names[WEFT_COLL_N_PROTOS] = {"auto", "ll", "ll128", "simple"};

const char *
weft_coll_tuning_proto_name(weft_coll_proto_t proto)
{
    return (guint)proto < WEFT_COLL_N_PROTOS ? proto_names[proto] : "?";
}

gboolean
weft_coll_tuning_proto_from_name(const char *name, weft_coll_proto_t *proto)
{
    for (guint i = 0; i < WEFT_COLL_N_PROTOS; i++) {
        if (name != NULL && g_ascii_strcasecmp(name, proto_names[i]) == 0) {
            *proto = (weft_coll_proto_t)i;
            return TRUE;
        }
    }
    return FALSE;
}

/* @name lower-cased without '_' and '-' equals @want. */
static gboolean
loose_equal(const char *name, const char *want)
{
    GString *s = g_string_new(NULL);
    for (const char *c = name; *c != '\0'; c++) {
        if (*c != '_' && *c != '-') {
            g_string_append_c(s, g_ascii_tolower(*c));
        }
    }
    gboolean eq = strcmp(s->str, want) == 0;
    g_string_free(s, TRUE);
    return eq;
}

gboolean
weft_coll_tuning_algo_from_name(const char *name, weft_coll_algo_t *algo)
{
    static const struct {
        const char *name;
        weft_coll_algo_t algo;
    } names[] = {
        {"auto", WEFT_COLL_ALGO_AUTO},
        {"ring", WEFT_COLL_ALGO_RING},
        {"direct", WEFT_COLL_ALGO_DIRECT},
        {"tree", WEFT_COLL_ALGO_TREE},
        {"halvingdoubling", WEFT_COLL_ALGO_HALVING_DOUBLING},
        {"hd", WEFT_COLL_ALGO_HALVING_DOUBLING},
        {"rhd", WEFT_COLL_ALGO_HALVING_DOUBLING},
        {"hierarchical", WEFT_COLL_ALGO_HIERARCHICAL},
        {"nvls", WEFT_COLL_ALGO_NVLS},
        {"nvlstree", WEFT_COLL_ALGO_NVLS_TREE},
        {"collnet", WEFT_COLL_ALGO_COLLNET},
        {"collnetdirect", WEFT_COLL_ALGO_COLLNET},
        {"collnetchain", WEFT_COLL_ALGO_COLLNET},
    };
    if (name == NULL) {
        return FALSE;
    }
    for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
        if (loose_equal(name, names[i].name)) {
            *algo = names[i].algo;
            return TRUE;
        }
    }
    return FALSE;
}

gboolean
weft_coll_tuning_cpu_from_name(const char *name, weft_coll_cpu_t *cpu)
{
    static const char *const names[] = {"intel", "amd", "other"};
    for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
        if (name != NULL && g_ascii_strcasecmp(name, names[i]) == 0) {
            *cpu = (weft_coll_cpu_t)i;
            return TRUE;
        }
    }
    return FALSE;
}

double
weft_coll_tuning_busbw_factor(weft_coll_op_t op, guint n)
{
    if (n == 0) {
        return 1.0;
    }
    switch (op) {
    case WEFT_COLL_ALL_REDUCE:
        return 2.0 * (n - 1) / n;
    case WEFT_COLL_ALL_GATHER:
    case WEFT_COLL_REDUCE_SCATTER:
    case WEFT_COLL_REDUCE_SCATTER_BLOCK:
    case WEFT_COLL_ALL_TO_ALL:
        return (double)(n - 1) / n;
    default:
        return 1.0;
    }
}
