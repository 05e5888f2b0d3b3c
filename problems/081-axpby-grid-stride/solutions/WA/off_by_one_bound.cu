// WA: the loop stops at n - 1, so the last element is never written.
__global__ void axpby_kernel(const float* x, const float* y, float* out, float a, float b,
                             int n) {
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n - 1; i += stride)
        out[i] = a * x[i] + b * y[i];
}

extern "C" void solve(const float* x, const float* y, float* out, float a, float b, int n) {
    if (n <= 0) return;
    int blocks = (n + 255) / 256;
    axpby_kernel<<<blocks < 1024 ? blocks : 1024, 256>>>(x, y, out, a, b, n);
}
