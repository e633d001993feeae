/*
 * cmd_explore.c — `warphunt explore SPEC`: the symbolic stage alone.
 *
 * Runs the symbolic executor for X threads, deepening X over the spec's
 * symbolic.threads sequence (or one --threads X) until every branch leg is
 * covered or the time budget is spent, keeps the paths of the largest X
 * explored, solves one atom per path and writes DIR/paths.json.
 */
#include "cli/cli.h"
#include "core/results.h"
#include "harness/harness.h"
#include "core/spec.h"
#include "ptx/ptx.h"
#include "symexec/symexec.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_TIME_S 60.0

static void usage(FILE *out)
{
    fprintf(out,
        "usage: warphunt explore SPEC [--threads X] [--max-iter N] [--time S] [--paths N]\n"
        "                        [--seed S] [-o DIR] [--json] [--quiet]\n"
        "\n"
        "Symbolic stage only: run the kernel of SPEC symbolically for one block of X\n"
        "threads (inputs symbolic, everything else concrete), collect its paths with\n"
        "their formulas and metrics, and write DIR/paths.json.\n"
        "\n"
        "One atom (a model of the path's formula) is solved per path and replayed on\n"
        "the sim backend with the same X threads: it is valid when every thread takes\n"
        "the path's branch decisions (a prefix of them for a cut path; a fault for an\n"
        "error path).\n"
        "\n"
        "X deepens over the spec's symbolic.threads (default 2, 3, 4) until every\n"
        "conditional branch leg is covered or the time budget is spent; the paths of\n"
        "the largest X explored are kept, with the coverage of every X.\n"
        "\n"
        "options:\n"
        "  --threads X    explore for X threads only\n"
        "  --max-iter N   cut a thread's loop after N iterations on a symbolic branch\n"
        "                 (default: the spec's symbolic.max_iter, else %d); cut paths\n"
        "                 are kept and counted\n"
        "  --time S       time budget in seconds for the whole deepening (default %g)\n"
        "  --paths N      stop each X after N paths (default: no limit)\n"
        "  --seed S       seed of the search order's tie-breaks (default 1)\n"
        "  -o DIR         output directory (default results/<kernel>/explore-<X>)\n"
        "  --json         print a summary as JSON on stdout:\n"
        "                 {\"kernel\", \"threads\", \"paths\", \"coverage\", \"legs_total\",\n"
        "                  \"legs_covered\", \"atoms_valid\", \"atoms_invalid\",\n"
        "                  \"atoms_unvalidated\", \"validation\", \"cut\", \"errors\",\n"
        "                  \"pending\",\n"
        "                  \"coverage_per_x\", \"time_s\", \"dir\"}\n"
        "  --quiet        no human summary on stderr\n"
        "  -h, --help     show this help\n"
        "\n"
        "Exit status: 0 success, 1 user error (spec, PTX, unsupported instruction:\n"
        "the message names the opcode and PTX line), 2 internal error.\n",
        SX_DEFAULT_MAX_ITER, DEFAULT_TIME_S);
}

typedef struct {
    int threads;
    int max_iter;
    double time_s;
    int paths;
    uint64_t seed;
    const char *out;
    bool json, quiet;
    const char *spec;
} explore_args;

typedef struct {
    int threads, paths, done, cut, error, pending, covered, total;
    double coverage, time_s, solver_s;
    bool budget_hit;
} x_summary;

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool parse_number(const char *opt, const char *s, double lo, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || v < lo) {
        fprintf(stderr, "warphunt explore: %s expects a number >= %g (got '%s')\n", opt, lo, s);
        return false;
    }
    *out = v;
    return true;
}

/* 0 ok, 1 user error, -1 --help. */
static int parse_args(int argc, char **argv, explore_args *a)
{
    static const struct option longopts[] = {
        { "threads", required_argument, NULL, 'x' },
        { "max-iter", required_argument, NULL, 'm' },
        { "time", required_argument, NULL, 't' },
        { "paths", required_argument, NULL, 'p' },
        { "seed", required_argument, NULL, 's' },
        { "json", no_argument, NULL, 'j' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    memset(a, 0, sizeof *a);
    a->time_s = DEFAULT_TIME_S;
    a->seed = 1;
    optind = 1;
    int saved = opterr, c;
    opterr = 0;
    double v;
    int rc = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'x':
            if (!parse_number("--threads", optarg, 1, &v) || v > 1024 || v != (int)v)
                rc = 1;
            a->threads = (int)v;
            break;
        case 'm':
            if (!parse_number("--max-iter", optarg, 1, &v) || v != (int)v)
                rc = 1;
            a->max_iter = (int)v;
            break;
        case 't':
            if (!parse_number("--time", optarg, 0.001, &v))
                rc = 1;
            a->time_s = v;
            break;
        case 'p':
            if (!parse_number("--paths", optarg, 1, &v) || v != (int)v)
                rc = 1;
            a->paths = (int)v;
            break;
        case 's':
            if (!parse_number("--seed", optarg, 0, &v))
                rc = 1;
            a->seed = (uint64_t)v;
            break;
        case 'o': a->out = optarg; break;
        case 'j': a->json = true; break;
        case 'q': a->quiet = true; break;
        case 'h': rc = -1; break;
        default:
            if (optopt)
                fprintf(stderr, "warphunt explore: unknown option '-%c'\n", optopt);
            else
                fprintf(stderr, "warphunt explore: unknown option '%s'\n", argv[optind - 1]);
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
    return 0;
}

/* ---- atoms and their validation on the sim ----------------------------------- */

typedef struct {
    int x;
    sx_branch **br;
    int *n, *cap;
    bool oom;
} replay_trace;

static void on_branch(void *ctx, uint64_t thread, int func, int block, bool taken)
{
    replay_trace *rt = ctx;
    if (thread >= (uint64_t)rt->x)
        return;
    int t = (int)thread;
    if (rt->n[t] == rt->cap[t]) {
        int cap = rt->cap[t] ? rt->cap[t] * 2 : 64;
        sx_branch *v = realloc(rt->br[t], (size_t)cap * sizeof *v);
        if (!v) {
            rt->oom = true;
            return;
        }
        rt->br[t] = v;
        rt->cap[t] = cap;
    }
    rt->br[t][rt->n[t]++] = (sx_branch){ func, block, taken };
}

static void trace_free(replay_trace *rt)
{
    for (int t = 0; rt->br && t < rt->x; t++)
        free(rt->br[t]);
    free(rt->br);
    free(rt->n);
    free(rt->cap);
}

typedef struct {
    int valid, invalid, unvalidated;
    char how[600];            /* "sim", or why there is no validation */
} atom_tally;

/* 1 follows its path, 0 does not, -1 could not tell. */
static int validate(harness *h, replay_trace *rt, const sx_result *r, const ptx_module *m, int i,
                    wh_image *img, wh_error *err)
{
    for (int t = 0; t < rt->x; t++)
        rt->n[t] = 0;
    rt->oom = false;
    harness_result res;
    if (!harness_measure(h, img, 1, &res, err))
        return -1;
    const sx_path *p = &r->paths[i];
    int v;
    if (rt->oom)
        v = -1;
    else if (p->kind == SX_PATH_ERROR)
        v = res.status == HARNESS_FAULT;
    else if (res.status == HARNESS_OK || (p->kind == SX_PATH_CUT && res.status == HARNESS_TIMEOUT))
        v = sx_path_follows(r, m, i, (const sx_branch *const *)rt->br, rt->n, NULL, 0);
    else
        v = 0;
    harness_result_free(&res);
    return v;
}

static harness *open_sim(const wh_spec *spec, replay_trace *rt, int x, atom_tally *at)
{
    rt->x = x;
    rt->br = calloc((size_t)x, sizeof *rt->br);
    rt->n = calloc((size_t)x, sizeof *rt->n);
    rt->cap = calloc((size_t)x, sizeof *rt->cap);
    if (!rt->br || !rt->n || !rt->cap) {
        snprintf(at->how, sizeof at->how, "not validated: out of memory");
        return NULL;
    }
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.step_limit = 50000000;
    o.on_branch = on_branch;
    o.branch_ctx = rt;
    wh_error err;
    wh_error_clear(&err);
    harness *h = harness_open(spec, HARNESS_SIM, &o, &err);
    if (!h)
        snprintf(at->how, sizeof at->how, "not validated: the sim backend cannot run it: %.500s", err.msg);
    else
        snprintf(at->how, sizeof at->how, "sim");
    return h;
}

static bool make_atoms(const wh_spec *spec, const ptx_module *m, const sx_result *r, sx_atom_info *ai,
                       atom_tally *at, wh_error *err)
{
    ai->n = r->npaths;
    ai->inputs = calloc((size_t)(r->npaths + 1), sizeof *ai->inputs);
    ai->valid = malloc((size_t)(r->npaths + 1) * sizeof *ai->valid);
    if (!ai->inputs || !ai->valid) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    wh_launch l = wh_launch_threads((unsigned)r->threads);
    wh_image *img = wh_image_new(spec, &l, err);
    if (!img)
        return false;
    replay_trace rt = { 0 };
    harness *h = open_sim(spec, &rt, r->threads, at);
    bool ok = true;
    for (int i = 0; i < r->npaths && ok; i++) {
        ai->valid[i] = -1;
        ok = sx_path_model(r, i, 0, img, err);
        if (!ok)
            break;
        ai->inputs[i] = wh_image_inputs_json(img);
        if (h) {
            wh_error verr;
            wh_error_clear(&verr);
            ai->valid[i] = validate(h, &rt, r, m, i, img, &verr);
        }
        if (ai->valid[i] == 1)
            at->valid++;
        else if (ai->valid[i] == 0)
            at->invalid++;
        else
            at->unvalidated++;
    }
    harness_close(h);
    trace_free(&rt);
    wh_image_free(img);
    return ok;
}

static void atoms_free(sx_atom_info *ai)
{
    for (int i = 0; ai->inputs && i < ai->n; i++)
        json_decref(ai->inputs[i]);
    free(ai->inputs);
    free(ai->valid);
}

/* ---- output ----------------------------------------------------------------- */

static void print_summary(const sx_result *r, const ptx_module *m, const x_summary *xs, int nx,
                          const atom_tally *at, const char *dir)
{
    fprintf(stderr, "explore %s (entry %s)\n", r->kernel, r->entry);
    fprintf(stderr, "    X   paths    done    cut  error  pending  coverage     legs        time    solver\n");
    for (int i = 0; i < nx; i++) {
        char legs[32];
        snprintf(legs, sizeof legs, "%d/%d", xs[i].covered, xs[i].total);
        fprintf(stderr, "  %3d  %6d  %6d  %5d  %5d  %7d  %7.2f%%  %-9s %7.2fs  %7.2fs%s\n", xs[i].threads,
                xs[i].paths, xs[i].done, xs[i].cut, xs[i].error, xs[i].pending, xs[i].coverage, legs,
                xs[i].time_s, xs[i].solver_s, xs[i].budget_hit ? "  (budget spent)" : "");
    }
    fprintf(stderr, "  kept X = %d: %ld solver calls, %ld forks\n", r->threads, r->solver_calls, r->forks);
    int shown = 0;
    for (int k = 0; k < r->nlegs; k++) {
        if (r->covered[k])
            continue;
        if (shown++ == 0)
            fprintf(stderr, "  uncovered legs:\n");
        if (shown <= 20)
            fprintf(stderr, "    %s line %d %s -> line %d\n",
                    m->funcs[r->legs[k].func].name, r->legs[k].line,
                    r->legs[k].taken ? "taken" : "fallthrough", r->legs[k].target_line);
    }
    if (shown > 20)
        fprintf(stderr, "    ... and %d more\n", shown - 20);
    for (int i = 0; i < r->nissues; i++)
        fprintf(stderr, "  issue: line %d: %s%s%s\n", r->issues[i].line, r->issues[i].message,
                r->issues[i].model ? " e.g. " : "", r->issues[i].model ? r->issues[i].model : "");
    if (r->npaths > 0)
        fprintf(stderr, "  path  kind   brdiv    instr  warp_instr  intervals  uf\n");
    for (int i = 0; i < r->npaths && i < 20; i++) {
        const sx_path *p = &r->paths[i];
        fprintf(stderr, "  %4d  %-5s  %5.1f  %7llu  %10llu  %9d  %s\n", i, sx_path_kind_name(p->kind),
                p->brdiv, (unsigned long long)p->instr, (unsigned long long)p->warp_instr,
                p->intervals, p->uf ? "yes" : "no");
    }
    if (r->npaths > 20)
        fprintf(stderr, "  ... and %d more paths\n", r->npaths - 20);
    if (!strcmp(at->how, "sim"))
        fprintf(stderr, "  atoms: %d replayed on the sim: %d follow their path, %d do not, %d undecided\n",
                r->npaths, at->valid, at->invalid, at->unvalidated);
    else
        fprintf(stderr, "  atoms: %d, %s\n", r->npaths, at->how);
    fprintf(stderr, "wrote %s/paths.json\n", dir);
}

static json_t *per_x_json(const x_summary *xs, int nx)
{
    json_t *a = json_array();
    for (int i = 0; a && i < nx; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "threads", json_integer(xs[i].threads));
        json_object_set_new(o, "paths", json_integer(xs[i].paths));
        json_object_set_new(o, "coverage", json_real(xs[i].coverage));
        json_object_set_new(o, "legs_covered", json_integer(xs[i].covered));
        json_object_set_new(o, "legs_total", json_integer(xs[i].total));
        json_object_set_new(o, "done", json_integer(xs[i].done));
        json_object_set_new(o, "cut", json_integer(xs[i].cut));
        json_object_set_new(o, "errors", json_integer(xs[i].error));
        json_object_set_new(o, "pending", json_integer(xs[i].pending));
        json_object_set_new(o, "time_s", json_real(xs[i].time_s));
        json_object_set_new(o, "solver_s", json_real(xs[i].solver_s));
        json_object_set_new(o, "budget_hit", json_boolean(xs[i].budget_hit));
        json_array_append_new(a, o);
    }
    return a;
}

static bool write_paths(const char *dir, const wh_spec *spec, const char *ptx, const sx_result *r,
                        const ptx_module *m, const sx_atom_info *ai, const atom_tally *at,
                        const x_summary *xs, int nx, wh_error *err)
{
    json_t *doc = sx_result_json(r, m, ai);
    if (!doc) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    json_object_set_new(doc, "spec", json_string(spec->path));
    json_object_set_new(doc, "ptx", json_string(ptx));
    json_object_set_new(doc, "coverage_per_x", per_x_json(xs, nx));
    json_object_set_new(doc, "validation", json_string(at->how));
    json_object_set_new(doc, "atoms_valid", json_integer(at->valid));
    json_object_set_new(doc, "atoms_invalid", json_integer(at->invalid));
    json_object_set_new(doc, "atoms_unvalidated", json_integer(at->unvalidated));
    char path[1200];
    snprintf(path, sizeof path, "%s/paths.json", dir);
    bool ok = wh_make_dirs(dir, err) && wh_write_json_atomic(path, doc, err);
    json_decref(doc);
    return ok;
}

static void print_json(const sx_result *r, const x_summary *xs, int nx, const atom_tally *at, double t,
                       const char *dir)
{
    json_t *o = json_object();
    json_object_set_new(o, "kernel", json_string(r->kernel));
    json_object_set_new(o, "threads", json_integer(r->threads));
    json_object_set_new(o, "paths", json_integer(r->npaths));
    json_object_set_new(o, "coverage", json_real(sx_result_coverage(r)));
    json_object_set_new(o, "legs_total", json_integer(r->nlegs));
    json_object_set_new(o, "legs_covered", json_integer(r->nlegs_covered));
    json_object_set_new(o, "atoms_valid", json_integer(at->valid));
    json_object_set_new(o, "atoms_invalid", json_integer(at->invalid));
    json_object_set_new(o, "atoms_unvalidated", json_integer(at->unvalidated));
    json_object_set_new(o, "validation", json_string(at->how));
    json_object_set_new(o, "cut", json_integer(r->ncut));
    json_object_set_new(o, "errors", json_integer(r->nerror));
    json_object_set_new(o, "pending", json_integer(r->npending));
    json_object_set_new(o, "coverage_per_x", per_x_json(xs, nx));
    json_object_set_new(o, "time_s", json_real(t));
    json_object_set_new(o, "dir", json_string(dir));
    char *s = json_dumps(o, JSON_COMPACT);
    if (s)
        printf("%s\n", s);
    free(s);
    json_decref(o);
}

/* ---- the command ---------------------------------------------------------------- */

static sx_result *deepen(const explore_args *a, const wh_spec *spec, const ptx_module *m,
                         x_summary *xs, int *nx, wh_error *err)
{
    int single[1] = { a->threads };
    const int *seq = a->threads ? single : spec->sym_threads;
    int nseq = a->threads ? 1 : spec->nsym_threads;
    static const int dflt[3] = { 2, 3, 4 };
    if (nseq <= 0) {
        seq = dflt;
        nseq = 3;
    }
    double t0 = wall_now();
    sx_result *keep = NULL;
    *nx = 0;
    for (int i = 0; i < nseq; i++) {
        double left = a->time_s - (wall_now() - t0);
        if (left <= 0 && keep)
            break;
        sx_options o;
        sx_options_default(&o);
        o.threads = seq[i];
        o.max_iter = a->max_iter;
        o.time_budget_s = left > 0.001 ? left : 0.001;
        o.path_budget = a->paths;
        o.seed = a->seed;
        if (!a->quiet)
            fprintf(stderr, "exploring %s with X = %d threads (%.1fs left)...\n", spec->name, seq[i],
                    o.time_budget_s);
        sx_result *r = sx_explore(spec, m, &o, err);
        if (!r) {
            sx_result_free(keep);
            return NULL;
        }
        xs[*nx] = (x_summary){ r->threads, r->npaths, r->ndone, r->ncut, r->nerror, r->npending,
                               r->nlegs_covered, r->nlegs, sx_result_coverage(r), r->time_s,
                               r->solver_s, r->budget_hit };
        (*nx)++;
        sx_result_free(keep);
        keep = r;
        if (r->nlegs_covered == r->nlegs)
            break;
    }
    return keep;
}

int cmd_explore(int argc, char **argv)
{
    explore_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc < 0) {
        usage(stdout);
        return 0;
    }
    if (rc > 0) {
        usage(stderr);
        return 1;
    }
    wh_error err;
    wh_error_clear(&err);
    double t0 = wall_now();
    wh_spec *spec = wh_spec_load(a.spec, &err);
    if (!spec)
        return cli_report(&err);
    char ptx[1024];
    ptx_module *m = NULL;
    sx_result *r = NULL;
    sx_atom_info ai = { 0 };
    atom_tally at = { 0 };
    x_summary xs[64];
    int nx = 0;
    char dir[1100];
    if (!wh_spec_ptx_path(spec, ptx, sizeof ptx, &err) || !(m = ptx_parse_file(ptx, &err)))
        goto fail;
    if (spec->nsym_threads > 64) {
        wh_error_set(&err, WH_ERR_USER, spec->path, 0, 0, "symbolic.threads lists more than 64 values");
        goto fail;
    }
    r = deepen(&a, spec, m, xs, &nx, &err);
    if (!r || !make_atoms(spec, m, r, &ai, &at, &err))
        goto fail;
    if (a.out)
        snprintf(dir, sizeof dir, "%s", a.out);
    else
        snprintf(dir, sizeof dir, "results/%s/explore-%d", spec->name, r->threads);
    if (!write_paths(dir, spec, ptx, r, m, &ai, &at, xs, nx, &err))
        goto fail;
    if (!a.quiet)
        print_summary(r, m, xs, nx, &at, dir);
    if (a.json)
        print_json(r, xs, nx, &at, wall_now() - t0, dir);
    atoms_free(&ai);
    sx_result_free(r);
    ptx_module_free(m);
    wh_spec_free(spec);
    return 0;
fail:
    rc = cli_report(&err);
    atoms_free(&ai);
    sx_result_free(r);
    ptx_module_free(m);
    wh_spec_free(spec);
    return rc;
}
