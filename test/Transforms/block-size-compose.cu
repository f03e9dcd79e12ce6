// RUN: cuda-opt --passes='block-size{x=512},grid-stride{blocks-per-sm=2}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='block-size{x=64},coarsen{factor=4}' %s | FileCheck %s --check-prefix=COARSEN
// RUN: cuda-opt --passes='block-size{x=1024},vectorize{width=2},launch-bounds' %s | FileCheck %s --check-prefix=VEC

// CHECK-LABEL: {{^}}__global__ void square(
// CHECK-NEXT: {{^}}  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
// CHECK: {{^}}  square<<<cudaOptGridStrideBlocks((n + 511) / 512, 2), 512>>>(p, n);

// COARSEN: {{^}}    int i = (blockIdx.x * 4 + c) * blockDim.x + threadIdx.x;
// COARSEN: {{^}}  square<<<((n + 63) / 64 + 3) / 4, 64>>>(p, n);

// VEC: {{^}}__global__ void __launch_bounds__(1024) square(
// VEC: {{^}}    float2 p2 = reinterpret_cast<float2 *>(p)[i];
// VEC: {{^}}  square<<<((n + 1023) / 1024 + 1) / 2, 1024>>>(p, n);

__global__ void square(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = p[i] * p[i];
}

void run(float *p, int n) {
  square<<<(n + 127) / 128, 128>>>(p, n);
  cudaDeviceSynchronize();
}
