/* early_return: several early exits.  For i < n and v = in[i]: out[i] = 0 if v < 0, 1 if v == 0,
 * 2 if v is a power of two, otherwise the number of trailing zero bits of v (out[i] untouched for i >= n). */

extern "C" __global__ void early_return(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    if (v < 0) {
        out[i] = 0;
        return;
    }
    if (v == 0) {
        out[i] = 1;
        return;
    }
    if ((v & (v - 1)) == 0) {
        out[i] = 2;
        return;
    }
    int k = 0;
    while ((v & 1) == 0) {
        v >>= 1;
        k++;
    }
    out[i] = k;
}
