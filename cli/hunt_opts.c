/*
 * hunt_opts.c — the search options shared by `hunt` and `compare`.
 */
#include "cli/hunt_opts.h"

#include "core/alloc.h"
#include "core/results.h"
#include "ga/islands.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_hunt_option(hunt_options *h, int c, const char *arg, wh_error *err)
{
    long v;
    double d;
    switch (c) {
    case HOPT_EVALS:
        if (!cli_parse_long("--evals", arg, 1, 1000000000L, &v, err)) return -1;
        h->ga.max_evals = v;
        return 1;
    case HOPT_TIME: return cli_parse_double("--time", arg, 0.001, 1e9, &h->ga.max_seconds, err) ? 1 : -1;
    case HOPT_SEED: return cli_parse_u64("--seed", arg, &h->seed, err) ? 1 : -1;
    case HOPT_POPULATION:
        if (!cli_parse_long("--population", arg, 2, 1000000, &v, err)) return -1;
        h->ga.population = (int)v;
        return 1;
    case HOPT_ELITE: return cli_parse_double("--elite", arg, 0, 0.99, &h->ga.elite_frac, err) ? 1 : -1;
    case HOPT_MUTATION: return cli_parse_double("--mutation", arg, 0, 1, &h->ga.mutation_prob, err) ? 1 : -1;
    case HOPT_SEGMENT: return cli_parse_double("--segment", arg, 0, 1, &h->ga.segment_prob, err) ? 1 : -1;
    case HOPT_SPECIAL: return cli_parse_double("--special", arg, 0, 1, &h->ga.special_frac, err) ? 1 : -1;
    case HOPT_RANDOM_GENE:
        return cli_parse_double("--random-gene", arg, 0, 1, &h->ga.random_gene_prob, err) ? 1 : -1;
    case HOPT_RANDOM_INDIVIDUALS:
        return cli_parse_double("--random-individuals", arg, 0, 1, &h->ga.random_frac, err) ? 1 : -1;
    case HOPT_FAMILIES:
        if (!cli_parse_long("--families", arg, 0, 1000, &v, err)) return -1;
        h->explore.families = (int)v;
        return 1;
    case HOPT_VALUE_EDITS:
        if (!cli_parse_long("--value-edits", arg, 0, 64, &v, err)) return -1;
        h->value_edits = (int)v;
        return 1;
    case HOPT_WARP_FIRST:
        if (!cli_parse_long("--warp-first", arg, 0, 100000, &v, err)) return -1;
        h->warp_first = (int)v;
        return 1;
    case HOPT_WARP_REFINE:
        if (!cli_parse_long("--warp-refine", arg, 0, 100000000L, &v, err)) return -1;
        h->warp_refine = v;
        return 1;
    case HOPT_NO_SCOUT: h->scout = false; return 1;
    case HOPT_SCOUT_HEAD: return cli_parse_long("--scout-head", arg, 0, 1000000000L, &h->scout_head, err) ? 1 : -1;
    case HOPT_NO_REFINE_DICTIONARY: h->refine_dictionary = false; return 1;
    case HOPT_NO_REFINE_WORK_TIES: h->refine_work_ties = false; return 1;
    case HOPT_NO_EDIT_SCREEN: h->edit_screen = false; return 1;
    case HOPT_END_EDITS: h->end_edits = true; return 1;
    case HOPT_NO_END_EDITS: h->end_edits = false; return 1;
    case HOPT_NO_SCOUT_SCREEN: h->scout_screen = false; return 1;
    case HOPT_NO_LOCATION_FEEDBACK: h->location_feedback = false; return 1;
    case HOPT_NO_LANE_AMPLIFY: h->lane_amplify = false; return 1;
    case HOPT_LANE_EXTEND: h->lane_extend = true; return 1;
    case HOPT_ARCHIVE_SHARE:
        return cli_parse_double("--archive-share", arg, 0, 1, &h->ga.archive_frac, err) ? 1 : -1;
    case HOPT_EPSILON: return cli_parse_double("--epsilon", arg, 0, 1e9, &h->ga.epsilon, err) ? 1 : -1;
    case HOPT_PATIENCE:
        if (!cli_parse_long("--patience", arg, 0, 1000000, &v, err)) return -1;
        h->ga.patience = (int)v;
        return 1;
    case HOPT_REPS:
        if (!cli_parse_long("--reps", arg, 1, 100000, &v, err)) return -1;
        h->reps = (int)v;
        return 1;
    case HOPT_NOISE_RSD: return cli_parse_double("--noise-rsd", arg, 0, 10, &h->noise_rsd, err) ? 1 : -1;
    case HOPT_MIGRATE_EVERY:
        if (!cli_parse_long("--migrate-every", arg, 1, 1000000, &v, err)) return -1;
        h->migrate_every = (int)v;
        return 1;
    case HOPT_MIGRANTS:
        if (!cli_parse_long("--migrants", arg, 1, 10000, &v, err)) return -1;
        h->migrants = (int)v;
        return 1;
    case HOPT_SYNC_DIR: h->sync_dir = arg; return 1;
    case HOPT_SYNC_ID: h->sync_id = arg; return 1;
    case HOPT_TOPOLOGY:
        if (hunt_topology_from_name(arg, &h->topology)) return 1;
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--topology: expected ring or all, got '%s'", arg);
        return -1;
    case HOPT_MAX_REPS:
        if (!cli_parse_long("--max-reps", arg, 1, 1000000, &v, err)) return -1;
        h->max_reps = (int)v;
        return 1;
    case HOPT_FINAL_REPS:
        if (!cli_parse_long("--final-reps", arg, 1, 1000000, &v, err)) return -1;
        h->final_reps = (int)v;
        return 1;
    case HOPT_KEEP:
        if (!cli_parse_long("--keep", arg, 1, 10000, &v, err)) return -1;
        h->ga.keep = (int)v;
        return 1;
    case HOPT_JOBS:
        if (!cli_parse_long("--jobs", arg, 1, 1024, &v, err)) return -1;
        h->jobs = (int)v;
        return 1;
    case HOPT_EXPLORE_TIME:
        if (!cli_parse_double("--explore-time", arg, 0.1, 1e7, &d, err)) return -1;
        h->explore.time_s = d;
        return 1;
    case HOPT_EXPLORE_SATURATION:
        return cli_parse_double("--explore-saturation", arg, 0, 1e7, &h->explore.saturation_s, err) ? 1 : -1;
    case HOPT_EXPLORE_PATHS:
        if (!cli_parse_long("--explore-paths", arg, 1, 10000000, &v, err)) return -1;
        h->explore.path_budget = (int)v;
        return 1;
    case HOPT_MODELS:
        if (!cli_parse_long("--models", arg, 1, 1000, &v, err)) return -1;
        h->explore.models = (int)v;
        return 1;
    case HOPT_THREADS:
        if (!cli_parse_long("--threads", arg, 1, 1024, &v, err)) return -1;
        h->explore.threads = h->genes_x = (int)v;
        return 1;
    case HOPT_MAX_ITER:
        if (!cli_parse_long("--max-iter", arg, 1, 1000000, &v, err)) return -1;
        h->explore.max_iter = (int)v;
        return 1;
    case HOPT_ORDER:
        if (strcmp(arg, "random") && strcmp(arg, "time")) {
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--order: expected random or time, not '%s'", arg);
            return -1;
        }
        h->explore.order = strcmp(arg, "time") ? SX_ORDER_RANDOM : SX_ORDER_TIME;
        return 1;
    case HOPT_NO_CACHE: h->explore.reuse = false; return 1;
    case HOPT_RESULTS: h->results_base = arg; return 1;
    case HOPT_TILING:
        if (hunt_tiling_from_name(arg, &h->tiling) && h->tiling != HUNT_TILING_AUTO) return 1;
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--tiling: expected 'stride' or 'plain', got \"%s\"", arg);
        return -1;
    default: return 0;
    }
}

/* A resumed run keeps these options of its own (run.json): given again
 * they change nothing, and the user is told so. */
static bool kept_by_a_resumed_run(const char *name)
{
    static const char *const free_on_resume[] = { "evals", "time", "jobs", "results", "no-cache", "resume",
                                                  "backend", "device", "profile", "json", "quiet", "drop-state", NULL };
    for (int i = 0; free_on_resume[i]; i++)
        if (!strcmp(name, free_on_resume[i])) return false;
    return true;
}

static void warn_ignored_on_resume(const struct option *longs, const int *seen, int nseen)
{
    char list[512] = "";
    for (int i = 0; i < nseen; i++)
        for (const struct option *o = longs; o->name; o++)
            if (o->val == seen[i] && kept_by_a_resumed_run(o->name) && !strstr(list, o->name)) {
                size_t n = strlen(list);
                snprintf(list + n, sizeof list - n, "%s--%s", n ? ", " : "", o->name);
            }
    if (list[0])
        fprintf(stderr, "hunt: ignored: %s (a resumed run keeps its own options; only --evals and --time "
                "change its budget)\n", list);
}

/* The run.json that records a run's spec: DIR's own, or, for a run of
 * islands stopped before island 0 merged the results, its first island's. */
static void recorded_run_json(const char *dir, char *path, size_t n)
{
    snprintf(path, n, "%s/run.json", dir);
    if (access(path, R_OK) == 0) return;
    char island[1100];
    snprintf(island, sizeof island, "%s/island-00/run.json", dir);
    if (access(island, R_OK) == 0) snprintf(path, n, "%s", island);
}

/* A resumed run's spec takes the constants the run recorded (run.json's
 * spec_sets), whatever --set says now. */
static bool resumed_sets(const char *dir, wh_spec *spec, wh_error *err)
{
    char path[1100];
    recorded_run_json(dir, path, sizeof path);
    json_t *doc = json_load_file(path, 0, NULL), *sets = json_object_get(doc, "spec_sets");
    bool ok = true;
    for (size_t k = 0; ok && k < json_array_size(sets); k++) {
        const char *set = json_string_value(json_array_get(sets, k));
        ok = !set || cli_apply_sets(spec, &set, 1, err);
    }
    json_decref(doc);
    return ok;
}

/* --resume DIR without a SPEC: the spec the run recorded. */
static bool resumed_spec(const char *dir, char *out, size_t n, wh_error *err)
{
    char path[1100];
    recorded_run_json(dir, path, sizeof path);
    json_t *doc = wh_read_json(path, "cannot resume", err);
    const char *spec = doc ? json_string_value(json_object_get(doc, "spec")) : NULL;
    if (doc && !spec) wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot resume: the run records no spec; name it");
    if (spec) snprintf(out, n, "%s", spec);
    json_decref(doc);
    return spec != NULL;
}

static int parse_search(int argc, char **argv, const struct option *longs, cli_own_option_fn own, void *ctx,
                        void (*usage)(FILE *out), hunt_options *ho, cli_run_options *ro, wh_spec **spec)
{
    wh_error err;
    wh_error_clear(&err);
    optind = 1;
    int c, seen[256], nseen = 0;
    while ((c = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        int r = cli_run_option(ro, c, optarg, &err);
        if (r == 0) r = cli_hunt_option(ho, c, optarg, &err);
        if (r == 0) r = own(ctx, c, optarg, &err);
        if (r < 0) return cli_report(&err);
        if (r == 0) return cli_usage_hint(argv[0]);   /* getopt named the option */
        if (nseen < 256) seen[nseen++] = c;
    }
    char saved[1100];
    const char *path = optind == argc - 1 ? argv[optind] : NULL;
    if (!path && optind == argc && ho->resume_dir) {
        if (!resumed_spec(ho->resume_dir, saved, sizeof saved, &err)) return cli_report(&err);
        path = saved;
    }
    if (!path) {
        fprintf(stderr, "warphunt %s: expected %s SPEC\n", argv[0], optind == argc ? "a" : "exactly one");
        return cli_usage_hint(argv[0]);
    }
    if (ho->resume_dir && !ro->quiet) warn_ignored_on_resume(longs, seen, nseen);
    ho->backend = ro->backend;
    ho->harness = ro->harness;
    ho->quiet = ro->quiet;
    ho->interrupted = cli_catch_interrupt();
    *spec = cli_load_spec(path, &err);
    bool set = *spec && (ho->resume_dir ? resumed_sets(ho->resume_dir, *spec, &err)
                                        : cli_apply_run_sets(*spec, ro, &err));
    if (set) return -1;
    wh_spec_free(*spec);
    *spec = NULL;
    return cli_report(&err);
}

int cli_parse_search(int argc, char **argv, const struct option *longs, cli_own_option_fn own, void *ctx,
                     void (*usage)(FILE *out), hunt_options *ho, cli_run_options *ro, wh_spec **spec)
{
    wh_error err;
    wh_error_clear(&err);
    *spec = NULL;
    /* the command line's defaults that the library leaves off, as its
     * results then depend on the machine's speed (tests need them off) */
    ho->explore.saturation_s = GEN_SATURATION_S;
    ho->warp_refine = GEN_WARP_REFINE_LAUNCHES;
    /* the command as typed, for run.json: getopt reorders argv */
    char **typed = wh_xmalloc((size_t)(argc + 1) * sizeof *typed);
    memcpy(typed, argv, (size_t)(argc + 1) * sizeof *typed);
    int status = parse_search(argc, argv, longs, own, ctx, usage, ho, ro, spec);
    if (status >= 0) {
        free(typed);
        return status;
    }
    ho->argc = argc;
    ho->argv = typed;
    return status;
}

bool cli_join_islands(hunt_options *ho, cli_run_options *ro, wh_islands **islands, wh_error *err)
{
    *islands = NULL;
    if (!wh_islands_launched()) return true;
    if (!(*islands = wh_islands_join(err))) return false;
    ho->islands = *islands;
    if (wh_islands_rank(*islands) > 0) ho->quiet = ro->quiet = true, ro->json = false;
    return true;
}

_Noreturn void cli_abort_islands(wh_islands *islands, wh_error *err)
{
    fprintf(stderr, "warphunt: island %d of %d failed; ending every island (their last checkpoints stay for "
                    "--resume)\n", wh_islands_rank(islands), wh_islands_size(islands));
    wh_islands_abort(islands, cli_report(err));
}

void cli_search_free(hunt_options *ho)
{
    free((void *)ho->argv);
    ho->argv = NULL;
    ho->argc = 0;
}
