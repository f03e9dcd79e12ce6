// avgpool.cu - 3x3 average pooling with stride 2 (no padding) over a
// 16384 x 32768 image (w x h), one thread per output pixel.
#define CORPUS_NAME "avgpool"
#define CORPUS_SEED 0x59f111f1u
#include "corpus_common.h"

__global__ void avgpool3x3(float *out, const float *in, int w, int h, int ow,
                           int oh) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < ow && y < oh) {
    float sum = 0.0f;
    for (int dy = 0; dy < 3; ++dy)
      for (int dx = 0; dx < 3; ++dx)
        sum += in[(2 * y + dy) * w + (2 * x + dx)];
    out[y * ow + x] = sum / 9.0f;
  }
}

int main() {
  const int w = 16384, h = 32768;
  const int ow = (w - 3) / 2 + 1, oh = (h - 3) / 2 + 1;
  std::vector<float> hin((size_t)w * h), hout((size_t)ow * oh);
  fill_uniform(hin, -10.0f, 30.0f);
  float *in, *out;
  CK(cudaMalloc(&in, hin.size() * sizeof(float)));
  CK(cudaMalloc(&out, hout.size() * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), hin.size() * sizeof(float),
                cudaMemcpyHostToDevice));
  dim3 block(16, 16);
  dim3 grid((ow + 15) / 16, (oh + 15) / 16);
  avgpool3x3<<<grid, block>>>(out, in, w, h, ow, oh);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, hout.size() * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x) {
      double sum = 0, mag = 0;
      for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx) {
          double v = hin[(size_t)(2 * y + dy) * w + 2 * x + dx];
          sum += v;
          mag += std::fabs(v);
        }
      double ref = sum / 9.0;
      bad += !(std::fabs(hout[(size_t)y * ow + x] - ref) <= 1e-5 * mag + 1e-6);
    }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("avgpool: FAILED (%lld of %zu outputs wrong)\n", bad,
                hout.size());
    return 1;
  }
  std::printf("avgpool: ok\n");
  return 0;
}
