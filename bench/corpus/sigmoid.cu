// sigmoid.cu - elementwise logistic sigmoid over 256M floats.
#define CORPUS_NAME "sigmoid"
#define CORPUS_SEED 0x5151515u
#include "corpus_common.h"

__global__ void sigmoid(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 1.0f / (1.0f + expf(-in[i]));
}

int main() {
  const int n = 1 << 28;
  std::vector<float> hin(n), hout(n);
  fill_uniform(hin, -10.0f, 10.0f);
  float *in, *out;
  CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  sigmoid<<<(n + 255) / 256, 256>>>(out, in, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, (size_t)n * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int i = 0; i < n; ++i) {
    double ref = 1.0 / (1.0 + std::exp(-(double)hin[i]));
    bad += !(std::fabs(hout[i] - ref) <= 1e-5 * ref + 1e-7);
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("sigmoid: FAILED (%lld of %d outputs wrong)\n", bad, n);
    return 1;
  }
  std::printf("sigmoid: ok\n");
  return 0;
}
