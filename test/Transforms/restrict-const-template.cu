// RUN: cuda-opt --passes='restrict-const' --kernel=scale %s -o %t.cu 2>&1
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -std=c++17 -c %t.cu -o %t.o %}
// RUN: cuda-opt --passes='restrict-const' --kernel=stash %s | FileCheck %s --check-prefix=STASH
// RUN: not cuda-opt --passes='restrict-const' --kernel=pinned %s 2>&1 | FileCheck %s --check-prefix=EXPLICIT

// Template kernels: `T *p` becomes `const T *p`. The pattern is analysed
// together with every instantiation, and a dependent call counts as a write
// unless every candidate takes a pointer to const.

// CHECK: {{^}}template <typename T, int BLOCK>
// CHECK-NEXT: __global__ void scale(T *__restrict__ out, const T *__restrict__ in, T s,
// CHECK-NEXT: int n);
// CHECK: {{^}}template <typename T, int BLOCK>
// CHECK-NEXT: __global__ void scale(T *__restrict__ out, const T *__restrict__ in, T s,
// CHECK-NEXT: int n) {
template <typename T>
__device__ T load(const T *p) { return *p; }

template <typename T, int BLOCK>
__global__ void scale(T *out, T *in, T s, int n);

template <typename T, int BLOCK>
__global__ void scale(T *out, T *in, T s, int n) {
  __shared__ T tile[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  tile[threadIdx.x] = i < n ? load(in + i) : T(0);
  __syncthreads();
  if (i < n)
    out[i] = tile[threadIdx.x] * s;
}

// A dependent call to a function taking `T *` keeps the pointer writable.
// STASH-LABEL: {{^}}__global__ void stash(T *__restrict__ dst, const T *__restrict__ src) {
template <typename T> __device__ void put(T *p, T v) { *p = v; }

template <typename T>
__global__ void stash(T *dst, T *src) {
  put(dst + threadIdx.x, src[threadIdx.x]);
}

// An explicit instantiation names the old signature; editing the template
// alone would break it.
// EXPLICIT: kernel 'pinned' has an explicit instantiation or specialisation at {{.*}}restrict-const-template.cu:[[@LINE+4]]:{{[0-9]+}} whose signature would no longer match
template <typename T>
__global__ void pinned(T *dst, T *src) { dst[0] = src[0]; }

template __global__ void pinned<float>(float *, float *);

int main() {
  float *a, *b;
  double *c, *d;
  cudaMalloc(&a, 1024 * sizeof(float));
  cudaMalloc(&b, 1024 * sizeof(float));
  cudaMalloc(&c, 1024 * sizeof(double));
  cudaMalloc(&d, 1024 * sizeof(double));
  scale<float, 128><<<8, 128>>>(a, b, 2.0f, 1024);
  scale<double, 256><<<4, 256>>>(c, d, 0.5, 1024);
  stash<<<1, 32>>>(a, b);
  return 0;
}
