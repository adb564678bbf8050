/* SPDX-License-Identifier: MIT */
/*
 * Placement of ranks on GPUs (policies in topo/placement.h): in order,
 * round-robin over hosts, a seeded random permutation, or a file naming one GPU
 * per rank.
 */
#define G_LOG_DOMAIN "weft-topo"

#include "topo/placement.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

/*
 * The random stream of the random policy: weft_rng_new(seed, PLACE_STREAM).
 * 0x706c6163 is "plac" in ASCII, a constant no other consumer of weft's seeded
 * streams uses, so placement draws do not depend on other modules' draws.
 */
#define PLACE_STREAM 0x706c6163u

static const char *const policy_names[] = {"in-order", "round-robin", "random", "file", NULL};
const weft_enum_t weft_place_policy_enum = {"placement", policy_names};

const weft_key_t weft_place_keys[] = {
    {"workload", "placement", WEFT_KEY_ENUM, "in-order",
     "ranks to GPUs: in-order, round-robin (over nodes), random, file",
     .choices = &weft_place_policy_enum, .field = WEFT_KEY_FIELD(weft_place_config_t, policy)},
    {"workload", "placement_seed", WEFT_KEY_INT, "1", "seed of placement = random", .imin = 0,
     .imax = G_MAXINT64, .field = WEFT_KEY_FIELD(weft_place_config_t, seed)},
    {"workload", "placement_file", WEFT_KEY_PATH, NULL,
     "placement = file: one GPU (number or vertex name) per rank, per line",
     .field = WEFT_KEY_FIELD(weft_place_config_t, file)},
};
const guint weft_place_n_keys = G_N_ELEMENTS(weft_place_keys);

gboolean
weft_place_policy_from_name(const char *name, weft_place_policy_t *policy, GError **error)
{
    g_return_val_if_fail(name != NULL && policy != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    gint v = 0;
    GError *err = NULL;
    if (!weft_enum_from_name(&weft_place_policy_enum, name, &v, &err)) {
        g_set_error_literal(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY, err->message);
        g_error_free(err);
        return FALSE;
    }
    *policy = (weft_place_policy_t)v;
    return TRUE;
}

const char *
weft_place_policy_name(weft_place_policy_t policy)
{
    g_return_val_if_fail(policy <= WEFT_PLACE_FILE, "unknown");
    return policy_names[policy];
}

/* The group a GPU belongs to for round-robin: its host, or past the hosts, its NVLink domain. */
static gint64
gpu_group(const weft_topo_t *topo, guint gpu)
{
    gint v = weft_topo_gpu_vertex(topo, gpu);
    gint host = weft_topo_vertex_host(topo, v);
    if (host >= 0) {
        return host;
    }
    return (gint64)weft_topo_n_hosts(topo) + weft_topo_vertex_domain(topo, v);
}

static gint
cmp_gint64(gconstpointer a, gconstpointer b)
{
    gint64 x = *(const gint64 *)a;
    gint64 y = *(const gint64 *)b;
    return (x > y) - (x < y);
}

/*
 * Round-robin: groups (hosts with GPUs, in host order) take ranks in turn; each
 * group hands out its GPUs in GPU-number order; a group that has run out is
 * skipped, so unequal hosts still get every GPU used.
 */
static void
place_round_robin(const weft_topo_t *topo, guint n_ranks, guint *out)
{
    guint n_gpus = weft_topo_n_gpus(topo);
    g_autofree gint64 *keys = g_new(gint64, n_gpus);
    for (guint g = 0; g < n_gpus; g++) {
        keys[g] = gpu_group(topo, g);
    }
    g_autofree gint64 *sorted = g_memdup2(keys, sizeof(gint64) * n_gpus);
    qsort(sorted, n_gpus, sizeof(gint64), cmp_gint64);
    guint n_groups = 0;
    for (guint i = 0; i < n_gpus; i++) {
        if (n_groups == 0 || sorted[n_groups - 1] != sorted[i]) {
            sorted[n_groups++] = sorted[i];
        }
    }
    /* members[k]: GPUs of group k in GPU order */
    g_autoptr(GPtrArray) members = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    for (guint k = 0; k < n_groups; k++) {
        g_ptr_array_add(members, g_array_new(FALSE, FALSE, sizeof(guint)));
    }
    for (guint g = 0; g < n_gpus; g++) {
        gint64 *hit = bsearch(&keys[g], sorted, n_groups, sizeof(gint64), cmp_gint64);
        g_assert(hit != NULL);
        g_array_append_val(g_ptr_array_index(members, hit - sorted), g);
    }
    g_autofree guint *next = g_new0(guint, n_groups);
    guint k = 0;
    for (guint r = 0; r < n_ranks; r++) {
        GArray *m = g_ptr_array_index(members, k);
        while (next[k] >= m->len) {
            k = (k + 1) % n_groups;
            m = g_ptr_array_index(members, k);
        }
        out[r] = g_array_index(m, guint, next[k]++);
        k = (k + 1) % n_groups;
    }
}

/* Random: Fisher-Yates over all GPUs with stream PLACE_STREAM of @seed; ranks take the first
 * n_ranks. */
static void
place_random(const weft_topo_t *topo, guint n_ranks, guint64 seed, guint *out)
{
    guint n_gpus = weft_topo_n_gpus(topo);
    g_autofree guint *perm = g_new(guint, n_gpus);
    for (guint g = 0; g < n_gpus; g++) {
        perm[g] = g;
    }
    g_autoptr(weft_rng_t) rng = weft_rng_new(seed, PLACE_STREAM);
    for (guint i = n_gpus; i > 1; i--) {
        guint j = (guint)weft_rng_int_range(rng, 0, (gint32)i);
        guint t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    memcpy(out, perm, sizeof(guint) * n_ranks);
}

/* The GPU number a placement line names: a decimal GPU number or a GPU's vertex name. */
static gboolean
line_gpu(const weft_topo_t *topo, const char *text, guint *gpu)
{
    guint n_gpus = weft_topo_n_gpus(topo);
    guint64 x;
    if (g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT, &x, NULL)) {
        *gpu = (guint)x;
        return x < n_gpus;
    }
    gint v = weft_topo_find_vertex(topo, text);
    if (v < 0 || weft_topo_vertex_kind(topo, v) != WEFT_VERTEX_GPU) {
        return FALSE;
    }
    /* GPU numbers follow vertex order among GPUs: binary search the increasing gpu_vertex map */
    guint lo = 0;
    guint hi = n_gpus;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (weft_topo_gpu_vertex(topo, mid) < v) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    g_assert(lo < n_gpus && weft_topo_gpu_vertex(topo, lo) == v);
    *gpu = lo;
    return TRUE;
}

static gboolean
place_file(const weft_topo_t *topo, guint n_ranks, const char *file, guint *out, GError **error)
{
    g_autofree char *text = NULL;
    g_autoptr(GError) ioerr = NULL;
    if (!g_file_get_contents(file, &text, NULL, &ioerr)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_IO, "%s: cannot read: %s", file,
                    ioerr->message);
        return FALSE;
    }
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    /* line_of[gpu]: the line that named it (0: none yet); rank_of[gpu]: its rank */
    g_autofree guint *line_of = g_new0(guint, weft_topo_n_gpus(topo));
    g_autofree guint *rank_of = g_new0(guint, weft_topo_n_gpus(topo));
    guint r = 0;
    for (guint i = 0; lines[i] != NULL; i++) {
        char *hash = strchr(lines[i], '#');
        if (hash != NULL) {
            *hash = '\0';
        }
        char *s = g_strstrip(lines[i]);
        if (*s == '\0') {
            continue;
        }
        guint lineno = i + 1;
        guint gpu;
        if (!line_gpu(topo, s, &gpu)) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s:%u: \"%s\" names no GPU of cluster %s (%u GPUs; a GPU number or a "
                        "GPU vertex name)",
                        file, lineno, s, weft_topo_name(topo), weft_topo_n_gpus(topo));
            return FALSE;
        }
        if (line_of[gpu] != 0) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s:%u: \"%s\" is GPU %u, already given to rank %u on line %u", file,
                        lineno, s, gpu, rank_of[gpu], line_of[gpu]);
            return FALSE;
        }
        if (r >= n_ranks) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s:%u: \"%s\": the file names more GPUs than the %u ranks", file, lineno,
                        s, n_ranks);
            return FALSE;
        }
        line_of[gpu] = lineno;
        rank_of[gpu] = r;
        out[r++] = gpu;
    }
    if (r < n_ranks) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE, "%s: names %u GPUs for %u ranks",
                    file, r, n_ranks);
        return FALSE;
    }
    return TRUE;
}

guint *
weft_topo_place(const weft_topo_t *topo, guint n_ranks, weft_place_policy_t policy, guint64 seed,
                const char *file, GError **error)
{
    g_return_val_if_fail(topo != NULL, NULL);
    g_return_val_if_fail(n_ranks >= 1, NULL);
    g_return_val_if_fail(policy <= WEFT_PLACE_FILE, NULL);
    g_return_val_if_fail(policy != WEFT_PLACE_FILE || file != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);

    guint n_gpus = weft_topo_n_gpus(topo);
    if (n_ranks > n_gpus) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "cluster %s: %u ranks but only %u GPUs", weft_topo_name(topo), n_ranks, n_gpus);
        return NULL;
    }
    g_autofree guint *out = g_new(guint, n_ranks);
    switch (policy) {
    case WEFT_PLACE_IN_ORDER:
        for (guint r = 0; r < n_ranks; r++) {
            out[r] = r;
        }
        break;
    case WEFT_PLACE_ROUND_ROBIN:
        place_round_robin(topo, n_ranks, out);
        break;
    case WEFT_PLACE_RANDOM:
        place_random(topo, n_ranks, seed, out);
        break;
    case WEFT_PLACE_FILE:
        if (!place_file(topo, n_ranks, file, out, error)) {
            return NULL;
        }
        break;
    }
    return g_steal_pointer(&out);
}
