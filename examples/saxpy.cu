// examples/saxpy.cu - a naive but correct CUDA program: y = a * x + y.
// `cuda-opt tune examples/saxpy.cu -o saxpy.opt.cu` rewrites it.
#include <cmath>
#include <cstdio>
#include <vector>

__global__ void saxpy(float *y, float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 24;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = std::sin(0.001f * i);
    hy[i] = std::cos(0.002f * i);
  }
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  std::vector<float> out(n);
  cudaMemcpy(out.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += std::fabs(out[i] - (2.0f * hx[i] + hy[i])) > 1e-5f;
  std::printf("saxpy: %s (%d mismatches)\n", bad ? "FAILED" : "ok", bad);
  cudaFree(x);
  cudaFree(y);
  return bad != 0;
}
