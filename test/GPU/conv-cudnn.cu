// REQUIRES: cuda-device
// RUN: %gpu_equiv --cudnn --fp-model=reassoc --passes=conv-cudnn --kernel=conv_nchw %s
// RUN: %gpu_equiv --cudnn --fp-model=reassoc --passes=conv-cudnn --kernel=conv_nhwc %s
// RUN: %gpu_equiv --cudnn --fp-model=reassoc --passes='conv-cudnn{algo=1}' --kernel=conv_nchw %s
// RUN: %gpu_equiv --cudnn --fp-model=reassoc --passes='conv-cudnn{algo=6}' --kernel=conv_nhwc %s
// RUN: %gpu_equiv --cudnn --fp-model=reassoc --passes=conv-cudnn --kernel=conv_bias %s
// RUN: %gpu_equiv --cudnn --fp-model=reassoc --passes=conv-cudnn --kernel=conv_valid %s
// RUN: %gpu_equiv --cudnn --fp-model=reassoc --kernel=conv_valid --plant='DIn, DW, nullptr, DOut, S.N, S.C, S.H, S.W, S.K, 5=>DIn + 1, DW, nullptr, DOut, S.N, S.C, S.H, S.W, S.K, 5' --passes=conv-cudnn %s
// RUN: %gpu_equiv --cudnn --fp-model=reassoc --kernel=conv_bias --plant='DW, DB, DOut=>DW, nullptr, DOut' --passes=conv-cudnn %s
// Planted bugs: convolution instead of cross-correlation, the channel count
// one short, and NCHW described as NHWC (each keeps shapes cuDNN accepts).
// RUN: %gpu_equiv --cudnn --fp-model=reassoc --kernel=conv_nchw --plant='CUDNN_CROSS_CORRELATION=>CUDNN_CONVOLUTION' --passes=conv-cudnn %s
// RUN: %gpu_equiv --cudnn --fp-model=reassoc --kernel=conv_nhwc --plant='nullptr, DOut, S.N, S.C, S.H=>nullptr, DOut, S.N, S.C - 1, S.H' --passes=conv-cudnn %s
// RUN: %gpu_equiv --cudnn --fp-model=reassoc --kernel=conv_nchw --plant='S.Pad, S.Pad, 1, 1, 1, 1, 0,=>S.Pad, S.Pad, 1, 1, 1, 1, 1,' --passes=conv-cudnn %s

// conv-cudnn: the cuDNN call computes each kernel's convolution within the
// reassoc rule against an fp64 host reference, on shapes with odd sizes,
// strides, dilations and paddings; a launch whose grid misses outputs (the
// last case) keeps the kernel, and a shape cuDNN cannot produce exactly
// (output rows the kernel writes beyond cuDNN's) falls back to the kernel.

#include "gpu_check.h"
#include <string>
#include <vector>

__global__ void conv_nchw(const float *in, const float *w, float *out, int N,
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

__global__ void conv_nhwc(const float *x, const float *f, float *y, int N,
                          int H, int W, int C, int K, int R, int S, int P,
                          int Q, int stride, int pad, int dil) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= N * P * Q * K)
    return;
  int k = t % K;
  int q = (t / K) % Q;
  int p = (t / K / Q) % P;
  int n = t / K / Q / P;
  float acc = 0.0f;
  for (int r = 0; r < R; ++r) {
    int h = p * stride - pad + r * dil;
    if (h >= 0 && h < H)
      for (int s = 0; s < S; ++s) {
        int v = q * stride - pad + s * dil;
        if (v >= 0 && v < W)
          for (int c = 0; c < C; ++c)
            acc += x[((n * H + h) * W + v) * C + c] *
                   f[((k * R + r) * S + s) * C + c];
      }
  }
  y[((n * P + p) * Q + q) * K + k] = acc;
}

// With a bias per output channel, added after the sum.
__global__ void conv_bias(const float *in, const float *w, const float *b,
                          float *out, int N, int C, int H, int W, int K) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  int p = blockIdx.y * blockDim.y + threadIdx.y;
  int n = blockIdx.z / K, k = blockIdx.z % K;
  if (q < W && p < H && n < N) {
    float acc = 0.0f;
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) {
          int y = p + r - 1, x = q + s - 1;
          if (y >= 0 && y < H && x >= 0 && x < W)
            acc += in[((n * C + c) * H + y) * W + x] *
                   w[((k * C + c) * 3 + r) * 3 + s];
        }
    out[((n * K + k) * H + p) * W + q] = acc + b[k];
  }
}

// A "valid" convolution: no padding guard, every tap read; 5 x 5 taps.
__global__ void conv_valid(const float *in, const float *w, float *out, int N,
                           int C, int H, int W, int K, int P, int Q,
                           int stride) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  int p = blockIdx.y * blockDim.y + threadIdx.y;
  int n = blockIdx.z / K, k = blockIdx.z % K;
  if (q >= Q || p >= P || n >= N)
    return;
  float acc = 0.0f;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < 5; ++r)
      for (int s = 0; s < 5; ++s)
        acc += in[((n * C + c) * H + p * stride + r) * W + q * stride + s] *
               w[((k * C + c) * 5 + r) * 5 + s];
  out[((n * K + k) * P + p) * Q + q] = acc;
}

static float *device(const std::vector<float> &H) {
  float *D;
  cudaMalloc(&D, H.size() * sizeof(float));
  cudaMemcpy(D, H.data(), H.size() * sizeof(float), cudaMemcpyHostToDevice);
  return D;
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  // NCHW, 3x3, same-size output: (N, C, H, W, K, pad, grid covers?)
  struct Nchw { int N, C, H, W, K, Pad; bool Short; };
  const Nchw Shapes[] = {{2, 3, 17, 33, 5, 1, false},
                         {1, 16, 8, 8, 16, 1, false},
                         {3, 5, 31, 7, 2, 1, true}};
  int Case = 0;
  for (const Nchw &S : Shapes) {
    std::vector<float> In((size_t)S.N * S.C * S.H * S.W), Wt((size_t)S.K * S.C * 9);
    std::vector<float> Out((size_t)S.N * S.K * S.H * S.W, 0.0f);
    gpu_check::fill_uniform(In.data(), In.size(), Seed + Case, -1.0f, 1.0f);
    gpu_check::fill_uniform(Wt.data(), Wt.size(), Seed + 7 * Case + 1, -0.5f, 0.5f);
    float *DIn = device(In), *DW = device(Wt), *DOut = device(Out);
    dim3 Block(8, 4);
    // The short grid misses the last image: the kernel must stay.
    dim3 Grid((S.W + 7) / 8, (S.H + 3) / 4, (S.N - (S.Short ? 1 : 0)) * S.K);
    conv_nchw<<<Grid, Block>>>(DIn, DW, DOut, S.N, S.C, S.H, S.W, S.K, S.Pad);
    gpu_check::check_launch("conv_nchw");
    cudaMemcpy(Out.data(), DOut, Out.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::vector<double> Ref(Out.size(), 0.0);
    int Images = S.N - (S.Short ? 1 : 0);
    for (int n = 0; n < Images; ++n)
      for (int k = 0; k < S.K; ++k)
        for (int p = 0; p < S.H; ++p)
          for (int q = 0; q < S.W; ++q) {
            double Sum = 0;
            for (int c = 0; c < S.C; ++c)
              for (int r = 0; r < 3; ++r)
                for (int s = 0; s < 3; ++s) {
                  int y = p - S.Pad + r, x = q - S.Pad + s;
                  if (y >= 0 && y < S.H && x >= 0 && x < S.W)
                    Sum += (double)In[(((size_t)n * S.C + c) * S.H + y) * S.W + x] *
                           Wt[((k * S.C + c) * 3 + r) * 3 + s];
                }
            Ref[(((size_t)n * S.K + k) * S.H + p) * S.W + q] = Sum;
          }
    std::string Name = "nchw" + std::to_string(Case++);
    gpu_check::dump(argc, argv, Name.c_str(), Out.data(), Out.size());
    gpu_check::dump(argc, argv, (Name + ".fp64").c_str(), Ref.data(), Ref.size());
    cudaFree(DIn);
    cudaFree(DW);
    cudaFree(DOut);
  }
  // NHWC with stride, dilation and padding; the last shape writes one
  // output row more than the convolution has (cuDNN cannot: the kernel
  // stays).
  struct Nhwc { int N, H, W, C, K, R, S, Stride, Pad, Dil, ExtraRow; };
  const Nhwc More[] = {{2, 19, 23, 6, 7, 3, 5, 2, 2, 1, 0},
                       {1, 16, 16, 8, 4, 3, 3, 1, 2, 2, 0},
                       {2, 9, 9, 3, 5, 3, 3, 1, 1, 1, 1}};
  for (const Nhwc &S : More) {
    int P = (S.H + 2 * S.Pad - S.Dil * (S.R - 1) - 1) / S.Stride + 1 + S.ExtraRow;
    int Q = (S.W + 2 * S.Pad - S.Dil * (S.S - 1) - 1) / S.Stride + 1;
    std::vector<float> In((size_t)S.N * S.H * S.W * S.C), Wt((size_t)S.K * S.R * S.S * S.C);
    std::vector<float> Out((size_t)S.N * P * Q * S.K, 0.0f);
    gpu_check::fill_uniform(In.data(), In.size(), Seed + 3 * Case, -1.0f, 1.0f);
    gpu_check::fill_uniform(Wt.data(), Wt.size(), Seed + 5 * Case + 2, -0.5f, 0.5f);
    float *DIn = device(In), *DW = device(Wt), *DOut = device(Out);
    int Total = S.N * P * Q * S.K;
    conv_nhwc<<<(Total + 127) / 128, 128>>>(DIn, DW, DOut, S.N, S.H, S.W, S.C, S.K, S.R, S.S, P, Q, S.Stride, S.Pad, S.Dil);
    gpu_check::check_launch("conv_nhwc");
    cudaMemcpy(Out.data(), DOut, Out.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::vector<double> Ref(Out.size(), 0.0);
    for (int n = 0; n < S.N; ++n)
      for (int p = 0; p < P; ++p)
        for (int q = 0; q < Q; ++q)
          for (int k = 0; k < S.K; ++k) {
            double Sum = 0;
            for (int r = 0; r < S.R; ++r)
              for (int s = 0; s < S.S; ++s) {
                int h = p * S.Stride - S.Pad + r * S.Dil;
                int v = q * S.Stride - S.Pad + s * S.Dil;
                if (h < 0 || h >= S.H || v < 0 || v >= S.W)
                  continue;
                for (int c = 0; c < S.C; ++c)
                  Sum += (double)In[(((size_t)n * S.H + h) * S.W + v) * S.C + c] *
                         Wt[((k * S.R + r) * S.S + s) * S.C + c];
              }
            Ref[(((size_t)n * P + p) * Q + q) * S.K + k] = Sum;
          }
    std::string Name = "nhwc" + std::to_string(Case++);
    gpu_check::dump(argc, argv, Name.c_str(), Out.data(), Out.size());
    gpu_check::dump(argc, argv, (Name + ".fp64").c_str(), Ref.data(), Ref.size());
    cudaFree(DIn);
    cudaFree(DW);
    cudaFree(DOut);
  }
  {
    // conv_bias: 2 x 6 x 13 x 21 -> 9 channels, with a bias.
    const int N = 2, C = 6, H = 13, W = 21, K = 9;
    std::vector<float> In((size_t)N * C * H * W), Wt((size_t)K * C * 9), B(K);
    std::vector<float> Out((size_t)N * K * H * W, 0.0f);
    gpu_check::fill_uniform(In.data(), In.size(), Seed + 101, -1.0f, 1.0f);
    gpu_check::fill_uniform(Wt.data(), Wt.size(), Seed + 102, -0.5f, 0.5f);
    gpu_check::fill_uniform(B.data(), B.size(), Seed + 103, -2.0f, 2.0f);
    float *DIn = device(In), *DW = device(Wt), *DB = device(B), *DOut = device(Out);
    conv_bias<<<dim3((W + 7) / 8, (H + 7) / 8, N * K), dim3(8, 8)>>>(DIn, DW, DB, DOut, N, C, H, W, K);
    gpu_check::check_launch("conv_bias");
    cudaMemcpy(Out.data(), DOut, Out.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::vector<double> Ref(Out.size());
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k)
        for (int p = 0; p < H; ++p)
          for (int q = 0; q < W; ++q) {
            double Sum = 0;
            for (int c = 0; c < C; ++c)
              for (int r = 0; r < 3; ++r)
                for (int s = 0; s < 3; ++s) {
                  int y = p + r - 1, x = q + s - 1;
                  if (y >= 0 && y < H && x >= 0 && x < W)
                    Sum += (double)In[(((size_t)n * C + c) * H + y) * W + x] *
                           Wt[((k * C + c) * 3 + r) * 3 + s];
                }
            Ref[(((size_t)n * K + k) * H + p) * W + q] = Sum + B[k];
          }
    gpu_check::dump(argc, argv, "bias", Out.data(), Out.size());
    gpu_check::dump(argc, argv, "bias.fp64", Ref.data(), Ref.size());
    cudaFree(DIn);
    cudaFree(DW);
    cudaFree(DB);
    cudaFree(DOut);
  }
  {
    // conv_valid, stride 1 and 2 (P, Q as cuDNN derives them for padding 0;
    // with stride 2 and an even H - 5 the last input row is not read).
    struct Valid { int N, C, H, W, K, Stride; };
    const Valid Shapes[] = {{2, 4, 19, 23, 6, 1}, {3, 5, 20, 17, 4, 2}};
    for (const Valid &S : Shapes) {
      const int P = (S.H - 5) / S.Stride + 1, Q = (S.W - 5) / S.Stride + 1;
      std::vector<float> In((size_t)S.N * S.C * S.H * S.W),
          Wt((size_t)S.K * S.C * 25), Out((size_t)S.N * S.K * P * Q, 0.0f);
      gpu_check::fill_uniform(In.data(), In.size(), Seed + 201, -1.0f, 1.0f);
      gpu_check::fill_uniform(Wt.data(), Wt.size(), Seed + 202, -0.5f, 0.5f);
      float *DIn = device(In), *DW = device(Wt), *DOut = device(Out);
      conv_valid<<<dim3((Q + 7) / 8, (P + 7) / 8, S.N * S.K), dim3(8, 8)>>>(
          DIn, DW, DOut, S.N, S.C, S.H, S.W, S.K, P, Q, S.Stride);
      gpu_check::check_launch("conv_valid");
      cudaMemcpy(Out.data(), DOut, Out.size() * sizeof(float),
                 cudaMemcpyDeviceToHost);
      std::vector<double> Ref(Out.size());
      for (int n = 0; n < S.N; ++n)
        for (int k = 0; k < S.K; ++k)
          for (int p = 0; p < P; ++p)
            for (int q = 0; q < Q; ++q) {
              double Sum = 0;
              for (int c = 0; c < S.C; ++c)
                for (int r = 0; r < 5; ++r)
                  for (int s = 0; s < 5; ++s)
                    Sum += (double)In[(((size_t)n * S.C + c) * S.H +
                                       p * S.Stride + r) * S.W +
                                      q * S.Stride + s] *
                           Wt[((k * S.C + c) * 5 + r) * 5 + s];
              Ref[(((size_t)n * S.K + k) * P + p) * Q + q] = Sum;
            }
      std::string Name = "valid_s" + std::to_string(S.Stride);
      gpu_check::dump(argc, argv, Name.c_str(), Out.data(), Out.size());
      gpu_check::dump(argc, argv, (Name + ".fp64").c_str(), Ref.data(),
                      Ref.size());
      cudaFree(DIn);
      cudaFree(DW);
      cudaFree(DOut);
    }
  }
  return 0;
}
