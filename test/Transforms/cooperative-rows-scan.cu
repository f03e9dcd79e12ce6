// RUN: cuda-opt --passes='cooperative-rows{lanes=32}' --kernel=rowCumsum %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='cooperative-rows{lanes=32}' --kernel=offsets %s -o %t2.cu
// RUN: FileCheck %s --check-prefix=OFF < %t2.cu
// RUN: %cuda_compile %t2.cu
// RUN: cuda-opt --passes='cooperative-rows{lanes=8,vec=1}' --emit=report --kernel=rowCumsum %s 2>&1 | FileCheck %s --check-prefix=VEC
// RUN: cuda-opt --passes='cooperative-rows{lanes=32}' --kernel=sumOfSquares %s | FileCheck %s --check-prefix=PLAIN
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=scanAfterDecl %s 2>&1 | FileCheck %s --check-prefix=AFTERDECL
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=twoCarried %s 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=scanContinue %s 2>&1 | FileCheck %s --check-prefix=CONT
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=selfTerm %s 2>&1 | FileCheck %s --check-prefix=SELF
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8,cache=16}' --kernel=cachedScan %s 2>&1 | FileCheck %s --check-prefix=CACHE

// Row prefix sums (a sum read after its update in the same iteration): the
// lanes take one column each per step, scan with shuffles, and carry the
// step's total on.

// CHECK: static __device__ __forceinline__ T cudaOptRowScanSum(T V, unsigned Mask,
// CHECK-LABEL: {{^}}__global__ void rowCumsum(
// CHECK: {{^}}    float sum = 0.0f;
// CHECK-NEXT: {{^}}    for (int jBase = 0; jBase < cols; jBase += 32) {
// CHECK-NEXT: {{^}}      // A prefix sum over the row: 32 columns per step, one per lane.
// CHECK-NEXT: {{^}}      const int j = jBase + lane;
// CHECK-NEXT: {{^}}      float sumTerm = 0;
// CHECK-NEXT: {{^}}      if (j < cols)
// CHECK-NEXT: {{^}}        sumTerm = in[r * cols + j];
// CHECK-NEXT: {{^}}      const float sumPrefix = cudaOptRowScanSum(sumTerm, rowMask, 32);
// CHECK-NEXT: {{^}}      if (j < cols) {
// CHECK-NEXT: {{^}}        const float sumAt = sum + sumPrefix; // 'sum' after column j
// CHECK-NEXT: {{^}}        out[r * cols + j] = sumAt;
// CHECK-NEXT: {{^}}      }
// CHECK-NEXT: {{^}}      sum += cudaOptRowLast(sumPrefix, rowMask, 32);
// CHECK-NEXT: {{^}}    }
__global__ void rowCumsum(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j) {
      sum += in[r * cols + j];
      out[r * cols + j] = sum;
    }
  }
}

// `s = s + e`, a start that is not 0, an integer scan, a later statement
// that uses the prefix twice, and the total used after the loop (it is the
// same in every lane, so lane 0 stores it).
// OFF-LABEL: {{^}}__global__ void offsets(
// OFF: {{^}}    long s = base[r];
// OFF-NEXT: {{^}}    for (int jBase = 1; jBase < (cols + 1); jBase += 32) {
// OFF: {{^}}      long sTerm = 0;
// OFF-NEXT: {{^}}      if (j < (cols + 1))
// OFF-NEXT: {{^}}        sTerm = counts[r * cols + j - 1];
// OFF: {{^}}        const long sAt = s + sPrefix; // 's' after column j
// OFF-NEXT: {{^}}        pos[r * (cols + 1) + j] = sAt;
// OFF-NEXT: {{^}}        mid[r * (cols + 1) + j] = sAt / 2 + sAt % 2;
// OFF: {{^}}    if (lane == 0)
// OFF-NEXT: {{^}}      total[r] = s;
__global__ void offsets(long *pos, long *mid, long *total, const int *counts,
                        const long *base, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  long s = base[r];
  for (int j = 1; j < cols + 1; ++j) {
    s = s + counts[r * cols + j - 1];
    pos[r * (cols + 1) + j] = s;
    mid[r * (cols + 1) + j] = s / 2 + s % 2;
  }
  total[r] = s;
}

// A sum that nothing else in the loop reads is a plain reduction, even when
// its update is a statement of a braced body (a scan would also run the
// statements before the update for columns past the row's end).
// PLAIN-LABEL: {{^}}__global__ void sumOfSquares(
// PLAIN: {{^}}    for (int j = lane; j < cols; j += 32) {
// PLAIN-NOT: ssPrefix
// PLAIN: {{^}}    ss = cudaOptRowSum(ss, rowMask, 32);
__global__ void sumOfSquares(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float ss = 0.0f;
    for (int j = 0; j < cols; ++j) {
      float v = in[r * cols + j];
      ss += v * v;
    }
    out[r] = ss;
  }
}

// A scan whose update is not the body's first statement is refused.
// AFTERDECL: kernel 'scanAfterDecl': the loop at {{.*}} reads 's' at {{.*}} outside its sum update, so each iteration depends on the running value (like a prefix sum)
__global__ void scanAfterDecl(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j) {
      float v = in[r * cols + j];
      s += v;
      out[r * cols + j] = s;
    }
  }
}

// VEC: the loop at {{.*}} keeps scalar accesses only: it is a prefix sum (its lanes take one column per step)

// TWO: kernel 'twoCarried': the loop at {{.*}} computes a prefix sum and carries other scalars
__global__ void twoCarried(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f, m = 0.0f;
    for (int j = 0; j < cols; ++j) {
      s += in[r * cols + j];
      m = fmaxf(m, in[r * cols + j]);
      out[r * cols + j] = s;
    }
    out[r * cols] = m;
  }
}

// CONT: kernel 'scanContinue': the loop at {{.*}} computes a prefix sum and has a 'continue'
__global__ void scanContinue(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j) {
      s += in[r * cols + j];
      if (s < 0.0f)
        continue;
      out[r * cols + j] = s;
    }
  }
}

// A term that reads the running value is a recurrence of another kind.
// SELF: kernel 'selfTerm': 's' carries a value from one iteration of the loop at {{.*}} is not a sum, product, min, max or argmin/argmax
__global__ void selfTerm(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 1.0f;
    for (int j = 0; j < cols; ++j) {
      s += s * in[r * cols + j];
      out[r * cols + j] = s;
    }
  }
}

// CACHE: kernel 'cachedScan': the loop at {{.*}} is a prefix sum, which cache=S does not hold in registers; use cache=0
__global__ void cachedScan(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = in[r * cols];
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, in[r * cols + j]);
    float s = 0.0f;
    for (int j = 0; j < cols; ++j) {
      s += in[r * cols + j] / m;
      out[r * cols + j] = s;
    }
  }
}

void run(int rows, int cols) {
  float *out, *in;
  long *pos, *mid, *total, *base;
  int *counts;
  cudaMalloc(&out, rows * cols * sizeof(float));
  cudaMalloc(&in, rows * cols * sizeof(float));
  cudaMalloc(&pos, rows * (cols + 1) * sizeof(long));
  cudaMalloc(&mid, rows * (cols + 1) * sizeof(long));
  cudaMalloc(&total, rows * sizeof(long));
  cudaMalloc(&base, rows * sizeof(long));
  cudaMalloc(&counts, rows * cols * sizeof(int));
  rowCumsum<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
  offsets<<<(rows + 127) / 128, 128>>>(pos, mid, total, counts, base, rows, cols);
  twoCarried<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
  scanContinue<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
  selfTerm<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
  cachedScan<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
  float *sq;
  cudaMalloc(&sq, rows * sizeof(float));
  sumOfSquares<<<(rows + 255) / 256, 256>>>(sq, in, rows, cols);
  scanAfterDecl<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
}
