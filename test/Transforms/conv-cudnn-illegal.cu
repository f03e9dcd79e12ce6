// RUN: not cuda-opt --passes=conv-cudnn --kernel=with_bias %s 2>&1 | FileCheck %s --check-prefix=BIAS
// RUN: not cuda-opt --passes=conv-cudnn --kernel=partial_rows %s 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: not cuda-opt --passes=conv-cudnn --kernel=flipped %s 2>&1 | FileCheck %s --check-prefix=FLIP
// RUN: not cuda-opt --passes=conv-cudnn --kernel=no_padding_guard %s 2>&1 | FileCheck %s --check-prefix=NOPAD
// RUN: not cuda-opt --passes=conv-cudnn --kernel=narrow_pad %s 2>&1 | FileCheck %s --check-prefix=NARROW
// RUN: not cuda-opt --passes=conv-cudnn --kernel=no_k_bound %s 2>&1 | FileCheck %s --check-prefix=KBOUND
// RUN: not cuda-opt --passes=conv-cudnn --kernel=with_relu %s 2>&1 | FileCheck %s --check-prefix=RELU
// RUN: not cuda-opt --passes=conv-cudnn --kernel=double_acc %s 2>&1 | FileCheck %s --check-prefix=F64
// RUN: not cuda-opt --passes=conv-cudnn --kernel=wrong_out %s 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: not cuda-opt --passes=conv-cudnn --kernel=side_effect %s 2>&1 | FileCheck %s --check-prefix=SIDE
// RUN: not cuda-opt --passes=conv-cudnn --kernel=unguarded_offset %s 2>&1 | FileCheck %s --check-prefix=OFFSET
// RUN: not cuda-opt --passes=conv-cudnn --kernel=unguarded_nhwc %s 2>&1 | FileCheck %s --check-prefix=UNHWC

// Kernels that look like convolutions but are not exactly what cuDNN
// computes, and a launch the rewrite cannot repeat.

#define BODY(IN, WT)                                                           \
  for (int c = 0; c < C; ++c)                                                  \
    for (int r = 0; r < 3; ++r)                                                \
      for (int s = 0; s < 3; ++s) {                                            \
        int y = p - 1 + r, x = q - 1 + s;                                      \
        if (y >= 0 && y < H && x >= 0 && x < W)                                \
          acc += IN * WT;                                                      \
      }

#define COORDS                                                                 \
  int q = blockIdx.x * blockDim.x + threadIdx.x;                               \
  int p = blockIdx.y * blockDim.y + threadIdx.y;                               \
  int n = blockIdx.z / K, k = blockIdx.z % K;

#define IN_NCHW in[((n * C + c) * H + y) * W + x]
#define W_KCRS w[((k * C + c) * 3 + r) * 3 + s]
#define OUT_NKPQ out[((n * K + k) * H + p) * W + q]

// BIAS: kernel 'with_bias' adds 'b[n]', not the bias of the output channel k = (blockIdx.z % K)
__global__ void with_bias(const float *in, const float *w, const float *b,
                          float *out, int C, int H, int W, int K, int N) {
  COORDS
  if (q >= W || p >= H || n >= N) return;
  float acc = 0.0f;
  BODY(IN_NCHW, W_KCRS)
  OUT_NKPQ = acc + b[n];
}

// PARTIAL: kernel 'partial_rows' stores 'OUT_NKPQ', not out[{{.*}}]: the output's layout does not match the NCHW input's
__global__ void partial_rows(const float *in, const float *w, float *out,
                             int C, int H, int W, int K, int N) {
  COORDS
  if (q < W && p < H - 1 && n < N) {
    float acc = 0.0f;
    BODY(IN_NCHW, W_KCRS)
    OUT_NKPQ = acc;
  }
}

// FLIP: kernel 'flipped' reads no factor as weights
__global__ void flipped(const float *in, const float *w, float *out, int C,
                        int H, int W, int K, int N) {
  COORDS
  if (q >= W || p >= H || n >= N) return;
  float acc = 0.0f;
  BODY(IN_NCHW, w[((k * C + c) * 3 + (2 - r)) * 3 + (2 - s)])
  OUT_NKPQ = acc;
}

// A valid convolution stored into an H x W plane: cuDNN writes a dense
// (H - 2) x (W - 2) one.
// NOPAD: kernel 'no_padding_guard' stores 'out[((n * K + k) * H + p) * W + q]', not out[
__global__ void no_padding_guard(const float *in, const float *w, float *out,
                                 int C, int H, int W, int K, int N) {
  COORDS
  if (q >= W - 2 || p >= H - 2 || n >= N) return;
  float acc = 0.0f;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s)
        acc += in[((n * C + c) * H + p + r) * W + q + s] * W_KCRS;
  out[((n * K + k) * H + p) * W + q] = acc;
}

// NARROW: kernel 'narrow_pad' reads the input as 'IN_NCHW', not in[((n*C + c)*H + y)*W + x] (NCHW)
__global__ void narrow_pad(const float *in, const float *w, float *out, int C,
                           int H, int W, int K, int N) {
  COORDS
  if (q >= W || p >= H || n >= N) return;
  float acc = 0.0f;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) {
        int y = p - 1 + r, x = q - 1 + s;
        if (y >= 1 && y < H && x >= 0 && x < W)
          acc += IN_NCHW * W_KCRS;
      }
  OUT_NKPQ = acc;
}

// KBOUND: kernel 'no_k_bound'{{.*}}output coordinate n has no upper bound
__global__ void no_k_bound(const float *in, const float *w, float *out, int C,
                           int H, int W, int K) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  int p = blockIdx.y * blockDim.y + threadIdx.y;
  int n = blockIdx.z / K, k = blockIdx.z % K;
  if (q >= W || p >= H) return;
  float acc = 0.0f;
  BODY(IN_NCHW, W_KCRS)
  OUT_NKPQ = acc;
}

// RELU: kernel 'with_relu' does not store the accumulator, or the accumulator plus a bias load, at {{.*}} (an activation or a scale has no cuDNN forward-convolution equivalent here)
__global__ void with_relu(const float *in, const float *w, float *out, int C,
                          int H, int W, int K, int N) {
  COORDS
  if (q >= W || p >= H || n >= N) return;
  float acc = 0.0f;
  BODY(IN_NCHW, W_KCRS)
  OUT_NKPQ = fmaxf(acc, 0.0f);
}

// F64: kernel 'double_acc' accumulates in 'double'
__global__ void double_acc(const float *in, const float *w, float *out, int C,
                           int H, int W, int K, int N) {
  COORDS
  if (q >= W || p >= H || n >= N) return;
  double acc = 0.0;
  BODY(IN_NCHW, W_KCRS)
  OUT_NKPQ = acc;
}

// OUT: kernel 'wrong_out' stores 'out[((n * K + k) * W + q) * H + p]', not out[
__global__ void wrong_out(const float *in, const float *w, float *out, int C,
                          int H, int W, int K, int N) {
  COORDS
  if (q >= W || p >= H || n >= N) return;
  float acc = 0.0f;
  BODY(IN_NCHW, W_KCRS)
  out[((n * K + k) * W + q) * H + p] = acc;
}

// SIDE: argument 'C + off++' of the launch{{.*}}has side effects
__global__ void side_effect(const float *in, const float *w, float *out,
                            int C, int H, int W, int K, int N) {
  COORDS
  if (q >= W || p >= H || n >= N) return;
  float acc = 0.0f;
  BODY(IN_NCHW, W_KCRS)
  OUT_NKPQ = acc;
}

void launch_all(const float *in, const float *w, const float *b, float *out,
                int C, int H, int W, int K, int N, int off) {
  dim3 block(32, 8), grid(4, 16, 4 * 64);
  with_bias<<<grid, block>>>(in, w, b, out, C, H, W, K, N);
  partial_rows<<<grid, block>>>(in, w, out, C, H, W, K, N);
  flipped<<<grid, block>>>(in, w, out, C, H, W, K, N);
  no_padding_guard<<<grid, block>>>(in, w, out, C, H, W, K, N);
  narrow_pad<<<grid, block>>>(in, w, out, C, H, W, K, N);
  no_k_bound<<<grid, block>>>(in, w, out, C, H, W, K);
  with_relu<<<grid, block>>>(in, w, out, C, H, W, K, N);
  double_acc<<<grid, block>>>(in, w, out, C, H, W, K, N);
  wrong_out<<<grid, block>>>(in, w, out, C, H, W, K, N);
  side_effect<<<grid, block>>>(in, w, out, C + off++, H, W, K, N);
}

// No padding guard but taps one before the output's cell: row -1 would be
// read, where a zero-padded convolution reads 0.
// OFFSET: kernel 'unguarded_offset' reads its input at `{{.*}}` without a padding guard: an offset tap (padding 1, 1) would read outside the input
__global__ void unguarded_offset(const float *in, const float *w, float *out,
                                 int C, int H, int W, int K, int N) {
  COORDS
  if (q >= W - 2 || p >= H - 2 || n >= N) return;
  float acc = 0.0f;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s)
        acc += in[((n * C + c) * H + p - 1 + r) * W + q - 1 + s] * W_KCRS;
  out[((n * K + k) * (H - 2) + p) * (W - 2) + q] = acc;
}

// UNHWC: kernel 'unguarded_nhwc' reads its input without a padding guard; without one conv-cudnn needs a "valid" NCHW convolution
__global__ void unguarded_nhwc(const float *in, const float *w, float *out,
                               int C, int H, int W, int K, int N) {
  COORDS
  if (q >= W - 2 || p >= H - 2 || n >= N) return;
  float acc = 0.0f;
  for (int r = 0; r < 3; ++r)
    for (int s = 0; s < 3; ++s)
      for (int c = 0; c < C; ++c)
        acc += in[((n * H + p + r) * W + q + s) * C + c] *
               w[((k * 3 + r) * 3 + s) * C + c];
  out[((n * (H - 2) + p) * (W - 2) + q) * K + k] = acc;
}
