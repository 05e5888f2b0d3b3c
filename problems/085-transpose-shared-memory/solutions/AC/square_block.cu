// AC: one thread per element of a 32 x 32 tile (blocks of 1024 threads), padded shared tile.
#define T 32

__global__ void transpose_square(const float* __restrict__ x, float* __restrict__ out,
                                 int rows, int cols) {
    __shared__ float tile[T][T + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int r = blockIdx.y * T + ty, c = blockIdx.x * T + tx;
    if (r < rows && c < cols) tile[ty][tx] = x[r * cols + c];
    __syncthreads();
    int orow = blockIdx.x * T + ty, ocol = blockIdx.y * T + tx;  // out[orow][ocol] = x[ocol][orow]
    if (orow < cols && ocol < rows) out[orow * rows + ocol] = tile[tx][ty];
}

extern "C" void solve(const float* x, float* out, int rows, int cols) {
    dim3 grid((cols + T - 1) / T, (rows + T - 1) / T);
    transpose_square<<<grid, dim3(T, T)>>>(x, out, rows, cols);
}
