/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test): the event queue alone (src/core/evq.h) under the
 * classic hold model (Jones, "An empirical comparison of priority-queue and
 * event-set implementations", CACM 29(4), 1986): fill the queue with N pending
 * events, then repeat { pop the earliest; push it again at its time plus a
 * random increment }, so the queue stays at N events. One hold = one event
 * popped and one pushed; the figure is millions of holds per second, the best
 * of 3 timed rounds of HOLDS holds each, after a warm-up of max(N, 1M) holds.
 *
 * Two increment distributions, drawn from a fixed-seed xorshift64* generator:
 *  - exp:  exponential with a mean of 1 us, from a 1,024-entry table of its
 *          quantiles (so a draw costs a few instructions, not a log());
 *  - ties: 0, 1, 2 or 3 ns with equal probability: many events at one instant,
 *          the pattern of a collective's steps, ordered only by sequence.
 * Each case runs on every kind of queue (weft_evq_kind_t) and prints a
 * checksum of the popped (time, data) stream: the same on every kind, or one
 * of them misorders.
 *
 *   bench_evq [HOLDS [N ...]]     defaults: 4194304 holds; N = 16 1024 65536 1048576
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/evq.h"

enum { EXP_TABLE = 1024, ROUNDS = 3 };

static weft_time_t exp_table[EXP_TABLE];

static double
now_s(void)
{
    return (double)g_get_monotonic_time() / 1e6;
}

static inline guint64
xorshift64s(guint64 *s)
{
    guint64 x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

typedef enum { DIST_EXP, DIST_TIES } dist_t;

static inline weft_time_t
increment(dist_t dist, guint64 *s)
{
    guint64 r = xorshift64s(s);
    if (dist == DIST_EXP) {
        return exp_table[r >> 54];
    }
    return (weft_time_t)(r >> 62) * WEFT_PS_PER_NS;
}

static void
noop(void *ctx, void *data)
{
}

/* Runs @holds holds; folds the popped stream into *@sum. */
static void
hold(weft_evq_t *q, dist_t dist, guint64 holds, guint64 *s, guint64 *sum)
{
    weft_event_t ev;
    guint64 acc = *sum;
    for (guint64 i = 0; i < holds; i++) {
        if (!weft_evq_pop(q, &ev)) {
            g_error("bench_evq: the queue ran empty");
        }
        acc = acc * 31 + (guint64)ev.time + GPOINTER_TO_SIZE(ev.data);
        weft_evq_push(q, ev.time + increment(dist, s), noop, NULL, ev.data);
    }
    *sum = acc;
}

static void
run_case(weft_evq_kind_t kind, dist_t dist, guint64 n, guint64 holds)
{
    weft_evq_t *q = weft_evq_new_kind(kind);
    guint64 s = 0x9E3779B97F4A7C15ULL ^ n, sum = 0;
    for (guint64 i = 0; i < n; i++) {
        weft_evq_push(q, increment(dist, &s), noop, NULL, GSIZE_TO_POINTER(i));
    }
    hold(q, dist, MAX(n, 1u << 20), &s, &sum);
    double best = 0.0;
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_s();
        hold(q, dist, holds, &s, &sum);
        double rate = (double)holds / (now_s() - t0) / 1e6;
        best = MAX(best, rate);
    }
    printf("%-8s %-5s %9" G_GUINT64_FORMAT " %12.2f   %016" G_GINT64_MODIFIER "x\n",
           weft_evq_kind_name(kind), dist == DIST_EXP ? "exp" : "ties", n, best, sum);
    fflush(stdout);
    weft_evq_free(q);
}

int
main(int argc, char **argv)
{
    guint64 holds = argc > 1 ? g_ascii_strtoull(argv[1], NULL, 10) : 1u << 22;
    guint64 sizes[16] = {16, 1024, 65536, 1048576};
    int n_sizes = 4;
    if (argc > 2) {
        n_sizes = 0;
        for (int i = 2; i < argc && n_sizes < 16; i++) {
            sizes[n_sizes++] = g_ascii_strtoull(argv[i], NULL, 10);
        }
    }
    if (holds == 0) {
        fprintf(stderr, "usage: bench_evq [HOLDS>0 [N ...]]\n");
        return 2;
    }
    for (int i = 0; i < EXP_TABLE; i++) {
        /* the quantile at the middle of the i-th of 1,024 equal-probability bins, mean 1 us */
        exp_table[i] = (weft_time_t)llround(-log(1.0 - (i + 0.5) / EXP_TABLE) * 1e6);
    }
    printf("hold model, %" G_GUINT64_FORMAT " holds per round, best of %d rounds\n", holds, ROUNDS);
    printf("%-8s %-5s %9s %12s   %s\n", "queue", "dist", "pending", "M events/s", "checksum");
    for (int d = 0; d < 2; d++) {
        for (int i = 0; i < n_sizes; i++) {
            for (guint k = 0; k < WEFT_EVQ_N_KINDS; k++) {
                run_case((weft_evq_kind_t)k, (dist_t)d, sizes[i], holds);
            }
        }
    }
    return 0;
}
