/* node_scan: each thread scans the keys of its tree node, a struct with an
 * array field (as Rodinia's b+tree nodes have), up to the node's count.
 * The spec states the array as a field with a "count"
 * (tests/specs/node_scan.json, tests/test_struct_arrays.c).  Compiled by
 * hand to node_scan.ptx (nvcc -ptx -arch=sm_80 -lineinfo). */

struct node {
    int nkeys;
    int keys[4];
    unsigned char leaf;
};

extern "C" __global__ void node_scan(const node *nodes, int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    const node *n = &nodes[t];
    int acc = 0;
    for (int k = 0; k < n->nkeys; k++)
        acc = acc * 7 + n->keys[k];
    out[t] = n->leaf ? acc : -acc;
}
