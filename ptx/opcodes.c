/*
 * opcodes.c — the opcode table of opcodes.def by enum: names, operand
 * counts, classes and types for the decoder, which engine implements each opcode,
 * the example instance the support test runs, and the listing printed by
 * `warphunt ptx --opcodes` (and kept in the README).
 */
#include "ptx/internal.h"

static const ptx_opcode_row rows[PTX_OP_COUNT] = {
    [PTX_OP_UNKNOWN] = { PTX_OP_UNKNOWN, NULL, "unknown", 0, 0, false, "", "", 0, NULL },
#define PTX_OPCODE(id, kw, nm, lo, hi, dst, opd, ty, eng, ex) \
    [PTX_OP_##id] = { PTX_OP_##id, kw, nm, lo, hi, dst, opd, ty, eng, ex },
#include "ptx/opcodes.def"
#undef PTX_OPCODE
};

const ptx_opcode_row *ptx_opcode_info(ptx_opcode op)
{
    return &rows[(unsigned)op < PTX_OP_COUNT ? op : PTX_OP_UNKNOWN];
}

const char *ptx_opcode_name(ptx_opcode op)
{
    return ptx_opcode_info(op)->name;
}

unsigned ptx_opcode_engines(ptx_opcode op)
{
    return ptx_opcode_info(op)->engines;
}

const char *ptx_opcode_example(ptx_opcode op)
{
    return ptx_opcode_info(op)->example;
}

void ptx_print_opcodes(FILE *out)
{
    fprintf(out, "| opcode | sim | symbolic |\n|---|---|---|\n");
    for (int op = 1; op < PTX_OP_COUNT; op++) {
        unsigned e = rows[op].engines;
        fprintf(out, "| `%s` | %s | %s |\n", rows[op].name, (e & PTX_IN_SIM) ? "yes" : "no",
                (e & PTX_IN_SYM) ? "yes" : "no");
    }
}
