/*
 * fuzz_paths.c — libFuzzer harness for the paths.json reader behind the
 * explore cache (gen_paths_json_read, called when a hunt or explore reuses
 * an earlier exploration): any bytes as paths.json; a damaged or hostile
 * file must be refused with a clean message, and what an accepted one
 * yields must be consistent enough for the code that walks it.
 */
#include "gen/internal.h"
#include "tests/fuzz/fuzz_file.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the callers rely on after a successful read (cmd_explore's table,
 * arrange.c and family.c walk paths[i].first_atom .. + natoms): checked
 * here so that a reader accepting an incoherent file is a finding. */
static void check_result(const gen_result *r)
{
    if (r->x <= 0 || r->npaths < 0 || r->nxs < 0 || r->nuncovered < 0) abort();
    long next = 0;
    for (int i = 0; i < r->npaths; i++) {
        const gen_path *p = &r->paths[i];
        if (p->first_atom != next || p->natoms < 0 || p->nvalid < 0 || p->nvalid > p->natoms) abort();
        next += p->natoms;
    }
    for (int i = 0; i < r->nuncovered; i++)
        if (!r->uncovered[i]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (!fuzz_write_temp("paths", "json", data, size, path, sizeof path)) return 0;
    /* gen_result_free frees the struct too, so it lives on the heap; the
     * pool stays zeroed (the cache loads it from atoms.bin, fuzz_pool's). */
    gen_result *r = calloc(1, sizeof *r);
    if (r) {
        wh_error err;
        wh_error_clear(&err);
        if (gen_paths_json_read(r, path, false, &err)) check_result(r);
        else if (!err.msg[0]) abort(); /* refused without saying why */
        gen_result_free(r);
    }
    unlink(path);
    return 0;
}
