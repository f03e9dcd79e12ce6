// RUN: not cuda-opt --passes='fuse-launches' --kernel=shifted_read %s 2>&1 | FileCheck %s --check-prefix=SHIFT
// RUN: not cuda-opt --passes='fuse-launches' --kernel=grid_a %s 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not cuda-opt --passes='fuse-launches' --kernel=bound_a %s 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: not cuda-opt --passes='fuse-launches' --kernel=barrier %s 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not cuda-opt --passes='fuse-launches' --kernel=alias_a %s 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: not cuda-opt --passes='fuse-launches' --kernel=lonely %s 2>&1 | FileCheck %s --check-prefix=ALONE
// RUN: not cuda-opt --passes='fuse-launches' --kernel=pre_a %s 2>&1 | FileCheck %s --check-prefix=PRE
// RUN: not cuda-opt --passes='fuse-launches' --kernel=sq_for_window %s 2>&1 | FileCheck %s --check-prefix=WINDOW

// fuse-launches refusals: each names the rule that failed.

#include <cuda_runtime.h>

__global__ void shifted_read(float *t, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = x[i];
}
__global__ void neighbour(float *y, const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = t[i + 1 < n ? i + 1 : i];
}
// SHIFT: kernel 'shifted_read': 'shifted_read' then 'neighbour': 't' is written by one kernel and accessed by the other at another element than the thread's own
void run_shift(const float *x, float *y, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  shifted_read<<<(n + 255) / 256, 256>>>(t, x, n);
  neighbour<<<(n + 255) / 256, 256>>>(y, t, n);
  cudaFree(t);
}

__global__ void grid_a(float *t, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = x[i] * 2.0f;
}
__global__ void grid_b(float *y, const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = t[i] + 1.0f;
}
// GRID: the launches' block expressions differ ('256' and '128')
void run_grid(const float *x, float *y, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  grid_a<<<(n + 255) / 256, 256>>>(t, x, n);
  grid_b<<<(n + 255) / 256, 128>>>(y, t, n);
  cudaFree(t);
}

__global__ void bound_a(float *t, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = x[i] * 2.0f;
}
__global__ void bound_b(float *y, const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = t[i] + 1.0f;
}
// BOUND: the kernels are passed different bounds ('n' and 'n-1')
void run_bound(const float *x, float *y, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  bound_a<<<(n + 255) / 256, 256>>>(t, x, n);
  bound_b<<<(n + 255) / 256, 256>>>(y, t, n - 1);
  cudaFree(t);
}

__global__ void barrier(float *t, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = x[i];
  __syncthreads();
}
__global__ void after_barrier(float *y, const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = t[i];
}
// SYNC: kernel 'barrier': 'barrier': kernel 'barrier' calls __syncthreads
void run_barrier(const float *x, float *y, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  barrier<<<(n + 255) / 256, 256>>>(t, x, n);
  after_barrier<<<(n + 255) / 256, 256>>>(y, t, n);
  cudaFree(t);
}

__global__ void alias_a(float *t, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = x[i] * 3.0f;
}
__global__ void alias_b(float *y, const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = t[i] - 1.0f;
}
// ALIAS: 'x' may share memory with another pointer
void run_alias(const float *x, float *y, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  alias_a<<<(n + 255) / 256, 256>>>(t, x, n);
  alias_b<<<(n + 255) / 256, 256>>>(y, t, n);
  cudaFree(t);
}

__global__ void lonely(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 0.0f;
}
// ALONE: kernel 'lonely' is not launched in a host region of two or more launches
void run_alone(float *y, int n) {
  lonely<<<(n + 255) / 256, 256>>>(y, n);
}

__global__ void pre_a(float *t, const float *x, const float *s, int n) {
  float scale = s[0];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = x[i] * scale;
}
__global__ void pre_b(float *y, const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = t[i];
}
// PRE: 'pre_a' has a statement outside its guarded work
void run_pre(const float *x, const float *s, float *y, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  pre_a<<<(n + 255) / 256, 256>>>(t, x, s, n);
  pre_b<<<(n + 255) / 256, 256>>>(y, t, n);
  cudaFree(t);
}

__global__ void sq_for_window(float *sq, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    sq[i] = x[i] * x[i];
}
__global__ void window_sum(float *out, const float *in, int n) {
  __shared__ float s[256];
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = j + 1 < n ? in[j + 1] : 0.0f;
  __syncthreads();
  if (j < n)
    out[j] = s[threadIdx.x] + s[(threadIdx.x + 1) % 256];
}
// A consumer that reads the next thread's element.
// WINDOW: as a consumer: 'sq_for_window' then 'window_sum': 'window_sum' accesses 'in[j + 1]' other than as the element its thread's global index names, under 'j < n'
void run_window(int n) {
  float *x, *sq, *out;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&sq, n * sizeof(float));
  sq_for_window<<<(n + 255) / 256, 256>>>(sq, x, n);
  window_sum<<<(n + 255) / 256, 256>>>(out, sq, n);
  cudaFree(sq);
  cudaFree(x);
  cudaFree(out);
}
