// RUN: cuda-opt --passes='unroll' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -std=c++17 -c %t.cu -o %t.o %}
// RUN: cuda-opt --passes='unroll{factor=8}' --no-format %s | FileCheck %s --check-prefix=INDENT --strict-whitespace

// Every innermost counted loop gets the pragma; outer loops and loops that
// are not counted are left alone.

// CHECK-LABEL: {{^}}__global__ void dot(
// CHECK:      float acc = 0.0f;
// CHECK-NEXT: {{^ *}}#pragma unroll 4{{$}}
// CHECK-NEXT: for (int i = 0; i < n; ++i)
// CHECK-NEXT:   acc += a[i] * b[i];
// INDENT-LABEL: {{^}}__global__ void dot(
// INDENT:      {{^}}  #pragma unroll 8{{$}}
// INDENT-NEXT: {{^}}  for (int i = 0; i < n; ++i){{$}}
__global__ void dot(const float *a, const float *b, float *out, int n) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i)
    acc += a[i] * b[i];
  out[threadIdx.x] = acc;
}

// CHECK-LABEL: {{^}}__global__ void matvec(
// CHECK:      for (int row = 0; row < rows; ++row) {
// CHECK-NEXT:   float acc = 0.0f;
// CHECK-NEXT: {{^ *}}#pragma unroll 4{{$}}
// CHECK-NEXT:   for (int col = cols - 1; col >= 0; col -= 1)
// INDENT-LABEL: {{^}}__global__ void matvec(
// INDENT:      {{^}}  for (int row = 0; row < rows; ++row) {{[{]}}{{$}}
// INDENT-NEXT: {{^}}    float acc = 0.0f;{{$}}
// INDENT-NEXT: {{^}}    #pragma unroll 8{{$}}
// INDENT-NEXT: {{^}}    for (int col = cols - 1; col >= 0; col -= 1){{$}}
__global__ void matvec(const float *m, const float *v, float *out, int rows,
                       int cols) {
  for (int row = 0; row < rows; ++row) {
    float acc = 0.0f;
    for (int col = cols - 1; col >= 0; col -= 1)
      acc += m[row * cols + col] * v[col];
    out[row] = acc;
  }
}

// A loop that shares its line with an `if` moves to a line of its own.
// CHECK-LABEL: {{^}}__global__ void guarded(
// CHECK:      if (n > 0)
// CHECK-NEXT: {{^ *}}#pragma unroll 4{{$}}
// CHECK-NEXT:   for (unsigned k = 0; k != 16; k++)
// CHECK-NOT:  {{^ *}}#pragma unroll
// CHECK:      for (int s = threadIdx.x; s < n; s += blockDim.x)
// INDENT-LABEL: {{^}}__global__ void guarded(
// INDENT:      {{^}}  if (n > 0){{$}}
// INDENT-NEXT: {{^}}    #pragma unroll 8{{$}}
// INDENT-NEXT: {{^}}    for (unsigned k = 0; k != 16; k++) out[k] = 0.0f;{{$}}
__global__ void guarded(float *out, int n) {
  if (n > 0) for (unsigned k = 0; k != 16; k++) out[k] = 0.0f;
  // Grid-stride: the step is not a constant.
  for (int s = threadIdx.x; s < n; s += blockDim.x)
    out[s] += 1.0f;
}

// extern "C" kernels are edited the same way.
// CHECK-LABEL: {{^}}extern "C" __global__ void clear(
// CHECK:      {{^ *}}#pragma unroll 4{{$}}
// CHECK-NEXT: for (int i = 0; i < 32; i++)
extern "C" __global__ void clear(float *p) {
  for (int i = 0; i < 32; i++)
    p[i] = 0.0f;
}
