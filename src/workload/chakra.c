/* SPDX-License-Identifier: MIT */
/*
 * The Chakra ET reader: finds the files "<prefix>.<rank>.et", reads each whole
 * (through GIO's gzip decompressor when it starts with 0x1f 0x8b), splits the
 * varint-framed stream, unpacks the GlobalMetadata and Node messages with the
 * protobuf-c code generated from chakra.proto, refuses pre-October-2023
 * schemas, and fills the per-rank arrays of a weft_workload_t: attributes,
 * communicators (from METADATA process-group records or a comm-group JSON
 * file, named by the pg_desc of their nodes when there is one, as weft's
 * writer leaves it) and dependencies in CSR form. doc/formats.md states the
 * rules.
 */
#define G_LOG_DOMAIN "weft-workload"

#include "workload/workload.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "core/json.h"
#include "workload/chakra.h"
#include "workload/gen.h"
#include "workload/chakra.pb-c.h"

/* A base-128 varint has at most 10 bytes (ceil(64 / 7)), per the protobuf encoding spec. */
#define VARINT_MAX_BYTES 10

/* The first Chakra schema with a GlobalMetadata version, "0.0.4" (October 2023). */
#define FIRST_VERSION_MAJOR 0
#define FIRST_VERSION_MINOR 0
#define FIRST_VERSION_PATCH 4

/* One rank's file, unpacked. */
typedef struct {
    char *path;
    GPtrArray *nodes; /* ChakraProtoMsg__Node*, file order */
    guint64 resident[WEFT_MEM_N_CATS]; /* weft's writer: GlobalMetadata resident_*_bytes */
    gboolean has_resident;
} rank_file_t;

static void
node_free(gpointer p)
{
    chakra_proto_msg__node__free_unpacked(p, NULL);
}

static void
rank_file_clear(rank_file_t *f)
{
    g_free(f->path);
    if (f->nodes != NULL) {
        g_ptr_array_unref(f->nodes);
    }
}

/*
 * One kind of trace problem the loader works around instead of failing: how
 * many cases, in how many files, and the first case in words (file, rank,
 * node and value), for one line of weft_workload_t.warnings.
 */
typedef struct {
    guint64 count;
    guint files;
    gint last_rank; /* the last rank counted in @files, or -1 */
    char *first;
} tally_t;

/* Counts one case in rank @r; @first (transfer full) describes it, kept if it is the first. */
static void
tally_add(tally_t *t, guint r, guint64 cases, char *first)
{
    t->count += cases;
    if (t->last_rank != (gint)r) {
        t->files++;
        t->last_rank = (gint)r;
    }
    if (t->first == NULL) {
        t->first = first;
    } else {
        g_free(first);
    }
}

/* Everything the loader carries while it builds a workload. */
typedef struct {
    weft_workload_t *wl;
    rank_file_t *files;     /* wl->n_ranks */
    GHashTable *groups;     /* pg_name -> GArray of guint ranks (empty: all ranks) */
    GHashTable *group_from; /* pg_name -> file that defined it (borrowed) */
    GHashTable *comm_index; /* pg_name -> GINT_TO_POINTER(index + 1) into wl->comms */
    GHashTable *pg_desc;    /* pg_name -> its pg_desc (weft's name of the communicator) */
    GHashTable *desc_of;    /* pg_desc -> the pg_name it was first given to (borrowed) */
    tally_t ctrl_dangling;  /* ctrl_deps on a missing node or on the node itself */
    tally_t ctrl_cycle;     /* files whose other ctrl_deps close a cycle: all dropped */
    GArray *cpu_colls;      /* cpu_coll_t: the is_cpu_op COMM_COLL nodes of the rank being read */
    tally_t cpu_as_gpu;     /* is_cpu_op COMM_COLL nodes read as GPU collectives */
    tally_t cpu_host_only;  /* is_cpu_op COMM_COLL nodes with nothing to replay but host time */
} loader_t;

/* An is_cpu_op COMM_COLL node, kept until its file's dependencies tell what it is. */
typedef struct {
    guint node;
    gboolean have_type; /* it has a comm_type */
    char *pg_name;      /* its pg_name ("" when absent) */
} cpu_coll_t;

static void
cpu_coll_clear(gpointer p)
{
    g_free(((cpu_coll_t *)p)->pg_name);
}

/* ---- files ----------------------------------------------------------------- */

/*
 * A hint for a trace prefix that matches no file, for the common mistakes:
 * giving a file (".../x.0.et") or a directory instead of the prefix, or
 * gzip files named ".et.gz". Returns "" when there is nothing to suggest.
 */
static char *
prefix_hint(const char *prefix)
{
    g_autoptr(GRegex) file_re = g_regex_new("^(.*)\\.[0-9]+\\.et(\\.gz)?$", 0, 0, NULL);
    g_autoptr(GMatchInfo) m = NULL;
    if (g_regex_match(file_re, prefix, 0, &m)) {
        g_autofree char *stem = g_match_info_fetch(m, 1);
        return g_strdup_printf("; that is a file name: the prefix is probably '%s'", stem);
    }
    g_autofree char *gz = g_strdup_printf("%s.0.et.gz", prefix);
    if (g_file_test(gz, G_FILE_TEST_EXISTS)) {
        return g_strdup_printf("; %s exists: weft reads gzip-compressed traces but expects them "
                               "named <prefix>.<rank>.et",
                               gz);
    }
    if (g_file_test(prefix, G_FILE_TEST_IS_DIR)) {
        g_autoptr(GDir) d = g_dir_open(prefix, 0, NULL);
        const char *entry;
        while (d != NULL && (entry = g_dir_read_name(d)) != NULL) {
            if (g_str_has_suffix(entry, ".0.et")) {
                g_autofree char *stem = g_strndup(entry, strlen(entry) - strlen(".0.et"));
                g_autofree char *full = g_build_filename(prefix, stem, NULL);
                return g_strdup_printf("; that is a directory: the prefix is probably '%s'",
                                       full);
            }
        }
        return g_strdup("; that is a directory, and it holds no <prefix>.0.et file");
    }
    return g_strdup("");
}

/* Counts the files of @prefix: ranks 0.. contiguous, or an error naming the gap. */
static gboolean
count_ranks(const char *prefix, guint *n_ranks, GError **error)
{
    g_autofree char *dir = g_path_get_dirname(prefix);
    g_autofree char *base = g_path_get_basename(prefix);
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    gsize base_len = strlen(base);
    gint64 max_rank = -1;
    if (d != NULL) {
        const char *entry;
        while ((entry = g_dir_read_name(d)) != NULL) {
            gsize len = strlen(entry);
            if (len <= base_len + 4 || strncmp(entry, base, base_len) != 0 ||
                entry[base_len] != '.' || !g_str_has_suffix(entry, ".et")) {
                continue;
            }
            g_autofree char *num = g_strndup(entry + base_len + 1, len - base_len - 4);
            guint64 rank = 0;
            /* No zero padding: "01" is not rank 1 (Chakra names files <prefix>.<rank>.et). */
            if ((num[0] == '0' && num[1] != '\0') ||
                !g_ascii_string_to_unsigned(num, 10, 0, G_MAXINT32, &rank, NULL)) {
                continue;
            }
            max_rank = MAX(max_rank, (gint64)rank);
        }
    }
    guint n = 0;
    for (;; n++) {
        g_autofree char *p = g_strdup_printf("%s.%u.et", prefix, n);
        if (!g_file_test(p, G_FILE_TEST_EXISTS)) {
            break;
        }
    }
    if (n == 0 && max_rank < 0) {
        g_autofree char *hint = prefix_hint(prefix);
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_IO,
                    "%s: no Chakra trace files match the prefix (expected %s.0.et, %s.1.et, "
                    "...)%s",
                    prefix, prefix, prefix, hint);
        return FALSE;
    }
    if ((gint64)n <= max_rank) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_IO,
                    "%s: rank %u is missing (%s.%u.et does not exist) but rank %" G_GINT64_FORMAT
                    " exists; ranks must be contiguous from 0",
                    prefix, n, prefix, n, max_rank);
        return FALSE;
    }
    *n_ranks = n;
    return TRUE;
}

/* Inflates a gzip stream with GIO's GZlibDecompressor. */
static GBytes *
gunzip(const char *path, const guint8 *data, gsize len, GError **error)
{
    g_autoptr(GZlibDecompressor) z = g_zlib_decompressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP);
    g_autoptr(GInputStream) mem = g_memory_input_stream_new_from_data(data, (gssize)len, NULL);
    g_autoptr(GInputStream) conv = g_converter_input_stream_new(mem, G_CONVERTER(z));
    g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable();
    g_autoptr(GError) local = NULL;
    if (g_output_stream_splice(
            out, conv, G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
            NULL, &local) < 0) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                    "%s: bad gzip stream: %s", path, local->message);
        return NULL;
    }
    return g_memory_output_stream_steal_as_bytes(G_MEMORY_OUTPUT_STREAM(out));
}

/*
 * Reads the frame at *@off: a varint length then that many bytes. Offsets are
 * bytes into the (uncompressed) stream.
 */
static gboolean
next_frame(const char *path, const guint8 *d, gsize len, gsize *off, const guint8 **msg,
           gsize *msg_len, GError **error)
{
    gsize start = *off, p = *off;
    guint64 v = 0;
    for (guint i = 0;; i++) {
        if (i == VARINT_MAX_BYTES) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                        "%s: byte %" G_GSIZE_FORMAT ": corrupt length varint (more than %d "
                        "bytes)",
                        path, start, VARINT_MAX_BYTES);
            return FALSE;
        }
        if (p >= len) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                        "%s: byte %" G_GSIZE_FORMAT ": corrupt length varint (runs off the end "
                        "of the %" G_GSIZE_FORMAT "-byte file)",
                        path, start, len);
            return FALSE;
        }
        guint8 b = d[p++];
        v |= (guint64)(b & 0x7f) << (7 * i);
        if ((b & 0x80) == 0) {
            break;
        }
    }
    if (v == 0) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                    "%s: byte %" G_GSIZE_FORMAT ": message length 0", path, start);
        return FALSE;
    }
    if (v > len - p) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                    "%s: byte %" G_GSIZE_FORMAT ": truncated message: length %" G_GUINT64_FORMAT
                    " but only %" G_GSIZE_FORMAT " bytes are left",
                    path, start, v, len - p);
        return FALSE;
    }
    *msg = d + p;
    *msg_len = (gsize)v;
    *off = p + (gsize)v;
    return TRUE;
}

/* Parses the leading "major.minor.patch" of @s; FALSE if it does not start so. */
static gboolean
parse_version(const char *s, guint64 v[3])
{
    const char *p = s;
    for (int k = 0; k < 3; k++) {
        if (!g_ascii_isdigit(*p)) {
            return FALSE;
        }
        char *end = NULL;
        v[k] = g_ascii_strtoull(p, &end, 10);
        p = end;
        if (k < 2) {
            if (*p != '.') {
                return FALSE;
            }
            p++;
        }
    }
    return TRUE;
}

static char *attr_value_text(const ChakraProtoMsg__AttributeProto *a);

/*
 * The legacy rule: the first message must unpack as a GlobalMetadata whose
 * version (field 1) or, when that is empty, whose string attribute "schema" (the
 * PyTorch converter's) starts with a numeric version of at least 0.0.4. A
 * "<x>-chakra.<y>" schema (ASTRA-sim's text converter, "1.0.2-chakra.0.0.4")
 * is judged by its leading version. Anything else is refused as legacy.
 */
static gboolean
check_metadata(rank_file_t *f, const guint8 *msg, gsize len, GError **error)
{
    const char *path = f->path;
    ChakraProtoMsg__GlobalMetadata *md = chakra_proto_msg__global_metadata__unpack(NULL, len, msg);
    if (md == NULL) {
        ChakraProtoMsg__Node *n = chakra_proto_msg__node__unpack(NULL, len, msg);
        if (n != NULL) {
            chakra_proto_msg__node__free_unpacked(n, NULL);
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_LEGACY,
                        "%s: legacy Chakra schema (version none): the first message is a Node, "
                        "not a GlobalMetadata (traces before October 2023 had none); convert it "
                        "with a current Chakra",
                        path);
        } else {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                        "%s: byte 0: the first message (%" G_GSIZE_FORMAT " bytes) does not "
                        "unpack as a GlobalMetadata",
                        path, len);
        }
        return FALSE;
    }
    const char *version = md->version;
    if (version == NULL || version[0] == '\0') {
        version = NULL;
        for (gsize i = 0; i < md->n_attr; i++) {
            const ChakraProtoMsg__AttributeProto *a = md->attr[i];
            if (g_strcmp0(a->name, "schema") == 0 &&
                a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL) {
                version = a->string_val;
            }
        }
    }
    guint64 v[3] = {0};
    gboolean ok = FALSE;
    if (version != NULL && parse_version(version, v)) {
        const guint64 first[3] = {FIRST_VERSION_MAJOR, FIRST_VERSION_MINOR, FIRST_VERSION_PATCH};
        ok = v[0] != first[0]   ? v[0] > first[0]
             : v[1] != first[1] ? v[1] > first[1]
                                : v[2] >= first[2];
    }
    if (!ok) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_LEGACY,
                    "%s: legacy or unknown Chakra schema (version '%s'): weft reads the schema "
                    "of October 2023 and later (version 0.0.4 or newer)",
                    path, version != NULL ? version : "none");
    }
    /* the rank's resident bytes, as weft's writer records them (chakra_write.c) */
    for (gsize i = 0; ok && i < md->n_attr; i++) {
        const ChakraProtoMsg__AttributeProto *a = md->attr[i];
        const char *an = a->name != NULL ? a->name : "";
        if (!g_str_has_prefix(an, "resident_") || !g_str_has_suffix(an, "_bytes")) {
            continue;
        }
        g_autofree char *cat_name =
            g_strndup(an + strlen("resident_"), strlen(an) - strlen("resident__bytes"));
        weft_mem_cat_t cat;
        gint64 bytes = -1;
        if (a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL &&
            a->uint64_val <= (guint64)G_MAXINT64) {
            bytes = (gint64)a->uint64_val;
        } else if (a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL) {
            bytes = a->int64_val;
        }
        if (!weft_mem_cat_from_name(cat_name, &cat) || bytes < 0) {
            g_autofree char *val = attr_value_text(a);
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        "%s: GlobalMetadata: %s = %s: expected resident_<weights, master, "
                        "gradients, optimizer or activations>_bytes, an integer >= 0",
                        path, an, val);
            ok = FALSE;
            break;
        }
        f->resident[cat] = (guint64)bytes;
        f->has_resident = TRUE;
    }
    chakra_proto_msg__global_metadata__free_unpacked(md, NULL);
    return ok;
}

/* Reads one rank's file into @f->nodes. */
static gboolean
read_rank_file(rank_file_t *f, GError **error)
{
    g_autofree char *raw = NULL;
    gsize raw_len = 0;
    g_autoptr(GError) local = NULL;
    if (!g_file_get_contents(f->path, &raw, &raw_len, &local)) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_IO, "%s", local->message);
        return FALSE;
    }
    g_autoptr(GBytes) inflated = NULL;
    const guint8 *d = (const guint8 *)raw;
    gsize len = raw_len;
    if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b) {
        inflated = gunzip(f->path, d, len, error);
        if (inflated == NULL) {
            return FALSE;
        }
        d = g_bytes_get_data(inflated, &len);
    }
    if (len == 0) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                    "%s: empty file (a Chakra trace starts with a GlobalMetadata message)",
                    f->path);
        return FALSE;
    }
    gsize off = 0, msg_len = 0;
    const guint8 *msg = NULL;
    if (!next_frame(f->path, d, len, &off, &msg, &msg_len, error) ||
        !check_metadata(f, msg, msg_len, error)) {
        return FALSE;
    }
    f->nodes = g_ptr_array_new_with_free_func(node_free);
    while (off < len) {
        gsize at = off;
        if (!next_frame(f->path, d, len, &off, &msg, &msg_len, error)) {
            return FALSE;
        }
        ChakraProtoMsg__Node *n = chakra_proto_msg__node__unpack(NULL, msg_len, msg);
        if (n == NULL) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_CORRUPT,
                        "%s: byte %" G_GSIZE_FORMAT ": message %u (%" G_GSIZE_FORMAT
                        " bytes) does not unpack as a Node",
                        f->path, at, f->nodes->len + 1, msg_len);
            return FALSE;
        }
        g_ptr_array_add(f->nodes, n);
    }
    return TRUE;
}

/* ---- attributes ------------------------------------------------------------ */

#define AV(x) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_##x

/* Where a node is, for messages. */
typedef struct {
    const char *file;
    guint rank;
    const ChakraProtoMsg__Node *node;
} where_t;

#define WHERE_FMT "%s: rank %u: node %" G_GUINT64_FORMAT " (%s)"
#define WHERE_ARGS(w) (w)->file, (w)->rank, (w)->node->id, (w)->node->name

/* Renders an attribute's value for a message. */
static char *
attr_value_text(const ChakraProtoMsg__AttributeProto *a)
{
    switch (a->value_case) {
    case AV(DOUBLE_VAL):
        return g_strdup_printf("%.17g", a->double_val);
    case AV(FLOAT_VAL):
        return g_strdup_printf("%.9g", (double)a->float_val);
    case AV(STRING_VAL):
        return g_strdup_printf("'%s'", a->string_val);
    case AV(_NOT_SET):
        return g_strdup("(no value)");
    default: {
        /* a list or another kind: its field's name in Chakra's schema ("an int64_list") */
        const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(
            &chakra_proto_msg__attribute_proto__descriptor, (unsigned)a->value_case);
        return f != NULL ? g_strdup_printf("a %s", f->name)
                         : g_strdup_printf("field %d", (int)a->value_case);
    }
    }
}

/*
 * Reads an integer attribute from whichever integer member is set (writers
 * differ: int32, int64, uint64, ...); bool counts as 0/1. Floats, strings,
 * lists and values beyond int64 are VALUE errors.
 */
static gboolean
attr_int(const where_t *w, const ChakraProtoMsg__AttributeProto *a, gint64 *out, GError **error)
{
    guint64 u = 0;
    switch (a->value_case) {
    case AV(INT32_VAL):
        *out = a->int32_val;
        return TRUE;
    case AV(INT64_VAL):
        *out = a->int64_val;
        return TRUE;
    case AV(SINT32_VAL):
        *out = a->sint32_val;
        return TRUE;
    case AV(SINT64_VAL):
        *out = a->sint64_val;
        return TRUE;
    case AV(SFIXED32_VAL):
        *out = a->sfixed32_val;
        return TRUE;
    case AV(SFIXED64_VAL):
        *out = a->sfixed64_val;
        return TRUE;
    case AV(UINT32_VAL):
        *out = a->uint32_val;
        return TRUE;
    case AV(FIXED32_VAL):
        *out = a->fixed32_val;
        return TRUE;
    case AV(BOOL_VAL):
        *out = a->bool_val ? 1 : 0;
        return TRUE;
    case AV(UINT64_VAL):
        u = a->uint64_val;
        break;
    case AV(FIXED64_VAL):
        u = a->fixed64_val;
        break;
    case AV(DOUBLE_VAL):
    case AV(FLOAT_VAL): {
        g_autofree char *v = attr_value_text(a);
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    WHERE_FMT ": %s is a float (%s), expected an integer", WHERE_ARGS(w), a->name,
                    v);
        return FALSE;
    }
    default: {
        g_autofree char *v = attr_value_text(a);
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    WHERE_FMT ": %s is not an integer (%s)", WHERE_ARGS(w), a->name, v);
        return FALSE;
    }
    }
    if (u > (guint64)G_MAXINT64) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    WHERE_FMT ": %s = %" G_GUINT64_FORMAT " is too large", WHERE_ARGS(w), a->name,
                    u);
        return FALSE;
    }
    *out = (gint64)u;
    return TRUE;
}

/* An integer attribute within [lo, hi]. */
static gboolean
attr_int_range(const where_t *w, const ChakraProtoMsg__AttributeProto *a, gint64 lo, gint64 hi,
               gint64 *out, GError **error)
{
    if (!attr_int(w, a, out, error)) {
        return FALSE;
    }
    if (*out < lo || *out > hi) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    WHERE_FMT ": %s = %" G_GINT64_FORMAT " is out of range %" G_GINT64_FORMAT
                              "..%" G_GINT64_FORMAT,
                    WHERE_ARGS(w), a->name, *out, lo, hi);
        return FALSE;
    }
    return TRUE;
}

/* A number (integer or float member) as a double, for num_ops. */
static gboolean
attr_number(const where_t *w, const ChakraProtoMsg__AttributeProto *a, double *out, GError **error)
{
    if (a->value_case == AV(DOUBLE_VAL)) {
        *out = a->double_val;
        return TRUE;
    }
    if (a->value_case == AV(FLOAT_VAL)) {
        *out = a->float_val;
        return TRUE;
    }
    gint64 v = 0;
    if (!attr_int(w, a, &v, error)) {
        return FALSE;
    }
    *out = (double)v;
    return TRUE;
}

/* ---- process groups --------------------------------------------------------- */

/* Records @name = @ranks; a second, different definition is an error. */
static gboolean
add_group(loader_t *L, const char *from, const char *name, GArray *ranks, gboolean override,
          GError **error)
{
    GArray *old = g_hash_table_lookup(L->groups, name);
    if (old != NULL && !override) {
        if (old->len != ranks->len ||
            (ranks->len > 0 && memcmp(old->data, ranks->data, ranks->len * sizeof(guint)) != 0)) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        "%s: process group '%s' is defined differently in %s", from, name,
                        (const char *)g_hash_table_lookup(L->group_from, name));
            return FALSE;
        }
        g_array_unref(ranks);
        return TRUE;
    }
    g_hash_table_replace(L->groups, g_strdup(name), ranks);
    g_hash_table_replace(L->group_from, g_strdup(name), (gpointer)from);
    return TRUE;
}

/*
 * Parses the PyTorch converter's process-group records from a METADATA node's
 * inputs.values: Python-literal text such as
 *   ['[{"pg_name": "0", "pg_desc": "default_pg", "ranks": [], ...}, ...]']
 * Quotes may be single, double or backslash-escaped, so the text is
 * normalized (backslashes dropped, ' read as ") and each {...} record is
 * searched for "pg_name" and "ranks". Records without pg_name are skipped.
 */
static gboolean
parse_pg_records(loader_t *L, const where_t *w, const char *text, GError **error)
{
    g_autoptr(GString) norm = g_string_sized_new(strlen(text));
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '\\') {
            continue;
        }
        g_string_append_c(norm, *p == '\'' ? '"' : *p);
    }
    g_autoptr(GRegex) rec_re = g_regex_new("\\{[^{}]*\\}", 0, 0, NULL);
    g_autoptr(GRegex) name_re =
        g_regex_new("\"pg_name\"\\s*:\\s*(?:\"([^\"]*)\"|([0-9]+))", 0, 0, NULL);
    g_autoptr(GRegex) ranks_re = g_regex_new("\"ranks\"\\s*:\\s*\\[([^\\]]*)\\]", 0, 0, NULL);
    g_autoptr(GMatchInfo) rec = NULL;
    g_regex_match(rec_re, norm->str, 0, &rec);
    for (; g_match_info_matches(rec); g_match_info_next(rec, NULL)) {
        g_autofree char *body = g_match_info_fetch(rec, 0);
        g_autoptr(GMatchInfo) nm = NULL;
        g_autoptr(GMatchInfo) rm = NULL;
        if (!g_regex_match(name_re, body, 0, &nm)) {
            continue;
        }
        g_autofree char *name = g_match_info_fetch(nm, 1);
        if (name == NULL || name[0] == '\0') {
            g_free(name);
            name = g_match_info_fetch(nm, 2);
        }
        GArray *ranks = g_array_new(FALSE, FALSE, sizeof(guint));
        if (g_regex_match(ranks_re, body, 0, &rm)) {
            g_autofree char *list = g_match_info_fetch(rm, 1);
            g_auto(GStrv) items = g_strsplit_set(list, ", \t\n", -1);
            for (char **it = items; *it != NULL; it++) {
                if ((*it)[0] == '\0') {
                    continue;
                }
                guint64 r = 0;
                if (!g_ascii_string_to_unsigned(*it, 10, 0, G_MAXINT32, &r, NULL)) {
                    g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                                WHERE_FMT ": process group '%s': rank '%s' is not a rank number",
                                WHERE_ARGS(w), name, *it);
                    g_array_unref(ranks);
                    return FALSE;
                }
                guint rr = (guint)r;
                g_array_append_val(ranks, rr);
            }
        }
        if (!add_group(L, w->file, name, ranks, FALSE, error)) {
            return FALSE;
        }
    }
    return TRUE;
}

/*
 * Checks a group of the comm-group file as soon as it is read, whether or not a
 * collective uses it: ranks in range (except in a one-rank workload, see
 * comm_for()), no rank twice, and "0" / "" (the world) not redefined.
 */
static gboolean
check_json_group(loader_t *L, const char *path, const char *name, GArray *ranks, GError **error)
{
    guint n = L->wl->n_ranks;
    if (name[0] == '\0' || strcmp(name, "0") == 0) {
        gboolean world = ranks->len == 0 || ranks->len == n;
        for (guint i = 0; world && i < ranks->len; i++) {
            world = g_array_index(ranks, guint, i) == i;
        }
        if (!world) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        "%s: group '%s' is the world communicator (all %u ranks in order) and "
                        "cannot be redefined; give the group another name",
                        path, name, n);
            return FALSE;
        }
    }
    g_autofree guint8 *seen = g_new0(guint8, MAX(n, 1));
    for (guint i = 0; i < ranks->len; i++) {
        guint r = g_array_index(ranks, guint, i);
        if (r >= n) {
            if (n == 1) {
                continue;
            }
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        "%s: group '%s' has rank %u but the workload has ranks 0..%u", path, name,
                        r, n - 1);
            return FALSE;
        }
        if (seen[r]) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        "%s: group '%s' lists rank %u twice", path, name, r);
            return FALSE;
        }
        seen[r] = 1;
    }
    return TRUE;
}

/* Reads an ASTRA-sim comm-group JSON file: {"1": [0, 1, 2, 3], "2": [4, 5, 6, 7]}. */
static gboolean
load_group_json(loader_t *L, const char *path, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autoptr(JsonNode) root = weft_json_parse_file(path, &local);
    if (root == NULL) {
        if (local->domain == G_FILE_ERROR) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_IO,
                        "comm-group file %s: %s", path, local->message);
        } else if (local->code == WEFT_JSON_ERROR_PARSE) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        "%s: not a comm-group JSON file (%s)", path, local->message);
        } else {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM, "%s: %s", path,
                        local->message);
        }
        return FALSE;
    }
    if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                    "%s: a comm-group file is an object {\"<pg_name>\": [ranks...], ...}", path);
        return FALSE;
    }
    JsonObject *obj = json_node_get_object(root);
    g_autoptr(GList) members = json_object_get_members(obj); /* file order */
    for (GList *m = members; m != NULL; m = m->next) {
        const char *name = m->data;
        JsonNode *v = json_object_get_member(obj, name);
        if (!JSON_NODE_HOLDS_ARRAY(v)) {
            /* ASTRA-sim's system file is the other JSON its users hand over */
            gboolean system = json_object_has_member(obj, "endpoint-delay") ||
                              json_object_has_member(obj, "scheduling-policy") ||
                              json_object_has_member(obj, "all-reduce-implementation") ||
                              json_object_has_member(obj, "preferred-dataset-splits");
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        "%s: group '%s' is not a list of ranks%s", path, name,
                        system ? " (it looks like an ASTRA-sim system file: that goes to "
                                 "--system; a comm-group file maps group names to ranks, "
                                 "{\"1\": [0, 1]})"
                               : "");
            return FALSE;
        }
        JsonArray *arr = json_node_get_array(v);
        GArray *ranks = g_array_new(FALSE, FALSE, sizeof(guint));
        for (guint i = 0; i < json_array_get_length(arr); i++) {
            JsonNode *e = json_array_get_element(arr, i);
            gint64 r = -1;
            if (JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_INT64) {
                r = json_node_get_int(e);
            }
            if (r < 0 || r > G_MAXINT32) {
                g_autofree char *txt = json_to_string(e, FALSE);
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                            "%s: group '%s': member %u (%s) is not a rank number", path, name, i,
                            txt);
                g_array_unref(ranks);
                return FALSE;
            }
            guint rr = (guint)r;
            g_array_append_val(ranks, rr);
        }
        if (!check_json_group(L, path, name, ranks, error)) {
            g_array_unref(ranks);
            return FALSE;
        }
        if (!add_group(L, path, name, ranks, TRUE, error)) {
            return FALSE;
        }
    }
    return TRUE;
}

/*
 * The communicator index for @pg_name, creating it on first use. "" and "0" are
 * the world. Empty rank lists mean all ranks. When the workload has one rank,
 * every group is reduced to the ranks present (a one-rank trace of a larger
 * job); otherwise a group naming a rank the workload lacks is an error.
 */
static gboolean
comm_for(loader_t *L, const where_t *w, const char *pg_name, gint32 *out, GError **error)
{
    if (pg_name[0] == '\0' || strcmp(pg_name, "0") == 0) {
        *out = 0;
        return TRUE;
    }
    gpointer idx = g_hash_table_lookup(L->comm_index, pg_name);
    if (idx != NULL) {
        *out = GPOINTER_TO_INT(idx) - 1;
        return TRUE;
    }
    GArray *g = g_hash_table_lookup(L->groups, pg_name);
    if (g == NULL) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                    WHERE_FMT ": pg_name '%s' names no known process group (none in a METADATA "
                              "node or the comm-group file)",
                    WHERE_ARGS(w), pg_name);
        return FALSE;
    }
    guint n = L->wl->n_ranks;
    g_autofree guint *ranks = g_new(guint, MAX(MAX(g->len, n), 1));
    guint k = 0;
    if (g->len == 0) {
        for (guint r = 0; r < n; r++) {
            ranks[k++] = r;
        }
    }
    g_autofree guint8 *seen = g_new0(guint8, MAX(n, 1));
    for (guint i = 0; i < g->len; i++) {
        guint r = g_array_index(g, guint, i);
        if (r >= n) {
            if (n == 1) {
                continue;
            }
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        WHERE_FMT ": process group '%s' (from %s) has rank %u but the workload "
                                  "has ranks 0..%u",
                        WHERE_ARGS(w), pg_name,
                        (const char *)g_hash_table_lookup(L->group_from, pg_name), r, n - 1);
            return FALSE;
        }
        if (seen[r]) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        WHERE_FMT ": process group '%s' lists rank %u twice", WHERE_ARGS(w),
                        pg_name, r);
            return FALSE;
        }
        seen[r] = 1;
        ranks[k++] = r;
    }
    weft_comm_t *c = weft_workload_i_comm_new(pg_name, ranks, k);
    /* a one-rank trace keeps the group's size in the job, for weft_workload_set_groups() */
    c->job_size = g->len > k ? g->len : 0;
    g_ptr_array_add(L->wl->comms, c);
    *out = (gint32)L->wl->comms->len - 1;
    g_hash_table_insert(L->comm_index, g_strdup(pg_name), GINT_TO_POINTER(*out + 1));
    return TRUE;
}

/*
 * Records @desc (nullable) as the description of process group @pg_name, which
 * weft's writer gives every COMM_COLL node of a communicator other than the
 * world. Ignored for the world ("" and "0": named "0" always) and when empty. A
 * group given two descriptions, or a description given to two groups, is a COMM
 * error: the name would not say which communicator it is.
 */
static gboolean
note_pg_desc(loader_t *L, const where_t *w, const char *pg_name, const char *desc, GError **error)
{
    if (desc == NULL || desc[0] == '\0' || pg_name[0] == '\0' || strcmp(pg_name, "0") == 0) {
        return TRUE;
    }
    const char *old = g_hash_table_lookup(L->pg_desc, pg_name);
    if (old != NULL) {
        if (strcmp(old, desc) != 0) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        WHERE_FMT ": pg_desc '%s' of process group '%s' differs from the "
                                  "'%s' an earlier node gives it",
                        WHERE_ARGS(w), desc, pg_name, old);
            return FALSE;
        }
        return TRUE;
    }
    const char *other = g_hash_table_lookup(L->desc_of, desc);
    if (other != NULL) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                    WHERE_FMT ": pg_desc '%s' of process group '%s' is already that of process "
                              "group '%s'",
                    WHERE_ARGS(w), desc, pg_name, other);
        return FALSE;
    }
    char *key = g_strdup(pg_name);
    char *val = g_strdup(desc);
    g_hash_table_insert(L->pg_desc, key, val);
    g_hash_table_insert(L->desc_of, val, key);
    return TRUE;
}

/* Names each communicator by its process group's pg_desc, when one was given. */
static void
apply_pg_desc(loader_t *L)
{
    for (guint c = 1; c < L->wl->comms->len; c++) {
        weft_comm_t *comm = g_ptr_array_index(L->wl->comms, c);
        const char *desc = g_hash_table_lookup(L->pg_desc, comm->name);
        if (desc != NULL) {
            g_free(comm->name);
            comm->name = g_strdup(desc);
        }
    }
}

/* ---- nodes ------------------------------------------------------------------ */

static void
rank_trace_alloc(weft_rank_trace_t *t, guint n)
{
    guint m = MAX(n, 1);
    t->n_nodes = n;
    t->id = g_new0(guint64, m);
    t->name = g_new0(const char *, m);
    t->type = g_new0(guint8, m);
    t->is_cpu_op = g_new0(guint8, m);
    t->duration_ps = g_new0(weft_time_t, m);
    t->coll_op = g_new0(guint8, m);
    t->comm_bytes = g_new0(guint64, m);
    t->peer = g_new0(gint32, m);
    t->tag = g_new0(gint64, m);
    t->comm = g_new0(gint32, m);
    t->num_ops = g_new0(double, m);
    t->tensor_bytes = g_new0(guint64, m);
    t->phase = g_new0(guint8, m);
    t->dep_off = g_new0(guint32, n + 1);
}

/* Fills node @i of rank @r from its message. */
static gboolean
fill_node(loader_t *L, guint r, guint i, GError **error)
{
    weft_rank_trace_t *t = &L->wl->ranks[r];
    const ChakraProtoMsg__Node *n = g_ptr_array_index(L->files[r].nodes, i);
    where_t w = {t->file, r, n};
    t->id[i] = n->id;
    t->name[i] = g_string_chunk_insert_const(L->wl->strings, n->name != NULL ? n->name : "");
    if (n->type < CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE ||
        n->type > CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    WHERE_FMT ": node type %d is not one of METADATA (1) .. COMM_COLL (7)",
                    WHERE_ARGS(&w), (int)n->type);
        return FALSE;
    }
    t->type[i] = (guint8)n->type;
    /* duration_micros x 1e6 ps/us must fit int64 picoseconds. */
    if (n->duration_micros > (guint64)(WEFT_TIME_MAX / WEFT_PS_PER_US)) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    WHERE_FMT ": duration_micros %" G_GUINT64_FORMAT " is too large",
                    WHERE_ARGS(&w), n->duration_micros);
        return FALSE;
    }
    t->duration_ps[i] = (weft_time_t)n->duration_micros * WEFT_PS_PER_US;
    t->peer[i] = -1;
    t->comm[i] = -1;

    gboolean have_type = FALSE, have_peer = FALSE;
    gint64 comm_type = 0;
    const char *pg_name = "";
    const char *pg_desc = NULL;
    gboolean have_phase = FALSE;
    guint16 involved = 0; /* involved_dim, workload.h */
    g_autofree char *pg_buf = NULL;
    for (gsize k = 0; k < n->n_attr; k++) {
        const ChakraProtoMsg__AttributeProto *a = n->attr[k];
        const char *an = a->name != NULL ? a->name : "";
        gint64 v = 0;
        gboolean comm_node = n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE ||
                             n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE ||
                             n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE;
        if (strcmp(an, "is_cpu_op") == 0) {
            if (!attr_int_range(&w, a, 0, 1, &v, error)) {
                return FALSE;
            }
            t->is_cpu_op[i] = (guint8)v;
        } else if (strcmp(an, "comm_type") == 0 &&
                   n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE) {
            /* SEND/RECV nodes of ASTRA-sim's converters carry comm_type 5/6: ignored. */
            if (!attr_int_range(&w, a, 0, G_MAXUINT8, &comm_type, error)) {
                return FALSE;
            }
            have_type = TRUE;
        } else if (strcmp(an, "comm_size") == 0 && comm_node) {
            if (!attr_int_range(&w, a, 0, G_MAXINT64, &v, error)) {
                return FALSE;
            }
            t->comm_bytes[i] = (guint64)v;
        } else if ((strcmp(an, "comm_dst") == 0 &&
                    n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE) ||
                   (strcmp(an, "comm_src") == 0 &&
                    n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE)) {
            if (!attr_int_range(&w, a, G_MININT32, G_MAXINT32, &v, error)) {
                return FALSE;
            }
            t->peer[i] = (gint32)v;
            have_peer = TRUE;
        } else if (strcmp(an, "comm_tag") == 0 && comm_node) {
            if (!attr_int(&w, a, &v, error)) {
                return FALSE;
            }
            t->tag[i] = v;
        } else if (strcmp(an, "involved_dim") == 0 &&
                   n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE) {
            /* Workload.cc issue_coll_comm() exits on any other type */
            if (a->value_case != AV(BOOL_LIST) || a->bool_list == NULL) {
                g_autofree char *val = attr_value_text(a);
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            WHERE_FMT ": involved_dim is not a bool_list (%s)", WHERE_ARGS(&w),
                            val);
                return FALSE;
            }
            if (a->bool_list->n_values > 8) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            WHERE_FMT ": involved_dim has %zu entries, weft reads at most 8 "
                                      "network dimensions",
                            WHERE_ARGS(&w), a->bool_list->n_values);
                return FALSE;
            }
            guint16 mask = 0;
            for (gsize b = 0; b < a->bool_list->n_values; b++) {
                mask |= a->bool_list->values[b] ? (guint16)(1u << b) : 0;
            }
            involved = (guint16)((a->bool_list->n_values << 8) | mask);
        } else if (strcmp(an, "pg_name") == 0) {
            if (a->value_case == AV(STRING_VAL)) {
                pg_name = a->string_val;
            } else {
                if (!attr_int_range(&w, a, 0, G_MAXINT64, &v, error)) {
                    return FALSE;
                }
                pg_buf = g_strdup_printf("%" G_GINT64_FORMAT, v);
                pg_name = pg_buf;
            }
        } else if (strcmp(an, "pg_desc") == 0 &&
                   n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE) {
            if (a->value_case != AV(STRING_VAL)) {
                g_autofree char *val = attr_value_text(a);
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            WHERE_FMT ": pg_desc is not a string (%s)", WHERE_ARGS(&w), val);
                return FALSE;
            }
            pg_desc = a->string_val;
        } else if (strcmp(an, "layer") == 0 || strcmp(an, "phase") == 0) {
            /* weft's writer: the node's layer and phase (workload.h), so that they round-trip */
            weft_phase_t ph = WEFT_PHASE_OTHER;
            if (a->value_case != AV(STRING_VAL) ||
                (an[0] == 'p' && !weft_phase_from_name(a->string_val, &ph))) {
                g_autofree char *val = attr_value_text(a);
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            WHERE_FMT ": %s = %s: expected %s", WHERE_ARGS(&w), an, val,
                            an[0] == 'p' ? "a phase: forward, recompute, igrad, wgrad, "
                                           "optimizer or other"
                                         : "a string (the layer's name)");
                return FALSE;
            }
            if (an[0] == 'p') {
                t->phase[i] = (guint8)ph;
                have_phase = TRUE;
            } else {
                guint16 id = weft_workload_layer_id(L->wl, a->string_val);
                if (id != 0 && t->layer == NULL) {
                    t->layer = g_new0(guint16, MAX(t->n_nodes, 1));
                }
                if (t->layer != NULL) {
                    t->layer[i] = id;
                }
            }
        } else if (strcmp(an, "mem_alloc_bytes") == 0 || strcmp(an, "mem_free_bytes") == 0 ||
                   strcmp(an, "mem_category") == 0) {
            /* weft's writer: the node's memory effect (workload.h), so that it round-trips */
            weft_mem_cat_t cat = WEFT_MEM_ACTIVATIONS;
            if (an[4] == 'c') {
                if (a->value_case != AV(STRING_VAL) || !weft_mem_cat_from_name(a->string_val, &cat)) {
                    g_autofree char *val = attr_value_text(a);
                    g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                                WHERE_FMT ": mem_category = %s: expected weights, master, "
                                "gradients, optimizer or activations",
                                WHERE_ARGS(&w), val);
                    return FALSE;
                }
            } else if (!attr_int_range(&w, a, 0, G_MAXINT64, &v, error)) {
                return FALSE;
            }
            if (t->mem_alloc == NULL) {
                t->mem_alloc = g_new0(guint64, MAX(t->n_nodes, 1));
                t->mem_free = g_new0(guint64, MAX(t->n_nodes, 1));
                t->mem_cat = g_new0(guint8, MAX(t->n_nodes, 1));
                memset(t->mem_cat, WEFT_MEM_ACTIVATIONS, MAX(t->n_nodes, 1));
            }
            if (an[4] == 'c') {
                t->mem_cat[i] = (guint8)cat;
            } else if (an[4] == 'a') {
                t->mem_alloc[i] = (guint64)v;
            } else {
                t->mem_free[i] = (guint64)v;
            }
        } else if (strcmp(an, "num_ops") == 0) {
            if (!attr_number(&w, a, &t->num_ops[i], error)) {
                return FALSE;
            }
            /* a count of operations: the roofline divides it by the GPU's peak */
            if (!(t->num_ops[i] >= 0.0) || !isfinite(t->num_ops[i])) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                            WHERE_FMT ": num_ops = %g: expected a finite count >= 0",
                            WHERE_ARGS(&w), t->num_ops[i]);
                return FALSE;
            }
        } else if (strcmp(an, "tensor_size") == 0) {
            if (!attr_int_range(&w, a, 0, G_MAXINT64, &v, error)) {
                return FALSE;
            }
            t->tensor_bytes[i] = (guint64)v;
        }
    }

    if (!have_phase) {
        t->phase[i] = (guint8)weft_phase_guess(t->name[i]);
    }
    switch (n->type) {
    case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE:
        t->coll_op[i] = (guint8)comm_type;
        if (!note_pg_desc(L, &w, pg_name, pg_desc, error)) {
            return FALSE;
        }
        if (t->is_cpu_op[i]) {
            /* the host side of a GPU collective, or one whose flag is mis-set: the file's
             * dependencies tell (resolve_cpu_colls()) */
            cpu_coll_t c = {i, have_type, g_strdup(pg_name)};
            g_array_append_val(L->cpu_colls, c);
            break;
        }
        if (!have_type) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        WHERE_FMT ": COMM_COLL node without comm_type", WHERE_ARGS(&w));
            return FALSE;
        }
        if (!comm_for(L, &w, pg_name, &t->comm[i], error)) {
            return FALSE;
        }
        /* Workload.cc extract_comm_group(): a pg_name other than "" and "0" names a group
         * whose own plan decides the dimensions; involved_dim is ignored then */
        if (involved != 0 && (pg_name[0] == '\0' || strcmp(pg_name, "0") == 0)) {
            if (t->involved_dim == NULL) {
                t->involved_dim = g_new0(guint16, MAX(t->n_nodes, 1));
            }
            t->involved_dim[i] = involved;
        }
        break;
    case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE:
    case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE:
        if (!have_peer) {
            g_set_error(
                error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                WHERE_FMT ": %s node without %s", WHERE_ARGS(&w),
                n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE ? "COMM_SEND" : "COMM_RECV",
                n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE ? "comm_dst" : "comm_src");
            return FALSE;
        }
        break;
    default:
        break;
    }
    return TRUE;
}

static int
cmp_u32(gconstpointer a, gconstpointer b)
{
    guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;
    return (x > y) - (x < y);
}

/* Builds CSR predecessor lists (sorted, deduplicated) of @t from @edges per node. */
static void
build_csr(guint n, GArray **edges, guint32 *off, guint32 **deps)
{
    off[0] = 0;
    for (guint i = 0; i < n; i++) {
        GArray *e = edges[i];
        if (e->len > 1) {
            g_array_sort(e, cmp_u32);
            guint k = 1;
            for (guint j = 1; j < e->len; j++) {
                if (g_array_index(e, guint32, j) != g_array_index(e, guint32, k - 1)) {
                    g_array_index(e, guint32, k++) = g_array_index(e, guint32, j);
                }
            }
            g_array_set_size(e, k);
        }
        off[i + 1] = off[i] + e->len;
    }
    *deps = g_new(guint32, MAX(off[n], 1));
    for (guint i = 0; i < n; i++) {
        if (edges[i]->len > 0) {
            memcpy(*deps + off[i], edges[i]->data, edges[i]->len * sizeof(guint32));
        }
    }
}

static void
free_edges(GArray **edges, guint n)
{
    for (guint i = 0; i < n; i++) {
        g_array_unref(edges[i]);
    }
    g_free(edges);
}

/*
 * Maps the node ids of rank @r to node indexes; an id used twice is a DEP error.
 * Returns: (transfer full): guint64 id (borrowed from the trace) -> GUINT_TO_POINTER(index).
 */
static GHashTable *
index_ids(loader_t *L, guint r, GError **error)
{
    weft_rank_trace_t *t = &L->wl->ranks[r];
    g_autoptr(GHashTable) index = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < t->n_nodes; i++) {
        guint64 *key = &t->id[i];
        gpointer prev = NULL;
        if (g_hash_table_lookup_extended(index, key, NULL, &prev)) {
            guint j = GPOINTER_TO_UINT(prev);
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_DEP,
                        "%s: rank %u: node id %" G_GUINT64_FORMAT " is used twice: by '%s' "
                        "(message %u) and '%s' (message %u)",
                        t->file, r, t->id[i], t->name[j], j + 2, t->name[i], i + 2);
            return NULL;
        }
        g_hash_table_insert(index, key, GUINT_TO_POINTER(i));
    }
    return g_steal_pointer(&index);
}

/*
 * Resolves data_deps and the sound ctrl_deps of rank @r into CSR. A ctrl_dep on
 * a missing node or on the node itself is dropped alone (L->ctrl_dangling); if
 * the rest close a cycle the data_deps alone do not have, all the rest are
 * dropped too (L->ctrl_cycle), as before: see workload.h.
 */
static gboolean
resolve_deps(loader_t *L, guint r, GHashTable *index, GError **error)
{
    weft_rank_trace_t *t = &L->wl->ranks[r];
    GPtrArray *nodes = L->files[r].nodes;
    guint n = t->n_nodes;
    GArray **data = g_new(GArray *, MAX(n, 1));
    GArray **both = g_new(GArray *, MAX(n, 1));
    for (guint i = 0; i < n; i++) {
        data[i] = g_array_new(FALSE, FALSE, sizeof(guint32));
        both[i] = g_array_new(FALSE, FALSE, sizeof(guint32));
    }
    gboolean ok = TRUE;
    guint n_kept = 0, n_dangling = 0;
    char *first_dangling = NULL;
    for (guint i = 0; i < n && ok; i++) {
        const ChakraProtoMsg__Node *m = g_ptr_array_index(nodes, i);
        for (gsize k = 0; k < m->n_data_deps; k++) {
            gpointer v = NULL;
            if (!g_hash_table_lookup_extended(index, &m->data_deps[k], NULL, &v)) {
                g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_DEP,
                            "%s: rank %u: node %" G_GUINT64_FORMAT " (%s): data_deps names node "
                            "%" G_GUINT64_FORMAT ", which is not in the file",
                            t->file, r, m->id, t->name[i], m->data_deps[k]);
                ok = FALSE;
                break;
            }
            guint32 j = GPOINTER_TO_UINT(v);
            g_array_append_val(data[i], j);
            g_array_append_val(both[i], j);
        }
        for (gsize k = 0; k < m->n_ctrl_deps && ok; k++) {
            gpointer v = NULL;
            gboolean found = g_hash_table_lookup_extended(index, &m->ctrl_deps[k], NULL, &v);
            if (!found || GPOINTER_TO_UINT(v) == i) {
                if (n_dangling++ == 0) {
                    first_dangling =
                        found ? g_strdup_printf("%s: rank %u: node %" G_GUINT64_FORMAT
                                                " (%s): a ctrl_dep on the node itself",
                                                t->file, r, m->id, t->name[i])
                              : g_strdup_printf("%s: rank %u: node %" G_GUINT64_FORMAT
                                                " (%s): a ctrl_dep on node %" G_GUINT64_FORMAT
                                                ", which is not in the file",
                                                t->file, r, m->id, t->name[i], m->ctrl_deps[k]);
                }
                continue;
            }
            guint32 j = GPOINTER_TO_UINT(v);
            g_array_append_val(both[i], j);
            n_kept++;
        }
    }
    if (ok) {
        guint32 *deps_data = NULL, *deps_both = NULL;
        g_autofree guint32 *off_both = g_new(guint32, n + 1);
        build_csr(n, data, t->dep_off, &deps_data);
        build_csr(n, both, off_both, &deps_both);
        guint on_cycle = 0;
        gboolean cycle = n_kept > 0 &&
                         !weft_workload_i_toposort(n, off_both, deps_both, &on_cycle) &&
                         weft_workload_i_toposort(n, t->dep_off, deps_data, NULL);
        if (!cycle) {
            memcpy(t->dep_off, off_both, (n + 1) * sizeof(guint32));
            t->deps = deps_both;
            g_free(deps_data);
        } else {
            /* the ctrl_deps close a cycle that the data_deps alone do not have */
            t->deps = deps_data;
            g_free(deps_both);
            tally_add(&L->ctrl_cycle, r, n_kept,
                      g_strdup_printf("%s: rank %u: its %u other ctrl_deps close a cycle that its "
                                      "data_deps do not have (node %" G_GUINT64_FORMAT
                                      " (%s) lies on it)",
                                      t->file, r, n_kept, t->id[on_cycle], t->name[on_cycle]));
        }
        t->n_ctrl_deps_ignored = n_dangling + (cycle ? n_kept : 0);
        if (n_dangling > 0) {
            tally_add(&L->ctrl_dangling, r, n_dangling, g_steal_pointer(&first_dangling));
        }
    }
    g_free(first_dangling);
    free_edges(data, n);
    free_edges(both, n);
    return ok;
}

/* Union-find over node indexes: the representative of @i, with path halving. */
static guint32
uf_find(guint32 *parent, guint32 i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/*
 * Decides what each is_cpu_op COMM_COLL node of rank @r is (workload.h). It is
 * the host record of a GPU collective when a GPU COMM_COLL of the file depends
 * on it (data_deps or ctrl_deps, ids that resolve), directly or through other
 * is_cpu_op COMM_COLL nodes linked to it by a dependency (PyTorch's
 * c10d::allreduce_(1) depends on c10d::allreduce_(0), which the NCCL kernel
 * depends on); it then stays on the CPU, without communicator. Otherwise its
 * flag is taken as mis-set: with a comm_type it becomes a GPU collective in the
 * communicator of its pg_name (L->cpu_as_gpu); without comm_type and comm_size it
 * stays on the CPU (L->cpu_host_only); a comm_size without comm_type is a VALUE
 * error. Time complexity: O(nodes + dependencies of COMM_COLL nodes).
 */
static gboolean
resolve_cpu_colls(loader_t *L, guint r, GHashTable *index, GError **error)
{
    GArray *cc = L->cpu_colls;
    if (cc->len == 0) {
        return TRUE;
    }
    weft_rank_trace_t *t = &L->wl->ranks[r];
    GPtrArray *nodes = L->files[r].nodes;
    guint n = t->n_nodes;
    g_autofree guint32 *parent = g_new(guint32, n);
    g_autofree guint8 *linked = g_new0(guint8, n);
    for (guint i = 0; i < n; i++) {
        parent[i] = i;
    }
    for (guint i = 0; i < n; i++) {
        if (t->type[i] != WEFT_NODE_COLL) {
            continue;
        }
        const ChakraProtoMsg__Node *m = g_ptr_array_index(nodes, i);
        for (gsize k = 0; k < m->n_data_deps + m->n_ctrl_deps; k++) {
            guint64 id = k < m->n_data_deps ? m->data_deps[k] : m->ctrl_deps[k - m->n_data_deps];
            gpointer v = NULL;
            if (!g_hash_table_lookup_extended(index, &id, NULL, &v)) {
                continue;
            }
            guint32 j = GPOINTER_TO_UINT(v);
            if (j == i || t->type[j] != WEFT_NODE_COLL || !t->is_cpu_op[j]) {
                continue;
            }
            if (t->is_cpu_op[i]) {
                parent[uf_find(parent, i)] = uf_find(parent, j);
            } else {
                linked[j] = 1; /* a GPU collective depends on it */
            }
        }
    }
    for (guint k = 0; k < cc->len; k++) {
        guint i = g_array_index(cc, cpu_coll_t, k).node;
        linked[uf_find(parent, i)] |= linked[i];
    }
    for (guint k = 0; k < cc->len; k++) {
        const cpu_coll_t *c = &g_array_index(cc, cpu_coll_t, k);
        guint i = c->node;
        if (linked[uf_find(parent, i)]) {
            continue; /* the host side of a GPU collective: no communicator */
        }
        where_t w = {t->file, r, g_ptr_array_index(nodes, i)};
        char *first = g_strdup_printf(WHERE_FMT, WHERE_ARGS(&w));
        if (c->have_type) {
            if (!comm_for(L, &w, c->pg_name, &t->comm[i], error)) {
                g_free(first);
                return FALSE;
            }
            t->is_cpu_op[i] = 0;
            tally_add(&L->cpu_as_gpu, r, 1, first);
        } else if (t->comm_bytes[i] == 0) {
            tally_add(&L->cpu_host_only, r, 1, first);
        } else {
            g_free(first);
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                        WHERE_FMT
                        ": COMM_COLL node marked is_cpu_op with comm_size %" G_GUINT64_FORMAT
                        " but no comm_type: no GPU collective of the file depends on it, so "
                        "it is not the host side of one, and without a comm_type it cannot "
                        "be replayed as one",
                        WHERE_ARGS(&w), t->comm_bytes[i]);
            return FALSE;
        }
    }
    return TRUE;
}

/* The warning lines of the tallies, in a fixed order (workload.h). */
static void
add_warnings(loader_t *L)
{
    weft_workload_t *wl = L->wl;
    GPtrArray *w = g_ptr_array_new_with_free_func(g_free);
    const tally_t *d = &L->ctrl_dangling, *c = &L->ctrl_cycle;
    if (d->count == 1) {
        g_ptr_array_add(w, g_strdup_printf("1 ctrl_dep on a node that is not in the file or on "
                                           "the node itself is ignored: %s",
                                           d->first));
    } else if (d->count > 1) {
        g_ptr_array_add(w, g_strdup_printf("%" G_GUINT64_FORMAT " ctrl_deps on a node that is "
                                           "not in the file or on the node itself are ignored "
                                           "(in %u of %u files); the first: %s",
                                           d->count, d->files, wl->n_ranks, d->first));
    }
    if (c->files == 1) {
        g_ptr_array_add(w, g_strdup_printf("%s: all of them are ignored, and its data_deps "
                                           "alone order it",
                                           c->first));
    } else if (c->files > 1) {
        g_ptr_array_add(w, g_strdup_printf("in %u of %u files the ctrl_deps left close a cycle "
                                           "that the data_deps do not have: all %" G_GUINT64_FORMAT
                                           " of them are ignored, and the data_deps alone order "
                                           "those files; the first: %s",
                                           c->files, wl->n_ranks, c->count, c->first));
    }
    const tally_t *g = &L->cpu_as_gpu, *h = &L->cpu_host_only;
    if (g->count == 1) {
        g_ptr_array_add(w, g_strdup_printf("1 COMM_COLL node marked is_cpu_op is replayed as a "
                                           "GPU collective, since no GPU collective of its file "
                                           "depends on it (it is not the host side of one): %s",
                                           g->first));
    } else if (g->count > 1) {
        g_ptr_array_add(w, g_strdup_printf("%" G_GUINT64_FORMAT " COMM_COLL nodes marked "
                                           "is_cpu_op are replayed as GPU collectives (in %u of "
                                           "%u files), since no GPU collective of their file "
                                           "depends on them (they are not the host side of one); "
                                           "the first: %s",
                                           g->count, g->files, wl->n_ranks, g->first));
    }
    if (h->count == 1) {
        g_ptr_array_add(w, g_strdup_printf("1 COMM_COLL node marked is_cpu_op has no comm_type or "
                                           "comm_size and no GPU collective of its file depends "
                                           "on it: it runs on the host only, for its duration, "
                                           "and moves no data: %s",
                                           h->first));
    } else if (h->count > 1) {
        g_ptr_array_add(w, g_strdup_printf("%" G_GUINT64_FORMAT " COMM_COLL nodes marked "
                                           "is_cpu_op have no comm_type or comm_size and no GPU "
                                           "collective of their file depends on them (in %u of "
                                           "%u files): they run on the host only, for their "
                                           "duration, and move no data; the first: %s",
                                           h->count, h->files, wl->n_ranks, h->first));
    }
    /* A trace of METADATA nodes only (or no node at all) replays in 0 us and exits 0: say
     * why the step is empty (issue 19, item 8). */
    guint64 working = 0, total = 0;
    for (guint r = 0; r < wl->n_ranks && working == 0; r++) {
        const weft_rank_trace_t *t = &wl->ranks[r];
        total += t->n_nodes;
        for (guint i = 0; i < t->n_nodes && working == 0; i++) {
            working += t->type[i] != WEFT_NODE_METADATA && t->type[i] != WEFT_NODE_INVALID;
        }
    }
    if (working == 0) {
        g_ptr_array_add(w, g_strdup_printf("no rank has a node that computes or communicates (the "
                                           "%u file%s hold%s %" G_GUINT64_FORMAT " METADATA or "
                                           "untyped node%s): the step takes 0 us",
                                           wl->n_ranks, wl->n_ranks == 1 ? "" : "s",
                                           wl->n_ranks == 1 ? "s" : "", total,
                                           total == 1 ? "" : "s"));
    }
    if (w->len > 0) {
        wl->warnings = w;
    } else {
        g_ptr_array_unref(w);
    }
}

/* ---- the loader ------------------------------------------------------------- */

weft_workload_t *
weft_workload_load_chakra(const char *prefix, const char *comm_groups_json, GError **error)
{
    g_return_val_if_fail(prefix != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    g_autofree char *first = g_strdup_printf("%s.0.et", prefix);
    if (!g_file_test(first, G_FILE_TEST_EXISTS) && weft_workload_is_text(prefix)) {
        /* A text workload given where a prefix is expected: see workload.h. */
        if (comm_groups_json != NULL) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        "%s: a text workload takes its groups from its parallelism line; the "
                        "comm-group file %s applies to Chakra traces only",
                        prefix, comm_groups_json);
            return NULL;
        }
        return weft_workload_load_text(prefix, 0, error);
    }
    if (!g_file_test(first, G_FILE_TEST_EXISTS) && weft_gen_is_spec(prefix)) {
        /* A generator spec (weft gen transformer --spec): generated here, see gen.h. */
        if (comm_groups_json != NULL) {
            g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                        "%s: a generator spec makes its own groups; the comm-group file %s "
                        "applies to Chakra traces only",
                        prefix, comm_groups_json);
            return NULL;
        }
        return weft_gen_load_spec(prefix, error);
    }
    if (!g_file_test(first, G_FILE_TEST_EXISTS) && g_file_test(prefix, G_FILE_TEST_IS_REGULAR) &&
        !g_str_has_suffix(prefix, ".et")) {
        /* (a rank's own .et file given as the prefix gets count_ranks()'s hint instead) */
        /* A file given where a prefix is expected, but no workload weft reads: say what it is
         * not, instead of "no Chakra trace files match" (issue 19, item 9). */
        GStatBuf st;
        gboolean empty = g_stat(prefix, &st) == 0 && st.st_size == 0;
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_IO,
                    "%s: %s: not a text workload (its first word must be a parallelism keyword "
                    "such as DATA, MODEL or HYBRID_TRANSFORMER, doc/workloads.md), nor a generator "
                    "spec, nor a Chakra trace prefix (no %s)",
                    prefix, empty ? "the file is empty" : "a file weft cannot read as a workload",
                    first);
        return NULL;
    }
    guint n_ranks = 0;
    if (!count_ranks(prefix, &n_ranks, error)) {
        return NULL;
    }
    g_autoptr(weft_workload_t) wl = g_new0(weft_workload_t, 1);
    wl->source = g_strdup(prefix);
    wl->strings = g_string_chunk_new(4096);
    wl->comms = g_ptr_array_new_with_free_func(weft_workload_i_comm_free);
    wl->n_ranks = n_ranks;
    wl->ranks = g_new0(weft_rank_trace_t, n_ranks);
    g_autofree guint *world = g_new(guint, n_ranks);
    for (guint r = 0; r < n_ranks; r++) {
        world[r] = r;
    }
    g_ptr_array_add(wl->comms, weft_workload_i_comm_new("0", world, n_ranks));

    loader_t L = {0};
    L.wl = wl;
    L.files = g_new0(rank_file_t, n_ranks);
    L.groups =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_array_unref);
    L.group_from = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    L.comm_index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    L.pg_desc = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    L.desc_of = g_hash_table_new(g_str_hash, g_str_equal);
    gboolean ok = TRUE;

    for (guint r = 0; r < n_ranks && ok; r++) {
        L.files[r].path = g_strdup_printf("%s.%u.et", prefix, r);
        wl->ranks[r].file = g_strdup(L.files[r].path);
        ok = read_rank_file(&L.files[r], error);
    }
    /* Process groups: METADATA records of every file, then the JSON file overrides. */
    for (guint r = 0; r < n_ranks && ok; r++) {
        GPtrArray *nodes = L.files[r].nodes;
        for (guint i = 0; i < nodes->len && ok; i++) {
            const ChakraProtoMsg__Node *m = g_ptr_array_index(nodes, i);
            if (m->type == CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE && m->inputs != NULL &&
                m->inputs->values != NULL && strstr(m->inputs->values, "pg_name") != NULL) {
                where_t w = {L.files[r].path, r, m};
                ok = parse_pg_records(&L, &w, m->inputs->values, error);
            }
        }
    }
    /* Without a comm-group file, "<prefix>.json" beside the traces is used when it exists:
     * that is where weft gen writes the communicators of the traces it makes. */
    g_autofree char *beside = g_strdup_printf("%s.json", prefix);
    if (comm_groups_json == NULL && g_file_test(beside, G_FILE_TEST_IS_REGULAR)) {
        comm_groups_json = beside;
    }
    if (ok && comm_groups_json != NULL) {
        ok = load_group_json(&L, comm_groups_json, error);
    }
    L.ctrl_dangling.last_rank = L.ctrl_cycle.last_rank = -1;
    L.cpu_as_gpu.last_rank = L.cpu_host_only.last_rank = -1;
    L.cpu_colls = g_array_new(FALSE, FALSE, sizeof(cpu_coll_t));
    g_array_set_clear_func(L.cpu_colls, cpu_coll_clear);
    for (guint r = 0; r < n_ranks && ok; r++) {
        g_array_set_size(L.cpu_colls, 0);
        rank_trace_alloc(&wl->ranks[r], L.files[r].nodes->len);
        for (guint i = 0; i < wl->ranks[r].n_nodes && ok; i++) {
            ok = fill_node(&L, r, i, error);
        }
        g_autoptr(GHashTable) index = ok ? index_ids(&L, r, error) : NULL;
        ok = index != NULL && resolve_cpu_colls(&L, r, index, error) &&
             resolve_deps(&L, r, index, error);
    }
    if (ok) {
        apply_pg_desc(&L);
        add_warnings(&L);
        /* memory as weft's writer records it: known when every rank's file says its resident
         * bytes (a trace that says nothing of memory stays unknown, not 0) */
        gboolean all = n_ranks > 0;
        for (guint r = 0; r < n_ranks; r++) {
            all = all && L.files[r].has_resident;
        }
        if (all) {
            wl->resident = g_malloc0_n(n_ranks, sizeof(*wl->resident));
            for (guint r = 0; r < n_ranks; r++) {
                memcpy(wl->resident[r], L.files[r].resident, sizeof wl->resident[r]);
            }
        }
    }

    for (guint r = 0; r < n_ranks; r++) {
        rank_file_clear(&L.files[r]);
    }
    g_free(L.files);
    g_hash_table_unref(L.groups);
    g_hash_table_unref(L.group_from);
    g_hash_table_unref(L.comm_index);
    g_hash_table_unref(L.desc_of);
    g_hash_table_unref(L.pg_desc);
    g_free(L.ctrl_dangling.first);
    g_free(L.ctrl_cycle.first);
    g_free(L.cpu_as_gpu.first);
    g_free(L.cpu_host_only.first);
    g_array_unref(L.cpu_colls);
    return ok ? g_steal_pointer(&wl) : NULL;
}
