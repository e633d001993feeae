/*
 * pool_io.c — saving an atom pool for checkpoints, and loading it back.
 *
 * Format (native endianness): magic "WHPOOL01", X, atom size, atom count,
 * then each atom's origin/path/valid record, then all blobs.
 */
#include "gen/gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_MAGIC "WHPOOL01"

typedef struct {
    char magic[8];
    int64_t x, atom_bytes, natoms;
} pool_header;

typedef struct {
    int32_t origin, path, valid, pad;
} atom_record;

bool gen_pool_save(const gen_pool *pool, const char *path, wh_error *err)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        wh_error_set(err, WH_ERR_INTERNAL, tmp, 0, 0, "cannot write: %s", strerror(errno));
        return false;
    }
    pool_header h = { { 0 }, pool->x, (int64_t)pool->atom_bytes, pool->natoms };
    memcpy(h.magic, POOL_MAGIC, 8);
    bool ok = fwrite(&h, sizeof h, 1, f) == 1;
    for (int i = 0; ok && i < pool->natoms; i++) {
        atom_record r = { pool->atoms[i].origin, pool->atoms[i].path, pool->atoms[i].valid, 0 };
        ok = fwrite(&r, sizeof r, 1, f) == 1;
    }
    size_t bytes = (size_t)pool->natoms * pool->atom_bytes;
    if (ok && bytes) ok = fwrite(pool->data, 1, bytes, f) == bytes;
    if (fclose(f) != 0) ok = false;
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        wh_error_set(err, WH_ERR_INTERNAL, path, 0, 0, "cannot write the atom pool: %s", strerror(errno));
        remove(tmp);
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
    else if (h.x != pool->x || h.atom_bytes != (int64_t)pool->atom_bytes || h.natoms < 0 || h.natoms > (1 << 30))
        why = "saved for another X or another spec";
    pool->natoms = 0;
    for (int64_t i = 0; !why && i < h.natoms; i++) {
        atom_record r;
        wh_error e2;
        if (fread(&r, sizeof r, 1, f) != 1) { why = "truncated"; break; }
        /* Grow through gen_pool_add with the reference image, then overwrite. */
        if (gen_pool_add(pool, pool->ref, (gen_atom_origin)r.origin, r.path, r.valid != 0, &e2) < 0) {
            why = "out of memory";
            break;
        }
    }
    size_t bytes = (size_t)pool->natoms * pool->atom_bytes;
    if (!why && bytes && fread(pool->data, 1, bytes, f) != bytes) why = "truncated";
    fclose(f);
    if (why) {
        wh_error_set(err, WH_ERR_USER, path, 0, 0, "%s", why);
        pool->natoms = 0;
        return false;
    }
    return true;
}
