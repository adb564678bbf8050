/* SPDX-License-Identifier: MIT */
/*
 * Progress lines: what a long command (weft replay, coll, sweep, train) says
 * on stderr while it runs, so that a run watched on a terminal, or logged by a
 * batch system, or killed at its time limit, shows how far it got.
 *
 * Two shapes, chosen by whether the stream is a terminal:
 *
 *   - a terminal: one line rewritten in place ('\r', then "ESC [ K" to clear
 *     what is left of the previous one), at most 4 times a second, first after
 *     a second (shorter runs print nothing), cleared at the end;
 *   - anything else (a file, a pipe, a batch system's log): one whole line per
 *     report, every WEFT_PROGRESS_INTERVAL (default 5 s), the first after one
 *     interval, so a log grows by a line every few seconds and a killed run
 *     leaves its last position.
 *
 * A line reads "LABEL: WHAT, 37 %, ETA 40 s, elapsed 12 s": WHAT is the
 * caller's text (simulated time and events, points done, samples done), the
 * fraction done and the estimated time left follow when the caller knows the
 * fraction. ETA = elapsed x (1 - f) / f, the rate so far held constant. From 99 %
 * on the percentage has one decimal (at most 99.9 before the end) and the ETA reads
 * "unknown (the last items)": the fraction counts work items (a replay's nodes), and a
 * replay's last ones can be its longest.
 *
 * Progress goes to stderr only and reads the wall clock only to decide when
 * to print: nothing of it reaches stdout or an output file, and a run is the
 * same with it or without it.
 *
 * The reporter is thread-safe: a study's or a Monte Carlo's worker threads
 * report to one reporter, which prints at most one line per period.
 * Cost when no line is due: one read of the monotonic clock
 * (weft_progress_due()); callers on a hot path look at it every N items.
 */
#ifndef WEFT_CORE_PROGRESS_H
#define WEFT_CORE_PROGRESS_H

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

#define WEFT_PROGRESS_ERROR (weft_progress_error_quark())
GQuark weft_progress_error_quark(void);

typedef enum {
    WEFT_PROGRESS_ERROR_VALUE, /* a bad --progress or WEFT_PROGRESS_INTERVAL */
} weft_progress_error_t;

/** --progress: when a command prints progress lines. */
typedef enum {
    WEFT_PROGRESS_AUTO,   /* on, unless the command was asked to be quiet (--quiet) */
    WEFT_PROGRESS_ALWAYS, /* on, even with --quiet; on a terminal from the first report */
    WEFT_PROGRESS_NEVER,  /* off */
} weft_progress_mode_t;

/**
 * weft_progress_mode_from_name:
 * @name: "auto", "always" or "never".
 * @mode: (out): the mode.
 * @error: WEFT_PROGRESS_ERROR_VALUE naming @name and the valid names.
 * Returns: TRUE on success.
 */
gboolean weft_progress_mode_from_name(const char *name, weft_progress_mode_t *mode, GError **error);

/** weft_progress_mode_name: "auto", "always" or "never". */
const char *weft_progress_mode_name(weft_progress_mode_t mode);

typedef struct weft_progress weft_progress_t;

/**
 * weft_progress_new:
 * @out: where lines go (not closed).
 * @label: the start of every line, e.g. "weft replay" (copied).
 * @terminal: TRUE: one line rewritten in place; FALSE: one line per report.
 * @period_us: wall-clock microseconds between two lines (> 0).
 * @delay_us: wall-clock microseconds before the first line (>= 0).
 * Returns: (transfer full): a reporter; free with weft_progress_free().
 */
weft_progress_t *weft_progress_new(FILE *out, const char *label, gboolean terminal,
                                   gint64 period_us, gint64 delay_us);

/**
 * weft_progress_new_stderr:
 * @label: as weft_progress_new().
 * @mode: --progress; AUTO with @quiet is NEVER.
 * @quiet: the command was asked to be quiet (--quiet).
 * @error: WEFT_PROGRESS_ERROR_VALUE when WEFT_PROGRESS_INTERVAL is set but
 *   not a positive time with a unit ("5s", "100ms"), quoting its value.
 *
 * The reporter a command uses: on stderr, a terminal's shape if stderr is a
 * terminal (isatty()), else a line every WEFT_PROGRESS_INTERVAL (default 5 s;
 * the first after one interval). On a terminal the first line comes after
 * 1 s (AUTO) or at once (ALWAYS), then at most every 0.25 s.
 * Returns: (transfer full) (nullable): the reporter, or NULL when progress
 * is off (@error unset) or on error (@error set).
 */
weft_progress_t *weft_progress_new_stderr(const char *label, weft_progress_mode_t mode,
                                          gboolean quiet, GError **error);

/**
 * weft_progress_due:
 * @p: (nullable): a reporter.
 * Returns: TRUE when a line would print now (reads the monotonic clock);
 * FALSE for NULL. Lets a caller skip formatting its text when none is due.
 * Time complexity: O(1).
 */
gboolean weft_progress_due(weft_progress_t *p);

/**
 * weft_progress_report:
 * @p: (nullable): a reporter; NULL is a no-op.
 * @fraction: the fraction done in [0, 1], or negative when unknown (no
 *   percentage and no ETA then).
 * @fmt: printf format of WHAT (the caller's part of the line).
 *
 * Prints one line if one is due (weft_progress_due()), else nothing.
 * Thread-safe.
 */
void weft_progress_report(weft_progress_t *p, double fraction, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

/**
 * weft_progress_finish:
 * @p: (nullable): a reporter; NULL is a no-op.
 * Ends the reporter's output: clears the terminal line if one was shown
 * (a log keeps its lines). Reports after it start again.
 */
void weft_progress_finish(weft_progress_t *p);

/**
 * weft_progress_lines:
 * Returns: how many lines (or terminal rewrites) @p has printed. For tests.
 */
guint weft_progress_lines(const weft_progress_t *p);

/** weft_progress_free: finishes (weft_progress_finish()) and frees @p. NULL is a no-op. */
void weft_progress_free(weft_progress_t *p);

/**
 * weft_progress_format_count:
 * Returns: (transfer full): @n with a comma between groups of three digits,
 * "12,345,678".
 */
char *weft_progress_format_count(guint64 n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_progress_t, weft_progress_free)

G_END_DECLS

#endif /* WEFT_CORE_PROGRESS_H */
