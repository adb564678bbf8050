/* SPDX-License-Identifier: MIT */
/*
 * Cluster files other than INI and YAML: GraphML in and out through igraph's
 * reader and writer (with igraph's C attribute handler), Graphviz DOT out for
 * drawing, and weft_topo_equal() that tests use to check a round trip.
 *
 * GraphML layout: a directed graph; vertex attributes kind (string: gpu,
 * nvswitch, nic, switch, host), name (string), host, rail, tier (numbers; -1,
 * -1, 0 when absent), features (string: "nvls", "sharp", comma-separated, ""
 * or absent for none; see weft_topo_set_vertex_features()), msg_cost_ps (number: a NIC's
 * per-message cost, 0 when absent), gpu_model (string: a GPU's hw catalog name, "" or absent
 * when not recorded; see weft_topo_set_vertex_gpu_model()); edge attributes kind (string: nvlink,
 * pcie, infiniband, ethernet, generic), bandwidth_Bps, latency_ps, lanes (numbers; latency 0 and
 * lanes 1 when absent). Each directed edge is written, so link i is the edge
 * pair (2i, 2i+1) in document order, and reading rebuilds that order exactly;
 * an undirected GraphML (from another tool) gives one link per edge. A loaded
 * file goes through weft_topo_add_vertex/add_link/finalize, so it gets the same
 * checks as every other cluster.
 */
#define G_LOG_DOMAIN "weft-topo"

#include "topo/topo.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/output.h"
#include "topo/topo_private.h"

/*
 * igraph's GraphML reader and writer only see attributes through an attribute
 * handler, which igraph keeps in one process-wide variable. Installing the C
 * handler is idempotent (the same table every time), and graphs built without
 * it (the cluster graph) stay valid, so it is set on every GraphML call rather
 * than tracked.
 */
static void
use_c_attributes(void)
{
    igraph_set_attribute_table(&igraph_cattribute_table);
}

/* ---- output files ----------------------------------------------------------------- */

/* core/output.c's G_FILE_ERROR as WEFT_TOPO_ERROR_IO, with its message (it names the path). */
static gboolean
io_error(GError **error, const GError *ioerr)
{
    g_set_error_literal(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_IO, ioerr->message);
    return FALSE;
}

/* ---- GraphML out ------------------------------------------------------------------- */

static gboolean
set_num(igraph_t *g, gboolean vertex, const char *name, const igraph_vector_t *v,
        const weft_topo_t *topo, GError **error)
{
    igraph_error_t rc =
        vertex ? igraph_cattribute_VAN_setv(g, name, v) : igraph_cattribute_EAN_setv(g, name, v);
    return weft_topo_i_igraph_check(rc, topo, name, error);
}

/* The GraphML spelling of a feature mask. */
static const char *
features_text(guint features)
{
    switch (features & (WEFT_TOPO_FEATURE_NVLS | WEFT_TOPO_FEATURE_SHARP)) {
    case WEFT_TOPO_FEATURE_NVLS:
        return "nvls";
    case WEFT_TOPO_FEATURE_SHARP:
        return "sharp";
    case WEFT_TOPO_FEATURE_NVLS | WEFT_TOPO_FEATURE_SHARP:
        return "nvls,sharp";
    default:
        return "";
    }
}

/* Builds the attributed igraph copy of @topo that the writer serializes. */
static gboolean
attributed_graph(const weft_topo_t *topo, igraph_t *g, GError **error)
{
    guint n = topo->v_name->len;
    guint m = topo->e_from->len;
    igraph_vector_int_t ev;
    if (!weft_topo_i_igraph_check(igraph_vector_int_init(&ev, 2 * (igraph_integer_t)m), topo,
                                  "vector_init", error)) {
        return FALSE;
    }
    for (guint e = 0; e < m; e++) {
        VECTOR(ev)[2 * e] = weft_topo_edge_from(topo, (gint)e);
        VECTOR(ev)[2 * e + 1] = weft_topo_edge_to(topo, (gint)e);
    }
    igraph_error_t rc = igraph_create(g, &ev, (igraph_integer_t)n, IGRAPH_DIRECTED);
    igraph_vector_int_destroy(&ev);
    if (!weft_topo_i_igraph_check(rc, topo, "create", error)) {
        return FALSE;
    }
    gboolean ok = weft_topo_i_igraph_check(igraph_cattribute_GAS_set(g, "name", topo->name), topo,
                                           "name", error);
    igraph_strvector_t kind;
    igraph_strvector_t name;
    igraph_strvector_t features;
    igraph_strvector_t gpu_model;
    igraph_vector_t host;
    igraph_vector_t rail;
    igraph_vector_t tier;
    igraph_vector_t msg_cost;
    igraph_strvector_init(&kind, n);
    igraph_strvector_init(&name, n);
    igraph_strvector_init(&features, n);
    igraph_strvector_init(&gpu_model, n);
    igraph_vector_init(&host, n);
    igraph_vector_init(&rail, n);
    igraph_vector_init(&tier, n);
    igraph_vector_init(&msg_cost, n);
    for (guint v = 0; ok && v < n; v++) {
        ok = igraph_strvector_set(
                 &kind, v, weft_topo_vertex_kind_name(weft_topo_vertex_kind(topo, (gint)v))) ==
                 IGRAPH_SUCCESS &&
             igraph_strvector_set(&name, v, weft_topo_vertex_name(topo, (gint)v)) ==
                 IGRAPH_SUCCESS &&
             igraph_strvector_set(&features, v,
                                  features_text(weft_topo_vertex_features(topo, (gint)v))) ==
                 IGRAPH_SUCCESS &&
             igraph_strvector_set(&gpu_model, v,
                                  weft_topo_vertex_gpu_model(topo, (gint)v) != NULL
                                      ? weft_topo_vertex_gpu_model(topo, (gint)v)->name
                                      : "") == IGRAPH_SUCCESS;
        VECTOR(host)[v] = weft_topo_vertex_host(topo, (gint)v);
        VECTOR(rail)[v] = weft_topo_vertex_rail(topo, (gint)v);
        VECTOR(tier)[v] = weft_topo_vertex_tier(topo, (gint)v);
        VECTOR(msg_cost)[v] = (double)weft_topo_vertex_msg_cost(topo, (gint)v);
    }
    ok = ok &&
         weft_topo_i_igraph_check(igraph_cattribute_VAS_setv(g, "kind", &kind), topo, "kind",
                                  error) &&
         weft_topo_i_igraph_check(igraph_cattribute_VAS_setv(g, "name", &name), topo, "name",
                                  error) &&
         weft_topo_i_igraph_check(igraph_cattribute_VAS_setv(g, "features", &features), topo,
                                  "features", error) &&
         weft_topo_i_igraph_check(igraph_cattribute_VAS_setv(g, "gpu_model", &gpu_model), topo,
                                  "gpu_model", error) &&
         set_num(g, TRUE, "host", &host, topo, error) &&
         set_num(g, TRUE, "rail", &rail, topo, error) &&
         set_num(g, TRUE, "tier", &tier, topo, error) &&
         set_num(g, TRUE, "msg_cost_ps", &msg_cost, topo, error);
    igraph_vector_destroy(&msg_cost);
    igraph_strvector_destroy(&kind);
    igraph_strvector_destroy(&name);
    igraph_strvector_destroy(&features);
    igraph_strvector_destroy(&gpu_model);
    igraph_vector_destroy(&host);
    igraph_vector_destroy(&rail);
    igraph_vector_destroy(&tier);

    igraph_strvector_t ekind;
    igraph_vector_t bw;
    igraph_vector_t lat;
    igraph_vector_t lanes;
    igraph_strvector_init(&ekind, m);
    igraph_vector_init(&bw, m);
    igraph_vector_init(&lat, m);
    igraph_vector_init(&lanes, m);
    for (guint e = 0; ok && e < m; e++) {
        ok = igraph_strvector_set(&ekind, e,
                                  weft_topo_link_kind_name(weft_topo_edge_kind(topo, (gint)e))) ==
             IGRAPH_SUCCESS;
        VECTOR(bw)[e] = weft_topo_edge_bw(topo, (gint)e);
        VECTOR(lat)[e] = (double)weft_topo_edge_latency(topo, (gint)e);
        VECTOR(lanes)[e] = weft_topo_edge_lanes(topo, (gint)e);
    }
    ok = ok &&
         weft_topo_i_igraph_check(igraph_cattribute_EAS_setv(g, "kind", &ekind), topo, "kind",
                                  error) &&
         set_num(g, FALSE, "bandwidth_Bps", &bw, topo, error) &&
         set_num(g, FALSE, "latency_ps", &lat, topo, error) &&
         set_num(g, FALSE, "lanes", &lanes, topo, error);
    igraph_strvector_destroy(&ekind);
    igraph_vector_destroy(&bw);
    igraph_vector_destroy(&lat);
    igraph_vector_destroy(&lanes);
    if (!ok) {
        if (error != NULL && *error == NULL) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH,
                        "cluster %s: cannot set GraphML attributes", topo->name);
        }
        igraph_destroy(g);
    }
    return ok;
}

static gboolean write_graphml_locked(const weft_topo_t *topo, const char *path, GError **error);

gboolean
weft_topo_write_graphml(const weft_topo_t *topo, const char *path, GError **error)
{
    g_return_val_if_fail(topo != NULL && path != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    weft_topo_i_igraph_lock();
    gboolean ok = write_graphml_locked(topo, path, error);
    weft_topo_i_igraph_unlock();
    return ok;
}

/* weft_topo_write_graphml() under the igraph lock (topo_private.h). */
static gboolean
write_graphml_locked(const weft_topo_t *topo, const char *path, GError **error)
{

    weft_topo_i_igraph_quiet();
    use_c_attributes();
    igraph_t g;
    if (!attributed_graph(topo, &g, error)) {
        return FALSE;
    }
    g_autoptr(GError) ioerr = NULL;
    g_autoptr(weft_output_t) out = weft_output_open(path, &ioerr);
    if (out == NULL) {
        igraph_destroy(&g);
        return io_error(error, ioerr);
    }
    /* prefixattr: keys v_kind / e_kind keep the vertex and edge "kind" apart */
    igraph_error_t rc = igraph_write_graph_graphml(&g, weft_output_stream(out), TRUE);
    igraph_destroy(&g);
    if (rc != IGRAPH_SUCCESS) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_IO, "%s: igraph GraphML writer: %s",
                    path, igraph_strerror(rc));
        return FALSE; /* the output is aborted: @path keeps what it held */
    }
    if (!weft_output_commit(g_steal_pointer(&out), &ioerr)) {
        return io_error(error, ioerr);
    }
    return TRUE;
}

/* ---- GraphML in -------------------------------------------------------------------- */

/* The type of attribute @name of @elem (IGRAPH_ATTRIBUTE_VERTEX/EDGE/GRAPH), or -1 if absent. */
static gint
attr_type(const igraph_t *g, igraph_attribute_elemtype_t elem, const char *name)
{
    igraph_strvector_t gn;
    igraph_strvector_t vn;
    igraph_strvector_t en;
    igraph_vector_int_t gt;
    igraph_vector_int_t vt;
    igraph_vector_int_t et;
    igraph_strvector_init(&gn, 0);
    igraph_strvector_init(&vn, 0);
    igraph_strvector_init(&en, 0);
    igraph_vector_int_init(&gt, 0);
    igraph_vector_int_init(&vt, 0);
    igraph_vector_int_init(&et, 0);
    gint type = -1;
    if (igraph_cattribute_list(g, &gn, &gt, &vn, &vt, &en, &et) == IGRAPH_SUCCESS) {
        const igraph_strvector_t *names = elem == IGRAPH_ATTRIBUTE_VERTEX ? &vn
                                          : elem == IGRAPH_ATTRIBUTE_EDGE ? &en
                                                                          : &gn;
        const igraph_vector_int_t *types = elem == IGRAPH_ATTRIBUTE_VERTEX ? &vt
                                           : elem == IGRAPH_ATTRIBUTE_EDGE ? &et
                                                                           : &gt;
        for (igraph_integer_t i = 0; i < igraph_strvector_size(names); i++) {
            if (strcmp(igraph_strvector_get(names, i), name) == 0) {
                type = (gint)VECTOR(*types)[i];
            }
        }
    }
    igraph_strvector_destroy(&gn);
    igraph_strvector_destroy(&vn);
    igraph_strvector_destroy(&en);
    igraph_vector_int_destroy(&gt);
    igraph_vector_int_destroy(&vt);
    igraph_vector_int_destroy(&et);
    return type;
}

/* Checks that attribute @name has the expected type, or is absent and not @required. */
static gboolean
check_attr(const igraph_t *g, const char *path, igraph_attribute_elemtype_t elem, const char *name,
           igraph_attribute_type_t want, gboolean required, gboolean *present, GError **error)
{
    const char *what = elem == IGRAPH_ATTRIBUTE_VERTEX ? "vertex" : "edge";
    gint t = attr_type(g, elem, name);
    *present = t >= 0;
    if (t < 0 && required) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                    "%s: %s attribute \"%s\" is missing", path, what, name);
        return FALSE;
    }
    if (t >= 0 && t != (gint)want) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                    "%s: %s attribute \"%s\" must be a %s", path, what, name,
                    want == IGRAPH_ATTRIBUTE_STRING ? "string" : "number");
        return FALSE;
    }
    return TRUE;
}

/* An integer attribute value in [@lo, G_MAXINT32]; NaN (absent on this element) gives @dflt. */
static gboolean
int_value(double x, double lo, gint64 dflt, const char *path, const char *what, const char *attr,
          gint64 *out, GError **error)
{
    if (isnan(x)) {
        *out = dflt;
        return TRUE;
    }
    if (!isfinite(x) || x != floor(x) || x < lo || x > (double)G_MAXINT64 / 2) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s: %s = %.17g must be an integer >= %g", path, what, attr, x, lo);
        return FALSE;
    }
    *out = (gint64)x;
    return TRUE;
}

static gboolean
vertex_kind_from(const char *s, weft_vertex_kind_t *kind)
{
    for (gint k = WEFT_VERTEX_GPU; k <= WEFT_VERTEX_HOST; k++) {
        if (g_strcmp0(s, weft_topo_vertex_kind_name(k)) == 0) {
            *kind = k;
            return TRUE;
        }
    }
    return FALSE;
}

static gboolean
link_kind_from(const char *s, weft_link_kind_t *kind)
{
    for (gint k = WEFT_LINK_NVLINK; k <= WEFT_LINK_GENERIC; k++) {
        if (g_strcmp0(s, weft_topo_link_kind_name(k)) == 0) {
            *kind = k;
            return TRUE;
        }
    }
    return FALSE;
}

/* Numeric attribute of vertex/edge @i, or NaN when the attribute is absent. */
static double
num_attr(const igraph_t *g, gboolean vertex, gboolean present, const char *name, guint i)
{
    if (!present) {
        return NAN;
    }
    return vertex ? igraph_cattribute_VAN(g, name, i) : igraph_cattribute_EAN(g, name, i);
}

/* Parses a "features" attribute ("nvls", "sharp", comma-separated) onto vertex @id. */
static gboolean
read_features(weft_topo_t *topo, gint id, weft_vertex_kind_t kind, const char *ks, const char *text,
              const char *path, const char *what, GError **error)
{
    guint mask = 0;
    g_auto(GStrv) words = g_strsplit(text != NULL ? text : "", ",", -1);
    for (guint i = 0; words[i] != NULL; i++) {
        const char *w = g_strstrip(words[i]);
        guint f = 0;
        if (w[0] == '\0') {
            continue;
        } else if (g_ascii_strcasecmp(w, "nvls") == 0) {
            f = WEFT_TOPO_FEATURE_NVLS;
        } else if (g_ascii_strcasecmp(w, "sharp") == 0) {
            f = WEFT_TOPO_FEATURE_SHARP;
        } else {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                        "%s: %s: features = \"%s\": \"%s\" is not one of nvls, sharp", path, what,
                        text, w);
            return FALSE;
        }
        weft_vertex_kind_t need =
            f == WEFT_TOPO_FEATURE_NVLS ? WEFT_VERTEX_NVSWITCH : WEFT_VERTEX_SWITCH;
        if (kind != need) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: %s: features = \"%s\" on a %s (nvls is for nvswitch, sharp for "
                        "switch vertices)",
                        path, what, text, ks);
            return FALSE;
        }
        mask |= f;
    }
    weft_topo_set_vertex_features(topo, id, mask);
    return TRUE;
}

/* Adds the vertices of @g to @topo. */
static gboolean
read_vertices(weft_topo_t *topo, const igraph_t *g, const char *path, GError **error)
{
    gboolean has_kind;
    gboolean has_name;
    gboolean has_host;
    gboolean has_rail;
    gboolean has_tier;
    gboolean has_features;
    gboolean has_msg_cost;
    gboolean has_gpu_model;
    if (!check_attr(g, path, IGRAPH_ATTRIBUTE_VERTEX, "kind", IGRAPH_ATTRIBUTE_STRING, TRUE,
                    &has_kind, error) ||
        !check_attr(g, path, IGRAPH_ATTRIBUTE_VERTEX, "name", IGRAPH_ATTRIBUTE_STRING, TRUE,
                    &has_name, error) ||
        !check_attr(g, path, IGRAPH_ATTRIBUTE_VERTEX, "host", IGRAPH_ATTRIBUTE_NUMERIC, FALSE,
                    &has_host, error) ||
        !check_attr(g, path, IGRAPH_ATTRIBUTE_VERTEX, "rail", IGRAPH_ATTRIBUTE_NUMERIC, FALSE,
                    &has_rail, error) ||
        !check_attr(g, path, IGRAPH_ATTRIBUTE_VERTEX, "tier", IGRAPH_ATTRIBUTE_NUMERIC, FALSE,
                    &has_tier, error) ||
        !check_attr(g, path, IGRAPH_ATTRIBUTE_VERTEX, "features", IGRAPH_ATTRIBUTE_STRING, FALSE,
                    &has_features, error) ||
        !check_attr(g, path, IGRAPH_ATTRIBUTE_VERTEX, "msg_cost_ps", IGRAPH_ATTRIBUTE_NUMERIC,
                    FALSE, &has_msg_cost, error) ||
        !check_attr(g, path, IGRAPH_ATTRIBUTE_VERTEX, "gpu_model", IGRAPH_ATTRIBUTE_STRING, FALSE,
                    &has_gpu_model, error)) {
        return FALSE;
    }
    guint n = (guint)igraph_vcount(g);
    for (guint v = 0; v < n; v++) {
        const char *name = igraph_cattribute_VAS(g, "name", v);
        const char *ks = igraph_cattribute_VAS(g, "kind", v);
        g_autofree char *what = g_strdup_printf("vertex %u (%s)", v, name);
        if (name == NULL || name[0] == '\0') {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                        "%s: vertex %u: attribute \"name\" is missing or empty", path, v);
            return FALSE;
        }
        weft_vertex_kind_t kind;
        if (!vertex_kind_from(ks, &kind)) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                        "%s: %s: kind = \"%s\" is not one of gpu, nvswitch, nic, switch, host",
                        path, what, ks != NULL ? ks : "");
            return FALSE;
        }
        gint64 host;
        gint64 rail;
        gint64 tier;
        if (!int_value(num_attr(g, TRUE, has_host, "host", v), -1, -1, path, what, "host", &host,
                       error) ||
            !int_value(num_attr(g, TRUE, has_rail, "rail", v), -1, -1, path, what, "rail", &rail,
                       error) ||
            !int_value(num_attr(g, TRUE, has_tier, "tier", v), 0, 0, path, what, "tier", &tier,
                       error)) {
            return FALSE;
        }
        if (host > G_MAXINT32 || rail > G_MAXINT32 || tier > 3) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: %s: host %" G_GINT64_FORMAT ", rail %" G_GINT64_FORMAT
                        " or tier %" G_GINT64_FORMAT " out of range (tier is 0..3)",
                        path, what, host, rail, tier);
            return FALSE;
        }
        if (tier != 0 && kind != WEFT_VERTEX_SWITCH) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: %s: tier = %" G_GINT64_FORMAT " on a %s (only switches have tiers)",
                        path, what, tier, ks);
            return FALSE;
        }
        gint id = weft_topo_add_vertex(topo, kind, name, (gint)host, (gint)rail, error);
        if (id < 0) {
            g_prefix_error(error, "%s: %s: ", path, what);
            return FALSE;
        }
        if (tier != 0) {
            weft_topo_set_vertex_tier(topo, id, (guint)tier);
        }
        if (has_features &&
            !read_features(topo, id, kind, ks, igraph_cattribute_VAS(g, "features", v), path, what,
                           error)) {
            return FALSE;
        }
        gint64 msg_cost;
        if (!int_value(num_attr(g, TRUE, has_msg_cost, "msg_cost_ps", v), 0, 0, path, what,
                       "msg_cost_ps", &msg_cost, error)) {
            return FALSE;
        }
        if (msg_cost < 0 || (msg_cost > 0 && kind != WEFT_VERTEX_NIC)) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: %s: msg_cost_ps = %" G_GINT64_FORMAT " (a cost >= 0, on NICs only)",
                        path, what, msg_cost);
            return FALSE;
        }
        weft_topo_set_vertex_msg_cost(topo, id, (weft_time_t)msg_cost);
        const char *gm = has_gpu_model ? igraph_cattribute_VAS(g, "gpu_model", v) : NULL;
        if (gm != NULL && gm[0] != '\0') {
            g_autoptr(GError) herr = NULL;
            const weft_hw_gpu_t *gpu = weft_hw_gpu(gm, &herr);
            if (gpu == NULL || kind != WEFT_VERTEX_GPU) {
                g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                            "%s: %s: gpu_model = \"%s\": %s", path, what, gm,
                            gpu == NULL ? herr->message : "only GPU vertices have a GPU model");
                return FALSE;
            }
            weft_topo_set_vertex_gpu_model(topo, id, gpu);
        }
    }
    return TRUE;
}

typedef struct {
    weft_link_kind_t kind;
    double bw;
    gint64 lat;
    gint64 lanes;
} link_attrs;

/* Reads and checks the attributes of edge @e. */
static gboolean
edge_attrs(const igraph_t *g, guint e, const gboolean present[3], const char *path, link_attrs *a,
           GError **error)
{
    g_autofree char *what = g_strdup_printf("edge %u (%s -> %s)", e,
                                            igraph_cattribute_VAS(g, "name", IGRAPH_FROM(g, e)),
                                            igraph_cattribute_VAS(g, "name", IGRAPH_TO(g, e)));
    const char *ks = igraph_cattribute_EAS(g, "kind", e);
    if (!link_kind_from(ks, &a->kind)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                    "%s: %s: kind = \"%s\" is not one of nvlink, pcie, infiniband, ethernet, "
                    "generic",
                    path, what, ks != NULL ? ks : "");
        return FALSE;
    }
    a->bw = num_attr(g, FALSE, present[0], "bandwidth_Bps", e);
    if (isnan(a->bw)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                    "%s: %s: attribute \"bandwidth_Bps\" is missing", path, what);
        return FALSE;
    }
    if (!int_value(num_attr(g, FALSE, present[1], "latency_ps", e), 0, 0, path, what, "latency_ps",
                   &a->lat, error) ||
        !int_value(num_attr(g, FALSE, present[2], "lanes", e), 1, 1, path, what, "lanes", &a->lanes,
                   error)) {
        return FALSE;
    }
    if (a->lanes > G_MAXUINT32) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s: lanes = %" G_GINT64_FORMAT " is too large", path, what, a->lanes);
        return FALSE;
    }
    return TRUE;
}

/* Adds the links of @g to @topo: edge pairs of a directed graph, single edges of an undirected one.
 */
static gboolean
read_links(weft_topo_t *topo, const igraph_t *g, const char *path, GError **error)
{
    gboolean present[3];
    gboolean has_kind;
    if (!check_attr(g, path, IGRAPH_ATTRIBUTE_EDGE, "kind", IGRAPH_ATTRIBUTE_STRING, TRUE,
                    &has_kind, error) ||
        !check_attr(g, path, IGRAPH_ATTRIBUTE_EDGE, "bandwidth_Bps", IGRAPH_ATTRIBUTE_NUMERIC, TRUE,
                    &present[0], error) ||
        !check_attr(g, path, IGRAPH_ATTRIBUTE_EDGE, "latency_ps", IGRAPH_ATTRIBUTE_NUMERIC, FALSE,
                    &present[1], error) ||
        !check_attr(g, path, IGRAPH_ATTRIBUTE_EDGE, "lanes", IGRAPH_ATTRIBUTE_NUMERIC, FALSE,
                    &present[2], error)) {
        return FALSE;
    }
    gboolean directed = igraph_is_directed(g);
    guint m = (guint)igraph_ecount(g);
    if (directed && m % 2 != 0) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH,
                    "%s: %u directed edges: links are pairs of opposite edges, so the count must "
                    "be even",
                    path, m);
        return FALSE;
    }
    guint step = directed ? 2 : 1;
    for (guint e = 0; e < m; e += step) {
        link_attrs a;
        if (!edge_attrs(g, e, present, path, &a, error)) {
            return FALSE;
        }
        gint u = (gint)IGRAPH_FROM(g, e);
        gint v = (gint)IGRAPH_TO(g, e);
        if (directed) {
            link_attrs b;
            if (!edge_attrs(g, e + 1, present, path, &b, error)) {
                return FALSE;
            }
            if (IGRAPH_FROM(g, e + 1) != v || IGRAPH_TO(g, e + 1) != u || a.kind != b.kind ||
                a.bw != b.bw || a.lat != b.lat || a.lanes != b.lanes) {
                g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH,
                            "%s: edges %u and %u (%s -> %s) are not the two directions of one "
                            "link with the same attributes",
                            path, e, e + 1, igraph_cattribute_VAS(g, "name", u),
                            igraph_cattribute_VAS(g, "name", v));
                return FALSE;
            }
        }
        if (weft_topo_add_link(topo, u, v, a.kind, a.bw, a.lat, (guint)a.lanes, error) < 0) {
            g_prefix_error(error, "%s: edge %u: ", path, e);
            return FALSE;
        }
    }
    return TRUE;
}

static weft_topo_t *load_graphml_locked(const char *path, GError **error);

weft_topo_t *
weft_topo_load_graphml(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    weft_topo_i_igraph_lock();
    weft_topo_t *topo = load_graphml_locked(path, error);
    weft_topo_i_igraph_unlock();
    return topo;
}

/*
 * igraph reads a numeric <data> of "NaN" as NaN, which is also how it marks an element
 * without that attribute: a written NaN would silently take the default (lanes 1, no host,
 * no message cost). Finds the first <data> whose text is NaN, and names its key and line.
 */
static gboolean
refuse_nan_data(const char *path, GError **error)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &text, &len, NULL)) {
        return TRUE; /* igraph's own read reports what is wrong with the file */
    }
    g_autoptr(GRegex) re = g_regex_new(
        "<data\\s+key\\s*=\\s*[\"']([^\"']*)[\"'][^>]*>\\s*[-+]?nan\\s*</data>",
        G_REGEX_CASELESS | G_REGEX_RAW, 0, NULL);
    g_autoptr(GMatchInfo) mi = NULL;
    if (re == NULL || !g_regex_match_full(re, text, (gssize)len, 0, 0, &mi, NULL)) {
        return TRUE;
    }
    gint start = 0;
    g_match_info_fetch_pos(mi, 0, &start, NULL);
    guint line = 1;
    for (gint i = 0; i < start; i++) {
        line += text[i] == '\n';
    }
    g_autofree char *key = g_match_info_fetch(mi, 1);
    g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                "%s:%u: attribute \"%s\" is NaN: give a number, or leave the <data> out for "
                "the default",
                path, line, key);
    return FALSE;
}

/* weft_topo_load_graphml() under the igraph lock (topo_private.h). */
static weft_topo_t *
load_graphml_locked(const char *path, GError **error)
{
    if (!refuse_nan_data(path, error)) {
        return NULL;
    }
    FILE *f = g_fopen(path, "r");
    if (f == NULL) {
        int errsv = errno;
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_IO, "%s: cannot read: %s", path,
                    g_strerror(errsv));
        return NULL;
    }
    weft_topo_i_igraph_quiet();
    use_c_attributes();
    igraph_t g;
    igraph_error_t rc = igraph_read_graph_graphml(&g, f, 0);
    fclose(f);
    if (rc != IGRAPH_SUCCESS) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                    "%s: not a GraphML cluster igraph can read: %s", path, igraph_strerror(rc));
        return NULL;
    }
    g_autofree char *base = g_path_get_basename(path);
    const char *name = base;
    if (attr_type(&g, IGRAPH_ATTRIBUTE_GRAPH, "name") == IGRAPH_ATTRIBUTE_STRING) {
        const char *gname = igraph_cattribute_GAS(&g, "name");
        if (gname != NULL && gname[0] != '\0') {
            name = gname;
        }
    }
    g_autoptr(weft_topo_t) topo = weft_topo_new(name);
    gboolean ok = read_vertices(topo, &g, path, error) && read_links(topo, &g, path, error);
    igraph_destroy(&g);
    if (!ok) {
        return NULL;
    }
    if (!weft_topo_finalize(topo, error)) {
        g_prefix_error(error, "%s: ", path);
        return NULL;
    }
    return g_steal_pointer(&topo);
}

/* ---- DOT out ----------------------------------------------------------------------- */

/* @s quoted for DOT: in double quotes, with '"' and '\' escaped. */
static void
dot_quoted(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (const char *p = s; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\') {
            g_string_append_c(out, '\\');
        }
        g_string_append_c(out, *p);
    }
    g_string_append_c(out, '"');
}

static const char *
dot_shape(weft_vertex_kind_t kind)
{
    switch (kind) {
    case WEFT_VERTEX_GPU:
        return "box";
    case WEFT_VERTEX_NVSWITCH:
        return "diamond";
    case WEFT_VERTEX_NIC:
        return "ellipse";
    case WEFT_VERTEX_SWITCH:
        return "hexagon";
    case WEFT_VERTEX_HOST:
        return "component";
    }
    return "ellipse";
}

static void
dot_vertex(GString *out, const weft_topo_t *topo, gint v, const char *indent)
{
    g_string_append_printf(out, "%sv%d [label=", indent, v);
    dot_quoted(out, weft_topo_vertex_name(topo, v));
    g_string_append_printf(out, ", shape=%s];\n", dot_shape(weft_topo_vertex_kind(topo, v)));
}

gboolean
weft_topo_write_dot(const weft_topo_t *topo, const char *path, GError **error)
{
    g_return_val_if_fail(topo != NULL && path != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

    g_autoptr(GString) out = g_string_new("graph ");
    dot_quoted(out, topo->name);
    g_string_append(out, " {\n");
    guint n = topo->v_name->len;
    /* vertices of host h (GPUs and the NICs, NVSwitches and CPUs of the node) in cluster_hostN */
    for (guint h = 0; h < topo->n_hosts; h++) {
        gboolean open = FALSE;
        for (guint v = 0; v < n; v++) {
            if (weft_topo_vertex_host(topo, (gint)v) != (gint)h) {
                continue;
            }
            if (!open) {
                g_string_append_printf(out, "  subgraph cluster_host%u {\n    label=\"host %u\";\n",
                                       h, h);
                open = TRUE;
            }
            dot_vertex(out, topo, (gint)v, "    ");
        }
        if (open) {
            g_string_append(out, "  }\n");
        }
    }
    for (guint v = 0; v < n; v++) {
        if (weft_topo_vertex_host(topo, (gint)v) < 0) {
            dot_vertex(out, topo, (gint)v, "  ");
        }
    }
    /* link i is edges 2i (u -> v) and 2i + 1: one undirected DOT edge */
    for (guint e = 0; e < topo->e_from->len; e += 2) {
        double bw = weft_topo_edge_bw(topo, (gint)e);
        guint lanes = weft_topo_edge_lanes(topo, (gint)e);
        g_string_append_printf(out, "  v%d -- v%d [label=\"%s %g GB/s",
                               weft_topo_edge_from(topo, (gint)e), weft_topo_edge_to(topo, (gint)e),
                               weft_topo_link_kind_name(weft_topo_edge_kind(topo, (gint)e)),
                               bw / 1e9);
        if (lanes > 1) {
            g_string_append_printf(out, " x%u", lanes);
        }
        g_string_append(out, "\"];\n");
    }
    g_string_append(out, "}\n");

    g_autoptr(GError) ioerr = NULL;
    if (!weft_output_write(path, out->str, (gssize)out->len, &ioerr)) {
        return io_error(error, ioerr);
    }
    return TRUE;
}

/* ---- comparison -------------------------------------------------------------------- */

gboolean
weft_topo_equal(const weft_topo_t *a, const weft_topo_t *b, GString *why)
{
    g_return_val_if_fail(a != NULL && b != NULL, FALSE);
    guint n = weft_topo_n_vertices(a);
    guint m = weft_topo_n_edges(a);
    if (n != weft_topo_n_vertices(b) || m != weft_topo_n_edges(b)) {
        if (why != NULL) {
            g_string_append_printf(why, "%u vertices and %u edges against %u and %u", n, m,
                                   weft_topo_n_vertices(b), weft_topo_n_edges(b));
        }
        return FALSE;
    }
    for (guint v = 0; v < n; v++) {
        gint i = (gint)v;
        if (weft_topo_vertex_kind(a, i) != weft_topo_vertex_kind(b, i) ||
            g_strcmp0(weft_topo_vertex_name(a, i), weft_topo_vertex_name(b, i)) != 0 ||
            weft_topo_vertex_host(a, i) != weft_topo_vertex_host(b, i) ||
            weft_topo_vertex_rail(a, i) != weft_topo_vertex_rail(b, i) ||
            weft_topo_vertex_tier(a, i) != weft_topo_vertex_tier(b, i) ||
            weft_topo_vertex_features(a, i) != weft_topo_vertex_features(b, i) ||
            weft_topo_vertex_msg_cost(a, i) != weft_topo_vertex_msg_cost(b, i) ||
            weft_topo_vertex_gpu_model(a, i) != weft_topo_vertex_gpu_model(b, i)) {
            if (why != NULL) {
                g_string_append_printf(why,
                                       "vertex %u: %s %s host %d rail %d tier %u features %u "
                                       "against %s %s host %d rail %d tier %u features %u",
                                       v, weft_topo_vertex_kind_name(weft_topo_vertex_kind(a, i)),
                                       weft_topo_vertex_name(a, i), weft_topo_vertex_host(a, i),
                                       weft_topo_vertex_rail(a, i), weft_topo_vertex_tier(a, i),
                                       weft_topo_vertex_features(a, i),
                                       weft_topo_vertex_kind_name(weft_topo_vertex_kind(b, i)),
                                       weft_topo_vertex_name(b, i), weft_topo_vertex_host(b, i),
                                       weft_topo_vertex_rail(b, i), weft_topo_vertex_tier(b, i),
                                       weft_topo_vertex_features(b, i));
            }
            return FALSE;
        }
    }
    for (guint e = 0; e < m; e++) {
        gint i = (gint)e;
        if (weft_topo_edge_from(a, i) != weft_topo_edge_from(b, i) ||
            weft_topo_edge_to(a, i) != weft_topo_edge_to(b, i) ||
            weft_topo_edge_kind(a, i) != weft_topo_edge_kind(b, i) ||
            weft_topo_edge_bw(a, i) != weft_topo_edge_bw(b, i) ||
            weft_topo_edge_latency(a, i) != weft_topo_edge_latency(b, i) ||
            weft_topo_edge_lanes(a, i) != weft_topo_edge_lanes(b, i)) {
            if (why != NULL) {
                g_string_append_printf(
                    why,
                    "edge %u: %d->%d %s %.17g B/s %" G_GINT64_FORMAT " ps x%u against %d->%d %s "
                    "%.17g B/s %" G_GINT64_FORMAT " ps x%u",
                    e, weft_topo_edge_from(a, i), weft_topo_edge_to(a, i),
                    weft_topo_link_kind_name(weft_topo_edge_kind(a, i)), weft_topo_edge_bw(a, i),
                    (gint64)weft_topo_edge_latency(a, i), weft_topo_edge_lanes(a, i),
                    weft_topo_edge_from(b, i), weft_topo_edge_to(b, i),
                    weft_topo_link_kind_name(weft_topo_edge_kind(b, i)), weft_topo_edge_bw(b, i),
                    (gint64)weft_topo_edge_latency(b, i), weft_topo_edge_lanes(b, i));
            }
            return FALSE;
        }
    }
    return TRUE;
}
