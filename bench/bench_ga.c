/*
 * bench_ga.c — the search's own cost and its throughput on the sim: host
 * time per generation outside the measurements, the share of the hunt spent
 * measuring, and evaluations per second with one evaluation thread and with
 * one per core (`--jobs`), whose runs must be the same (best-of-two runs
 * each).
 *
 * The paper reports kernel execution at 10-33 % of its analysis time; here
 * the figure is the share of a hunt's wall time inside the harness.
 */
#include "ga/hunt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static hunt_summary run_one(const wh_spec *spec, ga_strategy strat, long evals, int jobs, const char *base)
{
    wh_error err;
    hunt_options o;
    hunt_options_default(&o);
    o.strategy = strat;
    o.ga.max_evals = evals;
    o.ga.patience = 0;
    o.backend = HARNESS_SIM;
    o.harness.quiet = true;
    o.quiet = true;
    o.final_reps = 1;
    o.results_base = base;
    o.jobs = jobs;
    hunt_summary s;
    if (!hunt_run(spec, &o, &s, &err)) {
        fprintf(stderr, "bench_ga: %s: %s\n", spec->path, err.msg);
        exit(1);
    }
    return s;
}

static void bench_one(const char *spec_path, ga_strategy strat, long evals, int cores)
{
    wh_error err;
    wh_spec *spec = wh_spec_load(spec_path, &err);
    if (!spec) {
        fprintf(stderr, "bench_ga: %s: %s\n", spec_path, err.msg);
        exit(1);
    }
    char base[] = "/tmp/wh_bench_ga_XXXXXX";
    if (!mkdtemp(base)) exit(1);
    /* the same base: gdivan's later runs read the symbolic stage's cache.
     * Each count runs twice, alternating, and keeps its faster run: the
     * machine's noise (other processes, clocks) then weighs on both alike. */
    hunt_summary one = run_one(spec, strat, evals, 1, base);
    hunt_summary all = run_one(spec, strat, evals, cores, base);
    hunt_summary one2 = run_one(spec, strat, evals, 1, base);
    hunt_summary all2 = run_one(spec, strat, evals, cores, base);
    if (one2.time_s < one.time_s) one = one2;
    if (all2.time_s < all.time_s) all = all2;
    int gens = one.generations + 1;
    double host = one.time_s - one.measure_s;
    double rate1 = one.evals / one.time_s, rate = all.evals / all.time_s;
    printf("%-12s %-10s %6ld %5d %12.3f %7.1f%% %9.0f %9.0f %3d %6.2fx %s\n", spec->name, ga_strategy_name(strat),
           one.evals, gens, 1e3 * host / gens, one.time_s > 0 ? 100.0 * one.measure_s / one.time_s : 0.0, rate1,
           rate, all.jobs, rate / rate1, one.best == all.best && one.evals == all.evals ? "same" : "DIFFERENT");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0) fprintf(stderr, "bench_ga: could not remove %s\n", base);
    wh_spec_free(spec);
}

int main(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    int cores = n > 0 ? (int)n : 1;
    printf("GA on the sim backend: host time per generation outside the harness and the share measuring\n"
           "(one evaluation thread), then evaluations per second with 1 thread and with %d (--jobs),\n"
           "and whether the two runs found the same best in the same evaluations\n", cores);
    printf("%-12s %-10s %6s %5s %12s %8s %9s %9s %3s %7s %s\n", "kernel", "strategy", "evals", "gens", "host_ms/gen",
           "measure", "evals/s1", "evals/sN", "N", "speedup", "runs");
    static const char *const specs[] = { "kernels/artificial.json", "tests/specs/hunt_paths_small.json",
                                         "kernels/bfs1.json", "kernels/corpus/spmv_scalar.json" };
    for (int k = 0; k < 4; k++)
        for (int s = 0; s < 3; s++) bench_one(specs[k], (ga_strategy)s, 300, cores);
    return 0;
}
