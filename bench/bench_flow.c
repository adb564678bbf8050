/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test) of the flow network model (src/net/net.h) on a
 * 1,024-GPU k = 16 fat-tree (Al-Fares et al., SIGCOMM 2008: 16 pods, 320
 * switches, 3,072 links; 50 GB/s and 500 ns per link), the targets of issue 4:
 *  1. one solve with 100,000 concurrent transfers between random GPU pairs
 *     (starting them, then the one batched solve at time 0); then a tenth as
 *     many run to the last completion (random sizes: nearly every end is an
 *     instant of its own, and the transfers form one component, so each end
 *     re-solves them all: quadratic, see doc/network.md);
 *  2. a 1,024-rank ring all-reduce (one collective, ring plan, 1 GiB: 2,095,104
 *     transfers in 2,046 dependent steps);
 *  3. a 256-rank direct all-to-all (256 x 255 = 65,280 transfers, 64 MiB per
 *     rank) on the first 256 GPUs (4 pods).
 * For each: wall time, simulation events per second, solves, and the peak
 * memory of the process so far (getrusage: the high-water mark, so each figure
 * includes the cases before it). Cases 2 and 3 also run under the analytical
 * model for comparison.
 *
 *   bench_flow [TRANSFERS [SEED]]     defaults: 100000, 1
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "coll/coll.h"
#include "net/net.h"

static double
now_s(void)
{
    return (double)g_get_monotonic_time() / 1e6;
}

static long
peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

static weft_topo_t *
fat_tree(void)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_key_file_set_string(kf, "cluster", "kind", "fat-tree");
    g_key_file_set_string(kf, "cluster", "name", "fat-tree-k16");
    g_key_file_set_string(kf, "cluster", "k", "16");
    g_key_file_set_string(kf, "cluster", "link_bandwidth", "50GB/s");
    g_key_file_set_string(kf, "cluster", "link_latency", "500ns");
    g_autoptr(GError) error = NULL;
    weft_topo_t *t = weft_topo_load_keyfile(kf, "cluster", "bench", &error);
    if (t == NULL) {
        g_error("fat-tree: %s", error->message);
    }
    return t;
}

static void
on_done(void *ctx, guint64 tag)
{
    (void)tag;
    (*(guint64 *)ctx)++;
}

static void
stop_event(void *ctx, void *data)
{
    (void)data;
    weft_sim_stop(ctx);
}

static void
one_solve(weft_fabric_t *fabric, guint n, guint64 seed, gboolean to_the_end)
{
    const weft_topo_t *topo = weft_fabric_topo(fabric);
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_FLOW);
    GRand *r = g_rand_new_with_seed((guint32)seed);
    guint n_gpus = weft_topo_n_gpus(topo);
    guint64 done = 0;
    double t0 = now_s();
    for (guint i = 0; i < n; i++) {
        guint a = (guint)g_rand_int_range(r, 0, (gint32)n_gpus), b;
        do {
            b = (guint)g_rand_int_range(r, 0, (gint32)n_gpus);
        } while (b == a);
        guint64 bytes = (guint64)g_rand_int_range(r, 1, 1 << 24); /* up to 16 MiB */
        if (!weft_net_transfer_start(net, weft_topo_gpu_vertex(topo, a),
                                     weft_topo_gpu_vertex(topo, b), bytes, on_done, &done, i,
                                     NULL)) {
            g_error("no route");
        }
    }
    g_rand_free(r);
    double t1 = now_s();
    /* The solve event was queued by the first start; this stop runs right after it. */
    weft_sim_at(sim, 0, stop_event, sim, NULL);
    weft_sim_run(sim);
    double t2 = now_s();
    printf("1. %u concurrent transfers on %u GPUs: start (routes, variables) %.3f s, "
           "the solve at time 0 %.3f s; peak %ld MiB\n",
           n, n_gpus, t1 - t0, t2 - t1, peak_rss_mib());
    fflush(stdout);
    if (!to_the_end) {
        return;
    }
    guint64 ev0 = weft_sim_events(sim);
    guint64 solves0 = weft_net_stats(net)->solves;
    weft_sim_run(sim);
    double t3 = now_s();
    guint64 ev = weft_sim_events(sim) - ev0;
    printf("   the rest of the run to the last completion: %.3f s, %" G_GUINT64_FORMAT
           " events (%.0f/s), %" G_GUINT64_FORMAT " solves, %" G_GUINT64_FORMAT
           " rate changes, simulated %.3f ms; %" G_GUINT64_FORMAT " done; peak %ld MiB\n",
           t3 - t2, ev, (double)ev / (t3 - t2), weft_net_stats(net)->solves - solves0,
           weft_net_stats(net)->rate_changes, weft_time_to_s(weft_sim_now(sim)) * 1e3, done,
           peak_rss_mib());
    fflush(stdout);
}

static void
collective(weft_fabric_t *fabric, const char *label, weft_coll_op_t op, guint n, guint64 bytes)
{
    const weft_topo_t *topo = weft_fabric_topo(fabric);
    g_autoptr(GError) error = NULL;
    double t0 = now_s();
    /* every transfer stored and run (never an implicit plan): this measures the engine */
    g_autoptr(weft_coll_layout_t) flat = weft_coll_layout_new_flat(n);
    weft_coll_config_t cfg = {.algo = WEFT_COLL_ALGO_AUTO,
                              .proto = WEFT_COLL_PROTO_SIMPLE,
                              .channels = 1,
                              .chunks = 1,
                              .implicit_xfers = G_MAXUINT64};
    g_autoptr(weft_coll_plan_t) plan = weft_coll_plan_build(op, &cfg, flat, bytes, &error);
    if (plan == NULL) {
        g_error("%s", error->message);
    }
    g_autofree gint *mv = g_new(gint, n);
    for (guint i = 0; i < n; i++) {
        mv[i] = weft_topo_gpu_vertex(topo, i);
    }
    double t_plan = now_s() - t0;
    for (guint m = 0; m < 2; m++) {
        weft_net_model_t model = m == 0 ? WEFT_NET_FLOW : WEFT_NET_ANALYTICAL;
        g_autoptr(weft_sim_t) sim = weft_sim_new(1);
        g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, model);
        double t1 = now_s();
        weft_time_t d = weft_coll_time(sim, net, plan, mv, &error);
        double t2 = now_s();
        if (d < 0) {
            g_error("%s", error->message);
        }
        guint64 ev = weft_sim_events(sim);
        printf("%s, %s: %" G_GUINT64_FORMAT " transfers, simulated %.3f us; wall %.3f s (plan %.3f s), "
               "%" G_GUINT64_FORMAT " events (%.0f/s), %" G_GUINT64_FORMAT
               " solves; peak %ld MiB\n",
               label, weft_net_model_name(model), weft_coll_plan_n_transfers(plan),
               weft_time_to_us(d), t2 - t1,
               t_plan, ev, (double)ev / (t2 - t1), weft_net_stats(net)->solves, peak_rss_mib());
        fflush(stdout);
    }
}

int
main(int argc, char **argv)
{
    guint n = argc > 1 ? (guint)g_ascii_strtoull(argv[1], NULL, 10) : 100000;
    guint64 seed = argc > 2 ? g_ascii_strtoull(argv[2], NULL, 10) : 1;
    double t0 = now_s();
    g_autoptr(weft_topo_t) topo = fat_tree();
    printf("fat-tree k = 16: %u GPUs, %u vertices, %u directed edges, built in %.3f s\n",
           weft_topo_n_gpus(topo), weft_topo_n_vertices(topo), weft_topo_n_edges(topo),
           now_s() - t0);
    /* one fabric state for every case: routes computed once, as when they lived in the cluster */
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    one_solve(fabric, n, seed, FALSE);
    one_solve(fabric, n / 10, seed, TRUE);
    collective(fabric, "2. ring all-reduce, 1024 ranks, 1 GiB", WEFT_COLL_ALL_REDUCE, 1024,
               (guint64)1 << 30);
    collective(fabric, "3. all-to-all, 256 ranks, 64 MiB per rank", WEFT_COLL_ALL_TO_ALL, 256,
               (guint64)64 << 20);
    return 0;
}
