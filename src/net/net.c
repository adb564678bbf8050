/* SPDX-License-Identifier: MIT */
/*
 * Network models and transfers (see net.h for the model essay).
 *
 * A transfer is a small record in a pool (a GArray of records recycled through
 * a stack of free indexes), so that once the pool has grown to the peak number
 * of transfers in flight, starting and finishing a transfer allocates nothing.
 * Which model runs is a table of operations chosen at weft_net_new(): the
 * analytical model (here) schedules one event per transfer at start + L + S / B;
 * the flow model (flow.c, max-min sharing) fills in the same table with its
 * own start and cancel. Link statistics live here, shared by both models.
 */
#define G_LOG_DOMAIN "weft-net"

#include "net/net.h"

#include <math.h>

#include "core/log.h"
#include "net/net_private.h"

/* The quark's name is stringified from tokens: clang-format must not space its dashes. */
/* clang-format off */
G_DEFINE_QUARK(weft-net-error-quark, weft_net_error)
/* clang-format on */

/* ---- the record pool ------------------------------------------------------- */

static guint32
xfer_alloc(weft_net_t *net)
{
    guint32 idx;
    if (net->free_idx->len > 0) {
        idx = g_array_index(net->free_idx, guint32, net->free_idx->len - 1);
        g_array_set_size(net->free_idx, net->free_idx->len - 1);
    } else {
        idx = net->xfers->len;
        g_array_set_size(net->xfers, net->xfers->len + 1);
    }
    xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    g_assert(!x->in_use);
    x->in_use = TRUE;
    net->in_flight++;
    return idx;
}

/* The guard's count of the transfers crossing each edge of @route, by @d (+1 or -1). */
static void
guard_count(weft_net_t *net, const weft_route_t *route, gint d)
{
    if (net->active == NULL || route == NULL) {
        return;
    }
    guint32 n = route->path_off[route->n_paths];
    for (guint32 i = 0; i < n; i++) {
        gint e = route->edges[i];
        net->active[e] += (guint32)d;
        if (d > 0 && net->reserved_until[e] > weft_sim_now(net->sim) && net->conflict != NULL &&
            (net->holds == NULL || net->holds[e].busy == NULL)) {
            /* (a held port is checked by its queue: analytical_port_end()) */
            net->conflict(net->conflict_ctx, e);
        }
    }
}

static void
xfer_release(weft_net_t *net, guint32 idx)
{
    xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    g_assert(x->in_use);
    guard_count(net, x->route, -1);
    x->in_use = FALSE;
    x->done = NULL;
    x->sent = NULL;
    x->ctx = NULL;
    x->event = 0;
    x->route = NULL;
    g_clear_pointer(&x->owned, g_free);
    x->phase = PHASE_NONE;
    g_array_append_val(net->free_idx, idx);
    net->in_flight--;
}

/*
 * Finishes record @idx: updates the totals, frees the record, then calls the
 * callback. The fields it needs are copied first because the callback may start
 * new transfers, which may reuse this record or grow (and move) the pool.
 */
void
weft_net_i_xfer_finish(weft_net_t *net, guint32 idx)
{
    const xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    weft_net_done_fn done = x->done;
    void *ctx = x->ctx;
    guint64 tag = x->tag, bytes = x->bytes;
    xfer_release(net, idx);
    net->stats.transfers_done++;
    net->stats.bytes_delivered += bytes;
    done(ctx, tag);
}

void
weft_net_i_xfer_sent(weft_net_t *net, guint32 idx, weft_event_fn arrive)
{
    xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    g_assert(x->in_use && x->phase == PHASE_LATENCY);
    x->event = 0;
    if (x->sent != NULL) {
        x->sent(x->ctx, x->tag);
        /* The callback may have started transfers and moved the pool. */
        x = &g_array_index(net->xfers, xfer_t, idx);
        g_assert(x->in_use);
    }
    weft_time_t lat = x->route != NULL ? x->route->latency_ps : 0;
    if (lat == 0) {
        arrive(net, GUINT_TO_POINTER(idx));
        return;
    }
    x->event = weft_sim_after(net->sim, lat, arrive, net, GUINT_TO_POINTER(idx));
}

/* ---- the analytical model ---------------------------------------------------- */

/* Saturating a + b for non-negative picosecond values. */
weft_time_t
weft_net_i_time_add(weft_time_t a, weft_time_t b)
{
    return a > WEFT_TIME_MAX - b ? WEFT_TIME_MAX : a + b;
}

/* S / min(B x efficiency, cap) for a route: the bandwidth phase; 0 for a local copy. */
static weft_time_t
analytical_send_time(const weft_route_t *route, guint64 bytes, double cap_Bps, double efficiency)
{
    if (route == NULL) {
        return 0;
    }
    double rate = MIN(route->rate_Bps * efficiency, cap_Bps);
    return weft_time_for_bytes(bytes, rate);
}

/* L + S / min(B x efficiency, cap) for a route; 0 for a local copy (route == NULL). */
static weft_time_t
analytical_duration(const weft_route_t *route, guint64 bytes, double cap_Bps, double efficiency)
{
    if (route == NULL) {
        return 0;
    }
    return weft_net_i_time_add(route->latency_ps,
                               analytical_send_time(route, bytes, cap_Bps, efficiency));
}

/*
 * Adds @bytes times each path's share to the edges of @route: the bytes each
 * directed edge carries (a_te x bytes, summed over the paths crossing it).
 */
void
weft_net_i_credit_bytes(weft_net_t *net, const weft_route_t *route, double bytes)
{
    if (route == NULL || bytes <= 0.0) {
        return;
    }
    for (guint p = 0; p < route->n_paths; p++) {
        guint64 b = (guint64)llround(bytes * route->share[p] * WEFT_NET_BYTES_FX);
        for (guint32 k = route->path_off[p]; k < route->path_off[p + 1]; k++) {
            net->links[route->edges[k]].bytes_fx += b;
        }
    }
}

/*
 * Link statistics of the analytical model. Links are not shared, so an edge's usage at t
 * is the sum, over the transfers in their bandwidth phase [start, start + S / rate) at t,
 * of their wire rate times the share of their route crossing the edge: known exactly when
 * each transfer starts. Busy time (usage > 0) is the length of the union of those phases
 * and peak_util the largest usage / capacity, as flow defines them (net.h). Transfers start
 * in time order, so each edge keeps the phases not yet over in a min-heap by end, expired
 * lazily at the next start on the edge: a phase ending at or before that start leaves the
 * heap (with its usage), and when the heap empties the busy run [since, run_end) closes.
 * Cost: O(log k) per (transfer, edge), k the phases in the heap; no event.
 */

static void
sending_push(link_t *l, sending_t v)
{
    if (l->n_sending == l->cap_sending) {
        l->cap_sending = MAX(4, 2 * l->cap_sending);
        l->sending = g_renew(sending_t, l->sending, l->cap_sending);
    }
    sending_t *a = l->sending;
    guint i = l->n_sending++;
    while (i > 0 && a[(i - 1) / 2].end > v.end) {
        a[i] = a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    a[i] = v;
}

/* Removes entry @i of @l's heap. */
static void
sending_remove(link_t *l, guint i)
{
    sending_t *a = l->sending;
    guint n = --l->n_sending;
    if (i == n) {
        return;
    }
    sending_t v = a[n]; /* the last entry, put back where @i was: up or down from there */
    while (i > 0 && a[(i - 1) / 2].end > v.end) {
        a[i] = a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    for (;;) {
        guint c = 2 * i + 1;
        if (c >= n) {
            break;
        }
        if (c + 1 < n && a[c + 1].end < a[c].end) {
            c++;
        }
        if (a[c].end >= v.end) {
            break;
        }
        a[i] = a[c];
        i = c;
    }
    a[i] = v;
}

/* Removes the phases of @l over by @now; closes the busy run when none is left. */
static void
analytical_link_expire(link_t *l, weft_time_t now)
{
    if (l->n_sending == 0) {
        return;
    }
    while (l->n_sending > 0 && l->sending[0].end <= now) {
        l->usage -= l->sending[0].usage;
        sending_remove(l, 0);
    }
    if (l->n_sending == 0) {
        l->busy_ps += l->run_end - l->since;
        l->usage = 0.0; /* exactly, whatever the rounding of the subtractions */
    }
}

/* Records @l's usage / @cap in its peak (a link that is down has no capacity, and no peak). */
static void
link_peak_at(link_t *l, double cap)
{
    if (cap > 0.0 && l->usage / cap > l->peak_util) {
        l->peak_util = l->usage / cap;
    }
}

/* Records @usage / the edge's capacity now in @l's peak. */
static void
analytical_link_peak(weft_net_t *net, link_t *l, gint edge)
{
    link_peak_at(l, weft_fabric_edge_bw_now(net->fabric, edge));
}

/* A bandwidth phase [start, end) at @usage starts on a link of capacity @cap: the heap, the
 * busy run, the peak. Phases of a link are added in start order. */
static void
link_phase_add_cap(link_t *l, double cap, weft_time_t start, weft_time_t end, double usage)
{
    analytical_link_expire(l, start);
    if (l->n_sending == 0) {
        l->since = start;
        l->run_end = start;
    }
    sending_t v = {end, usage};
    sending_push(l, v);
    l->usage += v.usage;
    l->run_end = MAX(l->run_end, end);
    link_peak_at(l, cap);
}

void
weft_net_phases_busy_peak(const weft_net_phase_t *phases, guint n, double cap_Bps,
                          weft_time_t *busy_ps, double *peak_util)
{
    g_return_if_fail(phases != NULL || n == 0);
    link_t l = {0};
    for (guint i = 0; i < n; i++) {
        g_return_if_fail(i == 0 || phases[i].start_ps >= phases[i - 1].start_ps);
        link_phase_add_cap(&l, cap_Bps, phases[i].start_ps, phases[i].end_ps, phases[i].usage_Bps);
    }
    *busy_ps = l.busy_ps + (l.n_sending > 0 ? l.run_end - l.since : 0);
    *peak_util = l.peak_util;
    g_free(l.sending);
}

weft_time_t
weft_net_analytical_send_ps(const weft_route_t *route, guint64 bytes, double cap_Bps,
                            double efficiency)
{
    return analytical_send_time(route, bytes, cap_Bps > 0.0 ? cap_Bps : INFINITY,
                                efficiency > 0.0 && efficiency <= 1.0 ? efficiency : 1.0);
}

guint64
weft_net_bytes_fx(double bytes, double share)
{
    return (guint64)llround(bytes * share * WEFT_NET_BYTES_FX);
}

double
weft_net_bytes_from_fx(guint64 fx)
{
    return (double)fx / WEFT_NET_BYTES_FX;
}

/* A bandwidth phase [start, end) at @usage starts on edge @e (link_phase_add_cap()). */
static void
link_phase_add(weft_net_t *net, link_t *l, gint e, weft_time_t start, weft_time_t end,
               double usage)
{
    link_phase_add_cap(l, weft_fabric_edge_bw_now(net->fabric, e), start, end, usage);
}

/* Replays, in start order, the timed blocks' phases on @e that start at or before @now. */
static void
link_catch_up(weft_net_t *net, link_t *l, gint e, weft_time_t now)
{
    while (l->n_cur > 0) {
        guint best = 0;
        weft_time_t best_t = G_MAXINT64;
        for (guint c = 0; c < l->n_cur; c++) {
            const phase_cursor_t *pc = &l->cur[c];
            weft_time_t t = pc->t0 + pc->ph[pc->i].start_ps;
            if (t < best_t) {
                best_t = t;
                best = c;
            }
        }
        if (best_t > now) {
            return;
        }
        phase_cursor_t *pc = &l->cur[best];
        const weft_net_phase_t *ph = &pc->ph[pc->i];
        link_phase_add(net, l, e, pc->t0 + ph->start_ps, pc->t0 + ph->end_ps, ph->usage_Bps);
        if (++pc->i == pc->n) {
            l->cur[best] = l->cur[--l->n_cur];
        }
    }
}

static void
link_add_cursor(link_t *l, const weft_net_phase_t *ph, guint n, weft_time_t t0)
{
    if (n == 0) {
        return;
    }
    if (l->n_cur == l->cap_cur) {
        l->cap_cur = MAX(2, 2 * l->cap_cur);
        l->cur = g_renew(phase_cursor_t, l->cur, l->cap_cur);
    }
    l->cur[l->n_cur++] = (phase_cursor_t){ph, n, 0, t0};
}

/* Something else starts on @e at @now: an open block ends at once (committed as a whole
 * when it is over, else undone and replayed phase by phase), then pending phases up to
 * @now are replayed. */
static void
link_meet(weft_net_t *net, link_t *l, gint e, weft_time_t now)
{
    if (l->block_open) {
        l->block_open = FALSE;
        if (now < l->block_end) {
            l->busy_ps = l->block_saved_busy;
            l->peak_util = l->block_saved_peak;
            link_add_cursor(l, l->block_ph, l->block_n, l->block_t0);
        }
    }
    link_catch_up(net, l, e, now);
}

/* A bandwidth phase [@start, @end) at @usage starts on edge @e: timed blocks' phases before
 * it first (link_meet()), then the phase, and its record if the edge is recorded. */
static void
link_phase_start(weft_net_t *net, gint e, weft_time_t start, weft_time_t end, double usage)
{
    link_t *l = &net->links[e];
    if (l->block_open || l->n_cur > 0) {
        link_meet(net, l, e, start);
    }
    link_phase_add(net, l, e, start, end, usage);
    if (l->rec != NULL) {
        weft_net_phase_t ph = {start, end, usage};
        g_array_append_val(l->rec, ph);
    }
}

static void pair_drain_to(weft_net_t *net, weft_time_t now);
static pair_flow_t *pair_entry(weft_net_t *net, gint src, gint dst);

/* Replays the pair blocks' transfers that start by @now (weft_net_add_pair_block()). */
static inline void
pair_drain(weft_net_t *net, weft_time_t now)
{
    if (net->n_pcur > 0 && net->pcur[0].next <= now) {
        pair_drain_to(net, now);
    }
}

/* Record @x starts its bandwidth phase now, ending at @end with payload rate @rate_Bps: adds
 * it to the edges of its route (wire rate: payload over the protocol's efficiency). */
static void
analytical_links_start(weft_net_t *net, xfer_t *x, double rate_Bps, weft_time_t end)
{
    weft_time_t now = weft_sim_now(net->sim);
    pair_drain(net, now);
    x->send_end = end;
    x->rate_Bps = rate_Bps / x->efficiency;
    if (net->xrec != NULL && x->route != NULL) {
        weft_net_xfer_rec_t rec = {x->src, x->dst, now, MAX(end, now), x->rate_Bps,
                                   (double)x->bytes / x->efficiency};
        g_array_append_val(net->xrec, rec);
    }
    if (x->route == NULL || end <= now) {
        return; /* a local copy, or no bandwidth phase */
    }
    const weft_route_t *r = x->route;
    for (guint p = 0; p < r->n_paths; p++) {
        double usage = x->rate_Bps * r->share[p];
        for (guint32 k = r->path_off[p]; k < r->path_off[p + 1]; k++) {
            link_phase_start(net, r->edges[k], now, end, usage);
        }
    }
}

/* ---- pair blocks ------------------------------------------------------------------------
 *
 * The transfers of a timed collective on a pair with an ECMP choice: their flow ids are
 * taken when the block is added, and each is replayed (its phases and bytes on its flow's
 * route) when simulated time reaches its start, in the order of a binary min-heap of the
 * blocks by (next start, order of addition), before any other start touches a link. */

static inline gboolean
pcur_less(const pair_cursor_t *a, const pair_cursor_t *b)
{
    return a->next < b->next || (a->next == b->next && a->seq < b->seq);
}

static void
pcur_sift_down(weft_net_t *net, guint i)
{
    pair_cursor_t *h = net->pcur;
    guint n = net->n_pcur;
    pair_cursor_t v = h[i];
    for (;;) {
        guint c = 2 * i + 1;
        if (c >= n) {
            break;
        }
        if (c + 1 < n && pcur_less(&h[c + 1], &h[c])) {
            c++;
        }
        if (!pcur_less(&h[c], &v)) {
            break;
        }
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
}

static void
pcur_push(weft_net_t *net, pair_cursor_t v)
{
    if (net->n_pcur == net->cap_pcur) {
        net->cap_pcur = MAX(16, 2 * net->cap_pcur);
        net->pcur = g_renew(pair_cursor_t, net->pcur, net->cap_pcur);
    }
    pair_cursor_t *h = net->pcur;
    guint i = net->n_pcur++;
    while (i > 0 && pcur_less(&v, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

/* Replays the next transfer of pair block @c: the route of its pair's next flow, then its
 * phases and bytes. */
static void
pair_replay_one(weft_net_t *net, pair_cursor_t *c)
{
    const weft_net_xfer_rec_t *rec = &c->b.recs[c->i];
    guint j = c->b.rec_pair[c->i];
    gint src = c->b.pair_v[2 * j], dst = c->b.pair_v[2 * j + 1];
    guint slot = weft_fabric_ecmp_slot(net->fabric, src, dst, c->flow[j]++);
    const weft_route_t **slots = c->slots[j];
    if (slots[slot] == NULL) {
        slots[slot] = weft_fabric_route_slot(net->fabric, src, dst, slot, NULL);
    }
    const weft_route_t *r = slots[slot];
    g_assert(r != NULL); /* the pair's routes exist: its ECMP choice was found */
    weft_time_t start = c->t0 + rec->start_ps, end = c->t0 + rec->end_ps;
    for (guint p = 0; end > start && p < r->n_paths; p++) {
        double usage = rec->rate_Bps * r->share[p];
        for (guint32 k = r->path_off[p]; k < r->path_off[p + 1]; k++) {
            gint e = r->edges[k];
            if (net->reserved_until != NULL && net->reserved_until[e] > start &&
                (c->owner == NULL || net->reserved_owner[e] != c->owner) &&
                net->conflict != NULL) {
                net->conflict(net->conflict_ctx, e);
            }
            link_phase_start(net, e, start, end, usage);
        }
    }
    weft_net_i_credit_bytes(net, r, rec->wire_bytes);
}

static void
pair_cursor_clear(pair_cursor_t *c)
{
    g_free(c->flow);
    g_free(c->slots);
}

static void
pair_drain_to(weft_net_t *net, weft_time_t now)
{
    while (net->n_pcur > 0 && net->pcur[0].next <= now) {
        pair_cursor_t *c = &net->pcur[0];
        pair_replay_one(net, c);
        if (++c->i < c->b.n) {
            c->next = c->t0 + c->b.recs[c->i].start_ps;
        } else {
            pair_cursor_clear(c);
            net->pcur[0] = net->pcur[--net->n_pcur];
        }
        if (net->n_pcur > 1) {
            pcur_sift_down(net, 0);
        }
    }
}

void
weft_net_record_transfers(weft_net_t *net, GArray *out)
{
    g_return_if_fail(net != NULL && net->opts.model == WEFT_NET_ANALYTICAL);
    g_clear_pointer(&net->xrec, g_array_unref);
    net->xrec = out != NULL ? g_array_ref(out) : NULL;
}

void
weft_net_set_pair_conflict(weft_net_t *net, weft_net_pair_conflict_fn conflict, void *ctx)
{
    g_return_if_fail(net != NULL);
    net->pair_conflict = conflict;
    net->pair_conflict_ctx = ctx;
}

/* A transfer or block starts on pair @p now: a block still starting there is a conflict. */
static void
pair_check_block(weft_net_t *net, pair_flow_t *p, gint src, gint dst)
{
    if (p->block_owner == NULL) {
        return;
    }
    if (weft_sim_now(net->sim) <= p->block_until && net->pair_conflict != NULL) {
        net->pair_conflict(net->pair_conflict_ctx, p->block_owner, src, dst);
    }
    if (weft_sim_now(net->sim) > p->block_until) {
        p->block_owner = NULL;
    }
}

void
weft_net_add_pair_block(weft_net_t *net, const weft_net_pair_block_t *block, void *owner)
{
    g_return_if_fail(net != NULL && net->opts.model == WEFT_NET_ANALYTICAL && block != NULL);
    if (block->n == 0) {
        return;
    }
    weft_time_t now = weft_sim_now(net->sim);
    pair_drain(net, now);
    guint64 epoch = weft_fabric_route_epoch(net->fabric) + 1;
    pair_cursor_t c = {now + block->recs[0].start_ps, net->pcur_seq++, *block, 0, now,
                       g_new(guint64, block->n_pairs),
                       g_new(const weft_route_t **, block->n_pairs), owner};
    for (guint j = 0; j < block->n_pairs; j++) {
        gint src = block->pair_v[2 * j], dst = block->pair_v[2 * j + 1];
        pair_flow_t *p = pair_entry(net, src, dst);
        if (p->epoch != epoch) {
            g_assert(!weft_fabric_route_is_fixed(net->fabric, src, dst));
            p->fixed = NULL;
            if (p->slots != NULL) {
                memset(p->slots, 0, sizeof *p->slots * WEFT_FABRIC_ECMP_SLOTS);
            }
            p->epoch = epoch;
        }
        g_assert(p->fixed == NULL);
        if (p->slots == NULL) {
            p->slots = g_new0(const weft_route_t *, WEFT_FABRIC_ECMP_SLOTS);
        }
        pair_check_block(net, p, src, dst);
        c.flow[j] = p->count;
        c.slots[j] = p->slots;
        p->count += block->pair_n[j];
        p->block_until = now + block->pair_last[j];
        p->block_owner = owner;
    }
    pcur_push(net, c);
}

void
weft_net_record_phases(weft_net_t *net, const gint *edges, guint n)
{
    g_return_if_fail(net != NULL && net->opts.model == WEFT_NET_ANALYTICAL);
    for (guint i = 0; i < n; i++) {
        link_t *l = &net->links[edges[i]];
        if (l->rec == NULL) {
            l->rec = g_array_new(FALSE, FALSE, sizeof(weft_net_phase_t));
        }
    }
}

const GArray *
weft_net_recorded_phases(const weft_net_t *net, gint edge)
{
    g_return_val_if_fail(net != NULL && edge >= 0 && (guint)edge < net->n_edges, NULL);
    return net->links[edge].rec;
}

void
weft_net_add_blocks(weft_net_t *net, guint n, const gint *edges, GArray *const *phases,
                    const weft_time_t *span_ps, const weft_time_t *busy_ps,
                    const double *peak_util, const guint64 *bytes_fx)
{
    g_return_if_fail(net != NULL && net->opts.model == WEFT_NET_ANALYTICAL);
    g_return_if_fail(n == 0 || (edges != NULL && phases != NULL && span_ps != NULL &&
                                busy_ps != NULL && peak_util != NULL && bytes_fx != NULL));
    weft_time_t now = weft_sim_now(net->sim);
    pair_drain(net, now);
    for (guint i = 0; i < n; i++) {
        gint e = edges[i];
        g_return_if_fail(e >= 0 && (guint)e < net->n_edges);
        link_t *l = &net->links[e];
        l->bytes_fx += bytes_fx[i];
        const GArray *ph = phases[i];
        if (ph->len == 0) {
            continue;
        }
        /* the common case, as link_meet() and analytical_link_expire() would find it: the
         * edge's last block over, nothing else on it */
        if (l->block_open && now >= l->block_end) {
            l->block_open = FALSE;
        }
        if (l->block_open || l->n_cur > 0 || l->n_sending > 0) {
            link_meet(net, l, e, now);
            analytical_link_expire(l, now);
        }
        const weft_net_phase_t *data = (const weft_net_phase_t *)(void *)ph->data;
        if (l->n_sending == 0 && l->n_cur == 0) {
            l->block_open = TRUE;
            l->block_t0 = now;
            l->block_end = now + span_ps[i];
            l->block_saved_busy = l->busy_ps;
            l->block_saved_peak = l->peak_util;
            l->block_ph = data;
            l->block_n = ph->len;
            l->busy_ps += busy_ps[i];
            l->peak_util = MAX(l->peak_util, peak_util[i]);
        } else {
            link_add_cursor(l, data, ph->len, now);
        }
    }
}

void
weft_net_settle(weft_net_t *net)
{
    g_return_if_fail(net != NULL);
    if (net->opts.model != WEFT_NET_ANALYTICAL) {
        return;
    }
    weft_time_t now = weft_sim_now(net->sim);
    pair_drain(net, now);
    for (guint e = 0; e < net->n_edges; e++) {
        link_t *l = &net->links[e];
        if (l->n_cur > 0) {
            link_catch_up(net, l, (gint)e, now);
        }
    }
}

/* Record @x is cancelled now: its phase, if not over, ends now on every edge of its route. */
static void
analytical_links_cancel(weft_net_t *net, const xfer_t *x)
{
    weft_time_t now = weft_sim_now(net->sim);
    pair_drain(net, now);
    if (x->route == NULL || x->send_end <= now) {
        return;
    }
    const weft_route_t *r = x->route;
    for (guint p = 0; p < r->n_paths; p++) {
        sending_t v = {x->send_end, x->rate_Bps * r->share[p]};
        for (guint32 k = r->path_off[p]; k < r->path_off[p + 1]; k++) {
            link_t *l = &net->links[r->edges[k]];
            if (l->block_open || l->n_cur > 0) {
                link_meet(net, l, r->edges[k], now);
            }
            analytical_link_expire(l, now);
            g_assert(l->n_sending > 0); /* the phase is in force, so in the heap */
            /* entries of equal end and usage are interchangeable: remove any one of them */
            for (guint i = 0; i < l->n_sending; i++) {
                if (l->sending[i].end == v.end && l->sending[i].usage == v.usage) {
                    sending_remove(l, i);
                    l->usage -= v.usage;
                    break;
                }
            }
            /* the run ends at the latest phase left, or now */
            l->run_end = now;
            for (guint i = 0; i < l->n_sending; i++) {
                l->run_end = MAX(l->run_end, l->sending[i].end);
            }
            if (l->n_sending == 0) {
                l->busy_ps += now - l->since;
                l->usage = 0.0;
            }
        }
    }
}

static void
analytical_on_event(void *ctx, void *data)
{
    weft_net_t *net = ctx;
    guint32 idx = GPOINTER_TO_UINT(data);
    xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    /* The analytical model has no notion of when bytes cross a link: count them on arrival
     * (wire bytes: the payload over the protocol's efficiency). */
    weft_net_i_credit_bytes(net, x->route, (double)x->bytes / x->efficiency);
    weft_net_i_xfer_finish(net, idx);
}

/* The bandwidth phase of a transfer with a sent callback has ended. */
static void
analytical_on_sent(void *ctx, void *data)
{
    weft_net_t *net = ctx;
    guint32 idx = GPOINTER_TO_UINT(data);
    g_array_index(net->xfers, xfer_t, idx).phase = PHASE_LATENCY;
    weft_net_i_xfer_sent(net, idx, analytical_on_event);
}

/*
 * Whether a transfer at a port held by a timed collective (@h), arriving @now and leaving
 * the port busy until @busy_end, leaves the collective's run alone unchanged: no busy
 * period of the collective's port alone covers @now, and the port is idle again before
 * the collective's next busy period begins. The port then alternates between busy periods
 * of the collective and of the others, and each arrival finds the state it would find
 * alone (an idle port is the same whoever left it). Time complexity: O(log periods).
 */
static gboolean
port_hold_allows(const port_hold_t *h, weft_time_t now, weft_time_t busy_end)
{
    const weft_net_busy_t *b = (const weft_net_busy_t *)(void *)h->busy->data;
    guint n = h->busy->len;
    weft_time_t r = now - h->t0, f = busy_end - h->t0;
    /* j: the first period that starts after r */
    guint lo = 0, hi = n;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (b[mid].start_ps <= r) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    guint j = lo;
    if (j > 0 && b[j - 1].end_ps > r) {
        return FALSE;
    }
    return j >= n || f <= b[j].start_ps;
}

static void
adm_push(port_queue_t *q, port_adm_t v)
{
    if (q->n_adm == q->cap_adm) {
        q->cap_adm = MAX(4, 2 * q->cap_adm);
        q->adm = g_renew(port_adm_t, q->adm, q->cap_adm);
    }
    port_adm_t *a = q->adm;
    guint i = q->n_adm++;
    while (i > 0 && a[(i - 1) / 2].end > v.end) {
        a[i] = a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    a[i] = v;
    q->u_sum += v.u;
}

/* Removes the admitted transfers of @q over by @now. */
static void
adm_expire(port_queue_t *q, weft_time_t now)
{
    port_adm_t *a = q->adm;
    while (q->n_adm > 0 && a[0].end <= now) {
        q->u_sum -= a[0].u;
        port_adm_t v = a[--q->n_adm];
        guint i = 0, n = q->n_adm;
        for (;;) {
            guint c = 2 * i + 1;
            if (c >= n) {
                break;
            }
            if (c + 1 < n && a[c + 1].end < a[c].end) {
                c++;
            }
            if (a[c].end >= v.end) {
                break;
            }
            a[i] = a[c];
            i = c;
        }
        if (n > 0) {
            a[i] = v;
        }
    }
    if (q->n_adm == 0) {
        q->u_sum = 0.0; /* exactly, whatever the rounding of the subtractions */
    }
}

/* The share of @e's capacity that a transfer at wire rate @wire_Bps over path share @share
 * takes, snapped to 1 within 1e-12 (as flow snaps rates: a route's rate is a bottleneck's
 * capacity over its share, computed by the topology, and must fill that port exactly);
 * 0 for a link down (routes avoid it). */
static double
port_u(weft_net_t *net, gint e, double wire_Bps, double share)
{
    double cap = weft_fabric_edge_bw_now(net->fabric, e);
    if (!(cap > 0.0)) {
        return 0.0;
    }
    double u = wire_Bps * share / cap;
    return fabs(u - 1.0) <= 1e-12 ? 1.0 : u;
}

/*
 * The endpoint ports of the analytical model (net.h, "analytical"), for a transfer
 * starting @now on route @r that sends for @s_ps (exactly: before rounding) at wire rate
 * @wire_Bps on its own. At each port on its way it takes u = wire rate x share / capacity
 * and puts s x u of work in the port's queue. It runs at its own rate there when no
 * transfer the port delayed is still running and the admitted ones leave room for it
 * (their u and its own sum to at most 1, within 1e-9); otherwise it is delayed until the
 * port has served every byte of its busy period, this transfer's included (FIFO at the
 * port's capacity). Queues keep unrounded time, and a backlog of at most half a
 * picosecond (time's rounding) counts as none, so that transfers that fill a port
 * exactly never delay each other. Returns the transfer's end: @now + its rounded own time
 * (@s_ps rounded is @own), or the latest port's, rounded to the picosecond.
 * Time complexity: O(route edges x log transfers at a port).
 */
static weft_time_t
analytical_port_end(weft_net_t *net, const weft_route_t *r, weft_time_t now, double s_ps,
                    weft_time_t own, double wire_Bps)
{
    double late = 0.5; /* the largest excess over s_ps so far (at most 0.5: none) */
    /* pass 1: each port's queue and whether it admits the transfer, kept for pass 2 (the
     * first PORTS_KEPT ports; a longer route decides again, in the same state) */
    enum { PORTS_KEPT = 32 };
    double keep_u[PORTS_KEPT];
    gboolean keep_delayed[PORTS_KEPT];
    guint n_kept = 0;
    for (guint p = 0; p < r->n_paths; p++) {
        for (guint32 k = r->path_off[p]; k < r->path_off[p + 1]; k++) {
            gint e = r->edges[k];
            if (!net->is_port[e]) {
                continue;
            }
            double u = port_u(net, e, wire_Bps, r->share[p]);
            port_queue_t *q = &net->ports[e];
            gboolean delayed = FALSE;
            if (u > 0.0) {
                if (q->busy_until <= now && q->free_ps <= now) {
                    /* idle: nothing admitted, delayed or queued is left (the common case;
                     * free_ps > now: this route crossed the port already, on another path) */
                    q->n_adm = 0;
                    q->u_sum = 0.0;
                    q->free_ps = now;
                    q->free_frac = 0.0;
                } else {
                    adm_expire(q, now);
                    if ((double)(q->free_ps - now) + q->free_frac <= 0.5) {
                        q->free_ps = now; /* nothing left to serve: serves from now */
                        q->free_frac = 0.0;
                    }
                }
                double t = q->free_frac + s_ps * u;
                double whole = floor(t);
                q->free_ps = weft_net_i_time_add(q->free_ps, (weft_time_t)whole);
                q->free_frac = t - whole;
                delayed = q->delayed_until > now || q->u_sum + u > 1.0 + 1e-9;
                if (delayed) {
                    late = MAX(late, (double)(q->free_ps - now) + q->free_frac - s_ps);
                }
            }
            if (n_kept < PORTS_KEPT) {
                keep_u[n_kept] = u;
                keep_delayed[n_kept] = delayed;
            }
            n_kept++;
        }
    }
    if (n_kept == 0) {
        return weft_net_i_time_add(now, own);
    }
    weft_time_t end = late > 0.5 ? weft_net_i_time_add(now, (weft_time_t)llround(s_ps + late))
                                 : weft_net_i_time_add(now, own);
    end = MAX(end, weft_net_i_time_add(now, own));
    /* pass 2: the transfer in each port's state, until @end */
    guint i = 0;
    for (guint p = 0; p < r->n_paths; p++) {
        for (guint32 k = r->path_off[p]; k < r->path_off[p + 1]; k++) {
            gint e = r->edges[k];
            if (!net->is_port[e]) {
                continue;
            }
            port_queue_t *q = &net->ports[e];
            double u;
            gboolean delayed;
            if (i < PORTS_KEPT) {
                u = keep_u[i];
                delayed = keep_delayed[i];
            } else {
                u = port_u(net, e, wire_Bps, r->share[p]);
                delayed = q->delayed_until > now || q->u_sum + u > 1.0 + 1e-9;
            }
            i++;
            if (u <= 0.0) {
                continue;
            }
            gboolean idle = q->busy_until <= now;
            if (delayed) {
                q->delayed_until = MAX(q->delayed_until, end);
            } else {
                adm_push(q, (port_adm_t){end, u});
            }
            weft_time_t work_end = weft_net_i_time_add(q->free_ps, q->free_frac > 0.0 ? 1 : 0);
            q->busy_until = MAX(q->busy_until, MAX(end, work_end));
            if (net->port_busy != NULL && net->port_busy[e] != NULL) {
                GArray *b = net->port_busy[e];
                if (idle || b->len == 0) {
                    weft_net_busy_t v = {now, q->busy_until};
                    g_array_append_val(b, v);
                } else {
                    weft_net_busy_t *last = &g_array_index(b, weft_net_busy_t, b->len - 1);
                    last->end_ps = MAX(last->end_ps, q->busy_until);
                }
            }
            if (net->holds != NULL && net->holds[e].busy != NULL &&
                net->reserved_until[e] > now &&
                !port_hold_allows(&net->holds[e], now, q->busy_until) && net->conflict != NULL) {
                net->conflict(net->conflict_ctx, e);
            }
        }
    }
    return end;
}

static void
analytical_start(weft_net_t *net, guint32 idx)
{
    xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    weft_time_t now = weft_sim_now(net->sim);
    weft_time_t s = analytical_send_time(x->route, x->bytes, x->cap_Bps, x->efficiency);
    double rate = x->route != NULL ? MIN(x->route->rate_Bps * x->efficiency, x->cap_Bps) : 0.0;
    weft_time_t end = weft_net_i_time_add(now, s);
    if (x->route != NULL && s > 0 && s < WEFT_TIME_MAX / 4 &&
        net->opts.congestion == WEFT_NET_CONGESTION_PORTS) {
        /* (a transfer of no bytes has no bandwidth phase and queues nothing) */
        weft_time_t queued = analytical_port_end(net, x->route, now,
                                                 (double)x->bytes * 1e12 / rate, s,
                                                 rate / x->efficiency);
        if (queued > end) {
            end = queued;
            /* queued behind other transfers at a port: its bytes over [now, end) are what
             * the links see of it (the same bytes, a lower mean rate) */
            rate *= (double)s / (double)(end - now);
        }
    }
    analytical_links_start(net, x, rate, end);
    if (x->sent != NULL) {
        /* Two events: the end of the bandwidth phase, then the arrival. */
        x->event =
            weft_sim_at(net->sim, end, analytical_on_sent, net, GUINT_TO_POINTER(idx));
        return;
    }
    weft_time_t lat = x->route != NULL ? x->route->latency_ps : 0;
    x->event = weft_sim_at(net->sim, weft_net_i_time_add(end, lat), analytical_on_event, net,
                           GUINT_TO_POINTER(idx));
}

static void
analytical_cancel(weft_net_t *net, guint32 idx)
{
    xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    gboolean was_pending = weft_sim_cancel(net->sim, x->event);
    g_assert(was_pending);
    if (!net->freeing) {
        analytical_links_cancel(net, x);
    }
}

static const model_ops_t analytical_ops = {
    .name = "analytical",
    .start = analytical_start,
    .cancel = analytical_cancel,
};

/* Indexed by weft_net_model_t. */
static const model_ops_t *const model_table[] = {
    [WEFT_NET_ANALYTICAL] = &analytical_ops,
    [WEFT_NET_FLOW] = &weft_net_i_flow_ops,
};

static const char *const update_names[] = {
    [WEFT_NET_UPDATE_INCREMENTAL] = "incremental",
    [WEFT_NET_UPDATE_FULL] = "full",
    NULL,
};
const weft_enum_t weft_net_update_enum = {"network update mode", update_names};

static const char *const congestion_names[] = {
    [WEFT_NET_CONGESTION_PORTS] = "ports",
    [WEFT_NET_CONGESTION_NONE] = "none",
    NULL,
};
const weft_enum_t weft_net_congestion_enum = {"network congestion", congestion_names};
static const char *const model_names[] = {
    [WEFT_NET_ANALYTICAL] = "analytical",
    [WEFT_NET_FLOW] = "flow",
    NULL,
};
const weft_enum_t weft_net_model_enum = {"network model", model_names};

const weft_key_t weft_net_keys[] = {
    {"network", "model", WEFT_KEY_ENUM, "analytical",
     "network model: analytical (latency + size / bottleneck bandwidth) or flow (links shared "
     "max-min fairly)",
     .choices = &weft_net_model_enum, .field = WEFT_KEY_FIELD(weft_net_options_t, model)},
    {"network", "update", WEFT_KEY_ENUM, "incremental",
     "flow model: re-solve only the transfers sharing links with a change (incremental) or all "
     "of them (full, slow, to check incremental)",
     .choices = &weft_net_update_enum, .field = WEFT_KEY_FIELD(weft_net_options_t, update)},
    {"network", "congestion", WEFT_KEY_ENUM, "ports",
     "analytical model: endpoint ports queue their transfers (ports) or nothing is shared and "
     "every transfer takes latency + size / bandwidth alone (none: ASTRA-sim's "
     "congestion-unaware analytical backend)",
     .choices = &weft_net_congestion_enum,
     .field = WEFT_KEY_FIELD(weft_net_options_t, congestion)},
};
const guint weft_net_n_keys = G_N_ELEMENTS(weft_net_keys);

/* ---- public functions -------------------------------------------------------- */

/* The name tables' errors, in net's own domain and code. */
static gboolean
net_enum(const weft_enum_t *e, const char *name, gint *v, gint code, GError **error)
{
    GError *err = NULL;
    if (weft_enum_from_name(e, name, v, &err)) {
        return TRUE;
    }
    g_set_error_literal(error, WEFT_NET_ERROR, code, err->message);
    g_error_free(err);
    return FALSE;
}

gboolean
weft_net_model_from_name(const char *name, weft_net_model_t *model, GError **error)
{
    g_return_val_if_fail(name != NULL && model != NULL, FALSE);
    gint v = 0;
    if (!net_enum(&weft_net_model_enum, name, &v, WEFT_NET_ERROR_MODEL, error)) {
        return FALSE;
    }
    *model = (weft_net_model_t)v;
    return TRUE;
}

gboolean
weft_net_update_from_name(const char *name, weft_net_update_t *update, GError **error)
{
    g_return_val_if_fail(name != NULL && update != NULL, FALSE);
    gint v = 0;
    if (!net_enum(&weft_net_update_enum, name, &v, WEFT_NET_ERROR_UPDATE, error)) {
        return FALSE;
    }
    *update = (weft_net_update_t)v;
    return TRUE;
}

const char *
weft_net_update_name(weft_net_update_t update)
{
    g_return_val_if_fail((guint)update < G_N_ELEMENTS(update_names) - 1, "?");
    return update_names[update];
}

const char *
weft_net_model_name(weft_net_model_t model)
{
    g_return_val_if_fail((guint)model < G_N_ELEMENTS(model_table), "?");
    return model_table[model]->name;
}

weft_net_t *
weft_net_new_full(weft_sim_t *sim, weft_fabric_t *fabric, const weft_net_options_t *opts)
{
    g_return_val_if_fail(sim != NULL, NULL);
    g_return_val_if_fail(fabric != NULL, NULL);
    g_return_val_if_fail(opts != NULL, NULL);
    g_return_val_if_fail((guint)opts->model < G_N_ELEMENTS(model_table), NULL);
    g_return_val_if_fail((guint)opts->update < G_N_ELEMENTS(update_names) - 1, NULL);
    weft_net_t *net = g_new0(weft_net_t, 1);
    net->sim = sim;
    net->fabric = fabric;
    net->topo = weft_fabric_topo(fabric);
    net->opts = *opts;
    net->ops = model_table[opts->model];
    net->xfers = g_array_new(FALSE, TRUE, sizeof(xfer_t));
    net->free_idx = g_array_new(FALSE, FALSE, sizeof(guint32));
    net->n_edges = weft_topo_n_edges(net->topo);
    net->links = g_new0(link_t, net->n_edges);
    if (opts->model == WEFT_NET_FLOW) {
        weft_net_i_flow_init(net);
    } else {
        net->is_port = g_new(guint8, MAX(net->n_edges, 1u));
        for (guint e = 0; e < net->n_edges; e++) {
            net->is_port[e] = (guint8)weft_net_is_port_edge(net->topo, (gint)e);
        }
        net->ports = g_new0(port_queue_t, MAX(net->n_edges, 1u));
    }
    net->log_debug = weft_log_enabled(G_LOG_DOMAIN);
    g_debug("network model %s%s%s over cluster %s (%u directed edges)", net->ops->name,
            opts->model == WEFT_NET_FLOW ? ", update " : "",
            opts->model == WEFT_NET_FLOW ? update_names[opts->update] : "", weft_topo_name(net->topo),
            net->n_edges);
    return net;
}

weft_net_t *
weft_net_new(weft_sim_t *sim, weft_fabric_t *fabric, weft_net_model_t model)
{
    weft_net_options_t opts = {.model = model, .update = WEFT_NET_UPDATE_INCREMENTAL};
    return weft_net_new_full(sim, fabric, &opts);
}

void
weft_net_free(weft_net_t *net)
{
    if (net == NULL) {
        return;
    }
    /* Pending transfers are dropped; their events must not fire into freed memory. */
    net->freeing = TRUE;
    for (guint32 i = 0; i < net->xfers->len; i++) {
        if (g_array_index(net->xfers, xfer_t, i).in_use) {
            net->ops->cancel(net, i);
        }
        g_clear_pointer(&g_array_index(net->xfers, xfer_t, i).owned, g_free);
    }
    if (net->opts.model == WEFT_NET_FLOW) {
        weft_net_i_flow_clear(net);
    }
    if (net->ts != NULL) {
        for (guint e = 0; e < net->n_edges; e++) {
            if (net->ts[e] != NULL) {
                g_array_unref(net->ts[e]);
            }
        }
        g_free(net->ts);
    }
    g_clear_error(&net->stranded);
    for (guint e = 0; e < net->n_edges; e++) {
        g_free(net->links[e].sending);
        g_free(net->links[e].cur);
        if (net->links[e].rec != NULL) {
            g_array_unref(net->links[e].rec);
        }
    }
    g_free(net->links);
    g_free(net->active);
    g_free(net->reserved_until);
    g_free(net->reserved_owner);
    g_free(net->is_port);
    for (guint e = 0; net->ports != NULL && e < net->n_edges; e++) {
        g_free(net->ports[e].adm);
    }
    g_free(net->ports);
    g_free(net->holds);
    for (guint e = 0; net->port_busy != NULL && e < net->n_edges; e++) {
        if (net->port_busy[e] != NULL) {
            g_array_unref(net->port_busy[e]);
        }
    }
    g_free(net->port_busy);
    for (guint64 i = 0; net->pairs != NULL && i <= net->pairs_mask; i++) {
        g_free(net->pairs[i].slots);
    }
    g_free(net->pairs);
    for (guint i = 0; i < net->n_pcur; i++) {
        pair_cursor_clear(&net->pcur[i]);
    }
    g_free(net->pcur);
    g_clear_pointer(&net->xrec, g_array_unref);
    g_array_unref(net->xfers);
    g_array_unref(net->free_idx);
    g_free(net);
}

/*
 * The route for src -> dst (NULL for src == dst) or a WEFT_NET_ERROR_NO_ROUTE.
 * @flow_id picks among equal-cost paths (ECMP, see topo.h): transfers pass the
 * number of earlier transfers between the same two vertices
 * (weft_net_next_flow_id()), so each transfer hashes as its own flow, a run is
 * repeatable, and a path never depends on unrelated traffic.
 */
gboolean
weft_net_i_lookup_route(weft_net_t *net, gint src, gint dst, guint64 flow_id,
                        const weft_route_t **route, GError **error)
{
    *route = NULL;
    if (src == dst) {
        return TRUE;
    }
    g_autoptr(GError) topo_error = NULL;
    *route = weft_fabric_route_ecmp(net->fabric, src, dst, flow_id, &topo_error);
    if (*route == NULL) {
        g_set_error(error, WEFT_NET_ERROR, WEFT_NET_ERROR_NO_ROUTE,
                    "no route from vertex %d to vertex %d: %s", src, dst,
                    topo_error != NULL ? topo_error->message : "unknown reason");
        return FALSE;
    }
    return TRUE;
}

/* ---- ECMP flow ids per (src, dst) pair --------------------------------------------------
 *
 * Each pair's count lives in one slot of an open-addressing table with linear probing, keyed
 * by a 64-bit mix of (src, dst): starting a transfer costs one probe, usually in one cache
 * line, and a new pair allocates nothing (the table doubles when half full). GLib's
 * g_int64_hash() folds the key to src ^ dst, which puts the pairs of an all-to-all on a few
 * hundred chains; the order of the slots never reaches the output. */

static inline guint64
pair_key(gint src, gint dst)
{
    return ((guint64)(guint32)src << 32) | (guint32)dst;
}

/* The slot holding @key, or the empty slot where it would go. */
static inline guint64
pair_slot(const pair_flow_t *pairs, guint64 mask, guint64 key)
{
    /* MurmurHash3's 64-bit finalizer: every bit of the key reaches the low bits */
    guint64 h = key ^ (key >> 33);
    h *= G_GUINT64_CONSTANT(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= G_GUINT64_CONSTANT(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    guint64 i = h & mask;
    while (pairs[i].key != 0 && pairs[i].key != key) {
        i = (i + 1) & mask;
    }
    return i;
}

/* Doubles the table (or makes its first 1,024 slots); O(pairs). */
static void
pair_grow(weft_net_t *net)
{
    guint64 old_n = net->pairs != NULL ? net->pairs_mask + 1 : 0;
    guint64 n = old_n > 0 ? 2 * old_n : 1024;
    pair_flow_t *t = g_new0(pair_flow_t, n);
    for (guint64 i = 0; i < old_n; i++) {
        const pair_flow_t *p = &net->pairs[i];
        if (p->key != 0) {
            t[pair_slot(t, n - 1, p->key)] = *p;
        }
    }
    g_free(net->pairs);
    net->pairs = t;
    net->pairs_mask = n - 1;
}

/* The entry of (@src, @dst), src != dst, inserted if new; valid until the next insertion. */
static pair_flow_t *
pair_entry(weft_net_t *net, gint src, gint dst)
{
    if (net->pairs == NULL || 2 * (net->n_pairs + 1) > net->pairs_mask + 1) {
        pair_grow(net);
    }
    guint64 key = pair_key(src, dst);
    pair_flow_t *p = &net->pairs[pair_slot(net->pairs, net->pairs_mask, key)];
    if (p->key == 0) {
        p->key = key;
        net->n_pairs++;
    }
    return p;
}

/*
 * The route of the next transfer from @src to @dst (src != dst) and its ECMP flow id: a
 * fixed route when cached (no flow id taken), else the route of the flow id the pair counts
 * (the transfers so far that took one). The pair's entry notes which it is, so later
 * transfers skip the lookup of a fixed route (one probe here) or of the fixed slot (one
 * route lookup), until the route cache is emptied (weft_fabric_route_epoch()).
 */
static const weft_route_t *
pair_route(weft_net_t *net, gint src, gint dst, guint64 *flow_id, GError **error)
{
    pair_flow_t *p = pair_entry(net, src, dst);
    guint64 epoch = weft_fabric_route_epoch(net->fabric) + 1;
    if (p->epoch == epoch) {
        if (p->fixed != NULL) {
            return p->fixed;
        }
        if (p->block_owner != NULL) {
            pair_check_block(net, p, src, dst);
        }
        *flow_id = p->count++;
        if (p->slots == NULL) {
            /* its second transfer: worth an array of its slots' routes (512 bytes) */
            p->slots = g_new0(const weft_route_t *, WEFT_FABRIC_ECMP_SLOTS);
        }
        guint slot = weft_fabric_ecmp_slot(net->fabric, src, dst, *flow_id);
        if (p->slots[slot] == NULL &&
            !weft_net_i_lookup_route(net, src, dst, *flow_id, &p->slots[slot], error)) {
            return NULL;
        }
        return p->slots[slot];
    }
    const weft_route_t *r = weft_fabric_route_fixed_cached(net->fabric, src, dst);
    if (r == NULL) {
        *flow_id = p->count++;
        if (!weft_net_i_lookup_route(net, src, dst, *flow_id, &r, error)) {
            return NULL;
        }
    }
    p->fixed = weft_fabric_route_fixed_cached(net->fabric, src, dst);
    if (p->slots != NULL) {
        /* routes of an older epoch: looked up again as needed */
        memset(p->slots, 0, sizeof *p->slots * WEFT_FABRIC_ECMP_SLOTS);
    }
    p->epoch = epoch;
    return r;
}

gboolean
weft_net_transfer_start(weft_net_t *net, gint src, gint dst, guint64 bytes, weft_net_done_fn done,
                        void *ctx, guint64 tag, GError **error)
{
    return weft_net_transfer_start_capped(net, src, dst, bytes, INFINITY, done, ctx, tag, error);
}

gboolean
weft_net_transfer_start_capped(weft_net_t *net, gint src, gint dst, guint64 bytes,
                               double rate_cap_Bps, weft_net_done_fn done, void *ctx, guint64 tag,
                               GError **error)
{
    return weft_net_transfer_start_full(net, src, dst, bytes, rate_cap_Bps, 1.0, NULL, done, ctx,
                                        tag, error);
}

static gboolean transfer_start_on(weft_net_t *net, gint src, gint dst, const weft_route_t *route,
                                  weft_route_t *owned, guint64 flow_id, guint64 bytes, double rate_cap_Bps,
                                  double efficiency, weft_net_done_fn sent, weft_net_done_fn done,
                                  void *ctx, guint64 tag);

gboolean
weft_net_transfer_start_full(weft_net_t *net, gint src, gint dst, guint64 bytes,
                             double rate_cap_Bps, double efficiency, weft_net_done_fn sent,
                             weft_net_done_fn done, void *ctx, guint64 tag, GError **error)
{
    g_return_val_if_fail(net != NULL, FALSE);
    g_return_val_if_fail(done != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    /* The ECMP flow id: the number of earlier transfers between the same two vertices, so
     * each transfer hashes as its own flow and its path depends on nothing but its own
     * pair's history (not on unrelated traffic, which a run-wide count would make it;
     * replay's timed collectives rely on that). Fixed routes ignore it: one lookup. */
    const weft_route_t *route = NULL;
    guint64 flow_id = 0;
    if (src != dst && (route = pair_route(net, src, dst, &flow_id, error)) == NULL) {
        if (net->stranded == NULL && weft_fabric_link_version(net->fabric) > 0) {
            /* links went down (a fault): the transfer is stranded before it starts */
            g_set_error(&net->stranded, WEFT_NET_ERROR, WEFT_NET_ERROR_STRANDED,
                        "transfer of %" G_GUINT64_FORMAT " bytes from %s to %s stranded at %.6f "
                        "us: links are down and no path is left",
                        bytes, weft_topo_vertex_name(net->topo, src),
                        weft_topo_vertex_name(net->topo, dst),
                        weft_time_to_us(weft_sim_now(net->sim)));
            weft_sim_stop(net->sim);
        }
        return FALSE;
    }
    return transfer_start_on(net, src, dst, route, NULL, flow_id, bytes, rate_cap_Bps, efficiency,
                             sent, done, ctx, tag);
}

gboolean
weft_net_transfer_start_route(weft_net_t *net, const weft_route_t *route, gint src, gint dst,
                              guint64 bytes, weft_net_done_fn done, void *ctx, guint64 tag)
{
    g_return_val_if_fail(net != NULL && route != NULL && done != NULL, FALSE);
    g_return_val_if_fail(route->n_paths > 0 && route->rate_Bps > 0.0, FALSE);
    /* a copy in one block, freed with the record: the caller's route may go first (a
     * replay stopped while the transfer is in flight) */
    guint np = route->n_paths, ne = route->path_off[np];
    gsize sz = sizeof(weft_route_t) + sizeof(double) * np + sizeof(guint32) * (np + 1) +
               sizeof(gint32) * ne;
    weft_route_t *copy = g_malloc(sz);
    double *share = (double *)(void *)(copy + 1);
    guint32 *off = (guint32 *)(void *)(share + np);
    gint32 *edges = (gint32 *)(void *)(off + np + 1);
    memcpy(share, route->share, sizeof(double) * np);
    memcpy(off, route->path_off, sizeof(guint32) * (np + 1));
    memcpy(edges, route->edges, sizeof(gint32) * ne);
    *copy = *route;
    copy->share = share;
    copy->path_off = off;
    copy->edges = edges;
    return transfer_start_on(net, src, dst, copy, copy, 0, bytes, INFINITY, 1.0, NULL, done, ctx,
                             tag);
}

/* Starts a transfer on @route (NULL: a local copy) with ECMP flow id @flow_id; @owned: @route,
 * when the record frees it. */
static gboolean
transfer_start_on(weft_net_t *net, gint src, gint dst, const weft_route_t *route,
                  weft_route_t *owned, guint64 flow_id,
                  guint64 bytes, double rate_cap_Bps, double efficiency, weft_net_done_fn sent,
                  weft_net_done_fn done, void *ctx, guint64 tag)
{
    guint32 idx = xfer_alloc(net);
    xfer_t *x = &g_array_index(net->xfers, xfer_t, idx);
    x->done = done;
    x->sent = sent;
    x->ctx = ctx;
    x->tag = tag;
    x->bytes = bytes;
    x->route = route;
    x->owned = owned;
    x->flow_id = flow_id;
    x->src = src;
    x->dst = dst;
    x->credited = 0.0;
    x->cap_Bps = rate_cap_Bps > 0.0 ? rate_cap_Bps : INFINITY;
    x->efficiency = efficiency > 0.0 && efficiency <= 1.0 ? efficiency : 1.0;
    net->stats.transfers_started++;
    net->stats.bytes_sent += bytes;
    guard_count(net, route, +1);
    net->ops->start(net, idx);
    return TRUE;
}

void
weft_net_enable_guard(weft_net_t *net, weft_net_conflict_fn conflict, void *ctx)
{
    g_return_if_fail(net != NULL && (net->active != NULL || net->in_flight == 0));
    if (net->active == NULL) {
        net->active = g_new0(guint32, MAX(net->n_edges, 1u));
        net->reserved_until = g_new0(weft_time_t, MAX(net->n_edges, 1u));
        net->reserved_owner = g_new0(void *, MAX(net->n_edges, 1u));
    }
    net->conflict = conflict;
    net->conflict_ctx = ctx;
}

gboolean
weft_net_edges_idle(const weft_net_t *net, const gint *edges, guint n)
{
    g_return_val_if_fail(net != NULL && net->active != NULL, FALSE);
    weft_time_t now = weft_sim_now(net->sim);
    for (guint i = 0; i < n; i++) {
        if (net->active[edges[i]] != 0 || net->reserved_until[edges[i]] > now) {
            return FALSE;
        }
    }
    return TRUE;
}

void
weft_net_reserve(weft_net_t *net, const gint *edges, guint n, weft_time_t until_ps)
{
    weft_net_reserve_owned(net, edges, n, until_ps, NULL);
}

void
weft_net_reserve_owned(weft_net_t *net, const gint *edges, guint n, weft_time_t until_ps,
                       void *owner)
{
    g_return_if_fail(net != NULL && net->active != NULL);
    /* the pair blocks' transfers that started before now are not in the reservation, which
     * starts now: replay them first */
    pair_drain(net, weft_sim_now(net->sim));
    for (guint i = 0; i < n; i++) {
        net->reserved_until[edges[i]] = MAX(net->reserved_until[edges[i]], until_ps);
        net->reserved_owner[edges[i]] = owner;
        if (net->holds != NULL) {
            net->holds[edges[i]].busy = NULL; /* a plain reservation: any transfer conflicts */
        }
    }
}

gboolean
weft_net_ports_idle(const weft_net_t *net, const gint *edges, guint n)
{
    g_return_val_if_fail(net != NULL && net->active != NULL, FALSE);
    g_return_val_if_fail(net->opts.model == WEFT_NET_ANALYTICAL, FALSE);
    weft_time_t now = weft_sim_now(net->sim);
    for (guint i = 0; i < n; i++) {
        gint e = edges[i];
        if (net->reserved_until[e] > now || net->ports[e].busy_until > now) {
            return FALSE;
        }
    }
    return TRUE;
}

void
weft_net_hold_ports(weft_net_t *net, guint n, const gint *edges, GArray *const *busy,
                    weft_time_t until_ps, void *owner)
{
    g_return_if_fail(net != NULL && net->active != NULL);
    g_return_if_fail(net->opts.model == WEFT_NET_ANALYTICAL);
    g_return_if_fail(n == 0 || (edges != NULL && busy != NULL));
    weft_net_reserve_owned(net, edges, n, until_ps, owner);
    if (net->holds == NULL) {
        net->holds = g_new0(port_hold_t, MAX(net->n_edges, 1u));
    }
    weft_time_t now = weft_sim_now(net->sim);
    for (guint i = 0; i < n; i++) {
        g_return_if_fail(busy[i] != NULL);
        net->holds[edges[i]] = (port_hold_t){busy[i], now};
    }
}

void
weft_net_record_port_busy(weft_net_t *net, const gint *edges, guint n)
{
    g_return_if_fail(net != NULL && net->opts.model == WEFT_NET_ANALYTICAL);
    if (net->port_busy == NULL) {
        net->port_busy = g_new0(GArray *, MAX(net->n_edges, 1u));
    }
    for (guint i = 0; i < n; i++) {
        if (net->is_port[edges[i]] && net->port_busy[edges[i]] == NULL) {
            net->port_busy[edges[i]] = g_array_new(FALSE, FALSE, sizeof(weft_net_busy_t));
        }
    }
}

const GArray *
weft_net_recorded_port_busy(const weft_net_t *net, gint edge)
{
    g_return_val_if_fail(net != NULL && edge >= 0 && (guint)edge < net->n_edges, NULL);
    return net->port_busy != NULL ? net->port_busy[edge] : NULL;
}

gboolean
weft_net_is_port_edge(const weft_topo_t *topo, gint edge)
{
    g_return_val_if_fail(topo != NULL, FALSE);
    weft_vertex_kind_t a = weft_topo_vertex_kind(topo, weft_topo_edge_from(topo, edge));
    weft_vertex_kind_t b = weft_topo_vertex_kind(topo, weft_topo_edge_to(topo, edge));
    gboolean a_sw = a == WEFT_VERTEX_SWITCH || a == WEFT_VERTEX_NVSWITCH;
    gboolean b_sw = b == WEFT_VERTEX_SWITCH || b == WEFT_VERTEX_NVSWITCH;
    return !(a_sw && b_sw);
}

void
weft_net_credit(weft_net_t *net, gint edge, double bytes, weft_time_t busy_ps, double peak_util)
{
    g_return_if_fail(net != NULL && edge >= 0 && (guint)edge < net->n_edges);
    link_t *l = &net->links[edge];
    l->bytes_fx += (guint64)llround(bytes * WEFT_NET_BYTES_FX);
    l->busy_ps += busy_ps;
    l->peak_util = MAX(l->peak_util, peak_util);
}

void
weft_net_credit_stats(weft_net_t *net, const weft_net_stats_t *delta)
{
    g_return_if_fail(net != NULL && delta != NULL);
    net->stats.transfers_started += delta->transfers_started;
    net->stats.transfers_done += delta->transfers_done;
    net->stats.bytes_sent += delta->bytes_sent;
    net->stats.bytes_delivered += delta->bytes_delivered;
}

guint64
weft_net_next_flow_id(const weft_net_t *net, gint src, gint dst)
{
    g_return_val_if_fail(net != NULL, 0);
    if (net->pairs == NULL) {
        return 0;
    }
    guint64 key = pair_key(src, dst);
    return net->pairs[pair_slot(net->pairs, net->pairs_mask, key)].count;
}

const weft_net_options_t *
weft_net_options(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, NULL);
    return &net->opts;
}

guint
weft_net_transfer_cancel_ctx(weft_net_t *net, void *ctx)
{
    g_return_val_if_fail(net != NULL, 0);
    guint n = 0;
    for (guint32 i = 0; i < net->xfers->len && net->in_flight > 0; i++) {
        xfer_t *x = &g_array_index(net->xfers, xfer_t, i);
        if (x->in_use && x->ctx == ctx) {
            net->ops->cancel(net, i);
            net->stats.transfers_cancelled++;
            net->stats.bytes_cancelled += x->bytes;
            xfer_release(net, i);
            n++;
        }
    }
    return n;
}

weft_time_t
weft_net_transfer_time(weft_net_t *net, gint src, gint dst, guint64 bytes, GError **error)
{
    g_return_val_if_fail(net != NULL, -1);
    g_return_val_if_fail(error == NULL || *error == NULL, -1);
    /* flow 0: the estimate is for a lone transfer, not one of the run's numbered transfers */
    const weft_route_t *route;
    if (!weft_net_i_lookup_route(net, src, dst, 0, &route, error)) {
        return -1;
    }
    /* Every model agrees on a lone transfer over an idle network (see the essay for
     * the one exception: paths of one route crossing the same edge, under flow). */
    return analytical_duration(route, bytes, INFINITY, 1.0);
}

guint64
weft_net_in_flight(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, 0);
    return net->in_flight;
}

const weft_topo_t *
weft_net_topo(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, NULL);
    return net->topo;
}

weft_fabric_t *
weft_net_fabric(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, NULL);
    return net->fabric;
}

weft_sim_t *
weft_net_sim(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, NULL);
    return net->sim;
}

const weft_net_stats_t *
weft_net_stats(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, NULL);
    return &net->stats;
}

weft_net_model_t
weft_net_model(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, WEFT_NET_ANALYTICAL);
    return net->opts.model;
}

/* ---- links ------------------------------------------------------------------------- */

void
weft_net_set_link_capacity(weft_net_t *net, gint edge, double capacity_Bps)
{
    g_return_if_fail(net != NULL);
    g_return_if_fail(edge >= 0 && (guint)edge < net->n_edges);
    g_return_if_fail(capacity_Bps >= 0.0 && isfinite(capacity_Bps));
    if (net->opts.model == WEFT_NET_FLOW) {
        weft_net_i_flow_set_capacity(net, edge, capacity_Bps);
    }
}

gboolean
weft_net_set_link_fraction(weft_net_t *net, gint edge, double fraction, GError **error)
{
    g_return_val_if_fail(net != NULL, FALSE);
    g_return_val_if_fail(edge >= 0 && (guint)edge < net->n_edges, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    if (!(fraction >= 0.0 && fraction <= 1.0)) {
        g_set_error(error, WEFT_NET_ERROR, WEFT_NET_ERROR_LINK,
                    "link %s -> %s: fraction %g of its bandwidth is outside [0, 1]",
                    weft_topo_vertex_name(net->topo, weft_topo_edge_from(net->topo, edge)),
                    weft_topo_vertex_name(net->topo, weft_topo_edge_to(net->topo, edge)), fraction);
        return FALSE;
    }
    gboolean was_up = weft_fabric_edge_fraction(net->fabric, edge) > 0.0;
    g_autoptr(GError) terr = NULL;
    if (!weft_fabric_set_link_fraction(net->fabric, edge, fraction, &terr)) {
        /* only an igraph failure while rebuilding the views can land here */
        g_error("weft_net_set_link_fraction: %s", terr->message);
    }
    if (net->opts.model == WEFT_NET_FLOW) {
        weft_net_i_flow_set_capacity(net, edge, weft_topo_edge_bw(net->topo, edge) * fraction);
        if (was_up && fraction <= 0.0) {
            weft_net_i_flow_reroute(net, edge);
        }
    } else {
        /* transfers running on the edge keep their rate: against the new capacity, that is
         * a new utilization */
        link_t *l = &net->links[edge];
        analytical_link_expire(l, weft_sim_now(net->sim));
        if (l->n_sending > 0) {
            analytical_link_peak(net, l, edge);
        }
    }
    return TRUE;
}

const GError *
weft_net_stranded(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, NULL);
    return net->stranded;
}

weft_net_link_stats_t
weft_net_link_stats(const weft_net_t *net, gint edge)
{
    weft_net_link_stats_t st = {0};
    g_return_val_if_fail(net != NULL, st);
    g_return_val_if_fail(edge >= 0 && (guint)edge < net->n_edges, st);
    const link_t *l = &net->links[edge];
    double bw = weft_topo_edge_bw(net->topo, edge);
    st.capacity_Bps = bw;
    st.bytes = (double)l->bytes_fx / WEFT_NET_BYTES_FX;
    double makespan_s = weft_time_to_s(weft_sim_now(net->sim));
    st.mean_util = makespan_s > 0.0 ? st.bytes / (bw * makespan_s) : 0.0;
    st.peak_util = l->peak_util;
    if (net->opts.model == WEFT_NET_FLOW) {
        st.capacity_Bps = weft_lmm_constraint_capacity(net->lmm, (guint)edge);
        st.busy_ps = weft_net_i_flow_busy(net, edge);
        st.usage_Bps = l->usage;
        st.n_transfers = weft_lmm_constraint_n_variables(net->lmm, (guint)edge);
    } else {
        /* the closed runs, and the one in progress up to now (phases over by now that the
         * heap still holds all lie inside [since, run_end)) */
        st.busy_ps = l->busy_ps;
        if (l->n_sending > 0) {
            st.busy_ps += MIN(weft_sim_now(net->sim), l->run_end) - l->since;
        }
    }
    return st;
}

void
weft_net_enable_timeseries(weft_net_t *net, weft_time_t interval_ps)
{
    g_return_if_fail(net != NULL);
    g_return_if_fail(interval_ps > 0);
    g_return_if_fail(net->stats.transfers_started == 0);
    net->ts_interval = interval_ps;
    if (net->ts == NULL) {
        net->ts = g_new0(GArray *, net->n_edges);
    }
}

double *
weft_net_link_timeseries(const weft_net_t *net, gint edge, guint *n_samples)
{
    g_return_val_if_fail(net != NULL, NULL);
    g_return_val_if_fail(n_samples != NULL, NULL);
    g_return_val_if_fail(net->ts != NULL, NULL);
    g_return_val_if_fail(edge >= 0 && (guint)edge < net->n_edges, NULL);
    weft_time_t now = weft_sim_now(net->sim);
    guint n = (guint)(now / net->ts_interval) + 1;
    double *out = g_new0(double, n);
    const GArray *pts = net->ts[edge];
    guint k = 0; /* next change point to apply */
    double usage = 0.0;
    for (guint i = 0; i < n; i++) {
        weft_time_t t = (weft_time_t)i * net->ts_interval;
        while (pts != NULL && k < pts->len && g_array_index(pts, usage_point_t, k).time <= t) {
            usage = g_array_index(pts, usage_point_t, k).usage;
            k++;
        }
        out[i] = usage;
    }
    *n_samples = n;
    return out;
}

const GError *
weft_net_check_error(const weft_net_t *net)
{
    g_return_val_if_fail(net != NULL, NULL);
    return net->check_error;
}
