/* SPDX-License-Identifier: MIT */
/*
 * Private interface between the INI reader (topo_ini.c) and the cluster
 * builders (topo_build.c). Nothing outside src/topo/ may include it.
 *
 * The reader finds the [cluster] group (or a scenario's group), checks its
 * keys against the kind's list and hands the group to the kind's builder; the
 * builder reads its parameters through the typed getters below (every quantity
 * with its unit, ranges checked, errors naming origin, key and value) and adds
 * vertices and links through the public topo API only (weft_topo_add_vertex,
 * weft_topo_add_link, weft_topo_set_vertex_tier). The reader finalizes.
 */
#ifndef WEFT_TOPO_TOPO_BUILD_H
#define WEFT_TOPO_TOPO_BUILD_H

#include <glib.h>

#include "topo/topo.h"

G_BEGIN_DECLS

/** Where a builder reads its parameters: group @group of @kf, named @origin in messages. */
typedef struct {
    const char *origin; /* file name or "scenario" */
    GKeyFile *kf;
    const char *group; /* "cluster" */
} weft_topo_i_ini_t;

/* ---- typed getters (topo_ini.c) --------------------------------------------------- */

/* The stripped text of @key, or NULL (WEFT_TOPO_ERROR_KEY when @required). Free with g_free. */
char *weft_topo_i_ini_text(const weft_topo_i_ini_t *c, const char *key, gboolean required,
                           GError **error);

/* A whole number in [@min, @max], no unit; @dflt when absent and not @required. */
gboolean weft_topo_i_ini_count(const weft_topo_i_ini_t *c, const char *key, gboolean required,
                               guint dflt, guint min, guint max, guint *out, GError **error);

/* A rate with its unit, > 0 and finite; @dflt_Bps when absent and @dflt_Bps > 0, else required. */
gboolean weft_topo_i_ini_rate(const weft_topo_i_ini_t *c, const char *key, double dflt_Bps,
                              double *out_Bps, GError **error);

/* A time with its unit, >= 0; the text @dflt when absent and non-NULL, else required. */
gboolean weft_topo_i_ini_time(const weft_topo_i_ini_t *c, const char *key, const char *dflt,
                              weft_time_t *out_ps, GError **error);

/*
 * An oversubscription ratio "down:up" such as "1:1", "2:1", "1.5:1" (two positive
 * bare numbers): WEFT_TOPO_ERROR_PARSE for other text, WEFT_TOPO_ERROR_VALUE for a
 * zero or negative side. "1:1" when absent.
 */
gboolean weft_topo_i_ini_ratio(const weft_topo_i_ini_t *c, const char *key, double *down,
                               double *up, GError **error);

/*
 * Torus dimensions "4x4x4" (1 to @max_dims whole numbers >= 1 joined by 'x'):
 * WEFT_TOPO_ERROR_PARSE for other text. Required.
 */
gboolean weft_topo_i_ini_dims(const weft_topo_i_ini_t *c, const char *key, guint max_dims,
                              guint *dims, guint *n_dims, GError **error);

/* ---- builders (topo_build.c) ------------------------------------------------------- */

typedef gboolean (*weft_topo_i_build_fn)(const weft_topo_i_ini_t *c, weft_topo_t *topo,
                                         GError **error);

/** One cluster kind: its name, its builder, its keys besides "kind" and "name". */
typedef struct {
    const char *kind;
    weft_topo_i_build_fn build;
    const char *const *keys;
} weft_topo_i_kind_t;

/* weft_topo_i_kinds: (transfer none): the table of kinds; @n gets its length. */
const weft_topo_i_kind_t *weft_topo_i_kinds(guint *n);

G_END_DECLS

#endif /* WEFT_TOPO_TOPO_BUILD_H */
