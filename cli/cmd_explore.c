/*
 * cmd_explore.c — `warphunt explore SPEC`: the symbolic stage alone.
 *
 * Runs the generator block's exploration (gen_explore: deepening over X, up
 * to K atoms per finished or loop-cut path, replay of every atom on the sim,
 * the cache under <results>/<kernel>/.cache/ that `hunt` shares) and
 * reports it: a summary on stderr, DIR/paths.json (the cached one with the
 * atoms' values added) and, with --json, a summary on stdout.
 */
#include "cli/cli.h"
#include "core/clock.h"
#include "core/results.h"
#include "core/spec.h"
#include "gen/explore.h"
#include "symexec/symexec.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    gen_explore_options d;
    gen_explore_options_default(&d);
    fprintf(out,
        "usage: warphunt explore SPEC [--threads X] [--max-iter N] [--time S] [--paths N]\n"
        "                        [--models K] [--query-ms MS] [--solver-mb MB] [--order random|time]\n"
        "                        [--families N] [--saturation S]\n"
        "                        [--no-validate]\n"
        "                        [--no-cache] [--results DIR]\n"
        "                        [-o DIR] [--json] [--quiet]\n"
        "\n"
        "Symbolic stage only: run the kernel of SPEC symbolically for one block of X\n"
        "threads (inputs symbolic, everything else concrete), collect its paths with\n"
        "their formulas and metrics, solve atoms and write DIR/paths.json (with every\n"
        "atom's input values; the cache's copy and a hunt's hold each atom's id and\n"
        "validity, the values being in the cache's atoms.bin).  This is the\n"
        "exploration `hunt` (strategy gdivan) starts from, done by the same code.\n"
        "\n"
        "X deepens over the spec's symbolic.threads (default 2, 3, 4) until every\n"
        "conditional branch leg is covered or the time budget is spent; the paths of the\n"
        "largest X whose exploration finished are kept, or of a larger X that --paths\n"
        "or saturation stopped when it covers more legs (its first N paths, whole;\n"
        "deepening stops at --paths); one the clock cut short only when no X finished.\n"
        "An X saturates when it has found nothing new (a branch leg, or a path with\n"
        "more warp-issued instructions or more divergence than any before) for as long\n"
        "as its last find took to come and at least --saturation seconds: the search\n"
        "goes on to the next X, whose own saturation ends it when it covers no more\n"
        "legs.  An X that finishes with exactly the paths and legs of the (finished)\n"
        "X before it ends the deepening.  The coverage of every X tried is reported,\n"
        "with why it stopped.\n"
        "\n"
        "Up to K distinct atoms (models of the path's formula) are solved per finished or\n"
        "loop-cut path (none for an error path) and replayed on the sim backend with the\n"
        "same X threads: an atom is valid when every thread takes the path's branch\n"
        "decisions (a prefix of them for a cut path).\n"
        "\n"
        "The result is cached under RESULTS/<kernel>/.cache/<key>/, keyed by the PTX, the\n"
        "spec and the options that change it (--threads, --max-iter, --time, --paths,\n"
        "--models, --query-ms, --families, --saturation, --no-validate); an explore or\n"
        "hunt with the same ones reuses it (hunt's --explore-time, --explore-paths and\n"
        "--explore-saturation are explore's --time, --paths and --saturation; hunt\n"
        "always uses the default --query-ms).\n"
        "\n"
        "options:\n"
        "  --threads X    explore for X threads only\n"
        "  --max-iter N   cut a thread's loop after N iterations on a symbolic branch\n"
        "                 (default: the spec's symbolic.max_iter, else %d); cut paths\n"
        "                 are kept and counted\n"
        "  --time S       time budget in seconds for the whole stage (default %g): the\n"
        "                 deepening, the atoms and their replays, and writing the cache's\n"
        "                 paths.json (DIR's copy, with the atoms' values, comes after)\n"
        "  --paths N      stop each X after N paths (default %d)\n"
        "  --saturation S stop each X once nothing new came for as long as the last new\n"
        "                 thing took, and at least S seconds (default %g; 0: only the\n"
        "                 budgets stop it)\n"
        "  --models K     atoms per path (default %d)\n"
        "  --query-ms MS  limit of each solver check of the search (default %u); a check\n"
        "                 that reaches it is a give-up: the branch keeps the side the\n"
        "                 state's model takes, with its condition (sound, not complete);\n"
        "                 the other side is still taken where a sampled input shows it\n"
        "                 feasible (witness_forks in paths.json)\n"
        "  --solver-mb MB Z3's memory (default %u MiB): a check during which Z3's\n"
        "                 allocations pass it is interrupted, a give-up like the above\n"
        "                 (\"for Z3's memory\" in the summary, solver_memouts in paths.json)\n"
        "  --order O      which pending state runs next once none takes an uncovered leg\n"
        "                 (those run first): random (default) or time (three times in\n"
        "                 four the state that has executed most instructions, so paths\n"
        "                 that run long finish within the budget; not yet the default:\n"
        "                 the corpus benchmark has not judged it)\n"
        "  --families N   the N paths with most warp-issued instructions get a family:\n"
        "                 up to %d siblings of their atom varying the last thread's\n"
        "                 inputs only (default %d; 0: none)\n"
        "  --no-validate  do not replay the atoms on the sim (they count as unvalidated)\n"
        "  --no-cache     explore again even if a cached result exists (and replace it)\n"
        "  --results DIR  base directory of results (default: results), as in hunt\n"
        "  --set NAME=EXPR  give the spec's constant NAME another value (repeatable); the\n"
        "                 cache keeps each variant apart\n"
        "  --size NAME    the spec's named problem size (\"sizes\"), before any --set\n"
        "  -o DIR         output directory (default RESULTS/<kernel>/explore-<X>)\n"
        "  --json         print a summary as JSON on stdout:\n"
        "                 {\"kernel\", \"threads\", \"paths\", \"coverage\", \"legs_total\",\n"
        "                  \"legs_covered\", \"models\", \"atoms\", \"atoms_valid\",\n"
        "                  \"atoms_invalid\", \"atoms_unvalidated\", \"validation\", \"cut\",\n"
        "                  \"errors\", \"pending\", \"coverage_per_x\", \"from_cache\", \"cache\",\n"
        "                  \"time_s\", \"dir\"}; validation is \"sim\" or \"none\" (then every\n"
        "                  atom counts as unvalidated)\n"
        "  --quiet        no progress or summary on stderr\n"
        "  -h, --help     show this help\n"
        "\n"
        "There is no --seed: the executor's search order uses a fixed seed (as in hunt),\n"
        "so that explore and hunt share cached explorations.\n"
        "\n"
        "An instruction the executor cannot model cuts the path that reaches it and is\n"
        "listed as an issue (opcode, PTX and CUDA line); the exploration goes on.  Every\n"
        "solver call is bounded (Z3 is interrupted past its limit: a give-up), and no\n"
        "call starts once --time is spent.  Z3 may not heed the interrupt on floats:\n"
        "once a check on floats has taken 200 ms, later ones run in a child process\n"
        "killed at their limit (the first slow one runs here).\n"
        "\n"
        "Exit status: 0 success, 1 user error (spec, PTX, options), 2 internal error.\n",
        SX_DEFAULT_MAX_ITER, d.time_s, d.path_budget, GEN_SATURATION_S, d.models, SX_DEFAULT_QUERY_MS, SX_DEFAULT_SOLVER_MB,
        GEN_FAMILY_ATOMS, d.families);
}

typedef struct {
    gen_explore_options eo;
    const char *results, *out, *spec;
    bool json, quiet;
    const char *sets[CLI_MAX_SETS];
    int nsets;
    const char *size;   /* --size NAME */
} explore_args;

enum { OPT_THREADS = 1, OPT_MAX_ITER, OPT_TIME, OPT_PATHS, OPT_MODELS, OPT_FAMILIES, OPT_QUERY_MS, OPT_NO_VALIDATE, OPT_NO_CACHE,
       OPT_RESULTS, OPT_JSON, OPT_QUIET, OPT_SEED, OPT_SET, OPT_SOLVER_MB, OPT_ORDER, OPT_SIZE,
       OPT_SATURATION };

/* -1 a bad value (err), 0 not a value option, 1 consumed. */
static int value_option(explore_args *a, int c, const char *arg, wh_error *err)
{
    long v;
    switch (c) {
    case OPT_THREADS:
        if (!cli_parse_long("--threads", arg, 1, 1024, &v, err)) return -1;
        a->eo.threads = (int)v;
        return 1;
    case OPT_MAX_ITER:
        if (!cli_parse_long("--max-iter", arg, 1, 1000000, &v, err)) return -1;
        a->eo.max_iter = (int)v;
        return 1;
    case OPT_TIME: return cli_parse_double("--time", arg, 0.001, 1e7, &a->eo.time_s, err) ? 1 : -1;
    case OPT_SATURATION:
        return cli_parse_double("--saturation", arg, 0, 1e7, &a->eo.saturation_s, err) ? 1 : -1;
    case OPT_PATHS:
        if (!cli_parse_long("--paths", arg, 1, 1000000000L, &v, err)) return -1;
        a->eo.path_budget = (int)v;
        return 1;
    case OPT_MODELS:
        if (!cli_parse_long("--models", arg, 1, 1000, &v, err)) return -1;
        a->eo.models = (int)v;
        return 1;
    case OPT_QUERY_MS:
        if (!cli_parse_long("--query-ms", arg, 1, 100000000L, &v, err)) return -1;
        a->eo.query_ms = (unsigned)v;
        return 1;
    case OPT_SOLVER_MB:
        if (!cli_parse_long("--solver-mb", arg, 1, 1L << 24, &v, err)) return -1;
        a->eo.solver_mb = (unsigned)v;
        return 1;
    case OPT_ORDER:
        if (strcmp(arg, "random") && strcmp(arg, "time")) {
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--order: expected random or time, not '%s'", arg);
            return -1;
        }
        a->eo.order = strcmp(arg, "time") ? SX_ORDER_RANDOM : SX_ORDER_TIME;
        return 1;
    case OPT_FAMILIES:
        if (!cli_parse_long("--families", arg, 0, 1000, &v, err)) return -1;
        a->eo.families = (int)v;
        return 1;
    case OPT_SET:
        if (a->nsets == CLI_MAX_SETS) {
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--set: at most %d of them", CLI_MAX_SETS);
            return -1;
        }
        a->sets[a->nsets++] = arg;
        return 1;
    case OPT_SIZE: a->size = arg; return 1;
    default: return 0;
    }
}

/* getopt_long said '?': an unknown option or one without its value. */
static void bad_option(const struct option *longopts, const char *arg)
{
    if (optopt == 'o') {
        fprintf(stderr, "warphunt explore: -o needs a value\n");
        return;
    }
    for (const struct option *o = longopts; optopt && o->name; o++)
        if (o->val == optopt) {
            fprintf(stderr, "warphunt explore: --%s %s\n", o->name,
                    o->has_arg == no_argument ? "takes no value" : "needs a value");
            return;
        }
    if (optopt > ' ' && optopt < 127)
        fprintf(stderr, "warphunt explore: unknown option '-%c'\n", optopt);
    else
        fprintf(stderr, "warphunt explore: unknown option '%s'\n", arg);
}

/* 0 ok, 1 user error (usage follows), 2 a bad value (reported), -1 --help. */
static int parse_args(int argc, char **argv, explore_args *a)
{
    static const struct option longopts[] = {
        { "threads", required_argument, NULL, OPT_THREADS },
        { "max-iter", required_argument, NULL, OPT_MAX_ITER },
        { "time", required_argument, NULL, OPT_TIME },
        { "paths", required_argument, NULL, OPT_PATHS },
        { "models", required_argument, NULL, OPT_MODELS },
        { "families", required_argument, NULL, OPT_FAMILIES },
        { "query-ms", required_argument, NULL, OPT_QUERY_MS },
        { "solver-mb", required_argument, NULL, OPT_SOLVER_MB },
        { "order", required_argument, NULL, OPT_ORDER },
        { "saturation", required_argument, NULL, OPT_SATURATION },
        { "no-validate", no_argument, NULL, OPT_NO_VALIDATE },
        { "no-cache", no_argument, NULL, OPT_NO_CACHE },
        { "results", required_argument, NULL, OPT_RESULTS },
        { "json", no_argument, NULL, OPT_JSON },
        { "quiet", no_argument, NULL, OPT_QUIET },
        { "seed", optional_argument, NULL, OPT_SEED }, /* gone; says why */
        { "set", required_argument, NULL, OPT_SET },
        { "size", required_argument, NULL, OPT_SIZE },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    memset(a, 0, sizeof *a);
    gen_explore_options_default(&a->eo);
    a->eo.saturation_s = GEN_SATURATION_S;   /* the command line's default (explore.h) */
    a->results = "results";
    optind = 1;
    int saved = opterr, c;
    opterr = 0;
    int rc = 0;
    wh_error err;
    wh_error_clear(&err);
    while (rc == 0 && (c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        int v = value_option(a, c, optarg, &err);
        if (v < 0) {
            cli_report(&err);
            opterr = saved;
            return 2; /* the message says it all; no usage */
        }
        if (v != 0)
            continue;
        switch (c) {
        case OPT_NO_VALIDATE: a->eo.validate = false; break;
        case OPT_NO_CACHE: a->eo.reuse = false; break;
        case OPT_RESULTS: a->results = optarg; break;
        case 'o': a->out = optarg; break;
        case OPT_JSON: a->json = true; break;
        case OPT_QUIET: a->quiet = true; break;
        case 'h': rc = -1; break;
        case OPT_SEED:
            fprintf(stderr, "warphunt explore: --seed is gone: the exploration's seed is fixed, as in hunt, "
                            "so that both share cached explorations\n");
            opterr = saved;
            return 2;
        default:
            bad_option(longopts, argv[optind - 1]);
            rc = 1;
        }
    }
    opterr = saved;
    if (rc)
        return rc;
    if (optind != argc - 1) {
        fprintf(stderr, "warphunt explore: expected one SPEC argument\n");
        return 1;
    }
    a->spec = argv[optind];
    a->eo.quiet = a->quiet;
    return 0;
}

/* ---- output ----------------------------------------------------------------- */

static int total_atoms(const gen_result *r)
{
    return r->atoms_valid + r->atoms_invalid;
}

static int count_kind(const gen_result *r, int kind)
{
    int n = 0;
    for (int i = 0; i < r->npaths; i++)
        n += r->paths[i].kind == kind;
    return n;
}

/* The entry of r->xs that was kept (the last one of the kept X). */
static int kept_xstat(const gen_result *r)
{
    for (int i = r->nxs - 1; i >= 0; i--)
        if (r->xs[i].x == r->x)
            return i;
    return -1;
}

static const char *path_kind_name(int kind)
{
    return kind == SX_PATH_CUT ? "cut" : kind == SX_PATH_ERROR ? "error" : "done";
}

static long doc_int(json_t *doc, const char *key)
{
    return (long)json_integer_value(json_object_get(doc, key));
}

/* `doc` is the paths.json of the result (names, issues, counts of the kept X). */
static void print_summary(const gen_result *r, json_t *doc, const explore_args *a, const char *cache,
                          const char *dir)
{
    fprintf(stderr, "explore %s (entry %s)\n", r->spec->name, json_string_value(json_object_get(doc, "entry")));
    fprintf(stderr, "    X   paths    done    cut  error  coverage     legs        time\n");
    int kept = kept_xstat(r);
    for (int i = 0; i < r->nxs; i++) {
        const gen_xstat *x = &r->xs[i];
        char legs[32], why[64];
        snprintf(legs, sizeof legs, "%d/%d", x->legs_covered, x->legs_total);
        if (x->saturated)
            snprintf(why, sizeof why, "  (saturated: nothing new after %.2fs)", x->last_gain_s);
        else
            snprintf(why, sizeof why, "%s",
                     x->path_cap ? "  (path budget spent)" : x->budget_hit ? "  (time budget spent)" : "");
        fprintf(stderr, "  %3d  %6d  %6d  %5d  %5d  %7.2f%%  %-9s %7.2fs%s%s\n", x->x, x->paths, x->done, x->cut,
                x->error, x->legs_total ? 100.0 * x->legs_covered / x->legs_total : 100.0, legs, x->time_s, why,
                i == kept ? "  (kept)" : "");
    }
    fprintf(stderr, "  kept X = %d: %ld solver calls (%ld given up; %ld cut by the watchdog, %ld of those for Z3's "
            "memory), %ld forks (%ld of them on a sampled witness), %ld accesses at symbolic offsets pinned and %ld "
            "made word cases, %ld paths followed their model after a give-up, %ld states left pending\n", r->x,
            doc_int(doc, "solver_calls"), doc_int(doc, "solver_giveups"), doc_int(doc, "solver_interrupted"),
            doc_int(doc, "solver_memouts"), doc_int(doc, "forks"), doc_int(doc, "witness_forks"),
            doc_int(doc, "accesses_pinned"), doc_int(doc, "accesses_word_cases"), doc_int(doc, "paths_concolic"), doc_int(doc, "pending"));
    json_t *legs = json_object_get(doc, "legs"), *leg;
    size_t k;
    int shown = 0;
    json_array_foreach(legs, k, leg) {
        if (json_is_true(json_object_get(leg, "covered")))
            continue;
        if (shown++ == 0)
            fprintf(stderr, "  uncovered legs:\n");
        const char *src = json_string_value(json_object_get(leg, "source"));
        if (shown <= 20)
            fprintf(stderr, "    %s line %ld %s -> line %ld%s%s%s\n",
                    json_string_value(json_object_get(leg, "function")), doc_int(leg, "line"),
                    json_string_value(json_object_get(leg, "leg")), doc_int(leg, "target_line"),
                    src ? " (CUDA source " : "", src ? src : "", src ? ")" : "");
    }
    if (shown > 20)
        fprintf(stderr, "    ... and %d more\n", shown - 20);
    json_t *issue;
    json_array_foreach(json_object_get(doc, "issues"), k, issue) {
        const char *model = json_string_value(json_object_get(issue, "model"));
        const char *src = json_string_value(json_object_get(issue, "source"));
        fprintf(stderr, "  issue: line %ld%s%s%s: %s%s%s\n", doc_int(issue, "line"), src ? " (CUDA source " : "",
                src ? src : "", src ? ")" : "", json_string_value(json_object_get(issue, "message")),
                model ? " e.g. " : "", model ? model : "");
    }
    if (r->npaths > 0)
        fprintf(stderr, "  path  kind   brdiv    instr  warp_instr  intervals  uf   atoms  valid\n");
    for (int i = 0; i < r->npaths && i < 20; i++) {
        const gen_path *p = &r->paths[i];
        fprintf(stderr, "  %4d  %-5s  %5.1f  %7llu  %10llu  %9d  %-3s  %5d  %5d\n", i, path_kind_name(p->kind),
                p->brdiv, (unsigned long long)p->instr, (unsigned long long)p->warp_instr, p->intervals,
                p->uf ? "yes" : "no", p->natoms, r->validated ? p->nvalid : 0);
    }
    if (r->npaths > 20)
        fprintf(stderr, "  ... and %d more paths\n", r->npaths - 20);
    if (r->validated)
        fprintf(stderr, "  atoms: %d (up to %d per path) replayed on the sim: %d follow their path, %d do not\n",
                total_atoms(r), a->eo.models, r->atoms_valid, r->atoms_invalid);
    else
        fprintf(stderr, "  atoms: %d (up to %d per path), not validated%s\n", total_atoms(r), a->eo.models,
                a->eo.validate ? " (the sim backend cannot run this kernel)" : " (--no-validate)");
    if (r->atoms_s > 0 && r->time_s > 0)
        fprintf(stderr, "  atoms made and replayed in %.2f s, %.0f %% of the stage's %.2f s\n", r->atoms_s,
                100 * r->atoms_s / r->time_s, r->time_s);
    fprintf(stderr, "  %s %s\n", r->from_cache ? "reused the cached exploration" : "cached in", cache);
    fprintf(stderr, "wrote %s/paths.json\n", dir);
}

static json_t *per_x_json(const gen_result *r)
{
    json_t *a = json_array();
    for (int i = 0; a && i < r->nxs; i++) {
        const gen_xstat *x = &r->xs[i];
        json_t *o = json_object();
        json_object_set_new(o, "threads", json_integer(x->x));
        json_object_set_new(o, "paths", json_integer(x->paths));
        json_object_set_new(o, "coverage",
                            json_real(x->legs_total ? 100.0 * x->legs_covered / x->legs_total : 100.0));
        json_object_set_new(o, "legs_covered", json_integer(x->legs_covered));
        json_object_set_new(o, "legs_total", json_integer(x->legs_total));
        json_object_set_new(o, "done", json_integer(x->done));
        json_object_set_new(o, "cut", json_integer(x->cut));
        json_object_set_new(o, "errors", json_integer(x->error));
        json_object_set_new(o, "time_s", json_real(x->time_s));
        json_object_set_new(o, "budget_hit", json_boolean(x->budget_hit));
        json_object_set_new(o, "path_budget_hit", json_boolean(x->path_cap));
        json_object_set_new(o, "saturated", json_boolean(x->saturated));
        json_object_set_new(o, "last_gain_s", json_real(x->last_gain_s));
        json_array_append_new(a, o);
    }
    return a;
}

static void print_json(const gen_result *r, json_t *doc, const explore_args *a, const char *cache, double t,
                       const char *dir)
{
    json_t *o = json_object();
    json_object_set_new(o, "kernel", json_string(r->spec->name));
    json_object_set_new(o, "threads", json_integer(r->x));
    json_object_set_new(o, "paths", json_integer(r->npaths));
    json_object_set_new(o, "coverage", json_real(gen_result_coverage(r)));
    json_object_set_new(o, "legs_total", json_integer(r->legs_total));
    json_object_set_new(o, "legs_covered", json_integer(r->legs_covered));
    json_object_set_new(o, "models", json_integer(a->eo.models));
    json_object_set_new(o, "families", json_pack("{s:i, s:i, s:i}", "count", r->families, "atoms", r->family_atoms,
                                                 "valid", r->family_valid));
    json_object_set_new(o, "atoms", json_integer(total_atoms(r)));
    json_object_set_new(o, "atoms_valid", json_integer(r->validated ? r->atoms_valid : 0));
    json_object_set_new(o, "atoms_invalid", json_integer(r->validated ? r->atoms_invalid : 0));
    json_object_set_new(o, "atoms_unvalidated", json_integer(r->validated ? 0 : total_atoms(r)));
    json_object_set_new(o, "validation", json_string(r->validated ? "sim" : "none"));
    json_object_set_new(o, "cut", json_integer(count_kind(r, SX_PATH_CUT)));
    json_object_set_new(o, "errors", json_integer(count_kind(r, SX_PATH_ERROR)));
    json_object_set_new(o, "pending", json_integer(doc_int(doc, "pending")));
    json_object_set_new(o, "coverage_per_x", per_x_json(r));
    json_object_set_new(o, "from_cache", json_boolean(r->from_cache));
    json_object_set_new(o, "cache", json_string(cache));
    json_object_set_new(o, "time_s", json_real(t));
    json_object_set_new(o, "dir", json_string(dir));
    char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10));
    if (s)
        printf("%s\n", s);
    fflush(stdout);
    free(s);
    json_decref(o);
}

/* ---- the command ---------------------------------------------------------------- */

int cmd_explore(int argc, char **argv)
{
    explore_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc < 0) {
        usage(stdout);
        return 0;
    }
    if (rc > 0)
        return rc == 1 ? cli_usage_hint("explore") : 1;
    wh_error err;
    wh_error_clear(&err);
    double t0 = wh_clock_s();
    wh_spec *spec = cli_load_spec(a.spec, &err);
    if (spec && ((a.size && !wh_spec_apply_size(spec, a.size, &err)) || !cli_apply_sets(spec, a.sets, a.nsets, &err))) {
        wh_spec_free(spec);
        spec = NULL;
    }
    if (!spec)
        return cli_report(&err);
    char cache[1100], entry[1200], dir[1100], path[1200];
    snprintf(cache, sizeof cache, "%s/%s/.cache", a.results, spec->name);
    a.eo.cache_dir = cache;
    a.eo.keep_doc = true;
    json_t *doc = NULL;
    gen_result *r = gen_explore_spec(spec, &a.eo, &err);
    if (!r)
        goto fail;
    if (a.out)
        snprintf(dir, sizeof dir, "%s", a.out);
    else
        snprintf(dir, sizeof dir, "%s/%s/explore-%d", a.results, spec->name, r->x);
    snprintf(path, sizeof path, "%s/paths.json", dir);
    if (!wh_make_dirs(dir, &err) || !gen_result_write_paths_with_values(r, path, &err))
        goto fail;
    json_error_t jerr;
    if (r->doc) {
        doc = json_incref(r->doc);
    } else if (!(doc = json_load_file(r->paths_json, 0, &jerr))) {
        wh_error_set(&err, WH_ERR_INTERNAL, r->paths_json, jerr.line > 0 ? jerr.line : 0, 0, "%s", jerr.text);
        goto fail;
    }
    snprintf(entry, sizeof entry, "%s/%s", cache, r->cache_key);
    if (!a.quiet)
        print_summary(r, doc, &a, entry, dir);
    if (a.json)
        print_json(r, doc, &a, entry, wh_clock_s() - t0, dir);
    json_decref(doc);
    gen_result_free(r);
    wh_spec_free(spec);
    return 0;
fail:
    rc = cli_report(&err);
    json_decref(doc);
    gen_result_free(r);
    wh_spec_free(spec);
    return rc;
}
