/* SPDX-License-Identifier: MIT */
/*
 * The max-min fair bandwidth-sharing solver (the "LMM" of the flow model).
 *
 * The solver knows nothing of clusters, links or transfers. It holds
 * *constraints* (a resource, e.g. one direction of a link, with a capacity
 * C_c in bytes/s) and *variables* (a consumer, e.g. one transfer, with a
 * weight w_v > 0, an optional upper bound b_v in bytes/s, and a list of
 * (constraint, coefficient a_vc > 0) pairs). A variable of rate x_v uses
 * a_vc * x_v of each of its constraints: a transfer sprayed over P NVSwitch
 * planes uses share_p of its rate on each plane's links; a link crossed by two
 * of its paths gets the sum of the two shares.
 *
 * Objective: the weighted max-min fair allocation. Rates are feasible,
 *     for every constraint c:  sum_v a_vc x_v <= C_c,       0 <= x_v <= b_v,
 * and no x_v / w_v can be raised without lowering some x_u / w_u that is
 * already smaller or equal. Equivalently (the max-min condition, Bertsekas and
 * Gallager, Data Networks, 2nd ed., 1992, section 6.5.2): every variable is
 * either at its bound, or crosses a *saturated* constraint c (sum = C_c) on
 * which its x_v / w_v is the largest among the variables of c. With all
 * weights 1 this is plain max-min fairness: two transfers on one link get half
 * each; in the parking-lot line every transfer gets half of a link.
 *
 * Algorithm: progressive filling (ibid., 6.5.2). Raise a common level L = x/w
 * of all unfrozen variables from 0. A constraint c saturates at
 *     L_c = R_c / W_c,   R_c = C_c - sum_{frozen v} a_vc x_v,
 *                        W_c = sum_{unfrozen v} a_vc w_v,
 * and a bounded variable reaches its bound at L_v = b_v / w_v. Take the
 * smallest of these; if it is a bound, freeze that variable at x_v = b_v,
 * otherwise freeze every unfrozen variable of c at x_v = w_v L_c; update R and
 * W of the constraints the frozen variables cross; repeat until every variable
 * is frozen. Levels are absolute (x = w L, not sums of increments), so rates
 * carry no accumulated rounding. The constraints' L_c sit in a binary heap
 * kept lazily (freezing a variable can only raise the L_c of its other
 * constraints, up to rounding: a raised key is re-sifted only when its entry
 * reaches the top, a lowered one at once), the bounded variables in an array
 * sorted by b_v / w_v. lmm.c lists the exact floating-point operations that
 * determine each rate; tests/check_lmm.c checks them against a literal
 * reference, bit for bit.
 * This is the scheme of SimGrid's LMM solver (src/kernel/lmm/maxmin.cpp;
 * Velho, Schnorr, Casanova and Legrand, "On the validity of flow-level TCP
 * network models for grid and cloud simulations", ACM TOMACS 23(4), 2013),
 * written afresh here with a heap instead of SimGrid's per-level scan.
 *
 * Complexity of solving a component with V variables, C constraints and E
 * (variable, constraint) pairs: O(E log C + B log B) with B the bounded
 * variables, plus O(n + t log t) for a constraint list of n entries that got
 * t insertions out of order since it was last solved (only those are sorted,
 * then merged into the rest), and O(V + C) to sort the changed variables and
 * touched constraints by id (radix sort). (A per-level scan would be
 * O((V + C) x levels); the heap makes the number of levels irrelevant.) In practice the
 * cost is memory traffic: the component search reads constraint lists only
 * (each entry names its variable's next constraint), W_c with all variables
 * unfrozen is kept per constraint until its list changes, and freezing
 * prefetches variables a few ahead. Measured: a 256-rank all-to-all on a
 * k = 16 fat-tree (65,280 variables, 355,840 pairs, 680 solves) takes about
 * 4 s, against 25-31 s before these changes (bench/bench_flow).
 *
 * Incremental solving. Rates change only when a variable is added or removed
 * or a capacity changes. The solver records these changes and
 * weft_lmm_solve() re-solves only the connected components, in the bipartite
 * variable-constraint graph, that contain a changed constraint; all changes
 * since the previous solve are batched into one. In full mode
 * (weft_lmm_new(FALSE)) every component is re-solved each time, to check the
 * incremental mode: both give bit-identical rates, because a component's
 * rates are a function of the component alone, computed in a canonical order
 * (constraints and variables visited by ascending id, ties broken by id),
 * never of the order of operations, of pointers or of hashing.
 *
 * Numerics: IEEE doubles. The solver itself needs no tolerance (levels are
 * clamped to be non-decreasing); results are exact up to rounding, and
 * weft_lmm_check() verifies them with the relative tolerance
 * WEFT_LMM_EPSILON. A W_c that loses more than three decimal digits to
 * cancellation is recomputed from its list, so weights may span many orders
 * of magnitude.
 *
 * Ids: constraints and variables are small integers recycled through
 * free lists (the most recently freed id first); at most 2^30 - 1
 * constraints exist at once (two bits of each list entry are flags). After warm-up, adding or
 * removing variables and solving allocate nothing: scratch arrays are kept
 * between solves.
 */
#ifndef WEFT_NET_LMM_H
#define WEFT_NET_LMM_H

#include <glib.h>

G_BEGIN_DECLS

/**
 * WEFT_LMM_EPSILON:
 * Relative tolerance of weft_lmm_check(): a constraint is over capacity if its
 * usage exceeds C (1 + eps), saturated if its usage is at least C (1 - eps);
 * rates within a factor (1 +- eps) count as equal. Rounding in one solve is a
 * few units of 2^-53 ~ 1.1e-16 per operation on a constraint; 1e-9 leaves
 * room for ~10^6 operations per constraint (an incast of 10^6 transfers).
 */
#define WEFT_LMM_EPSILON 1e-9

#define WEFT_LMM_ERROR (weft_lmm_error_quark())
GQuark weft_lmm_error_quark(void);

typedef enum {
    WEFT_LMM_ERROR_OVER_CAPACITY, /* a constraint's usage exceeds its capacity */
    WEFT_LMM_ERROR_NOT_MAX_MIN,   /* a variable breaks the max-min condition */
} weft_lmm_error_t;

typedef struct weft_lmm weft_lmm_t;

/** Counters over the solver's life, for benchmarks and tests. */
typedef struct {
    guint64 solves;           /* calls of weft_lmm_solve() */
    guint64 components;       /* components solved, over all solves */
    guint64 variables_solved; /* variables whose rate was recomputed, over all solves */
    guint64 last_variables;   /* variables recomputed by the last solve */
    guint64 last_constraints; /* constraints recomputed by the last solve */
    guint64 last_components;  /* components solved by the last solve */
    guint64 wsum_recomputed;  /* W_c recomputed after cancellation (see the essay) */
} weft_lmm_stats_t;

/**
 * weft_lmm_new:
 * @incremental: TRUE to re-solve only the components touched since the last
 *   solve; FALSE ("full") to re-solve everything every time.
 * Returns: (transfer full): an empty solver; free with weft_lmm_free().
 */
weft_lmm_t *weft_lmm_new(gboolean incremental);

/** weft_lmm_free: frees the solver. NULL is a no-op. */
void weft_lmm_free(weft_lmm_t *lmm);

/**
 * weft_lmm_constraint_new:
 * @lmm: the solver.
 * @capacity_Bps: capacity in bytes/s, finite and >= 0 (0: everything on it gets rate 0).
 * Returns: the constraint's id (a recycled one if any was freed).
 * Time complexity: O(1) amortized.
 */
guint weft_lmm_constraint_new(weft_lmm_t *lmm, double capacity_Bps);

/**
 * weft_lmm_constraint_free:
 * @lmm: the solver.
 * @cnst: a constraint id that no live variable uses.
 *
 * Returns the id to the free list.
 */
void weft_lmm_constraint_free(weft_lmm_t *lmm, guint cnst);

/**
 * weft_lmm_constraint_set_capacity:
 * @lmm: the solver.
 * @cnst: a constraint id.
 * @capacity_Bps: the new capacity in bytes/s, finite and >= 0.
 *
 * Takes effect at the next weft_lmm_solve(). Setting the current value is not
 * a change. Time complexity: O(1).
 */
void weft_lmm_constraint_set_capacity(weft_lmm_t *lmm, guint cnst, double capacity_Bps);

/** weft_lmm_constraint_capacity: the capacity of @cnst in bytes/s. */
double weft_lmm_constraint_capacity(const weft_lmm_t *lmm, guint cnst);

/**
 * weft_lmm_constraint_usage:
 * @lmm: the solver.
 * @cnst: a constraint id.
 * Returns: sum over the constraint's variables of coefficient x rate, in
 * bytes/s, as of the last weft_lmm_solve() (0 for a constraint with no
 * variables, once solved).
 */
double weft_lmm_constraint_usage(const weft_lmm_t *lmm, guint cnst);

/** weft_lmm_constraint_n_variables: how many live variables use @cnst. */
guint weft_lmm_constraint_n_variables(const weft_lmm_t *lmm, guint cnst);

/**
 * weft_lmm_variable_new:
 * @lmm: the solver.
 * @weight: w > 0; rates are max-min fair in rate / w.
 * @bound_Bps: the variable's rate cap in bytes/s; <= 0 or INFINITY means none.
 * @cnst: (array length=n): constraint ids; a constraint listed twice gets the
 *   sum of its coefficients.
 * @coef: (array length=n): coefficients, each > 0 and finite.
 * @n: number of pairs (may be 0: the variable's rate is then its bound, or
 *   INFINITY if it has none).
 *
 * Adds a variable. Its rate is 0 until the next weft_lmm_solve(), which
 * always reports it as changed.
 * Returns: the variable's id (a recycled one if any was freed).
 * Time complexity: O(n log n) amortized.
 */
guint weft_lmm_variable_new(weft_lmm_t *lmm, double weight, double bound_Bps, const guint *cnst,
                            const double *coef, guint n);

/**
 * weft_lmm_variable_free:
 * @lmm: the solver.
 * @var: a live variable id.
 *
 * Removes the variable; its id may be returned by a later
 * weft_lmm_variable_new(). The constraints it used are re-solved at the next
 * weft_lmm_solve(). Time complexity: O(number of its constraints).
 */
void weft_lmm_variable_free(weft_lmm_t *lmm, guint var);

/**
 * weft_lmm_variable_rate:
 * @lmm: the solver.
 * @var: a live variable id.
 * Returns: its rate in bytes/s as of the last weft_lmm_solve() (0 if added since).
 */
double weft_lmm_variable_rate(const weft_lmm_t *lmm, guint var);

/** weft_lmm_variable_weight: the weight given to weft_lmm_variable_new(). */
double weft_lmm_variable_weight(const weft_lmm_t *lmm, guint var);

/** weft_lmm_variable_bound: the bound in bytes/s, or INFINITY if the variable has none. */
double weft_lmm_variable_bound(const weft_lmm_t *lmm, guint var);

/**
 * weft_lmm_solve:
 * @lmm: the solver.
 *
 * Brings every rate and usage up to date with the changes made since the
 * previous solve (incremental mode), or recomputes all of them (full mode),
 * and records which live variables' rates changed (see weft_lmm_changed()).
 * Time complexity: that of progressive filling (see the essay) over the
 * components re-solved. Allocates nothing once scratch arrays have grown.
 */
void weft_lmm_solve(weft_lmm_t *lmm);

/**
 * weft_lmm_changed:
 * @lmm: the solver.
 * @n: (out): number of ids.
 *
 * The live variables whose rate after the last weft_lmm_solve() differs (as a
 * double, bit for bit) from their rate before it, plus every variable added
 * since the solve before, in ascending id order. Removed variables are never
 * listed.
 * Returns: (transfer none): the ids; valid until the next call that modifies @lmm.
 */
const guint *weft_lmm_changed(const weft_lmm_t *lmm, guint *n);

/**
 * weft_lmm_next_changed:
 * @lmm: the solver.
 * @iter: (inout): 0 before the first call.
 * @var: (out): the next changed variable.
 *
 * Iterates over weft_lmm_changed(): `guint it = 0, v; while
 * (weft_lmm_next_changed(lmm, &it, &v)) {...}`.
 * Returns: FALSE when there is none left.
 */
gboolean weft_lmm_next_changed(const weft_lmm_t *lmm, guint *iter, guint *var);

/**
 * weft_lmm_check:
 * @lmm: the solver.
 * @error: WEFT_LMM_ERROR_OVER_CAPACITY naming the constraint, its usage and
 *   capacity; or WEFT_LMM_ERROR_NOT_MAX_MIN naming the variable and its rate.
 *
 * Checks the current rates against the current capacities, with relative
 * tolerance WEFT_LMM_EPSILON: no constraint above capacity; every variable at
 * its bound or on a saturated constraint where its rate / weight is maximal.
 * Meant right after weft_lmm_solve(), for property tests of the solver and of
 * the models built on it; a change made since is not yet reflected in the rates.
 * Returns: TRUE if both hold. Time complexity: O(V + C + E).
 */
gboolean weft_lmm_check(const weft_lmm_t *lmm, GError **error);

/** weft_lmm_stats: counters since weft_lmm_new(). */
weft_lmm_stats_t weft_lmm_stats(const weft_lmm_t *lmm);

/** weft_lmm_n_variables: live variables. */
guint weft_lmm_n_variables(const weft_lmm_t *lmm);

/** weft_lmm_n_constraints: live constraints. */
guint weft_lmm_n_constraints(const weft_lmm_t *lmm);

/** WEFT_LMM_DUMP_MAX: how many constraints, variables, and ids per line weft_lmm_dump() lists. */
#define WEFT_LMM_DUMP_MAX 8

/**
 * weft_lmm_dump:
 * @lmm: the solver.
 * @out: appended to.
 *
 * Appends the solver's state as text, for debugging (the flow model logs it
 * in the weft-net domain: doc/network.md): a header line (constraints, how
 * many have variables, variables, solves, mode), then one line per
 * constraint that has variables (capacity, usage as of the last solve, a
 * "(saturated)" mark, its variables' ids) and one per variable (weight,
 * bound, rate, its constraints, with the coefficient as "ID(xCOEF)" when it is
 * not 1), in ascending id. Bounded: the first WEFT_LMM_DUMP_MAX of each,
 * then a line counting the rest; rates in B/s with 9 significant digits.
 * Like weft_lmm_check(), it reads the rates of the last solve.
 * Time complexity: O(C + V) to count, plus the lines written.
 */
void weft_lmm_dump(const weft_lmm_t *lmm, GString *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_lmm_t, weft_lmm_free)

G_END_DECLS

#endif /* WEFT_NET_LMM_H */
