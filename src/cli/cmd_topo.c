/* SPDX-License-Identifier: MIT */
/*
 * weft topo: look at a cluster without running anything. `show` prints its
 * figures of merit (counts, scale-up, injection and bisection bandwidth,
 * diameter, oversubscription per tier; see topo/analysis.h for definitions),
 * as text or JSON; `export` writes it as GraphML or Graphviz DOT; `check` runs
 * the structural checks and fails with the findings.
 */
#define G_LOG_DOMAIN "weft-cli"

#include "config.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/keyfile.h"
#include "core/json.h"
#include "scenario/scenario.h"
#include "topo/analysis.h"
#include "topo/topo.h"

#define GB 1e9 /* bytes in a GB: reports print rates in GB/s = 1e9 B/s */

static const char *const tier_names[] = {"leaf", "spine", "core", "tier 4"};

/*
 * Loads a cluster: GraphML (a name ending in .graphml or .xml, or a file whose
 * first non-blank byte is '<') through weft_topo_load_graphml(), all else
 * through weft_topo_load() (INI or ASTRA-sim YAML).
 */
static weft_topo_t *
load_cluster(const char *path, GError **error)
{
    gboolean xml = g_str_has_suffix(path, ".graphml") || g_str_has_suffix(path, ".xml");
    if (!xml) {
        FILE *f = fopen(path, "rb");
        if (f != NULL) {
            int c;
            while ((c = fgetc(f)) != EOF && g_ascii_isspace(c)) {
            }
            xml = c == '<';
            fclose(f);
        }
    }
    return xml ? weft_topo_load_graphml(path, error) : weft_topo_load(path, error);
}

/* The single FILE argument left after option parsing (argv[0] is the subcommand). */
static int
one_file(const char *cmd, int argc, char **argv, const char **file)
{
    if (argc < 2) {
        return weft_cli_usage_error(cmd, "a cluster FILE is required");
    }
    if (argc > 2) {
        g_autofree char *msg = g_strdup_printf("unexpected argument '%s'", argv[2]);
        return weft_cli_usage_error(cmd, msg);
    }
    *file = argv[1];
    return WEFT_EXIT_OK;
}

static guint
n_links(const weft_topo_summary_t *s)
{
    guint n = 0;
    for (guint k = 0; k <= WEFT_LINK_GENERIC; k++) {
        n += s->n_links_by_kind[k];
    }
    return n;
}

/* "X GB/s" or, when min and max differ, "X to Y GB/s". */
static char *
range_GBps(double min_Bps, double max_Bps)
{
    if (min_Bps == max_Bps) {
        return g_strdup_printf("%.3f GB/s", max_Bps / GB);
    }
    return g_strdup_printf("%.3f to %.3f GB/s", min_Bps / GB, max_Bps / GB);
}

/* ---- show -------------------------------------------------------------------------- */

/* Vertices of @topo with feature @f (WEFT_TOPO_FEATURE_*): NVLS NVSwitch chips, SHARP switches. */
static guint
n_with_feature(const weft_topo_t *topo, guint f)
{
    guint n = 0;
    for (guint v = 0; v < weft_topo_n_vertices(topo); v++) {
        n += (weft_topo_vertex_features(topo, (gint)v) & f) != 0;
    }
    return n;
}

static void
print_text(const char *file, const weft_topo_t *topo, const weft_topo_summary_t *s)
{
    printf("cluster      %s (%s)\n", weft_topo_name(topo), file);
    printf("vertices     %u:", weft_topo_n_vertices(topo));
    for (guint k = 0; k <= WEFT_VERTEX_HOST; k++) {
        printf("%s %u %s", k == 0 ? "" : ",", s->n_vertices_by_kind[k],
               weft_topo_vertex_kind_name((weft_vertex_kind_t)k));
    }
    printf("\nlinks        %u full-duplex:", n_links(s));
    for (guint k = 0; k <= WEFT_LINK_GENERIC; k++) {
        printf("%s %u %s", k == 0 ? "" : ",", s->n_links_by_kind[k],
               weft_topo_link_kind_name((weft_link_kind_t)k));
    }
    printf("\ngpus         %u in %u host%s, %u NVLink domain%s\n", s->n_gpus, s->n_hosts,
           s->n_hosts == 1 ? "" : "s", s->n_domains, s->n_domains == 1 ? "" : "s");
    if (s->scaleup_max_Bps > 0) {
        g_autofree char *r = range_GBps(s->scaleup_min_Bps, s->scaleup_max_Bps);
        printf("scale-up     %s per GPU per direction (NVLink)\n", r);
    } else {
        printf("scale-up     none (no NVLink)\n");
    }
    if (s->injection_max_Bps > 0) {
        g_autofree char *r = range_GBps(s->injection_min_Bps, s->injection_max_Bps);
        printf("injection    %s per GPU per direction (into the scale-out fabric, all GPUs of "
               "a host at once)\n",
               r);
    } else {
        printf("injection    none (no scale-out fabric: no tiered or host-less switch)\n");
    }
    if (s->n_gpus >= 2) {
        printf("bisection    %.3f GB/s per direction (max flow from GPUs 0-%u to %u-%u)\n",
               s->bisection_Bps / GB, s->n_gpus / 2 - 1, s->n_gpus / 2, s->n_gpus - 1);
        if (s->diameter_exact) {
            printf("diameter     %u hops between GPUs (exact)\n", s->diameter_hops);
        } else {
            printf("diameter     not computed: %u GPUs, more than %u (an all-pairs search)\n",
                   s->n_gpus, WEFT_TOPO_DIAMETER_MAX_GPUS);
        }
    } else {
        printf("bisection    none (one GPU)\n");
        printf("diameter     0 hops (one GPU)\n");
    }
    guint nvls = n_with_feature(topo, WEFT_TOPO_FEATURE_NVLS);
    guint sharp = n_with_feature(topo, WEFT_TOPO_FEATURE_SHARP);
    if (nvls + sharp == 0) {
        printf("in-network   none (no NVLS NVSwitch, no SHARP switch)\n");
    } else {
        printf("in-network   NVLS on %u NVSwitch chip%s, SHARP on %u switch%s\n", nvls,
               nvls == 1 ? "" : "s", sharp, sharp == 1 ? "" : "es");
    }
    for (guint i = 0; i < s->n_tiers; i++) {
        const weft_topo_tier_t *t = &s->tiers[i];
        printf("tier %u       %s: %u switches", t->tier, tier_names[i], t->n_switches);
        if (t->n_switches == 0) {
            printf("\n");
            continue;
        }
        printf(", down %.3f GB/s", t->down_Bps / GB);
        if (t->peer_Bps > 0) {
            printf(", peer %.3f GB/s", t->peer_Bps / GB);
        }
        if (t->up_Bps > 0 && t->oversubscription < 1.0) {
            /* a partly filled tier (2 nodes on leaves wired for a full radix): its uplinks
             * exceed what is below; 0.06:1 read as a ratio is hard to read */
            printf(", up %.3f GB/s, oversubscription none (down:up = 1:%.2f, more up than "
                   "down)\n",
                   t->up_Bps / GB, 1.0 / t->oversubscription);
        } else if (t->up_Bps > 0) {
            printf(", up %.3f GB/s, oversubscription %.2f:1\n", t->up_Bps / GB,
                   t->oversubscription);
        } else if (t->tier == s->n_tiers) {
            printf(", top tier\n");
        } else {
            printf(", no link up\n");
        }
    }
    if (s->n_tiers == 0) {
        printf("tiers        none\n");
    }
}

static void
json_range(JsonBuilder *b, const char *name, double min, double max)
{
    json_builder_set_member_name(b, name);
    json_builder_begin_object(b);
    weft_json_add_double(b, "min", min);
    weft_json_add_double(b, "max", max);
    json_builder_end_object(b);
}

static void
print_json(const char *file, const weft_topo_t *topo, const weft_topo_summary_t *s)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    weft_json_add_string(b, "file", file);
    weft_json_add_string(b, "name", weft_topo_name(topo));
    json_builder_set_member_name(b, "vertices");
    json_builder_begin_object(b);
    for (guint k = 0; k <= WEFT_VERTEX_HOST; k++) {
        weft_json_add_int(b, weft_topo_vertex_kind_name((weft_vertex_kind_t)k),
                          s->n_vertices_by_kind[k]);
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "links");
    json_builder_begin_object(b);
    for (guint k = 0; k <= WEFT_LINK_GENERIC; k++) {
        weft_json_add_int(b, weft_topo_link_kind_name((weft_link_kind_t)k), s->n_links_by_kind[k]);
    }
    json_builder_end_object(b);
    weft_json_add_int(b, "gpus", s->n_gpus);
    weft_json_add_int(b, "hosts", s->n_hosts);
    weft_json_add_int(b, "nvlink_domains", s->n_domains);
    json_range(b, "scaleup_Bps", s->scaleup_min_Bps, s->scaleup_max_Bps);
    json_range(b, "injection_Bps", s->injection_min_Bps, s->injection_max_Bps);
    weft_json_add_double(b, "bisection_Bps", s->bisection_Bps);
    if (s->diameter_exact) {
        weft_json_add_int(b, "diameter_hops", s->diameter_hops);
    } else {
        weft_json_add_double_or_null(b, "diameter_hops", NAN); /* not computed */
    }
    weft_json_add_int(b, "nvls_chips", n_with_feature(topo, WEFT_TOPO_FEATURE_NVLS));
    weft_json_add_int(b, "sharp_switches", n_with_feature(topo, WEFT_TOPO_FEATURE_SHARP));
    json_builder_set_member_name(b, "tiers");
    json_builder_begin_array(b);
    for (guint i = 0; i < s->n_tiers; i++) {
        const weft_topo_tier_t *t = &s->tiers[i];
        json_builder_begin_object(b);
        weft_json_add_int(b, "tier", t->tier);
        weft_json_add_string(b, "name", tier_names[i]);
        weft_json_add_int(b, "switches", t->n_switches);
        weft_json_add_double(b, "down_Bps", t->down_Bps);
        weft_json_add_double(b, "up_Bps", t->up_Bps);
        weft_json_add_double(b, "peer_Bps", t->peer_Bps);
        weft_json_add_double(b, "oversubscription", t->oversubscription);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    g_autofree char *text = weft_json_to_text(b, TRUE);
    fputs(text, stdout);
}

static int
cmd_show(int argc, char **argv)
{
    gboolean json = FALSE;
    g_auto(GStrv) sets = NULL;
    GOptionEntry entries[] = {
        {"json", 'j', 0, G_OPTION_ARG_NONE, &json, "print JSON (rates in B/s) instead of text",
         NULL},
        {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
         "override a key of the cluster file, as weft replay --set does (repeatable; e.g. "
         "cluster.nodes=32, cluster.oversubscription=2:1)",
         "cluster.KEY=VALUE"},
        {NULL},
    };
    g_set_prgname("weft topo show");
    g_autoptr(GOptionContext) ctx = g_option_context_new("FILE - figures of a cluster");
    g_option_context_set_summary(
        ctx, "Prints vertex and link counts by kind, GPUs, hosts and NVLink domains, per-GPU\n"
             "scale-up (NVLink) and injection (scale-out) bandwidth, bisection bandwidth\n"
             "(max flow between the two halves of the GPUs), the diameter in hops between\n"
             "GPUs and the oversubscription of each switch tier. Rates are per direction,\n"
             "in GB/s = 1e9 bytes/s. FILE: weft INI, ASTRA-sim YAML or GraphML.");
    g_option_context_set_description(
        ctx, "Example:\n  weft topo show topologies/dgx-h100.ini --set cluster.nodes=32 --set "
             "cluster.fabric=fat-tree\n\n"
             "Exit status: 0 on success, 1 on a bad cluster file or --set value, 2 on a usage "
             "error.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    weft_cli_add_log_options(ctx);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        return weft_cli_usage_error("topo show", error->message);
    }
    const char *file = NULL;
    int rc = one_file("topo show", argc, argv, &file);
    if (rc != WEFT_EXIT_OK) {
        return rc;
    }
    for (guint i = 0; sets != NULL && sets[i] != NULL; i++) {
        if (!g_str_has_prefix(sets[i], "cluster.") || strchr(sets[i], '=') == NULL) {
            g_autofree char *msg =
                g_strdup_printf("--set %s: expected cluster.KEY=VALUE, e.g. cluster.nodes=32",
                                sets[i]);
            return weft_cli_usage_error("topo show", msg);
        }
    }
    g_autoptr(weft_topo_t) topo = NULL;
    if (sets == NULL) {
        topo = load_cluster(file, &error);
    } else {
        /* the file's keys with the overrides on top, built as a replay builds it */
        g_autoptr(weft_scenario_t) sc = weft_scenario_new();
        gboolean ok = weft_scenario_set_value(sc, "cluster", "file", file, &error);
        for (guint i = 0; ok && sets[i] != NULL; i++) {
            ok = weft_scenario_set(sc, sets[i], &error);
        }
        topo = ok ? weft_scenario_build_cluster(sc, &error) : NULL;
    }
    if (topo == NULL) {
        return weft_cli_error("topo show", error);
    }
    weft_topo_summary_t s;
    if (!weft_topo_summarize(topo, &s, &error)) {
        return weft_cli_error("topo show", error);
    }
    if (json) {
        print_json(file, topo, &s);
    } else {
        print_text(file, topo, &s);
    }
    return WEFT_EXIT_OK;
}

/* ---- export ------------------------------------------------------------------------ */

static gboolean
write_cluster(const weft_topo_t *topo, gboolean dot, const char *path, GError **error)
{
    return dot ? weft_topo_write_dot(topo, path, error)
               : weft_topo_write_graphml(topo, path, error);
}

static int
cmd_export(int argc, char **argv)
{
    g_autofree char *format = NULL;
    g_autofree char *out = NULL;
    GOptionEntry entries[] = {
        {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
         "graphml or dot (default: from the suffix of --output)", "FORMAT"},
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "write to OUT (default: standard output)",
         "OUT"},
        {NULL},
    };
    g_set_prgname("weft topo export");
    g_autoptr(GOptionContext) ctx = g_option_context_new("FILE - write a cluster out");
    g_option_context_set_summary(
        ctx, "Writes the cluster as GraphML (every vertex and edge attribute; weft reads it\n"
             "back) or as Graphviz DOT (one undirected edge per link, for drawing).");
    g_option_context_set_description(
        ctx, "Example:\n  weft topo export --format dot -o c.dot topologies/dgx-h100.ini\n"
             "  dot -Tsvg c.dot > c.svg\n\n"
             "Exit status: 0 on success, 1 on a bad cluster file or a write error, 2 on a "
             "usage error.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    weft_cli_add_log_options(ctx);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        return weft_cli_usage_error("topo export", error->message);
    }
    if (format == NULL && out != NULL) {
        if (g_str_has_suffix(out, ".graphml")) {
            format = g_strdup("graphml");
        } else if (g_str_has_suffix(out, ".dot") || g_str_has_suffix(out, ".gv")) {
            format = g_strdup("dot");
        }
    }
    if (format == NULL) {
        return weft_cli_usage_error("topo export",
                                    out == NULL ? "--format graphml|dot is required when writing "
                                                  "to standard output"
                                                : "--format graphml|dot is required: the name "
                                                  "given with -o ends in neither .graphml nor "
                                                  ".dot/.gv");
    }
    static const char *const format_names[] = {"graphml", "dot", NULL};
    static const weft_enum_t format_enum = {"export format", format_names};
    gint fmt = 0;
    if (!weft_enum_from_name(&format_enum, format, &fmt, NULL)) {
        g_autofree char *msg = g_strdup_printf("--format must be graphml or dot, not '%s'", format);
        return weft_cli_usage_error("topo export", msg);
    }
    const char *file = NULL;
    int rc = one_file("topo export", argc, argv, &file);
    if (rc != WEFT_EXIT_OK) {
        return rc;
    }
    g_autoptr(weft_topo_t) topo = load_cluster(file, &error);
    if (topo == NULL) {
        return weft_cli_error("topo export", error);
    }
    gboolean dot = fmt == 1;
    /* "-" (the default) is standard output, through the same writers */
    if (!write_cluster(topo, dot, out != NULL ? out : "-", &error)) {
        return weft_cli_error("topo export", error);
    }
    return WEFT_EXIT_OK;
}

/* ---- check ------------------------------------------------------------------------- */

static int
cmd_check(int argc, char **argv)
{
    g_set_prgname("weft topo check");
    g_autoptr(GOptionContext) ctx = g_option_context_new("FILE - check a cluster");
    g_option_context_set_summary(
        ctx, "Checks that every GPU reaches every other, that every vertex is reachable,\n"
             "that links are full duplex with positive bandwidth, and that every tiered\n"
             "switch has links down and up. Prints one line per problem.");
    g_option_context_set_description(ctx, "Exit status: 0 if nothing is wrong, 1 on a bad "
                                          "cluster file or any problem, 2 on a usage error.");
    weft_cli_add_log_options(ctx);
    g_autoptr(GError) error = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
        return weft_cli_usage_error("topo check", error->message);
    }
    const char *file = NULL;
    int rc = one_file("topo check", argc, argv, &file);
    if (rc != WEFT_EXIT_OK) {
        return rc;
    }
    g_autoptr(weft_topo_t) topo = load_cluster(file, &error);
    if (topo == NULL) {
        return weft_cli_error("topo check", error);
    }
    g_autoptr(GString) report = g_string_new(NULL);
    if (weft_topo_check(topo, report, &error)) {
        printf("%s: ok (%u GPUs, %u vertices, %u directed links)\n", file, weft_topo_n_gpus(topo),
               weft_topo_n_vertices(topo), weft_topo_n_edges(topo));
        return WEFT_EXIT_OK;
    }
    if (error != NULL) {
        return weft_cli_error("topo check", error);
    }
    g_auto(GStrv) lines = g_strsplit(report->str, "\n", -1);
    fprintf(stderr, "weft topo check: %s: cluster %s has problems:\n", file, weft_topo_name(topo));
    for (guint i = 0; lines[i] != NULL; i++) {
        if (lines[i][0] != '\0') {
            fprintf(stderr, "  %s\n", lines[i]);
        }
    }
    return WEFT_EXIT_ERROR;
}

/* ---- dispatch ---------------------------------------------------------------------- */

static void
print_help(FILE *out)
{
    fprintf(out, "Usage: weft topo SUBCOMMAND [OPTION...] FILE\n"
                 "\n"
                 "Looks at a cluster (weft INI, ASTRA-sim YAML or GraphML) without running\n"
                 "anything.\n"
                 "\n"
                 "Subcommands:\n"
                 "  show     counts, scale-up, injection and bisection bandwidth, diameter,\n"
                 "           oversubscription per tier (--json for JSON)\n"
                 "  export   write the cluster as GraphML or Graphviz DOT\n"
                 "  check    check the cluster; exit 1 with the problems found\n"
                 "\n"
                 "Run 'weft topo SUBCOMMAND --help' for its options.\n"
                 "Exit status: 0 on success, 1 on a bad cluster file or a failed check, 2 on a\n"
                 "usage error.\n");
}

int
weft_cmd_topo(int argc, char **argv)
{
    if (argc < 2) {
        return weft_cli_usage_error("topo", "a subcommand is required: show, export or check");
    }
    const char *sub = argv[1];
    if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0 || strcmp(sub, "help") == 0) {
        print_help(stdout);
        return WEFT_EXIT_OK;
    }
    if (strcmp(sub, "show") == 0) {
        return cmd_show(argc - 1, argv + 1);
    }
    if (strcmp(sub, "export") == 0) {
        return cmd_export(argc - 1, argv + 1);
    }
    if (strcmp(sub, "check") == 0) {
        return cmd_check(argc - 1, argv + 1);
    }
    g_autofree char *msg = g_strdup_printf("unknown subcommand '%s' (show, export or check)", sub);
    return weft_cli_usage_error("topo", msg);
}
