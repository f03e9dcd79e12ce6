// RUN: cuda-opt --analyze %s --kernel hgemm --json | FileCheck %s
// RUN: cuda-opt --analyze %s --kernel hgemm_op --json | FileCheck %s --check-prefix=OP

// A half-precision GEMM reads its operands through conversions: the
// __half arguments reach __half2float through __half's copy constructor,
// or convert through __half's operator float. Both are still a GEMM.
#include <cuda_fp16.h>

__global__ void hgemm(const __half *A, const __half *B, __half *C, int M,
                      int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = __float2half(acc);
  }
}

__global__ void hgemm_op(const __half *A, const __half *B, float *C, int M,
                         int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += static_cast<float>(A[row * K + k]) * static_cast<float>(B[k * N + col]);
    C[row * N + col] = acc;
  }
}

// CHECK: "idiom": {
// CHECK-NEXT: "evidence": "'acc += A[row * K + k] * B[k * N + col]' in the loop over 'k'
// CHECK-NEXT: "kind": "gemm"
// OP: "idiom": {
// OP-NEXT: "evidence": "'acc += A[row * K + k] * B[k * N + col]' in the loop over 'k'
// OP-NEXT: "kind": "gemm"
