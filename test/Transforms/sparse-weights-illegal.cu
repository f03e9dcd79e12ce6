// RUN: not cuda-opt --passes=sparse-weights %s -o %t.cu -- -I%S/../../runtime/sparse/include 2>&1 | FileCheck %s
// RUN: not cuda-opt --passes=sparse-weights %S/gemm-specialize-pointer-mode.cu -- -I%S/../../runtime/sparse/include 2>&1 | FileCheck %s --check-prefix=NOMARK
// RUN: not cuda-opt --passes=sparse-weights --kernel=gemm_nn %s -- -I%S/../../runtime/sparse/include 2>&1 | FileCheck %s --check-prefix=BROW
// RUN: not cuda-opt --passes=sparse-weights --kernel=linear %s -- -I%S/../../runtime/sparse/include 2>&1 | FileCheck %s --check-prefix=NOTB
// RUN: not test -e %t.cu

// CHECK: error: pass 'sparse-weights' is not legal here:
// CHECK-NEXT: kernel 'fill': malformed pragma at line [[#MALFORMED:]]: expected `#pragma cuda_opt sparse(NAME)` or `#pragma cuda_opt sparse(NAME, file="PATH")`
// CHECK-NEXT: cublasGemmEx at {{.*}}:{{[0-9]+}}:3 (marked sparse(W)): the weight operand (cuBLAS's A, the W of Y = W * X) is 'x', not 'W'
// CHECK-NEXT: cublasGemmEx at {{.*}}:{{[0-9]+}}:3 (marked sparse(W)): tlsSpmm needs transa = CUBLAS_OP_T (W row-major M x K, lda = K) and transb = CUBLAS_OP_N (X column-major K x N), as compile-time constants
// CHECK-NEXT: cublasGemmEx at {{.*}}:{{[0-9]+}}:3 (marked sparse(W)): tlsSpmm supports fp16 only (CUDA_R_16F for W, X and Y); 'CUDA_R_16BF' is not
// CHECK-NEXT: cublasGemmEx at {{.*}}:{{[0-9]+}}:3 (marked sparse(W)): tlsSpmm accumulates in fp32; the compute type must be CUBLAS_COMPUTE_32F (or _PEDANTIC, _FAST_16F)
// CHECK-NEXT: cublasGemmEx at {{.*}}:{{[0-9]+}}:3 (marked sparse(W)): tlsSpmm computes Y = W * X without scaling; alpha must be a local constant 1 and beta a local constant 0
// CHECK-NEXT: cublasLtMatmul at {{.*}}:{{[0-9]+}}:3 (marked sparse(W)): only cublasGemmEx calls and GEMM kernel launches are rewritten
// CHECK-NEXT: the launch of 'fill' at {{.*}}:{{[0-9]+}}:3 (marked sparse(W)): kernel 'fill' is not a GEMM
// CHECK-NEXT: the `#pragma cuda_opt sparse(W)` at line [[#DANGLING:]] is not directly above a cublasGemmEx call or a kernel launch (cublasLtMatmul is not rewritten yet)

// BROW: the launch of 'gemm_nn' at {{.*}}:{{[0-9]+}}:3 (marked sparse(B)): the kernel reads B as B[k * N + col]; tlsSpmm needs the weight stored N x K (B[col * K + k])
// NOTB: the launch of 'linear' at {{.*}}:{{[0-9]+}}:3 (marked sparse(x)): 'x' is not the kernel's B operand; tlsSpmm's weight is B stored N x K (B[col * K + k], y = x * W^T)

// NOMARK: no `#pragma cuda_opt sparse(W)` (or weight=W) marks the weight of a cublasGemmEx call in this file

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>

__global__ void fill(__half *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = __float2half(0.0f);
}

void marks(cublasHandle_t h, const __half *W, const __half *x, __half *y,
           int m, int n, int k, float scale) {
  const float one = 1.0f, zero = 0.0f;
#pragma cuda_opt sparse W
  fill<<<1, 1>>>(y, 1);
// The marked name is not the weight operand.
#pragma cuda_opt sparse(W)
  cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, x, CUDA_R_16F, k, W,
               CUDA_R_16F, k, &zero, y, CUDA_R_16F, m, CUBLAS_COMPUTE_32F,
               CUBLAS_GEMM_DEFAULT);
// W column-major (transa = N) is not the encoded layout.
#pragma cuda_opt sparse(W)
  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, W, CUDA_R_16F, m, x,
               CUDA_R_16F, k, &zero, y, CUDA_R_16F, m, CUBLAS_COMPUTE_32F,
               CUBLAS_GEMM_DEFAULT);
#pragma cuda_opt sparse(W)
  cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, W, CUDA_R_16BF, k, x,
               CUDA_R_16BF, k, &zero, y, CUDA_R_16BF, m, CUBLAS_COMPUTE_32F,
               CUBLAS_GEMM_DEFAULT);
#pragma cuda_opt sparse(W)
  cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, W, CUDA_R_16F, k, x,
               CUDA_R_16F, k, &zero, y, CUDA_R_16F, m, CUBLAS_COMPUTE_16F,
               CUBLAS_GEMM_DEFAULT);
#pragma cuda_opt sparse(W)
  cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &scale, W, CUDA_R_16F, k,
               x, CUDA_R_16F, k, &zero, y, CUDA_R_16F, m, CUBLAS_COMPUTE_32F,
               CUBLAS_GEMM_DEFAULT);
}

void lt(cublasLtHandle_t lt, cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t la,
        const __half *W, const __half *x, __half *y, cudaStream_t s) {
  const float one = 1.0f, zero = 0.0f;
#pragma cuda_opt sparse(W)
  cublasLtMatmul(lt, op, &one, W, la, x, la, &zero, y, la, y, la, nullptr,
                 nullptr, 0, s);
#pragma cuda_opt sparse(W)
  fill<<<1, 1>>>(y, 1);
#pragma cuda_opt sparse(W)
  // Nothing is marked here.
}

__global__ void gemm_nn(const __half *A, const __half *B, __half *C, int M,
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

__global__ void linear(const __half *X, const __half *W, __half *Y, int M,
                       int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += __half2float(X[row * K + k]) * __half2float(W[col * K + k]);
    Y[row * N + col] = __float2half(acc);
  }
}

void launches(const __half *B, const __half *x, const __half *W, __half *y,
              int m, int n, int k) {
  dim3 grid((n + 15) / 16, (m + 15) / 16), block(16, 16);
// B is row-major K x N, not the encoded layout.
#pragma cuda_opt sparse(B)
  gemm_nn<<<grid, block>>>(x, B, y, m, n, k);
// The activations, not the weight.
#pragma cuda_opt sparse(x)
  linear<<<grid, block>>>(x, W, y, m, n, k);
}
