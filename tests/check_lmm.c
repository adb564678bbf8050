/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the max-min fair solver: hand-derived allocations (one link,
 * weights, the parking-lot line, rate caps, coefficients and sprayed
 * variables, incast, zero capacity), the changed-variable report, id
 * recycling, the checker catching stale rates, and property tests on seeded
 * random instances: feasibility and the max-min condition checked here,
 * independently of the solver, and the incremental mode equal to the full mode
 * bit for bit through random sequences of additions, removals and capacity
 * changes.
 *
 * The hand-derived tests are loop tests: _i = 0 runs the incremental solver,
 * _i = 1 the full one; both must give the same numbers.
 */
#include "net/lmm.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOL 1e-12

static weft_lmm_t *
new_solver(int i)
{
    return weft_lmm_new(i == 0);
}

static guint
var1(weft_lmm_t *lmm, double weight, double bound, guint c)
{
    double one = 1;
    return weft_lmm_variable_new(lmm, weight, bound, &c, &one, 1);
}

START_TEST(two_variables_on_one_constraint_get_half_each)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint c = weft_lmm_constraint_new(lmm, 10);
    guint a = var1(lmm, 1, 0, c);
    guint b = var1(lmm, 1, 0, c);
    weft_lmm_solve(lmm);
    /* Level L with 2L = 10: L = 5 each. */
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, a), 5, TOL);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, b), 5, TOL);
    ck_assert_double_eq_tol(weft_lmm_constraint_usage(lmm, c), 10, TOL);
    ck_assert(weft_lmm_check(lmm, NULL));
}
END_TEST

START_TEST(weights_one_and_three_get_a_quarter_and_three_quarters)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint c = weft_lmm_constraint_new(lmm, 10);
    guint a = var1(lmm, 1, 0, c);
    guint b = var1(lmm, 3, 0, c);
    weft_lmm_solve(lmm);
    /* 1 L + 3 L = 10: L = 2.5; rates w L = 2.5 (C/4) and 7.5 (3C/4). */
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, a), 2.5, TOL);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, b), 7.5, TOL);
    ck_assert(weft_lmm_check(lmm, NULL));
}
END_TEST

/* The parking-lot line: links 0, 1, 2; `lng` crosses all three, s[k] only link k. */
static void
parking_lot(weft_lmm_t *lmm, double mid_capacity, guint link[3], guint *lng, guint s[3])
{
    double ones[3] = {1, 1, 1};
    link[0] = weft_lmm_constraint_new(lmm, 1);
    link[1] = weft_lmm_constraint_new(lmm, mid_capacity);
    link[2] = weft_lmm_constraint_new(lmm, 1);
    *lng = weft_lmm_variable_new(lmm, 1, 0, link, ones, 3);
    for (int k = 0; k < 3; k++) {
        s[k] = var1(lmm, 1, 0, link[k]);
    }
}

START_TEST(parking_lot_gives_every_variable_half)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint link[3], lng, s[3];
    parking_lot(lmm, 1, link, &lng, s);
    weft_lmm_solve(lmm);
    /* Every link carries 2 variables: L = 1/2 on all three at once; everyone gets 1/2. */
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, lng), 0.5, TOL);
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, s[k]), 0.5, TOL);
        ck_assert_double_eq_tol(weft_lmm_constraint_usage(lmm, link[k]), 1, TOL);
    }
    ck_assert(weft_lmm_check(lmm, NULL));
}
END_TEST

START_TEST(parking_lot_with_a_wide_middle_link_gives_the_middle_short_the_rest)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint link[3], lng, s[3];
    parking_lot(lmm, 2, link, &lng, s);
    weft_lmm_solve(lmm);
    /* Links 0 and 2 saturate at L = 1/2 (2 variables, capacity 1): lng, s0, s2 get 1/2.
     * Link 1 then has 2 - 1/2 = 3/2 left for s1 alone: 3/2. */
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, lng), 0.5, TOL);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, s[0]), 0.5, TOL);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, s[1]), 1.5, TOL);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, s[2]), 0.5, TOL);
    ck_assert_double_eq_tol(weft_lmm_constraint_usage(lmm, link[1]), 2, TOL);
    ck_assert(weft_lmm_check(lmm, NULL));
}
END_TEST

START_TEST(a_capped_variable_leaves_the_rest_to_the_other)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint c = weft_lmm_constraint_new(lmm, 1);
    guint capped = var1(lmm, 1, 0.2, c);
    guint free_ = var1(lmm, 1, INFINITY, c); /* INFINITY: no bound */
    weft_lmm_solve(lmm);
    /* The cap 0.2 is reached at L = 0.2 < 1/2; the other then takes 1 - 0.2 = 0.8. */
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, capped), 0.2, TOL);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, free_), 0.8, TOL);
    ck_assert(weft_lmm_variable_bound(lmm, free_) == INFINITY);
    ck_assert(weft_lmm_check(lmm, NULL));
}
END_TEST

START_TEST(a_cap_above_the_fair_share_changes_nothing)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint c = weft_lmm_constraint_new(lmm, 1);
    guint a = var1(lmm, 1, 0.7, c);
    guint b = var1(lmm, 1, -1, c); /* <= 0: no bound */
    weft_lmm_solve(lmm);
    /* Fair share 1/2 < 0.7: both 1/2. */
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, a), 0.5, TOL);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, b), 0.5, TOL);
    ck_assert(weft_lmm_variable_bound(lmm, b) == INFINITY);
}
END_TEST

START_TEST(a_sprayed_variable_with_coefficient_half_on_two_links_gets_both)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint c[2] = {weft_lmm_constraint_new(lmm, 1), weft_lmm_constraint_new(lmm, 1)};
    double half[2] = {0.5, 0.5};
    guint v = weft_lmm_variable_new(lmm, 1, 0, c, half, 2);
    weft_lmm_solve(lmm);
    /* Each link: 0.5 x <= 1, so x = 2; each link carries 0.5 x 2 = 1. */
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, v), 2, TOL);
    ck_assert_double_eq_tol(weft_lmm_constraint_usage(lmm, c[0]), 1, TOL);
    ck_assert_double_eq_tol(weft_lmm_constraint_usage(lmm, c[1]), 1, TOL);
    ck_assert(weft_lmm_check(lmm, NULL));
}
END_TEST

START_TEST(a_constraint_listed_twice_gets_the_sum_of_coefficients)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint c = weft_lmm_constraint_new(lmm, 1);
    guint cc[2] = {c, c};
    double half[2] = {0.5, 0.5};
    guint v = weft_lmm_variable_new(lmm, 1, 0, cc, half, 2);
    weft_lmm_solve(lmm);
    /* Coefficient 0.5 + 0.5 = 1: x <= 1, x = 1 (not 2). */
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, v), 1, TOL);
    ck_assert_double_eq_tol(weft_lmm_constraint_usage(lmm, c), 1, TOL);
    ck_assert_uint_eq(weft_lmm_constraint_n_variables(lmm, c), 1);
}
END_TEST

START_TEST(weights_and_coefficients_combine)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint c = weft_lmm_constraint_new(lmm, 6);
    double two = 2;
    guint a = var1(lmm, 2, 0, c);                            /* weight 2, coefficient 1 */
    guint b = weft_lmm_variable_new(lmm, 1, 0, &c, &two, 1); /* weight 1, coefficient 2 */
    weft_lmm_solve(lmm);
    /* Usage 1 x (2L) + 2 x (1L) = 4L = 6: L = 1.5; a = 3, b = 1.5. */
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, a), 3, TOL);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, b), 1.5, TOL);
    ck_assert_double_eq_tol(weft_lmm_constraint_usage(lmm, c), 6, TOL);
}
END_TEST

START_TEST(incast_of_n_senders_shares_the_receiver_link)
{
    enum { N = 8 };
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint shared = weft_lmm_constraint_new(lmm, 100);
    guint own[N], v[N];
    for (int k = 0; k < N; k++) {
        own[k] = weft_lmm_constraint_new(lmm, 1000);
        guint cc[2] = {own[k], shared};
        double ones[2] = {1, 1};
        v[k] = weft_lmm_variable_new(lmm, 1, 0, cc, ones, 2);
    }
    weft_lmm_solve(lmm);
    /* The shared link saturates at L = 100 / 8 = 12.5, far below each private 1000. */
    for (int k = 0; k < N; k++) {
        ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, v[k]), 12.5, TOL);
        ck_assert_double_eq_tol(weft_lmm_constraint_usage(lmm, own[k]), 12.5, TOL);
    }
    ck_assert_double_eq_tol(weft_lmm_constraint_usage(lmm, shared), 100, TOL);
    ck_assert(weft_lmm_check(lmm, NULL));
}
END_TEST

START_TEST(zero_capacity_stops_its_variables_only)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint dead = weft_lmm_constraint_new(lmm, 0);
    guint live = weft_lmm_constraint_new(lmm, 1);
    guint cc[2] = {dead, live};
    double ones[2] = {1, 1};
    guint stuck = weft_lmm_variable_new(lmm, 1, 0, cc, ones, 2);
    guint other = var1(lmm, 1, 0, live);
    weft_lmm_solve(lmm);
    /* dead saturates at L = 0: stuck gets 0; other then has all of live: 1. */
    ck_assert(weft_lmm_variable_rate(lmm, stuck) == 0);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, other), 1, TOL);
    ck_assert(weft_lmm_check(lmm, NULL));
}
END_TEST

START_TEST(a_variable_without_constraints_gets_its_bound_or_infinity)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint capped = weft_lmm_variable_new(lmm, 1, 3, NULL, NULL, 0);
    guint open = weft_lmm_variable_new(lmm, 1, 0, NULL, NULL, 0);
    weft_lmm_solve(lmm);
    ck_assert_double_eq(weft_lmm_variable_rate(lmm, capped), 3);
    ck_assert(weft_lmm_variable_rate(lmm, open) == INFINITY);
    guint n;
    weft_lmm_changed(lmm, &n);
    ck_assert_uint_eq(n, 2); /* both are new */
    weft_lmm_solve(lmm);
    weft_lmm_changed(lmm, &n);
    ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(changed_lists_only_variables_whose_rate_moved)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint a = weft_lmm_constraint_new(lmm, 10);
    guint b = weft_lmm_constraint_new(lmm, 10);
    guint n;
    const guint *ch;

    guint v0 = var1(lmm, 1, 0, a);
    weft_lmm_solve(lmm);
    ch = weft_lmm_changed(lmm, &n);
    ck_assert_uint_eq(n, 1); /* the new v0: 0 -> 10 */
    ck_assert_uint_eq(ch[0], v0);

    guint v1 = var1(lmm, 1, 0, b);
    weft_lmm_solve(lmm);
    ch = weft_lmm_changed(lmm, &n);
    ck_assert_uint_eq(n, 1); /* only the new v1; v0 on the other link stays at 10 */
    ck_assert_uint_eq(ch[0], v1);
    /* Incremental: only b's component (v1) was solved; full: both variables. */
    ck_assert_uint_eq(weft_lmm_stats(lmm).last_variables, _i == 0 ? 1 : 2);

    guint v2 = var1(lmm, 1, 0, a);
    weft_lmm_solve(lmm);
    ch = weft_lmm_changed(lmm, &n);
    ck_assert_uint_eq(n, 2); /* v0: 10 -> 5, and the new v2; in ascending id order */
    ck_assert_uint_eq(ch[0], v0);
    ck_assert_uint_eq(ch[1], v2);
    guint it = 0, got, count = 0;
    while (weft_lmm_next_changed(lmm, &it, &got)) {
        ck_assert_uint_eq(got, ch[count]);
        count++;
    }
    ck_assert_uint_eq(count, 2);

    weft_lmm_constraint_set_capacity(lmm, b, 10); /* the same value: not a change */
    weft_lmm_solve(lmm);
    weft_lmm_changed(lmm, &n);
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(weft_lmm_stats(lmm).last_variables, _i == 0 ? 0 : 3);

    weft_lmm_constraint_set_capacity(lmm, b, 20);
    weft_lmm_solve(lmm);
    ch = weft_lmm_changed(lmm, &n);
    ck_assert_uint_eq(n, 1); /* v1: 10 -> 20 */
    ck_assert_uint_eq(ch[0], v1);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, v1), 20, TOL);

    weft_lmm_variable_free(lmm, v0);
    weft_lmm_solve(lmm);
    ch = weft_lmm_changed(lmm, &n);
    ck_assert_uint_eq(n, 1); /* v2: 5 -> 10; the removed v0 is not listed */
    ck_assert_uint_eq(ch[0], v2);
    ck_assert_uint_eq(weft_lmm_stats(lmm).solves, 6);
}
END_TEST

START_TEST(changes_between_solves_are_batched)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint c = weft_lmm_constraint_new(lmm, 12);
    guint v[3];
    for (int k = 0; k < 3; k++) {
        v[k] = var1(lmm, 1, 0, c);
    }
    weft_lmm_constraint_set_capacity(lmm, c, 6);
    weft_lmm_variable_free(lmm, v[2]);
    weft_lmm_solve(lmm);
    /* One solve sees the final state: 2 variables on capacity 6 -> 3 each. */
    ck_assert_uint_eq(weft_lmm_stats(lmm).solves, 1);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, v[0]), 3, TOL);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, v[1]), 3, TOL);
    guint n;
    weft_lmm_changed(lmm, &n);
    ck_assert_uint_eq(n, 2);
}
END_TEST

START_TEST(removing_every_variable_leaves_no_usage_and_recycles_ids)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint link[3], lng, s[3];
    parking_lot(lmm, 1, link, &lng, s);
    weft_lmm_solve(lmm);
    weft_lmm_variable_free(lmm, s[1]);
    weft_lmm_variable_free(lmm, lng);
    weft_lmm_variable_free(lmm, s[0]);
    weft_lmm_variable_free(lmm, s[2]);
    weft_lmm_solve(lmm);
    guint n;
    weft_lmm_changed(lmm, &n);
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(weft_lmm_n_variables(lmm), 0);
    for (int k = 0; k < 3; k++) {
        ck_assert(weft_lmm_constraint_usage(lmm, link[k]) == 0);
        ck_assert_uint_eq(weft_lmm_constraint_n_variables(lmm, link[k]), 0);
    }
    /* The last id freed is the first reused. */
    guint again = var1(lmm, 1, 0, link[1]);
    ck_assert_uint_eq(again, s[2]);
    weft_lmm_solve(lmm);
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, again), 1, TOL);
    ck_assert_double_eq_tol(weft_lmm_constraint_usage(lmm, link[1]), 1, TOL);
    ck_assert(weft_lmm_constraint_usage(lmm, link[0]) == 0);
}
END_TEST

START_TEST(check_catches_stale_rates)
{
    g_autoptr(weft_lmm_t) lmm = new_solver(_i);
    guint link[3], lng, s[3];
    GError *error = NULL;
    parking_lot(lmm, 1, link, &lng, s);
    weft_lmm_solve(lmm);
    ck_assert(weft_lmm_check(lmm, &error));

    /* Link 0 shrinks to 0.5 but rates stay 1/2 + 1/2 = 1 until solved: over capacity. */
    weft_lmm_constraint_set_capacity(lmm, link[0], 0.5);
    ck_assert(!weft_lmm_check(lmm, &error));
    ck_assert(g_error_matches(error, WEFT_LMM_ERROR, WEFT_LMM_ERROR_OVER_CAPACITY));
    g_clear_error(&error);
    weft_lmm_solve(lmm);
    ck_assert(weft_lmm_check(lmm, &error));

    /* Solved with link 0 at 0.5: lng and s0 get 0.25, s1 and s2 get 1 - 0.25 = 0.75.
     * Link 1 grows to 4 unsolved: s1 (0.75) now sits only on an unsaturated link (usage 1 < 4)
     * with no bound: not max-min. */
    weft_lmm_constraint_set_capacity(lmm, link[1], 4);
    ck_assert(!weft_lmm_check(lmm, &error));
    ck_assert(g_error_matches(error, WEFT_LMM_ERROR, WEFT_LMM_ERROR_NOT_MAX_MIN));
    g_clear_error(&error);
    weft_lmm_solve(lmm);
    ck_assert(weft_lmm_check(lmm, &error));
    /* Link 0 at 0.5 shared by lng and s0: 0.25 each; s1 takes 4 - 0.25 = 3.75. */
    ck_assert_double_eq_tol(weft_lmm_variable_rate(lmm, s[1]), 3.75, TOL);
}
END_TEST

START_TEST(rates_do_not_depend_on_the_order_variables_were_added)
{
    /* Same final instance: variables 0, 1, 2 of weights 0.1, 0.2, 0.3 on one link of
     * capacity 1. `a` adds them in id order; `b` makes id 0 last (a freed dummy's id), so its
     * list is stored as 1, 2, 0. Summed in that order W = (0.2 + 0.3) + 0.1 = 0.6 exactly,
     * while id order gives (0.1 + 0.2) + 0.3 = 0.6000000000000001: the rates would differ in
     * the last bit unless the solver works in id order, as it must. */
    g_autoptr(weft_lmm_t) a = new_solver(_i);
    g_autoptr(weft_lmm_t) b = new_solver(_i);
    guint ca = weft_lmm_constraint_new(a, 1);
    guint cb = weft_lmm_constraint_new(b, 1);
    guint other = weft_lmm_constraint_new(b, 1);
    const double w[3] = {0.1, 0.2, 0.3};
    for (int k = 0; k < 3; k++) {
        ck_assert_uint_eq(var1(a, w[k], 0, ca), (guint)k);
    }
    guint dummy = var1(b, 1, 0, other);
    ck_assert_uint_eq(var1(b, w[1], 0, cb), 1);
    ck_assert_uint_eq(var1(b, w[2], 0, cb), 2);
    weft_lmm_solve(b);
    weft_lmm_variable_free(b, dummy);
    ck_assert_uint_eq(var1(b, w[0], 0, cb), 0);
    weft_lmm_solve(a);
    weft_lmm_solve(b);
    for (guint k = 0; k < 3; k++) {
        double x = weft_lmm_variable_rate(a, k), y = weft_lmm_variable_rate(b, k);
        ck_assert(memcmp(&x, &y, sizeof x) == 0);
        ck_assert_double_eq_tol(x, w[k] / 0.6, 1e-12); /* L = 1 / 0.6 */
    }
}
END_TEST

/* ---- property tests on seeded random instances ------------------------------------------ */

enum { MAX_C = 50, MAX_V = 200, MAX_K = 6 };

/* The test's own record of an instance, to check the solver without trusting it. */
typedef struct {
    guint nc;
    guint cid[MAX_C];
    double cap[MAX_C];
    gboolean live[4 * MAX_V]; /* by variable id */
    double weight[4 * MAX_V], bound[4 * MAX_V];
    guint k[4 * MAX_V];
    guint c[4 * MAX_V][MAX_K]; /* indices into cid; may repeat */
    double coef[4 * MAX_V][MAX_K];
} model_t;

static double
pick(GRand *r, const double *choices, int n)
{
    return choices[g_rand_int_range(r, 0, n)];
}

static double
rand_capacity(GRand *r)
{
    /* Round values make ties (several constraints saturating at one level) common. */
    static const double caps[] = {0, 1, 1, 2, 3, 10};
    return g_rand_boolean(r) ? pick(r, caps, 6) : g_rand_double_range(r, 0.5, 10);
}

static guint
add_random_var(GRand *r, model_t *m, weft_lmm_t *a, weft_lmm_t *b)
{
    static const double weights[] = {1, 1, 2, 3};
    static const double coefs[] = {0.25, 0.5, 1, 1, 2};
    guint k = (guint)g_rand_int_range(r, 1, MIN(MAX_K, (int)m->nc) + 1);
    guint cc[MAX_K];
    double co[MAX_K];
    for (guint j = 0; j < k; j++) {
        guint idx = (guint)g_rand_int_range(r, 0, (gint)m->nc);
        cc[j] = m->cid[idx];
        co[j] = g_rand_boolean(r) ? pick(r, coefs, 5) : g_rand_double_range(r, 0.1, 2);
    }
    double w = g_rand_boolean(r) ? pick(r, weights, 4) : g_rand_double_range(r, 0.5, 4);
    double bound = g_rand_int_range(r, 0, 10) < 3 ? g_rand_double_range(r, 0.05, 3) : 0;
    guint id = weft_lmm_variable_new(a, w, bound, cc, co, k);
    if (b != NULL) {
        ck_assert_uint_eq(weft_lmm_variable_new(b, w, bound, cc, co, k), id);
    }
    ck_assert_uint_lt(id, 4 * MAX_V);
    m->live[id] = TRUE;
    m->weight[id] = w;
    m->bound[id] = bound > 0 ? bound : INFINITY;
    m->k[id] = k;
    for (guint j = 0; j < k; j++) {
        m->c[id][j] = cc[j]; /* constraint ids equal their index: created first, never freed */
        m->coef[id][j] = co[j];
    }
    return id;
}

/* Feasibility and the max-min condition, computed from the model and the rates alone. */
static void
check_model(const model_t *m, weft_lmm_t *lmm)
{
    const double eps = 1e-9;
    double usage[MAX_C] = {0}, max_level[MAX_C] = {0};
    for (guint v = 0; v < 4 * MAX_V; v++) {
        if (!m->live[v]) {
            continue;
        }
        double x = weft_lmm_variable_rate(lmm, v);
        ck_assert(x >= 0 && x <= m->bound[v] * (1 + eps));
        for (guint j = 0; j < m->k[v]; j++) {
            usage[m->c[v][j]] += m->coef[v][j] * x;
            max_level[m->c[v][j]] = MAX(max_level[m->c[v][j]], x / m->weight[v]);
        }
    }
    for (guint c = 0; c < m->nc; c++) {
        ck_assert_msg(usage[c] <= m->cap[c] * (1 + eps), "constraint %u: %.17g > %.17g", c,
                      usage[c], m->cap[c]);
        ck_assert(fabs(usage[c] - weft_lmm_constraint_usage(lmm, c)) <= 1e-9 * (1 + usage[c]));
    }
    for (guint v = 0; v < 4 * MAX_V; v++) {
        if (!m->live[v]) {
            continue;
        }
        double x = weft_lmm_variable_rate(lmm, v);
        gboolean ok = x >= m->bound[v] * (1 - eps);
        for (guint j = 0; !ok && j < m->k[v]; j++) {
            guint c = m->c[v][j];
            ok = usage[c] >= m->cap[c] * (1 - eps) && x / m->weight[v] >= max_level[c] * (1 - eps);
        }
        ck_assert_msg(ok, "variable %u (rate %.17g) breaks the max-min condition", v, x);
    }
}

START_TEST(random_instances_are_feasible_and_max_min_fair)
{
    g_autoptr(GRand) r = g_rand_new_with_seed(20240 + (guint32)_i);
    for (int inst = 0; inst < 200; inst++) {
        g_autoptr(weft_lmm_t) lmm = weft_lmm_new(TRUE);
        model_t *m = g_new0(model_t, 1);
        m->nc = (guint)g_rand_int_range(r, 1, MAX_C + 1);
        for (guint c = 0; c < m->nc; c++) {
            m->cap[c] = rand_capacity(r);
            m->cid[c] = weft_lmm_constraint_new(lmm, m->cap[c]);
        }
        guint nv = (guint)g_rand_int_range(r, 0, MAX_V + 1);
        for (guint v = 0; v < nv; v++) {
            add_random_var(r, m, lmm, NULL);
        }
        weft_lmm_solve(lmm);
        check_model(m, lmm);
        GError *error = NULL;
        ck_assert_msg(weft_lmm_check(lmm, &error), "%s", error ? error->message : "");
        g_free(m);
    }
}
END_TEST

static gboolean
same_bits(double x, double y)
{
    return memcmp(&x, &y, sizeof x) == 0;
}

START_TEST(incremental_equals_full_bit_for_bit_and_changed_is_exact)
{
    g_autoptr(GRand) r = g_rand_new_with_seed(777 + (guint32)_i);
    for (int inst = 0; inst < 40; inst++) {
        g_autoptr(weft_lmm_t) inc = weft_lmm_new(TRUE);
        g_autoptr(weft_lmm_t) full = weft_lmm_new(FALSE);
        model_t *m = g_new0(model_t, 1);
        double *prev = g_new0(double, 4 * MAX_V);
        gboolean *had = g_new0(gboolean, 4 * MAX_V);
        m->nc = (guint)g_rand_int_range(r, 1, MAX_C + 1);
        for (guint c = 0; c < m->nc; c++) {
            m->cap[c] = rand_capacity(r);
            m->cid[c] = weft_lmm_constraint_new(inc, m->cap[c]);
            ck_assert_uint_eq(weft_lmm_constraint_new(full, m->cap[c]), m->cid[c]);
        }
        guint live = 0;
        for (int step = 0; step < 60; step++) {
            /* A batch of 1..5 random operations, then one solve. */
            int ops = g_rand_int_range(r, 1, 6);
            for (int o = 0; o < ops; o++) {
                int what = g_rand_int_range(r, 0, 10);
                if (what < 5 && live < MAX_V) {
                    add_random_var(r, m, inc, full);
                    live++;
                } else if (what < 8 && live > 0) {
                    guint v;
                    do {
                        v = (guint)g_rand_int_range(r, 0, 4 * MAX_V);
                    } while (!m->live[v]);
                    weft_lmm_variable_free(inc, v);
                    weft_lmm_variable_free(full, v);
                    m->live[v] = FALSE;
                    had[v] = FALSE;
                    live--;
                } else {
                    guint c = (guint)g_rand_int_range(r, 0, (gint)m->nc);
                    m->cap[c] = rand_capacity(r);
                    weft_lmm_constraint_set_capacity(inc, c, m->cap[c]);
                    weft_lmm_constraint_set_capacity(full, c, m->cap[c]);
                }
            }
            weft_lmm_solve(inc);
            weft_lmm_solve(full);
            check_model(m, inc);

            guint ni, nf;
            const guint *ci = weft_lmm_changed(inc, &ni);
            const guint *cf = weft_lmm_changed(full, &nf);
            ck_assert_uint_eq(ni, nf);
            ck_assert(ni == 0 || memcmp(ci, cf, ni * sizeof(guint)) == 0);
            /* Expected changed set: every live variable that is new or whose bits moved. */
            guint at = 0;
            for (guint v = 0; v < 4 * MAX_V; v++) {
                if (!m->live[v]) {
                    continue;
                }
                double x = weft_lmm_variable_rate(inc, v);
                ck_assert_msg(same_bits(x, weft_lmm_variable_rate(full, v)),
                              "instance %d step %d variable %u: %.17g vs %.17g", inst, step, v, x,
                              weft_lmm_variable_rate(full, v));
                if (!had[v] || !same_bits(prev[v], x)) {
                    ck_assert_uint_lt(at, ni);
                    ck_assert_uint_eq(ci[at], v);
                    at++;
                }
                had[v] = TRUE;
                prev[v] = x;
            }
            ck_assert_uint_eq(at, ni);
            for (guint c = 0; c < m->nc; c++) {
                ck_assert(same_bits(weft_lmm_constraint_usage(inc, c),
                                    weft_lmm_constraint_usage(full, c)));
            }
        }
        /* Incremental mode re-solved no more than full mode did. */
        ck_assert_uint_le(weft_lmm_stats(inc).variables_solved,
                          weft_lmm_stats(full).variables_solved);
        g_free(m);
        g_free(prev);
        g_free(had);
    }
}
END_TEST

/* ---- the documented arithmetic, computed afresh --------------------------------------------
 *
 * lmm.c lists the floating-point operations that determine every rate and usage (steps 1-6
 * atop the file) and must follow them exactly, whatever its data structures: that is what
 * keeps results bit for bit the same across versions and modes. This reference follows the
 * steps literally and slowly (a linear scan for the smallest key instead of a heap, nothing
 * cached, the whole instance solved at once rather than component by component), and the
 * solver must agree with it bit for bit after every solve of random sequences of additions,
 * removals and capacity changes. Instances are made to be hard on exactness: capacities a
 * few ulps apart (near-ties between constraints, where rounding makes keys go down), weights
 * over ten decades (W_c loses digits and is recomputed), coefficients like 1/3, rate caps.
 * Each variable lists a constraint at most twice: two coefficients sum the same in either
 * order, so the reference need not know the order lmm.c merges them in.
 */

enum { REF_C = 24, REF_V = 160, REF_K = 5 };

typedef struct {
    guint nc;
    double cap[REF_C];
    gboolean live[REF_V];
    double weight[REF_V], bound[REF_V];
    guint k[REF_V]; /* distinct constraints of the variable, ascending */
    guint c[REF_V][REF_K];
    double coef[REF_V][REF_K]; /* merged coefficients */
    double rate[REF_V];        /* the reference's results */
    double usage[REF_C];
} ref_t;

/* Step 2's W_c, or step 5's recomputation, over the unfrozen variables of c in id order. */
static double
ref_wsum(const ref_t *m, guint c, const gboolean *frozen)
{
    double w = 0;
    for (guint v = 0; v < REF_V; v++) {
        for (guint j = 0; m->live[v] && j < m->k[v]; j++) {
            if (m->c[v][j] == c && !frozen[v]) {
                w += m->coef[v][j] * m->weight[v];
            }
        }
    }
    return w;
}

typedef struct {
    double r, w, wref, key;
    guint nfree;
    gboolean live, touched;
} ref_cnst_t;

/* Step 5: freeze(v, x). */
static void
ref_freeze(ref_t *m, ref_cnst_t *rc, gboolean *frozen, guint v, double x)
{
    frozen[v] = TRUE;
    m->rate[v] = x;
    for (guint j = 0; j < m->k[v]; j++) {
        ref_cnst_t *q = &rc[m->c[v][j]];
        q->nfree--;
        if (!q->live) {
            continue;
        }
        if (q->nfree == 0) {
            q->live = FALSE;
            continue;
        }
        q->r -= m->coef[v][j] * x;
        q->w -= m->coef[v][j] * m->weight[v];
        if (q->w <= q->wref * 1e-3) {
            q->w = q->wref = ref_wsum(m, m->c[v][j], frozen);
        }
        q->touched = TRUE;
    }
}

static void
ref_solve(ref_t *m)
{
    ref_cnst_t rc[REF_C] = {{0}};
    gboolean frozen[REF_V] = {0};
    for (guint c = 0; c < m->nc; c++) {
        rc[c].r = m->cap[c];
        for (guint v = 0; v < REF_V; v++) {
            for (guint j = 0; m->live[v] && j < m->k[v]; j++) {
                rc[c].nfree += m->c[v][j] == c;
            }
        }
        if (rc[c].nfree > 0) { /* step 2 */
            rc[c].w = rc[c].wref = ref_wsum(m, c, frozen);
            rc[c].key = rc[c].r / rc[c].w;
            rc[c].live = TRUE;
        }
    }
    for (guint v = 0; v < REF_V; v++) {
        if (m->live[v] && m->k[v] == 0) {
            frozen[v] = TRUE;
            m->rate[v] = m->bound[v];
        }
    }
    double level = 0;
    for (;;) {
        /* Step 3 and 4: the unfrozen bounded variable of smallest (b / w, id)... */
        gint b = -1;
        for (guint v = 0; v < REF_V; v++) {
            if (m->live[v] && !frozen[v] && isfinite(m->bound[v]) &&
                (b < 0 || m->bound[v] / m->weight[v] < m->bound[b] / m->weight[b])) {
                b = (gint)v;
            }
        }
        /* ... and the live constraint of smallest (key, id). */
        gint c = -1;
        for (guint q = 0; q < m->nc; q++) {
            if (rc[q].live && (c < 0 || rc[q].key < rc[c].key)) {
                c = (gint)q;
            }
        }
        if (b < 0 && c < 0) {
            break;
        }
        if (b >= 0 && (c < 0 || m->bound[b] / m->weight[b] <= rc[c].key)) {
            level = MAX(level, m->bound[b] / m->weight[b]);
            ref_freeze(m, rc, frozen, (guint)b, m->bound[b]);
        } else {
            rc[c].live = FALSE;
            level = MAX(level, rc[c].key);
            for (guint v = 0; v < REF_V; v++) {
                for (guint j = 0; m->live[v] && !frozen[v] && j < m->k[v]; j++) {
                    if (m->c[v][j] == (guint)c) {
                        ref_freeze(m, rc, frozen, v, MIN(m->weight[v] * level, m->bound[v]));
                    }
                }
            }
        }
        for (guint q = 0; q < m->nc; q++) {
            if (rc[q].touched && rc[q].live) {
                double key = rc[q].r > 0 ? rc[q].r / rc[q].w : 0;
                rc[q].key = key > level ? key : level;
            }
            rc[q].touched = FALSE;
        }
    }
    for (guint c = 0; c < m->nc; c++) { /* step 6 */
        m->usage[c] = 0;
        for (guint v = 0; v < REF_V; v++) {
            for (guint j = 0; m->live[v] && j < m->k[v]; j++) {
                if (m->c[v][j] == c) {
                    m->usage[c] += m->coef[v][j] * m->rate[v];
                }
            }
        }
    }
}

static double
ref_capacity(GRand *r, gboolean ties)
{
    if (ties) {
        static const double base[] = {1, 0.3, 0.7, 1.1};
        return pick(r, base, 4) * (1 + g_rand_int_range(r, -3, 4) * DBL_EPSILON);
    }
    return g_rand_boolean(r) ? rand_capacity(r) : g_rand_double_range(r, 1e-3, 1e3);
}

static void
ref_add(GRand *r, ref_t *m, weft_lmm_t *lmm, gboolean ties)
{
    static const double coefs[] = {0.25, 0.5, 1, 1, 2, 0.1, 1.0 / 3};
    static const double weights[] = {1, 1, 2, 3, 0.1, 0.3};
    guint n = (guint)g_rand_int_range(r, 0, REF_K + 1), cc[2 * REF_K];
    double co[2 * REF_K], merged[REF_C] = {0};
    guint count[REF_C] = {0}, k = 0;
    for (guint j = 0; j < n; j++) {
        guint c = (guint)g_rand_int_range(r, 0, (gint)m->nc);
        if (count[c] == 2) {
            continue; /* at most twice, see above */
        }
        cc[k] = c;
        co[k] = ties || g_rand_boolean(r) ? pick(r, coefs, 7) : g_rand_double_range(r, 1e-3, 3);
        merged[c] += co[k];
        count[c]++;
        k++;
    }
    double w =
        ties || g_rand_boolean(r) ? pick(r, weights, 6) : exp(g_rand_double_range(r, -12, 12));
    int kind = g_rand_int_range(r, 0, 10);
    double bound = kind < 3 ? g_rand_double_range(r, 0.01, 5) : kind == 3 ? 1.0 / 3 : 0;
    guint v = weft_lmm_variable_new(lmm, w, bound, cc, co, k);
    ck_assert_uint_lt(v, REF_V);
    m->live[v] = TRUE;
    m->weight[v] = w;
    m->bound[v] = bound > 0 ? bound : INFINITY;
    m->k[v] = 0;
    for (guint c = 0; c < m->nc; c++) {
        if (count[c] > 0) {
            m->c[v][m->k[v]] = c;
            m->coef[v][m->k[v]++] = merged[c];
        }
    }
}

START_TEST(rates_follow_the_documented_arithmetic_bit_for_bit)
{
    g_autoptr(GRand) r = g_rand_new_with_seed(4242 + (guint32)_i);
    guint64 wsum_recomputed = 0;
    for (int inst = 0; inst < 60; inst++) {
        gboolean ties = inst % 2 == 1;
        g_autoptr(weft_lmm_t) lmm = weft_lmm_new(_i == 0);
        ref_t *m = g_new0(ref_t, 1);
        m->nc = (guint)g_rand_int_range(r, 1, REF_C + 1);
        for (guint c = 0; c < m->nc; c++) {
            m->cap[c] = ref_capacity(r, ties);
            ck_assert_uint_eq(weft_lmm_constraint_new(lmm, m->cap[c]), c);
        }
        guint live = 0;
        for (int step = 0; step < 40; step++) {
            int ops = g_rand_int_range(r, 1, g_rand_boolean(r) ? 4 : 40);
            for (int o = 0; o < ops; o++) {
                int what = g_rand_int_range(r, 0, 10);
                if (what < 5 && live < REF_V / 2) {
                    ref_add(r, m, lmm, ties);
                    live++;
                } else if (what < 8 && live > 0) {
                    guint v;
                    do {
                        v = (guint)g_rand_int_range(r, 0, REF_V);
                    } while (!m->live[v]);
                    weft_lmm_variable_free(lmm, v);
                    m->live[v] = FALSE;
                    live--;
                } else {
                    guint c = (guint)g_rand_int_range(r, 0, (gint)m->nc);
                    m->cap[c] = ref_capacity(r, ties);
                    weft_lmm_constraint_set_capacity(lmm, c, m->cap[c]);
                }
            }
            weft_lmm_solve(lmm);
            ref_solve(m);
            for (guint v = 0; v < REF_V; v++) {
                if (m->live[v]) {
                    double x = weft_lmm_variable_rate(lmm, v);
                    ck_assert_msg(same_bits(x, m->rate[v]),
                                  "instance %d step %d variable %u: %.17g, reference %.17g", inst,
                                  step, v, x, m->rate[v]);
                }
            }
            for (guint c = 0; c < m->nc; c++) {
                double u = weft_lmm_constraint_usage(lmm, c);
                ck_assert_msg(same_bits(u, m->usage[c]),
                              "instance %d step %d constraint %u: usage %.17g, reference %.17g",
                              inst, step, c, u, m->usage[c]);
            }
        }
        wsum_recomputed += weft_lmm_stats(lmm).wsum_recomputed;
        g_free(m);
    }
    /* The instances did reach the cancellation rule (weights over ten decades). */
    ck_assert_uint_gt(wsum_recomputed, 0);
}
END_TEST

static Suite *
lmm_suite(void)
{
    Suite *s = suite_create("lmm");
    TCase *tc = tcase_create("hand-derived");
    tcase_add_loop_test(tc, two_variables_on_one_constraint_get_half_each, 0, 2);
    tcase_add_loop_test(tc, weights_one_and_three_get_a_quarter_and_three_quarters, 0, 2);
    tcase_add_loop_test(tc, parking_lot_gives_every_variable_half, 0, 2);
    tcase_add_loop_test(tc, parking_lot_with_a_wide_middle_link_gives_the_middle_short_the_rest, 0,
                        2);
    tcase_add_loop_test(tc, a_capped_variable_leaves_the_rest_to_the_other, 0, 2);
    tcase_add_loop_test(tc, a_cap_above_the_fair_share_changes_nothing, 0, 2);
    tcase_add_loop_test(tc, a_sprayed_variable_with_coefficient_half_on_two_links_gets_both, 0, 2);
    tcase_add_loop_test(tc, a_constraint_listed_twice_gets_the_sum_of_coefficients, 0, 2);
    tcase_add_loop_test(tc, weights_and_coefficients_combine, 0, 2);
    tcase_add_loop_test(tc, incast_of_n_senders_shares_the_receiver_link, 0, 2);
    tcase_add_loop_test(tc, zero_capacity_stops_its_variables_only, 0, 2);
    tcase_add_loop_test(tc, a_variable_without_constraints_gets_its_bound_or_infinity, 0, 2);
    tcase_add_loop_test(tc, changed_lists_only_variables_whose_rate_moved, 0, 2);
    tcase_add_loop_test(tc, changes_between_solves_are_batched, 0, 2);
    tcase_add_loop_test(tc, removing_every_variable_leaves_no_usage_and_recycles_ids, 0, 2);
    tcase_add_loop_test(tc, check_catches_stale_rates, 0, 2);
    tcase_add_loop_test(tc, rates_do_not_depend_on_the_order_variables_were_added, 0, 2);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("properties");
    tcase_add_loop_test(tp, random_instances_are_feasible_and_max_min_fair, 0, 1);
    tcase_add_loop_test(tp, incremental_equals_full_bit_for_bit_and_changed_is_exact, 0, 2);
    tcase_add_loop_test(tp, rates_follow_the_documented_arithmetic_bit_for_bit, 0, 2);
    suite_add_tcase(s, tp);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(lmm_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
