// AC: 32 x 32 tiles of C per block of 16 x 16 threads, each thread computing a 2 x 2 block of
// outputs from registers (more work per shared-memory read); tiles of 32 along K.
#define BM 32
#define BK 32

__global__ void matmul_2x2(const float* a, const float* b, float* c, int M, int N, int K) {
    __shared__ float as[BM][BK + 1];
    __shared__ float bs[BK][BM + 1];
    int tx = threadIdx.x, ty = threadIdx.y;  // 16 x 16
    int tid = ty * 16 + tx;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BM;
    float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < BM * BK; e += 256) {  // 4 elements of each tile per thread
            int r = e / BK, k = e % BK;
            as[r][k] = (row0 + r < M && k0 + k < K) ? a[(row0 + r) * K + k0 + k] : 0.0f;
            int kk = e / BM, cc = e % BM;
            bs[kk][cc] = (k0 + kk < K && col0 + cc < N) ? b[(k0 + kk) * N + col0 + cc] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < BK; ++k)
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j) acc[i][j] += as[ty * 2 + i][k] * bs[k][tx * 2 + j];
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            int r = row0 + ty * 2 + i, cc = col0 + tx * 2 + j;
            if (r < M && cc < N) c[r * N + cc] = acc[i][j];
        }
}

extern "C" void solve(const float* a, const float* b, float* c, int M, int N, int K) {
    dim3 grid((N + BM - 1) / BM, (M + BM - 1) / BM);
    matmul_2x2<<<grid, dim3(16, 16)>>>(a, b, c, M, N, K);
}
