// The clang plugin reports, during a normal CUDA compile, what cuda-opt tune
// would try on each kernel of the main file (host side only: one remark per
// kernel, not two), and leaves the compile alone.
// REQUIRES: clang-plugin
// RUN: %clang_cuda -fsyntax-only -fplugin=%cuda_opt_plugin %s 2>&1 | FileCheck %s
// RUN: %clang_cuda -fsyntax-only -fplugin=%cuda_opt_plugin -fplugin-arg-cudaopt-top=1 -fplugin-arg-cudaopt-kernel=scale %s 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not %clang_cuda -fsyntax-only -fplugin=%cuda_opt_plugin -fplugin-arg-cudaopt-top=many %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %clang_cuda -fsyntax-only -fplugin=%cuda_opt_plugin -fplugin-arg-cudaopt-passes=x %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// CHECK: remarks.cu:[[@LINE+2]]:17: remark: cuda-opt: kernel 'scale' (elementwise): {{[0-9]+}} candidate pipelines legal; tune would measure first (the learned ranker's order): {{[^;]+}}, {{[^;]+}}, {{[^;]+}}; measure with `cuda-opt tune`
// ONE: remark: cuda-opt: kernel 'scale' (elementwise): {{[0-9]+}} candidate pipelines legal; tune would measure first (the learned ranker's order): {{[^,]*}}; measure with `cuda-opt tune`
__global__ void scale(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i];
}

// CHECK: remarks.cu:[[@LINE+2]]:17: remark: cuda-opt: kernel 'rowsum'
// ONE-NOT: kernel 'rowsum'
__global__ void rowsum(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c)
    s += in[r * cols + c];
  out[r] = s;
}
// CHECK-NOT: remark: cuda-opt: kernel 'scale'

void run(float *y, const float *x, int n) {
  scale<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
}

// BAD: error: cuda-opt plugin: top=N needs a number, not 'many'
// UNKNOWN: error: cuda-opt plugin: unknown argument 'passes=x' (known: top=N, kernel=NAME, db=PATH, strict, fpmodel=M, cudapath=DIR)
