#include "scale_add.h"

#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

int main() {
  const int n = 1 << 20;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  float *dx, *dy;
  if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&dy, n * sizeof(float)) != cudaSuccess) {
    std::printf("scale_add: no GPU\n");
    return 1;
  }
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  scale_add(dy, dx, 3.0f, n);
  cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    if (y[i] != 5.0f) {
      std::printf("scale_add: FAILED at %d\n", i);
      return 1;
    }
  std::printf("scale_add: ok\n");
  return 0;
}
