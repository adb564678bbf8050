/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness of the Chakra ET reader: the input is rank 0's trace
 * (PREFIX.0.et, protobuf, possibly gzip-wrapped), read by weft_workload_load_chakra()
 * as `weft replay --trace PREFIX --comm-groups FILE` does, then checked by
 * weft_workload_check(). FILE makes process groups "1" to "32" of rank 0 alone, so
 * that a rank of a trace weft gen wrote (pg_name "1", "2", ...) loads alone.
 * Seeds: traces/dp-step-8 and ranks of small steps weft gen wrote
 * (tests/fuzz/corpus/chakra).
 */
#include "fuzz.h"
#include "workload/workload.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_BYTES) {
        return -1;
    }
    static char *groups;
    if (groups == NULL) {
        g_autoptr(GString) json = g_string_new("{");
        for (int i = 1; i <= 32; i++) {
            g_string_append_printf(json, "%s\"%d\": [0]", i > 1 ? ", " : "", i);
        }
        g_string_append(json, "}\n");
        groups = g_strdup(fuzz_write("groups.json", (const uint8_t *)json->str, json->len));
    }
    const char *path = fuzz_write("t.0.et", data, size);
    g_autofree char *prefix = g_strndup(path, strlen(path) - strlen(".0.et"));
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(prefix, groups, &err);
    if (wl != NULL) {
        g_autoptr(GError) cerr = NULL;
        (void)weft_workload_check(wl, 0, &cerr);
        fuzz_note("check", cerr);
    }
    fuzz_note("load", err);
    (void)g_unlink(path);
    return 0;
}
