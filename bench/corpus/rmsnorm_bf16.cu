// rmsnorm_bf16.cu - RMS normalisation over the rows of a 262144 x 1024
// __nv_bfloat16 matrix with a bf16 per-column weight, one thread per row;
// the mean square and the products are computed in float.
#define CORPUS_NAME "rmsnorm_bf16"
#define CORPUS_SEED 0x5cb0a9dcu
#include "corpus_common.h"
#include <cuda_bf16.h>

__global__ void rmsnorm_bf16(__nv_bfloat16 *out, const __nv_bfloat16 *in,
                             const __nv_bfloat16 *weight, int rows, int cols,
                             float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float ss = 0.0f;
    for (int j = 0; j < cols; ++j) {
      float v = __bfloat162float(in[r * cols + j]);
      ss += v * v;
    }
    float inv = rsqrtf(ss / cols + eps);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = __float2bfloat16(__bfloat162float(in[r * cols + j]) *
                                           inv * __bfloat162float(weight[j]));
  }
}

static void fill_bf16(std::vector<__nv_bfloat16> &v, float lo, float hi) {
  for (__nv_bfloat16 &x : v)
    x = __float2bfloat16(frand(lo, hi));
}

int main() {
  const int rows = 262144, cols = 1024;
  const float eps = 1e-6f;
  const size_t total = (size_t)rows * cols;
  std::vector<__nv_bfloat16> hin(total), hw(cols), hout(total);
  fill_bf16(hin, -3.0f, 5.0f);
  fill_bf16(hw, 0.5f, 1.5f);
  __nv_bfloat16 *in, *w, *out;
  CK(cudaMalloc(&in, total * sizeof(__nv_bfloat16)));
  CK(cudaMalloc(&w, cols * sizeof(__nv_bfloat16)));
  CK(cudaMalloc(&out, total * sizeof(__nv_bfloat16)));
  CK(cudaMemcpy(in, hin.data(), total * sizeof(__nv_bfloat16),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(w, hw.data(), cols * sizeof(__nv_bfloat16),
                cudaMemcpyHostToDevice));
  rmsnorm_bf16<<<(rows + 255) / 256, 256>>>(out, in, w, rows, cols, eps);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, total * sizeof(__nv_bfloat16),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  std::vector<double> x(cols), wd(cols);
  for (int j = 0; j < cols; ++j)
    wd[j] = __bfloat162float(hw[j]);
  for (int r = 0; r < rows; ++r) {
    double ss = 0;
    for (int j = 0; j < cols; ++j) {
      x[j] = __bfloat162float(hin[(size_t)r * cols + j]);
      ss += x[j] * x[j];
    }
    double inv = 1.0 / std::sqrt(ss / cols + eps);
    for (int j = 0; j < cols; ++j) {
      double ref = x[j] * inv * wd[j];
      double got = __bfloat162float(hout[(size_t)r * cols + j]);
      // bf16 output (8-bit significand): 1e-2 relative.
      bad += !(std::fabs(got - ref) <= 1e-2 * std::fabs(ref) + 1e-6);
    }
  }
  CK(cudaFree(in));
  CK(cudaFree(w));
  CK(cudaFree(out));
  if (bad) {
    std::printf("rmsnorm_bf16: FAILED (%lld of %zu outputs wrong)\n", bad,
                total);
    return 1;
  }
  std::printf("rmsnorm_bf16: ok\n");
  return 0;
}
