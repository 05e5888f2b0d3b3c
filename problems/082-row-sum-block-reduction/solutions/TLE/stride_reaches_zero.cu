// TLE: the tree loop runs while s >= 0; halving 1 gives 0, and 0 halves to 0 forever.
#define THREADS 128

__global__ void row_sum_kernel(const float* x, float* out, int cols) {
    __shared__ float partial[THREADS];
    int tid = threadIdx.x;
    const float* row = x + (size_t)blockIdx.x * cols;
    float v = 0.0f;
    for (int c = tid; c < cols; c += THREADS) v += row[c];
    partial[tid] = v;
    __syncthreads();
    for (int s = THREADS / 2; s >= 0; s >>= 1) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

extern "C" void solve(const float* x, float* out, int rows, int cols) {
    row_sum_kernel<<<rows, THREADS>>>(x, out, cols);
}
