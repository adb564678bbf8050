/* SPDX-License-Identifier: MIT */
/*
 * Strict INI loading.
 *
 * weft's cluster and scenario files are INI files read by GLib's GKeyFile.
 * GKeyFile quietly keeps the last of two lines that set the same key (and
 * merges two sections of the same name), so a file with `link_latency` set
 * twice would run with whichever came last, without a word. weft refuses such
 * files instead: a key may be set once per group and a group may appear once.
 */
#ifndef WEFT_CORE_KEYFILE_H
#define WEFT_CORE_KEYFILE_H

#include <glib.h>

G_BEGIN_DECLS

/**
 * weft_keyfile_load_data:
 * @kf: an empty key file.
 * @text: the file's text (NUL-terminated).
 * @origin: the file name, for messages.
 * @error: G_KEY_FILE_ERROR from GKeyFile, or G_KEY_FILE_ERROR_PARSE for a key
 *   set twice in one group or a group that appears twice, naming @origin, the
 *   lines, the group and the key.
 * Returns: TRUE if @text was loaded into @kf.
 */
gboolean weft_keyfile_load_data(GKeyFile *kf, const char *text, const char *origin, GError **error);

/**
 * weft_keyfile_load_file:
 * As weft_keyfile_load_data() for the file @path; G_FILE_ERROR when it cannot
 * be read.
 */
gboolean weft_keyfile_load_file(GKeyFile *kf, const char *path, GError **error);

G_END_DECLS

#endif /* WEFT_CORE_KEYFILE_H */
