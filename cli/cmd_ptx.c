/*
 * cmd_ptx.c — `warphunt ptx FILE.ptx [--cfg] [--dot] [--json]`: parse PTX and
 * print its kernels, blocks and control-flow graph; `warphunt ptx
 * --opcodes`: the opcodes warphunt knows and which engine runs each.
 */
#include "cli/cli.h"
#include "ptx/ptx.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
        "usage: warphunt ptx FILE.ptx [--cfg] [--dot] [--json]\n"
        "       warphunt ptx --opcodes\n"
        "\n"
        "Parse a PTX file (as emitted by nvcc, PTX ISA up to 9.x) and describe it.\n"
        "\n"
        "With no option, prints on stdout every kernel (.entry) and device function\n"
        "(.func): its parameters with offsets and sizes, register count by type,\n"
        "instruction count, basic blocks, conditional branches (blocks that end in a\n"
        "guarded bra: two legs each) and natural loops.\n"
        "\n"
        "options:\n"
        "  --cfg    print each function's basic blocks on stdout: instruction range,\n"
        "           PTX lines, successors (EXIT = the virtual exit), immediate\n"
        "           dominator, immediate post-dominator (the SIMT reconvergence\n"
        "           point), taken/fallthrough legs of conditional branches, loop\n"
        "           headers, then each loop's header, depth, latches and blocks\n"
        "  --dot    print the CFG as Graphviz DOT on stdout, one digraph per function\n"
        "           (conditional branch blocks are diamonds, edges labelled T/F)\n"
        "  --json   print a JSON summary on stdout:\n"
        "           {\"file\", \"version\", \"target\", \"address_size\",\n"
        "            \"kernels\": [{\"name\", \"params\", \"registers\", \"instructions\",\n"
        "                         \"blocks\", \"branches\", \"loops\", \"line\",\n"
        "                         \"param_bytes\", \"param_list\"}...],\n"
        "            \"functions\": [same for .func with a body]}\n"
        "           where \"params\" is the number of parameters and \"param_list\"\n"
        "           gives each one's name, type, size, offset, align, array, ptr;\n"
        "           \"branches\" counts conditional branches.\n"
        "  --opcodes  print (without a PTX file) every opcode the front end decodes\n"
        "           and whether the sim and the symbolic executor implement it, as a\n"
        "           Markdown table (narrower limits of each engine: README)\n"
        "  -h, --help  show this help\n"
        "\n"
        "Options combine; their outputs follow one another in the order summary\n"
        "(only when no other option is given), --cfg, --dot, --json.  With --json,\n"
        "stdout holds only the JSON and the --cfg / --dot text goes to stderr.\n"
        "\n"
        "Every instruction's operands are checked against its opcode: a .pred\n"
        "register where a value goes, or a value register where a predicate goes\n"
        "(setp's destination, selp's condition, guards...), is refused.\n"
        "\n"
        "Exit status: 0 success, 1 unreadable or malformed PTX (the message names\n"
        "file:line:column and the offending token or operand), 2 internal error.\n");
}

int cmd_ptx(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "cfg", no_argument, NULL, 'c' },
        { "dot", no_argument, NULL, 'd' },
        { "json", no_argument, NULL, 'j' },
        { "opcodes", no_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    bool cfg = false, dot = false, json = false, opcodes = false;
    optind = 1;
    int saved_opterr = opterr;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': cfg = true; break;
        case 'd': dot = true; break;
        case 'j': json = true; break;
        case 'o': opcodes = true; break;
        case 'h':
            opterr = saved_opterr;
            usage(stdout);
            return 0;
        default:
            opterr = saved_opterr;
            if (optopt) fprintf(stderr, "warphunt ptx: unknown option '-%c'\n", optopt);
            else fprintf(stderr, "warphunt ptx: unknown option '%s'\n", argv[optind - 1]);
            return cli_usage_hint("ptx");
        }
    }
    opterr = saved_opterr;
    if (opcodes) {
        if (optind != argc || cfg || dot || json) {
            fprintf(stderr, "warphunt ptx: --opcodes takes no PTX file and no other option\n");
            return 1;
        }
        ptx_print_opcodes(stdout);
        return fflush(stdout) == 0 ? 0 : 2;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "warphunt ptx: %s\n",
                optind >= argc ? "missing the PTX file" : "expected exactly one PTX file");
        return cli_usage_hint("ptx");
    }
    const char *path = argv[optind];
    wh_error err;
    wh_error_clear(&err);
    ptx_module *m = ptx_parse_file(path, &err);
    if (!m) return cli_report(&err);
    /* with --json, stdout holds only the JSON; the rest goes to stderr */
    FILE *text = json ? stderr : stdout;
    if (!cfg && !dot && !json) ptx_print_summary(text, m);
    if (cfg) ptx_print_cfg(text, m);
    if (dot) ptx_print_dot(text, m);
    int rc = 0;
    if (json && ptx_print_json(stdout, m) != 0) {
        wh_error_set(&err, WH_ERR_INTERNAL, NULL, 0, 0, "cannot write the JSON summary");
        rc = cli_report(&err);
    }
    if (fflush(stdout) != 0 && rc == 0) {
        wh_error_set(&err, WH_ERR_INTERNAL, NULL, 0, 0, "cannot write to stdout");
        rc = cli_report(&err);
    }
    ptx_module_free(m);
    return rc;
}
