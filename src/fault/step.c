/* SPDX-License-Identifier: MIT */
/*
 * Faults inside a step (fault/step.h): the fault-line parser, which resolves
 * every target against the cluster so that a bad line fails before anything
 * runs, and the armed run: one simulation event per fault and per undoing,
 * the link state (own down flag, ends' down flags, degrade fraction) pushed to
 * the network, failures that stop the simulation, and straggler windows
 * integrated into compute end times.
 */
#define G_LOG_DOMAIN "weft-fault"

#include "fault/step.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

static const char *const kind_names[WEFT_STEP_N_KINDS] = {
    [WEFT_STEP_LINK_DOWN] = "link_down",
    [WEFT_STEP_LINK_UP] = "link_up",
    [WEFT_STEP_LINK_DEGRADE] = "link_degrade",
    [WEFT_STEP_NIC_DOWN] = "nic_down",
    [WEFT_STEP_NIC_UP] = "nic_up",
    [WEFT_STEP_SWITCH_DOWN] = "switch_down",
    [WEFT_STEP_SWITCH_UP] = "switch_up",
    [WEFT_STEP_STRAGGLER] = "straggler",
    [WEFT_STEP_GPU_FAIL] = "gpu_fail",
    [WEFT_STEP_NODE_FAIL] = "node_fail",
};

/* One fault and the directed edges it acts on (links, NICs, switches). */
typedef struct {
    weft_step_fault_t f;
    GArray *edges; /* gint; NULL for stragglers and failures */
} fault_t;

struct weft_fault_plan {
    const weft_topo_t *topo;
    GPtrArray *faults; /* fault_t, owned */
};

static void
fault_free(gpointer p)
{
    fault_t *ft = p;
    g_free(ft->f.text);
    if (ft->edges != NULL) {
        g_array_unref(ft->edges);
    }
    g_free(ft);
}

weft_fault_plan_t *
weft_fault_plan_new(const weft_topo_t *topo)
{
    g_return_val_if_fail(topo != NULL, NULL);
    weft_fault_plan_t *plan = g_new0(weft_fault_plan_t, 1);
    plan->topo = topo;
    plan->faults = g_ptr_array_new_with_free_func(fault_free);
    return plan;
}

void
weft_fault_plan_free(weft_fault_plan_t *plan)
{
    if (plan == NULL) {
        return;
    }
    g_ptr_array_unref(plan->faults);
    g_free(plan);
}

guint
weft_fault_plan_len(const weft_fault_plan_t *plan)
{
    g_return_val_if_fail(plan != NULL, 0);
    return plan->faults->len;
}

const weft_step_fault_t *
weft_fault_plan_get(const weft_fault_plan_t *plan, guint i)
{
    g_return_val_if_fail(plan != NULL && i < plan->faults->len, NULL);
    return &((const fault_t *)g_ptr_array_index(plan->faults, i))->f;
}

/* ---- parsing ------------------------------------------------------------------------ */

/* Everything one line's parse needs for its messages. */
typedef struct {
    const weft_topo_t *topo;
    const char *origin;
    guint line;
} where_t;

#define FAIL(err, code, w, ...)                                                                    \
    do {                                                                                           \
        g_autofree char *msg_ = g_strdup_printf(__VA_ARGS__);                                      \
        g_set_error(err, WEFT_FAULT_ERROR, code, "%s:%u: %s", (w)->origin, (w)->line, msg_);       \
    } while (0)

/* A vertex by name, or a GPU by `gpu:N`; -1 with an error naming @word. */
static gint
find_vertex(const where_t *w, const char *word, GError **error)
{
    gint v = weft_topo_find_vertex(w->topo, word);
    if (v >= 0) {
        return v;
    }
    if (g_str_has_prefix(word, "gpu:")) {
        guint64 n = 0;
        if (g_ascii_string_to_unsigned(word + 4, 10, 0, G_MAXUINT, &n, NULL) &&
            n < weft_topo_n_gpus(w->topo)) {
            return weft_topo_gpu_vertex(w->topo, (guint)n);
        }
        FAIL(error, WEFT_FAULT_ERROR_KEY, w, "unknown GPU \"%s\": the cluster has GPUs 0 to %u",
             word, weft_topo_n_gpus(w->topo) - 1);
        return -1;
    }
    FAIL(error, WEFT_FAULT_ERROR_KEY, w,
         "unknown vertex \"%s\" in cluster %s (names as `weft topo export` writes them, or gpu:N)",
         word, weft_topo_name(w->topo));
    return -1;
}

/* Every directed edge with @v at one end. */
static GArray *
incident_edges(const weft_topo_t *topo, gint v)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(gint));
    for (guint e = 0; e < weft_topo_n_edges(topo); e++) {
        if (weft_topo_edge_from(topo, (gint)e) == v || weft_topo_edge_to(topo, (gint)e) == v) {
            gint ei = (gint)e;
            g_array_append_val(out, ei);
        }
    }
    return out;
}

static gboolean
parse_fraction(const where_t *w, const char *word, const char *what, double *out, GError **error)
{
    char *end = NULL;
    double f = g_ascii_strtod(word, &end);
    if (end == word || *end != '\0' || !(f > 0.0 && f <= 1.0)) {
        FAIL(error, WEFT_FAULT_ERROR_VALUE, w, "%s \"%s\" is not a number in (0, 1]", what, word);
        return FALSE;
    }
    *out = f;
    return TRUE;
}

/* How many target words (vertices) and values a kind takes. */
static void
kind_shape(weft_step_fault_kind_t k, guint *n_targets, guint *n_values)
{
    *n_targets =
        (k == WEFT_STEP_LINK_DOWN || k == WEFT_STEP_LINK_UP || k == WEFT_STEP_LINK_DEGRADE) ? 2 : 1;
    *n_values = (k == WEFT_STEP_LINK_DEGRADE || k == WEFT_STEP_STRAGGLER) ? 1 : 0;
}

static gboolean
vertex_kind_ok(const where_t *w, weft_step_fault_kind_t k, gint v, const char *word, GError **error)
{
    weft_vertex_kind_t vk = weft_topo_vertex_kind(w->topo, v);
    const char *want = NULL;
    switch (k) {
    case WEFT_STEP_NIC_DOWN:
    case WEFT_STEP_NIC_UP:
        want = vk == WEFT_VERTEX_NIC ? NULL : "a NIC";
        break;
    case WEFT_STEP_SWITCH_DOWN:
    case WEFT_STEP_SWITCH_UP:
        want = vk == WEFT_VERTEX_SWITCH || vk == WEFT_VERTEX_NVSWITCH ? NULL : "a switch";
        break;
    case WEFT_STEP_STRAGGLER:
    case WEFT_STEP_GPU_FAIL:
        want = vk == WEFT_VERTEX_GPU ? NULL : "a GPU";
        break;
    default:
        break;
    }
    if (want != NULL) {
        FAIL(error, WEFT_FAULT_ERROR_KEY, w, "%s needs %s; \"%s\" is a %s", kind_names[k], want,
             word, weft_topo_vertex_kind_name(vk));
        return FALSE;
    }
    return TRUE;
}

/* Parses one non-empty line (comment stripped) into a new fault; NULL with an error. */
static fault_t *
parse_line(const where_t *w, const char *line, GError **error)
{
    g_auto(GStrv) raw = g_strsplit_set(line, " \t", -1);
    g_autoptr(GPtrArray) tok = g_ptr_array_new();
    for (guint i = 0; raw[i] != NULL; i++) {
        if (raw[i][0] != '\0') {
            g_ptr_array_add(tok, raw[i]);
        }
    }
    if (tok->len < 3) {
        FAIL(error, WEFT_FAULT_ERROR_VALUE, w,
             "\"%s\": a fault is TIME KIND TARGET [VALUE] [for DURATION]", line);
        return NULL;
    }
    const char *time_word = g_ptr_array_index(tok, 0);
    const char *kind_word = g_ptr_array_index(tok, 1);
    g_autoptr(GError) uerr = NULL;
    weft_time_t at = 0;
    if (time_word[0] == '-') {
        at = -1; /* the units parser refuses negative times; say what is wrong with this one */
    } else if (!weft_units_parse_time(time_word, &at, &uerr)) {
        FAIL(error, WEFT_FAULT_ERROR_VALUE, w, "time \"%s\": %s", time_word, uerr->message);
        return NULL;
    }
    if (at < 0) {
        FAIL(error, WEFT_FAULT_ERROR_VALUE, w,
             "time \"%s\" is in the past: fault times count from the start of the step (>= 0)",
             time_word);
        return NULL;
    }
    gint kind = -1;
    for (guint k = 0; k < WEFT_STEP_N_KINDS; k++) {
        if (strcmp(kind_word, kind_names[k]) == 0) {
            kind = (gint)k;
        }
    }
    if (kind < 0) {
        g_autofree char *known = g_strjoinv(", ", (char **)kind_names);
        FAIL(error, WEFT_FAULT_ERROR_KEY, w, "unknown fault kind \"%s\"; known: %s", kind_word,
             known);
        return NULL;
    }
    guint n_targets, n_values;
    kind_shape((weft_step_fault_kind_t)kind, &n_targets, &n_values);
    guint need = 2 + n_targets + n_values;
    gboolean has_for = tok->len == need + 2 && strcmp(g_ptr_array_index(tok, need), "for") == 0;
    if (tok->len != need && !has_for) {
        FAIL(error, WEFT_FAULT_ERROR_VALUE, w,
             "\"%s\": %s takes %u target%s%s and an optional `for DURATION`", line, kind_word,
             n_targets, n_targets == 1 ? "" : "s", n_values > 0 ? " and a fraction" : "");
        return NULL;
    }
    g_autoptr(GError) perr = NULL;
    fault_t *ft = g_new0(fault_t, 1);
    ft->f.kind = (weft_step_fault_kind_t)kind;
    ft->f.at_ps = at;
    ft->f.fraction = 1.0;
    ft->f.u = ft->f.v = -1;
    ft->f.text = g_strdup_printf("%s:%u: %s", w->origin, w->line, line);
    gboolean ok = TRUE;
    const char *t0 = g_ptr_array_index(tok, 2);
    if (w->topo == NULL) {
        /* syntax only (weft_fault_check_text()): targets are checked against the cluster */
    } else if (kind == WEFT_STEP_NODE_FAIL) {
        guint64 host = 0;
        if (g_ascii_string_to_unsigned(t0, 10, 0, G_MAXINT, &host, NULL)) {
            ft->f.u = (gint)host;
        } else {
            gint v = find_vertex(w, t0, error);
            ok = v >= 0;
            if (ok) {
                ft->f.u = weft_topo_vertex_host(w->topo, v);
                if (ft->f.u < 0) {
                    FAIL(error, WEFT_FAULT_ERROR_KEY, w, "node_fail: \"%s\" is in no node", t0);
                    ok = FALSE;
                }
            }
        }
        if (ok && (guint)ft->f.u >= weft_topo_n_hosts(w->topo)) {
            FAIL(error, WEFT_FAULT_ERROR_KEY, w, "node_fail: node %s beyond the cluster's %u nodes",
                 t0, weft_topo_n_hosts(w->topo));
            ok = FALSE;
        }
    } else {
        ft->f.u = find_vertex(w, t0, error);
        ok = ft->f.u >= 0 && vertex_kind_ok(w, ft->f.kind, ft->f.u, t0, error);
    }
    if (ok && n_targets == 2 && w->topo != NULL) {
        const char *t1 = g_ptr_array_index(tok, 3);
        ft->f.v = find_vertex(w, t1, error);
        ok = ft->f.v >= 0;
        if (ok) {
            ft->edges = g_array_new(FALSE, FALSE, sizeof(gint));
            if (weft_topo_edges_between(w->topo, ft->f.u, ft->f.v, ft->edges) == 0) {
                FAIL(error, WEFT_FAULT_ERROR_KEY, w,
                     "unknown link %s -- %s: the cluster has no link between them", t0, t1);
                ok = FALSE;
            }
        }
    } else if (ok && w->topo != NULL &&
               (kind == WEFT_STEP_NIC_DOWN || kind == WEFT_STEP_NIC_UP ||
                kind == WEFT_STEP_SWITCH_DOWN || kind == WEFT_STEP_SWITCH_UP)) {
        ft->edges = incident_edges(w->topo, ft->f.u);
    }
    if (ok && n_values == 1) {
        ok = parse_fraction(w, g_ptr_array_index(tok, 2 + n_targets),
                            kind == WEFT_STEP_STRAGGLER ? "speed fraction" : "bandwidth fraction",
                            &ft->f.fraction, error);
    }
    if (ok && has_for) {
        const char *dw = g_ptr_array_index(tok, need + 1);
        weft_time_t d = 0;
        if (!weft_units_parse_time(dw, &d, &perr)) {
            FAIL(error, WEFT_FAULT_ERROR_VALUE, w, "duration \"%s\": %s", dw, perr->message);
            ok = FALSE;
        } else if (d <= 0) {
            FAIL(error, WEFT_FAULT_ERROR_VALUE, w, "duration \"%s\" must be > 0", dw);
            ok = FALSE;
        } else if (kind == WEFT_STEP_LINK_UP || kind == WEFT_STEP_NIC_UP ||
                   kind == WEFT_STEP_SWITCH_UP || kind == WEFT_STEP_GPU_FAIL ||
                   kind == WEFT_STEP_NODE_FAIL) {
            FAIL(error, WEFT_FAULT_ERROR_VALUE, w,
                 "%s takes no `for DURATION` (only down, degrade and straggler faults end)",
                 kind_word);
            ok = FALSE;
        } else if (at > WEFT_TIME_MAX - d) {
            FAIL(error, WEFT_FAULT_ERROR_VALUE, w, "%s for %s ends beyond the time weft can hold",
                 time_word, dw);
            ok = FALSE;
        } else {
            ft->f.for_ps = d;
        }
    }
    if (!ok) {
        fault_free(ft);
        return NULL;
    }
    return ft;
}

/* Parses every line of @text against @topo (NULL: syntax only) into @added. */
static gboolean
parse_text(const weft_topo_t *topo, const char *text, const char *origin, gboolean semicolons,
           GPtrArray *added, GError **error)
{
    g_auto(GStrv) lines = g_strsplit_set(text, semicolons ? "\n;" : "\n", -1);
    where_t w = {topo, origin, 0};
    for (guint i = 0; lines[i] != NULL; i++) {
        w.line = i + 1;
        char *hash = strchr(lines[i], '#');
        if (hash != NULL) {
            *hash = '\0';
        }
        char *line = g_strstrip(lines[i]);
        if (*line == '\0') {
            continue;
        }
        fault_t *ft = parse_line(&w, line, error);
        if (ft == NULL) {
            return FALSE;
        }
        g_ptr_array_add(added, ft);
    }
    return TRUE;
}

gboolean
weft_fault_check_text(const char *text, const char *origin, gboolean semicolons, GError **error)
{
    g_return_val_if_fail(text != NULL && origin != NULL, FALSE);
    g_autoptr(GPtrArray) added = g_ptr_array_new_with_free_func(fault_free);
    return parse_text(NULL, text, origin, semicolons, added, error);
}

/* The down kind an up kind ends (-1 for the other kinds). */
static gint
down_of(weft_step_fault_kind_t k)
{
    return k == WEFT_STEP_LINK_UP     ? WEFT_STEP_LINK_DOWN
           : k == WEFT_STEP_NIC_UP    ? WEFT_STEP_NIC_DOWN
           : k == WEFT_STEP_SWITCH_UP ? WEFT_STEP_SWITCH_DOWN
                                      : -1;
}

/* The key of a down or up fault's target: its down kind and its ends, (u, v) ordered for a
 * link (a link either way round). */
static char *
target_key(gint down_kind, gint u, gint v)
{
    if (down_kind == WEFT_STEP_LINK_DOWN && u > v) {
        gint t = u;
        u = v;
        v = t;
    }
    return g_strdup_printf("%d/%d/%d", down_kind, u, v);
}

/* Records in @first (target key -> earliest at_ps, boxed) the lasting downs of @in. */
static void
note_downs(GHashTable *first, const GPtrArray *in)
{
    for (guint j = 0; j < in->len; j++) {
        const fault_t *d = g_ptr_array_index(in, j);
        gboolean down = d->f.kind == WEFT_STEP_LINK_DOWN || d->f.kind == WEFT_STEP_NIC_DOWN ||
                        d->f.kind == WEFT_STEP_SWITCH_DOWN;
        if (!down || d->f.for_ps != 0) {
            continue;
        }
        char *key = target_key((gint)d->f.kind, d->f.u, d->f.v);
        weft_time_t *at = g_hash_table_lookup(first, key);
        if (at == NULL) {
            at = g_new(weft_time_t, 1);
            *at = d->f.at_ps;
            g_hash_table_insert(first, key, at);
        } else {
            *at = MIN(*at, d->f.at_ps);
            g_free(key);
        }
    }
}

/*
 * An up fault must end a down fault of the same target that starts no later and lasts (has
 * no `for`): otherwise it does nothing, which is not what its writer meant (issue 19, item 8:
 * link_up with no link_down was taken silently). Checks @added against the plan's faults and
 * each other. O(faults) expected (a hash of the lasting downs' targets).
 */
static gboolean
check_ups(const weft_fault_plan_t *plan, const GPtrArray *added, GError **error)
{
    g_autoptr(GHashTable) first = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    gboolean noted = FALSE;
    for (guint i = 0; i < added->len; i++) {
        const fault_t *up = g_ptr_array_index(added, i);
        gint dk = down_of(up->f.kind);
        if (dk < 0) {
            continue;
        }
        if (!noted) {
            note_downs(first, plan->faults);
            note_downs(first, added);
            noted = TRUE;
        }
        g_autofree char *key = target_key(dk, up->f.u, up->f.v);
        const weft_time_t *at = g_hash_table_lookup(first, key);
        if (at == NULL || *at > up->f.at_ps) {
            g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE,
                        "%s: nothing to bring up: no %s of the same target starts by then "
                        "and lasts (one with `for DURATION` ends by itself)",
                        up->f.text, kind_names[dk]);
            return FALSE;
        }
    }
    return TRUE;
}

gboolean
weft_fault_plan_add_text(weft_fault_plan_t *plan, const char *text, const char *origin,
                         gboolean semicolons, GError **error)
{
    g_return_val_if_fail(plan != NULL && text != NULL && origin != NULL, FALSE);
    g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
    g_autoptr(GPtrArray) added = g_ptr_array_new_with_free_func(fault_free);
    if (!parse_text(plan->topo, text, origin, semicolons, added, error) ||
        !check_ups(plan, added, error)) {
        return FALSE;
    }
    for (guint i = 0; i < added->len; i++) {
        g_ptr_array_add(plan->faults, g_ptr_array_index(added, i));
    }
    g_ptr_array_set_free_func(added, NULL);
    return TRUE;
}

gboolean
weft_fault_plan_add_file(weft_fault_plan_t *plan, const char *path, GError **error)
{
    g_return_val_if_fail(plan != NULL && path != NULL, FALSE);
    g_autofree char *text = NULL;
    g_autoptr(GError) ferr = NULL;
    if (!g_file_get_contents(path, &text, NULL, &ferr)) {
        g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_VALUE, "fault file %s: %s", path,
                    ferr->message);
        return FALSE;
    }
    return weft_fault_plan_add_text(plan, text, path, FALSE, error);
}

/* ---- the armed run ------------------------------------------------------------------ */

/* One scheduled action: fault @ft applied (undo FALSE) or undone. */
typedef struct {
    weft_fault_run_t *run;
    const fault_t *ft;
    gboolean undo;
    weft_event_handle_t handle;
} action_t;

/* A straggler window on one GPU: speed @fraction over [start, end). */
typedef struct {
    gint gpu;
    weft_time_t start, end;
    double fraction;
} window_t;

/*
 * One GPU's speed under its straggler windows, piecewise constant: speed[k] over
 * [at[k], at[k + 1]) (the last piece lasts), 1 before at[0]. There is a piece at
 * every window edge, even where the speed does not change, so that integrating
 * piece by piece does the same floating-point steps whatever the other windows are.
 */
typedef struct {
    guint n;
    weft_time_t *at;
    double *speed;
} profile_t;

struct weft_fault_run {
    const weft_fault_plan_t *plan;
    weft_sim_t *sim;
    weft_net_t *net;
    weft_fabric_t *fabric; /* the net's: the link state the faults change */
    action_t *actions;     /* n_actions */
    guint n_actions;
    guint8 *edge_down;   /* per edge: link_down in force */
    guint8 *vertex_down; /* per vertex: nic_down / switch_down in force */
    double *degrade;     /* per edge: degrade fraction */
    GArray *windows;     /* window_t */
    GHashTable *profiles; /* GPU vertex (GINT_TO_POINTER) -> profile_t *, built by arm */
    GError *failure;
    GPtrArray *applied; /* char *, owned */
};

/* Pushes the state of the edges @edges to the network where it changed. */
static void
push_edges(weft_fault_run_t *run, const GArray *edges)
{
    const weft_topo_t *topo = weft_net_topo(run->net);
    for (guint i = 0; i < edges->len; i++) {
        gint e = g_array_index(edges, gint, i);
        gboolean down = run->edge_down[e] || run->vertex_down[weft_topo_edge_from(topo, e)] ||
                        run->vertex_down[weft_topo_edge_to(topo, e)];
        double f = down ? 0.0 : run->degrade[e];
        if (f != weft_fabric_edge_fraction(run->fabric, e)) {
            /* f is in [0, 1] by construction */
            weft_net_set_link_fraction(run->net, e, f, NULL);
        }
    }
}

static void
set_edges(weft_fault_run_t *run, const GArray *edges, guint8 down)
{
    for (guint i = 0; i < edges->len; i++) {
        run->edge_down[g_array_index(edges, gint, i)] = down;
    }
}

static void
on_action(void *ctx, void *data)
{
    (void)data;
    action_t *a = ctx;
    a->handle = 0;
    weft_fault_run_t *run = a->run;
    const weft_step_fault_t *f = &a->ft->f;
    const weft_topo_t *topo = weft_net_topo(run->net);
    weft_time_t now = weft_sim_now(run->sim);
    g_ptr_array_add(run->applied, g_strdup_printf("%.6f us  %s%s", weft_time_to_us(now),
                                                  a->undo ? "end of " : "", f->text));
    g_debug("fault %s%s", a->undo ? "ends: " : "applied: ", f->text);
    switch (f->kind) {
    case WEFT_STEP_LINK_DOWN:
    case WEFT_STEP_LINK_UP:
        set_edges(run, a->ft->edges, (f->kind == WEFT_STEP_LINK_DOWN) != a->undo);
        push_edges(run, a->ft->edges);
        break;
    case WEFT_STEP_LINK_DEGRADE:
        for (guint i = 0; i < a->ft->edges->len; i++) {
            run->degrade[g_array_index(a->ft->edges, gint, i)] = a->undo ? 1.0 : f->fraction;
        }
        push_edges(run, a->ft->edges);
        break;
    case WEFT_STEP_NIC_DOWN:
    case WEFT_STEP_SWITCH_DOWN:
    case WEFT_STEP_NIC_UP:
    case WEFT_STEP_SWITCH_UP:
        run->vertex_down[f->u] =
            (f->kind == WEFT_STEP_NIC_DOWN || f->kind == WEFT_STEP_SWITCH_DOWN) != a->undo;
        push_edges(run, a->ft->edges);
        break;
    case WEFT_STEP_STRAGGLER:
        break; /* windows are known in advance (weft_fault_run_compute_end()) */
    case WEFT_STEP_GPU_FAIL:
    case WEFT_STEP_NODE_FAIL:
        if (run->failure == NULL) {
            if (f->kind == WEFT_STEP_GPU_FAIL) {
                g_set_error(&run->failure, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_FAILED,
                            "GPU %s (node %d) failed at %.6f us (%s): the job stops",
                            weft_topo_vertex_name(topo, f->u), weft_topo_vertex_host(topo, f->u),
                            weft_time_to_us(now), f->text);
            } else {
                g_set_error(&run->failure, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_FAILED,
                            "node %d failed at %.6f us (%s): the job stops", f->u,
                            weft_time_to_us(now), f->text);
            }
        }
        weft_sim_stop(run->sim);
        break;
    default:
        g_assert_not_reached();
    }
}

static void
profile_free(gpointer p)
{
    profile_t *pr = p;
    g_free(pr->at);
    g_free(pr->speed);
    g_free(pr);
}

/* Window indices by GPU, then by index (file order). */
static gint
cmp_window_gpu(gconstpointer a, gconstpointer b, gpointer user_data)
{
    const GArray *windows = user_data;
    guint i = *(const guint *)a, j = *(const guint *)b;
    gint gi = g_array_index(windows, window_t, i).gpu;
    gint gj = g_array_index(windows, window_t, j).gpu;
    return gi != gj ? (gi > gj) - (gi < gj) : (i > j) - (i < j);
}

/* A window edge of one GPU: at @at, the window's leaf @leaf starts (@end FALSE) or ends. */
typedef struct {
    weft_time_t at;
    gboolean end;
    guint leaf;
} edge_t;

/* By time; at one instant starts before ends (a window's own start and end never meet:
 * its length is > 0), then by leaf, so that the order is total. */
static gint
cmp_edge(gconstpointer a, gconstpointer b)
{
    const edge_t *x = a, *y = b;
    if (x->at != y->at) {
        return (x->at > y->at) - (x->at < y->at);
    }
    if (x->end != y->end) {
        return x->end ? 1 : -1;
    }
    return (x->leaf > y->leaf) - (x->leaf < y->leaf);
}

/*
 * The profile of the @m windows @idx[0..m) of one GPU (in file order). The speed of a
 * piece is the product of the fractions of the windows in force, kept in a product tree
 * over the windows in file order (a leaf is its window's fraction while it is in force, 1
 * otherwise), so each edge costs O(log m) and the whole profile O(m log m). Multiplying by
 * 1 is exact, so one or two windows in force give their fraction or their exact product;
 * three or more are multiplied in the tree's pairing, which may differ in the last bit
 * from multiplying them left to right.
 */
static profile_t *
build_profile(const GArray *windows, const guint *idx, guint m)
{
    guint size = 1;
    while (size < m) {
        size *= 2;
    }
    g_autofree double *tree = g_new(double, 2 * (gsize)size);
    for (guint i = 0; i < 2 * size; i++) {
        tree[i] = 1.0;
    }
    g_autoptr(GArray) edges = g_array_sized_new(FALSE, FALSE, sizeof(edge_t), 2 * m);
    for (guint i = 0; i < m; i++) {
        const window_t *wd = &g_array_index(windows, window_t, idx[i]);
        edge_t e = {wd->start, FALSE, i};
        g_array_append_val(edges, e);
        if (wd->end != WEFT_TIME_MAX) {
            edge_t f = {wd->end, TRUE, i};
            g_array_append_val(edges, f);
        }
    }
    g_array_sort(edges, cmp_edge);
    profile_t *pr = g_new0(profile_t, 1);
    pr->at = g_new(weft_time_t, edges->len);
    pr->speed = g_new(double, edges->len);
    for (guint k = 0; k < edges->len;) {
        weft_time_t at = g_array_index(edges, edge_t, k).at;
        for (; k < edges->len && g_array_index(edges, edge_t, k).at == at; k++) {
            const edge_t *e = &g_array_index(edges, edge_t, k);
            guint p = size + e->leaf;
            tree[p] = e->end ? 1.0 : g_array_index(windows, window_t, idx[e->leaf]).fraction;
            for (p /= 2; p >= 1; p /= 2) {
                tree[p] = tree[2 * p] * tree[2 * p + 1];
            }
        }
        pr->at[pr->n] = at;
        pr->speed[pr->n] = tree[1];
        pr->n++;
    }
    return pr;
}

/* Builds run->profiles from run->windows: O(W log W) for W windows. */
static void
build_profiles(weft_fault_run_t *run)
{
    run->profiles = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, profile_free);
    guint w = run->windows->len;
    if (w == 0) {
        return;
    }
    g_autofree guint *idx = g_new(guint, w);
    for (guint i = 0; i < w; i++) {
        idx[i] = i;
    }
    g_qsort_with_data(idx, (gint)w, sizeof(guint), cmp_window_gpu, run->windows);
    for (guint i = 0; i < w;) {
        gint gpu = g_array_index(run->windows, window_t, idx[i]).gpu;
        guint j = i;
        while (j < w && g_array_index(run->windows, window_t, idx[j]).gpu == gpu) {
            j++;
        }
        g_hash_table_insert(run->profiles, GINT_TO_POINTER(gpu),
                            build_profile(run->windows, idx + i, j - i));
        i = j;
    }
}

weft_fault_run_t *
weft_fault_run_arm(const weft_fault_plan_t *plan, weft_sim_t *sim, weft_net_t *net)
{
    g_return_val_if_fail(plan != NULL && sim != NULL && net != NULL, NULL);
    g_return_val_if_fail(weft_net_topo(net) == plan->topo, NULL);
    const weft_topo_t *topo = plan->topo;
    weft_fault_run_t *run = g_new0(weft_fault_run_t, 1);
    run->plan = plan;
    run->sim = sim;
    run->net = net;
    run->fabric = weft_net_fabric(net);
    guint ne = weft_topo_n_edges(topo);
    run->edge_down = g_new0(guint8, MAX(ne, 1));
    run->vertex_down = g_new0(guint8, MAX(weft_topo_n_vertices(topo), 1));
    run->degrade = g_new(double, MAX(ne, 1));
    for (guint e = 0; e < ne; e++) {
        run->degrade[e] = 1.0;
    }
    run->windows = g_array_new(FALSE, FALSE, sizeof(window_t));
    run->applied = g_ptr_array_new_with_free_func(g_free);
    guint n = plan->faults->len;
    run->actions = g_new0(action_t, 2 * MAX(n, 1));
    /* Applications first, in file order, then undoings: at one instant, that order. */
    for (guint pass = 0; pass < 2; pass++) {
        for (guint i = 0; i < n; i++) {
            const fault_t *ft = g_ptr_array_index(plan->faults, i);
            if (pass == 1 && ft->f.for_ps == 0) {
                continue;
            }
            if (pass == 0 && ft->f.kind == WEFT_STEP_STRAGGLER) {
                window_t wdw = {ft->f.u, ft->f.at_ps,
                                ft->f.for_ps > 0 ? ft->f.at_ps + ft->f.for_ps : WEFT_TIME_MAX,
                                ft->f.fraction};
                g_array_append_val(run->windows, wdw);
            }
            action_t *a = &run->actions[run->n_actions++];
            a->run = run;
            a->ft = ft;
            a->undo = pass == 1;
            a->handle = weft_sim_at(sim, pass == 0 ? ft->f.at_ps : ft->f.at_ps + ft->f.for_ps,
                                    on_action, a, NULL);
        }
    }
    build_profiles(run);
    return run;
}

void
weft_fault_run_disarm(weft_fault_run_t *run)
{
    if (run == NULL) {
        return;
    }
    for (guint i = 0; i < run->n_actions; i++) {
        action_t *a = &run->actions[i];
        if (a->handle != 0) {
            weft_sim_cancel(run->sim, a->handle);
            a->handle = 0;
            if (!a->undo) {
                g_ptr_array_add(run->applied, g_strdup_printf("not applied (the step ended "
                                                              "first): %s",
                                                              a->ft->f.text));
            }
        }
    }
}

void
weft_fault_run_free(weft_fault_run_t *run)
{
    if (run == NULL) {
        return;
    }
    weft_fault_run_disarm(run);
    /* The fabric state may outlive the run (a scenario's reruns): give it back its links as
     * they were. */
    const weft_topo_t *topo = run->plan->topo;
    for (guint e = 0; e < weft_topo_n_edges(topo); e++) {
        if (weft_fabric_edge_fraction(run->fabric, (gint)e) != 1.0) {
            weft_fabric_set_link_fraction(run->fabric, (gint)e, 1.0, NULL);
        }
    }
    g_free(run->actions);
    g_free(run->edge_down);
    g_free(run->vertex_down);
    g_free(run->degrade);
    g_array_unref(run->windows);
    g_clear_pointer(&run->profiles, g_hash_table_unref);
    g_clear_error(&run->failure);
    g_ptr_array_unref(run->applied);
    g_free(run);
}

const GError *
weft_fault_run_failure(const weft_fault_run_t *run)
{
    g_return_val_if_fail(run != NULL, NULL);
    return run->failure;
}

const GPtrArray *
weft_fault_run_applied(const weft_fault_run_t *run)
{
    g_return_val_if_fail(run != NULL, NULL);
    return run->applied;
}

/* The piece of @pr holding @t: the last k with at[k] <= t, or -1 before at[0]. O(log n). */
static gint
piece_of(const profile_t *pr, weft_time_t t)
{
    guint lo = 0, hi = pr->n; /* the answer + 1 is in [lo, hi] */
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (pr->at[mid] <= t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return (gint)lo - 1;
}

static double
piece_speed(const profile_t *pr, gint k)
{
    return k < 0 ? 1.0 : pr->speed[k];
}

static weft_time_t
piece_end(const profile_t *pr, gint k)
{
    return (guint)(k + 1) < pr->n ? pr->at[k + 1] : WEFT_TIME_MAX;
}

weft_time_t
weft_fault_run_compute_end(const weft_fault_run_t *run, gint gpu_vertex, weft_time_t start,
                           weft_time_t work_ps)
{
    const profile_t *pr =
        run != NULL ? g_hash_table_lookup(run->profiles, GINT_TO_POINTER(gpu_vertex)) : NULL;
    if (pr == NULL || work_ps <= 0) {
        return start + work_ps;
    }
    double left = (double)work_ps; /* ps of work at full speed */
    weft_time_t t = start;
    for (gint k = piece_of(pr, start);; k++) {
        double speed = piece_speed(pr, k);
        weft_time_t next = piece_end(pr, k);
        double can = speed * (double)(next - t);
        if (next == WEFT_TIME_MAX || can >= left) {
            double end = (double)t + left / speed;
            return end >= 9.2e18 ? WEFT_TIME_MAX : (weft_time_t)llround(end);
        }
        left -= can;
        t = next;
    }
}

double
weft_fault_run_work_done(const weft_fault_run_t *run, gint gpu_vertex, weft_time_t start,
                         weft_time_t end)
{
    if (end <= start) {
        return 0.0;
    }
    const profile_t *pr =
        run != NULL ? g_hash_table_lookup(run->profiles, GINT_TO_POINTER(gpu_vertex)) : NULL;
    if (pr == NULL) {
        return (double)(end - start);
    }
    /* the speed is piecewise constant between the windows' edges inside [start, end] */
    double done = 0.0;
    weft_time_t t = start;
    for (gint k = piece_of(pr, start); t < end; k++) {
        weft_time_t next = MIN(piece_end(pr, k), end);
        done += piece_speed(pr, k) * (double)(next - t);
        t = next;
    }
    return done;
}

/* ---- degrading faults of a whole run as in-step faults ------------------------------ */

/* The @n-th vertex of kind @kind in vertex order, or -1. */
static gint
nth_vertex(const weft_topo_t *topo, weft_vertex_kind_t kind, guint64 n)
{
    for (guint v = 0; v < weft_topo_n_vertices(topo); v++) {
        if (weft_topo_vertex_kind(topo, (gint)v) == kind && n-- == 0) {
            return (gint)v;
        }
    }
    return -1;
}

char *
weft_fault_degrade_line(const weft_topo_t *topo, const weft_fault_event_t *ev, GError **error)
{
    g_return_val_if_fail(topo != NULL && ev != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    const char *cls = weft_fault_class_name(ev->component_class);
    gint v = -1;
    switch (ev->component_class) {
    case WEFT_FAULT_NIC:
        v = nth_vertex(topo, WEFT_VERTEX_NIC, ev->component);
        break;
    case WEFT_FAULT_SWITCH:
        v = nth_vertex(topo, WEFT_VERTEX_SWITCH, ev->component);
        break;
    case WEFT_FAULT_CABLE: {
        /* Cables in the order weft_fault_counts_from_topo() counts them: each full-duplex
         * scale-out link (edges 2k and 2k + 1, topo.h) as many times as it has lanes. */
        guint64 left = ev->component;
        for (guint e = 0; e + 1 < weft_topo_n_edges(topo); e += 2) {
            weft_link_kind_t k = weft_topo_edge_kind(topo, (gint)e);
            if (k != WEFT_LINK_INFINIBAND && k != WEFT_LINK_ETHERNET) {
                continue;
            }
            guint lanes = weft_topo_edge_lanes(topo, (gint)e);
            if (left >= lanes) {
                left -= lanes;
                continue;
            }
            const char *a = weft_topo_vertex_name(topo, weft_topo_edge_from(topo, (gint)e));
            const char *b = weft_topo_vertex_name(topo, weft_topo_edge_to(topo, (gint)e));
            if (lanes == 1) {
                return g_strdup_printf("0us link_down %s %s", a, b);
            }
            /* one cable of a bundle of @lanes: the link keeps (lanes - 1) / lanes */
            return g_strdup_printf("0us link_degrade %s %s %.17g", a, b,
                                   (double)(lanes - 1) / lanes);
        }
        break;
    }
    default:
        g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_KEY,
                    "a degrading %s fault has no in-step model: only cable, NIC and switch "
                    "faults degrade (failures.degrade_mtbf_%s)",
                    cls, cls);
        return NULL;
    }
    if (v < 0) {
        g_set_error(error, WEFT_FAULT_ERROR, WEFT_FAULT_ERROR_KEY,
                    "%s number %" G_GUINT64_FORMAT " is beyond the cluster's %ss", cls,
                    ev->component, cls);
        return NULL;
    }
    return g_strdup_printf("0us %s_down %s",
                           ev->component_class == WEFT_FAULT_NIC ? "nic" : "switch",
                           weft_topo_vertex_name(topo, v));
}
