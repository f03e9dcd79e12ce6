// A kernel that launches itself from device code (dynamic parallelism,
// nvcc -rdc=true; clang parses it with -fgpu-rdc). cuda-opt lists the
// device-side launch apart, and refuses every pass that reads or edits the
// kernel's launches; kernel-local passes (unroll) still apply.
// RUN: cuda-opt --list-kernels %s -- -fgpu-rdc | FileCheck %s
// RUN: not cuda-opt --passes='block-size{x=64,y=1}' %s -- -fgpu-rdc 2>&1 | FileCheck %s --check-prefix=REFUSE
// RUN: cuda-opt --passes='unroll{factor=2}' --emit=report %s -- -fgpu-rdc | FileCheck %s --check-prefix=UNROLL
// RUN: not cuda-opt --list-kernels %s 2>&1 | FileCheck %s --check-prefix=NORDC
// An nvcc command line with -rdc=true in compile_commands.json does the same.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '[{"directory": "%t", "file": "%s", "command": "/usr/local/cuda/bin/nvcc -arch=sm_90 -rdc=true -c %s -o x.o"}]' > %t/compile_commands.json
// RUN: cuda-opt --list-kernels -p %t %s | FileCheck %s
// CHECK: kernel halve
// CHECK-NEXT: param float * x
// CHECK-NEXT: param int n
// CHECK-NEXT: launch at {{.*}}device-side-launch.cu:[[@LINE+19]]:3 in main <<<(n + 255) / 256, 256>>>
// CHECK-NEXT: device-side launch at {{.*}}device-side-launch.cu:[[@LINE+11]]:5 in halve (dynamic parallelism: not modelled)
// REFUSE: kernel 'halve' is also launched from device code at {{.*}}device-side-launch.cu:{{[0-9]+}}:5 (dynamic parallelism), which cuda-opt does not model
// UNROLL: unroll{factor=2,loop=-1} on halve: applied
// NORDC: requires relocatable device code
__global__ void halve(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int k = 0; k < 4; ++k)
      x[i] *= 0.5f;
  }
  if (i == 0 && n > 256)
    halve<<<1, 256>>>(x + 256, n - 256);
}

int main() {
  int n = 1 << 10;
  float *x;
  cudaMalloc(&x, n * sizeof(float));
  halve<<<(n + 255) / 256, 256>>>(x, n);
  return 0;
}
