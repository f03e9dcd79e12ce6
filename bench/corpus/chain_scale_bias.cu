// chain_scale_bias.cu - y = max(alpha * x + beta, 0) over 64M floats, written
// as two elementwise kernels launched back to back through a temporary:
// scale writes tmp = alpha * x, bias_relu writes y = max(tmp + beta, 0).
// tmp is cudaMalloc'ed for the chain and freed after it (dead afterwards).
// This is the launch-fusion case of issue 14 ("Optimize across launches"):
// each kernel alone is memory-bound, the pair moves 1 GB (x, tmp, tmp, y)
// where the fused floor is 512 MB (x read once, y written once).
#define CORPUS_NAME "chain_scale_bias"
#define CORPUS_SEED 0x76f988dau
#include "corpus_common.h"
#include <algorithm>

__global__ void scale(float *tmp, const float *x, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    tmp[i] = alpha * x[i];
}

__global__ void bias_relu(float *y, const float *tmp, float beta, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = fmaxf(tmp[i] + beta, 0.0f);
}

int main() {
  const int n = 1 << 26;
  const float alpha = 1.5f, beta = -0.25f;
  std::vector<float> hx(n), hy(n);
  fill_uniform(hx, -2.0f, 2.0f);
  float *x, *tmp, *y;
  CK(cudaMalloc(&x, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&y, (size_t)n * sizeof(float)));
  CK(cudaMemcpy(x, hx.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMalloc(&tmp, (size_t)n * sizeof(float)));
  scale<<<(n + 255) / 256, 256>>>(tmp, x, alpha, n);
  CK(cudaGetLastError());
  bias_relu<<<(n + 255) / 256, 256>>>(y, tmp, beta, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaFree(tmp));
  CK(cudaMemcpy(hy.data(), y, (size_t)n * sizeof(float),
                cudaMemcpyDeviceToHost));
  // Two fp32 roundings (or one, if the two steps are fused into an fma):
  // the bound is relative to the terms' magnitudes, since alpha * x + beta
  // cancels near x = 1/6.
  long long bad = 0;
  for (int i = 0; i < n; ++i) {
    double t = (double)alpha * hx[i];
    double ref = std::max(t + beta, 0.0);
    double mag = std::fabs(t) + std::fabs((double)beta);
    bad += !(std::fabs(hy[i] - ref) <= 1e-5 * mag);
  }
  CK(cudaFree(x));
  CK(cudaFree(y));
  if (bad) {
    std::printf("chain_scale_bias: FAILED (%lld of %d outputs wrong)\n", bad,
                n);
    return 1;
  }
  std::printf("chain_scale_bias: ok\n");
  return 0;
}
