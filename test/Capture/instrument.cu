// Program-mode capture: every launch of the chosen kernel is routed through
// cuda_opt_capture::launch with its full configuration spelled out (defaults
// filled in), deduced template arguments named, and the runtime included
// first with line numbers preserved. Launches in macros are left alone with
// a warning; other kernels' launches are untouched.
// RUN: cuda-opt --instrument-capture --kernel=scale %s -o - 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: cuda-opt --instrument-capture --kernel=scale %s -o %t.cu 2>/dev/null
// RUN: %cuda_compile -I%S/../../runtime/capture %t.cu
// RUN: cuda-opt --instrument-capture --kernel=plain %s -o - 2>/dev/null | FileCheck %s --check-prefix=PLAIN
// RUN: not cuda-opt --instrument-capture --kernel=unlaunched %s -o - 2>&1 | FileCheck %s --check-prefix=NONE

// CHECK: #include "cuda_opt_capture.h" // added by cuda-opt for capture
// CHECK-NEXT: #line 1
#include <cuda_runtime.h>

template <typename T>
__global__ void scale(T *out, const T *in, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * in[i];
}

__global__ void plain(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += 1.0f;
}

__global__ void unlaunched(float *x) { x[0] = 0; }

#define LAUNCH_SCALE(o, i, n) scale<<<(n + 255) / 256, 256>>>(o, i, 2.0f, n)

void run(float *out, const float *in, double *dout, const double *din, int n,
         cudaStream_t s) {
  dim3 block(128);
  // CHECK: ::cuda_opt_capture::launch(0, "scale", scale<float>, (n + 255) / 256, 256, 0, 0, out, in, 2.0f, n);
  scale<<<(n + 255) / 256, 256>>>(out, in, 2.0f, n);
  // CHECK: ::cuda_opt_capture::launch(1, "scale", scale<double>, dim3((n + 127) / 128), block, 64, s, dout, din, 3.0, n);
  scale<double><<<dim3((n + 127) / 128), block, 64, s>>>(dout, din, 3.0, n);
  // CHECK: LAUNCH_SCALE(out, in, n);
  // WARN: warning: launch not instrumented: {{.*}}instrument.cu:[[@LINE+1]]:{{[0-9]+}}: the launch is inside a macro expansion
  LAUNCH_SCALE(out, in, n);
  // CHECK: plain<<<1, 32>>>(out, n);
  plain<<<1, 32>>>(out, n);
}

// PLAIN: ::cuda_opt_capture::launch(0, "plain", plain, 1, 32, 0, 0, out, n);
// NONE: error: no launch of kernel 'unlaunched' in this file can be instrumented for capture
