/*
 * cmd_replay.c — `warphunt replay`: re-measure a saved input many times.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "core/results.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warphunt replay DIR [--spec SPEC] [--reps R] [--csv FILE] [options]\n"
            "\n"
            "Re-run a saved input R times and print the distribution of its kernel time.\n"
            "DIR is an input directory (manifest.json + NAME.bin, such as a run's best/ or a\n"
            "finding) or a run directory (its best/ is used).  The spec is the one recorded\n"
            "in the manifest unless --spec names another.\n"
            "\n"
            "  --spec SPEC       the kernel spec (default: recorded in the manifest)\n"
            "  --reps R          repetitions (default 100)\n"
            "  --csv FILE        write one time per line (the input of MBPTA-CV and chronovise)\n"
            CLI_RUN_HELP
            "  -h, --help        this text\n");
}

enum { OPT_SPEC = CLI_OPT_FIRST_FREE, OPT_REPS, OPT_CSV };

static bool write_csv(const char *path, const harness_result *r, wh_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot write");
        return false;
    }
    for (int i = 0; i < r->reps; i++) fprintf(f, "%.9g\n", r->times[i]);
    if (fclose(f) != 0) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot write");
        return false;
    }
    return true;
}

static int replay(const char *dir, const char *spec_path, long reps, const char *csv, cli_run_options *ro)
{
    wh_error err;
    wh_error_clear(&err);
    wh_spec *spec = cli_load_input_spec(dir, spec_path, &err);
    if (spec && !cli_apply_run_sets(spec, ro, &err)) {
        wh_spec_free(spec);
        spec = NULL;
    }
    wh_image *img = spec ? wh_image_load(spec, dir, &err) : NULL;
    harness *h = img ? harness_open(spec, ro->backend, &ro->harness, &err) : NULL;
    harness_result r;
    bool measured = h && harness_measure(h, img, (int)reps, &r, &err);
    int status = measured ? 0 : cli_report(&err);
    if (measured) {
        if (!ro->quiet)
            fprintf(stderr, "replay: %s on %s, %d reps: mean %.6g, min %.6g, median %.6g, max %.6g, stddev %.3g %s; %s\n",
                    spec->name, harness_device(h), r.reps, r.mean, r.min, r.median, r.max, r.stddev, r.unit,
                    harness_status_name(r.status));
        if (r.status != HARNESS_OK) fprintf(stderr, "replay: %s\n", r.message);
        if (csv && !write_csv(csv, &r, &err)) status = cli_report(&err);
        if (ro->json) {
            json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:f, s:f, s:f, s:f, s:f, s:s}", "kernel",
                                  spec->name, "spec", spec->path, "input", dir, "backend",
                                  harness_backend_name(harness_backend_of(h)), "device", harness_device(h), "unit",
                                  r.unit, "reps", r.reps, "mean", r.mean, "min", r.min, "median", r.median, "max",
                                  r.max, "stddev", r.stddev, "status", harness_status_name(r.status));
            if (r.status != HARNESS_OK) json_object_set_new(j, "message", json_string(r.message));
            cli_print_json(j);
            json_decref(j);
        }
        harness_result_free(&r);
    }
    if (h) harness_close(h);
    wh_image_free(img);
    wh_spec_free(spec);
    return status;
}

int cmd_replay(int argc, char **argv)
{
    static const struct option longs[] = {
        CLI_RUN_LONG_OPTIONS,
        { "spec", required_argument, NULL, OPT_SPEC },
        { "reps", required_argument, NULL, OPT_REPS },
        { "csv", required_argument, NULL, OPT_CSV },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    cli_run_options ro;
    cli_run_options_init(&ro);
    wh_error err;
    const char *spec = NULL, *csv = NULL;
    long reps = 100;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        int r = cli_run_option(&ro, c, optarg, &err);
        if (r < 0) return cli_report(&err);
        if (r > 0) continue;
        switch (c) {
        case OPT_SPEC: spec = optarg; break;
        case OPT_REPS:
            if (!cli_parse_long("--reps", optarg, 1, 10000000, &reps, &err)) return cli_report(&err);
            break;
        case OPT_CSV: csv = optarg; break;
        case 'h': usage(stdout); return 0;
        default: return cli_usage_hint("replay");
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "warphunt replay: expected exactly one DIR (a saved input or a run directory)\n");
        return cli_usage_hint("replay");
    }
    char dir[1100];
    if (!cli_input_dir("replay", argv[optind], dir, sizeof dir, &err)) return cli_report(&err);
    return replay(dir, spec, reps, csv, &ro);
}
