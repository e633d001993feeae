/*
 * fuzz_spec.c — libFuzzer harness for the kernel-spec loader: any bytes as
 * a spec file (JSON, expressions, launch, parameters, limits); an error must
 * be a clean message.  Images are not built (their size is the spec's to
 * choose, up to the 4 GiB limit).
 */
#include "core/spec.h"
#include "tests/fuzz/fuzz_file.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (!fuzz_write_temp("spec", "json", data, size, path, sizeof path)) return 0;
    wh_error err;
    wh_error_clear(&err);
    wh_spec *s = wh_spec_load(path, &err);
    wh_spec_free(s);
    unlink(path);
    return 0;
}
