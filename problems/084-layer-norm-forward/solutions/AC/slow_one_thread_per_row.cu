// AC but slow: one thread per row computes both statistics alone (in double, so that adding
// thousands of values one by one stays accurate), then writes the row.
#include <math.h>

__global__ void layer_norm_kernel(const float* x, const float* weight, const float* bias,
                                  float* y, int rows, int cols, float eps) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;
    double s = 0.0;
    for (int c = 0; c < cols; ++c) s += in[c];
    double mean = s / cols, q = 0.0;
    for (int c = 0; c < cols; ++c) q += (in[c] - mean) * (in[c] - mean);
    float rstd = (float)(1.0 / sqrt(q / cols + eps));
    for (int c = 0; c < cols; ++c)
        out[c] = (float)(in[c] - mean) * rstd * weight[c] + bias[c];
}

extern "C" void solve(const float* x, const float* weight, const float* bias, float* y,
                      int rows, int cols, float eps) {
    layer_norm_kernel<<<(rows + 63) / 64, 64>>>(x, weight, bias, y, rows, cols, eps);
}
