/* SPDX-License-Identifier: MIT */
/*
 * Test helpers shared by the Check programs: writing Chakra ET files.
 *
 * A test builds one rank's trace in memory with a test_et_t, node by node, and
 * writes it out. The encoding is the real one: GlobalMetadata and Node messages
 * packed by the protobuf-c code generated from src/workload/chakra.proto, each
 * preceded by its length as a base-128 varint (see doc/formats.md). Nodes are
 * built with a "current node" cursor so a test reads like the trace it makes:
 *
 *     g_autoptr(test_et_t) et = test_et_new("0.0.4");
 *     test_et_node(et, 1, "grad_allreduce", CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
 *     test_et_attr_int(et, "comm_type", 0);          // ALL_REDUCE
 *     test_et_attr_int(et, "comm_size", 1048576);
 *     test_et_dep(et, 0);                            // data_deps += 0
 *     test_et_write(et, path, FALSE);                // FALSE: plain, TRUE: gzip
 *
 * test_et_raw() appends arbitrary bytes (for corrupt-input tests) and
 * test_et_frame() appends one framed message of arbitrary bytes. All functions
 * abort the test (g_error) on an impossible failure such as an unwritable file.
 */
#ifndef WEFT_TESTS_TESTUTIL_H
#define WEFT_TESTS_TESTUTIL_H

#include <gio/gio.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "workload/chakra.pb-c.h"

/* Short names for the node types of chakra.proto. */
#define TEST_COMP CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE
#define TEST_SEND CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE
#define TEST_RECV CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE
#define TEST_COLL CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE
#define TEST_METADATA CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE

/** One rank's trace being written: the encoded bytes and the node in progress. */
typedef struct {
    GByteArray *bytes;         /* framed messages written so far */
    gboolean have_node;        /* a node is in progress (flushed by the next call) */
    ChakraProtoMsg__Node node; /* the node in progress; strings and arrays below */
    GArray *data_deps;         /* guint64 */
    GArray *ctrl_deps;         /* guint64 */
    GPtrArray *attrs;          /* ChakraProtoMsg__AttributeProto*, owned */
    ChakraProtoMsg__IOInfo inputs;
    gboolean have_inputs;
} test_et_t;

/* Appends @v as a base-128 varint. */
static inline void
test_et_put_varint(GByteArray *b, guint64 v)
{
    do {
        guint8 byte = (guint8)(v & 0x7f);
        v >>= 7;
        if (v != 0) {
            byte |= 0x80;
        }
        g_byte_array_append(b, &byte, 1);
    } while (v != 0);
}

/** test_et_frame: appends @len bytes of @msg preceded by its varint length. */
static inline void
test_et_frame(test_et_t *et, const guint8 *msg, gsize len)
{
    test_et_put_varint(et->bytes, len);
    g_byte_array_append(et->bytes, msg, (guint)len);
}

/** test_et_raw: appends @len raw bytes (no framing), for corrupt inputs. */
static inline void
test_et_raw(test_et_t *et, const void *data, gsize len)
{
    g_byte_array_append(et->bytes, data, (guint)len);
}

static inline void
test_et_attr_free(gpointer p)
{
    ChakraProtoMsg__AttributeProto *a = p;
    g_free(a->name);
    if (a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL) {
        g_free(a->string_val);
    }
    g_free(a);
}

/* Packs and frames the node in progress, then forgets it. */
static inline void
test_et_flush(test_et_t *et)
{
    if (!et->have_node) {
        return;
    }
    ChakraProtoMsg__Node *n = &et->node;
    n->n_data_deps = et->data_deps->len;
    n->data_deps = (uint64_t *)(void *)et->data_deps->data;
    n->n_ctrl_deps = et->ctrl_deps->len;
    n->ctrl_deps = (uint64_t *)(void *)et->ctrl_deps->data;
    n->n_attr = et->attrs->len;
    n->attr = (ChakraProtoMsg__AttributeProto **)et->attrs->pdata;
    n->inputs = et->have_inputs ? &et->inputs : NULL;
    gsize len = chakra_proto_msg__node__get_packed_size(n);
    g_autofree guint8 *buf = g_malloc(len + 1);
    chakra_proto_msg__node__pack(n, buf);
    test_et_frame(et, buf, len);
    g_free(n->name);
    g_free(et->inputs.values);
    et->inputs.values = NULL;
    g_array_set_size(et->data_deps, 0);
    g_array_set_size(et->ctrl_deps, 0);
    g_ptr_array_set_size(et->attrs, 0);
    et->have_inputs = FALSE;
    et->have_node = FALSE;
}

/**
 * test_et_new_metadata: a trace whose GlobalMetadata has @version (NULL: no
 * version field) and, when @schema is not NULL, a string attribute "schema" (as
 * the PyTorch converter writes it). test_et_new(v) is test_et_new_metadata(v, NULL).
 */
static inline test_et_t *
test_et_new_metadata(const char *version, const char *schema)
{
    test_et_t *et = g_new0(test_et_t, 1);
    et->bytes = g_byte_array_new();
    et->data_deps = g_array_new(FALSE, FALSE, sizeof(guint64));
    et->ctrl_deps = g_array_new(FALSE, FALSE, sizeof(guint64));
    et->attrs = g_ptr_array_new_with_free_func(test_et_attr_free);
    ChakraProtoMsg__GlobalMetadata md = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
    ChakraProtoMsg__AttributeProto a = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
    ChakraProtoMsg__AttributeProto *ap = &a;
    md.version = (char *)(version != NULL ? version : "");
    if (schema != NULL) {
        a.name = (char *)"schema";
        a.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
        a.string_val = (char *)schema;
        md.n_attr = 1;
        md.attr = &ap;
    }
    gsize len = chakra_proto_msg__global_metadata__get_packed_size(&md);
    g_autofree guint8 *buf = g_malloc(len + 1);
    chakra_proto_msg__global_metadata__pack(&md, buf);
    test_et_frame(et, buf, len);
    return et;
}

/** test_et_new: a trace starting with a GlobalMetadata of @version ("0.0.4"). */
static inline test_et_t *
test_et_new(const char *version)
{
    return test_et_new_metadata(version, NULL);
}

/** test_et_empty: a trace with no bytes at all (not even GlobalMetadata). */
static inline test_et_t *
test_et_empty(void)
{
    test_et_t *et = test_et_new(NULL);
    g_byte_array_set_size(et->bytes, 0);
    return et;
}

/** test_et_free: NULL is a no-op. */
static inline void
test_et_free(test_et_t *et)
{
    if (et == NULL) {
        return;
    }
    if (et->have_node) {
        g_free(et->node.name);
        g_free(et->inputs.values);
    }
    g_byte_array_unref(et->bytes);
    g_array_unref(et->data_deps);
    g_array_unref(et->ctrl_deps);
    g_ptr_array_unref(et->attrs);
    g_free(et);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(test_et_t, test_et_free)

/**
 * test_et_node: starts node @id named @name of @type (TEST_COMP, TEST_COLL...);
 * the previous node, if any, is written first. @duration_us is duration_micros.
 */
static inline void
test_et_node_dur(test_et_t *et, guint64 id, const char *name, ChakraProtoMsg__NodeType type,
                 guint64 duration_us)
{
    test_et_flush(et);
    chakra_proto_msg__node__init(&et->node);
    chakra_proto_msg__ioinfo__init(&et->inputs);
    et->inputs.values = NULL; /* owned by us; the init value is protobuf-c's static "" */
    et->node.id = id;
    et->node.name = g_strdup(name);
    et->node.type = type;
    et->node.duration_micros = duration_us;
    et->have_node = TRUE;
}

/** test_et_node: test_et_node_dur() with duration 0. */
static inline void
test_et_node(test_et_t *et, guint64 id, const char *name, ChakraProtoMsg__NodeType type)
{
    test_et_node_dur(et, id, name, type, 0);
}

/** test_et_dep: adds @parent to the current node's data_deps. */
static inline void
test_et_dep(test_et_t *et, guint64 parent)
{
    g_assert(et->have_node);
    g_array_append_val(et->data_deps, parent);
}

/** test_et_ctrl_dep: adds @parent to the current node's ctrl_deps. */
static inline void
test_et_ctrl_dep(test_et_t *et, guint64 parent)
{
    g_assert(et->have_node);
    g_array_append_val(et->ctrl_deps, parent);
}

/** test_et_inputs: sets the current node's inputs.values text (METADATA process groups). */
static inline void
test_et_inputs(test_et_t *et, const char *values)
{
    g_assert(et->have_node);
    g_free(et->inputs.values);
    et->inputs.values = g_strdup(values);
    et->have_inputs = TRUE;
}

static inline ChakraProtoMsg__AttributeProto *
test_et_attr_add(test_et_t *et, const char *name)
{
    g_assert(et->have_node);
    ChakraProtoMsg__AttributeProto *a = g_new0(ChakraProtoMsg__AttributeProto, 1);
    chakra_proto_msg__attribute_proto__init(a);
    a->name = g_strdup(name);
    g_ptr_array_add(et->attrs, a);
    return a;
}

/** test_et_attr_int: adds attribute @name = @v as int64_val (what ASTRA-sim's writers use). */
static inline void
test_et_attr_int(test_et_t *et, const char *name, gint64 v)
{
    ChakraProtoMsg__AttributeProto *a = test_et_attr_add(et, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
    a->int64_val = v;
}

/** test_et_attr_int32: adds attribute @name = @v as int32_val. */
static inline void
test_et_attr_int32(test_et_t *et, const char *name, gint32 v)
{
    ChakraProtoMsg__AttributeProto *a = test_et_attr_add(et, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL;
    a->int32_val = v;
}

/** test_et_attr_uint: adds attribute @name = @v as uint64_val. */
static inline void
test_et_attr_uint(test_et_t *et, const char *name, guint64 v)
{
    ChakraProtoMsg__AttributeProto *a = test_et_attr_add(et, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL;
    a->uint64_val = v;
}

/** test_et_attr_double: adds attribute @name = @v as double_val. */
static inline void
test_et_attr_double(test_et_t *et, const char *name, double v)
{
    ChakraProtoMsg__AttributeProto *a = test_et_attr_add(et, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_VAL;
    a->double_val = v;
}

/** test_et_attr_bool: adds attribute @name = @v as bool_val. */
static inline void
test_et_attr_bool(test_et_t *et, const char *name, gboolean v)
{
    ChakraProtoMsg__AttributeProto *a = test_et_attr_add(et, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
    a->bool_val = v ? 1 : 0;
}

/** test_et_attr_string: adds attribute @name = @v as string_val. */
static inline void
test_et_attr_string(test_et_t *et, const char *name, const char *v)
{
    ChakraProtoMsg__AttributeProto *a = test_et_attr_add(et, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
    a->string_val = g_strdup(v);
}

/**
 * test_et_coll: a COMM_COLL node @id with comm_type @op (weft_coll_op_t /
 * Chakra value), comm_size @bytes and, when @pg_name is not NULL, pg_name.
 */
static inline void
test_et_coll(test_et_t *et, guint64 id, const char *name, gint64 op, guint64 bytes,
             const char *pg_name)
{
    test_et_node(et, id, name, TEST_COLL);
    test_et_attr_int(et, "comm_type", op);
    test_et_attr_int(et, "comm_size", (gint64)bytes);
    if (pg_name != NULL) {
        test_et_attr_string(et, "pg_name", pg_name);
    }
}

/** test_et_send: a COMM_SEND node @id: @bytes to rank @dst with @tag. */
static inline void
test_et_send(test_et_t *et, guint64 id, const char *name, gint32 dst, gint32 tag, guint64 bytes)
{
    test_et_node(et, id, name, TEST_SEND);
    test_et_attr_int32(et, "comm_dst", dst);
    test_et_attr_int32(et, "comm_tag", tag);
    test_et_attr_int(et, "comm_size", (gint64)bytes);
}

/** test_et_recv: a COMM_RECV node @id: @bytes from rank @src with @tag. */
static inline void
test_et_recv(test_et_t *et, guint64 id, const char *name, gint32 src, gint32 tag, guint64 bytes)
{
    test_et_node(et, id, name, TEST_RECV);
    test_et_attr_int32(et, "comm_src", src);
    test_et_attr_int32(et, "comm_tag", tag);
    test_et_attr_int(et, "comm_size", (gint64)bytes);
}

/**
 * test_et_dp_step: appends the nodes of one rank of the bundled data-parallel
 * step (traces/dp-step-8): forward 1500 us; backward_layer2 1000 us; a 128 MiB
 * all-reduce of its gradients (comm_type 0) that overlaps backward_layer1
 * 1000 us; a 128 MiB all-reduce of those; optimizer_step 200 us after both.
 * Node ids 1..6.
 */
static inline void
test_et_dp_step(test_et_t *et)
{
    const guint64 grad_bytes = 128ull * 1024 * 1024;
    test_et_node_dur(et, 1, "forward", TEST_COMP, 1500);
    test_et_node_dur(et, 2, "backward_layer2", TEST_COMP, 1000);
    test_et_dep(et, 1);
    test_et_coll(et, 3, "all_reduce_grad_layer2", 0, grad_bytes, NULL);
    test_et_dep(et, 2);
    test_et_node_dur(et, 4, "backward_layer1", TEST_COMP, 1000);
    test_et_dep(et, 2);
    test_et_coll(et, 5, "all_reduce_grad_layer1", 0, grad_bytes, NULL);
    test_et_dep(et, 4);
    test_et_node_dur(et, 6, "optimizer_step", TEST_COMP, 200);
    test_et_dep(et, 3);
    test_et_dep(et, 5);
}

/**
 * test_et_write: writes the trace (flushing the current node) to @path, plain or,
 * with @gzip, wrapped in gzip through GIO's GZlibCompressor. The trace stays
 * usable: more nodes may follow and it may be written again.
 */
static inline void
test_et_write(test_et_t *et, const char *path, gboolean gzip)
{
    test_et_flush(et);
    GError *error = NULL;
    if (!gzip) {
        if (!g_file_set_contents(path, (const char *)et->bytes->data, et->bytes->len, &error)) {
            g_error("test_et_write: %s", error->message);
        }
        return;
    }
    g_autoptr(GZlibCompressor) z = g_zlib_compressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP, -1);
    g_autoptr(GInputStream) mem =
        g_memory_input_stream_new_from_data(et->bytes->data, et->bytes->len, NULL);
    g_autoptr(GInputStream) conv = g_converter_input_stream_new(mem, G_CONVERTER(z));
    g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable();
    if (g_output_stream_splice(out, conv, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error) < 0) {
        g_error("test_et_write: gzip: %s", error->message);
    }
    GMemoryOutputStream *m = G_MEMORY_OUTPUT_STREAM(out);
    if (!g_file_set_contents(path, g_memory_output_stream_get_data(m),
                             (gssize)g_memory_output_stream_get_data_size(m), &error)) {
        g_error("test_et_write: %s", error->message);
    }
}

/** test_et_path: "<dir>/<name>.<rank>.et", newly allocated. */
static inline char *
test_et_path(const char *dir, const char *name, guint rank)
{
    return g_strdup_printf("%s/%s.%u.et", dir, name, rank);
}

/**
 * test_have_shared: TRUE when $WEFT_SHARED names an existing directory (the real
 * inputs and measurements beside the checkout). `make check` always sets the
 * variable, to ../shared, which users who clone weft alone do not have: tests
 * that need it print a line and skip those cases.
 */
static inline gboolean
test_have_shared(void)
{
    const char *dir = g_getenv("WEFT_SHARED");
    if (dir == NULL || !g_file_test(dir, G_FILE_TEST_IS_DIR)) {
        g_print("skipped: %s is not a directory\n", dir != NULL ? dir : "$WEFT_SHARED");
        return FALSE;
    }
    return TRUE;
}

/** test_rm_rf: removes @path and, if it is a directory, everything under it (symlinks not
 * followed). */
static inline void
test_rm_rf(const char *path)
{
    if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK)) {
        g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
        const char *entry;
        while (d != NULL && (entry = g_dir_read_name(d)) != NULL) {
            g_autofree char *p = g_build_filename(path, entry, NULL);
            test_rm_rf(p);
        }
        (void)g_rmdir(path);
        return;
    }
    (void)g_remove(path);
}

/** test_tmpdir_remove: removes a test's scratch directory @dir and everything in it. */
static inline void
test_tmpdir_remove(const char *dir)
{
    test_rm_rf(dir);
}

/**
 * test_write_file: writes @text to @dir/@name (creating parent directories) and
 * returns the path (free with g_free()); aborts the test on failure.
 */
static inline char *
test_write_file(const char *dir, const char *name, const char *text)
{
    char *path = g_build_filename(dir, name, NULL);
    g_autofree char *parent = g_path_get_dirname(path);
    if (g_mkdir_with_parents(parent, 0755) != 0 || !g_file_set_contents(path, text, -1, NULL)) {
        g_error("test_write_file: cannot write %s", path);
    }
    return path;
}

#endif /* WEFT_TESTS_TESTUTIL_H */
