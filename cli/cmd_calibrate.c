/*
 * cmd_calibrate.c — `warphunt calibrate`: run the microbenchmarks of
 * kernels/calib/ on a backend, print what they measure, and write a sim
 * profile from it (harness/calibrate.c).
 */
#include "cli/cli.h"
#include "core/spec.h"
#include "harness/harness.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
        "usage: warphunt calibrate [--backend auto|sim|cuda] [--device N] [--profile FILE]\n"
        "                          [--reps N] [-o PROFILE] [--name NAME] [--json] [--quiet]\n"
        "\n"
        "Measure the machine values the sim's timing model needs with microbenchmarks\n"
        "of our own (kernels/calib/calib.cu) and write a sim profile from them.  Most\n"
        "time sections of inline PTX with %%clock64, each value the difference of two\n"
        "sections; the bandwidth streams, the atomic contention and the empty kernel\n"
        "are whole launches timed by the harness.\n"
        "\n"
        "Measured: the latency and issue cycles of the instruction classes alu\n"
        "(mad.lo.u32), fma (fma.rn.f32), fp64 (fma.rn.f64), sfu (rsqrt.approx), idiv\n"
        "(div.u32), fdiv (div.rn.f32) and ddiv (div.rn.f64); the latency of a global\n"
        "load that hits the L2 and what a first touch (DRAM) adds; shared-memory\n"
        "latency and the cost of each further wavefront of a bank conflict; the\n"
        "load/store unit's cycles per sector; a constant load's cycles per further\n"
        "address; one same-address atomic with the whole grid on one word (global;\n"
        "one warp's issue rate is reported) and in shared memory; whether a 128-byte\n"
        "line's words share one atomic queue (the grid on 32 words of a line against\n"
        "one word: memory.atomic_unit_bytes 128 or 4); the L1's hit latency\n"
        "and size (chases over 8 KB to 1 MB; none when a plain load is no faster than\n"
        ".cg); the L2 and DRAM bandwidths (the whole grid streaming 16 and 48 MB); what\n"
        "a divergent if costs over a uniform one; bar.sync's latency; the launch\n"
        "overhead (an empty kernel's time, less one block launch); the clock, and on a\n"
        "GPU the SM count and the L2's size.  Not measured yet (they keep the built-in\n"
        "profile's values): the warp, control, local and const classes' latencies, the\n"
        "caches' associativity, block launch and residency limits.\n"
        "\n"
        "On the sim the microbenchmarks give back the profile it runs with (the tests\n"
        "check it): that is how the formulas are known to mirror the model.  On a GPU\n"
        "(--backend cuda) they measure the GPU; the profile is meant to make the sim\n"
        "rank inputs closer to it (`--profile PROFILE` of measure, hunt, explain ...).\n"
        "Run on an H200 (harness/profiles/nvidia_h200.json) before the atomic\n"
        "contention kernels existed; its test skips without a GPU, and whether a\n"
        "calibrated profile ranks better is bench_fidelity's to say (README).\n"
        "\n"
        "options:\n"
        "  --backend B      sim, cuda, or auto (default: cuda when a GPU is present)\n"
        "  --device N       cuda: device index (default 0)\n"
        "  --profile FILE   sim: the machine profile to measure (default: built-in)\n"
        "  -o, --output PROFILE\n"
        "                   write the profile (JSON, the format of\n"
        "                   harness/profiles/default.json, with the raw section cycles\n"
        "                   under \"calibration\"); without it nothing is written\n"
        "  --name NAME      the profile's name (default: \"calibrated\")\n"
        "  --reps N         run each microbenchmark N times and take each section's\n"
        "                   median (1 to 101; default 5 on a GPU, 1 on the sim, which is\n"
        "                   exact)\n"
        "  --json           print the measured values as JSON on stdout\n"
        "  --quiet          print nothing on stderr but errors\n"
        "  -h, --help       show this help\n"
        "\n"
        "Exit status: 0 measured, 1 user error, 2 internal or device failure (a\n"
        "microbenchmark that faults says which).\n");
}

static json_t *values_json(const harness_calibration *c)
{
    json_t *cls = json_object();
    for (int k = 0; k < HARNESS_CALIB_CLASSES; k++)
        json_object_set_new(cls, harness_calib_classes[k],
                            json_pack("{s:f, s:f}", "latency", c->latency[k], "issue", c->issue[k]));
    json_t *doc = json_pack("{s:s, s:s, s:f, s:i, s:o, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "device", c->device,
                     "backend", harness_backend_name(c->backend), "clock_mhz", c->clock_mhz, "sm_count",
                     c->sm_count, "classes", cls, "global_latency", c->global_latency, "dram_latency",
                     c->dram_latency, "shared_latency", c->shared_latency, "wavefront_cycles", c->wavefront_cycles,
                     "atomic_cycles_per_op", c->atomic_cycles_per_op, "bar_latency", c->bar_latency,
                     "empty_kernel_cycles", c->empty_kernel_cycles);
    json_object_set_new(doc, "lsu_cycles_per_sector", json_real(c->lsu_cycles_per_sector));
    json_object_set_new(doc, "const_cycles_per_address", json_real(c->const_cycles_per_address));
    json_object_set_new(doc, "shared_atomic_cycles_per_op", json_real(c->shared_atomic_cycles_per_op));
    json_object_set_new(doc, "atomic_unit_bytes", json_integer(c->atomic_unit_bytes));
    json_object_set_new(doc, "atomic_issue_cycles_per_op", json_real(c->atomic_issue_cycles_per_op));
    json_object_set_new(doc, "l1_latency", json_real(c->l1_latency));
    json_object_set_new(doc, "l2_sectors_per_cycle", json_real(c->l2_sectors_per_cycle));
    json_object_set_new(doc, "divergence_extra", json_real(c->divergence_extra));
    json_object_set_new(doc, "divergence_cycles", json_real(c->divergence_cycles));
    json_object_set_new(doc, "dram_sectors_per_cycle", json_real(c->dram_sectors_per_cycle));
    json_object_set_new(doc, "l1_bytes", json_integer((json_int_t)c->l1_bytes));
    json_object_set_new(doc, "l2_bytes", json_integer((json_int_t)c->l2_bytes));
    json_object_set_new(doc, "unresolved", harness_calib_unresolved_json(c));
    json_object_set_new(doc, "unresolved_sections", json_string(c->unresolved_why));
    return doc;
}

static void print_values(const harness_calibration *c)
{
    static const char *const instr[HARNESS_CALIB_CLASSES] = {
        "mad.lo.u32", "fma.rn.f32", "fma.rn.f64", "rsqrt.approx", "div.u32", "div.rn.f32", "div.rn.f64",
    };
    fprintf(stderr, "calibrate: %s (%s backend), clock %.0f MHz%s\n", c->device, harness_backend_name(c->backend),
            c->clock_mhz, c->sm_count ? "" : ", SM count: the profile's");
    for (int k = 0; k < HARNESS_CALIB_CLASSES; k++)
        fprintf(stderr, "  %-5s (%-12s) latency %7.2f  issue %5.2f cycles\n", harness_calib_classes[k], instr[k],
                c->latency[k], c->issue[k]);
    fprintf(stderr, "  global load        latency %7.2f cycles (L2 hit), first touch adds %.2f\n",
            c->global_latency, c->dram_latency);
    if (c->l1_bytes)
        fprintf(stderr, "  L1                 latency %7.2f cycles, holds %llu KB%s\n", c->l1_latency,
                (unsigned long long)(c->l1_bytes >> 10), c->l1_bytes >= (1u << 20) ? " or more" : "");
    else
        fprintf(stderr, "  L1                 none seen (a plain load is no faster than .cg)\n");
    if (c->l2_bytes)
        fprintf(stderr, "  L2                 %llu KB (the device's)\n", (unsigned long long)(c->l2_bytes >> 10));
    fprintf(stderr, "  bandwidth          L2 %.1f, DRAM %.1f sectors per cycle (the device)\n", c->l2_sectors_per_cycle,
            c->dram_sectors_per_cycle);
    fprintf(stderr, "  shared load        latency %7.2f cycles, each further wavefront %.2f\n", c->shared_latency,
            c->wavefront_cycles);
    fprintf(stderr, "  load/store unit    %7.2f cycles per sector\n", c->lsu_cycles_per_sector);
    fprintf(stderr, "  constant load      %7.2f cycles per further address\n", c->const_cycles_per_address);
    fprintf(stderr, "  same-address atomic %6.2f cycles per operation (global, the grid contending; one warp "
            "issues them at %.2f), %.2f (shared)\n", c->atomic_cycles_per_op, c->atomic_issue_cycles_per_op,
            c->shared_atomic_cycles_per_op);
    fprintf(stderr, "  atomic unit        %d bytes (%s)\n", c->atomic_unit_bytes,
            c->atomic_unit_bytes > 4 ? "a line's words share one queue" : "a queue per word");
    fprintf(stderr, "  bar.sync           latency %7.2f cycles\n", c->bar_latency);
    if (c->divergence_cycles > 0)
        fprintf(stderr, "  divergent if       %7.2f cycles more than a uniform one (divergence_cycles %.2f)\n",
                c->divergence_extra, c->divergence_cycles);
    else
        fprintf(stderr, "  divergent if       no dearer than a uniform one (%.2f)\n", c->divergence_extra);
    fprintf(stderr, "  empty kernel       %7.2f cycles\n", c->empty_kernel_cycles);
    if (!c->unresolved)
        return;
    fprintf(stderr, "  not resolved (the longer section no longer; the profile keeps the built-in values):");
    for (int q = 0; q < HARNESS_CQ_COUNT; q++)
        if (c->unresolved & (1u << q))
            fprintf(stderr, " %s", harness_calib_quantity_name(q));
    fprintf(stderr, "\n    sections: %s\n", c->unresolved_why);
}

enum { OPT_OUTPUT = CLI_OPT_FIRST_FREE, OPT_NAME, OPT_REPS };

int cmd_calibrate(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_RUN_LONG_OPTIONS,
        { "output", required_argument, NULL, OPT_OUTPUT },
        { "name", required_argument, NULL, OPT_NAME },
        { "reps", required_argument, NULL, OPT_REPS },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *output = NULL, *name = "calibrated";
    long reps = 0;   /* harness_calibrate's default */
    cli_run_options ro;
    cli_run_options_init(&ro);
    wh_error err;
    wh_error_clear(&err);
    optind = 1;
    int saved_opterr = opterr;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        int r = cli_run_option(&ro, c, optarg, &err);
        if (r == 0) {
            r = 1;
            switch (c) {
            case 'o': case OPT_OUTPUT: output = optarg; break;
            case OPT_NAME: name = optarg; break;
            case OPT_REPS: r = cli_parse_long("--reps", optarg, 1, HARNESS_CALIB_MAX_REPS, &reps, &err) ? 1 : -1; break;
            case 'h':
                opterr = saved_opterr;
                usage(stdout);
                return 0;
            default:
                opterr = saved_opterr;
                return cli_bad_option("calibrate", argv);
            }
        }
        if (r < 0) {
            opterr = saved_opterr;
            return cli_report(&err);
        }
    }
    opterr = saved_opterr;
    if (optind != argc) {
        fprintf(stderr, "warphunt calibrate: unexpected argument '%s'\n", argv[optind]);
        return cli_usage_hint("calibrate");
    }
    wh_spec *specs[HARNESS_CALIB_KERNELS] = { NULL };
    bool ok = true;
    for (int k = 0; ok && k < HARNESS_CALIB_KERNELS; k++)
        ok = (specs[k] = cli_load_spec(harness_calib_kernels[k], &err)) != NULL;
    harness_calibration cal;
    ok = ok && harness_calibrate((const wh_spec *const *)specs, ro.backend, &ro.harness, (int)reps, &cal, &err);
    ok = ok && (!output || harness_calibration_write_profile(&cal, name, output, &err));
    for (int k = 0; k < HARNESS_CALIB_KERNELS; k++)
        wh_spec_free(specs[k]);
    if (!ok)
        return cli_report(&err);
    if (!ro.quiet) {
        print_values(&cal);
        if (output)
            fprintf(stderr, "calibrate: wrote %s\n", output);
    }
    if (ro.json) {
        json_t *doc = values_json(&cal);
        json_object_set_new(doc, "profile", output ? json_string(output) : json_null());
        cli_print_json(doc);
        json_decref(doc);
    }
    return 0;
}
