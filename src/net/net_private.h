/* SPDX-License-Identifier: MIT */
/*
 * Private layout of the network (net.c: the record pool, the analytical model
 * and the public functions; flow.c: the flow model). Nothing outside src/net
 * includes this header.
 */
#ifndef WEFT_NET_NET_PRIVATE_H
#define WEFT_NET_NET_PRIVATE_H

#include "net/lmm.h"
#include "net/net.h"

G_BEGIN_DECLS

/* Where a transfer of the flow model is. */
typedef enum {
    PHASE_NONE,    /* analytical, or a flow transfer with no bandwidth phase */
    PHASE_SENDING, /* flow: an LMM variable; event = the end of its bandwidth phase */
    PHASE_LATENCY, /* flow: all bytes sent; event = arrival of the last byte */
} phase_t;

/* One transfer in flight. Records are addressed by index: the pool may move. */
typedef struct {
    weft_net_done_fn done;
    weft_net_done_fn sent; /* NULL: nobody waits for the end of the bandwidth phase */
    void *ctx;
    guint64 tag;
    guint64 bytes;
    weft_event_handle_t event; /* the pending event: completion, or (flow) bandwidth-phase end */
    gboolean in_use;
    const weft_route_t *route; /* NULL for a local copy */
    double cap_Bps;            /* rate cap, INFINITY for none */
    double efficiency;         /* payload bytes per wire byte, (0, 1] */
    guint64 flow_id;           /* the ECMP flow id its route was chosen with */
    gint src, dst;             /* vertex ids */
    weft_route_t *owned;       /* @route when it is a copy owned by the record (one block) */
    /* flow */
    double credited; /* payload bytes already credited to earlier routes (rerouting) */
    phase_t phase;
    guint var;             /* LMM variable while sending */
    gboolean rate_set;     /* a solve has given it a rate */
    gboolean rate_changed; /* its rate changed after the first one: r is integrated */
    double rate_Bps;       /* current rate while sending */
    double remaining;      /* bytes left to send as of @updated */
    weft_time_t updated;   /* when @remaining was last brought up to date */
    weft_time_t start;     /* when the bandwidth phase began */
    weft_time_t send_end;  /* when the pending bandwidth-phase end event fires */
} xfer_t;

/* One (src, dst) pair of vertices (src != dst): a slot of net->pairs, an open-addressing table
 * (linear probing); key 0 (src == dst == 0, never a pair) marks an empty slot. */
typedef struct {
    guint64 key;                /* src << 32 | dst */
    guint64 count;              /* its ECMP flow count: transfers that took a flow id */
    const weft_route_t *fixed;  /* its fixed route, when known to be fixed */
    guint64 epoch;              /* weft_fabric_route_epoch() + 1 when fixed/ECMP is known, else 0 */
    /* a pair with an ECMP choice: the route of each slot (WEFT_FABRIC_ECMP_SLOTS), NULL until
     * looked up; emptied when the epoch changes (owned; NULL for a fixed pair) */
    const weft_route_t **slots;
    /* a timed block's transfers on the pair (weft_net_add_pair_block()): the latest start
     * among them and the block's owner (NULL: none) */
    weft_time_t block_until;
    void *block_owner;
} pair_flow_t;

/* A pair block's transfers not replayed yet (weft_net_add_pair_block()). */
typedef struct {
    weft_time_t next; /* absolute start of b.recs[i]: the key of net->pcur's heap */
    guint64 seq;      /* order of addition: ties of @next replay in it */
    weft_net_pair_block_t b;
    guint i;
    weft_time_t t0;
    guint64 *flow;               /* per pair: the flow id of its next transfer (owned) */
    const weft_route_t ***slots; /* per pair: its entry's slot routes (owned array) */
    void *owner;                 /* the block's owner: its own reservations are no conflict */
} pair_cursor_t;

/* Analytical: a transfer running at its own rate at a port, an entry of port_queue_t.adm. */
typedef struct {
    weft_time_t end; /* the end of its bandwidth phase */
    double u;        /* its wire rate x share over the port's capacity */
} port_adm_t;

/* Analytical: the state of an endpoint port (an edge with an end that is not a switch;
 * weft_net_is_port_edge()), net.h "analytical": the transfers admitted at their own rates
 * (a min-heap by end, and the sum of their u), the end of the last transfer it delayed,
 * and its work queue: when it will have served every byte that arrived in its current
 * busy period at its capacity, as whole picoseconds plus a fraction in [0, 1), so that
 * shares that fill it exactly add up without rounding. */
typedef struct {
    weft_time_t free_ps;
    double free_frac;
    weft_time_t delayed_until; /* end of the last transfer it delayed */
    weft_time_t busy_until;    /* when all of the above are over (rounded up) */
    double u_sum;
    port_adm_t *adm;
    guint n_adm, cap_adm;
} port_queue_t;

/* Analytical: a timed collective's hold on a port (weft_net_hold_ports()). */
typedef struct {
    const GArray *busy; /* its queue's busy periods alone (weft_net_busy_t, offsets), or NULL */
    weft_time_t t0;     /* the collective's start */
} port_hold_t;

/* What a network model does; one static table per model. */
typedef struct {
    const char *name;
    /* Starts the transfer in record @idx (fields filled in, route set; NULL when src == dst). */
    void (*start)(weft_net_t *net, guint32 idx);
    /* Stops the transfer in record @idx without calling its callback (the record stays in use). */
    void (*cancel)(weft_net_t *net, guint32 idx);
} model_ops_t;

/* Analytical: one transfer's bandwidth phase on an edge, an entry of link_t.sending. */
typedef struct {
    weft_time_t end; /* when its last byte leaves the source */
    double usage;    /* its wire rate times its path's share, bytes/s */
} sending_t;

/* Per directed edge statistics. */
/* Link byte counts are fixed point, 2^-16 byte units: integer sums do not depend on the
 * order of the additions, so a collective's bytes credited at once from its isolated run
 * (replay's timed collectives) equal those of its transfers added one by one. */
#define WEFT_NET_BYTES_FX 65536.0

/* Analytical: phases of a timed collective on an edge replayed in start order (link_t.cur). */
typedef struct {
    const weft_net_phase_t *ph;
    guint n, i;
    weft_time_t t0;
} phase_cursor_t;

/* The fields a timed collective's block touches (weft_net_add_blocks(), link_meet(),
 * weft_net_credit()) come first, in one cache line. */
typedef struct {
    /* analytical: a timed collective alone on the edge so far, credited as a whole
     * (weft_net_add_blocks()); restored and replayed phase by phase if anything else starts
     * on the edge before block_end */
    gboolean block_open;
    guint block_n;
    guint n_cur;             /* phase cursors below */
    guint n_sending;         /* phases in @sending (below) */
    guint64 bytes_fx;        /* bytes carried, in 1 / WEFT_NET_BYTES_FX units */
    weft_time_t busy_ps; /* flow: busy time before @since; analytical: of the runs closed */
    double peak_util;    /* both models: the largest usage / capacity seen */
    weft_time_t block_t0, block_end;
    const weft_net_phase_t *block_ph;
    weft_time_t block_saved_busy;
    double block_saved_peak;
    guint cap_cur;
    guint32 stamp;       /* flow: == net->stamp while in net->dirty */
    double usage;        /* flow: usage as of the last solve that touched the edge;
                          * analytical: sum of @sending's usages */
    weft_time_t since;   /* flow: when @usage took its value; analytical: start of the busy
                          * run in progress (while @sending is not empty) */
    /* analytical: the bandwidth phases not yet known to be over, a binary min-heap by end
     * of n_sending entries in an array of cap_sending (NULL until the first); they all
     * overlap the run [since, run_end), which is therefore one interval */
    sending_t *sending;
    guint cap_sending;
    weft_time_t run_end;
    /* analytical: the phases recorded (weft_net_record_phases()), or NULL */
    GArray *rec;
    phase_cursor_t *cur; /* timed collectives' phases not all replayed yet */
} link_t;

/* One change of an edge's usage, for time series. */
typedef struct {
    weft_time_t time;
    double usage;
} usage_point_t;

struct weft_net {
    weft_sim_t *sim;
    const weft_topo_t *topo; /* weft_fabric_topo(fabric), read only */
    weft_fabric_t *fabric;   /* routes and link state (not owned) */
    weft_net_options_t opts;
    const model_ops_t *ops;
    GArray *xfers;    /* of xfer_t */
    GArray *free_idx; /* of guint32: indexes of unused records */
    guint64 in_flight;
    weft_net_stats_t stats;
    guint n_edges;
    link_t *links; /* n_edges */
    /* time series (NULL when disabled): per edge, a GArray of usage_point_t or NULL */
    weft_time_t ts_interval;
    GArray **ts;
    /* flow */
    weft_lmm_t *lmm;           /* constraint id == edge id */
    GArray *var_xfer;          /* of guint32: record index by LMM variable id */
    weft_event_handle_t solve; /* the pending solve event, 0 if none */
    GArray *dirty;             /* of gint: edges whose usage may have changed since the solve */
    guint32 stamp;
    GArray *scratch_cnst; /* of guint: for weft_lmm_variable_new() */
    GArray *scratch_coef; /* of double */
    GError *check_error;

    /* logging (weft-net domain) */
    gboolean log_debug; /* its debug lines on: weft_log_enabled(), read at weft_net_new() */
    guint log_dumped;   /* flow: variables at the last solver dump logged (0: none yet) */
    guint log_peak;     /* flow: most variables at one solve, counted when log_debug */

    GError *stranded; /* the first transfer left with no path by a link going down */
    gboolean freeing; /* weft_net_free() in progress: no more solves */
    /* (src, dst) -> transfers so far of pairs chosen per flow: n_pairs used slots of
     * pairs_mask + 1 (a power of two, at most half full; NULL until the first) */
    pair_flow_t *pairs;
    guint64 pairs_mask, n_pairs;
    /* the edge guard (weft_net_enable_guard()); NULL until enabled */
    guint32 *active;             /* per edge: transfers in flight whose route crosses it */
    weft_time_t *reserved_until; /* per edge: end of the timed collective holding it */
    void **reserved_owner;       /* per edge: its holder (weft_net_reserve_owned()), or NULL */
    weft_net_conflict_fn conflict;
    void *conflict_ctx;
    /* pair blocks (weft_net_add_pair_block()): a binary min-heap by (next, seq) */
    pair_cursor_t *pcur;
    guint n_pcur, cap_pcur;
    guint64 pcur_seq;
    weft_net_pair_conflict_fn pair_conflict;
    void *pair_conflict_ctx;
    GArray *xrec; /* weft_net_record_transfers(): of weft_net_xfer_rec_t, or NULL */
    /* analytical: per edge, whether it is an endpoint port, and its FIFO queue (NULL under
     * flow) */
    guint8 *is_port;
    port_queue_t *ports;
    port_hold_t *holds;  /* per edge (NULL until the first hold) */
    GArray **port_busy;  /* per edge: its queue's busy periods recorded, or NULL (NULL: none) */
};

/* net.c */
void weft_net_i_xfer_finish(weft_net_t *net, guint32 idx);
weft_time_t weft_net_i_time_add(weft_time_t a, weft_time_t b);
void weft_net_i_credit_bytes(weft_net_t *net, const weft_route_t *route, double bytes);
/* The last byte of record @idx has been sent (phase set to PHASE_LATENCY by the
 * caller): calls its sent callback, then calls @arrive (the model's arrival
 * event, ctx = net, data = the index) now when the route latency is 0, or
 * schedules it after the latency. */
void weft_net_i_xfer_sent(weft_net_t *net, guint32 idx, weft_event_fn arrive);

/* flow.c */
extern const model_ops_t weft_net_i_flow_ops;
void weft_net_i_flow_init(weft_net_t *net);
void weft_net_i_flow_clear(weft_net_t *net);
void weft_net_i_flow_set_capacity(weft_net_t *net, gint edge, double capacity_Bps);
/* Brings a link's busy time up to now (for statistics queries). */
weft_time_t weft_net_i_flow_busy(const weft_net_t *net, gint edge);
/* Moves the transfers sending over @edge (now down) to new routes; a transfer with none left
 * stays stalled and, if it is the first, sets net->stranded and stops the simulation. */
void weft_net_i_flow_reroute(weft_net_t *net, gint edge);
/* net.c: the route for src -> dst (NULL when equal) with @flow_id, or a WEFT_NET_ERROR_NO_ROUTE. */
gboolean weft_net_i_lookup_route(weft_net_t *net, gint src, gint dst, guint64 flow_id,
                                 const weft_route_t **route, GError **error);

G_END_DECLS

#endif /* WEFT_NET_NET_PRIVATE_H */
