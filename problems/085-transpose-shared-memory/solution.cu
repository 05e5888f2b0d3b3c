// Transpose through a shared tile: a block of 32 x 8 threads moves one 32 x 32 tile. Reads of x
// and writes of out are both along rows (coalesced); the column access happens in shared memory,
// whose rows are padded to 33 floats so that a column's 32 elements fall in 32 different banks.
#define TILE 32
#define ROWS 8

__global__ void transpose_tile(const float* x, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        if (col < cols && row + k < rows)
            tile[threadIdx.y + k][threadIdx.x] = x[(row + k) * cols + col];
    __syncthreads();  // the whole tile is in shared memory before anyone reads a column of it
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
