/* vec_add: c[i] = a[i] + b[i] for i < n (one thread per element, bounds-checked).
 * Reference: c[i] == a[i] + b[i]. */

extern "C" __global__ void vec_add(const int *a, const int *b, int *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
