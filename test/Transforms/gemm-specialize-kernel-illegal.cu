// RUN: not cuda-opt --passes=gemm-specialize --kernel=dgemm %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=FP64
// RUN: not cuda-opt --passes=gemm-specialize --kernel=half_acc %s 2>&1 | FileCheck %s --check-prefix=HACC
// RUN: not cuda-opt --passes=gemm-specialize --kernel=relu_epilogue %s 2>&1 | FileCheck %s --check-prefix=EPI
// RUN: not cuda-opt --passes=gemm-specialize --kernel=bias %s 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not cuda-opt --passes=gemm-specialize --kernel=a_colmajor %s 2>&1 | FileCheck %s --check-prefix=ALAYOUT
// RUN: not cuda-opt --passes=gemm-specialize --kernel=b_strided %s 2>&1 | FileCheck %s --check-prefix=BLAYOUT
// RUN: not cuda-opt --passes=gemm-specialize --kernel=tiled %s 2>&1 | FileCheck %s --check-prefix=TILED
// RUN: not cuda-opt --passes=gemm-specialize --kernel=unguarded %s 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not cuda-opt --passes=gemm-specialize --kernel=scale %s 2>&1 | FileCheck %s --check-prefix=NOTGEMM
// RUN: not cuda-opt --passes=gemm-specialize --kernel=hgemm %s 2>&1 | FileCheck %s --check-prefix=LAUNCH
// RUN: not cuda-opt --passes=gemm-specialize --kernel=cond_acc %s 2>&1 | FileCheck %s --check-prefix=COND
// RUN: not cuda-opt --passes=gemm-specialize --kernel=flagged %s 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not cuda-opt --passes=gemm-specialize --kernel=early_break %s 2>&1 | FileCheck %s --check-prefix=BREAK
// RUN: not cuda-opt --passes=gemm-specialize --kernel=batch_shared_b %s 2>&1 | FileCheck %s --check-prefix=BSTRIDE
// RUN: not cuda-opt --passes=gemm-specialize --kernel=batch_unguarded %s 2>&1 | FileCheck %s --check-prefix=BGUARD
// RUN: not cuda-opt --passes=gemm-specialize --kernel=batch_short %s 2>&1 | FileCheck %s --check-prefix=BSHORT
// RUN: not test -e %t.cu

// FP64: error: pass 'gemm-specialize{allow-fp16-compute=0,f32-cublas=0,lt-algo=0}' is not legal here:
// FP64-NEXT: kernel 'dgemm': kernel 'dgemm' is an fp64 GEMM; the tuned family is fp16, bf16 and fp32 only
// HACC: kernel 'half_acc' accumulates in '__half'; cudaoptGemm accumulates in fp32, which would change the results
// EPI: kernel 'relu_epilogue' stores `__float2half(acc > 0.0f ? acc : 0.0f)` at {{.*}}, not the accumulator (or a scalar parameter times it); an epilogue such as a bias, an activation or beta * C has no equivalent in cudaoptGemm
// EXTRA: kernel 'bias' does extra work: it makes 4 memory accesses (A[row * K + k], B[k * N + col], C[row * N + col], bias[col]), not just the loads of A and B and the store of C
// ALAYOUT: kernel 'a_colmajor' reads neither factor as A[row * K + k] (A[k * M + row], B[k * N + col]): A is not provably row-major M x K
// BLAYOUT: kernel 'b_strided' reads B as 'B[k * ldb + col]', neither B[k * N + col] nor B[col * K + k]: the layout of B is unknown
// TILED: kernel 'tiled' stages its operands through __shared__ memory; the layout proof covers only a GEMM that reads A and B directly from global memory
// GUARD: kernel 'unguarded' has no guard `row < M && col < N` (or an early `if (row >= M || col >= N) return;`) around the store of C, so the extent of C is unknown
// NOTGEMM: kernel 'scale' is not a GEMM ({{.*}}), and the file has no cublasGemmEx, cublasHgemm, cublasSgemm or cublasLtMatmul call
// COND: kernel 'cond_acc' accumulates under a condition (IfStmt in the k loop)
// FLAG: kernel 'flagged' stores C under a condition other than `row < M && col < N` (at {{.*}})
// BREAK: kernel 'early_break' has a return, break, continue or goto other than an early `if (row >= M || col >= N) return;`
// BSTRIDE: kernel 'batch_shared_b''s batch strides (A: K*M, B: 0{{.*}}) are not the packed M * K, K * N and M * N
// BGUARD: kernel 'batch_unguarded' has no guard `b < batch` on its batch index, so the number of batches is unknown
// BSHORT: the launch at {{.*}} covers 2 of the 4 batches; cudaoptGemm would compute all of them
// LAUNCH: the launch at {{.*}}gemm-specialize-kernel-illegal.cu:{{[0-9]+}}:3 covers 64 x 64 outputs of the 128 x 128 C; cudaoptGemm would compute all of C
// LAUNCH-NEXT: argument 'n++' of the launch at {{.*}} has side effects; the rewrite would repeat it
// LAUNCH-NEXT: the call at {{.*}} is written inside a macro

#include <cuda_fp16.h>

__global__ void dgemm(const double *A, const double *B, double *C, int M,
                      int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    double acc = 0.0;
    for (int k = 0; k < K; ++k)
      acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

__global__ void half_acc(const __half *A, const __half *B, __half *C, int M,
                         int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    __half acc = __float2half(0.0f);
    for (int k = 0; k < K; ++k)
      acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

__global__ void relu_epilogue(const __half *A, const __half *B, __half *C,
                              int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = __float2half(acc > 0.0f ? acc : 0.0f);
  }
}

__global__ void bias(const __half *A, const __half *B, const float *bias,
                     __half *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = __float2half(acc + bias[col]);
  }
}

__global__ void a_colmajor(const __half *A, const __half *B, __half *C, int M,
                           int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += __half2float(A[k * M + row]) * __half2float(B[k * N + col]);
    C[row * N + col] = __float2half(acc);
  }
}

__global__ void b_strided(const __half *A, const __half *B, __half *C, int M,
                          int N, int K, int ldb) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += __half2float(A[row * K + k]) * __half2float(B[k * ldb + col]);
    C[row * N + col] = __float2half(acc);
  }
}

#define TILE 16
__global__ void tiled(const __half *A, const __half *B, __half *C, int M,
                      int N, int K) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < K; t += TILE) {
    As[threadIdx.y][threadIdx.x] = __half2float(A[row * K + t + threadIdx.x]);
    Bs[threadIdx.y][threadIdx.x] = __half2float(B[(t + threadIdx.y) * N + col]);
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = __float2half(acc);
}

__global__ void unguarded(const __half *A, const __half *B, __half *C, int N,
                          int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
  C[row * N + col] = __float2half(acc);
}

__global__ void cond_acc(const __half *A, const __half *B, __half *C, int M,
                         int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      if (k % 2 == 0)
        acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = __float2half(acc);
  }
}

__global__ void flagged(const __half *A, const __half *B, __half *C, int M,
                        int N, int K, bool enabled) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N && enabled) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = __float2half(acc);
  }
}

__global__ void early_break(const __half *A, const __half *B, __half *C, int M,
                            int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N)
    return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) {
    if (acc > 1e4f)
      break;
    acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
  }
  C[row * N + col] = __float2half(acc);
}

__global__ void scale(__half *p, __half s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = __hmul(p[i], s);
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

#define LAUNCH_HGEMM(A, B, C, m, n, k)                                         \
  hgemm<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(A, B, C, m, n, k)

void launches(const __half *A, const __half *B, __half *C, int m, int n,
              int k) {
  // This launch alone would be fine; a kernel's launches are all rewritten
  // or none is.
  hgemm<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(A, B, C, m, n, k);
  // Only a quarter of the 128 x 128 output is computed.
  const int M = 128, N = 128;
  hgemm<<<dim3(4, 4), dim3(16, 16)>>>(A, B, C, M, N, k);
  hgemm<<<dim3(8, 8), dim3(16, 16)>>>(A, B, C, m, n++, k);
  LAUNCH_HGEMM(A, B, C, m, n, k);
}

// One B for every batch: not the packed layout cudaoptGemm's batches use.
__global__ void batch_shared_b(const float *A, const float *B, float *C,
                               int batch, int M, int N, int K) {
  int b = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < batch && row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += A[b * M * K + row * K + k] * B[k * N + col];
    C[b * M * N + row * N + col] = acc;
  }
}

__global__ void batch_unguarded(const float *A, const float *B, float *C,
                                int M, int N, int K) {
  int b = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += A[b * M * K + row * K + k] * B[b * K * N + k * N + col];
    C[b * M * N + row * N + col] = acc;
  }
}

__global__ void batch_short(const float *A, const float *B, float *C,
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

void launch_batches(const float *A, const float *B, float *C) {
  batch_unguarded<<<dim3(4, 4, 2), dim3(16, 16)>>>(A, B, C, 64, 64, 64);
  batch_short<<<dim3(4, 4, 2), dim3(16, 16)>>>(A, B, C, 4, 64, 64, 64);
}
