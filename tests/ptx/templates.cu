/* templates: a templated __noinline__ device function (mangled .func names) instantiated for
 * int, float and unsigned long long, called from extern "C" kernels.  out[i] = dot of the
 * 4-element rows x[4i..4i+3] and y[4i..4i+3] in the element type. */

template <typename T, int N>
__device__ __noinline__ T dot_n(const T *x, const T *y)
{
    T s = T(0);
    #pragma unroll
    for (int k = 0; k < N; k++)
        s += x[k] * y[k];
    return s;
}

template <typename T>
__device__ __forceinline__ void dot_rows(const T *x, const T *y, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = dot_n<T, 4>(x + 4 * i, y + 4 * i);
}

extern "C" __global__ void templates_int(const int *x, const int *y, int *out, int n)
{
    dot_rows<int>(x, y, out, n);
}

extern "C" __global__ void templates_float(const float *x, const float *y, float *out, int n)
{
    dot_rows<float>(x, y, out, n);
}

extern "C" __global__ void templates_u64(const unsigned long long *x, const unsigned long long *y,
                                         unsigned long long *out, int n)
{
    dot_rows<unsigned long long>(x, y, out, n);
}
