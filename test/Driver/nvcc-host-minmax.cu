// nvcc lets host code call CUDA's min/max overloads (crt/math_functions.hpp);
// clang's CUDA headers declare them for the device only. cuda-opt parses
// such code as nvcc does (the force-included lib/Frontend/NvccCompat.cpp
// header), on both sides, and the kernels' own min/max still resolve to the
// device overloads.
// RUN: cuda-opt --list-kernels %s | FileCheck %s
// RUN: cuda-opt --passes='vectorize{width=2}' --emit=report %s | FileCheck %s --check-prefix=REWRITE
// The rewrite is re-parsed on both sides before it is written (clang's own
// device-only check, %cuda_compile, rejects this file: it lacks the header).
// RUN: cuda-opt --passes='vectorize{width=2}' %s -o %t.cu
// RUN: FileCheck %s --check-prefix=OUT < %t.cu
// OUT: {{^}}  float scale = max(2.0f / 3, 1.0f);
// CHECK: kernel clampk at {{.*}}nvcc-host-minmax.cu:[[@LINE+3]]
// CHECK: launch at {{.*}} in main <<<(n + 255) / 256, 256>>>
// REWRITE: vectorize{width=2} on clampk: applied
__global__ void clampk(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = max(x[i], 0.0f) + min(i, 3);
}

__host__ __device__ float atLeastOne(float a) { return max(a, 1.0f); }

int main() {
  float scale = max(2.0f / 3, 1.0f);   // float, float
  int n = min(1 << 20, 7);             // int, int
  unsigned u = max(3u, 4);             // unsigned, int
  double d = min(0.5, 2.0f);           // double, float
  long long big = max(1LL << 40, 7LL); // long long
  float *x;
  cudaMalloc(&x, n * sizeof(float));
  clampk<<<(n + 255) / 256, 256>>>(x, n);
  return int(scale + u + d + big + atLeastOne(0.5f)) == 0;
}
