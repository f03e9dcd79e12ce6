// RUN: cuda-opt --passes='gemm-specialize{f32-cublas=1}' --kernel=sgemm_square %s -o %t.cu -- -I%S/../../runtime/gemm/include
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile -I%S/../../runtime/gemm/include %t.cu
// RUN: cuda-opt --passes='gemm-specialize{f32-cublas=1}' --kernel=sgemm_batched %s -- -I%S/../../runtime/gemm/include | FileCheck %s --check-prefix=BATCH
// RUN: not cuda-opt --fp-model=strict --passes='gemm-specialize{f32-cublas=1}' --kernel=sgemm_square %s -- -I%S/../../runtime/gemm/include 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: not cuda-opt --passes='gemm-specialize{f32-cublas=1}' --kernel=hgemm %s -- -I%S/../../runtime/gemm/include 2>&1 | FileCheck %s --check-prefix=HALF
// lt-algo=k: the problem also names the k-th cuBLASLt candidate.
// RUN: cuda-opt --passes='gemm-specialize{f32-cublas=1,lt-algo=3}' --kernel=sgemm_square %s -o %t.lt.cu -- -I%S/../../runtime/gemm/include
// RUN: FileCheck %s --check-prefix=LT < %t.lt.cu
// RUN: %cuda_compile -I%S/../../runtime/gemm/include %t.lt.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -std=c++17 -I%S/../../runtime/gemm/include -c %t.lt.cu -o %t.lt.o %}
// RUN: cuda-opt --passes='gemm-specialize{f32-cublas=1,lt-algo=8}' --kernel=sgemm_batched %s -- -I%S/../../runtime/gemm/include | FileCheck %s --check-prefix=LTBATCH
// RUN: not cuda-opt --passes='gemm-specialize{lt-algo=2}' --kernel=sgemm_square %s -- -I%S/../../runtime/gemm/include 2>&1 | FileCheck %s --check-prefix=NOREASSOC
// RUN: not cuda-opt --passes='gemm-specialize{f32-cublas=1,lt-algo=9}' --kernel=sgemm_square %s -- -I%S/../../runtime/gemm/include 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not cuda-opt --passes='gemm-specialize{f32-cublas=1,lt-algo=1}' --kernel=hgemm %s -- -I%S/../../runtime/gemm/include 2>&1 | FileCheck %s --check-prefix=HALF

// gemm-specialize{f32-cublas=1}: an fp32 GEMM kernel becomes a cudaoptGemm
// problem that allows reassociation, which the runtime runs with cuBLAS
// SGEMM (runtime/gemm/lib/CublasSgemm.cpp): faster than the exact kernel,
// results differ in the last bits, so --fp-model=strict refuses it. It is
// about fp32 kernels only. lt-algo=k (with f32-cublas=1 only) makes the
// runtime run the k-th cuBLASLt fp32 candidate instead of cublasSgemm; tune
// times each k.

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

// LT: {{^}}// cuda-opt: link with -lcudaopt_gemm -lcublas -lcublasLt
// LT-LABEL: {{^}}void square(
// LT-NOT: sgemm_square{{<<<}}
// LT: {{^}}  cudaoptGemmLaunch(
// LT-NEXT: {{^ +}}0, {/*M=*/n, /*N=*/n, /*K=*/n, CUDAOPT_GEMM_F32,
// LT: /*StrideC=*/0, /*Reassociate=*/1, /*LibraryAlgo=*/3});

// LTBATCH-LABEL: {{^}}void batched(
// LTBATCH: /*Batch=*/batch,
// LTBATCH: {{^ +}}/*StrideC=*/static_cast<long long>(M) * (N),
// LTBATCH-NEXT: {{^ +}}/*Reassociate=*/1, /*LibraryAlgo=*/8});

// NOREASSOC: error: pass 'gemm-specialize{allow-fp16-compute=0,f32-cublas=0,lt-algo=2}' is not legal here:
// NOREASSOC-NEXT: kernel 'sgemm_square': lt-algo=2 picks a cuBLASLt algorithm for the fp32 path that may reassociate; it needs f32-cublas=1
// RANGE: lt-algo
