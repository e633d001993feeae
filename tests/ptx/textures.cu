/* textures: texture objects (cudaTextureObject_t parameters, "kind": "texture" in a spec).
 * tex_gather reads an int texture over linear memory with tex1Dfetch at indices from its input
 * (out-of-range indices read 0), and loops (texel & 15) times: its time is the texture's data
 * at data-dependent places.  tex_probe reads a 2-D texture at float coordinates from its input,
 * tex_probe_int at integer texel indices, tex_volume a 3-D one; their specs choose the texel
 * format, filtering, address modes and normalized coordinates. */

extern "C" __global__ void tex_gather(cudaTextureObject_t costs, const int *idx, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int c = tex1Dfetch<int>(costs, idx[i]);
    int acc = 0;
    for (int k = 0; k < (c & 15); k++)
        acc += k ^ idx[i];
    out[i] = acc + c;
}

extern "C" __global__ void tex_probe(cudaTextureObject_t t, const float *xs, const float *ys, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<float4>(t, xs[i], ys[i]);
}

/* tex_probe through tex.level and tex.grad: a texture of one level reads
 * it whatever the level of detail or the gradients say; a fetch whose two
 * forms differ writes -1. */
extern "C" __global__ void tex_probe_lod(cudaTextureObject_t t, const float *xs, const float *ys, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 a = tex2DLod<float4>(t, xs[i], ys[i], 2.5f + xs[i]);
    float4 b = tex2DGrad<float4>(t, xs[i], ys[i], make_float2(4.0f, ys[i]), make_float2(0.0f, 8.0f));
    bool same = a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
    out[i] = same ? a : make_float4(-1.0f, -1.0f, -1.0f, -1.0f);
}

extern "C" __global__ void tex_probe_int(cudaTextureObject_t t, const int *xs, const int *ys, int2 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1Dfetch<int2>(t, xs[i] + 4 * ys[i]);
}

extern "C" __global__ void tex_volume(cudaTextureObject_t v, const float *xs, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex3D<float>(v, xs[i], 1.5f, 0.25f);
}

/* surf_walk: surfaces (cudaSurfaceObject_t, "kind": "surface"): thread i walks column i of a
 * 2-D int surface, from row 0, down (v & 3) + 1 rows while the cell it reads is positive (at
 * most 16 steps: its time is the surface's data), then writes its step count into row 0 of its
 * column and into out.  surf_gather reads a 1-D surface at indices from its input with
 * cudaBoundaryModeZero (0 past the end) and adds 1 to each cell it read with cudaBoundaryModeClamp
 * (past the end: the nearest cell). */
extern "C" __global__ void surf_walk(cudaSurfaceObject_t grid, int *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w)
        return;
    int y = 0, steps = 0, v;
    surf2Dread(&v, grid, x * 4, y);
    while (v > 0 && steps < 16) {
        y = (y + (v & 3) + 1) % h;
        surf2Dread(&v, grid, x * 4, y);
        steps++;
    }
    surf2Dwrite(steps, grid, x * 4, 0);
    out[x] = steps;
}

extern "C" __global__ void surf_gather(cudaSurfaceObject_t s, const int *idx, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v;
    surf1Dread(&v, s, idx[i] * 4, cudaBoundaryModeZero);
    out[i] = v;
    if (i == 0)
        surf1Dwrite(v + 1, s, idx[i] * 4, cudaBoundaryModeClamp);
}

/* surf_reduce: surface reductions (sured.b, inline PTX: CUDA C has no intrinsic for them) on a
 * 2-D int surface of w x 2 cells: thread i adds 1 to cell (bins[i], 0) under .zero (a bin of w
 * is past the end: dropped) and takes the minimum of vals[i] into cell (c, 1), c = min(bins[i],
 * w - 1), under .trap; then it reads both cells of column c back (one warp: every lane's
 * reductions are in by then) and loops over the minimum's low bits, so its time is the data. */
extern "C" __global__ void surf_reduce(cudaSurfaceObject_t s, const int *bins, const int *vals, int *count,
                                       int *least, int n, int w)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int b = bins[i], c = b < w ? b : w - 1;
    asm volatile("sured.b.add.2d.u32.zero [%0, {%1, %2}], %3;" ::"l"(s), "r"(b * 4), "r"(0), "r"(1) : "memory");
    asm volatile("sured.b.min.2d.s32.trap [%0, {%1, %2}], %3;" ::"l"(s), "r"(c * 4), "r"(1), "r"(vals[i]) : "memory");
    int k, m;
    surf2Dread(&k, s, c * 4, 0);
    surf2Dread(&m, s, c * 4, 1);
    int acc = 0;
    for (int j = 0; j < (m & 7); j++)
        acc += j ^ k;
    count[i] = k;
    least[i] = m + (acc << 8);
}

/* surf_formatted: the formatted surface accesses (sust.p and sured.p, inline PTX: CUDA C has no
 * intrinsic for them), whose x counts texels, not bytes.  Thread i stores (v, -v, i, 300), v =
 * vals[i], into texel i of a 1-D uchar4 surface (each value read as a u32, saturated to 255),
 * adds 1 to texel bins[i] of an int surface under .zero (a bin of w is past the end: dropped)
 * and takes the minimum of v (signed, as the int samples say) into texel c = min(bins[i], w - 1)
 * of another under .trap; then it reads all three back with suld.b (one warp: every lane's
 * reductions are in by then) and loops as long as the texel's red and the minimum's low bits
 * say, so its time is the data. */
extern "C" __global__ void surf_formatted(cudaSurfaceObject_t px, cudaSurfaceObject_t cnt, cudaSurfaceObject_t low,
                                          const int *vals, const int *bins, unsigned *packed, int *count,
                                          int *least, int n, int w)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = vals[i], b = bins[i], c = b < w ? b : w - 1;
    asm volatile("sust.p.1d.v4.b32.trap [%0, {%1}], {%2, %3, %4, %5};" ::"l"(px), "r"(i), "r"(v), "r"(-v), "r"(i),
                 "r"(300) : "memory");
    asm volatile("sured.p.add.1d.b32.zero [%0, {%1}], %2;" ::"l"(cnt), "r"(b), "r"(1) : "memory");
    asm volatile("sured.p.min.1d.b32.trap [%0, {%1}], %2;" ::"l"(low), "r"(c), "r"(v) : "memory");
    unsigned word;
    int k, m;
    surf1Dread(&word, px, i * 4);
    surf1Dread(&k, cnt, c * 4);
    surf1Dread(&m, low, c * 4);
    int acc = 0;
    for (int j = 0; j < (int)(word & 7) + (m & 7); j++)
        acc += j ^ k;
    packed[i] = word;
    count[i] = k;
    least[i] = m + (acc << 8);
}

/* tex_mip: tex2DLod and tex2DGrad (tex.level, tex.grad) of a mipmapped float texture at
 * normalized coordinates, the level of detail (and the gradients' length) from the input; each
 * thread loops as long as the fetched values say, so its time is the level and texel it reads. */
extern "C" __global__ void tex_mip(cudaTextureObject_t t, const float *xs, const float *ys, const float *lods,
                                   const float *grads, float *out, float *outg, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = tex2DLod<float>(t, xs[i], ys[i], lods[i]);
    float g = tex2DGrad<float>(t, xs[i], ys[i], make_float2(grads[i], 0.0f), make_float2(0.0f, grads[i]));
    float acc = 0.0f;
    for (int k = 0; k < ((int)v & 7) + ((int)g & 7); k++)
        acc += 1.0f;
    out[i] = v + 1000.0f * acc;
    outg[i] = g;
}

/* tex_mip_int: tex.level and tex.base (inline PTX: the .s32 forms, which CUDA C does not write)
 * of a mipmapped int texture at integer texel indices (xs[i], 0), the level of detail an integer
 * from the input; out[i] is (the level's texel, level 0's). */
extern "C" __global__ void tex_mip_int(cudaTextureObject_t t, const int *xs, const int *ls, int2 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int a0, a1, a2, a3, b0, b1, b2, b3;
    asm("tex.level.2d.v4.s32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}], %7;"
        : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
        : "l"(t), "r"(xs[i]), "r"(0), "r"(ls[i]));
    asm("tex.base.2d.v4.s32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
        : "=r"(b0), "=r"(b1), "=r"(b2), "=r"(b3)
        : "l"(t), "r"(xs[i]), "r"(0));
    out[i] = make_int2(a0 + a1 + a2 + a3, b0 + b1 + b2 + b3);
}

/* tex_ms: a multisample fetch (tex.2dms, inline PTX), which no engine runs: CUDA makes no
 * multisample texture (they come from graphics interop). */
extern "C" __global__ void tex_ms(cudaTextureObject_t t, int *out)
{
    int a, b, c, d;
    asm("tex.2dms.v4.s32.s32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %8}];"
        : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
        : "l"(t), "r"(0), "r"((int)threadIdx.x), "r"(0), "r"(0));
    out[threadIdx.x] = a + b + c + d;
}

/* tex_gather4: tex2Dgather (tld4) of component r of an int texture made for gathers, at float
 * coordinates from the input; each thread loops as long as two of the four texels say, so its
 * time is the footprint's data.  tex_query answers txq and suq (inline PTX: CUDA C has no
 * intrinsic for them) about a texture and a surface. */
extern "C" __global__ void tex_gather4(cudaTextureObject_t t, const float *xs, const float *ys, int4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int4 g = tex2Dgather<int4>(t, xs[i], ys[i], 0);
    int acc = 0;
    for (int k = 0; k < (g.x & 7) + (g.z & 7); k++)
        acc += k ^ g.y;
    out[i] = make_int4(g.x, g.y, g.z, acc + g.w);
}

extern "C" __global__ void tex_query(cudaTextureObject_t t, cudaSurfaceObject_t s, int *out)
{
    int q[8];
    asm("txq.width.b32 %0, [%1];" : "=r"(q[0]) : "l"(t));
    asm("txq.height.b32 %0, [%1];" : "=r"(q[1]) : "l"(t));
    asm("txq.depth.b32 %0, [%1];" : "=r"(q[2]) : "l"(t));
    asm("txq.normalized_coords.b32 %0, [%1];" : "=r"(q[3]) : "l"(t));
    asm("txq.filter_mode.b32 %0, [%1];" : "=r"(q[4]) : "l"(t));
    asm("txq.addr_mode_1.b32 %0, [%1];" : "=r"(q[5]) : "l"(t));
    asm("suq.width.b32 %0, [%1];" : "=r"(q[6]) : "l"(s));
    asm("suq.height.b32 %0, [%1];" : "=r"(q[7]) : "l"(s));
    for (int k = 0; k < 8; k++)
        out[k] = q[k];
}

/* tex_layered: tex2DLayered of an int texture at float coordinates and a layer from the input
 * (the layer clamped to the layers there are); each thread loops (texel & 7) times.  tex_cube
 * reads a cubemap (texCubemap) and a layered cubemap (texCubemapLayered) in the direction
 * (xs[i], ys[i], zs[i]): the major axis picks the face. */
extern "C" __global__ void tex_layered(cudaTextureObject_t t, const float *xs, const float *ys, const int *ls, int *out,
                                       int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = tex2DLayered<int>(t, xs[i], ys[i], ls[i]);
    int acc = 0;
    for (int k = 0; k < (v & 7); k++)
        acc += k ^ v;
    out[i] = v + (acc << 8);
}

extern "C" __global__ void tex_cube(cudaTextureObject_t c, cudaTextureObject_t ca, const float *xs, const float *ys,
                                    const float *zs, const int *ls, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[2 * i] = texCubemap<float>(c, xs[i], ys[i], zs[i]);
    out[2 * i + 1] = texCubemapLayered<float>(ca, xs[i], ys[i], zs[i], ls[i]);
}

/* surf_layered: a layered 2-D int surface of at least 2 rows, thread i owning column i of every
 * layer: it reads row 0 of layer ls[i] (cudaBoundaryModeZero: 0 past the last layer), loops
 * (v & 15) times, and writes v + 1 into row 1 of layer 1000 (cudaBoundaryModeClamp: the last
 * layer's). */
extern "C" __global__ void surf_layered(cudaSurfaceObject_t s, const int *ls, int *out, int w)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w)
        return;
    int v = surf2DLayeredread<int>(s, i * 4, 0, ls[i], cudaBoundaryModeZero);
    int acc = 0;
    for (int k = 0; k < (v & 15); k++)
        acc += k ^ v;
    out[i] = acc + v;
    surf2DLayeredwrite(v + 1, s, i * 4, 1, 1000, cudaBoundaryModeClamp);
}
