// y[r, c] = (x[r, c] - mean_r) / sqrt(var_r + eps) * weight[c] + bias[c]: one block per row.
#include <math.h>
#define THREADS 256

__global__ void layer_norm_kernel(const float* x, const float* weight, const float* bias,
                                  float* y, int cols, float eps) {
    const float* in = x + (size_t)blockIdx.x * cols;
    float* out = y + (size_t)blockIdx.x * cols;
    // TODO: the row's mean and (biased) variance, each reduced over the whole block. These
    // placeholders make every row look standardised already.
    float mean = 0.0f, var = 1.0f;
    float rstd = rsqrtf(var + eps);
    for (int c = threadIdx.x; c < cols; c += THREADS)
        out[c] = (in[c] - mean) * rstd * weight[c] + bias[c];
}

extern "C" void solve(const float* x, const float* weight, const float* bias, float* y,
                      int rows, int cols, float eps) {
    layer_norm_kernel<<<rows, THREADS>>>(x, weight, bias, y, cols, eps);
}
