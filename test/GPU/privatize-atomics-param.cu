// REQUIRES: cuda-device
// RUN: %gpu_equiv --passes='privatize-atomics{copies=1,items=16,capacity=1024}' %s
// RUN: %gpu_equiv --passes='privatize-atomics{copies=2,items=4,capacity=4096}' %s
// RUN: %gpu_equiv --plant='b < nbins;=>b < nbins - 1;' --passes='privatize-atomics{copies=1,items=16,capacity=1024}' %s

// Bins bounded by a launch argument (`if (v < nbins)`): 1000 bins take the
// private copies; 3000 bins are over capacity=1024 and keep the global
// atomics (with capacity=4096 both launches are private). Data outside
// [0, nbins) is skipped in both. The plant drops the flush of the last bin.

#include "gpu_check.h"
#include <vector>

__global__ void paramHistogram(int *bins, const int *data, int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = data[i];
    if (v >= 0 && v < nbins)
      atomicAdd(&bins[v], 1);
  }
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int n = 1000003;
  std::vector<int> D(n);
  gpu_check::fill_uniform(D.data(), n, Seed, -50, 3100);
  int *DD, *DSmall, *DLarge;
  GPU_CHECK(cudaMalloc(&DD, n * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DSmall, 1000 * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DLarge, 3000 * sizeof(int)));
  GPU_CHECK(cudaMemcpy(DD, D.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemset(DSmall, 0, 1000 * sizeof(int)));
  GPU_CHECK(cudaMemset(DLarge, 0, 3000 * sizeof(int)));
  int nbins = 1000;
  paramHistogram<<<(n + 255) / 256, 256>>>(DSmall, DD, nbins, n);
  gpu_check::check_launch("paramHistogram small");
  nbins = 3000;
  paramHistogram<<<(n + 255) / 256, 256>>>(DLarge, DD, nbins, n);
  gpu_check::check_launch("paramHistogram large");
  std::vector<int> Small(1000), Large(3000);
  GPU_CHECK(cudaMemcpy(Small.data(), DSmall, 1000 * sizeof(int), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Large.data(), DLarge, 3000 * sizeof(int), cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "small", Small.data(), 1000);
  gpu_check::dump(argc, argv, "large", Large.data(), 3000);
  cudaFree(DD);
  cudaFree(DSmall);
  cudaFree(DLarge);
  return 0;
}
