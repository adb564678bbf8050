/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness of the ASTRA-sim comm-group JSON reader: the input is a comm-group
 * file ({"1": [0, 1], ...}) given with a fixed 8-rank Chakra trace (a generated step,
 * tp = 2, pp = 2, dp = 2, whose collectives name process groups 1, 2, ...), read by
 * weft_workload_load_chakra(prefix, input) as `weft replay --comm-groups FILE` does,
 * then checked by weft_workload_check(). Seeds: tests/fuzz/corpus/comm_groups.
 */
#include "fuzz.h"
#include "workload/gen.h"
#include "workload/workload.h"

static char *prefix; /* the fixed trace, written once */

static void
write_trace(void)
{
    g_autofree char *p = g_strdup(fuzz_path("step"));
    g_autoptr(GKeyFile) kf = g_key_file_new();
    static const char ini[] = "[transformer]\nlayers = 2\nhidden = 256\nheads = 4\nffn = 1024\n"
                              "vocab = 1000\nseq = 128\ntp = 2\npp = 2\ndp = 2\n"
                              "micro_batch = 1\nglobal_batch = 4\n";
    g_autoptr(GError) err = NULL;
    if (!g_key_file_load_from_data(kf, ini, sizeof ini - 1, G_KEY_FILE_NONE, &err)) {
        g_error("fuzz: %s", err->message);
    }
    g_autoptr(weft_workload_t) wl = weft_gen_load_keyfile(kf, "fuzz", 8, &err);
    if (wl == NULL || !weft_workload_write_chakra(wl, p, &err)) {
        g_error("fuzz: the trace is not written: %s", err->message);
    }
    /* the comm-group file written beside it would be read when none is given */
    g_autofree char *beside = g_strconcat(p, ".json", NULL);
    (void)g_unlink(beside);
    prefix = g_steal_pointer(&p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_BYTES) {
        return -1;
    }
    if (prefix == NULL) {
        write_trace();
    }
    const char *path = fuzz_write("groups.json", data, size);
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(prefix, path, &err);
    if (wl != NULL) {
        g_autoptr(GError) cerr = NULL;
        (void)weft_workload_check(wl, 0, &cerr);
        fuzz_note("check", cerr);
    }
    fuzz_note("load", err);
    (void)g_unlink(path);
    return 0;
}
