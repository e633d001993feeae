/*
 * pool_io.c — saving an atom pool for checkpoints, and loading it back.
 *
 * Format (native endianness): a header (magic "WHPOOL02", X, atom size),
 * then one record per atom: origin, path, valid, and the atom's bytes.
 * Atoms never change once added, so a checkpoint appends only the atoms
 * added since the last one; a crash in the middle of an append leaves a
 * partial last record, which loading ignores.
 */
#include "gen/gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_MAGIC "WHPOOL02"

typedef struct {
    char magic[8];
    int64_t x, atom_bytes;
} pool_header;

typedef struct {
    int32_t origin, path, valid, pad;
} atom_record;

static bool write_atoms(const gen_pool *pool, FILE *f, int from)
{
    for (int i = from; i < pool->natoms; i++) {
        atom_record r = { pool->atoms[i].origin, pool->atoms[i].path, pool->atoms[i].valid, 0 };
        if (fwrite(&r, sizeof r, 1, f) != 1) return false;
        if (pool->atom_bytes &&
            fwrite(pool->data + (size_t)i * pool->atom_bytes, 1, pool->atom_bytes, f) != pool->atom_bytes)
            return false;
    }
    return true;
}

bool gen_pool_save(const gen_pool *pool, const char *path, int from, wh_error *err)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(from > 0 ? path : tmp, from > 0 ? "ab" : "wb");
    if (!f) {
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "cannot write: %s", strerror(errno));
        return false;
    }
    bool ok = true;
    if (from <= 0) {
        pool_header h;
        memset(&h, 0, sizeof h);
        memcpy(h.magic, POOL_MAGIC, 8);
        h.x = pool->x;
        h.atom_bytes = (int64_t)pool->atom_bytes;
        ok = fwrite(&h, sizeof h, 1, f) == 1;
    }
    ok = ok && write_atoms(pool, f, from > 0 ? from : 0);
    if (fclose(f) != 0) ok = false;
    if (ok && from <= 0 && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "cannot write the atom pool: %s", strerror(errno));
        if (from <= 0) remove(tmp);
    }
    return ok;
}

bool gen_pool_load(gen_pool *pool, const char *path, wh_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "cannot open the atom pool: %s", strerror(errno));
        return false;
    }
    pool_header h;
    const char *why = NULL;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, POOL_MAGIC, 8)) why = "not a warphunt atom pool";
    else if (h.x != pool->x || h.atom_bytes != (int64_t)pool->atom_bytes) why = "saved for another X or another spec";
    pool->natoms = 0;
    unsigned char *blob = malloc(pool->atom_bytes ? pool->atom_bytes : 1);
    if (!blob && !why) why = "out of memory";
    while (!why) {
        atom_record r;
        if (fread(&r, sizeof r, 1, f) != 1) break;
        if (pool->atom_bytes && fread(blob, 1, pool->atom_bytes, f) != pool->atom_bytes) break; /* torn tail */
        wh_error e2;
        int id = gen_pool_add(pool, pool->ref, (gen_atom_origin)r.origin, r.path, r.valid != 0, &e2);
        if (id < 0) {
            why = "out of memory";
            break;
        }
        memcpy(pool->data + (size_t)id * pool->atom_bytes, blob, pool->atom_bytes);
    }
    free(blob);
    fclose(f);
    if (why) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "%s", why);
        pool->natoms = 0;
        return false;
    }
    return true;
}
