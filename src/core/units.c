/* SPDX-License-Identifier: MIT */
/*
 * Parsing quantities written with units ("400Gb/s", "2.5us", "16MiB"). The
 * number is read by g_ascii_strtod (locale-independent); the unit is looked up
 * in one table per dimension. See units.h for the accepted units.
 */
#define G_LOG_DOMAIN "weft-core"

#include "core/units.h"

#include <math.h>
#include <string.h>

/* clang-format off */
G_DEFINE_QUARK(weft-units-error-quark, weft_units_error)
/* clang-format on */

typedef struct {
    const char *name;
    double factor; /* to bytes, bytes/s or picoseconds */
} unit_t;

/* Sizes: SI prefixes are powers of 1000, IEC prefixes powers of 1024 (IEC 80000-13). */
static const unit_t size_units[] = {
    {"B", 1.0},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"PB", 1e15},
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
    {"PiB", 1125899906842624.0},
    {NULL, 0.0},
};

/* Rates: bytes per second, or bits per second divided by 8. */
static const unit_t rate_units[] = {
    {"B/s", 1.0},
    {"KB/s", 1e3},
    {"MB/s", 1e6},
    {"GB/s", 1e9},
    {"TB/s", 1e12},
    {"KiB/s", 1024.0},
    {"MiB/s", 1048576.0},
    {"GiB/s", 1073741824.0},
    {"TiB/s", 1099511627776.0},
    {"bps", 0.125},
    {"b/s", 0.125},
    {"Kb/s", 125.0},
    {"Kbps", 125.0},
    {"Mb/s", 125e3},
    {"Mbps", 125e3},
    {"Gb/s", 125e6},
    {"Gbps", 125e6},
    {"Tb/s", 125e9},
    {"Tbps", 125e9},
    {NULL, 0.0},
};

static const unit_t time_units[] = {
    {"ps", 1.0}, {"ns", 1e3}, {"us", 1e6}, {"\xc2\xb5s", 1e6},
    {"ms", 1e9}, {"s", 1e12}, {NULL, 0.0},
};

static const char *
units_list(const unit_t *table, GString *out)
{
    for (const unit_t *u = table; u->name != NULL; u++) {
        g_string_append_printf(out, "%s%s", u == table ? "" : ", ", u->name);
    }
    return out->str;
}

/*
 * Splits @text into a non-negative finite number and a unit (spaces allowed
 * around both). @what names the dimension for messages.
 */
static gboolean
split_quantity(const char *text, double *value, const char **unit, const char *what, GError **error)
{
    if (text == NULL) {
        g_set_error(error, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_NUMBER, "no %s given", what);
        return FALSE;
    }
    const char *p = text;
    while (g_ascii_isspace(*p)) {
        p++;
    }
    char *end = NULL;
    double v = g_ascii_strtod(p, &end);
    if (end == p) {
        g_set_error(error, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_NUMBER,
                    "'%s' is not a %s: it does not start with a number", text, what);
        return FALSE;
    }
    if (!isfinite(v) || v < 0) {
        g_set_error(error, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_RANGE,
                    "'%s' is not a valid %s: it must be finite and not negative", text, what);
        return FALSE;
    }
    while (g_ascii_isspace(*end)) {
        end++;
    }
    *value = v;
    *unit = end;
    return TRUE;
}

/* Looks up @unit (trailing spaces ignored) in @table. */
static const unit_t *
find_unit(const unit_t *table, const char *unit)
{
    gsize len = strlen(unit);
    while (len > 0 && g_ascii_isspace(unit[len - 1])) {
        len--;
    }
    for (const unit_t *u = table; u->name != NULL; u++) {
        if (strlen(u->name) == len && strncmp(u->name, unit, len) == 0) {
            return u;
        }
    }
    return NULL;
}

static gboolean
parse_with(const char *text, const unit_t *table, const char *what, double *out, GError **error)
{
    double v;
    const char *unit;
    if (!split_quantity(text, &v, &unit, what, error)) {
        return FALSE;
    }
    const unit_t *u = find_unit(table, unit);
    if (u == NULL) {
        g_autoptr(GString) list = g_string_new(NULL);
        if (*unit == '\0') {
            g_set_error(error, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_UNIT,
                        "'%s' has no unit: write the %s with one of %s", text, what,
                        units_list(table, list));
        } else {
            g_set_error(error, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_UNIT,
                        "'%s' has an unknown unit '%s' for a %s: use one of %s", text, unit, what,
                        units_list(table, list));
        }
        return FALSE;
    }
    *out = v * u->factor;
    return TRUE;
}

gboolean
weft_units_parse_bytes(const char *text, guint64 *bytes, GError **error)
{
    double v;
    if (!parse_with(text, size_units, "size", &v, error)) {
        return FALSE;
    }
    if (v >= 18446744073709551615.0) {
        g_set_error(error, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_RANGE, "'%s' is too large a size",
                    text);
        return FALSE;
    }
    *bytes = (guint64)llround(v);
    return TRUE;
}

gboolean
weft_units_parse_rate(const char *text, double *rate_Bps, GError **error)
{
    double v;
    if (!parse_with(text, rate_units, "rate", &v, error)) {
        return FALSE;
    }
    if (v > WEFT_UNITS_MAX_RATE_BPS) {
        g_set_error(error, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_RANGE,
                    "'%s' is beyond any physical link or store: at most 1000TB/s (1 PB/s)", text);
        return FALSE;
    }
    *rate_Bps = v;
    return TRUE;
}

gboolean
weft_units_parse_time(const char *text, weft_time_t *ps, GError **error)
{
    double v;
    if (!parse_with(text, time_units, "time", &v, error)) {
        return FALSE;
    }
    if (!(v < 9.2e18)) {
        g_set_error(error, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_RANGE,
                    "'%s' is longer than the %.0f days weft's picosecond clock can hold", text,
                    9.2e18 / 1e12 / 86400.0);
        return FALSE;
    }
    *ps = (weft_time_t)llround(v);
    return TRUE;
}

gboolean
weft_units_parse_count(const char *text, double *value, GError **error)
{
    double v;
    const char *unit;
    if (!split_quantity(text, &v, &unit, "number", error)) {
        return FALSE;
    }
    if (*unit != '\0') {
        g_set_error(error, WEFT_UNITS_ERROR, WEFT_UNITS_ERROR_NUMBER,
                    "'%s' is not a plain number: unexpected '%s'", text, unit);
        return FALSE;
    }
    *value = v;
    return TRUE;
}

char *
weft_units_format_bytes(guint64 bytes)
{
    static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    guint i = 0;
    double v = (double)bytes;
    while (v >= 1024.0 && i + 1 < G_N_ELEMENTS(names) && fmod(v, 1024.0) == 0.0) {
        v /= 1024.0;
        i++;
    }
    return g_strdup_printf("%.0f %s", v, names[i]);
}
