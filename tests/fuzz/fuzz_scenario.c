/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness of the scenario reader: the input is a scenario file read by
 * weft_scenario_load(), then checked (weft_scenario_check()), resolved into its typed
 * configuration (weft_scenario_resolve()) and printed back (weft_scenario_to_ini()),
 * which must load again. Nothing is built or run. Seeds: the .ini files of scenarios/
 * (tests/fuzz/corpus/scenario).
 */
#include "fuzz.h"
#include "scenario/scenario.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_BYTES) {
        return -1;
    }
    const char *path = fuzz_write("scenario.ini", data, size);
    weft_scenario_t *sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    if (weft_scenario_load(sc, path, &err)) {
        g_autoptr(GError) cerr = NULL;
        (void)weft_scenario_check(sc, &cerr);
        fuzz_note("check", cerr);
        weft_scenario_config_t cfg;
        g_autoptr(GError) rerr = NULL;
        if (!weft_scenario_resolve(sc, &cfg, &rerr)) {
            g_error("fuzz: a loaded scenario does not resolve: %s", rerr->message);
        }
        /* the effective configuration (--show-config, --out DIR/scenario.ini) loads again */
        g_autofree char *ini = weft_scenario_to_ini(sc);
        const char *again = fuzz_write("again.ini", (const uint8_t *)ini, strlen(ini));
        weft_scenario_t *sc2 = weft_scenario_new();
        g_autoptr(GError) aerr = NULL;
        if (!weft_scenario_load(sc2, again, &aerr)) {
            g_error("fuzz: the effective configuration does not load again: %s\n%s",
                    aerr->message, ini);
        }
        weft_scenario_free(sc2);
        (void)g_unlink(again);
    }
    weft_scenario_free(sc);
    fuzz_note("load", err);
    (void)g_unlink(path);
    return 0;
}
