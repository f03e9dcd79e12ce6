// RUN: cuda-opt --passes=gemm-specialize %s -o %t.cu -- -I%S/../../runtime/gemm/include
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile -I%S/../../runtime/gemm/include %t.cu

// cuBLAS is column-major: a row-major C (M x N) = A (M x K) * B is the
// column-major C^T = B^T * A^T, i.e. cublasGemmEx(h, opB, opA, N, M, K, ...,
// B, ..., A, ...). cuBLAS's first operand is cudaoptGemm's B: CUBLAS_OP_N on
// it is a row-major K x N B (B_ROW), CUBLAS_OP_T (or _C) a B stored N x K
// (B_COL).

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define CHECK_CUBLAS(x)                                                        \
  do {                                                                         \
    if ((x) != CUBLAS_STATUS_SUCCESS)                                          \
      return 1;                                                                \
  } while (0)

// CHECK: {{^}}#include "cudaopt/gemm.h"
// CHECK-NEXT: {{^}}#include <cublas_v2.h>
// CHECK: {{^}}// gemm-specialize: runs a problem on the stream of a cuBLAS handle and
// CHECK-NEXT: {{^}}// reports like the cuBLAS call it replaces.
// CHECK-NEXT: {{^}}static cublasStatus_t cudaoptGemmOnHandle(cublasHandle_t Handle,
// CHECK-NEXT: {{^}} cudaoptGemmProblem Problem) {
// CHECK-NEXT: {{^}} cudaStream_t Stream = nullptr;
// CHECK-NEXT: {{^}} cublasStatus_t Status = cublasGetStream_v2(Handle, &Stream);
// CHECK-NEXT: {{^}} if (Status != CUBLAS_STATUS_SUCCESS)
// CHECK-NEXT: {{^}} return Status;
// CHECK-NEXT: {{^}} return cudaoptGemm(&Problem, nullptr, 0, Stream) == cudaSuccess
// CHECK-NEXT: {{^}} ? CUBLAS_STATUS_SUCCESS
// CHECK-NEXT: {{^}} : CUBLAS_STATUS_EXECUTION_FAILED;
// CHECK-NEXT: {{^}}}
// CHECK-NOT: {{^}}#include "cudaopt/gemm.h"
// CHECK-NOT: {{^}}static cublasStatus_t cudaoptGemmOnHandle(

// The pipeline works kernel by kernel; the cuBLAS calls are rewritten at the
// first kernel's step.
__global__ void fill(__half *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = __float2half(0.0f);
}

// nn.Linear: y (M x N) = x (M x K) * W^T with W stored N x K.
// CHECK-LABEL: {{^}}int linear_tn(
int linear_tn(cublasHandle_t handle, const __half *x, const __half *W,
              __half *y, int M, int N, int K) {
  float alpha = 1.0f, beta = 0.0f;
  // CHECK-NOT: cublasGemmEx{{\(}}
  // CHECK: {{^}} CHECK_CUBLAS(cudaoptGemmOnHandle(
  // CHECK-NEXT: {{^}} handle, {/*M=*/M, /*N=*/N, /*K=*/K, CUDAOPT_GEMM_F16, CUDAOPT_GEMM_B_COL,
  // CHECK-NEXT: {{^}} /*A=*/x, /*Lda=*/K, /*B=*/W, /*Ldb=*/K, /*C=*/y, /*Ldc=*/N,
  // CHECK-NEXT: {{^}} /*Alpha=*/alpha, /*Beta=*/beta}));
  CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha,
                            W, CUDA_R_16F, K, x, CUDA_R_16F, K, &beta, y,
                            CUDA_R_16F, N, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
  return 0;
}

// Row-major B (K x N), bf16, leading dimensions wider than the matrices,
// alpha and beta through pointers.
// CHECK-LABEL: {{^}}int gemm_nn(
int gemm_nn(cublasHandle_t handle, const __nv_bfloat16 *A,
            const __nv_bfloat16 *B, __nv_bfloat16 *C, int m, int n, int k,
            const float *alpha, const float *beta) {
  // CHECK: {{^}} cublasStatus_t st = cudaoptGemmOnHandle(
  // CHECK-NEXT: {{^}} handle, {/*M=*/m, /*N=*/n, /*K=*/k, CUDAOPT_GEMM_BF16, CUDAOPT_GEMM_B_ROW,
  // CHECK-NEXT: {{^}} /*A=*/A, /*Lda=*/k + 8, /*B=*/B, /*Ldb=*/n + 8, /*C=*/C,
  // CHECK-NEXT: {{^}} /*Ldc=*/n + 16, /*Alpha=*/*static_cast<const float *>(alpha),
  // CHECK-NEXT: {{^}} /*Beta=*/*static_cast<const float *>(beta)});
  cublasStatus_t st = cublasGemmEx(
      handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, alpha, B, CUDA_R_16BF, n + 8,
      A, CUDA_R_16BF, k + 8, beta, C, CUDA_R_16BF, n + 16,
      CUBLAS_COMPUTE_32F_FAST_16BF, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
  return st != CUBLAS_STATUS_SUCCESS;
}

// CUBLAS_OP_C is CUBLAS_OP_T for real types; the ops come from constants.
// CHECK-LABEL: {{^}}int gemm_cn(
int gemm_cn(cublasHandle_t handle, const __half *A, const __half *Bt,
            __half *C, int m, int n, int k) {
  const cublasOperation_t opB = CUBLAS_OP_C;
  const float one = 1.0f, zero = 0.0f;
  // CHECK: {{^}} CHECK_CUBLAS(cudaoptGemmOnHandle(
  // CHECK-NEXT: {{^}} handle, {/*M=*/m, /*N=*/n, /*K=*/k, CUDAOPT_GEMM_F16, CUDAOPT_GEMM_B_COL,
  // CHECK-NEXT: {{^}} /*A=*/A, /*Lda=*/k, /*B=*/Bt, /*Ldb=*/k, /*C=*/C, /*Ldc=*/n,
  // CHECK-NEXT: {{^}} /*Alpha=*/one, /*Beta=*/zero}));
  CHECK_CUBLAS(cublasGemmEx(handle, opB, CUBLAS_OP_N, n, m, k, &one, Bt,
                            CUDA_R_16F, k, A, CUDA_R_16F, k, &zero, C,
                            CUDA_R_16F, n, CUDA_R_32F, CUBLAS_GEMM_DEFAULT));
  return 0;
}
