// RUN: cuda-opt --passes='cooperative-rows{lanes=8}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu

// One-thread-per-row kernels become groups of 8 threads per row: each loop
// over the row is lane-strided and its recurrences combined with shuffles;
// per-row stores are done by lane 0.

// The helpers are added once, above the first rewritten kernel.
// CHECK: static __device__ __forceinline__ unsigned cudaOptRowGroupMask(int Lanes) {
// CHECK: cudaOptRowArgMax(T &Best, I &Index, unsigned Mask, int Lanes) {

// CHECK-LABEL: {{^}}__global__ void softmax(
// CHECK: {{^}}  const int lane = threadIdx.x % 8;
// CHECK-NEXT: {{^}}  const unsigned rowMask = cudaOptRowGroupMask(8);
// CHECK-NEXT: {{^}}  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 8; r < rows;
// CHECK-NEXT: {{^}}       r += blockDim.x / 8 * gridDim.x) {
// CHECK-NEXT: {{^}}    float m = in[r * cols];
// CHECK-NEXT: {{^}}    for (int j = 1 + lane; j < cols; j += 8)
// CHECK-NEXT: {{^}}      m = fmaxf(m, in[r * cols + j]);
// CHECK-NEXT: {{^}}    m = cudaOptRowFmax(m, rowMask, 8);
// CHECK-NEXT: {{^}}    float sum = 0.0f;
// CHECK-NEXT: {{^}}    for (int j = lane; j < cols; j += 8)
// CHECK-NEXT: {{^}}      sum += expf(in[r * cols + j] - m);
// CHECK-NEXT: {{^}}    sum = cudaOptRowSum(sum, rowMask, 8);
// CHECK-NEXT: {{^}}    for (int j = lane; j < cols; j += 8)
// CHECK-NEXT: {{^}}      out[r * cols + j] = expf(in[r * cols + j] - m) / sum;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
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

// CHECK-LABEL: {{^}}__global__ void gemv(
// CHECK: {{^}}  const int lane = threadIdx.x % 8;
// CHECK-NEXT: {{^}}  const unsigned rowMask = cudaOptRowGroupMask(8);
// CHECK-NEXT: {{^}}  for (int i = (blockIdx.x * blockDim.x + threadIdx.x) / 8; i < rows;
// CHECK-NEXT: {{^}}       i += blockDim.x / 8 * gridDim.x) {
// CHECK-NEXT: {{^}}    const float *a = A + (size_t)i * cols;
// CHECK-NEXT: {{^}}    float sum = 0.0f;
// CHECK-NEXT: {{^}}    for (int j = lane; j < cols; j += 8)
// CHECK-NEXT: {{^}}      sum += a[j] * x[j];
// CHECK-NEXT: {{^}}    sum = cudaOptRowSum(sum, rowMask, 8);
// CHECK-NEXT: {{^}}    if (lane == 0)
// CHECK-NEXT: {{^}}      y[i] = sum;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
__global__ void gemv(float *y, const float *A, const float *x, int rows,
                     int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    const float *a = A + (size_t)i * cols;
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      sum += a[j] * x[j];
    y[i] = sum;
  }
}

// CHECK-LABEL: {{^}}__global__ void spmv_csr(
// CHECK: {{^}}  const int lane = threadIdx.x % 8;
// CHECK-NEXT: {{^}}  const unsigned rowMask = cudaOptRowGroupMask(8);
// CHECK-NEXT: {{^}}  for (int row = (blockIdx.x * blockDim.x + threadIdx.x) / 8; row < rows;
// CHECK-NEXT: {{^}}       row += blockDim.x / 8 * gridDim.x) {
// CHECK-NEXT: {{^}}    float sum = 0.0f;
// CHECK-NEXT: {{^}}    for (int j = row_ptr[row] + lane; j < row_ptr[row + 1]; j += 8)
// CHECK-NEXT: {{^}}      sum += vals[j] * x[col_idx[j]];
// CHECK-NEXT: {{^}}    sum = cudaOptRowSum(sum, rowMask, 8);
// CHECK-NEXT: {{^}}    if (lane == 0)
// CHECK-NEXT: {{^}}      y[row] = sum;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
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

// CHECK-LABEL: {{^}}__global__ void rmsnorm(
// CHECK: {{^}}  const int lane = threadIdx.x % 8;
// CHECK-NEXT: {{^}}  const unsigned rowMask = cudaOptRowGroupMask(8);
// CHECK-NEXT: {{^}}  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 8; r < rows;
// CHECK-NEXT: {{^}}       r += blockDim.x / 8 * gridDim.x) {
// CHECK-NEXT: {{^}}    float ss = 0.0f;
// CHECK-NEXT: {{^}}    for (int j = lane; j < cols; j += 8) {
// CHECK-NEXT: {{^}}      float v = in[r * cols + j];
// CHECK-NEXT: {{^}}      ss = ss + v * v;
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}    ss = cudaOptRowSum(ss, rowMask, 8);
// CHECK-NEXT: {{^}}    float scale = rsqrtf(ss / cols + eps);
// CHECK-NEXT: {{^}}    for (int j = lane; j < cols; j += 8)
// CHECK-NEXT: {{^}}      out[r * cols + j] = in[r * cols + j] * scale * w[j];
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
__global__ void rmsnorm(float *out, const float *in, const float *w, int rows,
                        int cols, float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float ss = 0.0f;
  for (int j = 0; j < cols; ++j) {
    float v = in[r * cols + j];
    ss = ss + v * v;
  }
  float scale = rsqrtf(ss / cols + eps);
  for (int j = 0; j < cols; ++j)
    out[r * cols + j] = in[r * cols + j] * scale * w[j];
}

// CHECK-LABEL: {{^}}__global__ void rowsum(
// CHECK: {{^}}  const int lane = threadIdx.x % 8;
// CHECK-NEXT: {{^}}  const unsigned rowMask = cudaOptRowGroupMask(8);
// CHECK-NEXT: {{^}}  for (int r = (threadIdx.x + blockIdx.x * blockDim.x) / 8; r < rows;
// CHECK-NEXT: {{^}}       r += blockDim.x / 8 * gridDim.x) {
// CHECK-NEXT: {{^}}    double s = bias[r];
// CHECK-NEXT: {{^}}    if (lane != 0) // the row's initial value stays with lane 0
// CHECK-NEXT: {{^}}      s = 0;
// CHECK-NEXT: {{^}}    for (int j = lane; j < cols; j += 8)
// CHECK-NEXT: {{^}}      s += in[r * cols + j];
// CHECK-NEXT: {{^}}    s = cudaOptRowSum(s, rowMask, 8);
// CHECK-NEXT: {{^}}    if (lane == 0)
// CHECK-NEXT: {{^}}      sums[r] = s;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
__global__ void rowsum(double *sums, const float *in, const double *bias,
                       int rows, int cols) {
  int r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r < rows) {
    double s = bias[r];
    for (int j = 0; j < cols; j++)
      s += in[r * cols + j];
    sums[r] = s;
  }
}

// CHECK-LABEL: {{^}}__global__ void argmax(
// CHECK: {{^}}  const int lane = threadIdx.x % 8;
// CHECK-NEXT: {{^}}  const unsigned rowMask = cudaOptRowGroupMask(8);
// CHECK-NEXT: {{^}}  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 8; r < rows;
// CHECK-NEXT: {{^}}       r += blockDim.x / 8 * gridDim.x) {
// CHECK-NEXT: {{^}}    float b = -INFINITY;
// CHECK-NEXT: {{^}}    int k = -1;
// CHECK-NEXT: {{^}}    for (int j = lane; j < cols; j += 8) {
// CHECK-NEXT: {{^}}      float v = in[r * cols + j];
// CHECK-NEXT: {{^}}      if (v > b) {
// CHECK-NEXT: {{^}}        b = v;
// CHECK-NEXT: {{^}}        k = j;
// CHECK-NEXT: {{^}}      }
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}    cudaOptRowArgMax(b, k, rowMask, 8);
// CHECK-NEXT: {{^}}    if (lane == 0) {
// CHECK-NEXT: {{^}}      idx[r] = k;
// CHECK-NEXT: {{^}}      best[r] = b;
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
__global__ void argmax(int *idx, float *best, const float *in, int rows,
                       int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float b = -INFINITY;
    int k = -1;
    for (int j = 0; j < cols; ++j) {
      float v = in[r * cols + j];
      if (v > b) {
        b = v;
        k = j;
      }
    }
    idx[r] = k;
    best[r] = b;
  }
}

// CHECK-LABEL: {{^}}__global__ void count_min(
// CHECK: {{^}}  const int lane = threadIdx.x % 8;
// CHECK-NEXT: {{^}}  const unsigned rowMask = cudaOptRowGroupMask(8);
// CHECK-NEXT: {{^}}  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 8; r < rows;
// CHECK-NEXT: {{^}}       r += blockDim.x / 8 * gridDim.x) {
// CHECK-NEXT: {{^}}    int c = 0;
// CHECK-NEXT: {{^}}    int lo = in[r * cols];
// CHECK-NEXT: {{^}}    for (int j = 1 + lane; j < cols; j += 8) {
// CHECK-NEXT: {{^}}      if (in[r * cols + j] > t)
// CHECK-NEXT: {{^}}        ++c;
// CHECK-NEXT: {{^}}      lo = in[r * cols + j] < lo ? in[r * cols + j] : lo;
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}    c = cudaOptRowSum(c, rowMask, 8);
// CHECK-NEXT: {{^}}    lo = cudaOptRowMin(lo, rowMask, 8);
// CHECK-NEXT: {{^}}    if (lane == 0) {
// CHECK-NEXT: {{^}}      counts[r] = c;
// CHECK-NEXT: {{^}}      mins[r] = lo;
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
__global__ void count_min(int *counts, int *mins, const int *in, int rows,
                          int cols, int t) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int c = 0;
    int lo = in[r * cols];
    for (int j = 1; j < cols; ++j) {
      if (in[r * cols + j] > t)
        ++c;
      lo = in[r * cols + j] < lo ? in[r * cols + j] : lo;
    }
    counts[r] = c;
    mins[r] = lo;
  }
}

void run(const float *hin, int rows, int cols) {
  float *out, *in, *w, *best;
  double *sums, *bias;
  int *idx, *counts, *mins, *ii;
  cudaMalloc(&out, rows * cols * sizeof(float));
  cudaMalloc(&in, rows * cols * sizeof(float));
  cudaMalloc(&w, cols * sizeof(float));
  cudaMalloc(&best, rows * sizeof(float));
  cudaMalloc(&sums, rows * sizeof(double));
  cudaMalloc(&bias, rows * sizeof(double));
  cudaMalloc(&idx, rows * sizeof(int));
  cudaMalloc(&counts, rows * sizeof(int));
  cudaMalloc(&mins, rows * sizeof(int));
  cudaMalloc(&ii, rows * cols * sizeof(int));
  int *ptr, *col;
  cudaMalloc(&ptr, (rows + 1) * sizeof(int));
  cudaMalloc(&col, rows * cols * sizeof(int));
  softmax<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
  gemv<<<(rows + 255) / 256, 256>>>(best, in, w, rows, cols);
  spmv_csr<<<(rows + 255) / 256, 256>>>(best, ptr, col, in, w, rows);
  rmsnorm<<<(rows + 255) / 256, 256>>>(out, in, w, rows, cols, 1e-6f);
  rowsum<<<(rows + 127) / 128, 128>>>(sums, in, bias, rows, cols);
  argmax<<<(rows + 255) / 256, 256>>>(idx, best, in, rows, cols);
  count_min<<<(rows + 63) / 64, 64>>>(counts, mins, ii, rows, cols, 3);
}
