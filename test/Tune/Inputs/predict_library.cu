// Kernels for test/Tune/predicted-rewrite.test launched from another file
// (no launch site here, no main).
__global__ void row_max(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = in[r * cols];
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, in[r * cols + j]);
    out[r] = m;
  }
}
__global__ void count_pos(int *count, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.0f)
    atomicAdd(count, 1);
}
__global__ void scale(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i];
}
