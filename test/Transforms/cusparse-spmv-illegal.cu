// RUN: not cuda-opt --passes=cusparse-spmv --kernel=v_ROWSUM %s 2>&1 | FileCheck %s --check-prefix=ROWSUM
// RUN: not cuda-opt --passes=cusparse-spmv --kernel=v_TWO_ARRAYS %s 2>&1 | FileCheck %s --check-prefix=TWO-ARRAYS
// RUN: not cuda-opt --passes=cusparse-spmv --kernel=v_INT %s 2>&1 | FileCheck %s --check-prefix=INT
// RUN: not cuda-opt --passes=cusparse-spmv --kernel=v_BIAS %s 2>&1 | FileCheck %s --check-prefix=BIAS
// RUN: not cuda-opt --passes=cusparse-spmv --kernel=v_UNSIGNED %s 2>&1 | FileCheck %s --check-prefix=UNSIGNED
// RUN: not cuda-opt --passes=cusparse-spmv --kernel=v_MIXED %s 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not cuda-opt --passes=cusparse-spmv --kernel=v_ALIAS %s 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: not cuda-opt --passes=cusparse-spmv --kernel=v_ELL %s 2>&1 | FileCheck %s --check-prefix=ELL
// RUN: not cuda-opt --passes=cusparse-spmv --kernel=v_SCALED %s 2>&1 | FileCheck %s --check-prefix=SCALED
// RUN: not cuda-opt --passes=cusparse-spmv --kernel=v_GRID %s 2>&1 | FileCheck %s --check-prefix=GRID

// cusparse-spmv's refusals: each kernel below differs from a CSR sparse
// matrix-vector product cuSPARSE computes the same way in one respect.

#include <cuda_runtime.h>

// A row sum: no vector gathered.
// ROWSUM: kernel 'v_ROWSUM': it is a segmented reduction, not a sparse matrix-vector product
__global__ void v_ROWSUM(float *y, const int *ptr, const float *vals, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float s = 0.0f;
    for (int j = ptr[r]; j < ptr[r + 1]; ++j)
      s += vals[j];
    y[r] = s;
  }
}

// Rows from two arrays (begin[r] .. end[r]).
// TWO-ARRAYS: kernel 'v_TWO_ARRAYS': its rows run over 'begin[r] .. end[r]' of two arrays
__global__ void v_TWO_ARRAYS(float *y, const int *begin, const int *end,
                             const int *cols, const float *vals,
                             const float *x, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float s = 0.0f;
    for (int j = begin[r]; j < end[r]; ++j)
      s += vals[j] * x[cols[j]];
    y[r] = s;
  }
}

// Integer products.
// INT: kernel 'v_INT': it sums 'int' products; cuSPARSE's SpMV is routed for float and double
__global__ void v_INT(int *y, const int *ptr, const int *cols,
                      const int *vals, const int *x, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    int s = 0;
    for (int j = ptr[r]; j < ptr[r + 1]; ++j)
      s += vals[j] * x[cols[j]];
    y[r] = s;
  }
}

// A sum that starts at a bias.
// BIAS: kernel 'v_BIAS': its sum starts at '1.0f'; cuSPARSE computes y = A x from 0
__global__ void v_BIAS(float *y, const int *ptr, const int *cols,
                       const float *vals, const float *x, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float s = 1.0f;
    for (int j = ptr[r]; j < ptr[r + 1]; ++j)
      s += vals[j] * x[cols[j]];
    y[r] = s;
  }
}

// Unsigned indices.
// UNSIGNED: kernel 'v_UNSIGNED': its row offsets are 'unsigned int' and its column indices 'unsigned int'; cuSPARSE takes one signed 32- or 64-bit index type for both
__global__ void v_UNSIGNED(float *y, const unsigned *ptr,
                           const unsigned *cols, const float *vals,
                           const float *x, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float s = 0.0f;
    for (unsigned j = ptr[r]; j < ptr[r + 1]; ++j)
      s += vals[j] * x[cols[j]];
    y[r] = s;
  }
}

// 32-bit offsets, 64-bit columns.
// MIXED: kernel 'v_MIXED': its row offsets are 'int' and its column indices 'long long'
__global__ void v_MIXED(float *y, const int *ptr, const long long *cols,
                        const float *vals, const float *x, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float s = 0.0f;
    for (int j = ptr[r]; j < ptr[r + 1]; ++j)
      s += vals[j] * x[cols[j]];
    y[r] = s;
  }
}

// y may be x (the launch below passes one buffer for both).
// ALIAS: kernel 'v_ALIAS': 'y' and '{{[a-z]+}}' may overlap ({{.*}}'a' is passed twice); cuSPARSE needs y apart
__global__ void v_ALIAS(float *y, const int *ptr, const int *cols,
                        const float *vals, const float *x, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float s = 0.0f;
    for (int j = ptr[r]; j < ptr[r + 1]; ++j)
      s += vals[j] * x[cols[j]];
    y[r] = s;
  }
}

// ELLPACK: fixed-length rows with a gathered vector.
// ELL: kernel 'v_ELL': the update 's += vals[r * k + j] * x[cols[r * k + j]]' at {{.*}} is not 's += in[j]' of an element of the accumulator's type, or 's += vals[j] * x[cols[j]]'
__global__ void v_ELL(float *y, const int *cols, const float *vals,
                      const float *x, int n, int k) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float s = 0.0f;
    for (int j = 0; j < k; ++j)
      s += vals[r * k + j] * x[cols[r * k + j]];
    y[r] = s;
  }
}

// Each product scaled: not a plain y = A x.
// SCALED: kernel 'v_SCALED': the update 's += 2.0f * vals[j] * x[cols[j]]' at {{.*}} is not 's += in[j]'
__global__ void v_SCALED(float *y, const int *ptr, const int *cols,
                         const float *vals, const float *x, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float s = 0.0f;
    for (int j = ptr[r]; j < ptr[r + 1]; ++j)
      s += 2.0f * vals[j] * x[cols[j]];
    y[r] = s;
  }
}

// A grid that misses rows.
// GRID: kernel 'v_GRID': {{.*}}
__global__ void v_GRID(float *y, const int *ptr, const int *cols,
                       const float *vals, const float *x, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float s = 0.0f;
    for (int j = ptr[r]; j < ptr[r + 1]; ++j)
      s += vals[j] * x[cols[j]];
    y[r] = s;
  }
}

void run(int n, int k) {
  float *a, *b, *vals;
  int *ptr, *cols, *iy, *ivals, *ix;
  unsigned *uptr, *ucols;
  long long *lcols;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&vals, n * k * sizeof(float));
  cudaMalloc(&ptr, (n + 1) * sizeof(int));
  cudaMalloc(&cols, n * k * sizeof(int));
  cudaMalloc(&iy, n * sizeof(int));
  cudaMalloc(&ivals, n * k * sizeof(int));
  cudaMalloc(&ix, n * sizeof(int));
  cudaMalloc(&uptr, (n + 1) * sizeof(unsigned));
  cudaMalloc(&ucols, n * k * sizeof(unsigned));
  cudaMalloc(&lcols, n * k * sizeof(long long));
  v_ROWSUM<<<(n + 255) / 256, 256>>>(a, ptr, vals, n);
  v_TWO_ARRAYS<<<(n + 255) / 256, 256>>>(a, ptr, ptr + 1, cols, vals, b, n);
  v_INT<<<(n + 255) / 256, 256>>>(iy, ptr, cols, ivals, ix, n);
  v_BIAS<<<(n + 255) / 256, 256>>>(a, ptr, cols, vals, b, n);
  v_UNSIGNED<<<(n + 255) / 256, 256>>>(a, uptr, ucols, vals, b, n);
  v_MIXED<<<(n + 255) / 256, 256>>>(a, ptr, lcols, vals, b, n);
  v_ALIAS<<<(n + 255) / 256, 256>>>(a, ptr, cols, vals, a, n);
  v_ELL<<<(n + 255) / 256, 256>>>(a, cols, vals, b, n, k);
  v_SCALED<<<(n + 255) / 256, 256>>>(a, ptr, cols, vals, b, n);
  v_GRID<<<n / 256, 256>>>(a, ptr, cols, vals, b, n);
}
