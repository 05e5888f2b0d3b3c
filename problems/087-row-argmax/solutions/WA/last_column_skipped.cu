// WA: an off-by-one between the last index and the count: the scan stops before `last`,
// C - 1, so a maximum in the last column is never seen.
#define BLOCK 256

__device__ bool better(float v, int i, float bv, int bi) {
    return v > bv || (v == bv && i < bi);
}

__global__ void argmax_rows(const float* x, float* values, int* indices, int C) {
    __shared__ float sv[BLOCK];
    __shared__ int si[BLOCK];
    const float* row = x + (long long)blockIdx.x * C;
    int tid = threadIdx.x;
    int last = C - 1;  // the last column's index
    float best = -INFINITY;
    int best_i = 0x7fffffff;  // past every column: loses every tie
    if (tid < last) best = row[tid], best_i = tid;
    for (int c = tid + BLOCK; c < last; c += BLOCK)
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
