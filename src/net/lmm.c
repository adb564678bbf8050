/* SPDX-License-Identifier: MIT */
/*
 * The max-min fair solver: constraints and variables in id-indexed arrays with
 * free lists, per-constraint lists of (variable, coefficient) kept in
 * ascending variable order, component search over the bipartite graph, and
 * progressive filling with an indexed heap of constraint saturation levels.
 * See lmm.h for the model, the algorithm and the references.
 */
#include "net/lmm.h"

#include <math.h>

/* A constraint's list entry whose variable was removed (compacted away at the next solve). */
#define DEAD G_MAXUINT

/* W_c is recomputed from its list when it falls below this fraction of its last exact value:
 * cancellation then has cost at most three of the 16 decimal digits of a double. */
#define WSUM_RECOMPUTE_FRACTION 1e-3

typedef struct {
    guint var;  /* variable id, or DEAD */
    guint vpos; /* index of the matching velem_t in the variable's list */
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
    GArray *elems; /* celem_t; ascending var once prepared (tombstones removed, sorted) */
    guint n_live;
    guint n_dead;
    guint max_var; /* largest var appended since the list was last sorted */
    gboolean alive;
    gboolean unsorted;
    gboolean touched; /* in lmm->touched */
    guint64 stamp;    /* the solve that visited it last */
    /* progressive-filling state, valid during one component's solve */
    double remaining; /* R_c: capacity minus the usage of frozen variables */
    double wsum;      /* W_c: sum of coef x weight over unfrozen variables */
    double wsum_ref;  /* W_c when last computed exactly */
    double key;       /* L_c = R_c / W_c, clamped to the current level */
    guint nfree;      /* unfrozen variables */
    gint heap_pos;    /* index in lmm->heap, or -1 */
} cnst_t;

typedef struct {
    double weight;
    double bound; /* INFINITY if none */
    double rate;
    double new_rate;
    GArray *elems; /* velem_t, ascending cnst, no duplicates */
    gboolean alive;
    gboolean is_new;      /* added since the last solve */
    gboolean in_new_list; /* its id is in lmm->new_vars */
    gboolean frozen;
    guint64 stamp;         /* the solve that visited it last */
    guint64 changed_stamp; /* the solve that listed it as changed */
} var_t;

typedef struct {
    double key; /* bound / weight */
    guint var;
} bkey_t;

struct weft_lmm {
    gboolean incremental;
    GArray *cnsts;     /* cnst_t by id */
    GArray *vars;      /* var_t by id */
    GArray *cnst_free; /* guint: freed constraint ids, last freed reused first */
    GArray *var_free;  /* guint */
    guint n_cnsts;
    guint n_vars;
    GArray *touched;  /* guint: constraints changed since the last solve */
    GArray *new_vars; /* guint: variables added since the last solve */
    GArray *changed;  /* guint: the last solve's changed variables, ascending */
    guint64 stamp;    /* solves so far; marks visited constraints and variables */
    /* scratch kept between solves */
    GArray *comp_cnsts; /* guint */
    GArray *comp_vars;  /* guint */
    GArray *heap;       /* guint constraint ids, a binary min-heap on (key, id) */
    GArray *bounded;    /* bkey_t */
    weft_lmm_stats_t stats;
};

/* clang-format off */
G_DEFINE_QUARK(weft-lmm-error-quark, weft_lmm_error)
/* clang-format on */

#define CNST(lmm, id) (&g_array_index((lmm)->cnsts, cnst_t, (id)))
#define VAR(lmm, id) (&g_array_index((lmm)->vars, var_t, (id)))
#define CELEM(c, i) (&g_array_index((c)->elems, celem_t, (i)))
#define VELEM(v, i) (&g_array_index((v)->elems, velem_t, (i)))

/* ---- in-place heapsort: O(n log n), allocates nothing (glibc's qsort may malloc) ---- */

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
cmp_guint(const void *a, const void *b)
{
    guint x = *(const guint *)a, y = *(const guint *)b;
    return (x > y) - (x < y);
}

static int
cmp_celem(const void *a, const void *b)
{
    guint x = ((const celem_t *)a)->var, y = ((const celem_t *)b)->var;
    return (x > y) - (x < y);
}

static int
cmp_velem(const void *a, const void *b)
{
    guint x = ((const velem_t *)a)->cnst, y = ((const velem_t *)b)->cnst;
    return (x > y) - (x < y);
}

static int
cmp_bkey(const void *a, const void *b)
{
    const bkey_t *x = a, *y = b;
    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return (x->var > y->var) - (x->var < y->var);
}

/* ---- the indexed heap of constraints on (key, id) ------------------------------------ */

static gboolean
heap_less(weft_lmm_t *lmm, guint a, guint b)
{
    double ka = CNST(lmm, a)->key, kb = CNST(lmm, b)->key;
    return ka < kb || (ka == kb && a < b);
}

static void
heap_set(weft_lmm_t *lmm, guint pos, guint id)
{
    g_array_index(lmm->heap, guint, pos) = id;
    CNST(lmm, id)->heap_pos = (gint)pos;
}

static void
heap_up(weft_lmm_t *lmm, guint pos)
{
    guint id = g_array_index(lmm->heap, guint, pos);
    while (pos > 0) {
        guint parent = (pos - 1) / 2;
        guint pid = g_array_index(lmm->heap, guint, parent);
        if (!heap_less(lmm, id, pid)) {
            break;
        }
        heap_set(lmm, pos, pid);
        pos = parent;
    }
    heap_set(lmm, pos, id);
}

static void
heap_down(weft_lmm_t *lmm, guint pos)
{
    guint n = lmm->heap->len;
    guint id = g_array_index(lmm->heap, guint, pos);
    for (;;) {
        guint child = 2 * pos + 1;
        if (child >= n) {
            break;
        }
        guint cid = g_array_index(lmm->heap, guint, child);
        if (child + 1 < n) {
            guint rid = g_array_index(lmm->heap, guint, child + 1);
            if (heap_less(lmm, rid, cid)) {
                child++;
                cid = rid;
            }
        }
        if (!heap_less(lmm, cid, id)) {
            break;
        }
        heap_set(lmm, pos, cid);
        pos = child;
    }
    heap_set(lmm, pos, id);
}

static void
heap_push(weft_lmm_t *lmm, guint id)
{
    g_array_append_val(lmm->heap, id);
    heap_up(lmm, lmm->heap->len - 1);
}

static void
heap_remove(weft_lmm_t *lmm, guint id)
{
    cnst_t *c = CNST(lmm, id);
    guint pos = (guint)c->heap_pos;
    guint last = lmm->heap->len - 1;
    c->heap_pos = -1;
    if (pos != last) {
        guint moved = g_array_index(lmm->heap, guint, last);
        g_array_set_size(lmm->heap, last);
        heap_set(lmm, pos, moved);
        heap_up(lmm, pos);
        heap_down(lmm, (guint)CNST(lmm, moved)->heap_pos);
    } else {
        g_array_set_size(lmm->heap, last);
    }
}

static guint
heap_pop(weft_lmm_t *lmm)
{
    guint id = g_array_index(lmm->heap, guint, 0);
    heap_remove(lmm, id);
    return id;
}

/* ---- construction ---------------------------------------------------------------------- */

weft_lmm_t *
weft_lmm_new(gboolean incremental)
{
    weft_lmm_t *lmm = g_new0(weft_lmm_t, 1);
    lmm->incremental = incremental;
    lmm->cnsts = g_array_new(FALSE, TRUE, sizeof(cnst_t));
    lmm->vars = g_array_new(FALSE, TRUE, sizeof(var_t));
    lmm->cnst_free = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->var_free = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->touched = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->new_vars = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->changed = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->comp_cnsts = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->comp_vars = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->heap = g_array_new(FALSE, FALSE, sizeof(guint));
    lmm->bounded = g_array_new(FALSE, FALSE, sizeof(bkey_t));
    return lmm;
}

void
weft_lmm_free(weft_lmm_t *lmm)
{
    if (lmm == NULL) {
        return;
    }
    for (guint i = 0; i < lmm->cnsts->len; i++) {
        g_array_free(CNST(lmm, i)->elems, TRUE);
    }
    for (guint i = 0; i < lmm->vars->len; i++) {
        g_array_free(VAR(lmm, i)->elems, TRUE);
    }
    g_array_free(lmm->cnsts, TRUE);
    g_array_free(lmm->vars, TRUE);
    g_array_free(lmm->cnst_free, TRUE);
    g_array_free(lmm->var_free, TRUE);
    g_array_free(lmm->touched, TRUE);
    g_array_free(lmm->new_vars, TRUE);
    g_array_free(lmm->changed, TRUE);
    g_array_free(lmm->comp_cnsts, TRUE);
    g_array_free(lmm->comp_vars, TRUE);
    g_array_free(lmm->heap, TRUE);
    g_array_free(lmm->bounded, TRUE);
    g_free(lmm);
}

static gboolean
cnst_valid(const weft_lmm_t *lmm, guint id)
{
    return id < lmm->cnsts->len && g_array_index(lmm->cnsts, cnst_t, id).alive;
}

static gboolean
var_valid(const weft_lmm_t *lmm, guint id)
{
    return id < lmm->vars->len && g_array_index(lmm->vars, var_t, id).alive;
}

static void
touch(weft_lmm_t *lmm, guint id)
{
    cnst_t *c = CNST(lmm, id);
    if (!c->touched) {
        c->touched = TRUE;
        g_array_append_val(lmm->touched, id);
    }
}

guint
weft_lmm_constraint_new(weft_lmm_t *lmm, double capacity_Bps)
{
    g_return_val_if_fail(lmm != NULL, 0);
    g_return_val_if_fail(isfinite(capacity_Bps) && capacity_Bps >= 0, 0);
    guint id;
    if (lmm->cnst_free->len > 0) {
        id = g_array_index(lmm->cnst_free, guint, lmm->cnst_free->len - 1);
        g_array_set_size(lmm->cnst_free, lmm->cnst_free->len - 1);
    } else {
        id = lmm->cnsts->len;
        g_array_set_size(lmm->cnsts, id + 1);
        CNST(lmm, id)->elems = g_array_new(FALSE, FALSE, sizeof(celem_t));
    }
    cnst_t *c = CNST(lmm, id);
    g_array_set_size(c->elems, 0);
    c->capacity = capacity_Bps;
    c->usage = 0;
    c->n_live = c->n_dead = c->max_var = 0;
    c->alive = TRUE;
    c->unsorted = FALSE;
    c->heap_pos = -1;
    lmm->n_cnsts++;
    touch(lmm, id); /* `touched` survives a free and re-use: the id may already be listed */
    return id;
}

void
weft_lmm_constraint_free(weft_lmm_t *lmm, guint cnst)
{
    g_return_if_fail(lmm != NULL && cnst_valid(lmm, cnst));
    cnst_t *c = CNST(lmm, cnst);
    g_return_if_fail(c->n_live == 0);
    g_array_set_size(c->elems, 0);
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
    cnst_t *c = CNST(lmm, cnst);
    if (c->capacity != capacity_Bps) {
        c->capacity = capacity_Bps;
        touch(lmm, cnst);
    }
}

double
weft_lmm_constraint_capacity(const weft_lmm_t *lmm, guint cnst)
{
    g_return_val_if_fail(lmm != NULL && cnst_valid(lmm, cnst), 0);
    return g_array_index(lmm->cnsts, cnst_t, cnst).capacity;
}

double
weft_lmm_constraint_usage(const weft_lmm_t *lmm, guint cnst)
{
    g_return_val_if_fail(lmm != NULL && cnst_valid(lmm, cnst), 0);
    return g_array_index(lmm->cnsts, cnst_t, cnst).usage;
}

guint
weft_lmm_constraint_n_variables(const weft_lmm_t *lmm, guint cnst)
{
    g_return_val_if_fail(lmm != NULL && cnst_valid(lmm, cnst), 0);
    return g_array_index(lmm->cnsts, cnst_t, cnst).n_live;
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
    guint id;
    if (lmm->var_free->len > 0) {
        id = g_array_index(lmm->var_free, guint, lmm->var_free->len - 1);
        g_array_set_size(lmm->var_free, lmm->var_free->len - 1);
    } else {
        id = lmm->vars->len;
        g_array_set_size(lmm->vars, id + 1);
        VAR(lmm, id)->elems = g_array_new(FALSE, FALSE, sizeof(velem_t));
    }
    var_t *v = VAR(lmm, id);
    v->weight = weight;
    v->bound = (bound_Bps <= 0 || !isfinite(bound_Bps)) ? INFINITY : bound_Bps;
    v->rate = v->new_rate = 0;
    v->alive = TRUE;
    v->is_new = TRUE;
    v->frozen = FALSE;
    if (!v->in_new_list) {
        v->in_new_list = TRUE;
        g_array_append_val(lmm->new_vars, id);
    }

    /* The variable's own list: ascending constraint id, duplicates merged by summing. */
    g_array_set_size(v->elems, 0);
    for (guint i = 0; i < n; i++) {
        velem_t e = {cnst[i], 0, coef[i]};
        g_array_append_val(v->elems, e);
    }
    heapsort(v->elems->data, v->elems->len, sizeof(velem_t), cmp_velem);
    guint m = 0;
    for (guint i = 0; i < v->elems->len; i++) {
        if (m > 0 && VELEM(v, m - 1)->cnst == VELEM(v, i)->cnst) {
            VELEM(v, m - 1)->coef += VELEM(v, i)->coef;
        } else {
            *VELEM(v, m++) = *VELEM(v, i);
        }
    }
    g_array_set_size(v->elems, m);

    for (guint i = 0; i < m; i++) {
        velem_t *ve = VELEM(v, i);
        cnst_t *c = CNST(lmm, ve->cnst);
        celem_t ce = {id, i, ve->coef};
        ve->cpos = c->elems->len;
        g_array_append_val(c->elems, ce);
        if (id < c->max_var) {
            c->unsorted = TRUE;
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
    var_t *v = VAR(lmm, var);
    for (guint i = 0; i < v->elems->len; i++) {
        velem_t *ve = VELEM(v, i);
        cnst_t *c = CNST(lmm, ve->cnst);
        CELEM(c, ve->cpos)->var = DEAD;
        c->n_live--;
        c->n_dead++;
        touch(lmm, ve->cnst);
    }
    g_array_set_size(v->elems, 0);
    v->alive = FALSE;
    v->is_new = FALSE;
    lmm->n_vars--;
    g_array_append_val(lmm->var_free, var);
}

double
weft_lmm_variable_rate(const weft_lmm_t *lmm, guint var)
{
    g_return_val_if_fail(lmm != NULL && var_valid(lmm, var), 0);
    return g_array_index(lmm->vars, var_t, var).rate;
}

double
weft_lmm_variable_weight(const weft_lmm_t *lmm, guint var)
{
    g_return_val_if_fail(lmm != NULL && var_valid(lmm, var), 0);
    return g_array_index(lmm->vars, var_t, var).weight;
}

double
weft_lmm_variable_bound(const weft_lmm_t *lmm, guint var)
{
    g_return_val_if_fail(lmm != NULL && var_valid(lmm, var), 0);
    return g_array_index(lmm->vars, var_t, var).bound;
}

/* ---- solving ---------------------------------------------------------------------------- */

/* Puts a constraint's list in canonical form: tombstones dropped (stable), ascending variable
 * id; and points each variable's entry back at its new position. Linear unless an insertion
 * came out of order, then O(n log n) once. */
static void
prepare(weft_lmm_t *lmm, guint id)
{
    cnst_t *c = CNST(lmm, id);
    if (c->n_dead == 0 && !c->unsorted) {
        return;
    }
    guint m = 0;
    for (guint i = 0; i < c->elems->len; i++) {
        if (CELEM(c, i)->var != DEAD) {
            *CELEM(c, m++) = *CELEM(c, i);
        }
    }
    g_array_set_size(c->elems, m);
    if (c->unsorted) {
        heapsort(c->elems->data, m, sizeof(celem_t), cmp_celem);
    }
    for (guint i = 0; i < m; i++) {
        celem_t *ce = CELEM(c, i);
        VELEM(VAR(lmm, ce->var), ce->vpos)->cpos = i;
    }
    c->n_dead = 0;
    c->unsorted = FALSE;
    c->max_var = m > 0 ? CELEM(c, m - 1)->var : 0;
}

/* Collects the component of constraint @seed into comp_cnsts and comp_vars. */
static void
collect(weft_lmm_t *lmm, guint seed)
{
    g_array_set_size(lmm->comp_cnsts, 0);
    g_array_set_size(lmm->comp_vars, 0);
    CNST(lmm, seed)->stamp = lmm->stamp;
    prepare(lmm, seed);
    g_array_append_val(lmm->comp_cnsts, seed);
    for (guint i = 0; i < lmm->comp_cnsts->len; i++) {
        cnst_t *c = CNST(lmm, g_array_index(lmm->comp_cnsts, guint, i));
        for (guint j = 0; j < c->elems->len; j++) {
            guint vid = CELEM(c, j)->var;
            var_t *v = VAR(lmm, vid);
            if (v->stamp == lmm->stamp) {
                continue;
            }
            v->stamp = lmm->stamp;
            g_array_append_val(lmm->comp_vars, vid);
            for (guint k = 0; k < v->elems->len; k++) {
                guint cid = VELEM(v, k)->cnst;
                cnst_t *c2 = CNST(lmm, cid);
                if (c2->stamp != lmm->stamp) {
                    c2->stamp = lmm->stamp;
                    prepare(lmm, cid); /* touches only c2's list and cpos fields */
                    g_array_append_val(lmm->comp_cnsts, cid);
                }
            }
        }
    }
}

/* W_c computed exactly, in list order, over the unfrozen variables. */
static double
wsum_exact(weft_lmm_t *lmm, const cnst_t *c)
{
    double w = 0;
    for (guint j = 0; j < c->elems->len; j++) {
        const celem_t *ce = CELEM(c, j);
        const var_t *v = VAR(lmm, ce->var);
        if (!v->frozen) {
            w += ce->coef * v->weight;
        }
    }
    return w;
}

/* Freezes variable @vid at @rate (level @level) and updates its constraints' R, W and L. */
static void
freeze(weft_lmm_t *lmm, guint vid, double rate, double level)
{
    var_t *v = VAR(lmm, vid);
    v->frozen = TRUE;
    v->new_rate = rate;
    for (guint k = 0; k < v->elems->len; k++) {
        const velem_t *ve = VELEM(v, k);
        cnst_t *c = CNST(lmm, ve->cnst);
        c->nfree--;
        if (c->heap_pos < 0) {
            continue; /* saturated already: its variables are being frozen */
        }
        if (c->nfree == 0) {
            heap_remove(lmm, ve->cnst);
            continue;
        }
        c->remaining -= ve->coef * rate;
        c->wsum -= ve->coef * v->weight;
        if (c->wsum <= c->wsum_ref * WSUM_RECOMPUTE_FRACTION) {
            c->wsum = c->wsum_ref = wsum_exact(lmm, c);
            lmm->stats.wsum_recomputed++;
        }
        double key = c->remaining > 0 ? c->remaining / c->wsum : 0;
        c->key = key > level ? key : level;
        heap_down(lmm, (guint)c->heap_pos);
        heap_up(lmm, (guint)c->heap_pos);
    }
}

/* Progressive filling over the collected component; then usages and changed variables. */
static void
fill(weft_lmm_t *lmm)
{
    GArray *cv = lmm->comp_vars, *cc = lmm->comp_cnsts;
    g_array_set_size(lmm->heap, 0);
    g_array_set_size(lmm->bounded, 0);
    for (guint i = 0; i < cv->len; i++) {
        guint vid = g_array_index(cv, guint, i);
        var_t *v = VAR(lmm, vid);
        v->frozen = FALSE;
        if (isfinite(v->bound)) {
            bkey_t b = {v->bound / v->weight, vid};
            g_array_append_val(lmm->bounded, b);
        }
    }
    heapsort(lmm->bounded->data, lmm->bounded->len, sizeof(bkey_t), cmp_bkey);
    for (guint i = 0; i < cc->len; i++) {
        guint cid = g_array_index(cc, guint, i);
        cnst_t *c = CNST(lmm, cid);
        c->remaining = c->capacity;
        c->nfree = c->n_live;
        c->heap_pos = -1;
        if (c->nfree > 0) {
            c->wsum = c->wsum_ref = wsum_exact(lmm, c);
            c->key = c->remaining / c->wsum;
            heap_push(lmm, cid);
        }
    }

    double level = 0;
    guint bi = 0;
    for (;;) {
        while (bi < lmm->bounded->len &&
               VAR(lmm, g_array_index(lmm->bounded, bkey_t, bi).var)->frozen) {
            bi++;
        }
        gboolean have_b = bi<lmm->bounded->len, have_c = lmm->heap->len> 0;
        if (!have_b && !have_c) {
            break;
        }
        const bkey_t *b = have_b ? &g_array_index(lmm->bounded, bkey_t, bi) : NULL;
        if (have_b && (!have_c || b->key <= CNST(lmm, g_array_index(lmm->heap, guint, 0))->key)) {
            /* On a tie the bound goes first: same rates, one fixed order. */
            level = MAX(level, b->key);
            freeze(lmm, b->var, VAR(lmm, b->var)->bound, level);
            bi++;
            continue;
        }
        guint cid = heap_pop(lmm);
        cnst_t *c = CNST(lmm, cid);
        level = MAX(level, c->key);
        for (guint j = 0; j < c->elems->len; j++) {
            guint vid = CELEM(c, j)->var;
            var_t *v = VAR(lmm, vid);
            if (!v->frozen) {
                /* MIN: w (b / w) may round above b; a bounded variable never exceeds b. */
                freeze(lmm, vid, MIN(v->weight * level, v->bound), level);
            }
        }
    }

    for (guint i = 0; i < cc->len; i++) {
        cnst_t *c = CNST(lmm, g_array_index(cc, guint, i));
        double usage = 0;
        for (guint j = 0; j < c->elems->len; j++) {
            const celem_t *ce = CELEM(c, j);
            usage += ce->coef * VAR(lmm, ce->var)->new_rate;
        }
        c->usage = usage;
    }
    for (guint i = 0; i < cv->len; i++) {
        guint vid = g_array_index(cv, guint, i);
        var_t *v = VAR(lmm, vid);
        if (v->is_new || v->new_rate != v->rate) {
            v->changed_stamp = lmm->stamp;
            g_array_append_val(lmm->changed, vid);
        }
        v->rate = v->new_rate;
    }
    lmm->stats.components++;
    lmm->stats.last_components++;
    lmm->stats.last_variables += cv->len;
    lmm->stats.last_constraints += cc->len;
}

static void
solve_from(weft_lmm_t *lmm, guint cid)
{
    cnst_t *c = CNST(lmm, cid);
    if (!c->alive || c->stamp == lmm->stamp) {
        return;
    }
    collect(lmm, cid);
    fill(lmm);
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
    heapsort(lmm->touched->data, lmm->touched->len, sizeof(guint), cmp_guint);
    for (guint i = 0; i < lmm->touched->len; i++) {
        guint cid = g_array_index(lmm->touched, guint, i);
        CNST(lmm, cid)->touched = FALSE;
        if (lmm->incremental) {
            solve_from(lmm, cid);
        }
    }
    g_array_set_size(lmm->touched, 0);
    if (!lmm->incremental) {
        for (guint cid = 0; cid < lmm->cnsts->len; cid++) {
            solve_from(lmm, cid);
        }
    }

    /* New variables: those without constraints get their rate here; all are reported. */
    for (guint i = 0; i < lmm->new_vars->len; i++) {
        guint vid = g_array_index(lmm->new_vars, guint, i);
        var_t *v = VAR(lmm, vid);
        v->in_new_list = FALSE;
        if (!v->alive) {
            continue;
        }
        if (v->elems->len == 0) {
            v->rate = v->new_rate = v->bound; /* INFINITY when unbounded */
        }
        if (v->changed_stamp != lmm->stamp) {
            v->changed_stamp = lmm->stamp;
            g_array_append_val(lmm->changed, vid);
        }
        v->is_new = FALSE;
    }
    g_array_set_size(lmm->new_vars, 0);
    heapsort(lmm->changed->data, lmm->changed->len, sizeof(guint), cmp_guint);
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
    guint nc = lmm->cnsts->len;
    g_autofree double *usage = g_new0(double, nc);
    g_autofree double *max_level = g_new0(double, nc);
    for (guint cid = 0; cid < nc; cid++) {
        const cnst_t *c = &g_array_index(lmm->cnsts, cnst_t, cid);
        if (!c->alive) {
            continue;
        }
        for (guint j = 0; j < c->elems->len; j++) {
            const celem_t *ce = &g_array_index(c->elems, celem_t, j);
            if (ce->var == DEAD) {
                continue;
            }
            const var_t *v = &g_array_index(lmm->vars, var_t, ce->var);
            usage[cid] += ce->coef * v->rate;
            max_level[cid] = MAX(max_level[cid], v->rate / v->weight);
        }
        if (usage[cid] > c->capacity * (1 + eps)) {
            g_set_error(error, WEFT_LMM_ERROR, WEFT_LMM_ERROR_OVER_CAPACITY,
                        "constraint %u: usage %.17g B/s exceeds capacity %.17g B/s", cid,
                        usage[cid], c->capacity);
            return FALSE;
        }
    }
    for (guint vid = 0; vid < lmm->vars->len; vid++) {
        const var_t *v = &g_array_index(lmm->vars, var_t, vid);
        if (!v->alive) {
            continue;
        }
        if (!(v->rate >= 0) || v->rate > v->bound * (1 + eps)) {
            g_set_error(error, WEFT_LMM_ERROR, WEFT_LMM_ERROR_OVER_CAPACITY,
                        "variable %u: rate %.17g B/s is negative or above its bound %.17g B/s", vid,
                        v->rate, v->bound);
            return FALSE;
        }
        gboolean ok = v->rate >= v->bound * (1 - eps) || v->elems->len == 0;
        double level = v->rate / v->weight;
        for (guint k = 0; !ok && k < v->elems->len; k++) {
            guint cid = g_array_index(v->elems, velem_t, k).cnst;
            const cnst_t *c = &g_array_index(lmm->cnsts, cnst_t, cid);
            ok = usage[cid] >= c->capacity * (1 - eps) && level >= max_level[cid] * (1 - eps);
        }
        if (!ok) {
            g_set_error(error, WEFT_LMM_ERROR, WEFT_LMM_ERROR_NOT_MAX_MIN,
                        "variable %u: rate %.17g B/s (weight %g) is below its bound and has no "
                        "saturated constraint on which its rate / weight is the largest",
                        vid, v->rate, v->weight);
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
