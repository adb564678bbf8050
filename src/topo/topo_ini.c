/* SPDX-License-Identifier: MIT */
/*
 * weft's own INI cluster files (GLib GKeyFile): one [cluster] group whose `kind`
 * names a builder (topo_build.c: node kinds such as dgx-h100, scale-out fabrics
 * such as fat-tree or dragonfly, and the generic switch, ring, fully-connected)
 * and whose other keys are that builder's parameters, every quantity written
 * with its unit (core/units.h). Each kind declares its keys as weft_key_t rows
 * (topo_build.h); this file checks a group against them with the configuration
 * engine (core/keyfile.h): unknown groups and keys are errors that list the valid
 * ones, so a typo never silently falls back to a default; every value is checked
 * and stored in the kind's parameter struct, and a refused one gets topo's wording
 * and error code in one place (value_error()). A scenario file passes its own
 * [cluster] group through weft_topo_load_keyfile(). doc/clusters.md is the
 * user-facing description of each kind.
 */
#define G_LOG_DOMAIN "weft-topo"

#include "topo/topo.h"

#include <math.h>
#include <string.h>

#include "core/keyfile.h"
#include "core/units.h"
#include "topo/topo_build.h"
#include "topo/topo_private.h"

/* ---- values ------------------------------------------------------------------- */

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

/* A core/units failure (@uerr, consumed) as the reason of a WEFT_TOPO_ERROR: VALUE for an
 * out-of-range number, PARSE otherwise (as weft_topo_i_units_error() decides). */
static gboolean
units_reason(GError **error, GError *uerr)
{
    gint code = g_error_matches(uerr, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_RANGE)
                    ? WEFT_TOPO_ERROR_VALUE
                    : WEFT_TOPO_ERROR_PARSE;
    g_set_error_literal(error, WEFT_TOPO_ERROR, code, uerr->message);
    g_error_free(uerr);
    return FALSE;
}

gboolean
weft_topo_i_parse_count(const char *text, double *value, GError **error)
{
    return weft_units_parse_count(text, value, error);
}

gboolean
weft_topo_i_ini_whole(const weft_topo_i_ini_t *c, const char *key, double v, guint min, guint max,
                      guint *out, GError **error)
{
    g_autofree char *text = weft_topo_i_ini_text(c, key, FALSE, NULL);
    if (v != floor(v)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                    "%s: %s.%s = \"%s\": expected a whole number", c->origin, c->group, key, text);
        return FALSE;
    }
    if (v < min || v > max) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s.%s = \"%s\": must be between %u and %u", c->origin, c->group, key, text,
                    min, max);
        return FALSE;
    }
    *out = (guint)v;
    return TRUE;
}

/* The largest down:up (or up:down) ratio: a 1024-port switch with one port on the other side. */
#define WEFT_TOPO_MAX_RATIO 1024.0

gboolean
weft_topo_i_parse_ratio(const char *text, double *down, double *up, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(text, ":", -1);
    if (g_strv_length(parts) != 2) {
        g_set_error_literal(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                            "expected a ratio down:up such as 1:1 or 2:1");
        return FALSE;
    }
    double v[2];
    for (guint i = 0; i < 2; i++) {
        GError *uerr = NULL;
        if (!weft_units_parse_count(g_strstrip(parts[i]), &v[i], &uerr)) {
            return units_reason(error, uerr);
        }
        if (!(v[i] > 0.0)) {
            g_set_error_literal(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                                "both sides of the ratio must be positive");
            return FALSE;
        }
    }
    /* beyond physical plausibility: no switch has more than 1024 ports, so one side can be at
     * most 1024 times the other (1e30:1 used to be taken as given) */
    if (v[0] / v[1] > WEFT_TOPO_MAX_RATIO || v[1] / v[0] > WEFT_TOPO_MAX_RATIO) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "one side of the ratio is more than %.0f times the other (no switch has "
                    "more than %.0f ports)",
                    WEFT_TOPO_MAX_RATIO, WEFT_TOPO_MAX_RATIO);
        return FALSE;
    }
    *down = v[0];
    *up = v[1];
    return TRUE;
}

gboolean
weft_topo_i_parse_dims(const char *text, guint max_dims, guint *dims, guint *n_dims, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(text, "x", -1);
    guint n = g_strv_length(parts);
    if (n == 0 || n > max_dims) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                    "expected 1 to %u sizes joined by 'x', such as 4x4x4", max_dims);
        return FALSE;
    }
    for (guint i = 0; i < n; i++) {
        const char *p = g_strstrip(parts[i]);
        char *end = NULL;
        guint64 v = g_ascii_strtoull(p, &end, 10);
        if (p[0] < '0' || p[0] > '9' || end == NULL || *end != '\0' || v == 0 || v > G_MAXINT) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                        "\"%s\" is not a whole number >= 1", p);
            return FALSE;
        }
        dims[i] = (guint)v;
    }
    *n_dims = n;
    return TRUE;
}

/*
 * The one place where a refused value gets topo's wording: "FILE: group.key =
 * "text": reason" with WEFT_TOPO_ERROR_PARSE for text that is not of the row's
 * syntax (core/units decides for quantities) and WEFT_TOPO_ERROR_VALUE for a value
 * out of the row's range, or "FILE: group.key = "text" is unknown; valid WHATs:
 * a, b" for an enum. @err: the engine's error (WEFT_KEYFILE_ERROR, whose wording
 * is the engine's and is replaced), an .apply hook's (WEFT_TOPO_ERROR, the reason
 * only, kept) or NULL (a rate that overflowed to infinity).
 */
static gboolean
value_error(const weft_topo_i_ini_t *c, const weft_key_t *k, const char *text, const GError *err,
            GError **error)
{
    GError *uerr = NULL;
    g_autoptr(GError) why = NULL;
    double v = 0.0;
    weft_time_t ps = 0;
    if (err != NULL && err->domain == WEFT_TOPO_ERROR) {
        why = g_error_copy(err);
    } else {
        switch (k->type) {
        case WEFT_KEY_ENUM: {
            g_autofree char *valid = weft_enum_list(k->choices, ", ");
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: %s.%s = \"%s\" is unknown; valid %ss: %s", c->origin, c->group, k->key,
                        text, k->choices->what, valid);
            return FALSE;
        }
        case WEFT_KEY_COUNT:
        case WEFT_KEY_NUMBER:
            if (!weft_units_parse_count(text, &v, &uerr)) {
                units_reason(&why, uerr);
            } else if (v != floor(v)) {
                g_set_error_literal(&why, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                                    "expected a whole number");
            } else {
                g_set_error(&why, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                            "must be between %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT, k->imin,
                            k->imax);
            }
            break;
        case WEFT_KEY_RATE:
            if (err != NULL && !weft_units_parse_rate(text, &v, &uerr)) {
                units_reason(&why, uerr);
            } else {
                g_set_error_literal(&why, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                                    "bandwidth must be positive and finite");
            }
            break;
        case WEFT_KEY_TIME:
            if (!weft_units_parse_time(text, &ps, &uerr)) {
                units_reason(&why, uerr);
                break;
            }
            G_GNUC_FALLTHROUGH;
        default:
            /* the rows of topo_build.c use no other type, nor other checks */
            g_set_error_literal(&why, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                                err != NULL ? weft_key_error_reason(k, text, err)
                                            : "invalid value");
            break;
        }
    }
    g_set_error(error, WEFT_TOPO_ERROR, why->code, "%s: %s.%s = \"%s\": %s", c->origin, c->group,
                k->key, text, why->message);
    return FALSE;
}

/*
 * Checks @text of row @k with the engine and stores it in @params. An empty text
 * is not "unset" as in a scenario's effective configuration but a value that must
 * parse (gpus = is an error, as is fabric =); the engine's apply refuses it.
 * @text: borrowed by string fields; must outlive @params.
 */
static gboolean
apply_row(const weft_topo_i_ini_t *c, const weft_key_t *k, const char *text, void *params,
          GError **error)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *norm = NULL;
    if ((text[0] != '\0' && !weft_key_check(k, text, NULL, &norm, &err)) ||
        !weft_key_apply(k, text, params, &err)) {
        return value_error(c, k, text, err, error);
    }
    /* core/units refuses an infinite number, not a finite one times a large unit */
    if (k->type == WEFT_KEY_RATE && !isfinite(G_STRUCT_MEMBER(double, params, k->field - 1))) {
        return value_error(c, k, text, NULL, error);
    }
    return TRUE;
}

/* ---- dispatch ----------------------------------------------------------------- */

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
    gsize n_keys = 0;
    g_auto(GStrv) given = g_key_file_get_keys(kf, group, &n_keys, NULL);
    if (n_keys == 0) {
        g_autofree char *kinds = weft_enum_list(&weft_topo_i_kind_enum, ", ");
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                    "%s: group [%s] is empty: it needs at least the key \"kind\" (%s; "
                    "doc/clusters.md)",
                    origin, group, kinds);
        return NULL;
    }
    g_autofree char *kind = weft_topo_i_ini_text(&c, "kind", TRUE, error);
    if (kind == NULL) {
        return NULL;
    }
    gint kv = 0;
    if (!weft_enum_from_name(&weft_topo_i_kind_enum, kind, &kv, NULL)) {
        g_autofree char *valid = weft_enum_list(&weft_topo_i_kind_enum, ", ");
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                    "%s: %s.kind = \"%s\" is unknown; valid kinds: %s", origin, group, kind, valid);
        return NULL;
    }
    const weft_topo_i_kind_t *k = weft_topo_i_kind(kv);
    const char *rows_group = k->keys[0].group;
    g_auto(GStrv) keys = g_key_file_get_keys(kf, group, NULL, NULL);
    for (guint i = 0; keys != NULL && keys[i] != NULL; i++) {
        if (weft_keys_find(k->keys, k->n_keys, rows_group, keys[i]) == NULL) {
            g_autofree char *valid = weft_keys_list(k->keys, k->n_keys, rows_group);
            g_autofree char *hint = weft_keys_suggest(k->keys, k->n_keys, rows_group, keys[i]);
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                        "%s: unknown key %s.%s%s for kind %s; valid keys: %s", origin, group,
                        keys[i], hint != NULL ? hint : "", kind, valid);
            return NULL;
        }
    }

    /* Every row in order: a given text, else the row's default, else its absence is the
     * builder's default or (for a row with neither) an error. The texts outlive the build. */
    g_autofree void *params = g_malloc0(k->params_size);
    g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < k->n_keys; i++) {
        const weft_key_t *row = &k->keys[i];
        gboolean required = row->dflt == NULL && row->given == 0;
        char *text = weft_topo_i_ini_text(&c, row->key, required, error);
        if (text == NULL && required) {
            return NULL;
        }
        if (text == NULL && row->dflt == NULL) {
            continue;
        }
        gboolean from_default = text == NULL;
        if (from_default) {
            text = g_strdup(row->dflt);
        }
        g_ptr_array_add(texts, text);
        if (!apply_row(&c, row, text, params, error)) {
            return NULL;
        }
        if (from_default && row->given != 0) {
            /* a row's given flag says the file gave it, not that its default applies */
            G_STRUCT_MEMBER(gboolean, params, row->given - 1) = FALSE;
        }
    }

    weft_topo_i_params_t *common = params;
    g_autofree char *name = g_strdup(common->name);
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
    if (!k->build(&c, params, topo, error)) {
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
