/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness of the cluster INI reader and its builders: the input is a cluster
 * file read by weft_topo_load_ini() into a finalized cluster. Seeds: the .ini files of topologies/
 * (tests/fuzz/corpus/cluster_ini; the largest, h100-2048-nodes.ini, left out: a second
 * per run under the sanitizers).
 */
#include "fuzz.h"
#include "topo/topo.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_BYTES) {
        return -1;
    }
    const char *path = fuzz_write("cluster.ini", data, size);
    g_autoptr(GError) err = NULL;
    weft_topo_free(weft_topo_load_ini(path, &err));
    fuzz_note("load", err);
    (void)g_unlink(path);
    return 0;
}
