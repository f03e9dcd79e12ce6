// RUN: cuda-opt --passes=conv-cudnn --kernel=conv_nchw %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes=conv-cudnn --kernel=conv_nhwc_flat %s | FileCheck %s --check-prefix=NHWC
// RUN: cuda-opt --passes='conv-cudnn{algo=6}' --kernel=conv_nchw %s | FileCheck %s --check-prefix=ALGO
// RUN: cuda-opt --passes=conv-cudnn --kernel=conv_flat_continue %s | FileCheck %s --check-prefix=CONT
// RUN: cuda-opt --passes=conv-cudnn --kernel=conv_bias %s | FileCheck %s --check-prefix=BIAS
// RUN: not cuda-opt --fp-model=strict --passes=conv-cudnn --kernel=conv_nchw %s 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: cuda-opt --passes=conv-cudnn --kernel=conv_valid %s -o %t.valid.cu
// RUN: FileCheck %s --check-prefix=VALID < %t.valid.cu
// RUN: %cuda_compile %t.valid.cu

// conv-cudnn: a direct fp32 convolution kernel's launch becomes a cuDNN call
// guarded by the launch's coverage of the output; the launch stays as the
// fallback. cuDNN sums in its own order, so --fp-model=strict refuses it.

// CHECK: #include <cudnn.h>
// CHECK: struct cudaoptConv2dProblem {
// CHECK: static cudaError_t cudaoptConv2dLaunch(cudaStream_t Stream,
// CHECK: CUDNN_FMA_MATH
// CHECK-LABEL: void layer(
// CHECK:      if (!(static_cast<long long>(dim3(grid).z) >= static_cast<long long>(K) * N &&
// CHECK-NEXT:       static_cast<long long>(dim3(grid).y) * dim3(block).y >= H &&
// CHECK-NEXT:       static_cast<long long>(dim3(grid).x) * dim3(block).x >= W) ||
// CHECK-NEXT:     cudaoptConv2dLaunch(0, in, w, nullptr, out, N, C, H, W, K, 3, 3, H, W, pad, pad, 1, 1, 1, 1,
// CHECK-NEXT:                         0, -1) != cudaSuccess)
// CHECK-NEXT:   conv_nchw<<<grid, block>>>(in, w, out, N, C, H, W, K, pad);

// ALGO: {{^}} cudaoptConv2dLaunch(0, in, w, nullptr, out, N, C, H, W, K, 3, 3, H, W, pad, pad, 1, 1, 1, 1,
// ALGO-NEXT: {{^}} 0, 6) != cudaSuccess)

// NHWC:      if (!(static_cast<long long>(dim3(blocks).x) * dim3(256).x >=
// NHWC-NEXT:       static_cast<long long>(N) * P * Q * K) ||
// NHWC-NEXT:     cudaoptConv2dLaunch(stream, x, f, nullptr, y, N, C, H, W, K, R, S, P, Q, pad, pad, stride,
// NHWC-NEXT:                         stride, dil, dil, 1, -1) != cudaSuccess)
// NHWC-NEXT:   conv_nhwc_flat<<<blocks, 256, 0, stream>>>(

// CONT:      if (!(static_cast<long long>(dim3(blocks).x) * dim3(threads).x >=
// CONT-NEXT:       static_cast<long long>(OW) * OH * K * N) ||
// CONT-NEXT:     cudaoptConv2dLaunch(0, src, filt, nullptr, dst, N, C, H, W, K, R, S, OH, OW, ph, pw, sh, sw,
// CONT-NEXT:                         1, 1, 0, -1) != cudaSuccess)

// BIAS: {{^}} cudaoptConv2dLaunch(0, in, w, bias, out, N, C, H, W, K, 3, 3, H, W, 1, 1, 1, 1, 1, 1, 0,
// BIAS-NEXT: {{^}} -1) != cudaSuccess)

// STRICT: conv-cudnn

// A "valid" convolution without a padding guard: padding 0, the input's
// extents H and W from its index's strides.
// VALID:      cudaoptConv2dLaunch(0, in, w, nullptr, out, N, C, H, W, K, 5, 5, P, Q, 0, 0, stride, stride,
// VALID-NEXT:                     1, 1, 0, -1) != cudaSuccess)
// VALID-NEXT:   conv_valid<<<dim3((Q + 15) / 16, (P + 15) / 16, N * K), dim3(16, 16)>>>(in, w, out, N, C, H, W,

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

void layer(const float *in, const float *w, float *out, int N, int C, int H,
           int W, int K, int pad) {
  dim3 block(32, 8);
  dim3 grid((W + 31) / 32, (H + 7) / 8, N * K);
  conv_nchw<<<grid, block>>>(in, w, out, N, C, H, W, K, pad);
}

// NHWC input, KRSC weights, NPQK output; one flat index, stride and
// dilation parameters, the channel loop innermost, guards split per axis.
__global__ void conv_nhwc_flat(const float *x, const float *f, float *y,
                               int N, int H, int W, int C, int K, int R, int S,
                               int P, int Q, int stride, int pad, int dil) {
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

void layer_nhwc(const float *x, const float *f, float *y, int N, int H, int W,
                int C, int K, int R, int S, int P, int Q, int stride, int pad,
                int dil, cudaStream_t stream) {
  int blocks = (N * P * Q * K + 255) / 256;
  conv_nhwc_flat<<<blocks, 256, 0, stream>>>(x, f, y, N, H, W, C, K, R, S, P, Q, stride, pad, dil);
}

// NCHW over a flat index decoded with products of extents, the total in a
// local, the padding guards as `continue`s.
__global__ void conv_flat_continue(const float *src, const float *filt,
                                   float *dst, int N, int C, int H, int W,
                                   int K, int R, int S, int sh, int sw,
                                   int ph, int pw, int OH, int OW) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  int count = N * K * OH * OW;
  if (id >= count)
    return;
  int ox = id % OW;
  int oy = (id / OW) % OH;
  int oc = (id / (OW * OH)) % K;
  int img = id / (OW * OH * K);
  int iy0 = oy * sh - ph, ix0 = ox * sw - pw;
  float sum = 0.0f;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r) {
      int iy = iy0 + r;
      if (iy < 0 || iy >= H)
        continue;
      for (int s = 0; s < S; ++s) {
        int ix = ix0 + s;
        if (ix < 0 || ix >= W)
          continue;
        int a = ((img * C + c) * H + iy) * W + ix;
        int b = ((oc * C + c) * R + r) * S + s;
        sum += src[a] * filt[b];
      }
    }
  int o = ((img * K + oc) * OH + oy) * OW + ox;
  dst[o] = sum;
}

void layer_continue(const float *src, const float *filt, float *dst, int N,
                    int C, int H, int W, int K, int R, int S, int sh, int sw,
                    int ph, int pw) {
  int OH = (H + 2 * ph - R) / sh + 1, OW = (W + 2 * pw - S) / sw + 1;
  int threads = 256, blocks = (N * K * OH * OW + threads - 1) / threads;
  conv_flat_continue<<<blocks, threads>>>(src, filt, dst, N, C, H, W, K, R, S,
                                          sh, sw, ph, pw, OH, OW);
}

// A bias per output channel added after the sum.
__global__ void conv_bias(const float *in, const float *w, const float *bias,
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
    out[((n * K + k) * H + p) * W + q] = acc + bias[k];
  }
}

void layer_bias(const float *in, const float *w, const float *bias, float *out,
                int N, int C, int H, int W, int K) {
  conv_bias<<<dim3((W + 15) / 16, (H + 15) / 16, N * K), dim3(16, 16)>>>(
      in, w, bias, out, N, C, H, W, K);
}

// Every tap read, no padding guard; the output is P x Q (the launcher's
// P = (H - 5) / stride + 1; cuDNN checks it at run time).
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

void layer_valid(const float *in, const float *w, float *out, int N, int C,
                 int H, int W, int K, int stride) {
  int P = (H - 5) / stride + 1, Q = (W - 5) / stride + 1;
  conv_valid<<<dim3((Q + 15) / 16, (P + 15) / 16, N * K), dim3(16, 16)>>>(
      in, w, out, N, C, H, W, K, P, Q, stride);
}
