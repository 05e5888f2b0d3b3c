// AC: one warp per row (4 rows per block of 128 threads), shuffles only, no shared memory.
__global__ void row_sum_kernel(const float* x, float* out, int rows, int cols) {
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;  // a whole warp leaves together: its shuffles stay full
    float v = 0.0f;
    for (int c = lane; c < cols; c += 32) v += x[(size_t)row * cols + c];
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffff, v, offset);
    if (lane == 0) out[row] = v;
}

extern "C" void solve(const float* x, float* out, int rows, int cols) {
    row_sum_kernel<<<(rows + 3) / 4, 128>>>(x, out, rows, cols);
}
