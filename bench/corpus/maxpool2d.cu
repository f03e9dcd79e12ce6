// maxpool2d.cu - 3x3 max pooling with stride 2 and padding 1 (ResNet's stem)
// over an NCHW batch of 128 x 64 planes of 112 x 112, one thread per output,
// loops over the window with a bounds check; the plane in blockIdx.z.
#define CORPUS_NAME "maxpool2d"
#define CORPUS_SEED 0x0fc19dc6u
#include "corpus_common.h"
#include <cfloat>

__global__ void maxpool2d(float *out, const float *in, int planes, int h, int w,
                          int oh, int ow, int k, int stride, int pad) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int p = blockIdx.z;
  if (ox < ow && oy < oh && p < planes) {
    float m = -FLT_MAX;
    for (int ky = 0; ky < k; ++ky) {
      for (int kx = 0; kx < k; ++kx) {
        int iy = oy * stride - pad + ky;
        int ix = ox * stride - pad + kx;
        if (iy >= 0 && iy < h && ix >= 0 && ix < w)
          m = fmaxf(m, in[(p * h + iy) * w + ix]);
      }
    }
    out[(p * oh + oy) * ow + ox] = m;
  }
}

int main() {
  const int batch = 128, channels = 64, h = 112, w = 112;
  const int k = 3, stride = 2, pad = 1;
  const int planes = batch * channels;
  const int oh = (h + 2 * pad - k) / stride + 1;
  const int ow = (w + 2 * pad - k) / stride + 1;
  std::vector<float> hin((size_t)planes * h * w), hout((size_t)planes * oh * ow);
  fill_uniform(hin, -50.0f, 50.0f);
  float *in, *out;
  CK(cudaMalloc(&in, hin.size() * sizeof(float)));
  CK(cudaMalloc(&out, hout.size() * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), hin.size() * sizeof(float),
                cudaMemcpyHostToDevice));
  dim3 block(16, 16);
  dim3 grid((ow + 15) / 16, (oh + 15) / 16, planes);
  maxpool2d<<<grid, block>>>(out, in, planes, h, w, oh, ow, k, stride, pad);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, hout.size() * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int p = 0; p < planes; ++p)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox) {
        float ref = -FLT_MAX;
        for (int ky = 0; ky < k; ++ky)
          for (int kx = 0; kx < k; ++kx) {
            int iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
            if (iy >= 0 && iy < h && ix >= 0 && ix < w)
              ref = std::fmax(ref, hin[((size_t)p * h + iy) * w + ix]);
          }
        bad += hout[((size_t)p * oh + oy) * ow + ox] != ref;
      }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("maxpool2d: FAILED (%lld of %zu outputs wrong)\n", bad,
                hout.size());
    return 1;
  }
  std::printf("maxpool2d: ok\n");
  return 0;
}
