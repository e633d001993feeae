/*
 * cmd_compare.c — `warphunt compare`: every strategy with the same budget
 * over several seeds, a table in the style of the paper's Table IV, and
 * one plot with the convergence curves.
 */
#include "cli/hunt_opts.h"

#include "core/results.h"
#include "ga/islands.h"
#include "core/stats.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warphunt compare SPEC [--evals N] [--seed S] [--seeds K] [--strategies LIST]\n"
            "                        [options]\n"
            "\n"
            "Run the strategies (default gdivan, random-ga and random) on SPEC with the same\n"
            "evaluation budget for K seeds (S, S+1, ...), then write one run directory per\n"
            "strategy and seed, table.md (best time, evaluations and seconds to reach it,\n"
            "the best input re-measured, mean over seeds; each strategy against the first:\n"
            "the effect size A12 and the two-sided Mann-Whitney U test's p of the re-measured\n"
            "times over seeds), table.csv (the same rows, numbers unrounded), compare.json\n"
            "and plot.svg (one curve per strategy, first seed) to\n"
            "results/<kernel>/compare-e<N>-s<S>/.  Early stopping is off unless --patience\n"
            "is given, so every run spends the whole budget.  Under `mpirun -np K` every run\n"
            "is a run of K islands (see hunt: --migrate-every G, --migrants M, default 5 and\n"
            "2), its directory holding island-NN/; the table gives each run's best island\n"
            "(its evaluations to the best are that island's; --evals is per island).\n"
            "\n"
            "  --migrate-every G, --migrants M   islands: as hunt's (under mpirun only)\n"
            "  --seeds K         seeds per strategy (default 3; 3 against 3 gives p >= 0.1,\n"
            "                    5 against 5 p >= 0.008)\n"
            "  --strategies LIST comma-separated, in table order: gdivan, gdivan-paper (gdivan\n"
            "                    with the paper's plain tiling and one-gene mutation and no\n"
            "                    random-value individuals, value edits or families:\n"
            "                    --random-individuals 0 --tiling plain --segment 0\n"
            "                    --value-edits 0 --families 0 --warp-first 0 --no-scout\n"
            "                    --no-edit-screen --no-location-feedback --no-lane-amplify),\n"
            "                    random-ga, random\n"
            "  -o, --out DIR     write here instead of results/<kernel>/compare-...\n"
            "  --keep-state      keep each run's search state (checkpoint.bin, pool.bin), so a\n"
            "                    run can be extended with hunt --resume (default: removed)\n"
            "  --no-explain      on the sim, each strategy's best run (over seeds) explains its\n"
            "                    best input against a random one into RUN/explain, as hunt does\n"
            "                    (see explain); this skips it\n"
            HUNT_HELP("1000", "0 here, unlike hunt") CLI_RUN_HELP
            "  -h, --help        this text\n");
}

enum { OPT_SEEDS = HOPT_FIRST_FREE, OPT_STRATEGIES, OPT_KEEP_STATE, OPT_NO_EXPLAIN };

/* A row of the comparison: a strategy, and for gdivan-paper the paper's
 * own scaler and mutation (plain tiling, one-gene mutations). */
typedef struct {
    const char *name;
    ga_strategy strategy;
    bool paper;
} variant;

static const variant variants[] = {
    { "gdivan", GA_GDIVAN, false },
    { "gdivan-paper", GA_GDIVAN, true },
    { "random-ga", GA_RANDOM_GA, false },
    { "random", GA_RANDOM, false },
};
#define NVARIANTS ((int)(sizeof variants / sizeof variants[0]))
#define MAX_ROWS 8

typedef struct {
    const variant *rows[MAX_ROWS];
    int nrows;
    hunt_summary *runs;   /* [row][seed] */
    char (*failure)[512]; /* [row][seed]: why the run failed, "" when it did not */
    int nseeds, done, failed;
    char dir[1024];
} comparison;

/* "gdivan,random" -> rows; false (err) on an unknown or repeated name. */
static bool parse_strategies(comparison *c, const char *list, wh_error *err)
{
    c->nrows = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const variant *v = NULL;
        for (int i = 0; i < NVARIANTS; i++)
            if (!strcmp(tok, variants[i].name)) v = &variants[i];
        for (int r = 0; v && r < c->nrows; r++)
            if (c->rows[r] == v) v = NULL;
        if (!v || c->nrows == MAX_ROWS) {
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--strategies: '%s' is unknown or repeated (gdivan, "
                         "gdivan-paper, random-ga, random)", tok);
            return false;
        }
        c->rows[c->nrows++] = v;
    }
    if (c->nrows == 0) wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--strategies: no strategy named");
    return c->nrows > 0;
}

/* A run's outcome for the rank test: its best input re-measured at the
 * end.  The search's own best is the maximum over many noisy means, biased
 * upward the more evaluations a strategy makes (on the sim, where there is
 * no noise, both are the same). */
static double run_outcome(const hunt_summary *r)
{
    return r->final_reps > 0 ? r->final_mean : r->best;
}

static bool run_failed(const comparison *c, int i)
{
    return c->failure[i][0] != 0;
}

/* The outcomes of a row's finished runs, in seed order; their count. */
static int row_outcomes(const comparison *c, int row, double *out)
{
    int n = 0;
    for (int k = 0; k < c->nseeds && row * c->nseeds + k < c->done; k++)
        if (!run_failed(c, row * c->nseeds + k))
            out[n++] = run_outcome(&c->runs[row * c->nseeds + k]);
    return n;
}

/* The first run that did not fail, or NULL. */
static const hunt_summary *first_run(const comparison *c)
{
    for (int i = 0; i < c->done; i++)
        if (!run_failed(c, i))
            return &c->runs[i];
    return NULL;
}

/* Row `row` against the first row (the reference): false when either has
 * no finished run. */
static bool rank_test_row(const comparison *c, int row, wh_rank_test *t)
{
    double *ref = malloc((size_t)c->nseeds * sizeof *ref), *other = malloc((size_t)c->nseeds * sizeof *other);
    bool ok = ref && other;
    if (ok) {
        int nref = row_outcomes(c, 0, ref), nother = row_outcomes(c, row, other);
        ok = wh_rank_test_run(ref, nref, other, nother, t);
    }
    free(ref);
    free(other);
    return ok;
}

/* 2 / C(2k, k): the smallest two-sided p that k seeds against k can give. */
static double smallest_p(int k)
{
    double comb = 1;
    for (int i = 1; i <= k; i++)
        comb = comb * (k + i) / i;
    return 2.0 / comb;
}

/* One row of the table: a strategy's figures over its finished runs,
 * computed once and written as markdown and as CSV. */
typedef struct {
    const char *name;
    int runs;
    double best, lo, hi;       /* WCET found: mean, min and max over the runs */
    double again;              /* re-measured, mean */
    double evals, secs, stage; /* means: evaluations and search seconds to the best, symbolic stage seconds */
    bool tested;               /* t: the rank test against the first row */
    wh_rank_test t;
} table_row;

/* Row s's figures; false when it has no finished run. */
static bool table_row_of(const comparison *c, int s, table_row *row)
{
    memset(row, 0, sizeof *row);
    row->name = c->rows[s]->name;
    for (int k = 0; k < c->nseeds; k++) {
        int i = s * c->nseeds + k;
        if (i >= c->done) break;
        if (run_failed(c, i)) continue;
        const hunt_summary *r = &c->runs[i];
        row->lo = row->runs == 0 || r->best < row->lo ? r->best : row->lo;
        row->hi = row->runs == 0 || r->best > row->hi ? r->best : row->hi;
        row->best += r->best;
        row->again += run_outcome(r);
        row->evals += (double)r->evals_to_best;
        row->secs += r->time_to_best_s;
        row->stage += r->explore_s;
        row->runs++;
    }
    if (!row->runs) return false;
    row->best /= row->runs;
    row->again /= row->runs;
    row->evals /= row->runs;
    row->secs /= row->runs;
    row->stage /= row->runs;
    row->tested = s > 0 && rank_test_row(c, s, &row->t);
    return true;
}

/* c->dir/name opened for writing, or NULL (err filled). */
static FILE *open_table(const comparison *c, const char *name, wh_error *err)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", c->dir, name);
    FILE *f = fopen(path, "w");
    if (!f) wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "cannot write");
    return f;
}

static void write_table_md(const comparison *c, const char *kernel, const table_row *rows, int n, wh_error *err)
{
    FILE *f = open_table(c, "table.md", err);
    if (!f) return;
    const hunt_summary *r0 = first_run(c);
    const char *unit = r0 ? r0->unit : "";
    const char *ref = c->rows[0]->name;
    fprintf(f, "# %s: strategies compared with the same budget\n\n", kernel);
    fprintf(f, "Backend: %s.  Budget: %ld evaluations per run", r0 ? r0->device : "?", r0 ? r0->evals : 0L);
    if (r0 && r0->islands > 1)
        fprintf(f, " (%d islands; evaluations to the best are the best island's)", r0->islands);
    fprintf(f, ".  %d seed(s) per strategy; figures are means over seeds (min-max in brackets).\n\n", c->nseeds);
    fprintf(f, "Re-measured: each run's best input timed again at the end (the search's own figure is a "
               "maximum over noisy measurements, biased upward).  A12: the chance that a run of %s re-measures "
               "longer than a run of the row's strategy (ties count half; 0.5: no difference, 1: always "
               "longer).  p: two-sided Mann-Whitney U test of the re-measured times over the seeds, exact up to "
               "%d runs in all (%d seeds against %d can give no p below %.3g).\n\n",
            ref, WH_RANK_EXACT_MAX, c->nseeds, c->nseeds, smallest_p(c->nseeds));
    fprintf(f, "Reached after (s): the search's seconds to its best; the symbolic stage (gdivan) runs before "
               "the search: its column is the wall time it took in these runs (a run whose stage came from the "
               "cache of an earlier one spent about 0 s), and the next column adds the two.\n\n");
    fprintf(f, "| strategy | WCET found (%s) | re-measured (%s) | reached after (evaluations) | reached after (s) "
               "| symbolic stage (s) | reached after, stage included (s) | runs | A12 (%s) | p |\n",
            unit, unit, ref);
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < n; k++) {
        const table_row *r = &rows[k];
        char a12[32] = "-", p[32] = "-";
        if (r->tested) {
            snprintf(a12, sizeof a12, "%.2f", r->t.a12);
            snprintf(p, sizeof p, "%.3g%s", r->t.p_value, r->t.exact ? "" : " (normal approx.)");
        }
        fprintf(f, "| %s | %.6g [%.6g-%.6g] | %.6g | %.0f | %.2f | %.2f | %.2f | %d | %s | %s |\n", r->name,
                r->best, r->lo, r->hi, r->again, r->evals, r->secs, r->stage, r->secs + r->stage, r->runs, a12, p);
    }
    if (c->failed) {
        fprintf(f, "\nRuns that failed (left out of the figures above):\n\n");
        for (int i = 0; i < c->done; i++)
            if (run_failed(c, i))
                fprintf(f, "- %s seed %llu: %s\n", c->rows[i / c->nseeds]->name,
                        (unsigned long long)c->runs[i].seed, c->failure[i]);
    }
    fclose(f);
}

/* table.md's rows and columns, for a spreadsheet or a script: numbers
 * unrounded, a range in three columns (mean, min, max), the p-value's
 * approximation note as a column of its own. */
static void write_table_csv(const comparison *c, const table_row *rows, int n, wh_error *err)
{
    FILE *f = open_table(c, "table.csv", err);
    if (!f) return;
    const hunt_summary *r0 = first_run(c);
    const char *unit = r0 ? r0->unit : "";
    char found[64], lo[64], hi[64], again[64], a12[96];
    snprintf(found, sizeof found, "WCET found (%s)", unit);
    snprintf(lo, sizeof lo, "WCET found min (%s)", unit);
    snprintf(hi, sizeof hi, "WCET found max (%s)", unit);
    snprintf(again, sizeof again, "re-measured (%s)", unit);
    snprintf(a12, sizeof a12, "A12 (%s)", c->rows[0]->name);
    const char *cols[] = { "strategy", found, lo, hi, again, "reached after (evaluations)", "reached after (s)",
                           "symbolic stage (s)", "reached after, stage included (s)", "runs", a12, "p", "p exact" };
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        if (i) fputc(',', f);
        wh_csv_text(f, cols[i]);
    }
    fputc('\n', f);
    for (int k = 0; k < n; k++) {
        const table_row *r = &rows[k];
        wh_csv_text(f, r->name);
        fprintf(f, ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d", r->best, r->lo, r->hi, r->again, r->evals,
                r->secs, r->stage, r->secs + r->stage, r->runs);
        if (r->tested) fprintf(f, ",%.9g,%.9g,%s\n", r->t.a12, r->t.p_value, r->t.exact ? "true" : "false");
        else fprintf(f, ",,,\n");
    }
    if (fclose(f) != 0) wh_error_set(err, WH_ERR_INTERNAL, c->dir, 0, 0, "cannot write table.csv");
}

/* table.md and table.csv, from the same rows. */
static void write_table(const comparison *c, const char *kernel, wh_error *err)
{
    table_row rows[MAX_ROWS];
    int n = 0;
    for (int s = 0; s < c->nrows; s++)
        if (table_row_of(c, s, &rows[n])) n++;
    write_table_md(c, kernel, rows, n, err);
    write_table_csv(c, rows, n, err);
}

static void write_plot(const comparison *c, const char *kernel)
{
    char csv[MAX_ROWS][1200], stem[1100], title[256];
    wh_plot_curve curves[MAX_ROWS];
    int n = 0;
    for (int s = 0; s < c->nrows; s++) {
        int i = s * c->nseeds;
        if (i >= c->done) break;
        if (run_failed(c, i)) continue;
        if (c->runs[i].islands > 1)
            snprintf(csv[n], sizeof csv[n], "%s/island-%02d/history.csv", c->runs[i].dir, c->runs[i].best_island);
        else
            snprintf(csv[n], sizeof csv[n], "%s/history.csv", c->runs[i].dir);
        curves[n] = (wh_plot_curve){ csv[n], c->rows[s]->name };
        n++;
    }
    snprintf(stem, sizeof stem, "%s/plot", c->dir);
    const hunt_summary *r0 = first_run(c);
    snprintf(title, sizeof title, "%s: best-so-far by strategy (seed %llu)", kernel,
             r0 ? (unsigned long long)r0->seed : 0ULL);
    bool rendered;
    wh_error err;
    if (n && r0) wh_plot_convergence(stem, title, r0->unit, curves, n, &rendered, &err);
}

static json_t *summary_json(const comparison *c)
{
    json_t *list = json_array();
    for (int i = 0; i < c->done; i++) {
        json_t *run = run_failed(c, i) ? json_pack("{s:I, s:s}", "seed", (json_int_t)c->runs[i].seed, "failed",
                                                   c->failure[i])
                                       : hunt_summary_json(&c->runs[i]);
        json_object_set_new(run, "variant", json_string(c->rows[i / c->nseeds]->name));
        json_array_append_new(list, run);
    }
    json_t *tests = json_array();
    for (int s = 1; s < c->nrows; s++) {
        wh_rank_test t;
        if (!rank_test_row(c, s, &t)) continue;
        json_array_append_new(tests, json_pack("{s:s, s:s, s:f, s:f, s:f, s:b}", "strategy", c->rows[s]->name,
                                               "against", c->rows[0]->name, "a12", t.a12, "u", t.u,
                                               "p_value", t.p_value, "exact", t.exact));
    }
    char table[1100], csv[1100];
    snprintf(table, sizeof table, "%s/table.md", c->dir);
    snprintf(csv, sizeof csv, "%s/table.csv", c->dir);
    return json_pack("{s:o, s:o, s:s, s:s, s:s}", "strategies", list, "rank_tests", tests, "table", table,
                     "table_csv", csv, "dir", c->dir);
}

/* Every strategy and seed; a run that fails is recorded and the rest go on. */
static void run_all(comparison *c, const wh_spec *spec, hunt_options *ho)
{
    uint64_t seed0 = ho->seed;
    for (int s = 0; s < c->nrows; s++)
        for (int k = 0; k < c->nseeds; k++) {
            if (ho->interrupted && *ho->interrupted) return;
            char out[1200];
            hunt_options o = *ho;
            o.strategy = c->rows[s]->strategy;
            if (c->rows[s]->paper) {
                o.tiling = HUNT_TILING_PLAIN;
                o.ga.segment_prob = 0;
                o.ga.random_frac = 0;
                o.value_edits = 0;
                o.explore.families = 0;
                o.warp_first = 0;
                o.scout = false;
                o.edit_screen = false;
                o.end_edits = false;
                o.location_feedback = false;
                o.lane_amplify = false;
                o.explore.saturation_s = 0;
            }
            o.seed = seed0 + (uint64_t)k;
            snprintf(out, sizeof out, "%s/%s-s%llu", c->dir, c->rows[s]->name, (unsigned long long)o.seed);
            o.out_dir = out;
            wh_error rerr;
            wh_error_clear(&rerr);
            bool ran = hunt_run(spec, &o, &c->runs[c->done], &rerr);
            /* islands cannot go on without one of them */
            if (!ran && ho->islands) cli_abort_islands(ho->islands, &rerr);
            if (!ran) {
                /* one strategy's failure is a row of the table, not the end
                 * of the comparison */
                c->runs[c->done].seed = o.seed;
                snprintf(c->failure[c->done], sizeof c->failure[c->done], "%.500s", rerr.msg[0] ? rerr.msg : "failed");
                c->done++;
                c->failed++;
                fprintf(stderr, "compare: %s seed %llu failed: %s\n", c->rows[s]->name,
                        (unsigned long long)o.seed, c->failure[c->done - 1]);
                continue;
            }
            c->done++;
            if (!ho->quiet)
                fprintf(stderr, "compare: %s seed %llu: best %.6g %s at evaluation %ld\n", c->rows[s]->name,
                        (unsigned long long)o.seed, c->runs[c->done - 1].best, c->runs[c->done - 1].unit,
                        c->runs[c->done - 1].evals_to_best);
        }
}

/* The comparison's directory: -o, else a new one under the results. */
static bool make_dir(comparison *c, const char *out, const hunt_options *ho, const wh_spec *spec, wh_error *err)
{
    if (out) {
        snprintf(c->dir, sizeof c->dir, "%s", out);
        return wh_make_dirs(c->dir, err);
    }
    char stem[128];
    snprintf(stem, sizeof stem, "compare-e%ld-s%llu", ho->ga.max_evals, (unsigned long long)ho->seed);
    return wh_results_make_run_dir(ho->results_base, spec->name, stem, c->dir, sizeof c->dir, err);
}

/* Runs that lost an island had a smaller budget than the others: the
 * table is then no fair comparison, and the user is told so. */
static void warn_lost_islands(const comparison *c)
{
    int runs = 0;
    for (int i = 0; i < c->nrows * c->nseeds; i++) runs += c->runs[i].islands_lost > 0;
    if (runs > 0)
        fprintf(stderr, "compare: %d run%s lost an island (their run.json's islands_lost say which): their budgets "
                        "were smaller, so the table compares unequal searches; rerun it for a fair one\n", runs,
                runs == 1 ? "" : "s");
}

/* Every island takes island 0's directory ("" when it could not make one). */
static bool share_dir(wh_islands *islands, comparison *c, bool made, wh_error *err)
{
    if (!made) c->dir[0] = '\0';
    wh_islands_share_text(islands, c->dir, sizeof c->dir);
    if (c->dir[0]) return true;
    if (wh_islands_rank(islands) > 0)
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "island 0 could not make the comparison's directory");
    return false;
}

typedef struct {
    long nseeds;
    const char *out;
    const char *strategies;
    bool keep_state;
    bool explain;               /* each strategy's best run explains its best input */
} compare_args;

/* On the sim: why each strategy's best input (its best run over seeds) is
 * slow, into that run's explain/; a failure is said and changes nothing. */
static void explain_bests(const comparison *c, const cli_run_options *ro)
{
    for (int s = 0; s < c->nrows; s++) {
        int best = -1;
        for (int k = 0; k < c->nseeds; k++) {
            int i = s * c->nseeds + k;
            if (i < c->done && !run_failed(c, i) && !strcmp(c->runs[i].backend, "sim") &&
                (best < 0 || c->runs[i].best > c->runs[best].best))
                best = i;
        }
        if (best < 0) continue;
        if (cli_explain_best(c->runs[best].dir, ro) != 0)
            fprintf(stderr, "compare: the explain of %s's best input failed\n", c->rows[s]->name);
        else if (!ro->quiet)
            fprintf(stderr, "compare: why %s's best input is slow: %s/explain/explain.md\n", c->rows[s]->name,
                    c->runs[best].dir);
    }
}

static int own_option(void *ctx, int c, const char *arg, wh_error *err)
{
    compare_args *a = ctx;
    switch (c) {
    case OPT_SEEDS: return cli_parse_long("--seeds", arg, 1, 1000, &a->nseeds, err) ? 1 : -1;
    case 'o': a->out = arg; return 1;
    case OPT_STRATEGIES: a->strategies = arg; return 1;
    case OPT_KEEP_STATE: a->keep_state = true; return 1;
    case OPT_NO_EXPLAIN: a->explain = false; return 1;
    default: return 0;
    }
}

int cmd_compare(int argc, char **argv)
{
    static const struct option longs[] = {
        HUNT_LONG_OPTIONS, CLI_RUN_LONG_OPTIONS,
        { "seeds", required_argument, NULL, OPT_SEEDS },
        { "strategies", required_argument, NULL, OPT_STRATEGIES },
        { "keep-state", no_argument, NULL, OPT_KEEP_STATE },
        { "no-explain", no_argument, NULL, OPT_NO_EXPLAIN },
        { "out", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    hunt_options ho;
    hunt_options_default(&ho);
    ho.ga.max_evals = 1000;
    ho.ga.patience = 0;
    cli_run_options ro;
    cli_run_options_init(&ro);
    compare_args args = { 3, NULL, "gdivan,random-ga,random", false, true };
    wh_spec *spec;
    int pstatus = cli_parse_search(argc, argv, longs, own_option, &args, usage, &ho, &ro, &spec);
    if (pstatus >= 0) return pstatus;
    long nseeds = args.nseeds;
    /* a comparison's runs are not resumed one by one: their search state
     * (hundreds of MB on large launches) goes unless asked for */
    ho.drop_state = !args.keep_state;
    const char *out = args.out;
    wh_error err;
    wh_error_clear(&err);
    comparison cmp;
    memset(&cmp, 0, sizeof cmp);
    cmp.nseeds = (int)nseeds;
    wh_islands *islands = NULL;
    if (!parse_strategies(&cmp, args.strategies, &err) || !cli_join_islands(&ho, &ro, &islands, &err)) {
        wh_spec_free(spec);
        cli_search_free(&ho);
        return cli_report(&err);
    }
    if (ho.sync_dir) {
        wh_error_set(&err, WH_ERR_USER, NULL, 0, 0, "--sync-dir is hunt's: the runs of a comparison are not "
                     "meant to share their individuals");
        wh_spec_free(spec);
        cli_search_free(&ho);
        return cli_report(&err);
    }
    /* under mpirun every run of the comparison is a run of islands; island 0 writes the table */
    bool lead = !islands || wh_islands_rank(islands) == 0;
    cmp.runs = calloc((size_t)(cmp.nrows * nseeds), sizeof *cmp.runs);
    cmp.failure = calloc((size_t)(cmp.nrows * nseeds), sizeof *cmp.failure);
    bool ok = cmp.runs != NULL && cmp.failure != NULL;
    if (ok && lead)
        ok = make_dir(&cmp, out, &ho, spec, &err);
    if (islands && !share_dir(islands, &cmp, ok, &err))
        ok = false;
    if (ok)
        run_all(&cmp, spec, &ho);
    int status = 0;
    if (cmp.done && lead && args.explain && !*ho.interrupted)
        explain_bests(&cmp, &ro);
    if (cmp.done && lead) {
        wh_error werr;
        write_table(&cmp, spec->name, &werr);
        write_plot(&cmp, spec->name);
        json_t *j = summary_json(&cmp);
        char path[1100];
        snprintf(path, sizeof path, "%s/compare.json", cmp.dir);
        wh_write_json_atomic(path, j, &werr);
        if (ro.json) cli_print_json(j);
        json_decref(j);
        if (!ro.quiet) fprintf(stderr, "compare: table in %s/table.md (and table.csv)\n", cmp.dir);
    }
    if (cmp.done && lead) warn_lost_islands(&cmp);
    if (!ok) {
        status = cli_report(&err);
    } else if (*ho.interrupted) {
        status = 130;
    } else if (cmp.failed) {
        fprintf(stderr, "warphunt: %d of %d runs failed (listed in %s/table.md)\n", cmp.failed, cmp.done, cmp.dir);
        status = 2;
    }
    free(cmp.failure);
    free(cmp.runs);
    wh_spec_free(spec);
    cli_search_free(&ho);
    wh_islands_leave(islands);
    return status;
}
