// conv2d.cu - naive 2D convolution (correlation) of a 16384 x 16384 image with
// a 5x5 filter, zero padding at the borders, one thread per output pixel.
#define CORPUS_NAME "conv2d"
#define CORPUS_SEED 0xb5c0fbcfu
#include "corpus_common.h"

#define R 2
#define FW (2 * R + 1)

__global__ void conv2d(float *out, const float *in, const float *filt, int w,
                       int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float sum = 0.0f;
    for (int dy = -R; dy <= R; ++dy) {
      for (int dx = -R; dx <= R; ++dx) {
        int yy = y + dy;
        int xx = x + dx;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          sum += in[yy * w + xx] * filt[(dy + R) * FW + (dx + R)];
      }
    }
    out[y * w + x] = sum;
  }
}

static double reference(const std::vector<float> &in, const float *filt,
                        int w, int h, int x, int y, double &mag) {
  double sum = 0;
  mag = 0;
  for (int dy = -R; dy <= R; ++dy)
    for (int dx = -R; dx <= R; ++dx) {
      int yy = y + dy, xx = x + dx;
      if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
        double p = (double)in[(size_t)yy * w + xx] * filt[(dy + R) * FW + dx + R];
        sum += p;
        mag += std::fabs(p);
      }
    }
  return sum;
}

int main() {
  const int w = 16384, h = 16384;
  const size_t total = (size_t)w * h;
  std::vector<float> hin(total), hout(total), hf(FW * FW);
  fill_uniform(hin, 0.0f, 255.0f);
  fill_uniform(hf, -0.2f, 0.3f);
  float *in, *out, *filt;
  CK(cudaMalloc(&in, total * sizeof(float)));
  CK(cudaMalloc(&out, total * sizeof(float)));
  CK(cudaMalloc(&filt, FW * FW * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(filt, hf.data(), FW * FW * sizeof(float),
                cudaMemcpyHostToDevice));
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  conv2d<<<dim3((w + 31) / 32, (h + 3) / 4), dim3(32, 4)>>>(out, in, filt, w, h);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, total * sizeof(float),
                cudaMemcpyDeviceToHost));
  // Every border pixel (rows and columns 0..R and the last R+1), plus a
  // random sample of the interior.
  long long bad = 0, checked = 0;
  auto check = [&](int x, int y) {
    double mag;
    double ref = reference(hin, hf.data(), w, h, x, y, mag);
    ++checked;
    bad += !(std::fabs(hout[(size_t)y * w + x] - ref) <= 1e-4 * mag + 1e-5);
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      bool border = y <= R || y >= h - 1 - R || x <= R || x >= w - 1 - R;
      if (border)
        check(x, y);
    }
  for (int s = 0; s < (1 << 20); ++s)
    check((int)(frand(0, 1) * w) % w, (int)(frand(0, 1) * h) % h);
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(filt));
  if (bad) {
    std::printf("conv2d: FAILED (%lld of %lld checked outputs wrong)\n", bad,
                checked);
    return 1;
  }
  std::printf("conv2d: ok\n");
  return 0;
}
