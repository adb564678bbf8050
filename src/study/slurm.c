/* SPDX-License-Identifier: MIT */
/*
 * A study as a Slurm job array and a dependent merge job: the two batch
 * scripts, and their submission with sbatch (slurm.h is the contract).
 */
#define G_LOG_DOMAIN "weft-study"

#include "config.h"

#include "study/slurm.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "core/output.h"

G_DEFINE_QUARK(weft - study - slurm - error - quark, weft_study_slurm_error)

/* sbatch options the scripts or the submission set themselves: a user's would fight them. */
static const char *const own_options[] = {
    "array", "dependency",          "output", "error", "open-mode", "parsable",
    "wrap",  "kill-on-invalid-dep", NULL,
};
static const char own_short[] = "adeo"; /* -a (array), -d, -e, -o */

void
weft_study_slurm_scripts_clear(weft_study_slurm_scripts_t *s)
{
    if (s == NULL) {
        return;
    }
    g_free(s->dir);
    g_free(s->array_script);
    g_free(s->merge_script);
    g_free(s->results);
    memset(s, 0, sizeof *s);
}

/* Checks one --slurm-opt: a single sbatch option, on one line, that weft does not set. */
static gboolean
check_sbatch_option(const char *opt, GError **error)
{
    if (opt[0] != '-' || strpbrk(opt, "\n\r") != NULL) {
        g_autofree char *shown = g_strescape(opt, NULL);
        g_set_error(error, WEFT_STUDY_SLURM_ERROR, WEFT_STUDY_SLURM_ERROR_USAGE,
                    "--slurm-opt \"%s\": expected one sbatch option on one line, such as "
                    "--time=02:00:00 or --partition=gpu",
                    shown);
        return FALSE;
    }
    if (opt[1] == '-') {
        gsize len = strcspn(opt + 2, "= \t");
        for (guint i = 0; own_options[i] != NULL; i++) {
            if (len == strlen(own_options[i]) && strncmp(opt + 2, own_options[i], len) == 0) {
                g_set_error(error, WEFT_STUDY_SLURM_ERROR, WEFT_STUDY_SLURM_ERROR_USAGE,
                            "--slurm-opt \"%s\": weft sweep --slurm sets --%s itself", opt,
                            own_options[i]);
                return FALSE;
            }
        }
    } else if (opt[1] != '\0' && strchr(own_short, opt[1]) != NULL) {
        g_set_error(error, WEFT_STUDY_SLURM_ERROR, WEFT_STUDY_SLURM_ERROR_USAGE,
                    "--slurm-opt \"%s\": weft sweep --slurm sets -%c itself (-a --array, "
                    "-d --dependency, -e --error, -o --output)",
                    opt, opt[1]);
        return FALSE;
    }
    return TRUE;
}

/* The job name: "weft-" and the study file's name without .ini, in characters Slurm shows as is. */
static char *
job_name(const char *study_abs, const char *prefix)
{
    g_autofree char *base = g_path_get_basename(study_abs);
    if (g_str_has_suffix(base, ".ini")) {
        base[strlen(base) - strlen(".ini")] = '\0';
    }
    g_strcanon(base, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-", '_');
    return g_strconcat(prefix, base, NULL);
}

/* The #SBATCH lines both scripts share after their own: the user's options, in order. */
static void
append_user_options(GString *s, const char *const *options)
{
    for (guint i = 0; options != NULL && options[i] != NULL; i++) {
        g_string_append_printf(s, "#SBATCH %s\n", options[i]);
    }
}

gboolean
weft_study_slurm_write(const weft_study_t *st, const weft_study_slurm_options_t *opts,
                       weft_study_slurm_scripts_t *out, GError **error)
{
    g_return_val_if_fail(st != NULL && opts != NULL && out != NULL, FALSE);
    g_return_val_if_fail(opts->dir != NULL && opts->study_path != NULL && opts->weft != NULL,
                         FALSE);
    memset(out, 0, sizeof *out);
    guint points = weft_study_n_points(st);
    guint tasks = opts->tasks > 0 ? opts->tasks : MIN(points, WEFT_STUDY_SLURM_DEFAULT_TASKS);
    if (tasks > points) {
        g_set_error(error, WEFT_STUDY_SLURM_ERROR, WEFT_STUDY_SLURM_ERROR_USAGE,
                    "--slurm-tasks %u: more than the study's %u point%s (one shard per task)",
                    tasks, points, points == 1 ? "" : "s");
        return FALSE;
    }
    for (guint i = 0; opts->sbatch_options != NULL && opts->sbatch_options[i] != NULL; i++) {
        if (!check_sbatch_option(opts->sbatch_options[i], error)) {
            return FALSE;
        }
    }
    g_autofree char *dir = g_canonicalize_filename(opts->dir, NULL);
    /* DIR goes into #SBATCH --output lines, which sbatch splits at blanks and quotes and
     * where % starts a file name pattern */
    if (strpbrk(dir, " \t\n\r\"'\\%") != NULL) {
        g_autofree char *shown = g_strescape(dir, NULL);
        g_set_error(error, WEFT_STUDY_SLURM_ERROR, WEFT_STUDY_SLURM_ERROR_USAGE,
                    "--slurm \"%s\": a blank, quote, backslash or %% in the directory's path "
                    "cannot go into an #SBATCH --output line; choose another directory",
                    shown);
        return FALSE;
    }
    g_autofree char *logs = g_build_filename(dir, "logs", NULL);
    if (g_mkdir_with_parents(logs, 0755) != 0) {
        int e = errno;
        g_set_error(error, WEFT_STUDY_SLURM_ERROR, WEFT_STUDY_SLURM_ERROR_IO,
                    "--slurm %s: cannot create the directory %s: %s", opts->dir, logs,
                    g_strerror(e));
        return FALSE;
    }
    g_autofree char *study = g_canonicalize_filename(opts->study_path, NULL);
    g_autofree char *results = g_canonicalize_filename(
        opts->output != NULL ? opts->output : weft_study_results_path(st), NULL);
    g_autofree char *q_weft = g_shell_quote(opts->weft);
    g_autofree char *q_study = g_shell_quote(study);
    g_autofree char *q_dir = g_shell_quote(dir);
    g_autofree char *q_results = g_shell_quote(results);
    g_autofree char *name = job_name(study, "weft-");
    g_autofree char *merge_name = job_name(study, "weft-merge-");
    g_autofree char *jobs = opts->jobs > 0 ? g_strdup_printf("%u", opts->jobs)
                                           : g_strdup("\"${SLURM_CPUS_PER_TASK:-1}\"");

    GString *a = g_string_new("#!/bin/sh\n");
    g_string_append_printf(
        a,
        "# Written by weft sweep --slurm: task K of this array runs shard K/%u of the study\n"
        "#   %s\n"
        "# into %s/shard-K.csv; merge.sbatch, submitted with --dependency=afterok on this\n"
        "# array, joins the shards. A requeued task resumes its journal; a task whose shard\n"
        "# CSV is complete for this study (its first line is the stamp below) exits at once.\n",
        tasks, study, dir);
    g_string_append_printf(a, "#SBATCH --job-name=%s\n", name);
    g_string_append_printf(a, "#SBATCH --array=1-%u\n", tasks);
    g_string_append(a, "#SBATCH --requeue\n#SBATCH --open-mode=append\n");
    g_string_append_printf(a, "#SBATCH --output=%s/shard-%%a.out\n", logs);
    append_user_options(a, opts->sbatch_options);
    g_string_append_printf(a,
                           "k=${SLURM_ARRAY_TASK_ID:?not a Slurm array task}\n"
                           "out=%s/shard-\"$k\".csv\n",
                           q_dir);
    /* the stamp weft_study_run() writes as a shard CSV's first line */
    g_string_append_printf(a,
                           "if [ -f \"$out\" ] &&\n"
                           "    [ \"$(head -n 1 \"$out\")\" = \"# weft sweep shard study=%s "
                           "points=%u shard=$k/%u\" ]; "
                           "then\n"
                           "    echo \"weft: shard $k/%u of this study is done: $out\"\n"
                           "    exit 0\n"
                           "fi\n",
                           weft_study_hash(st), points, tasks, tasks);
    g_string_append_printf(a, "exec %s sweep -j %s --resume --shard \"$k/%u\" -o \"$out\" %s\n",
                           q_weft, jobs, tasks, q_study);

    GString *m = g_string_new("#!/bin/sh\n");
    g_string_append_printf(
        m,
        "# Written by weft sweep --slurm: joins the %u shard CSVs of the study\n"
        "#   %s\n"
        "# (array.sbatch) into %s. Submit it with --dependency=afterok:ARRAY_JOB_ID.\n",
        tasks, study, results);
    g_string_append_printf(m, "#SBATCH --job-name=%s\n", merge_name);
    g_string_append(m, "#SBATCH --requeue\n#SBATCH --open-mode=append\n");
    g_string_append_printf(m, "#SBATCH --output=%s/merge.out\n", logs);
    append_user_options(m, opts->sbatch_options);
    g_string_append_printf(m,
                           "set --\n"
                           "k=1\n"
                           "while [ \"$k\" -le %u ]; do\n"
                           "    set -- \"$@\" %s/shard-\"$k\".csv\n"
                           "    k=$((k + 1))\n"
                           "done\n"
                           "exec %s sweep --merge -o %s \"$@\"\n",
                           tasks, q_dir, q_weft, q_results);

    out->dir = g_steal_pointer(&dir);
    out->array_script = g_build_filename(out->dir, "array.sbatch", NULL);
    out->merge_script = g_build_filename(out->dir, "merge.sbatch", NULL);
    out->results = g_steal_pointer(&results);
    out->tasks = tasks;
    g_autoptr(GError) ioerr = NULL;
    gboolean ok = weft_output_write(out->array_script, a->str, (gssize)a->len, &ioerr) &&
                  weft_output_write(out->merge_script, m->str, (gssize)m->len, &ioerr);
    g_string_free(a, TRUE);
    g_string_free(m, TRUE);
    if (!ok) {
        g_set_error(error, WEFT_STUDY_SLURM_ERROR, WEFT_STUDY_SLURM_ERROR_IO, "--slurm %s: %s",
                    opts->dir, ioerr->message);
        weft_study_slurm_scripts_clear(out);
        return FALSE;
    }
    return TRUE;
}

/* Runs sbatch --parsable ARGS... SCRIPT; *id gets the job id it prints ("ID" or "ID;CLUSTER"). */
static gboolean
sbatch(const char *program, const char *const *args, char **id, GError **error)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    g_ptr_array_add(argv, (char *)program);
    g_ptr_array_add(argv, "--parsable");
    for (guint i = 0; args[i] != NULL; i++) {
        g_ptr_array_add(argv, (char *)args[i]);
    }
    g_ptr_array_add(argv, NULL);
    g_autofree char *command = g_strjoinv(" ", (char **)argv->pdata);
    g_autofree char *out_text = NULL;
    g_autofree char *err_text = NULL;
    gint status = 0;
    g_autoptr(GError) spawn_error = NULL;
    if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out_text,
                      &err_text, &status, &spawn_error)) {
        g_set_error(error, WEFT_STUDY_SLURM_ERROR, WEFT_STUDY_SLURM_ERROR_SBATCH, "%s: %s", command,
                    spawn_error->message);
        return FALSE;
    }
    g_strstrip(err_text);
    if (!g_spawn_check_wait_status(status, &spawn_error)) {
        g_set_error(error, WEFT_STUDY_SLURM_ERROR, WEFT_STUDY_SLURM_ERROR_SBATCH, "%s: %s%s%s",
                    command, spawn_error->message, err_text[0] != '\0' ? ": " : "", err_text);
        return FALSE;
    }
    g_strstrip(out_text);
    g_autofree char *digits = g_strndup(out_text, strcspn(out_text, ";"));
    guint64 v = 0;
    if (!g_ascii_string_to_unsigned(digits, 10, 1, G_MAXUINT64, &v, NULL)) {
        g_autofree char *shown = g_strescape(out_text, NULL);
        g_set_error(error, WEFT_STUDY_SLURM_ERROR, WEFT_STUDY_SLURM_ERROR_SBATCH,
                    "%s printed \"%s\", not a job id%s%s", command, shown,
                    err_text[0] != '\0' ? ": " : "", err_text);
        return FALSE;
    }
    *id = g_strdup_printf("%" G_GUINT64_FORMAT, v);
    return TRUE;
}

gboolean
weft_study_slurm_submit(const weft_study_slurm_scripts_t *scripts, char **array_id, char **merge_id,
                        GError **error)
{
    g_return_val_if_fail(scripts != NULL && array_id != NULL && merge_id != NULL, FALSE);
    *array_id = NULL;
    *merge_id = NULL;
    g_autofree char *program = g_find_program_in_path("sbatch");
    if (program == NULL) {
        g_set_error(error, WEFT_STUDY_SLURM_ERROR, WEFT_STUDY_SLURM_ERROR_NO_SBATCH,
                    "sbatch is not in PATH: submit %s and then %s (with "
                    "--dependency=afterok:ARRAY_JOB_ID) where Slurm is installed",
                    scripts->array_script, scripts->merge_script);
        return FALSE;
    }
    g_autofree char *aid = NULL;
    const char *array_args[] = {scripts->array_script, NULL};
    if (!sbatch(program, array_args, &aid, error)) {
        return FALSE;
    }
    g_autofree char *dependency = g_strdup_printf("--dependency=afterok:%s", aid);
    const char *merge_args[] = {dependency, "--kill-on-invalid-dep=yes", scripts->merge_script,
                                NULL};
    g_autofree char *mid = NULL;
    if (!sbatch(program, merge_args, &mid, error)) {
        g_prefix_error(error, "array job %s is queued, but its merge job is not: ", aid);
        return FALSE;
    }
    *array_id = g_steal_pointer(&aid);
    *merge_id = g_steal_pointer(&mid);
    return TRUE;
}
