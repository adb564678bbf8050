/* SPDX-License-Identifier: MIT */
/*
 * Private interface between the INI reader (topo_ini.c) and the cluster
 * builders (topo_build.c). Nothing outside src/topo/ may include it.
 *
 * Each kind declares its keys as weft_key_t rows (core/keyfile.h) over a typed
 * parameter struct of its family, every quantity with its unit, range and
 * default in the row. The reader finds the [cluster] group (or a scenario's
 * group), resolves `kind`, refuses keys that are not the kind's rows, checks
 * every value with the configuration engine and stores it in the struct, then
 * hands the struct to the kind's builder. The builder reads struct fields only;
 * what depends on other keys (a default switch radix from the NIC, the GPUs a
 * fat-tree of k holds) it derives itself, with the checks below for its
 * messages. It adds vertices and links through the public topo API only
 * (weft_topo_add_vertex, weft_topo_add_link, weft_topo_set_vertex_tier). The
 * reader finalizes.
 *
 * A row is required when it has neither a default (.dflt) nor a given flag
 * (.given): a missing required key is WEFT_TOPO_ERROR_KEY "FILE: [group] is
 * missing the key "K"". A row with a given flag and no default is optional and
 * its default is the builder's.
 */
#ifndef WEFT_TOPO_TOPO_BUILD_H
#define WEFT_TOPO_TOPO_BUILD_H

#include <glib.h>

#include "core/keyfile.h"
#include "topo/topo.h"

G_BEGIN_DECLS

/** Where a builder reads its parameters: group @group of @kf, named @origin in messages. */
typedef struct {
    const char *origin; /* file name or "scenario" */
    GKeyFile *kf;
    const char *group; /* "cluster" */
} weft_topo_i_ini_t;

/* The first member of every kind's parameter struct: the keys every kind has. */
typedef struct {
    const char *kind;
    const char *name; /* the cluster's name; the file's base name when unset or empty */
    gboolean name_given;
} weft_topo_i_params_t;

/* The rows of the keys every kind has, first in every kind's table. */
/* clang-format off */
#define WEFT_TOPO_I_COMMON_KEYS \
    {"cluster", "kind", WEFT_KEY_STRING, NULL, "the cluster's builder (doc/clusters.md)", \
     .field = WEFT_KEY_FIELD(weft_topo_i_params_t, kind)}, \
    {"cluster", "name", WEFT_KEY_STRING, NULL, "the cluster's name (default: the file's name)", \
     .field = WEFT_KEY_FIELD(weft_topo_i_params_t, name), \
     .given = WEFT_KEY_FIELD(weft_topo_i_params_t, name_given)}
/* clang-format on */

/* ---- value helpers (topo_ini.c) --------------------------------------------------- */

/* The stripped text of @key, or NULL (WEFT_TOPO_ERROR_KEY when @required). Free with g_free. */
char *weft_topo_i_ini_text(const weft_topo_i_ini_t *c, const char *key, gboolean required,
                           GError **error);

/*
 * The .parse hook of a WEFT_KEY_NUMBER row that holds a count whose range depends
 * on other keys: a count as core/units.h reads one (2048, 1e3), no unit; the
 * builder checks it with weft_topo_i_ini_whole().
 */
gboolean weft_topo_i_parse_count(const char *text, double *value, GError **error);

/*
 * Checks a count @v of @key read by weft_topo_i_parse_count() against bounds known
 * only to the builder: WEFT_TOPO_ERROR_PARSE "expected a whole number",
 * WEFT_TOPO_ERROR_VALUE "must be between @min and @max" (naming the file, the key
 * and its text). @out: the count.
 */
gboolean weft_topo_i_ini_whole(const weft_topo_i_ini_t *c, const char *key, double v, guint min,
                               guint max, guint *out, GError **error);

/*
 * An oversubscription ratio "down:up" such as "1:1", "2:1", "1.5:1" (two positive
 * bare numbers): WEFT_TOPO_ERROR_PARSE for other text, WEFT_TOPO_ERROR_VALUE for a
 * zero or negative side. The message is the reason only; the reader names the key.
 */
gboolean weft_topo_i_parse_ratio(const char *text, double *down, double *up, GError **error);

/*
 * Torus dimensions "4x4x4" (1 to @max_dims whole numbers >= 1 joined by 'x'):
 * WEFT_TOPO_ERROR_PARSE for other text, the message being the reason only.
 */
gboolean weft_topo_i_parse_dims(const char *text, guint max_dims, guint *dims, guint *n_dims,
                                GError **error);

/* ---- builders (topo_build.c) ------------------------------------------------------- */

/* @params: the kind's parameter struct (starting with a weft_topo_i_params_t), filled in. */
typedef gboolean (*weft_topo_i_build_fn)(const weft_topo_i_ini_t *c, const void *params,
                                         weft_topo_t *topo, GError **error);

/**
 * One cluster kind: its builder and its keys, "kind" and "name" first, in the
 * order the valid keys are listed in messages and the values are checked. The
 * .apply hooks of @keys fail with a WEFT_TOPO_ERROR whose message is the reason only.
 */
typedef struct {
    weft_topo_i_build_fn build;
    const weft_key_t *keys;
    guint n_keys;
    gsize params_size; /* sizeof the parameter struct */
} weft_topo_i_kind_t;

/* The names of the kinds ("switch", ..., "gb200-nvl72"); value i is weft_topo_i_kind(i). */
extern const weft_enum_t weft_topo_i_kind_enum;

/* weft_topo_i_kind: (transfer none): the kind of value @kind of weft_topo_i_kind_enum. */
const weft_topo_i_kind_t *weft_topo_i_kind(gint kind);

G_END_DECLS

#endif /* WEFT_TOPO_TOPO_BUILD_H */
