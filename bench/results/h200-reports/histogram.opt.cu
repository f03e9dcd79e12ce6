// histogram.cu - 256-bin histogram of 32M bytes, one global atomicAdd per
// element.
#define CORPUS_NAME "histogram"
#define CORPUS_SEED 0x71374491u
#include "corpus_common.h"

__global__ void histogram(unsigned int *bins, const unsigned char *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
}

int main() {
  const int n = 1 << 25;
  std::vector<unsigned char> hdata(n);
  std::vector<unsigned int> ref(256, 0), got(256);
  for (int i = 0; i < n; ++i) {
    // Skewed towards low values (like image data), but every bin is hit.
    uint32_t r = urand();
    hdata[i] = (unsigned char)((r & 0xff) & ((r >> 8) | 0x3f));
    ++ref[hdata[i]];
  }
  unsigned char *data;
  unsigned int *bins;
  CK(cudaMalloc(&data, (size_t)n));
  CK(cudaMalloc(&bins, 256 * sizeof(unsigned int)));
  CK(cudaMemcpy(data, hdata.data(), (size_t)n, cudaMemcpyHostToDevice));
  CK(cudaMemset(bins, 0, 256 * sizeof(unsigned int)));
  histogram<<<(n + 255) / 256, 256>>>(bins, data, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(got.data(), bins, 256 * sizeof(unsigned int),
                cudaMemcpyDeviceToHost));
  CK(cudaFree(data));
  CK(cudaFree(bins));
  int bad = 0;
  for (int b = 0; b < 256; ++b)
    bad += got[b] != ref[b];
  if (bad) {
    std::printf("histogram: FAILED (%d of 256 bins wrong)\n", bad);
    return 1;
  }
  std::printf("histogram: ok\n");
  return 0;
}
