/*
 * cmd_measure.c — `warphunt measure SPEC`: time one input of a kernel on a
 * backend and print the statistics over repetitions.
 */
#include "cli/cli.h"
#include "core/image.h"
#include "core/pcg32.h"
#include "core/results.h"
#include "core/spec.h"
#include "harness/harness.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
        "usage: warphunt measure SPEC [--backend auto|sim|cuda] [--input DIR | --random SEED]\n"
        "                        [--reps R] [--outputs DIR] [--profile FILE] [--step-limit N]\n"
        "                        [--sim-local-mb M]\n"
        "                        [--device N] [--kernel-timeout S] [--warmup N] [--cold-l2]\n"
        "                        [--check [--ulps U]] [--set NAME=EXPR] [--size NAME]\n"
        "                        [--json] [--quiet]\n"
        "\n"
        "Run the kernel of SPEC (a kernel spec, kernels/NAME.json) on one input and\n"
        "report its time: mean, min, median, max and standard deviation over the\n"
        "repetitions, in the backend's unit (sim: cycles of the machine profile, also\n"
        "shown in microseconds; cuda: microseconds).\n"
        "\n"
        "options:\n"
        "  --backend B      sim (the PTX emulator with its timing model), cuda, or auto\n"
        "                   (default: cuda when a GPU is present, else sim)\n"
        "  --input DIR      a saved input image (manifest.json + NAME.bin files), or a\n"
        "                   run directory (its best/ input)\n"
        "  --random SEED    a random input within the spec's value domains, drawn with\n"
        "                   PCG32 seeded (SEED, 0); the default is --random 1\n"
        "  --reps R         repetitions (default 10); the sim is deterministic and runs\n"
        "                   the kernel once, reporting that time for every repetition\n"
        "  --outputs DIR    write the input image (manifest.json and the input files,\n"
        "                   as before the run) and one NAME.bin per output buffer (for\n"
        "                   an in-place input, \"in_place\" in the spec, NAME.out.bin)\n"
        "                   with its contents after the run\n"
        "  --profile FILE   sim: a machine profile (JSON; default: the built-in A100-like\n"
        "                   profile, harness/profiles/default.json)\n"
        "  --step-limit N   sim: stop a run after N warp instructions (default 2e9)\n"
        "  --sim-local-mb M sim: refuse a launch whose resident warps' local memory would\n"
        "                   take more than M MiB of host memory (status unsupported;\n"
        "                   default 2048)\n"
        "  --device N       cuda: device index (default 0)\n"
        "  --kernel-timeout S\n"
        "                   cuda: a launch still running after S seconds is killed with\n"
        "                   its worker process (status timeout; default 10, 0 = never)\n"
        "  --warmup N       cuda: untimed launches before the timed ones whenever the\n"
        "                   input or the launch shape changed (default 2)\n"
        "  --cold-l2        cuda: flush the L2 cache before every repetition (outside the\n"
        "                   timed region)\n"
        "  --check          also run the sim (the reference) on the same input and compare\n"
        "                   the output buffers and in-place inputs: integers bit for bit,\n"
        "                   floats within --ulps\n"
        "                   units in the last place, element by element or, as a buffer's\n"
        "                   \"check\" in the spec says, as multisets or not at all; exit\n"
        "                   status 3 when they differ (skipped, and said so, when the\n"
        "                   backend is the sim itself)\n"
        "  --ulps U         float tolerance of --check (default 4: room for the GPU's\n"
        "                   .approx instructions)\n"
        "  --set NAME=EXPR  give the spec's constant NAME another value or expression\n"
        "                   (repeatable; --outputs records it with the input)\n"
        "  --size NAME      the spec's named problem size (\"sizes\", e.g. large): its\n"
        "                   constants, as --set gives them, before any --set\n"
        "  --json           print a JSON summary on stdout: {\"spec\", \"kernel\", \"backend\",\n"
        "                   \"device\", \"unit\", \"reps\", \"mean\", \"min\", \"median\", \"max\",\n"
        "                   \"stddev\", \"status\", \"message\", \"cycles\", \"us\",\n"
        "                   \"warp_instructions\", \"lane_instructions\", \"input\", \"seed\"},\n"
        "                   with cuda also \"device_info\" (name, SMs, clocks, L2, driver),\n"
        "                   with --check also \"check\": {\"reference\", \"agree\", \"ulps\",\n"
        "                   \"reference_status\", \"report\"}\n"
        "  --quiet          print nothing on stderr but errors and a status other than ok\n"
        "                   (the result is then only in --json)\n"
        "  -h, --help       show this help\n"
        "\n"
        "A kernel that faults (out-of-bounds or misaligned access, trap, barrier under\n"
        "divergence, deadlock), runs past the step limit (status timeout) or uses an\n"
        "instruction the backend cannot run (status unsupported) is a finding, not an\n"
        "error: the status and its message (thread, block, PTX line, address) are\n"
        "printed on stderr and in the JSON, the statistics are 0, and the exit status\n"
        "is still 0.\n"
        "\n"
        "Exit status: 0 measured (whatever the kernel's status), 1 user error (spec,\n"
        "input, option, profile), 2 internal or device failure (no GPU for --backend\n"
        "cuda, JIT error), 3 --check found different outputs.\n");
}

/* --check: the sim's outputs for the same input against the backend's. */
typedef struct {
    bool done, agree;
    double ulps;
    harness_status ref_status;
    char report[2048];
} check_result;

static bool run_check(const wh_spec *spec, const harness_options *opt, const wh_image *measured,
                      const harness_result *res, wh_image *ref, check_result *ck, wh_error *err)
{
    harness_options so = *opt;
    so.want_outputs = true;
    so.quiet = true;
    harness *hs = harness_open(spec, HARNESS_SIM, &so, err);
    if (!hs)
        return false;
    harness_result rs;
    bool ok = harness_measure(hs, ref, 1, &rs, err);
    if (ok) {
        ck->done = true;
        ck->ref_status = rs.status;
        if (res->status != HARNESS_OK || rs.status != HARNESS_OK) {
            ck->agree = res->status == rs.status;
            snprintf(ck->report, sizeof ck->report, "status %s, the sim says %s%s%s",
                     harness_status_name(res->status), harness_status_name(rs.status),
                     rs.status != HARNESS_OK ? ": " : "", rs.status != HARNESS_OK ? rs.message : "");
        } else {
            ck->agree = harness_compare_outputs(measured, ref, ck->ulps, ck->report, sizeof ck->report);
        }
        harness_result_free(&rs);
    }
    harness_close(hs);
    return ok;
}

/* The input as it was before the run (an in-place buffer's result has
 * replaced it in `after`), then each result buffer after it. */
static bool write_outputs(const wh_image *before, const wh_image *after, const char *dir, wh_error *err)
{
    if (!wh_image_save(before, dir, err))
        return false;
    for (int i = 0; i < after->nbufs; i++) {
        const wh_buffer *b = &after->bufs[i];
        if (!wh_param_returned(b->param))
            continue;
        char path[4096], tmp[4200];
        /* an in-place input's NAME.bin is the input's: its result is NAME.out.bin */
        snprintf(path, sizeof path, "%s/%s%s.bin", dir, b->param->name, b->param->in_place ? ".out" : "");
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "wb");
        if (!f || (b->bytes && fwrite(b->data, 1, b->bytes, f) != b->bytes) || fclose(f) != 0) {
            wh_error_set(err, WH_ERR_USER, tmp, 0, 0, "cannot write the output buffer: %s", strerror(errno));
            return false;
        }
        if (rename(tmp, path) != 0) {
            wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot write the output buffer: %s", strerror(errno));
            return false;
        }
    }
    return true;
}

static void print_json(const wh_spec *spec, harness *h, const harness_result *r, const char *input,
                       bool random, uint64_t seed, const check_result *ck)
{
    json_t *o = json_object();
    json_object_set_new(o, "spec", json_string(spec->path));
    json_object_set_new(o, "kernel", json_string(spec->name));
    json_object_set_new(o, "backend", json_string(harness_backend_name(harness_backend_of(h))));
    json_object_set_new(o, "device", json_string(harness_device(h)));
    json_object_set_new(o, "unit", json_string(r->unit));
    json_object_set_new(o, "reps", json_integer(r->reps));
    json_object_set_new(o, "mean", json_real(r->mean));
    json_object_set_new(o, "min", json_real(r->min));
    json_object_set_new(o, "median", json_real(r->median));
    json_object_set_new(o, "max", json_real(r->max));
    json_object_set_new(o, "stddev", json_real(r->stddev));
    json_object_set_new(o, "wall_s", json_real(r->wall_s));
    json_object_set_new(o, "status", json_string(harness_status_name(r->status)));
    json_object_set_new(o, "message", json_string(r->message));
    json_object_set_new(o, "cycles", json_integer((json_int_t)r->cycles));
    json_object_set_new(o, "us", json_real(r->us));
    json_object_set_new(o, "warp_instructions", json_integer((json_int_t)r->warp_instructions));
    json_object_set_new(o, "lane_instructions", json_integer((json_int_t)r->lane_instructions));
    json_object_set_new(o, "input", json_string(random ? "random" : input));
    if (random)
        json_object_set_new(o, "seed", json_integer((json_int_t)seed));
    else
        json_object_set_new(o, "seed", json_null());
    json_t *info = harness_device_json(h);
    if (json_is_null(info))
        json_decref(info);
    else
        json_object_set_new(o, "device_info", info);
    if (ck->done) {
        json_t *c = json_object();
        json_object_set_new(c, "reference", json_string("sim"));
        json_object_set_new(c, "agree", json_boolean(ck->agree));
        json_object_set_new(c, "ulps", json_real(ck->ulps));
        json_object_set_new(c, "reference_status", json_string(harness_status_name(ck->ref_status)));
        json_object_set_new(c, "report", json_string(ck->report));
        json_object_set_new(o, "check", c);
    }
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (s) {
        printf("%s\n", s);
        free(s);
    }
    json_decref(o);
}

static void print_human(const wh_spec *spec, const wh_image *img, harness *h, const harness_result *r,
                        const char *input, bool random, uint64_t seed)
{
    const wh_launch *L = &img->launch;
    fprintf(stderr, "kernel:  %s (%s), grid %ux%ux%u, block %ux%ux%u\n", spec->name, spec->path,
            L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1], L->block[2]);
    fprintf(stderr, "device:  %s\n", harness_device(h));
    if (random)
        fprintf(stderr, "input:   random, seed %llu\n", (unsigned long long)seed);
    else
        fprintf(stderr, "input:   %s\n", input);
    fprintf(stderr, "status:  %s\n", harness_status_name(r->status));
    if (r->status != HARNESS_OK)
        fprintf(stderr, "message: %s\n", r->message);
    if (r->reps > 0) {
        fprintf(stderr, "time:    mean %.6g %s, min %.6g, median %.6g, max %.6g, stddev %.6g (%d reps)\n",
                r->mean, r->unit, r->min, r->median, r->max, r->stddev, r->reps);
    }
    if (r->cycles)
        fprintf(stderr, "cycles:  %llu (%.3f us at %g MHz)\n", (unsigned long long)r->cycles, r->us,
                harness_clock_mhz(h));
    if (r->warp_instructions)
        fprintf(stderr, "instructions: %llu warp, %llu lane (%.1f active lanes per warp instruction)\n",
                (unsigned long long)r->warp_instructions, (unsigned long long)r->lane_instructions,
                (double)r->lane_instructions / (double)r->warp_instructions);
}

/* measure's own options; the shared ones are cli_run_option's. */
enum { OPT_INPUT = CLI_OPT_FIRST_FREE, OPT_RANDOM, OPT_REPS, OPT_OUTPUTS, OPT_CHECK, OPT_ULPS };

int cmd_measure(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_RUN_LONG_OPTIONS,
        { "input", required_argument, NULL, OPT_INPUT },
        { "random", required_argument, NULL, OPT_RANDOM },
        { "reps", required_argument, NULL, OPT_REPS },
        { "outputs", required_argument, NULL, OPT_OUTPUTS },
        { "check", no_argument, NULL, OPT_CHECK },
        { "ulps", required_argument, NULL, OPT_ULPS },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *input = NULL, *outputs = NULL;
    uint64_t seed = 1;
    long reps = 10;
    bool random = false, check = false;
    check_result ck;
    memset(&ck, 0, sizeof ck);
    ck.ulps = HARNESS_CHECK_FLOAT_ULPS;
    cli_run_options ro;
    cli_run_options_init(&ro);
    wh_error err;
    wh_error_clear(&err);
    optind = 1;
    int saved_opterr = opterr;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int r = cli_run_option(&ro, c, optarg, &err);
        if (r == 0) {
            r = 1;
            switch (c) {
            case OPT_INPUT: input = optarg; break;
            case OPT_RANDOM:
                random = true;
                r = cli_parse_u64("--random", optarg, &seed, &err) ? 1 : -1;
                break;
            case OPT_REPS: r = cli_parse_long("--reps", optarg, 1, 1000000, &reps, &err) ? 1 : -1; break;
            case OPT_OUTPUTS: outputs = optarg; break;
            case OPT_CHECK: check = true; break;
            case OPT_ULPS: r = cli_parse_double("--ulps", optarg, 0, 1e12, &ck.ulps, &err) ? 1 : -1; break;
            case 'h':
                opterr = saved_opterr;
                usage(stdout);
                return 0;
            default:
                opterr = saved_opterr;
                return cli_bad_option("measure", argv);
            }
        }
        if (r < 0) {
            opterr = saved_opterr;
            return cli_report(&err);
        }
    }
    opterr = saved_opterr;
    if (optind != argc - 1) {
        fprintf(stderr, "warphunt measure: expected exactly one SPEC argument\n");
        return cli_usage_hint("measure");
    }
    if (input && random) {
        fprintf(stderr, "warphunt measure: --input and --random exclude each other\n");
        return 1;
    }
    if (!input)
        random = true;
    harness_backend backend = ro.backend;
    bool json = ro.json, quiet = ro.quiet;
    harness_options opt = ro.harness;
    opt.want_outputs = outputs != NULL || check;

    int status = 0;
    wh_spec *spec = cli_load_spec(argv[optind], &err);
    wh_image *img = NULL, *ref = NULL, *before = NULL;
    harness *h = NULL;
    harness_result res;
    memset(&res, 0, sizeof res);
    if (!spec || !cli_apply_run_sets(spec, &ro, &err))
        goto fail;
    char input_dir[1100];
    if (input) {
        /* a run directory stands for its best/, as in replay */
        img = cli_input_dir("measure --input", input, input_dir, sizeof input_dir, &err)
                  ? wh_image_load(spec, input_dir, &err) : NULL;
        input = input_dir;
    } else {
        wh_launch L = wh_spec_launch_full(spec);
        img = wh_image_new(spec, &L, &err);
        if (img) {
            pcg32 rng;
            pcg32_seed(&rng, seed, 0);
            if (!wh_image_fill_random(img, &rng, &err)) {
                wh_image_free(img);
                img = NULL;
            }
        }
    }
    if (!img)
        goto fail;
    if (check) {
        ref = wh_image_clone(img, &err);   /* the same input for the sim */
        if (!ref)
            goto fail;
    }
    if (outputs && !(before = wh_image_clone(img, &err)))   /* an in-place result will replace img's */
        goto fail;
    h = harness_open(spec, backend, &opt, &err);
    if (!h)
        goto fail;
    if (check && harness_backend_of(h) == HARNESS_SIM) {
        /* the sim is the reference: comparing it with itself proves nothing */
        fprintf(stderr, "warphunt measure: --check skipped: the backend is the sim, which is the reference "
                "(--check compares a GPU's outputs with the sim's)\n");
        check = false;
    }
    if (!harness_measure(h, img, (int)reps, &res, &err))
        goto fail;
    if (check && !run_check(spec, &opt, img, &res, ref, &ck, &err))
        goto fail;
    if (!quiet || res.status != HARNESS_OK)
        print_human(spec, img, h, &res, input, random, seed);
    if (ck.done)
        fprintf(stderr, "check:   %s against the sim: %s\n", ck.agree ? "agrees" : "DIFFERS", ck.report);
    if (json)
        print_json(spec, h, &res, input, random, seed, &ck);
    if (ck.done && !ck.agree)
        status = 3;
    if (outputs) {
        if (!wh_make_dirs(outputs, &err) || !write_outputs(before, img, outputs, &err))
            goto fail;
        if (!quiet)
            fprintf(stderr, "outputs: %s\n", outputs);
    }
    goto done;
fail:
    status = cli_report(&err);
done:
    harness_result_free(&res);
    harness_close(h);
    wh_image_free(ref);
    wh_image_free(before);
    wh_image_free(img);
    wh_spec_free(spec);
    return status;
}
