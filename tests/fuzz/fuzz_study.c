/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness of the study reader: the input is a study file in a directory
 * beside the source tree's scenarios/, topologies/ and traces/ (so the bundled studies'
 * "../scenarios/dp-step-dgx-h100.ini" resolve), read, expanded and checked by
 * weft_study_load(); no point runs. Seeds: the .ini files of studies/ (tests/fuzz/corpus/study).
 */
#include "fuzz.h"
#include "study/study.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_BYTES) {
        return -1;
    }
    const char *path = fuzz_write("study.ini", data, size);
    g_autoptr(GError) err = NULL;
    weft_study_free(weft_study_load(path, &err));
    fuzz_note("load", err);
    (void)g_unlink(path);
    return 0;
}
