/* SPDX-License-Identifier: MIT */
/*
 * The Chakra ET writer: any weft_workload_t out as "<prefix>.<rank>.et" files
 * (GlobalMetadata "0.0.4", then one varint-framed Node per node with data_deps
 * and the attributes the reader understands: comm_type, comm_size, comm_src,
 * comm_dst, comm_tag, pg_name, num_ops, tensor_size, is_cpu_op) and the
 * communicators as an ASTRA-sim comm-group JSON file "<prefix>.json", each
 * written by weft_output_write() (a temporary name, renamed), so weft and other Chakra users can
 * replay what the generator made.
 */
#define G_LOG_DOMAIN "weft-workload"

#include "workload/gen.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "core/json.h"
#include "core/output.h"
#include "workload/chakra.pb-c.h"

static void
put_varint(GByteArray *b, guint64 v)
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

static void
put_message(GByteArray *b, gsize len, const guint8 *msg)
{
    put_varint(b, len);
    g_byte_array_append(b, msg, (guint)len);
}

/* Writes @len bytes of @data to @path by weft_output_write(); WEFT_WORKLOAD_ERROR_IO. */
static gboolean
write_atomic(const char *path, const void *data, gsize len, GError **error)
{
    g_autoptr(GError) e = NULL;
    if (!weft_output_write(path, data, (gssize)len, &e)) {
        g_set_error_literal(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_IO, e->message);
        return FALSE;
    }
    return TRUE;
}

typedef struct {
    ChakraProtoMsg__AttributeProto a[8];
    guint n;
} attrs_t;

static ChakraProtoMsg__AttributeProto *
attr(attrs_t *A, const char *name)
{
    ChakraProtoMsg__AttributeProto *a = &A->a[A->n++];
    chakra_proto_msg__attribute_proto__init(a);
    a->name = (char *)name;
    return a;
}

static void
attr_i64(attrs_t *A, const char *name, gint64 v)
{
    ChakraProtoMsg__AttributeProto *a = attr(A, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
    a->int64_val = v;
}

static gboolean
write_rank(const weft_workload_t *wl, guint r, const char *path, GError **error)
{
    const weft_rank_trace_t *t = &wl->ranks[r];
    g_autoptr(GByteArray) b = g_byte_array_new();
    ChakraProtoMsg__GlobalMetadata md;
    chakra_proto_msg__global_metadata__init(&md);
    md.version = (char *)"0.0.4";
    gsize len = chakra_proto_msg__global_metadata__get_packed_size(&md);
    g_autofree guint8 *buf = g_malloc(MAX(len, 1));
    chakra_proto_msg__global_metadata__pack(&md, buf);
    put_message(b, len, buf);
    gsize cap = 0;
    g_autofree guint8 *nbuf = NULL;
    g_autofree guint64 *deps = NULL;
    gsize deps_cap = 0;
    for (guint i = 0; i < t->n_nodes; i++) {
        ChakraProtoMsg__Node n;
        chakra_proto_msg__node__init(&n);
        n.id = t->id[i];
        n.name = (char *)t->name[i];
        n.type = (ChakraProtoMsg__NodeType)t->type[i];
        /* Chakra's duration is integer microseconds: rounded to the nearest. */
        n.duration_micros = (guint64)((t->duration_ps[i] + WEFT_PS_PER_US / 2) / WEFT_PS_PER_US);
        guint32 nd = t->dep_off[i + 1] - t->dep_off[i];
        if (nd > deps_cap) {
            deps_cap = nd * 2;
            deps = g_renew(guint64, deps, deps_cap);
        }
        for (guint32 k = 0; k < nd; k++) {
            deps[k] = t->id[t->deps[t->dep_off[i] + k]];
        }
        n.n_data_deps = nd;
        n.data_deps = deps;
        attrs_t A = {.n = 0};
        ChakraProtoMsg__AttributeProto *ap[8];
        if (t->is_cpu_op[i]) {
            attr_i64(&A, "is_cpu_op", 1);
        }
        switch (t->type[i]) {
        case WEFT_NODE_COLL:
            attr_i64(&A, "comm_type", t->coll_op[i]);
            attr_i64(&A, "comm_size", (gint64)t->comm_bytes[i]);
            if (t->comm[i] > 0) {
                const weft_comm_t *c = g_ptr_array_index(wl->comms, t->comm[i]);
                ChakraProtoMsg__AttributeProto *a = attr(&A, "pg_name");
                a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
                a->string_val = c->name;
            }
            break;
        case WEFT_NODE_SEND:
        case WEFT_NODE_RECV:
            attr_i64(&A, "comm_size", (gint64)t->comm_bytes[i]);
            attr_i64(&A, t->type[i] == WEFT_NODE_SEND ? "comm_dst" : "comm_src", t->peer[i]);
            attr_i64(&A, "comm_tag", t->tag[i]);
            break;
        default:
            break;
        }
        if (t->num_ops[i] > 0) {
            ChakraProtoMsg__AttributeProto *a = attr(&A, "num_ops");
            if (t->num_ops[i] < 9.0e18 && t->num_ops[i] == floor(t->num_ops[i])) {
                a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
                a->int64_val = (gint64)t->num_ops[i];
            } else {
                a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_VAL;
                a->double_val = t->num_ops[i];
            }
        }
        if (t->tensor_bytes[i] > 0) {
            attr_i64(&A, "tensor_size", (gint64)t->tensor_bytes[i]);
        }
        for (guint k = 0; k < A.n; k++) {
            ap[k] = &A.a[k];
        }
        n.n_attr = A.n;
        n.attr = ap;
        len = chakra_proto_msg__node__get_packed_size(&n);
        if (len > cap) {
            cap = len * 2;
            nbuf = g_realloc(nbuf, cap);
        }
        chakra_proto_msg__node__pack(&n, nbuf);
        put_message(b, len, nbuf);
    }
    return write_atomic(path, b->data, b->len, error);
}

gboolean
weft_workload_write_chakra(const weft_workload_t *wl, const char *prefix, GError **error)
{
    g_return_val_if_fail(wl != NULL && prefix != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    for (guint r = 0; r < wl->n_ranks; r++) {
        g_autofree char *path = g_strdup_printf("%s.%u.et", prefix, r);
        if (!write_rank(wl, r, path, error)) {
            return FALSE;
        }
    }
    g_autoptr(JsonBuilder) jb = json_builder_new();
    json_builder_begin_object(jb);
    for (guint c = 1; c < wl->comms->len; c++) {
        const weft_comm_t *comm = g_ptr_array_index(wl->comms, c);
        json_builder_set_member_name(jb, comm->name);
        json_builder_begin_array(jb);
        for (guint i = 0; i < comm->n_ranks; i++) {
            json_builder_add_int_value(jb, comm->ranks[i]);
        }
        json_builder_end_array(jb);
    }
    json_builder_end_object(jb);
    g_autofree char *text = weft_json_to_text(jb, FALSE); /* one line, as ASTRA-sim's */
    g_autofree char *path = g_strdup_printf("%s.json", prefix);
    return write_atomic(path, text, strlen(text), error);
}
