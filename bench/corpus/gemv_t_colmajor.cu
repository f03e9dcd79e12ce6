// gemv_t_colmajor.cu - y = A^T x for a column-major 4096 x 65536 matrix A
// (rows x cols), one thread per output column. Column c is contiguous in
// memory, so each thread walks its own 16 KB run while neighbouring threads
// are 16 KB apart: every load of a warp touches 32 different lines.
#define CORPUS_NAME "gemv_t_colmajor"
#define CORPUS_SEED 0xe49b69c1u
#include "corpus_common.h"

__global__ void gemv_t_colmajor(float *y, const float *A, const float *x,
                                int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r)
      sum += A[c * rows + r] * x[r];
    y[c] = sum;
  }
}

int main() {
  const int rows = 4096, cols = 65536;
  std::vector<float> hA((size_t)rows * cols), hx(rows), hy(cols);
  fill_uniform(hA, -1.0f, 1.0f);
  fill_uniform(hx, -0.5f, 1.5f);
  float *A, *x, *y;
  CK(cudaMalloc(&A, hA.size() * sizeof(float)));
  CK(cudaMalloc(&x, hx.size() * sizeof(float)));
  CK(cudaMalloc(&y, hy.size() * sizeof(float)));
  CK(cudaMemcpy(A, hA.data(), hA.size() * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(x, hx.data(), hx.size() * sizeof(float),
                cudaMemcpyHostToDevice));
  gemv_t_colmajor<<<(cols + 255) / 256, 256>>>(y, A, x, rows, cols);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hy.data(), y, hy.size() * sizeof(float),
                cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int c = 0; c < cols; ++c) {
    const float *a = &hA[(size_t)c * rows];
    double ref = 0, mag = 0;
    for (int r = 0; r < rows; ++r) {
      double p = (double)a[r] * hx[r];
      ref += p;
      mag += std::fabs(p);
    }
    bad += !(std::fabs(hy[c] - ref) <= 1e-4 * mag + 1e-6);
  }
  CK(cudaFree(A));
  CK(cudaFree(x));
  CK(cudaFree(y));
  if (bad) {
    std::printf("gemv_t_colmajor: FAILED (%d of %d outputs wrong)\n", bad,
                cols);
    return 1;
  }
  std::printf("gemv_t_colmajor: ok\n");
  return 0;
}
