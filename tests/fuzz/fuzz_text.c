/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness of the ASTRA-sim 1.0 / SimAI text workload reader: the input is a
 * text workload read by weft_workload_load_text() (no rank hint), then checked by
 * weft_workload_check(). Seeds: tests/fuzz/corpus/text (small workloads of each
 * parallelism keyword, in the format of ../shared/formats/peer-formats.md).
 */
#include "fuzz.h"
#include "workload/workload.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_BYTES) {
        return -1;
    }
    const char *path = fuzz_write("workload.txt", data, size);
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_text(path, 0, &err);
    if (wl != NULL) {
        g_autoptr(GError) cerr = NULL;
        (void)weft_workload_check(wl, 0, &cerr);
        fuzz_note("check", cerr);
    }
    fuzz_note("load", err);
    (void)g_unlink(path);
    return 0;
}
