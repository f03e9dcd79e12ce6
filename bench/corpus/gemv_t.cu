// gemv_t.cu - y = A^T x for a row-major 16384 x 16384 matrix A, one thread
// per output column walking down its column of A (neighbouring threads read
// neighbouring addresses; each thread loops over all 16384 rows).
#define CORPUS_NAME "gemv_t"
#define CORPUS_SEED 0xc19bf174u
#include "corpus_common.h"

__global__ void gemv_t(float *y, const float *A, const float *x, int rows,
                       int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r)
      sum += A[r * cols + c] * x[r];
    y[c] = sum;
  }
}

int main() {
  const int rows = 16384, cols = 16384;
  std::vector<float> hA((size_t)rows * cols), hx(rows), hy(cols);
  fill_uniform(hA, -1.0f, 1.0f);
  fill_uniform(hx, -1.0f, 1.0f);
  float *A, *x, *y;
  CK(cudaMalloc(&A, hA.size() * sizeof(float)));
  CK(cudaMalloc(&x, hx.size() * sizeof(float)));
  CK(cudaMalloc(&y, hy.size() * sizeof(float)));
  CK(cudaMemcpy(A, hA.data(), hA.size() * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(x, hx.data(), hx.size() * sizeof(float),
                cudaMemcpyHostToDevice));
  gemv_t<<<(cols + 255) / 256, 256>>>(y, A, x, rows, cols);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hy.data(), y, hy.size() * sizeof(float),
                cudaMemcpyDeviceToHost));
  // Accumulate the reference row by row (the order A is stored in).
  std::vector<double> ref(cols, 0.0), mag(cols, 0.0);
  for (int r = 0; r < rows; ++r) {
    const float *a = &hA[(size_t)r * cols];
    for (int c = 0; c < cols; ++c) {
      double p = (double)a[c] * hx[r];
      ref[c] += p;
      mag[c] += std::fabs(p);
    }
  }
  int bad = 0;
  for (int c = 0; c < cols; ++c)
    bad += !(std::fabs(hy[c] - ref[c]) <= 1e-4 * mag[c] + 1e-6);
  CK(cudaFree(A));
  CK(cudaFree(x));
  CK(cudaFree(y));
  if (bad) {
    std::printf("gemv_t: FAILED (%d of %d outputs wrong)\n", bad, cols);
    return 1;
  }
  std::printf("gemv_t: ok\n");
  return 0;
}
