/*
 * bench_symexec.c — the symbolic stage on every bundled kernel, next to the
 * paper's GKLEE figures (Horga et al., Table III).
 *
 * For each kernels/NAME.json and kernels/corpus/NAME.json (the corpus of
 * kernels users bring), and the stress specs of the test corpus (a CAS
 * hash, tables in module variables, CSR graphs, loops whose trip count is
 * an input or a hash, 1500 shared atomics a thread, mbarriers): deepen X
 * over the spec's symbolic.threads
 * until every branch leg is covered or the kernel's budget
 * (BENCH_SYMEXEC_BUDGET seconds, default 20) is spent, and print the
 * largest X explored (even one cut short by the budget: this measures the
 * executor, where `warphunt explore` keeps the largest X that finished)
 * with its paths, coverage, when that X reached its final coverage, solver
 * time, give-ups and watchdog cuts (all X) and total time (within the
 * budget: the watchdog bounds every solver call).  The executor alone: no atoms, no cache.
 * Run from the repository root (make bench).  BENCH_SYMEXEC_ONLY=NAME[,NAME]
 * benches only those kernels.
 */
#include "core/clock.h"
#include "core/spec.h"
#include "ptx/ptx.h"
#include "symexec/symexec.h"

#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *kernel;
    const char *gklee;   /* Table III: threads, coverage, time */
} paper_row;

static const paper_row paper[] = {
    { "artificial", "2 thr, 100%, 1 s" },
    { "lbm", "4 thr, 80%, 10 s" },
    { "bfs1", "2 thr, 83.33%, 1 s" },
    { "nsichneu", "2 thr, 70.24%, 341 s" },
};

static const char *gklee_of(const char *name)
{
    for (size_t i = 0; i < sizeof paper / sizeof paper[0]; i++)
        if (!strcmp(paper[i].kernel, name))
            return paper[i].gklee;
    return "-";
}

static void fail(const char *what, const wh_error *err)
{
    char buf[2048];
    wh_error_format(err, buf, sizeof buf);
    printf("| %s | error: %s |\n", what, buf);
}

static void bench_kernel(const char *path, double budget)
{
    wh_error err;
    wh_error_clear(&err);
    wh_spec *spec = wh_spec_load(path, &err);
    if (!spec) {
        fail(path, &err);
        return;
    }
    char ptx[1024];
    ptx_module *m = NULL;
    if (!wh_spec_ptx_path(spec, ptx, sizeof ptx, &err) || !(m = ptx_parse_file(ptx, &err))) {
        fail(spec->name, &err);
        wh_spec_free(spec);
        return;
    }
    double t0 = wh_clock_s(), solver = 0;
    long giveups = 0, interrupted = 0;
    sx_result *keep = NULL;
    char per_x[256] = "";
    size_t len = 0;
    for (int i = 0; i < spec->nsym_threads; i++) {
        double left = budget - (wh_clock_s() - t0);
        if (left <= 0 && keep)
            break;
        sx_options o;
        sx_options_default(&o);
        o.threads = spec->sym_threads[i];
        o.time_budget_s = left > 0.01 ? left : 0.01;
        sx_result *r = sx_explore(spec, m, &o, &err);
        if (!r) {
            fail(spec->name, &err);
            break;
        }
        solver += r->solver_s;
        giveups += r->giveups;
        interrupted += r->interrupted;
        len += (size_t)snprintf(per_x + len, sizeof per_x - len, "%sX=%d %.1f%%", len ? ", " : "",
                                r->threads, sx_result_coverage(r));
        bool covered_all = r->nlegs_covered == r->nlegs;
        /* the row is the X that covers the most, as the stage keeps it (a
         * larger X the budget ended early does not replace a better one) */
        if (!keep || sx_result_coverage(r) >= sx_result_coverage(keep)) {
            sx_result_free(keep);
            keep = r;
        } else {
            sx_result_free(r);
        }
        if (covered_all)
            break;
    }
    double total = wh_clock_s() - t0;
    if (keep) {
        char paths[64], cov[64];
        snprintf(paths, sizeof paths, "%d (%d/%d/%d)", keep->npaths, keep->ndone, keep->ncut, keep->nerror);
        snprintf(cov, sizeof cov, "%.2f%% (%d/%d)", sx_result_coverage(keep), keep->nlegs_covered,
                 keep->nlegs);
        char gu[32];
        snprintf(gu, sizeof gu, "%ld (%ld)", giveups, interrupted);
        printf("| %-13s | %2d | %-20s | %-17s | %9.2f | %8.2f | %-13s | %7.2f | %-20s | %s |\n", spec->name,
               keep->threads, paths, cov, keep->coverage_time_s, solver, gu, total, gklee_of(spec->name), per_x);
        fflush(stdout);
    }
    sx_result_free(keep);
    ptx_module_free(m);
    wh_spec_free(spec);
}

/* The symbolic stage's stress kernels (issue #16), beside the corpus. */
static const char *const stress[] = {
    "tests/specs/module_inputs.json", "tests/specs/csr_bfs.json", "tests/specs/csr_sssp.json",
    "tests/specs/scalar_trip.json", "tests/specs/mbarrier_publish.json", "tests/specs/sim_collatz.json",
    "tests/specs/sim_digits.json", "tests/specs/sim_histogram_shared.json", "tests/specs/sim_hash_trip.json",
};

int main(void)
{
    double budget = 20.0;
    const char *b = getenv("BENCH_SYMEXEC_BUDGET");
    if (b && atof(b) > 0)
        budget = atof(b);
    glob_t g;
    if (glob("kernels/*.json", 0, NULL, &g) != 0 || glob("kernels/corpus/*.json", GLOB_APPEND, NULL, &g) != 0) {
        fprintf(stderr, "bench_symexec: no kernels/NAME.json here (run from the repository root)\n");
        return 1;
    }
    for (size_t i = 0; i < sizeof stress / sizeof stress[0]; i++)
        glob(stress[i], GLOB_APPEND, NULL, &g);   /* a literal path: kept when it exists */
    printf("symbolic stage, bundled, corpus and stress kernels (budget %.0f s per kernel, deepening X until 100%% "
           "coverage)\n\n",
           budget);
    printf("| kernel        |  X | paths (done/cut/err) | coverage (legs)   | cov. at s | solver s "
           "| give-ups (cut) | total s | GKLEE (paper)        | coverage per X |\n");
    printf("|---------------|----|----------------------|-------------------|-----------|----------|"
           "----------------|---------|----------------------|----------------|\n");
    const char *only = getenv("BENCH_SYMEXEC_ONLY");
    for (size_t i = 0; i < g.gl_pathc; i++) {
        if (only && *only) {
            const char *base = strrchr(g.gl_pathv[i], '/');
            base = base ? base + 1 : g.gl_pathv[i];
            size_t n = strcspn(base, ".");
            bool hit = false;
            for (const char *p = only; *p;) {
                size_t k = strcspn(p, ",");
                if (k == n && !strncmp(p, base, n))
                    hit = true;
                p += k;
                if (*p == ',')
                    p++;
            }
            if (!hit)
                continue;
        }
        bench_kernel(g.gl_pathv[i], budget);
    }
    globfree(&g);
    return 0;
}
