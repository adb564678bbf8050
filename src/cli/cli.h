/* SPDX-License-Identifier: MIT */
/*
 * The weft command line: one function per subcommand, sharing exit codes and
 * start-up. weft.c holds the subcommand table.
 */
#ifndef WEFT_CLI_CLI_H
#define WEFT_CLI_CLI_H

#include <glib.h>

#include "core/progress.h"

G_BEGIN_DECLS

/* Exit codes of every subcommand. */
enum {
    WEFT_EXIT_OK = 0,
    WEFT_EXIT_ERROR = 1, /* bad input or a failed run */
    WEFT_EXIT_USAGE = 2, /* bad command line */
};

/**
 * weft_cmd_replay:
 * @argc, @argv: the arguments after "weft" (argv[0] is "replay").
 * Returns: a WEFT_EXIT_* code.
 */
int weft_cmd_replay(int argc, char **argv);

/**
 * weft_cmd_topo:
 * @argc, @argv: the arguments after "weft" (argv[0] is "topo", argv[1] the
 *   subcommand: show, export or check).
 * Returns: a WEFT_EXIT_* code.
 */
int weft_cmd_topo(int argc, char **argv);

/**
 * weft_cmd_coll:
 * @argc, @argv: the arguments after "weft" (argv[0] is "coll").
 * Returns: a WEFT_EXIT_* code.
 */
int weft_cmd_coll(int argc, char **argv);

/**
 * weft_cmd_sweep:
 * @argc, @argv: the arguments after "weft" (argv[0] is "sweep").
 * Returns: a WEFT_EXIT_* code.
 */
int weft_cmd_sweep(int argc, char **argv);

/**
 * weft_cmd_plan: `weft plan --model M --cluster FILE --global-batch N`: the parallel
 * configurations that fit, simulated in ascending lower bound, ranked (study/plan.h).
 * @argc, @argv: the arguments after "weft" (argv[0] is "plan").
 * Returns: a WEFT_EXIT_* code.
 */
int weft_cmd_plan(int argc, char **argv);

/**
 * weft_cmd_train:
 * @argc, @argv: the arguments after "weft" (argv[0] is "train").
 * Returns: a WEFT_EXIT_* code.
 */
int weft_cmd_train(int argc, char **argv);

/**
 * weft_cmd_plot:
 * @argc, @argv: the arguments after "weft" (argv[0] is "plot").
 * Returns: a WEFT_EXIT_* code.
 */
int weft_cmd_plot(int argc, char **argv);

/**
 * weft_cmd_gen: `weft gen transformer [OPTION...]`: one Megatron-LM training step as
 * Chakra ET files (workload/gen.h). Returns an exit code.
 */
int weft_cmd_gen(int argc, char **argv);

/**
 * weft_cli_add_log_options:
 * @ctx: a subcommand's option context.
 *
 * Adds -v/--verbose to @ctx's options (and so to its --help): when parsed, it
 * turns on the debug lines of every weft-* log domain (core/log.h).
 */
void weft_cli_add_log_options(GOptionContext *ctx);

/**
 * weft_cli_progress_entry:
 * @mode_text: (out): where GOption stores --progress's value (NULL: not given).
 * Returns: the --progress=auto|always|never option entry of a long command
 * (replay, coll, sweep, train), to put in its GOptionEntry array.
 */
GOptionEntry weft_cli_progress_entry(char **mode_text);

/**
 * weft_cli_progress_new:
 * @cmd: the command's name ("replay"), for the label "weft replay".
 * @mode_text: (nullable): --progress's value; NULL is auto.
 * @quiet: the command was asked to be quiet (auto is then off).
 * @exit_code: (out): on failure, WEFT_EXIT_USAGE (a bad --progress) or
 *   WEFT_EXIT_ERROR (a bad WEFT_PROGRESS_INTERVAL); the message is printed.
 * @ok: (out): FALSE on failure.
 * Returns: (transfer full) (nullable): the command's progress reporter on
 * stderr (core/progress.h), or NULL when progress is off or on failure.
 */
weft_progress_t *weft_cli_progress_new(const char *cmd, const char *mode_text, gboolean quiet,
                                       gboolean *ok, int *exit_code);

/**
 * weft_cli_escape: @text with what a terminal would act on written as \xNN: C0 and
 * C1 control characters (but newline and tab) and bytes that are not UTF-8, so a
 * message that quotes a binary file's bytes cannot move the cursor or clear the
 * screen. Returns: (transfer full): the escaped copy. Time complexity: O(length).
 */
char *weft_cli_escape(const char *text);

/** weft_cli_usage_error: prints "weft CMD: MESSAGE" and a hint to stderr; returns WEFT_EXIT_USAGE.
 */
int weft_cli_usage_error(const char *cmd, const char *message);

/** weft_cli_error: prints "weft CMD: MESSAGE" to stderr; returns WEFT_EXIT_ERROR. */
int weft_cli_error(const char *cmd, const GError *error);

/**
 * weft_cli_split_jobs_option: the arguments with "-jN" written "-j N", since GOption reads
 * "-j4" as two short options (weft sweep and weft plan take -j as make does).
 * @argc: the argument count. @argv: the arguments.
 * Returns: (transfer full): a GPtrArray of copies, NULL-terminated (len = argc + splits +
 *   1). Parse a g_memdup2() of its pdata, since GOption removes what it parses from the
 *   vector, and keep the array to free every string. O(argc).
 */
GPtrArray *weft_cli_split_jobs_option(int argc, char **argv);

G_END_DECLS

#endif /* WEFT_CLI_CLI_H */
