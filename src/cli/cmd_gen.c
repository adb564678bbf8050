/* SPDX-License-Identifier: MIT */
/*
 * weft gen transformer: writes the Chakra ET files (one per rank) and the
 * comm-group JSON of one Megatron-LM training step of a transformer, from a
 * model preset or explicit sizes and a parallel configuration
 * (workload/gen.h), prints what it generated and the per-GPU memory estimate,
 * and warns when that does not fit the GPU's HBM.
 */
#define G_LOG_DOMAIN "weft-cli"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/keyfile.h"
#include "hw/hw.h"
#include "workload/gen.h"

static int generate(const weft_gen_spec_t *gs, gint ranks, const char *out, const char *spec,
                    gboolean quiet);

int
weft_cmd_gen(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "transformer") != 0) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            printf("Usage:\n  weft gen transformer [OPTION...]\n\nGenerators: transformer "
                   "(weft gen transformer --help)\n");
            return WEFT_EXIT_OK;
        }
        return weft_cli_usage_error("gen", "the only generator is 'transformer': weft gen "
                                           "transformer --model gpt3-175b ... --out PREFIX");
    }
    argc--;
    argv++;
    g_autofree char *out = NULL, *spec = NULL;
    gint ranks = 0;
    gboolean quiet = FALSE;
    /* the configuration options: the [transformer] table's rows (workload/gen.h), so
     * `--tp 8` means what `[transformer] tp = 8` means in a scenario or spec */
    g_autofree char **texts = g_new0(char *, weft_gen_n_keys);
    GOptionEntry entries[] = {
        {"ranks", 'n', 0, G_OPTION_ARG_INT, &ranks, "expected ranks (checked: tp x pp x dp x cp)",
         "N"},
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
         "write PREFIX.<rank>.et and PREFIX.json (comm groups), which weft and ASTRA-sim "
         "replay (doc/formats.md)",
         "PREFIX"},
        {"spec", 's', 0, G_OPTION_ARG_FILENAME, &spec,
         "write the configuration as a spec FILE that weft replay --trace FILE generates in "
         "memory (no trace files; large clusters)",
         "FILE"},
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "print nothing but warnings", NULL},
        {NULL}};
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("- one Megatron-LM training step as Chakra ET files");
    g_option_context_set_summary(
        ctx, "Generates the per-rank traces of one training step of a transformer (doc/"
             "workloads.md): tensor (with sequence), pipeline (1F1B, interleaved), data "
             "(all-reduce or distributed optimizer), context and expert parallelism, "
             "recomputation, BF16/FP8, compute times from the GPU's roofline. Each option "
             "is the [transformer] key of the same name (doc/scenario.md).");
    g_option_context_set_description(
        ctx, "Example:\n  weft gen transformer --model gpt3-175b --tp 8 --pp 16 --dp 16 --sp \\\n"
             "      --micro-batch 1 --global-batch 1536 --out /tmp/g/gpt3\n"
             "  weft replay --cluster topologies/dgx-h100-superpod.ini --trace /tmp/g/gpt3 \\\n"
             "      --comm-groups /tmp/g/gpt3.json\n"
             "  weft gen transformer --model gpt3-175b ... --spec /tmp/gpt3.gen\n"
             "  weft replay --cluster ... --trace /tmp/gpt3.gen   (generated in memory)\n");
    g_option_context_set_main_group(
        ctx, weft_keys_option_group(weft_gen_keys, weft_gen_n_keys, "transformer", texts));
    g_option_context_add_main_entries(ctx, entries, NULL);
    weft_cli_add_log_options(ctx);
    g_autoptr(GError) error = NULL;
    gboolean parsed = g_option_context_parse(ctx, &argc, &argv, &error);
    weft_gen_spec_t gs;
    weft_gen_spec_init(&gs);
    for (guint i = 0; parsed && i < weft_gen_n_keys; i++) {
        /* checked by the option parser; a preset's error is a usage error too (exit 2) */
        parsed = weft_key_apply(&weft_gen_keys[i], texts[i], &gs, &error);
    }
    int rc = WEFT_EXIT_OK;
    if (!parsed) {
        rc = weft_cli_usage_error("gen", error->message);
    } else if (argc > 1) {
        g_autofree char *msg = g_strdup_printf("unexpected argument '%s'", argv[1]);
        rc = weft_cli_usage_error("gen", msg);
    } else if (!weft_gen_spec_finish(&gs, 0, "weft gen transformer", &error)) {
        rc = weft_cli_usage_error("gen", error->message);
    } else {
        rc = generate(&gs, ranks, out, spec, quiet);
    }
    for (guint i = 0; i < weft_gen_n_keys; i++) {
        g_free(texts[i]);
    }
    return rc;
}

/* Validates @gs, warns when it does not fit, writes what was asked and prints the summary. */
static int
generate(const weft_gen_spec_t *gs, gint ranks, const char *out, const char *spec, gboolean quiet)
{
    g_autoptr(GError) error = NULL;
    weft_gen_config_t c = gs->c;
    const weft_hw_gpu_t *gpu = weft_hw_gpu(gs->gpu, &error);
    if (gpu == NULL) {
        return weft_cli_usage_error("gen", error->message);
    }
    if (c.fp8 && gpu->fp8_flops <= 0) {
        g_set_error(&error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "--precision fp8: %s has no FP8 tensor cores", gpu->name);
        return weft_cli_error("gen", error);
    }
    if (!weft_gen_validate(&c, (guint)ranks, &error)) {
        return weft_cli_error("gen", error);
    }
    weft_gen_memory_t mem;
    weft_gen_memory(&c, &mem);
    if (mem.total > gpu->hbm_bytes) {
        fprintf(stderr,
                "weft gen: warning: %.1f GiB per GPU (weights %.1f, gradients %.1f, optimizer "
                "%.1f, activations %.1f) do not fit the %.0f GiB of %s's HBM\n",
                mem.total / 1073741824.0, mem.weights / 1073741824.0, mem.grads / 1073741824.0,
                mem.optimizer / 1073741824.0, mem.activations / 1073741824.0,
                gpu->hbm_bytes / 1073741824.0, gpu->name);
    }
    g_autoptr(weft_workload_t) wl = weft_gen_transformer(&c, gpu, &error);
    if (wl == NULL) {
        return weft_cli_error("gen", error);
    }
    if (!quiet) {
        printf("ranks        %u (tp %u x cp %u x dp %u x pp %u%s)\n", wl->n_ranks, c.tp, c.cp, c.dp,
               c.pp, c.ep > 1 ? ", ep within dp" : "");
        printf("micro-batches %u per rank (global batch %u / (micro-batch %u x dp %u))\n",
               c.global_batch / (c.micro_batch * c.dp), c.global_batch, c.micro_batch, c.dp);
        if (c.first_stage_layers > 0 || c.last_stage_layers > 0 || c.account_embedding ||
            c.account_loss) {
            /* uneven stages: each virtual stage's transformer layers, in order */
            g_autoptr(GString) split = g_string_new(NULL);
            for (guint v = 0; v < c.pp * c.vpp; v++) {
                g_string_append_printf(split, "%s%u", v > 0 ? " " : "",
                                       weft_gen_chunk_layers(&c, v));
            }
            printf("layers       %s (per virtual stage)\n", split->str);
        }
        printf("nodes        %" G_GUINT64_FORMAT " (rank 0: %u)\n", weft_workload_node_count(wl),
               wl->ranks[0].n_nodes);
        printf("memory       %.1f GiB per GPU on stage 0: weights %.1f, gradients %.1f, "
               "optimizer %.1f, activations %.1f (%s HBM %.0f GiB)\n",
               mem.total / 1073741824.0, mem.weights / 1073741824.0, mem.grads / 1073741824.0,
               mem.optimizer / 1073741824.0, mem.activations / 1073741824.0, gpu->name,
               gpu->hbm_bytes / 1073741824.0);
    }
    if (out != NULL) {
        g_autofree char *dir = g_path_get_dirname(out);
        if (g_mkdir_with_parents(dir, 0755) != 0) {
            g_set_error(&error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_IO,
                        "--out %s: cannot create %s", out, dir);
            return weft_cli_error("gen", error);
        }
        if (!weft_workload_write_chakra(wl, out, &error)) {
            return weft_cli_error("gen", error);
        }
        if (!quiet) {
            printf("written      %s.0.et .. %s.%u.et, %s.json\n", out, out, wl->n_ranks - 1, out);
        }
    }
    if (spec != NULL) {
        if (!weft_gen_write_spec(&c, gpu->name, spec, &error)) {
            return weft_cli_error("gen", error);
        }
        if (!quiet) {
            printf("spec         %s (weft replay --trace %s)\n", spec, spec);
        }
    }
    return WEFT_EXIT_OK;
}
