/* SPDX-License-Identifier: MIT */
/*
 * The hardware catalog: datasheet figures of GPUs, NVSwitch generations, NICs
 * and PCIe generations, each with its source.
 *
 * Cluster builders take link rates and link counts from here instead of
 * repeating numbers, and later the compute model takes peak FLOP/s and HBM
 * bandwidth from here. Every figure is a vendor datasheet value (dense, no
 * sparsity) with the document it comes from in its `source` string; a figure
 * weft had to derive (e.g. a per-link rate from a per-GPU total) says so.
 * ../shared/validation/hardware.csv tabulates several of them and the tests
 * check the catalog against it.
 *
 * A NIC entry is one port of a network kind (InfiniBand HDR/NDR/XDR, EFA v1/v2/v4,
 * GPUDirect-TCPX/TCPXO, Omni-Path, RoCE) and carries, besides its rate, the kind's
 * one-way GPU-to-GPU latency and per-message cost where its NCCL plugin or vendor
 * publishes them (EFA: aws-ofi-nccl's tuner), 0 with the reason where not.
 *
 * Units: FLOP/s, bytes, bytes per second (per direction for links), all
 * doubles; GB = 1e9 bytes; latencies and costs in picoseconds (gint64).
 */
#ifndef WEFT_HW_HW_H
#define WEFT_HW_HW_H

#include <glib.h>

G_BEGIN_DECLS

#define WEFT_HW_ERROR (weft_hw_error_quark())
GQuark weft_hw_error_quark(void);

typedef enum {
    WEFT_HW_ERROR_UNKNOWN, /* no such part: the message lists the known names */
} weft_hw_error_t;

/** A GPU model. */
typedef struct {
    const char *name;                  /* "H100-SXM" (also matched case-insensitively: "h100") */
    double bf16_flops;                 /* peak dense BF16, FLOP/s */
    double fp8_flops;                  /* peak dense FP8, FLOP/s; 0 where the part has none */
    double hbm_bytes;                  /* HBM capacity */
    double hbm_Bps;                    /* HBM bandwidth */
    guint nvlink_gen;                  /* NVLink generation (3, 4, 5) */
    guint nvlink_links;                /* NVLink links per GPU */
    double nvlink_link_Bps;            /* per link, per direction */
    double measured_matmul_bf16_flops; /* best measured BF16 GEMM rate; 0 if unknown */
    guint sm_count;                    /* streaming multiprocessors (the compute model's waves) */
    double hbm_stream_Bps;             /* achievable streaming HBM bandwidth (triad kernel) */
    /* the GPU exists only on a Grace superchip board (GB200: two Blackwell GPUs and a Grace
     * CPU per board, in GB200 NVL72 / NVL36 racks), never on an HGX baseboard of SXM modules */
    gboolean superchip;
    const char *source;
} weft_hw_gpu_t;

/** An NVSwitch generation. */
typedef struct {
    const char *name;   /* "nvswitch-gen3" */
    guint generation;   /* 2, 3, 4 */
    guint nvlink_ports; /* NVLink ports per chip */
    double port_Bps;    /* per port, per direction */
    gboolean sharp;     /* in-switch reduction (NVLS) */
    const char *source;
} weft_hw_nvswitch_t;

/** A network interface: one port of a network kind. */
typedef struct {
    const char *name;   /* "cx7-ndr" */
    const char *fabric; /* "infiniband", "ethernet", "efa", "omni-path" */
    double rate_Bps;    /* per port, per direction */
    const char *source;
    /* Cost of one network message in the NIC and the host stack that completes it, ps;
     * 0 where no figure is published (see each entry's msg_source). */
    gint64 msg_cost_ps;
    const char *msg_source; /* NULL when msg_cost_ps is 0 */
    /* One-way latency of a message between two GPUs whose NICs share one switch (GPU ->
     * NIC -> switch -> NIC -> GPU), ps, as the network kind's own software (its NCCL net
     * plugin or tuner) or its vendor publish it: the device and software path, which
     * dominate the wire. 0 where no such figure is published: the cluster's link
     * latencies (pcie_latency, fabric_latency) alone then set the path (latency_source
     * says why there is none). */
    gint64 latency_ps;
    const char *latency_source;
} weft_hw_nic_t;

/** A PCIe generation (x16 link). */
typedef struct {
    const char *name; /* "pcie-gen5" */
    guint generation;
    double x16_Bps; /* usable per direction for x16 after encoding */
    const char *source;
} weft_hw_pcie_t;

/**
 * weft_hw_gpu:
 * @name: "A100-SXM-80GB", "H100-SXM", "H200-SXM", "B200-SXM", "GB200" (case-
 *   insensitive; short forms "a100" (or "a100-sxm"), "h100", "h200", "b200", "gb200"
 *   too). GB200 is one Blackwell GPU as packaged in GB200 NVL72 (rack figures / 72).
 * @error: WEFT_HW_ERROR_UNKNOWN listing the known names.
 * Returns: (transfer none): the entry, or NULL.
 */
const weft_hw_gpu_t *weft_hw_gpu(const char *name, GError **error);

/**
 * weft_hw_nvswitch: "nvswitch-gen2" (A100 era: 36 NVLink3 ports), "nvswitch-gen3"
 * (H100: 64 NVLink4 ports, SHARP/NVLS), "nvswitch-gen4" (B200/GB200: 72 NVLink5
 * ports, SHARP), or "gen2"/"gen3"/"gen4"; case-insensitive; errors as weft_hw_gpu().
 */
const weft_hw_nvswitch_t *weft_hw_nvswitch(const char *name, GError **error);

/**
 * weft_hw_nic: "cx6-hdr" or "hdr" (200 Gb/s), "cx7-ndr" or "ndr" (400 Gb/s),
 * "cx8-xdr" or "xdr" (800 Gb/s), "aws-efa" (or "efa", "efa-v2": the 100 Gb/s EFA
 * device of p5/p5e), "efa-v1" (p4d/p4de, 100 Gb/s), "efa-v4" (p6-b200, 400 Gb/s),
 * "gcp-tcpx" (A3 High, 200 Gb/s gVNIC), "gcp-tcpxo" (A3 Mega, 200 Gb/s), "opa-100"
 * (Intel Omni-Path 100 Gb/s), "roce-200", "roce-400"; case-insensitive; errors as
 * weft_hw_gpu(). One entry is one port: for EFA that is one EFA device at 100 Gb/s;
 * an AWS p5.48xlarge has 32 of them (3,200 Gb/s, 4 per GPU), so a p5 node is 32
 * "efa" ports, not one.
 */
const weft_hw_nic_t *weft_hw_nic(const char *name, GError **error);

/**
 * weft_hw_pcie: "pcie-gen3".."pcie-gen6" or "gen3".."gen6"; case-insensitive;
 * errors as weft_hw_gpu(). x16_Bps counts only line encoding (128b/130b for gen3-5,
 * 242 payload bytes of each 256-byte flit for gen6), not TLP headers or DLLPs.
 */
const weft_hw_pcie_t *weft_hw_pcie(const char *name, GError **error);

/**
 * weft_hw_nvswitch_nvlink_gen: the NVLink generation the ports of @nvs carry:
 * generation + 1 (the second-generation NVSwitch of DGX A100 carries NVLink3, the
 * third of DGX H100 NVLink4, the fourth of DGX B200 / GB200 NVL72 NVLink5: NVIDIA
 * nvidia.com/data-center/nvlink generation table). O(1).
 */
guint weft_hw_nvswitch_nvlink_gen(const weft_hw_nvswitch_t *nvs);

/** weft_hw_gpus: (transfer none): all GPU entries; @n gets their count. Likewise the others. */
const weft_hw_gpu_t *weft_hw_gpus(guint *n);
const weft_hw_nvswitch_t *weft_hw_nvswitches(guint *n);
const weft_hw_nic_t *weft_hw_nics(guint *n);
const weft_hw_pcie_t *weft_hw_pcies(guint *n);

G_END_DECLS

#endif /* WEFT_HW_HW_H */
