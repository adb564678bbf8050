/* SPDX-License-Identifier: MIT */
/*
 * Scenario files: the composition of the module key tables (core/keyfile.h),
 * values checked against them when they are set, the effective configuration
 * written back in the tables' order, and its resolution into typed structs
 * (weft_scenario_resolve()). Running is scenario_run.c's.
 * [cluster] is the one open group: besides `file` it takes the keys of a
 * cluster file, which the cluster builders (topo_ini.c) check, not this file.
 */
#define G_LOG_DOMAIN "weft-scenario"

#include "scenario/scenario.h"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "coll/tuning.h"
#include "core/keyfile.h"
#include "core/sim.h"
#include "core/units.h"
#include "fault/step.h"
#include "hw/hw.h"
#include "net/net.h"
#include "report/report.h"
#include "topo/placement.h"
#include "scenario/scenario_private.h"
#include "workload/gen.h"

G_DEFINE_QUARK(weft - scenario - error - quark, weft_scenario_error)

/* ---- the table of keys -------------------------------------------------------------- */

/* [output] timeline_ranks: the syntax here, the range when the workload is known. */
static gboolean
check_timeline_ranks(const char *text, GError **error)
{
    return weft_report_parse_ranks(text, G_MAXUINT, NULL, error);
}

static gboolean
check_timeline_window(const char *text, GError **error)
{
    weft_time_t a = 0, b = 0;
    return weft_report_parse_window(text, &a, &b, error);
}

static gboolean
apply_timeline_window(void *obj, const char *text, GError **error)
{
    weft_scenario_config_t *c = obj;
    return weft_report_parse_window(text, &c->output.window_start_ps, &c->output.window_end_ps,
                                    error);
}

/* [faults] events: the lines' syntax now; their targets when the cluster is built. */
static gboolean
check_fault_events(const char *text, GError **error)
{
    return weft_fault_check_text(text, "faults.events", TRUE, error);
}

static gboolean
check_link_series(const char *text, GError **error)
{
    weft_time_t t = 0;
    if (!weft_units_parse_time(text, &t, error)) {
        return FALSE;
    }
    if (t <= 0) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                    "the sampling interval must be > 0");
        return FALSE;
    }
    return TRUE;
}

static gboolean
apply_link_series(void *obj, const char *text, GError **error)
{
    weft_scenario_config_t *c = obj;
    return weft_units_parse_time(text, &c->output.link_interval_ps, error);
}

/* workload.pg_size: NAME=N,... (workload/workload.h). */
static gboolean
check_pg_size(const char *text, GError **error)
{
    g_autoptr(GError) werr = NULL;
    if (weft_workload_parse_pg_sizes(text, NULL, &werr)) {
        return TRUE;
    }
    g_set_error_literal(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE, werr->message);
    return FALSE;
}

/* workload.collective: an operation weft's collectives support (coll/coll.h). */
static gboolean
check_coll_op(const char *text, GError **error)
{
    weft_coll_op_t op;
    if (weft_coll_op_from_name(text, &op)) {
        return TRUE;
    }
    GString *valid = g_string_new(NULL);
    for (guint i = 0; i < WEFT_COLL_N_OPS; i++) {
        g_string_append_printf(valid, "%s%s", i > 0 ? ", " : "",
                               weft_coll_op_name((weft_coll_op_t)i));
    }
    g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                "unknown collective; expected one of %s", valid->str);
    g_string_free(valid, TRUE);
    return FALSE;
}

/* workload.jobs_placement: a placement every job can take (scenario/jobs.h). */
static gboolean
check_jobs_placement(const char *text, GError **error)
{
    if (strcmp(text, "packed") == 0 || strcmp(text, "spread") == 0 ||
        strcmp(text, "interleaved") == 0) {
        return TRUE;
    }
    g_set_error_literal(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "unknown job placement; expected one of packed, spread, interleaved");
    return FALSE;
}

static gboolean
apply_coll_op(void *obj, const char *text, GError **error)
{
    weft_scenario_config_t *c = obj;
    return weft_coll_op_from_name(text, &c->workload.collective_op) || check_coll_op(text, error);
}

/*
 * The upper bound of workload.collective_iterations guards against typos: each
 * rank keeps a communicator and a peer entry per iteration, so 10,000
 * iterations on 16,384 ranks are already 1.3 GB.
 */
#define MAX_COLL_ITERATIONS 10000

#define F(member) WEFT_KEY_FIELD(weft_scenario_config_t, member)

/* The scenario's own keys (what it interprets itself), in three runs between module tables. */
static const weft_key_t own_cluster_trace[] = {
    {"cluster", "file", WEFT_KEY_PATH, NULL,
     "cluster file: weft INI, ASTRA-sim network YAML or GraphML; or describe the cluster inline "
     "with the keys of an INI cluster file",
     .field = F(cluster_file)},
    {"workload", "trace", WEFT_KEY_PATH, NULL,
     "Chakra trace prefix (PREFIX.0.et, ...), text workload or generator spec; or describe the "
     "workload with [transformer] or workload.collective",
     .field = F(workload.trace)},
    {"workload", "comm_groups", WEFT_KEY_PATH, NULL,
     "communicator groups as JSON {\"1\": [0,1,...], ...} (optional)",
     .field = F(workload.comm_groups)},
    {"workload", "pg_size", WEFT_KEY_STRING, NULL,
     "process-group sizes NAME=N,... (the world is 0): each such group becomes groups of N "
     "consecutive ranks (weft replay --pg-size; doc/formats.md)",
     .check = check_pg_size, .field = F(workload.pg_size)},
    {"workload", "replicate", WEFT_KEY_UINT, NULL,
     "copy a one-rank trace to ranks 0..N-1; groups of unknown size span them all "
     "(weft replay --replicate; doc/formats.md)",
     .imin = 1, .imax = 1 << 20, .field = F(workload.replicate),
     .given = F(workload.replicate_given)},
    {"system", "file", WEFT_KEY_PATH, NULL,
     "ASTRA-sim system JSON: its collective implementations, chunks, endpoint delay and "
     "reduction cost decide all-reduce, all-gather, reduce-scatter and all-to-all "
     "(doc/formats.md); needs the plain collective model (collectives.tuning auto on an "
     "abstract cluster, or off)",
     .field = F(system_file)},
    {"workload", "jobs", WEFT_KEY_PATH, NULL,
     "instead of one workload, several jobs sharing the cluster: a jobs file with a [job.NAME] "
     "group per job (its workload, placement, start, iterations; doc/replay.md, \"Several "
     "jobs on one fabric\")",
     .field = F(workload.jobs)},
    {"workload", "jobs_placement", WEFT_KEY_STRING, NULL,
     "with workload.jobs: the placement of every job instead of the jobs file's: packed, "
     "spread or interleaved (for studies)",
     .check = check_jobs_placement, .field = F(workload.jobs_placement)},
};

static const weft_key_t own_collective[] = {
    {"workload", "collective", WEFT_KEY_STRING, NULL,
     "instead of a trace, one collective: all_reduce, all_gather, reduce_scatter, all_to_all, "
     "broadcast, reduce, ... (coll/coll.h)",
     .check = check_coll_op, .apply = apply_coll_op, .field = F(workload.collective)},
    {"workload", "collective_bytes", WEFT_KEY_BYTES, NULL,
     "its size with a unit, e.g. 64MiB: comm_size, as doc/collectives.md defines it per "
     "operation; > 0 (a barrier takes none)",
     .nmin = 0.0, .nmin_open = TRUE, .field = F(workload.collective_bytes)},
    {"workload", "collective_iterations", WEFT_KEY_UINT, "1",
     "times each rank runs the collective, each after the previous one", .imin = 1,
     .imax = MAX_COLL_ITERATIONS, .field = F(workload.collective_iterations)},
    {"workload", "collective_ranks", WEFT_KEY_UINT, NULL,
     "ranks taking part (ranks 0..N-1, placed as workload.placement says); unset: every GPU of "
     "the cluster",
     .imin = 1, .imax = G_MAXUINT32, .field = F(workload.collective_ranks),
     .given = F(workload.collective_ranks_given)},
};

static const weft_key_t own_run[] = {
    {"network", "ecmp_seed", WEFT_KEY_INT, "0",
     "seed mixed into the ECMP hash that picks among equal-cost paths", .imin = 0,
     .imax = G_MAXINT64, .field = F(ecmp_seed)},
    {"faults", "file", WEFT_KEY_PATH, NULL,
     "fault schedule of the step: one fault per line, `TIME KIND TARGET ...` (doc/failures.md); "
     "unset: none",
     .field = F(faults_file)},
    {"faults", "events", WEFT_KEY_STRING, NULL,
     "faults inline, as lines of a fault file separated by ';', e.g. `1ms link_down leaf0 "
     "spine0; 2ms link_up leaf0 spine0`; unset: none",
     .check = check_fault_events, .field = F(faults_events)},
    {"output", "dir", WEFT_KEY_PATH, NULL,
     "directory for scenario.ini, ranks.csv, layers.csv and summary.txt (created if missing), "
     "and with weft replay summary.json, collectives.csv, links.csv (doc/outputs.md); unset: "
     "print only",
     .field = F(output.dir)},
    {"output", "timeline", WEFT_KEY_PATH, NULL,
     "Chrome trace event JSON of the run (Perfetto, chrome://tracing); unset: none",
     .field = F(output.timeline)},
    {"output", "timeline_ranks", WEFT_KEY_STRING, NULL,
     "ranks kept in the timeline, e.g. 0-7,12; unset: all", .check = check_timeline_ranks,
     .field = F(output.timeline_ranks)},
    {"output", "timeline_window", WEFT_KEY_STRING, NULL,
     "keep timeline nodes overlapping START:END, e.g. 1ms:3ms; unset: all",
     .check = check_timeline_window, .apply = apply_timeline_window},
    {"output", "link_series", WEFT_KEY_STRING, NULL,
     "sample link utilization every INTERVAL (flow model): links_timeseries.csv and timeline "
     "counters; unset: none",
     .check = check_link_series, .apply = apply_link_series},
};

/*
 * The scenario is the composition of the module tables: each section's rows
 * store into the part of weft_scenario_config_t at @base. Within a group, the
 * keys keep the order of this list (the effective configuration's order); the
 * [transformer] preset (its first row) applies before the keys that override it.
 */
typedef struct {
    const weft_key_t *rows;
    const guint *n;
    gsize base;
} section_t;

static const guint n_own_cluster_trace = G_N_ELEMENTS(own_cluster_trace);
static const guint n_own_collective = G_N_ELEMENTS(own_collective);
static const guint n_own_run = G_N_ELEMENTS(own_run);

static const section_t sections[] = {
    {own_cluster_trace, &n_own_cluster_trace, 0},
    {weft_place_keys, &weft_place_n_keys, G_STRUCT_OFFSET(weft_scenario_config_t, placement)},
    {own_collective, &n_own_collective, 0},
    {weft_gen_keys, &weft_gen_n_keys, G_STRUCT_OFFSET(weft_scenario_config_t, transformer)},
    {weft_coll_keys, &weft_coll_n_keys, G_STRUCT_OFFSET(weft_scenario_config_t, collectives)},
    {weft_net_keys, &weft_net_n_keys, G_STRUCT_OFFSET(weft_scenario_config_t, network)},
    {weft_replay_keys, &weft_replay_n_keys, G_STRUCT_OFFSET(weft_scenario_config_t, replay)},
    {own_run, &n_own_run, 0},
};

/* The groups, in the order they are written: that of their first key in the sections. */
static const char **groups;

/* The composed table: every row with the offset of its section, in the sections' order. */
typedef struct {
    const weft_key_t *row;
    gsize base;
} flat_key;

static const flat_key *flat;
static weft_key_t *flat_rows; /* copies of the rows, for weft_keys_find() and weft_keys_list() */
static guint n_keys;

static void
compose_keys(void)
{
    static gsize once = 0;
    if (g_once_init_enter(&once)) {
        guint n = 0;
        for (guint s = 0; s < G_N_ELEMENTS(sections); s++) {
            n += *sections[s].n;
        }
        flat_key *f = g_new0(flat_key, n);
        weft_key_t *rows = g_new0(weft_key_t, n);
        guint k = 0;
        for (guint s = 0; s < G_N_ELEMENTS(sections); s++) {
            for (guint i = 0; i < *sections[s].n; i++, k++) {
                f[k].row = &sections[s].rows[i];
                f[k].base = sections[s].base;
                rows[k] = sections[s].rows[i];
            }
        }
        GPtrArray *g = g_ptr_array_new();
        for (guint i = 0; i < n; i++) {
            if (!g_ptr_array_find_with_equal_func(g, rows[i].group, g_str_equal, NULL)) {
                g_ptr_array_add(g, (gpointer)rows[i].group);
            }
        }
        g_ptr_array_add(g, NULL);
        groups = (const char **)g_ptr_array_free(g, FALSE);
        flat = f;
        flat_rows = rows;
        n_keys = n;
        g_once_init_leave(&once, 1);
    }
}

/* ---- the scenario ----------------------------------------------------------------------- */

static void
kv_pair_free(gpointer p)
{
    kv_pair *kv = p;
    g_free(kv->key);
    g_free(kv->value);
    g_free(kv);
}

weft_scenario_t *
weft_scenario_new(void)
{
    compose_keys();
    weft_scenario_t *sc = g_new0(weft_scenario_t, 1);
    sc->value = g_new0(char *, n_keys);
    sc->given = g_new0(char *, n_keys);
    sc->cluster_own = g_ptr_array_new_with_free_func(kv_pair_free);
    sc->cluster_file = g_ptr_array_new_with_free_func(kv_pair_free);
    return sc;
}

void
weft_scenario_free(weft_scenario_t *sc)
{
    if (sc == NULL) {
        return;
    }
    for (guint i = 0; i < n_keys; i++) {
        g_free(sc->value[i]);
        g_free(sc->given[i]);
    }
    g_free(sc->value);
    g_free(sc->given);
    g_ptr_array_unref(sc->cluster_own);
    g_ptr_array_unref(sc->cluster_file);
    g_free(sc->source);
    g_free(sc);
}

static gint
find_key(const char *group, const char *key)
{
    const weft_key_t *row = weft_keys_find(flat_rows, n_keys, group, key);
    return row != NULL ? (gint)(row - flat_rows) : -1;
}

static kv_pair *
find_pair(GPtrArray *pairs, const char *key)
{
    for (guint i = 0; i < pairs->len; i++) {
        kv_pair *kv = g_ptr_array_index(pairs, i);
        if (strcmp(kv->key, key) == 0) {
            return kv;
        }
    }
    return NULL;
}

static void
set_pair(GPtrArray *pairs, const char *key, const char *value)
{
    kv_pair *kv = find_pair(pairs, key);
    if (kv == NULL) {
        kv = g_new0(kv_pair, 1);
        kv->key = g_strdup(key);
        g_ptr_array_add(pairs, kv);
    }
    g_free(kv->value);
    kv->value = g_strdup(value);
}

static const char *
current(const weft_scenario_t *sc, guint k)
{
    return sc->value[k] != NULL ? sc->value[k] : flat[k].row->dflt;
}

/* The index of group.key, which must be a key of the table. */
static guint
key_index(const char *group, const char *key)
{
    gint k = find_key(group, key);
    g_assert(k >= 0);
    return (guint)k;
}

static char *
valid_groups_text(void)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; groups[i] != NULL; i++) {
        g_string_append_printf(s, "%s[%s]", i > 0 ? ", " : "", groups[i]);
    }
    return g_string_free(s, FALSE);
}

/* A GKeyFile key name: what GKeyFile itself accepts, minus the odd characters. */
static gboolean
is_key_name(const char *key)
{
    if (key[0] == '\0') {
        return FALSE;
    }
    for (const char *p = key; *p != '\0'; p++) {
        if (!g_ascii_isalnum(*p) && *p != '_' && *p != '-' && *p != '.') {
            return FALSE;
        }
    }
    return TRUE;
}

/* ---- cluster files ------------------------------------------------------------------------- */

/*
 * The format of a cluster file, chosen as weft_topo_load() chooses it: *.yml,
 * *.yaml or a first significant line "topology:" is ASTRA-sim YAML; *.graphml,
 * *.xml or a first significant character '<' is GraphML; all else is INI.
 */
static cluster_format
detect_format(const char *path, const char *text)
{
    if (g_str_has_suffix(path, ".yml") || g_str_has_suffix(path, ".yaml")) {
        return CLUSTER_FILE_YAML;
    }
    if (g_str_has_suffix(path, ".graphml") || g_str_has_suffix(path, ".xml")) {
        return CLUSTER_FILE_GRAPHML;
    }
    const char *s = text;
    while (*s != '\0') {
        while (g_ascii_isspace(*s)) {
            s++;
        }
        if (*s == '#' || *s == ';') {
            s = strchr(s, '\n');
            if (s == NULL) {
                break;
            }
            continue;
        }
        if (*s == '<') {
            return CLUSTER_FILE_GRAPHML;
        }
        if (g_str_has_prefix(s, "topology:")) {
            return CLUSTER_FILE_YAML;
        }
        break;
    }
    return CLUSTER_FILE_INI;
}

/* Reads the cluster file @path: its format and, for INI, its [cluster] keys into @pairs. */
static gboolean
read_cluster_file(const char *path, cluster_format *format, GPtrArray *pairs, GError **error)
{
    g_autofree char *text = NULL;
    g_autoptr(GError) ioerr = NULL;
    if (!g_file_get_contents(path, &text, NULL, &ioerr)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO,
                    "cluster.file = \"%s\": cannot read: %s", path, ioerr->message);
        return FALSE;
    }
    *format = detect_format(path, text);
    g_ptr_array_set_size(pairs, 0);
    if (*format != CLUSTER_FILE_INI) {
        return TRUE;
    }
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) kerr = NULL;
    if (!weft_keyfile_load_data(kf, text, path, &kerr)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_PARSE,
                    "cluster.file = \"%s\": not a valid INI cluster file: %s", path, kerr->message);
        return FALSE;
    }
    g_auto(GStrv) kf_groups = g_key_file_get_groups(kf, NULL);
    for (guint i = 0; kf_groups[i] != NULL; i++) {
        if (strcmp(kf_groups[i], "cluster") != 0) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                        "cluster.file = \"%s\": unknown group [%s]; valid groups: [cluster]", path,
                        kf_groups[i]);
            return FALSE;
        }
    }
    if (!g_key_file_has_group(kf, "cluster")) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "cluster.file = \"%s\": missing group [cluster]", path);
        return FALSE;
    }
    g_auto(GStrv) names = g_key_file_get_keys(kf, "cluster", NULL, NULL);
    for (guint i = 0; names[i] != NULL; i++) {
        g_autofree char *v = g_key_file_get_value(kf, "cluster", names[i], NULL);
        set_pair(pairs, names[i], g_strstrip(v));
    }
    return TRUE;
}

/* ---- setting values ------------------------------------------------------------------------- */

gboolean
weft_scenario_i_parse_quantity(const char *type, const char *text, double *value, GError **error)
{
    g_return_val_if_fail(type != NULL && text != NULL && value != NULL, FALSE);
    static const char *const quantity_names[] = {"rate", "time", "bytes", NULL};
    static const weft_enum_t quantity_enum = {"quantity", quantity_names};
    static const weft_key_type_t types[] = {WEFT_KEY_RATE, WEFT_KEY_TIME, WEFT_KEY_BYTES};
    gint t = 0;
    g_return_val_if_fail(weft_enum_from_name(&quantity_enum, type, &t, NULL), FALSE);
    GError *e = NULL;
    if (!weft_keys_parse_quantity(types[t], text, value, &e)) {
        g_set_error_literal(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE, e->message);
        g_error_free(e);
        return FALSE;
    }
    return TRUE;
}

/* The engine's errors carry the scenario's codes (keyfile.h); they are reported as such. */
static void
scenario_error(GError **error, GError *e)
{
    g_set_error_literal(error, WEFT_SCENARIO_ERROR, e->code, e->message);
    g_error_free(e);
}

/*
 * Sets group.key = @value; relative paths resolve against @base_dir (NULL: the
 * working directory). Messages are prefixed by the caller.
 */
static gboolean
set_internal(weft_scenario_t *sc, const char *group, const char *key, const char *value,
             const char *base_dir, GError **error)
{
    if (!g_strv_contains((const char *const *)groups, group)) {
        g_autofree char *valid = valid_groups_text();
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "unknown group [%s]; valid groups: %s", group, valid);
        return FALSE;
    }
    if (!is_key_name(key)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_PARSE,
                    "[%s] \"%s\" is not a key name (letters, digits, '_', '-', '.')", group, key);
        return FALSE;
    }
    if (strchr(value, '\n') != NULL || strchr(value, '\r') != NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                    "%s.%s: a value is one line of text", group, key);
        return FALSE;
    }
    g_autofree char *text = g_strstrip(g_strdup(value));
    gint k = find_key(group, key);
    if (k < 0 && strcmp(group, "cluster") == 0) {
        /* A cluster builder key: the builders check it when the cluster is built. */
        set_pair(sc->cluster_own, key, text);
        return TRUE;
    }
    if (k < 0) {
        g_autofree char *valid = weft_keys_list(flat_rows, n_keys, group);
        g_autofree char *hint = weft_keys_suggest(flat_rows, n_keys, group, key);
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "unknown key %s.%s%s; valid keys of [%s]: %s", group, key,
                    hint != NULL ? hint : "", group, valid);
        return FALSE;
    }
    char *checked = NULL;
    GError *e = NULL;
    if (!weft_key_check(flat[k].row, text, base_dir, &checked, &e)) {
        scenario_error(error, e);
        return FALSE;
    }
    g_autofree char *stored = checked;
    if (flat[k].row == &own_cluster_trace[0]) { /* cluster.file */
        g_autoptr(GPtrArray) pairs = g_ptr_array_new_with_free_func(kv_pair_free);
        cluster_format format = CLUSTER_FILE_INI;
        if (stored != NULL && !read_cluster_file(stored, &format, pairs, error)) {
            return FALSE;
        }
        g_ptr_array_unref(sc->cluster_file);
        sc->cluster_file = g_steal_pointer(&pairs);
        sc->format = format;
    }
    g_free(sc->value[k]);
    sc->value[k] = g_steal_pointer(&stored);
    /* The report shows a path as typed on the command line (relative to the
     * working directory), and absolute when it came from a scenario file. */
    g_free(sc->given[k]);
    sc->given[k] = sc->value[k] == NULL ? NULL
                   : base_dir == NULL   ? g_strdup(text)
                                        : g_strdup(sc->value[k]);
    return TRUE;
}

void
weft_scenario_unset(weft_scenario_t *sc, const char *group, const char *key)
{
    g_return_if_fail(sc != NULL && group != NULL && key != NULL);
    gint k = find_key(group, key);
    g_return_if_fail(k >= 0);
    g_clear_pointer(&sc->value[k], g_free);
    g_clear_pointer(&sc->given[k], g_free);
}

gboolean
weft_scenario_set_value(weft_scenario_t *sc, const char *group, const char *key, const char *value,
                        GError **error)
{
    g_return_val_if_fail(sc != NULL && group != NULL && key != NULL && value != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    return set_internal(sc, group, key, value, NULL, error);
}

gboolean
weft_scenario_set(weft_scenario_t *sc, const char *assignment, GError **error)
{
    g_return_val_if_fail(sc != NULL && assignment != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    const char *eq = strchr(assignment, '=');
    g_autofree char *lhs = eq != NULL ? g_strndup(assignment, (gsize)(eq - assignment)) : NULL;
    char *dot = lhs != NULL ? strchr(g_strstrip(lhs), '.') : NULL;
    if (dot == NULL || dot == lhs || dot[1] == '\0') {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_PARSE,
                    "\"%s\": expected group.key=value", assignment);
        return FALSE;
    }
    *dot = '\0';
    if (!set_internal(sc, lhs, dot + 1, eq + 1, NULL, error)) {
        g_prefix_error(error, "--set %s: ", assignment);
        return FALSE;
    }
    return TRUE;
}

gboolean
weft_scenario_load(weft_scenario_t *sc, const char *path, GError **error)
{
    g_return_val_if_fail(sc != NULL && path != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) kerr = NULL;
    if (!weft_keyfile_load_file(kf, path, &kerr)) {
        gint code =
            kerr->domain == G_FILE_ERROR ? WEFT_SCENARIO_ERROR_IO : WEFT_SCENARIO_ERROR_PARSE;
        if (g_str_has_prefix(kerr->message, path)) {
            g_set_error_literal(error, WEFT_SCENARIO_ERROR, code, kerr->message);
        } else {
            g_set_error(error, WEFT_SCENARIO_ERROR, code, "%s: %s", path, kerr->message);
        }
        return FALSE;
    }
    g_autofree char *abs = g_canonicalize_filename(path, NULL);
    g_autofree char *dir = g_path_get_dirname(abs);
    g_auto(GStrv) kf_groups = g_key_file_get_groups(kf, NULL);
    for (guint i = 0; kf_groups[i] != NULL; i++) {
        g_auto(GStrv) names = g_key_file_get_keys(kf, kf_groups[i], NULL, NULL);
        if (!g_strv_contains((const char *const *)groups, kf_groups[i])) {
            g_autofree char *valid = valid_groups_text();
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                        "%s: unknown group [%s]; valid groups: %s", path, kf_groups[i], valid);
            return FALSE;
        }
        for (guint j = 0; names != NULL && names[j] != NULL; j++) {
            g_autofree char *v = g_key_file_get_value(kf, kf_groups[i], names[j], NULL);
            if (!set_internal(sc, kf_groups[i], names[j], v, dir, error)) {
                g_prefix_error(error, "%s: ", path);
                return FALSE;
            }
        }
    }
    g_free(sc->source);
    sc->source = g_strdup(path);
    return TRUE;
}

const char *
weft_scenario_get(const weft_scenario_t *sc, const char *group, const char *key)
{
    g_return_val_if_fail(sc != NULL && group != NULL && key != NULL, NULL);
    gint k = find_key(group, key);
    if (k >= 0) {
        return current(sc, (guint)k);
    }
    if (strcmp(group, "cluster") != 0) {
        return NULL;
    }
    kv_pair *kv = find_pair(sc->cluster_own, key);
    if (kv == NULL) {
        kv = find_pair(sc->cluster_file, key);
    }
    return kv != NULL ? kv->value : NULL;
}

/* The [cluster] keys the builders get: the file's, in its order, with the scenario's on top. */
GPtrArray *
weft_scenario_i_merged_cluster_keys(const weft_scenario_t *sc)
{
    GPtrArray *merged = g_ptr_array_new_with_free_func(kv_pair_free);
    for (guint i = 0; i < sc->cluster_file->len; i++) {
        kv_pair *kv = g_ptr_array_index(sc->cluster_file, i);
        set_pair(merged, kv->key, kv->value);
    }
    for (guint i = 0; i < sc->cluster_own->len; i++) {
        kv_pair *kv = g_ptr_array_index(sc->cluster_own, i);
        set_pair(merged, kv->key, kv->value);
    }
    return merged;
}

char *
weft_scenario_to_ini(const weft_scenario_t *sc)
{
    g_return_val_if_fail(sc != NULL, NULL);
    GString *s = g_string_new(NULL);
    g_string_append_printf(s,
                           "# weft %s: effective scenario configuration. Every key with its final "
                           "value,\n# defaults included; `weft replay THIS_FILE` runs it again.\n",
                           PACKAGE_VERSION);
    for (guint g = 0; groups[g] != NULL; g++) {
        const char *group = groups[g];
        g_string_append_printf(s, "\n[%s]\n", group);
        for (guint k = 0; k < n_keys; k++) {
            if (strcmp(flat[k].row->group, group) == 0) {
                weft_key_format(s, flat[k].row, current(sc, k));
            }
        }
        if (strcmp(group, "cluster") == 0) {
            g_autoptr(GPtrArray) merged = weft_scenario_i_merged_cluster_keys(sc);
            if (merged->len > 0) {
                g_string_append(s, "# cluster description (the file's keys, then overrides)\n");
            }
            for (guint i = 0; i < merged->len; i++) {
                kv_pair *kv = g_ptr_array_index(merged, i);
                g_string_append_printf(s, "%s = %s\n", kv->key, kv->value);
            }
        }
    }
    return g_string_free(s, FALSE);
}

const weft_key_t *
weft_scenario_key(const char *group, const char *key)
{
    g_return_val_if_fail(group != NULL && key != NULL, NULL);
    compose_keys();
    return weft_keys_find(flat_rows, n_keys, group, key);
}

char *
weft_scenario_keys_help(void)
{
    compose_keys();
    GString *s = g_string_new(NULL);
    for (guint g = 0; groups[g] != NULL; g++) {
        for (guint k = 0; k < n_keys; k++) {
            if (strcmp(flat[k].row->group, groups[g]) == 0) {
                g_autofree char *name = g_strdup_printf("%s.%s", groups[g], flat[k].row->key);
                g_autofree char *what = weft_key_value_help(flat[k].row);
                g_string_append_printf(s, "  %-36s %s\n", name, what);
            }
        }
        if (strcmp(groups[g], "cluster") == 0) {
            g_string_append_printf(s, "  %-36s %s\n", "cluster.KEY",
                                   "a key of an INI cluster file (doc/clusters.md)");
        }
    }
    return g_string_free(s, FALSE);
}

gboolean
weft_scenario_resolve(const weft_scenario_t *sc, weft_scenario_config_t *cfg, GError **error)
{
    g_return_val_if_fail(sc != NULL && cfg != NULL, FALSE);
    memset(cfg, 0, sizeof *cfg);
    weft_gen_spec_init(&cfg->transformer);
    for (guint s = 0; s < G_N_ELEMENTS(sections); s++) {
        weft_keys_apply_defaults(sections[s].rows, *sections[s].n,
                                 G_STRUCT_MEMBER_P(cfg, sections[s].base));
    }
    for (guint k = 0; k < n_keys; k++) {
        if (sc->value[k] == NULL) {
            continue;
        }
        GError *e = NULL;
        if (!weft_key_apply(flat[k].row, sc->value[k], G_STRUCT_MEMBER_P(cfg, flat[k].base), &e)) {
            scenario_error(error, e);
            return FALSE;
        }
        cfg->transformer_given |= strcmp(flat[k].row->group, "transformer") == 0;
    }
    return TRUE;
}

/* The first [transformer] key that is set, or -1: any of them asks for a generated step. */
static gint
first_transformer_key(const weft_scenario_t *sc)
{
    for (guint k = 0; k < n_keys; k++) {
        if (strcmp(flat[k].row->group, "transformer") == 0 && sc->value[k] != NULL) {
            return (gint)k;
        }
    }
    return -1;
}

gboolean
weft_scenario_has_workload(const weft_scenario_t *sc)
{
    g_return_val_if_fail(sc != NULL, FALSE);
    return sc->value[key_index("workload", "trace")] != NULL ||
           sc->value[key_index("workload", "collective")] != NULL ||
           sc->value[key_index("workload", "jobs")] != NULL || first_transformer_key(sc) >= 0;
}

/* The workload's cross-key checks: exactly one of trace, [transformer], collective. */
static gboolean
check_workload_keys(const weft_scenario_t *sc, const weft_scenario_config_t *cfg,
                    const char *where, GError **error)
{
    const char *trace = cfg->workload.trace;
    const char *coll = cfg->workload.collective;
    gint tf = first_transformer_key(sc);
    const char *jobs = cfg->workload.jobs;
    if (jobs != NULL && (trace != NULL || coll != NULL || tf >= 0)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: workload.jobs = \"%s\" and %s%s both describe the workload: keep one "
                    "(a job's workload is described in the jobs file)",
                    where, jobs, tf >= 0 ? "transformer." : "workload.",
                    tf >= 0 ? flat[tf].row->key : trace != NULL ? "trace" : "collective");
        return FALSE;
    }
    if (jobs == NULL && cfg->workload.jobs_placement != NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: workload.jobs_placement = \"%s\" without workload.jobs", where,
                    cfg->workload.jobs_placement);
        return FALSE;
    }
    if (jobs != NULL) {
        return TRUE;
    }
    if (trace == NULL && coll == NULL && tf < 0) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: no workload: set workload.trace (the Chakra trace prefix), the "
                    "[transformer] keys (model = ...), workload.collective or workload.jobs",
                    where);
        return FALSE;
    }
    if (tf >= 0 && (trace != NULL || coll != NULL)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: transformer.%s = \"%s\" and workload.%s = \"%s\" both describe the "
                    "workload: keep one",
                    where, flat[tf].row->key, sc->value[tf], trace != NULL ? "trace" : "collective",
                    trace != NULL ? trace : coll);
        return FALSE;
    }
    if (trace != NULL && coll != NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: workload.trace = \"%s\" and workload.collective = \"%s\" both describe "
                    "the workload: keep one",
                    where, trace, coll);
        return FALSE;
    }
    if (trace == NULL && cfg->workload.comm_groups != NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: workload.comm_groups = \"%s\" is for a trace (workload.trace); a "
                    "generated workload makes its own groups",
                    where, cfg->workload.comm_groups);
        return FALSE;
    }
    if (trace == NULL && (cfg->workload.pg_size != NULL || cfg->workload.replicate_given)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: workload.%s is for a trace (workload.trace); a generated workload "
                    "makes its own groups",
                    where, cfg->workload.pg_size != NULL ? "pg_size" : "replicate");
        return FALSE;
    }
    /* (a saved configuration writes every default: collective_iterations = 1 is no request) */
    for (guint i = 1; coll == NULL && i < G_N_ELEMENTS(own_collective); i++) {
        guint k = key_index("workload", own_collective[i].key);
        if (sc->value[k] != NULL && !weft_key_is_default(&own_collective[i], sc->value[k])) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                        "%s: workload.%s = \"%s\" without workload.collective", where,
                        own_collective[i].key, sc->value[k]);
            return FALSE;
        }
    }
    if (coll != NULL && cfg->workload.collective_op != WEFT_COLL_BARRIER &&
        cfg->workload.collective_bytes == 0) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: workload.collective = \"%s\" needs workload.collective_bytes (its "
                    "size, e.g. 64MiB)",
                    where, coll);
        return FALSE;
    }
    return TRUE;
}

gboolean
weft_scenario_check(const weft_scenario_t *sc, GError **error)
{
    g_return_val_if_fail(sc != NULL, FALSE);
    const char *where = sc->source != NULL ? sc->source : "scenario";
    weft_scenario_config_t cfg;
    if (!weft_scenario_resolve(sc, &cfg, error) || !check_workload_keys(sc, &cfg, where, error)) {
        return FALSE;
    }
    if (cfg.cluster_file == NULL && sc->cluster_own->len == 0) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: no cluster: set cluster.file or describe the cluster inline in "
                    "[cluster] (kind = ...)",
                    where);
        return FALSE;
    }
    if (cfg.cluster_file != NULL && sc->format != CLUSTER_FILE_INI && sc->cluster_own->len > 0) {
        kv_pair *kv = g_ptr_array_index(sc->cluster_own, 0);
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: cluster.%s = \"%s\": cluster.file \"%s\" is %s, which takes no other "
                    "[cluster] key; valid keys: file",
                    where, kv->key, kv->value, cfg.cluster_file,
                    sc->format == CLUSTER_FILE_YAML ? "ASTRA-sim YAML" : "GraphML");
        return FALSE;
    }
    if (cfg.placement.policy == WEFT_PLACE_FILE && cfg.placement.file == NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: workload.placement = file needs workload.placement_file", where);
        return FALSE;
    }
    return TRUE;
}

const char *
weft_scenario_i_given(const weft_scenario_t *sc, const char *group, const char *key)
{
    return sc->given[key_index(group, key)];
}

const char *
weft_scenario_i_text(const weft_scenario_t *sc, const char *group, const char *key)
{
    return sc->value[key_index(group, key)];
}

char *
weft_scenario_i_transformer_label(const weft_scenario_t *sc)
{
    GString *text = g_string_new("transformer");
    for (guint k = 0; k < n_keys; k++) {
        if (strcmp(flat[k].row->group, "transformer") == 0 && sc->value[k] != NULL) {
            g_string_append_printf(text, " %s=%s", flat[k].row->key, sc->value[k]);
        }
    }
    return g_string_free(text, FALSE);
}
