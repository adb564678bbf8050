/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of report/: the summary, summary.json, the CSV files and the
 * Chrome trace timeline checked against the run they describe (parsed with
 * json-glib), the per-rank sums, link bytes against the plans' bytes times
 * their routes' hop counts under both network models, the rank and window
 * filters, the link series, the parsers, the progress hook, and an
 * unwritable output failing before anything runs. Small worlds: 4 GPUs on a
 * ring or a switch, hand-written Chakra traces in a scratch directory.
 */
#include <check.h>
#include <igraph.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>

#include "config.h"
#include "core/sim.h"
#include "report/report.h"
#include "scenario/scenario.h"
#include "testutil.h"

static char *tmpdir;

static void
setup(void)
{
    tmpdir = g_dir_make_tmp("weft-report-XXXXXX", NULL);
    ck_assert_ptr_nonnull(tmpdir);
}

static void
teardown(void)
{
    test_tmpdir_remove(tmpdir);
    g_free(tmpdir);
}

/*
 * The 4-rank trace tmpdir/tiny.<r>.et: "forward" 100 us, then a 4 MB
 * (4,000,000 B) all-reduce over all ranks, then "optimizer" 50 us.
 * 3 nodes per rank, 12 in all.
 */
static char *
write_tiny_trace(void)
{
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node_dur(et, 1, "forward", TEST_COMP, 100);
        test_et_coll(et, 2, "all_reduce_grads", 0, 4000000, NULL);
        test_et_dep(et, 1);
        test_et_node_dur(et, 3, "optimizer", TEST_COMP, 50);
        test_et_dep(et, 2);
        g_autofree char *path = test_et_path(tmpdir, "tiny", r);
        test_et_write(et, path, FALSE);
    }
    return g_build_filename(tmpdir, "tiny", NULL);
}

/*
 * The 4-rank trace tmpdir/mixed.<r>.et, with overlap, idle time and two kinds
 * of collective: "forward" (100 + 50 r) us; then, both after forward, a 4 MB
 * all-reduce and "backward" 300 us (they overlap); then a 1 MB all-to-all
 * after both; then "optimizer" 20 us. Ranks that reach the all-reduce early
 * wait for rank 3 (exposed communication), rank 0's optimizer ends before
 * the others' (idle until the step ends). 5 nodes per rank, 20 in all.
 */
static char *
write_mixed_trace(void)
{
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node_dur(et, 1, "forward", TEST_COMP, 100 + 50 * r);
        test_et_coll(et, 2, "all_reduce_grads", 0, 4000000, NULL);
        test_et_dep(et, 1);
        test_et_node_dur(et, 3, "backward", TEST_COMP, 300);
        test_et_dep(et, 1);
        test_et_coll(et, 4, "all_to_all_tokens", 6, 1000000, NULL);
        test_et_dep(et, 2);
        test_et_dep(et, 3);
        test_et_node_dur(et, 5, "optimizer", TEST_COMP, 20);
        test_et_dep(et, 4);
        g_autofree char *path = test_et_path(tmpdir, "mixed", r);
        test_et_write(et, path, FALSE);
    }
    return g_build_filename(tmpdir, "mixed", NULL);
}

/* 4 GPUs on a ring (1 hop to a neighbour, 2 to the opposite GPU) or on one switch (2 hops). */
static weft_topo_t *
make_cluster(const char *kind)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_key_file_set_value(kf, "cluster", "kind", kind);
    g_key_file_set_value(kf, "cluster", "gpus", "4");
    g_key_file_set_value(kf, "cluster", "link_bandwidth", "10GB/s");
    g_key_file_set_value(kf, "cluster", "link_latency", "1us");
    g_autoptr(GError) err = NULL;
    weft_topo_t *topo = weft_topo_load_keyfile(kf, "cluster", "test", &err);
    ck_assert_msg(topo != NULL, "%s", err ? err->message : "");
    return topo;
}

/* ---- a replay with the report attached, beside a test observer ------------------------------- */

typedef struct {
    weft_topo_t *topo;
    weft_fabric_t *fabric; /* the run's routes */
    const weft_workload_t *wl;
    const weft_replay_observer_t *inner; /* the report's */
    double expected_link_bytes; /* sum over plans of wire bytes x route hops (share-weighted) */
    GHashTable *node_times;     /* "rank/node" -> weft_time_t[2] start, end */
    guint n_nodes_seen;
} spy_t;

static void
spy_node(void *data, guint rank, guint node, weft_replay_stream_t stream, weft_time_t start_ps,
         weft_time_t end_ps)
{
    spy_t *spy = data;
    spy->inner->node(spy->inner->data, rank, node, stream, start_ps, end_ps);
    weft_time_t *t = g_new(weft_time_t, 2);
    t[0] = start_ps;
    t[1] = end_ps;
    g_hash_table_insert(spy->node_times, g_strdup_printf("%u/%u", rank, node), t);
    spy->n_nodes_seen++;
}

static void
spy_collective(void *data, const weft_replay_coll_event_t *ev)
{
    spy_t *spy = data;
    spy->inner->collective(spy->inner->data, ev);
    const weft_coll_plan_t *p = ev->plan;
    const weft_comm_t *comm = g_ptr_array_index(spy->wl->comms, ev->comm);
    double eff = p->exec.efficiency > 0.0 && p->exec.efficiency <= 1.0 ? p->exec.efficiency : 1.0;
    for (guint i = 0; i < p->n_xfers; i++) {
        const weft_coll_xfer_t *x = &p->xfers[i];
        /* members are ranks placed in order (rank r on GPU r) */
        gint src = x->src < p->n_members ? weft_topo_gpu_vertex(spy->topo, comm->ranks[x->src])
                                         : p->virtual_vertex[x->src - p->n_members];
        gint dst = x->dst < p->n_members ? weft_topo_gpu_vertex(spy->topo, comm->ranks[x->dst])
                                         : p->virtual_vertex[x->dst - p->n_members];
        const weft_route_t *route = weft_fabric_route(spy->fabric, src, dst, NULL);
        ck_assert_ptr_nonnull(route);
        double hops = 0.0; /* a path's edges times its share of the bytes */
        for (guint k = 0; k < route->n_paths; k++) {
            hops += route->share[k] * (route->path_off[k + 1] - route->path_off[k]);
        }
        spy->expected_link_bytes += (double)x->bytes / eff * hops;
    }
}

typedef struct {
    weft_topo_t *topo;
    weft_fabric_t *fabric;
    weft_workload_t *wl;
    weft_report_t *rep;
    weft_replay_result_t *res;
    spy_t spy;
} world_t;

static void
world_free(world_t *w)
{
    weft_report_free(w->rep);
    weft_replay_result_free(w->res);
    weft_workload_free(w->wl);
    weft_fabric_free(w->fabric);
    weft_topo_free(w->topo);
    g_hash_table_unref(w->spy.node_times);
    g_free(w);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(world_t, world_free)

/* Replays @prefix on a 4-GPU @kind cluster under @model with a report of @ro. */
static world_t *
run_world(const char *prefix, const char *kind, weft_net_model_t model,
          const weft_report_options_t *ro)
{
    world_t *w = g_new0(world_t, 1);
    g_autoptr(GError) err = NULL;
    w->topo = make_cluster(kind);
    w->fabric = weft_fabric_new(w->topo);
    w->wl = weft_workload_load_chakra(prefix, NULL, &err);
    ck_assert_msg(w->wl != NULL, "%s", err ? err->message : "");
    ck_assert_msg(weft_workload_check(w->wl, 4, &err), "%s", err ? err->message : "");
    w->rep = weft_report_new(w->topo, w->wl, NULL, ro, &err);
    ck_assert_msg(w->rep != NULL, "%s", err ? err->message : "");
    w->spy.topo = w->topo;
    w->spy.fabric = w->fabric;
    w->spy.wl = w->wl;
    w->spy.inner = weft_report_observer(w->rep);
    w->spy.node_times = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    weft_replay_observer_t obs = {&w->spy, spy_node, spy_collective};
    if (w->spy.inner->node == NULL) {
        obs.node = NULL; /* no timeline: the report records no nodes */
    }
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    weft_net_options_t no = {.model = model};
    g_autoptr(weft_net_t) net = weft_net_new_full(sim, w->fabric, &no);
    weft_report_attach(w->rep, net);
    weft_replay_options_t opts = {.observer = &obs};
    w->res = weft_replay_run(sim, net, w->wl, &opts, &err);
    ck_assert_msg(w->res != NULL, "%s", err ? err->message : "");
    weft_report_finish(w->rep, net, w->res);
    weft_report_meta_t meta = {.cluster = kind,
                               .workload = prefix,
                               .placement = "in-order",
                               .network_model = weft_net_model_name(model),
                               .network_update = "incremental",
                               .collective_tuning = "off",
                               .chunks = 1,
                               .sim_seed = 1};
    weft_report_set_meta(w->rep, &meta);
    return w;
}

/* Sums column @col (0-based) of a CSV text after its header. */
static double
csv_column_sum(const char *csv, guint col, guint *rows)
{
    g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
    double sum = 0.0;
    *rows = 0;
    for (guint i = 1; lines[i] != NULL; i++) {
        if (lines[i][0] == '\0') {
            continue;
        }
        g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
        ck_assert_uint_gt(g_strv_length(f), col);
        sum += g_ascii_strtod(f[col], NULL);
        (*rows)++;
    }
    return sum;
}

static JsonNode *
parse_json(const char *text)
{
    g_autoptr(JsonParser) p = json_parser_new();
    g_autoptr(GError) err = NULL;
    ck_assert_msg(json_parser_load_from_data(p, text, -1, &err), "%s", err ? err->message : "");
    return json_node_copy(json_parser_get_root(p));
}

static JsonNode *
parse_json_file(const char *path)
{
    g_autofree char *text = NULL;
    ck_assert_msg(g_file_get_contents(path, &text, NULL, NULL), "%s", path);
    return parse_json(text);
}

/* ---- link bytes = bytes the plans moved x their hop counts --------------------------------- */

static void
check_link_bytes(const char *kind, weft_net_model_t model)
{
    g_autofree char *prefix = write_mixed_trace();
    g_autoptr(world_t) w = run_world(prefix, kind, model, NULL);
    /* by hand on the ring: the all-reduce's 2 (n-1) n = 24 neighbour transfers of S/n = 1 MB
     * take 1 hop: 24 MB; the direct all-to-all sends 12 pieces of S/n = 250 kB, 8 to a
     * neighbour (1 hop) and 4 to the opposite GPU (2 hops): 16 x 250 kB = 4 MB; 28 MB in all.
     * On the switch every transfer takes 2 hops: 2 x (24 + 3) MB = 54 MB. */
    double by_hand = strcmp(kind, "ring") == 0 ? 28e6 : 54e6;
    ck_assert_msg(fabs(w->spy.expected_link_bytes - by_hand) < 1.0, "%s: plans x hops %.0f", kind,
                  w->spy.expected_link_bytes);
    g_autofree char *csv = weft_report_links_csv(w->rep);
    guint rows = 0;
    double sum = csv_column_sum(csv, 5, &rows);          /* bytes */
    ck_assert_uint_eq(rows, weft_topo_n_edges(w->topo)); /* one row per directed link */
    ck_assert_msg(fabs(sum - w->spy.expected_link_bytes) < 1.0, "%s %s: links.csv %.0f, plans %.0f",
                  kind, weft_net_model_name(model), sum, w->spy.expected_link_bytes);
}

START_TEST(test_link_bytes_ring_analytical)
{
    check_link_bytes("ring", WEFT_NET_ANALYTICAL);
}
END_TEST

START_TEST(test_link_bytes_ring_flow)
{
    check_link_bytes("ring", WEFT_NET_FLOW);
}
END_TEST

START_TEST(test_link_bytes_switch_analytical)
{
    check_link_bytes("switch", WEFT_NET_ANALYTICAL);
}
END_TEST

START_TEST(test_link_bytes_switch_flow)
{
    check_link_bytes("switch", WEFT_NET_FLOW);
}
END_TEST

/* ---- per-rank sums and the distribution ----------------------------------------------------- */

START_TEST(test_rank_sums_and_distribution)
{
    g_autofree char *prefix = write_mixed_trace();
    g_autoptr(world_t) w = run_world(prefix, "ring", WEFT_NET_FLOW, NULL);
    const weft_replay_result_t *res = w->res;
    weft_time_t total_compute = 0, min_idle = G_MAXINT64, max_idle = 0;
    for (guint r = 0; r < res->n_ranks; r++) {
        const weft_rank_result_t *rr = &res->ranks[r];
        /* the invariant the breakdown plot stacks on: compute + exposed + idle = finish */
        ck_assert_int_eq(rr->compute_ps + rr->exposed_comm_ps + rr->idle_ps, rr->finish_ps);
        total_compute += rr->compute_ps;
        min_idle = MIN(min_idle, rr->idle_ps);
        max_idle = MAX(max_idle, rr->idle_ps);
    }
    /* compute by hand: sum over r of (100 + 50 r) + 300 + 20 us = 4 x 420 + 300 = 1980 us */
    ck_assert_int_eq(total_compute, 1980 * WEFT_PS_PER_US);
    g_autofree char *text = weft_report_summary_json(w->rep);
    g_autoptr(JsonNode) root = parse_json(text);
    JsonObject *o = json_node_get_object(root);
    JsonObject *pr = json_object_get_object_member(o, "per_rank");
    JsonObject *compute = json_object_get_object_member(pr, "compute_us");
    ck_assert_double_eq_tol(json_object_get_double_member(compute, "total"), 1980.0, 1e-9);
    /* min / max compute: rank 0 (420 us) / rank 3 (570 us); median of 420, 470, 520, 570 */
    ck_assert_double_eq_tol(json_object_get_double_member(compute, "min"), 420.0, 1e-9);
    ck_assert_double_eq_tol(json_object_get_double_member(compute, "max"), 570.0, 1e-9);
    ck_assert_double_eq_tol(json_object_get_double_member(compute, "median"), 495.0, 1e-9);
    JsonObject *idle = json_object_get_object_member(pr, "idle_us");
    ck_assert_double_eq_tol(json_object_get_double_member(idle, "min"), weft_time_to_us(min_idle),
                            1e-9);
    ck_assert_double_eq_tol(json_object_get_double_member(idle, "max"), weft_time_to_us(max_idle),
                            1e-9);
    /* by hand, no rank is ever idle: from 0 each has compute (forward, backward, optimizer) or
     * communication (the all-reduce from its issue, waiting for rank 3 included; then the
     * all-to-all) in progress until it finishes */
    ck_assert_int_eq(max_idle, 0);
    /* overlapped: the all-reduce (issued at 100 + 50 r) runs beside backward (100 + 50 r to
     * 400 + 50 r): 300 us on every rank; total 1200 us */
    JsonObject *ov = json_object_get_object_member(pr, "overlapped_comm_us");
    ck_assert_double_eq_tol(json_object_get_double_member(ov, "total"), 1200.0, 1e-9);
    ck_assert_double_eq_tol(json_object_get_double_member(o, "step_time_us"),
                            weft_time_to_us(res->step_ps), 1e-9);
    /* the text summary carries the same figures, and no line starts with a digit (the rank
     * table's rows are the only such lines in weft replay's output) */
    g_autofree char *summary = weft_report_summary_text(w->rep);
    ck_assert_ptr_nonnull(strstr(summary, "most expensive collectives (2 of 2 instances)"));
    ck_assert_ptr_nonnull(strstr(summary, "alltoall"));
    g_auto(GStrv) lines = g_strsplit(summary, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++) {
        ck_assert_msg(!g_ascii_isdigit(lines[i][0]), "line starts with a digit: %s", lines[i]);
    }
}
END_TEST

/* ---- collectives.csv ------------------------------------------------------------------------ */

START_TEST(test_collectives_csv)
{
    g_autofree char *prefix = write_tiny_trace();
    g_autoptr(world_t) w = run_world(prefix, "ring", WEFT_NET_ANALYTICAL, NULL);
    ck_assert_uint_eq(weft_report_n_collectives(w->rep), 1);
    const weft_report_coll_t *c = weft_report_collective(w->rep, 0);
    /* ring all-reduce, n = 4, S = 4 MB, a = 1 us, B = 10 GB/s: 2 (n-1) (a + S/(nB))
     * = 6 (1 + 100) = 606 us, from 100 us (every rank's forward ends at 100 us) */
    ck_assert_int_eq(c->start_ps, 100 * WEFT_PS_PER_US);
    ck_assert_int_eq(c->first_arrival_ps, 100 * WEFT_PS_PER_US);
    ck_assert_int_eq(c->end_ps - c->start_ps, 606 * WEFT_PS_PER_US);
    /* algbw = 4e6 B / 606 us = 6.600660 GB/s; busbw = algbw x 2 (n-1)/n = 9.900990 GB/s */
    ck_assert_double_eq_tol(weft_report_coll_algbw_GBps(c), 4e6 / 606e-6 / 1e9, 1e-9);
    ck_assert_double_eq_tol(weft_report_coll_busbw_GBps(c), 4e6 / 606e-6 / 1e9 * 1.5, 1e-9);
    /* moved bytes: 24 transfers of 1 MB */
    ck_assert_uint_eq(c->moved_bytes, 24000000);
    g_autofree char *csv = weft_report_collectives_csv(w->rep);
    g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
    ck_assert_str_eq(lines[0], "communicator,communicator_name,seq,op,size_bytes,members,"
                               "moved_bytes,algorithm,protocol,channels,chunks,first_arrival_us,"
                               "start_us,end_us,time_us,algbw_GBps,busbw_GBps");
    ck_assert_str_eq(lines[1], "0,0,0,all_reduce,4000000,4,24000000,ring,simple,1,1,100.000000,"
                               "100.000000,706.000000,606.000000,6.600660,9.900990");
    ck_assert_str_eq(lines[2], "");
}
END_TEST

/* ---- the timeline --------------------------------------------------------------------------- */

/* Checks the trace at @path against @w: one X event per kept node with the replay's times.
 * Returns the number of X events. */
static guint
check_timeline(const char *path, world_t *w, const guint8 *kept_rank)
{
    g_autoptr(JsonNode) root = parse_json_file(path);
    JsonArray *events = json_object_get_array_member(json_node_get_object(root), "traceEvents");
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GHashTable) threads = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    guint n_x = 0, n_proc = 0;
    for (guint i = 0; i < json_array_get_length(events); i++) {
        JsonObject *e = json_array_get_object_element(events, i);
        const char *ph = json_object_get_string_member(e, "ph");
        if (strcmp(ph, "M") == 0) {
            const char *name = json_object_get_string_member(e, "name");
            JsonObject *args = json_object_get_object_member(e, "args");
            if (strcmp(name, "process_name") == 0) {
                /* each GPU of these clusters has no host: the "no host" process */
                n_proc++;
            } else if (strcmp(name, "thread_name") == 0) {
                g_hash_table_add(threads, g_strdup(json_object_get_string_member(args, "name")));
            }
            continue;
        }
        if (strcmp(ph, "X") != 0) {
            continue;
        }
        n_x++;
        JsonObject *args = json_object_get_object_member(e, "args");
        guint rank = (guint)json_object_get_int_member(args, "rank");
        guint node = (guint)json_object_get_int_member(args, "node");
        ck_assert_msg(kept_rank == NULL || kept_rank[rank], "rank %u not kept", rank);
        g_autofree char *key = g_strdup_printf("%u/%u", rank, node);
        ck_assert_msg(g_hash_table_add(seen, g_strdup(key)), "node %s twice", key);
        const weft_time_t *t = g_hash_table_lookup(w->spy.node_times, key);
        ck_assert_ptr_nonnull(t);
        /* microseconds with 6 decimals: the replay's picoseconds exactly */
        double ts = json_object_get_double_member(e, "ts");
        double dur = json_object_get_double_member(e, "dur");
        ck_assert_int_eq(llround(ts * 1e6), t[0]);
        ck_assert_int_eq(llround(dur * 1e6), t[1] - t[0]);
        /* tid = rank x 8 + stream */
        ck_assert_uint_eq((guint)json_object_get_int_member(e, "tid") / 8, rank);
        const weft_rank_trace_t *tr = &w->wl->ranks[rank];
        if (tr->type[node] == WEFT_NODE_COLL) {
            ck_assert_str_eq(json_object_get_string_member(e, "cat"), "comm");
            ck_assert_str_eq(json_object_get_string_member(args, "algorithm"),
                             tr->coll_op[node] == WEFT_COLL_ALL_TO_ALL ? "direct" : "ring");
            ck_assert_str_eq(json_object_get_string_member(args, "protocol"), "simple");
            ck_assert_int_eq(json_object_get_int_member(args, "bytes"),
                             (gint64)tr->comm_bytes[node]);
        } else {
            ck_assert_str_eq(json_object_get_string_member(e, "cat"), "compute");
            ck_assert_str_eq(json_object_get_string_member(e, "name"), tr->name[node]);
        }
    }
    ck_assert_uint_eq(n_proc, 1);
    for (guint r = 0; r < w->wl->n_ranks; r++) {
        g_autofree char *name = g_strdup_printf("rank %u compute", r);
        ck_assert_int_eq(g_hash_table_contains(threads, name), kept_rank == NULL || kept_rank[r]);
    }
    return n_x;
}

START_TEST(test_timeline_every_node_once)
{
    g_autofree char *prefix = write_mixed_trace();
    weft_report_options_t ro = {.timeline = TRUE};
    g_autoptr(world_t) w = run_world(prefix, "ring", WEFT_NET_FLOW, &ro);
    g_autofree char *path = g_build_filename(tmpdir, "t.json", NULL);
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_report_write_timeline(w->rep, path, &err), "%s", err ? err->message : "");
    /* one event per node: 4 ranks x 5 nodes */
    ck_assert_uint_eq(w->spy.n_nodes_seen, 20);
    ck_assert_uint_eq(check_timeline(path, w, NULL), 20);
    ck_assert_uint_eq(weft_report_n_timeline_events(w->rep), 20);
}
END_TEST

START_TEST(test_timeline_ranks_and_window)
{
    g_autofree char *prefix = write_mixed_trace();
    weft_report_options_t ro = {.timeline = TRUE, .timeline_ranks = "1-2"};
    g_autoptr(world_t) w = run_world(prefix, "ring", WEFT_NET_ANALYTICAL, &ro);
    g_autofree char *path = g_build_filename(tmpdir, "t.json", NULL);
    g_autoptr(GError) err = NULL;
    ck_assert(weft_report_write_timeline(w->rep, path, &err));
    const guint8 kept[4] = {0, 1, 1, 0};
    /* ranks 1 and 2: 2 x 5 nodes */
    ck_assert_uint_eq(check_timeline(path, w, kept), 10);

    /* the window [0, 120 us]: forward of every rank (starts at 0) and nothing else (the
     * earliest other node starts when rank 0's forward ends, at 100 us: its backward and its
     * all-reduce issue; rank 1's at 150 us) -> 4 forwards + rank 0's backward and all-reduce */
    weft_report_options_t rw = {
        .timeline = TRUE, .window_start_ps = 0, .window_end_ps = 120 * WEFT_PS_PER_US};
    g_autoptr(world_t) w2 = run_world(prefix, "ring", WEFT_NET_ANALYTICAL, &rw);
    ck_assert(weft_report_write_timeline(w2->rep, path, &err));
    ck_assert_uint_eq(check_timeline(path, w2, NULL), 6);
}
END_TEST

START_TEST(test_link_series)
{
    g_autofree char *prefix = write_tiny_trace();
    /* tiny on the ring under flow: the all-reduce runs from 100 to 706 us; each step moves
     * 1 MB over each link at full rate (one transfer per directed link per step) */
    weft_report_options_t ro = {
        .timeline = TRUE, .link_interval_ps = 10 * WEFT_PS_PER_US, .series_links = 3};
    g_autoptr(world_t) w = run_world(prefix, "ring", WEFT_NET_FLOW, &ro);
    g_autofree char *csv = weft_report_links_timeseries_csv(w->rep);
    ck_assert_ptr_nonnull(csv);
    g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
    ck_assert_str_eq(lines[0], "time_us,link_rank,link,util");
    /* the step is 100 + 606 + 50 = 756 us: samples at 0, 10, ..., 750 us, floor(75.6) + 1 = 76
     * per link; a header, 3 x 76 rows and "" after the last newline */
    ck_assert_int_eq(w->res->step_ps, 756 * WEFT_PS_PER_US);
    ck_assert_uint_eq(g_strv_length(lines), 1 + 3 * 76 + 1);
    gboolean full = FALSE;
    for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
        double t = g_ascii_strtod(f[0], NULL), u = g_ascii_strtod(f[3], NULL);
        ck_assert(u >= 0.0 && u <= 1.0 + 1e-9); /* no link above capacity */
        if (t < 100.0 || t > 706.0) {
            ck_assert_double_eq(u, 0.0); /* nothing moves outside the collective */
        }
        full = full || fabs(u - 1.0) < 1e-9;
    }
    ck_assert(full);
    /* the timeline has the series' counters */
    g_autofree char *path = g_build_filename(tmpdir, "t.json", NULL);
    g_autoptr(GError) err = NULL;
    ck_assert(weft_report_write_timeline(w->rep, path, &err));
    g_autoptr(JsonNode) root = parse_json_file(path);
    JsonArray *events = json_object_get_array_member(json_node_get_object(root), "traceEvents");
    guint counters = 0;
    for (guint i = 0; i < json_array_get_length(events); i++) {
        JsonObject *e = json_array_get_object_element(events, i);
        counters += strcmp(json_object_get_string_member(e, "ph"), "C") == 0;
    }
    ck_assert_uint_gt(counters, 3 * 2); /* each link: at least up at 100 us and down after */
}
END_TEST

/* ---- through the scenario: the files of --out and an unwritable directory ---------------------
 */

static const char tiny_scenario[] = "[cluster]\n"
                                    "kind = ring\n"
                                    "gpus = 4\n"
                                    "link_bandwidth = 10GB/s\n"
                                    "link_latency = 1us\n"
                                    "[workload]\n"
                                    "trace = tiny\n"
                                    /* the plain ring of the hand derivations (the
                                     * default, NCCL's tuning, is tested in
                                     * check_scenario and cli.sh) */
                                    "[collectives]\n"
                                    "tuning = off\n";

START_TEST(test_scenario_out_files)
{
    g_autofree char *prefix = write_tiny_trace();
    g_autofree char *ini = g_build_filename(tmpdir, "tiny.ini", NULL);
    ck_assert(g_file_set_contents(ini, tiny_scenario, -1, NULL));
    g_autofree char *out = g_build_filename(tmpdir, "results", NULL);
    g_autofree char *tl = g_build_filename(tmpdir, "tl", "t.json", NULL);
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert(weft_scenario_load(sc, ini, &err));
    ck_assert(weft_scenario_set_value(sc, "output", "dir", out, &err));
    ck_assert(weft_scenario_set_value(sc, "output", "timeline", tl, &err));
    weft_scenario_run_options_t ro = {.report = TRUE};
    g_autoptr(weft_scenario_run_t) run = weft_scenario_run_full(sc, &ro, &err);
    ck_assert_msg(run != NULL, "%s", err ? err->message : "");
    ck_assert_ptr_nonnull(run->report);
    const char *files[] = {"scenario.ini", "ranks.csv",       "layers.csv", "summary.txt",
                           "summary.json", "collectives.csv", "links.csv"};
    guint n = 0;
    g_autoptr(GDir) d = g_dir_open(out, 0, NULL);
    while (g_dir_read_name(d) != NULL) {
        n++; /* no temporary file left */
    }
    ck_assert_uint_eq(n, G_N_ELEMENTS(files));
    for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
        g_autofree char *p = g_build_filename(out, files[i], NULL);
        ck_assert_msg(g_file_test(p, G_FILE_TEST_IS_REGULAR), "%s", files[i]);
    }
    g_autofree char *json_path = g_build_filename(out, "summary.json", NULL);
    g_autoptr(JsonNode) root = parse_json_file(json_path);
    JsonObject *o = json_node_get_object(root);
    ck_assert_str_eq(json_object_get_string_member(o, "weft_version"), PACKAGE_VERSION);
    /* 100 + 606 + 50 us, as derived in test_collectives_csv */
    ck_assert_double_eq_tol(json_object_get_double_member(o, "step_time_us"), 756.0, 1e-6);
    ck_assert_int_eq(
        json_object_get_int_member(json_object_get_object_member(o, "counts"), "nodes"), 12);
    JsonObject *conf = json_object_get_object_member(o, "configuration");
    ck_assert_str_eq(
        json_object_get_string_member(json_object_get_object_member(conf, "cluster"), "kind"),
        "ring");
    ck_assert_str_eq(
        json_object_get_string_member(json_object_get_object_member(conf, "output"), "dir"), out);
    ck_assert(json_node_is_null(
        json_object_get_member(json_object_get_object_member(conf, "workload"), "comm_groups")));
    ck_assert_int_eq(
        json_object_get_int_member(json_object_get_object_member(o, "seeds"), "placement"), 1);
    JsonArray *top = json_object_get_array_member(o, "top_collectives");
    ck_assert_uint_eq(json_array_get_length(top), 1);
    JsonObject *c0 = json_array_get_object_element(top, 0);
    ck_assert_str_eq(json_object_get_string_member(c0, "op"), "all_reduce");
    ck_assert_double_eq_tol(json_object_get_double_member(c0, "time_us"), 606.0, 1e-6);
    /* the summary text names the distribution and what ran */
    g_autofree char *txt = weft_scenario_run_summary(run);
    ck_assert_ptr_nonnull(strstr(txt, "per rank (us)"));
    ck_assert_ptr_nonnull(strstr(txt, "all_reduce      ring/simple, 1 channel: 1 instance"));
    /* the timeline: 12 nodes */
    g_autoptr(JsonNode) tr = parse_json_file(tl);
    JsonArray *events = json_object_get_array_member(json_node_get_object(tr), "traceEvents");
    guint n_x = 0;
    for (guint i = 0; i < json_array_get_length(events); i++) {
        n_x += strcmp(json_object_get_string_member(json_array_get_object_element(events, i), "ph"),
                      "X") == 0;
    }
    ck_assert_uint_eq(n_x, 12);
}
END_TEST

START_TEST(test_scenario_unwritable_fails_first)
{
    /* a directory under a regular file cannot be created, by root either */
    g_autofree char *plain = g_build_filename(tmpdir, "plain", NULL);
    ck_assert(g_file_set_contents(plain, "x", -1, NULL));
    g_autofree char *under = g_build_filename(plain, "out", NULL);
    g_autofree char *tl = g_build_filename(plain, "t.json", NULL);
    /* the trace does not exist: had anything been loaded first, that would be the error */
    g_autofree char *trace = g_build_filename(tmpdir, "nosuchtrace", NULL);
    for (guint i = 0; i < 2; i++) {
        g_autoptr(weft_scenario_t) sc = weft_scenario_new();
        g_autoptr(GError) err = NULL;
        ck_assert(weft_scenario_set(sc, "cluster.kind=ring", &err));
        ck_assert(weft_scenario_set_value(sc, "workload", "trace", trace, &err));
        ck_assert(weft_scenario_set_value(sc, "output", i == 0 ? "dir" : "timeline",
                                          i == 0 ? under : tl, &err));
        weft_scenario_run_options_t ro = {.report = TRUE};
        g_autoptr(weft_scenario_run_t) run = weft_scenario_run_full(sc, &ro, &err);
        ck_assert_ptr_null(run);
        ck_assert_msg(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_IO), "%s",
                      err->message);
    }
}
END_TEST

START_TEST(test_scenario_timeline_rank_out_of_range)
{
    g_autofree char *prefix = write_tiny_trace();
    g_autofree char *ini = g_build_filename(tmpdir, "tiny.ini", NULL);
    ck_assert(g_file_set_contents(ini, tiny_scenario, -1, NULL));
    g_autofree char *tl = g_build_filename(tmpdir, "t.json", NULL);
    g_autoptr(weft_scenario_t) sc = weft_scenario_new();
    g_autoptr(GError) err = NULL;
    ck_assert(weft_scenario_load(sc, ini, &err));
    ck_assert(weft_scenario_set_value(sc, "output", "timeline", tl, &err));
    /* the syntax is checked when set, the range once the workload (4 ranks) is read */
    ck_assert(!weft_scenario_set(sc, "output.timeline_ranks=1-x", &err));
    ck_assert(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE));
    g_clear_error(&err);
    ck_assert(weft_scenario_set(sc, "output.timeline_ranks=2-4", &err));
    g_autoptr(weft_scenario_run_t) run = weft_scenario_run(sc, &err);
    ck_assert_ptr_null(run);
    ck_assert(g_error_matches(err, WEFT_SCENARIO_ERROR, WEFT_SCENARIO_ERROR_VALUE));
    ck_assert(!g_file_test(tl, G_FILE_TEST_EXISTS));
}
END_TEST

/* ---- parsers -------------------------------------------------------------------------------- */

START_TEST(test_parse_ranks)
{
    g_autoptr(GError) err = NULL;
    g_autofree guint8 *m = NULL;
    ck_assert(weft_report_parse_ranks("0-2, 5,7", 8, &m, &err));
    const guint8 want[8] = {1, 1, 1, 0, 0, 1, 0, 1};
    ck_assert_mem_eq(m, want, 8);
    const char *bad[] = {"", "x", "3-1", "1-", "-2", "1,,a", "8"};
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree guint8 *mm = NULL;
        ck_assert_msg(!weft_report_parse_ranks(bad[i], 8, &mm, &err), "%s", bad[i]);
        ck_assert(g_error_matches(err, WEFT_REPORT_ERROR, WEFT_REPORT_ERROR_VALUE));
        ck_assert_ptr_null(mm);
        g_clear_error(&err);
    }
}
END_TEST

START_TEST(test_parse_window)
{
    g_autoptr(GError) err = NULL;
    weft_time_t a = -1, b = -1;
    ck_assert(weft_report_parse_window("1ms:3ms", &a, &b, &err));
    ck_assert_int_eq(a, WEFT_PS_PER_MS);
    ck_assert_int_eq(b, 3 * WEFT_PS_PER_MS);
    ck_assert(weft_report_parse_window("2.5us:", &a, &b, &err));
    ck_assert_int_eq(a, 2500 * 1000);
    ck_assert_int_eq(b, 0); /* no end */
    ck_assert(weft_report_parse_window(":10us", &a, &b, &err));
    ck_assert_int_eq(a, 0);
    ck_assert_int_eq(b, 10 * WEFT_PS_PER_US);
    const char *bad[] = {"1ms", "3ms:1ms", "1:2", "1ms:1ms", "x:1ms"};
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        ck_assert_msg(!weft_report_parse_window(bad[i], &a, &b, &err), "%s", bad[i]);
        ck_assert(g_error_matches(err, WEFT_REPORT_ERROR, WEFT_REPORT_ERROR_VALUE));
        g_clear_error(&err);
    }
}
END_TEST

/* ---- progress ----------------------------------------------------------------------------------
 */

static void
nop_event(void *ctx, void *data)
{
    (void)ctx;
    (void)data;
}

static void
work_event(void *ctx, void *data)
{
    (void)data;
    weft_sim_work_add(ctx, 1);
}

static void
count_progress(void *data, weft_time_t now_ps, guint64 events, guint64 work_done,
               guint64 work_total)
{
    GArray *calls = data;
    /* the work counters: one unit per event of the first 10, of a total of 10 */
    ck_assert_uint_eq(work_total, 10);
    ck_assert_uint_eq(work_done, events);
    g_array_append_val(calls, events);
    ck_assert_int_eq(now_ps, (weft_time_t)events); /* event k runs at time k */
}

START_TEST(test_sim_progress_hook)
{
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    for (weft_time_t t = 1; t <= 10; t++) {
        weft_sim_at(sim, t, work_event, sim, NULL);
    }
    g_autoptr(GArray) calls = g_array_new(FALSE, FALSE, sizeof(guint64));
    weft_sim_set_work_total(sim, 10);
    weft_sim_set_progress(sim, 3, count_progress, calls);
    ck_assert_uint_eq(weft_sim_run(sim), 10);
    /* every 3 events of 10: after events 3, 6 and 9 */
    ck_assert_uint_eq(calls->len, 3);
    ck_assert_uint_eq(g_array_index(calls, guint64, 0), 3);
    ck_assert_uint_eq(g_array_index(calls, guint64, 2), 9);
}
END_TEST

START_TEST(test_progress_lines)
{
    g_autofree char *path = g_build_filename(tmpdir, "progress.txt", NULL);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    for (weft_time_t t = 1; t <= 5000; t++) {
        weft_sim_at(sim, t * WEFT_PS_PER_US, nop_event, NULL, NULL);
    }
    weft_sim_set_work_total(sim, 4);
    weft_sim_work_add(sim, 1);
    /* a log (not a terminal), no delay, a period longer than the run: the first look at the
     * clock (after 4096 events) prints one whole line, then none */
    weft_progress_t *p =
        weft_progress_new(f, "weft replay", FALSE, (gint64)G_USEC_PER_SEC * 3600, 0);
    weft_report_progress_attach(p, sim);
    weft_sim_run(sim);
    weft_sim_set_progress(sim, 0, NULL, NULL);
    ck_assert_uint_eq(weft_progress_lines(p), 1);
    weft_progress_free(p);
    fclose(f);
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    /* 4096 events 1 us apart; 1 node of 4 done: 25 % */
    ck_assert(
        g_str_has_prefix(text, "weft replay: simulated 0.004096 s, 4,096 events, 25 %, ETA "));
    ck_assert(g_str_has_suffix(text, "\n"));
    ck_assert_ptr_null(strchr(text, '\r'));
    ck_assert_ptr_null(strchr(text, '\033'));

    /* 998 of 1000 nodes done: work is left, so not "100 %", and no ETA from a fraction
     * that counts nodes, not their time */
    f = fopen(path, "w");
    p = weft_progress_new(f, "weft replay", FALSE, (gint64)G_USEC_PER_SEC * 3600, 0);
    weft_progress_report(p, 0.998, "simulated %.6f s", 0.5);
    weft_progress_report(p, 0.9999, "again");
    weft_progress_free(p);
    fclose(f);
    g_autofree char *late = NULL;
    ck_assert(g_file_get_contents(path, &late, NULL, NULL));
    ck_assert(g_str_has_prefix(late, "weft replay: simulated 0.500000 s, 99.8 %, ETA unknown "
                                     "(the last items), elapsed "));

    /* a terminal: the line starts with '\r', is cleared at the end */
    g_autoptr(weft_sim_t) sim3 = weft_sim_new(1);
    for (weft_time_t t = 1; t <= 5000; t++) {
        weft_sim_at(sim3, t * WEFT_PS_PER_US, nop_event, NULL, NULL);
    }
    f = fopen(path, "w");
    p = weft_progress_new(f, "weft replay", TRUE, (gint64)G_USEC_PER_SEC * 3600, 0);
    weft_report_progress_attach(p, sim3);
    weft_sim_run(sim3);
    weft_sim_set_progress(sim3, 0, NULL, NULL);
    weft_progress_free(p);
    fclose(f);
    g_free(g_steal_pointer(&text));
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    /* no work total: no percentage and no ETA */
    ck_assert(
        g_str_has_prefix(text, "\rweft replay: simulated 0.004096 s, 4,096 events, elapsed "));
    ck_assert(g_str_has_suffix(text, "\033[K\r\033[K"));

    /* with a delay longer than the run: nothing */
    g_autoptr(weft_sim_t) sim2 = weft_sim_new(1);
    weft_sim_at(sim2, 1, nop_event, NULL, NULL);
    f = fopen(path, "w");
    p = weft_progress_new(f, "weft replay", TRUE, 1, (gint64)G_USEC_PER_SEC * 3600);
    weft_report_progress_attach(p, sim2);
    weft_sim_run(sim2);
    ck_assert_uint_eq(weft_progress_lines(p), 0);
    weft_progress_free(p);
    fclose(f);
    g_free(g_steal_pointer(&text));
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    ck_assert_str_eq(text, "");
}
END_TEST

START_TEST(test_progress_helpers)
{
    g_autofree char *a = weft_progress_format_count(0);
    g_autofree char *b = weft_progress_format_count(999);
    g_autofree char *c = weft_progress_format_count(1000);
    g_autofree char *d = weft_progress_format_count(12345678);
    ck_assert_str_eq(a, "0");
    ck_assert_str_eq(b, "999");
    ck_assert_str_eq(c, "1,000");
    ck_assert_str_eq(d, "12,345,678");
    weft_progress_mode_t m = WEFT_PROGRESS_AUTO;
    ck_assert(weft_progress_mode_from_name("never", &m, NULL));
    ck_assert_int_eq(m, WEFT_PROGRESS_NEVER);
    ck_assert_str_eq(weft_progress_mode_name(WEFT_PROGRESS_ALWAYS), "always");
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_progress_mode_from_name("sometimes", &m, &err));
    ck_assert(g_error_matches(err, WEFT_PROGRESS_ERROR, WEFT_PROGRESS_ERROR_VALUE));
    /* NULL reporters: no-ops */
    ck_assert(!weft_progress_due(NULL));
    weft_progress_report(NULL, 0.5, "x");
    weft_progress_finish(NULL);
}
END_TEST

static Suite *
report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_link_bytes_ring_analytical);
    tcase_add_test(tc, test_link_bytes_ring_flow);
    tcase_add_test(tc, test_link_bytes_switch_analytical);
    tcase_add_test(tc, test_link_bytes_switch_flow);
    tcase_add_test(tc, test_rank_sums_and_distribution);
    tcase_add_test(tc, test_collectives_csv);
    tcase_add_test(tc, test_timeline_every_node_once);
    tcase_add_test(tc, test_timeline_ranks_and_window);
    tcase_add_test(tc, test_link_series);
    tcase_add_test(tc, test_scenario_out_files);
    tcase_add_test(tc, test_scenario_unwritable_fails_first);
    tcase_add_test(tc, test_scenario_timeline_rank_out_of_range);
    tcase_add_test(tc, test_parse_ranks);
    tcase_add_test(tc, test_parse_window);
    tcase_add_test(tc, test_sim_progress_hook);
    tcase_add_test(tc, test_progress_lines);
    tcase_add_test(tc, test_progress_helpers);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    igraph_set_error_handler(igraph_error_handler_ignore);
    SRunner *sr = srunner_create(report_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
