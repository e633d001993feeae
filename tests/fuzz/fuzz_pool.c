/*
 * fuzz_pool.c — libFuzzer harness for the atom-pool reader (pool.bin of a
 * run directory, read back by --resume): any bytes, against the pool of a
 * small fixed spec; a damaged file must be refused with a clean message.
 */
#include "core/spec.h"
#include "gen/gen.h"
#include "tests/fuzz/fuzz_file.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char SPEC[] =
    "{\"name\":\"fuzz\",\"source\":\"fuzz.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[32],"
    "\"params\":[{\"name\":\"a\",\"kind\":\"buffer\",\"type\":\"i32\",\"count\":\"threads\","
    "\"role\":\"input\",\"per_thread\":1,\"range\":[0,100]},"
    "{\"name\":\"b\",\"kind\":\"buffer\",\"type\":\"u8\",\"count\":\"threads\",\"role\":\"output\"}]}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wh_spec *spec;
    char path[64];
    wh_error err;
    wh_error_clear(&err);
    if (!spec) {
        if (!fuzz_write_temp("pool", "json", SPEC, sizeof SPEC - 1, path, sizeof path)) return 0;
        spec = wh_spec_load(path, &err);
        unlink(path);
        if (!spec) return 0;
    }
    if (!fuzz_write_temp("pool", "bin", data, size, path, sizeof path)) return 0;
    gen_pool pool;
    if (gen_pool_init(&pool, spec, 2, &err)) {
        gen_pool_load(&pool, path, &err);
        gen_pool_free(&pool);
    }
    unlink(path);
    return 0;
}
