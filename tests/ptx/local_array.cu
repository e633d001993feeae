/* local_array: a per-thread array indexed by data (forces .local memory).  Each thread
 * insertion-sorts its 16 values in[i*16 .. i*16+15] and writes them out sorted, plus
 * pick[i] = sorted[in[i*16] & 15] (a data-dependent index into the local array). */

#define K 16

extern "C" __global__ void local_array(const int *in, int *out, int *pick, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int a[K];
    for (int k = 0; k < K; k++)
        a[k] = in[i * K + k];
    for (int k = 1; k < K; k++) {
        int v = a[k];
        int j = k - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
    for (int k = 0; k < K; k++)
        out[i * K + k] = a[k];
    pick[i] = a[in[i * K] & (K - 1)];
}
