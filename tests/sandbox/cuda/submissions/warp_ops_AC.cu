// The warp collectives, dynamic shared memory, atomics and __syncthreads_count in one kernel.
// Block of 64 threads as 32 x 2; out has 64 rows of 8 values, one row per thread.
// Every extern __shared__ array of a block is the same memory.
__device__ float mirror(int t) {
    extern __shared__ float same_memory[];
    return same_memory[63 - t];
}

__global__ void warp_ops(const float* x, float* out, int* top) {
    extern __shared__ float dyn[];
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    int lane = t % warpSize;
    float v = x[t];
    float* row = out + t * 8;
    row[0] = __shfl_sync(0xffffffff, v, 3);                     // lane 3's value
    float sum = v;
    for (int m = 16; m > 0; m >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, m);
    row[1] = sum;                                               // the warp's sum
    float scan = v;
    for (int d = 1; d < 32; d <<= 1) {
        float up = __shfl_up_sync(0xffffffff, scan, d);
        if (lane >= d) scan += up;
    }
    row[2] = scan;                                              // inclusive prefix sum
    unsigned positive = __ballot_sync(0xffffffff, v > 0.0f);
    row[3] = (float)__popc(positive);
    row[4] = __any_sync(0xffffffff, v > 2.5f) ? 1.0f : 0.0f;
    row[5] = __all_sync(0xffffffff, v > -100.0f) ? 1.0f : 0.0f;
    dyn[t] = v;
    int count = __syncthreads_count(v > 0.0f);
    row[6] = (float)count;
    row[7] = mirror(t);                                         // another warp's value
    atomicMax(top, (int)(v * 1000.0f));
}

extern "C" void solve(const float* x, float* out, int* top) {
    warp_ops<<<1, dim3(32, 2), 64 * sizeof(float)>>>(x, out, top);
}

// __syncwarp() orders a warp's shared writes before its reads; a shared element shuffles as its
// value; width 16 shuffles within each half of the warp.
__global__ void pairs(float* out) {
    __shared__ float s[32];
    int lane = threadIdx.x;
    s[lane] = lane;
    __syncwarp();
    out[lane] = s[lane ^ 1] + __shfl_sync(0xffffffff, s[lane], 0, 16);
}

extern "C" void shuffle_shared(float* out) { pairs<<<1, 32>>>(out); }
