// RUN: cuda-opt --passes='coarsen{factor=4}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu

#include <cstddef>

// CHECK-LABEL: {{^}}__global__ void saxpy(
// CHECK-NEXT: {{^}}  for (int c = 0; c < 4; ++c) {
// CHECK-NEXT: {{^}}    int i = (blockIdx.x * 4 + c) * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}    if (i < n)
// CHECK-NEXT: {{^}}      y[i] = a * x[i] + y[i];
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// The loop counter avoids the kernel's names; the early-return guard and the
// body's own return both become continue; a 64-bit index starts in 64 bits.
// CHECK-LABEL: {{^}}__global__ void add(
// CHECK-NEXT: {{^}}  const float s = 2.0f;
// CHECK-NEXT: {{^}}  for (int c2 = 0; c2 < 4; ++c2) {
// CHECK-NEXT: {{^}}    size_t i =
// CHECK-NEXT: {{^}}        (static_cast<size_t>(blockIdx.x) * 4 + c2) * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}    if (i >= n)
// CHECK-NEXT: {{^}}      continue;
// CHECK-NEXT: {{^}}    if (a[i] == 0.0f)
// CHECK-NEXT: {{^}}      continue;
// CHECK-NEXT: {{^}}    c[i] = s * a[i] + b[i];
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
__global__ void add(float *c, const float *a, const float *b, size_t n) {
  const float s = 2.0f;
  size_t i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= n)
    return;
  if (a[i] == 0.0f)
    return;
  c[i] = s * a[i] + b[i];
}

// CHECK-LABEL: {{^}}void run(
// CHECK-NEXT: {{^}}  saxpy<<<((n + 255) / 256 + 3) / 4, 256>>>(y, x, 2.0f, n);
// CHECK-NEXT: {{^}}  int blocks = (n + 127) / 128;
// CHECK-NEXT: {{^}}  add<<<(blocks + 3) / 4, 128>>>(y, x, y, n);
// CHECK-NEXT: {{^}}  dim3 grid((n + 63) / 64);
// CHECK-NEXT: {{^}}  add<<<dim3((grid.x + 3) / 4, grid.y, grid.z), 64>>>(y, x, y, n);
void run(float *y, const float *x, int n) {
  saxpy<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  int blocks = (n + 127) / 128;
  add<<<blocks, 128>>>(y, x, y, n);
  dim3 grid((n + 63) / 64);
  add<<<grid, 64>>>(y, x, y, n);
}
