/*
 * cache.c — the sim's sector caches: an L1 per SM and an L2 for the
 * device, set-associative with least-recently-used replacement, of the
 * profile's sizes (memory.l1_bytes, l2_bytes; 0: no such cache, the model
 * of timing.c's header).  As on NVIDIA GPUs a way holds a line of four
 * sectors (128 bytes with 32-byte sectors) with a valid bit per sector:
 * a line is placed by its address, a sector is what hits or misses (the
 * unit the cost model counts), and a missing sector of a present line is
 * fetched into it without evicting anything.
 *
 * The arrays are kept by the program between runs (an L2 of 50 MB is 1.6 M
 * sectors); each run empties them by starting a new epoch: a way filled
 * in an earlier epoch is empty.
 */
#include "harness/sim/sim.h"

#include <stdlib.h>
#include <string.h>

void sim_cache_free(sim_cache *c)
{
    if (!c)
        return;
    free(c->tag);
    free(c->epoch);
    free(c->used);
    free(c->sectors);
    free(c);
}

/* A cache of `bytes` in sectors of sector_bytes, `ways` ways, `copies`
 * copies (one per SM for the L1), emptied for a new run: *slot's, when it
 * has that shape, else a new one.  NULL when bytes is 0 (no cache). */
sim_cache *sim_cache_for_run(sim_cache **slot, uint64_t bytes, int ways, int sector_bytes, int copies)
{
    if (!bytes) {
        sim_cache_free(*slot);
        *slot = NULL;
        return NULL;
    }
    if (ways < 1)
        ways = 1;
    uint64_t sets = bytes / ((uint64_t)sector_bytes * SIM_SECTORS_PER_LINE * (uint64_t)ways);
    if (sets < 1)
        sets = 1;
    sim_cache *c = *slot;
    if (!c || c->sets != sets || c->ways != ways || c->copies != copies) {
        sim_cache_free(c);
        c = wh_xcalloc(1, sizeof *c);
        size_t n = (size_t)(sets * (uint64_t)ways * (uint64_t)copies);
        c->tag = wh_xcalloc(n, sizeof *c->tag);
        c->epoch = wh_xcalloc(n, sizeof *c->epoch);
        c->used = wh_xcalloc(n, sizeof *c->used);
        c->sectors = wh_xcalloc(n, sizeof *c->sectors);
        c->sets = sets;
        c->ways = ways;
        c->copies = copies;
        *slot = c;
    }
    c->now++;   /* every way filled before is empty now */
    if (c->now == 0) {
        memset(c->epoch, 0, (size_t)(sets * (uint64_t)ways * (uint64_t)copies) * sizeof *c->epoch);
        c->now = 1;
    }
    c->tick = 0;
    return c;
}

bool sim_cache_access(sim_cache *c, int copy, uint64_t sector)
{
    uint64_t line = sector / SIM_SECTORS_PER_LINE;
    uint8_t bit = (uint8_t)(1u << (sector % SIM_SECTORS_PER_LINE));
    size_t base = ((size_t)copy * c->sets + (size_t)(line % c->sets)) * (size_t)c->ways;
    int victim = 0;
    uint32_t oldest = UINT32_MAX;
    c->tick++;
    for (int w = 0; w < c->ways; w++) {
        size_t i = base + (size_t)w;
        if (c->epoch[i] != c->now) {
            if (oldest != 0) {   /* an empty way is the first choice */
                victim = w;
                oldest = 0;
            }
            continue;
        }
        if (c->tag[i] == line + 1) {
            c->used[i] = c->tick;
            bool hit = c->sectors[i] & bit;
            c->sectors[i] |= bit;   /* a missing sector of a present line is fetched into it */
            return hit;
        }
        if (oldest != 0 && c->used[i] < oldest) {
            oldest = c->used[i];
            victim = w;
        }
    }
    size_t i = base + (size_t)victim;
    c->tag[i] = line + 1;
    c->sectors[i] = bit;
    c->epoch[i] = c->now;
    c->used[i] = c->tick;
    return false;
}
