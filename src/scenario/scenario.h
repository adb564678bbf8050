/* SPDX-License-Identifier: MIT */
/*
 * Scenarios: one complete description of a run.
 *
 * A scenario is an INI file (GLib GKeyFile) with the groups [cluster],
 * [workload], [transformer], [collectives], [network], [compute], [faults] and
 * [output]; any
 * key can be overridden from the command line with --set group.key=value. An
 * unknown group or key is an error that lists the valid ones; a value is
 * checked (unit, range, choice) when it is set, so a bad override fails before
 * anything runs. doc/scenario.md lists every key with its unit and default.
 *
 * [cluster] describes the cluster inline with the keys of a cluster file
 * (doc/clusters.md), or names one with `file = PATH`: an INI cluster file's
 * [cluster] keys are then read in first and the scenario's own keys and --set
 * overrides apply on top; an ASTRA-sim YAML or GraphML file is used as it is.
 * Relative paths in a scenario file are relative to that file's directory;
 * on the command line, to the working directory.
 *
 * The effective configuration (every key of every group with its final value,
 * defaults included, paths resolved) is what --show-config prints and what is
 * saved with the results: running it again reproduces the run.
 */
#ifndef WEFT_SCENARIO_SCENARIO_H
#define WEFT_SCENARIO_SCENARIO_H

#include <glib.h>
#include <stdio.h>

#include "coll/tuning.h"
#include "replay/replay.h"
#include "report/report.h"
#include "topo/placement.h"
#include "topo/topo.h"
#include "workload/gen.h"
#include "workload/workload.h"

G_BEGIN_DECLS

#define WEFT_SCENARIO_ERROR (weft_scenario_error_quark())
GQuark weft_scenario_error_quark(void);

typedef enum {
    WEFT_SCENARIO_ERROR_PARSE, /* not valid INI, or an override not of the form group.key=value */
    WEFT_SCENARIO_ERROR_KEY,   /* unknown group or key (the message lists the valid ones) */
    WEFT_SCENARIO_ERROR_VALUE, /* a value that does not parse or is out of range */
    WEFT_SCENARIO_ERROR_IO,    /* a file cannot be read or written */
} weft_scenario_error_t;

typedef struct weft_scenario weft_scenario_t;

/** weft_scenario_new: a scenario with every key at its default. */
weft_scenario_t *weft_scenario_new(void);

/** weft_scenario_free: NULL is a no-op. */
void weft_scenario_free(weft_scenario_t *sc);

/**
 * weft_scenario_load:
 * Reads scenario file @path into @sc (keys it sets replace earlier values).
 * @error: WEFT_SCENARIO_ERROR_* naming the file, group, key and value.
 */
gboolean weft_scenario_load(weft_scenario_t *sc, const char *path, GError **error);

/**
 * weft_scenario_set:
 * @assignment: "group.key=value" (spaces around '=' allowed).
 * @error: WEFT_SCENARIO_ERROR_PARSE, _KEY or _VALUE naming the assignment.
 */
gboolean weft_scenario_set(weft_scenario_t *sc, const char *assignment, GError **error);

/** weft_scenario_set_value: as weft_scenario_set() with the parts given apart. */
gboolean weft_scenario_set_value(weft_scenario_t *sc, const char *group, const char *key,
                                 const char *value, GError **error);

/**
 * weft_scenario_unset: gives key @group.@key (a key of the table, not a
 * cluster builder key) back its default, as if it had never been set. For
 * replays that must not write what the scenario asks for (output.dir,
 * output.timeline), such as the step-time replays of weft train.
 */
void weft_scenario_unset(weft_scenario_t *sc, const char *group, const char *key);

/** weft_scenario_get: (transfer none): the current text of group.key, or NULL if unset. */
const char *weft_scenario_get(const weft_scenario_t *sc, const char *group, const char *key);

/**
 * weft_scenario_to_ini:
 * Returns: (transfer full): the effective configuration as INI text, groups and
 * keys in a fixed order, with a header comment naming the weft version.
 */
char *weft_scenario_to_ini(const weft_scenario_t *sc);

/**
 * weft_scenario_check:
 * Checks what cannot be checked key by key: exactly one workload is described
 * (workload.trace, the [transformer] keys of a step generated in memory, or
 * workload.collective with its collective_bytes; comm_groups and the
 * collective_* keys only with their own kind of workload); there is a
 * cluster (cluster.file or inline keys); an ASTRA-sim YAML or GraphML
 * cluster.file comes with no other [cluster] key; placement = file has a
 * placement_file. The cluster builder keys themselves are checked when the
 * cluster is built. weft_scenario_run() calls this first.
 * @error: WEFT_SCENARIO_ERROR_KEY naming the scenario file and key.
 * Returns: TRUE if the scenario can be run.
 */
gboolean weft_scenario_check(const weft_scenario_t *sc, GError **error);

/**
 * weft_scenario_has_workload: TRUE if workload.trace, workload.collective or
 * any [transformer] key is set (whether they agree is weft_scenario_check()'s).
 */
gboolean weft_scenario_has_workload(const weft_scenario_t *sc);

/** [workload]'s own keys, resolved (strings borrowed from the scenario). */
typedef struct {
    const char *trace;       /* Chakra prefix, text workload or generator spec; NULL: none */
    const char *comm_groups; /* NULL: none */
    const char *pg_size;     /* "NAME=N,..." (weft_workload_parse_pg_sizes()); NULL: none */
    guint replicate;         /* when replicate_given: copies of a one-rank trace */
    gboolean replicate_given;
    const char *collective;  /* workload.collective as given; NULL: no such workload */
    weft_coll_op_t collective_op;
    guint64 collective_bytes; /* 0: unset */
    guint collective_iterations;
    guint collective_ranks; /* when collective_ranks_given; else every GPU */
    gboolean collective_ranks_given;
    const char *jobs;           /* workload.jobs: a jobs file (scenario/jobs.h); NULL: none */
    const char *jobs_placement; /* workload.jobs_placement; NULL: each job's own */
} weft_scenario_workload_t;

/** [output], resolved. */
typedef struct {
    const char *dir, *timeline, *timeline_ranks; /* NULL: unset */
    weft_time_t window_start_ps, window_end_ps;  /* output.timeline_window; 0, 0: all */
    weft_time_t link_interval_ps;                /* output.link_series; 0: none */
} weft_scenario_output_t;

/**
 * The typed configuration of a scenario: the composition of the module tables
 * (core/keyfile.h; doc/scenario.md lists them), resolved once by
 * weft_scenario_resolve(). Strings are borrowed from the scenario and valid
 * until it changes or is freed.
 */
typedef struct {
    const char *cluster_file; /* NULL: the cluster is described inline */
    const char *system_file;  /* system.file: ASTRA-sim's system JSON; NULL: none */
    weft_scenario_workload_t workload;
    weft_place_config_t placement;   /* topo/placement.h */
    weft_gen_spec_t transformer;     /* workload/gen.h; used when transformer_given */
    gboolean transformer_given;      /* some [transformer] key is set */
    weft_coll_settings_t collectives; /* coll/tuning.h */
    weft_replay_config_t replay;     /* replay/replay.h: detail, duration_scale */
    weft_net_options_t network;      /* net/net.h: model, update */
    gint64 ecmp_seed;
    const char *faults_file, *faults_events;
    weft_scenario_output_t output;
} weft_scenario_config_t;

/**
 * weft_scenario_key: (transfer none) (nullable): the table's row of @group.@key
 * (NULL for a cluster builder key or an unknown one). O(keys).
 */
const weft_key_t *weft_scenario_key(const char *group, const char *key);

/**
 * weft_scenario_keys_help: (transfer full): every key of the table, one line
 * each ("  group.key  what it takes (default D)"), for --help: what --set takes.
 */
char *weft_scenario_keys_help(void);

/**
 * weft_scenario_resolve:
 * Fills @cfg with every key's typed value: defaults first, then the keys set,
 * in the table's order (the [transformer] preset before what overrides it).
 * Values were checked when set; an error here is an internal inconsistency.
 * Complexity: O(keys).
 * Returns: FALSE with WEFT_SCENARIO_ERROR_VALUE naming the key.
 */
gboolean weft_scenario_resolve(const weft_scenario_t *sc, weft_scenario_config_t *cfg,
                               GError **error);

/** Everything one replay of a scenario produced. */
typedef struct {
    const weft_topo_t *topo;      /* the cluster (read only: it may be shared) */
    weft_topo_t *topo_owned;      /* the same when the run built it (freed with the run); NULL
                                     when weft_scenario_run_options_t.cluster lent it */
    weft_workload_t *workload;    /* the workload */
    guint *rank_gpu;              /* placement: rank -> GPU number */
    weft_replay_result_t *replay; /* the results */
    char *network_model;          /* name of the network model used */
    char *placement;  /* "in-order", "random (seed 7)", "file PATH", ... */
    guint chunks;    /* pipeline chunks per collective (collectives.chunks) */
    /* collectives.tuning resolved to nccl, and whether collectives.chunks was given
     * (under tuning it then forces the chunk count; otherwise NCCL's tuning chooses it
     * per collective and chunks is unused) */
    gboolean nccl_tuning;
    guint nccl_version; /* weft_coll_nccl_version_t of collectives.nccl_version */
    gboolean chunks_given;
    /* collectives.tuning = auto chose the plain model: the cluster is abstract (topo.h:
     * weft_topo_is_abstract()) */
    gboolean abstract;
    /* the plain model's forced algorithms ("all_reduce halving_doubling, ..."), NULL when
     * every collective runs its default (ring; direct for all-to-all, gather, scatter) */
    char *plain_forced;
    /* collectives.detail = coarse: NULL when applied (the summary counts the aggregates), else
     * why it did not apply (a static string); unused for other values */
    gboolean coarse_asked;
    const char *coarse_skipped;
    double duration_scale; /* compute.duration_scale */
    char *cluster_label;   /* cluster.file (as typed on the command line, else absolute) or "NAME
                              (inline)" */
    char *trace_label;     /* workload.trace, likewise; or what was generated ("transformer
                              model=... tp=...", "all_reduce of 64MiB x 1 on 8 ranks") */
    /* the report (src/report), when weft_scenario_run_full() was asked for one or
     * [output] timeline / link_series is set; NULL otherwise */
    weft_report_t *report;
    /* system.file read (coll/astra_system.h); NULL without one. Its warnings (keys not
     * honored) are appended to workload->warnings, so every summary says them. */
    weft_astra_system_t *astra;
    /* workload.jobs: the jobs, their results and (when run alone) their slowdowns
     * (scenario/jobs.h); NULL for a single workload */
    struct weft_jobs *jobs;
} weft_scenario_run_t;

/** Options of weft_scenario_run_full(); zero-initialize, then set what differs. */
typedef struct {
    /* attach a report (src/report/report.h): the summary gains its sections (per-rank
     * distribution, most expensive collectives, busiest links, choices) and output.dir
     * gains summary.json, collectives.csv and links.csv (doc/outputs.md) */
    gboolean report;
    /* (nullable) the progress reporter (core/progress.h) the replay reports to: simulated
     * time, events and the fraction of trace nodes done; not freed */
    weft_progress_t *progress;
    /* (nullable) use this cluster instead of building one: it must be what the scenario's
     * [cluster] keys (and cluster.file) describe (weft_scenario_build_cluster() of an
     * identical [cluster]). It is shared, only read, and not freed: it must outlive the run
     * (weft_scenario_run_t.topo points to it). Runs in several threads may share one. */
    const weft_topo_t *cluster;
} weft_scenario_run_options_t;

/**
 * weft_scenario_run:
 * Builds the cluster, reads and checks the workload, places the ranks and
 * replays one step; then, if [output] dir is set, writes the effective
 * configuration and the results there (each file to a temporary name, then
 * renamed). The output directory is checked for writability before the
 * simulation starts.
 * Returns: (transfer full): the run, or NULL with the first error.
 */
weft_scenario_run_t *weft_scenario_run(const weft_scenario_t *sc, GError **error);

/**
 * weft_scenario_run_full:
 * As weft_scenario_run(), with @opts (nullable: as weft_scenario_run()).
 * A report is attached when @opts asks for one or [output] timeline or
 * link_series is set; then output.dir also gets the report's files and
 * output.timeline the Chrome trace (its directory is created and checked for
 * writability before the simulation starts, like output.dir).
 * @error: as weft_scenario_run(); also WEFT_SCENARIO_ERROR_VALUE when
 *   output.timeline_ranks names a rank the workload lacks.
 */
weft_scenario_run_t *weft_scenario_run_full(const weft_scenario_t *sc,
                                            const weft_scenario_run_options_t *opts,
                                            GError **error);

/** weft_scenario_run_free: NULL is a no-op. A cluster lent by the options is not freed. */
void weft_scenario_run_free(weft_scenario_run_t *run);

/**
 * weft_scenario_build_cluster:
 * Builds the cluster the scenario's [cluster] group describes (cluster.file and the
 * inline keys, as weft_scenario_run() does), for runs that share it
 * (weft_scenario_run_options_t.cluster). Logs "cluster NAME built: ..." at debug level.
 * @error: WEFT_SCENARIO_ERROR_KEY or _VALUE naming the scenario and [cluster]
 *   (the builders' error codes mapped as weft_scenario_run() maps them).
 * Returns: (transfer full): a finalized cluster, or NULL.
 * Time: the builder's, O(V + E) plus the finalize checks.
 */
weft_topo_t *weft_scenario_build_cluster(const weft_scenario_t *sc, GError **error);

/**
 * weft_scenario_run_summary:
 * The report `weft replay` prints (and [output] saves as summary.txt): cluster,
 * workload, placement, network, counts, step time, then per rank finish,
 * compute, exposed communication and idle time in microseconds (6 decimals).
 * Returns: (transfer full): the text.
 */
char *weft_scenario_run_summary(const weft_scenario_run_t *run);

/**
 * weft_scenario_i_parse_quantity: (internal; used by the key table, public for tests)
 * Parses @text as a quantity with its unit (core/units.h) of @type "rate"
 * (result in bytes/s), "time" (picoseconds) or "bytes".
 * @error: WEFT_SCENARIO_ERROR_VALUE quoting @text (a missing unit included).
 */
gboolean weft_scenario_i_parse_quantity(const char *type, const char *text, double *value,
                                        GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_scenario_t, weft_scenario_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_scenario_run_t, weft_scenario_run_free)

G_END_DECLS

#endif /* WEFT_SCENARIO_SCENARIO_H */
