// TLE: the grid-stride loop steps by blockIdx.x * blockDim.x, which is 0 in block 0: endless.
__global__ void axpby_kernel(const float* x, const float* y, float* out, float a, float b,
                             int n) {
    int stride = blockIdx.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = a * x[i] + b * y[i];
}

extern "C" void solve(const float* x, const float* y, float* out, float a, float b, int n) {
    if (n <= 0) return;
    int blocks = (n + 255) / 256;
    axpby_kernel<<<blocks < 1024 ? blocks : 1024, 256>>>(x, y, out, a, b, n);
}
