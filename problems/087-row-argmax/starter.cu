// Problem 87: for each row of x (R x C, row-major float32) the largest value and the lowest
// column holding it. Fill in the kernel; keep the launch function's signature.
#define BLOCK 256

__global__ void argmax_rows(const float* x, float* values, int* indices, int C) {
    __shared__ float sv[BLOCK];
    __shared__ int si[BLOCK];
    // TODO: each thread scans its columns, then reduce (value, index) pairs in shared memory:
    // the larger value wins, and on a tie the lower index.
    if (threadIdx.x == 0) {
        values[blockIdx.x] = x[(long long)blockIdx.x * C];  // column 0 is not always the answer
        indices[blockIdx.x] = 0;
    }
}

extern "C" void solve(const float* x, float* values, int* indices, int R, int C) {
    argmax_rows<<<R, BLOCK>>>(x, values, indices, C);
}
