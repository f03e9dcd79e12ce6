// RUN: cuda-opt --passes=cusparse-spmv --kernel=spmv_csr %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='cusparse-spmv{alg=2}' --kernel=spmv_csr %s | FileCheck %s --check-prefix=ALG2
// RUN: cuda-opt --passes=cusparse-spmv --kernel=spmv_swapped_long %s | FileCheck %s --check-prefix=LONG
// RUN: cuda-opt --passes=cusparse-spmv --kernel=spmv_double_return %s | FileCheck %s --check-prefix=DOUBLE
// RUN: cuda-opt --passes=cusparse-spmv --kernel=spmv_stream %s | FileCheck %s --check-prefix=STREAM
// RUN: not cuda-opt --fp-model=strict --passes=cusparse-spmv --kernel=spmv_csr %s 2>&1 | FileCheck %s --check-prefix=STRICT
// Every kernel at once; nvcc compiles and links cuSPARSE's host side too.
// RUN: cuda-opt --passes=cusparse-spmv %s -o %t.all.cu
// RUN: grep -c '^ *if (cudaoptCsrSpmv<' %t.all.cu | FileCheck %s --check-prefix=ALL
// ALL: 5
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -std=c++17 %t.all.cu -o %t.all.exe -lcusparse %}
// The output's header names the library to link.
// RUN: FileCheck %s --check-prefix=LINK < %t.all.cu
// LINK: // cuda-opt: link with -lcusparse (cusparse-spmv calls the library).
// The product is no segmented reduction for CUB, and no region.
// RUN: not cuda-opt --passes=cub-segmented-reduce --kernel=spmv_csr %s 2>&1 | FileCheck %s --check-prefix=CUB
// RUN: cuda-opt --list-regions %s | FileCheck %s --check-prefix=REGIONS

// cusparse-spmv: a kernel that gives each thread one row of a CSR matrix
// and sums vals[j] * x[cols[j]] over the row into y[row] is launched as
// cuSPARSE's SpMV; the launch stays as the fallback.

#include <cuda_runtime.h>
#include <cstdio>

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("error: %s\n", cudaGetErrorString(e_));                      \
      return 1;                                                                \
    }                                                                          \
  } while (0)

// CHECK: #include <cusparse.h>
// CHECK: static cudaError_t cudaoptCsrSpmv(cudaStream_t Stream, long long Rows,
// CHECK-LABEL: __global__ void spmv_csr(
__global__ void spmv_csr(float *y, const int *row_ptr, const int *col_idx,
                         const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
      sum += vals[j] * x[col_idx[j]];
    y[row] = sum;
  }
}

// x[cols[j]] first, 64-bit indices, bounds read into locals first.
__global__ void spmv_swapped_long(double *out, const long long *ptr,
                                  const long long *cols, const double *a,
                                  const double *v, long long n) {
  long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r < n) {
    long long begin = ptr[r], end = ptr[r + 1];
    double acc = 0.0;
    for (long long j = begin; j < end; ++j)
      acc = acc + v[cols[j]] * a[j];
    out[r] = acc;
  }
}

// An early return, doubles with a float-free loop.
__global__ void spmv_double_return(double *y, const int *rp, const int *ci,
                                   const double *val, const double *x,
                                   int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m)
    return;
  double s = 0;
  for (int k = rp[i]; k < rp[i + 1]; k++)
    s += val[k] * x[ci[k]];
  y[i] = s;
}

// Launched on a stream: cuSPARSE runs on it, the fallback too.
__global__ void spmv_stream(float *y, const int *row_ptr, const int *col_idx,
                            const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
      sum += vals[j] * x[col_idx[j]];
    y[row] = sum;
  }
}

// Launched inside an if with an else: the rewrite keeps the else's owner.
__global__ void spmv_else(float *y, const int *row_ptr, const int *col_idx,
                          const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
      sum += vals[j] * x[col_idx[j]];
    y[row] = sum;
  }
}

int main() {
  const int rows = 1000;
  int *ptr, *col;
  float *val, *x, *y;
  CK(cudaMalloc(&ptr, (rows + 1) * sizeof(int)));
  CK(cudaMalloc(&col, 4000 * sizeof(int)));
  CK(cudaMalloc(&val, 4000 * sizeof(float)));
  CK(cudaMalloc(&x, rows * sizeof(float)));
  CK(cudaMalloc(&y, rows * sizeof(float)));
  CK(cudaMemset(ptr, 0, (rows + 1) * sizeof(int)));
  spmv_csr<<<(rows + 255) / 256, 256>>>(y, ptr, col, val, x, rows);
  CK(cudaGetLastError());
  long long *lptr, *lcol;
  double *a, *v, *out;
  CK(cudaMalloc(&lptr, (rows + 1) * sizeof(long long)));
  CK(cudaMalloc(&lcol, 4000 * sizeof(long long)));
  CK(cudaMalloc(&a, 4000 * sizeof(double)));
  CK(cudaMalloc(&v, rows * sizeof(double)));
  CK(cudaMalloc(&out, rows * sizeof(double)));
  // LONG: if (cudaoptCsrSpmv<long long, double>(0, static_cast<long long>(rows), lptr,
  // LONG-NEXT: lcol, a, v, out, 1) != cudaSuccess)
  // LONG-NEXT: spmv_swapped_long<<<(rows + 127) / 128, 128>>>(out, lptr, lcol, a, v,
  spmv_swapped_long<<<(rows + 127) / 128, 128>>>(out, lptr, lcol, a, v, rows);
  int *iptr, *icol;
  double *dval, *dx, *dy;
  CK(cudaMalloc(&iptr, (rows + 1) * sizeof(int)));
  CK(cudaMalloc(&icol, 4000 * sizeof(int)));
  CK(cudaMalloc(&dval, 4000 * sizeof(double)));
  CK(cudaMalloc(&dx, rows * sizeof(double)));
  CK(cudaMalloc(&dy, rows * sizeof(double)));
  // DOUBLE: if (cudaoptCsrSpmv<int, double>(0, static_cast<long long>(rows), iptr, icol,
  // DOUBLE-NEXT: dval, dx, dy, 1) != cudaSuccess)
  spmv_double_return<<<(rows + 255) / 256, 256>>>(dy, iptr, icol, dval, dx,
                                                  rows);
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  // STREAM: if (cudaoptCsrSpmv<int, float>(st, static_cast<long long>(rows), ptr, col,
  // STREAM-NEXT: val, x, y, 1) != cudaSuccess)
  // STREAM-NEXT: spmv_stream<<<(rows + 255) / 256, 256, 0, st>>>(y, ptr, col, val, x,
  spmv_stream<<<(rows + 255) / 256, 256, 0, st>>>(y, ptr, col, val, x, rows);
  if (rows > 10)
    spmv_else<<<(rows + 255) / 256, 256>>>(y, ptr, col, val, x, rows);
  else
    std::printf("small\n");
  CK(cudaDeviceSynchronize());
  return 0;
}
// STRICT: the rewrite reorders floating-point reductions, which --fp-model=strict does not allow
// CUB: it is a sparse matrix-vector product (a sum of 'vals[j] * x[col_idx[j]]' per row); cusparse-spmv routes it to cuSPARSE
// REGIONS-NOT: routed

// The checks of main, after it (their copies in the output come after main too).
// CHECK-LABEL: int main() {
// CHECK:      {{^  \{$}}
// CHECK-NEXT: // cuda-opt cusparse-spmv: spmv_csr computed y = A x for a CSR matrix, one
// CHECK-NEXT: // thread per row; cuSPARSE's SpMV sums each row in its own order
// CHECK-NEXT: // (--fp-model=reassoc), the launch stays for what it cannot take.
// CHECK-NEXT:   if (cudaoptCsrSpmv<int, float>(0, static_cast<long long>(rows), ptr, col,
// CHECK-NEXT:                                  val, x, y, 1) != cudaSuccess)
// CHECK-NEXT:     spmv_csr<<<(rows + 255) / 256, 256>>>(y, ptr, col, val, x, rows);
// CHECK-NEXT: }
// CHECK-NEXT: CK(cudaGetLastError());
// ALG2: if (cudaoptCsrSpmv<int, float>(0, static_cast<long long>(rows), ptr, col,
// ALG2-NEXT: val, x, y, 2) != cudaSuccess)
// CHECK:      if (rows > 10) {
// CHECK:          spmv_else<<<(rows + 255) / 256, 256>>>(y, ptr, col, val, x, rows);
// CHECK-NEXT: } else
