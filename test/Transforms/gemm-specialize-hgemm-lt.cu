// RUN: cuda-opt --fp-model=fast --passes='gemm-specialize{allow-fp16-compute=1}' %s -o %t.cu -- -I%S/../../runtime/gemm/include
// fp16 compute lowers the precision: only under --fp-model=fast (docs/fp-model.md).
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile -I%S/../../runtime/gemm/include %t.cu
// RUN: cuda-opt --passes=gemm-specialize %s -o %t.no.cu -- -I%S/../../runtime/gemm/include
// RUN: FileCheck %s --check-prefix=NOOPT < %t.no.cu

// cublasHgemm (fp16 accumulation) and cublasSgemm (fp32 operands, run in
// fp16 with fp32 accumulation) only with allow-fp16-compute=1; the
// cublasLtMatmul call is replaced because its descriptors are built from
// constants in the same function.

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>

// CHECK: {{^}}#include "cudaopt/gemm.h"
// CHECK: {{^}}static cublasStatus_t cudaoptGemmOnHandle(cublasHandle_t Handle,
// CHECK: {{^}}__global__ void cudaoptFloatToHalf(__half *Dst, long long Ldd, const float *Src,
// CHECK: {{^}}__global__ void cudaoptHalfToFloat(float *Dst, long long Ldd, const __half *Src,
// CHECK: {{^}}static cublasStatus_t cudaoptGemmF32OnHandle(cublasHandle_t Handle,
// CHECK: {{^}} cudaError_t Err = cudaoptGemm(&Problem, nullptr, 0, Stream);
// CHECK: {{^}}// gemm-specialize: runs a problem on a stream and reports like the
// CHECK-NEXT: {{^}}// cublasLtMatmul call it replaces.
// CHECK-NEXT: {{^}}static cublasStatus_t cudaoptGemmOnStream(cudaStream_t Stream,
// CHECK-NEXT: {{^}} cudaoptGemmProblem Problem) {
// CHECK-NEXT: {{^}} return cudaoptGemm(&Problem, nullptr, 0, Stream) == cudaSuccess

// Without the opt-in the Hgemm call stays (gemm-specialize-cublas-illegal.cu
// has the reason) and the Lt call is still replaced.
// NOOPT-LABEL: {{^}}void hgemm_nn(
// NOOPT: {{^}} cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, B, n, A, k, &beta,
// NOOPT-LABEL: {{^}}int lt_linear(
// NOOPT: {{^}} cublasStatus_t st = cudaoptGemmOnStream(

__global__ void zero(__half *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = __float2half(0.0f);
}

// CHECK-LABEL: {{^}}void hgemm_nn(
void hgemm_nn(cublasHandle_t h, const __half *A, const __half *B, __half *C,
              int m, int n, int k) {
  __half alpha = __float2half(1.0f), beta = __float2half(0.0f);
  // CHECK: {{^}} cudaoptGemmOnHandle(
  // CHECK-NEXT: {{^}} h, {/*M=*/m, /*N=*/n, /*K=*/k, CUDAOPT_GEMM_F16, CUDAOPT_GEMM_B_ROW,
  // CHECK-NEXT: {{^}} /*A=*/A, /*Lda=*/k, /*B=*/B, /*Ldb=*/n, /*C=*/C, /*Ldc=*/n,
  // CHECK-NEXT: {{^}} /*Alpha=*/__half2float(alpha), /*Beta=*/__half2float(beta)});
  cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, B, n, A, k, &beta,
              C, n);
}

// fp32 through fp16 copies: row-major C = A * B^T with B stored N x K.
// CHECK-LABEL: {{^}}int sgemm_tn(
int sgemm_tn(cublasHandle_t h, const float *A, const float *Bt, float *C,
             int m, int n, int k) {
  const float alpha = 2.0f, beta = 0.0f;
  // CHECK-NOT: cublasSgemm{{\(}}
  // CHECK: {{^}} return cudaoptGemmF32OnHandle(h, {/*M=*/m, /*N=*/n, /*K=*/k, CUDAOPT_GEMM_F16,
  // CHECK-NEXT: {{^}} CUDAOPT_GEMM_B_COL, /*A=*/A, /*Lda=*/k,
  // CHECK-NEXT: {{^}} /*B=*/Bt, /*Ldb=*/k, /*C=*/C, /*Ldc=*/n,
  // CHECK-NEXT: {{^}} /*Alpha=*/alpha, /*Beta=*/beta});
  return cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, Bt, k, A, k,
                     &beta, C, n);
}

// y (M x N) = x (M x K) * W^T, W stored N x K: Lt's A is W with TRANSA = T.
// CHECK-LABEL: {{^}}int lt_linear(
int lt_linear(cublasLtHandle_t lt, const __half *x, const __half *W,
              __half *y, int M, int N, int K, cudaStream_t stream) {
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t ta = CUBLAS_OP_T;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                                 sizeof(ta));
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_16F, K, N, K);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_16F, K, M, K);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_16F, N, M, N);
  float alpha = 1.0f, beta = 0.0f;
  // CHECK-NOT: cublasLtMatmul{{\(}}
  // CHECK: {{^}} cublasStatus_t st = cudaoptGemmOnStream(
  // CHECK-NEXT: {{^}} stream, {/*M=*/M, /*N=*/N, /*K=*/K, CUDAOPT_GEMM_F16, CUDAOPT_GEMM_B_COL,
  // CHECK-NEXT: {{^}} /*A=*/x, /*Lda=*/K, /*B=*/W, /*Ldb=*/K, /*C=*/y, /*Ldc=*/N,
  // CHECK-NEXT: {{^}} /*Alpha=*/alpha, /*Beta=*/beta});
  cublasStatus_t st =
      cublasLtMatmul(lt, op, &alpha, W, la, x, lb, &beta, y, lc, y, lc,
                     nullptr, nullptr, 0, stream);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(op);
  return st != CUBLAS_STATUS_SUCCESS;
}

// Row-major B (K x N) through Lt with default (N, N) operations: Lt's A is B
// (N x K column-major), k is the column count of A's layout.
// CHECK-LABEL: {{^}}int lt_nn(
int lt_nn(cublasLtHandle_t lt, const __half *A, const __half *B, __half *C,
          int M, int N, int K, cudaStream_t stream) {
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F_FAST_16F, CUDA_R_32F);
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_16F, N, K, N);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_16F, K, M, K);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_16F, N, M, N);
  float alpha = 1.0f, beta = 1.0f;
  // CHECK: {{^}} return cudaoptGemmOnStream(
  // CHECK-NEXT: {{^}} stream, {/*M=*/M, /*N=*/N, /*K=*/K, CUDAOPT_GEMM_F16, CUDAOPT_GEMM_B_ROW,
  // CHECK-NEXT: {{^}} /*A=*/A, /*Lda=*/K, /*B=*/B, /*Ldb=*/N, /*C=*/C, /*Ldc=*/N,
  // CHECK-NEXT: {{^}} /*Alpha=*/alpha, /*Beta=*/beta});
  return cublasLtMatmul(lt, op, &alpha, B, la, A, lb, &beta, C, lc, C, lc,
                        nullptr, nullptr, 0, stream);
}
