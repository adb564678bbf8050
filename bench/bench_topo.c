/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test): builds large clusters from their files and computes
 * routes for rings over all their GPUs, printing build time, route time,
 * routes per second and peak memory.
 *
 * For each cluster file and each ring stride s (1 and 8), a child process
 * loads the file and routes GPU g -> GPU (g + s) mod n for every GPU g, in
 * order of g, flow id 0. Stride 1 is a ring that crosses nodes once per
 * 8-GPU node (the rest stays on NVLink); stride 8 crosses nodes on every hop
 * and, on a rail-optimized fabric, stays on the rail. A child per case makes
 * the peak memory (getrusage max RSS) that case's own, and every case starts
 * with empty caches.
 *
 *   bench_topo [CLUSTER.ini ...]
 *
 * Without arguments it runs topologies/h100-2048-nodes.ini (16,384 GPUs) and
 * topologies/selene-a100-superpod.ini (4,480 GPUs), found under
 * $WEFT_SRCDIR/topologies when WEFT_SRCDIR is set (`make bench` sets it to
 * the source tree), else under ./topologies (an in-tree build).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "topo/fabric.h"
#include "topo/topo.h"

static double
now_s(void)
{
    return (double)g_get_monotonic_time() / 1e6;
}

/* Runs one case in the calling (child) process; returns the exit status. */
static int
run_case(const char *path, guint stride)
{
    GError *error = NULL;
    double t0 = now_s();
    g_autoptr(weft_topo_t) topo = weft_topo_load(path, &error);
    double t1 = now_s();
    if (topo == NULL) {
        fprintf(stderr, "bench_topo: %s\n", error->message);
        g_error_free(error);
        return 1;
    }
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    guint n = weft_topo_n_gpus(topo);
    guint64 hops = 0;
    double min_rate = G_MAXDOUBLE;
    double t2 = now_s();
    for (guint g = 0; g < n; g++) {
        gint src = weft_topo_gpu_vertex(topo, g);
        gint dst = weft_topo_gpu_vertex(topo, (g + stride) % n);
        const weft_route_t *r = weft_fabric_route(fabric, src, dst, &error);
        if (r == NULL) {
            fprintf(stderr, "bench_topo: %s\n", error->message);
            g_error_free(error);
            return 1;
        }
        hops += r->hops;
        min_rate = MIN(min_rate, r->rate_Bps);
    }
    double t3 = now_s();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%s: %u GPUs, %u vertices, %u directed edges; ring stride %u\n", weft_topo_name(topo), n,
           weft_topo_n_vertices(topo), weft_topo_n_edges(topo), stride);
    printf("  build %.3f s; routes %.3f s for %u routes, %.0f routes/s; mean %.2f hops, "
           "slowest %.1f GB/s; peak memory %.1f MiB (max RSS)\n",
           t1 - t0, t3 - t2, n, (double)n / MAX(t3 - t2, 1e-9), (double)hops / MAX(n, 1),
           min_rate / 1e9, (double)ru.ru_maxrss / 1024.0);
    return 0;
}

int
main(int argc, char **argv)
{
    g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            g_ptr_array_add(files, g_strdup(argv[i]));
        }
    } else {
        const char *src = g_getenv("WEFT_SRCDIR");
        g_autofree char *dir = g_build_filename(src != NULL ? src : ".", "topologies", NULL);
        g_ptr_array_add(files, g_build_filename(dir, "h100-2048-nodes.ini", NULL));
        g_ptr_array_add(files, g_build_filename(dir, "selene-a100-superpod.ini", NULL));
    }
    static const guint strides[] = {1, 8};
    int status = 0;
    for (guint f = 0; f < files->len; f++) {
        for (guint s = 0; s < G_N_ELEMENTS(strides); s++) {
            fflush(stdout);
            pid_t pid = fork();
            if (pid < 0) {
                perror("bench_topo: fork");
                return 1;
            }
            if (pid == 0) {
                int rc = run_case(g_ptr_array_index(files, f), strides[s]);
                fflush(stdout);
                _exit(rc);
            }
            int ws = 0;
            if (waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
                status = 1;
            }
        }
    }
    return status;
}
