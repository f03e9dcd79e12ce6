// RUN: cuda-opt --passes='restrict-const' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu

// Macros in the body are analysed through their expansion; a macro that
// names a whole pointee type is edited before its name. The macro
// definitions stay as they were.

#define REAL float
#define STORE(p, i, v) ((p)[(i)] = (v))
#define LOAD(p, i) ((p)[(i)])

// CHECK:      {{^}}#define REAL float{{$}}
// CHECK-NEXT: {{^}}#define STORE(p, i, v) ((p)[(i)] = (v)){{$}}
// CHECK-NEXT: {{^}}#define LOAD(p, i) ((p)[(i)]){{$}}
// CHECK-LABEL: {{^}}__global__ void copy_scaled(REAL *__restrict__ dst,
// CHECK-NEXT: const REAL *__restrict__ src,
// CHECK-NEXT: const float *__restrict__ scale, int n) {
__global__ void copy_scaled(REAL *dst, REAL *src, float *scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    STORE(dst, i, LOAD(src, i) * *scale);
}

int main() {
  REAL *dst, *src;
  float *scale;
  cudaMalloc(&dst, 256 * sizeof(REAL));
  cudaMalloc(&src, 256 * sizeof(REAL));
  cudaMalloc(&scale, sizeof(float));
  copy_scaled<<<1, 256>>>(dst, src, scale, 256);
  return 0;
}
