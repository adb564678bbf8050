/* SPDX-License-Identifier: MIT */
/*
 * MSCCL-IR XML: the GMarkup reader of an algorithm (<algo>, <gpu>, <tb>,
 * <step>), its checks (matching sends and receives, dependencies, deadlocks),
 * and its lowering to a weft collective plan (see msccl.h for the model).
 */
#include "coll/msccl.h"

#include <string.h>

#include "coll/coll_private.h"

/* Step types (msccl.h). */
typedef enum {
    ST_S,
    ST_R,
    ST_RCS,
    ST_RRS,
    ST_RRC,
    ST_RRCS,
    ST_CPY,
    ST_RE,
    ST_NOP,
    N_ST
} step_type_t;

static const char *const step_names[N_ST] = {"s",    "r",   "rcs", "rrs", "rrc",
                                             "rrcs", "cpy", "re",  "nop"};

static inline gboolean
type_sends(guint8 t)
{
    return t == ST_S || t == ST_RCS || t == ST_RRS || t == ST_RRCS;
}

static inline gboolean
type_recvs(guint8 t)
{
    return t == ST_R || t == ST_RCS || t == ST_RRS || t == ST_RRC || t == ST_RRCS;
}

static inline gboolean
type_reduces(guint8 t)
{
    return t == ST_RRS || t == ST_RRC || t == ST_RRCS;
}

typedef struct {
    guint8 type;
    guint8 srcbuf; /* 'i', 'o', 's' */
    gint32 srcoff;
    gint32 cnt;
    gint32 depid; /* -1: none */
    gint32 deps;
    gint line;
} step_t;

typedef struct {
    gint32 id;
    gint32 send; /* peer, -1: none */
    gint32 recv;
    gint32 chan;
    gint line;
    GArray *steps; /* of step_t */
} tb_t;

typedef struct {
    gint32 id;
    gint32 chunks[3]; /* i_chunks, o_chunks, s_chunks */
    GPtrArray *tbs;   /* of tb_t, by id once checked */
} gpu_t;

struct weft_coll_msccl {
    char *file;
    char *name;
    weft_coll_op_t op;
    weft_coll_proto_t proto;
    guint nchunks;
    guint nchannels;
    guint ngpus;
    GPtrArray *gpus; /* of gpu_t, by id once checked (NULL where a gpu is absent) */
    /* filled by check(): the flat steps in a topological order */
    guint n_steps;
    guint32 *order;    /* n_steps flat step indexes */
    guint32 *match;    /* per flat step: the flat index of the send it receives, or COLL_NONE */
    guint32 *tb_base;  /* per (gpu, tb): flat index of its first step; see tb_index */
    guint32 *gpu_base; /* ngpus + 1: index into tb_base of each gpu's first tb */
    guint32 *step_tb;  /* per flat step: its (global) thread block index */
    guint32 *tb_gpu;   /* per global thread block: its gpu */
};

static void
tb_free(gpointer p)
{
    tb_t *tb = p;
    if (tb != NULL) {
        g_array_unref(tb->steps);
        g_free(tb);
    }
}

static void
gpu_free(gpointer p)
{
    gpu_t *g = p;
    if (g != NULL) {
        g_ptr_array_unref(g->tbs);
        g_free(g);
    }
}

void
weft_coll_msccl_free(weft_coll_msccl_t *m)
{
    if (m == NULL) {
        return;
    }
    g_free(m->file);
    g_free(m->name);
    if (m->gpus != NULL) {
        g_ptr_array_unref(m->gpus);
    }
    g_free(m->order);
    g_free(m->match);
    g_free(m->tb_base);
    g_free(m->gpu_base);
    g_free(m->step_tb);
    g_free(m->tb_gpu);
    g_free(m);
}

/* ---- reading ----------------------------------------------------------------------- */

typedef struct {
    weft_coll_msccl_t *m;
    gboolean seen_algo;
    gpu_t *gpu; /* the open <gpu> */
    tb_t *tb;   /* the open <tb> */
    gint step;  /* the <step> being read, or -1 */
    GPtrArray *gpus_read;
} reader_t;

static const char *
attr(const char **names, const char **values, const char *key)
{
    for (guint i = 0; names[i] != NULL; i++) {
        if (strcmp(names[i], key) == 0) {
            return values[i];
        }
    }
    return NULL;
}

/* Where the reader is, for messages: "FILE:LINE: gpu G tb T step S". */
static char *
where(const reader_t *r, GMarkupParseContext *ctx)
{
    gint line = 0;
    g_markup_parse_context_get_position(ctx, &line, NULL);
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "%s:%d:", r->m->file, line);
    if (r->gpu != NULL) {
        g_string_append_printf(s, " gpu %d", r->gpu->id);
    }
    if (r->tb != NULL) {
        g_string_append_printf(s, " tb %d", r->tb->id);
    }
    if (r->step >= 0) {
        g_string_append_printf(s, " step %d", r->step);
    }
    return g_string_free(s, FALSE);
}

static gboolean
int_attr(const reader_t *r, GMarkupParseContext *ctx, const char *elem, const char **names,
         const char **values, const char *key, gint64 lo, gint64 hi, gint32 *out, GError **error)
{
    const char *v = attr(names, values, key);
    gint64 x = 0;
    g_autoptr(GError) e = NULL;
    if (v == NULL || !g_ascii_string_to_signed(v, 10, lo, hi, &x, &e)) {
        g_autofree char *w = where(r, ctx);
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                    "%s <%s> %s=%s%s%s: expected an integer in [%" G_GINT64_FORMAT
                    ", %" G_GINT64_FORMAT "]",
                    w, elem, key, v != NULL ? "\"" : "(missing)", v != NULL ? v : "",
                    v != NULL ? "\"" : "", lo, hi);
        return FALSE;
    }
    *out = (gint32)x;
    return TRUE;
}

static gboolean
parse_coll(const char *v, weft_coll_op_t *op)
{
    /* MSCCL's coll names: allreduce, allgather, reducescatter, alltoall, broadcast, reduce */
    return v != NULL && weft_coll_op_from_name(v, op) && *op != WEFT_COLL_BARRIER &&
           *op != WEFT_COLL_REDUCE_SCATTER_BLOCK;
}

static gboolean
parse_proto(const char *v, weft_coll_proto_t *p)
{
    if (v == NULL || g_ascii_strcasecmp(v, "Simple") == 0) {
        *p = WEFT_COLL_PROTO_SIMPLE;
    } else if (g_ascii_strcasecmp(v, "LL128") == 0) {
        *p = WEFT_COLL_PROTO_LL128;
    } else if (g_ascii_strcasecmp(v, "LL") == 0) {
        *p = WEFT_COLL_PROTO_LL;
    } else {
        return FALSE;
    }
    return TRUE;
}

static void
on_start(GMarkupParseContext *ctx, const char *elem, const char **names, const char **values,
         gpointer data, GError **error)
{
    reader_t *r = data;
    weft_coll_msccl_t *m = r->m;
    gint32 v;
    if (strcmp(elem, "algo") == 0) {
        if (r->seen_algo) {
            g_autofree char *w = where(r, ctx);
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                        "%s a second <algo>: a file holds one algorithm", w);
            return;
        }
        r->seen_algo = TRUE;
        const char *coll = attr(names, values, "coll");
        if (!parse_coll(coll, &m->op)) {
            g_autofree char *w = where(r, ctx);
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                        "%s <algo> coll=\"%s\": unknown collective (allreduce, allgather, "
                        "reducescatter, alltoall, broadcast, reduce)",
                        w, coll != NULL ? coll : "(missing)");
            return;
        }
        const char *proto = attr(names, values, "proto");
        if (!parse_proto(proto, &m->proto)) {
            g_autofree char *w = where(r, ctx);
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                        "%s <algo> proto=\"%s\": unknown protocol (Simple, LL128, LL)", w, proto);
            return;
        }
        if (!int_attr(r, ctx, elem, names, values, "ngpus", 1, WEFT_MSCCL_MAX_GPUS, &v, error)) {
            return;
        }
        m->ngpus = (guint)v;
        if (!int_attr(r, ctx, elem, names, values, "nchunksperloop", 1, WEFT_MSCCL_MAX_CHUNKS, &v,
                      error)) {
            return;
        }
        m->nchunks = (guint)v;
        if (!int_attr(r, ctx, elem, names, values, "nchannels", 1, 64, &v, error)) {
            return;
        }
        m->nchannels = (guint)v;
        m->name = g_strdup(attr(names, values, "name") != NULL ? attr(names, values, "name") : "");
        return;
    }
    if (!r->seen_algo) {
        g_autofree char *w = where(r, ctx);
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                    "%s <%s> outside <algo>: the root element must be <algo>", w, elem);
        return;
    }
    if (strcmp(elem, "gpu") == 0 && r->gpu == NULL) {
        gpu_t *g = g_new0(gpu_t, 1);
        g->tbs = g_ptr_array_new_with_free_func(tb_free);
        g_ptr_array_add(r->gpus_read, g);
        r->gpu = g;
        if (!int_attr(r, ctx, elem, names, values, "id", 0, (gint64)m->ngpus - 1, &g->id, error)) {
            return;
        }
        static const char *const keys[3] = {"i_chunks", "o_chunks", "s_chunks"};
        for (guint k = 0; k < 3; k++) {
            if (!int_attr(r, ctx, elem, names, values, keys[k], 0, WEFT_MSCCL_MAX_CHUNKS,
                          &g->chunks[k], error)) {
                return;
            }
        }
        return;
    }
    if (strcmp(elem, "tb") == 0 && r->gpu != NULL && r->tb == NULL) {
        if (r->gpu->tbs->len >= WEFT_MSCCL_MAX_TBS) {
            g_autofree char *w = where(r, ctx);
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                        "%s more than %d thread blocks", w, WEFT_MSCCL_MAX_TBS);
            return;
        }
        tb_t *tb = g_new0(tb_t, 1);
        tb->steps = g_array_new(FALSE, FALSE, sizeof(step_t));
        g_markup_parse_context_get_position(ctx, &tb->line, NULL);
        g_ptr_array_add(r->gpu->tbs, tb);
        if (!int_attr(r, ctx, elem, names, values, "id", 0, WEFT_MSCCL_MAX_TBS - 1, &tb->id,
                      error)) {
            return;
        }
        r->tb = tb;
        if (!int_attr(r, ctx, elem, names, values, "send", -1, (gint64)m->ngpus - 1, &tb->send,
                      error) ||
            !int_attr(r, ctx, elem, names, values, "recv", -1, (gint64)m->ngpus - 1, &tb->recv,
                      error) ||
            !int_attr(r, ctx, elem, names, values, "chan", 0, (gint64)m->nchannels - 1, &tb->chan,
                      error)) {
            return;
        }
        if (tb->send == r->gpu->id || tb->recv == r->gpu->id) {
            g_autofree char *w = where(r, ctx);
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                        "%s send=%d recv=%d: a thread block's peer cannot be its own gpu", w,
                        tb->send, tb->recv);
        }
        return;
    }
    if (strcmp(elem, "step") == 0 && r->tb != NULL) {
        g_autofree char *w = where(r, ctx);
        step_t st = {0};
        g_markup_parse_context_get_position(ctx, &st.line, NULL);
        gint32 s;
        if (!int_attr(r, ctx, elem, names, values, "s", 0, WEFT_MSCCL_MAX_STEPS - 1, &s, error)) {
            return;
        }
        if ((guint)s != r->tb->steps->len) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                        "%s step s=%d: expected s=%u (steps are numbered 0, 1, ... in order)", w, s,
                        r->tb->steps->len);
            return;
        }
        r->step = s;
        const char *type = attr(names, values, "type");
        guint t = 0;
        while (t < N_ST && (type == NULL || strcmp(type, step_names[t]) != 0)) {
            t++;
        }
        if (t == N_ST) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                        "%s step %d type=\"%s\": unknown step type (s, r, rcs, rrs, rrc, rrcs, "
                        "cpy, re, nop)",
                        w, s, type != NULL ? type : "(missing)");
            return;
        }
        st.type = (guint8)t;
        const char *srcbuf = attr(names, values, "srcbuf");
        if (srcbuf == NULL || strlen(srcbuf) != 1 || strchr("ios", srcbuf[0]) == NULL) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                        "%s step %d srcbuf=\"%s\": expected i, o or s", w, s,
                        srcbuf != NULL ? srcbuf : "(missing)");
            return;
        }
        st.srcbuf = (guint8)srcbuf[0];
        gint32 hasdep;
        if (!int_attr(r, ctx, elem, names, values, "srcoff", -1, WEFT_MSCCL_MAX_CHUNKS, &st.srcoff,
                      error) ||
            !int_attr(r, ctx, elem, names, values, "cnt", 0, WEFT_MSCCL_MAX_CHUNKS, &st.cnt,
                      error) ||
            !int_attr(r, ctx, elem, names, values, "depid", -1, WEFT_MSCCL_MAX_TBS - 1, &st.depid,
                      error) ||
            !int_attr(r, ctx, elem, names, values, "deps", -1, WEFT_MSCCL_MAX_STEPS - 1, &st.deps,
                      error) ||
            !int_attr(r, ctx, elem, names, values, "hasdep", 0, 1, &hasdep, error)) {
            return;
        }
        if (st.type != ST_NOP) {
            gint32 cap = r->gpu->chunks[st.srcbuf == 'i' ? 0 : st.srcbuf == 'o' ? 1 : 2];
            if (st.srcoff < 0 || (gint64)st.srcoff + st.cnt > MAX(cap, (gint32)m->nchunks)) {
                g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                            "%s step %d srcoff=%d cnt=%d: beyond the %d chunks of buffer %c", w, s,
                            st.srcoff, st.cnt, MAX(cap, (gint32)m->nchunks), st.srcbuf);
                return;
            }
        }
        if ((st.depid < 0) != (st.deps < 0)) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                        "%s step %d depid=%d deps=%d: both or neither must be -1", w, s, st.depid,
                        st.deps);
            return;
        }
        g_array_append_val(r->tb->steps, st);
        r->step = -1;
        return;
    }
    g_autofree char *w = where(r, ctx);
    g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE,
                "%s unexpected <%s> (an <algo> holds <gpu>s, a <gpu> <tb>s, a <tb> <step>s)", w,
                elem);
}

static void
on_end(GMarkupParseContext *ctx, const char *elem, gpointer data, GError **error)
{
    (void)ctx;
    (void)error;
    reader_t *r = data;
    if (strcmp(elem, "tb") == 0) {
        r->tb = NULL;
    } else if (strcmp(elem, "gpu") == 0) {
        r->gpu = NULL;
    }
}

/* ---- checking ------------------------------------------------------------------------ */

static gboolean value_error(GError **error, const weft_coll_msccl_t *m, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

static gboolean
value_error(GError **error, const weft_coll_msccl_t *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE, "%s: %s", m->file, msg);
    return FALSE;
}

/* Flat step @f -> (gpu, tb within the gpu, step within the tb). O(1). */
static void
unflat(const weft_coll_msccl_t *m, guint32 f, guint *g, guint *t, guint *s)
{
    guint32 ti = m->step_tb[f];
    *g = m->tb_gpu[ti];
    *t = ti - m->gpu_base[*g];
    *s = f - m->tb_base[ti];
}

static inline guint64
conn_key(guint src, guint dst, guint chan)
{
    return ((guint64)src << 40) | ((guint64)dst << 16) | chan;
}

static gboolean
check(weft_coll_msccl_t *m, GError **error)
{
    guint G = m->ngpus;
    /* gpus by id, tbs by id (dense 0..k-1 as MSCCL requires) */
    for (guint gi = 0; gi < G; gi++) {
        gpu_t *g = g_ptr_array_index(m->gpus, gi);
        if (g == NULL) {
            continue;
        }
        guint k = g->tbs->len;
        g_autoptr(GPtrArray) by_id = g_ptr_array_new_full(k, NULL);
        g_ptr_array_set_size(by_id, (gint)k);
        for (guint i = 0; i < k; i++) {
            tb_t *tb = g_ptr_array_index(g->tbs, i);
            if ((guint)tb->id >= k || g_ptr_array_index(by_id, tb->id) != NULL) {
                return value_error(error, m,
                                   "line %d: gpu %u tb %d: thread block ids must be 0..%u, each "
                                   "once",
                                   tb->line, gi, tb->id, k - 1);
            }
            g_ptr_array_index(by_id, tb->id) = tb;
        }
        /* move ownership */
        g_ptr_array_set_free_func(by_id, tb_free);
        g_ptr_array_set_free_func(g->tbs, NULL);
        g_ptr_array_unref(g->tbs);
        g->tbs = g_steal_pointer(&by_id);
    }
    m->gpu_base = g_new0(guint32, G + 1);
    for (guint gi = 0; gi < G; gi++) {
        gpu_t *g = g_ptr_array_index(m->gpus, gi);
        m->gpu_base[gi + 1] = m->gpu_base[gi] + (g != NULL ? g->tbs->len : 0);
    }
    guint n_tbs = m->gpu_base[G];
    m->tb_base = g_new0(guint32, n_tbs + 1);
    guint64 total = 0;
    for (guint gi = 0; gi < G; gi++) {
        gpu_t *g = g_ptr_array_index(m->gpus, gi);
        for (guint t = 0; g != NULL && t < g->tbs->len; t++) {
            tb_t *tb = g_ptr_array_index(g->tbs, t);
            m->tb_base[m->gpu_base[gi] + t] = (guint32)total;
            total += tb->steps->len;
        }
    }
    if (total >= G_MAXUINT32 / 2) {
        return value_error(error, m, "%" G_GUINT64_FORMAT " steps, more than a plan may hold",
                           total);
    }
    m->tb_base[n_tbs] = (guint32)total;
    m->n_steps = (guint)total;
    guint N = m->n_steps;
    m->step_tb = g_new(guint32, MAX(N, 1));
    m->tb_gpu = g_new(guint32, MAX(n_tbs, 1));
    for (guint gi = 0; gi < G; gi++) {
        for (guint ti = m->gpu_base[gi]; ti < m->gpu_base[gi + 1]; ti++) {
            m->tb_gpu[ti] = gi;
            for (guint32 f = m->tb_base[ti]; f < m->tb_base[ti + 1]; f++) {
                m->step_tb[f] = ti;
            }
        }
    }

    /* dependencies exist */
    for (guint gi = 0; gi < G; gi++) {
        gpu_t *g = g_ptr_array_index(m->gpus, gi);
        for (guint t = 0; g != NULL && t < g->tbs->len; t++) {
            tb_t *tb = g_ptr_array_index(g->tbs, t);
            for (guint s = 0; s < tb->steps->len; s++) {
                const step_t *st = &g_array_index(tb->steps, step_t, s);
                if (st->depid >= 0) {
                    tb_t *d = (guint)st->depid < g->tbs->len ? g_ptr_array_index(g->tbs, st->depid)
                                                             : NULL;
                    if (d == NULL || (guint)st->deps >= d->steps->len ||
                        (d == tb && (guint)st->deps >= s)) {
                        return value_error(
                            error, m,
                            "line %d: gpu %u tb %u step %u: depid=%d deps=%d: no such earlier "
                            "step",
                            st->line, gi, t, s, st->depid, st->deps);
                    }
                }
                if (type_sends(st->type) && tb->send < 0) {
                    return value_error(error, m,
                                       "line %d: gpu %u tb %u step %u: type %s sends but the "
                                       "thread block has send=-1",
                                       st->line, gi, t, s, step_names[st->type]);
                }
                if (type_recvs(st->type) && tb->recv < 0) {
                    return value_error(error, m,
                                       "line %d: gpu %u tb %u step %u: type %s receives but the "
                                       "thread block has recv=-1",
                                       st->line, gi, t, s, step_names[st->type]);
                }
            }
        }
    }

    /* connections: one thread block per (src, dst, chan) at each end */
    g_autoptr(GHashTable) senders = g_hash_table_new(g_int64_hash, g_int64_equal);
    g_autoptr(GHashTable) receivers = g_hash_table_new(g_int64_hash, g_int64_equal);
    g_autofree guint64 *skeys = g_new(guint64, MAX(n_tbs, 1));
    g_autofree guint64 *rkeys = g_new(guint64, MAX(n_tbs, 1));
    for (guint gi = 0; gi < G; gi++) {
        gpu_t *g = g_ptr_array_index(m->gpus, gi);
        for (guint t = 0; g != NULL && t < g->tbs->len; t++) {
            tb_t *tb = g_ptr_array_index(g->tbs, t);
            guint ti = m->gpu_base[gi] + t;
            if (tb->send >= 0) {
                skeys[ti] = conn_key(gi, (guint)tb->send, (guint)tb->chan);
                if (!g_hash_table_insert(senders, &skeys[ti], GUINT_TO_POINTER(ti + 1))) {
                    return value_error(error, m,
                                       "line %d: gpu %u tb %u: a second thread block sending to "
                                       "gpu %d on channel %d",
                                       tb->line, gi, t, tb->send, tb->chan);
                }
            }
            if (tb->recv >= 0) {
                rkeys[ti] = conn_key((guint)tb->recv, gi, (guint)tb->chan);
                if (!g_hash_table_insert(receivers, &rkeys[ti], GUINT_TO_POINTER(ti + 1))) {
                    return value_error(error, m,
                                       "line %d: gpu %u tb %u: a second thread block receiving "
                                       "from gpu %d on channel %d",
                                       tb->line, gi, t, tb->recv, tb->chan);
                }
            }
        }
    }

    /* match the k-th send on each connection with its k-th receive */
    m->match = g_new(guint32, MAX(N, 1));
    memset(m->match, 0xff, sizeof(guint32) * MAX(N, 1));
    for (guint gi = 0; gi < G; gi++) {
        gpu_t *g = g_ptr_array_index(m->gpus, gi);
        for (guint t = 0; g != NULL && t < g->tbs->len; t++) {
            tb_t *tb = g_ptr_array_index(g->tbs, t);
            guint ti = m->gpu_base[gi] + t;
            const tb_t *rt = NULL;
            guint rti = 0, rg = 0;
            if (tb->send >= 0) {
                gpointer v = g_hash_table_lookup(receivers, &skeys[ti]);
                if (v != NULL) {
                    rti = GPOINTER_TO_UINT(v) - 1;
                    rg = (guint)tb->send;
                    rt = g_ptr_array_index(((gpu_t *)g_ptr_array_index(m->gpus, rg))->tbs,
                                           rti - m->gpu_base[rg]);
                }
            }
            guint rs = 0;
            for (guint s = 0; s < tb->steps->len; s++) {
                const step_t *st = &g_array_index(tb->steps, step_t, s);
                if (!type_sends(st->type)) {
                    continue;
                }
                while (rt != NULL && rs < rt->steps->len &&
                       !type_recvs(g_array_index(rt->steps, step_t, rs).type)) {
                    rs++;
                }
                if (rt == NULL || rs >= rt->steps->len) {
                    return value_error(error, m,
                                       "line %d: gpu %u tb %u step %u: type %s sends to gpu %d "
                                       "on channel %d, which has no receive left for it",
                                       st->line, gi, t, s, step_names[st->type], tb->send,
                                       tb->chan);
                }
                const step_t *rst = &g_array_index(rt->steps, step_t, rs);
                if (rst->cnt != st->cnt) {
                    return value_error(error, m,
                                       "line %d: gpu %u tb %u step %u sends cnt=%d but gpu %u tb "
                                       "%u step %u receives cnt=%d",
                                       st->line, gi, t, s, st->cnt, rg, rti - m->gpu_base[rg], rs,
                                       rst->cnt);
                }
                m->match[m->tb_base[rti] + rs] = m->tb_base[ti] + s;
                rs++;
            }
        }
    }
    /* every receive matched */
    for (guint gi = 0; gi < G; gi++) {
        gpu_t *g = g_ptr_array_index(m->gpus, gi);
        for (guint t = 0; g != NULL && t < g->tbs->len; t++) {
            tb_t *tb = g_ptr_array_index(g->tbs, t);
            guint ti = m->gpu_base[gi] + t;
            for (guint s = 0; s < tb->steps->len; s++) {
                const step_t *st = &g_array_index(tb->steps, step_t, s);
                if (type_recvs(st->type) && m->match[m->tb_base[ti] + s] == COLL_NONE) {
                    return value_error(error, m,
                                       "line %d: gpu %u tb %u step %u: type %s receives from gpu "
                                       "%d on channel %d, which sends nothing for it",
                                       st->line, gi, t, s, step_names[st->type], tb->recv,
                                       tb->chan);
                }
            }
        }
    }

    /* topological order (Kahn): preds are the tb's previous step, the dep, the match */
    g_autofree guint32 *pred = g_new(guint32, 3 * (gsize)MAX(N, 1));
    g_autofree guint32 *indeg = g_new0(guint32, MAX(N, 1));
    g_autofree guint32 *soff = g_new0(guint32, N + 1);
    for (guint gi = 0; gi < G; gi++) {
        gpu_t *g = g_ptr_array_index(m->gpus, gi);
        for (guint t = 0; g != NULL && t < g->tbs->len; t++) {
            tb_t *tb = g_ptr_array_index(g->tbs, t);
            guint base = m->tb_base[m->gpu_base[gi] + t];
            for (guint s = 0; s < tb->steps->len; s++) {
                const step_t *st = &g_array_index(tb->steps, step_t, s);
                guint32 f = base + s;
                pred[3 * f] = s > 0 ? f - 1 : COLL_NONE;
                pred[3 * f + 1] =
                    st->depid >= 0 ? m->tb_base[m->gpu_base[gi] + st->depid] + st->deps : COLL_NONE;
                pred[3 * f + 2] = m->match[f];
                for (guint k = 0; k < 3; k++) {
                    if (pred[3 * f + k] != COLL_NONE) {
                        indeg[f]++;
                        soff[pred[3 * f + k] + 1]++;
                    }
                }
            }
        }
    }
    for (guint f = 0; f < N; f++) {
        soff[f + 1] += soff[f];
    }
    g_autofree guint32 *succ = g_new(guint32, MAX(soff[N], 1));
    g_autofree guint32 *fill = g_memdup2(soff, sizeof(guint32) * (N + 1));
    for (guint f = 0; f < N; f++) {
        for (guint k = 0; k < 3; k++) {
            if (pred[3 * f + k] != COLL_NONE) {
                succ[fill[pred[3 * f + k]]++] = f;
            }
        }
    }
    m->order = g_new(guint32, MAX(N, 1));
    guint head = 0, tail = 0;
    for (guint f = 0; f < N; f++) {
        if (indeg[f] == 0) {
            m->order[tail++] = f;
        }
    }
    while (head < tail) {
        guint32 f = m->order[head++];
        for (guint32 e = soff[f]; e < soff[f + 1]; e++) {
            if (--indeg[succ[e]] == 0) {
                m->order[tail++] = succ[e];
            }
        }
    }
    if (tail < N) {
        guint32 f = 0;
        while (indeg[f] == 0) {
            f++;
        }
        guint g, t, s;
        unflat(m, f, &g, &t, &s);
        return value_error(error, m,
                           "gpu %u tb %u step %u waits in a cycle of dependencies and receives "
                           "(the algorithm deadlocks)",
                           g, t, s);
    }
    return TRUE;
}

weft_coll_msccl_t *
weft_coll_msccl_parse(const char *text, gssize len, const char *name, GError **error)
{
    g_return_val_if_fail(text != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    g_autoptr(weft_coll_msccl_t) m = g_new0(weft_coll_msccl_t, 1);
    m->file = g_strdup(name != NULL ? name : "(msccl)");
    reader_t r = {.m = m, .step = -1, .gpus_read = g_ptr_array_new_with_free_func(gpu_free)};
    static const GMarkupParser parser = {on_start, on_end, NULL, NULL, NULL};
    GMarkupParseContext *ctx = g_markup_parse_context_new(&parser, 0, &r, NULL);
    GError *e = NULL;
    gboolean ok = g_markup_parse_context_parse(ctx, text, len, &e) &&
                  g_markup_parse_context_end_parse(ctx, &e);
    g_markup_parse_context_free(ctx);
    if (!ok) {
        g_ptr_array_unref(r.gpus_read);
        if (e->domain != WEFT_COLL_ERROR) {
            g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE, "%s: %s", m->file,
                        e->message);
            g_error_free(e);
        } else {
            g_propagate_error(error, e);
        }
        return NULL;
    }
    if (!r.seen_algo) {
        g_ptr_array_unref(r.gpus_read);
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE, "%s: no <algo> element",
                    m->file);
        return NULL;
    }
    /* gpus by id */
    m->gpus = g_ptr_array_new_full(m->ngpus, gpu_free);
    g_ptr_array_set_size(m->gpus, (gint)m->ngpus);
    g_ptr_array_set_free_func(r.gpus_read, NULL);
    gboolean dup = FALSE;
    gint dup_id = 0;
    for (guint i = 0; i < r.gpus_read->len; i++) {
        gpu_t *g = g_ptr_array_index(r.gpus_read, i);
        if (g_ptr_array_index(m->gpus, g->id) != NULL) {
            dup = TRUE;
            dup_id = g->id;
            gpu_free(g);
            continue;
        }
        g_ptr_array_index(m->gpus, g->id) = g;
    }
    g_ptr_array_unref(r.gpus_read);
    if (dup) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_PARSE, "%s: gpu %d is given twice",
                    m->file, dup_id);
        return NULL;
    }
    if (!check(m, error)) {
        return NULL;
    }
    return g_steal_pointer(&m);
}

weft_coll_msccl_t *
weft_coll_msccl_load(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_autofree char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &text, &len, error)) {
        return NULL;
    }
    return weft_coll_msccl_parse(text, (gssize)len, path, error);
}

weft_coll_op_t
weft_coll_msccl_op(const weft_coll_msccl_t *m)
{
    return m->op;
}

guint
weft_coll_msccl_n_gpus(const weft_coll_msccl_t *m)
{
    return m->ngpus;
}

const char *
weft_coll_msccl_name(const weft_coll_msccl_t *m)
{
    return m->name;
}

/* ---- planning ------------------------------------------------------------------------ */

/* The first byte of chunk @c of a buffer of @B bytes cut into @N: floor(c B / N), without
 * overflow (c < 2^25, N < 2^25). */
static inline guint64
chunk_off(guint64 B, guint64 N, guint64 c)
{
    return (B / N) * c + ((B % N) * c) / N;
}

typedef struct {
    const weft_coll_msccl_t *m;
    guint32 *xfer_of; /* per flat step */
    GArray *xfers;
    GArray *deps;
} plan_ctx_t;

static const step_t *
step_at(const weft_coll_msccl_t *m, guint32 f, guint *gpu, const tb_t **tbp)
{
    guint g, t, s;
    unflat(m, f, &g, &t, &s);
    const gpu_t *gp = g_ptr_array_index(m->gpus, g);
    const tb_t *tb = g_ptr_array_index(gp->tbs, t);
    *gpu = g;
    *tbp = tb;
    return &g_array_index(tb->steps, step_t, s);
}

weft_coll_plan_t *
weft_coll_msccl_plan(const weft_coll_msccl_t *m, const weft_coll_layout_t *layout,
                     guint64 size_bytes, GError **error)
{
    g_return_val_if_fail(m != NULL && layout != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    guint n = layout->n_members;
    if (n != m->ngpus) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_VALUE,
                    "%s: ngpus=%u but the communicator has %u members", m->file, m->ngpus, n);
        return NULL;
    }
    g_autoptr(weft_coll_plan_t) plan = g_new0(weft_coll_plan_t, 1);
    plan->op = m->op;
    plan->algo = WEFT_COLL_ALGO_DIRECT;
    plan->custom = TRUE;
    plan->proto = m->proto;
    plan->n_members = n;
    plan->size_bytes = size_bytes;
    gboolean blocks = m->op == WEFT_COLL_ALL_GATHER || m->op == WEFT_COLL_GATHER ||
                      m->op == WEFT_COLL_SCATTER || m->op == WEFT_COLL_ALL_TO_ALL;
    plan->space_bytes = blocks ? size_bytes * n : size_bytes;
    guint64 buffer = m->op == WEFT_COLL_ALL_TO_ALL ? size_bytes : plan->space_bytes;
    plan->channels = m->nchannels;
    plan->chunks = 1;
    plan->exec.efficiency = weft_coll_proto_efficiency(m->proto);
    plan->exec.hbm_Bps = layout->hbm_Bps;

    guint N = m->n_steps;
    plan_ctx_t c = {
        .m = m,
        .xfer_of = g_new(guint32, MAX(N, 1)),
        .xfers = g_array_sized_new(FALSE, FALSE, sizeof(weft_coll_xfer_t), N),
        .deps = g_array_sized_new(FALSE, FALSE, sizeof(coll_dep_t), 3 * (gsize)N),
    };
    for (guint i = 0; i < N; i++) {
        guint32 f = m->order[i];
        guint g;
        const tb_t *tb;
        const step_t *st = step_at(m, f, &g, &tb);
        guint64 bytes = 0, off = 0;
        if (st->type != ST_NOP && st->cnt > 0) {
            off = chunk_off(buffer, m->nchunks, (guint64)st->srcoff);
            bytes = chunk_off(buffer, m->nchunks, (guint64)st->srcoff + st->cnt) - off;
        }
        weft_coll_xfer_t x = {.src = g, .dst = g, .channel = (guint16)tb->chan, .sharing = 1};
        if (type_sends(st->type)) {
            x.dst = (guint32)tb->send;
            x.bytes = bytes;
            x.offset = off;
            if (layout->dom[g] != layout->dom[x.dst]) {
                x.flags |= WEFT_COLL_XFER_INTER;
            }
        } else {
            x.flags = WEFT_COLL_XFER_COPY;
            x.bytes = (st->type == ST_CPY || st->type == ST_RE) ? bytes : 0;
            x.offset = off;
        }
        guint32 me = c.xfers->len;
        g_array_append_val(c.xfers, x);
        c.xfer_of[f] = me;
        /* the tb's previous step and the dep: sent (a send) or done (anything else) */
        guint32 p[2];
        p[0] = f > m->tb_base[m->step_tb[f]] ? f - 1 : COLL_NONE;
        p[1] = st->depid >= 0 ? m->tb_base[m->gpu_base[g] + st->depid] + st->deps : COLL_NONE;
        if (p[1] == p[0]) {
            p[1] = COLL_NONE;
        }
        guint32 r = m->match[f];
        for (guint k = 0; k < 2; k++) {
            if (p[k] == COLL_NONE || p[k] == r) {
                continue;
            }
            const weft_coll_xfer_t *px = &g_array_index(c.xfers, weft_coll_xfer_t, c.xfer_of[p[k]]);
            coll_dep_t d = {.pred = c.xfer_of[p[k]],
                            .succ = me,
                            .kind = (px->flags & WEFT_COLL_XFER_COPY) ? WEFT_COLL_DEP_DATA
                                                                      : WEFT_COLL_DEP_LINK};
            g_array_append_val(c.deps, d);
        }
        if (r != COLL_NONE) {
            weft_coll_xfer_t *rx = &g_array_index(c.xfers, weft_coll_xfer_t, c.xfer_of[r]);
            if (type_reduces(st->type)) {
                rx->flags |= WEFT_COLL_XFER_REDUCE;
            }
            coll_dep_t d = {.pred = c.xfer_of[r], .succ = me, .kind = WEFT_COLL_DEP_DATA};
            g_array_append_val(c.deps, d);
        }
    }
    g_free(c.xfer_of);

    /* sharing: the channels with transfers on each (src, dst) pair */
    guint nx = c.xfers->len;
    weft_coll_xfer_t *xs = (weft_coll_xfer_t *)(void *)c.xfers->data;
    {
        g_autoptr(GHashTable) chans = g_hash_table_new(g_int64_hash, g_int64_equal);
        g_autoptr(GHashTable) pairs = g_hash_table_new(g_int64_hash, g_int64_equal);
        g_autofree guint64 *keys = g_new(guint64, 2 * (gsize)MAX(nx, 1));
        g_autofree guint *counts = g_new0(guint, MAX(nx, 1));
        guint n_pairs = 0;
        for (guint t = 0; t < nx; t++) {
            if (xs[t].flags & WEFT_COLL_XFER_COPY) {
                continue;
            }
            keys[2 * t] = conn_key(xs[t].src, xs[t].dst, xs[t].channel);
            keys[2 * t + 1] = conn_key(xs[t].src, xs[t].dst, 0);
            gpointer pi = g_hash_table_lookup(pairs, &keys[2 * t + 1]);
            if (pi == NULL) {
                pi = GUINT_TO_POINTER(++n_pairs);
                g_hash_table_insert(pairs, &keys[2 * t + 1], pi);
            }
            if (g_hash_table_add(chans, &keys[2 * t])) {
                counts[GPOINTER_TO_UINT(pi) - 1]++;
            }
        }
        for (guint t = 0; t < nx; t++) {
            if (!(xs[t].flags & WEFT_COLL_XFER_COPY)) {
                guint pi = GPOINTER_TO_UINT(g_hash_table_lookup(pairs, &keys[2 * t + 1]));
                xs[t].sharing = (guint16)MIN(MAX(counts[pi - 1], 1), G_MAXUINT16);
                plan->moved_bytes += xs[t].bytes;
            }
        }
    }

    /* pack: CSR of successors */
    guint nd = c.deps->len;
    const coll_dep_t *deps = (const coll_dep_t *)(void *)c.deps->data;
    plan->n_xfers = nx;
    plan->n_preds = g_new0(guint32, MAX(nx, 1));
    plan->succ_off = g_new0(guint32, nx + 1);
    plan->succ = g_new(guint32, MAX(nd, 1));
    plan->succ_kind = g_new(guint8, MAX(nd, 1));
    for (guint e = 0; e < nd; e++) {
        g_assert(deps[e].pred < deps[e].succ);
        plan->n_preds[deps[e].succ]++;
        plan->succ_off[deps[e].pred + 1]++;
    }
    for (guint t = 0; t < nx; t++) {
        plan->succ_off[t + 1] += plan->succ_off[t];
    }
    g_autofree guint32 *fill = g_memdup2(plan->succ_off, sizeof(guint32) * (nx + 1));
    for (guint e = 0; e < nd; e++) {
        guint32 at = fill[deps[e].pred]++;
        plan->succ[at] = deps[e].succ;
        plan->succ_kind[at] = deps[e].kind;
    }
    g_array_unref(c.deps);
    plan->xfers = (weft_coll_xfer_t *)(void *)g_array_free(c.xfers, FALSE);
    return g_steal_pointer(&plan);
}
