// WA: the tree takes the partner on equal values too (>=), and the partner always holds the
// higher index: a tie goes to the highest column instead of the lowest.
#define BLOCK 256

__device__ bool better(float v, int i, float bv, int bi) {
    return v >= bv;
}

__global__ void argmax_rows(const float* x, float* values, int* indices, int C) {
    __shared__ float sv[BLOCK];
    __shared__ int si[BLOCK];
    const float* row = x + (long long)blockIdx.x * C;
    int tid = threadIdx.x;
    float best = -INFINITY;
    int best_i = 0x7fffffff;  // past every column: loses every tie
    if (tid < C) best = row[tid], best_i = tid;
    for (int c = tid + BLOCK; c < C; c += BLOCK)
        if (row[c] > best) best = row[c], best_i = c;
    sv[tid] = best;
    si[tid] = best_i;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s && better(sv[tid + s], si[tid + s], sv[tid], si[tid])) {
            sv[tid] = sv[tid + s];
            si[tid] = si[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        values[blockIdx.x] = sv[0];
        indices[blockIdx.x] = si[0];
    }
}

extern "C" void solve(const float* x, float* values, int* indices, int R, int C) {
    argmax_rows<<<R, BLOCK>>>(x, values, indices, C);
}
