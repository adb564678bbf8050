/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness of the ASTRA-sim network YAML reader: the input is a network file
 * read by weft_topo_load_astra_yaml() into a finalized cluster.
 * Seeds: tests/fuzz/corpus/astra_yaml.
 */
#include "fuzz.h"
#include "topo/topo.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_BYTES) {
        return -1;
    }
    const char *path = fuzz_write("network.yml", data, size);
    g_autoptr(GError) err = NULL;
    weft_topo_free(weft_topo_load_astra_yaml(path, &err));
    fuzz_note("load", err);
    (void)g_unlink(path);
    return 0;
}
