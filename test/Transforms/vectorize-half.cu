// RUN: cuda-opt --passes='vectorize{width=2}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='vectorize{width=4}' --kernel=hscale %s | FileCheck %s --check-prefix=HALF4
// RUN: not cuda-opt --passes='vectorize{width=16}' --kernel=hscale %s 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not cuda-opt --passes='vectorize{width=4}' --kernel=dscale %s 2>&1 | FileCheck %s --check-prefix=DWIDE

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

// Four __half (8 bytes) have no CUDA vector type: cudaOptLanes, added once
// after the includes.
// HALF4: {{^}}#include <cuda_fp16.h>
// HALF4-EMPTY:
// HALF4-NEXT: {{^}}// Added by cuda-opt vectorize
// HALF4: {{^}}template <typename T, int N> struct alignas(sizeof(T) * N) cudaOptLanes {
// HALF4: {{^}}    const cudaOptLanes<__half, 4> in4 =
// HALF4-NEXT: {{^}}        reinterpret_cast<const cudaOptLanes<__half, 4> *>(in)[i];
// HALF4-NEXT: {{^}}    out4.v[0] = __hmul(in4.v[0], s);
// HALF4: {{^}}    out4.v[3] = __hmul(in4.v[3], s);
// HALF4-NEXT: {{^}}    reinterpret_cast<cudaOptLanes<__half, 4> *>(out)[i] = out4;

// WIDE: kernel 'hscale': elements of type '__half' have no 16-wide vector type (vectors hold at most 16 bytes: widths 2 to 8 for this type)
// DWIDE: kernel 'dscale': elements of type 'double' have no 4-wide vector type (vectors hold at most 16 bytes: width 2 for this type)

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
