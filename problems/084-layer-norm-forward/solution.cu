// Model answer: one block of 256 threads per row, two passes: the mean, then the mean of the
// squared deviations (the biased variance), each a block reduction (xor shuffles inside warps,
// a shared scratch between them, a barrier before the scratch is reused); then the store.
#include <math.h>
#define THREADS 256
#define WARPS (THREADS / 32)

__device__ float warp_sum(float v) {
    for (int k = 16; k > 0; k >>= 1) v += __shfl_xor_sync(0xffffffff, v, k);
    return v;  // every lane holds the warp's sum
}

__global__ void layer_norm_kernel(const float* x, const float* weight, const float* bias,
                                  float* y, int cols, float eps) {
    __shared__ float scratch[WARPS];
    const float* in = x + (size_t)blockIdx.x * cols;
    float* out = y + (size_t)blockIdx.x * cols;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) s += in[c];
    s = warp_sum(s);
    if (lane == 0) scratch[warp] = s;
    __syncthreads();
    float mean = warp_sum(lane < WARPS ? scratch[lane] : 0.0f) / cols;
    __syncthreads();  // all have read scratch before the variance's sums are written to it

    float q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) {
        float d = in[c] - mean;
        q += d * d;
    }
    q = warp_sum(q);
    if (lane == 0) scratch[warp] = q;
    __syncthreads();
    float var = warp_sum(lane < WARPS ? scratch[lane] : 0.0f) / cols;
    float rstd = rsqrtf(var + eps);

    for (int c = threadIdx.x; c < cols; c += THREADS)
        out[c] = (in[c] - mean) * rstd * weight[c] + bias[c];
}

extern "C" void solve(const float* x, const float* weight, const float* bias, float* y,
                      int rows, int cols, float eps) {
    layer_norm_kernel<<<rows, THREADS>>>(x, weight, bias, y, cols, eps);
}
