/* float_approx: fast-math intrinsics that compile to .approx / .ftz PTX ops.
 * out[i*8 + k] = __sinf, __cosf, __expf, __logf, __fdividef(x, y), rsqrtf, __powf, __saturatef
 * of x = in[i], y = 1 + |x|; a C reference checks them with a tolerance (x in [-10, 10], x > 0 for the logs). */

extern "C" __global__ void float_approx(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
    float y = 1.0f + fabsf(x);
    float *o = out + i * 8;
    o[0] = __sinf(x);
    o[1] = __cosf(x);
    o[2] = __expf(x);
    o[3] = __logf(y);
    o[4] = __fdividef(x, y);
    o[5] = rsqrtf(y);
    o[6] = __powf(y, 0.5f);
    o[7] = __saturatef(x);
}
