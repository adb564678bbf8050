/* SPDX-License-Identifier: MIT */
/*
 * The analytical sweep of an implicit ring plan (coll.h, weft_coll_sweep()): what the event
 * executor (coll_run.c) does to the plan under the analytical model, computed in the plan's
 * topological order instead of time order. Under that model a transfer's timing depends on
 * nothing but its own start, route and size (links are not shared), so its start is the
 * max-plus recurrence of the executor's rules:
 *     start(k, c, i) = max(t0, release(k - 1, c, i - 1), sent(previous transfer of i))
 *     sent = start + S / min(B x eff, cap),  delivered = sent + L,
 *     release = delivered + post-delay (step latency, and the HBM reduction)
 * for step k, chunk c and position i of a channel's ring, t0 the base latency; the plan ends
 * at the latest release. The link statistics follow the analytical model's definitions
 * (net.h): each transfer's bandwidth phase [start, sent) at its wire rate times the path
 * share on every edge of its route, bytes credited as wire bytes times share. An edge that
 * only one (channel, position, path) crosses sees that position's phases in start order,
 * one after another (the link dependency), so its busy time is their summed length and its
 * peak the largest usage over capacity, computed as they come; an edge crossed by several
 * keeps its phases and sorts them (weft_net_phases_busy_peak()).
 */
#define G_LOG_DOMAIN "weft-coll"

#include "coll/coll.h"

#include <math.h>
#include <string.h>

#include "coll/coll_private.h"

/* Phases kept for edges crossed by several of a plan's pairs: beyond this, run events. */
#define SWEEP_PHASE_BUDGET (1u << 22)

typedef struct {
    gint edge;
    guint n_streams; /* (channel, position, path) crossing it */
    guint credited;  /* sweep_uniform(): streams credited so far */
    double cap_Bps;
    guint64 bytes_fx;
    weft_time_t busy_ps;
    double peak_util;
    GArray *phases; /* of weft_net_phase_t, when n_streams > 1 */
} edge_acc_t;

/* One hop of a position's route: the edge's accumulator and the path's share. */
typedef struct {
    guint slot;
    double share;
} hop_t;

/* A position of a channel's ring: its transfer costs. */
typedef struct {
    const weft_route_t *r; /* NULL: a local copy */
    double eff, cap;
    weft_time_t step_ps; /* post-delay before the reduction */
    guint32 hop_off;     /* its hops: hops[hop_off .. next position's hop_off) */
} pos_t;

typedef struct {
    const weft_coll_implicit_t *im;
    const weft_coll_exec_t *x;
    pos_t *pos; /* channels x g */
    GArray *hops;
    GArray *acc; /* of edge_acc_t */
    gboolean buffered; /* some edges keep their phases (n_streams > 1) */
    gboolean uniform;  /* all_uniform() */
} sweep_t;

/* Whether step @k of the ring reduces at the receiver. */
static gboolean
step_reduces(const weft_coll_implicit_t *im, guint k)
{
    return im->kind == WEFT_COLL_I_RING_RS || (im->kind == WEFT_COLL_I_RING_AR && k < im->g - 1);
}

/* One transfer of position @p, of @len bytes, starting at @start: its phase and bytes on
 * every edge of its route. */
static void
account(sweep_t *w, const pos_t *p, guint32 hop_end, guint64 len, weft_time_t start,
        weft_time_t sent)
{
    if (p->r == NULL) {
        return;
    }
    const hop_t *h = &g_array_index(w->hops, hop_t, 0);
    double rate = MIN(p->r->rate_Bps * p->eff, p->cap);
    double wire = rate / p->eff;
    double wire_bytes = (double)len / p->eff;
    for (guint32 j = p->hop_off; j < hop_end; j++) {
        edge_acc_t *a = &g_array_index(w->acc, edge_acc_t, h[j].slot);
        if (wire_bytes > 0.0) {
            a->bytes_fx += weft_net_bytes_fx(wire_bytes, h[j].share);
        }
        if (sent <= start) {
            continue; /* no bandwidth phase */
        }
        double usage = wire * h[j].share;
        if (a->phases != NULL) {
            weft_net_phase_t ph = {start, sent, usage};
            g_array_append_val(a->phases, ph);
            continue;
        }
        a->busy_ps += sent - start;
        if (a->cap_Bps > 0.0 && usage / a->cap_Bps > a->peak_util) {
            a->peak_util = usage / a->cap_Bps;
        }
    }
}

/* The hops of position @k (flat index) end where the next one's begin. */
static guint32
hop_end(const sweep_t *w, gsize k, gsize n)
{
    return k + 1 < n ? w->pos[k + 1].hop_off : w->hops->len;
}

/* Whether positions @i and @k (flat indices) cost the same and own as many bytes. */
static gboolean
same_pos(const sweep_t *w, gsize i, gsize k)
{
    const weft_coll_implicit_t *im = w->im;
    gsize n = (gsize)im->g * im->channels;
    const pos_t *a = &w->pos[i], *b = &w->pos[k];
    if (im->plen[k] != im->plen[i] || b->eff != a->eff || b->cap != a->cap ||
        b->step_ps != a->step_ps || (a->r == NULL) != (b->r == NULL) ||
        hop_end(w, k, n) - b->hop_off != hop_end(w, i, n) - a->hop_off) {
        return FALSE;
    }
    if (a->r == NULL) {
        return TRUE;
    }
    if (a->r->latency_ps != b->r->latency_ps || a->r->rate_Bps != b->r->rate_Bps ||
        a->r->n_paths != b->r->n_paths) {
        return FALSE;
    }
    for (guint p = 0; p < a->r->n_paths; p++) {
        if (a->r->share[p] != b->r->share[p] ||
            a->r->path_off[p + 1] - a->r->path_off[p] != b->r->path_off[p + 1] - b->r->path_off[p]) {
            return FALSE;
        }
    }
    return TRUE;
}

/*
 * Whether all positions of all channels run at the same times, and every edge sees k
 * copies of one phase sequence at once (its k streams alike): every position costs the
 * same and owns as many bytes, and the streams crossing an edge have equal shares (then
 * their usages are equal, the route's rate being fixed per position).
 */
static gboolean
all_uniform(const sweep_t *w)
{
    gsize n = (gsize)w->im->g * w->im->channels;
    for (gsize k = 1; k < n; k++) {
        if (!same_pos(w, 0, k)) {
            return FALSE;
        }
    }
    const hop_t *h = &g_array_index(w->hops, hop_t, 0);
    g_autofree double *share = g_new(double, MAX(w->acc->len, 1u));
    for (guint a = 0; a < w->acc->len; a++) {
        share[a] = -1.0;
    }
    for (guint j = 0; j < w->hops->len; j++) {
        if (share[h[j].slot] >= 0.0 && share[h[j].slot] != h[j].share) {
            return FALSE;
        }
        share[h[j].slot] = h[j].share;
    }
    return TRUE;
}

/* The post-delay of a transfer of @len bytes of position @p at step @k. */
static inline weft_time_t
post_of(const sweep_t *w, const pos_t *p, guint k, guint64 len)
{
    weft_time_t d = p->step_ps;
    if (step_reduces(w->im, k) && w->x->hbm_Bps > 0.0) {
        d += weft_time_for_bytes(3 * len, w->x->hbm_Bps);
    }
    return d;
}

/* a + b for non-negative times, saturating at WEFT_TIME_MAX as the network's clock does */
static inline weft_time_t
sat_add(weft_time_t a, weft_time_t b)
{
    return a > WEFT_TIME_MAX - b ? WEFT_TIME_MAX : a + b;
}

static inline weft_time_t
send_of(const pos_t *p, guint64 len)
{
    return weft_net_analytical_send_ps(p->r, len, p->cap, p->eff);
}

static inline weft_time_t
delivery_of(const pos_t *p, weft_time_t sent)
{
    if (p->r == NULL) {
        return sent;
    }
    return sat_add(sent, p->r->latency_ps);
}

/*
 * Positions [@from, @to) (flat indices) all alike, every edge crossed by alike streams only
 * (all_uniform(), or one stream per edge): one position's times, credited to each. An edge
 * crossed by k streams sees k copies of each phase at once: busy time once, usage the sum
 * of k equal usages added one after another as the model adds them, bytes k times.
 */
static weft_time_t
sweep_uniform(sweep_t *w, gsize from, gsize to, weft_time_t t0)
{
    const weft_coll_implicit_t *im = w->im;
    guint g = im->g, C = im->chunks;
    guint steps = im->kind == WEFT_COLL_I_RING_AR ? 2 * (g - 1) : g - 1;
    gsize n = (gsize)g * im->channels;
    const pos_t *p0 = &w->pos[from];
    g_autofree weft_time_t *ready = g_new(weft_time_t, C);
    weft_time_t link_free = t0, finish = t0, busy = 0;
    /* one position's busy time, bytes and largest usage per hop, then credited to every
     * position's edges */
    guint32 nh = hop_end(w, from, n) - p0->hop_off;
    g_autofree guint64 *fx = g_new0(guint64, MAX(nh, 1u));
    g_autofree double *max_usage = g_new0(double, MAX(nh, 1u));
    const hop_t *h = &g_array_index(w->hops, hop_t, 0);
    for (guint k = 0; k < steps; k++) {
        for (guint c = 0; c < C; c++) {
            guint64 len = coll_split(im->plen[from], C, c);
            weft_time_t start = MAX(t0, link_free);
            if (k > 0) {
                start = MAX(start, ready[c]);
            }
            weft_time_t sent = sat_add(start, send_of(p0, len));
            weft_time_t rel = sat_add(delivery_of(p0, sent), post_of(w, p0, k, len));
            ready[c] = rel;
            link_free = sent;
            finish = MAX(finish, rel);
            if (p0->r == NULL) {
                continue;
            }
            double rate = MIN(p0->r->rate_Bps * p0->eff, p0->cap);
            double wire_bytes = (double)len / p0->eff;
            for (guint32 j = 0; j < nh; j++) {
                double share = h[p0->hop_off + j].share;
                if (wire_bytes > 0.0) {
                    fx[j] += weft_net_bytes_fx(wire_bytes, share);
                }
                if (sent > start) {
                    max_usage[j] = MAX(max_usage[j], rate / p0->eff * share);
                }
            }
            if (sent > start) {
                busy += sent - start;
            }
        }
    }
    for (gsize i = from; i < to; i++) {
        const pos_t *p = &w->pos[i];
        for (guint32 j = 0; j < nh; j++) {
            edge_acc_t *a = &g_array_index(w->acc, edge_acc_t, h[p->hop_off + j].slot);
            a->bytes_fx += fx[j];
            if (a->credited++ > 0) {
                continue; /* the k copies run at once: busy and peak counted once */
            }
            a->busy_ps += busy;
            double usage = 0.0;
            for (guint s = 0; s < a->n_streams; s++) {
                usage += max_usage[j];
            }
            if (a->cap_Bps > 0.0 && usage / a->cap_Bps > a->peak_util) {
                a->peak_util = usage / a->cap_Bps;
            }
        }
    }
    return finish;
}

/* Channel @ch, transfer by transfer in the builder's order (step, chunk, position). */
static weft_time_t
sweep_channel(sweep_t *w, guint ch, weft_time_t t0)
{
    const weft_coll_implicit_t *im = w->im;
    guint g = im->g, C = im->chunks;
    guint steps = im->kind == WEFT_COLL_I_RING_AR ? 2 * (g - 1) : g - 1;
    gsize o = (gsize)ch * g, n = (gsize)g * im->channels;
    const guint64 *plen = im->plen + o;
    g_autofree weft_time_t *prev = g_new(weft_time_t, (gsize)g * C);
    g_autofree weft_time_t *cur = g_new(weft_time_t, (gsize)g * C);
    g_autofree weft_time_t *link_free = g_new(weft_time_t, g);
    for (guint i = 0; i < g; i++) {
        link_free[i] = t0;
    }
    weft_time_t finish = t0;
    for (guint k = 0; k < steps; k++) {
        gboolean rs = step_reduces(im, k);
        guint j = im->kind == WEFT_COLL_I_RING_AR && k >= g - 1 ? k - (g - 1) : k;
        for (guint c = 0; c < C; c++) {
            for (guint i = 0; i < g; i++) {
                const pos_t *p = &w->pos[o + i];
                guint piece = rs ? (i + 2 * g - j - 1) % g : (i + g - j) % g;
                guint64 len = coll_split(plen[piece], C, c);
                weft_time_t start = MAX(t0, link_free[i]);
                if (k > 0) {
                    start = MAX(start, prev[(gsize)((i + g - 1) % g) * C + c]);
                }
                weft_time_t sent = sat_add(start, send_of(p, len));
                weft_time_t rel = sat_add(delivery_of(p, sent), post_of(w, p, k, len));
                cur[(gsize)i * C + c] = rel;
                link_free[i] = sent;
                finish = MAX(finish, rel);
                account(w, p, hop_end(w, o + i, n), len, start, sent);
            }
        }
        weft_time_t *tmp = prev;
        prev = cur;
        cur = tmp;
    }
    return finish;
}

static gint
phase_cmp(gconstpointer a, gconstpointer b)
{
    const weft_net_phase_t *x = a, *y = b;
    return (x->start_ps > y->start_ps) - (x->start_ps < y->start_ps);
}

/* The costs and hops of every position; FALSE (error set) if the sweep does not apply. */
static gboolean
sweep_setup(sweep_t *w, weft_net_t *net, const weft_coll_plan_t *plan, const gint *vertex,
            GError **error)
{
    const weft_coll_implicit_t *im = w->im;
    weft_fabric_t *fabric = weft_net_fabric(net);
    gsize n = (gsize)im->g * im->channels;
    g_autoptr(GHashTable) slot_of = g_hash_table_new(g_direct_hash, g_direct_equal);
    w->pos = g_new0(pos_t, n);
    w->hops = g_array_new(FALSE, FALSE, sizeof(hop_t));
    w->acc = g_array_new(FALSE, TRUE, sizeof(edge_acc_t));
    for (gsize k = 0; k < n; k++) {
        gsize base = k - k % im->g;
        guint32 s = im->order[k], d = im->order[base + (k % im->g + 1) % im->g];
        gint vs = vertex[s], vd = vertex[d];
        gboolean inter = im->dom[s] != im->dom[d];
        pos_t *p = &w->pos[k];
        p->hop_off = w->hops->len;
        if (inter && (w->x->msg_ps > 0 || w->x->rendezvous_ps > 0)) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                        "per-message costs and the rendezvous across domains hold a member's "
                        "messages in time order: not swept");
            return FALSE;
        }
        p->step_ps = inter ? w->x->step_inter_ps : w->x->step_intra_ps;
        if (vs != vd) {
            if (!weft_fabric_route_is_fixed(fabric, vs, vd)) {
                g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                            "the route from endpoint %u to endpoint %u has an ECMP choice: "
                            "not swept",
                            s, d);
                return FALSE;
            }
            p->r = weft_fabric_route(fabric, vs, vd, error);
            if (p->r == NULL) {
                g_prefix_error(error, "%s over %u members: endpoint %u to endpoint %u: ",
                               weft_coll_op_name(plan->op), plan->n_members, s, d);
                return FALSE;
            }
        }
        double route_Bps = p->r != NULL && p->r->n_paths > 0 ? p->r->rate_Bps : NAN;
        weft_coll_i_xfer_rate(w->x, inter ? WEFT_COLL_XFER_INTER : 0, im->sharing[k], route_Bps,
                              weft_net_options(net)->congestion == WEFT_NET_CONGESTION_PORTS,
                              &p->eff, &p->cap);
        if (!(p->eff > 0.0 && p->eff <= 1.0)) {
            p->eff = 1.0; /* as the network normalizes it */
        }
        if (!(p->cap > 0.0)) {
            p->cap = INFINITY;
        }
        for (guint q = 0; p->r != NULL && q < p->r->n_paths; q++) {
            for (guint32 j = p->r->path_off[q]; j < p->r->path_off[q + 1]; j++) {
                gint e = p->r->edges[j];
                gpointer v = NULL;
                if (!g_hash_table_lookup_extended(slot_of, GINT_TO_POINTER(e), NULL, &v)) {
                    v = GUINT_TO_POINTER(w->acc->len);
                    g_hash_table_insert(slot_of, GINT_TO_POINTER(e), v);
                    edge_acc_t a = {.edge = e, .cap_Bps = weft_fabric_edge_bw_now(fabric, e)};
                    g_array_append_val(w->acc, a);
                }
                g_array_index(w->acc, edge_acc_t, GPOINTER_TO_UINT(v)).n_streams++;
                hop_t h = {GPOINTER_TO_UINT(v), p->r->share[q]};
                g_array_append_val(w->hops, h);
            }
        }
    }
    w->uniform = all_uniform(w);
    if (w->uniform) {
        return TRUE; /* one sequence for all: nothing kept */
    }
    guint64 steps = im->kind == WEFT_COLL_I_RING_AR ? 2 * (guint64)(im->g - 1) : im->g - 1;
    guint64 kept = 0;
    for (guint a = 0; a < w->acc->len; a++) {
        edge_acc_t *e = &g_array_index(w->acc, edge_acc_t, a);
        if (e->n_streams > 1) {
            kept += e->n_streams * steps * im->chunks;
        }
    }
    if (kept > SWEEP_PHASE_BUDGET) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "edges crossed by several pairs would keep %" G_GUINT64_FORMAT
                    " phases, more than %u: not swept",
                    kept, SWEEP_PHASE_BUDGET);
        return FALSE;
    }
    for (guint a = 0; a < w->acc->len; a++) {
        edge_acc_t *e = &g_array_index(w->acc, edge_acc_t, a);
        if (e->n_streams > 1) {
            e->phases = g_array_new(FALSE, FALSE, sizeof(weft_net_phase_t));
            w->buffered = TRUE;
        }
    }
    return TRUE;
}

static void
sweep_clear(sweep_t *w)
{
    for (guint a = 0; w->acc != NULL && a < w->acc->len; a++) {
        edge_acc_t *e = &g_array_index(w->acc, edge_acc_t, a);
        if (e->phases != NULL) {
            g_array_unref(e->phases);
        }
    }
    if (w->acc != NULL) {
        g_array_unref(w->acc);
    }
    if (w->hops != NULL) {
        g_array_unref(w->hops);
    }
    g_free(w->pos);
}

gboolean
weft_coll_sweep(weft_net_t *net, const weft_coll_plan_t *plan, const gint *member_vertex,
                const weft_coll_exec_t *exec, weft_time_t *duration_ps, GArray **links,
                GError **error)
{
    g_return_val_if_fail(net != NULL && plan != NULL && member_vertex != NULL, FALSE);
    g_return_val_if_fail(duration_ps != NULL && links != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    if (plan->implicit == NULL || weft_net_model(net) != WEFT_NET_ANALYTICAL) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "only implicit plans under the analytical model are swept");
        return FALSE;
    }
    const weft_coll_exec_t *x = exec != NULL ? exec : &plan->exec;
    if (x->waves > 1 || x->reduce_trunc_ns || x->net_trunc_ns) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "ASTRA-sim's waves and truncated reductions are run, not swept");
        return FALSE;
    }
    sweep_t w = {.im = plan->implicit, .x = x};
    if (!sweep_setup(&w, net, plan, member_vertex, error)) {
        sweep_clear(&w);
        return FALSE;
    }
    weft_time_t t0 = MAX(w.x->base_ps, 0), finish = t0;
    gsize g = w.im->g;
    if (w.uniform) {
        finish = sweep_uniform(&w, 0, g * w.im->channels, t0);
    }
    for (guint ch = 0; !w.uniform && ch < w.im->channels; ch++) {
        /* a channel whose positions are alike, with no edge shared: one position */
        gboolean alike = !w.buffered;
        for (guint i = 1; alike && i < g; i++) {
            alike = same_pos(&w, ch * g, ch * g + i);
        }
        weft_time_t f = alike ? sweep_uniform(&w, ch * g, (ch + 1) * g, t0)
                              : sweep_channel(&w, ch, t0);
        finish = MAX(finish, f);
    }
    GArray *out = g_array_sized_new(FALSE, FALSE, sizeof(weft_coll_sweep_link_t), w.acc->len);
    for (guint a = 0; a < w.acc->len; a++) {
        edge_acc_t *e = &g_array_index(w.acc, edge_acc_t, a);
        if (e->phases != NULL) {
            g_array_sort(e->phases, phase_cmp); /* stable: equal starts keep plan order */
            weft_net_phases_busy_peak((const weft_net_phase_t *)(void *)e->phases->data,
                                      e->phases->len, e->cap_Bps, &e->busy_ps, &e->peak_util);
        }
        weft_coll_sweep_link_t l = {e->edge, e->bytes_fx, e->busy_ps, e->peak_util};
        g_array_append_val(out, l);
    }
    sweep_clear(&w);
    *duration_ps = finish;
    *links = out;
    return TRUE;
}
