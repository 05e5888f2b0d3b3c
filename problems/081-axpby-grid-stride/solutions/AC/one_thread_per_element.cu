// AC: no loop; one thread per element and as many blocks as it takes, the tail guarded.
__global__ void axpby_kernel(const float* x, const float* y, float* out, float a, float b,
                             int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + b * y[i];
}

extern "C" void solve(const float* x, const float* y, float* out, float a, float b, int n) {
    if (n == 0) return;
    axpby_kernel<<<(n + 127) / 128, 128>>>(x, y, out, a, b, n);
}
