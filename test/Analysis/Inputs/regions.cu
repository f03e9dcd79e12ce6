#include <cstdio>
#include <cstdlib>
#include <utility>
#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("%s\n", cudaGetErrorString(e_));                             \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void scale(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i];
}
__global__ void shift(float *y, const float *x, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] + b;
}
__global__ void accumulate(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += x[i];
}
__global__ void stencil(float *next, const float *cur, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    next[i] = 0.25f * cur[i - 1] + 0.5f * cur[i] + 0.25f * cur[i + 1];
}

// A chain: tmp is written then read, dead after the region (only freed).
void chain(float *out, const float *in, int n) {
  float *tmp;
  CK(cudaMalloc(&tmp, n * sizeof(float)));
  scale<<<(n + 255) / 256, 256>>>(tmp, in, 2.0f, n);
  CK(cudaGetLastError());
  shift<<<(n + 255) / 256, 256>>>(out, tmp, 1.0f, n);
  CK(cudaGetLastError());
  CK(cudaFree(tmp));
}

// A time loop with ping-pong buffers.
void sweeps(float *a, float *b, int n) {
  for (int t = 0; t < 10; ++t) {
    stencil<<<(n + 255) / 256, 256>>>(b, a, n);
    std::swap(a, b);
  }
}

// A memset and a device copy join the region; a host copy ends it.
void with_memory(float *y, float *z, const float *x, float *host, int n) {
  cudaMemset(y, 0, n * sizeof(float));
  accumulate<<<(n + 255) / 256, 256>>>(y, x, n);
  cudaMemcpy(z, y, n * sizeof(float), cudaMemcpyDeviceToDevice);
  accumulate<<<(n + 255) / 256, 256>>>(z, x, n);
  cudaMemcpy(host, z, n * sizeof(float), cudaMemcpyDeviceToHost);
  scale<<<(n + 255) / 256, 256>>>(y, z, 3.0f, n);
}

// A launch on a stream ends the run before it.
void on_stream(float *y, const float *x, int n, cudaStream_t s) {
  scale<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  shift<<<(n + 255) / 256, 256>>>(y, y, 1.0f, n);
  scale<<<(n + 255) / 256, 256, 0, s>>>(y, x, 2.0f, n);
}
