// bias_add_fp16.cu - add a per-column bias to a 16384 x 32768 row-major
// __half matrix (512M elements), one element per thread.
#define CORPUS_NAME "bias_add_fp16"
#define CORPUS_SEED 0xe9b5dba5u
#include "corpus_common.h"

__global__ void bias_add(__half *out, const __half *in, const __half *bias,
                         int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __hadd(in[i], bias[i % cols]);
}

int main() {
  const int rows = 16384, cols = 32768;
  const int n = rows * cols;
  std::vector<__half> hin(n), hb(cols), hout(n);
  fill_uniform(hin, -8.0f, 8.0f);
  fill_uniform(hb, -1.0f, 1.0f);
  __half *in, *bias, *out;
  CK(cudaMalloc(&in, (size_t)n * sizeof(__half)));
  CK(cudaMalloc(&bias, cols * sizeof(__half)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(__half)));
  CK(cudaMemcpy(in, hin.data(), (size_t)n * sizeof(__half),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(bias, hb.data(), cols * sizeof(__half),
                cudaMemcpyHostToDevice));
  bias_add<<<(n + 255) / 256, 256>>>(out, in, bias, cols, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, (size_t)n * sizeof(__half),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int i = 0; i < n; ++i) {
    double ref = (double)__half2float(hin[i]) + __half2float(hb[i % cols]);
    double got = __half2float(hout[i]);
    bad += !(std::fabs(got - ref) <= 1e-2 * std::fabs(ref) + 1e-3);
  }
  CK(cudaFree(in));
  CK(cudaFree(bias));
  CK(cudaFree(out));
  if (bad) {
    std::printf("bias_add_fp16: FAILED (%lld of %d outputs wrong)\n", bad, n);
    return 1;
  }
  std::printf("bias_add_fp16: ok\n");
  return 0;
}
