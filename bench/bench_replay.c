/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test): replays a synthetic workload of more than a million
 * events and prints events per second and peak memory.
 *
 * The workload: R ranks on a ring of R GPUs (50 GB/s, 500 ns per link); each
 * rank runs L layers of { a 100 us COMP node, then a 4 MiB ring all-reduce over
 * all ranks that overlaps the next layer's compute, then a 1 MiB send to the
 * next rank and a receive from the previous one }. With R = 16 each all-reduce
 * is 2 x 15 x 16 = 480 transfer events.
 *
 *   bench_replay [RANKS [LAYERS]]     defaults: 16 ranks, 2500 layers
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "../tests/testutil.h"
#include "core/sim.h"
#include "net/net.h"
#include "replay/replay.h"
#include "topo/topo.h"
#include "workload/workload.h"

static double
now_s(void)
{
    return (double)g_get_monotonic_time() / 1e6;
}

int
main(int argc, char **argv)
{
    guint ranks = argc > 1 ? (guint)atoi(argv[1]) : 16;
    guint layers = argc > 2 ? (guint)atoi(argv[2]) : 2500;
    if (ranks < 2 || layers < 1) {
        fprintf(stderr, "usage: bench_replay [RANKS>=2 [LAYERS>=1]]\n");
        return 2;
    }
    g_autofree char *dir = g_dir_make_tmp("weft-bench-XXXXXX", NULL);
    double t0 = now_s();
    for (guint r = 0; r < ranks; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        for (guint l = 0; l < layers; l++) {
            guint64 base = (guint64)l * 4;
            test_et_node_dur(et, base + 1, "layer", TEST_COMP, 100);
            if (l > 0) {
                test_et_dep(et, base - 3); /* the previous layer's compute */
            }
            test_et_coll(et, base + 2, "all_reduce_grad", 0, 4u << 20, NULL);
            test_et_dep(et, base + 1);
            test_et_send(et, base + 3, "send", (gint32)((r + 1) % ranks), (gint32)l, 1u << 20);
            test_et_dep(et, base + 1);
            test_et_recv(et, base + 4, "recv", (gint32)((r + ranks - 1) % ranks), (gint32)l,
                         1u << 20);
            test_et_dep(et, base + 1);
        }
        g_autofree char *path = test_et_path(dir, "bench", r);
        test_et_write(et, path, FALSE);
    }
    double t1 = now_s();

    GError *error = NULL;
    g_autofree char *prefix = g_build_filename(dir, "bench", NULL);
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(prefix, NULL, &error);
    if (wl == NULL || !weft_workload_check(wl, ranks, &error)) {
        fprintf(stderr, "bench_replay: %s\n", error->message);
        return 1;
    }
    double t2 = now_s();

    g_autoptr(weft_topo_t) topo = weft_topo_new("bench-ring");
    for (guint i = 0; i < ranks; i++) {
        g_autofree char *name = g_strdup_printf("gpu%u", i);
        weft_topo_add_vertex(topo, WEFT_VERTEX_GPU, name, -1, -1, &error);
    }
    for (guint i = 0; i < ranks && !(ranks == 2 && i == 1); i++) {
        weft_topo_add_link(topo, (gint)i, (gint)((i + 1) % ranks), WEFT_LINK_NVLINK, 50e9,
                           500 * WEFT_PS_PER_NS, 1, &error);
    }
    if (!weft_topo_finalize(topo, &error)) {
        fprintf(stderr, "bench_replay: %s\n", error->message);
        return 1;
    }
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    double t3 = now_s();
    g_autoptr(weft_replay_result_t) res = weft_replay_run(sim, net, wl, NULL, &error);
    double t4 = now_s();
    if (res == NULL) {
        fprintf(stderr, "bench_replay: %s\n", error->message);
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("workload        %u ranks x %u layers = %" G_GUINT64_FORMAT " nodes\n", ranks, layers,
           weft_workload_node_count(wl));
    printf("write traces    %.3f s\n", t1 - t0);
    printf("load + check    %.3f s\n", t2 - t1);
    printf("replay          %.3f s, %" G_GUINT64_FORMAT " events, %.0f events/s\n", t4 - t3,
           res->events, (double)res->events / (t4 - t3));
    printf("simulated step  %.3f ms\n", weft_time_to_us(res->step_ps) / 1e3);
    printf("peak memory     %.1f MiB (max RSS)\n", (double)ru.ru_maxrss / 1024.0);
    test_tmpdir_remove(dir);
    return 0;
}
