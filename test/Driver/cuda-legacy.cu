// --cuda-legacy maps the runtime calls CUDA 13 removed whose cudaDevice*
// successors do the same. Without it the file does not parse (nvcc 13
// rejects it too) and each note names the flag; with it the file parses, and
// what cuda-opt writes carries the mapping at its top, once, so that nvcc 13
// builds it and cuda-opt parses it again without the flag.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not cuda-opt --list-kernels %s 2>&1 | FileCheck %s --check-prefix=NOFLAG
// RUN: %if nvcc %{ not %nvcc -std=c++17 -arch=sm_90 -c %s -o %t/orig.o %}
// RUN: cuda-opt --cuda-legacy --list-kernels %s | FileCheck %s --check-prefix=LIST
// RUN: cuda-opt --cuda-legacy --passes=launch-bounds %s -o %t/out.cu
// RUN: FileCheck %s --check-prefix=OUT < %t/out.cu
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -c %t/out.cu -o %t/out.o %}
// RUN: cuda-opt --list-kernels %t/out.cu | FileCheck %s --check-prefix=LIST
// RUN: cuda-opt --cuda-legacy --passes='unroll{factor=2}' %t/out.cu -o %t/again.cu
// RUN: grep -c '^#ifndef CUDA_OPT_CUDA_LEGACY_H' %t/again.cu | FileCheck %s --check-prefix=ONCE
// RUN: cuda-opt --cuda-legacy --passes=launch-bounds --emit=diff %s | FileCheck %s --check-prefix=DIFF
// The variants tune builds (nvcc here: NVRTC has no <cstdio>) get the
// mapping too, with the file's own line numbers in the compiler's messages.
// RUN: %if nvcc %{ cuda-opt --cuda-legacy --compile-cubin %s -o %t/k.cubin 2>&1 | FileCheck %s --check-prefix=CUBIN %}
// RUN: %if nvcc %{ not cuda-opt --cuda-legacy --compile-cubin %s -o %t/bad.cubin -- -DBREAK 2>&1 | FileCheck %s --check-prefix=LINES %}

// NOFLAG: error: use of undeclared identifier 'cudaThreadSetLimit'
// NOFLAG: note: 'cudaThreadSetLimit' was removed in CUDA 13 (nvcc 13 rejects it too); use cudaDeviceSetLimit(), or pass --cuda-legacy to map it (cuda-opt's output then carries the mapping)
// NOFLAG: note: 'cudaThreadGetLimit' {{.*}} use cudaDeviceGetLimit(), or pass --cuda-legacy
// NOFLAG: note: 'cudaThreadSetCacheConfig' {{.*}} use cudaDeviceSetCacheConfig(), or pass --cuda-legacy
// NOFLAG: note: 'cudaThreadGetCacheConfig' {{.*}} use cudaDeviceGetCacheConfig(), or pass --cuda-legacy
// NOFLAG: note: 'cudaThreadSynchronize' {{.*}} use cudaDeviceSynchronize(), or pass --cuda-legacy
// NOFLAG: note: 'cudaThreadExit' {{.*}} use cudaDeviceReset(), or pass --cuda-legacy

// LIST: kernel k at
// LIST: launch at {{.*}} in main <<<1, 32>>>

// OUT: // cuda-opt --cuda-legacy: CUDA 13 removed these runtime calls
// OUT-NEXT: // cudaDevice* call that does the same
// OUT: static inline __host__ cudaError_t cudaThreadSynchronize(void) {
// OUT-NEXT: return cudaDeviceSynchronize();
// OUT: // End of the cuda-opt --cuda-legacy block.
// OUT: __global__ void __launch_bounds__(32) k(float *p, int n) {
// OUT: cudaThreadSynchronize();

// ONCE: 1

// DIFF: +// cuda-opt --cuda-legacy: CUDA 13 removed these runtime calls
// DIFF: +__global__ void __launch_bounds__(32) k(float *p, int n) {

// CUBIN: NVRTC could not build it, nvcc did: cuda-legacy.cu([[# @LINE + 1]]): catastrophic error: cannot open source file "cstdio"
#include <cstdio>

__global__ void k(float *p, int n) {
  for (int i = 0; i < 4; ++i)
    p[threadIdx.x * 4 + i] = n;
}

int main() {
  float *d;
  cudaMalloc(&d, 128 * sizeof(float));
  cudaThreadSetLimit(cudaLimitStackSize, 4096);
  size_t stack;
  cudaThreadGetLimit(&stack, cudaLimitStackSize);
#ifdef BREAK
  // LINES: nvcc failed: {{.*}}.cu([[# @LINE + 1]]): error: identifier "undeclared_here" is undefined
  undeclared_here();
#endif
  cudaThreadSetCacheConfig(cudaFuncCachePreferL1);
  cudaFuncCache config;
  cudaThreadGetCacheConfig(&config);
  k<<<1, 32>>>(d, 1);
  cudaThreadSynchronize();
  cudaThreadExit();
  printf("%zu %d\n", stack, (int)config);
  return 0;
}
