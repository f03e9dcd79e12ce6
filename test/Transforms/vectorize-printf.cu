// A work size printed with printf after the launch is still the work size:
// variadic arguments are passed by value.
// RUN: cuda-opt --passes='vectorize{width=4}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// CHECK: float4
#include <cstdio>
__global__ void scale(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 3.0f * x[i];
}
int main() {
  int n = 1 << 20;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  scale<<<(n + 255) / 256, 256>>>(y, x, n);
  std::printf("n = %d\n", n);
  return 0;
}
