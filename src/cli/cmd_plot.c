/* SPDX-License-Identifier: MIT */
/*
 * weft plot: renders a figure from weft's CSV outputs by running gnuplot
 * (g_spawn) on one of the scripts in plots/ with the input file and the
 * figure's name as arguments. The figure is written to a temporary name in its
 * directory and renamed, so a failed run leaves no half-written figure.
 * `weft plot sweep` first reads a `weft sweep` results CSV here (RFC 4180
 * fields, the axis columns NAME:GROUP.KEY) and writes gnuplot one data block
 * per line of the figure, then runs plots/sweep.gp on it.
 */
#define G_LOG_DOMAIN "weft-cli"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "cli/cli.h"
#include "core/output.h"
#include "core/units.h"
#include "topo/topo.h"

/* One kind of figure: its script and the file it reads from a --out directory. */
typedef struct {
    const char *kind;
    const char *script;   /* in the plots directory */
    const char *dir_file; /* the CSV inside DIR when INPUT is a directory; NULL: INPUT is a file */
    const char *hint;     /* how to make the input */
    const char *summary;
    const char *file_of; /* when INPUT is a file: whose CSV it is */
} plot_kind_t;

static const plot_kind_t kinds[] = {
    {"breakdown", "breakdown.gp", "ranks.csv", "weft replay ... --out DIR",
     "step-time breakdown per rank: stacked compute, exposed communication, idle", NULL},
    {"busbw", "busbw.gp", NULL, "weft coll ... --csv FILE",
     "collective bus bandwidth against size (log scales), with --measured beside it",
     "weft coll --csv"},
    {"goodput", "goodput_vs_interval.gp", "goodput_vs_interval.csv",
     "weft train ... --checkpoint-interval auto --out DIR",
     "goodput against checkpoint interval, with its 95% confidence interval", NULL},
    {"run-timeline", "run_timeline.gp", "run_timeline.csv", "weft train ... --out DIR",
     "one training run: kept training, work lost at failures, restarts, degraded spans", NULL},
    {"links-heatmap", "links_heatmap.gp", "links_timeseries.csv",
     "weft replay ... --network flow --link-series 10us --out DIR",
     "link utilization over time, one row per link (the busiest)", NULL},
    {"top-links", "top_links.gp", "links.csv", "weft replay ... --out DIR",
     "bars of the links that carried the most bytes: the busiest of each tier (--kind)", NULL},
    {"sweep", "sweep.gp", NULL, "weft sweep STUDY.ini",
     "a study's metric (--y) over one axis (--x), one line per value of another (--lines)",
     "weft sweep (its results)"},
};

/* The directory holding the gnuplot scripts: $WEFT_PLOTS_DIR, the installed
 * copy, the source tree weft was built from, or ./plots; NULL if none has @script. */
static char *
find_plots_dir(const char *script)
{
    const char *candidates[] = {
        g_getenv("WEFT_PLOTS_DIR"),
        WEFT_PLOTS_DIR,
        WEFT_PLOTS_SRCDIR,
        "plots",
    };
    for (guint i = 0; i < G_N_ELEMENTS(candidates); i++) {
        if (candidates[i] == NULL || candidates[i][0] == '\0') {
            continue;
        }
        g_autofree char *path = g_build_filename(candidates[i], script, NULL);
        if (g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
            return g_strdup(candidates[i]);
        }
    }
    return NULL;
}

static char *
kinds_text(void)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
        g_string_append_printf(s, "%s%s", i > 0 ? ", " : "", kinds[i].kind);
    }
    return g_string_free(s, FALSE);
}

/* ---- weft plot sweep ------------------------------------------------------------------------ */

/* Splits one CSV line into its fields (RFC 4180 quotes; weft sweep writes one row per line). */
static GPtrArray *
csv_fields(const char *line)
{
    GPtrArray *f = g_ptr_array_new_with_free_func(g_free);
    GString *cur = g_string_new(NULL);
    gboolean quoted = FALSE;
    for (const char *p = line;; p++) {
        if (quoted) {
            if (*p == '\0') {
                break;
            }
            if (*p == '"' && p[1] == '"') {
                g_string_append_c(cur, '"');
                p++;
            } else if (*p == '"') {
                quoted = FALSE;
            } else {
                g_string_append_c(cur, *p);
            }
        } else if (*p == '"') {
            quoted = TRUE;
        } else if (*p == ',' || *p == '\0' || *p == '\r') {
            g_ptr_array_add(f, g_string_free(cur, FALSE));
            cur = g_string_new(NULL);
            if (*p != ',') {
                break;
            }
        } else {
            g_string_append_c(cur, *p);
        }
    }
    if (quoted) {
        g_ptr_array_add(f, g_string_free(cur, FALSE));
    } else {
        g_string_free(cur, TRUE);
    }
    return f;
}

/* The column of @want among the axis columns [@first, @last): the full NAME:GROUP.KEY or NAME
 * (an axis's numeric column, NAME_bytes, is not an axis of its own). */
static gint
find_axis(GPtrArray *header, guint first, guint last, const char *want)
{
    for (guint c = first; c < last; c++) {
        const char *col = g_ptr_array_index(header, c);
        const char *colon = strchr(col, ':');
        if (colon != NULL &&
            (strcmp(col, want) == 0 ||
             (strlen(want) == (gsize)(colon - col) && strncmp(col, want, colon - col) == 0))) {
            return (gint)c;
        }
    }
    return -1;
}

/* Whether @col is the numeric column of the axis column @prev ("size:workload.collective_bytes"
 * then "size_bytes"): weft sweep writes one after an axis of quantities. */
static gboolean
is_axis_number(const char *prev, const char *col)
{
    static const char *const units[] = {"bytes", "Bps", "us", "ratio"};
    const char *colon = strchr(prev, ':');
    if (colon == NULL) {
        return FALSE;
    }
    gsize n = (gsize)(colon - prev);
    if (strncmp(prev, col, n) != 0 || col[n] != '_') {
        return FALSE;
    }
    for (guint u = 0; u < G_N_ELEMENTS(units); u++) {
        if (strcmp(col + n + 1, units[u]) == 0) {
            return TRUE;
        }
    }
    return FALSE;
}

static char *
columns_text(GPtrArray *header, guint first, guint last, gboolean axes)
{
    GString *s = g_string_new(NULL);
    for (guint c = first; c < last; c++) {
        const char *col = g_ptr_array_index(header, c);
        if (axes && strchr(col, ':') == NULL) {
            continue; /* an axis's numeric column */
        }
        g_string_append_printf(s, "%s%s", s->len > 0 ? ", " : "", col);
    }
    return g_string_free(s, FALSE);
}

/*
 * How a quantity is shown: the values are divided by @div and the axis says @unit. The
 * families a value can be in: a time, a size in bytes, a rate, or something else (shown as
 * it is, @unit possibly a fixed text such as "%").
 */
typedef enum { Q_PLAIN, Q_TIME_US, Q_BYTES, Q_RATE_BPS } quantity_t;

typedef struct {
    double div;
    const char *unit; /* "" for none */
} shown_unit_t;

/*
 * The unit to show values of @q whose largest magnitude is @max in: s, ms or µs for times (by
 * the largest value, so a multi-second time reads 1.2 s, not 1200000 µs), KiB..TiB for
 * sizes, GB/s for rates.
 */
static shown_unit_t
pick_unit(quantity_t q, double max)
{
    switch (q) {
    case Q_TIME_US:
        return max >= 1e6 ? (shown_unit_t){1e6, "s"}
               : max >= 1e3 ? (shown_unit_t){1e3, "ms"}
                            : (shown_unit_t){1.0, "µs"};
    case Q_BYTES:
        return max >= 0x1p40   ? (shown_unit_t){0x1p40, "TiB"}
               : max >= 0x1p30 ? (shown_unit_t){0x1p30, "GiB"}
               : max >= 0x1p20 ? (shown_unit_t){0x1p20, "MiB"}
               : max >= 0x1p10 ? (shown_unit_t){0x1p10, "KiB"}
                               : (shown_unit_t){1.0, "bytes"};
    case Q_RATE_BPS:
        return (shown_unit_t){1e9, "GB/s"};
    default:
        return (shown_unit_t){1.0, ""};
    }
}

/*
 * The unit words a metric's name can end in (doc/studies.md: step_time_us, goodput_pct_mean,
 * ...): the first one after the first word gives its family and the factor to its base unit
 * (µs, bytes, B/s). One table, so that a renamed column or a new unit is one line here.
 */
static const struct {
    const char *token;
    quantity_t q;
    double to_base; /* Q_PLAIN: 1, and @fixed is the unit shown */
    const char *fixed;
} metric_units[] = {
    {"us", Q_TIME_US, 1.0, NULL},   {"ms", Q_TIME_US, 1e3, NULL},    {"s", Q_TIME_US, 1e6, NULL},
    {"h", Q_PLAIN, 1.0, "h"},       {"days", Q_PLAIN, 1.0, "days"},  {"pct", Q_PLAIN, 1.0, "%"},
    {"bytes", Q_BYTES, 1.0, NULL},  {"Bps", Q_RATE_BPS, 1.0, NULL},  {"GBps", Q_RATE_BPS, 1e9, NULL},
    {"gbs", Q_RATE_BPS, 1e9, NULL},
};

/*
 * A metric's name as words and a family: "step_time_us" -> "step time", Q_TIME_US, factor 1;
 * "goodput_pct_mean" -> "goodput mean", Q_PLAIN, fixed "%". Returns the words (g_free).
 */
static char *
metric_words(const char *name, quantity_t *q, double *to_base, const char **fixed)
{
    g_auto(GStrv) words = g_strsplit(name, "_", -1);
    GString *s = g_string_new(NULL);
    gboolean found = FALSE;
    *q = Q_PLAIN;
    *to_base = 1.0;
    *fixed = NULL;
    for (guint i = 0; words[i] != NULL; i++) {
        gint u = -1;
        for (guint k = 0; k < G_N_ELEMENTS(metric_units); k++) {
            if (strcmp(words[i], metric_units[k].token) == 0) {
                u = (gint)k;
            }
        }
        if (u >= 0 && !found && i > 0) {
            found = TRUE;
            *q = metric_units[u].q;
            *to_base = metric_units[u].to_base;
            *fixed = metric_units[u].fixed;
            continue;
        }
        g_string_append_printf(s, "%s%s", s->len > 0 ? " " : "", words[i]);
    }
    return g_string_free(s, FALSE);
}

/* An axis name as a label: underscores become spaces ("write_bw" -> "write bw"). */
static char *
name_words(const char *name)
{
    char *s = g_strdup(name);
    g_strdelimit(s, "_", ' ');
    return s;
}

/* @words with @unit in parentheses, or alone when there is no unit. */
static char *
with_unit(const char *words, const char *unit)
{
    return unit != NULL && unit[0] != '\0' ? g_strdup_printf("%s (%s)", words, unit)
                                           : g_strdup(words);
}

/* A number as a short tick label: "%g" without exponent clutter for the usual ranges. */
static char *
short_number(double v)
{
    char b[G_ASCII_DTOSTR_BUF_SIZE];
    return g_strdup(g_ascii_formatd(b, sizeof b, "%g", v));
}

/* Text safe inside a gnuplot double-quoted string in a data file or an argument. */
static char *
gp_text(const char *text)
{
    GString *s = g_string_new(NULL);
    for (const char *p = text; *p != '\0'; p++) {
        g_string_append_c(s, *p == '"' ? '\'' : (*p == '\t' || *p == '\n') ? ' ' : *p);
    }
    return g_string_free(s, FALSE);
}

/*
 * x values as numbers: bare numbers, sizes (bytes), rates (B/s), times (µs) or ratios a:b, the
 * first form every value takes; @q is its family (Q_PLAIN for bare numbers and ratios, whose
 * study text is kept as the tick label: @keep_text). FALSE: some value is none of them (the
 * axis is drawn as categories).
 */
static gboolean
x_numbers(GPtrArray *values, double *num, quantity_t *q, gboolean *keep_text)
{
    for (guint form = 0; form < 5; form++) {
        gboolean all = TRUE;
        for (guint i = 0; all && i < values->len; i++) {
            const char *v = g_ptr_array_index(values, i);
            guint64 bytes = 0;
            weft_time_t ps = 0;
            unsigned a = 0, b = 0;
            char tail = 0;
            switch (form) {
            case 0:
                all = weft_units_parse_count(v, &num[i], NULL);
                break;
            case 1:
                all = weft_units_parse_bytes(v, &bytes, NULL);
                num[i] = (double)bytes;
                break;
            case 2:
                all = weft_units_parse_rate(v, &num[i], NULL);
                break;
            case 3:
                all = weft_units_parse_time(v, &ps, NULL);
                num[i] = weft_time_to_us(ps);
                break;
            default:
                all = sscanf(v, "%u:%u%c", &a, &b, &tail) == 2 && b > 0;
                num[i] = all ? (double)a / b : 0.0;
                break;
            }
        }
        if (all) {
            static const quantity_t qs[] = {Q_PLAIN, Q_BYTES, Q_RATE_BPS, Q_TIME_US, Q_PLAIN};
            *q = qs[form];
            *keep_text = form == 0 || form == 4;
            return TRUE;
        }
    }
    return FALSE;
}

typedef struct {
    double x;
    guint order; /* position of the row in the CSV: ties keep grid order */
    double y;
    const char *label;
} sweep_pt_t;

static gint
pt_cmp(gconstpointer a, gconstpointer b)
{
    const sweep_pt_t *p = a, *q = b;
    if (p->x != q->x) {
        return p->x < q->x ? -1 : 1;
    }
    return p->order < q->order ? -1 : p->order > q->order;
}

/* Options of weft plot sweep. */
typedef struct {
    const char *x, *lines, *y;
    char **where; /* NAME=VALUE, NULL-terminated, or NULL */
    gboolean logx, logy;
    const char *title, *xlabel, *ylabel; /* NULL: none, and labels made from the names */
    const char *legend;                  /* a sweep.gp key position; NULL: below, or none */
} sweep_opts_t;

/*
 * Reads the results CSV @input and writes the data file @data (one block per line of the
 * figure, "title" then x, y, "x label" rows sorted by x) and the script's arguments to @args.
 * Returns: WEFT_EXIT_OK, or the exit status after printing the error.
 */
static int
prepare_sweep(const char *input, const sweep_opts_t *o, const char *data, GPtrArray *args)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *text = NULL;
    if (!g_file_get_contents(input, &text, NULL, &error)) {
        return weft_cli_error("plot", error);
    }
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    guint l = 0;
    while (lines[l] != NULL && lines[l][0] == '#') {
        l++; /* a shard's comment line */
    }
    g_autoptr(GPtrArray) header = lines[l] != NULL ? csv_fields(lines[l]) : NULL;
    if (header == NULL || header->len < 3 || strcmp(g_ptr_array_index(header, 0), "point") != 0 ||
        strcmp(g_ptr_array_index(header, header->len - 2), "status") != 0) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: not a results CSV of weft sweep (expected a header point,...,status,"
                    "error)",
                    input);
        return weft_cli_error("plot", error);
    }
    /* axis columns hold a ':' (NAME:GROUP.KEY), each followed by its numeric column
     * when it has one (NAME_bytes, doc/studies.md); the metrics follow them */
    guint first_metric = 1;
    while (first_metric < header->len - 2 &&
           (strchr(g_ptr_array_index(header, first_metric), ':') != NULL ||
            is_axis_number(g_ptr_array_index(header, first_metric - 1),
                           g_ptr_array_index(header, first_metric)))) {
        first_metric++;
    }
    guint n_cols = header->len, status_col = n_cols - 2;
    g_autofree char *axes_valid = columns_text(header, 1, first_metric, TRUE);
    g_autofree char *metrics_valid = columns_text(header, first_metric, status_col, FALSE);
    if (first_metric == 1) {
        g_autofree char *msg = g_strdup_printf("%s: the study has no axis to draw", input);
        return weft_cli_usage_error("plot", msg);
    }
    gint xc = find_axis(header, 1, first_metric, o->x);
    if (xc < 0) {
        g_autofree char *msg =
            g_strdup_printf("--x %s: no such axis in %s; axes: %s", o->x, input, axes_valid);
        return weft_cli_usage_error("plot", msg);
    }
    gint lc = -1;
    if (o->lines != NULL) {
        lc = find_axis(header, 1, first_metric, o->lines);
        if (lc < 0) {
            g_autofree char *msg = g_strdup_printf("--lines %s: no such axis in %s; axes: %s",
                                                   o->lines, input, axes_valid);
            return weft_cli_usage_error("plot", msg);
        }
        if (lc == xc) {
            return weft_cli_usage_error("plot", "--x and --lines name the same axis");
        }
    }
    gint yc = -1;
    for (guint c = first_metric; c < status_col; c++) {
        if (strcmp(g_ptr_array_index(header, c), o->y) == 0) {
            yc = (gint)c;
        }
    }
    if (yc < 0) {
        g_autofree char *msg =
            g_strdup_printf("--y %s: no such metric in %s; metrics: %s", o->y, input,
                            metrics_valid[0] != '\0' ? metrics_valid : "(none)");
        return weft_cli_usage_error("plot", msg);
    }
    /* --where NAME=VALUE fixes another axis */
    g_autoptr(GArray) where_col = g_array_new(FALSE, FALSE, sizeof(gint));
    g_autoptr(GPtrArray) where_val = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; o->where != NULL && o->where[i] != NULL; i++) {
        const char *eq = strchr(o->where[i], '=');
        g_autofree char *name = eq != NULL ? g_strndup(o->where[i], eq - o->where[i]) : NULL;
        gint c = name != NULL ? find_axis(header, 1, first_metric, name) : -1;
        if (c < 0 || c == xc || c == lc) {
            g_autofree char *msg = g_strdup_printf(
                "--where %s: expected AXIS=VALUE with an axis other than --x and --lines; "
                "axes: %s",
                o->where[i], axes_valid);
            return weft_cli_usage_error("plot", msg);
        }
        g_array_append_val(where_col, c);
        g_ptr_array_add(where_val, g_strdup(eq + 1));
    }

    /* the rows: ok ones kept, the others counted */
    g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    guint skipped = 0, filtered = 0;
    for (guint r = l + 1; lines[r] != NULL; r++) {
        if (lines[r][0] == '\0') {
            continue;
        }
        GPtrArray *f = csv_fields(lines[r]);
        if (f->len != n_cols) {
            g_ptr_array_unref(f);
            g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s: line %u has a different number of fields than the header", input,
                        r + 1);
            return weft_cli_error("plot", error);
        }
        gboolean keep = TRUE;
        for (guint w = 0; w < where_col->len; w++) {
            keep = keep && strcmp(g_ptr_array_index(f, g_array_index(where_col, gint, w)),
                                  g_ptr_array_index(where_val, w)) == 0;
        }
        if (!keep) {
            filtered++;
            g_ptr_array_unref(f);
        } else if (strcmp(g_ptr_array_index(f, status_col), "ok") != 0) {
            skipped++;
            g_ptr_array_unref(f);
        } else {
            g_ptr_array_add(rows, f);
        }
    }
    for (guint w = 0; w < where_col->len && rows->len == 0 && skipped == 0; w++) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: no row has %s = %s", input,
                    (const char *)g_ptr_array_index(header, g_array_index(where_col, gint, w)),
                    (const char *)g_ptr_array_index(where_val, w));
        return weft_cli_error("plot", error);
    }
    if (skipped > 0) {
        fprintf(stderr, "weft plot: skipped %u point%s whose status is not ok\n", skipped,
                skipped == 1 ? "" : "s");
    }
    if (rows->len == 0) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: no point with status ok to draw",
                    input);
        return weft_cli_error("plot", error);
    }
    /* any other axis must take one value among the rows drawn */
    for (guint c = 1; c < first_metric; c++) {
        if ((gint)c == xc || (gint)c == lc || strchr(g_ptr_array_index(header, c), ':') == NULL) {
            continue; /* the numeric column of an axis varies with it */
        }
        const char *v0 = g_ptr_array_index((GPtrArray *)g_ptr_array_index(rows, 0), c);
        for (guint r = 1; r < rows->len; r++) {
            const char *v = g_ptr_array_index((GPtrArray *)g_ptr_array_index(rows, r), c);
            if (strcmp(v, v0) != 0) {
                g_autofree char *msg = g_strdup_printf(
                    "axis %s takes several values (%s, %s, ...): draw it with --lines or "
                    "choose one with --where NAME=VALUE",
                    (const char *)g_ptr_array_index(header, c), v0, v);
                return weft_cli_usage_error("plot", msg);
            }
        }
    }

    /* x: the distinct values in grid order, as numbers or as categories 0, 1, ... */
    g_autoptr(GPtrArray) xs = g_ptr_array_new();
    g_autoptr(GPtrArray) ls = g_ptr_array_new();
    for (guint r = 0; r < rows->len; r++) {
        GPtrArray *f = g_ptr_array_index(rows, r);
        const char *xv = g_ptr_array_index(f, xc);
        if (!g_ptr_array_find_with_equal_func(xs, xv, g_str_equal, NULL)) {
            g_ptr_array_add(xs, (gpointer)xv);
        }
        const char *lv = lc >= 0 ? g_ptr_array_index(f, lc) : "";
        if (!g_ptr_array_find_with_equal_func(ls, lv, g_str_equal, NULL)) {
            g_ptr_array_add(ls, (gpointer)lv);
        }
    }
    g_autofree double *xnum = g_new0(double, xs->len);
    quantity_t xq = Q_PLAIN;
    gboolean keep_text = TRUE;
    gboolean numeric = x_numbers(xs, xnum, &xq, &keep_text);
    if (!numeric) {
        for (guint i = 0; i < xs->len; i++) {
            xnum[i] = i;
        }
    }
    if (o->logx) {
        for (guint i = 0; i < xs->len; i++) {
            if (!numeric || xnum[i] <= 0) {
                g_autofree char *msg =
                    g_strdup_printf("--logx needs positive numbers on the x axis; %s has \"%s\"",
                                    (const char *)g_ptr_array_index(header, xc),
                                    (const char *)g_ptr_array_index(xs, i));
                return weft_cli_usage_error("plot", msg);
            }
        }
    }
    /* x in its shown unit; sizes stay in bytes (their ticks read "1 MiB") */
    double xmax = 0.0;
    for (guint i = 0; i < xs->len; i++) {
        xmax = MAX(xmax, fabs(xnum[i]));
    }
    shown_unit_t xu = numeric && xq != Q_BYTES && o->xlabel == NULL
                          ? pick_unit(xq, xmax) /* a user's --xlabel says the unit: as the column */
                          : (shown_unit_t){1.0, ""};
    /* label every x value when they are categories or few enough to read */
    gboolean xticlabels = !numeric || xs->len <= 12;
    g_autoptr(GPtrArray) xtext = g_ptr_array_new_with_free_func(g_free);
    glong xtext_max = 0;
    for (guint i = 0; i < xs->len; i++) {
        const char *v = g_ptr_array_index(xs, i);
        char *t = !numeric || keep_text ? gp_text(v)
                  : xq == Q_BYTES       ? weft_units_format_bytes((guint64)xnum[i])
                                        : short_number(xnum[i] / xu.div);
        xtext_max = MAX(xtext_max, g_utf8_strlen(t, -1));
        g_ptr_array_add(xtext, t);
    }
    /* Labels that would not fit side by side: a 5 in figure's plot area holds about 36
     * characters of its 10 pt font, in n slots between categories (then turned), n - 1
     * between numbers (then every k-th labelled, the others keep their tick) */
    glong slots = numeric ? (glong)MAX(xs->len, 2) - 1 : (glong)xs->len;
    gboolean rotate = !numeric && (xtext_max + 1) * slots > 36;
    if (numeric && (xtext_max + 1) * slots > 36) {
        glong per = MAX(36 / (xtext_max + 1), 1); /* labels that fit */
        glong k = (slots + per - 1) / per;
        for (guint i = 0; i < xs->len; i++) {
            /* the labelled values: the k-th ones in x order, from the smallest */
            guint below = 0;
            for (guint j = 0; j < xs->len; j++) {
                below += xnum[j] < xnum[i];
            }
            if (below % k != 0) {
                g_free(g_ptr_array_index(xtext, i));
                g_ptr_array_index(xtext, i) = g_strdup("");
            }
        }
    }

    /* the metric: its words, family and unit, and every point in its base unit */
    quantity_t yq = Q_PLAIN;
    double to_base = 1.0;
    const char *yfixed = NULL;
    g_autofree char *ywords = metric_words(o->y, &yq, &to_base, &yfixed);
    g_autoptr(GPtrArray) series = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    guint dropped_logy = 0;
    double ymax = 0.0;
    for (guint li = 0; li < ls->len; li++) {
        const char *lv = g_ptr_array_index(ls, li);
        GArray *pts = g_array_new(FALSE, FALSE, sizeof(sweep_pt_t));
        g_ptr_array_add(series, pts);
        for (guint r = 0; r < rows->len; r++) {
            GPtrArray *f = g_ptr_array_index(rows, r);
            if (lc >= 0 && strcmp(g_ptr_array_index(f, lc), lv) != 0) {
                continue;
            }
            const char *yv = g_ptr_array_index(f, yc);
            char *end = NULL;
            double y = g_ascii_strtod(yv, &end);
            if (yv[0] == '\0' || *end != '\0') {
                g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                            "%s: point %s: %s = \"%s\" is not a number", input,
                            (const char *)g_ptr_array_index(f, 0), o->y, yv);
                return weft_cli_error("plot", error);
            }
            if (o->logy && !(y > 0)) {
                dropped_logy++;
                continue;
            }
            guint xi = 0;
            g_ptr_array_find_with_equal_func(xs, g_ptr_array_index(f, xc), g_str_equal, &xi);
            sweep_pt_t pt = {xnum[xi], r, y * to_base, g_ptr_array_index(xtext, xi)};
            ymax = MAX(ymax, fabs(pt.y));
            g_array_append_val(pts, pt);
        }
        g_array_sort(pts, pt_cmp);
    }
    if (dropped_logy > 0) {
        fprintf(stderr, "weft plot: --logy: left out %u point%s with %s <= 0\n", dropped_logy,
                dropped_logy == 1 ? "" : "s", o->y);
    }
    shown_unit_t yu = pick_unit(yq, ymax);
    if (yfixed != NULL) {
        yu.unit = yfixed;
    }
    if (o->ylabel != NULL) {
        /* the user's label says the unit: values as the column holds them, not rescaled to
         * ms or GB/s behind a label that may say µs */
        yu = (shown_unit_t){to_base, ""};
    }
    double yminpos = G_MAXDOUBLE, ymaxshown = 0.0, yminshown = G_MAXDOUBLE;

    /* the data blocks; a line equal to an earlier one (same points) says so in its title,
     * since it is drawn right over it */
    GString *out = g_string_new(NULL);
    for (guint li = 0; li < ls->len; li++) {
        GArray *pts = g_ptr_array_index(series, li);
        const char *lv = g_ptr_array_index(ls, li);
        g_autofree char *title = gp_text(lc >= 0 ? lv : ywords);
        for (guint lj = 0; lc >= 0 && lj < li; lj++) {
            GArray *prev = g_ptr_array_index(series, lj);
            gboolean same = prev->len == pts->len && pts->len > 0;
            for (guint i = 0; same && i < pts->len; i++) {
                const sweep_pt_t *p = &g_array_index(pts, sweep_pt_t, i);
                const sweep_pt_t *q = &g_array_index(prev, sweep_pt_t, i);
                same = p->x == q->x && p->y == q->y;
            }
            if (same) {
                g_autofree char *eq = gp_text(g_ptr_array_index(ls, lj));
                char *t = g_strdup_printf("%s (= %s)", title, eq);
                g_free(title);
                title = t;
                break;
            }
        }
        g_string_append_printf(out, "%s\"%s\"\n", li > 0 ? "\n\n" : "", title);
        for (guint i = 0; i < pts->len; i++) {
            const sweep_pt_t *pt = &g_array_index(pts, sweep_pt_t, i);
            double ys = pt->y / yu.div;
            if (ys > 0) {
                yminpos = MIN(yminpos, ys);
            }
            ymaxshown = MAX(ymaxshown, ys);
            yminshown = MIN(yminshown, ys);
            char xb[G_ASCII_DTOSTR_BUF_SIZE], yb[G_ASCII_DTOSTR_BUF_SIZE];
            g_string_append_printf(out, "%s\t%s\t\"%s\"\n",
                                   g_ascii_dtostr(xb, sizeof xb, pt->x / xu.div),
                                   g_ascii_dtostr(yb, sizeof yb, ys), pt->label);
        }
    }
    gboolean ok = weft_output_write(data, out->str, (gssize)out->len, &error);
    g_string_free(out, TRUE);
    if (!ok) {
        return weft_cli_error("plot", error);
    }

    /* ARG3.. of sweep.gp: lines, x label, y label, key title, flags, title */
    const char *xcol = g_ptr_array_index(header, xc);
    g_autofree char *xname = g_strndup(xcol, strcspn(xcol, ":"));
    g_autofree char *xwords = name_words(xname);
    g_autofree char *xlabel =
        o->xlabel != NULL ? g_strdup(o->xlabel)
                          : with_unit(xwords, numeric && xq != Q_BYTES ? xu.unit : NULL);
    g_autofree char *ylabel = o->ylabel != NULL ? g_strdup(o->ylabel) : with_unit(ywords, yu.unit);
    g_autofree char *keytitle = NULL;
    if (lc >= 0) {
        const char *lcol = g_ptr_array_index(header, lc);
        g_autofree char *lname = g_strndup(lcol, strcspn(lcol, ":"));
        keytitle = name_words(lname);
    } else {
        keytitle = g_strdup("");
    }
    GString *flags = g_string_new("");
    if (o->logx) {
        g_string_append(flags, " logx");
    }
    if (o->logy) {
        g_string_append(flags, " logy");
        /* log ticks: 10^n where the values span big numbers, else plain numbers, with 2 and
         * 5 between the decades when fewer than two decades show */
        if (ymaxshown >= 1e5 || yminpos < 1e-3) {
            g_string_append(flags, " ypow");
        } else if (ymaxshown < 100 * yminpos) {
            g_string_append(flags, " y125");
        }
    }
    if (xticlabels) {
        g_string_append(flags, " xticlabels");
        if (rotate) {
            g_string_append(flags, " rotate");
        }
    } else if (xq == Q_BYTES) {
        g_string_append(flags, " xbytes");
    }
    if (!numeric) {
        g_string_append(flags, " categories");
    }
    /* every y the same: gnuplot cannot scale a range of zero */
    if (yminshown == ymaxshown) {
        g_string_append(flags, " flat");
    }
    /* one line: the y label names it; a key is asked for with --legend */
    const char *legend = o->legend != NULL ? o->legend : lc >= 0 ? "below" : "none";
    g_string_append_printf(flags, " key=%s", legend);
    g_ptr_array_add(args, g_strdup_printf("%u", ls->len));
    g_ptr_array_add(args, gp_text(xlabel));
    g_ptr_array_add(args, gp_text(ylabel));
    g_ptr_array_add(args, g_steal_pointer(&keytitle));
    g_ptr_array_add(args, g_string_free(flags, FALSE));
    g_ptr_array_add(args, gp_text(o->title != NULL ? o->title : ""));
    return WEFT_EXIT_OK;
}

/* TRUE if @pos is a key position sweep.gp knows. */
static gboolean
legend_valid(const char *pos)
{
    static const char *const valid[] = {"below",       "right",        "top-left", "top-right",
                                        "bottom-left", "bottom-right", "none"};
    for (guint i = 0; i < G_N_ELEMENTS(valid); i++) {
        if (strcmp(pos, valid[i]) == 0) {
            return TRUE;
        }
    }
    return FALSE;
}

/* TRUE if @sel is "tiers", "all" or a comma-separated list of link kind names (topo.h's). */
static gboolean
link_kind_valid(const char *sel)
{
    if (strcmp(sel, "tiers") == 0 || strcmp(sel, "all") == 0) {
        return TRUE;
    }
    g_auto(GStrv) names = g_strsplit(sel, ",", -1);
    for (guint i = 0; names[i] != NULL; i++) {
        gboolean known = FALSE;
        for (int k = WEFT_LINK_NVLINK; k <= WEFT_LINK_GENERIC; k++) {
            known = known || strcmp(names[i], weft_topo_link_kind_name((weft_link_kind_t)k)) == 0;
        }
        if (!known) {
            return FALSE;
        }
    }
    return names[0] != NULL;
}

int
weft_cmd_plot(int argc, char **argv)
{
    g_autofree char *output = NULL;
    g_autofree char *measured = NULL;
    gint n_links = 0;
    g_autofree char *sx = NULL, *slines = NULL, *sy = NULL;
    g_auto(GStrv) where = NULL;
    gboolean logx = FALSE, logy = FALSE;
    g_autofree char *title = NULL, *xlabel = NULL, *ylabel = NULL, *legend = NULL;
    g_autofree char *link_kind = NULL;
    GOptionEntry entries[] = {
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
         "the figure: FILE.pdf (vector, the default KIND.pdf), FILE.png or FILE.svg", "FILE"},
        {"measured", 'm', 0, G_OPTION_ARG_FILENAME, &measured,
         "busbw: a measured nccl-tests CSV (size_bytes,time_us,algbw_gbs,busbw_gbs) to draw "
         "beside the prediction",
         "FILE"},
        {"links", 0, 0, G_OPTION_ARG_INT, &n_links,
         "top-links: how many links per tier (default 4), or in all with --kind all or KIND "
         "(default 16); "
         "links-heatmap: the N busiest of the series (default all)",
         "N"},
        {"kind", 0, 0, G_OPTION_ARG_STRING, &link_kind,
         "top-links: tiers (default: the busiest of each tier: link kind and the vertices it joins), all (the "
         "busiest overall), or KIND[,KIND...] among nvlink, pcie, infiniband, ethernet, generic",
         "SEL"},
        {"x", 'x', 0, G_OPTION_ARG_STRING, &sx,
         "sweep: the axis along x (its NAME or its column NAME:GROUP.KEY)", "AXIS"},
        {"lines", 'l', 0, G_OPTION_ARG_STRING, &slines,
         "sweep: one line per value of this axis (default: one line)", "AXIS"},
        {"y", 'y', 0, G_OPTION_ARG_STRING, &sy, "sweep: the metric column along y", "METRIC"},
        {"where", 'w', 0, G_OPTION_ARG_STRING_ARRAY, &where,
         "sweep: keep the rows where another axis has this value (repeatable)", "AXIS=VALUE"},
        {"logx", 0, 0, G_OPTION_ARG_NONE, &logx, "sweep: logarithmic x axis", NULL},
        {"logy", 0, 0, G_OPTION_ARG_NONE, &logy, "sweep: logarithmic y axis", NULL},
        {"title", 0, 0, G_OPTION_ARG_STRING, &title, "sweep: a title over the plot (default none)",
         "TEXT"},
        {"xlabel", 0, 0, G_OPTION_ARG_STRING, &xlabel,
         "sweep: the x axis label (default: the axis name and unit)", "TEXT"},
        {"ylabel", 0, 0, G_OPTION_ARG_STRING, &ylabel,
         "sweep: the y axis label (default: the metric's words and unit)", "TEXT"},
        {"legend", 0, 0, G_OPTION_ARG_STRING, &legend,
         "sweep: where the key goes: below (default), right, top-left, top-right, bottom-left, "
         "bottom-right or none",
         "POS"},
        {NULL},
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("KIND INPUT - render a figure from weft's CSV outputs with gnuplot");
    GString *kinds_help = g_string_new("Kinds (INPUT):\n");
    for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
        g_string_append_printf(
            kinds_help, "  %-14s %s\n  %-14s   INPUT: %s%s%s (%s)\n", kinds[i].kind,
            kinds[i].summary, "", kinds[i].dir_file != NULL ? "DIR, or DIR/" : "the CSV of ",
            kinds[i].dir_file != NULL ? kinds[i].dir_file : kinds[i].file_of, "", kinds[i].hint);
    }
    g_string_append(kinds_help,
                    "\nThe scripts are in plots/ (gnuplot -c plots/KIND.gp INPUT OUT runs them\n"
                    "directly); $WEFT_PLOTS_DIR overrides where weft looks for them. Figures\n"
                    "are sized for a paper: 10 pt fonts in PDF, labelled axes with units,\n"
                    "colour-blind-safe colours (Okabe-Ito, viridis).");
    g_option_context_set_summary(ctx, kinds_help->str);
    g_string_free(kinds_help, TRUE);
    g_option_context_set_description(
        ctx, "Examples:\n"
             "  weft replay scenarios/dp-step-dgx-h100.ini --out results\n"
             "  weft plot breakdown results -o breakdown.pdf\n"
             "  weft plot top-links results --kind infiniband --links 8 -o ib.pdf\n"
             "  weft coll --cluster topologies/dgx-h100.ini --csv ar.csv\n"
             "  weft plot busbw ar.csv --measured ../shared/validation/"
             "nccl_allreduce_dgx_h100_8gpu.csv -o busbw.pdf\n"
             "  weft sweep -o goodput.csv studies/checkpoint-goodput.ini\n"
             "  weft plot sweep goodput.csv --x interval --lines write_bw \\\n"
             "      --y goodput_pct_mean --logx -o goodput.png\n\n"
             "Needs gnuplot (Debian/Ubuntu: apt-get install gnuplot-nox).\n"
             "Exit status: 0 on success, 1 on a missing input, a missing gnuplot or a\n"
             "failed gnuplot run, 2 on a usage error.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    weft_cli_add_log_options(ctx);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        return weft_cli_usage_error("plot", error->message);
    }
    if (argc != 3) {
        g_autofree char *valid = kinds_text();
        g_autofree char *msg = argc < 3 ? g_strdup_printf("expected KIND INPUT; kinds: %s", valid)
                                        : g_strdup_printf("unexpected argument '%s'", argv[3]);
        return weft_cli_usage_error("plot", msg);
    }
    const plot_kind_t *k = NULL;
    for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
        if (strcmp(argv[1], kinds[i].kind) == 0) {
            k = &kinds[i];
        }
    }
    if (k == NULL) {
        g_autofree char *valid = kinds_text();
        g_autofree char *msg = g_strdup_printf("unknown kind '%s'; kinds: %s", argv[1], valid);
        return weft_cli_usage_error("plot", msg);
    }
    if (measured != NULL && strcmp(k->kind, "busbw") != 0) {
        return weft_cli_usage_error("plot", "--measured goes with busbw only");
    }
    if (n_links < 0) {
        return weft_cli_usage_error("plot", "--links must be > 0");
    }
    gboolean is_sweep = strcmp(k->kind, "sweep") == 0;
    if (!is_sweep && (sx != NULL || slines != NULL || sy != NULL || where != NULL || logx ||
                      logy || title != NULL || xlabel != NULL || ylabel != NULL || legend != NULL)) {
        return weft_cli_usage_error("plot", "--x, --lines, --y, --where, --logx, --logy, --title, "
                                            "--xlabel, --ylabel and --legend go with sweep only");
    }
    if (legend != NULL && !legend_valid(legend)) {
        g_autofree char *msg = g_strdup_printf(
            "--legend %s: expected one of below, right, top-left, top-right, bottom-left, "
            "bottom-right, none",
            legend);
        return weft_cli_usage_error("plot", msg);
    }
    gboolean is_top = strcmp(k->kind, "top-links") == 0;
    if (link_kind != NULL && !is_top) {
        return weft_cli_usage_error("plot", "--kind goes with top-links only");
    }
    if (n_links > 0 && !is_top && strcmp(k->kind, "links-heatmap") != 0) {
        return weft_cli_usage_error("plot", "--links goes with top-links and links-heatmap only");
    }
    if (link_kind != NULL && !link_kind_valid(link_kind)) {
        g_autofree char *msg = g_strdup_printf(
            "--kind %s: expected tiers, all, or link kinds among nvlink, pcie, infiniband, "
            "ethernet, generic (comma-separated)",
            link_kind);
        return weft_cli_usage_error("plot", msg);
    }
    if (is_sweep && (sx == NULL || sy == NULL)) {
        return weft_cli_usage_error("plot", "sweep needs --x AXIS and --y METRIC (and usually "
                                            "--lines AXIS)");
    }
    if (output == NULL) {
        output = g_strdup_printf("%s.pdf", k->kind);
    }
    const char *ext = strrchr(output, '.');
    if (ext == NULL ||
        (strcmp(ext, ".pdf") != 0 && strcmp(ext, ".png") != 0 && strcmp(ext, ".svg") != 0)) {
        g_autofree char *msg =
            g_strdup_printf("-o %s: expected a name ending in .pdf, .png or .svg", output);
        return weft_cli_usage_error("plot", msg);
    }

    /* the input: a file, or DIR/<the kind's CSV> */
    g_autofree char *input = NULL;
    if (g_file_test(argv[2], G_FILE_TEST_IS_DIR)) {
        if (k->dir_file == NULL) {
            g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                        "%s: a directory; %s reads the CSV file of %s", argv[2], k->kind, k->hint);
            return weft_cli_error("plot", error);
        }
        input = g_build_filename(argv[2], k->dir_file, NULL);
    } else {
        input = g_strdup(argv[2]);
    }
    if (!g_file_test(input, G_FILE_TEST_IS_REGULAR)) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "%s: no such file (%s reads what `%s` writes)", input, k->kind, k->hint);
        return weft_cli_error("plot", error);
    }
    if (measured != NULL && !g_file_test(measured, G_FILE_TEST_IS_REGULAR)) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "--measured %s: no such file",
                    measured);
        return weft_cli_error("plot", error);
    }
    /* sweep: the CSV becomes gnuplot's data blocks in a temporary file, removed at the end */
    g_autoptr(GPtrArray) sweep_args = g_ptr_array_new_with_free_func(g_free);
    g_autofree char *data = NULL;
    if (is_sweep) {
        int dfd = g_file_open_tmp("weft-plot-sweep-XXXXXX.dat", &data, &error);
        if (dfd < 0) {
            return weft_cli_error("plot", error);
        }
        close(dfd);
        sweep_opts_t so = {sx, slines, sy, where, logx, logy, title, xlabel, ylabel, legend};
        int rc = prepare_sweep(input, &so, data, sweep_args);
        if (rc != WEFT_EXIT_OK) {
            g_unlink(data);
            return rc;
        }
    }
    g_autofree char *gnuplot = g_find_program_in_path("gnuplot");
    if (gnuplot == NULL) {
        g_set_error(&error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT,
                    "gnuplot is not installed (Debian/Ubuntu: apt-get install gnuplot-nox)");
        if (data != NULL) {
            g_unlink(data);
        }
        return weft_cli_error("plot", error);
    }
    g_autofree char *plots = find_plots_dir(k->script);
    if (plots == NULL) {
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "cannot find the script %s: set WEFT_PLOTS_DIR to weft's plots/ directory",
                    k->script);
        if (data != NULL) {
            g_unlink(data);
        }
        return weft_cli_error("plot", error);
    }
    g_autofree char *script = g_build_filename(plots, k->script, NULL);

    /* -o is opened first, so that an unwritable one fails before gnuplot runs, and
     * committed once gnuplot succeeded; gnuplot writes a scratch file with the same
     * extension (it picks nothing from it, but the script does), copied into it */
    g_autoptr(weft_output_t) dest = weft_output_open(output, &error);
    g_autofree char *scratch = dest != NULL ? g_dir_make_tmp("weft-plot-XXXXXX", &error) : NULL;
    if (scratch == NULL) {
        g_prefix_error(&error, "-o ");
        if (data != NULL) {
            g_unlink(data);
        }
        return weft_cli_error("plot", error);
    }
    g_autofree char *tmp_name = g_strconcat("plot", ext, NULL);
    g_autofree char *tmp = g_build_filename(scratch, tmp_name, NULL);

    /* top-links: ARG3 how many (per kind under tiers), ARG4 which kinds; links-heatmap: ARG3 */
    const char *sel = link_kind != NULL ? link_kind : "tiers";
    g_autofree char *n_text =
        g_strdup_printf("%d", n_links > 0 ? n_links : strcmp(sel, "tiers") == 0 ? 4 : 16);
    const char *args[16] = {gnuplot, "-c", script, is_sweep ? data : input, tmp, NULL};
    if (measured != NULL) {
        args[5] = measured;
    } else if (is_top) {
        args[5] = n_text;
        args[6] = sel;
    } else if (n_links > 0) {
        args[5] = n_text;
    }
    for (guint i = 0; i < sweep_args->len; i++) {
        args[5 + i] = g_ptr_array_index(sweep_args, i);
    }
    g_autofree char *err_text = NULL;
    gint status = 0;
    gboolean spawned = g_spawn_sync(NULL, (char **)args, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                    NULL, NULL, &err_text, &status, &error);
    if (data != NULL) {
        g_unlink(data);
    }
    g_autoptr(GError) exit_error = NULL;
    g_autofree char *figure = NULL;
    gsize figure_len = 0;
    if (spawned && !g_spawn_check_wait_status(status, &exit_error)) {
        g_set_error(&error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, "gnuplot %s %s failed (%s):\n%s",
                    script, input, exit_error->message, err_text != NULL ? err_text : "");
    } else if (spawned &&
               (!g_file_get_contents(tmp, &figure, &figure_len, NULL) || figure_len == 0)) {
        g_set_error(&error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, "gnuplot %s %s wrote nothing:\n%s",
                    script, input, err_text != NULL ? err_text : "");
    }
    g_unlink(tmp);
    g_rmdir(scratch);
    if (error != NULL) {
        return weft_cli_error("plot", error); /* -o is aborted: it keeps what it held */
    }
    if (fwrite(figure, 1, figure_len, weft_output_stream(dest)) != figure_len) {
        int e = errno;
        g_set_error(&error, G_FILE_ERROR, g_file_error_from_errno(e), "-o %s: cannot write: %s",
                    output, g_strerror(e));
        return weft_cli_error("plot", error);
    }
    if (!weft_output_commit(g_steal_pointer(&dest), &error)) {
        g_prefix_error(&error, "-o ");
        return weft_cli_error("plot", error);
    }
    /* gnuplot's warnings (a column out of range, ...) are worth seeing */
    if (err_text != NULL && err_text[0] != '\0') {
        fputs(err_text, stderr);
    }
    return WEFT_EXIT_OK;
}
