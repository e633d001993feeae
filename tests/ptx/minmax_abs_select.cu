/* minmax_abs_select: min/max/abs and ternary selects (selp / min / max / abs PTX ops).
 * out[i*6 + k] = min(a,b), max(a,b), abs(a), umin(ua,ub), clamp(a, -100, 100), a > b ? a - b : b - a + 1. */

extern "C" __global__ void minmax_abs_select(const int *a, const int *b, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], y = b[i];
    int *o = out + i * 6;
    o[0] = min(x, y);
    o[1] = max(x, y);
    o[2] = abs(x);
    o[3] = (int)umin((unsigned)x, (unsigned)y);
    o[4] = x < -100 ? -100 : (x > 100 ? 100 : x);
    o[5] = x > y ? x - y : y - x + 1;
}
