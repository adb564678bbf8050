/* SPDX-License-Identifier: MIT */
/*
 * The cluster graph: vertices and full-duplex links kept in typed arrays, an
 * igraph directed graph built from them at finalize time, the connectivity
 * check, the accessors, and the loader that picks a file format by content.
 * Routing (NVLink domains, views, ECMP, caches) lives in route.c.
 */
#define G_LOG_DOMAIN "weft-topo"

#include "topo/topo.h"

#include <math.h>

#include "core/units.h"
#include "topo/topo_private.h"

/* clang-format off */
G_DEFINE_QUARK(weft-topo-error-quark, weft_topo_error)
/* clang-format on */

/*
 * igraph's default error handler aborts the process. The "ignore" handler makes
 * igraph free its temporaries and return the error code, which we turn into a
 * GError. The handler is process-wide (thread-local when igraph is built
 * thread-safe), so it is installed before every batch of igraph calls; setting
 * it again is harmless, which keeps this module free of "installed yet?" state.
 */
void
weft_topo_i_igraph_quiet(void)
{
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
}

/* The one piece of process-wide mutable state in weft, because igraph's own is (topo_private.h). */
static GRecMutex igraph_lock;

void
weft_topo_i_igraph_lock(void)
{
    g_rec_mutex_lock(&igraph_lock);
}

void
weft_topo_i_igraph_unlock(void)
{
    g_rec_mutex_unlock(&igraph_lock);
}

gboolean
weft_topo_i_igraph_check(igraph_error_t rc, const weft_topo_t *topo, const char *what,
                         GError **error)
{
    if (rc == IGRAPH_SUCCESS) {
        return TRUE;
    }
    g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH, "cluster %s: igraph %s failed: %s",
                topo->name, what, igraph_strerror(rc));
    return FALSE;
}

weft_topo_t *
weft_topo_new(const char *name)
{
    weft_topo_t *topo = g_new0(weft_topo_t, 1);
    topo->name = g_strdup(name != NULL ? name : "(unnamed)");
    topo->v_kind = g_array_new(FALSE, FALSE, sizeof(weft_vertex_kind_t));
    topo->v_name = g_ptr_array_new_with_free_func(g_free);
    topo->v_host = g_array_new(FALSE, FALSE, sizeof(gint));
    topo->v_rail = g_array_new(FALSE, FALSE, sizeof(gint));
    topo->v_tier = g_array_new(FALSE, FALSE, sizeof(guint));
    topo->v_features = g_array_new(FALSE, FALSE, sizeof(guint));
    topo->v_msg_cost = g_array_new(FALSE, FALSE, sizeof(weft_time_t));
    topo->v_gpu = g_ptr_array_new();
    topo->gpu_vertex = g_array_new(FALSE, FALSE, sizeof(gint));
    topo->by_name = g_hash_table_new(g_str_hash, g_str_equal);
    topo->e_from = g_array_new(FALSE, FALSE, sizeof(gint));
    topo->e_to = g_array_new(FALSE, FALSE, sizeof(gint));
    topo->e_kind = g_array_new(FALSE, FALSE, sizeof(weft_link_kind_t));
    topo->e_bw = g_array_new(FALSE, FALSE, sizeof(double));
    topo->e_lat = g_array_new(FALSE, FALSE, sizeof(weft_time_t));
    topo->e_lanes = g_array_new(FALSE, FALSE, sizeof(guint));
    topo->created_us = g_get_monotonic_time();
    return topo;
}

void
weft_topo_free(weft_topo_t *topo)
{
    if (topo == NULL) {
        return;
    }
    weft_topo_i_igraph_lock();
    weft_topo_i_views_free(topo);
    if (topo->finalized) {
        igraph_destroy(&topo->graph);
    }
    weft_topo_i_igraph_unlock();
    g_free(topo->v_domain);
    g_free(topo->astra_dims);
    g_hash_table_destroy(topo->by_name);
    g_ptr_array_free(topo->v_name, TRUE);
    g_array_free(topo->v_kind, TRUE);
    g_array_free(topo->v_host, TRUE);
    g_array_free(topo->v_rail, TRUE);
    g_array_free(topo->v_tier, TRUE);
    g_array_free(topo->v_features, TRUE);
    g_array_free(topo->v_msg_cost, TRUE);
    g_ptr_array_free(topo->v_gpu, TRUE);
    g_array_free(topo->gpu_vertex, TRUE);
    g_array_free(topo->e_from, TRUE);
    g_array_free(topo->e_to, TRUE);
    g_array_free(topo->e_kind, TRUE);
    g_array_free(topo->e_bw, TRUE);
    g_array_free(topo->e_lat, TRUE);
    g_array_free(topo->e_lanes, TRUE);
    g_free(topo->name);
    g_free(topo);
}

gint
weft_topo_add_vertex(weft_topo_t *topo, weft_vertex_kind_t kind, const char *name, gint host,
                     gint rail, GError **error)
{
    g_return_val_if_fail(topo != NULL, -1);
    g_return_val_if_fail(!topo->finalized, -1);
    g_return_val_if_fail(name != NULL && name[0] != '\0', -1);
    g_return_val_if_fail(kind >= WEFT_VERTEX_GPU && kind <= WEFT_VERTEX_HOST, -1);
    g_return_val_if_fail(error == NULL || *error == NULL, -1);

    if (g_hash_table_contains(topo->by_name, name)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH,
                    "cluster %s: duplicate vertex name \"%s\"", topo->name, name);
        return -1;
    }
    if (topo->v_name->len >= (guint)G_MAXINT32) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "cluster %s: too many vertices adding \"%s\"", topo->name, name);
        return -1;
    }
    gint id = (gint)topo->v_name->len;
    char *copy = g_strdup(name);
    g_ptr_array_add(topo->v_name, copy);
    g_array_append_val(topo->v_kind, kind);
    g_array_append_val(topo->v_host, host);
    g_array_append_val(topo->v_rail, rail);
    guint no_tier = 0;
    g_array_append_val(topo->v_tier, no_tier);
    g_array_append_val(topo->v_features, no_tier);
    weft_time_t no_cost = 0;
    g_array_append_val(topo->v_msg_cost, no_cost);
    g_ptr_array_add(topo->v_gpu, NULL);
    if (host >= 0) {
        topo->n_hosts = MAX(topo->n_hosts, (guint)host + 1);
    }
    g_hash_table_insert(topo->by_name, copy, GINT_TO_POINTER(id + 1));
    if (kind == WEFT_VERTEX_GPU) {
        g_array_append_val(topo->gpu_vertex, id);
    }
    return id;
}

static void
append_edge(weft_topo_t *topo, gint from, gint to, weft_link_kind_t kind, double bw_Bps,
            weft_time_t latency_ps, guint lanes)
{
    g_array_append_val(topo->e_from, from);
    g_array_append_val(topo->e_to, to);
    g_array_append_val(topo->e_kind, kind);
    g_array_append_val(topo->e_bw, bw_Bps);
    g_array_append_val(topo->e_lat, latency_ps);
    g_array_append_val(topo->e_lanes, lanes);
}

gint
weft_topo_add_link(weft_topo_t *topo, gint u, gint v, weft_link_kind_t kind, double bw_Bps,
                   weft_time_t latency_ps, guint lanes, GError **error)
{
    g_return_val_if_fail(topo != NULL, -1);
    g_return_val_if_fail(!topo->finalized, -1);
    g_return_val_if_fail(kind >= WEFT_LINK_NVLINK && kind <= WEFT_LINK_GENERIC, -1);
    g_return_val_if_fail(error == NULL || *error == NULL, -1);

    gint nv = (gint)topo->v_name->len;
    if (u < 0 || u >= nv || v < 0 || v >= nv) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH,
                    "cluster %s: link %d-%d names an unknown vertex (%d vertices)", topo->name, u,
                    v, nv);
        return -1;
    }
    const char *un = weft_topo_vertex_name(topo, u);
    const char *vn = weft_topo_vertex_name(topo, v);
    if (u == v) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH,
                    "cluster %s: self-loop on vertex %s", topo->name, un);
        return -1;
    }
    if (!(bw_Bps > 0.0) || !isfinite(bw_Bps)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "cluster %s: link %s-%s: bandwidth %g B/s must be positive and finite",
                    topo->name, un, vn, bw_Bps);
        return -1;
    }
    if (latency_ps < 0) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "cluster %s: link %s-%s: latency %" G_GINT64_FORMAT " ps is negative",
                    topo->name, un, vn, (gint64)latency_ps);
        return -1;
    }
    if (lanes < 1) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "cluster %s: link %s-%s: lanes %u must be at least 1", topo->name, un, vn,
                    lanes);
        return -1;
    }
    if (topo->e_from->len >= (guint)G_MAXINT32 - 2) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "cluster %s: too many links adding %s-%s", topo->name, un, vn);
        return -1;
    }
    gint id = (gint)topo->e_from->len;
    append_edge(topo, u, v, kind, bw_Bps, latency_ps, lanes);
    append_edge(topo, v, u, kind, bw_Bps, latency_ps, lanes);
    return id;
}

static gboolean finalize_locked(weft_topo_t *topo, GError **error);

gboolean
weft_topo_finalize(weft_topo_t *topo, GError **error)
{
    g_return_val_if_fail(topo != NULL, FALSE);
    g_return_val_if_fail(!topo->finalized, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    weft_topo_i_igraph_lock();
    gboolean ok = finalize_locked(topo, error);
    weft_topo_i_igraph_unlock();
    if (ok) {
        g_debug("cluster %s built: %u GPUs, %u hosts, %u vertices, %u links (%u directed edges), "
                "%u NVLink domains, in %.1f ms",
                topo->name, topo->gpu_vertex->len, topo->n_hosts, topo->v_name->len,
                topo->e_from->len / 2, topo->e_from->len, topo->n_domains,
                (double)(g_get_monotonic_time() - topo->created_us) / 1e3);
    }
    return ok;
}

/* weft_topo_finalize() under the igraph lock. */
static gboolean
finalize_locked(weft_topo_t *topo, GError **error)
{

    if (topo->gpu_vertex->len == 0) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH, "cluster %s: has no GPU",
                    topo->name);
        return FALSE;
    }

    weft_topo_i_igraph_quiet();
    guint m = topo->e_from->len;
    igraph_vector_int_t ev;
    if (!weft_topo_i_igraph_check(igraph_vector_int_init(&ev, 2 * (igraph_integer_t)m), topo,
                                  "vector_init", error)) {
        return FALSE;
    }
    for (guint e = 0; e < m; e++) {
        VECTOR(ev)[2 * e] = g_array_index(topo->e_from, gint, e);
        VECTOR(ev)[2 * e + 1] = g_array_index(topo->e_to, gint, e);
    }
    igraph_error_t rc =
        igraph_create(&topo->graph, &ev, (igraph_integer_t)topo->v_name->len, IGRAPH_DIRECTED);
    igraph_vector_int_destroy(&ev);
    if (!weft_topo_i_igraph_check(rc, topo, "create", error)) {
        return FALSE;
    }

    /*
     * Every link is two directed edges, so reachability is symmetric: every GPU
     * reaches every other exactly when all GPUs lie in GPU 0's component.
     */
    gint g0 = g_array_index(topo->gpu_vertex, gint, 0);
    igraph_vector_int_t comp;
    rc = igraph_vector_int_init(&comp, 0);
    if (rc == IGRAPH_SUCCESS) {
        rc = igraph_subcomponent(&topo->graph, &comp, g0, IGRAPH_OUT);
        if (rc != IGRAPH_SUCCESS) {
            igraph_vector_int_destroy(&comp);
        }
    }
    if (!weft_topo_i_igraph_check(rc, topo, "subcomponent", error)) {
        igraph_destroy(&topo->graph);
        return FALSE;
    }
    g_autofree gboolean *reached = g_new0(gboolean, topo->v_name->len);
    for (igraph_integer_t i = 0; i < igraph_vector_int_size(&comp); i++) {
        reached[VECTOR(comp)[i]] = TRUE;
    }
    igraph_vector_int_destroy(&comp);
    for (guint g = 1; g < topo->gpu_vertex->len; g++) {
        gint v = g_array_index(topo->gpu_vertex, gint, g);
        if (!reached[v]) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH,
                        "cluster %s: GPU %u (%s) is disconnected: it cannot reach GPU 0 (%s)",
                        topo->name, g, weft_topo_vertex_name(topo, v),
                        weft_topo_vertex_name(topo, g0));
            igraph_destroy(&topo->graph);
            return FALSE;
        }
    }
    if (!weft_topo_i_views_init(topo, error)) {
        igraph_destroy(&topo->graph);
        return FALSE;
    }
    topo->finalized = TRUE;
    return TRUE;
}

/* ---- accessors ---------------------------------------------------------------- */

const char *
weft_topo_name(const weft_topo_t *topo)
{
    g_return_val_if_fail(topo != NULL, NULL);
    return topo->name;
}

guint
weft_topo_n_vertices(const weft_topo_t *topo)
{
    g_return_val_if_fail(topo != NULL, 0);
    return topo->v_name->len;
}

guint
weft_topo_n_edges(const weft_topo_t *topo)
{
    g_return_val_if_fail(topo != NULL, 0);
    return topo->e_from->len;
}

guint
weft_topo_n_gpus(const weft_topo_t *topo)
{
    g_return_val_if_fail(topo != NULL, 0);
    return topo->gpu_vertex->len;
}

gint
weft_topo_gpu_vertex(const weft_topo_t *topo, guint gpu)
{
    g_return_val_if_fail(topo != NULL && gpu < topo->gpu_vertex->len, -1);
    return g_array_index(topo->gpu_vertex, gint, gpu);
}

#define CHECK_V(topo, v, ret)                                                                      \
    g_return_val_if_fail((topo) != NULL && (v) >= 0 && (guint)(v) < (topo)->v_name->len, ret)
#define CHECK_E(topo, e, ret)                                                                      \
    g_return_val_if_fail((topo) != NULL && (e) >= 0 && (guint)(e) < (topo)->e_from->len, ret)

weft_vertex_kind_t
weft_topo_vertex_kind(const weft_topo_t *topo, gint v)
{
    CHECK_V(topo, v, WEFT_VERTEX_GPU);
    return g_array_index(topo->v_kind, weft_vertex_kind_t, v);
}

const char *
weft_topo_vertex_name(const weft_topo_t *topo, gint v)
{
    CHECK_V(topo, v, NULL);
    return g_ptr_array_index(topo->v_name, v);
}

gint
weft_topo_vertex_host(const weft_topo_t *topo, gint v)
{
    CHECK_V(topo, v, -1);
    return g_array_index(topo->v_host, gint, v);
}

gint
weft_topo_vertex_rail(const weft_topo_t *topo, gint v)
{
    CHECK_V(topo, v, -1);
    return g_array_index(topo->v_rail, gint, v);
}

void
weft_topo_set_vertex_tier(weft_topo_t *topo, gint v, guint tier)
{
    g_return_if_fail(topo != NULL && v >= 0 && (guint)v < topo->v_name->len);
    g_return_if_fail(!topo->finalized);
    g_return_if_fail(tier == 0 || weft_topo_vertex_kind(topo, v) == WEFT_VERTEX_SWITCH);
    g_array_index(topo->v_tier, guint, v) = tier;
}

guint
weft_topo_vertex_tier(const weft_topo_t *topo, gint v)
{
    CHECK_V(topo, v, 0);
    return g_array_index(topo->v_tier, guint, v);
}

void
weft_topo_set_vertex_features(weft_topo_t *topo, gint v, guint features)
{
    g_return_if_fail(topo != NULL && v >= 0 && (guint)v < topo->v_name->len);
    g_return_if_fail((features & ~(guint)(WEFT_TOPO_FEATURE_NVLS | WEFT_TOPO_FEATURE_SHARP)) == 0);
    g_return_if_fail(!(features & WEFT_TOPO_FEATURE_NVLS) ||
                     weft_topo_vertex_kind(topo, v) == WEFT_VERTEX_NVSWITCH);
    g_return_if_fail(!(features & WEFT_TOPO_FEATURE_SHARP) ||
                     weft_topo_vertex_kind(topo, v) == WEFT_VERTEX_SWITCH);
    g_array_index(topo->v_features, guint, v) = features;
}

guint
weft_topo_vertex_features(const weft_topo_t *topo, gint v)
{
    CHECK_V(topo, v, 0);
    return g_array_index(topo->v_features, guint, v);
}

void
weft_topo_set_vertex_msg_cost(weft_topo_t *topo, gint v, weft_time_t cost_ps)
{
    g_return_if_fail(topo != NULL && v >= 0 && (guint)v < topo->v_name->len);
    g_return_if_fail(cost_ps >= 0);
    g_return_if_fail(cost_ps == 0 || weft_topo_vertex_kind(topo, v) == WEFT_VERTEX_NIC);
    g_array_index(topo->v_msg_cost, weft_time_t, v) = cost_ps;
}

weft_time_t
weft_topo_vertex_msg_cost(const weft_topo_t *topo, gint v)
{
    CHECK_V(topo, v, 0);
    return g_array_index(topo->v_msg_cost, weft_time_t, v);
}

void
weft_topo_set_vertex_gpu_model(weft_topo_t *topo, gint v, const weft_hw_gpu_t *gpu)
{
    g_return_if_fail(topo != NULL && v >= 0 && (guint)v < topo->v_name->len);
    g_return_if_fail(!topo->finalized);
    g_return_if_fail(gpu == NULL || weft_topo_vertex_kind(topo, v) == WEFT_VERTEX_GPU);
    g_ptr_array_index(topo->v_gpu, v) = (gpointer)gpu;
}

const weft_hw_gpu_t *
weft_topo_vertex_gpu_model(const weft_topo_t *topo, gint v)
{
    CHECK_V(topo, v, NULL);
    return g_ptr_array_index(topo->v_gpu, v);
}

const weft_hw_gpu_t *
weft_topo_gpu_model(const weft_topo_t *topo, GError **error)
{
    g_return_val_if_fail(topo != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    guint n = weft_topo_n_gpus(topo);
    if (n == 0) {
        return NULL;
    }
    gint v0 = weft_topo_gpu_vertex(topo, 0);
    const weft_hw_gpu_t *first = weft_topo_vertex_gpu_model(topo, v0);
    for (guint g = 1; g < n; g++) {
        gint v = weft_topo_gpu_vertex(topo, g);
        const weft_hw_gpu_t *m = weft_topo_vertex_gpu_model(topo, v);
        if (m != first) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "cluster %s: GPU models differ: %s is %s but %s is %s; weft models one "
                        "GPU model per cluster (a generated step computes alike on every rank)",
                        topo->name, weft_topo_vertex_name(topo, v0),
                        first != NULL ? first->name : "unrecorded", weft_topo_vertex_name(topo, v),
                        m != NULL ? m->name : "unrecorded");
            return NULL;
        }
    }
    return first;
}

const guint *
weft_topo_astra_dims(const weft_topo_t *topo, guint *n_dims)
{
    g_return_val_if_fail(topo != NULL && n_dims != NULL, NULL);
    *n_dims = topo->n_astra_dims;
    return topo->astra_dims;
}

gboolean
weft_topo_is_abstract(const weft_topo_t *topo)
{
    g_return_val_if_fail(topo != NULL, FALSE);
    for (guint v = 0; v < topo->v_kind->len; v++) {
        if (g_array_index(topo->v_kind, weft_vertex_kind_t, v) == WEFT_VERTEX_NIC) {
            return FALSE;
        }
    }
    for (guint e = 0; e < topo->e_kind->len; e++) {
        if (g_array_index(topo->e_kind, weft_link_kind_t, e) == WEFT_LINK_NVLINK) {
            return FALSE;
        }
    }
    return TRUE;
}

weft_time_t
weft_topo_nic_msg_cost(const weft_topo_t *topo)
{
    g_return_val_if_fail(topo != NULL, 0);
    weft_time_t worst = 0;
    for (guint v = 0; v < topo->v_msg_cost->len; v++) {
        worst = MAX(worst, g_array_index(topo->v_msg_cost, weft_time_t, v));
    }
    return worst;
}

gint
weft_topo_vertex_domain(const weft_topo_t *topo, gint v)
{
    CHECK_V(topo, v, -1);
    g_return_val_if_fail(topo->finalized, -1);
    return topo->v_domain[v];
}

guint
weft_topo_n_domains(const weft_topo_t *topo)
{
    g_return_val_if_fail(topo != NULL && topo->finalized, 0);
    return topo->n_domains;
}

guint
weft_topo_n_hosts(const weft_topo_t *topo)
{
    g_return_val_if_fail(topo != NULL, 0);
    return topo->n_hosts;
}

gint
weft_topo_find_vertex(const weft_topo_t *topo, const char *name)
{
    g_return_val_if_fail(topo != NULL && name != NULL, -1);
    return GPOINTER_TO_INT(g_hash_table_lookup(topo->by_name, name)) - 1;
}

gint
weft_topo_edge_from(const weft_topo_t *topo, gint e)
{
    CHECK_E(topo, e, -1);
    return g_array_index(topo->e_from, gint, e);
}

gint
weft_topo_edge_to(const weft_topo_t *topo, gint e)
{
    CHECK_E(topo, e, -1);
    return g_array_index(topo->e_to, gint, e);
}

guint
weft_topo_edges_between(const weft_topo_t *topo, gint u, gint v, GArray *out)
{
    g_return_val_if_fail(topo != NULL && out != NULL, 0);
    g_array_set_size(out, 0);
    /* A scan of every edge: faults name a handful of links, once each. */
    for (guint e = 0; e < topo->e_from->len; e++) {
        gint a = g_array_index(topo->e_from, gint, e);
        gint b = g_array_index(topo->e_to, gint, e);
        if ((a == u && b == v) || (a == v && b == u)) {
            gint ei = (gint)e;
            g_array_append_val(out, ei);
        }
    }
    return out->len;
}

double
weft_topo_edge_bw(const weft_topo_t *topo, gint e)
{
    CHECK_E(topo, e, 0.0);
    return g_array_index(topo->e_bw, double, e);
}

weft_time_t
weft_topo_edge_latency(const weft_topo_t *topo, gint e)
{
    CHECK_E(topo, e, 0);
    return g_array_index(topo->e_lat, weft_time_t, e);
}

weft_link_kind_t
weft_topo_edge_kind(const weft_topo_t *topo, gint e)
{
    CHECK_E(topo, e, WEFT_LINK_GENERIC);
    return g_array_index(topo->e_kind, weft_link_kind_t, e);
}

guint
weft_topo_edge_lanes(const weft_topo_t *topo, gint e)
{
    CHECK_E(topo, e, 0);
    return g_array_index(topo->e_lanes, guint, e);
}

const char *
weft_topo_vertex_kind_name(weft_vertex_kind_t kind)
{
    switch (kind) {
    case WEFT_VERTEX_GPU:
        return "gpu";
    case WEFT_VERTEX_NVSWITCH:
        return "nvswitch";
    case WEFT_VERTEX_NIC:
        return "nic";
    case WEFT_VERTEX_SWITCH:
        return "switch";
    case WEFT_VERTEX_HOST:
        return "host";
    }
    return "unknown";
}

const char *
weft_topo_link_kind_name(weft_link_kind_t kind)
{
    switch (kind) {
    case WEFT_LINK_NVLINK:
        return "nvlink";
    case WEFT_LINK_PCIE:
        return "pcie";
    case WEFT_LINK_INFINIBAND:
        return "infiniband";
    case WEFT_LINK_ETHERNET:
        return "ethernet";
    case WEFT_LINK_GENERIC:
        return "generic";
    }
    return "unknown";
}

/* ---- loading ------------------------------------------------------------------ */

/*
 * Format choice: a file named *.yml or *.yaml is ASTRA-sim YAML, *.graphml is
 * GraphML; otherwise the content decides: a file whose first significant line
 * (not blank, not a '#' or ';' comment) starts with "<?xml" or "<graphml" is
 * GraphML, one that starts with "topology:" is YAML (ASTRA-sim's files always
 * open with that key), and all else is weft INI. An INI file opens with a
 * [group] line, so the three cannot be confused.
 */
weft_topo_t *
weft_topo_load(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);

    if (g_str_has_suffix(path, ".yml") || g_str_has_suffix(path, ".yaml")) {
        return weft_topo_load_astra_yaml(path, error);
    }
    if (g_str_has_suffix(path, ".graphml")) {
        return weft_topo_load_graphml(path, error);
    }
    g_autofree char *text = NULL;
    g_autoptr(GError) ioerr = NULL;
    if (!g_file_get_contents(path, &text, NULL, &ioerr)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_IO, "%s: cannot read: %s", path,
                    ioerr->message);
        return NULL;
    }
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++) {
        const char *s = lines[i];
        while (g_ascii_isspace(*s)) {
            s++;
        }
        if (*s == '\0' || *s == '#' || *s == ';') {
            continue;
        }
        if (g_str_has_prefix(s, "<?xml") || g_str_has_prefix(s, "<graphml")) {
            return weft_topo_load_graphml(path, error);
        }
        if (g_str_has_prefix(s, "topology:")) {
            return weft_topo_load_astra_yaml(path, error);
        }
        break;
    }
    return weft_topo_load_ini(path, error);
}

void
weft_topo_i_units_error(GError **error, GError *uerr, const char *file, const char *key,
                        const char *value)
{
    gint code = WEFT_TOPO_ERROR_PARSE;
    if (uerr != NULL && g_error_matches(uerr, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_RANGE)) {
        code = WEFT_TOPO_ERROR_VALUE;
    }
    g_set_error(error, WEFT_TOPO_ERROR, code, "%s: %s = \"%s\": %s", file, key, value,
                uerr != NULL ? uerr->message : "invalid value");
    g_clear_error(&uerr);
}
