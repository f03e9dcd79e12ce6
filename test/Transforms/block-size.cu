// RUN: cuda-opt --passes='block-size{x=128}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu

// Only the launches change; the kernels stay byte for byte.
// CHECK-LABEL: {{^}}__global__ void saxpy(
// CHECK-NEXT: {{^}}  int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}  if (i < n)
__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// CHECK-LABEL: {{^}}__global__ void negate(
__global__ void negate(float *p, unsigned n) {
  unsigned i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n)
    return;
  p[i] = -p[i];
}

// Every spelling of the ceil-div is recovered, through local variables too.
// CHECK-LABEL: {{^}}void run(
// CHECK-NEXT: {{^}}  saxpy<<<(n + 127) / 128, 128>>>(y, x, 2.0f, n);
// CHECK-NEXT: {{^}}  const int threads = 512;
// CHECK-NEXT: {{^}}  int blocks = (n + threads - 1) / threads;
// CHECK-NEXT: {{^}}  saxpy<<<(n + 127) / 128, 128>>>(y, x, 3.0f, n);
// CHECK-NEXT: {{^}}  negate<<<(m * 2 + 127) / 128, 128>>>(y, m * 2);
// CHECK-NEXT: {{^}}  negate<<<(n + 127) / 128, 128>>>(y, n);
void run(float *y, const float *x, int n, unsigned m) {
  saxpy<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  const int threads = 512;
  int blocks = (n + threads - 1) / threads;
  saxpy<<<blocks, threads>>>(y, x, 3.0f, n);
  negate<<<(m * 2 + 64 - 1) / 64, 64>>>(y, m * 2);
  negate<<<dim3((n + 31) / 32), dim3(32)>>>(y, n);
}
