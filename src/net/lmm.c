/* SPDX-License-Identifier: MIT */
/*
 * The max-min fair solver: constraints and variables in id-indexed arrays with
 * free lists, per-constraint lists of (variable, coefficient) kept in
 * ascending variable order, component search over the constraint lists alone,
 * and progressive filling with an indexed heap of constraint saturation levels
 * updated once per filling step. See lmm.h for the model, the algorithm and
 * the references.
 *
 * The floating-point operations that determine the results. Each rate and
 * usage is the outcome of exactly this sequence, and only the order of work
 * that does not touch a double may change (that is what keeps incremental and
 * full mode, and every version of this file since the first, bit for bit
 * equal). For a component with constraints K and variables V:
 *  1. a_vc is the variable's coefficient on c; for a constraint listed twice,
 *     the sum of its coefficients in the order heapsort() leaves them
 *     (weft_lmm_variable_new(); fixed for given input; every other sort here
 *     is into a total order of distinct keys, so its algorithm is free).
 *  2. For every c in K with variables: R_c = C_c; W_c = 0, then
 *     W_c += a_vc * w_v over c's list in ascending variable id; Wref_c = W_c;
 *     key_c = R_c / W_c.
 *  3. Bounded variables sorted by (b_v / w_v, v).
 *  4. Repeat: the first unfrozen bounded variable b, if its key is <= the
 *     smallest (key_c, c) in the heap (or the heap is empty): level =
 *     max(level, key_b) and freeze(b, b_b). Otherwise pop the smallest
 *     (key_c, c), level = max(level, key_c), and for every unfrozen v of c in
 *     ascending id: freeze(v, min(w_v * level, b_v)). After either step, the
 *     key of every constraint still in the heap that the step touched is
 *     key_c = (R_c > 0 ? R_c / W_c : 0), then key_c = (key_c > level ? key_c :
 *     level), from its R_c and W_c after the step.
 *  5. freeze(v, x): x_v = x; for each c of v (ascending id) still in the
 *     heap: if v was its last unfrozen variable, c leaves the heap; else
 *     R_c -= a_vc * x, W_c -= a_vc * w_v, and if W_c <= Wref_c * 1e-3, W_c =
 *     Wref_c = the sum of step 2 over c's unfrozen variables.
 *  6. usage_c = 0, then usage_c += a_vc * x_v over c's list in ascending id.
 * The heap only decides which (key_c, c) is smallest, and that is a function
 * of the keys: so when in a step keys are recomputed, and in what order
 * constraints are found or pushed, cannot change a bit of the result. The
 * keys popped never decrease (every key in the heap is clamped to at least
 * the current level), so each component's arithmetic is independent of any
 * other component solved at the same time.
 */
#define G_LOG_DOMAIN "weft-net"

#include "net/lmm.h"

#include <math.h>
#include <string.h>

/* A constraint's list entry whose variable was removed (compacted away at the next solve). */
#define DEAD G_MAXUINT

/* W_c is recomputed from its list when it falls below this fraction of its last exact value:
 * cancellation then has cost at most three of the 16 decimal digits of a double. */
#define WSUM_RECOMPUTE_FRACTION 1e-3

/* A constraint list entry's `next`: the variable's next constraint in its list (cyclic), which
 * the component search follows, and two flags; constraint ids stay below NEXT_FIRST. */
#define NEXT_FIRST (1u << 31)   /* the entry is its variable's first (the variable's vpos 0) */
#define NEXT_BOUNDED (1u << 30) /* the variable has a finite bound */
#define NEXT_ID (NEXT_BOUNDED - 1)

typedef struct {
    guint var;  /* variable id, or DEAD */
    guint next; /* next constraint id | NEXT_FIRST | NEXT_BOUNDED */
    double coef;
} celem_t;

typedef struct {
    guint cnst; /* constraint id */
    guint cpos; /* index of the matching celem_t in the constraint's list */
    double coef;
} velem_t;

typedef struct {
    double capacity;
    double usage;
    celem_t *elems; /* ascending var once prepared (tombstones removed, sorted); while
                     * unsorted, ascending in [0, n_sorted) but for tombstones */
    guint *vpos;    /* vpos[i]: index of elems[i]'s entry in its variable's list */
    guint len, alloc;
    guint n_live;
    guint n_dead;
    guint max_var;  /* largest var appended since the list was last sorted */
    guint n_sorted; /* while unsorted: the entries before the first appended out of order */
    gboolean alive;
    gboolean unsorted;
    gboolean touched;     /* in lmm->touched */
    gboolean wsum0_valid; /* wsum0 is up to date with the list */
    double wsum0;         /* W_c with every variable unfrozen (step 2), cached */
} cnst_t;

/* A constraint's progressive-filling state, valid during one component's solve. */
typedef struct {
    double remaining; /* R_c: capacity minus the usage of frozen variables */
    double wsum;      /* W_c: sum of coef x weight over unfrozen variables */
    double wsum_ref;  /* W_c when last computed exactly */
    double key;       /* L_c = R_c / W_c, clamped to the level when it was computed */
    guint nfree;      /* unfrozen variables */
    gint heap_pos;    /* index in lmm->heap, or -1 */
    gboolean live;    /* unsaturated with unfrozen variables: logically in the heap */
    gboolean dirty;   /* in lmm->dirty: R and W moved in this step, its key is stale */
    guint usage_done; /* == lmm->fill_id: usage computed when it saturated */
} cfill_t;

/* What freezing reads of a variable, in 32 bytes: one cache line holds two. */
typedef struct {
    double weight;
    double bound;   /* INFINITY if none */
    velem_t *elems; /* ascending cnst, no duplicates */
    guint len, alloc;
} var_t;

/* Variable flags (lmm->vflags). */
enum {
    VAR_ALIVE = 1 << 0,
    VAR_IN_NEW_LIST = 1 << 1, /* its id is in lmm->new_vars */
};

typedef struct {
    double key; /* bound / weight */
    guint var;
} bkey_t;

typedef struct {
    double key; /* a lower bound of the constraint's key (see the heap's comment) */
    guint id;   /* constraint id */
} hent_t;

struct weft_lmm {
    gboolean incremental;
    /* constraints by id */
    cnst_t *cnsts;
    cfill_t *cfill;
    guint64 *cstamp; /* the solve that visited each constraint last */
    guint cnsts_len, cnsts_alloc;
    /* variables by id; the fields the filling reads most in arrays of their own */
    var_t *vars;
    guint8 *vflags;
    double *weight; /* a copy of vars[].weight, for reads in list order */
    double *rate;
    guint *frozen; /* == fill_id: frozen in the component being solved */
    guint vars_len, vars_alloc;
    guint fill_id;     /* components solved, modulo 2^32 (0 is skipped) */
    GArray *cnst_free; /* guint: freed constraint ids, last freed reused first */
    GArray *var_free;  /* guint */
    guint n_cnsts;
    guint n_vars;
    GArray *touched;  /* guint: constraints changed since the last solve */
    GArray *new_vars; /* guint: variables added since the last solve */
    GArray *changed;  /* guint: the last solve's changed variables, ascending */
    guint64 stamp;    /* solves so far; marks visited constraints (cstamp) */
    /* scratch kept between solves */
    GArray *comp_cnsts; /* guint */
    GArray *heap;       /* hent_t, a binary min-heap on (key, id) */
    GArray *dirty;      /* guint: constraints whose key is stale in this step */
    GArray *step_vars;  /* guint: the variables a saturation step freezes */
    GArray *bounded;    /* bkey_t */
    GArray *sort_ids;   /* guint: sort_ids()'s scratch */
    GArray *sort_bkeys; /* bkey_t: sort_bkeys()'s scratch */
    GArray *tail;       /* tent_t: prepare()'s entries appended out of order */
    GArray *sort_tents; /* tent_t: sort_tents()'s scratch */
    weft_lmm_stats_t stats;
};

/* clang-format off */
G_DEFINE_QUARK(weft-lmm-error-quark, weft_lmm_error)
/* clang-format on */

/* ---- sorting ------------------------------------------------------------------------------
 *
 * Every order the solver sorts into is a total order on distinct keys (ids, or (key, id)
 * pairs), so any correct sort leaves the same array: the algorithm is free, and here it is
 * chosen per array and written out per type, without a comparator called through a pointer:
 *  - id arrays (the touched constraints, the changed variables): LSD radix sort, 8-bit
 *    digits, as many passes as the largest id needs (O(n) per pass, a scratch array kept
 *    between solves), insertion sort below RADIX_MIN entries;
 *  - the bounded variables by (b / w, id): merge sort (O(n log n), scratch kept);
 *  - constraint lists: kept sorted incrementally (prepare(): only the entries appended out
 *    of order since the last solve are sorted, then merged into the sorted rest).
 * The one order with ties is that of a variable's own list when a constraint appears twice:
 * its coefficients are summed in the order the first version of this file left them, an
 * in-place heapsort, which is therefore kept for that case (rare: paths of one route that
 * share an edge). Nothing here allocates once the scratch arrays have grown (glibc's qsort
 * may malloc). */

typedef int (*cmp_fn)(const void *a, const void *b);

static void
swap_bytes(char *a, char *b, gsize size)
{
    for (gsize i = 0; i < size; i++) {
        char t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

static void
sift(char *base, gsize root, gsize n, gsize size, cmp_fn cmp)
{
    for (;;) {
        gsize child = 2 * root + 1;
        if (child >= n) {
            return;
        }
        if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size) < 0) {
            child++;
        }
        if (cmp(base + root * size, base + child * size) >= 0) {
            return;
        }
        swap_bytes(base + root * size, base + child * size, size);
        root = child;
    }
}

/* Not stable: weft_lmm_variable_new() sums duplicate constraints in the order it leaves them,
 * so this function must stay as it is for coefficients to stay bit for bit the same. */
static void
heapsort(void *data, gsize n, gsize size, cmp_fn cmp)
{
    char *base = data;
    if (n < 2) {
        return;
    }
    for (gsize i = n / 2; i-- > 0;) {
        sift(base, i, n, size, cmp);
    }
    for (gsize end = n - 1; end > 0; end--) {
        swap_bytes(base, base + end * size, size);
        sift(base, 0, end, size, cmp);
    }
}

static int
cmp_velem(const void *a, const void *b)
{
    guint x = ((const velem_t *)a)->cnst, y = ((const velem_t *)b)->cnst;
    return (x > y) - (x < y);
}

/* Below this many ids, insertion sort beats the radix sort's 256-entry histograms. */
#define RADIX_MIN 64

/* Sorts @n ids, all below @bound, ascending; @tmp: scratch (guint), grown as needed.
 * Time complexity: O(n x passes), passes = bytes of @bound - 1 (O(n^2) below RADIX_MIN). */
static void
sort_ids(guint *a, guint n, guint bound, GArray *tmp)
{
    if (n < RADIX_MIN) {
        for (guint i = 1; i < n; i++) {
            guint x = a[i], j = i;
            for (; j > 0 && a[j - 1] > x; j--) {
                a[j] = a[j - 1];
            }
            a[j] = x;
        }
        return;
    }
    guint passes = 0;
    for (guint top = bound > 0 ? bound - 1 : 0; top != 0; top >>= 8) {
        passes++;
    }
    g_array_set_size(tmp, n);
    guint *src = a, *dst = (guint *)(void *)tmp->data;
    for (guint p = 0; p < passes; p++) {
        guint shift = 8 * p;
        guint count[256] = {0};
        for (guint i = 0; i < n; i++) {
            count[(src[i] >> shift) & 0xff]++;
        }
        guint sum = 0;
        for (guint d = 0; d < 256; d++) {
            guint c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (guint i = 0; i < n; i++) {
            dst[count[(src[i] >> shift) & 0xff]++] = src[i];
        }
        guint *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) {
        memcpy(a, src, n * sizeof(guint));
    }
}

/* A constraint list entry on its way to its sorted place (prepare()). */
typedef struct {
    celem_t e;
    guint vpos;
} tent_t;

static inline gboolean
bkey_less(const bkey_t *x, const bkey_t *y)
{
    return x->key < y->key || (x->key == y->key && x->var < y->var);
}

static inline gboolean
tent_less(const tent_t *x, const tent_t *y)
{
    return x->e.var < y->e.var;
}

/* Defines `static void NAME(TYPE *a, guint n, GArray *tmp)`: sorts @a by LESS, stably, with
 * @tmp (of TYPE) as scratch, grown as needed; bottom-up merge sort over insertion-sorted runs
 * of 16. Time complexity: O(n log n). */
#define DEFINE_MERGE_SORT(NAME, TYPE, LESS)                                                        \
    static void NAME(TYPE *a, guint n, GArray *tmp)                                                \
    {                                                                                              \
        enum { RUN = 16 };                                                                         \
        for (guint lo = 0; lo < n; lo += RUN) {                                                    \
            guint hi = MIN(lo + RUN, n);                                                           \
            for (guint i = lo + 1; i < hi; i++) {                                                  \
                TYPE x = a[i];                                                                     \
                guint j = i;                                                                       \
                for (; j > lo && LESS(&x, &a[j - 1]); j--) {                                       \
                    a[j] = a[j - 1];                                                               \
                }                                                                                  \
                a[j] = x;                                                                          \
            }                                                                                      \
        }                                                                                          \
        if (n <= RUN) {                                                                            \
            return;                                                                                \
        }                                                                                          \
        g_array_set_size(tmp, n);                                                                  \
        TYPE *src = a, *dst = (TYPE *)(void *)tmp->data;                                           \
        for (guint width = RUN; width < n; width *= 2) {                                           \
            for (guint lo = 0; lo < n; lo += 2 * width) {                                          \
                guint mid = MIN(lo + width, n), hi = MIN(lo + 2 * width, n);                       \
                guint i = lo, j = mid, k = lo;                                                     \
                while (i < mid && j < hi) {                                                        \
                    dst[k++] = LESS(&src[j], &src[i]) ? src[j++] : src[i++];                       \
                }                                                                                  \
                while (i < mid) {                                                                  \
                    dst[k++] = src[i++];                                                           \
                }                                                                                  \
                while (j < hi) {                                                                   \
                    dst[k++] = src[j++];                                                           \
                }                                                                                  \
            }                                                                                      \
            TYPE *t = src;                                                                         \
            src = dst;                                                                             \
            dst = t;                                                                               \
        }                                                                                          \
        if (src != a) {                                                                            \
            memcpy(a, src, n * sizeof(TYPE));                                                      \
        }                                                                                          \
    }

DEFINE_MERGE_SORT(sort_bkeys, bkey_t, bkey_less)
DEFINE_MERGE_SORT(sort_tents, tent_t, tent_less)

/* ---- the heap of constraints on (key, id) ----------------------------------------------
 *
 * Progressive filling needs the live constraint of smallest (key, id) at each step. Keys are
 * computed at every step that moves R or W, as the essay says; the heap is maintained lazily:
 * an entry's key is only a lower bound of its constraint's key. A key that went down (only
 * rounding does that: exact keys never decrease) is lowered in the heap at once; one that went
 * up is left until its entry reaches the top, where heap_settle() stores the key and sifts the
 * entry down; constraints that leave (no unfrozen variable left) are dropped when they reach the
 * top. When the top entry's key equals its constraint's, it is the smallest live (key, id):
 * any other live e has key(e) >= entry(e) >= entry(top) = key(top), and on equal keys the heap
 * order puts the smaller id on top. So the order of steps is exactly that of an eager heap,
 * with most of its sifting (about 200 keys move per step of the 256-rank all-to-all) avoided.
 */

#define HEAP(lmm) ((hent_t *)(void *)(lmm)->heap->data)

static inline gboolean
hent_less(const hent_t *a, const hent_t *b)
{
    return a->key < b->key || (a->key == b->key && a->id < b->id);
}

/* Moves entry @e up from the hole at @pos, then stores it. */
static void
heap_up(weft_lmm_t *lmm, guint pos, hent_t e)
{
    hent_t *h = HEAP(lmm);
    while (pos > 0) {
        guint parent = (pos - 1) / 2;
        if (!hent_less(&e, &h[parent])) {
            break;
        }
        h[pos] = h[parent];
        lmm->cfill[h[pos].id].heap_pos = (gint)pos;
        pos = parent;
    }
    h[pos] = e;
    lmm->cfill[e.id].heap_pos = (gint)pos;
}

/* Moves entry @e down from the hole at @pos, then stores it. */
static void
heap_down(weft_lmm_t *lmm, guint pos, hent_t e)
{
    hent_t *h = HEAP(lmm);
    guint n = lmm->heap->len;
    for (;;) {
        guint child = 2 * pos + 1;
        if (child >= n) {
            break;
        }
        if (child + 1 < n && hent_less(&h[child + 1], &h[child])) {
            child++;
        }
        if (!hent_less(&h[child], &e)) {
            break;
        }
        h[pos] = h[child];
        lmm->cfill[h[pos].id].heap_pos = (gint)pos;
        pos = child;
    }
    h[pos] = e;
    lmm->cfill[e.id].heap_pos = (gint)pos;
}

/* Adds live constraint @id with key @key. */
static void
heap_push(weft_lmm_t *lmm, guint id, double key)
{
    cfill_t *cf = &lmm->cfill[id];
    hent_t e = {key, id};
    cf->key = key;
    cf->live = TRUE;
    g_array_append_val(lmm->heap, e);
    heap_up(lmm, lmm->heap->len - 1, e);
}

/* Removes the top entry. */
static void
heap_pop(weft_lmm_t *lmm)
{
    hent_t *h = HEAP(lmm);
    guint last = lmm->heap->len - 1;
    lmm->cfill[h[0].id].heap_pos = -1;
    hent_t moved = h[last];
    g_array_set_size(lmm->heap, last);
    if (last > 0) {
        heap_down(lmm, 0, moved);
    }
}

/* Sets the key of live constraint @id, computed at this step, and lowers its entry if needed. */
static void
heap_rekey(weft_lmm_t *lmm, guint id, double key)
{
    cfill_t *cf = &lmm->cfill[id];
    cf->key = key;
    hent_t *e = &HEAP(lmm)[cf->heap_pos];
    if (key < e->key) {
        heap_up(lmm, (guint)cf->heap_pos, (hent_t){key, id});
    }
}

/* Brings the heap to a state where its top, if any, is the live constraint of smallest
 * (key, id), with its exact key. Returns FALSE if no live constraint is left. */
static gboolean
heap_settle(weft_lmm_t *lmm)
{
    while (lmm->heap->len > 0) {
        hent_t *top = HEAP(lmm);
        const cfill_t *cf = &lmm->cfill[top->id];
        if (!cf->live) {
            heap_pop(lmm);
        } else if (cf->key != top->key) {
            heap_down(lmm, 0, (hent_t){cf->key, top->id});
        } else {
            return TRUE;
        }
    }
    return FALSE;
}

/* ---- construction ---------------------------------------------------------------------- */

weft_lmm_t *
weft_lmm_new(gboolean incremental)
{
    weft_lmm_t *lmm = g_new0(weft_lmm_t, 1);
    lmm->incremental = incremental;
    lmm->cnst_free = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->var_free = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->touched = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->new_vars = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->changed = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->comp_cnsts = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->heap = g_array_new(FALSE, FALSE, sizeof(hent_t));
    lmm->dirty = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->step_vars = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->bounded = g_array_new(FALSE, FALSE, sizeof(bkey_t));
    lmm->sort_ids = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->sort_bkeys = g_array_new(FALSE, FALSE, sizeof(bkey_t));
    lmm->tail = g_array_new(FALSE, FALSE, sizeof(tent_t));
    lmm->sort_tents = g_array_new(FALSE, FALSE, sizeof(tent_t));
    return lmm;
}

void
weft_lmm_free(weft_lmm_t *lmm)
{
    if (lmm == NULL) {
        return;
    }
    for (guint i = 0; i < lmm->cnsts_len; i++) {
        g_free(lmm->cnsts[i].elems);
        g_free(lmm->cnsts[i].vpos);
    }
    for (guint i = 0; i < lmm->vars_len; i++) {
        g_free(lmm->vars[i].elems);
    }
    g_free(lmm->cnsts);
    g_free(lmm->cfill);
    g_free(lmm->cstamp);
    g_free(lmm->vars);
    g_free(lmm->vflags);
    g_free(lmm->weight);
    g_free(lmm->rate);
    g_free(lmm->frozen);
    g_array_free(lmm->cnst_free, TRUE);
    g_array_free(lmm->var_free, TRUE);
    g_array_free(lmm->touched, TRUE);
    g_array_free(lmm->new_vars, TRUE);
    g_array_free(lmm->changed, TRUE);
    g_array_free(lmm->comp_cnsts, TRUE);
    g_array_free(lmm->heap, TRUE);
    g_array_free(lmm->dirty, TRUE);
    g_array_free(lmm->step_vars, TRUE);
    g_array_free(lmm->bounded, TRUE);
    g_array_free(lmm->sort_ids, TRUE);
    g_array_free(lmm->sort_bkeys, TRUE);
    g_array_free(lmm->tail, TRUE);
    g_array_free(lmm->sort_tents, TRUE);
    g_free(lmm);
}

static gboolean
cnst_valid(const weft_lmm_t *lmm, guint id)
{
    return id < lmm->cnsts_len && lmm->cnsts[id].alive;
}

static gboolean
var_valid(const weft_lmm_t *lmm, guint id)
{
    return id < lmm->vars_len && (lmm->vflags[id] & VAR_ALIVE);
}

static void
touch(weft_lmm_t *lmm, guint id)
{
    cnst_t *c = &lmm->cnsts[id];
    if (!c->touched) {
        c->touched = TRUE;
        g_array_append_val(lmm->touched, id);
    }
}

/* Makes room for @n more entries in a list of @len entries of @size bytes. */
static void *
reserve(void *data, guint len, guint *alloc, guint n, gsize size)
{
    if (len + n <= *alloc) {
        return data;
    }
    guint want = MAX(MAX(*alloc * 2, len + n), 4);
    *alloc = want;
    return g_realloc_n(data, want, size);
}

guint
weft_lmm_constraint_new(weft_lmm_t *lmm, double capacity_Bps)
{
    g_return_val_if_fail(lmm != NULL, 0);
    g_return_val_if_fail(isfinite(capacity_Bps) && capacity_Bps >= 0, 0);
    g_return_val_if_fail(lmm->cnst_free->len > 0 || lmm->cnsts_len < NEXT_ID, 0);
    guint id;
    if (lmm->cnst_free->len > 0) {
        id = g_array_index(lmm->cnst_free, guint, lmm->cnst_free->len - 1);
        g_array_set_size(lmm->cnst_free, lmm->cnst_free->len - 1);
    } else {
        id = lmm->cnsts_len++;
        if (id >= lmm->cnsts_alloc) {
            guint want = MAX(lmm->cnsts_alloc * 2, 16);
            lmm->cnsts = g_renew(cnst_t, lmm->cnsts, want);
            lmm->cfill = g_renew(cfill_t, lmm->cfill, want);
            lmm->cstamp = g_renew(guint64, lmm->cstamp, want);
            memset(lmm->cnsts + id, 0, (want - id) * sizeof(cnst_t));
            memset(lmm->cfill + id, 0, (want - id) * sizeof(cfill_t));
            memset(lmm->cstamp + id, 0, (want - id) * sizeof(guint64));
            lmm->cnsts_alloc = want;
        }
    }
    cnst_t *c = &lmm->cnsts[id];
    c->len = 0;
    c->capacity = capacity_Bps;
    c->usage = 0;
    c->n_live = c->n_dead = c->max_var = 0;
    c->alive = TRUE;
    c->unsorted = FALSE;
    c->wsum0_valid = FALSE;
    lmm->cfill[id].heap_pos = -1;
    lmm->n_cnsts++;
    touch(lmm, id); /* `touched` survives a free and re-use: the id may already be listed */
    return id;
}

void
weft_lmm_constraint_free(weft_lmm_t *lmm, guint cnst)
{
    g_return_if_fail(lmm != NULL && cnst_valid(lmm, cnst));
    cnst_t *c = &lmm->cnsts[cnst];
    g_return_if_fail(c->n_live == 0);
    c->len = 0;
    c->n_dead = 0;
    c->alive = FALSE;
    c->usage = 0;
    lmm->n_cnsts--;
    g_array_append_val(lmm->cnst_free, cnst);
}

void
weft_lmm_constraint_set_capacity(weft_lmm_t *lmm, guint cnst, double capacity_Bps)
{
    g_return_if_fail(lmm != NULL && cnst_valid(lmm, cnst));
    g_return_if_fail(isfinite(capacity_Bps) && capacity_Bps >= 0);
    cnst_t *c = &lmm->cnsts[cnst];
    if (c->capacity != capacity_Bps) {
        c->capacity = capacity_Bps;
        touch(lmm, cnst);
    }
}

double
weft_lmm_constraint_capacity(const weft_lmm_t *lmm, guint cnst)
{
    g_return_val_if_fail(lmm != NULL && cnst_valid(lmm, cnst), 0);
    return lmm->cnsts[cnst].capacity;
}

double
weft_lmm_constraint_usage(const weft_lmm_t *lmm, guint cnst)
{
    g_return_val_if_fail(lmm != NULL && cnst_valid(lmm, cnst), 0);
    return lmm->cnsts[cnst].usage;
}

guint
weft_lmm_constraint_n_variables(const weft_lmm_t *lmm, guint cnst)
{
    g_return_val_if_fail(lmm != NULL && cnst_valid(lmm, cnst), 0);
    return lmm->cnsts[cnst].n_live;
}

static guint
var_alloc_id(weft_lmm_t *lmm)
{
    if (lmm->var_free->len > 0) {
        guint id = g_array_index(lmm->var_free, guint, lmm->var_free->len - 1);
        g_array_set_size(lmm->var_free, lmm->var_free->len - 1);
        return id;
    }
    guint id = lmm->vars_len++;
    if (id >= lmm->vars_alloc) {
        guint want = MAX(lmm->vars_alloc * 2, 16);
        lmm->vars = g_renew(var_t, lmm->vars, want);
        lmm->vflags = g_renew(guint8, lmm->vflags, want);
        lmm->weight = g_renew(double, lmm->weight, want);
        lmm->rate = g_renew(double, lmm->rate, want);
        lmm->frozen = g_renew(guint, lmm->frozen, want);
        memset(lmm->vars + id, 0, (want - id) * sizeof(var_t));
        memset(lmm->vflags + id, 0, (want - id) * sizeof(guint8));
        memset(lmm->frozen + id, 0, (want - id) * sizeof(guint));
        lmm->vars_alloc = want;
    }
    return id;
}

guint
weft_lmm_variable_new(weft_lmm_t *lmm, double weight, double bound_Bps, const guint *cnst,
                      const double *coef, guint n)
{
    g_return_val_if_fail(lmm != NULL, 0);
    g_return_val_if_fail(isfinite(weight) && weight > 0, 0);
    g_return_val_if_fail(!isnan(bound_Bps), 0);
    g_return_val_if_fail(n == 0 || (cnst != NULL && coef != NULL), 0);
    for (guint i = 0; i < n; i++) {
        g_return_val_if_fail(cnst_valid(lmm, cnst[i]), 0);
        g_return_val_if_fail(isfinite(coef[i]) && coef[i] > 0, 0);
    }
    guint id = var_alloc_id(lmm);
    var_t *v = &lmm->vars[id];
    v->weight = lmm->weight[id] = weight;
    v->bound = (bound_Bps <= 0 || !isfinite(bound_Bps)) ? INFINITY : bound_Bps;
    lmm->rate[id] = 0; /* weft_lmm_solve() relies on it to list new variables once */
    lmm->vflags[id] |= VAR_ALIVE;
    if (!(lmm->vflags[id] & VAR_IN_NEW_LIST)) {
        lmm->vflags[id] |= VAR_IN_NEW_LIST;
        g_array_append_val(lmm->new_vars, id);
    }

    /* The variable's own list: ascending constraint id, duplicates merged by summing. */
    v->elems = reserve(v->elems, 0, &v->alloc, n, sizeof(velem_t));
    for (guint i = 0; i < n; i++) {
        v->elems[i] = (velem_t){cnst[i], 0, coef[i]};
    }
    /* Insertion sort (n is a route's length); where a constraint is listed twice, the order
     * of its coefficients decides their sum's rounding: the heapsort's, then (see sorting). */
    gboolean dup = FALSE;
    for (guint i = 1; i < n; i++) {
        velem_t x = v->elems[i];
        guint j = i;
        for (; j > 0 && v->elems[j - 1].cnst > x.cnst; j--) {
            v->elems[j] = v->elems[j - 1];
        }
        v->elems[j] = x;
        dup = dup || (j > 0 && v->elems[j - 1].cnst == x.cnst);
    }
    if (dup) {
        for (guint i = 0; i < n; i++) {
            v->elems[i] = (velem_t){cnst[i], 0, coef[i]};
        }
        heapsort(v->elems, n, sizeof(velem_t), cmp_velem);
    }
    guint m = 0;
    for (guint i = 0; i < n; i++) {
        if (m > 0 && v->elems[m - 1].cnst == v->elems[i].cnst) {
            v->elems[m - 1].coef += v->elems[i].coef;
        } else {
            v->elems[m++] = v->elems[i];
        }
    }
    v->len = m;

    guint flags = isfinite(v->bound) ? NEXT_BOUNDED : 0;
    for (guint i = 0; i < m; i++) {
        velem_t *ve = &v->elems[i];
        cnst_t *c = &lmm->cnsts[ve->cnst];
        if (c->len == c->alloc) {
            guint alloc = c->alloc;
            c->elems = reserve(c->elems, c->len, &alloc, 1, sizeof(celem_t));
            c->vpos = reserve(c->vpos, c->len, &c->alloc, 1, sizeof(guint));
        }
        ve->cpos = c->len;
        guint next = v->elems[(i + 1) % m].cnst | flags | (i == 0 ? NEXT_FIRST : 0);
        c->elems[c->len] = (celem_t){id, next, ve->coef};
        c->vpos[c->len++] = i;
        c->wsum0_valid = FALSE;
        if (id < c->max_var && !c->unsorted) {
            c->unsorted = TRUE;
            c->n_sorted = c->len - 1; /* the entries before this one are in order */
        }
        c->max_var = MAX(c->max_var, id);
        c->n_live++;
        touch(lmm, ve->cnst);
    }
    lmm->n_vars++;
    return id;
}

void
weft_lmm_variable_free(weft_lmm_t *lmm, guint var)
{
    g_return_if_fail(lmm != NULL && var_valid(lmm, var));
    var_t *v = &lmm->vars[var];
    for (guint i = 0; i < v->len; i++) {
        velem_t *ve = &v->elems[i];
        cnst_t *c = &lmm->cnsts[ve->cnst];
        c->elems[ve->cpos].var = DEAD;
        c->wsum0_valid = FALSE;
        c->n_live--;
        c->n_dead++;
        touch(lmm, ve->cnst);
    }
    v->len = 0;
    lmm->vflags[var] &= (guint8)~VAR_ALIVE;
    lmm->n_vars--;
    g_array_append_val(lmm->var_free, var);
}

double
weft_lmm_variable_rate(const weft_lmm_t *lmm, guint var)
{
    g_return_val_if_fail(lmm != NULL && var_valid(lmm, var), 0);
    return lmm->rate[var];
}

double
weft_lmm_variable_weight(const weft_lmm_t *lmm, guint var)
{
    g_return_val_if_fail(lmm != NULL && var_valid(lmm, var), 0);
    return lmm->weight[var];
}

double
weft_lmm_variable_bound(const weft_lmm_t *lmm, guint var)
{
    g_return_val_if_fail(lmm != NULL && var_valid(lmm, var), 0);
    return lmm->vars[var].bound;
}

/* Prefetch distances. Solving is bound by cache misses in orders no hardware prefetcher can
 * guess: variables' fields read in list order (PREFETCH_FIELDS list entries ahead), and
 * variables' lists in the order a step freezes them (PREFETCH_LIST variables ahead, when their
 * fields have arrived). Prefetches are written out in the loops: GCC 12 deems a static function
 * made only of prefetches `const` and deletes its calls. */
#define PREFETCH_FIELDS 16
#define PREFETCH_LIST 8

/* ---- solving ---------------------------------------------------------------------------- */

/* Puts a constraint's list in canonical form: tombstones dropped (stable), ascending variable
 * id; and points each variable's entry back at its new position. The list is sorted but for
 * the entries appended out of order since it was last prepared, which all lie at or after
 * n_sorted: those are sorted apart and merged into the rest from the back, each entry moving
 * with its vpos. Time complexity: O(n + t log t) for t entries at or after n_sorted; only the
 * entries that moved have their variable's cpos rewritten. */
static void
prepare(weft_lmm_t *lmm, guint id)
{
    cnst_t *c = &lmm->cnsts[id];
    if (c->n_dead == 0 && !c->unsorted) {
        return;
    }
    guint len = c->len, split = c->unsorted ? c->n_sorted : len;
    celem_t *el = c->elems;
    guint *vpos = c->vpos;
    /* the sorted part, compacted in place; moved: the first index whose entry changed */
    guint m = 0, moved = len;
    for (guint i = 0; i < split; i++) {
        if (el[i].var != DEAD) {
            if (m != i) {
                moved = MIN(moved, m);
                el[m] = el[i];
                vpos[m] = vpos[i];
            }
            m++;
        }
    }
    /* the appended part, sorted apart */
    g_array_set_size(lmm->tail, 0);
    for (guint i = split; i < len; i++) {
        if (el[i].var != DEAD) {
            tent_t t = {el[i], vpos[i]};
            g_array_append_val(lmm->tail, t);
        }
    }
    tent_t *tail = (tent_t *)(void *)lmm->tail->data;
    guint nt = lmm->tail->len;
    sort_tents(tail, nt, lmm->sort_tents);
    /* merged from the back: entries [0, i) of the sorted part stay where they are */
    guint i = m, k = m + nt;
    for (guint j = nt; j > 0;) {
        k--;
        if (i > 0 && el[i - 1].var > tail[j - 1].e.var) {
            i--;
            el[k] = el[i];
            vpos[k] = vpos[i];
        } else {
            j--;
            el[k] = tail[j].e;
            vpos[k] = tail[j].vpos;
        }
    }
    moved = MIN(moved, k);
    c->len = m + nt;
    for (guint q = moved; q < c->len; q++) {
        lmm->vars[el[q].var].elems[vpos[q]].cpos = q;
    }
    c->n_dead = 0;
    c->unsorted = FALSE;
    c->max_var = c->len > 0 ? el[c->len - 1].var : 0;
}

/* Step 2's W_c of a prepared list: every variable unfrozen. */
static double
wsum_all(const weft_lmm_t *lmm, const cnst_t *c)
{
    const double *weight = lmm->weight;
    double w = 0;
    for (guint j = 0; j < c->len; j++) {
        const celem_t *ce = &c->elems[j];
        if (j + PREFETCH_FIELDS < c->len) {
            __builtin_prefetch(&weight[c->elems[j + PREFETCH_FIELDS].var]);
        }
        w += ce->coef * weight[ce->var];
    }
    return w;
}

/*
 * Collects the component of constraint @seed into comp_cnsts, and sets up progressive filling
 * on it (step 2 of the essay on top of this file, and the bounded variables of step 3). The
 * search follows each entry's `next` constraint, so it reads constraint lists only; a
 * variable is counted at its first entry. W_c with every variable unfrozen is a function of
 * the list alone, so it is kept until the list changes. Returns the number of variables.
 */
static guint
collect(weft_lmm_t *lmm, guint seed)
{
    GArray *cc = lmm->comp_cnsts;
    guint64 *cstamp = lmm->cstamp;
    guint nv = 0;
    g_array_set_size(cc, 0);
    g_array_set_size(lmm->heap, 0);
    g_array_set_size(lmm->bounded, 0);
    cstamp[seed] = lmm->stamp;
    prepare(lmm, seed);
    g_array_append_val(cc, seed);
    for (guint i = 0; i < cc->len; i++) {
        guint cid = g_array_index(cc, guint, i);
        cnst_t *c = &lmm->cnsts[cid];
        for (guint j = 0; j < c->len; j++) {
            guint next = c->elems[j].next;
            if (next & NEXT_FIRST) {
                nv++;
                if (next & NEXT_BOUNDED) {
                    guint var = c->elems[j].var;
                    bkey_t b = {lmm->vars[var].bound / lmm->weight[var], var};
                    g_array_append_val(lmm->bounded, b);
                }
            }
            next &= NEXT_ID;
            if (cstamp[next] != lmm->stamp) {
                cstamp[next] = lmm->stamp;
                prepare(lmm, next); /* moves only that list and cpos fields */
                g_array_append_val(cc, next);
            }
        }
        cfill_t *cf = &lmm->cfill[cid];
        cf->remaining = c->capacity;
        cf->nfree = c->n_live;
        cf->heap_pos = -1;
        cf->live = FALSE;
        cf->dirty = FALSE;
        cf->usage_done = 0;
        if (cf->nfree > 0) {
            if (!c->wsum0_valid) {
                c->wsum0 = wsum_all(lmm, c);
                c->wsum0_valid = TRUE;
            }
            cf->wsum = cf->wsum_ref = c->wsum0;
            heap_push(lmm, cid, cf->remaining / cf->wsum);
        }
    }
    sort_bkeys((bkey_t *)(void *)lmm->bounded->data, lmm->bounded->len, lmm->sort_bkeys);
    return nv;
}

/* W_c computed exactly, in list order, over the unfrozen variables. */
static double
wsum_exact(const weft_lmm_t *lmm, const cnst_t *c)
{
    double w = 0;
    for (guint j = 0; j < c->len; j++) {
        const celem_t *ce = &c->elems[j];
        if (lmm->frozen[ce->var] != lmm->fill_id) {
            w += ce->coef * lmm->weight[ce->var];
        }
    }
    return w;
}

/* Freezes variable @vid at @rate and updates its constraints' R and W (step 5); lists it as
 * changed if its rate moved. Keys are brought up to date by rekey(). */
static void
freeze(weft_lmm_t *lmm, guint vid, double rate)
{
    const var_t *v = &lmm->vars[vid];
    double weight = v->weight;
    lmm->frozen[vid] = lmm->fill_id;
    if (rate != lmm->rate[vid]) {
        g_array_append_val(lmm->changed, vid);
        lmm->rate[vid] = rate;
    }
    for (guint k = 0; k < v->len; k++) {
        const velem_t *ve = &v->elems[k];
        cfill_t *cf = &lmm->cfill[ve->cnst];
        cf->nfree--;
        if (!cf->live) {
            continue; /* saturated already: its variables are being frozen */
        }
        if (cf->nfree == 0) {
            cf->live = FALSE; /* its entry goes when it reaches the top */
            continue;
        }
        cf->remaining -= ve->coef * rate;
        cf->wsum -= ve->coef * weight;
        if (cf->wsum <= cf->wsum_ref * WSUM_RECOMPUTE_FRACTION) {
            cf->wsum = cf->wsum_ref = wsum_exact(lmm, &lmm->cnsts[ve->cnst]);
            lmm->stats.wsum_recomputed++;
        }
        if (!cf->dirty) {
            cf->dirty = TRUE;
            g_array_append_val(lmm->dirty, ve->cnst);
        }
    }
}

/* The end of a filling step: new keys, at @level, for the constraints whose R and W moved. */
static void
rekey(weft_lmm_t *lmm, double level)
{
    const guint *d = (const guint *)(void *)lmm->dirty->data;
    for (guint i = 0; i < lmm->dirty->len; i++) {
        cfill_t *cf = &lmm->cfill[d[i]];
        cf->dirty = FALSE;
        if (!cf->live) {
            continue; /* left the heap later in the step */
        }
        double key = cf->remaining > 0 ? cf->remaining / cf->wsum : 0;
        heap_rekey(lmm, d[i], key > level ? key : level);
    }
    g_array_set_size(lmm->dirty, 0);
}

/* Progressive filling over the collected component (step 4); then usages (step 6). */
static void
fill(weft_lmm_t *lmm, guint nv)
{
    GArray *cc = lmm->comp_cnsts;
    const bkey_t *bk = (const bkey_t *)(void *)lmm->bounded->data;
    guint nb = lmm->bounded->len;
    double level = 0;
    guint bi = 0;
    for (;;) {
        while (bi < nb && lmm->frozen[bk[bi].var] == lmm->fill_id) {
            bi++;
        }
        gboolean have_b = bi < nb;
        gboolean have_c = heap_settle(lmm);
        if (!have_b && !have_c) {
            break;
        }
        if (have_b && (!have_c || bk[bi].key <= HEAP(lmm)[0].key)) {
            /* On a tie the bound goes first: same rates, one fixed order. */
            level = MAX(level, bk[bi].key);
            freeze(lmm, bk[bi].var, lmm->vars[bk[bi].var].bound);
            rekey(lmm, level);
            bi++;
            continue;
        }
        hent_t top = HEAP(lmm)[0];
        heap_pop(lmm);
        lmm->cfill[top.id].live = FALSE;
        level = MAX(level, top.key);
        /* The step in three passes, so that the cache misses of many variables overlap:
         * gather the unfrozen variables (freezing one freezes no other variable of c, so this
         * is the set the step freezes, in list order); freeze them in that order, prefetching
         * the record and rate of the variable PREFETCH_FIELDS ahead and the list of the one
         * PREFETCH_LIST ahead; then step 6 over the list, every rate on it being final. */
        cnst_t *c = &lmm->cnsts[top.id];
        g_array_set_size(lmm->step_vars, 0);
        for (guint j = 0; j < c->len; j++) {
            guint vid = c->elems[j].var;
            if (lmm->frozen[vid] != lmm->fill_id) {
                g_array_append_val(lmm->step_vars, vid);
            }
        }
        const guint *sv = (const guint *)(void *)lmm->step_vars->data;
        guint ns = lmm->step_vars->len;
        for (guint i = 0; i < MIN(ns, PREFETCH_FIELDS); i++) {
            __builtin_prefetch(&lmm->vars[sv[i]]);
            __builtin_prefetch(&lmm->rate[sv[i]]);
        }
        for (guint i = 0; i < ns; i++) {
            if (i + PREFETCH_FIELDS < ns) {
                __builtin_prefetch(&lmm->vars[sv[i + PREFETCH_FIELDS]]);
                __builtin_prefetch(&lmm->rate[sv[i + PREFETCH_FIELDS]]);
            }
            if (i + PREFETCH_LIST < ns) {
                const var_t *vu = &lmm->vars[sv[i + PREFETCH_LIST]];
                for (guint k = 0; k < vu->len; k += 64 / sizeof(velem_t)) {
                    __builtin_prefetch(&vu->elems[k]);
                }
                __builtin_prefetch(&vu->elems[vu->len - 1]);
            }
            const var_t *v = &lmm->vars[sv[i]];
            /* MIN: w (b / w) may round above b; a bounded variable never exceeds b. */
            freeze(lmm, sv[i], MIN(v->weight * level, v->bound));
        }
        double usage = 0;
        for (guint j = 0; j < c->len; j++) {
            const celem_t *ce = &c->elems[j];
            usage += ce->coef * lmm->rate[ce->var];
        }
        c->usage = usage;
        lmm->cfill[top.id].usage_done = lmm->fill_id;
        rekey(lmm, level);
    }

    for (guint i = 0; i < cc->len; i++) {
        guint cid = g_array_index(cc, guint, i);
        if (lmm->cfill[cid].usage_done == lmm->fill_id) {
            continue;
        }
        cnst_t *c = &lmm->cnsts[cid];
        double usage = 0;
        for (guint j = 0; j < c->len; j++) {
            const celem_t *ce = &c->elems[j];
            if (j + PREFETCH_FIELDS < c->len) {
                __builtin_prefetch(&lmm->rate[c->elems[j + PREFETCH_FIELDS].var]);
            }
            usage += ce->coef * lmm->rate[ce->var];
        }
        c->usage = usage;
    }
    lmm->stats.components++;
    lmm->stats.last_components++;
    lmm->stats.last_variables += nv;
    lmm->stats.last_constraints += cc->len;
}

static void
solve_from(weft_lmm_t *lmm, guint cid)
{
    if (!lmm->cnsts[cid].alive || lmm->cstamp[cid] == lmm->stamp) {
        return;
    }
    if (++lmm->fill_id == 0) {
        /* Wrapped after 2^32 components: no variable may look frozen by accident. */
        memset(lmm->frozen, 0, lmm->vars_len * sizeof(guint));
        lmm->fill_id = 1;
    }
    guint nv = collect(lmm, cid);
    fill(lmm, nv);
}

void
weft_lmm_solve(weft_lmm_t *lmm)
{
    g_return_if_fail(lmm != NULL);
    lmm->stamp++;
    lmm->stats.solves++;
    lmm->stats.last_components = lmm->stats.last_variables = lmm->stats.last_constraints = 0;
    g_array_set_size(lmm->changed, 0);

    /* Seeds in ascending id order; the order changes nothing in the rates (each component is
     * solved on its own, canonically), only which seed names a component. */
    sort_ids((guint *)(void *)lmm->touched->data, lmm->touched->len, lmm->cnsts_len, lmm->sort_ids);
    for (guint i = 0; i < lmm->touched->len; i++) {
        guint cid = g_array_index(lmm->touched, guint, i);
        lmm->cnsts[cid].touched = FALSE;
        if (lmm->incremental) {
            solve_from(lmm, cid);
        }
    }
    g_array_set_size(lmm->touched, 0);
    if (!lmm->incremental) {
        for (guint cid = 0; cid < lmm->cnsts_len; cid++) {
            solve_from(lmm, cid);
        }
    }

    /* New variables: those without constraints get their rate here; all are reported. */
    for (guint i = 0; i < lmm->new_vars->len; i++) {
        guint vid = g_array_index(lmm->new_vars, guint, i);
        const var_t *v = &lmm->vars[vid];
        lmm->vflags[vid] &= (guint8)~VAR_IN_NEW_LIST;
        if (!(lmm->vflags[vid] & VAR_ALIVE)) {
            continue;
        }
        if (v->len == 0) {
            lmm->rate[vid] = v->bound; /* INFINITY when unbounded */
            g_array_append_val(lmm->changed, vid);
        } else if (lmm->rate[vid] == 0) {
            /* Solved (its constraints were touched) at the rate it was created with, 0, so
             * freeze() did not list it; any other rate, it did. */
            g_array_append_val(lmm->changed, vid);
        }
    }
    g_array_set_size(lmm->new_vars, 0);
    sort_ids((guint *)(void *)lmm->changed->data, lmm->changed->len, lmm->vars_len, lmm->sort_ids);
    lmm->stats.variables_solved += lmm->stats.last_variables;
}

const guint *
weft_lmm_changed(const weft_lmm_t *lmm, guint *n)
{
    g_return_val_if_fail(lmm != NULL && n != NULL, NULL);
    *n = lmm->changed->len;
    return (const guint *)lmm->changed->data;
}

gboolean
weft_lmm_next_changed(const weft_lmm_t *lmm, guint *iter, guint *var)
{
    g_return_val_if_fail(lmm != NULL && iter != NULL && var != NULL, FALSE);
    if (*iter >= lmm->changed->len) {
        return FALSE;
    }
    *var = g_array_index(lmm->changed, guint, *iter);
    (*iter)++;
    return TRUE;
}

/* ---- checking -------------------------------------------------------------------------- */

gboolean
weft_lmm_check(const weft_lmm_t *lmm, GError **error)
{
    g_return_val_if_fail(lmm != NULL, FALSE);
    const double eps = WEFT_LMM_EPSILON;
    guint nc = lmm->cnsts_len;
    g_autofree double *usage = g_new0(double, nc);
    g_autofree double *max_level = g_new0(double, nc);
    for (guint cid = 0; cid < nc; cid++) {
        const cnst_t *c = &lmm->cnsts[cid];
        if (!c->alive) {
            continue;
        }
        for (guint j = 0; j < c->len; j++) {
            const celem_t *ce = &c->elems[j];
            if (ce->var == DEAD) {
                continue;
            }
            double rate = lmm->rate[ce->var];
            usage[cid] += ce->coef * rate;
            max_level[cid] = MAX(max_level[cid], rate / lmm->weight[ce->var]);
        }
        if (usage[cid] > c->capacity * (1 + eps)) {
            g_set_error(error, WEFT_LMM_ERROR, WEFT_LMM_ERROR_OVER_CAPACITY,
                        "constraint %u: usage %.17g B/s exceeds capacity %.17g B/s", cid,
                        usage[cid], c->capacity);
            return FALSE;
        }
    }
    for (guint vid = 0; vid < lmm->vars_len; vid++) {
        const var_t *v = &lmm->vars[vid];
        if (!(lmm->vflags[vid] & VAR_ALIVE)) {
            continue;
        }
        double rate = lmm->rate[vid], bound = v->bound, weight = v->weight;
        if (!(rate >= 0) || rate > bound * (1 + eps)) {
            g_set_error(error, WEFT_LMM_ERROR, WEFT_LMM_ERROR_OVER_CAPACITY,
                        "variable %u: rate %.17g B/s is negative or above its bound %.17g B/s", vid,
                        rate, bound);
            return FALSE;
        }
        gboolean ok = rate >= bound * (1 - eps) || v->len == 0;
        double level = rate / weight;
        for (guint k = 0; !ok && k < v->len; k++) {
            guint cid = v->elems[k].cnst;
            const cnst_t *c = &lmm->cnsts[cid];
            ok = usage[cid] >= c->capacity * (1 - eps) && level >= max_level[cid] * (1 - eps);
        }
        if (!ok) {
            g_set_error(error, WEFT_LMM_ERROR, WEFT_LMM_ERROR_NOT_MAX_MIN,
                        "variable %u: rate %.17g B/s (weight %g) is below its bound and has no "
                        "saturated constraint on which its rate / weight is the largest",
                        vid, rate, weight);
            return FALSE;
        }
    }
    return TRUE;
}

weft_lmm_stats_t
weft_lmm_stats(const weft_lmm_t *lmm)
{
    g_return_val_if_fail(lmm != NULL, (weft_lmm_stats_t){0});
    return lmm->stats;
}

guint
weft_lmm_n_variables(const weft_lmm_t *lmm)
{
    g_return_val_if_fail(lmm != NULL, 0);
    return lmm->n_vars;
}

guint
weft_lmm_n_constraints(const weft_lmm_t *lmm)
{
    g_return_val_if_fail(lmm != NULL, 0);
    return lmm->n_cnsts;
}

/* ---- dump ------------------------------------------------------------------------------ */

/* A rate or capacity in bytes/s, as weft_lmm_dump() writes it. */
static void
dump_Bps(GString *out, double Bps)
{
    if (isinf(Bps)) {
        g_string_append(out, "none");
    } else {
        g_string_append_printf(out, "%.9g B/s", Bps);
    }
}

void
weft_lmm_dump(const weft_lmm_t *lmm, GString *out)
{
    g_return_if_fail(lmm != NULL && out != NULL);
    const double eps = WEFT_LMM_EPSILON;
    guint used = 0;
    for (guint cid = 0; cid < lmm->cnsts_len; cid++) {
        used += lmm->cnsts[cid].alive && lmm->cnsts[cid].n_live > 0;
    }
    g_string_append_printf(out,
                           "lmm: %u constraints (%u with variables), %u variables, "
                           "%" G_GUINT64_FORMAT " solves (%s)\n",
                           lmm->n_cnsts, used, lmm->n_vars, lmm->stats.solves,
                           lmm->incremental ? "incremental" : "full");
    guint shown = 0;
    for (guint cid = 0; cid < lmm->cnsts_len && shown < WEFT_LMM_DUMP_MAX; cid++) {
        const cnst_t *c = &lmm->cnsts[cid];
        if (!c->alive || c->n_live == 0) {
            continue;
        }
        shown++;
        g_string_append_printf(out, "  constraint %u: capacity ", cid);
        dump_Bps(out, c->capacity);
        g_string_append(out, ", usage ");
        dump_Bps(out, c->usage);
        g_string_append_printf(
            out, "%s, %u variables:", c->usage >= c->capacity * (1 - eps) ? " (saturated)" : "",
            c->n_live);
        /* the list is in ascending variable order but for entries appended since the last
         * solve: the first few live entries, in list order */
        guint listed = 0;
        for (guint j = 0; j < c->len && listed < WEFT_LMM_DUMP_MAX; j++) {
            if (c->elems[j].var != DEAD) {
                g_string_append_printf(out, " %u", c->elems[j].var);
                listed++;
            }
        }
        if (listed < c->n_live) {
            g_string_append_printf(out, " (+%u)", c->n_live - listed);
        }
        g_string_append_c(out, '\n');
    }
    if (used > shown) {
        g_string_append_printf(out, "  ... and %u more constraints with variables\n", used - shown);
    }
    shown = 0;
    for (guint vid = 0; vid < lmm->vars_len && shown < WEFT_LMM_DUMP_MAX; vid++) {
        if (!(lmm->vflags[vid] & VAR_ALIVE)) {
            continue;
        }
        const var_t *v = &lmm->vars[vid];
        shown++;
        g_string_append_printf(out, "  variable %u: weight %.9g, bound ", vid, v->weight);
        dump_Bps(out, v->bound);
        g_string_append(out, ", rate ");
        dump_Bps(out, lmm->rate[vid]);
        g_string_append(out, ", constraints");
        for (guint k = 0; k < v->len && k < WEFT_LMM_DUMP_MAX; k++) {
            g_string_append_printf(out, " %u", v->elems[k].cnst);
            if (v->elems[k].coef != 1.0) {
                g_string_append_printf(out, "(x%.9g)", v->elems[k].coef);
            }
        }
        if (v->len > WEFT_LMM_DUMP_MAX) {
            g_string_append_printf(out, " (+%u)", v->len - WEFT_LMM_DUMP_MAX);
        }
        g_string_append_c(out, '\n');
    }
    if (lmm->n_vars > shown) {
        g_string_append_printf(out, "  ... and %u more variables\n", lmm->n_vars - shown);
    }
}
