// maxpool.cu - 2x2 max pooling with stride 2 over 32 channels of 4096 x 4096
// (channel-major), one thread per output, the channel in blockIdx.z.
#define CORPUS_NAME "maxpool"
#define CORPUS_SEED 0x3956c25bu
#include "corpus_common.h"

__global__ void maxpool2x2(float *out, const float *in, int channels, int w,
                           int h) {
  int ow = w / 2, oh = h / 2;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.z;
  if (x < ow && y < oh && c < channels) {
    const float *p = in + c * w * h + (2 * y) * w + 2 * x;
    float m = fmaxf(fmaxf(p[0], p[1]), fmaxf(p[w], p[w + 1]));
    out[c * ow * oh + y * ow + x] = m;
  }
}

int main() {
  const int channels = 32, w = 4096, h = 4096;
  const int ow = w / 2, oh = h / 2;
  std::vector<float> hin((size_t)channels * w * h),
      hout((size_t)channels * ow * oh);
  fill_uniform(hin, -50.0f, 50.0f);
  float *in, *out;
  CK(cudaMalloc(&in, hin.size() * sizeof(float)));
  CK(cudaMalloc(&out, hout.size() * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), hin.size() * sizeof(float),
                cudaMemcpyHostToDevice));
  dim3 block(16, 16);
  dim3 grid((ow + 15) / 16, (oh + 15) / 16, channels);
  maxpool2x2<<<grid, block>>>(out, in, channels, w, h);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, hout.size() * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int c = 0; c < channels; ++c)
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x) {
        const float *p = &hin[(size_t)c * w * h + (size_t)(2 * y) * w + 2 * x];
        float ref = std::fmax(std::fmax(p[0], p[1]), std::fmax(p[w], p[w + 1]));
        bad += hout[(size_t)c * ow * oh + (size_t)y * ow + x] != ref;
      }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("maxpool: FAILED (%lld of %zu outputs wrong)\n", bad,
                hout.size());
    return 1;
  }
  std::printf("maxpool: ok\n");
  return 0;
}
