/* SPDX-License-Identifier: MIT */
/*
 * The hardware catalog: constant tables of GPUs, NVSwitch generations, NICs and
 * PCIe generations, each entry with the datasheet it comes from, and
 * case-insensitive lookup by full name or short form (doc/hardware.md lists
 * every figure). The tables are read-only static data, so lookups are
 * thread-safe and return pointers that live as long as the program.
 */
#define G_LOG_DOMAIN "weft-hw"

#include "hw/hw.h"

/* The quark's name is stringified from tokens: clang-format must not space its dashes. */
/* clang-format off */
G_DEFINE_QUARK(weft-hw-error-quark, weft_hw_error)
/* clang-format on */

#define GB 1e9    /* bytes */
#define TBPS 1e12 /* bytes per second */
#define TFLOPS 1e12
#define GBIT_PER_S (1e9 / 8.0) /* bytes per second in one Gb/s */

/* Per-link, per-direction NVLink rates: NVLink3 is 4 lanes x 50 Gb/s, NVLink4 2
 * lanes x 100 Gb/s, NVLink5 2 lanes x 200 Gb/s (stas00/ml-engineering
 * network/README.md NVLink table; NVIDIA: A100 12 links = 600 GB/s, H100 18
 * links = 900 GB/s, Blackwell 18 links = 1.8 TB/s, all bidirectional). */
#define NVLINK3_LINK_BPS 25e9
#define NVLINK4_LINK_BPS 25e9
#define NVLINK5_LINK_BPS 50e9

/* Achievable streaming bandwidth of H100 SXM: no measurement of the part was found. The two
 * measured GH100 parts of te42kyfo/gpu-benches gpu-stream @1c36d50 (triad, best over an
 * occupancy sweep; compute_peaks.csv) reach 1832 of 2000 GB/s (H100 PCIe, 0.916) and 3534 of
 * 4800 (H200, 0.736): the fraction falls as bandwidth per SM rises. H100 SXM's 3350 GB/s
 * interpolated linearly between them: 0.829 x 3350 = 2778 GB/s. */
#define H100_STREAM_BPS                                                                            \
    (3350 * GB * (0.916 + (3350.0 - 2000.0) / (4800.0 - 2000.0) * (0.73625 - 0.916)))
/* B200 / GB200: no measurement found; the fraction of the most recent measured HBM3e part
 * (H200: 3534 / 4800 = 0.736) of the 8 TB/s datasheet figure: 5890 GB/s. */
#define B200_STREAM_BPS (8000 * GB * 3534.0 / 4800.0)

/* Short forms: at most this many per entry, NULL-terminated rows. */
#define MAX_ALIASES 4

static const weft_hw_gpu_t gpus[] = {
    {
        .name = "A100-SXM-80GB",
        .bf16_flops = 312 * TFLOPS,
        .fp8_flops = 0, /* Ampere tensor cores have no FP8 */
        .hbm_bytes = 80 * GB,
        .hbm_Bps = 2.039 * TBPS,
        .nvlink_gen = 3,
        .nvlink_links = 12,
        .nvlink_link_Bps = NVLINK3_LINK_BPS,
        .measured_matmul_bf16_flops = 271.2 * TFLOPS,
        /* A100 whitepaper: 108 SMs; gpu-stream triad on an A100 80GB (te42kyfo/gpu-benches
         * gpu-stream/a100_80.txt @1c36d50, SKU not stated; compute_peaks.csv) */
        .sm_count = 108,
        .hbm_stream_Bps = 1759 * GB,
        .source = "NVIDIA A100 Tensor Core GPU datasheet, A100 80GB SXM column: BF16 312 TFLOPS "
                  "dense (624 with sparsity), 80 GB HBM2e, 2,039 GB/s, NVLink 600 GB/s "
                  "bidirectional = 12 NVLink3 links x 25 GB/s per direction (A100 whitepaper); "
                  "no FP8; measured matmul 271.2 TFLOPS from ../shared/validation/hardware.csv "
                  "(stas00/ml-engineering)",
    },
    {
        .name = "H100-SXM",
        .bf16_flops = 989 * TFLOPS,
        .fp8_flops = 1979 * TFLOPS,
        .hbm_bytes = 80 * GB,
        .hbm_Bps = 3.35 * TBPS,
        .nvlink_gen = 4,
        .nvlink_links = 18,
        .nvlink_link_Bps = NVLINK4_LINK_BPS,
        .measured_matmul_bf16_flops = 794.5 * TFLOPS,
        /* Hopper whitepaper: 132 SMs on H100 SXM5; stream bandwidth: see H100_STREAM_BPS */
        .sm_count = 132,
        .hbm_stream_Bps = H100_STREAM_BPS,
        .source = "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column: BF16 1,979 and FP8 "
                  "3,958 TFLOPS with sparsity, i.e. 989 and 1,979 dense; 80 GB HBM3, 3.35 TB/s; "
                  "NVLink 900 GB/s bidirectional = 18 NVLink4 links x 25 GB/s per direction; "
                  "measured matmul 794.5 TFLOPS from ../shared/validation/hardware.csv",
    },
    {
        .name = "H200-SXM",
        .bf16_flops = 989 * TFLOPS,
        .fp8_flops = 1979 * TFLOPS,
        .hbm_bytes = 141 * GB,
        .hbm_Bps = 4.8 * TBPS,
        .nvlink_gen = 4,
        .nvlink_links = 18,
        .nvlink_link_Bps = NVLINK4_LINK_BPS,
        .measured_matmul_bf16_flops = 0, /* the validation table has none */
        /* the H100 SXM5 GH100 configuration; gpu-stream triad (gpu-benches h200.txt @1c36d50) */
        .sm_count = 132,
        .hbm_stream_Bps = 3534 * GB,
        .source = "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column: same compute as H100 "
                  "SXM (BF16 989, FP8 1,979 TFLOPS dense), 141 GB HBM3e, 4.8 TB/s, NVLink 900 "
                  "GB/s bidirectional = 18 NVLink4 links x 25 GB/s per direction",
    },
    {
        .name = "B200-SXM",
        .bf16_flops = 2250 * TFLOPS,
        .fp8_flops = 4500 * TFLOPS,
        .hbm_bytes = 180 * GB,
        .hbm_Bps = 8.0 * TBPS,
        .nvlink_gen = 5,
        .nvlink_links = 18,
        .nvlink_link_Bps = NVLINK5_LINK_BPS,
        .measured_matmul_bf16_flops = 1745 * TFLOPS,
        /* Blackwell: 148 SMs per B200; stream bandwidth: see B200_STREAM_BPS */
        .sm_count = 148,
        .hbm_stream_Bps = B200_STREAM_BPS,
        .source = "derived: NVIDIA HGX B200 / DGX B200 datasheet totals for 8 GPUs divided by 8 "
                  "(FP16/BF16 36 and FP8 72 PFLOPS with sparsity -> 2,250 and 4,500 TFLOPS "
                  "dense per GPU; 1,440 GB HBM3e -> 180 GB; 64 TB/s -> 8 TB/s); NVLink5 18 "
                  "links x 50 GB/s per direction = 1.8 TB/s bidirectional; as tabulated in "
                  "../shared/validation/hardware.csv (measured matmul 1,745 TFLOPS)",
    },
    {
        .name = "GB200",
        .bf16_flops = 2500 * TFLOPS,
        .fp8_flops = 5000 * TFLOPS,
        .hbm_bytes = 186 * GB,
        .hbm_Bps = 8.0 * TBPS,
        .nvlink_gen = 5,
        .nvlink_links = 18,
        .nvlink_link_Bps = NVLINK5_LINK_BPS,
        .measured_matmul_bf16_flops = 0, /* the validation table has none */
        /* the same Blackwell GPU as B200 (NVIDIA publishes no other SM count) */
        .sm_count = 148,
        .hbm_stream_Bps = B200_STREAM_BPS,
        /* NVIDIA GB200 NVL72 datasheet: "GB200 Grace Blackwell Superchip", 2 Blackwell GPUs
         * and 1 Grace CPU per superchip, 36 of them per rack */
        .superchip = TRUE,
        .source = "derived: NVIDIA GB200 NVL72 datasheet rack figures divided by its 72 GPUs "
                  "(FP16/BF16 360 and FP8 720 PFLOPS with sparsity -> 2,500 and 5,000 TFLOPS "
                  "dense per GPU; 13.4 TB HBM3e -> 186 GB; 576 TB/s -> 8 TB/s; 130 TB/s NVLink "
                  "= 72 x 1.8 TB/s = 18 NVLink5 links x 50 GB/s per direction); per-chip BF16 "
                  "2,500 / FP8 5,000 as in stas00/ml-engineering compute/accelerator/README.md",
    },
};

static const char *const gpu_aliases[G_N_ELEMENTS(gpus)][MAX_ALIASES] = {
    {"a100", "a100-sxm", NULL}, {"h100", NULL}, {"h200", NULL}, {"b200", NULL}, {"gb200", NULL},
};

static const weft_hw_nvswitch_t nvswitches[] = {
    {
        .name = "nvswitch-gen2",
        .generation = 2,
        .nvlink_ports = 36,
        .port_Bps = NVLINK3_LINK_BPS,
        .sharp = FALSE,
        .source = "NVIDIA A100 whitepaper / DGX A100 user guide (second-generation NVSwitch, six "
                  "per DGX A100, 600 GB/s per GPU, 4.8 TB/s total); 36 NVLink3 ports x 50 GB/s "
                  "bidirectional = 1.8 TB/s per chip (Hot Chips NVSwitch tables as tabulated by "
                  "secondary sources); no in-switch reduction before gen3",
    },
    {
        .name = "nvswitch-gen3",
        .generation = 3,
        .nvlink_ports = 64,
        .port_Bps = NVLINK4_LINK_BPS,
        .sharp = TRUE,
        .source = "NVIDIA developer blog 'Upgrading Multi-GPU Interconnectivity with the "
                  "Third-Generation NVIDIA NVSwitch' and nvidia.com/data-center/nvlink: 64 NVLink4 "
                  "ports with SHARP in-network reduction and multicast (NCCL NVLS); 64 x 50 GB/s "
                  "bidirectional = 3.2 TB/s per chip",
    },
    {
        .name = "nvswitch-gen4",
        .generation = 4,
        .nvlink_ports = 72,
        .port_Bps = NVLINK5_LINK_BPS,
        .sharp = TRUE,
        .source = "NVIDIA Hot Chips 2024 Blackwell platform talk: NVLink Switch chip with 72 "
                  "NVLink5 ports, 7.2 TB/s bidirectional (72 x 100 GB/s), SHARP; two chips per "
                  "NVLink Switch tray (144 ports, 14.4 TB/s, nvidia.com/data-center/nvlink), 9 "
                  "trays per GB200 NVL72",
    },
};

static const char *const nvswitch_aliases[G_N_ELEMENTS(nvswitches)][MAX_ALIASES] = {
    {"gen2", NULL},
    {"gen3", NULL},
    {"gen4", NULL},
};

/* What every InfiniBand and RoCE entry says about latency: no vendor publishes a one-way
 * GPU-to-GPU figure, and NCCL's own IB transport reports none to its tuner (NCCL 2.20.3
 * src/transport/net_ib.cc ncclIbGetProperties: props->latency = 0, "Not set"). */
#define IB_NO_LATENCY                                                                              \
    "none published: NCCL's IB transport reports latency 0 to its tuner (NCCL 2.20.3 "             \
    "src/transport/net_ib.cc ncclIbGetProperties, 'Not set'); the cluster's pcie_latency and "     \
    "fabric_latency carry the path"

/* EFA: one figure for every generation. AWS's NCCL tuner models the network latency of a hop
 * as 20 us one way and adds 3 us of completion overhead per message, for every platform it
 * tunes (p5/p5e, p5en, p6: aws-ofi-nccl include/nccl_ofi_tuner.h). */
#define EFA_LATENCY_PS 20000000
#define EFA_LATENCY_SOURCE                                                                         \
    "aws-ofi-nccl include/nccl_ofi_tuner.h OFI_NCCL_TUNER_NET_LATENCY = 20 us, the one-way "       \
    "network latency AWS's tuner charges a hop (the same for its p5/p5e, p5en and p6 platforms); " \
    "the plugin's own property (props->latency, src/platform-aws.cpp platform_data_map: 75 us on " \
    "p4d/p4de/p5/p5e, 35 us on p5en/p6) is a tuning knob ('NCCL's internal tuner choices work "    \
    "better with this value'), not a measurement"
#define EFA_MSG_COST_PS 3000000
#define EFA_MSG_SOURCE                                                                             \
    "aws-ofi-nccl include/nccl_ofi_tuner.h OFI_NCCL_TUNER_NET_COMP_OVERHEAD = 3 us: 'With EFA, "   \
    "we expect a ~2usec cost in the device and ~1usec cost to write that completion up to the "    \
    "host stack' (AWS's tuner adds it to every network step of the Simple protocol, "              \
    "src/tuner/nccl_ofi_model.c)"

/* GPUDirect-TCPX/TCPXO: Google's NCCL plugin reports no latency either. */
#define TCPX_NO_LATENCY                                                                            \
    "none published: Google's NCCL plugin reports latency 0 to NCCL "                              \
    "(google/nccl-plugin-gpudirecttcpx src/net_tcpx.cc tcpxGetProperties, first open-source "      \
    "commit 4b8ea7f) and GCP's GPU network documents give bandwidths only; the cluster's "         \
    "pcie_latency and fabric_latency carry the path"

static const weft_hw_nic_t nics[] = {
    {
        .name = "cx6-hdr",
        .fabric = "infiniband",
        .rate_Bps = 200 * GBIT_PER_S,
        .source = "NVIDIA ConnectX-6 VPI adapter datasheet: HDR InfiniBand 200 Gb/s per port "
                  "(4 lanes x 50 Gb/s); DGX A100 has 8 for compute, one per GPU",
        .latency_source = IB_NO_LATENCY,
    },
    {
        .name = "cx7-ndr",
        .fabric = "infiniband",
        .rate_Bps = 400 * GBIT_PER_S,
        .source = "NVIDIA ConnectX-7 adapter datasheet: NDR InfiniBand 400 Gb/s per port (4 "
                  "lanes x 100 Gb/s); DGX H100 has 8 for compute, one per GPU",
        .latency_source = IB_NO_LATENCY,
    },
    {
        .name = "cx8-xdr",
        .fabric = "infiniband",
        .rate_Bps = 800 * GBIT_PER_S,
        .source = "NVIDIA ConnectX-8 SuperNIC firmware release notes / datasheet: XDR InfiniBand "
                  "800 Gb/s (4 lanes x 200 Gb/s)",
        .latency_source = IB_NO_LATENCY,
    },
    {
        .name = "aws-efa",
        .fabric = "efa",
        .rate_Bps = 100 * GBIT_PER_S,
        .source = "derived: one EFA network interface (EFA v2) of an AWS p5.48xlarge or "
                  "p5e.48xlarge, 3,200 Gb/s per instance over 32 EFA devices (AWS EC2 P5 page; "
                  "EC2 user guide 'EFA configuration for P5 and P5e instances') = 100 Gb/s each, "
                  "4 per GPU",
        .msg_cost_ps = EFA_MSG_COST_PS,
        .msg_source = EFA_MSG_SOURCE,
        .latency_ps = EFA_LATENCY_PS,
        .latency_source = EFA_LATENCY_SOURCE,
    },
    {
        .name = "efa-v1",
        .fabric = "efa",
        .rate_Bps = 100 * GBIT_PER_S,
        .source = "derived: one EFA device of an AWS p4d.24xlarge or p4de.24xlarge, 400 Gb/s "
                  "per instance over 4 EFA devices (AWS EC2 P4 page: '400 Gbps ... EFA'; "
                  "aws-ofi-nccl's p4d-24xl-topo.xml / p4de-24xl-topo.xml put one EFA and two "
                  "A100 on each of 4 PCIe switches) = 100 Gb/s each, one per two GPUs",
        .msg_cost_ps = EFA_MSG_COST_PS,
        .msg_source = EFA_MSG_SOURCE,
        .latency_ps = EFA_LATENCY_PS,
        .latency_source = EFA_LATENCY_SOURCE,
    },
    {
        .name = "efa-v4",
        .fabric = "efa",
        .rate_Bps = 400 * GBIT_PER_S,
        .source = "derived: one EFA network card (EFA v4) of an AWS p6-b200.48xlarge, 3,200 "
                  "Gb/s of EFAv4 per instance (AWS EC2 P6 page) over 8 network cards = 400 Gb/s "
                  "each, one per B200",
        .msg_cost_ps = EFA_MSG_COST_PS,
        .msg_source = EFA_MSG_SOURCE,
        .latency_ps = EFA_LATENCY_PS,
        .latency_source = EFA_LATENCY_SOURCE,
    },
    {
        .name = "gcp-tcpx",
        .fabric = "ethernet",
        .rate_Bps = 200 * GBIT_PER_S,
        .source = "Google Cloud 'GPU machine types' and 'Maximize GPU network bandwidth with "
                  "GPUDirect-TCPX' (compute/docs/gpus/gpudirect): a3-highgpu-8g has 4 gVNIC "
                  "NICs of 200 Gb/s for GPU traffic (800 Gb/s, plus one for the host), one per "
                  "two H100 behind a PCIe switch",
        .latency_source = TCPX_NO_LATENCY,
    },
    {
        .name = "gcp-tcpxo",
        .fabric = "ethernet",
        .rate_Bps = 200 * GBIT_PER_S,
        .source = "Google Cloud 'GPU machine types' and GKE 'Maximize GPU network bandwidth "
                  "with GPUDirect-TCPXO': a3-megagpu-8g has 8 NICs of 200 Gb/s for GPU traffic "
                  "(1,600 Gb/s, plus one for the host: 1,800 Gb/s in all), one per H100, with "
                  "the TCPXO offload",
        .latency_source = TCPX_NO_LATENCY,
    },
    {
        .name = "opa-100",
        .fabric = "omni-path",
        .rate_Bps = 100 * GBIT_PER_S,
        .source = "Intel Omni-Path Host Fabric Interface 100 Series adapter product brief: 100 "
                  "Gb/s per port (4 lanes x 25 Gb/s); Jean Zay's A100 nodes have 4, one per two "
                  "GPUs (IDRIS Jean Zay hardware page)",
        .latency_source = "none used: Intel publishes switch port-to-port latency (100-110 ns, "
                          "Omni-Path Edge Switch 100 Series) and MPI ping-pong figures from CPU "
                          "memory, not a GPU-to-GPU one; the cluster's pcie_latency and "
                          "fabric_latency carry the path",
    },
    {
        .name = "roce-200",
        .fabric = "ethernet",
        .rate_Bps = 200 * GBIT_PER_S,
        .source = "IEEE 802.3 200GbE (e.g. NVIDIA ConnectX-6 Dx 200GbE port) carrying RoCEv2",
        .latency_source = IB_NO_LATENCY, /* RoCE runs NCCL's IB transport */
    },
    {
        .name = "roce-400",
        .fabric = "ethernet",
        .rate_Bps = 400 * GBIT_PER_S,
        .source = "IEEE 802.3 400GbE (e.g. NVIDIA ConnectX-7 / BlueField-3 400GbE port) carrying "
                  "RoCEv2",
        .latency_source = IB_NO_LATENCY,
    },
};

static const char *const nic_aliases[G_N_ELEMENTS(nics)][MAX_ALIASES] = {
    {"hdr", NULL}, {"ndr", NULL}, {"xdr", NULL}, {"efa", "efa-v2", NULL},
    {NULL},        {NULL},        {NULL},        {NULL},
    {NULL},        {NULL},        {NULL},
};

/* x16 usable per-direction rate: GT/s x 16 lanes x encoding efficiency / 8 bits. Gen3-5 use
 * 128b/130b; gen6 carries 242 of every 256 flit bytes (236 TLP + 6 DLP; 8 CRC and 6 FEC bytes
 * are overhead). */
#define PCIE_X16_BPS(gts, eff) ((gts)*1e9 * 16.0 * (eff) / 8.0)

static const weft_hw_pcie_t pcies[] = {
    {
        .name = "pcie-gen3",
        .generation = 3,
        .x16_Bps = PCIE_X16_BPS(8.0, 128.0 / 130.0),
        .source = "derived: PCIe 3.0 base spec 8 GT/s per lane, 128b/130b encoding: 8 x 16 x "
                  "128/130 / 8 = 15.75 GB/s",
    },
    {
        .name = "pcie-gen4",
        .generation = 4,
        .x16_Bps = PCIE_X16_BPS(16.0, 128.0 / 130.0),
        .source = "derived: PCIe 4.0 base spec 16 GT/s per lane, 128b/130b encoding: 16 x 16 x "
                  "128/130 / 8 = 31.5 GB/s",
    },
    {
        .name = "pcie-gen5",
        .generation = 5,
        .x16_Bps = PCIE_X16_BPS(32.0, 128.0 / 130.0),
        .source = "derived: PCIe 5.0 base spec 32 GT/s per lane, 128b/130b encoding: 32 x 16 x "
                  "128/130 / 8 = 63.0 GB/s",
    },
    {
        .name = "pcie-gen6",
        .generation = 6,
        .x16_Bps = PCIE_X16_BPS(64.0, 242.0 / 256.0),
        .source = "derived: PCIe 6.0 base spec 64 GT/s per lane PAM4 in FLIT mode, 256-byte flit "
                  "= 236 TLP + 6 DLP + 8 CRC + 6 FEC bytes: 64 x 16 x 242/256 / 8 = 121 GB/s "
                  "(stas00/ml-engineering network/README.md lists 121 GB/s)",
    },
};

static const char *const pcie_aliases[G_N_ELEMENTS(pcies)][MAX_ALIASES] = {
    {"gen3", NULL},
    {"gen4", NULL},
    {"gen5", NULL},
    {"gen6", NULL},
};

/* One table for the generic lookup. Every entry struct starts with `const char *name`. */
typedef struct {
    const char *what; /* "GPU", "NVSwitch"... for messages */
    const void *entries;
    guint n;
    gsize stride;
    const char *const *aliases; /* n rows of MAX_ALIASES */
} table_t;

static const char *
entry_name(const table_t *t, guint i)
{
    return *(const char *const *)(const void *)((const char *)t->entries + i * t->stride);
}

/* Index of @name (full name or short form, ASCII case-insensitive) in @t, or -1 with
 * WEFT_HW_ERROR_UNKNOWN naming the value and every known name. */
static gint
table_find(const table_t *t, const char *name, GError **error)
{
    for (guint i = 0; i < t->n; i++) {
        if (g_ascii_strcasecmp(name, entry_name(t, i)) == 0) {
            return (gint)i;
        }
        const char *const *al = t->aliases + (gsize)i * MAX_ALIASES;
        for (guint a = 0; a < MAX_ALIASES && al[a] != NULL; a++) {
            if (g_ascii_strcasecmp(name, al[a]) == 0) {
                return (gint)i;
            }
        }
    }
    g_autoptr(GString) known = g_string_new(NULL);
    for (guint i = 0; i < t->n; i++) {
        g_string_append_printf(known, "%s%s", i > 0 ? ", " : "", entry_name(t, i));
        const char *const *al = t->aliases + (gsize)i * MAX_ALIASES;
        for (guint a = 0; a < MAX_ALIASES && al[a] != NULL; a++) {
            g_string_append_printf(known, "%s%s", a == 0 ? " (also " : "/", al[a]);
            if (a + 1 == MAX_ALIASES || al[a + 1] == NULL) {
                g_string_append_c(known, ')');
            }
        }
    }
    g_set_error(error, WEFT_HW_ERROR, WEFT_HW_ERROR_UNKNOWN,
                "unknown %s \"%s\": known names (case-insensitive) are %s", t->what, name,
                known->str);
    return -1;
}

#define TABLE(what, arr, al)                                                                       \
    ((table_t){(what), (arr), G_N_ELEMENTS(arr), sizeof((arr)[0]), &(al)[0][0]})

const weft_hw_gpu_t *
weft_hw_gpu(const char *name, GError **error)
{
    g_return_val_if_fail(name != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    table_t t = TABLE("GPU", gpus, gpu_aliases);
    gint i = table_find(&t, name, error);
    return i < 0 ? NULL : &gpus[i];
}

const weft_hw_nvswitch_t *
weft_hw_nvswitch(const char *name, GError **error)
{
    g_return_val_if_fail(name != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    table_t t = TABLE("NVSwitch", nvswitches, nvswitch_aliases);
    gint i = table_find(&t, name, error);
    return i < 0 ? NULL : &nvswitches[i];
}

const weft_hw_nic_t *
weft_hw_nic(const char *name, GError **error)
{
    g_return_val_if_fail(name != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    table_t t = TABLE("NIC", nics, nic_aliases);
    gint i = table_find(&t, name, error);
    return i < 0 ? NULL : &nics[i];
}

const weft_hw_pcie_t *
weft_hw_pcie(const char *name, GError **error)
{
    g_return_val_if_fail(name != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    table_t t = TABLE("PCIe generation", pcies, pcie_aliases);
    gint i = table_find(&t, name, error);
    return i < 0 ? NULL : &pcies[i];
}

guint
weft_hw_nvswitch_nvlink_gen(const weft_hw_nvswitch_t *nvs)
{
    g_return_val_if_fail(nvs != NULL, 0);
    return nvs->generation + 1;
}

const weft_hw_gpu_t *
weft_hw_gpus(guint *n)
{
    g_return_val_if_fail(n != NULL, NULL);
    *n = G_N_ELEMENTS(gpus);
    return gpus;
}

const weft_hw_nvswitch_t *
weft_hw_nvswitches(guint *n)
{
    g_return_val_if_fail(n != NULL, NULL);
    *n = G_N_ELEMENTS(nvswitches);
    return nvswitches;
}

const weft_hw_nic_t *
weft_hw_nics(guint *n)
{
    g_return_val_if_fail(n != NULL, NULL);
    *n = G_N_ELEMENTS(nics);
    return nics;
}

const weft_hw_pcie_t *
weft_hw_pcies(guint *n)
{
    g_return_val_if_fail(n != NULL, NULL);
    *n = G_N_ELEMENTS(pcies);
    return pcies;
}
