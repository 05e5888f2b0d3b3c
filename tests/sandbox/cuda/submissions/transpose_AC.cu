// out = x^T for a rows x cols matrix, through a 32 x 33 shared tile (the +1 avoids bank conflicts).
#define TILE 32
#define ROWS 8

__global__ void transpose(const float* x, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        if (c < cols && r + k < rows) tile[threadIdx.y + k][threadIdx.x] = x[(r + k) * cols + c];
    __syncthreads();
    c = blockIdx.y * TILE + threadIdx.x;
    r = blockIdx.x * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        if (c < rows && r + k < cols) out[(r + k) * rows + c] = tile[threadIdx.x][threadIdx.y + k];
}

extern "C" void solve(const float* x, float* out, int rows, int cols) {
    dim3 block(TILE, ROWS);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose<<<grid, block>>>(x, out, rows, cols);
}
