// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=reassoc --passes='privatize-atomics{copies=1,items=1}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='privatize-atomics{copies=2,items=16}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='privatize-atomics{copies=4,items=64}' %s

// Privatized histograms count exactly what the original counts, for a size
// that is not a multiple of block * items, skewed data (many lanes of a warp
// hit the same bin) and bins the data never reach. The weighted float
// histogram is compared against an fp64 reference ("wsum.fp64").

#include "gpu_check.h"
#include <vector>

__global__ void histogram(unsigned int *bins, const unsigned char *data,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
}

// 64 bins from the low bits, only for keys below 48; early-return guard.
__global__ void lowBits(int *bins, const unsigned *key, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned b = key[i] & 63u;
  if (b < 48u)
    atomicAdd(&bins[b], 1);
}

__global__ void binMax(int *best, const unsigned char *data, const int *v,
                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(&best[data[i] % 32], v[i]);
}

__global__ void weighted(float *wsum, const unsigned char *data,
                         const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&wsum[data[i] >> 4], w[i]);
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int n = 1000003;
  std::vector<int> R(n), V(n);
  std::vector<float> W(n);
  gpu_check::fill_uniform(R.data(), n, Seed, 0, 1 << 30);
  gpu_check::fill_uniform(V.data(), n, Seed + 1, -100000, 100000);
  gpu_check::fill_uniform(W.data(), n, Seed + 2, -1.0f, 1.0f);
  std::vector<unsigned char> D(n);
  std::vector<unsigned> K(n);
  for (int k = 0; k < n; ++k) {
    unsigned r = (unsigned)R[k];
    D[k] = (unsigned char)((r & 0xff) & ((r >> 8) | 0x3f)); // skewed low
    K[k] = r;
  }
  unsigned char *DD;
  unsigned *DK, *DBins;
  int *DLow, *DBest, *DV;
  float *DW, *DWsum;
  GPU_CHECK(cudaMalloc(&DD, n));
  GPU_CHECK(cudaMalloc(&DK, n * sizeof(unsigned)));
  GPU_CHECK(cudaMalloc(&DV, n * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DW, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DBins, 256 * sizeof(unsigned)));
  GPU_CHECK(cudaMalloc(&DLow, 64 * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DBest, 32 * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DWsum, 16 * sizeof(float)));
  GPU_CHECK(cudaMemcpy(DD, D.data(), n, cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DK, K.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DV, V.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DW, W.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemset(DBins, 0, 256 * sizeof(unsigned)));
  GPU_CHECK(cudaMemset(DLow, 0, 64 * sizeof(int)));
  std::vector<int> BestInit(32, -2147483647 - 1);
  GPU_CHECK(cudaMemcpy(DBest, BestInit.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemset(DWsum, 0, 16 * sizeof(float)));

  histogram<<<(n + 255) / 256, 256>>>(DBins, DD, n);
  gpu_check::check_launch("histogram");
  const int m = n - 5;
  lowBits<<<(m + 127) / 128, 128>>>(DLow, DK, m);
  gpu_check::check_launch("lowBits");
  binMax<<<(n + 255) / 256, 256>>>(DBest, DD, DV, n);
  gpu_check::check_launch("binMax");
  weighted<<<(n + 191) / 192, 192>>>(DWsum, DD, DW, n);
  gpu_check::check_launch("weighted");

  std::vector<int> Bins(256), Low(64), Best(32);
  std::vector<float> Wsum(16);
  GPU_CHECK(cudaMemcpy(Bins.data(), DBins, 256 * sizeof(int), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Low.data(), DLow, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Best.data(), DBest, 32 * sizeof(int), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Wsum.data(), DWsum, 16 * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<double> Ref(16, 0.0);
  for (int k = 0; k < n; ++k)
    Ref[D[k] >> 4] += W[k];
  gpu_check::dump(argc, argv, "bins", Bins.data(), 256);
  gpu_check::dump(argc, argv, "low", Low.data(), 64);
  gpu_check::dump(argc, argv, "best", Best.data(), 32);
  gpu_check::dump(argc, argv, "wsum", Wsum.data(), 16);
  gpu_check::dump(argc, argv, "wsum.fp64", Ref.data(), 16);
  cudaFree(DD);
  cudaFree(DK);
  cudaFree(DV);
  cudaFree(DW);
  cudaFree(DBins);
  cudaFree(DLow);
  cudaFree(DBest);
  cudaFree(DWsum);
  return 0;
}
