/*
 * cmd_diff.c — `warphunt diff`: is one saved input slower than another?
 * Both are re-measured on one harness, interleaved round by round, and
 * compared by ranks.
 */
#include "cli/cli.h"
#include "cli/paired.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warphunt diff RUN_A RUN_B [--spec SPEC] [--reps R] [--alpha P] [--csv FILE]\n"
            "                     [options]\n"
            "\n"
            "Re-measure two saved inputs on one harness and say whether one is slower.\n"
            "RUN_A and RUN_B are input directories (manifest.json + NAME.bin, such as a\n"
            "run's best/) or run directories (their best/ is used).  The measurements are\n"
            "interleaved: in each of R rounds A runs once, then B, so that drift (clocks,\n"
            "temperature, other load) hits both alike.  Printed on stderr: each input's\n"
            "mean, median, min, max and stddev, the ratio of medians B/A, the effect size\n"
            "A12 (the chance that a run of A is longer than a run of B; ties count half)\n"
            "and the two-sided Mann-Whitney U test's p, then the verdict at --alpha.\n"
            "\n"
            "  --spec SPEC       the kernel spec of both (default: the one both manifests\n"
            "                    record; an error when they record different kernels)\n"
            "  --reps R          rounds (default 30)\n"
            "  --alpha P         significance level of the verdict (default 0.05)\n"
            "  --csv FILE        write the raw times: a header round,a,b, then one row per round\n"
            CLI_RUN_HELP
            "  -h, --help        this text\n");
}

enum { OPT_SPEC = CLI_OPT_FIRST_FREE, OPT_REPS, OPT_ALPHA, OPT_CSV };

typedef struct {
    const char *spec; /* --spec, or NULL: the one the manifests record */
    long reps;
    double alpha;
    const char *csv;
    cli_run_options ro;
} diff_args;

/* The spec both inputs are measured with: --spec, else the one the two
 * manifests record.  They are compared by kernel name, since one spec may
 * be recorded under two paths (relative and absolute). */
static wh_spec *diff_spec(const char *given, const paired_side *a, const paired_side *b, wh_error *err)
{
    wh_spec *spec = cli_load_input_spec(a->dir, given, err);
    if (!spec || given) return spec;
    wh_spec *other = cli_load_input_spec(b->dir, NULL, err);
    bool same = other && !strcmp(spec->name, other->name);
    if (other && !same)
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0,
                     "diff: A (%s) records spec '%s' (%s) and B (%s) records '%s' (%s): give --spec SPEC to "
                     "measure both with one",
                     a->dir, spec->name, spec->path, b->dir, other->name, other->path);
    wh_spec_free(other);
    if (same) return spec;
    wh_spec_free(spec);
    return NULL;
}

static void free_side(paired_side *s)
{
    wh_image_free(s->img);
    cli_paired_free(s);
}

static void print_side(const char *label, const paired_side *s)
{
    fprintf(stderr, "  %s  %12.6g %12.6g %12.6g %12.6g %12.4g\n", label, s->st.mean, s->st.median, s->st.min, s->st.max,
            s->st.stddev);
}

static void print_human(const wh_spec *spec, const harness *h, int rounds, const diff_args *args, const paired_side *a,
                        const paired_side *b, const wh_rank_test *t)
{
    fprintf(stderr, "diff: %s on %s, %d rounds (A, then B, in each), times in %s\n", spec->name, harness_device(h),
            rounds, harness_unit(h));
    fprintf(stderr, "  A: %s\n  B: %s\n", a->dir, b->dir);
    fprintf(stderr, "     %12s %12s %12s %12s %12s\n", "mean", "median", "min", "max", "stddev");
    print_side("A", a);
    print_side("B", b);
    if (a->st.median > 0) fprintf(stderr, "  median B/A %.4g;", b->st.median / a->st.median);
    else fprintf(stderr, "  median B/A -;");
    fprintf(stderr, " A12 (A against B) %.3f; Mann-Whitney p %.3g%s\n", t->a12, t->p_value,
            t->exact ? " (exact)" : " (normal approx.)");
    paired_verdict v = cli_paired_verdict(t, args->alpha);
    if (v == PAIRED_NO_DIFFERENCE)
        fprintf(stderr, "  no significant difference at alpha %g (p = %.3g)", args->alpha, t->p_value);
    else
        fprintf(stderr, "  %s is slower (p = %.3g < alpha %g)", v == PAIRED_A_SLOWER ? "A" : "B", t->p_value, args->alpha);
    if (a->st.min == a->st.max && b->st.min == b->st.max)
        fputs(harness_backend_of(h) == HARNESS_SIM && args->ro.harness.sim_noise == 0
                  ? "; neither sample varies (the sim is deterministic: one rep each would do)\n"
                  : "; neither sample varies\n",
              stderr);
    else
        fputc('\n', stderr);
}

static bool write_csv(const char *path, const paired_side *a, const paired_side *b, int rounds, wh_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot write");
        return false;
    }
    fprintf(f, "round,a,b\n");
    for (int k = 0; k < rounds; k++) fprintf(f, "%d,%.9g,%.9g\n", k + 1, a->times[k], b->times[k]);
    if (fclose(f) != 0) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot write");
        return false;
    }
    return true;
}

static void print_json(const wh_spec *spec, const harness *h, int rounds, const diff_args *args, const paired_side *a,
                       const paired_side *b, const wh_rank_test *t)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:o, s:o}", "kernel", spec->name, "spec", spec->path,
                          "backend", harness_backend_name(harness_backend_of(h)), "device", harness_device(h), "unit",
                          harness_unit(h), "reps", rounds, "a", cli_paired_side_json(a, true), "b",
                          cli_paired_side_json(b, true));
    /* JSON has no infinity: no ratio when A's median is 0 */
    json_object_set_new(j, "ratio_median", a->st.median > 0 ? json_real(b->st.median / a->st.median) : json_null());
    json_object_set_new(j, "a12", json_real(t->a12));
    json_object_set_new(j, "p_value", json_real(t->p_value));
    json_object_set_new(j, "exact", json_boolean(t->exact));
    json_object_set_new(j, "alpha", json_real(args->alpha));
    json_object_set_new(j, "verdict", json_string(cli_paired_verdict_key(cli_paired_verdict(t, args->alpha))));
    cli_print_json(j);
    json_decref(j);
}

/* Everything written from the measured times. */
static int report(const wh_spec *spec, const harness *h, int rounds, const diff_args *args, const paired_side *a,
                  const paired_side *b, const wh_rank_test *t)
{
    wh_error err;
    wh_error_clear(&err);
    if (!args->ro.quiet) print_human(spec, h, rounds, args, a, b, t);
    int status = 0;
    if (args->csv && !write_csv(args->csv, a, b, rounds, &err)) status = cli_report(&err);
    if (args->ro.json) print_json(spec, h, rounds, args, a, b, t);
    return status;
}

static int run_diff(const diff_args *args, paired_side *a, paired_side *b)
{
    wh_error err;
    wh_error_clear(&err);
    int rounds = (int)args->reps;
    wh_spec *spec = diff_spec(args->spec, a, b, &err);
    harness *h = NULL;
    bool ok = spec && cli_apply_run_sets(spec, &args->ro, &err) &&
              (a->img = wh_image_load(spec, a->dir, &err)) && (b->img = wh_image_load(spec, b->dir, &err));
    if (ok) h = harness_open(spec, args->ro.backend, &args->ro.harness, &err);
    wh_rank_test t;
    ok = ok && h && cli_paired_measure(h, a, b, rounds, "diff", &t, &err);
    int status = ok ? report(spec, h, rounds, args, a, b, &t) : cli_report(&err);
    harness_close(h);
    free_side(a);
    free_side(b);
    wh_spec_free(spec);
    return status;
}

int cmd_diff(int argc, char **argv)
{
    static const struct option longs[] = {
        CLI_RUN_LONG_OPTIONS,
        { "spec", required_argument, NULL, OPT_SPEC },
        { "reps", required_argument, NULL, OPT_REPS },
        { "alpha", required_argument, NULL, OPT_ALPHA },
        { "csv", required_argument, NULL, OPT_CSV },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    diff_args args = { .reps = 30, .alpha = 0.05 };
    cli_run_options_init(&args.ro);
    wh_error err;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        int r = cli_run_option(&args.ro, c, optarg, &err);
        if (r < 0) return cli_report(&err);
        if (r > 0) continue;
        switch (c) {
        case OPT_SPEC: args.spec = optarg; break;
        case OPT_REPS:
            if (!cli_parse_long("--reps", optarg, 1, 1000000, &args.reps, &err)) return cli_report(&err);
            break;
        case OPT_ALPHA:
            if (!cli_parse_double("--alpha", optarg, 0, 1, &args.alpha, &err)) return cli_report(&err);
            break;
        case OPT_CSV: args.csv = optarg; break;
        case 'h': usage(stdout); return 0;
        default: return cli_usage_hint("diff");
        }
    }
    if (optind != argc - 2) {
        fprintf(stderr, "warphunt diff: expected two inputs, RUN_A and RUN_B (saved inputs or run directories)\n");
        return cli_usage_hint("diff");
    }
    paired_side a = { .label = "A" }, b = { .label = "B" };
    if (!cli_input_dir("diff", argv[optind], a.dir, sizeof a.dir, &err) ||
        !cli_input_dir("diff", argv[optind + 1], b.dir, sizeof b.dir, &err))
        return cli_report(&err);
    return run_diff(&args, &a, &b);
}
