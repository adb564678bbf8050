/* SPDX-License-Identifier: MIT */
/*
 * JSON members and text over json-glib's JsonBuilder and JsonGenerator (see
 * json.h): the one place weft turns its figures into JSON.
 */
#define G_LOG_DOMAIN "weft-core"

#include "core/json.h"

#include <math.h>

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
