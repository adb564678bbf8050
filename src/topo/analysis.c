/* SPDX-License-Identifier: MIT */
/*
 * Figures of merit of a cluster (counts, scale-up and injection bandwidth per
 * GPU, bisection bandwidth by max flow, GPU diameter by bit-parallel BFS,
 * oversubscription per tier) and the structural checks behind `weft topo
 * check`. Definitions are in topo/analysis.h. Only the public accessors of
 * topo/topo.h are used: this file builds its own igraph graphs from them.
 */
#define G_LOG_DOMAIN "weft-topo"

#include "topo/analysis.h"
#include "topo/topo_private.h"

#include <igraph.h>
#include <math.h>
#include <string.h>

/* ---- igraph plumbing ------------------------------------------------------------ */

/* An igraph graph that may or may not be initialized, for g_auto(). */
typedef struct {
    igraph_t g;
    gboolean live;
} graph_t;

static void
graph_clear(graph_t *g)
{
    if (g->live) {
        igraph_destroy(&g->g);
        g->live = FALSE;
    }
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(graph_t, graph_clear)

/* Same reason as in topo.c: igraph's default handler aborts the process. */
static void
igraph_quiet(void)
{
    igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_set_warning_handler(igraph_warning_handler_ignore);
}

static gboolean
igraph_ok(igraph_error_t rc, const weft_topo_t *topo, const char *what, GError **error)
{
    if (rc == IGRAPH_SUCCESS) {
        return TRUE;
    }
    g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_GRAPH, "cluster %s: igraph %s failed: %s",
                weft_topo_name(topo), what, igraph_strerror(rc));
    return FALSE;
}

/*
 * Creates a directed igraph graph on @n_vertices from @pairs (2 * @n_edges
 * vertex ids: from, to, from, to, ...).
 */
static gboolean
create_graph(graph_t *out, const weft_topo_t *topo, const gint *pairs, guint n_edges,
             guint n_vertices, GError **error)
{
    igraph_vector_int_t ev;
    if (!igraph_ok(igraph_vector_int_init(&ev, 2 * (igraph_integer_t)n_edges), topo, "vector_init",
                   error)) {
        return FALSE;
    }
    for (guint i = 0; i < 2 * n_edges; i++) {
        VECTOR(ev)[i] = pairs[i];
    }
    igraph_error_t rc = igraph_create(&out->g, &ev, (igraph_integer_t)n_vertices, IGRAPH_DIRECTED);
    igraph_vector_int_destroy(&ev);
    if (!igraph_ok(rc, topo, "create", error)) {
        return FALSE;
    }
    out->live = TRUE;
    return TRUE;
}

/* The cluster as an igraph graph: vertex ids and edge ids are the cluster's. */
static gboolean
base_graph(graph_t *out, const weft_topo_t *topo, GError **error)
{
    guint m = weft_topo_n_edges(topo);
    g_autofree gint *pairs = g_new(gint, 2 * (gsize)m + 1);
    for (guint e = 0; e < m; e++) {
        pairs[2 * e] = weft_topo_edge_from(topo, (gint)e);
        pairs[2 * e + 1] = weft_topo_edge_to(topo, (gint)e);
    }
    return create_graph(out, topo, pairs, m, weft_topo_n_vertices(topo), error);
}

/* Max flow of @g (directed) from @s to @t with per-edge @caps (one per edge, bytes/s). */
static gboolean
max_flow(const weft_topo_t *topo, const igraph_t *g, igraph_integer_t s, igraph_integer_t t,
         const double *caps, double *value, GError **error)
{
    igraph_integer_t m = igraph_ecount(g);
    igraph_vector_t cap;
    if (!igraph_ok(igraph_vector_init(&cap, m), topo, "vector_init", error)) {
        return FALSE;
    }
    for (igraph_integer_t e = 0; e < m; e++) {
        VECTOR(cap)[e] = caps[e];
    }
    igraph_real_t v = 0;
    igraph_error_t rc = igraph_maxflow_value(g, &v, s, t, &cap, NULL);
    igraph_vector_destroy(&cap);
    if (!igraph_ok(rc, topo, "maxflow_value", error)) {
        return FALSE;
    }
    *value = v;
    return TRUE;
}

/* ---- per-GPU NVLink and injection bandwidth ----------------------------------------- */

static void
scaleup(const weft_topo_t *topo, const GPtrArray *out_edges, weft_topo_summary_t *s)
{
    guint n = weft_topo_n_gpus(topo);
    s->scaleup_min_Bps = INFINITY;
    s->scaleup_max_Bps = 0;
    for (guint g = 0; g < n; g++) {
        const GArray *oe = g_ptr_array_index(out_edges, weft_topo_gpu_vertex(topo, g));
        double sum = 0;
        for (guint i = 0; i < oe->len; i++) {
            gint e = g_array_index(oe, gint, i);
            if (weft_topo_edge_kind(topo, e) == WEFT_LINK_NVLINK) {
                sum += weft_topo_edge_bw(topo, e);
            }
        }
        s->scaleup_min_Bps = MIN(s->scaleup_min_Bps, sum);
        s->scaleup_max_Bps = MAX(s->scaleup_max_Bps, sum);
    }
}

/* The scale-out fabric: switches of tier >= 1, or, without tiers, host-less switches. */
static gboolean *
fabric_sinks(const weft_topo_t *topo)
{
    guint nv = weft_topo_n_vertices(topo);
    gboolean tiered = FALSE;
    for (guint v = 0; v < nv && !tiered; v++) {
        tiered = weft_topo_vertex_tier(topo, (gint)v) >= 1;
    }
    gboolean *sink = g_new0(gboolean, nv);
    for (guint v = 0; v < nv; v++) {
        if (tiered) {
            sink[v] = weft_topo_vertex_tier(topo, (gint)v) >= 1;
        } else {
            sink[v] = weft_topo_vertex_kind(topo, (gint)v) == WEFT_VERTEX_SWITCH &&
                      weft_topo_vertex_host(topo, (gint)v) < 0;
        }
    }
    return sink;
}

/* May the injection flow of a group of GPUs on host @host (-1: none) enter @u? */
static gboolean
injection_may_enter(const weft_topo_t *topo, gint host, gint u)
{
    weft_vertex_kind_t k = weft_topo_vertex_kind(topo, u);
    if (k == WEFT_VERTEX_GPU || k == WEFT_VERTEX_NVSWITCH) {
        return FALSE; /* the group's own GPUs are already in the region */
    }
    return weft_topo_vertex_host(topo, u) == host;
}

/*
 * Max flow from the GPUs @gpus (vertex ids) to the fabric @sink, over the
 * non-NVLink edges of the region they reach through vertices of their host.
 * @local: scratch, one gint per vertex, all -1 on entry and on return.
 */
static gboolean
group_injection(const weft_topo_t *topo, const GPtrArray *out_edges, const gboolean *sink,
                const GArray *gpus, gint host, gint *local, double *flow_Bps, GError **error)
{
    g_autoptr(GArray) region = g_array_new(FALSE, FALSE, sizeof(gint));
    for (guint i = 0; i < gpus->len; i++) {
        gint v = g_array_index(gpus, gint, i);
        local[v] = (gint)region->len;
        g_array_append_val(region, v);
    }
    /* Breadth-first over the region; sinks are entered but not left. */
    guint n_sinks = 0;
    for (guint head = 0; head < region->len; head++) {
        gint x = g_array_index(region, gint, head);
        if (sink[x]) {
            continue;
        }
        const GArray *oe = g_ptr_array_index(out_edges, x);
        for (guint i = 0; i < oe->len; i++) {
            gint e = g_array_index(oe, gint, i);
            gint u = weft_topo_edge_to(topo, e);
            if (weft_topo_edge_kind(topo, e) == WEFT_LINK_NVLINK || local[u] >= 0) {
                continue;
            }
            if (sink[u] || injection_may_enter(topo, host, u)) {
                local[u] = (gint)region->len;
                g_array_append_val(region, u);
                n_sinks += sink[u] ? 1 : 0;
            }
        }
    }
    gboolean ok = TRUE;
    *flow_Bps = 0;
    if (n_sinks > 0) {
        /* Local ids 0..r-1 for the region, r = super source, r + 1 = super sink. */
        guint r = region->len;
        g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, sizeof(gint));
        g_autoptr(GArray) caps = g_array_new(FALSE, FALSE, sizeof(double));
        g_autofree double *into = g_new0(double, r);
        for (guint i = 0; i < r; i++) {
            gint x = g_array_index(region, gint, i);
            if (sink[x]) {
                continue;
            }
            const GArray *oe = g_ptr_array_index(out_edges, x);
            double out_sum = 0;
            for (guint j = 0; j < oe->len; j++) {
                gint e = g_array_index(oe, gint, j);
                gint u = weft_topo_edge_to(topo, e);
                if (weft_topo_edge_kind(topo, e) == WEFT_LINK_NVLINK || local[u] < 0) {
                    continue;
                }
                double bw = weft_topo_edge_bw(topo, e);
                gint pr[2] = {(gint)i, local[u]};
                g_array_append_vals(pairs, pr, 2);
                g_array_append_val(caps, bw);
                into[local[u]] += bw;
                out_sum += bw;
            }
            if (i < gpus->len) {
                /* A GPU sends no more than its links carry: a cap that never binds. */
                gint pr[2] = {(gint)r, (gint)i};
                g_array_append_vals(pairs, pr, 2);
                g_array_append_val(caps, out_sum);
            }
        }
        for (guint i = 0; i < r; i++) {
            if (sink[g_array_index(region, gint, i)]) {
                gint pr[2] = {(gint)i, (gint)r + 1};
                g_array_append_vals(pairs, pr, 2);
                g_array_append_val(caps, into[i]);
            }
        }
        g_auto(graph_t) fg = {0};
        ok = create_graph(&fg, topo, (const gint *)(void *)pairs->data, caps->len, r + 2, error) &&
             max_flow(topo, &fg.g, r, r + 1, (const double *)(void *)caps->data, flow_Bps, error);
    }
    for (guint i = 0; i < region->len; i++) {
        local[g_array_index(region, gint, i)] = -1;
    }
    return ok;
}

static gboolean
injection(const weft_topo_t *topo, const GPtrArray *out_edges, weft_topo_summary_t *s,
          GError **error)
{
    guint n = weft_topo_n_gpus(topo);
    guint nv = weft_topo_n_vertices(topo);
    g_autofree gboolean *sink = fabric_sinks(topo);
    g_autofree gint *local = g_new(gint, nv);
    for (guint v = 0; v < nv; v++) {
        local[v] = -1;
    }
    /* GPUs by host, in GPU order; host-less GPUs are groups of one. */
    guint n_hosts = weft_topo_n_hosts(topo);
    g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    for (guint h = 0; h < n_hosts; h++) {
        g_ptr_array_add(groups, g_array_new(FALSE, FALSE, sizeof(gint)));
    }
    g_autoptr(GArray) group_host = g_array_new(FALSE, FALSE, sizeof(gint));
    for (guint h = 0; h < n_hosts; h++) {
        gint hh = (gint)h;
        g_array_append_val(group_host, hh);
    }
    for (guint g = 0; g < n; g++) {
        gint v = weft_topo_gpu_vertex(topo, g);
        gint h = weft_topo_vertex_host(topo, v);
        if (h >= 0 && (guint)h < n_hosts) {
            g_array_append_val(g_ptr_array_index(groups, h), v);
        } else {
            GArray *one = g_array_new(FALSE, FALSE, sizeof(gint));
            g_array_append_val(one, v);
            g_ptr_array_add(groups, one);
            gint none = -1;
            g_array_append_val(group_host, none);
        }
    }
    s->injection_min_Bps = INFINITY;
    s->injection_max_Bps = 0;
    for (guint i = 0; i < groups->len; i++) {
        const GArray *gpus = g_ptr_array_index(groups, i);
        if (gpus->len == 0) {
            continue;
        }
        double flow = 0;
        if (!group_injection(topo, out_edges, sink, gpus, g_array_index(group_host, gint, i), local,
                             &flow, error)) {
            return FALSE;
        }
        double per_gpu = flow / gpus->len;
        s->injection_min_Bps = MIN(s->injection_min_Bps, per_gpu);
        s->injection_max_Bps = MAX(s->injection_max_Bps, per_gpu);
    }
    return TRUE;
}

/* ---- bisection -------------------------------------------------------------------- */

static gboolean
bisection(const weft_topo_t *topo, const graph_t *base, const GPtrArray *out_edges,
          weft_topo_summary_t *s, GError **error)
{
    guint n = weft_topo_n_gpus(topo);
    s->bisection_Bps = 0;
    if (n < 2) {
        return TRUE;
    }
    guint nv = weft_topo_n_vertices(topo);
    guint m = weft_topo_n_edges(topo);
    g_auto(graph_t) fg = {0};
    if (!igraph_ok(igraph_copy(&fg.g, &base->g), topo, "copy", error)) {
        return FALSE;
    }
    fg.live = TRUE;
    if (!igraph_ok(igraph_add_vertices(&fg.g, 2, NULL), topo, "add_vertices", error)) {
        return FALSE;
    }
    igraph_vector_int_t ev;
    if (!igraph_ok(igraph_vector_int_init(&ev, 2 * (igraph_integer_t)n), topo, "vector_init",
                   error)) {
        return FALSE;
    }
    g_autofree double *caps = g_new(double, (gsize)m + n);
    for (guint e = 0; e < m; e++) {
        caps[e] = weft_topo_edge_bw(topo, (gint)e);
    }
    /*
     * Super source nv -> GPUs 0..n/2-1, GPUs n/2..n-1 -> super sink nv + 1, each
     * capped by the GPU's own link bandwidth (out of it for the source side, the
     * same for the sink side since links are full duplex): caps that never bind.
     */
    for (guint g = 0; g < n; g++) {
        gint v = weft_topo_gpu_vertex(topo, g);
        const GArray *oe = g_ptr_array_index(out_edges, v);
        double sum = 0;
        for (guint i = 0; i < oe->len; i++) {
            sum += weft_topo_edge_bw(topo, g_array_index(oe, gint, i));
        }
        gboolean first = g < n / 2;
        VECTOR(ev)[2 * g] = first ? (igraph_integer_t)nv : v;
        VECTOR(ev)[2 * g + 1] = first ? v : (igraph_integer_t)nv + 1;
        caps[m + g] = sum;
    }
    igraph_error_t rc = igraph_add_edges(&fg.g, &ev, NULL);
    igraph_vector_int_destroy(&ev);
    if (!igraph_ok(rc, topo, "add_edges", error)) {
        return FALSE;
    }
    return max_flow(topo, &fg.g, nv, nv + 1, caps, &s->bisection_Bps, error);
}

/* ---- diameter ----------------------------------------------------------------------- */

/* Sources per bit-parallel sweep: 8 words of 64 bits. */
#define DIAM_WORDS 8
#define DIAM_BATCH (64 * DIAM_WORDS)

/*
 * The largest hop distance between two GPUs: breadth-first searches from every
 * GPU, DIAM_BATCH at a time, each vertex holding one bit per source. A GPU that
 * gains a bit at level L is at distance L from that source, so the diameter is
 * the largest level at which a GPU gains a bit. A sweep stops when every GPU
 * holds every bit of the batch. The adjacency comes from igraph (out-neighbours;
 * links are full duplex, so this is the undirected distance).
 */
static gboolean
diameter(const weft_topo_t *topo, const graph_t *base, weft_topo_summary_t *s, GError **error)
{
    guint n = weft_topo_n_gpus(topo);
    guint nv = weft_topo_n_vertices(topo);
    s->diameter_hops = 0;
    s->diameter_exact = n <= WEFT_TOPO_DIAMETER_MAX_GPUS;
    if (n < 2 || !s->diameter_exact) {
        return TRUE;
    }
    igraph_adjlist_t al;
    if (!igraph_ok(
            igraph_adjlist_init(&base->g, &al, IGRAPH_OUT, IGRAPH_NO_LOOPS, IGRAPH_NO_MULTIPLE),
            topo, "adjlist_init", error)) {
        return FALSE;
    }
    /* Compressed rows: neighbours of v are nbr[off[v] .. off[v+1]). */
    g_autofree guint *off = g_new(guint, nv + 1);
    off[0] = 0;
    for (guint v = 0; v < nv; v++) {
        off[v + 1] = off[v] + (guint)igraph_vector_int_size(igraph_adjlist_get(&al, v));
    }
    g_autofree guint *nbr = g_new(guint, (gsize)off[nv] + 1);
    for (guint v = 0; v < nv; v++) {
        const igraph_vector_int_t *nb = igraph_adjlist_get(&al, v);
        for (guint i = 0; i < off[v + 1] - off[v]; i++) {
            nbr[off[v] + i] = (guint)VECTOR(*nb)[i];
        }
    }
    igraph_adjlist_destroy(&al);

    g_autofree gboolean *is_gpu = g_new0(gboolean, nv);
    for (guint g = 0; g < n; g++) {
        is_gpu[weft_topo_gpu_vertex(topo, g)] = TRUE;
    }
    gsize words = (gsize)nv * DIAM_WORDS;
    g_autofree guint64 *visited = g_new(guint64, words);
    g_autofree guint64 *frontier = g_new(guint64, words);
    g_autofree guint64 *next = g_new(guint64, words);
    g_autofree guchar *active = g_new(guchar, nv); /* frontier[v] != 0 */
    guint diam = 0;
    for (guint first = 0; first < n; first += DIAM_BATCH) {
        guint batch = MIN(DIAM_BATCH, n - first);
        guint64 full[DIAM_WORDS] = {0};
        for (guint k = 0; k < batch; k++) {
            full[k / 64] |= G_GUINT64_CONSTANT(1) << (k % 64);
        }
        memset(visited, 0, words * sizeof(guint64));
        memset(frontier, 0, words * sizeof(guint64));
        memset(active, 0, nv);
        for (guint k = 0; k < batch; k++) {
            gint v = weft_topo_gpu_vertex(topo, first + k);
            visited[(gsize)v * DIAM_WORDS + k / 64] |= G_GUINT64_CONSTANT(1) << (k % 64);
            frontier[(gsize)v * DIAM_WORDS + k / 64] |= G_GUINT64_CONSTANT(1) << (k % 64);
            active[v] = 1;
        }
        /* GPUs holding every bit of the batch (a source holds only its own yet). */
        guint gpus_done = batch == 1 ? 1 : 0;
        gboolean moved = TRUE;
        for (guint level = 1; moved && gpus_done < n; level++) {
            memset(next, 0, words * sizeof(guint64));
            for (guint v = 0; v < nv; v++) {
                if (!active[v]) {
                    continue;
                }
                const guint64 *f = frontier + (gsize)v * DIAM_WORDS;
                for (guint i = off[v]; i < off[v + 1]; i++) {
                    guint64 *x = next + (gsize)nbr[i] * DIAM_WORDS;
                    for (guint w = 0; w < DIAM_WORDS; w++) {
                        x[w] |= f[w];
                    }
                }
            }
            moved = FALSE;
            for (guint v = 0; v < nv; v++) {
                guint64 *x = next + (gsize)v * DIAM_WORDS;
                guint64 *vis = visited + (gsize)v * DIAM_WORDS;
                guint64 any = 0, missing = 0;
                for (guint w = 0; w < DIAM_WORDS; w++) {
                    x[w] &= ~vis[w];
                    vis[w] |= x[w];
                    any |= x[w];
                    missing |= full[w] & ~vis[w];
                }
                active[v] = any != 0;
                if (any != 0) {
                    moved = TRUE;
                    if (is_gpu[v]) {
                        diam = MAX(diam, level);
                        gpus_done += missing == 0 ? 1 : 0;
                    }
                }
            }
            guint64 *t = frontier;
            frontier = next;
            next = t;
        }
    }
    s->diameter_hops = diam;
    return TRUE;
}

/* ---- tiers ------------------------------------------------------------------------ */

static gboolean
tiers(const weft_topo_t *topo, const GPtrArray *out_edges, weft_topo_summary_t *s, GError **error)
{
    guint nv = weft_topo_n_vertices(topo);
    for (guint v = 0; v < nv; v++) {
        guint t = weft_topo_vertex_tier(topo, (gint)v);
        if (t == 0) {
            continue;
        }
        if (t > WEFT_TOPO_MAX_TIERS) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "cluster %s: vertex %s has tier %u; tiers go up to %d",
                        weft_topo_name(topo), weft_topo_vertex_name(topo, (gint)v), t,
                        WEFT_TOPO_MAX_TIERS);
            return FALSE;
        }
        weft_topo_tier_t *tt = &s->tiers[t - 1];
        tt->n_switches++;
        s->n_tiers = MAX(s->n_tiers, t);
        const GArray *oe = g_ptr_array_index(out_edges, v);
        for (guint i = 0; i < oe->len; i++) {
            gint e = g_array_index(oe, gint, i);
            guint tu = weft_topo_vertex_tier(topo, weft_topo_edge_to(topo, e));
            double bw = weft_topo_edge_bw(topo, e);
            if (tu < t) {
                tt->down_Bps += bw;
            } else if (tu > t) {
                tt->up_Bps += bw;
            } else {
                tt->peer_Bps += bw;
            }
        }
    }
    for (guint i = 0; i < WEFT_TOPO_MAX_TIERS; i++) {
        weft_topo_tier_t *tt = &s->tiers[i];
        tt->tier = i + 1;
        tt->oversubscription = tt->up_Bps > 0 ? tt->down_Bps / tt->up_Bps : 0;
    }
    return TRUE;
}

/* ---- public ----------------------------------------------------------------------- */

/* Out-edge ids of every vertex, in edge id order: one GArray of gint per vertex. */
static GPtrArray *
out_edge_lists(const weft_topo_t *topo)
{
    guint nv = weft_topo_n_vertices(topo);
    guint m = weft_topo_n_edges(topo);
    GPtrArray *lists = g_ptr_array_new_full(nv, (GDestroyNotify)g_array_unref);
    for (guint v = 0; v < nv; v++) {
        g_ptr_array_add(lists, g_array_new(FALSE, FALSE, sizeof(gint)));
    }
    for (guint e = 0; e < m; e++) {
        gint ee = (gint)e;
        g_array_append_val(g_ptr_array_index(lists, weft_topo_edge_from(topo, ee)), ee);
    }
    return lists;
}

static gboolean summarize_locked(const weft_topo_t *topo, weft_topo_summary_t *out, GError **error);

gboolean
weft_topo_summarize(const weft_topo_t *topo, weft_topo_summary_t *out, GError **error)
{
    g_return_val_if_fail(topo != NULL, FALSE);
    g_return_val_if_fail(out != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    weft_topo_i_igraph_lock();
    gboolean ok = summarize_locked(topo, out, error);
    weft_topo_i_igraph_unlock();
    return ok;
}

/* weft_topo_summarize() under the igraph lock (topo_private.h). */
static gboolean
summarize_locked(const weft_topo_t *topo, weft_topo_summary_t *out, GError **error)
{

    igraph_quiet();
    weft_topo_summary_t s;
    memset(&s, 0, sizeof s);
    guint nv = weft_topo_n_vertices(topo);
    guint m = weft_topo_n_edges(topo);
    for (guint v = 0; v < nv; v++) {
        weft_vertex_kind_t k = weft_topo_vertex_kind(topo, (gint)v);
        if ((guint)k <= WEFT_VERTEX_HOST) {
            s.n_vertices_by_kind[k]++;
        }
    }
    guint directed[WEFT_LINK_GENERIC + 1] = {0};
    for (guint e = 0; e < m; e++) {
        weft_link_kind_t k = weft_topo_edge_kind(topo, (gint)e);
        if ((guint)k <= WEFT_LINK_GENERIC) {
            directed[k]++;
        }
    }
    for (guint k = 0; k <= WEFT_LINK_GENERIC; k++) {
        s.n_links_by_kind[k] = directed[k] / 2;
    }
    s.n_gpus = weft_topo_n_gpus(topo);
    s.n_hosts = weft_topo_n_hosts(topo);
    s.n_domains = weft_topo_n_domains(topo);

    g_autoptr(GPtrArray) out_edges = out_edge_lists(topo);
    g_auto(graph_t) base = {0};
    scaleup(topo, out_edges, &s);
    if (!tiers(topo, out_edges, &s, error) || !injection(topo, out_edges, &s, error) ||
        !base_graph(&base, topo, error) || !bisection(topo, &base, out_edges, &s, error) ||
        !diameter(topo, &base, &s, error)) {
        return FALSE;
    }
    *out = s;
    return TRUE;
}

/* ---- check ------------------------------------------------------------------------ */

/* Findings of one kind: the first few in full, then a count. */
#define CHECK_MAX_LINES 10

typedef struct {
    GString *report;
    guint total;
    guint in_kind;
} findings_t;

static void G_GNUC_PRINTF(2, 3) finding(findings_t *f, const char *fmt, ...)
{
    f->total++;
    if (++f->in_kind > CHECK_MAX_LINES) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    g_string_append_vprintf(f->report, fmt, ap);
    va_end(ap);
    g_string_append_c(f->report, '\n');
}

/* Ends a kind of finding: says how many were not listed. */
static void
end_kind(findings_t *f, const char *what)
{
    if (f->in_kind > CHECK_MAX_LINES) {
        g_string_append_printf(f->report, "... and %u more %s\n", f->in_kind - CHECK_MAX_LINES,
                               what);
    }
    f->in_kind = 0;
}

/* Marks in @reached the vertices reachable from @root along @mode edges. */
static gboolean
reach(const weft_topo_t *topo, const igraph_t *g, gint root, igraph_neimode_t mode,
      gboolean *reached, GError **error)
{
    igraph_vector_int_t comp;
    if (!igraph_ok(igraph_vector_int_init(&comp, 0), topo, "vector_init", error)) {
        return FALSE;
    }
    igraph_error_t rc = igraph_subcomponent(g, &comp, root, mode);
    if (rc == IGRAPH_SUCCESS) {
        for (igraph_integer_t i = 0; i < igraph_vector_int_size(&comp); i++) {
            reached[VECTOR(comp)[i]] = TRUE;
        }
    }
    igraph_vector_int_destroy(&comp);
    return igraph_ok(rc, topo, "subcomponent", error);
}

static gboolean check_locked(const weft_topo_t *topo, GString *report, GError **error);

gboolean
weft_topo_check(const weft_topo_t *topo, GString *report, GError **error)
{
    g_return_val_if_fail(topo != NULL, FALSE);
    g_return_val_if_fail(report != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    weft_topo_i_igraph_lock();
    gboolean ok = check_locked(topo, report, error);
    weft_topo_i_igraph_unlock();
    return ok;
}

/* weft_topo_check() under the igraph lock (topo_private.h). */
static gboolean
check_locked(const weft_topo_t *topo, GString *report, GError **error)
{

    igraph_quiet();
    findings_t f = {.report = report};
    guint nv = weft_topo_n_vertices(topo);
    guint m = weft_topo_n_edges(topo);
    guint n = weft_topo_n_gpus(topo);
#define VNAME(v) weft_topo_vertex_name(topo, (v))

    /* Links: bandwidth, latency, and the reverse direction of each edge. */
    for (guint e = 0; e < m; e++) {
        double bw = weft_topo_edge_bw(topo, (gint)e);
        if (!(bw > 0) || !isfinite(bw)) {
            finding(&f, "link %s -> %s (edge %u) has bandwidth %g B/s; it must be positive",
                    VNAME(weft_topo_edge_from(topo, (gint)e)),
                    VNAME(weft_topo_edge_to(topo, (gint)e)), e, bw);
        }
    }
    end_kind(&f, "links with a bad bandwidth");
    for (guint e = 0; e < m; e++) {
        weft_time_t lat = weft_topo_edge_latency(topo, (gint)e);
        if (lat < 0) {
            finding(&f, "link %s -> %s (edge %u) has latency %" G_GINT64_FORMAT " ps",
                    VNAME(weft_topo_edge_from(topo, (gint)e)),
                    VNAME(weft_topo_edge_to(topo, (gint)e)), e, (gint64)lat);
        }
    }
    end_kind(&f, "links with a negative latency");
    g_autoptr(GHashTable) count = g_hash_table_new(g_int64_hash, g_int64_equal);
    g_autofree gint64 *keys = g_new(gint64, (gsize)m + 1);
    g_autofree guint *counts = g_new0(guint, (gsize)m + 1);
    for (guint e = 0; e < m; e++) {
        keys[e] = ((gint64)weft_topo_edge_from(topo, (gint)e) << 32) |
                  (gint64)(guint32)weft_topo_edge_to(topo, (gint)e);
        gpointer slot = g_hash_table_lookup(count, &keys[e]);
        if (slot == NULL) {
            g_hash_table_insert(count, &keys[e], &counts[e]);
            slot = &counts[e];
        }
        (*(guint *)slot)++;
    }
    for (guint e = 0; e < m; e++) {
        gint u = weft_topo_edge_from(topo, (gint)e), v = weft_topo_edge_to(topo, (gint)e);
        gint64 rev = ((gint64)v << 32) | (gint64)(guint32)u;
        const guint *here = g_hash_table_lookup(count, &keys[e]);
        const guint *back = g_hash_table_lookup(count, &rev);
        /* Report each (u, v) pair once: at its first edge, which holds the count. */
        if (here == &counts[e] && (back == NULL || *back < *here)) {
            finding(&f, "link %s -> %s has no reverse edge %s -> %s (links are full duplex)",
                    VNAME(u), VNAME(v), VNAME(v), VNAME(u));
        }
    }
    end_kind(&f, "edges without a reverse");

    /* Reachability: every GPU to and from GPU 0; every vertex from GPU 0. */
    g_auto(graph_t) base = {0};
    if (!base_graph(&base, topo, error)) {
        return FALSE;
    }
    g_autofree gboolean *from0 = g_new0(gboolean, nv);
    g_autofree gboolean *to0 = g_new0(gboolean, nv);
    gint g0 = weft_topo_gpu_vertex(topo, 0);
    if (!reach(topo, &base.g, g0, IGRAPH_OUT, from0, error) ||
        !reach(topo, &base.g, g0, IGRAPH_IN, to0, error)) {
        return FALSE;
    }
    for (guint g = 1; g < n; g++) {
        gint v = weft_topo_gpu_vertex(topo, g);
        if (!from0[v] || !to0[v]) {
            finding(&f, "GPU %u (%s) has no route %s GPU 0 (%s)", g, VNAME(v),
                    !from0[v] && !to0[v] ? "to or from"
                    : !from0[v]          ? "from"
                                         : "to",
                    VNAME(g0));
        }
    }
    end_kind(&f, "GPUs without a route");
    for (guint v = 0; v < nv; v++) {
        if (!from0[v] && weft_topo_vertex_kind(topo, (gint)v) != WEFT_VERTEX_GPU) {
            finding(&f, "%s %s cannot be reached from any GPU",
                    weft_topo_vertex_kind_name(weft_topo_vertex_kind(topo, (gint)v)),
                    VNAME((gint)v));
        }
    }
    end_kind(&f, "unreachable vertices");

    /* Tiers: on switches only; each tiered switch has a link down and, below the top, up. */
    guint top = 0;
    for (guint v = 0; v < nv; v++) {
        top = MAX(top, weft_topo_vertex_tier(topo, (gint)v));
    }
    for (guint v = 0; v < nv; v++) {
        guint t = weft_topo_vertex_tier(topo, (gint)v);
        weft_vertex_kind_t k = weft_topo_vertex_kind(topo, (gint)v);
        if (t > 0 && k != WEFT_VERTEX_SWITCH) {
            finding(&f, "%s %s has tier %u; only switches have tiers",
                    weft_topo_vertex_kind_name(k), VNAME((gint)v), t);
        }
    }
    end_kind(&f, "tiered non-switches");
    g_autoptr(GPtrArray) out_edges = out_edge_lists(topo);
    for (guint v = 0; v < nv; v++) {
        guint t = weft_topo_vertex_tier(topo, (gint)v);
        if (t == 0) {
            continue;
        }
        gboolean down = FALSE, up = FALSE;
        const GArray *oe = g_ptr_array_index(out_edges, v);
        for (guint i = 0; i < oe->len; i++) {
            guint tu =
                weft_topo_vertex_tier(topo, weft_topo_edge_to(topo, g_array_index(oe, gint, i)));
            down = down || tu < t;
            up = up || tu > t;
        }
        if (!down) {
            finding(&f, "tier-%u switch %s has no link down (to a lower tier or an endpoint)", t,
                    VNAME((gint)v));
        }
        if (!up && t < top) {
            finding(&f, "tier-%u switch %s has no link up (to tier %u or above)", t, VNAME((gint)v),
                    t + 1);
        }
    }
    end_kind(&f, "tiered switches without a link down or up");
#undef VNAME
    return f.total == 0;
}
