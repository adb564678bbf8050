/* SPDX-License-Identifier: MIT */
/*
 * A custom collective given as Chakra ET (ASTRA-sim's all-reduce-implementation-custom:
 * one trace per rank of SEND, RECV and COMP nodes) lowered to a collective plan, so that
 * `weft coll --algo custom:PREFIX` runs it like any other plan (workload.h:
 * weft_workload_custom_plan()).
 */
#include "workload/workload.h"

#include <string.h>

#define NONE G_MAXUINT32

typedef struct {
    guint32 pred;
    guint32 succ;
    guint8 kind;
} dep_t;

/* (src, dst, tag) of a SEND/RECV pair, and its FIFO position, as one hash key. */
typedef struct {
    guint32 src;
    guint32 dst;
    gint64 tag;
    guint32 k;
} pair_key_t;

static guint
pair_hash(gconstpointer p)
{
    const pair_key_t *k = p;
    return g_int64_hash(&k->tag) ^ (k->src * 2654435761u) ^ (k->dst * 40503u) ^ (k->k * 97u);
}

static gboolean
pair_equal(gconstpointer a, gconstpointer b)
{
    const pair_key_t *x = a, *y = b;
    return x->src == y->src && x->dst == y->dst && x->tag == y->tag && x->k == y->k;
}

weft_coll_plan_t *
weft_workload_custom_plan(const weft_workload_t *wl, weft_coll_op_t op, GError **error)
{
    g_return_val_if_fail(wl != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    guint R = wl->n_ranks;
    /* flat node index: base[r] + i */
    g_autofree guint32 *base = g_new0(guint32, R + 1);
    for (guint r = 0; r < R; r++) {
        guint64 next = (guint64)base[r] + wl->ranks[r].n_nodes;
        if (next >= G_MAXUINT32 / 2) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        "%s: more nodes than a plan may hold", wl->source);
            return NULL;
        }
        base[r + 1] = (guint32)next;
    }
    guint N = base[R];
    g_autofree guint32 *rank_of = g_new(guint32, MAX(N, 1));
    g_autofree guint32 *match = g_new(guint32, MAX(N, 1)); /* RECV -> its SEND */
    memset(match, 0xff, sizeof(guint32) * MAX(N, 1));
    /* the k-th SEND of each (src, dst, tag) */
    g_autoptr(GHashTable) sends = g_hash_table_new_full(pair_hash, pair_equal, g_free, NULL);
    g_autoptr(GHashTable) counts = g_hash_table_new_full(pair_hash, pair_equal, g_free, NULL);
    for (guint r = 0; r < R; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 0; i < t->n_nodes; i++) {
            rank_of[base[r] + i] = r;
            guint8 ty = t->type[i];
            if (ty != WEFT_NODE_SEND && ty != WEFT_NODE_RECV && ty != WEFT_NODE_COMP &&
                ty != WEFT_NODE_METADATA) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            "%s: node %" G_GUINT64_FORMAT " (%s) has type %u: a custom collective "
                            "holds only SEND, RECV and COMP nodes",
                            t->file, t->id[i], t->name[i], ty);
                return NULL;
            }
            if ((ty == WEFT_NODE_SEND || ty == WEFT_NODE_RECV) &&
                (t->peer[i] < 0 || (guint)t->peer[i] >= R || (guint)t->peer[i] == r)) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            "%s: node %" G_GUINT64_FORMAT " (%s): peer %d is not another of the "
                            "%u ranks",
                            t->file, t->id[i], t->name[i], t->peer[i], R);
                return NULL;
            }
            if (ty != WEFT_NODE_SEND) {
                continue;
            }
            pair_key_t c = {r, (guint32)t->peer[i], t->tag[i], 0};
            guint k = GPOINTER_TO_UINT(g_hash_table_lookup(counts, &c));
            g_hash_table_replace(counts, g_memdup2(&c, sizeof c), GUINT_TO_POINTER(k + 1));
            pair_key_t key = {r, (guint32)t->peer[i], t->tag[i], k};
            g_hash_table_insert(sends, g_memdup2(&key, sizeof key),
                                GUINT_TO_POINTER(base[r] + i + 1));
        }
    }
    g_hash_table_remove_all(counts);
    guint n_matched = 0;
    for (guint r = 0; r < R; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 0; i < t->n_nodes; i++) {
            if (t->type[i] != WEFT_NODE_RECV) {
                continue;
            }
            pair_key_t c = {(guint32)t->peer[i], r, t->tag[i], 0};
            guint k = GPOINTER_TO_UINT(g_hash_table_lookup(counts, &c));
            g_hash_table_replace(counts, g_memdup2(&c, sizeof c), GUINT_TO_POINTER(k + 1));
            pair_key_t key = {(guint32)t->peer[i], r, t->tag[i], k};
            gpointer s = g_hash_table_lookup(sends, &key);
            if (s == NULL) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_UNMATCHED,
                            "%s: node %" G_GUINT64_FORMAT
                            " (%s): RECV %u from rank %d (tag %" G_GINT64_FORMAT
                            ") has no matching SEND",
                            t->file, t->id[i], t->name[i], k, t->peer[i], t->tag[i]);
                return NULL;
            }
            match[base[r] + i] = GPOINTER_TO_UINT(s) - 1;
            n_matched++;
        }
    }
    if (n_matched != g_hash_table_size(sends)) {
        /* the first SEND no RECV took */
        g_autofree guint8 *taken = g_new0(guint8, MAX(N, 1));
        for (guint f = 0; f < N; f++) {
            if (match[f] != NONE) {
                taken[match[f]] = 1;
            }
        }
        for (guint r = 0; r < R; r++) {
            const weft_rank_trace_t *t = &wl->ranks[r];
            for (guint i = 0; i < t->n_nodes; i++) {
                if (t->type[i] == WEFT_NODE_SEND && !taken[base[r] + i]) {
                    g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_UNMATCHED,
                                "%s: node %" G_GUINT64_FORMAT
                                " (%s): SEND to rank %d (tag %" G_GINT64_FORMAT
                                ") has no matching RECV",
                                t->file, t->id[i], t->name[i], t->peer[i], t->tag[i]);
                    return NULL;
                }
            }
        }
    }

    /* a topological order over the ranks: each node's deps, and a RECV's SEND */
    g_autofree guint32 *indeg = g_new0(guint32, MAX(N, 1));
    g_autofree guint32 *soff = g_new0(guint32, N + 1);
    for (guint r = 0; r < R; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 0; i < t->n_nodes; i++) {
            guint32 f = base[r] + i;
            for (guint32 e = t->dep_off[i]; e < t->dep_off[i + 1]; e++) {
                indeg[f]++;
                soff[base[r] + t->deps[e] + 1]++;
            }
            if (match[f] != NONE) {
                indeg[f]++;
                soff[match[f] + 1]++;
            }
        }
    }
    for (guint f = 0; f < N; f++) {
        soff[f + 1] += soff[f];
    }
    g_autofree guint32 *succ = g_new(guint32, MAX(soff[N], 1));
    g_autofree guint32 *fill = g_memdup2(soff, sizeof(guint32) * (N + 1));
    for (guint r = 0; r < R; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 0; i < t->n_nodes; i++) {
            guint32 f = base[r] + i;
            for (guint32 e = t->dep_off[i]; e < t->dep_off[i + 1]; e++) {
                succ[fill[base[r] + t->deps[e]]++] = f;
            }
            if (match[f] != NONE) {
                succ[fill[match[f]]++] = f;
            }
        }
    }
    g_autofree guint32 *order = g_new(guint32, MAX(N, 1));
    guint head = 0, tail = 0;
    for (guint f = 0; f < N; f++) {
        if (indeg[f] == 0) {
            order[tail++] = f;
        }
    }
    while (head < tail) {
        guint32 f = order[head++];
        for (guint32 e = soff[f]; e < soff[f + 1]; e++) {
            if (--indeg[succ[e]] == 0) {
                order[tail++] = succ[e];
            }
        }
    }
    if (tail < N) {
        guint32 f = 0;
        while (indeg[f] == 0) {
            f++;
        }
        const weft_rank_trace_t *t = &wl->ranks[rank_of[f]];
        guint i = f - base[rank_of[f]];
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CYCLE,
                    "%s: node %" G_GUINT64_FORMAT " (%s) waits in a cycle of dependencies and "
                    "SEND/RECV matches (the collective deadlocks)",
                    t->file, t->id[i], t->name[i]);
        return NULL;
    }

    /* the plan, one transfer per node in that order */
    g_autofree guint32 *xfer_of = g_new(guint32, MAX(N, 1));
    weft_coll_plan_t *plan = g_new0(weft_coll_plan_t, 1);
    plan->op = op;
    plan->algo = WEFT_COLL_ALGO_DIRECT;
    plan->custom = TRUE;
    plan->proto = WEFT_COLL_PROTO_SIMPLE;
    plan->n_members = R;
    plan->channels = 1;
    plan->chunks = 1;
    plan->exec.efficiency = 1.0;
    plan->n_xfers = N;
    plan->xfers = g_new0(weft_coll_xfer_t, MAX(N, 1));
    g_autoptr(GArray) deps = g_array_new(FALSE, FALSE, sizeof(dep_t));
    for (guint j = 0; j < N; j++) {
        guint32 f = order[j];
        guint r = rank_of[f];
        const weft_rank_trace_t *t = &wl->ranks[r];
        guint i = f - base[r];
        weft_coll_xfer_t *x = &plan->xfers[j];
        *x = (weft_coll_xfer_t){.src = r, .dst = r, .sharing = 1};
        if (t->type[i] == WEFT_NODE_SEND) {
            x->dst = (guint32)t->peer[i];
            x->bytes = t->comm_bytes[i];
            x->flags = WEFT_COLL_XFER_INTER; /* members have no NVLink domains here */
            plan->moved_bytes += x->bytes;
            plan->size_bytes = MAX(plan->size_bytes, x->bytes);
        } else if (t->type[i] == WEFT_NODE_COMP) {
            x->flags = WEFT_COLL_XFER_COPY | WEFT_COLL_XFER_DELAY;
            x->bytes = (guint64)MAX(t->duration_ps[i], 0);
        } else {
            x->flags = WEFT_COLL_XFER_COPY;
        }
        xfer_of[f] = j;
        for (guint32 e = t->dep_off[i]; e < t->dep_off[i + 1]; e++) {
            guint32 p = base[r] + t->deps[e];
            dep_t d = {.pred = xfer_of[p],
                       .succ = j,
                       .kind = t->type[t->deps[e]] == WEFT_NODE_SEND ? WEFT_COLL_DEP_LINK
                                                                     : WEFT_COLL_DEP_DATA};
            g_array_append_val(deps, d);
        }
        if (match[f] != NONE) {
            dep_t d = {.pred = xfer_of[match[f]], .succ = j, .kind = WEFT_COLL_DEP_DATA};
            g_array_append_val(deps, d);
        }
    }
    plan->space_bytes = plan->size_bytes;
    guint nd = deps->len;
    const dep_t *dd = (const dep_t *)(void *)deps->data;
    plan->n_preds = g_new0(guint32, MAX(N, 1));
    plan->succ_off = g_new0(guint32, N + 1);
    plan->succ = g_new(guint32, MAX(nd, 1));
    plan->succ_kind = g_new(guint8, MAX(nd, 1));
    for (guint e = 0; e < nd; e++) {
        g_assert(dd[e].pred < dd[e].succ);
        plan->n_preds[dd[e].succ]++;
        plan->succ_off[dd[e].pred + 1]++;
    }
    for (guint j = 0; j < N; j++) {
        plan->succ_off[j + 1] += plan->succ_off[j];
    }
    g_autofree guint32 *at = g_memdup2(plan->succ_off, sizeof(guint32) * (N + 1));
    for (guint e = 0; e < nd; e++) {
        guint32 k = at[dd[e].pred]++;
        plan->succ[k] = dd[e].succ;
        plan->succ_kind[k] = dd[e].kind;
    }
    return plan;
}

/* Where ASTRA-sim would find the ET files of @prefix: relative to the working directory
 * (CustomAlgorithm.cc's rule), else relative to the system file's directory or one of its
 * ancestors (ASTRA-sim's examples name paths from the repository's root, three levels
 * above the file). NULL when "<prefix>.0.et" is in none of them. */
static char *
find_custom_prefix(const char *prefix, const char *system_path)
{
    g_autofree char *first = g_strdup_printf("%s.0.et", prefix);
    if (g_file_test(first, G_FILE_TEST_IS_REGULAR) || g_path_is_absolute(prefix)) {
        return g_file_test(first, G_FILE_TEST_IS_REGULAR) ? g_strdup(prefix) : NULL;
    }
    g_autofree char *abs = g_canonicalize_filename(system_path, NULL);
    g_autofree char *dir = g_path_get_dirname(abs);
    for (guint depth = 0; depth < 64; depth++) { /* bounded: a path has fewer levels */
        g_autofree char *cand = g_build_filename(dir, prefix, NULL);
        g_autofree char *cand0 = g_strdup_printf("%s.0.et", cand);
        if (g_file_test(cand0, G_FILE_TEST_IS_REGULAR)) {
            return g_steal_pointer(&cand);
        }
        g_autofree char *up = g_path_get_dirname(dir);
        if (strcmp(up, dir) == 0) {
            break;
        }
        g_free(dir);
        dir = g_steal_pointer(&up);
    }
    return NULL;
}

gboolean
weft_workload_astra_custom_plans(weft_astra_system_t *sys, GError **error)
{
    g_return_val_if_fail(sys != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    static const weft_coll_op_t ops[WEFT_ASTRA_N_OPS] = {
        [WEFT_ASTRA_OP_ALL_REDUCE] = WEFT_COLL_ALL_REDUCE,
        [WEFT_ASTRA_OP_ALL_GATHER] = WEFT_COLL_ALL_GATHER,
        [WEFT_ASTRA_OP_REDUCE_SCATTER] = WEFT_COLL_REDUCE_SCATTER,
        [WEFT_ASTRA_OP_ALL_TO_ALL] = WEFT_COLL_ALL_TO_ALL,
    };
    for (guint a = 0; a < WEFT_ASTRA_N_OPS; a++) {
        if (sys->custom[a] == NULL || sys->custom_plan[a] != NULL) {
            continue;
        }
        g_autofree char *prefix = find_custom_prefix(sys->custom[a], sys->path);
        if (prefix == NULL) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_IO,
                        "%s: key \"%s-implementation-custom\": no %s.0.et relative to the "
                        "working directory, the system file's directory or its parents",
                        sys->path, weft_astra_op_key(a), sys->custom[a]);
            return FALSE;
        }
        GError *e = NULL;
        g_autoptr(weft_workload_t) et = weft_workload_load_chakra(prefix, NULL, &e);
        weft_coll_plan_t *plan = et != NULL ? weft_workload_custom_plan(et, ops[a], &e) : NULL;
        if (plan == NULL) {
            g_propagate_prefixed_error(error, e, "%s: key \"%s-implementation-custom\": ",
                                       sys->path, weft_astra_op_key(a));
            return FALSE;
        }
        sys->custom_plan[a] = plan;
    }
    return TRUE;
}
