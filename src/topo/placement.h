/* SPDX-License-Identifier: MIT */
/*
 * Placement: which GPU each rank runs on.
 *
 * Policies:
 *  - in-order (default): rank r on GPU r;
 *  - round-robin: rank r on host (r mod H), filling each host's GPUs in order,
 *    so consecutive ranks land on different nodes (H = hosts with GPUs; on a
 *    cluster without hosts, every NVLink domain counts as a host);
 *  - random: a uniformly random permutation of the GPUs drawn from a seed
 *    (Fisher-Yates over weft's seeded stream), the first n_ranks of it;
 *  - file: a text file with one GPU per line for ranks 0, 1, ... (a GPU number,
 *    or a vertex name such as "node3/gpu5"; '#' starts a comment).
 * Every policy gives distinct GPUs; more ranks than GPUs is an error.
 */
#ifndef WEFT_TOPO_PLACEMENT_H
#define WEFT_TOPO_PLACEMENT_H

#include <glib.h>

#include "core/keyfile.h"
#include "topo/topo.h"

G_BEGIN_DECLS

typedef enum {
    WEFT_PLACE_IN_ORDER,
    WEFT_PLACE_ROUND_ROBIN,
    WEFT_PLACE_RANDOM,
    WEFT_PLACE_FILE,
} weft_place_policy_t;

/** The placement keys of [workload] (weft_place_keys[]), resolved. */
typedef struct {
    weft_place_policy_t policy; /* workload.placement */
    gint64 seed;                /* workload.placement_seed (placement = random) */
    const char *file;           /* workload.placement_file (placement = file); borrowed */
} weft_place_config_t;

/* Its rows (core/keyfile.h) and the policies' name table. */
extern const weft_key_t weft_place_keys[];
extern const guint weft_place_n_keys;
extern const weft_enum_t weft_place_policy_enum;

/** weft_place_policy_from_name: "in-order", "round-robin", "random", "file"; WEFT_TOPO_ERROR_KEY listing them otherwise. */
gboolean weft_place_policy_from_name(const char *name, weft_place_policy_t *policy, GError **error);

/** weft_place_policy_name: the name of @policy. */
const char *weft_place_policy_name(weft_place_policy_t policy);

/**
 * weft_topo_place:
 * @topo: a finalized cluster.
 * @n_ranks: how many ranks (>= 1).
 * @policy: the policy.
 * @seed: for WEFT_PLACE_RANDOM.
 * @file: for WEFT_PLACE_FILE (else ignored).
 * @error: WEFT_TOPO_ERROR_VALUE (more ranks than GPUs, a GPU used twice, a line
 *   that names no GPU: with file, line and text), WEFT_TOPO_ERROR_IO.
 * Returns: (transfer full): @n_ranks GPU numbers (rank -> GPU), free with g_free(); NULL on error.
 */
guint *weft_topo_place(const weft_topo_t *topo, guint n_ranks, weft_place_policy_t policy,
                       guint64 seed, const char *file, GError **error);

G_END_DECLS

#endif /* WEFT_TOPO_PLACEMENT_H */
