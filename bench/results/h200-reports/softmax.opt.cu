// softmax.cu - row-wise softmax of a 262144 x 512 matrix, one thread per row
// (max, sum of exponentials, then normalise).
#define CORPUS_NAME "softmax"
#define CORPUS_SEED 0x1f83d9abu
#include "corpus_common.h"

__global__ void softmax_rows(float *__restrict__ out,
                             const float *__restrict__ in, int rows, int cols) {
  for (int c = 0; c < 8; ++c) {
    int r = (blockIdx.x * 8 + c) * blockDim.x + threadIdx.x;
    if (r < rows) {
      float m = in[r * cols];
      for (int j = 1; j < cols; ++j)
        m = fmaxf(m, in[r * cols + j]);
      float sum = 0.0f;
      for (int j = 0; j < cols; ++j)
        sum += expf(in[r * cols + j] - m);
      for (int j = 0; j < cols; ++j)
        out[r * cols + j] = expf(in[r * cols + j] - m) / sum;
    }
  }
}

int main() {
  const int rows = 262144, cols = 512;
  const size_t total = (size_t)rows * cols;
  std::vector<float> hin(total), hout(total);
  fill_uniform(hin, -8.0f, 8.0f);
  float *in, *out;
  CK(cudaMalloc(&in, total * sizeof(float)));
  CK(cudaMalloc(&out, total * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  softmax_rows<<<((rows + 255) / 256 + 7) / 8, 256>>>(out, in, rows, cols);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, total * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  std::vector<double> e(cols);
  for (int r = 0; r < rows; ++r) {
    const float *x = &hin[(size_t)r * cols];
    double m = x[0];
    for (int j = 1; j < cols; ++j)
      m = std::fmax(m, (double)x[j]);
    double sum = 0;
    for (int j = 0; j < cols; ++j) {
      e[j] = std::exp(x[j] - m);
      sum += e[j];
    }
    for (int j = 0; j < cols; ++j) {
      double ref = e[j] / sum;
      bad += !(std::fabs(hout[(size_t)r * cols + j] - ref) <= 1e-4 * ref + 1e-9);
    }
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("softmax: FAILED (%lld of %zu outputs wrong)\n", bad, total);
    return 1;
  }
  std::printf("softmax: ok\n");
  return 0;
}
