/* SPDX-License-Identifier: MIT */
/*
 * Reads ASTRA-sim's system JSON into weft_astra_system_t and maps a collective under it
 * onto a weft plan configuration and executor costs (astra_system.h has the model).
 * Keys and defaults follow astra-sim/astra-sim @ 518bd513ae11 (astra-sim/system/Sys.cc
 * initialize_sys(), astra-sim/system/astraccl/CollectiveImplLookup.cc).
 */
#include "coll/astra_system.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "core/json.h"
#include "core/keyfile.h"


G_DEFINE_QUARK(weft-astra-system-error-quark, weft_astra_system_error)

static const char *const impl_names[] = {"ring",
                                         "oneRing",
                                         "direct",
                                         "oneDirect",
                                         "halvingDoubling",
                                         "oneHalvingDoubling",
                                         "doubleBinaryTree",
                                         NULL};
const weft_enum_t weft_astra_impl_enum = {"ASTRA-sim collective implementation", impl_names};

static const char *const sched_names[] = {"LIFO", "FIFO", "EXPLICIT", NULL};
static const weft_enum_t sched_enum = {"scheduling policy", sched_names};
static const char *const opt_names[] = {"baseline", "localBWAware", NULL};
static const weft_enum_t opt_enum = {"collective optimization", opt_names};

/* ASTRA-sim's key prefixes of the four operations, in weft_astra_op_t order. */
static const char *const op_keys[WEFT_ASTRA_N_OPS] = {"all-reduce", "all-gather",
                                                      "reduce-scatter", "all-to-all"};

typedef struct {
    const char *path;
    GPtrArray *warnings; /* nullable */
} reader_t;

static void G_GNUC_PRINTF(3, 4) warn(reader_t *R, const char *key, const char *fmt, ...)
{
    if (R->warnings == NULL) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_ptr_array_add(R->warnings, g_strdup_printf("%s: key \"%s\": %s", R->path, key, why));
}

static gboolean
bad_value(reader_t *R, const char *key, JsonNode *v, const char *expected, GError **error)
{
    g_autofree char *txt = json_to_string(v, FALSE);
    g_set_error(error, WEFT_ASTRA_SYSTEM_ERROR, WEFT_ASTRA_SYSTEM_ERROR_VALUE,
                "%s: key \"%s\": value %s: expected %s", R->path, key, txt, expected);
    return FALSE;
}

static gboolean
get_int(reader_t *R, const char *key, JsonNode *v, gint64 lo, gint64 hi, gint64 *out,
        GError **error)
{
    if (!JSON_NODE_HOLDS_VALUE(v) || json_node_get_value_type(v) != G_TYPE_INT64 ||
        json_node_get_int(v) < lo || json_node_get_int(v) > hi) {
        g_autofree char *want = hi == G_MAXINT32 ? g_strdup_printf("an integer >= %" G_GINT64_FORMAT, lo)
                                                 : g_strdup_printf("an integer from %" G_GINT64_FORMAT
                                                                   " to %" G_GINT64_FORMAT,
                                                                   lo, hi);
        return bad_value(R, key, v, want, error);
    }
    *out = json_node_get_int(v);
    return TRUE;
}

static gboolean
get_number(reader_t *R, const char *key, JsonNode *v, gboolean positive, double *out,
           GError **error)
{
    GType t = JSON_NODE_HOLDS_VALUE(v) ? json_node_get_value_type(v) : G_TYPE_INVALID;
    double x = t == G_TYPE_INT64    ? (double)json_node_get_int(v)
               : t == G_TYPE_DOUBLE ? json_node_get_double(v)
                                    : NAN;
    if (!isfinite(x) || x < 0.0 || (positive && x == 0.0)) {
        return bad_value(R, key, v, positive ? "a number > 0" : "a number >= 0", error);
    }
    *out = x;
    return TRUE;
}

static gboolean
get_string(reader_t *R, const char *key, JsonNode *v, const char **out, GError **error)
{
    if (!JSON_NODE_HOLDS_VALUE(v) || json_node_get_value_type(v) != G_TYPE_STRING) {
        return bad_value(R, key, v, "a string", error);
    }
    *out = json_node_get_string(v);
    return TRUE;
}

static gboolean
get_enum(reader_t *R, const char *key, JsonNode *v, const weft_enum_t *e, gint *out,
         GError **error)
{
    const char *s = NULL;
    if (!get_string(R, key, v, &s, error)) {
        return FALSE;
    }
    if (!weft_enum_from_name(e, s, out, NULL)) {
        g_autofree char *list = weft_enum_list(e, ", ");
        g_autofree char *want = g_strdup_printf("one of %s", list);
        return bad_value(R, key, v, want, error);
    }
    return TRUE;
}

/* "direct", "direct8", "oneDirect", "oneDirect4", or a name of weft_astra_impl_enum. */
static gboolean
parse_impl(const char *s, weft_astra_dim_impl_t *out)
{
    out->window = -1;
    gint v;
    if (weft_enum_from_name(&weft_astra_impl_enum, s, &v, NULL)) {
        out->impl = (weft_astra_impl_t)v;
        return TRUE;
    }
    const char *tail = NULL;
    if (g_str_has_prefix(s, "oneDirect")) {
        out->impl = WEFT_ASTRA_IMPL_ONE_DIRECT;
        tail = s + strlen("oneDirect");
    } else if (g_str_has_prefix(s, "direct")) {
        out->impl = WEFT_ASTRA_IMPL_DIRECT;
        tail = s + strlen("direct");
    } else {
        return FALSE;
    }
    guint64 w;
    if (!g_ascii_string_to_unsigned(tail, 10, 1, 99999, &w, NULL)) {
        return FALSE;
    }
    out->window = (gint)w;
    return TRUE;
}

static gboolean
get_impl_list(reader_t *R, const char *key, JsonNode *v, weft_astra_system_t *sys,
              weft_astra_op_t op, GError **error)
{
    if (!JSON_NODE_HOLDS_ARRAY(v) || json_array_get_length(json_node_get_array(v)) == 0) {
        return bad_value(R, key, v, "a list with one implementation per dimension", error);
    }
    JsonArray *a = json_node_get_array(v);
    guint n = json_array_get_length(a);
    g_autofree weft_astra_dim_impl_t *impl = g_new(weft_astra_dim_impl_t, n);
    for (guint i = 0; i < n; i++) {
        JsonNode *e = json_array_get_element(a, i);
        const char *s = NULL;
        if (!JSON_NODE_HOLDS_VALUE(e) || json_node_get_value_type(e) != G_TYPE_STRING ||
            !parse_impl((s = json_node_get_string(e)), &impl[i])) {
            g_autofree char *list = weft_enum_list(&weft_astra_impl_enum, ", ");
            g_autofree char *want =
                g_strdup_printf("one of %s, directN or oneDirectN (dimension %u)", list, i);
            return bad_value(R, key, e, want, error);
        }
    }
    sys->n_dims[op] = n;
    sys->impl[op] = g_steal_pointer(&impl);
    return TRUE;
}

static gboolean
get_custom(reader_t *R, const char *key, JsonNode *v, char **out, GError **error)
{
    if (!JSON_NODE_HOLDS_ARRAY(v) || json_array_get_length(json_node_get_array(v)) != 1) {
        return bad_value(R, key, v, "a list of one Chakra ET path (ASTRA-sim's rule)", error);
    }
    const char *s = NULL;
    if (!get_string(R, key, json_array_get_element(json_node_get_array(v), 0), &s, error)) {
        return FALSE;
    }
    g_free(*out);
    *out = g_strdup(s);
    return TRUE;
}

/* The keys read_key() knows (ASTRA-sim 518bd513, Sys.cc), for "did you mean". */
static const char *const known_keys[] = {
    "all-reduce-implementation", "all-gather-implementation", "reduce-scatter-implementation",
    "all-to-all-implementation", "all-reduce-implementation-custom",
    "all-gather-implementation-custom", "reduce-scatter-implementation-custom",
    "all-to-all-implementation-custom", "scheduling-policy", "collective-optimization",
    "endpoint-delay", "local-reduction-delay", "active-chunks-per-dimension",
    "preferred-dataset-splits", "local-mem-bw", "peak-perf", "roofline-enabled",
    "trace-enabled", "replay-only", "track-local-mem", "model-shared-bus", "boost-mode",
    "local-mem-trace-filename", "per-node-custom-implementation"};

/* The known key nearest to the unknown @key, or NULL (weft_nearest_word()). */
static const char *
nearest_key(const char *key)
{
    return weft_nearest_word(key, known_keys, G_N_ELEMENTS(known_keys));
}

/* One key. FALSE with @error on a bad value; unknown keys only warn. */
static gboolean
read_key(reader_t *R, weft_astra_system_t *sys, const char *key, JsonNode *v, GError **error)
{
    gint e;
    gint64 i;
    const char *s = NULL;
    for (guint op = 0; op < WEFT_ASTRA_N_OPS; op++) {
        g_autofree char *native = g_strdup_printf("%s-implementation", op_keys[op]);
        g_autofree char *custom = g_strdup_printf("%s-implementation-custom", op_keys[op]);
        if (strcmp(key, native) == 0) {
            return get_impl_list(R, key, v, sys, op, error);
        }
        if (strcmp(key, custom) == 0) {
            if (!get_custom(R, key, v, &sys->custom[op], error)) {
                return FALSE;
            }
            warn(R, key,
                 "%s collectives run this Chakra ET as written, whatever their size: its "
                 "SEND nodes carry their own bytes (ASTRA-sim 518bd513 CustomAlgorithm.cc "
                 "ignores the collective's comm_size too)",
                 op_keys[op]);
            return TRUE;
        }
    }
    if (strcmp(key, "memory-type") == 0) {
        /* ASTRA-sim's --remote-memory-configuration file, given as the system file */
        g_set_error(error, WEFT_ASTRA_SYSTEM_ERROR, WEFT_ASTRA_SYSTEM_ERROR_VALUE,
                    "%s: key \"memory-type\": this is an ASTRA-sim remote-memory file "
                    "(--remote-memory-configuration), not a system file (--system-configuration); "
                    "weft has no remote-memory model and needs none for NO_MEMORY_EXPANSION, "
                    "the type every ASTRA-sim example uses",
                    R->path);
        return FALSE;
    }
    if (strcmp(key, "scheduling-policy") == 0) {
        if (!get_enum(R, key, v, &sched_enum, &e, error)) {
            return FALSE;
        }
        sys->scheduling_policy = e;
        warn(R, key,
             "%s not modelled: weft starts a collective's chunks when its dependencies "
             "allow, not by ASTRA-sim's ready-list priority (matters only when several "
             "collectives wait at once)",
             sched_names[e]);
    } else if (strcmp(key, "collective-optimization") == 0) {
        if (!get_enum(R, key, v, &opt_enum, &e, error)) {
            return FALSE;
        }
        sys->collective_optimization = e; /* one dimension: both give the same phases */
    } else if (strcmp(key, "endpoint-delay") == 0) {
        if (!get_int(R, key, v, 0, G_MAXINT32, &i, error)) {
            return FALSE;
        }
        sys->endpoint_delay_ns = i;
    } else if (strcmp(key, "local-reduction-delay") == 0) {
        if (!get_int(R, key, v, 0, G_MAXINT32, &i, error)) {
            return FALSE;
        }
        sys->local_reduction_delay = i; /* LogGP shared bus only (LogGP.cc) */
    } else if (strcmp(key, "active-chunks-per-dimension") == 0) {
        if (!get_int(R, key, v, 1, 1 << 20, &i, error)) {
            return FALSE;
        }
        sys->active_chunks = (guint)i;
    } else if (strcmp(key, "preferred-dataset-splits") == 0) {
        if (!get_int(R, key, v, 1, 1 << 20, &i, error)) {
            return FALSE;
        }
        sys->dataset_splits = (guint)i;
    } else if (strcmp(key, "local-mem-bw") == 0) {
        if (!get_number(R, key, v, TRUE, &sys->local_mem_bw_GBps, error)) {
            return FALSE;
        }
        sys->local_mem_bw_given = TRUE;
    } else if (strcmp(key, "peak-perf") == 0) {
        if (!get_number(R, key, v, TRUE, &sys->peak_perf_TFLOPs, error)) {
            return FALSE;
        }
        sys->peak_perf_given = TRUE;
    } else if (strcmp(key, "roofline-enabled") == 0 || strcmp(key, "trace-enabled") == 0 ||
               strcmp(key, "replay-only") == 0 || strcmp(key, "track-local-mem") == 0 ||
               strcmp(key, "model-shared-bus") == 0 || strcmp(key, "boost-mode") == 0) {
        if (!get_int(R, key, v, G_MININT32, G_MAXINT32, &i, error)) {
            return FALSE;
        }
        if (strcmp(key, "roofline-enabled") == 0) {
            sys->roofline_enabled = i != 0;
        } else if (strcmp(key, "trace-enabled") == 0) {
            sys->trace_enabled = i != 0;
        } else if (strcmp(key, "replay-only") == 0) {
            sys->replay_only = i != 0;
        } else if (strcmp(key, "track-local-mem") == 0) {
            sys->track_local_mem = i != 0;
        } else if (strcmp(key, "model-shared-bus") == 0) {
            sys->model_shared_bus = i == 1; /* Sys.cc: only 1 turns it on */
        } else {
            sys->boost_mode = i;
            sys->boost_mode_given = TRUE;
            warn(R, key, "ASTRA-sim (518bd513) does not read this key; weft ignores it too");
        }
    } else if (strcmp(key, "local-mem-trace-filename") == 0) {
        if (!get_string(R, key, v, &s, error)) {
            return FALSE;
        }
        g_free(sys->local_mem_trace_filename);
        sys->local_mem_trace_filename = g_strdup(s);
    } else if (strcmp(key, "L") == 0 || strcmp(key, "o") == 0 || strcmp(key, "g") == 0 ||
               strcmp(key, "G") == 0) {
        guint k = strchr("LogG", key[0]) - "LogG";
        if (!get_number(R, key, v, FALSE, &sys->loggp[k], error)) {
            return FALSE;
        }
    } else if (strcmp(key, "per-node-custom-implementation") == 0) {
        if (!get_string(R, key, v, &s, error)) {
            return FALSE;
        }
        g_free(sys->per_node_custom);
        sys->per_node_custom = g_strdup(s);
        warn(R, key, "per-node custom collectives are not run by weft; ignored");
    } else {
        const char *near = nearest_key(key);
        if (near != NULL) {
            warn(R, key, "unknown key (did you mean \"%s\"?); ignored", near);
        } else {
            warn(R, key, "unknown key (not read by ASTRA-sim 518bd513 either); ignored");
        }
    }
    return TRUE;
}

/* Warnings that depend on several keys, once all are read. */
static void
warn_combined(reader_t *R, const weft_astra_system_t *sys)
{
    if (sys->model_shared_bus) {
        warn(R, "model-shared-bus",
             "ASTRA-sim's LogGP memory bus (L, o, g, G, local-reduction-delay) is not "
             "modelled; weft charges endpoint-delay and local-mem-bw instead");
    }
    if (sys->trace_enabled || sys->track_local_mem || sys->replay_only) {
        warn(R,
             sys->trace_enabled     ? "trace-enabled"
             : sys->track_local_mem ? "track-local-mem"
                                    : "replay-only",
             "ASTRA-sim's own traces and replay mode are not produced; use weft's --out and "
             "--timeline");
    }
    if (sys->dataset_splits > sys->active_chunks && sys->dataset_splits % sys->active_chunks != 0) {
        warn(R, "active-chunks-per-dimension",
             "%u splits are not a multiple of %u active chunks: weft's last wave still runs %u "
             "chunks (an overestimate of its time)",
             sys->dataset_splits, sys->active_chunks, sys->active_chunks);
    }
    for (guint op = 0; op < WEFT_ASTRA_N_OPS; op++) {
        if (sys->n_dims[op] > 0 && sys->impl[op][0].window >= 0) {
            g_autofree char *key = g_strdup_printf("%s-implementation", op_keys[op]);
            warn(R, key, "the direct window (%d) is not modelled: all peers are sent at once",
                 sys->impl[op][0].window);
        }
    }
    if (sys->n_dims[WEFT_ASTRA_OP_ALL_TO_ALL] > 0 &&
        sys->custom[WEFT_ASTRA_OP_ALL_TO_ALL] == NULL &&
        (sys->impl[WEFT_ASTRA_OP_ALL_TO_ALL][0].impl == WEFT_ASTRA_IMPL_RING ||
         sys->impl[WEFT_ASTRA_OP_ALL_TO_ALL][0].impl == WEFT_ASTRA_IMPL_ONE_RING ||
         sys->impl[WEFT_ASTRA_OP_ALL_TO_ALL][0].impl == WEFT_ASTRA_IMPL_HALVING_DOUBLING ||
         sys->impl[WEFT_ASTRA_OP_ALL_TO_ALL][0].impl == WEFT_ASTRA_IMPL_ONE_HALVING_DOUBLING ||
         sys->impl[WEFT_ASTRA_OP_ALL_TO_ALL][0].impl == WEFT_ASTRA_IMPL_DOUBLE_BINARY_TREE)) {
        warn(R, "all-to-all-implementation",
             "%s all-to-all is not one of weft's algorithms: all-to-all runs direct",
             impl_names[sys->impl[WEFT_ASTRA_OP_ALL_TO_ALL][0].impl]);
    }
}

weft_astra_system_t *
weft_astra_system_load(const char *path, GPtrArray **warnings, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    g_autoptr(GPtrArray) warns = g_ptr_array_new_with_free_func(g_free);
    reader_t R = {.path = path, .warnings = warns};
    g_autoptr(GError) local = NULL;
    g_autoptr(JsonNode) root = weft_json_parse_file(path, &local);
    if (root == NULL) {
        if (local->domain == G_FILE_ERROR) {
            g_set_error(error, WEFT_ASTRA_SYSTEM_ERROR, WEFT_ASTRA_SYSTEM_ERROR_FILE,
                        "ASTRA-sim system file %s: %s", path, local->message);
        } else if (local->code == WEFT_JSON_ERROR_PARSE) {
            g_set_error(error, WEFT_ASTRA_SYSTEM_ERROR, WEFT_ASTRA_SYSTEM_ERROR_FILE,
                        "%s: not an ASTRA-sim system JSON file (%s)", path, local->message);
        } else {
            g_set_error(error, WEFT_ASTRA_SYSTEM_ERROR, WEFT_ASTRA_SYSTEM_ERROR_FILE,
                        "%s: %s", path, local->message);
        }
        return NULL;
    }
    if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(error, WEFT_ASTRA_SYSTEM_ERROR, WEFT_ASTRA_SYSTEM_ERROR_FILE,
                    "%s: an ASTRA-sim system file is a JSON object {\"endpoint-delay\": 10, ...}",
                    path);
        return NULL;
    }
    g_autoptr(weft_astra_system_t) sys = g_new0(weft_astra_system_t, 1);
    sys->path = g_strdup(path);
    /* Sys.cc's constructor: these defaults hold where a key is absent */
    sys->scheduling_policy = WEFT_ASTRA_SCHED_LIFO;
    sys->collective_optimization = WEFT_ASTRA_OPT_BASELINE;
    sys->endpoint_delay_ns = 10;
    sys->local_reduction_delay = 1;
    sys->active_chunks = 1;
    sys->dataset_splits = 1;
    JsonObject *obj = json_node_get_object(root);
    g_autoptr(GList) members = json_object_get_members(obj); /* file order */
    for (GList *m = members; m != NULL; m = m->next) {
        if (!read_key(&R, sys, m->data, json_object_get_member(obj, m->data), error)) {
            return NULL;
        }
    }
    warn_combined(&R, sys);
    if (warnings != NULL) {
        *warnings = g_steal_pointer(&warns);
    }
    return g_steal_pointer(&sys);
}

void
weft_astra_system_free(weft_astra_system_t *sys)
{
    if (sys == NULL) {
        return;
    }
    for (guint op = 0; op < WEFT_ASTRA_N_OPS; op++) {
        g_free(sys->impl[op]);
        g_free(sys->custom[op]);
        weft_coll_plan_free(sys->custom_plan[op]);
    }
    g_free(sys->per_node_custom);
    g_free(sys->local_mem_trace_filename);
    g_free(sys->path);
    g_free(sys);
}

const char *
weft_astra_op_key(weft_astra_op_t aop)
{
    g_return_val_if_fail((guint)aop < WEFT_ASTRA_N_OPS, NULL);
    return op_keys[aop];
}

gboolean
weft_astra_op_of(weft_coll_op_t op, weft_astra_op_t *aop)
{
    switch (op) {
    case WEFT_COLL_ALL_REDUCE:
        *aop = WEFT_ASTRA_OP_ALL_REDUCE;
        return TRUE;
    case WEFT_COLL_ALL_GATHER:
        *aop = WEFT_ASTRA_OP_ALL_GATHER;
        return TRUE;
    case WEFT_COLL_REDUCE_SCATTER:
    case WEFT_COLL_REDUCE_SCATTER_BLOCK:
        *aop = WEFT_ASTRA_OP_REDUCE_SCATTER;
        return TRUE;
    case WEFT_COLL_ALL_TO_ALL:
        *aop = WEFT_ASTRA_OP_ALL_TO_ALL;
        return TRUE;
    default:
        return FALSE;
    }
}

gboolean
weft_astra_system_plan(const weft_astra_system_t *sys, weft_coll_op_t op, guint n_members,
                       guint64 size_bytes, weft_coll_algo_t *algo, guint *channels,
                       guint64 *plan_bytes, weft_coll_exec_t *exec, GError **error)
{
    g_return_val_if_fail(sys != NULL && algo != NULL && channels != NULL, FALSE);
    g_return_val_if_fail(plan_bytes != NULL && exec != NULL && n_members >= 1, FALSE);
    weft_astra_op_t aop;
    if (!weft_astra_op_of(op, &aop)) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s: ASTRA-sim's system layer runs all-reduce, all-gather, reduce-scatter "
                    "and all-to-all only, not %s",
                    sys->path, weft_coll_op_name(op));
        return FALSE;
    }
    if (sys->custom[aop] != NULL) {
        /* the planner runs sys->custom_plan[aop] instead; reached only when it was not
         * loaded (weft_workload_astra_custom_plans()) */
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s: key \"%s-implementation-custom\": the custom collective %s was not "
                    "loaded (weft coll --algo custom:%s runs that Chakra ET on its own)",
                    sys->path, op_keys[aop], sys->custom[aop], sys->custom[aop]);
        return FALSE;
    }
    if (sys->n_dims[aop] == 0) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s: no key \"%s-implementation\": ASTRA-sim has no implementation for %s",
                    sys->path, op_keys[aop], weft_coll_op_name(op));
        return FALSE;
    }
    switch (sys->impl[aop][0].impl) {
    case WEFT_ASTRA_IMPL_RING:
    case WEFT_ASTRA_IMPL_ONE_RING:
        *algo = WEFT_COLL_ALGO_RING;
        break;
    case WEFT_ASTRA_IMPL_DIRECT:
    case WEFT_ASTRA_IMPL_ONE_DIRECT:
        *algo = WEFT_COLL_ALGO_DIRECT;
        break;
    case WEFT_ASTRA_IMPL_HALVING_DOUBLING:
    case WEFT_ASTRA_IMPL_ONE_HALVING_DOUBLING:
        *algo = WEFT_COLL_ALGO_HALVING_DOUBLING;
        break;
    case WEFT_ASTRA_IMPL_DOUBLE_BINARY_TREE:
        *algo = WEFT_COLL_ALGO_TREE;
        break;
    default:
        g_assert_not_reached();
    }
    if (op == WEFT_COLL_ALL_TO_ALL) {
        *algo = WEFT_COLL_ALGO_DIRECT; /* warned at load when the file asks for another */
    }
    /* Sys.cc determine_chunk_size(): c = S / K, raised to the NPU count (not for
     * all-gather) so that per-NPU messages keep at least a byte. */
    guint64 c = size_bytes / sys->dataset_splits;
    if (op != WEFT_COLL_ALL_GATHER && c < n_members) {
        c = n_members;
    }
    guint k = sys->dataset_splits;
    guint a = MIN(sys->active_chunks, k);
    *channels = a;
    *plan_bytes = c * a;
    weft_time_t d = sys->endpoint_delay_ns * WEFT_PS_PER_NS;
    exec->base_ps = d;
    exec->step_intra_ps = d;
    exec->step_inter_ps = d;
    /* local-mem-bw GB/s (1e9, Sys.cc); absent, ASTRA-sim divides by 0 and charges nothing
     * sensible: weft charges no reduction */
    exec->hbm_Bps = sys->local_mem_bw_given ? sys->local_mem_bw_GBps * 1e9 : 0.0;
    exec->reduce_trunc_ns = TRUE;
    exec->net_trunc_ns = TRUE;
    exec->waves = (k + a - 1) / a;
    return TRUE;
}

gboolean
weft_astra_system_phases(const weft_astra_system_t *sys, weft_coll_op_t op, guint n_members,
                         const guint *dims, guint n_dims)
{
    g_return_val_if_fail(sys != NULL, FALSE);
    weft_astra_op_t aop;
    if (dims == NULL || !weft_astra_op_of(op, &aop) || sys->custom[aop] != NULL ||
        sys->n_dims[aop] < n_dims) {
        return FALSE;
    }
    guint64 total = 1;
    guint active = 0;
    for (guint d = 0; d < n_dims; d++) {
        total *= dims[d];
        active += dims[d] > 1; /* Sys.cc skips a dimension of one NPU */
    }
    return active >= 2 && total == n_members;
}

gboolean
weft_astra_system_check_network(const weft_astra_system_t *sys, const guint *dims, guint n_dims,
                                GPtrArray **warnings, GError **error)
{
    g_return_val_if_fail(sys != NULL && warnings != NULL, FALSE);
    *warnings = g_ptr_array_new_with_free_func(g_free);
    for (guint op = 0; op < WEFT_ASTRA_N_OPS; op++) {
        guint n = sys->n_dims[op];
        if (n == 0 || sys->custom[op] != NULL) {
            continue;
        }
        if (dims != NULL && n < n_dims) {
            g_set_error(error, WEFT_ASTRA_SYSTEM_ERROR, WEFT_ASTRA_SYSTEM_ERROR_VALUE,
                        "%s: key \"%s-implementation\" lists %u implementation%s but the "
                        "network has %u dimensions (ASTRA-sim needs one per dimension: Sys.cc "
                        "would index past the list)",
                        sys->path, op_keys[op], n, n == 1 ? "" : "s", n_dims);
            return FALSE;
        }
        if (dims != NULL && n > n_dims) {
            g_ptr_array_add(*warnings,
                            g_strdup_printf("%s: key \"%s-implementation\": %u implementations "
                                            "for a network of %u dimension%s: the first %u are "
                                            "used, as ASTRA-sim uses them",
                                            sys->path, op_keys[op], n, n_dims,
                                            n_dims == 1 ? "" : "s", n_dims));
        }
        /* implementations weft runs by its own builder, on the dimensions that use them */
        for (guint d = 0; d < MAX(MIN(n, dims != NULL ? n_dims : 1), 1); d++) {
            weft_astra_impl_t impl = sys->impl[op][d].impl;
            guint npus = dims != NULL ? dims[d] : 0;
            if (impl == WEFT_ASTRA_IMPL_DOUBLE_BINARY_TREE) {
                g_ptr_array_add(*warnings,
                                g_strdup_printf("%s: key \"%s-implementation\": dimension %u: "
                                                "doubleBinaryTree runs as weft's tree (NCCL's "
                                                "double binary tree), not step by step as "
                                                "ASTRA-sim's DoubleBinaryTreeAllReduce.cc",
                                                sys->path, op_keys[op], d));
            } else if ((impl == WEFT_ASTRA_IMPL_HALVING_DOUBLING ||
                        impl == WEFT_ASTRA_IMPL_ONE_HALVING_DOUBLING) &&
                       npus > 2 && (npus & (npus - 1)) != 0) {
                g_ptr_array_add(*warnings,
                                g_strdup_printf("%s: key \"%s-implementation\": dimension %u "
                                                "has %u NPUs, not a power of two: weft's own "
                                                "halving_doubling runs there (HalvingDoubling.cc "
                                                "needs a power of two: its log2 truncates)",
                                                sys->path, op_keys[op], d, npus));
            }
        }
        if (dims == NULL && n > 1) {
            g_ptr_array_add(*warnings,
                            g_strdup_printf("%s: key \"%s-implementation\": %u dimensions on a "
                                            "cluster that is not an ASTRA-sim network: dimension "
                                            "0's implementation (%s) runs over each communicator",
                                            sys->path, op_keys[op], n,
                                            impl_names[sys->impl[op][0].impl]));
        }
    }
    return TRUE;
}
