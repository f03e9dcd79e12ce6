// --fp-model bounds what rewrites may do to floating-point results
// (docs/fp-model.md): gemm-specialize sums in the library's order, so strict
// refuses it, and a kernel can pin itself to strict with a pragma.
// RUN: cuda-opt --passes=gemm-specialize --kernel=gemm %s -o %t.cu -- -I%S/../../runtime/gemm/include
// RUN: FileCheck %s --check-prefix=REASSOC --input-file=%t.cu
// RUN: not cuda-opt --fp-model=strict --passes=gemm-specialize --kernel=gemm %s -o %t.strict.cu -- -I%S/../../runtime/gemm/include 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: not cuda-opt --passes=gemm-specialize --kernel=pinned %s -o %t.pinned.cu -- -I%S/../../runtime/gemm/include 2>&1 | FileCheck %s --check-prefix=PINNED
// RUN: not cuda-opt --passes=gemm-specialize --kernel=typo %s -o %t.typo.cu -- -I%S/../../runtime/gemm/include 2>&1 | FileCheck %s --check-prefix=TYPO
// RUN: not cuda-opt --fp-model=exact --passes=launch-bounds %s 2>&1 | FileCheck %s --check-prefix=BADVALUE
// RUN: cuda-opt --fp-model=strict --passes=launch-bounds --kernel=gemm %s -o %t.lb.cu -- -I%S/../../runtime/gemm/include
// RUN: FileCheck %s --check-prefix=PRESERVES --input-file=%t.lb.cu

// REASSOC: {{^}}// cuda-opt --fp-model=reassoc: gemm-specialize{allow-fp16-compute=0,f32-cublas=0,lt-algo=0} on 'gemm' reorders floating-point sums; results may differ in the last bits
// STRICT: the rewrite reorders floating-point reductions, which --fp-model=strict does not allow for kernel 'gemm' (needs --fp-model=reassoc)
// PINNED: the rewrite reorders floating-point reductions, which --fp-model=strict does not allow for kernel 'pinned'
// TYPO: kernel 'typo': line [[#@LINE+33]]: expected `#pragma cuda_opt fp_model(strict)`, `fp_model(reassoc)` or `fp_model(fast)`
// BADVALUE: Cannot find option named 'exact'
// Rewrites that keep every operation add no header line.
// PRESERVES-NOT: {{^}}// cuda-opt --fp-model
// PRESERVES: __launch_bounds__

#include <cuda_fp16.h>

__global__ void gemm(const __half *A, const __half *B, __half *C, int M, int N,
                     int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = __float2half(acc);
  }
}

#pragma cuda_opt fp_model(strict)
__global__ void pinned(const __half *A, const __half *B, __half *C, int M,
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

#pragma cuda_opt fp_model(exact)
__global__ void typo(const __half *A, const __half *B, __half *C, int M, int N,
                     int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = __float2half(acc);
  }
}

void run(const __half *A, const __half *B, __half *C, int M, int N, int K) {
  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  gemm<<<grid, block>>>(A, B, C, M, N, K);
  pinned<<<grid, block>>>(A, B, C, M, N, K);
  typo<<<grid, block>>>(A, B, C, M, N, K);
}
