// AC but slow: a single block of 256 threads strides over the whole array, so one of the GPU's
// SMs does all the work while the others idle (correct, about 100x off the bandwidth on an H200).
__global__ void axpby_kernel(const float* x, const float* y, float* out, float a, float b,
                             int n) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = a * x[i] + b * y[i];
}

extern "C" void solve(const float* x, const float* y, float* out, float a, float b, int n) {
    if (n == 0) return;
    axpby_kernel<<<1, 256>>>(x, y, out, a, b, n);
}
