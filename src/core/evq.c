/* SPDX-License-Identifier: MIT */
/*
 * The event queue: a binary min-heap of (time, sequence, slot) records over a
 * pool of event slots recycled through a free list. See evq.h for the model.
 */
#include "core/evq.h"

typedef struct {
    weft_time_t time;
    guint64 seq;
    guint32 slot;
} heap_entry_t;

typedef struct {
    weft_event_fn fn;
    void *ctx;
    void *data;
    guint32 generation;
    gboolean pending;
} slot_t;

struct weft_evq {
    GArray *heap;  /* heap_entry_t */
    GArray *slots; /* slot_t */
    GArray *free;  /* guint32 slot indexes */
    guint64 next_seq;
    gsize live; /* pending, not cancelled */
};

weft_evq_t *
weft_evq_new(void)
{
    weft_evq_t *q = g_new0(weft_evq_t, 1);
    q->heap = g_array_sized_new(FALSE, FALSE, sizeof(heap_entry_t), 1024);
    q->slots = g_array_sized_new(FALSE, TRUE, sizeof(slot_t), 1024);
    q->free = g_array_sized_new(FALSE, FALSE, sizeof(guint32), 1024);
    q->next_seq = 1;
    return q;
}

void
weft_evq_free(weft_evq_t *q)
{
    if (q == NULL) {
        return;
    }
    g_array_unref(q->heap);
    g_array_unref(q->slots);
    g_array_unref(q->free);
    g_free(q);
}

static inline gboolean
entry_less(const heap_entry_t *a, const heap_entry_t *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void
sift_up(heap_entry_t *h, gsize i)
{
    heap_entry_t e = h[i];
    while (i > 0) {
        gsize parent = (i - 1) / 2;
        if (!entry_less(&e, &h[parent])) {
            break;
        }
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

static void
sift_down(heap_entry_t *h, gsize n, gsize i)
{
    heap_entry_t e = h[i];
    for (;;) {
        gsize child = 2 * i + 1;
        if (child >= n) {
            break;
        }
        if (child + 1 < n && entry_less(&h[child + 1], &h[child])) {
            child++;
        }
        if (!entry_less(&h[child], &e)) {
            break;
        }
        h[i] = h[child];
        i = child;
    }
    h[i] = e;
}

weft_event_handle_t
weft_evq_push(weft_evq_t *q, weft_time_t time, weft_event_fn fn, void *ctx, void *data)
{
    g_return_val_if_fail(q != NULL && fn != NULL, 0);
    guint32 slot;
    if (q->free->len > 0) {
        slot = g_array_index(q->free, guint32, q->free->len - 1);
        g_array_set_size(q->free, q->free->len - 1);
    } else {
        slot = q->slots->len;
        g_array_set_size(q->slots, slot + 1);
    }
    slot_t *s = &g_array_index(q->slots, slot_t, slot);
    s->fn = fn;
    s->ctx = ctx;
    s->data = data;
    s->generation++;
    if (s->generation == 0) {
        s->generation = 1; /* handle 0 is reserved for "invalid" */
    }
    s->pending = TRUE;

    heap_entry_t e = {time, q->next_seq++, slot};
    g_array_append_val(q->heap, e);
    sift_up((heap_entry_t *)(void *)q->heap->data, q->heap->len - 1);
    q->live++;
    return ((guint64)s->generation << 32) | slot;
}

gboolean
weft_evq_cancel(weft_evq_t *q, weft_event_handle_t handle)
{
    g_return_val_if_fail(q != NULL, FALSE);
    guint32 slot = (guint32)(handle & 0xffffffffu);
    guint32 generation = (guint32)(handle >> 32);
    if (handle == 0 || slot >= q->slots->len) {
        return FALSE;
    }
    slot_t *s = &g_array_index(q->slots, slot_t, slot);
    if (!s->pending || s->generation != generation) {
        return FALSE;
    }
    s->pending = FALSE; /* the heap entry is dropped when it reaches the top */
    q->live--;
    return TRUE;
}

/* Removes the top heap entry and recycles its slot. */
static void
pop_top(weft_evq_t *q)
{
    heap_entry_t *h = (heap_entry_t *)(void *)q->heap->data;
    guint32 slot = h[0].slot;
    gsize n = q->heap->len - 1;
    h[0] = h[n];
    g_array_set_size(q->heap, n);
    if (n > 0) {
        sift_down(h, n, 0);
    }
    g_array_append_val(q->free, slot);
}

/* Drops cancelled entries from the top; returns the top or NULL. */
static heap_entry_t *
live_top(weft_evq_t *q)
{
    while (q->heap->len > 0) {
        heap_entry_t *top = &g_array_index(q->heap, heap_entry_t, 0);
        if (g_array_index(q->slots, slot_t, top->slot).pending) {
            return top;
        }
        pop_top(q);
    }
    return NULL;
}

gboolean
weft_evq_pop(weft_evq_t *q, weft_event_t *out)
{
    g_return_val_if_fail(q != NULL && out != NULL, FALSE);
    heap_entry_t *top = live_top(q);
    if (top == NULL) {
        return FALSE;
    }
    slot_t *s = &g_array_index(q->slots, slot_t, top->slot);
    out->time = top->time;
    out->seq = top->seq;
    out->fn = s->fn;
    out->ctx = s->ctx;
    out->data = s->data;
    s->pending = FALSE;
    q->live--;
    pop_top(q);
    return TRUE;
}

gboolean
weft_evq_peek_time(weft_evq_t *q, weft_time_t *time)
{
    g_return_val_if_fail(q != NULL, FALSE);
    heap_entry_t *top = live_top(q);
    if (top == NULL) {
        return FALSE;
    }
    if (time != NULL) {
        *time = top->time;
    }
    return TRUE;
}

gsize
weft_evq_size(const weft_evq_t *q)
{
    g_return_val_if_fail(q != NULL, 0);
    return q->live;
}
