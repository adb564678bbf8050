/* SPDX-License-Identifier: MIT */
/*
 * `weft train` configuration files ([train] and [failures] groups: rows of the one engine,
 * core/keyfile.h, over weft_job_settings_t, checked key by key, then resolved into
 * weft_job_params_t: component counts from a cluster, the step time from a scenario replay)
 * and the reports (summary.json, the goodput-against-interval CSV). See job.h and
 * doc/failures.md.
 */
#define G_LOG_DOMAIN "weft-job"

#include "job/job.h"

#include "config.h"

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

/* ---- the keys ------------------------------------------------------------------------------ */

#define F(member) WEFT_KEY_FIELD(weft_job_settings_t, member)

/* A duration, reaching past the ~106 days of core/units.h's picoseconds (fault/rates.h). */
static gboolean
parse_seconds(const char *text, double *seconds, GError **error)
{
    return weft_fault_parse_duration(text, FALSE, seconds, error);
}

/* An MTBF: a duration, or never (the rows' special word "off"; "inf" also reads as never). */
static gboolean
parse_mtbf(const char *text, double *seconds, GError **error)
{
    return weft_fault_parse_duration(text, TRUE, seconds, error);
}

/* Durations, and numbers written as weft writes counts (core/units.h: 15.6e12), are kept as
 * written; every range is in the row. Defaults and their sources are in doc/failures.md;
 * the docs are the comments of unset keys in the effective configuration. */
#define SECONDS_GT0 .parse = parse_seconds, .nmin = 0.0, .nmin_open = TRUE, .nmax = G_MAXDOUBLE
#define SECONDS_GE0 .parse = parse_seconds, .nmin = 0.0, .nmax = G_MAXDOUBLE
#define NUMBER_GT0                                                                                 \
    .parse = weft_units_parse_count, .nmin = 0.0, .nmin_open = TRUE, .nmax = G_MAXDOUBLE

static const weft_key_t train_rows[] = {
    {"train", "cluster", WEFT_KEY_PATH, NULL, "cluster file: component counts",
     .field = F(cluster)},
    {"train", "gpus", WEFT_KEY_COUNT, NULL, "GPUs, when there is no cluster file", .imin = 1,
     .field = F(gpus), .given = F(gpus_given)},
    {"train", "gpus_per_host", WEFT_KEY_COUNT, "8", "GPUs per host, with gpus", .imin = 1,
     .field = F(gpus_per_host)},
    {"train", "scenario", WEFT_KEY_PATH, NULL, "scenario whose replayed step time is the step time",
     .field = F(scenario)},
    {"train", "step_time", WEFT_KEY_NUMBER, NULL, "time of one training step", SECONDS_GT0,
     .field = F(step_time_s), .given = F(step_time_given)},
    {"train", "steps", WEFT_KEY_COUNT, NULL, "training steps", .imin = 1, .field = F(steps),
     .given = F(steps_given)},
    {"train", "tokens", WEFT_KEY_NUMBER, NULL, "training tokens (with tokens_per_step)", NUMBER_GT0,
     .field = F(tokens), .given = F(tokens_given)},
    {"train", "tokens_per_step", WEFT_KEY_NUMBER, NULL, "tokens per step (global batch)",
     NUMBER_GT0, .field = F(tokens_per_step), .given = F(tokens_per_step_given)},
    {"train", "span", WEFT_KEY_NUMBER, NULL, "a fixed wall-clock span instead of steps",
     SECONDS_GT0, .field = F(span_s), .given = F(span_given)},
    {"train", "checkpoint_interval", WEFT_KEY_COUNT, "auto", "steps between checkpoints, or auto",
     .imin = 1, .special = "auto", .special_value = 0.0, .field = F(checkpoint_interval)},
    {"train", "checkpoint_size", WEFT_KEY_BYTES, "5.67TB", "bytes written per checkpoint",
     .field = F(checkpoint_size_B)},
    {"train", "storage_write_bandwidth", WEFT_KEY_RATE, "2TB/s", "checkpoint write bandwidth",
     .nmin = 0.0, .nmin_open = TRUE, .field = F(storage_write_Bps)},
    {"train", "storage_read_bandwidth", WEFT_KEY_RATE, NULL, "reload bandwidth (default: write)",
     .nmin = 0.0, .nmin_open = TRUE, .field = F(storage_read_Bps), .given = F(storage_read_given)},
    {"train", "detection_time", WEFT_KEY_NUMBER, "60s", "time to notice a failure", SECONDS_GE0,
     .field = F(detection_s)},
    {"train", "reschedule_time", WEFT_KEY_NUMBER, "300s", "time to get nodes and relaunch",
     SECONDS_GE0, .field = F(reschedule_s)},
    {"train", "samples", WEFT_KEY_COUNT, "1000", "Monte Carlo samples", .imin = 1,
     .field = F(samples)},
    {"train", "seed", WEFT_KEY_UINT64, "1", "random seed", .field = F(seed)},
    {"train", "threads", WEFT_KEY_COUNT, "0", "worker threads (0: one per CPU)", .imin = 0,
     .field = F(threads)},
};

/* The [failures] keys shared by every class; mtbf_CLASS and degrade_mtbf_CLASS follow them
 * in weft_job_keys(). The defaults are weft_fault_rates_init_default()'s. */
static const weft_key_t failures_rows[] = {
    {"failures", "distribution", WEFT_KEY_ENUM, "exponential", "exponential or weibull",
     .choices = &weft_fault_dist_enum, .field = F(rates.dist)},
    {"failures", "weibull_shape", WEFT_KEY_NUMBER, "0.7", "Weibull shape k", NUMBER_GT0,
     .field = F(rates.weibull_shape)},
    {"failures", "weibull_start", WEFT_KEY_ENUM, "stationary",
     "Weibull parts' ages: stationary or new", .choices = &weft_fault_weibull_start_enum,
     .field = F(rates.weibull_new)},
    {"failures", "degrade_repair_time", WEFT_KEY_NUMBER, "4h", "how long a degrading fault lasts",
     SECONDS_GT0, .field = F(rates.degrade_repair_s)},
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

/* ---- the configuration --------------------------------------------------------------------- */

/* weft_job_keys(): train_rows, failures_rows, then one mtbf_CLASS row per class of
 * weft_fault_class_enum and one degrade_mtbf_CLASS row per class. */
#define FIRST_FAILURES_ROW G_N_ELEMENTS(train_rows)
#define FIRST_CLASS_ROW (G_N_ELEMENTS(train_rows) + G_N_ELEMENTS(failures_rows))
static const weft_key_t *job_keys;
static guint n_job_keys;

static void
compose_keys(void)
{
    static gsize once = 0;
    if (g_once_init_enter(&once)) {
        guint n = FIRST_CLASS_ROW + 2 * WEFT_FAULT_N_CLASSES;
        weft_key_t *rows = g_new0(weft_key_t, n);
        memcpy(rows, train_rows, sizeof train_rows);
        memcpy(rows + FIRST_FAILURES_ROW, failures_rows, sizeof failures_rows);
        for (guint deg = 0; deg < 2; deg++) {
            for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
                const char *cls = weft_enum_name(&weft_fault_class_enum, (gint)c);
                gssize field = deg ? F(rates.degrade_mtbf_s) : F(rates.mtbf_s);
                /* the names and docs live as long as the table: the process */
                rows[FIRST_CLASS_ROW + deg * WEFT_FAULT_N_CLASSES + c] = (weft_key_t){
                    "failures",
                    g_strdup_printf("%smtbf_%s", deg ? "degrade_" : "", cls),
                    WEFT_KEY_NUMBER,
                    NULL,
                    g_strdup_printf("%s: MTBF per %s, or off",
                                    deg ? "degrading faults" : "interruptions", cls),
                    .parse = parse_mtbf,
                    .nmin = 0.0,
                    .nmin_open = TRUE,
                    .nmax = INFINITY,
                    .special = "off",
                    .special_value = INFINITY,
                    .field = field + (gssize)(c * sizeof(double)),
                };
            }
        }
        job_keys = rows;
        n_job_keys = n;
        g_once_init_leave(&once, 1);
    }
}

const weft_key_t *
weft_job_keys(guint *n_keys)
{
    compose_keys();
    if (n_keys != NULL) {
        *n_keys = n_job_keys;
    }
    return job_keys;
}

gboolean
weft_job_config_has_group(const char *group)
{
    g_return_val_if_fail(group != NULL, FALSE);
    compose_keys();
    g_autofree char *keys = weft_keys_list(job_keys, n_job_keys, group);
    return keys[0] != '\0';
}

gboolean
weft_job_config_is_train_file(GKeyFile *kf)
{
    g_return_val_if_fail(kf != NULL, FALSE);
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    for (guint g = 0; groups[g] != NULL; g++) {
        if (weft_job_config_has_group(groups[g])) {
            return TRUE;
        }
    }
    return FALSE;
}

struct weft_job_config {
    char **value;              /* per row of weft_job_keys(): the text set (paths absolute);
                                  NULL: the row's default */
    char *origin;              /* the last file loaded, for messages */
    step_provider_t *provider; /* made by weft_job_config_resolve() when needed */
};

weft_job_config_t *
weft_job_config_new(void)
{
    compose_keys();
    weft_job_config_t *cfg = g_new0(weft_job_config_t, 1);
    cfg->value = g_new0(char *, n_job_keys);
    return cfg;
}

void
weft_job_config_free(weft_job_config_t *cfg)
{
    if (cfg == NULL) {
        return;
    }
    for (guint i = 0; i < n_job_keys; i++) {
        g_free(cfg->value[i]);
    }
    g_free(cfg->value);
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

/* The keys of @group for messages: the per-class ones as mtbf_CLASS, degrade_mtbf_CLASS. */
static char *
valid_keys(const char *group)
{
    g_autofree char *shared = weft_keys_list(job_keys, FIRST_CLASS_ROW, group);
    g_autofree char *per_class =
        weft_keys_list(job_keys + FIRST_CLASS_ROW, n_job_keys - FIRST_CLASS_ROW, group);
    if (per_class[0] == '\0') {
        return g_steal_pointer(&shared);
    }
    g_autofree char *classes = weft_enum_list(&weft_fault_class_enum, ", ");
    return g_strdup_printf("%s, mtbf_CLASS, degrade_mtbf_CLASS (CLASS: %s)", shared, classes);
}

static gboolean
set_checked(weft_job_config_t *cfg, const char *origin, const char *group, const char *key,
            const char *value, const char *base_dir, GError **error)
{
    g_autofree char *at = where(origin);
    if (!weft_job_config_has_group(group)) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY,
                    "%sunknown group [%s]: expected [train] or [failures]", at, group);
        return FALSE;
    }
    const weft_key_t *k = weft_keys_find(job_keys, n_job_keys, group, key);
    if (k == NULL) {
        g_autofree char *valid = valid_keys(group);
        g_autofree char *hint = weft_keys_suggest(job_keys, n_job_keys, group, key);
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_KEY,
                    "%sunknown key %s.%s%s; valid keys of [%s]: %s", at, group, key,
                    hint != NULL ? hint : "", group, valid);
        return FALSE;
    }
    g_autofree char *v = g_strstrip(g_strdup(value));
    /* Paths are kept absolute (relative to the config file, or to the working directory
     * on the command line) so that a saved train.ini runs again from anywhere. */
    g_autofree char *base_abs = base_dir != NULL ? g_canonicalize_filename(base_dir, NULL) : NULL;
    char *checked = NULL;
    g_autoptr(GError) kerr = NULL;
    if (!weft_key_check(k, v, base_abs, &checked, &kerr)) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE, "%s%s.%s = '%s': %s", at, group,
                    key, v, weft_key_error_reason(k, v, kerr));
        return FALSE;
    }
    guint i = (guint)(k - job_keys);
    g_free(cfg->value[i]);
    cfg->value[i] = checked; /* NULL: "key =", back to the default */
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
        if (!weft_job_config_has_group(groups[g])) {
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
    const weft_key_t *k = weft_keys_find(job_keys, n_job_keys, group, key);
    return k != NULL ? cfg->value[k - job_keys] : NULL;
}

/* Every row's default, in a settings struct. */
static void
settings_init(weft_job_settings_t *s)
{
    memset(s, 0, sizeof *s);
    weft_fault_rates_init_default(&s->rates);
    weft_keys_apply_defaults(job_keys, n_job_keys, s);
}

gboolean
weft_job_config_settings(const weft_job_config_t *cfg, weft_job_settings_t *s, GError **error)
{
    g_return_val_if_fail(cfg != NULL && s != NULL, FALSE);
    settings_init(s);
    for (guint i = 0; i < n_job_keys; i++) {
        g_autoptr(GError) kerr = NULL;
        const weft_key_t *k = &job_keys[i];
        if (!weft_key_apply(k, cfg->value[i], s, &kerr)) {
            g_autofree char *at = where(cfg->origin);
            g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE, "%s%s.%s = '%s': %s", at,
                        k->group, k->key, cfg->value[i],
                        weft_key_error_reason(k, cfg->value[i], kerr));
            return FALSE;
        }
    }
    return TRUE;
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
    weft_job_settings_t def;
    settings_init(&def);
    GString *s = g_string_new("# weft " PACKAGE_VERSION " train: effective configuration\n");
    for (guint i = 0; i < n_job_keys; i++) {
        const weft_key_t *k = &job_keys[i];
        if (i == 0 || i == FIRST_FAILURES_ROW) {
            g_string_append_printf(s, "%s[%s]\n", i > 0 ? "\n" : "", k->group);
        }
        const char *v = cfg->value[i] != NULL ? cfg->value[i] : k->dflt;
        g_autofree char *d = NULL;
        if (v == NULL && i >= FIRST_CLASS_ROW) {
            /* the per-class MTBFs: their default is weft_fault_rates_init_default()'s */
            v = d = format_duration(G_STRUCT_MEMBER(double, &def, k->field - 1));
        }
        if (v != NULL) {
            g_string_append_printf(s, "%s = %s\n", k->key, v);
        } else {
            g_string_append_printf(s, "# %s = (unset: %s)\n", k->key, k->doc);
        }
    }
    return g_string_free(s, FALSE);
}

gboolean
weft_job_config_resolve(const weft_job_config_t *cfg, weft_job_params_t *p, GString *notes,
                        GError **error)
{
    g_autofree char *origin = where(cfg->origin);
    weft_job_params_init(p);
    weft_job_settings_t s;
    if (!weft_job_config_settings(cfg, &s, error)) {
        return FALSE;
    }

    /* failures */
    p->rates = s.rates;

    /* the run's checkpoints and restarts */
    double size_B = (double)s.checkpoint_size_B;
    double read_Bps = s.storage_read_given ? s.storage_read_Bps : s.storage_write_Bps;
    p->checkpoint_write_s = size_B / s.storage_write_Bps;
    p->restart_s = s.detection_s + s.reschedule_s + size_B / read_Bps;
    p->checkpoint_auto = s.checkpoint_interval == 0;
    p->checkpoint_steps = p->checkpoint_auto ? 1 : s.checkpoint_interval;
    /* every sample is kept for the statistics (weft_job_sample_t, about 150 bytes with its
     * sort copy): 10^7 of them take about 1.5 GB; 10^9 asked for 144 GB and aborted */
    if (s.samples > WEFT_JOB_MAX_SAMPLES) {
        g_set_error(error, WEFT_JOB_ERROR, WEFT_JOB_ERROR_VALUE,
                    "%strain.samples = %.0f: at most %u (each sample is kept, about %u bytes)",
                    origin, (double)s.samples, WEFT_JOB_MAX_SAMPLES,
                    (guint)(sizeof(weft_job_sample_t) + sizeof(double)));
        return FALSE;
    }
    p->samples = (guint)s.samples;
    p->threads = (guint)MIN(s.threads, 1024);
    p->seed = s.seed;

    /* the step time */
    const char *scenario = s.scenario;
    gboolean have_step = s.step_time_given;
    if (have_step) {
        p->step_time_s = s.step_time_s;
    }
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
    double steps = (double)s.steps;
    gboolean have_steps = s.steps_given;
    gboolean have_tokens = s.tokens_given;
    gboolean have_tps = s.tokens_per_step_given;
    gboolean have_span = s.span_given;
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
        steps = ceil(s.tokens / s.tokens_per_step);
    }
    if (have_span) {
        p->steps = G_MAXUINT64;
        p->span_s = s.span_s;
    } else {
        p->steps = (guint64)steps;
        p->span_s = INFINITY;
    }

    /* the components */
    const char *cluster = s.cluster;
    gboolean have_gpus = s.gpus_given;
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
        weft_fault_counts_for_gpus(s.gpus, (guint)s.gpus_per_host, &p->counts);
        if (notes != NULL) {
            g_string_append_printf(notes,
                                   "components for %.0f GPUs as in a DGX H100-like rail-optimized "
                                   "3-tier fabric (1 NIC and 3 cables per GPU, 5/64 switch per "
                                   "GPU)\n",
                                   (double)s.gpus);
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
        /* no failure: -1, which keeps the column whole numbers (pandas) */
        g_autofree char *component =
            has_fault ? g_strdup_printf("%" G_GUINT64_FORMAT, sp->fault.component) : g_strdup("-1");
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
