// Kernels for test/Tune/predicted-rewrite.test: an elementwise map, a
// float row sum written one thread per row (its best measured rewrites
// reorder the sum), and a transpose.
#include <cstdio>

__global__ void scale(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i];
}

__global__ void row_sum(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += in[r * cols + j];
    out[r] = s;
  }
}

__global__ void transpose(float *out, const float *in, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

int main() {
  const int n = 1 << 20, rows = 4096, cols = 256;
  float *x, *y, *m, *t;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&m, rows * cols * sizeof(float));
  cudaMalloc(&t, rows * cols * sizeof(float));
  scale<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  row_sum<<<(rows + 255) / 256, 256>>>(y, m, rows, cols);
  transpose<<<dim3(cols / 32, rows / 8), dim3(32, 8)>>>(t, m, rows, cols);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
