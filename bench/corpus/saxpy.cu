// saxpy.cu - y = a * x + y over 256M floats, one element per thread.
#define CORPUS_NAME "saxpy"
#define CORPUS_SEED 0x3c6ef372u
#include "corpus_common.h"

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 28;
  const float a = 1.75f;
  std::vector<float> hx(n), hy(n), hout(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = frand(-1.0f, 1.0f);
    hy[i] = frand(-3.0f, 3.0f);
  }
  float *x, *y;
  CK(cudaMalloc(&x, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&y, (size_t)n * sizeof(float)));
  CK(cudaMemcpy(x, hx.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(y, hy.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  saxpy<<<(n + 255) / 256, 256>>>(y, x, a, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), y, (size_t)n * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int i = 0; i < n; ++i) {
    double ref = (double)a * hx[i] + hy[i];
    bad += !(std::fabs(hout[i] - ref) <= 1e-5 * std::fabs(ref) + 1e-6);
  }
  CK(cudaFree(x));
  CK(cudaFree(y));
  if (bad) {
    std::printf("saxpy: FAILED (%lld of %d outputs wrong)\n", bad, n);
    return 1;
  }
  std::printf("saxpy: ok\n");
  return 0;
}
