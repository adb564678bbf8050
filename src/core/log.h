/* SPDX-License-Identifier: MIT */
/*
 * Logging: watching a run from inside.
 *
 * Every module logs through GLib (g_debug(), g_info(), g_warning(), ...) in a
 * log domain of its own, named after its directory under src/: "weft-" + the
 * directory, set by `#define G_LOG_DOMAIN "weft-net"` above the includes of
 * each .c file. The domains: weft-core, weft-hw, weft-topo, weft-net,
 * weft-coll, weft-fault, weft-workload, weft-replay, weft-report,
 * weft-scenario, weft-job, weft-study and weft-cli.
 *
 * weft_log_init() installs one structured log writer for the process
 * (g_log_set_writer_func()). Debug and info messages are off unless asked
 * for: by weft_log_set_verbose() (what `weft ... --verbose` calls: every
 * weft-* domain) or by G_MESSAGES_DEBUG as GLib reads it, a list of domains
 * separated by spaces or commas ("weft-net,weft-coll"), or "all". A message
 * that passes is written as one line on stderr,
 *
 *     [weft-net t=12.345678ms] flow solver: ...
 *
 * the domain, then, when a simulation is running on the calling thread
 * (weft_sim_current(), core/sim.h), its simulated time in milliseconds with
 * nanosecond digits (exact: formatted from the integer picoseconds). A
 * simulation run inside an event of another (a collective measured alone)
 * shows the outer clock, "+", and its own: "t=2.500000ms+0.042657ms". A
 * message of several lines (a solver dump) gets the prefix on every line.
 * Messages are written whole, so the threads of a study do not cut into each
 * other's lines.
 * Nothing is ever logged to stdout, where results go: messages, warnings,
 * criticals and errors keep GLib's default writer and its format
 * ("weft-core-WARNING **: ...", on stderr; fatal ones still abort).
 *
 * Cost: a g_debug() that is dropped still formats its message (GLib's
 * g_log() does, before any writer sees it), so hot paths guard their lines
 * with a flag cached from weft_log_enabled() and pay one branch when
 * logging is off.
 */
#ifndef WEFT_CORE_LOG_H
#define WEFT_CORE_LOG_H

#include <glib.h>

G_BEGIN_DECLS

/**
 * weft_log_init:
 *
 * Installs weft's log writer (weft_log_writer()) for the whole process and
 * makes GLib's default writer, which it falls back on, use stderr for every
 * level. Call it once at start-up, before any message is logged; later calls
 * do nothing. Thread-safe.
 */
void weft_log_init(void);

/**
 * weft_log_set_verbose:
 * @verbose: TRUE to write the debug and info messages of every weft-* domain,
 *   whatever G_MESSAGES_DEBUG says; FALSE to leave the choice to G_MESSAGES_DEBUG.
 *
 * Process-wide, like the writer; set it before the threads that log start.
 */
void weft_log_set_verbose(gboolean verbose);

/** weft_log_get_verbose: what weft_log_set_verbose() last set (FALSE at start). */
gboolean weft_log_get_verbose(void);

/**
 * weft_log_enabled:
 * @domain: (nullable): a log domain, usually G_LOG_DOMAIN.
 *
 * Whether a debug message of @domain would be written: a weft-* domain under
 * weft_log_set_verbose(TRUE), a domain listed in G_MESSAGES_DEBUG, or any with
 * G_MESSAGES_DEBUG=all. Reads the environment: call it once per object (a run,
 * a network) and keep the answer, not once per event.
 * Time complexity: O(length of G_MESSAGES_DEBUG).
 */
gboolean weft_log_enabled(const char *domain);

/**
 * weft_log_format_prefix:
 * @out: appended to.
 * @domain: (nullable): the log domain; NULL is written as "weft".
 *
 * Appends the prefix of a log line, "[DOMAIN t=12.345678ms] ", with the time
 * part only when a simulation runs on the calling thread (weft_sim_current();
 * "t=OUTER+INNER" for nested runs, see above).
 */
void weft_log_format_prefix(GString *out, const char *domain);

/**
 * weft_log_writer:
 *
 * The GLogWriterFunc weft_log_init() installs: writes debug and info
 * messages that weft_log_enabled() lets through as prefixed lines on stderr,
 * drops the other debug and info messages, and hands every other level (and
 * anything fatal) to g_log_writer_default().
 * Returns: G_LOG_WRITER_HANDLED, or what g_log_writer_default() returns.
 */
GLogWriterOutput weft_log_writer(GLogLevelFlags log_level, const GLogField *fields, gsize n_fields,
                                 gpointer user_data);

G_END_DECLS

#endif /* WEFT_CORE_LOG_H */
