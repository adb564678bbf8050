/* SPDX-License-Identifier: MIT */
/*
 * The event queue.
 *
 * A priority queue of events ordered by (time, insertion sequence): two events
 * at the same simulated time pop in the order they were pushed, so a run never
 * depends on how a queue happens to break ties (the ns-3 rule). Each event
 * carries a callback and two opaque pointers; the queue owns no user data.
 *
 * Storage: events live in a pool of 32-byte slots recycled through a free list;
 * the heap holds 16-byte keys, (time, local sequence << 32 | slot).
 * After warm-up, push and pop allocate nothing. Cancel is lazy: it marks the
 * slot, and the key is dropped when it comes first, or in bulk (O(n)) once
 * cancelled keys outnumber pending events, so memory stays within twice the
 * pending events even when a model reschedules constantly. A handle carries the
 * slot's generation, so cancelling an event that already ran (or was cancelled)
 * is a harmless no-op.
 *
 * Order: a 4-ary min-heap in one array whose sibling groups fill 64-byte
 * cache lines (LaMarca and Ladner, "The influence of caches on the performance
 * of heaps", JEA 1, 1996), with Floyd's bottom-up deletion; about 2 x log4(n)
 * comparisons per pop, each one 128-bit comparison. bench/bench_evq measures it
 * under the hold model (bench/README.md).
 *
 * Limits: fewer than 2^32 - 1 queued events at once, pending or cancelled and
 * not yet dropped (the slot index is 32 bits; more aborts with a message,
 * never wraps). The local sequence has 32 bits: when it runs out, the queued
 * keys are renumbered 0 .. n - 1 in key order, O(n log n) once every ~4.29 G
 * pushes, which keeps the order exact; weft_event_t.seq still reports the
 * global 64-bit insertion number.
 * Generations are 32 bits per slot: a handle kept across 2^32 reuses of its
 * slot could cancel the wrong event.
 *
 * Complexity: push and pop O(log n); cancel O(1) amortized; peek O(1); memory
 * O(peak pending events), 48 bytes per event (key and slot).
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
    guint64 seq; /* the insertion number, from 1: unique, increasing in push order */
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
 * Returns: a handle for weft_evq_cancel(). Time complexity: O(log n);
 * O(n log n) once every ~4.29 G pushes.
 */
weft_event_handle_t weft_evq_push(weft_evq_t *q, weft_time_t time, weft_event_fn fn, void *ctx,
                                  void *data);

/**
 * weft_evq_cancel:
 * @q: the queue.
 * @handle: from weft_evq_push().
 *
 * Cancels a pending event. Returns: TRUE if it was pending, FALSE if it already
 * fired or was cancelled. Time complexity: O(1) amortized (a bulk drop of
 * cancelled keys, O(n), follows at least n / 2 cancels).
 */
gboolean weft_evq_cancel(weft_evq_t *q, weft_event_handle_t handle);

/**
 * weft_evq_pop:
 * @q: the queue.
 * @out: (out): the earliest pending event by (time, sequence).
 *
 * Returns: FALSE when no event is pending. Time complexity: O(log n), plus
 * O(log n) per cancelled key it drops.
 */
gboolean weft_evq_pop(weft_evq_t *q, weft_event_t *out);

/** weft_evq_peek_time: the time of the earliest pending event; FALSE if none. */
gboolean weft_evq_peek_time(weft_evq_t *q, weft_time_t *time);

/** weft_evq_size: the number of pending (not cancelled) events. */
gsize weft_evq_size(const weft_evq_t *q);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_evq_t, weft_evq_free)

G_END_DECLS

#endif /* WEFT_CORE_EVQ_H */
