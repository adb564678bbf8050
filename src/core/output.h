/* SPDX-License-Identifier: MIT */
/*
 * Output files: every file weft writes (reports, summaries, CSVs, timelines,
 * clusters, traces, plots, study journals) goes through this module, so each
 * follows one policy.
 *
 * A reader never sees a half-written file: a regular file (or a name not yet
 * taken) is written to a temporary file beside it, ".<name>.weft-tmp" in the same
 * directory, which is renamed over the name once it is complete. rename(2)
 * within one file system is atomic, so a crash, a full disk or a failed run
 * leaves either the old file or the new one, never a mix, and never removes
 * what was there. As GLib's G_FILE_SET_CONTENTS_CONSISTENT does, the temporary
 * file is fsync()ed before it replaces a non-empty file, so that file systems
 * that order data after metadata cannot lose both. New files get mode 0644
 * (less the umask). Hard links to a replaced file keep the old contents.
 *
 * A run that is killed leaves its temporary file. The writer holds a flock() on
 * it until it is renamed or removed, and the kernel drops the locks of a
 * process that dies, so the next writer of the same name finds
 * ".<name>.weft-tmp" unlocked and removes it before writing its own. While a
 * live writer holds that name (two writers of one file at once), or where the
 * file system has no locks, the temporary file is ".<name>.weft-tmp-XXXXXX"
 * (mkstemp), which a killed run leaves for good: any ".*.weft-tmp*" file that
 * no running weft is writing can be removed.
 *
 * Three names are not replaced:
 * - "-" is standard output.
 * - A symbolic link is written through: the links are followed (a relative
 *   link from its own directory, up to 40 of them as Linux does) and the file
 *   they end at is replaced, or created when the last link dangles, the way
 *   a shell's `>` would; the link itself stays.
 * - A name that exists and is not a regular file (a character device such as
 *   /dev/null or /dev/stdout, a FIFO) is opened and written directly, with no
 *   temporary file: renaming over it would replace the device. A directory is
 *   an error.
 * Only regular files are atomic: what went to standard output, a device or a
 * FIFO cannot be taken back when a write fails or is aborted.
 *
 * Errors are G_FILE_ERROR, with the code from errno, and the message names the
 * path as given (and the link's target when it differs):
 * "out/summary.json: cannot write: Permission denied". Modules that have
 * their own error domain copy the message into their _IO code.
 */
#ifndef WEFT_CORE_OUTPUT_H
#define WEFT_CORE_OUTPUT_H

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* An output file being written: opened, written through its FILE *, then
 * committed or aborted (either frees it). */
typedef struct weft_output weft_output_t;

/**
 * weft_output_write: writes the whole file @path as @data, by the policy above
 * (a temporary file renamed over @path; through symbolic links; directly to a
 * device or FIFO; "-" for standard output).
 * @path: the file name, or "-".
 * @data: the bytes to write; may hold NUL bytes when @len >= 0.
 * @len: the length of @data in bytes, or -1 when @data is NUL-terminated.
 * @error: G_FILE_ERROR (code from errno) naming @path; @path is then as it
 *   was, and no temporary file is left.
 * Returns: TRUE when @path holds @data.
 * Time complexity: O(@len), plus one fsync when a non-empty file is replaced.
 */
gboolean weft_output_write(const char *path, const char *data, gssize len, GError **error);

/**
 * weft_output_check: tells, before any work, whether @path can be written by
 * the policy above, without writing it: for a regular file or a new name, a
 * temporary file is created beside where the links end and removed; for a
 * device or FIFO, write permission is checked (a FIFO is not opened, which
 * would wait for a reader); "-" always passes.
 * @path: the file name, or "-".
 * @error: G_FILE_ERROR naming @path, as weft_output_open() would set it.
 * Returns: TRUE when @path looks writable. A later write can still fail (a
 *   full disk, a directory made read-only meanwhile).
 * Time complexity: O(1) system calls, O(links) for a chain of symbolic links.
 */
gboolean weft_output_check(const char *path, GError **error);

/**
 * weft_output_open: starts writing @path by the policy above, for writers that
 * stream into a FILE * (igraph's GraphML writer, the Chrome trace). Write
 * through weft_output_stream(), then call weft_output_commit() to put the file
 * in place, or weft_output_abort() to drop it. With g_autoptr(weft_output_t)
 * an output left uncommitted is aborted.
 * @path: the file name, or "-".
 * @error: G_FILE_ERROR naming @path: the directory does not exist or is not
 *   writable, @path is a directory, a device cannot be opened, a symbolic link
 *   cannot be read or loops.
 * Returns: (transfer full): the output, or NULL. Opening a FIFO blocks until it
 *   has a reader, as open(2) does.
 * Time complexity: O(1) system calls, O(links) for a chain of symbolic links.
 */
weft_output_t *weft_output_open(const char *path, GError **error);

/**
 * weft_output_stream: the stream to write @out's contents to.
 * @out: an output from weft_output_open().
 * Returns: (transfer none): a FILE * owned by @out (stdout for "-"); do not
 *   close it. Write errors are seen by weft_output_commit() through ferror().
 */
FILE *weft_output_stream(weft_output_t *out);

/**
 * weft_output_commit: finishes @out: flushes and closes its stream and, for a
 * regular file, renames the temporary file over the path. Frees @out.
 * @out: (transfer full): an output from weft_output_open().
 * @error: G_FILE_ERROR naming the path when a write, the flush, the close or
 *   the rename failed; the temporary file is then removed and the path is as
 *   it was (for a regular file).
 * Returns: TRUE when the path holds what was written.
 * Time complexity: O(bytes still buffered), plus one fsync when a non-empty
 *   file is replaced.
 */
gboolean weft_output_commit(weft_output_t *out, GError **error);

/**
 * weft_output_abort: drops @out: closes its stream and removes the temporary
 * file, so the path keeps what it held before. Bytes already written to
 * standard output, a device or a FIFO stay written.
 * @out: (transfer full) (nullable): an output from weft_output_open(); NULL is
 *   a no-op.
 */
void weft_output_abort(weft_output_t *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_output_t, weft_output_abort)

/**
 * weft_output_csv_field: appends @v to @s as one CSV field, quoted (RFC 4180, section 2)
 * only when it holds a comma, a double quote or a line break, a quote inside doubled.
 * @s: the text being built. @v: the field's text (UTF-8, NUL-terminated).
 * Every CSV weft writes names and labels through it, so a name with a comma never shifts a
 * row's columns and plain names stay unquoted. O(length of @v).
 */
void weft_output_csv_field(GString *s, const char *v);

G_END_DECLS

#endif /* WEFT_CORE_OUTPUT_H */
