/* struct_aos: array-of-structs particle update.  For i < n: vel += acc * dt, pos += vel * dt
 * (float3-like fields), age += 1 (short), alive = age < max_age (char); fields read and written in place. */

struct particle {
    float px, py, pz;
    float vx, vy, vz;
    short age;
    char alive;
    char kind;
};

extern "C" __global__ void struct_aos(struct particle *p, float ax, float ay, float az,
                                      float dt, short max_age, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    struct particle q = p[i];
    if (!q.alive)
        return;
    q.vx += ax * dt; q.vy += ay * dt; q.vz += az * dt;
    q.px += q.vx * dt; q.py += q.vy * dt; q.pz += q.vz * dt;
    q.age = (short)(q.age + 1);
    q.alive = q.age < max_age;
    p[i] = q;
}
