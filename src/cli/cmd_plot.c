/* SPDX-License-Identifier: MIT */
/*
 * weft plot: renders a figure from weft's CSV outputs by running gnuplot
 * (g_spawn) on one of the scripts in plots/ with the input file and the
 * figure's name as arguments. The figure is written to a temporary name in its
 * directory and renamed, so a failed run leaves no half-written figure.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "cli/cli.h"

/* One kind of figure: its script and the file it reads from a --out directory. */
typedef struct {
    const char *kind;
    const char *script;   /* in the plots directory */
    const char *dir_file; /* the CSV inside DIR when INPUT is a directory; NULL: INPUT is a file */
    const char *hint;     /* how to make the input */
    const char *summary;
} plot_kind_t;

static const plot_kind_t kinds[] = {
    {"breakdown", "breakdown.gp", "ranks.csv", "weft replay ... --out DIR",
     "step-time breakdown per rank: stacked compute, exposed communication, idle"},
    {"busbw", "busbw.gp", NULL, "weft coll ... --csv FILE",
     "collective bus bandwidth against size (log scales), with --measured beside it"},
    {"links-heatmap", "links_heatmap.gp", "links_timeseries.csv",
     "weft replay ... --network flow --link-series 10us --out DIR",
     "link utilization over time, one row per link (the busiest)"},
    {"top-links", "top_links.gp", "links.csv", "weft replay ... --out DIR",
     "bar chart of the links that carried the most bytes"},
};

/* The directory holding the gnuplot scripts: $WEFT_PLOTS_DIR, the installed
 * copy, the source tree weft was built from, or ./plots; NULL if none has @script. */
static char *
find_plots_dir(const char *script)
{
    const char *candidates[] = {
        g_getenv("WEFT_PLOTS_DIR"),
        WEFT_PLOTS_DIR,
        WEFT_PLOTS_SRCDIR,
        "plots",
    };
    for (guint i = 0; i < G_N_ELEMENTS(candidates); i++) {
        if (candidates[i] == NULL || candidates[i][0] == '\0') {
            continue;
        }
        g_autofree char *path = g_build_filename(candidates[i], script, NULL);
        if (g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
            return g_strdup(candidates[i]);
        }
    }
    return NULL;
}

static char *
kinds_text(void)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
        g_string_append_printf(s, "%s%s", i > 0 ? ", " : "", kinds[i].kind);
    }
    return g_string_free(s, FALSE);
}

int
weft_cmd_plot(int argc, char **argv)
{
    g_autofree char *output = NULL;
    g_autofree char *measured = NULL;
    gint n_links = 0;
    GOptionEntry entries[] = {
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
         "the figure: FILE.pdf (vector, the default KIND.pdf), FILE.png or FILE.svg", "FILE"},
        {"measured", 'm', 0, G_OPTION_ARG_FILENAME, &measured,
         "busbw: a measured nccl-tests CSV (size_bytes,time_us,algbw_gbs,busbw_gbs) to draw "
         "beside the prediction",
         "FILE"},
        {"links", 0, 0, G_OPTION_ARG_INT, &n_links, "top-links: how many links (default 16)", "N"},
        {NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("KIND INPUT - render a figure from weft's CSV outputs with gnuplot");
    GString *kinds_help = g_string_new("Kinds (INPUT):\n");
    for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
        g_string_append_printf(
            kinds_help, "  %-14s %s\n  %-14s   INPUT: %s%s%s (%s)\n", kinds[i].kind,
            kinds[i].summary, "", kinds[i].dir_file != NULL ? "DIR, or DIR/" : "the CSV of ",
            kinds[i].dir_file != NULL ? kinds[i].dir_file : "weft coll --csv", "", kinds[i].hint);
    }
    g_string_append(kinds_help,
                    "\nThe scripts are in plots/ (gnuplot -c plots/KIND.gp INPUT OUT runs them\n"
                    "directly); $WEFT_PLOTS_DIR overrides where weft looks for them. Figures\n"
                    "are sized for a paper: 10 pt fonts in PDF, labelled axes with units,\n"
                    "colour-blind-safe colours (Okabe-Ito, viridis).");
    g_option_context_set_summary(ctx, kinds_help->str);
    g_string_free(kinds_help, TRUE);
    g_option_context_set_description(
        ctx, "Examples:\n"
             "  weft replay scenarios/dp-step-dgx-h100.ini --out results\n"
             "  weft plot breakdown results -o breakdown.pdf\n"
             "  weft coll --cluster topologies/dgx-h100.ini --csv ar.csv\n"
             "  weft plot busbw ar.csv --measured ../shared/validation/"
             "nccl_allreduce_dgx_h100_8gpu.csv -o busbw.pdf\n\n"
             "Needs gnuplot (Debian/Ubuntu: apt-get install gnuplot-nox).\n"
             "Exit status: 0 on success, 1 on a missing input, a missing gnuplot or a\n"
             "failed gnuplot run, 2 on a usage error.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        return weft_cli_usage_error("plot", error->message);
    }
    if (argc != 3) {
        g_autofree char *valid = kinds_text();
        g_autofree char *msg = argc < 3 ? g_strdup_printf("expected KIND INPUT; kinds: %s", valid)
                                        : g_strdup_printf("unexpected argument '%s'", argv[3]);
        return weft_cli_usage_error("plot", msg);
    }
    const plot_kind_t *k = NULL;
    for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
        if (strcmp(argv[1], kinds[i].kind) == 0) {
            k = &kinds[i];
        }
    }
    if (k == NULL) {
        g_autofree char *valid = kinds_text();
        g_autofree char *msg = g_strdup_printf("unknown kind '%s'; kinds: %s", argv[1], valid);
        return weft_cli_usage_error("plot", msg);
    }
    if (measured != NULL && strcmp(k->kind, "busbw") != 0) {
        return weft_cli_usage_error("plot", "--measured goes with busbw only");
    }
    if (n_links < 0) {
        return weft_cli_usage_error("plot", "--links must be > 0");
    }
    if (output == NULL) {
        output = g_strdup_printf("%s.pdf", k->kind);
    }
    const char *ext = strrchr(output, '.');
    if (ext == NULL ||
        (strcmp(ext, ".pdf") != 0 && strcmp(ext, ".png") != 0 && strcmp(ext, ".svg") != 0)) {
        g_autofree char *msg =
            g_strdup_printf("-o %s: expected a name ending in .pdf, .png or .svg", output);
        return weft_cli_usage_error("plot", msg);
    }

    /* the input: a file, or DIR/<the kind's CSV> */
    g_autofree char *input = NULL;
    if (g_file_test(argv[2], G_FILE_TEST_IS_DIR)) {
        if (k->dir_file == NULL) {
            g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                        "%s: a directory; %s reads the CSV file of %s", argv[2], k->kind, k->hint);
            return weft_cli_error("plot", error);
        }
        input = g_build_filename(argv[2], k->dir_file, NULL);
    } else {
        input = g_strdup(argv[2]);
    }
    if (!g_file_test(input, G_FILE_TEST_IS_REGULAR)) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "%s: no such file (%s reads what `%s` writes)", input, k->kind, k->hint);
        return weft_cli_error("plot", error);
    }
    if (measured != NULL && !g_file_test(measured, G_FILE_TEST_IS_REGULAR)) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "--measured %s: no such file",
                    measured);
        return weft_cli_error("plot", error);
    }
    g_autofree char *gnuplot = g_find_program_in_path("gnuplot");
    if (gnuplot == NULL) {
        g_set_error(&error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT,
                    "gnuplot is not installed (Debian/Ubuntu: apt-get install gnuplot-nox)");
        return weft_cli_error("plot", error);
    }
    g_autofree char *plots = find_plots_dir(k->script);
    if (plots == NULL) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "cannot find the script %s: set WEFT_PLOTS_DIR to weft's plots/ directory",
                    k->script);
        return weft_cli_error("plot", error);
    }
    g_autofree char *script = g_build_filename(plots, k->script, NULL);

    /* gnuplot writes a temporary name with the same extension (it picks nothing from it,
     * but the script does), renamed once gnuplot succeeded */
    g_autofree char *dir = g_path_get_dirname(output);
    g_autofree char *base = g_path_get_basename(output);
    g_autofree char *tmp_name = g_strdup_printf(".%s.XXXXXX", base);
    g_autofree char *tmp_stem = g_build_filename(dir, tmp_name, NULL);
    int fd = g_mkstemp(tmp_stem);
    if (fd < 0) {
        int e = errno;
        g_set_error(&error, G_FILE_ERROR, g_file_error_from_errno(e), "-o %s: cannot write: %s",
                    output, g_strerror(e));
        return weft_cli_error("plot", error);
    }
    close(fd);
    g_unlink(tmp_stem);
    g_autofree char *tmp = g_strconcat(tmp_stem, ext, NULL);

    g_autofree char *n_text = g_strdup_printf("%d", n_links > 0 ? n_links : 16);
    const char *args[8] = {gnuplot, "-c", script, input, tmp, NULL, NULL, NULL};
    if (measured != NULL) {
        args[5] = measured;
    } else if (strcmp(k->kind, "top-links") == 0) {
        args[5] = n_text;
    }
    g_autofree char *err_text = NULL;
    gint status = 0;
    if (!g_spawn_sync(NULL, (char **)args, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                      &err_text, &status, &error)) {
        g_unlink(tmp);
        return weft_cli_error("plot", error);
    }
    g_autoptr(GError) exit_error = NULL;
    if (!g_spawn_check_wait_status(status, &exit_error)) {
        g_unlink(tmp);
        g_set_error(&error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, "gnuplot %s %s failed (%s):\n%s",
                    script, input, exit_error->message, err_text != NULL ? err_text : "");
        return weft_cli_error("plot", error);
    }
    GStatBuf st;
    if (g_stat(tmp, &st) != 0 || st.st_size == 0) {
        g_unlink(tmp);
        g_set_error(&error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, "gnuplot %s %s wrote nothing:\n%s",
                    script, input, err_text != NULL ? err_text : "");
        return weft_cli_error("plot", error);
    }
    if (g_rename(tmp, output) != 0) {
        int e = errno;
        g_unlink(tmp);
        g_set_error(&error, G_FILE_ERROR, g_file_error_from_errno(e), "-o %s: cannot write: %s",
                    output, g_strerror(e));
        return weft_cli_error("plot", error);
    }
    /* gnuplot's warnings (a column out of range, ...) are worth seeing */
    if (err_text != NULL && err_text[0] != '\0') {
        fputs(err_text, stderr);
    }
    return WEFT_EXIT_OK;
}
