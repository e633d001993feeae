/*
 * pool_io.c — saving an atom pool for checkpoints, and loading it back.
 *
 * Format (native endianness): a header (magic "WHPOOL03", X, the sizes of
 * an atom's per-thread and shared inputs), then one record per atom:
 * origin, path, valid, whether it has shared inputs, its per-thread bytes,
 * then its shared bytes if it has them.
 * Atoms never change once added, so a checkpoint appends only the atoms
 * added since the last one; a crash in the middle of an append leaves a
 * partial last record, which loading ignores.
 */
#include "gen/gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_MAGIC "WHPOOL03"

typedef struct {
    char magic[8];
    int64_t x, thread_bytes, shared_bytes;
} pool_header;

typedef struct {
    int32_t origin, path, valid, has_shared;
} atom_record;

static bool write_part(const unsigned char *data, size_t n, FILE *f)
{
    return n == 0 || fwrite(data, 1, n, f) == n;
}

static bool write_atoms(const gen_pool *pool, FILE *f, int from)
{
    for (int i = from; i < pool->natoms; i++) {
        const gen_atom *a = &pool->atoms[i];
        atom_record r = { a->origin, a->path, a->valid, a->shared >= 0 };
        if (fwrite(&r, sizeof r, 1, f) != 1 ||
            !write_part(pool->data + (size_t)i * pool->thread_bytes, pool->thread_bytes, f) ||
            (a->shared >= 0 && !write_part(pool->sdata + (size_t)a->shared * pool->shared_bytes,
                                           pool->shared_bytes, f)))
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
        h.thread_bytes = (int64_t)pool->thread_bytes;
        h.shared_bytes = (int64_t)pool->shared_bytes;
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
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, "WHPOOL", 6)) why = "not a warphunt atom pool";
    else if (memcmp(h.magic, POOL_MAGIC, 8)) why = "an atom pool of an older warphunt (start the run again)";
    else if (h.x != pool->x || h.thread_bytes != (int64_t)pool->thread_bytes ||
             h.shared_bytes != (int64_t)pool->shared_bytes)
        why = "saved for another X or another spec";
    pool->natoms = pool->nshared = 0;
    size_t tb = pool->thread_bytes, sb = pool->shared_bytes;
    unsigned char *blob = malloc(tb + sb + 1);
    if (!blob && !why) why = "out of memory";
    while (!why) {
        atom_record r;
        if (fread(&r, sizeof r, 1, f) != 1) break;
        size_t want = tb + (r.has_shared ? sb : 0);
        if (want && fread(blob, 1, want, f) != want) break; /* torn tail */
        wh_error e2;
        int id = gen_pool_reserve(pool, (gen_atom_origin)r.origin, r.path, r.valid != 0, r.has_shared != 0, &e2);
        if (id < 0) {
            why = "out of memory";
            break;
        }
        memcpy(pool->data + (size_t)id * tb, blob, tb);
        if (pool->atoms[id].shared >= 0) memcpy(pool->sdata + (size_t)pool->atoms[id].shared * sb, blob + tb, sb);
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
