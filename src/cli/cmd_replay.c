/* SPDX-License-Identifier: MIT */
/*
 * weft replay: load a cluster and a workload, check them, replay one step and
 * print the step time and per-rank breakdown.
 */
#include "config.h"

#include <stdio.h>

#include "cli/cli.h"
#include "core/sim.h"
#include "net/net.h"
#include "replay/replay.h"
#include "topo/topo.h"
#include "workload/workload.h"

static void
print_result(const char *cluster, const weft_topo_t *topo, const char *trace,
             const weft_workload_t *wl, const char *model, guint chunks,
             const weft_replay_result_t *res)
{
    printf("cluster      %s (%u GPUs, %u vertices, %u directed links)\n", cluster,
           weft_topo_n_gpus(topo), weft_topo_n_vertices(topo), weft_topo_n_edges(topo));
    printf("workload     %s (%u ranks, %" G_GUINT64_FORMAT " nodes)\n", trace, wl->n_ranks,
           weft_workload_node_count(wl));
    printf("network      %s, %u chunk(s) per collective\n", model, chunks);
    printf("collectives  %" G_GUINT64_FORMAT ", point-to-point transfers %" G_GUINT64_FORMAT
           ", events %" G_GUINT64_FORMAT "\n",
           res->collectives, res->p2p_transfers, res->events);
    printf("step time    %.6f us\n\n", weft_time_to_us(res->step_ps));
    printf("%6s %16s %16s %20s %16s\n", "rank", "finish_us", "compute_us", "exposed_comm_us",
           "idle_us");
    for (guint r = 0; r < res->n_ranks; r++) {
        const weft_rank_result_t *rr = &res->ranks[r];
        printf("%6u %16.6f %16.6f %20.6f %16.6f\n", r, weft_time_to_us(rr->finish_ps),
               weft_time_to_us(rr->compute_ps), weft_time_to_us(rr->exposed_comm_ps),
               weft_time_to_us(rr->idle_ps));
    }
}

int
weft_cmd_replay(int argc, char **argv)
{
    g_autofree char *cluster = NULL;
    g_autofree char *trace = NULL;
    g_autofree char *comm_groups = NULL;
    g_autofree char *network = NULL;
    gint chunks = 1;
    gint64 seed = 1;
    GOptionEntry entries[] = {
        {"cluster", 'c', 0, G_OPTION_ARG_FILENAME, &cluster,
         "cluster file: weft INI or ASTRA-sim network YAML", "FILE"},
        {"trace", 't', 0, G_OPTION_ARG_FILENAME, &trace,
         "Chakra trace prefix: files PREFIX.0.et, PREFIX.1.et, ...", "PREFIX"},
        {"comm-groups", 'g', 0, G_OPTION_ARG_FILENAME, &comm_groups,
         "communicator groups as JSON {\"1\": [0,1,...], ...}", "FILE"},
        {"network", 'n', 0, G_OPTION_ARG_STRING, &network, "network model: analytical (default)",
         "MODEL"},
        {"chunks", 0, 0, G_OPTION_ARG_INT, &chunks, "pipeline chunks per collective (default 1)",
         "N"},
        {"seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (default 1)", "N"},
        {NULL},
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new("- replay Chakra traces on a cluster");
    g_option_context_set_summary(
        ctx, "Replays one step of a per-rank Chakra trace (rank i on GPU i) and prints the\n"
             "step time and, per rank, finish time, compute, exposed communication and idle\n"
             "time (compute + exposed communication + idle = finish).");
    g_option_context_set_description(
        ctx, "Example:\n  weft replay --cluster topologies/dgx-h100.ini --trace "
             "traces/allreduce-8/allreduce\n\n"
             "Exit status: 0 on success, 1 on bad input or a failed run, 2 on a usage error.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        return weft_cli_usage_error("replay", error->message);
    }
    if (argc > 1) {
        g_autofree char *msg = g_strdup_printf("unexpected argument '%s'", argv[1]);
        return weft_cli_usage_error("replay", msg);
    }
    if (cluster == NULL || trace == NULL) {
        return weft_cli_usage_error("replay",
                                    "both --cluster FILE and --trace PREFIX are required");
    }
    if (chunks < 1) {
        g_autofree char *msg = g_strdup_printf("--chunks must be at least 1, not %d", chunks);
        return weft_cli_usage_error("replay", msg);
    }
    weft_net_model_t model = WEFT_NET_ANALYTICAL;
    if (network != NULL && !weft_net_model_from_name(network, &model, &error)) {
        return weft_cli_usage_error("replay", error->message);
    }

    g_autoptr(weft_topo_t) topo = weft_topo_load(cluster, &error);
    if (topo == NULL) {
        return weft_cli_error("replay", error);
    }
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(trace, comm_groups, &error);
    if (wl == NULL) {
        return weft_cli_error("replay", error);
    }
    if (!weft_workload_check(wl, weft_topo_n_gpus(topo), &error)) {
        return weft_cli_error("replay", error);
    }
    g_autoptr(weft_sim_t) sim = weft_sim_new((guint64)seed);
    g_autoptr(weft_net_t) net = weft_net_new(sim, topo, model);
    weft_replay_options_t opts = {.coll_chunks = (guint)chunks};
    g_autoptr(weft_replay_result_t) res = weft_replay_run(sim, net, wl, &opts, &error);
    if (res == NULL) {
        return weft_cli_error("replay", error);
    }
    print_result(cluster, topo, trace, wl, weft_net_model_name(model), (guint)chunks, res);
    return WEFT_EXIT_OK;
}
