/* SPDX-License-Identifier: MIT */
/*
 * Event-queue internals that tests reach: not part of the interface.
 */
#ifndef WEFT_CORE_EVQ_PRIVATE_H
#define WEFT_CORE_EVQ_PRIVATE_H

#include "core/evq.h"

G_BEGIN_DECLS

/**
 * weft_evq_i_set_seq_limit:
 * @q: the queue.
 * @limit: the local sequence numbers available, 2 .. 2^32 (the default).
 *
 * Lowers the point at which @q renumbers its keys (see evq.h, Limits), so a
 * test can renumber after a few pushes instead of 4 G. Pending events must stay
 * below @limit - 1; more aborts.
 */
void weft_evq_i_set_seq_limit(weft_evq_t *q, guint64 limit);

/**
 * weft_evq_i_check:
 * @q: the queue.
 *
 * The slow full check of @q's invariants, for tests: the heap order, or each
 * radix key in its bucket and every bucket in sequence order; the pending and
 * cancelled counts; the free list and the keys account for every slot.
 *
 * Returns: TRUE if they hold, else FALSE after a g_warning() naming the first
 * broken one. Time complexity: O(n + slots).
 */
gboolean weft_evq_i_check(const weft_evq_t *q);

G_END_DECLS

#endif /* WEFT_CORE_EVQ_PRIVATE_H */
