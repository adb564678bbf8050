/* SPDX-License-Identifier: MIT */
/*
 * weft train: the end-to-end time of a whole training run (src/job): a train file, the
 * options that are shorthands for its keys and --set overrides; Monte Carlo over failures
 * drawn from per-component rates; the checkpoint interval given or searched (auto) beside
 * Young's and Daly's; with --out DIR, summary.json, the effective train.ini and the CSV of
 * goodput against checkpoint interval.
 */
#define G_LOG_DOMAIN "weft-cli"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "cli/cli.h"
#include "core/output.h"
#include "job/job.h"

/* One row of the results table: mean, 95% CI, median and p90 of @st times @scale, with @prec
 * decimals. */
static void
print_stat(const char *name, const weft_job_stat_t *st, double scale, const char *unit, int prec)
{
    printf("%-24s %.*f%s%s  [%.*f, %.*f]  median %.*f  p90 %.*f\n", name, prec, st->mean * scale,
           unit[0] ? " " : "", unit, prec, st->ci95_lo * scale, prec, st->ci95_hi * scale, prec,
           st->median * scale, prec, st->p90 * scale);
}

static void
print_report(const weft_job_params_t *p, const weft_job_mc_t *mc, const weft_job_search_t *search,
             gboolean print_sweep, const char *notes)
{
    const weft_fault_counts_t *n = &p->counts;
    printf("cluster                %" G_GUINT64_FORMAT " GPUs, %" G_GUINT64_FORMAT
           " hosts, %" G_GUINT64_FORMAT " NICs, %" G_GUINT64_FORMAT " switches, %" G_GUINT64_FORMAT
           " cables\n",
           n->n[WEFT_FAULT_GPU], n->n[WEFT_FAULT_HOST], n->n[WEFT_FAULT_NIC],
           n->n[WEFT_FAULT_SWITCH], n->n[WEFT_FAULT_CABLE]);
    double M = weft_job_system_mtbf_s(p);
    if (isfinite(M)) {
        g_autofree char *shape = p->rates.dist == WEFT_FAULT_DIST_WEIBULL
                                     ? g_strdup_printf(" (shape %g)", p->rates.weibull_shape)
                                     : g_strdup("");
        printf("failures               %s%s; system MTBF %.4f h (%.2f interruptions per day)\n",
               weft_fault_dist_name(p->rates.dist), shape, M / 3600.0, 86400.0 / M);
    } else {
        printf("failures               none (every MTBF is off)\n");
    }
    if (p->steps == G_MAXUINT64) {
        printf("run                    a span of %.6g d, steps of %.6f s\n", p->span_s / 86400.0,
               p->step_time_s);
    } else {
        printf("run                    %" G_GUINT64_FORMAT " steps x %.6f s = %.4f d of compute\n",
               p->steps, p->step_time_s, (double)p->steps * p->step_time_s / 86400.0);
    }
    printf("checkpoint             every %" G_GUINT64_FORMAT
           " steps (%.3f s of compute), write %.3f s, restart %.3f s\n",
           mc->checkpoint_steps, (double)mc->checkpoint_steps * p->step_time_s,
           p->checkpoint_write_s, p->restart_s);
    printf("samples                %u (seed %" G_GUINT64_FORMAT "); 95%% confidence intervals of "
           "the mean\n",
           p->samples, p->seed);
    printf("\n");
    print_stat("end-to-end time", &mc->wall_s, 1.0 / 3600.0, "h", 3);
    print_stat("goodput", &mc->goodput, 100.0, "%", 4);
    if (p->steps == G_MAXUINT64) {
        print_stat("steps done", &mc->steps_done, 1.0, "", 1);
    }
    print_stat("interruptions", &mc->interruptions, 1.0, "", 2);
    for (guint k = 0; k < WEFT_FAULT_N_CATEGORIES; k++) {
        if (k == WEFT_FAULT_CAT_PLANNED_MAINTENANCE &&
            !isfinite(p->rates.mtbf_s[WEFT_FAULT_PLANNED])) {
            continue;
        }
        g_autofree char *name = g_strdup_printf("  %s", weft_fault_category_name(k));
        print_stat(name, &mc->per_category[k], 1.0, "", 2);
    }
    print_stat("lost work", &mc->lost_s, 1.0 / 3600.0, "h", 3);
    print_stat("checkpoint overhead", &mc->checkpoint_s, 1.0 / 3600.0, "h", 3);
    print_stat("restarts", &mc->restart_s, 1.0 / 3600.0, "h", 3);
    if (mc->slowdown_s.max > 0.0) {
        print_stat("degraded-step slowdown", &mc->slowdown_s, 1.0 / 3600.0, "h", 3);
    }
    if (isfinite(M)) {
        double young = weft_job_young_s(p->checkpoint_write_s, M);
        double daly = weft_job_daly_s(p->checkpoint_write_s, M);
        printf("\n");
        if (search != NULL) {
            printf("best interval          %" G_GUINT64_FORMAT " steps (%.3f s) of %u evaluated\n",
                   search->best_steps, (double)search->best_steps * p->step_time_s,
                   search->points->len);
        }
        printf("Young sqrt(2 delta M)  %" G_GUINT64_FORMAT " steps (%.3f s)\n",
               weft_job_interval_steps(p, young), young);
        printf("Daly (2006)            %" G_GUINT64_FORMAT " steps (%.3f s)\n",
               weft_job_interval_steps(p, daly), daly);
    }
    if (print_sweep && search != NULL) {
        printf("\n%-10s %-12s %-12s %-24s %s\n", "interval", "interval_s", "goodput_%", "95% CI",
               "end-to-end h");
        for (guint i = 0; i < search->points->len; i++) {
            const weft_job_mc_t *q = &g_array_index(search->points, weft_job_mc_t, i);
            printf("%-10" G_GUINT64_FORMAT " %-12.3f %-12.4f [%.4f, %.4f]     %.3f\n",
                   q->checkpoint_steps, (double)q->checkpoint_steps * p->step_time_s,
                   100.0 * q->goodput.mean, 100.0 * q->goodput.ci95_lo, 100.0 * q->goodput.ci95_hi,
                   q->wall_s.mean / 3600.0);
        }
    }
    if (notes != NULL && notes[0] != '\0') {
        printf("\n");
        g_auto(GStrv) lines = g_strsplit(notes, "\n", -1);
        for (guint i = 0; lines[i] != NULL; i++) {
            if (lines[i][0] != '\0') {
                printf("note: %s\n", lines[i]);
            }
        }
    }
    if (mc->degradations_ignored) {
        printf("note: %" G_GUINT64_FORMAT " degrading faults (summed over the samples) were "
               "ignored: no step-time provider simulates a step under them yet\n",
               mc->degradations);
    }
}

static gboolean
write_outputs(const char *dir, const weft_job_config_t *cfg, const weft_job_params_t *p,
              const weft_job_mc_t *mc, const weft_job_search_t *search, GError **error)
{
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        int e = errno;
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_IO, "--out %s: cannot create: %s", dir,
                    g_strerror(e));
        return FALSE;
    }
    g_autofree char *summary = g_build_filename(dir, "summary.json", NULL);
    g_autofree char *ini_path = g_build_filename(dir, "train.ini", NULL);
    g_autofree char *ini = weft_job_config_to_ini(cfg);
    g_autoptr(GError) ioerr = NULL;
    if (!weft_output_write(ini_path, ini, -1, &ioerr)) {
        g_set_error_literal(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_IO, ioerr->message);
        return FALSE;
    }
    if (!weft_job_write_summary_json(summary, p, mc, search, error)) {
        return FALSE;
    }
    if (search != NULL) {
        g_autofree char *csv = g_build_filename(dir, "goodput_vs_interval.csv", NULL);
        if (!weft_job_write_sweep_csv(csv, p, search, error)) {
            return FALSE;
        }
    }
    /* one run (sample 0) at the interval reported, span by span */
    g_autofree char *timeline = g_build_filename(dir, "run_timeline.csv", NULL);
    return weft_job_write_timeline_csv(timeline, p, mc->checkpoint_steps, error);
}

int
weft_cmd_train(int argc, char **argv)
{
    g_autofree char *cluster = NULL, *gpus = NULL, *days = NULL, *span = NULL, *steps = NULL;
    g_autofree char *step_time = NULL, *scenario = NULL, *interval = NULL, *samples = NULL;
    g_autofree char *seed = NULL, *threads = NULL, *out = NULL;
    g_auto(GStrv) sets = NULL;
    gboolean show_config = FALSE, sweep = FALSE;
    g_autofree char *progress_mode = NULL;
    gboolean quiet = FALSE;
    GOptionEntry entries[] = {
        {"cluster", 'c', 0, G_OPTION_ARG_FILENAME, &cluster,
         "cluster file whose components can fail (train.cluster)", "FILE"},
        {"gpus", 0, 0, G_OPTION_ARG_STRING, &gpus,
         "or: GPUs of a DGX H100-like cluster (train.gpus)", "N"},
        {"steps", 0, 0, G_OPTION_ARG_STRING, &steps, "training steps (train.steps)", "N"},
        {"days", 0, 0, G_OPTION_ARG_STRING, &days,
         "or: a wall-clock span of D days (train.span = Dd)", "D"},
        {"span", 0, 0, G_OPTION_ARG_STRING, &span,
         "or: a wall-clock span with its unit, e.g. 54d (train.span)", "TIME"},
        {"step-time", 0, 0, G_OPTION_ARG_STRING, &step_time,
         "time of one step, e.g. 9.02s (train.step_time)", "TIME"},
        {"scenario", 0, 0, G_OPTION_ARG_FILENAME, &scenario,
         "or: replay this scenario for the step time (train.scenario)", "FILE"},
        {"checkpoint-interval", 'k', 0, G_OPTION_ARG_STRING, &interval,
         "steps between checkpoints, or auto to search (train.checkpoint_interval)", "K|auto"},
        {"samples", 0, 0, G_OPTION_ARG_STRING, &samples,
         "Monte Carlo samples, default 1000 (train.samples)", "N"},
        {"seed", 0, 0, G_OPTION_ARG_STRING, &seed, "random seed, default 1 (train.seed)", "S"},
        {"threads", 0, 0, G_OPTION_ARG_STRING, &threads,
         "worker threads, default one per CPU (train.threads)", "N"},
        {"sweep-interval", 0, 0, G_OPTION_ARG_NONE, &sweep,
         "also evaluate intervals from Daly/4 to 4 Daly and print goodput against them", NULL},
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
         "write summary.json, train.ini and goodput_vs_interval.csv to DIR", "DIR"},
        {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
         "override any key (repeatable; applied in order, last)", "GROUP.KEY=VALUE"},
        weft_cli_progress_entry(&progress_mode),
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no progress lines (--progress=never)", NULL},
        {"show-config", 0, 0, G_OPTION_ARG_NONE, &show_config,
         "print the effective configuration and exit without running", NULL},
        {NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("[TRAIN.ini] - end-to-end time of a training run with failures");
    g_option_context_set_summary(
        ctx, "Predicts the end-to-end time of a whole training run: steps x step time, a\n"
             "checkpoint every K steps, failures drawn from per-component rates (MTBF per GPU,\n"
             "host, NIC, switch, cable; by default from Llama 3's 419 interruptions in 54 days\n"
             "on 16,384 H100 GPUs), each losing the work since the last checkpoint plus a\n"
             "restart. Monte Carlo over seeds gives the mean, median and p90 end-to-end time,\n"
             "goodput and interruptions per category; --checkpoint-interval auto searches the\n"
             "best interval and prints it beside Young's and Daly's. Keys: doc/failures.md.");
    g_option_context_set_description(
        ctx, "Examples:\n"
             "  weft train --gpus 16384 --days 54 --step-time 9.02s\n"
             "  weft train --cluster topologies/h100-2048-nodes.ini --steps 500000 \\\n"
             "      --step-time 9.02s --checkpoint-interval auto --out results\n"
             "  weft train scenarios/train-llama3-405b.ini --set failures.distribution=weibull\n\n"
             "Exit status: 0 on success, 1 on bad input or a failed run, 2 on a usage error.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    weft_cli_add_log_options(ctx);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        return weft_cli_usage_error("train", error->message);
    }
    if (argc > 2) {
        g_autofree char *msg = g_strdup_printf("unexpected argument '%s'", argv[2]);
        return weft_cli_usage_error("train", msg);
    }
    gboolean progress_ok;
    int code;
    g_autoptr(weft_progress_t) progress =
        weft_cli_progress_new("train", progress_mode, quiet, &progress_ok, &code);
    if (!progress_ok) {
        return code;
    }
    if (days != NULL && span != NULL) {
        return weft_cli_usage_error("train", "--days and --span both give the span; keep one");
    }
    g_autoptr(weft_job_config_t) cfg = weft_job_config_new();
    if (argc > 1 && !weft_job_config_load(cfg, argv[1], &error)) {
        return weft_cli_error("train", error);
    }
    g_autofree char *days_span = days != NULL ? g_strdup_printf("%sd", days) : NULL;
    const struct {
        const char *option, *key, *value;
    } shorthands[] = {
        {"--cluster", "cluster", cluster},
        {"--gpus", "gpus", gpus},
        {"--steps", "steps", steps},
        {"--days", "span", days_span},
        {"--span", "span", span},
        {"--step-time", "step_time", step_time},
        {"--scenario", "scenario", scenario},
        {"--checkpoint-interval", "checkpoint_interval", interval},
        {"--samples", "samples", samples},
        {"--seed", "seed", seed},
        {"--threads", "threads", threads},
    };
    for (guint i = 0; i < G_N_ELEMENTS(shorthands); i++) {
        if (shorthands[i].value == NULL) {
            continue;
        }
        if (!weft_job_config_set_value(cfg, "train", shorthands[i].key, shorthands[i].value,
                                       &error)) {
            g_autofree char *msg = g_strdup_printf("%s: %s", shorthands[i].option, error->message);
            return weft_cli_usage_error("train", msg);
        }
    }
    /* --set is configuration, like a line of the file: a bad key or value is bad input */
    for (guint i = 0; sets != NULL && sets[i] != NULL; i++) {
        if (!weft_job_config_set(cfg, sets[i], &error)) {
            if (g_error_matches(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_PARSE)) {
                return weft_cli_usage_error("train", error->message);
            }
            return weft_cli_error("train", error);
        }
    }
    if (show_config) {
        g_autofree char *ini = weft_job_config_to_ini(cfg);
        fputs(ini, stdout);
        return WEFT_EXIT_OK;
    }

    weft_job_params_t p;
    g_autoptr(GString) notes = g_string_new(NULL);
    if (!weft_job_config_resolve(cfg, &p, notes, &error)) {
        return weft_cli_error("train", error);
    }
    p.progress = progress; /* samples done, on stderr */
    g_autoptr(weft_job_search_t) search = NULL;
    if (p.checkpoint_auto || sweep) {
        search = weft_job_search(&p, p.checkpoint_auto, &error);
        if (search == NULL) {
            return weft_cli_error("train", error);
        }
    }
    guint64 K = p.checkpoint_auto ? search->best_steps : p.checkpoint_steps;
    weft_job_mc_t mc;
    gboolean found = FALSE;
    for (guint i = 0; search != NULL && i < search->points->len; i++) {
        const weft_job_mc_t *q = &g_array_index(search->points, weft_job_mc_t, i);
        if (q->checkpoint_steps == K) {
            mc = *q; /* the same seeds: the same result as evaluating K again */
            found = TRUE;
        }
    }
    if (!found && !weft_job_monte_carlo(&p, K, &mc, NULL, &error)) {
        return weft_cli_error("train", error);
    }
    weft_progress_finish(progress);
    print_report(&p, &mc, search, sweep, notes->str);
    if (out != NULL && !write_outputs(out, cfg, &p, &mc, search, &error)) {
        return weft_cli_error("train", error);
    }
    return WEFT_EXIT_OK;
}
