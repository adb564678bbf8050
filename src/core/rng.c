/* SPDX-License-Identifier: MIT */
/*
 * Reproducible random streams: GLib's GRand seeded through SplitMix64 from
 * (seed, stream). See rng.h.
 */
#define G_LOG_DOMAIN "weft-core"

#include "core/rng.h"

struct weft_rng {
    GRand *rand;
};

guint64
weft_rng_splitmix64(guint64 x)
{
    /* Constants of SplitMix64 (Steele, Lea and Flood, OOPSLA 2014). */
    guint64 z = x + G_GUINT64_CONSTANT(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

weft_rng_t *
weft_rng_new(guint64 seed, guint32 stream)
{
    guint64 a = weft_rng_splitmix64(seed);
    guint64 b = weft_rng_splitmix64(a ^ weft_rng_splitmix64((guint64)stream + 1));
    guint32 words[4] = {(guint32)a, (guint32)(a >> 32), (guint32)b, (guint32)(b >> 32)};
    weft_rng_t *rng = g_new0(weft_rng_t, 1);
    rng->rand = g_rand_new_with_seed_array(words, G_N_ELEMENTS(words));
    return rng;
}

void
weft_rng_free(weft_rng_t *rng)
{
    if (rng == NULL) {
        return;
    }
    g_rand_free(rng->rand);
    g_free(rng);
}

double
weft_rng_uniform(weft_rng_t *rng)
{
    return g_rand_double(rng->rand);
}

gint32
weft_rng_int_range(weft_rng_t *rng, gint32 begin, gint32 end)
{
    g_return_val_if_fail(end > begin, begin);
    return g_rand_int_range(rng->rand, begin, end);
}

guint64
weft_rng_u64(weft_rng_t *rng)
{
    guint64 hi = g_rand_int(rng->rand);
    return (hi << 32) | g_rand_int(rng->rand);
}
