// C = A @ B with 16 x 16 shared tiles: each block computes a 16 x 16 tile of C, walking along K
// one pair of tiles at a time. A thread loads one element of each tile (zero past the edges),
// the block syncs, every thread accumulates 16 products from shared memory, and the block syncs
// again before the next pair overwrites the tiles.
#define TILE 16

__global__ void matmul_tiled(const float* a, const float* b, float* c, int M, int N, int K) {
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        as[ty][tx] = (row < M && k0 + tx < K) ? a[row * K + k0 + tx] : 0.0f;
        bs[ty][tx] = (k0 + ty < K && col < N) ? b[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();  // both tiles complete
        for (int k = 0; k < TILE; ++k) acc += as[ty][k] * bs[k][tx];
        __syncthreads();  // everyone done with these tiles before they are overwritten
    }
    if (row < M && col < N) c[row * N + col] = acc;
}

extern "C" void solve(const float* a, const float* b, float* c, int M, int N, int K) {
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(a, b, c, M, N, K);
}
