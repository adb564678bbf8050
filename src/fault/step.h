/* SPDX-License-Identifier: MIT */
/*
 * Faults inside a step: a schedule of link, NIC, switch, GPU and node events
 * at simulated instants, parsed from a fault file (or a scenario's
 * faults.events) against a cluster, and armed on a simulation as events.
 *
 * A fault file has one fault per line; '#' starts a comment; blank lines are
 * skipped; faults.events separates the lines with ';'. A line is
 *
 *   TIME KIND TARGET [VALUE] [for DURATION]
 *
 * TIME and DURATION are times with a unit (core/units.h: 10us, 1.5ms), TIME
 * counted from the start of the step (>= 0) and DURATION > 0. The kinds:
 *
 *   link_down A B          the link(s) between vertices A and B go down (both
 *                          directions, parallel links included)
 *   link_up A B            they come back
 *   link_degrade A B F     they run at F x their bandwidth, 0 < F <= 1
 *                          (F = 1 restores them)
 *   nic_down NIC, nic_up NIC
 *                          every link of the NIC goes down / comes back
 *   switch_down SW, switch_up SW
 *                          every link of the switch (or NVSwitch)
 *   straggler GPU F        the GPU computes at F x its speed, 0 < F <= 1
 *   gpu_fail GPU           the GPU fails: the job stops at that instant
 *   node_fail NODE         the node (a host index, or the name of any of its
 *                          vertices) fails: the job stops
 *
 * Vertices are named as the cluster names them (`weft topo export`); a GPU
 * may also be given by its number, `gpu:N`. `for DURATION` undoes a
 * down, degrade or straggler fault after DURATION (link_down A B for 1ms is a
 * link_down at TIME and a link_up at TIME + 1ms); without it the fault lasts
 * to the end of the step (or until a matching _up).
 *
 * State: a link is down while it is down itself or either of its ends (a NIC
 * or switch) is down; otherwise it runs at its degrade fraction (1 by
 * default). Stragglers on one GPU multiply. Faults at one instant apply in
 * the file's order, before anything else that instant: their events are queued
 * when the run is armed, ahead of every other event of that instant (events
 * run in (time, insertion) order), and a replay releases its first nodes from
 * an event queued after them, so a fault at 0 is in force before the first
 * transfer starts (replay/replay.h).
 *
 * What the network does with a link state change is weft_net_set_link_fraction()'s
 * business (net/net.h): under flow, transfers on a link that goes down move
 * to surviving paths, and a transfer with none left is stranded.
 */
#ifndef WEFT_FAULT_STEP_H
#define WEFT_FAULT_STEP_H

#include <glib.h>

#include "core/sim.h"
#include "core/time.h"
#include "fault/rates.h"
#include "net/net.h"
#include "topo/topo.h"

G_BEGIN_DECLS

/** What a fault line does. */
typedef enum {
    WEFT_STEP_LINK_DOWN,
    WEFT_STEP_LINK_UP,
    WEFT_STEP_LINK_DEGRADE,
    WEFT_STEP_NIC_DOWN,
    WEFT_STEP_NIC_UP,
    WEFT_STEP_SWITCH_DOWN,
    WEFT_STEP_SWITCH_UP,
    WEFT_STEP_STRAGGLER,
    WEFT_STEP_GPU_FAIL,
    WEFT_STEP_NODE_FAIL,
    WEFT_STEP_N_KINDS
} weft_step_fault_kind_t;

/** One parsed fault line. */
typedef struct {
    weft_step_fault_kind_t kind;
    weft_time_t at_ps;  /* from the start of the step */
    weft_time_t for_ps; /* > 0: undone after this long; 0: lasts */
    gint u, v;          /* link: its ends; NIC, switch, GPU: u (a vertex id); node: u = host */
    double fraction;    /* degrade: bandwidth share; straggler: speed share; else 1 */
    char *text;         /* "FILE:LINE: the line", for messages and reports */
} weft_step_fault_t;

typedef struct weft_fault_plan weft_fault_plan_t;

/** weft_fault_plan_new: an empty schedule for @topo (not owned, only read; must outlive the
 * plan). */
weft_fault_plan_t *weft_fault_plan_new(const weft_topo_t *topo);

/** weft_fault_plan_free: NULL is a no-op. */
void weft_fault_plan_free(weft_fault_plan_t *plan);

/**
 * weft_fault_plan_add_text:
 * @plan: the schedule.
 * @text: fault lines (see above), separated by newlines or, when @semicolons,
 *   also by ';'.
 * @origin: the file name or "faults.events", for messages.
 * @semicolons: whether ';' separates lines.
 * @error: WEFT_FAULT_ERROR_VALUE naming @origin, the line number and the
 *   offending word: a time that does not parse or is negative (in the past),
 *   a duration <= 0, a fraction outside (0, 1], a missing or extra word;
 *   WEFT_FAULT_ERROR_KEY: an unknown kind (listing the kinds), an unknown
 *   vertex, two vertices with no link between them ("unknown link"), a vertex
 *   of the wrong kind (nic_down of a switch), a node number beyond the
 *   cluster.
 * Returns: TRUE if every line parsed; on error nothing is added.
 */
gboolean weft_fault_plan_add_text(weft_fault_plan_t *plan, const char *text, const char *origin,
                                  gboolean semicolons, GError **error);

/**
 * weft_fault_check_text:
 * Checks @text as weft_fault_plan_add_text() would, without a cluster: times,
 * kinds, word counts, fractions and durations, not the targets (a scenario
 * checks faults.events when it is set, before the cluster is built).
 * @error: WEFT_FAULT_ERROR_VALUE or _KEY as weft_fault_plan_add_text().
 */
gboolean weft_fault_check_text(const char *text, const char *origin, gboolean semicolons,
                               GError **error);

/**
 * weft_fault_plan_add_file:
 * As weft_fault_plan_add_text() on the contents of @path (newlines only).
 * @error: also WEFT_FAULT_ERROR_VALUE naming @path when it cannot be read.
 */
gboolean weft_fault_plan_add_file(weft_fault_plan_t *plan, const char *path, GError **error);

/** weft_fault_plan_len: how many faults (a `for` counts once). */
guint weft_fault_plan_len(const weft_fault_plan_t *plan);

/** weft_fault_plan_get: (transfer none): fault @i, in the order added. */
const weft_step_fault_t *weft_fault_plan_get(const weft_fault_plan_t *plan, guint i);

/* ---- a plan armed on one simulation ------------------------------------------------- */

typedef struct weft_fault_run weft_fault_run_t;

/**
 * weft_fault_run_arm:
 * @plan: the schedule (not owned; must outlive the run).
 * @sim: an idle simulation at time 0 (not owned).
 * @net: the network over @plan's cluster (not owned); the faults change the link state of
 *   its fabric state (weft_net_fabric()), which must outlive the run.
 *
 * Schedules every fault (and its undoing) as events of @sim: link, NIC and
 * switch faults call weft_net_set_link_fraction() with the link's new state;
 * a GPU or node failure records the failure (weft_fault_run_failure()) and
 * stops the simulation (weft_sim_stop()); stragglers only shape
 * weft_fault_run_compute_end(), through each GPU's speed profile built here.
 * Returns: (transfer full): the armed run; free it before @sim and @net.
 * Time complexity: O(F log F) for F faults (one event each, and the profiles).
 */
weft_fault_run_t *weft_fault_run_arm(const weft_fault_plan_t *plan, weft_sim_t *sim,
                                     weft_net_t *net);

/**
 * weft_fault_run_free: cancels the pending fault events and gives the network's
 * fabric state back every link at full bandwidth (the state before the run; routes
 * computed afterwards use every link again). The cluster itself is never changed.
 * NULL is a no-op.
 */
void weft_fault_run_free(weft_fault_run_t *run);

/**
 * weft_fault_run_disarm: cancels the faults not yet applied (the step is over);
 * each one cancelled (not its undoing) is listed by weft_fault_run_applied() as
 * "not applied (the step ended first): TEXT".
 */
void weft_fault_run_disarm(weft_fault_run_t *run);

/**
 * weft_fault_run_compute_end:
 * @run: (nullable): the armed run; NULL: no faults.
 * @gpu_vertex: the vertex of the GPU that computes.
 * @start: when the work starts, ps.
 * @work_ps: its duration at full speed, ps (>= 0).
 * Returns: when it ends under the GPU's straggler windows: the first t with
 * the integral of the speed from @start to t equal to @work_ps (the speed is 1
 * outside windows, the product of the windows' fractions inside), rounded to
 * the picosecond; @start + @work_ps without windows. WEFT_TIME_MAX on overflow.
 * Several windows in force multiply: one or two give their fraction or their exact
 * product; three or more are multiplied pairwise in file order (a product tree), which
 * may differ in the last bit from multiplying left to right.
 * Time complexity: O(log E + P) for E window edges on the GPU and P of them crossed.
 */
weft_time_t weft_fault_run_compute_end(const weft_fault_run_t *run, gint gpu_vertex,
                                       weft_time_t start, weft_time_t work_ps);

/**
 * weft_fault_run_work_done:
 * @run: (nullable): the armed run; NULL: no faults.
 * @gpu_vertex: the GPU's vertex; @start, @end: an interval, ps.
 * Returns: the work (ps at full speed) the GPU does from @start to @end: the
 * integral of its speed under its straggler windows (weft_fault_run_compute_end()'s
 * inverse); @end - @start without windows, 0 when @end <= @start.
 * Time complexity: O(log E + P) for E window edges on the GPU and P of them inside.
 */
double weft_fault_run_work_done(const weft_fault_run_t *run, gint gpu_vertex, weft_time_t start,
                                weft_time_t end);

/**
 * weft_fault_run_failure:
 * Returns: (transfer none) (nullable): the GPU or node failure that stopped
 * the simulation (WEFT_FAULT_ERROR_FAILED: what failed, where and when), or NULL.
 */
const GError *weft_fault_run_failure(const weft_fault_run_t *run);

/**
 * weft_fault_run_applied:
 * Returns: (transfer none): the faults applied so far, as "TIME us  SOURCE:LINE:
 * the line" strings in the order applied (undoings as "TIME us  end of ..."),
 * then those weft_fault_run_disarm() cancelled.
 */
const GPtrArray *weft_fault_run_applied(const weft_fault_run_t *run);

/**
 * weft_fault_degrade_line:
 * @topo: the cluster the run's failures were drawn over
 *   (weft_fault_counts_from_topo() numbered its components).
 * @ev: a degrading fault of a whole run (fault/rates.h).
 * @error: WEFT_FAULT_ERROR_KEY for a class with no in-step model (only cable,
 *   NIC and switch faults degrade) or a component number beyond the cluster.
 *
 * The fault line that puts the step under @ev from its start: a NIC or switch
 * down (nic_down, switch_down); a cable down (link_down of its link, or, for a
 * link of L > 1 lanes, link_degrade to (L - 1) / L: one cable of the bundle).
 * Returns: (transfer full): the line, for weft_fault_plan_add_text().
 */
char *weft_fault_degrade_line(const weft_topo_t *topo, const weft_fault_event_t *ev,
                              GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_fault_plan_t, weft_fault_plan_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_fault_run_t, weft_fault_run_free)

G_END_DECLS

#endif /* WEFT_FAULT_STEP_H */
