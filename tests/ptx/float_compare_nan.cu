/* float_compare_nan: ordered and unordered float comparisons with NaN and infinities.
 * out[i] = bit mask: 1 a<b, 2 a<=b, 4 a==b, 8 a!=b, 16 isnan(a), 32 isinf(a), 64 signbit(a), 128 !(a>=b). */

extern "C" __global__ void float_compare_nan(const float *a, const float *b, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i];
    int m = 0;
    if (x < y) m |= 1;
    if (x <= y) m |= 2;
    if (x == y) m |= 4;
    if (x != y) m |= 8;
    if (isnan(x)) m |= 16;
    if (isinf(x)) m |= 32;
    if (signbit(x)) m |= 64;
    if (!(x >= y)) m |= 128;
    out[i] = m;
}
