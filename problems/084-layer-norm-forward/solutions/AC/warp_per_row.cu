// AC: one warp per row (4 rows per block of 128 threads), two passes, shuffles only.
#include <math.h>

__device__ float warp_sum(float v) {
    for (int k = 16; k > 0; k >>= 1) v += __shfl_xor_sync(0xffffffff, v, k);
    return v;
}

__global__ void layer_norm_kernel(const float* x, const float* weight, const float* bias,
                                  float* y, int rows, int cols, float eps) {
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;  // the whole warp leaves together
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += in[c];
    float mean = warp_sum(s) / cols;
    float q = 0.0f;
    for (int c = lane; c < cols; c += 32) q += (in[c] - mean) * (in[c] - mean);
    float rstd = 1.0f / sqrtf(warp_sum(q) / cols + eps);
    for (int c = lane; c < cols; c += 32) out[c] = (in[c] - mean) * rstd * weight[c] + bias[c];
}

extern "C" void solve(const float* x, const float* weight, const float* bias, float* y,
                      int rows, int cols, float eps) {
    layer_norm_kernel<<<(rows + 3) / 4, 128>>>(x, weight, bias, y, rows, cols, eps);
}
