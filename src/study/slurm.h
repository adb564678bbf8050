/* SPDX-License-Identifier: MIT */
/*
 * A study on a Slurm cluster: a job array whose task K runs shard K of N of
 * the study (weft_study_run() with shard K/N, resuming its journal), and a
 * merge job, submitted with --dependency=afterok on the array, that joins the
 * N shard CSVs (weft_study_merge()) into the study's CSV. doc/studies.md
 * ("On a Slurm cluster") is the user's description.
 *
 * weft_study_slurm_write() writes, in a directory DIR:
 *
 *     DIR/array.sbatch     #SBATCH --array=1-N --requeue --open-mode=append ...
 *     DIR/merge.sbatch     weft sweep --merge -o RESULTS DIR/shard-1.csv ... DIR/shard-N.csv
 *     DIR/logs/            shard-K.out (one per task), merge.out
 *     DIR/shard-K.csv      written by task K (its journal DIR/shard-K.csv.partial while it runs)
 *
 * The scripts name the weft binary, the study and every file by absolute
 * path, so they run from any directory on any node that sees the same file
 * system, and the CSV they give is byte-identical to `weft sweep STUDY`'s.
 *
 * Resume on requeue: a requeued (--requeue: node failure, preemption) or
 * resubmitted task appends to its log (--open-mode=append) and runs
 * `weft sweep --resume`, which keeps the rows of its journal. A task whose
 * shard CSV is already complete for this very study (its first line is the
 * shard stamp "# weft sweep shard study=HASH points=P shard=K/N", the hash of
 * the study's effective definition) exits 0 at once; a shard CSV of another
 * study or sharding is run again and replaced.
 *
 * weft_study_slurm_submit() runs `sbatch --parsable` on the array script,
 * then on the merge script with --dependency=afterok:ARRAY_ID and
 * --kill-on-invalid-dep=yes (a failed task cancels the merge instead of
 * leaving it pending forever), through g_spawn_sync() (no shell).
 */
#ifndef WEFT_STUDY_SLURM_H
#define WEFT_STUDY_SLURM_H

#include <glib.h>

#include "study/study.h"

G_BEGIN_DECLS

#define WEFT_STUDY_SLURM_ERROR (weft_study_slurm_error_quark())
GQuark weft_study_slurm_error_quark(void);

typedef enum {
    WEFT_STUDY_SLURM_ERROR_USAGE,     /* a bad option: task count, an #SBATCH option, DIR */
    WEFT_STUDY_SLURM_ERROR_IO,        /* DIR or a script cannot be created or written */
    WEFT_STUDY_SLURM_ERROR_NO_SBATCH, /* sbatch is not in PATH */
    WEFT_STUDY_SLURM_ERROR_SBATCH,    /* sbatch failed, or printed no job id */
} weft_study_slurm_error_t;

/* Tasks of the array when weft_study_slurm_options_t.tasks is 0 (fewer if the study is smaller). */
#define WEFT_STUDY_SLURM_DEFAULT_TASKS 32u

/** Options of weft_study_slurm_write(); zero-initialize, then set what differs. */
typedef struct {
    const char *dir;        /* the scripts, shard CSVs and logs; created if missing */
    const char *study_path; /* the study file, as given (made absolute) */
    const char *weft;       /* the weft binary the tasks run, absolute */
    const char *output;     /* the merged CSV; NULL: weft_study_results_path() */
    guint tasks;            /* array tasks (= shards), 1..points; 0: MIN(points, 32) */
    guint jobs;             /* weft sweep -j of each task; 0: $SLURM_CPUS_PER_TASK, else 1 */
    const char *const *sbatch_options; /* (nullable) NULL-terminated: one #SBATCH line each */
} weft_study_slurm_options_t;

/** What weft_study_slurm_write() wrote: absolute paths. Clear with
 * weft_study_slurm_scripts_clear(). */
typedef struct {
    char *dir;          /* DIR */
    char *array_script; /* DIR/array.sbatch */
    char *merge_script; /* DIR/merge.sbatch */
    char *results;      /* the merged CSV the merge job writes */
    guint tasks;        /* array tasks */
} weft_study_slurm_scripts_t;

/**
 * weft_study_slurm_write:
 * Writes DIR/array.sbatch and DIR/merge.sbatch for @st (see the essay) and
 * creates DIR and DIR/logs. Shard CSVs already in DIR are kept: a task whose
 * shard is complete for this study skips it.
 * @st: the loaded study (checked: every axis value was tried).
 * @opts: where and how; @opts->dir, @opts->study_path and @opts->weft are
 *   required.
 * @out: (out caller-allocates): the paths written; cleared on failure.
 * @error: WEFT_STUDY_SLURM_ERROR_USAGE (tasks 0 or more than the points, an
 *   #SBATCH option that is not one option or that weft sets itself, a DIR or
 *   path a #SBATCH line cannot carry), _IO (naming DIR or the script).
 * Returns: TRUE when both scripts are written.
 * Time complexity: O(1) beyond reading @st: the scripts loop over the tasks.
 */
gboolean weft_study_slurm_write(const weft_study_t *st, const weft_study_slurm_options_t *opts,
                                weft_study_slurm_scripts_t *out, GError **error);

/**
 * weft_study_slurm_submit:
 * Submits the array script with `sbatch --parsable`, then the merge script
 * with `sbatch --parsable --dependency=afterok:ARRAY_ID --kill-on-invalid-dep=yes`.
 * sbatch is found in PATH and run without a shell; it reads SLURM_CONF and
 * the rest of the environment as usual.
 * @scripts: what weft_study_slurm_write() wrote.
 * @array_id: (out) (transfer full): the array's job id, digits.
 * @merge_id: (out) (transfer full): the merge job's id, digits.
 * @error: WEFT_STUDY_SLURM_ERROR_NO_SBATCH; _SBATCH with sbatch's exit status
 *   and standard error, or the output that holds no job id (if the merge
 *   alone failed, the message gives the array's id, which then runs without
 *   its merge).
 * Returns: TRUE when both jobs are queued.
 */
gboolean weft_study_slurm_submit(const weft_study_slurm_scripts_t *scripts, char **array_id,
                                 char **merge_id, GError **error);

/** weft_study_slurm_scripts_clear: frees the paths of @s and zeroes it; NULL is a no-op. */
void weft_study_slurm_scripts_clear(weft_study_slurm_scripts_t *s);

G_END_DECLS

#endif /* WEFT_STUDY_SLURM_H */
