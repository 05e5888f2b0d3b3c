// Model answer: a grid-stride loop over a capped grid of 256-thread blocks.
__global__ void axpby_kernel(const float* x, const float* y, float* out, float a, float b,
                             int n) {
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = a * x[i] + b * y[i];
}

extern "C" void solve(const float* x, const float* y, float* out, float a, float b, int n) {
    if (n <= 0) return;  // a grid of 0 blocks is an invalid launch
    const int threads = 256;
    int blocks = (n + threads - 1) / threads;
    if (blocks > 1024) blocks = 1024;  // the loop covers the rest
    axpby_kernel<<<blocks, threads>>>(x, y, out, a, b, n);
}
