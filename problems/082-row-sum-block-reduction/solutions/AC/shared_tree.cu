// AC: the classic tree in shared memory (halving strides, a barrier after each step) down to
// one warp, then shuffles; 128 threads per row.
#define THREADS 128

__global__ void row_sum_kernel(const float* x, float* out, int cols) {
    __shared__ float partial[THREADS];
    int tid = threadIdx.x;
    const float* row = x + (size_t)blockIdx.x * cols;
    float v = 0.0f;
    for (int c = tid; c < cols; c += THREADS) v += row[c];
    partial[tid] = v;
    __syncthreads();
    for (int s = THREADS / 2; s >= 32; s >>= 1) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        v = partial[tid];
        for (int offset = 16; offset > 0; offset >>= 1)
            v += __shfl_down_sync(0xffffffff, v, offset);
        if (tid == 0) out[blockIdx.x] = v;
    }
}

extern "C" void solve(const float* x, float* out, int rows, int cols) {
    row_sum_kernel<<<rows, THREADS>>>(x, out, cols);
}
