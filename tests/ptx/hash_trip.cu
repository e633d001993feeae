/* hash_trip: a loop whose trip count is a hash of the input, one of the
 * symbolic stage's stress kernels (issue #16).  Thread i mixes key[i] with
 * MurmurHash3's 32-bit finalizer and iterates (h & 63) + 1 times: every
 * trip count is reachable, but only through the hash, so each path the
 * stage takes asks the solver to invert two multiplications and three
 * xor-shifts.  out[i] receives the loop's accumulator.  mix32 is
 * kernels/corpus/fmix32.h's fmix32, copied so that the .cu stands alone
 * (as the corpus's hashing kernels do). */

static __device__ unsigned mix32(unsigned h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

extern "C" __global__ void hash_trip(const unsigned *key, unsigned *out, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    unsigned n = (mix32(key[i]) & 63u) + 1u;
    unsigned acc = key[i];
#pragma unroll 1
    for (unsigned k = 0; k < n; k++)
        acc = acc * 31u + k;
    out[i] = acc;
}
