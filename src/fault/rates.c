/* SPDX-License-Identifier: MIT */
/*
 * Failure rates per component class, their Llama 3 defaults, component counts of a cluster,
 * and the seeded samplers that draw a run's failures (exponential as one superposed Poisson
 * process, Weibull component by component from a heap). See rates.h for the model.
 */
#define G_LOG_DOMAIN "weft-fault"

#include "fault/rates.h"

#include <math.h>
#include <string.h>

#include "core/rng.h"

G_DEFINE_QUARK(weft - fault - error - quark, weft_fault_error)

static const char *const class_names[WEFT_FAULT_N_CLASSES + 1] = {
    "gpu", "host", "nic", "switch", "cable", "software", "maintenance", "unknown", "planned", NULL,
};
const weft_enum_t weft_fault_class_enum = {"component class", class_names};

static const char *const dist_names[] = {
    [WEFT_FAULT_DIST_EXPONENTIAL] = "exponential",
    [WEFT_FAULT_DIST_WEIBULL] = "weibull",
    NULL,
};
const weft_enum_t weft_fault_dist_enum = {"distribution", dist_names};

/* Indexed by weft_fault_rates_t.weibull_new. */
static const char *const weibull_start_names[] = {
    [FALSE] = "stationary",
    [TRUE] = "new",
    NULL,
};
const weft_enum_t weft_fault_weibull_start_enum = {"Weibull start", weibull_start_names};

static const weft_fault_category_t class_categories[WEFT_FAULT_N_CLASSES] = {
    WEFT_FAULT_CAT_GPU,
    WEFT_FAULT_CAT_HOST,
    WEFT_FAULT_CAT_HOST,
    WEFT_FAULT_CAT_NETWORK,
    WEFT_FAULT_CAT_NETWORK,
    WEFT_FAULT_CAT_DEPENDENCY,
    WEFT_FAULT_CAT_UNPLANNED_MAINTENANCE,
    WEFT_FAULT_CAT_UNKNOWN,
    WEFT_FAULT_CAT_PLANNED_MAINTENANCE,
};

static const char *const category_names[WEFT_FAULT_N_CATEGORIES] = {
    "GPU",
    "Host",
    "Network",
    "Dependency",
    "Unplanned maintenance",
    "Unknown",
    "Planned maintenance",
};

static const char *const category_keys[WEFT_FAULT_N_CATEGORIES] = {
    "gpu",
    "host",
    "network",
    "dependency",
    "unplanned_maintenance",
    "unknown",
    "planned_maintenance",
};

const char *
weft_fault_class_name(weft_fault_class_t c)
{
    g_return_val_if_fail(c < WEFT_FAULT_N_CLASSES, "?");
    return class_names[c];
}

weft_fault_category_t
weft_fault_class_category(weft_fault_class_t c)
{
    g_return_val_if_fail(c < WEFT_FAULT_N_CLASSES, WEFT_FAULT_CAT_UNKNOWN);
    return class_categories[c];
}

const char *
weft_fault_category_name(weft_fault_category_t cat)
{
    g_return_val_if_fail(cat < WEFT_FAULT_N_CATEGORIES, "?");
    return category_names[cat];
}

const char *
weft_fault_category_key(weft_fault_category_t cat)
{
    g_return_val_if_fail(cat < WEFT_FAULT_N_CATEGORIES, "?");
    return category_keys[cat];
}

void
weft_fault_rates_init_none(weft_fault_rates_t *rates)
{
    memset(rates, 0, sizeof *rates);
    rates->dist = WEFT_FAULT_DIST_EXPONENTIAL;
    /* Schroeder and Gibson (DSN 2006): HPC time between failures fits Weibull k = 0.7-0.8. */
    rates->weibull_shape = 0.7;
    for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
        rates->mtbf_s[c] = INFINITY;
        rates->degrade_mtbf_s[c] = INFINITY;
    }
    /* A link awaiting a cable or transceiver swap: a shift, as an assumption (doc/failures.md). */
    rates->degrade_repair_s = 4.0 * 3600.0;
}

void
weft_fault_rates_init_default(weft_fault_rates_t *rates)
{
    weft_fault_rates_init_none(rates);
    /* MTBF per component = component-seconds observed / interruptions observed. */
    const double span = WEFT_FAULT_LLAMA3_SPAN_S;
    rates->mtbf_s[WEFT_FAULT_GPU] = WEFT_FAULT_LLAMA3_GPUS * span / WEFT_FAULT_LLAMA3_GPU;
    rates->mtbf_s[WEFT_FAULT_HOST] = WEFT_FAULT_LLAMA3_HOSTS * span / WEFT_FAULT_LLAMA3_HOST;
    rates->mtbf_s[WEFT_FAULT_NIC] = WEFT_FAULT_REF_NICS * span / WEFT_FAULT_LLAMA3_NIC;
    rates->mtbf_s[WEFT_FAULT_SWITCH] = WEFT_FAULT_REF_SWITCHES * span / WEFT_FAULT_LLAMA3_SWITCH;
    rates->mtbf_s[WEFT_FAULT_CABLE] = WEFT_FAULT_REF_CABLES * span / WEFT_FAULT_LLAMA3_CABLE;
    rates->mtbf_s[WEFT_FAULT_SOFTWARE] =
        WEFT_FAULT_LLAMA3_HOSTS * span / WEFT_FAULT_LLAMA3_SOFTWARE;
    rates->mtbf_s[WEFT_FAULT_MAINTENANCE] =
        WEFT_FAULT_LLAMA3_HOSTS * span / WEFT_FAULT_LLAMA3_MAINTENANCE;
    rates->mtbf_s[WEFT_FAULT_UNKNOWN] = WEFT_FAULT_LLAMA3_HOSTS * span / WEFT_FAULT_LLAMA3_UNKNOWN;
}

gboolean
weft_fault_rates_check(const weft_fault_rates_t *rates, GError **error)
{
    for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
        if (!(rates->mtbf_s[c] > 0.0)) {
            g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE,
                        "mtbf_%s = %g s: an MTBF must be > 0 (use 'off' for never)", class_names[c],
                        rates->mtbf_s[c]);
            return FALSE;
        }
        if (!(rates->degrade_mtbf_s[c] > 0.0)) {
            g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE,
                        "degrade_mtbf_%s = %g s: an MTBF must be > 0 (use 'off' for never)",
                        class_names[c], rates->degrade_mtbf_s[c]);
            return FALSE;
        }
    }
    if (!(rates->weibull_shape > 0.0) || !isfinite(rates->weibull_shape)) {
        g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE,
                    "weibull_shape = %g: must be > 0 and finite", rates->weibull_shape);
        return FALSE;
    }
    if (!(rates->degrade_repair_s > 0.0) || !isfinite(rates->degrade_repair_s)) {
        g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE,
                    "degrade_repair_time = %g s: must be > 0 and finite", rates->degrade_repair_s);
        return FALSE;
    }
    return TRUE;
}

void
weft_fault_counts_from_topo(const weft_topo_t *topo, weft_fault_counts_t *counts)
{
    memset(counts, 0, sizeof *counts);
    counts->n[WEFT_FAULT_GPU] = weft_topo_n_gpus(topo);
    guint64 hosts = weft_topo_n_hosts(topo);
    counts->n[WEFT_FAULT_HOST] = hosts;
    counts->n[WEFT_FAULT_SOFTWARE] = hosts;
    counts->n[WEFT_FAULT_MAINTENANCE] = hosts;
    counts->n[WEFT_FAULT_UNKNOWN] = hosts;
    counts->n[WEFT_FAULT_PLANNED] = 1;
    guint nv = weft_topo_n_vertices(topo);
    for (guint v = 0; v < nv; v++) {
        weft_vertex_kind_t k = weft_topo_vertex_kind(topo, (gint)v);
        if (k == WEFT_VERTEX_NIC) {
            counts->n[WEFT_FAULT_NIC]++;
        } else if (k == WEFT_VERTEX_SWITCH) {
            counts->n[WEFT_FAULT_SWITCH]++;
        }
    }
    guint64 directed = 0;
    guint ne = weft_topo_n_edges(topo);
    for (guint e = 0; e < ne; e++) {
        weft_link_kind_t k = weft_topo_edge_kind(topo, (gint)e);
        if (k == WEFT_LINK_INFINIBAND || k == WEFT_LINK_ETHERNET) {
            /* an edge may stand for several parallel physical links */
            directed += weft_topo_edge_lanes(topo, (gint)e);
        }
    }
    /* one directed edge per direction of each full-duplex link (DESIGN.md) */
    counts->n[WEFT_FAULT_CABLE] = directed / 2;
}

void
weft_fault_counts_for_gpus(guint64 n_gpus, guint gpus_per_host, weft_fault_counts_t *counts)
{
    g_return_if_fail(gpus_per_host > 0);
    memset(counts, 0, sizeof *counts);
    guint64 hosts = (n_gpus + gpus_per_host - 1) / gpus_per_host;
    counts->n[WEFT_FAULT_GPU] = n_gpus;
    counts->n[WEFT_FAULT_HOST] = hosts;
    counts->n[WEFT_FAULT_SOFTWARE] = hosts;
    counts->n[WEFT_FAULT_MAINTENANCE] = hosts;
    counts->n[WEFT_FAULT_UNKNOWN] = hosts;
    counts->n[WEFT_FAULT_PLANNED] = 1;
    counts->n[WEFT_FAULT_NIC] =
        (guint64)llround((double)n_gpus * WEFT_FAULT_REF_NICS / WEFT_FAULT_LLAMA3_GPUS);
    counts->n[WEFT_FAULT_SWITCH] =
        (guint64)llround((double)n_gpus * WEFT_FAULT_REF_SWITCHES / WEFT_FAULT_LLAMA3_GPUS);
    counts->n[WEFT_FAULT_CABLE] =
        (guint64)llround((double)n_gpus * WEFT_FAULT_REF_CABLES / WEFT_FAULT_LLAMA3_GPUS);
}

double
weft_fault_rate_per_s(const weft_fault_rates_t *rates, const weft_fault_counts_t *counts,
                      gboolean degrading)
{
    const double *mtbf = degrading ? rates->degrade_mtbf_s : rates->mtbf_s;
    double lambda = 0.0;
    for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
        if (counts->n[c] > 0 && isfinite(mtbf[c])) {
            lambda += (double)counts->n[c] / mtbf[c];
        }
    }
    return lambda;
}

gboolean
weft_fault_dist_from_name(const char *name, weft_fault_dist_t *dist, GError **error)
{
    gint v = 0;
    if (!weft_enum_from_name(&weft_fault_dist_enum, name, &v, NULL)) {
        g_autofree char *valid = weft_enum_list(&weft_fault_dist_enum, " or ");
        g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_KEY,
                    "unknown distribution '%s': expected %s", name, valid);
        return FALSE;
    }
    *dist = (weft_fault_dist_t)v;
    return TRUE;
}

const char *
weft_fault_dist_name(weft_fault_dist_t dist)
{
    return weft_enum_name(&weft_fault_dist_enum, (gint)dist);
}

gboolean
weft_fault_parse_duration(const char *text, gboolean allow_infinite, double *seconds,
                          GError **error)
{
    static const struct {
        const char *unit;
        double s;
    } units[] = {
        {"ps", 1e-12}, {"ns", 1e-9},  {"us", 1e-6},  {"µs", 1e-6},   {"ms", 1e-3},
        {"s", 1.0},    {"min", 60.0}, {"h", 3600.0}, {"d", 86400.0},
    };
    g_autofree char *t = g_strstrip(g_strdup(text != NULL ? text : ""));
    if (allow_infinite && (strcmp(t, "inf") == 0 || strcmp(t, "off") == 0)) {
        *seconds = INFINITY;
        return TRUE;
    }
    char *end = NULL;
    double v = g_ascii_strtod(t, &end);
    if (end == t) {
        g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE,
                    "'%s' is not a duration: expected a number and a unit (s, min, h, d, ...)", t);
        return FALSE;
    }
    while (*end == ' ' || *end == '\t') {
        end++;
    }
    if (*end == '\0') {
        g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE,
                    "'%s' has no unit: write e.g. '%ss' or '%sh' (ps, ns, us, ms, s, min, h, d)", t,
                    t, t);
        return FALSE;
    }
    for (guint i = 0; i < G_N_ELEMENTS(units); i++) {
        if (strcmp(end, units[i].unit) == 0) {
            if (!isfinite(v) || v < 0.0) {
                g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE,
                            "'%s': a duration must be finite and >= 0", t);
                return FALSE;
            }
            *seconds = v * units[i].s;
            return TRUE;
        }
    }
    g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE,
                "'%s': unknown unit '%s' (ps, ns, us, ms, s, min, h, d)", t, end);
    return FALSE;
}

/* ---- samplers ---------------------------------------------------------------------------- */

typedef struct {
    double t;
    guint32 cls;
    guint64 comp;
} heap_item_t;

struct weft_fault_sampler {
    weft_rng_t *rng;
    weft_fault_dist_t dist;
    double mtbf_s[WEFT_FAULT_N_CLASSES];
    weft_fault_counts_t counts;
    /* exponential: one Poisson process of rate lambda; class c with probability rate[c]/lambda */
    double rate[WEFT_FAULT_N_CLASSES];
    double lambda;
    double now;
    /* Weibull: every component's next failure, a binary min-heap on t */
    double shape, inv_shape, scale[WEFT_FAULT_N_CLASSES];
    heap_item_t *heap;
    gsize heap_len;
};

/* A standard normal by Box-Muller (one of the pair). */
static double
normal_draw(weft_rng_t *rng)
{
    double u1 = 1.0 - weft_rng_uniform(rng); /* (0, 1] */
    double u2 = weft_rng_uniform(rng);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * G_PI * u2);
}

/* Gamma(@a, 1) for @a >= 1: Marsaglia and Tsang, "A simple method for generating gamma
 * variables", ACM TOMS 26(3), 2000. */
static double
gamma_draw(weft_rng_t *rng, double a)
{
    double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = normal_draw(rng);
        double v = 1.0 + c * x;
        if (v <= 0.0) {
            continue;
        }
        v = v * v * v;
        double u = 1.0 - weft_rng_uniform(rng);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) {
            return d * v;
        }
    }
}

/* Draws a Weibull lifetime of class @c by inversion: s (-ln(1 - U))^(1/k). */
static double
weibull_draw(weft_fault_sampler_t *s, guint c)
{
    double u = weft_rng_uniform(s->rng);
    return s->scale[c] * pow(-log1p(-u), s->inv_shape);
}

static void
heap_sift_down(heap_item_t *h, gsize n, gsize i)
{
    for (;;) {
        gsize l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h[l].t < h[m].t) {
            m = l;
        }
        if (r < n && h[r].t < h[m].t) {
            m = r;
        }
        if (m == i) {
            return;
        }
        heap_item_t tmp = h[i];
        h[i] = h[m];
        h[m] = tmp;
        i = m;
    }
}

weft_fault_sampler_t *
weft_fault_sampler_new(const weft_fault_rates_t *rates, const weft_fault_counts_t *counts,
                       gboolean degrading, guint64 seed, guint32 stream)
{
    weft_fault_sampler_t *s = g_new0(weft_fault_sampler_t, 1);
    s->rng = weft_rng_new(seed, stream);
    s->dist = rates->dist;
    s->counts = *counts;
    memcpy(s->mtbf_s, degrading ? rates->degrade_mtbf_s : rates->mtbf_s, sizeof s->mtbf_s);
    for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
        s->rate[c] = (counts->n[c] > 0 && isfinite(s->mtbf_s[c]))
                         ? (double)counts->n[c] / s->mtbf_s[c]
                         : 0.0;
        s->lambda += s->rate[c];
    }
    if (s->dist == WEFT_FAULT_DIST_WEIBULL) {
        s->shape = rates->weibull_shape;
        s->inv_shape = 1.0 / s->shape;
        gsize n = 0;
        for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
            /* mean of Weibull(k, scale) = scale Gamma(1 + 1/k) = MTBF */
            s->scale[c] = s->mtbf_s[c] / tgamma(1.0 + s->inv_shape);
            if (s->rate[c] > 0.0) {
                n += counts->n[c];
            }
        }
        s->heap = g_new(heap_item_t, MAX(n, 1));
        for (guint c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
            if (s->rate[c] <= 0.0) {
                continue;
            }
            for (guint64 i = 0; i < counts->n[c]; i++) {
                double first;
                if (rates->weibull_new) {
                    first = weibull_draw(s, c);
                } else {
                    /* forward recurrence time of a stationary renewal process: U times a
                     * length-biased lifetime s G^(1/k), G ~ Gamma(1 + 1/k, 1) */
                    double g = gamma_draw(s->rng, 1.0 + s->inv_shape);
                    first = weft_rng_uniform(s->rng) * s->scale[c] * pow(g, s->inv_shape);
                }
                s->heap[s->heap_len++] = (heap_item_t){first, c, i};
            }
        }
        for (gsize i = s->heap_len / 2; i-- > 0;) {
            heap_sift_down(s->heap, s->heap_len, i);
        }
    }
    return s;
}

void
weft_fault_sampler_next(weft_fault_sampler_t *s, weft_fault_event_t *ev)
{
    ev->component = 0;
    ev->component_class = WEFT_FAULT_UNKNOWN;
    if (s->dist == WEFT_FAULT_DIST_WEIBULL) {
        if (s->heap_len == 0) {
            ev->time_s = INFINITY;
            return;
        }
        heap_item_t top = s->heap[0];
        ev->time_s = top.t;
        ev->component_class = (weft_fault_class_t)top.cls;
        ev->component = top.comp;
        /* the failed part is replaced by a new one; the others keep their age */
        s->heap[0].t = top.t + weibull_draw(s, top.cls);
        heap_sift_down(s->heap, s->heap_len, 0);
        return;
    }
    if (s->lambda <= 0.0) {
        ev->time_s = INFINITY;
        return;
    }
    s->now += -log1p(-weft_rng_uniform(s->rng)) / s->lambda;
    ev->time_s = s->now;
    double pick = weft_rng_uniform(s->rng) * s->lambda;
    guint c = 0, last = 0;
    for (c = 0; c < WEFT_FAULT_N_CLASSES; c++) {
        if (s->rate[c] <= 0.0) {
            continue;
        }
        last = c;
        if (pick < s->rate[c]) {
            break;
        }
        pick -= s->rate[c];
    }
    if (c == WEFT_FAULT_N_CLASSES) {
        c = last; /* rounding left pick just above the sum */
    }
    ev->component_class = (weft_fault_class_t)c;
    guint64 comp = (guint64)(weft_rng_uniform(s->rng) * (double)s->counts.n[c]);
    ev->component = MIN(comp, s->counts.n[c] - 1);
}

void
weft_fault_sampler_free(weft_fault_sampler_t *s)
{
    if (s == NULL) {
        return;
    }
    weft_rng_free(s->rng);
    g_free(s->heap);
    g_free(s);
}
