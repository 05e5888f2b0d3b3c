// RE: the tile is loaded without the bounds check, so a partial tile at the bottom or right edge
// reads past the end of x (an out-of-bounds read on a GPU; the emulation names it).
#define TILE 32
#define ROWS 8

__global__ void transpose_tile(const float* x, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        tile[threadIdx.y + k][threadIdx.x] = x[(row + k) * cols + col];
    __syncthreads();
    col = blockIdx.y * TILE + threadIdx.x;
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
