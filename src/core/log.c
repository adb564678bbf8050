/* SPDX-License-Identifier: MIT */
/*
 * The log writer: debug and info lines of the weft-* domains on stderr,
 * prefixed with the domain and the simulated time of the thread's running
 * simulation; every other message to GLib's default writer. See log.h.
 */
#define G_LOG_DOMAIN "weft-core"

#include "core/log.h"

#include <stdio.h>
#include <string.h>

#include "core/sim.h"

static gint verbose; /* atomic: weft_log_set_verbose() */

void
weft_log_init(void)
{
    static gsize once = 0;
    if (g_once_init_enter(&once)) {
        /* GLib's default writer puts debug and info on stdout; weft's stdout is results */
        g_log_writer_default_set_use_stderr(TRUE);
        g_log_set_writer_func(weft_log_writer, NULL, NULL);
        g_once_init_leave(&once, 1);
    }
}

void
weft_log_set_verbose(gboolean on)
{
    g_atomic_int_set(&verbose, on ? 1 : 0);
}

gboolean
weft_log_get_verbose(void)
{
    return g_atomic_int_get(&verbose) != 0;
}

/* "weft" or "weft-...": the domains --verbose turns on. */
static gboolean
is_weft_domain(const char *domain)
{
    return domain != NULL && strncmp(domain, "weft", 4) == 0 &&
           (domain[4] == '\0' || domain[4] == '-');
}

/* Whether @domain is one of the words of @list (separated by spaces or commas), or @list
 * has the word "all". Whole words: "weft-net" does not turn on "weft-network". */
static gboolean
listed(const char *list, const char *domain)
{
    gsize dlen = domain != NULL ? strlen(domain) : 0;
    const char *p = list;
    while (*p != '\0') {
        while (*p == ' ' || *p == ',') {
            p++;
        }
        gsize n = strcspn(p, " ,");
        if (n == 0) {
            break;
        }
        if ((n == 3 && strncmp(p, "all", 3) == 0) ||
            (domain != NULL && n == dlen && strncmp(p, domain, n) == 0)) {
            return TRUE;
        }
        p += n;
    }
    return FALSE;
}

gboolean
weft_log_enabled(const char *domain)
{
    if (is_weft_domain(domain) && (weft_log_get_verbose() || g_log_get_debug_enabled())) {
        return TRUE;
    }
    const char *list = g_getenv("G_MESSAGES_DEBUG");
    return list != NULL && listed(list, domain);
}

/* " t=OUTER+INNER": the clocks from the outermost running simulation in, each from its
 * integer picoseconds as whole milliseconds then nanoseconds. */
static void
append_time(GString *out, const weft_sim_t *sim)
{
    const weft_sim_t *outer = weft_sim_outer(sim);
    if (outer != NULL) {
        append_time(out, outer);
        g_string_append_c(out, '+');
    } else {
        g_string_append(out, " t=");
    }
    weft_time_t t = weft_sim_now(sim);
    g_string_append_printf(out, "%" G_GINT64_FORMAT ".%06" G_GINT64_FORMAT "ms", t / WEFT_PS_PER_MS,
                           (t % WEFT_PS_PER_MS) / WEFT_PS_PER_NS);
}

void
weft_log_format_prefix(GString *out, const char *domain)
{
    g_return_if_fail(out != NULL);
    g_string_append_c(out, '[');
    g_string_append(out, domain != NULL ? domain : "weft");
    const weft_sim_t *sim = weft_sim_current();
    if (sim != NULL) {
        append_time(out, sim);
    }
    g_string_append(out, "] ");
}

GLogWriterOutput
weft_log_writer(GLogLevelFlags log_level, const GLogField *fields, gsize n_fields,
                gpointer user_data)
{
    if (!(log_level & (G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO)) || (log_level & G_LOG_FLAG_FATAL)) {
        return g_log_writer_default(log_level, fields, n_fields, user_data);
    }
    const char *domain = NULL;
    const char *message = NULL;
    gssize message_len = -1;
    for (gsize i = 0; i < n_fields; i++) {
        if (strcmp(fields[i].key, "GLIB_DOMAIN") == 0) {
            domain = fields[i].value;
        } else if (strcmp(fields[i].key, "MESSAGE") == 0) {
            message = fields[i].value;
            message_len = fields[i].length;
        }
    }
    if (!is_weft_domain(domain)) {
        /* another library's debug output: GLib's own rules and format (on stderr) */
        return g_log_writer_default(log_level, fields, n_fields, user_data);
    }
    if (!weft_log_enabled(domain)) {
        return G_LOG_WRITER_HANDLED;
    }
    if (message == NULL) {
        message = "";
        message_len = 0;
    }
    gsize len = message_len < 0 ? strlen(message) : (gsize)message_len;
    if (len > 0 && message[len - 1] == '\n') {
        len--;
    }
    GString *prefix = g_string_sized_new(48);
    weft_log_format_prefix(prefix, domain);
    /* every line of a message gets the prefix, so that grep finds a dump's lines too */
    GString *text = g_string_sized_new(len + prefix->len + 1);
    const char *p = message, *end = message + len;
    for (;;) {
        const char *nl = memchr(p, '\n', (gsize)(end - p));
        const char *stop = nl != NULL ? nl : end;
        g_string_append_len(text, prefix->str, (gssize)prefix->len);
        g_string_append_len(text, p, stop - p);
        g_string_append_c(text, '\n');
        if (nl == NULL) {
            break;
        }
        p = nl + 1;
    }
    /* one write per message: concurrent threads' lines never interleave */
    fwrite(text->str, 1, text->len, stderr);
    fflush(stderr);
    g_string_free(text, TRUE);
    g_string_free(prefix, TRUE);
    return G_LOG_WRITER_HANDLED;
}
