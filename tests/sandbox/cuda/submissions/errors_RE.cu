// A barrier that only half of the block reaches: the others have left the kernel.
__global__ void halves(float* out) {
    __shared__ float s[64];
    if (threadIdx.x < 32) {
        s[threadIdx.x] = 1.0f;
        __syncthreads();
        out[threadIdx.x] = s[31 - threadIdx.x];
    }
}

extern "C" void solve(float* out) { halves<<<1, 64>>>(out); }
