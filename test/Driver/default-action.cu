// cuda-opt with no mode does what tune does without a GPU, on any machine:
// per kernel the learned ranker's predicted rewrite among those that keep
// every floating-point operation, marked "predicted, not measured" in a note
// and in the output's first lines, which name the exact tune command that
// measures it. The reports are written as tune writes
// them. Bad input is still an error that writes nothing, and the options
// that only steer measuring are refused without tune.
// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-opt %s -o %t/out.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=OUT --input-file=%t/out.cu
// RUN: FileCheck %s --check-prefix=MD --input-file=%t/out.cu.report.md
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t/out.cu.report.json
// RUN: %cuda_compile %t/out.cu
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -c %t/out.cu -o %t/out.o %}
// Written to stdout without -o; the command keeps every argument, quoted
// for the shell where it needs to be.
// RUN: cuda-opt %s --kernel=scale -- '-DSCALE=(1.0f + 1.0f)' 2>%t/stdout.err | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=QUOTED --input-file=%t/stdout.err
// RUN: not cuda-opt %S/bad-parse.cu -o %t/bad.cu 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not test -e %t/bad.cu
// RUN: not test -e %t/bad.cu.report.md
// RUN: not cuda-opt %s --budget=4 -o %t/budget.cu 2>&1 | FileCheck %s --check-prefix=STEER
// RUN: not test -e %t/budget.cu
// RUN: not cuda-opt 2>&1 | FileCheck %s --check-prefix=NOINPUT

// NOTE: note: predicted, not measured: 'scale: restrict-const,vectorize{width={{[0-9]}}}' (learned ranker, rewrites that keep every floating-point operation; 1 of 1 kernels rewritten); to measure the variants on a GPU and keep the fastest verified one, run: cuda-opt tune {{.*}}default-action.cu -o {{.*}}out.cu; report in {{.*}}out.cu.report.md
// OUT: // cuda-opt: 'scale: restrict-const,vectorize{width={{[0-9]}}}' predicted (learned ranker, strict), not measured.
// OUT-NEXT: // To measure it: cuda-opt tune {{.*}}default-action.cu
// OUT: scale(float *__restrict__ y, const float *__restrict__ x, float a, int n)
// OUT: float{{2|4}}
// MD: result: **not measured** (cuda-opt ran without a mode: predicted, not measured (`cuda-opt tune` measures))
// MD: pipeline applied: `scale: restrict-const,vectorize{width={{[0-9]}}}`
// MD: chosen by: the learned ranker's first rewrite of each kernel that keeps every floating-point operation (strict)
// MD: | `restrict-const,vectorize{width={{[0-9]}}}` | scale v1 | applied: predicted (learned ranker, strict), not measured |
// JSON: "measured": false
// JSON: "not_measured_reason": "cuda-opt ran without a mode: predicted, not measured
// QUOTED: run: cuda-opt tune {{.*}}default-action.cu --kernel=scale -- '-DSCALE=(1.0f + 1.0f)'
// BAD: error: {{.*}}bad-parse.cu:{{[0-9]+}}:{{[0-9]+}}: error: expected ';'
// STEER: error: --budget steers measuring; give it with tune (cuda-opt tune FILE ...). Without a mode, cuda-opt applies a predicted rewrite and measures nothing
// NOINPUT: error: nothing to do: give one of tune, --list-kernels

#include <cstdio>

#ifndef SCALE
#define SCALE 2.0f
#endif

__global__ void scale(float *y, float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

int main() {
  int n = 1 << 20;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  scale<<<(n + 255) / 256, 256>>>(y, x, SCALE, n);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
