/* SPDX-License-Identifier: MIT */
/*
 * What every libFuzzer harness of tests/fuzz shares (each fuzz_<loader>.c includes it once).
 *
 * A harness feeds one input to one of weft's loaders through its public entry point, as
 * the command line would, and frees what it returns. An error the loader reports (a
 * GError) is a correct answer; a crash, a leak, undefined behaviour or a hang is a finding.
 * Loaders that take a path read the input from a file in a private scratch directory
 * (made once under $TMPDIR, removed at exit); the file is unlinked after each input.
 * The scratch directory also links topologies/ (but its largest cluster), traces/,
 * scenarios/ and studies/ of the source tree, so a scenario or study input that names
 * "../topologies/dgx-h100.ini" (as the bundled ones do, relative to their own
 * directory) finds it.
 *
 * The same harness links either libFuzzer (make fuzz-smoke, clang) or
 * tests/fuzz/replay_main.c (make check, any compiler), which runs it on given files.
 */
#ifndef WEFT_TESTS_FUZZ_H
#define WEFT_TESTS_FUZZ_H

#include <glib.h>
#include <glib/gstdio.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#ifndef WEFT_FUZZ_SRCDIR
#error "WEFT_FUZZ_SRCDIR (the source tree, absolute) is set by Makefile.am"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs longer than this are skipped: the bundled inputs each loader reads are under
 * 4 KiB, and make fuzz-smoke passes -max_len 32768; the replay driver feeds any file. */
#define FUZZ_MAX_BYTES 65536

static char *fuzz_dir; /* the scratch directory; NULL until fuzz_path() makes it */

static void
fuzz_cleanup(void)
{
    if (fuzz_dir == NULL) {
        return;
    }
    static const char *const sub[] = {"in/traces", "in/scenarios", "in/studies"};
    for (guint i = 0; i < G_N_ELEMENTS(sub); i++) {
        g_autofree char *p = g_build_filename(fuzz_dir, sub[i], NULL);
        (void)g_unlink(p);
    }
    /* what a harness left (its own fixed files), the links of topologies/, the directories */
    g_autofree char *in = g_build_filename(fuzz_dir, "in", NULL);
    g_autofree char *inner = g_build_filename(in, "work", NULL);
    g_autofree char *topo = g_build_filename(in, "topologies", NULL);
    const char *dirs[] = {inner, topo, in, fuzz_dir};
    for (guint i = 0; i < G_N_ELEMENTS(dirs); i++) {
        GDir *d = g_dir_open(dirs[i], 0, NULL);
        if (d != NULL) {
            const char *name;
            while ((name = g_dir_read_name(d)) != NULL) {
                g_autofree char *p = g_build_filename(dirs[i], name, NULL);
                (void)g_unlink(p);
            }
            g_dir_close(d);
        }
        (void)g_rmdir(dirs[i]);
    }
    g_clear_pointer(&fuzz_dir, g_free);
}

/*
 * fuzz_path: (transfer none): the path of file @name in the scratch directory's
 * "in/work" (the directory is made on the first call, with in/topologies ... linking
 * the source tree's directories). Aborts if it cannot be made: the harness cannot run.
 */
G_GNUC_UNUSED static const char *
fuzz_path(const char *name)
{
    static char *last;
    if (fuzz_dir == NULL) {
        g_autoptr(GError) err = NULL;
        fuzz_dir = g_dir_make_tmp("weft-fuzz-XXXXXX", &err);
        if (fuzz_dir == NULL) {
            g_error("fuzz: cannot make a scratch directory: %s", err->message);
        }
        g_autofree char *work = g_build_filename(fuzz_dir, "in", "work", NULL);
        if (g_mkdir_with_parents(work, 0700) != 0) {
            g_error("fuzz: cannot make %s", work);
        }
        static const char *const sub[] = {"traces", "scenarios", "studies"};
        for (guint i = 0; i < G_N_ELEMENTS(sub); i++) {
            g_autofree char *target = g_build_filename(WEFT_FUZZ_SRCDIR, sub[i], NULL);
            g_autofree char *link = g_build_filename(fuzz_dir, "in", sub[i], NULL);
            if (symlink(target, link) != 0) {
                g_error("fuzz: cannot link %s to %s", link, target);
            }
        }
        /* topologies/: each file linked but the 16,384-GPU h100-2048-nodes.ini (15 s to build
         * under the fuzzer: a hang to libFuzzer), which a mutated study or train file would
         * otherwise reach through scenarios/train-llama3-405b.ini (paths resolve lexically) */
        g_autofree char *topo_src = g_build_filename(WEFT_FUZZ_SRCDIR, "topologies", NULL);
        g_autofree char *topo_dst = g_build_filename(fuzz_dir, "in", "topologies", NULL);
        GDir *d = g_dir_open(topo_src, 0, NULL);
        if (d == NULL || g_mkdir(topo_dst, 0700) != 0) {
            g_error("fuzz: cannot copy the links of %s", topo_src);
        }
        const char *entry;
        while ((entry = g_dir_read_name(d)) != NULL) {
            if (strcmp(entry, "h100-2048-nodes.ini") == 0) {
                continue;
            }
            g_autofree char *target = g_build_filename(topo_src, entry, NULL);
            g_autofree char *link = g_build_filename(topo_dst, entry, NULL);
            if (symlink(target, link) != 0) {
                g_error("fuzz: cannot link %s to %s", link, target);
            }
        }
        g_dir_close(d);
        atexit(fuzz_cleanup);
        /* a g_return_if_fail() that fails is a bug the fuzzer found: abort on it */
        g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL | G_LOG_FATAL_MASK);
    }
    g_free(last);
    last = g_build_filename(fuzz_dir, "in", "work", name, NULL);
    return last;
}

/*
 * fuzz_write: writes @size bytes of @data to the scratch file @name.
 * Returns: (transfer none): its path (fuzz_path()). Aborts on a write error.
 */
G_GNUC_UNUSED static const char *
fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    const char *path = fuzz_path(name);
    g_autoptr(GError) err = NULL;
    if (!g_file_set_contents(path, (const char *)data, (gssize)size, &err)) {
        g_error("fuzz: %s", err->message);
    }
    return path;
}

/*
 * fuzz_note: with WEFT_FUZZ_VERBOSE set in the environment, prints what the loader said
 * about the input (@err: NULL when it took it), to check that seeds load.
 */
G_GNUC_UNUSED static void
fuzz_note(const char *what, const GError *err)
{
    static int verbose = -1;
    if (verbose < 0) {
        verbose = g_getenv("WEFT_FUZZ_VERBOSE") != NULL;
    }
    if (verbose) {
        fprintf(stderr, "fuzz: %s: %s\n", what, err != NULL ? err->message : "ok");
    }
}

/* fuzz_text: (transfer full): @data as a NUL-terminated string (an embedded NUL ends it). */
G_GNUC_UNUSED static char *
fuzz_text(const uint8_t *data, size_t size)
{
    return g_strndup((const char *)data, size);
}

#endif
