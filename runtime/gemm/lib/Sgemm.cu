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
// reads are float4 and conflict-free), K in steps of BK through two shared
// buffers; the next step's global loads are in registers while the current
// one is computed. Vector (float4) global loads when rows are 16-byte
// aligned, scalar ones otherwise; out-of-range elements load as zero, which
// leaves the accumulators unchanged. SgemmConfig's variants (K step, CTAs
// per SM, padding of the transposed A tile) are compiled side by side so
// bench/gemm/sgemm-bench can time them; launchSgemm runs DefaultVariant.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cstdint>
#include <string>
#include <utility>

namespace cudaopt::gemm {
namespace {

constexpr int BM = 128, BN = 128, Threads = 256;

/// One compiled form of the kernel.
struct SgemmConfig {
  int BK;        // K step: 8 or 16
  int MinBlocks; // __launch_bounds__ minimum CTAs per SM (2: <= 128 regs)
  int PadA;      // floats of padding per row of the k-major A tile: 4 moves
                 // the two threads that store the same row to other banks
  bool WarpTile; // a warp's 32 threads cover 4 x 8 of the 16 x 16 thread
                 // grid (its shared-memory reads: 4 distinct A and 8
                 // distinct B float4, one wavefront each) instead of 2 x 16
                 // (16 distinct B float4, two wavefronts)
};

constexpr SgemmConfig Configs[] = {
    {8, 1, 0, false},  {8, 2, 0, false},  {8, 2, 4, false},
    {16, 2, 0, false}, {16, 2, 4, false}, {16, 1, 0, false},
    {16, 2, 0, true},  {16, 1, 0, true}};
constexpr int NumConfigs = sizeof(Configs) / sizeof(Configs[0]);
// H200, 2026-11-30 (bench/gemm/SgemmBench.cu, bench/JOURNAL.md run 9):
// {16, 2, 0} was fastest on 4 of 5 problems (2048^3 0.459 ms against
// 0.481 for {8, 2, 0}; 1000^3 with a column-major B 1.26x) and 1 % slower
// on 64 x 512^3; the padding lost 1-3 % everywhere. Run 12: one CTA per
// SM 20-25 % slower; the 4 x 8 warp layout x1.007 overall (x0.95 to x1.06
// by problem), not adopted. cublasSgemm: 0.343 ms.
constexpr int DefaultVariant = 3;

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

/// Global loads of one K step, in BK / 8 chunks of 8: chunk C holds A's
/// 128 x 8 slice (thread t: row t / 2, k = 4 * (t % 2) .. +3) and B's
/// 8 x 128 slice (row layout: k = t / 32, n = 4 * (t % 32) .. +3; column
/// layout: n = t / 2, k = 4 * (t % 2) .. +3), k offset by 8 C.
template <int BK, bool Vec, bool BRow>
__device__ __forceinline__ void loadStep(const float *A, long long Lda,
                                         const float *B, long long Ldb, int M,
                                         int N, int K, int Row0, int Col0,
                                         int K0, float4 (&RA)[BK / 8],
                                         float4 (&RB)[BK / 8]) {
  const int T = threadIdx.x;
#pragma unroll
  for (int C = 0; C < BK / 8; ++C) {
    const int Kc = K0 + 8 * C;
    {
      const int R = Row0 + T / 2, Kk = Kc + 4 * (T % 2);
      RA[C] = load4<Vec>(A + static_cast<long long>(R) * Lda + Kk,
                         R < M ? validOf(Kk, K) : 0);
    }
    if (BRow) {
      const int Kk = Kc + T / 32, Col = Col0 + 4 * (T % 32);
      RB[C] = load4<Vec>(B + static_cast<long long>(Kk) * Ldb + Col,
                         Kk < K ? validOf(Col, N) : 0);
    } else {
      const int Col = Col0 + T / 2, Kk = Kc + 4 * (T % 2);
      RB[C] = load4<Vec>(B + static_cast<long long>(Col) * Ldb + Kk,
                         Col < N ? validOf(Kk, K) : 0);
    }
  }
}

/// Shared stores of one K step: both slices k-major (SA[k][m], SB[k][n]).
template <int BK, int LdA, bool BRow>
__device__ __forceinline__ void storeStep(float (*SA)[LdA], float (*SB)[BN],
                                          const float4 (&RA)[BK / 8],
                                          const float4 (&RB)[BK / 8]) {
  const int T = threadIdx.x;
#pragma unroll
  for (int C = 0; C < BK / 8; ++C) {
    {
      const int R = T / 2, Kk = 8 * C + 4 * (T % 2);
      SA[Kk + 0][R] = RA[C].x;
      SA[Kk + 1][R] = RA[C].y;
      SA[Kk + 2][R] = RA[C].z;
      SA[Kk + 3][R] = RA[C].w;
    }
    if (BRow) {
      *reinterpret_cast<float4 *>(&SB[8 * C + T / 32][4 * (T % 32)]) = RB[C];
    } else {
      const int Col = T / 2, Kk = 8 * C + 4 * (T % 2);
      SB[Kk + 0][Col] = RB[C].x;
      SB[Kk + 1][Col] = RB[C].y;
      SB[Kk + 2][Col] = RB[C].z;
      SB[Kk + 3][Col] = RB[C].w;
    }
  }
}

template <int V, bool Vec, bool BRow>
__global__ void __launch_bounds__(Threads, Configs[V].MinBlocks)
    sgemmKernel(int M, int N, int K, const float *__restrict__ A,
                long long Lda, const float *__restrict__ B, long long Ldb,
                float *__restrict__ C, long long Ldc, float Alpha, float Beta,
                long long StrideA, long long StrideB, long long StrideC) {
  constexpr int BK = Configs[V].BK, LdA = BM + Configs[V].PadA;
  // Batched: problem blockIdx.z.
  A += blockIdx.z * StrideA;
  B += blockIdx.z * StrideB;
  C += blockIdx.z * StrideC;
  __shared__ __align__(16) float SA[2][BK][LdA];
  __shared__ __align__(16) float SB[2][BK][BN];
  const int Row0 = blockIdx.y * BM, Col0 = blockIdx.x * BN;
  // Thread (Ty, Tx) of a 16 x 16 grid owns rows Ty*4 + {0..3} and 64 + the
  // same, columns Tx*4 + {0..3} and 64 + the same.
  const int Lane = threadIdx.x % 32, Warp = threadIdx.x / 32;
  const int Tx = Configs[V].WarpTile ? (Warp % 2) * 8 + Lane % 8
                                     : threadIdx.x % 16;
  const int Ty = Configs[V].WarpTile ? (Warp / 2) * 4 + Lane / 8
                                     : threadIdx.x / 16;

  float Acc[8][8];
#pragma unroll
  for (int I = 0; I < 8; ++I)
#pragma unroll
    for (int J = 0; J < 8; ++J)
      Acc[I][J] = 0.f;

  float4 RA[BK / 8], RB[BK / 8];
  loadStep<BK, Vec, BRow>(A, Lda, B, Ldb, M, N, K, Row0, Col0, 0, RA, RB);
  storeStep<BK, LdA, BRow>(SA[0], SB[0], RA, RB);
  __syncthreads();

  const int Steps = (K + BK - 1) / BK;
  for (int S = 0; S < Steps; ++S) {
    const int Buf = S & 1;
    if (S + 1 < Steps)
      loadStep<BK, Vec, BRow>(A, Lda, B, Ldb, M, N, K, Row0, Col0,
                              (S + 1) * BK, RA, RB);
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
      storeStep<BK, LdA, BRow>(SA[Buf ^ 1], SB[Buf ^ 1], RA, RB);
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
      float Val = Alpha * Acc[I][J];
      if (Beta != 0.f)
        Val = fmaf(Beta, *Out, Val);
      *Out = Val;
    }
  }
}

template <int V, bool Vec, bool BRow>
void launchTyped(const cudaoptGemmProblem &P, cudaStream_t Stream) {
  dim3 Grid((P.N + BN - 1) / BN, (P.M + BM - 1) / BM,
            P.Batch > 1 ? P.Batch : 1);
  sgemmKernel<V, Vec, BRow><<<Grid, Threads, 0, Stream>>>(
      P.M, P.N, P.K, static_cast<const float *>(P.A), P.Lda,
      static_cast<const float *>(P.B), P.Ldb, static_cast<float *>(P.C), P.Ldc,
      P.Alpha, P.Beta, P.StrideA, P.StrideB, P.StrideC);
}

template <int V>
void launchVariant(const cudaoptGemmProblem &P, bool Vec, bool BRow,
                   cudaStream_t Stream) {
  if (Vec)
    BRow ? launchTyped<V, true, true>(P, Stream)
         : launchTyped<V, true, false>(P, Stream);
  else
    BRow ? launchTyped<V, false, true>(P, Stream)
         : launchTyped<V, false, false>(P, Stream);
}

template <int... Vs>
void dispatchVariant(int V, const cudaoptGemmProblem &P, bool Vec, bool BRow,
                     cudaStream_t Stream, std::integer_sequence<int, Vs...>) {
  ((V == Vs ? launchVariant<Vs>(P, Vec, BRow, Stream) : void()), ...);
}

} // namespace

int sgemmVariantCount() { return NumConfigs; }
int sgemmDefaultVariant() { return DefaultVariant; }

std::string sgemmVariantName(int Variant) {
  if (Variant < 0 || Variant >= NumConfigs)
    return "";
  const SgemmConfig &C = Configs[Variant];
  return "bk" + std::to_string(C.BK) + "_cta" + std::to_string(C.MinBlocks) +
         "_pad" + std::to_string(C.PadA) + (C.WarpTile ? "_w4x8" : "");
}

cudaError_t launchSgemmVariant(const cudaoptGemmProblem &P, int Variant,
                               cudaStream_t Stream) {
  if (Variant < 0 || Variant >= NumConfigs)
    return cudaErrorInvalidValue;
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
  dispatchVariant(Variant, P, Vec, BRow, Stream,
                  std::make_integer_sequence<int, NumConfigs>());
  return cudaGetLastError();
}

cudaError_t launchSgemm(const cudaoptGemmProblem &P, cudaStream_t Stream) {
  return launchSgemmVariant(P, DefaultVariant, Stream);
}

} // namespace cudaopt::gemm
