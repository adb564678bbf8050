/* SPDX-License-Identifier: MIT */
/*
 * The event queue.
 *
 * A priority queue of events ordered by (time, insertion sequence): two events
 * at the same simulated time pop in the order they were pushed, so a run never
 * depends on how a queue happens to break ties (the ns-3 rule). Each event
 * carries a callback and two opaque pointers; the queue owns no user data.
 * Times must not precede the last popped event's time: a simulator's clock
 * never runs backwards (weft_sim_at() asserts it).
 *
 * Storage: events live in a pool of 32-byte slots recycled through a free list;
 * the ordering structure holds 16-byte keys, (time, local sequence << 32 | slot).
 * After warm-up, push and pop allocate nothing. Cancel is lazy: it marks the
 * slot, and the key is dropped when it comes first, or in bulk (O(n)) once
 * cancelled keys outnumber pending events, so memory stays within twice the
 * pending events even when a model reschedules constantly. A handle carries the
 * slot's generation, so cancelling an event that already ran (or was cancelled)
 * is a harmless no-op.
 *
 * Two interchangeable orderings (weft_evq_kind_t), as ns-3 has several
 * schedulers; every test of this module runs on both, and every weft command
 * prints the same bytes on both (the order is the keys' total order, whatever
 * the structure):
 *  - WEFT_EVQ_HEAP: a 4-ary min-heap in one array whose sibling
 *    groups fill 64-byte cache lines (LaMarca and Ladner, "The influence of
 *    caches on the performance of heaps", JEA 1, 1996), with Floyd's bottom-up
 *    deletion. Push O(log n), pop O(log n): about 2 x log4(n) comparisons.
 *  - WEFT_EVQ_RADIX (the default): a radix heap on the time (Ahuja, Mehlhorn, Orlin and
 *    Tarjan, J. ACM 37(2), 1990): 65 buckets by the highest bit in which a time
 *    differs from the last popped one; when the current instant is used up,
 *    pop empties the lowest non-empty bucket into the buckets below it. Every
 *    bucket keeps its keys in push order (a push appends the newest; a move
 *    fills buckets that are empty), so an instant's events pop in sequence
 *    order without a sort. Push O(1); pop O(1) amortized, as a key moves down
 *    at most 64 times. It relies on the monotone clock and aborts, naming both
 *    times, on a push before the last pop.
 * bench/bench_evq measures both under the hold model (bench/README.md): the
 * radix queue was the faster at every size from 16 to 1 M pending events, and
 * on the replays measured, so weft_evq_new() and weft_sim use it.
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
 * Complexity: cancel O(1) amortized; memory O(peak pending events): the heap
 * holds 48 bytes per event (key and slot), the radix queue as much plus what
 * each bucket keeps of its own peak (at worst 65 times the peak; a few per cent
 * more than the heap in the replays measured);
 * weft_evq_peek_time() O(1) on the heap, and on the radix queue O(1) within an
 * instant but a scan of one bucket otherwise (it must not move buckets).
 * The environment variable WEFT_EVQ (heap, radix; unset: radix) picks the kind
 * of weft_evq_new(), so any weft command can be run on either
 * (tests/evq_cli.sh compares them).
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

/** The ordering structure of a queue; see the essay above. */
typedef enum {
    WEFT_EVQ_HEAP,  /* 4-ary heap: any times, O(log n) */
    WEFT_EVQ_RADIX, /* radix heap: monotone times, O(1) amortized */
} weft_evq_kind_t;

#define WEFT_EVQ_N_KINDS 2

/** weft_evq_kind_name: "heap" or "radix". */
const char *weft_evq_kind_name(weft_evq_kind_t kind);

/**
 * weft_evq_kind_from_name: parses weft_evq_kind_name() spellings ("heap", "radix").
 * @error: WEFT_KEYFILE_ERROR_VALUE listing them if unknown.
 */
gboolean weft_evq_kind_from_name(const char *name, weft_evq_kind_t *kind, GError **error);

/**
 * weft_evq_default_kind:
 *
 * Returns: the kind named by the environment variable WEFT_EVQ, or
 * WEFT_EVQ_RADIX when it is unset or empty. The weft program refuses an
 * unknown name before any run (exit 2, naming the known ones); here it gives a
 * warning (once) and the default, never an abort.
 */
weft_evq_kind_t weft_evq_default_kind(void);

/** weft_evq_new_kind: an empty queue of @kind. Free with weft_evq_free(). */
weft_evq_t *weft_evq_new_kind(weft_evq_kind_t kind);

/** weft_evq_new: an empty queue of weft_evq_default_kind(). Free with weft_evq_free(). */
weft_evq_t *weft_evq_new(void);

/** weft_evq_get_kind: the kind @q was made with. */
weft_evq_kind_t weft_evq_get_kind(const weft_evq_t *q);

/** weft_evq_free: frees @q and its pending events (their data is not touched). NULL is a no-op. */
void weft_evq_free(weft_evq_t *q);

/**
 * weft_evq_push:
 * @q: the queue.
 * @time: when the event fires, in picoseconds; not before the last popped
 *   event's time (the radix queue aborts if it is).
 * @fn: the callback (not NULL).
 * @ctx, @data: passed to @fn unchanged.
 *
 * Returns: a handle for weft_evq_cancel(). Time complexity: O(log n) on the
 * heap, O(1) on the radix queue; O(n log n) once every ~4.29 G pushes.
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
 * Returns: FALSE when no event is pending. Time complexity: O(log n) on the
 * heap, O(1) amortized on the radix queue; plus the cancelled keys it drops.
 */
gboolean weft_evq_pop(weft_evq_t *q, weft_event_t *out);

/**
 * weft_evq_peek_time: the time of the earliest pending event; FALSE if none.
 * Time complexity: O(1) on the heap; on the radix queue O(1) within an instant,
 * else a scan of the lowest buckets up to the first with a pending event.
 */
gboolean weft_evq_peek_time(weft_evq_t *q, weft_time_t *time);

/** weft_evq_size: the number of pending (not cancelled) events. */
gsize weft_evq_size(const weft_evq_t *q);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_evq_t, weft_evq_free)

G_END_DECLS

#endif /* WEFT_CORE_EVQ_H */
