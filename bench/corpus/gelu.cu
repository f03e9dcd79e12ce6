// gelu.cu - elementwise GELU (tanh approximation) over 256M floats.
#define CORPUS_NAME "gelu"
#define CORPUS_SEED 0x7777abcu
#include "corpus_common.h"

__global__ void gelu(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    float inner = 0.7978845608f * (x + 0.044715f * x * x * x);
    out[i] = 0.5f * x * (1.0f + tanhf(inner));
  }
}

int main() {
  const int n = 1 << 28;
  std::vector<float> hin(n), hout(n);
  fill_uniform(hin, -5.0f, 5.0f);
  float *in, *out;
  CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  gelu<<<(n + 255) / 256, 256>>>(out, in, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, (size_t)n * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int i = 0; i < n; ++i) {
    double x = hin[i];
    double ref = 0.5 * x * (1.0 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
    bad += !(std::fabs(hout[i] - ref) <= 1e-5 * std::fabs(ref) + 1e-6);
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("gelu: FAILED (%lld of %d outputs wrong)\n", bad, n);
    return 1;
  }
  std::printf("gelu: ok\n");
  return 0;
}
