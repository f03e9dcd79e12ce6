// A function-scope __shared__ object whose default constructor is not empty
// (cuda::pipeline_shared_state, cuda::barrier in cuda-samples'
// globalToShmemAsyncCopy): nvcc 13 compiles it with warning #20054-D and does
// not run the constructor; clang rejects it and marks the variable invalid.
// cuda-opt parses the file with a warning, lists and models its kernels,
// refuses every pass on a kernel that uses the variable (in a template
// kernel, clang drops the uses from its instantiations), and keeps the
// declaration as written when it rewrites another kernel. An initialiser
// written out, or such an object at namespace scope, is an error under nvcc
// and stays one here.
// RUN: cuda-opt --list-kernels %s 2>&1 | FileCheck %s
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=NVCC %}
// RUN: cuda-opt --analyze --kernel=staged %s 2>/dev/null | FileCheck %s --check-prefix=ANALYZE
// RUN: not cuda-opt --passes='unroll{factor=2}' --kernel=staged %s -o %t.staged.cu 2>&1 | FileCheck %s --check-prefix=REFUSE
// RUN: not cuda-opt --passes=restrict-const --kernel=stagedT %s -o %t.stagedT.cu 2>&1 | FileCheck %s --check-prefix=REFUSE-T
// RUN: cuda-opt --passes='restrict-const,unroll{factor=2}' --kernel=scale %s -o %t.scale.cu 2>&1 | FileCheck %s --check-prefix=WARN-ONCE
// RUN: FileCheck %s --check-prefix=KEEP --input-file=%t.scale.cu
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -c %t.scale.cu -o %t.scale.o %}
// RUN: cuda-opt tune --dry-run %s -o %t.tuned.cu 2>&1 | FileCheck %s --check-prefix=WARN-ONCE
// RUN: not cuda-opt --list-kernels %s -- -DINIT_WRITTEN 2>&1 | FileCheck %s --check-prefix=WRITTEN
// RUN: %if nvcc %{ not %nvcc -std=c++17 -arch=sm_90 -DINIT_WRITTEN -c %s -o %t.w.o %}
// RUN: not cuda-opt --list-kernels %s -- -DINIT_BRACES 2>&1 | FileCheck %s --check-prefix=WRITTEN
// RUN: %if nvcc %{ not %nvcc -std=c++17 -arch=sm_90 -DINIT_BRACES -c %s -o %t.b.o %}
// RUN: not cuda-opt --list-kernels %s -- -DFILE_SCOPE 2>&1 | FileCheck %s --check-prefix=FILESCOPE
// RUN: %if nvcc %{ not %nvcc -std=c++17 -arch=sm_90 -DFILE_SCOPE -c %s -o %t.f.o %}

// CHECK: warning: {{.*}}nvcc-shared-ctor.cu:[[@LINE+34]]:19: 'slot' in 'staged': a function-scope __shared__ object with a non-empty default constructor, which nvcc 13 compiles with warning #20054-D (dynamic initialization is not supported for a function-scope static __shared__ variable) without running the constructor, and clang rejects (initialization is not supported for __shared__ variables); cuda-opt parses the file, keeps the declaration as written and rewrites no kernel that uses it
// CHECK: warning: {{.*}}nvcc-shared-ctor.cu:[[@LINE+48]]:19: 'slot' in 'stagedT'
// CHECK: warning: {{.*}}nvcc-shared-ctor.cu:{{[0-9]+}}:16: 'slot' in 'stagedDep'
// CHECK: kernel staged at
// CHECK: kernel stagedT at
// CHECK: kernel scale at
// CHECK: kernel stagedDep at
// CHECK: launch at {{.*}} in main <<<blocks, 256>>>
// NVCC: warning #20054-D: dynamic initialization is not supported for a function-scope static __shared__ variable
// ANALYZE: kernel staged at
// ANALYZE-NEXT: incomplete: kernel 'staged' contains code that clang rejects and nvcc 13 accepts (at {{.*}}nvcc-shared-ctor.cu:[[@LINE+24]]:19); clang's AST of it is incomplete, so no pass rewrites it
// REFUSE: pass 'unroll{factor=2,loop=-1}' is not legal here:
// REFUSE-NEXT: kernel 'staged': kernel 'staged' contains code that clang rejects and nvcc 13 accepts (at {{.*}}nvcc-shared-ctor.cu:[[@LINE+22]]:19); clang's AST of it is incomplete, so no pass rewrites it
// REFUSE-T: kernel 'stagedT': kernel 'stagedT' contains code that clang rejects and nvcc 13 accepts (at {{.*}}nvcc-shared-ctor.cu:[[@LINE+35]]:17)
// WARN-ONCE: warning: {{.*}}'slot' in 'staged'
// WARN-ONCE-NOT: 'slot' in 'staged'
// KEEP: __shared__ Slot slot; // staged
// KEEP: __shared__ Slot slot; // stagedT
// KEEP: __shared__ T slot; // stagedDep
// KEEP: __global__ void scale(float *__restrict__ out, const float *__restrict__ in, int n)
// KEEP: #pragma unroll 2
// WRITTEN: error: initialization is not supported for __shared__ variables
// FILESCOPE: error: {{.*}}nvcc-shared-ctor.cu:[[@LINE+8]]:17: error: initialization is not supported for __shared__ variables

struct Slot {
  int v;
  __device__ Slot() : v(1) {}
};

#ifdef FILE_SCOPE
__shared__ Slot fileSlot;
#endif

__global__ void staged(float *out, const float *in, int n) {
  __shared__ Slot slot; // staged
#ifdef INIT_WRITTEN
  __shared__ int x = 5;
#endif
#ifdef INIT_BRACES
  __shared__ Slot braced{};
#endif
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 4; ++k)
    if (i < n)
      out[i] += in[i] * slot.v;
}

template <int N>
__global__ void stagedT(float *out, const float *in, int n) {
  __shared__ Slot slot; // stagedT
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * slot.v * N;
}

__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < 4; ++k)
      out[i] += 2.0f * in[i];
}

// The object's type a template parameter: clang's pattern has no
// initialiser, the instantiation's is the constructor call.
template <typename T>
__global__ void stagedDep(float *out, int n) {
  __shared__ T slot; // stagedDep
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = slot.v;
}

int main() {
  int n = 1 << 16, blocks = (n + 255) / 256;
  float *out, *in;
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&in, n * sizeof(float));
  staged<<<blocks, 256>>>(out, in, n);
  stagedT<2><<<blocks, 256>>>(out, in, n);
  stagedDep<Slot><<<blocks, 256>>>(out, n);
  scale<<<blocks, 256>>>(out, in, n);
  cudaDeviceSynchronize();
  return 0;
}
