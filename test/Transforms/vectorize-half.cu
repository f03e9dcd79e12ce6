// RUN: cuda-opt --passes='vectorize{width=2}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: not cuda-opt --passes='vectorize{width=4}' --kernel=hscale %s 2>&1 | FileCheck %s --check-prefix=WIDE

#include <cuda_fp16.h>

// CHECK-LABEL: {{^}}__global__ void hscale(
// CHECK: {{^}}      reinterpret_cast<size_t>(in) % sizeof(__half2) == 0) {
// CHECK-NEXT: {{^}}    __half2 out2;
// CHECK-NEXT: {{^}}    const __half2 in2 = reinterpret_cast<const __half2 *>(in)[i];
// CHECK-NEXT: {{^}}    out2.x = __hmul(in2.x, s);
// CHECK-NEXT: {{^}}    out2.y = __hmul(in2.y, s);
// CHECK-NEXT: {{^}}    reinterpret_cast<__half2 *>(out)[i] = out2;

// CHECK-LABEL: {{^}}__global__ void dscale(
// CHECK: {{^}}    double2 p2 = reinterpret_cast<double2 *>(p)[i];
// CHECK-NEXT: {{^}}    p2.x *= 0.5;
// CHECK-NEXT: {{^}}    p2.y *= 0.5;

// WIDE: kernel 'hscale': elements of type '__half' have no 4-wide vector type (float, int and unsigned do; double and __half only with width=2)

__global__ void hscale(__half *out, const __half *in, __half s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __hmul(in[i], s);
}

__global__ void dscale(double *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= 0.5;
}

void run(__half *o, const __half *in, double *d, int n) {
  hscale<<<(n + 255) / 256, 256>>>(o, in, __float2half(2.0f), n);
  dscale<<<(n + 255) / 256, 256>>>(d, n);
}
