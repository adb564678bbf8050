/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the hardware catalog: every lookup by full name and by short
 * form in any case, unknown names (domain and code), the listing functions,
 * figures derived by hand from the datasheets (NVLink per-GPU totals, per-GPU
 * shares of rack figures, PCIe encodings), and a cross-check of every GPU row
 * and column of $WEFT_SHARED/validation/hardware.csv (skipped, visibly, when
 * that is absent).
 */
#include "hw/hw.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Relative closeness for figures computed in floating point. */
static gboolean
close_rel(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/* ---- lookups --------------------------------------------------------------------- */

START_TEST(gpu_lookup_by_full_name)
{
    const char *names[] = {"A100-SXM-80GB", "H100-SXM", "H200-SXM", "B200-SXM", "GB200"};
    for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
        GError *error = NULL;
        const weft_hw_gpu_t *g = weft_hw_gpu(names[i], &error);
        ck_assert_msg(g != NULL, "%s: %s", names[i], error ? error->message : "");
        ck_assert_str_eq(g->name, names[i]);
    }
}
END_TEST

START_TEST(gpu_lookup_by_short_form_any_case)
{
    /* Each short form of hw.h, in lower, upper and mixed case, finds its entry. */
    const char *pairs[][2] = {
        {"a100", "A100-SXM-80GB"}, {"A100", "A100-SXM-80GB"},          {"h100", "H100-SXM"},
        {"H100", "H100-SXM"},      {"h100-sxm", "H100-SXM"},           {"h200", "H200-SXM"},
        {"b200", "B200-SXM"},      {"B200-sxm", "B200-SXM"},           {"gb200", "GB200"},
        {"Gb200", "GB200"},        {"a100-sxm-80gb", "A100-SXM-80GB"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(pairs); i++) {
        GError *error = NULL;
        const weft_hw_gpu_t *g = weft_hw_gpu(pairs[i][0], &error);
        ck_assert_msg(g != NULL, "%s: %s", pairs[i][0], error ? error->message : "");
        ck_assert_str_eq(g->name, pairs[i][1]);
    }
}
END_TEST

START_TEST(nvswitch_lookup_by_name_and_generation)
{
    const char *pairs[][2] = {
        {"nvswitch-gen2", "nvswitch-gen2"}, {"gen2", "nvswitch-gen2"},
        {"NVSwitch-Gen3", "nvswitch-gen3"}, {"GEN3", "nvswitch-gen3"},
        {"gen4", "nvswitch-gen4"},          {"nvswitch-gen4", "nvswitch-gen4"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(pairs); i++) {
        GError *error = NULL;
        const weft_hw_nvswitch_t *s = weft_hw_nvswitch(pairs[i][0], &error);
        ck_assert_msg(s != NULL, "%s: %s", pairs[i][0], error ? error->message : "");
        ck_assert_str_eq(s->name, pairs[i][1]);
    }
}
END_TEST

START_TEST(nic_lookup_by_short_and_full_names)
{
    const char *pairs[][2] = {
        {"hdr", "cx6-hdr"},       {"HDR", "cx6-hdr"},       {"cx6-hdr", "cx6-hdr"},
        {"ndr", "cx7-ndr"},       {"CX7-NDR", "cx7-ndr"},   {"xdr", "cx8-xdr"},
        {"cx8-xdr", "cx8-xdr"},   {"efa", "aws-efa"},       {"AWS-EFA", "aws-efa"},
        {"roce-200", "roce-200"}, {"RoCE-400", "roce-400"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(pairs); i++) {
        GError *error = NULL;
        const weft_hw_nic_t *n = weft_hw_nic(pairs[i][0], &error);
        ck_assert_msg(n != NULL, "%s: %s", pairs[i][0], error ? error->message : "");
        ck_assert_str_eq(n->name, pairs[i][1]);
    }
}
END_TEST

START_TEST(pcie_lookup_by_name_and_generation)
{
    const char *pairs[][2] = {
        {"gen3", "pcie-gen3"}, {"pcie-gen4", "pcie-gen4"}, {"GEN5", "pcie-gen5"},
        {"gen6", "pcie-gen6"}, {"PCIe-Gen6", "pcie-gen6"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(pairs); i++) {
        GError *error = NULL;
        const weft_hw_pcie_t *p = weft_hw_pcie(pairs[i][0], &error);
        ck_assert_msg(p != NULL, "%s: %s", pairs[i][0], error ? error->message : "");
        ck_assert_str_eq(p->name, pairs[i][1]);
    }
}
END_TEST

START_TEST(unknown_names_are_errors)
{
    /* Near misses must not match: no prefix or substring matching. */
    GError *error = NULL;
    ck_assert_ptr_null(weft_hw_gpu("v100", &error));
    ck_assert_msg(g_error_matches(error, WEFT_HW_ERROR, WEFT_HW_ERROR_UNKNOWN), "gpu");
    g_clear_error(&error);
    ck_assert_ptr_null(weft_hw_gpu("h10", &error));
    ck_assert_msg(g_error_matches(error, WEFT_HW_ERROR, WEFT_HW_ERROR_UNKNOWN), "gpu prefix");
    g_clear_error(&error);
    ck_assert_ptr_null(weft_hw_gpu("", &error));
    ck_assert_msg(g_error_matches(error, WEFT_HW_ERROR, WEFT_HW_ERROR_UNKNOWN), "gpu empty");
    g_clear_error(&error);
    ck_assert_ptr_null(weft_hw_nvswitch("gen1", &error));
    ck_assert_msg(g_error_matches(error, WEFT_HW_ERROR, WEFT_HW_ERROR_UNKNOWN), "nvswitch");
    g_clear_error(&error);
    ck_assert_ptr_null(weft_hw_nic("edr", &error));
    ck_assert_msg(g_error_matches(error, WEFT_HW_ERROR, WEFT_HW_ERROR_UNKNOWN), "nic");
    g_clear_error(&error);
    ck_assert_ptr_null(weft_hw_pcie("gen7", &error));
    ck_assert_msg(g_error_matches(error, WEFT_HW_ERROR, WEFT_HW_ERROR_UNKNOWN), "pcie");
    g_clear_error(&error);
    /* A NULL error is allowed. */
    ck_assert_ptr_null(weft_hw_nic("omni-path", NULL));
}
END_TEST

START_TEST(listings_are_complete_and_consistent)
{
    /* Counts: 5 GPUs, 3 NVSwitch generations, 11 NICs, 4 PCIe generations; every entry
     * is found again by its own name (so no short form shadows another entry) and
     * cites a source; every NIC says where its latency comes from, or why it has none. */
    guint n;
    const weft_hw_gpu_t *g = weft_hw_gpus(&n);
    ck_assert_uint_eq(n, 5);
    for (guint i = 0; i < n; i++) {
        ck_assert_ptr_eq(weft_hw_gpu(g[i].name, NULL), &g[i]);
        ck_assert_msg(g[i].source != NULL && strlen(g[i].source) > 20, "%s", g[i].name);
        ck_assert(g[i].bf16_flops > 0 && g[i].hbm_bytes > 0 && g[i].hbm_Bps > 0);
        ck_assert(g[i].nvlink_links > 0 && g[i].nvlink_link_Bps > 0);
        ck_assert_uint_ge(g[i].nvlink_gen, 3);
        ck_assert_uint_le(g[i].nvlink_gen, 5);
    }
    const weft_hw_nvswitch_t *s = weft_hw_nvswitches(&n);
    ck_assert_uint_eq(n, 3);
    for (guint i = 0; i < n; i++) {
        ck_assert_ptr_eq(weft_hw_nvswitch(s[i].name, NULL), &s[i]);
        ck_assert_uint_eq(s[i].generation, i + 2);
        ck_assert_msg(s[i].source != NULL && strlen(s[i].source) > 20, "%s", s[i].name);
    }
    const weft_hw_nic_t *c = weft_hw_nics(&n);
    ck_assert_uint_eq(n, 11);
    for (guint i = 0; i < n; i++) {
        ck_assert_ptr_eq(weft_hw_nic(c[i].name, NULL), &c[i]);
        ck_assert(c[i].rate_Bps > 0);
        ck_assert_msg(c[i].source != NULL && strlen(c[i].source) > 20, "%s", c[i].name);
        ck_assert_msg(c[i].latency_source != NULL && strlen(c[i].latency_source) > 20, "%s",
                      c[i].name);
        ck_assert_int_ge(c[i].latency_ps, 0);
        ck_assert_msg((c[i].msg_cost_ps > 0) == (c[i].msg_source != NULL), "%s", c[i].name);
    }
    const weft_hw_pcie_t *p = weft_hw_pcies(&n);
    ck_assert_uint_eq(n, 4);
    for (guint i = 0; i < n; i++) {
        ck_assert_ptr_eq(weft_hw_pcie(p[i].name, NULL), &p[i]);
        ck_assert_uint_eq(p[i].generation, i + 3);
        ck_assert_msg(p[i].source != NULL && strlen(p[i].source) > 20, "%s", p[i].name);
    }
}
END_TEST

/* ---- derived figures ------------------------------------------------------------- */

START_TEST(gpu_nvlink_totals_per_direction)
{
    /* Per GPU per direction = links x per-link rate:
     * A100 12 x 25e9 = 300e9 (600 GB/s bidirectional, A100 datasheet);
     * H100 and H200 18 x 25e9 = 450e9 (900 GB/s bidirectional);
     * B200 and GB200 18 x 50e9 = 900e9 (1.8 TB/s bidirectional). */
    const struct {
        const char *name;
        guint links;
        double link_Bps, total_Bps;
    } want[] = {
        {"a100", 12, 25e9, 300e9}, {"h100", 18, 25e9, 450e9},  {"h200", 18, 25e9, 450e9},
        {"b200", 18, 50e9, 900e9}, {"gb200", 18, 50e9, 900e9},
    };
    for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
        const weft_hw_gpu_t *g = weft_hw_gpu(want[i].name, NULL);
        ck_assert_ptr_nonnull(g);
        ck_assert_uint_eq(g->nvlink_links, want[i].links);
        ck_assert_double_eq(g->nvlink_link_Bps, want[i].link_Bps);
        ck_assert_double_eq(g->nvlink_links * g->nvlink_link_Bps, want[i].total_Bps);
    }
}
END_TEST

START_TEST(gb200_is_the_nvl72_rack_divided_by_72)
{
    /* GB200 NVL72 datasheet, whole rack: FP16/BF16 360 PFLOPS and FP8 720 PFLOPS with
     * sparsity, 13.4 TB HBM3e, 576 TB/s, 130 TB/s NVLink. Per GPU (/72, dense = /2):
     * BF16 360e15 / 2 / 72 = 2.5e15; FP8 720e15 / 2 / 72 = 5e15;
     * HBM 13.4e12 / 72 = 186.1e9 -> 186e9 (1 GB tolerance); 576e12 / 72 = 8e12;
     * NVLink 130e12 / 72 = 1.806e12 bidirectional ~ 2 x 900e9 = 1.8e12. */
    const weft_hw_gpu_t *g = weft_hw_gpu("GB200", NULL);
    ck_assert_ptr_nonnull(g);
    ck_assert(close_rel(g->bf16_flops, 360e15 / 2 / 72));
    ck_assert(close_rel(g->fp8_flops, 720e15 / 2 / 72));
    ck_assert(fabs(g->hbm_bytes - 13.4e12 / 72) < 1e9);
    ck_assert(close_rel(g->hbm_Bps, 576e12 / 72));
    ck_assert(fabs(2 * g->nvlink_links * g->nvlink_link_Bps - 130e12 / 72) < 0.01e12);
    /* The GB200 die runs faster than the HGX B200 part: 2.5 > 2.25 PFLOPS BF16. */
    ck_assert(g->bf16_flops > weft_hw_gpu("b200", NULL)->bf16_flops);
}
END_TEST

START_TEST(b200_is_the_hgx_board_divided_by_8)
{
    /* HGX B200, 8 GPUs: FP16/BF16 36 PFLOPS and FP8 72 PFLOPS with sparsity, 1,440 GB,
     * 64 TB/s. Per GPU dense: 36e15 / 2 / 8 = 2.25e15; 72e15 / 2 / 8 = 4.5e15;
     * 1440e9 / 8 = 180e9; 64e12 / 8 = 8e12. */
    const weft_hw_gpu_t *g = weft_hw_gpu("B200-SXM", NULL);
    ck_assert_ptr_nonnull(g);
    ck_assert(close_rel(g->bf16_flops, 36e15 / 2 / 8));
    ck_assert(close_rel(g->fp8_flops, 72e15 / 2 / 8));
    ck_assert(close_rel(g->hbm_bytes, 1440e9 / 8));
    ck_assert(close_rel(g->hbm_Bps, 64e12 / 8));
}
END_TEST

START_TEST(a100_has_no_fp8_and_hopper_doubles_bf16)
{
    /* A100: no FP8 tensor cores -> 0. H100: FP8 1,979 = 2 x BF16 989 (dense). */
    ck_assert_double_eq(weft_hw_gpu("a100", NULL)->fp8_flops, 0);
    const weft_hw_gpu_t *h = weft_hw_gpu("h100", NULL);
    ck_assert_double_eq(h->bf16_flops, 989e12);
    ck_assert_double_eq(h->fp8_flops, 1979e12);
    /* H200 = H100 compute, more and faster memory: 141 GB at 4.8 TB/s. */
    const weft_hw_gpu_t *h2 = weft_hw_gpu("h200", NULL);
    ck_assert_double_eq(h2->bf16_flops, h->bf16_flops);
    ck_assert_double_eq(h2->hbm_bytes, 141e9);
    ck_assert_double_eq(h2->hbm_Bps, 4.8e12);
}
END_TEST

START_TEST(nvswitch_ports_and_rates)
{
    /* gen2: 36 NVLink3 ports x 25e9 per direction = 900e9 (1.8 TB/s bidirectional);
     * gen3: 64 NVLink4 ports x 25e9 = 1.6e12 (3.2 TB/s bidirectional), SHARP;
     * gen4: 72 NVLink5 ports x 50e9 = 3.6e12 (7.2 TB/s bidirectional), SHARP. */
    const weft_hw_nvswitch_t *s2 = weft_hw_nvswitch("gen2", NULL);
    const weft_hw_nvswitch_t *s3 = weft_hw_nvswitch("gen3", NULL);
    const weft_hw_nvswitch_t *s4 = weft_hw_nvswitch("gen4", NULL);
    ck_assert_uint_eq(s2->nvlink_ports, 36);
    ck_assert_double_eq(s2->nvlink_ports * s2->port_Bps, 900e9);
    ck_assert(!s2->sharp);
    ck_assert_uint_eq(s3->nvlink_ports, 64);
    ck_assert_double_eq(2 * s3->nvlink_ports * s3->port_Bps, 3.2e12);
    ck_assert(s3->sharp);
    ck_assert_uint_eq(s4->nvlink_ports, 72);
    ck_assert_double_eq(2 * s4->nvlink_ports * s4->port_Bps, 7.2e12);
    ck_assert(s4->sharp);
    /* A switch port runs at its GPU generation's link rate: H100 link = gen3 port. */
    ck_assert_double_eq(s3->port_Bps, weft_hw_gpu("h100", NULL)->nvlink_link_Bps);
    ck_assert_double_eq(s4->port_Bps, weft_hw_gpu("gb200", NULL)->nvlink_link_Bps);
    ck_assert_double_eq(s2->port_Bps, weft_hw_gpu("a100", NULL)->nvlink_link_Bps);
}
END_TEST

START_TEST(nic_rates_per_direction)
{
    /* Gb/s / 8 = bytes/s: HDR 200 -> 25e9, NDR 400 -> 50e9, XDR 800 -> 100e9,
     * RoCE 200 -> 25e9, RoCE 400 -> 50e9; one EFA device 100 Gb/s -> 12.5e9, and a p5
     * instance's 32 of them: 32 x 12.5e9 = 400e9 = 3,200 Gb/s. */
    const struct {
        const char *name, *fabric;
        double Bps;
    } want[] = {
        {"hdr", "infiniband", 25e9},    {"ndr", "infiniband", 50e9},
        {"xdr", "infiniband", 100e9},   {"roce-200", "ethernet", 25e9},
        {"roce-400", "ethernet", 50e9}, {"efa", "efa", 12.5e9},
    };
    for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
        const weft_hw_nic_t *n = weft_hw_nic(want[i].name, NULL);
        ck_assert_ptr_nonnull(n);
        ck_assert_str_eq(n->fabric, want[i].fabric);
        ck_assert_double_eq(n->rate_Bps, want[i].Bps);
    }
    ck_assert_double_eq(32 * weft_hw_nic("efa", NULL)->rate_Bps, 3200e9 / 8);
}
END_TEST

START_TEST(network_kinds_latency_and_message_cost)
{
    /* Per network kind: rate (Gb/s / 8), one-way GPU-to-GPU latency across one switch and
     * per-message cost, ps.
     *  - EFA, every generation: 20 us one way (aws-ofi-nccl nccl_ofi_tuner.h
     *    OFI_NCCL_TUNER_NET_LATENCY) and 3 us per message (..._NET_COMP_OVERHEAD);
     *    v1 (p4d: 4 x 100 Gb/s) and v2 (p5: 32 x 100) 12.5e9 B/s a device, v4 (p6-b200:
     *    3,200 Gb/s over 8 cards) 400 / 8 = 50e9;
     *  - TCPX/TCPXO: 200 Gb/s gVNIC -> 25e9; no latency published (the plugin reports 0);
     *  - Omni-Path 100 Gb/s -> 12.5e9, no GPU-to-GPU latency published;
     *  - InfiniBand: NCCL's IB transport reports none. */
    const struct {
        const char *name, *fabric;
        double Bps;
        gint64 lat_ps, msg_ps;
    } want[] = {
        {"efa-v1", "efa", 12.5e9, 20000000, 3000000},  {"efa-v2", "efa", 12.5e9, 20000000, 3000000},
        {"aws-efa", "efa", 12.5e9, 20000000, 3000000}, {"efa-v4", "efa", 50e9, 20000000, 3000000},
        {"gcp-tcpx", "ethernet", 25e9, 0, 0},          {"gcp-tcpxo", "ethernet", 25e9, 0, 0},
        {"opa-100", "omni-path", 12.5e9, 0, 0},        {"ndr", "infiniband", 50e9, 0, 0},
    };
    for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
        const weft_hw_nic_t *n = weft_hw_nic(want[i].name, NULL);
        ck_assert_msg(n != NULL, "%s", want[i].name);
        ck_assert_str_eq(n->fabric, want[i].fabric);
        ck_assert_double_eq(n->rate_Bps, want[i].Bps);
        ck_assert_int_eq(n->latency_ps, want[i].lat_ps);
        ck_assert_int_eq(n->msg_cost_ps, want[i].msg_ps);
    }
    /* efa-v2 is the p5 device: the same entry as aws-efa / efa */
    ck_assert_ptr_eq(weft_hw_nic("efa-v2", NULL), weft_hw_nic("efa", NULL));
    ck_assert_ptr_ne(weft_hw_nic("efa-v1", NULL), weft_hw_nic("efa", NULL));
    /* p6-b200: 8 cards x 50e9 = 400e9 B/s = 3,200 Gb/s per instance, as p5's 32 x 12.5e9 */
    ck_assert_double_eq(8 * weft_hw_nic("efa-v4", NULL)->rate_Bps, 3200e9 / 8);
}
END_TEST

START_TEST(nvswitch_generation_carries_its_gpus_nvlink)
{
    /* NVSwitch gen2 (DGX A100) carries NVLink3, gen3 (DGX H100) NVLink4, gen4 (B200, GB200)
     * NVLink5: generation + 1, and every GPU of the catalog finds its switch. */
    const struct {
        const char *nvswitch;
        guint nvlink;
        const char *gpu;
    } want[] = {
        {"gen2", 3, "a100"}, {"gen3", 4, "h100"},  {"gen3", 4, "h200"},
        {"gen4", 5, "b200"}, {"gen4", 5, "gb200"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
        const weft_hw_nvswitch_t *s = weft_hw_nvswitch(want[i].nvswitch, NULL);
        ck_assert_uint_eq(weft_hw_nvswitch_nvlink_gen(s), want[i].nvlink);
        ck_assert_uint_eq(weft_hw_gpu(want[i].gpu, NULL)->nvlink_gen, want[i].nvlink);
    }
}
END_TEST

START_TEST(pcie_x16_usable_rates)
{
    /* gen3: 8e9 x 16 x 128/130 / 8 = 15,753,846,153.8 B/s;
     * gen4: 16e9 x 16 x 128/130 / 8 = 31,507,692,307.7 (the "31.5 GB/s");
     * gen5: 32e9 x 16 x 128/130 / 8 = 63,015,384,615.4 (the "63.0 GB/s");
     * gen6: 64e9 x 16 x 242/256 / 8 = 121,000,000,000 exactly. */
    ck_assert(fabs(weft_hw_pcie("gen3", NULL)->x16_Bps - 15753846153.8) < 1);
    ck_assert(fabs(weft_hw_pcie("gen4", NULL)->x16_Bps - 31507692307.7) < 1);
    ck_assert(fabs(weft_hw_pcie("gen5", NULL)->x16_Bps - 63015384615.4) < 1);
    ck_assert_double_eq(weft_hw_pcie("gen6", NULL)->x16_Bps, 121e9);
    /* Each generation doubles the transfer rate; gen6 loses a little more to its flit. */
    ck_assert(
        close_rel(weft_hw_pcie("gen5", NULL)->x16_Bps, 2 * weft_hw_pcie("gen4", NULL)->x16_Bps));
    ck_assert(weft_hw_pcie("gen6", NULL)->x16_Bps < 2 * weft_hw_pcie("gen5", NULL)->x16_Bps);
}
END_TEST

/* ---- the validation table ----------------------------------------------------------- */

/*
 * A CSV cell "2.0" is a figure rounded to one decimal: the catalog agrees with it
 * when it lies within half a unit of its last written digit (2.039 TB/s agrees
 * with "2.0"; 2.1 would not). Returns FALSE and a description otherwise.
 */
static gboolean
agrees(const char *cell, double catalog_in_csv_units, char **why)
{
    char *end = NULL;
    double v = g_ascii_strtod(cell, &end);
    if (end == cell || *end != '\0') {
        *why = g_strdup_printf("cell \"%s\" is not a number", cell);
        return FALSE;
    }
    const char *dot = strchr(cell, '.');
    int decimals = dot != NULL ? (int)strlen(dot + 1) : 0;
    double tol = 0.5 * pow(10, -decimals) * (1 + 1e-9);
    if (fabs(catalog_in_csv_units - v) > tol) {
        *why = g_strdup_printf("catalog %.6g, csv \"%s\" (tolerance %g)", catalog_in_csv_units,
                               cell, tol);
        return FALSE;
    }
    return TRUE;
}

START_TEST(catalog_agrees_with_validation_hardware_csv)
{
    const char *shared = g_getenv("WEFT_SHARED");
    g_autofree char *path =
        shared != NULL ? g_build_filename(shared, "validation", "hardware.csv", NULL) : NULL;
    if (path == NULL || !g_file_test(path, G_FILE_TEST_EXISTS)) {
        printf("catalog_agrees_with_validation_hardware_csv: skipped (%s)\n",
               path != NULL ? "validation/hardware.csv absent" : "WEFT_SHARED unset");
        return;
    }
    g_autofree char *text = NULL;
    GError *error = NULL;
    ck_assert_msg(g_file_get_contents(path, &text, NULL, &error), "%s",
                  error ? error->message : "");
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_auto(GStrv) header = NULL;
    guint rows = 0, cells = 0;
    for (guint l = 0; lines[l] != NULL; l++) {
        char *line = g_strstrip(lines[l]);
        if (line[0] == '\0' || line[0] == '#') {
            continue;
        }
        if (header == NULL) {
            header = g_strsplit(line, ",", -1);
            ck_assert_str_eq(header[0], "gpu");
            continue;
        }
        g_auto(GStrv) f = g_strsplit(line, ",", -1);
        ck_assert_msg(g_strv_length(f) == g_strv_length(header), "%s:%u: %u fields, header %u",
                      path, l + 1, g_strv_length(f), g_strv_length(header));
        const weft_hw_gpu_t *g = weft_hw_gpu(f[0], &error);
        ck_assert_msg(g != NULL, "%s:%u: %s", path, l + 1, error ? error->message : "");
        ck_assert_str_eq(g->name, f[0]);
        rows++;
        for (guint c = 1; header[c] != NULL; c++) {
            const char *col = header[c];
            if (f[c][0] == '\0') {
                continue; /* the table has no figure there */
            }
            double mine;
            if (strcmp(col, "bf16_tflops") == 0) {
                mine = g->bf16_flops / 1e12;
            } else if (strcmp(col, "fp8_tflops") == 0) {
                mine = g->fp8_flops / 1e12;
            } else if (strcmp(col, "hbm_gb") == 0) {
                mine = g->hbm_bytes / 1e9;
            } else if (strcmp(col, "hbm_tbps") == 0) {
                mine = g->hbm_Bps / 1e12;
            } else if (strcmp(col, "nvlink_gen") == 0) {
                mine = g->nvlink_gen;
            } else if (strcmp(col, "nvlink_links") == 0) {
                mine = g->nvlink_links;
            } else if (strcmp(col, "nvlink_gbs_per_dir") == 0) {
                mine = g->nvlink_links * g->nvlink_link_Bps / 1e9;
            } else if (strcmp(col, "measured_matmul_bf16_tflops") == 0) {
                mine = g->measured_matmul_bf16_flops / 1e12;
            } else {
                /* A new column must be mapped here, not silently ignored. */
                ck_abort_msg("%s: column \"%s\" has no catalog field", path, col);
                continue;
            }
            g_autofree char *why = NULL;
            ck_assert_msg(agrees(f[c], mine, &why), "%s:%u: %s %s: %s", path, l + 1, f[0], col,
                          why);
            cells++;
        }
    }
    /* The table as shipped has 4 GPU rows; every one was checked. */
    ck_assert_uint_ge(rows, 4);
    ck_assert_uint_gt(cells, 0);
}
END_TEST

START_TEST(csv_tolerance_is_half_the_last_digit)
{
    /* "2.0" accepts 2.039 (|diff| 0.039 <= 0.05) and rejects 2.06; "3.35" rejects 3.36
     * (0.01 > 0.005); "989" accepts 989.4 and rejects 989.6 (0.6 > 0.5). */
    g_autofree char *w1 = NULL, *w2 = NULL, *w3 = NULL, *w4 = NULL, *w5 = NULL;
    ck_assert(agrees("2.0", 2.039, &w1));
    ck_assert(!agrees("2.0", 2.06, &w2));
    ck_assert(!agrees("3.35", 3.36, &w3));
    ck_assert(agrees("989", 989.4, &w4));
    ck_assert(!agrees("989", 989.6, &w5));
}
END_TEST

static Suite *
hw_suite(void)
{
    Suite *s = suite_create("hw");
    TCase *tc = tcase_create("catalog");
    tcase_add_test(tc, gpu_lookup_by_full_name);
    tcase_add_test(tc, gpu_lookup_by_short_form_any_case);
    tcase_add_test(tc, nvswitch_lookup_by_name_and_generation);
    tcase_add_test(tc, nic_lookup_by_short_and_full_names);
    tcase_add_test(tc, pcie_lookup_by_name_and_generation);
    tcase_add_test(tc, unknown_names_are_errors);
    tcase_add_test(tc, listings_are_complete_and_consistent);
    tcase_add_test(tc, gpu_nvlink_totals_per_direction);
    tcase_add_test(tc, gb200_is_the_nvl72_rack_divided_by_72);
    tcase_add_test(tc, b200_is_the_hgx_board_divided_by_8);
    tcase_add_test(tc, a100_has_no_fp8_and_hopper_doubles_bf16);
    tcase_add_test(tc, nvswitch_ports_and_rates);
    tcase_add_test(tc, nic_rates_per_direction);
    tcase_add_test(tc, network_kinds_latency_and_message_cost);
    tcase_add_test(tc, nvswitch_generation_carries_its_gpus_nvlink);
    tcase_add_test(tc, pcie_x16_usable_rates);
    tcase_add_test(tc, catalog_agrees_with_validation_hardware_csv);
    tcase_add_test(tc, csv_tolerance_is_half_the_last_digit);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(hw_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
