/* SPDX-License-Identifier: MIT */
/*
 * The simulation clock and run loop. See sim.h.
 */
#define G_LOG_DOMAIN "weft-core"

#include "core/sim.h"

struct weft_sim {
    weft_evq_t *q;
    weft_time_t now;
    guint64 seed;
    guint64 events;
    gboolean stop;
    GHashTable *rngs;                 /* stream id -> weft_rng_t* */
    weft_sim_progress_fn progress_fn; /* (nullable) weft_sim_set_progress() */
    void *progress_data;
    guint64 progress_every; /* call progress_fn after this many events */
    guint64 progress_left;  /* events until the next call */
    guint64 work_done;      /* weft_sim_work_add() */
    guint64 work_total;     /* weft_sim_set_work_total() */

    const weft_sim_t *outer; /* while running: the thread's simulation when the run began */
};

/* The simulation weft_sim_run() is running on this thread (weft_sim_current()). */
static _Thread_local const weft_sim_t *current_sim;

const weft_sim_t *
weft_sim_current(void)
{
    return current_sim;
}

const weft_sim_t *
weft_sim_outer(const weft_sim_t *sim)
{
    g_return_val_if_fail(sim != NULL, NULL);
    return sim->outer;
}

weft_sim_t *
weft_sim_new(guint64 seed)
{
    weft_sim_t *sim = g_new0(weft_sim_t, 1);
    sim->q = weft_evq_new();
    sim->seed = seed;
    sim->rngs =
        g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)weft_rng_free);
    return sim;
}

void
weft_sim_free(weft_sim_t *sim)
{
    if (sim == NULL) {
        return;
    }
    weft_evq_free(sim->q);
    g_hash_table_unref(sim->rngs);
    g_free(sim);
}

weft_time_t
weft_sim_now(const weft_sim_t *sim)
{
    return sim->now;
}

guint64
weft_sim_seed(const weft_sim_t *sim)
{
    return sim->seed;
}

weft_event_handle_t
weft_sim_at(weft_sim_t *sim, weft_time_t time, weft_event_fn fn, void *ctx, void *data)
{
    g_return_val_if_fail(sim != NULL, 0);
    /* Scheduling in the past would make time run backwards: a model bug. */
    g_assert(time >= sim->now);
    return weft_evq_push(sim->q, time, fn, ctx, data);
}

weft_event_handle_t
weft_sim_after(weft_sim_t *sim, weft_time_t delay, weft_event_fn fn, void *ctx, void *data)
{
    g_return_val_if_fail(sim != NULL, 0);
    g_assert(delay >= 0);
    weft_time_t at = delay > WEFT_TIME_MAX - sim->now ? WEFT_TIME_MAX : sim->now + delay;
    return weft_evq_push(sim->q, at, fn, ctx, data);
}

gboolean
weft_sim_cancel(weft_sim_t *sim, weft_event_handle_t handle)
{
    return weft_evq_cancel(sim->q, handle);
}

guint64
weft_sim_run(weft_sim_t *sim)
{
    g_return_val_if_fail(sim != NULL, 0);
    guint64 n = 0;
    weft_event_t ev;
    sim->stop = FALSE;
    sim->outer = current_sim; /* a run inside an event of another */
    current_sim = sim;
    while (!sim->stop && weft_evq_pop(sim->q, &ev)) {
        g_assert(ev.time >= sim->now);
        sim->now = ev.time;
        ev.fn(ev.ctx, ev.data);
        n++;
        if (G_UNLIKELY(sim->progress_fn != NULL) && --sim->progress_left == 0) {
            sim->progress_left = sim->progress_every;
            sim->progress_fn(sim->progress_data, sim->now, sim->events + n, sim->work_done,
                             sim->work_total);
        }
    }
    current_sim = sim->outer;
    sim->outer = NULL;
    sim->events += n;
    return n;
}

void
weft_sim_stop(weft_sim_t *sim)
{
    sim->stop = TRUE;
}

void
weft_sim_set_work_total(weft_sim_t *sim, guint64 total)
{
    g_return_if_fail(sim != NULL);
    sim->work_total = total;
    sim->work_done = 0;
}

void
weft_sim_work_add(weft_sim_t *sim, guint64 n)
{
    sim->work_done += n;
}

void
weft_sim_set_progress(weft_sim_t *sim, guint64 every_events, weft_sim_progress_fn fn, void *data)
{
    g_return_if_fail(sim != NULL);
    g_return_if_fail(fn == NULL || every_events > 0);
    sim->progress_fn = fn;
    sim->progress_data = data;
    sim->progress_every = every_events;
    sim->progress_left = every_events;
}

guint64
weft_sim_events(const weft_sim_t *sim)
{
    return sim->events;
}

gsize
weft_sim_pending(const weft_sim_t *sim)
{
    return weft_evq_size(sim->q);
}

weft_rng_t *
weft_sim_rng(weft_sim_t *sim, guint32 stream)
{
    weft_rng_t *rng = g_hash_table_lookup(sim->rngs, GUINT_TO_POINTER(stream));
    if (rng == NULL) {
        rng = weft_rng_new(sim->seed, stream);
        g_hash_table_insert(sim->rngs, GUINT_TO_POINTER(stream), rng);
    }
    return rng;
}
