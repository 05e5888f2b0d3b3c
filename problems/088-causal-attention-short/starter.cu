// Problem 88: causal attention forward, q, k, v, out all [H, T, d] row-major float32:
// out[h][i] = sum_{j <= i} softmax_j(q[h][i] . k[h][j] / sqrt(d)) v[h][j].
// Fill in the kernel; keep the launch function's signature.
#define BLOCK 128

__global__ void attention_row(const float* q, const float* k, const float* v, float* out,
                              int T, int d) {
    int h = blockIdx.x / T, i = blockIdx.x % T;
    // TODO: scores for keys 0..i, their maximum, exp(score - max) and its sum, then the
    // weighted sum of the values. For now every row copies its own value row (right for i = 0).
    for (int c = threadIdx.x; c < d; c += BLOCK)
        out[((long long)h * T + i) * d + c] = v[((long long)h * T + i) * d + c];
}

extern "C" void solve(const float* q, const float* k, const float* v, float* out, int H, int T,
                      int d) {
    attention_row<<<H * T, BLOCK>>>(q, k, v, out, T, d);
}
