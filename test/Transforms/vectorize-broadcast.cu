// Read-only broadcast operands: `b[i % C]` is read as one vector per thread,
// `s[i / C]` as one element shared by the lanes; both are guarded by
// C % W == 0 at run time when C is a parameter.
// RUN: cuda-opt --passes='vectorize{width=4}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='vectorize{width=8}' --kernel=bias_f16 %s -o %t8.cu
// RUN: FileCheck %s --check-prefix=HALF8 < %t8.cu
// RUN: %cuda_compile %t8.cu
// RUN: cuda-opt --passes='restrict-const,vectorize{width=4}' --kernel=bias_plain %s | FileCheck %s --check-prefix=RC
// RUN: cuda-opt --passes='vectorize{width=16}' --kernel=xor_key %s -o %t16.cu
// RUN: FileCheck %s --check-prefix=BYTES < %t16.cu
// RUN: %cuda_compile %t16.cu

#include <cuda_fp16.h>

// CHECK-LABEL: {{^}}__global__ void bias_f32(
// CHECK: {{^}}  int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}  if (i < n / 4 && reinterpret_cast<size_t>(out) % sizeof(float4) == 0 &&
// CHECK-NEXT: {{^}}      reinterpret_cast<size_t>(in) % sizeof(float4) == 0 &&
// CHECK-NEXT: {{^}}      reinterpret_cast<size_t>(bias) % sizeof(float4) == 0 && cols % 4 == 0) {
// CHECK-NEXT: {{^}}    float4 out4;
// CHECK-NEXT: {{^}}    const float4 in4 = reinterpret_cast<const float4 *>(in)[i];
// CHECK-NEXT: {{^}}    const float4 bias4 = reinterpret_cast<const float4 *>(bias)[i % (cols / 4)];
// CHECK-NEXT: {{^}}    out4.x = in4.x + bias4.x;
// CHECK-NEXT: {{^}}    out4.y = in4.y + bias4.y;
// CHECK-NEXT: {{^}}    out4.z = in4.z + bias4.z;
// CHECK-NEXT: {{^}}    out4.w = in4.w + bias4.w;
// CHECK-NEXT: {{^}}    reinterpret_cast<float4 *>(out)[i] = out4;
// CHECK-NEXT: {{^}}  } else if (i <= n / 4) {
// CHECK-NEXT: {{^}}    for (int k = i * 4; k < n && k < i * 4 + 4; ++k) {
// CHECK-NEXT: {{^}}      out[k] = in[k] + bias[k % cols];
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
__global__ void bias_f32(float *__restrict__ out, const float *__restrict__ in,
                         const float *__restrict__ bias, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + bias[i % cols];
}

// One scale per row of `cols` elements: a scalar load shared by the lanes,
// no alignment test for it. Only `scale` is __restrict__, which is enough:
// it is never written, so nothing the kernel writes may alias it.
// CHECK-LABEL: {{^}}__global__ void row_scale(
// CHECK: {{^}}      reinterpret_cast<size_t>(in) % sizeof(float4) == 0 && cols % 4 == 0) {
// CHECK-NEXT: {{^}}    float4 out4;
// CHECK-NEXT: {{^}}    const float4 in4 = reinterpret_cast<const float4 *>(in)[i];
// CHECK-NEXT: {{^}}    const float scaleBcast = scale[i / (cols / 4)];
// CHECK-NEXT: {{^}}    out4.x = in4.x * scaleBcast;
// CHECK: {{^}}    out4.w = in4.w * scaleBcast;
// CHECK: {{^}}      out[k] = in[k] * scale[k / cols];
__global__ void row_scale(float *out, const float *in,
                          const float *__restrict__ scale, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * scale[i / cols];
}

// A constant divisor needs no run-time test; a broadcast may be read after
// a write, since nothing written may alias it.
// CHECK-LABEL: {{^}}__global__ void bias_const(
// CHECK: {{^}}      reinterpret_cast<size_t>(bias) % sizeof(float4) == 0) {
// CHECK-NEXT: {{^}}    float4 p4 = reinterpret_cast<float4 *>(p)[i];
// CHECK-NEXT: {{^}}    const float4 bias4 = reinterpret_cast<const float4 *>(bias)[i % 64];
// CHECK-NEXT: {{^}}    {
// CHECK-NEXT: {{^}}      p4.x = p4.x * 2.0f;
// CHECK-NEXT: {{^}}      p4.x += bias4.x;
__global__ void bias_const(float *__restrict__ p, const float *__restrict__ bias,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i] = p[i] * 2.0f;
    p[i] += bias[i % 256];
  }
}

// Eight __half per 16-byte access, through the cudaOptLanes helper.
// HALF8: {{^}}template <typename T, int N> struct alignas(sizeof(T) * N) cudaOptLanes {
// HALF8-LABEL: {{^}}__global__ void bias_f16(
// HALF8: {{^}}  if (i < n / 8 && reinterpret_cast<size_t>(out) % 16 == 0 &&
// HALF8-NEXT: {{^}}      reinterpret_cast<size_t>(in) % 16 == 0 &&
// HALF8-NEXT: {{^}}      reinterpret_cast<size_t>(bias) % 16 == 0 && cols % 8 == 0) {
// HALF8-NEXT: {{^}}    cudaOptLanes<__half, 8> out8;
// HALF8-NEXT: {{^}}    const cudaOptLanes<__half, 8> in8 =
// HALF8-NEXT: {{^}}        reinterpret_cast<const cudaOptLanes<__half, 8> *>(in)[i];
// HALF8-NEXT: {{^}}    const cudaOptLanes<__half, 8> bias8 =
// HALF8-NEXT: {{^}}        reinterpret_cast<const cudaOptLanes<__half, 8> *>(bias)[i % (cols / 8)];
// HALF8-NEXT: {{^}}    out8.v[0] = __hadd(in8.v[0], bias8.v[0]);
// HALF8: {{^}}    out8.v[7] = __hadd(in8.v[7], bias8.v[7]);
// HALF8-NEXT: {{^}}    reinterpret_cast<cudaOptLanes<__half, 8> *>(out)[i] = out8;
// HALF8-NEXT: {{^}}  } else if (i <= n / 8) {
// HALF8-NEXT: {{^}}    for (int k = i * 8; k < n && k < i * 8 + 8; ++k) {
// HALF8-NEXT: {{^}}      out[k] = __hadd(in[k], bias[k % cols]);
__global__ void bias_f16(__half *__restrict__ out,
                         const __half *__restrict__ in,
                         const __half *__restrict__ bias, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __hadd(in[i], bias[i % cols]);
}

// Without __restrict__ in the source, restrict-const proves the launches'
// buffers distinct, and vectorize then accepts the broadcast (alone it
// refuses: vectorize-broadcast-illegal.cu).
// CHECK-LABEL: {{^}}__global__ void bias_plain(
// CHECK: {{^}}  int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}  if (i < n)
// RC-LABEL: {{^}}__global__ void bias_plain(
// RC: {{^}}    const float4 bias4 = reinterpret_cast<const float4 *>(bias)[i % (cols / 4)];
__global__ void bias_plain(float *out, const float *in, const float *bias,
                           int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + bias[i % cols];
}

// Sixteen 1-byte elements per access, with a repeating key.
// BYTES-LABEL: {{^}}__global__ void xor_key(
// BYTES: {{^}}  if (i < n / 16 && reinterpret_cast<size_t>(out) % 16 == 0 &&
// BYTES-NEXT: {{^}}      reinterpret_cast<size_t>(in) % 16 == 0 &&
// BYTES-NEXT: {{^}}      reinterpret_cast<size_t>(key) % 16 == 0 && klen % 16 == 0) {
// BYTES-NEXT: {{^}}    cudaOptLanes<unsigned char, 16> out16;
// BYTES-NEXT: {{^}}    const cudaOptLanes<unsigned char, 16> in16 =
// BYTES-NEXT: {{^}}        reinterpret_cast<const cudaOptLanes<unsigned char, 16> *>(in)[i];
// BYTES-NEXT: {{^}}    const cudaOptLanes<unsigned char, 16> key16 =
// BYTES-NEXT: {{^}}        reinterpret_cast<const cudaOptLanes<unsigned char, 16> *>(
// BYTES-NEXT: {{^}}            key)[i % (klen / 16)];
// BYTES-NEXT: {{^}}    out16.v[0] = in16.v[0] ^ key16.v[0];
// BYTES: {{^}}    out16.v[15] = in16.v[15] ^ key16.v[15];
__global__ void xor_key(unsigned char *__restrict__ out,
                        const unsigned char *__restrict__ in,
                        const unsigned char *__restrict__ key, int klen,
                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] ^ key[i % klen];
}

int main() {
  const int rows = 100, cols = 1024, n = rows * cols;
  float *out, *in, *bias, *scale;
  __half *hout, *hin, *hbias;
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&bias, cols * sizeof(float));
  cudaMalloc(&scale, rows * sizeof(float));
  cudaMalloc(&hout, n * sizeof(__half));
  cudaMalloc(&hin, n * sizeof(__half));
  cudaMalloc(&hbias, cols * sizeof(__half));
  bias_f32<<<(n + 255) / 256, 256>>>(out, in, bias, cols, n);
  row_scale<<<(n + 255) / 256, 256>>>(out, in, scale, cols, n);
  bias_const<<<(n + 255) / 256, 256>>>(out, bias, n);
  bias_f16<<<(n + 255) / 256, 256>>>(hout, hin, hbias, cols, n);
  bias_plain<<<(n + 255) / 256, 256>>>(out, in, bias, cols, n);
  unsigned char *bout, *bin, *key;
  cudaMalloc(&bout, n);
  cudaMalloc(&bin, n);
  cudaMalloc(&key, 64);
  xor_key<<<(n + 255) / 256, 256>>>(bout, bin, key, 64, n);
  return 0;
}
