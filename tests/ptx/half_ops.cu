/* half_ops: __half arithmetic (cuda_fp16.h).  out[i] = (float)(h(a)*h(b) + h(a)) and
 * cmp[i] = h(a) < h(b), with h() = round to half; all values exactly representable in half. */

#include <cuda_fp16.h>

extern "C" __global__ void half_ops(const float *a, const float *b, float *out, int *cmp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half ha = __float2half_rn(a[i]);
    __half hb = __float2half_rn(b[i]);
    __half r = __hadd(__hmul(ha, hb), ha);
    out[i] = __half2float(r);
    cmp[i] = __hlt(ha, hb) ? 1 : 0;
}
