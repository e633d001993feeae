/* loop_unroll: the same polynomial hash with three unroll pragmas.
 * h = fold over k in [0, len) of h = h * 31 + in[i*len + k], h starts at 7; out_{full,four,one}[i] all equal.
 * The full unroll uses the fixed length 8 (first 8 elements, len >= 8 required). */

extern "C" __global__ void loop_unroll(const unsigned *in, unsigned *out_full,
                                       unsigned *out_four, unsigned *out_one,
                                       int len, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    const unsigned *p = in + (size_t)i * len;

    unsigned h = 7u;
    #pragma unroll
    for (int k = 0; k < 8; k++)
        h = h * 31u + p[k];
    out_full[i] = h;

    h = 7u;
    #pragma unroll 4
    for (int k = 0; k < len; k++)
        h = h * 31u + p[k];
    out_four[i] = h;

    h = 7u;
    #pragma unroll 1
    for (int k = 0; k < len; k++)
        h = h * 31u + p[k];
    out_one[i] = h;
}
