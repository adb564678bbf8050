/* SPDX-License-Identifier: MIT */
/*
 * Scenario files: one table of every group and key (type, default, one-line
 * doc), values checked against it when they are set, the effective
 * configuration written back in the table's order, and the run itself:
 * cluster, workload, placement, network, replay, and the files of [output].
 * [cluster] is the one open group: besides `file` it takes the keys of a
 * cluster file, which the cluster builders (topo_ini.c) check, not this file.
 */
#include "scenario/scenario.h"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "coll/tuning.h"
#include "core/keyfile.h"
#include "core/sim.h"
#include "core/units.h"
#include "fault/step.h"
#include "hw/hw.h"
#include "net/net.h"
#include "report/report.h"
#include "topo/placement.h"
#include "workload/gen.h"

G_DEFINE_QUARK(weft - scenario - error - quark, weft_scenario_error)

/* ---- the table of keys -------------------------------------------------------------- */

typedef enum {
    T_PATH,    /* a file or prefix; relative to the scenario file or the working directory */
    T_STRING,  /* free text */
    T_CHOICE,  /* one of a fixed list, or what a check function accepts */
    T_INTEGER, /* a whole number in [imin, imax] */
    T_NUMBER,  /* a real number in (nmin, nmax] or [nmin, nmax] */
    T_RATE,    /* a rate with its unit (core/units.h) */
    T_TIME,    /* a time with its unit */
    T_BYTES,   /* a size with its unit */
} value_type;

typedef gboolean (*check_fn)(const char *text, GError **error);

typedef struct {
    const char *group;
    const char *key;
    value_type type;
    const char *dflt; /* NULL: unset unless given */
    const char *doc;  /* one line, also written as a comment by weft_scenario_to_ini() */
    const char *const *choices;
    check_fn check; /* T_CHOICE without a fixed list */
    gint64 imin, imax;
    double nmin, nmax;
    gboolean nmin_open; /* the lower bound is excluded */
} key_desc;

static gboolean
check_network_model(const char *text, GError **error)
{
    weft_net_model_t model;
    return weft_net_model_from_name(text, &model, error);
}

/* [output] timeline_ranks: the syntax here, the range when the workload is known. */
static gboolean
check_timeline_ranks(const char *text, GError **error)
{
    return weft_report_parse_ranks(text, G_MAXUINT, NULL, error);
}

static gboolean
check_timeline_window(const char *text, GError **error)
{
    weft_time_t a = 0, b = 0;
    return weft_report_parse_window(text, &a, &b, error);
}

/* [faults] events: the lines' syntax now; their targets when the cluster is built. */
static gboolean
check_fault_events(const char *text, GError **error)
{
    return weft_fault_check_text(text, "faults.events", TRUE, error);
}

static gboolean
check_link_series(const char *text, GError **error)
{
    weft_time_t t = 0;
    if (!weft_units_parse_time(text, &t, error)) {
        return FALSE;
    }
    if (t <= 0) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                    "the sampling interval must be > 0");
        return FALSE;
    }
    return TRUE;
}

/* [transformer] model: a generator preset (workload/gen.h); the error lists them. */
static gboolean
check_gen_model(const char *text, GError **error)
{
    weft_gen_config_t c;
    return weft_gen_preset(text, &c, error);
}

/* [transformer] gpu: a GPU of the hw catalog; the error lists them. */
static gboolean
check_gpu(const char *text, GError **error)
{
    return weft_hw_gpu(text, error) != NULL;
}

/* workload.collective: an operation weft's collectives support (coll/coll.h). */
static gboolean
check_coll_op(const char *text, GError **error)
{
    weft_coll_op_t op;
    if (weft_coll_op_from_name(text, &op)) {
        return TRUE;
    }
    GString *valid = g_string_new(NULL);
    for (guint i = 0; i < WEFT_COLL_N_OPS; i++) {
        g_string_append_printf(valid, "%s%s", i > 0 ? ", " : "",
                               weft_coll_op_name((weft_coll_op_t)i));
    }
    g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                "unknown collective; expected one of %s", valid->str);
    g_string_free(valid, TRUE);
    return FALSE;
}

static const char *const placement_choices[] = {"in-order", "round-robin", "random", "file", NULL};
static const char *const update_choices[] = {"incremental", "full", NULL};
static const char *const detail_choices[] = {"auto", "transfers", "coarse", NULL};
/* Forced collective choices (coll/tuning.h), like NCCL_ALGO and NCCL_PROTO. */
static const char *const algo_choices[] = {"auto",         "ring",    "tree",   "nvls",
                                           "nvls_tree",    "collnet", "direct", "halving_doubling",
                                           "hierarchical", NULL};
static const char *const proto_choices[] = {"auto", "ll", "ll128", "simple", NULL};
static const char *const cpu_choices[] = {"intel", "amd", "other", NULL};
static const char *const tuning_choices[] = {"auto", "off", "nccl", NULL};
/* What GKeyFile reads as a boolean (g_key_file_get_boolean). */
static const char *const bool_choices[] = {"true", "false", "1", "0", NULL};
static const char *const recompute_choices[] = {"none", "selective", "full", NULL};
static const char *const attention_choices[] = {"fused", "unfused", NULL};
static const char *const precision_choices[] = {"bf16", "fp8", NULL};
/* [transformer] keys: unset unless given (then the preset's or the generator's default). */
#define TF_INT(name, lo, what)                                                                     \
    {                                                                                              \
        "transformer", name, T_INTEGER, NULL, what, .imin = lo, .imax = G_MAXUINT32                \
    }
#define TF_CHOICE(name, what, list)                                                                \
    {                                                                                              \
        "transformer", name, T_CHOICE, NULL, what, list                                            \
    }
#define ALGO_KEY(op, what)                                                                         \
    {                                                                                              \
        "collectives", op "_algorithm", T_CHOICE, "auto",                                          \
            "algorithm of every " what ": auto (NCCL's tuning model) or forced (NCCL_ALGO)",       \
            algo_choices                                                                           \
    }
#define PROTO_KEY(op, what)                                                                        \
    {                                                                                              \
        "collectives", op "_protocol", T_CHOICE, "auto",                                           \
            "protocol of every " what ": auto (NCCL's tuning model) or forced (NCCL_PROTO)",       \
            proto_choices                                                                          \
    }

/* Indexes into keys[], in the table's (and the effective configuration's) order. */
enum {
    K_CLUSTER_FILE,
    K_TRACE,
    K_COMM_GROUPS,
    K_PLACEMENT,
    K_PLACEMENT_SEED,
    K_PLACEMENT_FILE,
    K_COLLECTIVE,
    K_COLL_BYTES,
    K_COLL_ITERATIONS,
    K_COLL_RANKS,
    K_TF_MODEL,
    K_TF_LAYERS,
    K_TF_HIDDEN,
    K_TF_HEADS,
    K_TF_KV_HEADS,
    K_TF_FFN,
    K_TF_VOCAB,
    K_TF_SEQ,
    K_TF_EXPERTS,
    K_TF_TOP_K,
    K_TF_GATED,
    K_TF_ATTENTION,
    K_TF_TP,
    K_TF_PP,
    K_TF_DP,
    K_TF_CP,
    K_TF_EP,
    K_TF_VPP,
    K_TF_SP,
    K_TF_DIST_OPT,
    K_TF_OVERLAP_DP,
    K_TF_MICRO_BATCH,
    K_TF_GLOBAL_BATCH,
    K_TF_RECOMPUTE,
    K_TF_PRECISION,
    K_TF_GPU,
    K_CHUNKS,
    K_TUNING,
    K_CHANNELS,
    K_CPU,
    K_AR_ALGO,
    K_AR_PROTO,
    K_AG_ALGO,
    K_AG_PROTO,
    K_RS_ALGO,
    K_RS_PROTO,
    K_A2A_ALGO,
    K_A2A_PROTO,
    K_BCAST_ALGO,
    K_BCAST_PROTO,
    K_REDUCE_ALGO,
    K_REDUCE_PROTO,
    K_DETAIL,
    K_MODEL,
    K_UPDATE,
    K_ECMP_SEED,
    K_DURATION_SCALE,
    K_FAULTS_FILE,
    K_FAULTS_EVENTS,
    K_OUTPUT_DIR,
    K_TIMELINE,
    K_TIMELINE_RANKS,
    K_TIMELINE_WINDOW,
    K_LINK_SERIES,
    N_KEYS
};

/*
 * The upper bound of collectives.chunks only guards against typos: a ring
 * all-reduce plan over n members has 2 (n - 1) n C transfers, so C = 2^20 on
 * 8 GPUs is already 117 million transfers per collective.
 */
#define MAX_CHUNKS (1 << 20)
/*
 * The upper bound of workload.collective_iterations guards against typos: each
 * rank keeps a communicator and a peer entry per iteration, so 10,000
 * iterations on 16,384 ranks are already 1.3 GB.
 */
#define MAX_COLL_ITERATIONS 10000

static const key_desc keys[N_KEYS] = {
    [K_CLUSTER_FILE] = {"cluster", "file", T_PATH, NULL,
                        "cluster file: weft INI, ASTRA-sim network YAML or GraphML; or describe "
                        "the cluster inline with the keys of an INI cluster file"},
    [K_TRACE] = {"workload", "trace", T_PATH, NULL,
                 "Chakra trace prefix (PREFIX.0.et, ...), text workload or generator spec; or "
                 "describe the workload with [transformer] or workload.collective"},
    [K_COMM_GROUPS] = {"workload", "comm_groups", T_PATH, NULL,
                       "communicator groups as JSON {\"1\": [0,1,...], ...} (optional)"},
    [K_PLACEMENT] = {"workload", "placement", T_CHOICE, "in-order",
                     "ranks to GPUs: in-order, round-robin (over nodes), random, file",
                     placement_choices},
    [K_PLACEMENT_SEED] = {"workload", "placement_seed", T_INTEGER, "1",
                          "seed of placement = random", .imin = 0, .imax = G_MAXINT64},
    [K_PLACEMENT_FILE] = {"workload", "placement_file", T_PATH, NULL,
                          "placement = file: one GPU (number or vertex name) per rank, per line"},
    [K_COLLECTIVE] = {"workload", "collective", T_CHOICE, NULL,
                      "instead of a trace, one collective: all_reduce, all_gather, "
                      "reduce_scatter, all_to_all, broadcast, reduce, ... (coll/coll.h)",
                      .check = check_coll_op},
    [K_COLL_BYTES] = {"workload", "collective_bytes", T_BYTES, NULL,
                      "its size with a unit, e.g. 64MiB: comm_size, as doc/collectives.md "
                      "defines it per operation; > 0 (a barrier takes none)",
                      .nmin = 0.0, .nmin_open = TRUE},
    [K_COLL_ITERATIONS] = {"workload", "collective_iterations", T_INTEGER, "1",
                           "times each rank runs the collective, each after the previous one",
                           .imin = 1, .imax = MAX_COLL_ITERATIONS},
    [K_COLL_RANKS] = {"workload", "collective_ranks", T_INTEGER, NULL,
                      "ranks taking part (ranks 0..N-1, placed as workload.placement says); "
                      "unset: every GPU of the cluster",
                      .imin = 1, .imax = G_MAXUINT32},
    [K_TF_MODEL] = {"transformer", "model", T_CHOICE, NULL,
                    "instead of a trace, generate a training step: a weft gen preset "
                    "(gpt3-175b, llama3.1-405b, ...) whose fields the keys below override",
                    .check = check_gen_model},
    [K_TF_LAYERS] = TF_INT("layers", 1, "transformer layers"),
    [K_TF_HIDDEN] = TF_INT("hidden", 1, "hidden size"),
    [K_TF_HEADS] = TF_INT("heads", 1, "attention heads"),
    [K_TF_KV_HEADS] = TF_INT("kv_heads", 1, "key-value heads (grouped-query attention)"),
    [K_TF_FFN] = TF_INT("ffn", 1, "MLP hidden size"),
    [K_TF_VOCAB] = TF_INT("vocab", 1, "vocabulary size"),
    [K_TF_SEQ] = TF_INT("seq", 1, "sequence length (tokens)"),
    [K_TF_EXPERTS] = TF_INT("experts", 0, "MoE experts (0 or 1: dense MLP)"),
    [K_TF_TOP_K] = TF_INT("top_k", 0, "experts per token"),
    [K_TF_GATED] =
        TF_CHOICE("gated", "SwiGLU MLP, 3 matrices (Llama, Mixtral): true or false", bool_choices),
    [K_TF_ATTENTION] = TF_CHOICE(
        "attention", "fused (flash attention) or unfused (Megatron-LM 2022)", attention_choices),
    [K_TF_TP] = TF_INT("tp", 1, "tensor-parallel size (default 1)"),
    [K_TF_PP] = TF_INT("pp", 1, "pipeline-parallel size (default 1)"),
    [K_TF_DP] = TF_INT("dp", 1, "data-parallel size; unset: the cluster's GPUs / (tp x pp x cp)"),
    [K_TF_CP] = TF_INT("cp", 1, "context-parallel size (default 1)"),
    [K_TF_EP] = TF_INT("ep", 1, "expert-parallel size, inside dp (default 1)"),
    [K_TF_VPP] = TF_INT("vpp", 1, "virtual pipeline stages per rank (default 1: 1F1B)"),
    [K_TF_SP] = TF_CHOICE("sp", "sequence parallelism (with tp > 1): true or false", bool_choices),
    [K_TF_DIST_OPT] = TF_CHOICE("dist_opt",
                                "distributed optimizer (reduce-scatter + all-gather): true or "
                                "false",
                                bool_choices),
    [K_TF_OVERLAP_DP] = TF_CHOICE("overlap_dp",
                                  "overlap gradient reduction and parameter gathering with "
                                  "compute (presets: true)",
                                  bool_choices),
    [K_TF_MICRO_BATCH] = TF_INT("micro_batch", 1, "sequences per micro-batch (default 1)"),
    [K_TF_GLOBAL_BATCH] = TF_INT("global_batch", 1, "sequences per step; unset: micro_batch x dp"),
    [K_TF_RECOMPUTE] = TF_CHOICE("recompute", "activation recomputation: none, selective, full",
                                 recompute_choices),
    [K_TF_PRECISION] =
        TF_CHOICE("precision", "GEMM precision: bf16 (default) or fp8", precision_choices),
    [K_TF_GPU] = {"transformer", "gpu", T_CHOICE, NULL,
                  "GPU model of the compute times (hw catalog); unset: h100", .check = check_gpu},
    [K_CHUNKS] = {"collectives", "chunks", T_INTEGER, NULL,
                  "pipeline chunks per collective (1 to 1048576); unset: NCCL's choice under "
                  "tuning = nccl, 1 under tuning = off; given, it forces NCCL's choice",
                  .imin = 1, .imax = MAX_CHUNKS},
    [K_TUNING] =
        {"collectives", "tuning", T_CHOICE, "auto",
         "nccl: every collective runs as NCCL's tuning model chooses (algorithm, protocol, "
         "channels, chunks; doc/collectives.md); off: one ring (direct for all-to-all) "
         "with collectives.chunks and no protocol costs (the closed-form model); auto: nccl "
         "on clusters with NVLink or NICs, off on abstract ones (ASTRA-sim networks, rings, "
         "tori of bare GPUs), where NCCL's tables do not apply",
         tuning_choices},
    [K_CHANNELS] =
        {"collectives", "channels", T_INTEGER, "0",
         "channels per collective: 0 = as NCCL's tuning chooses (NCCL_MIN/MAX_NCHANNELS)",
         .imin = 0, .imax = 64},
    [K_CPU] = {"collectives", "cpu", T_CHOICE, "intel",
               "host CPU vendor, for NCCL's network overheads (AWS p5: amd)", cpu_choices},
    [K_AR_ALGO] = ALGO_KEY("all_reduce", "all-reduce (and barrier)"),
    [K_AR_PROTO] = PROTO_KEY("all_reduce", "all-reduce (and barrier)"),
    [K_AG_ALGO] = ALGO_KEY("all_gather", "all-gather"),
    [K_AG_PROTO] = PROTO_KEY("all_gather", "all-gather"),
    [K_RS_ALGO] = ALGO_KEY("reduce_scatter", "reduce-scatter"),
    [K_RS_PROTO] = PROTO_KEY("reduce_scatter", "reduce-scatter"),
    [K_A2A_ALGO] = ALGO_KEY("alltoall", "all-to-all (and gather, scatter)"),
    [K_A2A_PROTO] = PROTO_KEY("alltoall", "all-to-all (and gather, scatter)"),
    [K_BCAST_ALGO] = ALGO_KEY("broadcast", "broadcast"),
    [K_BCAST_PROTO] = PROTO_KEY("broadcast", "broadcast"),
    [K_REDUCE_ALGO] = ALGO_KEY("reduce", "reduce"),
    [K_REDUCE_PROTO] = PROTO_KEY("reduce", "reduce"),
    [K_DETAIL] = {"collectives", "detail", T_CHOICE, "auto",
                  "auto: a collective whose links provably carry nothing else while it runs "
                  "takes one event of its plan's isolated time, measured once per shape (the "
                  "same times and link statistics, far fewer events; faults and link time "
                  "series run every transfer); transfers: simulate every transfer; coarse: "
                  "auto, and under flow a large ring collective that cannot be timed exactly "
                  "runs as one aggregate flow (approximate: doc/replay.md)",
                  detail_choices},
    [K_MODEL] = {"network", "model", T_CHOICE, "analytical",
                 "network model: analytical (latency + size / bottleneck bandwidth) or flow "
                 "(links shared max-min fairly)",
                 .check = check_network_model},
    [K_UPDATE] = {"network", "update", T_CHOICE, "incremental",
                  "flow model: re-solve only the transfers sharing links with a change "
                  "(incremental) or all of them (full, slow, to check incremental)",
                  update_choices},
    [K_ECMP_SEED] = {"network", "ecmp_seed", T_INTEGER, "0",
                     "seed mixed into the ECMP hash that picks among equal-cost paths", .imin = 0,
                     .imax = G_MAXINT64},
    [K_DURATION_SCALE] = {"compute", "duration_scale", T_NUMBER, "1",
                          "multiplies every trace duration (0.5 = compute twice as fast); > 0",
                          .nmin = 0.0, .nmax = G_MAXDOUBLE, .nmin_open = TRUE},
    [K_FAULTS_FILE] = {"faults", "file", T_PATH, NULL,
                       "fault schedule of the step: one fault per line, `TIME KIND TARGET ...` "
                       "(doc/failures.md); unset: none"},
    [K_FAULTS_EVENTS] = {"faults", "events", T_CHOICE, NULL,
                         "faults inline, as lines of a fault file separated by ';', e.g. "
                         "`1ms link_down leaf0 spine0; 2ms link_up leaf0 spine0`; unset: none",
                         .check = check_fault_events},
    [K_OUTPUT_DIR] = {"output", "dir", T_PATH, NULL,
                      "directory for scenario.ini, ranks.csv and summary.txt (created if "
                      "missing), and with weft replay summary.json, collectives.csv, links.csv "
                      "(doc/outputs.md); unset: print only"},
    [K_TIMELINE] = {"output", "timeline", T_PATH, NULL,
                    "Chrome trace event JSON of the run (Perfetto, chrome://tracing); unset: none"},
    [K_TIMELINE_RANKS] = {"output", "timeline_ranks", T_CHOICE, NULL,
                          "ranks kept in the timeline, e.g. 0-7,12; unset: all",
                          .check = check_timeline_ranks},
    [K_TIMELINE_WINDOW] = {"output", "timeline_window", T_CHOICE, NULL,
                           "keep timeline nodes overlapping START:END, e.g. 1ms:3ms; unset: all",
                           .check = check_timeline_window},
    [K_LINK_SERIES] = {"output", "link_series", T_CHOICE, NULL,
                       "sample link utilization every INTERVAL (flow model): "
                       "links_timeseries.csv and timeline counters; unset: none",
                       .check = check_link_series},
};

/* The groups, in the order they are written: that of keys[], with [faults] before [output]. */
static const char *const groups[] = {"cluster", "workload", "transformer", "collectives", "network",
                                     "compute", "faults",   "output",      NULL};

/* ---- the scenario ----------------------------------------------------------------------- */

typedef enum {
    CLUSTER_FILE_INI,
    CLUSTER_FILE_YAML,
    CLUSTER_FILE_GRAPHML,
} cluster_format;

typedef struct {
    char *key;
    char *value;
} kv_pair;

static void
kv_pair_free(gpointer p)
{
    kv_pair *kv = p;
    g_free(kv->key);
    g_free(kv->value);
    g_free(kv);
}

struct weft_scenario {
    char *value[N_KEYS];     /* final text (paths absolute); NULL: the default */
    char *given[N_KEYS];     /* for the report: as typed on the command line; NULL: the default */
    GPtrArray *cluster_own;  /* kv_pair: [cluster] keys of the scenario and --set, in order */
    GPtrArray *cluster_file; /* kv_pair: [cluster] keys of the INI cluster file */
    cluster_format format;   /* of cluster.file, when set */
    char *source;            /* the last scenario file loaded, for messages; NULL: none */
};

weft_scenario_t *
weft_scenario_new(void)
{
    weft_scenario_t *sc = g_new0(weft_scenario_t, 1);
    sc->cluster_own = g_ptr_array_new_with_free_func(kv_pair_free);
    sc->cluster_file = g_ptr_array_new_with_free_func(kv_pair_free);
    return sc;
}

void
weft_scenario_free(weft_scenario_t *sc)
{
    if (sc == NULL) {
        return;
    }
    for (guint i = 0; i < N_KEYS; i++) {
        g_free(sc->value[i]);
        g_free(sc->given[i]);
    }
    g_ptr_array_unref(sc->cluster_own);
    g_ptr_array_unref(sc->cluster_file);
    g_free(sc->source);
    g_free(sc);
}

static gint
find_key(const char *group, const char *key)
{
    for (guint i = 0; i < N_KEYS; i++) {
        if (strcmp(keys[i].group, group) == 0 && strcmp(keys[i].key, key) == 0) {
            return (gint)i;
        }
    }
    return -1;
}

static kv_pair *
find_pair(GPtrArray *pairs, const char *key)
{
    for (guint i = 0; i < pairs->len; i++) {
        kv_pair *kv = g_ptr_array_index(pairs, i);
        if (strcmp(kv->key, key) == 0) {
            return kv;
        }
    }
    return NULL;
}

static void
set_pair(GPtrArray *pairs, const char *key, const char *value)
{
    kv_pair *kv = find_pair(pairs, key);
    if (kv == NULL) {
        kv = g_new0(kv_pair, 1);
        kv->key = g_strdup(key);
        g_ptr_array_add(pairs, kv);
    }
    g_free(kv->value);
    kv->value = g_strdup(value);
}

static const char *
current(const weft_scenario_t *sc, guint k)
{
    return sc->value[k] != NULL ? sc->value[k] : keys[k].dflt;
}

static char *
valid_groups_text(void)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; groups[i] != NULL; i++) {
        g_string_append_printf(s, "%s[%s]", i > 0 ? ", " : "", groups[i]);
    }
    return g_string_free(s, FALSE);
}

static char *
valid_keys_text(const char *group)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < N_KEYS; i++) {
        if (strcmp(keys[i].group, group) == 0) {
            g_string_append_printf(s, "%s%s", s->len > 0 ? ", " : "", keys[i].key);
        }
    }
    return g_string_free(s, FALSE);
}

static char *
choices_text(const char *const *choices)
{
    g_autofree char *joined = g_strjoinv(", ", (char **)choices);
    return g_strdup(joined);
}

/* A GKeyFile key name: what GKeyFile itself accepts, minus the odd characters. */
static gboolean
is_key_name(const char *key)
{
    if (key[0] == '\0') {
        return FALSE;
    }
    for (const char *p = key; *p != '\0'; p++) {
        if (!g_ascii_isalnum(*p) && *p != '_' && *p != '-' && *p != '.') {
            return FALSE;
        }
    }
    return TRUE;
}

/* ---- cluster files ------------------------------------------------------------------------- */

/*
 * The format of a cluster file, chosen as weft_topo_load() chooses it: *.yml,
 * *.yaml or a first significant line "topology:" is ASTRA-sim YAML; *.graphml,
 * *.xml or a first significant character '<' is GraphML; all else is INI.
 */
static cluster_format
detect_format(const char *path, const char *text)
{
    if (g_str_has_suffix(path, ".yml") || g_str_has_suffix(path, ".yaml")) {
        return CLUSTER_FILE_YAML;
    }
    if (g_str_has_suffix(path, ".graphml") || g_str_has_suffix(path, ".xml")) {
        return CLUSTER_FILE_GRAPHML;
    }
    const char *s = text;
    while (*s != '\0') {
        while (g_ascii_isspace(*s)) {
            s++;
        }
        if (*s == '#' || *s == ';') {
            s = strchr(s, '\n');
            if (s == NULL) {
                break;
            }
            continue;
        }
        if (*s == '<') {
            return CLUSTER_FILE_GRAPHML;
        }
        if (g_str_has_prefix(s, "topology:")) {
            return CLUSTER_FILE_YAML;
        }
        break;
    }
    return CLUSTER_FILE_INI;
}

/* Reads the cluster file @path: its format and, for INI, its [cluster] keys into @pairs. */
static gboolean
read_cluster_file(const char *path, cluster_format *format, GPtrArray *pairs, GError **error)
{
    g_autofree char *text = NULL;
    g_autoptr(GError) ioerr = NULL;
    if (!g_file_get_contents(path, &text, NULL, &ioerr)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO,
                    "cluster.file = \"%s\": cannot read: %s", path, ioerr->message);
        return FALSE;
    }
    *format = detect_format(path, text);
    g_ptr_array_set_size(pairs, 0);
    if (*format != CLUSTER_FILE_INI) {
        return TRUE;
    }
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) kerr = NULL;
    if (!weft_keyfile_load_data(kf, text, path, &kerr)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_PARSE,
                    "cluster.file = \"%s\": not a valid INI cluster file: %s", path, kerr->message);
        return FALSE;
    }
    g_auto(GStrv) kf_groups = g_key_file_get_groups(kf, NULL);
    for (guint i = 0; kf_groups[i] != NULL; i++) {
        if (strcmp(kf_groups[i], "cluster") != 0) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                        "cluster.file = \"%s\": unknown group [%s]; valid groups: [cluster]", path,
                        kf_groups[i]);
            return FALSE;
        }
    }
    if (!g_key_file_has_group(kf, "cluster")) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "cluster.file = \"%s\": missing group [cluster]", path);
        return FALSE;
    }
    g_auto(GStrv) names = g_key_file_get_keys(kf, "cluster", NULL, NULL);
    for (guint i = 0; names[i] != NULL; i++) {
        g_autofree char *v = g_key_file_get_value(kf, "cluster", names[i], NULL);
        set_pair(pairs, names[i], g_strstrip(v));
    }
    return TRUE;
}

/* ---- setting values ------------------------------------------------------------------------- */

/* Checks @text against key @k; on success *@out is the text to store (NULL: unset). */
static gboolean
check_value(guint k, const char *text, const char *base_dir, char **out, GError **error)
{
    const key_desc *d = &keys[k];
    g_autoptr(GError) err = NULL;
    *out = NULL;
    if (text[0] == '\0' && d->dflt == NULL) {
        return TRUE; /* "key =" in an effective configuration: a key without default, unset */
    }
    switch (d->type) {
    case T_PATH:
        if (text[0] != '\0') {
            *out = g_canonicalize_filename(text, base_dir);
        }
        return TRUE;
    case T_STRING:
        *out = g_strdup(text);
        return TRUE;
    case T_CHOICE:
        if (d->check != NULL) {
            if (!d->check(text, &err)) {
                g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                            "%s.%s = \"%s\": %s", d->group, d->key, text, err->message);
                return FALSE;
            }
        } else if (!g_strv_contains(d->choices, text)) {
            g_autofree char *valid = choices_text(d->choices);
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "%s.%s = \"%s\": expected one of %s", d->group, d->key, text, valid);
            return FALSE;
        }
        *out = g_strdup(text);
        return TRUE;
    case T_INTEGER: {
        gint64 v = 0;
        if (!g_ascii_string_to_signed(text, 10, d->imin, d->imax, &v, &err)) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "%s.%s = \"%s\": expected a whole number from %" G_GINT64_FORMAT
                        " to %" G_GINT64_FORMAT,
                        d->group, d->key, text, d->imin, d->imax);
            return FALSE;
        }
        *out = g_strdup_printf("%" G_GINT64_FORMAT, v);
        return TRUE;
    }
    case T_NUMBER: {
        char *end = NULL;
        errno = 0;
        double v = g_ascii_strtod(text, &end);
        if (text[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v)) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "%s.%s = \"%s\": expected a number", d->group, d->key, text);
            return FALSE;
        }
        if ((d->nmin_open ? v <= d->nmin : v < d->nmin) || v > d->nmax) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "%s.%s = \"%s\": must be %s %g", d->group, d->key, text,
                        d->nmin_open ? ">" : ">=", d->nmin);
            return FALSE;
        }
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        *out = g_strdup(g_ascii_dtostr(buf, sizeof buf, v));
        return TRUE;
    }
    case T_RATE:
    case T_TIME:
    case T_BYTES: {
        const char *what = d->type == T_RATE ? "rate" : (d->type == T_TIME ? "time" : "bytes");
        double v = 0.0;
        if (!weft_scenario_i_parse_quantity(what, text, &v, &err)) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE, "%s.%s = \"%s\": %s",
                        d->group, d->key, text, err->message);
            return FALSE;
        }
        if (d->nmin_open && v <= d->nmin) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "%s.%s = \"%s\": must be > %g", d->group, d->key, text, d->nmin);
            return FALSE;
        }
        *out = g_strdup(text);
        return TRUE;
    }
    }
    g_assert_not_reached();
}

gboolean
weft_scenario_i_parse_quantity(const char *type, const char *text, double *value, GError **error)
{
    g_return_val_if_fail(type != NULL && text != NULL && value != NULL, FALSE);
    g_autoptr(GError) uerr = NULL;
    gboolean ok = FALSE;
    if (strcmp(type, "rate") == 0) {
        ok = weft_units_parse_rate(text, value, &uerr);
    } else if (strcmp(type, "time") == 0) {
        weft_time_t ps = 0;
        ok = weft_units_parse_time(text, &ps, &uerr);
        *value = (double)ps;
    } else if (strcmp(type, "bytes") == 0) {
        guint64 b = 0;
        ok = weft_units_parse_bytes(text, &b, &uerr);
        *value = (double)b;
    } else {
        g_return_val_if_reached(FALSE);
    }
    if (!ok) {
        g_set_error_literal(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE, uerr->message);
    }
    return ok;
}

/*
 * Sets group.key = @value; relative paths resolve against @base_dir (NULL: the
 * working directory). Messages are prefixed by the caller.
 */
static gboolean
set_internal(weft_scenario_t *sc, const char *group, const char *key, const char *value,
             const char *base_dir, GError **error)
{
    if (!g_strv_contains(groups, group)) {
        g_autofree char *valid = valid_groups_text();
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "unknown group [%s]; valid groups: %s", group, valid);
        return FALSE;
    }
    if (!is_key_name(key)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_PARSE,
                    "[%s] \"%s\" is not a key name (letters, digits, '_', '-', '.')", group, key);
        return FALSE;
    }
    if (strchr(value, '\n') != NULL || strchr(value, '\r') != NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                    "%s.%s: a value is one line of text", group, key);
        return FALSE;
    }
    g_autofree char *text = g_strstrip(g_strdup(value));
    gint k = find_key(group, key);
    if (k < 0 && strcmp(group, "cluster") == 0) {
        /* A cluster builder key: the builders check it when the cluster is built. */
        set_pair(sc->cluster_own, key, text);
        return TRUE;
    }
    if (k < 0) {
        g_autofree char *valid = valid_keys_text(group);
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "unknown key %s.%s; valid keys of [%s]: %s", group, key, group, valid);
        return FALSE;
    }
    char *checked = NULL;
    if (!check_value((guint)k, text, base_dir, &checked, error)) {
        return FALSE;
    }
    g_autofree char *stored = checked;
    if (k == K_CLUSTER_FILE) {
        g_autoptr(GPtrArray) pairs = g_ptr_array_new_with_free_func(kv_pair_free);
        cluster_format format = CLUSTER_FILE_INI;
        if (stored != NULL && !read_cluster_file(stored, &format, pairs, error)) {
            return FALSE;
        }
        g_ptr_array_unref(sc->cluster_file);
        sc->cluster_file = g_steal_pointer(&pairs);
        sc->format = format;
    }
    g_free(sc->value[k]);
    sc->value[k] = g_steal_pointer(&stored);
    /* The report shows a path as typed on the command line (relative to the
     * working directory), and absolute when it came from a scenario file. */
    g_free(sc->given[k]);
    sc->given[k] = sc->value[k] == NULL ? NULL
                   : base_dir == NULL   ? g_strdup(text)
                                        : g_strdup(sc->value[k]);
    return TRUE;
}

void
weft_scenario_unset(weft_scenario_t *sc, const char *group, const char *key)
{
    g_return_if_fail(sc != NULL && group != NULL && key != NULL);
    gint k = find_key(group, key);
    g_return_if_fail(k >= 0);
    g_clear_pointer(&sc->value[k], g_free);
    g_clear_pointer(&sc->given[k], g_free);
}

gboolean
weft_scenario_set_value(weft_scenario_t *sc, const char *group, const char *key, const char *value,
                        GError **error)
{
    g_return_val_if_fail(sc != NULL && group != NULL && key != NULL && value != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    return set_internal(sc, group, key, value, NULL, error);
}

gboolean
weft_scenario_set(weft_scenario_t *sc, const char *assignment, GError **error)
{
    g_return_val_if_fail(sc != NULL && assignment != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    const char *eq = strchr(assignment, '=');
    g_autofree char *lhs = eq != NULL ? g_strndup(assignment, (gsize)(eq - assignment)) : NULL;
    char *dot = lhs != NULL ? strchr(g_strstrip(lhs), '.') : NULL;
    if (dot == NULL || dot == lhs || dot[1] == '\0') {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_PARSE,
                    "\"%s\": expected group.key=value", assignment);
        return FALSE;
    }
    *dot = '\0';
    if (!set_internal(sc, lhs, dot + 1, eq + 1, NULL, error)) {
        g_prefix_error(error, "--set %s: ", assignment);
        return FALSE;
    }
    return TRUE;
}

gboolean
weft_scenario_load(weft_scenario_t *sc, const char *path, GError **error)
{
    g_return_val_if_fail(sc != NULL && path != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) kerr = NULL;
    if (!weft_keyfile_load_file(kf, path, &kerr)) {
        gint code =
            kerr->domain == G_FILE_ERROR ? WEFT_SCENARIO_ERROR_IO : WEFT_SCENARIO_ERROR_PARSE;
        if (g_str_has_prefix(kerr->message, path)) {
            g_set_error_literal(error, WEFT_SCENARIO_ERROR, code, kerr->message);
        } else {
            g_set_error(error, WEFT_SCENARIO_ERROR, code, "%s: %s", path, kerr->message);
        }
        return FALSE;
    }
    g_autofree char *abs = g_canonicalize_filename(path, NULL);
    g_autofree char *dir = g_path_get_dirname(abs);
    g_auto(GStrv) kf_groups = g_key_file_get_groups(kf, NULL);
    for (guint i = 0; kf_groups[i] != NULL; i++) {
        g_auto(GStrv) names = g_key_file_get_keys(kf, kf_groups[i], NULL, NULL);
        if (!g_strv_contains(groups, kf_groups[i])) {
            g_autofree char *valid = valid_groups_text();
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                        "%s: unknown group [%s]; valid groups: %s", path, kf_groups[i], valid);
            return FALSE;
        }
        for (guint j = 0; names != NULL && names[j] != NULL; j++) {
            g_autofree char *v = g_key_file_get_value(kf, kf_groups[i], names[j], NULL);
            if (!set_internal(sc, kf_groups[i], names[j], v, dir, error)) {
                g_prefix_error(error, "%s: ", path);
                return FALSE;
            }
        }
    }
    g_free(sc->source);
    sc->source = g_strdup(path);
    return TRUE;
}

const char *
weft_scenario_get(const weft_scenario_t *sc, const char *group, const char *key)
{
    g_return_val_if_fail(sc != NULL && group != NULL && key != NULL, NULL);
    gint k = find_key(group, key);
    if (k >= 0) {
        return current(sc, (guint)k);
    }
    if (strcmp(group, "cluster") != 0) {
        return NULL;
    }
    kv_pair *kv = find_pair(sc->cluster_own, key);
    if (kv == NULL) {
        kv = find_pair(sc->cluster_file, key);
    }
    return kv != NULL ? kv->value : NULL;
}

/* The [cluster] keys the builders get: the file's, in its order, with the scenario's on top. */
static GPtrArray *
merged_cluster_keys(const weft_scenario_t *sc)
{
    GPtrArray *merged = g_ptr_array_new_with_free_func(kv_pair_free);
    for (guint i = 0; i < sc->cluster_file->len; i++) {
        kv_pair *kv = g_ptr_array_index(sc->cluster_file, i);
        set_pair(merged, kv->key, kv->value);
    }
    for (guint i = 0; i < sc->cluster_own->len; i++) {
        kv_pair *kv = g_ptr_array_index(sc->cluster_own, i);
        set_pair(merged, kv->key, kv->value);
    }
    return merged;
}

char *
weft_scenario_to_ini(const weft_scenario_t *sc)
{
    g_return_val_if_fail(sc != NULL, NULL);
    GString *s = g_string_new(NULL);
    g_string_append_printf(s,
                           "# weft %s: effective scenario configuration. Every key with its final "
                           "value,\n# defaults included; `weft replay THIS_FILE` runs it again.\n",
                           PACKAGE_VERSION);
    for (guint g = 0; groups[g] != NULL; g++) {
        const char *group = groups[g];
        g_string_append_printf(s, "\n[%s]\n", group);
        for (guint k = 0; k < N_KEYS; k++) {
            if (strcmp(keys[k].group, group) != 0) {
                continue;
            }
            const char *v = current(sc, k);
            g_string_append_printf(s, "# %s\n%s =%s%s\n", keys[k].doc, keys[k].key,
                                   v != NULL ? " " : "", v != NULL ? v : "");
        }
        if (strcmp(group, "cluster") == 0) {
            g_autoptr(GPtrArray) merged = merged_cluster_keys(sc);
            if (merged->len > 0) {
                g_string_append(s, "# cluster description (the file's keys, then overrides)\n");
            }
            for (guint i = 0; i < merged->len; i++) {
                kv_pair *kv = g_ptr_array_index(merged, i);
                g_string_append_printf(s, "%s = %s\n", kv->key, kv->value);
            }
        }
    }
    return g_string_free(s, FALSE);
}

/* The first [transformer] key that is set, or -1: any of them asks for a generated step. */
static gint
first_transformer_key(const weft_scenario_t *sc)
{
    for (guint k = 0; k < N_KEYS; k++) {
        if (strcmp(keys[k].group, "transformer") == 0 && sc->value[k] != NULL) {
            return (gint)k;
        }
    }
    return -1;
}

gboolean
weft_scenario_has_workload(const weft_scenario_t *sc)
{
    g_return_val_if_fail(sc != NULL, FALSE);
    return current(sc, K_TRACE) != NULL || current(sc, K_COLLECTIVE) != NULL ||
           first_transformer_key(sc) >= 0;
}

/* The workload's cross-key checks: exactly one of trace, [transformer], collective. */
static gboolean
check_workload_keys(const weft_scenario_t *sc, const char *where, GError **error)
{
    const char *trace = current(sc, K_TRACE);
    const char *coll = current(sc, K_COLLECTIVE);
    gint tf = first_transformer_key(sc);
    if (trace == NULL && coll == NULL && tf < 0) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: no workload: set workload.trace (the Chakra trace prefix), the "
                    "[transformer] keys (model = ...) or workload.collective",
                    where);
        return FALSE;
    }
    if (tf >= 0 && (trace != NULL || coll != NULL)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: transformer.%s = \"%s\" and workload.%s = \"%s\" both describe the "
                    "workload: keep one",
                    where, keys[tf].key, sc->value[tf], trace != NULL ? "trace" : "collective",
                    trace != NULL ? trace : coll);
        return FALSE;
    }
    if (trace != NULL && coll != NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: workload.trace = \"%s\" and workload.collective = \"%s\" both describe "
                    "the workload: keep one",
                    where, trace, coll);
        return FALSE;
    }
    if (trace == NULL && current(sc, K_COMM_GROUPS) != NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: workload.comm_groups = \"%s\" is for a trace (workload.trace); a "
                    "generated workload makes its own groups",
                    where, current(sc, K_COMM_GROUPS));
        return FALSE;
    }
    /* (a saved configuration writes every default: collective_iterations = 1 is no request) */
    static const guint coll_keys[] = {K_COLL_BYTES, K_COLL_ITERATIONS, K_COLL_RANKS};
    for (guint i = 0; coll == NULL && i < G_N_ELEMENTS(coll_keys); i++) {
        guint k = coll_keys[i];
        if (sc->value[k] != NULL && g_strcmp0(sc->value[k], keys[k].dflt) != 0) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                        "%s: workload.%s = \"%s\" without workload.collective", where, keys[k].key,
                        sc->value[k]);
            return FALSE;
        }
    }
    weft_coll_op_t op = WEFT_COLL_ALL_REDUCE;
    if (coll != NULL && weft_coll_op_from_name(coll, &op) && op != WEFT_COLL_BARRIER &&
        current(sc, K_COLL_BYTES) == NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: workload.collective = \"%s\" needs workload.collective_bytes (its "
                    "size, e.g. 64MiB)",
                    where, coll);
        return FALSE;
    }
    return TRUE;
}

gboolean
weft_scenario_check(const weft_scenario_t *sc, GError **error)
{
    g_return_val_if_fail(sc != NULL, FALSE);
    const char *where = sc->source != NULL ? sc->source : "scenario";
    if (!check_workload_keys(sc, where, error)) {
        return FALSE;
    }
    if (current(sc, K_CLUSTER_FILE) == NULL && sc->cluster_own->len == 0) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: no cluster: set cluster.file or describe the cluster inline in "
                    "[cluster] (kind = ...)",
                    where);
        return FALSE;
    }
    if (current(sc, K_CLUSTER_FILE) != NULL && sc->format != CLUSTER_FILE_INI &&
        sc->cluster_own->len > 0) {
        kv_pair *kv = g_ptr_array_index(sc->cluster_own, 0);
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: cluster.%s = \"%s\": cluster.file \"%s\" is %s, which takes no other "
                    "[cluster] key; valid keys: file",
                    where, kv->key, kv->value, current(sc, K_CLUSTER_FILE),
                    sc->format == CLUSTER_FILE_YAML ? "ASTRA-sim YAML" : "GraphML");
        return FALSE;
    }
    if (strcmp(current(sc, K_PLACEMENT), "file") == 0 && current(sc, K_PLACEMENT_FILE) == NULL) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_KEY,
                    "%s: workload.placement = file needs workload.placement_file", where);
        return FALSE;
    }
    return TRUE;
}

/* ---- running ----------------------------------------------------------------------------------
 */

static gint64
get_int(const weft_scenario_t *sc, guint k)
{
    gint64 v = 0;
    gboolean ok = g_ascii_string_to_signed(current(sc, k), 10, G_MININT64, G_MAXINT64, &v, NULL);
    g_assert(ok); /* checked when set */
    return v;
}

/* Creates @dir if missing and proves it writable by creating and removing a file in it;
 * errors name output.@key = "@value". */
static gboolean
prepare_output_dir_for(const char *dir, const char *key, const char *value, GError **error)
{
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        int e = errno;
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO,
                    "output.%s = \"%s\": cannot create %s: %s", key, value, dir, g_strerror(e));
        return FALSE;
    }
    g_autofree char *probe = g_build_filename(dir, ".weft-probe-XXXXXX", NULL);
    int fd = g_mkstemp(probe);
    if (fd < 0) {
        int e = errno;
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO,
                    "output.%s = \"%s\": %s is not writable: %s", key, value, dir, g_strerror(e));
        return FALSE;
    }
    close(fd);
    g_unlink(probe);
    return TRUE;
}

static gboolean
prepare_output_dir(const char *dir, GError **error)
{
    return prepare_output_dir_for(dir, "dir", dir, error);
}

static gboolean
write_output(const char *dir, const char *name, const char *text, GError **error)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autoptr(GError) ioerr = NULL;
    /* GLib writes to a temporary file in the same directory, then renames it. */
    if (!g_file_set_contents_full(path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &ioerr)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO, "%s: cannot write: %s",
                    path, ioerr->message);
        return FALSE;
    }
    return TRUE;
}

/*
 * Turns a cluster builder's error into a scenario error that names the scenario
 * and [cluster]: unknown keys and kinds become WEFT_SCENARIO_ERROR_KEY, values
 * that do not parse or are out of range WEFT_SCENARIO_ERROR_VALUE, unreadable
 * files WEFT_SCENARIO_ERROR_IO; anything else (an invalid graph) keeps its
 * WEFT_TOPO_ERROR code.
 */
static void
cluster_error(GError **error, GError *terr, const char *where)
{
    gint code = -1;
    if (terr->domain == WEFT_TOPO_ERROR) {
        switch (terr->code) {
        case WEFT_TOPO_ERROR_KEY:
            code = WEFT_SCENARIO_ERROR_KEY;
            break;
        case WEFT_TOPO_ERROR_PARSE:
        case WEFT_TOPO_ERROR_VALUE:
            code = WEFT_SCENARIO_ERROR_VALUE;
            break;
        case WEFT_TOPO_ERROR_IO:
            code = WEFT_SCENARIO_ERROR_IO;
            break;
        default:
            break;
        }
    }
    g_autofree char *prefix = where != NULL ? g_strdup_printf("scenario %s: [cluster]: ", where)
                                            : g_strdup("[cluster]: ");
    if (code < 0) {
        g_propagate_prefixed_error(error, terr, "%s", prefix);
        return;
    }
    g_set_error(error, WEFT_SCENARIO_ERROR, code, "%s%s", prefix, terr->message);
    g_error_free(terr);
}

weft_topo_t *
weft_scenario_build_cluster(const weft_scenario_t *sc, GError **error)
{
    g_return_val_if_fail(sc != NULL, NULL);
    const char *where = sc->source;
    const char *file = current(sc, K_CLUSTER_FILE);
    GError *terr = NULL;
    weft_topo_t *topo = NULL;
    if (file != NULL && sc->format == CLUSTER_FILE_YAML) {
        topo = weft_topo_load_astra_yaml(file, &terr);
    } else if (file != NULL && sc->format == CLUSTER_FILE_GRAPHML) {
        topo = weft_topo_load_graphml(file, &terr);
    } else {
        g_autoptr(GKeyFile) kf = g_key_file_new();
        g_autoptr(GPtrArray) merged = merged_cluster_keys(sc);
        for (guint i = 0; i < merged->len; i++) {
            kv_pair *kv = g_ptr_array_index(merged, i);
            g_key_file_set_value(kf, "cluster", kv->key, kv->value);
        }
        const char *origin = file != NULL ? file : (where != NULL ? where : "scenario");
        topo = weft_topo_load_keyfile(kf, "cluster", origin, &terr);
    }
    if (topo == NULL) {
        cluster_error(error, terr, where);
        return NULL;
    }
    g_debug("cluster %s built: %u GPUs, %u vertices, %u links", weft_topo_name(topo),
            weft_topo_n_gpus(topo), weft_topo_n_vertices(topo), weft_topo_n_edges(topo) / 2);
    return topo;
}

static char *
placement_text(const weft_scenario_t *sc)
{
    const char *p = current(sc, K_PLACEMENT);
    if (strcmp(p, "random") == 0) {
        return g_strdup_printf("random (seed %s)", current(sc, K_PLACEMENT_SEED));
    }
    if (strcmp(p, "file") == 0) {
        return g_strdup_printf("file %s", current(sc, K_PLACEMENT_FILE));
    }
    return g_strdup(p);
}

static char *
ranks_csv(const weft_scenario_run_t *run)
{
    GString *s = g_string_new("rank,gpu,finish_us,compute_us,exposed_comm_us,idle_us\n");
    const weft_replay_result_t *res = run->replay;
    for (guint r = 0; r < res->n_ranks; r++) {
        const weft_rank_result_t *rr = &res->ranks[r];
        g_string_append_printf(s, "%u,%u,%.6f,%.6f,%.6f,%.6f\n", r, run->rank_gpu[r],
                               weft_time_to_us(rr->finish_ps), weft_time_to_us(rr->compute_ps),
                               weft_time_to_us(rr->exposed_comm_ps), weft_time_to_us(rr->idle_ps));
    }
    return g_string_free(s, FALSE);
}

/* Rank rows the summary prints when a report gives the distribution instead. */
#define SUMMARY_MAX_RANK_ROWS 64

char *
weft_scenario_run_summary(const weft_scenario_run_t *run)
{
    g_return_val_if_fail(run != NULL, NULL);
    const weft_replay_result_t *res = run->replay;
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "cluster      %s (%u GPUs, %u vertices, %u directed links)\n",
                           run->cluster_label, weft_topo_n_gpus(run->topo),
                           weft_topo_n_vertices(run->topo), weft_topo_n_edges(run->topo));
    g_string_append_printf(s, "workload     %s (%u rank%s, %" G_GUINT64_FORMAT " nodes)\n",
                           run->trace_label, run->workload->n_ranks,
                           run->workload->n_ranks == 1 ? "" : "s",
                           weft_workload_node_count(run->workload));
    g_string_append_printf(s, "placement    %s\n", run->placement);
    if (run->nccl_tuning && !run->chunks_given) {
        g_string_append_printf(s,
                               "network      %s, chunks per collective as NCCL's tuning chooses\n",
                               run->network_model);
    } else {
        g_string_append_printf(s, "network      %s, %u chunk(s) per collective%s\n",
                               run->network_model, run->chunks,
                               run->nccl_tuning ? " (forced over NCCL's tuning)"
                               : run->abstract && run->plain_forced != NULL
                                   ? ", plain model (an abstract cluster: no NVLink, no NICs; "
                                     "collectives.tuning)"
                               : run->abstract ? ", plain rings (an abstract cluster: no NVLink, "
                                                 "no NICs; collectives.tuning)"
                                               : "");
        if (run->plain_forced != NULL) {
            g_string_append_printf(s, "algorithms   %s (forced; the plain model's default: ring)\n",
                                   run->plain_forced);
        }
    }
    g_string_append_printf(s,
                           "collectives  %" G_GUINT64_FORMAT
                           ", point-to-point transfers %" G_GUINT64_FORMAT
                           ", events %" G_GUINT64_FORMAT "\n",
                           res->collectives, res->p2p_transfers, res->events);
    if (run->coarse_asked && run->coarse_skipped != NULL) {
        g_string_append_printf(s, "coarse       not applied: %s\n", run->coarse_skipped);
    } else if (run->coarse_asked) {
        /* collectives.detail = coarse: an approximation (doc/replay.md) */
        g_string_append_printf(s,
                               "coarse       %" G_GUINT64_FORMAT
                               " collective(s) ran as one aggregate flow (collectives.detail = "
                               "coarse, approximate)\n",
                               res->coarse_collectives);
    }
    g_string_append_printf(s, "step time    %.6f us\n", weft_time_to_us(res->step_ps));
    for (guint i = 0; res->faults_applied != NULL && i < res->faults_applied->len; i++) {
        g_string_append_printf(s, "fault        %s\n",
                               (const char *)g_ptr_array_index(res->faults_applied, i));
    }
    /* what the reader worked around in the trace (workload.h): said once, here */
    const GPtrArray *warnings = run->workload->warnings;
    for (guint i = 0; warnings != NULL && i < warnings->len; i++) {
        g_string_append_printf(s, "warning      %s\n",
                               (const char *)g_ptr_array_index(warnings, i));
    }
    g_string_append_c(s, '\n');
    /* With a report, large runs get the per-rank distribution instead of one line per rank. */
    if (run->report != NULL && res->n_ranks > SUMMARY_MAX_RANK_ROWS) {
        g_string_append_printf(s, "(%u ranks: one row per rank in ranks.csv with --out DIR)\n",
                               res->n_ranks);
        g_autofree char *more = weft_report_summary_text(run->report);
        g_string_append(s, more);
        return g_string_free(s, FALSE);
    }
    g_string_append_printf(s, "%6s %16s %16s %20s %16s\n", "rank", "finish_us", "compute_us",
                           "exposed_comm_us", "idle_us");
    for (guint r = 0; r < res->n_ranks; r++) {
        const weft_rank_result_t *rr = &res->ranks[r];
        g_string_append_printf(s, "%6u %16.6f %16.6f %20.6f %16.6f\n", r,
                               weft_time_to_us(rr->finish_ps), weft_time_to_us(rr->compute_ps),
                               weft_time_to_us(rr->exposed_comm_ps), weft_time_to_us(rr->idle_ps));
    }
    if (run->report != NULL) {
        g_autofree char *more = weft_report_summary_text(run->report);
        g_string_append(s, more);
    }
    return g_string_free(s, FALSE);
}

/* The forced collective choices of [collectives] (all values were checked when set). */
static void
scenario_tuning(const weft_scenario_t *sc, weft_coll_tuning_t *t)
{
    static const struct {
        int algo_key, proto_key;
        weft_coll_op_t ops[3];
        guint n_ops;
    } per_op[] = {
        {K_AR_ALGO, K_AR_PROTO, {WEFT_COLL_ALL_REDUCE, WEFT_COLL_BARRIER}, 2},
        {K_AG_ALGO, K_AG_PROTO, {WEFT_COLL_ALL_GATHER}, 1},
        {K_RS_ALGO, K_RS_PROTO, {WEFT_COLL_REDUCE_SCATTER, WEFT_COLL_REDUCE_SCATTER_BLOCK}, 2},
        {K_A2A_ALGO, K_A2A_PROTO, {WEFT_COLL_ALL_TO_ALL, WEFT_COLL_GATHER, WEFT_COLL_SCATTER}, 3},
        {K_BCAST_ALGO, K_BCAST_PROTO, {WEFT_COLL_BROADCAST}, 1},
        {K_REDUCE_ALGO, K_REDUCE_PROTO, {WEFT_COLL_REDUCE}, 1},
    };
    memset(t, 0, sizeof *t);
    for (guint i = 0; i < G_N_ELEMENTS(per_op); i++) {
        weft_coll_algo_t a = WEFT_COLL_ALGO_AUTO;
        weft_coll_proto_t p = WEFT_COLL_PROTO_AUTO;
        weft_coll_tuning_algo_from_name(current(sc, per_op[i].algo_key), &a);
        weft_coll_tuning_proto_from_name(current(sc, per_op[i].proto_key), &p);
        for (guint k = 0; k < per_op[i].n_ops; k++) {
            t->algo[per_op[i].ops[k]] = a;
            t->proto[per_op[i].ops[k]] = p;
        }
    }
    t->channels = (guint)get_int(sc, K_CHANNELS);
    /* collectives.chunks forces the chunk count only when given; NCCL's otherwise. */
    t->chunks = sc->value[K_CHUNKS] != NULL ? (guint)get_int(sc, K_CHUNKS) : 0;
    weft_coll_tuning_cpu_from_name(current(sc, K_CPU), &t->cpu);
}

/*
 * The plain model's forced algorithms (collectives.tuning = off, or auto on an abstract
 * cluster): ring, tree, halving_doubling and direct have flat plans and run as asked; the
 * algorithms that need the communicator's layout on the cluster (nvls, nvls_tree, collnet,
 * hierarchical) and forced protocols (the plain model has none) are refused with the key,
 * never ignored. Fills @algo per operation and *@text ("all_reduce halving_doubling"),
 * NULL when nothing is forced.
 */
static gboolean
plain_forced(const weft_scenario_t *sc, const weft_coll_tuning_t *t, weft_coll_algo_t *algo,
             char **text, GError **error)
{
    static const struct {
        int algo_key, proto_key;
        weft_coll_op_t op;
    } per_op[] = {
        {K_AR_ALGO, K_AR_PROTO, WEFT_COLL_ALL_REDUCE},
        {K_AG_ALGO, K_AG_PROTO, WEFT_COLL_ALL_GATHER},
        {K_RS_ALGO, K_RS_PROTO, WEFT_COLL_REDUCE_SCATTER},
        {K_A2A_ALGO, K_A2A_PROTO, WEFT_COLL_ALL_TO_ALL},
        {K_BCAST_ALGO, K_BCAST_PROTO, WEFT_COLL_BROADCAST},
        {K_REDUCE_ALGO, K_REDUCE_PROTO, WEFT_COLL_REDUCE},
    };
    const char *why_plain = strcmp(current(sc, K_TUNING), "off") == 0
                                ? "collectives.tuning = off"
                                : "collectives.tuning = auto on an abstract cluster";
    GString *desc = g_string_new(NULL);
    for (guint i = 0; i < G_N_ELEMENTS(per_op); i++) {
        weft_coll_op_t op = per_op[i].op;
        if (t->proto[op] != WEFT_COLL_PROTO_AUTO) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "collectives.%s = %s: the plain model (%s) has no protocols; set "
                        "collectives.tuning = nccl to run NCCL's protocols",
                        keys[per_op[i].proto_key].key, current(sc, per_op[i].proto_key), why_plain);
            g_string_free(desc, TRUE);
            return FALSE;
        }
        weft_coll_algo_t a = t->algo[op];
        if (a == WEFT_COLL_ALGO_AUTO) {
            continue;
        }
        if (a != WEFT_COLL_ALGO_RING && a != WEFT_COLL_ALGO_TREE && a != WEFT_COLL_ALGO_DIRECT &&
            a != WEFT_COLL_ALGO_HALVING_DOUBLING) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "collectives.%s = %s: the plain model (%s) runs ring, tree and "
                        "halving_doubling (direct for all-to-all, gather and scatter); %s needs "
                        "NCCL's tuning over the cluster's NVSwitches and switches "
                        "(collectives.tuning = nccl)",
                        keys[per_op[i].algo_key].key, current(sc, per_op[i].algo_key), why_plain,
                        weft_coll_algo_name(a));
            g_string_free(desc, TRUE);
            return FALSE;
        }
        g_string_append_printf(desc, "%s%s %s", desc->len > 0 ? ", " : "", weft_coll_op_name(op),
                               weft_coll_algo_name(a));
    }
    /* the same forced choice for the operations that share each key (scenario_tuning()) */
    for (guint op = 0; op < WEFT_COLL_N_OPS; op++) {
        algo[op] = t->algo[op];
    }
    *text = desc->len > 0 ? g_string_free(desc, FALSE) : (g_string_free(desc, TRUE), NULL);
    return TRUE;
}

/*
 * The workload of a checked scenario on a cluster of @n_gpus GPUs: the trace,
 * the [transformer] step generated in memory (an unset dp fills the cluster) or
 * the one-collective workload. *@label gets its name for the report.
 */
static weft_workload_t *
load_workload(const weft_scenario_t *sc, guint n_gpus, char **label, GError **error)
{
    const char *where = sc->source != NULL ? sc->source : "scenario";
    g_autoptr(GError) werr = NULL;
    if (current(sc, K_TRACE) != NULL) {
        *label = g_strdup(sc->given[K_TRACE]);
        return weft_workload_load_chakra(current(sc, K_TRACE), current(sc, K_COMM_GROUPS), error);
    }
    if (current(sc, K_COLLECTIVE) != NULL) {
        weft_coll_op_t op = WEFT_COLL_ALL_REDUCE;
        weft_coll_op_from_name(current(sc, K_COLLECTIVE), &op); /* checked when set */
        double bytes = 0.0;
        if (current(sc, K_COLL_BYTES) != NULL) {
            weft_scenario_i_parse_quantity("bytes", current(sc, K_COLL_BYTES), &bytes, NULL);
        }
        guint iterations = (guint)get_int(sc, K_COLL_ITERATIONS);
        guint n_ranks =
            current(sc, K_COLL_RANKS) != NULL ? (guint)get_int(sc, K_COLL_RANKS) : n_gpus;
        weft_workload_t *wl =
            weft_workload_collective(op, (guint64)bytes, iterations, n_ranks, &werr);
        if (wl == NULL) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "%s: workload.collective: %s", where, werr->message);
            return NULL;
        }
        *label = g_strdup_printf("%s of %s x %u on %u ranks", weft_coll_op_name(op),
                                 op == WEFT_COLL_BARRIER ? "0 B" : current(sc, K_COLL_BYTES),
                                 iterations, n_ranks);
        return wl;
    }
    /* [transformer]: the keys as a generator spec, read by the spec's own parser. */
    g_autoptr(GKeyFile) kf = g_key_file_new();
    GString *text = g_string_new("transformer");
    for (guint k = 0; k < N_KEYS; k++) {
        if (strcmp(keys[k].group, "transformer") == 0 && sc->value[k] != NULL) {
            g_key_file_set_value(kf, "transformer", keys[k].key, sc->value[k]);
            g_string_append_printf(text, " %s=%s", keys[k].key, sc->value[k]);
        }
    }
    weft_workload_t *wl = weft_gen_load_keyfile(kf, where, n_gpus, &werr);
    if (wl == NULL) {
        g_string_free(text, TRUE);
        g_set_error_literal(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE, werr->message);
        return NULL;
    }
    if (sc->value[K_TF_DP] == NULL) {
        guint64 per_replica = 1;
        static const guint sizes[] = {K_TF_TP, K_TF_PP, K_TF_CP};
        for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
            per_replica *= sc->value[sizes[i]] != NULL ? (guint64)get_int(sc, sizes[i]) : 1;
        }
        g_string_append_printf(text, " dp=%" G_GUINT64_FORMAT " (from the cluster)",
                               wl->n_ranks / per_replica);
    }
    *label = g_string_free(text, FALSE);
    return wl;
}

weft_scenario_run_t *
weft_scenario_run(const weft_scenario_t *sc, GError **error)
{
    return weft_scenario_run_full(sc, NULL, error);
}

/* The report's options from [output] (values checked when set); FALSE if none asks for one. */
static gboolean
report_options(const weft_scenario_t *sc, weft_report_options_t *ro)
{
    memset(ro, 0, sizeof *ro);
    ro->timeline = current(sc, K_TIMELINE) != NULL;
    ro->timeline_ranks = current(sc, K_TIMELINE_RANKS);
    if (current(sc, K_TIMELINE_WINDOW) != NULL) {
        weft_report_parse_window(current(sc, K_TIMELINE_WINDOW), &ro->window_start_ps,
                                 &ro->window_end_ps, NULL);
    }
    if (current(sc, K_LINK_SERIES) != NULL) {
        weft_units_parse_time(current(sc, K_LINK_SERIES), &ro->link_interval_ps, NULL);
    }
    return ro->timeline || ro->link_interval_ps > 0;
}

weft_scenario_run_t *
weft_scenario_run_full(const weft_scenario_t *sc, const weft_scenario_run_options_t *ropts,
                       GError **error)
{
    g_return_val_if_fail(sc != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    if (!weft_scenario_check(sc, error)) {
        return NULL;
    }
    const char *out_dir = current(sc, K_OUTPUT_DIR);
    if (out_dir != NULL && !prepare_output_dir(out_dir, error)) {
        return NULL;
    }
    const char *timeline = current(sc, K_TIMELINE);
    if (timeline != NULL) {
        g_autofree char *tl_dir = g_path_get_dirname(timeline);
        if (!prepare_output_dir_for(tl_dir, "timeline", timeline, error)) {
            return NULL;
        }
    }
    weft_report_options_t rep_opts;
    gboolean want_report = report_options(sc, &rep_opts) || (ropts != NULL && ropts->report);

    g_autoptr(weft_scenario_run_t) run = g_new0(weft_scenario_run_t, 1);
    if (ropts != NULL && ropts->cluster != NULL) {
        run->topo = ropts->cluster; /* shared: not ours to free */
    } else {
        run->topo = run->topo_owned = weft_scenario_build_cluster(sc, error);
        if (run->topo == NULL) {
            return NULL;
        }
    }
    /* what this run changes about the cluster (ECMP seed, faults' link state, routes) */
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(run->topo);
    weft_fabric_set_ecmp_seed(fabric, (guint64)get_int(sc, K_ECMP_SEED));

    run->workload = load_workload(sc, weft_topo_n_gpus(run->topo), &run->trace_label, error);
    if (run->workload == NULL) {
        return NULL;
    }
    if (!weft_workload_check(run->workload, weft_topo_n_gpus(run->topo), error)) {
        /* a trace's message names its files; a generated workload's says which keys */
        if (current(sc, K_TRACE) == NULL) {
            g_prefix_error(error, "workload %s%s: ", run->trace_label,
                           current(sc, K_COLLECTIVE) != NULL ? " (workload.collective_ranks)" : "");
        }
        return NULL;
    }

    weft_place_policy_t policy = WEFT_PLACE_IN_ORDER;
    if (!weft_place_policy_from_name(current(sc, K_PLACEMENT), &policy, error)) {
        return NULL;
    }
    run->rank_gpu = weft_topo_place(run->topo, run->workload->n_ranks, policy,
                                    (guint64)get_int(sc, K_PLACEMENT_SEED),
                                    current(sc, K_PLACEMENT_FILE), error);
    if (run->rank_gpu == NULL) {
        return NULL;
    }
    if (want_report) {
        g_autoptr(GError) rerr = NULL;
        run->report = weft_report_new(run->topo, run->workload, run->rank_gpu, &rep_opts, &rerr);
        if (run->report == NULL) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "output.timeline_ranks = \"%s\": %s", current(sc, K_TIMELINE_RANKS),
                        rerr->message);
            return NULL;
        }
    }

    weft_net_options_t net_opts = {.model = WEFT_NET_ANALYTICAL};
    if (!weft_net_model_from_name(current(sc, K_MODEL), &net_opts.model, error) ||
        !weft_net_update_from_name(current(sc, K_UPDATE), &net_opts.update, error)) {
        return NULL;
    }
    run->network_model = g_strdup(weft_net_model_name(net_opts.model));
    run->chunks = sc->value[K_CHUNKS] != NULL ? (guint)get_int(sc, K_CHUNKS) : 1;
    run->nccl_tuning =
        strcmp(current(sc, K_TUNING), "nccl") == 0 ||
        (strcmp(current(sc, K_TUNING), "auto") == 0 && !weft_topo_is_abstract(run->topo));
    run->chunks_given = sc->value[K_CHUNKS] != NULL;
    run->abstract = !run->nccl_tuning && strcmp(current(sc, K_TUNING), "auto") == 0;
    run->duration_scale = g_ascii_strtod(current(sc, K_DURATION_SCALE), NULL);
    run->placement = placement_text(sc);
    const char *file = current(sc, K_CLUSTER_FILE);
    run->cluster_label = file != NULL ? g_strdup(sc->given[K_CLUSTER_FILE])
                                      : g_strdup_printf("%s (inline)", weft_topo_name(run->topo));

    weft_coll_tuning_t tuning = {0};
    scenario_tuning(sc, &tuning);
    weft_coll_algo_t plain_algo[WEFT_COLL_N_OPS] = {0};
    if (!run->nccl_tuning && !plain_forced(sc, &tuning, plain_algo, &run->plain_forced, error)) {
        return NULL;
    }
    g_autoptr(weft_fault_plan_t) faults = NULL;
    if (current(sc, K_FAULTS_FILE) != NULL || current(sc, K_FAULTS_EVENTS) != NULL) {
        faults = weft_fault_plan_new(run->topo);
        if ((current(sc, K_FAULTS_FILE) != NULL &&
             !weft_fault_plan_add_file(faults, current(sc, K_FAULTS_FILE), error)) ||
            (current(sc, K_FAULTS_EVENTS) != NULL &&
             !weft_fault_plan_add_text(faults, current(sc, K_FAULTS_EVENTS), "faults.events", TRUE,
                                       error))) {
            return NULL;
        }
    }
    /* collectives.detail = auto runs lone collectives as one timed event; faults and link
     * time series need every transfer (replay.h). A run that finds a timed collective not
     * alone names its shape and is run again without timing that shape: at most one rerun
     * per shape, bounded here all the same. */
    gboolean coarse = strcmp(current(sc, K_DETAIL), "coarse") == 0;
    run->coarse_asked = coarse;
    if (coarse && strcmp(run->network_model, "flow") != 0) {
        run->coarse_skipped = "under analytical every collective it could aggregate is timed "
                              "exactly (as collectives.detail = auto)";
    } else if (coarse && faults != NULL) {
        run->coarse_skipped = "faults simulate every transfer";
    } else if (coarse && run->report != NULL && rep_opts.link_interval_ps > 0) {
        run->coarse_skipped = "link time series simulate every transfer";
    }
    weft_replay_detail_t detail =
        (coarse || strcmp(current(sc, K_DETAIL), "auto") == 0) && faults == NULL &&
                !(run->report != NULL && rep_opts.link_interval_ps > 0 &&
                  strcmp(run->network_model, "flow") == 0)
            ? (coarse ? WEFT_REPLAY_DETAIL_COARSE : WEFT_REPLAY_DETAIL_AUTO)
            : WEFT_REPLAY_DETAIL_TRANSFERS;
    g_autoptr(GHashTable) banned = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
                                                         (GDestroyNotify)g_bytes_unref, NULL);
    /* freed after the simulation, whose progress hook points to it */
    g_autoptr(weft_report_progress_t) progress = NULL;
    g_autoptr(weft_sim_t) sim = NULL;
    g_autoptr(weft_net_t) net = NULL;
    for (guint attempt = 0;; attempt++) {
        g_clear_pointer(&net, weft_net_free);
        g_clear_pointer(&sim, weft_sim_free);
        if (attempt > 0 && run->report != NULL) {
            weft_report_free(run->report);
            run->report = weft_report_new(run->topo, run->workload, run->rank_gpu, &rep_opts, NULL);
            g_assert(run->report != NULL); /* the same options made one before */
        }
        /* The simulation's own random stream is seeded with 1: nothing in an
         * analytical replay draws from it, and placement and ECMP have their own
         * seeds (workload.placement_seed, network.ecmp_seed). */
        sim = weft_sim_new(1);
        net = weft_net_new_full(sim, fabric, &net_opts);
        weft_replay_options_t opts = {
            .coll_chunks = run->chunks,
            .rank_gpu = run->rank_gpu,
            .compute_scale = run->duration_scale,
            .faults = faults,
            .collective_detail = attempt < 64 ? detail : WEFT_REPLAY_DETAIL_TRANSFERS,
            .detail_banned = banned,
        };
        memcpy(opts.plain_algo, plain_algo, sizeof plain_algo);
        if (run->nccl_tuning) {
            opts.coll_tuning = &tuning;
        }
        if (run->report != NULL) {
            opts.observer = weft_report_observer(run->report);
            weft_report_attach(run->report, net);
        }
        if (ropts != NULL && ropts->progress != NULL) {
            /* runs longer than a second show progress (src/report) */
            progress = weft_report_progress_new(ropts->progress, G_USEC_PER_SEC);
            weft_report_progress_attach(progress, sim);
        }
        GError *rerr = NULL;
        run->replay = weft_replay_run(sim, net, run->workload, &opts, &rerr);
        weft_sim_set_progress(sim, 0, NULL, NULL);
        g_clear_pointer(&progress, weft_report_progress_free);
        if (run->replay == NULL &&
            g_error_matches(rerr, WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_DETAIL_CONFLICT)) {
            g_debug("%s", rerr->message);
            g_error_free(rerr);
            continue;
        }
        if (run->replay == NULL) {
            g_propagate_error(error, rerr);
            return NULL;
        }
        break;
    }
    if (run->report != NULL) {
        g_autofree char *ini = weft_scenario_to_ini(sc);
        weft_net_update_t update = WEFT_NET_UPDATE_INCREMENTAL;
        weft_net_update_from_name(current(sc, K_UPDATE), &update, NULL);
        weft_report_meta_t meta = {
            .cluster = run->cluster_label,
            .workload = run->trace_label,
            .placement = run->placement,
            .network_model = run->network_model,
            .network_update = weft_net_update_name(update),
            /* what ran: auto resolves to nccl or (an abstract cluster) off */
            .collective_tuning = run->nccl_tuning ? "nccl" : "off",
            /* 0: NCCL's tuning chose the chunks of each collective (collectives.csv) */
            .chunks = run->nccl_tuning && !run->chunks_given ? 0 : run->chunks,
            .sim_seed = weft_sim_seed(sim),
            .placement_seed = (guint64)get_int(sc, K_PLACEMENT_SEED),
            .ecmp_seed = (guint64)get_int(sc, K_ECMP_SEED),
            .config_ini = ini,
        };
        weft_report_finish(run->report, net, run->replay);
        weft_report_set_meta(run->report, &meta);
    }

    if (out_dir != NULL) {
        g_autofree char *ini = weft_scenario_to_ini(sc);
        g_autofree char *csv = ranks_csv(run);
        g_autofree char *summary = weft_scenario_run_summary(run);
        if (!write_output(out_dir, "scenario.ini", ini, error) ||
            !write_output(out_dir, "ranks.csv", csv, error) ||
            !write_output(out_dir, "summary.txt", summary, error)) {
            return NULL;
        }
        g_autoptr(GError) rerr = NULL;
        if (run->report != NULL && !weft_report_write_files(run->report, out_dir, &rerr)) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO, "%s", rerr->message);
            return NULL;
        }
    }
    if (timeline != NULL) {
        g_autoptr(GError) rerr = NULL;
        if (!weft_report_write_timeline(run->report, timeline, &rerr)) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO, "%s", rerr->message);
            return NULL;
        }
    }
    return g_steal_pointer(&run);
}

void
weft_scenario_run_free(weft_scenario_run_t *run)
{
    if (run == NULL) {
        return;
    }
    weft_report_free(run->report); /* points to the workload and cluster */
    weft_replay_result_free(run->replay);
    g_free(run->rank_gpu);
    weft_workload_free(run->workload);
    weft_topo_free(run->topo_owned); /* a lent cluster is its lender's */
    g_free(run->network_model);
    g_free(run->placement);
    g_free(run->plain_forced);
    g_free(run->cluster_label);
    g_free(run->trace_label);
    g_free(run);
}
