/*
 * main.c — the `warphunt` program: dispatch to a subcommand.
 */
#include "cli/cli.h"
#include "ga/islands.h"

#include <stdio.h>
#include <string.h>

#ifndef WH_VERSION
#error "WH_VERSION is set by the Makefile (VERSION)"
#endif

static void usage(FILE *out)
{
    fprintf(out,
        "usage: warphunt COMMAND [OPTIONS] ...\n"
        "\n"
        "Find the inputs that make a CUDA kernel run longest.\n"
        "\n"
        "commands:\n");
    int n;
    const cli_command *commands = cli_commands(&n);
    for (int i = 0; i < n; i++)
        fprintf(out, "  %-8s  %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
        "\n"
        "`warphunt COMMAND --help` describes a command.  `warphunt --version`.\n"
        "Exit status: 0 success, 1 user error, 2 internal or device failure,\n"
        "3 `measure --check`: the outputs differ, 130 Ctrl-C stopped a hunt or compare\n"
        "(its results are written).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 1;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("warphunt %s (MPI islands: %s)\n", WH_VERSION, wh_islands_built() ? "yes" : "no, built without MPI");
        return 0;
    }
    int n;
    const cli_command *commands = cli_commands(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "warphunt: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 1;
}
