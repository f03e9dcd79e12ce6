// A two-launch elementwise chain in main(): scale into a temporary that is
// freed right after, then bias and ReLU into y. tune must measure the
// region as one unit (the fused kernel cannot be timed one launch at a
// time), keep the fused kernel, and the output must still pass its check.
#include <cmath>
#include <cstdio>
#include <vector>

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("chain: FAILED (%s)\n", cudaGetErrorString(e_));             \
      return 1;                                                                \
    }                                                                          \
  } while (0)

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
  const int n = (1 << 24) + 3;
  const float alpha = 1.75f, beta = -0.5f;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i)
    hx[i] = static_cast<float>(i % 1013) / 1013.0f - 0.25f;
  float *x, *y, *tmp;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMalloc(&tmp, n * sizeof(float)));
  scale<<<(n + 255) / 256, 256>>>(tmp, x, alpha, n);
  CK(cudaGetLastError());
  bias_relu<<<(n + 255) / 256, 256>>>(y, tmp, beta, n);
  CK(cudaGetLastError());
  CK(cudaFree(tmp));
  CK(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < n; ++i) {
    double want = std::fmax(static_cast<double>(alpha) * hx[i] + beta, 0.0);
    if (std::fabs(hy[i] - want) > 1e-6 * (1 + std::fabs(want)))
      ++bad;
  }
  if (bad) {
    std::printf("chain: FAILED (%ld wrong)\n", bad);
    return 1;
  }
  std::printf("chain: ok\n");
  return 0;
}
