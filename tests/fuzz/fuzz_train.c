/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness of the `weft train` configuration reader: the input is a train
 * file ([train], [failures], and a scenario's groups) read by weft_job_config_load().
 * Seeds: scenarios/train-llama3-405b.ini and the train studies' bases
 * (tests/fuzz/corpus/train).
 */
#include "fuzz.h"
#include "job/job.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_BYTES) {
        return -1;
    }
    const char *path = fuzz_write("train.ini", data, size);
    weft_job_config_t *cfg = weft_job_config_new();
    g_autoptr(GError) err = NULL;
    (void)weft_job_config_load(cfg, path, &err);
    weft_job_config_free(cfg);
    fuzz_note("load", err);
    (void)g_unlink(path);
    return 0;
}
