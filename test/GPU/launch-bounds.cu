// REQUIRES: cuda-device
// RUN: %gpu_equiv --passes='launch-bounds{blocks=2}' %s
#include "gpu_check.h"
#include <vector>

__global__ void axpby(float *out, const float *x, const float *y, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}

int main(int argc, char **argv) {
  const int n = 1000003;
  unsigned s = gpu_check::seed(argc, argv);
  std::vector<float> hx(n), hy(n), hout(n);
  gpu_check::fill_uniform(hx.data(), n, s, -1.0f, 1.0f);
  gpu_check::fill_uniform(hy.data(), n, s + 100, -1.0f, 1.0f);
  float *x, *y, *out;
  GPU_CHECK(cudaMalloc(&x, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&y, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&out, n * sizeof(float)));
  GPU_CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  // Poison the output so unwritten elements show up as NaN.
  GPU_CHECK(cudaMemset(out, 0xFF, n * sizeof(float)));
  axpby<<<(n + 255) / 256, 256>>>(out, x, y, 1.5f, -0.5f, n);
  gpu_check::check_launch("axpby");
  GPU_CHECK(cudaMemcpy(hout.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "out", hout.data(), n);
  return 0;
}
