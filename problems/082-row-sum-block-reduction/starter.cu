// Sum each row of x ([rows, cols], row-major) into out[row]: one block per row.
#define THREADS 256

__global__ void row_sum_kernel(const float* x, float* out, int cols) {
    const float* row = x + (size_t)blockIdx.x * cols;
    float v = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) v += row[c];
    // TODO: v is this thread's partial sum only. Combine the partial sums of all the threads of
    // the block (warp shuffles inside each warp, shared memory between the warps,
    // __syncthreads() between writing and reading it) before storing the row's sum.
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

extern "C" void solve(const float* x, float* out, int rows, int cols) {
    row_sum_kernel<<<rows, THREADS>>>(x, out, cols);
}
