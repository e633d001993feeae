/*
 * report.c — printing errors the same way in every subcommand.
 */
#include "cli/cli.h"

#include <stdio.h>

int cli_report(const wh_error *err)
{
    if (!wh_error_is_set(err)) {
        /* a failure that set no error is a bug of ours, said as one */
        fprintf(stderr, "warphunt: internal error: a step failed without saying why (please report it)\n");
        return 2;
    }
    char buf[2048];
    wh_error_format(err, buf, sizeof buf);
    fprintf(stderr, "warphunt: %s\n", buf);
    return wh_error_exit_status(err);
}
