/* SPDX-License-Identifier: MIT */
/*
 * The stage node-sequence builder shared by the transformer generator and the
 * text-workload reader (seq.h): growable columns, predecessor lists in CSR
 * form (dep_off, deps), and the hand-over of the arrays to a stage's ranks.
 */
#define G_LOG_DOMAIN "weft-workload"

#include "workload/seq.h"

void
weft_workload_i_seq_init(weft_workload_i_seq_t *s)
{
    g_return_if_fail(s != NULL);
    s->type = g_array_new(FALSE, FALSE, sizeof(guint8));
    s->dur = g_array_new(FALSE, FALSE, sizeof(weft_time_t));
    s->op = g_array_new(FALSE, FALSE, sizeof(guint8));
    s->bytes = g_array_new(FALSE, FALSE, sizeof(guint64));
    s->kind = g_array_new(FALSE, FALSE, sizeof(guint8));
    s->tag = g_array_new(FALSE, FALSE, sizeof(gint64));
    s->name = g_array_new(FALSE, FALSE, sizeof(const char *));
    s->dep_off = g_array_new(FALSE, FALSE, sizeof(guint32));
    s->deps = g_array_new(FALSE, FALSE, sizeof(guint32));
    guint32 zero = 0;
    g_array_append_val(s->dep_off, zero);
}

void
weft_workload_i_seq_clear(weft_workload_i_seq_t *s)
{
    g_return_if_fail(s != NULL);
    GArray **all[] = {&s->type, &s->dur,  &s->op,      &s->bytes, &s->kind,
                      &s->tag,  &s->name, &s->dep_off, &s->deps};
    for (gsize i = 0; i < G_N_ELEMENTS(all); i++) {
        if (*all[i] != NULL) {
            g_array_unref(*all[i]);
            *all[i] = NULL;
        }
    }
}

gint64
weft_workload_i_seq_push(weft_workload_i_seq_t *s, guint8 type, const char *name,
                         weft_time_t dur_ps, guint8 op, guint64 bytes, guint8 kind, gint64 tag)
{
    gint64 i = s->type->len;
    g_array_append_val(s->type, type);
    g_array_append_val(s->dur, dur_ps);
    g_array_append_val(s->op, op);
    g_array_append_val(s->bytes, bytes);
    g_array_append_val(s->kind, kind);
    g_array_append_val(s->tag, tag);
    g_array_append_val(s->name, name);
    return i;
}

void
weft_workload_i_seq_dep(weft_workload_i_seq_t *s, guint32 pred)
{
    g_array_append_val(s->deps, pred);
}

void
weft_workload_i_seq_end(weft_workload_i_seq_t *s)
{
    guint32 off = s->deps->len;
    g_array_append_val(s->dep_off, off);
}

void
weft_workload_i_seq_to_trace(weft_workload_i_seq_t *s, weft_rank_trace_t *t)
{
    g_return_if_fail(s != NULL && t != NULL);
    guint n = s->type->len;
    g_assert(s->dep_off->len == n + 1); /* every node's predecessor list closed */
    t->n_nodes = n;
    t->id = g_new(guint64, MAX(n, 1));
    for (guint i = 0; i < n; i++) {
        t->id[i] = i;
    }
    t->name = (const char **)g_array_steal(s->name, NULL);
    t->type = (guint8 *)g_array_steal(s->type, NULL);
    t->is_cpu_op = g_new0(guint8, MAX(n, 1));
    t->duration_ps = (weft_time_t *)g_array_steal(s->dur, NULL);
    t->coll_op = (guint8 *)g_array_steal(s->op, NULL);
    t->comm_bytes = (guint64 *)g_array_steal(s->bytes, NULL);
    t->tag = (gint64 *)g_array_steal(s->tag, NULL);
    t->dep_off = (guint32 *)g_array_steal(s->dep_off, NULL);
    t->deps = (guint32 *)g_array_steal(s->deps, NULL);
    if (t->deps == NULL) {
        t->deps = g_new0(guint32, 1);
    }
}

void
weft_workload_i_seq_lend(weft_rank_trace_t *ranks, guint n)
{
    g_return_if_fail(ranks != NULL || n == 0);
    for (guint r = 1; r < n; r++) {
        weft_rank_trace_t *t = &ranks[r];
        gint32 *comm = t->comm, *peer = t->peer;
        char *file = t->file;
        *t = ranks[0];
        t->comm = comm;
        t->peer = peer;
        t->file = file;
        t->borrows_arrays = TRUE;
    }
}
