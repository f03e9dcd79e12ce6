// A 256-bin histogram of 16M bytes, one global atomicAdd per element:
// tune's region phase measures CUB's histogram against the kernel's
// in-place rewrites (privatised atomics) in one run
// (test/GPU/program/region-rivals.test).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e),         \
                  __LINE__);                                                   \
      return 1;                                                                \
    }                                                                          \
  } while (0)

__global__ void histogram(unsigned int *bins, const unsigned char *data,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
}

int main() {
  const int n = 1 << 24;
  std::vector<unsigned char> hdata(n);
  std::vector<unsigned int> ref(256, 0), got(256);
  unsigned int s = 12345u;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    hdata[i] = (unsigned char)(s >> 24);
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
  std::printf(bad ? "histogram: FAILED\n" : "histogram: ok\n");
  return bad != 0;
}
