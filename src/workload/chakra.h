/* SPDX-License-Identifier: MIT */
/*
 * Private interface between the Chakra reader (chakra.c) and the rest of the
 * workload module (workload.c): communicator construction and the topological
 * sort both the loader (to decide whether ctrl_deps are usable) and
 * weft_workload_check() (to report cycles) need. Not for other modules.
 */
#ifndef WEFT_WORKLOAD_CHAKRA_H
#define WEFT_WORKLOAD_CHAKRA_H

#include <glib.h>

#include "workload/workload.h"

G_BEGIN_DECLS

/**
 * weft_workload_i_comm_new: a communicator named @name over @n_ranks ranks
 * copied from @ranks. Returns: (transfer full): free with weft_workload_i_comm_free().
 */
weft_comm_t *weft_workload_i_comm_new(const char *name, const guint *ranks, guint n_ranks);

/** weft_workload_i_comm_free: a GDestroyNotify for weft_comm_t*; NULL is a no-op. */
void weft_workload_i_comm_free(gpointer comm);

/**
 * weft_workload_i_toposort:
 * @n: nodes.
 * @off: (array length n+1): predecessors of node i are deps[off[i] .. off[i+1]).
 * @deps: predecessor node indexes (each < @n).
 * @cycle_node: (out) (optional): when the graph has a cycle, a node that lies on one.
 *
 * Kahn's algorithm. Returns: TRUE if the graph is acyclic.
 * Time complexity: O(n + edges).
 */
gboolean weft_workload_i_toposort(guint n, const guint32 *off, const guint32 *deps,
                                  guint *cycle_node);

G_END_DECLS

#endif /* WEFT_WORKLOAD_CHAKRA_H */
