// conv_nhwc_s2.cu - a strided 3 x 3 convolution layer in NHWC as a naive
// kernel over one flat index: 32 images of 56 x 56 x 64 to 28 x 28 x 128
// (stride 2, zero padding 1; a ResNet down-sampling layer; PyTorch's
// F.conv2d(x, w, stride=2, padding=1) on channels-last tensors). Weights
// are KRSC. One thread per output element, the channel innermost.
// The CPU check recomputes a random sample of outputs (and every output of
// the first image's border rows) in double.
#define CORPUS_NAME "conv_nhwc_s2"
#define CORPUS_SEED 0xc0252a11u
#include "corpus_common.h"

__global__ void conv_nhwc(const float *x, const float *f, float *y, int N,
                          int H, int W, int C, int K, int P, int Q,
                          int stride, int pad) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= N * P * Q * K)
    return;
  int k = t % K;
  int q = (t / K) % Q;
  int p = (t / K / Q) % P;
  int n = t / K / Q / P;
  float acc = 0.0f;
  for (int r = 0; r < 3; ++r) {
    int h = p * stride - pad + r;
    if (h >= 0 && h < H)
      for (int s = 0; s < 3; ++s) {
        int v = q * stride - pad + s;
        if (v >= 0 && v < W)
          for (int c = 0; c < C; ++c)
            acc += x[((n * H + h) * W + v) * C + c] *
                   f[((k * 3 + r) * 3 + s) * C + c];
      }
  }
  y[((n * P + p) * Q + q) * K + k] = acc;
}

int main() {
  const int N = 32, H = 56, W = 56, C = 64, K = 128, stride = 2, pad = 1;
  const int P = (H + 2 * pad - 3) / stride + 1, Q = (W + 2 * pad - 3) / stride + 1;
  const size_t x_n = (size_t)N * H * W * C, f_n = (size_t)K * 9 * C,
               y_n = (size_t)N * P * Q * K;
  std::vector<float> hx(x_n), hf(f_n), hy(y_n);
  fill_uniform(hx, -1.0f, 1.0f);
  fill_uniform(hf, -0.1f, 0.1f);
  float *x, *f, *y;
  CK(cudaMalloc(&x, x_n * sizeof(float)));
  CK(cudaMalloc(&f, f_n * sizeof(float)));
  CK(cudaMalloc(&y, y_n * sizeof(float)));
  CK(cudaMemcpy(x, hx.data(), x_n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(f, hf.data(), f_n * sizeof(float), cudaMemcpyHostToDevice));
  int total = N * P * Q * K;
  conv_nhwc<<<(total + 255) / 256, 256>>>(x, f, y, N, H, W, C, K, P, Q,
                                          stride, pad);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hy.data(), y, y_n * sizeof(float), cudaMemcpyDeviceToHost));
  long long bad = 0, checked = 0;
  auto check = [&](int n, int p, int q, int k) {
    double sum = 0, mag = 0;
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) {
        int h = p * stride - pad + r, v = q * stride - pad + s;
        if (h < 0 || h >= H || v < 0 || v >= W)
          continue;
        for (int c = 0; c < C; ++c) {
          double t = (double)hx[(((size_t)n * H + h) * W + v) * C + c] *
                     hf[(((size_t)k * 3 + r) * 3 + s) * C + c];
          sum += t;
          mag += std::fabs(t);
        }
      }
    float got = hy[(((size_t)n * P + p) * Q + q) * K + k];
    ++checked;
    bad += !(std::fabs(got - sum) <= 1e-5 * mag + 1e-6);
  };
  for (int p : {0, P - 1})
    for (int q = 0; q < Q; ++q)
      for (int k = 0; k < K; ++k)
        check(0, p, q, k);
  for (int i = 0; i < (1 << 16); ++i)
    check((int)(frand(0, 1) * N) % N, (int)(frand(0, 1) * P) % P,
          (int)(frand(0, 1) * Q) % Q, (int)(frand(0, 1) * K) % K);
  CK(cudaFree(x));
  CK(cudaFree(f));
  CK(cudaFree(y));
  if (bad) {
    std::printf("conv_nhwc_s2: FAILED (%lld of %lld checked outputs wrong)\n",
                bad, checked);
    return 1;
  }
  std::printf("conv_nhwc_s2: ok\n");
  return 0;
}
