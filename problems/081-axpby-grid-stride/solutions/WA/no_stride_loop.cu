// WA: a capped grid of 4 blocks but no grid-stride loop: elements past 4 * 256 are never written.
__global__ void axpby_kernel(const float* x, const float* y, float* out, float a, float b,
                             int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + b * y[i];
}

extern "C" void solve(const float* x, const float* y, float* out, float a, float b, int n) {
    if (n <= 0) return;
    int blocks = (n + 255) / 256;
    axpby_kernel<<<blocks < 4 ? blocks : 4, 256>>>(x, y, out, a, b, n);
}
