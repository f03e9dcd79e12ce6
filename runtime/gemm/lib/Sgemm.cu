//===- Sgemm.cu - exact fp32 GEMM on the CUDA cores ------------*- CUDA -*-===//
//
// CUDAOPT_GEMM_F32 problems: fp32 in, fp32 out, fp32 FFMA on the CUDA cores
// (no tensor cores: TF32 or fp16 would change the results). Every output is
// accumulated as acc = fma(A[m][k], B[k][n], acc) for k = 0, 1, ..., K-1,
// which is exactly what the one-thread-per-output kernel `acc += A * B`
// computes under nvcc's default FMA contraction, so gemm-specialize can
// replace such a kernel with results that are bit for bit the same.
//
// A 128 x 128 output tile per CTA of 256 threads, 8 x 8 outputs per thread
// (two 4 x 4 quadrants 64 rows / 64 columns apart, so the shared-memory
// reads are float4 and conflict-free), K in steps of 8 through two shared
// buffers; the next step's global loads are in registers while the current
// one is computed. Vector (float4) global loads when rows are 16-byte
// aligned, scalar ones otherwise; out-of-range elements load as zero, which
// leaves the accumulators unchanged.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cstdint>

namespace cudaopt::gemm {
namespace {

constexpr int BM = 128, BN = 128, BK = 8, Threads = 256;

/// Loads four consecutive elements Base[0..3] (zero where Valid is false),
/// as one float4 when Vec (the caller guarantees 16-byte alignment and that
/// the four are all valid or all invalid).
template <bool Vec>
__device__ __forceinline__ float4 load4(const float *Base, int Valid) {
  if (Vec)
    return Valid == 4 ? *reinterpret_cast<const float4 *>(Base)
                      : make_float4(0.f, 0.f, 0.f, 0.f);
  float4 V;
  V.x = Valid > 0 ? Base[0] : 0.f;
  V.y = Valid > 1 ? Base[1] : 0.f;
  V.z = Valid > 2 ? Base[2] : 0.f;
  V.w = Valid > 3 ? Base[3] : 0.f;
  return V;
}

/// How many of the four elements starting at index I are below Limit.
__device__ __forceinline__ int validOf(long long I, long long Limit) {
  long long Left = Limit - I;
  return Left <= 0 ? 0 : Left >= 4 ? 4 : static_cast<int>(Left);
}

/// Global loads of one K step: A's 128 x 8 slice (thread t: row t / 2,
/// k = 4 * (t % 2) .. +3) and B's 8 x 128 slice (row layout: k = t / 32,
/// n = 4 * (t % 32) .. +3; column layout: n = t / 2, k = 4 * (t % 2) .. +3).
template <bool Vec, bool BRow>
__device__ __forceinline__ void loadStep(const float *A, long long Lda,
                                         const float *B, long long Ldb, int M,
                                         int N, int K, int Row0, int Col0,
                                         int K0, float4 &RA, float4 &RB) {
  const int T = threadIdx.x;
  {
    const int R = Row0 + T / 2, Kk = K0 + 4 * (T % 2);
    RA = load4<Vec>(A + static_cast<long long>(R) * Lda + Kk,
                    R < M ? validOf(Kk, K) : 0);
  }
  if (BRow) {
    const int Kk = K0 + T / 32, C = Col0 + 4 * (T % 32);
    RB = load4<Vec>(B + static_cast<long long>(Kk) * Ldb + C,
                    Kk < K ? validOf(C, N) : 0);
  } else {
    const int C = Col0 + T / 2, Kk = K0 + 4 * (T % 2);
    RB = load4<Vec>(B + static_cast<long long>(C) * Ldb + Kk,
                    C < N ? validOf(Kk, K) : 0);
  }
}

/// Shared stores of one K step: both slices k-major (SA[k][m], SB[k][n]).
template <bool BRow>
__device__ __forceinline__ void storeStep(float (*SA)[BM], float (*SB)[BN],
                                          const float4 &RA, const float4 &RB) {
  const int T = threadIdx.x;
  {
    const int R = T / 2, Kk = 4 * (T % 2);
    SA[Kk + 0][R] = RA.x;
    SA[Kk + 1][R] = RA.y;
    SA[Kk + 2][R] = RA.z;
    SA[Kk + 3][R] = RA.w;
  }
  if (BRow) {
    *reinterpret_cast<float4 *>(&SB[T / 32][4 * (T % 32)]) = RB;
  } else {
    const int C = T / 2, Kk = 4 * (T % 2);
    SB[Kk + 0][C] = RB.x;
    SB[Kk + 1][C] = RB.y;
    SB[Kk + 2][C] = RB.z;
    SB[Kk + 3][C] = RB.w;
  }
}

template <bool Vec, bool BRow>
__global__ void __launch_bounds__(Threads, 2)
    sgemmKernel(int M, int N, int K, const float *__restrict__ A,
                long long Lda, const float *__restrict__ B, long long Ldb,
                float *__restrict__ C, long long Ldc, float Alpha, float Beta,
                long long StrideA, long long StrideB, long long StrideC) {
  // Batched: problem blockIdx.z.
  A += blockIdx.z * StrideA;
  B += blockIdx.z * StrideB;
  C += blockIdx.z * StrideC;
  __shared__ __align__(16) float SA[2][BK][BM];
  __shared__ __align__(16) float SB[2][BK][BN];
  const int Row0 = blockIdx.y * BM, Col0 = blockIdx.x * BN;
  // Thread (Ty, Tx) of a 16 x 16 grid owns rows Ty*4 + {0..3} and 64 + the
  // same, columns Tx*4 + {0..3} and 64 + the same.
  const int Tx = threadIdx.x % 16, Ty = threadIdx.x / 16;

  float Acc[8][8];
#pragma unroll
  for (int I = 0; I < 8; ++I)
#pragma unroll
    for (int J = 0; J < 8; ++J)
      Acc[I][J] = 0.f;

  float4 RA, RB;
  loadStep<Vec, BRow>(A, Lda, B, Ldb, M, N, K, Row0, Col0, 0, RA, RB);
  storeStep<BRow>(SA[0], SB[0], RA, RB);
  __syncthreads();

  const int Steps = (K + BK - 1) / BK;
  for (int S = 0; S < Steps; ++S) {
    const int Buf = S & 1;
    if (S + 1 < Steps)
      loadStep<Vec, BRow>(A, Lda, B, Ldb, M, N, K, Row0, Col0, (S + 1) * BK,
                          RA, RB);
#pragma unroll
    for (int Kk = 0; Kk < BK; ++Kk) {
      const float4 A0 = *reinterpret_cast<const float4 *>(&SA[Buf][Kk][Ty * 4]);
      const float4 A1 =
          *reinterpret_cast<const float4 *>(&SA[Buf][Kk][64 + Ty * 4]);
      const float4 B0 = *reinterpret_cast<const float4 *>(&SB[Buf][Kk][Tx * 4]);
      const float4 B1 =
          *reinterpret_cast<const float4 *>(&SB[Buf][Kk][64 + Tx * 4]);
      const float Av[8] = {A0.x, A0.y, A0.z, A0.w, A1.x, A1.y, A1.z, A1.w};
      const float Bv[8] = {B0.x, B0.y, B0.z, B0.w, B1.x, B1.y, B1.z, B1.w};
#pragma unroll
      for (int I = 0; I < 8; ++I)
#pragma unroll
        for (int J = 0; J < 8; ++J)
          Acc[I][J] = fmaf(Av[I], Bv[J], Acc[I][J]);
    }
    if (S + 1 < Steps) {
      // The other buffer was last read in step S - 1, before the barrier
      // that ended it.
      storeStep<BRow>(SA[Buf ^ 1], SB[Buf ^ 1], RA, RB);
      __syncthreads();
    }
  }

#pragma unroll
  for (int I = 0; I < 8; ++I) {
    const int Row = Row0 + (I < 4 ? Ty * 4 + I : 64 + Ty * 4 + (I - 4));
    if (Row >= M)
      continue;
#pragma unroll
    for (int J = 0; J < 8; ++J) {
      const int Col = Col0 + (J < 4 ? Tx * 4 + J : 64 + Tx * 4 + (J - 4));
      if (Col >= N)
        continue;
      float *Out = C + static_cast<long long>(Row) * Ldc + Col;
      float V = Alpha * Acc[I][J];
      if (Beta != 0.f)
        V = fmaf(Beta, *Out, V);
      *Out = V;
    }
  }
}

template <bool Vec, bool BRow>
void launchTyped(const cudaoptGemmProblem &P, cudaStream_t Stream) {
  dim3 Grid((P.N + BN - 1) / BN, (P.M + BM - 1) / BM,
            P.Batch > 1 ? P.Batch : 1);
  sgemmKernel<Vec, BRow><<<Grid, Threads, 0, Stream>>>(
      P.M, P.N, P.K, static_cast<const float *>(P.A), P.Lda,
      static_cast<const float *>(P.B), P.Ldb, static_cast<float *>(P.C), P.Ldc,
      P.Alpha, P.Beta, P.StrideA, P.StrideB, P.StrideC);
}

} // namespace

cudaError_t launchSgemm(const cudaoptGemmProblem &P, cudaStream_t Stream) {
  if (P.M < 1 || P.N < 1 || P.K < 1 || P.Lda < P.K || P.Ldc < P.N ||
      P.Ldb < (P.LayoutB == CUDAOPT_GEMM_B_ROW ? P.N : P.K))
    return cudaErrorInvalidValue;
  if ((P.M + BM - 1) / BM > 65535 || P.Batch > 65535) // gridDim.y, .z
    return cudaErrorInvalidValue;
  auto Aligned16 = [](const void *Ptr) {
    return reinterpret_cast<uintptr_t>(Ptr) % 16 == 0;
  };
  // float4 loads: 16-byte aligned bases and rows; then K (and N for a
  // row-major B) multiples of 4 keep every 4-chunk all in or all out.
  const bool BRow = P.LayoutB == CUDAOPT_GEMM_B_ROW;
  const bool Vec = Aligned16(P.A) && Aligned16(P.B) && P.Lda % 4 == 0 &&
                   P.Ldb % 4 == 0 && P.K % 4 == 0 && (!BRow || P.N % 4 == 0) &&
                   (P.Batch <= 1 || (P.StrideA % 4 == 0 && P.StrideB % 4 == 0));
  if (Vec)
    BRow ? launchTyped<true, true>(P, Stream) : launchTyped<true, false>(P, Stream);
  else
    BRow ? launchTyped<false, true>(P, Stream)
         : launchTyped<false, false>(P, Stream);
  return cudaGetLastError();
}

} // namespace cudaopt::gemm
