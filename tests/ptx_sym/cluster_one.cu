/*
 * cluster_one.cu — a kernel written with the cluster API (cooperative
 * groups: cluster.sync(), block_rank(), map_shared_rank(), num_blocks())
 * and launched without cluster dimensions, so each block is a cluster of
 * one (what warphunt's sim and symbolic stage run): the block sums its
 * input into shared memory between cluster barriers, reads the sum back
 * through map_shared_rank of its own rank (mapa) and thread t loops
 * in[t] & 7 times.  out[t] = sum + 1000 * num_blocks() + (0 + 1 + ... +
 * (in[t] & 7) - 1).  tests/specs/cluster_one.json; the PTX is committed
 * (nvcc -arch=sm_90 -ptx -lineinfo).
 */
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cluster_one(const int *in, int *out)
{
    __shared__ int part;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        part = 0;
    cluster.sync();
    atomicAdd(&part, in[i]);
    cluster.sync();
    int *mine = cluster.map_shared_rank(&part, rank);
    int v = *mine, acc = 0;
    for (int k = 0; k < (in[i] & 7); k++)
        acc += k;
    cluster.sync();
    out[i] = v + (int)cluster.num_blocks() * 1000 + acc;
}
