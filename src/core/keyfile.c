/* SPDX-License-Identifier: MIT */
/*
 * Strict INI loading: GKeyFile does the parsing; this file only adds the check
 * that no key is set twice and no group appears twice; and the one engine over
 * configuration tables (weft_key_t). See keyfile.h.
 */
#define G_LOG_DOMAIN "weft-core"

#include "core/keyfile.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/time.h"
#include "core/units.h"

/* Scans @text line by line the way GKeyFile reads it (comments '#', groups "[x]",
 * "key = value"), remembering the line of each group and (group, key). */
static gboolean
find_duplicates(const char *text, const char *origin, GError **error)
{
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_autofree char *group = g_strdup("");
    for (guint i = 0; lines[i] != NULL; i++) {
        g_autofree char *line = g_strstrip(g_strdup(lines[i]));
        if (line[0] == '\0' || line[0] == '#') {
            continue;
        }
        char *id;
        if (line[0] == '[') {
            char *end = strrchr(line, ']');
            if (end == NULL) {
                continue; /* GKeyFile reports it */
            }
            g_free(group);
            group = g_strndup(line + 1, (gsize)(end - line - 1));
            id = g_strdup_printf("[%s]", group);
        } else {
            char *eq = strchr(line, '=');
            if (eq == NULL) {
                continue;
            }
            g_autofree char *key = g_strstrip(g_strndup(line, (gsize)(eq - line)));
            id = g_strdup_printf("%s\x1f%s", group, key);
        }
        gpointer first = g_hash_table_lookup(seen, id);
        if (first != NULL) {
            if (id[0] == '[') {
                g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                            "%s: line %u: group %s appears twice (first on line %u)", origin, i + 1,
                            id, GPOINTER_TO_UINT(first));
            } else {
                g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                            "%s: line %u: key '%s' of [%s] is set twice (first on line %u)", origin,
                            i + 1, strchr(id, '\x1f') + 1, group, GPOINTER_TO_UINT(first));
            }
            g_free(id);
            return FALSE;
        }
        g_hash_table_insert(seen, id, GUINT_TO_POINTER(i + 1));
    }
    return TRUE;
}

/* What a text that GKeyFile refused looks like instead, from its first line that is not
 * blank or a comment: a hint naming the option such a file goes to, or "". */
static const char *
other_format_hint(const char *text)
{
    const char *p = text;
    while (*p != '\0') {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
            p++;
        }
        if (*p != '#') {
            break;
        }
        p += strcspn(p, "\n");
    }
    if (*p == '{' || (*p == '[' && p[1] == '"')) {
        return " (it looks like JSON: an ASTRA-sim system file goes to --system, a comm-group "
               "file to --comm-groups)";
    }
    gsize word = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
    if (word > 0 && p[word] == ':' && (p[word + 1] == ' ' || p[word + 1] == '\n')) {
        return " (it looks like YAML: an ASTRA-sim network file goes to --cluster, with the "
               "workload as --trace)";
    }
    return "";
}

gboolean
weft_keyfile_load_data(GKeyFile *kf, const char *text, const char *origin, GError **error)
{
    g_return_val_if_fail(kf != NULL && text != NULL, FALSE);
    g_autoptr(GError) local = NULL;
    if (!g_key_file_load_from_data(kf, text, (gsize)-1, G_KEY_FILE_NONE, &local)) {
        if (g_error_matches(local, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE)) {
            /* GKeyFile names neither the file nor the format it expected */
            g_set_error(error, local->domain, local->code, "%s: not an INI file: %s%s",
                        origin != NULL ? origin : "(text)", local->message,
                        other_format_hint(text));
        } else {
            g_propagate_error(error, g_steal_pointer(&local));
        }
        return FALSE;
    }
    return find_duplicates(text, origin != NULL ? origin : "(text)", error);
}

gboolean
weft_keyfile_load_file(GKeyFile *kf, const char *path, GError **error)
{
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, error)) {
        return FALSE;
    }
    return weft_keyfile_load_data(kf, text, path, error);
}

/* ---- enum name tables ---------------------------------------------------------------- */

G_DEFINE_QUARK(weft - keyfile - error - quark, weft_keyfile_error)

gboolean
weft_enum_from_name(const weft_enum_t *e, const char *name, gint *value, GError **error)
{
    g_return_val_if_fail(e != NULL && value != NULL, FALSE);
    for (gint i = 0; name != NULL && e->names[i] != NULL; i++) {
        if (strcmp(name, e->names[i]) == 0) {
            *value = i;
            return TRUE;
        }
    }
    g_autofree char *valid = weft_enum_list(e, ", ");
    g_set_error(error, WEFT_KEYFILE_ERROR, WEFT_KEYFILE_ERROR_VALUE,
                "unknown %s \"%s\"; expected one of %s", e->what, name != NULL ? name : "(null)",
                valid);
    return FALSE;
}

const char *
weft_enum_name(const weft_enum_t *e, gint value)
{
    g_return_val_if_fail(e != NULL, "?");
    for (gint i = 0; e->names[i] != NULL; i++) {
        if (i == value) {
            return e->names[i];
        }
    }
    return "?";
}

char *
weft_enum_list(const weft_enum_t *e, const char *sep)
{
    g_return_val_if_fail(e != NULL && sep != NULL, NULL);
    return g_strjoinv(sep, (char **)e->names);
}

/* ---- configuration tables ------------------------------------------------------------- */

/* What GKeyFile reads as a boolean (g_key_file_get_boolean). */
static const char *const bool_names[] = {"true", "false", "1", "0", NULL};

const weft_key_t *
weft_keys_find(const weft_key_t *keys, guint n, const char *group, const char *key)
{
    for (guint i = 0; i < n; i++) {
        if (strcmp(keys[i].group, group) == 0 && strcmp(keys[i].key, key) == 0) {
            return &keys[i];
        }
    }
    return NULL;
}

char *
weft_keys_list(const weft_key_t *keys, guint n, const char *group)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < n; i++) {
        if (strcmp(keys[i].group, group) == 0) {
            g_string_append_printf(s, "%s%s", s->len > 0 ? ", " : "", keys[i].key);
        }
    }
    return g_string_free(s, FALSE);
}

/* Optimal string alignment distance of @a and @b (case-insensitive), both at most
 * WORD_MAX bytes; stops early and returns @cap + 1 once every row exceeds @cap. */
#define WORD_MAX 256
static guint
word_distance(const char *a, const char *b, guint cap)
{
    gsize la = strlen(a), lb = strlen(b);
    if (la > WORD_MAX || lb > WORD_MAX) {
        return cap + 1;
    }
    guint rows[3][WORD_MAX + 1]; /* the rows i - 2, i - 1 and i, cycled */
    for (gsize j = 0; j <= lb; j++) {
        rows[0][j] = (guint)j;
    }
    for (gsize i = 1; i <= la; i++) {
        guint *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];
        cur[0] = (guint)i;
        guint row_min = cur[0];
        for (gsize j = 1; j <= lb; j++) {
            gboolean same = g_ascii_tolower(a[i - 1]) == g_ascii_tolower(b[j - 1]);
            guint d = MIN(MIN(prev[j] + 1, cur[j - 1] + 1), prev[j - 1] + (same ? 0 : 1));
            if (i > 1 && j > 1 && g_ascii_tolower(a[i - 1]) == g_ascii_tolower(b[j - 2]) &&
                g_ascii_tolower(a[i - 2]) == g_ascii_tolower(b[j - 1])) {
                d = MIN(d, prev2[j - 2] + 1);
            }
            cur[j] = d;
            row_min = MIN(row_min, d);
        }
        if (row_min > cap) {
            return cap + 1;
        }
    }
    return rows[la % 3][lb];
}

const char *
weft_nearest_word(const char *given, const char *const *words, guint n)
{
    g_return_val_if_fail(given != NULL && (words != NULL || n == 0), NULL);
    guint cap = MAX(1u, (guint)(strlen(given) / 3));
    const char *best = NULL;
    guint best_d = cap + 1;
    for (guint i = 0; i < n; i++) {
        guint d = word_distance(given, words[i], cap);
        if (d < best_d) {
            best_d = d;
            best = words[i];
        }
    }
    return best;
}

char *
weft_keys_suggest(const weft_key_t *keys, guint n, const char *group, const char *key)
{
    g_autoptr(GPtrArray) words = g_ptr_array_new();
    for (guint i = 0; i < n; i++) {
        if (strcmp(keys[i].group, group) == 0) {
            g_ptr_array_add(words, (gpointer)keys[i].key);
        }
    }
    const char *best = weft_nearest_word(key, (const char *const *)words->pdata, words->len);
    return best != NULL ? g_strdup_printf(" (did you mean %s?)", best) : NULL;
}

gboolean
weft_keys_parse_quantity(weft_key_type_t type, const char *text, double *value, GError **error)
{
    g_return_val_if_fail(text != NULL && value != NULL, FALSE);
    g_autoptr(GError) uerr = NULL;
    gboolean ok = FALSE;
    if (type == WEFT_KEY_RATE) {
        ok = weft_units_parse_rate(text, value, &uerr);
    } else if (type == WEFT_KEY_TIME) {
        weft_time_t ps = 0;
        ok = weft_units_parse_time(text, &ps, &uerr);
        *value = (double)ps;
    } else if (type == WEFT_KEY_BYTES) {
        guint64 b = 0;
        ok = weft_units_parse_bytes(text, &b, &uerr);
        *value = (double)b;
    } else {
        g_return_val_if_reached(FALSE);
    }
    if (!ok) {
        g_set_error_literal(error, WEFT_KEYFILE_ERROR, WEFT_KEYFILE_ERROR_VALUE, uerr->message);
    }
    return ok;
}

static gboolean
value_error(GError **error, const weft_key_t *k, const char *text, const char *why)
{
    g_set_error(error, WEFT_KEYFILE_ERROR, WEFT_KEYFILE_ERROR_VALUE, "%s.%s = \"%s\": %s",
                k->group, k->key, text, why);
    return FALSE;
}

/* Special words, parse hooks, WEFT_KEY_COUNT and WEFT_KEY_UINT64: at the end of the file. */
static gboolean key_is_extended(const weft_key_t *k);
static gboolean check_extended(const weft_key_t *k, const char *text, const char *base_dir,
                               char **normalized, GError **error);
static gboolean apply_extended(const weft_key_t *k, const char *text, void *obj, GError **error);

gboolean
weft_key_check(const weft_key_t *k, const char *text, const char *base_dir, char **normalized,
               GError **error)
{
    g_return_val_if_fail(k != NULL && text != NULL && normalized != NULL, FALSE);
    g_autoptr(GError) err = NULL;
    *normalized = NULL;
    if (text[0] == '\0' && k->dflt == NULL) {
        return TRUE; /* "key =" in an effective configuration: a key without default, unset */
    }
    if (key_is_extended(k)) {
        return check_extended(k, text, base_dir, normalized, error);
    }
    switch (k->type) {
    case WEFT_KEY_PATH:
        if (text[0] != '\0') {
            *normalized = g_canonicalize_filename(text, base_dir);
        }
        return TRUE;
    case WEFT_KEY_STRING:
        if (k->check != NULL && !k->check(text, &err)) {
            return value_error(error, k, text, err->message);
        }
        *normalized = g_strdup(text);
        return TRUE;
    case WEFT_KEY_BOOL:
    case WEFT_KEY_ENUM: {
        const char *const *names = k->type == WEFT_KEY_BOOL ? bool_names : k->choices->names;
        if (!g_strv_contains(names, text)) {
            g_autofree char *valid = g_strjoinv(", ", (char **)names);
            g_autofree char *why = g_strdup_printf("expected one of %s", valid);
            return value_error(error, k, text, why);
        }
        *normalized = g_strdup(text);
        return TRUE;
    }
    case WEFT_KEY_INT:
    case WEFT_KEY_UINT: {
        gint64 v = 0;
        if (!g_ascii_string_to_signed(text, 10, k->imin, k->imax, &v, NULL)) {
            g_autofree char *why = g_strdup_printf(
                "expected a whole number from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT, k->imin,
                k->imax);
            return value_error(error, k, text, why);
        }
        *normalized = g_strdup_printf("%" G_GINT64_FORMAT, v);
        return TRUE;
    }
    case WEFT_KEY_NUMBER: {
        char *end = NULL;
        errno = 0;
        double v = g_ascii_strtod(text, &end);
        if (text[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v)) {
            return value_error(error, k, text, "expected a number");
        }
        if ((k->nmin_open ? v <= k->nmin : v < k->nmin) || v > k->nmax) {
            g_autofree char *why = g_strdup_printf("must be %s %g", k->nmin_open ? ">" : ">=",
                                                   k->nmin);
            return value_error(error, k, text, why);
        }
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        *normalized = g_strdup(g_ascii_dtostr(buf, sizeof buf, v));
        return TRUE;
    }
    case WEFT_KEY_RATE:
    case WEFT_KEY_TIME:
    case WEFT_KEY_BYTES: {
        double v = 0.0;
        if (!weft_keys_parse_quantity(k->type, text, &v, &err)) {
            return value_error(error, k, text, err->message);
        }
        if (k->nmin_open && v <= k->nmin) {
            g_autofree char *why = g_strdup_printf("must be > %g", k->nmin);
            return value_error(error, k, text, why);
        }
        *normalized = g_strdup(text);
        return TRUE;
    }
    case WEFT_KEY_COUNT:
    case WEFT_KEY_UINT64:
        break; /* check_extended() */
    }
    g_return_val_if_reached(FALSE);
}

gboolean
weft_key_apply(const weft_key_t *k, const char *text, void *obj, GError **error)
{
    g_return_val_if_fail(k != NULL && obj != NULL, FALSE);
    if (text == NULL) {
        return TRUE;
    }
    if (key_is_extended(k)) {
        return apply_extended(k, text, obj, error);
    }
    if (k->field != 0) {
        gpointer f = G_STRUCT_MEMBER_P(obj, k->field - 1);
        switch (k->type) {
        case WEFT_KEY_PATH:
        case WEFT_KEY_STRING:
            *(const char **)f = text;
            break;
        case WEFT_KEY_BOOL:
            *(gboolean *)f = strcmp(text, "true") == 0 || strcmp(text, "1") == 0;
            break;
        case WEFT_KEY_ENUM: {
            gint v = 0;
            if (!weft_enum_from_name(k->choices, text, &v, error)) {
                return FALSE;
            }
            *(gint *)f = v;
            break;
        }
        case WEFT_KEY_INT:
        case WEFT_KEY_UINT: {
            gint64 v = 0;
            if (!g_ascii_string_to_signed(text, 10, k->imin, k->imax, &v, NULL)) {
                return value_error(error, k, text, "expected a whole number");
            }
            if (k->type == WEFT_KEY_INT) {
                *(gint64 *)f = v;
            } else {
                *(guint *)f = (guint)v;
            }
            break;
        }
        case WEFT_KEY_NUMBER:
            *(double *)f = g_ascii_strtod(text, NULL);
            break;
        case WEFT_KEY_RATE:
        case WEFT_KEY_TIME:
        case WEFT_KEY_BYTES: {
            double v = 0.0;
            g_autoptr(GError) err = NULL;
            if (!weft_keys_parse_quantity(k->type, text, &v, &err)) {
                return value_error(error, k, text, err->message);
            }
            if (k->type == WEFT_KEY_RATE) {
                *(double *)f = v;
            } else if (k->type == WEFT_KEY_TIME) {
                *(weft_time_t *)f = (weft_time_t)v;
            } else {
                *(guint64 *)f = (guint64)v;
            }
            break;
        }
        case WEFT_KEY_COUNT:
        case WEFT_KEY_UINT64:
            g_return_val_if_reached(FALSE); /* apply_extended() */
        }
    }
    if (k->given != 0) {
        G_STRUCT_MEMBER(gboolean, obj, k->given - 1) = TRUE;
    }
    return k->apply == NULL || k->apply(obj, text, error);
}

void
weft_keys_apply_defaults(const weft_key_t *keys, guint n, void *obj)
{
    for (guint i = 0; i < n; i++) {
        if (keys[i].dflt != NULL && keys[i].field != 0) {
            const weft_key_t plain = {.group = keys[i].group,
                                      .key = keys[i].key,
                                      .type = keys[i].type,
                                      .choices = keys[i].choices,
                                      .imin = keys[i].imin,
                                      .imax = keys[i].imax,
                                      .field = keys[i].field,
                                      .parse = keys[i].parse,
                                      .special = keys[i].special,
                                      .special_value = keys[i].special_value};
            gboolean ok = weft_key_apply(&plain, keys[i].dflt, obj, NULL);
            g_assert(ok); /* a table's default is one of its own values */
        }
    }
}

gboolean
weft_key_is_default(const weft_key_t *k, const char *text)
{
    g_return_val_if_fail(k != NULL, FALSE);
    return g_strcmp0(text, k->dflt) == 0;
}

void
weft_key_format(GString *out, const weft_key_t *k, const char *value)
{
    g_string_append_printf(out, "# %s\n%s =%s%s\n", k->doc, k->key, value != NULL ? " " : "",
                           value != NULL ? value : "");
}

char *
weft_key_value_help(const weft_key_t *k)
{
    g_return_val_if_fail(k != NULL, NULL);
    g_autofree char *what = NULL;
    switch (k->type) {
    case WEFT_KEY_PATH:
        what = g_strdup("PATH");
        break;
    case WEFT_KEY_STRING:
        what = g_strdup("TEXT");
        break;
    case WEFT_KEY_BOOL:
        what = g_strdup("true|false");
        break;
    case WEFT_KEY_ENUM:
        what = weft_enum_list(k->choices, "|");
        break;
    case WEFT_KEY_INT:
    case WEFT_KEY_UINT:
        what = k->imax >= G_MAXUINT32 ? g_strdup_printf(">= %" G_GINT64_FORMAT, k->imin)
                                      : g_strdup_printf("%" G_GINT64_FORMAT "..%" G_GINT64_FORMAT,
                                                        k->imin, k->imax);
        break;
    case WEFT_KEY_NUMBER:
        what = g_strdup_printf("NUMBER %s %g", k->nmin_open ? ">" : ">=", k->nmin);
        break;
    case WEFT_KEY_COUNT:
        what = g_strdup_printf("COUNT >= %" G_GINT64_FORMAT " (e.g. 2048, 1e6)", k->imin);
        break;
    case WEFT_KEY_UINT64:
        what = g_strdup("0..18446744073709551615");
        break;
    case WEFT_KEY_RATE:
        what = g_strdup("RATE (e.g. 400Gb/s)");
        break;
    case WEFT_KEY_TIME:
        what = g_strdup("TIME (e.g. 5us)");
        break;
    case WEFT_KEY_BYTES:
        what = g_strdup("BYTES (e.g. 64MiB)");
        break;
    }
    return k->dflt != NULL ? g_strdup_printf("%s (default %s)", what, k->dflt)
                           : g_steal_pointer(&what);
}

/* ---- subcommand options ---------------------------------------------------------------- */

typedef struct {
    const weft_key_t *keys;
    guint n;
    char **texts;
    GPtrArray *help; /* descriptions made here, freed with the group */
} option_ctx;

static void
option_ctx_free(gpointer p)
{
    option_ctx *ctx = p;
    g_ptr_array_unref(ctx->help);
    g_free(ctx);
}

static gboolean
option_cb(const char *option_name, const char *value, gpointer data, GError **error)
{
    option_ctx *ctx = data;
    gboolean is_long = g_str_has_prefix(option_name, "--");
    const char *name = option_name + (is_long ? 2 : 1);
    for (guint i = 0; i < ctx->n; i++) {
        const weft_key_t *k = &ctx->keys[i];
        if (k->option == NULL || (is_long ? strcmp(k->option, name) != 0
                                          : (k->short_option == 0 || name[0] != k->short_option ||
                                             name[1] != '\0'))) {
            continue;
        }
        const char *text = value != NULL ? value : k->flag_value;
        g_autofree char *norm = NULL;
        g_autoptr(GError) err = NULL;
        g_autofree char *stripped = g_strstrip(g_strdup(text));
        if (!weft_key_check(k, stripped, NULL, &norm, &err)) {
            /* "--tp x: expected a whole number ..." rather than the scenario key */
            const char *why = strstr(err->message, "\": ");
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s %s: %s", k->option,
                        stripped, why != NULL ? why + 3 : err->message);
            return FALSE;
        }
        g_free(ctx->texts[i]);
        ctx->texts[i] = norm != NULL ? g_steal_pointer(&norm) : g_strdup("");
        return TRUE;
    }
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION, "unknown option %s",
                option_name);
    return FALSE;
}

GOptionGroup *
weft_keys_option_group(const weft_key_t *keys, guint n, const char *group, char **texts)
{
    g_return_val_if_fail(keys != NULL && texts != NULL, NULL);
    option_ctx *ctx = g_new0(option_ctx, 1);
    ctx->keys = keys;
    ctx->n = n;
    ctx->texts = texts;
    ctx->help = g_ptr_array_new_with_free_func(g_free);
    GOptionGroup *og = g_option_group_new(group != NULL ? group : "keys", "Configuration",
                                          "Show the configuration options", ctx, option_ctx_free);
    GArray *entries = g_array_new(TRUE, TRUE, sizeof(GOptionEntry));
    for (guint i = 0; i < n; i++) {
        const weft_key_t *k = &keys[i];
        if (k->option == NULL || (group != NULL && strcmp(k->group, group) != 0)) {
            continue;
        }
        GOptionEntry e = {
            .long_name = k->option,
            .short_name = k->short_option,
            .flags = k->flag_value != NULL ? G_OPTION_FLAG_NO_ARG : 0,
            .arg = G_OPTION_ARG_CALLBACK,
            .arg_data = (gpointer)option_cb,
            .description = k->doc,
            .arg_description = k->flag_value != NULL ? NULL : k->arg,
        };
        if (k->flag_value != NULL) {
            /* a flag says which value it stands for: --no-overlap is overlap_dp = false */
            char *help = g_strdup_printf("%s.%s = %s: %s", k->group, k->key, k->flag_value, k->doc);
            g_ptr_array_add(ctx->help, help);
            e.description = help;
        }
        g_array_append_val(entries, e);
    }
    g_option_group_add_entries(og, (const GOptionEntry *)(void *)entries->data);
    g_array_free(entries, TRUE);
    return og;
}

/* ---- special words, parse hooks, counts ------------------------------------------------- */

/* 2^53: up to it, every whole number is exactly a double. */
#define COUNT_MAX 9007199254740992.0

/* The types read here rather than by weft_key_check() and weft_key_apply() above. */
static gboolean
own_syntax(const weft_key_t *k)
{
    return (k->type == WEFT_KEY_NUMBER && k->parse != NULL) || k->type == WEFT_KEY_COUNT ||
           k->type == WEFT_KEY_UINT64;
}

static gboolean
key_is_extended(const weft_key_t *k)
{
    return k->special != NULL || own_syntax(k);
}

/* A WEFT_KEY_COUNT: a count as core/units.h reads one, whole, in [imin, imax or 2^53]. */
static gboolean
parse_count(const weft_key_t *k, const char *text, guint64 *value, GError **error)
{
    double x = 0.0;
    g_autoptr(GError) uerr = NULL;
    if (!weft_units_parse_count(text, &x, &uerr)) {
        return value_error(error, k, text, uerr->message);
    }
    double max = k->imax > 0 ? MIN((double)k->imax, COUNT_MAX) : COUNT_MAX;
    if (x != floor(x) || x < (double)k->imin || x > max) {
        g_autofree char *why =
            k->imax > 0 ? g_strdup_printf("expected a whole number from %" G_GINT64_FORMAT
                                          " to %" G_GINT64_FORMAT,
                                          k->imin, k->imax)
                    : x > max ? g_strdup_printf("expected a whole number from %" G_GINT64_FORMAT
                                                " to 2^53 (%.0f)",
                                                k->imin, COUNT_MAX)
                              : g_strdup_printf("expected a whole number >= %" G_GINT64_FORMAT,
                                                k->imin);
        return value_error(error, k, text, why);
    }
    *value = (guint64)x;
    return TRUE;
}

/* A WEFT_KEY_UINT64: decimal digits, in [imin, G_MAXUINT64]. */
static gboolean
parse_uint64(const weft_key_t *k, const char *text, guint64 *value, GError **error)
{
    guint64 min = k->imin > 0 ? (guint64)k->imin : 0;
    if (!g_ascii_string_to_unsigned(text, 10, min, G_MAXUINT64, value, NULL)) {
        g_autofree char *why = g_strdup_printf(
            "expected a whole number from %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT, min,
            G_MAXUINT64);
        return value_error(error, k, text, why);
    }
    return TRUE;
}

/* A WEFT_KEY_NUMBER with a parse hook; @range: check nmin and nmax as a plain number's are. */
static gboolean
parse_hooked(const weft_key_t *k, const char *text, gboolean range, double *value, GError **error)
{
    g_autoptr(GError) err = NULL;
    double v = 0.0;
    if (!k->parse(text, &v, &err)) {
        return value_error(error, k, text, err->message);
    }
    if (range && (isnan(v) || (k->nmin_open ? v <= k->nmin : v < k->nmin) || v > k->nmax)) {
        g_autofree char *why = g_strdup_printf("must be %s %g", k->nmin_open ? ">" : ">=", k->nmin);
        return value_error(error, k, text, why);
    }
    *value = v;
    return TRUE;
}

static gboolean
is_special(const weft_key_t *k, const char *text)
{
    return k->special != NULL && strcmp(text, k->special) == 0;
}

static gboolean
check_extended(const weft_key_t *k, const char *text, const char *base_dir, char **normalized,
               GError **error)
{
    if (is_special(k, text)) {
        *normalized = g_strdup(text);
        return TRUE;
    }
    g_autoptr(GError) err = NULL;
    gboolean ok;
    if (own_syntax(k)) {
        guint64 u = 0;
        double x = 0.0;
        ok = k->type == WEFT_KEY_COUNT    ? parse_count(k, text, &u, &err)
             : k->type == WEFT_KEY_UINT64 ? parse_uint64(k, text, &u, &err)
                                          : parse_hooked(k, text, TRUE, &x, &err);
        if (ok) {
            *normalized = g_strdup(text);
        }
    } else {
        weft_key_t plain = *k; /* a special word beside a type weft_key_check() reads */
        plain.special = NULL;
        ok = weft_key_check(&plain, text, base_dir, normalized, &err);
    }
    if (ok) {
        return TRUE;
    }
    if (k->special == NULL) {
        g_propagate_error(error, g_steal_pointer(&err));
    } else {
        g_set_error(error, err->domain, err->code, "%s, or %s", err->message, k->special);
    }
    return FALSE;
}

/* Stores .special_value in @k's field @f, converted to the field's type. */
static void
store_special(const weft_key_t *k, gpointer f)
{
    double v = k->special_value;
    switch (k->type) {
    case WEFT_KEY_NUMBER:
    case WEFT_KEY_RATE:
        *(double *)f = v;
        return;
    case WEFT_KEY_TIME:
        *(weft_time_t *)f = (weft_time_t)v;
        return;
    case WEFT_KEY_BYTES:
    case WEFT_KEY_COUNT:
    case WEFT_KEY_UINT64:
        *(guint64 *)f = (guint64)v;
        return;
    case WEFT_KEY_INT:
        *(gint64 *)f = (gint64)v;
        return;
    case WEFT_KEY_UINT:
        *(guint *)f = (guint)v;
        return;
    case WEFT_KEY_BOOL:
    case WEFT_KEY_ENUM:
        *(gint *)f = (gint)v;
        return;
    case WEFT_KEY_PATH:
    case WEFT_KEY_STRING:
        break; /* a word of its own is already a string's value */
    }
    g_return_if_reached();
}

static gboolean
apply_extended(const weft_key_t *k, const char *text, void *obj, GError **error)
{
    gboolean special = is_special(k, text);
    if (!special && !own_syntax(k)) {
        weft_key_t plain = *k;
        plain.special = NULL;
        return weft_key_apply(&plain, text, obj, error);
    }
    if (k->field != 0) {
        gpointer f = G_STRUCT_MEMBER_P(obj, k->field - 1);
        guint64 u = 0;
        double x = 0.0;
        if (special) {
            store_special(k, f);
        } else if (k->type == WEFT_KEY_NUMBER) {
            if (!parse_hooked(k, text, FALSE, &x, error)) {
                return FALSE;
            }
            *(double *)f = x;
        } else {
            if (!(k->type == WEFT_KEY_COUNT ? parse_count(k, text, &u, error)
                                            : parse_uint64(k, text, &u, error))) {
                return FALSE;
            }
            *(guint64 *)f = u;
        }
    }
    if (k->given != 0) {
        G_STRUCT_MEMBER(gboolean, obj, k->given - 1) = TRUE;
    }
    return k->apply == NULL || k->apply(obj, text, error);
}

const char *
weft_key_error_reason(const weft_key_t *k, const char *text, const GError *error)
{
    g_return_val_if_fail(k != NULL && text != NULL && error != NULL, NULL);
    /* the beginning value_error() writes */
    g_autofree char *head = g_strdup_printf("%s.%s = \"%s\": ", k->group, k->key, text);
    return g_str_has_prefix(error->message, head) ? error->message + strlen(head) : error->message;
}
