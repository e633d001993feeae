/* saxpy_grid_stride: y[i] = a * x[i] + y[i] over n elements with a grid-stride loop
 * (any launch covers any n).  Reference: y[i] == fmaf(a, x[i], y_old[i]) (nvcc contracts to fma). */

extern "C" __global__ void saxpy_grid_stride(int n, float a, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
