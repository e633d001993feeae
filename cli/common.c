/*
 * common.c — options shared by the subcommands that run kernels, the
 * Ctrl-C flag, and finding a spec and a saved input from the command line.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool cli_parse_long(const char *opt, const char *text, long min, long max, long *out, wh_error *err)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 0);
    if (errno || *end || end == text || v < min || v > max) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "%s takes an integer from %ld to %ld, not '%s'", opt, min, max,
                     text);
        return false;
    }
    *out = (long)v;
    return true;
}

bool cli_parse_double(const char *opt, const char *text, double min, double max, double *out, wh_error *err)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || *end || end == text || !(v >= min && v <= max)) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "%s takes a number from %g to %g, not '%s'", opt, min, max, text);
        return false;
    }
    *out = v;
    return true;
}

bool cli_parse_u64(const char *opt, const char *text, uint64_t *out, wh_error *err)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (!errno && end != text && (*end == 'e' || *end == 'E' || *end == '.')) {
        /* "2e9", as the help texts write large counts: whole numbers only */
        double d = strtod(text, &end);
        if (!*end && d >= 0 && d < 1.8e19 && d == (double)(unsigned long long)d) {
            *out = (uint64_t)d;
            return true;
        }
        end = (char *)"x"; /* rejected below */
    }
    if (errno || *end || end == text || text[0] == '-') {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "%s takes a non-negative integer, not '%s'", opt, text);
        return false;
    }
    *out = v;
    return true;
}

void cli_run_options_init(cli_run_options *r)
{
    memset(r, 0, sizeof *r);
    r->backend = HARNESS_AUTO;
    harness_options_init(&r->harness);
}

int cli_run_option(cli_run_options *r, int c, const char *arg, wh_error *err)
{
    long v;
    switch (c) {
    case CLI_OPT_BACKEND: return harness_backend_from_name(arg, &r->backend, err) ? 1 : -1;
    case CLI_OPT_DEVICE:
        if (!cli_parse_long("--device", arg, 0, 1024, &v, err)) return -1;
        r->harness.device = (int)v;
        return 1;
    case CLI_OPT_PROFILE: r->harness.profile_path = arg; return 1;
    case CLI_OPT_STEP_LIMIT: return cli_parse_u64("--step-limit", arg, &r->harness.step_limit, err) ? 1 : -1;
    case CLI_OPT_SIM_LOCAL_MB:
        if (!cli_parse_long("--sim-local-mb", arg, 1, 1L << 30, &v, err)) return -1;
        r->harness.sim_local_mb = (uint64_t)v;
        return 1;
    case CLI_OPT_KERNEL_TIMEOUT: {
        double s;
        if (!cli_parse_double("--kernel-timeout", arg, 0, 1e6, &s, err)) return -1;
        r->harness.kernel_timeout_s = s > 0 ? s : -1; /* -1: never */
        return 1;
    }
    case CLI_OPT_WARMUP:
        if (!cli_parse_long("--warmup", arg, 0, 1000, &v, err)) return -1;
        r->harness.warmup = (int)v;
        return 1;
    case CLI_OPT_COLD_L2: r->harness.cold_l2 = true; return 1;
    case CLI_OPT_SIM_NOISE: return cli_parse_double("--sim-noise", arg, 0, 10, &r->harness.sim_noise, err) ? 1 : -1;
    case CLI_OPT_JSON: r->json = true; return 1;
    case CLI_OPT_QUIET: r->quiet = r->harness.quiet = true; return 1;
    case CLI_OPT_SET:
        if (r->nsets < CLI_MAX_SETS) {
            r->sets[r->nsets++] = arg;
            return 1;
        }
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--set: at most %d of them", CLI_MAX_SETS);
        return -1;
    case CLI_OPT_SIZE: r->size = arg; return 1;
    default: return 0;
    }
}

/* The one piece of process-wide state: a signal handler can reach nothing
 * else.  Commands pass its address down as `interrupted`. */
static volatile sig_atomic_t interrupted_flag;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted_flag = 1;
}

volatile sig_atomic_t *cli_catch_interrupt(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    interrupted_flag = 0;
    return &interrupted_flag;
}

void cli_print_json(json_t *doc)
{
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    if (text) {
        fputs(text, stdout);
        fputc('\n', stdout);
        free(text);
    }
    fflush(stdout);
}

int cli_usage_hint(const char *command)
{
    fprintf(stderr, "warphunt %s: `warphunt %s --help` lists the options\n", command, command);
    return 1;
}

int cli_bad_option(const char *command, char **argv)
{
    if (optopt && optopt != '?')
        fprintf(stderr, "warphunt %s: option '%s' needs a value or is unknown\n", command, argv[optind - 1]);
    else
        fprintf(stderr, "warphunt %s: unknown option '%s'\n", command, argv[optind - 1]);
    return cli_usage_hint(command);
}

static bool has_manifest(const char *dir)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/manifest.json", dir);
    return access(p, R_OK) == 0;
}

bool cli_input_dir(const char *command, const char *dir, char *out, size_t n, wh_error *err)
{
    snprintf(out, n, "%s", dir);
    if (has_manifest(out)) return true;
    snprintf(out, n, "%s/best", dir);
    if (has_manifest(out)) return true;
    wh_error_set(err, WH_ERR_USER, dir, 0, 0, "%s: no saved input (manifest.json) here or in its best/", command);
    return false;
}

bool cli_apply_sets(wh_spec *spec, const char *const *sets, int n, wh_error *err)
{
    for (int k = 0; k < n; k++)
        if (!wh_spec_assign(spec, sets[k], err)) return false;
    return true;
}

bool cli_apply_run_sets(wh_spec *spec, const cli_run_options *ro, wh_error *err)
{
    return (!ro->size || wh_spec_apply_size(spec, ro->size, err)) && cli_apply_sets(spec, ro->sets, ro->nsets, err);
}

wh_spec *cli_load_input_spec(const char *input_dir, const char *spec_arg, wh_error *err)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/manifest.json", input_dir);
    json_t *m = json_load_file(p, 0, NULL);
    const char *recorded = json_string_value(json_object_get(m, "spec_path"));
    /* a relative path is the working directory's of whoever made the input */
    const char *real = json_string_value(json_object_get(m, "spec_realpath"));
    if (recorded && real && access(recorded, R_OK) != 0) recorded = real;
    wh_spec *spec = NULL;
    if (!spec_arg && !recorded) wh_error_set(err, WH_ERR_USER, p, 0, 0, "no spec recorded here: give --spec");
    else spec = cli_load_spec(spec_arg ? spec_arg : recorded, err);
    json_t *sets = json_object_get(m, "spec_sets");
    for (size_t k = 0; spec && k < json_array_size(sets); k++) {
        const char *set = json_string_value(json_array_get(sets, k));
        if (set && !cli_apply_sets(spec, &set, 1, err)) {
            wh_spec_free(spec);
            spec = NULL;
        }
    }
    json_decref(m);
    return spec;
}

/* dir/kernels[/corpus|/calib]/name.json, the first that exists, into out. */
static bool bundled_in(const char *dir, const char *name, char *out, size_t n)
{
    static const char *const subdirs[] = { "kernels", "kernels/corpus", "kernels/calib" };
    for (int i = 0; i < 3; i++) {
        snprintf(out, n, "%s/%s/%s.json", dir, subdirs[i], name);
        if (access(out, R_OK) == 0) return true;
    }
    return false;
}

wh_spec *cli_load_spec(const char *arg, wh_error *err)
{
    if (access(arg, F_OK) == 0 || strchr(arg, '/') || strstr(arg, ".json")) return wh_spec_load(arg, err);
    char exe[PATH_MAX], bin[PATH_MAX], up[PATH_MAX + 8], share[PATH_MAX + 32], found[PATH_MAX + 300];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[len > 0 ? len : 0] = '\0';
    snprintf(bin, sizeof bin, "%s", exe);
    char *slash = strrchr(bin, '/');
    if (slash) *slash = '\0';
    snprintf(up, sizeof up, "%s/..", bin);
    snprintf(share, sizeof share, "%s/../share/warphunt", bin);
    const char *dirs[] = { ".", bin, up, share };
    char real[PATH_MAX];
    for (int i = 0; i < 4; i++)
        if (dirs[i][0] && bundled_in(dirs[i], arg, found, sizeof found))
            return wh_spec_load(realpath(found, real) ? real : found, err);
    wh_error_set(err, WH_ERR_USER, arg, 0, 0, "no such spec file, and no bundled kernel of that name (looked for "
                 "kernels/%s.json, kernels/corpus/%s.json and kernels/calib/%s.json here, in %s and its parent, "
                 "and in %s)", arg, arg, arg, bin, share);
    return NULL;
}

