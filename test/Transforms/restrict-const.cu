// RUN: cuda-opt --passes='restrict-const' %s -o %t.cu 2>%t.err
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -std=c++17 -c %t.cu -o %t.o %}
// RUN: count 0 < %t.err

// Every launch passes distinct variables filled only by cudaMalloc and
// friends, so the pointers get __restrict__; the ones the kernel only reads
// also get const. The prototype changes with the definition.

// CHECK:      {{^}}__global__ void saxpy(float *__restrict__ y, const float *__restrict__ x,
// CHECK-NEXT: float a, int n);
// CHECK:      {{^}}__global__ void saxpy(float *__restrict__ y, const float *__restrict__ x,
// CHECK-NEXT: float a, int n) {
__global__ void saxpy(float *y, float *x, float a, int n);

__device__ float first(const float *v) { return v[0]; }

__global__ void saxpy(float *y, float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i] + first(x);
}

// Writes that keep a pointer non-const: a store, an atomic, a non-const
// reference, a callee taking a non-const pointer. Reads through `->`, `*`,
// `&p[i]` handed to a const pointer and `__ldg` still allow const.
struct Pair {
  float lo, hi;
};

__device__ void accumulate(float *dst, float v) { *dst += v; }

// CHECK-LABEL: {{^}}__global__ void mixed(
// CHECK-SAME: float *__restrict__ out, int *__restrict__ hits,
// CHECK-NEXT: float *__restrict__ sums, const Pair *__restrict__ pairs,
// CHECK-NEXT: const float *__restrict__ weights,
// CHECK-NEXT: const int *__restrict__ keys, int n) {
__global__ void mixed(float *out, int *hits, float *sums, Pair *pairs,
                      float *weights, int *keys, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float *w = &weights[i];
  float span = pairs[i].hi - (*(pairs + i)).lo;
  out[i] = span * __ldg(w) + (keys[i] > 0 ? 1.0f : 0.0f);
  atomicAdd(&hits[keys[i] & 7], 1);
  accumulate(sums + (i & 3), span);
}

int main() {
  const int n = 1 << 16;
  float *x = nullptr, *y = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  saxpy<<<n / 256, 256>>>(y, x, 2.0f, n);

  float *out, *sums, *weights;
  int *hits, *keys;
  Pair *pairs;
  cudaMalloc(&out, n * sizeof(float));
  cudaMallocManaged(&sums, 4 * sizeof(float));
  cudaMalloc(&weights, n * sizeof(float));
  cudaMalloc(&hits, 8 * sizeof(int));
  cudaMalloc(&keys, n * sizeof(int));
  cudaMallocAsync(&pairs, n * sizeof(Pair), 0);
  mixed<<<n / 256, 256>>>(out, hits, sums, pairs, weights, keys, n);
  cudaFree(x);
  x = nullptr;
  return 0;
}
