// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=reassoc --passes='block-reduce{items=16}' --kernel=countAbove %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='block-reduce{items=4}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='privatize-atomics{copies=1,items=8}' --kernel=binsAbove %s
// Planted bug: every thread folds one element fewer.
// RUN: %gpu_equiv --fp-model=reassoc --plant='c < 16;=>c < 15;' --passes='block-reduce{items=16}' --kernel=countAbove %s

// Guards that test more than the bounds, `if (i < n && x[i] > t)`: the
// conditions stay with each element, so block-reduce and privatize-atomics
// fold the same elements as the original. The count is an int, compared
// exactly; the untouched float kernel's atomics make its sum vary from run
// to run, so every run uses the reassoc rule for it.

#include "gpu_check.h"
#include <vector>

__global__ void countAbove(int *count, const float *x, float t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > t)
    atomicAdd(count, 1);
}

__global__ void sumPositive(float *sum, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.0f && x[i] < 0.75f)
    atomicAdd(sum, x[i]);
}

__global__ void binsAbove(int *bins, const int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && v[i] >= 0)
    atomicAdd(&bins[v[i] & 63], 1);
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int n = 1000003;
  std::vector<float> X(n);
  std::vector<int> V(n);
  gpu_check::fill_uniform(X.data(), n, Seed, -1.0f, 1.0f);
  gpu_check::fill_uniform(V.data(), n, Seed + 1, -200, 1000);
  float *DX, *DSum;
  int *DV, *DCount, *DBins;
  GPU_CHECK(cudaMalloc(&DX, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DV, n * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DSum, sizeof(float)));
  GPU_CHECK(cudaMalloc(&DCount, sizeof(int)));
  GPU_CHECK(cudaMalloc(&DBins, 64 * sizeof(int)));
  GPU_CHECK(cudaMemcpy(DX, X.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DV, V.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemset(DSum, 0, sizeof(float)));
  GPU_CHECK(cudaMemset(DCount, 0, sizeof(int)));
  GPU_CHECK(cudaMemset(DBins, 0, 64 * sizeof(int)));

  countAbove<<<(n + 255) / 256, 256>>>(DCount, DX, 0.5f, n);
  gpu_check::check_launch("countAbove");
  sumPositive<<<(n + 127) / 128, 128>>>(DSum, DX, n);
  gpu_check::check_launch("sumPositive");
  binsAbove<<<(n + 255) / 256, 256>>>(DBins, DV, n);
  gpu_check::check_launch("binsAbove");

  int Count = 0;
  float Sum = 0;
  std::vector<int> Bins(64);
  GPU_CHECK(cudaMemcpy(&Count, DCount, sizeof(int), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(&Sum, DSum, sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Bins.data(), DBins, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  double Ref = 0;
  for (int I = 0; I < n; ++I)
    if (X[I] > 0.0f && X[I] < 0.75f)
      Ref += X[I];
  gpu_check::dump(argc, argv, "count", &Count, 1);
  gpu_check::dump(argc, argv, "sum", &Sum, 1);
  gpu_check::dump(argc, argv, "sum.fp64", &Ref, 1);
  gpu_check::dump(argc, argv, "bins", Bins.data(), 64);
  return 0;
}
