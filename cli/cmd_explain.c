/*
 * cmd_explain.c — `warphunt explain`: why a saved input is slow.  The
 * input and a reference (a random input, or another saved one) each run
 * once, instrumented, on the sim (harness_explain); their rows are joined
 * by source or PTX line and ranked by the cycles the input adds
 * (explain_lines.c), and shown as a table, explain.md and explain.json
 * (explain_view.c).
 */
#include "cli/cli.h"
#include "cli/explain_gpu.h"
#include "cli/explain_lines.h"
#include "cli/explain_svg.h"

#include "core/pcg32.h"
#include "core/results.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warphunt explain DIR|--input DIR [--against DIR | --random SEED] [--top N]\n"
            "                        [--by line|ptx] [--critical] [-o OUTDIR] [--spec SPEC] [--json]\n"
            "                        [--backend cuda [--reps R]] [options]\n"
            "\n"
            "Why is this input slow?  Run the saved input DIR (an input directory, or a run\n"
            "directory whose best/ is used) and a reference input once each on the sim,\n"
            "instrumented, and rank the CUDA source lines (or PTX lines) by the warp-cycles\n"
            "the input spends there beyond the reference: issue cycles plus stall cycles,\n"
            "summed over warps.  Printed on stderr: both kernel times, the top N lines with\n"
            "warp instructions issued (input/reference), average active lanes, divergent\n"
            "branch executions (input/reference), 32-byte sectors per global request (on a\n"
            "line of local accesses only, per local request, marked L),\n"
            "bank-conflict degree (shared wavefronts per request), atomic wait (lane-cycles\n"
            "behind same-address atomics, input/reference) and the dominant stall cause\n"
            "(memory, dependency, pipe, control, barrier); then the warp that finished last\n"
            "(it set the kernel's time), its SM, block and top causes.  Written to OUTDIR:\n"
            "explain.md (the same) and explain.json (every line, both runs, every warp's\n"
            "start and finish, every SM's finish), and two pictures: timeline.svg (SMs x\n"
            "cycles, a bar per warp coloured by the cause that took most of its cycles, the\n"
            "critical warp outlined) and heat.svg (each line's cycles, and the input minus\n"
            "the reference); --png adds timeline.png and heat.png.  The report is the sim's\n"
            "model; --backend cuda also measures both inputs on the GPU, interleaved, --reps\n"
            "times each, and puts the GPU's times beside the sim's with a rank test, saying\n"
            "when the two disagree on which input is slower (explain.json \"gpu\").\n"
            "`hunt` on the sim writes this report for its best input (RUN/explain), and\n"
            "`compare` for each strategy's best.\n"
            "\n"
            "  --input DIR       the input to explain, instead of the operand\n"
            "  --against DIR     the reference: another saved input (default: a random one)\n"
            "  --random SEED     the reference: a random input drawn with PCG32 seeded (SEED, 0),\n"
            "                    as `measure --random SEED` draws it (default 1)\n"
            "  --top N           lines in the table (default 10; explain.json has them all)\n"
            "  --by line|ptx     rank CUDA source lines (from .loc; default) or PTX lines\n"
            "  --critical        the lines' counts and cycles of each run's critical warp\n"
            "                    alone (the input's against the reference's), not summed over\n"
            "                    warps: where one slow warp sets the time while the others\n"
            "                    do less, the sum points away from it\n"
            "  -o OUTDIR         where the report and the pictures go (default: DIR/explain\n"
            "                    when DIR is writable, else none)\n"
            "  --spec SPEC       the kernel spec (default: recorded in DIR's manifest)\n"
            "  --json            print explain.json on stdout\n"
            "  --png             also timeline.png and heat.png, through rsvg-convert or else\n"
            "                    ImageMagick's convert where one is on PATH (a failure is said)\n"            "  --reps R          with --backend cuda: GPU runs of each input (default 30)\n"
            CLI_RUN_HELP
            "  -h, --help        this text\n");
}

enum { OPT_AGAINST = CLI_OPT_FIRST_FREE, OPT_RANDOM, OPT_TOP, OPT_BY, OPT_SPEC, OPT_PNG, OPT_REPS, OPT_INPUT,
       OPT_CRITICAL };

typedef struct {
    const char *input_arg;      /* --input DIR, else the operand */
    char input[1100];
    char against[1100];         /* "" : a random reference */
    uint64_t seed;
    long top;
    explain_by by;
    const char *outdir;         /* NULL: DIR/explain when writable */
    const char *spec;           /* NULL: the recorded one */
    bool png;                   /* PNGs of the pictures too */
    bool critical;              /* rows of each run's critical warp alone */
    bool gpu;                   /* --backend cuda: both inputs measured on the GPU as well */
    long rounds;                /* ... this many times each (0: not given) */
    cli_run_options ro;
} explain_args;

/* The reference image: the saved one, or a random one of the input's launch. */
static wh_image *reference_image(const wh_spec *spec, const wh_image *input, const explain_args *a, char *label,
                                 size_t n, wh_error *err)
{
    if (a->against[0]) {
        snprintf(label, n, "%s", a->against);
        return wh_image_load(spec, a->against, err);
    }
    snprintf(label, n, "random (seed %llu)", (unsigned long long)a->seed);
    wh_image *img = wh_image_new(spec, &input->launch, err);
    pcg32 rng;
    pcg32_seed(&rng, a->seed, 0);
    if (img && !wh_image_fill_random(img, &rng, err)) {
        wh_image_free(img);
        return NULL;
    }
    return img;
}

/* The PTX file's name, which names rows without a source line. */
static void ptx_name(const wh_spec *spec, char *out, size_t n)
{
    char path[4096];
    if (!wh_spec_ptx_path(spec, path, sizeof path, NULL))
        snprintf(path, sizeof path, "kernel.ptx");
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t len = strlen(base);
    if (len >= n)
        len = n - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

/* explain.md and explain.json under OUTDIR (or DIR/explain when it can be written). */
static bool write_files(const explain_args *a, const explain_view *v, const explain_gpu *gpu, json_t *doc,
                        wh_error *err)
{
    char dir[1200];
    if (a->outdir) {
        snprintf(dir, sizeof dir, "%s", a->outdir);
    } else if (access(a->input, W_OK) == 0) {
        snprintf(dir, sizeof dir, "%s/explain", a->input);
    } else {
        if (!a->ro.quiet)
            fprintf(stderr, "explain: %s is not writable: give -o OUTDIR to keep explain.md and explain.json\n",
                    a->input);
        return true;
    }
    char md_path[1300], json_path[1300];
    snprintf(md_path, sizeof md_path, "%s/explain.md", dir);
    snprintf(json_path, sizeof json_path, "%s/explain.json", dir);
    char *md = NULL;
    size_t md_len = 0;
    FILE *mf = open_memstream(&md, &md_len);
    if (!mf) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for explain.md");
        return false;
    }
    cli_explain_print_markdown(mf, v);
    if (gpu) {
        fputs("\n## The GPU beside the sim\n\n", mf);
        cli_explain_gpu_print(mf, gpu, "- ");
    }
    fclose(mf);
    bool ok = wh_make_dirs(dir, err) && wh_write_text_atomic(md_path, md, err) &&
              wh_write_json_atomic(json_path, doc, err);
    free(md);
    if (ok && !a->ro.quiet)
        fprintf(stderr, "explain: wrote %s and %s\n", md_path, json_path);
    return ok && cli_explain_svg_write(dir, v, a->png, a->ro.quiet ? NULL : stderr, err);
}

static int report(const explain_args *a, const wh_spec *spec, const harness *h, const harness_explain_report *in,
                  const harness_explain_report *ref, const char *ref_label, const explain_gpu *gpu)
{
    char ptx[512];
    ptx_name(spec, ptx, sizeof ptx);
    explain_lines lines;
    cli_explain_lines(in, ref, a->by, ptx, &lines);
    explain_view v = { spec, harness_device(h), a->input, ref_label, in, ref, &lines, a->by, (int)a->top,
                       a->critical };
    if (!a->ro.quiet)
        cli_explain_print_text(stderr, &v);
    if (!a->ro.quiet && gpu)
        cli_explain_gpu_print(stderr, gpu, "");
    json_t *doc = cli_explain_json(&v);
    if (gpu)
        json_object_set_new(doc, "gpu", cli_explain_gpu_json(gpu));
    wh_error err;
    wh_error_clear(&err);
    int status = write_files(a, &v, gpu, doc, &err) ? 0 : cli_report(&err);
    if (a->ro.json)
        cli_print_json(doc);
    json_decref(doc);
    cli_explain_lines_free(&lines);
    return status;
}

/* --critical: the run again (the sim is deterministic: the same warps and
 * time), its rows counting the warp that finished last alone. */
static bool critical_rows(harness *h, wh_image *img, harness_explain_report *r, wh_error *err)
{
    if (r->critical < 0)
        return true;
    harness_explain_report one;
    if (!harness_explain_one_warp(h, img, r->critical, &one, err))
        return false;
    harness_explain_report_free(r);
    *r = one;
    return true;
}

static int run_explain(explain_args *a)
{
    wh_error err;
    wh_error_clear(&err);
    char ref_label[1200];
    wh_spec *spec = cli_load_input_spec(a->input, a->spec, &err);
    if (spec && !cli_apply_run_sets(spec, &a->ro, &err)) {
        wh_spec_free(spec);
        spec = NULL;
    }
    wh_image *in_img = spec ? wh_image_load(spec, a->input, &err) : NULL;
    wh_image *ref_img = in_img ? reference_image(spec, in_img, a, ref_label, sizeof ref_label, &err) : NULL;
    harness *h = ref_img ? harness_open(spec, a->ro.backend, &a->ro.harness, &err) : NULL;
    harness_explain_report in, ref;
    memset(&in, 0, sizeof in);
    memset(&ref, 0, sizeof ref);
    bool ok = h && harness_explain(h, in_img, &in, &err) && harness_explain(h, ref_img, &ref, &err);
    if (ok && a->critical)
        ok = critical_rows(h, in_img, &in, &err) && critical_rows(h, ref_img, &ref, &err);
    explain_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    if (ok && a->gpu)
        ok = cli_explain_gpu_measure(spec, in_img, ref_img, &a->ro.harness, (int)a->rounds, (double)in.cycles,
                                     (double)ref.cycles, &gpu, &err);
    int status = ok ? report(a, spec, h, &in, &ref, ref_label, a->gpu ? &gpu : NULL) : cli_report(&err);
    cli_explain_gpu_free(&gpu);
    harness_explain_report_free(&in);
    harness_explain_report_free(&ref);
    harness_close(h);
    wh_image_free(ref_img);
    wh_image_free(in_img);
    wh_spec_free(spec);
    return status;
}

/* The report is the sim's (auto means sim here); --backend cuda adds the
 * GPU's times of the same two inputs beside it. */
static void sim_backend(explain_args *a)
{
    a->gpu = a->ro.backend == HARNESS_CUDA;
    a->ro.backend = HARNESS_SIM;
}

static int parse_option(explain_args *a, int c, const char *arg, wh_error *err)
{
    switch (c) {
    case OPT_AGAINST:
        return cli_input_dir("explain", arg, a->against, sizeof a->against, err) ? 1 : -1;
    case OPT_RANDOM:
        a->against[0] = '\0';
        return cli_parse_u64("--random", arg, &a->seed, err) ? 1 : -1;
    case OPT_TOP:
        return cli_parse_long("--top", arg, 1, 1000000, &a->top, err) ? 1 : -1;
    case OPT_BY:
        if (!strcmp(arg, "line") || !strcmp(arg, "ptx")) {
            a->by = !strcmp(arg, "ptx") ? EXPLAIN_BY_PTX : EXPLAIN_BY_LINE;
            return 1;
        }
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--by: expected line or ptx, got '%s'", arg);
        return -1;
    case 'o': a->outdir = arg; return 1;
    case OPT_SPEC: a->spec = arg; return 1;
    case OPT_PNG: a->png = true; return 1;
    case OPT_CRITICAL: a->critical = true; return 1;
    case OPT_INPUT: a->input_arg = arg; return 1;
    case OPT_REPS: return cli_parse_long("--reps", arg, 2, 1000000, &a->rounds, err) ? 1 : -1;
    default: return 0;
    }
}

int cli_explain_best(const char *run_dir, const cli_run_options *ro)
{
    explain_args a;
    memset(&a, 0, sizeof a);
    a.seed = 1;
    a.top = 10;
    a.ro = *ro;
    a.ro.backend = HARNESS_SIM;
    a.ro.harness.sim_noise = 0; /* the model's own cycles, not a noisy draw of them */
    a.ro.json = false;
    a.ro.quiet = a.ro.harness.quiet = true;
    a.ro.nsets = 0;             /* the manifest's constants are the run's */
    a.ro.size = NULL;
    char out[1200];
    snprintf(out, sizeof out, "%s/explain", run_dir);
    a.outdir = out;
    wh_error err;
    if (!cli_input_dir("explain", run_dir, a.input, sizeof a.input, &err)) return cli_report(&err);
    return run_explain(&a);
}

int cmd_explain(int argc, char **argv)
{
    static const struct option longs[] = {
        CLI_RUN_LONG_OPTIONS,
        { "against", required_argument, NULL, OPT_AGAINST },
        { "random", required_argument, NULL, OPT_RANDOM },
        { "top", required_argument, NULL, OPT_TOP },
        { "by", required_argument, NULL, OPT_BY },
        { "spec", required_argument, NULL, OPT_SPEC },
        { "png", no_argument, NULL, OPT_PNG },
        { "critical", no_argument, NULL, OPT_CRITICAL },
        { "reps", required_argument, NULL, OPT_REPS },
        { "input", required_argument, NULL, OPT_INPUT },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    explain_args a;
    memset(&a, 0, sizeof a);
    a.seed = 1;
    a.top = 10;
    cli_run_options_init(&a.ro);
    wh_error err;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", longs, NULL)) != -1) {
        int r = cli_run_option(&a.ro, c, optarg, &err);
        if (r == 0)
            r = parse_option(&a, c, optarg, &err);
        if (r < 0) return cli_report(&err);
        if (r > 0) continue;
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        return cli_usage_hint("explain");
    }
    if (optind != argc - (a.input_arg ? 0 : 1)) {
        fprintf(stderr, "warphunt explain: expected exactly one DIR (a saved input or a run directory), as the "
                        "operand or --input DIR\n");
        return cli_usage_hint("explain");
    }
    sim_backend(&a);
    if (a.rounds && !a.gpu) {
        wh_error_set(&err, WH_ERR_USER, NULL, 0, 0, "--reps is the GPU's runs of each input: give --backend cuda "
                     "with it (the sim's report runs each input once: it is exact)");
        return cli_report(&err);
    }
    if (!a.rounds) a.rounds = EXPLAIN_GPU_DEFAULT_ROUNDS;
    if (!cli_input_dir("explain", a.input_arg ? a.input_arg : argv[optind], a.input, sizeof a.input, &err))
        return cli_report(&err);
    return run_explain(&a);
}
