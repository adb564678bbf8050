/* SPDX-License-Identifier: MIT */
/*
 * JSON output: the members weft's JSON files are made of (summary.json of a
 * replay and of `weft train`, `weft topo show --json`, the comm-group file of
 * a generated Chakra trace), added to a json-glib JsonBuilder, and the
 * builder's text.
 *
 * Numbers are written by json-glib's generator (1.6): integers in decimal,
 * doubles by g_ascii_dtostr() ("%.17g": 0.1 is 0.10000000000000001) with ".0"
 * appended when that text has no '.' (2.0; also 1e+20.0 for a whole number
 * of 1e17 or more with one significant digit, which strict JSON parsers
 * refuse; kept so that files stay as they were). JSON
 * has no NaN or infinity, and json-glib would write "nan.0" and "inf.0", so a
 * value that may not be finite goes through weft_json_add_double_or_null().
 *
 * Each adder is called inside an object, after json_builder_begin_object(),
 * and costs O(1) plus the copy of its string.
 */
#ifndef WEFT_CORE_JSON_H
#define WEFT_CORE_JSON_H

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * weft_json_add_int: adds the member @name = @v to the object @b is building.
 * @b: a builder inside an object.
 * @name: the member name.
 * @v: the value (a count, bytes, an id; its unit is in @name).
 */
void weft_json_add_int(JsonBuilder *b, const char *name, gint64 v);

/**
 * weft_json_add_double: adds the member @name = @v, as json-glib writes a
 * double (see above).
 * @b: a builder inside an object.
 * @name: the member name, with the unit ("time_us", "busbw_GBps").
 * @v: the value; finite (NaN or infinity would make the text unreadable JSON).
 */
void weft_json_add_double(JsonBuilder *b, const char *name, double v);

/**
 * weft_json_add_double_or_null: adds the member @name = @v, or @name = null
 * when @v is NaN or infinite ("never", "undefined").
 * @b: a builder inside an object.
 * @name: the member name, with the unit.
 * @v: the value.
 */
void weft_json_add_double_or_null(JsonBuilder *b, const char *name, double v);

/**
 * weft_json_add_string: adds the member @name = "@v" (escaped by json-glib),
 * or @name = null when @v is NULL.
 * @b: a builder inside an object.
 * @name: the member name.
 * @v: (nullable): UTF-8 text, copied.
 */
void weft_json_add_string(JsonBuilder *b, const char *name, const char *v);

/**
 * weft_json_add_bool: adds the member @name = true or false.
 * @b: a builder inside an object.
 * @name: the member name.
 * @v: the value.
 */
void weft_json_add_bool(JsonBuilder *b, const char *name, gboolean v);

/**
 * weft_json_to_text: the text of the value @b has built (every object and
 * array ended).
 * @b: a builder with a complete root value.
 * @pretty: TRUE for a text file: two-space indents, one member a line
 *   ("name" : value), and a trailing newline; FALSE for one line without a
 *   newline (as ASTRA-sim's comm-group files are written).
 * Returns: (transfer full): the text, free with g_free().
 * Time complexity: O(size of the text).
 */
char *weft_json_to_text(JsonBuilder *b, gboolean pretty);

/** Errors of weft_json_parse_file() other than the file's own I/O (G_FILE_ERROR). */
#define WEFT_JSON_ERROR (weft_json_error_quark())
GQuark weft_json_error_quark(void);

typedef enum {
    WEFT_JSON_ERROR_PARSE,     /* not JSON: json-glib's message, with PATH:LINE:COLUMN */
    WEFT_JSON_ERROR_DUPLICATE, /* one object names a member twice */
    WEFT_JSON_ERROR_RANGE,     /* an integer literal beyond a 64-bit integer */
} weft_json_error_t;

/**
 * weft_json_parse_file: reads the JSON file @path with json-glib and refuses
 * what json-glib would accept silently: a member named twice in one object
 * (json-glib keeps the last one; RFC 8259, section 4, leaves it undefined) and
 * an integer literal outside a gint64 (json-glib's scanner wraps it: a 20-digit
 * value reads as -1). Inputs other tools wrote (ASTRA-sim's system JSON,
 * Chakra's comm-group files) go through here.
 * @path: the file.
 * @error: G_FILE_ERROR when it cannot be read; WEFT_JSON_ERROR_PARSE with
 *   json-glib's message otherwise; WEFT_JSON_ERROR_DUPLICATE
 *   ("line L: member "NAME" is given twice in one object");
 *   WEFT_JSON_ERROR_RANGE ("line L: integer 999...: beyond 64 bits"). The
 *   messages do not repeat @path except json-glib's own; callers name the file
 *   and its role.
 * Returns: (transfer full) (nullable): the root node, free with
 *   json_node_unref(); NULL on error.
 * Time complexity: O(size of the file), O(members) memory on top of the tree.
 */
JsonNode *weft_json_parse_file(const char *path, GError **error);

G_END_DECLS

#endif /* WEFT_CORE_JSON_H */
