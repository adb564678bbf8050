/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness of the fault-line reader: the input is fault lines (faults.file,
 * or faults.events with ';' separators), checked without a cluster by
 * weft_fault_check_text() and added to a schedule over two DGX H100 nodes on a
 * rail-optimized fabric by weft_fault_plan_add_text(), both ways (newlines only, and
 * ';' too). Seeds: the fault lines of tests/fault_cli.sh and doc/failures.md
 * (tests/fuzz/corpus/faults).
 */
#include "fuzz.h"
#include "fault/step.h"
#include "topo/topo.h"

static weft_topo_t *cluster; /* built once, for the life of the process */

static void
free_cluster(void)
{
    g_clear_pointer(&cluster, weft_topo_free);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_BYTES) {
        return -1;
    }
    if (cluster == NULL) {
        (void)fuzz_path("unused");
        g_autoptr(GKeyFile) kf = g_key_file_new();
        static const char ini[] = "[cluster]\nkind = dgx-h100\nnodes = 2\n"
                                  "fabric = rail-optimized\n";
        g_autoptr(GError) err = NULL;
        if (!g_key_file_load_from_data(kf, ini, sizeof ini - 1, G_KEY_FILE_NONE, &err) ||
            (cluster = weft_topo_load_keyfile(kf, "cluster", "fuzz", &err)) == NULL) {
            g_error("fuzz: the cluster does not build: %s", err->message);
        }
        atexit(free_cluster);
    }
    g_autofree char *text = fuzz_text(data, size);
    for (int semicolons = 0; semicolons <= 1; semicolons++) {
        g_autoptr(GError) cerr = NULL;
        gboolean checked = weft_fault_check_text(text, "fuzz", semicolons, &cerr);
        fuzz_note("check", cerr);
        weft_fault_plan_t *plan = weft_fault_plan_new(cluster);
        g_autoptr(GError) err = NULL;
        gboolean added = weft_fault_plan_add_text(plan, text, "fuzz", semicolons, &err);
        fuzz_note("add", err);
        /* what the plan takes, the check without a cluster must take too */
        if (added && !checked) {
            g_error("fuzz: weft_fault_check_text() refuses lines the plan takes: %s",
                    cerr->message);
        }
        for (guint i = 0; i < weft_fault_plan_len(plan); i++) {
            (void)weft_fault_plan_get(plan, i);
        }
        weft_fault_plan_free(plan);
    }
    return 0;
}
