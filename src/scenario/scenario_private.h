/* SPDX-License-Identifier: MIT */
/*
 * What scenario.c (the keys) and scenario_run.c (the run) share.
 */
#ifndef WEFT_SCENARIO_SCENARIO_PRIVATE_H
#define WEFT_SCENARIO_SCENARIO_PRIVATE_H

#include "scenario/scenario.h"

G_BEGIN_DECLS

typedef enum {
    CLUSTER_FILE_INI,
    CLUSTER_FILE_YAML,
    CLUSTER_FILE_GRAPHML,
} cluster_format;

typedef struct {
    char *key;
    char *value;
} kv_pair;

struct weft_scenario {
    char **value;            /* per composed key: final text (paths absolute); NULL: the default */
    char **given;            /* for the report: as typed on the command line; NULL: the default */
    GPtrArray *cluster_own;  /* kv_pair: [cluster] keys of the scenario and --set, in order */
    GPtrArray *cluster_file; /* kv_pair: [cluster] keys of the INI cluster file */
    cluster_format format;   /* of cluster.file, when set */
    char *source;            /* the last scenario file loaded, for messages; NULL: none */
};

/* The [cluster] keys the builders get (kv_pair): the file's, in its order, with the
 * scenario's on top. (transfer full) */
GPtrArray *weft_scenario_i_merged_cluster_keys(const weft_scenario_t *sc);

/* The text of group.key (a key of the table) as typed, for the report; NULL: the default. */
const char *weft_scenario_i_given(const weft_scenario_t *sc, const char *group, const char *key);

/* The stored text of group.key (a key of the table); NULL: the default. */
const char *weft_scenario_i_text(const weft_scenario_t *sc, const char *group, const char *key);

/* "transformer key=value ..." of the [transformer] keys set. (transfer full) */
char *weft_scenario_i_transformer_label(const weft_scenario_t *sc);

/* The workload of a checked scenario @sc (resolved in @cfg) on @topo: the trace, the
 * [transformer] step generated in memory (an unset dp fills @n_gpus GPUs) or the
 * one-collective workload (collective_ranks unset: @n_gpus ranks). *@label gets its name
 * for the report. (transfer full); NULL with WEFT_SCENARIO_ERROR_* or the loaders' errors. */
weft_workload_t *weft_scenario_i_load_workload(const weft_scenario_t *sc,
                                               weft_scenario_config_t *cfg,
                                               const weft_topo_t *topo, guint n_gpus,
                                               char **label, GError **error);

G_END_DECLS

#endif /* WEFT_SCENARIO_SCENARIO_PRIVATE_H */
