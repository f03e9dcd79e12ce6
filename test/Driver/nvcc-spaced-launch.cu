// nvcc accepts launch chevrons written with blanks (`k << < g, b >> > (args)`,
// seen in Rodinia) and host code that calls time() without <ctime> (nvcc's
// crt/common_functions.h includes <time.h>); cuda-opt parses both. The
// rewrite keeps the user's spelling where it does not edit the launch, and
// `operator<< <T>` (explicit template arguments) is left alone.
// RUN: cuda-opt --list-kernels %s | FileCheck %s --check-prefix=LIST
// RUN: cuda-opt --passes=launch-bounds %s -o %t.lb.cu
// RUN: FileCheck %s --check-prefix=KEEP --input-file=%t.lb.cu
// RUN: cuda-opt --passes='block-size{x=64}' %s -o %t.bs.cu
// RUN: FileCheck %s --check-prefix=EDIT --input-file=%t.bs.cu
// RUN: %if nvcc %{ %nvcc -std=c++17 -c %t.bs.cu -o %t.bs.o %}

// LIST: kernel scale at
// LIST: launch at {{.*}}nvcc-spaced-launch.cu:[[@LINE+25]]:3 in main <<<(n + 255) / 256, 256>>>
// LIST: launch at {{.*}}nvcc-spaced-launch.cu:[[@LINE+25]]:3 in main <<<blocks, 128>>>
// KEEP: scale << < (n + 255) / 256, 256 >> > (d, n);
// KEEP: scale <<<
// KEEP-NEXT: blocks, 128 >>
// KEEP-NEXT: > (d, n);
// KEEP: operator<< <int>(S, 1);
// EDIT: (n + 63) / 64, 64

#include <cstdio>

struct Stream {};
template <typename T> Stream &operator<<(Stream &S, T) { return S; }

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = 2.0f * x[i];
}

int main() {
  srand(time(0));
  int n = 1 << 20, blocks = (n + 127) / 128;
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  scale << < (n + 255) / 256, 256 >> > (d, n);
  scale <<<
  blocks, 128 >>
  > (d, n);
  Stream S;
  operator<< <int>(S, 1);
  cudaDeviceSynchronize();
  return 0;
}
