// row_cumsum.cu - inclusive prefix sum along each row of a 131072 x 512
// matrix, one thread per row walking its row sequentially.
#define CORPUS_NAME "row_cumsum"
#define CORPUS_SEED 0x550c7dc3u
#include "corpus_common.h"

__global__ void row_cumsum(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j) {
      sum += in[r * cols + j];
      out[r * cols + j] = sum;
    }
  }
}

int main() {
  const int rows = 131072, cols = 512;
  const size_t total = (size_t)rows * cols;
  std::vector<float> hin(total), hout(total);
  fill_uniform(hin, -1.0f, 1.5f);
  float *in, *out;
  CK(cudaMalloc(&in, total * sizeof(float)));
  CK(cudaMalloc(&out, total * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  row_cumsum<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, total * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int r = 0; r < rows; ++r) {
    const float *x = &hin[(size_t)r * cols];
    double ref = 0, mag = 0;
    for (int j = 0; j < cols; ++j) {
      ref += x[j];
      mag += std::fabs(x[j]);
      bad += !(std::fabs(hout[(size_t)r * cols + j] - ref) <= 1e-4 * mag + 1e-6);
    }
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("row_cumsum: FAILED (%lld of %zu outputs wrong)\n", bad, total);
    return 1;
  }
  std::printf("row_cumsum: ok\n");
  return 0;
}
