/* heap_use: device-side malloc and free.  Thread t allocates room for
 * in[t] ints (plus `extra` bytes), fills and sums them, and frees the
 * block; a NULL from malloc (the heap spent) is recorded as -1.  The sim's
 * device heap is CUDA's default 8 MiB (tests/test_sim_errors.c). */
extern "C" __global__ void heap_use(const int *in, int *out, int extra)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int n = in[t];
    int *p = (int *)malloc((size_t)n * sizeof(int) + (size_t)extra);
    if (!p) {
        out[t] = -1;
        return;
    }
    for (int k = 0; k < n; k++)
        p[k] = k * t;
    int s = 0;
    for (int k = 0; k < n; k++)
        s += p[k];
    out[t] = s;
    free(p);
}
