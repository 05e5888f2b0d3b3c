// WA: every thread starts from (-FLT_MAX, -1) and keeps a strictly larger value: a row of
// -inf never beats -FLT_MAX, so it reports -3.4e38 at index -1 instead of -inf at 0.
#define BLOCK 256

__device__ bool better(float v, int i, float bv, int bi) {
    return v > bv || (v == bv && i >= 0 && (bi < 0 || i < bi));
}

__global__ void argmax_rows(const float* x, float* values, int* indices, int C) {
    __shared__ float sv[BLOCK];
    __shared__ int si[BLOCK];
    const float* row = x + (long long)blockIdx.x * C;
    int tid = threadIdx.x;
    float best = -3.402823466e38f;
    int best_i = -1;
    for (int c = tid; c < C; c += BLOCK)
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
