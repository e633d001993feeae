/*
 * fuzz_sim.c — libFuzzer harness for PTX -> emulator: bytes that parse as
 * PTX with a kernel get a spec made from the kernel's signature (a 64-bit
 * parameter is a 1 KiB input buffer, a 128-byte array a tensor map of 64 x
 * 8 u32 in boxes of 32 x 4, any other a scalar 1), one block of 32
 * threads, and one short run on the sim (step limit 10^5): hostile kernels
 * must end as ok / fault / timeout / unsupported, never as a crash.
 */
#include "core/image.h"
#include "core/spec.h"
#include "harness/harness.h"
#include "ptx/ptx.h"
#include "tests/fuzz/fuzz_file.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_spec(FILE *f, const ptx_function *k, const char *ptx_path)
{
    fprintf(f, "{\"name\":\"fuzz\",\"source\":\"fuzz.cu\",\"ptx\":\"%s\",\"entry\":\"%s\",\"grid\":[1],"
               "\"block\":[32],\"params\":[", ptx_path, k->name);
    for (int i = 0; i < k->nparams; i++) {
        if (ptx_type_size(k->params[i].type) == 8 && !k->params[i].is_array)
            fprintf(f, "%s{\"name\":\"p%d\",\"kind\":\"buffer\",\"type\":\"u32\",\"count\":256,\"role\":\"input\"}",
                    i ? "," : "", i);
        else if (k->params[i].is_array && k->params[i].size == PTX_TMAP_BYTES)
            fprintf(f, "%s{\"name\":\"p%d\",\"kind\":\"tensor_map\",\"type\":\"u32\",\"role\":\"input\","
                       "\"tensor_map\":{\"dims\":[64,8],\"box\":[32,4]}}", i ? "," : "", i);
        else
            fprintf(f, "%s{\"name\":\"p%d\",\"kind\":\"scalar\",\"type\":\"u32\",\"value\":1}", i ? "," : "", i);
    }
    fprintf(f, "]}\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wh_error err;
    wh_error_clear(&err);
    ptx_module *m = ptx_parse_buffer((const char *)data, size, "fuzz.ptx", &err);
    if (!m || m->nkernels == 0) {
        ptx_module_free(m);
        return 0;
    }
    const ptx_function *k = &m->funcs[m->kernels[0]];
    char ptx_path[64], spec_path[64];
    snprintf(spec_path, sizeof spec_path, "/tmp/wh_fuzz_sim_%ld.json", (long)getpid());
    FILE *g = fuzz_write_temp("sim", "ptx", data, size, ptx_path, sizeof ptx_path) ? fopen(spec_path, "w") : NULL;
    if (g) {
        write_spec(g, k, ptx_path);
        fclose(g);
    }
    ptx_module_free(m);
    wh_spec *s = wh_spec_load(spec_path, &err);
    if (s) {
        harness_options o;
        harness_options_init(&o);
        o.quiet = true;
        o.step_limit = 100000;
        harness *h = harness_open(s, HARNESS_SIM, &o, &err);
        wh_launch l = wh_spec_launch_full(s);
        wh_image *img = h ? wh_image_new(s, &l, &err) : NULL;
        harness_result res;
        if (img && harness_measure(h, img, 1, &res, &err))
            harness_result_free(&res);
        wh_image_free(img);
        if (h) harness_close(h);
        wh_spec_free(s);
    }
    unlink(ptx_path);
    unlink(spec_path);
    return 0;
}
