/*
 * report.c — printing errors the same way in every subcommand.
 */
#include "cli/cli.h"

#include <stdio.h>

int cli_report(const wh_error *err)
{
    char buf[2048];
    wh_error_format(err, buf, sizeof buf);
    fprintf(stderr, "warphunt: %s\n", buf);
    return wh_error_exit_status(err);
}
