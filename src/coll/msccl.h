/* SPDX-License-Identifier: MIT */
/*
 * Custom collectives from MSCCL-IR XML (the algorithm files of Microsoft's
 * MSCCL runtime and of ASTRA-sim's all-reduce-implementation-custom).
 *
 * An MSCCL algorithm is, per GPU, a set of thread blocks (<tb>), each a
 * sequence of steps (<step>) run in order. A thread block has at most one
 * send peer and one receive peer on one channel: a connection (sender,
 * receiver, channel) belongs to one thread block at each end, and the k-th
 * sending step on it matches the k-th receiving step at the other end (FIFO
 * order, as the runtime's connections are). A step may also wait for step
 * `deps` of thread block `depid` of its own GPU. Step types, as MSCCL's XML
 * loader reads them (the type switch of its algorithm parser,
 * mscclGetAlgoFromXmlFile() in the MSCCL runtime, as read through public code
 * search: commit not pinned; the same names in microsoft/msccl's generator
 * scripts, ab755900 src/xml_generator/allpair_allreduce_low_latency.py).
 * weft's limits on thread blocks and steps (below) are its own, looser than
 * MSCCL's (256 steps):
 * s send, r receive, rcs receive-copy-send, rrs receive-reduce-send, rrc
 * receive-reduce-copy, rrcs receive-reduce-copy-send, cpy local copy, re local
 * reduce, nop (a dependency only).
 *
 * The data: the buffer of the collective (weft's data space, doc/collectives.md;
 * for all-to-all one member's buffer S) is cut into nchunksperloop chunks, as
 * MSCCL cuts count x sizeMultiplier elements (one loop: the whole buffer at
 * once, no pipelining over loops); chunk c is bytes [floor(c B / N),
 * floor((c + 1) B / N)) of a buffer of B bytes cut into N chunks, and a step
 * moves cnt consecutive chunks from srcoff.
 *
 * The plan (coll.h): every step is one transfer, emitted in a topological
 * order of the steps. A sending step (s, rcs, rrs, rrcs) is a network transfer
 * from its GPU to its thread block's send peer on its channel; every other
 * step is a local copy transfer (WEFT_COLL_XFER_COPY) of its GPU: 0 bytes for
 * r, rrc and nop (the data arrived with the sender's transfer), cnt chunks for
 * cpy and re (charged 2 x bytes / copy_Bps, free when copy_Bps is 0). A step
 * depends on: the previous step of its thread block and its (depid, deps)
 * step, each by a link dependency when that step sends (its bytes have left:
 * the thread block moves on) and a data dependency otherwise; and, when it
 * receives, by a data dependency on the matching send's transfer (its
 * delivery, plus the step latency and, for rrs, rrc and rrcs, the receiver's
 * reduction: the transfer is flagged WEFT_COLL_XFER_REDUCE).
 *
 * Costs: the plan's exec has the efficiency of the XML's protocol (LL, LL128,
 * Simple: weft_coll_proto_efficiency()) and the layout's hbm_Bps; no base or
 * step latency (MSCCL's own runtime costs are not modelled).
 *
 * Complexity: parsing O(file size); planning O(steps + thread blocks) with one
 * hash lookup per thread block.
 */
#ifndef WEFT_COLL_MSCCL_H
#define WEFT_COLL_MSCCL_H

#include <glib.h>

#include "coll/coll.h"

G_BEGIN_DECLS

/* The most GPUs, thread blocks per GPU, steps per thread block and chunks per loop read. */
#define WEFT_MSCCL_MAX_GPUS 65536
#define WEFT_MSCCL_MAX_TBS 4096
#define WEFT_MSCCL_MAX_STEPS 65536
#define WEFT_MSCCL_MAX_CHUNKS (1 << 24)

typedef struct weft_coll_msccl weft_coll_msccl_t;

/**
 * weft_coll_msccl_parse:
 * @text: the XML text; @len: its length in bytes, or -1 when NUL-terminated.
 * @name: the file name for error messages.
 * @error: WEFT_COLL_ERROR_PARSE for text that is not well-formed XML, an unknown
 *   element, a missing or non-integer attribute, an unknown step type, coll or
 *   proto, a value out of range (the message names @name, the line, the gpu, tb
 *   and step and the value); WEFT_COLL_ERROR_VALUE for a program that cannot run:
 *   a dependency on a missing step, a sending step without its matching receive
 *   (or the reverse), two thread blocks of a GPU on one connection, a step whose
 *   cnt differs from its match's, a cycle of waits (a deadlock).
 *
 * Reads and checks an MSCCL algorithm; every sending step has its receive.
 * Returns: (transfer full): the algorithm, or NULL. O(len + steps).
 */
weft_coll_msccl_t *weft_coll_msccl_parse(const char *text, gssize len, const char *name,
                                         GError **error);

/**
 * weft_coll_msccl_load:
 * @path: an MSCCL XML file.
 * @error: G_FILE_ERROR when it cannot be read, else as weft_coll_msccl_parse().
 * Returns: (transfer full): the algorithm, or NULL.
 */
weft_coll_msccl_t *weft_coll_msccl_load(const char *path, GError **error);

/** weft_coll_msccl_free: NULL is a no-op. */
void weft_coll_msccl_free(weft_coll_msccl_t *m);

/** weft_coll_msccl_op: the collective of the algorithm (its coll attribute). */
weft_coll_op_t weft_coll_msccl_op(const weft_coll_msccl_t *m);

/** weft_coll_msccl_n_gpus: its ngpus attribute. */
guint weft_coll_msccl_n_gpus(const weft_coll_msccl_t *m);

/** weft_coll_msccl_name: its name attribute (owned by @m). */
const char *weft_coll_msccl_name(const weft_coll_msccl_t *m);

/**
 * weft_coll_msccl_plan:
 * @m: an algorithm.
 * @layout: the communicator; its member count must be @m's ngpus.
 * @size_bytes: S per doc/collectives.md (all-gather: one member's contribution).
 * @error: WEFT_COLL_ERROR_VALUE when the member count differs from ngpus (the
 *   message names the file and both counts).
 *
 * The plan of the essay: plan->op is @m's, plan->algo WEFT_COLL_ALGO_DIRECT (weft has
 * no custom algorithm value; callers that print it say "custom"), plan->channels
 * nchannels, plan->chunks 1.
 * Returns: (transfer full): the plan, or NULL. O(steps).
 */
weft_coll_plan_t *weft_coll_msccl_plan(const weft_coll_msccl_t *m, const weft_coll_layout_t *layout,
                                       guint64 size_bytes, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_coll_msccl_t, weft_coll_msccl_free)

G_END_DECLS

#endif /* WEFT_COLL_MSCCL_H */
