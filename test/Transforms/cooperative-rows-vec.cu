// RUN: cuda-opt --passes='cooperative-rows{lanes=16,vec=1}' %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu

// vec=1: a loop whose accesses are p[base + j] reads (and writes) 4 columns
// per thread with 16-byte vectors from the row's first 16-byte boundary when
// every pointer is aligned there; the columns before it ('head'), those left
// over, and rows whose arrays disagree take the lane-strided loop.

#include <cuda_fp16.h>

// CHECK-LABEL: {{^}}__global__ void scale_rows(
// CHECK:      {{^}}    float s = 0.0f;
// CHECK-NEXT: {{^}}    // cuda-opt: 16-byte vectors from the row's first 16-byte boundary ('head'
// CHECK-NEXT: {{^}}    // columns before it), over 4 * quads columns when every array is aligned
// CHECK-NEXT: {{^}}    // there; the rest below.
// CHECK-NEXT: {{^}}    const int head = cudaOptAlignHead(&in[r * cols + 0], cols);
// CHECK-NEXT: {{^}}    for (int j = lane; j < head; j += 16)
// CHECK-NEXT: {{^}}      s += in[r * cols + j] * in[r * cols + j];
// CHECK-NEXT: {{^}}    const int quads =
// CHECK-NEXT: {{^}}        cudaOptAligned16(&in[r * cols + head]) ? (cols - head) / 4 : 0;
// CHECK-NEXT: {{^}}    for (int q = lane; q < quads; q += 16) {
// CHECK-NEXT: {{^}}      const int j0 = head + 4 * q;
// CHECK-NEXT: {{^}}      float4 in4 = *reinterpret_cast<const float4 *>(&in[r * cols + j0]);
// CHECK-NEXT: {{^}}      s += in4.x * in4.x;
// CHECK-NEXT: {{^}}      s += in4.y * in4.y;
// CHECK-NEXT: {{^}}      s += in4.z * in4.z;
// CHECK-NEXT: {{^}}      s += in4.w * in4.w;
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}    for (int j = head + 4 * quads + lane; j < cols; j += 16)
// CHECK-NEXT: {{^}}      s += in[r * cols + j] * in[r * cols + j];
// CHECK-NEXT: {{^}}    s = cudaOptRowSum(s, rowMask, 16);
// CHECK:      {{^}}    const int head2 = cudaOptAlignHead(&out[r * cols + 0], cols);
// CHECK-NEXT: {{^}}    for (int j = lane; j < head2; j += 16)
// CHECK-NEXT: {{^}}      out[r * cols + j] = in[r * cols + j] * s * w[j] + j;
// CHECK-NEXT: {{^}}    const int quads2 = cudaOptAligned16(&out[r * cols + head2]) &&
// CHECK-NEXT: {{^}}                               cudaOptAligned16(&in[r * cols + head2]) &&
// CHECK-NEXT: {{^}}                               cudaOptAligned16(&w[head2])
// CHECK:      {{^}}      float4 out4;
// CHECK-NEXT: {{^}}      float4 in4 = *reinterpret_cast<const float4 *>(&in[r * cols + j0]);
// CHECK-NEXT: {{^}}      float4 w4 = *reinterpret_cast<const float4 *>(&w[j0]);
// CHECK-NEXT: {{^}}      out4.x = in4.x * s * w4.x + (j0 + 0);
// CHECK:      {{^}}      out4.w = in4.w * s * w4.w + (j0 + 3);
// CHECK-NEXT: {{^}}      *reinterpret_cast<float4 *>(&out[r * cols + j0]) = out4;
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}    for (int j = head2 + 4 * quads2 + lane; j < cols; j += 16)
__global__ void scale_rows(float *out, const float *in, const float *w,
                           int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += in[r * cols + j] * in[r * cols + j];
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = in[r * cols + j] * s * w[j] + j;
  }
}

// A gather keeps its scalar load inside the vector path; the stride-2 store
// keeps the loop scalar.
// NOTE: cuda-opt: note: the loop at {{.*}}vec.cu:{{[0-9]+}}:5 keeps scalar accesses only: it writes 'out[r * 2 * cols + 2 * j]', which is not a plain store to consecutive 4-byte or 2-byte elements
// CHECK-LABEL: {{^}}__global__ void gather_rows(
// CHECK:      {{^}}      int4 idx4 = *reinterpret_cast<const int4 *>(&idx[r * cols + j0]);
// CHECK-NEXT: {{^}}      s += x[idx4.x];
// CHECK:      {{^}}    for (int j = lane; j < cols; j += 16)
// CHECK-NEXT: {{^}}      out[r * 2 * cols + 2 * j] = s;
__global__ void gather_rows(float *out, const int *idx, const float *x,
                            int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += x[idx[r * cols + j]];
    for (int j = 0; j < cols; ++j)
      out[r * 2 * cols + 2 * j] = s;
  }
}

// 16-bit rows take 8 columns per 16-byte vector (cudaOptVec<T, 8>), the
// half class's assignment a plain store.
// CHECK-LABEL: {{^}}__global__ void half_rows(
// CHECK:      {{^}}    const int head = cudaOptAlignHead(&out[r * cols + 0], cols);
// CHECK:      {{^}}    const int octs = cudaOptAligned16(&out[r * cols + head]) &&
// CHECK:      {{^}}      const int j0 = head + 8 * q;
// CHECK-NEXT: {{^}}      cudaOptVec<__half, 8> out8;
// CHECK-NEXT: {{^}}      cudaOptVec<__half, 8> in8 =
// CHECK-NEXT: {{^}}          *reinterpret_cast<const cudaOptVec<__half, 8> *>(&in[r * cols + j0]);
// CHECK-NEXT: {{^}}      out8.v[0] = __float2half(__half2float(in8.v[0]) * 2.0f);
// CHECK:      {{^}}      out8.v[7] = __float2half(__half2float(in8.v[7]) * 2.0f);
// CHECK-NEXT: {{^}}      *reinterpret_cast<cudaOptVec<__half, 8> *>(&out[r * cols + j0]) = out8;
// CHECK:      {{^}}    for (int j = head + 8 * octs + lane; j < cols; j += 16)
__global__ void half_rows(__half *out, const __half *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = __float2half(__half2float(in[r * cols + j]) * 2.0f);
  }
}

void run(int rows, int cols) {
  float *out, *in, *w, *x;
  int *idx;
  cudaMalloc(&out, 2 * rows * cols * sizeof(float));
  cudaMalloc(&in, rows * cols * sizeof(float));
  cudaMalloc(&w, cols * sizeof(float));
  cudaMalloc(&x, cols * sizeof(float));
  cudaMalloc(&idx, rows * cols * sizeof(int));
  scale_rows<<<(rows + 127) / 128, 128>>>(out, in, w, rows, cols);
  gather_rows<<<(rows + 127) / 128, 128>>>(out, idx, x, rows, cols);
  __half *hout, *hin;
  cudaMalloc(&hout, rows * cols * sizeof(__half));
  cudaMalloc(&hin, rows * cols * sizeof(__half));
  half_rows<<<(rows + 127) / 128, 128>>>(hout, hin, rows, cols);
}
