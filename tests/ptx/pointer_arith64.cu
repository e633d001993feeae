/* pointer_arith64: 64-bit pointer arithmetic with a byte pitch and size_t indices.
 * Row r of a pitched matrix starts at (char *)base + r * pitch; out[r] = sum of row r's cols floats,
 * and offs[r] = (last element address - base) in bytes (a 64-bit pointer difference). */

extern "C" __global__ void pointer_arith64(const float *base, size_t pitch, int rows, int cols,
                                           float *out, long long *offs)
{
    size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= (size_t)rows)
        return;
    const float *row = (const float *)((const char *)base + r * pitch);
    const float *end = row + cols;
    float s = 0.0f;
    const float *p;
    for (p = row; p < end; p++)
        s += *p;
    out[r] = s;
    offs[r] = (long long)((const char *)(end - 1) - (const char *)base);
}
