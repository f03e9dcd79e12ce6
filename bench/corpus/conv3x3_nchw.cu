// conv3x3_nchw.cu - a 3 x 3 convolution layer as a naive kernel: 8 images of
// 64 channels, 128 x 128, to 64 channels, stride 1, zero padding 1 (PyTorch's
// F.conv2d(x, w, padding=1), NCHW input, KCRS weights, NKPQ output). One
// thread per output element; the grid's z index is image * K + channel.
// The shape of issue 14's convolution target (within 1.2x of cuDNN).
// The CPU check recomputes every border output of two images and a random
// sample of the rest in double.
#define CORPUS_NAME "conv3x3_nchw"
#define CORPUS_SEED 0xc0113a3bu
#include "corpus_common.h"

__global__ void conv3x3(const float *in, const float *w, float *out, int N,
                        int C, int H, int W, int K, int pad) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  int p = blockIdx.y * blockDim.y + threadIdx.y;
  int n = blockIdx.z / K;
  int k = blockIdx.z % K;
  if (q >= W || p >= H || n >= N)
    return;
  float acc = 0.0f;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) {
        int y = p - pad + r;
        int x = q - pad + s;
        if (y >= 0 && y < H && x >= 0 && x < W)
          acc += in[((n * C + c) * H + y) * W + x] *
                 w[((k * C + c) * 3 + r) * 3 + s];
      }
  out[((n * K + k) * H + p) * W + q] = acc;
}

static double reference(const std::vector<float> &in,
                        const std::vector<float> &w, int C, int H, int W,
                        int K, int n, int k, int p, int q, double &mag) {
  double sum = 0;
  mag = 0;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) {
        int y = p - 1 + r, x = q - 1 + s;
        if (y < 0 || y >= H || x < 0 || x >= W)
          continue;
        double v = (double)in[(((size_t)n * C + c) * H + y) * W + x] *
                   w[(((size_t)k * C + c) * 3 + r) * 3 + s];
        sum += v;
        mag += std::fabs(v);
      }
  return sum;
}

int main() {
  const int N = 8, C = 64, H = 128, W = 128, K = 64;
  const size_t in_n = (size_t)N * C * H * W, w_n = (size_t)K * C * 9,
               out_n = (size_t)N * K * H * W;
  std::vector<float> hin(in_n), hw(w_n), hout(out_n);
  fill_uniform(hin, -1.0f, 1.0f);
  fill_uniform(hw, -0.1f, 0.1f);
  float *in, *w, *out;
  CK(cudaMalloc(&in, in_n * sizeof(float)));
  CK(cudaMalloc(&w, w_n * sizeof(float)));
  CK(cudaMalloc(&out, out_n * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), in_n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(w, hw.data(), w_n * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(32, 8);
  dim3 grid((W + 31) / 32, (H + 7) / 8, N * K);
  conv3x3<<<grid, block>>>(in, w, out, N, C, H, W, K, 1);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, out_n * sizeof(float),
                cudaMemcpyDeviceToHost));
  // fp32 sums of 576 products in any order stay within 1e-5 of the sum of
  // their magnitudes.
  long long bad = 0, checked = 0;
  auto check = [&](int n, int k, int p, int q) {
    double mag;
    double ref = reference(hin, hw, C, H, W, K, n, k, p, q, mag);
    float got = hout[(((size_t)n * K + k) * H + p) * W + q];
    ++checked;
    bad += !(std::fabs(got - ref) <= 1e-5 * mag + 1e-6);
  };
  for (int n : {0, N - 1})
    for (int k = 0; k < K; ++k)
      for (int p = 0; p < H; ++p)
        for (int q = 0; q < W; ++q)
          if (p == 0 || q == 0 || p == H - 1 || q == W - 1)
            check(n, k, p, q);
  for (int i = 0; i < (1 << 16); ++i)
    check((int)(frand(0, 1) * N) % N, (int)(frand(0, 1) * K) % K,
          (int)(frand(0, 1) * H) % H, (int)(frand(0, 1) * W) % W);
  CK(cudaFree(in));
  CK(cudaFree(w));
  CK(cudaFree(out));
  if (bad) {
    std::printf("conv3x3_nchw: FAILED (%lld of %lld checked outputs wrong)\n",
                bad, checked);
    return 1;
  }
  std::printf("conv3x3_nchw: ok\n");
  return 0;
}
