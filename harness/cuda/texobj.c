/*
 * texobj.c — texture and surface objects, and tensor maps, for the cuda
 * worker (texobj.h).
 *
 * A texture over linear memory (tex1Dfetch) lives in an allocation with
 * room to start its texels at a multiple of WH_CU_TEXTURE_ALIGNMENT; every
 * other texture, and every surface, in a CUDA array (surfaces with
 * CUDA_ARRAY3D_SURFACE_LDST, textures the spec says tld4 gathers from with
 * CUDA_ARRAY3D_TEXTURE_GATHER, layered ones with CUDA_ARRAY3D_LAYERED and
 * the layers as the depth, cubemaps with CUDA_ARRAY3D_CUBEMAP and their 6
 * faces, of each layer, as the depth; a mipmapped texture in a CUDA
 * mipmapped array, each level filled from its part of the texels, read
 * with the nearest-level or linear mipmap filter over every level).
 * Integer texels are read as integers unless
 * the spec asks for normalized floats.  A kernel writes its surfaces, so a
 * surface keeps a pristine linear copy of its content that is copied into
 * the array before each launch, as the engine restores its input buffers.
 * Everything here needs cuda.h's structures: without it, making an object
 * fails with a message that says so.
 */
#include "harness/cuda/texobj.h"

#include <stdio.h>
#include <string.h>

#ifdef WH_HAVE_CUDA_H

static CUarray_format texel_format(const ptx_texture *t)
{
    if (t->chan_float)
        return CU_AD_FORMAT_FLOAT;
    switch (t->chan_bytes) {
    case 1: return t->chan_signed ? CU_AD_FORMAT_SIGNED_INT8 : CU_AD_FORMAT_UNSIGNED_INT8;
    case 2: return t->chan_signed ? CU_AD_FORMAT_SIGNED_INT16 : CU_AD_FORMAT_UNSIGNED_INT16;
    default: return t->chan_signed ? CU_AD_FORMAT_SIGNED_INT32 : CU_AD_FORMAT_UNSIGNED_INT32;
    }
}

static CUaddress_mode address_mode(int a)
{
    switch (a) {
    case WH_TEX_BORDER: return CU_TR_ADDRESS_MODE_BORDER;
    case WH_TEX_WRAP: return CU_TR_ADDRESS_MODE_WRAP;
    case WH_TEX_MIRROR: return CU_TR_ADDRESS_MODE_MIRROR;
    default: return CU_TR_ADDRESS_MODE_CLAMP;
    }
}

/* The 2-D slices of a texture's texels: its depth, its layers, its
 * cubemap faces (of each layer). */
static size_t slices(const ptx_texture *t)
{
    return (size_t)(ptx_tex_texels(t) / (t->dims[0] * t->dims[1]));
}

static CUresult make_array(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t, CUDA_RESOURCE_DESC *res)
{
    CUDA_ARRAY3D_DESCRIPTOR ad;
    memset(&ad, 0, sizeof ad);
    ad.Width = (size_t)t->dims[0];
    ad.Height = t->ndims > 1 ? (size_t)t->dims[1] : 0;
    ad.Depth = t->ndims > 2 || t->layers || t->cube ? slices(t) : 0;
    ad.Format = texel_format(t);
    ad.NumChannels = (unsigned)t->channels;
    ad.Flags = t->surface ? CUDA_ARRAY3D_SURFACE_LDST : t->gather ? CUDA_ARRAY3D_TEXTURE_GATHER : 0;
    ad.Flags |= (t->layers ? CUDA_ARRAY3D_LAYERED : 0) | (t->cube ? CUDA_ARRAY3D_CUBEMAP : 0);
    CUarray a = NULL;
    CUresult r = api->Array3DCreate(&a, &ad);
    o->array = a;
    res->resType = CU_RESOURCE_TYPE_ARRAY;
    res->res.array.hArray = a;
    return r;
}

static CUresult make_mipmapped(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t,
                               CUDA_RESOURCE_DESC *res)
{
    CUDA_ARRAY3D_DESCRIPTOR ad;
    memset(&ad, 0, sizeof ad);
    ad.Width = (size_t)t->dims[0];
    ad.Height = t->ndims > 1 ? (size_t)t->dims[1] : 0;
    ad.Depth = t->ndims > 2 ? (size_t)t->dims[2] : 0;
    ad.Format = texel_format(t);
    ad.NumChannels = (unsigned)t->channels;
    CUmipmappedArray m = NULL;
    CUresult r = api->MipmappedArrayCreate(&m, &ad, (unsigned)t->levels);
    o->mipmap = m;
    res->resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    res->res.mipmap.hMipmappedArray = m;
    return r;
}

static CUresult make_linear(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t, CUDA_RESOURCE_DESC *res)
{
    CUresult r = api->MemAlloc(&o->mem, (size_t)o->bytes + WH_CU_TEXTURE_ALIGNMENT);
    o->texels = (o->mem + WH_CU_TEXTURE_ALIGNMENT - 1) / WH_CU_TEXTURE_ALIGNMENT * WH_CU_TEXTURE_ALIGNMENT;
    res->resType = CU_RESOURCE_TYPE_LINEAR;
    res->res.linear.devPtr = o->texels;
    res->res.linear.format = texel_format(t);
    res->res.linear.numChannels = (unsigned)t->channels;
    res->res.linear.sizeInBytes = (size_t)o->bytes;
    return r;
}

static CUresult make(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t)
{
    CUDA_RESOURCE_DESC res;
    memset(&res, 0, sizeof res);
    CUresult r = t->linear_memory ? make_linear(api, o, t, &res)
                 : t->levels > 1  ? make_mipmapped(api, o, t, &res)
                                  : make_array(api, o, t, &res);
    if ((int)r != WH_CU_SUCCESS)
        return r;
    if (t->surface) {
        r = api->MemAlloc(&o->pristine, (size_t)o->bytes);
        CUsurfObject s = 0;
        if ((int)r == WH_CU_SUCCESS)
            r = api->SurfObjectCreate(&s, &res);
        o->handle = s;
        return r;
    }
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    for (int k = 0; k < 3; k++)
        td.addressMode[k] = address_mode(t->address[k]);
    td.filterMode = t->filter_linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
    td.flags = (!t->chan_float && !t->read_normalized ? CU_TRSF_READ_AS_INTEGER : 0) |
               (t->normalized_coords ? CU_TRSF_NORMALIZED_COORDINATES : 0);
    td.mipmapFilterMode = t->mip_linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
    td.maxMipmapLevelClamp = (float)(t->levels - 1);
    CUtexObject h = 0;
    r = api->TexObjectCreate(&h, &res, &td, NULL);
    o->handle = h;
    return r;
}

/* Array a from or to linear memory of packed rows (host or device). */
static CUresult copy_array_of(const wh_cuda_api *api, CUarray a, const ptx_texture *t, bool into_array,
                              const void *host, CUdeviceptr dev)
{
    CUDA_MEMCPY3D cp;
    memset(&cp, 0, sizeof cp);
    size_t row = (size_t)t->dims[0] * (size_t)t->texel_bytes;
    CUmemorytype other = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    if (into_array) {
        cp.srcMemoryType = other;
        cp.srcHost = host;
        cp.srcDevice = dev;
        cp.srcPitch = row;
        cp.srcHeight = (size_t)t->dims[1];
        cp.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        cp.dstArray = a;
    } else {
        cp.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        cp.srcArray = a;
        cp.dstMemoryType = other;
        cp.dstHost = (void *)host;
        cp.dstDevice = dev;
        cp.dstPitch = row;
        cp.dstHeight = (size_t)t->dims[1];
    }
    cp.WidthInBytes = row;
    cp.Height = (size_t)t->dims[1];
    cp.Depth = slices(t);
    return api->Memcpy3D(&cp);
}

/* The whole array of a texture or surface of one level. */
static CUresult copy_array(const wh_cuda_api *api, const wh_cuda_texobj *o, const ptx_texture *t, bool into_array,
                           const void *host, CUdeviceptr dev)
{
    return copy_array_of(api, (CUarray)o->array, t, into_array, host, dev);
}

/* A mipmapped texture's levels from host memory, each from its part. */
static CUresult upload_levels(const wh_cuda_api *api, const wh_cuda_texobj *o, const ptx_texture *t,
                              const unsigned char *data)
{
    for (int k = 0; k < t->levels; k++) {
        ptx_texture level;
        ptx_tex_level(t, k, &level);
        CUarray a = NULL;
        CUresult r = api->MipmappedArrayGetLevel(&a, (CUmipmappedArray)o->mipmap, (unsigned)k);
        if ((int)r == WH_CU_SUCCESS)
            r = copy_array_of(api, a, &level, true, data + t->level_base[k] * t->texel_bytes, 0);
        if ((int)r != WH_CU_SUCCESS)
            return r;
    }
    return (CUresult)WH_CU_SUCCESS;
}

bool wh_cuda_texobj_make(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t, const char *name,
                         uint64_t bytes, char *msg, size_t n)
{
    const char *what = t->surface ? "surface" : "texture";
    if (!api->TexObjectCreate || !api->TexObjectDestroy || !api->Array3DCreate || !api->ArrayDestroy ||
        !api->Memcpy3D || !api->SurfObjectCreate || !api->SurfObjectDestroy) {
        snprintf(msg, n, "%s '%s': the driver lacks the texture and surface object entry points", what, name);
        return false;
    }
    if (t->levels > 1 && (!api->MipmappedArrayCreate || !api->MipmappedArrayGetLevel || !api->MipmappedArrayDestroy)) {
        snprintf(msg, n, "texture '%s': the driver lacks the mipmapped array entry points", name);
        return false;
    }
    o->bytes = bytes;
    CUresult r = make(api, o, t);
    if ((int)r == WH_CU_SUCCESS)
        return true;
    char desc[300];
    wh_cuda_describe(api, r, desc, sizeof desc);
    snprintf(msg, n, "making %s '%s' (.%s, %lld x %lld x %lld texels of %d bytes, %lld layers): %s", what, name,
             ptx_tex_geom_name(ptx_tex_geometry(t)), (long long)t->dims[0], (long long)t->dims[1],
             (long long)t->dims[2], t->texel_bytes, (long long)t->layers, desc);
    wh_cuda_texobj_free(api, o);
    return false;
}

CUresult wh_cuda_texobj_upload(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t,
                               const unsigned char *data)
{
    if (t->surface)
        return data ? api->MemcpyHtoD(o->pristine, data, (size_t)o->bytes)
                    : api->MemsetD8(o->pristine, 0, (size_t)o->bytes);
    if (t->linear_memory)
        return api->MemcpyHtoD(o->texels, data, (size_t)o->bytes);
    if (t->levels > 1)
        return upload_levels(api, o, t, data);
    return copy_array(api, o, t, true, data, 0);
}

CUresult wh_cuda_texobj_restore(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t)
{
    return copy_array(api, o, t, true, NULL, o->pristine);
}

CUresult wh_cuda_texobj_read(const wh_cuda_api *api, const wh_cuda_texobj *o, const ptx_texture *t, void *out)
{
    return copy_array(api, o, t, false, out, 0);
}

void wh_cuda_texobj_free(const wh_cuda_api *api, wh_cuda_texobj *o)
{
    if (o->handle && o->pristine)
        api->SurfObjectDestroy(o->handle);
    else if (o->handle)
        api->TexObjectDestroy(o->handle);
    if (o->array)
        api->ArrayDestroy((CUarray)o->array);
    if (o->mipmap)
        api->MipmappedArrayDestroy((CUmipmappedArray)o->mipmap);   /* its levels' arrays with it */
    if (o->mem)
        api->MemFree(o->mem);
    if (o->pristine)
        api->MemFree(o->pristine);
    memset(o, 0, sizeof *o);
}

static CUtensorMapDataType tensor_type(const ptx_tensor_map *t)
{
    switch ((wh_type)t->type) {
    case WH_I8: case WH_U8: return CU_TENSOR_MAP_DATA_TYPE_UINT8;     /* TMA moves bytes: no signed 8/16 */
    case WH_I16: case WH_U16: return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case WH_I32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case WH_U32: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    case WH_I64: return CU_TENSOR_MAP_DATA_TYPE_INT64;
    case WH_U64: return CU_TENSOR_MAP_DATA_TYPE_UINT64;
    case WH_F32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    default: return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    }
}

bool wh_cuda_tensor_map_encode(const wh_cuda_api *api, const ptx_tensor_map *t, CUdeviceptr base, void *map,
                               const char *name, char *msg, size_t n)
{
    if (!api->TensorMapEncodeTiled) {
        snprintf(msg, n, "tensor map '%s': this driver has no cuTensorMapEncodeTiled (CUDA 12 or later)", name);
        return false;
    }
    cuuint64_t dims[WH_TMAP_MAX_RANK], strides[WH_TMAP_MAX_RANK];
    cuuint32_t box[WH_TMAP_MAX_RANK], ones[WH_TMAP_MAX_RANK];
    uint64_t stride = (uint64_t)t->elem_bytes;
    for (int k = 0; k < t->rank; k++) {
        dims[k] = (cuuint64_t)t->dims[k];
        box[k] = (cuuint32_t)t->box[k];
        ones[k] = 1;
        if (k > 0)
            strides[k - 1] = stride;
        stride *= (uint64_t)t->dims[k];
    }
    CUresult r = api->TensorMapEncodeTiled((CUtensorMap *)map, tensor_type(t), (cuuint32_t)t->rank, (void *)base,
                                           dims, strides, box, ones, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                           (CUtensorMapSwizzle)t->swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                           t->oob_nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                                      : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if ((int)r == WH_CU_SUCCESS)
        return true;
    char desc[300];
    wh_cuda_describe(api, r, desc, sizeof desc);
    snprintf(msg, n, "cuTensorMapEncodeTiled for tensor map '%s': %s", name, desc);
    return false;
}

#else /* no cuda.h */

bool wh_cuda_tensor_map_encode(const wh_cuda_api *api, const ptx_tensor_map *t, CUdeviceptr base, void *map,
                               const char *name, char *msg, size_t n)
{
    (void)api, (void)t, (void)base, (void)map;
    snprintf(msg, n, "tensor map '%s': this warphunt was built without cuda.h, which tensor maps need", name);
    return false;
}

bool wh_cuda_texobj_make(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t, const char *name,
                         uint64_t bytes, char *msg, size_t n)
{
    (void)api;
    (void)o;
    (void)bytes;
    snprintf(msg, n, "%s '%s': this warphunt was built without cuda.h, which texture and surface objects need",
             t->surface ? "surface" : "texture", name);
    return false;
}

CUresult wh_cuda_texobj_upload(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t,
                               const unsigned char *data)
{
    (void)api, (void)o, (void)t, (void)data;
    return WH_CU_ERROR_INVALID_VALUE;
}

CUresult wh_cuda_texobj_restore(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t)
{
    (void)api, (void)o, (void)t;
    return WH_CU_ERROR_INVALID_VALUE;
}

CUresult wh_cuda_texobj_read(const wh_cuda_api *api, const wh_cuda_texobj *o, const ptx_texture *t, void *out)
{
    (void)api, (void)o, (void)t, (void)out;
    return WH_CU_ERROR_INVALID_VALUE;
}

void wh_cuda_texobj_free(const wh_cuda_api *api, wh_cuda_texobj *o)
{
    (void)api;
    memset(o, 0, sizeof *o);
}

#endif
