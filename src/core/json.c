/* SPDX-License-Identifier: MIT */
/*
 * JSON members and text over json-glib's JsonBuilder and JsonGenerator (see
 * json.h): the one place weft turns its figures into JSON.
 */
#define G_LOG_DOMAIN "weft-core"

#include "core/json.h"

#include <math.h>
#include <string.h>

void
weft_json_add_int(JsonBuilder *b, const char *name, gint64 v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, v);
}

void
weft_json_add_double(JsonBuilder *b, const char *name, double v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_double_value(b, v);
}

void
weft_json_add_double_or_null(JsonBuilder *b, const char *name, double v)
{
    json_builder_set_member_name(b, name);
    if (isfinite(v)) {
        json_builder_add_double_value(b, v);
    } else {
        json_builder_add_null_value(b);
    }
}

void
weft_json_add_string(JsonBuilder *b, const char *name, const char *v)
{
    json_builder_set_member_name(b, name);
    if (v != NULL) {
        json_builder_add_string_value(b, v);
    } else {
        json_builder_add_null_value(b);
    }
}

void
weft_json_add_bool(JsonBuilder *b, const char *name, gboolean v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_boolean_value(b, v);
}

char *
weft_json_to_text(JsonBuilder *b, gboolean pretty)
{
    g_return_val_if_fail(b != NULL, NULL);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    g_return_val_if_fail(root != NULL, NULL);
    g_autoptr(JsonGenerator) gen = json_generator_new();
    json_generator_set_pretty(gen, pretty);
    json_generator_set_root(gen, root);
    char *text = json_generator_to_data(gen, NULL);
    if (!pretty) {
        return text;
    }
    g_autofree char *owned = text;
    return g_strconcat(text, "\n", NULL);
}

G_DEFINE_QUARK(weft-json-error-quark, weft_json_error)

/* An integer literal of JSON (RFC 8259 section 6: -?(0|[1-9][0-9]*)) at @p, outside a
 * string: TRUE when it is followed by a fraction or an exponent (a double) or fits a
 * gint64; FALSE when json-glib would wrap it. @len gets the literal's length. */
static gboolean
int_literal_fits(const char *p, const char *end, gsize *len)
{
    const char *q = p;
    gboolean neg = *q == '-';
    if (neg) {
        q++;
    }
    const char *digits = q;
    while (q < end && g_ascii_isdigit(*q)) {
        q++;
    }
    *len = (gsize)(q - p);
    if (q < end && (*q == '.' || *q == 'e' || *q == 'E')) {
        return TRUE; /* a double: json-glib reads it with g_ascii_strtod */
    }
    while (digits < q - 1 && *digits == '0') {
        digits++;
    }
    gsize n = (gsize)(q - digits);
    const char *limit = neg ? "9223372036854775808" : "9223372036854775807"; /* 2^63, 2^63 - 1 */
    return n < 19 || (n == 19 && strncmp(digits, limit, 19) <= 0);
}

/* The members seen per object while parsing, and the first name given twice. */
typedef struct {
    GHashTable *seen; /* "<object pointer>/<name>": objects live until the parse ends */
    char *twice;      /* the first member name given twice in one object, or NULL */
    guint line;       /* its line */
} member_check_t;

/* JsonParser::object-member, emitted once per member as it is parsed. */
static void
on_object_member(JsonParser *parser, JsonObject *object, char *name, gpointer data)
{
    member_check_t *mc = data;
    char *key = g_strdup_printf("%p/%s", (void *)object, name);
    if (!g_hash_table_add(mc->seen, key) && mc->twice == NULL) {
        mc->twice = g_strdup(name);
        mc->line = json_parser_get_current_line(parser);
    }
}

JsonNode *
weft_json_parse_file(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    g_autofree char *text = NULL;
    gsize size = 0;
    if (!g_file_get_contents(path, &text, &size, error)) {
        return NULL;
    }
    /* integers json-glib would wrap: scan the text outside strings */
    const char *end = text + size;
    guint line = 1;
    gboolean in_string = FALSE;
    for (const char *p = text; p < end; p++) {
        if (*p == '\n') {
            line++;
        }
        if (in_string) {
            if (*p == '\\' && p + 1 < end) {
                p++;
            } else if (*p == '"') {
                in_string = FALSE;
            }
            continue;
        }
        if (*p == '"') {
            in_string = TRUE;
        } else if ((*p == '-' || g_ascii_isdigit(*p)) &&
                   (p == text || !(g_ascii_isalnum(p[-1]) || p[-1] == '.' || p[-1] == '+' ||
                                   p[-1] == '-'))) {
            gsize len = 0;
            if (!int_literal_fits(p, end, &len)) {
                g_set_error(error, WEFT_JSON_ERROR, WEFT_JSON_ERROR_RANGE,
                            "line %u: integer %.*s is beyond a 64-bit integer (|n| < 2^63)", line,
                            (int)MIN(len, 40), p);
                return NULL;
            }
            p += len > 0 ? len - 1 : 0;
        }
    }
    g_autoptr(JsonParser) parser = json_parser_new();
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    member_check_t mc = {seen, NULL, 0};
    g_signal_connect(parser, "object-member", G_CALLBACK(on_object_member), &mc);
    g_autoptr(GError) local = NULL;
    gboolean parsed = json_parser_load_from_data(parser, text, (gssize)size, &local);
    g_autofree char *twice = mc.twice;
    if (!parsed) {
        /* json-glib's messages from data carry LINE:COLUMN without the file */
        if (g_str_has_prefix(local->message, "<data>:")) {
            /* "LINE:COLUMN: ..." once the data's placeholder name goes */
            g_set_error(error, WEFT_JSON_ERROR, WEFT_JSON_ERROR_PARSE, "line %s",
                        local->message + strlen("<data>:"));
        } else {
            /* json-glib's messages without a position ("JSON data must be UTF-8 encoded") */
            g_set_error_literal(error, WEFT_JSON_ERROR, WEFT_JSON_ERROR_PARSE, local->message);
        }
        return NULL;
    }
    if (twice != NULL) {
        g_set_error(error, WEFT_JSON_ERROR, WEFT_JSON_ERROR_DUPLICATE,
                    "line %u: member \"%s\" is given twice in one object (JSON keeps only one)",
                    mc.line, twice);
        return NULL;
    }
    JsonNode *root = json_parser_get_root(parser);
    return root != NULL ? json_node_copy(root) : json_node_new(JSON_NODE_NULL);
}
