// Real-world CUDA C++17 parses: if constexpr, structured bindings, fold
// expressions, inline variables, lambdas in host code, __device__ helpers,
// dynamic shared memory, templates with non-type parameters, a namespace.
// RUN: cuda-opt --list-kernels %s | FileCheck %s
// RUN: cuda-opt --passes=launch-bounds %s -o %t.cu
// RUN: %cuda_compile %t.cu

// CHECK: kernel fill
// CHECK: launch at {{.*}} in main <<<blocks, threads>>>
// CHECK: kernel sum_all
// CHECK: launch at {{.*}} in main <<<1, 128, 128 * sizeof(double)>>>

#include <cstdio>
#include <tuple>
#include <type_traits>
#include <utility>

namespace app {
inline constexpr int kThreads = 256;

template <typename... Ts> __host__ __device__ constexpr auto sum(Ts... vs) {
  return (vs + ... + 0);
}

template <typename T, int Scale>
__device__ T scaled(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return v * static_cast<T>(Scale);
  else
    return v << Scale;
}

template <typename T, int Scale>
__global__ void fill(T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = scaled<T, Scale>(static_cast<T>(sum(i, 1, 2)));
}

__global__ void sum_all(const double *in, double *out, int n) {
  extern __shared__ double partial[];
  double acc = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    acc += in[i];
  partial[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    double total = 0;
    for (int t = 0; t < blockDim.x; ++t)
      total += partial[t];
    *out = total;
  }
}
} // namespace app

using namespace app;

int main() {
  auto [n, threads] = std::make_pair(1 << 20, kThreads);
  int blocks = (n + threads - 1) / threads;
  float *f;
  double *d, *r;
  cudaMalloc(&f, n * sizeof(float));
  cudaMalloc(&d, n * sizeof(double));
  cudaMalloc(&r, sizeof(double));
  auto launch = [&](auto tag) {
    using T = decltype(tag);
    fill<T, 2><<<blocks, threads>>>(reinterpret_cast<T *>(f), n);
  };
  launch(float{});
  sum_all<<<1, 128, 128 * sizeof(double)>>>(d, r, n);
  std::printf("%d\n", cudaDeviceSynchronize());
  return 0;
}
