// RUN: cuda-opt --list-kernels %s -- -I %S/Inputs | FileCheck %s
// RUN: cuda-opt --list-kernels --json %s -- -I %S/Inputs | FileCheck %s --check-prefix=JSON

#include "project_header.h"

// CHECK: kernel scale at {{.*}}list-kernels.cu:[[@LINE+5]]:17
// CHECK-NEXT: template parameters: T BLOCK
// CHECK: param T * out
// CHECK: launch at {{.*}} in run <<<n / 128, 128>>>
template <typename T, int BLOCK>
__global__ void scale(T *out, const T *in, T s, int n) {
  __shared__ T tile[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  if (i < n)
    out[i] = square_helper(tile[threadIdx.x]) * s;
}

// CHECK: kernel add at {{.*}} [extern "C"]
extern "C" __global__ void add(float *c, const float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

#define LAUNCH_ADD(c, a, b, n) add<<<((n) + 255) / 256, 256>>>(c, a, b, n)

void run(float *c, const float *a, const float *b, int n) {
  scale<float, 128><<<n / 128, 128>>>(c, a, 2.0f, n);
  LAUNCH_ADD(c, a, b, n);
}

// JSON: "extern_c": false
// JSON: "name": "scale"
// JSON: "kind": "value"
// JSON: "name": "BLOCK"
// JSON: "extern_c": true
// JSON: "name": "add"
