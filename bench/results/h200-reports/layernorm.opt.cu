// layernorm.cu - layer normalisation over the rows of a 262144 x 512 matrix
// with per-column gamma and beta, one thread per row (two passes for the
// mean and variance, a third to write).
#define CORPUS_NAME "layernorm"
#define CORPUS_SEED 0x5be0cd19u
#include "corpus_common.h"

__global__ void layernorm(float *__restrict__ out, const float *__restrict__ in,
                          const float *__restrict__ gamma,
                          const float *__restrict__ beta, int rows, int cols,
                          float eps) {
  for (int c = 0; c < 8; ++c) {
    int r = (blockIdx.x * 8 + c) * blockDim.x + threadIdx.x;
    if (r < rows) {
      float mean = 0.0f;
      for (int j = 0; j < cols; ++j)
        mean += in[r * cols + j];
      mean /= cols;
      float var = 0.0f;
      for (int j = 0; j < cols; ++j) {
        float d = in[r * cols + j] - mean;
        var += d * d;
      }
      var /= cols;
      float inv = 1.0f / sqrtf(var + eps);
      for (int j = 0; j < cols; ++j)
        out[r * cols + j] =
            (in[r * cols + j] - mean) * inv * gamma[j] + beta[j];
    }
  }
}

int main() {
  const int rows = 262144, cols = 512;
  const float eps = 1e-5f;
  const size_t total = (size_t)rows * cols;
  std::vector<float> hin(total), hout(total), hg(cols), hb(cols);
  fill_uniform(hin, -3.0f, 5.0f);
  fill_uniform(hg, 0.5f, 1.5f);
  fill_uniform(hb, -0.5f, 0.5f);
  float *in, *out, *g, *b;
  CK(cudaMalloc(&in, total * sizeof(float)));
  CK(cudaMalloc(&out, total * sizeof(float)));
  CK(cudaMalloc(&g, cols * sizeof(float)));
  CK(cudaMalloc(&b, cols * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(g, hg.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, hb.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  layernorm<<<((rows + 255) / 256 + 7) / 8, 256>>>(out, in, g, b, rows, cols,
                                                   eps);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, total * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int r = 0; r < rows; ++r) {
    const float *x = &hin[(size_t)r * cols];
    double mean = 0;
    for (int j = 0; j < cols; ++j)
      mean += x[j];
    mean /= cols;
    double var = 0;
    for (int j = 0; j < cols; ++j)
      var += (x[j] - mean) * (x[j] - mean);
    var /= cols;
    double inv = 1.0 / std::sqrt(var + eps);
    for (int j = 0; j < cols; ++j) {
      double ref = (x[j] - mean) * inv * hg[j] + hb[j];
      bad += !(std::fabs(hout[(size_t)r * cols + j] - ref) <=
               1e-4 * std::fabs(ref) + 1e-4);
    }
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(g));
  CK(cudaFree(b));
  if (bad) {
    std::printf("layernorm: FAILED (%lld of %zu outputs wrong)\n", bad, total);
    return 1;
  }
  std::printf("layernorm: ok\n");
  return 0;
}
