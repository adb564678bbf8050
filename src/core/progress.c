/* SPDX-License-Identifier: MIT */
/*
 * Progress lines on stderr for long commands: a line rewritten in place on a
 * terminal, whole lines every few seconds elsewhere. See progress.h.
 */
#define G_LOG_DOMAIN "weft-core"

#include "core/progress.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "core/units.h"

G_DEFINE_QUARK(weft-progress-error-quark, weft_progress_error)

struct weft_progress {
    GMutex lock;
    FILE *out;
    char *label;
    gboolean terminal;
    gint64 period_us;
    gint64 delay_us;
    gint64 t0_us;   /* wall clock at creation */
    gint64 next_us; /* wall clock from which the next line may print */
    gboolean shown; /* a terminal line is showing */
    guint lines;
};

/* On a terminal: the first line after a second (AUTO), then 4 lines a second. */
#define TERMINAL_DELAY_US G_USEC_PER_SEC
#define TERMINAL_PERIOD_US (G_USEC_PER_SEC / 4)
/* Elsewhere: a line every 5 s (WEFT_PROGRESS_INTERVAL). */
#define LOG_PERIOD_US (5 * G_USEC_PER_SEC)

static const char *const mode_names[] = {"auto", "always", "never"};

gboolean
weft_progress_mode_from_name(const char *name, weft_progress_mode_t *mode, GError **error)
{
    for (guint i = 0; i < G_N_ELEMENTS(mode_names); i++) {
        if (g_strcmp0(name, mode_names[i]) == 0) {
            *mode = (weft_progress_mode_t)i;
            return TRUE;
        }
    }
    g_set_error(error, WEFT_PROGRESS_ERROR, WEFT_PROGRESS_ERROR_VALUE,
                "--progress=%s: expected auto, always or never", name != NULL ? name : "");
    return FALSE;
}

const char *
weft_progress_mode_name(weft_progress_mode_t mode)
{
    g_return_val_if_fail((guint)mode < G_N_ELEMENTS(mode_names), "?");
    return mode_names[mode];
}

weft_progress_t *
weft_progress_new(FILE *out, const char *label, gboolean terminal, gint64 period_us,
                  gint64 delay_us)
{
    g_return_val_if_fail(out != NULL && label != NULL && period_us > 0 && delay_us >= 0, NULL);
    weft_progress_t *p = g_new0(weft_progress_t, 1);
    g_mutex_init(&p->lock);
    p->out = out;
    p->label = g_strdup(label);
    p->terminal = terminal;
    p->period_us = period_us;
    p->delay_us = delay_us;
    p->t0_us = g_get_monotonic_time();
    p->next_us = p->t0_us + delay_us;
    return p;
}

weft_progress_t *
weft_progress_new_stderr(const char *label, weft_progress_mode_t mode, gboolean quiet,
                         GError **error)
{
    gint64 interval_us = LOG_PERIOD_US;
    const char *env = g_getenv("WEFT_PROGRESS_INTERVAL");
    if (env != NULL && *env != '\0') {
        weft_time_t ps = 0;
        g_autoptr(GError) err = NULL;
        if (!weft_units_parse_time(env, &ps, &err) || ps < WEFT_PS_PER_US) {
            g_set_error(error, WEFT_PROGRESS_ERROR, WEFT_PROGRESS_ERROR_VALUE,
                        "WEFT_PROGRESS_INTERVAL=%s: expected a time of at least 1us with a unit, "
                        "e.g. 5s or 100ms%s%s",
                        env, err != NULL ? ": " : "", err != NULL ? err->message : "");
            return NULL;
        }
        interval_us = ps / WEFT_PS_PER_US;
    }
    if (mode == WEFT_PROGRESS_NEVER || (mode == WEFT_PROGRESS_AUTO && quiet)) {
        return NULL;
    }
    if (isatty(STDERR_FILENO)) {
        return weft_progress_new(
            stderr, label, TRUE, MIN(TERMINAL_PERIOD_US, interval_us),
            mode == WEFT_PROGRESS_ALWAYS ? 0 : MIN(TERMINAL_DELAY_US, interval_us));
    }
    return weft_progress_new(stderr, label, FALSE, interval_us, interval_us);
}

gboolean
weft_progress_due(weft_progress_t *p)
{
    /* read without the lock (relaxed): a stale value only makes weft_progress_report() check
     * again under it */
    return p != NULL && g_get_monotonic_time() >= __atomic_load_n(&p->next_us, __ATOMIC_RELAXED);
}

/* "40 s", "12.5 min", "3.2 h" */
static void
format_duration(char *buf, gsize size, double s)
{
    if (s < 100.0) {
        g_snprintf(buf, size, "%.0f s", s);
    } else if (s < 6000.0) {
        g_snprintf(buf, size, "%.1f min", s / 60.0);
    } else {
        g_snprintf(buf, size, "%.1f h", s / 3600.0);
    }
}

void
weft_progress_report(weft_progress_t *p, double fraction, const char *fmt, ...)
{
    if (p == NULL) {
        return;
    }
    g_mutex_lock(&p->lock);
    gint64 t = g_get_monotonic_time();
    if (t < p->next_us) {
        g_mutex_unlock(&p->lock);
        return;
    }
    __atomic_store_n(&p->next_us, t + p->period_us, __ATOMIC_RELAXED);
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    double elapsed_s = (double)(t - p->t0_us) / 1e6;
    char elapsed[32];
    format_duration(elapsed, sizeof elapsed, elapsed_s);
    GString *line = g_string_new(p->terminal ? "\r" : NULL);
    g_string_append_printf(line, "%s: %s", p->label, what);
    if (fraction >= 0.0) {
        fraction = MIN(fraction, 1.0);
        if (fraction < 0.99 || fraction >= 1.0) {
            g_string_append_printf(line, ", %.0f %%", 100.0 * fraction);
        } else {
            /* work is left: never "100 %" before the end (a replay's last nodes can be its
             * longest, the data-parallel collectives of a step under flow) */
            g_string_append_printf(line, ", %.1f %%", MIN(100.0 * fraction, 99.9));
        }
        if (fraction > 0.0 && fraction < 0.99) {
            char eta[32];
            format_duration(eta, sizeof eta, elapsed_s * (1.0 - fraction) / fraction);
            g_string_append_printf(line, ", ETA %s", eta);
        } else if (fraction > 0.0 && fraction < 1.0) {
            /* the fraction counts work items, not their time: past 99 % an estimate from it
             * would read "0 s" for however long the last items take */
            g_string_append(line, ", ETA unknown (the last items)");
        }
    }
    g_string_append_printf(line, ", elapsed %s%s", elapsed, p->terminal ? "\033[K" : "\n");
    fputs(line->str, p->out);
    fflush(p->out);
    g_string_free(line, TRUE);
    p->shown = p->terminal;
    p->lines++;
    g_mutex_unlock(&p->lock);
}

void
weft_progress_finish(weft_progress_t *p)
{
    if (p == NULL) {
        return;
    }
    g_mutex_lock(&p->lock);
    if (p->shown) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
        p->shown = FALSE;
    }
    g_mutex_unlock(&p->lock);
}

guint
weft_progress_lines(const weft_progress_t *p)
{
    return p != NULL ? p->lines : 0;
}

void
weft_progress_free(weft_progress_t *p)
{
    if (p == NULL) {
        return;
    }
    weft_progress_finish(p);
    g_mutex_clear(&p->lock);
    g_free(p->label);
    g_free(p);
}

char *
weft_progress_format_count(guint64 n)
{
    char digits[32];
    g_snprintf(digits, sizeof digits, "%" G_GUINT64_FORMAT, n);
    gsize len = strlen(digits);
    GString *s = g_string_sized_new(len + len / 3);
    for (gsize i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0) {
            g_string_append_c(s, ',');
        }
        g_string_append_c(s, digits[i]);
    }
    return g_string_free(s, FALSE);
}
