// Model answer: one block of 256 threads per row. Each thread sums a strided slice of the row,
// each warp reduces its 32 partial sums with shuffles, the 8 warp sums meet in shared memory,
// and the first warp reduces them with shuffles again.
#define THREADS 256

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;  // lane 0 holds the warp's sum
}

__global__ void row_sum_kernel(const float* x, float* out, int cols) {
    __shared__ float warp_sums[THREADS / 32];
    const float* row = x + (size_t)blockIdx.x * cols;
    float v = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) v += row[c];
    v = warp_sum(v);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();  // every warp's sum is stored before warp 0 reads them
    if (warp == 0) {
        v = lane < THREADS / 32 ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

extern "C" void solve(const float* x, float* out, int rows, int cols) {
    if (rows == 0) return;
    row_sum_kernel<<<rows, THREADS>>>(x, out, cols);
}
