// Write out[i] = a * x[i] + b * y[i] for every i < n, with a grid-stride loop.
__global__ void axpby_kernel(const float* x, const float* y, float* out, float a, float b,
                             int n) {
    // TODO: start at this thread's global index and step by the number of threads in the grid.
}

extern "C" void solve(const float* x, const float* y, float* out, float a, float b, int n) {
    // TODO: pick the block size and the number of blocks (and launch nothing when n is 0).
    axpby_kernel<<<1, 256>>>(x, y, out, a, b, n);
}
