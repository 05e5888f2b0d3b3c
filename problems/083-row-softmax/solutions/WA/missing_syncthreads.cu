// WA: no __syncthreads() between reading the maxima from scratch and reusing it for the sums:
// a fast warp overwrites scratch[w] while a slow warp still reads the maxima (a race).
#include <math.h>
#define THREADS 256
#define WARPS (THREADS / 32)

__device__ float warp_max(float v) {
    for (int m = 16; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, m));
    return v;
}

__device__ float warp_sum(float v) {
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffff, v, m);
    return v;
}

__global__ void softmax_kernel(const float* x, float* y, int cols) {
    __shared__ float scratch[WARPS];
    const float* in = x + (size_t)blockIdx.x * cols;
    float* out = y + (size_t)blockIdx.x * cols;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += THREADS) m = fmaxf(m, in[c]);
    m = warp_max(m);
    if (lane == 0) scratch[warp] = m;
    __syncthreads();
    m = warp_max(lane < WARPS ? scratch[lane] : -INFINITY);

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) s += expf(in[c] - m);
    s = warp_sum(s);
    if (lane == 0) scratch[warp] = s;
    __syncthreads();
    s = warp_sum(lane < WARPS ? scratch[lane] : 0.0f);

    float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += THREADS) out[c] = expf(in[c] - m) * inv;
}

extern "C" void solve(const float* x, float* y, int rows, int cols) {
    softmax_kernel<<<rows, THREADS>>>(x, y, cols);
}
