/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness of the generator spec reader: the input is a spec file
 * ([transformer] keys, as `weft gen transformer --spec` writes) whose step
 * weft_gen_load_spec() generates in memory, then checked by weft_workload_check().
 * Seeds: tests/fuzz/corpus/gen_spec (small models written by weft gen --spec).
 */
#include "fuzz.h"
#include "workload/gen.h"
#include "workload/workload.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_BYTES) {
        return -1;
    }
    const char *path = fuzz_write("step.gen", data, size);
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_workload_t) wl = weft_gen_load_spec(path, &err);
    if (wl != NULL) {
        g_autoptr(GError) cerr = NULL;
        (void)weft_workload_check(wl, 0, &cerr);
        fuzz_note("check", cerr);
    }
    fuzz_note("load", err);
    (void)g_unlink(path);
    return 0;
}
