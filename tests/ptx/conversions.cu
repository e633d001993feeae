/* conversions: float <-> integer conversions with explicit rounding modes, saturation and
 * sign/zero extension.  out[i*12 + k]: see the comments; reference = C with fesetround or by hand. */

extern "C" __global__ void conversions(const float *f, const int *v, long long *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = f[i];
    int w = v[i];
    long long *o = out + i * 12;
    o[0] = __float2int_rn(x);                  /* nearest even */
    o[1] = __float2int_rz(x);                  /* toward zero */
    o[2] = __float2int_ru(x);                  /* up */
    o[3] = __float2int_rd(x);                  /* down */
    o[4] = (long long)__float2uint_rz(x);      /* saturates negatives to 0 */
    o[5] = __float2ll_rn(x * 1.0e6f);
    o[6] = (long long)(signed char)w;          /* low byte, sign-extended */
    o[7] = (long long)(unsigned short)w;       /* low half, zero-extended */
    o[8] = (long long)(short)w;                /* low half, sign-extended */
    o[9] = (long long)(unsigned)w;             /* zero-extend to 64 bits */
    o[10] = (long long)__float_as_int((float)w);          /* int -> float rn, bits */
    o[11] = (long long)__float_as_int(__int2float_rz(w)); /* int -> float rz, bits */
}
