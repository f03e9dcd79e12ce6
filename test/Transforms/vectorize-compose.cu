// RUN: cuda-opt --passes='vectorize{width=4},launch-bounds' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='block-size{x=128},vectorize{width=2}' %s | FileCheck %s --check-prefix=BS

// CHECK-LABEL: {{^}}__global__ void __launch_bounds__(256) scale(
// CHECK: {{^}}    float4 p4 = reinterpret_cast<float4 *>(p)[i];
// CHECK: {{^}}  scale<<<((n + 255) / 256 + 3) / 4, 256>>>(p, n, 3.0f);

// BS: {{^}}    float2 p2 = reinterpret_cast<float2 *>(p)[i];
// BS: {{^}}  scale<<<((n + 127) / 128 + 1) / 2, 128>>>(p, n, 3.0f);

__global__ void scale(float *p, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i] = p[i] * s;
  }
}

void run(float *p, int n) {
  scale<<<(n + 255) / 256, 256>>>(p, n, 3.0f);
}
