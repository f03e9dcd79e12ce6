// RUN: not cuda-opt --passes=gemm-specialize %s -o %t.cu -- -I%S/../../runtime/gemm/include 2>&1 | FileCheck %s
// RUN: not test -e %t.cu

// With CUBLAS_POINTER_MODE_DEVICE anywhere in the file, alpha and beta may
// live on the device, and the rewrite reads them on the host: refused.
// CHECK: cublasGemmEx at {{.*}}gemm-specialize-pointer-mode.cu:{{[0-9]+}}:3: the file sets CUBLAS_POINTER_MODE_DEVICE, so alpha and beta may be device pointers that the host cannot read

#include <cublas_v2.h>
#include <cuda_fp16.h>

__global__ void fill(__half *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = __float2half(0.0f);
}

void linear(cublasHandle_t h, const float *dAlpha, const float *dBeta,
            const __half *x, const __half *W, __half *y, int M, int N, int K) {
  cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
  cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, dAlpha, W, CUDA_R_16F, K,
               x, CUDA_R_16F, K, dBeta, y, CUDA_R_16F, N, CUBLAS_COMPUTE_32F,
               CUBLAS_GEMM_DEFAULT);
}
