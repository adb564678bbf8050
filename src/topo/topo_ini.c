/* SPDX-License-Identifier: MIT */
/*
 * weft's own INI cluster files (GLib GKeyFile): one [cluster] group whose `kind`
 * names a generator (switch, ring, fully-connected, dgx-h100) and whose other
 * keys are that generator's parameters, every quantity written with its unit
 * (core/units.h). Unknown groups and keys are errors that list the valid ones,
 * so a typo never silently falls back to a default. doc/clusters.md is the
 * user-facing description of each kind.
 */
#include "topo/topo.h"

#include <math.h>
#include <string.h>

#include "core/units.h"
#include "topo/topo_private.h"

/* ---- hardware constants of one DGX H100 node ----------------------------------- */

/*
 * NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), "Fourth-generation
 * NVLink": an H100 SXM5 has 18 NVLink4 links with 900 GB/s total bidirectional
 * bandwidth, i.e. 50 GB/s per link bidirectional = 25 GB/s per link per direction,
 * 450 GB/s per direction per GPU.
 */
#define DGX_H100_NVLINK_LINK_BPS 25e9
#define DGX_H100_GPUS 8
#define DGX_H100_NVSWITCHES 4
/*
 * NVIDIA DGX H100 system architecture (DGX H100 user guide / DGX SuperPOD
 * reference architecture, NVLink topology figure): the 8 GPUs connect to four
 * third-generation NVSwitch chips, each GPU with 5, 4, 4 and 5 of its 18 links.
 */
static const guint dgx_h100_lanes[DGX_H100_NVSWITCHES] = {5, 4, 4, 5};
/*
 * Default one-way latency of one NVLink hop (GPU -> NVSwitch or NVSwitch -> GPU):
 * 500 ns, so GPU -> GPU through an NVSwitch is 1 us. This is the per-link latency
 * that ASTRA-sim's own DGX H100 model uses (astra-sim/tutorials, MICRO 2024
 * demo2, inputs/DGX_H100-32.yml: Switch dimension of 8 NPUs, latency 500 ns),
 * and it sits between the sub-microsecond hardware figure NVIDIA quotes and
 * ASTRA-sim's HGX-H100-validated.yml fit to NCCL measurements (936.25 ns per
 * link, which folds software overhead in). Override with nvlink_latency.
 */
#define DGX_H100_NVLINK_LATENCY "500ns"

/* ---- reading keys --------------------------------------------------------------- */

typedef struct {
    const char *path;
    GKeyFile *kf;
} ini_ctx;

#define GROUP "cluster"

/* The value of @key as text, or NULL (with @error set when @required). */
static char *
get_text(const ini_ctx *c, const char *key, gboolean required, GError **error)
{
    if (!g_key_file_has_key(c->kf, GROUP, key, NULL)) {
        if (required) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                        "%s: [" GROUP "] is missing the key \"%s\"", c->path, key);
        }
        return NULL;
    }
    char *v = g_key_file_get_value(c->kf, GROUP, key, NULL);
    return g_strstrip(v);
}

/* A whole number >= @min and <= @max, written without unit. */
static gboolean
get_count(const ini_ctx *c, const char *key, gboolean required, guint dflt, guint min, guint max,
          guint *out, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autofree char *text = get_text(c, key, required, &local);
    if (text == NULL) {
        if (local != NULL) {
            g_propagate_error(error, g_steal_pointer(&local));
            return FALSE;
        }
        *out = dflt;
        return TRUE;
    }
    double v = 0.0;
    g_autofree char *qkey = g_strconcat(GROUP ".", key, NULL);
    GError *uerr = NULL;
    if (!weft_units_parse_count(text, &v, &uerr)) {
        weft_topo_i_units_error(error, uerr, c->path, qkey, text);
        return FALSE;
    }
    if (v != floor(v)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARSE,
                    "%s: " GROUP ".%s = \"%s\": expected a whole number", c->path, key, text);
        return FALSE;
    }
    if (v < min || v > max) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: " GROUP ".%s = \"%s\": must be between %u and %u", c->path, key, text, min,
                    max);
        return FALSE;
    }
    *out = (guint)v;
    return TRUE;
}

/* A rate with its unit ("50GB/s", "400Gb/s"); must be > 0. */
static gboolean
get_rate(const ini_ctx *c, const char *key, double *out, GError **error)
{
    g_autofree char *text = get_text(c, key, TRUE, error);
    if (text == NULL) {
        return FALSE;
    }
    g_autofree char *qkey = g_strconcat(GROUP ".", key, NULL);
    GError *uerr = NULL;
    if (!weft_units_parse_rate(text, out, &uerr)) {
        weft_topo_i_units_error(error, uerr, c->path, qkey, text);
        return FALSE;
    }
    if (!(*out > 0.0) || !isfinite(*out)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: %s = \"%s\": bandwidth must be positive and finite", c->path, qkey, text);
        return FALSE;
    }
    return TRUE;
}

/* A time with its unit ("500ns", "2.5us"); >= 0. @dflt is used when absent and non-NULL. */
static gboolean
get_time(const ini_ctx *c, const char *key, const char *dflt, weft_time_t *out, GError **error)
{
    g_autofree char *text = get_text(c, key, dflt == NULL, error);
    if (text == NULL) {
        if (dflt == NULL) {
            return FALSE;
        }
        text = g_strdup(dflt);
    }
    g_autofree char *qkey = g_strconcat(GROUP ".", key, NULL);
    GError *uerr = NULL;
    if (!weft_units_parse_time(text, out, &uerr)) {
        weft_topo_i_units_error(error, uerr, c->path, qkey, text);
        return FALSE;
    }
    return TRUE;
}

/* ---- generators ----------------------------------------------------------------- */

/* The three parameters shared by the generic kinds. */
typedef struct {
    guint gpus;
    double bw_Bps;
    weft_time_t lat_ps;
} generic_params;

#define MAX_GPUS (1u << 20)

static gboolean
read_generic(const ini_ctx *c, generic_params *p, GError **error)
{
    return get_count(c, "gpus", TRUE, 0, 1, MAX_GPUS, &p->gpus, error) &&
           get_rate(c, "link_bandwidth", &p->bw_Bps, error) &&
           get_time(c, "link_latency", NULL, &p->lat_ps, error);
}

static gboolean
add_gpus(weft_topo_t *topo, guint n, GError **error)
{
    for (guint i = 0; i < n; i++) {
        g_autofree char *name = g_strdup_printf("gpu%u", i);
        if (weft_topo_add_vertex(topo, WEFT_VERTEX_GPU, name, -1, -1, error) < 0) {
            return FALSE;
        }
    }
    return TRUE;
}

static gboolean
build_switch(const ini_ctx *c, weft_topo_t *topo, GError **error)
{
    generic_params p;
    if (!read_generic(c, &p, error) || !add_gpus(topo, p.gpus, error)) {
        return FALSE;
    }
    gint sw = weft_topo_add_vertex(topo, WEFT_VERTEX_SWITCH, "switch0", -1, -1, error);
    if (sw < 0) {
        return FALSE;
    }
    for (guint i = 0; i < p.gpus; i++) {
        if (weft_topo_add_link(topo, (gint)i, sw, WEFT_LINK_GENERIC, p.bw_Bps, p.lat_ps, 1, error) <
            0) {
            return FALSE;
        }
    }
    return TRUE;
}

static gboolean
build_ring(const ini_ctx *c, weft_topo_t *topo, GError **error)
{
    generic_params p;
    if (!read_generic(c, &p, error) || !add_gpus(topo, p.gpus, error)) {
        return FALSE;
    }
    /* GPU i <-> GPU i+1 mod N; with N = 2 the two neighbours are the same link. */
    guint n_links = p.gpus == 1 ? 0 : (p.gpus == 2 ? 1 : p.gpus);
    for (guint i = 0; i < n_links; i++) {
        if (weft_topo_add_link(topo, (gint)i, (gint)((i + 1) % p.gpus), WEFT_LINK_GENERIC, p.bw_Bps,
                               p.lat_ps, 1, error) < 0) {
            return FALSE;
        }
    }
    return TRUE;
}

static gboolean
build_fully_connected(const ini_ctx *c, weft_topo_t *topo, GError **error)
{
    generic_params p;
    if (!read_generic(c, &p, error) || !add_gpus(topo, p.gpus, error)) {
        return FALSE;
    }
    for (guint i = 0; i < p.gpus; i++) {
        for (guint j = i + 1; j < p.gpus; j++) {
            if (weft_topo_add_link(topo, (gint)i, (gint)j, WEFT_LINK_GENERIC, p.bw_Bps, p.lat_ps, 1,
                                   error) < 0) {
                return FALSE;
            }
        }
    }
    return TRUE;
}

static gboolean
build_dgx_h100(const ini_ctx *c, weft_topo_t *topo, GError **error)
{
    guint nodes = 1;
    weft_time_t lat_ps = 0;
    if (!get_count(c, "nodes", FALSE, 1, 1, MAX_GPUS / DGX_H100_GPUS, &nodes, error) ||
        !get_time(c, "nvlink_latency", DGX_H100_NVLINK_LATENCY, &lat_ps, error)) {
        return FALSE;
    }
    if (nodes != 1) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_VALUE,
                    "%s: " GROUP ".nodes = %u: dgx-h100 describes one node for now; "
                    "multi-node clusters need a scale-out fabric (InfiniBand), which comes "
                    "with the fabric generators later",
                    c->path, nodes);
        return FALSE;
    }
    /* GPUs first, so GPU number g is vertex g and rail g. */
    for (guint g = 0; g < DGX_H100_GPUS; g++) {
        g_autofree char *name = g_strdup_printf("node0/gpu%u", g);
        if (weft_topo_add_vertex(topo, WEFT_VERTEX_GPU, name, 0, (gint)g, error) < 0) {
            return FALSE;
        }
    }
    gint sw[DGX_H100_NVSWITCHES];
    for (guint s = 0; s < DGX_H100_NVSWITCHES; s++) {
        g_autofree char *name = g_strdup_printf("node0/nvswitch%u", s);
        sw[s] = weft_topo_add_vertex(topo, WEFT_VERTEX_NVSWITCH, name, 0, -1, error);
        if (sw[s] < 0) {
            return FALSE;
        }
    }
    for (guint g = 0; g < DGX_H100_GPUS; g++) {
        for (guint s = 0; s < DGX_H100_NVSWITCHES; s++) {
            guint lanes = dgx_h100_lanes[s];
            if (weft_topo_add_link(topo, (gint)g, sw[s], WEFT_LINK_NVLINK,
                                   lanes * DGX_H100_NVLINK_LINK_BPS, lat_ps, lanes, error) < 0) {
                return FALSE;
            }
        }
    }
    return TRUE;
}

typedef gboolean (*build_fn)(const ini_ctx *c, weft_topo_t *topo, GError **error);

typedef struct {
    const char *kind;
    build_fn build;
    const char *const *keys; /* parameters besides "kind" and "name" */
} kind_desc;

static const char *const generic_keys[] = {"gpus", "link_bandwidth", "link_latency", NULL};
static const char *const dgx_h100_keys[] = {"nodes", "nvlink_latency", NULL};

static const kind_desc kinds[] = {
    {"switch", build_switch, generic_keys},
    {"ring", build_ring, generic_keys},
    {"fully-connected", build_fully_connected, generic_keys},
    {"dgx-h100", build_dgx_h100, dgx_h100_keys},
};

static char *
valid_keys_text(const kind_desc *k)
{
    GString *s = g_string_new("kind, name");
    for (guint i = 0; k->keys[i] != NULL; i++) {
        g_string_append_printf(s, ", %s", k->keys[i]);
    }
    return g_string_free(s, FALSE);
}

static char *
valid_kinds_text(void)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
        g_string_append_printf(s, "%s%s", i > 0 ? ", " : "", kinds[i].kind);
    }
    return g_string_free(s, FALSE);
}

weft_topo_t *
weft_topo_load_ini(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);

    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) kerr = NULL;
    if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &kerr)) {
        gint code = kerr->domain == G_FILE_ERROR ? WEFT_TOPO_ERROR_IO : WEFT_TOPO_ERROR_PARSE;
        g_set_error(error, WEFT_TOPO_ERROR, code, "%s: %s", path, kerr->message);
        return NULL;
    }
    ini_ctx c = {path, kf};

    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    for (guint i = 0; groups[i] != NULL; i++) {
        if (g_strcmp0(groups[i], GROUP) != 0) {
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                        "%s: unknown group [%s]; valid groups: [" GROUP "]", path, groups[i]);
            return NULL;
        }
    }
    if (!g_key_file_has_group(kf, GROUP)) {
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY, "%s: missing group [" GROUP "]",
                    path);
        return NULL;
    }
    g_autofree char *kind = get_text(&c, "kind", TRUE, error);
    if (kind == NULL) {
        return NULL;
    }
    const kind_desc *k = NULL;
    for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
        if (g_strcmp0(kinds[i].kind, kind) == 0) {
            k = &kinds[i];
        }
    }
    if (k == NULL) {
        g_autofree char *valid = valid_kinds_text();
        g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                    "%s: " GROUP ".kind = \"%s\" is unknown; valid kinds: %s", path, kind, valid);
        return NULL;
    }
    g_auto(GStrv) keys = g_key_file_get_keys(kf, GROUP, NULL, NULL);
    for (guint i = 0; keys[i] != NULL; i++) {
        gboolean ok = g_strcmp0(keys[i], "kind") == 0 || g_strcmp0(keys[i], "name") == 0 ||
                      g_strv_contains(k->keys, keys[i]);
        if (!ok) {
            g_autofree char *valid = valid_keys_text(k);
            g_set_error(error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_KEY,
                        "%s: unknown key " GROUP ".%s for kind %s; valid keys: %s", path, keys[i],
                        kind, valid);
            return NULL;
        }
    }

    g_autofree char *name = get_text(&c, "name", FALSE, NULL);
    if (name == NULL || name[0] == '\0') {
        g_free(name);
        g_autofree char *base = g_path_get_basename(path);
        char *dot = strrchr(base, '.');
        if (dot != NULL && dot != base) {
            *dot = '\0';
        }
        name = g_strdup(base);
    }
    g_autoptr(weft_topo_t) topo = weft_topo_new(name);
    if (!k->build(&c, topo, error)) {
        return NULL;
    }
    if (!weft_topo_finalize(topo, error)) {
        g_prefix_error(error, "%s: ", path);
        return NULL;
    }
    return g_steal_pointer(&topo);
}
