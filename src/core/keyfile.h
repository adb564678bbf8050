/* SPDX-License-Identifier: MIT */
/*
 * Strict INI loading, and the one engine for configuration tables.
 *
 * weft's cluster and scenario files are INI files read by GLib's GKeyFile.
 * GKeyFile quietly keeps the last of two lines that set the same key (and
 * merges two sections of the same name), so a file with `link_latency` set
 * twice would run with whichever came last, without a word. weft refuses such
 * files instead: a key may be set once per group and a group may appear once.
 *
 * Configuration tables. Each module that owns configuration declares it once,
 * beside its options struct, as an array of weft_key_t rows: group, key,
 * type (with its unit), default, range, the enum's name table, a one-line doc,
 * the field's offset in the struct and, optionally, the long option of a
 * subcommand. This file is the one engine over those tables: it checks a text
 * value against its row (unknown keys get the valid list; units, ranges and
 * choices are checked), stores the typed value in the struct, formats the
 * effective configuration and builds a subcommand's GOptionEntry list. A
 * scenario (scenario/scenario.h) is the composition of the module tables.
 *
 * Example: the row
 *   {"network", "model", WEFT_KEY_ENUM, "analytical", "network model: ...",
 *    .choices = &weft_net_model_enum, .field = WEFT_KEY_FIELD(weft_net_options_t, model)}
 * accepts `[network] model = flow`, refuses `model = fluid` with "network.model
 * = "fluid": expected one of analytical, flow", and stores WEFT_NET_FLOW in the
 * struct's `model`. Adding a key is one such row and one struct field.
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

/* ---- enum name tables ---------------------------------------------------------------- */

/*
 * One name table per enum: names[v] is the one spelling of value v (0, 1, ...
 * in order), NULL-terminated. @what names the kind for messages ("network
 * model"). Modules export theirs as `const weft_enum_t weft_X_enum` with
 * weft_X_from_name() / weft_X_name() wrappers.
 */
typedef struct {
    const char *what;
    const char *const *names;
} weft_enum_t;

#define WEFT_KEYFILE_ERROR (weft_keyfile_error_quark())
GQuark weft_keyfile_error_quark(void);

/* The codes are those of WEFT_SCENARIO_ERROR (scenario/scenario.h), in the same order. */
typedef enum {
    WEFT_KEYFILE_ERROR_PARSE, /* not of the form group.key=value, or not a key name */
    WEFT_KEYFILE_ERROR_KEY,   /* unknown group or key; the message lists the valid ones */
    WEFT_KEYFILE_ERROR_VALUE, /* a value that does not parse, is out of range or not a choice */
} weft_keyfile_error_t;

/**
 * weft_enum_from_name:
 * @e: the table; @name: a spelling (exact, case-sensitive).
 * @value: (out): its value, untouched on error.
 * @error: WEFT_KEYFILE_ERROR_VALUE "unknown WHAT "NAME"; expected one of a, b, c".
 * Returns: TRUE if @name is one of @e's names. Complexity: O(names).
 */
gboolean weft_enum_from_name(const weft_enum_t *e, const char *name, gint *value, GError **error);

/** weft_enum_name: (transfer none): the name of @value, or "?" when out of range. */
const char *weft_enum_name(const weft_enum_t *e, gint value);

/** weft_enum_list: (transfer full): the names joined by @sep ("a, b, c" with ", "). */
char *weft_enum_list(const weft_enum_t *e, const char *sep);

/* ---- configuration tables ------------------------------------------------------------- */

typedef enum {
    WEFT_KEY_PATH,   /* const char *: a file or prefix, made absolute against the file's dir */
    WEFT_KEY_STRING, /* const char *: free text (with an optional syntax check) */
    WEFT_KEY_BOOL,   /* gboolean: true, false, 1, 0 (what g_key_file_get_boolean() reads) */
    WEFT_KEY_ENUM,   /* gint: a name of .choices */
    WEFT_KEY_INT,    /* gint64 in [imin, imax] */
    WEFT_KEY_UINT,   /* guint in [imin, imax] (imax <= G_MAXUINT32) */
    WEFT_KEY_NUMBER, /* double in (nmin, nmax] or [nmin, nmax] */
    WEFT_KEY_RATE,   /* double, bytes per second, with its unit (core/units.h) */
    WEFT_KEY_TIME,   /* weft_time_t, picoseconds, with its unit */
    WEFT_KEY_BYTES,  /* guint64 bytes, with its unit */
    WEFT_KEY_COUNT,  /* guint64: a whole number written as weft writes counts (2048, 1e6:
                        core/units.h) from imin to imax (imax 0: to 2^53, where a double still
                        counts exactly); kept as written */
    WEFT_KEY_UINT64, /* guint64, decimal, from imin to G_MAXUINT64 (a 64-bit seed); kept as
                        written */
} weft_key_type_t;

typedef gboolean (*weft_key_check_fn)(const char *text, GError **error);
/* Stores a checked @text into @obj (the row's struct) where a plain field does not do,
 * e.g. a preset that sets many fields or a window that sets two. */
typedef gboolean (*weft_key_apply_fn)(void *obj, const char *text, GError **error);
/* Parses the text of a WEFT_KEY_NUMBER written in a syntax of its own (a duration in days,
 * beyond what core/units.h holds) into @value; the error says why, without naming the key. */
typedef gboolean (*weft_key_parse_fn)(const char *text, double *value, GError **error);

/* WEFT_KEY_FIELD(T, member): the field of a row (0 means "no field"). */
#define WEFT_KEY_FIELD(T, member) (G_STRUCT_OFFSET(T, member) + 1)

typedef struct {
    const char *group;
    const char *key;
    weft_key_type_t type;
    const char *dflt; /* text of the default; NULL: unset unless given */
    const char *doc;  /* one line; written as a comment into effective configurations */
    const weft_enum_t *choices; /* WEFT_KEY_ENUM */
    weft_key_check_fn check;    /* WEFT_KEY_STRING: the syntax, checked when set */
    weft_key_apply_fn apply;    /* instead of (or after) storing the field */
    gint64 imin, imax;          /* WEFT_KEY_INT, WEFT_KEY_UINT */
    double nmin, nmax;          /* WEFT_KEY_NUMBER; nmin also for RATE/TIME/BYTES */
    gboolean nmin_open;         /* the lower bound is excluded */
    gssize field;               /* WEFT_KEY_FIELD() of the value; 0: none */
    gssize given;               /* WEFT_KEY_FIELD() of a gboolean set when given; 0: none */
    const char *option;         /* long option of a subcommand (weft gen --tp); NULL: none */
    gchar short_option;         /* and its one-letter form, 0: none */
    const char *flag_value;     /* a bare --option (no argument) stands for this text */
    const char *arg;            /* the option's argument in --help ("N") */
    /* Special words and parse hooks (see weft_key_error_reason() below). */
    weft_key_parse_fn parse; /* WEFT_KEY_NUMBER: its syntax, the text kept as written (range:
                                nmin, nmin_open, nmax); NULL: a plain number */
    const char *special;     /* a word accepted besides the type's values ("off", "auto");
                                not for WEFT_KEY_PATH and WEFT_KEY_STRING rows */
    double special_value;    /* what .special stores, converted to the field's type: INFINITY
                                in a double ("MTBF off"), 0 in a count ("interval auto") */
} weft_key_t;

/**
 * weft_keys_find: (transfer none): the row of @group.@key in @keys[0..@n), or NULL.
 * Complexity: O(n).
 */
const weft_key_t *weft_keys_find(const weft_key_t *keys, guint n, const char *group,
                                 const char *key);

/**
 * weft_keys_list: (transfer full): the keys of @group in @keys, joined by ", "
 * (for "unknown key ...; valid keys of [group]: ..." messages).
 */
char *weft_keys_list(const weft_key_t *keys, guint n, const char *group);

/**
 * weft_nearest_word: (transfer none): the word of @words[0..@n) nearest to
 * @given by edit distance (insertions, deletions, substitutions and swaps of
 * two neighbours, each costing 1; case is ignored), or NULL when none is within
 * max(1, strlen(@given) / 3) edits (a typo, not another word). Ties go to the
 * first word. For "did you mean ...?" in unknown-key messages.
 * Complexity: O(n * L^2), L the longest length (words longer than 256 bytes
 * are never suggested).
 */
const char *weft_nearest_word(const char *given, const char *const *words, guint n);

/**
 * weft_keys_suggest: (transfer full) (nullable): " (did you mean KEY?)" with the
 * key of @group in @keys nearest to @key (weft_nearest_word()), or NULL when
 * none is near. Complexity: O(n * L^2).
 */
char *weft_keys_suggest(const weft_key_t *keys, guint n, const char *group, const char *key);

/**
 * weft_key_check:
 * Checks @text (stripped) against @k: a path is made absolute against @base_dir
 * (NULL: the working directory), a number must parse and lie in range, a
 * quantity needs its unit, an enum must be one of its names, a check function
 * must accept it. An empty text for a key without default means "unset".
 * @normalized: (out) (transfer full) (nullable): the text to store, NULL for unset.
 * @error: WEFT_KEYFILE_ERROR_VALUE, "group.key = "text": why".
 */
gboolean weft_key_check(const weft_key_t *k, const char *text, const char *base_dir,
                        char **normalized, GError **error);

/**
 * weft_key_apply:
 * Parses @text (as weft_key_check() normalized it; NULL: unset, nothing is
 * stored) into @k's field of @obj and sets its given flag; then calls @k's
 * apply function. Strings are stored as borrowed pointers to @text, which
 * must outlive @obj's use.
 * @error: as weft_key_check(), or the apply function's.
 */
gboolean weft_key_apply(const weft_key_t *k, const char *text, void *obj, GError **error);

/**
 * weft_keys_apply_defaults: stores every default of the rows of @keys that have
 * one into @obj (as weft_key_apply() of the default text; given flags stay
 * FALSE). Complexity: O(n).
 */
void weft_keys_apply_defaults(const weft_key_t *keys, guint n, void *obj);

/** weft_key_is_default: TRUE if the stored @text is @k's default text (or both are unset). */
gboolean weft_key_is_default(const weft_key_t *k, const char *text);

/**
 * weft_key_format:
 * Appends "# doc\nkey = value\n" (or "key =" when @value is NULL) to @out:
 * one key of an effective configuration.
 */
void weft_key_format(GString *out, const weft_key_t *k, const char *value);

/**
 * weft_key_value_help: (transfer full): what @k takes, for --help listings:
 * "auto|off|nccl", "1..64", "TIME", "BYTES", "RATE", "PATH", "true|false", ...,
 * with " (default D)" when it has one.
 */
char *weft_key_value_help(const weft_key_t *k);

/**
 * weft_keys_parse_quantity:
 * Parses @text with its unit as a WEFT_KEY_RATE (bytes/s), WEFT_KEY_TIME
 * (picoseconds) or WEFT_KEY_BYTES (bytes) into @value.
 * @error: WEFT_KEYFILE_ERROR_VALUE with core/units' message (a missing unit included).
 */
gboolean weft_keys_parse_quantity(weft_key_type_t type, const char *text, double *value,
                                  GError **error);

/**
 * weft_keys_option_group:
 * Builds a GOptionGroup of the rows of @keys (in @group, or all when NULL) that
 * name an .option: each option stores its argument's text (or the row's
 * .flag_value for a bare flag) in @texts[i] for row i, checked as
 * weft_key_check() checks it, so a bad value is a usage error naming the option.
 * @texts: an array of @n NULL pointers that outlives the parse; its strings are
 *   owned by the caller afterwards (free with g_free()).
 * Returns: (transfer full): the group, for g_option_context_add_group() or
 *   g_option_context_set_main_group().
 */
GOptionGroup *weft_keys_option_group(const weft_key_t *keys, guint n, const char *group,
                                     char **texts);

/* ---- special words, parse hooks, counts ------------------------------------------------- *
 *
 * Some keys take a word besides their type's values: an MTBF is a duration > 0 or `off`
 * (never fails), a checkpoint interval a count >= 1 or `auto` (searched). A row names the
 * word in .special and the value it stands for in .special_value; weft_key_check()
 * accepts the word as it is and adds ", or WORD" to the reason it refuses anything else
 * with, and weft_key_apply() stores the value in the field, converted to its type. A
 * WEFT_KEY_NUMBER with a .parse hook is written in that parser's syntax (weft train's
 * durations reach years, in days) and range-checked like a plain number; its text, like
 * a WEFT_KEY_COUNT's and a WEFT_KEY_UINT64's, is kept as written.
 *
 * Example: {"train", "checkpoint_interval", WEFT_KEY_COUNT, "auto", ..., .imin = 1,
 * .special = "auto", .special_value = 0} accepts "auto" (stores 0) and "30" and "1e3",
 * and refuses "0" with `train.checkpoint_interval = "0": expected a whole number >= 1,
 * or auto`.
 */

/**
 * weft_key_error_reason:
 * The reason of a weft_key_check() or weft_key_apply() error on @k and @text: its message
 * without the leading `group.key = "text": `, for callers that name the key their own way
 * (weft train's `FILE: group.key = 'text': reason`).
 * Returns: (transfer none): a part of @error's message (all of it when it has no such
 *   beginning).
 */
const char *weft_key_error_reason(const weft_key_t *k, const char *text, const GError *error);

G_END_DECLS

#endif /* WEFT_CORE_KEYFILE_H */
