// histogram1024.cu - 1024-bin histogram of 64M ints, one global int atomicAdd
// per element; values outside [0, 1024) are skipped by a guard.
#define CORPUS_NAME "histogram1024"
#define CORPUS_SEED 0x2de92c6fu
#include "corpus_common.h"

__global__ void histogram1024(int *bins, const int *data, int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = data[i];
    if (v >= 0 && v < nbins)
      atomicAdd(&bins[v], 1);
  }
}

int main() {
  const int n = 1 << 26, nbins = 1024;
  std::vector<int> hdata(n), ref(nbins, 0), got(nbins);
  for (int i = 0; i < n; ++i) {
    // Skewed towards low values, every bin hit; 1 in 64 out of range.
    uint32_t r = urand();
    int v = (int)((r & 0x3ff) & ((r >> 10) | 0x7f));
    if (((r >> 20) & 63) == 0)
      v = (r >> 26) & 1 ? -1 - v : nbins + v;
    hdata[i] = v;
    if (v >= 0 && v < nbins)
      ++ref[v];
  }
  int *data, *bins;
  CK(cudaMalloc(&data, (size_t)n * sizeof(int)));
  CK(cudaMalloc(&bins, nbins * sizeof(int)));
  CK(cudaMemcpy(data, hdata.data(), (size_t)n * sizeof(int),
                cudaMemcpyHostToDevice));
  CK(cudaMemset(bins, 0, nbins * sizeof(int)));
  histogram1024<<<(n + 255) / 256, 256>>>(bins, data, nbins, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(got.data(), bins, nbins * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaFree(data));
  CK(cudaFree(bins));
  int bad = 0;
  for (int b = 0; b < nbins; ++b)
    bad += got[b] != ref[b];
  if (bad) {
    std::printf("histogram1024: FAILED (%d of %d bins wrong)\n", bad, nbins);
    return 1;
  }
  std::printf("histogram1024: ok\n");
  return 0;
}
