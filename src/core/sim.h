/* SPDX-License-Identifier: MIT */
/*
 * The simulation: clock, event queue, run loop and random streams.
 *
 * One weft_sim_t owns one run; there is no global state, so many simulations
 * can run in threads of one process. Models schedule callbacks at absolute
 * times or after delays; weft_sim_run() pops events in (time, sequence) order,
 * advances the clock to each event's time and calls it, until the queue is
 * empty or weft_sim_stop() is called. Time never goes backwards: scheduling in
 * the past is a programming error.
 *
 * Random numbers: weft_sim_rng() hands out independent, reproducible streams
 * derived from (seed, stream id) (see core/rng.h), so that adding a consumer of
 * randomness in one model does not shift the numbers another model draws.
 */
#ifndef WEFT_CORE_SIM_H
#define WEFT_CORE_SIM_H

#include <glib.h>

#include "core/evq.h"
#include "core/rng.h"
#include "core/time.h"

G_BEGIN_DECLS

typedef struct weft_sim weft_sim_t;

/** weft_sim_new: a simulation at time 0 whose random streams derive from @seed. */
weft_sim_t *weft_sim_new(guint64 seed);

/** weft_sim_free: frees @sim and its pending events. NULL is a no-op. */
void weft_sim_free(weft_sim_t *sim);

/** weft_sim_now: the current simulated time in picoseconds. */
weft_time_t weft_sim_now(const weft_sim_t *sim);

/** weft_sim_seed: the seed given to weft_sim_new(). */
guint64 weft_sim_seed(const weft_sim_t *sim);

/**
 * weft_sim_at:
 * @sim: the simulation.
 * @time: absolute time in picoseconds, >= weft_sim_now().
 * @fn, @ctx, @data: the callback and its arguments.
 *
 * Schedules @fn at @time. Returns: a handle for weft_sim_cancel().
 */
weft_event_handle_t weft_sim_at(weft_sim_t *sim, weft_time_t time, weft_event_fn fn, void *ctx,
                                void *data);

/** weft_sim_after: schedules @fn @delay picoseconds (>= 0) from now. */
weft_event_handle_t weft_sim_after(weft_sim_t *sim, weft_time_t delay, weft_event_fn fn, void *ctx,
                                   void *data);

/** weft_sim_cancel: cancels a pending event; FALSE if it already ran. */
gboolean weft_sim_cancel(weft_sim_t *sim, weft_event_handle_t handle);

/**
 * weft_sim_run:
 * @sim: the simulation.
 *
 * Runs events until the queue is empty or weft_sim_stop() is called. While it
 * runs, @sim is the calling thread's weft_sim_current().
 * Returns: the number of events run by this call.
 */
guint64 weft_sim_run(weft_sim_t *sim);

/**
 * weft_sim_current:
 *
 * The simulation whose weft_sim_run() is running on the calling thread (the
 * innermost, when runs nest), or NULL. Per thread: each of a study's threads
 * sees its own. The log writer (core/log.h) stamps lines with its clock.
 * Returns: (transfer none) (nullable): the running simulation.
 */
const weft_sim_t *weft_sim_current(void);

/**
 * weft_sim_outer:
 * @sim: a simulation.
 * Returns: (transfer none) (nullable): while @sim's weft_sim_run() runs inside
 * an event of another simulation on the same thread (a collective measured
 * alone), that simulation; otherwise NULL.
 */
const weft_sim_t *weft_sim_outer(const weft_sim_t *sim);

/** weft_sim_stop: makes weft_sim_run() return after the current event. */
void weft_sim_stop(weft_sim_t *sim);

/** weft_sim_events: events run so far over the life of @sim. */
guint64 weft_sim_events(const weft_sim_t *sim);

/**
 * weft_sim_progress_fn:
 * @data: the pointer given to weft_sim_set_progress().
 * @now_ps: the simulated time of the event just run.
 * @events: events run so far over the life of the simulation.
 * @work_done, @work_total: the model's own measure of how far the run is
 *   (weft_sim_work_add(), weft_sim_set_work_total(); a replay counts trace
 *   nodes); both 0 when the model keeps none.
 *
 * A progress hook (reports only): called between events, it must not schedule,
 * cancel or stop anything, so a run is the same with or without it.
 */
typedef void (*weft_sim_progress_fn)(void *data, weft_time_t now_ps, guint64 events,
                                     guint64 work_done, guint64 work_total);

/**
 * weft_sim_set_work_total:
 * @sim: the simulation.
 * @total: units of work the run has to do (a replay: the trace nodes of every rank).
 *
 * Sets the denominator of the progress hook's fraction done and resets the
 * work done to 0. Only progress reads it: nothing in a run depends on it.
 */
void weft_sim_set_work_total(weft_sim_t *sim, guint64 total);

/**
 * weft_sim_work_add:
 * @sim: the simulation.
 * @n: units of work just done.
 * Adds @n to the work done that the progress hook sees. Time complexity: O(1).
 */
void weft_sim_work_add(weft_sim_t *sim, guint64 n);

/**
 * weft_sim_set_progress:
 * @sim: the simulation.
 * @every_events: call @fn after every this many events (> 0).
 * @fn: (nullable): the hook; NULL removes it.
 * @data: passed to @fn.
 *
 * Installs a progress hook for weft_sim_run() (the report module reads the
 * wall clock in it to print progress on a terminal). Costs one predictable
 * branch per event when unset.
 */
void weft_sim_set_progress(weft_sim_t *sim, guint64 every_events, weft_sim_progress_fn fn,
                           void *data);

/** weft_sim_pending: events still queued. */
gsize weft_sim_pending(const weft_sim_t *sim);

/**
 * weft_sim_rng:
 * @sim: the simulation.
 * @stream: a stream id; each consumer of randomness uses its own constant.
 *
 * Returns: (transfer none): the random stream @stream of this simulation,
 * created on first use; the same (seed, stream) always gives the same numbers.
 */
weft_rng_t *weft_sim_rng(weft_sim_t *sim, guint32 stream);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_sim_t, weft_sim_free)

G_END_DECLS

#endif /* WEFT_CORE_SIM_H */
