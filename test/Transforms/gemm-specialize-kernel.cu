// RUN: cuda-opt --passes=gemm-specialize %s -o %t.cu -- -I%S/../../runtime/gemm/include
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile -I%S/../../runtime/gemm/include %t.cu

#include <cuda_bf16.h>
#include <cuda_fp16.h>

// The include and the helper are emitted once, with the file's own includes
// (clang-format sorts the block).
// CHECK: {{^}}#include "cudaopt/gemm.h"
// CHECK-NEXT: {{^}}#include <cuda_bf16.h>
// CHECK-NEXT: {{^}}#include <cuda_fp16.h>
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}// gemm-specialize: runs a problem on a stream where a GEMM kernel was
// CHECK-NEXT: {{^}}// launched; errors also reach cudaGetLastError, as a launch's would.
// CHECK-NEXT: {{^}}static cudaError_t cudaoptGemmLaunch(cudaStream_t Stream,
// CHECK-NEXT: {{^}} cudaoptGemmProblem Problem) {
// CHECK-NEXT: {{^}} return cudaoptGemm(&Problem, nullptr, 0, Stream);
// CHECK-NEXT: {{^}}}
// CHECK-NOT: {{^}}#include "cudaopt/gemm.h"
// CHECK-NOT: {{^}}static cudaError_t cudaoptGemmLaunch(

// The kernels stay (other code may launch them); their launches go.
// CHECK-LABEL: {{^}}__global__ void hgemm(
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

// B stored N x K (the nn.Linear weight), bf16, a scale, an early return.
// CHECK-LABEL: {{^}}__global__ void linear_bf16(
__global__ void linear_bf16(const __nv_bfloat16 *X, const __nv_bfloat16 *W,
                            __nv_bfloat16 *Y, int tokens, int out, int in,
                            float scale) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= tokens || c >= out)
    return;
  float sum = 0.0f;
  for (int k = 0; k < in; ++k)
    sum += __bfloat162float(X[r * in + k]) * __bfloat162float(W[c * in + k]);
  Y[r * out + c] = __float2bfloat16(scale * sum);
}

// The launch's stream is kept; B[k * N + col] is a row-major B (B_ROW).
// CHECK-LABEL: {{^}}void run(
void run(const __half *A, const __half *B, __half *C, int m, int n, int k,
         cudaStream_t s) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (m + 15) / 16);
  // CHECK-NOT: hgemm{{<<<}}
  // CHECK: {{^}} cudaoptGemmLaunch(s,
  // CHECK-NEXT: {{^}} {/*M=*/m, /*N=*/n, /*K=*/k, CUDAOPT_GEMM_F16,
  // CHECK-NEXT: {{^}} CUDAOPT_GEMM_B_ROW, /*A=*/A, /*Lda=*/k, /*B=*/B, /*Ldb=*/n,
  // CHECK-NEXT: {{^}} /*C=*/C, /*Ldc=*/n, /*Alpha=*/1.0f, /*Beta=*/0.0f});
  // CHECK-NEXT: {{^}}}
  hgemm<<<grid, block, 0, s>>>(A, B, C, m, n, k);
}

// W[c * in + k] is B stored N x K (B_COL); the scale is alpha; no stream is
// stream 0.
// CHECK-LABEL: {{^}}void linear(
void linear(const __nv_bfloat16 *x, const __nv_bfloat16 *w, __nv_bfloat16 *y,
            int tokens) {
  const int in = 4096, out = 11008;
  dim3 block(32, 8);
  dim3 grid((out + 31) / 32, (tokens + 7) / 8);
  // CHECK-NOT: linear_bf16{{<<<}}
  // CHECK: {{^}} cudaoptGemmLaunch(0, {/*M=*/tokens, /*N=*/out, /*K=*/in, CUDAOPT_GEMM_BF16,
  // CHECK-NEXT: {{^}} CUDAOPT_GEMM_B_COL, /*A=*/x, /*Lda=*/in, /*B=*/w,
  // CHECK-NEXT: {{^}} /*Ldb=*/in, /*C=*/y, /*Ldc=*/out, /*Alpha=*/0.5f,
  // CHECK-NEXT: {{^}} /*Beta=*/0.0f});
  linear_bf16<<<grid, block>>>(x, w, y, tokens, out, in, 0.5f);
}

// fp32 in and out: the runtime's CUDA-core kernel, which computes the same
// FMA chain over k (CUDAOPT_GEMM_F32); one size parameter for M, N and K.
// CHECK-LABEL: {{^}}__global__ void sgemm_square(
__global__ void sgemm_square(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k)
      sum += A[row * n + k] * B[k * n + col];
    C[row * n + col] = sum;
  }
}

// CHECK-LABEL: {{^}}void square(
void square(const float *A, const float *B, float *C, int n) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (n + 15) / 16);
  // CHECK-NOT: sgemm_square{{<<<}}
  // CHECK: {{^}} cudaoptGemmLaunch(0,
  // CHECK-NEXT: {{^}} {/*M=*/n, /*N=*/n, /*K=*/n, CUDAOPT_GEMM_F32,
  sgemm_square<<<grid, block>>>(A, B, C, n);
}

// Batched (packed): b = blockIdx.z, guarded by b < batch; the batch count and
// the packed strides go into the problem.
// CHECK-LABEL: {{^}}__global__ void sgemm_batched(
__global__ void sgemm_batched(const float *A, const float *B, float *C,
                              int batch, int M, int N, int K) {
  int b = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < batch && row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += A[b * M * K + row * K + k] * B[b * K * N + k * N + col];
    C[b * M * N + row * N + col] = acc;
  }
}

// CHECK-LABEL: {{^}}void batched(
void batched(const float *A, const float *B, float *C) {
  const int batch = 8, M = 256, N = 128, K = 64;
  dim3 block(16, 16);
  dim3 grid(N / 16, M / 16, batch);
  // CHECK-NOT: sgemm_batched{{<<<}}
  // CHECK: CUDAOPT_GEMM_F32,
  // CHECK: /*Batch=*/batch,
  // CHECK-NEXT: /*StrideA=*/static_cast<long long>(M) * (K),
  // CHECK-NEXT: /*StrideB=*/static_cast<long long>(K) * (N),
  // CHECK-NEXT: /*StrideC=*/static_cast<long long>(M) * (N)});
  sgemm_batched<<<grid, block>>>(A, B, C, batch, M, N, K);
}
