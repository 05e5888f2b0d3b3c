// AC: one warp per (head, query row); the scores live in dynamic shared memory sized T at
// launch, and the maximum and the sum are reduced with __shfl_xor_sync (every lane gets them).
__device__ float warp_max(float x) {
    for (int off = 16; off > 0; off >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, off));
    return x;
}

__device__ float warp_sum(float x) {
    for (int off = 16; off > 0; off >>= 1) x += __shfl_xor_sync(0xffffffff, x, off);
    return x;
}

__global__ void attention_warp(const float* q, const float* k, const float* v, float* out,
                               int T, int d) {
    extern __shared__ float scores[];  // T floats
    int lane = threadIdx.x;
    int h = blockIdx.x / T, i = blockIdx.x % T;
    const float* qi = q + ((long long)h * T + i) * d;
    const float* kh = k + (long long)h * T * d;
    const float* vh = v + (long long)h * T * d;
    float scale = 1.0f / sqrtf((float)d);
    float m = -INFINITY;
    for (int j = lane; j <= i; j += 32) {
        float s = 0.0f;
        for (int c = 0; c < d; ++c) s += qi[c] * kh[j * d + c];
        scores[j] = s * scale;
        m = fmaxf(m, scores[j]);
    }
    m = warp_max(m);
    float l = 0.0f;
    for (int j = lane; j <= i; j += 32) {
        scores[j] = expf(scores[j] - m);
        l += scores[j];
    }
    l = warp_sum(l);
    __syncwarp(0xffffffff);  // every lane's scores written before any lane reads them all
    for (int c = lane; c < d; c += 32) {
        float acc = 0.0f;
        for (int j = 0; j <= i; ++j) acc += scores[j] * vh[j * d + c];
        out[((long long)h * T + i) * d + c] = acc / l;
    }
}

extern "C" void solve(const float* q, const float* k, const float* v, float* out, int H, int T,
                      int d) {
    attention_warp<<<H * T, 32, T * sizeof(float)>>>(q, k, v, out, T, d);
}
