/* SPDX-License-Identifier: MIT */
/*
 * Writing output files by one policy (see output.h): a temporary file renamed
 * over a regular file, symbolic links written through, devices and FIFOs
 * written directly, "-" for standard output.
 */
#define G_LOG_DOMAIN "weft-core"

#include "core/output.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Links followed before giving up with ELOOP: Linux's MAXSYMLINKS. */
#define MAX_LINKS 40

struct weft_output {
    char *path;       /* as the caller gave it, for messages */
    char *target;     /* the name written: @path, or where its symbolic links end */
    char *tmp;        /* the temporary file renamed over @target; NULL when written directly */
    FILE *f;          /* NULL once closed */
    gboolean replace; /* @target held a non-empty file: fsync before the rename */
};

/* Sets a G_FILE_ERROR for @errsv naming @path, and @target when a symbolic link led there. */
static void
set_error(GError **error, const char *path, const char *target, int errsv)
{
    if (strcmp(path, "-") == 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
                    "standard output: cannot write: %s", g_strerror(errsv));
    } else if (target != NULL && strcmp(target, path) != 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
                    "%s (a symbolic link to %s): cannot write: %s", path, target,
                    g_strerror(errsv));
    } else {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv), "%s: cannot write: %s",
                    path, g_strerror(errsv));
    }
}

static void
output_free(weft_output_t *out)
{
    g_free(out->path);
    g_free(out->target);
    g_free(out->tmp);
    g_free(out);
}

/*
 * The name at the end of @path's symbolic links (@path itself when it is not
 * one): an existing file, or the name a dangling link points to. A relative
 * link is read from the directory of the link.
 */
static char *
follow_links(const char *path, GError **error)
{
    g_autofree char *cur = g_strdup(path);
    for (guint hops = 0;; hops++) {
        GStatBuf st;
        if (g_lstat(cur, &st) != 0) {
            int e = errno;
            if (e == ENOENT) {
                return g_steal_pointer(&cur); /* a new name, or where a dangling link points */
            }
            set_error(error, path, cur, e);
            return NULL;
        }
        if (!S_ISLNK(st.st_mode)) {
            return g_steal_pointer(&cur);
        }
        if (hops == MAX_LINKS) {
            set_error(error, path, NULL, ELOOP);
            return NULL;
        }
        g_autoptr(GError) lerr = NULL;
        g_autofree char *link = g_file_read_link(cur, &lerr);
        if (link == NULL) {
            g_set_error(error, G_FILE_ERROR, lerr->code, "%s: cannot write: %s", path,
                        lerr->message);
            return NULL;
        }
        g_autofree char *dir = g_path_get_dirname(cur);
        g_free(cur);
        cur = g_path_is_absolute(link) ? g_steal_pointer(&link) : g_build_filename(dir, link, NULL);
    }
}

/* Opens @out->target directly (a device, a FIFO): no temporary file. */
static gboolean
open_direct(weft_output_t *out, GError **error)
{
    int fd = g_open(out->target, O_WRONLY | O_CLOEXEC | O_NOCTTY, 0);
    if (fd < 0) {
        int e = errno;
        set_error(error, out->path, NULL, e);
        return FALSE;
    }
    out->f = fdopen(fd, "w");
    if (out->f == NULL) {
        int e = errno;
        close(fd);
        set_error(error, out->path, NULL, e);
        return FALSE;
    }
    return TRUE;
}

/* Creates the temporary file beside @out->target that will be renamed over it. */
static gboolean
open_tmp(weft_output_t *out, GError **error)
{
    g_autofree char *dir = g_path_get_dirname(out->target);
    g_autofree char *base = g_path_get_basename(out->target);
    g_autofree char *name = g_strdup_printf(".%s.XXXXXX", base);
    out->tmp = g_build_filename(dir, name, NULL);
    int fd = g_mkstemp_full(out->tmp, O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        set_error(error, out->path, out->target, e);
        g_clear_pointer(&out->tmp, g_free);
        return FALSE;
    }
    out->f = fdopen(fd, "w");
    if (out->f == NULL) {
        int e = errno;
        close(fd);
        g_unlink(out->tmp);
        g_clear_pointer(&out->tmp, g_free);
        set_error(error, out->path, out->target, e);
        return FALSE;
    }
    return TRUE;
}

/* How a path is written. */
typedef enum {
    WRITE_STDOUT,  /* "-" */
    WRITE_DIRECT,  /* an existing device or FIFO, possibly through links */
    WRITE_REPLACE, /* a regular file or a new name: a temporary file renamed over it */
} write_kind_t;

/* Decides how @path is written; *@nonempty tells that a non-empty regular file is there. */
static gboolean
classify(const char *path, write_kind_t *kind, gboolean *nonempty, GError **error)
{
    *nonempty = FALSE;
    if (strcmp(path, "-") == 0) {
        *kind = WRITE_STDOUT;
        return TRUE;
    }
    /* stat() follows the links: what is written is decided by what they end at */
    GStatBuf st;
    if (g_stat(path, &st) != 0) {
        int e = errno;
        if (e != ENOENT) {
            set_error(error, path, NULL, e);
            return FALSE;
        }
        *kind = WRITE_REPLACE; /* a new name, or a dangling link */
        return TRUE;
    }
    if (S_ISDIR(st.st_mode)) {
        set_error(error, path, NULL, EISDIR);
        return FALSE;
    }
    *kind = S_ISREG(st.st_mode) ? WRITE_REPLACE : WRITE_DIRECT;
    *nonempty = S_ISREG(st.st_mode) && st.st_size > 0;
    return TRUE;
}

gboolean
weft_output_check(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL && path[0] != '\0', FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    write_kind_t kind;
    gboolean nonempty;
    if (!classify(path, &kind, &nonempty, error)) {
        return FALSE;
    }
    if (kind == WRITE_STDOUT) {
        return TRUE;
    }
    if (kind == WRITE_DIRECT) {
        /* not opened: a FIFO would wait for a reader, and the reader would see an empty write */
        if (g_access(path, W_OK) != 0) {
            int e = errno;
            set_error(error, path, NULL, e);
            return FALSE;
        }
        return TRUE;
    }
    g_autoptr(weft_output_t) out = g_new0(weft_output_t, 1);
    out->path = g_strdup(path);
    out->target = follow_links(path, error);
    return out->target != NULL && open_tmp(out, error); /* removed when out is aborted */
}

weft_output_t *
weft_output_open(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL && path[0] != '\0', NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    write_kind_t kind;
    gboolean nonempty;
    if (!classify(path, &kind, &nonempty, error)) {
        return NULL;
    }
    g_autoptr(weft_output_t) out = g_new0(weft_output_t, 1);
    out->path = g_strdup(path);
    out->replace = nonempty;
    switch (kind) {
    case WRITE_STDOUT:
        out->f = stdout;
        break;
    case WRITE_DIRECT:
        /* open() follows the links too, also the kernel's own (/dev/stdout) */
        out->target = g_strdup(path);
        if (!open_direct(out, error)) {
            return NULL;
        }
        break;
    case WRITE_REPLACE:
        out->target = follow_links(path, error);
        if (out->target == NULL || !open_tmp(out, error)) {
            return NULL;
        }
        break;
    }
    return g_steal_pointer(&out);
}

FILE *
weft_output_stream(weft_output_t *out)
{
    g_return_val_if_fail(out != NULL && out->f != NULL, NULL);
    return out->f;
}

gboolean
weft_output_commit(weft_output_t *out, GError **error)
{
    g_return_val_if_fail(out != NULL && out->f != NULL, FALSE);
    int e = 0;
    if (fflush(out->f) != 0) {
        e = errno;
    } else if (ferror(out->f)) {
        e = EIO; /* an earlier write failed; its errno is gone */
    }
    if (e == 0 && out->replace && fsync(fileno(out->f)) != 0) {
        e = errno;
    }
    if (out->f != stdout && fclose(out->f) != 0 && e == 0) {
        e = errno;
    }
    out->f = NULL;
    if (e == 0 && out->tmp != NULL && g_rename(out->tmp, out->target) != 0) {
        e = errno;
    }
    if (e != 0) {
        set_error(error, out->path, out->target, e);
        if (out->tmp != NULL) {
            g_unlink(out->tmp);
        }
    }
    output_free(out);
    return e == 0;
}

void
weft_output_abort(weft_output_t *out)
{
    if (out == NULL) {
        return;
    }
    if (out->f != NULL && out->f != stdout) {
        fclose(out->f);
    }
    if (out->tmp != NULL) {
        g_unlink(out->tmp);
    }
    output_free(out);
}

gboolean
weft_output_write(const char *path, const char *data, gssize len, GError **error)
{
    g_return_val_if_fail(path != NULL && (data != NULL || len == 0), FALSE);
    gsize n = len < 0 ? strlen(data) : (gsize)len;
    g_autoptr(weft_output_t) out = weft_output_open(path, error);
    if (out == NULL) {
        return FALSE;
    }
    if (n > 0 && fwrite(data, 1, n, out->f) != n) {
        int e = errno;
        set_error(error, out->path, out->target, e);
        return FALSE; /* aborted on the way out */
    }
    return weft_output_commit(g_steal_pointer(&out), error);
}
