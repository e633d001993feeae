/*
 * test_manual.c — the documentation covers every command: the manual page
 * (cli/warphunt.1) has a section for each subcommand the program
 * dispatches, the README's command list names each, and each answers
 * --help with its usage.
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Test(manual, every_command_is_in_the_manual_the_readme_and_its_help)
{
    int n;
    const cli_command *commands = cli_commands(&n);
    cr_assert_geq(n, 8);
    char *manual = strdup(ts_read_text("cli/warphunt.1"));
    char *readme = strdup(ts_read_text("README.md"));
    char tmp[] = "/tmp/wh_manual_XXXXXX";
    cr_assert(mkdtemp(tmp));
    char out[128];
    snprintf(out, sizeof out, "%s/help.txt", tmp);
    for (int i = 0; i < n; i++) {
        char section[64], listed[64], usage[64];
        snprintf(section, sizeof section, "\n.SS %s ", commands[i].name);
        snprintf(listed, sizeof listed, "\nwarphunt %s ", commands[i].name);
        snprintf(usage, sizeof usage, "usage: warphunt %s ", commands[i].name);
        cr_expect(strstr(manual, section), "cli/warphunt.1 has no \".SS %s\" section", commands[i].name);
        cr_expect(strstr(readme, listed), "README's command list lacks `warphunt %s`", commands[i].name);
        const char *help[] = { "--help" };
        cr_expect_eq(ts_run_cmd(commands[i].fn, commands[i].name, help, 1, out, NULL), 0, "%s --help",
                     commands[i].name);
        cr_expect(strncmp(ts_read_text(out), usage, strlen(usage)) == 0, "%s --help begins: %.60s",
                  commands[i].name, ts_read_text(out));
    }
    free(manual);
    free(readme);
    ts_rmtree(tmp);
}
