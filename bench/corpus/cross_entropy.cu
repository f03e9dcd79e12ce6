// cross_entropy.cu - per-row cross-entropy loss of 131072 rows of 1024
// logits against int labels, one thread per row:
// loss[r] = log(sum_j exp(x[r][j] - m)) + m - x[r][label[r]], m the row's max.
#define CORPUS_NAME "cross_entropy"
#define CORPUS_SEED 0x72be5d74u
#include "corpus_common.h"

__global__ void cross_entropy(float *loss, const float *logits,
                              const int *labels, int rows, int classes) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = logits[r * classes];
    for (int j = 1; j < classes; ++j)
      m = fmaxf(m, logits[r * classes + j]);
    float sum = 0.0f;
    for (int j = 0; j < classes; ++j)
      sum += expf(logits[r * classes + j] - m);
    loss[r] = logf(sum) + m - logits[r * classes + labels[r]];
  }
}

int main() {
  const int rows = 131072, classes = 1024;
  const size_t total = (size_t)rows * classes;
  std::vector<float> hx(total), hloss(rows);
  std::vector<int> hlab(rows);
  fill_uniform(hx, -6.0f, 10.0f);
  fill_int(hlab, 0, classes - 1);
  float *x, *loss;
  int *lab;
  CK(cudaMalloc(&x, total * sizeof(float)));
  CK(cudaMalloc(&lab, rows * sizeof(int)));
  CK(cudaMalloc(&loss, rows * sizeof(float)));
  CK(cudaMemcpy(x, hx.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(lab, hlab.data(), rows * sizeof(int), cudaMemcpyHostToDevice));
  cross_entropy<<<(rows + 255) / 256, 256>>>(loss, x, lab, rows, classes);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hloss.data(), loss, rows * sizeof(float),
                cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    const float *v = &hx[(size_t)r * classes];
    double m = v[0];
    for (int j = 1; j < classes; ++j)
      m = std::fmax(m, (double)v[j]);
    double sum = 0;
    for (int j = 0; j < classes; ++j)
      sum += std::exp(v[j] - m);
    double ref = std::log(sum) + m - v[hlab[r]];
    // fp32 rounding of the exponentials' sum and of m - x[label].
    double tol = 1e-4 * (1.0 + std::fabs(m) + std::fabs(v[hlab[r]]));
    bad += !(std::fabs(hloss[r] - ref) <= tol);
  }
  CK(cudaFree(x));
  CK(cudaFree(lab));
  CK(cudaFree(loss));
  if (bad) {
    std::printf("cross_entropy: FAILED (%d of %d rows wrong)\n", bad, rows);
    return 1;
  }
  std::printf("cross_entropy: ok\n");
  return 0;
}
