// REQUIRES: cuda-device
// RUN: %gpu_equiv --passes='restrict-const' %s
// RUN: %gpu_equiv --passes='restrict-const,unroll{factor=8}' %s

// const and __restrict__ must not change results: every launch passes
// distinct cudaMalloc buffers, so the rewrite adds __restrict__ everywhere
// and const on the inputs.

#include "gpu_check.h"

__global__ void saxpy(float *y, float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// Reads its input at neighbouring indices and accumulates in place.
__global__ void stencil(float *out, float *in, float *weights, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float acc = 0.0f;
  for (int k = -2; k <= 2; ++k) {
    int j = min(max(i + k, 0), n - 1);
    acc += weights[k + 2] * in[j];
  }
  out[i] += acc;
}

template <typename T>
__global__ void scale(T *out, T *in, T s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * s;
}

int main(int argc, char **argv) {
  const unsigned Seed = gpu_check::seed(argc, argv);
  const int N = 4099;
  float *hx = new float[N], *hy = new float[N], *hw = new float[5];
  float *hs = new float[N];
  gpu_check::fill_uniform(hx, N, Seed, -2.0f, 2.0f);
  gpu_check::fill_uniform(hy, N, Seed + 7, -2.0f, 2.0f);
  gpu_check::fill_uniform(hw, 5, Seed + 11, 0.0f, 1.0f);

  float *x = nullptr, *y = nullptr, *w = nullptr, *o = nullptr, *s = nullptr;
  GPU_CHECK(cudaMalloc(&x, N * sizeof(float)));
  GPU_CHECK(cudaMalloc(&y, N * sizeof(float)));
  GPU_CHECK(cudaMalloc(&w, 5 * sizeof(float)));
  GPU_CHECK(cudaMalloc(&o, N * sizeof(float)));
  GPU_CHECK(cudaMallocManaged(&s, N * sizeof(float)));
  GPU_CHECK(cudaMemcpy(x, hx, N * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(y, hy, N * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(w, hw, 5 * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(o, hy, N * sizeof(float), cudaMemcpyHostToDevice));

  saxpy<<<(N + 255) / 256, 256>>>(y, x, 1.5f, N);
  gpu_check::check_launch("saxpy");
  stencil<<<(N + 255) / 256, 256>>>(o, y, w, N);
  gpu_check::check_launch("stencil");
  scale<float><<<(N + 255) / 256, 256>>>(s, o, -0.25f, N);
  gpu_check::check_launch("scale");

  GPU_CHECK(cudaMemcpy(hy, y, N * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(hx, o, N * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(hs, s, N * sizeof(float), cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "saxpy", hy, N);
  gpu_check::dump(argc, argv, "stencil", hx, N);
  gpu_check::dump(argc, argv, "scale", hs, N);
  return 0;
}
