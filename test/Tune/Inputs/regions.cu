// Host regions for test/Tune/dry-run-regions.test: a histogram launch and
// a segmented maximum CUB can compute (routed, with the kernels' in-place
// rewrites as their rivals), and a chain of two elementwise launches
// (fused).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void histogram(unsigned int *bins, const unsigned char *data,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
}

__global__ void scale(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i];
}

__global__ void shift(float *z, const float *y, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = y[i] + b;
}

__global__ void segment_max(int *out, const int *offsets, const int *in,
                            int segments) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < segments) {
    int m = -2147483647 - 1;
    for (int j = offsets[s]; j < offsets[s + 1]; ++j)
      m = max(m, in[j]);
    out[s] = m;
  }
}

static int count(const unsigned char *data, unsigned int *bins, int n) {
  cudaMemset(bins, 0, 256 * sizeof(unsigned int));
  histogram<<<(n + 255) / 256, 256>>>(bins, data, n);
  return cudaDeviceSynchronize() != cudaSuccess;
}

int main() {
  const int n = 1 << 20;
  unsigned char *data;
  unsigned int *bins;
  float *x, *y, *z;
  cudaMalloc(&data, n);
  cudaMalloc(&bins, 256 * sizeof(unsigned int));
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&z, n * sizeof(float));
  cudaMemset(data, 7, n);
  cudaMemset(x, 0, n * sizeof(float));
  int bad = count(data, bins, n);
  scale<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  shift<<<(n + 255) / 256, 256>>>(z, y, 1.0f, n);
  bad += cudaDeviceSynchronize() != cudaSuccess;
  const int segments = 1024;
  int *offsets, *values, *maxima;
  cudaMalloc(&offsets, 1025 * sizeof(int));
  cudaMalloc(&values, n * sizeof(int));
  cudaMalloc(&maxima, 1024 * sizeof(int));
  cudaMemset(offsets, 0, 1025 * sizeof(int));
  segment_max<<<(segments + 255) / 256, 256>>>(maxima, offsets, values,
                                               segments);
  bad += cudaDeviceSynchronize() != cudaSuccess;
  int top[1];
  cudaMemcpy(top, maxima, sizeof top, cudaMemcpyDeviceToHost);
  unsigned int h[256];
  cudaMemcpy(h, bins, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("%u %d\n", h[7], bad);
  return bad;
}
