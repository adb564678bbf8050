/* SPDX-License-Identifier: MIT */
/*
 * The collective planner (planner.h): per communicator its layout and NCCL's view of it,
 * built on first use; per (operation, size, communicator) the plan, shared between
 * communicators of the same shape; every plan owned here.
 */
#define G_LOG_DOMAIN "weft-coll"

#include "coll/planner.h"

#include "coll/astra_system.h"

#include <string.h>

#include "core/units.h"

/* A registered communicator: its members, and (tuned) its layout and system once built. */
typedef struct {
    guint off, n; /* members: vertices[off .. off + n) */
    guint next;   /* the next communicator whose members hash alike, id + 1; 0: none */
    weft_coll_layout_t *layout;
    weft_coll_system_t *sys;
} planner_comm_t;

/* Cache key: (operation, members, communicator, S); comm is the id + 1 for tuned plans,
 * whose layout and tuning decide the configuration, and 0 for plain plans, which depend
 * on the member count alone. */
typedef struct {
    guint op, n, comm;
    guint involved; /* ASTRA-sim's involved_dim (planner.h); 0 outside ASTRA-sim systems */
    guint64 bytes;
} plan_key_t;

struct weft_coll_planner {
    weft_fabric_t *fabric; /* the run's routes over the cluster (topo/fabric.h); not owned */
    gboolean tuned;
    weft_coll_tuning_t tuning; /* tuned */
    weft_coll_algo_t plain_algo[WEFT_COLL_N_OPS];
    guint chunks;           /* plain */
    const weft_astra_system_t *astra; /* plain: ASTRA-sim's system layer decides (nullable) */
    GArray *vertices;       /* of gint: every communicator's members */
    GArray *comms;          /* of planner_comm_t */
    GHashTable *by_members; /* members_hash() -> the first communicator with it, id + 1 */
    GHashTable *plans;      /* plan_key_t -> weft_coll_plan_t* (in store) */
    GHashTable *shapes;     /* tuned plans by shape (plan_shape()) -> plan (in store) */
    GPtrArray *store;       /* every plan built (owned) */
};

static guint
plan_key_hash(gconstpointer p)
{
    const plan_key_t *k = p;
    return (k->op * 31u + k->n) * 2654435761u ^ (guint)k->bytes ^ (guint)(k->bytes >> 32) ^
           (k->comm * 40503u) ^ (k->involved * 2246822519u);
}

static gboolean
plan_key_equal(gconstpointer a, gconstpointer b)
{
    const plan_key_t *x = a, *y = b;
    return x->op == y->op && x->n == y->n && x->bytes == y->bytes && x->comm == y->comm &&
           x->involved == y->involved;
}

weft_coll_planner_t *
weft_coll_planner_new(weft_fabric_t *fabric, const weft_coll_planner_config_t *config)
{
    g_return_val_if_fail(fabric != NULL || config == NULL || config->tuning == NULL, NULL);
    weft_coll_planner_t *p = g_new0(weft_coll_planner_t, 1);
    p->fabric = fabric;
    p->chunks = 1;
    if (config != NULL) {
        p->tuned = config->tuning != NULL;
        if (p->tuned) {
            p->tuning = *config->tuning;
        }
        memcpy(p->plain_algo, config->plain_algo, sizeof p->plain_algo);
        p->chunks = config->chunks > 0 ? config->chunks : 1;
        p->astra = config->tuning == NULL ? config->astra : NULL;
    }
    p->vertices = g_array_new(FALSE, FALSE, sizeof(gint));
    p->comms = g_array_new(FALSE, FALSE, sizeof(planner_comm_t));
    p->by_members = g_hash_table_new(g_direct_hash, g_direct_equal);
    p->plans = g_hash_table_new_full(plan_key_hash, plan_key_equal, g_free, NULL);
    p->shapes =
        g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
    p->store = g_ptr_array_new_with_free_func((GDestroyNotify)weft_coll_plan_free);
    return p;
}

void
weft_coll_planner_free(weft_coll_planner_t *planner)
{
    if (planner == NULL) {
        return;
    }
    for (guint c = 0; c < planner->comms->len; c++) {
        planner_comm_t *pc = &g_array_index(planner->comms, planner_comm_t, c);
        weft_coll_layout_free(pc->layout);
        g_free(pc->sys);
    }
    g_array_unref(planner->comms);
    g_hash_table_unref(planner->by_members);
    g_array_unref(planner->vertices);
    g_hash_table_unref(planner->plans);
    g_hash_table_unref(planner->shapes);
    g_ptr_array_unref(planner->store);
    g_free(planner);
}

/* FNV-1a over the member count and vertices. */
static guint
members_hash(const gint *v, guint n)
{
    guint32 h = 2166136261u ^ n;
    for (guint i = 0; i < n; i++) {
        h = (h ^ (guint32)v[i]) * 16777619u;
    }
    return h;
}

guint
weft_coll_planner_add_comm(weft_coll_planner_t *planner, const gint *member_vertex, guint n)
{
    g_return_val_if_fail(planner != NULL, G_MAXUINT);
    g_return_val_if_fail(n == 0 || member_vertex != NULL, G_MAXUINT);
    gpointer key = GUINT_TO_POINTER(members_hash(member_vertex, n));
    guint head = GPOINTER_TO_UINT(g_hash_table_lookup(planner->by_members, key));
    for (guint id1 = head; id1 != 0;) {
        const planner_comm_t *pc = &g_array_index(planner->comms, planner_comm_t, id1 - 1);
        if (pc->n == n && (n == 0 || memcmp(&g_array_index(planner->vertices, gint, pc->off),
                                            member_vertex, n * sizeof(gint)) == 0)) {
            return id1 - 1;
        }
        id1 = pc->next;
    }
    planner_comm_t pc = {.off = planner->vertices->len, .n = n, .next = head};
    g_array_append_vals(planner->vertices, member_vertex, n);
    g_array_append_val(planner->comms, pc);
    g_hash_table_insert(planner->by_members, key, GUINT_TO_POINTER(planner->comms->len));
    return planner->comms->len - 1;
}

/* Communicator @comm's layout and system, built on first use (tuned planners). */
static planner_comm_t *
comm_tuned(weft_coll_planner_t *p, guint comm, GError **error)
{
    planner_comm_t *pc = &g_array_index(p->comms, planner_comm_t, comm);
    if (pc->sys == NULL) {
        const gint *v = &g_array_index(p->vertices, gint, pc->off);
        g_autoptr(weft_coll_layout_t) layout = weft_coll_layout_new(p->fabric, v, pc->n);
        g_autofree weft_coll_system_t *sys = g_new0(weft_coll_system_t, 1);
        if (!weft_coll_system_init(sys, p->fabric, layout, &p->tuning, error)) {
            return NULL;
        }
        pc->layout = g_steal_pointer(&layout);
        pc->sys = g_steal_pointer(&sys);
    }
    return pc;
}

gboolean
weft_coll_planner_tuned(const weft_coll_planner_t *planner)
{
    g_return_val_if_fail(planner != NULL, FALSE);
    return planner->tuned;
}

const weft_coll_system_t *
weft_coll_planner_system(weft_coll_planner_t *planner, guint comm, GError **error)
{
    g_return_val_if_fail(planner != NULL && planner->tuned, NULL);
    g_return_val_if_fail(comm < planner->comms->len, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    planner_comm_t *pc = comm_tuned(planner, comm, error);
    return pc != NULL ? pc->sys : NULL;
}

void
weft_coll_sig_u64(GByteArray *sig, guint64 v)
{
    g_byte_array_append(sig, (const guint8 *)&v, sizeof v);
}

void
weft_coll_sig_f64(GByteArray *sig, double v)
{
    guint64 bits;
    memcpy(&bits, &v, sizeof bits);
    weft_coll_sig_u64(sig, bits);
}

void
weft_coll_sig_exec(GByteArray *sig, const weft_coll_exec_t *x)
{
    weft_coll_sig_u64(sig, (guint64)x->base_ps);
    weft_coll_sig_u64(sig, (guint64)x->step_intra_ps);
    weft_coll_sig_u64(sig, (guint64)x->step_inter_ps);
    weft_coll_sig_u64(sig, (guint64)x->msg_ps);
    weft_coll_sig_u64(sig, x->msg_bytes);
    weft_coll_sig_u64(sig, (guint64)x->rendezvous_ps);
    weft_coll_sig_f64(sig, x->efficiency);
    weft_coll_sig_f64(sig, x->efficiency_intra);
    weft_coll_sig_f64(sig, x->efficiency_shared);
    weft_coll_sig_f64(sig, x->channel_Bps);
    weft_coll_sig_f64(sig, x->hbm_Bps);
}

/*
 * The shape of a tuned plan: everything weft_coll_plan_build() and the executor's costs
 * read (operation, size, configuration, costs, and the layout as the builders see it:
 * members' layout domains, positions and rail-sorted order), so that communicators of the
 * same shape (the data-parallel groups of every rail, the TP groups of every node) share
 * one plan. Plans that name cluster vertices (NVLS and CollNet switches as virtual
 * members) are not shared: NULL.
 */
static GBytes *
plan_shape(const weft_coll_layout_t *L, weft_coll_op_t op, guint64 bytes,
           const weft_coll_config_t *cfg, const weft_coll_exec_t *x)
{
    if (cfg->algo == WEFT_COLL_ALGO_NVLS || cfg->algo == WEFT_COLL_ALGO_NVLS_TREE ||
        cfg->algo == WEFT_COLL_ALGO_COLLNET) {
        return NULL;
    }
    GByteArray *sig = g_byte_array_new();
    guint64 head[] = {op,
                      bytes,
                      cfg->algo,
                      cfg->proto,
                      cfg->channels,
                      cfg->chunks,
                      L->n_members,
                      L->n_domains,
                      L->max_per_domain,
                      L->uniform,
                      L->nvls,
                      L->collnet,
                      (guint64)x->base_ps,
                      (guint64)x->step_intra_ps,
                      (guint64)x->step_inter_ps,
                      (guint64)x->msg_ps,
                      x->msg_bytes,
                      (guint64)x->rendezvous_ps};
    for (guint i = 0; i < G_N_ELEMENTS(head); i++) {
        weft_coll_sig_u64(sig, head[i]);
    }
    weft_coll_sig_f64(sig, x->efficiency);
    weft_coll_sig_f64(sig, x->efficiency_intra);
    weft_coll_sig_f64(sig, x->efficiency_shared);
    weft_coll_sig_f64(sig, x->channel_Bps);
    weft_coll_sig_f64(sig, x->hbm_Bps);
    weft_coll_sig_f64(sig, L->hbm_Bps);
    g_byte_array_append(sig, (const guint8 *)L->dom, L->n_members * sizeof(guint));
    g_byte_array_append(sig, (const guint8 *)L->local, L->n_members * sizeof(guint));
    g_byte_array_append(sig, (const guint8 *)L->dom_off, (L->n_domains + 1) * sizeof(guint));
    g_byte_array_append(sig, (const guint8 *)L->dom_members, L->n_members * sizeof(guint));
    return g_byte_array_free_to_bytes(sig);
}

/* The tuned plan of (@op, @bytes) over @pc (shared with every communicator of its shape);
 * @cfg and @costs get NCCL's choice. */
static weft_coll_plan_t *
tuned_plan(weft_coll_planner_t *p, const planner_comm_t *pc, weft_coll_op_t op, guint64 bytes,
           weft_coll_config_t *cfg, weft_coll_costs_t *costs, GError **error)
{
    if (!weft_coll_tune(&p->tuning, pc->sys, op, bytes, cfg, costs, error)) {
        return NULL;
    }
    weft_coll_exec_t exec = {0};
    weft_coll_tuning_fill_exec(pc->sys, costs, &exec);
    g_autoptr(GBytes) shape = plan_shape(pc->layout, op, bytes, cfg, &exec);
    weft_coll_plan_t *plan = shape != NULL ? g_hash_table_lookup(p->shapes, shape) : NULL;
    if (plan != NULL) {
        return plan;
    }
    plan = weft_coll_plan_build(op, cfg, pc->layout, bytes, error);
    if (plan == NULL) {
        return NULL;
    }
    weft_coll_tuning_fill_exec(pc->sys, costs, &plan->exec);
    g_ptr_array_add(p->store, plan);
    g_autofree char *size = weft_units_format_bytes(bytes);
    g_debug("plan %s of %s over %u members: NCCL's model chose %s, %s, %u channels, %u chunks",
            weft_coll_op_name(op), size, pc->n, weft_coll_algo_name(cfg->algo),
            weft_coll_proto_name(cfg->proto), cfg->channels, cfg->chunks);
    if (shape != NULL) {
        g_hash_table_insert(p->shapes, g_bytes_ref(shape), plan);
    }
    return plan;
}

/* The plain model's choice, as the plan shows it. */
static void
plain_choice(const weft_coll_planner_t *p, const weft_coll_plan_t *plan, weft_coll_choice_t *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->config.algo = plan->algo;
    ch->config.proto = plan->proto;
    ch->config.channels = 1;
    ch->config.chunks = p->chunks;
    ch->costs.model_ps = -1;
}

/* A plan as ASTRA-sim's system layer would run the collective (coll/astra_system.h): one
 * wave of its concurrent chunks, run exec.waves times. */
static weft_coll_plan_t *
astra_plan(weft_coll_planner_t *p, const planner_comm_t *pc, weft_coll_op_t op, guint64 size_bytes,
           guint16 involved, weft_coll_choice_t *ch, GError **error)
{
    guint n = pc->n;
    weft_coll_config_t cfg = {.proto = WEFT_COLL_PROTO_SIMPLE, .chunks = 1};
    weft_coll_exec_t exec = {0};
    guint64 bytes;
    weft_astra_op_t aop;
    if (weft_astra_op_of(op, &aop) && p->astra->custom_plan[aop] != NULL) {
        /* "*-implementation-custom": the Chakra ET's plan, as written, for every size
         * (ASTRA-sim 518bd513 CustomAlgorithm.cc); owned by the system */
        weft_coll_plan_t *custom = p->astra->custom_plan[aop];
        if (custom->n_members != n) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                        "%s: key \"%s-implementation-custom\": %s has %u ranks of Chakra ET "
                        "but the %s communicator has %u members",
                        p->astra->path, weft_astra_op_key(aop), p->astra->custom[aop],
                        custom->n_members, weft_coll_op_name(op), n);
            return NULL;
        }
        memset(ch, 0, sizeof *ch);
        ch->config = (weft_coll_config_t){.algo = custom->algo,
                                          .proto = custom->proto,
                                          .channels = custom->channels,
                                          .chunks = custom->chunks};
        ch->costs.model_ps = -1;
        return custom;
    }
    guint n_dims = 0;
    const guint *dims =
        p->fabric != NULL ? weft_topo_astra_dims(weft_fabric_topo(p->fabric), &n_dims) : NULL;
    guint64 total = 1;
    for (guint d = 0; dims != NULL && d < n_dims; d++) {
        total *= dims[d];
    }
    /* Sys.cc determine_chunk_size() raises a chunk to the network's NPU count (total_nodes),
     * even for a communicator group's collective */
    guint npus = dims != NULL && total <= G_MAXUINT ? (guint)total : n;
    if (!weft_astra_system_plan(p->astra, op, npus, size_bytes, &cfg.algo, &cfg.channels, &bytes,
                                &exec, error)) {
        return NULL;
    }
    /* The whole of a multi-dimensional ASTRA-sim network: one phase per dimension, the
     * streams pipelined across the dimensions' queues (astra_system.h) */
    if (weft_astra_system_phases(p->astra, op, n, dims, n_dims)) {
        const gint *v = &g_array_index(p->vertices, gint, pc->off);
        weft_coll_plan_t *plan = weft_astra_system_plan_phases(
            p->astra, p->fabric, v, op, n, size_bytes, dims, n_dims, involved, error);
        if (plan == NULL) {
            return NULL;
        }
        g_ptr_array_add(p->store, plan);
        memset(ch, 0, sizeof *ch);
        ch->config = (weft_coll_config_t){
            .algo = plan->algo, .proto = plan->proto, .channels = plan->channels, .chunks = 1};
        ch->costs.model_ps = -1;
        return plan;
    }
    /* A communicator group of fewer NPUs than the network: ASTRA-sim runs it as one ring
     * dimension over its NPUs, and with Ring whenever the file lists more than one
     * implementation (CommunicatorGroup.cc get_collective_plan(), 518bd513) */
    if (dims != NULL && total != n && p->astra->n_dims[aop] > 1 && op != WEFT_COLL_ALL_TO_ALL) {
        cfg.algo = WEFT_COLL_ALGO_RING;
    }
    g_autoptr(weft_coll_layout_t) flat = weft_coll_layout_new_flat(n);
    /* ASTRA-sim's halvingDoubling, one message per step (weft_astra_hd_plan()); weft's
     * own builder where ASTRA-sim's needs a power of two it does not have */
    gboolean astra_hd = cfg.algo == WEFT_COLL_ALGO_HALVING_DOUBLING && n >= 2 &&
                        (n & (n - 1)) == 0 &&
                        (op == WEFT_COLL_ALL_REDUCE || op == WEFT_COLL_ALL_GATHER ||
                         op == WEFT_COLL_REDUCE_SCATTER);
    weft_coll_plan_t *plan = astra_hd ? weft_astra_hd_plan(op, n, bytes, cfg.channels, &exec)
                                      : weft_coll_plan_build(op, &cfg, flat, bytes, error);
    if (plan == NULL) {
        g_prefix_error(error, "%s: ", p->astra->path);
        return NULL;
    }
    plan->exec.base_ps = exec.base_ps;
    plan->exec.step_intra_ps = exec.step_intra_ps;
    plan->exec.step_inter_ps = exec.step_inter_ps;
    plan->exec.hbm_Bps = exec.hbm_Bps;
    plan->exec.reduce_trunc_ns = exec.reduce_trunc_ns;
    plan->exec.net_trunc_ns = exec.net_trunc_ns;
    plan->exec.waves = exec.waves;
    g_ptr_array_add(p->store, plan);
    memset(ch, 0, sizeof *ch);
    ch->config = cfg;
    ch->costs.model_ps = -1;
    g_debug("plan %s over %u members: ASTRA-sim system %s: %s, %u concurrent chunks of %" G_GUINT64_FORMAT
            " B, %u waves", weft_coll_op_name(op), n, p->astra->path, weft_coll_algo_name(cfg.algo),
            plan->channels, bytes / MAX(cfg.channels, 1), exec.waves);
    return plan;
}

const weft_coll_plan_t *
weft_coll_planner_plan(weft_coll_planner_t *planner, weft_coll_op_t op, guint64 size_bytes,
                       guint comm, weft_coll_choice_t *choice, GError **error)
{
    return weft_coll_planner_plan_dims(planner, op, size_bytes, comm, 0, choice, error);
}

const weft_coll_plan_t *
weft_coll_planner_plan_dims(weft_coll_planner_t *planner, weft_coll_op_t op, guint64 size_bytes,
                            guint comm, guint16 involved_dim, weft_coll_choice_t *choice,
                            GError **error)
{
    g_return_val_if_fail(planner != NULL, NULL);
    g_return_val_if_fail((guint)op < WEFT_COLL_N_OPS, NULL);
    g_return_val_if_fail(comm < planner->comms->len, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    weft_coll_planner_t *p = planner;
    const planner_comm_t *pc = &g_array_index(p->comms, planner_comm_t, comm);
    if (p->astra == NULL) {
        involved_dim = 0; /* only ASTRA-sim's system layer reads it */
    }
    plan_key_t key = {op, pc->n, p->tuned ? comm + 1 : 0, involved_dim, size_bytes};
    weft_coll_plan_t *plan = g_hash_table_lookup(p->plans, &key);
    if (plan != NULL) {
        if (choice != NULL && p->tuned) {
            /* the same lookup that chose the plan: it cannot fail now */
            memset(choice, 0, sizeof *choice);
            choice->tuned = TRUE;
            if (!weft_coll_tune(&p->tuning, pc->sys, op, size_bytes, &choice->config,
                                &choice->costs, NULL)) {
                g_assert_not_reached();
            }
        } else if (choice != NULL) {
            plain_choice(p, plan, choice);
            if (p->astra != NULL && weft_astra_op_of(op, &(weft_astra_op_t){0})) {
                choice->config.channels = plan->channels;
                choice->config.chunks = 1;
            }
        }
        return plan;
    }
    weft_coll_choice_t local;
    weft_coll_choice_t *ch = choice != NULL ? choice : &local;
    if (p->tuned) {
        pc = comm_tuned(p, comm, error);
        if (pc == NULL) {
            return NULL;
        }
        memset(ch, 0, sizeof *ch);
        ch->tuned = TRUE;
        plan = tuned_plan(p, pc, op, size_bytes, &ch->config, &ch->costs, error);
    } else if (p->astra != NULL && weft_astra_op_of(op, &(weft_astra_op_t){0})) {
        plan = astra_plan(p, pc, op, size_bytes, involved_dim, ch, error);
    } else {
        plan = weft_coll_plan_new(op, p->plain_algo[op], pc->n, size_bytes, p->chunks, error);
        if (plan != NULL) {
            g_ptr_array_add(p->store, plan);
            plain_choice(p, plan, ch);
            g_autofree char *size = weft_units_format_bytes(size_bytes);
            g_debug("plan %s of %s over %u members: plain %s, %u chunks", weft_coll_op_name(op),
                    size, pc->n, weft_coll_algo_name(p->plain_algo[op]), p->chunks);
        }
    }
    if (plan == NULL) {
        return NULL;
    }
    g_hash_table_insert(p->plans, g_memdup2(&key, sizeof key), plan);
    return plan;
}

void
weft_coll_planner_forget(weft_coll_planner_t *planner)
{
    g_return_if_fail(planner != NULL);
    g_hash_table_remove_all(planner->plans);
    g_hash_table_remove_all(planner->shapes);
    g_ptr_array_set_size(planner->store, 0);
}
