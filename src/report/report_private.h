/* SPDX-License-Identifier: MIT */
/*
 * The report's layout, shared by report.c (recording, summaries, CSV) and
 * timeline.c (the Chrome trace writer). Not part of the public interface.
 */
#ifndef WEFT_REPORT_REPORT_PRIVATE_H
#define WEFT_REPORT_REPORT_PRIVATE_H

#include "report/report.h"

/* One node of a kept rank, for the timeline (32 bytes). */
typedef struct {
    weft_time_t start_ps, end_ps;
    guint32 rank, node;
    guint32 seq;   /* COLL nodes: the instance's sequence number in its communicator */
    guint8 stream; /* weft_replay_stream_t */
} tl_event_t;

struct weft_report {
    const weft_topo_t *topo;
    const weft_workload_t *wl;
    weft_report_options_t opts; /* timeline_ranks cleared: see rank_mask */
    weft_report_meta_t meta;    /* strings owned */
    weft_replay_observer_t observer;
    guint n_ranks, n_comms;
    guint *rank_gpu;     /* rank -> GPU number */
    guint8 *rank_mask;   /* (nullable) ranks kept in the timeline */
    guint32 *coll_count; /* timeline: collectives finished per (rank, communicator) */
    GArray *colls;       /* weft_report_coll_t; sorted at finish */
    GArray *events;      /* tl_event_t, in the order the replay reported them */
    /* filled by weft_report_finish() */
    gboolean finished;
    weft_rank_result_t *ranks;
    weft_time_t step_ps;
    gboolean mem_known; /* the workload carried memory (replay.h: mem_known) */
    GPtrArray *faults; /* char *, owned: the in-step faults applied (replay.h) */
    GArray *layers;    /* weft_replay_layer_t, a copy of the result's (replay.h) */
    guint64 events_run, n_coll_run, n_p2p;
    guint64 n_coarse; /* collectives run as one aggregate flow (collectives.detail = coarse) */
    guint n_links, links_used;
    weft_net_link_stats_t *links; /* per edge */
    guint *link_order;            /* edges by bytes, descending, ties by edge id */
    double total_link_bytes;
    gboolean series_on;
    guint n_series, n_samples;
    guint *series_edges; /* the series' edges, busiest first */
    double **series;     /* per series edge, n_samples usages in bytes/s */
};

/* Writes @text to @dir/@name (@dir NULL: @name is the path) by weft_output_write();
 * WEFT_REPORT_ERROR_IO with its message. */
gboolean weft_report_i_write_text(const char *dir, const char *name, const char *text,
                                  GError **error);

/* "from->to" vertex names of edge @e. */
char *weft_report_i_link_name(const weft_report_t *rep, guint e);

/* The algorithm's name as the scenario keys spell it ("ring", "nvls_tree"), "custom" for a
 * user's plan (WEFT_REPORT_ALGO_CUSTOM). */
const char *weft_report_i_algo_name(guint8 algo);

/* The protocol's name as the scenario keys spell it ("simple", "ll", "ll128"). */
const char *weft_report_i_proto_name(guint8 proto);

#endif /* WEFT_REPORT_REPORT_PRIVATE_H */
