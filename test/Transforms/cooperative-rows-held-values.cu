// RUN: cuda-opt --passes='cooperative-rows{lanes=8,cache=8}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu

// cooperative-rows{cache=S}: a value that a later loop over the held row
// computes exactly as an earlier one did (softmax's exponentials) is kept
// per slot by the earlier loop and read by the later ones: in the registers
// of the row itself when nothing reads the row after it, else in registers
// of its own. Only pure expressions (arithmetic, casts, math functions, held
// columns and scalars) that the earlier loop computes in every iteration,
// with scalars unchanged in between, are kept.

#include <cuda_fp16.h>

// The row is read again after the exponentials: they get their own array.
// CHECK-LABEL: {{^}}__global__ void own_array(
// CHECK:      if (cols <= 64) {
// CHECK:        // cuda-opt cache: 'expf(inRow[slot] - m)' of this {{.*}}
// CHECK:        float expfVal[8];
// CHECK:          sum += (expfVal[slot] = expf(inRow[slot] - m));
// CHECK:          out[r * cols + j] = expfVal[slot] / sum + inRow[slot];
// CHECK:      } else {
__global__ void own_array(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = in[r * cols];
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, in[r * cols + j]);
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      sum += expf(in[r * cols + j] - m);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = expf(in[r * cols + j] - m) / sum + in[r * cols + j];
  }
}

// 'm' changes between the loops: each computes its own exponentials.
// CHECK-LABEL: {{^}}__global__ void scalar_changes(
// CHECK-NOT:  Val[
// CHECK:          sum += expf(inRow[slot] - m);
// CHECK:          out[r * cols + j] = expf(inRow[slot] - m) / sum;
// CHECK:      } else {
__global__ void scalar_changes(float *out, const float *in, int rows,
                               int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = in[r * cols];
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, in[r * cols + j]);
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      sum += expf(in[r * cols + j] - m);
    m = m * 0.5f;
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = expf(in[r * cols + j] - m) / sum;
  }
}

// The earlier loop computes the exponential only for positive columns.
// CHECK-LABEL: {{^}}__global__ void conditional(
// CHECK-NOT:  Val[
// CHECK:            sum += expf(inRow[slot] - m);
// CHECK:          out[r * cols + j] = expf(inRow[slot] - m) / sum;
// CHECK:      } else {
__global__ void conditional(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = in[r * cols];
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, in[r * cols + j]);
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      if (in[r * cols + j] > 0.0f)
        sum += expf(in[r * cols + j] - m);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = expf(in[r * cols + j] - m) / sum;
  }
}

// The earlier loop starts at column 1; the later one needs column 0 too.
// CHECK-LABEL: {{^}}__global__ void starts_later(
// CHECK-NOT:  Val[
// CHECK:          sum += expf(inRow[slot] - m);
// CHECK:          out[r * cols + j] = expf(inRow[slot] - m) / sum;
// CHECK:      } else {
__global__ void starts_later(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = -1e30f;
    for (int j = 0; j < cols; ++j)
      m = fmaxf(m, in[r * cols + j]);
    float sum = 0.0f;
    for (int j = 1; j < cols; ++j)
      sum += expf(in[r * cols + j] - m);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = expf(in[r * cols + j] - m) / sum;
  }
}

// fp16 rows whose every read converts to float are held as floats, so the
// exponentials fit their registers.
// CHECK-LABEL: {{^}}__global__ void softmax_half(
// CHECK:        float inRow[8];
// CHECK:          inRow[slot] = col < cols ? __half2float(in[r * cols + col]) : 0.0f;
// CHECK:          sum += (inRow[slot] = expf(inRow[slot] - m));
// CHECK:          out[r * cols + j] = __float2half(inRow[slot] / sum);
// CHECK:      } else {
__global__ void softmax_half(__half *out, const __half *in, int rows,
                             int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = __half2float(in[r * cols]);
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, __half2float(in[r * cols + j]));
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      sum += expf(__half2float(in[r * cols + j]) - m);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = __float2half(expf(__half2float(in[r * cols + j]) - m) / sum);
  }
}

int main() {
  float *out, *in;
  __half *hout, *hin;
  cudaMalloc(&out, 6000 * sizeof(float));
  cudaMalloc(&in, 6000 * sizeof(float));
  cudaMalloc(&hout, 6000 * sizeof(__half));
  cudaMalloc(&hin, 6000 * sizeof(__half));
  own_array<<<4, 256>>>(out, in, 100, 60);
  scalar_changes<<<4, 256>>>(out, in, 100, 60);
  conditional<<<4, 256>>>(out, in, 100, 60);
  starts_later<<<4, 256>>>(out, in, 100, 60);
  softmax_half<<<4, 256>>>(hout, hin, 100, 60);
  return 0;
}
