/* SPDX-License-Identifier: MIT */
/*
 * weft sweep --slurm: checks the options that go with it, writes the job
 * array and merge scripts of a study (src/study/slurm.h), tells how to submit
 * them, and with --submit submits them.
 */
#define G_LOG_DOMAIN "weft-cli"

#include "config.h"

#include "cli/sweep_slurm.h"

#include <stdio.h>

#include "cli/cli.h"
#include "study/slurm.h"
#include "study/study.h"

int
weft_sweep_slurm(const weft_sweep_slurm_args_t *a)
{
    if (a->dir == NULL) {
        return weft_cli_usage_error("sweep",
                                    "--submit, --slurm-tasks and --slurm-opt need --slurm DIR");
    }
    if (a->merge || a->resume || a->has_shard) {
        return weft_cli_usage_error("sweep", "--slurm takes no --merge, --resume or --shard: each "
                                             "array task runs (and resumes) one shard");
    }
    if (a->argc != 2) {
        return weft_cli_usage_error("sweep",
                                    a->argc < 2 ? "no study file" : "more than one study file");
    }
    if (a->tasks != -1 && a->tasks < 1) {
        return weft_cli_usage_error("sweep", "--slurm-tasks must be at least 1");
    }
    if (a->jobs != -1 && a->jobs < 1) {
        return weft_cli_usage_error("sweep", "-j must be at least 1");
    }
    g_autoptr(GError) error = NULL;
    /* the tasks run this very binary, wherever the scripts are submitted from */
    g_autofree char *weft = g_file_read_link("/proc/self/exe", &error);
    if (weft == NULL) {
        g_prefix_error(&error, "cannot find the path of the weft binary for the scripts: ");
        return weft_cli_error("sweep", error);
    }
    g_autoptr(weft_study_t) st = weft_study_load(a->argv[1], &error);
    if (st == NULL) {
        return weft_cli_error("sweep", error);
    }
    weft_study_slurm_options_t opts = {
        .dir = a->dir,
        .study_path = a->argv[1],
        .weft = weft,
        .output = a->output,
        .tasks = a->tasks > 0 ? (guint)a->tasks : 0,
        .jobs = a->jobs > 0 ? (guint)a->jobs : 0,
        .sbatch_options = a->sbatch_opts,
    };
    weft_study_slurm_scripts_t scripts;
    if (!weft_study_slurm_write(st, &opts, &scripts, &error)) {
        return g_error_matches(error, WEFT_STUDY_SLURM_ERROR, WEFT_STUDY_SLURM_ERROR_USAGE)
                   ? weft_cli_usage_error("sweep", error->message)
                   : weft_cli_error("sweep", error);
    }
    g_autofree char *q_array = g_shell_quote(scripts.array_script);
    g_autofree char *q_merge = g_shell_quote(scripts.merge_script);
    if (!a->submit) {
        printf("wrote %s (an array of %u tasks, one shard each) and %s\n"
               "submit them with\n"
               "  jid=$(sbatch --parsable %s)\n"
               "  sbatch --dependency=afterok:$jid --kill-on-invalid-dep=yes %s\n"
               "or add --submit; the merged CSV: %s\n",
               scripts.array_script, scripts.tasks, scripts.merge_script, q_array, q_merge,
               scripts.results);
        weft_study_slurm_scripts_clear(&scripts);
        return WEFT_EXIT_OK;
    }
    g_autofree char *array_id = NULL;
    g_autofree char *merge_id = NULL;
    gboolean ok = weft_study_slurm_submit(&scripts, &array_id, &merge_id, &error);
    if (ok) {
        printf("array job %s (%u tasks): %s\n"
               "merge job %s (afterok:%s): %s\n"
               "the merged CSV: %s\n"
               "logs: %s/logs\n",
               array_id, scripts.tasks, scripts.array_script, merge_id, array_id,
               scripts.merge_script, scripts.results, scripts.dir);
    }
    weft_study_slurm_scripts_clear(&scripts);
    return ok ? WEFT_EXIT_OK : weft_cli_error("sweep", error);
}
