// The fp32 path of the GEMM runtime (runtime/gemm/lib/Sgemm.cu) must give
// bit for bit what the one-thread-per-output kernel `acc += A * B` gives
// under nvcc's default FMA contraction: gemm-specialize replaces such
// kernels with it. Odd shapes, both B layouts, unaligned rows and pointers,
// batches.
#include "Internal.h"

#include <cstdio>
#include <cstring>
#include <vector>

__global__ void naive(const float *A, long long Lda, const float *B,
                      long long Ldb, bool BRow, float *C, long long Ldc, int M,
                      int N, int K, long long SA, long long SB, long long SC) {
  A += blockIdx.z * SA;
  B += blockIdx.z * SB;
  C += blockIdx.z * SC;
  int Row = blockIdx.y * blockDim.y + threadIdx.y;
  int Col = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row < M && Col < N) {
    float Acc = 0.0f;
    for (int k = 0; k < K; ++k)
      Acc += A[Row * Lda + k] * (BRow ? B[k * Ldb + Col] : B[Col * Ldb + k]);
    C[Row * Ldc + Col] = Acc;
  }
}

static unsigned Seed = 12345;
static float frand() {
  Seed = Seed * 1664525u + 1013904223u;
  return static_cast<float>(Seed >> 8) / 16777216.0f * 2.0f - 1.0f;
}

static bool check(int M, int N, int K, bool BRow, int Pad, int Shift,
                  int Batch) {
  const long long Lda = K + Pad, Ldb = (BRow ? N : K) + Pad, Ldc = N + Pad;
  const long long StrideA = M * Lda, StrideB = (BRow ? K : N) * Ldb,
                  StrideC = M * Ldc;
  const size_t SA = Batch * StrideA + Shift, SB = Batch * StrideB + Shift,
               SC = Batch * StrideC + Shift;
  std::vector<float> HA(SA), HB(SB);
  for (float &V : HA)
    V = frand();
  for (float &V : HB)
    V = frand();
  float *A, *B, *C1, *C2;
  cudaMalloc(&A, SA * 4);
  cudaMalloc(&B, SB * 4);
  cudaMalloc(&C1, SC * 4);
  cudaMalloc(&C2, SC * 4);
  cudaMemcpy(A, HA.data(), SA * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(B, HB.data(), SB * 4, cudaMemcpyHostToDevice);
  cudaMemset(C1, 0, SC * 4);
  cudaMemset(C2, 0, SC * 4);
  dim3 Block(16, 16), Grid((N + 15) / 16, (M + 15) / 16, Batch);
  naive<<<Grid, Block>>>(A + Shift, Lda, B + Shift, Ldb, BRow, C1 + Shift, Ldc,
                         M, N, K, StrideA, StrideB, StrideC);
  cudaoptGemmProblem P{M, N, K, CUDAOPT_GEMM_F32,
                       BRow ? CUDAOPT_GEMM_B_ROW : CUDAOPT_GEMM_B_COL,
                       A + Shift, Lda, B + Shift, Ldb, C2 + Shift, Ldc,
                       1.0f, 0.0f, Batch, StrideA, StrideB, StrideC};
  cudaError_t E = cudaopt::gemm::launchSgemm(P, 0);
  cudaError_t S = cudaDeviceSynchronize();
  std::vector<float> H1(SC), H2(SC);
  cudaMemcpy(H1.data(), C1, SC * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(H2.data(), C2, SC * 4, cudaMemcpyDeviceToHost);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C1);
  cudaFree(C2);
  const bool Same = std::memcmp(H1.data(), H2.data(), SC * 4) == 0;
  std::printf("%dx%dx%d x%d B %s pad %d shift %d: %s\n", M, N, K, Batch,
              BRow ? "row" : "col", Pad, Shift,
              E != cudaSuccess || S != cudaSuccess ? "CUDA error"
              : Same                               ? "identical"
                                                   : "DIFFERENT");
  return E == cudaSuccess && S == cudaSuccess && Same;
}

int main() {
  struct Case {
    int M, N, K, Pad, Shift, Batch;
  } Cases[] = {{1, 1, 1, 0, 0, 1},       {7, 13, 5, 0, 0, 1},
               {128, 128, 8, 0, 0, 1},   {129, 130, 33, 0, 0, 1},
               {256, 192, 1000, 0, 0, 1}, {300, 257, 515, 3, 1, 1},
               {512, 512, 512, 4, 0, 1}, {64, 1024, 64, 0, 2, 1},
               {96, 80, 48, 0, 0, 5},    {33, 65, 17, 1, 1, 3}};
  int Bad = 0;
  for (const Case &C : Cases)
    for (bool BRow : {true, false})
      Bad += !check(C.M, C.N, C.K, BRow, C.Pad, C.Shift, C.Batch);
  std::printf(Bad ? "sgemm exact: %d FAILED\n" : "sgemm exact: all passed\n",
              Bad);
  return Bad != 0;
}
