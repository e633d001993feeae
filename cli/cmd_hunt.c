/*
 * cmd_hunt.c — `warphunt hunt`: search for the input with the longest
 * kernel time.
 */
#include "cli/hunt_opts.h"
#include "ga/islands.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warphunt hunt SPEC [--strategy gdivan|random|random-ga] [--evals N] [--time S]\n"
            "                     [--seed S] [-o DIR] [options]\n"
            "       warphunt hunt --resume DIR [SPEC] [--evals N] [--time S] [--jobs N]\n"
            "\n"
            "Search for the input of SPEC's kernel that makes it run longest, and write\n"
            "results/<kernel>/<strategy>-s<seed>/: run.json, history.csv, paths.json (gdivan),\n"
            "best/ (replay it with `warphunt replay`), findings/ (inputs that faulted or hung),\n"
            "plot.svg, and a checkpoint every generation.  Ctrl-C stops the search, writes\n"
            "what was found and exits with status 130.\n"
            "\n"
            "strategies:\n"
            "  gdivan     first population from the symbolic stage's path atoms (default)\n"
            "  random     independent random inputs within the value domains\n"
            "  random-ga  the same GA from random inputs, with random-value genes\n"
            "\n"
            "  --strategy S      one of the above\n"
            "  --resume DIR      continue the run in DIR from its last checkpoint with its own\n"
            "                    options and budget (a new --evals or --time replaces the\n"
            "                    budget); a run stopped before its first checkpoint starts\n"
            "                    again; a directory another run is writing is refused;\n"
            "                    SPEC defaults to the one the run recorded; other search\n"
            "                    and measurement options given are ignored, and said so\n"
            "  -o, --out DIR     write the run here instead of results/<kernel>/...\n"
            "  --seed-inputs DIR your own inputs start the search (gdivan, random-ga), as a\n"
            "                    fuzzer's seed corpus: DIR is a saved input (`warphunt input\n"
            "                    import` makes one from CSV/.npy/expressions), a run directory\n"
            "                    (its best/), or a directory of them; repeatable.  Each is\n"
            "                    taken apart into genes and is one individual of the first\n"
            "                    population (so at most --population of them); run.json\n"
            "                    records them, and a seed the genes cannot state exactly (a\n"
            "                    shared input that is not a repetition of its first X-thread\n"
            "                    elements) is said, with the elements that differ\n"
            "  --no-explain      on the sim, a finished hunt explains its best input against a\n"
            "                    random one (`warphunt explain`: RUN/explain/explain.md and\n"
            "                    .json); this skips it\n"
            "  --drop-state      when the run finishes, remove its search state (checkpoint.bin,\n"
            "                    pool.bin; hundreds of MB on large launches): it can then not be\n"
            "                    resumed to extend it (default: kept)\n"
            "islands (under mpirun: `mpirun -np K warphunt hunt ...`, one island per process,\n"
            "each with its own seed and harness; the run's directory holds island-NN/ and\n"
            "island 0's merged run.json, best/ and plot.svg; an island that dies is reported\n"
            "and the others finish (run.json's islands_lost); without mpirun, one island):\n"
            "  --migrate-every G every G generations each island sends its best and takes\n"
            "                    others' in place of its worst (default 5; migrations.csv)\n"
            "  --migrants M      individuals sent each time (default 2)\n"
            "  --topology T      ring: to the next island (default); all: to every island, each\n"
            "                    taking the M best of the others' migrants\n"
            "  --sync-dir DIR    without mpirun: hunts started on their own share their best\n"
            "                    through files in DIR (each writes DIR/ID.mig every G\n"
            "                    generations and takes the M best of the others' new ones);\n"
            "                    asynchronous, so not repeatable for a seed\n"
            "  --sync-id ID      this hunt's name in DIR (default: host-pid)\n"
            HUNT_HELP("2000", "2, the paper's") CLI_RUN_HELP
            "  -h, --help        this text\n");
}

enum { OPT_STRATEGY = HOPT_FIRST_FREE, OPT_RESUME, OPT_DROP_STATE, OPT_SEED_INPUTS, OPT_NO_EXPLAIN };

static void print_summary(const hunt_summary *s)
{
    /* the search's seconds are not the command's: the stage, the
     * warp-first composition and refinement come before them */
    char before[96] = "";
    if (s->search_offset_s > 0)
        snprintf(before, sizeof before, ", begun %.1f s after the symbolic stage began", s->search_offset_s);
    if (s->best_from_scout)
        fprintf(stderr, "hunt: best %.6g %s found by the scout (random testing during the symbolic stage) at its "
                        "evaluation %ld, %.2f s into the stage; the search's best was lower; %ld evaluations, "
                        "%.2f s of search%s; stopped: %s\n",
                s->best, s->unit, s->evals_to_best, s->time_to_best_s, s->evals, s->time_s, before,
                ga_stop_reason_name(s->stop));
    else if (s->scout_evals)
        fprintf(stderr, "hunt: best %.6g %s (mean of the search's runs) found at the search's evaluation %ld of %ld "
                        "(%ld more by the scout, best %.6g), %.2f s of search%s; stopped: %s\n",
                s->best, s->unit, s->evals_to_best - s->scout_evals, s->evals - s->scout_evals, s->scout_evals,
                s->scout_best, s->time_s, before, ga_stop_reason_name(s->stop));
    else
        fprintf(stderr, "hunt: best %.6g %s (mean of the search's runs) found at evaluation %ld of %ld, %.2f s of "
                        "search%s; stopped: %s\n",
                s->best, s->unit, s->evals_to_best, s->evals, s->time_s, before, ga_stop_reason_name(s->stop));
    if (s->final_reps)
        fprintf(stderr, "hunt: best input re-measured %d times: mean %.6g, min %.6g, median %.6g, max %.6g, "
                        "stddev %.3g %s\n",
                s->final_reps, s->final_mean, s->final_min, s->final_median, s->final_max, s->final_stddev,
                s->unit);
    if (s->best_stride)
        fprintf(stderr, "hunt: best input's tiling: stride %llu (gene group g shifted by g x %llu)\n",
                (unsigned long long)s->best_stride, (unsigned long long)s->best_stride);
    else if (s->strided && !s->best_from_scout)
        fprintf(stderr, "hunt: best input's tiling: plain (no stride)\n");
    if (s->locations)
        fprintf(stderr, "hunt: location feedback: %d inputs kept, each the busiest yet at some of the kernel's "
                        "instructions (%d of %d per-instruction counters), %ld children bred from them (run.json's "
                        "archive)\n",
                s->archive_inputs, s->locations_held, s->locations, s->archive_children);
    if (s->lanes_amplified > 0 && s->lanes_extended >= 0)
        fprintf(stderr, "hunt: lane amplification: %ld children given the busiest thread's input in every thread, "
                "%ld of them first given the solver's extension (run.json's lane_amplify)\n", s->lanes_amplified,
                s->lanes_extended);
    else if (s->lanes_amplified > 0)
        fprintf(stderr, "hunt: lane amplification: %ld children given the busiest thread's input in every thread "
                "(run.json's lane_amplify)\n", s->lanes_amplified);
    if (s->findings) fprintf(stderr, "hunt: %ld findings (faults or hangs) saved under %s/findings/\n", s->findings, s->dir);
    if (s->state_mb >= 1)
        fprintf(stderr, "hunt: %.1f MB of search state (checkpoint.bin, pool.bin) kept for --resume; "
                "--drop-state removes it when a run finishes\n", s->state_mb);
    if (s->islands_lost > 0)
        fprintf(stderr, "hunt: %d of %d islands died during the run (run.json's island_runs say how); the figures "
                        "are the others'\n", s->islands_lost, s->islands);
    fprintf(stderr, "hunt: results in %s\n", s->dir);
}

/* What the command adds to a hunt's own options. */
typedef struct {
    hunt_options *ho;
    bool explain;               /* explain the best input afterwards (sim) */
} hunt_command;

static int own_option(void *ctx, int c, const char *arg, wh_error *err)
{
    hunt_command *cmd = ctx;
    hunt_options *ho = cmd->ho;
    switch (c) {
    case OPT_STRATEGY:
        if (ga_strategy_from_name(arg, &ho->strategy)) return 1;
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "unknown strategy '%s' (gdivan, random, random-ga)", arg);
        return -1;
    case OPT_RESUME: ho->resume_dir = arg; return 1;
    case OPT_DROP_STATE: ho->drop_state = true; return 1;
    case OPT_NO_EXPLAIN: cmd->explain = false; return 1;
    case OPT_SEED_INPUTS:
        if (ho->nseed_inputs < HUNT_MAX_SEED_OPTIONS) {
            ho->seed_inputs[ho->nseed_inputs++] = arg;
            return 1;
        }
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--seed-inputs: at most %d of them (each may be a directory of "
                     "inputs)", HUNT_MAX_SEED_OPTIONS);
        return -1;
    case 'o': ho->out_dir = arg; return 1;
    default: return 0;
    }
}

int cmd_hunt(int argc, char **argv)
{
    static const struct option longs[] = {
        HUNT_LONG_OPTIONS, CLI_RUN_LONG_OPTIONS,
        { "strategy", required_argument, NULL, OPT_STRATEGY },
        { "resume", required_argument, NULL, OPT_RESUME },
        { "drop-state", no_argument, NULL, OPT_DROP_STATE },
        { "seed-inputs", required_argument, NULL, OPT_SEED_INPUTS },
        { "no-explain", no_argument, NULL, OPT_NO_EXPLAIN },
        { "out", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    hunt_options ho;
    hunt_options_default(&ho);
    cli_run_options ro;
    cli_run_options_init(&ro);
    wh_spec *spec;
    hunt_command cmd = { &ho, true };
    int status = cli_parse_search(argc, argv, longs, own_option, &cmd, usage, &ho, &ro, &spec);
    if (status >= 0) return status;
    /* a resumed run keeps its own budget unless --evals is given again */
    if (!ho.resume_dir && ho.ga.max_evals == 0)
        ho.ga.max_evals = 2000;
    wh_error err;
    wh_error_clear(&err);
    /* under mpirun: one island of the run; the others speak through island 0 */
    wh_islands *islands;
    if (!cli_join_islands(&ho, &ro, &islands, &err)) {
        wh_spec_free(spec);
        cli_search_free(&ho);
        return cli_report(&err);
    }
    if (islands && wh_islands_rank(islands) > 0) cmd.explain = false;
    hunt_summary sum;
    bool ok = hunt_run(spec, &ho, &sum, &err);
    wh_spec_free(spec);
    cli_search_free(&ho);
    if (!ok && islands) cli_abort_islands(islands, &err);
    if (!ok) return cli_report(&err);
    if (!ro.quiet) print_summary(&sum);
    if (cmd.explain && !strcmp(sum.backend, "sim") && sum.stop != GA_STOP_INTERRUPTED) {
        /* why the best input is slow, beside it; a failure there leaves the run as it is */
        if (cli_explain_best(sum.dir, &ro) != 0) fprintf(stderr, "hunt: the explain of the best input failed\n");
        else if (!ro.quiet) fprintf(stderr, "hunt: why the best input is slow: %s/explain/explain.md\n", sum.dir);
    }
    if (ro.json) {
        json_t *j = hunt_summary_json(&sum);
        cli_print_json(j);
        json_decref(j);
    }
    wh_islands_leave(islands);
    return sum.stop == GA_STOP_INTERRUPTED ? 130 : 0;
}
