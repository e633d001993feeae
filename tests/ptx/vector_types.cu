/* vector_types: vector loads/stores (ld.global.v4.f32, v2.s32).  out4[i] = in4[i] * k (per component),
 * out2[i] = (in2[i].y, in2[i].x) (swapped), dot[i] = in4[i].x*in4[i].y + in4[i].z*in4[i].w. */

extern "C" __global__ void vector_types(const float4 *in4, float4 *out4, const int2 *in2, int2 *out2,
                                        float *dot, float k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 a = in4[i];
    out4[i] = make_float4(a.x * k, a.y * k, a.z * k, a.w * k);
    int2 b = in2[i];
    out2[i] = make_int2(b.y, b.x);
    dot[i] = a.x * a.y + a.z * a.w;
}
