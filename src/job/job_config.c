/* SPDX-License-Identifier: MIT */
/*
 * `weft train` configuration files ([train] and [failures] groups, checked key by key, then
 * resolved into weft_job_params_t: component counts from a cluster, the step time from a
 * scenario replay) and the reports (summary.json, the goodput-against-interval CSV). See
 * job.h and doc/failures.md.
 */
#define G_LOG_DOMAIN "weft-job"

#include "job/job.h"

#include "config.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "core/json.h"
#include "core/keyfile.h"
#include "core/output.h"
#include "core/units.h"
#include "fault/step.h"
#include "scenario/scenario.h"
#include "topo/topo.h"

typedef enum {
    K_PATH,     /* a file name; relative to the config file */
    K_COUNT,    /* an integer >= 1 */
    K_COUNT0,   /* an integer >= 0 */
    K_AMOUNT,   /* a number > 0 (tokens) */
    K_STEPTIME, /* a duration > 0 */
    K_DURATION, /* a duration >= 0 */
    K_MTBF,     /* a duration > 0, or off */
    K_INTERVAL, /* auto or an integer >= 1 */
    K_BYTES,    /* a size >= 0 */
    K_RATE,     /* a rate > 0 */
    K_DIST,     /* exponential | weibull */
    K_SHAPE,    /* a number > 0 */
    K_SEED,     /* an unsigned 64-bit integer */
    K_START,    /* stationary | new */
} ktype_t;

typedef struct {
    const char *group, *key;
    ktype_t type;
    const char *def; /* NULL: unset by default (the comment in to_ini says what that means) */
    const char *help;
} key_t_;

/* Defaults and their sources are in doc/failures.md. */
static const key_t_ train_keys[] = {
    {"train", "cluster", K_PATH, NULL, "cluster file: component counts"},
    {"train", "gpus", K_COUNT, NULL, "GPUs, when there is no cluster file"},
    {"train", "gpus_per_host", K_COUNT, "8", "GPUs per host, with gpus"},
    {"train", "scenario", K_PATH, NULL, "scenario whose replayed step time is the step time"},
    {"train", "step_time", K_STEPTIME, NULL, "time of one training step"},
    {"train", "steps", K_COUNT, NULL, "training steps"},
    {"train", "tokens", K_AMOUNT, NULL, "training tokens (with tokens_per_step)"},
    {"train", "tokens_per_step", K_AMOUNT, NULL, "tokens per step (global batch)"},
    {"train", "span", K_STEPTIME, NULL, "a fixed wall-clock span instead of steps"},
    {"train", "checkpoint_interval", K_INTERVAL, "auto", "steps between checkpoints, or auto"},
    {"train", "checkpoint_size", K_BYTES, "5.67TB", "bytes written per checkpoint"},
    {"train", "storage_write_bandwidth", K_RATE, "2TB/s", "checkpoint write bandwidth"},
    {"train", "storage_read_bandwidth", K_RATE, NULL, "reload bandwidth (default: write)"},
    {"train", "detection_time", K_DURATION, "60s", "time to notice a failure"},
    {"train", "reschedule_time", K_DURATION, "300s", "time to get nodes and relaunch"},
    {"train", "samples", K_COUNT, "1000", "Monte Carlo samples"},
    {"train", "seed", K_SEED, "1", "random seed"},
    {"train", "threads", K_COUNT0, "0", "worker threads (0: one per CPU)"},
    {"failures", "distribution", K_DIST, "exponential", "exponential or weibull"},
    {"failures", "weibull_shape", K_SHAPE, "0.7", "Weibull shape k"},
    {"failures", "weibull_start", K_START, "stationary", "Weibull parts' ages: stationary or new"},
    {"failures", "degrade_repair_time", K_STEPTIME, "4h", "how long a degrading fault lasts"},
};

/*
 * The replay-based step-time provider (job.h: weft_job_step_time_fn): the step
 * of train.scenario replayed with the degrading fault in force from its start
 * (weft_fault_degrade_line()), once per (class, component), cached.
 */
typedef struct {
    char *scenario;           /* the scenario file */
    weft_scenario_run_t *run; /* its unfaulted replay */
    const weft_topo_t *topo;  /* its cluster (run's), for the components' names (read only) */
    GMutex lock;              /* guards cache */
    GHashTable *cache;        /* "class:component" -> double * (step seconds) */
} step_provider_t;

static void
step_provider_free(step_provider_t *sp)
{
    if (sp == NULL) {
        return;
    }
    g_free(sp->scenario);
    weft_scenario_run_free(sp->run);
    g_mutex_clear(&sp->lock);
    g_hash_table_unref(sp->cache);
    g_free(sp);
}

static gboolean
replay_step_time(const weft_fault_event_t *fault, double nominal_step_s, double *step_s,
                 gpointer user_data, GError **error)
{
    step_provider_t *sp = user_data;
    g_autofree char *key =
        g_strdup_printf("%d:%" G_GUINT64_FORMAT, (int)fault->component_class, fault->component);
    g_mutex_lock(&sp->lock);
    const double *hit = g_hash_table_lookup(sp->cache, key);
    if (hit != NULL) {
        *step_s = *hit;
        g_mutex_unlock(&sp->lock);
        return TRUE;
    }
    g_mutex_unlock(&sp->lock);
    g_autoptr(GError) ferr = NULL;
    g_autofree char *line = weft_fault_degrade_line(sp->topo, fault, &ferr);
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(weft_scenario_run_t) run = NULL;
    if (line == NULL || !weft_scenario_load(sc, sp->scenario, &ferr) ||
        !weft_scenario_set_value(sc, "faults", "events", line, &ferr)) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_RUN, "train.scenario = '%s': %s",
                    sp->scenario, ferr->message);
        return FALSE;
    }
    /* the step-time replays write nothing */
    weft_scenario_unset(sc, "output", "dir");
    weft_scenario_unset(sc, "output", "timeline");
    weft_scenario_unset(sc, "output", "link_series");
    run = weft_scenario_run(sc, &ferr);
    if (run == NULL) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_RUN,
                    "train.scenario = '%s' under the degrading fault '%s': %s", sp->scenario, line,
                    ferr->message);
        return FALSE;
    }
    /* a fault never speeds a step up (job.h); routes may shift by a picosecond or so */
    double s = MAX(weft_time_to_s(run->replay->step_ps), nominal_step_s);
    g_mutex_lock(&sp->lock);
    g_hash_table_insert(sp->cache, g_steal_pointer(&key), g_memdup2(&s, sizeof s));
    g_mutex_unlock(&sp->lock);
    *step_s = s;
    return TRUE;
}

struct weft_job_config {
    GHashTable *values;        /* "group.key" -> the text set (paths resolved) */
    char *origin;              /* the last file loaded, for messages */
    step_provider_t *provider; /* made by weft_job_config_resolve() when needed */
};

weft_job_config_t *
weft_job_config_new(void)
{
    weft_job_config_t *cfg = g_new0(weft_job_config_t, 1);
    cfg->values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    return cfg;
}

void
weft_job_config_free(weft_job_config_t *cfg)
{
    if (cfg == NULL) {
        return;
    }
    g_hash_table_unref(cfg->values);
    g_free(cfg->origin);
    step_provider_free(cfg->provider);
    g_free(cfg);
}

/* "FILE: " or "" (command line), for messages. */
static char *
where(const char *origin)
{
    return origin != NULL ? g_strdup_printf("%s: ", origin) : g_strdup("");
}

/* Finds @group.@key: a train_keys entry, or a [failures] mtbf_CLASS / degrade_mtbf_CLASS key
 * (filled into @tmp). */
static const key_t_ *
find_key(const char *group, const char *key, key_t_ *tmp)
{
    for (guint i = 0; i < G_N_ELEMENTS(train_keys); i++) {
        if (strcmp(train_keys[i].group, group) == 0 && strcmp(train_keys[i].key, key) == 0) {
            return &train_keys[i];
        }
    }
    if (strcmp(group, "failures") != 0) {
        return NULL;
    }
    const char *cls = NULL;
    if (g_str_has_prefix(key, "mtbf_")) {
        cls = key + 5;
    } else if (g_str_has_prefix(key, "degrade_mtbf_")) {
        cls = key + 13;
    } else {
        return NULL;
    }
    for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
        if (strcmp(cls, weft_fault_class_name(c)) == 0) {
            *tmp = (key_t_){"failures", key, K_MTBF, NULL, NULL};
            return tmp;
        }
    }
    return NULL;
}

static char *
valid_keys(const char *group)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < G_N_ELEMENTS(train_keys); i++) {
        if (strcmp(train_keys[i].group, group) == 0) {
            g_string_append_printf(s, "%s%s", s->len ? ", " : "", train_keys[i].key);
        }
    }
    if (strcmp(group, "failures") == 0) {
        g_string_append(s, ", mtbf_CLASS, degrade_mtbf_CLASS (CLASS: ");
        for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
            g_string_append_printf(s, "%s%s", c ? ", " : "", weft_fault_class_name(c));
        }
        g_string_append(s, ")");
    }
    return g_string_free(s, FALSE);
}

/* Parses a whole number in [min, 2^53]. */
static gboolean
parse_integer(const char *text, double min, guint64 *v, GError **error)
{
    double x;
    if (!weft_units_parse_count(text, &x, error)) {
        return FALSE;
    }
    if (x != floor(x) || x < min || x > 9007199254740992.0) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE, "expected a whole number >= %.0f",
                    min);
        return FALSE;
    }
    *v = (guint64)x;
    return TRUE;
}

/* Parses @text as a value of @k; values in SI units (seconds, bytes, bytes/s) into @num. */
static gboolean
parse_value(const key_t_ *k, const char *text, double *num, GError **error)
{
    guint64 u = 0;
    double x = 0.0;
    switch (k->type) {
    case K_PATH:
        if (text[0] == '\0') {
            g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE, "empty file name");
            return FALSE;
        }
        return TRUE;
    case K_COUNT:
    case K_COUNT0:
        if (!parse_integer(text, k->type == K_COUNT ? 1.0 : 0.0, &u, error)) {
            return FALSE;
        }
        *num = (double)u;
        return TRUE;
    case K_AMOUNT:
        if (!weft_units_parse_count(text, &x, error)) {
            return FALSE;
        }
        if (!(x > 0.0)) {
            g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE, "must be > 0");
            return FALSE;
        }
        *num = x;
        return TRUE;
    case K_STEPTIME:
    case K_DURATION:
    case K_MTBF:
        if (!weft_fault_parse_duration(text, k->type == K_MTBF, &x, error)) {
            return FALSE;
        }
        if (k->type != K_DURATION && !(x > 0.0)) {
            g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE,
                        k->type == K_MTBF ? "an MTBF must be > 0 (write 'off' for never)"
                                          : "must be > 0");
            return FALSE;
        }
        *num = x;
        return TRUE;
    case K_INTERVAL:
        if (strcmp(text, "auto") == 0) {
            *num = 0.0;
            return TRUE;
        }
        if (!parse_integer(text, 1.0, &u, error)) {
            g_prefix_error(error, "expected 'auto' or steps between checkpoints: ");
            return FALSE;
        }
        *num = (double)u;
        return TRUE;
    case K_BYTES: {
        guint64 b;
        if (!weft_units_parse_bytes(text, &b, error)) {
            return FALSE;
        }
        *num = (double)b;
        return TRUE;
    }
    case K_RATE:
        if (!weft_units_parse_rate(text, &x, error)) {
            return FALSE;
        }
        if (!(x > 0.0)) {
            g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE, "must be > 0");
            return FALSE;
        }
        *num = x;
        return TRUE;
    case K_DIST: {
        weft_fault_dist_t d;
        return weft_fault_dist_from_name(text, &d, error);
    }
    case K_SHAPE:
        if (!weft_units_parse_count(text, &x, error)) {
            return FALSE;
        }
        if (!(x > 0.0) || !isfinite(x)) {
            g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE, "must be > 0");
            return FALSE;
        }
        *num = x;
        return TRUE;
    case K_START:
        if (strcmp(text, "stationary") != 0 && strcmp(text, "new") != 0) {
            g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE,
                        "expected stationary (parts of every age) or new (all new at time 0)");
            return FALSE;
        }
        return TRUE;
    case K_SEED: {
        char *end = NULL;
        errno = 0;
        guint64 s = g_ascii_strtoull(text, &end, 10);
        if (end == text || *end != '\0' || errno != 0 || text[0] == '-') {
            g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE,
                        "expected an unsigned integer");
            return FALSE;
        }
        *num = (double)s;
        return TRUE;
    }
    }
    return TRUE;
}

static gboolean
set_checked(weft_job_config_t *cfg, const char *origin, const char *group, const char *key,
            const char *value, const char *base_dir, GError **error)
{
    key_t_ tmp;
    const key_t_ *k = NULL;
    g_autofree char *at = where(origin);
    if (strcmp(group, "train") != 0 && strcmp(group, "failures") != 0) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY,
                    "%sunknown group [%s]: expected [train] or [failures]", at, group);
        return FALSE;
    }
    k = find_key(group, key, &tmp);
    if (k == NULL) {
        g_autofree char *valid = valid_keys(group);
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY,
                    "%sunknown key %s.%s; valid keys of [%s]: %s", at, group, key, group, valid);
        return FALSE;
    }
    g_autofree char *v = g_strstrip(g_strdup(value));
    g_autoptr(GError) perr = NULL;
    double num;
    if (!parse_value(k, v, &num, &perr)) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE, "%s%s.%s = '%s': %s", at, group,
                    key, v, perr->message);
        return FALSE;
    }
    /* Paths are kept absolute (relative to the config file, or to the working directory
     * on the command line) so that a saved train.ini runs again from anywhere. */
    g_autofree char *base_abs = base_dir != NULL ? g_canonicalize_filename(base_dir, NULL) : NULL;
    char *stored = k->type == K_PATH && v[0] != '\0' ? g_canonicalize_filename(v, base_abs)
                                                     : g_steal_pointer(&v);
    g_hash_table_replace(cfg->values, g_strdup_printf("%s.%s", group, key), stored);
    return TRUE;
}

gboolean
weft_job_config_set_value(weft_job_config_t *cfg, const char *group, const char *key,
                          const char *value, GError **error)
{
    return set_checked(cfg, NULL, group, key, value, NULL, error);
}

gboolean
weft_job_config_set(weft_job_config_t *cfg, const char *assignment, GError **error)
{
    const char *eq = strchr(assignment, '=');
    const char *dot = strchr(assignment, '.');
    if (eq == NULL || dot == NULL || dot > eq) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_PARSE,
                    "--set %s: expected GROUP.KEY=VALUE, e.g. train.samples=100", assignment);
        return FALSE;
    }
    g_autofree char *group = g_strndup(assignment, (gsize)(dot - assignment));
    g_autofree char *key = g_strstrip(g_strndup(dot + 1, (gsize)(eq - dot - 1)));
    if (!weft_job_config_set_value(cfg, g_strstrip(group), key, eq + 1, error)) {
        g_prefix_error(error, "--set: ");
        return FALSE;
    }
    return TRUE;
}

gboolean
weft_job_config_load(weft_job_config_t *cfg, const char *path, GError **error)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) kerr = NULL;
    if (!weft_keyfile_load_file(kf, path, &kerr)) {
        g_set_error(error, WEFT_JOB_ERROR,
                    kerr->domain == G_FILE_ERROR ? WEFT_JOB_ERROR_IO : WEFT_JOB_ERROR_PARSE,
                    "%s: %s", path, kerr->message);
        return FALSE;
    }
    g_autofree char *dir = g_path_get_dirname(path);
    gsize n_groups = 0;
    g_auto(GStrv) groups = g_key_file_get_groups(kf, &n_groups);
    for (gsize g = 0; g < n_groups; g++) {
        g_auto(GStrv) keys = g_key_file_get_keys(kf, groups[g], NULL, NULL);
        if (strcmp(groups[g], "train") != 0 && strcmp(groups[g], "failures") != 0) {
            g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY,
                        "%s: unknown group [%s]: expected [train] or [failures]", path, groups[g]);
            return FALSE;
        }
        for (gsize k = 0; keys != NULL && keys[k] != NULL; k++) {
            g_autofree char *value = g_key_file_get_value(kf, groups[g], keys[k], NULL);
            if (!set_checked(cfg, path, groups[g], keys[k], value, dir, error)) {
                return FALSE;
            }
        }
    }
    g_free(cfg->origin);
    cfg->origin = g_strdup(path);
    return TRUE;
}

const char *
weft_job_config_get(const weft_job_config_t *cfg, const char *group, const char *key)
{
    g_autofree char *name = g_strdup_printf("%s.%s", group, key);
    return g_hash_table_lookup(cfg->values, name);
}

/* The effective text of a key: its value, else its default, else NULL. */
static const char *
text_of(const weft_job_config_t *cfg, const char *group, const char *key)
{
    const char *v = weft_job_config_get(cfg, group, key);
    if (v != NULL) {
        return v;
    }
    key_t_ tmp;
    const key_t_ *k = find_key(group, key, &tmp);
    return k != NULL ? k->def : NULL;
}

static char *
format_duration(double s)
{
    if (!isfinite(s)) {
        return g_strdup("off");
    }
    if (s >= 86400.0) {
        return g_strdup_printf("%.9gd", s / 86400.0);
    }
    if (s >= 3600.0) {
        return g_strdup_printf("%.9gh", s / 3600.0);
    }
    return g_strdup_printf("%.9gs", s);
}

char *
weft_job_config_to_ini(const weft_job_config_t *cfg)
{
    GString *s = g_string_new("# weft " PACKAGE_VERSION " train: effective configuration\n");
    g_string_append(s, "[train]\n");
    for (guint i = 0; i < G_N_ELEMENTS(train_keys); i++) {
        const key_t_ *k = &train_keys[i];
        if (strcmp(k->group, "train") != 0) {
            continue;
        }
        const char *v = text_of(cfg, k->group, k->key);
        if (v != NULL) {
            g_string_append_printf(s, "%s = %s\n", k->key, v);
        } else {
            g_string_append_printf(s, "# %s = (unset: %s)\n", k->key, k->help);
        }
    }
    g_string_append(s, "\n[failures]\n");
    for (guint i = 0; i < G_N_ELEMENTS(train_keys); i++) {
        const key_t_ *k = &train_keys[i];
        if (strcmp(k->group, "failures") == 0) {
            g_string_append_printf(s, "%s = %s\n", k->key, text_of(cfg, k->group, k->key));
        }
    }
    weft_fault_rates_t def;
    weft_fault_rates_init_default(&def);
    for (guint deg = 0; deg < 2; deg++) {
        for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
            g_autofree char *key =
                g_strdup_printf("%smtbf_%s", deg ? "degrade_" : "", weft_fault_class_name(c));
            const char *v = weft_job_config_get(cfg, "failures", key);
            g_autofree char *d = format_duration(deg ? def.degrade_mtbf_s[c] : def.mtbf_s[c]);
            g_string_append_printf(s, "%s = %s\n", key, v != NULL ? v : d);
        }
    }
    return g_string_free(s, FALSE);
}

/* The numeric value of a key already checked when set (or its default). */
static gboolean
num_of(const weft_job_config_t *cfg, const char *group, const char *key, double *num)
{
    const char *v = text_of(cfg, group, key);
    if (v == NULL) {
        return FALSE;
    }
    key_t_ tmp;
    const key_t_ *k = find_key(group, key, &tmp);
    g_autoptr(GError) err = NULL;
    if (!parse_value(k, v, num, &err)) {
        g_error("%s.%s = '%s' was checked when set: %s", group, key, v, err->message);
    }
    return TRUE;
}

gboolean
weft_job_config_resolve(const weft_job_config_t *cfg, weft_job_params_t *p, GString *notes,
                        GError **error)
{
    g_autofree char *origin = where(cfg->origin);
    weft_job_params_init(p);
    double x;

    /* failures */
    const char *dist = text_of(cfg, "failures", "distribution");
    if (!weft_fault_dist_from_name(dist, &p->rates.dist, NULL)) {
        g_assert_not_reached();
    }
    num_of(cfg, "failures", "weibull_shape", &p->rates.weibull_shape);
    p->rates.weibull_new = strcmp(text_of(cfg, "failures", "weibull_start"), "new") == 0;
    num_of(cfg, "failures", "degrade_repair_time", &p->rates.degrade_repair_s);
    for (guint deg = 0; deg < 2; deg++) {
        for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
            g_autofree char *key =
                g_strdup_printf("%smtbf_%s", deg ? "degrade_" : "", weft_fault_class_name(c));
            if (num_of(cfg, "failures", key, &x)) {
                (deg ? p->rates.degrade_mtbf_s : p->rates.mtbf_s)[c] = x;
            }
        }
    }

    /* the run's checkpoints and restarts */
    double size_B, write_Bps, read_Bps, detect_s, resched_s;
    num_of(cfg, "train", "checkpoint_size", &size_B);
    num_of(cfg, "train", "storage_write_bandwidth", &write_Bps);
    if (!num_of(cfg, "train", "storage_read_bandwidth", &read_Bps)) {
        read_Bps = write_Bps;
    }
    num_of(cfg, "train", "detection_time", &detect_s);
    num_of(cfg, "train", "reschedule_time", &resched_s);
    p->checkpoint_write_s = size_B / write_Bps;
    p->restart_s = detect_s + resched_s + size_B / read_Bps;
    num_of(cfg, "train", "checkpoint_interval", &x);
    p->checkpoint_auto = x == 0.0;
    p->checkpoint_steps = p->checkpoint_auto ? 1 : (guint64)x;
    num_of(cfg, "train", "samples", &x);
    if (x > G_MAXUINT32 / 2) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE,
                    "%strain.samples = %.0f: at most %u", origin, x, G_MAXUINT32 / 2);
        return FALSE;
    }
    p->samples = (guint)x;
    num_of(cfg, "train", "threads", &x);
    p->threads = (guint)MIN(x, 1024.0);
    const char *seed = text_of(cfg, "train", "seed");
    p->seed = g_ascii_strtoull(seed, NULL, 10);

    /* the step time */
    const char *scenario = text_of(cfg, "train", "scenario");
    gboolean have_step = num_of(cfg, "train", "step_time", &p->step_time_s);
    if (scenario != NULL && have_step) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY,
                    "%strain.step_time and train.scenario both give the step time; keep one",
                    origin);
        return FALSE;
    }
    if (scenario == NULL && !have_step) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY,
                    "%sno step time: set train.step_time (e.g. 9.02s) or train.scenario "
                    "(a scenario to replay)",
                    origin);
        return FALSE;
    }
    g_autoptr(weft_scenario_run_t) run = NULL;
    if (scenario != NULL) {
        g_autoptr(weft_scenario_t) sc = weft_scenario_new();
        g_autoptr(GError) serr = NULL;
        gboolean loaded = weft_scenario_load(sc, scenario, &serr);
        if (loaded) {
            /* weft train writes its own outputs (--out); the step's replay writes nothing */
            weft_scenario_unset(sc, "output", "dir");
            weft_scenario_unset(sc, "output", "timeline");
            weft_scenario_unset(sc, "output", "link_series");
        }
        if (!loaded || (run = weft_scenario_run(sc, &serr)) == NULL) {
            g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_RUN, "%strain.scenario = '%s': %s",
                        origin, scenario, serr->message);
            return FALSE;
        }
        p->step_time_s = weft_time_to_s(run->replay->step_ps);
        g_debug("step time %.6f s from replaying train.scenario %s", p->step_time_s, scenario);
        if (!(p->step_time_s > 0.0)) {
            g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE,
                        "%strain.scenario = '%s': the replayed step takes 0 s", origin, scenario);
            return FALSE;
        }
        if (notes != NULL) {
            g_string_append_printf(notes, "step time %.6f s from replaying %s\n", p->step_time_s,
                                   scenario);
        }
        /* Degrading faults: their step time from the same scenario replayed under them. */
        gboolean degrading = FALSE;
        for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
            if (isfinite(p->rates.degrade_mtbf_s[c])) {
                degrading = TRUE;
                if (c != WEFT_FAULT_NIC && c != WEFT_FAULT_SWITCH && c != WEFT_FAULT_CABLE) {
                    const char *cls = weft_fault_class_name((weft_fault_class_t)c);
                    g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY,
                                "%sfailures.degrade_mtbf_%s: a degrading %s fault has no in-step "
                                "model to replay the step under (only cable, NIC and switch "
                                "faults degrade)",
                                origin, cls, cls);
                    return FALSE;
                }
            }
        }
        if (degrading) {
            /* resolve may run more than once on one configuration: one provider */
            weft_job_config_t *mut = (weft_job_config_t *)cfg;
            step_provider_free(mut->provider);
            step_provider_t *sp = g_new0(step_provider_t, 1);
            sp->scenario = g_strdup(scenario);
            sp->run = g_steal_pointer(&run);
            sp->topo = sp->run->topo;
            g_mutex_init(&sp->lock);
            sp->cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
            mut->provider = sp;
            p->step_time_fn = replay_step_time;
            p->step_time_data = sp;
            if (notes != NULL) {
                g_string_append(notes, "degrading faults: the step replayed under each one\n");
            }
        }
    }

    /* the run's length */
    double steps = 0.0, tokens = 0.0, tps = 0.0, span = 0.0;
    gboolean have_steps = num_of(cfg, "train", "steps", &steps);
    gboolean have_tokens = num_of(cfg, "train", "tokens", &tokens);
    gboolean have_tps = num_of(cfg, "train", "tokens_per_step", &tps);
    gboolean have_span = num_of(cfg, "train", "span", &span);
    if (have_tokens != have_tps) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY,
                    "%strain.tokens and train.tokens_per_step go together", origin);
        return FALSE;
    }
    if ((int)have_steps + (int)have_tokens + (int)have_span != 1) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY,
                    "%sgive the run's length one way: train.steps, train.tokens (with "
                    "tokens_per_step) or train.span (a wall-clock span such as 54d)",
                    origin);
        return FALSE;
    }
    if (have_tokens) {
        steps = ceil(tokens / tps);
    }
    if (have_span) {
        p->steps = G_MAXUINT64;
        p->span_s = span;
    } else {
        p->steps = (guint64)steps;
        p->span_s = INFINITY;
    }

    /* the components */
    const char *cluster = text_of(cfg, "train", "cluster");
    double gpus = 0.0, per_host = 8.0;
    gboolean have_gpus = num_of(cfg, "train", "gpus", &gpus);
    num_of(cfg, "train", "gpus_per_host", &per_host);
    if (cluster != NULL && have_gpus) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY,
                    "%strain.cluster and train.gpus both give the cluster; keep one", origin);
        return FALSE;
    }
    if (cluster != NULL) {
        g_autoptr(GError) terr = NULL;
        weft_topo_t *topo = weft_topo_load(cluster, &terr);
        if (topo == NULL) {
            g_set_error(error, WEFT_JOB_ERROR,
                        g_error_matches(terr, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_IO)
                            ? WEFT_JOB_ERROR_IO
                            : WEFT_JOB_ERROR_VALUE,
                        "%strain.cluster = '%s': %s", origin, cluster, terr->message);
            return FALSE;
        }
        weft_fault_counts_from_topo(topo, &p->counts);
        weft_topo_free(topo);
        if (notes != NULL) {
            g_string_append_printf(notes, "components counted in %s\n", cluster);
        }
    } else if (have_gpus) {
        weft_fault_counts_for_gpus((guint64)gpus, (guint)per_host, &p->counts);
        if (notes != NULL) {
            g_string_append_printf(notes,
                                   "components for %.0f GPUs as in a DGX H100-like rail-optimized "
                                   "3-tier fabric (1 NIC and 3 cables per GPU, 5/64 switch per "
                                   "GPU)\n",
                                   gpus);
        }
    } else if (scenario != NULL) {
        /* the replay's cluster (kept by the step-time provider when there is one) */
        weft_fault_counts_from_topo(run != NULL ? run->topo : cfg->provider->topo, &p->counts);
        if (notes != NULL) {
            g_string_append_printf(notes, "components counted in the scenario's cluster\n");
        }
    } else {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY,
                    "%sno cluster: set train.cluster (a cluster file) or train.gpus", origin);
        return FALSE;
    }
    g_autoptr(GError) rerr = NULL;
    if (!weft_fault_rates_check(&p->rates, &rerr)) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE, "%sfailures.%s", origin,
                    rerr->message);
        return FALSE;
    }
    return TRUE;
}

/* ---- reports ------------------------------------------------------------------------------- */

static gboolean
write_atomically(const char *path, const char *text, GError **error)
{
    g_autoptr(GError) ioerr = NULL;
    if (!weft_output_write(path, text, -1, &ioerr)) {
        g_set_error_literal(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_IO, ioerr->message);
        return FALSE;
    }
    return TRUE;
}

static void
add_stat(JsonBuilder *b, const char *name, const weft_job_stat_t *st)
{
    json_builder_set_member_name(b, name);
    json_builder_begin_object(b);
    weft_json_add_double_or_null(b, "mean", st->mean);
    weft_json_add_double_or_null(b, "sd", st->sd);
    weft_json_add_double_or_null(b, "se", st->se);
    weft_json_add_double_or_null(b, "ci95_lo", st->ci95_lo);
    weft_json_add_double_or_null(b, "ci95_hi", st->ci95_hi);
    weft_json_add_double_or_null(b, "median", st->median);
    weft_json_add_double_or_null(b, "p90", st->p90);
    weft_json_add_double_or_null(b, "min", st->min);
    weft_json_add_double_or_null(b, "max", st->max);
    json_builder_end_object(b);
}

gboolean
weft_job_write_summary_json(const char *path, const weft_job_params_t *p, const weft_job_mc_t *mc,
                            const weft_job_search_t *search, GError **error)
{
    /* doubles go through _or_null: JSON has no infinity, and an MTBF may be "never" */
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    weft_json_add_string(b, "weft_version", PACKAGE_VERSION);

    json_builder_set_member_name(b, "parameters");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "steps");
    if (p->steps == G_MAXUINT64) {
        json_builder_add_null_value(b);
    } else {
        json_builder_add_int_value(b, (gint64)p->steps);
    }
    weft_json_add_double_or_null(b, "span_s", p->span_s);
    weft_json_add_double_or_null(b, "step_time_s", p->step_time_s);
    weft_json_add_int(b, "checkpoint_interval_steps", (gint64)mc->checkpoint_steps);
    weft_json_add_double_or_null(b, "checkpoint_interval_s",
                                 (double)mc->checkpoint_steps * p->step_time_s);
    weft_json_add_double_or_null(b, "checkpoint_write_s", p->checkpoint_write_s);
    weft_json_add_double_or_null(b, "restart_s", p->restart_s);
    weft_json_add_int(b, "samples", p->samples);
    g_autofree char *seed = g_strdup_printf("%" G_GUINT64_FORMAT, p->seed);
    weft_json_add_string(b, "seed", seed); /* as text: JSON numbers lose 64-bit integers */
    weft_json_add_string(b, "distribution", weft_fault_dist_name(p->rates.dist));
    if (p->rates.dist == WEFT_FAULT_DIST_WEIBULL) {
        weft_json_add_double_or_null(b, "weibull_shape", p->rates.weibull_shape);
    }
    json_builder_set_member_name(b, "components");
    json_builder_begin_object(b);
    for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
        json_builder_set_member_name(b, weft_fault_class_name(c));
        json_builder_begin_object(b);
        weft_json_add_int(b, "count", (gint64)p->counts.n[c]);
        weft_json_add_double_or_null(b, "mtbf_s", p->rates.mtbf_s[c]);
        weft_json_add_double_or_null(b, "degrade_mtbf_s", p->rates.degrade_mtbf_s[c]);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
    double M = weft_job_system_mtbf_s(p);
    weft_json_add_double_or_null(b, "system_mtbf_s", M);
    weft_json_add_double_or_null(b, "young_interval_s", weft_job_young_s(p->checkpoint_write_s, M));
    weft_json_add_double_or_null(b, "daly_interval_s", weft_job_daly_s(p->checkpoint_write_s, M));
    json_builder_end_object(b);

    json_builder_set_member_name(b, "results");
    json_builder_begin_object(b);
    add_stat(b, "wall_s", &mc->wall_s);
    add_stat(b, "goodput", &mc->goodput);
    add_stat(b, "useful_s", &mc->useful_s);
    add_stat(b, "checkpoint_overhead_s", &mc->checkpoint_s);
    add_stat(b, "lost_work_s", &mc->lost_s);
    add_stat(b, "restart_s", &mc->restart_s);
    add_stat(b, "slowdown_s", &mc->slowdown_s);
    add_stat(b, "steps_done", &mc->steps_done);
    add_stat(b, "interruptions", &mc->interruptions);
    json_builder_set_member_name(b, "interruptions_per_category");
    json_builder_begin_object(b);
    for (guint k = 0; k < WEFT_FAULT_N_CATEGORIES; k++) {
        add_stat(b, weft_fault_category_key(k), &mc->per_category[k]);
    }
    json_builder_end_object(b);
    weft_json_add_int(b, "degrading_faults", (gint64)mc->degradations);
    weft_json_add_bool(b, "degrading_faults_ignored", mc->degradations_ignored);
    json_builder_end_object(b);

    if (search != NULL) {
        json_builder_set_member_name(b, "interval_search");
        json_builder_begin_object(b);
        weft_json_add_int(b, "best_steps", (gint64)search->best_steps);
        weft_json_add_double_or_null(b, "best_s", (double)search->best_steps * p->step_time_s);
        weft_json_add_int(b, "young_steps", (gint64)search->young_steps);
        weft_json_add_int(b, "daly_steps", (gint64)search->daly_steps);
        weft_json_add_int(b, "points", search->points->len);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);

    g_autofree char *text = weft_json_to_text(b, TRUE);
    return write_atomically(path, text, error);
}

gboolean
weft_job_write_sweep_csv(const char *path, const weft_job_params_t *p,
                         const weft_job_search_t *search, GError **error)
{
    GString *s = g_string_new("checkpoint_interval_steps,checkpoint_interval_s,goodput_mean,"
                              "goodput_ci95_lo,goodput_ci95_hi,wall_s_mean,wall_s_ci95_lo,"
                              "wall_s_ci95_hi,lost_s_mean,checkpoint_s_mean,restart_s_mean,"
                              "interruptions_mean\n");
    for (guint i = 0; i < search->points->len; i++) {
        const weft_job_mc_t *mc = &g_array_index(search->points, weft_job_mc_t, i);
        g_string_append_printf(
            s, "%" G_GUINT64_FORMAT ",%.9g,%.9f,%.9f,%.9f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n",
            mc->checkpoint_steps, (double)mc->checkpoint_steps * p->step_time_s, mc->goodput.mean,
            mc->goodput.ci95_lo, mc->goodput.ci95_hi, mc->wall_s.mean, mc->wall_s.ci95_lo,
            mc->wall_s.ci95_hi, mc->lost_s.mean, mc->checkpoint_s.mean, mc->restart_s.mean,
            mc->interruptions.mean);
    }
    g_autofree char *text = g_string_free(s, FALSE);
    return write_atomically(path, text, error);
}

gboolean
weft_job_write_timeline_csv(const char *path, const weft_job_params_t *p, guint64 checkpoint_steps,
                            GError **error)
{
    g_autoptr(GArray) spans = g_array_new(FALSE, FALSE, sizeof(weft_job_span_t));
    weft_job_sample_t sample;
    if (!weft_job_simulate_timeline(p, checkpoint_steps, 0, spans, &sample, error)) {
        return FALSE;
    }
    GString *s = g_string_new("start_s,end_s,start_days,end_days,kind,category,class,component,"
                              "step_s\n");
    for (guint i = 0; i < spans->len; i++) {
        const weft_job_span_t *sp = &g_array_index(spans, weft_job_span_t, i);
        gboolean has_fault = sp->kind != WEFT_JOB_SPAN_TRAIN;
        g_autofree char *component =
            has_fault ? g_strdup_printf("%" G_GUINT64_FORMAT, sp->fault.component) : g_strdup("");
        g_string_append_printf(
            s, "%.6f,%.6f,%.9f,%.9f,%s,%s,%s,%s,%.9g\n", sp->start_s, sp->end_s,
            sp->start_s / 86400.0, sp->end_s / 86400.0, weft_job_span_kind_name(sp->kind),
            has_fault
                ? weft_fault_category_name(weft_fault_class_category(sp->fault.component_class))
                : "",
            has_fault ? weft_fault_class_name(sp->fault.component_class) : "", component,
            sp->step_s);
    }
    g_autofree char *text = g_string_free(s, FALSE);
    return write_atomically(path, text, error);
}
