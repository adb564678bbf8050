/* SPDX-License-Identifier: MIT */
/*
 * Collective plans: the builder core (transfers, dependencies of both kinds,
 * the automatic link dependency on the previous transfer of the same channel
 * and pair, range lists between the phases of composite algorithms), packing
 * into the compressed successor arrays (CSR) the executor walks, names,
 * printing and weft_coll_plan_build() (see coll.h for the algorithms, algos.c
 * for their code, doc/collectives.md for the size convention and closed
 * forms). Transfers are emitted in an order where every predecessor comes
 * first, so the plan is topological by construction (asserted per dependency).
 */
#define G_LOG_DOMAIN "weft-coll"

#include "coll/coll.h"

#include <string.h>
#include <unistd.h>

#include "coll/coll_private.h"

/* The quark's name is stringified from tokens: clang-format must not space its dashes. */
/* clang-format off */
G_DEFINE_QUARK(weft-coll-error-quark, weft_coll_error)
/* clang-format on */

/* More transfers than this is a mistake in the request (and would not fit guint32 ids). */
#define MAX_XFERS ((guint64)G_MAXUINT32 / 2)

/* Memory to build and run one stored transfer, about: its record (32 B), the builder's two
 * dependencies (24 B), the packed successor arrays (18 B) and the executor's counters (12 B). */
#define XFER_BYTES 96

/* ---- names ------------------------------------------------------------------ */

/* nccl-tests binary names (all_reduce_perf, alltoall_perf, ...) where one exists. */
static const char *const op_names[WEFT_COLL_N_OPS] = {
    [WEFT_COLL_ALL_REDUCE] = "all_reduce",
    [WEFT_COLL_REDUCE] = "reduce",
    [WEFT_COLL_ALL_GATHER] = "all_gather",
    [WEFT_COLL_GATHER] = "gather",
    [WEFT_COLL_SCATTER] = "scatter",
    [WEFT_COLL_BROADCAST] = "broadcast",
    [WEFT_COLL_ALL_TO_ALL] = "alltoall",
    [WEFT_COLL_REDUCE_SCATTER] = "reduce_scatter",
    [WEFT_COLL_REDUCE_SCATTER_BLOCK] = "reduce_scatter_block",
    [WEFT_COLL_BARRIER] = "barrier",
};

const char *
weft_coll_op_name(weft_coll_op_t op)
{
    g_return_val_if_fail((guint)op < WEFT_COLL_N_OPS, "?");
    return op_names[op];
}

/* Lower-case @s without '_' and '-' into @out (of @size bytes). */
static void
normalize_name(const char *s, char *out, gsize size)
{
    gsize j = 0;
    for (; *s != '\0' && j + 1 < size; s++) {
        if (*s != '_' && *s != '-') {
            out[j++] = g_ascii_tolower(*s);
        }
    }
    out[j] = '\0';
}

gboolean
weft_coll_op_from_name(const char *name, weft_coll_op_t *op)
{
    g_return_val_if_fail(name != NULL, FALSE);
    g_return_val_if_fail(op != NULL, FALSE);
    if (strlen(name) >= 64) {
        return FALSE;
    }
    char want[64];
    char have[64];
    normalize_name(name, want, sizeof want);
    for (guint i = 0; i < WEFT_COLL_N_OPS; i++) {
        normalize_name(op_names[i], have, sizeof have);
        if (strcmp(want, have) == 0) {
            *op = (weft_coll_op_t)i;
            return TRUE;
        }
    }
    return FALSE;
}

static const char *const algo_names[] = {
    [WEFT_COLL_ALGO_AUTO] = "auto",
    [WEFT_COLL_ALGO_RING] = "ring",
    [WEFT_COLL_ALGO_DIRECT] = "direct",
    [WEFT_COLL_ALGO_TREE] = "tree",
    [WEFT_COLL_ALGO_HALVING_DOUBLING] = "halving_doubling",
    [WEFT_COLL_ALGO_HIERARCHICAL] = "hierarchical",
    [WEFT_COLL_ALGO_NVLS] = "nvls",
    [WEFT_COLL_ALGO_NVLS_TREE] = "nvls_tree",
    [WEFT_COLL_ALGO_COLLNET] = "collnet",
    [WEFT_COLL_N_ALGOS] = NULL,
};
const weft_enum_t weft_coll_algo_enum = {"collective algorithm", algo_names};

static const char *const proto_key_names[] = {
    [WEFT_COLL_PROTO_AUTO] = "auto",   [WEFT_COLL_PROTO_LL] = "ll",
    [WEFT_COLL_PROTO_LL128] = "ll128", [WEFT_COLL_PROTO_SIMPLE] = "simple",
    [WEFT_COLL_N_PROTOS] = NULL,
};
const weft_enum_t weft_coll_proto_enum = {"collective protocol", proto_key_names};

const char *
weft_coll_algo_name(weft_coll_algo_t algo)
{
    return weft_enum_name(&weft_coll_algo_enum, (gint)algo);
}

/* ---- protocols ----------------------------------------------------------------- */

const char *
weft_coll_proto_name(weft_coll_proto_t proto)
{
    switch (proto) {
    case WEFT_COLL_PROTO_AUTO:
        return "auto";
    case WEFT_COLL_PROTO_LL:
        return "LL";
    case WEFT_COLL_PROTO_LL128:
        return "LL128";
    case WEFT_COLL_PROTO_SIMPLE:
        return "Simple";
    case WEFT_COLL_N_PROTOS:
        break;
    }
    return "?";
}

/*
 * NCCL's wire formats: LL sends 16-byte lines of 8 data bytes and 8 flag bytes
 * (src/device/prims_ll.h, union ncclLLFifoLine), LL128 128-byte lines of which
 * one 8-byte word in 16 is a flag (NCCL_LL128_DATAELEMS 15 of NCCL_LL128_LINEELEMS
 * 16, src/include/device.h), Simple sends the data as it is.
 */
double
weft_coll_proto_efficiency(weft_coll_proto_t proto)
{
    switch (proto) {
    case WEFT_COLL_PROTO_LL:
        return 0.5;
    case WEFT_COLL_PROTO_LL128:
        return 120.0 / 128.0;
    default:
        return 1.0;
    }
}

/* ---- the builder core ----------------------------------------------------------- */

/* A (channel, src, dst) key: 16 + 24 + 24 bits (plan_build refuses larger endpoints). */
static inline gpointer
link_key(guint channel, guint src, guint dst)
{
    return GSIZE_TO_POINTER(((guint64)channel << 48) | ((guint64)src << 24) | (guint64)dst);
}

#define MAX_ENDPOINTS (1u << 24)
#define MAX_CHANNELS (1u << 16)

/* The transfer just appended follows the last one on @key (a lane's pair or copy stream):
 * a link dependency on it; @key's last is now this one. Returns its index. */
static guint32
chain_on(coll_builder_t *b, gpointer key)
{
    guint32 t = b->xfers->len - 1;
    gpointer prev = g_hash_table_lookup(b->last, key);
    b->link_dep = COLL_NONE;
    if (prev != NULL) {
        coll_dep_t d = {
            .pred = (guint32)(GPOINTER_TO_SIZE(prev) - 1), .succ = t, .kind = WEFT_COLL_DEP_LINK};
        b->link_dep = b->deps->len;
        g_array_append_val(b->deps, d);
    }
    g_hash_table_insert(b->last, key, GSIZE_TO_POINTER((gsize)t + 1));
    return t;
}

guint32
weft_coll_i_add_xfer(coll_builder_t *b, guint lane, guint src, guint dst, guint64 bytes,
                     guint64 offset, guint8 flags)
{
    g_assert(src != dst);
    guint n = b->n_members;
    gboolean inter;
    if (src >= n || dst >= n) {
        guint v = src >= n ? src - n : dst - n;
        inter = g_array_index(b->virt_inter, gboolean, v);
    } else {
        inter = b->layout->dom[src] != b->layout->dom[dst];
    }
    weft_coll_xfer_t x = {
        .src = src,
        .dst = dst,
        .bytes = bytes,
        .offset = offset,
        .channel = (guint16)(lane >> b->lane_shift),
        .sharing = 1,
        .flags = (guint8)(flags | (inter ? WEFT_COLL_XFER_INTER : 0)),
    };
    g_array_append_val(b->xfers, x);
    return chain_on(b, link_key(lane, src, dst));
}

guint32
weft_coll_i_add_copy(coll_builder_t *b, guint lane, guint member, guint stream, guint64 bytes,
                     guint64 offset)
{
    g_assert(member < b->n_members && stream < 2);
    weft_coll_xfer_t x = {
        .src = member,
        .dst = member,
        .bytes = bytes,
        .offset = offset,
        .channel = (guint16)(lane >> b->lane_shift),
        .sharing = 1,
        .flags = WEFT_COLL_XFER_COPY,
    };
    g_array_append_val(b->xfers, x);
    /* each stream's copies in order, apart from the other stream's and the network pairs'
     * (no endpoint is MAX_ENDPOINTS - 1: plans hold fewer) */
    return chain_on(b, link_key(lane, stream == 0 ? member : MAX_ENDPOINTS - 1, member));
}

void
weft_coll_i_add_dep(coll_builder_t *b, guint32 pred, guint32 succ)
{
    g_assert(pred < succ); /* the plan stays topological */
    if (succ == b->xfers->len - 1 && b->link_dep != COLL_NONE) {
        coll_dep_t *l = &g_array_index(b->deps, coll_dep_t, b->link_dep);
        if (l->pred == pred) {
            /* Waiting for the delivery covers waiting for the last byte to leave. */
            l->kind = WEFT_COLL_DEP_DATA;
            return;
        }
    }
    coll_dep_t d = {.pred = pred, .succ = succ, .kind = WEFT_COLL_DEP_DATA};
    g_array_append_val(b->deps, d);
}

guint
weft_coll_i_virtual(coll_builder_t *b, gint v, gboolean inter)
{
    for (guint i = 0; i < b->virt->len; i++) {
        if (g_array_index(b->virt, gint, i) == v) {
            return b->n_members + i;
        }
    }
    g_array_append_val(b->virt, v);
    g_array_append_val(b->virt_inter, inter);
    return b->n_members + b->virt->len - 1;
}

/* ---- range lists ------------------------------------------------------------------ */

GArray **
weft_coll_i_ranges_new(guint n)
{
    GArray **r = g_new(GArray *, MAX(n, 1));
    for (guint i = 0; i < n; i++) {
        r[i] = g_array_new(FALSE, FALSE, sizeof(coll_range_t));
    }
    return r;
}

void
weft_coll_i_ranges_free(GArray **r, guint n)
{
    if (r == NULL) {
        return;
    }
    for (guint i = 0; i < n; i++) {
        g_array_unref(r[i]);
    }
    g_free(r);
}

void
weft_coll_i_ranges_add(GArray **r, guint ep, guint64 off, guint64 len, guint32 t)
{
    coll_range_t e = {.off = off, .len = len, .t = t};
    g_array_append_val(r[ep], e);
}

static gint
range_cmp(gconstpointer a, gconstpointer b)
{
    const coll_range_t *x = a;
    const coll_range_t *y = b;
    if (x->off != y->off) {
        return x->off < y->off ? -1 : 1;
    }
    if (x->len != y->len) {
        return x->len < y->len ? -1 : 1;
    }
    return x->t < y->t ? -1 : (x->t > y->t ? 1 : 0);
}

void
weft_coll_i_ranges_sort(GArray **r, guint n)
{
    for (guint i = 0; i < n; i++) {
        g_array_sort(r[i], range_cmp);
    }
}

/* Whether [a, a + la) and [b, b + lb) overlap; an empty range overlaps what touches it. */
static inline gboolean
overlaps(guint64 a, guint64 la, guint64 b, guint64 lb)
{
    if (la == 0 || lb == 0) {
        return a <= b + lb && b <= a + la;
    }
    return a < b + lb && b < a + la;
}

/*
 * Index of the first entry of sorted @l that may overlap [off, ...): entries
 * are sorted by offset and, in every list the algorithms build, their ends do
 * not decrease (disjoint ranges, or groups of equal ranges), so the entries
 * ending before @off form a prefix.
 */
static guint
first_candidate(const GArray *l, guint64 off)
{
    guint lo = 0, hi = l->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        const coll_range_t *e = &g_array_index(l, coll_range_t, mid);
        if (e->off + e->len < off) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

void
weft_coll_i_deps_on_ranges(coll_builder_t *b, GArray **r, guint ep, guint64 off, guint64 len,
                           guint32 succ)
{
    if (r == NULL) {
        return;
    }
    const GArray *l = r[ep];
    for (guint i = first_candidate(l, off); i < l->len; i++) {
        const coll_range_t *e = &g_array_index(l, coll_range_t, i);
        if (e->off > off + len) {
            break;
        }
        if (overlaps(off, len, e->off, e->len)) {
            weft_coll_i_add_dep(b, e->t, succ);
        }
    }
}

void
weft_coll_i_ranges_copy(GArray **to, GArray **from, guint ep, guint64 off, guint64 len)
{
    if (from == NULL) {
        return;
    }
    const GArray *l = from[ep];
    for (guint i = first_candidate(l, off); i < l->len; i++) {
        const coll_range_t *e = &g_array_index(l, coll_range_t, i);
        if (e->off > off + len) {
            break;
        }
        if (overlaps(off, len, e->off, e->len)) {
            g_array_append_val(to[ep], *e);
        }
    }
}

/* ---- packing ------------------------------------------------------------------------ */

/* Counts, per (src, dst), the channels with transfers on it: xfer->sharing. */
static void
fill_sharing(coll_builder_t *b)
{
    const guint64 pair_mask = (G_GUINT64_CONSTANT(1) << 48) - 1;
    g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GHashTable) pairs = g_hash_table_new(g_direct_hash, g_direct_equal);
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, b->last);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        guint64 k = GPOINTER_TO_SIZE(key);
        guint64 channel = (k >> 48) >> b->lane_shift;
        gpointer ck = GSIZE_TO_POINTER((channel << 48) | (k & pair_mask));
        if (!g_hash_table_add(seen, ck)) {
            continue; /* another lane (tree) of the same channel */
        }
        gpointer pk = GSIZE_TO_POINTER(k & pair_mask);
        guint c = GPOINTER_TO_UINT(g_hash_table_lookup(pairs, pk));
        g_hash_table_insert(pairs, pk, GUINT_TO_POINTER(c + 1));
    }
    for (guint t = 0; t < b->xfers->len; t++) {
        weft_coll_xfer_t *x = &g_array_index(b->xfers, weft_coll_xfer_t, t);
        guint c = GPOINTER_TO_UINT(g_hash_table_lookup(pairs, link_key(0, x->src, x->dst)));
        x->sharing = (guint16)MIN(MAX(c, 1), G_MAXUINT16);
    }
}

/* Packs the builder's transfers and dependencies into @plan (CSR of successors). */
static void
pack(coll_builder_t *b, weft_coll_plan_t *plan)
{
    fill_sharing(b);
    guint n = b->xfers->len;
    plan->n_xfers = n;
    plan->moved_bytes = 0;
    for (guint i = 0; i < n; i++) {
        const weft_coll_xfer_t *x = &g_array_index(b->xfers, weft_coll_xfer_t, i);
        plan->moved_bytes += (x->flags & WEFT_COLL_XFER_COPY) ? 0 : x->bytes; /* network bytes */
    }
    plan->xfers = (weft_coll_xfer_t *)(void *)g_array_free(b->xfers, n == 0);
    b->xfers = NULL;
    plan->n_virtual = b->virt->len;
    plan->virtual_vertex = b->virt->len > 0 ? (gint *)(void *)g_array_free(b->virt, FALSE) : NULL;
    if (plan->virtual_vertex == NULL) {
        g_array_unref(b->virt);
    }
    b->virt = NULL;
    guint n_deps = b->deps->len;
    plan->n_preds = g_new0(guint32, MAX(n, 1));
    plan->succ_off = g_new0(guint32, n + 1);
    plan->succ = g_new(guint32, MAX(n_deps, 1));
    plan->succ_kind = g_new(guint8, MAX(n_deps, 1));
    const coll_dep_t *deps = (const coll_dep_t *)(void *)b->deps->data;
    for (guint e = 0; e < n_deps; e++) {
        plan->n_preds[deps[e].succ]++;
        plan->succ_off[deps[e].pred + 1]++;
    }
    for (guint i = 0; i < n; i++) {
        plan->succ_off[i + 1] += plan->succ_off[i];
    }
    /* Counting sort by predecessor; stable, so successors stay in increasing order. */
    g_autofree guint32 *fill = g_memdup2(plan->succ_off, sizeof(guint32) * (n + 1));
    for (guint e = 0; e < n_deps; e++) {
        guint32 at = fill[deps[e].pred]++;
        plan->succ[at] = deps[e].succ;
        plan->succ_kind[at] = deps[e].kind;
    }
}

/* A builder for about @total transfers over @layout. */
static void
builder_init(coll_builder_t *b, const weft_coll_layout_t *layout, double total, guint lane_shift)
{
    *b = (coll_builder_t){
        .xfers = g_array_sized_new(FALSE, FALSE, sizeof(weft_coll_xfer_t), (guint)total),
        .deps = g_array_sized_new(FALSE, FALSE, sizeof(coll_dep_t), (guint)(2 * total)),
        .last = g_hash_table_new(g_direct_hash, g_direct_equal),
        .link_dep = COLL_NONE,
        .lane_shift = lane_shift,
        .layout = layout,
        .n_members = layout->n_members,
        .virt = g_array_new(FALSE, FALSE, sizeof(gint)),
        .virt_inter = g_array_new(FALSE, FALSE, sizeof(gboolean)),
    };
}

static void
builder_clear(coll_builder_t *b)
{
    if (b->xfers != NULL) {
        g_array_unref(b->xfers);
    }
    if (b->virt != NULL) {
        g_array_unref(b->virt);
    }
    g_array_unref(b->virt_inter);
    g_array_unref(b->deps);
    g_hash_table_unref(b->last);
}

/* ---- building ------------------------------------------------------------------------- */

/* The default algorithm of each operation (what AUTO means to the builder). */
static weft_coll_algo_t
default_algo(weft_coll_op_t op)
{
    switch (op) {
    case WEFT_COLL_ALL_TO_ALL:
    case WEFT_COLL_GATHER:
    case WEFT_COLL_SCATTER:
        return WEFT_COLL_ALGO_DIRECT;
    default:
        return WEFT_COLL_ALGO_RING;
    }
}

/* Size of the data space of @op (see coll.h). */
static guint64
space_of(weft_coll_op_t op, guint n, guint64 S)
{
    switch (op) {
    case WEFT_COLL_ALL_GATHER:
    case WEFT_COLL_GATHER:
    case WEFT_COLL_SCATTER:
    case WEFT_COLL_ALL_TO_ALL:
        return (guint64)n * S;
    default:
        return S;
    }
}

/* ---- implicit plans ------------------------------------------------------------------- */

/* A hash of a (src << 32 | dst) pair key: g_int64_hash() folds it to src ^ dst, which puts
 * the pairs of an all-to-all on a few hundred chains. Fibonacci hashing of all 64 bits. */
static guint
pair_hash(gconstpointer p)
{
    return (guint)((*(const guint64 *)p * G_GUINT64_CONSTANT(0x9E3779B97F4A7C15)) >> 32);
}

/* The transfer count of @plan (fields set) if it is a ring that may be implicit, else 0. */
static guint64
implicit_count(const weft_coll_plan_t *plan)
{
    gboolean ring_op = plan->op == WEFT_COLL_ALL_REDUCE || plan->op == WEFT_COLL_ALL_GATHER ||
                       plan->op == WEFT_COLL_REDUCE_SCATTER ||
                       plan->op == WEFT_COLL_REDUCE_SCATTER_BLOCK;
    guint64 g = plan->n_members;
    if (plan->algo != WEFT_COLL_ALGO_RING || !ring_op || g < 2) {
        return 0;
    }
    guint64 steps = plan->op == WEFT_COLL_ALL_REDUCE ? 2 * (g - 1) : g - 1;
    return steps * plan->chunks * g * plan->channels;
}

/* Makes @plan implicit: its rings (build_ring()'s), sharing counts and totals. */
static void
implicit_build(weft_coll_plan_t *plan, const weft_coll_layout_t *layout, guint64 n_xfers)
{
    weft_coll_implicit_t *im = g_new0(weft_coll_implicit_t, 1);
    weft_coll_i_ring_describe(layout, plan, im);
    im->n_xfers = n_xfers;
    guint g = im->g;
    gsize n = (gsize)g * im->channels;
    /* channels with transfers on each pair (fill_sharing()): a pair appears at most once in
     * a channel's ring, so its count is the number of rings it appears in */
    g_autoptr(GHashTable) count = g_hash_table_new(pair_hash, g_int64_equal);
    g_autofree gint64 *keys = g_new(gint64, n);
    for (gsize k = 0; k < n; k++) {
        gsize base = k - k % g;
        keys[k] = ((gint64)im->order[k] << 32) | im->order[base + (k % g + 1) % g];
        guint c = GPOINTER_TO_UINT(g_hash_table_lookup(count, &keys[k]));
        g_hash_table_insert(count, &keys[k], GUINT_TO_POINTER(c + 1));
    }
    im->sharing = g_new(guint16, n);
    for (gsize k = 0; k < n; k++) {
        guint c = GPOINTER_TO_UINT(g_hash_table_lookup(count, &keys[k]));
        im->sharing[k] = (guint16)MIN(MAX(c, 1), G_MAXUINT16);
    }
    guint64 steps = im->kind == WEFT_COLL_I_RING_AR ? 2 * (guint64)(g - 1) : g - 1;
    for (gsize k = 0; k < n; k++) {
        im->moved_bytes += steps * im->plen[k];
    }
    plan->moved_bytes = im->moved_bytes;
    plan->implicit = im;
}

static void
implicit_free(weft_coll_implicit_t *im)
{
    if (im == NULL) {
        return;
    }
    weft_coll_plan_free(im->explicit_plan);
    g_free(im->order);
    g_free(im->poff);
    g_free(im->plen);
    g_free(im->dom);
    g_free(im->sharing);
    g_free(im);
}

gboolean
weft_coll_plan_is_implicit(const weft_coll_plan_t *plan)
{
    g_return_val_if_fail(plan != NULL, FALSE);
    return plan->implicit != NULL;
}

guint64
weft_coll_plan_n_transfers(const weft_coll_plan_t *plan)
{
    g_return_val_if_fail(plan != NULL, 0);
    return plan->implicit != NULL ? plan->implicit->n_xfers : plan->n_xfers;
}

const weft_coll_plan_t *
weft_coll_plan_explicit(const weft_coll_plan_t *plan, GError **error)
{
    g_return_val_if_fail(plan != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    weft_coll_implicit_t *im = plan->implicit;
    if (im == NULL) {
        return plan;
    }
    if (im->explicit_plan != NULL) {
        return im->explicit_plan;
    }
    if (im->n_xfers > MAX_XFERS) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s (ring) over %u members with %u channels and %u chunks has %" G_GUINT64_FORMAT
                    " transfers, more than the %" G_GUINT64_FORMAT
                    " a plan may hold transfer by transfer (the analytical model computes it "
                    "without storing them)",
                    op_names[plan->op], plan->n_members, plan->channels, plan->chunks,
                    im->n_xfers, MAX_XFERS);
        return NULL;
    }
    /* Refused rather than left to abort in the allocator (or to the OOM killer). */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double need = (double)im->n_xfers * XFER_BYTES, have = (double)pages * (double)page;
    if (pages > 0 && page > 0 && need > have) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s (ring) over %u members with %u channels and %u chunks has %" G_GUINT64_FORMAT
                    " transfers: simulating them one by one takes about %.0f GiB, more than this "
                    "machine's %.0f GiB of memory (only the analytical model, without faults, on "
                    "fixed routes computes them without storing them: doc/replay.md)",
                    op_names[plan->op], plan->n_members, plan->channels, plan->chunks,
                    im->n_xfers, need / (1 << 30), have / (1 << 30));
        return NULL;
    }
    g_debug("building the %" G_GUINT64_FORMAT " transfers of an implicit %s over %u members",
            im->n_xfers, op_names[plan->op], plan->n_members);
    weft_coll_layout_t L = {.n_members = im->g, .dom = im->dom};
    weft_coll_plan_t *e = g_new0(weft_coll_plan_t, 1);
    *e = *plan;
    e->implicit = NULL;
    coll_builder_t b;
    builder_init(&b, &L, (double)im->n_xfers, 0);
    weft_coll_i_ring_emit(&b, e, im);
    pack(&b, e);
    builder_clear(&b);
    im->explicit_plan = e;
    return e;
}

gboolean
weft_coll_plan_equal(const weft_coll_plan_t *a, const weft_coll_plan_t *b)
{
    g_return_val_if_fail(a != NULL && b != NULL, FALSE);
    if (a == b) {
        return TRUE;
    }
    if ((a->implicit == NULL) != (b->implicit == NULL)) {
        return FALSE;
    }
    if (a->implicit != NULL) {
        const weft_coll_implicit_t *x = a->implicit, *y = b->implicit;
        gsize n = (gsize)x->g * x->channels;
        return x->kind == y->kind && x->g == y->g && x->channels == y->channels &&
               x->chunks == y->chunks && memcmp(x->order, y->order, n * sizeof(guint32)) == 0 &&
               memcmp(x->poff, y->poff, n * sizeof(guint64)) == 0 &&
               memcmp(x->plen, y->plen, n * sizeof(guint64)) == 0 &&
               memcmp(x->sharing, y->sharing, n * sizeof(guint16)) == 0 &&
               memcmp(x->dom, y->dom, x->g * sizeof(guint)) == 0;
    }
    if (a->n_xfers != b->n_xfers) {
        return FALSE;
    }
    for (guint t = 0; t < a->n_xfers; t++) {
        const weft_coll_xfer_t *x = &a->xfers[t], *y = &b->xfers[t];
        if (x->src != y->src || x->dst != y->dst || x->bytes != y->bytes ||
            x->offset != y->offset || x->channel != y->channel || x->sharing != y->sharing ||
            x->flags != y->flags || a->n_preds[t] != b->n_preds[t] ||
            a->succ_off[t + 1] != b->succ_off[t + 1]) {
            return FALSE;
        }
    }
    guint32 ns = a->succ_off[a->n_xfers];
    return memcmp(a->succ, b->succ, ns * sizeof(guint32)) == 0 &&
           memcmp(a->succ_kind, b->succ_kind, ns) == 0;
}

GArray *
weft_coll_plan_pairs(const weft_coll_plan_t *plan)
{
    g_return_val_if_fail(plan != NULL, NULL);
    GArray *out = g_array_new(FALSE, FALSE, sizeof(guint64));
    g_autoptr(GHashTable) seen = g_hash_table_new(pair_hash, g_int64_equal);
    const weft_coll_implicit_t *im = plan->implicit;
    guint64 n = im != NULL ? (guint64)im->g * im->channels : plan->n_xfers;
    /* a source's first destination is remembered apart (a ring's endpoint sends to one peer
     * in all its transfers: no hashing for those), the others in the table */
    guint n_ep = plan->n_members + plan->n_virtual;
    g_autofree guint32 *first_dst = g_new(guint32, MAX(n_ep, 1));
    memset(first_dst, 0xff, sizeof(guint32) * MAX(n_ep, 1));
    g_autofree guint64 *keys = g_new(guint64, MAX(n, 1));
    for (guint64 k = 0; k < n; k++) {
        guint32 src, dst;
        if (im != NULL) {
            guint64 base = k - k % im->g;
            src = im->order[k];
            dst = im->order[base + (k % im->g + 1) % im->g];
        } else {
            src = plan->xfers[k].src;
            dst = plan->xfers[k].dst;
        }
        keys[k] = ((guint64)src << 32) | dst;
        if (first_dst[src] == dst) {
            continue;
        }
        if (first_dst[src] == G_MAXUINT32) {
            first_dst[src] = dst;
            g_array_append_val(out, keys[k]);
            continue;
        }
        if (g_hash_table_add(seen, &keys[k])) {
            g_array_append_val(out, keys[k]);
        }
    }
    return out;
}

double
weft_coll_plan_memory_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) {
        return 8.0 * (1u << 30); /* unknown: 8 GiB */
    }
    return 0.5 * (double)pages * (double)page;
}

weft_coll_plan_t *
weft_coll_plan_build(weft_coll_op_t op, const weft_coll_config_t *cfg,
                     const weft_coll_layout_t *layout, guint64 size_bytes, GError **error)
{
    g_return_val_if_fail(cfg != NULL, NULL);
    g_return_val_if_fail(layout != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    if ((guint)op >= WEFT_COLL_N_OPS) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "unknown collective operation %d", (int)op);
        return NULL;
    }
    if (layout->n_members == 0) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s: the communicator has 0 members, expected at least 1", op_names[op]);
        return NULL;
    }
    if ((guint)cfg->algo >= WEFT_COLL_N_ALGOS || (guint)cfg->proto >= WEFT_COLL_N_PROTOS) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s: unknown algorithm %d or protocol %d", op_names[op], (int)cfg->algo,
                    (int)cfg->proto);
        return NULL;
    }
    if (layout->n_members >= MAX_ENDPOINTS / 2) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s: %u members, more than the %u a plan may hold", op_names[op],
                    layout->n_members, MAX_ENDPOINTS / 2 - 1);
        return NULL;
    }
    weft_coll_algo_t algo = cfg->algo == WEFT_COLL_ALGO_AUTO ? default_algo(op) : cfg->algo;
    if (!weft_coll_i_check_supported(op, algo, layout, error)) {
        return NULL;
    }
    g_autoptr(weft_coll_plan_t) plan = g_new0(weft_coll_plan_t, 1);
    plan->op = op;
    plan->algo = algo;
    plan->proto = cfg->proto == WEFT_COLL_PROTO_AUTO ? WEFT_COLL_PROTO_SIMPLE : cfg->proto;
    plan->n_members = layout->n_members;
    plan->size_bytes = op == WEFT_COLL_BARRIER ? 0 : size_bytes;
    plan->space_bytes = space_of(op, layout->n_members, plan->size_bytes);
    plan->exec.efficiency = weft_coll_proto_efficiency(plan->proto);
    plan->exec.hbm_Bps = layout->hbm_Bps;

    /* Channels and chunks: never so many that a piece would be empty (see coll.h). */
    guint64 S = plan->size_bytes;
    guint64 pieces = MAX(weft_coll_i_pieces(plan, layout), 1);
    guint64 want_ch = MIN(MAX(cfg->channels, 1), MAX_CHANNELS / 2);
    guint64 want_c = MAX(cfg->chunks, 1);
    plan->channels = (guint)MIN(want_ch, MAX(S / pieces, 1));
    plan->chunks = (guint)MIN(want_c, MAX(S / plan->channels / pieces, 1));
    if (algo == WEFT_COLL_ALGO_DIRECT) {
        plan->chunks = 1;
    }
    if (op == WEFT_COLL_BARRIER ||
        (algo == WEFT_COLL_ALGO_HALVING_DOUBLING &&
         (op == WEFT_COLL_REDUCE_SCATTER || op == WEFT_COLL_REDUCE_SCATTER_BLOCK))) {
        /* Halving-doubling reduce-scatter moves ranges of whole blocks, which
         * channels or chunks would cut apart: one channel, one chunk. */
        plan->channels = 1;
        plan->chunks = 1;
    }
    if (op == WEFT_COLL_BARRIER) {
        plan->chunks = 1;
    }
    guint64 ring_xfers = implicit_count(plan);
    guint64 threshold = cfg->implicit_xfers == 0 ? WEFT_COLL_IMPLICIT_XFERS : cfg->implicit_xfers;
    if (ring_xfers > 0 && ring_xfers >= threshold) {
        implicit_build(plan, layout, ring_xfers);
        return g_steal_pointer(&plan);
    }
    double total = weft_coll_i_estimate_xfers(plan, layout);
    if (total > (double)MAX_XFERS) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s (%s) over %u members with %u channels and %u chunks needs about %.3g "
                    "transfers, more than the %" G_GUINT64_FORMAT " a plan may hold",
                    op_names[op], weft_coll_algo_name(algo), layout->n_members, plan->channels,
                    plan->chunks, total, MAX_XFERS);
        return NULL;
    }
    /* Refuse, before any allocation, a plan that would not fit in memory: the builder's
     * transfers and dependencies, then the packed plan beside them (issue 19, item 5:
     * collectives.chunks = 1048576 asked for 64 GiB at once and GLib aborted). */
    double need = total * 2.0 * (sizeof(weft_coll_xfer_t) + 2.0 * sizeof(coll_dep_t));
    double budget = weft_coll_plan_memory_budget();
    if (need > budget) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s (%s) over %u members with %u channels and %u chunks needs about %.3g "
                    "transfers, about %.1f GiB to build, more than the %.1f GiB a plan may take "
                    "(half of this machine's memory): ask for fewer chunks or channels",
                    op_names[op], weft_coll_algo_name(algo), layout->n_members, plan->channels,
                    plan->chunks, total, need / (1u << 30), budget / (1u << 30));
        return NULL;
    }
    coll_builder_t b;
    builder_init(&b, layout, total,
                 algo == WEFT_COLL_ALGO_TREE || algo == WEFT_COLL_ALGO_NVLS_TREE ||
                         algo == WEFT_COLL_ALGO_COLLNET
                     ? 1
                     : 0);
    if (layout->n_members > 1 && !weft_coll_i_build_algo(&b, plan, error)) {
        builder_clear(&b);
        return NULL;
    }
    pack(&b, plan);
    builder_clear(&b);
    return g_steal_pointer(&plan);
}

weft_coll_plan_t *
weft_coll_plan_new(weft_coll_op_t op, weft_coll_algo_t algo, guint n_members, guint64 size_bytes,
                   guint chunks, GError **error)
{
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    if ((guint)op >= WEFT_COLL_N_OPS) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "unknown collective operation %d", (int)op);
        return NULL;
    }
    if (n_members == 0) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s: n_members is 0, expected at least 1", op_names[op]);
        return NULL;
    }
    if (chunks == 0) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s: chunks is 0, expected at least 1", op_names[op]);
        return NULL;
    }
    if (n_members >= MAX_ENDPOINTS / 2) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s: %u members, more than the %u a plan may hold", op_names[op], n_members,
                    MAX_ENDPOINTS / 2 - 1);
        return NULL;
    }
    g_autoptr(weft_coll_layout_t) layout = weft_coll_layout_new_flat(n_members);
    weft_coll_config_t cfg = {
        .algo = algo, .proto = WEFT_COLL_PROTO_SIMPLE, .channels = 1, .chunks = chunks};
    return weft_coll_plan_build(op, &cfg, layout, size_bytes, error);
}

void
weft_coll_plan_free(weft_coll_plan_t *plan)
{
    if (plan == NULL) {
        return;
    }
    g_free(plan->virtual_vertex);
    g_free(plan->xfers);
    g_free(plan->n_preds);
    g_free(plan->succ_off);
    g_free(plan->succ);
    g_free(plan->succ_kind);
    implicit_free(plan->implicit);
    g_free(plan);
}

/* Appends endpoint @e as m<i> (a member) or v<i> (a virtual member). */
static void
print_endpoint(GString *out, const weft_coll_plan_t *plan, guint32 e)
{
    if (e < plan->n_members) {
        g_string_append_printf(out, "m%u", e);
    } else {
        g_string_append_printf(out, "v%u", e - plan->n_members);
    }
}

void
weft_coll_plan_print(const weft_coll_plan_t *plan, GString *out)
{
    g_return_if_fail(plan != NULL);
    g_return_if_fail(out != NULL);
    g_string_append_printf(out,
                           "plan %s %s %s: %u members, %u virtual, %" G_GUINT64_FORMAT
                           " bytes, %u channels, %u chunks, %" G_GUINT64_FORMAT " transfers\n",
                           weft_coll_op_name(plan->op), weft_coll_algo_name(plan->algo),
                           weft_coll_proto_name(plan->proto), plan->n_members, plan->n_virtual,
                           plan->size_bytes, plan->channels, plan->chunks,
                           weft_coll_plan_n_transfers(plan));
    if (plan->implicit != NULL) {
        g_string_append_printf(out,
                               "  implicit: %u ring(s) of %u positions; the transfers are computed "
                               "per (channel, step, chunk, position), not stored\n",
                               plan->implicit->channels, plan->implicit->g);
    }
    for (guint v = 0; v < plan->n_virtual; v++) {
        g_string_append_printf(out, "  v%u = vertex %d\n", v, plan->virtual_vertex[v]);
    }
    const weft_coll_exec_t *x = &plan->exec;
    g_string_append_printf(
        out,
        "  costs: base %" G_GINT64_FORMAT " ps, step %" G_GINT64_FORMAT
        " ps intra, %" G_GINT64_FORMAT
        " ps inter, efficiency %g, channel cap %g B/s, HBM %g B/s, copy %g B/s\n",
        x->base_ps, x->step_intra_ps, x->step_inter_ps, x->efficiency, x->channel_Bps, x->hbm_Bps,
        x->copy_Bps);
    if (x->msg_ps > 0 || x->rendezvous_ps > 0) {
        g_string_append_printf(out,
                               "  network messages: %" G_GINT64_FORMAT " ps per %" G_GUINT64_FORMAT
                               " B at both ends, rendezvous %" G_GINT64_FORMAT " ps\n",
                               x->msg_ps, x->msg_bytes, x->rendezvous_ps);
    }
    for (guint t = 0; t < plan->n_xfers; t++) {
        const weft_coll_xfer_t *e = &plan->xfers[t];
        g_string_append_printf(out, "  #%u ch%u ", t, e->channel);
        print_endpoint(out, plan, e->src);
        g_string_append(out, " -> ");
        print_endpoint(out, plan, e->dst);
        g_string_append_printf(out,
                               " [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ") %" G_GUINT64_FORMAT
                               " B%s%s%s, %u preds, succ [",
                               e->offset, e->offset + e->bytes, e->bytes,
                               (e->flags & WEFT_COLL_XFER_DELAY)  ? " ps delay"
                               : (e->flags & WEFT_COLL_XFER_COPY) ? " copy"
                                                                  : "",
                               (e->flags & WEFT_COLL_XFER_REDUCE) ? " reduce" : "",
                               (e->flags & WEFT_COLL_XFER_INTER) ? " inter" : "", plan->n_preds[t]);
        for (guint32 s = plan->succ_off[t]; s < plan->succ_off[t + 1]; s++) {
            g_string_append_printf(out, "%s%u %c", s == plan->succ_off[t] ? "" : ", ",
                                   plan->succ[s],
                                   plan->succ_kind[s] == WEFT_COLL_DEP_LINK ? 'l' : 'd');
        }
        g_string_append(out, "]\n");
    }
}
