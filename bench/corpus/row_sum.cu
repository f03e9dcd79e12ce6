// row_sum.cu - the sum of each row of a 262144 x 512 matrix, one thread per
// row.
#define CORPUS_NAME "row_sum"
#define CORPUS_SEED 0xd807aa98u
#include "corpus_common.h"

__global__ void row_sum(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      sum += in[r * cols + j];
    out[r] = sum;
  }
}

int main() {
  const int rows = 262144, cols = 512;
  const size_t total = (size_t)rows * cols;
  std::vector<float> hin(total), hout(rows);
  fill_uniform(hin, -1.0f, 2.0f);
  float *in, *out;
  CK(cudaMalloc(&in, total * sizeof(float)));
  CK(cudaMalloc(&out, rows * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  row_sum<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, rows * sizeof(float),
                cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    const float *x = &hin[(size_t)r * cols];
    double ref = 0, mag = 0;
    for (int j = 0; j < cols; ++j) {
      ref += x[j];
      mag += std::fabs(x[j]);
    }
    bad += !(std::fabs(hout[r] - ref) <= 1e-4 * mag + 1e-6);
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("row_sum: FAILED (%d of %d rows wrong)\n", bad, rows);
    return 1;
  }
  std::printf("row_sum: ok\n");
  return 0;
}
