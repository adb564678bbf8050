/* SPDX-License-Identifier: MIT */
/*
 * weft replay: run one scenario (src/scenario): a scenario file, the options
 * that are shorthands for its keys, and --set group.key=value overrides; then
 * print the step time and per-rank breakdown, or with --show-config the
 * effective configuration without running.
 */
#define G_LOG_DOMAIN "weft-cli"

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "scenario/scenario.h"

int
weft_cmd_replay(int argc, char **argv)
{
    g_autofree char *cluster = NULL;
    g_autofree char *trace = NULL;
    g_autofree char *comm_groups = NULL;
    g_autofree char *system = NULL;
    g_autofree char *network = NULL;
    g_autofree char *chunks = NULL;
    g_autofree char *faults = NULL;
    g_autofree char *out = NULL;
    g_autofree char *timeline = NULL;
    g_autofree char *timeline_ranks = NULL;
    g_autofree char *timeline_window = NULL;
    g_autofree char *link_series = NULL;
    g_autofree char *replicate = NULL;
    g_autofree char *jobs = NULL;
    g_auto(GStrv) pg_sizes = NULL;
    g_auto(GStrv) sets = NULL;
    g_auto(GStrv) gens = NULL;
    gboolean show_config = FALSE;
    gboolean quiet = FALSE;
    gboolean json = FALSE;
    g_autofree char *progress_mode = NULL;
    GOptionEntry entries[] = {
        {"cluster", 'c', 0, G_OPTION_ARG_FILENAME, &cluster,
         "cluster file: weft INI, ASTRA-sim network YAML or GraphML (cluster.file)", "FILE"},
        {"trace", 't', 0, G_OPTION_ARG_FILENAME, &trace,
         "Chakra trace prefix: files PREFIX.0.et, PREFIX.1.et, ... (workload.trace)", "PREFIX"},
        {"comm-groups", 'g', 0, G_OPTION_ARG_FILENAME, &comm_groups,
         "communicator groups as JSON {\"1\": [0,1,...], ...} (workload.comm_groups)", "FILE"},
        {"pg-size", 0, 0, G_OPTION_ARG_STRING_ARRAY, &pg_sizes,
         "process group NAME (0: the world) has N members: it becomes groups of N consecutive "
         "ranks (repeatable; workload.pg_size; doc/formats.md)",
         "NAME=N"},
        {"replicate", 0, 0, G_OPTION_ARG_STRING, &replicate,
         "copy a one-rank trace to ranks 0..N-1; its groups of unknown size span all N "
         "(workload.replicate; doc/formats.md)",
         "N"},
        {"jobs", 0, 0, G_OPTION_ARG_FILENAME, &jobs,
         "several jobs sharing the cluster: a jobs file, one [job.NAME] group per job with its "
         "workload, placement (packed, spread, interleaved, file), start and iterations; each "
         "also runs alone for its slowdown (workload.jobs; doc/replay.md)",
         "FILE"},
        {"system", 0, 0, G_OPTION_ARG_FILENAME, &system,
         "ASTRA-sim system JSON: collective implementations, chunks, endpoint delay (system.file; "
         "doc/formats.md)",
         "FILE"},
        {"network", 'n', 0, G_OPTION_ARG_STRING, &network,
         "network model: analytical (default; links not shared) or flow (max-min fair sharing) "
         "(network.model)",
         "MODEL"},
        {"chunks", 0, 0, G_OPTION_ARG_STRING, &chunks,
         "pipeline chunks per collective, forcing NCCL's choice (collectives.chunks)", "N"},
        {"faults", 'f', 0, G_OPTION_ARG_FILENAME, &faults,
         "faults inside the step, one per line: TIME KIND TARGET [VALUE] [for DURATION], e.g. "
         "2ms link_down leaf0 spine0 (faults.file; doc/failures.md)",
         "FILE"},
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
         "write scenario.ini, ranks.csv, layers.csv, summary.txt, summary.json, "
         "collectives.csv and links.csv to DIR (output.dir; doc/outputs.md)",
         "DIR"},
        {"timeline", 0, 0, G_OPTION_ARG_FILENAME, &timeline,
         "write a Chrome trace event JSON (Perfetto, chrome://tracing) to FILE (output.timeline)",
         "FILE"},
        {"timeline-ranks", 0, 0, G_OPTION_ARG_STRING, &timeline_ranks,
         "keep only these ranks in the timeline, e.g. 0-7,12 (output.timeline_ranks)", "LIST"},
        {"timeline-window", 0, 0, G_OPTION_ARG_STRING, &timeline_window,
         "keep only timeline nodes overlapping START:END, e.g. 1ms:3ms (output.timeline_window)",
         "START:END"},
        {"link-series", 0, 0, G_OPTION_ARG_STRING, &link_series,
         "sample link utilization every INTERVAL, e.g. 10us (flow model): "
         "links_timeseries.csv in --out and counters in the timeline (output.link_series)",
         "INTERVAL"},
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
         "print only the step time line (and, on stderr, the summary's warning lines), and no "
         "progress",
         NULL},
        weft_cli_progress_entry(&progress_mode),
        {"json", 0, 0, G_OPTION_ARG_NONE, &json,
         "print the summary as JSON (summary.json's content) instead of text", NULL},
        {"gen", 0, 0, G_OPTION_ARG_STRING_ARRAY, &gens,
         "generate the step in memory instead of reading a trace: [transformer] keys, e.g. "
         "model=gpt3-175b,tp=8,pp=8 (repeatable; dp unset: the cluster's GPUs / (tp pp cp))",
         "KEY=VALUE,..."},
        {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
         "override any scenario key (repeatable; applied in order, last)", "GROUP.KEY=VALUE"},
        {"show-config", 0, 0, G_OPTION_ARG_NONE, &show_config,
         "print the effective configuration and exit without running", NULL},
        {NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("[SCENARIO.ini] - replay Chakra traces on a cluster");
    g_option_context_set_summary(
        ctx, "Replays one step of a per-rank Chakra trace on a cluster and prints the step\n"
             "time and, per rank, finish time, compute, exposed communication and idle\n"
             "time (compute + exposed communication + idle = finish).\n\n"
             "The run is described by an optional scenario file (doc/scenario.md); the\n"
             "options below set its keys: first the scenario file, then --cluster, --trace,\n"
             "--comm-groups, --pg-size, --replicate, --system, --chunks, --faults, --network, --out and the timeline options,\n"
             "then every --set in order.\n\n"
             "Faults inside the step ([faults], --faults) take links, NICs and switches\n"
             "down, degrade links, slow GPUs or fail them (doc/failures.md); the summary\n"
             "lists those applied.\n\n"
             "After the per-rank table the summary gives the per-rank distribution\n"
             "(total, min, median, max), the five most expensive collectives, the five\n"
             "busiest links and the collective choices (doc/outputs.md). A run shows its\n"
             "progress on stderr (--progress): simulated time, events, the fraction of\n"
             "trace nodes done and an ETA; a line every 5 s when stderr is not a terminal.");
    g_autofree char *keys = weft_scenario_keys_help();
    g_autofree char *description = g_strdup_printf(
        "Examples:\n  weft replay --cluster topologies/dgx-h100.ini --trace "
             "traces/dp-step-8/dp-step\n"
             "  weft replay scenarios/dp-step-dgx-h100.ini --set collectives.chunks=4\n"
             "  weft replay scenarios/dp-step-dgx-h100.ini --show-config\n"
             "  weft replay scenarios/dp-step-dgx-h100.ini --out results --timeline t.json\n"
             "  weft replay scenarios/dp-step-dgx-h100.ini --set \"faults.events=0us straggler "
             "node0/gpu3 0.5 for 1ms\"\n"
             "  weft replay --cluster topologies/dgx-h100.ini --trace "
             "../shared/data/chakra-pytorch/chakra --replicate 8\n"
             "  weft replay --cluster topologies/dgx-h100.ini --gen model=gpt3-1.3b,tp=8\n"
             "  weft replay --cluster topologies/dgx-h100-superpod.ini --jobs "
             "studies/two-jobs-superpod.jobs --network flow\n"
             "  weft replay --cluster topologies/dgx-h100.ini --set workload.collective=all_reduce "
             "--set workload.collective_bytes=64MiB\n\n"
             "Exit status: 0 on success, 1 on bad input (a scenario or --set naming an unknown\n"
             "key or a bad value included) or a failed run, 2 on a usage error.\n\n"
             "Scenario keys (in a scenario file's groups, or --set GROUP.KEY=VALUE; "
             "doc/scenario.md):\n%s",
        keys);
    g_option_context_set_description(ctx, description);
    g_option_context_add_main_entries(ctx, entries, NULL);
    weft_cli_add_log_options(ctx);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        return weft_cli_usage_error("replay", error->message);
    }
    if (argc > 2) {
        g_autofree char *msg = g_strdup_printf("unexpected argument '%s'", argv[2]);
        return weft_cli_usage_error("replay", msg);
    }
    const char *scenario_file = argc > 1 ? argv[1] : NULL;
    gboolean progress_ok;
    int code;
    g_autoptr(weft_progress_t) progress =
        weft_cli_progress_new("replay", progress_mode, quiet, &progress_ok, &code);
    if (!progress_ok) {
        return code;
    }

    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    if (scenario_file != NULL && !weft_scenario_load(sc, scenario_file, &error)) {
        return weft_cli_error("replay", error);
    }
    /* The shorthands are options of the command line: a bad value is a usage error. */
    g_autofree char *pg_size = pg_sizes != NULL ? g_strjoinv(",", pg_sizes) : NULL;
    const struct {
        const char *option, *group, *key, *value;
    } shorthands[] = {
        {"--cluster", "cluster", "file", cluster},
        {"--trace", "workload", "trace", trace},
        {"--comm-groups", "workload", "comm_groups", comm_groups},
        {"--pg-size", "workload", "pg_size", pg_size},
        {"--replicate", "workload", "replicate", replicate},
        {"--jobs", "workload", "jobs", jobs},
        {"--system", "system", "file", system},
        {"--chunks", "collectives", "chunks", chunks},
        {"--faults", "faults", "file", faults},
        {"--network", "network", "model", network},
        {"--out", "output", "dir", out},
        {"--timeline", "output", "timeline", timeline},
        {"--timeline-ranks", "output", "timeline_ranks", timeline_ranks},
        {"--timeline-window", "output", "timeline_window", timeline_window},
        {"--link-series", "output", "link_series", link_series},
    };
    for (guint i = 0; i < G_N_ELEMENTS(shorthands); i++) {
        if (shorthands[i].value == NULL) {
            continue;
        }
        if (!weft_scenario_set_value(sc, shorthands[i].group, shorthands[i].key,
                                     shorthands[i].value, &error)) {
            /* A file that cannot be read or parsed is bad input, not bad usage. */
            if (!g_error_matches(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE)) {
                return weft_cli_error("replay", error);
            }
            g_autofree char *msg = g_strdup_printf("%s: %s", shorthands[i].option, error->message);
            return weft_cli_usage_error("replay", msg);
        }
    }
    /* --gen KEY=VALUE,...: [transformer] keys, set before --set; a bad value is bad input. */
    for (guint i = 0; gens != NULL && gens[i] != NULL; i++) {
        g_auto(GStrv) parts = g_strsplit(gens[i], ",", -1);
        for (guint j = 0; parts[j] != NULL; j++) {
            char *eq = strchr(parts[j], '=');
            if (eq == NULL) {
                g_autofree char *msg = g_strdup_printf(
                    "--gen %s: expected KEY=VALUE,..., e.g. model=gpt3-175b,tp=8", gens[i]);
                return weft_cli_usage_error("replay", msg);
            }
            *eq = '\0';
            if (!weft_scenario_set_value(sc, "transformer", g_strstrip(parts[j]), eq + 1, &error)) {
                g_prefix_error(&error, "--gen %s: ", gens[i]);
                return weft_cli_error("replay", error);
            }
        }
    }
    /* --set is configuration, like a line of the scenario file: an unknown key or
     * a bad value is bad input (exit 1); only an assignment without '=' is a usage error. */
    for (guint i = 0; sets != NULL && sets[i] != NULL; i++) {
        const char *eq = strchr(sets[i], '=');
        const char *dot = strchr(sets[i], '.');
        if (eq == NULL || dot == NULL || dot > eq) {
            g_autofree char *msg = g_strdup_printf(
                "--set %s: expected GROUP.KEY=VALUE, e.g. collectives.chunks=4", sets[i]);
            return weft_cli_usage_error("replay", msg);
        }
        if (!weft_scenario_set(sc, sets[i], &error)) {
            return weft_cli_error("replay", error);
        }
    }
    if (show_config) {
        g_autofree char *ini = weft_scenario_to_ini(sc);
        fputs(ini, stdout);
        return WEFT_EXIT_OK;
    }
    if (scenario_file == NULL &&
        (!weft_scenario_has_workload(sc) || (weft_scenario_get(sc, "cluster", "file") == NULL &&
                                             weft_scenario_get(sc, "cluster", "kind") == NULL))) {
        return weft_cli_usage_error("replay",
                                    "both --cluster FILE and --trace PREFIX (or --gen, --jobs, or "
                                    "--set workload.collective=...) are required (or a scenario "
                                    "file)");
    }

    weft_scenario_run_options_t run_opts = {
        .report = TRUE,
        .progress = progress,
    };
    g_autoptr(weft_scenario_run_t) run = weft_scenario_run_full(sc, &run_opts, &error);
    if (run == NULL) {
        return weft_cli_error("replay", error);
    }
    if (json) {
        g_autofree char *text = weft_report_summary_json(run->report);
        fputs(text, stdout);
    } else if (quiet) {
        printf("step time    %.6f us\n", weft_time_to_us(run->replay->step_ps));
        /* what the summary would warn about (a trace worked around, a step above HBM) */
        const GPtrArray *warnings = run->workload->warnings;
        for (guint i = 0; warnings != NULL && i < warnings->len; i++) {
            fprintf(stderr, "weft replay: warning: %s\n",
                    (const char *)g_ptr_array_index(warnings, i));
        }
    } else {
        g_autofree char *summary = weft_scenario_run_summary(run);
        fputs(summary, stdout);
    }
    return WEFT_EXIT_OK;
}
