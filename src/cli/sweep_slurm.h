/* SPDX-License-Identifier: MIT */
/*
 * weft sweep --slurm DIR [--slurm-tasks N] [--slurm-opt OPT]... [--submit]:
 * the command-line side of src/study/slurm.h (write the job array and merge
 * scripts for a study, and submit them with sbatch).
 */
#ifndef WEFT_CLI_SWEEP_SLURM_H
#define WEFT_CLI_SWEEP_SLURM_H

#include <glib.h>

G_BEGIN_DECLS

/* What weft sweep parsed, for weft_sweep_slurm(). */
typedef struct {
    const char *dir;                /* --slurm DIR */
    gint tasks;                     /* --slurm-tasks; -1: unset */
    const char *const *sbatch_opts; /* --slurm-opt, NULL-terminated, or NULL */
    gboolean submit;                /* --submit */
    int argc;                       /* the arguments left after the options: argv[1] is the study */
    char **argv;
    const char *output;                /* -o: the merged CSV, or NULL */
    gint jobs;                         /* -j of each task; -1: unset */
    gboolean merge, resume, has_shard; /* options --slurm refuses */
} weft_sweep_slurm_args_t;

/**
 * weft_sweep_slurm:
 * Loads the study, writes DIR/array.sbatch and DIR/merge.sbatch, and prints
 * how to submit them; with --submit, submits them and prints both job ids.
 * @a: the parsed command line.
 * Returns: WEFT_EXIT_OK; WEFT_EXIT_USAGE for options --slurm does not take, a
 *   bad --slurm-tasks or --slurm-opt, a DIR an #SBATCH line cannot carry;
 *   WEFT_EXIT_ERROR for a bad study, a DIR that cannot be written, sbatch
 *   missing or failing (its standard error is shown).
 */
int weft_sweep_slurm(const weft_sweep_slurm_args_t *a);

G_END_DECLS

#endif /* WEFT_CLI_SWEEP_SLURM_H */
