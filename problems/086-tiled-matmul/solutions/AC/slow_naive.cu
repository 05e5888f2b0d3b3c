// AC but slow on a GPU: no shared memory; each thread reads its whole row of A and column of B
// from global memory, K times more traffic than the tiled kernel saves through reuse.
__global__ void matmul_naive(const float* a, const float* b, float* c, int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += a[row * K + k] * b[k * N + col];
    c[row * N + col] = acc;
}

extern "C" void solve(const float* a, const float* b, float* c, int M, int N, int K) {
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    matmul_naive<<<grid, block>>>(a, b, c, M, N, K);
}
