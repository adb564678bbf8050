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
#include "hw/hw.h"
#include "workload/gen.h"

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
    g_autofree char *model = NULL, *out = NULL, *spec = NULL, *gpu_name = NULL, *recompute = NULL,
                    *attention = NULL, *precision = NULL;
    gint layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn = 0, vocab = 0, seq = 0, experts = -1,
         top_k = 0, gated = -1;
    gint tp = 1, pp = 1, dp = 1, cp = 1, ep = 1, vpp = 1, mb = 1, gb = 0, ranks = 0;
    gboolean sp = FALSE, dist_opt = FALSE, quiet = FALSE, no_overlap = FALSE;
    GOptionEntry entries[] = {
        {"model", 'm', 0, G_OPTION_ARG_STRING, &model,
         "model preset: gpt3-1.3b..gpt3-175b, llama2-7b/13b/70b, llama3-8b/70b, "
         "llama3.1-8b/70b/405b, mixtral-8x7b",
         "NAME"},
        {"layers", 0, 0, G_OPTION_ARG_INT, &layers, "transformer layers", "N"},
        {"hidden", 0, 0, G_OPTION_ARG_INT, &hidden, "hidden size", "N"},
        {"heads", 0, 0, G_OPTION_ARG_INT, &heads, "attention heads", "N"},
        {"kv-heads", 0, 0, G_OPTION_ARG_INT, &kv_heads, "key/value heads (GQA; default heads)",
         "N"},
        {"ffn", 0, 0, G_OPTION_ARG_INT, &ffn, "FFN size (default 4 x hidden)", "N"},
        {"vocab", 0, 0, G_OPTION_ARG_INT, &vocab, "vocabulary (default 51200)", "N"},
        {"seq", 0, 0, G_OPTION_ARG_INT, &seq, "sequence length (default 2048)", "N"},
        {"experts", 0, 0, G_OPTION_ARG_INT, &experts, "MoE experts (0: dense)", "N"},
        {"top-k", 0, 0, G_OPTION_ARG_INT, &top_k, "experts per token", "K"},
        {"gated", 0, 0, G_OPTION_ARG_INT, &gated, "1: SwiGLU MLP (3 matrices), 0: 2 matrices",
         "0|1"},
        {"tp", 0, 0, G_OPTION_ARG_INT, &tp, "tensor parallel size", "N"},
        {"pp", 0, 0, G_OPTION_ARG_INT, &pp, "pipeline parallel size", "N"},
        {"dp", 0, 0, G_OPTION_ARG_INT, &dp, "data parallel size", "N"},
        {"cp", 0, 0, G_OPTION_ARG_INT, &cp, "context parallel size (ring attention)", "N"},
        {"ep", 0, 0, G_OPTION_ARG_INT, &ep, "expert parallel size", "N"},
        {"vpp", 0, 0, G_OPTION_ARG_INT, &vpp, "virtual stages per pipeline rank (interleaved)",
         "N"},
        {"sp", 0, 0, G_OPTION_ARG_NONE, &sp, "sequence parallelism", NULL},
        {"dist-opt", 0, 0, G_OPTION_ARG_NONE, &dist_opt,
         "distributed optimizer (reduce-scatter + all-gather)", NULL},
        {"no-overlap", 0, 0, G_OPTION_ARG_NONE, &no_overlap,
         "data-parallel collectives after the last backward, not overlapped with it (Megatron's "
         "--overlap-grad-reduce and --overlap-param-gather off)",
         NULL},
        {"micro-batch", 0, 0, G_OPTION_ARG_INT, &mb, "micro-batch size (sequences)", "N"},
        {"global-batch", 0, 0, G_OPTION_ARG_INT, &gb,
         "global batch (sequences; default micro-batch x dp)", "N"},
        {"recompute", 0, 0, G_OPTION_ARG_STRING, &recompute, "none, selective or full", "MODE"},
        {"attention", 0, 0, G_OPTION_ARG_STRING, &attention,
         "fused (flash attention, default) or unfused (Megatron-LM before 2023: score matrix "
         "through HBM)",
         "KIND"},
        {"precision", 0, 0, G_OPTION_ARG_STRING, &precision, "bf16 (default) or fp8", "P"},
        {"gpu", 0, 0, G_OPTION_ARG_STRING, &gpu_name, "GPU model (hw catalog; default h100)",
         "NAME"},
        {"ranks", 'n', 0, G_OPTION_ARG_INT, &ranks, "expected ranks (checked: tp x pp x dp x cp)",
         "N"},
        {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
         "write PREFIX.<rank>.et and PREFIX.json (comm groups)", "PREFIX"},
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
             "recomputation, BF16/FP8, compute times from the GPU's roofline.");
    g_option_context_set_description(
        ctx, "Example:\n  weft gen transformer --model gpt3-175b --tp 8 --pp 16 --dp 16 --sp \\\n"
             "      --micro-batch 1 --global-batch 1536 --out /tmp/g/gpt3\n"
             "  weft replay --cluster topologies/dgx-h100-superpod.ini --trace /tmp/g/gpt3 \\\n"
             "      --comm-groups /tmp/g/gpt3.json\n"
             "  weft gen transformer --model gpt3-175b ... --spec /tmp/gpt3.gen\n"
             "  weft replay --cluster ... --trace /tmp/gpt3.gen   (generated in memory)\n");
    g_option_context_add_main_entries(ctx, entries, NULL);
    weft_cli_add_log_options(ctx);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        return weft_cli_usage_error("gen", error->message);
    }
    if (argc > 1) {
        g_autofree char *msg = g_strdup_printf("unexpected argument '%s'", argv[1]);
        return weft_cli_usage_error("gen", msg);
    }
    weft_gen_config_t c = {0};
    if (model != NULL) {
        if (!weft_gen_preset(model, &c, &error)) {
            /* a bad option value is a usage error, like --recompute's (exit 2) */
            return weft_cli_usage_error("gen", error->message);
        }
    } else {
        if (layers <= 0 || hidden <= 0 || heads <= 0) {
            return weft_cli_usage_error("gen", "give --model NAME, or --layers, --hidden and "
                                               "--heads (and optionally --ffn, --vocab, ...)");
        }
        c.kv_heads = (guint)heads;
        c.ffn = 4 * (guint)hidden;
        c.vocab = 51200;
        c.seq = 2048;
    }
    struct {
        const char *name;
        gint v;
        guint *dst;
    } over[] = {{"layers", layers, &c.layers},
                {"hidden", hidden, &c.hidden},
                {"heads", heads, &c.heads},
                {"kv-heads", kv_heads, &c.kv_heads},
                {"ffn", ffn, &c.ffn},
                {"vocab", vocab, &c.vocab},
                {"seq", seq, &c.seq},
                {"top-k", top_k, &c.top_k},
                {"tp", tp, &c.tp},
                {"pp", pp, &c.pp},
                {"dp", dp, &c.dp},
                {"cp", cp, &c.cp},
                {"ep", ep, &c.ep},
                {"vpp", vpp, &c.vpp},
                {"micro-batch", mb, &c.micro_batch}};
    for (gsize i = 0; i < G_N_ELEMENTS(over); i++) {
        if (over[i].v < 0) {
            g_autofree char *msg = g_strdup_printf("--%s %d is negative", over[i].name, over[i].v);
            return weft_cli_usage_error("gen", msg);
        }
        /* the parallel sizes and the micro-batch default to 1: a 0 was typed */
        if (over[i].v == 0 && i >= 8) {
            g_autofree char *msg =
                g_strdup_printf("--%s 0: a size must be at least 1", over[i].name);
            return weft_cli_usage_error("gen", msg);
        }
        if (over[i].v > 0) {
            *over[i].dst = (guint)over[i].v;
        }
    }
    if (experts >= 0) {
        c.experts = (guint)experts;
    }
    if (gated >= 0) {
        c.gated = gated != 0;
    }
    c.sp = sp;
    c.dist_opt = dist_opt;
    c.overlap_dp = !no_overlap;
    if (gb < 0) {
        return weft_cli_usage_error("gen", "--global-batch is negative");
    }
    c.global_batch = gb > 0 ? (guint)gb : c.micro_batch * c.dp;
    if (recompute == NULL || strcmp(recompute, "none") == 0) {
        c.recompute = WEFT_GEN_RECOMPUTE_NONE;
    } else if (strcmp(recompute, "selective") == 0) {
        c.recompute = WEFT_GEN_RECOMPUTE_SELECTIVE;
    } else if (strcmp(recompute, "full") == 0) {
        c.recompute = WEFT_GEN_RECOMPUTE_FULL;
    } else {
        g_autofree char *msg =
            g_strdup_printf("--recompute '%s': expected none, selective or full", recompute);
        return weft_cli_usage_error("gen", msg);
    }
    if (precision != NULL && strcmp(precision, "bf16") != 0 && strcmp(precision, "fp8") != 0) {
        g_autofree char *msg = g_strdup_printf("--precision '%s': expected bf16 or fp8", precision);
        return weft_cli_usage_error("gen", msg);
    }
    c.fp8 = precision != NULL && strcmp(precision, "fp8") == 0;
    if (attention != NULL && strcmp(attention, "fused") != 0 && strcmp(attention, "unfused") != 0) {
        g_autofree char *msg =
            g_strdup_printf("--attention '%s': expected fused or unfused", attention);
        return weft_cli_usage_error("gen", msg);
    }
    c.unfused_attention = attention != NULL && strcmp(attention, "unfused") == 0;
    const weft_hw_gpu_t *gpu = weft_hw_gpu(gpu_name != NULL ? gpu_name : "h100", &error);
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
