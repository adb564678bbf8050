/* SPDX-License-Identifier: MIT */
/*
 * Reports: what one replay did, for people (a summary), for programs (JSON
 * and CSV with units in the column names), for timeline viewers (Chrome trace
 * event JSON that Perfetto and chrome://tracing open) and for plots (the CSV
 * files the gnuplot scripts in plots/ read). doc/outputs.md documents every file and column.
 *
 * A report observes; nothing in the model depends on it. It records through
 * the replay's observers (weft_replay_observer_t): every collective instance
 * (communicator, sequence number, what its plan ran, first arrival, start,
 * end) and, when a timeline is asked for, every node of the kept ranks
 * (rank, node, stream, start, end). After the run it reads the network's
 * per-link statistics (weft_net_link_stats()) and, when a sampling interval
 * is set, the sampled usage series of the busiest links
 * (weft_net_link_timeseries(); flow model only: the analytical model keeps
 * no series).
 *
 * Figures:
 *  - per rank: finish, compute, exposed communication, overlapped
 *    communication and idle (replay.h), with the total over ranks, min,
 *    median (mean of the two middle values for an even count) and max;
 *    compute + exposed + idle = finish for every rank (replay's invariant);
 *  - per collective instance: time = end - start (from the last member's
 *    issue, as nccl-tests times a collective once every rank called it);
 *    algbw = nccl-tests size / time, where the nccl-tests size is weft's S
 *    (doc/collectives.md) except for all-gather, gather and scatter, whose
 *    nccl-tests size is n S; busbw = algbw x nccl-tests' factor
 *    (weft_coll_tuning_busbw_factor(): 2(n-1)/n for all-reduce, (n-1)/n for
 *    all-gather, reduce-scatter and all-to-all, 1 otherwise); bandwidths in
 *    GB/s (1e9 bytes/s); moved bytes = the payload bytes of the plan's transfers;
 *  - per directed link: capacity, bytes (wire bytes: payload / protocol
 *    efficiency, summed over the route shares crossing it), busy time, mean and
 *    peak utilization (net.h's definitions).
 * Fixed orders: ranks by rank; collectives by (start, communicator, sequence);
 * links by edge id; the "top" lists by their figure, descending, ties by the
 * fixed order. Deterministic: nothing depends on hash order or the wall clock
 * (except when progress lines print, on stderr only).
 *
 * Memory: one 64-byte record per collective instance; with a timeline, 32
 * bytes per kept node (the rank and window filters cut this) and 4 bytes per
 * (rank, communicator); the timeline is streamed to its file, not built as a
 * JSON tree. Link statistics: one record per directed edge, read once.
 */
#ifndef WEFT_REPORT_REPORT_H
#define WEFT_REPORT_REPORT_H

#include <glib.h>
#include <stdio.h>

#include "coll/coll.h"
#include "core/progress.h"
#include "net/net.h"
#include "replay/replay.h"
#include "topo/topo.h"
#include "workload/workload.h"

G_BEGIN_DECLS

#define WEFT_REPORT_ERROR (weft_report_error_quark())
GQuark weft_report_error_quark(void);

typedef enum {
    WEFT_REPORT_ERROR_VALUE, /* a rank list or time window that does not parse or is out of range */
    WEFT_REPORT_ERROR_IO,    /* a file cannot be written */
} weft_report_error_t;

/** What to record beyond the summary; zero-initialize, then set what differs. */
typedef struct {
    gboolean timeline; /* record one event per node of the kept ranks, for the timeline */
    /* (nullable) ranks kept in the timeline, as weft_report_parse_ranks() reads them
     * ("0-7,12"); NULL: every rank */
    const char *timeline_ranks;
    /* keep only nodes that overlap [window_start_ps, window_end_ps]; window_end_ps <= 0:
     * no window */
    weft_time_t window_start_ps, window_end_ps;
    /* > 0: sample link usage every this many picoseconds (flow model): links_timeseries.csv
     * and the timeline's counters */
    weft_time_t link_interval_ps;
    guint series_links; /* links in the series and counters: the N busiest by bytes, and the
                           N / 4 busiest of each tier (link kind and the kinds of vertex it
                           joins) besides; 0: 16 */
} weft_report_options_t;

/** The run a report describes, for summary.json and the text summary (strings are copied). */
typedef struct {
    const char *cluster;           /* cluster label (file or "NAME (inline)") */
    const char *workload;          /* trace label */
    const char *placement;         /* "in-order", "random (seed 7)", ... */
    const char *network_model;     /* "analytical" or "flow" */
    const char *network_update;    /* "incremental" or "full" */
    const char *collective_tuning; /* "off" or "nccl" */
    guint chunks;                  /* collectives.chunks; 0: NCCL's tuning chose each */
    guint64 sim_seed;              /* the simulation's seed */
    guint64 placement_seed;        /* workload.placement_seed */
    guint64 ecmp_seed;             /* network.ecmp_seed */
    const char *config_ini;        /* (nullable) the effective configuration as INI text */
} weft_report_meta_t;

/** weft_report_coll_t.algo of a user's plan (weft_coll_plan_t.custom): named "custom". */
#define WEFT_REPORT_ALGO_CUSTOM 255

/** One collective instance as the report keeps it. */
typedef struct {
    guint comm;             /* index into the workload's communicators */
    guint seq;              /* sequence number within the communicator */
    guint8 op;              /* weft_coll_op_t */
    guint8 algo;            /* weft_coll_algo_t, or WEFT_REPORT_ALGO_CUSTOM */
    guint8 proto;           /* weft_coll_proto_t */
    guint n_members;        /* members of the communicator */
    guint channels, chunks; /* as the plan used them */
    guint64 size_bytes;     /* weft's S (doc/collectives.md) */
    guint64 moved_bytes;    /* payload bytes of the plan's transfers, summed */
    weft_time_t first_arrival_ps, start_ps, end_ps;
} weft_report_coll_t;

typedef struct weft_report weft_report_t;

/**
 * weft_report_new:
 * @topo: the cluster (not owned; must outlive the report).
 * @wl: the workload (not owned; must outlive the report).
 * @rank_gpu: (nullable): rank -> GPU number (copied); NULL: rank r on GPU r.
 * @opts: (nullable): what to record.
 * @error: WEFT_REPORT_ERROR_VALUE when opts->timeline_ranks does not parse or
 *   names a rank >= wl->n_ranks.
 * Returns: (transfer full): a report ready to observe a replay, or NULL.
 */
weft_report_t *weft_report_new(const weft_topo_t *topo, const weft_workload_t *wl,
                               const guint *rank_gpu, const weft_report_options_t *opts,
                               GError **error);

/** weft_report_free: NULL is a no-op. */
void weft_report_free(weft_report_t *rep);

/** weft_report_observer: (transfer none): the observer to put in weft_replay_options_t. */
const weft_replay_observer_t *weft_report_observer(weft_report_t *rep);

/**
 * weft_report_attach:
 * Prepares @net, before any transfer starts: enables its usage time series when
 * options.link_interval_ps > 0 and the model is flow.
 */
void weft_report_attach(weft_report_t *rep, weft_net_t *net);

/**
 * weft_report_finish:
 * After the replay: copies the per-rank results of @res and reads @net's link
 * statistics (and series). Call once. Time complexity: O(edges + collectives
 * log collectives + series links x samples).
 */
void weft_report_finish(weft_report_t *rep, weft_net_t *net, const weft_replay_result_t *res);

/** weft_report_set_meta: describes the run (copied); may be called before or after finish. */
void weft_report_set_meta(weft_report_t *rep, const weft_report_meta_t *meta);

/** weft_report_n_collectives: collective instances recorded. */
guint weft_report_n_collectives(const weft_report_t *rep);

/** weft_report_collective: (transfer none): instance @i in the fixed order (after finish). */
const weft_report_coll_t *weft_report_collective(const weft_report_t *rep, guint i);

/** weft_report_coll_algbw_GBps: nccl-tests algbw of @c in GB/s (0 when its time is 0). */
double weft_report_coll_algbw_GBps(const weft_report_coll_t *c);

/** weft_report_coll_busbw_GBps: nccl-tests busbw of @c in GB/s. */
double weft_report_coll_busbw_GBps(const weft_report_coll_t *c);

/** weft_report_n_timeline_events: node events kept for the timeline so far. */
guint64 weft_report_n_timeline_events(const weft_report_t *rep);

/**
 * weft_report_summary_text:
 * The report's part of the text summary (after the scenario's header and rank
 * table): per-rank distribution, the five most expensive collectives, the five
 * busiest links, the collective choices. No line starts with a number.
 * Returns: (transfer full): the text.
 */
char *weft_report_summary_text(const weft_report_t *rep);

/**
 * weft_report_summary_json:
 * summary.json: weft version, seeds, the run's description and effective
 * configuration ({group: {key: value or null}}), counts, step time and every
 * figure of the text summary.
 * Returns: (transfer full): pretty-printed JSON text with a final newline.
 */
char *weft_report_summary_json(const weft_report_t *rep);

/** weft_report_collectives_csv: (transfer full): collectives.csv (doc/outputs.md). */
char *weft_report_collectives_csv(const weft_report_t *rep);

/** weft_report_links_csv: (transfer full): links.csv, one row per directed edge. */
char *weft_report_links_csv(const weft_report_t *rep);

/**
 * weft_report_links_timeseries_csv:
 * Returns: (transfer full) (nullable): links_timeseries.csv (time_us, link rank,
 * link, utilization of the busiest links at each sample), or NULL when no
 * series was recorded (no interval, or the analytical model).
 */
char *weft_report_links_timeseries_csv(const weft_report_t *rep);

/**
 * weft_report_write_files:
 * Writes summary.json, collectives.csv, links.csv and, with a series,
 * links_timeseries.csv into @dir (which exists), each by weft_output_write()
 * (core/output.h: to a temporary name, then renamed).
 * @error: WEFT_REPORT_ERROR_IO naming the file.
 */
gboolean weft_report_write_files(const weft_report_t *rep, const char *dir, GError **error);

/**
 * weft_report_write_timeline:
 * Writes the Chrome trace event JSON of the recorded nodes to @path (streamed
 * by weft_output_open(), core/output.h: a temporary file in the same
 * directory, then renamed; "-" is standard output): one process per
 * host (pid = host number, process_name "host N"; ranks whose GPU has no host
 * go to pid = the number of hosts, "no host"), one thread per (rank, stream)
 * (tid = rank x 8 + stream, thread_name "rank R compute"), one complete ("X")
 * event per kept node with ts and dur in microseconds (6 decimals: exact
 * picoseconds), collectives with their bytes, algorithm and protocol in args;
 * with a series, one counter ("C") track per series link in the process
 * "links" (pid = hosts + 1), a sample where the value changes.
 * Requires options.timeline.
 * @error: WEFT_REPORT_ERROR_IO naming @path.
 */
gboolean weft_report_write_timeline(const weft_report_t *rep, const char *path, GError **error);

/**
 * weft_report_parse_ranks:
 * @text: comma-separated ranks and inclusive ranges: "0-7,12".
 * @n_ranks: ranks in the workload (every rank must be < it; G_MAXUINT to check the
 *   syntax only, with @mask NULL).
 * @mask: (out) (transfer full) (optional): n_ranks flags, 1 for a kept rank.
 * @error: WEFT_REPORT_ERROR_VALUE quoting @text and the bad part.
 */
gboolean weft_report_parse_ranks(const char *text, guint n_ranks, guint8 **mask, GError **error);

/**
 * weft_report_parse_window:
 * @text: "START:END" with units (core/units.h), e.g. "1ms:3ms"; START may be
 *   empty (0), END may be empty (no end).
 * @start_ps, @end_ps: (out): the window; *end_ps = 0 for no end.
 * @error: WEFT_REPORT_ERROR_VALUE quoting @text.
 */
gboolean weft_report_parse_window(const char *text, weft_time_t *start_ps, weft_time_t *end_ps,
                                  GError **error);

/* ---- progress ------------------------------------------------------------------------ */

/**
 * weft_report_progress_attach:
 * @p: a progress reporter (core/progress.h); it must outlive the run, or be
 *   detached first with weft_sim_set_progress(@sim, 0, NULL, NULL).
 * @sim: the simulation.
 * Installs @p as @sim's progress hook (weft_sim_set_progress(), a look at the
 * wall clock every 4096 events): "simulated 0.012345 s, 1,234,567 events" and
 * the fraction of trace nodes done (weft_sim_set_work_total()).
 */
void weft_report_progress_attach(weft_progress_t *p, weft_sim_t *sim);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_report_t, weft_report_free)

G_END_DECLS

#endif /* WEFT_REPORT_REPORT_H */
