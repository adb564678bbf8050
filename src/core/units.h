/* SPDX-License-Identifier: MIT */
/*
 * Quantities written with units.
 *
 * Configuration text always carries its unit, so that "50" can never be read
 * as 50 GB/s by one user and 50 Gb/s by another. Accepted forms: a decimal
 * number (optionally with an exponent), optional spaces, then the unit.
 *
 *   sizes:      B, KB, MB, GB, TB, PB (powers of 1000), KiB, MiB, GiB, TiB, PiB
 *               (powers of 1024)
 *   rates:      B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s (bytes per second)
 *               and bps, b/s, Kb/s, Mb/s, Gb/s, Tb/s (bits per second, / 8);
 *               "Gbps" style is accepted too
 *   times:      ps, ns, us (or µs), ms, s
 *   counts:     a bare number such as 1e9 or 2048
 *
 * GB = 1e9 bytes and GiB = 2^30 bytes (IEC 80000-13); Gb/s = 1e9 bits/s as link
 * rates are quoted by IEEE 802.3 and InfiniBand. A missing or unknown unit, a
 * negative value, NaN or infinity is an error naming the text.
 */
#ifndef WEFT_CORE_UNITS_H
#define WEFT_CORE_UNITS_H

#include <glib.h>

#include "core/time.h"

G_BEGIN_DECLS

#define WEFT_UNITS_ERROR (weft_units_error_quark())
GQuark weft_units_error_quark(void);

typedef enum {
    WEFT_UNITS_ERROR_NUMBER, /* no number, or trailing garbage */
    WEFT_UNITS_ERROR_UNIT,   /* unit missing, unknown, or of the wrong dimension */
    WEFT_UNITS_ERROR_RANGE,  /* negative, not finite, or does not fit */
} weft_units_error_t;

/**
 * weft_units_parse_bytes:
 * @text: e.g. "16MiB", "1GB", "4096 B".
 * @bytes: (out): the size in bytes, rounded to the nearest byte.
 * @error: WEFT_UNITS_ERROR on failure; the message quotes @text.
 * Returns: TRUE on success.
 */
gboolean weft_units_parse_bytes(const char *text, guint64 *bytes, GError **error);

/**
 * WEFT_UNITS_MAX_RATE_BPS:
 *
 * The largest rate a text may give: 1 PB/s, over 500 times an NVLink 5 GPU's
 * 1.8 TB/s (NVIDIA Blackwell datasheet) and far beyond any storage system; a
 * larger figure is a typo (1e30 GB/s used to be taken as given).
 */
#define WEFT_UNITS_MAX_RATE_BPS 1e15

/**
 * weft_units_parse_rate:
 * @text: e.g. "400Gb/s", "50GB/s", "900 GB/s".
 * @rate_Bps: (out): bytes per second.
 * @error: WEFT_UNITS_ERROR on failure; _RANGE above WEFT_UNITS_MAX_RATE_BPS.
 * Returns: TRUE on success.
 */
gboolean weft_units_parse_rate(const char *text, double *rate_Bps, GError **error);

/**
 * weft_units_parse_time:
 * @text: e.g. "500ns", "2.5us", "1s".
 * @ps: (out): picoseconds, rounded to the nearest picosecond.
 * @error: WEFT_UNITS_ERROR on failure.
 * Returns: TRUE on success.
 */
gboolean weft_units_parse_time(const char *text, weft_time_t *ps, GError **error);

/**
 * weft_units_parse_count:
 * @text: a bare number, e.g. "1e9", "2048"; a unit is an error.
 * @value: (out): the number.
 * @error: WEFT_UNITS_ERROR on failure.
 * Returns: TRUE on success.
 */
gboolean weft_units_parse_count(const char *text, double *value, GError **error);

/** weft_units_format_bytes: "1 MiB"-style text for @bytes (powers of 1024). Free with g_free(). */
char *weft_units_format_bytes(guint64 bytes);

G_END_DECLS

#endif /* WEFT_CORE_UNITS_H */
