// AC but slow on a GPU: no shared memory, one thread per element reading x along a row and
// writing out along a column, so every warp's 32 writes land in 32 different memory segments.
__global__ void transpose_naive(const float* x, float* out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c < cols) out[c * rows + r] = x[r * cols + c];
}

extern "C" void solve(const float* x, float* out, int rows, int cols) {
    dim3 grid((cols + 127) / 128, rows);
    transpose_naive<<<grid, 128>>>(x, out, rows, cols);
}
