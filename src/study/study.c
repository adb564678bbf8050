/* SPDX-License-Identifier: MIT */
/*
 * Studies (study.h): the study file read, its axes expanded into a grid and
 * checked before anything runs, each point run as its own scenario on a
 * thread pool, rows journaled as they finish, the CSV written in grid order,
 * and shard CSVs merged. The file layout: definition, points, rows, journal,
 * the run, merge.
 */
#define G_LOG_DOMAIN "weft-study"

#include "study/study.h"
#include "study/study_private.h"

#include <errno.h>
#include <fcntl.h>
#include <igraph.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "coll/coll.h"
#include "core/keyfile.h"
#include "core/log.h"
#include "core/output.h"
#include "core/units.h"
#include "fault/rates.h"
#include "hw/hw.h"
#include "job/job.h"
#include "net/net.h"
#include "replay/replay.h"
#include "scenario/scenario.h"
#include "topo/topo.h"
#include "workload/workload.h"

/* clang-format off */
G_DEFINE_QUARK(weft-study-error-quark, weft_study_error)
/* clang-format on */

/* At most this many points, and values per axis: a guard against typos such as `range 1 1e9 1`. */
#define MAX_POINTS (1u << 24)

/* ---- metrics ------------------------------------------------------------------------------ */

/* The tables are metrics.c's (study_private.h); these are the columns a study gets unasked. */
static const char *const default_metrics = "step_time_us, compute_us_max, exposed_comm_us_max, "
                                           "idle_us_max, events";
static const char *const default_train_metrics =
    "goodput_pct_mean, goodput_pct_ci95_lo, goodput_pct_ci95_hi, e2e_days_mean, "
    "e2e_days_median, e2e_days_p90, interruptions_mean, checkpoint_interval_s";

/* ---- the study ------------------------------------------------------------------------------ */

typedef struct {
    char *group;
    char *key;
    char *value; /* as given to weft_scenario_set_value() (paths absolute) */
} setting_t;

static void
setting_free(gpointer p)
{
    setting_t *s = p;
    g_free(s->group);
    g_free(s->key);
    g_free(s->value);
    g_free(s);
}

typedef struct {
    char *name;
    char *group;
    char *key;
    GPtrArray *shown; /* char *: values as written, for the CSV */
    GPtrArray *set;   /* char *: values given to the scenario (paths resolved) */
    /* when every value is a quantity with a unit (16MiB, 400Gb/s, 500ns) or a ratio (2:1):
     * the unit of the numeric column after the text one ("bytes", "Bps", "us", "ratio"),
     * and each value in it, formatted; NULL: no numeric column (the text is a number
     * already, or not one) */
    const char *num_unit;
    GPtrArray *num; /* char * */
} axis_t;

static void
axis_free(gpointer p)
{
    axis_t *a = p;
    g_free(a->name);
    g_free(a->group);
    g_free(a->key);
    g_ptr_array_unref(a->shown);
    g_ptr_array_unref(a->set);
    if (a->num != NULL) {
        g_ptr_array_unref(a->num);
    }
    g_free(a);
}

/* "2:1" -> 2 (an oversubscription ratio) */
static gboolean
parse_ratio(const char *text, double *value)
{
    char *end = NULL;
    double a = g_ascii_strtod(text, &end);
    if (end == text || *end != ':') {
        return FALSE;
    }
    const char *b_text = end + 1;
    double b = g_ascii_strtod(b_text, &end);
    if (end == b_text || *end != '\0' || !(b > 0.0) || !isfinite(a)) {
        return FALSE;
    }
    *value = a / b;
    return TRUE;
}

/*
 * The numeric column of an axis (axis_t.num_unit): tried in turn on every shown value, the
 * first reading that takes them all wins; none when they are bare numbers already (the text
 * column loads as numbers) or any value is not a quantity. The text column stays.
 */
static void
axis_numeric(axis_t *ax)
{
    static const char *const units[] = {"bytes", "Bps", "us", "ratio"};
    guint n = ax->shown->len;
    gboolean bare = TRUE;
    for (guint i = 0; i < n && bare; i++) {
        double v;
        bare = weft_units_parse_count(g_ptr_array_index(ax->shown, i), &v, NULL);
    }
    if (bare || n == 0) {
        return;
    }
    for (guint u = 0; u < G_N_ELEMENTS(units); u++) {
        g_autofree double *v = g_new(double, n);
        guint i = 0;
        for (; i < n; i++) {
            const char *text = g_ptr_array_index(ax->shown, i);
            guint64 bytes;
            weft_time_t ps;
            gboolean ok = FALSE;
            if (u == 0 && (ok = weft_units_parse_bytes(text, &bytes, NULL))) {
                v[i] = (double)bytes;
            } else if (u == 1) {
                ok = weft_units_parse_rate(text, &v[i], NULL);
            } else if (u == 2 && (ok = weft_units_parse_time(text, &ps, NULL))) {
                v[i] = weft_time_to_us(ps);
            } else if (u == 3) {
                ok = parse_ratio(text, &v[i]);
            }
            if (!ok) {
                break;
            }
        }
        if (i < n) {
            continue;
        }
        /* times with 6 decimals (picoseconds), as every _us column; other quantities as whole
         * numbers when all are whole, so the column loads as integers */
        gboolean whole = u != 2;
        for (i = 0; i < n; i++) {
            whole = whole && v[i] == floor(v[i]) && fabs(v[i]) < 9e15;
        }
        ax->num = g_ptr_array_new_with_free_func(g_free);
        for (i = 0; i < n; i++) {
            g_ptr_array_add(ax->num, u == 2  ? g_strdup_printf("%.6f", v[i])
                                     : whole ? g_strdup_printf("%.0f", v[i])
                                             : g_strdup_printf("%.9g", v[i]));
        }
        ax->num_unit = units[u];
        return;
    }
}

struct weft_study {
    char *path;      /* the study file as given */
    char *dir;       /* its directory, absolute */
    char *scenario;  /* the base scenario file, absolute; NULL: none */
    GPtrArray *base; /* setting_t: the study's own scenario groups, in file order */
    GPtrArray *axes; /* axis_t, in file order */
    gboolean zip;    /* mode = zip */
    GPtrArray *metrics; /* const weft_study_metric_t *: the columns, in order */
    guint n_points;  /* grid size */
    char *results;   /* default CSV path */
    char *hash;      /* SHA-256 of the effective definition, hex */
    char *header;    /* the CSV header line, with its newline */
    gboolean train;  /* a training-run study: the base is a `weft train` configuration */
};

/* One point's configuration: a scenario, or a `weft train` configuration in a train study. */
typedef struct {
    weft_scenario_t *sc;
    weft_job_config_t *job;
} config_t;

static void
config_free(config_t *c)
{
    if (c == NULL) {
        return;
    }
    weft_scenario_free(c->sc);
    weft_job_config_free(c->job);
    g_free(c);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(config_t, config_free)

static config_t *
config_new(gboolean train)
{
    config_t *c = g_new0(config_t, 1);
    if (train) {
        c->job = weft_job_config_new();
    } else {
        c->sc = weft_scenario_new();
    }
    return c;
}

static gboolean
config_set(config_t *c, const char *group, const char *key, const char *value, GError **error)
{
    return c->job != NULL ? weft_job_config_set_value(c->job, group, key, value, error)
                          : weft_scenario_set_value(c->sc, group, key, value, error);
}

static char *
config_to_ini(const config_t *c)
{
    return c->job != NULL ? weft_job_config_to_ini(c->job) : weft_scenario_to_ini(c->sc);
}

/* The base file @path is a `weft train` configuration: it has a [train] or [failures] group. */
static gboolean
is_train_file(const char *path)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    if (!weft_keyfile_load_file(kf, path, NULL)) {
        return FALSE; /* loading the base reports it */
    }
    return weft_job_config_is_train_file(kf);
}

void
weft_study_free(weft_study_t *st)
{
    if (st == NULL) {
        return;
    }
    g_free(st->path);
    g_free(st->dir);
    g_free(st->scenario);
    if (st->base != NULL) {
        g_ptr_array_unref(st->base);
    }
    if (st->axes != NULL) {
        g_ptr_array_unref(st->axes);
    }
    if (st->metrics != NULL) {
        g_ptr_array_unref(st->metrics);
    }
    g_free(st->results);
    g_free(st->hash);
    g_free(st->header);
    g_free(st);
}

guint
weft_study_n_points(const weft_study_t *st)
{
    g_return_val_if_fail(st != NULL, 0);
    return st->n_points;
}

const char *
weft_study_hash(const weft_study_t *st)
{
    g_return_val_if_fail(st != NULL, NULL);
    return st->hash;
}

const char *
weft_study_results_path(const weft_study_t *st)
{
    g_return_val_if_fail(st != NULL, NULL);
    return st->results;
}

/* Whether group.key holds a path: its row in the scenario's or weft train's key table says so. */
static gboolean
is_path_key(gboolean train, const char *group, const char *key)
{
    const weft_key_t *row = NULL;
    if (train) {
        guint n = 0;
        const weft_key_t *keys = weft_job_keys(&n);
        row = weft_keys_find(keys, n, group, key);
    } else {
        row = weft_scenario_key(group, key);
    }
    return row != NULL && row->type == WEFT_KEY_PATH;
}

/* @value as given to the scenario: a relative path resolved against the study's directory. */
static char *
resolve_value(const weft_study_t *st, const char *group, const char *key, const char *value)
{
    if (value[0] != '\0' && !g_path_is_absolute(value) && is_path_key(st->train, group, key)) {
        return g_canonicalize_filename(value, st->dir);
    }
    return g_strdup(value);
}

/* The base: the `scenario` file (a train configuration in a train study), then the study's
 * own groups. */
static config_t *
build_base(const weft_study_t *st, GError **error)
{
    g_autoptr(config_t) sc = config_new(st->train);
    if (st->scenario != NULL && !(st->train ? weft_job_config_load(sc->job, st->scenario, error)
                                            : weft_scenario_load(sc->sc, st->scenario, error))) {
        return NULL;
    }
    for (guint i = 0; i < st->base->len; i++) {
        setting_t *s = g_ptr_array_index(st->base, i);
        if (!config_set(sc, s->group, s->key, s->value, error)) {
            g_prefix_error(error, "%s: [%s] %s: ", st->path, s->group, s->key);
            return NULL;
        }
    }
    return g_steal_pointer(&sc);
}

/* Value index of every axis at point @i (cartesian: last axis fastest). */
static void
point_indexes(const weft_study_t *st, guint i, guint *idx)
{
    for (guint a = st->axes->len; a-- > 0;) {
        axis_t *ax = g_ptr_array_index(st->axes, a);
        if (st->zip) {
            idx[a] = i;
        } else {
            idx[a] = i % ax->set->len;
            i /= ax->set->len;
        }
    }
}

/* Sets axis @ax to its value @v on @sc; the error names the study, the axis, key and value. */
static gboolean
set_axis(const weft_study_t *st, config_t *sc, const axis_t *ax, guint v, GError **error)
{
    g_autoptr(GError) err = NULL;
    if (!config_set(sc, ax->group, ax->key, g_ptr_array_index(ax->set, v), &err)) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_AXIS,
                    "%s: axis.%s (%s.%s) value \"%s\": %s", st->path, ax->name, ax->group, ax->key,
                    (const char *)g_ptr_array_index(ax->shown, v), err->message);
        return FALSE;
    }
    return TRUE;
}

char *
weft_study_point_text(const weft_study_t *st, guint i)
{
    g_return_val_if_fail(st != NULL && i < st->n_points, NULL);
    g_autofree guint *idx = g_new0(guint, MAX(st->axes->len, 1));
    point_indexes(st, i, idx);
    GString *s = g_string_new(NULL);
    for (guint a = 0; a < st->axes->len; a++) {
        axis_t *ax = g_ptr_array_index(st->axes, a);
        g_string_append_printf(s, "%s%s=%s", a > 0 ? " " : "", ax->name,
                               (const char *)g_ptr_array_index(ax->shown, idx[a]));
    }
    return g_string_free(s, FALSE);
}

/* ---- axes ---------------------------------------------------------------------------------- */

/* A number with an optional unit suffix: "50GB/s" -> 50, "GB/s"; "8" -> 8, "". */
static gboolean
parse_number_unit(const char *text, double *num, char **unit)
{
    char *end = NULL;
    errno = 0;
    *num = g_ascii_strtod(text, &end);
    if (end == text || errno != 0 || !isfinite(*num)) {
        return FALSE;
    }
    *unit = g_strdup(end);
    return TRUE;
}

static void
add_value(axis_t *ax, double v, const char *unit)
{
    char buf[64];
    g_snprintf(buf, sizeof buf, "%.15g%s", v, unit);
    g_ptr_array_add(ax->shown, g_strdup(buf));
}

/*
 * Expands the VALUES of an axis into ax->shown: a list, `range START STOP
 * STEP` or `log START STOP xF`. @what names the axis in messages.
 */
static gboolean
expand_values(axis_t *ax, const char *values, const char *what, GError **error)
{
    g_auto(GStrv) words = g_strsplit_set(values, " \t", -1);
    GPtrArray *w = g_ptr_array_new();
    for (guint i = 0; words[i] != NULL; i++) {
        if (words[i][0] != '\0') {
            g_ptr_array_add(w, words[i]);
        }
    }
    g_autoptr(GPtrArray) word = w;
    /* the generated forms: `range START STOP STEP` and `log START STOP xF` */
    static const char *const form_names[] = {"range", "log", NULL};
    static const weft_enum_t form_enum = {"axis form", form_names};
    gint generated = -1;
    if (word->len > 0 &&
        !weft_enum_from_name(&form_enum, g_ptr_array_index(word, 0), &generated, NULL)) {
        generated = -1;
    }
    gboolean is_range = generated == 0;
    gboolean is_log = generated == 1;
    if (!is_range && !is_log) {
        if (values[0] == '\0') {
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE,
                        "%s: no values after the colon (expected a list, range START STOP STEP "
                        "or log START STOP xFACTOR)",
                        what);
            return FALSE;
        }
        g_auto(GStrv) items = g_strsplit(values, ",", -1);
        for (guint i = 0; items[i] != NULL; i++) {
            g_strstrip(items[i]);
            if (items[i][0] == '\0') {
                g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE,
                            "%s: value %u of \"%s\" is empty", what, i + 1, values);
                return FALSE;
            }
            g_ptr_array_add(ax->shown, g_strdup(items[i]));
        }
        return TRUE;
    }
    const char *form = is_range ? "range START STOP STEP" : "log START STOP xFACTOR";
    if (word->len != 4) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE, "%s: \"%s\": expected %s",
                    what, values, form);
        return FALSE;
    }
    double start = 0, stop = 0, step = 0;
    g_autofree char *u_start = NULL, *u_stop = NULL, *u_step = NULL;
    const char *step_text = g_ptr_array_index(word, 3);
    if (is_log) {
        if (step_text[0] != 'x') {
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE,
                        "%s: \"%s\": the factor \"%s\" must be written xF (x2, x10)", what, values,
                        step_text);
            return FALSE;
        }
        step_text++;
    }
    if (!parse_number_unit(g_ptr_array_index(word, 1), &start, &u_start) ||
        !parse_number_unit(g_ptr_array_index(word, 2), &stop, &u_stop) ||
        !parse_number_unit(step_text, &step, &u_step)) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE,
                    "%s: \"%s\": expected %s with numbers (and one unit)", what, values, form);
        return FALSE;
    }
    if (strcmp(u_start, u_stop) != 0 || (u_step[0] != '\0' && strcmp(u_step, u_start) != 0) ||
        (is_log && u_step[0] != '\0')) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE,
                    "%s: \"%s\": START, STOP%s must carry the same unit", what, values,
                    is_range ? " and STEP" : "");
        return FALSE;
    }
    if (stop < start || (is_range && step <= 0) || (is_log && (start <= 0 || step <= 1))) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE,
                    "%s: \"%s\": needs START <= STOP and %s", what, values,
                    is_range ? "STEP > 0" : "START > 0 and a factor > 1");
        return FALSE;
    }
    /* inclusive STOP with a relative slack of 1e-9 so 0.1 steps reach 1.0 */
    if (is_range) {
        double n = floor((stop - start) / step + 1e-9) + 1;
        if (n > MAX_POINTS) {
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE,
                        "%s: \"%s\": more than %u values", what, values, MAX_POINTS);
            return FALSE;
        }
        for (guint i = 0; i < (guint)n; i++) {
            add_value(ax, start + i * step, u_start);
        }
    } else {
        /* the same cap as range's: log(stop / start) / log(factor) + 1 values, counted
         * before any is made (a factor of 1 + 2^-52 would make ~10^16) */
        double n = floor(log(stop * (1 + 1e-9) / start) / log(step) + 1e-9) + 1;
        if (!(n <= MAX_POINTS)) {
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE,
                        "%s: \"%s\": more than %u values", what, values, MAX_POINTS);
            return FALSE;
        }
        for (guint i = 0; i <= (guint)n; i++) {
            double v = start * pow(step, i);
            if (v > stop * (1 + 1e-9)) {
                break;
            }
            add_value(ax, v, u_start);
        }
    }
    return TRUE;
}

/* Parses `axis.NAME = GROUP.KEY: VALUES`. */
static axis_t *
parse_axis(const weft_study_t *st, const char *name, const char *text, GError **error)
{
    g_autofree char *what = g_strdup_printf("%s: axis.%s", st->path, name);
    const char *colon = strchr(text, ':');
    g_autofree char *target = colon != NULL ? g_strstrip(g_strndup(text, colon - text)) : NULL;
    char *dot = target != NULL ? strchr(target, '.') : NULL;
    if (name[0] == '\0' || dot == NULL || dot == target || dot[1] == '\0' ||
        strchr(target, ' ') != NULL) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE,
                    "%s = \"%s\": expected axis.NAME = GROUP.KEY: VALUES", what, text);
        return NULL;
    }
    axis_t *ax = g_new0(axis_t, 1);
    ax->name = g_strdup(name);
    ax->group = g_strndup(target, dot - target);
    ax->key = g_strdup(dot + 1);
    ax->shown = g_ptr_array_new_with_free_func(g_free);
    ax->set = g_ptr_array_new_with_free_func(g_free);
    g_autofree char *values = g_strstrip(g_strdup(colon + 1));
    if (!expand_values(ax, values, what, error)) {
        axis_free(ax);
        return NULL;
    }
    for (guint v = 0; v < ax->shown->len; v++) {
        g_ptr_array_add(ax->set,
                        resolve_value(st, ax->group, ax->key, g_ptr_array_index(ax->shown, v)));
    }
    return ax;
}

/*
 * Builds the cluster @sc describes, to check [cluster] axis values (which the
 * scenario takes unchecked) before any point runs. A YAML or GraphML
 * cluster.file was read when set, and takes no other [cluster] key.
 */
static gboolean
check_cluster(const weft_scenario_t *sc, const char *origin, GError **error)
{
    g_autofree char *ini = weft_scenario_to_ini(sc);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    if (!g_key_file_load_from_data(kf, ini, (gsize)-1, G_KEY_FILE_NONE, error)) {
        return FALSE;
    }
    g_key_file_remove_key(kf, "cluster", "file", NULL);
    gsize n = 0;
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "cluster", &n, NULL);
    if (n == 0) {
        return TRUE;
    }
    weft_topo_t *topo = weft_topo_load_keyfile(kf, "cluster", origin, error);
    weft_topo_free(topo);
    return topo != NULL;
}

/*
 * The cross-key check of a configuration: weft_scenario_check(), or for a train
 * configuration weft_job_config_resolve() (which loads its cluster, and replays
 * its train.scenario when it has one).
 */
static gboolean
check_config(const config_t *c, GError **error)
{
    if (c->job != NULL) {
        weft_job_params_t p;
        return weft_job_config_resolve(c->job, &p, NULL, error);
    }
    return weft_scenario_check(c->sc, error);
}

/* Checks every value of every axis on a scratch scenario: base + first value of every axis. */
static gboolean
check_axes(const weft_study_t *st, GError **error)
{
    for (guint a = 0; a < st->axes->len; a++) {
        axis_t *ax = g_ptr_array_index(st->axes, a);
        for (guint v = 0; v < ax->set->len; v++) {
            g_autoptr(config_t) sc = build_base(st, error);
            if (sc == NULL) {
                return FALSE;
            }
            for (guint b = 0; b < st->axes->len; b++) {
                if (b != a && !set_axis(st, sc, g_ptr_array_index(st->axes, b), 0, error)) {
                    return FALSE;
                }
            }
            if (!set_axis(st, sc, ax, v, error)) {
                return FALSE;
            }
            g_autoptr(GError) err = NULL;
            gboolean ok = check_config(sc, &err);
            if (ok && sc->sc != NULL && strcmp(ax->group, "cluster") == 0) {
                ok = check_cluster(sc->sc, st->path, &err);
            }
            if (!ok) {
                g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_AXIS,
                            "%s: axis.%s (%s.%s) value \"%s\": %s", st->path, ax->name, ax->group,
                            ax->key, (const char *)g_ptr_array_index(ax->shown, v), err->message);
                return FALSE;
            }
        }
    }
    return TRUE;
}

static gboolean
parse_metrics(weft_study_t *st, const char *text, GError **error)
{
    g_auto(GStrv) items = g_strsplit(text, ",", -1);
    for (guint i = 0; items[i] != NULL; i++) {
        g_strstrip(items[i]);
        const weft_study_metric_t *m = weft_study_i_metric_find(st->train, items[i]);
        if (m == NULL) {
            g_autofree char *valid = weft_study_i_metric_list(st->train);
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_KEY,
                        "%s: metrics: unknown %smetric \"%s\"; valid metrics: %s", st->path,
                        st->train ? "training-run " : "", items[i], valid);
            return FALSE;
        }
        g_ptr_array_add(st->metrics, (gpointer)m);
    }
    return TRUE;
}

/* A CSV field: quoted (RFC 4180) when it holds a comma, quote or leading/trailing space. */
static void
append_field(GString *s, const char *text)
{
    gboolean quote =
        strpbrk(text, ",\"\r\n") != NULL ||
        (text[0] != '\0' && (g_ascii_isspace(text[0]) || g_ascii_isspace(text[strlen(text) - 1])));
    if (!quote) {
        g_string_append(s, text);
        return;
    }
    g_string_append_c(s, '"');
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '"') {
            g_string_append(s, "\"\"");
        } else if (*p == '\n' || *p == '\r') {
            g_string_append_c(s, ' '); /* one row per line, for the journal */
        } else {
            g_string_append_c(s, *p);
        }
    }
    g_string_append_c(s, '"');
}

static void
make_header_and_hash(weft_study_t *st, const config_t *base)
{
    GString *h = g_string_new("point");
    for (guint a = 0; a < st->axes->len; a++) {
        axis_t *ax = g_ptr_array_index(st->axes, a);
        g_autofree char *col = g_strdup_printf("%s:%s.%s", ax->name, ax->group, ax->key);
        g_string_append_c(h, ',');
        append_field(h, col);
        axis_numeric(ax);
        g_autofree char *num_col =
            ax->num_unit != NULL ? g_strdup_printf("%s_%s", ax->name, ax->num_unit) : NULL;
        /* a metric's name (an axis named step_time over a time key) would make the header
         * ambiguous: the text column alone then; axis columns hold a ':', so never clash */
        for (guint m = 0; num_col != NULL && m < st->metrics->len; m++) {
            const weft_study_metric_t *metric = g_ptr_array_index(st->metrics, m);
            if (strcmp(metric->name, num_col) == 0) {
                g_clear_pointer(&num_col, g_free);
            }
        }
        if (num_col == NULL && ax->num != NULL) {
            g_clear_pointer(&ax->num, g_ptr_array_unref);
            ax->num_unit = NULL;
        }
        if (num_col != NULL) {
            g_string_append_c(h, ',');
            append_field(h, num_col);
        }
    }
    for (guint m = 0; m < st->metrics->len; m++) {
        const weft_study_metric_t *metric = g_ptr_array_index(st->metrics, m);
        g_string_append_printf(h, ",%s", metric->name);
    }
    g_string_append(h, ",status,error\n");
    st->header = g_string_free(h, FALSE);

    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    g_autofree char *ini = config_to_ini(base);
    g_autofree char *mode = g_strdup_printf("weft study v1%s\nmode %s\n", st->train ? " train" : "",
                                            st->zip ? "zip" : "cartesian");
    g_checksum_update(sum, (const guchar *)mode, -1);
    g_checksum_update(sum, (const guchar *)ini, -1);
    for (guint a = 0; a < st->axes->len; a++) {
        axis_t *ax = g_ptr_array_index(st->axes, a);
        g_autofree char *line = g_strdup_printf("axis %s %s.%s\n", ax->name, ax->group, ax->key);
        g_checksum_update(sum, (const guchar *)line, -1);
        for (guint v = 0; v < ax->set->len; v++) {
            g_autofree char *val =
                g_strdup_printf("\t%s\t%s\n", (const char *)g_ptr_array_index(ax->shown, v),
                                (const char *)g_ptr_array_index(ax->set, v));
            g_checksum_update(sum, (const guchar *)val, -1);
        }
    }
    g_checksum_update(sum, (const guchar *)st->header, -1);
    st->hash = g_strdup(g_checksum_get_string(sum));
}

/* ---- the [study] keys ------------------------------------------------------------------ */

typedef struct {
    const char *scenario; /* the base scenario or weft train configuration; NULL: none */
    gint zip;             /* mode: 0 cartesian, 1 zip */
    const char *metrics;  /* NULL: the defaults */
    const char *results;  /* relative to the current directory; NULL: STUDY.csv there */
} study_keys_t;

static const char *const mode_names[] = {"cartesian", "zip", NULL};
static const weft_enum_t mode_enum = {"study mode", mode_names};

/* The fixed keys of [study]; axis.NAME keys are the axes (parse_axis()). */
static const weft_key_t study_rows[] = {
    {"study", "scenario", WEFT_KEY_PATH, NULL,
     "the base scenario, or a weft train configuration (a training-run study)",
     .field = WEFT_KEY_FIELD(study_keys_t, scenario)},
    {"study", "mode", WEFT_KEY_ENUM, "cartesian",
     "cartesian: every combination of the axes' values; zip: the i-th value of each axis",
     .choices = &mode_enum, .field = WEFT_KEY_FIELD(study_keys_t, zip)},
    {"study", "metrics", WEFT_KEY_STRING, NULL, "the CSV's metric columns, comma-separated",
     .field = WEFT_KEY_FIELD(study_keys_t, metrics)},
    /* a string, not a path: relative to where weft runs, not to the study, so a study in a
     * read-only place (an installed share/weft/studies) still runs */
    {"study", "results", WEFT_KEY_STRING, NULL,
     "the results CSV, relative to the current directory; unset: STUDY.csv there",
     .field = WEFT_KEY_FIELD(study_keys_t, results)},
};

weft_study_t *
weft_study_load(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) kerr = NULL;
    if (!weft_keyfile_load_file(kf, path, &kerr)) {
        gint code = kerr->domain == G_FILE_ERROR ? WEFT_STUDY_ERROR_IO : WEFT_STUDY_ERROR_PARSE;
        g_set_error(error, WEFT_STUDY_ERROR, code, "%s%s%s",
                    g_str_has_prefix(kerr->message, path) ? "" : path,
                    g_str_has_prefix(kerr->message, path) ? "" : ": ", kerr->message);
        return NULL;
    }
    g_autoptr(weft_study_t) st = g_new0(weft_study_t, 1);
    st->path = g_strdup(path);
    g_autofree char *abs = g_canonicalize_filename(path, NULL);
    st->dir = g_path_get_dirname(abs);
    st->base = g_ptr_array_new_with_free_func(setting_free);
    st->axes = g_ptr_array_new_with_free_func(axis_free);
    st->metrics = g_ptr_array_new();
    if (!g_key_file_has_group(kf, "study")) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_KEY,
                    "%s: missing group [study] (scenario, axis.NAME, mode, metrics, results)",
                    path);
        return NULL;
    }
    /* the fixed keys through their table; their texts live until the end of the load */
    g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
    study_keys_t sk = {0};
    weft_keys_apply_defaults(study_rows, G_N_ELEMENTS(study_rows), &sk);
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "study", NULL, NULL);
    for (guint i = 0; keys[i] != NULL; i++) {
        if (g_str_has_prefix(keys[i], "axis.")) {
            continue;
        }
        const weft_key_t *row = weft_keys_find(study_rows, G_N_ELEMENTS(study_rows), "study",
                                               keys[i]);
        if (row == NULL) {
            g_autofree char *valid = weft_keys_list(study_rows, G_N_ELEMENTS(study_rows), "study");
            g_autofree char *hint =
                weft_keys_suggest(study_rows, G_N_ELEMENTS(study_rows), "study", keys[i]);
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_KEY,
                        "%s: unknown key study.%s%s; valid keys of [study]: %s, axis.NAME", path,
                        keys[i], hint != NULL ? hint : "", valid);
            return NULL;
        }
        g_autofree char *v = g_strstrip(g_key_file_get_value(kf, "study", keys[i], NULL));
        char *text = NULL;
        g_autoptr(GError) kerr2 = NULL;
        if (!weft_key_check(row, v, st->dir, &text, &kerr2) ||
            (g_ptr_array_add(texts, text), !weft_key_apply(row, text, &sk, &kerr2))) {
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE, "%s: %s", path,
                        kerr2->message);
            return NULL;
        }
    }
    st->scenario = g_strdup(sk.scenario);
    st->zip = sk.zip == 1;
    g_autofree char *metrics = g_strdup(sk.metrics);
    g_autofree char *results = g_strdup(sk.results);
    /* a training-run study: the base file is a `weft train` configuration, or the study
     * has no base file and its own groups are [train] or [failures] */
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    if (st->scenario != NULL) {
        st->train = is_train_file(st->scenario);
    } else {
        st->train = weft_job_config_is_train_file(kf);
    }
    if (metrics == NULL) {
        metrics = g_strdup(st->train ? default_train_metrics : default_metrics);
    }
    /* the study's own scenario groups: base overrides, paths relative to the study */
    for (guint g = 0; groups[g] != NULL; g++) {
        if (strcmp(groups[g], "study") == 0) {
            continue;
        }
        g_auto(GStrv) names = g_key_file_get_keys(kf, groups[g], NULL, NULL);
        for (guint i = 0; names != NULL && names[i] != NULL; i++) {
            g_autofree char *v = g_strstrip(g_key_file_get_value(kf, groups[g], names[i], NULL));
            setting_t *s = g_new0(setting_t, 1);
            s->group = g_strdup(groups[g]);
            s->key = g_strdup(names[i]);
            s->value = resolve_value(st, groups[g], names[i], v);
            g_ptr_array_add(st->base, s);
        }
        if ((names == NULL || names[0] == NULL) && st->train) {
            if (!weft_job_config_has_group(groups[g])) {
                g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_BASE,
                            "%s: unknown group [%s]: a training-run study takes [train] and "
                            "[failures]",
                            path, groups[g]);
                return NULL;
            }
        } else if (names == NULL || names[0] == NULL) {
            /* an empty group must still name a scenario group */
            g_autoptr(weft_scenario_t) probe = weft_scenario_new();
            g_autofree char *line = g_strdup_printf("%s.weft-study-probe=1", groups[g]);
            g_autoptr(GError) err = NULL;
            if (!weft_scenario_set(probe, line, &err) &&
                g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY) &&
                strstr(err->message, "unknown group") != NULL) {
                g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_BASE,
                            "%s: unknown group [%s]", path, groups[g]);
                return NULL;
            }
        }
    }
    g_autoptr(GError) berr = NULL;
    g_autoptr(config_t) base = build_base(st, &berr);
    if (base == NULL) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_BASE, "%s: base scenario: %s", path,
                    berr->message);
        return NULL;
    }
    if (!st->train && weft_scenario_get(base->sc, "output", "dir") != NULL) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_KEY,
                    "%s: output.dir = \"%s\": a study writes one CSV; unset output.dir", path,
                    weft_scenario_get(base->sc, "output", "dir"));
        return NULL;
    }
    for (guint i = 0; keys[i] != NULL; i++) {
        if (!g_str_has_prefix(keys[i], "axis.")) {
            continue;
        }
        g_autofree char *v = g_key_file_get_value(kf, "study", keys[i], NULL);
        axis_t *ax = parse_axis(st, keys[i] + strlen("axis."), v, error);
        if (ax == NULL) {
            return NULL;
        }
        for (guint a = 0; a < st->axes->len; a++) {
            axis_t *other = g_ptr_array_index(st->axes, a);
            if (strcmp(other->group, ax->group) == 0 && strcmp(other->key, ax->key) == 0) {
                g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_AXIS,
                            "%s: axis.%s and axis.%s both set %s.%s", path, other->name, ax->name,
                            ax->group, ax->key);
                axis_free(ax);
                return NULL;
            }
        }
        g_ptr_array_add(st->axes, ax);
    }
    guint64 n = 1; /* no axis: the base alone */
    for (guint a = 0; a < st->axes->len; a++) {
        axis_t *ax = g_ptr_array_index(st->axes, a);
        axis_t *first = g_ptr_array_index(st->axes, 0);
        if (st->zip && ax->set->len != first->set->len) {
            g_set_error(
                error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE,
                "%s: mode = zip needs axes of one length: axis.%s has %u values, axis.%s %u", path,
                first->name, first->set->len, ax->name, ax->set->len);
            return NULL;
        }
        n = st->zip ? ax->set->len : n * ax->set->len;
        if (n > MAX_POINTS) {
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_PARSE, "%s: more than %u points",
                        path, MAX_POINTS);
            return NULL;
        }
    }
    st->n_points = (guint)n;
    if (!parse_metrics(st, metrics, error)) {
        return NULL;
    }
    /* the base with every axis at its first value must be runnable as far as a check can tell */
    g_autoptr(config_t) first = build_base(st, error);
    if (first == NULL) {
        return NULL;
    }
    for (guint a = 0; a < st->axes->len; a++) {
        if (!set_axis(st, first, g_ptr_array_index(st->axes, a), 0, error)) {
            return NULL;
        }
    }
    g_autoptr(GError) cerr = NULL;
    if (!check_config(first, &cerr)) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_BASE, "%s: base scenario: %s", path,
                    cerr->message);
        return NULL;
    }
    if (!check_axes(st, error)) {
        return NULL;
    }
    if (results != NULL) {
        st->results = g_steal_pointer(&results);
    } else {
        /* in the current directory, not beside the study (issue 20, item 7) */
        g_autofree char *base_name = g_path_get_basename(abs);
        g_autofree char *stem = g_str_has_suffix(base_name, ".ini")
                                    ? g_strndup(base_name, strlen(base_name) - strlen(".ini"))
                                    : g_strdup(base_name);
        st->results = g_strconcat(stem, ".csv", NULL);
    }
    make_header_and_hash(st, base);
    return g_steal_pointer(&st);
}

/* ---- one point ------------------------------------------------------------------------------ */

/*
 * Runs a training-run point as `weft train` does: resolve, then the Monte Carlo at
 * the configured interval, or at the best one of weft_job_search() when it is auto. The
 * point's Monte Carlo runs in the point's thread (p.threads = 1): a study's parallelism is
 * its points, and the samples do not depend on the thread count (job.h).
 */
static gboolean
run_train(const weft_job_config_t *cfg, weft_study_train_run_t *tr, GError **error)
{
    if (!weft_job_config_resolve(cfg, &tr->p, NULL, error)) {
        return FALSE;
    }
    tr->p.threads = 1;
    guint64 K = tr->p.checkpoint_steps;
    if (tr->p.checkpoint_auto) {
        g_autoptr(weft_job_search_t) search = weft_job_search(&tr->p, TRUE, error);
        if (search == NULL) {
            return FALSE;
        }
        for (guint i = 0; i < search->points->len; i++) {
            const weft_job_mc_t *q = &g_array_index(search->points, weft_job_mc_t, i);
            if (q->checkpoint_steps == search->best_steps) {
                tr->mc = *q; /* the same seeds: what evaluating K again gives */
                return TRUE;
            }
        }
        K = search->best_steps;
    }
    return weft_job_monte_carlo(&tr->p, K, &tr->mc, NULL, error);
}

/* Runs point @i (on @cluster when not NULL: a cluster shared with other points, see
 * share_clusters()) and returns its CSV row (with its newline); *@failed tells whether it
 * failed. */
static char *
run_point(const weft_study_t *st, guint i, const weft_topo_t *cluster, gboolean *failed)
{
    g_autofree guint *idx = g_new0(guint, MAX(st->axes->len, 1));
    point_indexes(st, i, idx);
    GString *row = g_string_new(NULL);
    g_string_append_printf(row, "%u", i);
    for (guint a = 0; a < st->axes->len; a++) {
        axis_t *ax = g_ptr_array_index(st->axes, a);
        g_string_append_c(row, ',');
        append_field(row, g_ptr_array_index(ax->shown, idx[a]));
        if (ax->num != NULL) {
            g_string_append_c(row, ',');
            g_string_append(row, g_ptr_array_index(ax->num, idx[a]));
        }
    }
    gint64 start_us = g_get_monotonic_time();
    if (weft_log_enabled(G_LOG_DOMAIN)) {
        g_autofree char *text = weft_study_point_text(st, i);
        g_debug("point %u of %u starts: %s", i, st->n_points, text);
    }
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_scenario_run_t) run = NULL;
    weft_study_train_run_t tr;
    gboolean ran = FALSE;
    g_autoptr(config_t) sc = build_base(st, &err);
    for (guint a = 0; sc != NULL && a < st->axes->len; a++) {
        if (!set_axis(st, sc, g_ptr_array_index(st->axes, a), idx[a], &err)) {
            g_clear_pointer(&sc, config_free);
        }
    }
    if (sc != NULL && sc->job != NULL) {
        ran = run_train(sc->job, &tr, &err);
    } else if (sc != NULL) {
        weft_scenario_run_options_t ro = {.cluster = cluster};
        run = weft_scenario_run_full(sc->sc, &ro, &err);
        ran = run != NULL;
    }
    for (guint m = 0; m < st->metrics->len; m++) {
        g_string_append_c(row, ',');
        if (ran) {
            weft_study_i_metric_append(row, g_ptr_array_index(st->metrics, m), run, &tr);
        }
    }
    g_debug("point %u done in %.3f s: %s", i,
            (double)(g_get_monotonic_time() - start_us) / G_USEC_PER_SEC,
            ran           ? "ok"
            : err != NULL ? err->message
                          : "unknown error");
    *failed = !ran;
    if (ran) {
        g_string_append(row, ",ok,");
    } else {
        g_string_append(row, ",error,");
        append_field(row, err != NULL ? err->message : "unknown error");
    }
    g_string_append_c(row, '\n');
    return g_string_free(row, FALSE);
}

/* ---- files ---------------------------------------------------------------------------------- */

/* The point index a row starts with; FALSE if it does not start with digits and a comma. */
static gboolean
row_point(const char *row, guint *point)
{
    const char *comma = strchr(row, ',');
    if (comma == NULL || comma == row) {
        return FALSE;
    }
    g_autofree char *num = g_strndup(row, comma - row);
    guint64 v = 0;
    if (!g_ascii_string_to_unsigned(num, 10, 0, G_MAXUINT, &v, NULL)) {
        return FALSE;
    }
    *point = (guint)v;
    return TRUE;
}

static gboolean
write_atomic(const char *path, const char *text, GError **error)
{
    g_autoptr(GError) ioerr = NULL;
    if (!weft_output_write(path, text, -1, &ioerr)) {
        g_set_error_literal(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_IO, ioerr->message);
        return FALSE;
    }
    return TRUE;
}

static gboolean
write_all(int fd, const char *text, gsize len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return FALSE;
        }
        text += n;
        len -= (gsize)n;
    }
    return TRUE;
}

/* Parses "# weft sweep WHAT study=HASH points=N shard=K/M". */
static gboolean
parse_stamp(const char *line, const char *what, char **hash, guint *points, guint *k, guint *n)
{
    g_autofree char *prefix = g_strdup_printf("# weft sweep %s study=", what);
    if (!g_str_has_prefix(line, prefix)) {
        return FALSE;
    }
    char h[65];
    unsigned p = 0, kk = 0, nn = 0;
    if (sscanf(line + strlen(prefix), "%64[0-9a-f] points=%u shard=%u/%u", h, &p, &kk, &nn) != 4) {
        return FALSE;
    }
    *hash = g_strdup(h);
    *points = p;
    *k = kk;
    *n = nn;
    return TRUE;
}

gboolean
weft_study_parse_shard(const char *text, guint *k, guint *n, GError **error)
{
    g_return_val_if_fail(text != NULL && k != NULL && n != NULL, FALSE);
    g_auto(GStrv) parts = g_strsplit(text, "/", -1);
    guint64 kk = 0, nn = 0;
    if (g_strv_length(parts) != 2 ||
        !g_ascii_string_to_unsigned(parts[1], 10, 1, 1u << 20, &nn, NULL) ||
        !g_ascii_string_to_unsigned(parts[0], 10, 1, nn, &kk, NULL)) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_USAGE,
                    "shard \"%s\": expected K/N with 1 <= K <= N <= 1048576", text);
        return FALSE;
    }
    *k = (guint)kk;
    *n = (guint)nn;
    return TRUE;
}

/* ---- the run -------------------------------------------------------------------------------- */

/* A cluster built once for the points whose [cluster] configuration is the same. */
typedef struct {
    weft_topo_t *topo;
    guint users; /* points that have yet to run on it */
} shared_cluster_t;

typedef struct {
    const weft_study_t *st;
    shared_cluster_t **cluster_of; /* by point: its shared cluster, or NULL (built in its run) */
    GPtrArray *clusters;           /* shared_cluster_t, owned; topo NULL once its users are done */
    GMutex lock;
    GCond changed;
    int journal; /* append-only file descriptor */
    char *journal_path;
    char **rows;   /* by point; NULL: not done */
    guint pending; /* queued or running */
    guint running;
    guint done_now; /* rows journaled in this run */
    guint failed;   /* failed rows, journal included */
    guint stop_after;
    gboolean stopping;
    GError *io_error; /* the first journal write error */
} runner_t;

static void
worker(gpointer data, gpointer user_data)
{
    runner_t *r = user_data;
    guint i = GPOINTER_TO_UINT(data) - 1;
    g_mutex_lock(&r->lock);
    if (r->stopping) {
        r->pending--;
        g_cond_broadcast(&r->changed);
        g_mutex_unlock(&r->lock);
        return;
    }
    r->running++;
    g_mutex_unlock(&r->lock);

    gboolean failed = FALSE;
    shared_cluster_t *shared = r->cluster_of[i];
    char *row = run_point(r->st, i, shared != NULL ? shared->topo : NULL, &failed);

    g_mutex_lock(&r->lock);
    r->running--;
    r->pending--;
    weft_topo_t *unused = NULL;
    if (shared != NULL && --shared->users == 0) {
        /* the last point on it is done: no other thread reads it any more */
        unused = g_steal_pointer(&shared->topo);
    }
    if (!r->stopping && r->io_error == NULL) {
        if (write_all(r->journal, row, strlen(row))) {
            r->rows[i] = row;
            row = NULL;
            r->done_now++;
            r->failed += failed ? 1 : 0;
            if (r->stop_after > 0 && r->done_now >= r->stop_after) {
                r->stopping = TRUE;
            }
        } else {
            int e = errno;
            g_set_error(&r->io_error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_IO,
                        "%s: cannot append: %s", r->journal_path, g_strerror(e));
            r->stopping = TRUE;
        }
    }
    g_free(row);
    g_cond_broadcast(&r->changed);
    g_mutex_unlock(&r->lock);
    weft_topo_free(unused);
}

/*
 * Reads the journal at @path for shard k/n of @st into @rows; rewrites it
 * without a torn last line. A missing journal is an empty one.
 */
static gboolean
read_journal(runner_t *r, const char *stamp, guint k, guint n, guint *resumed, GError **error)
{
    g_autofree char *text = NULL;
    g_autoptr(GError) ioerr = NULL;
    if (!g_file_get_contents(r->journal_path, &text, NULL, &ioerr)) {
        if (g_error_matches(ioerr, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
            return TRUE;
        }
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_IO, "%s: cannot read: %s",
                    r->journal_path, ioerr->message);
        return FALSE;
    }
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_autofree char *hash = NULL;
    guint points = 0, jk = 0, jn = 0;
    if (lines[0] == NULL || !parse_stamp(lines[0], "journal", &hash, &points, &jk, &jn)) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_JOURNAL,
                    "%s: not a weft sweep journal (first line \"%s\")", r->journal_path,
                    lines[0] != NULL ? lines[0] : "");
        return FALSE;
    }
    if (strcmp(hash, r->st->hash) != 0 || points != r->st->n_points) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_JOURNAL,
                    "%s: journal of another study (study=%.12s..., %u points; this study is "
                    "%.12s..., %u points): remove it to start again",
                    r->journal_path, hash, points, r->st->hash, r->st->n_points);
        return FALSE;
    }
    if (jk != k || jn != n) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_JOURNAL,
                    "%s: journal of shard %u/%u, not %u/%u", r->journal_path, jk, jn, k, n);
        return FALSE;
    }
    GString *kept = g_string_new(stamp);
    guint n_lines = g_strv_length(lines);
    /* lines[n_lines - 1] is what follows the last newline: empty, or a torn row */
    for (guint l = 1; l + 1 < n_lines; l++) {
        guint p = 0;
        if (!row_point(lines[l], &p) || p >= r->st->n_points || (n > 0 && p % n != k - 1)) {
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_JOURNAL,
                        "%s: line %u: not a row of this study: \"%s\"", r->journal_path, l + 1,
                        lines[l]);
            g_string_free(kept, TRUE);
            return FALSE;
        }
        if (r->rows[p] != NULL) {
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_JOURNAL,
                        "%s: line %u: point %u twice", r->journal_path, l + 1, p);
            g_string_free(kept, TRUE);
            return FALSE;
        }
        r->rows[p] = g_strconcat(lines[l], "\n", NULL);
        /* an ok row ends with status ok and an empty error; a failed row has a message */
        r->failed += g_str_has_suffix(r->rows[p], ",ok,\n") ? 0 : 1;
        g_string_append(kept, r->rows[p]);
        (*resumed)++;
    }
    gboolean ok = write_atomic(r->journal_path, kept->str, error);
    g_string_free(kept, TRUE);
    return ok;
}

static void
report_progress(weft_progress_t *p, const runner_t *r, guint total, guint done)
{
    weft_progress_report(p, total > 0 ? (double)done / total : 1.0,
                         "%u/%u points done, %u failed, %u running", done, total, r->failed,
                         r->running);
}

/* The [cluster] group of an effective configuration (weft_scenario_to_ini()): cluster.file
 * (absolute) and every cluster key with its final value; NULL if there is none. */
static char *
cluster_text(const char *ini)
{
    const char *start = strstr(ini, "\n[cluster]\n");
    if (start == NULL) {
        return NULL;
    }
    const char *end = strstr(start + 1, "\n[");
    return end != NULL ? g_strndup(start, (gsize)(end - start)) : g_strdup(start);
}

static void
shared_cluster_free(gpointer p)
{
    shared_cluster_t *c = p;
    weft_topo_free(c->topo);
    g_free(c);
}

/*
 * Before the threads start: the points to run (shard @k of @n, rows not yet done) that share
 * one effective [cluster] configuration (cluster_text(): the same keys and values, the same
 * cluster.file) share one cluster, built here once per distinct configuration and lent to
 * their runs (weft_scenario_run_options_t.cluster: read only, so threads share it); the last
 * of them frees it. A point alone with its cluster, a point whose configuration does not
 * pass weft_scenario_check() and a training-run study build in their own runs, as do the
 * points of a cluster that fails to build here (their runs report why). Every point of a
 * study loads the same base scenario, so the same text gives the same cluster, name
 * included. Time: one configuration per point (as the run builds it) and one build per
 * distinct cluster, serially; memory: the shared clusters whose points have not all run.
 */
static void
share_clusters(runner_t *r, guint k, guint n)
{
    const weft_study_t *st = r->st;
    r->cluster_of = g_new0(shared_cluster_t *, MAX(st->n_points, 1));
    r->clusters = g_ptr_array_new_with_free_func(shared_cluster_free);
    if (st->train) {
        return;
    }
    /* cluster text -> index into firsts / points (first seen first) */
    g_autoptr(GHashTable) by_text = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GPtrArray) firsts = g_ptr_array_new_with_free_func((GDestroyNotify)config_free);
    g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    g_autofree guint *idx = g_new0(guint, MAX(st->axes->len, 1));
    for (guint i = 0; i < st->n_points; i++) {
        if ((n != 0 && i % n != k - 1) || r->rows[i] != NULL) {
            continue;
        }
        point_indexes(st, i, idx);
        g_autoptr(config_t) sc = build_base(st, NULL);
        for (guint a = 0; sc != NULL && a < st->axes->len; a++) {
            if (!set_axis(st, sc, g_ptr_array_index(st->axes, a), idx[a], NULL)) {
                g_clear_pointer(&sc, config_free);
            }
        }
        if (sc == NULL || sc->sc == NULL || !weft_scenario_check(sc->sc, NULL)) {
            continue;
        }
        g_autofree char *ini = weft_scenario_to_ini(sc->sc);
        char *text = cluster_text(ini);
        if (text == NULL) {
            continue;
        }
        gpointer at = NULL;
        if (!g_hash_table_lookup_extended(by_text, text, NULL, &at)) {
            at = GUINT_TO_POINTER(firsts->len);
            g_hash_table_insert(by_text, text, at);
            g_ptr_array_add(firsts, g_steal_pointer(&sc));
            g_ptr_array_add(points, g_array_new(FALSE, FALSE, sizeof(guint)));
        } else {
            g_free(text);
        }
        g_array_append_val((GArray *)g_ptr_array_index(points, GPOINTER_TO_UINT(at)), i);
    }
    for (guint c = 0; c < firsts->len; c++) {
        const GArray *pts = g_ptr_array_index(points, c);
        if (pts->len < 2) {
            continue;
        }
        const config_t *first = g_ptr_array_index(firsts, c);
        weft_topo_t *topo = weft_scenario_build_cluster(first->sc, NULL);
        if (topo == NULL) {
            continue;
        }
        shared_cluster_t *shared = g_new0(shared_cluster_t, 1);
        shared->topo = topo;
        shared->users = pts->len;
        g_ptr_array_add(r->clusters, shared);
        for (guint j = 0; j < pts->len; j++) {
            r->cluster_of[g_array_index(pts, guint, j)] = shared;
        }
    }
}

gboolean
weft_study_run(weft_study_t *st, const weft_study_options_t *opts, weft_study_stats_t *stats,
               GError **error)
{
    g_return_val_if_fail(st != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    weft_study_options_t defaults = {0};
    if (opts == NULL) {
        opts = &defaults;
    }
    weft_study_stats_t local;
    if (stats == NULL) {
        stats = &local;
    }
    memset(stats, 0, sizeof *stats);
    guint k = opts->shard_k, n = opts->shard_n;
    if ((k == 0) != (n == 0) || k > n) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_USAGE,
                    "shard %u/%u: expected 1 <= K <= N", k, n);
        return FALSE;
    }
    guint jobs = opts->jobs > 0 ? opts->jobs : g_get_num_processors();
    const char *output = opts->output != NULL ? opts->output : st->results;

    /*
     * Before any thread starts: igraph's handlers (process-wide in igraph's
     * non-thread-safe build) and GLib's quark caches of every error domain a
     * point can raise, so threads only read them.
     */
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
    (void)weft_scenario_error_quark();
    (void)weft_topo_error_quark();
    (void)weft_workload_error_quark();
    (void)weft_replay_error_quark();
    (void)weft_net_error_quark();
    (void)weft_coll_error_quark();
    (void)weft_units_error_quark();
    (void)weft_hw_error_quark();
    (void)weft_job_error_quark();
    (void)weft_fault_error_quark();

    runner_t r = {.st = st, .stop_after = opts->stop_after, .journal = -1};
    g_mutex_init(&r.lock);
    g_cond_init(&r.changed);
    r.rows = g_new0(char *, MAX(st->n_points, 1));
    r.journal_path = g_strconcat(output, ".partial", NULL);
    g_autofree char *stamp = g_strdup_printf(
        "# weft sweep journal study=%s points=%u shard=%u/%u\n", st->hash, st->n_points, k, n);
    gboolean ok = FALSE;
    GThreadPool *pool = NULL;

    if (!opts->resume && g_file_test(r.journal_path, G_FILE_TEST_EXISTS)) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_JOURNAL,
                    "%s: a journal of an unfinished study exists: run with --resume to finish "
                    "it, or remove it to start again",
                    r.journal_path);
        goto out;
    }
    if (opts->resume) {
        if (!read_journal(&r, stamp, k, n, &stats->resumed, error)) {
            goto out;
        }
    }
    if (!g_file_test(r.journal_path, G_FILE_TEST_EXISTS) &&
        !write_atomic(r.journal_path, stamp, error)) {
        goto out;
    }
    r.journal = g_open(r.journal_path, O_WRONLY | O_APPEND, 0);
    if (r.journal < 0) {
        int e = errno;
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_IO, "%s: cannot open: %s",
                    r.journal_path, g_strerror(e));
        goto out;
    }
    guint total = 0;
    for (guint i = 0; i < st->n_points; i++) {
        total += (n == 0 || i % n == k - 1) ? 1 : 0;
    }
    stats->points = total;
    share_clusters(&r, k, n);
    pool = g_thread_pool_new(worker, &r, (gint)MIN(jobs, (guint)G_MAXINT), FALSE, error);
    if (pool == NULL) {
        goto out;
    }
    g_mutex_lock(&r.lock);
    for (guint i = 0; i < st->n_points; i++) {
        if ((n == 0 || i % n == k - 1) && r.rows[i] == NULL) {
            r.pending++;
            g_thread_pool_push(pool, GUINT_TO_POINTER(i + 1), NULL);
        }
    }
    while (r.pending > 0) {
        g_cond_wait_until(&r.changed, &r.lock, g_get_monotonic_time() + G_TIME_SPAN_SECOND / 4);
        if (weft_progress_due(opts->progress)) {
            report_progress(opts->progress, &r, total, stats->resumed + r.done_now);
        }
    }
    weft_progress_finish(opts->progress);
    g_mutex_unlock(&r.lock);
    g_thread_pool_free(pool, FALSE, TRUE);
    pool = NULL;
    stats->ran = r.done_now;
    stats->failed = r.failed;
    if (r.io_error != NULL) {
        g_propagate_error(error, g_steal_pointer(&r.io_error));
        goto out;
    }
    if (stats->resumed + r.done_now < total) {
        ok = TRUE; /* stopped early (stop_after): the journal keeps the rows */
        goto out;
    }
    GString *csv = g_string_new(NULL);
    if (n > 0) {
        g_string_append_printf(csv, "# weft sweep shard study=%s points=%u shard=%u/%u\n", st->hash,
                               st->n_points, k, n);
    }
    g_string_append(csv, st->header);
    for (guint i = 0; i < st->n_points; i++) {
        if (r.rows[i] != NULL) {
            g_string_append(csv, r.rows[i]);
        }
    }
    ok = write_atomic(output, csv->str, error);
    g_string_free(csv, TRUE);
    if (ok) {
        close(r.journal);
        r.journal = -1;
        g_unlink(r.journal_path);
        stats->done = TRUE;
    }
out:
    if (pool != NULL) {
        g_thread_pool_free(pool, FALSE, TRUE);
    }
    /* GLib keeps finished pools' threads for reuse; a study is done with them */
    g_thread_pool_stop_unused_threads();
    if (r.journal >= 0) {
        close(r.journal);
    }
    for (guint i = 0; i < st->n_points; i++) {
        g_free(r.rows[i]);
    }
    g_free(r.rows);
    g_free(r.cluster_of);
    g_clear_pointer(&r.clusters, g_ptr_array_unref); /* those of points never run */
    g_free(r.journal_path);
    g_clear_error(&r.io_error);
    g_mutex_clear(&r.lock);
    g_cond_clear(&r.changed);
    return ok;
}

/* ---- merge ---------------------------------------------------------------------------------- */

gboolean
weft_study_merge(const char *const *inputs, const char *output, GError **error)
{
    g_return_val_if_fail(inputs != NULL && output != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    if (inputs[0] == NULL) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_USAGE, "no shard CSV to merge");
        return FALSE;
    }
    g_autofree char *hash = NULL;
    g_autofree char *header = NULL;
    guint points = 0;
    g_autoptr(GPtrArray) rows = NULL; /* char *, by point */
    g_autoptr(GArray) from = NULL;    /* guint: input file of each row */
    for (guint f = 0; inputs[f] != NULL; f++) {
        g_autofree char *text = NULL;
        g_autoptr(GError) ioerr = NULL;
        if (!g_file_get_contents(inputs[f], &text, NULL, &ioerr)) {
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_IO, "%s: cannot read: %s",
                        inputs[f], ioerr->message);
            return FALSE;
        }
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        g_autofree char *h = NULL;
        guint p = 0, k = 0, n = 0;
        if (lines[0] == NULL || lines[1] == NULL ||
            !parse_stamp(lines[0], "shard", &h, &p, &k, &n)) {
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_MERGE,
                        "%s: not a shard CSV of weft sweep --shard (no \"# weft sweep shard\" "
                        "first line)",
                        inputs[f]);
            return FALSE;
        }
        if (f == 0) {
            hash = g_strdup(h);
            header = g_strdup(lines[1]);
            points = p;
            rows = g_ptr_array_new_full(p, g_free);
            g_ptr_array_set_size(rows, (gint)p);
            from = g_array_sized_new(FALSE, TRUE, sizeof(guint), p);
            g_array_set_size(from, p);
        } else if (strcmp(h, hash) != 0 || p != points || strcmp(lines[1], header) != 0) {
            g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_MERGE,
                        "%s: a shard of another study (study=%.12s..., %u points) than %s "
                        "(study=%.12s..., %u points)",
                        inputs[f], h, p, inputs[0], hash, points);
            return FALSE;
        }
        for (guint l = 2; lines[l] != NULL; l++) {
            if (lines[l][0] == '\0' && lines[l + 1] == NULL) {
                break;
            }
            guint pt = 0;
            if (!row_point(lines[l], &pt) || pt >= points) {
                g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_MERGE,
                            "%s: line %u is not a row of the study: \"%s\"", inputs[f], l + 1,
                            lines[l]);
                return FALSE;
            }
            if (g_ptr_array_index(rows, pt) != NULL) {
                g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_MERGE,
                            "point %u twice: in %s and in %s", pt,
                            inputs[g_array_index(from, guint, pt)], inputs[f]);
                return FALSE;
            }
            g_ptr_array_index(rows, pt) = g_strdup(lines[l]);
            g_array_index(from, guint, pt) = f;
        }
    }
    GString *missing = g_string_new(NULL);
    guint n_missing = 0;
    for (guint i = 0; i < points; i++) {
        if (g_ptr_array_index(rows, i) == NULL) {
            if (n_missing < 20) {
                g_string_append_printf(missing, "%s%u", n_missing > 0 ? ", " : "", i);
            }
            n_missing++;
        }
    }
    if (n_missing > 0) {
        g_set_error(error, WEFT_STUDY_ERROR, WEFT_STUDY_ERROR_MERGE,
                    "%u of %u points missing from the shards: %s%s", n_missing, points,
                    missing->str, n_missing > 20 ? ", ..." : "");
        g_string_free(missing, TRUE);
        return FALSE;
    }
    g_string_free(missing, TRUE);
    GString *csv = g_string_new(header);
    g_string_append_c(csv, '\n');
    for (guint i = 0; i < points; i++) {
        g_string_append(csv, g_ptr_array_index(rows, i));
        g_string_append_c(csv, '\n');
    }
    gboolean ok = write_atomic(output, csv->str, error);
    g_string_free(csv, TRUE);
    return ok;
}
