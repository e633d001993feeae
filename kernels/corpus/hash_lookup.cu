/*
 * hash_lookup (corpus, hashing): bulk lookup in an open-addressing hash
 * table in global memory, one query per thread: the find of a
 * linear-probing GPU table (cuCollections' static_map::find, the "simple
 * GPU hash table" style): the home slot is Murmur3's fmix32 of the query
 * masked to the table size; the thread walks the slots from there until
 * it finds the key (and reads its value), an empty slot (the key is
 * absent), or MAX_PROBES = 32 slots (the bound the insert kernel keeps,
 * see hash_insert.cu: no key lies further than that from its home).
 *
 * Launch: grid 64 x block 256 = 16384 threads (1-D), one query each; the
 * table has SLOTS = 2^15 slots.
 *
 * Inputs: queries (u32 in [1, 2^32 - 1], one per thread) and table_keys
 * (the table's key words, shared by every thread, 0 = empty); table_vals
 * is fixed (iota: the value found does not change the time).  Output:
 * results (the value, or 0xffffffff when absent).
 *
 * Where the time depends on the data: the probe loop runs once per slot
 * examined (1 + the foreign occupied slots met before the match or the
 * empty slot, at most 32); a warp issues its longest lane, each probe
 * touches one 32-byte sector per distinct sector among the lanes, and a
 * hit adds the load of the value.  nvcc unrolls the probe loop completely
 * (32 copies of the load and its two tests).
 *
 * The table (session 33) is one an insert could build, at load factor at
 * most 1/2 (the spec's "hash_table": fmix32 homes, at most MAX_PROBES
 * probes, at most SLOTS / 2 keys; the corpus's choice of a sized table: a
 * full one makes every miss walk all 32 slots, which random testing
 * reached within 1 % when any u32 array was a table, before session 33).
 *
 * Known worst (expert): clusters of 32 occupied slots whose last key homes
 * at the cluster's first slot, and queries for those last keys: every
 * lane walks 32 slots and hits at the last.  16384 keys make 512 such
 * clusters (32 occupied slots, 32 empty ones); query t asks cluster
 * t mod 512, so the lanes of a warp walk clusters of their own.  Measured
 * on the sim (bench_corpus --inputs-only): clusters starting at the last
 * slot of a 32-byte sector ("hit-at-32-unaligned", a walk over 5 sectors;
 * the reference) 11129 cycles; clusters aligned to sectors (4 sectors)
 * 10405; the same queries missing (a key homed at the cluster's first
 * slot that the table lacks) 10165; every key of a cluster homed at its
 * first slot and lane l asking key l (exits at every probe) 10917; the
 * clusters with random queries 10147; the longest of 5 random inputs
 * (random tables of 16384 keys
 * inserted one by one, random queries) 9833: a random lookup walks 2.5
 * slots on average and its warp's longest lane about 10 (counted in a
 * Python model of the same inserts), yet the time is 88 % of the worst's,
 * presumably because a walk's first load misses the caches and its next
 * slots are mostly in the same sector (not measured apart).
 * The search goes much further on the sim: gdivan's bests (session 33,
 * bench/corpus_session33_hash.md) run up to 17440 cycles, 1.57 of the
 * reference (1.50 on average over 5 seeds).  One seed's best (seed 2 of a
 * first run with the same search), 17444 cycles: half the table one
 * cluster of 16384 occupied slots, the other half empty; in 479 of the
 * 512 warps half the lanes ask one key whose home is empty (out at the
 * first probe) and half one key that walks 32 occupied slots, every such
 * warp the same two keys; in the other warps each lane its own key, half
 * of them walking 32 slots.  The same table with every warp asking those
 * two keys runs 9749 cycles (the "hot-walk" candidate builds the like:
 * 9749), with random keys homed in the cluster for every lane 10449;
 * explain names the own-key warps' loads (memory stalls, 91 % of the
 * critical warp).  The cause is the sim's memory model: it charges DRAM
 * latency at each sector's first touch in a run (a cold L2), and the
 * own-key warps walk sectors no other warp touched first, where in the
 * all-random input other warps warmed most of them: with the profile's
 * dram_latency set to 0 the same input runs 9141 cycles, the all-random
 * one 9381 (measured with `measure --profile`).  A GPU measured
 * with a warm L2 (the cuda backend's default: warm-up launches before
 * each measurement) holds the whole 128 KiB table in its L2, so this
 * input should not be slow there: to be measured (issue 24's fidelity).
 * Known best: an empty table (every query stops at its first probe):
 * 2137 cycles.
 *
 * Spec gap: none for the table's invariants since session 33 (before, the
 * spec could not state them, and any array of u32 was a table).  The table
 * is a shared input (no thread owns a slot); the symbolic stage does not
 * assume the table of 32768 slots (more than SX_TABLE_SLOTS): its atoms
 * may break it, and every input the search measures is brought to one.
 */
#define SLOTS 32768u
#define MAX_PROBES 32
#define EMPTY 0u
#define NOT_FOUND 0xffffffffu

__device__ __forceinline__ unsigned fmix32(unsigned h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

extern "C" __global__ void hash_lookup(const unsigned *queries, const unsigned *table_keys,
                                       const unsigned *table_vals, unsigned *results, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n)
        return;
    unsigned key = queries[tid];
    unsigned slot = fmix32(key) & (SLOTS - 1u);
    unsigned result = NOT_FOUND;
    for (int probe = 0; probe < MAX_PROBES; probe++) {
        unsigned k = table_keys[slot];
        if (k == key) {
            result = table_vals[slot];
            break;
        }
        if (k == EMPTY)
            break;
        slot = (slot + 1u) & (SLOTS - 1u);
    }
    results[tid] = result;
}
