// RUN: cuda-opt --passes='gemm-specialize{f32-cublas=1}' --kernel=sgemm_square %s -o %t.cu -- -I%S/../../runtime/gemm/include
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile -I%S/../../runtime/gemm/include %t.cu
// RUN: cuda-opt --passes='gemm-specialize{f32-cublas=1}' --kernel=sgemm_batched %s -- -I%S/../../runtime/gemm/include | FileCheck %s --check-prefix=BATCH
// RUN: not cuda-opt --fp-model=strict --passes='gemm-specialize{f32-cublas=1}' --kernel=sgemm_square %s -- -I%S/../../runtime/gemm/include 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: not cuda-opt --passes='gemm-specialize{f32-cublas=1}' --kernel=hgemm %s -- -I%S/../../runtime/gemm/include 2>&1 | FileCheck %s --check-prefix=HALF

// gemm-specialize{f32-cublas=1}: an fp32 GEMM kernel becomes a cudaoptGemm
// problem that allows reassociation, which the runtime runs with cuBLAS
// SGEMM (runtime/gemm/lib/CublasSgemm.cpp): faster than the exact kernel,
// results differ in the last bits, so --fp-model=strict refuses it. It is
// about fp32 kernels only.

#include <cuda_fp16.h>

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

void square(const float *A, const float *B, float *C, int n) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (n + 15) / 16);
  sgemm_square<<<grid, block>>>(A, B, C, n);
}

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

void batched(const float *A, const float *B, float *C) {
  const int batch = 8, M = 256, N = 128, K = 64;
  dim3 block(16, 16);
  dim3 grid(N / 16, M / 16, batch);
  sgemm_batched<<<grid, block>>>(A, B, C, batch, M, N, K);
}

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

void half_gemm(const __half *A, const __half *B, __half *C, int M, int N,
               int K) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  hgemm<<<grid, block>>>(A, B, C, M, N, K);
}

// STRICT: the rewrite reorders floating-point reductions, which --fp-model=strict does not allow
// HALF: f32-cublas=1 applies to fp32 GEMM kernels; kernel 'hgemm' is fp16/bf16

// CHECK-LABEL: {{^}}void square(
// CHECK-NOT: sgemm_square{{<<<}}
// CHECK: {{^}}  cudaoptGemmLaunch(0, {/*M=*/n, /*N=*/n, /*K=*/n, CUDAOPT_GEMM_F32,
// CHECK: {{^ +}}/*Beta=*/0.0f, /*Batch=*/1, /*StrideA=*/0,
// CHECK-NEXT: {{^ +}}/*StrideB=*/0, /*StrideC=*/0, /*Reassociate=*/1});

// BATCH-LABEL: {{^}}void batched(
// BATCH: {{^ +}}/*Alpha=*/1.0f, /*Beta=*/0.0f, /*Batch=*/batch,
// BATCH: {{^ +}}/*StrideC=*/static_cast<long long>(M) * (N), /*Reassociate=*/1});
