// RUN: cuda-opt --passes='unroll{factor=2},launch-bounds' --kernel=rowsum %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: not cuda-opt --passes='unroll,unroll' --kernel=rowsum %s 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: cuda-opt --passes='unroll' %t.cu -o %t.fresh.cu
// RUN: FileCheck %s --check-prefix=FRESH < %t.fresh.cu

// Composition: launch-bounds sees the loop unroll left, and a second unroll
// finds the loop already annotated.

// CHECK-LABEL: {{^}}__global__ void __launch_bounds__(128) rowsum(
// CHECK:      {{^ *}}#pragma unroll 2{{$}}
// CHECK-NEXT: for (int c = 0; c < 64; ++c)
// CHECK-LABEL: {{^}}__global__ void colsum(
// CHECK-NOT:  {{^ *}}#pragma unroll
// CHECK:      {{^}}int main()
// TWICE: error: pass 'unroll{factor=4,loop=-1}' is not legal here:
// TWICE-NEXT: kernel 'rowsum': kernel 'rowsum' has no innermost counted loop to unroll: loop at {{.*}} already has a loop pragma (#pragma unroll or #pragma nounroll)

// Unroll over the result: the kernel already annotated is skipped, the
// other one gets the pragma.
// FRESH-LABEL: {{^}}__global__ void __launch_bounds__(128) rowsum(
// FRESH:      {{^ *}}#pragma unroll 2{{$}}
// FRESH-NOT:  {{^ *}}#pragma unroll 4
// FRESH-LABEL: {{^}}__global__ void colsum(
// FRESH:      {{^ *}}#pragma unroll 4{{$}}
// FRESH-NEXT: for (int r = 0; r < 32; r += 4)
__global__ void rowsum(const float *m, float *out) {
  float acc = 0.0f;
  for (int c = 0; c < 64; ++c)
    acc += m[threadIdx.x * 64 + c];
  out[threadIdx.x] = acc;
}

__global__ void colsum(const float *m, float *out) {
  float acc = 0.0f;
  for (int r = 0; r < 32; r += 4)
    acc += m[r * 64 + threadIdx.x];
  out[threadIdx.x] = acc;
}

int main() {
  float *m, *out;
  cudaMalloc(&m, 128 * 64 * sizeof(float));
  cudaMalloc(&out, 128 * sizeof(float));
  rowsum<<<1, 128>>>(m, out);
  colsum<<<1, 128>>>(m, out);
  return 0;
}
