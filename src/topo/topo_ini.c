/* SPDX-License-Identifier: MIT */
/*
 * weft's own INI cluster files (GLib GKeyFile): one [cluster] group whose `kind`
 * names a builder (topo_build.c: node kinds such as dgx-h100, scale-out fabrics
 * such as fat-tree or dragonfly, and the generic switch, ring, fully-connected)
 * and whose other keys are that builder's parameters, every quantity written
 * with its unit (core/units.h). Unknown groups and keys are errors that list
 * the valid ones, so a typo never silently falls back to a default. A scenario
 * file passes its own [cluster] group through weft_topo_load_keyfile().
 * doc/clusters.md is the user-facing description of each kind.
 */
#define G_LOG_DOMAIN "weft-topo"

#include "topo/topo.h"

#include <math.h>
#include <string.h>

#include "core/keyfile.h"
#include "core/units.h"
#include "topo/topo_build.h"
#include "topo/topo_private.h"

/* ---- typed getters ------------------------------------------------------------- */

char *
weft_topo_i_ini_text(const weft_topo_i_ini_t *c, const char *key, gboolean required, GError **error)
{
    if (!g_key_file_has_key(c->kf, c->group, key, NULL)) {
        if (required) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                        "%s: [%s] is missing the key \"%s\"", c->origin, c->group, key);
        }
        return NULL;
    }
    char *v = g_key_file_get_value(c->kf, c->group, key, NULL);
    return g_strstrip(v);
}

gboolean
weft_topo_i_ini_count(const weft_topo_i_ini_t *c, const char *key, gboolean required, guint dflt,
                      guint min, guint max, guint *out, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autofree char *text = weft_topo_i_ini_text(c, key, required, &local);
    if (text == NULL) {
        if (local != NULL) {
            g_propagate_error(error, g_steal_pointer(&local));
            return FALSE;
        }
        *out = dflt;
        return TRUE;
    }
    double v = 0.0;
    g_autofree char *qkey = g_strconcat(c->group, ".", key, NULL);
    GError *uerr = NULL;
    if (!weft_units_parse_count(text, &v, &uerr)) {
        weft_topo_i_units_error(error, uerr, c->origin, qkey, text);
        return FALSE;
    }
    if (v != floor(v)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                    "%s: %s = \"%s\": expected a whole number", c->origin, qkey, text);
        return FALSE;
    }
    if (v < min || v > max) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s = \"%s\": must be between %u and %u", c->origin, qkey, text, min, max);
        return FALSE;
    }
    *out = (guint)v;
    return TRUE;
}

gboolean
weft_topo_i_ini_rate(const weft_topo_i_ini_t *c, const char *key, double dflt_Bps, double *out_Bps,
                     GError **error)
{
    gboolean required = !(dflt_Bps > 0.0);
    g_autoptr(GError) local = NULL;
    g_autofree char *text = weft_topo_i_ini_text(c, key, required, &local);
    if (text == NULL) {
        if (local != NULL) {
            g_propagate_error(error, g_steal_pointer(&local));
            return FALSE;
        }
        *out_Bps = dflt_Bps;
        return TRUE;
    }
    g_autofree char *qkey = g_strconcat(c->group, ".", key, NULL);
    GError *uerr = NULL;
    if (!weft_units_parse_rate(text, out_Bps, &uerr)) {
        weft_topo_i_units_error(error, uerr, c->origin, qkey, text);
        return FALSE;
    }
    if (!(*out_Bps > 0.0) || !isfinite(*out_Bps)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s = \"%s\": bandwidth must be positive and finite", c->origin, qkey,
                    text);
        return FALSE;
    }
    return TRUE;
}

gboolean
weft_topo_i_ini_time(const weft_topo_i_ini_t *c, const char *key, const char *dflt,
                     weft_time_t *out_ps, GError **error)
{
    g_autofree char *text = weft_topo_i_ini_text(c, key, dflt == NULL, error);
    if (text == NULL) {
        if (dflt == NULL) {
            return FALSE;
        }
        text = g_strdup(dflt);
    }
    g_autofree char *qkey = g_strconcat(c->group, ".", key, NULL);
    GError *uerr = NULL;
    if (!weft_units_parse_time(text, out_ps, &uerr)) {
        weft_topo_i_units_error(error, uerr, c->origin, qkey, text);
        return FALSE;
    }
    return TRUE;
}

gboolean
weft_topo_i_ini_ratio(const weft_topo_i_ini_t *c, const char *key, double *down, double *up,
                      GError **error)
{
    g_autofree char *text = weft_topo_i_ini_text(c, key, FALSE, NULL);
    if (text == NULL) {
        *down = 1.0;
        *up = 1.0;
        return TRUE;
    }
    g_autofree char *qkey = g_strconcat(c->group, ".", key, NULL);
    g_auto(GStrv) parts = g_strsplit(text, ":", -1);
    if (g_strv_length(parts) != 2) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                    "%s: %s = \"%s\": expected a ratio down:up such as 1:1 or 2:1", c->origin, qkey,
                    text);
        return FALSE;
    }
    double v[2];
    for (guint i = 0; i < 2; i++) {
        GError *uerr = NULL;
        if (!weft_units_parse_count(g_strstrip(parts[i]), &v[i], &uerr)) {
            weft_topo_i_units_error(error, uerr, c->origin, qkey, text);
            return FALSE;
        }
        if (!(v[i] > 0.0)) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: %s = \"%s\": both sides of the ratio must be positive", c->origin,
                        qkey, text);
            return FALSE;
        }
    }
    *down = v[0];
    *up = v[1];
    return TRUE;
}

gboolean
weft_topo_i_ini_dims(const weft_topo_i_ini_t *c, const char *key, guint max_dims, guint *dims,
                     guint *n_dims, GError **error)
{
    g_autofree char *text = weft_topo_i_ini_text(c, key, TRUE, error);
    if (text == NULL) {
        return FALSE;
    }
    g_autofree char *qkey = g_strconcat(c->group, ".", key, NULL);
    g_auto(GStrv) parts = g_strsplit(text, "x", -1);
    guint n = g_strv_length(parts);
    if (n == 0 || n > max_dims) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                    "%s: %s = \"%s\": expected 1 to %u sizes joined by 'x', such as 4x4x4",
                    c->origin, qkey, text, max_dims);
        return FALSE;
    }
    for (guint i = 0; i < n; i++) {
        const char *p = g_strstrip(parts[i]);
        char *end = NULL;
        guint64 v = g_ascii_strtoull(p, &end, 10);
        if (p[0] < '0' || p[0] > '9' || end == NULL || *end != '\0' || v == 0 || v > G_MAXINT) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                        "%s: %s = \"%s\": \"%s\" is not a whole number >= 1", c->origin, qkey, text,
                        p);
            return FALSE;
        }
        dims[i] = (guint)v;
    }
    *n_dims = n;
    return TRUE;
}

/* ---- dispatch ----------------------------------------------------------------- */

static char *
valid_keys_text(const weft_topo_i_kind_t *k)
{
    GString *s = g_string_new("kind, name");
    for (guint i = 0; k->keys[i] != NULL; i++) {
        g_string_append_printf(s, ", %s", k->keys[i]);
    }
    return g_string_free(s, FALSE);
}

static char *
valid_kinds_text(const weft_topo_i_kind_t *kinds, guint n)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < n; i++) {
        g_string_append_printf(s, "%s%s", i > 0 ? ", " : "", kinds[i].kind);
    }
    return g_string_free(s, FALSE);
}

weft_topo_t *
weft_topo_load_keyfile(GKeyFile *kf, const char *group, const char *origin, GError **error)
{
    g_return_val_if_fail(kf != NULL, NULL);
    g_return_val_if_fail(group != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    if (origin == NULL) {
        origin = "scenario";
    }
    weft_topo_i_ini_t c = {origin, kf, group};

    if (!g_key_file_has_group(kf, group)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY, "%s: missing group [%s]", origin,
                    group);
        return NULL;
    }
    g_autofree char *kind = weft_topo_i_ini_text(&c, "kind", TRUE, error);
    if (kind == NULL) {
        return NULL;
    }
    guint n_kinds = 0;
    const weft_topo_i_kind_t *kinds = weft_topo_i_kinds(&n_kinds);
    const weft_topo_i_kind_t *k = NULL;
    for (guint i = 0; i < n_kinds; i++) {
        if (g_strcmp0(kinds[i].kind, kind) == 0) {
            k = &kinds[i];
        }
    }
    if (k == NULL) {
        g_autofree char *valid = valid_kinds_text(kinds, n_kinds);
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                    "%s: %s.kind = \"%s\" is unknown; valid kinds: %s", origin, group, kind, valid);
        return NULL;
    }
    g_auto(GStrv) keys = g_key_file_get_keys(kf, group, NULL, NULL);
    for (guint i = 0; keys != NULL && keys[i] != NULL; i++) {
        gboolean ok = g_strcmp0(keys[i], "kind") == 0 || g_strcmp0(keys[i], "name") == 0 ||
                      g_strv_contains(k->keys, keys[i]);
        if (!ok) {
            g_autofree char *valid = valid_keys_text(k);
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                        "%s: unknown key %s.%s for kind %s; valid keys: %s", origin, group, keys[i],
                        kind, valid);
            return NULL;
        }
    }

    g_autofree char *name = weft_topo_i_ini_text(&c, "name", FALSE, NULL);
    if (name == NULL || name[0] == '\0') {
        g_free(name);
        g_autofree char *base = g_path_get_basename(origin);
        char *dot = strrchr(base, '.');
        if (dot != NULL && dot != base) {
            *dot = '\0';
        }
        name = g_strdup(base);
    }
    g_autoptr(weft_topo_t) topo = weft_topo_new(name);
    if (!k->build(&c, topo, error)) {
        return NULL;
    }
    if (!weft_topo_finalize(topo, error)) {
        g_prefix_error(error, "%s: ", origin);
        return NULL;
    }
    return g_steal_pointer(&topo);
}

weft_topo_t *
weft_topo_load_ini(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);

    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) kerr = NULL;
    if (!weft_keyfile_load_file(kf, path, &kerr)) {
        gint code = kerr->domain == G_FILE_ERROR ? WEFT_TOPO_ERROR_IO : WEFT_TOPO_ERROR_PARSE;
        if (g_str_has_prefix(kerr->message, path)) {
            g_set_error_literal(error, WEFT_TOPO_ERROR, code, kerr->message);
        } else {
            g_set_error(error, WEFT_TOPO_ERROR, code, "%s: %s", path, kerr->message);
        }
        return NULL;
    }
    /* A cluster file holds [cluster] only; a scenario file's other groups are the scenario's. */
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    for (guint i = 0; groups[i] != NULL; i++) {
        if (g_strcmp0(groups[i], "cluster") != 0) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                        "%s: unknown group [%s]; valid groups: [cluster]", path, groups[i]);
            return NULL;
        }
    }
    return weft_topo_load_keyfile(kf, "cluster", path, error);
}
