/*
 * fuzz_ptx.c — libFuzzer harness for the PTX front end: any bytes are parsed
 * (lexer, parser, decoder with its operand checks, CFG, dominators, loops)
 * and, when they parse, printed as JSON; an error must be a clean message.
 */
#include "ptx/ptx.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wh_error err;
    wh_error_clear(&err);
    ptx_module *m = ptx_parse_buffer((const char *)data, size, "fuzz.ptx", &err);
    if (m) {
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            ptx_print_json(null, m);
            ptx_print_cfg(null, m);
            fclose(null);
        }
        ptx_module_free(m);
    }
    return 0;
}
