/* index_3d: 7-point stencil on an nx*ny*nz grid with a 3-D grid of 3-D blocks.
 * Interior cells: out = 6*c - (x-1) - (x+1) - (y-1) - (y+1) - (z-1) - (z+1); boundary cells copy in. */

extern "C" __global__ void index_3d(const float *in, float *out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;
    int sy = nx, sz = nx * ny;
    int c = z * sz + y * sy + x;
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        out[c] = in[c];
        return;
    }
    out[c] = 6.0f * in[c] - in[c - 1] - in[c + 1] - in[c - sy] - in[c + sy]
             - in[c - sz] - in[c + sz];
}
