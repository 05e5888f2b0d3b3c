// Problem 85: out = x^T through a shared-memory tile. x is rows x cols (row-major), out is
// cols x rows. Fill in the kernel; keep the launch function's signature.
#define TILE 32
#define ROWS 8

__global__ void transpose_tile(const float* x, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];  // + 1: no bank conflicts when reading a column
    // TODO: load this block's tile of x into `tile` (guard both bounds), __syncthreads(),
    // then write the tile's transpose into out (guard both bounds again).
}

extern "C" void solve(const float* x, float* out, int rows, int cols) {
    dim3 block(TILE, ROWS);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_tile<<<grid, block>>>(x, out, rows, cols);
}
