/* SPDX-License-Identifier: MIT */
/*
 * Member layouts: where a communicator's members sit in the cluster, as the
 * plan builders need it (coll.h, weft_coll_layout_t): layout domains (the
 * NVLink domains of the members, in order of first member), each domain's
 * members sorted by rail, the NVLS chips of every domain and the SHARP switch
 * of every rail; and the ring orders built from them (NCCL's ring search on
 * NVSwitch systems: a node's GPUs consecutively, rotated so that a ring leaves
 * a node and enters the next on the same rail).
 */
#define G_LOG_DOMAIN "weft-coll"

#include "coll/coll.h"

#include <string.h>

#include "coll/coll_private.h"
#include "hw/hw.h"
#include "topo/topo.h"

/* The common part: per-member arrays and domain lists from domain[] and rail[]. */
static void
fill_domains(weft_coll_layout_t *L)
{
    guint n = L->n_members;
    L->dom = g_new(guint, n);
    L->local = g_new(guint, n);
    g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint m = 0; m < n; m++) {
        /* domain -1 (no NVLink domain): a domain of its own */
        gpointer key = GINT_TO_POINTER(L->domain[m] >= 0 ? L->domain[m] : -(gint)m - 2);
        gpointer d = NULL;
        if (!g_hash_table_lookup_extended(seen, key, NULL, &d)) {
            d = GUINT_TO_POINTER(L->n_domains++);
            g_hash_table_insert(seen, key, d);
        }
        L->dom[m] = GPOINTER_TO_UINT(d);
    }
    guint D = L->n_domains;
    L->dom_off = g_new0(guint, D + 1);
    for (guint m = 0; m < n; m++) {
        L->dom_off[L->dom[m] + 1]++;
    }
    L->max_per_domain = 0;
    for (guint d = 0; d < D; d++) {
        L->max_per_domain = MAX(L->max_per_domain, L->dom_off[d + 1]);
        L->dom_off[d + 1] += L->dom_off[d];
    }
    L->uniform = TRUE;
    for (guint d = 0; d < D; d++) {
        L->uniform = L->uniform && L->dom_off[d + 1] - L->dom_off[d] == L->max_per_domain;
    }
    L->dom_members = g_new(guint, MAX(n, 1));
    g_autofree guint *fill = g_memdup2(L->dom_off, sizeof(guint) * (D + 1));
    for (guint m = 0; m < n; m++) {
        L->dom_members[fill[L->dom[m]]++] = m;
    }
    /* Sort each domain by (rail, member), rail -1 last: insertion sort, domains are small. */
    for (guint d = 0; d < D; d++) {
        guint *a = L->dom_members + L->dom_off[d];
        guint g = L->dom_off[d + 1] - L->dom_off[d];
        for (guint i = 1; i < g; i++) {
            guint x = a[i];
            guint rx = (guint)L->rail[x]; /* -1 sorts last as G_MAXUINT */
            guint j = i;
            while (j > 0 && ((guint)L->rail[a[j - 1]] > rx ||
                             ((guint)L->rail[a[j - 1]] == rx && a[j - 1] > x))) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        for (guint i = 0; i < g; i++) {
            L->local[a[i]] = i;
        }
    }
    L->nvls_off = g_new0(guint, D + 1);
}

weft_coll_layout_t *
weft_coll_layout_new_flat(guint n)
{
    g_return_val_if_fail(n >= 1, NULL);
    weft_coll_layout_t *L = g_new0(weft_coll_layout_t, 1);
    L->n_members = n;
    L->vertex = g_new(gint, n);
    L->domain = g_new(gint, n);
    L->host = g_new(gint, n);
    L->rail = g_new(gint, n);
    for (guint m = 0; m < n; m++) {
        L->vertex[m] = -1;
        L->domain[m] = (gint)m;
        L->host[m] = -1;
        L->rail[m] = -1;
    }
    fill_domains(L);
    return L;
}

weft_coll_layout_t *
weft_coll_layout_new_blocks(guint n, guint g)
{
    g_return_val_if_fail(n >= 1 && g >= 1 && n % g == 0, NULL);
    weft_coll_layout_t *L = g_new0(weft_coll_layout_t, 1);
    L->n_members = n;
    L->vertex = g_new(gint, n);
    L->domain = g_new(gint, n);
    L->host = g_new(gint, n);
    L->rail = g_new(gint, n);
    for (guint m = 0; m < n; m++) {
        L->vertex[m] = -1;
        L->domain[m] = (gint)(m / g);
        L->host[m] = -1;
        L->rail[m] = -1;
    }
    fill_domains(L);
    L->aligned = TRUE;
    return L;
}

/* NVLS chips of every layout domain (see coll.h); sets L->nvls. */
static void
find_nvls(weft_coll_layout_t *L, weft_fabric_t *fabric)
{
    const weft_topo_t *topo = weft_fabric_topo(fabric);
    guint D = L->n_domains;
    /* cluster domain -> its NVLS chips, in vertex order */
    g_autoptr(GHashTable) chips =
        g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref);
    guint nv = weft_topo_n_vertices(topo);
    for (guint v = 0; v < nv; v++) {
        if (weft_topo_vertex_kind(topo, (gint)v) != WEFT_VERTEX_NVSWITCH ||
            !(weft_topo_vertex_features(topo, (gint)v) & WEFT_TOPO_FEATURE_NVLS)) {
            continue;
        }
        gint cd = weft_topo_vertex_domain(topo, (gint)v);
        GArray *a = g_hash_table_lookup(chips, GINT_TO_POINTER(cd));
        if (a == NULL) {
            a = g_array_new(FALSE, FALSE, sizeof(gint));
            g_hash_table_insert(chips, GINT_TO_POINTER(cd), a);
        }
        gint vv = (gint)v;
        g_array_append_val(a, vv);
    }
    GArray *sw = g_array_new(FALSE, FALSE, sizeof(gint));
    GArray *wt = g_array_new(FALSE, FALSE, sizeof(double));
    gboolean ok = D > 0;
    for (guint d = 0; d < D && ok; d++) {
        guint first = L->dom_members[L->dom_off[d]];
        GArray *a = L->domain[first] >= 0
                        ? g_hash_table_lookup(chips, GINT_TO_POINTER(L->domain[first]))
                        : NULL;
        ok = a != NULL;
        for (guint i = 0; ok && i < a->len; i++) {
            gint chip = g_array_index(a, gint, i);
            /* Every member must reach the chip over its own NVLink links, in one hop. */
            for (guint k = L->dom_off[d]; ok && k < L->dom_off[d + 1]; k++) {
                const weft_route_t *r =
                    weft_fabric_route(fabric, L->vertex[L->dom_members[k]], chip, NULL);
                ok = r != NULL && r->hops == 1;
            }
            if (ok) {
                const weft_route_t *r = weft_fabric_route(fabric, L->vertex[first], chip, NULL);
                g_array_append_val(sw, chip);
                g_array_append_val(wt, r->rate_Bps);
            }
        }
        L->nvls_off[d + 1] = sw->len;
    }
    L->nvls = ok;
    if (!ok) {
        memset(L->nvls_off, 0, sizeof(guint) * (D + 1));
        g_array_set_size(sw, 0);
        g_array_set_size(wt, 0);
    }
    L->nvls_switch = (gint *)(void *)g_array_free(sw, FALSE);
    L->nvls_weight = (double *)(void *)g_array_free(wt, FALSE);
}

/* The switch of highest tier (first found) on the first path of a route, or -1. */
static gint
top_switch(const weft_topo_t *topo, const weft_route_t *r, guint *tier)
{
    gint best = -1;
    *tier = 0;
    if (r == NULL || r->n_paths == 0) {
        return -1;
    }
    for (guint32 k = r->path_off[0]; k < r->path_off[1]; k++) {
        gint v = weft_topo_edge_to(topo, r->edges[k]);
        if (weft_topo_vertex_kind(topo, v) == WEFT_VERTEX_SWITCH &&
            weft_topo_vertex_tier(topo, v) > *tier) {
            *tier = weft_topo_vertex_tier(topo, v);
            best = v;
        }
    }
    return best;
}

/* SHARP switch per position (see coll.h); sets L->collnet. */
static void
find_collnet(weft_coll_layout_t *L, weft_fabric_t *fabric)
{
    const weft_topo_t *topo = weft_fabric_topo(fabric);
    guint D = L->n_domains;
    guint g = L->max_per_domain;
    if (D < 2 || !L->uniform) {
        return;
    }
    /* No SHARP switch anywhere, no CollNet: skip the D x g routes (on an ASTRA-sim ring of
     * N NPUs, every NPU its own domain, N routes across the cluster). O(vertices). */
    gboolean any_sharp = FALSE;
    for (guint v = 0; v < weft_topo_n_vertices(topo) && !any_sharp; v++) {
        any_sharp = weft_topo_vertex_kind(topo, (gint)v) == WEFT_VERTEX_SWITCH &&
                    (weft_topo_vertex_features(topo, (gint)v) & WEFT_TOPO_FEATURE_SHARP);
    }
    if (!any_sharp) {
        return;
    }
    gint *sw = g_new(gint, g);
    gboolean ok = TRUE;
    for (guint j = 0; j < g && ok; j++) {
        gint from = L->vertex[L->dom_members[L->dom_off[0] + j]];
        guint best_tier = 0;
        sw[j] = -1;
        for (guint d = 1; d < D; d++) {
            gint to = L->vertex[L->dom_members[L->dom_off[d] + j]];
            guint tier;
            gint s = top_switch(topo, weft_fabric_route(fabric, from, to, NULL), &tier);
            if (s >= 0 && tier > best_tier) {
                best_tier = tier;
                sw[j] = s;
            }
        }
        ok = sw[j] >= 0 && (weft_topo_vertex_features(topo, sw[j]) & WEFT_TOPO_FEATURE_SHARP);
    }
    if (!ok) {
        g_free(sw);
        return;
    }
    L->collnet = TRUE;
    L->collnet_switch = sw;
    /* The SHARP leaves: the first SHARP switch on each member's route to its root. */
    L->collnet_leaf = g_new(gint, L->n_members);
    for (guint m = 0; m < L->n_members; m++) {
        gint root = sw[L->local[m]];
        const weft_route_t *r = weft_fabric_route(fabric, L->vertex[m], root, NULL);
        L->collnet_leaf[m] = -1;
        for (guint32 k = 0; r != NULL && r->n_paths > 0 && k < r->path_off[1]; k++) {
            gint v = weft_topo_edge_to(topo, r->edges[k]);
            if (weft_topo_vertex_kind(topo, v) == WEFT_VERTEX_SWITCH &&
                (weft_topo_vertex_features(topo, v) & WEFT_TOPO_FEATURE_SHARP)) {
                L->collnet_leaf[m] = v == root ? -1 : v;
                break;
            }
        }
    }
    /* A leaf that aggregates one member only forwards: the member goes to the root. */
    g_autoptr(GHashTable) count = g_hash_table_new(g_int64_hash, g_int64_equal);
    g_autofree gint64 *keys = g_new(gint64, MAX(L->n_members, 1));
    for (guint m = 0; m < L->n_members; m++) {
        keys[m] = ((gint64)L->local[m] << 32) | (guint32)L->collnet_leaf[m];
        gpointer n = g_hash_table_lookup(count, &keys[m]);
        g_hash_table_insert(count, &keys[m], GUINT_TO_POINTER(GPOINTER_TO_UINT(n) + 1));
    }
    for (guint m = 0; m < L->n_members; m++) {
        if (L->collnet_leaf[m] >= 0 && GPOINTER_TO_UINT(g_hash_table_lookup(count, &keys[m])) < 2) {
            L->collnet_leaf[m] = -1;
        }
    }
}

weft_coll_layout_t *
weft_coll_layout_new(weft_fabric_t *fabric, const gint *member_vertex, guint n)
{
    g_return_val_if_fail(fabric != NULL, NULL);
    const weft_topo_t *topo = weft_fabric_topo(fabric);
    g_return_val_if_fail(member_vertex != NULL, NULL);
    g_return_val_if_fail(n >= 1, NULL);
    weft_coll_layout_t *L = g_new0(weft_coll_layout_t, 1);
    L->n_members = n;
    L->vertex = g_memdup2(member_vertex, sizeof(gint) * n);
    L->domain = g_new(gint, n);
    L->host = g_new(gint, n);
    L->rail = g_new(gint, n);
    for (guint m = 0; m < n; m++) {
        L->domain[m] = weft_topo_vertex_domain(topo, member_vertex[m]);
        L->host[m] = weft_topo_vertex_host(topo, member_vertex[m]);
        L->rail[m] = weft_topo_vertex_rail(topo, member_vertex[m]);
    }
    fill_domains(L);
    find_nvls(L, fabric);
    find_collnet(L, fabric);
    /* the slowest member's streaming HBM bandwidth, 0 when any member has no GPU model */
    for (guint m = 0; m < n; m++) {
        const weft_hw_gpu_t *g = weft_topo_vertex_gpu_model(topo, member_vertex[m]);
        double s = g != NULL ? g->hbm_stream_Bps : 0.0;
        L->hbm_stream_Bps = m == 0 ? s : MIN(L->hbm_stream_Bps, s);
    }
    return L;
}

void
weft_coll_layout_free(weft_coll_layout_t *layout)
{
    if (layout == NULL) {
        return;
    }
    g_free(layout->vertex);
    g_free(layout->domain);
    g_free(layout->host);
    g_free(layout->rail);
    g_free(layout->dom);
    g_free(layout->local);
    g_free(layout->dom_off);
    g_free(layout->dom_members);
    g_free(layout->nvls_off);
    g_free(layout->nvls_switch);
    g_free(layout->nvls_weight);
    g_free(layout->collnet_switch);
    g_free(layout->collnet_leaf);
    g_free(layout);
}

/* ---- ring orders ------------------------------------------------------------------------ */

void
weft_coll_i_domain_order(const weft_coll_layout_t *layout, guint d, guint start, guint32 *order)
{
    const guint *a = layout->dom_members + layout->dom_off[d];
    guint g = layout->dom_off[d + 1] - layout->dom_off[d];
    for (guint j = 0; j < g; j++) {
        order[j] = a[(start + j) % g];
    }
}

/*
 * Domain d of channel ch starts at position (ch - d) mod g: the ring leaves
 * domain d from position (ch - d - 1) mod g and enters domain d + 1 at the
 * same position, the same rail on a rail-sorted domain (the wrap from the last
 * domain to the first is aligned when g divides the domain count).
 */
guint
weft_coll_i_ring_start(const weft_coll_layout_t *layout, guint d, guint ch)
{
    guint g = layout->dom_off[d + 1] - layout->dom_off[d];
    if (layout->aligned) {
        return ch % g;
    }
    return (ch % g + g - d % g) % g;
}

void
weft_coll_i_ring_order(const weft_coll_layout_t *layout, guint ch, guint32 *order)
{
    for (guint d = 0; d < layout->n_domains; d++) {
        weft_coll_i_domain_order(layout, d, weft_coll_i_ring_start(layout, d, ch),
                                 order + layout->dom_off[d]);
    }
}
