/* SPDX-License-Identifier: MIT */
/*
 * The reader of ASTRA-sim 1.0 and SimAI/AICB text workloads: parses the
 * parallelism line, the layer count and the 12- (13-) column layer lines, maps
 * the parallelism onto Megatron-style rank groups (tensor, data, expert,
 * expert-data, pipeline stages) and expands one training step into the same
 * per-rank node arrays and communicators the Chakra reader fills. Ranks of one
 * pipeline stage execute the same node sequence, so they share one copy of the
 * node arrays (weft_rank_trace_t.borrows_arrays); only the communicator and
 * peer of each node are per rank, which keeps the 9,216-GPU SimAI workload in
 * a few hundred MB. doc/workloads.md states the mapping.
 */
#define G_LOG_DOMAIN "weft-workload"

#include "workload/workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/chakra.h"
#include "workload/seq.h"

/* The most ranks a text workload may have: the most GPUs a weft cluster holds (the
 * builders' and the ASTRA-sim YAML reader's limit, 2^20; a one-line workload of 2^20 ranks
 * loads and checks in 4 s). More (all_gpus: 100000000) used to be built, for minutes and
 * GBs, and refused only by the cluster (tests/fuzz/fuzz_text). Under the fuzzer
 * (./configure --enable-fuzz) 2^16, so that every input runs within the harness's 10 s. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define MAX_RANKS (1u << 16)
#else
#define MAX_RANKS (1u << 20)
#endif

/* Ranks assumed when neither all_gpus nor a hint gives them: one 8-GPU server. */
#define DEFAULT_RANKS 8
/* Model-parallel group of a HYBRID_* workload that does not give one. */
#define DEFAULT_MP 2
/* 1 ns = 1000 ps; SimAI times are ns, ASTRA-sim 1.0 cycles taken as 1 ns. */
#define PS_PER_NS 1000

/* Where a collective runs (the rank group kind). */
typedef enum {
    G_NONE,  /* no communication */
    G_WORLD, /* every rank */
    G_TP,    /* tensor (model) parallel, TP fastest-varying (Megatron order) */
    G_DP,    /* data parallel, TP fastest-varying */
    G_EP,    /* expert parallel: blocks of ep consecutive data-parallel ranks */
    G_DP_EP, /* expert-data parallel: same expert index, data/ep members */
    G_TPX,   /* model parallel when data parallel varies fastest (HYBRID_DATA_MODEL) */
    G_DPX,   /* data parallel when it varies fastest (HYBRID_DATA_MODEL) */
    G_N
} group_kind_t;

static const char *const group_prefix[G_N] = {"", "0", "tp", "dp", "ep", "dp_ep", "tpx", "dpx"};

/* How a parallelism keyword places columns 4/7 (forward, input gradient) and 10 (weight gradient).
 */
typedef struct {
    const char *keyword;
    group_kind_t fwd, wg;
} par_t;

static const par_t parallelisms[] = {
    {"DATA", G_WORLD, G_WORLD},
    {"MODEL", G_WORLD, G_WORLD},
    {"MICRO", G_WORLD, G_WORLD},
    {"HYBRID_DLRM", G_WORLD, G_WORLD},
    {"HYBRID_DLRM_ENHANCED", G_WORLD, G_WORLD},
    {"HYBRID_DATA_MODEL", G_TPX, G_DPX},
    {"HYBRID_MODEL_DATA", G_TP, G_DP},
    {"HYBRID_TRANSFORMER", G_TP, G_DP},
    {"HYBRID_TRANSFORMER_FWD_IN_BCKWD", G_TP, G_DP},
    {"HYBRID_CUSTOMIZED", G_TP, G_DP},
};

static const par_t *
find_par(const char *kw)
{
    for (gsize i = 0; i < G_N_ELEMENTS(parallelisms); i++) {
        if (strcmp(parallelisms[i].keyword, kw) == 0) {
            return &parallelisms[i];
        }
    }
    return NULL;
}

/* Phases of a layer line: forward, input gradient, weight gradient. */
enum { PH_FWD, PH_IG, PH_WG, N_PH };

typedef struct {
    const char *name;         /* in the workload's string chunk */
    gint64 time_ns[N_PH + 1]; /* forward, input gradient, weight gradient, update */
    guint8 op[N_PH];          /* weft_coll_op_t, valid when group[p] != G_NONE */
    guint8 group[N_PH];       /* group_kind_t */
    guint64 bytes[N_PH];
} layer_t;

/* The rank layout. */
typedef struct {
    guint n, tp, pp, dp, ep;
    gint comm_base[G_N]; /* index of the first communicator of a kind, -1 if not built */
    guint group_size[G_N];
} layout_t;

/* ---- parsing ----------------------------------------------------------------- */

static gboolean
parse_uint(const char *path, guint line, const char *what, const char *s, guint64 max, guint64 *out,
           GError **error)
{
    guint64 v = 0;
    g_autoptr(GError) e = NULL;
    if (!g_ascii_string_to_unsigned(s, 10, 0, max, &v, &e)) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "%s:%u: %s '%s' is not an integer in 0..%" G_GUINT64_FORMAT, path, line, what,
                    s, max);
        return FALSE;
    }
    *out = v;
    return TRUE;
}

/* Parses a comm type ("ALLREDUCE", "ALLTOALL_EP", "NONE", ...) for column @col. */
static gboolean
parse_comm(const char *path, guint line, guint col, const char *s, const par_t *par, guint8 *op,
           guint8 *group, GError **error)
{
    static const struct {
        const char *name;
        weft_coll_op_t op;
    } ops[] = {{"ALLREDUCE", WEFT_COLL_ALL_REDUCE},
               {"ALLGATHER", WEFT_COLL_ALL_GATHER},
               {"REDUCESCATTER", WEFT_COLL_REDUCE_SCATTER},
               {"ALLTOALL", WEFT_COLL_ALL_TO_ALL}};
    if (strcmp(s, "NONE") == 0) {
        *group = G_NONE;
        *op = 0;
        return TRUE;
    }
    for (gsize i = 0; i < G_N_ELEMENTS(ops); i++) {
        gsize len = strlen(ops[i].name);
        if (strncmp(s, ops[i].name, len) != 0) {
            continue;
        }
        const char *suffix = s + len;
        *op = (guint8)ops[i].op;
        if (suffix[0] == '\0') {
            *group = (guint8)(col == 10 ? par->wg : par->fwd);
            return TRUE;
        }
        if (strcmp(suffix, "_EP") == 0) {
            *group = G_EP;
            return TRUE;
        }
        if (strcmp(suffix, "_DP_EP") == 0) {
            *group = G_DP_EP;
            return TRUE;
        }
    }
    g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                "%s:%u: column %u: comm type '%s' is not NONE, ALLREDUCE, ALLGATHER, "
                "REDUCESCATTER or ALLTOALL (optionally with _EP or _DP_EP)",
                path, line, col, s);
    return FALSE;
}

/* The header: keyword and key/value pairs. */
typedef struct {
    const par_t *par;
    guint64 mp, ep, pp, ga, all_gpus, pp_comm;
    gboolean have_mp, have_all_gpus;
} header_t;

static gboolean
parse_header(const char *path, const char *text, header_t *h, GError **error)
{
    g_auto(GStrv) tok = g_strsplit_set(text, " \t\r", -1);
    GPtrArray *t = g_ptr_array_new();
    for (guint i = 0; tok[i] != NULL; i++) {
        if (tok[i][0] != '\0') {
            g_ptr_array_add(t, tok[i]);
        }
    }
    g_autoptr(GPtrArray) toks = t;
    memset(h, 0, sizeof(*h));
    h->ep = h->pp = h->ga = 1;
    if (toks->len == 0 || (h->par = find_par(g_ptr_array_index(toks, 0))) == NULL) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                    "%s:1: '%s' is not a known parallelism keyword (DATA, MODEL, MICRO, "
                    "HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_TRANSFORMER, "
                    "HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_DLRM, HYBRID_CUSTOMIZED)",
                    path, toks->len > 0 ? (const char *)g_ptr_array_index(toks, 0) : "");
        return FALSE;
    }
    for (guint i = 1; i < toks->len; i++) {
        const char *k = g_ptr_array_index(toks, i);
        g_autofree char *key = g_strdup(k);
        if (g_str_has_suffix(key, ":")) {
            key[strlen(key) - 1] = '\0';
        } else if (i == 1 && g_ascii_isdigit(k[0]) &&
                   g_str_has_prefix(h->par->keyword, "HYBRID_DLRM")) {
            continue; /* the last bottom-MLP layer: scheduling only, not modelled */
        }
        if (i + 1 >= toks->len) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        "%s:1: key '%s' has no value", path, key);
            return FALSE;
        }
        const char *v = g_ptr_array_index(toks, ++i);
        if (strcmp(key, "checkpoints") == 0 || strcmp(key, "checkpoint_initiates") == 0) {
            /* A count, then that many layer indexes: activation recomputation, not modelled. */
            guint64 n = 0;
            if (!parse_uint(path, 1, key, v, G_MAXUINT32, &n, error)) {
                return FALSE;
            }
            i += (guint)MIN(n, (guint64)(toks->len - 1 - i));
            continue;
        }
        struct {
            const char *name;
            guint64 *dst, min;
            gboolean *seen;
        } keys[] = {{"model_parallel_NPU_group", &h->mp, 1, &h->have_mp},
                    {"ep", &h->ep, 1, NULL},
                    {"pp", &h->pp, 1, NULL},
                    {"ga", &h->ga, 1, NULL},
                    {"all_gpus", &h->all_gpus, 1, &h->have_all_gpus},
                    {"pp_comm", &h->pp_comm, 0, NULL},
                    {"vpp", NULL, 0, NULL}};
        gboolean known = FALSE;
        for (gsize j = 0; j < G_N_ELEMENTS(keys); j++) {
            if (strcmp(key, keys[j].name) != 0) {
                continue;
            }
            known = TRUE;
            guint64 x = 0;
            if (!parse_uint(path, 1, key, v, G_MAXINT32, &x, error)) {
                return FALSE;
            }
            if (x < keys[j].min) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            "%s:1: %s is %s, expected at least %" G_GUINT64_FORMAT, path, key, v,
                            keys[j].min);
                return FALSE;
            }
            if (keys[j].dst != NULL) {
                *keys[j].dst = x;
            }
            if (keys[j].seen != NULL) {
                *keys[j].seen = TRUE;
            }
        }
        if (!known) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        "%s:1: unknown key '%s' (value '%s'); known: model_parallel_NPU_group, "
                        "ep, pp, vpp, ga, all_gpus, pp_comm, checkpoints, checkpoint_initiates",
                        path, key, v);
            return FALSE;
        }
    }
    return TRUE;
}

/* Splits @line on blanks; returns the non-empty fields. */
static GPtrArray *
fields(char *line)
{
    GPtrArray *f = g_ptr_array_new();
    char *save = NULL;
    for (char *s = strtok_r(line, " \t\r", &save); s != NULL; s = strtok_r(NULL, " \t\r", &save)) {
        g_ptr_array_add(f, s);
    }
    return f;
}

static gboolean
parse_layer(weft_workload_t *wl, const char *path, guint line_no, char *line, const header_t *h,
            layer_t *L, GError **error)
{
    g_autoptr(GPtrArray) f = fields(line);
    gboolean custom = strcmp(h->par->keyword, "HYBRID_CUSTOMIZED") == 0;
    guint want = custom ? 13 : 12;
    if (f->len != want) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                    "%s:%u: %u columns, expected %u (name, reserved, then time, comm type and "
                    "bytes for forward, input gradient and weight gradient, then update time%s)",
                    path, line_no, f->len, want, custom ? ", then the layer's parallelism" : "");
        return FALSE;
    }
    const par_t *par = h->par;
    if (custom) {
        const char *kw = g_ptr_array_index(f, 12);
        par = find_par(kw);
        if (par == NULL || strcmp(kw, "HYBRID_CUSTOMIZED") == 0) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        "%s:%u: column 13: '%s' is not a layer parallelism (DATA, MODEL, "
                        "HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, ...)",
                        path, line_no, kw);
            return FALSE;
        }
    }
    L->name = g_string_chunk_insert_const(wl->strings, g_ptr_array_index(f, 0));
    const char *reserved = g_ptr_array_index(f, 1);
    char *end = NULL;
    errno = 0;
    (void)strtoll(reserved, &end, 10);
    if (errno != 0 || end == reserved || *end != '\0') {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "%s:%u: column 2 (reserved) '%s' is not an integer", path, line_no, reserved);
        return FALSE;
    }
    static const char *const what[] = {"forward compute time", "input-gradient compute time",
                                       "weight-gradient compute time"};
    static const char *const bwhat[] = {"forward comm bytes", "input-gradient comm bytes",
                                        "weight-gradient comm bytes"};
    for (guint p = 0; p < N_PH; p++) {
        guint col = 3 + 3 * p; /* 1-based column of the time */
        guint64 v = 0;
        /* ns (or cycles) x 1000 ps must fit weft_time_t. */
        if (!parse_uint(path, line_no, what[p], g_ptr_array_index(f, col - 1),
                        (guint64)(WEFT_TIME_MAX / PS_PER_NS), &v, error) ||
            !parse_comm(path, line_no, col + 1, g_ptr_array_index(f, col), par, &L->op[p],
                        &L->group[p], error) ||
            !parse_uint(path, line_no, bwhat[p], g_ptr_array_index(f, col + 1), G_MAXINT64,
                        &L->bytes[p], error)) {
            return FALSE;
        }
        L->time_ns[p] = (gint64)v;
    }
    guint64 v = 0;
    if (!parse_uint(path, line_no, "weight-update time", g_ptr_array_index(f, 11),
                    (guint64)(WEFT_TIME_MAX / PS_PER_NS), &v, error)) {
        return FALSE;
    }
    L->time_ns[N_PH] = (gint64)v;
    return TRUE;
}

/* ---- layout and communicators ------------------------------------------------- */

/* The group (0-based id within its kind) of rank @r. */
static guint
group_of(const layout_t *lo, group_kind_t kind, guint r)
{
    guint p = r / (lo->tp * lo->dp), q = r % (lo->tp * lo->dp);
    guint t = q % lo->tp, d = q / lo->tp;   /* Megatron: TP fastest */
    guint dx = q % lo->dp, tx = q / lo->dp; /* data fastest */
    guint e = d % lo->ep, k = d / lo->ep;
    switch (kind) {
    case G_WORLD:
        return 0;
    case G_TP:
        return p * lo->dp + d;
    case G_DP:
        return p * lo->tp + t;
    case G_EP:
        return (p * lo->tp + t) * (lo->dp / lo->ep) + k;
    case G_DP_EP:
        return (p * lo->tp + t) * lo->ep + e;
    case G_TPX:
        return p * lo->dp + dx;
    case G_DPX:
        return p * lo->tp + tx;
    default:
        g_assert_not_reached();
    }
}

/* Builds the communicators of @kind (once; nothing for G_NONE). */
static void
build_groups(weft_workload_t *wl, layout_t *lo, group_kind_t kind)
{
    if (kind == G_NONE || lo->comm_base[kind] >= 0) {
        return;
    }
    if (kind == G_WORLD) {
        lo->comm_base[kind] = 0;
        lo->group_size[kind] = lo->n;
        return;
    }
    guint size = 0;
    switch (kind) {
    case G_TP:
    case G_TPX:
        size = lo->tp;
        break;
    case G_DP:
    case G_DPX:
        size = lo->dp;
        break;
    case G_EP:
        size = lo->ep;
        break;
    default:
        size = lo->dp / lo->ep;
        break;
    }
    guint n_groups = lo->n / size;
    g_autofree guint *fill = g_new0(guint, n_groups);
    g_autofree guint *members = g_new(guint, lo->n);
    for (guint r = 0; r < lo->n; r++) {
        guint g = group_of(lo, kind, r);
        g_assert(g < n_groups && fill[g] < size);
        members[g * size + fill[g]++] = r; /* ascending r: ascending coordinate */
    }
    lo->comm_base[kind] = (gint)wl->comms->len;
    lo->group_size[kind] = size;
    for (guint g = 0; g < n_groups; g++) {
        g_autofree char *name = g_strdup_printf("%s.%u", group_prefix[kind], g);
        g_ptr_array_add(wl->comms, weft_workload_i_comm_new(name, members + g * size, size));
    }
}

/* ---- expansion of one stage ----------------------------------------------------- */

/* A stage's node sequence while it is built: the shared columns (seq.h) and each node's peer. */
typedef struct {
    weft_workload_i_seq_t b;
    GArray *dir; /* gint8: SEND/RECV peer stage, -1 previous, +1 next, 0 none */
    GArray *layer;     /* guint16: the node's layer id (its line's name) */
    GArray *phase;     /* guint8: weft_phase_t */
    guint16 layer_now; /* what seq_add() gives the nodes it adds */
    guint8 phase_now;
} seq_t;

static void
seq_init(seq_t *s)
{
    weft_workload_i_seq_init(&s->b);
    s->dir = g_array_new(FALSE, FALSE, sizeof(gint8));
    s->layer = g_array_new(FALSE, FALSE, sizeof(guint16));
    s->phase = g_array_new(FALSE, FALSE, sizeof(guint8));
    s->layer_now = 0;
    s->phase_now = WEFT_PHASE_OTHER;
}

static void
seq_clear(seq_t *s)
{
    weft_workload_i_seq_clear(&s->b);
    g_clear_pointer(&s->dir, g_array_unref);
    g_clear_pointer(&s->layer, g_array_unref);
    g_clear_pointer(&s->phase, g_array_unref);
}

/* The layer (line @l's name; 0 for none) and phase of the nodes seq_add() adds next. */
static void
seq_at(seq_t *s, guint16 layer, weft_phase_t phase)
{
    s->layer_now = layer;
    s->phase_now = (guint8)phase;
}

/* Appends a node depending on @d0 and @d1 (-1: none); returns its index. */
static gint64
seq_add(seq_t *s, guint8 type, const char *name, weft_time_t dur, guint8 op, guint64 bytes,
        guint8 kind, gint8 dir, gint64 tag, gint64 d0, gint64 d1)
{
    gint64 i = weft_workload_i_seq_push(&s->b, type, name, dur, op, bytes, kind, tag);
    g_array_append_val(s->dir, dir);
    g_array_append_val(s->layer, s->layer_now);
    g_array_append_val(s->phase, s->phase_now);
    gint64 d[2] = {MIN(d0, d1), MAX(d0, d1)};
    for (guint k = 0; k < 2; k++) {
        if (d[k] >= 0 && (k == 0 || d[k] != d[0])) {
            weft_workload_i_seq_dep(&s->b, (guint32)d[k]);
        }
    }
    weft_workload_i_seq_end(&s->b);
    return i;
}

/* Phase names for node names ("Q1.fwd", "Q1.ig_comm", ...). */
static const char *const ph_comp[N_PH + 1] = {"fwd", "ig", "wg", "update"};
static const char *const ph_comm[N_PH] = {"fwd_comm", "ig_comm", "wg_comm"};

typedef struct {
    weft_workload_t *wl;
    const layer_t *layers;
    guint n_layers;
    const guint *mb_start; /* micro-batch start lines, n_mb + 1 entries (last = n_layers) */
    guint n_mb;
    guint64 pp_comm;
    layout_t *lo;
    const char **names; /* (layer, phase) node names: n_layers x 7 */
    const guint16 *layer_id; /* per line, its name's layer id (weft_workload_layer_id()) */
} expand_t;

/* A collective node of layer @l phase @p if it moves bytes in a group of 2+ ranks; else @prev. */
static gint64
add_comm(expand_t *X, seq_t *s, guint l, guint p, gint64 prev)
{
    const layer_t *L = &X->layers[l];
    if (L->group[p] == G_NONE || L->bytes[p] == 0 || X->lo->group_size[L->group[p]] < 2) {
        return -1;
    }
    /* Both formats give an all-gather's size as the gathered output (AICB's sequence-parallel
     * all-gathers are the whole activation); comm_size is each rank's share (formats.md). */
    guint64 bytes = L->bytes[p];
    if (L->op[p] == WEFT_COLL_ALL_GATHER) {
        guint n = X->lo->group_size[L->group[p]];
        bytes = (bytes + n - 1) / n;
    }
    return seq_add(s, WEFT_NODE_COLL, X->names[l * 7 + 4 + p], 0, L->op[p], bytes, L->group[p], 0,
                   0, prev, -1);
}

static void
expand_stage(expand_t *X, guint stage, seq_t *s)
{
    guint pp = X->lo->pp;
    gboolean exchange = pp > 1 && X->pp_comm > 0;
    gint64 prev = -1;
    /* Forward: micro-batches in order, layers in order. */
    for (guint m = 0; m < X->n_mb; m++) {
        seq_at(s, 0, WEFT_PHASE_FORWARD);
        if (exchange && stage > 0) {
            prev = seq_add(s, WEFT_NODE_RECV, "pp_recv_activation", 0, 0, X->pp_comm, G_NONE, -1, m,
                           prev, -1);
        }
        for (guint l = X->mb_start[m]; l < X->mb_start[m + 1]; l++) {
            const layer_t *L = &X->layers[l];
            seq_at(s, X->layer_id[l], WEFT_PHASE_FORWARD);
            if (L->time_ns[PH_FWD] > 0) {
                prev = seq_add(s, WEFT_NODE_COMP, X->names[l * 7 + PH_FWD],
                               L->time_ns[PH_FWD] * PS_PER_NS, 0, 0, G_NONE, 0, 0, prev, -1);
            }
            gint64 c = add_comm(X, s, l, PH_FWD, prev);
            prev = c >= 0 ? c : prev;
        }
        seq_at(s, 0, WEFT_PHASE_FORWARD);
        if (exchange && stage + 1 < pp) {
            seq_add(s, WEFT_NODE_SEND, "pp_send_activation", 0, 0, X->pp_comm, G_NONE, +1, m, prev,
                    -1);
        }
    }
    /* Backward: micro-batches and layers reversed; weight-gradient comm off the chain. */
    g_autofree gint64 *wg_comm = g_new(gint64, MAX(X->n_layers, 1));
    for (guint m = X->n_mb; m-- > 0;) {
        gint64 tag = (gint64)X->n_mb + m;
        seq_at(s, 0, WEFT_PHASE_IGRAD);
        if (exchange && stage + 1 < pp) {
            prev = seq_add(s, WEFT_NODE_RECV, "pp_recv_gradient", 0, 0, X->pp_comm, G_NONE, +1, tag,
                           prev, -1);
        }
        for (guint l = X->mb_start[m + 1]; l-- > X->mb_start[m];) {
            const layer_t *L = &X->layers[l];
            for (guint p = PH_IG; p <= PH_WG; p++) {
                seq_at(s, X->layer_id[l], p == PH_IG ? WEFT_PHASE_IGRAD : WEFT_PHASE_WGRAD);
                if (L->time_ns[p] > 0) {
                    prev = seq_add(s, WEFT_NODE_COMP, X->names[l * 7 + p],
                                   L->time_ns[p] * PS_PER_NS, 0, 0, G_NONE, 0, 0, prev, -1);
                }
                gint64 c = add_comm(X, s, l, p, prev);
                if (p == PH_IG) {
                    prev = c >= 0 ? c : prev;
                } else {
                    wg_comm[l] = c;
                }
            }
        }
        seq_at(s, 0, WEFT_PHASE_IGRAD);
        if (exchange && stage > 0) {
            seq_add(s, WEFT_NODE_SEND, "pp_send_gradient", 0, 0, X->pp_comm, G_NONE, -1, tag, prev,
                    -1);
        }
    }
    /* Weight update: after the backward pass and the layer's own weight-gradient comm. */
    for (guint l = 0; l < X->n_layers; l++) {
        const layer_t *L = &X->layers[l];
        seq_at(s, X->layer_id[l], WEFT_PHASE_OPTIMIZER);
        if (L->time_ns[N_PH] > 0) {
            prev = seq_add(s, WEFT_NODE_COMP, X->names[l * 7 + 3], L->time_ns[N_PH] * PS_PER_NS, 0,
                           0, G_NONE, 0, 0, prev, wg_comm[l]);
        }
    }
}

/* Moves @s into the arrays of @t (the owner of a stage's arrays); text workloads give no
 * FLOPs or tensor sizes. */
static void
seq_to_trace(seq_t *s, weft_rank_trace_t *t)
{
    weft_workload_i_seq_to_trace(&s->b, t);
    t->num_ops = g_new0(double, MAX(t->n_nodes, 1));
    t->tensor_bytes = g_new0(guint64, MAX(t->n_nodes, 1));
    t->layer = (guint16 *)g_array_steal(s->layer, NULL);
    t->phase = (guint8 *)g_array_steal(s->phase, NULL);
    if (t->layer == NULL) { /* no nodes */
        t->layer = g_new0(guint16, 1);
        t->phase = g_new0(guint8, 1);
    }
}

/* Fills the per-rank arrays (communicator, peer) of rank @r from its stage's kinds and directions.
 */
static void
fill_rank(const layout_t *lo, const seq_t *s, guint r, weft_rank_trace_t *t)
{
    guint n = s->b.kind->len;
    guint stride = lo->tp * lo->dp;
    t->comm = g_new(gint32, MAX(n, 1));
    t->peer = g_new(gint32, MAX(n, 1));
    for (guint i = 0; i < n; i++) {
        guint8 k = g_array_index(s->b.kind, guint8, i);
        gint8 dir = g_array_index(s->dir, gint8, i);
        t->comm[i] = k == G_NONE ? -1 : lo->comm_base[k] + (gint32)group_of(lo, k, r);
        t->peer[i] = dir == 0 ? -1 : (gint32)r + dir * (gint32)stride;
    }
}

/* ---- the loader ------------------------------------------------------------------ */

gboolean
weft_workload_is_text(const char *path)
{
    g_return_val_if_fail(path != NULL, FALSE);
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
        return FALSE;
    }
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        return FALSE;
    }
    char buf[128] = {0};
    gboolean ok = fgets(buf, sizeof(buf), fp) != NULL;
    fclose(fp);
    if (!ok) {
        return FALSE;
    }
    buf[strcspn(buf, " \t\r\n")] = '\0';
    return find_par(buf) != NULL;
}

weft_workload_t *
weft_workload_load_text(const char *path, guint n_ranks_hint, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    g_autofree char *text = NULL;
    gsize len = 0;
    g_autoptr(GError) e = NULL;
    if (!g_file_get_contents(path, &text, &len, &e)) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_IO, "%s: %s", path, e->message);
        return NULL;
    }
    if (memchr(text, '\0', len) != NULL) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                    "%s: holds a NUL byte: not a text workload", path);
        return NULL;
    }
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    guint n_lines = g_strv_length(lines);
    header_t h;
    if (n_lines == 0 || !parse_header(path, lines[0], &h, error)) {
        if (n_lines == 0) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT, "%s: empty file",
                        path);
        }
        return NULL;
    }
    guint64 n_layers = 0;
    {
        g_autofree char *l2 = g_strdup(n_lines > 1 ? lines[1] : "");
        g_autoptr(GPtrArray) f = fields(l2);
        if (f->len != 1) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                        "%s:2: expected the number of layer lines alone, found %u fields", path,
                        f->len);
            return NULL;
        }
        if (!parse_uint(path, 2, "layer count", g_ptr_array_index(f, 0), 1u << 24, &n_layers,
                        error)) {
            return NULL;
        }
    }

    /* Rank layout. */
    const char *kw = h.par->keyword;
    gboolean world_only = h.par->fwd == G_WORLD;
    guint64 n = h.have_all_gpus ? h.all_gpus : n_ranks_hint;
    guint64 mp = world_only ? 1 : (h.have_mp ? h.mp : DEFAULT_MP);
    guint64 tp_pp_ep = mp * h.pp * h.ep;
    if (n == 0) {
        n = DEFAULT_RANKS % tp_pp_ep == 0 ? DEFAULT_RANKS : 2 * tp_pp_ep;
    }
    if (n > MAX_RANKS) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_RANKS,
                    "%s:1: %" G_GUINT64_FORMAT " ranks (%s) are more than any cluster holds: at "
                    "most %u",
                    path, n, h.have_all_gpus ? "all_gpus" : "the cluster's", MAX_RANKS);
        return NULL;
    }
    if (n % (mp * h.pp) != 0) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_RANKS,
                    "%s:1: %" G_GUINT64_FORMAT " ranks (%s) are not a multiple of "
                    "model_parallel_NPU_group %" G_GUINT64_FORMAT " x pp %" G_GUINT64_FORMAT,
                    path, n, h.have_all_gpus ? "all_gpus" : "the cluster's", mp, h.pp);
        return NULL;
    }
    guint64 dp = n / (mp * h.pp);
    if (dp % h.ep != 0) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                    "%s:1: ep %" G_GUINT64_FORMAT " does not divide the data-parallel size "
                    "%" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT
                    " ranks / (model_parallel_NPU_group "
                    "%" G_GUINT64_FORMAT " x pp %" G_GUINT64_FORMAT "))",
                    path, h.ep, dp, n, mp, h.pp);
        return NULL;
    }
    if (world_only && (h.pp > 1 || h.ep > 1)) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "%s:1: pp/ep given with %s, which has no rank groups to place them in", path,
                    kw);
        return NULL;
    }

    g_autoptr(weft_workload_t) wl = g_new0(weft_workload_t, 1);
    wl->source = g_strdup(path);
    wl->strings = g_string_chunk_new(4096);
    wl->comms = g_ptr_array_new_with_free_func(weft_workload_i_comm_free);
    wl->n_ranks = (guint)n;
    layout_t lo = {
        .n = (guint)n, .tp = (guint)mp, .pp = (guint)h.pp, .dp = (guint)dp, .ep = (guint)h.ep};
    for (guint k = 0; k < G_N; k++) {
        lo.comm_base[k] = -1;
    }
    build_groups(wl, &lo, G_WORLD);
    {
        g_autofree guint *world = g_new(guint, n);
        for (guint r = 0; r < n; r++) {
            world[r] = r;
        }
        g_ptr_array_add(wl->comms, weft_workload_i_comm_new("0", world, (guint)n));
    }

    /* Layer lines (blank lines skipped; trailing text beyond the count is an error). */
    g_autofree layer_t *layers = g_new0(layer_t, MAX(n_layers, 1));
    guint got = 0, ln = 2;
    for (; ln < n_lines; ln++) {
        if (lines[ln][strspn(lines[ln], " \t\r")] == '\0') {
            continue;
        }
        if (got == n_layers) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                        "%s:%u: more layer lines than the %" G_GUINT64_FORMAT " line 2 announces",
                        path, ln + 1, n_layers);
            return NULL;
        }
        if (!parse_layer(wl, path, ln + 1, lines[ln], &h, &layers[got], error)) {
            return NULL;
        }
        for (guint p = 0; p < N_PH; p++) {
            if (layers[got].group[p] == G_EP || layers[got].group[p] == G_DP_EP) {
                if (world_only) {
                    g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                                "%s:%u: an _EP/_DP_EP comm type in a %s workload, which has no "
                                "expert groups",
                                path, ln + 1, kw);
                    return NULL;
                }
            }
            build_groups(wl, &lo, layers[got].group[p]);
        }
        got++;
    }
    if (got != n_layers) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                    "%s:%u: %u layer lines, but line 2 announces %" G_GUINT64_FORMAT, path, n_lines,
                    got, n_layers);
        return NULL;
    }

    /* Micro-batches: AICB starts each with a line named embedding_layer. */
    GArray *mb = g_array_new(FALSE, FALSE, sizeof(guint));
    g_autoptr(GArray) mb_start = mb;
    guint zero = 0;
    g_array_append_val(mb_start, zero);
    for (guint l = 1; l < got; l++) {
        if (strcmp(layers[l].name, "embedding_layer") == 0) {
            gboolean first = TRUE;
            for (guint j = 0; j < l && first; j++) {
                first = strcmp(layers[j].name, "embedding_layer") != 0;
            }
            if (!first) {
                g_array_append_val(mb_start, l);
            }
        }
    }
    guint n_mb = mb_start->len;
    g_array_append_val(mb_start, got);

    g_autofree const char **names = g_new(const char *, 7 * MAX(got, 1));
    for (guint l = 0; l < got; l++) {
        for (guint p = 0; p < 4; p++) {
            g_autofree char *s = g_strdup_printf("%s.%s", layers[l].name, ph_comp[p]);
            names[l * 7 + p] = g_string_chunk_insert_const(wl->strings, s);
        }
        for (guint p = 0; p < N_PH; p++) {
            g_autofree char *s = g_strdup_printf("%s.%s", layers[l].name, ph_comm[p]);
            names[l * 7 + 4 + p] = g_string_chunk_insert_const(wl->strings, s);
        }
    }
    /* layer ids in line order; AICB's micro-batches repeat the lines: one name, one layer */
    g_autofree guint16 *layer_id = g_new0(guint16, MAX(got, 1));
    for (guint l = 0; l < got; l++) {
        layer_id[l] = weft_workload_layer_id(wl, layers[l].name);
    }
    expand_t X = {wl,  layers, got,     (const guint *)mb_start->data, n_mb, h.pp_comm,
                  &lo, names,  layer_id};
    wl->ranks = g_new0(weft_rank_trace_t, n);
    guint per_stage = lo.tp * lo.dp;
    for (guint st = 0; st < lo.pp; st++) {
        seq_t s;
        seq_init(&s);
        expand_stage(&X, st, &s);
        guint owner = st * per_stage;
        for (guint r = owner; r < owner + per_stage; r++) {
            weft_rank_trace_t *t = &wl->ranks[r];
            fill_rank(&lo, &s, r, t);
            t->file = g_strdup(path);
        }
        seq_to_trace(&s, &wl->ranks[owner]);
        weft_workload_i_seq_lend(&wl->ranks[owner], per_stage);
        seq_clear(&s);
    }
    return g_steal_pointer(&wl);
}

weft_workload_t *
weft_workload_load(const char *path_or_prefix, const char *comm_groups_json, GError **error)
{
    g_return_val_if_fail(path_or_prefix != NULL, NULL);
    return weft_workload_load_chakra(path_or_prefix, comm_groups_json, error);
}
