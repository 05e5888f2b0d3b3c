// AC: one warp per row (4 rows per block) and an online softmax: a single sweep keeps a running
// maximum m and a running sum s of exp(x - m), rescaling s whenever m grows; lanes then merge
// their (m, s) pairs with shuffles, and a second sweep stores. No shared memory, no barrier.
#include <math.h>

__global__ void softmax_kernel(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;  // the whole warp leaves together
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = in[c];
        if (v > m) {
            s = s * expf(m - v) + 1.0f;  // exp(-inf) = 0 on the first element
            m = v;
        } else {
            s += expf(v - m);
        }
    }
    for (int k = 16; k > 0; k >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffff, m, k);
        float s2 = __shfl_xor_sync(0xffffffff, s, k);
        float top = fmaxf(m, m2);
        // a lane that saw no column has m = -inf and s = 0: it must add nothing (and no NaN)
        float a = s == 0.0f ? 0.0f : s * expf(m - top);
        float b = s2 == 0.0f ? 0.0f : s2 * expf(m2 - top);
        m = top;
        s = a + b;
    }
    float inv = 1.0f / s;
    for (int c = lane; c < cols; c += 32) out[c] = expf(in[c] - m) * inv;
}

extern "C" void solve(const float* x, float* y, int rows, int cols) {
    softmax_kernel<<<(rows + 3) / 4, 128>>>(x, y, rows, cols);
}
