// rmsnorm.cu - RMS normalisation over the rows of a 262144 x 512 matrix with
// a per-column weight, one thread per row (a pass for the mean square, a
// second to write).
#define CORPUS_NAME "rmsnorm"
#define CORPUS_SEED 0xab1c5ed5u
#include "corpus_common.h"

__global__ void rmsnorm(float *out, const float *in, const float *weight,
                        int rows, int cols, float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float ss = 0.0f;
    for (int j = 0; j < cols; ++j)
      ss += in[r * cols + j] * in[r * cols + j];
    float inv = 1.0f / sqrtf(ss / cols + eps);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = in[r * cols + j] * inv * weight[j];
  }
}

int main() {
  const int rows = 262144, cols = 512;
  const float eps = 1e-6f;
  const size_t total = (size_t)rows * cols;
  std::vector<float> hin(total), hw(cols), hout(total);
  fill_uniform(hin, -3.0f, 5.0f);
  fill_uniform(hw, 0.5f, 1.5f);
  float *in, *w, *out;
  CK(cudaMalloc(&in, total * sizeof(float)));
  CK(cudaMalloc(&w, cols * sizeof(float)));
  CK(cudaMalloc(&out, total * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(w, hw.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  rmsnorm<<<(rows + 255) / 256, 256>>>(out, in, w, rows, cols, eps);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, total * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int r = 0; r < rows; ++r) {
    const float *x = &hin[(size_t)r * cols];
    double ss = 0;
    for (int j = 0; j < cols; ++j)
      ss += (double)x[j] * x[j];
    double inv = 1.0 / std::sqrt(ss / cols + eps);
    for (int j = 0; j < cols; ++j) {
      double ref = x[j] * inv * hw[j];
      bad += !(std::fabs(hout[(size_t)r * cols + j] - ref) <=
               1e-4 * std::fabs(ref) + 1e-6);
    }
  }
  CK(cudaFree(in));
  CK(cudaFree(w));
  CK(cudaFree(out));
  if (bad) {
    std::printf("rmsnorm: FAILED (%lld of %zu outputs wrong)\n", bad, total);
    return 1;
  }
  std::printf("rmsnorm: ok\n");
  return 0;
}
