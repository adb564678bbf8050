/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test): one max-min solve with 100,000 variables on ~3,000
 * constraints, the size of the issue-4 target (100,000 concurrent transfers on
 * a 1,024-GPU fat-tree), and the cost of re-solving after one transfer ends and
 * another starts.
 *
 * Two instances, each variable on 6 constraints:
 *  - leaf-spine: 1,024 GPUs, 32 leaves of 32 GPUs, 16 spines; 3,072 constraints
 *    (GPU up/down at 50 GB/s, leaf-spine up/down at 400 GB/s); a transfer
 *    between random GPUs on different leaves is sprayed over 2 hashed spines
 *    with coefficient 1/2 each: GPU up, 2 leaf->spine, 2 spine->leaf, GPU down;
 *  - random: 3,000 constraints of 10..100 GB/s, each variable on 6 distinct
 *    random ones.
 * Weights are 1 or 2 and 10% of the variables carry a rate cap.
 *
 *   bench_lmm [VARIABLES [SEED]]     defaults: 100000, 1
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "net/lmm.h"

static double
now_s(void)
{
    return (double)g_get_monotonic_time() / 1e6;
}

static long
peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

typedef void (*make_fn)(GRand *r, guint *cnst, double *coef);

enum { K = 6, GPUS = 1024, LEAVES = 32, SPINES = 16, RANDOM_C = 3000 };

/* Constraint ids of the leaf-spine instance: GPU up [0, 1024), GPU down [1024, 2048),
 * leaf->spine [2048, 2560), spine->leaf [2560, 3072). */
static void
make_leaf_spine(GRand *r, guint *cnst, double *coef)
{
    guint src = (guint)g_rand_int_range(r, 0, GPUS), dst;
    do {
        dst = (guint)g_rand_int_range(r, 0, GPUS);
    } while (dst / (GPUS / LEAVES) == src / (GPUS / LEAVES));
    guint ls = src / (GPUS / LEAVES), ld = dst / (GPUS / LEAVES);
    guint s0 = (guint)g_rand_int_range(r, 0, SPINES);
    guint s1 = (s0 + 1 + (guint)g_rand_int_range(r, 0, SPINES - 1)) % SPINES;
    guint ids[K] = {src,
                    2048 + ls * SPINES + s0,
                    2048 + ls * SPINES + s1,
                    2560 + ld * SPINES + s0,
                    2560 + ld * SPINES + s1,
                    GPUS + dst};
    double co[K] = {1, 0.5, 0.5, 0.5, 0.5, 1};
    for (int k = 0; k < K; k++) {
        cnst[k] = ids[k];
        coef[k] = co[k];
    }
}

static void
make_random(GRand *r, guint *cnst, double *coef)
{
    for (int k = 0; k < K; k++) {
        gboolean dup;
        do {
            cnst[k] = (guint)g_rand_int_range(r, 0, RANDOM_C);
            dup = FALSE;
            for (int j = 0; j < k; j++) {
                dup = dup || cnst[j] == cnst[k];
            }
        } while (dup);
        coef[k] = 1;
    }
}

static void
run(const char *name, guint nvars, guint32 seed, gboolean leaf_spine)
{
    g_autoptr(GRand) r = g_rand_new_with_seed(seed);
    g_autoptr(weft_lmm_t) inc = weft_lmm_new(TRUE);
    g_autoptr(weft_lmm_t) full = weft_lmm_new(FALSE);
    weft_lmm_t *both[2] = {inc, full};
    make_fn make = leaf_spine ? make_leaf_spine : make_random;
    guint nc = leaf_spine ? 3072 : RANDOM_C;
    for (guint c = 0; c < nc; c++) {
        double cap = leaf_spine ? (c < 2048 ? 50e9 : 400e9) : g_rand_double_range(r, 10e9, 100e9);
        for (int m = 0; m < 2; m++) {
            weft_lmm_constraint_new(both[m], cap);
        }
    }
    double t0 = now_s();
    guint cnst[K];
    double coef[K];
    for (guint v = 0; v < nvars; v++) {
        make(r, cnst, coef);
        double w = g_rand_int_range(r, 0, 4) == 0 ? 2 : 1;
        double bound = g_rand_int_range(r, 0, 10) == 0 ? g_rand_double_range(r, 1e8, 5e9) : 0;
        for (int m = 0; m < 2; m++) {
            weft_lmm_variable_new(both[m], w, bound, cnst, coef, K);
        }
    }
    double t1 = now_s();
    weft_lmm_solve(inc);
    double t2 = now_s();
    weft_lmm_solve(full);
    double t3 = now_s();
    guint nch;
    weft_lmm_changed(inc, &nch);

    /* One transfer ends and another starts, then re-solve: the event-loop case. */
    const int rounds = 10;
    double t_inc = 0, t_full = 0;
    guint changed_sum = 0;
    for (int i = 0; i < rounds; i++) {
        guint victim = (guint)g_rand_int_range(r, 0, (gint)nvars);
        make(r, cnst, coef);
        for (int m = 0; m < 2; m++) {
            weft_lmm_variable_free(both[m], victim);
            weft_lmm_variable_new(both[m], 1, 0, cnst, coef, K);
            double a = now_s();
            weft_lmm_solve(both[m]);
            double b = now_s();
            if (m == 0) {
                t_inc += b - a;
                guint n;
                weft_lmm_changed(inc, &n);
                changed_sum += n;
            } else {
                t_full += b - a;
            }
        }
    }
    /* The two modes must agree bit for bit; check it here too, it costs nothing. */
    guint mismatches = 0;
    for (guint v = 0; v < nvars; v++) {
        mismatches += weft_lmm_variable_rate(inc, v) != weft_lmm_variable_rate(full, v);
    }
    GError *error = NULL;
    gboolean ok = weft_lmm_check(inc, &error);
    weft_lmm_stats_t st = weft_lmm_stats(inc);
    printf("%s: %u variables x %d pairs on %u constraints\n", name, nvars, K, nc);
    printf("  build %.3f s; first solve: incremental %.3f s, full %.3f s (%u changed)\n", t1 - t0,
           t2 - t1, t3 - t2, nch);
    printf("  after one end + one start: incremental %.3f s, full %.3f s per solve "
           "(%u variables re-solved, %u changed on average; components in last solve: "
           "%" G_GUINT64_FORMAT ")\n",
           t_inc / rounds, t_full / rounds, (guint)st.last_variables, changed_sum / rounds,
           st.last_components);
    printf("  modes differ on %u variables; max-min check: %s; W recomputations: %" G_GUINT64_FORMAT
           "\n",
           mismatches, ok ? "ok" : error->message, st.wsum_recomputed);
    g_clear_error(&error);
}

int
main(int argc, char **argv)
{
    guint nvars = argc > 1 ? (guint)atoi(argv[1]) : 100000;
    guint32 seed = argc > 2 ? (guint32)atoi(argv[2]) : 1;
    if (nvars < 1) {
        fprintf(stderr, "usage: bench_lmm [VARIABLES>=1 [SEED]]\n");
        return 2;
    }
    run("leaf-spine, 1,024 GPUs, sprayed over 2 spines", nvars, seed, TRUE);
    run("random, 6 of 3,000 constraints", nvars, seed, FALSE);
    printf("peak memory (both solvers of both instances): %ld MiB\n", peak_rss_kib() / 1024);
    return 0;
}
