// AC but slow: one thread per row adds its columns one after the other (no cooperation at all).
__global__ void row_sum_kernel(const float* x, float* out, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float v = 0.0f;
    for (int c = 0; c < cols; ++c) v += x[(size_t)row * cols + c];
    out[row] = v;
}

extern "C" void solve(const float* x, float* out, int rows, int cols) {
    row_sum_kernel<<<(rows + 63) / 64, 64>>>(x, out, rows, cols);
}
