//===- Fallback.cu - portable fallback GEMM --------------------*- CUDA -*-===//
//
// A plain shared-memory tiled kernel with fp32 accumulation: any alignment,
// any leading dimension, any GPU. Correct, not fast; the dispatcher uses it
// only when no sm_90a configuration can run the problem.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace cudaopt::gemm {
namespace {

constexpr int Tile = 32;

template <typename T>
__global__ void fallbackKernel(int M, int N, int K, const T *A, long long Lda,
                               const T *B, long long Ldb, bool BRow, T *C,
                               long long Ldc, float Alpha, float Beta) {
  __shared__ float SA[Tile][Tile + 1];
  __shared__ float SB[Tile][Tile + 1];
  const int Tx = threadIdx.x, Ty = threadIdx.y; // 32 x 8 threads
  const int Row0 = blockIdx.y * Tile, Col0 = blockIdx.x * Tile;
  float Acc[Tile / 8] = {};
  for (int K0 = 0; K0 < K; K0 += Tile) {
    for (int R = Ty; R < Tile; R += 8) {
      int M1 = Row0 + R, K1 = K0 + Tx;
      SA[R][Tx] =
          (M1 < M && K1 < K) ? static_cast<float>(A[M1 * Lda + K1]) : 0.0f;
      int K2 = K0 + R, N2 = Col0 + Tx;
      float Bv = 0.0f;
      if (K2 < K && N2 < N)
        Bv = static_cast<float>(BRow ? B[K2 * Ldb + N2] : B[N2 * Ldb + K2]);
      SB[R][Tx] = Bv;
    }
    __syncthreads();
    for (int Kk = 0; Kk < Tile; ++Kk)
#pragma unroll
      for (int I = 0; I < Tile / 8; ++I)
        Acc[I] += SA[Ty + I * 8][Kk] * SB[Kk][Tx];
    __syncthreads();
  }
#pragma unroll
  for (int I = 0; I < Tile / 8; ++I) {
    int Row = Row0 + Ty + I * 8, Col = Col0 + Tx;
    if (Row >= M || Col >= N)
      continue;
    float V = Alpha * Acc[I];
    if (Beta != 0.0f)
      V += Beta * static_cast<float>(C[Row * Ldc + Col]);
    C[Row * Ldc + Col] = static_cast<T>(V);
  }
}

} // namespace

cudaError_t launchFallback(const cudaoptGemmProblem &P, cudaStream_t Stream) {
  if (P.Type == CUDAOPT_GEMM_F32)
    return P.Reassociate ? launchCublasSgemm(P, Stream)
                         : launchSgemm(P, Stream);
  dim3 Grid((P.N + Tile - 1) / Tile, (P.M + Tile - 1) / Tile);
  dim3 Block(Tile, 8);
  const bool Row = P.LayoutB == CUDAOPT_GEMM_B_ROW;
  if (P.Type == CUDAOPT_GEMM_BF16)
    fallbackKernel<__nv_bfloat16><<<Grid, Block, 0, Stream>>>(
        P.M, P.N, P.K, static_cast<const __nv_bfloat16 *>(P.A), P.Lda,
        static_cast<const __nv_bfloat16 *>(P.B), P.Ldb, Row,
        static_cast<__nv_bfloat16 *>(P.C), P.Ldc, P.Alpha, P.Beta);
  else
    fallbackKernel<__half><<<Grid, Block, 0, Stream>>>(
        P.M, P.N, P.K, static_cast<const __half *>(P.A), P.Lda,
        static_cast<const __half *>(P.B), P.Ldb, Row,
        static_cast<__half *>(P.C), P.Ldc, P.Alpha, P.Beta);
  return cudaGetLastError();
}

} // namespace cudaopt::gemm
