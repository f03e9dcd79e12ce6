// REQUIRES: cuda-device
// RUN: %gpu_equiv --passes='grid-stride' %s
// RUN: %gpu_equiv --passes='grid-stride{blocks-per-sm=2}' %s

// Grid-stride loops compute the same outputs as one element per thread, for
// sizes that are not multiples of the block size, with and without a capped
// grid (where each thread then loops over many elements).

#include "gpu_check.h"
#include <cstddef>
#include <vector>

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void clampAbove(float *p, size_t n, float hi) {
  size_t i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n)
    return;
  if (p[i] < hi)
    return;
  p[i] = hi;
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int n = 1000003;
  std::vector<float> X(n), Y(n);
  gpu_check::fill_uniform(X.data(), n, Seed, -1.0f, 1.0f);
  gpu_check::fill_uniform(Y.data(), n, Seed + 100, -1.0f, 1.0f);
  float *DX, *DY;
  GPU_CHECK(cudaMalloc(&DX, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DY, n * sizeof(float)));
  GPU_CHECK(cudaMemcpy(DX, X.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DY, Y.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  saxpy<<<(n + 255) / 256, 256>>>(DY, DX, 1.5f, n);
  gpu_check::check_launch("saxpy");
  const size_t m = n - 7;
  const int threads = 96;
  size_t blocks = (m + threads - 1) / threads;
  clampAbove<<<blocks, threads>>>(DY, m, 0.5f);
  gpu_check::check_launch("clampAbove");

  GPU_CHECK(cudaMemcpy(Y.data(), DY, n * sizeof(float), cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "y", Y.data(), n);
  cudaFree(DX);
  cudaFree(DY);
  return 0;
}
