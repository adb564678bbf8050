/* SPDX-License-Identifier: MIT */
/*
 * Reports: the observer that records collectives and timeline nodes, the
 * per-rank distribution, link statistics, and the text, JSON and CSV outputs.
 * The Chrome trace writer is in timeline.c; see report.h for the figures.
 */
#define G_LOG_DOMAIN "weft-report"

#include "report/report.h"

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "coll/tuning.h"
#include "core/json.h"
#include "core/output.h"
#include "core/units.h"
#include "report/report_private.h"

G_DEFINE_QUARK(weft - report - error - quark, weft_report_error)

/* Links in the summary's "busiest" list and collectives in its "most expensive" list. */
#define TOP_N 5
/* Default number of links in the sampled series (report.h). */
#define DEFAULT_SERIES_LINKS 16

/* ---- recording ------------------------------------------------------------------------------ */

static void
on_node(void *data, guint rank, guint node, weft_replay_stream_t stream, weft_time_t start_ps,
        weft_time_t end_ps)
{
    weft_report_t *rep = data;
    const weft_rank_trace_t *t = &rep->wl->ranks[rank];
    guint32 seq = 0;
    if (t->type[node] == WEFT_NODE_COLL && t->comm[node] >= 0) {
        /* a rank runs a communicator's collectives one at a time in sequence order, so its
         * k-th finished collective of communicator c is instance (c, k) */
        seq = rep->coll_count[(gsize)rank * rep->n_comms + (guint)t->comm[node]]++;
    }
    if (rep->rank_mask != NULL && !rep->rank_mask[rank]) {
        return;
    }
    if (rep->opts.window_end_ps > 0 &&
        (end_ps < rep->opts.window_start_ps || start_ps > rep->opts.window_end_ps)) {
        return;
    }
    if (rep->opts.window_end_ps <= 0 && end_ps < rep->opts.window_start_ps) {
        return;
    }
    tl_event_t ev = {start_ps, end_ps, rank, node, seq, (guint8)stream};
    g_array_append_val(rep->events, ev);
}

static void
on_collective(void *data, const weft_replay_coll_event_t *ev)
{
    weft_report_t *rep = data;
    const weft_coll_plan_t *p = ev->plan;
    const weft_comm_t *comm = g_ptr_array_index(rep->wl->comms, ev->comm);
    weft_report_coll_t c = {
        .comm = ev->comm,
        .seq = ev->seq,
        .op = (guint8)p->op,
        .algo = p->custom ? WEFT_REPORT_ALGO_CUSTOM : (guint8)p->algo,
        .proto = (guint8)p->proto,
        .n_members = comm->n_ranks,
        .channels = p->channels,
        .chunks = p->chunks,
        .size_bytes = ev->size_bytes,
        .first_arrival_ps = ev->first_arrival_ps,
        .start_ps = ev->start_ps,
        .end_ps = ev->end_ps,
        .moved_bytes = ev->moved_bytes,
    };
    g_array_append_val(rep->colls, c);
}

gboolean
weft_report_parse_ranks(const char *text, guint n_ranks, guint8 **mask, GError **error)
{
    g_return_val_if_fail(text != NULL, FALSE);
    g_autofree guint8 *m = mask != NULL ? g_new0(guint8, MAX(n_ranks, 1)) : NULL;
    g_auto(GStrv) parts = g_strsplit(text, ",", -1);
    guint n_parts = 0;
    for (guint i = 0; parts[i] != NULL; i++) {
        const char *part = g_strstrip(parts[i]);
        if (*part == '\0') {
            continue;
        }
        n_parts++;
        g_auto(GStrv) ends = g_strsplit(part, "-", 2);
        guint64 lo = 0, hi = 0;
        gboolean ok = g_ascii_string_to_unsigned(g_strstrip(ends[0]), 10, 0, G_MAXUINT, &lo, NULL);
        hi = lo;
        if (ok && ends[1] != NULL) {
            ok = g_ascii_string_to_unsigned(g_strstrip(ends[1]), 10, 0, G_MAXUINT, &hi, NULL);
        }
        if (!ok || hi < lo) {
            g_set_error(error, WEFT_REPORT_ERROR, WEFT_REPORT_ERROR_VALUE,
                        "ranks \"%s\": \"%s\" is not a rank or a range LOW-HIGH", text, part);
            return FALSE;
        }
        if (hi >= n_ranks) {
            g_set_error(error, WEFT_REPORT_ERROR, WEFT_REPORT_ERROR_VALUE,
                        "ranks \"%s\": rank %" G_GUINT64_FORMAT
                        " is out of range: the workload has %u rank%s (0 to %u)",
                        text, hi, n_ranks, n_ranks == 1 ? "" : "s", n_ranks > 0 ? n_ranks - 1 : 0);
            return FALSE;
        }
        for (guint64 r = lo; m != NULL && r <= hi; r++) {
            m[r] = 1;
        }
    }
    if (n_parts == 0) {
        g_set_error(error, WEFT_REPORT_ERROR, WEFT_REPORT_ERROR_VALUE,
                    "ranks \"%s\": no rank given (expected e.g. 0-7,12)", text);
        return FALSE;
    }
    if (mask != NULL) {
        *mask = g_steal_pointer(&m);
    }
    return TRUE;
}

gboolean
weft_report_parse_window(const char *text, weft_time_t *start_ps, weft_time_t *end_ps,
                         GError **error)
{
    g_return_val_if_fail(text != NULL && start_ps != NULL && end_ps != NULL, FALSE);
    const char *colon = strchr(text, ':');
    if (colon == NULL) {
        g_set_error(error, WEFT_REPORT_ERROR, WEFT_REPORT_ERROR_VALUE,
                    "time window \"%s\": expected START:END with units, e.g. 1ms:3ms", text);
        return FALSE;
    }
    g_autofree char *a = g_strstrip(g_strndup(text, (gsize)(colon - text)));
    g_autofree char *b = g_strstrip(g_strdup(colon + 1));
    weft_time_t s = 0, e = 0;
    g_autoptr(GError) uerr = NULL;
    if ((*a != '\0' && !weft_units_parse_time(a, &s, &uerr)) ||
        (*b != '\0' && !weft_units_parse_time(b, &e, &uerr))) {
        g_set_error(error, WEFT_REPORT_ERROR, WEFT_REPORT_ERROR_VALUE, "time window \"%s\": %s",
                    text, uerr->message);
        return FALSE;
    }
    if (*b != '\0' && e <= s) {
        g_set_error(error, WEFT_REPORT_ERROR, WEFT_REPORT_ERROR_VALUE,
                    "time window \"%s\": the end is not after the start", text);
        return FALSE;
    }
    if (*b != '\0' && e <= 0) {
        g_set_error(error, WEFT_REPORT_ERROR, WEFT_REPORT_ERROR_VALUE,
                    "time window \"%s\": the end must be after 0", text);
        return FALSE;
    }
    *start_ps = s;
    *end_ps = *b != '\0' ? e : 0;
    return TRUE;
}

/* Frees the strings of a meta the report owns (their type is const for callers). */
static void
meta_clear(weft_report_meta_t *m)
{
    g_free((gpointer)m->cluster);
    g_free((gpointer)m->workload);
    g_free((gpointer)m->placement);
    g_free((gpointer)m->network_model);
    g_free((gpointer)m->network_update);
    g_free((gpointer)m->collective_tuning);
    g_free((gpointer)m->config_ini);
    memset(m, 0, sizeof *m);
}

weft_report_t *
weft_report_new(const weft_topo_t *topo, const weft_workload_t *wl, const guint *rank_gpu,
                const weft_report_options_t *opts, GError **error)
{
    g_return_val_if_fail(topo != NULL && wl != NULL, NULL);
    g_autoptr(weft_report_t) rep = g_new0(weft_report_t, 1);
    rep->topo = topo;
    rep->wl = wl;
    if (opts != NULL) {
        rep->opts = *opts;
    }
    rep->opts.timeline_ranks = NULL; /* not kept: the mask below is */
    if (rep->opts.series_links == 0) {
        rep->opts.series_links = DEFAULT_SERIES_LINKS;
    }
    rep->n_ranks = wl->n_ranks;
    rep->n_comms = wl->comms->len;
    rep->rank_gpu = g_new(guint, MAX(wl->n_ranks, 1));
    for (guint r = 0; r < wl->n_ranks; r++) {
        rep->rank_gpu[r] = rank_gpu != NULL ? rank_gpu[r] : r;
    }
    if (opts != NULL && opts->timeline_ranks != NULL &&
        !weft_report_parse_ranks(opts->timeline_ranks, wl->n_ranks, &rep->rank_mask, error)) {
        return NULL;
    }
    rep->colls = g_array_new(FALSE, FALSE, sizeof(weft_report_coll_t));
    rep->events = g_array_new(FALSE, FALSE, sizeof(tl_event_t));
    rep->observer.data = rep;
    rep->observer.collective = on_collective;
    if (rep->opts.timeline) {
        rep->observer.node = on_node;
        rep->coll_count = g_new0(guint32, MAX((gsize)rep->n_ranks * rep->n_comms, 1));
    }
    return g_steal_pointer(&rep);
}

void
weft_report_free(weft_report_t *rep)
{
    if (rep == NULL) {
        return;
    }
    g_free(rep->rank_gpu);
    g_free(rep->rank_mask);
    g_free(rep->coll_count);
    if (rep->colls != NULL) {
        g_array_unref(rep->colls);
    }
    if (rep->events != NULL) {
        g_array_unref(rep->events);
    }
    g_free(rep->ranks);
    if (rep->faults != NULL) {
        g_ptr_array_unref(rep->faults);
    }
    if (rep->layers != NULL) {
        g_array_unref(rep->layers);
    }
    g_free(rep->links);
    g_free(rep->link_order);
    g_free(rep->series_edges);
    if (rep->series != NULL) {
        for (guint i = 0; i < rep->n_series; i++) {
            g_free(rep->series[i]);
        }
        g_free(rep->series);
    }
    meta_clear(&rep->meta);
    g_free(rep);
}

const weft_replay_observer_t *
weft_report_observer(weft_report_t *rep)
{
    g_return_val_if_fail(rep != NULL, NULL);
    return &rep->observer;
}

void
weft_report_attach(weft_report_t *rep, weft_net_t *net)
{
    g_return_if_fail(rep != NULL && net != NULL);
    if (rep->opts.link_interval_ps > 0 && weft_net_model(net) == WEFT_NET_FLOW) {
        weft_net_enable_timeseries(net, rep->opts.link_interval_ps);
        rep->series_on = TRUE;
    }
}

/* Collectives in the fixed order: start, communicator, sequence. */
static gint
coll_cmp(gconstpointer a, gconstpointer b)
{
    const weft_report_coll_t *x = a, *y = b;
    if (x->start_ps != y->start_ps) {
        return x->start_ps < y->start_ps ? -1 : 1;
    }
    if (x->comm != y->comm) {
        return x->comm < y->comm ? -1 : 1;
    }
    return x->seq < y->seq ? -1 : (x->seq > y->seq ? 1 : 0);
}

/* Links by bytes, descending; ties by edge id. g_qsort_with_data is stable-free: the tie rule
 * makes the order total. */
static gint
link_bytes_cmp(gconstpointer a, gconstpointer b, gpointer data)
{
    const weft_net_link_stats_t *links = data;
    guint x = *(const guint *)a, y = *(const guint *)b;
    if (links[x].bytes != links[y].bytes) {
        return links[x].bytes > links[y].bytes ? -1 : 1;
    }
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* The vertex @v's name as a tier names it: its last path component without digits
 * ("node3/nvswitch1" -> "nvswitch"), as plots/top_links.gp does. */
static char *
vertex_stem(const weft_topo_t *topo, gint v)
{
    const char *name = weft_topo_vertex_name(topo, v);
    const char *slash = strrchr(name, '/');
    GString *s = g_string_new(NULL);
    for (const char *p = slash != NULL ? slash + 1 : name; *p != '\0'; p++) {
        if (!g_ascii_isdigit(*p)) {
            g_string_append_c(s, *p);
        }
    }
    return g_string_free(s, FALSE);
}

/* The tier of edge @e: its link kind and the stems of the two vertices it joins, in name
 * order ("infiniband leaf-nic"), so both directions of a cable are one tier. */
static char *
link_tier(const weft_topo_t *topo, gint e)
{
    g_autofree char *a = vertex_stem(topo, weft_topo_edge_from(topo, e));
    g_autofree char *b = vertex_stem(topo, weft_topo_edge_to(topo, e));
    gboolean swap = strcmp(a, b) > 0;
    return g_strdup_printf("%s %s-%s", weft_topo_link_kind_name(weft_topo_edge_kind(topo, e)),
                           swap ? b : a, swap ? a : b);
}

void
weft_report_finish(weft_report_t *rep, weft_net_t *net, const weft_replay_result_t *res)
{
    g_return_if_fail(rep != NULL && net != NULL && res != NULL);
    g_return_if_fail(!rep->finished);
    rep->finished = TRUE;
    rep->n_ranks = res->n_ranks;
    rep->ranks = g_new(weft_rank_result_t, MAX(res->n_ranks, 1));
    if (res->n_ranks > 0) {
        memcpy(rep->ranks, res->ranks, sizeof(weft_rank_result_t) * res->n_ranks);
    }
    rep->step_ps = res->step_ps;
    rep->mem_known = res->mem_known;
    rep->faults = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; res->faults_applied != NULL && i < res->faults_applied->len; i++) {
        g_ptr_array_add(rep->faults, g_strdup(g_ptr_array_index(res->faults_applied, i)));
    }
    rep->layers = g_array_new(FALSE, FALSE, sizeof(weft_replay_layer_t));
    if (res->layers != NULL && res->layers->len > 0) {
        g_array_append_vals(rep->layers, res->layers->data, res->layers->len);
    }
    rep->events_run = res->events;
    rep->n_coll_run = res->collectives;
    rep->n_p2p = res->p2p_transfers;
    rep->n_coarse = res->coarse_collectives;
    g_array_sort(rep->colls, coll_cmp);

    rep->n_links = weft_topo_n_edges(rep->topo);
    rep->links = g_new0(weft_net_link_stats_t, MAX(rep->n_links, 1));
    rep->link_order = g_new(guint, MAX(rep->n_links, 1));
    for (guint e = 0; e < rep->n_links; e++) {
        rep->links[e] = weft_net_link_stats(net, (gint)e);
        rep->link_order[e] = e;
        rep->total_link_bytes += rep->links[e].bytes;
        rep->links_used += rep->links[e].bytes > 0.0;
    }
    g_qsort_with_data(rep->link_order, (gint)rep->n_links, sizeof(guint), link_bytes_cmp,
                      rep->links);

    if (rep->series_on) {
        /* the N busiest links, and the N / 4 busiest of each tier besides, so that a fabric's
         * InfiniBand or PCIe links are in the series even when NVLink carries the most bytes
         * (issue 20); in the order of bytes */
        guint n_top = MIN(rep->opts.series_links, rep->links_used);
        guint per_tier = MAX(rep->opts.series_links / 4, 1);
        g_autoptr(GHashTable) tier_count =
            g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_autoptr(GArray) pick = g_array_new(FALSE, FALSE, sizeof(guint));
        for (guint i = 0; i < rep->links_used; i++) {
            gint e = (gint)rep->link_order[i];
            g_autofree char *tier = link_tier(rep->topo, e);
            guint seen = GPOINTER_TO_UINT(g_hash_table_lookup(tier_count, tier));
            g_hash_table_insert(tier_count, g_steal_pointer(&tier), GUINT_TO_POINTER(seen + 1));
            if (i < n_top || seen < per_tier) {
                g_array_append_val(pick, rep->link_order[i]);
            }
        }
        guint n = pick->len;
        rep->n_series = n;
        rep->series_edges = g_new(guint, MAX(n, 1));
        rep->series = g_new0(double *, MAX(n, 1));
        for (guint i = 0; i < n; i++) {
            rep->series_edges[i] = g_array_index(pick, guint, i);
            rep->series[i] =
                weft_net_link_timeseries(net, (gint)rep->series_edges[i], &rep->n_samples);
        }
    }
}

void
weft_report_set_meta(weft_report_t *rep, const weft_report_meta_t *meta)
{
    g_return_if_fail(rep != NULL && meta != NULL);
    meta_clear(&rep->meta);
    rep->meta = *meta;
    rep->meta.cluster = g_strdup(meta->cluster);
    rep->meta.workload = g_strdup(meta->workload);
    rep->meta.placement = g_strdup(meta->placement);
    rep->meta.network_model = g_strdup(meta->network_model);
    rep->meta.network_update = g_strdup(meta->network_update);
    rep->meta.collective_tuning = g_strdup(meta->collective_tuning);
    rep->meta.config_ini = g_strdup(meta->config_ini);
}

guint
weft_report_n_collectives(const weft_report_t *rep)
{
    g_return_val_if_fail(rep != NULL, 0);
    return rep->colls->len;
}

const weft_report_coll_t *
weft_report_collective(const weft_report_t *rep, guint i)
{
    g_return_val_if_fail(rep != NULL && i < rep->colls->len, NULL);
    return &g_array_index(rep->colls, weft_report_coll_t, i);
}

guint64
weft_report_n_timeline_events(const weft_report_t *rep)
{
    g_return_val_if_fail(rep != NULL, 0);
    return rep->events->len;
}

/* nccl-tests' size: the whole buffer for all-gather, gather and scatter (n S), else S. */
static double
nccl_size(const weft_report_coll_t *c)
{
    switch ((weft_coll_op_t)c->op) {
    case WEFT_COLL_ALL_GATHER:
    case WEFT_COLL_GATHER:
    case WEFT_COLL_SCATTER:
        return (double)c->size_bytes * c->n_members;
    default:
        return (double)c->size_bytes;
    }
}

double
weft_report_coll_algbw_GBps(const weft_report_coll_t *c)
{
    g_return_val_if_fail(c != NULL, 0.0);
    weft_time_t t = c->end_ps - c->start_ps;
    return t > 0 ? nccl_size(c) / weft_time_to_s(t) / 1e9 : 0.0;
}

double
weft_report_coll_busbw_GBps(const weft_report_coll_t *c)
{
    g_return_val_if_fail(c != NULL, 0.0);
    return weft_report_coll_algbw_GBps(c) *
           weft_coll_tuning_busbw_factor((weft_coll_op_t)c->op, c->n_members);
}

/* ---- figures -----------------------------------------------------------------------------------
 */

/* The per-rank figures, in the order they are reported. */
typedef enum { F_FINISH, F_COMPUTE, F_EXPOSED, F_OVERLAPPED, F_IDLE, N_FIGURES } figure_t;

static const char *const figure_key[N_FIGURES] = {
    "finish_us", "compute_us", "exposed_comm_us", "overlapped_comm_us", "idle_us",
};
static const char *const figure_label[N_FIGURES] = {
    "finish", "compute", "exposed comm", "overlapped comm", "idle",
};

static weft_time_t
figure_of(const weft_rank_result_t *r, figure_t f)
{
    switch (f) {
    case F_FINISH:
        return r->finish_ps;
    case F_COMPUTE:
        return r->compute_ps;
    case F_EXPOSED:
        return r->exposed_comm_ps;
    case F_OVERLAPPED:
        return r->overlapped_comm_ps;
    default:
        return r->idle_ps;
    }
}

static gint
time_cmp(gconstpointer a, gconstpointer b)
{
    weft_time_t x = *(const weft_time_t *)a, y = *(const weft_time_t *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

typedef struct {
    double total_us, min_us, median_us, max_us;
} dist_t;

static dist_t
distribution(const weft_report_t *rep, figure_t f)
{
    dist_t d = {0};
    if (rep->n_ranks == 0) {
        return d;
    }
    g_autofree weft_time_t *v = g_new(weft_time_t, rep->n_ranks);
    weft_time_t total = 0;
    for (guint r = 0; r < rep->n_ranks; r++) {
        v[r] = figure_of(&rep->ranks[r], f);
        total += v[r];
    }
    qsort(v, rep->n_ranks, sizeof *v, time_cmp);
    guint n = rep->n_ranks;
    d.total_us = weft_time_to_us(total);
    d.min_us = weft_time_to_us(v[0]);
    d.max_us = weft_time_to_us(v[n - 1]);
    d.median_us = n % 2 == 1 ? weft_time_to_us(v[n / 2])
                             : (weft_time_to_us(v[n / 2 - 1]) + weft_time_to_us(v[n / 2])) / 2.0;
    return d;
}

/* Collectives by time (end - start), descending; ties by the fixed order (index). */
static gint
coll_time_cmp(gconstpointer a, gconstpointer b, gpointer data)
{
    const GArray *colls = data;
    guint x = *(const guint *)a, y = *(const guint *)b;
    const weft_report_coll_t *cx = &g_array_index(colls, weft_report_coll_t, x);
    const weft_report_coll_t *cy = &g_array_index(colls, weft_report_coll_t, y);
    weft_time_t tx = cx->end_ps - cx->start_ps, ty = cy->end_ps - cy->start_ps;
    if (tx != ty) {
        return tx > ty ? -1 : 1;
    }
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* Indexes of the @n most expensive collectives (n <= TOP_N). */
static guint
top_collectives(const weft_report_t *rep, guint idx[TOP_N])
{
    /* the first TOP_N in coll_time_cmp()'s order, kept sorted while every instance passes
     * once: O(instances x TOP_N), not a sort of millions */
    guint k = 0;
    for (guint i = 0; i < rep->colls->len; i++) {
        if (k == TOP_N && coll_time_cmp(&i, &idx[k - 1], rep->colls) >= 0) {
            continue;
        }
        guint j = k < TOP_N ? k++ : k - 1;
        while (j > 0 && coll_time_cmp(&i, &idx[j - 1], rep->colls) < 0) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    return k;
}

/* One line per distinct (op, algorithm, protocol, channels): instances and total time. */
typedef struct {
    guint8 op, algo, proto;
    guint channels;
    guint instances;
    weft_time_t total_ps;
} choice_t;

static gint
choice_cmp(gconstpointer a, gconstpointer b)
{
    const choice_t *x = a, *y = b;
    if (x->op != y->op) {
        return x->op < y->op ? -1 : 1;
    }
    if (x->algo != y->algo) {
        return x->algo < y->algo ? -1 : 1;
    }
    if (x->proto != y->proto) {
        return x->proto < y->proto ? -1 : 1;
    }
    return x->channels < y->channels ? -1 : (x->channels > y->channels ? 1 : 0);
}

static GArray *
choices(const weft_report_t *rep)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(choice_t));
    for (guint i = 0; i < rep->colls->len; i++) {
        const weft_report_coll_t *c = &g_array_index(rep->colls, weft_report_coll_t, i);
        choice_t key = {c->op, c->algo, c->proto, c->channels, 0, 0};
        choice_t *found = NULL;
        for (guint k = 0; k < out->len && found == NULL; k++) {
            if (choice_cmp(&g_array_index(out, choice_t, k), &key) == 0) {
                found = &g_array_index(out, choice_t, k);
            }
        }
        if (found == NULL) {
            g_array_append_val(out, key);
            found = &g_array_index(out, choice_t, out->len - 1);
        }
        found->instances++;
        found->total_ps += c->end_ps - c->start_ps;
    }
    g_array_sort(out, choice_cmp);
    return out;
}

static const char *
comm_name(const weft_report_t *rep, guint comm)
{
    const weft_comm_t *c = g_ptr_array_index(rep->wl->comms, comm);
    return c->name;
}

const char *
weft_report_i_algo_name(guint8 algo)
{
    return algo == WEFT_REPORT_ALGO_CUSTOM ? "custom" : weft_coll_algo_name((weft_coll_algo_t)algo);
}

const char *
weft_report_i_proto_name(guint8 proto)
{
    return weft_coll_tuning_proto_name((weft_coll_proto_t)proto);
}

char *
weft_report_i_link_name(const weft_report_t *rep, guint e)
{
    return g_strdup_printf(
        "%s->%s", weft_topo_vertex_name(rep->topo, weft_topo_edge_from(rep->topo, (gint)e)),
        weft_topo_vertex_name(rep->topo, weft_topo_edge_to(rep->topo, (gint)e)));
}

/* ---- text summary -----------------------------------------------------------------------------
 */

char *
weft_report_summary_text(const weft_report_t *rep)
{
    g_return_val_if_fail(rep != NULL && rep->finished, NULL);
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "\nper rank (us) %16s %16s %16s %16s\n", "total", "min", "median",
                           "max");
    for (figure_t f = 0; f < N_FIGURES; f++) {
        dist_t d = distribution(rep, f);
        g_string_append_printf(s, "  %-15s %14.6f %16.6f %16.6f %16.6f\n", figure_label[f],
                               d.total_us, d.min_us, d.median_us, d.max_us);
    }

    guint idx[TOP_N];
    guint k = top_collectives(rep, idx);
    g_string_append_printf(s, "\nmost expensive collectives (%u of %u instances)\n", k,
                           rep->colls->len);
    if (k > 0) {
        g_string_append_printf(s, "  %-3s %-14s %-15s %14s %-17s %-7s %3s %14s %11s\n", "#",
                               "communicator", "op", "bytes", "algorithm", "proto", "ch", "time_us",
                               "busbw_GBps");
    }
    for (guint i = 0; i < k; i++) {
        const weft_report_coll_t *c = &g_array_index(rep->colls, weft_report_coll_t, idx[i]);
        g_autofree char *who = g_strdup_printf("%s:%u", comm_name(rep, c->comm), c->seq);
        g_string_append_printf(
            s, "  #%-2u %-14s %-15s %14" G_GUINT64_FORMAT " %-17s %-7s %3u %14.6f %11.3f\n", i + 1,
            who, weft_coll_op_name((weft_coll_op_t)c->op), c->size_bytes,
            weft_report_i_algo_name(c->algo), weft_report_i_proto_name(c->proto),
            c->channels, weft_time_to_us(c->end_ps - c->start_ps), weft_report_coll_busbw_GBps(c));
    }

    guint nl = MIN(rep->links_used, TOP_N);
    g_string_append_printf(s,
                           "\nbusiest links by bytes (%u shown; %u of %u directed links carried "
                           "data, %.0f bytes in all)\n",
                           nl, rep->links_used, rep->n_links, rep->total_link_bytes);
    if (nl > 0) {
        g_string_append_printf(s, "  %-3s %-40s %-11s %16s %14s %9s %9s\n", "#", "link", "kind",
                               "bytes", "busy_us", "mean_util", "peak_util");
    }
    for (guint i = 0; i < nl; i++) {
        guint e = rep->link_order[i];
        const weft_net_link_stats_t *l = &rep->links[e];
        g_autofree char *name = weft_report_i_link_name(rep, e);
        g_string_append_printf(s, "  #%-2u %-40s %-11s %16.0f %14.6f %9.4f %9.4f\n", i + 1, name,
                               weft_topo_link_kind_name(weft_topo_edge_kind(rep->topo, (gint)e)),
                               l->bytes, weft_time_to_us(l->busy_ps), l->mean_util, l->peak_util);
    }

    g_autoptr(GArray) ch = choices(rep);
    g_string_append(s, "\ncollective choices\n");
    if (ch->len == 0) {
        g_string_append(s, "  (no collective ran)\n");
    }
    for (guint i = 0; i < ch->len; i++) {
        const choice_t *c = &g_array_index(ch, choice_t, i);
        g_string_append_printf(s, "  %-15s %s/%s, %u channel%s: %u instance%s, %.6f us\n",
                               weft_coll_op_name((weft_coll_op_t)c->op),
                               weft_report_i_algo_name(c->algo),
                               weft_report_i_proto_name(c->proto), c->channels,
                               c->channels == 1 ? "" : "s", c->instances,
                               c->instances == 1 ? "" : "s", weft_time_to_us(c->total_ps));
    }
    g_string_append_printf(s, "  network model %s (update %s), collective tuning %s\n",
                           rep->meta.network_model != NULL ? rep->meta.network_model : "?",
                           rep->meta.network_update != NULL ? rep->meta.network_update : "?",
                           rep->meta.collective_tuning != NULL ? rep->meta.collective_tuning : "?");
    return g_string_free(s, FALSE);
}

/* ---- summary.json -------------------------------------------------------------------------------
 */

/* The effective configuration as {group: {key: value or null}}, in the INI's order. */
static void
add_config(JsonBuilder *b, const char *ini)
{
    json_builder_set_member_name(b, "configuration");
    g_autoptr(GKeyFile) kf = g_key_file_new();
    if (ini == NULL || !g_key_file_load_from_data(kf, ini, (gsize)-1, G_KEY_FILE_NONE, NULL)) {
        json_builder_add_null_value(b);
        return;
    }
    json_builder_begin_object(b);
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    for (guint g = 0; groups[g] != NULL; g++) {
        json_builder_set_member_name(b, groups[g]);
        json_builder_begin_object(b);
        g_auto(GStrv) keys = g_key_file_get_keys(kf, groups[g], NULL, NULL);
        for (guint k = 0; keys != NULL && keys[k] != NULL; k++) {
            g_autofree char *v = g_key_file_get_value(kf, groups[g], keys[k], NULL);
            weft_json_add_string(b, keys[k], v != NULL && *v != '\0' ? v : NULL);
        }
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
}

static void
add_coll_members(JsonBuilder *b, const weft_report_t *rep, const weft_report_coll_t *c)
{
    weft_json_add_int(b, "communicator", c->comm);
    weft_json_add_string(b, "communicator_name", comm_name(rep, c->comm));
    weft_json_add_int(b, "seq", c->seq);
    weft_json_add_string(b, "op", weft_coll_op_name((weft_coll_op_t)c->op));
    weft_json_add_int(b, "bytes", (gint64)c->size_bytes);
    weft_json_add_int(b, "members", c->n_members);
    weft_json_add_string(b, "algorithm", weft_report_i_algo_name(c->algo));
    weft_json_add_string(b, "protocol", weft_report_i_proto_name(c->proto));
    weft_json_add_int(b, "channels", c->channels);
    weft_json_add_double(b, "start_us", weft_time_to_us(c->start_ps));
    weft_json_add_double(b, "end_us", weft_time_to_us(c->end_ps));
    weft_json_add_double(b, "time_us", weft_time_to_us(c->end_ps - c->start_ps));
    weft_json_add_double(b, "algbw_GBps", weft_report_coll_algbw_GBps(c));
    weft_json_add_double(b, "busbw_GBps", weft_report_coll_busbw_GBps(c));
}

char *
weft_report_summary_json(const weft_report_t *rep)
{
    g_return_val_if_fail(rep != NULL && rep->finished, NULL);
    const weft_report_meta_t *m = &rep->meta;
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    weft_json_add_string(b, "weft_version", PACKAGE_VERSION);
    json_builder_set_member_name(b, "seeds");
    json_builder_begin_object(b);
    weft_json_add_int(b, "simulation", (gint64)m->sim_seed);
    weft_json_add_int(b, "placement", (gint64)m->placement_seed);
    weft_json_add_int(b, "ecmp", (gint64)m->ecmp_seed);
    json_builder_end_object(b);

    json_builder_set_member_name(b, "run");
    json_builder_begin_object(b);
    weft_json_add_string(b, "cluster", m->cluster);
    weft_json_add_string(b, "workload", m->workload);
    weft_json_add_string(b, "placement", m->placement);
    weft_json_add_string(b, "network_model", m->network_model);
    weft_json_add_string(b, "network_update", m->network_update);
    weft_json_add_string(b, "collective_tuning", m->collective_tuning);
    weft_json_add_int(b, "chunks", m->chunks);
    json_builder_end_object(b);
    add_config(b, m->config_ini);

    json_builder_set_member_name(b, "counts");
    json_builder_begin_object(b);
    weft_json_add_int(b, "ranks", rep->n_ranks);
    weft_json_add_int(b, "nodes", (gint64)weft_workload_node_count(rep->wl));
    weft_json_add_int(b, "communicators", rep->n_comms);
    weft_json_add_int(b, "collectives", (gint64)rep->n_coll_run);
    weft_json_add_int(b, "p2p_transfers", (gint64)rep->n_p2p);
    weft_json_add_int(b, "events", (gint64)rep->events_run);
    weft_json_add_int(b, "coarse_collectives", (gint64)rep->n_coarse);
    weft_json_add_int(b, "gpus", weft_topo_n_gpus(rep->topo));
    weft_json_add_int(b, "vertices", weft_topo_n_vertices(rep->topo));
    weft_json_add_int(b, "directed_links", rep->n_links);
    weft_json_add_int(b, "links_used", rep->links_used);
    json_builder_end_object(b);

    weft_json_add_double(b, "step_time_us", weft_time_to_us(rep->step_ps));
    /* the highest peak of any rank (doc/memory.md); null when the workload has no memory */
    json_builder_set_member_name(b, "memory");
    if (!rep->mem_known || rep->n_ranks == 0) {
        json_builder_add_null_value(b);
    } else {
        guint best = 0;
        for (guint r = 1; r < rep->n_ranks; r++) {
            if (rep->ranks[r].mem_peak_bytes > rep->ranks[best].mem_peak_bytes) {
                best = r;
            }
        }
        const weft_rank_result_t *rr = &rep->ranks[best];
        const weft_hw_gpu_t *gpu = weft_topo_vertex_gpu_model(
            rep->topo, weft_topo_gpu_vertex(rep->topo, rep->rank_gpu[best]));
        json_builder_begin_object(b);
        weft_json_add_int(b, "peak_bytes", (gint64)rr->mem_peak_bytes);
        weft_json_add_int(b, "rank", best);
        weft_json_add_double(b, "time_us", weft_time_to_us(rr->mem_peak_ps));
        json_builder_set_member_name(b, "hbm_bytes");
        if (gpu != NULL) {
            json_builder_add_int_value(b, (gint64)gpu->hbm_bytes);
        } else {
            json_builder_add_null_value(b);
        }
        json_builder_set_member_name(b, "at_peak");
        json_builder_begin_object(b);
        for (guint k = 0; k < WEFT_MEM_N_CATS; k++) {
            weft_json_add_int(b, weft_mem_cat_name((weft_mem_cat_t)k),
                              (gint64)rr->mem_at_peak[k]);
        }
        json_builder_end_object(b);
        json_builder_end_object(b);
    }
    /* the in-step faults applied, as the summary lists them (doc/failures.md) */
    json_builder_set_member_name(b, "faults_applied");
    json_builder_begin_array(b);
    for (guint i = 0; rep->faults != NULL && i < rep->faults->len; i++) {
        json_builder_add_string_value(b, g_ptr_array_index(rep->faults, i));
    }
    json_builder_end_array(b);
    /* what the trace reader worked around, as the summary's warning lines (workload.h) */
    json_builder_set_member_name(b, "warnings");
    json_builder_begin_array(b);
    for (guint i = 0; rep->wl->warnings != NULL && i < rep->wl->warnings->len; i++) {
        json_builder_add_string_value(b, g_ptr_array_index(rep->wl->warnings, i));
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "per_rank");
    json_builder_begin_object(b);
    for (figure_t f = 0; f < N_FIGURES; f++) {
        dist_t d = distribution(rep, f);
        json_builder_set_member_name(b, figure_key[f]);
        json_builder_begin_object(b);
        weft_json_add_double(b, "total", d.total_us);
        weft_json_add_double(b, "min", d.min_us);
        weft_json_add_double(b, "median", d.median_us);
        weft_json_add_double(b, "max", d.max_us);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);

    guint idx[TOP_N];
    guint k = top_collectives(rep, idx);
    json_builder_set_member_name(b, "top_collectives");
    json_builder_begin_array(b);
    for (guint i = 0; i < k; i++) {
        json_builder_begin_object(b);
        add_coll_members(b, rep, &g_array_index(rep->colls, weft_report_coll_t, idx[i]));
        json_builder_end_object(b);
    }
    json_builder_end_array(b);

    json_builder_set_member_name(b, "busiest_links");
    json_builder_begin_array(b);
    for (guint i = 0; i < MIN(rep->links_used, TOP_N); i++) {
        guint e = rep->link_order[i];
        const weft_net_link_stats_t *l = &rep->links[e];
        json_builder_begin_object(b);
        weft_json_add_int(b, "edge", e);
        weft_json_add_string(b, "kind",
                             weft_topo_link_kind_name(weft_topo_edge_kind(rep->topo, (gint)e)));
        weft_json_add_string(
            b, "from", weft_topo_vertex_name(rep->topo, weft_topo_edge_from(rep->topo, (gint)e)));
        weft_json_add_string(
            b, "to", weft_topo_vertex_name(rep->topo, weft_topo_edge_to(rep->topo, (gint)e)));
        weft_json_add_double(b, "capacity_GBps", l->capacity_Bps / 1e9);
        weft_json_add_double(b, "bytes", l->bytes);
        weft_json_add_double(b, "busy_us", weft_time_to_us(l->busy_ps));
        weft_json_add_double(b, "mean_util", l->mean_util);
        weft_json_add_double(b, "peak_util", l->peak_util);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    weft_json_add_double(b, "link_bytes_total", rep->total_link_bytes);

    g_autoptr(GArray) ch = choices(rep);
    json_builder_set_member_name(b, "collective_choices");
    json_builder_begin_array(b);
    for (guint i = 0; i < ch->len; i++) {
        const choice_t *c = &g_array_index(ch, choice_t, i);
        json_builder_begin_object(b);
        weft_json_add_string(b, "op", weft_coll_op_name((weft_coll_op_t)c->op));
        weft_json_add_string(b, "algorithm", weft_report_i_algo_name(c->algo));
        weft_json_add_string(b, "protocol", weft_report_i_proto_name(c->proto));
        weft_json_add_int(b, "channels", c->channels);
        weft_json_add_int(b, "instances", c->instances);
        weft_json_add_double(b, "time_us", weft_time_to_us(c->total_ps));
        json_builder_end_object(b);
    }
    json_builder_end_array(b);

    /* layers.csv's rows (doc/outputs.md): means over each row's ranks */
    json_builder_set_member_name(b, "per_layer");
    json_builder_begin_array(b);
    for (guint i = 0; i < rep->layers->len; i++) {
        const weft_replay_layer_t *L = &g_array_index(rep->layers, weft_replay_layer_t, i);
        double n = MAX(L->n_ranks, 1u);
        weft_time_t exp = 0, ovl = 0;
        for (guint q = 0; q < WEFT_PAR_N; q++) {
            exp += L->exposed_ps[q];
            ovl += L->overlapped_ps[q];
        }
        json_builder_begin_object(b);
        weft_json_add_int(b, "layer_index", L->layer);
        weft_json_add_string(b, "layer",
                             rep->wl->layers != NULL && L->layer < rep->wl->layers->len
                                 ? g_ptr_array_index(rep->wl->layers, L->layer)
                                 : "other");
        weft_json_add_string(b, "phase", weft_phase_name((weft_phase_t)L->phase));
        weft_json_add_int(b, "ranks", L->n_ranks);
        weft_json_add_double(b, "compute_us", (double)L->compute_ps / n / 1e6);
        weft_json_add_double(b, "exposed_comm_us", (double)exp / n / 1e6);
        weft_json_add_double(b, "overlapped_comm_us", (double)ovl / n / 1e6);
        weft_json_add_int(b, "collectives", (gint64)L->collectives);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);

    return weft_json_to_text(b, TRUE);
}

/* ---- CSV ------------------------------------------------------------------------------------ */


char *
weft_report_collectives_csv(const weft_report_t *rep)
{
    g_return_val_if_fail(rep != NULL && rep->finished, NULL);
    GString *s = g_string_new("communicator,communicator_name,seq,op,size_bytes,members,"
                              "moved_bytes,algorithm,protocol,channels,chunks,first_arrival_us,"
                              "start_us,end_us,time_us,algbw_GBps,busbw_GBps\n");
    for (guint i = 0; i < rep->colls->len; i++) {
        const weft_report_coll_t *c = &g_array_index(rep->colls, weft_report_coll_t, i);
        g_string_append_printf(s, "%u,", c->comm);
        weft_output_csv_field(s, comm_name(rep, c->comm));
        g_string_append_printf(s,
                               ",%u,%s,%" G_GUINT64_FORMAT ",%u,%" G_GUINT64_FORMAT
                               ",%s,%s,%u,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n",
                               c->seq, weft_coll_op_name((weft_coll_op_t)c->op), c->size_bytes,
                               c->n_members, c->moved_bytes,
                               weft_report_i_algo_name(c->algo),
                               weft_report_i_proto_name(c->proto), c->channels, c->chunks,
                               weft_time_to_us(c->first_arrival_ps), weft_time_to_us(c->start_ps),
                               weft_time_to_us(c->end_ps), weft_time_to_us(c->end_ps - c->start_ps),
                               weft_report_coll_algbw_GBps(c), weft_report_coll_busbw_GBps(c));
    }
    return g_string_free(s, FALSE);
}

char *
weft_report_links_csv(const weft_report_t *rep)
{
    g_return_val_if_fail(rep != NULL && rep->finished, NULL);
    GString *s =
        g_string_new("edge,kind,from,to,capacity_GBps,wire_bytes,busy_us,mean_util,peak_util\n");
    for (guint e = 0; e < rep->n_links; e++) {
        const weft_net_link_stats_t *l = &rep->links[e];
        g_string_append_printf(s, "%u,%s,", e,
                               weft_topo_link_kind_name(weft_topo_edge_kind(rep->topo, (gint)e)));
        weft_output_csv_field(s, weft_topo_vertex_name(rep->topo, weft_topo_edge_from(rep->topo, (gint)e)));
        g_string_append_c(s, ',');
        weft_output_csv_field(s, weft_topo_vertex_name(rep->topo, weft_topo_edge_to(rep->topo, (gint)e)));
        g_string_append_printf(s, ",%.6f,%.0f,%.6f,%.9f,%.9f\n", l->capacity_Bps / 1e9, l->bytes,
                               weft_time_to_us(l->busy_ps), l->mean_util, l->peak_util);
    }
    return g_string_free(s, FALSE);
}

char *
weft_report_links_timeseries_csv(const weft_report_t *rep)
{
    g_return_val_if_fail(rep != NULL && rep->finished, NULL);
    if (!rep->series_on) {
        return NULL;
    }
    GString *s = g_string_new("time_us,link_rank,link,util\n");
    /* link-major, so each link is one scan line of the heatmap (blank line between links) */
    for (guint i = 0; i < rep->n_series; i++) {
        guint e = rep->series_edges[i];
        g_autofree char *name = weft_report_i_link_name(rep, e);
        double cap = weft_topo_edge_bw(rep->topo, (gint)e);
        for (guint k = 0; k < rep->n_samples; k++) {
            g_string_append_printf(s, "%.6f,%u,", weft_time_to_us(k * rep->opts.link_interval_ps),
                                   i);
            weft_output_csv_field(s, name);
            g_string_append_printf(s, ",%.9f\n", cap > 0.0 ? rep->series[i][k] / cap : 0.0);
        }
    }
    return g_string_free(s, FALSE);
}

gboolean
weft_report_i_write_text(const char *dir, const char *name, const char *text, GError **error)
{
    g_autofree char *path = dir != NULL ? g_build_filename(dir, name, NULL) : g_strdup(name);
    g_autoptr(GError) ioerr = NULL;
    if (!weft_output_write(path, text, -1, &ioerr)) {
        g_set_error_literal(error, WEFT_REPORT_ERROR, WEFT_REPORT_ERROR_IO, ioerr->message);
        return FALSE;
    }
    return TRUE;
}

gboolean
weft_report_write_files(const weft_report_t *rep, const char *dir, GError **error)
{
    g_return_val_if_fail(rep != NULL && rep->finished && dir != NULL, FALSE);
    g_autofree char *json = weft_report_summary_json(rep);
    g_autofree char *colls = weft_report_collectives_csv(rep);
    g_autofree char *links = weft_report_links_csv(rep);
    g_autofree char *series = weft_report_links_timeseries_csv(rep);
    return weft_report_i_write_text(dir, "summary.json", json, error) &&
           weft_report_i_write_text(dir, "collectives.csv", colls, error) &&
           weft_report_i_write_text(dir, "links.csv", links, error) &&
           (series == NULL || weft_report_i_write_text(dir, "links_timeseries.csv", series, error));
}

/* ---- progress -----------------------------------------------------------------------------------
 */

/* Events between two looks at the wall clock. */
#define PROGRESS_EVERY_EVENTS 4096

static void
progress_tick(void *data, weft_time_t now_ps, guint64 events, guint64 work_done,
              guint64 work_total)
{
    weft_progress_t *p = data;
    if (!weft_progress_due(p)) {
        return;
    }
    g_autofree char *count = weft_progress_format_count(events);
    weft_progress_report(p, work_total > 0 ? (double)work_done / (double)work_total : -1.0,
                         "simulated %.6f s, %s events", weft_time_to_s(now_ps), count);
}

void
weft_report_progress_attach(weft_progress_t *p, weft_sim_t *sim)
{
    g_return_if_fail(p != NULL && sim != NULL);
    weft_sim_set_progress(sim, PROGRESS_EVERY_EVENTS, progress_tick, p);
}
