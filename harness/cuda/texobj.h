/*
 * texobj.h — the texture and surface objects the cuda worker makes for
 * "kind": "texture" and "kind": "surface" parameters (internal to
 * harness/cuda): their storage, uploads, and for surfaces, which the
 * kernel writes, the content every launch starts from and the read-back;
 * and the CUtensorMap of a "kind": "tensor_map" parameter's buffer.
 */
#ifndef WH_HARNESS_CUDA_TEXOBJ_H
#define WH_HARNESS_CUDA_TEXOBJ_H

#include "harness/cuda/api.h"
#include "ptx/ptx.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    unsigned long long handle;  /* the CUtexObject / CUsurfObject the kernel gets; 0: none made */
    void *array;                /* the CUDA array (a CUarray), or NULL */
    void *mipmap;               /* a mipmapped texture's array (a CUmipmappedArray), or NULL */
    CUdeviceptr mem;            /* a texture over linear memory: the allocation ... */
    CUdeviceptr texels;         /* ... and the texels in it, aligned for textures */
    CUdeviceptr pristine;       /* a surface: what every launch starts from (zeros for an output) */
    uint64_t bytes;             /* of texels */
} wh_cuda_texobj;

/* Make the object described by t for `bytes` of texels, once; false with
 * msg (naming the parameter) when the driver refuses, lacks the entry
 * points, or warphunt was built without cuda.h. */
bool wh_cuda_texobj_make(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t, const char *name,
                         uint64_t bytes, char *msg, size_t n);
/* An image's texels: a texture's into its storage, a surface's into its
 * pristine copy (NULL data: zeros, an output surface's start). */
CUresult wh_cuda_texobj_upload(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t,
                               const unsigned char *data);
/* A surface before a launch: its array from the pristine copy. */
CUresult wh_cuda_texobj_restore(const wh_cuda_api *api, wh_cuda_texobj *o, const ptx_texture *t);
/* A surface after a launch: its array's content into out (bytes). */
CUresult wh_cuda_texobj_read(const wh_cuda_api *api, const wh_cuda_texobj *o, const ptx_texture *t, void *out);
void wh_cuda_texobj_free(const wh_cuda_api *api, wh_cuda_texobj *o);

/* A tensor map parameter's CUtensorMap (PTX_TMAP_BYTES at `map`, 64-byte
 * aligned) for its tensor at device address `base`: tiled, packed strides,
 * element strides 1, no interleave or L2 promotion; false with msg when
 * the driver refuses, lacks cuTensorMapEncodeTiled, or warphunt was built
 * without cuda.h. */
bool wh_cuda_tensor_map_encode(const wh_cuda_api *api, const ptx_tensor_map *t, CUdeviceptr base, void *map,
                               const char *name, char *msg, size_t n);

#endif
