/*
 * commands.c — the table of subcommands: main.c dispatches on it and
 * prints it, and the tests check that the manual describes every entry.
 */
#include "cli/cli.h"

static const cli_command commands[] = {
    { "ptx",     cmd_ptx,     "parse PTX; print kernels, blocks, CFG (text, DOT or JSON)" },
    { "explore", cmd_explore, "symbolic stage only: paths and atoms -> paths.json" },
    { "measure", cmd_measure, "time one input of a kernel on a backend" },
    { "hunt",    cmd_hunt,    "search for the input with the longest kernel time" },
    { "compare", cmd_compare, "run all strategies with the same budget" },
    { "replay",  cmd_replay,  "re-run a saved input many times" },
    { "campaign", cmd_campaign, "replay the hardest inputs N times, interleaved, with clocks (MBPTA)" },
    { "pwcet",   cmd_pwcet,   "i.i.d. checks and extreme value fits of a campaign: pWCET curves" },
    { "diff",    cmd_diff,    "re-measure two runs' best inputs, interleaved, with a rank test" },
    { "explain", cmd_explain, "why an input is slow: lines ranked by the cycles it adds (sim)" },
    { "input",   cmd_input,   "show or export a saved input (CSV, .npy); import one from files" },
    { "init",    cmd_init,    "draft a kernel spec from its PTX or CUDA source" },
    { "spec",    cmd_spec,    "spec check: a spec against its kernel, with what looks wrong" },
    { "calibrate", cmd_calibrate, "microbenchmarks that measure a GPU (or the sim) into a sim profile" },
};

const cli_command *cli_commands(int *n)
{
    *n = (int)(sizeof commands / sizeof commands[0]);
    return commands;
}
