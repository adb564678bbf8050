/* SPDX-License-Identifier: MIT */
/*
 * Private interface of the plan builders (coll.c: the builder core, packing,
 * names and weft_coll_plan_build(); algos.c: the algorithms; layout.c: member
 * layouts). A builder collects transfers and (predecessor, successor, kind)
 * dependencies, adds the link dependency of every transfer itself (the
 * previous transfer on the same channel, source and destination), and is
 * packed into the plan's CSR arrays at the end. Composite algorithms pass data
 * between their phases as range lists: for each endpoint, the transfers that
 * delivered byte ranges of the data space to it; a later phase's transfer out
 * of that endpoint depends on the entries overlapping the bytes it moves.
 * Nothing outside src/coll includes this header.
 */
#ifndef WEFT_COLL_COLL_PRIVATE_H
#define WEFT_COLL_COLL_PRIVATE_H

#include "coll/coll.h"

G_BEGIN_DECLS

#define COLL_NONE G_MAXUINT32

typedef struct {
    guint32 pred;
    guint32 succ;
    guint8 kind; /* weft_coll_dep_kind_t */
} coll_dep_t;

typedef struct {
    GArray *xfers;    /* of weft_coll_xfer_t */
    GArray *deps;     /* of coll_dep_t */
    GHashTable *last; /* (channel, src, dst) key -> index of the last transfer on it + 1 */
    guint link_dep;   /* index in deps of the newest transfer's link dependency, or COLL_NONE */
    guint lane_shift; /* channel = lane >> lane_shift (trees: two lanes per channel) */
    const weft_coll_layout_t *layout;
    guint n_members;
    GArray *virt;       /* of gint: cluster vertex of each virtual member */
    GArray *virt_inter; /* of gboolean: transfers to or from it cross domains */
} coll_builder_t;

/* A byte range of the data space delivered to an endpoint by transfer @t. */
typedef struct {
    guint64 off;
    guint64 len;
    guint32 t;
} coll_range_t;

/* Part @i of @total cut into @parts: the remainder goes one byte each to the first parts. */
static inline guint64
coll_split(guint64 total, guint64 parts, guint64 i)
{
    return total / parts + (i < total % parts ? 1 : 0);
}

/* Offset of part @i of @total cut into @parts (the sum of the parts before it). */
static inline guint64
coll_split_off(guint64 total, guint64 parts, guint64 i)
{
    return i * (total / parts) + MIN(i, total % parts);
}

/* coll.c */
/* A transfer on @lane (a channel, or for trees 2 x channel + tree: link dependencies
 * follow lanes, xfer->channel = lane >> lane_shift). */
guint32 weft_coll_i_add_xfer(coll_builder_t *b, guint lane, guint src, guint dst, guint64 bytes,
                             guint64 offset, guint8 flags);
/* A local copy by @member (a WEFT_COLL_XFER_COPY transfer, coll.h) of stream @stream (0 or
 * 1: the copies of one stream on one lane run in order, a link dependency on the stream's
 * previous copy; the two streams are independent). */
guint32 weft_coll_i_add_copy(coll_builder_t *b, guint lane, guint member, guint stream,
                             guint64 bytes, guint64 offset);
void weft_coll_i_add_dep(coll_builder_t *b, guint32 pred, guint32 succ);
/* Virtual member for cluster vertex @v (one per vertex): its endpoint index. */
guint weft_coll_i_virtual(coll_builder_t *b, gint v, gboolean inter);
/* Range lists: one GArray of coll_range_t per endpoint (n_members entries). */
GArray **weft_coll_i_ranges_new(guint n);
void weft_coll_i_ranges_free(GArray **r, guint n);
void weft_coll_i_ranges_add(GArray **r, guint ep, guint64 off, guint64 len, guint32 t);
/* Sorts every list by offset (call once a phase has filled it). */
void weft_coll_i_ranges_sort(GArray **r, guint n);
/* Adds data dependencies of @succ on every entry of @r[ep] overlapping [off, off + len). */
void weft_coll_i_deps_on_ranges(coll_builder_t *b, GArray **r, guint ep, guint64 off, guint64 len,
                                guint32 succ);
/* Copies the entries of @from[ep] overlapping [off, off + len) into @to[ep]. */
void weft_coll_i_ranges_copy(GArray **to, GArray **from, guint ep, guint64 off, guint64 len);

/* algos.c: fills @b for the plan (op, algo, channels, chunks, size, layout already set in @plan).
 */
gboolean weft_coll_i_build_algo(coll_builder_t *b, weft_coll_plan_t *plan, GError **error);
/* The transfers @plan's algorithm will make (plan fields set, no transfers yet): exactly
 * weft_coll_i_count_xfers() of its op, algo, channels and chunks. */
double weft_coll_i_estimate_xfers(const weft_coll_plan_t *plan, const weft_coll_layout_t *layout);
/*
 * The exact number of transfers weft_coll_i_build_algo() makes for (@op, @algo) on @layout
 * with @channels channels and @chunks chunks (the plan's own, after weft_coll_plan_build()'s
 * limits; direct algorithms ignore @chunks). (op, algo) must be supported on @layout
 * (weft_coll_i_check_supported()). The count of every algorithm is @chunks times that of
 * each channel, and every channel has the same count. O(channels) for most algorithms,
 * O(channels x g x D x g) for CollNet (its SHARP leaves per position).
 */
guint64 weft_coll_i_count_xfers(weft_coll_op_t op, weft_coll_algo_t algo,
                                const weft_coll_layout_t *layout, guint channels, guint chunks);
/*
 * How many chunk times more than its busiest link's work a plan of (@op, @algo) on @layout
 * may take to fill and drain its pipeline: its longest chain of transfers of one chunk, less
 * one (ring phases: 0, every link is busy from the first step). With C chunks on uncongested
 * links the plan takes at most (C + depth) x the chunk time of its slowest stage, so cutting
 * C chunks to C' < C changes its time by at most depth (1/C' - 1/C) / (1 + depth / C).
 * O(D log D) for the trees, O(1) otherwise.
 */
/* The most bytes per S that one domain's network port carries each way in NCCL's double
 * binary trees over @D domains (both trees, each carrying S / 2 up and down one edge per
 * parent-child pair): 1 on 2 domains, 2 on 3 or more (an interior node: its parent and two
 * children in one tree, its parent in the other); 0 below 2. O(D). */
double weft_coll_i_dtree_nic_load(guint D);
guint weft_coll_i_fill_depth(weft_coll_op_t op, weft_coll_algo_t algo,
                             const weft_coll_layout_t *layout);
/* The count pieces are cut into per channel, for the channel and chunk limits. */
guint64 weft_coll_i_pieces(const weft_coll_plan_t *plan, const weft_coll_layout_t *layout);
/* Whether (op, algo) exists and can run on @layout; sets WEFT_COLL_ERROR_UNSUPPORTED if not. */
gboolean weft_coll_i_check_supported(weft_coll_op_t op, weft_coll_algo_t algo,
                                     const weft_coll_layout_t *layout, GError **error);

/*
 * An implicit plan (coll.h, weft_coll_plan_is_implicit()): a ring all-reduce, reduce-scatter
 * or all-gather kept as its rings, not its transfers. Channel ch's ring has its endpoint at
 * each position in order[ch x g ..], and position p owns bytes [poff, poff + plen) of the
 * data space at the end (as build_ring() lays them out); its transfers are exactly those
 * build_ring() would emit (weft_coll_i_ring_emit() emits them for materializing).
 */
enum { WEFT_COLL_I_RING_RS, WEFT_COLL_I_RING_AG, WEFT_COLL_I_RING_AR };

struct weft_coll_implicit {
    guint8 kind; /* WEFT_COLL_I_RING_* */
    guint g;     /* positions (the members) */
    guint channels;
    guint chunks;
    guint32 *order;   /* channels x g: the member at each position */
    guint64 *poff;    /* channels x g */
    guint64 *plen;    /* channels x g */
    guint *dom;       /* g: each member's layout domain (transfers between two cross domains) */
    guint16 *sharing; /* channels x g: channels with transfers on position p's pair */
    guint64 n_xfers;  /* channels x steps x chunks x g */
    guint64 moved_bytes;
    weft_coll_plan_t *explicit_plan; /* its transfers, built on first need (cached) */
};

/* algos.c: describes @plan's rings (a ring op, fields set) into @im (order .. dom). */
void weft_coll_i_ring_describe(const weft_coll_layout_t *layout, const weft_coll_plan_t *plan,
                               weft_coll_implicit_t *im);
/* algos.c: emits the transfers of @im into @b (whose layout needs n_members and dom). */
void weft_coll_i_ring_emit(coll_builder_t *b, weft_coll_plan_t *plan,
                           const weft_coll_implicit_t *im);
/* coll_run.c: the efficiency and payload-rate cap of a transfer (@flags, @sharing) under
 * @exec, given the rate of its route (NAN: none, or not looked up) and whether the model is
 * analytical. */
void weft_coll_i_xfer_rate(const weft_coll_exec_t *exec, guint8 flags, guint16 sharing,
                           double route_Bps, gboolean analytical, double *eff, double *cap);

/* layout.c: the ring order of channel @ch: every member once, domains consecutive. */
void weft_coll_i_ring_order(const weft_coll_layout_t *layout, guint ch, guint32 *order);
/* The members of layout domain @d rotated to start at position @start mod g (g entries). */
void weft_coll_i_domain_order(const weft_coll_layout_t *layout, guint d, guint start,
                              guint32 *order);
/* Where channel @ch's ring starts in domain @d: (ch - d) mod g, see layout.c. */
guint weft_coll_i_ring_start(const weft_coll_layout_t *layout, guint d, guint ch);

G_END_DECLS

#endif /* WEFT_COLL_COLL_PRIVATE_H */
