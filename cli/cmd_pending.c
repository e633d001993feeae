/*
 * cmd_pending.c — subcommands whose stage is not built yet.
 *
 * Each says so plainly and exits with status 2, rather than pretending.
 * A stage's issue removes its entry here when it adds cli/cmd_NAME.c.
 */
#include "cli/cli.h"

#include <stdio.h>

static int pending(const char *name, const char *what)
{
    fprintf(stderr, "warphunt %s: not implemented yet (%s).\n", name, what);
    return 2;
}

int cmd_explore(int argc, char **argv) { (void)argc; (void)argv; return pending("explore", "needs the symbolic executor"); }
int cmd_measure(int argc, char **argv) { (void)argc; (void)argv; return pending("measure", "needs the sim backend"); }
int cmd_hunt(int argc, char **argv)    { (void)argc; (void)argv; return pending("hunt", "needs the genetic search"); }
int cmd_compare(int argc, char **argv) { (void)argc; (void)argv; return pending("compare", "needs the genetic search"); }
int cmd_replay(int argc, char **argv)  { (void)argc; (void)argv; return pending("replay", "needs the harness"); }
