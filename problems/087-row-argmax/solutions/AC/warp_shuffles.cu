// AC: a block of 128 threads per row; each warp reduces its (value, index) pairs with
// __shfl_down_sync, the four warp winners meet in shared memory, and warp 0 reduces them.
#define BLOCK 128

__device__ void keep_better(float& v, int& i, float ov, int oi) {
    if (ov > v || (ov == v && oi < i)) v = ov, i = oi;
}

__device__ void warp_argmax(float& v, int& i) {
    for (int off = 16; off > 0; off >>= 1) {
        float ov = __shfl_down_sync(0xffffffff, v, off);
        int oi = __shfl_down_sync(0xffffffff, i, off);
        keep_better(v, i, ov, oi);
    }
}

__global__ void argmax_rows(const float* __restrict__ x, float* values, int* indices, int C) {
    __shared__ float wv[BLOCK / 32];
    __shared__ int wi[BLOCK / 32];
    const float* row = x + (long long)blockIdx.x * C;
    float v = -INFINITY;
    int i = 0x7fffffff;
    for (int c = threadIdx.x; c < C; c += BLOCK) keep_better(v, i, row[c], c);
    warp_argmax(v, i);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) wv[warp] = v, wi[warp] = i;
    __syncthreads();
    if (warp == 0) {
        v = lane < BLOCK / 32 ? wv[lane] : -INFINITY;
        i = lane < BLOCK / 32 ? wi[lane] : 0x7fffffff;
        warp_argmax(v, i);
        if (lane == 0) values[blockIdx.x] = v, indices[blockIdx.x] = i;
    }
}

extern "C" void solve(const float* x, float* values, int* indices, int R, int C) {
    argmax_rows<<<R, BLOCK>>>(x, values, indices, C);
}
