/*
 * cli.h — the `warphunt` subcommands and what they share.
 *
 * Each subcommand lives in cli/cmd_NAME.c and has the signature of
 * `wh_command_fn`: it receives argv with argv[0] = the subcommand name and
 * returns the process exit status (0 ok, 1 user error, 2 internal/device
 * failure).  Human text goes to stderr; with --json a summary goes to stdout.
 */
#ifndef WH_CLI_H
#define WH_CLI_H

#include "core/error.h"

#include "harness/harness.h"

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* getopt_long codes of the options every kernel-running command takes:
 *   --backend auto|cuda|sim  --device N  --profile FILE  --step-limit N  --sim-local-mb M
 *   --kernel-timeout S  --warmup N  --cold-l2  --sim-noise F  --json  --quiet */
enum {
    CLI_OPT_BACKEND = 1000, CLI_OPT_DEVICE, CLI_OPT_PROFILE, CLI_OPT_STEP_LIMIT, CLI_OPT_JSON, CLI_OPT_QUIET,
    CLI_OPT_KERNEL_TIMEOUT, CLI_OPT_WARMUP, CLI_OPT_COLD_L2, CLI_OPT_SIM_NOISE, CLI_OPT_SET, CLI_OPT_SIM_LOCAL_MB,
    CLI_OPT_SIZE,
    CLI_OPT_FIRST_FREE = 1100
};

#define CLI_RUN_LONG_OPTIONS \
    { "backend", required_argument, NULL, CLI_OPT_BACKEND }, \
    { "device", required_argument, NULL, CLI_OPT_DEVICE }, \
    { "profile", required_argument, NULL, CLI_OPT_PROFILE }, \
    { "step-limit", required_argument, NULL, CLI_OPT_STEP_LIMIT }, \
    { "kernel-timeout", required_argument, NULL, CLI_OPT_KERNEL_TIMEOUT }, \
    { "warmup", required_argument, NULL, CLI_OPT_WARMUP }, \
    { "cold-l2", no_argument, NULL, CLI_OPT_COLD_L2 }, \
    { "sim-noise", required_argument, NULL, CLI_OPT_SIM_NOISE }, \
    { "sim-local-mb", required_argument, NULL, CLI_OPT_SIM_LOCAL_MB }, \
    { "json", no_argument, NULL, CLI_OPT_JSON }, \
    { "quiet", no_argument, NULL, CLI_OPT_QUIET }, \
    { "set", required_argument, NULL, CLI_OPT_SET }, \
    { "size", required_argument, NULL, CLI_OPT_SIZE }

#define CLI_RUN_HELP \
    "  --backend B       auto (default: cuda when a GPU is present, else sim), cuda or sim\n" \
    "  --device N        GPU index for the cuda backend (default 0)\n" \
    "  --profile FILE    sim machine profile (default: harness/profiles/default.json, built in)\n" \
    "  --step-limit N    sim: stop a run after N warp instructions (default 2e9)\n" \
    "  --sim-local-mb M  sim: refuse a launch whose resident warps' local memory would\n" \
    "                    take more than M MiB of host memory (a finding, unsupported;\n" \
    "                    default 2048)\n" \
    "  --kernel-timeout S  cuda: kill a launch still running after S seconds with its\n" \
    "                    worker (a finding with status timeout; default 10, 0 = never)\n" \
    "  --warmup N        cuda: untimed launches before the timed ones (default 2)\n" \
    "  --cold-l2         cuda: flush the L2 before every repetition (outside the timing)\n" \
    "  --sim-noise F     sim: multiply each repetition's time by 1 + F x a standard normal\n" \
    "                    draw, to study a search under GPU-like noise (default 0: exact)\n" \
    "  --set NAME=EXPR   give the spec's constant NAME another value or expression, so\n" \
    "                    one spec serves several problem sizes (repeatable; recorded\n" \
    "                    with saved inputs and runs, which re-apply it)\n" \
    "  --size NAME       the spec's named problem size (\"sizes\", e.g. large): its\n" \
    "                    constants, as --set gives them, before any --set\n" \
    "  --json            print a machine-readable summary on stdout\n" \
    "  --quiet           no progress or notes on stderr\n"

/* --set options one command takes. */
#define CLI_MAX_SETS 64

typedef struct {
    harness_backend backend;
    harness_options harness;
    bool json, quiet;
    const char *sets[CLI_MAX_SETS];  /* --set NAME=EXPR, in order */
    int nsets;
    const char *size;                /* --size NAME, or NULL */
} cli_run_options;

void cli_run_options_init(cli_run_options *r);
/* 1: consumed, 0: not one of the shared options, -1: bad value (err). */
int cli_run_option(cli_run_options *r, int c, const char *arg, wh_error *err);

bool cli_parse_long(const char *opt, const char *text, long min, long max, long *out, wh_error *err);
bool cli_parse_double(const char *opt, const char *text, double min, double max, double *out, wh_error *err);
bool cli_parse_u64(const char *opt, const char *text, uint64_t *out, wh_error *err);

/* Install SIGINT/SIGTERM handlers; the returned flag becomes 1 on a signal. */
volatile sig_atomic_t *cli_catch_interrupt(void);
void cli_print_json(json_t *doc);

typedef int (*wh_command_fn)(int argc, char **argv);

typedef struct {
    const char *name;
    wh_command_fn fn;
    const char *summary;    /* one line for the top-level help */
} cli_command;

/* Every subcommand, in the order the help lists them. */
const cli_command *cli_commands(int *n);

int cmd_ptx(int argc, char **argv);
int cmd_explore(int argc, char **argv);
int cmd_measure(int argc, char **argv);
int cmd_hunt(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_campaign(int argc, char **argv);
int cmd_pwcet(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_input(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_spec(int argc, char **argv);

/* Print "warphunt: <formatted error>" on stderr and return its exit status. */
int cli_report(const wh_error *err);
/* After a usage error (its message already printed): point to the help
 * instead of printing all of it; returns exit status 1. */
int cli_usage_hint(const char *command);
/* getopt_long returned an option it does not know, or one without its
 * value (argv[optind - 1]): say which, point to the help; exit status 1. */
int cli_bad_option(const char *command, char **argv);
/* Load a spec given as a path, or as a bundled kernel's name ("artificial",
 * "spmv_scalar"): NAME.json under kernels/, kernels/corpus/ and kernels/calib/ of the
 * working directory, of the binary's directory and its parent (a build of
 * the repository) and of ../share/warphunt/ beside the binary (installed). */
wh_spec *cli_load_spec(const char *arg, wh_error *err);
/* A saved input given as DIR: DIR itself when it holds a manifest.json,
 * else DIR/best (a run directory); false (err) when neither does. */
bool cli_input_dir(const char *command, const char *dir, char *out, size_t n, wh_error *err);
/* `warphunt explain` of a run directory's best/ against a random input,
 * quiet, into RUN/explain (what hunt does after a search on the sim);
 * returns the exit status explain would. */
int cli_explain_best(const char *run_dir, const cli_run_options *ro);
/* Apply --set NAME=EXPR texts to a loaded spec (wh_spec_set_const). */
bool cli_apply_sets(wh_spec *spec, const char *const *sets, int n, wh_error *err);
/* --size NAME (when given), then the --set texts, of a command's options. */
bool cli_apply_run_sets(wh_spec *spec, const cli_run_options *ro, wh_error *err);
/* The spec of a saved input: spec_arg, else the one its manifest records,
 * with the constants the manifest records it was made with (spec_sets). */
wh_spec *cli_load_input_spec(const char *input_dir, const char *spec_arg, wh_error *err);

#endif
