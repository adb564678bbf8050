/* SPDX-License-Identifier: MIT */
/*
 * weft: the command-line entry point. Dispatches to one function per
 * subcommand and handles --help and --version.
 */
#define G_LOG_DOMAIN "weft-cli"

#include "config.h"

#include <igraph.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/evq.h"
#include "core/log.h"

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} command_t;

static const command_t commands[] = {
    {"replay", weft_cmd_replay, "replay Chakra traces on a cluster and report the step time"},
    {"topo", weft_cmd_topo, "show a cluster's figures, export it as GraphML/DOT, check it"},
    {"coll", weft_cmd_coll, "predict a collective over a size sweep, like nccl-tests"},
    {"sweep", weft_cmd_sweep, "run a study: a scenario over axes of values, results as CSV"},
    {"plan", weft_cmd_plan, "search the parallel configurations of a model: ranked step times"},
    {"train", weft_cmd_train, "end-to-end time of a training run with checkpoints and failures"},
    {"gen", weft_cmd_gen, "generate one LLM training step as Chakra ET files (gen transformer)"},
    {"plot", weft_cmd_plot, "render a figure from the CSV files of --out DIR or weft coll --csv"},
};

static void
print_help(FILE *out)
{
    fprintf(out, "Usage: weft COMMAND [OPTION...]\n"
                 "\n"
                 "weft predicts how long distributed training takes on GPU clusters by\n"
                 "replaying per-rank operator traces over a model of the cluster.\n"
                 "\n"
                 "Commands:\n");
    for (gsize i = 0; i < G_N_ELEMENTS(commands); i++) {
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    }
    fprintf(out, "\n"
                 "Options:\n"
                 "  -h, --help     show this help\n"
                 "  -V, --version  show the version\n"
                 "  -v, --verbose  debug lines on stderr (here or after COMMAND)\n"
                 "\n"
                 "Run 'weft COMMAND --help' for the options of a command.\n");
}

static gboolean
on_verbose(const char *name, const char *value, gpointer data, GError **error)
{
    (void)name, (void)value, (void)data, (void)error;
    weft_log_set_verbose(TRUE);
    return TRUE;
}

void
weft_cli_add_log_options(GOptionContext *ctx)
{
    /* a callback: the flag takes effect as it is parsed, before the command does anything */
    static const GOptionEntry entries[] = {
        {"verbose", 'v', G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer)on_verbose,
         "print debug lines on stderr, stamped with the simulated time (all weft-* log "
         "domains; G_MESSAGES_DEBUG=weft-net,... picks some; doc/outputs.md)",
         NULL},
        {NULL},
    };
    g_option_context_add_main_entries(ctx, entries, NULL);
}

GOptionEntry
weft_cli_progress_entry(char **mode_text)
{
    GOptionEntry e = {"progress", 0, 0, G_OPTION_ARG_STRING, mode_text,
                      "progress lines on stderr: auto (default: unless --quiet; a line rewritten "
                      "in place on a terminal, else a line every 5 s, WEFT_PROGRESS_INTERVAL), "
                      "always, never",
                      "WHEN"};
    return e;
}

weft_progress_t *
weft_cli_progress_new(const char *cmd, const char *mode_text, gboolean quiet, gboolean *ok,
                      int *exit_code)
{
    weft_progress_mode_t mode = WEFT_PROGRESS_AUTO;
    g_autoptr(GError) error = NULL;
    *ok = TRUE;
    if (mode_text != NULL && !weft_progress_mode_from_name(mode_text, &mode, &error)) {
        *ok = FALSE;
        *exit_code = weft_cli_usage_error(cmd, error->message);
        return NULL;
    }
    g_autofree char *label = g_strdup_printf("weft %s", cmd);
    weft_progress_t *p = weft_progress_new_stderr(label, mode, quiet, &error);
    if (error != NULL) {
        *ok = FALSE;
        *exit_code = weft_cli_error(cmd, error);
        return NULL;
    }
    return p;
}

char *
weft_cli_escape(const char *text)
{
    GString *out = g_string_sized_new(strlen(text));
    const char *p = text;
    while (*p != '\0') {
        gunichar c = g_utf8_get_char_validated(p, -1);
        if (c == (gunichar)-1 || c == (gunichar)-2) {
            g_string_append_printf(out, "\\x%02x", (guchar)*p); /* not UTF-8: one byte */
            p++;
            continue;
        }
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
            g_string_append_printf(out, "\\x%02x", (guint)c); /* a terminal control */
        } else {
            g_string_append_len(out, p, g_utf8_next_char(p) - p);
        }
        p = g_utf8_next_char(p);
    }
    return g_string_free(out, FALSE);
}

GPtrArray *
weft_cli_split_jobs_option(int argc, char **argv)
{
    GPtrArray *args = g_ptr_array_new_with_free_func(g_free);
    for (int i = 0; i < argc; i++) {
        if (g_str_has_prefix(argv[i], "-j") && g_ascii_isdigit(argv[i][2])) {
            g_ptr_array_add(args, g_strdup("-j"));
            g_ptr_array_add(args, g_strdup(argv[i] + 2));
        } else {
            g_ptr_array_add(args, g_strdup(argv[i]));
        }
    }
    g_ptr_array_add(args, NULL);
    return args;
}

int
weft_cli_usage_error(const char *cmd, const char *message)
{
    g_autofree char *m = weft_cli_escape(message);
    fprintf(stderr, "weft %s: %s\nTry 'weft %s --help'.\n", cmd, m, cmd);
    return WEFT_EXIT_USAGE;
}

int
weft_cli_error(const char *cmd, const GError *error)
{
    g_autofree char *m = weft_cli_escape(error->message);
    fprintf(stderr, "weft %s: %s\n", cmd, m);
    return WEFT_EXIT_ERROR;
}

int
main(int argc, char **argv)
{
    /* the user's character set for messages; numbers always with a decimal point */
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    /* debug lines go to stderr, stamped with the simulated time (core/log.h) */
    weft_log_init();
    /* igraph's default error handler aborts the process; weft turns igraph's
     * error codes into GErrors instead. */
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);

    /* the event queue's environment choice (core/evq.h), checked before any run */
    const char *evq = g_getenv("WEFT_EVQ");
    weft_evq_kind_t evq_kind;
    if (evq != NULL && *evq != '\0' && !weft_evq_kind_from_name(evq, &evq_kind, NULL)) {
        fprintf(stderr, "weft: WEFT_EVQ=%s: unknown event queue; expected heap or radix\n", evq);
        return WEFT_EXIT_USAGE;
    }
    /* --verbose given before the command: as if given after it */
    while (argc >= 2 && (strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "--verbose") == 0)) {
        weft_log_set_verbose(TRUE);
        argv[1] = argv[0];
        argc--;
        argv++;
    }
    if (argc < 2) {
        print_help(stderr);
        return WEFT_EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        print_help(stdout);
        return WEFT_EXIT_OK;
    }
    if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
        printf("weft %s\n", PACKAGE_VERSION);
        return WEFT_EXIT_OK;
    }
    for (gsize i = 0; i < G_N_ELEMENTS(commands); i++) {
        if (strcmp(argv[1], commands[i].name) == 0) {
            /* option help then reads "Usage: weft replay [OPTION...]" */
            g_autofree char *prgname = g_strdup_printf("weft %s", commands[i].name);
            g_set_prgname(prgname);
            return commands[i].fn(argc - 1, argv + 1);
        }
    }
    g_autofree char *unknown = weft_cli_escape(argv[1]);
    fprintf(stderr, "weft: unknown command '%s'\nTry 'weft --help'.\n", unknown);
    return WEFT_EXIT_USAGE;
}
