/*
 * cmd_campaign.c — `warphunt campaign`: replay a hunt's hardest inputs many
 * times under control, for measurement-based timing analysis.
 *
 * A campaign is the measurement half of MBPTA: each input is run N times,
 * the rounds interleaved in a shuffled order (so a slow drift of the
 * machine spreads over every input instead of biasing the last one), one
 * launch per sample with the harness's warm-ups and, with --cold-l2, a
 * flushed L2; the device's clocks are read after every sample and a
 * throttled sample is flagged (and left out of the statistics and of
 * `warphunt pwcet`).  Every sample is written to campaign.csv as it is
 * taken, so an interrupted campaign keeps what it measured.
 */
#include "cli/cli.h"

#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/pcg32.h"
#include "core/results.h"
#include "core/stats.h"

#define CAMPAIGN_MAX_INPUTS 256

/* One input of the campaign and what was measured on it. */
typedef struct {
    char name[64];             /* "top/01", "best", or the directory's name */
    char path[1100];
    wh_image *img;
    double *times;             /* samples kept (not throttled, status ok) */
    int ntimes;
    int throttled, faults;
    char fault[1024];          /* the first fault's message */
} campaign_input;

typedef struct {
    const char *run_dir;
    const char *select[CAMPAIGN_MAX_INPUTS];   /* --inputs values, in order */
    int nselect;
    long runs;
    bool interleave;
    uint64_t seed;
    const char *out_dir;
    const char *spec_path;
} campaign_options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warphunt campaign DIR [--inputs top|best|INPUT]... [--runs N] [options]\n"
            "\n"
            "Replay a hunt's hardest inputs N times each under control and record every\n"
            "sample with the device's clocks: the measurements a probabilistic WCET\n"
            "analysis (`warphunt pwcet`) needs.  DIR is a run directory (or one saved input).\n"
            "Rounds are interleaved: each round runs every input once, in an order shuffled\n"
            "per round (PCG32, --seed), so drift spreads over all inputs.  On the cuda\n"
            "backend the SM clock, its default, the NVML clocks event reasons and the\n"
            "temperature are read after each sample (NVML loaded at run time: libnvidia-ml.so.1\n"
            "or $WARPHUNT_LIBNVML); a sample with the SM clock below 75 %% of its default or a\n"
            "thermal, hardware or power-brake slowdown is flagged `throttled` and left out of\n"
            "the summary and of pwcet.  warphunt never changes a clock.\n"
            "\n"
            "Writes OUT/campaign.csv (input, run, seq, time, unit, sm_mhz, default_sm_mhz,\n"
            "reasons, temperature_c, flags; one line per sample as it is taken) and\n"
            "OUT/campaign.json (per input: samples kept, throttled, faults, mean, median,\n"
            "min, max, stddev, relative stddev).  Ctrl-C stops after the current sample and\n"
            "writes the summary of what was measured.\n"
            "\n"
            "  --inputs WHICH    top (default: DIR/top/NN from hunt --keep, else best), best,\n"
            "                    or a saved input or run directory (repeatable, in order)\n"
            "  --runs N          samples per input (default 1000; MBPTA-CV needs >= 100)\n"
            "  --no-interleave   all of one input's runs, then the next's\n"
            "  --seed S          seed of the shuffle and of --sim-noise's draws (default 1)\n"
            "  -o, --output OUT  output directory (default DIR/campaign)\n"
            "  --spec SPEC       the kernel spec (default: the one the inputs record)\n"
            CLI_RUN_HELP
            "  -h, --help        this text\n");
}

/* DIR/top/NN in name order; false when DIR has no top/. */
static bool add_top(const char *run_dir, campaign_input *in, int *n, wh_error *err)
{
    char top[1100];
    snprintf(top, sizeof top, "%s/top", run_dir);
    struct dirent **names = NULL;
    int k = scandir(top, &names, NULL, alphasort);
    if (k < 0)
        return false;
    bool ok = true;
    for (int i = 0; i < k; i++) {
        char dir[1400], manifest[1500];
        snprintf(dir, sizeof dir, "%s/%.255s", top, names[i]->d_name);
        snprintf(manifest, sizeof manifest, "%s/manifest.json", dir);
        struct stat st;
        if (names[i]->d_name[0] != '.' && stat(manifest, &st) == 0) {
            if (*n >= CAMPAIGN_MAX_INPUTS) {
                wh_error_set(err, WH_ERR_USER, top, 0, 0, "more than %d inputs", CAMPAIGN_MAX_INPUTS);
                ok = false;
            } else {
                snprintf(in[*n].name, sizeof in[*n].name, "top/%.59s", names[i]->d_name);
                snprintf(in[*n].path, sizeof in[*n].path, "%.1099s", dir);
                (*n)++;
            }
        }
        free(names[i]);
    }
    free(names);
    return ok;
}

static bool add_input(const char *name, const char *dir_arg, campaign_input *in, int *n, wh_error *err)
{
    if (*n >= CAMPAIGN_MAX_INPUTS) {
        wh_error_set(err, WH_ERR_USER, dir_arg, 0, 0, "more than %d inputs", CAMPAIGN_MAX_INPUTS);
        return false;
    }
    if (!cli_input_dir("campaign", dir_arg, in[*n].path, sizeof in[*n].path, err))
        return false;
    snprintf(in[*n].name, sizeof in[*n].name, "%s", name);
    (*n)++;
    return true;
}

/* The inputs --inputs names (top when none), in order. */
static bool collect_inputs(const campaign_options *o, campaign_input *in, int *n, wh_error *err)
{
    char manifest[1200];
    struct stat st;
    snprintf(manifest, sizeof manifest, "%s/manifest.json", o->run_dir);
    if (stat(manifest, &st) == 0 && o->nselect == 0) {   /* DIR is one saved input */
        const char *base = strrchr(o->run_dir, '/');
        return add_input(base && base[1] ? base + 1 : o->run_dir, o->run_dir, in, n, err);
    }
    int nsel = o->nselect ? o->nselect : 1;
    for (int s = 0; s < nsel; s++) {
        const char *what = o->nselect ? o->select[s] : "top";
        bool ok;
        if (!strcmp(what, "top")) {
            int before = *n;
            ok = add_top(o->run_dir, in, n, err);
            if (ok && *n == before)
                ok = add_input("best", o->run_dir, in, n, err);
            else if (!ok && !err->msg[0])
                ok = add_input("best", o->run_dir, in, n, err);
        } else if (!strcmp(what, "best")) {
            ok = add_input("best", o->run_dir, in, n, err);
        } else {
            const char *base = strrchr(what, '/');
            ok = add_input(base && base[1] ? base + 1 : what, what, in, n, err);
        }
        if (!ok)
            return false;
    }
    return true;
}

/* "throttled", "fault", "timeout", "unsupported" or "" */
static const char *sample_flags(const harness_result *r, const harness_clocks *c)
{
    if (r->status != HARNESS_OK)
        return harness_status_name(r->status);
    return c->throttled ? "throttled" : "";
}

static void write_sample(FILE *csv, const campaign_input *in, long run, long seq, const harness_result *r,
                         const harness_clocks *c)
{
    wh_csv_text(csv, in->name);
    fprintf(csv, ",%ld,%ld,", run, seq);
    if (r->status == HARNESS_OK)
        fprintf(csv, "%.9g", r->times[0]);
    fprintf(csv, ",%s,", r->unit);
    if (c->known)
        fprintf(csv, "%.0f,%.0f,0x%llx,", c->sm_mhz, c->default_sm_mhz, (unsigned long long)c->reasons);
    else
        fprintf(csv, ",,,");
    if (c->temperature_c >= 0)
        fprintf(csv, "%d", c->temperature_c);
    fprintf(csv, ",%s\n", sample_flags(r, c));
    fflush(csv);
}

/* Round r's order of the inputs: shuffled (Fisher-Yates) or as given. */
static void round_order(int *order, int n, bool shuffle, pcg32 *rng)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; shuffle && i > 0; i--) {
        int j = (int)pcg32_bounded(rng, (uint32_t)i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

static json_t *input_json(const campaign_input *in)
{
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i}", "name", in->name, "path", in->path, "samples", in->ntimes,
                          "throttled", in->throttled, "faults", in->faults);
    wh_summary s;
    if (in->ntimes > 0 && wh_summarize(in->times, in->ntimes, &s)) {
        json_object_set_new(o, "mean", json_real(s.mean));
        json_object_set_new(o, "median", json_real(s.median));
        json_object_set_new(o, "min", json_real(s.min));
        json_object_set_new(o, "max", json_real(s.max));
        json_object_set_new(o, "stddev", json_real(s.stddev));
        json_object_set_new(o, "rsd", json_real(s.mean > 0 ? s.stddev / s.mean : 0));
    }
    if (in->faults) json_object_set_new(o, "first_fault", json_string(in->fault));
    return o;
}

typedef struct {
    const wh_spec *spec;
    harness *h;
    campaign_input *in;
    int n;
    const campaign_options *o;
    const cli_run_options *ro;
    long samples;              /* taken */
    bool interrupted;
    harness_clocks last_clocks;
} campaign;

static bool write_summary(const campaign *c, const char *path, double wall_s, wh_error *err)
{
    json_t *inputs = json_array();
    for (int i = 0; i < c->n; i++)
        json_array_append_new(inputs, input_json(&c->in[i]));
    harness_options hopt = c->ro->harness;
    harness_options_resolve(&hopt);
    json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:b, s:I, s:b, s:i, s:f, s:b, s:b, s:o}",
                            "tool", "warphunt " WH_VERSION, "kernel", c->spec->name, "spec", c->spec->path,
                            "backend", harness_backend_name(harness_backend_of(c->h)), "device",
                            harness_device(c->h), "runs", (json_int_t)c->o->runs, "samples",
                            (json_int_t)c->samples, "interleave", c->o->interleave, "seed",
                            (json_int_t)c->o->seed, "cold_l2", hopt.cold_l2, "warmup", hopt.warmup,
                            "wall_s", wall_s, "interrupted", c->interrupted, "clocks_known",
                            c->last_clocks.known, "inputs", inputs);
    json_object_set_new(doc, "unit", json_string(harness_unit(c->h)));
    if (!c->last_clocks.known) json_object_set_new(doc, "clocks_unknown_why", json_string(c->last_clocks.why));
    if (hopt.sim_noise > 0) json_object_set_new(doc, "sim_noise", json_real(hopt.sim_noise));
    json_object_set_new(doc, "device_info", harness_device_json(c->h));
    bool ok = wh_write_json_atomic(path, doc, err);
    if (ok && c->ro->json) cli_print_json(doc);
    json_decref(doc);
    return ok;
}

/* One sample of input i; false only when the tool itself failed. */
static bool take_sample(campaign *c, int i, long run, FILE *csv, wh_error *err)
{
    campaign_input *in = &c->in[i];
    harness_result r;
    if (!harness_measure(c->h, in->img, 1, &r, err))
        return false;
    harness_read_clocks(c->h, &c->last_clocks);
    c->samples++;
    write_sample(csv, in, run, c->samples, &r, &c->last_clocks);
    if (r.status != HARNESS_OK) {
        if (in->faults++ == 0) snprintf(in->fault, sizeof in->fault, "%s", r.message);
    } else if (c->last_clocks.throttled) {
        in->throttled++;
    } else {
        in->times[in->ntimes++] = r.times[0];
    }
    harness_result_free(&r);
    return true;
}

static void progress(const campaign *c, long total, double t0, double *last)
{
    double now = wh_clock_s();
    if (c->ro->quiet || (now - *last < 2.0 && c->samples < total))
        return;
    *last = now;
    int thr = 0;
    for (int i = 0; i < c->n; i++) thr += c->in[i].throttled;
    fprintf(stderr, "campaign: %ld/%ld samples, %d throttled, %.1f s\n", c->samples, total, thr, now - t0);
}

static bool run_samples(campaign *c, FILE *csv, wh_error *err)
{
    volatile sig_atomic_t *stop = cli_catch_interrupt();
    pcg32 rng;
    pcg32_seed(&rng, c->o->seed, 0x63616d70ULL);   /* "camp" */
    int *order = wh_xcalloc((size_t)c->n, sizeof *order);
    long total = c->o->runs * c->n;
    double t0 = wh_clock_s(), last = t0;
    bool ok = true;
    if (c->o->interleave) {
        for (long run = 1; ok && run <= c->o->runs && !*stop; run++) {
            round_order(order, c->n, true, &rng);
            for (int k = 0; ok && k < c->n && !*stop; k++) {
                ok = take_sample(c, order[k], run, csv, err);
                progress(c, total, t0, &last);
            }
        }
    } else {
        for (int i = 0; ok && i < c->n && !*stop; i++)
            for (long run = 1; ok && run <= c->o->runs && !*stop; run++) {
                ok = take_sample(c, i, run, csv, err);
                progress(c, total, t0, &last);
            }
    }
    c->interrupted = *stop != 0;
    free(order);
    return ok;
}

static bool load_inputs(campaign *c, wh_error *err)
{
    for (int i = 0; i < c->n; i++) {
        c->in[i].img = wh_image_load(c->spec, c->in[i].path, err);
        if (!c->in[i].img)
            return false;
        c->in[i].times = calloc((size_t)c->o->runs, sizeof(double));
        if (!c->in[i].times) {
            wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "out of memory for %ld samples of input %s (--runs)",
                         c->o->runs, c->in[i].name);
            return false;
        }
    }
    return true;
}

static int campaign_run(const campaign_options *o, cli_run_options *ro)
{
    wh_error err;
    wh_error_clear(&err);
    campaign_input *in = wh_xcalloc(CAMPAIGN_MAX_INPUTS, sizeof *in);
    campaign c = { .in = in, .o = o, .ro = ro };
    wh_spec *spec = NULL;
    FILE *csv = NULL;
    char out_dir[1100], path[1200];
    snprintf(out_dir, sizeof out_dir, "%s", o->out_dir ? o->out_dir : "");
    if (!o->out_dir) snprintf(out_dir, sizeof out_dir, "%s/campaign", o->run_dir);
    bool ok = in && collect_inputs(o, in, &c.n, &err);
    if (ok) {
        spec = cli_load_input_spec(in[0].path, o->spec_path, &err);
        ok = spec && cli_apply_run_sets(spec, ro, &err);
    }
    c.spec = spec;
    ok = ok && load_inputs(&c, &err);
    c.h = ok ? harness_open(spec, ro->backend, &ro->harness, &err) : NULL;
    ok = c.h && wh_make_dirs(out_dir, &err);
    if (ok) {
        snprintf(path, sizeof path, "%s/campaign.csv", out_dir);
        csv = fopen(path, "w");
        if (!csv) wh_error_set(&err, WH_ERR_USER, path, 0, 0, "cannot write");
        ok = csv != NULL;
    }
    double t0 = wh_clock_s();
    if (ok) {
        if (!ro->quiet)
            fprintf(stderr, "campaign: %d input%s x %ld runs of %s on %s, %s, into %s\n", c.n, c.n == 1 ? "" : "s",
                    o->runs, spec->name, harness_device(c.h), o->interleave ? "interleaved" : "one input at a time",
                    out_dir);
        fprintf(csv, "input,run,seq,time,unit,sm_mhz,default_sm_mhz,reasons,temperature_c,flags\n");
        ok = run_samples(&c, csv, &err);
    }
    if (csv && fclose(csv) != 0 && ok) {
        wh_error_set(&err, WH_ERR_USER, path, 0, 0, "cannot write");
        ok = false;
    }
    if (c.h && c.samples > 0) {
        snprintf(path, sizeof path, "%s/campaign.json", out_dir);
        wh_error serr;
        wh_error_clear(&serr);
        if (!write_summary(&c, path, wh_clock_s() - t0, &serr) && ok) {
            err = serr;
            ok = false;
        }
        if (!ro->quiet) {
            for (int i = 0; i < c.n; i++) {
                wh_summary s = { 0 };
                if (c.in[i].ntimes > 0) wh_summarize(c.in[i].times, c.in[i].ntimes, &s);
                fprintf(stderr, "campaign: %-10s %5d samples  mean %.6g  max %.6g  rsd %.3g %%  (%d throttled, %d faults) %s\n",
                        c.in[i].name, c.in[i].ntimes, s.mean, s.max, s.mean > 0 ? 100 * s.stddev / s.mean : 0,
                        c.in[i].throttled, c.in[i].faults, harness_unit(c.h));
            }
            if (!c.last_clocks.known) fprintf(stderr, "campaign: clocks not recorded: %s\n", c.last_clocks.why);
            if (c.interrupted) fprintf(stderr, "campaign: interrupted after %ld samples; what was measured is saved\n", c.samples);
            fprintf(stderr, "campaign: %s/campaign.csv; next: warphunt pwcet %s\n", out_dir, out_dir);
        }
    }
    int status = ok ? (c.interrupted ? 130 : 0) : cli_report(&err);
    for (int i = 0; in && i < c.n; i++) {
        wh_image_free(in[i].img);
        free(in[i].times);
    }
    if (c.h) harness_close(c.h);
    wh_spec_free(spec);
    free(in);
    return status;
}

enum { OPT_INPUTS = CLI_OPT_FIRST_FREE, OPT_RUNS, OPT_NO_INTERLEAVE, OPT_SEED, OPT_SPEC };

int cmd_campaign(int argc, char **argv)
{
    static const struct option longs[] = {
        CLI_RUN_LONG_OPTIONS,
        { "inputs", required_argument, NULL, OPT_INPUTS },
        { "runs", required_argument, NULL, OPT_RUNS },
        { "no-interleave", no_argument, NULL, OPT_NO_INTERLEAVE },
        { "seed", required_argument, NULL, OPT_SEED },
        { "output", required_argument, NULL, 'o' },
        { "spec", required_argument, NULL, OPT_SPEC },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    cli_run_options ro;
    cli_run_options_init(&ro);
    campaign_options o = { .runs = 1000, .interleave = true, .seed = 1 };
    wh_error err;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", longs, NULL)) != -1) {
        int r = cli_run_option(&ro, c, optarg, &err);
        if (r < 0) return cli_report(&err);
        if (r > 0) continue;
        switch (c) {
        case OPT_INPUTS:
            if (o.nselect >= CAMPAIGN_MAX_INPUTS) {
                fprintf(stderr, "warphunt campaign: more than %d --inputs\n", CAMPAIGN_MAX_INPUTS);
                return 1;
            }
            o.select[o.nselect++] = optarg;
            break;
        case OPT_RUNS:
            if (!cli_parse_long("--runs", optarg, 1, 100000000, &o.runs, &err)) return cli_report(&err);
            break;
        case OPT_NO_INTERLEAVE: o.interleave = false; break;
        case OPT_SEED:
            if (!cli_parse_u64("--seed", optarg, &o.seed, &err)) return cli_report(&err);
            break;
        case 'o': o.out_dir = optarg; break;
        case OPT_SPEC: o.spec_path = optarg; break;
        case 'h': usage(stdout); return 0;
        default: return cli_usage_hint("campaign");
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "warphunt campaign: expected exactly one DIR (a run directory or a saved input)\n");
        return cli_usage_hint("campaign");
    }
    o.run_dir = argv[optind];
    ro.harness.noise_seed = o.seed;   /* --sim-noise draws, as a hunt seeds them */
    return campaign_run(&o, &ro);
}
