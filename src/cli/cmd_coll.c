/* SPDX-License-Identifier: MIT */
/*
 * weft coll: an nccl-tests-style sweep of one collective over a communicator
 * of a cluster. For each size, NCCL's tuning model (coll/tuning.h) chooses the
 * algorithm, protocol and channels (or takes the forced ones) and the plan is
 * built over the communicator's layout (coll/planner.h); the one-collective
 * workload is then replayed (replay/replay.h) with that plan, alone on the
 * network, with the executor's costs from the model; the table gives size,
 * count, type, time, algbw, busbw, the choice, and NCCL's own predicted time
 * beside it. --compare puts a measured nccl-tests table beside the predictions.
 * --algo custom:FILE runs a custom collective instead, an MSCCL-IR XML
 * (coll/msccl.h) or a Chakra ET prefix (workload.h, weft_workload_custom_plan()),
 * its plan alone on the network with no NCCL choice.
 * --system FILE lets ASTRA-sim's system JSON decide all-reduce, all-gather,
 * reduce-scatter and all-to-all instead of NCCL's model (coll/astra_system.h), so
 * that a sweep compares, say, the MICRO 2024 tutorial's Ring_sys.json and
 * Direct_sys.json on one network.
 */
#define G_LOG_DOMAIN "weft-cli"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "coll/astra_system.h"
#include "coll/coll.h"
#include "coll/p2p.h"
#include "coll/planner.h"
#include "coll/msccl.h"
#include "coll/tuning.h"
#include "core/output.h"
#include "core/sim.h"
#include "core/units.h"
#include "net/net.h"
#include "replay/replay.h"
#include "topo/topo.h"
#include "workload/workload.h"

/* nccl-tests' data type: float (4 bytes); count = size / 4. */
#define TYPE_BYTES 4

/*
 * Parses a size: a bare number is bytes; a number followed by exactly one of K, M,
 * G, T is KiB, MiB, GiB, TiB, as nccl-tests reads -b and -e ("16G" = 16 GiB);
 * anything else goes to weft_units_parse_bytes() ("16MiB", "1GB", "4096 B").
 */
static gboolean
parse_size(const char *text, guint64 *out, GError **error)
{
    char *end = NULL;
    errno = 0;
    double v = g_ascii_strtod(text, &end);
    if (end != text && errno == 0 && v >= 0.0) {
        const char *u = end;
        double mult = 0.0;
        if (*u == '\0') {
            mult = 1.0;
        } else if (u[1] == '\0') {
            switch (g_ascii_toupper(*u)) {
            case 'K':
                mult = 1024.0;
                break;
            case 'M':
                mult = 1024.0 * 1024.0;
                break;
            case 'G':
                mult = 1024.0 * 1024.0 * 1024.0;
                break;
            case 'T':
                mult = 1024.0 * 1024.0 * 1024.0 * 1024.0;
                break;
            default:
                break;
            }
        }
        if (mult > 0.0) {
            *out = (guint64)llround(v * mult);
            return TRUE;
        }
    }
    return weft_units_parse_bytes(text, out, error);
}

/* The GPUs of the communicator (GPU numbers, a GArray of guint): all, a list, or the first G
 * GPUs of the first N nodes. */
static GArray *
pick_gpus(const weft_topo_t *topo, const char *list, gint nodes, gint per_node, GError **error)
{
    guint n_gpus = weft_topo_n_gpus(topo);
    GArray *v = g_array_new(FALSE, FALSE, sizeof(guint));
    if (list != NULL) {
        g_auto(GStrv) parts = g_strsplit(list, ",", -1);
        for (guint i = 0; parts[i] != NULL; i++) {
            char *end = NULL;
            guint64 g = g_ascii_strtoull(g_strstrip(parts[i]), &end, 10);
            if (end == parts[i] || *end != '\0' || g >= n_gpus) {
                g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                            "--gpus %s: '%s' is not a GPU number of the cluster (0..%u)", list,
                            parts[i], n_gpus - 1);
                g_array_free(v, TRUE);
                return NULL;
            }
            guint gpu = (guint)g;
            for (guint j = 0; j < v->len; j++) {
                if (g_array_index(v, guint, j) == gpu) {
                    g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                                "--gpus %s: GPU %s is listed twice (a communicator holds each GPU "
                                "once)",
                                list, parts[i]);
                    g_array_free(v, TRUE);
                    return NULL;
                }
            }
            g_array_append_val(v, gpu);
        }
    } else if (nodes > 0 || per_node > 0) {
        /* GPUs grouped by NVLink domain, in GPU order. */
        guint n_dom = weft_topo_n_domains(topo);
        guint taken_nodes = 0;
        for (guint d = 0; d < n_dom && (nodes <= 0 || taken_nodes < (guint)nodes); d++) {
            guint taken = 0;
            for (guint g = 0; g < n_gpus && (per_node <= 0 || taken < (guint)per_node); g++) {
                if (weft_topo_vertex_domain(topo, weft_topo_gpu_vertex(topo, g)) == (gint)d) {
                    g_array_append_val(v, g);
                    taken++;
                }
            }
            if (per_node > 0 && taken < (guint)per_node) {
                g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                            "--gpus-per-node %d: node %u has only %u GPUs", per_node, d, taken);
                g_array_free(v, TRUE);
                return NULL;
            }
            taken_nodes++;
        }
        if (nodes > 0 && taken_nodes < (guint)nodes) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                        "--nodes %d: the cluster has %u nodes (NVLink domains)", nodes, n_dom);
            g_array_free(v, TRUE);
            return NULL;
        }
    } else {
        for (guint g = 0; g < n_gpus; g++) {
            g_array_append_val(v, g);
        }
    }
    if (v->len == 0) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE, "the communicator is empty");
        g_array_free(v, TRUE);
        return NULL;
    }
    return v;
}

/* One row of measurements (--compare). */
typedef struct {
    guint64 size;
    double time_us;
    double algbw;
    double busbw;
} measured_t;

/* Reads size_bytes,time_us,algbw_gbs,busbw_gbs rows; '#' lines and the header are skipped. */
static GArray *
read_measured(const char *path, GError **error)
{
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, error)) {
        return NULL;
    }
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(measured_t));
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++) {
        char *line = g_strstrip(lines[i]);
        if (*line == '\0' || *line == '#' || g_str_has_prefix(line, "size")) {
            continue;
        }
        g_auto(GStrv) f = g_strsplit(line, ",", -1);
        if (g_strv_length(f) < 4) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                        "%s:%u: \"%s\": expected size_bytes,time_us,algbw_gbs,busbw_gbs", path,
                        i + 1, line);
            g_array_free(rows, TRUE);
            return NULL;
        }
        measured_t m;
        char *e0 = NULL, *e1 = NULL;
        m.size = g_ascii_strtoull(f[0], &e0, 10);
        m.time_us = g_ascii_strtod(f[1], &e1);
        m.algbw = g_ascii_strtod(f[2], NULL);
        m.busbw = g_ascii_strtod(f[3], NULL);
        if (e0 == f[0] || e1 == f[1] || m.time_us <= 0.0) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                        "%s:%u: \"%s\": size_bytes and time_us must be positive numbers", path,
                        i + 1, line);
            g_array_free(rows, TRUE);
            return NULL;
        }
        g_array_append_val(rows, m);
    }
    return rows;
}

/*
 * Everything one sweep needs, built once. Sizes run one after the other on one network, as
 * nccl-tests runs them in one process: ECMP flow ids go on counting from size to size
 * (net.h, weft_net_next_flow_id()). The planner (the communicator is its communicator 0)
 * gives the header, each size's choice, --plan, and the plan each size's replay runs.
 */
typedef struct {
    weft_topo_t *topo;
    weft_fabric_t *fabric; /* the cluster's routes (ECMP seed 0, every link up) */
    weft_sim_t *sim;
    weft_net_t *net;
    weft_net_options_t net_opts; /* each size runs on a new network made with these */
    weft_coll_planner_t *planner;
    weft_astra_system_t *astra; /* --system: ASTRA-sim's system decides (else NULL: NCCL's) */
    GArray *gpus;    /* of guint: the communicator's GPU numbers, in rank order */
    GArray *members; /* of gint: their cluster vertices */
    weft_coll_tuning_t tuning;
    weft_coll_op_t op;
    /* --op sendrecv (nccl-tests sendrecv_perf): rank r sends S to r + 1 mod n and receives
     * from r - 1 mod n, as NCCL runs ncclSend / ncclRecv (coll/p2p.h) */
    gboolean sendrecv;
    weft_coll_p2p_comm_t p2p; /* the communicator's point-to-point set-up */
    gint *domain;             /* per member, its NVLink domain */
    weft_coll_plan_t *p2p_plan; /* the current size's (owned) */
    /* --algo custom:FILE: the algorithm, the communicator's layout, the current size's plan */
    weft_coll_msccl_t *custom;
    weft_workload_t *custom_et; /* or the custom collective as Chakra ET (one plan, built once) */
    const char *custom_file;
    weft_coll_layout_t *custom_layout;
    weft_coll_plan_t *custom_plan;
} bench_t;

static void
bench_clear(bench_t *b)
{
    weft_coll_plan_free(b->p2p_plan);
    weft_coll_plan_free(b->custom_plan);
    weft_coll_layout_free(b->custom_layout);
    weft_coll_msccl_free(b->custom);
    weft_workload_free(b->custom_et);
    g_free(b->domain);
    weft_coll_planner_free(b->planner);
    weft_astra_system_free(b->astra); /* after the planner, which points to it */
    if (b->members != NULL) {
        g_array_unref(b->members);
    }
    if (b->gpus != NULL) {
        g_array_unref(b->gpus);
    }
    weft_net_free(b->net);
    weft_sim_free(b->sim);
    weft_fabric_free(b->fabric);
    weft_topo_free(b->topo);
}

/* One prediction: nccl-tests size @size (bytes, nccl-tests' convention). */
typedef struct {
    weft_coll_config_t cfg;
    weft_coll_costs_t costs;
    weft_time_t time_ps;
    gboolean custom; /* the plan is a user's (weft_coll_plan_t.custom): the algo column says so */
} result_t;

/* weft's S from nccl-tests' size: all-gather, gather and scatter print the whole buffer
 * (n contributions); weft's S is one contribution (doc/collectives.md); a barrier carries
 * none (its plan and NCCL's choice for it do not depend on the size). */
static guint64
weft_size(const bench_t *b, guint64 size)
{
    guint n = b->members->len;
    if (b->op == WEFT_COLL_ALL_GATHER || b->op == WEFT_COLL_GATHER || b->op == WEFT_COLL_SCATTER) {
        return size / n;
    }
    return b->op == WEFT_COLL_BARRIER ? 0 : size;
}

/* The plan of nccl-tests size @size: NCCL's choice over the communicator (owned by the
 * planner). */
static const weft_coll_plan_t *
plan_for(bench_t *b, guint64 size, result_t *r, GError **error)
{
    if (b->sendrecv) {
        /* nccl-tests' sendrecv: every rank sends its whole buffer to the next */
        guint n = b->members->len;
        g_autofree weft_coll_p2p_msg_t *msgs = g_new(weft_coll_p2p_msg_t, n);
        guint n_msgs = 0;
        for (guint i = 0; n > 1 && i < n; i++) {
            msgs[n_msgs++] = (weft_coll_p2p_msg_t){i, (i + 1) % n};
        }
        weft_coll_plan_free(b->p2p_plan);
        b->p2p_plan = weft_coll_p2p_plan_build(&b->p2p, n, b->domain, msgs, n_msgs, size, error);
        if (b->p2p_plan == NULL) {
            return NULL;
        }
        r->cfg = (weft_coll_config_t){.algo = WEFT_COLL_ALGO_DIRECT,
                                      .proto = b->p2p_plan->proto,
                                      .channels = b->p2p_plan->channels,
                                      .chunks = b->p2p_plan->chunks};
        r->costs = (weft_coll_costs_t){.model_ps = -1};
        return b->p2p_plan;
    }
    if (b->custom_et != NULL) {
        /* the ET's own bytes, whatever the size: one plan (workload.h) */
        if (b->custom_plan == NULL) {
            b->custom_plan = weft_workload_custom_plan(b->custom_et, b->op, error);
            if (b->custom_plan == NULL) {
                return NULL;
            }
        }
        r->cfg = (weft_coll_config_t){.algo = b->custom_plan->algo,
                                      .proto = b->custom_plan->proto,
                                      .channels = 1,
                                      .chunks = 1};
        r->costs = (weft_coll_costs_t){.model_ps = -1};
        return b->custom_plan;
    }
    if (b->custom != NULL) {
        /* a custom collective: its own plan, no choice to make (coll/msccl.h) */
        weft_coll_plan_free(b->custom_plan);
        b->custom_plan =
            weft_coll_msccl_plan(b->custom, b->custom_layout, weft_size(b, size), error);
        if (b->custom_plan == NULL) {
            return NULL;
        }
        r->cfg = (weft_coll_config_t){.algo = b->custom_plan->algo,
                                      .proto = b->custom_plan->proto,
                                      .channels = b->custom_plan->channels,
                                      .chunks = b->custom_plan->chunks};
        r->costs = (weft_coll_costs_t){.model_ps = -1};
        return b->custom_plan;
    }
    weft_coll_choice_t choice;
    const weft_coll_plan_t *plan =
        weft_coll_planner_plan(b->planner, b->op, weft_size(b, size), 0, &choice, error);
    if (plan != NULL) {
        r->cfg = choice.config;
        r->costs = choice.costs;
    }
    return plan;
}

/*
 * How long one collective of weft's S = @s bytes takes: the replay of the one-collective
 * workload (weft_workload_collective(), what a scenario's workload.collective runs), rank r
 * on the communicator's r-th GPU, every transfer simulated, on the sweep's network and with
 * its planner, so that the run executes the plan plan_for() returned.
 */
static weft_time_t
replay_time(bench_t *b, guint64 s, GError **error)
{
    g_autoptr(weft_workload_t) wl = weft_workload_collective(b->op, s, 1, b->gpus->len, error);
    if (wl == NULL || !weft_workload_check(wl, weft_topo_n_gpus(b->topo), error)) {
        return -1;
    }
    weft_replay_options_t opts = {
        .rank_gpu = (const guint *)b->gpus->data,
        .collective_detail = WEFT_REPLAY_DETAIL_TRANSFERS,
        .planner = b->planner,
    };
    weft_time_t start = weft_sim_now(b->sim);
    g_autoptr(weft_replay_result_t) res = weft_replay_run(b->sim, b->net, wl, &opts, error);
    return res != NULL ? res->step_ps - start : -1;
}

/* The choice (the planner's, whose errors are weft coll's) and the time of @size. A
 * workload's collective carries at least a byte (but for a barrier): the zero-byte sizes
 * (-b 0; all-gather, gather and scatter below n bytes) run their plan alone instead. */
static gboolean
predict(bench_t *b, guint64 size, result_t *r, GError **error)
{
    const weft_coll_plan_t *plan = plan_for(b, size, r, error);
    if (plan == NULL) {
        return FALSE;
    }
    r->custom = plan->custom;
    /* each size on a network of its own, as a replay's first collective runs: ECMP flow ids
     * count a pair's earlier transfers, so a shared network would route a size by the sizes
     * swept before it (-b 64K and -b 1M gave different 1 MiB rows) */
    weft_net_free(b->net);
    weft_sim_free(b->sim);
    b->sim = weft_sim_new(1);
    b->net = weft_net_new_full(b->sim, b->fabric, &b->net_opts);
    guint64 s = weft_size(b, size);
    if (b->sendrecv || b->custom != NULL || b->custom_et != NULL) {
        /* the plan alone on the network, as the replay runs a SEND/RECV pair's */
        r->time_ps = weft_coll_time_full(b->sim, b->net, plan, (const gint *)b->members->data,
                                         NULL, error);
        return r->time_ps >= 0;
    }
    r->time_ps = s > 0 || b->op == WEFT_COLL_BARRIER
                     ? replay_time(b, s, error)
                     : weft_coll_time_full(b->sim, b->net, plan, (const gint *)b->members->data,
                                           NULL, error);
    /* sizes do not repeat: one plan at a time */
    weft_coll_planner_forget(b->planner);
    return r->time_ps >= 0;
}

/* The algorithm column: p2p for sendrecv, custom for --algo custom:FILE. */
static const char *
algo_label(const bench_t *b, const result_t *r)
{
    return b->sendrecv                                                 ? "p2p"
           : (b->custom != NULL || b->custom_et != NULL || r->custom) ? "custom"
                                                                       : weft_coll_algo_name(r->cfg.algo);
}

static double
algbw_gbs(guint64 size, weft_time_t t_ps)
{
    return t_ps > 0 ? (double)size / ((double)t_ps * 1e-12) / 1e9 : 0.0;
}

int
weft_cmd_coll(int argc, char **argv)
{
    g_autofree char *cluster = NULL;
    g_autofree char *op_text = NULL;
    g_autofree char *min_text = NULL;
    g_autofree char *max_text = NULL;
    g_autofree char *gpus = NULL;
    g_autofree char *network = NULL;
    g_autofree char *update_text = NULL;
    g_autofree char *algo_text = NULL;
    g_autofree char *proto_text = NULL;
    g_autofree char *cpu_text = NULL;
    g_autofree char *nccl_text = NULL;
    g_autofree char *csv = NULL;
    g_autofree char *compare = NULL;
    g_autofree char *system = NULL;
    gdouble step_factor = 2.0;
    gint nodes = 0, per_node = 0, channels = 0, chunks = 0;
    gboolean show_plan = FALSE;
    g_autofree char *progress_mode = NULL;
    gboolean quiet = FALSE;
    GOptionEntry entries[] = {
        {"cluster", 'c', 0, G_OPTION_ARG_FILENAME, &cluster,
         "cluster file: weft INI, ASTRA-sim network YAML or GraphML (required)", "FILE"},
        {"op", 0, 0, G_OPTION_ARG_STRING, &op_text,
         "all_reduce (default), all_gather, reduce_scatter, alltoall, broadcast, reduce, gather, "
         "scatter, barrier, sendrecv",
         "OP"},
        {"min-bytes", 'b', 0, G_OPTION_ARG_STRING, &min_text,
         "smallest size, nccl-tests' convention (default 8): 4096, 16MiB, 1GB, or 16G = 16 GiB",
         "SIZE"},
        {"max-bytes", 'e', 0, G_OPTION_ARG_STRING, &max_text, "largest size (default 128M)",
         "SIZE"},
        {"step-factor", 'f', 0, G_OPTION_ARG_DOUBLE, &step_factor,
         "multiply the size by this each row (default 2)", "F"},
        {"gpus", 'g', 0, G_OPTION_ARG_STRING, &gpus,
         "the communicator: GPU numbers, e.g. 0,1,2,3 (default: every GPU)", "LIST"},
        {"nodes", 0, 0, G_OPTION_ARG_INT, &nodes,
         "the communicator: the first N nodes (NVLink domains)", "N"},
        {"gpus-per-node", 0, 0, G_OPTION_ARG_INT, &per_node,
         "the communicator: the first G GPUs of each node", "G"},
        {"network", 'n', 0, G_OPTION_ARG_STRING, &network,
         "network model: analytical (default) or flow", "MODEL"},
        {"update", 0, 0, G_OPTION_ARG_STRING, &update_text,
         "the flow model's update mode (network.update): incremental (default) or full, the slow "
         "reference that recomputes every rate at every event; both give the same times",
         "MODE"},
        {"algo", 0, 0, G_OPTION_ARG_STRING, &algo_text,
         "force the algorithm (NCCL_ALGO): ring, tree, nvls, nvls_tree, collnet, direct, "
         "halving_doubling, hierarchical, or custom:FILE (an MSCCL XML algorithm, run as "
         "written) or custom:PREFIX (a Chakra ET per rank, PREFIX.0.et, PREFIX.1.et, ...); "
         "default auto",
         "ALGO"},
        {"proto", 0, 0, G_OPTION_ARG_STRING, &proto_text,
         "force the protocol (NCCL_PROTO): ll, ll128, simple; default auto", "PROTO"},
        {"channels", 0, 0, G_OPTION_ARG_INT, &channels, "force the channel count (default: NCCL's)",
         "N"},
        {"chunks", 0, 0, G_OPTION_ARG_INT, &chunks,
         "pipeline chunks per channel (default: NCCL's chunk size)", "N"},
        {"cpu", 0, 0, G_OPTION_ARG_STRING, &cpu_text,
         "host CPU vendor for NCCL's network overheads: intel (default), amd, other", "VENDOR"},
        {"nccl-version", 0, 0, G_OPTION_ARG_STRING, &nccl_text,
         "the NCCL release whose tuning model to follow: 2.20.3 (default) or 2.27.3", "V"},
        {"system", 0, 0, G_OPTION_ARG_FILENAME, &system,
         "ASTRA-sim system JSON: its implementation (ring, direct, ...), dataset splits, active "
         "chunks, endpoint delay and local-mem-bw decide all_reduce, all_gather, reduce_scatter "
         "and alltoall instead of NCCL's model (no --algo, --proto, --channels, --chunks, --cpu, "
         "--nccl-version)",
         "FILE"},
        {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "also write the table as CSV to FILE", "FILE"},
        weft_cli_progress_entry(&progress_mode),
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no progress lines (--progress=never)", NULL},
        {"plan", 0, 0, G_OPTION_ARG_NONE, &show_plan,
         "print the plan of --min-bytes instead of the sweep", NULL},
        {"compare", 0, 0, G_OPTION_ARG_FILENAME, &compare,
         "predict the sizes of a measured nccl-tests CSV (size_bytes,time_us,algbw_gbs,busbw_gbs) "
         "and print both with the error of each row and the mean absolute percentage errors",
         "MEASURED.csv"},
        {NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("- predict a collective's time over a size sweep, like nccl-tests");
    g_option_context_set_summary(
        ctx, "For each size from --min-bytes to --max-bytes (times --step-factor), chooses the\n"
             "algorithm, protocol and channels with NCCL's tuning model (or takes the forced\n"
             "ones), simulates the collective alone on the cluster and prints size, count, type\n"
             "(float), time (us), algbw and busbw (GB/s), the choice, and NCCL's own predicted\n"
             "time (nccl_us).\n\n"
             "Sizes follow nccl-tests: the size of all_gather (and gather, scatter) is the\n"
             "whole OUTPUT buffer (n x each rank's contribution), the opposite of Chakra's\n"
             "comm_size, which is one rank's contribution: weft simulates size / n per rank.\n"
             "algbw = size / time; busbw = algbw x 2(n-1)/n for all_reduce, x (n-1)/n for\n"
             "all_gather, reduce_scatter and alltoall, x 1 otherwise.\n\n"
             "sendrecv is nccl-tests' sendrecv_perf: rank r sends size bytes to rank r+1 mod n\n"
             "and receives as many from r-1 mod n, all at once, cut into NCCL's point-to-point\n"
             "channels and steps (algo p2p; ch = channels per message, chunks = steps per\n"
             "channel); NCCL chooses nothing to force for it (no --algo, --proto, --channels,\n"
             "--chunks).\n\n"
             "With --system FILE (an ASTRA-sim system JSON) ASTRA-sim's system layer decides\n"
             "all_reduce, all_gather, reduce_scatter and alltoall as weft replay --system does\n"
             "(doc/formats.md): the algo column is weft's plan for the file's implementation\n"
             "(of dimension 0 over a multi-dimensional network), ch the concurrent chunks (over\n"
             "all the NPUs of a multi-dimensional network: every dataset split, pipelined over\n"
             "the dimensions), and nccl_us is '-'. Other operations keep weft's plain plans.");
    g_option_context_set_description(
        ctx, "Examples:\n"
             "  weft coll --cluster topologies/dgx-h100.ini --op all_reduce -b 8 -e 16G\n"
             "  weft coll --cluster topologies/p5-h100-2node.ini --cpu amd --compare \\\n"
             "      ../shared/validation/nccl_allreduce_p5_h100_2node.csv\n"
             "  weft coll --cluster topologies/dgx-h100.ini --algo ring --proto ll -b 1M --plan\n"
             "  weft coll --cluster Ring_8.yml --system Ring_sys.json -b 1M -e 1M\n\n"
             "Exit status: 0 on success, 1 on bad input or an unsupported forced choice,\n"
             "2 on a usage error.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    weft_cli_add_log_options(ctx);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        return weft_cli_usage_error("coll", error->message);
    }
    gboolean progress_ok;
    int code;
    g_autoptr(weft_progress_t) progress =
        weft_cli_progress_new("coll", progress_mode, quiet, &progress_ok, &code);
    if (!progress_ok) {
        return code;
    }
    if (argc > 1) {
        g_autofree char *msg = g_strdup_printf("unexpected argument '%s'", argv[1]);
        return weft_cli_usage_error("coll", msg);
    }
    if (cluster == NULL) {
        return weft_cli_usage_error("coll", "--cluster FILE is required");
    }
    bench_t b = {0};
    b.op = WEFT_COLL_ALL_REDUCE;
    if (op_text != NULL && (g_ascii_strcasecmp(op_text, "sendrecv") == 0 ||
                            g_ascii_strcasecmp(op_text, "send_recv") == 0)) {
        b.sendrecv = TRUE;
        b.op = WEFT_COLL_ALL_TO_ALL; /* the planner's communicator system only */
        if (algo_text != NULL || proto_text != NULL || channels != 0 || chunks != 0) {
            return weft_cli_usage_error(
                "coll", "--op sendrecv: NCCL's point-to-point has no --algo, --proto, --channels "
                        "or --chunks to force (NCCL_PROTO and NCCL_ALGO do not apply to it)");
        }
    } else if (op_text != NULL && !weft_coll_op_from_name(op_text, &b.op)) {
        g_autofree char *msg = g_strdup_printf("--op %s: unknown operation", op_text);
        return weft_cli_usage_error("coll", msg);
    }
    if (system != NULL && (b.sendrecv || algo_text != NULL || proto_text != NULL ||
                           channels != 0 || chunks != 0 || cpu_text != NULL ||
                           nccl_text != NULL)) {
        return weft_cli_usage_error(
            "coll", "--system: ASTRA-sim's system decides the collective; it excludes --op "
                    "sendrecv, --algo, --proto, --channels, --chunks, --cpu and --nccl-version");
    }
    weft_coll_algo_t algo = WEFT_COLL_ALGO_AUTO;
    if (algo_text != NULL && g_str_has_prefix(algo_text, "custom:")) {
        if (b.sendrecv) {
            return weft_cli_usage_error("coll", "--op sendrecv has no custom algorithm");
        }
        b.custom_file = algo_text + strlen("custom:");
        if (b.custom_file[0] == '\0') {
            return weft_cli_usage_error(
                "coll", "--algo custom: needs a file: custom:FILE.xml (an MSCCL XML algorithm) "
                        "or custom:PREFIX (Chakra ET files PREFIX.0.et, PREFIX.1.et, ...)");
        }
        if (!g_str_has_suffix(b.custom_file, ".xml")) {
            /* a Chakra ET prefix (custom_allreduce for custom_allreduce.N.et) */
            g_autofree char *first = g_strdup_printf("%s.0.et", b.custom_file);
            if (!g_file_test(first, G_FILE_TEST_EXISTS)) {
                g_autofree char *msg = g_strdup_printf(
                    "--algo custom:%s: neither an MSCCL-IR XML file (FILE.xml) nor a Chakra ET "
                    "prefix (no %s)%s",
                    b.custom_file, first,
                    g_str_has_suffix(b.custom_file, ".json")
                        ? "; an ASTRA-sim system file goes to --system"
                        : "");
                return weft_cli_usage_error("coll", msg);
            }
            b.custom_et = weft_workload_load_chakra(b.custom_file, NULL, &error);
            if (b.custom_et == NULL) {
                return weft_cli_error("coll", error);
            }
        } else {
            b.custom = weft_coll_msccl_load(b.custom_file, &error);
            if (b.custom == NULL) {
                return weft_cli_error("coll", error);
            }
        }
        weft_coll_op_t cop = b.custom != NULL ? weft_coll_msccl_op(b.custom) : b.op;
        if (op_text != NULL && cop != b.op) {
            g_autofree char *msg = g_strdup_printf("--op %s: %s is an algorithm for %s", op_text,
                                                   b.custom_file, weft_coll_op_name(cop));
            bench_clear(&b);
            return weft_cli_usage_error("coll", msg);
        }
        b.op = cop;
    } else if (algo_text != NULL && !weft_coll_tuning_algo_from_name(algo_text, &algo)) {
        g_autofree char *msg = g_strdup_printf(
            "--algo %s: unknown algorithm (ring, direct, tree, halving_doubling, hierarchical, "
            "nvls, nvls_tree, collnet, auto)",
            algo_text);
        return weft_cli_usage_error("coll", msg);
    }
    weft_coll_proto_t proto = WEFT_COLL_PROTO_AUTO;
    if (proto_text != NULL && !weft_coll_tuning_proto_from_name(proto_text, &proto)) {
        g_autofree char *msg =
            g_strdup_printf("--proto %s: unknown protocol (ll, ll128, simple, auto)", proto_text);
        return weft_cli_usage_error("coll", msg);
    }
    if (cpu_text != NULL && !weft_coll_tuning_cpu_from_name(cpu_text, &b.tuning.cpu)) {
        g_autofree char *msg =
            g_strdup_printf("--cpu %s: unknown vendor (intel, amd, other)", cpu_text);
        return weft_cli_usage_error("coll", msg);
    }
    if (nccl_text != NULL &&
        !weft_coll_nccl_version_from_name(nccl_text, &b.tuning.nccl_version)) {
        g_autofree char *msg =
            g_strdup_printf("--nccl-version %s: not a modelled NCCL release (2.20.3, 2.27.3)",
                            nccl_text);
        return weft_cli_usage_error("coll", msg);
    }
    if (channels > 64) {
        /* the same limit as the scenario key collectives.channels: NCCL's MAXCHANNELS */
        g_autofree char *msg = g_strdup_printf("--channels %d: at most 64 channels", channels);
        return weft_cli_usage_error("coll", msg);
    }
    if (channels < 0 || chunks < 0 || nodes < 0 || per_node < 0) {
        return weft_cli_usage_error(
            "coll", "--channels, --chunks, --nodes and --gpus-per-node must not be negative");
    }
    if (gpus != NULL && (nodes > 0 || per_node > 0)) {
        return weft_cli_usage_error("coll", "--gpus excludes --nodes and --gpus-per-node");
    }
    if (!(step_factor > 1.0) || !isfinite(step_factor)) {
        return weft_cli_usage_error("coll", "--step-factor must be a number > 1");
    }
    guint64 min_b = 8, max_b = 128ull << 20;
    if ((min_text != NULL && !parse_size(min_text, &min_b, &error)) ||
        (max_text != NULL && !parse_size(max_text, &max_b, &error))) {
        g_autofree char *msg = g_strdup_printf("--min-bytes/--max-bytes: %s", error->message);
        return weft_cli_usage_error("coll", msg);
    }
    if (max_text == NULL && max_b < min_b) {
        max_b = min_b;
    }
    if (max_b < min_b) {
        return weft_cli_usage_error("coll", "--max-bytes is below --min-bytes");
    }
    b.tuning.algo[b.op] = algo;
    b.tuning.proto[b.op] = proto;
    b.tuning.channels = (guint)channels;
    b.tuning.chunks = (guint)chunks;

    weft_net_model_t model = WEFT_NET_ANALYTICAL;
    if (network != NULL && !weft_net_model_from_name(network, &model, &error)) {
        g_autofree char *msg = g_strdup_printf("--network: %s", error->message);
        return weft_cli_usage_error("coll", msg);
    }
    weft_net_options_t net_opts = {.model = model, .update = WEFT_NET_UPDATE_INCREMENTAL};
    if (update_text != NULL && !weft_net_update_from_name(update_text, &net_opts.update, &error)) {
        g_autofree char *msg = g_strdup_printf("--update: %s", error->message);
        return weft_cli_usage_error("coll", msg);
    }
    g_autoptr(GArray) measured = NULL;
    if (compare != NULL) {
        measured = read_measured(compare, &error);
        if (measured == NULL) {
            return weft_cli_error("coll", error);
        }
    }

    b.topo = weft_topo_load(cluster, &error);
    if (b.topo == NULL) {
        return weft_cli_error("coll", error);
    }
    b.fabric = weft_fabric_new(b.topo);
    b.gpus = pick_gpus(b.topo, gpus, nodes, per_node, &error);
    if (b.gpus == NULL) {
        bench_clear(&b);
        return weft_cli_error("coll", error);
    }
    b.members = g_array_sized_new(FALSE, FALSE, sizeof(gint), b.gpus->len);
    for (guint i = 0; i < b.gpus->len; i++) {
        gint vert = weft_topo_gpu_vertex(b.topo, g_array_index(b.gpus, guint, i));
        g_array_append_val(b.members, vert);
    }
    weft_coll_planner_config_t pcfg = {.tuning = &b.tuning};
    if (system != NULL) {
        g_autoptr(GPtrArray) warns = NULL;
        b.astra = weft_astra_system_load(system, &warns, &error);
        if (b.astra == NULL || !weft_workload_astra_custom_plans(b.astra, &error)) {
            bench_clear(&b);
            return weft_cli_error("coll", error);
        }
        guint n_dims = 0;
        const guint *dims = weft_topo_astra_dims(b.topo, &n_dims);
        g_autoptr(GPtrArray) net_warns = NULL;
        if (!weft_astra_system_check_network(b.astra, dims, n_dims, &net_warns, &error)) {
            bench_clear(&b);
            return weft_cli_error("coll", error);
        }
        g_ptr_array_extend_and_steal(warns, g_steal_pointer(&net_warns));
        for (guint i = 0; i < warns->len; i++) {
            fprintf(stderr, "weft coll: warning: %s\n", (const char *)g_ptr_array_index(warns, i));
        }
        pcfg = (weft_coll_planner_config_t){.astra = b.astra}; /* the plain model's planner */
    }
    b.planner = weft_coll_planner_new(b.fabric, &pcfg);
    if (b.custom != NULL) {
        b.custom_layout =
            weft_coll_layout_new(b.fabric, (const gint *)b.members->data, b.members->len);
        if (weft_coll_msccl_n_gpus(b.custom) != b.members->len) {
            g_set_error(&error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                        "%s: ngpus=%u but the communicator has %u GPUs (--gpus, --nodes)",
                        b.custom_file, weft_coll_msccl_n_gpus(b.custom), b.members->len);
            bench_clear(&b);
            return weft_cli_error("coll", error);
        }
    }
    if (b.custom_et != NULL && b.custom_et->n_ranks != b.members->len) {
        g_set_error(&error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s: %u ranks of Chakra ET but the communicator has %u GPUs (--gpus, "
                    "--nodes)",
                    b.custom_file, b.custom_et->n_ranks, b.members->len);
        bench_clear(&b);
        return weft_cli_error("coll", error);
    }
    weft_coll_planner_add_comm(b.planner, (const gint *)b.members->data, b.members->len);
    /* NCCL's view of the communicator: its graphs for the header, point-to-point set-up;
     * a system file's sweep has none */
    const weft_coll_system_t *sys = NULL;
    if (b.astra == NULL) {
        sys = weft_coll_planner_system(b.planner, 0, &error);
        if (sys == NULL) {
            bench_clear(&b);
            return weft_cli_error("coll", error);
        }
    }
    b.net_opts = net_opts;
    b.sim = weft_sim_new(1);
    b.net = weft_net_new_full(b.sim, b.fabric, &net_opts);
    guint n = b.members->len;
    double factor = b.sendrecv ? 1.0 : weft_coll_tuning_busbw_factor(b.op, n);
    if (b.sendrecv) {
        weft_coll_p2p_comm_init(&b.p2p, sys);
        b.domain = g_new(gint, n);
        for (guint i = 0; i < n; i++) {
            b.domain[i] = weft_topo_vertex_domain(b.topo, g_array_index(b.members, gint, i));
        }
    }
    const char *op_label = b.sendrecv ? "sendrecv" : weft_coll_op_name(b.op);

    if (show_plan) {
        result_t r = {0};
        const weft_coll_plan_t *plan = plan_for(&b, min_b, &r, &error);
        if (plan == NULL) {
            bench_clear(&b);
            return weft_cli_error("coll", error);
        }
        GString *out = g_string_new(NULL);
        weft_coll_plan_print(plan, out);
        fputs(out->str, stdout);
        g_string_free(out, TRUE);
        bench_clear(&b);
        return WEFT_EXIT_OK;
    }

    if (b.astra != NULL) {
        printf("# weft coll: %s on %u ranks (%s), network %s, ASTRA-sim system %s\n", op_label, n,
               weft_topo_name(b.topo), weft_net_model_name(model), system);
        printf("# ASTRA-sim system: %u dataset splits, %u active chunks, endpoint delay "
               "%" G_GINT64_FORMAT
               " ns; ch = concurrent chunks (multi-dimensional: all splits, pipelined)\n",
               b.astra->dataset_splits, b.astra->active_chunks, b.astra->endpoint_delay_ns);
    } else {
        printf("# weft coll: %s on %u ranks, %u nodes (%s), network %s, cpu %s, nccl %s\n",
               op_label, n, sys->n_nodes, weft_topo_name(b.topo), weft_net_model_name(model),
               cpu_text != NULL ? cpu_text : "intel",
               weft_coll_nccl_version_name(b.tuning.nccl_version));
        printf("# NCCL graphs: ring %u x %.1f GB/s, nvls %u x %.1f/%.1f GB/s; %u coll channels\n",
               sys->graph[WEFT_NCCL_RING].channels, sys->graph[WEFT_NCCL_RING].bw_intra,
               sys->graph[WEFT_NCCL_NVLS].channels, sys->graph[WEFT_NCCL_NVLS].bw_intra,
               sys->graph[WEFT_NCCL_NVLS].bw_inter, sys->coll_channels);
        if (weft_topo_is_abstract(b.topo)) {
            /* an ASTRA-sim network: no hosts, NICs or NVLink; NCCL's model sees a node per NPU */
            printf("# an abstract cluster: NCCL's model sees one GPU per node and no NVLink; "
                   "--system FILE runs ASTRA-sim's collectives instead\n");
        }
        if (b.tuning.nccl_version >= WEFT_NCCL_2_27_3 && sys->ppn == 1 && n > 1 &&
            (b.op == WEFT_COLL_ALL_GATHER || b.op == WEFT_COLL_REDUCE_SCATTER ||
             b.op == WEFT_COLL_REDUCE_SCATTER_BLOCK)) {
            printf("# NCCL 2.27.3 also weighs PAT here (one GPU per node); weft has no PAT plan "
                   "and chooses as NCCL_ALGO=^PAT would (doc/collectives.md)\n");
        }
        if (b.custom_et != NULL) {
            printf("# custom collective: %s (Chakra ET, %u ranks), run as written: its own bytes "
                   "whatever the size, COMP nodes charged their duration; NCCL's choice and "
                   "nccl_us do not apply\n",
                   b.custom_file, b.custom_et->n_ranks);
        }
        if (b.custom != NULL) {
            printf("# custom collective: %s (MSCCL algorithm \"%s\"), run as written: NCCL's "
                   "choice and nccl_us do not apply\n",
                   b.custom_file, weft_coll_msccl_name(b.custom));
        }
        if (b.sendrecv) {
            printf("# NCCL p2p: %u p2p channels, %u per peer, %u per message at least, step "
                   "%" G_GUINT64_FORMAT " B\n",
                   b.p2p.p2p_channels, b.p2p.per_peer, b.p2p.min_channels, b.p2p.chunk_bytes);
        }
    }
    GString *csv_text = g_string_new(NULL);
    int rc = WEFT_EXIT_OK;
    if (measured == NULL) {
        printf("%14s %12s %6s %12s %10s %10s %-16s %-7s %4s %6s %12s\n", "size", "count", "type",
               "time_us", "algbw_gbs", "busbw_gbs", "algo", "proto", "ch", "chunks", "nccl_us");
        g_string_append(csv_text, "size_bytes,count,type,time_us,algbw_GBps,busbw_GBps,algorithm,"
                                  "protocol,channels,chunks,nccl_us\n");
        for (double sz = (double)min_b; sz <= (double)max_b * (1.0 + 1e-12); sz *= step_factor) {
            guint64 size = (guint64)llround(sz);
            if (weft_progress_due(progress)) {
                /* sizes grow geometrically: the fraction of the sweep's steps done */
                double f = max_b > min_b && min_b > 0
                               ? log(sz / (double)min_b) / log((double)max_b / (double)min_b)
                               : -1.0;
                weft_progress_report(progress, f, "size %" G_GUINT64_FORMAT " bytes", size);
            }
            result_t r = {0};
            if (!predict(&b, size, &r, &error)) {
                rc = weft_cli_error("coll", error);
                break;
            }
            double alg = algbw_gbs(size, r.time_ps);
            double model_us = r.costs.model_ps >= 0 ? r.costs.model_ps / 1e6 : -1.0;
            /* NCCL's model has no figure for some operations (all-to-all): print '-' */
            g_autofree char *model_text =
                model_us >= 0 ? g_strdup_printf("%.2f", model_us) : g_strdup("-");
            weft_progress_finish(progress); /* a terminal line would cut into the row */
            printf("%14" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT " %6s %12.2f %10.2f %10.2f "
                   "%-16s %-7s %4u %6u %12s\n",
                   size, size / TYPE_BYTES, "float", r.time_ps / 1e6, alg, alg * factor,
                   algo_label(&b, &r), weft_coll_tuning_proto_name(r.cfg.proto),
                   r.cfg.channels, r.cfg.chunks, model_text);
            fflush(stdout); /* a row as soon as it is known: a long sweep shows its progress */
            /* no NCCL figure: an empty cell, which loads as NaN in a float column */
            g_autofree char *model_csv =
                model_us >= 0 ? g_strdup_printf("%.3f", model_us) : g_strdup("");
            g_string_append_printf(csv_text,
                                   "%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                                   ",float,%.3f,%.3f,%.3f,%s,%s,%u,%u,%s\n",
                                   size, size / TYPE_BYTES, r.time_ps / 1e6, alg, alg * factor,
                                   algo_label(&b, &r),
                                   weft_coll_tuning_proto_name(r.cfg.proto), r.cfg.channels,
                                   r.cfg.chunks, model_csv);
            if (size == 0 || step_factor * sz > 1.8e19) {
                break;
            }
        }
    } else {
        printf("%14s %10s %10s %8s %10s %10s %8s %-16s %-7s %10s\n", "size", "meas_us", "pred_us",
               "err_%", "meas_bus", "pred_bus", "err_%", "algo", "proto", "nccl_us");
        g_string_append(csv_text, "size_bytes,measured_us,predicted_us,time_err_pct,"
                                  "measured_busbw_GBps,predicted_busbw_GBps,busbw_err_pct,"
                                  "algorithm,protocol,nccl_us\n");
        double sum_t = 0.0, sum_small = 0.0, sum_big = 0.0;
        guint n_t = 0, n_small = 0, n_big = 0;
        for (guint i = 0; i < measured->len; i++) {
            const measured_t *m = &g_array_index(measured, measured_t, i);
            weft_progress_report(progress, (double)i / measured->len,
                                 "size %" G_GUINT64_FORMAT " bytes (%u/%u)", m->size, i,
                                 measured->len);
            result_t r = {0};
            if (!predict(&b, m->size, &r, &error)) {
                rc = weft_cli_error("coll", error);
                break;
            }
            double t_us = r.time_ps / 1e6;
            double bus = algbw_gbs(m->size, r.time_ps) * factor;
            double et = 100.0 * (t_us - m->time_us) / m->time_us;
            double eb = m->busbw > 0.0 ? 100.0 * (bus - m->busbw) / m->busbw : NAN;
            sum_t += fabs(et);
            n_t++;
            if (m->size < (1u << 20)) {
                sum_small += fabs(et);
                n_small++;
            } else if (!isnan(eb)) {
                sum_big += fabs(eb);
                n_big++;
            }
            double model_us = r.costs.model_ps >= 0 ? r.costs.model_ps / 1e6 : -1.0;
            /* busbw printed as 0.00 has no relative error: "-" */
            g_autofree char *eb_text = isnan(eb) ? g_strdup("-") : g_strdup_printf("%+.1f", eb);
            weft_progress_finish(progress);
            printf("%14" G_GUINT64_FORMAT " %10.2f %10.2f %+8.1f %10.2f %10.2f %8s %-16s %-7s "
                   "%10.2f\n",
                   m->size, m->time_us, t_us, et, m->busbw, bus, eb_text,
                   algo_label(&b, &r), weft_coll_tuning_proto_name(r.cfg.proto),
                   model_us);
            fflush(stdout);
            g_autofree char *eb_csv = isnan(eb) ? g_strdup("") : g_strdup_printf("%.2f", eb);
            g_autofree char *model_csv =
                model_us >= 0 ? g_strdup_printf("%.3f", model_us) : g_strdup("");
            g_string_append_printf(
                csv_text, "%" G_GUINT64_FORMAT ",%.3f,%.3f,%.2f,%.3f,%.3f,%s,%s,%s,%s\n", m->size,
                m->time_us, t_us, et, m->busbw, bus, eb_csv, algo_label(&b, &r),
                weft_coll_tuning_proto_name(r.cfg.proto), model_csv);
        }
        if (rc == WEFT_EXIT_OK) {
            printf("# MAPE time, all %u sizes: %.2f%%\n", n_t, n_t ? sum_t / n_t : 0.0);
            printf("# MAPE time, %u sizes < 1 MiB: %.2f%%\n", n_small,
                   n_small ? sum_small / n_small : 0.0);
            printf("# MAPE busbw, %u sizes >= 1 MiB: %.2f%%\n", n_big,
                   n_big ? sum_big / n_big : 0.0);
        }
    }
    if (rc == WEFT_EXIT_OK && csv != NULL &&
        !weft_output_write(csv, csv_text->str, (gssize)csv_text->len, &error)) {
        rc = weft_cli_error("coll", error);
    }
    g_string_free(csv_text, TRUE);
    bench_clear(&b);
    return rc;
}
