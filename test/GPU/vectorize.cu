// REQUIRES: cuda-device
// RUN: %gpu_equiv --passes='vectorize{width=4}' %s
// RUN: %gpu_equiv --passes='vectorize{width=2}' %s
// RUN: %gpu_equiv --passes='vectorize{width=4},launch-bounds' %s

// Vectorized kernels compute the same outputs for sizes that are not a
// multiple of block * width, in place, and when a pointer is not aligned to
// the vector size (the kernel then takes its scalar path).

#include "gpu_check.h"
#include <vector>

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void ramp(int *out, const int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int t = a[i] * 3;
  out[i] = t + i;
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int n = 1000003;
  std::vector<float> X(n + 1), Y(n), Y2(n);
  std::vector<int> A(n), Out(n);
  gpu_check::fill_uniform(X.data(), n + 1, Seed, -1.0f, 1.0f);
  gpu_check::fill_uniform(Y.data(), n, Seed + 3, -1.0f, 1.0f);
  gpu_check::fill_uniform(A.data(), n, Seed + 5, -1000, 1000);
  float *DX, *DY, *DY2;
  int *DA, *DOut;
  GPU_CHECK(cudaMalloc(&DX, (n + 1) * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DY, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DY2, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DA, n * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DOut, n * sizeof(int)));
  GPU_CHECK(cudaMemcpy(DX, X.data(), (n + 1) * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DY, Y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DY2, Y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DA, A.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  // Aligned, then with x one element off alignment.
  saxpy<<<(n + 255) / 256, 256>>>(DY, DX, 2.5f, n);
  gpu_check::check_launch("saxpy");
  saxpy<<<(n + 255) / 256, 256>>>(DY2, DX + 1, -1.5f, n);
  gpu_check::check_launch("saxpy unaligned");
  // Out of place, then in place.
  const int m = n - 2;
  ramp<<<(m + 127) / 128, 128>>>(DOut, DA, m);
  gpu_check::check_launch("ramp");
  ramp<<<(m + 127) / 128, 128>>>(DA, DA, m);
  gpu_check::check_launch("ramp in place");

  GPU_CHECK(cudaMemcpy(Y.data(), DY, n * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Y2.data(), DY2, n * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Out.data(), DOut, n * sizeof(int), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(A.data(), DA, n * sizeof(int), cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "y", Y.data(), n);
  gpu_check::dump(argc, argv, "y_unaligned", Y2.data(), n);
  gpu_check::dump(argc, argv, "out", Out.data(), n);
  gpu_check::dump(argc, argv, "a_in_place", A.data(), n);
  cudaFree(DX);
  cudaFree(DY);
  cudaFree(DY2);
  cudaFree(DA);
  cudaFree(DOut);
  return 0;
}
