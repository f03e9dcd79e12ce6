// <omp.h> in a .cu file: nvcc compiles host code with gcc, whose own include
// directory has omp.h, so the include works under nvcc with or without
// -Xcompiler -fopenmp (cuda-samples' cudaOpenMP and UnifiedMemoryStreams,
// which CMake builds without -fopenmp for .cu files). clang ships omp.h only
// with libomp's headers; without them cuda-opt finds the host compiler's
// omp.h in a directory searched last, which holds nothing else. With
// -fopenmp the host pass sees the OpenMP pragmas as well.
// RUN: cuda-opt --list-kernels %s | FileCheck %s
// RUN: cuda-opt --list-kernels %s -- -fopenmp | FileCheck %s
// RUN: cuda-opt tune --dry-run --budget=2 %s -o %t.opt.cu -- -fopenmp 2>&1 | FileCheck %s --check-prefix=DRY
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -c %s -o %t.o %}
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -Xcompiler -fopenmp -c %s -o %t.omp.o %}
// Only omp.h comes from there: another header of the host compiler's own
// directory is still not found.
// RUN: not cuda-opt --list-kernels %s -- -DUSE_QUADMATH 2>&1 | FileCheck %s --check-prefix=OTHER

// CHECK: kernel scale at
// CHECK: launch at {{.*}}nvcc-host-omp.cu:{{[0-9]+}}:5 in main <<<(n + 255) / 256, 256>>>
// DRY: dry run: {{[0-9]+}} candidates for scale
// OTHER: fatal error: 'quadmath.h' file not found

#include <omp.h>
#ifdef USE_QUADMATH
#include <quadmath.h>
#endif

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= a;
}

int main() {
  int n = 1 << 16;
  int gpus = 0;
  cudaGetDeviceCount(&gpus);
  omp_set_num_threads(gpus > 0 ? gpus : 1);
#pragma omp parallel
  {
    int id = omp_get_thread_num();
    float *d;
    cudaSetDevice(id % (gpus > 0 ? gpus : 1));
    cudaMalloc(&d, n * sizeof(float));
    scale<<<(n + 255) / 256, 256>>>(d, 2.0f, n);
    cudaDeviceSynchronize();
    cudaFree(d);
  }
  return 0;
}
