/* SPDX-License-Identifier: MIT */
/*
 * The main of tests/fuzz/replay_<loader>: runs one harness's LLVMFuzzerTestOneInput on
 * every file named on the command line (a directory: on every file in it, sorted), once
 * each, as a libFuzzer binary does when given files. Built with any compiler, so that
 * `make check` replays the regression inputs and seeds (tests/fuzz_regress.sh) without
 * clang; under --enable-sanitize the sanitizers catch what the fuzzer caught.
 * Exit status 0 when every input ran, 1 when a file cannot be read, 2 on usage.
 */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
run_file(const char *path)
{
    g_autofree char *data = NULL;
    gsize len = 0;
    g_autoptr(GError) err = NULL;
    if (!g_file_get_contents(path, &data, &len, &err)) {
        fprintf(stderr, "%s\n", err->message);
        return 1;
    }
    fprintf(stderr, "running %s (%zu bytes)\n", path, (size_t)len);
    (void)LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    return 0;
}

static gint
cmp_str(gconstpointer a, gconstpointer b)
{
    return g_strcmp0(*(char *const *)a, *(char *const *)b);
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        if (!g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
            rc |= run_file(argv[i]);
            continue;
        }
        g_autoptr(GError) err = NULL;
        GDir *d = g_dir_open(argv[i], 0, &err);
        if (d == NULL) {
            fprintf(stderr, "%s\n", err->message);
            rc = 1;
            continue;
        }
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        const char *name;
        while ((name = g_dir_read_name(d)) != NULL) {
            g_ptr_array_add(names, g_build_filename(argv[i], name, NULL));
        }
        g_dir_close(d);
        g_ptr_array_sort(names, cmp_str);
        for (guint k = 0; k < names->len; k++) {
            rc |= run_file(g_ptr_array_index(names, k));
        }
    }
    return rc;
}
