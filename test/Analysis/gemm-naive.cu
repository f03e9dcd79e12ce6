// RUN: cuda-opt --analyze %s --kernel matmul --json | FileCheck %s
// RUN: cuda-opt --analyze %s --kernel matmul_serial --json | FileCheck %s --check-prefix=SERIAL

// Naive matrix multiply: one output element per thread, a k-loop
// accumulating A[row*K+k] * B[k*N+col].
__global__ void matmul(const float *A, const float *B, float *C, int M, int N,
                       int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

// The textbook triple loop nest, run by a single thread.
__global__ void matmul_serial(const double *A, const double *B, double *C,
                              int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int k = 0; k < n; ++k)
        acc += A[i * n + k] * B[k * n + j];
      C[i * n + j] = acc;
    }
}

// CHECK:      "accesses": [
// CHECK:        "index_form": "K*blockDim.y*blockIdx.y + K*threadIdx.y + k",
// CHECK:        "pattern": "broadcast",
// CHECK:        "text": "A[row * K + k]"
// CHECK:        "index_form": "N*k + blockDim.x*blockIdx.x + threadIdx.x",
// CHECK:        "pattern": "coalesced",
// CHECK:        "text": "B[k * N + col]"
// CHECK:      "accumulations": [
// CHECK:        "product": true,
// CHECK:        "target": "sum",
// CHECK:      "arithmetic_intensity": {
// CHECK-NEXT:   "flops": "2*K",
// CHECK:        "flops_per_byte_text": "0.25",
// CHECK-NEXT:   "global_bytes": "8*K + 4",
// CHECK:        "status": "asymptotic"
// CHECK:      "idiom": {
// CHECK-NEXT:   "evidence": "'sum += A[row * K + k] * B[k * N + col]' in the loop over 'k' (line 12): the operands vary with different indices (row of one, column of the other)",
// CHECK-NEXT:   "kind": "gemm"
// CHECK:      "loops": [
// CHECK:        "induction_var": "k",
// CHECK:        "trip_count": null,
// CHECK-NEXT:   "trip_count_expr": "K"
// CHECK:      "max_loop_depth": 1,
// CHECK:      "thread_indices": [
// CHECK:        "name": "row",
// CHECK-NEXT:   "role": "global linear index y",
// CHECK:        "name": "col",
// CHECK-NEXT:   "role": "global linear index x",

// SERIAL:     "flops": "2*n*n*n",
// SERIAL:     "global_bytes": "16*n*n*n + 8*n*n",
// SERIAL:     "idiom": {
// SERIAL-NEXT:  "evidence": "'acc += A[i * n + k] * B[k * n + j]' in the loop over 'k' (line 24){{.*}}",
// SERIAL-NEXT:  "kind": "gemm"
// SERIAL:     "max_loop_depth": 3,

// RUN: cuda-opt --analyze %s --kernel matmul_batched --json | FileCheck %s --check-prefix=BATCHED

// One matrix product per blockIdx.z: both operands also vary with the batch.
__global__ void matmul_batched(const float *A, const float *B, float *C, int M,
                               int N, int K) {
  int batch = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N)
    return;
  const float *a = A + batch * M * K;
  const float *b = B + batch * K * N;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += a[row * K + k] * b[k * N + col];
  C[batch * M * N + row * N + col] = acc;
}
// BATCHED:      "index_form": "K*M*blockIdx.z + K*blockDim.y*blockIdx.y + K*threadIdx.y + k",
// BATCHED:      "base": "B",
// BATCHED:      "pattern": "coalesced",
// BATCHED:      "kind": "gemm"
