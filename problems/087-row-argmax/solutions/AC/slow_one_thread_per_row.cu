// AC but slow on a GPU: one thread per row scans the whole row alone, and neighbouring threads
// read addresses C floats apart (no coalescing), with R threads where R * 256 could work.
__global__ void argmax_serial(const float* x, float* values, int* indices, int R, int C) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= R) return;
    const float* row = x + (long long)r * C;
    float best = row[0];
    int best_i = 0;
    for (int c = 1; c < C; ++c)
        if (row[c] > best) best = row[c], best_i = c;
    values[r] = best;
    indices[r] = best_i;
}

extern "C" void solve(const float* x, float* values, int* indices, int R, int C) {
    argmax_serial<<<(R + 63) / 64, 64>>>(x, values, indices, R, C);
}
