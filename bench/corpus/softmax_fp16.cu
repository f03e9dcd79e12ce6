// softmax_fp16.cu - row-wise softmax of a 262144 x 512 __half matrix, one
// thread per row, max and sum of exponentials accumulated in float.
#define CORPUS_NAME "softmax_fp16"
#define CORPUS_SEED 0x4a7484aau
#include "corpus_common.h"

__global__ void softmax_fp16(__half *out, const __half *in, int rows,
                             int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = __half2float(in[r * cols]);
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, __half2float(in[r * cols + j]));
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      sum += expf(__half2float(in[r * cols + j]) - m);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = __float2half(expf(__half2float(in[r * cols + j]) - m) / sum);
  }
}

int main() {
  const int rows = 262144, cols = 512;
  const size_t total = (size_t)rows * cols;
  std::vector<__half> hin(total), hout(total);
  fill_uniform(hin, -8.0f, 8.0f);
  __half *in, *out;
  CK(cudaMalloc(&in, total * sizeof(__half)));
  CK(cudaMalloc(&out, total * sizeof(__half)));
  CK(cudaMemcpy(in, hin.data(), total * sizeof(__half), cudaMemcpyHostToDevice));
  softmax_fp16<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, total * sizeof(__half),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  std::vector<double> x(cols), e(cols);
  for (int r = 0; r < rows; ++r) {
    double m = -1e300;
    for (int j = 0; j < cols; ++j) {
      x[j] = __half2float(hin[(size_t)r * cols + j]);
      m = std::fmax(m, x[j]);
    }
    double sum = 0;
    for (int j = 0; j < cols; ++j) {
      e[j] = std::exp(x[j] - m);
      sum += e[j];
    }
    for (int j = 0; j < cols; ++j) {
      double ref = e[j] / sum;
      double got = __half2float(hout[(size_t)r * cols + j]);
      // fp16 output: 1e-2 relative; 1e-6 absolute covers the subnormals.
      bad += !(std::fabs(got - ref) <= 1e-2 * ref + 1e-6);
    }
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("softmax_fp16: FAILED (%lld of %zu outputs wrong)\n", bad,
                total);
    return 1;
  }
  std::printf("softmax_fp16: ok\n");
  return 0;
}
