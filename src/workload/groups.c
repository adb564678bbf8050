/* SPDX-License-Identifier: MIT */
/*
 * Process-group sizes the trace does not carry. A converted PyTorch trace of one
 * rank (chakra.0.et) names no process group and has no METADATA node, so its
 * collectives read as one-member collectives that move no data. This file lets the
 * user state the sizes (--pg-size NAME=N), copy one rank's trace to N ranks
 * (--replicate N), and warns when every communicator has one member. The layout of
 * a stated size is consecutive blocks, as tensor-parallel groups are laid out
 * (Megatron-LM: tensor parallel fastest); doc/formats.md states the rules.
 */
#define G_LOG_DOMAIN "weft-workload"

#include "workload/workload.h"

#include <stdlib.h>
#include <string.h>

#include "workload/chakra.h"

/* Above this many copies a typo is likelier than a cluster (2^20 GPUs). */
#define MAX_REPLICATE (1u << 20)

static void
pg_size_clear(gpointer p)
{
    g_free(((weft_pg_size_t *)p)->name);
}

gboolean
weft_workload_parse_pg_sizes(const char *text, GArray **sizes, GError **error)
{
    g_return_val_if_fail(text != NULL, FALSE);
    g_autoptr(GArray) out = g_array_new(FALSE, TRUE, sizeof(weft_pg_size_t));
    g_array_set_clear_func(out, pg_size_clear);
    g_auto(GStrv) items = g_strsplit(text, ",", -1);
    for (guint i = 0; items[i] != NULL; i++) {
        char *item = g_strstrip(items[i]);
        char *eq = strchr(item, '=');
        if (eq == NULL || eq == item) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        "'%s': expected NAME=N (a process group and its size), e.g. 0=8",
                        item);
            return FALSE;
        }
        *eq = '\0';
        char *name = g_strstrip(item);
        char *num = g_strstrip(eq + 1);
        char *end = NULL;
        guint64 n = num[0] >= '0' && num[0] <= '9' ? g_ascii_strtoull(num, &end, 10) : 0;
        if (end == NULL || *end != '\0' || n == 0 || n > (1u << 31)) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        "%s=%s: the size must be a whole number from 1 to 2^31", name,
                        num);
            return FALSE;
        }
        for (guint j = 0; j < out->len; j++) {
            if (strcmp(g_array_index(out, weft_pg_size_t, j).name, name) == 0) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            "%s=%s: process group '%s' is given a size twice", name,
                            num, name);
                return FALSE;
            }
        }
        weft_pg_size_t s = {g_strdup(name), (guint)n};
        g_array_append_val(out, s);
    }
    if (sizes != NULL) {
        *sizes = g_steal_pointer(&out);
    }
    return TRUE;
}

/* The communicators' names, for an error about an unknown one. */
static char *
comm_names(const weft_workload_t *wl)
{
    GString *s = g_string_new(NULL);
    for (guint c = 0; c < wl->comms->len; c++) {
        const weft_comm_t *k = g_ptr_array_index(wl->comms, c);
        g_string_append_printf(s, "%s'%s'", c > 0 ? ", " : "", k->name);
    }
    return g_string_free(s, FALSE);
}

/* Adds the one-member warning when every communicator a GPU collective uses has one member. */
static void
warn_one_member(weft_workload_t *wl)
{
    guint64 n_coll = 0;
    for (guint r = 0; r < wl->n_ranks; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 0; i < t->n_nodes; i++) {
            if (t->type[i] != WEFT_NODE_COLL || t->comm[i] < 0) {
                continue;
            }
            const weft_comm_t *c = g_ptr_array_index(wl->comms, t->comm[i]);
            if (c->n_ranks > 1) {
                return;
            }
            n_coll++;
        }
    }
    if (n_coll == 0) {
        return;
    }
    if (wl->warnings == NULL) {
        wl->warnings = g_ptr_array_new_with_free_func(g_free);
    }
    g_ptr_array_add(
        wl->warnings,
        g_strdup_printf("every communicator has one member (the workload has %u rank%s): its %" G_GUINT64_FORMAT
                        " collective%s move no data and take no time; state the process groups' "
                        "sizes with --pg-size NAME=N, or copy a one-rank trace to N ranks with "
                        "--replicate N (workload.pg_size, workload.replicate; doc/formats.md)",
                        wl->n_ranks, wl->n_ranks == 1 ? "" : "s", n_coll,
                        n_coll == 1 ? "" : "s"));
}

gboolean
weft_workload_set_groups(weft_workload_t *wl, guint replicate, const GArray *sizes,
                         GError **error)
{
    g_return_val_if_fail(wl != NULL && wl->comms != NULL && wl->comms->len > 0, FALSE);
    guint n_sizes = sizes != NULL ? sizes->len : 0;
    if (replicate == 0 && n_sizes == 0) {
        warn_one_member(wl);
        return TRUE;
    }
    /* Everything is checked before anything changes. */
    if (replicate > 0 && wl->n_ranks != 1) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_RANKS,
                    "--replicate %u: the workload has %u ranks; only a one-rank trace is "
                    "replicated (state the sizes of its groups with --pg-size NAME=N)",
                    replicate, wl->n_ranks);
        return FALSE;
    }
    if (replicate > MAX_REPLICATE) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_RANKS,
                    "--replicate %u: more than %u ranks", replicate, MAX_REPLICATE);
        return FALSE;
    }
    if (replicate > 1) {
        const weft_rank_trace_t *t = &wl->ranks[0];
        for (guint i = 0; i < t->n_nodes; i++) {
            if (t->type[i] == WEFT_NODE_SEND || t->type[i] == WEFT_NODE_RECV) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            "--replicate %u: %s: rank 0: node %" G_GUINT64_FORMAT
                            " (%s) is a %s to rank %d; a trace with point-to-point nodes "
                            "cannot be replicated (its peers would be the same for every copy)",
                            replicate, t->file, t->id[i], t->name[i],
                            weft_node_type_name((weft_node_type_t)t->type[i]), t->peer[i]);
                return FALSE;
            }
        }
    }
    guint n = replicate > 0 ? replicate : wl->n_ranks;
    guint n_comms = wl->comms->len;
    /* size[c]: the group size of communicator c; 0 keeps it as the trace defines it. */
    g_autofree guint *size = g_new0(guint, n_comms);
    if (replicate > 0) {
        for (guint c = 0; c < n_comms; c++) {
            const weft_comm_t *k = g_ptr_array_index(wl->comms, c);
            size[c] = c > 0 && k->job_size > 0 ? k->job_size : n;
        }
    }
    for (guint s = 0; s < n_sizes; s++) {
        const weft_pg_size_t *ps = &g_array_index(sizes, weft_pg_size_t, s);
        guint c = 0;
        while (c < n_comms &&
               strcmp(((const weft_comm_t *)g_ptr_array_index(wl->comms, c))->name, ps->name) != 0) {
            c++;
        }
        if (c == n_comms) {
            g_autofree char *names = comm_names(wl);
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        "--pg-size %s=%u: the workload has no process group '%s' (its "
                        "collectives use %s)",
                        ps->name, ps->size, ps->name, names);
            return FALSE;
        }
        if (n % ps->size != 0) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        "--pg-size %s=%u: %u does not divide the workload's %u rank%s%s", ps->name,
                        ps->size, ps->size, n, n == 1 ? "" : "s",
                        n == 1 ? " (a one-rank trace needs --replicate N)" : "");
            return FALSE;
        }
        size[c] = ps->size;
    }
    for (guint c = 1; c < n_comms; c++) {
        const weft_comm_t *k = g_ptr_array_index(wl->comms, c);
        if (size[c] > 0 && n % size[c] != 0) {
            /* only a size from the trace's definition can get here */
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        "--replicate %u: process group '%s' has %u members in the trace's "
                        "definition, which does not divide %u ranks; state its size with "
                        "--pg-size %s=N",
                        n, k->name, size[c], n, k->name);
            return FALSE;
        }
    }
    /* The new communicators: the world, then each old one kept or cut into groups. */
    g_autoptr(GPtrArray) comms = g_ptr_array_new_with_free_func(weft_workload_i_comm_free);
    g_autoptr(GHashTable) names = g_hash_table_new(g_str_hash, g_str_equal);
    g_autofree guint *base = g_new0(guint, n_comms); /* first new index of old communicator c */
    g_autofree guint *world = g_new(guint, n);
    for (guint r = 0; r < n; r++) {
        world[r] = r;
    }
    g_ptr_array_add(comms, weft_workload_i_comm_new("0", world, n));
    g_hash_table_add(names, "0");
    for (guint c = 0; c < n_comms; c++) {
        const weft_comm_t *k = g_ptr_array_index(wl->comms, c);
        if (c == 0 && (size[0] == 0 || size[0] == n)) {
            base[0] = 0;
            size[0] = n;
            continue;
        }
        base[c] = comms->len;
        if (size[c] == 0) {
            weft_comm_t *copy = weft_workload_i_comm_new(k->name, k->ranks, k->n_ranks);
            copy->job_size = k->job_size;
            g_ptr_array_add(comms, copy);
        } else {
            for (guint g = 0; g < n / size[c]; g++) {
                g_autofree char *name = size[c] == n ? g_strdup(k->name)
                                                     : g_strdup_printf("%s.%u", k->name, g);
                g_ptr_array_add(comms, weft_workload_i_comm_new(name, world + g * size[c], size[c]));
            }
        }
        for (guint i = base[c]; i < comms->len; i++) {
            const char *name = ((const weft_comm_t *)g_ptr_array_index(comms, i))->name;
            if (!g_hash_table_add(names, (gpointer)name)) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                            "--pg-size/--replicate: the groups of process group '%s' would be "
                            "named '%s', as another communicator is",
                            k->name, name);
                return FALSE;
            }
        }
    }
    /* Nothing can fail from here on. */
    if (replicate > 0) {
        wl->ranks = g_renew(weft_rank_trace_t, wl->ranks, n);
        const weft_rank_trace_t *t0 = &wl->ranks[0];
        for (guint r = 1; r < n; r++) {
            weft_rank_trace_t *t = &wl->ranks[r];
            *t = *t0;
            t->borrows_arrays = TRUE;
            t->file = g_strdup(t0->file);
            t->comm = g_memdup2(t0->comm, MAX(t0->n_nodes, 1) * sizeof(gint32));
            t->peer = g_memdup2(t0->peer, MAX(t0->n_nodes, 1) * sizeof(gint32));
        }
        wl->n_ranks = n;
    }
    for (guint r = 0; r < n; r++) {
        weft_rank_trace_t *t = &wl->ranks[r];
        for (guint i = 0; i < t->n_nodes; i++) {
            gint32 c = t->comm[i];
            if (c < 0) {
                continue;
            }
            t->comm[i] = (gint32)(base[c] + (size[c] > 0 ? r / size[c] : 0));
        }
    }
    g_ptr_array_unref(wl->comms);
    wl->comms = g_steal_pointer(&comms);
    warn_one_member(wl);
    return TRUE;
}
