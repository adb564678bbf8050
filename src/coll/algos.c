/* SPDX-License-Identifier: MIT */
/*
 * The collective algorithms (coll.h's essay says what each does and which
 * operations it supports): ring phases (reduce-scatter, all-gather,
 * all-reduce) over any sequence of endpoints, chains, direct exchanges,
 * up-and-down trees (NCCL's double binary tree), recursive halving-doubling,
 * NVLS through NVSwitch chips and SHARP through an InfiniBand switch, and the
 * composites built from them (hierarchical, NVLS_TREE, CollNet). Every
 * function emits transfers in an order where predecessors come first and, on
 * each (channel, source, destination), in the order the link should carry
 * them; the builder adds the link dependencies.
 */
#define G_LOG_DOMAIN "weft-coll"

#include "coll/coll.h"

#include <string.h>

#include "coll/coll_private.h"

typedef struct {
    coll_builder_t *b;
    weft_coll_plan_t *plan;
    const weft_coll_layout_t *L;
    guint n;
    guint C; /* chunks */
} ctx_t;

/* Channel @ch's part of a block of @S bytes: [*off, *off + *len) relative to the block. */
static inline void
channel_part(const ctx_t *x, guint ch, guint64 S, guint64 *off, guint64 *len)
{
    *off = coll_split_off(S, x->plan->channels, ch);
    *len = coll_split(S, x->plan->channels, ch);
}

/* ---- ring phases ------------------------------------------------------------------------ */

enum { RING_RS, RING_AG, RING_AR };

typedef struct {
    guint g;             /* positions */
    const guint32 *ep;   /* endpoint of each position */
    const guint64 *poff; /* piece p (owned by position p at the end of a reduce-scatter) */
    const guint64 *plen;
    guint channel;
} ring_t;

/*
 * A ring phase over r->g positions: position i sends to i + 1. Reduce-scatter:
 * at step k position i sends piece (i - k - 1) mod g and the receiver reduces,
 * so position i ends with piece i reduced; all-gather: at step k position i
 * sends piece (i - k) mod g (its own first); all-reduce: both, 2(g - 1)
 * steps. Every piece is cut into C chunks; transfer (k, c, i) waits for
 * (k - 1, c, i - 1), which brought the data, and for the entries of @in
 * (nullable) at its source overlapping the bytes it sends. @out (nullable)
 * receives what each position holds finally: the reduced piece (reduce-scatter
 * and all-reduce), the pieces received (all-gather and all-reduce), and the
 * entries of @in over its own piece.
 */
static void
ring_run(const ctx_t *x, const ring_t *r, int kind, GArray **in, GArray **out)
{
    coll_builder_t *b = x->b;
    guint g = r->g, C = x->C;
    for (guint i = 0; out != NULL && i < g; i++) {
        weft_coll_i_ranges_copy(out, in, r->ep[i], r->poff[i], r->plen[i]);
    }
    if (g < 2) {
        return;
    }
    guint steps = kind == RING_AR ? 2 * (g - 1) : g - 1;
    g_autofree guint32 *prev = g_new(guint32, (gsize)g * C);
    g_autofree guint32 *cur = g_new(guint32, (gsize)g * C);
    for (guint k = 0; k < steps; k++) {
        gboolean rs = kind == RING_RS || (kind == RING_AR && k < g - 1);
        guint j = kind == RING_AR && k >= g - 1 ? k - (g - 1) : k;
        for (guint c = 0; c < C; c++) {
            for (guint i = 0; i < g; i++) {
                guint p = rs ? (i + 2 * g - j - 1) % g : (i + g - j) % g;
                guint64 len = coll_split(r->plen[p], C, c);
                guint64 off = r->poff[p] + coll_split_off(r->plen[p], C, c);
                guint to = (i + 1) % g;
                guint32 t = weft_coll_i_add_xfer(b, r->channel, r->ep[i], r->ep[to], len, off,
                                                 rs ? WEFT_COLL_XFER_REDUCE : 0);
                if (k > 0) {
                    weft_coll_i_add_dep(b, prev[((i + g - 1) % g) * C + c], t);
                }
                weft_coll_i_deps_on_ranges(b, in, r->ep[i], off, len, t);
                cur[i * C + c] = t;
                gboolean final = kind == RING_AG || (kind == RING_RS && k == g - 2) ||
                                 (kind == RING_AR && k >= g - 2);
                if (out != NULL && final) {
                    weft_coll_i_ranges_add(out, r->ep[to], off, len, t);
                }
            }
        }
        guint32 *tmp = prev;
        prev = cur;
        cur = tmp;
    }
}

/* Piece table of a segment [off, off + len) cut into g pieces, position p owning piece p. */
static void
even_pieces(guint g, guint64 off, guint64 len, guint64 *poff, guint64 *plen)
{
    for (guint p = 0; p < g; p++) {
        poff[p] = off + coll_split_off(len, g, p);
        plen[p] = coll_split(len, g, p);
    }
}

/*
 * Channel @ch's ring of an all-reduce, reduce-scatter, all-gather or barrier: the endpoint at
 * each position (@order, n entries) and the piece each position owns at the end (@poff,
 * @plen); returns the ring kind (RING_RS, RING_AG or RING_AR).
 */
static int
ring_fill(const weft_coll_layout_t *L, const weft_coll_plan_t *plan, guint ch, guint32 *order,
          guint64 *poff, guint64 *plen)
{
    guint n = plan->n_members;
    guint64 S = plan->size_bytes;
    weft_coll_i_ring_order(L, ch, order);
    guint64 co = coll_split_off(S, plan->channels, ch), cl = coll_split(S, plan->channels, ch);
    for (guint p = 0; p < n; p++) {
        /* Position p ends owning piece order[p]: member m gets piece m (reduce-scatter). */
        guint m = order[p];
        if (plan->op == WEFT_COLL_ALL_GATHER) {
            poff[p] = (guint64)m * S + co;
            plen[p] = cl;
        } else {
            /* Block m of S, and this channel's part of it (NCCL cuts each block
             * over the channels, so member m's output block stays whole). */
            guint64 bm = coll_split(S, n, m);
            poff[p] = coll_split_off(S, n, m) + coll_split_off(bm, plan->channels, ch);
            plen[p] = coll_split(bm, plan->channels, ch);
        }
    }
    if (plan->op == WEFT_COLL_ALL_GATHER) {
        return RING_AG;
    }
    if (plan->op == WEFT_COLL_REDUCE_SCATTER || plan->op == WEFT_COLL_REDUCE_SCATTER_BLOCK) {
        return RING_RS;
    }
    return RING_AR;
}

/* Ring algorithm: all-reduce, reduce-scatter, all-gather, barrier. */
static void
build_ring(const ctx_t *x)
{
    guint n = x->n;
    g_autofree guint32 *order = g_new(guint32, n);
    g_autofree guint64 *poff = g_new(guint64, n);
    g_autofree guint64 *plen = g_new(guint64, n);
    for (guint ch = 0; ch < x->plan->channels; ch++) {
        int kind = ring_fill(x->L, x->plan, ch, order, poff, plen);
        ring_t r = {.g = n, .ep = order, .poff = poff, .plen = plen, .channel = ch};
        ring_run(x, &r, kind, NULL, NULL);
    }
}

void
weft_coll_i_ring_describe(const weft_coll_layout_t *L, const weft_coll_plan_t *plan,
                          weft_coll_implicit_t *im)
{
    guint n = plan->n_members;
    im->g = n;
    im->channels = plan->channels;
    im->chunks = plan->chunks;
    im->order = g_new(guint32, (gsize)n * plan->channels);
    im->poff = g_new(guint64, (gsize)n * plan->channels);
    im->plen = g_new(guint64, (gsize)n * plan->channels);
    im->dom = g_memdup2(L->dom, sizeof(guint) * n);
    int kind = RING_AR;
    for (guint ch = 0; ch < plan->channels; ch++) {
        gsize o = (gsize)ch * n;
        kind = ring_fill(L, plan, ch, im->order + o, im->poff + o, im->plen + o);
    }
    im->kind = kind == RING_RS   ? WEFT_COLL_I_RING_RS
               : kind == RING_AG ? WEFT_COLL_I_RING_AG
                                 : WEFT_COLL_I_RING_AR;
}

void
weft_coll_i_ring_emit(coll_builder_t *b, weft_coll_plan_t *plan, const weft_coll_implicit_t *im)
{
    ctx_t x = {.b = b, .plan = plan, .L = b->layout, .n = im->g, .C = im->chunks};
    int kind = im->kind == WEFT_COLL_I_RING_RS   ? RING_RS
               : im->kind == WEFT_COLL_I_RING_AG ? RING_AG
                                                 : RING_AR;
    for (guint ch = 0; ch < im->channels; ch++) {
        gsize o = (gsize)ch * im->g;
        ring_t r = {.g = im->g,
                    .ep = im->order + o,
                    .poff = im->poff + o,
                    .plen = im->plen + o,
                    .channel = ch};
        ring_run(&x, &r, kind, NULL, NULL);
    }
}

/*
 * Chains for broadcast and reduce, along channel ch's ring from member 0 (the
 * root): broadcast root -> next -> ... ; reduce from the member after the root
 * round to the root, every receiver reducing. Hop h of chunk c waits for hop
 * h - 1 of chunk c.
 */
static void
build_chain(const ctx_t *x)
{
    weft_coll_plan_t *plan = x->plan;
    guint n = x->n, C = x->C;
    gboolean reduce = plan->op == WEFT_COLL_REDUCE;
    g_autofree guint32 *ring = g_new(guint32, n);
    g_autofree guint32 *chain = g_new(guint32, n);
    g_autofree guint32 *prev = g_new(guint32, C);
    for (guint ch = 0; ch < plan->channels; ch++) {
        weft_coll_i_ring_order(x->L, ch, ring);
        guint root = 0;
        while (ring[root] != 0) {
            root++;
        }
        for (guint h = 0; h < n; h++) {
            chain[h] = ring[(root + h + (reduce ? 1 : 0)) % n];
        }
        guint64 co, cl;
        channel_part(x, ch, plan->size_bytes, &co, &cl);
        for (guint h = 0; h + 1 < n; h++) {
            for (guint c = 0; c < C; c++) {
                guint32 t = weft_coll_i_add_xfer(
                    x->b, ch, chain[h], chain[h + 1], coll_split(cl, C, c),
                    co + coll_split_off(cl, C, c), reduce ? WEFT_COLL_XFER_REDUCE : 0);
                if (h > 0) {
                    weft_coll_i_add_dep(x->b, prev[c], t);
                }
                prev[c] = t;
            }
        }
    }
}

/* ---- direct ---------------------------------------------------------------------------- */

static void
build_direct(const ctx_t *x)
{
    weft_coll_plan_t *plan = x->plan;
    guint n = x->n;
    guint64 S = plan->size_bytes;
    for (guint ch = 0; ch < plan->channels; ch++) {
        guint64 co, cl;
        channel_part(x, ch, S, &co, &cl);
        switch (plan->op) {
        case WEFT_COLL_ALL_TO_ALL:
            /* Member i's piece for j: split(S, n, j) bytes at i S + split_off(S, n, j). */
            for (guint i = 0; i < n; i++) {
                for (guint j = 0; j < n; j++) {
                    if (j == i) {
                        continue;
                    }
                    guint64 P = coll_split(S, n, j);
                    guint64 off = (guint64)i * S + coll_split_off(S, n, j);
                    weft_coll_i_add_xfer(x->b, ch, i, j, coll_split(P, plan->channels, ch),
                                         off + coll_split_off(P, plan->channels, ch), 0);
                }
            }
            break;
        case WEFT_COLL_GATHER:
            for (guint i = 1; i < n; i++) {
                weft_coll_i_add_xfer(x->b, ch, i, 0, cl, (guint64)i * S + co, 0);
            }
            break;
        case WEFT_COLL_SCATTER:
            for (guint i = 1; i < n; i++) {
                weft_coll_i_add_xfer(x->b, ch, 0, i, cl, (guint64)i * S + co, 0);
            }
            break;
        case WEFT_COLL_ALL_REDUCE:
        case WEFT_COLL_REDUCE_SCATTER:
        case WEFT_COLL_REDUCE_SCATTER_BLOCK: {
            /* ASTRA-sim's direct (astra-sim 518bd513, astraccl/native_collectives/
             * collective_algorithm/AllToAll.cc): every member sends piece j of its
             * channel part to member j at once, which reduces it; for all-reduce,
             * member j then sends its reduced piece to every other member once all
             * n - 1 pieces have arrived and been reduced. */
            g_autofree guint32 *into = g_new(guint32, (gsize)n * n);
            for (guint i = 0; i < n; i++) {
                for (guint j = 0; j < n; j++) {
                    if (j != i) {
                        /* this channel's part of block j (member j's output block stays
                         * whole, as ring_fill() cuts it) */
                        guint64 bj = coll_split(S, n, j);
                        into[j * n + i] = weft_coll_i_add_xfer(
                            x->b, ch, i, j, coll_split(bj, plan->channels, ch),
                            coll_split_off(S, n, j) + coll_split_off(bj, plan->channels, ch),
                            WEFT_COLL_XFER_REDUCE);
                    }
                }
            }
            if (plan->op != WEFT_COLL_ALL_REDUCE) {
                break;
            }
            for (guint j = 0; j < n; j++) {
                for (guint i = 0; i < n; i++) {
                    if (i == j) {
                        continue;
                    }
                    guint64 bj = coll_split(S, n, j);
                    guint32 t = weft_coll_i_add_xfer(
                        x->b, ch, j, i, coll_split(bj, plan->channels, ch),
                        coll_split_off(S, n, j) + coll_split_off(bj, plan->channels, ch), 0);
                    for (guint k = 0; k < n; k++) {
                        if (k != j) {
                            weft_coll_i_add_dep(x->b, into[j * n + k], t);
                        }
                    }
                }
            }
            break;
        }
        case WEFT_COLL_ALL_GATHER:
            /* every member sends its block to every other at once (ASTRA-sim's direct) */
            for (guint i = 0; i < n; i++) {
                for (guint j = 0; j < n; j++) {
                    if (j != i) {
                        weft_coll_i_add_xfer(x->b, ch, i, j, cl, (guint64)i * S + co, 0);
                    }
                }
            }
            break;
        default:
            g_assert_not_reached();
        }
    }
}

/* ---- trees ---------------------------------------------------------------------------- */

/*
 * NCCL's binary tree (src/graph/trees.cc, ncclGetBtree): rank r's parent, -1
 * for the root 0. b = the lowest set bit of r; the parent is (r ^ b) | (b << 1)
 * when that is a rank, else r ^ b.
 */
static gint
btree_parent(gint r, gint n)
{
    if (r == 0) {
        return -1;
    }
    gint bit = 1;
    while (!(bit & r)) {
        bit <<= 1;
    }
    gint up = (r ^ bit) | (bit << 1);
    return up >= n ? r ^ bit : up;
}

/* ncclGetDtree: tree 1 mirrors tree 0 for an even rank count and shifts it by one for an odd. */
static gint
dtree_parent(gint r, gint n, guint tree)
{
    if (tree == 0) {
        return btree_parent(r, n);
    }
    if (n % 2 == 1) {
        gint u = btree_parent((r - 1 + n) % n, n);
        return u < 0 ? -1 : (u + 1) % n;
    }
    gint u = btree_parent(n - 1 - r, n);
    return u < 0 ? -1 : n - 1 - u;
}

/*
 * All-reduce over a tree of @m positions (endpoint ep[p], parent[p] a position
 * or -1 for the one root) of the data [off, off + len) in C chunks: up, a
 * position sends chunk c to its parent once its children's chunk c has arrived
 * (the parent reduces); down, the root sends chunk c to its children once all
 * of them delivered it, and every other position forwards what its parent
 * sent. @in and @out as for ring_run() (out: the final chunk deliveries; for
 * the root, its children's ups and its own @in).
 */
static void
tree_run(const ctx_t *x, guint channel, guint m, const guint32 *ep, const gint *parent, guint64 off,
         guint64 len, GArray **in, GArray **out)
{
    coll_builder_t *b = x->b;
    guint C = x->C;
    if (m < 2) {
        if (m == 1 && out != NULL) {
            weft_coll_i_ranges_copy(out, in, ep[0], off, len);
        }
        return;
    }
    g_autofree guint *kid_off = g_new0(guint, m + 1);
    g_autofree guint *kids = g_new(guint, m);
    g_autofree guint *bfs = g_new(guint, m);
    guint root = G_MAXUINT;
    for (guint p = 0; p < m; p++) {
        if (parent[p] < 0) {
            g_assert(root == G_MAXUINT);
            root = p;
        } else {
            kid_off[parent[p] + 1]++;
        }
    }
    g_assert(root != G_MAXUINT);
    for (guint p = 0; p < m; p++) {
        kid_off[p + 1] += kid_off[p];
    }
    g_autofree guint *fill = g_memdup2(kid_off, sizeof(guint) * (m + 1));
    for (guint p = 0; p < m; p++) {
        if (parent[p] >= 0) {
            kids[fill[parent[p]]++] = p;
        }
    }
    guint nb = 0;
    bfs[nb++] = root;
    for (guint h = 0; h < nb; h++) {
        for (guint k = kid_off[bfs[h]]; k < kid_off[bfs[h] + 1]; k++) {
            bfs[nb++] = kids[k];
        }
    }
    g_assert(nb == m); /* a tree: every position reached once */
    g_autofree guint32 *up = g_new(guint32, (gsize)m * C);
    g_autofree guint32 *down = g_new(guint32, (gsize)m * C);
    for (guint c = 0; c < C; c++) {
        guint64 cl = coll_split(len, C, c);
        guint64 co = off + coll_split_off(len, C, c);
        for (guint h = m; h-- > 1;) {
            guint p = bfs[h];
            guint32 t = weft_coll_i_add_xfer(b, channel, ep[p], ep[parent[p]], cl, co,
                                             WEFT_COLL_XFER_REDUCE);
            for (guint k = kid_off[p]; k < kid_off[p + 1]; k++) {
                weft_coll_i_add_dep(b, up[kids[k] * C + c], t);
            }
            weft_coll_i_deps_on_ranges(b, in, ep[p], co, cl, t);
            up[p * C + c] = t;
        }
    }
    for (guint c = 0; c < C; c++) {
        guint64 cl = coll_split(len, C, c);
        guint64 co = off + coll_split_off(len, C, c);
        for (guint h = 0; h < m; h++) {
            guint p = bfs[h];
            for (guint k = kid_off[p]; k < kid_off[p + 1]; k++) {
                guint32 t = weft_coll_i_add_xfer(b, channel, ep[p], ep[kids[k]], cl, co, 0);
                if (p == root) {
                    for (guint k2 = kid_off[p]; k2 < kid_off[p + 1]; k2++) {
                        weft_coll_i_add_dep(b, up[kids[k2] * C + c], t);
                    }
                    weft_coll_i_deps_on_ranges(b, in, ep[p], co, cl, t);
                } else {
                    weft_coll_i_add_dep(b, down[p * C + c], t);
                }
                down[kids[k] * C + c] = t;
            }
        }
        if (out != NULL) {
            for (guint p = 0; p < m; p++) {
                if (p != root) {
                    weft_coll_i_ranges_add(out, ep[p], co, cl, down[p * C + c]);
                }
            }
            for (guint k = kid_off[root]; k < kid_off[root + 1]; k++) {
                weft_coll_i_ranges_add(out, ep[root], co, cl, up[kids[k] * C + c]);
            }
        }
    }
    if (out != NULL) {
        weft_coll_i_ranges_copy(out, in, ep[root], off, len);
    }
}

/*
 * The member-level tree @tree (0 or 1) of channel @ch over the layout: in each
 * domain a chain from its head, the member at rail position (ch + tree x g/2)
 * mod g, so the two trees and the channels leave through different NICs;
 * the heads joined by NCCL's double binary tree over the domains.
 */
static void
member_tree(const weft_coll_layout_t *L, guint ch, guint tree, gint *parent)
{
    guint D = L->n_domains;
    g_autofree guint32 *order = g_new(guint32, L->max_per_domain);
    g_autofree guint *head = g_new(guint, D);
    for (guint d = 0; d < D; d++) {
        guint g = L->dom_off[d + 1] - L->dom_off[d];
        weft_coll_i_domain_order(L, d, ch + tree * (g / 2), order);
        head[d] = order[0];
        for (guint j = 1; j < g; j++) {
            parent[order[j]] = (gint)order[j - 1];
        }
    }
    for (guint d = 0; d < D; d++) {
        gint pd = dtree_parent((gint)d, (gint)D, tree);
        parent[head[d]] = pd < 0 ? -1 : (gint)head[pd];
    }
}

/* Double binary tree all-reduce: each tree carries half of each channel's data. */
static void
build_tree(const ctx_t *x)
{
    guint n = x->n;
    g_autofree gint *parent = g_new(gint, n);
    g_autofree guint32 *ep = g_new(guint32, n);
    for (guint i = 0; i < n; i++) {
        ep[i] = i;
    }
    for (guint ch = 0; ch < x->plan->channels; ch++) {
        guint64 co, cl;
        channel_part(x, ch, x->plan->size_bytes, &co, &cl);
        for (guint tree = 0; tree < 2; tree++) {
            member_tree(x->L, ch, tree, parent);
            tree_run(x, 2 * ch + tree, n, ep, parent, co + coll_split_off(cl, 2, tree),
                     coll_split(cl, 2, tree), NULL, NULL);
        }
    }
}

/* ---- recursive halving-doubling -------------------------------------------------------- */

typedef struct {
    guint n, p2, r, lg;
} hd_t;

static hd_t
hd_shape(guint n)
{
    hd_t h = {.n = n, .p2 = 1, .lg = 0};
    while (h.p2 * 2 <= n) {
        h.p2 *= 2;
        h.lg++;
    }
    h.r = n - h.p2;
    return h;
}

/* The member playing new rank q of the power-of-two part. */
static inline guint
hd_old(const hd_t *h, guint q)
{
    return q < h->r ? 2 * q + 1 : q + h->r;
}

/* The first member (= piece, = block) of new rank q's super-piece; q = p2 gives n. */
static inline guint
hd_lo(const hd_t *h, guint q)
{
    return q < h->r ? 2 * q : q + h->r;
}

/* Receives of one member within a chunk (all-reduce, reduce-scatter): at most 2 + lg. */
typedef struct {
    guint32 *t; /* n x (lg + 2) */
    guint *len;
    guint width;
} recvs_t;

static void
recv_add(recvs_t *rv, guint m, guint32 t)
{
    g_assert(rv->len[m] < rv->width);
    rv->t[m * rv->width + rv->len[m]++] = t;
}

static void
deps_on_recvs(coll_builder_t *b, const recvs_t *rv, guint m, guint32 t)
{
    for (guint i = 0; i < rv->len[m]; i++) {
        weft_coll_i_add_dep(b, rv->t[m * rv->width + i], t);
    }
}

/*
 * Rabenseifner's all-reduce and reduce-scatter (see coll.h) on one chunk
 * [co, co + cl) of a channel, cut into n pieces, members in communicator order.
 * Each send depends on every earlier receive of its sender in this chunk (the
 * segment it sends was reduced at each of them).
 */
static void
hd_reduce_chunk(const ctx_t *x, const hd_t *h, guint ch, guint64 co, guint64 cl, recvs_t *rv,
                guint32 *step_recv)
{
    coll_builder_t *b = x->b;
    guint n = h->n;
    gboolean ar = x->plan->op == WEFT_COLL_ALL_REDUCE || x->plan->op == WEFT_COLL_BARRIER;
    memset(rv->len, 0, sizeof(guint) * n);
#define PIECES_OFF(a) (co + coll_split_off(cl, n, (a)))
    /* fold: the even member of each of the first r pairs gives its vector to the odd one */
    for (guint q = 0; q < h->r; q++) {
        guint32 t = weft_coll_i_add_xfer(b, ch, 2 * q, 2 * q + 1, cl, co, WEFT_COLL_XFER_REDUCE);
        recv_add(rv, 2 * q + 1, t);
    }
    /* recursive halving over new ranks; q's segment [lo, lo + 2d) halves each step */
    for (guint s = 0; s < h->lg; s++) {
        guint d = h->p2 >> (s + 1);
        for (guint q = 0; q < h->p2; q++) {
            guint lo = q & ~(2 * d - 1);
            guint send_lo = (q & d) ? lo : lo + d; /* the half the partner keeps */
            guint a = hd_lo(h, send_lo), z = hd_lo(h, send_lo + d);
            guint32 t = weft_coll_i_add_xfer(b, ch, hd_old(h, q), hd_old(h, q ^ d),
                                             PIECES_OFF(z) - PIECES_OFF(a), PIECES_OFF(a),
                                             WEFT_COLL_XFER_REDUCE);
            deps_on_recvs(b, rv, hd_old(h, q), t);
            step_recv[q ^ d] = t;
        }
        for (guint q = 0; q < h->p2; q++) {
            recv_add(rv, hd_old(h, q), step_recv[q]);
        }
    }
    if (!ar) {
        /* reduce-scatter: the odd member hands the folded member its piece */
        for (guint q = 0; q < h->r; q++) {
            guint32 t = weft_coll_i_add_xfer(b, ch, 2 * q + 1, 2 * q,
                                             PIECES_OFF(2 * q + 1) - PIECES_OFF(2 * q),
                                             PIECES_OFF(2 * q), 0);
            deps_on_recvs(b, rv, 2 * q + 1, t);
        }
        return;
    }
    /* recursive doubling: q's segment [q & ~(d - 1), + d) doubles each step */
    for (guint s = 0; s < h->lg; s++) {
        guint d = 1u << s;
        for (guint q = 0; q < h->p2; q++) {
            guint lo = q & ~(d - 1);
            guint a = hd_lo(h, lo), z = hd_lo(h, lo + d);
            guint32 t = weft_coll_i_add_xfer(b, ch, hd_old(h, q), hd_old(h, q ^ d),
                                             PIECES_OFF(z) - PIECES_OFF(a), PIECES_OFF(a), 0);
            deps_on_recvs(b, rv, hd_old(h, q), t);
            step_recv[q ^ d] = t;
        }
        for (guint q = 0; q < h->p2; q++) {
            recv_add(rv, hd_old(h, q), step_recv[q]);
        }
    }
    /* unfold: the odd member returns the result to the folded one */
    for (guint q = 0; q < h->r; q++) {
        guint32 t = weft_coll_i_add_xfer(b, ch, 2 * q + 1, 2 * q, cl, co, 0);
        deps_on_recvs(b, rv, 2 * q + 1, t);
    }
#undef PIECES_OFF
}

typedef struct {
    guint m, blk;
    guint32 t;
} hd_pend_t;

typedef struct {
    const ctx_t *x;
    guint ch;
    guint n;
    guint64 bo, bl;     /* the chunk within each block */
    guint32 *holder;    /* n x n: transfer that brought block blk to member m, or COLL_NONE */
    hd_pend_t *pending; /* receives of the current step, applied after it */
    guint npend;
} hd_gather_t;

/* Member @from sends block @blk to @to, after the transfer that brought it to @from. */
static void
hd_send_block(hd_gather_t *g, guint from, guint to, guint blk)
{
    guint64 S = g->x->plan->size_bytes;
    guint32 t = weft_coll_i_add_xfer(g->x->b, g->ch, from, to, g->bl, (guint64)blk * S + g->bo, 0);
    guint32 h = g->holder[(gsize)from * g->n + blk];
    if (h != COLL_NONE) {
        weft_coll_i_add_dep(g->x->b, h, t);
    }
    g->pending[g->npend++] = (hd_pend_t){.m = to, .blk = blk, .t = t};
}

static void
hd_apply(hd_gather_t *g)
{
    for (guint i = 0; i < g->npend; i++) {
        g->holder[(gsize)g->pending[i].m * g->n + g->pending[i].blk] = g->pending[i].t;
    }
    g->npend = 0;
}

/*
 * Recursive-doubling all-gather on one chunk of every block: block i's bytes
 * [i S + bo, + bl). A block is sent in its own transfer (the blocks of a
 * segment are not contiguous once channels cut them), which depends on the one
 * transfer that brought that block to the sender.
 */
static void
hd_gather_chunk(hd_gather_t *g, const hd_t *h)
{
    guint n = h->n;
    for (gsize i = 0; i < (gsize)n * n; i++) {
        g->holder[i] = COLL_NONE;
    }
    g->npend = 0;
    for (guint q = 0; q < h->r; q++) {
        hd_send_block(g, 2 * q, 2 * q + 1, 2 * q);
    }
    hd_apply(g);
    for (guint s = 0; s < h->lg; s++) {
        guint d = 1u << s;
        for (guint q = 0; q < h->p2; q++) {
            guint lo = q & ~(d - 1);
            for (guint blk = hd_lo(h, lo); blk < hd_lo(h, lo + d); blk++) {
                hd_send_block(g, hd_old(h, q), hd_old(h, q ^ d), blk);
            }
        }
        hd_apply(g);
    }
    for (guint q = 0; q < h->r; q++) {
        for (guint blk = 0; blk < n; blk++) {
            if (blk != 2 * q) {
                hd_send_block(g, 2 * q + 1, 2 * q, blk);
            }
        }
    }
    g->npend = 0;
}

static void
build_hd(const ctx_t *x)
{
    weft_coll_plan_t *plan = x->plan;
    guint n = x->n, C = x->C;
    hd_t h = hd_shape(n);
    g_autofree guint32 *step_recv = g_new(guint32, h.p2);
    recvs_t rv = {.width = h.lg * 2 + 2};
    rv.t = g_new(guint32, (gsize)n * rv.width);
    rv.len = g_new0(guint, n);
    gboolean ag = plan->op == WEFT_COLL_ALL_GATHER;
    g_autofree guint32 *holder = ag ? g_new(guint32, (gsize)n * n) : NULL;
    g_autofree hd_pend_t *pending = ag ? g_new(hd_pend_t, (gsize)n * n) : NULL;
    for (guint ch = 0; ch < plan->channels; ch++) {
        guint64 co, cl;
        channel_part(x, ch, plan->size_bytes, &co, &cl);
        for (guint c = 0; c < C; c++) {
            guint64 o = co + coll_split_off(cl, C, c), l = coll_split(cl, C, c);
            if (ag) {
                hd_gather_t g = {.x = x,
                                 .ch = ch,
                                 .n = n,
                                 .bo = o,
                                 .bl = l,
                                 .holder = holder,
                                 .pending = pending};
                hd_gather_chunk(&g, &h);
            } else {
                hd_reduce_chunk(x, &h, ch, o, l, &rv, step_recv);
            }
        }
    }
    g_free(rv.t);
    g_free(rv.len);
}

/* ---- hierarchical ----------------------------------------------------------------------- */

/*
 * Reduce-scatter inside each domain (position j ends with piece j of S/g),
 * all-reduce of piece j across the domains among their members at position j
 * (a ring per position, so per rail), all-gather inside each domain.
 */
static void
build_hierarchical(const ctx_t *x)
{
    const weft_coll_layout_t *L = x->L;
    guint n = x->n, D = L->n_domains, g = L->max_per_domain;
    g_autofree guint32 *order = g_new(guint32, n); /* domain d's positions at d g */
    g_autofree guint64 *poff = g_new(guint64, MAX(g, D));
    g_autofree guint64 *plen = g_new(guint64, MAX(g, D));
    g_autofree guint32 *ep = g_new(guint32, D);
    for (guint ch = 0; ch < x->plan->channels; ch++) {
        guint64 co, cl;
        channel_part(x, ch, x->plan->size_bytes, &co, &cl);
        GArray **rs_out = weft_coll_i_ranges_new(n);
        GArray **ar_out = weft_coll_i_ranges_new(n);
        for (guint d = 0; d < D; d++) {
            weft_coll_i_domain_order(L, d, weft_coll_i_ring_start(L, d, ch), order + d * g);
        }
        even_pieces(g, co, cl, poff, plen);
        for (guint d = 0; d < D; d++) {
            ring_t r = {.g = g, .ep = order + d * g, .poff = poff, .plen = plen, .channel = ch};
            ring_run(x, &r, RING_RS, NULL, rs_out);
        }
        weft_coll_i_ranges_sort(rs_out, n);
        for (guint j = 0; j < g; j++) {
            g_autofree guint64 *soff = g_new(guint64, D);
            g_autofree guint64 *slen = g_new(guint64, D);
            even_pieces(D, poff[j], plen[j], soff, slen);
            for (guint d = 0; d < D; d++) {
                ep[d] = order[d * g + j];
            }
            ring_t r = {.g = D, .ep = ep, .poff = soff, .plen = slen, .channel = ch};
            ring_run(x, &r, RING_AR, rs_out, ar_out);
        }
        weft_coll_i_ranges_sort(ar_out, n);
        for (guint d = 0; d < D; d++) {
            ring_t r = {.g = g, .ep = order + d * g, .poff = poff, .plen = plen, .channel = ch};
            ring_run(x, &r, RING_AG, ar_out, NULL);
        }
        weft_coll_i_ranges_free(rs_out, n);
        weft_coll_i_ranges_free(ar_out, n);
    }
}

/* ---- NVLS ------------------------------------------------------------------------------ */

/*
 * Part @s of [off, off + len) cut over domain @d's NVLS chips in proportion to
 * their weights (route rates, rounded to whole bytes/s): part s starts at
 * floor(len x W_<s / W), in exact integer arithmetic.
 */
static void
chip_part(const weft_coll_layout_t *L, guint d, guint s, guint64 off, guint64 len, guint64 *po,
          guint64 *pl)
{
    guint a = L->nvls_off[d], z = L->nvls_off[d + 1];
    guint64 total = 0, before = 0;
    for (guint i = a; i < z; i++) {
        guint64 w = (guint64)(L->nvls_weight[i] + 0.5);
        total += w;
        if (i < a + s) {
            before += w;
        }
    }
    guint64 upto = before + (guint64)(L->nvls_weight[a + s] + 0.5);
    guint64 lo = total == 0 ? 0 : (guint64)((unsigned __int128)len * before / total);
    guint64 hi =
        total == 0 || a + s + 1 == z ? len : (guint64)((unsigned __int128)len * upto / total);
    *po = off + lo;
    *pl = hi - lo;
}

/*
 * NVLS up-and-down through domain @d's chips for the bytes [off, off + len):
 * @senders (count @ns) send their bytes to every chip (reducing there when
 * @reduce), then each chip sends the result to @receivers (count @nr), each
 * down transfer waiting for all the ups of its chip. @in: ranges the senders
 * wait for; @out: the down deliveries.
 */
static void
nvls_updown(const ctx_t *x, guint ch, guint d, const guint32 *senders, guint ns,
            const guint32 *receivers, guint nr, guint64 off, guint64 len, gboolean reduce,
            GArray **in, GArray **out)
{
    const weft_coll_layout_t *L = x->L;
    g_autofree guint32 *ups = g_new(guint32, MAX(ns, 1));
    for (guint s = 0; s < L->nvls_off[d + 1] - L->nvls_off[d]; s++) {
        guint chip = weft_coll_i_virtual(x->b, L->nvls_switch[L->nvls_off[d] + s], FALSE);
        guint64 po, pl;
        chip_part(L, d, s, off, len, &po, &pl);
        for (guint i = 0; i < ns; i++) {
            ups[i] = weft_coll_i_add_xfer(x->b, ch, senders[i], chip, pl, po,
                                          reduce ? WEFT_COLL_XFER_REDUCE : 0);
            weft_coll_i_deps_on_ranges(x->b, in, senders[i], po, pl, ups[i]);
        }
        for (guint j = 0; j < nr; j++) {
            guint32 t = weft_coll_i_add_xfer(x->b, ch, chip, receivers[j], pl, po, 0);
            for (guint i = 0; i < ns; i++) {
                weft_coll_i_add_dep(x->b, ups[i], t);
            }
            if (out != NULL) {
                weft_coll_i_ranges_add(out, receivers[j], po, pl, t);
            }
        }
    }
}

/* Reduce-scatter's piece of block @m for channel @ch and chunk @c of @C (as the ring cuts
 * it): [*po, *po + *pl) of the data space. */
static void
rs_piece(guint64 S, guint n, guint channels, guint C, guint m, guint ch, guint c, guint64 *po,
         guint64 *pl)
{
    guint64 bm = coll_split(S, n, m);
    guint64 P = coll_split(bm, channels, ch);
    *po = coll_split_off(S, n, m) + coll_split_off(bm, channels, ch) + coll_split_off(P, C, c);
    *pl = coll_split(P, C, c);
}

/*
 * NVLS on one domain: all-reduce, reduce-scatter, all-gather (see coll.h).
 *
 * With NCCL's copies (NCCL 2.20.3 src/device/all_reduce.h, reduce_scatter.h,
 * all_gather.h, RunWorkElement<..., NCCL_ALGO_NVLS, NCCL_PROTO_SIMPLE>, the one-node
 * branch): the multimem reduction reads the NVLS buffer, not the user's, so each
 * member's scatter warps first copy its input chunk into the buffer
 * (prims.scatter(), all-reduce and reduce-scatter), and its gather warps copy
 * the result from the buffer to its output (prims.gather(), all-reduce and
 * all-gather). Per channel and chunk each member makes one copy of each kind
 * (stream 0: scatter, 1: gather; one after another per stream, the two
 * streams apart: NCCL gives them separate warps). A copy reads and writes its
 * bytes through HBM; every channel's copy streams run at once and share the
 * GPU's streaming bandwidth (the layout's hbm_stream_Bps), so one stream
 * copies at hbm_stream_Bps / (streams per channel x channels).
 */
static void
build_nvls(const ctx_t *x)
{
    weft_coll_plan_t *plan = x->plan;
    guint n = x->n, C = x->C;
    guint64 S = plan->size_bytes;
    gboolean scatter = plan->op != WEFT_COLL_ALL_GATHER;
    gboolean gather = plan->op == WEFT_COLL_ALL_REDUCE || plan->op == WEFT_COLL_ALL_GATHER;
    plan->exec.copy_Bps =
        x->L->hbm_stream_Bps / ((double)(scatter + gather) * MAX(plan->channels, 1u));
    g_autofree guint32 *all = g_new(guint32, n);
    g_autofree guint32 *others = g_new(guint32, n);
    for (guint i = 0; i < n; i++) {
        all[i] = i;
    }
    for (guint ch = 0; ch < plan->channels; ch++) {
        guint64 co, cl;
        channel_part(x, ch, S, &co, &cl);
        for (guint c = 0; c < C; c++) {
            guint64 o = co + coll_split_off(cl, C, c), l = coll_split(cl, C, c);
            GArray **in = weft_coll_i_ranges_new(n);
            GArray **out = weft_coll_i_ranges_new(n);
            switch (plan->op) {
            case WEFT_COLL_ALL_REDUCE:
                for (guint m = 0; m < n; m++) {
                    weft_coll_i_ranges_add(in, m, o, l, weft_coll_i_add_copy(x->b, ch, m, 0, l, o));
                }
                nvls_updown(x, ch, 0, all, n, all, n, o, l, TRUE, in, out);
                weft_coll_i_ranges_sort(out, n);
                for (guint m = 0; m < n; m++) {
                    guint32 t = weft_coll_i_add_copy(x->b, ch, m, 1, l, o);
                    weft_coll_i_deps_on_ranges(x->b, out, m, o, l, t);
                }
                break;
            case WEFT_COLL_REDUCE_SCATTER:
            case WEFT_COLL_REDUCE_SCATTER_BLOCK:
                /* each member copies its chunk of every block in one go */
                for (guint i = 0; i < n; i++) {
                    guint64 bytes = 0, first = 0;
                    for (guint m = 0; m < n; m++) {
                        guint64 po, pl;
                        rs_piece(S, n, plan->channels, C, m, ch, c, &po, &pl);
                        first = m == 0 ? po : first;
                        bytes += pl;
                    }
                    guint32 t = weft_coll_i_add_copy(x->b, ch, i, 0, bytes, first);
                    for (guint m = 0; m < n; m++) {
                        guint64 po, pl;
                        rs_piece(S, n, plan->channels, C, m, ch, c, &po, &pl);
                        weft_coll_i_ranges_add(in, i, po, pl, t);
                    }
                }
                weft_coll_i_ranges_sort(in, n);
                for (guint m = 0; m < n; m++) {
                    guint64 po, pl;
                    rs_piece(S, n, plan->channels, C, m, ch, c, &po, &pl);
                    guint32 owner = m;
                    nvls_updown(x, ch, 0, all, n, &owner, 1, po, pl, TRUE, in, NULL);
                }
                break;
            case WEFT_COLL_ALL_GATHER:
                for (guint m = 0; m < n; m++) {
                    guint k = 0;
                    for (guint j = 0; j < n; j++) {
                        if (j != m) {
                            others[k++] = j;
                        }
                    }
                    guint32 owner = m;
                    nvls_updown(x, ch, 0, &owner, 1, others, n - 1, (guint64)m * S + o, l, FALSE,
                                NULL, out);
                }
                weft_coll_i_ranges_sort(out, n);
                /* each member copies every block's chunk (its own included) out in one go */
                for (guint j = 0; j < n; j++) {
                    guint32 t = weft_coll_i_add_copy(x->b, ch, j, 1, (guint64)n * l, o);
                    for (guint m = 0; m < n; m++) {
                        if (m != j) {
                            weft_coll_i_deps_on_ranges(x->b, out, j, (guint64)m * S + o, l, t);
                        }
                    }
                }
                break;
            default:
                g_assert_not_reached();
            }
            weft_coll_i_ranges_free(in, n);
            weft_coll_i_ranges_free(out, n);
        }
    }
}

/*
 * NVLS_TREE all-reduce: NVLS reduce-scatter inside each domain (piece j down
 * to the member at position j), double binary tree all-reduce of piece j over
 * the domains among their members at position j, NVLS all-gather inside each
 * domain (piece j up from its owner, multicast to the others).
 *
 * Lanes (two per channel, lane_shift 1, so xfer->channel is ch for all of
 * them): the reduce-scatter runs on lane 2 ch and the all-gather on lane
 * 2 ch + 1, so their link orders are separate: NCCL runs the two parts on
 * different warps with their own buffers, and the all-gather of chunk c starts
 * once its tree result is back, not after the reduce-scatter of every later
 * chunk on that GPU-NVSwitch link has been sent. (The trees use lanes 2 ch + t
 * on GPU-GPU pairs, which never meet the GPU-NVSwitch pairs.)
 */
static void
build_nvls_tree(const ctx_t *x)
{
    const weft_coll_layout_t *L = x->L;
    guint n = x->n, D = L->n_domains, g = L->max_per_domain, C = x->C;
    g_autofree guint32 *order = g_new(guint32, n);
    g_autofree guint32 *others = g_new(guint32, g);
    g_autofree guint32 *ep = g_new(guint32, D);
    g_autofree gint *parent = g_new(gint, D);
    x->plan->exec.copy_Bps = L->hbm_stream_Bps / (2.0 * MAX(x->plan->channels, 1u));
    for (guint ch = 0; ch < x->plan->channels; ch++) {
        guint64 co, cl;
        channel_part(x, ch, x->plan->size_bytes, &co, &cl);
        GArray **in = weft_coll_i_ranges_new(n);
        GArray **rs_out = weft_coll_i_ranges_new(n);
        GArray **tr_out = weft_coll_i_ranges_new(n);
        GArray **ag_out = weft_coll_i_ranges_new(n);
        for (guint d = 0; d < D; d++) {
            weft_coll_i_domain_order(L, d, ch, order + d * g);
        }
        /* the scatter copies: chunk c of every piece into the NVLS buffer (build_nvls()) */
        for (guint d = 0; d < D; d++) {
            for (guint c = 0; c < C; c++) {
                for (guint i = 0; i < g; i++) {
                    guint64 bytes = 0;
                    for (guint j = 0; j < g; j++) {
                        bytes += coll_split(coll_split(cl, g, j), C, c);
                    }
                    guint32 t = weft_coll_i_add_copy(x->b, 2 * ch, order[d * g + i], 0, bytes,
                                                     co + coll_split_off(coll_split(cl, g, 0), C, c));
                    for (guint j = 0; j < g; j++) {
                        guint64 P = coll_split(cl, g, j), po = co + coll_split_off(cl, g, j);
                        weft_coll_i_ranges_add(in, order[d * g + i], po + coll_split_off(P, C, c),
                                               coll_split(P, C, c), t);
                    }
                }
            }
        }
        weft_coll_i_ranges_sort(in, n);
        for (guint d = 0; d < D; d++) {
            for (guint c = 0; c < C; c++) {
                for (guint j = 0; j < g; j++) {
                    guint64 P = coll_split(cl, g, j), po = co + coll_split_off(cl, g, j);
                    nvls_updown(x, 2 * ch, d, order + d * g, g, order + d * g + j, 1,
                                po + coll_split_off(P, C, c), coll_split(P, C, c), TRUE, in,
                                rs_out);
                }
            }
        }
        weft_coll_i_ranges_sort(rs_out, n);
        for (guint j = 0; j < g; j++) {
            guint64 P = coll_split(cl, g, j), po = co + coll_split_off(cl, g, j);
            for (guint d = 0; d < D; d++) {
                ep[d] = order[d * g + j];
            }
            for (guint tree = 0; tree < 2; tree++) {
                for (guint d = 0; d < D; d++) {
                    parent[d] = dtree_parent((gint)d, (gint)D, tree);
                }
                tree_run(x, 2 * ch + tree, D, ep, parent, po + coll_split_off(P, 2, tree),
                         coll_split(P, 2, tree), rs_out, tr_out);
            }
        }
        weft_coll_i_ranges_sort(tr_out, n);
        for (guint d = 0; d < D; d++) {
            for (guint c = 0; c < C; c++) {
                for (guint j = 0; j < g; j++) {
                    guint k = 0;
                    for (guint i = 0; i < g; i++) {
                        if (i != j) {
                            others[k++] = order[d * g + i];
                        }
                    }
                    guint64 P = coll_split(cl, g, j), po = co + coll_split_off(cl, g, j);
                    nvls_updown(x, 2 * ch + 1, d, order + d * g + j, 1, others, g - 1,
                                po + coll_split_off(P, C, c), coll_split(P, C, c), FALSE, tr_out,
                                ag_out);
                }
            }
        }
        /* the gather copies: chunk c of every piece out of the NVLS buffer, once the others'
         * pieces came down and the member's own piece came back from the tree */
        weft_coll_i_ranges_sort(ag_out, n);
        for (guint d = 0; d < D; d++) {
            for (guint c = 0; c < C; c++) {
                for (guint i = 0; i < g; i++) {
                    guint32 m = order[d * g + i];
                    guint64 bytes = 0;
                    for (guint j = 0; j < g; j++) {
                        bytes += coll_split(coll_split(cl, g, j), C, c);
                    }
                    guint32 t = weft_coll_i_add_copy(x->b, 2 * ch + 1, m, 1, bytes,
                                                     co + coll_split_off(coll_split(cl, g, 0), C, c));
                    for (guint j = 0; j < g; j++) {
                        guint64 P = coll_split(cl, g, j), po = co + coll_split_off(cl, g, j);
                        weft_coll_i_deps_on_ranges(x->b, j == i ? tr_out : ag_out, m,
                                                   po + coll_split_off(P, C, c),
                                                   coll_split(P, C, c), t);
                    }
                }
            }
        }
        weft_coll_i_ranges_free(in, n);
        weft_coll_i_ranges_free(rs_out, n);
        weft_coll_i_ranges_free(tr_out, n);
        weft_coll_i_ranges_free(ag_out, n);
    }
}

/* ---- CollNet (SHARP) ------------------------------------------------------------------- */

/* A link dependency: @succ starts once @pred's last byte has left its source (the same
 * source sends them one after the other). */
static void
add_link_dep(coll_builder_t *b, guint32 pred, guint32 succ)
{
    g_assert(pred < succ);
    coll_dep_t d = {.pred = pred, .succ = succ, .kind = WEFT_COLL_DEP_LINK};
    g_array_append_val(b->deps, d);
}

/*
 * CollNet all-reduce as NCCL's CollNet Direct runs it (NCCL 2.20.3 src/device/all_reduce.h,
 * RunWorkElement<ncclFuncAllReduce, ..., NCCL_ALGO_COLLNET_DIRECT, NCCL_PROTO_SIMPLE>):
 * every member of a domain is the head of one piece of each chunk of the channel (NCCL's
 * nHeads: one head per GPU and its NIC). Per chunk c and piece j:
 *  - scatter: every other member of the domain sends its piece j to head j over NVLink,
 *    which reduces them with its own (the scatter warps' prims.scatter() and the head's
 *    recvReduceSend());
 *  - up: head j sends the reduced piece into the SHARP tree of position j (its rail): to its
 *    SHARP leaf, which reduces the heads below it and sends one piece on to the root, or
 *    straight to the root (layout.c: collnet_switch, collnet_leaf);
 *  - down: the root's result goes back down the same tree to every head j;
 *  - broadcast: head j sends the result to every other member of its domain over NVLink
 *    (recvCopyDirectSend()).
 * Per member and chunk that is (g - 1) / g of the chunk on NVLink each way for the scatter,
 * as much for the broadcast, and 1 / g of it on its NIC each way.
 *
 * Order. A member's scatter visits the heads one after the other, starting from the next
 * one: NCCL's scatter loops over its peers from a shifted start "to avoid all ranks sending
 * to or receiving from same peer" (src/device/prims_simple.h, ScatterGatherOp()); here
 * member i sends to heads i + 1, i + 2, ... (mod g), each send starting when the previous
 * one has left (a link dependency), so at every step each GPU sends to one peer and
 * receives from one. The broadcast is ordered the same way. NCCL writes a head's result to
 * its g - 1 peers in one pass; that shares the GPU's NVLink among g - 1 writes, which moves
 * the same bytes in the same time as g - 1 writes in turn at the full rate, and the
 * analytical model (which shares no link) is exact only for the latter. Chunks follow each
 * other on every source (chunk c before chunk c + 1), so they pipeline: the network works
 * on chunk c while NVLink scatters chunk c + 1.
 *
 * Lanes (two per channel, lane_shift 1, so xfer->channel is ch for all of them): scatter and
 * up run on lane 2 ch, down and broadcast on lane 2 ch + 1. NCCL runs the parts on their own
 * warps over their own connections, so chunk c + 1's scatter never waits behind chunk c's
 * broadcast.
 *
 * NCCL's CollNet chain (the same graph; a chain of the node's GPUs up to one head per
 * channel) runs as this plan too, at the chain's bandwidth from NCCL's formula (tuning.c):
 * the bytes each GPU puts on NVLink differ (the chain: S up and S down per GPU), the bytes on
 * the NICs do not (S / g per GPU each way), and NCCL's CollNet figure is the network's
 * (tuning.c, weft_coll_tune()).
 */
static void
build_collnet(const ctx_t *x)
{
    const weft_coll_layout_t *L = x->L;
    guint n = x->n, D = L->n_domains, g = L->max_per_domain, C = x->C;
    g_autofree guint32 *order = g_new(guint32, n);
    g_autofree guint64 *poff = g_new(guint64, g);
    g_autofree guint64 *plen = g_new(guint64, g);
    g_autofree guint32 *scat = g_new(guint32, n);            /* [d g + i]: last scatter from i */
    g_autofree guint32 *bcast = g_new(guint32, n);           /* [d g + j]: last broadcast from j */
    g_autofree guint32 *into = g_new(guint32, (gsize)n * g); /* [(d g + j) g + s]: into j */
    g_autofree guint32 *ups = g_new(guint32, D);             /* transfers into the root */
    g_autofree guint32 *member_up = g_new(guint32, D);       /* each domain's head's up transfer */
    g_autofree guint *leaf_of = g_new(guint, D);             /* its leaf (index), G_MAXUINT: none */
    g_autofree guint *leaf_v = g_new(guint, D);              /* the leaves' endpoints */
    g_autofree guint32 *leaf_down = g_new(guint32, D);       /* root -> leaf transfers */
    g_autofree guint32 *head_down = g_new(guint32, n);       /* [d g + j]: head j's result */
    for (guint ch = 0; ch < x->plan->channels; ch++) {
        guint up_lane = 2 * ch, down_lane = 2 * ch + 1;
        guint64 co, cl;
        channel_part(x, ch, x->plan->size_bytes, &co, &cl);
        for (guint d = 0; d < D; d++) {
            /* The same start in every domain: position j is on the same rail everywhere. */
            weft_coll_i_domain_order(L, d, ch, order + d * g);
        }
        even_pieces(g, co, cl, poff, plen);
        for (guint i = 0; i < n; i++) {
            scat[i] = bcast[i] = COLL_NONE;
        }
        for (guint c = 0; c < C; c++) {
            /* Scatter, step s = 1 .. g - 1: member i sends piece i + s to head i + s. */
            for (guint s = 1; s < g; s++) {
                for (guint d = 0; d < D; d++) {
                    for (guint i = 0; i < g; i++) {
                        guint j = (i + s) % g;
                        guint64 l = coll_split(plen[j], C, c);
                        guint64 o = poff[j] + coll_split_off(plen[j], C, c);
                        guint32 t =
                            weft_coll_i_add_xfer(x->b, up_lane, order[d * g + i], order[d * g + j],
                                                 l, o, WEFT_COLL_XFER_REDUCE);
                        if (scat[d * g + i] != COLL_NONE) {
                            add_link_dep(x->b, scat[d * g + i], t);
                        }
                        scat[d * g + i] = t;
                        into[(gsize)(d * g + j) * g + s] = t;
                    }
                }
            }
            for (guint j = 0; j < g; j++) {
                guint64 l = coll_split(plen[j], C, c), o = poff[j] + coll_split_off(plen[j], C, c);
                guint sw = weft_coll_i_virtual(x->b, L->collnet_switch[L->local[order[j]]], TRUE);
                /* Up: each head to its SHARP leaf (or to the root), each leaf to the root. */
                guint n_ups = 0, n_leaves = 0;
                for (guint d = 0; d < D; d++) {
                    guint32 m = order[d * g + j];
                    gint leaf = L->collnet_leaf != NULL ? L->collnet_leaf[m] : -1;
                    guint to = sw;
                    if (leaf >= 0) {
                        to = weft_coll_i_virtual(x->b, leaf, TRUE);
                        guint k = 0;
                        while (k < n_leaves && leaf_v[k] != to) {
                            k++;
                        }
                        if (k == n_leaves) {
                            leaf_v[n_leaves++] = to;
                        }
                        leaf_of[d] = k;
                    } else {
                        leaf_of[d] = G_MAXUINT;
                    }
                    member_up[d] =
                        weft_coll_i_add_xfer(x->b, up_lane, m, to, l, o, WEFT_COLL_XFER_REDUCE);
                    for (guint s = 1; s < g; s++) {
                        weft_coll_i_add_dep(x->b, into[(gsize)(d * g + j) * g + s], member_up[d]);
                    }
                    if (leaf < 0) {
                        ups[n_ups++] = member_up[d];
                    }
                }
                for (guint k = 0; k < n_leaves; k++) {
                    guint32 t = weft_coll_i_add_xfer(x->b, up_lane, leaf_v[k], sw, l, o,
                                                     WEFT_COLL_XFER_REDUCE);
                    for (guint d = 0; d < D; d++) {
                        if (leaf_of[d] == k) {
                            weft_coll_i_add_dep(x->b, member_up[d], t);
                        }
                    }
                    ups[n_ups++] = t;
                }
                /* Down: the root's result to each leaf once (then to its heads), or
                 * straight to the heads without a leaf. */
                for (guint k = 0; k < n_leaves; k++) {
                    leaf_down[k] = weft_coll_i_add_xfer(x->b, down_lane, sw, leaf_v[k], l, o, 0);
                    for (guint e = 0; e < n_ups; e++) {
                        weft_coll_i_add_dep(x->b, ups[e], leaf_down[k]);
                    }
                }
                for (guint d = 0; d < D; d++) {
                    guint32 m = order[d * g + j];
                    guint32 t;
                    if (leaf_of[d] != G_MAXUINT) {
                        t = weft_coll_i_add_xfer(x->b, down_lane, leaf_v[leaf_of[d]], m, l, o, 0);
                        weft_coll_i_add_dep(x->b, leaf_down[leaf_of[d]], t);
                    } else {
                        t = weft_coll_i_add_xfer(x->b, down_lane, sw, m, l, o, 0);
                        for (guint e = 0; e < n_ups; e++) {
                            weft_coll_i_add_dep(x->b, ups[e], t);
                        }
                    }
                    head_down[d * g + j] = t;
                }
            }
            /* Broadcast, step s = 1 .. g - 1: head j sends its result to member j + s. */
            for (guint s = 1; s < g; s++) {
                for (guint d = 0; d < D; d++) {
                    for (guint j = 0; j < g; j++) {
                        guint i = (j + s) % g;
                        guint64 l = coll_split(plen[j], C, c);
                        guint64 o = poff[j] + coll_split_off(plen[j], C, c);
                        guint32 t = weft_coll_i_add_xfer(x->b, down_lane, order[d * g + j],
                                                         order[d * g + i], l, o, 0);
                        weft_coll_i_add_dep(x->b, head_down[d * g + j], t);
                        if (bcast[d * g + j] != COLL_NONE) {
                            add_link_dep(x->b, bcast[d * g + j], t);
                        }
                        bcast[d * g + j] = t;
                    }
                }
            }
        }
    }
}

/* ---- dispatch ---------------------------------------------------------------------------- */

static gboolean
op_in(weft_coll_op_t op, guint mask)
{
    return (mask >> op) & 1u;
}

#define OPBIT(op) (1u << (op))
#define AR_OPS (OPBIT(WEFT_COLL_ALL_REDUCE) | OPBIT(WEFT_COLL_BARRIER))
#define RS_OPS (OPBIT(WEFT_COLL_REDUCE_SCATTER) | OPBIT(WEFT_COLL_REDUCE_SCATTER_BLOCK))

static guint
supported_ops(weft_coll_algo_t algo)
{
    switch (algo) {
    case WEFT_COLL_ALGO_RING:
        return AR_OPS | RS_OPS | OPBIT(WEFT_COLL_ALL_GATHER) | OPBIT(WEFT_COLL_BROADCAST) |
               OPBIT(WEFT_COLL_REDUCE);
    case WEFT_COLL_ALGO_DIRECT:
        return OPBIT(WEFT_COLL_ALL_TO_ALL) | OPBIT(WEFT_COLL_GATHER) | OPBIT(WEFT_COLL_SCATTER) |
               OPBIT(WEFT_COLL_ALL_REDUCE) | RS_OPS | OPBIT(WEFT_COLL_ALL_GATHER);
    case WEFT_COLL_ALGO_TREE:
        return AR_OPS;
    case WEFT_COLL_ALGO_HALVING_DOUBLING:
        return AR_OPS | RS_OPS | OPBIT(WEFT_COLL_ALL_GATHER);
    case WEFT_COLL_ALGO_HIERARCHICAL:
    case WEFT_COLL_ALGO_NVLS_TREE:
    case WEFT_COLL_ALGO_COLLNET:
        return OPBIT(WEFT_COLL_ALL_REDUCE);
    case WEFT_COLL_ALGO_NVLS:
        return OPBIT(WEFT_COLL_ALL_REDUCE) | RS_OPS | OPBIT(WEFT_COLL_ALL_GATHER);
    default:
        return 0;
    }
}

gboolean
weft_coll_i_check_supported(weft_coll_op_t op, weft_coll_algo_t algo, const weft_coll_layout_t *L,
                            GError **error)
{
    const char *on = weft_coll_op_name(op);
    const char *an = weft_coll_algo_name(algo);
    if (!op_in(op, supported_ops(algo))) {
        GString *have = g_string_new("");
        for (guint a = WEFT_COLL_ALGO_RING; a < WEFT_COLL_N_ALGOS; a++) {
            if (op_in(op, supported_ops(a))) {
                g_string_append_printf(have, "%s%s", have->len ? ", " : "", weft_coll_algo_name(a));
            }
        }
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s has no %s algorithm (it has: %s)", on, an, have->str);
        g_string_free(have, TRUE);
        return FALSE;
    }
    const char *why = NULL;
    switch (algo) {
    case WEFT_COLL_ALGO_HIERARCHICAL:
        why = L->uniform ? NULL : "needs the same number of members in every NVLink domain";
        break;
    case WEFT_COLL_ALGO_NVLS:
        why = !L->nvls            ? "needs NVLS-capable NVSwitches (gen3+) in the members' domain"
              : L->n_domains != 1 ? "runs inside one NVLink domain (use nvls_tree across several)"
                                  : NULL;
        break;
    case WEFT_COLL_ALGO_NVLS_TREE:
        why = !L->nvls      ? "needs NVLS-capable NVSwitches (gen3+) in every member's domain"
              : !L->uniform ? "needs the same number of members in every NVLink domain"
                            : NULL;
        break;
    case WEFT_COLL_ALGO_COLLNET:
        why = L->collnet ? NULL
                         : "needs SHARP-capable switches between two or more NVLink domains of "
                           "the same size (a cluster file's sharp = true, on InfiniBand of "
                           "200 Gb/s or more; in GraphML, switches with features = \"sharp\")";
        break;
    default:
        break;
    }
    if (why != NULL) {
        g_set_error(error, WEFT_COLL_ERROR, WEFT_COLL_ERROR_UNSUPPORTED,
                    "%s %s over %u members in %u NVLink domains: %s", on, an, L->n_members,
                    L->n_domains, why);
        return FALSE;
    }
    return TRUE;
}

static guint
max_chips(const weft_coll_layout_t *L)
{
    guint m = 1;
    for (guint d = 0; d < L->n_domains; d++) {
        m = MAX(m, L->nvls_off[d + 1] - L->nvls_off[d]);
    }
    return m;
}

guint64
weft_coll_i_pieces(const weft_coll_plan_t *plan, const weft_coll_layout_t *L)
{
    guint64 n = plan->n_members, g = L->max_per_domain, chips = max_chips(L);
    gboolean reduce_like = plan->op == WEFT_COLL_ALL_REDUCE || plan->op == WEFT_COLL_BARRIER ||
                           plan->op == WEFT_COLL_REDUCE_SCATTER ||
                           plan->op == WEFT_COLL_REDUCE_SCATTER_BLOCK;
    switch (plan->algo) {
    case WEFT_COLL_ALGO_RING:
    case WEFT_COLL_ALGO_HALVING_DOUBLING:
        return reduce_like ? n : 1;
    case WEFT_COLL_ALGO_DIRECT:
        return plan->op == WEFT_COLL_ALL_TO_ALL || reduce_like ? n : 1;
    case WEFT_COLL_ALGO_TREE:
        return 2;
    case WEFT_COLL_ALGO_HIERARCHICAL:
        return n;
    case WEFT_COLL_ALGO_NVLS:
        return plan->op == WEFT_COLL_ALL_GATHER
                   ? chips
                   : (plan->op == WEFT_COLL_ALL_REDUCE ? chips : n * chips);
    case WEFT_COLL_ALGO_NVLS_TREE:
        return 2 * g * chips;
    case WEFT_COLL_ALGO_COLLNET:
        return g;
    default:
        return 1;
    }
}

/* Transfers tree_run() makes per chunk over m positions: m - 1 up and m - 1 down. */
static guint64
tree_xfers(guint64 m)
{
    return m < 2 ? 0 : 2 * (m - 1);
}

/* Edges from position @r to the root of dtree_parent()'s tree @tree over @n positions. */
static guint
dtree_depth(gint r, gint n, guint tree)
{
    guint h = 0;
    for (gint p = dtree_parent(r, n, tree); p >= 0; p = dtree_parent(p, n, tree)) {
        h++;
    }
    return h;
}

/* The height of the taller of NCCL's two trees over @n positions (0 for one). */
static guint
dtree_height(guint n)
{
    guint h = 0;
    for (guint tree = 0; tree < 2; tree++) {
        for (guint r = 0; r < n; r++) {
            h = MAX(h, dtree_depth((gint)r, (gint)n, tree));
        }
    }
    return h;
}

/* Distinct SHARP leaves among the members at position @j of channel @ch (build_collnet()). */
static guint
collnet_leaves(const weft_coll_layout_t *L, guint ch, guint j, guint32 *order, gint *seen)
{
    guint D = L->n_domains, g = L->max_per_domain, k = 0;
    if (L->collnet_leaf == NULL) {
        return 0;
    }
    for (guint d = 0; d < D; d++) {
        weft_coll_i_domain_order(L, d, ch, order);
        gint leaf = L->collnet_leaf[order[j % g]];
        if (leaf < 0) {
            continue;
        }
        guint i = 0;
        while (i < k && seen[i] != leaf) {
            i++;
        }
        if (i == k) {
            seen[k++] = leaf;
        }
    }
    return k;
}

guint64
weft_coll_i_count_xfers(weft_coll_op_t op, weft_coll_algo_t algo, const weft_coll_layout_t *L,
                        guint channels, guint chunks)
{
    guint64 n = L->n_members, g = L->max_per_domain, D = L->n_domains, C = chunks;
    if (n < 2) {
        return 0; /* weft_coll_plan_build() builds nothing for one member */
    }
    gboolean ar = op == WEFT_COLL_ALL_REDUCE || op == WEFT_COLL_BARRIER;
    gboolean rs = op == WEFT_COLL_REDUCE_SCATTER || op == WEFT_COLL_REDUCE_SCATTER_BLOCK;
    guint64 total = 0;
    for (guint ch = 0; ch < channels; ch++) {
        guint64 per = 0; /* this channel's transfers per chunk */
        switch (algo) {
        case WEFT_COLL_ALGO_RING: /* ring_run() over n positions, build_chain() */
            per = op == WEFT_COLL_BROADCAST || op == WEFT_COLL_REDUCE ? n - 1
                  : ar                                                ? 2 * (n - 1) * n
                                                                      : (n - 1) * n;
            break;
        case WEFT_COLL_ALGO_DIRECT: /* build_direct(): one transfer per pair, no chunks */
            total += op == WEFT_COLL_ALL_REDUCE ? 2 * n * (n - 1)
                     : op == WEFT_COLL_ALL_TO_ALL || op == WEFT_COLL_ALL_GATHER ||
                             op == WEFT_COLL_REDUCE_SCATTER ||
                             op == WEFT_COLL_REDUCE_SCATTER_BLOCK
                         ? n * (n - 1)
                         : n - 1;
            continue;
        case WEFT_COLL_ALGO_TREE: /* two trees over all the members */
            per = 2 * tree_xfers(n);
            break;
        case WEFT_COLL_ALGO_HALVING_DOUBLING: {
            /* hd_reduce_chunk(): fold r, lg halving steps of p2 sends, then lg doubling steps
             * and the unfold (all-reduce) or the r pieces back (reduce-scatter);
             * hd_gather_chunk(): fold r, step s sends 2^s blocks from each of p2 ranks (n
             * blocks per 2^s ranks, so n 2^s in all), unfold n - 1 blocks to each of r. */
            hd_t h = hd_shape((guint)n);
            if (op == WEFT_COLL_ALL_GATHER) {
                per = h.r + n * (h.p2 - 1) + (guint64)h.r * (n - 1);
            } else {
                per = 2 * (guint64)h.r + (guint64)h.lg * h.p2 * (ar ? 2 : 1);
            }
            break;
        }
        case WEFT_COLL_ALGO_HIERARCHICAL: /* ring RS in each domain, AR over D per position, AG */
            per = 2 * D * g * (g - 1) + g * 2 * (D - 1) * D;
            break;
        case WEFT_COLL_ALGO_NVLS: {
            /* nvls_updown() per chip: every sender up, every receiver down */
            guint64 chips = L->nvls_off[1] - L->nvls_off[0];
            per = ar ? 2 * n * chips : rs ? n * (n + 1) * chips : n * n * chips;
            per += ar ? 2 * n : n; /* build_nvls()'s copies: scatter and/or gather */
            break;
        }
        case WEFT_COLL_ALGO_NVLS_TREE:
            /* per domain and position: g ups and 1 down per chip (reduce-scatter), 1 up and
             * g - 1 downs per chip (all-gather); per position two trees over the domains */
            for (guint d = 0; d < D; d++) {
                per += (guint64)(L->nvls_off[d + 1] - L->nvls_off[d]) * g * (2 * g + 1);
            }
            per += g * 2 * tree_xfers(D);
            per += 2 * (guint64)D * g; /* a scatter and a gather copy per member */
            break;
        case WEFT_COLL_ALGO_COLLNET: {
            /* ring RS and AG in each domain; per position, each member up to its leaf or the
             * root, each leaf up once, down once, each member down */
            g_autofree guint32 *order = g_new(guint32, g);
            g_autofree gint *seen = g_new(gint, D);
            per = 2 * D * g * (g - 1);
            for (guint j = 0; j < g; j++) {
                per += 2 * D + 2 * (guint64)collnet_leaves(L, ch, j, order, seen);
            }
            break;
        }
        default:
            break;
        }
        total += per * C;
    }
    return total;
}

double
weft_coll_i_dtree_nic_load(guint D)
{
    if (D < 2) {
        return 0.0;
    }
    g_autofree guint *links = g_new0(guint, D); /* per domain: tree edges at it, both trees */
    for (guint tree = 0; tree < 2; tree++) {
        for (guint d = 0; d < D; d++) {
            gint u = dtree_parent((gint)d, (gint)D, tree);
            if (u >= 0) {
                links[d]++; /* to its parent */
                links[u]++; /* to its child d */
            }
        }
    }
    guint most = 0;
    for (guint d = 0; d < D; d++) {
        most = MAX(most, links[d]);
    }
    return most / 2.0; /* each tree edge carries S / 2 each way */
}

guint
weft_coll_i_fill_depth(weft_coll_op_t op, weft_coll_algo_t algo, const weft_coll_layout_t *L)
{
    guint n = L->n_members, g = L->max_per_domain, D = L->n_domains;
    if (n < 2) {
        return 0;
    }
    gboolean ar = op == WEFT_COLL_ALL_REDUCE || op == WEFT_COLL_BARRIER;
    switch (algo) {
    case WEFT_COLL_ALGO_RING:
        /* Every position holds data for step 0, so every link is busy from the start and
         * its chunks follow each other: no fill (the chain of broadcast and reduce fills
         * over its n - 1 hops). */
        return op == WEFT_COLL_BROADCAST || op == WEFT_COLL_REDUCE ? n - 2 : 0;
    case WEFT_COLL_ALGO_DIRECT:
        return 0;
    case WEFT_COLL_ALGO_TREE: {
        /* up the taller member tree and down again: a chain in each domain below the head,
         * the heads in NCCL's trees over the domains */
        guint h = 0;
        for (guint tree = 0; tree < 2; tree++) {
            for (guint d = 0; d < D; d++) {
                guint gd = L->dom_off[d + 1] - L->dom_off[d];
                h = MAX(h, dtree_depth((gint)d, (gint)D, tree) + gd - 1);
            }
        }
        return 2 * h - 1;
    }
    case WEFT_COLL_ALGO_HALVING_DOUBLING: {
        hd_t h = hd_shape(n);
        guint steps = (h.r > 0 ? 2 : 0) + h.lg * (ar ? 2 : 1);
        return steps > 0 ? steps - 1 : 0;
    }
    case WEFT_COLL_ALGO_HIERARCHICAL:
        return (g - 1) + 2 * (D - 1) + (g - 1) - 1;
    case WEFT_COLL_ALGO_NVLS:
        /* up to the switch, down from it, and the copies in (scatter) and out (gather) */
        return ar ? 3 : 2;
    case WEFT_COLL_ALGO_NVLS_TREE:
        /* the copy in, up and down, the trees, up and down, the copy out */
        return 2 + 2 * dtree_height(D) + 2 - 1 + 2;
    case WEFT_COLL_ALGO_COLLNET:
        return (g - 1) + 2 * (L->collnet_leaf != NULL ? 2 : 1) + (g - 1) - 1;
    default:
        return 0;
    }
}

double
weft_coll_i_estimate_xfers(const weft_coll_plan_t *plan, const weft_coll_layout_t *L)
{
    return (double)weft_coll_i_count_xfers(plan->op, plan->algo, L, plan->channels, plan->chunks);
}

gboolean
weft_coll_i_build_algo(coll_builder_t *b, weft_coll_plan_t *plan, GError **error)
{
    (void)error;
    ctx_t x = {.b = b, .plan = plan, .L = b->layout, .n = plan->n_members, .C = plan->chunks};
    switch (plan->algo) {
    case WEFT_COLL_ALGO_RING:
        if (plan->op == WEFT_COLL_BROADCAST || plan->op == WEFT_COLL_REDUCE) {
            build_chain(&x);
        } else {
            build_ring(&x);
        }
        return TRUE;
    case WEFT_COLL_ALGO_DIRECT:
        build_direct(&x);
        return TRUE;
    case WEFT_COLL_ALGO_TREE:
        build_tree(&x);
        return TRUE;
    case WEFT_COLL_ALGO_HALVING_DOUBLING:
        build_hd(&x);
        return TRUE;
    case WEFT_COLL_ALGO_HIERARCHICAL:
        build_hierarchical(&x);
        return TRUE;
    case WEFT_COLL_ALGO_NVLS:
        build_nvls(&x);
        return TRUE;
    case WEFT_COLL_ALGO_NVLS_TREE:
        build_nvls_tree(&x);
        return TRUE;
    case WEFT_COLL_ALGO_COLLNET:
        build_collnet(&x);
        return TRUE;
    default:
        break;
    }
    g_assert_not_reached();
}
