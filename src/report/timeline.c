/* SPDX-License-Identifier: MIT */
/*
 * The timeline: Chrome trace event JSON (the "JSON Array/Object Format" of the
 * Trace Event Format document, which Perfetto and chrome://tracing open),
 * streamed through weft_output_open() (a temporary file renamed into place),
 * so a run of millions of nodes never holds a JSON tree. See
 * weft_report_write_timeline() for the layout.
 */
#define G_LOG_DOMAIN "weft-report"

#include "report/report.h"

#include "config.h"

#include <string.h>

#include "core/output.h"
#include "report/report_private.h"

/* Threads per rank in the tid numbering: tid = rank x TIDS_PER_RANK + stream. */
#define TIDS_PER_RANK 8

static const char *const stream_name[WEFT_REPLAY_N_STREAMS] = {
    [WEFT_REPLAY_STREAM_COMPUTE] = "compute", [WEFT_REPLAY_STREAM_COMM] = "comm",
    [WEFT_REPLAY_STREAM_CPU] = "cpu",         [WEFT_REPLAY_STREAM_P2P] = "p2p",
    [WEFT_REPLAY_STREAM_NONE] = "other",
};

/* The records of traceEvents are separated by ",\n"; @first is TRUE before the first. */
static void
begin_record(FILE *f, gboolean *first)
{
    if (!*first) {
        fputs(",\n", f);
    }
    *first = FALSE;
}

/* Writes @s as a JSON string (RFC 8259 escapes). */
static void
put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        default:
            if (*p < 0x20) {
                fprintf(f, "\\u%04x", *p);
            } else {
                fputc(*p, f);
            }
        }
    }
    fputc('"', f);
}

/* The pid of @rank: its GPU's host, or n_hosts when the GPU has none. */
static gint
pid_of(const weft_report_t *rep, guint rank)
{
    gint v = weft_topo_gpu_vertex(rep->topo, rep->rank_gpu[rank]);
    gint h = weft_topo_vertex_host(rep->topo, v);
    return h >= 0 ? h : (gint)weft_topo_n_hosts(rep->topo);
}

/* Events by (rank, stream, start, node): one thread's events together, in time order. */
static gint
event_cmp(gconstpointer a, gconstpointer b, gpointer data)
{
    const tl_event_t *ev = data;
    const tl_event_t *x = &ev[*(const guint32 *)a], *y = &ev[*(const guint32 *)b];
    if (x->rank != y->rank) {
        return x->rank < y->rank ? -1 : 1;
    }
    if (x->stream != y->stream) {
        return x->stream < y->stream ? -1 : 1;
    }
    if (x->start_ps != y->start_ps) {
        return x->start_ps < y->start_ps ? -1 : 1;
    }
    return x->node < y->node ? -1 : (x->node > y->node ? 1 : 0);
}

static void
put_metadata(FILE *f, gboolean *first, const char *what, gint pid, gint tid, const char *name,
             gint sort_index)
{
    begin_record(f, first);
    fprintf(f, "{\"ph\":\"M\",\"pid\":%d,", pid);
    if (tid >= 0) {
        fprintf(f, "\"tid\":%d,", tid);
    }
    fprintf(f, "\"name\":\"%s_name\",\"args\":{\"name\":", what);
    put_string(f, name);
    fprintf(f, "}},\n{\"ph\":\"M\",\"pid\":%d,", pid);
    if (tid >= 0) {
        fprintf(f, "\"tid\":%d,", tid);
    }
    fprintf(f, "\"name\":\"%s_sort_index\",\"args\":{\"sort_index\":%d}}", what, sort_index);
}

static void
put_node_event(FILE *f, gboolean *first, const weft_report_t *rep, const tl_event_t *ev,
               GHashTable *coll_index)
{
    begin_record(f, first);
    const weft_rank_trace_t *t = &rep->wl->ranks[ev->rank];
    guint i = ev->node;
    fprintf(
        f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%.6f,\"dur\":%.6f,\"cat\":\"%s\",\"name\":",
        pid_of(rep, ev->rank), ev->rank * TIDS_PER_RANK + ev->stream, weft_time_to_us(ev->start_ps),
        weft_time_to_us(ev->end_ps - ev->start_ps), stream_name[ev->stream]);
    if (t->name[i] != NULL && t->name[i][0] != '\0') {
        put_string(f, t->name[i]);
    } else {
        fprintf(f, "\"node %" G_GUINT64_FORMAT "\"", t->id[i]);
    }
    fprintf(f, ",\"args\":{\"rank\":%u,\"node\":%u,\"id\":%" G_GUINT64_FORMAT ",\"type\":\"%s\"",
            ev->rank, i, t->id[i], weft_node_type_name((weft_node_type_t)t->type[i]));
    if (t->type[i] == WEFT_NODE_COLL && t->comm[i] >= 0) {
        guint64 key = ((guint64)(guint)t->comm[i] << 32) | ev->seq;
        gpointer idx = NULL;
        if (g_hash_table_lookup_extended(coll_index, &key, NULL, &idx)) {
            const weft_report_coll_t *c =
                &g_array_index(rep->colls, weft_report_coll_t, GPOINTER_TO_UINT(idx));
            const weft_comm_t *comm = g_ptr_array_index(rep->wl->comms, c->comm);
            fprintf(f, ",\"communicator\":");
            put_string(f, comm->name);
            fprintf(f,
                    ",\"seq\":%u,\"op\":\"%s\",\"bytes\":%" G_GUINT64_FORMAT
                    ",\"algorithm\":\"%s\",\"protocol\":\"%s\",\"channels\":%u,"
                    "\"collective_start_us\":%.6f",
                    c->seq, weft_coll_op_name((weft_coll_op_t)c->op), c->size_bytes,
                    weft_report_i_algo_name(c->algo),
                    weft_report_i_proto_name(c->proto), c->channels, weft_time_to_us(c->start_ps));
        }
    } else if (t->type[i] == WEFT_NODE_SEND || t->type[i] == WEFT_NODE_RECV ||
               t->type[i] == WEFT_NODE_COLL) {
        fprintf(f, ",\"bytes\":%" G_GUINT64_FORMAT, t->comm_bytes[i]);
        if (t->peer[i] >= 0) {
            fprintf(f, ",\"peer\":%d", t->peer[i]);
        }
    }
    fputs("}}", f);
}

static void
put_counters(FILE *f, gboolean *first, const weft_report_t *rep, gint pid)
{
    for (guint i = 0; i < rep->n_series; i++) {
        guint e = rep->series_edges[i];
        g_autofree char *link = weft_report_i_link_name(rep, e);
        g_autofree char *name = g_strdup_printf("util %s", link);
        double cap = weft_topo_edge_bw(rep->topo, (gint)e);
        double last = -1.0;
        for (guint k = 0; k < rep->n_samples; k++) {
            double u = cap > 0.0 ? rep->series[i][k] / cap : 0.0;
            /* a counter is a step function: a sample only where it changes (and the last) */
            if (u == last && k + 1 < rep->n_samples) {
                continue;
            }
            last = u;
            begin_record(f, first);
            fprintf(f, "{\"ph\":\"C\",\"pid\":%d,\"tid\":0,\"ts\":%.6f,\"name\":", pid,
                    weft_time_to_us((weft_time_t)k * rep->opts.link_interval_ps));
            put_string(f, name);
            fprintf(f, ",\"args\":{\"util\":%.9f}}", u);
        }
    }
}

/* The trace body; the caller checks ferror(). */
static void
put_trace(FILE *f, const weft_report_t *rep)
{
    guint n_hosts = weft_topo_n_hosts(rep->topo);
    fprintf(f,
            "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"weft_version\":\"%s\","
            "\"step_time_us\":%.6f,\"network_model\":",
            PACKAGE_VERSION, weft_time_to_us(rep->step_ps));
    put_string(f, rep->meta.network_model != NULL ? rep->meta.network_model : "");
    fputs("},\n\"traceEvents\":[\n", f);
    gboolean first = TRUE;

    /* processes: hosts in order, then "no host", then "links" */
    guint n_pids = n_hosts + 2;
    g_autofree guint8 *pid_used = g_new0(guint8, n_pids);
    g_autofree guint8 *thread_used = g_new0(guint8, (gsize)rep->n_ranks * TIDS_PER_RANK + 1);
    const tl_event_t *ev = (const tl_event_t *)(void *)rep->events->data;
    guint n_ev = rep->events->len;
    for (guint k = 0; k < n_ev; k++) {
        pid_used[pid_of(rep, ev[k].rank)] = 1;
        thread_used[(gsize)ev[k].rank * TIDS_PER_RANK + ev[k].stream] = 1;
    }
    if (rep->n_series > 0) {
        pid_used[n_hosts + 1] = 1;
    }
    for (guint p = 0; p < n_pids; p++) {
        if (!pid_used[p]) {
            continue;
        }
        g_autofree char *name = p < n_hosts    ? g_strdup_printf("host %u", p)
                                : p == n_hosts ? g_strdup("no host")
                                               : g_strdup("links");
        put_metadata(f, &first, "process", (gint)p, -1, name, (gint)p);
    }
    for (guint r = 0; r < rep->n_ranks; r++) {
        for (guint s = 0; s < WEFT_REPLAY_N_STREAMS; s++) {
            guint tid = r * TIDS_PER_RANK + s;
            if (thread_used[tid]) {
                g_autofree char *name = g_strdup_printf("rank %u %s", r, stream_name[s]);
                put_metadata(f, &first, "thread", pid_of(rep, r), (gint)tid, name, (gint)tid);
            }
        }
    }

    g_autoptr(GHashTable) coll_index =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    for (guint i = 0; i < rep->colls->len; i++) {
        const weft_report_coll_t *c = &g_array_index(rep->colls, weft_report_coll_t, i);
        guint64 *key = g_new(guint64, 1);
        *key = ((guint64)c->comm << 32) | c->seq;
        g_hash_table_insert(coll_index, key, GUINT_TO_POINTER(i));
    }
    g_autofree guint32 *order = g_new(guint32, MAX(n_ev, 1));
    for (guint k = 0; k < n_ev; k++) {
        order[k] = k;
    }
    g_qsort_with_data(order, (gint)n_ev, sizeof(guint32), event_cmp, (gpointer)ev);
    for (guint k = 0; k < n_ev; k++) {
        put_node_event(f, &first, rep, &ev[order[k]], coll_index);
    }
    put_counters(f, &first, rep, (gint)n_hosts + 1);
    fputs("\n]}\n", f);
}

gboolean
weft_report_write_timeline(const weft_report_t *rep, const char *path, GError **error)
{
    g_return_val_if_fail(rep != NULL && rep->finished && path != NULL, FALSE);
    g_return_val_if_fail(rep->opts.timeline, FALSE);
    g_autoptr(GError) ioerr = NULL;
    g_autoptr(weft_output_t) out = weft_output_open(path, &ioerr);
    if (out != NULL) {
        put_trace(weft_output_stream(out), rep);
        if (weft_output_commit(g_steal_pointer(&out), &ioerr)) {
            return TRUE;
        }
    }
    g_set_error_literal(error, WEFT_REPORT_ERROR, WEFT_REPORT_ERROR_IO, ioerr->message);
    return FALSE;
}
