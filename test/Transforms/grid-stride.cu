// RUN: cuda-opt --passes='grid-stride' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu

#include <cstddef>

// CHECK-LABEL: {{^ *}}__global__ void saxpy(
// CHECK-NEXT: {{^ *}}for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
// CHECK-NEXT: {{^ *}}i += blockDim.x * gridDim.x) {
// CHECK-NEXT: {{^ *}}y[i] = a * x[i] + y[i];
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: {{^ *}}}
__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// The early-return form; a return in the body becomes continue, and a
// 64-bit index strides in 64 bits.
// CHECK-LABEL: {{^ *}}__global__ void clamp(
// CHECK-NEXT: {{^ *}}for (size_t k = threadIdx.x + blockIdx.x * blockDim.x; k < n;
// CHECK-NEXT: {{^ *}}k += static_cast<size_t>(blockDim.x) * gridDim.x) {
// CHECK-NEXT: {{^ *}}if (p[k] < hi)
// CHECK-NEXT: {{^ *}}continue;
// CHECK-NEXT: {{^ *}}p[k] = hi;
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: {{^ *}}}
__global__ void clamp(float *p, size_t n, float hi) {
  size_t k = threadIdx.x + blockIdx.x * blockDim.x;
  if (k >= n)
    return;
  if (p[k] < hi)
    return;
  p[k] = hi;
}

// Launches are left alone with blocks-per-sm=0.
// CHECK-LABEL: {{^ *}}void run(
// CHECK: {{^ *}}saxpy<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
// CHECK: {{^ *}}clamp<<<blocks, threads>>>(y, n, 1.0f);
void run(float *y, const float *x, int n) {
  saxpy<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  const int threads = 128;
  int blocks = (n + threads - 1) / threads;
  clamp<<<blocks, threads>>>(y, n, 1.0f);
}
