/* SPDX-License-Identifier: MIT */
/*
 * The collective planner: one call from (operation, size, communicator) to the
 * plan that runs it.
 *
 * Running a collective the way a real library does takes four steps in a fixed
 * order: lay the communicator's members out on the cluster (coll.h,
 * weft_coll_layout_new()), derive NCCL's view of that communicator (tuning.h,
 * weft_coll_system_init()), choose algorithm, protocol, channels and chunks
 * for the call and turn the choice's costs into the executor's
 * (weft_coll_tune(), weft_coll_tuning_fill_exec()), and lower the choice to a
 * plan (weft_coll_plan_build()). A planner owns everything those steps keep
 * between calls (the layouts, the systems and the plans) so that its callers
 * (the replay, `weft coll`) make one call, weft_coll_planner_plan(), and
 * cannot do the steps in another order or with another configuration.
 *
 * Two models, fixed when the planner is made (weft_coll_planner_config_t):
 *  - tuned (config->tuning set): every call goes through NCCL's tuning model
 *    over its communicator's layout, forced choices from config->tuning; the
 *    plan carries the executor's costs of the choice (plan->exec). Layout and
 *    system are built on a communicator's first call. Communicators whose
 *    layouts look alike to the plan builders (the same domains, positions and
 *    rail order: the data-parallel groups of every rail, the tensor-parallel
 *    groups of every node) and that get the same configuration and costs share
 *    one plan (the "shape": operation, S, configuration, costs, and the
 *    layout's member domains, positions, domain offsets and rail order; plans
 *    that name cluster vertices, NVLS and CollNet, are never shared);
 *  - plain (config->tuning NULL): weft_coll_plan_new() over a flat layout of
 *    the communicator's size with config->plain_algo[op] and config->chunks
 *    (one channel, the Simple protocol, no costs): no cluster knowledge, so
 *    every communicator of n members shares the plan of (op, S, n).
 *
 * Contract: the same (op, S, communicator) always returns the same plan, the
 * same pointer, and the same choice; a plan is never modified once returned.
 * Plans are owned by the planner (transfer none) and live until
 * weft_coll_planner_free() or weft_coll_planner_forget(): callers may key their
 * own caches by the pointer (the replay's per-plan duration memo does).
 *
 * Complexity: a communicator's first tuned call builds its layout and system,
 * O(n log n + vertices + routes of max_per_domain x n_domains pairs); a call
 * whose (op, S, communicator) was planned before is one hash lookup (plus
 * O(algorithms x protocols) when the choice is asked for); a new one is a
 * tuning lookup, O(algorithms x protocols), the shape's O(n) signature, and
 * the plan's build, O(transfers + dependencies), unless its shape was built.
 * Memory: one entry per distinct (op, S, communicator) and one plan per
 * distinct shape.
 *
 * Thread-safety: none. A planner belongs to one run (the replay makes one per
 * weft_replay_run()) or is lent to runs one after another (weft coll's sweep:
 * weft_replay_options_t.planner); runs on other threads make their own.
 * Building layouts and systems looks up routes on the cluster, so planners of
 * one cluster on several threads are as safe as its routing is: each run has its own
 * fabric state (topo/fabric.h).
 */
#ifndef WEFT_COLL_PLANNER_H
#define WEFT_COLL_PLANNER_H

#include <glib.h>

#include "coll/astra_system.h"
#include "coll/coll.h"
#include "coll/tuning.h"
#include "topo/fabric.h"
#include "topo/topo.h"

G_BEGIN_DECLS

typedef struct weft_coll_planner weft_coll_planner_t;

/** How a planner plans; zero-initialized = the plain model, default algorithms, 1 chunk. */
typedef struct {
    /* (nullable) NCCL's tuning model with these forced choices and limits (copied; its
     * chunks, not @chunks, apply); NULL: the plain model */
    const weft_coll_tuning_t *tuning;
    /* the plain model only: the algorithm per operation (AUTO: ring, or direct for
     * all-to-all, gather and scatter) */
    weft_coll_algo_t plain_algo[WEFT_COLL_N_OPS];
    /* the plain model only: pipeline chunks per collective; 0 means 1 */
    guint chunks;
    /* the plain model only (nullable): ASTRA-sim's system configuration (astra_system.h)
     * decides all-reduce, all-gather, reduce-scatter and all-to-all: implementation,
     * chunks, endpoint delay, reduction cost; plain_algo and chunks still decide the other
     * operations. Not owned; must outlive the planner. */
    const weft_astra_system_t *astra;
} weft_coll_planner_config_t;

/** What was chosen for a call, for reports (`weft coll`'s table). */
typedef struct {
    gboolean tuned; /* NCCL's tuning model chose (else the plain model) */
    /* the configuration the plan was built for, resolved (no AUTO): tuned, NCCL's channels
     * and chunks as asked for (the plan may use fewer: plan->channels, plan->chunks); plain,
     * the plan's algorithm, Simple, 1 channel and the configured chunks */
    weft_coll_config_t config;
    /* tuned: NCCL's costs of the choice (tuning.h), costs.model_ps its predicted time
     * (-1 where NCCL's tables have no figure: all-to-all); plain: zero, model_ps -1 */
    weft_coll_costs_t costs;
} weft_coll_choice_t;

/**
 * weft_coll_planner_new:
 * @fabric: the run's fabric state over the cluster the communicators' members are
 *   vertices of (its routes find NVLS chips and SHARP switches); not owned, must
 *   outlive the planner; may be NULL for the plain model.
 * @config: (nullable): the model (copied); NULL: the plain model's defaults.
 * Returns: (transfer full): a planner with no communicator. O(1).
 */
weft_coll_planner_t *weft_coll_planner_new(weft_fabric_t *fabric,
                                           const weft_coll_planner_config_t *config);

/** weft_coll_planner_free: frees the planner and every plan it returned; NULL is a no-op. */
void weft_coll_planner_free(weft_coll_planner_t *planner);

/**
 * weft_coll_planner_add_comm:
 * @member_vertex: the @n members' cluster vertices (GPUs), in communicator order (copied).
 * @n: member count (0: a communicator that cannot plan anything, WEFT_COLL_ERROR_VALUE).
 * Registers a communicator; its layout and system are built on its first call. A
 * communicator is its member list: one registered before with the same members in the
 * same order is found, not added again, so that its layout, system and plans are shared
 * (a sweep that replays each size with one planner plans each size once).
 * Returns: its id (ids are 0, 1, ... in order of first registration). O(n).
 */
guint weft_coll_planner_add_comm(weft_coll_planner_t *planner, const gint *member_vertex, guint n);

/** weft_coll_planner_tuned: whether @planner runs NCCL's tuning model (config->tuning set). */
gboolean weft_coll_planner_tuned(const weft_coll_planner_t *planner);

/**
 * weft_coll_planner_system:
 * @comm: a communicator id (weft_coll_planner_add_comm()) of a tuned planner.
 * @error: as weft_coll_system_init() (WEFT_TOPO_ERROR_NO_ROUTE when two members of
 *   different nodes cannot reach each other).
 * NCCL's view of communicator @comm (tuning.h), built on first use.
 * Returns: (transfer none): owned by the planner, or NULL on error. O(1) after the
 * first call.
 */
const weft_coll_system_t *weft_coll_planner_system(weft_coll_planner_t *planner, guint comm,
                                                   GError **error);

/**
 * weft_coll_planner_plan:
 * @op: the operation.
 * @size_bytes: S, as in doc/collectives.md.
 * @comm: the communicator's id (weft_coll_planner_add_comm()).
 * @choice: (out) (optional): what was chosen (see weft_coll_choice_t); set on success.
 * @error: as weft_coll_planner_system(); WEFT_COLL_ERROR_UNSUPPORTED for a forced
 *   algorithm or protocol the communicator cannot run, or an (operation, algorithm)
 *   pair that does not exist (weft_coll_tune(), weft_coll_plan_build());
 *   WEFT_COLL_ERROR_VALUE for a plan too large.
 * The plan of (@op, @size_bytes) on communicator @comm under the planner's model (see
 * the essay: the same pointer every time). An error is not cached: the same call
 * fails again the same way.
 * Returns: (transfer none): owned by the planner, valid until weft_coll_planner_free() or
 * weft_coll_planner_forget(), or NULL on error. Time complexity: see the essay.
 */
const weft_coll_plan_t *weft_coll_planner_plan(weft_coll_planner_t *planner, weft_coll_op_t op,
                                               guint64 size_bytes, guint comm,
                                               weft_coll_choice_t *choice, GError **error);

/**
 * weft_coll_planner_plan_dims:
 * @planner, @op, @size_bytes, @comm, @choice: as weft_coll_planner_plan().
 * @involved_dim: ASTRA-sim's involved_dim of the collective (workload.h: (entries << 8) |
 *   mask; 0: absent, every dimension); read only under an ASTRA-sim system file
 *   (weft_astra_system_plan_phases()), ignored otherwise.
 * @error: as weft_coll_planner_plan(); WEFT_COLL_ERROR_UNSUPPORTED when @involved_dim lists
 *   fewer dimensions than the ASTRA-sim network has.
 * weft_coll_planner_plan() for a collective that names the network dimensions it spans.
 * Returns: (transfer none): as weft_coll_planner_plan().
 */
const weft_coll_plan_t *weft_coll_planner_plan_dims(weft_coll_planner_t *planner, weft_coll_op_t op,
                                                    guint64 size_bytes, guint comm,
                                                    guint16 involved_dim,
                                                    weft_coll_choice_t *choice, GError **error);

/**
 * weft_coll_planner_forget:
 * Frees every plan @planner returned (their pointers become invalid) and forgets which
 * calls made them; communicators, layouts and systems stay. For callers whose calls do
 * not repeat, such as a size sweep, so that memory holds one plan at a time rather than
 * all of them. O(plans).
 */
void weft_coll_planner_forget(weft_coll_planner_t *planner);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_coll_planner_t, weft_coll_planner_free)

/*
 * Signatures: values appended to @sig as their bytes (a double as its bit pattern), so
 * equal signatures mean equal inputs. The planner keys plans shared between communicators
 * of one shape with them, the replay its memoized durations; weft_coll_sig_exec() appends
 * every field of the executor's costs.
 */
void weft_coll_sig_u64(GByteArray *sig, guint64 v);
void weft_coll_sig_f64(GByteArray *sig, double v);
void weft_coll_sig_exec(GByteArray *sig, const weft_coll_exec_t *x);

G_END_DECLS

#endif /* WEFT_COLL_PLANNER_H */
