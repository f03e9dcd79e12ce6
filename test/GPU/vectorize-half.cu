// REQUIRES: cuda-device
// RUN: %gpu_equiv --passes='vectorize{width=2}' %s

// half2 vectorization of a __half kernel, with an odd element count.

#include "gpu_check.h"
#include <vector>

__global__ void hfma(__half *out, const __half *a, const __half *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __hfma(a[i], b[i], out[i]);
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int n = 1000003;
  std::vector<__half> A(n), B(n), Out(n);
  gpu_check::fill_uniform(A.data(), n, Seed, -1.0f, 1.0f);
  gpu_check::fill_uniform(B.data(), n, Seed + 11, -1.0f, 1.0f);
  gpu_check::fill_uniform(Out.data(), n, Seed + 13, -1.0f, 1.0f);
  __half *DA, *DB, *DOut;
  GPU_CHECK(cudaMalloc(&DA, n * sizeof(__half)));
  GPU_CHECK(cudaMalloc(&DB, n * sizeof(__half)));
  GPU_CHECK(cudaMalloc(&DOut, n * sizeof(__half)));
  GPU_CHECK(cudaMemcpy(DA, A.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DB, B.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DOut, Out.data(), n * sizeof(__half), cudaMemcpyHostToDevice));

  hfma<<<(n + 255) / 256, 256>>>(DOut, DA, DB, n);
  gpu_check::check_launch("hfma");

  GPU_CHECK(cudaMemcpy(Out.data(), DOut, n * sizeof(__half), cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "out", Out.data(), n);
  cudaFree(DA);
  cudaFree(DB);
  cudaFree(DOut);
  return 0;
}
