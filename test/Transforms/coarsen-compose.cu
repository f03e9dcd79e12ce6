// RUN: cuda-opt --passes='coarsen{factor=2},launch-bounds' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='coarsen{factor=16}' %s | FileCheck %s --check-prefix=SIXTEEN

// CHECK-LABEL: {{^}}__global__ void __launch_bounds__(256) scale(
// CHECK-NEXT: {{^}}  for (int c = 0; c < 2; ++c) {
// CHECK-NEXT: {{^}}    int i = (blockIdx.x * 2 + c) * blockDim.x + threadIdx.x;
// CHECK: {{^}}  scale<<<dim3(((n + 255) / 256 + 1) / 2), 256>>>(p, n);

// SIXTEEN: {{^}}    int i = (blockIdx.x * 16 + c) * blockDim.x + threadIdx.x;
// SIXTEEN: {{^}}  scale<<<dim3(((n + 255) / 256 + 15) / 16), 256>>>(p, n);

__global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i] = p[i] * 0.5f;
  }
}

void run(float *p, int n) {
  scale<<<dim3((n + 255) / 256), 256>>>(p, n);
}
