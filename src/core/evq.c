/* SPDX-License-Identifier: MIT */
/*
 * The event queue: 16-byte keys over a pool of event slots, ordered by a 4-ary
 * min-heap or a radix queue. See evq.h for the model, limits and complexity.
 *
 * The file has four parts: keys and the slot pool (shared), the heap, the radix
 * queue, and the public functions, which dispatch on the queue's kind.
 */
#define G_LOG_DOMAIN "weft-core"

#include "core/evq.h"

#include <string.h>

#include "core/evq_private.h"
#include "core/keyfile.h"

/* ---- keys ------------------------------------------------------------------
 * A key is the event's time with its sign bit flipped (so unsigned order is
 * signed order) and one word (local sequence << 32 | slot). Keys order by
 * (time, local sequence): sequences are unique, so the slot in the low bits
 * never decides. The local sequence is the insertion number within the current
 * numbering (see renumber()); weft_event_t.seq reports the global one. */
typedef struct {
    guint64 time;
    guint64 sk;
} evkey_t;

#define SLOT_BITS 32
#define SLOT_MASK ((guint64)0xffffffffu)
#define SEQ_LIMIT ((guint64)1 << (64 - SLOT_BITS))
#define NO_SLOT G_MAXUINT32 /* the free list's end; never a slot index */

static inline guint64
time_key(weft_time_t t)
{
    return (guint64)t ^ ((guint64)1 << 63);
}

static inline weft_time_t
key_time(guint64 k)
{
    return (weft_time_t)(k ^ ((guint64)1 << 63));
}

static inline gboolean
key_less(evkey_t a, evkey_t b)
{
#ifdef __SIZEOF_INT128__
    /* one 128-bit comparison (cmp + sbb), no branch */
    unsigned __int128 x = ((unsigned __int128)a.time << 64) | a.sk;
    unsigned __int128 y = ((unsigned __int128)b.time << 64) | b.sk;
    return x < y;
#else
    return a.time < b.time || (a.time == b.time && a.sk < b.sk);
#endif
}

static int
key_cmp(const void *a, const void *b)
{
    const evkey_t *x = a, *y = b;
    return key_less(*x, *y) ? -1 : key_less(*y, *x) ? 1 : 0;
}

static inline guint32
key_slot(evkey_t k)
{
    return (guint32)(k.sk & SLOT_MASK);
}

/* ---- the queue -------------------------------------------------------------- */

enum { SLOT_FREE = 0, SLOT_PENDING = 1, SLOT_CANCELLED = 2 };

/* 32 bytes, so a slot never straddles two cache lines. */
typedef struct {
    weft_event_fn fn;
    void *ctx;
    void *data; /* when free: the next free slot's index, or NO_SLOT */
    guint32 generation;
    guint32 state;
} slot_t;

/* Radix buckets: bucket 0 holds the keys at time `last`, popped from `head`;
 * bucket b >= 1 those whose time differs from `last` first in bit b - 1. Each
 * holds its keys in sequence order (see the radix section). */
enum { N_BUCKETS = 65 };

typedef struct {
    evkey_t *keys;
    gsize n, cap;
} bucket_t;

enum {
    D = 4, /* the heap's arity */
    /* heap[0] sits D - 1 keys into a 64-byte-aligned block, so every group of
     * siblings D i + 1 .. D i + D fills one cache line */
    HEAP_PAD = D - 1,
    HEAP_ALIGN = 64,
    MIN_CAPACITY = 64,
    /* cancelled keys are dropped in bulk once there are more than this many and
     * more than live ones */
    COMPACT_MIN = 1024,
};

struct weft_evq {
    weft_evq_kind_t kind;
    slot_t *slots;
    guint32 n_slots, cap_slots;
    guint32 free_head;
    gsize live; /* pending, not cancelled */
    gsize dead; /* cancelled, key still queued */
    /* sequences: the global sequence of local l is remap[l] if l < remap_n, else
     * seq_base + l */
    guint64 next_local;
    guint64 seq_limit;
    guint64 *remap;
    guint64 remap_n;
    guint64 seq_base;
    guint64 floor; /* the time key of the last popped event (0 before any) */
    /* WEFT_EVQ_HEAP */
    evkey_t *heap; /* heap[i] is element i; heap - HEAP_PAD is the aligned block */
    gsize n, cap;
    /* WEFT_EVQ_RADIX */
    guint64 last;     /* every queued key's time is >= last */
    guint64 nonempty; /* bit b - 1 set: bucket b >= 1 holds keys */
    gsize head;       /* bucket 0's next key */
    bucket_t buckets[N_BUCKETS];
};

static const char *const kind_names[WEFT_EVQ_N_KINDS + 1] = {"heap", "radix", NULL};

static inline guint64
global_seq(const weft_evq_t *q, guint64 local)
{
    return local < q->remap_n ? q->remap[local] : q->seq_base + local;
}

static guint32
alloc_slot(weft_evq_t *q)
{
    guint32 i = q->free_head;
    if (G_LIKELY(i != NO_SLOT)) {
        q->free_head = (guint32)GPOINTER_TO_SIZE(q->slots[i].data);
        return i;
    }
    if (q->n_slots == q->cap_slots) {
        if (q->cap_slots == NO_SLOT) {
            g_error("weft_evq: more than %u pending events", NO_SLOT);
        }
        guint32 cap = q->cap_slots == 0            ? MIN_CAPACITY
                      : q->cap_slots > NO_SLOT / 2 ? NO_SLOT
                                                   : 2 * q->cap_slots;
        q->slots = g_renew(slot_t, q->slots, cap);
        memset(q->slots + q->cap_slots, 0, (gsize)(cap - q->cap_slots) * sizeof(slot_t));
        q->cap_slots = cap;
    }
    return q->n_slots++;
}

static inline void
free_slot(weft_evq_t *q, guint32 i)
{
    slot_t *s = &q->slots[i];
    s->state = SLOT_FREE;
    s->data = GSIZE_TO_POINTER(q->free_head);
    q->free_head = i;
}

/* ---- the 4-ary heap ----------------------------------------------------------- */

static void
heap_grow(weft_evq_t *q)
{
    gsize cap = q->cap == 0 ? MIN_CAPACITY : 2 * q->cap;
    evkey_t *block = g_aligned_alloc(cap + HEAP_PAD, sizeof(evkey_t), HEAP_ALIGN);
    if (q->heap != NULL) {
        memcpy(block + HEAP_PAD, q->heap, q->n * sizeof(evkey_t));
        g_aligned_free(q->heap - HEAP_PAD);
    }
    q->heap = block + HEAP_PAD;
    q->cap = cap;
}

static inline void
sift_up(evkey_t *h, gsize i, evkey_t e)
{
    while (i > 0) {
        gsize parent = (i - 1) / D;
        if (!key_less(e, h[parent])) {
            break;
        }
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

/* @b if @take_b else @a, with a mask: GCC compiles `take_b ? b : a` here to a
 * branch, and which sibling is least is a coin toss the predictor loses (the
 * mask made the 1 k hold benchmark ~20 % faster). */
static inline gsize
pick(gsize a, gsize b, gboolean take_b)
{
    gsize mask = (gsize)0 - (gsize)take_b;
    return a ^ ((a ^ b) & mask);
}

/* The index of the least of the D = 4 siblings from @c, as a tournament. */
static inline gsize
min_child(const evkey_t *h, gsize c)
{
    gsize a = c + (gsize)key_less(h[c + 1], h[c]);
    gsize b = c + 2 + (gsize)key_less(h[c + 3], h[c + 2]);
    return pick(a, b, key_less(h[b], h[a]));
}

/* Removes heap[0] (Floyd's bottom-up deletion: the hole goes down the path of
 * least children to a leaf and the last key rises from there; the last key
 * usually belongs near the bottom, so this saves a comparison per level). */
static void
heap_remove_top(weft_evq_t *q)
{
    evkey_t *h = q->heap;
    gsize n = --q->n;
    if (n == 0) {
        return;
    }
    evkey_t last = h[n];
    gsize hole = 0;
    for (;;) {
        gsize c = D * hole + 1;
        if (c + D <= n) {
            gsize m = min_child(h, c);
            h[hole] = h[m];
            hole = m;
            continue;
        }
        if (c < n) {
            gsize m = c;
            for (gsize k = c + 1; k < n; k++) {
                m = key_less(h[k], h[m]) ? k : m;
            }
            h[hole] = h[m];
            hole = m;
        }
        break;
    }
    sift_up(h, hole, last);
}

/* Floyd's construction over heap[0 .. n): O(n). */
static void
heap_build(evkey_t *h, gsize n)
{
    if (n < 2) {
        return;
    }
    for (gsize i = (n - 2) / D + 1; i-- > 0;) {
        evkey_t e = h[i];
        gsize hole = i;
        for (;;) {
            gsize c = D * hole + 1;
            if (c >= n) {
                break;
            }
            gsize m = c;
            for (gsize k = c + 1; k < MIN(c + D, n); k++) {
                m = key_less(h[k], h[m]) ? k : m;
            }
            if (!key_less(h[m], e)) {
                break;
            }
            h[hole] = h[m];
            hole = m;
        }
        h[hole] = e;
    }
}

static inline void
heap_push(weft_evq_t *q, evkey_t e)
{
    if (G_UNLIKELY(q->n == q->cap)) {
        heap_grow(q);
    }
    sift_up(q->heap, q->n++, e);
}

/* ---- the radix queue -----------------------------------------------------------
 * A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the
 * shortest path problem", J. ACM 37(2), 1990) on the time key. A key moves only
 * to lower buckets, so at most 64 times, and in practice a few.
 *
 * Ties need no sorting: every bucket holds its keys in sequence order. A push
 * appends the newest key; a move empties the lowest non-empty bucket into lower
 * ones, which are all empty then, keeping the order; so bucket 0, the keys of
 * one instant, pops in push order. weft_evq_i_check() verifies this.
 *
 * It needs times that never precede the last pop, which a simulator's clock
 * gives. */

static inline guint
radix_bucket(guint64 t, guint64 last)
{
    return t == last ? 0 : 64 - (guint)__builtin_clzll(t ^ last);
}

static inline void
bucket_append(bucket_t *b, evkey_t e)
{
    if (G_UNLIKELY(b->n == b->cap)) {
        b->cap = b->cap == 0 ? 16 : 2 * b->cap;
        b->keys = g_renew(evkey_t, b->keys, b->cap);
    }
    b->keys[b->n++] = e;
}

static inline void
radix_place(weft_evq_t *q, evkey_t e)
{
    guint b = radix_bucket(e.time, q->last);
    bucket_append(&q->buckets[b], e);
    if (b > 0) {
        q->nonempty |= (guint64)1 << (b - 1);
    }
}

static inline void
radix_push(weft_evq_t *q, evkey_t e)
{
    if (G_UNLIKELY(e.time < q->last)) {
        /* last == floor after every pop (see weft_evq_pop()), so only an event
         * earlier than the last popped one gets here */
        g_error("weft_evq (radix): an event pushed at %" G_GINT64_FORMAT " ps precedes the "
                "last popped event at %" G_GINT64_FORMAT " ps",
                key_time(e.time), key_time(q->floor));
    }
    radix_place(q, e);
}

/* The earliest key, moving the lowest non-empty bucket down when bucket 0 is
 * used up; NULL if no key is queued. */
static inline evkey_t *
radix_top(weft_evq_t *q)
{
    bucket_t *b0 = &q->buckets[0];
    if (G_LIKELY(q->head < b0->n)) {
        return &b0->keys[q->head];
    }
    b0->n = q->head = 0;
    if (q->nonempty == 0) {
        return NULL;
    }
    guint i = (guint)__builtin_ctzll(q->nonempty) + 1;
    bucket_t *src = &q->buckets[i];
    guint64 m = src->keys[0].time;
    for (gsize k = 1; k < src->n; k++) {
        m = MIN(m, src->keys[k].time);
    }
    /* Keys in higher buckets keep their bucket: `m` agrees with `last` on
     * every bit from i up. */
    q->last = m;
    q->nonempty &= ~((guint64)1 << (i - 1));
    for (gsize k = 0; k < src->n; k++) {
        radix_place(q, src->keys[k]);
    }
    src->n = 0;
    return &b0->keys[0];
}

static inline void
radix_remove_top(weft_evq_t *q)
{
    q->head++;
}

/* All keys, bucket by bucket, into @out; empties the buckets. */
static void
radix_drain(weft_evq_t *q, GArray *out)
{
    bucket_t *b0 = &q->buckets[0];
    g_array_append_vals(out, b0->keys + q->head, (guint)(b0->n - q->head));
    b0->n = q->head = 0;
    for (guint b = 1; b < N_BUCKETS; b++) {
        g_array_append_vals(out, q->buckets[b].keys, (guint)q->buckets[b].n);
        q->buckets[b].n = 0;
    }
    q->nonempty = 0;
}

/* ---- shared maintenance ------------------------------------------------------ */

static inline gboolean
key_live(const weft_evq_t *q, evkey_t k)
{
    return q->slots[key_slot(k)].state == SLOT_PENDING;
}

/* Drops the cancelled keys, run when they outnumber the live ones, so the
 * structure stays within twice the pending events. The pop order is the keys'
 * total order, so it does not change. */
static void
compact(weft_evq_t *q)
{
    if (q->kind == WEFT_EVQ_HEAP) {
        gsize w = 0;
        for (gsize r = 0; r < q->n; r++) {
            if (key_live(q, q->heap[r])) {
                q->heap[w++] = q->heap[r];
            } else {
                free_slot(q, key_slot(q->heap[r]));
            }
        }
        q->n = w;
        heap_build(q->heap, w);
    } else {
        for (guint b = 0; b < N_BUCKETS; b++) {
            bucket_t *bk = &q->buckets[b];
            gsize w = 0;
            for (gsize r = b == 0 ? q->head : 0; r < bk->n; r++) {
                if (key_live(q, bk->keys[r])) {
                    bk->keys[w++] = bk->keys[r];
                } else {
                    free_slot(q, key_slot(bk->keys[r]));
                }
            }
            bk->n = w;
            if (b > 0 && w == 0) {
                q->nonempty &= ~((guint64)1 << (b - 1));
            }
        }
        q->head = 0;
    }
    q->dead = 0;
}

/* The local sequence ran out: number the queued keys 0 .. n - 1 in key order,
 * which keeps their order, and record each one's global sequence for
 * weft_event_t.seq. O(n log n), once every seq_limit - n pushes. */
static void
renumber(weft_evq_t *q)
{
    compact(q);
    g_autoptr(GArray) keys = g_array_new(FALSE, FALSE, sizeof(evkey_t));
    if (q->kind == WEFT_EVQ_HEAP) {
        g_array_append_vals(keys, q->heap, (guint)q->n);
    } else {
        radix_drain(q, keys);
    }
    gsize n = keys->len;
    if ((guint64)n + 1 >= q->seq_limit) {
        g_error("weft_evq: %" G_GSIZE_FORMAT " pending events leave no sequence numbers below "
                "%" G_GUINT64_FORMAT,
                n, q->seq_limit);
    }
    evkey_t *k = (evkey_t *)(void *)keys->data;
    if (n > 1) {
        qsort(k, n, sizeof(evkey_t), key_cmp);
    }
    guint64 *remap = g_new(guint64, MAX(n, 1));
    for (gsize i = 0; i < n; i++) {
        remap[i] = global_seq(q, k[i].sk >> SLOT_BITS);
        k[i].sk = ((guint64)i << SLOT_BITS) | key_slot(k[i]);
    }
    guint64 next_global = global_seq(q, q->next_local);
    g_free(q->remap);
    q->remap = remap;
    q->remap_n = n;
    q->seq_base = next_global - n;
    q->next_local = n;
    if (q->kind == WEFT_EVQ_HEAP) {
        if (n > 0) {
            memcpy(q->heap, k, n * sizeof(evkey_t)); /* sorted, so a heap */
        }
    } else {
        for (gsize i = 0; i < n; i++) {
            radix_place(q, k[i]); /* in key order: each bucket stays in sequence order */
        }
    }
}

/* Drops cancelled keys from the front; returns the earliest live key or NULL. */
static inline evkey_t *
live_top(weft_evq_t *q)
{
    for (;;) {
        evkey_t *top;
        if (q->kind == WEFT_EVQ_HEAP) {
            top = q->n > 0 ? &q->heap[0] : NULL;
        } else {
            top = radix_top(q);
        }
        if (top == NULL || G_LIKELY(key_live(q, *top))) {
            return top;
        }
        guint32 slot = key_slot(*top);
        if (q->kind == WEFT_EVQ_HEAP) {
            heap_remove_top(q);
        } else {
            radix_remove_top(q);
        }
        free_slot(q, slot);
        q->dead--;
    }
}

/* ---- the interface ------------------------------------------------------------- */

const char *
weft_evq_kind_name(weft_evq_kind_t kind)
{
    g_return_val_if_fail((guint)kind < WEFT_EVQ_N_KINDS, NULL);
    return kind_names[kind];
}

gboolean
weft_evq_kind_from_name(const char *name, weft_evq_kind_t *kind, GError **error)
{
    g_return_val_if_fail(name != NULL && kind != NULL, FALSE);
    const weft_enum_t e = {"event queue", kind_names};
    gint v = 0;
    if (!weft_enum_from_name(&e, name, &v, error)) {
        return FALSE;
    }
    *kind = (weft_evq_kind_t)v;
    return TRUE;
}

weft_evq_kind_t
weft_evq_default_kind(void)
{
    const char *name = g_getenv("WEFT_EVQ");
    weft_evq_kind_t kind = WEFT_EVQ_RADIX; /* the faster on every case measured (evq.h) */
    if (name != NULL && *name != '\0' && !weft_evq_kind_from_name(name, &kind, NULL)) {
        /* the weft program refuses it before any run (cli/weft.c); a library user gets
         * the default and one warning */
        static gsize warned = 0;
        if (g_once_init_enter(&warned)) {
            g_warning("WEFT_EVQ=%s: unknown event queue (known: %s, %s); using %s", name,
                      kind_names[0], kind_names[1], kind_names[WEFT_EVQ_RADIX]);
            g_once_init_leave(&warned, 1);
        }
        kind = WEFT_EVQ_RADIX;
    }
    return kind;
}

weft_evq_t *
weft_evq_new_kind(weft_evq_kind_t kind)
{
    g_return_val_if_fail((guint)kind < WEFT_EVQ_N_KINDS, NULL);
    weft_evq_t *q = g_new0(weft_evq_t, 1);
    q->kind = kind;
    q->free_head = NO_SLOT;
    q->next_local = 1;
    q->seq_limit = SEQ_LIMIT;
    return q;
}

weft_evq_t *
weft_evq_new(void)
{
    return weft_evq_new_kind(weft_evq_default_kind());
}

weft_evq_kind_t
weft_evq_get_kind(const weft_evq_t *q)
{
    g_return_val_if_fail(q != NULL, WEFT_EVQ_HEAP);
    return q->kind;
}

void
weft_evq_free(weft_evq_t *q)
{
    if (q == NULL) {
        return;
    }
    if (q->heap != NULL) {
        g_aligned_free(q->heap - HEAP_PAD);
    }
    for (guint b = 0; b < N_BUCKETS; b++) {
        g_free(q->buckets[b].keys);
    }
    g_free(q->slots);
    g_free(q->remap);
    g_free(q);
}

void
weft_evq_i_set_seq_limit(weft_evq_t *q, guint64 limit)
{
    g_return_if_fail(q != NULL && limit >= 2 && limit <= SEQ_LIMIT);
    q->seq_limit = limit;
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            g_warning("weft_evq_i_check: " __VA_ARGS__);                                           \
            return FALSE;                                                                          \
        }                                                                                          \
    } while (0)

/* One queued key: its slot is in use, its local sequence was handed out. */
static gboolean
check_key(const weft_evq_t *q, evkey_t k, gsize *pending, gsize *cancelled)
{
    guint32 slot = key_slot(k);
    CHECK(slot < q->n_slots, "key with slot %u of %u", slot, q->n_slots);
    guint32 state = q->slots[slot].state;
    CHECK(state == SLOT_PENDING || state == SLOT_CANCELLED, "key on free slot %u", slot);
    CHECK(k.sk >> SLOT_BITS < q->next_local,
          "key with local sequence %" G_GUINT64_FORMAT " >= next %" G_GUINT64_FORMAT,
          k.sk >> SLOT_BITS, q->next_local);
    CHECK(q->kind == WEFT_EVQ_HEAP || k.time >= q->floor,
          "key at %" G_GINT64_FORMAT " ps before the last pop", key_time(k.time));
    *(state == SLOT_PENDING ? pending : cancelled) += 1;
    return TRUE;
}

gboolean
weft_evq_i_check(const weft_evq_t *q)
{
    g_return_val_if_fail(q != NULL, FALSE);
    gsize pending = 0, cancelled = 0, keys = 0;
    if (q->kind == WEFT_EVQ_HEAP) {
        for (gsize i = 0; i < q->n; i++) {
            if (!check_key(q, q->heap[i], &pending, &cancelled)) {
                return FALSE;
            }
            CHECK(i == 0 || !key_less(q->heap[i], q->heap[(i - 1) / D]),
                  "heap order broken at %" G_GSIZE_FORMAT, i);
        }
        keys = q->n;
    } else {
        CHECK(q->last == q->floor, "radix base is not the last pop");
        for (guint b = 0; b < N_BUCKETS; b++) {
            const bucket_t *bk = &q->buckets[b];
            gsize from = b == 0 ? q->head : 0;
            CHECK(from <= bk->n, "bucket 0 read past its end");
            CHECK(b == 0 || (bk->n > 0) == ((q->nonempty >> (b - 1)) & 1),
                  "bucket %u's non-empty bit is wrong", b);
            for (gsize i = from; i < bk->n; i++) {
                evkey_t k = bk->keys[i];
                if (!check_key(q, k, &pending, &cancelled)) {
                    return FALSE;
                }
                CHECK(radix_bucket(k.time, q->last) == b, "key in bucket %u belongs in %u", b,
                      radix_bucket(k.time, q->last));
                CHECK(i == from || bk->keys[i - 1].sk >> SLOT_BITS < k.sk >> SLOT_BITS,
                      "bucket %u out of sequence order at %" G_GSIZE_FORMAT, b, i);
            }
            keys += bk->n - from;
        }
    }
    CHECK(pending == q->live && cancelled == q->dead,
          "%" G_GSIZE_FORMAT " pending and %" G_GSIZE_FORMAT
          " cancelled keys, counted %" G_GSIZE_FORMAT " and %" G_GSIZE_FORMAT,
          pending, cancelled, q->live, q->dead);
    gsize free_slots = 0;
    for (guint32 i = q->free_head; i != NO_SLOT; i = (guint32)GPOINTER_TO_SIZE(q->slots[i].data)) {
        CHECK(i < q->n_slots && q->slots[i].state == SLOT_FREE, "free list reaches slot %u", i);
        CHECK(++free_slots <= q->n_slots, "free list loops");
    }
    CHECK(free_slots + keys == q->n_slots,
          "%" G_GSIZE_FORMAT " free slots and %" G_GSIZE_FORMAT " keys for %u slots", free_slots,
          keys, q->n_slots);
    return TRUE;
}

#undef CHECK

weft_event_handle_t
weft_evq_push(weft_evq_t *q, weft_time_t time, weft_event_fn fn, void *ctx, void *data)
{
    g_return_val_if_fail(q != NULL && fn != NULL, 0);
    if (G_UNLIKELY(q->next_local >= q->seq_limit)) {
        renumber(q);
    }
    guint32 slot = alloc_slot(q);
    slot_t *s = &q->slots[slot];
    s->fn = fn;
    s->ctx = ctx;
    s->data = data;
    s->generation++;
    if (s->generation == 0) {
        s->generation = 1; /* handle 0 is reserved for "invalid" */
    }
    s->state = SLOT_PENDING;
    evkey_t e = {time_key(time), (q->next_local++ << SLOT_BITS) | slot};
    if (q->kind == WEFT_EVQ_HEAP) {
        heap_push(q, e);
    } else {
        radix_push(q, e);
    }
    q->live++;
    return ((guint64)s->generation << 32) | slot;
}

gboolean
weft_evq_cancel(weft_evq_t *q, weft_event_handle_t handle)
{
    g_return_val_if_fail(q != NULL, FALSE);
    guint32 slot = (guint32)(handle & 0xffffffffu);
    guint32 generation = (guint32)(handle >> 32);
    if (handle == 0 || slot >= q->n_slots) {
        return FALSE;
    }
    slot_t *s = &q->slots[slot];
    if (s->state != SLOT_PENDING || s->generation != generation) {
        return FALSE;
    }
    s->state = SLOT_CANCELLED; /* the key is dropped when it comes first, or by compact() */
    q->live--;
    q->dead++;
    if (q->dead > COMPACT_MIN && q->dead > q->live) {
        compact(q);
    }
    return TRUE;
}

gboolean
weft_evq_pop(weft_evq_t *q, weft_event_t *out)
{
    g_return_val_if_fail(q != NULL && out != NULL, FALSE);
    evkey_t *top = live_top(q);
    if (top == NULL) {
        /* Every key is gone: restart the radix buckets at the last pop, which a
         * search through cancelled keys may have passed. */
        q->last = q->floor;
        return FALSE;
    }
    evkey_t k = *top;
    slot_t *s = &q->slots[key_slot(k)];
    out->time = key_time(k.time);
    out->seq = global_seq(q, k.sk >> SLOT_BITS);
    out->fn = s->fn;
    out->ctx = s->ctx;
    out->data = s->data;
    q->floor = k.time;
    q->live--;
    if (q->kind == WEFT_EVQ_HEAP) {
        heap_remove_top(q);
    } else {
        radix_remove_top(q);
    }
    free_slot(q, key_slot(k));
    return TRUE;
}

gboolean
weft_evq_peek_time(weft_evq_t *q, weft_time_t *time)
{
    g_return_val_if_fail(q != NULL, FALSE);
    guint64 t;
    if (q->kind == WEFT_EVQ_HEAP) {
        evkey_t *top = live_top(q);
        if (top == NULL) {
            return FALSE;
        }
        t = top->time;
    } else {
        /* Moving buckets down would raise `last` past times a caller may still
         * push (anything from the last pop on), so peek searches instead. */
        bucket_t *b0 = &q->buckets[0];
        while (q->head < b0->n && !key_live(q, b0->keys[q->head])) {
            free_slot(q, key_slot(b0->keys[q->head++]));
            q->dead--;
        }
        gboolean found = q->head < b0->n;
        t = found ? b0->keys[q->head].time : G_MAXUINT64;
        for (guint b = 1; b < N_BUCKETS && !found; b++) {
            const bucket_t *bk = &q->buckets[b];
            for (gsize k = 0; k < bk->n; k++) {
                if (bk->keys[k].time < t && key_live(q, bk->keys[k])) {
                    t = bk->keys[k].time;
                    found = TRUE;
                }
            }
        }
        if (!found) {
            return FALSE;
        }
    }
    if (time != NULL) {
        *time = key_time(t);
    }
    return TRUE;
}

gsize
weft_evq_size(const weft_evq_t *q)
{
    g_return_val_if_fail(q != NULL, 0);
    return q->live;
}
