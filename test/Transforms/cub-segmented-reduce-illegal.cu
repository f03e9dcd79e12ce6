// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=s_PRODUCT %s 2>&1 | FileCheck %s --check-prefix=PRODUCT
// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=s_SQUARES %s 2>&1 | FileCheck %s --check-prefix=SQUARES
// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=s_MEAN %s 2>&1 | FileCheck %s --check-prefix=MEAN
// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=s_FIRST %s 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=s_COMPARE %s 2>&1 | FileCheck %s --check-prefix=COMPARE
// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=s_ALIAS %s 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=s_WIDER %s 2>&1 | FileCheck %s --check-prefix=WIDER
// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=s_SHIFTED %s 2>&1 | FileCheck %s --check-prefix=SHIFTED
// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=s_STRIDE %s 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=s_GRID %s 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=s_TWO %s 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not cuda-opt --fp-model=strict --passes=cub-segmented-reduce --kernel=s_DOUBLE %s 2>&1 | FileCheck %s --check-prefix=DOUBLE-STRICT
// RUN: not cuda-opt --fp-model=strict --passes=cub-segmented-reduce --kernel=s_FMAX %s 2>&1 | FileCheck %s --check-prefix=FMAX-STRICT
// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=s_STREAM %s 2>&1 | FileCheck %s --check-prefix=STREAM

// cub-segmented-reduce's refusals: each kernel below differs from a
// segmented reduction CUB computes the same way in one respect.

#include <cuda_runtime.h>

// A product: not routed (sum, max and min are).
// PRODUCT: kernel 's_PRODUCT': the loop at {{.*}} computes a product; CUB's segmented reductions routed here are sum, max and min
__global__ void s_PRODUCT(const int *__restrict__ in,
                          const int *__restrict__ off, int *__restrict__ out,
                          int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    int p = 1;
    for (int j = off[s]; j < off[s + 1]; ++j)
      p *= in[j];
    out[s] = p;
  }
}
void run_PRODUCT(const int *i, const int *o, int *r, int n) {
  s_PRODUCT<<<(n + 255) / 256, 256>>>(i, o, r, n);
}

// A sum of squares: the term is not the element.
// SQUARES: kernel 's_SQUARES': the update 'acc += in[j] * in[j]' at {{.*}} is not 'acc += in[j]' of an element of the accumulator's type
__global__ void s_SQUARES(const int *__restrict__ in,
                          const int *__restrict__ off, int *__restrict__ out,
                          int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    int acc = 0;
    for (int j = off[s]; j < off[s + 1]; ++j)
      acc += in[j] * in[j];
    out[s] = acc;
  }
}
void run_SQUARES(const int *i, const int *o, int *r, int n) {
  s_SQUARES<<<(n + 255) / 256, 256>>>(i, o, r, n);
}

// A mean: the store is not the accumulator.
// MEAN: kernel 's_MEAN': the store 'out[s] = acc / len' at {{.*}} is not 'out[s] = acc' of the accumulator's type
__global__ void s_MEAN(const int *__restrict__ in, int *__restrict__ out,
                       int n, int len) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    int acc = 0;
    for (int j = 0; j < len; ++j)
      acc += in[s * len + j];
    out[s] = acc / len;
  }
}
void run_MEAN(const int *i, int *r, int n, int l) {
  s_MEAN<<<(n + 255) / 256, 256>>>(i, r, n, l);
}

// The accumulator starts at the segment's first element: no one initial
// value for CUB (and empty segments would read past theirs).
// FIRST: kernel 's_FIRST': the accumulator 'm' starts at 'in[off[s]]', not a constant
__global__ void s_FIRST(const int *__restrict__ in,
                        const int *__restrict__ off, int *__restrict__ out,
                        int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    int m = in[off[s]];
    for (int j = off[s] + 1; j < off[s + 1]; ++j)
      m = max(m, in[j]);
    out[s] = m;
  }
}
void run_FIRST(const int *i, const int *o, int *r, int n) {
  s_FIRST<<<(n + 255) / 256, 256>>>(i, o, r, n);
}

// A float maximum written as a comparison: with NaNs its result depends on
// the order.
// COMPARE: kernel 's_COMPARE': the update 'm = in[j] > m ? in[j] : m' at {{.*}} is not 'm = fmaxf(m, in[j])'
__global__ void s_COMPARE(const float *__restrict__ in,
                          const int *__restrict__ off,
                          float *__restrict__ out, int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    float m = -INFINITY;
    for (int j = off[s]; j < off[s + 1]; ++j)
      m = in[j] > m ? in[j] : m;
    out[s] = m;
  }
}
void run_COMPARE(const float *i, const int *o, float *r, int n) {
  s_COMPARE<<<(n + 255) / 256, 256>>>(i, o, r, n);
}

// Nothing keeps the output apart from the input: CUB needs it apart.
// ALIAS: kernel 's_ALIAS': 'out' and 'in' may overlap ({{.*}}); CUB needs the output apart
__global__ void s_ALIAS(const int *in, const int *__restrict__ off, int *out,
                        int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    int acc = 0;
    for (int j = off[s]; j < off[s + 1]; ++j)
      acc += in[j];
    out[s] = acc;
  }
}
void run_ALIAS(const int *i, const int *o, int *r, int n) {
  s_ALIAS<<<(n + 255) / 256, 256>>>(i, o, r, n);
}

// Ints summed in a long long: CUB would add in the input's type.
// WIDER: kernel 's_WIDER': the update 'acc += in[j]' at {{.*}} is not 'acc += in[j]' of an element of the accumulator's type
__global__ void s_WIDER(const int *__restrict__ in,
                        const int *__restrict__ off,
                        long long *__restrict__ out, int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    long long acc = 0;
    for (int j = off[s]; j < off[s + 1]; ++j)
      acc += in[j];
    out[s] = acc;
  }
}
void run_WIDER(const int *i, const int *o, long long *r, int n) {
  s_WIDER<<<(n + 255) / 256, 256>>>(i, o, r, n);
}

// Segments that start one past the offset.
// SHIFTED: kernel 's_SHIFTED': the loop at {{.*}} runs from 'off[s + 1]' to 'off[s + 2]', not over begin[s] .. end[s] or offsets[s] .. offsets[s + 1]
__global__ void s_SHIFTED(const int *__restrict__ in,
                          const int *__restrict__ off, int *__restrict__ out,
                          int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    int acc = 0;
    for (int j = off[s + 1]; j < off[s + 2]; ++j)
      acc += in[j];
    out[s] = acc;
  }
}
void run_SHIFTED(const int *i, const int *o, int *r, int n) {
  s_SHIFTED<<<(n + 255) / 256, 256>>>(i, o, r, n);
}

// Column sums (a row of stride len is not a segment).
// STRIDE: kernel 's_STRIDE': the loop at {{.*}} reads 'in[j * len + s]', not the row's element 'in[s * len + j]' for the loop's length
__global__ void s_STRIDE(const int *__restrict__ in, int *__restrict__ out,
                         int n, int len) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    int acc = 0;
    for (int j = 0; j < len; ++j)
      acc += in[j * len + s];
    out[s] = acc;
  }
}
void run_STRIDE(const int *i, int *r, int n, int l) {
  s_STRIDE<<<(n + 255) / 256, 256>>>(i, r, n, l);
}

// A grid that misses segments: the original leaves them unwritten.
// GRID: kernel 's_GRID': the grid of the launch at {{.*}} is 'n / 256', not a ceil-div
__global__ void s_GRID(const int *__restrict__ in, const int *__restrict__ off,
                       int *__restrict__ out, int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    int acc = 0;
    for (int j = off[s]; j < off[s + 1]; ++j)
      acc += in[j];
    out[s] = acc;
  }
}
void run_GRID(const int *i, const int *o, int *r, int n) {
  s_GRID<<<n / 256, 256>>>(i, o, r, n);
}

// Two reductions of the segment.
// TWO: kernel 's_TWO': kernel 's_TWO' does more than store its segment's result ('hi[s] = b' at
__global__ void s_TWO(const int *__restrict__ in, const int *__restrict__ off,
                      int *__restrict__ lo, int *__restrict__ hi, int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    int a = 2147483647, b = -2147483647 - 1;
    for (int j = off[s]; j < off[s + 1]; ++j) {
      a = min(a, in[j]);
      b = max(b, in[j]);
    }
    lo[s] = a;
    hi[s] = b;
  }
}
void run_TWO(const int *i, const int *o, int *l, int *h, int n) {
  s_TWO<<<(n + 255) / 256, 256>>>(i, o, l, h, n);
}

// A double sum is reassociated: refused under strict (routed under reassoc,
// as the float sum of the positive test).
// DOUBLE-STRICT: pass 'cub-segmented-reduce' is not legal here:
// DOUBLE-STRICT-NEXT: kernel 's_DOUBLE': the rewrite reorders floating-point reductions
__global__ void s_DOUBLE(const double *__restrict__ in,
                         const int *__restrict__ off,
                         double *__restrict__ out, int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    double acc = 0.0;
    for (int j = off[s]; j < off[s + 1]; ++j)
      acc += in[j];
    out[s] = acc;
  }
}
void run_DOUBLE(const double *i, const int *o, double *r, int n) {
  s_DOUBLE<<<(n + 255) / 256, 256>>>(i, o, r, n);
}

// fmaxf keeps the larger of two values and skips NaNs in any order, but of
// -0.0 and +0.0 it may keep either: strict refuses.
// FMAX-STRICT: kernel 's_FMAX': the rewrite reorders floating-point reductions
__global__ void s_FMAX(const float *__restrict__ in,
                       const int *__restrict__ off, float *__restrict__ out,
                       int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    float m = -INFINITY;
    for (int j = off[s]; j < off[s + 1]; ++j)
      m = fmaxf(m, in[j]);
    out[s] = m;
  }
}
void run_FMAX(const float *i, const int *o, float *r, int n) {
  s_FMAX<<<(n + 255) / 256, 256>>>(i, o, r, n);
}

// A launch on a stream: the CUB calls would run on the default stream,
// unordered with the user's other work on that stream.
// STREAM: kernel 's_STREAM': the launch at {{.*}}cub-segmented-reduce-illegal.cu:{{[0-9]+}}:3 is on a stream; the rewrite reduces on the default stream
__global__ void s_STREAM(const int *__restrict__ in,
                         const int *__restrict__ off, int *__restrict__ out,
                         int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    int acc = 0;
    for (int j = off[s]; j < off[s + 1]; ++j)
      acc += in[j];
    out[s] = acc;
  }
}
void run_STREAM(const int *i, const int *o, int *r, int n, cudaStream_t st) {
  s_STREAM<<<(n + 255) / 256, 256, 0, st>>>(i, o, r, n);
}
