// RUN: cuda-opt --passes=gemm-specialize %s -o %t.cu -- -I%S/../../runtime/gemm/include
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile -I%S/../../runtime/gemm/include %t.cu

// cudaoptGemmProblem holds int extents, long long leading dimensions and
// float scales, and a braced initialiser rejects narrowing: size_t, unsigned
// and double operands are cast, int and float ones are not.

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <stddef.h>

__global__ void hgemm(const __half *A, const __half *B, __half *C, size_t M,
                      size_t N, size_t K, double scale) {
  size_t row = blockIdx.y * blockDim.y + threadIdx.y;
  size_t col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (size_t k = 0; k < K; ++k)
      acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = __float2half(scale * acc);
  }
}

// CHECK-LABEL: {{^}}void run(
void run(const __half *A, const __half *B, __half *C, size_t m, size_t n,
         size_t k, double s) {
  // CHECK: {{^}} cudaoptGemmLaunch(
  // CHECK-NEXT: {{^}} 0, {/*M=*/static_cast<int>(m), /*N=*/static_cast<int>(n),
  // CHECK-NEXT: {{^}} /*K=*/static_cast<int>(k), CUDAOPT_GEMM_F16, CUDAOPT_GEMM_B_ROW,
  // CHECK-NEXT: {{^}} /*A=*/A, /*Lda=*/static_cast<int>(k), /*B=*/B,
  // CHECK-NEXT: {{^}} /*Ldb=*/static_cast<int>(n), /*C=*/C, /*Ldc=*/static_cast<int>(n),
  // CHECK-NEXT: {{^}} /*Alpha=*/static_cast<float>(s), /*Beta=*/0.0f});
  hgemm<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(A, B, C, m, n,
                                                              k, s);
}

// CHECK-LABEL: {{^}}void linear(
void linear(cublasHandle_t h, const __half *x, const __half *W, __half *y,
            unsigned tokens, int out, size_t in) {
  float one = 1.0f, zero = 0.0f;
  // CHECK: {{^}} cudaoptGemmOnHandle(h, {/*M=*/static_cast<int>(tokens), /*N=*/out,
  // CHECK-NEXT: {{^}} /*K=*/static_cast<int>(in), CUDAOPT_GEMM_F16,
  // CHECK-NEXT: {{^}} CUDAOPT_GEMM_B_COL, /*A=*/x,
  // CHECK-NEXT: {{^}} /*Lda=*/static_cast<long long>(in), /*B=*/W,
  // CHECK-NEXT: {{^}} /*Ldb=*/static_cast<long long>(in), /*C=*/y,
  // CHECK-NEXT: {{^}} /*Ldc=*/out, /*Alpha=*/one, /*Beta=*/zero});
  cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, out, tokens, in, &one, W,
               CUDA_R_16F, in, x, CUDA_R_16F, in, &zero, y, CUDA_R_16F, out,
               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
