// Outputs a row program writes in rows of C contiguous elements (row r at
// r * C, C a constant or an integer parameter): tune has the worker check
// them row by row against the fp64 reference (docs/fp-model.md). Anything
// else keeps the per-buffer rule.
// RUN: cuda-opt --analyze %s --kernel=softmax_rows --json | FileCheck %s --check-prefix=PARAM
// RUN: cuda-opt --analyze %s --kernel=scale64 --json | FileCheck %s --check-prefix=LITERAL
// RUN: cuda-opt --analyze %s --kernel=extra_store --json | FileCheck %s --check-prefix=NONE --implicit-check-not=row_outputs
// RUN: cuda-opt --analyze %s --kernel=inclusive --json | FileCheck %s --check-prefix=NONE --implicit-check-not=row_outputs
// RUN: cuda-opt --analyze %s --kernel=shifted --json | FileCheck %s --check-prefix=NONE --implicit-check-not=row_outputs
// RUN: cuda-opt --analyze %s --kernel=escapes --json | FileCheck %s --check-prefix=NONE --implicit-check-not=row_outputs
// RUN: cuda-opt --analyze %s --kernel=global_ptr --json | FileCheck %s --check-prefix=NONE --implicit-check-not=row_outputs
// RUN: cuda-opt --analyze %s --kernel=may_overlap --json | FileCheck %s --check-prefix=NONE --implicit-check-not=row_outputs
// RUN: cuda-opt --analyze %s --kernel=saxpy --json | FileCheck %s --check-prefix=NONE --implicit-check-not=row_outputs
// NONE: "name":

// A parameter row length: the worker reads it from argument 3.
// PARAM:      "row_outputs": [
// PARAM-NEXT:   {
// PARAM-NEXT:     "index": 0,
// PARAM-NEXT:     "param": "out",
// PARAM-NEXT:     "row_length": "cols",
// PARAM-NEXT:     "row_length_param": 3
// PARAM-NEXT:   }
// PARAM-NEXT: ],
__global__ void softmax_rows(float *__restrict__ out,
                             const float *__restrict__ in, int rows, int cols) {
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

// A constant row length, written through a local row pointer; the per-row
// store 'rowsum[r]' is not a row of elements.
// LITERAL:      "row_outputs": [
// LITERAL-NEXT:   {
// LITERAL-NEXT:     "index": 1,
// LITERAL-NEXT:     "param": "out",
// LITERAL-NEXT:     "row_length": "64",
// LITERAL-NEXT:     "row_length_value": 64
// LITERAL-NEXT:   }
// LITERAL-NEXT: ],
__global__ void scale64(const float *__restrict__ in, float *__restrict__ out,
                        float *__restrict__ rowsum, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const float *x = in + r * 64;
  float *o = out + r * 64;
  float s = 0.0f;
  for (int j = 0; j < 64; ++j)
    s += x[j];
  for (int j = 0; j < 64; ++j)
    o[j] = x[j] / s;
  rowsum[r] = s;
}

// Also written outside the row's loops.
__global__ void extra_store(float *__restrict__ out,
                            const float *__restrict__ in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    for (int j = 1; j < cols; ++j)
      out[r * cols + j] = in[r * cols + j] * 2.0f;
    out[r * cols] = 0.0f;
  }
}

// j reaches cols: row r writes the first element of row r + 1.
__global__ void inclusive(float *__restrict__ out,
                          const float *__restrict__ in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    for (int j = 0; j <= cols; ++j)
      out[r * cols + j] = in[r * cols + j] * 2.0f;
  }
}

// The row does not start at r * cols.
__global__ void shifted(float *__restrict__ out, const float *__restrict__ in,
                        int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    for (int j = 0; j < cols; ++j)
      out[r * cols + j + 1] = in[r * cols + j] * 2.0f;
  }
}

// The output's pointer is passed on (an atomic may write any element).
__global__ void escapes(float *__restrict__ out, const float *__restrict__ in,
                        int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = in[r * cols + j] * 2.0f;
    atomicAdd(out, 1.0f);
  }
}

// A global pointer may point into the output.
__device__ float *g_ptr;
__global__ void global_ptr(float *__restrict__ out,
                           const float *__restrict__ in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = in[r * cols + j] * 2.0f;
    g_ptr[r] = 1.0f;
  }
}

// Not a row program: nothing shows that out and in do not overlap.
__global__ void may_overlap(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = in[r * cols + j] * 2.0f;
  }
}

// One element per thread.
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
