/*
 * hash_insert (corpus, hashing): bulk insertion of key/value pairs into an
 * open-addressing hash table in global memory, one thread per pair: the
 * linear-probing GPU hash table of the "simple GPU hash table" style
 * (Alcantara et al.'s open addressing, as in cuCollections'
 * static_map::insert and NVIDIA's sample tables): the home slot is
 * Murmur3's 32-bit finalizer fmix32 of the key masked to the table size,
 * a slot is claimed with atomicCAS on its key word, and a full or foreign
 * slot sends the thread to the next one.  The probe count is bounded by
 * MAX_PROBES = 32: past it the insertion gives up and counts a failure
 * (atomicAdd on one counter), as bounded-probe tables do.
 *
 * Launch: grid 64 x block 256 = 16384 threads (1-D), one pair each; the
 * table has SLOTS = 2^15 slots (load factor 0.5 when every key is new).
 *
 * Inputs: keys (u32 in [1, 2^32 - 1]; 0 marks an empty slot, as the
 * output table is zeroed before the launch); vals is fixed (iota: the
 * value does not change the time).  Outputs: table_keys and table_vals
 * (the table), failures (one counter).
 *
 * Where the time depends on the data: the probe loop runs once per slot
 * examined, i.e. 1 + the length of the run of occupied foreign slots met
 * from the home slot, up to MAX_PROBES; a warp issues the longest chain of
 * its 32 lanes, and every atomicCAS of lanes aiming at one address is
 * serialised (lanes of a warp probing one slot: a 32-way same-address
 * atomic).  A key already present (equal keys) ends at that slot.  nvcc
 * unrolls the probe loop completely (32 copies of the CAS and its tests).
 *
 * Known worst (expert): 16384 distinct keys that all hash to one home
 * slot.  fmix32 is a bijection (xor-shifts and multiplications by odd
 * constants invert), so key = fmix32^-1(home + j * SLOTS) for j = 0, 1,
 * ... gives distinct keys with one home (the builder re-hashes them to
 * check): the first 32 keys fill the run home..home+31, every later key
 * walks all 32 slots, fails and counts itself on the one failure counter,
 * and every probe of a warp is 32 lanes on one address.  Measured on the
 * sim (bench_corpus --inputs-only): one home ("one-home", the reference)
 * 28290 cycles; two homes per warp 64 slots apart ("two-homes") 27693;
 * lane l of every warp homed at 64 l + 7 ("lane-homes-64": 32 runs, no
 * same-address contention inside a warp) 26502; all keys equal 18524;
 * the longest of 5 random inputs 14178 (probe chains of about 1.5 at load
 * 0.5, a few longer ones per warp): random testing reaches half of the
 * worst, and only a search that inverts the hash (Z3 can: it is
 * bit-vector arithmetic) or learns its structure gets there.
 * Known best: distinct keys with distinct homes, one per thread
 * ("spread-homes", key = fmix32^-1(2t + 1): no collision, one probe each)
 * 2760 cycles.  All keys equal is not cheap (18524): one thread claims the
 * slot and the 16383 others stop at their first probe, but all of their
 * atomicCAS calls serialise on that one address.
 *
 * Spec gap: none for the keys (any u32 but the empty marker 0).  Real
 * tables take the capacity at run time; here it is a compile-time power of
 * two, as in most GPU tables (the mask replaces a modulo).
 */
#define SLOTS 32768u
#define MAX_PROBES 32
#define EMPTY 0u

__device__ __forceinline__ unsigned fmix32(unsigned h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

extern "C" __global__ void hash_insert(const unsigned *keys, const unsigned *vals, unsigned *table_keys,
                                       unsigned *table_vals, unsigned *failures, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n)
        return;
    unsigned key = keys[tid];
    unsigned slot = fmix32(key) & (SLOTS - 1u);
    for (int probe = 0; probe < MAX_PROBES; probe++) {
        unsigned prev = atomicCAS(&table_keys[slot], EMPTY, key);
        if (prev == EMPTY || prev == key) {
            table_vals[slot] = vals[tid];
            return;
        }
        slot = (slot + 1u) & (SLOTS - 1u);
    }
    atomicAdd(failures, 1u);
}
