// row_argmin.cu - the index of the smallest element of each row of a
// 131072 x 1024 matrix, one thread per row; on ties the first index wins.
// The values are multiples of 1/4 in [-8, 8), so most rows have ties.
#define CORPUS_NAME "row_argmin"
#define CORPUS_SEED 0x243185beu
#include "corpus_common.h"

__global__ void row_argmin(int *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float best = in[r * cols];
    int best_j = 0;
    for (int j = 1; j < cols; ++j) {
      float v = in[r * cols + j];
      if (v < best) {
        best = v;
        best_j = j;
      }
    }
    out[r] = best_j;
  }
}

int main() {
  const int rows = 131072, cols = 1024;
  const size_t total = (size_t)rows * cols;
  std::vector<float> hin(total);
  std::vector<int> hout(rows);
  for (float &v : hin)
    v = (float)(int)(urand() % 64) * 0.25f - 8.0f;
  float *in;
  int *out;
  CK(cudaMalloc(&in, total * sizeof(float)));
  CK(cudaMalloc(&out, rows * sizeof(int)));
  CK(cudaMemcpy(in, hin.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  row_argmin<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, rows * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0, ties = 0;
  for (int r = 0; r < rows; ++r) {
    const float *x = &hin[(size_t)r * cols];
    int ref = 0, count = 1;
    for (int j = 1; j < cols; ++j) {
      if (x[j] < x[ref]) {
        ref = j;
        count = 1;
      } else if (x[j] == x[ref]) {
        ++count;
      }
    }
    ties += count > 1;
    bad += hout[r] != ref;
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad || ties < rows / 2) {
    std::printf("row_argmin: FAILED (%d of %d rows wrong, %d rows with ties)\n",
                bad, rows, ties);
    return 1;
  }
  std::printf("row_argmin: ok\n");
  return 0;
}
