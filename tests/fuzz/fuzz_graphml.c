/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness of the GraphML cluster reader (through igraph's reader): the input
 * is a GraphML file read by weft_topo_load_graphml(). Seeds: clusters of topologies/
 * written by `weft topo write` (tests/fuzz/corpus/graphml).
 */
#include "fuzz.h"
#include "topo/topo.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_BYTES) {
        return -1;
    }
    const char *path = fuzz_write("cluster.graphml", data, size);
    g_autoptr(GError) err = NULL;
    weft_topo_free(weft_topo_load_graphml(path, &err));
    fuzz_note("load", err);
    (void)g_unlink(path);
    return 0;
}
