// RUN: not cuda-opt --passes=gemm-specialize %s -o %t.cu -- -I%S/../../runtime/gemm/include 2>&1 | FileCheck %s
// RUN: not test -e %t.cu

// Every call is refused, each for its own reason, listed in source order.
// CHECK: error: pass 'gemm-specialize{allow-fp16-compute=0,f32-cublas=0,lt-algo=0}' is not legal here:
// CHECK-NEXT: kernel 'fill': kernel 'fill' is not a GEMM
// CHECK-NEXT: cublasGemmEx at {{.*}}:{{[0-9]+}}:3: transb is not CUBLAS_OP_N, so the row-major view of the result needs a column-major A, which cudaoptGemm does not take
// CHECK-NEXT: cublasGemmEx at {{.*}}:{{[0-9]+}}:3: Atype is not CUDA_R_16F or CUDA_R_16BF like the other operands; cudaoptGemm needs A, B and C all fp16 or all bf16
// CHECK-NEXT: cublasGemmEx at {{.*}}:{{[0-9]+}}:3: the compute type accumulates in fp16; cudaoptGemm accumulates in fp32, which changes the results (give allow-fp16-compute=1 to accept that)
// CHECK-NEXT: cublasGemmEx at {{.*}}:{{[0-9]+}}:3: transa and transb must be compile-time constants
// CHECK-NEXT: cublasHgemm at {{.*}}:{{[0-9]+}}:3: cublasHgemm accumulates in fp16; cudaoptGemm accumulates in fp32, which changes the results (give allow-fp16-compute=1 to accept that)
// CHECK-NEXT: cublasSgemm at {{.*}}:{{[0-9]+}}:3: fp32 operands: cudaoptGemm's fp32 path is a CUDA-core kernel for naive fp32 GEMM kernels, not a replacement for cuBLAS's own SGEMM; TF32 or fp16 would change precision (give allow-fp16-compute=1 to run it in fp16 with fp32 accumulation, as CUBLAS_COMPUTE_32F_FAST_16F allows, with an fp16-rounded result)
// CHECK-NEXT: cublasLtMatmul at {{.*}}:{{[0-9]+}}:3: the layout 'la' is not a local variable of the calling function, so its settings are not visible
// CHECK-NEXT: cublasLtMatmul at {{.*}}:{{[0-9]+}}:3: layout 'lb' sets CUBLASLT_MATRIX_LAYOUT_ORDER (row-major order, batching or an offset), which is not mapped; only default column-major layouts are
// CHECK-NEXT: cublasLtMatmul at {{.*}}:{{[0-9]+}}:3: the matmul descriptor sets CUBLASLT_MATMUL_DESC_EPILOGUE, which cudaoptGemm does not model

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>

__global__ void fill(__half *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = __float2half(0.0f);
}

// Row-major C = A * B with both ops transposed would need a column-major A.
void nt(cublasHandle_t h, const __half *A, const __half *B, __half *C, int m,
        int n, int k) {
  float one = 1.0f, zero = 0.0f;
  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, n, m, k, &one, B, CUDA_R_16F, n, A,
               CUDA_R_16F, m, &zero, C, CUDA_R_16F, n, CUBLAS_COMPUTE_32F,
               CUBLAS_GEMM_DEFAULT);
}

void fp32(cublasHandle_t h, const float *A, const float *B, float *C, int m,
          int n, int k) {
  float one = 1.0f, zero = 0.0f;
  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, CUDA_R_32F, n, A,
               CUDA_R_32F, k, &zero, C, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
               CUBLAS_GEMM_DEFAULT);
}

void fp16_compute(cublasHandle_t h, const __half *A, const __half *B,
                  __half *C, int m, int n, int k) {
  __half one = __float2half(1.0f), zero = __float2half(0.0f);
  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, CUDA_R_16F, n, A,
               CUDA_R_16F, k, &zero, C, CUDA_R_16F, n, CUBLAS_COMPUTE_16F,
               CUBLAS_GEMM_DEFAULT);
}

void runtime_op(cublasHandle_t h, cublasOperation_t opB, const __half *A,
                const __half *B, __half *C, int m, int n, int k) {
  float one = 1.0f, zero = 0.0f;
  cublasGemmEx(h, opB, CUBLAS_OP_N, n, m, k, &one, B, CUDA_R_16F, n, A,
               CUDA_R_16F, k, &zero, C, CUDA_R_16F, n, CUBLAS_COMPUTE_32F,
               CUBLAS_GEMM_DEFAULT);
}

void hgemm(cublasHandle_t h, const __half *A, const __half *B, __half *C, int m,
           int n, int k) {
  __half one = __float2half(1.0f), zero = __float2half(0.0f);
  cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C,
              n);
}

void sgemm(cublasHandle_t h, const float *A, const float *B, float *C, int m,
           int n, int k) {
  float one = 1.0f, zero = 0.0f;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C,
              n);
}

// The layout of A is made elsewhere.
void lt_param_layout(cublasLtHandle_t lt, cublasLtMatrixLayout_t la,
                     const __half *A, const __half *B, __half *C, int m,
                     int n, int k, cudaStream_t s) {
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatrixLayout_t lb, lc;
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_16F, k, n, k);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_16F, m, n, m);
  float one = 1.0f, zero = 0.0f;
  cublasLtMatmul(lt, op, &one, A, la, B, lb, &zero, C, lc, C, lc, nullptr,
                 nullptr, 0, s);
}

// A row-major layout order is not mapped.
void lt_row_order(cublasLtHandle_t lt, const __half *A, const __half *B,
                  __half *C, int m, int n, int k, cudaStream_t s) {
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_16F, m, k, m);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_16F, k, n, k);
  cublasLtOrder_t row = CUBLASLT_ORDER_ROW;
  cublasLtMatrixLayoutSetAttribute(lb, CUBLASLT_MATRIX_LAYOUT_ORDER, &row,
                                   sizeof(row));
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_16F, m, n, m);
  float one = 1.0f, zero = 0.0f;
  cublasLtMatmul(lt, op, &one, A, la, B, lb, &zero, C, lc, C, lc, nullptr,
                 nullptr, 0, s);
}

// A fused ReLU epilogue.
void lt_relu(cublasLtHandle_t lt, const __half *A, const __half *B, __half *C,
             int m, int n, int k, cudaStream_t s) {
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_RELU;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi,
                                 sizeof(epi));
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_16F, m, k, m);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_16F, k, n, k);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_16F, m, n, m);
  float one = 1.0f, zero = 0.0f;
  cublasLtMatmul(lt, op, &one, A, la, B, lb, &zero, C, lc, C, lc, nullptr,
                 nullptr, 0, s);
}
