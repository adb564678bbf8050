/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness of the jobs file reader (scenario/jobs.h): the input is a jobs file
 * (`weft replay --jobs FILE`), read by weft_jobs_load() and built by weft_jobs_build() on a
 * fixed abstract leaf-spine of 8 GPUs (2 leaves of 4), as a run would before its replay:
 * every job's workload loaded and checked, the jobs placed and merged. The merged
 * workload must pass weft_workload_check() (a failure is a finding: merging broke it).
 * Seeds: tests/fuzz/corpus/jobs.
 */
#include "fuzz.h"
#include "scenario/jobs.h"
#include "topo/topo.h"
#include "workload/workload.h"

static weft_topo_t *cluster; /* built once */

static void
build_cluster(void)
{
    static const char ini[] = "[cluster]\nkind = leaf-spine\ngpus = 8\nswitch_radix = 6\n"
                              "oversubscription = 2:1\nlink_bandwidth = 100GB/s\n"
                              "link_latency = 1us\n";
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) err = NULL;
    if (!g_key_file_load_from_data(kf, ini, sizeof ini - 1, G_KEY_FILE_NONE, &err) ||
        (cluster = weft_topo_load_keyfile(kf, "cluster", "fuzz", &err)) == NULL) {
        g_error("fuzz: the cluster is not built: %s", err->message);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_BYTES) {
        return -1;
    }
    if (cluster == NULL) {
        build_cluster();
    }
    const char *path = fuzz_write("input.jobs", data, size);
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_jobs_t) jobs = weft_jobs_load(path, NULL, &err);
    if (jobs != NULL) {
        weft_workload_t *wl = NULL;
        g_autofree guint *rank_gpu = NULL;
        g_autofree char *label = NULL, *placement = NULL;
        if (weft_jobs_build(jobs, cluster, -1, &wl, &rank_gpu, &label, &placement, &err)) {
            g_autoptr(GError) cerr = NULL;
            if (!weft_workload_check(wl, weft_topo_n_gpus(cluster), &cerr)) {
                g_error("fuzz: a merged workload fails its check: %s", cerr->message);
            }
            for (guint r = 0; r < wl->n_ranks; r++) {
                g_assert(rank_gpu[r] < weft_topo_n_gpus(cluster));
            }
        }
        weft_workload_free(wl); /* before the jobs, whose names it borrows */
    }
    fuzz_note("load", err);
    (void)g_unlink(path);
    return 0;
}
