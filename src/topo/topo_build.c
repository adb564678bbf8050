/* SPDX-License-Identifier: MIT */
/*
 * Cluster builders: the named kinds of weft's INI cluster files.
 *
 *  - generic: switch, ring, fully-connected, torus (bare GPUs linked directly
 *    or through one switch);
 *  - scale-out fabrics of bare GPUs: leaf-spine, fat-tree (Al-Fares et al. 2008),
 *    dragonfly (Kim et al. 2008);
 *  - nodes: dgx-a100, dgx-h100, dgx-b200, gb200-nvl72 (or another GPU of the same
 *    NVLink generation in the chassis, `gpu`), optionally N of them with one NIC per
 *    GPU, or fewer NICs shared by GPUs behind PCIe switches (`nics_per_node`), on a
 *    scale-out fabric (rail-optimized as in the DGX SuperPOD reference architectures,
 *    plain leaf-spine, or fat-tree).
 *
 * Every link rate comes from the hardware catalog (hw/hw.h): NVLink per-link
 * rate and link count of the GPU, NVSwitch port count, NIC port rate, PCIe x16
 * rate; so do a NIC's one-way latency (on the PCIe link that reaches it, see
 * nic_path_latency()) and its per-message cost (on its vertex). What the
 * catalog does not hold (how many NVSwitch chips a system has, how a GPU's
 * links spread over them, which GPUs share a PCIe switch, switch radixes) is
 * written here with its source. Each kind's keys are weft_key_t rows
 * (core/keyfile.h) over its family's parameter struct (bare_params, node_params),
 * in the table of kinds at the end; the reader (topo_ini.c) checks and stores
 * them, and a builder reads struct fields, deriving only the defaults and ranges
 * that depend on other keys. Builders use the public topo API only; the caller
 * finalizes. doc/clusters.md describes the keys.
 *
 * Complexity: O(V + E) for every kind, plus O(leaves x spines + spines x cores)
 * for the lane tables of the scale-out tiers.
 */
#define G_LOG_DOMAIN "weft-topo"

#include "topo/topo_build.h"

#include "core/keyfile.h"

#include <math.h>
#include <string.h>

#include "hw/hw.h"

#define MAX_GPUS (1u << 20)

/* ---- small helpers ------------------------------------------------------------- */

static gint add_vertex(weft_topo_t *topo, weft_vertex_kind_t kind, gint host, gint rail,
                       GError **error, const char *fmt, ...) G_GNUC_PRINTF(6, 7);

static gint
add_vertex(weft_topo_t *topo, weft_vertex_kind_t kind, gint host, gint rail, GError **error,
           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *name = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    return weft_topo_add_vertex(topo, kind, name, host, rail, error);
}

static gboolean
add_link(weft_topo_t *topo, gint u, gint v, weft_link_kind_t kind, double bw_Bps,
         weft_time_t lat_ps, guint lanes, GError **error)
{
    return weft_topo_add_link(topo, u, v, kind, lanes * bw_Bps, lat_ps, lanes, error) >= 0;
}

/* Sets WEFT_TOPO_ERROR_KEY if @key is present: it does not apply to this configuration. */
static gboolean
key_absent(const weft_topo_i_ini_t *c, const char *key, const char *why, GError **error)
{
    if (g_key_file_has_key(c->kf, c->group, key, NULL)) {
        g_autofree char *v = weft_topo_i_ini_text(c, key, FALSE, NULL);
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY, "%s: %s.%s = \"%s\": %s",
                    c->origin, c->group, key, v, why);
        return FALSE;
    }
    return TRUE;
}

static guint
ceil_div(guint64 a, guint64 b)
{
    return (guint)((a + b - 1) / b);
}

/* ---- the parameters of the bare-GPU kinds ---------------------------------------- */

#define TORUS_MAX_DIMS 3

/* The largest k of a fat-tree: k^3/4 = 524,288 endpoints at k = 128. */
#define FAT_TREE_MAX_K 128

/*
 * Switch, ring, fully-connected, torus, leaf-spine, fat-tree and dragonfly: bare
 * GPUs and switches whose links all have the rates and latencies of the file
 * (the rows are under "the table of kinds" below).
 */
typedef struct {
    weft_topo_i_params_t common;
    guint64 gpus;
    double fat_tree_gpus; /* range 1..k^3/4: checked by the builder */
    gboolean fat_tree_gpus_given;
    const char *dims; /* torus: the text, for messages */
    guint dim[TORUS_MAX_DIMS];
    guint n_dims;
    guint64 k;
    guint64 switch_radix;
    guint64 gpus_per_leaf;
    gboolean gpus_per_leaf_given;
    const char *oversubscription; /* the text, for messages */
    double over_down, over_up;
    guint64 groups, routers_per_group, gpus_per_router, global_links_per_router;
    double bw_Bps;
    weft_time_t lat_ps;
    double global_bw_Bps;
    gboolean global_bw_given;
    weft_time_t global_lat_ps;
    gboolean global_lat_given;
} bare_params;

/* .apply of oversubscription, in the bare-GPU and the node parameters */
static gboolean
apply_bare_ratio(void *obj, const char *text, GError **error)
{
    bare_params *p = obj;
    return weft_topo_i_parse_ratio(text, &p->over_down, &p->over_up, error);
}

static gboolean
apply_dims(void *obj, const char *text, GError **error)
{
    bare_params *p = obj;
    return weft_topo_i_parse_dims(text, TORUS_MAX_DIMS, p->dim, &p->n_dims, error);
}

/* ---- generic kinds: switch, ring, fully-connected ------------------------------ */

/* Adds @n bare GPUs "gpu0".."gpuN-1" (no host, no rail); their vertex ids are first + i. */
static gint
add_bare_gpus(weft_topo_t *topo, guint n, GError **error)
{
    gint first = -1;
    for (guint i = 0; i < n; i++) {
        gint v = add_vertex(topo, WEFT_VERTEX_GPU, -1, -1, error, "gpu%u", i);
        if (v < 0) {
            return -1;
        }
        if (i == 0) {
            first = v;
        }
    }
    return first;
}

static gboolean
build_switch(const weft_topo_i_ini_t *c, const void *params, weft_topo_t *topo, GError **error)
{
    const bare_params *p = params;
    guint gpus = (guint)p->gpus;
    gint g0 = add_bare_gpus(topo, gpus, error);
    if (g0 < 0) {
        return FALSE;
    }
    gint sw = add_vertex(topo, WEFT_VERTEX_SWITCH, -1, -1, error, "switch0");
    if (sw < 0) {
        return FALSE;
    }
    for (guint i = 0; i < gpus; i++) {
        if (!add_link(topo, g0 + (gint)i, sw, WEFT_LINK_GENERIC, p->bw_Bps, p->lat_ps, 1, error)) {
            return FALSE;
        }
    }
    return TRUE;
}

static gboolean
build_ring(const weft_topo_i_ini_t *c, const void *params, weft_topo_t *topo, GError **error)
{
    const bare_params *p = params;
    guint gpus = (guint)p->gpus;
    gint g0 = add_bare_gpus(topo, gpus, error);
    if (g0 < 0) {
        return FALSE;
    }
    /* GPU i <-> GPU i+1 mod N; with N = 2 the two neighbours are the same link. */
    guint n_links = gpus == 1 ? 0 : (gpus == 2 ? 1 : gpus);
    for (guint i = 0; i < n_links; i++) {
        if (!add_link(topo, g0 + (gint)i, g0 + (gint)((i + 1) % gpus), WEFT_LINK_GENERIC, p->bw_Bps,
                      p->lat_ps, 1, error)) {
            return FALSE;
        }
    }
    return TRUE;
}

/* A full mesh of N(N-1)/2 links; capped so the edge arrays stay reasonable
 * (WEFT_TOPO_MAX_CLIQUE, the same limit as an ASTRA-sim FullyConnected dimension). */
#define MAX_FULLY_CONNECTED WEFT_TOPO_MAX_CLIQUE

static gboolean
build_fully_connected(const weft_topo_i_ini_t *c, const void *params, weft_topo_t *topo,
                      GError **error)
{
    const bare_params *p = params;
    guint gpus = (guint)p->gpus;
    if (gpus > MAX_FULLY_CONNECTED) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s.gpus = %u: a fully-connected cluster holds at most %u GPUs", c->origin,
                    c->group, gpus, MAX_FULLY_CONNECTED);
        return FALSE;
    }
    gint g0 = add_bare_gpus(topo, gpus, error);
    if (g0 < 0) {
        return FALSE;
    }
    for (guint i = 0; i < gpus; i++) {
        for (guint j = i + 1; j < gpus; j++) {
            if (!add_link(topo, g0 + (gint)i, g0 + (gint)j, WEFT_LINK_GENERIC, p->bw_Bps, p->lat_ps,
                          1, error)) {
                return FALSE;
            }
        }
    }
    return TRUE;
}

/* ---- torus ----------------------------------------------------------------------- */

/*
 * GPU i has coordinates (x0, x1, x2) with i = x0 + n0*x1 + n0*n1*x2 and a link
 * to its +1 neighbour (with wraparound) in every dimension of size >= 3; in a
 * dimension of size 2 the +1 and -1 neighbours coincide and there is one link
 * per pair; size 1 adds none. Links: sum over dimensions of N (size >= 3),
 * N/2 (size 2) or 0.
 */
static gboolean
build_torus(const weft_topo_i_ini_t *c, const void *params, weft_topo_t *topo, GError **error)
{
    const bare_params *p = params;
    const guint *dims = p->dim;
    guint nd = p->n_dims;
    double bw = p->bw_Bps;
    weft_time_t lat = p->lat_ps;
    guint64 n = 1;
    for (guint d = 0; d < nd; d++) {
        n *= dims[d];
        if (n > MAX_GPUS) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: %s.dims = \"%s\": more than %u GPUs", c->origin, c->group, p->dims,
                        MAX_GPUS);
            return FALSE;
        }
    }
    gint g0 = add_bare_gpus(topo, (guint)n, error);
    if (g0 < 0) {
        return FALSE;
    }
    guint stride = 1;
    for (guint d = 0; d < nd; d++) {
        guint size = dims[d];
        for (guint i = 0; i < n && size >= 2; i++) {
            guint x = (i / stride) % size;
            if (size == 2 && x == 1) {
                continue; /* the pair's link was added from x = 0 */
            }
            guint j = i - x * stride + ((x + 1) % size) * stride;
            if (!add_link(topo, g0 + (gint)i, g0 + (gint)j, WEFT_LINK_GENERIC, bw, lat, 1, error)) {
                return FALSE;
            }
        }
        stride *= size;
    }
    return TRUE;
}

/* ---- dragonfly ---------------------------------------------------------------------- */

/*
 * Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly
 * Topology", ISCA 2008: g groups of a routers; the routers of a group are fully
 * connected by local links; each router has p terminals and h global links, and
 * every pair of groups is joined by the same number m = a*h / (g - 1) of global
 * links (so g - 1 must divide a*h; g <= a*h + 1, the largest, balanced network,
 * has m = 1).
 *
 * Global ports of group i are numbered k = 0..a*h-1, port k on router k / h.
 * Port k = c*(g-1) + (d-1) (copy c, offset d = 1..g-1) goes to group
 * j = (i + d) mod g, arriving at that group's port c*(g-1) + (g-d-1) (offset
 * g - d back to i). Each link is added once, from the lower group number.
 */
static gboolean
build_dragonfly(const weft_topo_i_ini_t *c, const void *params, weft_topo_t *topo, GError **error)
{
    const bare_params *pp = params;
    guint g = (guint)pp->groups, a = (guint)pp->routers_per_group, p = (guint)pp->gpus_per_router,
          h = (guint)pp->global_links_per_router;
    double bw = pp->bw_Bps, gbw = pp->global_bw_given ? pp->global_bw_Bps : bw;
    weft_time_t lat = pp->lat_ps, glat = pp->global_lat_given ? pp->global_lat_ps : lat;
    guint ah = a * h;
    if (g > ah + 1) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s.groups = %u: at most routers_per_group x global_links_per_router + 1 "
                    "= %u groups can be joined pairwise",
                    c->origin, c->group, g, ah + 1);
        return FALSE;
    }
    if (ah % (g - 1) != 0) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s.groups = %u: groups - 1 = %u must divide routers_per_group x "
                    "global_links_per_router = %u so every pair of groups gets as many global "
                    "links",
                    c->origin, c->group, g, g - 1, ah);
        return FALSE;
    }
    if ((guint64)g * a * p > MAX_GPUS) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: [%s]: %u groups x %u routers x %u GPUs is more than %u GPUs", c->origin,
                    c->group, g, a, p, MAX_GPUS);
        return FALSE;
    }
    gint g0 = add_bare_gpus(topo, g * a * p, error);
    if (g0 < 0) {
        return FALSE;
    }
    g_autofree gint *router = g_new(gint, (gsize)g * a);
    for (guint i = 0; i < g; i++) {
        for (guint r = 0; r < a; r++) {
            router[i * a + r] =
                add_vertex(topo, WEFT_VERTEX_SWITCH, -1, -1, error, "group%u/router%u", i, r);
            if (router[i * a + r] < 0) {
                return FALSE;
            }
        }
    }
    for (guint i = 0; i < g * a; i++) {
        for (guint t = 0; t < p; t++) {
            if (!add_link(topo, g0 + (gint)(i * p + t), router[i], WEFT_LINK_GENERIC, bw, lat, 1,
                          error)) {
                return FALSE;
            }
        }
    }
    for (guint i = 0; i < g; i++) {
        for (guint r = 0; r < a; r++) {
            for (guint s = r + 1; s < a; s++) {
                if (!add_link(topo, router[i * a + r], router[i * a + s], WEFT_LINK_GENERIC, bw,
                              lat, 1, error)) {
                    return FALSE;
                }
            }
        }
    }
    /* Global links, lanes summed per router pair (m > 1 may put two on one pair). */
    g_autoptr(GHashTable) index = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) counts = g_array_new(FALSE, TRUE, sizeof(guint));
    for (guint i = 0; i < g; i++) {
        for (guint k = 0; k < ah; k++) {
            guint copy = k / (g - 1), d = k % (g - 1) + 1;
            guint j = (i + d) % g;
            if (j < i) {
                continue;
            }
            guint kj = copy * (g - 1) + (g - d - 1);
            gint64 key = (gint64)(i * a + k / h) << 32 | (gint64)(j * a + kj / h);
            gpointer q = NULL;
            if (g_hash_table_lookup_extended(index, &key, NULL, &q)) {
                g_array_index(counts, guint, GPOINTER_TO_UINT(q))++;
            } else {
                guint one = 1;
                g_hash_table_insert(index, g_memdup2(&key, sizeof key),
                                    GUINT_TO_POINTER(pairs->len));
                g_array_append_val(pairs, key);
                g_array_append_val(counts, one);
            }
        }
    }
    for (guint q = 0; q < pairs->len; q++) {
        gint64 key = g_array_index(pairs, gint64, q);
        gint u = router[key >> 32], v = router[key & 0xffffffff];
        if (!add_link(topo, u, v, WEFT_LINK_GENERIC, gbw, glat, g_array_index(counts, guint, q),
                      error)) {
            return FALSE;
        }
    }
    return TRUE;
}

/* ---- scale-out tiers ------------------------------------------------------------ */

/* How the switches of a scale-out fabric are linked. */
typedef struct {
    guint radix;           /* ports per switch */
    double bw_Bps;         /* per port, per direction */
    weft_link_kind_t kind; /* INFINIBAND, ETHERNET or GENERIC */
    weft_time_t lat_ps;    /* per link */
} tier_link;

/* Adds lanes of @lanes[0..n) from @u to @targets[s]. */
static gboolean
link_lanes(weft_topo_t *topo, gint u, const gint *targets, const guint *lanes, guint n,
           const tier_link *t, GError **error)
{
    for (guint s = 0; s < n; s++) {
        if (lanes[s] > 0 &&
            !add_link(topo, u, targets[s], t->kind, t->bw_Bps, t->lat_ps, lanes[s], error)) {
            return FALSE;
        }
    }
    return TRUE;
}

/*
 * Spines (tier 2) and, when needed, cores (tier 3) above @n_leaves leaves with
 * @up uplinks each, all switches of radix P.
 *
 * Two tiers when the leaves fit under one spine (n_leaves <= P): S =
 * ceil(n_leaves x up / P) spines, uplink j of leaf l to spine (l*up + j) mod S,
 * so every leaf reaches every spine (up >= S) and no spine has more than P ports.
 * One leaf needs no spine.
 *
 * Three tiers otherwise, as the DGX SuperPOD reference architectures grow past
 * one spine's radix: the leaves, listed in @leaves as consecutive alignment
 * groups of @group_size (one group per rail for a rail-optimized fabric, so rail
 * traffic never climbs to the core), are split into pods of at most P/2 leaves
 * (balanced sizes); a pod of n leaves gets ceil(n x up / (P/2)) spines with P/2
 * ports down and P/2 up; uplink j of the pod's leaf i goes to its spine
 * (i*up + j) mod S_pod. The C = ceil(spines x P/2 / P) cores take spine uplink
 * number u (counted over all spines in order) on core u mod C, so ports are
 * spread evenly and every pod reaches every core as long as its uplinks number
 * at least C; larger fabrics are refused.
 */
static gboolean
build_upper_tiers(const weft_topo_i_ini_t *c, weft_topo_t *topo, const tier_link *t,
                  const gint *leaves, guint n_leaves, guint group_size, guint up, GError **error)
{
    guint P = t->radix;
    if (n_leaves <= 1) {
        return TRUE;
    }
    if (n_leaves <= P) {
        guint S = ceil_div((guint64)n_leaves * up, P);
        g_autofree gint *spine = g_new(gint, S);
        for (guint s = 0; s < S; s++) {
            spine[s] = add_vertex(topo, WEFT_VERTEX_SWITCH, -1, -1, error, "spine%u", s);
            if (spine[s] < 0) {
                return FALSE;
            }
            weft_topo_set_vertex_tier(topo, spine[s], 2);
        }
        g_autofree guint *lanes = g_new(guint, S);
        for (guint l = 0; l < n_leaves; l++) {
            memset(lanes, 0, S * sizeof(guint));
            for (guint j = 0; j < up; j++) {
                lanes[((guint64)l * up + j) % S]++;
            }
            if (!link_lanes(topo, leaves[l], spine, lanes, S, t, error)) {
                return FALSE;
            }
        }
        return TRUE;
    }

    guint half = P / 2;
    g_autoptr(GArray) pod_first = g_array_new(FALSE, FALSE, sizeof(guint)); /* into leaves */
    g_autoptr(GArray) pod_size = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint first = 0; first < n_leaves; first += group_size) {
        guint gsz = MIN(group_size, n_leaves - first);
        guint n_pods = ceil_div(gsz, half);
        guint at = first;
        for (guint q = 0; q < n_pods; q++) {
            guint sz = gsz / n_pods + (q < gsz % n_pods ? 1 : 0);
            g_array_append_val(pod_first, at);
            g_array_append_val(pod_size, sz);
            at += sz;
        }
    }
    guint n_pods = pod_first->len;
    g_autoptr(GArray) spines = g_array_new(FALSE, FALSE, sizeof(gint));
    g_autoptr(GArray) spine_pod = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint q = 0; q < n_pods; q++) {
        guint n = g_array_index(pod_size, guint, q);
        guint S = ceil_div((guint64)n * up, half);
        guint s0 = spines->len;
        for (guint s = 0; s < S; s++) {
            gint v = add_vertex(topo, WEFT_VERTEX_SWITCH, -1, -1, error, "pod%u/spine%u", q, s);
            if (v < 0) {
                return FALSE;
            }
            weft_topo_set_vertex_tier(topo, v, 2);
            g_array_append_val(spines, v);
            g_array_append_val(spine_pod, q);
        }
        g_autofree guint *lanes = g_new(guint, S);
        for (guint i = 0; i < n; i++) {
            memset(lanes, 0, S * sizeof(guint));
            for (guint j = 0; j < up; j++) {
                lanes[((guint64)i * up + j) % S]++;
            }
            gint leaf = leaves[g_array_index(pod_first, guint, q) + i];
            if (!link_lanes(topo, leaf, &g_array_index(spines, gint, s0), lanes, S, t, error)) {
                return FALSE;
            }
        }
    }
    guint n_spines = spines->len;
    guint C = ceil_div((guint64)n_spines * half, P);
    for (guint q = 0; q < n_pods; q++) {
        guint S = ceil_div((guint64)g_array_index(pod_size, guint, q) * up, half);
        if ((guint64)S * half < C) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: [%s]: %u leaves need %u cores of radix %u, more than the %u spine "
                        "uplinks of one pod reach: more than a three-tier fabric of this radix "
                        "holds",
                        c->origin, c->group, n_leaves, C, P, S * half);
            return FALSE;
        }
    }
    g_autofree gint *core = g_new(gint, C);
    for (guint k = 0; k < C; k++) {
        core[k] = add_vertex(topo, WEFT_VERTEX_SWITCH, -1, -1, error, "core%u", k);
        if (core[k] < 0) {
            return FALSE;
        }
        weft_topo_set_vertex_tier(topo, core[k], 3);
    }
    g_autofree guint *lanes = g_new(guint, C);
    for (guint s = 0; s < n_spines; s++) {
        memset(lanes, 0, C * sizeof(guint));
        for (guint j = 0; j < half; j++) {
            lanes[((guint64)s * half + j) % C]++;
        }
        if (!link_lanes(topo, g_array_index(spines, gint, s), core, lanes, C, t, error)) {
            return FALSE;
        }
    }
    return TRUE;
}

/*
 * Uplinks of a leaf with @down ports towards the endpoints under a down:up
 * oversubscription: ceil(down x up / down_ratio); the leaf needs down + uplinks
 * ports. @what names the key that set @down.
 */
static gboolean
leaf_uplinks(const weft_topo_i_ini_t *c, guint radix, guint down, double over_down, double over_up,
             const char *what, guint *up, GError **error)
{
    double u = ceil(down * over_up / over_down - 1e-9);
    if (u < 1.0) {
        u = 1.0;
    }
    if (down + u > radix) {
        g_autofree char *ov = weft_topo_i_ini_text(c, "oversubscription", FALSE, NULL);
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: [%s]: %s gives %u leaf ports down and, at oversubscription %s, %.0f up: "
                    "more than switch_radix = %u ports",
                    c->origin, c->group, what, down, ov != NULL ? ov : "1:1", u, radix);
        return FALSE;
    }
    *up = (guint)u;
    return TRUE;
}

/* The endpoints a fabric attaches: vertex ids in order, grouped in units (nodes). */
typedef struct {
    const gint *ep; /* NIC (or bare GPU) vertex ids, unit-major */
    guint n_ep;
    guint per_unit;   /* endpoints per unit (node); for bare GPUs 1 */
    guint per_host;   /* endpoints per host = rails (rail = index within host) */
    const char *unit; /* "node", "GPU" for messages */
} endpoints;

/*
 * Rail-optimized leaf/spine(/core): see doc/clusters.md and the node builder.
 * @per_su_given: nodes_per_su from the file, or NULL for the most a leaf holds.
 */
static gboolean
build_rail_optimized(const weft_topo_i_ini_t *c, weft_topo_t *topo, const tier_link *t,
                     const endpoints *e, const guint64 *per_su_given, double od, double ou,
                     GError **error)
{
    guint rails = e->per_host, hosts_per_unit = e->per_unit / e->per_host;
    guint n_units = e->n_ep / e->per_unit;
    guint dflt = (guint)floor(t->radix * od / (od + ou) / hosts_per_unit + 1e-9);
    guint per_su = per_su_given != NULL ? (guint)*per_su_given : dflt;
    if (per_su == 0) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: [%s]: switch_radix = %u leaves no leaf port for one %s's NICs of a rail",
                    c->origin, c->group, t->radix, e->unit);
        return FALSE;
    }
    guint down = per_su * hosts_per_unit, up = 0;
    if (!leaf_uplinks(c, t->radix, down, od, ou, "nodes_per_su", &up, error)) {
        return FALSE;
    }
    guint n_su = ceil_div(n_units, per_su);
    g_autofree gint *leaf = g_new(gint, (gsize)n_su * rails); /* rail-major */
    for (guint s = 0; s < n_su; s++) {
        for (guint r = 0; r < rails; r++) {
            gint v = add_vertex(topo, WEFT_VERTEX_SWITCH, -1, (gint)r, error, "su%u/leaf%u", s, r);
            if (v < 0) {
                return FALSE;
            }
            weft_topo_set_vertex_tier(topo, v, 1);
            leaf[r * n_su + s] = v;
        }
    }
    for (guint i = 0; i < e->n_ep; i++) {
        guint s = i / e->per_unit / per_su, r = i % rails;
        if (!add_link(topo, e->ep[i], leaf[r * n_su + s], t->kind, t->bw_Bps, t->lat_ps, 1,
                      error)) {
            return FALSE;
        }
    }
    return build_upper_tiers(c, topo, t, leaf, n_su * rails, n_su, up, error);
}

/*
 * Plain leaf-spine: whole units (nodes) per leaf, leaves in order. @per_leaf_key
 * names the key of @per_leaf_given: its value from the file, or NULL for the most
 * a leaf holds.
 */
static gboolean
build_leaf_spine_fabric(const weft_topo_i_ini_t *c, weft_topo_t *topo, const tier_link *t,
                        const endpoints *e, const char *per_leaf_key, const guint64 *per_leaf_given,
                        double od, double ou, GError **error)
{
    guint n_units = e->n_ep / e->per_unit;
    guint dflt = (guint)floor(t->radix * od / (od + ou) / e->per_unit + 1e-9);
    guint per_leaf = per_leaf_given != NULL ? (guint)*per_leaf_given : dflt;
    if (per_leaf == 0) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: [%s]: switch_radix = %u leaves no leaf port for one %s's %u endpoints",
                    c->origin, c->group, t->radix, e->unit, e->per_unit);
        return FALSE;
    }
    guint down = per_leaf * e->per_unit, up = 0;
    if (!leaf_uplinks(c, t->radix, down, od, ou, per_leaf_key, &up, error)) {
        return FALSE;
    }
    guint n_leaves = ceil_div(n_units, per_leaf);
    g_autofree gint *leaf = g_new(gint, n_leaves);
    for (guint l = 0; l < n_leaves; l++) {
        leaf[l] = add_vertex(topo, WEFT_VERTEX_SWITCH, -1, -1, error, "leaf%u", l);
        if (leaf[l] < 0) {
            return FALSE;
        }
        weft_topo_set_vertex_tier(topo, leaf[l], 1);
    }
    for (guint i = 0; i < e->n_ep; i++) {
        if (!add_link(topo, e->ep[i], leaf[i / e->per_unit / per_leaf], t->kind, t->bw_Bps,
                      t->lat_ps, 1, error)) {
            return FALSE;
        }
    }
    return build_upper_tiers(c, topo, t, leaf, n_leaves, n_leaves, up, error);
}

/*
 * k-ary fat-tree (Al-Fares, Loukissas, Vahdat, "A Scalable, Commodity Data
 * Center Network Architecture", SIGCOMM 2008): k pods of k/2 edge and k/2
 * aggregation switches, (k/2)^2 core switches, all of k ports; edge switch i of
 * pod p takes endpoints (p*k/2 + i)*k/2 ...; every edge switch links to every
 * aggregation switch of its pod; aggregation switch j links to cores
 * j*k/2 .. j*k/2 + k/2 - 1. Endpoints fill the edge switches in order.
 */
static gboolean
build_fat_tree_fabric(const weft_topo_i_ini_t *c, weft_topo_t *topo, guint k, const tier_link *t,
                      const gint *ep, guint n_ep, GError **error)
{
    guint half = k / 2;
    if ((guint64)n_ep > (guint64)k * k * k / 4) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: [%s]: %u endpoints do not fit a fat-tree of k = %u (k^3/4 = %u)",
                    c->origin, c->group, n_ep, k, k * k * k / 4);
        return FALSE;
    }
    g_autofree gint *edge = g_new(gint, (gsize)k * half);
    g_autofree gint *agg = g_new(gint, (gsize)k * half);
    g_autofree gint *core = g_new(gint, (gsize)half * half);
    for (guint p = 0; p < k; p++) {
        for (guint i = 0; i < half; i++) {
            edge[p * half + i] =
                add_vertex(topo, WEFT_VERTEX_SWITCH, -1, -1, error, "pod%u/edge%u", p, i);
            if (edge[p * half + i] < 0) {
                return FALSE;
            }
            weft_topo_set_vertex_tier(topo, edge[p * half + i], 1);
        }
        for (guint j = 0; j < half; j++) {
            agg[p * half + j] =
                add_vertex(topo, WEFT_VERTEX_SWITCH, -1, -1, error, "pod%u/agg%u", p, j);
            if (agg[p * half + j] < 0) {
                return FALSE;
            }
            weft_topo_set_vertex_tier(topo, agg[p * half + j], 2);
        }
    }
    for (guint m = 0; m < half * half; m++) {
        core[m] = add_vertex(topo, WEFT_VERTEX_SWITCH, -1, -1, error, "core%u", m);
        if (core[m] < 0) {
            return FALSE;
        }
        weft_topo_set_vertex_tier(topo, core[m], 3);
    }
    for (guint i = 0; i < n_ep; i++) {
        if (!add_link(topo, ep[i], edge[i / half], t->kind, t->bw_Bps, t->lat_ps, 1, error)) {
            return FALSE;
        }
    }
    for (guint p = 0; p < k; p++) {
        for (guint i = 0; i < half; i++) {
            for (guint j = 0; j < half; j++) {
                if (!add_link(topo, edge[p * half + i], agg[p * half + j], t->kind, t->bw_Bps,
                              t->lat_ps, 1, error)) {
                    return FALSE;
                }
            }
        }
        for (guint j = 0; j < half; j++) {
            for (guint m = 0; m < half; m++) {
                if (!add_link(topo, agg[p * half + j], core[j * half + m], t->kind, t->bw_Bps,
                              t->lat_ps, 1, error)) {
                    return FALSE;
                }
            }
        }
    }
    return TRUE;
}

/*
 * k from the file (@k_given, 2..FAT_TREE_MAX_K by its row; even), or when NULL the
 * smallest even k holding @n_ep.
 */
static gboolean
fat_tree_k(const weft_topo_i_ini_t *c, const guint64 *k_given, guint n_ep, guint *k, GError **error)
{
    guint dflt = 2;
    while ((guint64)dflt * dflt * dflt / 4 < n_ep && dflt < FAT_TREE_MAX_K) {
        dflt += 2;
    }
    *k = k_given != NULL ? (guint)*k_given : dflt;
    if (*k % 2 != 0) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s.k = %u: a k-ary fat-tree needs an even k", c->origin, c->group, *k);
        return FALSE;
    }
    return TRUE;
}

/* ---- bare-GPU scale-out kinds ---------------------------------------------------- */

static gboolean
build_fat_tree(const weft_topo_i_ini_t *c, const void *params, weft_topo_t *topo, GError **error)
{
    const bare_params *p = params;
    guint k = 0, gpus = 0;
    tier_link t = {0, p->bw_Bps, WEFT_LINK_GENERIC, p->lat_ps};
    if (!fat_tree_k(c, &p->k, 0, &k, error)) {
        return FALSE;
    }
    guint full = k * k * k / 4;
    gpus = full;
    if (p->fat_tree_gpus_given &&
        !weft_topo_i_ini_whole(c, "gpus", p->fat_tree_gpus, 1, full, &gpus, error)) {
        return FALSE;
    }
    t.radix = k;
    gint g0 = add_bare_gpus(topo, gpus, error);
    if (g0 < 0) {
        return FALSE;
    }
    g_autofree gint *ep = g_new(gint, gpus);
    for (guint i = 0; i < gpus; i++) {
        ep[i] = g0 + (gint)i;
    }
    return build_fat_tree_fabric(c, topo, k, &t, ep, gpus, error);
}

static gboolean
build_leaf_spine(const weft_topo_i_ini_t *c, const void *params, weft_topo_t *topo, GError **error)
{
    const bare_params *p = params;
    guint gpus = (guint)p->gpus;
    double od = p->over_down, ou = p->over_up;
    tier_link t = {(guint)p->switch_radix, p->bw_Bps, WEFT_LINK_GENERIC, p->lat_ps};
    gint g0 = add_bare_gpus(topo, gpus, error);
    if (g0 < 0) {
        return FALSE;
    }
    g_autofree gint *ep = g_new(gint, gpus);
    for (guint i = 0; i < gpus; i++) {
        ep[i] = g0 + (gint)i;
    }
    endpoints e = {ep, gpus, 1, 1, "GPU"};
    return build_leaf_spine_fabric(c, topo, &t, &e, "gpus_per_leaf",
                                   p->gpus_per_leaf_given ? &p->gpus_per_leaf : NULL, od, ou,
                                   error);
}

/* ---- node kinds ------------------------------------------------------------------------ */

/* One node kind: what the catalog does not say about the system. */
typedef struct {
    const char *kind;
    const char *gpu;        /* catalog GPU */
    const char *nvswitch;   /* catalog NVSwitch generation */
    const char *pcie;       /* catalog PCIe generation of the GPU-NIC path */
    const char *nic;        /* default catalog NIC */
    guint hosts;            /* hosts (compute trays) per node */
    guint gpus_per_host;    /* = NICs per host = rails */
    guint n_nvswitch;       /* NVSwitch chips per node */
    const guint *lanes;     /* NVLink links from each GPU to each chip */
    guint gpus_per_pcie_sw; /* GPUs (and NICs) per PCIe switch; 0: GPU-NIC direct */
} node_desc;

/*
 * DGX A100: NVIDIA DGX A100 System Architecture whitepaper (WP-10083-001, 2020)
 * and DGX A100 user guide: six second-generation NVSwitch chips, each A100's 12
 * NVLink3 links go two to each chip; eight ConnectX-6 HDR compute NICs, one per
 * GPU, behind four PCIe Gen4 switches that each serve two GPUs and two NICs.
 */
static const guint dgx_a100_lanes[] = {2, 2, 2, 2, 2, 2};
/*
 * DGX H100: DGX H100 user guide and DGX SuperPOD H100 reference architecture
 * (RA-11333-001): four third-generation NVSwitch chips with 5, 4, 4 and 5 of each
 * GPU's 18 NVLink4 links; eight ConnectX-7 NDR compute ports, one per GPU, on PCIe
 * Gen5.
 */
static const guint dgx_h100_lanes[] = {5, 4, 4, 5};
/*
 * DGX B200: DGX B200 datasheet and user guide: two fifth-generation NVLink
 * switch chips (72 ports each = 8 GPUs x 9), each B200's 18 NVLink5 links 9 and
 * 9; eight single-port ConnectX-7 VPI compute NICs of up to 400 Gb/s (NDR), one
 * per GPU, on PCIe Gen5.
 */
static const guint dgx_b200_lanes[] = {9, 9};
/*
 * GB200 NVL72: NVIDIA GB200 NVL72 product page and DGX SuperPOD GB200 reference
 * architecture: 18 compute trays of 2 Grace CPUs + 4 Blackwell GPUs, 9 NVLink
 * switch trays of 2 chips; each GPU's 18 NVLink5 links go one to each of the 18
 * chips (72 GPUs x 1 = the 72 ports of a chip); compute fabric NDR 400 Gb/s
 * InfiniBand with one ConnectX-7 port per GPU (72 per rack), PCIe Gen5.
 */
static const guint gb200_nvl72_lanes[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

static const node_desc node_kinds[] = {
    {"dgx-a100", "a100", "gen2", "gen4", "hdr", 1, 8, 6, dgx_a100_lanes, 2},
    {"dgx-h100", "h100", "gen3", "gen5", "ndr", 1, 8, 4, dgx_h100_lanes, 0},
    {"dgx-b200", "b200", "gen4", "gen5", "ndr", 1, 8, 2, dgx_b200_lanes, 0},
    {"gb200-nvl72", "gb200", "gen4", "gen5", "ndr", 18, 4, 18, gb200_nvl72_lanes, 0},
};

/*
 * Default one-way latency of one NVLink hop (GPU-NVSwitch): 300 ns, so GPU ->
 * NVSwitch -> GPU is 0.6 us. Source: NCCL's tuning model (NCCL 2.20.3,
 * src/graph/tuning.cc hwLat[NCCL_HW_NVLINK]) charges 0.6 us for a whole
 * GPU-to-GPU hop over NVLink with the LL protocol (ring and tree), the
 * cheapest hop it knows: the data's flight plus the receiver seeing its flag.
 * The wire alone can take no longer than that, so 0.6 us is an upper bound on
 * the two links, split evenly; NCCL's own figure has no separate wire term
 * (and the same 0.6 us for every NVLink generation, so every node kind here
 * takes it). The previous default, 500 ns per link after ASTRA-sim's DGX H100
 * model (MICRO 2024 tutorial, demo2 DGX_H100-32.yml), made a GPU-to-GPU hop
 * 1 us, longer than NCCL's whole LL hop: a 14-hop ring all-reduce of 8 bytes
 * could then not finish in the 13.67 us nccl-tests measures on a DGX H100
 * (dgxc-benchmarking sample output). Override with nvlink_latency.
 */
#define NVLINK_LATENCY "300ns"
/*
 * Default one-way latency of one scale-out link (NIC-leaf, leaf-spine,
 * spine-core): 500 ns, the scale-out dimension of the same ASTRA-sim file
 * (DGX_H100-32.yml: second Switch dimension, 500 ns).
 */
#define FABRIC_LATENCY "500ns"
/*
 * Default one-way latency of one PCIe hop (GPU-NIC, GPU or NIC to a PCIe
 * switch): 250 ns. An estimate, not a datasheet figure: a PCIe switch forwards
 * in the order of 100-150 ns port to port and the link and controller add
 * about as much. Override with pcie_latency. A NIC whose catalog entry has a one-way
 * latency (EFA) gets the rest of it on its own PCIe link unless pcie_latency is given.
 */
#define PCIE_LATENCY "250ns"

/*
 * Default switch radix for an InfiniBand NIC generation: HDR 40 ports (NVIDIA
 * Quantum QM8700/QM8790 datasheet: 40 x 200 Gb/s), NDR 64 ports (Quantum-2
 * QM9700/QM9790 datasheet: 64 x 400 Gb/s on 32 OSFP cages), XDR 144 ports
 * (Quantum-X800 Q3400 datasheet: 144 x 800 Gb/s); Omni-Path 48 ports (Intel
 * Omni-Path Edge Switch 100 Series). Ethernet, EFA, TCPX: no default.
 */
static guint
default_radix(const weft_hw_nic_t *nic)
{
    if (g_strcmp0(nic->fabric, "omni-path") == 0) {
        return 48; /* Intel Omni-Path Edge Switch 100 Series: 48 ports of 100 Gb/s */
    }
    if (g_strcmp0(nic->fabric, "infiniband") != 0) {
        return 0;
    }
    double gbps = nic->rate_Bps * 8.0 / 1e9;
    if (fabs(gbps - 200.0) < 1.0) {
        return 40;
    }
    if (fabs(gbps - 400.0) < 1.0) {
        return 64;
    }
    if (fabs(gbps - 800.0) < 1.0) {
        return 144;
    }
    return 0;
}

typedef enum { FABRIC_NONE, FABRIC_RAIL, FABRIC_LEAF_SPINE, FABRIC_FAT_TREE } fabric_kind;

static const char *const fabric_names[] = {"none", "rail-optimized", "leaf-spine", "fat-tree",
                                           NULL};
static const weft_enum_t fabric_enum = {"fabric", fabric_names};

/* The parameters of the node kinds (rows under "the table of kinds" below). */
typedef struct {
    weft_topo_i_params_t common;
    double nodes; /* range 1..MAX_GPUS / GPUs per node: checked by the builder */
    weft_time_t nvlink_lat_ps;
    gint fabric;     /* fabric_kind */
    const char *gpu; /* a catalog GPU (hw/hw.h), or NULL for the kind's own */
    gboolean gpu_given;
    const char *nic; /* a catalog NIC (hw/hw.h), or NULL for the kind's own */
    gboolean nic_given;
    guint64 nics_per_gpu;
    guint64 nics_per_node;
    gboolean nics_per_node_given;
    weft_time_t pcie_lat_ps;
    gboolean pcie_lat_given;
    weft_time_t fabric_lat_ps;
    guint64 switch_radix;
    gboolean switch_radix_given;
    const char *oversubscription; /* the text, for messages */
    double over_down, over_up;
    guint64 nodes_per_su;
    gboolean nodes_per_su_given;
    guint64 nodes_per_leaf;
    gboolean nodes_per_leaf_given;
    guint64 k;
    gboolean k_given;
    gboolean sharp; /* the fabric's switches reduce in-network for NCCL's CollNet (SHARP) */
} node_params;

static gboolean
apply_node_ratio(void *obj, const char *text, GError **error)
{
    node_params *p = obj;
    return weft_topo_i_parse_ratio(text, &p->over_down, &p->over_up, error);
}

/* Keys that need a fabric, and the fabrics each applies to (bit i = fabric_kind i). */
static const struct {
    const char *key;
    guint fabrics;
} fabric_keys[] = {
    {"nic", 0xe},
    {"nics_per_gpu", 0xe},
    {"nics_per_node", 0xe},
    {"pcie_latency", 0xe},
    {"fabric_latency", 0xe},
    {"switch_radix", 0x6},
    {"oversubscription", 0x6},
    {"nodes_per_su", 0x2},
    {"nodes_per_leaf", 0x4},
    {"k", 0x8},
    {"sharp", 0xe},
};

static gboolean
hw_error(const weft_topo_i_ini_t *c, const char *key, const char *value, GError *herr,
         GError **error)
{
    g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE, "%s: %s.%s = \"%s\": %s", c->origin,
                c->group, key, value, herr->message);
    g_error_free(herr);
    return FALSE;
}

/* Vertex name prefix of host @h of node @n: "node3" or "rack1/tray7". */
static char *
host_prefix(const node_desc *d, guint n, guint h)
{
    if (d->hosts == 1) {
        return g_strdup_printf("node%u", n);
    }
    return g_strdup_printf("rack%u/tray%u", n, h);
}

/*
 * InfiniBand switches with in-network reduction: SHARPv2 came with the Quantum
 * (HDR, 200 Gb/s) switches and continues in Quantum-2 (NDR) and Quantum-X800
 * (XDR) (NVIDIA, "Scalable Hierarchical Aggregation and Reduction Protocol
 * (SHARP)" documentation; NCCL's CollNet plugin uses it). Every InfiniBand NIC
 * of the catalog is HDR or faster; the threshold keeps an older, slower one out.
 * Capable switches are not enough: NCCL runs CollNet only with the SHARP plugin
 * loaded and NCCL_COLLNET_ENABLE=1 (NCCL 2.20.3 src/init.cc: collNetSupport stays 0
 * unless that variable is "1"), so the key `sharp` (default false) says whether the
 * cluster runs it; `sharp = true` on a fabric that cannot reduce is an error.
 */
#define SHARP_MIN_RATE_BPS 25e9 /* 200 Gb/s */

/*
 * nics_per_node = @n of a kind @d whose nodes have one NIC per GPU: @n must divide the node's
 * GPUs and spread evenly over its hosts; the m = GPUs per NIC of a host share that NIC behind
 * a PCIe switch, so the switch holds max(m, the kind's GPUs per PCIe switch) GPUs and their
 * NICs (p4d/p4de: 2 A100 and 1 EFA per switch, aws-ofi-nccl topology/p4de-24xl-topo.xml).
 * @k (nics_per_gpu) > 1 with shared NICs is an error: a shared NIC is one port.
 */
static gboolean
node_nics(const weft_topo_i_ini_t *c, const node_desc *d, guint n, guint k, guint *per_host,
          guint *m, guint *sw_gpus, GError **error)
{
    guint gpus_per_node = d->hosts * d->gpus_per_host;
    if (n > gpus_per_node || gpus_per_node % n != 0 || n % d->hosts != 0 ||
        d->gpus_per_host % (n / d->hosts) != 0) {
        /* the values that work: every host the same NIC count q, q dividing its GPUs */
        g_autoptr(GString) ok = g_string_new(NULL);
        for (guint q = 1; q <= d->gpus_per_host; q++) {
            if (d->gpus_per_host % q == 0) {
                g_string_append_printf(ok, "%s%u", ok->len > 0 ? ", " : "", q * d->hosts);
            }
        }
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s.nics_per_node = %u: a %s node has %u GPUs in %u host(s) of %u, and "
                    "every host must have the same number of NICs, dividing its GPUs: "
                    "nics_per_node is one of %s",
                    c->origin, c->group, n, d->kind, gpus_per_node, d->hosts, d->gpus_per_host,
                    ok->str);
        return FALSE;
    }
    *per_host = n / d->hosts;
    *m = d->gpus_per_host / *per_host;
    if (*m > 1 && k > 1) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                    "%s: %s.nics_per_gpu = %u: does not apply with nics_per_node = %u (%u GPUs "
                    "share each NIC, which is one catalog port)",
                    c->origin, c->group, k, n, *m);
        return FALSE;
    }
    guint s = MAX(*m, d->gpus_per_pcie_sw);
    if (*m > 1 && (s % *m != 0 || d->gpus_per_host % s != 0)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s.nics_per_node = %u: %u GPUs per NIC do not fit the PCIe switches of "
                    "%u GPUs of kind %s",
                    c->origin, c->group, n, *m, d->gpus_per_pcie_sw, d->kind);
        return FALSE;
    }
    *sw_gpus = *m > 1 ? s : d->gpus_per_pcie_sw;
    return TRUE;
}

/*
 * The latency of the PCIe link that reaches a NIC when the catalog gives the network kind a
 * one-way latency L (hw.h weft_hw_nic_t.latency_ps; EFA 20 us): a message between two GPUs on
 * one rail switch crosses, at each end, the GPU's PCIe hop to its PCIe switch (@gpu_hop_ps, 0
 * when the GPU links to its NIC directly) and the NIC's link, and between the ends two
 * fabric links of @fabric_ps; the NIC's link takes what is left of L at each end, (L - 2 x
 * fabric) / 2 - @gpu_hop_ps, so that path takes L (to the picosecond: L - 2 x fabric is
 * halved in whole picoseconds). pcie_latency, when given, replaces this (the caller does not
 * ask). The device and software path, not the switches, hold EFA's latency, so it sits on the
 * NIC's PCIe link. Sets WEFT_TOPO_ERROR_VALUE when the fabric latency leaves nothing.
 */
static gboolean
nic_path_latency(const weft_topo_i_ini_t *c, const weft_hw_nic_t *nic, weft_time_t fabric_ps,
                 weft_time_t gpu_hop_ps, weft_time_t *nic_link_ps, GError **error)
{
    weft_time_t end = (nic->latency_ps - 2 * fabric_ps) / 2 - gpu_hop_ps;
    if (end <= 0) {
        g_autofree char *fl = weft_topo_i_ini_text(c, "fabric_latency", FALSE, NULL);
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s.fabric_latency = \"%s\": two fabric links take at least the %.3f us "
                    "one-way latency of NIC %s; give pcie_latency to set the NIC links yourself",
                    c->origin, c->group, fl != NULL ? fl : FABRIC_LATENCY,
                    (double)nic->latency_ps / 1e6, nic->name);
        return FALSE;
    }
    *nic_link_ps = end;
    return TRUE;
}

/* Why @nic's fabric cannot run SHARP, or NULL when it can. */
static const char *
sharp_unsupported(const weft_hw_nic_t *nic)
{
    if (g_strcmp0(nic->fabric, "infiniband") != 0) {
        return "SHARP (in-network reduction) needs InfiniBand Quantum switches";
    }
    if (nic->rate_Bps < SHARP_MIN_RATE_BPS) {
        return "SHARP (SHARPv2) needs InfiniBand of 200 Gb/s (HDR, Quantum) or faster";
    }
    return NULL;
}

static gboolean
build_node_kind(const node_desc *d, const weft_topo_i_ini_t *c, const node_params *p,
                weft_topo_t *topo, GError **error)
{
    GError *herr = NULL;
    const char *gpu_name = p->gpu_given ? p->gpu : d->gpu;
    const weft_hw_gpu_t *gpu = weft_hw_gpu(gpu_name, &herr);
    if (gpu == NULL) {
        return hw_error(c, p->gpu_given ? "gpu" : "kind", p->gpu_given ? p->gpu : d->kind, herr,
                        error);
    }
    const weft_hw_nvswitch_t *nvs = weft_hw_nvswitch(d->nvswitch, &herr);
    if (nvs == NULL) {
        return hw_error(c, "kind", d->kind, herr, error);
    }
    /* A superchip GPU (GB200) sits only on its own board with a Grace CPU, an SXM one only
     * on an HGX baseboard: the kind's chassis decides which it holds. */
    const weft_hw_gpu_t *kind_gpu = weft_hw_gpu(d->gpu, NULL);
    if (p->gpu_given && kind_gpu != NULL && kind_gpu->superchip != gpu->superchip) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s.gpu = \"%s\": %s %s, but kind %s holds %s (%s)", c->origin,
                    c->group, gpu_name, gpu->name,
                    gpu->superchip ? "comes only on a Grace superchip board (GB200 NVL72 racks)"
                                   : "is an SXM module for HGX baseboards",
                    d->kind,
                    kind_gpu->superchip ? "Grace superchip boards" : "an HGX baseboard of SXM modules",
                    kind_gpu->superchip ? "use a kind with SXM GPUs, e.g. dgx-b200"
                                        : "for GB200 use kind = gb200-nvl72");
        return FALSE;
    }
    /* Another GPU in the kind's chassis (a DGX H200 is a DGX H100 with H200s) must speak the
     * NVLink generation of the chassis' NVSwitch chips. */
    if (gpu->nvlink_gen != weft_hw_nvswitch_nvlink_gen(nvs)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s.gpu = \"%s\": %s has NVLink%u, but kind %s's %s switches carry "
                    "NVLink%u",
                    c->origin, c->group, gpu_name, gpu->name, gpu->nvlink_gen, d->kind, nvs->name,
                    weft_hw_nvswitch_nvlink_gen(nvs));
        return FALSE;
    }
    guint gpus_per_node = d->hosts * d->gpus_per_host;
    /* The catalog and the system layout must agree on the GPU's links and the chip's ports. */
    guint lanes_sum = 0;
    for (guint s = 0; s < d->n_nvswitch; s++) {
        lanes_sum += d->lanes[s];
        if (nvs->nvlink_ports > 0 && gpus_per_node * d->lanes[s] > nvs->nvlink_ports) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: kind %s: %u GPUs x %u links exceed the %u ports of %s", c->origin,
                        d->kind, gpus_per_node, d->lanes[s], nvs->nvlink_ports, nvs->name);
            return FALSE;
        }
    }
    if (lanes_sum != gpu->nvlink_links) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: kind %s: the system spreads %u NVLink links per GPU but the catalog "
                    "gives %s %u",
                    c->origin, d->kind, lanes_sum, gpu->name, gpu->nvlink_links);
        return FALSE;
    }

    guint nodes = 1;
    weft_time_t nvl_lat = p->nvlink_lat_ps, pcie_lat = p->pcie_lat_ps;
    fabric_kind fk = (fabric_kind)p->fabric;
    for (guint i = 0; i < G_N_ELEMENTS(fabric_keys); i++) {
        if (!(fabric_keys[i].fabrics & (1u << fk))) {
            g_autofree char *why =
                g_strdup_printf("does not apply to fabric = %s", weft_enum_name(&fabric_enum, fk));
            if (!key_absent(c, fabric_keys[i].key, why, error)) {
                return FALSE;
            }
        }
    }
    if (!weft_topo_i_ini_whole(c, "nodes", p->nodes, 1, MAX_GPUS / gpus_per_node, &nodes, error)) {
        return FALSE;
    }
    if (fk == FABRIC_NONE && nodes != 1) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s.nodes = %u: more than one %s node needs a scale-out fabric "
                    "(fabric = rail-optimized, leaf-spine or fat-tree)",
                    c->origin, c->group, nodes, d->kind);
        return FALSE;
    }

    const weft_hw_nic_t *nic = NULL;
    const weft_hw_pcie_t *pcie = NULL;
    tier_link t = {0, 0.0, WEFT_LINK_INFINIBAND, 0};
    double od = 1.0, ou = 1.0;
    /* NICs: one per GPU unless nics_per_node is fewer; then m GPUs share each NIC behind a
     * PCIe switch of sw_gpus GPUs (0: every GPU has its NIC on a direct link). */
    guint nics_per_host = d->gpus_per_host, m = 1, sw_gpus = d->gpus_per_pcie_sw;
    /* one-way latency of the PCIe link that reaches a NIC (GPU-NIC or NIC-PCIe switch) */
    weft_time_t nic_link_lat = pcie_lat;
    if (fk != FABRIC_NONE) {
        const char *nic_name = p->nic_given ? p->nic : d->nic;
        nic = weft_hw_nic(nic_name, &herr);
        if (nic == NULL) {
            return hw_error(c, "nic", nic_name, herr, error);
        }
        pcie = weft_hw_pcie(d->pcie, &herr);
        if (pcie == NULL) {
            return hw_error(c, "kind", d->kind, herr, error);
        }
        const char *no_sharp = p->sharp ? sharp_unsupported(nic) : NULL;
        if (no_sharp != NULL) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: %s.sharp = true: %s, and nic = %s is %s at %g Gb/s", c->origin,
                        c->group, no_sharp, nic->name, nic->fabric, nic->rate_Bps * 8.0 / 1e9);
            return FALSE;
        }
        /* nics_per_gpu: one NIC vertex stands for k ports of the catalog NIC, as AWS's
         * NCCL plugin presents the four 100 Gb/s EFA devices of a p5 GPU as one 400 Gb/s
         * device; every fabric link runs at k x the NIC's rate. */
        guint k = (guint)p->nics_per_gpu;
        if (p->nics_per_node_given &&
            !node_nics(c, d, (guint)p->nics_per_node, k, &nics_per_host, &m, &sw_gpus, error)) {
            return FALSE;
        }
        t.bw_Bps = nic->rate_Bps * k;
        /* weft's link kinds know InfiniBand and Ethernet; EFA, TCPX and Omni-Path cables are
         * counted with Ethernet's (a scale-out cable that is not InfiniBand). */
        t.kind =
            g_strcmp0(nic->fabric, "infiniband") == 0 ? WEFT_LINK_INFINIBAND : WEFT_LINK_ETHERNET;
        t.lat_ps = p->fabric_lat_ps;
        if (nic->latency_ps > 0 && !p->pcie_lat_given &&
            !nic_path_latency(c, nic, p->fabric_lat_ps, sw_gpus > 0 ? pcie_lat : 0, &nic_link_lat,
                              error)) {
            return FALSE;
        }
        if (fk == FABRIC_RAIL || fk == FABRIC_LEAF_SPINE) {
            guint dr = default_radix(nic);
            if (dr == 0 && !p->switch_radix_given) {
                g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                            "%s: [%s] is missing the key \"switch_radix\": NIC %s (%s) has no "
                            "default switch",
                            c->origin, c->group, nic->name, nic->fabric);
                return FALSE;
            }
            t.radix = p->switch_radix_given ? (guint)p->switch_radix : dr;
            od = p->over_down;
            ou = p->over_up;
        }
    }

    guint nics_per_node = nics_per_host * d->hosts;
    guint n_ep = fk == FABRIC_NONE ? 0 : nodes * nics_per_node;
    g_autofree gint *ep = g_new0(gint, MAX(n_ep, 1));
    g_autofree gint *gv = g_new(gint, gpus_per_node);
    g_autofree gint *sw = g_new(gint, d->n_nvswitch);
    g_autofree gint *nicv = g_new(gint, nics_per_node);
    for (guint n = 0; n < nodes; n++) {
        for (guint h = 0; h < d->hosts; h++) {
            g_autofree char *pre = host_prefix(d, n, h);
            for (guint i = 0; i < d->gpus_per_host; i++) {
                guint g = h * d->gpus_per_host + i;
                /* a GPU's rail is its NIC's, so routes leave through the NIC it shares */
                gv[g] = add_vertex(topo, WEFT_VERTEX_GPU, (gint)(n * d->hosts + h), (gint)(i / m),
                                   error, "%s/gpu%u", pre, i);
                if (gv[g] < 0) {
                    return FALSE;
                }
                /* the compute model of a generated step reads the model (topo.h) */
                weft_topo_set_vertex_gpu_model(topo, gv[g], gpu);
            }
        }
        /* NVSwitch chips belong to the node; to no host when the node has several. */
        gint sw_host = d->hosts == 1 ? (gint)n : -1;
        for (guint s = 0; s < d->n_nvswitch; s++) {
            sw[s] = d->hosts == 1 ? add_vertex(topo, WEFT_VERTEX_NVSWITCH, sw_host, -1, error,
                                               "node%u/nvswitch%u", n, s)
                                  : add_vertex(topo, WEFT_VERTEX_NVSWITCH, sw_host, -1, error,
                                               "rack%u/nvswitch%u", n, s);
            if (sw[s] < 0) {
                return FALSE;
            }
            if (nvs->sharp) {
                /* gen3+ chips reduce and multicast (NVLink SHARP): NCCL's NVLS algorithms */
                weft_topo_set_vertex_features(topo, sw[s], WEFT_TOPO_FEATURE_NVLS);
            }
        }
        for (guint g = 0; g < gpus_per_node; g++) {
            for (guint s = 0; s < d->n_nvswitch; s++) {
                if (!add_link(topo, gv[g], sw[s], WEFT_LINK_NVLINK, gpu->nvlink_link_Bps, nvl_lat,
                              d->lanes[s], error)) {
                    return FALSE;
                }
            }
        }
        if (fk == FABRIC_NONE) {
            continue;
        }
        for (guint h = 0; h < d->hosts; h++) {
            g_autofree char *pre = host_prefix(d, n, h);
            gint host = (gint)(n * d->hosts + h);
            for (guint j = 0; j < nics_per_host; j++) {
                guint q = h * nics_per_host + j;
                nicv[q] =
                    add_vertex(topo, WEFT_VERTEX_NIC, host, (gint)j, error, "%s/nic%u", pre, j);
                if (nicv[q] < 0) {
                    return FALSE;
                }
                ep[n * nics_per_node + q] = nicv[q];
            }
            if (sw_gpus == 0) {
                for (guint i = 0; i < d->gpus_per_host; i++) {
                    guint g = h * d->gpus_per_host + i;
                    if (!add_link(topo, gv[g], nicv[h * nics_per_host + i], WEFT_LINK_PCIE,
                                  pcie->x16_Bps, nic_link_lat, 1, error)) {
                        return FALSE;
                    }
                }
                continue;
            }
            /* PCIe switch j serves GPUs j*s .. j*s + s-1 (s = sw_gpus) and their NICs: GPU i's
             * link, then after every m-th GPU the link of NIC i / m, the GPUs' shared NIC. */
            for (guint j = 0; j < d->gpus_per_host / sw_gpus; j++) {
                gint ps =
                    add_vertex(topo, WEFT_VERTEX_SWITCH, host, -1, error, "%s/pcie%u", pre, j);
                if (ps < 0) {
                    return FALSE;
                }
                for (guint i = j * sw_gpus; i < (j + 1) * sw_gpus; i++) {
                    guint g = h * d->gpus_per_host + i;
                    if (!add_link(topo, gv[g], ps, WEFT_LINK_PCIE, pcie->x16_Bps, pcie_lat, 1,
                                  error)) {
                        return FALSE;
                    }
                    if ((i + 1) % m == 0 &&
                        !add_link(topo, nicv[h * nics_per_host + i / m], ps, WEFT_LINK_PCIE,
                                  pcie->x16_Bps, nic_link_lat, 1, error)) {
                        return FALSE;
                    }
                }
            }
        }
    }

    endpoints e = {ep, n_ep, nics_per_node, nics_per_host, "node"};
    guint first_fabric_vertex = weft_topo_n_vertices(topo);
    gboolean ok = FALSE;
    switch (fk) {
    case FABRIC_NONE:
        return TRUE;
    case FABRIC_RAIL:
        ok = build_rail_optimized(c, topo, &t, &e, p->nodes_per_su_given ? &p->nodes_per_su : NULL,
                                  od, ou, error);
        break;
    case FABRIC_LEAF_SPINE:
        ok = build_leaf_spine_fabric(c, topo, &t, &e, "nodes_per_leaf",
                                     p->nodes_per_leaf_given ? &p->nodes_per_leaf : NULL, od, ou,
                                     error);
        break;
    case FABRIC_FAT_TREE: {
        guint k = 0;
        if (!fat_tree_k(c, p->k_given ? &p->k : NULL, n_ep, &k, error)) {
            return FALSE;
        }
        t.radix = k;
        ok = build_fat_tree_fabric(c, topo, k, &t, ep, n_ep, error);
        break;
    }
    }
    if (ok && nic->msg_cost_ps > 0) {
        /* every NIC of this fabric is the catalog's @nic: its per-message cost */
        for (guint v = 0; v < weft_topo_n_vertices(topo); v++) {
            if (weft_topo_vertex_kind(topo, (gint)v) == WEFT_VERTEX_NIC) {
                weft_topo_set_vertex_msg_cost(topo, (gint)v, nic->msg_cost_ps);
            }
        }
    }
    if (ok && p->sharp) {
        /* The fabric's switches (leaf, spine, core) reduce in-network: SHARP (checked
         * possible above). */
        for (guint v = first_fabric_vertex; v < weft_topo_n_vertices(topo); v++) {
            if (weft_topo_vertex_kind(topo, (gint)v) == WEFT_VERTEX_SWITCH &&
                weft_topo_vertex_tier(topo, (gint)v) >= 1) {
                weft_topo_set_vertex_features(topo, (gint)v, WEFT_TOPO_FEATURE_SHARP);
            }
        }
    }
    return ok;
}

static gboolean
build_dgx_a100(const weft_topo_i_ini_t *c, const void *params, weft_topo_t *topo, GError **error)
{
    return build_node_kind(&node_kinds[0], c, params, topo, error);
}

static gboolean
build_dgx_h100(const weft_topo_i_ini_t *c, const void *params, weft_topo_t *topo, GError **error)
{
    return build_node_kind(&node_kinds[1], c, params, topo, error);
}

static gboolean
build_dgx_b200(const weft_topo_i_ini_t *c, const void *params, weft_topo_t *topo, GError **error)
{
    return build_node_kind(&node_kinds[2], c, params, topo, error);
}

static gboolean
build_gb200_nvl72(const weft_topo_i_ini_t *c, const void *params, weft_topo_t *topo, GError **error)
{
    return build_node_kind(&node_kinds[3], c, params, topo, error);
}

/* ---- the table of kinds ------------------------------------------------------------ */

/* Rows of the bare-GPU kinds, shared between kinds in the order of their tables. */
#define BARE(m) WEFT_KEY_FIELD(bare_params, m)
/* clang-format off */
#define ROW_GPUS {"cluster", "gpus", WEFT_KEY_COUNT, NULL, "GPUs", .imin = 1, .imax = MAX_GPUS, \
                  .field = BARE(gpus)}
#define ROW_LINK_BANDWIDTH {"cluster", "link_bandwidth", WEFT_KEY_RATE, NULL, \
                            "rate of every link, per direction", .nmin_open = TRUE, \
                            .field = BARE(bw_Bps)}
#define ROW_LINK_LATENCY {"cluster", "link_latency", WEFT_KEY_TIME, NULL, \
                          "one-way latency of every link", .field = BARE(lat_ps)}
/* clang-format on */

static const weft_key_t generic_keys[] = {
    WEFT_TOPO_I_COMMON_KEYS,
    ROW_GPUS,
    ROW_LINK_BANDWIDTH,
    ROW_LINK_LATENCY,
};

static const weft_key_t torus_keys[] = {
    WEFT_TOPO_I_COMMON_KEYS,
    {"cluster", "dims", WEFT_KEY_STRING, NULL, "GPUs per dimension joined by 'x' (4x4x4)",
     .apply = apply_dims, .field = BARE(dims)},
    ROW_LINK_BANDWIDTH,
    ROW_LINK_LATENCY,
};

static const weft_key_t fat_tree_keys[] = {
    WEFT_TOPO_I_COMMON_KEYS,
    {"cluster", "k", WEFT_KEY_COUNT, NULL, "ports per switch (even)", .imin = 2,
     .imax = FAT_TREE_MAX_K, .field = BARE(k)},
    {"cluster", "gpus", WEFT_KEY_NUMBER, NULL, "GPUs, 1 to k^3/4 (default k^3/4)",
     .parse = weft_topo_i_parse_count, .nmax = INFINITY, .field = BARE(fat_tree_gpus),
     .given = BARE(fat_tree_gpus_given)},
    ROW_LINK_BANDWIDTH,
    ROW_LINK_LATENCY,
};

static const weft_key_t leaf_spine_keys[] = {
    WEFT_TOPO_I_COMMON_KEYS,
    ROW_GPUS,
    {"cluster", "gpus_per_leaf", WEFT_KEY_COUNT, NULL,
     "GPUs per leaf (default: as many as the leaf's ports allow)", .imin = 1, .imax = MAX_GPUS,
     .field = BARE(gpus_per_leaf), .given = BARE(gpus_per_leaf_given)},
    {"cluster", "switch_radix", WEFT_KEY_COUNT, NULL, "ports per switch", .imin = 2, .imax = 65536,
     .field = BARE(switch_radix)},
    {"cluster", "oversubscription", WEFT_KEY_STRING, "1:1",
     "leaf ports down:up, such as 1:1 or 2:1", .apply = apply_bare_ratio,
     .field = BARE(oversubscription)},
    ROW_LINK_BANDWIDTH,
    ROW_LINK_LATENCY,
};

static const weft_key_t dragonfly_keys[] = {
    WEFT_TOPO_I_COMMON_KEYS,
    {"cluster", "groups", WEFT_KEY_COUNT, NULL, "groups of routers", .imin = 2, .imax = 4096,
     .field = BARE(groups)},
    {"cluster", "routers_per_group", WEFT_KEY_COUNT, NULL, "routers per group", .imin = 1,
     .imax = 1024, .field = BARE(routers_per_group)},
    {"cluster", "gpus_per_router", WEFT_KEY_COUNT, NULL, "GPUs per router", .imin = 1, .imax = 1024,
     .field = BARE(gpus_per_router)},
    {"cluster", "global_links_per_router", WEFT_KEY_COUNT, NULL, "global links per router",
     .imin = 1, .imax = 1024, .field = BARE(global_links_per_router)},
    ROW_LINK_BANDWIDTH,
    ROW_LINK_LATENCY,
    {"cluster", "global_link_bandwidth", WEFT_KEY_RATE, NULL,
     "rate of a global link (default link_bandwidth)", .nmin_open = TRUE,
     .field = BARE(global_bw_Bps), .given = BARE(global_bw_given)},
    {"cluster", "global_link_latency", WEFT_KEY_TIME, NULL,
     "latency of a global link (default link_latency)", .field = BARE(global_lat_ps),
     .given = BARE(global_lat_given)},
};

#define NODE(m) WEFT_KEY_FIELD(node_params, m)
static const weft_key_t node_keys[] = {
    WEFT_TOPO_I_COMMON_KEYS,
    {"cluster", "nodes", WEFT_KEY_NUMBER, "1", "nodes (more than one needs a fabric)",
     .parse = weft_topo_i_parse_count, .nmax = INFINITY, .field = NODE(nodes)},
    {"cluster", "nvlink_latency", WEFT_KEY_TIME, NVLINK_LATENCY,
     "one-way latency of a GPU-NVSwitch link", .field = NODE(nvlink_lat_ps)},
    {"cluster", "fabric", WEFT_KEY_ENUM, "none", "the scale-out fabric between nodes",
     .choices = &fabric_enum, .field = NODE(fabric)},
    {"cluster", "gpu", WEFT_KEY_STRING, NULL,
     "the catalog GPU of every GPU (default: the kind's; its NVLink generation must be the "
     "NVSwitch's)",
     .field = NODE(gpu), .given = NODE(gpu_given)},
    {"cluster", "nic", WEFT_KEY_STRING, NULL, "the catalog NIC of every GPU (default: the kind's)",
     .field = NODE(nic), .given = NODE(nic_given)},
    {"cluster", "nics_per_gpu", WEFT_KEY_COUNT, "1", "catalog NIC ports behind one GPU's NIC",
     .imin = 1, .imax = 64, .field = NODE(nics_per_gpu)},
    {"cluster", "nics_per_node", WEFT_KEY_COUNT, NULL,
     "NICs per node, shared by its GPUs behind PCIe switches (default: one per GPU)", .imin = 1,
     .imax = MAX_GPUS, .field = NODE(nics_per_node), .given = NODE(nics_per_node_given)},
    {"cluster", "pcie_latency", WEFT_KEY_TIME, PCIE_LATENCY,
     "one-way latency of a PCIe hop (default: 250 ns; the link to a NIC whose catalog entry has "
     "a latency takes the rest of it)",
     .field = NODE(pcie_lat_ps), .given = NODE(pcie_lat_given)},
    {"cluster", "fabric_latency", WEFT_KEY_TIME, FABRIC_LATENCY,
     "one-way latency of a scale-out link", .field = NODE(fabric_lat_ps)},
    {"cluster", "switch_radix", WEFT_KEY_COUNT, NULL,
     "ports per fabric switch (default: the NIC's InfiniBand switch)", .imin = 2, .imax = 65536,
     .field = NODE(switch_radix), .given = NODE(switch_radix_given)},
    {"cluster", "oversubscription", WEFT_KEY_STRING, "1:1",
     "leaf ports down:up, such as 1:1 or 2:1", .apply = apply_node_ratio,
     .field = NODE(oversubscription)},
    {"cluster", "nodes_per_su", WEFT_KEY_COUNT, NULL,
     "nodes per scalable unit (default: as many as a leaf's ports allow)", .imin = 1,
     .imax = MAX_GPUS, .field = NODE(nodes_per_su), .given = NODE(nodes_per_su_given)},
    {"cluster", "nodes_per_leaf", WEFT_KEY_COUNT, NULL,
     "nodes per leaf (default: as many as a leaf's ports allow)", .imin = 1, .imax = MAX_GPUS,
     .field = NODE(nodes_per_leaf), .given = NODE(nodes_per_leaf_given)},
    {"cluster", "k", WEFT_KEY_COUNT, NULL,
     "fat-tree switch ports (even; default: the smallest that holds the nodes)", .imin = 2,
     .imax = FAT_TREE_MAX_K, .field = NODE(k), .given = NODE(k_given)},
    {"cluster", "sharp", WEFT_KEY_BOOL, "false",
     "the fabric's switches run SHARP for NCCL's CollNet (InfiniBand >= 200 Gb/s)",
     .field = NODE(sharp)},
};

/* The kinds, in the order of their names. */
static const char *const kind_names[] = {"switch",     "ring",     "fully-connected", "torus",
                                         "leaf-spine", "fat-tree", "dragonfly",       "dgx-a100",
                                         "dgx-h100",   "dgx-b200", "gb200-nvl72",     NULL};

const weft_enum_t weft_topo_i_kind_enum = {"kind", kind_names};

#define KIND(build, keys, params)                                                                  \
    {                                                                                              \
        build, keys, G_N_ELEMENTS(keys), sizeof(params)                                            \
    }
static const weft_topo_i_kind_t kinds[] = {
    KIND(build_switch, generic_keys, bare_params),
    KIND(build_ring, generic_keys, bare_params),
    KIND(build_fully_connected, generic_keys, bare_params),
    KIND(build_torus, torus_keys, bare_params),
    KIND(build_leaf_spine, leaf_spine_keys, bare_params),
    KIND(build_fat_tree, fat_tree_keys, bare_params),
    KIND(build_dragonfly, dragonfly_keys, bare_params),
    KIND(build_dgx_a100, node_keys, node_params),
    KIND(build_dgx_h100, node_keys, node_params),
    KIND(build_dgx_b200, node_keys, node_params),
    KIND(build_gb200_nvl72, node_keys, node_params),
};
G_STATIC_ASSERT(G_N_ELEMENTS(kinds) + 1 == G_N_ELEMENTS(kind_names));

const weft_topo_i_kind_t *
weft_topo_i_kind(gint kind)
{
    g_return_val_if_fail(kind >= 0 && (guint)kind < G_N_ELEMENTS(kinds), NULL);
    return &kinds[kind];
}
