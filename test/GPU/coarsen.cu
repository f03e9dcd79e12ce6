// REQUIRES: cuda-device
// RUN: %gpu_equiv --passes='coarsen{factor=4}' %s
// RUN: %gpu_equiv --passes='coarsen{factor=16}' %s
// RUN: %gpu_equiv --passes='coarsen{factor=2},launch-bounds' %s

// Coarsened kernels compute the same outputs for sizes that are not a
// multiple of block * factor; the in-place kernel reads and writes the same
// element from one thread.

#include "gpu_check.h"
#include <vector>

__global__ void axpby(float *out, const float *x, const float *y, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float t = a * x[i];
    out[i] = t + b * y[i];
  }
}

__global__ void squareInPlace(int *p, unsigned n) {
  unsigned i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n)
    return;
  if (p[i] < 0)
    return;
  p[i] = p[i] * p[i] % 1000;
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int n = 1000003;
  std::vector<float> X(n), Y(n), Out(n);
  std::vector<int> P(n);
  gpu_check::fill_uniform(X.data(), n, Seed, -2.0f, 2.0f);
  gpu_check::fill_uniform(Y.data(), n, Seed + 1, -2.0f, 2.0f);
  gpu_check::fill_uniform(P.data(), n, Seed + 2, -500, 500);
  float *DX, *DY, *DOut;
  int *DP;
  GPU_CHECK(cudaMalloc(&DX, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DY, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DOut, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DP, n * sizeof(int)));
  GPU_CHECK(cudaMemcpy(DX, X.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DY, Y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemset(DOut, 0, n * sizeof(float)));
  GPU_CHECK(cudaMemcpy(DP, P.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  axpby<<<(n + 255) / 256, 256>>>(DOut, DX, DY, 0.75f, -1.25f, n);
  gpu_check::check_launch("axpby");
  const unsigned m = n - 1000;
  squareInPlace<<<(m + 127) / 128, 128>>>(DP, m);
  gpu_check::check_launch("squareInPlace");

  GPU_CHECK(cudaMemcpy(Out.data(), DOut, n * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(P.data(), DP, n * sizeof(int), cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "out", Out.data(), n);
  gpu_check::dump(argc, argv, "p", P.data(), n);
  cudaFree(DX);
  cudaFree(DY);
  cudaFree(DOut);
  cudaFree(DP);
  return 0;
}
