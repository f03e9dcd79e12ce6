// stencil5.cu - one Jacobi step of the 5-point stencil on a 16384 x 16384
// grid; border cells are copied through unchanged.
#define CORPUS_NAME "stencil5"
#define CORPUS_SEED 0x923f82a4u
#include "corpus_common.h"

__global__ void stencil5(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
      out[i] = in[i];
    else
      out[i] = 0.5f * in[i] +
               0.125f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
  }
}

int main() {
  const int w = 16384, h = 16384;
  const size_t total = (size_t)w * h;
  std::vector<float> hin(total), hout(total);
  fill_uniform(hin, -1.0f, 1.0f);
  float *in, *out;
  CK(cudaMalloc(&in, total * sizeof(float)));
  CK(cudaMalloc(&out, total * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(32, 8);
  dim3 grid((w + 31) / 32, (h + 7) / 8);
  stencil5<<<dim3((w + 127) / 128, (h + 1) / 2), dim3(128, 2)>>>(out, in, w, h);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, total * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      size_t i = (size_t)y * w + x;
      double ref, mag;
      if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        ref = hin[i];
        mag = std::fabs(ref);
      } else {
        double s = (double)hin[i - 1] + hin[i + 1] + hin[i - w] + hin[i + w];
        ref = 0.5 * hin[i] + 0.125 * s;
        mag = 0.5 * std::fabs(hin[i]) +
              0.125 * (std::fabs(hin[i - 1]) + std::fabs(hin[i + 1]) +
                       std::fabs(hin[i - w]) + std::fabs(hin[i + w]));
      }
      bad += !(std::fabs(hout[i] - ref) <= 1e-5 * mag + 1e-7);
    }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("stencil5: FAILED (%lld of %zu outputs wrong)\n", bad, total);
    return 1;
  }
  std::printf("stencil5: ok\n");
  return 0;
}
