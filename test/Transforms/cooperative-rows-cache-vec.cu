// RUN: cuda-opt --passes='cooperative-rows{lanes=32,vec=1,cache=16}' %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='cooperative-rows{lanes=32,vec=1,cache=4}' --kernel=softmax_fp16 %s 2>&1 -o /dev/null | FileCheck %s --check-prefix=FEW

// vec=1 with cache=S: each thread holds W consecutive columns per 16-byte
// vector (W = 8 for 2-byte elements, 4 for 4-byte ones), loads them as one
// vector, and collects the stores of a cached loop
// in a vector written once per W columns; rows that are not a whole number
// of vectors take the uncached form. Alignment is tested once per kernel:
// every row start must be `stride * r + first` (the cached form then takes
// only aligned rows; others keep the lane-strided layout, with a note). Loops that would need a different
// order of memory accesses keep the lane-strided layout, with a note.

#include <cuda_fp16.h>

// CHECK-LABEL: {{^}}__global__ void softmax_fp16(
// CHECK: {{^ *}}if (cols <= 512 && cols % 8 == 0 && cudaOptAligned16(&in[0]) &&
// CHECK-NEXT: {{^ *}}cudaOptAligned16(&out[0])) {
// CHECK: {{^ *}}cudaOptVec<__half, 8> inVecs[2] = {};
// CHECK-NEXT: {{^ *}}#pragma unroll
// CHECK-NEXT: {{^ *}}for (int vec = 0; vec < 2; ++vec) {
// CHECK-NEXT: {{^ *}}const int col = 8 * (lane + 32 * vec);
// CHECK-NEXT: {{^ *}}if (col < cols)
// CHECK-NEXT: {{^ *}}inVecs[vec] = *reinterpret_cast<const cudaOptVec<__half, 8> *>(
// CHECK-NEXT: {{^ *}}&in[r * cols + col]);
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: {{^ *}}float inRow[16];
// CHECK: {{^ *}}inRow[k] = __half2float(inVecs[k / 8].v[k % 8]);
// The max loop starts at column 1: the held columns from 0, one skipped.
// CHECK: {{^ *}}const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
// CHECK-NEXT: {{^ *}}if ((j - slot % 8) >= cols)
// CHECK-NEXT: {{^ *}}break;
// CHECK-NEXT: {{^ *}}if (j < 1)
// CHECK-NEXT: {{^ *}}continue;
// The store loop: one vector of 'out' per 8 columns.
// CHECK: {{^ *}}for (int vec2 = 0; vec2 < 2; ++vec2) {
// CHECK-NEXT: {{^ *}}const int j0 = 8 * (lane + 32 * vec2);
// CHECK-NEXT: {{^ *}}if (j0 >= cols)
// CHECK-NEXT: {{^ *}}break;
// CHECK-NEXT: {{^ *}}// This vector's columns of 'out', stored after the loop below.
// CHECK-NEXT: {{^ *}}cudaOptVec<__half, 8> outVec;
// CHECK: {{^ *}}for (int k2 = 0; k2 < 8; ++k2) {
// CHECK-NEXT: {{^ *}}const int slot = 8 * vec2 + k2;
// CHECK-NEXT: {{^ *}}outVec.v[k2] = __float2half(inRow[slot] / sum);
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: {{^ *}}*reinterpret_cast<cudaOptVec<__half, 8> *>(&out[r * cols + j0]) =
// CHECK-NEXT: {{^ *}}outVec;
// CHECK: {{^ *}}// Other rows are read from memory in every loop.
__global__ void softmax_fp16(__half *__restrict__ out,
                             const __half *__restrict__ in, int rows,
                             int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = __half2float(in[r * cols]);
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, __half2float(in[r * cols + j]));
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      sum += expf(__half2float(in[r * cols + j]) - m);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] =
          __float2half(expf(__half2float(in[r * cols + j]) - m) / sum);
  }
}

// 4-byte rows: 4 columns per vector, read through the same vector type.
// CHECK-LABEL: {{^}}__global__ void scale_rows(
// CHECK: {{^ *}}cudaOptVec<float, 4> xVecs[4] = {};
// CHECK: {{^ *}}cudaOptVec<float, 4> yVec;
// CHECK: {{^ *}}yVec.v[k2] = xRow[slot] / total;
__global__ void scale_rows(float *__restrict__ y, const float *__restrict__ x,
                           int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float total = 0.0f;
    for (int j = 0; j < cols; ++j)
      total += x[r * cols + j];
    for (int j = 0; j < cols; ++j)
      y[r * cols + j] = x[r * cols + j] / total;
  }
}

// Rows `ld` elements apart from column 2 on: aligned when ld is a whole
// number of vectors and x[2] is aligned.
// CHECK-LABEL: {{^}}__global__ void scale_ld(
// CHECK: {{^ *}}if (cols <= 512 && cols % 4 == 0 && ld % 4 == 0 && cudaOptAligned16(&x[2]) &&
// CHECK-NEXT: {{^ *}}cudaOptAligned16(&y[0])) {
// CHECK-NOT: cudaOptAligned16(&x[r
// CHECK: {{^ *}}// Other rows are read from memory in every loop.
__global__ void scale_ld(float *__restrict__ y, const float *__restrict__ x,
                         int rows, int cols, int ld) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float total = 0.0f;
    for (int j = 0; j < cols; ++j)
      total += x[r * ld + 2 + j];
    for (int j = 0; j < cols; ++j)
      y[r * cols + j] = x[r * ld + 2 + j] / total;
  }
}

// A row start that is not `stride * r + first` (here r * r): one test
// cannot tell whether every row is aligned.
// NOTE-DAG: cuda-opt: note: cache=16 keeps the lane-strided layout, without 16-byte vectors: the rows of 'x[r * r + j]' do not start at 'stride * row + first' with a stride and first element the same for every row, so one test cannot tell whether every row is aligned
// CHECK-LABEL: {{^}}__global__ void scale_square(
// CHECK: {{^ *}}if (cols <= 512) {
// CHECK: {{^ *}}const int j = lane + 32 * slot;
__global__ void scale_square(float *__restrict__ y, const float *__restrict__ x,
                             int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float total = 0.0f;
    for (int j = 0; j < cols; ++j)
      total += x[r * r + j];
    for (int j = 0; j < cols; ++j)
      y[r * cols + j] = x[r * r + j] / total;
  }
}

// NOTE-DAG: cuda-opt: note: cache=16 keeps the lane-strided layout, without 16-byte vectors: the loop at {{.*}}cache-vec.cu:{{[0-9]+}}:5 writes 'out[r * cols + j]', which is not a plain store of consecutive elements as wide as the held ones
// CHECK-LABEL: {{^}}__global__ void widen(
// CHECK: {{^ *}}const int j = lane + 32 * slot;
__global__ void widen(float *__restrict__ out, const __half *__restrict__ in,
                      int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float total = 0.0f;
    for (int j = 0; j < cols; ++j)
      total += __half2float(in[r * cols + j]);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = __half2float(in[r * cols + j]) / total;
  }
}

// NOTE-DAG: cuda-opt: note: cache=16 keeps the lane-strided layout, without 16-byte vectors: the loop at {{.*}}cache-vec.cu:{{[0-9]+}}:5 writes memory and also reads 'w[j]', which is not held
// CHECK-LABEL: {{^}}__global__ void weighted(
// CHECK: {{^ *}}const int j = lane + 32 * slot;
__global__ void weighted(float *__restrict__ out, const float *__restrict__ in,
                         const float *__restrict__ w, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float ss = 0.0f;
    for (int j = 0; j < cols; ++j)
      ss += in[r * cols + j] * in[r * cols + j];
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = in[r * cols + j] * w[j] / ss;
  }
}

// FEW: cuda-opt: note: cache=4 keeps the lane-strided layout, without 16-byte vectors: a 16-byte vector holds 8 columns and cache=4 is not a multiple of it

void run(__half *o, const __half *i, float *y, const float *x, float *fo,
         const float *w, int rows, int cols) {
  softmax_fp16<<<(rows + 255) / 256, 256>>>(o, i, rows, cols);
  scale_rows<<<(rows + 255) / 256, 256>>>(y, x, rows, cols);
  widen<<<(rows + 255) / 256, 256>>>(fo, i, rows, cols);
  weighted<<<(rows + 255) / 256, 256>>>(y, x, w, rows, cols);
  scale_ld<<<(rows + 255) / 256, 256>>>(y, x, rows, cols, cols + 4);
  scale_square<<<(rows + 255) / 256, 256>>>(y, x, rows, cols);
}
