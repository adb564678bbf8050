/* SPDX-License-Identifier: MIT */
/*
 * Running a scenario: the cluster, the workload, placement, network, the
 * replay (rerun once per shape a timed collective found not alone), and the
 * files of [output]. The keys and their resolution are scenario.c's.
 */
#define G_LOG_DOMAIN "weft-scenario"
#include "scenario/scenario.h"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "core/output.h"
#include "core/sim.h"
#include "fault/step.h"
#include "net/net.h"
#include "report/report.h"
#include "scenario/jobs.h"
#include "scenario/scenario_private.h"
#include "topo/fabric.h"

/* ---- running ----------------------------------------------------------------------------------
 */

/* Creates @dir if missing and proves it writable by creating and removing a file in it;
 * errors name output.@key = "@value". */
static gboolean
prepare_output_dir_for(const char *dir, const char *key, const char *value, GError **error)
{
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        int e = errno;
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO,
                    "output.%s = \"%s\": cannot create %s: %s", key, value, dir, g_strerror(e));
        return FALSE;
    }
    g_autofree char *probe = g_build_filename(dir, ".weft-probe-XXXXXX", NULL);
    int fd = g_mkstemp(probe);
    if (fd < 0) {
        int e = errno;
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO,
                    "output.%s = \"%s\": %s is not writable: %s", key, value, dir, g_strerror(e));
        return FALSE;
    }
    close(fd);
    g_unlink(probe);
    return TRUE;
}

static gboolean
prepare_output_dir(const char *dir, GError **error)
{
    return prepare_output_dir_for(dir, "dir", dir, error);
}

/* Creates the directory of the file @path if missing and checks that @path can be written as
 * core/output.h writes it (through links; /dev/null, a FIFO or "-" directly); errors name
 * output.@key. */
static gboolean
prepare_output_file(const char *path, const char *key, GError **error)
{
    g_autofree char *dir = g_path_get_dirname(path);
    if (strcmp(path, "-") != 0 && g_mkdir_with_parents(dir, 0755) != 0) {
        int e = errno;
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO,
                    "output.%s = \"%s\": cannot create %s: %s", key, path, dir, g_strerror(e));
        return FALSE;
    }
    g_autoptr(GError) ioerr = NULL;
    if (!weft_output_check(path, &ioerr)) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO, "output.%s: %s", key,
                    ioerr->message);
        return FALSE;
    }
    return TRUE;
}

static gboolean
write_output(const char *dir, const char *name, const char *text, GError **error)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autoptr(GError) ioerr = NULL;
    if (!weft_output_write(path, text, -1, &ioerr)) {
        g_set_error_literal(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO, ioerr->message);
        return FALSE;
    }
    return TRUE;
}

/*
 * Turns a cluster builder's error into a scenario error that names the scenario
 * and [cluster]: unknown keys and kinds become WEFT_SCENARIO_ERROR_KEY, values
 * that do not parse or are out of range WEFT_SCENARIO_ERROR_VALUE, unreadable
 * files WEFT_SCENARIO_ERROR_IO; anything else (an invalid graph) keeps its
 * WEFT_TOPO_ERROR code.
 */
static void
cluster_error(GError **error, GError *terr, const char *where)
{
    gint code = -1;
    if (terr->domain == WEFT_TOPO_ERROR) {
        switch (terr->code) {
        case WEFT_TOPO_ERROR_KEY:
            code = WEFT_SCENARIO_ERROR_KEY;
            break;
        case WEFT_TOPO_ERROR_PARSE:
        case WEFT_TOPO_ERROR_VALUE:
            code = WEFT_SCENARIO_ERROR_VALUE;
            break;
        case WEFT_TOPO_ERROR_IO:
            code = WEFT_SCENARIO_ERROR_IO;
            break;
        default:
            break;
        }
    }
    g_autofree char *prefix = where != NULL ? g_strdup_printf("scenario %s: [cluster]: ", where)
                                            : g_strdup("[cluster]: ");
    if (code < 0) {
        g_propagate_prefixed_error(error, terr, "%s", prefix);
        return;
    }
    g_set_error(error, WEFT_SCENARIO_ERROR, code, "%s%s", prefix, terr->message);
    g_error_free(terr);
}

weft_topo_t *
weft_scenario_build_cluster(const weft_scenario_t *sc, GError **error)
{
    g_return_val_if_fail(sc != NULL, NULL);
    weft_scenario_config_t resolved;
    if (!weft_scenario_resolve(sc, &resolved, error)) {
        return NULL;
    }
    const weft_scenario_config_t *cfg = &resolved;
    const char *where = sc->source;
    const char *file = cfg->cluster_file;
    GError *terr = NULL;
    weft_topo_t *topo = NULL;
    if (file != NULL && sc->format == CLUSTER_FILE_YAML) {
        topo = weft_topo_load_astra_yaml(file, &terr);
    } else if (file != NULL && sc->format == CLUSTER_FILE_GRAPHML) {
        topo = weft_topo_load_graphml(file, &terr);
    } else {
        g_autoptr(GKeyFile) kf = g_key_file_new();
        g_autoptr(GPtrArray) merged = weft_scenario_i_merged_cluster_keys(sc);
        if (merged->len == 0) {
            /* an INI file with an empty [cluster]: the builder says that it is empty */
            g_key_file_load_from_data(kf, "[cluster]\n", (gsize)-1, G_KEY_FILE_NONE, NULL);
        }
        for (guint i = 0; i < merged->len; i++) {
            kv_pair *kv = g_ptr_array_index(merged, i);
            g_key_file_set_value(kf, "cluster", kv->key, kv->value);
        }
        const char *origin = file != NULL ? file : (where != NULL ? where : "scenario");
        topo = weft_topo_load_keyfile(kf, "cluster", origin, &terr);
    }
    if (topo == NULL) {
        cluster_error(error, terr, where);
        return NULL;
    }
    return topo;
}

static char *
placement_text(const weft_place_config_t *p)
{
    if (p->policy == WEFT_PLACE_RANDOM) {
        return g_strdup_printf("random (seed %" G_GINT64_FORMAT ")", p->seed);
    }
    if (p->policy == WEFT_PLACE_FILE) {
        return g_strdup_printf("file %s", p->file);
    }
    return g_strdup(weft_place_policy_name(p->policy));
}

static char *
ranks_csv(const weft_scenario_run_t *run)
{
    GString *s = g_string_new(
        "rank,gpu,finish_us,compute_us,exposed_comm_us,idle_us,mem_peak_bytes,mem_peak_us\n");
    const weft_replay_result_t *res = run->replay;
    for (guint r = 0; r < res->n_ranks; r++) {
        const weft_rank_result_t *rr = &res->ranks[r];
        g_string_append_printf(s, "%u,%u,%.6f,%.6f,%.6f,%.6f", r, run->rank_gpu[r],
                               weft_time_to_us(rr->finish_ps), weft_time_to_us(rr->compute_ps),
                               weft_time_to_us(rr->exposed_comm_ps), weft_time_to_us(rr->idle_ps));
        if (res->mem_known) {
            /* the peak memory of every rank (doc/memory.md); empty cells when unknown */
            g_string_append_printf(s, ",%" G_GUINT64_FORMAT ",%.6f\n", rr->mem_peak_bytes,
                                   weft_time_to_us(rr->mem_peak_ps));
        } else {
            g_string_append(s, ",,\n");
        }
    }
    return g_string_free(s, FALSE);
}

/* ---- per layer and phase (weft_replay_layer_t; doc/outputs.md, layers.csv) ------------- */


static const char *
layer_name(const weft_workload_t *wl, guint layer)
{
    return wl->layers != NULL && layer < wl->layers->len ? g_ptr_array_index(wl->layers, layer)
                                                         : "other";
}

/* @ps summed over @n ranks, as their mean in microseconds */
static double
mean_us(weft_time_t ps, guint n)
{
    return n > 0 ? (double)ps / n / 1e6 : 0.0;
}

static char *
layers_csv(const weft_scenario_run_t *run)
{
    GString *s = g_string_new("layer_index,layer,phase,ranks,compute_us,exposed_comm_us,"
                              "overlapped_comm_us,max_rank_us,collectives,busbw_GBps");
    for (guint k = 0; k < WEFT_PAR_N; k++) {
        g_string_append_printf(s, ",exposed_%s_us", weft_par_kind_name(k));
    }
    for (guint k = 0; k < WEFT_PAR_N; k++) {
        g_string_append_printf(s, ",overlapped_%s_us", weft_par_kind_name(k));
    }
    g_string_append_c(s, '\n');
    const GArray *rows = run->replay->layers;
    for (guint i = 0; rows != NULL && i < rows->len; i++) {
        const weft_replay_layer_t *L = &g_array_index(rows, weft_replay_layer_t, i);
        weft_time_t exp = 0, ovl = 0;
        for (guint k = 0; k < WEFT_PAR_N; k++) {
            exp += L->exposed_ps[k];
            ovl += L->overlapped_ps[k];
        }
        g_string_append_printf(s, "%u,", L->layer);
        weft_output_csv_field(s, layer_name(run->workload, L->layer));
        g_string_append_printf(s, ",%s,%u,%.6f,%.6f,%.6f,%.6f", weft_phase_name(L->phase),
                               L->n_ranks, mean_us(L->compute_ps, L->n_ranks),
                               mean_us(exp, L->n_ranks), mean_us(ovl, L->n_ranks),
                               weft_time_to_us(L->max_rank_ps));
        g_string_append_printf(s, ",%" G_GUINT64_FORMAT ",", L->collectives);
        if (L->coll_time_ps > 0) {
            /* time-weighted over its collectives; empty without any that took time */
            g_string_append_printf(s, "%.3f",
                                   L->busbw_bytes / weft_time_to_s(L->coll_time_ps) / 1e9);
        }
        for (guint k = 0; k < WEFT_PAR_N; k++) {
            g_string_append_printf(s, ",%.6f", mean_us(L->exposed_ps[k], L->n_ranks));
        }
        for (guint k = 0; k < WEFT_PAR_N; k++) {
            g_string_append_printf(s, ",%.6f", mean_us(L->overlapped_ps[k], L->n_ranks));
        }
        g_string_append_c(s, '\n');
    }
    return g_string_free(s, FALSE);
}

/* A layer's figures over its phases: each phase's mean over the ranks that ran it, added. */
typedef struct {
    guint layer;
    guint ranks; /* the most of any of its phases */
    double compute_us, exposed_us, overlapped_us;
} layer_total_t;

static gint
layer_total_cmp(gconstpointer a, gconstpointer b)
{
    const layer_total_t *x = a, *y = b;
    double tx = x->compute_us + x->exposed_us, ty = y->compute_us + y->exposed_us;
    if (tx != ty) {
        return tx > ty ? -1 : 1;
    }
    return x->layer < y->layer ? -1 : x->layer > y->layer;
}

#define SUMMARY_TOP_LAYERS 5

/* The summary's "top layers" section: the SUMMARY_TOP_LAYERS layers with the most compute +
 * exposed communication per rank, largest first (the lowest id on a tie); "other" counts.
 * Nothing for a workload without layers. */
static void
append_top_layers(GString *s, const weft_scenario_run_t *run)
{
    const GArray *rows = run->replay->layers;
    const weft_workload_t *wl = run->workload;
    if (rows == NULL || rows->len == 0 || wl->layers == NULL) {
        return;
    }
    g_autoptr(GArray) tot = g_array_new(FALSE, TRUE, sizeof(layer_total_t));
    for (guint i = 0; i < rows->len; i++) {
        const weft_replay_layer_t *L = &g_array_index(rows, weft_replay_layer_t, i);
        if (tot->len == 0 || g_array_index(tot, layer_total_t, tot->len - 1).layer != L->layer) {
            layer_total_t z = {.layer = L->layer};
            g_array_append_val(tot, z);
        }
        layer_total_t *t = &g_array_index(tot, layer_total_t, tot->len - 1);
        t->ranks = MAX(t->ranks, L->n_ranks);
        t->compute_us += mean_us(L->compute_ps, L->n_ranks);
        for (guint k = 0; k < WEFT_PAR_N; k++) {
            t->exposed_us += mean_us(L->exposed_ps[k], L->n_ranks);
            t->overlapped_us += mean_us(L->overlapped_ps[k], L->n_ranks);
        }
    }
    g_array_sort(tot, layer_total_cmp);
    guint k = MIN(tot->len, SUMMARY_TOP_LAYERS);
    g_string_append_printf(s,
                           "\ntop layers by compute + exposed comm, mean over their ranks "
                           "(%u of %u; per phase in layers.csv with --out DIR)\n",
                           k, tot->len);
    g_string_append_printf(s, "  %-3s %-24s %6s %16s %16s %16s %18s\n", "#", "layer", "ranks",
                           "total_us", "compute_us", "exposed_comm_us", "overlapped_comm_us");
    for (guint i = 0; i < k; i++) {
        const layer_total_t *t = &g_array_index(tot, layer_total_t, i);
        g_autofree char *idx = g_strdup_printf("#%u", i + 1);
        g_string_append_printf(s, "  %-3s %-24s %6u %16.6f %16.6f %16.6f %18.6f\n", idx,
                               layer_name(wl, t->layer), t->ranks, t->compute_us + t->exposed_us,
                               t->compute_us, t->exposed_us, t->overlapped_us);
    }
}

/* ---- memory ------------------------------------------------------------------------ */

#define GIB 1073741824.0

/* The rank with the highest memory peak (the lowest such rank on a tie). */
static guint
mem_peak_rank(const weft_replay_result_t *res)
{
    guint best = 0;
    for (guint r = 1; r < res->n_ranks; r++) {
        if (res->ranks[r].mem_peak_bytes > res->ranks[best].mem_peak_bytes) {
            best = r;
        }
    }
    return best;
}

/* The GPU model rank @r runs on, or NULL (an abstract cluster records none). */
static const weft_hw_gpu_t *
rank_gpu_model(const weft_scenario_run_t *run, guint r)
{
    return weft_topo_vertex_gpu_model(run->topo, weft_topo_gpu_vertex(run->topo,
                                                                      run->rank_gpu[r]));
}

/* "activations 40.12, optimizer 12.00, ... GiB": rank @rr's bytes at its peak, largest first
 * (what dominated), categories of 0 bytes left out. */
static void
append_breakdown(GString *s, const weft_rank_result_t *rr)
{
    guint order[WEFT_MEM_N_CATS];
    for (guint k = 0; k < WEFT_MEM_N_CATS; k++) {
        order[k] = k;
    }
    for (guint i = 1; i < WEFT_MEM_N_CATS; i++) { /* insertion sort: stable, 5 items */
        for (guint j = i; j > 0 && rr->mem_at_peak[order[j]] > rr->mem_at_peak[order[j - 1]];
             j--) {
            guint x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    }
    gboolean first = TRUE;
    for (guint i = 0; i < WEFT_MEM_N_CATS; i++) {
        guint64 b = rr->mem_at_peak[order[i]];
        if (b > 0) {
            g_string_append_printf(s, "%s%s %.2f", first ? "" : ", ",
                                   weft_mem_cat_name((weft_mem_cat_t)order[i]), b / GIB);
            first = FALSE;
        }
    }
    g_string_append(s, " GiB");
}

/*
 * The fit check (memory.oom): the ranks whose peak exceeds their GPU's HBM. Returns NULL when
 * every rank fits (or memory or the GPUs are unknown), else the text naming the worst rank,
 * when it peaked and what dominated, and how many ranks do not fit.
 */
static char *
mem_oom_text(const weft_scenario_run_t *run, weft_gen_oom_t policy)
{
    const weft_replay_result_t *res = run->replay;
    if (!res->mem_known) {
        return NULL;
    }
    guint over = 0, worst = 0;
    double worst_excess = 0;
    for (guint r = 0; r < res->n_ranks; r++) {
        const weft_hw_gpu_t *gpu = rank_gpu_model(run, r);
        double excess = gpu != NULL ? (double)res->ranks[r].mem_peak_bytes - gpu->hbm_bytes : 0;
        if (excess > 0) {
            if (over == 0 || excess > worst_excess) {
                worst = r;
                worst_excess = excess;
            }
            over++;
        }
    }
    if (over == 0) {
        return NULL;
    }
    const weft_rank_result_t *rr = &res->ranks[worst];
    const weft_hw_gpu_t *gpu = rank_gpu_model(run, worst);
    GString *s = g_string_new(NULL);
    g_string_append_printf(s,
                           "out of memory: rank %u peaks at %.2f GiB at %.6f us, above the %.2f "
                           "GiB of %s's HBM by %.2f GiB (",
                           worst, rr->mem_peak_bytes / GIB, weft_time_to_us(rr->mem_peak_ps),
                           gpu->hbm_bytes / GIB, gpu->name, worst_excess / GIB);
    append_breakdown(s, rr);
    g_string_append_printf(s, "); %u of %u ranks do not fit (memory.oom = %s)", over,
                           res->n_ranks, weft_enum_name(&weft_gen_oom_enum, (gint)policy));
    return g_string_free(s, FALSE);
}

/* Rank rows the summary prints when a report gives the distribution instead. */
#define SUMMARY_MAX_RANK_ROWS 64

char *
weft_scenario_run_summary(const weft_scenario_run_t *run)
{
    g_return_val_if_fail(run != NULL, NULL);
    const weft_replay_result_t *res = run->replay;
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "cluster      %s (%u GPUs, %u vertices, %u directed links)\n",
                           run->cluster_label, weft_topo_n_gpus(run->topo),
                           weft_topo_n_vertices(run->topo), weft_topo_n_edges(run->topo));
    g_string_append_printf(s, "workload     %s (%u rank%s, %" G_GUINT64_FORMAT " nodes)\n",
                           run->trace_label, run->workload->n_ranks,
                           run->workload->n_ranks == 1 ? "" : "s",
                           weft_workload_node_count(run->workload));
    g_string_append_printf(s, "placement    %s\n", run->placement);
    if (run->nccl_tuning && !run->chunks_given && run->nccl_version != WEFT_NCCL_2_20_3) {
        g_string_append_printf(
            s, "network      %s, chunks per collective as NCCL %s's tuning chooses\n",
            run->network_model, weft_coll_nccl_version_name(run->nccl_version));
    } else if (run->nccl_tuning && !run->chunks_given) {
        g_string_append_printf(s,
                               "network      %s, chunks per collective as NCCL's tuning chooses\n",
                               run->network_model);
    } else {
        g_string_append_printf(s, "network      %s, %u chunk(s) per collective%s\n",
                               run->network_model, run->chunks,
                               run->nccl_tuning ? " (forced over NCCL's tuning)"
                               : run->abstract && run->plain_forced != NULL
                                   ? ", plain model (an abstract cluster: no NVLink, no NICs; "
                                     "collectives.tuning)"
                               : run->abstract ? ", plain rings (an abstract cluster: no NVLink, "
                                                 "no NICs; collectives.tuning)"
                                               : "");
        if (run->plain_forced != NULL) {
            g_string_append_printf(s, "algorithms   %s (forced; the plain model's default: ring)\n",
                                   run->plain_forced);
        }
    }
    g_string_append_printf(s,
                           "collectives  %" G_GUINT64_FORMAT
                           ", point-to-point transfers %" G_GUINT64_FORMAT
                           ", events %" G_GUINT64_FORMAT "\n",
                           res->collectives, res->p2p_transfers, res->events);
    if (run->coarse_asked && run->coarse_skipped != NULL) {
        g_string_append_printf(s, "coarse       not applied: %s\n", run->coarse_skipped);
    } else if (run->coarse_asked) {
        /* collectives.detail = coarse: an approximation (doc/replay.md) */
        g_string_append_printf(s,
                               "coarse       %" G_GUINT64_FORMAT
                               " collective(s) ran as one aggregate flow (collectives.detail = "
                               "coarse, approximate)\n",
                               res->coarse_collectives);
    }
    g_string_append_printf(s, "step time    %.6f us\n", weft_time_to_us(res->step_ps));
    if (!res->mem_known) {
        g_string_append(s, "memory       unknown: the workload carries no memory sizes (weft "
                           "gen's steps do; doc/memory.md)\n");
    } else {
        guint r = mem_peak_rank(res);
        const weft_rank_result_t *rr = &res->ranks[r];
        const weft_hw_gpu_t *gpu = rank_gpu_model(run, r);
        g_string_append_printf(s, "memory       peak %.2f GiB on rank %u at %.6f us", 
                               rr->mem_peak_bytes / GIB, r, weft_time_to_us(rr->mem_peak_ps));
        if (gpu != NULL) {
            g_string_append_printf(s, " of %.2f GiB HBM (%s)", gpu->hbm_bytes / GIB, gpu->name);
        } else {
            g_string_append(s, " (HBM unknown: the cluster records no GPU model)");
        }
        g_string_append(s, ": ");
        append_breakdown(s, rr);
        g_string_append_c(s, '\n');
    }
    for (guint i = 0; res->faults_applied != NULL && i < res->faults_applied->len; i++) {
        g_string_append_printf(s, "fault        %s\n",
                               (const char *)g_ptr_array_index(res->faults_applied, i));
    }
    if (run->jobs != NULL) {
        /* per job: its time, and its slowdown against running alone (scenario/jobs.h) */
        g_autofree char *jobs = weft_jobs_summary(run->jobs);
        g_string_append(s, jobs);
    }
    /* what the reader worked around in the trace (workload.h): said once, here */
    const GPtrArray *warnings = run->workload->warnings;
    for (guint i = 0; warnings != NULL && i < warnings->len; i++) {
        g_string_append_printf(s, "warning      %s\n",
                               (const char *)g_ptr_array_index(warnings, i));
    }
    g_string_append_c(s, '\n');
    /* With a report, large runs get the per-rank distribution instead of one line per rank. */
    if (run->report != NULL && res->n_ranks > SUMMARY_MAX_RANK_ROWS) {
        g_string_append_printf(s, "(%u ranks: one row per rank in ranks.csv with --out DIR)\n",
                               res->n_ranks);
        g_autofree char *more = weft_report_summary_text(run->report);
        g_string_append(s, more);
        append_top_layers(s, run);
        return g_string_free(s, FALSE);
    }
    g_string_append_printf(s, "%6s %16s %16s %20s %16s\n", "rank", "finish_us", "compute_us",
                           "exposed_comm_us", "idle_us");
    for (guint r = 0; r < res->n_ranks; r++) {
        const weft_rank_result_t *rr = &res->ranks[r];
        g_string_append_printf(s, "%6u %16.6f %16.6f %20.6f %16.6f\n", r,
                               weft_time_to_us(rr->finish_ps), weft_time_to_us(rr->compute_ps),
                               weft_time_to_us(rr->exposed_comm_ps), weft_time_to_us(rr->idle_ps));
    }
    if (run->report != NULL) {
        g_autofree char *more = weft_report_summary_text(run->report);
        g_string_append(s, more);
    }
    append_top_layers(s, run);
    return g_string_free(s, FALSE);
}

/*
 * The plain model's forced algorithms (collectives.tuning = off, or auto on an abstract
 * cluster): ring, tree, halving_doubling and direct have flat plans and run as asked; the
 * algorithms that need the communicator's layout on the cluster (nvls, nvls_tree, collnet,
 * hierarchical) and forced protocols (the plain model has none) are refused with the key,
 * never ignored. Fills @algo per operation and *@text ("all_reduce halving_doubling"),
 * NULL when nothing is forced.
 */
static gboolean
plain_forced(const weft_coll_settings_t *cs, weft_coll_algo_t *algo, char **text, GError **error)
{
    const char *why_plain = cs->tuning == WEFT_COLL_TUNING_OFF
                                ? "collectives.tuning = off"
                                : "collectives.tuning = auto on an abstract cluster";
    GString *desc = g_string_new(NULL);
    for (guint k = 0; k < WEFT_COLL_N_KEY_OPS; k++) {
        weft_coll_op_t op = weft_coll_key_op((weft_coll_key_op_t)k);
        if (cs->proto[k] != WEFT_COLL_PROTO_AUTO) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "collectives.%s = %s: the plain model (%s) has no protocols; set "
                        "collectives.tuning = nccl to run NCCL's protocols",
                        weft_coll_key_op_row((weft_coll_key_op_t)k, TRUE)->key,
                        weft_enum_name(&weft_coll_proto_enum, (gint)cs->proto[k]), why_plain);
            g_string_free(desc, TRUE);
            return FALSE;
        }
        weft_coll_algo_t a = cs->algo[k];
        if (a == WEFT_COLL_ALGO_AUTO) {
            continue;
        }
        if (a != WEFT_COLL_ALGO_RING && a != WEFT_COLL_ALGO_TREE && a != WEFT_COLL_ALGO_DIRECT &&
            a != WEFT_COLL_ALGO_HALVING_DOUBLING) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "collectives.%s = %s: the plain model (%s) runs ring, tree and "
                        "halving_doubling (direct for all-to-all, gather and scatter); %s needs "
                        "NCCL's tuning over the cluster's NVSwitches and switches "
                        "(collectives.tuning = nccl)",
                        weft_coll_key_op_row((weft_coll_key_op_t)k, FALSE)->key,
                        weft_coll_algo_name(a), why_plain, weft_coll_algo_name(a));
            g_string_free(desc, TRUE);
            return FALSE;
        }
        g_string_append_printf(desc, "%s%s %s", desc->len > 0 ? ", " : "", weft_coll_op_name(op),
                               weft_coll_algo_name(a));
    }
    /* the same forced choice for the operations that share each key */
    weft_coll_tuning_t t;
    weft_coll_settings_tuning(cs, &t);
    for (guint op = 0; op < WEFT_COLL_N_OPS; op++) {
        algo[op] = t.algo[op];
    }
    *text = desc->len > 0 ? g_string_free(desc, FALSE) : (g_string_free(desc, TRUE), NULL);
    return TRUE;
}

/*
 * The workload of a checked scenario on a cluster of @n_gpus GPUs: the trace,
 * the [transformer] step generated in memory (an unset dp fills the cluster) or
 * the one-collective workload. *@label gets its name for the report.
 */
weft_workload_t *
weft_scenario_i_load_workload(const weft_scenario_t *sc, weft_scenario_config_t *cfg,
                              const weft_topo_t *topo, guint n_gpus, char **label,
                              GError **error)
{
    const char *where = sc->source != NULL ? sc->source : "scenario";
    g_autoptr(GError) werr = NULL;
    const weft_scenario_workload_t *w = &cfg->workload;
    if (w->trace != NULL) {
        *label = g_strdup(weft_scenario_i_given(sc, "workload", "trace"));
        if (w->comm_groups == NULL && weft_gen_is_spec(w->trace)) {
            /* a generator spec: its step computes on the cluster's GPUs, as [transformer] */
            const weft_hw_gpu_t *model = weft_topo_gpu_model(topo, &werr);
            if (werr != NULL) {
                g_propagate_error(error, g_steal_pointer(&werr));
                return NULL;
            }
            return weft_gen_load_spec_on(w->trace, model, weft_topo_name(topo), error);
        }
        g_autoptr(weft_workload_t) wl = NULL;
        if (w->comm_groups == NULL && weft_topo_is_abstract(topo) &&
            !g_file_test(w->trace, G_FILE_TEST_IS_DIR) && weft_workload_is_text(w->trace)) {
            /* an ASTRA-sim 1.0 text workload on an ASTRA-sim network runs on every NPU, as
             * ASTRA-sim runs it, unless its header says all_gpus (doc/workloads.md) */
            wl = weft_workload_load_text(w->trace, n_gpus, error);
        } else {
            wl = weft_workload_load_chakra(w->trace, w->comm_groups, error);
        }
        if (wl == NULL) {
            return NULL;
        }
        /* the sizes the trace lacks (a one-rank PyTorch trace), and a warning if none is known */
        g_autoptr(GArray) sizes = NULL;
        if (w->pg_size != NULL && !weft_workload_parse_pg_sizes(w->pg_size, &sizes, error)) {
            return NULL;
        }
        if (!weft_workload_set_groups(wl, w->replicate_given ? w->replicate : 0, sizes, error)) {
            return NULL;
        }
        /* compute nodes with num_ops / tensor_size but no duration: a roofline on the GPU
         * (a cluster of mixed models has none to use: the warning says so) */
        if (cfg->system_file == NULL) {
            /* (with a system file, its roofline-enabled decides: weft_scenario_i_run) */
            const weft_hw_gpu_t *gpu = weft_topo_gpu_model(topo, &werr);
            g_clear_error(&werr);
            weft_workload_roofline(wl, gpu);
        }
        return g_steal_pointer(&wl);
    }
    if (w->collective != NULL) {
        weft_coll_op_t op = w->collective_op;
        guint n_ranks = w->collective_ranks_given ? w->collective_ranks : n_gpus;
        weft_workload_t *wl = weft_workload_collective(op, w->collective_bytes,
                                                       w->collective_iterations, n_ranks, &werr);
        if (wl == NULL) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "%s: workload.collective: %s", where, werr->message);
            return NULL;
        }
        *label = g_strdup_printf("%s of %s x %u on %u ranks", weft_coll_op_name(op),
                                 op == WEFT_COLL_BARRIER
                                     ? "0 B"
                                     : weft_scenario_i_text(sc, "workload", "collective_bytes"),
                                 w->collective_iterations, n_ranks);
        return wl;
    }
    /* [transformer]: the resolved spec, generated on the cluster's GPUs (their model too). */
    const char *origin = sc->source != NULL ? sc->source : "[transformer]";
    const weft_hw_gpu_t *model = weft_topo_gpu_model(topo, &werr);
    if (werr != NULL || !weft_gen_spec_use_cluster_gpu(&cfg->transformer, model,
                                                       weft_topo_name(topo), origin, &werr)) {
        g_set_error_literal(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE, werr->message);
        return NULL;
    }
    g_autofree char *first = weft_scenario_i_transformer_label(sc);
    GString *text = g_string_new(first);
    weft_workload_t *wl = weft_gen_spec_generate(&cfg->transformer, n_gpus, origin, &werr);
    if (wl == NULL) {
        g_string_free(text, TRUE);
        g_set_error_literal(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE, werr->message);
        return NULL;
    }
    if (!cfg->transformer.dp_given) {
        const weft_gen_config_t *c = &cfg->transformer.c;
        guint64 per_replica = (guint64)c->tp * c->pp * c->cp;
        g_string_append_printf(text, " dp=%" G_GUINT64_FORMAT " (from the cluster)",
                               wl->n_ranks / per_replica);
    }
    *label = g_string_free(text, FALSE);
    return wl;
}

weft_scenario_run_t *
weft_scenario_run(const weft_scenario_t *sc, GError **error)
{
    return weft_scenario_run_full(sc, NULL, error);
}

/* The report's options from [output]; FALSE if none asks for one. */
static gboolean
report_options(const weft_scenario_output_t *o, weft_report_options_t *ro)
{
    memset(ro, 0, sizeof *ro);
    ro->timeline = o->timeline != NULL;
    ro->timeline_ranks = o->timeline_ranks;
    ro->window_start_ps = o->window_start_ps;
    ro->window_end_ps = o->window_end_ps;
    ro->link_interval_ps = o->link_interval_ps;
    return ro->timeline || ro->link_interval_ps > 0;
}

/*
 * weft_scenario_run_full(), or with @alone_job >= 0 (workload.jobs) the run of that job
 * alone, on its GPUs, the other jobs absent: nothing written, no report, no progress.
 */
static weft_scenario_run_t *
run_full(const weft_scenario_t *sc, const weft_scenario_run_options_t *ropts, gint alone_job,
         GError **error)
{
    if (!weft_scenario_check(sc, error)) {
        return NULL;
    }
    /* the configuration, resolved once into typed structs (checked when set) */
    weft_scenario_config_t cfg;
    if (!weft_scenario_resolve(sc, &cfg, error)) {
        return NULL;
    }
    const char *out_dir = alone_job < 0 ? cfg.output.dir : NULL;
    if (out_dir != NULL && !prepare_output_dir(out_dir, error)) {
        return NULL;
    }
    /* the effective configuration first: a run killed before its end (a batch system's time
     * limit) leaves in output.dir what it was running; the results follow at the end */
    if (out_dir != NULL) {
        g_autofree char *ini = weft_scenario_to_ini(sc);
        if (!write_output(out_dir, "scenario.ini", ini, error)) {
            return NULL;
        }
    }
    const char *timeline = alone_job < 0 ? cfg.output.timeline : NULL;
    if (timeline != NULL && !prepare_output_file(timeline, "timeline", error)) {
        return NULL;
    }
    weft_report_options_t rep_opts;
    gboolean want_report =
        (report_options(&cfg.output, &rep_opts) || (ropts != NULL && ropts->report)) &&
        alone_job < 0;

    g_autoptr(weft_scenario_run_t) run = g_new0(weft_scenario_run_t, 1);
    if (ropts != NULL && ropts->cluster != NULL) {
        run->topo = ropts->cluster; /* shared: not ours to free */
    } else {
        run->topo = run->topo_owned = weft_scenario_build_cluster(sc, error);
        if (run->topo == NULL) {
            return NULL;
        }
    }
    /* what this run changes about the cluster (ECMP seed, faults' link state, routes) */
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(run->topo);
    weft_fabric_set_ecmp_seed(fabric, (guint64)cfg.ecmp_seed);

    if (cfg.workload.jobs != NULL) {
        /* several jobs: one merged workload, each job on its own GPUs (scenario/jobs.h) */
        run->jobs = weft_jobs_load(cfg.workload.jobs, cfg.workload.jobs_placement, error);
        if (run->jobs == NULL ||
            !weft_jobs_build(run->jobs, run->topo, alone_job, &run->workload, &run->rank_gpu,
                             &run->trace_label, &run->placement, error)) {
            return NULL;
        }
    } else {
        run->workload = weft_scenario_i_load_workload(sc, &cfg, run->topo,
                                                      weft_topo_n_gpus(run->topo),
                                                      &run->trace_label, error);
    }
    if (run->workload == NULL) {
        return NULL;
    }
    if (run->jobs != NULL && alone_job < 0 && weft_jobs_n(run->jobs) > 1 &&
        cfg.network.model == WEFT_NET_ANALYTICAL) {
        /* the analytical model shares only endpoint ports: jobs on different GPUs never meet */
        if (run->workload->warnings == NULL) {
            run->workload->warnings = g_ptr_array_new_with_free_func(g_free);
        }
        g_ptr_array_add(run->workload->warnings,
                        g_strdup("several jobs under the analytical model, which shares only "
                                 "the endpoints' ports: jobs on their own GPUs do not slow each "
                                 "other; --network flow shares every link (network.model)"));
    }
    if (!weft_workload_check(run->workload, weft_topo_n_gpus(run->topo), error)) {
        /* a trace's message names its files; a generated workload's says which keys */
        if (cfg.workload.trace == NULL) {
            g_prefix_error(error, "workload %s%s: ", run->trace_label,
                           cfg.workload.collective != NULL ? " (workload.collective_ranks)" : "");
        }
        return NULL;
    }

    if (run->rank_gpu == NULL) {
        run->rank_gpu = weft_topo_place(run->topo, run->workload->n_ranks, cfg.placement.policy,
                                        (guint64)cfg.placement.seed, cfg.placement.file, error);
    }
    if (run->rank_gpu == NULL) {
        return NULL;
    }
    guint n_gpus = weft_topo_n_gpus(run->topo);
    if (weft_topo_is_abstract(run->topo) && cfg.workload.trace != NULL &&
        run->workload->n_ranks < n_gpus) {
        /* weft runs a workload on the first GPUs of a larger cluster (doc/replay.md); on an
         * ASTRA-sim network that is a difference a peer's user would not expect */
        if (run->workload->warnings == NULL) {
            run->workload->warnings = g_ptr_array_new_with_free_func(g_free);
        }
        gboolean text = !g_file_test(cfg.workload.trace, G_FILE_TEST_IS_DIR) &&
                        weft_workload_is_text(cfg.workload.trace);
        g_ptr_array_add(run->workload->warnings,
                        g_strdup_printf("the trace has %u rank%s and the network %u NPUs: weft "
                                        "runs the ranks on %u of them and leaves %u idle (%s)",
                                        run->workload->n_ranks,
                                        run->workload->n_ranks == 1 ? "" : "s", n_gpus,
                                        run->workload->n_ranks, n_gpus - run->workload->n_ranks,
                                        text ? "its header's all_gpus says so; without it the "
                                               "workload runs on every NPU, as in ASTRA-sim 1.0"
                                             : "ASTRA-sim stops: it opens one trace file per "
                                               "NPU, Workload.cc at 518bd513"));
    }
    if (want_report) {
        g_autoptr(GError) rerr = NULL;
        run->report = weft_report_new(run->topo, run->workload, run->rank_gpu, &rep_opts, &rerr);
        if (run->report == NULL) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "output.timeline_ranks = \"%s\": %s", cfg.output.timeline_ranks,
                        rerr->message);
            return NULL;
        }
    }

    weft_net_options_t net_opts = cfg.network;
    if (net_opts.model == WEFT_NET_FLOW && net_opts.congestion == WEFT_NET_CONGESTION_NONE) {
        g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                    "network.congestion = none: the flow model shares every link; none is "
                    "the analytical model's (network.model = analytical)");
        return NULL;
    }
    run->network_model = g_strdup(weft_net_model_name(net_opts.model));
    const weft_coll_settings_t *cs = &cfg.collectives;
    run->chunks = cs->chunks_given ? cs->chunks : 1;
    run->nccl_tuning = cs->tuning == WEFT_COLL_TUNING_NCCL ||
                       (cs->tuning == WEFT_COLL_TUNING_AUTO && !weft_topo_is_abstract(run->topo));
    if (cfg.system_file != NULL) {
        /* ASTRA-sim's system layer decides the collectives: NCCL's model would decide
         * them otherwise, so the two cannot both apply */
        if (cs->tuning == WEFT_COLL_TUNING_NCCL) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                        "system.file = \"%s\": ASTRA-sim's system decides the collectives, "
                        "collectives.tuning = nccl too; set one of them (collectives.tuning = off "
                        "or auto lets the system file decide)",
                        weft_scenario_i_given(sc, "system", "file"));
            return NULL;
        }
        g_autoptr(GPtrArray) warns = NULL;
        run->astra = weft_astra_system_load(cfg.system_file, &warns, error);
        if (run->astra == NULL || !weft_workload_astra_custom_plans(run->astra, error)) {
            return NULL;
        }
        if (run->workload->warnings == NULL) {
            run->workload->warnings = g_ptr_array_new_with_free_func(g_free);
        }
        for (guint i = 0; i < warns->len; i++) {
            g_ptr_array_add(run->workload->warnings, g_strdup(g_ptr_array_index(warns, i)));
        }
        guint n_dims = 0;
        const guint *dims = weft_topo_astra_dims(run->topo, &n_dims);
        g_autoptr(GPtrArray) net_warns = NULL;
        if (!weft_astra_system_check_network(run->astra, dims, n_dims, &net_warns, error)) {
            return NULL;
        }
        for (guint i = 0; i < net_warns->len; i++) {
            g_ptr_array_add(run->workload->warnings, g_strdup(g_ptr_array_index(net_warns, i)));
        }
        if (cfg.workload.trace != NULL && !weft_gen_is_spec(cfg.workload.trace)) {
            /* compute as the system file says: ASTRA-sim's roofline on every GPU compute
             * node, or the trace's durations, with weft's GPU roofline for nodes that have
             * none (as without a system file) */
            if (run->astra->roofline_enabled) {
                if (!run->astra->peak_perf_given || !run->astra->local_mem_bw_given) {
                    g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE,
                                "%s: roofline-enabled needs peak-perf and local-mem-bw (ASTRA-sim "
                                "reads both for its roofline, Sys.cc)",
                                run->astra->path);
                    return NULL;
                }
                weft_workload_astra_roofline(run->workload, run->astra->peak_perf_TFLOPs * 1e12,
                                             run->astra->local_mem_bw_GBps * 1e9,
                                             run->astra->path);
            } else {
                g_autoptr(GError) gerr = NULL;
                weft_workload_roofline(run->workload, weft_topo_gpu_model(run->topo, &gerr));
            }
        }
        run->nccl_tuning = FALSE;
    }
    run->chunks_given = cs->chunks_given;
    run->nccl_version = cs->nccl_version;
    run->abstract = !run->nccl_tuning && cs->tuning == WEFT_COLL_TUNING_AUTO;
    run->duration_scale = cfg.replay.duration_scale;
    if (run->placement == NULL) {
        run->placement = placement_text(&cfg.placement);
    }
    const char *file = cfg.cluster_file;
    run->cluster_label = file != NULL ? g_strdup(weft_scenario_i_given(sc, "cluster", "file"))
                                      : g_strdup_printf("%s (inline)", weft_topo_name(run->topo));

    weft_coll_tuning_t tuning = {0};
    weft_coll_settings_tuning(cs, &tuning);
    weft_coll_algo_t plain_algo[WEFT_COLL_N_OPS] = {0};
    if (!run->nccl_tuning && !plain_forced(cs, plain_algo, &run->plain_forced, error)) {
        return NULL;
    }
    g_autoptr(weft_fault_plan_t) faults = NULL;
    if (cfg.faults_file != NULL || cfg.faults_events != NULL) {
        faults = weft_fault_plan_new(run->topo);
        if ((cfg.faults_file != NULL &&
             !weft_fault_plan_add_file(faults, cfg.faults_file, error)) ||
            (cfg.faults_events != NULL &&
             !weft_fault_plan_add_text(faults, cfg.faults_events, "faults.events", TRUE, error))) {
            return NULL;
        }
    }
    /* collectives.detail = auto runs lone collectives as one timed event; faults and link
     * time series need every transfer (replay.h). A run that finds a timed collective not
     * alone names its shape and is run again without timing that shape: at most one rerun
     * per shape, bounded here all the same. */
    gboolean coarse = cfg.replay.detail == WEFT_REPLAY_DETAIL_COARSE;
    gboolean flow = net_opts.model == WEFT_NET_FLOW;
    run->coarse_asked = coarse;
    if (coarse && !flow) {
        run->coarse_skipped = "under analytical every collective it could aggregate is timed "
                              "exactly (as collectives.detail = auto)";
    } else if (coarse && faults != NULL) {
        run->coarse_skipped = "faults simulate every transfer";
    } else if (coarse && run->report != NULL && rep_opts.link_interval_ps > 0) {
        run->coarse_skipped = "link time series simulate every transfer";
    }
    weft_replay_detail_t detail =
        (coarse || cfg.replay.detail == WEFT_REPLAY_DETAIL_AUTO) && faults == NULL &&
                !(run->report != NULL && rep_opts.link_interval_ps > 0 && flow)
            ? (coarse ? WEFT_REPLAY_DETAIL_COARSE : WEFT_REPLAY_DETAIL_AUTO)
            : WEFT_REPLAY_DETAIL_TRANSFERS;
    g_autoptr(GHashTable) banned =
        g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
    g_autoptr(weft_sim_t) sim = NULL;
    g_autoptr(weft_net_t) net = NULL;
    for (guint attempt = 0;; attempt++) {
        g_clear_pointer(&net, weft_net_free);
        g_clear_pointer(&sim, weft_sim_free);
        if (attempt > 0 && run->report != NULL) {
            weft_report_free(run->report);
            run->report = weft_report_new(run->topo, run->workload, run->rank_gpu, &rep_opts, NULL);
            g_assert(run->report != NULL); /* the same options made one before */
        }
        /* The simulation's own random stream is seeded with 1: nothing in an
         * analytical replay draws from it, and placement and ECMP have their own
         * seeds (workload.placement_seed, network.ecmp_seed). */
        sim = weft_sim_new(1);
        net = weft_net_new_full(sim, fabric, &net_opts);
        weft_replay_options_t opts = {
            .coll_chunks = run->chunks,
            .rank_gpu = run->rank_gpu,
            .compute_scale = run->duration_scale,
            .sm_contention = cfg.replay.sm_contention,
            .faults = faults,
            .collective_detail = attempt < 64 ? detail : WEFT_REPLAY_DETAIL_TRANSFERS,
            .comm_streams = cfg.replay.streams,
            .detail_banned = banned,
            .astra = run->astra,
            .rank_start_ps = run->jobs != NULL ? weft_jobs_rank_start(run->jobs) : NULL,
        };
        memcpy(opts.plain_algo, plain_algo, sizeof plain_algo);
        if (run->nccl_tuning) {
            opts.coll_tuning = &tuning;
        }
        if (run->report != NULL) {
            opts.observer = weft_report_observer(run->report);
            weft_report_attach(run->report, net);
        }
        if (run->jobs != NULL) {
            /* the jobs' iteration ends (only jobs of several iterations have them to watch) */
            opts.observer = weft_jobs_observer(run->jobs, opts.observer);
        }
        if (ropts != NULL && ropts->progress != NULL) {
            weft_report_progress_attach(ropts->progress, sim); /* lines on stderr (src/report) */
        }
        GError *rerr = NULL;
        run->replay = weft_replay_run(sim, net, run->workload, &opts, &rerr);
        weft_sim_set_progress(sim, 0, NULL, NULL);
        weft_progress_finish(ropts != NULL ? ropts->progress : NULL);
        if (run->replay == NULL &&
            g_error_matches(rerr, WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_DETAIL_CONFLICT)) {
            g_debug("%s", rerr->message);
            g_error_free(rerr);
            continue;
        }
        if (run->replay == NULL) {
            g_propagate_error(error, rerr);
            return NULL;
        }
        break;
    }
    if (run->jobs != NULL) {
        weft_jobs_finish(run->jobs, net, run->replay);
    }
    if (run->jobs != NULL && alone_job < 0 && weft_jobs_alone_wanted(run->jobs)) {
        /* each job alone, on the same cluster and GPUs: its time without the others */
        weft_scenario_run_options_t alone_opts = {.cluster = run->topo};
        for (guint j = 0; j < weft_jobs_n(run->jobs); j++) {
            g_autoptr(weft_scenario_run_t) alone = run_full(sc, &alone_opts, (gint)j, error);
            if (alone == NULL) {
                g_prefix_error(error, "job %s run alone: ", weft_jobs_name(run->jobs, j));
                return NULL;
            }
            weft_jobs_set_alone(run->jobs, j, alone->jobs);
        }
    }
    /* the fit check: the replay's peaks against each rank's HBM (memory.oom) */
    {
        char *oom = mem_oom_text(run, cfg.transformer.oom);
        if (oom != NULL && cfg.transformer.oom == WEFT_GEN_OOM_ERROR) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE, "%s: %s",
                        run->trace_label, oom);
            g_free(oom);
            return NULL;
        }
        if (oom != NULL) {
            if (run->workload->warnings == NULL) {
                run->workload->warnings = g_ptr_array_new_with_free_func(g_free);
            }
            g_ptr_array_add(run->workload->warnings, oom);
        }
    }
    if (run->report != NULL) {
        g_autofree char *ini = weft_scenario_to_ini(sc);
        weft_report_meta_t meta = {
            .cluster = run->cluster_label,
            .workload = run->trace_label,
            .placement = run->placement,
            .network_model = run->network_model,
            .network_update = weft_net_update_name(net_opts.update),
            /* what ran: auto resolves to nccl or (an abstract cluster) off */
            .collective_tuning = run->nccl_tuning ? "nccl" : "off",
            /* 0: NCCL's tuning chose the chunks of each collective (collectives.csv) */
            .chunks = run->nccl_tuning && !run->chunks_given ? 0 : run->chunks,
            .sim_seed = weft_sim_seed(sim),
            .placement_seed = (guint64)cfg.placement.seed,
            .ecmp_seed = (guint64)cfg.ecmp_seed,
            .config_ini = ini,
        };
        weft_report_finish(run->report, net, run->replay);
        weft_report_set_meta(run->report, &meta);
    }

    if (out_dir != NULL) {
        g_autofree char *csv = ranks_csv(run);
        g_autofree char *layers = layers_csv(run);
        g_autofree char *summary = weft_scenario_run_summary(run);
        if (!write_output(out_dir, "ranks.csv", csv, error) ||
            !write_output(out_dir, "layers.csv", layers, error) ||
            !write_output(out_dir, "summary.txt", summary, error)) {
            return NULL;
        }
        if (run->jobs != NULL) {
            g_autofree char *jobs_csv = weft_jobs_csv(run->jobs);
            g_autofree char *links_csv = weft_jobs_links_csv(run->jobs);
            if (!write_output(out_dir, "jobs.csv", jobs_csv, error) ||
                !write_output(out_dir, "jobs_links.csv", links_csv, error)) {
                return NULL;
            }
        }
        g_autoptr(GError) rerr = NULL;
        if (run->report != NULL && !weft_report_write_files(run->report, out_dir, &rerr)) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO, "%s", rerr->message);
            return NULL;
        }
    }
    if (timeline != NULL) {
        g_autoptr(GError) rerr = NULL;
        if (!weft_report_write_timeline(run->report, timeline, &rerr)) {
            g_set_error(error, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO, "%s", rerr->message);
            return NULL;
        }
    }
    return g_steal_pointer(&run);
}

weft_scenario_run_t *
weft_scenario_run_full(const weft_scenario_t *sc, const weft_scenario_run_options_t *ropts,
                       GError **error)
{
    g_return_val_if_fail(sc != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    return run_full(sc, ropts, -1, error);
}

void
weft_scenario_run_free(weft_scenario_run_t *run)
{
    if (run == NULL) {
        return;
    }
    weft_report_free(run->report); /* points to the workload and cluster */
    weft_replay_result_free(run->replay);
    g_free(run->rank_gpu);
    weft_workload_free(run->workload);
    weft_jobs_free(run->jobs); /* after the workload, whose names point into the jobs' */
    weft_topo_free(run->topo_owned); /* a lent cluster is its lender's */
    g_free(run->network_model);
    g_free(run->placement);
    g_free(run->plain_forced);
    g_free(run->cluster_label);
    g_free(run->trace_label);
    weft_astra_system_free(run->astra);
    g_free(run);
}
