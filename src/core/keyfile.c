/* SPDX-License-Identifier: MIT */
/*
 * Strict INI loading: GKeyFile does the parsing; this file only adds the check
 * that no key is set twice and no group appears twice. See keyfile.h.
 */
#define G_LOG_DOMAIN "weft-core"

#include "core/keyfile.h"

#include <string.h>

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

gboolean
weft_keyfile_load_data(GKeyFile *kf, const char *text, const char *origin, GError **error)
{
    g_return_val_if_fail(kf != NULL && text != NULL, FALSE);
    if (!g_key_file_load_from_data(kf, text, (gsize)-1, G_KEY_FILE_NONE, error)) {
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
