// gemv16.cu - y = A x for a row-major 4096 x 65536 matrix, one thread per
// row: 4096 rows make only 16 blocks of 256 threads (16 of the GPU's SMs),
// each thread walking its own 256 KB row.
#define CORPUS_NAME "gemv16"
#define CORPUS_SEED 0xefbe4786u
#include "corpus_common.h"

__global__ void gemv16(float *y, const float *A, const float *x, int rows,
                       int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      sum += A[i * cols + j] * x[j];
    y[i] = sum;
  }
}

int main() {
  const int rows = 4096, cols = 65536;
  std::vector<float> hA((size_t)rows * cols), hx(cols), hy(rows);
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
  gemv16<<<(rows + 255) / 256, 256>>>(y, A, x, rows, cols);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hy.data(), y, hy.size() * sizeof(float),
                cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < rows; ++i) {
    double ref = 0, mag = 0;
    const float *a = &hA[(size_t)i * cols];
    for (int j = 0; j < cols; ++j) {
      double p = (double)a[j] * hx[j];
      ref += p;
      mag += std::fabs(p);
    }
    bad += !(std::fabs(hy[i] - ref) <= 1e-4 * mag + 1e-6);
  }
  CK(cudaFree(A));
  CK(cudaFree(x));
  CK(cudaFree(y));
  if (bad) {
    std::printf("gemv16: FAILED (%d of %d rows wrong)\n", bad, rows);
    return 1;
  }
  std::printf("gemv16: ok\n");
  return 0;
}
