// RUN: cuda-opt --passes='block-reduce{items=4}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='block-reduce{items=1}' --kernel=reduce_sum %s | FileCheck %s --check-prefix=ONE
// RUN: cuda-opt --passes='block-reduce{items=64}' --kernel=reduce_sum %s | FileCheck %s --check-prefix=SIXTYFOUR
// RUN: not cuda-opt --passes='block-reduce{items=128}' --kernel=reduce_sum %s 2>&1 | FileCheck %s --check-prefix=RANGE

// One helper per operation and type, above the first kernel that uses it.
// CHECK: {{^}}/// Added by cuda-opt block-reduce: the sum of V over the threads
// CHECK: {{^}}static __device__ __forceinline__ float cudaOptBlockSum(float V) {
// CHECK: {{^}}  __shared__ float WarpResult[32];
// CHECK: {{^}}    float Other = __shfl_down_sync(Mask, V, Offset);
// CHECK-NEXT: {{^}}    if (Lane + Offset < Width)
// CHECK-NEXT: {{^}}      V = V + Other;

#include <cfloat>

__device__ void atomic_max_float(float *addr, float v) {
  int *p = (int *)addr;
  int old = *p;
  while (__int_as_float(old) < v) {
    int assumed = old;
    old = atomicCAS(p, assumed, __float_as_int(v));
    if (old == assumed)
      break;
  }
}

// The corpus tree: its fill, loop and final update become the folded loop;
// the shared array, the index and 'tid' go.
// CHECK-LABEL: {{^}}__global__ void reduce_sum(
// CHECK-NEXT: {{^}}  // cuda-opt block-reduce{items=4}: each thread folds 4 elements into 'acc';
// CHECK-NEXT: {{^}}  // the block combines the threads' values with warp shuffles and updates
// CHECK-NEXT: {{^}}  // the target once.
// CHECK-NEXT: {{^}}  float acc = 0.0f;
// CHECK-NEXT: {{^}}#pragma unroll
// CHECK-NEXT: {{^}}  for (int c = 0; c < 4; ++c) {
// CHECK-NEXT: {{^}}    int i = (blockIdx.x * 4 + c) * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}    if (i < n)
// CHECK-NEXT: {{^}}      acc += in[i];
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  acc = cudaOptBlockSum(acc);
// CHECK-NEXT: {{^}}  if (threadIdx.x == 0)
// CHECK-NEXT: {{^}}    atomicAdd(result, acc);
// CHECK-NEXT: {{^}}}
// ONE-LABEL: {{^}}__global__ void reduce_sum(
// ONE: {{^}}  for (int c = 0; c < 1; ++c) {
// ONE-NEXT: {{^}}    int i = (blockIdx.x * 1 + c) * blockDim.x + threadIdx.x;
// ONE: {{^}}  reduce_sum<<<(n + 255) / 256, 256>>>(r, in, n);
// SIXTYFOUR: {{^}}  for (int c = 0; c < 64; ++c) {
// SIXTYFOUR: {{^}}  reduce_sum<<<((n + 255) / 256 + 63) / 64, 256>>>(r, in, n);
// RANGE: items
__global__ void reduce_sum(float *result, const float *in, int n) {
  __shared__ float sdata[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(result, sdata[0]);
}

// The maximum tree keeps its fill (-FLT_MAX) and its CAS-loop helper.
// CHECK: {{^}}static __device__ __forceinline__ float cudaOptBlockMax(float V) {
// CHECK: {{^}}      V = fmaxf(V, Other);
// CHECK-LABEL: {{^}}__global__ void reduce_max(
// CHECK: {{^}}  float acc = -FLT_MAX;
// CHECK: {{^}}      acc = fmaxf(acc, in[i]);
// CHECK: {{^}}  acc = cudaOptBlockMax(acc);
// CHECK-NEXT: {{^}}  if (threadIdx.x == 0)
// CHECK-NEXT: {{^}}    atomic_max_float(result, acc);
__global__ void reduce_max(float *result, const float *in, int n) {
  __shared__ float smax[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  smax[tid] = i < n ? in[i] : -FLT_MAX;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      smax[tid] = fmaxf(smax[tid], smax[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    atomic_max_float(result, smax[0]);
}

// An int count under a condition: exact, the literal converts as before.
// CHECK: {{^}}static __device__ __forceinline__ unsigned int cudaOptBlockSum(unsigned int V) {
// CHECK-LABEL: {{^}}__global__ void count_pos(
// CHECK: {{^}}  unsigned int acc = 0u;
// CHECK: {{^}}    if (i < n) {
// CHECK-NEXT: {{^}}      if (x[i] > 0.0f)
// CHECK-NEXT: {{^}}        acc += 1;
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  acc = cudaOptBlockSum(acc);
// CHECK-NEXT: {{^}}  if (threadIdx.x == 0)
// CHECK-NEXT: {{^}}    atomicAdd(count, acc);
// Count of positive elements: one atomic per element.
__global__ void count_pos(unsigned *count, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (x[i] > 0.0f)
      atomicAdd(count, 1);
  }
}

// A loss with one atomicAdd per element and an early-return guard.
// CHECK-LABEL: {{^}}__global__ void loss(
// CHECK: {{^}}    if (i >= n)
// CHECK-NEXT: {{^}}      continue;
// CHECK-NEXT: {{^}}    float e = p[i] - t[i];
// CHECK-NEXT: {{^}}    acc += e * e;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  acc = cudaOptBlockSum(acc);
__global__ void loss(float *loss, const float *p, const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float e = p[i] - t[i];
  atomicAdd(loss, e * e);
}

// CHECK: {{^}}static __device__ __forceinline__ int cudaOptBlockMax(int V) {
// CHECK: {{^}}      V = max(V, Other);
// CHECK-LABEL: {{^}}__global__ void imax(
// CHECK: {{^}}  int acc = (-2147483647 - 1);
// CHECK: {{^}}      acc = max(acc, x[i]);
// CHECK: {{^}}    atomicMax(&m[0], acc);
__global__ void imax(int *m, const int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(&m[0], x[i]);
}

// The grid-stride form keeps its loop and its launch.
// CHECK-LABEL: {{^}}__global__ void gs(
// CHECK-NEXT: {{^}}  // cuda-opt block-reduce: each thread folds its elements into 'acc';
// CHECK: {{^}}  float acc = 0.0f;
// CHECK-NEXT: {{^}}  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
// CHECK-NEXT: {{^}}    acc += x[i];
// CHECK-NEXT: {{^}}  acc = cudaOptBlockSum(acc);
__global__ void gs(float *out, const float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(out, x[i]);
}


// A guard that tests more than the bound keeps its conditions with each
// element.
// CHECK-LABEL: {{^}}__global__ void count_above(
// CHECK:      {{^}}    int i = (blockIdx.x * 4 + c) * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}    if (i < n && in[i] > t)
// CHECK-NEXT: {{^}}      acc += 1;
// CHECK:      {{^}}  acc = cudaOptBlockSum(acc);
__global__ void count_above(int *count, const float *in, float t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > t)
    atomicAdd(count, 1);
}

// CHECK-LABEL: {{^}}__global__ void treeMin(
// CHECK: {{^}}  int acc = 2147483647;
// CHECK: {{^}}      acc = min(acc, in[i] * 2);
// CHECK: {{^}}    atomicMin(result, acc);
// An int minimum tree filled by if/else with INT_MAX, with a constant start.
__global__ void treeMin(int *result, const int *in, int n) {
  __shared__ int sm[128];
  unsigned tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    sm[tid] = in[i] * 2;
  else
    sm[tid] = 2147483647;
  __syncthreads();
  for (unsigned s = 64; s > 0; s /= 2) {
    if (tid < s)
      sm[tid] = min(sm[tid], sm[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    atomicMin(result, sm[0]);
}

// CHECK-LABEL: {{^}}void run(
// CHECK-NEXT: {{^}}  reduce_sum<<<((n + 255) / 256 + 3) / 4, 256>>>(r, in, n);
// CHECK-NEXT: {{^}}  reduce_max<<<((n + 255) / 256 + 3) / 4, 256>>>(r, in, n);
// CHECK-NEXT: {{^}}  count_pos<<<((n + 127) / 128 + 3) / 4, 128>>>(cnt, in, n);
// CHECK-NEXT: {{^}}  loss<<<((n + 255) / 256 + 3) / 4, 256>>>(r, in, in, n);
// CHECK-NEXT: {{^}}  imax<<<((n + 255) / 256 + 3) / 4, 256>>>(m, xi, n);
// CHECK-NEXT: {{^}}  gs<<<1024, 256>>>(r, in, n);
// CHECK-NEXT: {{^}}  treeMin<<<((n + 127) / 128 + 3) / 4, 128>>>(m, xi, n);
// CHECK-NEXT: {{^}}  count_above<<<((n + 255) / 256 + 3) / 4, 256>>>(m, in, 0.5f, n);
void run(float *r, const float *in, unsigned *cnt, int *m, const int *xi, int n) {
  reduce_sum<<<(n + 255) / 256, 256>>>(r, in, n);
  reduce_max<<<(n + 255) / 256, 256>>>(r, in, n);
  count_pos<<<(n + 127) / 128, 128>>>(cnt, in, n);
  loss<<<(n + 255) / 256, 256>>>(r, in, in, n);
  imax<<<(n + 255) / 256, 256>>>(m, xi, n);
  gs<<<1024, 256>>>(r, in, n);
  treeMin<<<(n + 127) / 128, 128>>>(m, xi, n);
  count_above<<<(n + 255) / 256, 256>>>(m, in, 0.5f, n);
}
