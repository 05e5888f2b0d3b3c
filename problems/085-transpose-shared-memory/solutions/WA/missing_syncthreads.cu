// WA: the __syncthreads() between filling the tile and reading its columns is missing, so a
// thread reads entries that other warps of its block may not have stored yet (a race).
#define TILE 32
#define ROWS 8

__global__ void transpose_tile(const float* x, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        if (col < cols && row + k < rows)
            tile[threadIdx.y + k][threadIdx.x] = x[(row + k) * cols + col];
    // (no barrier: threads read tile entries that other threads have not written yet)
    col = blockIdx.y * TILE + threadIdx.x;  // out is cols x rows: the block's tile, mirrored
    row = blockIdx.x * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        if (col < rows && row + k < cols)
            out[(row + k) * rows + col] = tile[threadIdx.x][threadIdx.y + k];
}

extern "C" void solve(const float* x, float* out, int rows, int cols) {
    dim3 block(TILE, ROWS);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_tile<<<grid, block>>>(x, out, rows, cols);
}
