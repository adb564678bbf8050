/* SPDX-License-Identifier: MIT */
/*
 * The Chakra ET writer: any weft_workload_t out as "<prefix>.<rank>.et" files
 * (GlobalMetadata "0.0.4", then one varint-framed Node per node with its
 * data_deps and attributes) and its communicators as an ASTRA-sim comm-group
 * JSON file "<prefix>.json", each written by weft_output_write() (a temporary
 * name, renamed), so that weft and ASTRA-sim can replay what the generator made.
 *
 * What ASTRA-sim reads, and so what is written (doc/formats.md, "Writing Chakra
 * ET", has the table). Read in astra-sim/astra-sim 518bd513 (2026-03-25):
 * astra-sim/workload/Workload.cc, system/CommunicatorGroup.cc and system/Sys.cc;
 * its Chakra feeder ("FeederV3", submodule extern/graph_frontend/chakra, pinned
 * at 0e3cd40, which the library does not hold): the nearest versions read are
 * astra-sim/chakra src/feeder_v3/et_feeder_node.h at 0cce9a41 and
 * src/feeder_v3/common.h of jinsun-yoo/chakra afbd772; and the older feeder of
 * mlcommons/chakra 21585d8 (src/feeder/et_feeder_node.cpp, et_feeder.cpp).
 *
 * - pg_name: Workload.cc parses every comm-group key and every non-world pg_name
 *   with std::stoi and looks the number up; "" and "0" are the world, and
 *   CommunicatorGroup asserts id > 0. So communicator c > 0 of wl->comms is
 *   written as pg_name "c" (decimal), and "<prefix>.json" maps "c" to its ranks;
 *   the world gets no pg_name. weft's own name of the communicator ("tp.0") goes
 *   in a string attribute pg_desc beside it (PyTorch's word for a process
 *   group's description), which neither feeder looks at and weft's reader turns
 *   back into the communicator's name.
 * - Attribute types: FeederV3 converts any integer member to the integer it
 *   asks for but refuses a float (ALLOW_IMPLICIT_FLOAT_TO_INTEGER_CONVERSION is
 *   false) and a missing attribute that has no default (num_ops, tensor_size,
 *   comm_type, comm_size, comm_dst of a send, comm_src of a receive,
 *   comm_tag); the old feeder reads one member per attribute (is_cpu_op
 *   bool_val, num_ops int64_val, tensor_size uint64_val, comm_type and
 *   comm_size int64_val, comm_src, comm_dst and comm_tag int32_val, pg_name
 *   string_val). Each is written as that member, which both read.
 * - SEND/RECV: Workload.cc fails a send whose comm_src (default: the issuing
 *   rank) is not the issuing rank, and a receive likewise for comm_dst: both
 *   ends are written on every node.
 * - involved_dim is not written: for a collective with a pg_name, Sys.cc takes
 *   the dimensions from the communicator group's plan and ignores the node's;
 *   for the world, its absence means every dimension, and a list would have to
 *   match the ASTRA-sim network's dimension count, which a trace cannot know.
 * - Dependencies are data_deps: the old feeder follows only those, FeederV3
 *   data_deps and ctrl_deps alike.
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
#include "workload/memory.h"

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

/*
 * The attributes of one node. The most any node gets is 12 (a COMM_COLL: is_cpu_op,
 * comm_type, comm_size, pg_name, pg_desc, num_ops, tensor_size, layer, phase,
 * mem_alloc_bytes, mem_free_bytes, mem_category; a SEND or RECV: is_cpu_op, comm_size,
 * comm_src, comm_dst, comm_tag, num_ops, tensor_size, layer, phase and the three mem_*).
 * layer, phase and mem_* (weft's own attributes, read back by its reader: workload.h) are
 * written when the trace has them; ASTRA-sim looks attributes up by name and ignores them.
 * The file's GlobalMetadata carries the rank's resident bytes (resident_<category>_bytes).
 */
typedef struct {
    ChakraProtoMsg__AttributeProto a[13];
    guint n;
} attrs_t;

static ChakraProtoMsg__AttributeProto *
attr(attrs_t *A, const char *name)
{
    g_assert(A->n < G_N_ELEMENTS(A->a));
    ChakraProtoMsg__AttributeProto *a = &A->a[A->n++];
    chakra_proto_msg__attribute_proto__init(a);
    a->name = (char *)name;
    return a;
}

static void
attr_bool(attrs_t *A, const char *name, gboolean v)
{
    ChakraProtoMsg__AttributeProto *a = attr(A, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
    a->bool_val = v ? 1 : 0;
}

static void
attr_i32(attrs_t *A, const char *name, gint32 v)
{
    ChakraProtoMsg__AttributeProto *a = attr(A, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL;
    a->int32_val = v;
}

static void
attr_i64(attrs_t *A, const char *name, gint64 v)
{
    ChakraProtoMsg__AttributeProto *a = attr(A, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
    a->int64_val = v;
}

static void
attr_u64(attrs_t *A, const char *name, guint64 v)
{
    ChakraProtoMsg__AttributeProto *a = attr(A, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL;
    a->uint64_val = v;
}

static void
attr_str(attrs_t *A, const char *name, const char *v)
{
    ChakraProtoMsg__AttributeProto *a = attr(A, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
    a->string_val = (char *)v;
}

/*
 * A tag as the old feeder reads it (int32_val) when it fits; a larger one as int64,
 * which FeederV3 still converts (an integer of any width) and the old feeder reads as 0.
 */
static void
attr_tag(attrs_t *A, gint64 tag)
{
    if (tag >= G_MININT32 && tag <= G_MAXINT32) {
        attr_i32(A, "comm_tag", (gint32)tag);
    } else {
        attr_i64(A, "comm_tag", tag);
    }
}

/*
 * num_ops as an integer: FeederV3 refuses a float where ASTRA-sim asks for an integer
 * (num_ops<uint64_t>() in roofline mode), and the old feeder reads int64_val only.
 * Rounded to the nearest FLOP; a negative or non-finite count (none is made by weft's
 * readers or generator) is written as 0, one beyond int64 as its largest value.
 */
static gint64
ops_integer(double ops)
{
    if (!(ops > 0.0)) {
        return 0;
    }
    if (ops >= 9.2e18) {
        return G_MAXINT64;
    }
    return (gint64)floor(ops + 0.5);
}

/*
 * What a workload can hold but a Chakra file cannot say (none of weft's readers or its
 * generator makes such a node): a comm_size beyond int64 (_VALUE), a collective outside
 * Chakra's CollectiveCommType (_VALUE) or in a communicator the workload lacks (_COMM).
 */
static gboolean
check_node(const weft_workload_t *wl, guint r, guint i, const char *path, GError **error)
{
    const weft_rank_trace_t *t = &wl->ranks[r];
    gboolean comm = t->type[i] == WEFT_NODE_COLL || t->type[i] == WEFT_NODE_SEND ||
                    t->type[i] == WEFT_NODE_RECV;
    if (comm && t->comm_bytes[i] > (guint64)G_MAXINT64) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "%s: rank %u: node %" G_GUINT64_FORMAT " (%s): comm_size %" G_GUINT64_FORMAT
                    " does not fit Chakra's int64",
                    path, r, t->id[i], t->name[i], t->comm_bytes[i]);
        return FALSE;
    }
    if (t->type[i] != WEFT_NODE_COLL) {
        return TRUE;
    }
    if (t->coll_op[i] >= WEFT_COLL_N_OPS) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE,
                    "%s: rank %u: node %" G_GUINT64_FORMAT " (%s): collective %u is not one of "
                    "Chakra's CollectiveCommType 0..%d",
                    path, r, t->id[i], t->name[i], t->coll_op[i], WEFT_COLL_N_OPS - 1);
        return FALSE;
    }
    if (t->comm[i] >= (gint32)wl->comms->len) {
        g_set_error(error, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_COMM,
                    "%s: rank %u: node %" G_GUINT64_FORMAT " (%s): communicator %d does not "
                    "exist (the workload has %u)",
                    path, r, t->id[i], t->name[i], t->comm[i], wl->comms->len);
        return FALSE;
    }
    return TRUE;
}

static gboolean
write_rank(const weft_workload_t *wl, guint r, char **ids, const char *path, GError **error)
{
    const weft_rank_trace_t *t = &wl->ranks[r];
    g_autoptr(GByteArray) b = g_byte_array_new();
    ChakraProtoMsg__GlobalMetadata md;
    chakra_proto_msg__global_metadata__init(&md);
    md.version = (char *)"0.0.4";
    /* the rank's resident bytes per category (workload.h), which weft's reader reads back:
     * "resident_weights_bytes", ... (other consumers look attributes up by name) */
    static const char *const rnames[WEFT_MEM_N_CATS] = {
        "resident_weights_bytes", "resident_master_bytes", "resident_gradients_bytes",
        "resident_optimizer_bytes", "resident_activations_bytes"}; /* weft_mem_cat_t's order */
    attrs_t R = {.n = 0};
    ChakraProtoMsg__AttributeProto *rp[WEFT_MEM_N_CATS];
    if (wl->resident != NULL) {
        for (guint k = 0; k < WEFT_MEM_N_CATS; k++) {
            attr_u64(&R, rnames[k], wl->resident[r][k]);
            rp[k] = &R.a[k];
        }
        md.n_attr = WEFT_MEM_N_CATS;
        md.attr = rp;
    }
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
        ChakraProtoMsg__AttributeProto *ap[G_N_ELEMENTS(A.a)];
        if (t->is_cpu_op[i]) {
            attr_bool(&A, "is_cpu_op", TRUE);
        }
        if (!check_node(wl, r, i, path, error)) {
            return FALSE;
        }
        gboolean comp = FALSE, mem = FALSE;
        switch (t->type[i]) {
        case WEFT_NODE_COLL:
            attr_i64(&A, "comm_type", t->coll_op[i]);
            attr_i64(&A, "comm_size", (gint64)t->comm_bytes[i]);
            /* The world (0) is written without pg_name: ASTRA-sim takes "" and "0" alike
             * as all ranks, and so does weft's reader. */
            if (t->comm[i] > 0) {
                const weft_comm_t *c = g_ptr_array_index(wl->comms, t->comm[i]);
                attr_str(&A, "pg_name", ids[t->comm[i]]);
                attr_str(&A, "pg_desc", c->name);
            }
            break;
        case WEFT_NODE_SEND:
        case WEFT_NODE_RECV:
            attr_i64(&A, "comm_size", (gint64)t->comm_bytes[i]);
            /* Both ends, each node: ASTRA-sim checks that a send's comm_src and a receive's
             * comm_dst are the rank that issues it. */
            if (t->type[i] == WEFT_NODE_SEND) {
                attr_i32(&A, "comm_src", (gint32)r);
                attr_i32(&A, "comm_dst", t->peer[i]);
            } else {
                attr_i32(&A, "comm_src", t->peer[i]);
                attr_i32(&A, "comm_dst", (gint32)r);
            }
            attr_tag(&A, t->tag[i]);
            break;
        case WEFT_NODE_COMP:
            comp = TRUE;
            break;
        case WEFT_NODE_MEM_LOAD:
        case WEFT_NODE_MEM_STORE:
            mem = TRUE;
            break;
        default:
            break;
        }
        /* ASTRA-sim's roofline mode reads num_ops and tensor_size of every GPU COMP node and
         * its memory model tensor_size of MEM nodes, without defaults: written there even
         * when 0 (ASTRA-sim then skips the node as invalid instead of stopping). */
        gint64 ops = ops_integer(t->num_ops[i]);
        if (ops > 0 || comp) {
            attr_i64(&A, "num_ops", ops);
        }
        if (t->tensor_bytes[i] > 0 || comp || mem) {
            attr_u64(&A, "tensor_size", t->tensor_bytes[i]);
        }
        if (t->layer != NULL && t->layer[i] != 0 && wl->layers != NULL) {
            attr_str(&A, "layer", g_ptr_array_index(wl->layers, t->layer[i]));
        }
        if (t->phase != NULL && t->phase[i] != WEFT_PHASE_OTHER) {
            attr_str(&A, "phase", weft_phase_name((weft_phase_t)t->phase[i]));
        }
        if (t->mem_alloc != NULL && (t->mem_alloc[i] != 0 || t->mem_free[i] != 0)) {
            /* the node's memory effect (workload.h), read back by weft */
            if (t->mem_alloc[i] != 0) {
                attr_u64(&A, "mem_alloc_bytes", t->mem_alloc[i]);
            }
            if (t->mem_free[i] != 0) {
                attr_u64(&A, "mem_free_bytes", t->mem_free[i]);
            }
            attr_str(&A, "mem_category", weft_mem_cat_name((weft_mem_cat_t)t->mem_cat[i]));
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
    /* Communicator c's process-group id is c, in decimal: comms[0] is the world, which
     * ASTRA-sim reserves id 0 for; the others are numbered in the workload's order. */
    g_auto(GStrv) ids = g_new0(char *, wl->comms->len + 1);
    for (guint c = 0; c < wl->comms->len; c++) {
        ids[c] = g_strdup_printf("%u", c);
    }
    for (guint r = 0; r < wl->n_ranks; r++) {
        g_autofree char *path = g_strdup_printf("%s.%u.et", prefix, r);
        if (!write_rank(wl, r, ids, path, error)) {
            return FALSE;
        }
    }
    g_autoptr(JsonBuilder) jb = json_builder_new();
    json_builder_begin_object(jb);
    for (guint c = 1; c < wl->comms->len; c++) {
        const weft_comm_t *comm = g_ptr_array_index(wl->comms, c);
        json_builder_set_member_name(jb, ids[c]);
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
