/* SPDX-License-Identifier: MIT */
/*
 * Workloads: what every rank executes in one step.
 *
 * A workload is, per rank, the nodes of its trace (compute, memory, send,
 * receive, collective) and their dependencies, plus the communicators (process
 * groups) its collectives run in. Nodes are stored in compact per-rank arrays
 * (structure of arrays) indexed by a node index 0..n_nodes-1 in file order; the
 * trace's own 64-bit ids are kept for messages. Dependencies (Chakra data_deps
 * and ctrl_deps alike, both hard dependencies as in ASTRA-sim) are stored as
 * predecessor node indexes in CSR form.
 *
 * ctrl_deps are honoured where they are sound. A ctrl_dep that names a node
 * not in the file, or the node itself, is dropped alone: the file's other
 * ctrl_deps stay. If what is left of a file's ctrl_deps closes a cycle that
 * its data_deps alone do not have, all of them are dropped and its data_deps
 * alone order it. n_ctrl_deps_ignored counts what was dropped, and
 * weft_workload_t.warnings says so in one line per kind (the first case, with
 * file, rank, node and the missing id, and the total). The PyTorch converter's
 * output (chakra.0.et, schema 1.0.1) has all three: its ctrl_deps record host
 * call nesting and point at dropped parents (the thread root), at the node
 * itself, and from a CPU operator to its own kernel, which closes cycles.
 * A data_dep on a missing node is always an error.
 *
 * COMM_COLL nodes marked is_cpu_op are usually the host side of a collective
 * (PyTorch's c10d::allreduce_ beside the ncclKernel_AllReduce node, which has
 * a data_dep on it). Such a host record is recognised by its link to a GPU
 * collective: a GPU COMM_COLL of the same file depends on it (data_deps or
 * ctrl_deps), directly or through other is_cpu_op COMM_COLL nodes it shares a
 * dependency with (the converter's "(0)" and "(1)" halves of one call). A host
 * record carries no communicator (comm = -1, coll_op = its comm_type if any,
 * else 0) and runs on the CPU for its duration, as ASTRA-sim runs it. An
 * is_cpu_op COMM_COLL that no GPU collective depends on is the collective
 * itself with the flag mis-set (some converters do this): when it has a
 * comm_type it is read as a GPU collective (is_cpu_op cleared, pg_name
 * resolved to a communicator like any other's); without a comm_type and
 * without a comm_size there is nothing to replay but its host time, so it stays
 * on the CPU; a comm_size without a comm_type is a VALUE error. Both cases that
 * load say so in one line of warnings. (A mis-flagged collective that a GPU
 * collective depends on cannot be told from a host record and is read as one.)
 * Every other COMM_COLL node must have a
 * comm_type. METADATA nodes are kept as nodes (no work, zero duration unless
 * the trace says otherwise).
 *
 * Nodes may carry a layer (an id into the workload's layer names) and a phase of the step
 * (weft_phase_t) for the replay's per-layer accounting (replay.h, weft_replay_layer_t): the
 * generator and the text reader set them, the Chakra reader reads "layer" and "phase"
 * attributes or guesses the phase from the node's name (weft_phase_guess()).
 *
 * Readers: Chakra ET (see workload/chakra.h and doc/formats.md), and ASTRA-sim
 * 1.0 / SimAI text workloads (workload/text.c, doc/workloads.md), which are
 * expanded into the same arrays. Communicator 0 is always the world (all ranks
 * in order); process groups from a METADATA node, a comm-group JSON file or the
 * text workload's parallelism follow.
 *
 * Checks (weft_workload_check) run before any simulation: a dependency on a
 * missing node, a cycle, a SEND without matching RECV and the reverse, a
 * collective in a communicator the rank is not in, a peer rank out of range,
 * more ranks than GPUs. Each error names the file, rank, node id and node name.
 */
#ifndef WEFT_WORKLOAD_WORKLOAD_H
#define WEFT_WORKLOAD_WORKLOAD_H

#include <glib.h>

#include "coll/astra_system.h"
#include "coll/coll.h"
#include "core/time.h"
#include "hw/hw.h"
#include "workload/memory.h"

G_BEGIN_DECLS

#define WEFT_WORKLOAD_ERROR (weft_workload_error_quark())
GQuark weft_workload_error_quark(void);

typedef enum {
    WEFT_WORKLOAD_ERROR_IO,        /* a file cannot be opened or read; no file matches the prefix */
    WEFT_WORKLOAD_ERROR_CORRUPT,   /* empty file, bad varint, truncated message, bad protobuf */
    WEFT_WORKLOAD_ERROR_LEGACY,    /* a pre-2023 Chakra schema */
    WEFT_WORKLOAD_ERROR_VALUE,     /* a bad attribute value (float where an integer is needed, ...) */
    WEFT_WORKLOAD_ERROR_DEP,       /* a dependency on a node that does not exist */
    WEFT_WORKLOAD_ERROR_CYCLE,     /* the dependencies of a rank form a cycle */
    WEFT_WORKLOAD_ERROR_UNMATCHED, /* a SEND without RECV or the reverse */
    WEFT_WORKLOAD_ERROR_COMM,      /* bad communicator / process group */
    WEFT_WORKLOAD_ERROR_RANKS,     /* rank count does not fit the cluster */
} weft_workload_error_t;

/** Node types; the values are Chakra's NodeType numbers. */
typedef enum {
    WEFT_NODE_INVALID = 0,
    WEFT_NODE_METADATA = 1,
    WEFT_NODE_MEM_LOAD = 2,
    WEFT_NODE_MEM_STORE = 3,
    WEFT_NODE_COMP = 4,
    WEFT_NODE_SEND = 5,
    WEFT_NODE_RECV = 6,
    WEFT_NODE_COLL = 7,
} weft_node_type_t;

/**
 * Phases of a training step, for accounting (weft_rank_trace_t.phase): what part of the
 * step a node belongs to. SimAI's EndToEnd.csv splits a layer's time into forward,
 * input-gradient (ig) and weight-gradient (wg) compute; weft adds the recomputed forward
 * (activation recomputation), the optimizer and "other" (anything else: pipeline
 * transfers, a trace that does not say). The values are stored as guint8.
 */
typedef enum {
    WEFT_PHASE_OTHER = 0,
    WEFT_PHASE_FORWARD,
    WEFT_PHASE_RECOMPUTE, /* the forward run again in the backward (activation recomputation) */
    WEFT_PHASE_IGRAD,     /* backward: input (data) gradients, and a backward not split */
    WEFT_PHASE_WGRAD,     /* backward: weight gradients and their reduction */
    WEFT_PHASE_OPTIMIZER, /* the weight update and the parameter gather that follows it */
    WEFT_N_PHASES
} weft_phase_t;

/** weft_phase_name: "other", "forward", "recompute", "igrad", "wgrad", "optimizer"; NULL
 * for a value out of range. O(1). */
const char *weft_phase_name(weft_phase_t phase);

/**
 * weft_phase_from_name: parses a phase's name (weft_phase_name(); also SimAI's "fwd",
 * "ig", "wg", and "backward" for igrad).
 * @name: the text.
 * @phase: (out): the phase.
 * Returns: FALSE, leaving @phase alone, for an unknown name. O(phases).
 */
gboolean weft_phase_from_name(const char *name, weft_phase_t *phase);

/**
 * weft_phase_guess: the phase a node's name says, for traces that carry no phase
 * attribute. Recognized, in this order (case-sensitive): a ".recompute" suffix; "wgrad" or
 * "weight_grad" anywhere; a ".bwd" suffix, "dgrad" or "backward" anywhere (igrad);
 * "optimizer", "Optimizer" or "_foreach_" anywhere; a ".fwd" suffix or "forward" anywhere.
 * weft gen's node names ("attn_qkv.fwd", "mlp_fc1_wgrad.bwd") and PyTorch operator names
 * ("aten::convolution_backward", "Optimizer.step#Adam.step") read so.
 * @name: (nullable): the node's name.
 * Returns: the phase, WEFT_PHASE_OTHER when nothing matches. O(length of @name).
 */
weft_phase_t weft_phase_guess(const char *name);

/** WEFT_LAYER_MAX: the most layer names a workload holds (ids are guint16). */
#define WEFT_LAYER_MAX 65535u

/** A communicator: @n_ranks distinct ranks in communicator order (member i = ranks[i]). */
typedef struct {
    char *name;       /* the process group name ("0" for the world) */
    guint n_ranks;
    guint *ranks;
    /* members the trace's definition names (a METADATA record or the comm-group file) when
     * the workload holds fewer ranks than the job (a one-rank trace reduces every group to
     * rank 0); 0: no more than n_ranks, or unknown. weft_workload_set_groups() reads it. */
    guint job_size;
} weft_comm_t;

/**
 * One rank's trace, structure of arrays; every array has n_nodes entries except
 * dep_off (n_nodes + 1) and deps (dep_off[n_nodes]).
 */
typedef struct {
    char *file;               /* where it came from, for messages */
    guint n_nodes;
    guint64 *id;              /* the trace's node id */
    const char **name;        /* operator name ("" when absent); strings owned by the workload */
    guint8 *type;             /* weft_node_type_t */
    guint8 *is_cpu_op;        /* 1: runs on the host CPU, not a GPU stream (for COLL: a host
                                 record; a mis-flagged collective is read with 0, see above) */
    weft_time_t *duration_ps; /* duration_micros in picoseconds */
    guint8 *coll_op;          /* weft_coll_op_t, for COLL */
    guint64 *comm_bytes;      /* comm_size, for COLL, SEND, RECV */
    gint32 *peer;             /* SEND: comm_dst; RECV: comm_src; else -1 */
    gint64 *tag;              /* comm_tag for SEND/RECV (0 when absent) */
    gint32 *comm;             /* GPU COLL: index into the workload's communicators; else -1 */
    double *num_ops;          /* COMP: floating-point operations (0 when absent) */
    guint64 *tensor_bytes;    /* tensor_size (0 when absent) */
    /* (nullable) COLL: 1 when the collective's kernel holds no SMs beyond what the
     * durations of the compute it overlaps already count (weft gen's userbuffers overlaps
     * under tp_overlap: their GEMMs are timed on the SMs left them), so the replay's SM
     * contention (compute.sm_contention) leaves it out; NULL: none such (every reader but
     * the generator) */
    guint8 *sms_counted;
    /* (nullable) memory effects (workload/memory.h): bytes the node allocates when it starts
     * and bytes it frees when it finishes, both in category mem_cat[i] (weft_mem_cat_t).
     * NULL: the trace says nothing of its nodes' memory (then weft_workload_t.resident is NULL
     * too and the replay reports memory as unknown, not 0). Set by the generator; every
     * reader of traces leaves them NULL. */
    guint64 *mem_alloc;
    guint64 *mem_free;
    guint8 *mem_cat;
    /* (nullable) COLL: ASTRA-sim's involved_dim (Workload.cc issue_coll_comm()) of a
     * collective of the world (pg_name absent, "" or "0"; ASTRA-sim ignores it for any
     * other group) as (entries << 8) | mask, bit d of mask set when dimension d is
     * involved; 0: absent (every dimension). NULL: no node has one. At most 8 entries. */
    guint16 *involved_dim;
    /* (nullable) the layer each node belongs to: an index into weft_workload_t.layers (0:
     * none, "other"); NULL: all 0. Set by the generator, the text reader (a line is a layer)
     * and the Chakra reader (a "layer" attribute). */
    guint16 *layer;
    /* (nullable) weft_phase_t of each node; NULL: all WEFT_PHASE_OTHER. */
    guint8 *phase;
    guint32 *dep_off;         /* predecessors of node i: deps[dep_off[i] .. dep_off[i+1]) */
    guint32 *deps;            /* node indexes */
    guint n_ctrl_deps_ignored; /* ctrl_deps dropped because they were unsound (see above) */
    gboolean borrows_arrays;  /* TRUE: every array except comm and peer (and file) belongs to
                                 another rank of the workload (text workloads share one copy per
                                 pipeline stage); read-only, freed with their owner */
} weft_rank_trace_t;

typedef struct {
    guint n_ranks;
    weft_rank_trace_t *ranks;     /* n_ranks */
    GPtrArray *comms;             /* of weft_comm_t*; comms[0] is the world */
    GStringChunk *strings;        /* owns node names */
    char *source;                 /* prefix or file it was read from */
    /* (nullable) what the reader worked around in the trace, one line each (char *,
     * owned, no newline), in a fixed order: ignored ctrl_deps, is_cpu_op collectives
     * read as GPU collectives or left on the host. Each names the first case (file,
     * rank, node id and name, the value) and how many there were. NULL or empty: none.
     * weft replay prints them as the summary's "warning" lines. */
    GPtrArray *warnings;
    /* (nullable) per rank, the bytes resident over the whole step by category (weft_mem_cat_t,
     * workload/memory.h: weights, master weights, gradients, optimizer states), to which the
     * nodes' mem_alloc / mem_free add; NULL: unknown (a trace without memory information). */
    guint64 (*resident)[WEFT_MEM_N_CATS];
    /* (nullable) layer names (char *, owned) in model order, indexed by the nodes' layer
     * ids; layers[0] is "other" (nodes outside any layer). NULL: no node names a layer.
     * Add names with weft_workload_layer_id(). */
    GPtrArray *layers;
    GHashTable *layer_ids; /* (nullable) name -> id + 1, for weft_workload_layer_id() */
} weft_workload_t;

/**
 * weft_workload_layer_id: the id of layer @name in @wl, added at the end of wl->layers
 * (made with "other" at 0 on first use) if it is new.
 * @wl: a workload being built.
 * @name: the layer's name; "" and "other" are id 0.
 * Returns: the id, 1 .. WEFT_LAYER_MAX - 1 for a named layer; 0 when the table is full
 *   (WEFT_LAYER_MAX names; the node is then counted as "other"). O(1) amortized (a hash
 *   lookup).
 */
guint16 weft_workload_layer_id(weft_workload_t *wl, const char *name);

/**
 * weft_workload_load_chakra:
 * @prefix: the trace prefix: files are "<prefix>.<rank>.et", rank from 0,
 *   contiguous. Gzip-wrapped files are accepted.
 * @comm_groups_json: (nullable): an ASTRA-sim comm-group JSON file
 *   ({"1": [0,1,2,3], ...}); its groups override METADATA process groups.
 *   When NULL and "<prefix>.json" exists beside the traces (weft gen writes
 *   it), that file is used.
 * A communicator other than the world is named by its pg_name, or by the
 * pg_desc string its COMM_COLL nodes carry, when they do: weft's writer gives
 * process groups integer pg_names, as ASTRA-sim needs, and keeps weft's name
 * ("tp.0") in pg_desc.
 * @error: WEFT_WORKLOAD_ERROR_* naming file, byte offset, node id and name
 *   (an is_cpu_op COMM_COLL read as a GPU collective takes the errors of one:
 *   _COMM for an unknown pg_name; _VALUE for a comm_size without comm_type);
 *   _VALUE for a pg_desc that is not a string, _COMM for a process group given
 *   two pg_desc or a pg_desc given to two process groups.
 * Returns: (transfer full): the workload, or NULL. What the reader worked
 *   around (dropped ctrl_deps, is_cpu_op collectives: see above) is in its
 *   warnings.
 */
weft_workload_t *weft_workload_load_chakra(const char *prefix, const char *comm_groups_json,
                                           GError **error);

/*
 * Note: when @prefix of weft_workload_load_chakra() is itself a regular file
 * whose first word is a text-workload parallelism keyword (and no
 * "<prefix>.0.et" exists), it is read by weft_workload_load_text() with no rank
 * hint, so every caller of the Chakra loader (weft replay --trace) accepts text
 * workloads too. A comm-group JSON file with a text workload is an error
 * (WEFT_WORKLOAD_ERROR_COMM): the groups come from the parallelism line.
 */

/**
 * weft_workload_custom_plan:
 * @wl: a workload whose ranks hold only SEND, RECV, COMP (and METADATA) nodes: a
 *   custom collective as ASTRA-sim's all-reduce-implementation-custom gives it (one
 *   Chakra ET per rank, e.g. custom_allreduce.N.et).
 * @op: the operation it stands for (the plan's op; the ET does not say).
 * @error: WEFT_WORKLOAD_ERROR_VALUE naming the file, node id and type for another node
 *   type; _UNMATCHED for a SEND without its RECV or the reverse; _CYCLE when the nodes
 *   and the matches wait in a cycle.
 *
 * The custom collective as a plan (coll.h) over members = ranks, every node one
 * transfer in a topological order: a SEND a network transfer of its comm_size bytes to
 * comm_dst; a RECV a 0-byte local step of its rank that waits for the delivery of the
 * matching SEND (the k-th SEND from comm_src to this rank with the same comm_tag); a COMP
 * a local step of its duration (WEFT_COLL_XFER_DELAY); METADATA a 0-byte local step. A
 * node waits for its data dependencies: a link dependency on a SEND (its bytes have
 * left), a data dependency on anything else. The bytes are the ET's own (the
 * collective's size does not scale them); plan->exec charges nothing but efficiency 1.
 * Returns: (transfer full): the plan, or NULL. O(nodes + dependencies), one hash lookup
 *   per SEND and RECV.
 */
weft_coll_plan_t *weft_workload_custom_plan(const weft_workload_t *wl, weft_coll_op_t op,
                                            GError **error);

/**
 * weft_workload_astra_custom_plans:
 * @sys: a system file, read (coll/astra_system.h).
 * @error: WEFT_WORKLOAD_ERROR_IO when a prefix's "<prefix>.0.et" is found nowhere; the
 *   errors of weft_workload_load_chakra() and weft_workload_custom_plan(), prefixed with
 *   the system file and key.
 *
 * Loads the Chakra ET of each "*-implementation-custom" key of @sys and stores its plan
 * (weft_workload_custom_plan()) in sys->custom_plan, so that the planner runs it for every
 * collective of that operation, as ASTRA-sim 518bd513 does (CustomAlgorithm.cc: one
 * stream per collective, whatever preferred-dataset-splits says; the ET's own bytes, not
 * the collective's; the ET of the rank's position in its communicator). One difference
 * is kept: ASTRA-sim's analytical network casts each SEND's time to whole ns, weft keeps
 * the fraction (weft_coll_exec_t.net_trunc_ns takes it off a post-delay, and a custom
 * plan has none): under 1 ns per SEND on the critical path. A prefix is read
 * relative to the working directory, as ASTRA-sim reads it, else relative to the system
 * file's directory or the nearest of its parents where "<prefix>.0.et" exists (ASTRA-sim's
 * examples name their ETs from the repository's root). Operations already loaded are
 * kept. Returns: FALSE on error. O(ET nodes).
 */
gboolean weft_workload_astra_custom_plans(weft_astra_system_t *sys, GError **error);

/**
 * weft_workload_is_text:
 * @path: a file name.
 * Returns: TRUE if @path is a regular file whose first word is an ASTRA-sim 1.0
 *   / SimAI parallelism keyword (DATA, MODEL, MICRO, HYBRID_*). Reads one line.
 */
gboolean weft_workload_is_text(const char *path);

/**
 * weft_workload_load_text:
 * @path: an ASTRA-sim 1.0 or SimAI/AICB text workload (format in
 *   ../shared/formats/peer-formats.md; mapping in doc/workloads.md).
 * @n_ranks_hint: ranks to use when the header has no all_gpus (0: the default,
 *   8 ranks, or 2 x model_parallel_NPU_group x pp x ep when that does not divide 8).
 * @error: WEFT_WORKLOAD_ERROR_IO (unreadable), _CORRUPT (unknown keyword, wrong
 *   column or line count), _VALUE (bad number, unknown comm type or key),
 *   _RANKS (ranks not a multiple of model_parallel_NPU_group x pp), _COMM (ep
 *   not dividing the data-parallel size); messages name file:line and the value.
 *
 * One training step: forward of every layer line in order (compute, then its
 * collective), backward in reverse (input-gradient compute and collective, then
 * weight-gradient compute; the weight-gradient collective runs off the critical
 * chain), then each layer's weight update after its weight-gradient collective.
 * Times are ns (SimAI) or cycles taken as 1 ns (ASTRA-sim 1.0). Ranks are laid
 * out as Megatron-LM does (tensor fastest, then data, pipeline outermost;
 * expert groups are blocks of ep consecutive data-parallel ranks); with pp > 1
 * and pp_comm > 0 stages exchange pp_comm bytes per micro-batch by SEND/RECV.
 * Ranks of a stage share node arrays (borrows_arrays).
 * Returns: (transfer full): the workload, or NULL. Time complexity: O(ranks x
 *   nodes per stage) for communicators and peers, O(pp x nodes per stage) else.
 */
weft_workload_t *weft_workload_load_text(const char *path, guint n_ranks_hint, GError **error);

/**
 * weft_workload_load:
 * @path_or_prefix: a Chakra prefix (files PREFIX.0.et ...) or a text workload file.
 * @comm_groups_json: (nullable): comm groups, for Chakra traces only.
 * @error: as weft_workload_load_chakra() or weft_workload_load_text().
 * Returns: (transfer full): the workload detected by content, or NULL.
 */
weft_workload_t *weft_workload_load(const char *path_or_prefix, const char *comm_groups_json,
                                    GError **error);

/**
 * weft_workload_collective: a synthetic workload of one collective, no trace.
 * @op: the operation (weft_coll_op_from_name() parses its name).
 * @bytes: its comm_size S in bytes, in the convention of doc/collectives.md
 *   (all-gather: each rank's share; all-to-all: what one rank sends in all);
 *   at least 1, except a barrier, which carries none (0).
 * @iterations: how many times each rank runs it back to back (>= 1): node
 *   i + 1 waits for node i, so the step time is the sum of the iterations.
 * @n_ranks: ranks (>= 1), all in the world communicator 0.
 * Each rank has @iterations COLL nodes named "OP.I" and no compute; the ranks
 * share one node array (borrows_arrays), so memory is O(iterations + ranks).
 * Returns: (transfer full): the workload, or NULL with WEFT_WORKLOAD_ERROR_VALUE
 *   naming the operation and the bad size or count.
 */
weft_workload_t *weft_workload_collective(weft_coll_op_t op, guint64 bytes, guint iterations,
                                          guint n_ranks, GError **error);

/**
 * weft_workload_check:
 * @wl: a workload.
 * @n_gpus: GPUs in the cluster; the workload must have at most that many
 *   ranks (0 skips this check).
 * @error: the first problem found, naming file, rank, node id and name (a layer id beyond
 *   wl->layers or a phase beyond weft_phase_t: WEFT_WORKLOAD_ERROR_VALUE).
 * Returns: TRUE if the workload can be replayed. Time complexity: O(nodes + deps), plus
 *   O(members x log members) to sort each communicator's members once and O(log members)
 *   per collective node for its rank's membership.
 */
gboolean weft_workload_check(const weft_workload_t *wl, guint n_gpus, GError **error);

/** A process group's size stated by the user (weft replay --pg-size NAME=N). */
typedef struct {
    char *name; /* a communicator's name (pg_name; "0" is the world) */
    guint size; /* members per group, >= 1 */
} weft_pg_size_t;

/**
 * weft_workload_parse_pg_sizes:
 * @text: "NAME=N[,NAME=N...]" (spaces around the items are ignored; NAME holds neither
 *   ',' nor '='; N a decimal integer 1 .. 2^31).
 * @sizes: (out) (optional) (transfer full): the sizes, a GArray of weft_pg_size_t whose
 *   names it owns (cleared with it).
 * @error: WEFT_WORKLOAD_ERROR_VALUE naming the item: no '=', an empty NAME, an N that is
 *   not a whole number or is 0, a NAME given twice.
 * Returns: TRUE if @text is well formed. Time complexity: O(items^2).
 */
gboolean weft_workload_parse_pg_sizes(const char *text, GArray **sizes, GError **error);

/**
 * weft_workload_set_groups: replicate a one-rank trace and give process groups their size.
 * @wl: a loaded workload, changed in place.
 * @replicate: 0: keep the ranks; N >= 1: @wl must have one rank, whose trace is copied
 *   to ranks 0 .. N-1 (the copies share its node arrays: O(N x its nodes) memory for the
 *   communicators only). Point-to-point nodes cannot be copied (whom would rank r send
 *   to?) and are an error.
 * @sizes: (nullable) (element-type weft_pg_size_t): stated sizes; each NAME must be a
 *   communicator a collective of @wl uses ("0": the world's collectives), and N must
 *   divide the rank count (after replication).
 *
 * A communicator of size S over the workload's n ranks becomes n / S communicators of
 * consecutive ranks, as tensor-parallel groups are laid out: rank r is member r mod S of
 * group r / S (named NAME when S = n, else "NAME.g", g = r / S); each rank's collectives
 * on it go to its own group. Its size S is, in this order: the stated size; with
 * @replicate, the size of the trace's definition (weft_comm_t.job_size: a METADATA
 * record's rank list), then all n ranks (the world, and groups of unknown size);
 * without @replicate, the communicator is kept as the trace defines it. The world
 * (communicator 0) stays all ranks; with a stated size "0=S" the world's collectives run
 * in groups of S.
 *
 * Whether or not anything changed, when every communicator a GPU collective uses has
 * one member, one line is added to @wl's warnings: the collectives move no data, and
 * --pg-size / --replicate give the groups' sizes.
 *
 * @error: WEFT_WORKLOAD_ERROR_RANKS (@replicate of a workload of several ranks, or
 *   above 2^20), _VALUE (a SEND/RECV to replicate, naming the node), _COMM (an unknown
 *   NAME, listing the communicators; a size that does not divide the ranks, naming the
 *   group, the size and the count; a group name that would repeat another's). Messages
 *   name the option (--replicate N, --pg-size NAME=N) and its value. On error @wl is
 *   unchanged.
 * Returns: TRUE on success. Time complexity: O(ranks x nodes + communicators x ranks).
 */
gboolean weft_workload_set_groups(weft_workload_t *wl, guint replicate, const GArray *sizes,
                                  GError **error);

/**
 * weft_workload_roofline_ps: the roofline time of one compute node.
 * @num_ops: floating-point operations (>= 0).
 * @tensor_bytes: bytes the node reads and writes in HBM.
 * @gpu: the GPU it runs on; its dense BF16 peak (bf16_flops) and HBM bandwidth (hbm_Bps),
 *   datasheet figures of the catalog (src/hw/hw.c, e.g. H100 SXM: 989 TFLOP/s, 3.35 TB/s).
 * Returns: max(@num_ops / bf16_flops, @tensor_bytes / hbm_Bps) in picoseconds, rounded to
 *   the nearest: ASTRA-sim's roofline (astra-sim @ 3ad841a5, Workload::issue_comp and
 *   Roofline::get_perf). BF16 is assumed: the precision PyTorch mixed-precision training
 *   runs its GEMMs in; a trace does not say. O(1).
 */
weft_time_t weft_workload_roofline_ps(double num_ops, guint64 tensor_bytes,
                                      const weft_hw_gpu_t *gpu);

/**
 * weft_workload_roofline: time the compute nodes that carry work but no duration.
 * @wl: a workload, changed in place.
 * @gpu: (nullable): the GPU every rank runs on; NULL: the cluster has none (an abstract
 *   cluster, an ASTRA-sim network) or no single one.
 * Every GPU COMP node (is_cpu_op false) whose duration is 0 and that has num_ops > 0 or
 * tensor_size > 0 gets weft_workload_roofline_ps(); nodes with a duration are untouched,
 * so a trace with durations replays as before. One line is added to @wl's warnings when
 * any node qualifies: how many, the GPU and its figures, and the first node; with @gpu
 * NULL the nodes keep 0 and the line says why. Unlike ASTRA-sim, a node with num_ops and
 * no tensor_size is timed by its operations (ASTRA-sim skips it).
 * Returns: the number of such nodes. Time complexity: O(nodes of ranks that own arrays).
 */
guint64 weft_workload_roofline(weft_workload_t *wl, const weft_hw_gpu_t *gpu);

/**
 * weft_workload_astra_roofline: time every GPU compute node by ASTRA-sim's roofline, as a
 * system file with roofline-enabled does (astra-sim 518bd513, Workload.cc issue_comp() and
 * Roofline.cc get_perf(); Sys.cc reads peak-perf in TFLOP/s and local-mem-bw in GB/s).
 * @wl: a workload, changed in place.
 * @peak_flops: peak-perf x 1e12, FLOP/s (> 0).
 * @mem_Bps: local-mem-bw x 1e9, bytes/s (> 0).
 * @origin: the system file, for the warning line.
 * Every COMP node with is_cpu_op false gets, whatever its duration, floor(num_ops / min(
 * mem_Bps x I, peak_flops) x 1e9) ns with I = num_ops / tensor_size, which is
 * floor(max(num_ops / peak_flops, tensor_size / mem_Bps) in ns); a node with tensor_size 0
 * takes 0 (ASTRA-sim skips it as invalid). One warning line says how many nodes were
 * timed and how many skipped. Returns: the nodes timed. O(nodes of ranks that own arrays).
 */
guint64 weft_workload_astra_roofline(weft_workload_t *wl, double peak_flops, double mem_Bps,
                                     const char *origin);

/** weft_workload_free: NULL is a no-op. */
void weft_workload_free(weft_workload_t *wl);

/** weft_workload_node_count: nodes over all ranks. */
guint64 weft_workload_node_count(const weft_workload_t *wl);

/** weft_node_type_name: "COMP", "COMM_COLL", ... */
const char *weft_node_type_name(weft_node_type_t type);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_workload_t, weft_workload_free)

G_END_DECLS

#endif /* WEFT_WORKLOAD_WORKLOAD_H */
