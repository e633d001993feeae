/* alias_slot: thread 0 inserts into a 2048-slot table (8 KB, larger than
 * SX_ARRAY_REGION_MAX, so its symbolic offsets are pinned) at its key's
 * multiplicative hash; after the barrier thread 1 probes the slot of its
 * own key and walks on when it is taken.  Both sides of the probe exist
 * only if the executor asks whether the two keys meet on one slot (the
 * alias fork of symexec/memory.c).  Compiled by hand to alias_slot.ptx
 * (nvcc -ptx -arch=sm_80 -lineinfo). */

extern "C" __global__ void alias_slot(const unsigned *keys, int *table, int *out)
{
    int t = threadIdx.x;
    unsigned slot = (keys[t] * 2654435761u) >> 21;
    if (t == 0)
        table[slot] = 1;
    __syncthreads();
    if (t == 1) {
        int probes = 0;
        while (table[slot] != 0 && probes < 4) {
            slot = (slot + 1) & 2047;
            probes++;
        }
        out[0] = probes;
    }
}
