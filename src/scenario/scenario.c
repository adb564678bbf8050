/* SPDX-License-Identifier: MIT */
/*
 * Scenario files: one table of every group and key (type, default, one-line
 * doc), values checked against it when they are set, the effective
 * configuration written back in the table's order, and the run itself:
 * cluster, workload, placement, network, replay, and the files of [output].
 * [cluster] is the one open group: besides `file` it takes the keys of a
 * cluster file, which the cluster builders (topo_ini.c) check, not this file.
 */
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
     "directory for scenario.ini, ranks.csv and summary.txt (created if missing), and with weft "
     "replay summary.json, collectives.csv, links.csv (doc/outputs.md); unset: print only",
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
    {weft_replay_keys, &weft_replay_n_keys, G_STRUCT_OFFSET(weft_scenario_config_t, replay)},
    {weft_net_keys, &weft_net_n_keys, G_STRUCT_OFFSET(weft_scenario_config_t, network)},
    {own_run, &n_own_run, 0},
};

/* The groups, in the order they are written. */
static const char *const groups[] = {"cluster", "workload", "transformer", "collectives", "network",
                                     "compute", "faults",   "output",      NULL};

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
        flat = f;
        flat_rows = rows;
        n_keys = n;
        g_once_init_leave(&once, 1);
    }
}

/* ---- the scenario ----------------------------------------------------------------------- */

typedef enum {
    CLUSTER_FILE_INI,
    CLUSTER_FILE_YAML,
    CLUSTER_FILE_GRAPHML,
} cluster_format;

typedef struct {
    char *key;
    char *value;
} kv_pair;

static void
kv_pair_free(gpointer p)
{
    kv_pair *kv = p;
    g_free(kv->key);
    g_free(kv->value);
    g_free(kv);
}

struct weft_scenario {
    char **value;            /* per composed key: final text (paths absolute); NULL: the default */
    char **given;            /* for the report: as typed on the command line; NULL: the default */
    GPtrArray *cluster_own;  /* kv_pair: [cluster] keys of the scenario and --set, in order */
    GPtrArray *cluster_file; /* kv_pair: [cluster] keys of the INI cluster file */
    cluster_format format;   /* of cluster.file, when set */
    char *source;            /* the last scenario file loaded, for messages; NULL: none */
};

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
    if (!g_strv_contains(groups, group)) {
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
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "unknown key %s.%s; valid keys of [%s]: %s", group, key, group, valid);
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
        if (!g_strv_contains(groups, kf_groups[i])) {
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
static GPtrArray *
merged_cluster_keys(const weft_scenario_t *sc)
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
            g_autoptr(GPtrArray) merged = merged_cluster_keys(sc);
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
           sc->value[key_index("workload", "collective")] != NULL || first_transformer_key(sc) >= 0;
}

/* The workload's cross-key checks: exactly one of trace, [transformer], collective. */
static gboolean
check_workload_keys(const weft_scenario_t *sc, const weft_scenario_config_t *cfg,
                    const char *where, GError **error)
{
    const char *trace = cfg->workload.trace;
    const char *coll = cfg->workload.collective;
    gint tf = first_transformer_key(sc);
    if (trace == NULL && coll == NULL && tf < 0) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: no workload: set workload.trace (the Chakra trace prefix), the "
                    "[transformer] keys (model = ...) or workload.collective",
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
    /* (a saved configuration writes every default: collective_iterations = 1 is no request) */
    for (guint i = 1; coll == NULL && i < G_N_ELEMENTS(own_collective); i++) {
        guint k = key_index("workload", own_collective[i].key);
        if (sc->value[k] != NULL && g_strcmp0(sc->value[k], own_collective[i].dflt) != 0) {
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

/* ---- running ----------------------------------------------------------------------------------
 */

/* Creates @dir if missing and proves it writable by creating and removing a file in it;
 * errors name output.@key = "@value". */
static gboolean
prepare_output_dir_for(const char *dir, const char *key, const char *value, GError **error)
{
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        int e = errno;
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO,
                    "output.%s = \"%s\": cannot create %s: %s", key, value, dir, g_strerror(e));
        return FALSE;
    }
    g_autofree char *probe = g_build_filename(dir, ".weft-probe-XXXXXX", NULL);
    int fd = g_mkstemp(probe);
    if (fd < 0) {
        int e = errno;
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO,
                    "output.%s = \"%s\": %s is not writable: %s", key, value, dir, g_strerror(e));
        return FALSE;
    }
    close(fd);
    g_unlink(probe);
    return TRUE;
}

static gboolean
prepare_output_dir(const char *dir, GError **error)
{
    return prepare_output_dir_for(dir, "dir", dir, error);
}

static gboolean
write_output(const char *dir, const char *name, const char *text, GError **error)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autoptr(GError) ioerr = NULL;
    /* GLib writes to a temporary file in the same directory, then renames it. */
    if (!g_file_set_contents_full(path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &ioerr)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO, "%s: cannot write: %s",
                    path, ioerr->message);
        return FALSE;
    }
    return TRUE;
}

/*
 * Turns a cluster builder's error into a scenario error that names the scenario
 * and [cluster]: unknown keys and kinds become WEFT_SCENARIO_ERROR_KEY, values
 * that do not parse or are out of range WEFT_SCENARIO_ERROR_VALUE, unreadable
 * files WEFT_SCENARIO_ERROR_IO; anything else (an invalid graph) keeps its
 * WEFT_TOPO_ERROR code.
 */
static void
cluster_error(GError **error, GError *terr, const char *where)
{
    gint code = -1;
    if (terr->domain == WEFT_TOPO_ERROR) {
        switch (terr->code) {
        case WEFT_TOPO_ERROR_KEY:
            code = WEFT_SCENARIO_ERROR_KEY;
            break;
        case WEFT_TOPO_ERROR_PARSE:
        case WEFT_TOPO_ERROR_VALUE:
            code = WEFT_SCENARIO_ERROR_VALUE;
            break;
        case WEFT_TOPO_ERROR_IO:
            code = WEFT_SCENARIO_ERROR_IO;
            break;
        default:
            break;
        }
    }
    g_autofree char *prefix = where != NULL ? g_strdup_printf("scenario %s: [cluster]: ", where)
                                            : g_strdup("[cluster]: ");
    if (code < 0) {
        g_propagate_prefixed_error(error, terr, "%s", prefix);
        return;
    }
    g_set_error(error, WEFT_SCENARIO_ERROR, code, "%s%s", prefix, terr->message);
    g_error_free(terr);
}

static weft_topo_t *
build_cluster(const weft_scenario_t *sc, const weft_scenario_config_t *cfg, GError **error)
{
    const char *where = sc->source;
    const char *file = cfg->cluster_file;
    GError *terr = NULL;
    weft_topo_t *topo = NULL;
    if (file != NULL && sc->format == CLUSTER_FILE_YAML) {
        topo = weft_topo_load_astra_yaml(file, &terr);
    } else if (file != NULL && sc->format == CLUSTER_FILE_GRAPHML) {
        topo = weft_topo_load_graphml(file, &terr);
    } else {
        g_autoptr(GKeyFile) kf = g_key_file_new();
        g_autoptr(GPtrArray) merged = merged_cluster_keys(sc);
        for (guint i = 0; i < merged->len; i++) {
            kv_pair *kv = g_ptr_array_index(merged, i);
            g_key_file_set_value(kf, "cluster", kv->key, kv->value);
        }
        const char *origin = file != NULL ? file : (where != NULL ? where : "scenario");
        topo = weft_topo_load_keyfile(kf, "cluster", origin, &terr);
    }
    if (topo == NULL) {
        cluster_error(error, terr, where);
    }
    return topo;
}

static char *
placement_text(const weft_place_config_t *p)
{
    if (p->policy == WEFT_PLACE_RANDOM) {
        return g_strdup_printf("random (seed %" G_GINT64_FORMAT ")", p->seed);
    }
    if (p->policy == WEFT_PLACE_FILE) {
        return g_strdup_printf("file %s", p->file);
    }
    return g_strdup(weft_place_policy_name(p->policy));
}

static char *
ranks_csv(const weft_scenario_run_t *run)
{
    GString *s = g_string_new("rank,gpu,finish_us,compute_us,exposed_comm_us,idle_us\n");
    const weft_replay_result_t *res = run->replay;
    for (guint r = 0; r < res->n_ranks; r++) {
        const weft_rank_result_t *rr = &res->ranks[r];
        g_string_append_printf(s, "%u,%u,%.6f,%.6f,%.6f,%.6f\n", r, run->rank_gpu[r],
                               weft_time_to_us(rr->finish_ps), weft_time_to_us(rr->compute_ps),
                               weft_time_to_us(rr->exposed_comm_ps), weft_time_to_us(rr->idle_ps));
    }
    return g_string_free(s, FALSE);
}

/* Rank rows the summary prints when a report gives the distribution instead. */
#define SUMMARY_MAX_RANK_ROWS 64

char *
weft_scenario_run_summary(const weft_scenario_run_t *run)
{
    g_return_val_if_fail(run != NULL, NULL);
    const weft_replay_result_t *res = run->replay;
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "cluster      %s (%u GPUs, %u vertices, %u directed links)\n",
                           run->cluster_label, weft_topo_n_gpus(run->topo),
                           weft_topo_n_vertices(run->topo), weft_topo_n_edges(run->topo));
    g_string_append_printf(s, "workload     %s (%u rank%s, %" G_GUINT64_FORMAT " nodes)\n",
                           run->trace_label, run->workload->n_ranks,
                           run->workload->n_ranks == 1 ? "" : "s",
                           weft_workload_node_count(run->workload));
    g_string_append_printf(s, "placement    %s\n", run->placement);
    if (run->nccl_tuning && !run->chunks_given) {
        g_string_append_printf(s,
                               "network      %s, chunks per collective as NCCL's tuning chooses\n",
                               run->network_model);
    } else {
        g_string_append_printf(s, "network      %s, %u chunk(s) per collective%s\n",
                               run->network_model, run->chunks,
                               run->nccl_tuning ? " (forced over NCCL's tuning)"
                               : run->abstract && run->plain_forced != NULL
                                   ? ", plain model (an abstract cluster: no NVLink, no NICs; "
                                     "collectives.tuning)"
                               : run->abstract ? ", plain rings (an abstract cluster: no NVLink, "
                                                 "no NICs; collectives.tuning)"
                                               : "");
        if (run->plain_forced != NULL) {
            g_string_append_printf(s, "algorithms   %s (forced; the plain model's default: ring)\n",
                                   run->plain_forced);
        }
    }
    g_string_append_printf(s,
                           "collectives  %" G_GUINT64_FORMAT
                           ", point-to-point transfers %" G_GUINT64_FORMAT
                           ", events %" G_GUINT64_FORMAT "\n",
                           res->collectives, res->p2p_transfers, res->events);
    if (run->coarse_asked && run->coarse_skipped != NULL) {
        g_string_append_printf(s, "coarse       not applied: %s\n", run->coarse_skipped);
    } else if (run->coarse_asked) {
        /* collectives.detail = coarse: an approximation (doc/replay.md) */
        g_string_append_printf(s,
                               "coarse       %" G_GUINT64_FORMAT
                               " collective(s) ran as one aggregate flow (collectives.detail = "
                               "coarse, approximate)\n",
                               res->coarse_collectives);
    }
    g_string_append_printf(s, "step time    %.6f us\n", weft_time_to_us(res->step_ps));
    for (guint i = 0; res->faults_applied != NULL && i < res->faults_applied->len; i++) {
        g_string_append_printf(s, "fault        %s\n",
                               (const char *)g_ptr_array_index(res->faults_applied, i));
    }
    /* what the reader worked around in the trace (workload.h): said once, here */
    const GPtrArray *warnings = run->workload->warnings;
    for (guint i = 0; warnings != NULL && i < warnings->len; i++) {
        g_string_append_printf(s, "warning      %s\n",
                               (const char *)g_ptr_array_index(warnings, i));
    }
    g_string_append_c(s, '\n');
    /* With a report, large runs get the per-rank distribution instead of one line per rank. */
    if (run->report != NULL && res->n_ranks > SUMMARY_MAX_RANK_ROWS) {
        g_string_append_printf(s, "(%u ranks: one row per rank in ranks.csv with --out DIR)\n",
                               res->n_ranks);
        g_autofree char *more = weft_report_summary_text(run->report);
        g_string_append(s, more);
        return g_string_free(s, FALSE);
    }
    g_string_append_printf(s, "%6s %16s %16s %20s %16s\n", "rank", "finish_us", "compute_us",
                           "exposed_comm_us", "idle_us");
    for (guint r = 0; r < res->n_ranks; r++) {
        const weft_rank_result_t *rr = &res->ranks[r];
        g_string_append_printf(s, "%6u %16.6f %16.6f %20.6f %16.6f\n", r,
                               weft_time_to_us(rr->finish_ps), weft_time_to_us(rr->compute_ps),
                               weft_time_to_us(rr->exposed_comm_ps), weft_time_to_us(rr->idle_ps));
    }
    if (run->report != NULL) {
        g_autofree char *more = weft_report_summary_text(run->report);
        g_string_append(s, more);
    }
    return g_string_free(s, FALSE);
}

/*
 * The plain model's forced algorithms (collectives.tuning = off, or auto on an abstract
 * cluster): ring, tree, halving_doubling and direct have flat plans and run as asked; the
 * algorithms that need the communicator's layout on the cluster (nvls, nvls_tree, collnet,
 * hierarchical) and forced protocols (the plain model has none) are refused with the key,
 * never ignored. Fills @algo per operation and *@text ("all_reduce halving_doubling"),
 * NULL when nothing is forced.
 */
static gboolean
plain_forced(const weft_coll_settings_t *cs, weft_coll_algo_t *algo, char **text, GError **error)
{
    const char *why_plain = cs->tuning == WEFT_COLL_TUNING_OFF
                                ? "collectives.tuning = off"
                                : "collectives.tuning = auto on an abstract cluster";
    GString *desc = g_string_new(NULL);
    for (guint k = 0; k < WEFT_COLL_N_KEY_OPS; k++) {
        weft_coll_op_t op = weft_coll_key_op((weft_coll_key_op_t)k);
        if (cs->proto[k] != WEFT_COLL_PROTO_AUTO) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "collectives.%s = %s: the plain model (%s) has no protocols; set "
                        "collectives.tuning = nccl to run NCCL's protocols",
                        weft_coll_key_op_row((weft_coll_key_op_t)k, TRUE)->key,
                        weft_enum_name(&weft_coll_proto_enum, (gint)cs->proto[k]), why_plain);
            g_string_free(desc, TRUE);
            return FALSE;
        }
        weft_coll_algo_t a = cs->algo[k];
        if (a == WEFT_COLL_ALGO_AUTO) {
            continue;
        }
        if (a != WEFT_COLL_ALGO_RING && a != WEFT_COLL_ALGO_TREE && a != WEFT_COLL_ALGO_DIRECT &&
            a != WEFT_COLL_ALGO_HALVING_DOUBLING) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "collectives.%s = %s: the plain model (%s) runs ring, tree and "
                        "halving_doubling (direct for all-to-all, gather and scatter); %s needs "
                        "NCCL's tuning over the cluster's NVSwitches and switches "
                        "(collectives.tuning = nccl)",
                        weft_coll_key_op_row((weft_coll_key_op_t)k, FALSE)->key,
                        weft_coll_algo_name(a), why_plain, weft_coll_algo_name(a));
            g_string_free(desc, TRUE);
            return FALSE;
        }
        g_string_append_printf(desc, "%s%s %s", desc->len > 0 ? ", " : "", weft_coll_op_name(op),
                               weft_coll_algo_name(a));
    }
    /* the same forced choice for the operations that share each key */
    weft_coll_tuning_t t;
    weft_coll_settings_tuning(cs, &t);
    for (guint op = 0; op < WEFT_COLL_N_OPS; op++) {
        algo[op] = t.algo[op];
    }
    *text = desc->len > 0 ? g_string_free(desc, FALSE) : (g_string_free(desc, TRUE), NULL);
    return TRUE;
}

/*
 * The workload of a checked scenario on a cluster of @n_gpus GPUs: the trace,
 * the [transformer] step generated in memory (an unset dp fills the cluster) or
 * the one-collective workload. *@label gets its name for the report.
 */
static weft_workload_t *
load_workload(const weft_scenario_t *sc, weft_scenario_config_t *cfg, guint n_gpus, char **label,
              GError **error)
{
    const char *where = sc->source != NULL ? sc->source : "scenario";
    g_autoptr(GError) werr = NULL;
    const weft_scenario_workload_t *w = &cfg->workload;
    if (w->trace != NULL) {
        *label = g_strdup(sc->given[key_index("workload", "trace")]);
        return weft_workload_load_chakra(w->trace, w->comm_groups, error);
    }
    if (w->collective != NULL) {
        weft_coll_op_t op = w->collective_op;
        guint n_ranks = w->collective_ranks_given ? w->collective_ranks : n_gpus;
        weft_workload_t *wl = weft_workload_collective(op, w->collective_bytes,
                                                       w->collective_iterations, n_ranks, &werr);
        if (wl == NULL) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "%s: workload.collective: %s", where, werr->message);
            return NULL;
        }
        *label = g_strdup_printf(
            "%s of %s x %u on %u ranks", weft_coll_op_name(op),
            op == WEFT_COLL_BARRIER ? "0 B" : sc->value[key_index("workload", "collective_bytes")],
            w->collective_iterations, n_ranks);
        return wl;
    }
    /* [transformer]: the resolved spec, generated on the cluster's GPUs. */
    GString *text = g_string_new("transformer");
    for (guint k = 0; k < n_keys; k++) {
        if (strcmp(flat[k].row->group, "transformer") == 0 && sc->value[k] != NULL) {
            g_string_append_printf(text, " %s=%s", flat[k].row->key, sc->value[k]);
        }
    }
    weft_workload_t *wl = weft_gen_spec_generate(&cfg->transformer, n_gpus, where, &werr);
    if (wl == NULL) {
        g_string_free(text, TRUE);
        g_set_error_literal(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE, werr->message);
        return NULL;
    }
    if (!cfg->transformer.dp_given) {
        const weft_gen_config_t *c = &cfg->transformer.c;
        guint64 per_replica = (guint64)c->tp * c->pp * c->cp;
        g_string_append_printf(text, " dp=%" G_GUINT64_FORMAT " (from the cluster)",
                               wl->n_ranks / per_replica);
    }
    *label = g_string_free(text, FALSE);
    return wl;
}

weft_scenario_run_t *
weft_scenario_run(const weft_scenario_t *sc, GError **error)
{
    return weft_scenario_run_full(sc, NULL, error);
}

/* The report's options from [output]; FALSE if none asks for one. */
static gboolean
report_options(const weft_scenario_output_t *o, weft_report_options_t *ro)
{
    memset(ro, 0, sizeof *ro);
    ro->timeline = o->timeline != NULL;
    ro->timeline_ranks = o->timeline_ranks;
    ro->window_start_ps = o->window_start_ps;
    ro->window_end_ps = o->window_end_ps;
    ro->link_interval_ps = o->link_interval_ps;
    return ro->timeline || ro->link_interval_ps > 0;
}

weft_scenario_run_t *
weft_scenario_run_full(const weft_scenario_t *sc, const weft_scenario_run_options_t *ropts,
                       GError **error)
{
    g_return_val_if_fail(sc != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    if (!weft_scenario_check(sc, error)) {
        return NULL;
    }
    /* the configuration, resolved once into typed structs (checked when set) */
    weft_scenario_config_t cfg;
    if (!weft_scenario_resolve(sc, &cfg, error)) {
        return NULL;
    }
    const char *out_dir = cfg.output.dir;
    if (out_dir != NULL && !prepare_output_dir(out_dir, error)) {
        return NULL;
    }
    const char *timeline = cfg.output.timeline;
    if (timeline != NULL) {
        g_autofree char *tl_dir = g_path_get_dirname(timeline);
        if (!prepare_output_dir_for(tl_dir, "timeline", timeline, error)) {
            return NULL;
        }
    }
    weft_report_options_t rep_opts;
    gboolean want_report = report_options(&cfg.output, &rep_opts) || (ropts != NULL && ropts->report);

    g_autoptr(weft_scenario_run_t) run = g_new0(weft_scenario_run_t, 1);
    run->topo = build_cluster(sc, &cfg, error);
    if (run->topo == NULL) {
        return NULL;
    }
    weft_topo_set_ecmp_seed(run->topo, (guint64)cfg.ecmp_seed);

    run->workload =
        load_workload(sc, &cfg, weft_topo_n_gpus(run->topo), &run->trace_label, error);
    if (run->workload == NULL) {
        return NULL;
    }
    if (!weft_workload_check(run->workload, weft_topo_n_gpus(run->topo), error)) {
        /* a trace's message names its files; a generated workload's says which keys */
        if (cfg.workload.trace == NULL) {
            g_prefix_error(error, "workload %s%s: ", run->trace_label,
                           cfg.workload.collective != NULL ? " (workload.collective_ranks)" : "");
        }
        return NULL;
    }

    run->rank_gpu = weft_topo_place(run->topo, run->workload->n_ranks, cfg.placement.policy,
                                    (guint64)cfg.placement.seed, cfg.placement.file, error);
    if (run->rank_gpu == NULL) {
        return NULL;
    }
    if (want_report) {
        g_autoptr(GError) rerr = NULL;
        run->report = weft_report_new(run->topo, run->workload, run->rank_gpu, &rep_opts, &rerr);
        if (run->report == NULL) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "output.timeline_ranks = \"%s\": %s", cfg.output.timeline_ranks,
                        rerr->message);
            return NULL;
        }
    }

    weft_net_options_t net_opts = cfg.network;
    run->network_model = g_strdup(weft_net_model_name(net_opts.model));
    const weft_coll_settings_t *cs = &cfg.collectives;
    run->chunks = cs->chunks_given ? cs->chunks : 1;
    run->nccl_tuning =
        cs->tuning == WEFT_COLL_TUNING_NCCL ||
        (cs->tuning == WEFT_COLL_TUNING_AUTO && !weft_topo_is_abstract(run->topo));
    run->chunks_given = cs->chunks_given;
    run->abstract = !run->nccl_tuning && cs->tuning == WEFT_COLL_TUNING_AUTO;
    run->duration_scale = cfg.replay.duration_scale;
    run->placement = placement_text(&cfg.placement);
    const char *file = cfg.cluster_file;
    run->cluster_label = file != NULL ? g_strdup(sc->given[key_index("cluster", "file")])
                                      : g_strdup_printf("%s (inline)", weft_topo_name(run->topo));

    weft_coll_tuning_t tuning = {0};
    weft_coll_settings_tuning(cs, &tuning);
    weft_coll_algo_t plain_algo[WEFT_COLL_N_OPS] = {0};
    if (!run->nccl_tuning && !plain_forced(cs, plain_algo, &run->plain_forced, error)) {
        return NULL;
    }
    g_autoptr(weft_fault_plan_t) faults = NULL;
    if (cfg.faults_file != NULL || cfg.faults_events != NULL) {
        faults = weft_fault_plan_new(run->topo);
        if ((cfg.faults_file != NULL && !weft_fault_plan_add_file(faults, cfg.faults_file, error)) ||
            (cfg.faults_events != NULL &&
             !weft_fault_plan_add_text(faults, cfg.faults_events, "faults.events", TRUE,
                                       error))) {
            return NULL;
        }
    }
    /* collectives.detail = auto runs lone collectives as one timed event; faults and link
     * time series need every transfer (replay.h). A run that finds a timed collective not
     * alone names its shape and is run again without timing that shape: at most one rerun
     * per shape, bounded here all the same. */
    gboolean coarse = cfg.replay.detail == WEFT_REPLAY_DETAIL_COARSE;
    gboolean flow = net_opts.model == WEFT_NET_FLOW;
    run->coarse_asked = coarse;
    if (coarse && !flow) {
        run->coarse_skipped = "under analytical every collective it could aggregate is timed "
                              "exactly (as collectives.detail = auto)";
    } else if (coarse && faults != NULL) {
        run->coarse_skipped = "faults simulate every transfer";
    } else if (coarse && run->report != NULL && rep_opts.link_interval_ps > 0) {
        run->coarse_skipped = "link time series simulate every transfer";
    }
    weft_replay_detail_t detail =
        (coarse || cfg.replay.detail == WEFT_REPLAY_DETAIL_AUTO) && faults == NULL &&
                !(run->report != NULL && rep_opts.link_interval_ps > 0 && flow)
            ? (coarse ? WEFT_REPLAY_DETAIL_COARSE : WEFT_REPLAY_DETAIL_AUTO)
            : WEFT_REPLAY_DETAIL_TRANSFERS;
    g_autoptr(GHashTable) banned = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
                                                         (GDestroyNotify)g_bytes_unref, NULL);
    /* freed after the simulation, whose progress hook points to it */
    g_autoptr(weft_report_progress_t) progress = NULL;
    g_autoptr(weft_sim_t) sim = NULL;
    g_autoptr(weft_net_t) net = NULL;
    for (guint attempt = 0;; attempt++) {
        g_clear_pointer(&net, weft_net_free);
        g_clear_pointer(&sim, weft_sim_free);
        if (attempt > 0 && run->report != NULL) {
            weft_report_free(run->report);
            run->report = weft_report_new(run->topo, run->workload, run->rank_gpu, &rep_opts, NULL);
            g_assert(run->report != NULL); /* the same options made one before */
        }
        /* The simulation's own random stream is seeded with 1: nothing in an
         * analytical replay draws from it, and placement and ECMP have their own
         * seeds (workload.placement_seed, network.ecmp_seed). */
        sim = weft_sim_new(1);
        net = weft_net_new_full(sim, run->topo, &net_opts);
        weft_replay_options_t opts = {
            .coll_chunks = run->chunks,
            .rank_gpu = run->rank_gpu,
            .compute_scale = run->duration_scale,
            .faults = faults,
            .collective_detail = attempt < 64 ? detail : WEFT_REPLAY_DETAIL_TRANSFERS,
            .detail_banned = banned,
        };
        memcpy(opts.plain_algo, plain_algo, sizeof plain_algo);
        if (run->nccl_tuning) {
            opts.coll_tuning = &tuning;
        }
        if (run->report != NULL) {
            opts.observer = weft_report_observer(run->report);
            weft_report_attach(run->report, net);
        }
        if (ropts != NULL && ropts->progress != NULL) {
            /* runs longer than a second show progress (src/report) */
            progress = weft_report_progress_new(ropts->progress, G_USEC_PER_SEC);
            weft_report_progress_attach(progress, sim);
        }
        GError *rerr = NULL;
        run->replay = weft_replay_run(sim, net, run->workload, &opts, &rerr);
        weft_sim_set_progress(sim, 0, NULL, NULL);
        g_clear_pointer(&progress, weft_report_progress_free);
        if (run->replay == NULL &&
            g_error_matches(rerr, WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_DETAIL_CONFLICT)) {
            g_debug("%s", rerr->message);
            g_error_free(rerr);
            continue;
        }
        if (run->replay == NULL) {
            g_propagate_error(error, rerr);
            return NULL;
        }
        break;
    }
    if (run->report != NULL) {
        g_autofree char *ini = weft_scenario_to_ini(sc);
        weft_report_meta_t meta = {
            .cluster = run->cluster_label,
            .workload = run->trace_label,
            .placement = run->placement,
            .network_model = run->network_model,
            .network_update = weft_net_update_name(net_opts.update),
            /* what ran: auto resolves to nccl or (an abstract cluster) off */
            .collective_tuning = run->nccl_tuning ? "nccl" : "off",
            /* 0: NCCL's tuning chose the chunks of each collective (collectives.csv) */
            .chunks = run->nccl_tuning && !run->chunks_given ? 0 : run->chunks,
            .sim_seed = weft_sim_seed(sim),
            .placement_seed = (guint64)cfg.placement.seed,
            .ecmp_seed = (guint64)cfg.ecmp_seed,
            .config_ini = ini,
        };
        weft_report_finish(run->report, net, run->replay);
        weft_report_set_meta(run->report, &meta);
    }

    if (out_dir != NULL) {
        g_autofree char *ini = weft_scenario_to_ini(sc);
        g_autofree char *csv = ranks_csv(run);
        g_autofree char *summary = weft_scenario_run_summary(run);
        if (!write_output(out_dir, "scenario.ini", ini, error) ||
            !write_output(out_dir, "ranks.csv", csv, error) ||
            !write_output(out_dir, "summary.txt", summary, error)) {
            return NULL;
        }
        g_autoptr(GError) rerr = NULL;
        if (run->report != NULL && !weft_report_write_files(run->report, out_dir, &rerr)) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO, "%s", rerr->message);
            return NULL;
        }
    }
    if (timeline != NULL) {
        g_autoptr(GError) rerr = NULL;
        if (!weft_report_write_timeline(run->report, timeline, &rerr)) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO, "%s", rerr->message);
            return NULL;
        }
    }
    return g_steal_pointer(&run);
}

void
weft_scenario_run_free(weft_scenario_run_t *run)
{
    if (run == NULL) {
        return;
    }
    weft_report_free(run->report); /* points to the workload and cluster */
    weft_replay_result_free(run->replay);
    g_free(run->rank_gpu);
    weft_workload_free(run->workload);
    weft_topo_free(run->topo);
    g_free(run->network_model);
    g_free(run->placement);
    g_free(run->plain_forced);
    g_free(run->cluster_label);
    g_free(run->trace_label);
    g_free(run);
}
