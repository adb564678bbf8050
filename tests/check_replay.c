/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of replay/: streams and overlap, collective matching, send/recv
 * rendezvous, sub-communicators, the time accounting identity, the deadlock
 * report and mismatched collectives, a planner lent to runs size after size.
 * Traces are written with testutil.h into a scratch directory, read back by the
 * Chakra reader and replayed on small clusters built through the topo API;
 * every expected time is derived by hand beside its assertion. Replays in threads
 * sharing one cluster, each with its own fabric state, give the results of the
 * same replays run one by one.
 */
#include <check.h>
#include <stdlib.h>

#include "coll/p2p.h"
#include "core/sim.h"
#include "fault/step.h"
#include "net/net.h"
#include "replay/replay.h"
#include "testutil.h"
#include "topo/topo.h"
#include "workload/workload.h"

#define MiB (1024ull * 1024ull)

static char *tmpdir;

static void
setup(void)
{
    tmpdir = g_dir_make_tmp("weft-replay-XXXXXX", NULL);
    ck_assert_ptr_nonnull(tmpdir);
}

static void
teardown(void)
{
    test_tmpdir_remove(tmpdir);
    g_free(tmpdir);
}

/* n GPUs on a bidirectional ring: @Bps per direction, 500 ns per link. */
static weft_topo_t *
ring_Bps(guint n, double Bps)
{
    weft_topo_t *t = weft_topo_new("ring");
    GError *err = NULL;
    for (guint i = 0; i < n; i++) {
        g_autofree char *name = g_strdup_printf("gpu%u", i);
        ck_assert_int_eq(weft_topo_add_vertex(t, WEFT_VERTEX_GPU, name, -1, -1, &err), (gint)i);
    }
    for (guint i = 0; i < n && n > 1; i++) {
        if (n == 2 && i == 1) {
            break;
        }
        ck_assert_int_ge(weft_topo_add_link(t, (gint)i, (gint)((i + 1) % n), WEFT_LINK_NVLINK, Bps,
                                            500 * WEFT_PS_PER_NS, 1, &err),
                         0);
    }
    ck_assert(weft_topo_finalize(t, &err));
    return t;
}

/* n GPUs on a bidirectional ring: 50 GB/s (5e10 B/s) per direction, 500 ns per link. */
static weft_topo_t *
ring(guint n)
{
    return ring_Bps(n, 50e9);
}

/*
 * Four GPUs, one per node, on a two-tier leaf-spine: gpu0 and gpu1 on leaf0, gpu2 and gpu3
 * on leaf1 (25 GB/s, 200 ns per GPU link), each leaf to spine0..3 (50 GB/s, 300 ns). A pair
 * on one leaf has one path; a pair across leaves has four equal-cost ones (through each
 * spine), chosen per flow (ECMP), all of the same latency and rate.
 */
static weft_topo_t *
leaf_spine4(void)
{
    weft_topo_t *t = weft_topo_new("leaf-spine4");
    GError *err = NULL;
    gint gpu[4], leaf[2];
    for (gint i = 0; i < 4; i++) {
        g_autofree char *name = g_strdup_printf("gpu%d", i);
        gpu[i] = weft_topo_add_vertex(t, WEFT_VERTEX_GPU, name, i, 0, &err);
        ck_assert_int_ge(gpu[i], 0);
    }
    for (gint h = 0; h < 2; h++) {
        g_autofree char *name = g_strdup_printf("leaf%d", h);
        leaf[h] = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, name, -1, -1, &err);
        ck_assert_int_ge(leaf[h], 0);
        weft_topo_set_vertex_tier(t, leaf[h], 1);
        for (gint i = 2 * h; i < 2 * h + 2; i++) {
            ck_assert_int_ge(weft_topo_add_link(t, gpu[i], leaf[h], WEFT_LINK_INFINIBAND, 25e9,
                                                200 * WEFT_PS_PER_NS, 1, &err),
                             0);
        }
    }
    for (gint s = 0; s < 4; s++) {
        g_autofree char *name = g_strdup_printf("spine%d", s);
        gint sp = weft_topo_add_vertex(t, WEFT_VERTEX_SWITCH, name, -1, -1, &err);
        ck_assert_int_ge(sp, 0);
        weft_topo_set_vertex_tier(t, sp, 2);
        for (gint h = 0; h < 2; h++) {
            ck_assert_int_ge(weft_topo_add_link(t, leaf[h], sp, WEFT_LINK_INFINIBAND, 50e9,
                                                300 * WEFT_PS_PER_NS, 1, &err),
                             0);
        }
    }
    ck_assert_msg(weft_topo_finalize(t, &err), "%s", err != NULL ? err->message : "");
    return t;
}

/* ASTRA-sim's Ring_<n>npus.yml as weft reads it (topo_yaml.c): 50 GB/s where ASTRA-sim's GB
 * is 2^30 B, so B = 53687091200 B/s, and 500 ns per link. */
static weft_topo_t *
astra_ring(guint n)
{
    return ring_Bps(n, 50.0 * (1 << 30));
}

/* Loads tmpdir/<name>.*.et, checks it and replays it on @topo with @opts. */
static weft_replay_result_t *
replay_opts(weft_topo_t *topo, const char *name, const char *groups,
            const weft_replay_options_t *opts, GError **error)
{
    g_autofree char *prefix = g_build_filename(tmpdir, name, NULL);
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(prefix, groups, error);
    if (wl == NULL) {
        return NULL;
    }
    if (!weft_workload_check(wl, weft_topo_n_gpus(topo), error)) {
        return NULL;
    }
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    return weft_replay_run(sim, net, wl, opts, error);
}

static weft_replay_result_t *
replay(weft_topo_t *topo, const char *name, const char *groups, GError **error)
{
    return replay_opts(topo, name, groups, NULL, error);
}

static void
write_rank(test_et_t *et, const char *name, guint rank)
{
    g_autofree char *path = test_et_path(tmpdir, name, rank);
    test_et_write(et, path, FALSE);
}

static void
assert_accounting(const weft_replay_result_t *res)
{
    for (guint r = 0; r < res->n_ranks; r++) {
        const weft_rank_result_t *rr = &res->ranks[r];
        ck_assert_int_ge(rr->compute_ps, 0);
        ck_assert_int_ge(rr->exposed_comm_ps, 0);
        ck_assert_int_ge(rr->idle_ps, 0);
        ck_assert_int_eq(rr->compute_ps + rr->exposed_comm_ps + rr->idle_ps, rr->finish_ps);
    }
}

/* The bundled data-parallel step (testutil.h) for @n ranks. */
static void
write_dp_step(const char *name, guint n)
{
    for (guint r = 0; r < n; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_dp_step(et);
        write_rank(et, name, r);
    }
}

START_TEST(overlap_and_stream_order_in_a_data_parallel_step)
{
    write_dp_step("dp", 4);
    g_autoptr(weft_topo_t) topo = ring(4);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay(topo, "dp", NULL, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    /* Ring all-reduce of S = 128 MiB = 134217728 B over n = 4: 2(n-1) = 6 steps of
     * a + (S/n)/B = 500000 ps + 33554432 B / 5e10 B/s (= 671088640 ps) = 671588640 ps,
     * so one all-reduce takes 4029531840 ps.
     * forward 0..1500 us, backward_layer2 ..2500 us; grad2 all-reduce 2500 us ..
     * 2500e6 + 4029531840 = 6529531840 ps; backward_layer1 2500..3500 us (overlapped);
     * grad1 all-reduce is issued at 3500 us but the communication stream is busy until
     * 6529531840, so it ends at 6529531840 + 4029531840 = 10559063680 ps; the optimizer
     * runs 200 us more: 10759063680 ps. */
    ck_assert_int_eq(res->step_ps, 10759063680);
    ck_assert_uint_eq(res->collectives, 2);
    for (guint r = 0; r < 4; r++) {
        /* compute 1500 + 1000 + 1000 + 200 = 3700 us; communication exposed from the end
         * of backward_layer1 (3500 us) to the end of grad1 (10559063680 ps) */
        ck_assert_int_eq(res->ranks[r].finish_ps, 10759063680);
        ck_assert_int_eq(res->ranks[r].compute_ps, 3700 * WEFT_PS_PER_US);
        ck_assert_int_eq(res->ranks[r].exposed_comm_ps, 10559063680 - 3500 * WEFT_PS_PER_US);
        ck_assert_int_eq(res->ranks[r].idle_ps, 0);
        /* grad2's all-reduce is hidden behind backward_layer1 for its 1000 us */
        ck_assert_int_eq(res->ranks[r].overlapped_comm_ps, 1000 * WEFT_PS_PER_US);
        ck_assert_uint_eq(res->ranks[r].nodes_done, 6);
    }
    assert_accounting(res);
}
END_TEST

/* The row of (@layer, @phase) in res->layers, or NULL. */
static const weft_replay_layer_t *
layer_row(const weft_replay_result_t *res, guint layer, weft_phase_t phase)
{
    for (guint i = 0; i < res->layers->len; i++) {
        const weft_replay_layer_t *L = &g_array_index(res->layers, weft_replay_layer_t, i);
        if (L->layer == layer && L->phase == phase) {
            return L;
        }
    }
    return NULL;
}

START_TEST(time_goes_to_the_layer_and_phase_of_what_runs)
{
    /* The data-parallel step of overlap_and_stream_order_in_a_data_parallel_step, its
     * nodes given layers and phases: attributes where names do not say (the forward is
     * "fwd_all"; the all-reduces are wgrad), names where they do ("backward_layer2" is
     * igrad, "optimizer_step" optimizer); the all-reduces in process group "1" of all four
     * ranks, described as "dp.0" (a dp communicator). */
    const guint64 grad_bytes = 128ull * 1024 * 1024;
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node_dur(et, 1, "fwd_all", TEST_COMP, 1500);
        test_et_attr_string(et, "layer", "l1");
        test_et_attr_string(et, "phase", "forward");
        test_et_node_dur(et, 2, "backward_layer2", TEST_COMP, 1000);
        test_et_attr_string(et, "layer", "l2");
        test_et_dep(et, 1);
        test_et_coll(et, 3, "all_reduce_grad_layer2", 0, grad_bytes, "1");
        test_et_attr_string(et, "pg_desc", "dp.0");
        test_et_attr_string(et, "layer", "l2");
        test_et_attr_string(et, "phase", "wgrad");
        test_et_dep(et, 2);
        test_et_node_dur(et, 4, "backward_layer1", TEST_COMP, 1000);
        test_et_attr_string(et, "layer", "l1");
        test_et_dep(et, 2);
        test_et_coll(et, 5, "all_reduce_grad_layer1", 0, grad_bytes, "1");
        test_et_attr_string(et, "pg_desc", "dp.0");
        test_et_attr_string(et, "layer", "l1");
        test_et_attr_string(et, "phase", "wgrad");
        test_et_dep(et, 4);
        test_et_node_dur(et, 6, "optimizer_step", TEST_COMP, 200);
        test_et_dep(et, 3);
        test_et_dep(et, 5);
        write_rank(et, "layers", r);
    }
    g_autofree char *groups = g_build_filename(tmpdir, "layers.json", NULL);
    ck_assert(g_file_set_contents(groups, "{\"1\": [0, 1, 2, 3]}", -1, NULL));
    g_autoptr(weft_topo_t) topo = ring(4);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay(topo, "layers", groups, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    /* the same times as the step over the world: grad2's all-reduce 2500 us ..
     * 6529531840 ps, grad1's 3500 us .. 10559063680 ps, the optimizer after */
    ck_assert_int_eq(res->step_ps, 10759063680);
    /* layers in order of first mention: other 0, l1 1, l2 2; six (layer, phase) rows:
     * (other, optimizer), (l1, forward), (l1, igrad), (l1, wgrad), (l2, igrad), (l2, wgrad) */
    ck_assert_uint_eq(res->layers->len, 6);
    const weft_time_t us = WEFT_PS_PER_US;
    const weft_replay_layer_t *opt = layer_row(res, 0, WEFT_PHASE_OPTIMIZER);
    const weft_replay_layer_t *f1 = layer_row(res, 1, WEFT_PHASE_FORWARD);
    const weft_replay_layer_t *i1 = layer_row(res, 1, WEFT_PHASE_IGRAD);
    const weft_replay_layer_t *w1 = layer_row(res, 1, WEFT_PHASE_WGRAD);
    const weft_replay_layer_t *i2 = layer_row(res, 2, WEFT_PHASE_IGRAD);
    const weft_replay_layer_t *w2 = layer_row(res, 2, WEFT_PHASE_WGRAD);
    ck_assert(opt && f1 && i1 && w1 && i2 && w2);
    /* every rank alike: sums over 4 ranks are 4 x one rank's; compute goes to the node
     * running: fwd_all 1500 us, backward_layer2 and backward_layer1 1000 us each,
     * optimizer_step 200 us */
    ck_assert_int_eq(f1->compute_ps, 4 * 1500 * us);
    ck_assert_int_eq(i2->compute_ps, 4 * 1000 * us);
    ck_assert_int_eq(i1->compute_ps, 4 * 1000 * us);
    ck_assert_int_eq(opt->compute_ps, 4 * 200 * us);
    ck_assert_int_eq(w2->compute_ps + w1->compute_ps, 0);
    /* grad2's all-reduce (l2, wgrad, dp) runs 2500 .. 6529531840 ps: hidden behind
     * backward_layer1 until 3500 us (1000 us overlapped), then exposed: 6529531840 -
     * 3500e6 = 3029531840 ps. grad1's (l1, wgrad) is in progress from 3500 us, but the
     * oldest communication in progress, grad2's, takes the time until it ends; grad1's
     * own exposed time is 10559063680 - 6529531840 = 4029531840 ps. */
    ck_assert_int_eq(w2->overlapped_ps[WEFT_PAR_DP], 4 * 1000 * us);
    ck_assert_int_eq(w2->exposed_ps[WEFT_PAR_DP], 4 * 3029531840);
    ck_assert_int_eq(w1->exposed_ps[WEFT_PAR_DP], 4 * 4029531840);
    ck_assert_int_eq(w1->overlapped_ps[WEFT_PAR_DP], 0);
    ck_assert_int_eq(w2->exposed_ps[WEFT_PAR_OTHER] + w2->exposed_ps[WEFT_PAR_TP], 0);
    ck_assert_uint_eq(w2->n_ranks, 4);
    ck_assert_int_eq(w2->max_rank_ps, 3029531840); /* one rank's compute + exposed */
    /* one collective instance each (not one per member), timed 4029531840 ps from the last
     * member's issue; bus bytes: S x 2(n-1)/n = 134217728 x 1.5 = 201326592 */
    ck_assert_uint_eq(w2->collectives, 1);
    ck_assert_uint_eq(w1->collectives, 1);
    ck_assert_uint_eq(f1->collectives + i1->collectives + i2->collectives, 0);
    ck_assert_int_eq(w2->coll_time_ps, 4029531840);
    ck_assert_int_eq(w1->coll_time_ps, 4029531840);
    ck_assert(w2->busbw_bytes == 201326592.0);
    /* over the rows, each figure sums to the ranks' */
    weft_time_t comp = 0, exp = 0, ovl = 0, rcomp = 0, rexp = 0, rovl = 0;
    for (guint i = 0; i < res->layers->len; i++) {
        const weft_replay_layer_t *L = &g_array_index(res->layers, weft_replay_layer_t, i);
        comp += L->compute_ps;
        for (guint k = 0; k < WEFT_PAR_N; k++) {
            exp += L->exposed_ps[k];
            ovl += L->overlapped_ps[k];
        }
    }
    for (guint r = 0; r < res->n_ranks; r++) {
        rcomp += res->ranks[r].compute_ps;
        rexp += res->ranks[r].exposed_comm_ps;
        rovl += res->ranks[r].overlapped_comm_ps;
    }
    ck_assert_int_eq(comp, rcomp);
    ck_assert_int_eq(exp, rexp);
    ck_assert_int_eq(ovl, rovl);
    ck_assert_int_eq(rexp, 4 * (10559063680 - 3500 * us));
    assert_accounting(res);
}
END_TEST

START_TEST(text_workload_lines_are_layers)
{
    /* ASTRA-sim's DATA sample (tests/fuzz/corpus/text/data.txt) on 8 ranks over a ring of
     * 8: each line a layer, its columns forward, input-gradient, weight-gradient compute
     * (ns), the weight gradients all-reduced in the world, then the update. */
    g_autofree char *path = g_build_filename(tmpdir, "data.txt", NULL);
    ck_assert(g_file_set_contents(path,
                                  "DATA\n2\n"
                                  "conv1\t-1\t13003\tNONE\t0\t12864\tNONE\t0\t32291\tALLREDUCE"
                                  "\t37632\t3229\n"
                                  "fc\t-1\t500\tNONE\t0\t400\tNONE\t0\t300\tALLREDUCE\t4096"
                                  "\t20\n",
                                  -1, NULL));
    GError *err = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_text(path, 0, &err);
    ck_assert_msg(wl != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(wl->n_ranks, 8);
    ck_assert_uint_eq(wl->layers->len, 3);
    ck_assert_str_eq(g_ptr_array_index(wl->layers, 1), "conv1");
    ck_assert_str_eq(g_ptr_array_index(wl->layers, 2), "fc");
    ck_assert(weft_workload_check(wl, 8, &err));
    g_autoptr(weft_topo_t) topo = ring(8);
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_ANALYTICAL);
    g_autoptr(weft_replay_result_t) res = weft_replay_run(sim, net, wl, NULL, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    /* Ring all-reduce over 8: 14 steps of 500 ns + (S / 8) / 50 GB/s: fc's S = 4096 B, 512 B
     * in 10.24 ns, so 14 x 510.24 ns = 7143360 ps; conv1's S = 37632 B, 4704 B in 94.08 ns,
     * 14 x 594.08 ns = 8317120 ps. Forward 13003 + 500 ns; backward fc ig 400, fc wg 300
     * (to 14203 ns), fc's all-reduce from there to 21346.36 ns, hidden behind conv1's ig
     * (14203 .. 27067 ns); conv1 wg to 59358 ns, its all-reduce exposed to 67675.12 ns; the
     * updates 3229 + 20 ns: finish 70924.12 ns. */
    ck_assert_int_eq(res->step_ps, 70924120);
    const weft_time_t ns = WEFT_PS_PER_NS;
    struct {
        guint layer;
        weft_phase_t phase;
        weft_time_t compute_ps, exposed_ps, overlapped_ps;
    } want[] = {
        {1, WEFT_PHASE_FORWARD, 13003 * ns, 0, 0},     {1, WEFT_PHASE_IGRAD, 12864 * ns, 0, 0},
        {1, WEFT_PHASE_WGRAD, 32291 * ns, 8317120, 0}, {1, WEFT_PHASE_OPTIMIZER, 3229 * ns, 0, 0},
        {2, WEFT_PHASE_FORWARD, 500 * ns, 0, 0},       {2, WEFT_PHASE_IGRAD, 400 * ns, 0, 0},
        {2, WEFT_PHASE_WGRAD, 300 * ns, 0, 7143360},   {2, WEFT_PHASE_OPTIMIZER, 20 * ns, 0, 0},
    };
    ck_assert_uint_eq(res->layers->len, G_N_ELEMENTS(want));
    for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
        const weft_replay_layer_t *L = layer_row(res, want[i].layer, want[i].phase);
        ck_assert_msg(L != NULL, "row %u missing", i);
        ck_assert_uint_eq(L->n_ranks, 8);
        ck_assert_int_eq(L->compute_ps, 8 * want[i].compute_ps);
        /* the world's collectives are of kind other */
        ck_assert_int_eq(L->exposed_ps[WEFT_PAR_OTHER], 8 * want[i].exposed_ps);
        ck_assert_int_eq(L->overlapped_ps[WEFT_PAR_OTHER], 8 * want[i].overlapped_ps);
    }
    /* conv1's all-reduce: one instance of 8317120 ps, bus bytes 37632 x 2 x 7 / 8 = 65856 */
    const weft_replay_layer_t *w1 = layer_row(res, 1, WEFT_PHASE_WGRAD);
    ck_assert_uint_eq(w1->collectives, 1);
    ck_assert_int_eq(w1->coll_time_ps, 8317120);
    ck_assert(w1->busbw_bytes == 65856.0);
    for (guint r = 0; r < 8; r++) {
        ck_assert_int_eq(res->ranks[r].exposed_comm_ps, 8317120);
        ck_assert_int_eq(res->ranks[r].overlapped_comm_ps, 7143360);
    }
    assert_accounting(res);
}
END_TEST

START_TEST(communicator_names_give_parallelism_kinds)
{
    ck_assert_int_eq(weft_replay_par_kind_of_comm("tp.3"), WEFT_PAR_TP);
    ck_assert_int_eq(weft_replay_par_kind_of_comm("edp.0"), WEFT_PAR_DP);
    ck_assert_int_eq(weft_replay_par_kind_of_comm("dp_ep.1"), WEFT_PAR_DP);
    /* FSDP hybrid's groups (gen.c) and a job's communicators (jobs.c: "JOB/tp.0") */
    ck_assert_int_eq(weft_replay_par_kind_of_comm("dpshard.2"), WEFT_PAR_DP);
    ck_assert_int_eq(weft_replay_par_kind_of_comm("dprepl.0"), WEFT_PAR_DP);
    ck_assert_int_eq(weft_replay_par_kind_of_comm("a/tp.0"), WEFT_PAR_TP);
    ck_assert_int_eq(weft_replay_par_kind_of_comm("train/dp.1"), WEFT_PAR_DP);
    ck_assert_int_eq(weft_replay_par_kind_of_comm("ep.1"), WEFT_PAR_EP);
    ck_assert_int_eq(weft_replay_par_kind_of_comm("PP"), WEFT_PAR_PP);
    ck_assert_int_eq(weft_replay_par_kind_of_comm("TENSOR_MODEL_PARALLEL_GROUP"), WEFT_PAR_TP);
    ck_assert_int_eq(weft_replay_par_kind_of_comm("expert_data_parallel"), WEFT_PAR_EP);
    ck_assert_int_eq(weft_replay_par_kind_of_comm("0"), WEFT_PAR_OTHER);
    ck_assert_int_eq(weft_replay_par_kind_of_comm("tpu"), WEFT_PAR_OTHER);
    ck_assert_int_eq(weft_replay_par_kind_of_comm(NULL), WEFT_PAR_OTHER);
    ck_assert_str_eq(weft_par_kind_name(WEFT_PAR_CP), "cp");
    ck_assert_ptr_null(weft_par_kind_name(WEFT_PAR_N));
}
END_TEST

START_TEST(a_bad_phase_attribute_is_an_error)
{
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node_dur(et, 1, "k", TEST_COMP, 1);
    test_et_attr_string(et, "phase", "sideways");
    write_rank(et, "badphase", 0);
    g_autoptr(weft_topo_t) topo = ring(2);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay(topo, "badphase", NULL, &err);
    ck_assert_ptr_null(res);
    ck_assert(g_error_matches(err, WEFT_WORKLOAD_ERROR, WEFT_WORKLOAD_ERROR_VALUE));
    g_clear_error(&err);
}
END_TEST

START_TEST(nccl_kernels_take_their_sms_from_the_compute_beside_them)
{
    /* The bundled data-parallel step on a DGX H100 under NCCL's tuning: each 128 MiB
     * all-reduce is NVLS on 16 channels (NCCL_NVLS_NCHANNELS), 16 CTAs holding 16 of the
     * H100's 132 SMs while it runs. grad2's all-reduce (T) starts with backward_layer1 at
     * 2500 us and ends inside it (T < 1000 us), so backward_layer1 runs T at 116/132 of its
     * rate and ends T x 16/132 late; grad1's all-reduce then runs exposed (nothing computes
     * beside it), and the optimizer after it: step = 3700 us + T x 16/132 + T, against
     * 3700 us + T without contention. */
    const char *src = g_getenv("WEFT_SRCDIR");
    g_autofree char *path =
        g_build_filename(src != NULL ? src : ".", "topologies", "dgx-h100.ini", NULL);
    GError *err = NULL;
    g_autoptr(weft_topo_t) topo = weft_topo_load(path, &err);
    ck_assert_msg(topo != NULL, "%s", err ? err->message : "");
    write_dp_step("dp_smc", 8);
    weft_coll_tuning_t tun = {0};
    weft_replay_options_t off = {.coll_tuning = &tun};
    weft_replay_options_t on = {.coll_tuning = &tun, .sm_contention = TRUE};
    g_autoptr(weft_replay_result_t) a = replay_opts(topo, "dp_smc", NULL, &off, &err);
    ck_assert_msg(a != NULL, "%s", err ? err->message : "");
    g_autoptr(weft_replay_result_t) b = replay_opts(topo, "dp_smc", NULL, &on, &err);
    ck_assert_msg(b != NULL, "%s", err ? err->message : "");
    weft_time_t T = a->step_ps - 3700 * WEFT_PS_PER_US;
    ck_assert_int_gt(T, 0);
    ck_assert_int_lt(T, 1000 * WEFT_PS_PER_US);
    weft_time_t slow = (weft_time_t)ceil((double)T * 16.0 / 132.0 - 1e-6);
    ck_assert_int_le(llabs(b->step_ps - (3700 * WEFT_PS_PER_US + T + slow)), 1);
    for (guint r = 0; r < 8; r++) {
        /* the slowdown is compute time, and grad2's all-reduce is still all overlapped */
        ck_assert_int_le(llabs(b->ranks[r].compute_ps - (3700 * WEFT_PS_PER_US + slow)), 1);
        ck_assert_int_eq(b->ranks[r].overlapped_comm_ps, T);
        ck_assert_int_eq(a->ranks[r].compute_ps, 3700 * WEFT_PS_PER_US);
    }
    assert_accounting(b);
    /* A cluster without a GPU model (an abstract ring) has no SMs to share: unchanged. */
    g_autoptr(weft_topo_t) bare = ring(4);
    write_dp_step("dp_smc4", 4);
    weft_replay_options_t bare_on = {.sm_contention = TRUE};
    g_autoptr(weft_replay_result_t) c = replay_opts(bare, "dp_smc4", NULL, &bare_on, &err);
    ck_assert_msg(c != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(c->step_ps, 10759063680);
}
END_TEST

START_TEST(send_recv_ring_runs_concurrently)
{
    /* rank i sends 1e6 B to i+1 and receives from i-1, all issued at 0 */
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_send(et, 1, "send", (gint32)((r + 1) % 4), 0, 1000000);
        test_et_recv(et, 2, "recv", (gint32)((r + 3) % 4), 0, 1000000);
        write_rank(et, "p2p", r);
    }
    g_autoptr(weft_topo_t) topo = ring(4);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay(topo, "p2p", NULL, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    /* each transfer crosses one link: 500 ns + 1e6 B / 5e10 B/s = 0.5 + 20 us = 20.5 us */
    ck_assert_int_eq(res->step_ps, 20500000);
    ck_assert_uint_eq(res->p2p_transfers, 4);
    for (guint r = 0; r < 4; r++) {
        ck_assert_int_eq(res->ranks[r].exposed_comm_ps, 20500000);
    }
    assert_accounting(res);
}
END_TEST

START_TEST(eager_send_completes_before_a_late_receive)
{
    /* rank 0 sends at 0; rank 1 computes 100 us before it posts the receive.
     * Sends are eager: the transfer runs 0 .. 0.5 + 20 = 20.5 us and the send
     * finishes then; the receive, posted at 100 us, finds the data there and
     * finishes at once. A receive posted before its data would wait instead
     * (send_recv_ring_runs_concurrently). */
    g_autoptr(test_et_t) a = test_et_new("0.0.4");
    test_et_send(a, 1, "send", 1, 5, 1000000);
    write_rank(a, "late", 0);
    g_autoptr(test_et_t) b = test_et_new("0.0.4");
    test_et_node_dur(b, 1, "compute", TEST_COMP, 100);
    test_et_recv(b, 2, "recv", 0, 5, 1000000);
    test_et_dep(b, 1);
    write_rank(b, "late", 1);
    g_autoptr(weft_topo_t) topo = ring(2);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay(topo, "late", NULL, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(res->step_ps, 100000000);
    ck_assert_int_eq(res->ranks[0].finish_ps, 20500000);
    ck_assert_int_eq(res->ranks[0].exposed_comm_ps, 20500000);
    ck_assert_int_eq(res->ranks[1].compute_ps, 100000000);
    ck_assert_int_eq(res->ranks[1].exposed_comm_ps, 0);
    assert_accounting(res);
}
END_TEST

/* The time of one @S-byte NCCL send from GPU @g0 to GPU @g1 of @topo alone: its plan on the
 * pair's 2-rank communicator, step by step (coll/p2p.h), run on an idle network. */
static weft_time_t
nccl_send_alone(weft_topo_t *topo, guint g0, guint g1, guint64 S, weft_net_model_t model,
                guint *steps)
{
    GError *err = NULL;
    weft_coll_tuning_t tun = {0};
    weft_coll_planner_config_t pcfg = {.tuning = &tun};
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    g_autoptr(weft_coll_planner_t) P = weft_coll_planner_new(fabric, &pcfg);
    gint v[2] = {weft_topo_gpu_vertex(topo, g0), weft_topo_gpu_vertex(topo, g1)};
    const weft_coll_system_t *sys =
        weft_coll_planner_system(P, weft_coll_planner_add_comm(P, v, 2), &err);
    ck_assert_msg(sys != NULL, "%s", err ? err->message : "");
    weft_coll_p2p_comm_t pc;
    weft_coll_p2p_comm_init(&pc, sys);
    gint dom[2] = {weft_topo_vertex_domain(topo, v[0]), weft_topo_vertex_domain(topo, v[1])};
    weft_coll_p2p_msg_t msg = {0, 1};
    g_autoptr(weft_coll_plan_t) plan = weft_coll_p2p_plan_build(&pc, 2, dom, &msg, 1, S, &err);
    ck_assert_msg(plan != NULL, "%s", err ? err->message : "");
    ck_assert_uint_gt(plan->n_xfers, 1); /* steps: a 64 MiB message is many */
    *steps = plan->n_xfers;
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, model);
    weft_time_t t = weft_coll_time(sim, net, plan, v, &err);
    ck_assert_msg(t > 0, "%s", err ? err->message : "");
    return t;
}

START_TEST(a_replayed_send_runs_as_nccl_sends_it)
{
    /* Under NCCL's tuning a replayed SEND/RECV is NCCL's send on the pair's own 2-rank
     * communicator (coll/p2p.h; PyTorch's ProcessGroupNCCL pairs): the step is that plan's
     * time alone, under both models, when the replay runs every step (transfers), and to
     * within a picosecond per step when it merges each piece's steps (auto: one rounding of
     * the piece's time instead of one per step; coll/p2p.h). 64 MiB from GPU 0 to GPU 1 of a DGX H100 (NVLink)
     * and from GPU 0 to GPU 8 of two p5 nodes (EFA, 3 us per message: steps kept). */
    const guint64 S = 64 * 1024 * 1024;
    const char *src = g_getenv("WEFT_SRCDIR");
    const char *files[] = {"dgx-h100.ini", "p5-h100-2node.ini"};
    const guint peer[] = {1, 8};
    for (guint f = 0; f < 2; f++) {
        g_autofree char *path =
            g_build_filename(src != NULL ? src : ".", "topologies", files[f], NULL);
        GError *err = NULL;
        g_autoptr(weft_topo_t) topo = weft_topo_load(path, &err);
        ck_assert_msg(topo != NULL, "%s", err ? err->message : "");
        g_autoptr(test_et_t) a = test_et_new("0.0.4");
        test_et_send(a, 1, "send", 1, 0, S);
        write_rank(a, "nccl_p2p", 0);
        g_autoptr(test_et_t) b = test_et_new("0.0.4");
        test_et_recv(b, 1, "recv", 0, 0, S);
        write_rank(b, "nccl_p2p", 1);
        g_autofree char *prefix = g_build_filename(tmpdir, "nccl_p2p", NULL);
        g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(prefix, NULL, &err);
        ck_assert_msg(wl != NULL && weft_workload_check(wl, weft_topo_n_gpus(topo), &err), "%s",
                      err ? err->message : "");
        guint gpus[2] = {0, peer[f]};
        weft_coll_tuning_t tun = {0};
        for (guint m = 0; m < 2; m++) {
            weft_net_model_t model = m == 0 ? WEFT_NET_ANALYTICAL : WEFT_NET_FLOW;
            guint steps;
            weft_time_t want = nccl_send_alone(topo, 0, peer[f], S, model, &steps);
            for (guint d = 0; d < 2; d++) {
                weft_replay_options_t opts = {
                    .rank_gpu = gpus,
                    .coll_tuning = &tun,
                    .collective_detail = d == 0 ? WEFT_REPLAY_DETAIL_AUTO
                                                : WEFT_REPLAY_DETAIL_TRANSFERS};
                g_autoptr(weft_sim_t) sim = weft_sim_new(1);
                g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
                g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, model);
                g_autoptr(weft_replay_result_t) res = weft_replay_run(sim, net, wl, &opts, &err);
                ck_assert_msg(res != NULL, "%s", err ? err->message : "");
                if (d == 1) {
                    ck_assert_int_eq(res->step_ps, want);
                } else {
                    ck_assert_int_le(llabs(res->step_ps - want), steps);
                }
                ck_assert_uint_eq(res->p2p_transfers, 1);
            }
            /* never faster than the wire: NVLink 450 GB/s, EFA 4 x 100 Gb/s = 50 GB/s */
            ck_assert_int_gt(want, (weft_time_t)(S / (f == 0 ? 450e9 : 50e9) * 1e12));
        }
    }
}
END_TEST

START_TEST(receive_posted_first_waits_for_its_send)
{
    /* ranks 0 and 1 each post a receive at 0, then send after 30 us and 50 us of
     * compute. Rank 0's message (1e6 B, one hop) runs 30 .. 50.5 us; rank 1's runs
     * 50 .. 70.5 us. Rank 0: compute 30 us, and its receive (from rank 1) is
     * pending from 0 to 70.5 us, so exposed = 70.5 - 30 = 40.5 us. */
    for (guint r = 0; r < 2; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_recv(et, 1, "recv", (gint32)(1 - r), 0, 1000000);
        test_et_node_dur(et, 2, "compute", TEST_COMP, r == 0 ? 30 : 50);
        test_et_send(et, 3, "send", (gint32)(1 - r), 0, 1000000);
        test_et_dep(et, 2);
        write_rank(et, "prepost", r);
    }
    g_autoptr(weft_topo_t) topo = ring(2);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay(topo, "prepost", NULL, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(res->ranks[0].finish_ps, 70500000);
    ck_assert_int_eq(res->ranks[0].compute_ps, 30000000);
    ck_assert_int_eq(res->ranks[0].exposed_comm_ps, 40500000);
    /* rank 1: its send ends at 70.5 us, its receive at 50.5 us */
    ck_assert_int_eq(res->ranks[1].finish_ps, 70500000);
    ck_assert_int_eq(res->ranks[1].compute_ps, 50000000);
    assert_accounting(res);
}
END_TEST

START_TEST(sub_communicators_run_side_by_side)
{
    /* groups {0,1} and {2,3}; each all-reduces S = 1e6 B: 2(n-1) = 2 steps of
     * 0.5 us + (S/2)/B = 0.5 + 10 us, so 21 us; the two groups do not wait for each other */
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_coll(et, 1, "all_reduce_half", 0, 1000000, r < 2 ? "1" : "2");
        write_rank(et, "groups", r);
    }
    g_autofree char *groups = g_build_filename(tmpdir, "groups.json", NULL);
    ck_assert(g_file_set_contents(groups, "{\"1\": [0, 1], \"2\": [2, 3]}", -1, NULL));
    g_autoptr(weft_topo_t) topo = ring(4);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay(topo, "groups", groups, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(res->step_ps, 21000000);
    ck_assert_uint_eq(res->collectives, 2);
    assert_accounting(res);
}
END_TEST

/* Rank 0 of a ring of 4 belongs to {0,1} (pg "1") and {0,3} (pg "2") and issues an
 * all-reduce of S = 1e6 B in each at time 0; rank 2 computes 1 us. The two groups use
 * different links (0-1, 0-3). Each all-reduce alone: 2(n-1) = 2 steps of 0.5 us + (S/2)/B =
 * 0.5 + 10 us = 21 us (sub_communicators_run_side_by_side). One stream per communicator:
 * both run at once, step 21 us. One stream per rank (the default): rank 0 runs the first
 * ready (pg "1", node 1) then the other, 42 us. */
static void
write_two_groups_of_rank0(const char *name)
{
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        if (r == 0 || r == 1) {
            test_et_coll(et, 1, "all_reduce_a", 0, 1000000, "1");
        }
        if (r == 0 || r == 3) {
            test_et_coll(et, 2, "all_reduce_b", 0, 1000000, "2");
        }
        if (r == 2) {
            test_et_node_dur(et, 1, "compute", TEST_COMP, 1);
        }
        write_rank(et, name, r);
    }
}

START_TEST(each_communicator_has_its_own_stream)
{
    write_two_groups_of_rank0("twogroups");
    g_autofree char *groups = g_build_filename(tmpdir, "twogroups.json", NULL);
    ck_assert(g_file_set_contents(groups, "{\"1\": [0, 1], \"2\": [0, 3]}", -1, NULL));
    g_autoptr(weft_topo_t) topo = ring(4);
    GError *err = NULL;
    weft_replay_options_t per_comm = {.comm_streams = WEFT_REPLAY_STREAMS_COMMUNICATOR};
    g_autoptr(weft_replay_result_t) res = replay_opts(topo, "twogroups", groups, &per_comm, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(res->step_ps, 21000000);
    ck_assert_int_eq(res->ranks[1].finish_ps, 21000000);
    ck_assert_int_eq(res->ranks[3].finish_ps, 21000000);
    assert_accounting(res);

    /* the default: one stream per rank */
    g_autoptr(weft_replay_result_t) serial = replay(topo, "twogroups", groups, &err);
    ck_assert_msg(serial != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(serial->step_ps, 42000000);
    ck_assert_int_eq(serial->ranks[1].finish_ps, 21000000); /* pg "1" first */
    ck_assert_int_eq(serial->ranks[3].finish_ps, 42000000);
    assert_accounting(serial);
}
END_TEST

START_TEST(collective_a_member_never_reaches_is_a_deadlock)
{
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node_dur(et, 1, "compute", TEST_COMP, 10);
        if (r != 2) {
            test_et_coll(et, 2, "all_reduce_grad", 0, MiB, NULL);
            test_et_dep(et, 1);
        }
        write_rank(et, "dead", r);
    }
    g_autoptr(weft_topo_t) topo = ring(4);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay(topo, "dead", NULL, &err);
    ck_assert_ptr_null(res);
    ck_assert(g_error_matches(err, WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_DEADLOCK));
    g_clear_error(&err);
}
END_TEST

START_TEST(members_disagreeing_on_size_is_an_error)
{
    for (guint r = 0; r < 2; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_coll(et, 1, "all_reduce_grad", 0, r == 0 ? MiB : 2 * MiB, NULL);
        write_rank(et, "mismatch", r);
    }
    g_autoptr(weft_topo_t) topo = ring(2);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay(topo, "mismatch", NULL, &err);
    ck_assert_ptr_null(res);
    ck_assert(g_error_matches(err, WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_MISMATCH));
    g_clear_error(&err);
}
END_TEST

/* Issue 13: a ctrl_dep on a node that is not in the file used to drop every ctrl_dep
 * of its file, the real orderings with it. */
START_TEST(dangling_ctrl_dep_keeps_the_other_orderings)
{
    for (guint r = 0; r < 2; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node_dur(et, 1, "forward", TEST_COMP, 10);
        test_et_coll(et, 2, "all_reduce_grad", 0, MiB, NULL);
        test_et_ctrl_dep(et, 1); /* after forward */
        test_et_node(et, 3, "optimizer", TEST_COMP);
        test_et_ctrl_dep(et, 0); /* no node 0: dropped alone */
        write_rank(et, "dangling", r);
    }
    g_autoptr(weft_topo_t) topo = astra_ring(4);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay(topo, "dangling", NULL, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    /* Ring all-reduce of S = 1 MiB over n = 2: 2(n-1) = 2 steps of a + (S/n)/B =
     * 0.5 us + 524288 B / 53687091200 B/s (= 9.765625 us) = 10.265625 us, so 20.53125 us,
     * after the 10 us forward: 30.53125 us (20.53125 us when the ctrl_dep on forward
     * was dropped with the dangling one and the all-reduce started at 0). */
    ck_assert_int_eq(res->step_ps, 30531250);
    ck_assert_uint_eq(res->collectives, 1);
    assert_accounting(res);
}
END_TEST

/* Issue 13: an all-reduce flagged is_cpu_op that no GPU collective depends on (a
 * converter that mis-sets the flag) used to run as a zero-time host node. */
START_TEST(cpu_flagged_collective_alone_runs_as_a_gpu_collective)
{
    for (int flag = 1; flag >= 0; flag--) {
        const char *name = flag ? "cpuflag" : "gpuflag";
        for (guint r = 0; r < 8; r++) {
            g_autoptr(test_et_t) et = test_et_new("0.0.4");
            test_et_node_dur(et, 1, "forward", TEST_COMP, 100);
            test_et_coll(et, 2, "all_reduce_grad", 0, 64 * MiB, NULL);
            test_et_attr_bool(et, "is_cpu_op", flag);
            test_et_dep(et, 1);
            write_rank(et, name, r);
        }
        g_autoptr(weft_topo_t) topo = astra_ring(8);
        GError *err = NULL;
        g_autoptr(weft_replay_result_t) res = replay(topo, name, NULL, &err);
        ck_assert_msg(res != NULL, "%s", err ? err->message : "");
        /* Ring all-reduce of S = 64 MiB over n = 8: 2(n-1) = 14 steps of a + (S/n)/B =
         * 0.5 us + 8388608 B / 53687091200 B/s (= 156.25 us) = 156.75 us: 2194.5 us, after
         * the 100 us forward: 2294.5 us, flagged or not (flagged, it was 100 us:
         * "collectives 0"). */
        ck_assert_int_eq(res->step_ps, 2294500000);
        ck_assert_uint_eq(res->collectives, 1);
        for (guint r = 0; r < 8; r++) {
            ck_assert_int_eq(res->ranks[r].exposed_comm_ps, 2194500000);
        }
        assert_accounting(res);
    }
}
END_TEST

/* Issue 13: a 1 MiB SEND matched with a 2 MiB RECV (same peer and tag) ran silently as a
 * 1 MiB message. Either side may come first: the receive posted before the send (rank 0
 * computes 100 us first) or after it (rank 1 does). */
START_TEST(send_and_receive_of_different_sizes_is_a_mismatch)
{
    for (guint late = 0; late < 2; late++) {
        const char *name = late == 0 ? "sizes_recv_first" : "sizes_send_first";
        g_autoptr(test_et_t) a = test_et_new("0.0.4");
        test_et_node_dur(a, 1, "compute", TEST_COMP, late == 0 ? 100 : 0);
        test_et_send(a, 2, "send_activations", 1, 7, MiB);
        test_et_dep(a, 1);
        write_rank(a, name, 0);
        g_autoptr(test_et_t) b = test_et_new("0.0.4");
        test_et_node_dur(b, 1, "compute", TEST_COMP, late == 1 ? 100 : 0);
        test_et_recv(b, 2, "recv_activations", 0, 7, 2 * MiB);
        test_et_dep(b, 1);
        write_rank(b, name, 1);
        g_autoptr(weft_topo_t) topo = ring(2);
        GError *err = NULL;
        g_autoptr(weft_replay_result_t) res = replay(topo, name, NULL, &err);
        ck_assert_ptr_null(res);
        ck_assert_msg(g_error_matches(err, WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_MISMATCH), "%s",
                      err != NULL ? err->message : "no error");
        g_clear_error(&err);
    }
}
END_TEST

START_TEST(cpu_ops_overlap_gpu_compute)
{
    /* a 300 us CPU op and a 200 us GPU kernel, both ready at 0, then a 50 us kernel
     * after both: finish = 300 + 50 = 350 us; compute (either stream busy) = 350 us */
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node_dur(et, 1, "host_op", TEST_COMP, 300);
    test_et_attr_bool(et, "is_cpu_op", TRUE);
    test_et_node_dur(et, 2, "kernel", TEST_COMP, 200);
    test_et_node_dur(et, 3, "kernel2", TEST_COMP, 50);
    test_et_dep(et, 1);
    test_et_dep(et, 2);
    write_rank(et, "cpu", 0);
    g_autoptr(weft_topo_t) topo = ring(2);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay(topo, "cpu", NULL, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(res->step_ps, 350 * WEFT_PS_PER_US);
    ck_assert_int_eq(res->ranks[0].compute_ps, 350 * WEFT_PS_PER_US);
    assert_accounting(res);
}
END_TEST

START_TEST(same_inputs_give_identical_results)
{
    write_dp_step("det", 4);
    g_autoptr(weft_topo_t) topo = ring(4);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) a = replay(topo, "det", NULL, &err);
    g_autoptr(weft_replay_result_t) b = replay(topo, "det", NULL, &err);
    ck_assert(a != NULL && b != NULL);
    ck_assert_uint_eq(a->events, b->events);
    ck_assert_int_eq(memcmp(a->ranks, b->ranks, sizeof(weft_rank_result_t) * a->n_ranks), 0);
}
END_TEST

START_TEST(placement_moves_ranks_and_compute_scale_speeds_compute)
{
    /* two ranks exchange 1e6 B. In order (GPUs 0 and 1 of a 4-ring) a message
     * crosses one link: 0.5 + 20 = 20.5 us. Placed on GPUs 0 and 2 it crosses two:
     * 2 x 0.5 + 20 = 21 us. A 100 us kernel before the send, at compute_scale
     * 0.5, takes 50 us: 50 + 21 = 71 us. */
    for (guint r = 0; r < 2; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node_dur(et, 1, "kernel", TEST_COMP, 100);
        test_et_send(et, 2, "send", (gint32)(1 - r), 0, 1000000);
        test_et_dep(et, 1);
        test_et_recv(et, 3, "recv", (gint32)(1 - r), 0, 1000000);
        write_rank(et, "placed", r);
    }
    g_autoptr(weft_topo_t) topo = ring(4);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) a = replay(topo, "placed", NULL, &err);
    ck_assert_msg(a != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(a->step_ps, 120500000);
    const guint far[2] = {0, 2};
    weft_replay_options_t opts = {.rank_gpu = far, .compute_scale = 0.5};
    g_autoptr(weft_replay_result_t) b = replay_opts(topo, "placed", NULL, &opts, &err);
    ck_assert_msg(b != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(b->step_ps, 71000000);
    ck_assert_int_eq(b->ranks[0].compute_ps, 50000000);
    assert_accounting(b);
}
END_TEST

START_TEST(a_rank_that_starts_later_idles_until_its_start)
{
    /* The two ranks of placement_moves_ranks_and_compute_scale_speeds_compute (a 100 us
     * kernel, then a send of 1e6 B to the other, 20.5 us, and its receive), rank 1 starting
     * at 30 us (rank_start_ps). Rank 1: kernel [30, 130], its receive posted at 30 gets rank
     * 0's message (sent at 100) at 120.5, its send [130, 150.5]. Rank 0's receive ends at
     * 150.5 = the step (120.5 with both at 0). Rank 1: compute 100 us, exposed 20.5 us (its
     * send; the receive ran under the kernel), idle 30 us (before its start). */
    for (guint r = 0; r < 2; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_node_dur(et, 1, "kernel", TEST_COMP, 100);
        test_et_send(et, 2, "send", (gint32)(1 - r), 0, 1000000);
        test_et_dep(et, 1);
        test_et_recv(et, 3, "recv", (gint32)(1 - r), 0, 1000000);
        write_rank(et, "late", r);
    }
    g_autoptr(weft_topo_t) topo = ring(4);
    GError *err = NULL;
    const weft_time_t start[2] = {0, 30 * WEFT_PS_PER_US};
    weft_replay_options_t opts = {.rank_start_ps = start};
    g_autoptr(weft_replay_result_t) res = replay_opts(topo, "late", NULL, &opts, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    ck_assert_int_eq(res->step_ps, 150500000);
    ck_assert_int_eq(res->ranks[1].compute_ps, 100 * WEFT_PS_PER_US);
    ck_assert_int_eq(res->ranks[1].exposed_comm_ps, 20500000);
    ck_assert_int_eq(res->ranks[1].idle_ps, 30 * WEFT_PS_PER_US);
    assert_accounting(res);
}
END_TEST

START_TEST(time_beyond_the_clock_is_an_error_not_a_wrong_answer)
{
    /* two chained kernels of 5e12 us (~58 days) each: 1e13 us does not fit in
     * int64 picoseconds (9.22e18 ps = 9.22e12 us); the replay must fail */
    g_autoptr(test_et_t) et = test_et_new("0.0.4");
    test_et_node_dur(et, 1, "huge", TEST_COMP, 5000000000000ull);
    test_et_node_dur(et, 2, "huge2", TEST_COMP, 5000000000000ull);
    test_et_dep(et, 1);
    write_rank(et, "overflow", 0);
    g_autoptr(weft_topo_t) topo = ring(2);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay(topo, "overflow", NULL, &err);
    ck_assert_ptr_null(res);
    ck_assert(g_error_matches(err, WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_OVERFLOW));
    g_clear_error(&err);
}
END_TEST

typedef struct {
    guint nodes, per_stream[WEFT_REPLAY_N_STREAMS], colls;
    weft_time_t last_end, coll_start[2], coll_end[2], fwd_end;
} seen_t;

static void
see_node(void *data, guint rank, guint node, weft_replay_stream_t stream, weft_time_t start,
         weft_time_t end)
{
    seen_t *s = data;
    ck_assert_int_le(start, end);
    ck_assert_int_ge(end, s->last_end); /* reported in simulated-time order */
    s->last_end = end;
    s->nodes++;
    s->per_stream[stream]++;
    if (rank == 0 && node == 0) {
        s->fwd_end = end;
    }
}

static void
see_coll(void *data, const weft_replay_coll_event_t *ev)
{
    seen_t *s = data;
    ck_assert_uint_lt(ev->seq, 2);
    ck_assert_ptr_nonnull(ev->plan);
    ck_assert_uint_eq(ev->plan->size_bytes, 128 * MiB);
    s->coll_start[ev->seq] = ev->start_ps;
    s->coll_end[ev->seq] = ev->end_ps;
    s->colls++;
}

START_TEST(observer_sees_every_node_and_collective)
{
    write_dp_step("obs", 4);
    g_autoptr(weft_topo_t) topo = ring(4);
    seen_t seen = {0};
    weft_replay_observer_t obs = {&seen, see_node, see_coll};
    weft_replay_options_t opts = {.observer = &obs};
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) res = replay_opts(topo, "obs", NULL, &opts, &err);
    ck_assert_msg(res != NULL, "%s", err ? err->message : "");
    /* 6 nodes x 4 ranks: 4 COMP and 2 COMM_COLL per rank */
    ck_assert_uint_eq(seen.nodes, 24);
    ck_assert_uint_eq(seen.per_stream[WEFT_REPLAY_STREAM_COMPUTE], 16);
    ck_assert_uint_eq(seen.per_stream[WEFT_REPLAY_STREAM_COMM], 8);
    ck_assert_uint_eq(seen.colls, 2);
    /* times as derived in overlap_and_stream_order_in_a_data_parallel_step */
    ck_assert_int_eq(seen.fwd_end, 1500 * WEFT_PS_PER_US);
    ck_assert_int_eq(seen.coll_start[0], 2500 * WEFT_PS_PER_US);
    ck_assert_int_eq(seen.coll_end[0], 6529531840);
    ck_assert_int_eq(seen.coll_start[1], 6529531840);
    ck_assert_int_eq(seen.coll_end[1], 10559063680);
    ck_assert_int_eq(seen.last_end, res->step_ps);
}
END_TEST

/* Replays tmpdir/<name> on @topo under @model with @detail; link statistics into @links
 * (n_edges entries: bytes, busy, peak), when not NULL. */
static weft_replay_result_t *
replay_detail(weft_topo_t *topo, const char *name, const char *groups, weft_net_model_t model,
              weft_replay_detail_t detail, GHashTable *banned, weft_net_link_stats_t *links,
              GError **error)
{
    g_autofree char *prefix = g_build_filename(tmpdir, name, NULL);
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(prefix, groups, error);
    if (wl == NULL || !weft_workload_check(wl, weft_topo_n_gpus(topo), error)) {
        return NULL;
    }
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, model);
    weft_replay_options_t opts = {.collective_detail = detail, .detail_banned = banned};
    weft_replay_result_t *res = weft_replay_run(sim, net, wl, &opts, error);
    for (guint e = 0; res != NULL && links != NULL && e < weft_topo_n_edges(topo); e++) {
        links[e] = weft_net_link_stats(net, (gint)e);
    }
    return res;
}

/* Both results and every link's statistics are the same. */
static void
assert_same_run(const weft_replay_result_t *a, const weft_replay_result_t *b,
                const weft_net_link_stats_t *la, const weft_net_link_stats_t *lb, guint n_edges)
{
    ck_assert_int_eq(a->step_ps, b->step_ps);
    ck_assert_uint_eq(a->collectives, b->collectives);
    ck_assert_int_eq(memcmp(a->ranks, b->ranks, sizeof(weft_rank_result_t) * a->n_ranks), 0);
    for (guint e = 0; e < n_edges; e++) {
        ck_assert_double_eq_tol(la[e].bytes, lb[e].bytes, 1e-6);
        ck_assert_int_eq(la[e].busy_ps, lb[e].busy_ps);
        ck_assert_double_eq_tol(la[e].peak_util, lb[e].peak_util, 1e-12);
    }
}

START_TEST(timed_collectives_give_the_transfer_level_results)
{
    /* The data-parallel step on 8 ranks of a ring, and two sub-communicators side by side
     * on 4: every collective is alone on its links, so collectives.detail = auto runs each
     * as one event of its isolated time; results and link statistics must equal the
     * transfer-level run's to the picosecond, under both models. */
    write_dp_step("tdp", 8);
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_coll(et, 1, "all_reduce_half", 0, 1000000, r < 2 ? "1" : "2");
        write_rank(et, "tgroups", r);
    }
    g_autofree char *groups = g_build_filename(tmpdir, "tgroups.json", NULL);
    ck_assert(g_file_set_contents(groups, "{\"1\": [0, 1], \"2\": [2, 3]}", -1, NULL));
    static const struct {
        const char *name;
        guint n;
        gboolean grouped;
    } cases[] = {{"tdp", 8, FALSE}, {"tgroups", 4, TRUE}};
    for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
        for (guint m = 0; m < 2; m++) {
            weft_net_model_t model = m == 0 ? WEFT_NET_ANALYTICAL : WEFT_NET_FLOW;
            g_autoptr(weft_topo_t) topo = ring(cases[c].n);
            guint ne = weft_topo_n_edges(topo);
            g_autofree weft_net_link_stats_t *la = g_new0(weft_net_link_stats_t, ne);
            g_autofree weft_net_link_stats_t *lb = g_new0(weft_net_link_stats_t, ne);
            GError *err = NULL;
            const char *gr = cases[c].grouped ? groups : NULL;
            g_autoptr(weft_replay_result_t) a = replay_detail(
                topo, cases[c].name, gr, model, WEFT_REPLAY_DETAIL_TRANSFERS, NULL, la, &err);
            ck_assert_msg(a != NULL, "%s", err ? err->message : "");
            g_autoptr(weft_replay_result_t) b = replay_detail(
                topo, cases[c].name, gr, model, WEFT_REPLAY_DETAIL_AUTO, NULL, lb, &err);
            ck_assert_msg(b != NULL, "%s", err ? err->message : "");
            ck_assert_uint_eq(a->timed_collectives, 0);
            ck_assert_uint_eq(b->timed_collectives, b->collectives);
            ck_assert_uint_lt(b->events, a->events);
            assert_same_run(a, b, la, lb, ne);
        }
    }
}
END_TEST

/* Four ranks <name>.*.et: the ranks in @coll_mask all-reduce 4 MB in group "1"; rank
 * @sender computes 1 us, then sends 1 MiB (tag 7) to rank @receiver, which receives it. */
static void
write_conflict(const char *name, guint coll_mask, guint sender, guint receiver)
{
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        if (coll_mask & (1u << r)) {
            test_et_coll(et, 1, "all_reduce", 0, 4000000, "1");
        }
        if (r == receiver) {
            test_et_recv(et, 2, "recv", (gint)sender, 7, MiB);
        }
        if (r == sender) {
            test_et_node_dur(et, 2, "compute", TEST_COMP, 1);
            test_et_send(et, 3, "send", (gint)receiver, 7, MiB);
            test_et_dep(et, 2);
        }
        write_rank(et, name, r);
    }
}

START_TEST(a_transfer_on_a_timed_collectives_link_is_a_conflict)
{
    /* Ring of 8: ranks 0, 1, 2 all-reduce 4 MB (ring pairs 0->1, 1->2, 2->0 over 2->1->0:
     * every route one fixed path), so the collective holds edge gpu2->gpu1; rank 3 computes
     * 1 us, then sends 1 MiB eagerly to rank 1 over gpu3->gpu2->gpu1 while the all-reduce
     * (about 2 x 2 x (0.5 + 1.33e6 / 5e10 s) = 108 us) runs. The first run finds the
     * conflict and names the collective's shape; the rerun, with it banned, simulates it
     * transfer by transfer and equals the transfer-level run. */
    write_conflict("conflict", 0x7, 3, 1);
    g_autofree char *groups = g_build_filename(tmpdir, "conflict.json", NULL);
    ck_assert(g_file_set_contents(groups, "{\"1\": [0, 1, 2]}", -1, NULL));
    g_autoptr(weft_topo_t) topo = ring(8);
    guint ne = weft_topo_n_edges(topo);
    g_autofree weft_net_link_stats_t *la = g_new0(weft_net_link_stats_t, ne);
    g_autofree weft_net_link_stats_t *lb = g_new0(weft_net_link_stats_t, ne);
    g_autoptr(GHashTable) banned =
        g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) first =
        replay_detail(topo, "conflict", groups, WEFT_NET_FLOW, WEFT_REPLAY_DETAIL_AUTO, banned,
                      NULL, &err);
    ck_assert(first == NULL);
    ck_assert(g_error_matches(err, WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_DETAIL_CONFLICT));
    ck_assert_ptr_nonnull(strstr(err->message, "gpu2 -> gpu1"));
    g_clear_error(&err);
    ck_assert_uint_eq(g_hash_table_size(banned), 1);
    g_autoptr(weft_replay_result_t) again = replay_detail(
        topo, "conflict", groups, WEFT_NET_FLOW, WEFT_REPLAY_DETAIL_AUTO, banned, lb, &err);
    ck_assert_msg(again != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(again->timed_collectives, 0);
    g_autoptr(weft_replay_result_t) ref = replay_detail(
        topo, "conflict", groups, WEFT_NET_FLOW, WEFT_REPLAY_DETAIL_TRANSFERS, NULL, la, &err);
    ck_assert_msg(ref != NULL, "%s", err ? err->message : "");
    assert_same_run(ref, again, la, lb, ne);

    /* Under analytical too: gpu2 -> gpu1 joins two GPUs, so it is a port where the send
     * queues with the all-reduce (net.h), and the send arrives while the collective's
     * own transfers are running there: the same conflict, and the rerun with the shape
     * banned is the transfer-level run. */
    g_autoptr(weft_replay_result_t) an_ref = replay_detail(
        topo, "conflict", groups, WEFT_NET_ANALYTICAL, WEFT_REPLAY_DETAIL_TRANSFERS, NULL, la,
        &err);
    ck_assert_msg(an_ref != NULL, "%s", err ? err->message : "");
    g_autoptr(GHashTable) an_banned =
        g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
    g_autoptr(weft_replay_result_t) an_first = replay_detail(
        topo, "conflict", groups, WEFT_NET_ANALYTICAL, WEFT_REPLAY_DETAIL_AUTO, an_banned, NULL,
        &err);
    ck_assert(an_first == NULL);
    ck_assert(g_error_matches(err, WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_DETAIL_CONFLICT));
    ck_assert_ptr_nonnull(strstr(err->message, "gpu2 -> gpu1"));
    g_clear_error(&err);
    g_autoptr(weft_replay_result_t) an = replay_detail(
        topo, "conflict", groups, WEFT_NET_ANALYTICAL, WEFT_REPLAY_DETAIL_AUTO, an_banned, lb,
        &err);
    ck_assert_msg(an != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(an->timed_collectives, 0);
    assert_same_run(an_ref, an, la, lb, ne);
}
END_TEST

START_TEST(timed_collectives_over_ecmp_pairs_give_the_transfer_level_results)
{
    /* On leaf_spine4(), the ring all-reduce of the data-parallel step over 4 ranks has two
     * pairs on a leaf (0->1, 2->3: one path) and two across (1->2, 3->0: four paths, one per
     * flow); two sub-communicators {0, 2} and {1, 3} all-reduce across the leaves at once,
     * so their flows share spine links. Under analytical every route of a pair has the same
     * latency and rate: collectives.detail = auto times each collective as one event, its
     * cross-leaf transfers taking their pairs' flow ids in advance and replayed on their own
     * routes. Results and every link's bytes, busy time and peak must equal the
     * transfer-level run's. */
    write_dp_step("edp", 4);
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        test_et_coll(et, 1, "all_reduce_a", 0, 3000000, r % 2 == 0 ? "1" : "2");
        test_et_coll(et, 2, "all_reduce_b", 0, 1000000, r % 2 == 0 ? "1" : "2");
        test_et_dep(et, 1);
        write_rank(et, "egroups", r);
    }
    g_autofree char *groups = g_build_filename(tmpdir, "egroups.json", NULL);
    ck_assert(g_file_set_contents(groups, "{\"1\": [0, 2], \"2\": [1, 3]}", -1, NULL));
    g_autoptr(weft_topo_t) topo = leaf_spine4();
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    ck_assert(!weft_fabric_route_is_fixed(fabric, 1, 2));
    ck_assert(weft_fabric_route_is_fixed(fabric, 0, 1));
    guint ne = weft_topo_n_edges(topo);
    static const char *const names[] = {"edp", "egroups"};
    for (guint c = 0; c < G_N_ELEMENTS(names); c++) {
        g_autofree weft_net_link_stats_t *la = g_new0(weft_net_link_stats_t, ne);
        g_autofree weft_net_link_stats_t *lb = g_new0(weft_net_link_stats_t, ne);
        GError *err = NULL;
        const char *gr = c == 1 ? groups : NULL;
        g_autoptr(weft_replay_result_t) a =
            replay_detail(topo, names[c], gr, WEFT_NET_ANALYTICAL, WEFT_REPLAY_DETAIL_TRANSFERS,
                          NULL, la, &err);
        ck_assert_msg(a != NULL, "%s", err ? err->message : "");
        g_autoptr(weft_replay_result_t) b = replay_detail(
            topo, names[c], gr, WEFT_NET_ANALYTICAL, WEFT_REPLAY_DETAIL_AUTO, NULL, lb, &err);
        ck_assert_msg(b != NULL, "%s", err ? err->message : "");
        ck_assert_uint_eq(b->timed_collectives, b->collectives);
        ck_assert_uint_lt(b->events, a->events);
        assert_same_run(a, b, la, lb, ne);
        /* the flows spread over the spines: more than one spine uplink of leaf0 carries bytes */
        guint used = 0;
        for (guint e = 0; e < ne; e++) {
            const char *from = weft_topo_vertex_name(topo, weft_topo_edge_from(topo, (gint)e));
            const char *to = weft_topo_vertex_name(topo, weft_topo_edge_to(topo, (gint)e));
            used += strcmp(from, "leaf0") == 0 && g_str_has_prefix(to, "spine") && lb[e].bytes > 0;
        }
        ck_assert_uint_ge(used, 2);
    }
}
END_TEST

START_TEST(a_transfer_on_a_timed_collectives_ecmp_pair_is_a_conflict)
{
    /* Ranks 1 and 2 (across the leaves of leaf_spine4()) all-reduce 4 MB; rank 1 also sends
     * 1 MiB to rank 2 after 1 us of compute, while the all-reduce's transfers 1->2 are
     * still starting: the flow ids the timed collective took in advance would not be the
     * transfer-level run's, so the first run stops and names the pair; the rerun, with the
     * shape banned, equals the transfer-level run. */
    write_conflict("econflict", 0x6, 1, 2);
    g_autofree char *groups = g_build_filename(tmpdir, "econflict.json", NULL);
    ck_assert(g_file_set_contents(groups, "{\"1\": [1, 2]}", -1, NULL));
    g_autoptr(weft_topo_t) topo = leaf_spine4();
    guint ne = weft_topo_n_edges(topo);
    g_autofree weft_net_link_stats_t *la = g_new0(weft_net_link_stats_t, ne);
    g_autofree weft_net_link_stats_t *lb = g_new0(weft_net_link_stats_t, ne);
    g_autoptr(GHashTable) banned =
        g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
    GError *err = NULL;
    g_autoptr(weft_replay_result_t) first =
        replay_detail(topo, "econflict", groups, WEFT_NET_ANALYTICAL, WEFT_REPLAY_DETAIL_AUTO,
                      banned, NULL, &err);
    ck_assert(first == NULL);
    ck_assert(g_error_matches(err, WEFT_REPLAY_ERROR, WEFT_REPLAY_ERROR_DETAIL_CONFLICT));
    ck_assert_msg(strstr(err->message, "from gpu1 to gpu2") != NULL, "%s", err->message);
    g_clear_error(&err);
    /* the first run goes on past the conflict to name every shape that meets other traffic
     * (here also the edges the 1 MiB send then shares: the off-NVLink ban) */
    ck_assert_uint_ge(g_hash_table_size(banned), 1);
    g_autoptr(weft_replay_result_t) again =
        replay_detail(topo, "econflict", groups, WEFT_NET_ANALYTICAL, WEFT_REPLAY_DETAIL_AUTO,
                      banned, lb, &err);
    ck_assert_msg(again != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq(again->timed_collectives, 0);
    g_autoptr(weft_replay_result_t) ref =
        replay_detail(topo, "econflict", groups, WEFT_NET_ANALYTICAL,
                      WEFT_REPLAY_DETAIL_TRANSFERS, NULL, la, &err);
    ck_assert_msg(ref != NULL, "%s", err ? err->message : "");
    assert_same_run(ref, again, la, lb, ne);
}
END_TEST

START_TEST(a_coarse_collective_alone_takes_its_run_alone)
{
    /* collectives.detail = coarse under flow: ranks 1 and 2 of leaf_spine4() (across the
     * leaves, four paths by ECMP) all-reduce 4 MB in 1,024 chunks, 2 x 2 x 1,024 = 4,096
     * transfers. The aggregate flow's latency is what the run alone takes beyond the
     * aggregate's bandwidth phase, so alone it takes exactly the transfer-level time; its
     * links carry the same wire bytes (the spine uplinks in total: each pair spreads its
     * bytes evenly over its routes instead of flow by flow). */
    for (guint r = 0; r < 4; r++) {
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        if (r == 1 || r == 2) {
            test_et_coll(et, 1, "all_reduce", 0, 4000000, "1");
        }
        write_rank(et, "coarse", r);
    }
    g_autofree char *groups = g_build_filename(tmpdir, "coarse.json", NULL);
    ck_assert(g_file_set_contents(groups, "{\"1\": [1, 2]}", -1, NULL));
    g_autoptr(weft_topo_t) topo = leaf_spine4();
    guint ne = weft_topo_n_edges(topo);
    g_autofree char *prefix = g_build_filename(tmpdir, "coarse", NULL);
    weft_net_link_stats_t *ls[2] = {g_new0(weft_net_link_stats_t, ne),
                                    g_new0(weft_net_link_stats_t, ne)};
    weft_replay_result_t *res[2] = {NULL, NULL};
    for (guint i = 0; i < 2; i++) {
        GError *err = NULL;
        g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(prefix, groups, &err);
        ck_assert_msg(wl != NULL, "%s", err ? err->message : "");
        g_autoptr(weft_sim_t) sim = weft_sim_new(1);
        g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
        g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_FLOW);
        weft_replay_options_t opts = {
            .coll_chunks = 1024,
            .collective_detail = i == 0 ? WEFT_REPLAY_DETAIL_TRANSFERS : WEFT_REPLAY_DETAIL_COARSE};
        res[i] = weft_replay_run(sim, net, wl, &opts, &err);
        ck_assert_msg(res[i] != NULL, "%s", err ? err->message : "");
        for (guint e = 0; e < ne; e++) {
            ls[i][e] = weft_net_link_stats(net, (gint)e);
        }
    }
    ck_assert_uint_eq(res[0]->coarse_collectives, 0);
    ck_assert_uint_eq(res[1]->coarse_collectives, 1);
    ck_assert_uint_lt(res[1]->events, res[0]->events);
    ck_assert_int_eq(res[1]->step_ps, res[0]->step_ps);
    double up[2] = {0.0, 0.0};
    for (guint e = 0; e < ne; e++) {
        const char *from = weft_topo_vertex_name(topo, weft_topo_edge_from(topo, (gint)e));
        const char *to = weft_topo_vertex_name(topo, weft_topo_edge_to(topo, (gint)e));
        if (g_str_has_prefix(from, "gpu") || g_str_has_prefix(to, "gpu")) {
            /* a fixed first or last hop: the same bytes (to rounding of the aggregate) */
            ck_assert_double_eq_tol(ls[1][e].bytes, ls[0][e].bytes, 1.0);
        }
        if (strcmp(from, "leaf0") == 0 && g_str_has_prefix(to, "spine")) {
            up[0] += ls[0][e].bytes;
            up[1] += ls[1][e].bytes;
            /* spread evenly: each uplink a quarter of gpu1's 2 x 2,000,000 B */
            ck_assert_double_eq_tol(ls[1][e].bytes, 1000000.0, 1.0);
        }
    }
    ck_assert_double_eq_tol(up[0], 4000000.0, 1e-6);
    ck_assert_double_eq_tol(up[1], up[0], 1.0);
    for (guint i = 0; i < 2; i++) {
        weft_replay_result_free(res[i]);
        g_free(ls[i]);
    }
}
END_TEST

/* The plan of each collective a run executes (a lent planner's, see below). */
static void
see_plan(void *data, const weft_replay_coll_event_t *ev)
{
    const weft_coll_plan_t **plan = data;
    *plan = ev->plan;
}

START_TEST(a_lent_planner_runs_its_callers_plans_size_after_size)
{
    /*
     * weft coll's sweep: a caller plans each size with its planner (NCCL's tuning), then
     * replays the one-collective workload with that planner lent to the run, size after
     * size on one network. Each run executes the very plan the caller got (the workload's
     * world communicator has the caller's members: the planner finds it) and lasts what
     * that plan took run alone after the same sizes on one network, the former weft coll.
     * On the bundled dragonfly under flow a pair's path is chosen per flow id, counted per
     * pair over the network's life (net.h, weft_net_next_flow_id()): 32 KiB after 512 KiB
     * is not 32 KiB first, so the sequences agree only if they run alike. (Not 512 KiB
     * after 32 KiB: 32 KiB is a tree LL plan of 104 chunks, a multiple of the pairs' path
     * counts, after which every pair's next path is its first again.)
     */
    const char *src = g_getenv("WEFT_SRCDIR");
    g_autofree char *path =
        g_build_filename(src != NULL ? src : ".", "topologies", "dragonfly.ini", NULL);
    GError *err = NULL;
    g_autoptr(weft_topo_t) topo = weft_topo_load(path, &err);
    ck_assert_msg(topo != NULL, "%s", err ? err->message : "");
    guint n = weft_topo_n_gpus(topo);
    g_autofree gint *members = g_new(gint, n);
    for (guint g = 0; g < n; g++) {
        members[g] = weft_topo_gpu_vertex(topo, g);
    }
    weft_coll_tuning_t tun = {0};
    weft_coll_planner_config_t pcfg = {.tuning = &tun};
    /* one fabric state for the caller and its runs, as weft coll has */
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(topo);
    g_autoptr(weft_coll_planner_t) P = weft_coll_planner_new(fabric, &pcfg);
    ck_assert_uint_eq(weft_coll_planner_add_comm(P, members, n), 0);
    static const guint64 sizes[] = {512 * 1024, 32 * 1024};
    /* the former weft coll: each plan alone, one after the other on one network */
    weft_time_t alone[G_N_ELEMENTS(sizes)], first;
    {
        g_autoptr(weft_sim_t) sim = weft_sim_new(1);
        g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_FLOW);
        for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
            const weft_coll_plan_t *p =
                weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, sizes[i], 0, NULL, &err);
            ck_assert_msg(p != NULL, "%s", err ? err->message : "");
            alone[i] = weft_coll_time_full(sim, net, p, members, NULL, &err);
            ck_assert_int_gt(alone[i], 0);
        }
        g_autoptr(weft_sim_t) sim1 = weft_sim_new(1);
        g_autoptr(weft_net_t) net1 = weft_net_new(sim1, fabric, WEFT_NET_FLOW);
        first = weft_coll_time_full(
            sim1, net1, weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, sizes[1], 0, NULL, NULL),
            members, NULL, &err);
    }
    ck_assert_int_ne(alone[1], first); /* the history shows */
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, WEFT_NET_FLOW);
    for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
        const weft_coll_plan_t *p =
            weft_coll_planner_plan(P, WEFT_COLL_ALL_REDUCE, sizes[i], 0, NULL, &err);
        g_autoptr(weft_workload_t) wl =
            weft_workload_collective(WEFT_COLL_ALL_REDUCE, sizes[i], 1, n, &err);
        ck_assert(weft_workload_check(wl, n, &err));
        const weft_coll_plan_t *ran = NULL;
        weft_replay_observer_t obs = {.data = &ran, .collective = see_plan};
        weft_replay_options_t opts = {.planner = P, .observer = &obs};
        weft_time_t start = weft_sim_now(sim);
        g_autoptr(weft_replay_result_t) res = weft_replay_run(sim, net, wl, &opts, &err);
        ck_assert_msg(res != NULL, "%s", err ? err->message : "");
        ck_assert_ptr_eq(ran, p);
        ck_assert_int_eq(res->step_ps - start, alone[i]);
    }
    /* the runs registered no communicator of their own */
    ck_assert_uint_eq(weft_coll_planner_add_comm(P, members, n), 0);
}
END_TEST

/* ---- one cluster shared by replays in threads ------------------------------------------------ */

/* One replay on a shared cluster with a fabric state of its own (for the threads test). */
typedef struct {
    const weft_topo_t *topo; /* shared, read only */
    const char *prefix;      /* the workload's trace prefix */
    weft_net_model_t model;
    weft_replay_detail_t detail;
    guint64 seed;       /* the fabric state's ECMP seed */
    const char *faults; /* (nullable) fault lines, ';'-separated */
    weft_replay_result_t *res;
    weft_net_link_stats_t *links; /* per edge, after the step */
    char *error;                  /* why it failed: a thread does not ck_assert */
} shared_job_t;

static gpointer
shared_job_run(gpointer data)
{
    shared_job_t *j = data;
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_workload_t) wl = weft_workload_load_chakra(j->prefix, NULL, &err);
    if (wl == NULL || !weft_workload_check(wl, weft_topo_n_gpus(j->topo), &err)) {
        j->error = g_strdup(err->message);
        return NULL;
    }
    g_autoptr(weft_fabric_t) fabric = weft_fabric_new(j->topo);
    weft_fabric_set_ecmp_seed(fabric, j->seed);
    g_autoptr(weft_fault_plan_t) plan = weft_fault_plan_new(j->topo);
    weft_replay_options_t opts = {.collective_detail = j->detail};
    if (j->faults != NULL) {
        if (!weft_fault_plan_add_text(plan, j->faults, "test", TRUE, &err)) {
            j->error = g_strdup(err->message);
            return NULL;
        }
        opts.faults = plan;
    }
    g_autoptr(weft_sim_t) sim = weft_sim_new(1);
    g_autoptr(weft_net_t) net = weft_net_new(sim, fabric, j->model);
    j->res = weft_replay_run(sim, net, wl, &opts, &err);
    if (j->res == NULL) {
        j->error = g_strdup(err->message);
        return NULL;
    }
    guint ne = weft_topo_n_edges(j->topo);
    j->links = g_new0(weft_net_link_stats_t, ne);
    for (guint e = 0; e < ne; e++) {
        j->links[e] = weft_net_link_stats(net, (gint)e);
    }
    return NULL;
}

static void
shared_job_clear(shared_job_t *j)
{
    g_clear_pointer(&j->res, weft_replay_result_free);
    g_clear_pointer(&j->links, g_free);
    g_clear_pointer(&j->error, g_free);
}

START_TEST(replays_in_threads_on_one_cluster_match_sequential_runs)
{
    /* The data-parallel step on the 4-GPU leaf-spine (ECMP across the leaves), one cluster
     * shared by four replays that differ in model, ECMP seed, collective detail and faults
     * (a spine link down mid-step, a spine link at a fifth of its bandwidth): run one after
     * the other, then all four at once in threads, three times, each with a fabric state of
     * its own. The threads give the sequential results to the picosecond (nothing one run
     * changes reaches another), and the cluster is left as built. */
    write_dp_step("shared", 4);
    g_autofree char *prefix = g_build_filename(tmpdir, "shared", NULL);
    g_autoptr(weft_topo_t) topo = leaf_spine4();
    guint ne = weft_topo_n_edges(topo);
    const struct {
        weft_net_model_t model;
        weft_replay_detail_t detail;
        guint64 seed;
        const char *faults;
    } spec[] = {
        {WEFT_NET_FLOW, WEFT_REPLAY_DETAIL_TRANSFERS, 7, NULL},
        {WEFT_NET_FLOW, WEFT_REPLAY_DETAIL_TRANSFERS, 7,
         "0us link_degrade gpu1 leaf0 0.5; 3ms link_down leaf0 spine0; 3ms link_down leaf0 spine1"},
        {WEFT_NET_ANALYTICAL, WEFT_REPLAY_DETAIL_AUTO, 3, NULL},
        {WEFT_NET_ANALYTICAL, WEFT_REPLAY_DETAIL_TRANSFERS, 3,
         "0us link_degrade gpu2 leaf1 0.4; 0us link_down leaf1 spine3"},
    };
    enum { N = G_N_ELEMENTS(spec) };
    shared_job_t seq[N], par[N];
    for (guint i = 0; i < N; i++) {
        seq[i] = (shared_job_t){.topo = topo,
                                .prefix = prefix,
                                .model = spec[i].model,
                                .detail = spec[i].detail,
                                .seed = spec[i].seed,
                                .faults = spec[i].faults};
        shared_job_run(&seq[i]);
        ck_assert_msg(seq[i].error == NULL, "job %u: %s", i, seq[i].error);
    }
    /* the faults matter: a GPU link at half (or 0.4 x) its bandwidth slows the step, and
     * spine links go down (the fabric state builds views without them) */
    ck_assert_int_gt(seq[1].res->step_ps, seq[0].res->step_ps);
    ck_assert_int_gt(seq[3].res->step_ps, seq[2].res->step_ps);
    ck_assert_uint_eq(seq[1].res->faults_applied->len, 3);
    for (guint round = 0; round < 3; round++) {
        GThread *th[N];
        for (guint i = 0; i < N; i++) {
            par[i] = seq[i];
            par[i].res = NULL;
            par[i].links = NULL;
            th[i] = g_thread_new("replay", shared_job_run, &par[i]);
        }
        for (guint i = 0; i < N; i++) {
            g_thread_join(th[i]);
        }
        for (guint i = 0; i < N; i++) {
            ck_assert_msg(par[i].error == NULL, "round %u, job %u: %s", round, i, par[i].error);
            assert_same_run(seq[i].res, par[i].res, seq[i].links, par[i].links, ne);
            ck_assert_uint_eq(par[i].res->events, seq[i].res->events);
            ck_assert_uint_eq(par[i].res->faults_applied->len, seq[i].res->faults_applied->len);
            shared_job_clear(&par[i]);
        }
    }
    g_autoptr(weft_topo_t) fresh = leaf_spine4();
    g_autoptr(GString) why = g_string_new(NULL);
    ck_assert_msg(weft_topo_equal(topo, fresh, why), "%s", why->str);
    for (guint i = 0; i < N; i++) {
        shared_job_clear(&seq[i]);
    }
}
END_TEST

static Suite *
replay_suite(void)
{
    Suite *s = suite_create("replay");
    TCase *tc = tcase_create("replay");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, overlap_and_stream_order_in_a_data_parallel_step);
    tcase_add_test(tc, time_goes_to_the_layer_and_phase_of_what_runs);
    tcase_add_test(tc, communicator_names_give_parallelism_kinds);
    tcase_add_test(tc, text_workload_lines_are_layers);
    tcase_add_test(tc, a_bad_phase_attribute_is_an_error);
    tcase_add_test(tc, nccl_kernels_take_their_sms_from_the_compute_beside_them);
    tcase_add_test(tc, send_recv_ring_runs_concurrently);
    tcase_add_test(tc, eager_send_completes_before_a_late_receive);
    tcase_add_test(tc, a_replayed_send_runs_as_nccl_sends_it);
    tcase_add_test(tc, receive_posted_first_waits_for_its_send);
    tcase_add_test(tc, sub_communicators_run_side_by_side);
    tcase_add_test(tc, each_communicator_has_its_own_stream);
    tcase_add_test(tc, collective_a_member_never_reaches_is_a_deadlock);
    tcase_add_test(tc, members_disagreeing_on_size_is_an_error);
    tcase_add_test(tc, dangling_ctrl_dep_keeps_the_other_orderings);
    tcase_add_test(tc, cpu_flagged_collective_alone_runs_as_a_gpu_collective);
    tcase_add_test(tc, send_and_receive_of_different_sizes_is_a_mismatch);
    tcase_add_test(tc, cpu_ops_overlap_gpu_compute);
    tcase_add_test(tc, same_inputs_give_identical_results);
    tcase_add_test(tc, placement_moves_ranks_and_compute_scale_speeds_compute);
    tcase_add_test(tc, time_beyond_the_clock_is_an_error_not_a_wrong_answer);
    tcase_add_test(tc, observer_sees_every_node_and_collective);
    tcase_add_test(tc, timed_collectives_give_the_transfer_level_results);
    tcase_add_test(tc, a_transfer_on_a_timed_collectives_link_is_a_conflict);
    tcase_add_test(tc, timed_collectives_over_ecmp_pairs_give_the_transfer_level_results);
    tcase_add_test(tc, a_transfer_on_a_timed_collectives_ecmp_pair_is_a_conflict);
    tcase_add_test(tc, a_coarse_collective_alone_takes_its_run_alone);
    tcase_add_test(tc, a_lent_planner_runs_its_callers_plans_size_after_size);
    tcase_add_test(tc, replays_in_threads_on_one_cluster_match_sequential_runs);
    tcase_add_test(tc, a_rank_that_starts_later_idles_until_its_start);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(replay_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
