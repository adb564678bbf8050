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
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Links followed before giving up with ELOOP: Linux's MAXSYMLINKS. */
#define MAX_LINKS 40

struct weft_output {
    char *path;       /* as the caller gave it, for messages */
    char *target;     /* the name written: @path, or where its symbolic links end */
    char *tmp;        /* the temporary file renamed over @target; NULL when written directly */
    int lock_fd;      /* a second descriptor of @tmp holding its flock() until it is renamed
                       * or removed; -1 when not locked */
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
    if (out->lock_fd >= 0) {
        close(out->lock_fd); /* after the rename or the unlink: releases the lock */
    }
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

/* Opens the stream of @fd into @out, or closes @fd, removes @out->tmp and sets the error. */
static gboolean
open_stream(weft_output_t *out, int fd, GError **error)
{
    out->f = fdopen(fd, "w");
    if (out->f == NULL) {
        int e = errno;
        close(fd);
        g_unlink(out->tmp);
        g_clear_pointer(&out->tmp, g_free);
        if (out->lock_fd >= 0) {
            close(out->lock_fd);
            out->lock_fd = -1;
        }
        set_error(error, out->path, out->target, e);
        return FALSE;
    }
    return TRUE;
}

/*
 * Takes the temporary name @tmp (".NAME.weft-tmp") for this writer: creates it, or removes
 * what a killed writer left there and creates it again. A writer holds a flock() on its
 * temporary file until it is renamed or removed, and the kernel drops the lock of a process
 * that dies, so an existing file whose lock can be taken belongs to no live writer: it is
 * removed if it is still the file at that name (not renamed into place meanwhile by the
 * writer that just let go of it), a regular file with one link (not a symbolic link or a
 * hard link planted there). Returns the descriptor, locked, with its second descriptor in
 * *@lock_fd; -1 when the name is taken by a live writer, when the file system has no locks,
 * or on any error, and the caller falls back to a unique name.
 */
static int
take_tmp(const char *tmp, int *lock_fd)
{
    for (guint attempt = 0; attempt < 4; attempt++) {
        int fd = g_open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd >= 0) {
            if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
                /* another writer opened it in between (it holds it), or no locks here */
                int e = errno;
                if (e != EWOULDBLOCK) {
                    g_unlink(tmp);
                }
                close(fd);
                return -1;
            }
            *lock_fd = dup(fd); /* fclose() must not release the lock before the rename */
            if (*lock_fd < 0) {
                g_unlink(tmp);
                close(fd);
                return -1;
            }
            return fd;
        }
        if (errno != EEXIST) {
            return -1;
        }
        /* a file is there: a live writer's, or one a killed writer left */
        int old = g_open(tmp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0);
        if (old < 0) {
            if (errno == ENOENT) {
                continue; /* renamed into place meanwhile: try again */
            }
            return -1;
        }
        if (flock(old, LOCK_EX | LOCK_NB) != 0) {
            close(old); /* a live writer holds it */
            return -1;
        }
        GStatBuf now;
        struct stat held;
        gboolean same = fstat(old, &held) == 0 && g_lstat(tmp, &now) == 0 &&
                        held.st_dev == now.st_dev && held.st_ino == now.st_ino;
        if (same && (!S_ISREG(held.st_mode) || held.st_nlink != 1)) {
            close(old);
            return -1; /* not a temporary file weft made: left alone */
        }
        if (same) {
            g_unlink(tmp); /* stale: its writer died */
        }
        close(old);
    }
    return -1;
}

/*
 * Creates the temporary file beside @out->target that will be renamed over it:
 * ".NAME.weft-tmp", which the next writer of NAME removes if a killed run left it there
 * (take_tmp()); when a live writer holds that name (two writers of one file at once) or the
 * file system has no locks, a unique ".NAME.weft-tmp-XXXXXX" that no later run removes.
 */
static gboolean
open_tmp(weft_output_t *out, GError **error)
{
    g_autofree char *dir = g_path_get_dirname(out->target);
    g_autofree char *base = g_path_get_basename(out->target);
    g_autofree char *name = g_strdup_printf(".%s.weft-tmp", base);
    out->tmp = g_build_filename(dir, name, NULL);
    int fd = take_tmp(out->tmp, &out->lock_fd);
    if (fd >= 0) {
        return open_stream(out, fd, error);
    }
    g_free(out->tmp);
    g_autofree char *unique = g_strdup_printf(".%s.weft-tmp-XXXXXX", base);
    out->tmp = g_build_filename(dir, unique, NULL);
    fd = g_mkstemp_full(out->tmp, O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        set_error(error, out->path, out->target, e);
        g_clear_pointer(&out->tmp, g_free);
        return FALSE;
    }
    return open_stream(out, fd, error);
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
    out->lock_fd = -1;
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
    out->lock_fd = -1;
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

void
weft_output_csv_field(GString *s, const char *v)
{
    g_return_if_fail(s != NULL && v != NULL);
    if (strpbrk(v, ",\"\n\r") == NULL) {
        g_string_append(s, v);
        return;
    }
    g_string_append_c(s, '"');
    for (const char *p = v; *p != '\0'; p++) {
        if (*p == '"') {
            g_string_append_c(s, '"');
        }
        g_string_append_c(s, *p);
    }
    g_string_append_c(s, '"');
}
