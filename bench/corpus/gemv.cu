// gemv.cu - y = A * x for a row-major 16384 x 16384 matrix, one thread per
// row (each thread walks its own row).
#define CORPUS_NAME "gemv"
#define CORPUS_SEED 0x510e527fu
#include "corpus_common.h"

__global__ void gemv(float *y, const float *A, const float *x, int rows,
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
  const int rows = 16384, cols = 16384;
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
  gemv<<<(rows + 255) / 256, 256>>>(y, A, x, rows, cols);
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
    std::printf("gemv: FAILED (%d of %d rows wrong)\n", bad, rows);
    return 1;
  }
  std::printf("gemv: ok\n");
  return 0;
}
