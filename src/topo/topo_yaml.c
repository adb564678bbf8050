/* SPDX-License-Identifier: MIT */
/*
 * ASTRA-sim analytical network YAML (read with libyaml). Four equal-length lists,
 * one entry per dimension:
 *
 *   topology:   [ Ring, FullyConnected, Switch ]   building block per dimension
 *   npus_count: [ 2, 8, 4 ]                        NPUs per dimension
 *   bandwidth:  [ 200.0, 100.0, 50.0 ]             GB/s per link per direction
 *   latency:    [ 50.0, 500.0, 2000.0 ]            ns per link
 *
 * The NPUs number product(n_d); rank r has coordinates x_d with
 * r = x0 + n0*x1 + n0*n1*x2 + ... (dimension 0 varies fastest, as in ASTRA-sim).
 * For each dimension d, the NPUs that share all other coordinates form one
 * building block of that dimension: a Ring (a link to each neighbour; with two
 * NPUs one link), a FullyConnected clique (a link per pair), or a Switch (one
 * SWITCH vertex with a link to every member, so two hops between members).
 *
 * Units follow the ASTRA-sim release the bundled examples come from
 * (astra-sim @ 518bd513ae11, astra-network-analytical): bandwidth "GB/s" is
 * converted with GB = 2^30 bytes (bw_GBps_to_Bpns multiplied by 1 << 30), latency
 * is in nanoseconds. Later astra-network-analytical versions switched to
 * GB = 1e9 bytes; files written for them read 7.4% fast here.
 */
#define G_LOG_DOMAIN "weft-topo"

#include "topo/topo.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <yaml.h>

#include "topo/topo_private.h"

/* ASTRA-sim's "GB" in its network YAML: 2^30 bytes (see the essay above). */
#define ASTRA_GB_BYTES 1073741824.0
#define MAX_NPUS (1u << 20)

typedef enum { DIM_RING, DIM_FULLY_CONNECTED, DIM_SWITCH } dim_kind;

static const char *const dim_names[] = {"Ring", "FullyConnected", "Switch"};

typedef struct {
    dim_kind kind;
    guint n;
    double bw_Bps;
    weft_time_t lat_ps;
} dim_desc;

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(yaml_parser_t, yaml_parser_delete)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(yaml_document_t, yaml_document_delete)

/* The scalar text of a sequence item, or NULL when the item is not a scalar. */
static const char *
scalar_text(yaml_node_t *node)
{
    if (node == NULL || node->type != YAML_SCALAR_NODE) {
        return NULL;
    }
    return (const char *)node->data.scalar.value;
}

static gboolean
parse_double(const char *path, const char *key, guint i, const char *text, double *out,
             GError **error)
{
    char *end = NULL;
    errno = 0;
    double v = text != NULL ? g_ascii_strtod(text, &end) : 0.0;
    if (text == NULL || end == text || *end != '\0' || errno != 0) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                    "%s: %s[%u] = \"%s\": not a number", path, key, i,
                    text ? text : "(not a scalar)");
        return FALSE;
    }
    *out = v;
    return TRUE;
}

/* Reads the list @key into @items (borrowed node pointers); @n_out is its length. */
static gboolean
get_list(const char *path, yaml_document_t *doc, yaml_node_t *value, const char *key,
         GPtrArray *items, GError **error)
{
    if (value->type == YAML_SCALAR_NODE) {
        /* A single value written without brackets: treat as a one-element list. */
        g_ptr_array_add(items, value);
        return TRUE;
    }
    if (value->type != YAML_SEQUENCE_NODE) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                    "%s: %s: expected a list such as [ 8, 4 ]", path, key);
        return FALSE;
    }
    for (yaml_node_item_t *it = value->data.sequence.items.start;
         it < value->data.sequence.items.top; it++) {
        g_ptr_array_add(items, yaml_document_get_node(doc, *it));
    }
    return TRUE;
}

static gboolean
read_dims(const char *path, GArray *dims, GError **error)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_IO, "%s: cannot open: %s", path,
                    g_strerror(errno));
        return FALSE;
    }
    g_auto(yaml_parser_t) parser;
    g_auto(yaml_document_t) doc;
    memset(&doc, 0, sizeof doc);
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_IO, "%s: libyaml out of memory", path);
        return FALSE;
    }
    yaml_parser_set_input_file(&parser, f);
    int ok = yaml_parser_load(&parser, &doc);
    fclose(f);
    if (!ok) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE, "%s:%zu:%zu: YAML: %s", path,
                    parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                    parser.problem != NULL ? parser.problem : "syntax error");
        return FALSE;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root == NULL || root->type != YAML_MAPPING_NODE) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                    "%s: expected a mapping with keys topology, npus_count, bandwidth, latency",
                    path);
        return FALSE;
    }

    static const char *const keys[] = {"topology", "npus_count", "bandwidth", "latency"};
    g_autoptr(GPtrArray) l0 = g_ptr_array_new();
    g_autoptr(GPtrArray) l1 = g_ptr_array_new();
    g_autoptr(GPtrArray) l2 = g_ptr_array_new();
    g_autoptr(GPtrArray) l3 = g_ptr_array_new();
    GPtrArray *lists[4] = {l0, l1, l2, l3};
    gboolean seen[4] = {FALSE, FALSE, FALSE, FALSE};
    for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
         pair < root->data.mapping.pairs.top; pair++) {
        const char *key = scalar_text(yaml_document_get_node(&doc, pair->key));
        yaml_node_t *value = yaml_document_get_node(&doc, pair->value);
        gint which = -1;
        for (guint k = 0; k < G_N_ELEMENTS(keys); k++) {
            if (g_strcmp0(key, keys[k]) == 0) {
                which = (gint)k;
            }
        }
        if (which < 0) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                        "%s: unknown key \"%s\"; valid keys: topology, npus_count, bandwidth, "
                        "latency",
                        path, key != NULL ? key : "(not a scalar)");
            return FALSE;
        }
        if (seen[which]) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY, "%s: key \"%s\" appears twice",
                        path, key);
            return FALSE;
        }
        seen[which] = TRUE;
        if (!get_list(path, &doc, value, key, lists[which], error)) {
            return FALSE;
        }
    }
    for (guint k = 0; k < G_N_ELEMENTS(keys); k++) {
        if (!seen[k]) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY, "%s: missing key \"%s\"", path,
                        keys[k]);
            return FALSE;
        }
    }
    guint nd = lists[0]->len;
    if (nd == 0) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: topology: the list is empty", path);
        return FALSE;
    }
    for (guint k = 1; k < G_N_ELEMENTS(keys); k++) {
        if (lists[k]->len != nd) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: %s has %u entries but topology has %u: all four lists need one "
                        "entry per dimension",
                        path, keys[k], lists[k]->len, nd);
            return FALSE;
        }
    }

    for (guint d = 0; d < nd; d++) {
        dim_desc dim;
        const char *t = scalar_text(g_ptr_array_index(lists[0], d));
        gint kind = -1;
        for (guint k = 0; k < G_N_ELEMENTS(dim_names); k++) {
            if (g_strcmp0(t, dim_names[k]) == 0) {
                kind = (gint)k;
            }
        }
        if (kind < 0) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                        "%s: topology[%u] = \"%s\" is unknown; valid: Ring, FullyConnected, "
                        "Switch",
                        path, d, t != NULL ? t : "(not a scalar)");
            return FALSE;
        }
        dim.kind = (dim_kind)kind;

        double n = 0.0;
        double bw = 0.0;
        double lat = 0.0;
        if (!parse_double(path, "npus_count", d, scalar_text(g_ptr_array_index(lists[1], d)), &n,
                          error) ||
            !parse_double(path, "bandwidth", d, scalar_text(g_ptr_array_index(lists[2], d)), &bw,
                          error) ||
            !parse_double(path, "latency", d, scalar_text(g_ptr_array_index(lists[3], d)), &lat,
                          error)) {
            return FALSE;
        }
        if (n != floor(n) || !(n >= 1.0) || n > MAX_NPUS) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: npus_count[%u] = %g: expected a whole number from 1 to %u", path, d, n,
                        MAX_NPUS);
            return FALSE;
        }
        if (!(bw > 0.0) || !isfinite(bw)) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: bandwidth[%u] = %g GB/s: must be positive", path, d, bw);
            return FALSE;
        }
        if (!isfinite(bw * ASTRA_GB_BYTES)) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: bandwidth[%u] = %g GB/s: too large (not a finite number of bytes/s)",
                        path, d, bw);
            return FALSE;
        }
        /* Zero latency is an idealisation worth allowing; negative is not. */
        if (!(lat >= 0.0)) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: latency[%u] = %g ns: must be zero or positive", path, d, lat);
            return FALSE;
        }
        if (!(lat * 1e3 < 9.2e18)) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: latency[%u] = %g ns: longer than the %.0f days weft's picosecond "
                        "clock holds",
                        path, d, lat, 9.2e18 / 1e12 / 86400.0);
            return FALSE;
        }
        dim.n = (guint)n;
        dim.bw_Bps = bw * ASTRA_GB_BYTES;
        dim.lat_ps = (weft_time_t)llround(lat * 1e3);
        g_array_append_val(dims, dim);
    }
    return TRUE;
}

static gboolean
link_npus(weft_topo_t *topo, const dim_desc *dim, guint a, guint b, GError **error)
{
    return weft_topo_add_link(topo, (gint)a, (gint)b, WEFT_LINK_GENERIC, dim->bw_Bps, dim->lat_ps,
                              1, error) >= 0;
}

weft_topo_t *
weft_topo_load_astra_yaml(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);

    g_autoptr(GArray) dims = g_array_new(FALSE, FALSE, sizeof(dim_desc));
    if (!read_dims(path, dims, error)) {
        return NULL;
    }
    guint total = 1;
    for (guint d = 0; d < dims->len; d++) {
        guint n = g_array_index(dims, dim_desc, d).n;
        if ((guint64)total * n > MAX_NPUS) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                        "%s: npus_count: the product exceeds %u NPUs", path, MAX_NPUS);
            return NULL;
        }
        total *= n;
    }
    /* One limit with the INI loader's fully-connected kind (topo.h): a clique of at most
     * WEFT_TOPO_MAX_CLIQUE NPUs, and no more links in all than such a clique has, counted
     * before any is made. */
    guint64 links = 0;
    for (guint d = 0; d < dims->len; d++) {
        const dim_desc *dim = &g_array_index(dims, dim_desc, d);
        guint64 blocks = total / dim->n;
        switch (dim->kind) {
        case DIM_RING:
            links += blocks * (dim->n == 1 ? 0 : (dim->n == 2 ? 1 : dim->n));
            break;
        case DIM_FULLY_CONNECTED:
            if (dim->n > WEFT_TOPO_MAX_CLIQUE) {
                g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                            "%s: npus_count[%u] = %u: a FullyConnected dimension holds at most %u "
                            "NPUs (n(n-1)/2 links), as a fully-connected cluster does",
                            path, d, dim->n, WEFT_TOPO_MAX_CLIQUE);
                return NULL;
            }
            links += blocks * ((guint64)dim->n * (dim->n - 1) / 2);
            break;
        case DIM_SWITCH:
            links += total;
            break;
        }
    }
    if (links > WEFT_TOPO_MAX_LINKS) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: the network would have %" G_GUINT64_FORMAT
                    " links, more than %" G_GUINT64_FORMAT " (a %u-NPU clique's)",
                    path, links, WEFT_TOPO_MAX_LINKS, WEFT_TOPO_MAX_CLIQUE);
        return NULL;
    }

    g_autofree char *base = g_path_get_basename(path);
    char *dot = strrchr(base, '.');
    if (dot != NULL && dot != base) {
        *dot = '\0';
    }
    g_autoptr(weft_topo_t) topo = weft_topo_new(base);
    /* NPUs first: GPU number r is vertex r. */
    for (guint r = 0; r < total; r++) {
        g_autofree char *name = g_strdup_printf("gpu%u", r);
        if (weft_topo_add_vertex(topo, WEFT_VERTEX_GPU, name, -1, -1, error) < 0) {
            return NULL;
        }
    }
    guint stride = 1;
    for (guint d = 0; d < dims->len; d++) {
        const dim_desc *dim = &g_array_index(dims, dim_desc, d);
        guint group = 0;
        /* A block's first member is a rank whose coordinate x_d is 0. */
        for (guint r = 0; r < total; r++) {
            if ((r / stride) % dim->n != 0) {
                continue;
            }
            switch (dim->kind) {
            case DIM_RING: {
                guint n_links = dim->n == 1 ? 0 : (dim->n == 2 ? 1 : dim->n);
                for (guint i = 0; i < n_links; i++) {
                    if (!link_npus(topo, dim, r + i * stride, r + ((i + 1) % dim->n) * stride,
                                   error)) {
                        return NULL;
                    }
                }
                break;
            }
            case DIM_FULLY_CONNECTED:
                for (guint i = 0; i < dim->n; i++) {
                    for (guint j = i + 1; j < dim->n; j++) {
                        if (!link_npus(topo, dim, r + i * stride, r + j * stride, error)) {
                            return NULL;
                        }
                    }
                }
                break;
            case DIM_SWITCH: {
                g_autofree char *name = g_strdup_printf("dim%u/switch%u", d, group);
                gint sw = weft_topo_add_vertex(topo, WEFT_VERTEX_SWITCH, name, -1, -1, error);
                if (sw < 0) {
                    return NULL;
                }
                for (guint i = 0; i < dim->n; i++) {
                    if (!link_npus(topo, dim, r + i * stride, (guint)sw, error)) {
                        return NULL;
                    }
                }
                break;
            }
            }
            group++;
        }
        stride *= dim->n;
    }
    if (!weft_topo_finalize(topo, error)) {
        g_prefix_error(error, "%s: ", path);
        return NULL;
    }
    topo->n_astra_dims = dims->len;
    topo->astra_dims = g_new(guint, dims->len);
    for (guint d = 0; d < dims->len; d++) {
        topo->astra_dims[d] = g_array_index(dims, dim_desc, d).n;
    }
    return g_steal_pointer(&topo);
}
