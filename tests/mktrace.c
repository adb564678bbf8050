/* SPDX-License-Identifier: MIT */
/*
 * mktrace: writes small Chakra ET workloads for weft's bundled examples and
 * for the command-line tests, good ones and deliberately broken ones. The
 * bundled traces/ are this program's output (tests/cli.sh checks that they
 * still are), so every trace weft ships was made by weft.
 *
 *   mktrace SCENARIO RANKS PREFIX     writes PREFIX.0.et .. PREFIX.<RANKS-1>.et
 *
 * Scenarios: dp-step (a data-parallel training step whose second gradient
 * all-reduce overlaps backward compute), and broken inputs: missing-dep, cycle,
 * unmatched-send, coll-deadlock, truncated, corrupt-varint, empty; and inputs
 * that load with a warning: dangling-ctrl-dep (a 10 us forward, a 1 MiB
 * all-reduce with a ctrl_dep on it, and a node with a ctrl_dep on node 0,
 * which no file has), cpu-flagged-coll (a 100 us forward, then a 64 MiB
 * all-reduce marked is_cpu_op, as a converter that mis-sets the flag writes it).
 * p2p-size-mismatch (broken: rank 0 sends 1 MiB to rank 1, which receives 2 MiB
 * with the same tag) fails the replay. roofline: a chain of four compute nodes for
 * ASTRA-sim's roofline (tests/astra_system_cli.sh): "gemm" (2 us; num_ops 1e12,
 * tensor_size 2^20), "norm" (3 us; num_ops 2^20, tensor_size 2^30), "nosize" (7 us;
 * num_ops 1e9, no tensor_size), "host" (5 us, is_cpu_op).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define MiB (1024ull * 1024ull)

static int
usage(void)
{
    fprintf(stderr,
            "usage: mktrace dp-step|missing-dep|cycle|unmatched-send|coll-deadlock|"
            "truncated|corrupt-varint|empty|dangling-ctrl-dep|cpu-flagged-coll|p2p-size-mismatch|"
            "roofline "
            "RANKS PREFIX\n");
    return 2;
}

int
main(int argc, char **argv)
{
    if (argc != 4) {
        return usage();
    }
    const char *scenario = argv[1];
    guint ranks = (guint)atoi(argv[2]);
    const char *prefix = argv[3];
    if (ranks < 1 || ranks > 4096) {
        return usage();
    }
    for (guint r = 0; r < ranks; r++) {
        g_autofree char *path = g_strdup_printf("%s.%u.et", prefix, r);
        g_autoptr(test_et_t) et = test_et_new("0.0.4");
        if (g_str_equal(scenario, "dp-step")) {
            test_et_dp_step(et);
        } else if (g_str_equal(scenario, "missing-dep")) {
            /* rank 0's node 2 depends on node 99, which no file has */
            test_et_node_dur(et, 1, "forward", TEST_COMP, 10);
            test_et_node_dur(et, 2, "backward", TEST_COMP, 10);
            test_et_dep(et, r == 0 ? 99 : 1);
        } else if (g_str_equal(scenario, "cycle")) {
            /* rank 0: 1 -> 2 -> 3 -> 1 */
            test_et_node_dur(et, 1, "a", TEST_COMP, 10);
            if (r == 0) {
                test_et_dep(et, 3);
            }
            test_et_node_dur(et, 2, "b", TEST_COMP, 10);
            test_et_dep(et, 1);
            test_et_node_dur(et, 3, "c", TEST_COMP, 10);
            test_et_dep(et, 2);
        } else if (g_str_equal(scenario, "unmatched-send")) {
            /* rank 0 sends to rank 1, which never receives */
            test_et_node_dur(et, 1, "compute", TEST_COMP, 10);
            if (r == 0 && ranks > 1) {
                test_et_send(et, 2, "send_activations", 1, 7, MiB);
                test_et_dep(et, 1);
            }
        } else if (g_str_equal(scenario, "coll-deadlock")) {
            /* every rank but the last joins an all-reduce of the world */
            test_et_node_dur(et, 1, "compute", TEST_COMP, 10);
            if (r + 1 < ranks) {
                test_et_coll(et, 2, "all_reduce_grad", 0, MiB, NULL);
                test_et_dep(et, 1);
            }
        } else if (g_str_equal(scenario, "dangling-ctrl-dep")) {
            test_et_node_dur(et, 1, "forward", TEST_COMP, 10);
            test_et_coll(et, 2, "all_reduce_grad", 0, MiB, NULL);
            test_et_ctrl_dep(et, 1);
            test_et_node(et, 3, "optimizer", TEST_COMP);
            test_et_ctrl_dep(et, 0); /* no node 0 */
        } else if (g_str_equal(scenario, "cpu-flagged-coll")) {
            test_et_node_dur(et, 1, "forward", TEST_COMP, 100);
            test_et_coll(et, 2, "all_reduce_grad", 0, 64 * MiB, NULL);
            test_et_attr_bool(et, "is_cpu_op", TRUE);
            test_et_dep(et, 1);
        } else if (g_str_equal(scenario, "roofline")) {
            test_et_node_dur(et, 1, "gemm", TEST_COMP, 2);
            test_et_attr_int(et, "num_ops", 1000000000000);
            test_et_attr_int(et, "tensor_size", 1 << 20);
            test_et_node_dur(et, 2, "norm", TEST_COMP, 3);
            test_et_attr_int(et, "num_ops", 1 << 20);
            test_et_attr_int(et, "tensor_size", 1 << 30);
            test_et_dep(et, 1);
            test_et_node_dur(et, 3, "nosize", TEST_COMP, 7);
            test_et_attr_int(et, "num_ops", 1000000000);
            test_et_dep(et, 2);
            test_et_node_dur(et, 4, "host", TEST_COMP, 5);
            test_et_attr_bool(et, "is_cpu_op", TRUE);
            test_et_dep(et, 3);
        } else if (g_str_equal(scenario, "p2p-size-mismatch")) {
            test_et_node_dur(et, 1, "compute", TEST_COMP, 10);
            if (r == 0 && ranks > 1) {
                test_et_send(et, 2, "send_activations", 1, 7, MiB);
                test_et_dep(et, 1);
            } else if (r == 1) {
                test_et_recv(et, 2, "recv_activations", 0, 7, 2 * MiB);
                test_et_dep(et, 1);
            }
        } else if (g_str_equal(scenario, "truncated")) {
            test_et_dp_step(et);
            test_et_write(et, path, FALSE);
            /* drop the last 5 bytes: the final message is cut short */
            g_byte_array_set_size(et->bytes, et->bytes->len - 5);
        } else if (g_str_equal(scenario, "corrupt-varint")) {
            static const guint8 bad[11] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                           0xff, 0xff, 0xff, 0xff, 0xff};
            test_et_raw(et, bad, sizeof bad);
        } else if (g_str_equal(scenario, "empty")) {
            g_byte_array_set_size(et->bytes, 0);
        } else {
            return usage();
        }
        test_et_flush(et);
        GError *error = NULL;
        if (!g_file_set_contents(path, (const char *)et->bytes->data, et->bytes->len, &error)) {
            fprintf(stderr, "mktrace: %s\n", error->message);
            g_error_free(error);
            return 1;
        }
    }
    return 0;
}
