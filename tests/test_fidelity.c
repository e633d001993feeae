/*
 * test_fidelity.c — bench_fidelity, the program: the same inputs (seeded
 * random ones and each kernel's hand-built ones) timed into a CSV, and the
 * rank agreement of two CSVs per kernel: a backend against itself agrees
 * perfectly, against its reverse not at all, and the reference's slowest
 * input is located in the other's ranking; a reference run's best input
 * joins them with --found.
 */
#include <criterion/criterion.h>

#include "support.h"

#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void bench_path(char *out, size_t n)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    cr_assert_gt(len, 0);
    self[len] = '\0';
    snprintf(out, n, "%s/bench/bench_fidelity", dirname(self));
    if (access(out, X_OK) != 0)
        cr_skip_test("%s not built (make test builds it)", out);
}

/* bench_fidelity ARGS, its stderr into `err` (NULL: discarded). */
static int run_err(const char *args, const char *err)
{
    char bench[PATH_MAX], cmd[3 * PATH_MAX];
    bench_path(bench, sizeof bench);
    snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>%s", bench, args, err ? err : "&1");
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run(const char *args)
{
    return run_err(args, NULL);
}

/* --compare ARGS (ending in --json PATH), asserted to succeed: PATH's
 * document (json_decref it). */
static json_t *compared(const char *args, const char *json)
{
    cr_assert_eq(run(args), 0, "bench_fidelity %s", args);
    return ts_load_json(json);
}

static int count_lines_with(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, needle) != NULL;
    fclose(f);
    return n;
}

/* A CSV with every time negated (the opposite ranking), and with the
 * input hash of row `other` (1-based; 0: none) changed, as if that name
 * had held another input. */
static void reverse_csv_other(const char *in, const char *out, int other)
{
    FILE *f = fopen(in, "r"), *g = fopen(out, "w");
    cr_assert(f && g);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char k[64], i[64], s[16], u[16], h[17];
        double t;
        if (sscanf(line, "%63[^,],%63[^,],%15[^,],%lf,%15[^,],%16s", k, i, s, &t, u, h) == 6)
            fprintf(g, "%s,%s,%s,%f,%s,%s\n", k, i, s, -t, u, ++n == other ? "0123456789abcdef" : h);
        else
            fputs(line, g);
    }
    fclose(f);
    fclose(g);
}

static void reverse_csv(const char *in, const char *out)
{
    reverse_csv_other(in, out, 0);
}

Test(fidelity, a_backend_agrees_with_itself_and_not_with_its_reverse, .timeout = 120)
{
    char dir[] = "/tmp/wh_fidelity_XXXXXX";
    cr_assert(mkdtemp(dir));
    char args[1400], csv[300], rev[300], json[300];
    snprintf(csv, sizeof csv, "%s/sim.csv", dir);
    snprintf(rev, sizeof rev, "%s/rev.csv", dir);
    snprintf(json, sizeof json, "%s/cmp.json", dir);
    snprintf(args, sizeof args, "--measure --inputs 4 --kernels gt_atomic,spmv_scalar --found 'results/{}/reference' "
             "-o %s", csv);
    cr_assert_eq(run(args), 0, "bench_fidelity %s", args);
    cr_expect_eq(count_lines_with(csv, "gt_atomic,found-gdivan-s1,ok"), 1, "the reference run's best input");
    cr_expect_eq(count_lines_with(csv, "gt_atomic,random-"), 4);
    cr_expect_eq(count_lines_with(csv, "gt_atomic,known-worst,ok"), 1, "the ground truth's known worst");
    cr_expect_eq(count_lines_with(csv, "spmv_scalar,staircase-scattered,ok"), 1, "the corpus's candidates");
    cr_expect_eq(count_lines_with(csv, "fig1a,"), 0, "--kernels limits the kernels");

    snprintf(args, sizeof args, "--compare %s %s --json %s", csv, csv, json);
    json_t *doc = compared(args, json);
    cr_assert_eq(json_array_size(doc), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *k = json_array_get(doc, i);
        cr_expect_float_eq(json_real_value(json_object_get(k, "rho")), 1.0, 1e-12);
        cr_expect_float_eq(json_real_value(json_object_get(k, "tau")), 1.0, 1e-12);
        cr_expect_eq(json_integer_value(json_object_get(k, "slowest_rank")), 1);
    }
    json_t *atomic = json_array_get(doc, 0);
    cr_expect_str_eq(json_string_value(json_object_get(atomic, "kernel")), "gt_atomic");
    cr_expect_str_eq(json_string_value(json_object_get(atomic, "slowest")), "known-worst");
    cr_expect_eq(json_integer_value(json_object_get(atomic, "inputs")), 7);
    json_decref(doc);

    reverse_csv(csv, rev);
    snprintf(args, sizeof args, "--compare %s %s --json %s", csv, rev, json);
    doc = compared(args, json);
    json_t *k = json_array_get(doc, 0);
    cr_expect(json_real_value(json_object_get(k, "rho")) < -0.8, "reversed: rho %g",
              json_real_value(json_object_get(k, "rho")));
    /* last there, but for the search's best input, as slow as the known worst */
    cr_expect_geq(json_integer_value(json_object_get(k, "slowest_rank")), 6, "the slowest is among the last there");
    json_decref(doc);

    /* a second run of the reference: its rho against itself (1 here), and the
     * pairs it tells apart in both runs, which the reverse orders the other way */
    snprintf(args, sizeof args, "--compare %s %s --ceiling %s --json %s", csv, rev, csv, json);
    doc = compared(args, json);
    k = json_array_get(doc, 0);
    cr_expect_float_eq(json_real_value(json_object_get(k, "rho_ceiling")), 1.0, 1e-12);
    json_int_t pairs = json_integer_value(json_object_get(k, "pairs"));
    cr_expect_gt(pairs, 0, "gt_atomic's known worst is told apart from the random inputs");
    cr_expect_eq(json_integer_value(json_object_get(k, "pairs_agree")), 0, "the reverse orders none alike");
    json_decref(doc);
    snprintf(args, sizeof args, "--compare %s %s --ceiling %s --json %s", csv, csv, rev, json);
    doc = compared(args, json);
    k = json_array_get(doc, 0);
    cr_expect(json_real_value(json_object_get(k, "rho_ceiling")) < -0.8, "a second run that disagrees");
    cr_expect_eq(json_integer_value(json_object_get(k, "pairs")), 0, "no pair is told apart the same way twice");
    json_decref(doc);
    /* a name that held another input in the other CSV (its input hash
     * differs) is left out, and said so */
    reverse_csv_other(csv, rev, 1);
    snprintf(args, sizeof args, "--compare %s %s --json %s", csv, rev, json);
    doc = compared(args, json);
    k = json_array_get(doc, 0);
    cr_expect_eq(json_integer_value(json_object_get(k, "inputs")), 6, "gt_atomic's first input left out");
    cr_expect_eq(json_integer_value(json_object_get(k, "inputs_differ")), 1);
    json_decref(doc);
    cr_expect_eq(run("--compare /nonexistent.csv /nonexistent.csv"), 2);
    cr_expect_eq(run("--frobnicate"), 1);
    ts_rmtree(dir);
}

/* The time column of KERNEL,INPUT in a CSV; -1 when absent. */
static double csv_time(const char *path, const char *kernel, const char *input)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    char line[512], key[200];
    snprintf(key, sizeof key, "%s,%s,ok,", kernel, input);
    double t = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key)))
            t = atof(line + strlen(key));
    fclose(f);
    return t;
}

/* --grid-scale K runs every kernel at K times its G, hand-built inputs
 * included (sssp_relax's weights and md_cutoff's sparse lattice stay in
 * their domains at any size), --skip leaves kernels out, and a search's
 * inputs, made at the spec's size, are refused with it. */
Test(fidelity, grid_scale_runs_every_input_at_a_larger_launch, .timeout = 300)
{
    char dir[] = "/tmp/wh_fidelity_XXXXXX";
    cr_assert(mkdtemp(dir));
    char args[1400], one[300], four[300];
    snprintf(one, sizeof one, "%s/x1.csv", dir);
    snprintf(four, sizeof four, "%s/x4.csv", dir);
    snprintf(args, sizeof args, "--measure --inputs 1 --kernels gt_loop,sssp_relax,md_cutoff -o %s", one);
    cr_assert_eq(run(args), 0, "bench_fidelity %s", args);
    snprintf(args, sizeof args, "--measure --inputs 1 --kernels gt_loop,sssp_relax,md_cutoff,fig1a --skip fig1a "
             "--grid-scale 4 --set 'slots=threads*2' -o %s", four);
    cr_assert_eq(run(args), 0, "bench_fidelity %s", args);
    cr_expect_eq(count_lines_with(four, "fig1a,"), 0, "--skip leaves fig1a out");
    cr_expect_eq(count_lines_with(four, ",ok,"), count_lines_with(one, ",ok,"), "the same inputs, all run");
    cr_expect_eq(count_lines_with(four, "sssp_relax,"), 6, "its random input and its 5 hand-built ones");
    cr_expect_eq(count_lines_with(four, "md_cutoff,spread-coalesced,ok"), 1);
    double t1 = csv_time(one, "gt_loop", "random-1"), t4 = csv_time(four, "gt_loop", "random-1");
    cr_expect(t1 > 0 && t4 > 1.5 * t1, "4 times the blocks take longer: %g then %g cycles", t1, t4);

    snprintf(args, sizeof args, "--measure --inputs 1 --kernels gt_loop --grid-scale 2 --found 'results/{}/reference' "
             "-o %s", four);
    cr_expect_eq(run(args), 1, "--found's inputs have the spec's size");
    char err[300];
    snprintf(err, sizeof err, "%s/err", dir);
    snprintf(args, sizeof args, "--measure --inputs 0 --kernels gt_loop --set nothing=1 -o %s", four);
    cr_expect_eq(run_err(args, err), 0);
    cr_expect(strstr(ts_read_text(err), "--set nothing=1: no kernel measured has that constant"), "%s",
              ts_read_text(err));
    cr_expect_eq(run("--measure --grid-scale 0 -o /dev/null"), 1);
    cr_expect_eq(run("--measure --set nothing -o /dev/null"), 1);
    ts_rmtree(dir);
}
