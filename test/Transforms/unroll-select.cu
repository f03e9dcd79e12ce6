// RUN: cuda-opt --passes='unroll{factor=2,loop=0}' --kernel=stencil %s -o %t.outer.cu
// RUN: FileCheck %s --check-prefix=OUTER < %t.outer.cu
// RUN: %cuda_compile %t.outer.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -std=c++17 -c %t.outer.cu -o %t.o %}
// RUN: cuda-opt --passes='unroll{factor=16,loop=2}' --kernel=stencil %s -o %t.third.cu
// RUN: FileCheck %s --check-prefix=THIRD < %t.third.cu
// RUN: %cuda_compile %t.third.cu
// RUN: cuda-opt --passes='unroll{factor=32}' --kernel=tile_sum %s -o %t.tmpl.cu
// RUN: FileCheck %s --check-prefix=TMPL < %t.tmpl.cu
// RUN: %cuda_compile %t.tmpl.cu

// loop=K picks the K-th for loop in source order, innermost or not.

// OUTER-LABEL: {{^}}__global__ void stencil(
// OUTER:      {{^ *}}#pragma unroll 2{{$}}
// OUTER-NEXT: for (int y = 1; y < 7; ++y) {
// OUTER-NEXT:   for (int x = 1; x < 7; ++x)
// OUTER-NOT:  {{^ *}}#pragma unroll
// OUTER:      for (int r = 0; r < radius; ++r)

// THIRD-LABEL: {{^}}__global__ void stencil(
// THIRD:      for (int y = 1; y < 7; ++y) {
// THIRD-NEXT:   for (int x = 1; x < 7; ++x)
// THIRD-NOT:  {{^ *}}#pragma unroll
// THIRD:      {{^ *}}#pragma unroll 16{{$}}
// THIRD-NEXT: for (int r = 0; r < radius; ++r)
__global__ void stencil(const float *in, float *out, int radius) {
  for (int y = 1; y < 7; ++y) {
    for (int x = 1; x < 7; ++x)
      out[y * 8 + x] = in[y * 8 + x - 1] + in[y * 8 + x + 1];
  }
  for (int r = 0; r < radius; ++r)
    out[r] *= 0.5f;
}

// A template kernel: bounds and steps may be template parameters.
// TMPL-LABEL: {{^}}__global__ void tile_sum(
// TMPL:      {{^ *}}#pragma unroll 32{{$}}
// TMPL-NEXT: for (int i = 0; i < TILE; i += STEP)
// TMPL-NEXT:   acc += in[i];
template <typename T, int TILE, int STEP>
__global__ void tile_sum(const T *in, T *out) {
  T acc = 0;
  for (int i = 0; i < TILE; i += STEP)
    acc += in[i];
  out[0] = acc;
}

void launch(const float *in, float *out) {
  tile_sum<float, 128, 2><<<1, 1>>>(in, out);
}
