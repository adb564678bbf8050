/* SPDX-License-Identifier: MIT */
/*
 * Workloads: ownership of the per-rank arrays and communicators, and the checks
 * run before a replay (cycles by Kahn's algorithm, send/receive matching by
 * (src, dst, tag) multiset counts, communicator membership, peer and
 * operation ranges, rank count against the cluster). The Chakra reader lives
 * in chakra.c.
 */
#define G_LOG_DOMAIN "weft-workload"

#include "workload/workload.h"

#include <stdlib.h>
#include <string.h>

#include "workload/chakra.h"
#include "workload/seq.h"

/* clang-format off */
G_DEFINE_QUARK(weft-workload-error-quark, weft_workload_error)
/* clang-format on */

weft_comm_t *
weft_workload_i_comm_new(const char *name, const guint *ranks, guint n_ranks)
{
    weft_comm_t *c = g_new0(weft_comm_t, 1);
    c->name = g_strdup(name);
    c->n_ranks = n_ranks;
    c->ranks = g_new(guint, MAX(n_ranks, 1));
    if (n_ranks > 0) {
        memcpy(c->ranks, ranks, n_ranks * sizeof(guint));
    }
    return c;
}

void
weft_workload_i_comm_free(gpointer comm)
{
    weft_comm_t *c = comm;
    if (c == NULL) {
        return;
    }
    g_free(c->name);
    g_free(c->ranks);
    g_free(c);
}

gboolean
weft_workload_i_toposort(guint n, const guint32 *off, const guint32 *deps, guint *cycle_node)
{
    /* Successor lists in CSR form, built from the predecessor lists. */
    g_autofree guint32 *indeg = g_new0(guint32, MAX(n, 1));
    g_autofree guint32 *soff = g_new0(guint32, n + 1);
    guint32 n_edges = off[n];
    g_autofree guint32 *succ = g_new(guint32, MAX(n_edges, 1));
    for (guint i = 0; i < n; i++) {
        indeg[i] = off[i + 1] - off[i];
        for (guint32 k = off[i]; k < off[i + 1]; k++) {
            soff[deps[k] + 1]++;
        }
    }
    for (guint i = 0; i < n; i++) {
        soff[i + 1] += soff[i];
    }
    g_autofree guint32 *fill = g_memdup2(soff, (n + 1) * sizeof(guint32));
    for (guint i = 0; i < n; i++) {
        for (guint32 k = off[i]; k < off[i + 1]; k++) {
            succ[fill[deps[k]]++] = i;
        }
    }
    g_autofree guint32 *queue = g_new(guint32, MAX(n, 1));
    guint head = 0, tail = 0;
    for (guint i = 0; i < n; i++) {
        if (indeg[i] == 0) {
            queue[tail++] = i;
        }
    }
    while (head < tail) {
        guint32 u = queue[head++];
        for (guint32 k = soff[u]; k < soff[u + 1]; k++) {
            if (--indeg[succ[k]] == 0) {
                queue[tail++] = succ[k];
            }
        }
    }
    if (tail == n) {
        return TRUE;
    }
    if (cycle_node != NULL) {
        /* Every node left has a predecessor that is also left; following such
         * predecessors n times from any left node must end on a cycle. */
        guint v = 0;
        while (indeg[v] == 0) {
            v++;
        }
        for (guint step = 0; step < n; step++) {
            for (guint32 k = off[v]; k < off[v + 1]; k++) {
                if (indeg[deps[k]] > 0) {
                    v = deps[k];
                    break;
                }
            }
        }
        *cycle_node = v;
    }
    return FALSE;
}

static void
rank_trace_clear(weft_rank_trace_t *t)
{
    g_free(t->file);
    g_free(t->peer);
    g_free(t->comm);
    if (t->borrows_arrays) {
        memset(t, 0, sizeof(*t));
        return;
    }
    g_free(t->id);
    g_free(t->name);
    g_free(t->type);
    g_free(t->is_cpu_op);
    g_free(t->duration_ps);
    g_free(t->coll_op);
    g_free(t->comm_bytes);
    g_free(t->tag);
    g_free(t->num_ops);
    g_free(t->tensor_bytes);
    g_free(t->sms_counted);
    g_free(t->mem_alloc);
    g_free(t->mem_free);
    g_free(t->mem_cat);
    g_free(t->involved_dim);
    g_free(t->layer);
    g_free(t->phase);
    g_free(t->dep_off);
    g_free(t->deps);
    memset(t, 0, sizeof(*t));
}

void
weft_workload_free(weft_workload_t *wl)
{
    if (wl == NULL) {
        return;
    }
    for (guint r = 0; r < wl->n_ranks && wl->ranks != NULL; r++) {
        rank_trace_clear(&wl->ranks[r]);
    }
    g_free(wl->ranks);
    if (wl->comms != NULL) {
        g_ptr_array_unref(wl->comms);
    }
    if (wl->strings != NULL) {
        g_string_chunk_free(wl->strings);
    }
    g_free(wl->source);
    if (wl->warnings != NULL) {
        g_ptr_array_unref(wl->warnings);
    }
    g_free(wl->resident);
    if (wl->layers != NULL) {
        g_ptr_array_unref(wl->layers);
    }
    if (wl->layer_ids != NULL) {
        g_hash_table_unref(wl->layer_ids);
    }
    g_free(wl);
}

/* ---- layers and phases -------------------------------------------------------- */

static const char *const phase_names[WEFT_N_PHASES] = {"other", "forward", "recompute",
                                                       "igrad", "wgrad",   "optimizer"};

const char *
weft_phase_name(weft_phase_t phase)
{
    return (guint)phase < WEFT_N_PHASES ? phase_names[phase] : NULL;
}

gboolean
weft_phase_from_name(const char *name, weft_phase_t *phase)
{
    g_return_val_if_fail(name != NULL && phase != NULL, FALSE);
    static const struct {
        const char *alias;
        weft_phase_t phase;
    } aliases[] = {{"fwd", WEFT_PHASE_FORWARD},
                   {"ig", WEFT_PHASE_IGRAD},
                   {"wg", WEFT_PHASE_WGRAD},
                   {"backward", WEFT_PHASE_IGRAD}};
    for (guint p = 0; p < WEFT_N_PHASES; p++) {
        if (strcmp(name, phase_names[p]) == 0) {
            *phase = (weft_phase_t)p;
            return TRUE;
        }
    }
    for (guint i = 0; i < G_N_ELEMENTS(aliases); i++) {
        if (strcmp(name, aliases[i].alias) == 0) {
            *phase = aliases[i].phase;
            return TRUE;
        }
    }
    return FALSE;
}

weft_phase_t
weft_phase_guess(const char *name)
{
    if (name == NULL || name[0] == '\0') {
        return WEFT_PHASE_OTHER;
    }
    if (g_str_has_suffix(name, ".recompute")) {
        return WEFT_PHASE_RECOMPUTE;
    }
    if (strstr(name, "wgrad") != NULL || strstr(name, "weight_grad") != NULL) {
        return WEFT_PHASE_WGRAD;
    }
    if (g_str_has_suffix(name, ".bwd") || strstr(name, "dgrad") != NULL ||
        strstr(name, "backward") != NULL) {
        return WEFT_PHASE_IGRAD;
    }
    if (strstr(name, "optimizer") != NULL || strstr(name, "Optimizer") != NULL ||
        strstr(name, "_foreach_") != NULL) {
        return WEFT_PHASE_OPTIMIZER;
    }
    if (g_str_has_suffix(name, ".fwd") || strstr(name, "forward") != NULL) {
        return WEFT_PHASE_FORWARD;
    }
    return WEFT_PHASE_OTHER;
}

guint16
weft_workload_layer_id(weft_workload_t *wl, const char *name)
{
    g_return_val_if_fail(wl != NULL && name != NULL, 0);
    if (name[0] == '\0' || strcmp(name, "other") == 0) {
        return 0;
    }
    if (wl->layers == NULL) {
        wl->layers = g_ptr_array_new_with_free_func(g_free);
        g_ptr_array_add(wl->layers, g_strdup("other"));
        wl->layer_ids = g_hash_table_new(g_str_hash, g_str_equal);
    }
    gpointer v = g_hash_table_lookup(wl->layer_ids, name);
    if (v != NULL) {
        return (guint16)(GPOINTER_TO_UINT(v) - 1);
    }
    if (wl->layers->len >= WEFT_LAYER_MAX) {
        return 0;
    }
    guint16 id = (guint16)wl->layers->len;
    char *copy = g_strdup(name);
    g_ptr_array_add(wl->layers, copy);
    g_hash_table_insert(wl->layer_ids, copy, GUINT_TO_POINTER((guint)id + 1));
    return id;
}

guint64
weft_workload_node_count(const weft_workload_t *wl)
{
    g_return_val_if_fail(wl != NULL, 0);
    guint64 n = 0;
    for (guint r = 0; r < wl->n_ranks; r++) {
        n += wl->ranks[r].n_nodes;
    }
    return n;
}

const char *
weft_node_type_name(weft_node_type_t type)
{
    /* Chakra's NodeType spellings, without the _NODE suffix, as Chakra's tools print them. */
    switch (type) {
    case WEFT_NODE_INVALID:
        return "INVALID";
    case WEFT_NODE_METADATA:
        return "METADATA";
    case WEFT_NODE_MEM_LOAD:
        return "MEM_LOAD";
    case WEFT_NODE_MEM_STORE:
        return "MEM_STORE";
    case WEFT_NODE_COMP:
        return "COMP";
    case WEFT_NODE_SEND:
        return "COMM_SEND";
    case WEFT_NODE_RECV:
        return "COMM_RECV";
    case WEFT_NODE_COLL:
        return "COMM_COLL";
    }
    return "?";
}

/* A point-to-point matching key: sender, receiver, tag. */
typedef struct {
    guint32 src;
    guint32 dst;
    gint64 tag;
} p2p_key_t;

static guint
p2p_key_hash(gconstpointer p)
{
    const p2p_key_t *k = p;
    guint64 h =
        ((guint64)k->src * 0x9E3779B97F4A7C15ULL) ^ ((guint64)k->dst << 32) ^ (guint64)k->tag;
    return (guint)(h ^ (h >> 32));
}

static gboolean
p2p_key_equal(gconstpointer a, gconstpointer b)
{
    const p2p_key_t *x = a, *y = b;
    return x->src == y->src && x->dst == y->dst && x->tag == y->tag;
}

/* Sends and receives seen for one key. */
typedef struct {
    guint64 sends;
    guint64 recvs;
} p2p_count_t;

static p2p_key_t
node_p2p_key(const weft_rank_trace_t *t, guint rank, guint i)
{
    p2p_key_t k = {0};
    if (t->type[i] == WEFT_NODE_SEND) {
        k.src = rank;
        k.dst = (guint32)t->peer[i];
    } else {
        k.src = (guint32)t->peer[i];
        k.dst = rank;
    }
    k.tag = t->tag[i];
    return k;
}

/* ---- point-to-point matching, fast path ---- */

/* A send or receive as (src << 32 | dst, tag), ordered by both. */
typedef struct {
    guint64 pair;
    gint64 tag;
} p2p_rec_t;

static int
p2p_rec_cmp(const void *a, const void *b)
{
    const p2p_rec_t *x = a, *y = b;
    if (x->pair != y->pair) {
        return x->pair < y->pair ? -1 : 1;
    }
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* Sorts @n records unless they are sorted already (traces list them mostly in order). */
static void
p2p_rec_sort(p2p_rec_t *r, gsize n)
{
    for (gsize i = 1; i < n; i++) {
        if (p2p_rec_cmp(&r[i - 1], &r[i]) > 0) {
            qsort(r, n, sizeof *r, p2p_rec_cmp);
            return;
        }
    }
}

/*
 * Whether every (src, dst, tag) has as many sends as receives, without a table of keys: the
 * sends sorted by key equal the receives sorted by key. Sends come in rank order (src
 * ascending), so sorting each rank's sorts them all; receives come in dst order and are
 * distributed by src first (a counting sort), then sorted within each src. FALSE says only
 * that some key is unbalanced: check_p2p() then finds and names it.
 * Time complexity: O(messages x log(messages per rank)); memory 32 bytes per message.
 */
static gboolean
p2p_balanced(const weft_workload_t *wl)
{
    guint64 n_send = 0, n_recv = 0;
    g_autofree guint64 *recv_off = g_new0(guint64, (gsize)wl->n_ranks + 1);
    for (guint r = 0; r < wl->n_ranks; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 0; i < t->n_nodes; i++) {
            if (t->type[i] == WEFT_NODE_SEND) {
                n_send++;
            } else if (t->type[i] == WEFT_NODE_RECV) {
                if (t->peer[i] < 0 || (guint)t->peer[i] >= wl->n_ranks) {
                    return FALSE; /* out of range (check_rank() names it): no fast path */
                }
                n_recv++;
                recv_off[(guint32)t->peer[i] + 1]++;
            }
        }
    }
    if (n_send != n_recv) {
        return FALSE;
    }
    if (n_send == 0) {
        return TRUE;
    }
    for (guint r = 0; r < wl->n_ranks; r++) {
        recv_off[r + 1] += recv_off[r];
    }
    g_autofree p2p_rec_t *sends = g_new(p2p_rec_t, n_send);
    g_autofree p2p_rec_t *recvs = g_new(p2p_rec_t, n_recv);
    g_autofree guint64 *fill = g_memdup2(recv_off, sizeof(guint64) * wl->n_ranks);
    guint64 ns = 0;
    for (guint r = 0; r < wl->n_ranks; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        guint64 first = ns;
        for (guint i = 0; i < t->n_nodes; i++) {
            if (t->type[i] == WEFT_NODE_SEND) {
                sends[ns].pair = ((guint64)r << 32) | (guint32)t->peer[i];
                sends[ns].tag = t->tag[i];
                ns++;
            } else if (t->type[i] == WEFT_NODE_RECV) {
                guint32 src = (guint32)t->peer[i];
                p2p_rec_t *rec = &recvs[fill[src]++];
                rec->pair = ((guint64)src << 32) | r;
                rec->tag = t->tag[i];
            }
        }
        p2p_rec_sort(sends + first, ns - first);
    }
    for (guint r = 0; r < wl->n_ranks; r++) {
        p2p_rec_sort(recvs + recv_off[r], recv_off[r + 1] - recv_off[r]);
    }
    return memcmp(sends, recvs, sizeof(p2p_rec_t) * n_send) == 0;
}

static gboolean
check_p2p(const weft_workload_t *wl, GError **error)
{
    if (p2p_balanced(wl)) {
        return TRUE;
    }
    g_autoptr(GHashTable) counts =
        g_hash_table_new_full(p2p_key_hash, p2p_key_equal, g_free, g_free);
    for (guint r = 0; r < wl->n_ranks; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 0; i < t->n_nodes; i++) {
            if (t->type[i] != WEFT_NODE_SEND && t->type[i] != WEFT_NODE_RECV) {
                continue;
            }
            p2p_key_t k = node_p2p_key(t, r, i);
            p2p_count_t *c = g_hash_table_lookup(counts, &k);
            if (c == NULL) {
                c = g_new0(p2p_count_t, 1);
                g_hash_table_insert(counts, g_memdup2(&k, sizeof(k)), c);
            }
            if (t->type[i] == WEFT_NODE_SEND) {
                c->sends++;
            } else {
                c->recvs++;
            }
        }
    }
    /* The first node (rank order, then file order) on the surplus side of a key. */
    for (guint r = 0; r < wl->n_ranks; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 0; i < t->n_nodes; i++) {
            if (t->type[i] != WEFT_NODE_SEND && t->type[i] != WEFT_NODE_RECV) {
                continue;
            }
            p2p_key_t k = node_p2p_key(t, r, i);
            const p2p_count_t *c = g_hash_table_lookup(counts, &k);
            gboolean send = t->type[i] == WEFT_NODE_SEND;
            if ((send && c->sends > c->recvs) || (!send && c->recvs > c->sends)) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_UNMATCHED,
                            "%s: rank %u: node %" G_GUINT64_FORMAT
                            " (%s): %s %s rank %d tag %" G_GINT64_FORMAT
                            " has no matching %s (%" G_GUINT64_FORMAT " sends, %" G_GUINT64_FORMAT
                            " receives from rank %u to rank %u "
                            "with that tag)",
                            t->file, r, t->id[i], t->name[i], send ? "send" : "receive",
                            send ? "to" : "from", t->peer[i], t->tag[i], send ? "receive" : "send",
                            c->sends, c->recvs, k.src, k.dst);
                return FALSE;
            }
        }
    }
    return TRUE;
}

static gint
cmp_guint(gconstpointer a, gconstpointer b)
{
    guint x = *(const guint *)a, y = *(const guint *)b;
    return x < y ? -1 : x > y;
}

/* Every communicator's members in increasing order (one array each, in the order of
 * wl->comms), so that membership is a binary search: a linear scan made the check
 * O(ranks^2) per world collective (131,072 ranks with three took minutes; found by
 * tests/fuzz/fuzz_text). O(sum of members x log). Free with free_sorted_members(). */
static guint **
sorted_members(const weft_workload_t *wl)
{
    guint **sorted = g_new0(guint *, MAX(wl->comms->len, 1));
    for (guint k = 0; k < wl->comms->len; k++) {
        const weft_comm_t *c = g_ptr_array_index(wl->comms, k);
        sorted[k] = g_memdup2(c->ranks, MAX(c->n_ranks, 1) * sizeof(guint));
        qsort(sorted[k], c->n_ranks, sizeof(guint), cmp_guint);
    }
    return sorted;
}

static void
free_sorted_members(const weft_workload_t *wl, guint **sorted)
{
    for (guint k = 0; k < wl->comms->len; k++) {
        g_free(sorted[k]);
    }
    g_free(sorted);
}

/* Whether @rank is a member of @c, whose members in increasing order are @sorted. O(log). */
static gboolean
comm_has_rank(const weft_comm_t *c, const guint *sorted, guint rank)
{
    return bsearch(&rank, sorted, c->n_ranks, sizeof(guint), cmp_guint) != NULL;
}

static gboolean
check_rank(const weft_workload_t *wl, guint **sorted, guint r, GError **error)
{
    const weft_rank_trace_t *t = &wl->ranks[r];
    guint on_cycle = 0;
    if (!weft_workload_i_toposort(t->n_nodes, t->dep_off, t->deps, &on_cycle)) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CYCLE,
                    "%s: rank %u: node %" G_GUINT64_FORMAT " (%s) lies on a dependency cycle",
                    t->file, r, t->id[on_cycle], t->name[on_cycle]);
        return FALSE;
    }
    for (guint i = 0; i < t->n_nodes; i++) {
        switch ((weft_node_type_t)t->type[i]) {
        case WEFT_NODE_SEND:
        case WEFT_NODE_RECV:
            if (t->peer[i] < 0 || (guint)t->peer[i] >= wl->n_ranks) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            "%s: rank %u: node %" G_GUINT64_FORMAT " (%s): %s %d is out of "
                            "range: the workload has ranks 0..%u",
                            t->file, r, t->id[i], t->name[i],
                            t->type[i] == WEFT_NODE_SEND ? "comm_dst" : "comm_src", t->peer[i],
                            wl->n_ranks - 1);
                return FALSE;
            }
            break;
        case WEFT_NODE_COLL:
            if (t->is_cpu_op[i]) {
                break; /* host side of a collective: no communicator */
            }
            if (t->coll_op[i] >= WEFT_COLL_N_OPS) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            "%s: rank %u: node %" G_GUINT64_FORMAT " (%s): comm_type %u is out "
                            "of range 0..%d",
                            t->file, r, t->id[i], t->name[i], t->coll_op[i], WEFT_COLL_N_OPS - 1);
                return FALSE;
            }
            if (t->comm[i] < 0 || (guint)t->comm[i] >= wl->comms->len) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                            "%s: rank %u: node %" G_GUINT64_FORMAT " (%s): no communicator",
                            t->file, r, t->id[i], t->name[i]);
                return FALSE;
            }
            const weft_comm_t *c = g_ptr_array_index(wl->comms, t->comm[i]);
            if (!comm_has_rank(c, sorted[t->comm[i]], r)) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                            "%s: rank %u: node %" G_GUINT64_FORMAT " (%s): rank %u is not a "
                            "member of process group '%s' (%u ranks)",
                            t->file, r, t->id[i], t->name[i], r, c->name, c->n_ranks);
                return FALSE;
            }
            break;
        default:
            break;
        }
    }
    return TRUE;
}

/* Workloads with this many ranks are checked in two threads (weft_workload_check()): below it
 * the thread costs more than it saves. */
#define CHECK_THREAD_MIN_RANKS 256u

/* The second thread's share: point-to-point matching, then the ranks from @first on (it
 * matches about as long as the per-rank checks of a fifth of the ranks take). */
typedef struct {
    const weft_workload_t *wl;
    guint **sorted; /* sorted_members(wl) */
    guint first;
    gboolean ranks_ok, p2p_ok;
    GError *ranks_error, *p2p_error;
} check_job_t;

static gpointer
check_job_run(gpointer data)
{
    check_job_t *job = data;
    job->p2p_ok = check_p2p(job->wl, &job->p2p_error);
    job->ranks_ok = TRUE;
    for (guint r = job->first; job->ranks_ok && r < job->wl->n_ranks; r++) {
        job->ranks_ok = check_rank(job->wl, job->sorted, r, &job->ranks_error);
    }
    return NULL;
}

gboolean
weft_workload_check(const weft_workload_t *wl, guint n_gpus, GError **error)
{
    g_return_val_if_fail(wl != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    if (n_gpus > 0 && wl->n_ranks > n_gpus) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_RANKS,
                    "%s: the workload has %u ranks but the cluster has only %u GPUs", wl->source,
                    wl->n_ranks, n_gpus);
        return FALSE;
    }
    /* layers and phases (workload.h): ids the replay's per-layer accounting can index */
    guint n_layers = wl->layers != NULL ? wl->layers->len : 1;
    for (guint r = 0; r < wl->n_ranks; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 0; !t->borrows_arrays && i < t->n_nodes; i++) {
            guint l = t->layer != NULL ? t->layer[i] : 0;
            guint ph = t->phase != NULL ? t->phase[i] : WEFT_PHASE_OTHER;
            if (l >= n_layers || ph >= WEFT_N_PHASES) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            "%s: rank %u node %" G_GUINT64_FORMAT " (%s): %s %u out of range "
                            "(%u known)",
                            t->file != NULL ? t->file : wl->source, r, t->id[i],
                            t->name[i] != NULL ? t->name[i] : "", l >= n_layers ? "layer" : "phase",
                            l >= n_layers ? l : ph, l >= n_layers ? n_layers : WEFT_N_PHASES);
                return FALSE;
            }
        }
    }
    /* On a large workload a second thread matches point-to-point messages and checks the
     * last ranks while this one checks the first (both only read @wl). The first error in
     * the order of one thread is reported: the lowest rank's, then the matching's. */
    guint **sorted = sorted_members(wl);
    check_job_t job = {wl, sorted, wl->n_ranks, TRUE, TRUE, NULL, NULL};
    GThread *th = NULL;
    if (wl->n_ranks >= CHECK_THREAD_MIN_RANKS && g_get_num_processors() > 1) {
        job.first = wl->n_ranks - wl->n_ranks / 5;
        th = g_thread_try_new("weft-check", check_job_run, &job, NULL);
        if (th == NULL) {
            job.first = wl->n_ranks;
        }
    }
    gboolean ok = TRUE;
    GError *mine = NULL;
    for (guint r = 0; ok && r < job.first; r++) {
        ok = check_rank(wl, sorted, r, &mine);
    }
    if (th != NULL) {
        g_thread_join(th);
    } else if (ok) {
        job.p2p_ok = check_p2p(wl, &job.p2p_error);
    }
    free_sorted_members(wl, sorted);
    GError *first = !ok             ? mine
                    : !job.ranks_ok ? job.ranks_error
                    : !job.p2p_ok   ? job.p2p_error
                                    : NULL;
    if (first != mine) {
        g_clear_error(&mine);
    }
    if (first != job.ranks_error) {
        g_clear_error(&job.ranks_error);
    }
    if (first != job.p2p_error) {
        g_clear_error(&job.p2p_error);
    }
    if (first != NULL) {
        g_propagate_error(error, first);
        return FALSE;
    }
    g_debug("workload %s loaded and checked: %u ranks, %" G_GUINT64_FORMAT
            " nodes, %u communicators",
            wl->source, wl->n_ranks, weft_workload_node_count(wl), wl->comms->len);
    return TRUE;
}

/* ---- synthetic workloads ------------------------------------------------------------ */

weft_workload_t *
weft_workload_collective(weft_coll_op_t op, guint64 bytes, guint iterations, guint n_ranks,
                         GError **error)
{
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    if ((guint)op >= WEFT_COLL_N_OPS) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "collective: unknown operation %u", (guint)op);
        return NULL;
    }
    const char *op_name = weft_coll_op_name(op);
    if (op == WEFT_COLL_BARRIER ? bytes != 0 : bytes == 0) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "collective %s: size %" G_GUINT64_FORMAT " B: %s", op_name, bytes,
                    op == WEFT_COLL_BARRIER ? "a barrier carries no data (size 0)"
                                            : "the size must be at least 1 B");
        return NULL;
    }
    if (iterations == 0 || n_ranks == 0) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "collective %s: %u iteration(s) on %u rank(s): both must be at least 1",
                    op_name, iterations, n_ranks);
        return NULL;
    }
    g_autoptr(weft_workload_t) wl = g_new0(weft_workload_t, 1);
    wl->source = g_strdup_printf("%s of %" G_GUINT64_FORMAT " B x %u on %u ranks", op_name, bytes,
                                 iterations, n_ranks);
    wl->strings = g_string_chunk_new(256);
    wl->comms = g_ptr_array_new_with_free_func(weft_workload_i_comm_free);
    wl->n_ranks = n_ranks;
    {
        g_autofree guint *world = g_new(guint, n_ranks);
        for (guint r = 0; r < n_ranks; r++) {
            world[r] = r;
        }
        g_ptr_array_add(wl->comms, weft_workload_i_comm_new("0", world, n_ranks));
    }
    /* One rank's sequence: iteration i waits for iteration i - 1; every rank borrows it. */
    weft_workload_i_seq_t s;
    weft_workload_i_seq_init(&s);
    for (guint i = 0; i < iterations; i++) {
        g_autofree char *name = g_strdup_printf("%s.%u", op_name, i);
        weft_workload_i_seq_push(&s, WEFT_NODE_COLL, g_string_chunk_insert_const(wl->strings, name),
                                 0, (guint8)op, bytes, 0, 0);
        if (i > 0) {
            weft_workload_i_seq_dep(&s, i - 1);
        }
        weft_workload_i_seq_end(&s);
    }
    wl->ranks = g_new0(weft_rank_trace_t, n_ranks);
    for (guint r = 0; r < n_ranks; r++) {
        weft_rank_trace_t *t = &wl->ranks[r];
        t->file = g_strdup_printf("collective rank %u", r);
        t->comm = g_new0(gint32, iterations); /* communicator 0: the world */
        t->peer = g_new(gint32, iterations);
        for (guint i = 0; i < iterations; i++) {
            t->peer[i] = -1;
        }
    }
    weft_rank_trace_t *o = &wl->ranks[0];
    weft_workload_i_seq_to_trace(&s, o);
    o->num_ops = g_new0(double, iterations);
    o->tensor_bytes = g_new(guint64, iterations);
    for (guint i = 0; i < iterations; i++) {
        o->tensor_bytes[i] = bytes;
    }
    weft_workload_i_seq_lend(wl->ranks, n_ranks);
    weft_workload_i_seq_clear(&s);
    return g_steal_pointer(&wl);
}
