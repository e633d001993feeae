/*
 * bench_ga.c — the search's own cost: host time per generation outside the
 * measurements, against the time spent measuring (sim backend).
 *
 * The paper reports kernel execution at 10-33 % of its analysis time; here
 * the figure is the share of a hunt spent inside the harness.
 */
#include "ga/hunt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bench_one(const char *spec_path, ga_strategy strat, long evals)
{
    wh_error err;
    wh_spec *spec = wh_spec_load(spec_path, &err);
    if (!spec) {
        fprintf(stderr, "bench_ga: %s: %s\n", spec_path, err.msg);
        exit(1);
    }
    char base[] = "/tmp/wh_bench_ga_XXXXXX";
    if (!mkdtemp(base)) exit(1);
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
    hunt_summary s;
    if (!hunt_run(spec, &o, &s, &err)) {
        fprintf(stderr, "bench_ga: %s: %s\n", spec_path, err.msg);
        exit(1);
    }
    double host = s.time_s - s.measure_s;
    int gens = s.generations + 1;
    printf("%-12s %-10s %6ld %5d %9.3f %9.3f %12.3f %7.1f%%\n", spec->name, ga_strategy_name(strat), s.evals, gens,
           s.time_s, s.measure_s, 1e3 * host / gens, s.time_s > 0 ? 100.0 * s.measure_s / s.time_s : 0.0);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0) fprintf(stderr, "bench_ga: could not remove %s\n", base);
    wh_spec_free(spec);
}

int main(void)
{
    printf("GA overhead on the sim backend (search time outside the harness, per generation)\n");
    printf("%-12s %-10s %6s %5s %9s %9s %12s %8s\n", "kernel", "strategy", "evals", "gens", "total_s", "measure_s",
           "host_ms/gen", "measure");
    static const char *const specs[] = { "kernels/artificial.json", "tests/specs/hunt_paths_small.json", "kernels/bfs1.json" };
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 3; s++) bench_one(specs[k], (ga_strategy)s, 300);
    return 0;
}
