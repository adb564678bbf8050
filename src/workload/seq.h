/* SPDX-License-Identifier: MIT */
/*
 * Private to the workload module: the builder of one pipeline stage's node
 * sequence that the transformer generator (gen.c) and the text-workload reader
 * (text.c) both fill. It keeps the columns every generated node has (type,
 * duration, collective, bytes, group kind, tag, name) and the predecessor lists
 * in growable arrays, then moves them into a weft_rank_trace_t that the other
 * ranks of the stage borrow (weft_rank_trace_t.borrows_arrays). Columns only
 * one reader needs (peer kinds, FLOPs, directions) stay in that reader, beside
 * an embedded weft_workload_i_seq_t. Not for other modules.
 */
#ifndef WEFT_WORKLOAD_SEQ_H
#define WEFT_WORKLOAD_SEQ_H

#include <glib.h>

#include "workload/workload.h"

G_BEGIN_DECLS

/* One stage's nodes while they are built; every column has one entry per node. */
typedef struct {
    GArray *type;    /* guint8: weft_node_type_t */
    GArray *dur;     /* weft_time_t: duration_ps */
    GArray *op;      /* guint8: weft_coll_op_t (COLL nodes) */
    GArray *bytes;   /* guint64: comm_bytes */
    GArray *kind;    /* guint8: the caller's rank-group kind of a collective */
    GArray *tag;     /* gint64: SEND/RECV tag */
    GArray *name;    /* const char *: node names, owned by the caller (e.g. wl->strings) */
    GArray *dep_off; /* guint32: n_nodes + 1 entries; predecessors of i: deps[off[i]..off[i+1]) */
    GArray *deps;    /* guint32: predecessor node indexes */
} weft_workload_i_seq_t;

/** weft_workload_i_seq_init: makes @s an empty sequence (dep_off holds its leading 0). */
void weft_workload_i_seq_init(weft_workload_i_seq_t *s);

/** weft_workload_i_seq_clear: frees the arrays of @s still held; safe to call twice. */
void weft_workload_i_seq_clear(weft_workload_i_seq_t *s);

/**
 * weft_workload_i_seq_push:
 * @s: the sequence.
 * @type: weft_node_type_t of the node.
 * @name: (transfer none): its name; must outlive the trace (intern it in wl->strings).
 * @dur_ps: duration in picoseconds (COMP nodes).
 * @op: weft_coll_op_t (COLL nodes).
 * @bytes: comm_bytes (COLL, SEND, RECV nodes).
 * @kind: the caller's rank-group kind (turned into a communicator per rank later).
 * @tag: SEND/RECV tag.
 *
 * Appends a node's common columns. Add its predecessors with
 * weft_workload_i_seq_dep(), then close its list with weft_workload_i_seq_end()
 * before pushing the next node. Returns: the new node's index.
 */
gint64 weft_workload_i_seq_push(weft_workload_i_seq_t *s, guint8 type, const char *name,
                                weft_time_t dur_ps, guint8 op, guint64 bytes, guint8 kind,
                                gint64 tag);

/** weft_workload_i_seq_dep: makes node @pred a predecessor of the node last pushed. */
void weft_workload_i_seq_dep(weft_workload_i_seq_t *s, guint32 pred);

/** weft_workload_i_seq_end: closes the predecessor list of the node last pushed. */
void weft_workload_i_seq_end(weft_workload_i_seq_t *s);

/**
 * weft_workload_i_seq_to_trace:
 * Moves the arrays of @s into @t (which then owns them), numbers the nodes
 * 0..n-1 and marks none a CPU op. Leaves @t's num_ops, tensor_bytes, comm,
 * peer and file to the caller. @s keeps only its kind column (and must still
 * be cleared).
 */
void weft_workload_i_seq_to_trace(weft_workload_i_seq_t *s, weft_rank_trace_t *t);

/**
 * weft_workload_i_seq_lend:
 * Gives ranks[1 .. @n - 1] the node arrays of ranks[0] (borrows_arrays), keeping
 * each one's own comm, peer and file.
 */
void weft_workload_i_seq_lend(weft_rank_trace_t *ranks, guint n);

G_END_DECLS

#endif /* WEFT_WORKLOAD_SEQ_H */
