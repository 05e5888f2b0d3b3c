// AC but slow: one thread of one block walks the whole array (correct, and no parallelism).
__global__ void axpby_kernel(const float* x, const float* y, float* out, float a, float b,
                             int n) {
    for (int i = 0; i < n; ++i) out[i] = a * x[i] + b * y[i];
}

extern "C" void solve(const float* x, const float* y, float* out, float a, float b, int n) {
    axpby_kernel<<<1, 1>>>(x, y, out, a, b, n);
}
