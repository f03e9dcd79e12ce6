//===- Sm90Gemm.cuh - warp-specialised TMA + wgmma GEMM --------*- CUDA -*-===//
//
// C = Alpha * A * B + Beta * C with A row-major (M x K), B either K-major
// (stored N x K, "TN") or N-major (stored K x N, "NN"), C row-major, fp16 or
// bf16 in and out, fp32 accumulation.
//
// One CTA per SM (persistent). Warpgroup 0 is the producer: one thread
// issues TMA loads of 64-wide K slices of A and B into a ring of Stages
// 128B-swizzled shared-memory buffers, gated by "empty" mbarriers. The other
// NumConsumers warpgroups each own BM / NumConsumers rows of the tile and run
// wgmma m64nBNk16 out of those buffers into fp32 registers, releasing a stage
// once the wgmma that read it has retired. Units of work (tile, K split) are
// dealt round-robin to CTAs in a grouped raster order so that concurrently
// running tiles share A rows / B columns in L2. When Beta == 0 the epilogue
// writes 64x64 swizzled chunks to shared memory (two buffers per consumer)
// and TMA stores them, so consumers return to the main loop while the
// stores drain. Split-K partial tiles are added (fp32 vector atomics) into
// one fp32 workspace tile; the last split of a tile to finish writes C from
// it and zeroes it.
//
//===----------------------------------------------------------------------===//

#ifndef CUDAOPT_GEMM_SM90GEMM_CUH
#define CUDAOPT_GEMM_SM90GEMM_CUH

#include "Sm90Params.h"
#include "Sm90Ptx.cuh"
#include "WgmmaOps.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace cudaopt::gemm {

constexpr int BlockK = 64; // 64 halves = one 128-byte swizzle row

template <typename T, int BN, int TransB, int TransA = 0> struct Wgmma;
#define CUDAOPT_WGMMA(TYPE, NAME, BN)                                          \
  template <int TransB, int TransA> struct Wgmma<TYPE, BN, TransB, TransA> {   \
    static __device__ __forceinline__ void run(float (&D)[BN / 2], uint64_t A, \
                                               uint64_t B, int ScaleD) {       \
      wgmma##NAME##N##BN<TransB, TransA>(D, A, B, ScaleD);                     \
    }                                                                          \
  };
CUDAOPT_WGMMA(__half, F16, 16)
CUDAOPT_WGMMA(__half, F16, 32)
CUDAOPT_WGMMA(__half, F16, 64)
CUDAOPT_WGMMA(__half, F16, 128)
CUDAOPT_WGMMA(__half, F16, 192)
CUDAOPT_WGMMA(__half, F16, 256)
CUDAOPT_WGMMA(__nv_bfloat16, BF16, 16)
CUDAOPT_WGMMA(__nv_bfloat16, BF16, 32)
CUDAOPT_WGMMA(__nv_bfloat16, BF16, 64)
CUDAOPT_WGMMA(__nv_bfloat16, BF16, 128)
CUDAOPT_WGMMA(__nv_bfloat16, BF16, 192)
CUDAOPT_WGMMA(__nv_bfloat16, BF16, 256)
#undef CUDAOPT_WGMMA

template <typename T> struct Pack2;
template <> struct Pack2<__half> {
  using Type = __half2;
  static __device__ __forceinline__ __half2 make(float A, float B) {
    return __floats2half2_rn(A, B);
  }
  static __device__ __forceinline__ float2 unpack(__half2 V) {
    return __half22float2(V);
  }
};
template <> struct Pack2<__nv_bfloat16> {
  using Type = __nv_bfloat162;
  static __device__ __forceinline__ __nv_bfloat162 make(float A, float B) {
    return __floats2bfloat162_rn(A, B);
  }
  static __device__ __forceinline__ float2 unpack(__nv_bfloat162 V) {
    return __bfloat1622float2(V);
  }
};

/// Maps a work unit to (tile row, tile column, first and last K block).
/// Units enumerate tiles of clusters (GridM x GridN) in grouped raster
/// order, times the workspace K splits; \p Rank, the CTA's rank in its
/// cluster, picks its tile (ClusterM, ClusterN) or K range (ClusterK).
struct Unit {
  int Tm, Tn, Tile, Split, Kb0, Kb1;
};

template <bool Ext>
__device__ __forceinline__ Unit decodeUnit(const Sm90Params &P, int U,
                                           int Rank) {
  Unit R;
  R.Tile = U / P.Splits;
  int Split = U - R.Tile * P.Splits;
  int Major = P.RasterN ? P.GridN : P.GridM;
  int Minor = P.RasterN ? P.GridM : P.GridN;
  int PerGroup = P.Group * Minor;
  int G = R.Tile / PerGroup;
  int Rem = R.Tile - G * PerGroup;
  int First = G * P.Group;
  int Size = min(Major - First, P.Group);
  int A = First + Rem % Size;
  int B = Rem / Size;
  R.Tm = P.RasterN ? B : A;
  R.Tn = P.RasterN ? A : B;
  if constexpr (Ext) {
    R.Tm = R.Tm * P.ClusterM + (P.ClusterM > 1 ? Rank : 0);
    R.Tn = R.Tn * P.ClusterN + (P.ClusterN > 1 ? Rank : 0);
    if (P.ClusterK > 1)
      Split = Rank;
  }
  R.Split = Split;
  R.Kb0 = Split * P.KBlocksPerSplit;
  R.Kb1 = min(P.KBlocks, R.Kb0 + P.KBlocksPerSplit);
  return R;
}

/// Stores two adjacent outputs (Row, Col) and (Row, Col + 1), applying
/// alpha/beta; columns past N are dropped. TransC (the swapped narrow
/// configurations): the kernel computes C^T, so output (Row, Col) is
/// C[Col * Ldc + Row] and the pair lands in two rows of C.
template <typename T, bool TransC = false>
__device__ __forceinline__ void storePair(const Sm90Params &P, int Row, int Col,
                                          float V0, float V1) {
  if (Row >= P.M || Col >= P.N)
    return;
  V0 *= P.Alpha;
  V1 *= P.Alpha;
  if constexpr (TransC) {
    T *C = static_cast<T *>(P.C) + static_cast<long long>(Col) * P.Ldc + Row;
    if (P.Beta != 0.0f)
      V0 += P.Beta * static_cast<float>(*C);
    *C = static_cast<T>(V0);
    if (Col + 1 < P.N) {
      if (P.Beta != 0.0f)
        V1 += P.Beta * static_cast<float>(C[P.Ldc]);
      C[P.Ldc] = static_cast<T>(V1);
    }
    return;
  }
  T *C = static_cast<T *>(P.C) + Row * P.Ldc + Col;
  if (Col + 1 < P.N) {
    using P2 = Pack2<T>;
    auto *C2 = reinterpret_cast<typename P2::Type *>(C);
    if (P.Beta != 0.0f) {
      float2 Old = P2::unpack(*C2);
      V0 += P.Beta * Old.x;
      V1 += P.Beta * Old.y;
    }
    *C2 = P2::make(V0, V1);
    return;
  }
  if (P.Beta != 0.0f)
    V0 += P.Beta * static_cast<float>(*C);
  *C = static_cast<T>(V0);
}

/// The direct epilogue of one consumer warp: every fragment pair of its
/// accumulators (MI row groups of 64, BN columns) through storePair; RowBase
/// and ColBase are the lane's first output row and column.
template <typename T, int MI, int BN, bool TransC = false>
__device__ __forceinline__ void storeAccDirect(const Sm90Params &P,
                                               int RowBase, int ColBase,
                                               const float (&Acc)[MI][BN / 2]) {
#pragma unroll
  for (int Mi = 0; Mi < MI; ++Mi)
#pragma unroll
    for (int J = 0; J < BN / 8; ++J)
#pragma unroll
      for (int H = 0; H < 2; ++H)
        storePair<T, TransC>(P, RowBase + Mi * 64 + H * 8, ColBase + J * 8,
                             Acc[Mi][J * 4 + H * 2],
                             Acc[Mi][J * 4 + H * 2 + 1]);
}

/// Writes 64-column chunk Cc of one accumulator row group (a warp's 16 rows
/// of 64), scaled by Alpha, into the shared chunk Dst for a TMA store.
/// Chunk layout = TMA 128B swizzle: row r at r * 128 bytes, 16-byte column
/// group g stored at group g ^ (r % 8). Conflict-free: a warp's 8 rows hit 8
/// different groups.
template <typename T, int NAcc>
__device__ __forceinline__ void writeSwizzledChunk(unsigned char *Dst,
                                                   const float (&AccRow)[NAcc],
                                                   int Cc, float Alpha,
                                                   int Warp, int Lane) {
#pragma unroll
  for (int J = 0; J < 8; ++J)
#pragma unroll
    for (int H = 0; H < 2; ++H) {
      const int R = Warp * 16 + Lane / 4 + H * 8;
      const int Off = R * 128 + ((J ^ (R & 7)) << 4) + (Lane % 4) * 4;
      const int I = (Cc * 8 + J) * 4 + H * 2;
      *reinterpret_cast<typename Pack2<T>::Type *>(Dst + Off) =
          Pack2<T>::make(Alpha * AccRow[I], Alpha * AccRow[I + 1]);
    }
}

template <typename T, int BM, int BN, int NumConsumers, int Stages,
          bool BRowMajor>
struct Sm90Gemm {
  /// The narrow tiles run only with the operands swapped (C^T = B^T A^T,
  /// Sm90Configs.h): direct transposed stores, no TMA-store staging.
  static constexpr bool SwapAB = isSwappedTile(BN);
  static constexpr int Threads = (NumConsumers + 1) * 128;
  static constexpr int WarpM = BM / NumConsumers; // rows per consumer
  static constexpr int MI = WarpM / 64;           // m64 atoms per consumer
  static constexpr int ABytes = BM * BlockK * 2;
  static constexpr int BBytes = BN * BlockK * 2;
  static constexpr int CChunkBytes = 64 * 64 * 2; // one 64x64 output chunk
  static constexpr int CBytes = SwapAB ? 0 : NumConsumers * 2 * CChunkBytes;
  static constexpr int SmemBytes =
      Stages * (ABytes + BBytes) + CBytes + 2 * Stages * 8 + 1024;
  static_assert(WarpM % 64 == 0, "each consumer owns whole m64 atoms");
  // B is loaded, and C stored, in 64-column chunks; the narrow swapped
  // tiles load B K-major in one box and store C directly.
  static_assert((BN % 64 == 0 && BN <= 256) ||
                    ((BN == 16 || BN == 32) && !BRowMajor),
                "wgmma N");
  static_assert(BM <= 256, "TMA box rows");
};

/// AMajorM: A is stored M-major (only the swapped narrow tiles on a B
/// row-major problem, whose A is that B: Sm90Launch.cuh) and is loaded, like
/// an N-major B, in 64-row chunks of BlockK K rows each, read with wgmma's
/// transpose-A bit.
template <typename T, int BM, int BN, int NumConsumers, int Stages,
          bool BRowMajor, bool Ext, bool AMajorM = false>
__global__ void __launch_bounds__((NumConsumers + 1) * 128, 1)
    sm90GemmKernel(const __grid_constant__ CUtensorMap MapA,
                   const __grid_constant__ CUtensorMap MapB,
                   const __grid_constant__ CUtensorMap MapC,
                   const Sm90Params P) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)
  using Cfg = Sm90Gemm<T, BM, BN, NumConsumers, Stages, BRowMajor>;
  constexpr int MI = Cfg::MI;
  extern __shared__ unsigned char SmemRaw[];
  unsigned char *Smem = reinterpret_cast<unsigned char *>(
      (reinterpret_cast<uintptr_t>(SmemRaw) + 1023) & ~uintptr_t(1023));
  unsigned char *SA = Smem;
  unsigned char *SB = Smem + Stages * Cfg::ABytes;
  unsigned char *SC = Smem + Stages * (Cfg::ABytes + Cfg::BBytes);
  uint64_t *Full = reinterpret_cast<uint64_t *>(SC + Cfg::CBytes);
  uint64_t *Empty = Full + Stages;
  __shared__ int IsLastSplit;

  const int Wg = threadIdx.x / 128;
  const int Tid = threadIdx.x % 128;
  // Multicast clusters: McSize CTAs share one operand tile, each loading
  // 1/McSize of it into every CTA of the cluster, so a stage is free only
  // when the consumers of all of them have released it.
  // Ext: the instance that can run the cluster and two-accumulator plan
  // options; the plain instance compiles them out (run 16: carrying them
  // as run-time branches cost the plain plans 2-10%).
  const int CM = Ext ? P.ClusterM : 1;
  const int CN = Ext ? P.ClusterN : 1;
  const int CK = Ext ? P.ClusterK : 1;
  const int McSize = CM * CN;
  const int ClusterSize = McSize * CK;
  const int Rank = ClusterSize > 1 ? static_cast<int>(clusterCtaRank()) : 0;
  if (threadIdx.x == 0) {
    prefetchTensorMap(&MapA);
    prefetchTensorMap(&MapB);
    for (int S = 0; S < Stages; ++S) {
      mbarInit(&Full[S], 1);
      mbarInit(&Empty[S], NumConsumers * McSize);
    }
    fenceBarrierInit();
  }
  // With a cluster, no CTA may multicast into a peer (or arrive on its
  // barriers) before the peer has initialised them.
  if (ClusterSize > 1)
    clusterSync();
  else
    __syncthreads();
  // Programmatic dependent launch: the next GEMM in the stream may start
  // its prologue on free SMs now (it still waits for this grid to finish
  // before touching memory); this one waits for its predecessor here,
  // after its own prologue, before the first global access.
  gridDepLaunchDependents();
  gridDepWait();

  const int NumUnits = P.GridM * P.GridN * P.Splits;
  const int ClusterId = blockIdx.x / ClusterSize;
  const int NumClusters = gridDim.x / ClusterSize;
  if (Wg == 0) {
    // Producer warpgroup: one thread drives the TMA engine.
    if constexpr (NumConsumers > 1)
      setMaxNRegDec<40>();
    if (Tid == 0) {
      const uint16_t Mask = static_cast<uint16_t>((1u << McSize) - 1);
      int It = 0;
      for (int U = ClusterId; U < NumUnits; U += NumClusters) {
        Unit W = decodeUnit<Ext>(P, U, Rank);
        // A multicast pair on an odd number of tiles has a CTA wholly
        // outside C: it loads its own operand from the last tile (its half
        // of the shared one is real) and stores nothing.
        if (McSize > 1) {
          W.Tm = min(W.Tm, P.TilesM - 1);
          W.Tn = min(W.Tn, P.TilesN - 1);
        }
        for (int Kb = W.Kb0; Kb < W.Kb1; ++Kb, ++It) {
          int S = It % Stages;
          mbarWait(&Empty[S], ((It / Stages) & 1) ^ 1);
          mbarArriveExpectTx(&Full[S], Cfg::ABytes + Cfg::BBytes);
          unsigned char *DA = SA + S * Cfg::ABytes;
          unsigned char *DB = SB + S * Cfg::BBytes;
          if constexpr (AMajorM) {
            // 64-row chunks, BlockK K rows each (no multicast: the swapped
            // tiles run no pairs).
#pragma unroll
            for (int C = 0; C < BM / 64; ++C)
              tmaLoad2d(DA + C * 64 * BlockK * 2, &MapA, W.Tm * BM + C * 64,
                        Kb * BlockK, &Full[S]);
          } else if (CN > 1) {
            // A is shared along N: this CTA loads rows Rank/ClusterN of it.
            const int Rows = BM / CN;
            tmaLoad2dMulticast(DA + Rank * Rows * 128, &MapA, Kb * BlockK,
                               W.Tm * BM + Rank * Rows, &Full[S], Mask);
          } else {
            tmaLoad2d(DA, &MapA, Kb * BlockK, W.Tm * BM, &Full[S]);
          }
          if constexpr (BRowMajor) {
            // 64-column chunks, BlockK K rows each; shared along M: this
            // CTA loads K rows Rank/ClusterM of every chunk.
            const int Rows = BlockK / CM;
#pragma unroll
            for (int C = 0; C < BN / 64; ++C) {
              unsigned char *D = DB + C * 64 * BlockK * 2;
              if (CM > 1)
                tmaLoad2dMulticast(D + Rank * Rows * 128, &MapB,
                                   W.Tn * BN + C * 64,
                                   Kb * BlockK + Rank * Rows, &Full[S], Mask);
              else
                tmaLoad2d(D, &MapB, W.Tn * BN + C * 64, Kb * BlockK, &Full[S]);
            }
          } else {
            if (CM > 1) {
              const int Rows = BN / CM;
              tmaLoad2dMulticast(DB + Rank * Rows * 128, &MapB, Kb * BlockK,
                                 W.Tn * BN + Rank * Rows, &Full[S], Mask);
            } else {
              tmaLoad2d(DB, &MapB, Kb * BlockK, W.Tn * BN, &Full[S]);
            }
          }
        }
      }
    }
    // The consumers' mid-kernel cluster barrier of a ClusterK launch (one
    // unit per CTA): partial tiles written, reduction may start.
    if (CK > 1)
      clusterSync();
  } else {
    // Consumer warpgroups.
    if constexpr (NumConsumers > 1)
      setMaxNRegInc<232>();
    const int Cw = Wg - 1;
    const int Warp = Tid / 32;
    const int Lane = Tid % 32;
    // Hands stage S back to the producers of every CTA that wrote it.
    auto Release = [&](int S) {
      if (Tid == 0) {
        mbarArrive(&Empty[S]);
        if (McSize > 1) // a pair: the peer's producer wrote half of it
          mbarArriveCluster(&Empty[S], Rank ^ 1);
      }
    };
    // Two accumulator sets where registers allow (P.DualAcc): even K blocks
    // into Acc, odd into Acc2, so consecutive wgmma groups do not depend on
    // each other and can overlap in the tensor pipe. With one set, a
    // 64-wide tile spent ~0.17 us per K block whatever its N (run 14).
    constexpr bool DualOk = Ext && dualAccAllowed(BM, BN, NumConsumers);
    float Acc[MI][BN / 2];
    float Acc2[DualOk ? MI : 1][DualOk ? BN / 2 : 2];
    int It = 0;
    int CBuf = 0; // which of this consumer's two output chunks is next
    unsigned char *CStage = SC + Cw * 2 * Cfg::CChunkBytes;
    for (int U = ClusterId; U < NumUnits; U += NumClusters) {
      Unit W = decodeUnit<Ext>(P, U, Rank);
      int PrevS = 0;
      // One K block into accumulator set D; First is the set's first block,
      // which overwrites instead of adding.
      auto Consume = [&](int Kb, float (&D)[MI][BN / 2], int First) {
        int S = It % Stages;
        mbarWait(&Full[S], (It / Stages) & 1);
        // This consumer's rows of the stage's A tile: 128-byte rows (K-major)
        // or, for AMajorM, its first 64-row chunk of 64 K rows.
        uint32_t ABase =
            smemAddr(SA + S * Cfg::ABytes) +
            (AMajorM ? Cw * MI * 64 * BlockK * 2 : Cw * Cfg::WarpM * 128);
        uint32_t BBase = smemAddr(SB + S * Cfg::BBytes);
        wgmmaFence();
#pragma unroll
        for (int Kk = 0; Kk < BlockK / 16; ++Kk) {
          // B N-major: 64-column chunks BlockK rows deep (LBO), 8-row
          // groups 1024 bytes apart (SBO), 16 K rows = 2048 bytes per step.
          // B K-major: rows of 128 bytes, 8-row groups 1024 bytes apart,
          // 16 K elements = 32 bytes per step.
          uint64_t DescB =
              BRowMajor ? makeSmemDesc(BBase + Kk * 2048, 64 * BlockK * 2, 1024)
                        : makeSmemDesc(BBase + Kk * 32, 16, 1024);
          int ScaleD = (Kb > First || Kk > 0) ? 1 : 0;
#pragma unroll
          for (int Mi = 0; Mi < MI; ++Mi) {
            // A K-major: rows of 128 bytes as B's. A M-major: the atom's
            // 64-row chunk, 16 K rows = 2048 bytes per step.
            uint64_t DescA =
                AMajorM ? makeSmemDesc(ABase + Mi * 64 * BlockK * 2 + Kk * 2048,
                                       64 * BlockK * 2, 1024)
                        : makeSmemDesc(ABase + Mi * 64 * 128 + Kk * 32, 16,
                                       1024);
            Wgmma<T, BN, BRowMajor ? 1 : 0, AMajorM ? 1 : 0>::run(
                D[Mi], DescA, DescB, ScaleD);
          }
        }
        wgmmaCommit();
        if (Kb > W.Kb0) {
          // The wgmmas of the previous stage have retired: hand it back.
          wgmmaWait<1>();
          Release(PrevS);
        }
        PrevS = S;
        ++It;
      };
      bool Dual = false;
      if constexpr (DualOk) {
        if (P.DualAcc) {
          // Pairs of K blocks with straight-line wgmmas: choosing the set
          // with a branch made ptxas serialise every wgmma (C7520).
          Dual = W.Kb1 - W.Kb0 > 1;
          int Kb = W.Kb0;
          for (; Kb + 1 < W.Kb1; Kb += 2) {
            Consume(Kb, Acc, W.Kb0);
            Consume(Kb + 1, Acc2, W.Kb0 + 1);
          }
          if (Kb < W.Kb1)
            Consume(Kb, Acc, W.Kb0);
        } else {
          for (int Kb = W.Kb0; Kb < W.Kb1; ++Kb)
            Consume(Kb, Acc, W.Kb0);
        }
      } else {
        for (int Kb = W.Kb0; Kb < W.Kb1; ++Kb)
          Consume(Kb, Acc, W.Kb0);
      }
      wgmmaWait<0>();
      Release(PrevS);
      if constexpr (DualOk) {
        if (Dual) {
#pragma unroll
          for (int Mi = 0; Mi < MI; ++Mi)
#pragma unroll
            for (int I = 0; I < BN / 2; ++I)
              Acc[Mi][I] += Acc2[Mi][I];
        }
      }

      // Epilogue. wgmma m64nN f32 fragment: warp w holds rows 16w..16w+15 of
      // the atom; lane l holds rows l/4 and l/4 + 8, columns 8j + 2(l%4) and
      // the next one, for j < N/8.
      const int RowBase = W.Tm * BM + Cw * Cfg::WarpM + Warp * 16 + Lane / 4;
      const int ColBase = W.Tn * BN + (Lane % 4) * 2;
      if (McSize > 1 && (W.Tm >= P.TilesM || W.Tn >= P.TilesN))
        continue; // the idle half of a multicast pair (see the producer)
      if (CK > 1) {
        // K split over the cluster (one unit per CTA, so the stage buffers
        // are idle now): every CTA writes its fp32 partial tile into its
        // own shared memory, then CTA r sums rows r/ClusterK of the tile
        // over all of them through distributed shared memory and writes C.
        constexpr int RedLd = BN + 8; // 32-byte row skew: no bank conflicts
        static_assert(BM * RedLd * 4 <= Stages * (Cfg::ABytes + Cfg::BBytes),
                      "the partial tile fits in the stage buffers");
        float *Red = reinterpret_cast<float *>(Smem);
        const int LocalRow = Cw * Cfg::WarpM + Warp * 16 + Lane / 4;
        namedBarrierSync(1, NumConsumers * 128); // all wgmma reads are done
#pragma unroll
        for (int Mi = 0; Mi < MI; ++Mi)
#pragma unroll
          for (int J = 0; J < BN / 8; ++J)
#pragma unroll
            for (int H = 0; H < 2; ++H) {
              int R = LocalRow + Mi * 64 + H * 8;
              int C = J * 8 + (Lane % 4) * 2;
              *reinterpret_cast<float2 *>(Red + R * RedLd + C) = make_float2(
                  Acc[Mi][J * 4 + H * 2], Acc[Mi][J * 4 + H * 2 + 1]);
            }
        clusterSync();
        const int RowsPer = (BM + CK - 1) / CK;
        const int Quads = min(RowsPer, BM - Rank * RowsPer) * (BN / 4);
        for (int E = Cw * 128 + Tid; E < Quads; E += NumConsumers * 128) {
          const int R = Rank * RowsPer + E / (BN / 4);
          const int C = (E % (BN / 4)) * 4;
          const float *Local = Red + R * RedLd + C;
          float4 Sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          for (int Q = 0; Q < CK; ++Q) {
            float4 V = ldSharedCluster4(mapaShared(Local, Q));
            Sum.x += V.x;
            Sum.y += V.y;
            Sum.z += V.z;
            Sum.w += V.w;
          }
          const int Row = W.Tm * BM + R, Col = W.Tn * BN + C;
          storePair<T, Cfg::SwapAB>(P, Row, Col, Sum.x, Sum.y);
          storePair<T, Cfg::SwapAB>(P, Row, Col + 2, Sum.z, Sum.w);
        }
        continue; // the kernel's final cluster barrier keeps Red alive
      }
      if constexpr (!Cfg::SwapAB) {
      if (P.TmaStore) {
#pragma unroll
        for (int Mi = 0; Mi < MI; ++Mi)
#pragma unroll
          for (int Cc = 0; Cc < BN / 64; ++Cc) {
            if (Tid == 0)
              bulkWaitRead<1>(); // the store that last used CBuf has read it
            namedBarrierSync(2 + Cw, 128);
            unsigned char *Dst = CStage + CBuf * Cfg::CChunkBytes;
            writeSwizzledChunk<T>(Dst, Acc[Mi], Cc, P.Alpha, Warp, Lane);
            fenceProxyAsync();
            namedBarrierSync(2 + Cw, 128);
            if (Tid == 0) {
              tmaStore2d(&MapC, Dst, W.Tn * BN + Cc * 64,
                         W.Tm * BM + Cw * Cfg::WarpM + Mi * 64);
              bulkCommit();
            }
            CBuf ^= 1;
          }
        continue;
      }
      }
      if (P.Splits == 1) {
        storeAccDirect<T, MI, BN, Cfg::SwapAB>(P, RowBase, ColBase, Acc);
        continue;
      }
      if constexpr (!splitKAllowed(BM, BN))
        continue; // the launcher never asks these configurations to split
      // Split-K: every split adds its fp32 partial tile into one fp32
      // accumulator tile in the workspace with vector atomics whose result
      // is unused (RED: fire-and-forget, performed in L2), so the splits
      // reduce in parallel. The last split to arrive (per-tile counter)
      // reads the sum, writes C and zeroes the accumulator for the next
      // launch. (Run 11: when the last split instead read Splits - 1
      // partial slices itself, one SM's ~64 GB/s from L2 cost ~0.3 us per
      // split, 14.6 us on 64x64x16384.)
      const bool Vec = (P.N & 1) == 0;
#pragma unroll
      for (int Mi = 0; Mi < MI; ++Mi)
#pragma unroll
        for (int J = 0; J < BN / 8; ++J)
#pragma unroll
          for (int H = 0; H < 2; ++H) {
            int Row = RowBase + Mi * 64 + H * 8;
            int Col = ColBase + J * 8;
            if (Row >= P.M || Col >= P.N)
              continue;
            float *Wp = P.Workspace + static_cast<long long>(Row) * P.N + Col;
            float V0 = Acc[Mi][J * 4 + H * 2], V1 = Acc[Mi][J * 4 + H * 2 + 1];
            if (Vec) {
              atomicAdd(reinterpret_cast<float2 *>(Wp), make_float2(V0, V1));
            } else {
              atomicAdd(Wp, V0);
              if (Col + 1 < P.N)
                atomicAdd(Wp + 1, V1);
            }
          }
      // One fence per CTA, not per thread: __threadfence() is a
      // sequentially consistent fence (MEMBAR.SC.GPU). The barrier orders
      // the other threads' atomics before thread 128's release fence
      // (fences are cumulative); its fence after the counter update
      // acquires the other splits' sums for the whole CTA through the
      // second barrier.
      namedBarrierSync(1, NumConsumers * 128);
      if (threadIdx.x == 128) {
        __threadfence();
        IsLastSplit =
            atomicAdd(&P.Counters[W.Tile], 1u) == unsigned(P.Splits - 1);
        __threadfence();
      }
      namedBarrierSync(1, NumConsumers * 128);
      if (!IsLastSplit)
        continue;
      // All loads first, from clamped addresses with no branch between
      // them (a guarded load right before its use kept one L2 round trip
      // in flight per thread), straight into the accumulators: the sum
      // already holds this split's share. Out-of-range elements get a
      // neighbour's value, which storePair drops.
#pragma unroll
      for (int Mi = 0; Mi < MI; ++Mi)
#pragma unroll
        for (int J = 0; J < BN / 8; ++J)
#pragma unroll
          for (int H = 0; H < 2; ++H) {
            const int Row = min(RowBase + Mi * 64 + H * 8, P.M - 1);
            const int Col = ColBase + J * 8;
            const float *Rp = P.Workspace + static_cast<long long>(Row) * P.N;
            const int I = J * 4 + H * 2;
            if (Vec) {
              float2 V = __ldcg(
                  reinterpret_cast<const float2 *>(Rp + min(Col, P.N - 2)));
              Acc[Mi][I] = V.x;
              Acc[Mi][I + 1] = V.y;
            } else {
              Acc[Mi][I] = __ldcg(Rp + min(Col, P.N - 1));
              Acc[Mi][I + 1] = __ldcg(Rp + min(Col + 1, P.N - 1));
            }
          }
#pragma unroll
      for (int Mi = 0; Mi < MI; ++Mi)
#pragma unroll
        for (int J = 0; J < BN / 8; ++J)
#pragma unroll
          for (int H = 0; H < 2; ++H) {
            const int Row = RowBase + Mi * 64 + H * 8;
            const int Col = ColBase + J * 8;
            storePair<T, Cfg::SwapAB>(P, Row, Col, Acc[Mi][J * 4 + H * 2],
                                      Acc[Mi][J * 4 + H * 2 + 1]);
            if (Row >= P.M || Col >= P.N)
              continue;
            float *Wp = P.Workspace + static_cast<long long>(Row) * P.N + Col;
            if (Vec) {
              __stcg(reinterpret_cast<float2 *>(Wp), make_float2(0.0f, 0.0f));
            } else {
              __stcg(Wp, 0.0f);
              if (Col + 1 < P.N)
                __stcg(Wp + 1, 0.0f);
            }
          }
      if (threadIdx.x == 128)
        P.Counters[W.Tile] = 0;
    }
    // Shared memory must outlive the stores' reads of it; global visibility
    // follows from kernel completion (CUTLASS waits the same way).
    if (P.TmaStore && Tid == 0)
      bulkWaitRead<0>();
  }
  // No CTA of a cluster leaves while a peer may still multicast into it,
  // arrive on its barriers or read its partial tile.
  if (ClusterSize > 1)
    clusterSync();
#endif
}

} // namespace cudaopt::gemm

#endif // CUDAOPT_GEMM_SM90GEMM_CUH
