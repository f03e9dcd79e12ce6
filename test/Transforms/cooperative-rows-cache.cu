// RUN: cuda-opt --passes='cooperative-rows{lanes=16,cache=8,scale-grid=1}' --kernel=softmax %s -o %t.cu
// RUN: FileCheck %s --check-prefix=SOFTMAX < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='cooperative-rows{lanes=32,cache=16}' --kernel=rmsnorm_bf16 %s -o %t.bf16.cu
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.cu
// RUN: %cuda_compile %t.bf16.cu
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8,cache=8}' --kernel=rowsum %s 2>&1 | FileCheck %s --check-prefix=ONELOOP
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8,cache=8}' --kernel=inplace %s 2>&1 | FileCheck %s --check-prefix=INPLACE
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8,cache=8}' --kernel=masked %s 2>&1 | FileCheck %s --check-prefix=MASKED
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8,cache=8}' --kernel=storebetween %s 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8,cache=8}' --kernel=earlyexit %s 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8,cache=8}' --kernel=changedbound %s 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8,scale-grid=1}' --kernel=launchedfirst %s 2>&1 | FileCheck %s --check-prefix=LAUNCHFIRST
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8,cache=65}' --kernel=softmax %s 2>&1 | FileCheck %s --check-prefix=RANGE

// cooperative-rows{cache=S}: an array several loops read at the row's
// columns is loaded once into S registers per thread; rows longer than
// lanes * S take the uncached form. scale-grid=1 multiplies each launch's
// grid by lanes. 16-bit rows (CUDA's intrinsics) are shared too.

#include <cuda_bf16.h>

// SOFTMAX-LABEL: {{^}}__global__ void softmax(
// SOFTMAX:      // cuda-opt cooperative-rows{lanes=16,cache=8,scale-grid=1}
// SOFTMAX:      if (cols <= 128) {
// SOFTMAX-NEXT:   // Rows of up to 128 columns are held in registers (cache=8).
// SOFTMAX-NEXT:   for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 16; r < rows;
// SOFTMAX-NEXT:        r += blockDim.x / 16 * gridDim.x) {
// SOFTMAX-NEXT:     float m = in[r * cols];
// SOFTMAX:          float inRow[8];
// SOFTMAX-NEXT: #pragma unroll
// SOFTMAX-NEXT:     for (int slot = 0; slot < 8; ++slot) {
// SOFTMAX-NEXT:       const int col = lane + 16 * slot;
// SOFTMAX-NEXT:       if (col >= cols)
// SOFTMAX-NEXT:         break;
// SOFTMAX-NEXT:       inRow[slot] = in[r * cols + col];
// SOFTMAX-NEXT:     }
// SOFTMAX-NEXT: #pragma unroll
// SOFTMAX-NEXT:     for (int slot = 0; slot < 8; ++slot) {
// SOFTMAX-NEXT:       const int j = lane + 16 * slot;
// SOFTMAX-NEXT:       if (j >= cols)
// SOFTMAX-NEXT:         break;
// SOFTMAX-NEXT:       if (j < 1)
// SOFTMAX-NEXT:         continue;
// SOFTMAX-NEXT:       m = fmaxf(m, inRow[slot]);
// SOFTMAX-NEXT:     }
// SOFTMAX-NEXT:     m = cudaOptRowFmax(m, rowMask, 16);
// The exponentials are computed once, into the registers of 'in' (nothing
// reads 'in' after them).
// SOFTMAX:          // cuda-opt cache: the loop below replaces each held column with
// SOFTMAX-NEXT:     // 'expf(inRow[slot] - m)', which the later loops read from there
// SOFTMAX:            sum += (inRow[slot] = expf(inRow[slot] - m));
// SOFTMAX:            out[r * cols + j] = inRow[slot] / sum;
// SOFTMAX:        } else {
// SOFTMAX-NEXT:   // Longer rows are read from memory in every loop.
// SOFTMAX-NEXT:   for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 16; r < rows;
// SOFTMAX:          float m = in[r * cols];
// SOFTMAX-NEXT:     for (int j = 1 + lane; j < cols; j += 16)
// SOFTMAX:      softmax<<<cudaOptRowGroupGrid((64 + 255) / 256, 16), 256>>>(
__global__ void softmax(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = in[r * cols];
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, in[r * cols + j]);
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      sum += expf(in[r * cols + j] - m);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = expf(in[r * cols + j] - m) / sum;
  }
}

// 16-bit rows whose every read converts to float are held as floats.
// BF16-LABEL: {{^}}__global__ void rmsnorm_bf16(
// BF16:      if (cols <= 512) {
// BF16:        float inRow[16];
// BF16:          inRow[slot] = col < cols ? __bfloat162float(in[r * cols + col]) : 0.0f;
// BF16:          float v = inRow[slot];
// BF16:          __float2bfloat16(inRow[slot] * inv * __bfloat162float(w[j]));
// BF16:      } else {
// BF16:        for (int j = lane; j < cols; j += 32) {
// BF16-NEXT:     float v = __bfloat162float(in[r * cols + j]);
__global__ void rmsnorm_bf16(__nv_bfloat16 *out, const __nv_bfloat16 *in,
                             const __nv_bfloat16 *w, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float ss = 0.0f;
    for (int j = 0; j < cols; ++j) {
      float v = __bfloat162float(in[r * cols + j]);
      ss += v * v;
    }
    float inv = rsqrtf(ss / cols + 1e-6f);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = __float2bfloat16(__bfloat162float(in[r * cols + j]) *
                                           inv * __bfloat162float(w[j]));
  }
}

// ONELOOP: kernel 'rowsum' reads no array at the same columns in two of its loops over the row, so there is nothing to hold in registers between them
__global__ void rowsum(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += in[r * cols + j];
    out[r] = s;
  }
}

// INPLACE: kernel 'inplace' has no row data that may be held in registers: not holding 'x' in registers: the loop at {{.*}}cooperative-rows-cache.cu:[[@LINE+7]]:5 writes it
__global__ void inplace(float *x, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += x[r * cols + j];
    for (int j = 0; j < cols; ++j)
      x[r * cols + j] = x[r * cols + j] / s;
  }
}

// The only loops that read 'in' read it under a condition, so loading the
// whole row could read what the kernel never reads.
// MASKED: not holding 'in' in registers: no loop from column 0 reads it in every iteration
__global__ void masked(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      if (j % 3 != 0)
        s += in[r * cols + j];
    float t = 0.0f;
    for (int j = 0; j < cols; ++j)
      t += (j % 3 != 0 ? in[r * cols + j] : 0.0f) * s;
    out[r] = t;
  }
}

// STORE: not holding 'in' in registers: a per-row store between its reads may write it
__global__ void storebetween(float *out, float *stat, const float *in,
                             int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += in[r * cols + j];
    stat[r] = s;
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = in[r * cols + j] - s;
  }
}

// EXIT: not holding 'in' in registers: the row may end (return) before the loop that reads all of it
__global__ void earlyexit(float *out, const float *in, const float *skip,
                          int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0.0f;
  for (int j = 1; j < cols; ++j)
    s += in[r * cols + j];
  if (skip[r] > 0.0f)
    return;
  float t = 0.0f;
  for (int j = 0; j < cols; ++j)
    t += in[r * cols + j] * s;
  out[r] = t;
}

// BOUND: kernel 'changedbound' reads no array at the same columns in two of its loops
__global__ void changedbound(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int n = cols;
    float s = 0.0f;
    for (int j = 0; j < n; ++j)
      s += in[r * cols + j];
    n = n / 2;
    for (int j = 0; j < n; ++j)
      out[r * cols + j] = in[r * cols + j] * s;
  }
}

// LAUNCHFIRST: scale-grid: the launch at {{.*}} comes before the kernel's definition, where the grid helper would go
__global__ void launchedfirst(float *out, const float *in, int rows, int cols);
void run_first(float *out, const float *in) {
  launchedfirst<<<1, 256>>>(out, in, 64, 64);
}
__global__ void launchedfirst(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += in[r * cols + j];
    out[r] = s;
  }
}

// RANGE: parameter 'cache' of pass 'cooperative-rows' is 65, outside its range [0, 64]

int main() {
  float *a, *b, *c;
  int *k;
  __nv_bfloat16 *h, *g, *w;
  cudaMalloc(&a, 4096 * sizeof(float));
  cudaMalloc(&b, 4096 * sizeof(float));
  cudaMalloc(&c, 64 * sizeof(float));
  cudaMalloc(&k, 4096 * sizeof(int));
  cudaMalloc(&h, 4096 * 2);
  cudaMalloc(&g, 4096 * 2);
  cudaMalloc(&w, 64 * 2);
  softmax<<<(64 + 255) / 256, 256>>>(b, a, 64, 64);
  rmsnorm_bf16<<<1, 256>>>(g, h, w, 64, 64);
  rowsum<<<1, 256>>>(c, a, 64, 64);
  inplace<<<1, 256>>>(a, 64, 64);
  masked<<<1, 256>>>(c, a, 64, 64);
  storebetween<<<1, 256>>>(b, c, a, 64, 64);
  earlyexit<<<1, 256>>>(c, a, b, 64, 64);
  changedbound<<<1, 256>>>(b, a, 64, 64);
  return 0;
}
