// RE: one thread per element with no bound check: the last block's extra threads read and
// write past the end of the arrays when n is not a multiple of 256.
__global__ void axpby_kernel(const float* x, const float* y, float* out, float a, float b,
                             int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = a * x[i] + b * y[i];
}

extern "C" void solve(const float* x, const float* y, float* out, float a, float b, int n) {
    if (n <= 0) return;
    axpby_kernel<<<(n + 255) / 256, 256>>>(x, y, out, a, b, n);
}
