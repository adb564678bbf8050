/* SPDX-License-Identifier: MIT */
/*
 * weft plan: for a model, a cluster and a global batch, the parallel configurations that fit
 * in HBM, simulated in ascending lower bound until the bound proves the best (study/plan.h),
 * printed as a ranked table (and a CSV).
 */
#define G_LOG_DOMAIN "weft-cli"

#include "config.h"

#include <stdio.h>

#include "cli/cli.h"
#include "study/plan.h"

/* An option that must be a positive integer (when @min is 1) or >= 0; -1 is "not given". */
static gboolean
check_count(const char *name, gint value, gint min, char **message)
{
    if (value != -1 && value < min) {
        *message = g_strdup_printf("--%s %d: must be at least %d", name, value, min);
        return FALSE;
    }
    return TRUE;
}

int
weft_cmd_plan(int argc, char **argv)
{
    g_autofree char *model = NULL;
    g_autofree char *cluster = NULL;
    g_autofree char *csv = NULL;
    g_autofree char *progress_mode = NULL;
    g_auto(GStrv) sets = NULL;
    gint global_batch = -1, seq = -1, gpus = -1, top = -1, threads = -1, max_sims = -1;
    gint max_tp = -1, max_cp = -1, max_mb = -1;
    gboolean no_prune = FALSE, quiet = FALSE;
    GOptionEntry entries[] = {
        {"model", 'm', 0, G_OPTION_ARG_STRING, &model, "a weft gen preset (gpt3-175b, ...)",
         "NAME"},
        {"cluster", 'c', 0, G_OPTION_ARG_FILENAME, &cluster, "a cluster file (topologies/)",
         "FILE"},
        {"global-batch", 'b', 0, G_OPTION_ARG_INT, &global_batch, "sequences per step", "N"},
        {"seq", 0, 0, G_OPTION_ARG_INT, &seq, "tokens per sequence (default: the model's)", "N"},
        {"gpus", 'g', 0, G_OPTION_ARG_INT, &gpus,
         "GPUs to use (default: every GPU of the cluster; more: --set cluster.nodes=N)", "N"},
        {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
         "a scenario key for every candidate, such as cluster.nodes=128, transformer.tp_overlap"
         "=true, transformer.attention=unfused (repeatable; not the keys the plan searches)",
         "GROUP.KEY=VALUE"},
        {"top", 'k', 0, G_OPTION_ARG_INT, &top,
         "prove the best N exactly (default 1): stop once a bound exceeds the N-th best", "N"},
        {"threads", 'j', 0, G_OPTION_ARG_INT, &threads,
         "replays at once (default: every processor)", "N"},
        {"max-sims", 0, 0, G_OPTION_ARG_INT, &max_sims,
         "simulate at most N candidates (the result is then not proven)", "N"},
        {"max-tp", 0, 0, G_OPTION_ARG_INT, &max_tp, "largest tensor-parallel size (default 8)",
         "N"},
        {"max-cp", 0, 0, G_OPTION_ARG_INT, &max_cp, "largest context-parallel size (default 1)",
         "N"},
        {"max-micro-batch", 0, 0, G_OPTION_ARG_INT, &max_mb, "largest micro-batch (default 8)",
         "N"},
        {"no-prune", 0, 0, G_OPTION_ARG_NONE, &no_prune,
         "simulate every candidate that fits (checks the pruning; slow)", NULL},
        {"csv", 'o', 0, G_OPTION_ARG_FILENAME, &csv, "also write the ranked rows as CSV", "FILE"},
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no progress and no closing line", NULL},
        weft_cli_progress_entry(&progress_mode),
        {NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("--model NAME --cluster FILE --global-batch N - plan parallelism");
    g_option_context_set_summary(
        ctx, "Searches the parallel configurations of a model on a cluster (tp, pp, vpp, cp, dp,\n"
             "micro-batch, recomputation, distributed optimizer; doc/plan.md): drops those whose\n"
             "closed-form memory exceeds the HBM, bounds the others by their busiest rank's\n"
             "compute, replays them in ascending bound in threads until the bound proves the\n"
             "best, and prints a ranked table: step time, MFU, peak memory per rank, tokens/s and\n"
             "what limits each.");
    g_option_context_set_description(
        ctx, "Example:\n"
             "  weft plan --model gpt3-175b --cluster topologies/selene-a100-superpod.ini \\\n"
             "      --set cluster.nodes=128 --global-batch 1536 --csv plan.csv\n\n"
             "Exit status: 0 when the plan ran, 1 on a bad model, cluster or --set, or no\n"
             "candidate, 2 on a usage error.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    weft_cli_add_log_options(ctx);
    g_autoptr(GError) error = NULL;
    /* "-j4" as "-j 4", as make takes it */
    g_autoptr(GPtrArray) args = weft_cli_split_jobs_option(argc, argv);
    /* GOption removes what it parses from the vector; args keeps every string to free */
    g_autofree char **vec = g_memdup2(args->pdata, args->len * sizeof(char *));
    argc = (int)args->len - 1;
    argv = vec;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        return weft_cli_usage_error("plan", error->message);
    }
    if (argc > 1) {
        g_autofree char *m = g_strdup_printf("unexpected argument '%s'", argv[1]);
        return weft_cli_usage_error("plan", m);
    }
    if (model == NULL || cluster == NULL || global_batch == -1) {
        return weft_cli_usage_error("plan", model == NULL     ? "--model NAME is required"
                                            : cluster == NULL ? "--cluster FILE is required"
                                                              : "--global-batch N is required");
    }
    g_autofree char *message = NULL;
    if (!check_count("global-batch", global_batch, 1, &message) ||
        !check_count("seq", seq, 1, &message) || !check_count("gpus", gpus, 1, &message) ||
        !check_count("top", top, 1, &message) || !check_count("threads", threads, 1, &message) ||
        !check_count("max-sims", max_sims, 1, &message) ||
        !check_count("max-tp", max_tp, 1, &message) ||
        !check_count("max-cp", max_cp, 1, &message) ||
        !check_count("max-micro-batch", max_mb, 1, &message)) {
        return weft_cli_usage_error("plan", message);
    }
    gboolean progress_ok;
    int code;
    g_autoptr(weft_progress_t) progress =
        weft_cli_progress_new("plan", progress_mode, quiet, &progress_ok, &code);
    if (!progress_ok) {
        return code;
    }
#define OPT(v) ((v) < 0 ? 0u : (guint)(v))
    weft_plan_options_t o = {
        .model = model,
        .cluster = cluster,
        .sets = (const char *const *)sets,
        .global_batch = OPT(global_batch),
        .seq = OPT(seq),
        .gpus = OPT(gpus),
        .max_tp = OPT(max_tp),
        .max_cp = OPT(max_cp),
        .max_mb = OPT(max_mb),
        .top = OPT(top),
        .threads = OPT(threads),
        .max_sims = OPT(max_sims),
        .no_prune = no_prune,
        .progress = progress,
    };
#undef OPT
    g_autoptr(weft_plan_t) plan = weft_plan_run(&o, &error);
    if (plan == NULL) {
        if (g_error_matches(error, WEFT_PLAN_ERROR, WEFT_PLAN_ERROR_USAGE)) {
            return weft_cli_usage_error("plan", error->message);
        }
        return weft_cli_error("plan", error);
    }
    weft_plan_stats_t st;
    weft_plan_stats(plan, &st);
    printf("model %s, %u GPUs (%.0f GiB HBM, %.0f TFLOP/s BF16 each), global batch %d, "
           "%.4g model FLOPs per step\n",
           model, st.gpus, st.hbm_bytes / 1073741824.0, st.peak_flops / 1e12, global_batch,
           st.model_flops);
    printf("candidates %u: %u do not fit, %u simulated (%u above the HBM when replayed), %u "
           "pruned by their bound, %u not simulated, %u failed%s\n",
           st.candidates, st.no_fit, st.simulated, st.oom, st.pruned, st.skipped, st.failed,
           st.exact ? "" : " (--max-sims: the best is not proven)");
    g_autofree char *table = weft_plan_table(plan);
    fputs(table, stdout);
    if (csv != NULL && !weft_plan_write_csv(plan, csv, &error)) {
        return weft_cli_error("plan", error);
    }
    if (!quiet) {
        fprintf(stderr, "weft plan: %u candidates, %u simulated%s%s\n", st.candidates, st.simulated,
                csv != NULL ? " -> " : "", csv != NULL ? csv : "");
    }
    return WEFT_EXIT_OK;
}
