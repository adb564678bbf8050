/* SPDX-License-Identifier: MIT */
/*
 * The event queue: a 4-ary min-heap of 16-byte keys over a pool of event slots.
 * See evq.h for the model, limits and complexity.
 */
#include "core/evq.h"

#include <string.h>

#include "core/evq_private.h"

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
    evkey_t *heap; /* heap[i] is element i; heap - HEAP_PAD is the aligned block */
    gsize n, cap;
};

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

/* ---- shared maintenance ------------------------------------------------------ */

static inline gboolean
key_live(const weft_evq_t *q, evkey_t k)
{
    return q->slots[key_slot(k)].state == SLOT_PENDING;
}

/* Drops the cancelled keys, run when they outnumber the live ones, so the
 * heap stays within twice the pending events. The pop order is the keys'
 * total order, so it does not change. */
static void
compact(weft_evq_t *q)
{
    gsize w = 0;
    for (gsize r = 0; r < q->n; r++) {
        if (key_live(q, q->heap[r])) {
            q->heap[w++] = q->heap[r];
        } else {
            free_slot(q, key_slot(q->heap[r]));
        }
    }
    q->n = w;
    q->dead = 0;
    heap_build(q->heap, w);
}

/* The local sequence ran out: sort the keys (a sorted array is a heap) and
 * number them 0 .. n - 1 in that order, which keeps their order, and record each one's global
 * sequence for weft_event_t.seq. O(n log n), once every seq_limit - n pushes. */
static void
renumber(weft_evq_t *q)
{
    compact(q);
    evkey_t *h = q->heap;
    gsize n = q->n;
    if ((guint64)n + 1 >= q->seq_limit) {
        g_error("weft_evq: %" G_GSIZE_FORMAT " pending events leave no sequence numbers below "
                "%" G_GUINT64_FORMAT,
                n, q->seq_limit);
    }
    if (n > 1) {
        qsort(h, n, sizeof(evkey_t), key_cmp); /* sorted, so still a heap */
    }
    guint64 *remap = g_new(guint64, MAX(n, 1));
    for (gsize i = 0; i < n; i++) {
        remap[i] = global_seq(q, h[i].sk >> SLOT_BITS);
        h[i].sk = ((guint64)i << SLOT_BITS) | key_slot(h[i]);
    }
    guint64 next_global = global_seq(q, q->next_local);
    g_free(q->remap);
    q->remap = remap;
    q->remap_n = n;
    q->seq_base = next_global - n;
    q->next_local = n;
}

/* Drops cancelled keys from the top; returns the earliest live key or NULL. */
static inline evkey_t *
live_top(weft_evq_t *q)
{
    while (q->n > 0) {
        evkey_t *top = &q->heap[0];
        if (G_LIKELY(key_live(q, *top))) {
            return top;
        }
        guint32 slot = key_slot(*top);
        heap_remove_top(q);
        free_slot(q, slot);
        q->dead--;
    }
    return NULL;
}

/* ---- the interface ------------------------------------------------------------- */

weft_evq_t *
weft_evq_new(void)
{
    weft_evq_t *q = g_new0(weft_evq_t, 1);
    q->free_head = NO_SLOT;
    q->next_local = 1;
    q->seq_limit = SEQ_LIMIT;
    return q;
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
    *(state == SLOT_PENDING ? pending : cancelled) += 1;
    return TRUE;
}

gboolean
weft_evq_i_check(const weft_evq_t *q)
{
    g_return_val_if_fail(q != NULL, FALSE);
    gsize pending = 0, cancelled = 0, keys = q->n;
    for (gsize i = 0; i < q->n; i++) {
        if (!check_key(q, q->heap[i], &pending, &cancelled)) {
            return FALSE;
        }
        CHECK(i == 0 || !key_less(q->heap[i], q->heap[(i - 1) / D]),
              "heap order broken at %" G_GSIZE_FORMAT, i);
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
    heap_push(q, e);
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
        return FALSE;
    }
    evkey_t k = *top;
    slot_t *s = &q->slots[key_slot(k)];
    out->time = key_time(k.time);
    out->seq = global_seq(q, k.sk >> SLOT_BITS);
    out->fn = s->fn;
    out->ctx = s->ctx;
    out->data = s->data;
    q->live--;
    heap_remove_top(q);
    free_slot(q, key_slot(k));
    return TRUE;
}

gboolean
weft_evq_peek_time(weft_evq_t *q, weft_time_t *time)
{
    g_return_val_if_fail(q != NULL, FALSE);
    evkey_t *top = live_top(q);
    if (top == NULL) {
        return FALSE;
    }
    if (time != NULL) {
        *time = key_time(top->time);
    }
    return TRUE;
}

gsize
weft_evq_size(const weft_evq_t *q)
{
    g_return_val_if_fail(q != NULL, 0);
    return q->live;
}
