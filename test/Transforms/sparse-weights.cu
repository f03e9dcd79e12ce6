// RUN: cuda-opt --passes=sparse-weights %s -o %t.cu -- -I%S/../../runtime/sparse/include
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile -I%S/../../runtime/sparse/include %t.cu

// nn.Linear with a pruned weight: y (N tokens x M) = x (N x K) * W^T, i.e. in
// cuBLAS's column-major terms Y (M x N) = W (row-major M x K, CUBLAS_OP_T) *
// X (K x N, CUBLAS_OP_N): exactly what tlsSpmm computes.

#include <cublas_v2.h>
#include <cuda_fp16.h>

#define CHECK_CUBLAS(x)                                                        \
  do {                                                                         \
    if ((x) != CUBLAS_STATUS_SUCCESS)                                          \
      return 1;                                                                \
  } while (0)

// CHECK: {{^}}#include "TlsSpmm.h"
// CHECK-NEXT: {{^}}#include <cublas_v2.h>
// CHECK: {{^}}#include <vector>
// CHECK: {{^}}static cudaError_t cudaoptSparseSpmm(cudaStream_t Stream,
// CHECK: {{^}} size_t Need = cudaopt::sparse::tlsSpmmWorkspaceBytes(*W, N);
// CHECK: {{^}} return cudaopt::sparse::tlsSpmm(*W, static_cast<const __half *>(X), Ldx, N,
// CHECK: {{^}}static cublasStatus_t
// CHECK-NEXT: {{^}}cudaoptSparseGemm(cublasHandle_t Handle,
// CHECK: {{^}} return cudaoptSparseSpmm(Stream, W, X, Ldx, N, Y, Ldy) == cudaSuccess

// The weight of mlp() is encoded from the device copy on first use.
// CHECK: {{^}}// sparse-weights: Wup of mlp() in the three-layer sparse format,
// CHECK: {{^}}cudaoptSparse_mlp_Wup(const void *Dense, int Rows, int Cols, int Ld) {
// CHECK: {{^}} if (cudaMemcpy2D(Host.data(), Cols * sizeof(uint16_t), Dense,
// CHECK: {{^}} cudaopt::sparse::TlsMatrix Encoded = cudaopt::sparse::encode(
// CHECK: {{^}} if (cudaopt::sparse::tlsUpload(Encoded, Matrix) != cudaSuccess)

// The weight of attn() is read from its .tls file; the kernel's weight of
// ffn() is encoded.
// CHECK: {{^}}// sparse-weights: Wo of attn() in the three-layer sparse format,
// CHECK-NEXT: {{^}}// read from weights/wo.tls the first time it is used.
// CHECK: {{^}}cudaoptSparse_attn_Wo(const void *Dense, int Rows, int Cols, int Ld) {
// CHECK: {{^}} if (!cudaopt::sparse::readTlsFile("weights/wo.tls", Encoded).empty() ||

__global__ void gelu(__half *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = __float2half(__half2float(p[i]) * 0.5f);
}

// CHECK-LABEL: {{^}}int mlp(
int mlp(cublasHandle_t h, const __half *Wup, const __half *x, __half *y,
        int tokens, int hidden, int inter) {
  const float one = 1.0f, zero = 0.0f;
  // CHECK-NOT: cublasGemmEx{{\(}}
  // The weight W (M x K = inter x hidden, lda), X = x (ldb), N = tokens,
  // Y = y (ldc).
  // CHECK: {{^}}#pragma cuda_opt sparse(Wup)
  // CHECK-NEXT: {{^}} CHECK_CUBLAS(
  // CHECK-NEXT: {{^}} cudaoptSparseGemm(h, cudaoptSparse_mlp_Wup(Wup, inter, hidden, hidden), x,
  // CHECK-NEXT: {{^}} hidden, tokens, y, inter));
#pragma cuda_opt sparse(Wup)
  CHECK_CUBLAS(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, inter, tokens, hidden,
                            &one, Wup, CUDA_R_16F, hidden, x, CUDA_R_16F,
                            hidden, &zero, y, CUDA_R_16F, inter,
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  return 0;
}

// A call without the pragma is left alone.
// CHECK-LABEL: {{^}}int attn(
int attn(cublasHandle_t h, const __half *Wo, const __half *Wv, const __half *x,
         __half *y, __half *v, int tokens, int d) {
  float one = 1.0f, zero = 0.0f;
  // CHECK: {{^}} cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, d, tokens, d, &one, Wv,
  cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, d, tokens, d, &one, Wv, CUDA_R_16F,
               d, x, CUDA_R_16F, d, &zero, v, CUDA_R_16F, d,
               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  // CHECK: {{^}} cublasStatus_t st = cudaoptSparseGemm(h, cudaoptSparse_attn_Wo(Wo, d, d, d),
  // CHECK-NEXT: {{^}} v, d, tokens, y, d);
#pragma cuda_opt sparse(Wo, file="weights/wo.tls")
  cublasStatus_t st =
      cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, d, tokens, d, &one, Wo,
                   CUDA_R_16F, d, v, CUDA_R_16F, d, &zero, y, CUDA_R_16F, d,
                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  return st != CUBLAS_STATUS_SUCCESS;
}

// A GEMM kernel computing y = x * W^T (W stored N x K) is, column-major,
// y^T = W * x^T: tlsSpmm with W (N x K), X = x (K x M) and Y = y (N x M).
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

// CHECK-LABEL: {{^}}void ffn(
void ffn(const __half *x, const __half *W2, __half *y, int tokens, int d,
         int inter, cudaStream_t s) {
  dim3 grid((d + 15) / 16, (tokens + 15) / 16), block(16, 16);
  // CHECK-NOT: linear{{<<<}}
  // CHECK: {{^}} cudaoptSparseSpmm(s, cudaoptSparse_ffn_W2(W2, d, inter, inter), x, inter,
  // CHECK-NEXT: {{^}} tokens, y, d);
#pragma cuda_opt sparse(W2)
  linear<<<grid, block, 0, s>>>(x, W2, y, tokens, d, inter);
}
