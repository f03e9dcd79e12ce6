// The C functions nvcc 13 lets host code call without an include: those of
// <string.h> and <time.h> (crt/common_functions.h) and <stdlib.h>
// (crt/math_functions.h). printf, assert and placement new need their
// headers under nvcc (common_functions.h includes <stdio.h>, <assert.h> and
// <new> only in the device pass) and need them here too: a file nvcc refuses
// is refused before anything is rewritten, with clang's message.
// RUN: cuda-opt --list-kernels %s | FileCheck %s
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -c %s -o %t.o %}
// RUN: not cuda-opt --list-kernels %s -- -DUSE_PRINTF 2>&1 | FileCheck %s --check-prefix=PRINTF
// RUN: %if nvcc %{ not %nvcc -std=c++17 -arch=sm_90 -DUSE_PRINTF -c %s -o %t.printf.o %}
// RUN: not cuda-opt --list-kernels %s -- -DUSE_ASSERT 2>&1 | FileCheck %s --check-prefix=ASSERT
// RUN: %if nvcc %{ not %nvcc -std=c++17 -arch=sm_90 -DUSE_ASSERT -c %s -o %t.assert.o %}

// CHECK: kernel fill at
// CHECK: launch at {{.*}}nvcc-implicit-headers.cu:{{[0-9]+}}:3 in main <<<(n + 255) / 256, 256>>>
// PRINTF: error: {{.*}}nvcc-implicit-headers.cu:{{[0-9]+}}:3: error: {{.*}}'printf'
// ASSERT: error: {{.*}}nvcc-implicit-headers.cu:{{[0-9]+}}:3: error: {{.*}}'assert'

__global__ void fill(float *x, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = v;
}

int main(int argc, char **argv) {
  int n = 1 << 16;
  float *h = (float *)malloc(n * sizeof(float));
  memset(h, 0, n * sizeof(float));
  srand(time(0) + clock());
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  fill<<<(n + 255) / 256, 256>>>(d, (float)rand(), n);
  cudaDeviceSynchronize();
#ifdef USE_PRINTF
  printf("%d\n", n);
#endif
#ifdef USE_ASSERT
  assert(n > 0);
#endif
  free(h);
  if (argc > 3)
    exit(1);
  return strlen(argv[0]) > 0 ? 0 : 1;
}
