/* SPDX-License-Identifier: MIT */
/*
 * Collective plans: lowering an operation to a DAG of transfers between member
 * indexes (see coll.h for the algorithms and doc/collectives.md for the size
 * convention and closed forms). A plan is built as a list of transfers plus a
 * list of (predecessor, successor) edges, then packed into the compressed
 * successor arrays (CSR) the executor walks. Transfers are emitted in an order
 * where every predecessor comes first, so the plan is topological by
 * construction.
 */
#include "coll/coll.h"

#include <string.h>

/* The quark's name is stringified from tokens: clang-format must not space its dashes. */
/* clang-format off */
G_DEFINE_QUARK(weft-coll-error-quark, weft_coll_error)
/* clang-format on */

/* More transfers than this is a mistake in the request (and would not fit guint32 ids). */
#define MAX_XFERS ((guint64)G_MAXUINT32 / 2)

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

const char *
weft_coll_algo_name(weft_coll_algo_t algo)
{
    switch (algo) {
    case WEFT_COLL_ALGO_AUTO:
        return "auto";
    case WEFT_COLL_ALGO_RING:
        return "ring";
    case WEFT_COLL_ALGO_DIRECT:
        return "direct";
    case WEFT_COLL_ALGO_TREE:
        return "tree";
    case WEFT_COLL_ALGO_HALVING_DOUBLING:
        return "halving_doubling";
    case WEFT_COLL_ALGO_HIERARCHICAL:
        return "hierarchical";
    case WEFT_COLL_ALGO_NVLS:
        return "nvls";
    case WEFT_COLL_ALGO_NVLS_TREE:
        return "nvls_tree";
    case WEFT_COLL_ALGO_COLLNET:
        return "collnet";
    case WEFT_COLL_N_ALGOS:
        break;
    }
    return "?";
}

/* ---- the plan builder --------------------------------------------------------- */

typedef struct {
    guint32 pred;
    guint32 succ;
} dep_t;

typedef struct {
    GArray *xfers; /* of weft_coll_xfer_t */
    GArray *deps;  /* of dep_t, in order of succ */
} builder_t;

static guint32
add_xfer(builder_t *b, guint src, guint dst, guint64 bytes)
{
    weft_coll_xfer_t x = {.src = src, .dst = dst, .bytes = bytes};
    g_array_append_val(b->xfers, x);
    return b->xfers->len - 1;
}

static void
add_dep(builder_t *b, guint32 pred, guint32 succ)
{
    g_assert(pred < succ); /* the plan stays topological */
    dep_t d = {.pred = pred, .succ = succ};
    g_array_append_val(b->deps, d);
}

/* Part @i of @total cut into @parts: the remainder goes one byte each to the first parts. */
static guint64
split(guint64 total, guint64 parts, guint64 i)
{
    return total / parts + (i < total % parts ? 1 : 0);
}

/* Bytes member @i sends at ring step @k, chunk @c (op-specific). */
typedef guint64 (*ring_bytes_fn)(const weft_coll_plan_t *plan, guint k, guint i, guint c);

/*
 * Ring with chunk pipelining: @steps steps, each of plan->chunks chunks, and at
 * every (step, chunk) every member i sends to i + 1 mod n. Transfer (k, c, i)
 * waits for (k - 1, c, i - 1), which brought it the data, and for
 * (k, c - 1, i), which holds its outgoing link. Index (k C + c) n + i is
 * lexicographic in (k, c), so both predecessors have smaller indexes.
 */
static void
build_ring(builder_t *b, const weft_coll_plan_t *plan, guint steps, ring_bytes_fn bytes)
{
    guint n = plan->n_members;
    guint C = plan->chunks;
    for (guint k = 0; k < steps; k++) {
        for (guint c = 0; c < C; c++) {
            for (guint i = 0; i < n; i++) {
                guint32 t = add_xfer(b, i, (i + 1) % n, bytes(plan, k, i, c));
                g_assert(t == ((guint64)k * C + c) * n + i);
                if (k > 0) {
                    add_dep(b, ((k - 1) * C + c) * n + (i + n - 1) % n, t);
                }
                if (c > 0) {
                    add_dep(b, (k * C + c - 1) * n + i, t);
                }
            }
        }
    }
}

/*
 * Pipelined chain through @order[0..n-1]: hop h goes from order[h] to
 * order[h + 1]; each hop carries the whole @S bytes in plan->chunks chunks.
 * Hop (h, c) waits for (h - 1, c) (its data) and (h, c - 1) (its link).
 */
static void
build_chain(builder_t *b, const weft_coll_plan_t *plan, const guint *order, guint64 S)
{
    guint hops = plan->n_members - 1;
    guint C = plan->chunks;
    for (guint h = 0; h < hops; h++) {
        for (guint c = 0; c < C; c++) {
            guint32 t = add_xfer(b, order[h], order[h + 1], split(S, C, c));
            if (h > 0) {
                add_dep(b, (h - 1) * C + c, t);
            }
            if (c > 0) {
                add_dep(b, h * C + c - 1, t);
            }
        }
    }
}

/*
 * Reduce-scatter phase: at step k member i sends piece (i - k - 1) mod n, so
 * the last piece it receives (at step n - 2, from member i - 1) is piece i,
 * fully reduced: member i ends owning piece i, as in NCCL. Piece p is
 * split(S, n, p) bytes; chunk c of it split(piece, C, c).
 */
static guint64
rs_bytes(const weft_coll_plan_t *plan, guint k, guint i, guint c)
{
    guint n = plan->n_members;
    guint p = (i + 2 * n - k - 1) % n;
    return split(split(plan->size_bytes, n, p), plan->chunks, c);
}

/* All-reduce: n - 1 reduce-scatter steps, then n - 1 all-gather steps in which
 * member i forwards piece (i - j) mod n at all-gather step j (starting with
 * its own reduced piece i). */
static guint64
ar_bytes(const weft_coll_plan_t *plan, guint k, guint i, guint c)
{
    guint n = plan->n_members;
    if (k < n - 1) {
        return rs_bytes(plan, k, i, c);
    }
    guint j = k - (n - 1);
    guint p = (i + n - j) % n;
    return split(split(plan->size_bytes, n, p), plan->chunks, c);
}

/* All-gather: every piece is one member's whole contribution S. */
static guint64
ag_bytes(const weft_coll_plan_t *plan, guint k, guint i, guint c)
{
    (void)k;
    (void)i;
    return split(plan->size_bytes, plan->chunks, c);
}

/* The default algorithm of each operation. */
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

/*
 * The chunk count actually used: never more chunks than the smallest piece has
 * bytes (an empty chunk would cost a latency and move nothing), never fewer
 * than 1; direct algorithms do not chunk.
 */
static guint
effective_chunks(weft_coll_op_t op, weft_coll_algo_t algo, guint n, guint64 S, guint chunks)
{
    if (algo == WEFT_COLL_ALGO_DIRECT || op == WEFT_COLL_BARRIER) {
        return 1;
    }
    guint64 min_piece = S;
    if (op == WEFT_COLL_ALL_REDUCE || op == WEFT_COLL_REDUCE_SCATTER ||
        op == WEFT_COLL_REDUCE_SCATTER_BLOCK) {
        min_piece = S / n;
    }
    if (min_piece < chunks) {
        return min_piece > 0 ? (guint)min_piece : 1;
    }
    return chunks;
}

/* How many transfers the plan will hold, for the size check before building. */
static guint64
count_xfers(const weft_coll_plan_t *p)
{
    guint64 n = p->n_members;
    guint64 C = p->chunks;
    if (n <= 1) {
        return 0;
    }
    switch (p->op) {
    case WEFT_COLL_ALL_REDUCE:
    case WEFT_COLL_BARRIER:
        return 2 * (n - 1) * C * n;
    case WEFT_COLL_ALL_GATHER:
    case WEFT_COLL_REDUCE_SCATTER:
    case WEFT_COLL_REDUCE_SCATTER_BLOCK:
        return (n - 1) * C * n;
    case WEFT_COLL_BROADCAST:
    case WEFT_COLL_REDUCE:
        return (n - 1) * C;
    case WEFT_COLL_GATHER:
    case WEFT_COLL_SCATTER:
        return n - 1;
    case WEFT_COLL_ALL_TO_ALL:
        return n * (n - 1);
    case WEFT_COLL_N_OPS:
        break;
    }
    g_assert_not_reached();
}

/* Packs the builder's transfers and edges into @plan (CSR of successors). */
static void
pack(builder_t *b, weft_coll_plan_t *plan)
{
    guint n = b->xfers->len;
    plan->n_xfers = n;
    plan->xfers = (weft_coll_xfer_t *)g_array_free(b->xfers, n == 0);
    b->xfers = NULL;
    plan->n_preds = g_new0(guint32, MAX(n, 1));
    plan->succ_off = g_new0(guint32, n + 1);
    plan->succ = g_new(guint32, MAX(b->deps->len, 1));
    for (guint e = 0; e < b->deps->len; e++) {
        dep_t d = g_array_index(b->deps, dep_t, e);
        plan->n_preds[d.succ]++;
        plan->succ_off[d.pred + 1]++;
    }
    for (guint i = 0; i < n; i++) {
        plan->succ_off[i + 1] += plan->succ_off[i];
    }
    /* Counting sort by predecessor; stable, so successors stay in increasing order. */
    g_autofree guint32 *fill = g_memdup2(plan->succ_off, sizeof(guint32) * (n + 1));
    for (guint e = 0; e < b->deps->len; e++) {
        dep_t d = g_array_index(b->deps, dep_t, e);
        plan->succ[fill[d.pred]++] = d.succ;
    }
    g_array_unref(b->deps);
    b->deps = NULL;
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
    weft_coll_algo_t resolved = algo == WEFT_COLL_ALGO_AUTO ? default_algo(op) : algo;
    if (resolved != default_algo(op)) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s has no %s algorithm in this version (it has: %s)", op_names[op],
                    weft_coll_algo_name(algo), weft_coll_algo_name(default_algo(op)));
        return NULL;
    }
    g_autoptr(weft_coll_plan_t) plan = g_new0(weft_coll_plan_t, 1);
    plan->op = op;
    plan->algo = resolved;
    plan->n_members = n_members;
    plan->size_bytes = op == WEFT_COLL_BARRIER ? 0 : size_bytes;
    plan->chunks = effective_chunks(op, resolved, n_members, plan->size_bytes, chunks);
    guint64 total = count_xfers(plan);
    if (total > MAX_XFERS) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s over %u members with %u chunks needs %" G_GUINT64_FORMAT
                    " transfers, more than the %" G_GUINT64_FORMAT " a plan may hold",
                    op_names[op], n_members, plan->chunks, total, MAX_XFERS);
        return NULL;
    }

    builder_t b = {
        .xfers = g_array_sized_new(FALSE, FALSE, sizeof(weft_coll_xfer_t), (guint)total),
        .deps = g_array_sized_new(FALSE, FALSE, sizeof(dep_t), (guint)(2 * total)),
    };
    guint n = n_members;
    guint64 S = plan->size_bytes;
    if (n > 1) {
        switch (op) {
        case WEFT_COLL_ALL_REDUCE:
        case WEFT_COLL_BARRIER:
            build_ring(&b, plan, 2 * (n - 1), ar_bytes);
            break;
        case WEFT_COLL_REDUCE_SCATTER:
        case WEFT_COLL_REDUCE_SCATTER_BLOCK:
            build_ring(&b, plan, n - 1, rs_bytes);
            break;
        case WEFT_COLL_ALL_GATHER:
            build_ring(&b, plan, n - 1, ag_bytes);
            break;
        case WEFT_COLL_BROADCAST:
        case WEFT_COLL_REDUCE: {
            /* Broadcast flows 0 -> 1 -> ... -> n-1; reduce flows along the same
             * ring direction and ends at the root: 1 -> 2 -> ... -> n-1 -> 0. */
            g_autofree guint *order = g_new(guint, n);
            for (guint i = 0; i < n; i++) {
                order[i] = op == WEFT_COLL_BROADCAST ? i : (i + 1) % n;
            }
            build_chain(&b, plan, order, S);
            break;
        }
        case WEFT_COLL_GATHER:
            for (guint i = 1; i < n; i++) {
                add_xfer(&b, i, 0, S);
            }
            break;
        case WEFT_COLL_SCATTER:
            for (guint i = 1; i < n; i++) {
                add_xfer(&b, 0, i, S);
            }
            break;
        case WEFT_COLL_ALL_TO_ALL:
            /* Member i sends piece j (split(S, n, j) bytes) to each member j != i. */
            for (guint i = 0; i < n; i++) {
                for (guint j = 0; j < n; j++) {
                    if (j != i) {
                        add_xfer(&b, i, j, split(S, n, j));
                    }
                }
            }
            break;
        case WEFT_COLL_N_OPS:
            g_assert_not_reached();
        }
    }
    g_assert(b.xfers->len == total);
    pack(&b, plan);
    return g_steal_pointer(&plan);
}

void
weft_coll_plan_free(weft_coll_plan_t *plan)
{
    if (plan == NULL) {
        return;
    }
    g_free(plan->xfers);
    g_free(plan->n_preds);
    g_free(plan->succ_off);
    g_free(plan->succ);
    g_free(plan);
}

void
weft_coll_plan_print(const weft_coll_plan_t *plan, GString *out)
{
    g_return_if_fail(plan != NULL);
    g_return_if_fail(out != NULL);
    g_string_append_printf(
        out, "plan %s %s: %u members, %" G_GUINT64_FORMAT " bytes, %u chunks, %u transfers\n",
        weft_coll_op_name(plan->op), weft_coll_algo_name(plan->algo), plan->n_members,
        plan->size_bytes, plan->chunks, plan->n_xfers);
    for (guint t = 0; t < plan->n_xfers; t++) {
        const weft_coll_xfer_t *x = &plan->xfers[t];
        g_string_append_printf(out, "  #%u: %u -> %u %" G_GUINT64_FORMAT " B, %u preds, succ [", t,
                               x->src, x->dst, x->bytes, plan->n_preds[t]);
        for (guint32 s = plan->succ_off[t]; s < plan->succ_off[t + 1]; s++) {
            g_string_append_printf(out, s == plan->succ_off[t] ? "%u" : " %u", plan->succ[s]);
        }
        g_string_append(out, "]\n");
    }
}
