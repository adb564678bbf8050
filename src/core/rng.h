/* SPDX-License-Identifier: MIT */
/*
 * Reproducible random streams.
 *
 * A stream is GLib's GRand (a Mersenne Twister) seeded from (seed, stream id)
 * through SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
 * number generators", OOPSLA 2014), so that streams with neighbouring ids are
 * unrelated and a run is repeatable from (seed, stream) alone, as ns-3 makes
 * runs repeatable from (seed, run number).
 */
#ifndef WEFT_CORE_RNG_H
#define WEFT_CORE_RNG_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct weft_rng weft_rng_t;

/** weft_rng_new: the stream @stream of @seed. Free with weft_rng_free(). */
weft_rng_t *weft_rng_new(guint64 seed, guint32 stream);

/** weft_rng_free: NULL is a no-op. */
void weft_rng_free(weft_rng_t *rng);

/** weft_rng_uniform: a double uniform in [0, 1). */
double weft_rng_uniform(weft_rng_t *rng);

/** weft_rng_int_range: an integer uniform in [@begin, @end); @end > @begin. */
gint32 weft_rng_int_range(weft_rng_t *rng, gint32 begin, gint32 end);

/** weft_rng_u64: 64 uniformly random bits. */
guint64 weft_rng_u64(weft_rng_t *rng);

/** weft_rng_splitmix64: one SplitMix64 step of @x: a well-mixed 64-bit hash. */
guint64 weft_rng_splitmix64(guint64 x);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_rng_t, weft_rng_free)

G_END_DECLS

#endif /* WEFT_CORE_RNG_H */
