/* SPDX-License-Identifier: MIT */
/*
 * Choosing how a collective runs, the way NCCL chooses.
 *
 * NCCL predicts, for every (algorithm, protocol) pair it can use for a call,
 *
 *     time = latency(op, algo, proto) + nBytes / bandwidth(op, algo, proto)
 *
 * and runs the cheapest (ncclTopoGetAlgoTime() and topoGetAlgoInfo() in NCCL's
 * src/graph/tuning.cc and src/enqueue.cc). Latency is a base latency per
 * (algorithm, protocol) plus a per-hop latency per link type (NVLink, PCI,
 * network) times the hops the algorithm crosses; bandwidth is the channel count
 * times the per-channel bandwidth that NCCL's topology search found for the
 * algorithm's graph, cut by per-protocol factors and per-channel caps of the
 * GPU generation, then turned from bus into algorithm bandwidth. weft restates
 * that model with the tables of NCCL 2.20.3 (commit b6475625, the version whose
 * NVLS and NVLS_TREE numbers match the H100 measurements weft validates
 * against): every constant in tuning.c cites its table. The inputs NCCL gets
 * from its topology search (channels and per-channel bandwidth of the ring,
 * tree and NVLS graphs) weft derives from the cluster graph with a restatement
 * of that search for the systems weft builds (NVSwitch nodes, one NIC per GPU):
 * see weft_coll_system_init().
 *
 * `auto` then resolves algorithm, protocol and channel count exactly as NCCL
 * would; a forced algorithm or protocol (per operation, like NCCL_ALGO and
 * NCCL_PROTO) is honoured when NCCL could run it on this communicator, and is
 * WEFT_COLL_ERROR_UNSUPPORTED otherwise. The costs of the resolved choice
 * (weft_coll_costs_t) are what the executor charges per collective and per
 * step; the plan itself is simulated on the cluster graph.
 *
 * Operations NCCL does not tune (all-to-all, gather, scatter: NCCL runs them
 * as grouped point-to-point sends) resolve to the direct algorithm with the
 * Simple protocol. Barrier is tuned as a 0-byte all-reduce. weft's own
 * algorithms that NCCL lacks (halving-doubling, hierarchical) run only when
 * forced, with the ring's costs for the protocol.
 *
 * Complexity: weft_coll_system_init() is O(members + routes of two pairs);
 * weft_coll_tune() is O(algorithms x protocols), no allocation.
 */
#ifndef WEFT_COLL_TUNING_H
#define WEFT_COLL_TUNING_H

#include <glib.h>

#include "coll/coll.h"
#include "core/keyfile.h"
#include "topo/fabric.h"
#include "topo/topo.h"

G_BEGIN_DECLS

/** Host CPU vendor, as NCCL's ncclTopoCpuType() sees it (it changes network overheads). */
typedef enum {
    WEFT_COLL_CPU_INTEL = 0, /* the default: Intel x86 (DGX H100: Xeon 8480C) */
    WEFT_COLL_CPU_AMD,       /* AMD x86 (AWS p5: EPYC 7R13) */
    WEFT_COLL_CPU_OTHER,     /* Arm, POWER, ... */
} weft_coll_cpu_t;

/**
 * The NCCL release whose tuning model weft restates (collectives.nccl_version): its latency
 * and bandwidth tables (src/graph/tuning.cc), search limits and speed arrays
 * (src/graph/search.cc, src/include/device.h, src/transport/nvls.cc) and chunk schedules
 * (src/enqueue.cc), each cited by tag in tuning.c; doc/collectives.md lists what differs.
 */
typedef enum {
    WEFT_NCCL_2_20_3 = 0, /* the default: NCCL 2.20.3 (Blackwell: 2.25.1, its first release) */
    WEFT_NCCL_2_27_3,     /* NCCL 2.27.3 */
    WEFT_NCCL_N_VERSIONS
} weft_coll_nccl_version_t;

/** Forced choices and limits; zero-initialized = everything automatic, Intel hosts,
 * NCCL 2.20.3. */
typedef struct {
    weft_coll_algo_t algo[WEFT_COLL_N_OPS];   /* per operation; AUTO = let the model choose */
    weft_coll_proto_t proto[WEFT_COLL_N_OPS]; /* per operation; AUTO = let the model choose */
    guint channels;                           /* 0 = as NCCL would (NCCL_MIN/MAX_NCHANNELS) */
    guint chunks;                             /* 0 = as the protocol's step size implies */
    weft_coll_cpu_t cpu;                      /* host CPUs of the cluster */
    weft_time_t net_msg_ps; /* per-message cost of the cluster's NIC and its host stack, ps;
                               0 = the cluster's own (topo.h: weft_topo_nic_msg_cost(), which
                               the builders set from the catalog NIC's msg_cost_ps, hw.h) */
    weft_coll_nccl_version_t nccl_version; /* whose tables NCCL's model uses */
} weft_coll_tuning_t;

/** collectives.tuning: how collectives choose their algorithm, protocol and chunks. */
typedef enum {
    WEFT_COLL_TUNING_AUTO, /* nccl on clusters with NVLink or NICs, off on abstract ones */
    WEFT_COLL_TUNING_OFF,  /* one ring (direct for all-to-all), collectives.chunks, no protocols */
    WEFT_COLL_TUNING_NCCL, /* NCCL's tuning model (doc/collectives.md) */
} weft_coll_tuning_mode_t;

/* The operation keys of [collectives] (all_reduce_algorithm, ...): the operations each
 * stands for share its forced choice (weft_coll_settings_tuning()). */
typedef enum {
    WEFT_COLL_KEY_ALL_REDUCE,     /* all_reduce, barrier */
    WEFT_COLL_KEY_ALL_GATHER,     /* all_gather */
    WEFT_COLL_KEY_REDUCE_SCATTER, /* reduce_scatter, reduce_scatter_block */
    WEFT_COLL_KEY_ALLTOALL,       /* alltoall, gather, scatter */
    WEFT_COLL_KEY_BROADCAST,      /* broadcast */
    WEFT_COLL_KEY_REDUCE,         /* reduce */
    WEFT_COLL_N_KEY_OPS
} weft_coll_key_op_t;

/** The [collectives] group (weft_coll_keys[]), resolved. */
typedef struct {
    guint chunks;         /* collectives.chunks; meaningful when chunks_given */
    gboolean chunks_given;
    weft_coll_tuning_mode_t tuning;
    guint channels;       /* 0: as NCCL's tuning chooses */
    weft_coll_cpu_t cpu;
    weft_coll_nccl_version_t nccl_version;
    weft_coll_algo_t algo[WEFT_COLL_N_KEY_OPS];   /* AUTO: not forced */
    weft_coll_proto_t proto[WEFT_COLL_N_KEY_OPS]; /* AUTO: not forced */
} weft_coll_settings_t;

/* Its rows (core/keyfile.h), and the name tables of its enums. */
extern const weft_key_t weft_coll_keys[];
extern const guint weft_coll_n_keys;
extern const weft_enum_t weft_coll_tuning_mode_enum; /* auto, off, nccl */
extern const weft_enum_t weft_coll_cpu_enum;         /* intel, amd, other */
extern const weft_enum_t weft_coll_nccl_version_enum; /* 2.20.3, 2.27.3 */

/** weft_coll_nccl_version_name: "2.20.3" or "2.27.3" (static; "?" out of range). */
const char *weft_coll_nccl_version_name(weft_coll_nccl_version_t v);

/** weft_coll_nccl_version_from_name: @name "2.20.3" or "2.27.3" (also "2.20", "2.27");
 * FALSE if it is neither. */
gboolean weft_coll_nccl_version_from_name(const char *name, weft_coll_nccl_version_t *v);

/**
 * weft_coll_settings_tuning: the forced choices of @cfg as weft_coll_tuning_t:
 * each operation key's algorithm and protocol for the operations it stands for,
 * channels, chunks (0 unless given), cpu. O(operations).
 */
void weft_coll_settings_tuning(const weft_coll_settings_t *cfg, weft_coll_tuning_t *t);

/** weft_coll_key_op: the first operation of key @k (all_reduce for the all_reduce key). */
weft_coll_op_t weft_coll_key_op(weft_coll_key_op_t k);

/** weft_coll_key_op_row: (transfer none): the row of @k's _algorithm (or, @proto, _protocol) key. */
const weft_key_t *weft_coll_key_op_row(weft_coll_key_op_t k, gboolean proto);

/** The algorithms of NCCL's tuning tables, in NCCL 2.20's order (NCCL_ALGO_*). */
typedef enum {
    WEFT_NCCL_TREE,
    WEFT_NCCL_RING,
    WEFT_NCCL_COLLNET_DIRECT,
    WEFT_NCCL_COLLNET_CHAIN,
    WEFT_NCCL_NVLS,
    WEFT_NCCL_NVLS_TREE,
    WEFT_NCCL_N_ALGOS
} weft_nccl_algo_t;

/** One of NCCL's topology graphs (struct ncclTopoGraph): what the search found. */
typedef struct {
    guint channels;  /* nChannels */
    double bw_intra; /* bwIntra, GB/s per channel inside a node */
    double bw_inter; /* bwInter, GB/s per channel across nodes */
} weft_coll_graph_t;

/**
 * NCCL's view of one communicator: what ncclTopoTuneModel() reads, derived
 * from the cluster by weft_coll_system_init(). Plain data; tests may fill it by
 * hand.
 */
typedef struct {
    guint n_ranks;
    guint n_nodes;     /* NVLink domains among the members (NCCL's nNodes; an NVL72 rack is 1) */
    guint ppn;         /* most members in one node */
    guint arch;        /* GPU generation as compute capability x 10: 70, 80, 90, 100 */
    gboolean nvlink;   /* members of a node are joined by NVLink (NCCL's LINK_NVL), else PCI */
    double intra_GBps; /* per GPU inside a node, NCCL's units (see weft_coll_system_init) */
    double net_GBps;   /* per GPU to the network; 0 on one node */
    gboolean nvls;     /* NVLink SHARP: gen3+ NVSwitch and arch >= 90 */
    gboolean collnet;  /* in-network reduction between the nodes (SHARP) */
    gboolean uneven;   /* nodes hold different numbers of members (8 + 7): NVLS tree and
                          hierarchical, whose plans pair the members of every node, cannot run */
    weft_coll_cpu_t cpu;
    weft_coll_nccl_version_t nccl_version; /* whose tables (0, the default: NCCL 2.20.3) */
    weft_time_t net_msg_ps; /* per-message cost of a GPU's network path (tuning->net_msg_ps) */
    gboolean ofi;           /* the NICs are AWS EFA, which NCCL drives through aws-ofi-nccl and
                               its tuner (tuner_ofi.h): the cluster's NICs carry a per-message
                               cost (weft_topo_nic_msg_cost() > 0; of the catalog, only EFA) */
    /* the cluster as it is, for the executor's costs */
    double intra_phys_GBps; /* member 0's NVLink (or fastest link) bandwidth, per direction */
    double net_phys_GBps;   /* analytical rate member 0 -> another node (its part of a NIC
                               that members share); 0 on one node */
    weft_time_t
        intra_route_ps; /* route latency member 0 -> another member of its node; 0 if none */
    weft_time_t inter_route_ps; /* route latency member 0 -> a member of another node; 0 if none */
    weft_coll_graph_t graph[WEFT_NCCL_N_ALGOS]; /* channels 0 = no such graph */
    guint nvls_channels;                        /* NCCL_NVLS_NCHANNELS: channels NVLS runs with */
    guint coll_channels; /* comm->nChannels: channels ring and tree run with at most */
    /* latencies[op][algo][proto] in us and bandwidths in GB/s (NCCL's comm->latencies and
     * comm->bandwidths) for NCCL's five tuned functions; bandwidth 0 = unavailable. */
    double lat_us[5][WEFT_NCCL_N_ALGOS][WEFT_COLL_N_PROTOS];
    double bw_GBps[5][WEFT_NCCL_N_ALGOS][WEFT_COLL_N_PROTOS];
    /* per NCCL function and weft algorithm, the plan's transfers per channel and chunk on
     * this communicator's layout, counted as the plan builder makes them (0: unknown, as in
     * a system filled by hand, or the algorithm cannot run there), and its pipeline's fill
     * depth (coll_private.h, weft_coll_i_fill_depth()): what the plan budget reads */
    guint64 plan_xfers[5][WEFT_COLL_N_ALGOS];
    guint fill_depth[5][WEFT_COLL_N_ALGOS];
} weft_coll_system_t;

/**
 * weft_coll_system_init:
 * @sys: (out): filled.
 * @fabric: the fabric state of the cluster @layout's vertices belong to (its routes give
 *   the latencies and the network rate; the cluster gives the links).
 * @layout: the communicator's members.
 * @tuning: (nullable): the CPU vendor is read from it.
 * @error: WEFT_COLL_ERROR_VALUE for an empty layout; WEFT_TOPO_ERROR_NO_ROUTE
 *   when two members of different nodes cannot reach each other.
 *
 * Derives NCCL's inputs from the cluster, then fills NCCL's latency and
 * bandwidth tables:
 *  - n_nodes = the layout's NVLink domains, ppn its most members in one;
 *  - NVLink: the NVLink lanes of member 0's edges times NCCL's per-link
 *    figure (topo.h SM70/SM80/SM90_NVLINK_BW of NCCL 2.20.3: 20.0, 20.0, 20.6;
 *    SM100_NVLINK_BW of NCCL 2.25.1, the first with Blackwell: 40.0 GB/s); arch
 *    from the lanes' rate and count (50 GB/s lanes: 100; 18 lanes:
 *    90; 12: 80; fewer: 70). Without NVLink the GPU's fastest link is the
 *    intra-node figure (PCI) and arch is 90;
 *  - net_GBps: the analytical rate of the route from member 0 to the first
 *    member of another node (its NIC's rate on the clusters weft builds),
 *    divided by the members that share member 0's NIC (its host and rail; p4de:
 *    2 GPUs per EFA), and net_phys_GBps the same;
 *  - the ring, tree and NVLS graphs: a restatement of NCCL's ncclTopoCompute()
 *    (search.cc) for these systems: try the speeds of NCCL's speed arrays from
 *    the largest at most the path bandwidth down, keep the one whose channels x
 *    speed is largest (channels limited by the NVLink budget of a GPU, by the
 *    NICs and by MAXCHANNELS/2 = 16, 32 on sm100), stop when the next speed is
 *    below 0.49 x the best (NCCL's rule), then duplicate channels as
 *    ncclTopoDupChannels() does. NVLS: one channel per GPU of the node (at
 *    most 32 on sm100), the speed the NVSwitch links carry with the head's
 *    traffic doubled ((heads + 1) x speed <= NVLink), inter bandwidth raised up
 *    to twice that within the NIC's rate. sm100 uses NCCL 2.25.1's speed
 *    arrays and limits (tuning.c), the rest NCCL 2.20.3's;
 *  - plan_xfers and fill_depth: what the plan builder makes of each (function,
 *    algorithm) on @layout (coll_private.h), for the plan budget.
 * Returns: TRUE on success.
 */
gboolean weft_coll_system_init(weft_coll_system_t *sys, weft_fabric_t *fabric,
                               const weft_coll_layout_t *layout, const weft_coll_tuning_t *tuning,
                               GError **error);

/**
 * weft_coll_system_fill_tables:
 * @sys: a system whose fields up to graph[] are set (by hand in tests).
 * Fills nvls_channels, coll_channels and the latency and bandwidth tables from
 * the other fields, exactly as ncclTopoTuneModel() does (see tuning.c).
 */
void weft_coll_system_fill_tables(weft_coll_system_t *sys);

/**
 * What a resolved configuration costs, per NCCL's model, and what the
 * executor charges: @base_ps once per collective, then every step of the plan
 * at least @hop_intra_ps (inside a node) or @hop_inter_ps (across the network)
 * of latency, these figures including the wire (a route of longer latency
 * costs its own), and every transfer of a channel at most @channel_Bps.
 */
typedef struct {
    weft_time_t base_ps;      /* NCCL's baseLat (launch, synchronisation) */
    weft_time_t hop_intra_ps; /* NCCL's hwLat for NVLink or PCI, this algo and proto */
    weft_time_t hop_inter_ps; /* NCCL's hwLat for NET (+ the CPU's network overhead) */
    double algbw_Bps;         /* NCCL's bandwidth for the call (algorithm bandwidth) */
    double busbw_Bps;         /* the same as bus bandwidth (nccl-tests' factor for the op) */
    double channel_Bps;       /* the rate one channel's transfer may take: busbw / channels */
    weft_time_t model_ps;     /* NCCL's predicted time for the call, at least the port
                               * bound (weft_coll_model_time()) */
    double efficiency;        /* NCCL's bandwidth / what the cluster's links would allow */
    double efficiency_intra;  /* CollNet across nodes: its NVLink part's, 0 = efficiency */
    double efficiency_shared; /* NVLS tree beyond 2 nodes: without bwInter / 2 */
    guint64 nccl_bytes;       /* nBytes as NCCL counts it (all-gather: n x S) */
    weft_time_t msg_ps;       /* per-message cost charged to network messages; 0 = none */
    guint64 msg_bytes;        /* NCCL's bytes per network message for the choice */
    weft_time_t rendezvous_ps; /* a receiver-driven network's first control message; 0 = none */
} weft_coll_costs_t;

/**
 * weft_coll_tune:
 * @tuning: (nullable): forced choices.
 * @sys: NCCL's view of the communicator (weft_coll_system_init()).
 * @op: the operation.
 * @size_bytes: S, as in doc/collectives.md.
 * @config: (out): the resolved configuration (no AUTO): algorithm, protocol,
 *   channels (NCCL's: ring and tree lose channels while nBytes < channels x
 *   threads x threshold; NVLS uses nvls_channels; forced tuning->channels wins),
 *   chunks (tuning->chunks, or NCCL's pipeline depth: nBytes / (channels x
 *   chunk size), at least 1; the tree's LL and LL128 at least 8 (h - 1) for a
 *   tree of h hops, as they forward lines as they arrive: tuning.c tree_chunks()).
 *   On EFA (sys->ofi), all-reduce over more than 2 nodes with nothing forced is
 *   chosen by AWS's tuner, whose model then gives the costs (coll/tuner_ofi.h).
 * @costs: (out) (optional): the costs of that configuration.
 * @error: WEFT_COLL_ERROR_UNSUPPORTED when a forced algorithm or protocol
 *   cannot run this operation on this communicator (NVLS without NVLS-capable
 *   switches, NVLS_TREE on one node, CollNet without in-network reduction,
 *   LL or LL128 with NVLS or CollNet, tree for an operation other than
 *   all-reduce, ...); WEFT_COLL_ERROR_VALUE for an invalid @op.
 * Returns: TRUE on success.
 */
gboolean weft_coll_tune(const weft_coll_tuning_t *tuning, const weft_coll_system_t *sys,
                        weft_coll_op_t op, guint64 size_bytes, weft_coll_config_t *config,
                        weft_coll_costs_t *costs, GError **error);

/**
 * weft_coll_tuning_fill_exec:
 * @sys: the system @costs were computed on.
 * @costs: weft_coll_tune()'s costs.
 * @exec: (inout): a plan's executor costs; hbm_Bps is kept.
 *
 * Turns NCCL's costs into what the executor charges (coll.h, weft_coll_exec_t),
 * so that on an uncongested cluster the simulated time follows NCCL's model:
 *  - base_ps = NCCL's base latency;
 *  - step_intra_ps / step_inter_ps = NCCL's per-hop latency minus the route
 *    latency the network already charges for such a hop (at least 0): NCCL's
 *    hwLat is a whole hop, wire included;
 *  - efficiency = NCCL's bandwidth for the call / the bandwidth the cluster's
 *    links would give the algorithm (costs->efficiency): per GPU, NVLink on one
 *    node, min(NVLink, ppn x NIC) across nodes, as bus bandwidth for the ring
 *    and algorithm bandwidth for tree, NVLS, NVLS tree and CollNet, at most 1.
 *    It stands for everything NCCL's bandwidth figure includes (protocol line
 *    format, SM and memory limits, the search's channel speeds); under the flow
 *    model the wire bytes it implies compete with other traffic;
 *  - efficiency_intra = for CollNet across nodes, the protocol's efficiency
 *    alone for the transfers inside a node (costs->efficiency_intra): NCCL's
 *    CollNet bandwidth is the network's (SHARP's), so its figure says how fast
 *    the network part runs; the reduce-scatter and all-gather inside the node
 *    move at NVLink speed, pipelined with it. Charging them the network's
 *    efficiency as well ran CollNet at 2.4x NCCL's own time on 4 DGX H100 (1
 *    GiB all-reduce). 0 (the efficiency for every transfer) for the others;
 *  - efficiency_shared = for NVLS tree beyond 2 nodes, the efficiency both network
 *    models charge (costs->efficiency_shared): NCCL's NVLS tree bandwidth halves the
 *    inter-node speed there (min(bwIntra, bwInter / 2), tuning.cc) because an
 *    interior node of NCCL's trees sends and receives through its NIC for its
 *    parent and its two children; the plan has those transfers, and both models
 *    share the NIC among them (flow fairly, analytical at the NIC's ports, net.h), so the efficiency it charges is NCCL's
 *    figure with min(bwIntra, bwInter). Charging the halved one on top ran a 1
 *    GiB all-reduce over 8 DGX H100 nodes at busbw 129 GB/s (NCCL's formula
 *    318). (Before the analytical model serialized at ports it kept the halved
 *    figure.) 0 for the others;
 *  - channel_Bps = 0 (no cap: the efficiency already scales the rate);
 *  - msg_ps, msg_bytes = the NIC's per-message cost (sys->net_msg_ps) and the
 *    bytes NCCL puts in one network message for the choice (Simple: one step
 *    of the connection's buffer, 512 KiB for ring and tree, the NVLS chunk
 *    for NVLS tree and CollNet), on several nodes with the Simple protocol
 *    only; else 0. AWS's tuner charges its completion overhead to Simple
 *    only (aws-ofi-nccl src/tuner/nccl_ofi_model.c): LL and LL128 receivers
 *    poll flags in the data instead of waiting for a completion;
 *  - rendezvous_ps = on several nodes of a receiver-driven network (sys->ofi:
 *    aws-ofi-nccl's RDMA protocol), when a connection's first message is above
 *    the plugin's eager limit (8 KiB), the receivers' first control messages:
 *    max(hop_inter_ps, sys->inter_route_ps) + sys->net_msg_ps; else 0.
 */
void weft_coll_tuning_fill_exec(const weft_coll_system_t *sys, const weft_coll_costs_t *costs,
                                weft_coll_exec_t *exec);

/**
 * weft_coll_tuning_p2p_latency:
 * @sys: the communicator (only sys->nvlink is read).
 * @proto: LL or Simple (anything else reads as Simple), the protocols NCCL runs
 *   point-to-point with (coll/p2p.h).
 * @base_ps: (out): NCCL's baseLat of the ring for @proto (NCCL 2.20.3 tuning.cc): LL 6.6 us,
 *   Simple 8.4 us.
 * @hop_intra_ps, @hop_inter_ps: (out): NCCL's ring hwLat for @proto over NVLink (or PCI
 *   without NVLink) and over the network: NVLink LL 0.6, Simple 3.4; PCI 1.0, 5.7; network
 *   2.7, 14.0 us.
 * NCCL has no latency model for ncclSend/ncclRecv; a send is one step of the ring's
 * primitives (the same prims_ll.h / prims_simple.h code, one hop), so weft charges it the
 * ring's figures, as weft_coll_tune() does for the operations NCCL runs as sends. O(1).
 */
void weft_coll_tuning_p2p_latency(const weft_coll_system_t *sys, weft_coll_proto_t proto,
                                  weft_time_t *base_ps, weft_time_t *hop_intra_ps,
                                  weft_time_t *hop_inter_ps);

/**
 * weft_coll_tuning_nvlink_links:
 * Returns: the NVLink links of a member of @sys as NCCL counts them (sys->intra_GBps over
 * NCCL's per-link figure for sys->arch: path->bw / ncclTopoNVLinkBw(), NCCL 2.20.3
 * src/graph/paths.cc), 0 without NVLink. O(1).
 */
guint weft_coll_tuning_nvlink_links(const weft_coll_system_t *sys);

/**
 * weft_coll_model_time:
 * Returns: NCCL's predicted time in picoseconds for (@op, @algo, @proto) on
 * @sys for S = @size_bytes with NCCL's default channels, or -1 when NCCL's
 * tables say the pair is unavailable. @algo is a weft algorithm (ring, tree,
 * NVLS, NVLS_TREE, CollNet: the faster of direct and chain). The time is never
 * below the port bound: NCCL's latency plus the bytes one GPU must send or
 * receive (S for all-reduce, broadcast and reduce; (n - 1) / n of nBytes for
 * all-gather and reduce-scatter) over its ports, NVLink plus (across nodes)
 * its network path; NCCL's formula can exceed that bandwidth (CollNet direct
 * over NVL72 racks) and no algorithm can. NCCL's choice (weft_coll_tune()) still
 * follows the uncapped formula, as NCCL does. O(algorithms).
 */
weft_time_t weft_coll_model_time(const weft_coll_system_t *sys, weft_coll_op_t op,
                                 weft_coll_algo_t algo, weft_coll_proto_t proto,
                                 guint64 size_bytes);

/* Names: what the scenario keys and `weft coll` accept (coll.h's weft_coll_algo_name()
 * prints algorithms). */

/** weft_coll_tuning_proto_name: "auto", "ll", "ll128", "simple". */
const char *weft_coll_tuning_proto_name(weft_coll_proto_t proto);

/** weft_coll_tuning_proto_from_name: parses weft_coll_tuning_proto_name() spellings ignoring case;
 * FALSE if unknown. */
gboolean weft_coll_tuning_proto_from_name(const char *name, weft_coll_proto_t *proto);

/**
 * weft_coll_tuning_algo_from_name: "auto", "ring", "direct", "tree", "halving_doubling"
 * (also "hd", "rhd"), "hierarchical", "nvls", "nvls_tree", "collnet", ignoring
 * case, '_' and '-' (NCCL_ALGO's spellings are accepted); FALSE if unknown.
 */
gboolean weft_coll_tuning_algo_from_name(const char *name, weft_coll_algo_t *algo);

/** weft_coll_tuning_cpu_from_name: "intel", "amd", "other" (ignoring case); FALSE if unknown. */
gboolean weft_coll_tuning_cpu_from_name(const char *name, weft_coll_cpu_t *cpu);

/**
 * weft_coll_tuning_busbw_factor: nccl-tests' bus bandwidth factor for @op on @n ranks:
 * all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n;
 * broadcast, reduce and the rest 1 (nccl-tests doc/PERFORMANCE.md).
 */
double weft_coll_tuning_busbw_factor(weft_coll_op_t op, guint n);

G_END_DECLS

#endif /* WEFT_COLL_TUNING_H */
