// Runtime errors the emulation reports, one launch function each.

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

// A full-warp shuffle after half of the warp returned.
__global__ void early_exit(float* out) {
    if (threadIdx.x >= 16) return;
    out[threadIdx.x] = __shfl_down_sync(0xffffffff, 1.0f, 1);
}
extern "C" void shuffle_after_return(float* out) { early_exit<<<1, 32>>>(out); }

// A shared array read one past its end.
__global__ void shift(float* out) {
    __shared__ float s[32];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + 1];
}
extern "C" void shared_past_end(float* out) { shift<<<1, 32>>>(out); }

// More threads per block than a GPU has.
__global__ void fill(float* out) { out[threadIdx.x] = 1.0f; }
extern "C" void too_many_threads(float* out) { fill<<<1, 2048>>>(out); }

// Prints forever: stopped by the call's file-size limit, not left to fill the disk.
__global__ void chatter(float* out) {
    for (;;) printf("thread %d is still here\n", (int)threadIdx.x);
}
extern "C" void prints_forever(float* out) { chatter<<<1, 32>>>(out); }

// Leaves the process instead of returning: no outputs come back.
extern "C" void exits_early(float* out) { std::exit(0); }
