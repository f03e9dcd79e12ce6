// REQUIRES: cuda-device
// RUN: %gpu_equiv --passes='block-size{x=128}' %s
// RUN: %gpu_equiv --passes='block-size{x=1024}' %s
// RUN: %gpu_equiv --passes='block-size{x=32,y=4}' %s

// New block sizes with the grid recomputed from the work size: same outputs
// for 1-D and 2-D kernels whose extents are not multiples of any block size.

#include "gpu_check.h"
#include <vector>

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void blend2d(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  out[y * w + x] = 0.5f * out[y * w + x] + in[y * w + x] * (x + 2 * y);
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int n = 1000003;
  const int w = 1001, h = 999;
  std::vector<float> X(n), Y(n);
  gpu_check::fill_uniform(X.data(), n, Seed, -1.0f, 1.0f);
  gpu_check::fill_uniform(Y.data(), n, Seed + 7, -1.0f, 1.0f);
  float *DX, *DY;
  GPU_CHECK(cudaMalloc(&DX, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DY, n * sizeof(float)));
  GPU_CHECK(cudaMemcpy(DX, X.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DY, Y.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  saxpy<<<(n + 255) / 256, 256>>>(DY, DX, -0.5f, n);
  gpu_check::check_launch("saxpy");
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  blend2d<<<grid, block>>>(DY, DX, w, h);
  gpu_check::check_launch("blend2d");

  GPU_CHECK(cudaMemcpy(Y.data(), DY, n * sizeof(float), cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "y", Y.data(), n);
  cudaFree(DX);
  cudaFree(DY);
  return 0;
}
