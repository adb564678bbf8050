/* SPDX-License-Identifier: MIT */
/*
 * The event queue.
 *
 * A priority queue of events ordered by (time, insertion sequence): two events
 * at the same simulated time pop in the order they were pushed, so a run never
 * depends on how the heap happens to break ties (the ns-3 rule). Each event
 * carries a callback and two opaque pointers; the queue owns no user data.
 *
 * Storage: events live in a pool of slots recycled through a free list, and the
 * heap holds small (time, sequence, slot) records; after warm-up, push and pop
 * allocate nothing. Cancel is lazy: it marks the slot and the entry is dropped
 * when it reaches the top. A handle carries the slot's generation, so cancelling
 * an event that already ran (or was cancelled) is a harmless no-op.
 *
 * Complexity: push and pop O(log n); cancel O(1); memory O(peak pending events).
 */
#ifndef WEFT_CORE_EVQ_H
#define WEFT_CORE_EVQ_H

#include <glib.h>

#include "core/time.h"

G_BEGIN_DECLS

/**
 * weft_event_fn:
 * @ctx: the first pointer given to weft_evq_push() (usually the model object).
 * @data: the second pointer given to weft_evq_push() (usually the item).
 *
 * What an event does when it fires. The current time is the event's time.
 */
typedef void (*weft_event_fn)(void *ctx, void *data);

/** A handle to a pushed event, for weft_evq_cancel(). 0 is never a valid handle. */
typedef guint64 weft_event_handle_t;

/** One popped event. */
typedef struct {
    weft_time_t time;
    guint64 seq;
    weft_event_fn fn;
    void *ctx;
    void *data;
} weft_event_t;

typedef struct weft_evq weft_evq_t;

/** weft_evq_new: an empty queue. Free with weft_evq_free(). */
weft_evq_t *weft_evq_new(void);

/** weft_evq_free: frees @q and its pending events (their data is not touched). NULL is a no-op. */
void weft_evq_free(weft_evq_t *q);

/**
 * weft_evq_push:
 * @q: the queue.
 * @time: when the event fires, in picoseconds.
 * @fn: the callback (not NULL).
 * @ctx, @data: passed to @fn unchanged.
 *
 * Returns: a handle for weft_evq_cancel(). Time complexity: O(log n).
 */
weft_event_handle_t weft_evq_push(weft_evq_t *q, weft_time_t time, weft_event_fn fn, void *ctx,
                                  void *data);

/**
 * weft_evq_cancel:
 * @q: the queue.
 * @handle: from weft_evq_push().
 *
 * Cancels a pending event. Returns: TRUE if it was pending, FALSE if it already
 * fired or was cancelled. Time complexity: O(1).
 */
gboolean weft_evq_cancel(weft_evq_t *q, weft_event_handle_t handle);

/**
 * weft_evq_pop:
 * @q: the queue.
 * @out: (out): the earliest pending event by (time, sequence).
 *
 * Returns: FALSE when no event is pending. Time complexity: O(log n) amortized.
 */
gboolean weft_evq_pop(weft_evq_t *q, weft_event_t *out);

/** weft_evq_peek_time: the time of the earliest pending event; FALSE if none. */
gboolean weft_evq_peek_time(weft_evq_t *q, weft_time_t *time);

/** weft_evq_size: the number of pending (not cancelled) events. */
gsize weft_evq_size(const weft_evq_t *q);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_evq_t, weft_evq_free)

G_END_DECLS

#endif /* WEFT_CORE_EVQ_H */
