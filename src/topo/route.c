/* SPDX-License-Identifier: MIT */
/*
 * Routing on the cluster graph (the rule is described in topo/fabric.h): NVLink
 * domains and the four views (NVLink edges, fabric = all but NVLink, network =
 * fabric edges between hosts, and the full graph as a fallback), built once at
 * finalize and kept in the cluster; the fabric state (weft_fabric_t): link
 * fractions, the ECMP seed, views of its own while links are down, the rail
 * segment rule between nodes (GPU -> own-rail NIC inside the host, NIC -> NIC
 * over the network, NIC -> GPU inside the host), hop-count distances to a
 * segment's end (a local BFS inside an NVLink domain or a host; igraph BFS to
 * the end's funnel vertex in the fabric and network views, kept in a bounded
 * LRU cache), the NVSwitch-plane spraying rule, the ECMP walk with rail
 * affinity over the segments, the route cache per (src, dst, ECMP slot), and
 * the equal-cost path count.
 */
#define G_LOG_DOMAIN "weft-topo"

#include "topo/fabric.h"

#include <math.h>
#include <string.h>

#include "core/rng.h"
#include "topo/topo_private.h"

enum {
    VIEW_NVLINK, /* NVLink edges only: routes inside an NVLink domain */
    VIEW_FABRIC, /* every edge but NVLink: routes between domains without own-rail NICs */
    VIEW_FULL,   /* every edge: when the fabric cannot connect the pair */
    VIEW_NET,    /* fabric edges but those joining two vertices of one host: NIC -> NIC */
    N_VIEWS,
    /* not a built view: the fabric adjacency, distances by a BFS kept inside one host */
    VIEW_HOST = N_VIEWS,
};

/* own_nic[] value of a vertex not yet looked at. */
#define OWN_NIC_UNKNOWN (-2)

/* A route is at most 3 segments: GPU -> exit NIC, exit NIC -> entry NIC, entry NIC -> GPU. */
#define MAX_SEGMENTS 3

/*
 * ECMP slots per (src, dst): a transfer's flow id is hashed to one of them, and
 * a route is built and cached once per slot, so the cache holds at most 64
 * routes per pair however many transfers there are. 64 covers the 2- to 64-way
 * spine fan-outs of the leaf/spine and fat-tree fabrics weft builds with an
 * even split of slots over paths (slots are spread over the hops' choices in
 * mixed radix, see ecmp_walk()).
 */
#define ECMP_SLOTS WEFT_FABRIC_ECMP_SLOTS
#define SLOT_SINGLE ECMP_SLOTS /* the key of a pair with one path, or a sprayed route */

/* Distance arrays kept in the LRU cache: 1 GiB. Collectives across a fabric route to every
 * leaf switch in turn (a leaf per rail and scalable unit), and a cache smaller than that
 * rotation runs a BFS of the whole graph for nearly every new route: 512 leaves of 42 KB
 * at 16,384 GPUs (42,240 vertices), 2,048 of 340 KB at 131,072. The budget is a bound,
 * not an allocation: a cluster takes what its leaves need. */
#define DIST_CACHE_BYTES ((gsize)1 << 30)

/* The longest chain followed from a destination to its funnel; longer chains stop early (still
 * exact). */
#define MAX_CHAIN 16

/* Spraying is checked only where the equal-cost paths are few enough to list. */
#define MAX_SPRAY_PATHS 1024u

/* Salt separating the per-hop rotation hash from the flow -> slot hash. */
#define HOP_SALT G_GUINT64_CONSTANT(0x686f70)

typedef struct {
    igraph_t graph;     /* the view (VIEW_FULL with every link up uses topo->graph instead) */
    gboolean has_graph; /* graph was created here */
    guint32 *off;       /* CSR: out-edges of v are adj[off[v] .. off[v+1]) */
    gint32 *adj;        /* edge ids of the full graph */
} view_t;

/* A set of views: the cluster's (every link up), or a fabric state's own while links are
 * down. Read only once built. */
struct weft_topo_views {
    view_t v[N_VIEWS];
};

/* Hops from every vertex to a funnel: one byte each (DIST8_NONE: unreachable) when the
 * farthest is under DIST8_NONE hops, as in every fabric (a fat-tree's are a handful), so
 * the cache holds four times the funnels (a leaf switch per rail and scalable unit: 512 at
 * 16,384 GPUs); else 32 bits each (-1: unreachable). */
#define DIST8_NONE 0xffu

typedef struct {
    guint64 key;   /* view << 32 | funnel */
    gint32 *dist;  /* (nullable) hops from every vertex to the funnel, -1 if unreachable */
    guint8 *dist8; /* (nullable) the same in bytes, when they fit (above) */
    GList link;    /* in the LRU queue; data points to this entry */
} dist_entry;

typedef struct {
    gint32 src;
    gint32 dst;
    guint32 slot;
} route_key;

/* One route and its arrays in a single block: [route_blk][share][path_off][edges]. */
typedef struct {
    route_key key;
    weft_route_t route;
} route_blk;

/*
 * The fabric state (topo/fabric.h). Everything routing writes lives here, never in the
 * cluster, so fabric states over one shared cluster are independent: one per thread.
 */
struct weft_fabric {
    const weft_topo_t *topo;
    const view_t *views;    /* the views routed on: topo->views->v, or own->v */
    weft_topo_views_t *own; /* views without the links that are down; NULL while none is */
    guint64 ecmp_seed;
    GHashTable *dist_cache; /* guint64 key -> dist_entry (owned) */
    GQueue lru;             /* dist_entry links, most recent first */
    guint dist_max;         /* byte entries the budget allows (DIST_CACHE_BYTES) */
    guint dist_used;        /* room the cached entries take, in byte entries */
    GHashTable *routes;     /* route_key -> route_blk (borrowed from all_routes) */
    GPtrArray *all_routes;  /* every route ever returned: they live as long as the fabric */
    gint32 *local_dist;     /* scratch for NVLink and host BFS, all -1 between uses */
    gint32 *own_nic;        /* per vertex: its own-rail NIC, -1 none, OWN_NIC_UNKNOWN */
    GArray *touched;        /* gint32: entries of local_dist to reset */
    GArray *queue;          /* gint32: BFS queue */
    double *frac;           /* per edge: fraction of its bandwidth in service (NULL: all 1) */
    guint n_down;           /* edges with frac 0 */
    guint64 version;        /* incremented by every link state change */
    guint64 epoch;          /* incremented whenever the route cache is emptied */
};

/* One segment of a route: shortest paths from @from to @to in view @vi (or VIEW_HOST). */
typedef struct {
    guint vi;
    gint from;
    gint to;
} segment;

/* The segments of a route, in order: the end of one is the start of the next. */
typedef struct {
    guint n;
    segment seg[MAX_SEGMENTS];
} plan_t;

/* Distances to one destination: chain vertices (dst = chain[0], ...) by position, others via the
 * funnel. */
typedef struct {
    const gint32 *df;  /* to the funnel chain[k] (or to dst itself when k == 0), or NULL */
    const guint8 *df8; /* the same in bytes (dist_entry), when df is NULL */
    gint k;
    gint32 chain[MAX_CHAIN + 1];
} dist_fn;

static inline gint32
dist_of(const dist_fn *d, gint v)
{
    for (gint i = 0; i < d->k; i++) {
        if (d->chain[i] == v) {
            return i;
        }
    }
    gint32 x = d->df != NULL ? d->df[v] : d->df8[v] == DIST8_NONE ? -1 : (gint32)d->df8[v];
    return x < 0 ? -1 : x + d->k;
}

static guint
route_key_hash(gconstpointer p)
{
    const route_key *k = p;
    guint64 h = ((guint64)(guint32)k->src << 32) | (guint32)k->dst;
    return (guint)weft_rng_splitmix64(h ^ ((guint64)k->slot << 57));
}

static gboolean
route_key_equal(gconstpointer a, gconstpointer b)
{
    const route_key *x = a;
    const route_key *y = b;
    return x->src == y->src && x->dst == y->dst && x->slot == y->slot;
}

static void
dist_entry_free(gpointer p)
{
    dist_entry *d = p;
    g_free(d->dist);
    g_free(d->dist8);
    g_free(d);
}

static inline gint
e_to(const weft_topo_t *topo, gint e)
{
    return ((const gint *)topo->e_to->data)[e];
}

static inline gint
v_rail(const weft_topo_t *topo, gint v)
{
    return ((const gint *)topo->v_rail->data)[v];
}

static inline gint
v_host(const weft_topo_t *topo, gint v)
{
    return ((const gint *)topo->v_host->data)[v];
}

static inline weft_vertex_kind_t
v_kind(const weft_topo_t *topo, gint v)
{
    return ((const weft_vertex_kind_t *)topo->v_kind->data)[v];
}

/* ---- views and domains ----------------------------------------------------------- */

/* Whether edge @e is in view @view when the links with @frac (nullable: all up) 0 are down. */
static gboolean
edge_in_view(const weft_topo_t *topo, const double *frac, guint view, guint e)
{
    if (frac != NULL && frac[e] <= 0.0) {
        return FALSE; /* a link that is down leaves every view */
    }
    weft_link_kind_t k = g_array_index(topo->e_kind, weft_link_kind_t, e);
    switch (view) {
    case VIEW_NVLINK:
        return k == WEFT_LINK_NVLINK;
    case VIEW_FABRIC:
        return k != WEFT_LINK_NVLINK;
    case VIEW_NET: {
        gint hu = v_host(topo, g_array_index(topo->e_from, gint, e));
        gint hv = v_host(topo, e_to(topo, (gint)e));
        return k != WEFT_LINK_NVLINK && !(hu >= 0 && hu == hv);
    }
    default:
        return TRUE;
    }
}

/* Builds view @vi into the zeroed @view: its CSR out-adjacency and (but for VIEW_FULL with
 * every link up) its igraph graph with the same vertex ids, without the @n_down links whose
 * @frac is 0. Under the igraph lock. */
static gboolean
view_build(const weft_topo_t *topo, const double *frac, guint n_down, guint vi, view_t *view,
           GError **error)
{
    guint n = topo->v_name->len;
    guint m = topo->e_from->len;
    const gint *from = (const gint *)topo->e_from->data;
    view->off = g_new0(guint32, n + 1);
    guint kept = 0;
    for (guint e = 0; e < m; e++) {
        if (edge_in_view(topo, frac, vi, e)) {
            view->off[from[e] + 1]++;
            kept++;
        }
    }
    for (guint v = 0; v < n; v++) {
        view->off[v + 1] += view->off[v];
    }
    view->adj = g_new(gint32, MAX(kept, 1));
    g_autofree guint32 *fill = g_memdup2(view->off, sizeof(guint32) * n);
    for (guint e = 0; e < m; e++) {
        if (edge_in_view(topo, frac, vi, e)) {
            view->adj[fill[from[e]]++] = (gint32)e;
        }
    }
    if (vi == VIEW_FULL && n_down == 0) {
        return TRUE; /* the cluster's own graph serves (view_graph()) */
    }
    igraph_vector_int_t ev;
    if (!weft_topo_i_igraph_check(igraph_vector_int_init(&ev, 2 * (igraph_integer_t)kept), topo,
                                  "vector_init", error)) {
        return FALSE;
    }
    guint k = 0;
    for (guint e = 0; e < m; e++) {
        if (edge_in_view(topo, frac, vi, e)) {
            VECTOR(ev)[2 * k] = from[e];
            VECTOR(ev)[2 * k + 1] = e_to(topo, (gint)e);
            k++;
        }
    }
    igraph_error_t rc = igraph_create(&view->graph, &ev, (igraph_integer_t)n, IGRAPH_DIRECTED);
    igraph_vector_int_destroy(&ev);
    if (!weft_topo_i_igraph_check(rc, topo, "create (view)", error)) {
        return FALSE;
    }
    view->has_graph = TRUE;
    return TRUE;
}

/* Frees the views of @views (under the igraph lock); NULL-safe. */
static void
views_free(weft_topo_views_t *views)
{
    if (views == NULL) {
        return;
    }
    for (guint vi = 0; vi < N_VIEWS; vi++) {
        if (views->v[vi].has_graph) {
            igraph_destroy(&views->v[vi].graph);
        }
        g_free(views->v[vi].off);
        g_free(views->v[vi].adj);
    }
    g_free(views);
}

/* Builds every view without the @n_down links whose @frac is 0 (@frac NULL: all up), under
 * the igraph lock. NULL with @error set if igraph fails. */
static weft_topo_views_t *
views_build(const weft_topo_t *topo, const double *frac, guint n_down, GError **error)
{
    weft_topo_views_t *views = g_new0(weft_topo_views_t, 1);
    weft_topo_i_igraph_quiet();
    for (guint vi = 0; vi < N_VIEWS; vi++) {
        if (!view_build(topo, frac, n_down, vi, &views->v[vi], error)) {
            views_free(views);
            return NULL;
        }
    }
    return views;
}

/* Numbers the NVLink domains as topo.h says: components of the NVLink view, by lowest GPU number.
 */
static gboolean
number_domains(weft_topo_t *topo, GError **error)
{
    guint n = topo->v_name->len;
    igraph_vector_int_t membership;
    igraph_integer_t n_comp = 0;
    if (!weft_topo_i_igraph_check(igraph_vector_int_init(&membership, 0), topo, "vector_init",
                                  error)) {
        return FALSE;
    }
    igraph_error_t rc = igraph_connected_components(&topo->views->v[VIEW_NVLINK].graph, &membership,
                                                    NULL, &n_comp, IGRAPH_WEAK);
    if (!weft_topo_i_igraph_check(rc, topo, "connected_components", error)) {
        igraph_vector_int_destroy(&membership);
        return FALSE;
    }
    g_autofree gint *comp_domain = g_new(gint, MAX(n_comp, 1));
    for (igraph_integer_t c = 0; c < n_comp; c++) {
        comp_domain[c] = -1;
    }
    topo->n_domains = 0;
    for (guint g = 0; g < topo->gpu_vertex->len; g++) {
        igraph_integer_t c = VECTOR(membership)[g_array_index(topo->gpu_vertex, gint, g)];
        if (comp_domain[c] < 0) {
            comp_domain[c] = (gint)topo->n_domains++;
        }
    }
    topo->v_domain = g_new(gint, MAX(n, 1));
    for (guint v = 0; v < n; v++) {
        weft_vertex_kind_t kind = g_array_index(topo->v_kind, weft_vertex_kind_t, v);
        gboolean member = kind == WEFT_VERTEX_GPU || kind == WEFT_VERTEX_NVSWITCH;
        topo->v_domain[v] = member ? comp_domain[VECTOR(membership)[v]] : -1;
    }
    igraph_vector_int_destroy(&membership);
    return TRUE;
}

gboolean
weft_topo_i_views_init(weft_topo_t *topo, GError **error)
{
    topo->views = views_build(topo, NULL, 0, error);
    if (topo->views == NULL) {
        return FALSE;
    }
    if (!number_domains(topo, error)) {
        weft_topo_i_views_free(topo);
        return FALSE;
    }
    return TRUE;
}

void
weft_topo_i_views_free(weft_topo_t *topo)
{
    views_free(topo->views);
    topo->views = NULL;
}

/* ---- the fabric state ------------------------------------------------------------------ */

weft_fabric_t *
weft_fabric_new(const weft_topo_t *topo)
{
    g_return_val_if_fail(topo != NULL && topo->finalized, NULL);
    weft_fabric_t *r = g_new0(weft_fabric_t, 1);
    r->topo = topo;
    r->views = topo->views->v;
    guint n = topo->v_name->len;
    r->dist_cache = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, dist_entry_free);
    g_queue_init(&r->lru);
    r->dist_max = (guint)MAX((gsize)1, DIST_CACHE_BYTES / ((gsize)MAX(n, 1) * sizeof(guint8)));
    r->routes = g_hash_table_new(route_key_hash, route_key_equal);
    r->all_routes = g_ptr_array_new_with_free_func(g_free);
    r->local_dist = g_new(gint32, MAX(n, 1));
    r->own_nic = g_new(gint32, MAX(n, 1));
    for (guint v = 0; v < n; v++) {
        r->local_dist[v] = -1;
        r->own_nic[v] = OWN_NIC_UNKNOWN;
    }
    r->touched = g_array_new(FALSE, FALSE, sizeof(gint32));
    r->queue = g_array_new(FALSE, FALSE, sizeof(gint32));
    return r;
}

void
weft_fabric_free(weft_fabric_t *r)
{
    if (r == NULL) {
        return;
    }
    if (r->own != NULL) {
        weft_topo_i_igraph_lock();
        views_free(r->own);
        weft_topo_i_igraph_unlock();
    }
    /* the LRU links are embedded in the entries, which the table frees */
    g_hash_table_destroy(r->dist_cache);
    g_hash_table_destroy(r->routes);
    g_ptr_array_free(r->all_routes, TRUE);
    g_free(r->local_dist);
    g_free(r->own_nic);
    g_array_free(r->touched, TRUE);
    g_array_free(r->queue, TRUE);
    g_free(r->frac);
    g_free(r);
}

const weft_topo_t *
weft_fabric_topo(const weft_fabric_t *fab)
{
    g_return_val_if_fail(fab != NULL, NULL);
    return fab->topo;
}

/* ---- distances -------------------------------------------------------------------- */

/* The igraph graph of view @vi: shared with other threads when it is the cluster's, so pass it
 * to igraph only under weft_topo_i_igraph_lock() (topo_private.h: igraph's property cache). */
static const igraph_t *
view_graph(const weft_fabric_t *r, guint vi)
{
    const weft_topo_t *topo = r->topo;
    const view_t *view = &r->views[vi];
    return view->has_graph ? &view->graph : &topo->graph;
}

/* The adjacency a view walks: VIEW_HOST walks the fabric's. */
static inline const view_t *
view_adj(const weft_fabric_t *r, guint vi)
{
    return &r->views[vi == VIEW_HOST ? VIEW_FABRIC : vi];
}

/* Distinct neighbours of @v in view @vi other than @from, up to 2; the first is put in *@next. */
static guint
other_neighbours(const weft_fabric_t *r, guint vi, gint v, gint from, gint *next)
{
    const weft_topo_t *topo = r->topo;
    const view_t *view = &r->views[vi];
    guint count = 0;
    for (guint32 i = view->off[v]; i < view->off[v + 1]; i++) {
        gint w = e_to(topo, view->adj[i]);
        if (w == from || (count > 0 && w == *next)) {
            continue;
        }
        if (count == 0) {
            *next = w;
        }
        if (++count == 2) {
            break;
        }
    }
    return count;
}

/* The distances to @funnel in view @vi into @df's df or df8, from the LRU cache or one
 * igraph BFS. */
static gboolean
funnel_distances(weft_fabric_t *r, guint vi, gint funnel, dist_fn *df, GError **error)
{
    const weft_topo_t *topo = r->topo;
    guint64 key = ((guint64)vi << 32) | (guint32)funnel;
    dist_entry *d = g_hash_table_lookup(r->dist_cache, &key);
    if (d != NULL) {
        g_queue_unlink(&r->lru, &d->link);
        g_queue_push_head_link(&r->lru, &d->link);
        df->df = d->dist;
        df->df8 = d->dist8;
        return TRUE;
    }
    guint n = topo->v_name->len;
    weft_topo_i_igraph_lock();
    weft_topo_i_igraph_quiet();
    igraph_vector_int_t order;
    igraph_vector_int_t layers;
    if (!weft_topo_i_igraph_check(igraph_vector_int_init(&order, 0), topo, "vector_init", error)) {
        weft_topo_i_igraph_unlock();
        return FALSE;
    }
    igraph_error_t rc = igraph_vector_int_init(&layers, 0);
    if (rc == IGRAPH_SUCCESS) {
        /* mode IN: hops from every vertex to the funnel (the views are symmetric anyway) */
        rc = igraph_bfs_simple(view_graph(r, vi), funnel, IGRAPH_IN, &order, &layers, NULL);
        if (rc != IGRAPH_SUCCESS) {
            igraph_vector_int_destroy(&layers);
        }
    }
    if (!weft_topo_i_igraph_check(rc, topo, "bfs_simple", error)) {
        igraph_vector_int_destroy(&order);
        weft_topo_i_igraph_unlock();
        return FALSE;
    }
    d = g_new0(dist_entry, 1);
    d->key = key;
    igraph_integer_t nl = igraph_vector_int_size(&layers);
    /* layers has one entry per distance plus one: the farthest vertex is nl - 2 hops away */
    if (nl - 2 < (igraph_integer_t)DIST8_NONE) {
        d->dist8 = g_new(guint8, MAX(n, 1));
        memset(d->dist8, DIST8_NONE, MAX(n, 1));
        for (igraph_integer_t l = 0; l + 1 < nl; l++) {
            for (igraph_integer_t i = VECTOR(layers)[l]; i < VECTOR(layers)[l + 1]; i++) {
                d->dist8[VECTOR(order)[i]] = (guint8)l;
            }
        }
    } else {
        d->dist = g_new(gint32, MAX(n, 1));
        for (guint v = 0; v < n; v++) {
            d->dist[v] = -1;
        }
        for (igraph_integer_t l = 0; l + 1 < nl; l++) {
            for (igraph_integer_t i = VECTOR(layers)[l]; i < VECTOR(layers)[l + 1]; i++) {
                d->dist[VECTOR(order)[i]] = (gint32)l;
            }
        }
    }
    igraph_vector_int_destroy(&order);
    igraph_vector_int_destroy(&layers);
    weft_topo_i_igraph_unlock();

    /* dist_max counts byte entries; a 32-bit entry takes the room of four */
    guint cost = d->dist8 != NULL ? 1 : 4;
    while (g_queue_get_length(&r->lru) > 0 && r->dist_used + cost > r->dist_max) {
        GList *old = g_queue_pop_tail_link(&r->lru);
        dist_entry *victim = old->data;
        r->dist_used -= victim->dist8 != NULL ? 1 : 4;
        g_hash_table_remove(r->dist_cache, &victim->key);
    }
    r->dist_used += cost;
    d->link.data = d;
    g_queue_push_head_link(&r->lru, &d->link);
    g_hash_table_insert(r->dist_cache, &d->key, d);
    df->df = d->dist;
    df->df8 = d->dist8;
    return TRUE;
}

/* Resets the scratch distances touched by the last local BFS. */
static void
local_reset(weft_fabric_t *r)
{
    for (guint i = 0; i < r->touched->len; i++) {
        r->local_dist[g_array_index(r->touched, gint32, i)] = -1;
    }
    g_array_set_size(r->touched, 0);
}

/*
 * BFS from @dst into the scratch array, over the NVLink view (@vi =
 * VIEW_NVLINK) or over the fabric view kept to the vertices of @dst's host
 * (@vi = VIEW_HOST). It touches only @dst's NVLink domain or host (tens of
 * vertices), where an igraph BFS would cost O(V) in allocation per call on a
 * 40k-vertex cluster.
 */
static void
local_bfs(weft_fabric_t *r, guint vi, gint dst)
{
    const weft_topo_t *topo = r->topo;
    const view_t *view = view_adj(r, vi);
    gint host = vi == VIEW_HOST ? v_host(topo, dst) : -1;
    local_reset(r);
    g_array_set_size(r->queue, 0);
    r->local_dist[dst] = 0;
    g_array_append_val(r->touched, dst);
    g_array_append_val(r->queue, dst);
    for (guint head = 0; head < r->queue->len; head++) {
        gint32 u = g_array_index(r->queue, gint32, head);
        for (guint32 i = view->off[u]; i < view->off[u + 1]; i++) {
            gint32 w = e_to(topo, view->adj[i]);
            if (r->local_dist[w] < 0 && (host < 0 || v_host(topo, w) == host)) {
                r->local_dist[w] = r->local_dist[u] + 1;
                g_array_append_val(r->touched, w);
                g_array_append_val(r->queue, w);
            }
        }
    }
}

/*
 * A BFS from @funnel over view @vi into the scratch array, stopped once every vertex as
 * close to @funnel as @need is labeled (or the component is exhausted): exact for every
 * route from @need, which only ever steps to vertices closer to the funnel. FALSE (scratch
 * reset) when it touches more than max(BOUNDED_BFS_MIN, V / 64) vertices first: then the
 * whole BFS is worth caching. On a ring or torus of N vertices this is what makes routing
 * N pairs O(N) instead of N BFS of O(N) each. Requires a symmetric view (no link down), as
 * it walks out-edges where igraph's BFS to the funnel walks in-edges.
 */
#define BOUNDED_BFS_MIN 1024u

static gboolean
bounded_bfs(weft_fabric_t *r, guint vi, gint funnel, gint need)
{
    const weft_topo_t *topo = r->topo;
    const view_t *view = view_adj(r, vi);
    guint budget = MAX(BOUNDED_BFS_MIN, topo->v_name->len / 64);
    local_reset(r);
    g_array_set_size(r->queue, 0);
    r->local_dist[funnel] = 0;
    g_array_append_val(r->touched, funnel);
    g_array_append_val(r->queue, funnel);
    gint32 stop = funnel == need ? 0 : G_MAXINT32; /* need's distance, once labeled */
    for (guint head = 0; head < r->queue->len; head++) {
        gint32 u = g_array_index(r->queue, gint32, head);
        if (r->local_dist[u] >= stop) {
            break; /* every vertex at distance <= stop has been labeled */
        }
        for (guint32 i = view->off[u]; i < view->off[u + 1]; i++) {
            gint32 w = e_to(topo, view->adj[i]);
            if (r->local_dist[w] < 0) {
                r->local_dist[w] = r->local_dist[u] + 1;
                g_array_append_val(r->touched, w);
                g_array_append_val(r->queue, w);
                if (w == need) {
                    stop = r->local_dist[w];
                }
            }
        }
        if (r->touched->len > budget) {
            local_reset(r);
            return FALSE;
        }
    }
    return TRUE;
}

/*
 * Fills @d with the distances to @dst in view @vi (NVLink and host: local BFS;
 * others: funnel + chain), exact at least for @need and every vertex closer to
 * @dst than it (bounded_bfs()), or for all (a cached funnel BFS). A local BFS
 * overwrites the distances of the last one: use @d before the next call.
 */
static gboolean
distances_to(weft_fabric_t *r, guint vi, gint dst, gint need, dist_fn *d, GError **error)
{
    if (vi == VIEW_NVLINK || vi == VIEW_HOST) {
        local_bfs(r, vi, dst);
        d->df = r->local_dist;
        d->df8 = NULL;
        d->k = 0;
        return TRUE;
    }
    /* follow the chain dst -> NIC -> ... while a vertex has exactly one other neighbour */
    gint prev = -1;
    gint cur = dst;
    d->k = 0;
    d->chain[0] = dst;
    while (d->k < MAX_CHAIN) {
        gint next = -1;
        if (other_neighbours(r, vi, cur, prev, &next) != 1) {
            break;
        }
        prev = cur;
        cur = next;
        d->chain[++d->k] = cur;
    }
    guint64 key = ((guint64)vi << 32) | (guint32)cur;
    if (r->n_down == 0 && !g_hash_table_contains(r->dist_cache, &key) &&
        bounded_bfs(r, vi, cur, need)) {
        d->df = r->local_dist;
        d->df8 = NULL;
        return TRUE;
    }
    return funnel_distances(r, vi, cur, d, error);
}

/* ---- routes ----------------------------------------------------------------------- */

static guint64
mix(guint64 h, guint64 x)
{
    return weft_rng_splitmix64(h ^ x);
}

/* The DAG successors of @u: out-edges in view @vi one hop closer to the destination. */
static guint
dag_edges(const weft_fabric_t *r, guint vi, const dist_fn *d, gint u, GArray *out)
{
    const weft_topo_t *topo = r->topo;
    const view_t *view = view_adj(r, vi);
    gint32 du = dist_of(d, u);
    g_array_set_size(out, 0);
    for (guint32 i = view->off[u]; i < view->off[u + 1]; i++) {
        gint32 e = view->adj[i];
        if (dist_of(d, e_to(topo, e)) == du - 1) {
            g_array_append_val(out, e);
        }
    }
    return out->len;
}

/* Counts equal-cost paths src -> dst, saturating at @cap, by DP over the distance layers. */
static guint64
count_dag(const weft_fabric_t *r, guint vi, const dist_fn *d, gint src, gint dst, guint64 cap)
{
    const weft_topo_t *topo = r->topo;
    gint32 ds = dist_of(d, src);
    g_assert(ds >= 0);
    /* layers[i]: vertices at distance ds - i reachable from src along the DAG */
    g_autoptr(GHashTable) count =
        g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    g_autoptr(GPtrArray) layers = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    g_autoptr(GArray) succ = g_array_new(FALSE, FALSE, sizeof(gint32));
    GArray *l0 = g_array_new(FALSE, FALSE, sizeof(gint32));
    g_array_append_val(l0, src);
    g_ptr_array_add(layers, l0);
    g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (gint32 i = 0; i < ds; i++) {
        GArray *cur = g_ptr_array_index(layers, i);
        GArray *next = g_array_new(FALSE, FALSE, sizeof(gint32));
        for (guint j = 0; j < cur->len; j++) {
            dag_edges(r, vi, d, g_array_index(cur, gint32, j), succ);
            for (guint s = 0; s < succ->len; s++) {
                gint32 w = e_to(topo, g_array_index(succ, gint32, s));
                if (g_hash_table_add(seen, GINT_TO_POINTER(w + 1))) {
                    g_array_append_val(next, w);
                }
            }
        }
        g_ptr_array_add(layers, next);
    }
    guint64 *one = g_new(guint64, 1);
    *one = 1;
    g_hash_table_insert(count, GINT_TO_POINTER(dst + 1), one);
    for (gint32 i = ds - 1; i >= 0; i--) {
        GArray *cur = g_ptr_array_index(layers, i);
        for (guint j = 0; j < cur->len; j++) {
            gint32 u = g_array_index(cur, gint32, j);
            dag_edges(r, vi, d, u, succ);
            guint64 c = 0;
            for (guint s = 0; s < succ->len; s++) {
                gint32 w = e_to(topo, g_array_index(succ, gint32, s));
                const guint64 *cw = g_hash_table_lookup(count, GINT_TO_POINTER(w + 1));
                guint64 add = cw != NULL ? *cw : 0;
                c = (c > cap - add) ? cap : c + add;
            }
            guint64 *cu = g_new(guint64, 1);
            *cu = c;
            g_hash_table_replace(count, GINT_TO_POINTER(u + 1), cu);
        }
    }
    const guint64 *cs = g_hash_table_lookup(count, GINT_TO_POINTER(src + 1));
    return cs != NULL ? *cs : 0;
}

/* Lists every equal-cost edge path from @u to the destination (depth-first, in edge-id order). */
static void
list_paths(const weft_fabric_t *r, guint vi, const dist_fn *d, gint u, GArray *prefix,
           GPtrArray *paths)
{
    const weft_topo_t *topo = r->topo;
    if (dist_of(d, u) == 0) {
        g_ptr_array_add(paths, g_array_copy(prefix));
        return;
    }
    g_autoptr(GArray) succ = g_array_new(FALSE, FALSE, sizeof(gint32));
    dag_edges(r, vi, d, u, succ);
    for (guint s = 0; s < succ->len; s++) {
        gint32 e = g_array_index(succ, gint32, s);
        g_array_append_val(prefix, e);
        list_paths(r, vi, d, e_to(topo, e), prefix, paths);
        g_array_set_size(prefix, prefix->len - 1);
    }
}

/*
 * TRUE when the equal-cost edge paths differ only in NVSwitch vertices: at every
 * position either all paths pass the same vertex, or every path passes an
 * NVSwitch there, and at least one position differs (parallel edges between the
 * same two vertices give identical vertex paths: they are not NVSwitch planes).
 */
static gboolean
paths_are_nvswitch_planes(const weft_topo_t *topo, GPtrArray *paths)
{
    if (paths->len < 2) {
        return FALSE;
    }
    const GArray *p0 = g_ptr_array_index(paths, 0);
    gboolean differs = FALSE;
    /* the vertex after edge i, for every edge but the last (that is the destination) */
    for (guint i = 0; i + 1 < p0->len; i++) {
        gint v0 = e_to(topo, g_array_index(p0, gint32, i));
        gboolean same = TRUE;
        gboolean all_nvswitch = TRUE;
        for (guint p = 0; p < paths->len; p++) {
            const GArray *pp = g_ptr_array_index(paths, p);
            gint v = e_to(topo, g_array_index(pp, gint32, i));
            if (v != v0) {
                same = FALSE;
            }
            if (weft_topo_vertex_kind(topo, v) != WEFT_VERTEX_NVSWITCH) {
                all_nvswitch = FALSE;
            }
        }
        if (!same) {
            if (!all_nvswitch) {
                return FALSE;
            }
            differs = TRUE;
        }
    }
    return differs;
}

/* A route block for @n_paths paths of @hops edges each; the caller fills it. */
static route_blk *
route_blk_new(weft_fabric_t *r, route_key key, guint n_paths, guint hops)
{
    gsize size = sizeof(route_blk) + sizeof(double) * n_paths + sizeof(guint32) * (n_paths + 1) +
                 sizeof(gint32) * (gsize)n_paths * hops;
    route_blk *b = g_malloc0(size);
    double *share = (double *)(b + 1);
    guint32 *off = (guint32 *)(share + n_paths);
    gint32 *edges = (gint32 *)(off + n_paths + 1);
    b->key = key;
    b->route.n_paths = n_paths;
    b->route.share = share;
    b->route.path_off = off;
    b->route.edges = edges;
    b->route.hops = hops;
    g_ptr_array_add(r->all_routes, b);
    return b;
}

/* Fills shares (proportional to bottleneck), latency and rate of a built route. */
static void
route_finish(const weft_fabric_t *fab, weft_route_t *r)
{
    const weft_topo_t *topo = fab->topo;
    g_autofree double *bottleneck = g_new(double, MAX(r->n_paths, 1));
    double sum = 0.0;
    weft_time_t latency = 0;
    for (guint p = 0; p < r->n_paths; p++) {
        double b = INFINITY;
        weft_time_t lat = 0;
        for (guint32 i = r->path_off[p]; i < r->path_off[p + 1]; i++) {
            b = MIN(b, weft_fabric_edge_bw_now(fab, r->edges[i]));
            lat += weft_topo_edge_latency(topo, r->edges[i]);
        }
        bottleneck[p] = b;
        sum += b;
        latency = MAX(latency, lat);
    }
    /* Proportional spraying: share_p = b_p / sum b, so every path finishes together. */
    double rate = INFINITY;
    double *share = (double *)r->share;
    for (guint p = 0; p < r->n_paths; p++) {
        share[p] = bottleneck[p] / sum;
        rate = MIN(rate, bottleneck[p] / share[p]);
    }
    r->latency_ps = latency;
    r->rate_Bps = rate;
}

/*
 * The own-rail NIC of vertex @v: for a GPU with a host and a rail, the NIC of
 * its host on its rail nearest to it in the fabric view without leaving the
 * host (ties: lowest vertex id); -1 for any other vertex or when there is
 * none. Looked up once per vertex (a BFS inside the host), then kept.
 */
static gint
own_nic(weft_fabric_t *r, gint v)
{
    const weft_topo_t *topo = r->topo;
    if (r->own_nic[v] != OWN_NIC_UNKNOWN) {
        return r->own_nic[v];
    }
    gint rail = v_rail(topo, v);
    gint best = -1;
    if (v_kind(topo, v) == WEFT_VERTEX_GPU && v_host(topo, v) >= 0 && rail >= 0) {
        local_bfs(r, VIEW_HOST, v);
        for (guint i = 0; i < r->touched->len; i++) {
            gint32 w = g_array_index(r->touched, gint32, i);
            if (v_kind(topo, w) != WEFT_VERTEX_NIC || v_rail(topo, w) != rail) {
                continue;
            }
            if (best < 0 || r->local_dist[w] < r->local_dist[best] ||
                (r->local_dist[w] == r->local_dist[best] && w < best)) {
                best = w;
            }
        }
    }
    r->own_nic[v] = best;
    return best;
}

/* The view for a pair: NVLink inside one domain, else the fabric if it connects them, else all
 * edges; @d holds the distances to @dst in that view. */
static gboolean
pick_view(weft_fabric_t *r, gint src, gint dst, guint *vi, dist_fn *d, GError **error)
{
    const weft_topo_t *topo = r->topo;
    gint ds = topo->v_domain[src];
    if (ds >= 0 && ds == topo->v_domain[dst]) {
        *vi = VIEW_NVLINK;
        if (!distances_to(r, VIEW_NVLINK, dst, src, d, error)) {
            return FALSE;
        }
        if (dist_of(d, src) >= 0) {
            return TRUE;
        }
    }
    for (guint v = VIEW_FABRIC; v <= VIEW_FULL; v++) {
        *vi = v;
        if (!distances_to(r, v, dst, src, d, error)) {
            return FALSE;
        }
        if (dist_of(d, src) >= 0) {
            return TRUE;
        }
    }
    g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_NO_ROUTE,
                "cluster %s: no path from %s to %s", topo->name, weft_topo_vertex_name(topo, src),
                weft_topo_vertex_name(topo, dst));
    return FALSE;
}

/*
 * The segments of the route src -> dst (src != dst), as topo/topo.h says:
 * between NVLink domains on different hosts, when @src has an own-rail NIC
 * (the exit) or @dst has one (the entry) and the network view joins exit (or
 * @src) to entry (or @dst): up to three segments; otherwise one segment in the
 * view pick_view() chooses.
 */
static gboolean
plan_route(weft_fabric_t *r, gint src, gint dst, plan_t *plan, GError **error)
{
    const weft_topo_t *topo = r->topo;
    gint ds = topo->v_domain[src];
    gint hs = v_host(topo, src);
    gboolean same_domain = ds >= 0 && ds == topo->v_domain[dst];
    gboolean same_host = hs >= 0 && hs == v_host(topo, dst);
    plan->n = 0;
    if (!same_domain && !same_host) {
        gint exit_nic = own_nic(r, src);
        gint entry_nic = own_nic(r, dst);
        if (exit_nic >= 0 || entry_nic >= 0) {
            gint a = exit_nic >= 0 ? exit_nic : src;
            gint b = entry_nic >= 0 ? entry_nic : dst;
            dist_fn d;
            if (!distances_to(r, VIEW_NET, b, a, &d, error)) {
                return FALSE;
            }
            if (dist_of(&d, a) >= 0) {
                if (exit_nic >= 0) {
                    plan->seg[plan->n++] = (segment){VIEW_HOST, src, exit_nic};
                }
                plan->seg[plan->n++] = (segment){VIEW_NET, a, b};
                if (entry_nic >= 0) {
                    plan->seg[plan->n++] = (segment){VIEW_HOST, entry_nic, dst};
                }
                return TRUE;
            }
        }
    }
    guint vi;
    dist_fn d;
    if (!pick_view(r, src, dst, &vi, &d, error)) {
        return FALSE;
    }
    plan->seg[plan->n++] = (segment){vi, src, dst};
    return TRUE;
}

/*
 * The ECMP walk over the segments of @plan: from each segment's start, at each
 * hop keep the out-edges one hop closer to its end, narrow them to those
 * reaching a vertex on the rail of @src or @dst (the route's ends) when any
 * does, and pick one. The slot's digits in mixed radix (one digit per hop of
 * the whole route that has n > 1 choices) pick the choice, rotated by a hash
 * of (seed, src, dst, hop number in the route), so the 64 slots split evenly
 * over the paths when the fan-outs divide 64. *@branched tells whether any hop
 * had a choice. Returns NULL only when an igraph BFS fails.
 */
static route_blk *
ecmp_walk(weft_fabric_t *r, const plan_t *plan, gint src, gint dst, guint slot, gboolean *branched,
          GError **error)
{
    const weft_topo_t *topo = r->topo;
    g_autoptr(GArray) path = g_array_new(FALSE, FALSE, sizeof(gint32));
    g_autoptr(GArray) cand = g_array_new(FALSE, FALSE, sizeof(gint32));
    g_autoptr(GArray) railed = g_array_new(FALSE, FALSE, sizeof(gint32));
    gint rail_s = v_rail(topo, src);
    gint rail_d = v_rail(topo, dst);
    guint64 base = mix(mix(mix(r->ecmp_seed, HOP_SALT), (guint64)src), (guint64)dst);
    guint q = slot;
    *branched = FALSE;
    for (guint s = 0; s < plan->n; s++) {
        const segment *sg = &plan->seg[s];
        dist_fn d;
        if (!distances_to(r, sg->vi, sg->to, sg->from, &d, error)) {
            return NULL;
        }
        gint u = sg->from;
        for (gint32 left = dist_of(&d, u); left > 0; left--) {
            guint n = dag_edges(r, sg->vi, &d, u, cand);
            g_assert(n > 0);
            GArray *from = cand;
            if (n > 1) {
                g_array_set_size(railed, 0);
                for (guint i = 0; i < n; i++) {
                    gint32 e = g_array_index(cand, gint32, i);
                    gint rw = v_rail(topo, e_to(topo, e));
                    if (rw >= 0 && (rw == rail_s || rw == rail_d)) {
                        g_array_append_val(railed, e);
                    }
                }
                if (railed->len > 0) {
                    from = railed;
                    n = railed->len;
                }
            }
            guint pick = 0;
            if (n > 1) {
                *branched = TRUE;
                guint rot = (guint)(mix(base, (guint64)path->len) % n);
                pick = (q % n + rot) % n;
                q /= n;
            }
            gint32 e = g_array_index(from, gint32, pick);
            g_array_append_val(path, e);
            u = e_to(topo, e);
        }
        g_assert(u == sg->to);
    }
    route_key key = {src, dst, slot};
    guint hops = path->len;
    route_blk *b = route_blk_new(r, key, 1, hops);
    ((guint32 *)b->route.path_off)[0] = 0;
    ((guint32 *)b->route.path_off)[1] = hops;
    memcpy((gint32 *)b->route.edges, path->data, sizeof(gint32) * (gsize)hops);
    route_finish(r, &b->route);
    return b;
}

/* Builds the route of (src, dst, slot) for src != dst. */
static route_blk *
compute_route(weft_fabric_t *r, gint src, gint dst, guint slot, GError **error)
{
    const weft_topo_t *topo = r->topo;
    plan_t plan;
    if (!plan_route(r, src, dst, &plan, error)) {
        return NULL;
    }
    guint vi = plan.seg[0].vi;
    if (plan.n == 1 && (vi == VIEW_NVLINK || vi == VIEW_FULL)) {
        /* NVSwitch planes can only appear where NVLink edges are: check for spraying */
        dist_fn d;
        if (!distances_to(r, vi, dst, src, &d, error)) {
            return NULL;
        }
        guint64 n = count_dag(r, vi, &d, src, dst, MAX_SPRAY_PATHS + 1);
        if (n >= 2 && n <= MAX_SPRAY_PATHS) {
            g_autoptr(GPtrArray) paths =
                g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
            g_autoptr(GArray) prefix = g_array_new(FALSE, FALSE, sizeof(gint32));
            list_paths(r, vi, &d, src, prefix, paths);
            if (paths_are_nvswitch_planes(topo, paths)) {
                guint hops = ((GArray *)g_ptr_array_index(paths, 0))->len;
                route_key key = {src, dst, SLOT_SINGLE};
                route_blk *b = route_blk_new(r, key, paths->len, hops);
                guint32 *off = (guint32 *)b->route.path_off;
                gint32 *edges = (gint32 *)b->route.edges;
                for (guint p = 0; p < paths->len; p++) {
                    const GArray *pp = g_ptr_array_index(paths, p);
                    off[p] = p * hops;
                    memcpy(edges + off[p], pp->data, sizeof(gint32) * hops);
                }
                off[paths->len] = paths->len * hops;
                route_finish(r, &b->route);
                return b;
            }
        }
    }
    gboolean branched = FALSE;
    route_blk *b = ecmp_walk(r, &plan, src, dst, slot, &branched, error);
    if (b != NULL && !branched) {
        b->key.slot = SLOT_SINGLE;
    }
    return b;
}

void
weft_fabric_set_ecmp_seed(weft_fabric_t *fab, guint64 seed)
{
    g_return_if_fail(fab != NULL);
    fab->ecmp_seed = seed;
    /* routes already handed out stay alive in all_routes */
    g_hash_table_remove_all(fab->routes);
    fab->epoch++;
}

guint64
weft_fabric_ecmp_seed(const weft_fabric_t *fab)
{
    g_return_val_if_fail(fab != NULL, 0);
    return fab->ecmp_seed;
}

#define CHECK_V(fab, v, ret)                                                                       \
    g_return_val_if_fail((v) >= 0 && (guint)(v) < (fab)->topo->v_name->len, ret)

guint
weft_fabric_ecmp_slot(const weft_fabric_t *fab, gint src, gint dst, guint64 flow_id)
{
    g_return_val_if_fail(fab != NULL, 0);
    guint64 h = mix(mix(mix(fab->ecmp_seed, (guint64)src), (guint64)dst), flow_id);
    return (guint)(weft_rng_splitmix64(h) % ECMP_SLOTS);
}

const weft_route_t *
weft_fabric_route_slot(weft_fabric_t *r, gint src, gint dst, guint slot, GError **error)
{
    g_return_val_if_fail(r != NULL, NULL);
    CHECK_V(r, src, NULL);
    CHECK_V(r, dst, NULL);
    g_return_val_if_fail(slot < ECMP_SLOTS, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);

    route_key key = {src, dst, SLOT_SINGLE};
    route_blk *b = g_hash_table_lookup(r->routes, &key);
    if (b != NULL) {
        return &b->route;
    }
    key.slot = slot;
    b = g_hash_table_lookup(r->routes, &key);
    if (b != NULL) {
        return &b->route;
    }
    if (src == dst) {
        key.slot = SLOT_SINGLE;
        b = route_blk_new(r, key, 0, 0);
        b->route.latency_ps = 0;
        b->route.rate_Bps = INFINITY;
    } else {
        b = compute_route(r, src, dst, key.slot, error);
        if (b == NULL) {
            return NULL;
        }
    }
    g_hash_table_insert(r->routes, &b->key, b);
    return &b->route;
}

const weft_route_t *
weft_fabric_route_ecmp(weft_fabric_t *fab, gint src, gint dst, guint64 flow_id, GError **error)
{
    g_return_val_if_fail(fab != NULL, NULL);
    return weft_fabric_route_slot(fab, src, dst, weft_fabric_ecmp_slot(fab, src, dst, flow_id),
                                  error);
}

const weft_route_t *
weft_fabric_route_ecmp_slot(weft_fabric_t *fab, gint src, gint dst, guint64 flow_id, GError **error)
{
    g_return_val_if_fail(fab != NULL && src != dst, NULL);
    CHECK_V(fab, src, NULL);
    CHECK_V(fab, dst, NULL);
    route_key key = {src, dst, weft_fabric_ecmp_slot(fab, src, dst, flow_id)};
    route_blk *b = g_hash_table_lookup(fab->routes, &key);
    if (b != NULL) {
        return &b->route;
    }
    /* not cached yet: the full lookup (which also finds a fixed route) */
    return weft_fabric_route_ecmp(fab, src, dst, flow_id, error);
}

guint64
weft_fabric_route_epoch(const weft_fabric_t *fab)
{
    g_return_val_if_fail(fab != NULL, 0);
    return fab->epoch;
}

const weft_route_t *
weft_fabric_route_fixed_cached(const weft_fabric_t *fab, gint src, gint dst)
{
    g_return_val_if_fail(fab != NULL, NULL);
    route_key key = {src, dst, SLOT_SINGLE};
    route_blk *b = g_hash_table_lookup(fab->routes, &key);
    return b != NULL ? &b->route : NULL;
}

gboolean
weft_fabric_route_is_fixed(weft_fabric_t *fab, gint src, gint dst)
{
    g_return_val_if_fail(fab != NULL, FALSE);
    if (src == dst) {
        return TRUE;
    }
    const weft_route_t *r = weft_fabric_route_ecmp(fab, src, dst, 0, NULL);
    if (r == NULL) {
        return FALSE;
    }
    route_key key = {src, dst, SLOT_SINGLE};
    route_blk *b = g_hash_table_lookup(fab->routes, &key);
    return b != NULL && &b->route == r;
}

const weft_route_t *
weft_fabric_route(weft_fabric_t *fab, gint src, gint dst, GError **error)
{
    return weft_fabric_route_ecmp(fab, src, dst, 0, error);
}

gboolean
weft_fabric_count_paths(weft_fabric_t *r, gint src, gint dst, guint64 *n_paths, GError **error)
{
    g_return_val_if_fail(r != NULL, FALSE);
    CHECK_V(r, src, FALSE);
    CHECK_V(r, dst, FALSE);
    g_return_val_if_fail(n_paths != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

    *n_paths = 0;
    if (src == dst) {
        *n_paths = 1;
        return TRUE;
    }
    const weft_route_t *route = weft_fabric_route(r, src, dst, error);
    if (route == NULL) {
        return FALSE;
    }
    if (route->n_paths > 1) {
        *n_paths = 1; /* a sprayed route is one choice */
        return TRUE;
    }
    /* ECMP chooses independently in each segment: the product of the segments' counts */
    plan_t plan;
    if (!plan_route(r, src, dst, &plan, error)) {
        return FALSE;
    }
    guint64 total = 1;
    for (guint s = 0; s < plan.n; s++) {
        const segment *sg = &plan.seg[s];
        dist_fn d;
        if (!distances_to(r, sg->vi, sg->to, sg->from, &d, error)) {
            return FALSE;
        }
        guint64 c = count_dag(r, sg->vi, &d, sg->from, sg->to, G_MAXUINT64);
        total = (c != 0 && total > G_MAXUINT64 / c) ? G_MAXUINT64 : total * c;
    }
    *n_paths = total;
    return TRUE;
}

/* ---- link state (faults) ------------------------------------------------------------- */

/*
 * Forgets every distance, own-rail NIC and cached route (routes handed out stay alive in
 * all_routes) and, when @views, rebuilds @r's own views without the links that are down, or
 * goes back to the cluster's (which are those views) once none is.
 */
static gboolean
routing_reset(weft_fabric_t *r, gboolean views, GError **error)
{
    g_hash_table_remove_all(r->routes);
    r->epoch++;
    g_hash_table_remove_all(r->dist_cache); /* frees the entries and their embedded LRU links */
    g_queue_init(&r->lru);
    r->dist_used = 0;
    guint n = r->topo->v_name->len;
    for (guint v = 0; v < n; v++) {
        r->own_nic[v] = OWN_NIC_UNKNOWN;
    }
    if (!views) {
        return TRUE;
    }
    weft_topo_i_igraph_lock();
    views_free(r->own);
    r->own = NULL;
    r->views = r->topo->views->v;
    if (r->n_down > 0) {
        r->own = views_build(r->topo, r->frac, r->n_down, error);
        if (r->own != NULL) {
            r->views = r->own->v;
        }
    }
    weft_topo_i_igraph_unlock();
    return r->n_down == 0 || r->own != NULL;
}

gboolean
weft_fabric_set_link_fraction(weft_fabric_t *r, gint e, double fraction, GError **error)
{
    g_return_val_if_fail(r != NULL, FALSE);
    const weft_topo_t *topo = r->topo;
    g_return_val_if_fail(e >= 0 && (guint)e < topo->e_from->len, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    if (!(fraction >= 0.0 && fraction <= 1.0)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "cluster %s: link %s -> %s: fraction %g of its bandwidth is outside [0, 1]",
                    topo->name, weft_topo_vertex_name(topo, weft_topo_edge_from(topo, e)),
                    weft_topo_vertex_name(topo, weft_topo_edge_to(topo, e)), fraction);
        return FALSE;
    }
    double old = r->frac != NULL ? r->frac[e] : 1.0;
    if (old == fraction) {
        return TRUE;
    }
    if (r->frac == NULL) {
        r->frac = g_new(double, MAX(topo->e_from->len, 1));
        for (guint i = 0; i < topo->e_from->len; i++) {
            r->frac[i] = 1.0;
        }
    }
    gboolean was_down = old <= 0.0;
    gboolean is_down = fraction <= 0.0;
    r->frac[e] = fraction;
    if (is_down && !was_down) {
        r->n_down++;
    } else if (was_down && !is_down) {
        r->n_down--;
    }
    r->version++;
    /* A link going down or up changes the paths; a degraded one only the routes' rates. */
    return routing_reset(r, is_down != was_down, error);
}

double
weft_fabric_edge_fraction(const weft_fabric_t *fab, gint e)
{
    g_return_val_if_fail(fab != NULL, 1.0);
    g_return_val_if_fail(e >= 0 && (guint)e < fab->topo->e_from->len, 1.0);
    return fab->frac != NULL ? fab->frac[e] : 1.0;
}

double
weft_fabric_edge_bw_now(const weft_fabric_t *fab, gint e)
{
    double bw = weft_topo_edge_bw(fab->topo, e);
    if (fab->frac != NULL) {
        bw *= fab->frac[e];
    }
    return bw;
}

guint64
weft_fabric_link_version(const weft_fabric_t *fab)
{
    g_return_val_if_fail(fab != NULL, 0);
    return fab->version;
}
