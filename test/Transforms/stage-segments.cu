// RUN: cuda-opt --passes='stage-segments{items=4}' --kernel=spmv %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='stage-segments{items=2,stream=0}' --kernel=spmv %s | FileCheck %s --check-prefix=PLAIN
// RUN: cuda-opt --passes='stage-segments{items=4}' --kernel=rowsum_early %s | FileCheck %s --check-prefix=EARLY
// RUN: not cuda-opt --passes='stage-segments' --kernel=two_loops %s 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not cuda-opt --passes='stage-segments' --kernel=starts_at_bias %s 2>&1 | FileCheck %s --check-prefix=BIAS
// RUN: not cuda-opt --passes='stage-segments' --kernel=term_reads_local %s 2>&1 | FileCheck %s --check-prefix=LOCAL
// RUN: not cuda-opt --passes='stage-segments' --kernel=extra_condition %s 2>&1 | FileCheck %s --check-prefix=COND
// RUN: not cuda-opt --passes='stage-segments' --kernel=store_first %s 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: not cuda-opt --passes='stage-segments' --kernel=dynamic_block %s 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not cuda-opt --passes='stage-segments' --kernel=counted %s 2>&1 | FileCheck %s --check-prefix=COUNTED
// RUN: not cuda-opt --passes='stage-segments{items=16}' --kernel=wide_block %s 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not cuda-opt --passes='stage-segments' --kernel=long_counter %s 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: not cuda-opt --passes='stage-segments' --kernel=launched_elsewhere %s 2>&1 | FileCheck %s --check-prefix=FOREIGN

// A CSR matrix-vector product, one thread per row: the block stages its
// rows' contiguous non-zeros in shared memory, each row's thread adds its
// slice in the original order.
// CHECK-LABEL: {{^}}__global__ void spmv(
// CHECK: {{^ *}}float sumStaged = 0.0f;
// CHECK-NEXT: {{^ *}}{
// CHECK-NEXT: {{^ *}}__shared__ float valsStage[256 * 4];
// CHECK-NEXT: {{^ *}}__shared__ float xStage[256 * 4];
// CHECK-NEXT: {{^ *}}__shared__ int segRange[2];
// CHECK-NEXT: {{^ *}}const bool rowActive = row < rows;
// CHECK-NEXT: {{^ *}}const int segLo = rowActive ? row_ptr[row] : 0;
// CHECK-NEXT: {{^ *}}const int segHi = rowActive ? row_ptr[row + 1] : 0;
// CHECK: {{^ *}}atomicMin(&segRange[0], segLo);
// CHECK-NEXT: {{^ *}}atomicMax(&segRange[1], segHi);
// CHECK: {{^ *}}if (__syncthreads_and(blockDim.x <= 256 &&
// CHECK-NEXT: {{^ *}}(!rowActive || segLo <= segHi))) {
// CHECK: {{^ *}}valsStage[at - chunk] = __ldcs(&vals[at]);
// CHECK-NEXT: {{^ *}}xStage[at - chunk] = x[__ldcs(&col_idx[at])];
// CHECK: {{^ *}}__syncthreads();
// CHECK-NEXT: {{^ *}}for (int j = max(segLo, chunk); j < min(segHi, chunkEnd); ++j)
// CHECK-NEXT: {{^ *}}sumStaged += valsStage[j - chunk] * xStage[j - chunk];
// CHECK-NEXT: {{^ *}}__syncthreads();
// CHECK: {{^ *}}} else if (rowActive) {
// CHECK: {{^ *}}for (int j = segLo; j < segHi; ++j)
// CHECK-NEXT: {{^ *}}sumStaged += vals[j] * x[col_idx[j]];
// CHECK: {{^ *}}if (row < rows) {
// CHECK-NEXT: {{^ *}}float sum = 0.0f;
// CHECK-NEXT: {{^ *}}sum = sumStaged; // staged above
// CHECK-NEXT: {{^ *}}y[row] = sum;
// PLAIN: {{^ *}}__shared__ float valsStage[256 * 2];
// PLAIN: {{^ *}}valsStage[at - chunk] = vals[at];
// PLAIN-NEXT: {{^ *}}xStage[at - chunk] = x[col_idx[at]];
__global__ void spmv(float *y, const int *row_ptr, const int *col_idx,
                     const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
      sum += vals[j] * x[col_idx[j]];
    y[row] = sum;
  }
}

// An early-return guard and `s = s + term`: the staging goes before the
// return, which every thread reaches after it.
// EARLY-LABEL: {{^}}__global__ void rowsum_early(
// EARLY: {{^ *}}double sStaged = 0;
// EARLY: {{^ *}}__shared__ double valsStage[128 * 4];
// EARLY: {{^ *}}sStaged += valsStage[k - chunk];
// EARLY: {{^ *}}if (r >= n)
// EARLY-NEXT: {{^ *}}return;
// EARLY: {{^ *}}s = sStaged; // staged above
__global__ void rowsum_early(double *out, const int *off, const double *vals,
                             int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n)
    return;
  double s = 0;
  for (int k = off[r]; k < off[r + 1]; ++k)
    s = s + vals[k];
  out[r] = s;
}

// TWO: kernel 'two_loops': its per-row work has 2 loops
__global__ void two_loops(float *y, const int *p, const float *v, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f, t = 0.0f;
    for (int j = p[row]; j < p[row + 1]; ++j)
      s += v[j];
    for (int j = p[row]; j < p[row + 1]; ++j)
      t += v[j] * v[j];
    y[row] = s + t;
  }
}

// BIAS: kernel 'starts_at_bias': 's' does not start at 0 where it is declared
__global__ void starts_at_bias(float *y, const int *p, const float *v,
                               const float *b, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = b[row];
    for (int j = p[row]; j < p[row + 1]; ++j)
      s += v[j];
    y[row] = s;
  }
}

// LOCAL: kernel 'term_reads_local': 'v[j] * scale' reads 'scale', a local of the row
__global__ void term_reads_local(float *y, const int *p, const float *v,
                                 const float *w, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float scale = w[row];
    float s = 0.0f;
    for (int j = p[row]; j < p[row + 1]; ++j)
      s += v[j] * scale;
    y[row] = s;
  }
}

// COND: kernel 'extra_condition': the statement at {{.*}} is not a bounds guard of the form 'if (row < n)'
__global__ void extra_condition(float *y, const int *p, const float *v,
                                const int *mask, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && mask[row]) {
    float s = 0.0f;
    for (int j = p[row]; j < p[row + 1]; ++j)
      s += v[j];
    y[row] = s;
  }
}

// STORE: kernel 'store_first': the statement at {{.*}} before the loop writes memory or returns
__global__ void store_first(float *y, const int *p, const float *v, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    y[row] = 0.0f;
    float s = 0.0f;
    for (int j = p[row]; j < p[row + 1]; ++j)
      s += v[j];
    y[row] = s;
  }
}

// BLOCK: kernel 'dynamic_block': the block of the launch at {{.*}} is not a constant 1-D size, which the staging arrays are sized from
__global__ void dynamic_block(float *y, const int *p, const float *v,
                              int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = p[row]; j < p[row + 1]; ++j)
      s += v[j];
    y[row] = s;
  }
}

// COUNTED: kernel 'counted': the loop at {{.*}} does not run from one element of a row pointer to another
__global__ void counted(float *y, const float *v, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = row * cols; j < row * cols + cols; ++j)
      s += v[j];
    y[row] = s;
  }
}

// SMEM: kernel 'wide_block': staging 2 operands of 1024 x 16 elements takes 131080 bytes of shared memory, more than 48 KiB; use fewer items
__global__ void wide_block(float *y, const int *row_ptr, const int *col_idx,
                           const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
      sum += vals[j] * x[col_idx[j]];
    y[row] = sum;
  }
}

// LONG: kernel 'long_counter': the loop at {{.*}} counts with 'long'; stage-segments handles int and long long counters
__global__ void long_counter(float *y, const long *p, const float *v,
                             int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (long j = p[row]; j < p[row + 1]; ++j)
      s += v[j];
    y[row] = s;
  }
}

// FOREIGN: kernel 'launched_elsewhere' is referenced at {{.*}}, which may launch it with a block larger than the staging arrays
__global__ void launched_elsewhere(float *y, const int *p, const float *v,
                                   int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = p[row]; j < p[row + 1]; ++j)
      s += v[j];
    y[row] = s;
  }
}
void *kernelHandle() { return (void *)launched_elsewhere; }

void run(float *y, const int *p, const int *c, const float *v, const float *x,
         double *dy, const double *dv, const float *b, const int *m, int rows,
         int cols, int threads) {
  spmv<<<(rows + 255) / 256, 256>>>(y, p, c, v, x, rows);
  rowsum_early<<<(rows + 127) / 128, 128>>>(dy, p, dv, rows);
  two_loops<<<(rows + 255) / 256, 256>>>(y, p, v, rows);
  starts_at_bias<<<(rows + 255) / 256, 256>>>(y, p, v, b, rows);
  term_reads_local<<<(rows + 255) / 256, 256>>>(y, p, v, b, rows);
  extra_condition<<<(rows + 255) / 256, 256>>>(y, p, v, m, rows);
  store_first<<<(rows + 255) / 256, 256>>>(y, p, v, rows);
  dynamic_block<<<(rows + threads - 1) / threads, threads>>>(y, p, v, rows);
  counted<<<(rows + 255) / 256, 256>>>(y, v, rows, cols);
  wide_block<<<(rows + 1023) / 1024, 1024>>>(y, p, c, v, x, rows);
  long_counter<<<(rows + 255) / 256, 256>>>(y, (const long *)p, v, rows);
  launched_elsewhere<<<(rows + 255) / 256, 256>>>(y, p, v, rows);
}
