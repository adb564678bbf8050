/* SPDX-License-Identifier: MIT */
/*
 * What the parts of a study share: the metric tables (metrics.c).
 */
#ifndef WEFT_STUDY_STUDY_PRIVATE_H
#define WEFT_STUDY_STUDY_PRIVATE_H

#include <glib.h>

#include "job/job.h"
#include "scenario/scenario.h"
#include "study/study.h"

G_BEGIN_DECLS

/* What a training-run point produced: the resolved parameters and the Monte Carlo. */
typedef struct {
    weft_job_params_t p;
    weft_job_mc_t mc;
} weft_study_train_run_t;

/*
 * One metric: a column of the results CSV. Exactly one accessor is set: @replay
 * (of a replay point's run, with @arg) or @train (of a training-run point).
 * @count: printed as a whole number, else with 6 decimals ("inf" if infinite).
 */
typedef struct {
    const char *name; /* the column, with its unit in the name (step_time_us) */
    const char *unit; /* us, count, pct, days, h, s, steps */
    gboolean count;
    double (*replay)(const weft_scenario_run_t *run, gsize arg);
    double (*train)(const weft_study_train_run_t *tr);
    gsize arg;
} weft_study_metric_t;

extern const weft_study_metric_t weft_study_replay_metrics[];
extern const guint weft_study_n_replay_metrics;
extern const weft_study_metric_t weft_study_train_metrics[];
extern const guint weft_study_n_train_metrics;

/* The table of a replay (@train FALSE) or training-run study. */
void weft_study_i_metrics(gboolean train, const weft_study_metric_t **table, guint *n);

/* (transfer none) (nullable): the metric called @name in that table. */
const weft_study_metric_t *weft_study_i_metric_find(gboolean train, const char *name);

/* (transfer full): the names of that table, joined by ", ". */
char *weft_study_i_metric_list(gboolean train);

/* Appends metric @m's value (of @run or @tr, as its accessor reads) to @s. */
void weft_study_i_metric_append(GString *s, const weft_study_metric_t *m,
                                const weft_scenario_run_t *run, const weft_study_train_run_t *tr);

G_END_DECLS

#endif /* WEFT_STUDY_STUDY_PRIVATE_H */
