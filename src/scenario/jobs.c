/* SPDX-License-Identifier: MIT */
/*
 * Several jobs on one fabric: the jobs file, each job's workload and GPUs, the merged
 * workload one replay runs, and the per-job results (scenario/jobs.h has the model).
 */
#define G_LOG_DOMAIN "weft-scenario"
#include "scenario/jobs.h"

#include "config.h"

#include <math.h>
#include <string.h>

#include "core/keyfile.h"
#include "core/output.h"
#include "scenario/scenario.h"
#include "scenario/scenario_private.h"
#include "workload/chakra.h"

static const char *const place_names[] = {"packed", "spread", "interleaved", "file", NULL};
const weft_enum_t weft_jobs_place_enum = {"job placement", place_names};

/* Upper bound of a job's iterations: every iteration copies the job's nodes. */
#define MAX_JOB_ITERATIONS 10000
/* Upper bound of a merged rank's nodes + dependencies (node and dependency indexes are 32-bit;
 * each entry costs about 60 bytes, so this is also about 60 GB of a rank's arrays). */
#define MAX_RANK_ENTRIES 1000000000u

/* A job's own keys; every other key of [job.NAME] is a [workload] key of a scenario. */
static const char *const job_keys[] = {
    "placement", "placement_file", "start", "iterations", "gpus", "gen", NULL};
static const char *const workload_keys[] = {"trace",
                                            "comm_groups",
                                            "pg_size",
                                            "replicate",
                                            "collective",
                                            "collective_bytes",
                                            "collective_iterations",
                                            "collective_ranks",
                                            NULL};

typedef struct {
    char *name;
    weft_jobs_place_t place;
    char *place_file; /* absolute */
    weft_time_t start_ps;
    char *start_text;
    guint iterations;
    guint gpus;          /* 0: unset */
    weft_scenario_t *sc; /* its workload keys */
    /* built */
    weft_workload_t *wl;
    char *label;
    guint *gpu; /* n_ranks GPU numbers */
    guint n_ranks;
    gboolean runs;   /* in the merged workload */
    guint rank_base; /* its rank 0 in the merged workload */
    /* results */
    weft_time_t *iter_end_ps; /* iterations */
    weft_time_t time_ps;
    gboolean alone_known;
    weft_time_t alone_time_ps;
    double *alone_bytes; /* n_edges, when alone_known */
} job_t;

struct weft_jobs {
    char *path;
    gboolean alone;
    GPtrArray *jobs; /* job_t* */
    guint n_edges;
    double *edge_bytes; /* n_edges, after finish */
    const weft_topo_t *topo;
    /* merged rank -> job index (when built) */
    guint *rank_job;
    weft_time_t *rank_start_ps; /* NULL when every job starts at 0 */
    guint n_ranks;
    weft_replay_observer_t obs;
    const weft_replay_observer_t *next;
    /* per-node layer arrays of the merged workload's borrowed ranks, remapped to its layer
     * table ("JOB/layer.3"); freed with the jobs, after the workload (scenario_run.c) */
    GPtrArray *owned;
};

static void
job_free(gpointer p)
{
    job_t *j = p;
    g_free(j->name);
    g_free(j->place_file);
    g_free(j->start_text);
    weft_scenario_free(j->sc);
    weft_workload_free(j->wl);
    g_free(j->label);
    g_free(j->gpu);
    g_free(j->iter_end_ps);
    g_free(j->alone_bytes);
    g_free(j);
}

void
weft_jobs_free(weft_jobs_t *jobs)
{
    if (jobs == NULL) {
        return;
    }
    g_free(jobs->path);
    g_ptr_array_unref(jobs->jobs);
    g_free(jobs->edge_bytes);
    g_free(jobs->rank_job);
    g_free(jobs->rank_start_ps);
    g_clear_pointer(&jobs->owned, g_ptr_array_unref);
    g_free(jobs);
}

guint
weft_jobs_n(const weft_jobs_t *jobs)
{
    g_return_val_if_fail(jobs != NULL, 0);
    return jobs->jobs->len;
}

gboolean
weft_jobs_alone_wanted(const weft_jobs_t *jobs)
{
    g_return_val_if_fail(jobs != NULL, FALSE);
    return jobs->alone && jobs->jobs->len > 1;
}

const char *
weft_jobs_name(const weft_jobs_t *jobs, guint j)
{
    g_return_val_if_fail(jobs != NULL && j < jobs->jobs->len, NULL);
    return ((job_t *)g_ptr_array_index(jobs->jobs, j))->name;
}

/* ---- the jobs file ------------------------------------------------------------------ */

static gboolean
in_list(const char *const *list, const char *key)
{
    for (guint i = 0; list[i] != NULL; i++) {
        if (strcmp(list[i], key) == 0) {
            return TRUE;
        }
    }
    return FALSE;
}

/* @value made absolute against @dir unless it is already. (transfer full) */
static char *
resolve_path(const char *dir, const char *value)
{
    return g_path_is_absolute(value) ? g_strdup(value) : g_build_filename(dir, value, NULL);
}

/* Parses a whole number in [lo, hi] for key @key of job @j. */
static gboolean
parse_uint(const char *path, const char *job, const char *key, const char *text, guint lo, guint hi,
           guint *out, GError **error)
{
    guint64 v = 0;
    if (!g_ascii_string_to_unsigned(text, 10, lo, hi, &v, NULL)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                    "%s: [job.%s] %s = \"%s\": expected a whole number from %u to %u", path, job,
                    key, text, lo, hi);
        return FALSE;
    }
    *out = (guint)v;
    return TRUE;
}

/* Records that key @key describes job @job's workload; FALSE with WEFT_SCENARIO_ERROR_KEY
 * when *@described (another key) did already. */
static gboolean
one_workload(const char *path, const char *job, const char **described, const char *key,
             GError **error)
{
    if (*described != NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: [job.%s] %s and %s both describe the job's workload: keep one", path, job,
                    *described, key);
        return FALSE;
    }
    *described = key;
    return TRUE;
}

/* Reads group [job.NAME] (@group) of @kf into a new job. */
static job_t *
load_job(GKeyFile *kf, const char *path, const char *dir, const char *group, const char *placement,
         GError **error)
{
    job_t *j = g_new0(job_t, 1);
    j->name = g_strdup(group + strlen("job."));
    j->iterations = 1;
    j->place = WEFT_JOBS_PACKED;
    j->sc = weft_scenario_new();
    g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func(job_free);
    g_ptr_array_add(owned, j); /* freed on error */
    if (j->name[0] == '\0') {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: [%s]: a job needs a name: [job.NAME]", path, group);
        return NULL;
    }
    /* the name becomes CSV cells, column names (bytes_NAME) and communicator prefixes
     * (NAME/tp.0): letters, digits, '_', '-' and '.' only */
    gsize ok_len = strspn(j->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789_-.");
    if (j->name[ok_len] != '\0') {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: [%s]: a job's name is letters, digits, '_', '-' and '.' (it names CSV "
                    "columns and communicators); '%c' is not allowed",
                    path, group, j->name[ok_len]);
        return NULL;
    }
    g_auto(GStrv) keys = g_key_file_get_keys(kf, group, NULL, NULL);
    const char *described = NULL; /* the key that describes its workload */
    for (guint k = 0; keys != NULL && keys[k] != NULL; k++) {
        const char *key = keys[k];
        g_autofree char *raw = g_key_file_get_value(kf, group, key, NULL);
        const char *value = g_strstrip(raw);
        g_autoptr(GError) err = NULL;
        if (strcmp(key, "placement") == 0) {
            gint v;
            if (!weft_enum_from_name(&weft_jobs_place_enum, value, &v, &err)) {
                g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                            "%s: [job.%s] placement = \"%s\": %s", path, j->name, value,
                            err->message);
                return NULL;
            }
            j->place = (weft_jobs_place_t)v;
        } else if (strcmp(key, "placement_file") == 0) {
            j->place_file = resolve_path(dir, value);
        } else if (strcmp(key, "start") == 0) {
            double ps = 0;
            if (!weft_scenario_i_parse_quantity("time", value, &ps, &err) || ps < 0 ||
                ps > (double)G_MAXINT64 / 2) {
                g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                            "%s: [job.%s] start = \"%s\": expected a time from 0 with its unit, "
                            "e.g. 2ms%s%s",
                            path, j->name, value, err != NULL ? ": " : "",
                            err != NULL ? err->message : "");
                return NULL;
            }
            j->start_ps = weft_time_from_ps(ps);
            j->start_text = g_strdup(value);
        } else if (strcmp(key, "iterations") == 0) {
            if (!parse_uint(path, j->name, key, value, 1, MAX_JOB_ITERATIONS, &j->iterations,
                            error)) {
                return NULL;
            }
        } else if (strcmp(key, "gpus") == 0) {
            if (!parse_uint(path, j->name, key, value, 1, G_MAXINT32, &j->gpus, error)) {
                return NULL;
            }
        } else if (strcmp(key, "gen") == 0) {
            /* [transformer] keys, as weft replay --gen takes them */
            g_auto(GStrv) parts = g_strsplit(value, ",", -1);
            for (guint p = 0; parts[p] != NULL; p++) {
                char *eq = strchr(parts[p], '=');
                if (eq == NULL) {
                    g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                                "%s: [job.%s] gen = \"%s\": expected KEY=VALUE,..., e.g. "
                                "model=gpt3-13b,tp=8",
                                path, j->name, value);
                    return NULL;
                }
                *eq = '\0';
                if (!weft_scenario_set_value(j->sc, "transformer", g_strstrip(parts[p]),
                                             g_strstrip(eq + 1), &err)) {
                    g_set_error(error, WEFT_SCENARIO_ERROR, err->code,
                                "%s: [job.%s] gen = \"%s\": %s", path, j->name, value,
                                err->message);
                    return NULL;
                }
            }
            if (!one_workload(path, j->name, &described, key, error)) {
                return NULL;
            }
        } else if (in_list(workload_keys, key)) {
            g_autofree char *v = strcmp(key, "trace") == 0 || strcmp(key, "comm_groups") == 0
                                     ? resolve_path(dir, value)
                                     : g_strdup(value);
            if (!weft_scenario_set_value(j->sc, "workload", key, v, &err)) {
                g_set_error(error, WEFT_SCENARIO_ERROR, err->code, "%s: [job.%s] %s = \"%s\": %s",
                            path, j->name, key, value, err->message);
                return NULL;
            }
            if ((strcmp(key, "trace") == 0 || strcmp(key, "collective") == 0) &&
                !one_workload(path, j->name, &described, key, error)) {
                return NULL;
            }
        } else {
            g_autofree char *a = g_strjoinv(", ", (char **)job_keys);
            g_autofree char *b = g_strjoinv(", ", (char **)workload_keys);
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                        "%s: [job.%s] %s = \"%s\": unknown key; valid keys: %s, %s", path, j->name,
                        key, value, a, b);
            return NULL;
        }
    }
    if (described == NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: [job.%s]: no workload: set trace, gen or collective", path, j->name);
        return NULL;
    }
    if (placement != NULL) {
        gint v;
        g_autoptr(GError) err = NULL;
        if (!weft_enum_from_name(&weft_jobs_place_enum, placement, &v, &err) ||
            v == WEFT_JOBS_FILE) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "workload.jobs_placement = \"%s\": expected packed, spread or "
                        "interleaved",
                        placement);
            return NULL;
        }
        j->place = (weft_jobs_place_t)v;
    }
    if (j->place == WEFT_JOBS_FILE && j->place_file == NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: [job.%s] placement = file needs placement_file", path, j->name);
        return NULL;
    }
    return g_ptr_array_steal_index(owned, 0);
}

weft_jobs_t *
weft_jobs_load(const char *path, const char *placement, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) err = NULL;
    /* weft's loader: a group or key given twice is an error with its lines (GKeyFile alone
     * merges two [job.a] groups, and the second one's keys then clash with the first's) */
    if (!weft_keyfile_load_file(kf, path, &err)) {
        gboolean io = err->domain == G_FILE_ERROR;
        if (!io && g_str_has_prefix(err->message, path)) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_PARSE, "jobs file %s",
                        err->message);
        } else {
            g_set_error(error, WEFT_SCENARIO_ERROR,
                        io ? WEFT_SCENARIO_ERROR_IO : WEFT_SCENARIO_ERROR_PARSE,
                        "jobs file %s: %s", path, err->message);
        }
        return NULL;
    }
    g_autoptr(weft_jobs_t) jobs = g_new0(weft_jobs_t, 1);
    jobs->path = g_strdup(path);
    jobs->alone = TRUE;
    jobs->jobs = g_ptr_array_new_with_free_func(job_free);
    g_autofree char *dir = g_path_get_dirname(path);
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    for (guint g = 0; groups[g] != NULL; g++) {
        const char *group = groups[g];
        if (strcmp(group, "jobs") == 0) {
            g_auto(GStrv) keys = g_key_file_get_keys(kf, group, NULL, NULL);
            for (guint k = 0; keys != NULL && keys[k] != NULL; k++) {
                g_autofree char *raw = g_key_file_get_value(kf, group, keys[k], NULL);
                const char *value = g_strstrip(raw);
                if (strcmp(keys[k], "alone") != 0) {
                    g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                                "%s: [jobs] %s = \"%s\": unknown key; valid keys: alone", path,
                                keys[k], value);
                    return NULL;
                }
                if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0) {
                    g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                                "%s: [jobs] alone = \"%s\": expected true or false", path, value);
                    return NULL;
                }
                jobs->alone = strcmp(value, "true") == 0;
            }
            continue;
        }
        if (!g_str_has_prefix(group, "job.")) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                        "%s: [%s]: unknown group; expected [job.NAME] (one per job) and [jobs]",
                        path, group);
            return NULL;
        }
        job_t *j = load_job(kf, path, dir, group, placement, error);
        if (j == NULL) {
            return NULL;
        }
        g_ptr_array_add(jobs->jobs, j);
    }
    if (jobs->jobs->len == 0) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: no job: add a group [job.NAME] per job", path);
        return NULL;
    }
    return g_steal_pointer(&jobs);
}

/* ---- placement ------------------------------------------------------------------------ */

/* The node of GPU @g: its host, or (no host) a node of its own after every host. */
static guint
gpu_node(const weft_topo_t *topo, guint g)
{
    gint h = weft_topo_vertex_host(topo, weft_topo_gpu_vertex(topo, g));
    return h >= 0 ? (guint)h : weft_topo_n_hosts(topo) + g;
}

static guint
count_free(const guint8 *used, guint n)
{
    guint c = 0;
    for (guint g = 0; g < n; g++) {
        c += used[g] ? 0 : 1;
    }
    return c;
}

static gboolean
not_enough(const weft_jobs_t *jobs, const job_t *j, guint free_gpus, GError **error)
{
    g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                "%s: [job.%s] placement = %s: the job has %u ranks and %u of the cluster's %u "
                "GPUs are free",
                jobs->path, j->name, weft_enum_name(&weft_jobs_place_enum, (gint)j->place),
                j->n_ranks, free_gpus, weft_topo_n_gpus(jobs->topo));
    return FALSE;
}

/* Gives every job its GPUs (the essay's order). O(jobs x GPUs). */
static gboolean
place_jobs(weft_jobs_t *jobs, GError **error)
{
    const weft_topo_t *topo = jobs->topo;
    guint n_gpus = weft_topo_n_gpus(topo);
    g_autofree guint8 *used = g_new0(guint8, n_gpus);
    g_autofree gint *owner = g_new(gint, n_gpus);
    /* file */
    for (guint i = 0; i < jobs->jobs->len; i++) {
        job_t *j = g_ptr_array_index(jobs->jobs, i);
        if (j->place != WEFT_JOBS_FILE) {
            continue;
        }
        g_autoptr(GError) err = NULL;
        j->gpu = weft_topo_place(topo, j->n_ranks, WEFT_PLACE_FILE, 0, j->place_file, &err);
        if (j->gpu == NULL) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "%s: [job.%s] placement_file = \"%s\": %s", jobs->path, j->name,
                        j->place_file, err->message);
            return FALSE;
        }
        for (guint r = 0; r < j->n_ranks; r++) {
            guint g = j->gpu[r];
            if (used[g]) {
                job_t *o = g_ptr_array_index(jobs->jobs, owner[g]);
                g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                            "%s: [job.%s] placement_file = \"%s\": rank %u is on GPU %u (%s), "
                            "which job %s has",
                            jobs->path, j->name, j->place_file, r, g,
                            weft_topo_vertex_name(topo, weft_topo_gpu_vertex(topo, g)), o->name);
                return FALSE;
            }
            used[g] = 1;
            owner[g] = (gint)i;
        }
    }
    /* interleaved: whole free nodes dealt in turn */
    guint n_nodes = weft_topo_n_hosts(topo) + n_gpus;
    g_autoptr(GArray) inter = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint i = 0; i < jobs->jobs->len; i++) {
        job_t *j = g_ptr_array_index(jobs->jobs, i);
        if (j->place == WEFT_JOBS_INTERLEAVED) {
            g_array_append_val(inter, i);
            j->gpu = g_new(guint, j->n_ranks);
        }
    }
    if (inter->len > 0) {
        g_autofree guint *have = g_new0(guint, jobs->jobs->len);
        guint turn = 0, need = 0;
        for (guint k = 0; k < inter->len; k++) {
            need +=
                ((job_t *)g_ptr_array_index(jobs->jobs, g_array_index(inter, guint, k)))->n_ranks;
        }
        g_autofree guint8 *node_used = g_new0(guint8, n_nodes);
        for (guint g = 0; g < n_gpus; g++) {
            if (used[g]) {
                node_used[gpu_node(topo, g)] = 1; /* a node with a file job's GPU is not free */
            }
        }
        for (guint g = 0; g < n_gpus && need > 0; g++) {
            guint node = gpu_node(topo, g);
            if (node_used[node]) {
                continue;
            }
            node_used[node] = 1;
            /* the next interleaved job that still needs GPUs takes this node */
            guint i = 0;
            job_t *j = NULL;
            for (guint t = 0; t < inter->len; t++) {
                i = g_array_index(inter, guint, (turn + t) % inter->len);
                job_t *c = g_ptr_array_index(jobs->jobs, i);
                if (have[i] < c->n_ranks) {
                    j = c;
                    turn = (turn + t + 1) % inter->len;
                    break;
                }
            }
            for (guint h = g; h < n_gpus && have[i] < j->n_ranks; h++) {
                if (gpu_node(topo, h) == node && !used[h]) {
                    j->gpu[have[i]++] = h;
                    used[h] = 1;
                    owner[h] = (gint)i;
                    need--;
                }
            }
        }
        for (guint k = 0; k < inter->len; k++) {
            guint i = g_array_index(inter, guint, k);
            job_t *j = g_ptr_array_index(jobs->jobs, i);
            if (have[i] < j->n_ranks) {
                g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                            "%s: [job.%s] placement = interleaved: the job has %u ranks and got "
                            "%u GPUs of the free nodes (the interleaved jobs need %u more)",
                            jobs->path, j->name, j->n_ranks, have[i], need);
                return FALSE;
            }
        }
    }
    /* packed and spread, in file order */
    for (guint i = 0; i < jobs->jobs->len; i++) {
        job_t *j = g_ptr_array_index(jobs->jobs, i);
        if (j->place != WEFT_JOBS_PACKED && j->place != WEFT_JOBS_SPREAD) {
            continue;
        }
        guint free_gpus = count_free(used, n_gpus);
        if (free_gpus < j->n_ranks) {
            return not_enough(jobs, j, free_gpus, error);
        }
        j->gpu = g_new(guint, j->n_ranks);
        guint have = 0;
        if (j->place == WEFT_JOBS_PACKED) {
            for (guint g = 0; g < n_gpus && have < j->n_ranks; g++) {
                if (!used[g]) {
                    j->gpu[have++] = g;
                    used[g] = 1;
                }
            }
            continue;
        }
        /* spread: one free GPU of each node in turn (nodes in the order of their first GPU) */
        while (have < j->n_ranks) {
            g_autofree guint8 *taken = g_new0(guint8, n_nodes);
            for (guint g = 0; g < n_gpus && have < j->n_ranks; g++) {
                guint node = gpu_node(topo, g);
                if (!used[g] && !taken[node]) {
                    taken[node] = 1;
                    j->gpu[have++] = g;
                    used[g] = 1;
                }
            }
        }
    }
    return TRUE;
}

/* "GPUs 0-7, 16-23" of @gpu (n entries), runs of consecutive numbers joined. */
static void
append_gpu_list(GString *s, const guint *gpu, guint n)
{
    g_string_append(s, n == 1 ? "GPU " : "GPUs ");
    for (guint i = 0; i < n;) {
        guint k = i;
        while (k + 1 < n && gpu[k + 1] == gpu[k] + 1) {
            k++;
        }
        g_string_append_printf(s, "%s%u", i > 0 ? "," : "", gpu[i]);
        if (k > i) {
            g_string_append_printf(s, "-%u", gpu[k]);
        }
        i = k + 1;
    }
}

/* ---- merging -------------------------------------------------------------------------- */

/* Copies @n entries of the nullable array @a @times times from @src into @dst, after @off. */
#define COPY_ITER(dst, src, field, n, off)                                                         \
    do {                                                                                           \
        if ((src)->field != NULL) {                                                                \
            memcpy((dst)->field + (off), (src)->field, (n) * sizeof((src)->field[0]));             \
        }                                                                                          \
    } while (0)

/* Rank @t of job @j as rank @m of the merged workload: ids, names and every per-node field
 * copied @j->iterations times, an iteration end node after each iteration when there are
 * several, communicators offset by @comm_base, peers by the job's rank base and layer ids
 * through @layer_map (the job's id -> the merged table's; NULL: the job names no layer). A
 * borrowed rank's remapped layer array goes to @owned. */
static void
merge_rank(const job_t *j, const weft_rank_trace_t *t, guint comm_base, gboolean mem,
           const guint16 *layer_map, GPtrArray *owned, GStringChunk *strings,
           weft_rank_trace_t *m)
{
    guint n = t->n_nodes, iters = j->iterations;
    gboolean markers = iters > 1;
    if (!markers) {
        /* the job's own arrays, borrowed; communicators and peers are the merged ones */
        *m = *t;
        m->file = g_strdup(t->file);
        m->borrows_arrays = TRUE;
        m->layer = NULL;
        if (t->layer != NULL && layer_map != NULL) {
            guint16 *layer = g_new(guint16, MAX(n, 1u));
            for (guint i = 0; i < n; i++) {
                layer[i] = layer_map[t->layer[i]];
            }
            g_ptr_array_add(owned, layer);
            m->layer = layer;
        }
        if (!mem) {
            m->mem_alloc = m->mem_free = NULL;
            m->mem_cat = NULL;
        }
        m->comm = g_new(gint32, n);
        m->peer = g_new(gint32, n);
        for (guint i = 0; i < n; i++) {
            m->comm[i] = t->comm[i] >= 0 ? t->comm[i] + (gint32)comm_base : -1;
            m->peer[i] = t->peer[i] >= 0 ? t->peer[i] + (gint32)j->rank_base : -1;
        }
        return;
    }
    m->file = g_strdup(t->file);
    guint stride = n + 1;
    guint total = iters * stride;
    m->n_nodes = total;
    m->id = g_new0(guint64, total);
    m->name = g_new0(const char *, total);
    m->type = g_new0(guint8, total);
    m->is_cpu_op = g_new0(guint8, total);
    m->duration_ps = g_new0(weft_time_t, total);
    m->coll_op = g_new0(guint8, total);
    m->comm_bytes = g_new0(guint64, total);
    m->peer = g_new(gint32, total);
    m->tag = g_new0(gint64, total);
    m->comm = g_new(gint32, total);
    m->num_ops = g_new0(double, total);
    m->tensor_bytes = g_new0(guint64, total);
    m->sms_counted = t->sms_counted != NULL ? g_new0(guint8, total) : NULL;
    if (mem && t->mem_alloc != NULL) {
        m->mem_alloc = g_new0(guint64, total);
        m->mem_free = g_new0(guint64, total);
        m->mem_cat = g_new0(guint8, total);
    }
    m->involved_dim = t->involved_dim != NULL ? g_new0(guint16, total) : NULL;
    m->layer = t->layer != NULL && layer_map != NULL ? g_new0(guint16, total) : NULL;
    m->phase = t->phase != NULL ? g_new0(guint8, total) : NULL; /* end nodes: 0, "other" */
    for (guint i = 0; i < total; i++) {
        m->peer[i] = -1;
        m->comm[i] = -1;
    }
    /* which nodes are no one's predecessor: the ends of an iteration */
    g_autofree guint8 *is_pred = g_new0(guint8, n);
    for (guint i = 0; i < t->dep_off[n]; i++) {
        is_pred[t->deps[i]] = 1;
    }
    guint n_sinks = 0, n_roots = 0;
    for (guint i = 0; i < n; i++) {
        n_sinks += is_pred[i] ? 0 : 1;
        n_roots += t->dep_off[i + 1] == t->dep_off[i] ? 1 : 0;
    }
    guint64 n_deps = (guint64)iters * (t->dep_off[n] + MAX(n_sinks, 1u)) + (guint64)n_roots * iters;
    g_assert(n_deps < G_MAXUINT32);
    m->dep_off = g_new(guint32, total + 1);
    m->deps = g_new(guint32, MAX(n_deps, 1));
    guint32 d = 0;
    m->dep_off[0] = 0;
    for (guint k = 0; k < iters; k++) {
        guint base = k * stride;
        /* the node the iteration's first nodes wait for: the previous iteration's end */
        gint gate = k > 0 ? (gint)(base - 1) : -1;
        memcpy(m->id + base, t->id, n * sizeof(guint64));
        memcpy(m->name + base, t->name, n * sizeof(const char *));
        memcpy(m->type + base, t->type, n);
        memcpy(m->is_cpu_op + base, t->is_cpu_op, n);
        memcpy(m->duration_ps + base, t->duration_ps, n * sizeof(weft_time_t));
        memcpy(m->coll_op + base, t->coll_op, n);
        memcpy(m->comm_bytes + base, t->comm_bytes, n * sizeof(guint64));
        memcpy(m->tag + base, t->tag, n * sizeof(gint64));
        memcpy(m->num_ops + base, t->num_ops, n * sizeof(double));
        memcpy(m->tensor_bytes + base, t->tensor_bytes, n * sizeof(guint64));
        COPY_ITER(m, t, sms_counted, n, base);
        COPY_ITER(m, t, involved_dim, n, base);
        COPY_ITER(m, t, phase, n, base);
        for (guint i = 0; m->layer != NULL && i < n; i++) {
            m->layer[base + i] = layer_map[t->layer[i]];
        }
        if (m->mem_alloc != NULL) {
            COPY_ITER(m, t, mem_alloc, n, base);
            COPY_ITER(m, t, mem_free, n, base);
            COPY_ITER(m, t, mem_cat, n, base);
        }
        for (guint i = 0; i < n; i++) {
            m->comm[base + i] = t->comm[i] >= 0 ? t->comm[i] + (gint32)comm_base : -1;
            m->peer[base + i] = t->peer[i] >= 0 ? t->peer[i] + (gint32)j->rank_base : -1;
            for (guint32 e = t->dep_off[i]; e < t->dep_off[i + 1]; e++) {
                m->deps[d++] = base + t->deps[e];
            }
            if (t->dep_off[i + 1] == t->dep_off[i] && gate >= 0) {
                m->deps[d++] = (guint32)gate;
            }
            m->dep_off[base + i + 1] = d;
        }
        {
            guint e = base + n;
            m->id[e] = G_MAXUINT64 - 1 - k;
            g_autofree char *name = g_strdup_printf("iteration %u end", k);
            m->name[e] = g_string_chunk_insert_const(strings, name);
            m->type[e] = WEFT_NODE_METADATA;
            for (guint i = 0; i < n; i++) {
                if (!is_pred[i]) {
                    m->deps[d++] = base + i;
                }
            }
            if (n == 0 && gate >= 0) {
                m->deps[d++] = (guint32)gate;
            }
            m->dep_off[e + 1] = d;
        }
    }
    g_assert(d <= n_deps);
}

const weft_time_t *
weft_jobs_rank_start(const weft_jobs_t *jobs)
{
    g_return_val_if_fail(jobs != NULL, NULL);
    return jobs->rank_start_ps;
}

gboolean
weft_jobs_build(weft_jobs_t *jobs, const weft_topo_t *topo, gint only, weft_workload_t **wl,
                guint **rank_gpu, char **label, char **placement, GError **error)
{
    g_return_val_if_fail(jobs != NULL && topo != NULL && wl != NULL && rank_gpu != NULL, FALSE);
    g_return_val_if_fail(only < (gint)jobs->jobs->len, FALSE);
    jobs->topo = topo;
    jobs->n_edges = weft_topo_n_edges(topo);
    GString *lab = g_string_new(NULL);
    g_string_append_printf(lab, "jobs %s:", jobs->path);
    for (guint i = 0; i < jobs->jobs->len; i++) {
        job_t *j = g_ptr_array_index(jobs->jobs, i);
        weft_scenario_config_t cfg;
        if (!weft_scenario_resolve(j->sc, &cfg, error)) {
            g_string_free(lab, TRUE);
            return FALSE;
        }
        guint n_gpus = j->gpus > 0 ? j->gpus : weft_topo_n_gpus(topo);
        GError *err = NULL;
        j->wl = weft_scenario_i_load_workload(j->sc, &cfg, topo, n_gpus, &j->label, &err);
        if (j->wl != NULL && !weft_workload_check(j->wl, weft_topo_n_gpus(topo), &err)) {
            g_clear_pointer(&j->wl, weft_workload_free);
        }
        if (j->wl == NULL) {
            g_propagate_prefixed_error(error, err, "%s: [job.%s]: ", jobs->path, j->name);
            g_string_free(lab, TRUE);
            return FALSE;
        }
        j->n_ranks = j->wl->n_ranks;
        /* a rank's nodes and dependencies, iterations times, index 32-bit arrays */
        for (guint r = 0; r < j->n_ranks; r++) {
            const weft_rank_trace_t *t = &j->wl->ranks[r];
            guint64 per_iter = 2 * ((guint64)t->n_nodes + 1 + t->dep_off[t->n_nodes]);
            if (per_iter * j->iterations > MAX_RANK_ENTRIES) {
                g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                            "%s: [job.%s] iterations = %u: rank %u has %u nodes and %u "
                            "dependencies, which %u iterations would repeat beyond %u; run "
                            "fewer",
                            jobs->path, j->name, j->iterations, r, t->n_nodes,
                            t->dep_off[t->n_nodes], j->iterations, MAX_RANK_ENTRIES);
                g_string_free(lab, TRUE);
                return FALSE;
            }
        }
        j->iter_end_ps = g_new0(weft_time_t, j->iterations);
        j->runs = only < 0 || (guint)only == i;
        if (j->runs) {
            g_string_append_printf(lab, "%s %s (%s, %u rank%s",
                                   lab->str[lab->len - 1] == ':' ? "" : ",", j->name, j->label,
                                   j->n_ranks, j->n_ranks == 1 ? "" : "s");
            if (j->start_ps > 0) {
                g_string_append_printf(lab, ", from %s", j->start_text);
            }
            if (j->iterations > 1) {
                g_string_append_printf(lab, ", %u iterations", j->iterations);
            }
            g_string_append_c(lab, ')');
        }
    }
    if (!place_jobs(jobs, error)) {
        g_string_free(lab, TRUE);
        return FALSE;
    }
    /* the merged workload */
    weft_workload_t *m = g_new0(weft_workload_t, 1);
    guint n_ranks = 0;
    gboolean mem = TRUE;
    for (guint i = 0; i < jobs->jobs->len; i++) {
        job_t *j = g_ptr_array_index(jobs->jobs, i);
        if (j->runs) {
            j->rank_base = n_ranks;
            n_ranks += j->n_ranks;
            mem = mem && j->wl->resident != NULL;
        }
    }
    m->n_ranks = n_ranks;
    m->ranks = g_new0(weft_rank_trace_t, n_ranks);
    m->comms = g_ptr_array_new_with_free_func(weft_workload_i_comm_free);
    m->strings = g_string_chunk_new(256);
    m->source = g_strdup(jobs->path);
    m->warnings = g_ptr_array_new_with_free_func(g_free);
    m->resident = mem ? g_malloc0_n(MAX(n_ranks, 1u), sizeof(*m->resident)) : NULL;
    g_autofree guint *world = g_new(guint, n_ranks);
    for (guint r = 0; r < n_ranks; r++) {
        world[r] = r;
    }
    g_ptr_array_add(m->comms, weft_workload_i_comm_new("0", world, n_ranks));
    *rank_gpu = g_new(guint, n_ranks);
    g_free(jobs->rank_job);
    jobs->rank_job = g_new(guint, n_ranks);
    g_free(jobs->rank_start_ps);
    jobs->rank_start_ps = g_new(weft_time_t, n_ranks);
    gboolean late = FALSE;
    jobs->n_ranks = n_ranks;
    GString *place = g_string_new(NULL);
    for (guint i = 0; i < jobs->jobs->len; i++) {
        job_t *j = g_ptr_array_index(jobs->jobs, i);
        if (!j->runs) {
            continue;
        }
        /* the job's layers in the merged table, named after the job */
        g_autofree guint16 *layer_map = NULL;
        if (j->wl->layers != NULL && j->wl->layers->len > 0) {
            layer_map = g_new0(guint16, j->wl->layers->len);
            for (guint l = 1; l < j->wl->layers->len; l++) {
                g_autofree char *lname = g_strdup_printf(
                    "%s/%s", j->name, (const char *)g_ptr_array_index(j->wl->layers, l));
                layer_map[l] = weft_workload_layer_id(m, lname);
            }
        }
        if (jobs->owned == NULL) {
            jobs->owned = g_ptr_array_new_with_free_func(g_free);
        }
        guint comm_base = m->comms->len;
        for (guint c = 0; c < j->wl->comms->len; c++) {
            const weft_comm_t *oc = g_ptr_array_index(j->wl->comms, c);
            g_autofree guint *ranks = g_new(guint, oc->n_ranks);
            for (guint k = 0; k < oc->n_ranks; k++) {
                ranks[k] = oc->ranks[k] + j->rank_base;
            }
            g_autofree char *name = g_strdup_printf("%s/%s", j->name, oc->name);
            weft_comm_t *nc = weft_workload_i_comm_new(name, ranks, oc->n_ranks);
            nc->job_size = oc->job_size;
            g_ptr_array_add(m->comms, nc);
        }
        for (guint r = 0; r < j->n_ranks; r++) {
            guint mr = j->rank_base + r;
            const weft_rank_trace_t *t = &j->wl->ranks[r];
            merge_rank(j, t, comm_base, mem, layer_map, jobs->owned, m->strings, &m->ranks[mr]);
            (*rank_gpu)[mr] = j->gpu[r];
            jobs->rank_start_ps[mr] = j->start_ps;
            late = late || j->start_ps > 0;
            jobs->rank_job[mr] = i;
            if (mem) {
                memcpy(m->resident[mr], j->wl->resident[r], sizeof m->resident[mr]);
            }
        }
        for (guint w = 0; j->wl->warnings != NULL && w < j->wl->warnings->len; w++) {
            g_ptr_array_add(m->warnings,
                            g_strdup_printf("job %s: %s", j->name,
                                            (const char *)g_ptr_array_index(j->wl->warnings, w)));
        }
        g_string_append_printf(place, "%s%s %s ", place->len > 0 ? "; " : "", j->name,
                               weft_enum_name(&weft_jobs_place_enum, (gint)j->place));
        append_gpu_list(place, j->gpu, j->n_ranks);
    }
    if (!late) {
        g_clear_pointer(&jobs->rank_start_ps, g_free); /* every rank at once: as one workload */
    }
    *wl = m;
    *label = g_string_free(lab, FALSE);
    *placement = g_string_free(place, FALSE);
    return TRUE;
}

/* ---- results -------------------------------------------------------------------------- */

static void
obs_node(void *data, guint rank, guint node, weft_replay_stream_t stream, weft_time_t start_ps,
         weft_time_t end_ps)
{
    weft_jobs_t *jobs = data;
    if (jobs->next != NULL && jobs->next->node != NULL) {
        jobs->next->node(jobs->next->data, rank, node, stream, start_ps, end_ps);
    }
    if (stream != WEFT_REPLAY_STREAM_NONE || rank >= jobs->n_ranks) {
        return;
    }
    job_t *j = g_ptr_array_index(jobs->jobs, jobs->rank_job[rank]);
    if (j->iterations <= 1) {
        return;
    }
    /* the rank's own stride: ranks of a job may have different node counts */
    guint n = j->wl->ranks[rank - j->rank_base].n_nodes, stride = n + 1;
    if (node % stride == n) {
        guint k = node / stride;
        j->iter_end_ps[k] = MAX(j->iter_end_ps[k], end_ps);
    }
}

static void
obs_collective(void *data, const weft_replay_coll_event_t *ev)
{
    weft_jobs_t *jobs = data;
    if (jobs->next != NULL && jobs->next->collective != NULL) {
        jobs->next->collective(jobs->next->data, ev);
    }
}

const weft_replay_observer_t *
weft_jobs_observer(weft_jobs_t *jobs, const weft_replay_observer_t *next)
{
    g_return_val_if_fail(jobs != NULL, NULL);
    gboolean watch = FALSE;
    for (guint i = 0; i < jobs->jobs->len; i++) {
        const job_t *j = g_ptr_array_index(jobs->jobs, i);
        watch = watch || (j->runs && j->iterations > 1);
    }
    if (!watch) {
        return next; /* a replay observed keeps every node's start: not without need */
    }
    jobs->next = next;
    jobs->obs = (weft_replay_observer_t){
        .data = jobs,
        .node = obs_node,
        .collective = obs_collective,
    };
    return &jobs->obs;
}

void
weft_jobs_finish(weft_jobs_t *jobs, const weft_net_t *net, const weft_replay_result_t *res)
{
    g_return_if_fail(jobs != NULL && net != NULL && res != NULL && jobs->topo != NULL);
    g_return_if_fail(res->n_ranks == jobs->n_ranks);
    for (guint i = 0; i < jobs->jobs->len; i++) {
        job_t *j = g_ptr_array_index(jobs->jobs, i);
        if (!j->runs) {
            continue;
        }
        weft_time_t end = 0;
        for (guint r = 0; r < j->n_ranks; r++) {
            end = MAX(end, res->ranks[j->rank_base + r].finish_ps);
        }
        /* one iteration: it ends when the job's last rank does (no end node to observe) */
        j->iter_end_ps[j->iterations - 1] = end;
        j->time_ps = end - j->start_ps;
    }
    g_free(jobs->edge_bytes);
    jobs->edge_bytes = g_new0(double, jobs->n_edges);
    for (guint e = 0; e < jobs->n_edges; e++) {
        jobs->edge_bytes[e] = weft_net_link_stats(net, (gint)e).bytes;
    }
}

void
weft_jobs_set_alone(weft_jobs_t *jobs, guint j, const weft_jobs_t *alone)
{
    g_return_if_fail(jobs != NULL && alone != NULL && j < jobs->jobs->len);
    g_return_if_fail(alone->jobs->len == jobs->jobs->len && alone->edge_bytes != NULL);
    job_t *dst = g_ptr_array_index(jobs->jobs, j);
    const job_t *src = g_ptr_array_index(alone->jobs, j);
    dst->alone_known = TRUE;
    dst->alone_time_ps = src->time_ps;
    g_free(dst->alone_bytes);
    dst->alone_bytes = g_memdup2(alone->edge_bytes, alone->n_edges * sizeof(double));
}

weft_time_t
weft_jobs_time_ps(const weft_jobs_t *jobs, guint j)
{
    g_return_val_if_fail(jobs != NULL && j < jobs->jobs->len, 0);
    return ((const job_t *)g_ptr_array_index(jobs->jobs, j))->time_ps;
}

double
weft_jobs_slowdown(const weft_jobs_t *jobs, guint j)
{
    g_return_val_if_fail(jobs != NULL && j < jobs->jobs->len, NAN);
    const job_t *job = g_ptr_array_index(jobs->jobs, j);
    if (!job->alone_known || job->alone_time_ps <= 0) {
        return NAN;
    }
    return (double)job->time_ps / (double)job->alone_time_ps;
}

/* Orders edges by bytes, most first, ties by edge id (a total order: deterministic). */
static gint
cmp_edge_bytes(gconstpointer pa, gconstpointer pb, gpointer data)
{
    const double *bytes = data;
    guint a = *(const guint *)pa, b = *(const guint *)pb;
    if (bytes[a] != bytes[b]) {
        return bytes[a] > bytes[b] ? -1 : 1;
    }
    return a < b ? -1 : a > b ? 1 : 0;
}

/* Edges that carried bytes, most first (ties by id). (transfer full) O(E log E). */
static GArray *
busiest_edges(const weft_jobs_t *jobs)
{
    GArray *order = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint e = 0; e < jobs->n_edges; e++) {
        if (jobs->edge_bytes[e] > 0) {
            g_array_append_val(order, e);
        }
    }
    g_array_sort_with_data(order, cmp_edge_bytes, jobs->edge_bytes);
    return order;
}

/* Links the summary lists. */
#define SUMMARY_LINKS 5

char *
weft_jobs_summary(const weft_jobs_t *jobs)
{
    g_return_val_if_fail(jobs != NULL && jobs->edge_bytes != NULL, NULL);
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < jobs->jobs->len; i++) {
        const job_t *j = g_ptr_array_index(jobs->jobs, i);
        if (!j->runs) {
            continue;
        }
        g_string_append_printf(
            s,
            "job %-7s %u ranks, %s, start %.6f us, %u iteration%s: time "
            "%.6f us (mean iteration %.6f us)",
            j->name, j->n_ranks, weft_enum_name(&weft_jobs_place_enum, (gint)j->place),
            weft_time_to_us(j->start_ps), j->iterations, j->iterations == 1 ? "" : "s",
            weft_time_to_us(j->time_ps), weft_time_to_us(j->time_ps) / j->iterations);
        if (j->alone_known) {
            g_string_append_printf(s, ", alone %.6f us, slowdown %.4f",
                                   weft_time_to_us(j->alone_time_ps), weft_jobs_slowdown(jobs, i));
        }
        g_string_append_c(s, '\n');
    }
    g_autoptr(GArray) order = busiest_edges(jobs);
    for (guint k = 0; k < order->len && k < SUMMARY_LINKS; k++) {
        guint e = g_array_index(order, guint, k);
        const weft_topo_t *t = jobs->topo;
        g_string_append_printf(s, "job link    %s -> %s: %.0f bytes",
                               weft_topo_vertex_name(t, weft_topo_edge_from(t, (gint)e)),
                               weft_topo_vertex_name(t, weft_topo_edge_to(t, (gint)e)),
                               jobs->edge_bytes[e]);
        for (guint i = 0; i < jobs->jobs->len; i++) {
            const job_t *j = g_ptr_array_index(jobs->jobs, i);
            if (j->alone_known) {
                g_string_append_printf(s, "%s %s %.0f", i == 0 ? ":" : ",", j->name,
                                       j->alone_bytes[e]);
            }
        }
        g_string_append_c(s, '\n');
    }
    return g_string_free(s, FALSE);
}

char *
weft_jobs_csv(const weft_jobs_t *jobs)
{
    g_return_val_if_fail(jobs != NULL, NULL);
    GString *s = g_string_new("job,name,ranks,placement,gpus,start_us,iteration,end_us,"
                              "iteration_us,time_us,alone_time_us,slowdown\n");
    for (guint i = 0; i < jobs->jobs->len; i++) {
        const job_t *j = g_ptr_array_index(jobs->jobs, i);
        if (!j->runs) {
            continue;
        }
        GString *gpus = g_string_new(NULL);
        append_gpu_list(gpus, j->gpu, j->n_ranks);
        weft_time_t prev = j->start_ps;
        for (guint k = 0; k < j->iterations; k++) {
            g_string_append_printf(s, "%u,%s,%u,%s,", i + 1, j->name, j->n_ranks,
                                   weft_enum_name(&weft_jobs_place_enum, (gint)j->place));
            weft_output_csv_field(s, gpus->str);
            g_string_append_printf(s, ",%.6f,%u,%.6f,%.6f,%.6f,", weft_time_to_us(j->start_ps), k,
                                   weft_time_to_us(j->iter_end_ps[k]),
                                   weft_time_to_us(j->iter_end_ps[k] - prev),
                                   weft_time_to_us(j->time_ps));
            if (j->alone_known) {
                g_string_append_printf(s, "%.6f,%.6f\n", weft_time_to_us(j->alone_time_ps),
                                       weft_jobs_slowdown(jobs, i));
            } else {
                g_string_append(s, ",\n");
            }
            prev = j->iter_end_ps[k];
        }
        g_string_free(gpus, TRUE);
    }
    return g_string_free(s, FALSE);
}

char *
weft_jobs_links_csv(const weft_jobs_t *jobs)
{
    g_return_val_if_fail(jobs != NULL && jobs->edge_bytes != NULL, NULL);
    const weft_topo_t *t = jobs->topo;
    GString *s = g_string_new("edge,kind,from,to,capacity_GBps,wire_bytes");
    gboolean all_alone = TRUE;
    for (guint i = 0; i < jobs->jobs->len; i++) {
        const job_t *j = g_ptr_array_index(jobs->jobs, i);
        if (j->runs && j->alone_known) {
            g_string_append_printf(s, ",bytes_%s", j->name);
        }
        all_alone = all_alone && (!j->runs || j->alone_known);
    }
    g_string_append(s, all_alone ? ",jobs_sum_matches\n" : "\n");
    g_autoptr(GArray) order = busiest_edges(jobs);
    for (guint k = 0; k < order->len; k++) {
        guint e = g_array_index(order, guint, k);
        g_string_append_printf(s, "%u,%s,", e,
                               weft_topo_link_kind_name(weft_topo_edge_kind(t, (gint)e)));
        weft_output_csv_field(s, weft_topo_vertex_name(t, weft_topo_edge_from(t, (gint)e)));
        g_string_append_c(s, ',');
        weft_output_csv_field(s, weft_topo_vertex_name(t, weft_topo_edge_to(t, (gint)e)));
        g_string_append_printf(s, ",%.6f,%.0f", weft_topo_edge_bw(t, (gint)e) / 1e9,
                               jobs->edge_bytes[e]);
        double sum = 0;
        for (guint i = 0; i < jobs->jobs->len; i++) {
            const job_t *j = g_ptr_array_index(jobs->jobs, i);
            if (j->runs && j->alone_known) {
                g_string_append_printf(s, ",%.0f", j->alone_bytes[e]);
                sum += j->alone_bytes[e];
            }
        }
        if (all_alone) {
            /* the jobs' bytes alone add up to the shared run's (to 1 byte in 1e9: fixed point) */
            g_string_append_printf(
                s, ",%s",
                fabs(sum - jobs->edge_bytes[e]) <= 1e-9 * jobs->edge_bytes[e] + 1.0 ? "yes" : "no");
        }
        g_string_append_c(s, '\n');
    }
    return g_string_free(s, FALSE);
}
