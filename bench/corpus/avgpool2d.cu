// avgpool2d.cu - 3x3 average pooling with stride 2 and padding 1 over an NCHW
// batch of 64 x 128 planes of 128 x 128, padding cells not counted (PyTorch's
// count_include_pad=False); one thread per output from a flat index, loops
// over the window with a bounds check.
#define CORPUS_NAME "avgpool2d"
#define CORPUS_SEED 0x240ca1ccu
#include "corpus_common.h"

__global__ void avgpool2d(float *out, const float *in, int planes, int h,
                          int w, int oh, int ow, int k, int stride, int pad) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < planes * oh * ow) {
    int ox = idx % ow;
    int oy = (idx / ow) % oh;
    int p = idx / (ow * oh);
    float sum = 0.0f;
    int count = 0;
    for (int ky = 0; ky < k; ++ky) {
      for (int kx = 0; kx < k; ++kx) {
        int iy = oy * stride - pad + ky;
        int ix = ox * stride - pad + kx;
        if (iy >= 0 && iy < h && ix >= 0 && ix < w) {
          sum += in[(p * h + iy) * w + ix];
          ++count;
        }
      }
    }
    out[idx] = sum / count;
  }
}

int main() {
  const int batch = 64, channels = 128, h = 128, w = 128;
  const int k = 3, stride = 2, pad = 1;
  const int planes = batch * channels;
  const int oh = (h + 2 * pad - k) / stride + 1;
  const int ow = (w + 2 * pad - k) / stride + 1;
  const int total = planes * oh * ow;
  std::vector<float> hin((size_t)planes * h * w), hout(total);
  fill_uniform(hin, -10.0f, 30.0f);
  float *in, *out;
  CK(cudaMalloc(&in, hin.size() * sizeof(float)));
  CK(cudaMalloc(&out, hout.size() * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), hin.size() * sizeof(float),
                cudaMemcpyHostToDevice));
  avgpool2d<<<(total + 255) / 256, 256>>>(out, in, planes, h, w, oh, ow, k,
                                          stride, pad);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, hout.size() * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int p = 0; p < planes; ++p)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox) {
        double sum = 0, mag = 0;
        int count = 0;
        for (int ky = 0; ky < k; ++ky)
          for (int kx = 0; kx < k; ++kx) {
            int iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
            if (iy >= 0 && iy < h && ix >= 0 && ix < w) {
              double v = hin[((size_t)p * h + iy) * w + ix];
              sum += v;
              mag += std::fabs(v);
              ++count;
            }
          }
        double ref = sum / count;
        bad += !(std::fabs(hout[((size_t)p * oh + oy) * ow + ox] - ref) <=
                 1e-5 * mag + 1e-6);
      }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("avgpool2d: FAILED (%lld of %d outputs wrong)\n", bad, total);
    return 1;
  }
  std::printf("avgpool2d: ok\n");
  return 0;
}
