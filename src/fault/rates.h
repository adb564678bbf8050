/* SPDX-License-Identifier: MIT */
/*
 * Failure rates per component, and the failures they draw over a whole run.
 *
 * A cluster fails one component at a time: a GPU, a host (its CPU, memory,
 * SSD, power supply, chassis...), a NIC, a switch or a cable (a scale-out
 * link). Some interruptions have no hardware cause but still scale with the
 * job's size: software and dependency bugs, unplanned host maintenance, and
 * unexplained ones (NCCL watchdog timeouts). weft gives each of these classes
 * a mean time between failures (MTBF) per component and counts the components
 * of each class in the cluster (weft_fault_counts_from_topo()); the software,
 * maintenance and unknown classes count hosts; planned maintenance counts the
 * job once.
 *
 * Model. Each component's lifetimes are independent and identically
 * distributed, renewed when it fails (the failed part is replaced, the rest
 * keep their age), in wall-clock time whatever the job is doing:
 *
 *   exponential:  P(X > x) = exp(-x / MTBF)
 *   Weibull:      P(X > x) = exp(-(x / s)^k),  s = MTBF / Gamma(1 + 1/k)
 *
 * so that the mean lifetime is the MTBF for every shape k (k < 1: early
 * failures dominate, k = 1: exponential, k > 1: wear-out). Time between
 * failures of HPC systems fits a Weibull of shape 0.7-0.8 (Schroeder and
 * Gibson, "A large-scale study of failures in high-performance computing
 * systems", DSN 2006), hence the default shape 0.7 when Weibull is chosen.
 *
 * When the run starts, a Weibull component is either of a stationary age (the
 * default: the cluster has been in service for long, as Llama 3's was; the time
 * to its first failure is the renewal process's forward recurrence time, drawn
 * as U L with L length-biased: L = s G^(1/k), G ~ Gamma(1 + 1/k, 1), U uniform),
 * so that the cluster fails at the long-run rate from the start; or new (every
 * part installed at time 0: with k < 1 a burn-in of early failures, ~1,900
 * instead of 419 interruptions in the first 54 days at k = 0.7).
 *
 * The whole cluster then fails at the long-run rate
 *
 *   Lambda = sum over classes c of n_c / MTBF_c       (failures per second)
 *
 * (exactly, for exponential lifetimes at every instant: a superposition of
 * Poisson processes is Poisson; for Weibull, in the long run by the renewal
 * theorem), and the system MTBF is M = 1 / Lambda: the M of Young's and
 * Daly's checkpoint formulas. Exponential failures are drawn as that one
 * Poisson process, each event's class chosen with probability
 * (n_c / MTBF_c) / Lambda and its component uniformly in the class: O(1) per
 * failure. Weibull failures are drawn component by component from a binary
 * heap of next failure times: O(n) to start (n = all components, ~91,000 for
 * 16,384 GPUs), O(log n) per failure.
 *
 * Default rates come from the 419 unexpected interruptions of a 54-day
 * snapshot of Llama 3 405B pre-training on 16,384 H100 GPUs (Meta, "The Llama
 * 3 Herd of Models", 2024, Table 5); doc/failures.md derives every figure.
 *
 * A failure can also degrade instead of interrupt (a link down awaiting
 * repair while traffic takes the other equal-cost paths). Degrading faults
 * have their own per-component rates (none by default: the Llama 3 table
 * counts interruptions only) and a repair time; the job module asks a
 * step-time provider what they cost (job/job.h).
 */
#ifndef WEFT_FAULT_RATES_H
#define WEFT_FAULT_RATES_H

#include <glib.h>

#include "core/keyfile.h"
#include "topo/topo.h"

G_BEGIN_DECLS

#define WEFT_FAULT_ERROR (weft_fault_error_quark())
GQuark weft_fault_error_quark(void);

typedef enum {
    WEFT_FAULT_ERROR_VALUE,  /* a value that does not parse or is out of range */
    WEFT_FAULT_ERROR_KEY,    /* an unknown name (class, distribution, fault kind, vertex, link) */
    WEFT_FAULT_ERROR_FAILED, /* a GPU or node failed during a step (fault/step.h) */
} weft_fault_error_t;

/** Component classes. Each has an MTBF per component and a count in the cluster. */
typedef enum {
    WEFT_FAULT_GPU,         /* per GPU: the GPU, its HBM, SRAM, system processor, thermal */
    WEFT_FAULT_HOST,        /* per host: CPU, memory, SSD, power supply, chassis, IO board */
    WEFT_FAULT_NIC,         /* per scale-out NIC */
    WEFT_FAULT_SWITCH,      /* per scale-out switch (not NVSwitches: their faults are GPU ones) */
    WEFT_FAULT_CABLE,       /* per scale-out link (cable and its transceivers) */
    WEFT_FAULT_SOFTWARE,    /* per host: software and dependency bugs */
    WEFT_FAULT_MAINTENANCE, /* per host: unplanned host maintenance */
    WEFT_FAULT_UNKNOWN,     /* per host: unexplained (NCCL watchdog timeouts) */
    WEFT_FAULT_PLANNED,     /* per job: planned maintenance (off by default) */
    WEFT_FAULT_N_CLASSES
} weft_fault_class_t;

/** Interruption categories, as in Table 5 of the Llama 3 paper, plus planned maintenance. */
typedef enum {
    WEFT_FAULT_CAT_GPU,
    WEFT_FAULT_CAT_HOST, /* host hardware and NICs: the table files NICs under Host */
    WEFT_FAULT_CAT_NETWORK,
    WEFT_FAULT_CAT_DEPENDENCY,
    WEFT_FAULT_CAT_UNPLANNED_MAINTENANCE,
    WEFT_FAULT_CAT_UNKNOWN,
    WEFT_FAULT_CAT_PLANNED_MAINTENANCE,
    WEFT_FAULT_N_CATEGORIES
} weft_fault_category_t;

typedef enum {
    WEFT_FAULT_DIST_EXPONENTIAL,
    WEFT_FAULT_DIST_WEIBULL,
} weft_fault_dist_t;

/** Failure rates. MTBFs are per component, in seconds; INFINITY = never fails. */
typedef struct {
    weft_fault_dist_t dist;
    double weibull_shape; /* k > 0; used when dist is Weibull */
    gboolean weibull_new; /* Weibull parts all new at time 0 (FALSE: stationary ages) */
    double mtbf_s[WEFT_FAULT_N_CLASSES];         /* interrupting failures */
    double degrade_mtbf_s[WEFT_FAULT_N_CLASSES]; /* degrading faults (INFINITY by default) */
    double degrade_repair_s;                     /* how long a degrading fault lasts (> 0) */
} weft_fault_rates_t;

/** How many components of each class a cluster has. */
typedef struct {
    guint64 n[WEFT_FAULT_N_CLASSES];
} weft_fault_counts_t;

/** One failure drawn over a run. */
typedef struct {
    double time_s; /* wall-clock seconds since the run started; INFINITY: none */
    weft_fault_class_t component_class; /* what failed */
    guint64 component; /* which one: its ordinal in the class, in the cluster's vertex (GPU,
                          NIC, switch) or edge (cable: one per full-duplex scale-out link, in
                          order of its first edge id) order, host number for the per-host
                          classes, 0 for planned maintenance */
} weft_fault_event_t;

/* ---- the Llama 3 405B table (Meta 2024, Table 5; ../shared/validation/failures_llama3_405b.csv)
 */
/** Length of the snapshot: 54 days, in seconds. */
#define WEFT_FAULT_LLAMA3_SPAN_S (54.0 * 86400.0)
#define WEFT_FAULT_LLAMA3_GPUS 16384.0
#define WEFT_FAULT_LLAMA3_HOSTS 2048.0 /* 8 GPUs per server */
/* Components of the reference fabric (topologies/h100-2048-nodes.ini: the DGX SuperPOD RA
 * counts for 64 scalable units): one NIC per GPU, 512 leaf + 512 spine + 256 core switches,
 * 16,384 cables per layer x 3 layers. */
#define WEFT_FAULT_REF_NICS 16384.0
#define WEFT_FAULT_REF_SWITCHES 1280.0
#define WEFT_FAULT_REF_CABLES 49152.0
/* Interruptions per class: GPU 148+72+19+17+6+6 = 268; host hardware SSD 3 + power supply 3 +
 * chassis 2 + IO board 2 + CPU 2 + memory 2 = 14; NIC 7; "Network switch/cable" 35, split
 * evenly between switches and cables (the table does not split them); software bug 54 +
 * dependency 2 = 56; host maintenance 32; NCCL watchdog timeouts 7. Sum: 419. Planned: 47. */
#define WEFT_FAULT_LLAMA3_GPU 268.0
#define WEFT_FAULT_LLAMA3_HOST 14.0
#define WEFT_FAULT_LLAMA3_NIC 7.0
#define WEFT_FAULT_LLAMA3_SWITCH 17.5
#define WEFT_FAULT_LLAMA3_CABLE 17.5
#define WEFT_FAULT_LLAMA3_SOFTWARE 56.0
#define WEFT_FAULT_LLAMA3_MAINTENANCE 32.0
#define WEFT_FAULT_LLAMA3_UNKNOWN 7.0
#define WEFT_FAULT_LLAMA3_UNEXPECTED 419.0
#define WEFT_FAULT_LLAMA3_PLANNED 47.0

/**
 * weft_fault_rates_init_default:
 * Fills @rates with the Llama 3 rates: MTBF_c = (components of class c in the reference
 * cluster x 54 days) / interruptions of class c; e.g. GPU: 16,384 x 54 d / 268 = 3,301.25 d
 * (79,230 h). Exponential; Weibull shape 0.7 if switched to Weibull; planned maintenance
 * and degrading faults off (INFINITY); degrade_repair_s 4 h.
 */
void weft_fault_rates_init_default(weft_fault_rates_t *rates);

/** weft_fault_rates_init_none: no failures at all (every MTBF INFINITY), exponential. */
void weft_fault_rates_init_none(weft_fault_rates_t *rates);

/**
 * weft_fault_rates_check:
 * @error: WEFT_FAULT_ERROR_VALUE naming the class and value: an MTBF that is not > 0 (NaN,
 *   zero or negative), a Weibull shape not > 0 and finite, a repair time not > 0.
 * Returns: TRUE if @rates can be sampled.
 */
gboolean weft_fault_rates_check(const weft_fault_rates_t *rates, GError **error);

/**
 * weft_fault_counts_from_topo:
 * Counts the components of a finalized cluster: GPUs (weft_topo_n_gpus), hosts
 * (weft_topo_n_hosts), NIC and switch vertices (NVSwitches excluded), cables = the lanes
 * of InfiniBand and Ethernet edges / 2 (one edge per direction of a full-duplex link, an
 * edge standing for its lanes parallel physical links); the per-host
 * classes count hosts; planned maintenance counts 1. Time complexity: O(V + E).
 */
void weft_fault_counts_from_topo(const weft_topo_t *topo, weft_fault_counts_t *counts);

/**
 * weft_fault_counts_for_gpus:
 * Component counts of a cluster of @n_gpus GPUs with @gpus_per_host per host (> 0), built
 * like the reference (a DGX H100-like rail-optimized three-tier fabric): hosts =
 * ceil(n_gpus / gpus_per_host), one NIC per GPU, 1,280 / 16,384 = 5/64 switch per GPU and
 * 3 cables per GPU (rounded to the nearest). For 16,384 GPUs: the reference counts exactly.
 * Smaller fabrics have fewer tiers, so this overstates their switches and cables; give a
 * cluster file for exact counts.
 */
void weft_fault_counts_for_gpus(guint64 n_gpus, guint gpus_per_host, weft_fault_counts_t *counts);

/**
 * weft_fault_rate_per_s:
 * Returns: Lambda = sum_c n_c / MTBF_c: interrupting failures per second of the whole cluster
 *   (0 when nothing fails). With @degrading, the same for the degrading faults.
 */
double weft_fault_rate_per_s(const weft_fault_rates_t *rates, const weft_fault_counts_t *counts,
                             gboolean degrading);

/* Name tables (core/keyfile.h): the component classes (gpu, host, nic, switch, cable,
 * software, maintenance, unknown, planned: the suffixes of the mtbf_* keys), the
 * distributions (exponential, weibull), and the ages of Weibull parts at time 0, indexed
 * by weft_fault_rates_t.weibull_new (FALSE: stationary, TRUE: new). */
extern const weft_enum_t weft_fault_class_enum;
extern const weft_enum_t weft_fault_dist_enum;
extern const weft_enum_t weft_fault_weibull_start_enum;

/** weft_fault_class_name: "gpu", "host", "nic", "switch", "cable", "software", "maintenance",
 * "unknown", "planned" (the suffixes of the mtbf_* keys). */
const char *weft_fault_class_name(weft_fault_class_t c);

/** weft_fault_class_category: the Llama 3 category a class's interruptions fall under. */
weft_fault_category_t weft_fault_class_category(weft_fault_class_t c);

/** weft_fault_category_name: "GPU", "Host", "Network", "Dependency", "Unplanned maintenance",
 * "Unknown", "Planned maintenance" (the table's words). */
const char *weft_fault_category_name(weft_fault_category_t cat);

/** weft_fault_category_key: the same as identifiers: "gpu", "host", "network", "dependency",
 * "unplanned_maintenance", "unknown", "planned_maintenance" (JSON and CSV names). */
const char *weft_fault_category_key(weft_fault_category_t cat);

/**
 * weft_fault_dist_from_name:
 * @name: "exponential" or "weibull" (weft_fault_dist_enum).
 * @error: WEFT_FAULT_ERROR_KEY quoting @name and listing both.
 */
gboolean weft_fault_dist_from_name(const char *name, weft_fault_dist_t *dist, GError **error);

/** weft_fault_dist_name: "exponential" or "weibull". */
const char *weft_fault_dist_name(weft_fault_dist_t dist);

/**
 * weft_fault_parse_duration:
 * @text: a number and a unit: ps, ns, us, ms, s, min, h or d (d = 86,400 s), e.g. "9.02s",
 *   "54d", "79230h"; spaces between are allowed. "inf" or "off" (no unit) mean INFINITY
 *   when @allow_infinite. Unlike core/units.h this reaches past the ~106 days int64
 *   picoseconds hold, as MTBFs of single components do (years).
 * @seconds: (out): the duration in seconds.
 * @error: WEFT_FAULT_ERROR_VALUE quoting @text: no number, no or unknown unit, negative,
 *   NaN.
 */
gboolean weft_fault_parse_duration(const char *text, gboolean allow_infinite, double *seconds,
                                   GError **error);

typedef struct weft_fault_sampler weft_fault_sampler_t;

/**
 * weft_fault_sampler_new:
 * The failures of one run, drawn from the stream @stream of @seed (core/rng.h) so that runs
 * are repeatable from (seed, stream) and independent across streams. @rates must pass
 * weft_fault_rates_check(). With @degrading, draws the degrading faults instead (from the
 * degrade_mtbf_s rates). Both are copied.
 * Returns: (transfer full): the sampler. Time complexity: O(1) exponential, O(n) Weibull.
 */
weft_fault_sampler_t *weft_fault_sampler_new(const weft_fault_rates_t *rates,
                                             const weft_fault_counts_t *counts, gboolean degrading,
                                             guint64 seed, guint32 stream);

/**
 * weft_fault_sampler_next:
 * The next failure in time order (times never decrease). ev->time_s is INFINITY when
 * nothing can fail. O(1) exponential, O(log n) Weibull.
 */
void weft_fault_sampler_next(weft_fault_sampler_t *s, weft_fault_event_t *ev);

/** weft_fault_sampler_free: NULL is a no-op. */
void weft_fault_sampler_free(weft_fault_sampler_t *s);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(weft_fault_sampler_t, weft_fault_sampler_free)

G_END_DECLS

#endif /* WEFT_FAULT_RATES_H */
