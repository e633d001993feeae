/*
 * hash_probe.cu — a lookup in a small open-addressing table with linear
 * probing and Murmur3's fmix32 (tests/specs/hash_probe.json: a
 * "hash_table" input): probes[t] is how many occupied foreign slots query
 * t walked past before its key or an empty slot, at most max_probes.
 */
__device__ __forceinline__ unsigned fmix32(unsigned h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

extern "C" __global__ void hash_probe(const unsigned *queries, const unsigned *keys, unsigned *probes,
                                      unsigned slots, int max_probes)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned q = queries[t], s = fmix32(q) % slots;
    int p = 0;
    while (p < max_probes) {
        unsigned k = keys[s];
        if (k == q || k == 0u)
            break;
        s = (s + 1u) % slots;
        p++;
    }
    probes[t] = (unsigned)p;
}
