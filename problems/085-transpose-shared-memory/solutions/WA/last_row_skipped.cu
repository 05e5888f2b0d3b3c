// WA: an off-by-one between an inclusive and an exclusive bound: `last_row` is the index of the
// last row, and `row + k < last_row` never loads it, so the last column of out stays unwritten.
#define TILE 32
#define ROWS 8

__global__ void transpose_tile(const float* x, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int last_row = rows - 1;
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        if (col < cols && row + k < last_row)
            tile[threadIdx.y + k][threadIdx.x] = x[(row + k) * cols + col];
    __syncthreads();
    col = blockIdx.y * TILE + threadIdx.x;
    row = blockIdx.x * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        if (col < last_row && row + k < cols)
            out[(row + k) * rows + col] = tile[threadIdx.x][threadIdx.y + k];
}

extern "C" void solve(const float* x, float* out, int rows, int cols) {
    dim3 block(TILE, ROWS);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_tile<<<grid, block>>>(x, out, rows, cols);
}
