/*
 * cmd_pwcet.c — `warphunt pwcet`: the i.i.d. checks and extreme value fits
 * of a measurement campaign (core/pwcet.h), as a terminal table,
 * pwcet.json, pwcet.md, an exceedance plot per input, and the samples in
 * the one-time-per-line form chronovise and MBPTA-CV read.
 */
#include "cli/cli.h"
#include "cli/pwcet_samples.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/pwcet.h"
#include "core/results.h"
#include "core/stats.h"

/* The probabilities the terminal and pwcet.md show (indices in probs). */
static const int shown[] = { 0, 3, 6, 9, 12 };
#define NSHOWN ((int)(sizeof shown / sizeof shown[0]))

typedef struct {
    const char *source;
    const char *input;        /* --input NAME, or NULL */
    bool all;
    bool keep_throttled;
    const char *out_dir;      /* NULL: beside the samples */
    wh_pwcet_options opt;
} pwcet_cli;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warphunt pwcet CSV|DIR [--input NAME|--all] [options]\n"
            "\n"
            "Probabilistic WCET of a measurement campaign (warphunt campaign), by extreme\n"
            "value theory.  CSV|DIR: a campaign.csv, its directory, a run directory holding\n"
            "campaign/, or a file of one time per line (replay --csv).  For the chosen input\n"
            "(default: the one with the highest mean time) it runs the i.i.d. checks\n"
            "(Ljung-Box with 20 lags, runs above/below the median, Kolmogorov-Smirnov of\n"
            "the two halves) and fits the tail: block maxima to a GEV and a Gumbel (MLE and\n"
            "PWM), peaks over a threshold to a generalised Pareto (MLE and PWM), and\n"
            "MBPTA-CV's exponential tail; then tabulates the pWCET, the time exceeded with\n"
            "probability p per run, for p = 1e-3 ... 1e-15, with bootstrap confidence\n"
            "intervals.  At least 100 samples (MBPTA-CV's minimum); throttled and faulted\n"
            "samples are left out.\n"
            "\n"
            "What it does not guarantee: a pWCET is a statement about the measured\n"
            "conditions (this input set, this GPU, its clocks, what else ran), and only when\n"
            "the i.i.d. checks pass; it is not a bound for inputs or states never measured.\n"
            "\n"
            "Writes OUT/pwcet.json, OUT/pwcet.md, and per input OUT/pwcet-NAME.svg (the\n"
            "empirical exceedance against every fit, log scale; .gp to re-render; SVG when\n"
            "gnuplot is installed) and OUT/NAME.samples.txt (one kept time per line, in\n"
            "campaign order: the input of chronovise and MBPTA-CV).\n"
            "\n"
            "  --input NAME      the input to analyse (as campaign.csv names it: top/01, best)\n"
            "  --all             every input with enough samples\n"
            "  --block B         block maxima: samples per block (default n/50 in [10, n/10])\n"
            "  --threshold Q     peaks over threshold: the threshold quantile (default 0.9)\n"
            "  --bootstrap B     resamples for the confidence intervals (default 200; 0: none)\n"
            "  --confidence C    of the intervals (default 0.95)\n"
            "  --alpha A         significance of the i.i.d. checks (default 0.05)\n"
            "  --seed S          the bootstrap's PCG32 seed (default 1)\n"
            "  --keep-throttled  analyse samples flagged throttled too\n"
            "  -o, --output OUT  output directory (default: the samples' directory)\n"
            "  --json            print the report as JSON on stdout\n"
            "  --quiet           nothing on stderr but errors\n"
            "  -h, --help        this text\n");
}

/* top/01 -> top-01: a file name. */
static void file_name(const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s", name);
    for (char *p = out; *p; p++)
        if (*p == '/' || *p == ' ' || *p == '\\') *p = '-';
}

static void print_report(FILE *f, const pwcet_series *s, const char *unit, const wh_pwcet_report *r, bool md)
{
    fprintf(f, md ? "## %s\n\n" : "pwcet: %s: ", s->name);
    fprintf(f, "%zu samples (%d throttled, %d faulted left out); mean %.6g, max %.6g %s\n%s", r->n, s->throttled,
            s->faults, r->mean, r->max, unit, md ? "\n" : "");
    fprintf(f, "%si.i.d. checks (alpha %.3g): Ljung-Box(%d) Q %.4g p %.3g; runs z %.3g p %.3g; KS halves D %.3g "
               "p %.3g: %s\n%s",
            md ? "" : "  ", r->options.alpha, r->ljung_box.dof, r->ljung_box.statistic, r->ljung_box.p_value,
            r->runs.statistic, r->runs.p_value, r->ks_halves.statistic, r->ks_halves.p_value,
            r->iid_ok ? "passed" : "FAILED: the samples do not look i.i.d., the pWCET below is not trustworthy",
            md ? "\n" : "");
    if (md)
        fprintf(f, "| fit | parameters |");
    else
        fprintf(f, "  %-11s %-44s", "fit", "parameters");
    for (int k = 0; k < NSHOWN; k++) fprintf(f, md ? " p=%.0e |" : " %11.0e", r->probs[shown[k]]);
    fprintf(f, "\n");
    if (md) {
        fprintf(f, "|---|---|");
        for (int k = 0; k < NSHOWN; k++) fprintf(f, "---|");
        fprintf(f, "\n");
    }
    for (int e = 0; e < WH_PWCET_NFITS; e++) {
        const wh_pwcet_estimate *x = &r->est[e];
        char par[128];
        if (x->fit.family == WH_EVT_GEV || x->fit.family == WH_EVT_GUMBEL)
            snprintf(par, sizeof par, "mu %.5g sigma %.4g xi %.3g (block %d)", x->fit.loc, x->fit.scale,
                     x->fit.shape, x->fit.block);
        else
            snprintf(par, sizeof par, "u %.5g sigma %.4g xi %.3g (%zu exc.)", x->fit.loc, x->fit.scale,
                     x->fit.shape, x->fit.n_fit);
        if (md)
            fprintf(f, "| %s | %s |", wh_pwcet_estimate_name(e), x->ok ? par : x->message);
        else
            fprintf(f, "  %-11s %-44s", wh_pwcet_estimate_name(e), x->ok ? par : x->message);
        for (int k = 0; x->ok && k < NSHOWN; k++) {
            int i = shown[k];
            if (md && !isnan(x->lo[i]))
                fprintf(f, " %.6g [%.6g, %.6g] |", x->pwcet[i], x->lo[i], x->hi[i]);
            else
                fprintf(f, md ? " %.6g |" : " %11.6g", x->pwcet[i]);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

/* The empirical exceedance (Hazen positions) and each fit's curve, one
 * gnuplot data block each. */
static bool write_plot_data(const char *dat, const pwcet_series *s, const wh_pwcet_report *r, wh_error *err)
{
    FILE *f = fopen(dat, "w");
    if (!f) {
        wh_error_set(err, WH_ERR_USER, dat, 0, 0, "cannot write");
        return false;
    }
    double *x = wh_sorted_copy(s->t, s->n);
    if (!x) {
        fclose(f);
        wh_error_set(err, WH_ERR_USER, dat, 0, 0, "out of memory for %zu samples", s->n);
        return false;
    }
    fprintf(f, "# measured\n");
    for (size_t i = 0; i < s->n; i++)
        fprintf(f, "%.9g %.6g\n", x[i], (s->n - i - 0.5) / (double)s->n);
    free(x);
    for (int e = 0; e < WH_PWCET_NFITS; e++) {
        fprintf(f, "\n\n# %s\n", wh_pwcet_estimate_name(e));
        for (double lp = -1; r->est[e].ok && lp >= -16; lp -= 0.25) {
            double v = wh_evt_pwcet(&r->est[e].fit, pow(10, lp));
            if (isfinite(v)) fprintf(f, "%.9g %.6g\n", v, pow(10, lp));
        }
        if (!r->est[e].ok) fprintf(f, "nan nan\n");
    }
    bool ok = fclose(f) == 0;
    if (!ok) wh_error_set(err, WH_ERR_USER, dat, 0, 0, "cannot write");
    return ok;
}

static bool write_plot(const char *out_dir, const pwcet_series *s, const char *unit, const wh_pwcet_report *r,
                       bool *rendered, wh_error *err)
{
    char fname[80], dat[1300], gp[1300], svg[1300], abs[4200];
    file_name(s->name, fname, sizeof fname);
    snprintf(dat, sizeof dat, "%s/pwcet-%s.dat", out_dir, fname);
    snprintf(gp, sizeof gp, "%s/pwcet-%s.gp", out_dir, fname);
    snprintf(svg, sizeof svg, "%s/pwcet-%s.svg", out_dir, fname);
    if (!write_plot_data(dat, s, r, err))
        return false;
    FILE *f = fopen(gp, "w");
    if (!f) {
        wh_error_set(err, WH_ERR_USER, gp, 0, 0, "cannot write");
        return false;
    }
    fprintf(f, "# exceedance probability per run; render with: gnuplot %s\n", gp);
    fprintf(f, "set terminal svg size 900,560 dynamic font 'sans,11' background rgb 'white'\n"
               "set termoption noenhanced\nset output ");
    wh_absolute_path(svg, abs, sizeof abs);
    wh_gnuplot_quote(f, abs);
    fprintf(f, "\nset logscale y\nset format y '1e%%L'\nset yrange [1e-16:1]\nset grid\nset key top right\n");
    fprintf(f, "set xlabel 'kernel time (%s)'\nset ylabel 'exceedance probability per run'\nset title ",
            unit[0] ? unit : "as measured");
    char title[200];
    snprintf(title, sizeof title, "%s: %zu samples, i.i.d. checks %s", s->name, r->n, r->iid_ok ? "passed" : "FAILED");
    wh_gnuplot_quote(f, title);
    wh_absolute_path(dat, abs, sizeof abs);
    fprintf(f, "\nplot ");
    wh_gnuplot_quote(f, abs);
    fprintf(f, " index 0 with steps lw 2 lc rgb 'black' title 'measured'");
    for (int e = 0; e < WH_PWCET_NFITS; e++) {
        if (!r->est[e].ok) continue;
        fprintf(f, ", \\\n     ");
        wh_gnuplot_quote(f, abs);
        /* one hue per fit, MLE darker than PWM, none black (the measured curve); no
         * dash patterns, which some SVG converters draw wrongly */
        static const char *const hue[WH_PWCET_NFITS] = { "#1b7e67", "#66c2a5", "#b34a02", "#fc8d62",
                                                         "#4a4393", "#8da0cb", "#e7298a" };
        fprintf(f, " index %d with lines lw 2 lc rgb '%s' title '%s'", e + 1, hue[e], wh_pwcet_estimate_name(e));
    }
    fprintf(f, "\n");
    if (fclose(f) != 0) {
        wh_error_set(err, WH_ERR_USER, gp, 0, 0, "cannot write");
        return false;
    }
    *rendered = wh_plot_render(gp);
    return true;
}

static bool write_samples_txt(const char *out_dir, const pwcet_series *s, wh_error *err)
{
    char fname[80], path[1300];
    file_name(s->name, fname, sizeof fname);
    snprintf(path, sizeof path, "%s/%s.samples.txt", out_dir, fname);
    FILE *f = fopen(path, "w");
    if (!f) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot write");
        return false;
    }
    for (size_t i = 0; i < s->n; i++) fprintf(f, "%.9g\n", s->t[i]);
    bool ok = fclose(f) == 0;
    if (!ok) wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot write");
    return ok;
}

/* The series to analyse: --input, --all, or the highest mean. */
static bool choose(const pwcet_samples *s, const pwcet_cli *c, bool *pick, wh_error *err)
{
    int best = -1;
    double best_mean = -INFINITY;
    for (int i = 0; i < s->n; i++) {
        pick[i] = false;
        if (c->input) {
            pick[i] = !strcmp(s->series[i].name, c->input);
            if (pick[i]) best = i;
            continue;
        }
        if (s->series[i].n < 100) continue;
        pick[i] = c->all;
        double sum = 0;
        for (size_t k = 0; k < s->series[i].n; k++) sum += s->series[i].t[k];
        if (sum / (double)s->series[i].n > best_mean) {
            best_mean = sum / (double)s->series[i].n;
            best = i;
        }
    }
    if (best < 0) {
        if (c->input)
            wh_error_set(err, WH_ERR_USER, s->path, 0, 0, "no input named '%s' (--input)", c->input);
        else
            wh_error_set(err, WH_ERR_USER, s->path, 0, 0,
                         "no input has the 100 samples MBPTA-CV asks for (campaign --runs 100 or more)");
        return false;
    }
    if (!c->all) pick[best] = true;
    return true;
}

static int run_pwcet(const pwcet_cli *c, const cli_run_options *ro)
{
    wh_error err;
    wh_error_clear(&err);
    pwcet_samples s;
    if (!pwcet_samples_read(c->source, c->keep_throttled, &s, &err))
        return cli_report(&err);
    char out_dir[1100];
    if (c->out_dir) {
        snprintf(out_dir, sizeof out_dir, "%s", c->out_dir);
    } else {
        snprintf(out_dir, sizeof out_dir, "%s", s.path);
        char *slash = strrchr(out_dir, '/');
        if (slash) *slash = '\0'; else snprintf(out_dir, sizeof out_dir, ".");
    }
    bool *pick = wh_xcalloc((size_t)s.n, sizeof *pick);
    bool ok = choose(&s, c, pick, &err) && wh_make_dirs(out_dir, &err);
    json_t *inputs = json_array();
    char md_path[1200];
    snprintf(md_path, sizeof md_path, "%s/pwcet.md", out_dir);
    FILE *md = ok ? fopen(md_path, "w") : NULL;
    if (ok && !md) {
        wh_error_set(&err, WH_ERR_USER, md_path, 0, 0, "cannot write");
        ok = false;
    }
    if (md) fprintf(md, "# pWCET of %s\n\nSamples: `%s`; unit: %s.  A pWCET holds for the measured conditions "
                        "only, and only when the i.i.d. checks pass.\n\n", s.path, s.path, s.unit[0] ? s.unit : "as measured");
    for (int i = 0; ok && i < s.n; i++) {
        if (!pick[i]) continue;
        wh_pwcet_report r;
        ok = wh_pwcet_analyse(s.series[i].t, s.series[i].n, &c->opt, &r, &err);
        bool rendered = false;
        ok = ok && write_samples_txt(out_dir, &s.series[i], &err) &&
             write_plot(out_dir, &s.series[i], s.unit, &r, &rendered, &err);
        if (!ok) break;
        if (!ro->quiet) print_report(stderr, &s.series[i], s.unit, &r, false);
        print_report(md, &s.series[i], s.unit, &r, true);
        json_t *j = json_pack("{s:s, s:i, s:i, s:o}", "name", s.series[i].name, "throttled_left_out",
                              s.series[i].throttled, "faults_left_out", s.series[i].faults, "report",
                              wh_pwcet_report_json(&r));
        json_array_append_new(inputs, j);
        if (!ro->quiet && !rendered) fprintf(stderr, "pwcet: plot not rendered (gnuplot missing or failed)\n");
    }
    if (md && fclose(md) != 0 && ok) {
        wh_error_set(&err, WH_ERR_USER, md_path, 0, 0, "cannot write");
        ok = false;
    }
    if (ok) {
        json_t *doc = json_pack("{s:s, s:s, s:s, s:o}", "tool", "warphunt " WH_VERSION, "samples", s.path, "unit",
                                s.unit, "inputs", json_incref(inputs));
        char path[1200];
        snprintf(path, sizeof path, "%s/pwcet.json", out_dir);
        ok = wh_write_json_atomic(path, doc, &err);
        if (ok && ro->json) cli_print_json(doc);
        if (ok && !ro->quiet) fprintf(stderr, "pwcet: %s/pwcet.json, pwcet.md, pwcet-*.svg\n", out_dir);
        json_decref(doc);
    }
    json_decref(inputs);
    free(pick);
    pwcet_samples_free(&s);
    return ok ? 0 : cli_report(&err);
}

enum { OPT_INPUT = CLI_OPT_FIRST_FREE, OPT_ALL, OPT_BLOCK, OPT_THRESHOLD, OPT_BOOTSTRAP, OPT_CONFIDENCE,
       OPT_ALPHA, OPT_SEED, OPT_KEEP_THROTTLED };

static bool parse_option(pwcet_cli *c, int opt, const char *arg, wh_error *err)
{
    long v;
    switch (opt) {
    case OPT_INPUT: c->input = arg; return true;
    case OPT_ALL: c->all = true; return true;
    case OPT_KEEP_THROTTLED: c->keep_throttled = true; return true;
    case 'o': c->out_dir = arg; return true;
    case OPT_BLOCK:
        if (!cli_parse_long("--block", arg, 2, 100000000, &v, err)) return false;
        c->opt.block = (int)v;
        return true;
    case OPT_BOOTSTRAP:
        if (!cli_parse_long("--bootstrap", arg, 0, 100000, &v, err)) return false;
        c->opt.bootstrap = (int)v;
        return true;
    case OPT_THRESHOLD: return cli_parse_double("--threshold", arg, 0.5, 0.999, &c->opt.threshold_q, err);
    case OPT_CONFIDENCE: return cli_parse_double("--confidence", arg, 0.5, 0.9999, &c->opt.confidence, err);
    case OPT_ALPHA: return cli_parse_double("--alpha", arg, 1e-6, 0.5, &c->opt.alpha, err);
    case OPT_SEED: return cli_parse_u64("--seed", arg, &c->opt.seed, err);
    default: return false;
    }
}

int cmd_pwcet(int argc, char **argv)
{
    static const struct option longs[] = {
        { "input", required_argument, NULL, OPT_INPUT },
        { "all", no_argument, NULL, OPT_ALL },
        { "block", required_argument, NULL, OPT_BLOCK },
        { "threshold", required_argument, NULL, OPT_THRESHOLD },
        { "bootstrap", required_argument, NULL, OPT_BOOTSTRAP },
        { "confidence", required_argument, NULL, OPT_CONFIDENCE },
        { "alpha", required_argument, NULL, OPT_ALPHA },
        { "seed", required_argument, NULL, OPT_SEED },
        { "keep-throttled", no_argument, NULL, OPT_KEEP_THROTTLED },
        { "output", required_argument, NULL, 'o' },
        { "json", no_argument, NULL, CLI_OPT_JSON },
        { "quiet", no_argument, NULL, CLI_OPT_QUIET },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    cli_run_options ro;
    cli_run_options_init(&ro);
    pwcet_cli c = { 0 };
    wh_pwcet_options_init(&c.opt);
    wh_error err;
    wh_error_clear(&err);
    optind = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, "ho:", longs, NULL)) != -1) {
        if (opt == 'h') {
            usage(stdout);
            return 0;
        }
        if (opt == CLI_OPT_JSON || opt == CLI_OPT_QUIET) {
            cli_run_option(&ro, opt, optarg, &err);
            continue;
        }
        if (opt == '?' ) return cli_usage_hint("pwcet");
        if (!parse_option(&c, opt, optarg, &err)) return cli_report(&err);
    }
    if (optind != argc - 1) {
        fprintf(stderr, "warphunt pwcet: expected exactly one CSV or DIR (a campaign's samples)\n");
        return cli_usage_hint("pwcet");
    }
    if (c.input && c.all) {
        fprintf(stderr, "warphunt pwcet: --input and --all exclude each other\n");
        return cli_usage_hint("pwcet");
    }
    c.source = argv[optind];
    return run_pwcet(&c, &ro);
}
