/* SPDX-License-Identifier: MIT */
/*
 * Simulated time.
 *
 * weft measures simulated time in integer picoseconds (weft_time_t, int64).
 * Integer time makes every run exactly repeatable: no two events compare
 * differently on another machine or after a refactoring that reorders a sum.
 * One picosecond resolves a single byte on a 1 TB/s link (1 ps per byte), and
 * int64 picoseconds still cover 2^63 ps ~ 106.75 days of simulated time, more
 * than any one step or any step-level replay needs. Whole training runs (weeks)
 * are accounted by the job module in seconds (double), not in weft_time_t.
 */
#ifndef WEFT_CORE_TIME_H
#define WEFT_CORE_TIME_H

#include <glib.h>
#include <math.h>
#include <stdint.h>

G_BEGIN_DECLS

/** Simulated time or duration, in picoseconds. */
typedef int64_t weft_time_t;

#define WEFT_PS_PER_NS ((weft_time_t)1000)
#define WEFT_PS_PER_US ((weft_time_t)1000000)
#define WEFT_PS_PER_MS ((weft_time_t)1000000000)
#define WEFT_PS_PER_S ((weft_time_t)1000000000000)
/** Largest representable time; used as "never". */
#define WEFT_TIME_MAX INT64_MAX

/**
 * weft_time_from_us:
 * @us: a duration in microseconds (may be fractional; must be >= 0 and finite).
 *
 * Returns: @us in picoseconds, rounded to the nearest picosecond, or
 * WEFT_TIME_MAX when it would not fit.
 */
static inline weft_time_t
weft_time_from_us(double us)
{
    double ps = us * 1e6;
    if (!(ps < 9.2e18)) {
        return WEFT_TIME_MAX;
    }
    return (weft_time_t)llround(ps);
}

/**
 * weft_time_from_ps:
 * @ps: a duration in picoseconds as a double (a scaled or derived duration).
 *
 * Returns: @ps rounded to the nearest picosecond; 0 when @ps is not > 0 (NaN
 * included); WEFT_TIME_MAX when it would not fit (>= 9.2e18, about 106 days),
 * which the replay reports as a clock overflow instead of wrapping around.
 */
static inline weft_time_t
weft_time_from_ps(double ps)
{
    if (!(ps > 0.0)) {
        return 0;
    }
    if (!(ps < 9.2e18)) {
        return WEFT_TIME_MAX;
    }
    return (weft_time_t)llround(ps);
}

/**
 * weft_time_add:
 * @a: a time or duration (>= 0).
 * @b: a duration (>= 0).
 *
 * Returns: @a + @b, or WEFT_TIME_MAX when the sum would not fit.
 */
static inline weft_time_t
weft_time_add(weft_time_t a, weft_time_t b)
{
    return b > WEFT_TIME_MAX - a ? WEFT_TIME_MAX : a + b;
}

/** weft_time_to_us: @t picoseconds as (fractional) microseconds. */
static inline double
weft_time_to_us(weft_time_t t)
{
    return (double)t / 1e6;
}

/** weft_time_to_s: @t picoseconds as (fractional) seconds. */
static inline double
weft_time_to_s(weft_time_t t)
{
    return (double)t / 1e12;
}

/**
 * weft_time_for_bytes:
 * @bytes: how many bytes cross the link.
 * @rate_Bps: the link rate in bytes per second (> 0).
 *
 * The serialization time of @bytes at @rate_Bps, rounded to the nearest
 * picosecond: round(bytes * 1e12 / rate_Bps).
 *
 * Returns: the duration in picoseconds; WEFT_TIME_MAX if @rate_Bps <= 0 or the
 * result does not fit.
 */
static inline weft_time_t
weft_time_for_bytes(uint64_t bytes, double rate_Bps)
{
    if (!(rate_Bps > 0.0)) {
        return WEFT_TIME_MAX;
    }
    double ps = (double)bytes * 1e12 / rate_Bps;
    if (!(ps < 9.2e18)) {
        return WEFT_TIME_MAX;
    }
    return (weft_time_t)llround(ps);
}

G_END_DECLS

#endif /* WEFT_CORE_TIME_H */
