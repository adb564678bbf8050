/* SPDX-License-Identifier: MIT */
/*
 * weft sweep: run a study (src/study): a base scenario and axes over its keys,
 * one simulation per point on all cores, a results CSV in grid order; resume
 * an interrupted study, run one shard of it, or merge the shards' CSVs.
 */
#define G_LOG_DOMAIN "weft-cli"

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep_slurm.h"
#include "study/study.h"

int
weft_cmd_sweep(int argc, char **argv)
{
    gint jobs = -1; /* unset: every processor */
    g_autofree char *output = NULL;
    g_autofree char *shard = NULL;
    gboolean resume = FALSE;
    gboolean merge = FALSE;
    gboolean quiet = FALSE;
    g_autofree char *progress_mode = NULL;
    g_autofree char *slurm = NULL;
    gint slurm_tasks = -1; /* unset: 32, or the points if fewer */
    g_auto(GStrv) slurm_opts = NULL;
    gboolean submit = FALSE;
    GOptionEntry entries[] = {
        {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
         "run N points at once, in threads (default: every processor)", "N"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
         "results CSV (default: the study's `results`, else STUDY.csv, in the current directory)",
         "FILE"},
        {"resume", 0, 0, G_OPTION_ARG_NONE, &resume,
         "finish an interrupted study: run only the points its journal (FILE.partial) lacks", NULL},
        {"shard", 0, 0, G_OPTION_ARG_STRING, &shard,
         "run only shard K of N: the points i with i mod N = K - 1", "K/N"},
        {"merge", 0, 0, G_OPTION_ARG_NONE, &merge,
         "join shard CSVs (the arguments) into one CSV in grid order (needs -o)", NULL},
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no progress and no closing line", NULL},
        weft_cli_progress_entry(&progress_mode),
        {"slurm", 0, 0, G_OPTION_ARG_FILENAME, &slurm,
         "write DIR/array.sbatch (a Slurm job array, one shard per task) and DIR/merge.sbatch",
         "DIR"},
        {"slurm-tasks", 0, 0, G_OPTION_ARG_INT, &slurm_tasks,
         "array tasks (shards) with --slurm (default: 32, or the points if fewer)", "N"},
        {"slurm-opt", 0, 0, G_OPTION_ARG_STRING_ARRAY, &slurm_opts,
         "one more #SBATCH line of both scripts, such as --time=02:00:00 (repeatable)", "OPT"},
        {"submit", 0, 0, G_OPTION_ARG_NONE, &submit,
         "with --slurm: submit the array, and the merge after it, with sbatch", NULL},
        {NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("STUDY.ini | --merge -o OUT.csv SHARD.csv... - run a study");
    g_option_context_set_summary(
        ctx, "Runs a study: a base scenario and axes over its keys (doc/studies.md). Each\n"
             "point is one replay; points run in threads, and the results CSV has one row\n"
             "per point in grid order, identical for any -j. Finished rows are appended to\n"
             "FILE.partial at once, so an interrupted study loses none: --resume finishes\n"
             "it. Progress (points done, failed, running, ETA) goes to stderr (--progress):\n"
             "a line every 5 s when stderr is not a terminal.");
    g_autofree char *replay_metrics = g_strjoinv(", ", (char **)weft_study_metric_names());
    g_autofree char *train_metrics = g_strjoinv(", ", (char **)weft_study_train_metric_names());
    g_autofree char *description = g_strdup_printf(
        "Examples:\n"
             "  weft sweep studies/fabric-allreduce.ini\n"
             "  weft sweep -j 2 --resume studies/fabric-allreduce.ini\n"
             "  weft sweep --shard 3/8 -o part3.csv studies/fabric-allreduce.ini\n"
             "  weft sweep --merge -o all.csv part*.csv\n"
             "  weft sweep --slurm runs/ --slurm-opt=--time=1:00:00 --submit study.ini\n\n"
             "Exit status: 0 when every point has a row (failed points included: see the\n"
             "status and error columns), 1 on a bad study, journal or shard file, 2 on a\n"
             "usage error.\n\n"
             "Metrics (study.metrics) of a replay study: %s.\n"
             "Of a training-run study: %s.",
        replay_metrics, train_metrics);
    g_option_context_set_description(ctx, description);
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
        return weft_cli_usage_error("sweep", error->message);
    }
    if (slurm != NULL || submit || slurm_tasks != -1 || slurm_opts != NULL) {
        weft_sweep_slurm_args_t sa = {
            .dir = slurm,
            .tasks = slurm_tasks,
            .sbatch_opts = (const char *const *)slurm_opts,
            .submit = submit,
            .argc = argc,
            .argv = argv,
            .output = output,
            .jobs = jobs,
            .merge = merge,
            .resume = resume,
            .has_shard = shard != NULL,
        };
        return weft_sweep_slurm(&sa);
    }
    gboolean progress_ok;
    int code;
    g_autoptr(weft_progress_t) progress =
        weft_cli_progress_new("sweep", progress_mode, quiet, &progress_ok, &code);
    if (!progress_ok) {
        return code;
    }
    if (merge) {
        if (output == NULL) {
            return weft_cli_usage_error("sweep", "--merge needs -o OUT.csv");
        }
        if (argc < 2) {
            return weft_cli_usage_error("sweep", "--merge needs the shard CSVs");
        }
        if (shard != NULL || resume || jobs != -1) {
            return weft_cli_usage_error("sweep", "--merge takes no --shard, --resume or -j");
        }
        if (!weft_study_merge((const char *const *)argv + 1, output, &error)) {
            return weft_cli_error("sweep", error);
        }
        if (!quiet) {
            fprintf(stderr, "weft sweep: merged %d shard(s) into %s\n", argc - 1, output);
        }
        return WEFT_EXIT_OK;
    }
    if (argc != 2) {
        return weft_cli_usage_error("sweep",
                                    argc < 2 ? "no study file" : "more than one study file");
    }
    if (jobs != -1 && jobs < 1) {
        return weft_cli_usage_error("sweep", "-j must be at least 1");
    }
    weft_study_options_t opts = {
        .jobs = jobs < 0 ? 0 : (guint)jobs,
        .output = output,
        .resume = resume,
        .progress = progress,
    };
    if (shard != NULL && !weft_study_parse_shard(shard, &opts.shard_k, &opts.shard_n, &error)) {
        return weft_cli_usage_error("sweep", error->message);
    }
    g_autoptr(weft_study_t) st = weft_study_load(argv[1], &error);
    if (st == NULL) {
        return weft_cli_error("sweep", error);
    }
    weft_study_stats_t stats;
    if (!weft_study_run(st, &opts, &stats, &error)) {
        return weft_cli_error("sweep", error);
    }
    if (!quiet) {
        fprintf(stderr, "weft sweep: %u point%s (%u run, %u from the journal), %u failed -> %s\n",
                stats.points, stats.points == 1 ? "" : "s", stats.ran, stats.resumed, stats.failed,
                output != NULL ? output : weft_study_results_path(st));
    }
    return WEFT_EXIT_OK;
}
