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

typedef int (*wh_command_fn)(int argc, char **argv);

int cmd_ptx(int argc, char **argv);
int cmd_explore(int argc, char **argv);
int cmd_measure(int argc, char **argv);
int cmd_hunt(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_replay(int argc, char **argv);

/* Print "warphunt: <formatted error>" on stderr and return its exit status. */
int cli_report(const wh_error *err);

#endif
