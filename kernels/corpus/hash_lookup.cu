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
 * Known worst (expert): a table with no empty slot and queries that meet
 * their key at the last allowed probe (or never): every lane walks 32
 * slots.  Measured on the sim (bench_corpus --inputs-only):
 * "hit-at-32-random" (random queries, each stored 31 slots after its home
 * when that slot is free, every other slot a foreign key: 32 probes and a
 * value load per lane; the reference) 10863 cycles; "hit-at-32" (1024
 * distinct queries homed 32 slots apart, lanes of a warp in sectors of
 * their own, each stored at its last probe) 10631; "miss-lane-homes" (the
 * same homes, no query in the table) 10416; "miss-random" (random
 * queries, no query in the table) 10398; the longest of 5 random inputs
 * 10792.  Random testing is at the worst here (within 1 %): a random
 * table has (almost surely) no empty slot and no key equal to a random
 * query, so every random query walks all 32 slots, and random homes
 * scatter the lanes over sectors as well as the expert's do (better than
 * the regular lane homes: neighbouring warps then reuse sectors).
 * Known best: an empty table (every query stops at its first probe):
 * 2137 cycles.
 *
 * Spec gap: a real table is the output of the insert kernel (at most a
 * load factor below 1, every key within MAX_PROBES of its home, each key
 * once); the spec cannot state those invariants, so table_keys is any
 * array of u32 and a search may build tables insert could not.  The
 * table is a shared input (no thread owns a slot).
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
