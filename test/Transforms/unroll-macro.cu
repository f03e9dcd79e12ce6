// RUN: cuda-opt --passes='unroll' --kernel=uses_macros %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: not cuda-opt --passes='unroll' --kernel=macro_loop %s 2>&1 | FileCheck %s --check-prefix=INMACRO

#define TILE 16
#define IDX(r, c) ((r) * TILE + (c))
#define FOR_EACH(i, n) for (int i = 0; i < (n); ++i)

// Macros in the bound and the body are fine: the edit is outside them, and
// the macro definitions stay byte-for-byte.
// CHECK:      {{^}}#define TILE 16{{$}}
// CHECK-NEXT: {{^}}#define IDX(r, c) ((r) * TILE + (c)){{$}}
// CHECK-NEXT: {{^}}#define FOR_EACH(i, n) for (int i = 0; i < (n); ++i){{$}}
// CHECK-LABEL: {{^}}__global__ void uses_macros(
// CHECK:      {{^ *}}#pragma unroll 4{{$}}
// CHECK-NEXT: for (int c = 0; c < TILE; ++c)
// CHECK-NEXT:   acc += tile[IDX(threadIdx.x, c)];
__global__ void uses_macros(const float *tile, float *out) {
  float acc = 0.0f;
  for (int c = 0; c < TILE; ++c)
    acc += tile[IDX(threadIdx.x, c)];
  out[threadIdx.x] = acc;
}

// A loop spelled by a macro is refused rather than edited.
// INMACRO: loop at {{.*}}unroll-macro.cu:[[@LINE+3]]:3 is written inside a macro expansion; cuda-opt does not edit macro bodies
__global__ void macro_loop(float *out, int n) {
  float acc = 0.0f;
  FOR_EACH(i, n) acc += out[i];
  out[0] = acc;
}
