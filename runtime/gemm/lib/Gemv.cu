//===- Gemv.cu - register-direct mma.sync GEMM for skinny and small shapes -===//
//
// Decode-shaped problems (M = 1..16 tokens against a K x N weight) are bound
// by reading B once. The TMA + wgmma kernels tile M by 64, so for M = 1 the
// A tile is 63/64 padding and a few dozen SMs stream B at ~45 GB/s each.
// This kernel instead gives every SM several CTAs that read B straight from
// global memory into registers with 16-byte loads (no shared-memory staging,
// no tensor maps) and feed mma.sync.m16n8k16 with fp32 accumulators; the 16
// rows of the mma are the (up to) 16 rows of A, zero past M. The MT = 4
// instance (64 rows per CTA, M tiled over gridDim.z) is the small-shape
// path: a one-tile problem costs one global round trip for its operands and
// no tensor-map fetch, mbarrier set-up or TMA store.
//
// K permutation. A dot product does not care in which order k is visited,
// as long as A and B use the same order. Within a 32-wide K chunk, lane
// quad q (= lane % 4) owns physical k in [8q, 8q + 8): one 16-byte load of
// each A row and of each B column (B col) or eight 16-byte row pieces
// (B row). Those eight values are the lane's k-slots of two m16n8k16 steps:
// step 0 takes physical 8q+0..3 as logical {2q, 2q+1, 2q+8, 2q+9}, step 1
// takes 8q+4..7. So no shuffles and no narrow loads are needed for B col;
// B row (N contiguous) packs pairs of K rows with byte permutes.
//
// CTA = 4 warps over 16 MT rows x 64 columns; warps take interleaved 32-wide K
// chunks of the CTA's K range and are summed in shared memory. K splits
// (gridDim.y) add their fp32 sums into one workspace tile with vector
// atomics; the last CTA of a tile (per-tile counter) writes C from it and
// zeroes it.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

namespace cudaopt::gemm {
namespace {

constexpr int Warps = 4;
constexpr int Threads = Warps * 32;
constexpr int Cols = 64;  // output columns per CTA: 8 n-tiles of 8
constexpr int Chunk = 32; // K per chunk: two k16 mma steps

struct GemvParams {
  const uint16_t *A, *B;
  void *C;
  long long Lda, Ldb, Ldc;
  int M, N, K;
  float Alpha, Beta;
  int Chunks;       // ceil(K / Chunk)
  int ChunksPerCta; // chunks of one K split
  int Splits;
  float *Workspace;   // M x N fp32 accumulator, zero between launches
  unsigned *Counters; // one per output tile, zero between launches
};

/// Chunks per warp whose loads are in flight together: the 64-row instance
/// has 4x the A fragments and accumulators, so one.
template <int MT> __host__ __device__ constexpr int unrollFor() {
  return MT == 1 ? 2 : 1;
}
template <int MT> __host__ __device__ constexpr int minBlocksFor() {
  return MT == 1 ? 3 : 2;
}
template <int MT> constexpr size_t redBytes() {
  return size_t(Warps) * 16 * MT * (Cols + 4) * 4;
}

template <typename T> struct MmaSync;
template <> struct MmaSync<__half> {
  static __device__ __forceinline__ void run(float (&D)[4], uint32_t A0,
                                             uint32_t A1, uint32_t A2,
                                             uint32_t A3, uint32_t B0,
                                             uint32_t B1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(D[0]), "+f"(D[1]), "+f"(D[2]), "+f"(D[3])
        : "r"(A0), "r"(A1), "r"(A2), "r"(A3), "r"(B0), "r"(B1));
  }
};
template <> struct MmaSync<__nv_bfloat16> {
  static __device__ __forceinline__ void run(float (&D)[4], uint32_t A0,
                                             uint32_t A1, uint32_t A2,
                                             uint32_t A3, uint32_t B0,
                                             uint32_t B1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(D[0]), "+f"(D[1]), "+f"(D[2]), "+f"(D[3])
        : "r"(A0), "r"(A1), "r"(A2), "r"(A3), "r"(B0), "r"(B1));
  }
};

/// 16 bytes of B, read once: not kept in L1 (A is, it is re-read by every
/// CTA).
__device__ __forceinline__ uint4 loadStream(const uint16_t *P) {
  uint4 R;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];\n"
      : "=r"(R.x), "=r"(R.y), "=r"(R.z), "=r"(R.w)
      : "l"(P));
  return R;
}

__device__ __forceinline__ uint32_t word(const uint4 &V, int I) {
  return I == 0 ? V.x : I == 1 ? V.y : I == 2 ? V.z : V.w;
}

/// Eight consecutive elements P[0..8), zero from Limit on (Limit < 8).
__device__ __forceinline__ uint4 loadPartial(const uint16_t *P, int Limit) {
  uint32_t W[4] = {0, 0, 0, 0};
#pragma unroll
  for (int I = 0; I < 8; ++I)
    if (I < Limit)
      W[I / 2] |= uint32_t(P[I]) << (16 * (I % 2));
  return make_uint4(W[0], W[1], W[2], W[3]);
}

template <typename T> struct Pack2;
template <> struct Pack2<__half> {
  using Type = __half2;
  static __device__ __forceinline__ __half2 make(float A, float B) {
    return __floats2half2_rn(A, B);
  }
};
template <> struct Pack2<__nv_bfloat16> {
  using Type = __nv_bfloat162;
  static __device__ __forceinline__ __nv_bfloat162 make(float A, float B) {
    return __floats2bfloat162_rn(A, B);
  }
};

template <typename T>
__device__ __forceinline__ void storeOut(const GemvParams &P, int Row, int Col,
                                         float V) {
  T *C = static_cast<T *>(P.C) + Row * P.Ldc + Col;
  V *= P.Alpha;
  if (P.Beta != 0.0f)
    V += P.Beta * static_cast<float>(*C);
  *C = static_cast<T>(V);
}

template <typename T, bool BRow, int MT>
__global__ void __launch_bounds__(Threads, minBlocksFor<MT>())
    gemvKernel(const GemvParams P) {
  constexpr int Rows = 16 * MT, Unroll = unrollFor<MT>();
  extern __shared__ float RedRaw[];
  auto Red = reinterpret_cast<float(*)[Rows][Cols + 4]>(RedRaw);
  __shared__ int IsLast;
  const int Warp = threadIdx.x / 32, Lane = threadIdx.x % 32;
  const int G = Lane / 4, Q = Lane % 4;
  const int Nb = blockIdx.x * Cols;
  const int Mb = blockIdx.z * Rows;
  const int MRows = min(Rows, P.M - Mb); // rows of this tile inside M
  const int TileId = blockIdx.z * gridDim.x + blockIdx.x;
  const int Split = blockIdx.y;
  const int C0 = Split * P.ChunksPerCta;
  const int C1 = min(P.Chunks, C0 + P.ChunksPerCta);
  // Programmatic dependent launch (see Sm90Gemm.cuh): the next kernel may
  // start; this one waits for its predecessor before any global access.
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  asm volatile("griddepcontrol.wait;\n" ::: "memory");

  // This lane's A rows in m-tile Mt: Mb + 16 Mt + G and + 8 (zero past M).
  bool HasA[MT][2];
  const uint16_t *ARow[MT][2];
#pragma unroll
  for (int Mt = 0; Mt < MT; ++Mt)
#pragma unroll
    for (int H = 0; H < 2; ++H) {
      const int R = 16 * Mt + G + 8 * H;
      HasA[Mt][H] = R < MRows;
      ARow[Mt][H] = P.A + static_cast<long long>(Mb + (R < MRows ? R : 0)) * P.Lda;
    }
  // B col: n-tile J reads column Nb + 8J + G (clamped: those outputs are
  // dropped). B row: the lane reads columns Nb + 8G .. Nb + 8G + 7.
  const int RowCol0 = Nb + 8 * G;
  const int RowColsValid = min(8, P.N - RowCol0); // <= 0: none

  float Acc[MT][8][4];
#pragma unroll
  for (int Mt = 0; Mt < MT; ++Mt)
#pragma unroll
    for (int J = 0; J < 8; ++J)
#pragma unroll
      for (int E = 0; E < 4; ++E)
        Acc[Mt][J][E] = 0.0f;

  // A warp takes Unroll adjacent chunks at a time; lane quad Q owns the
  // 8 Unroll consecutive k at Q x 8 Unroll of them (piece U = the U-th 8),
  // so the four lanes of a B column read 64 Unroll contiguous bytes. Split
  // ranges are whole multiples of Unroll chunks; pieces past K read zero.
  for (int Cb = C0 + Unroll * Warp; Cb < C1; Cb += Unroll * Warps) {
    uint4 Av[Unroll][MT][2], Bv[Unroll][8];
    // All loads of the Unroll pieces first, then the mma steps.
#pragma unroll
    for (int U = 0; U < Unroll; ++U) {
      const int K0 = Cb * Chunk + Q * 8 * Unroll + 8 * U; // this piece's k
      const int KLeft = P.K - K0;                         // valid k from K0
      const uint4 Zero = make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int Mt = 0; Mt < MT; ++Mt)
#pragma unroll
        for (int H = 0; H < 2; ++H)
          Av[U][Mt][H] =
              !HasA[Mt][H] || KLeft <= 0 ? Zero
              : KLeft >= 8 ? __ldg(reinterpret_cast<const uint4 *>(
                                 ARow[Mt][H] + K0))
                           : loadPartial(ARow[Mt][H] + K0, KLeft);
      if constexpr (!BRow) {
#pragma unroll
        for (int J = 0; J < 8; ++J) {
          const uint16_t *Col =
              P.B + static_cast<long long>(min(Nb + 8 * J + G, P.N - 1)) * P.Ldb;
          Bv[U][J] = KLeft >= 8  ? loadStream(Col + K0)
                     : KLeft > 0 ? loadPartial(Col + K0, KLeft)
                                 : Zero;
        }
      } else {
#pragma unroll
        for (int I = 0; I < 8; ++I) {
          const uint16_t *Row =
              P.B + static_cast<long long>(K0 + I) * P.Ldb + RowCol0;
          Bv[U][I] = I >= KLeft || RowColsValid <= 0 ? Zero
                     : RowColsValid == 8             ? loadStream(Row)
                                         : loadPartial(Row, RowColsValid);
        }
      }
    }
#pragma unroll
    for (int U = 0; U < Unroll; ++U) {
#pragma unroll
      for (int J = 0; J < 8; ++J) {
        uint32_t B[4];
        if constexpr (!BRow) {
          B[0] = Bv[U][J].x;
          B[1] = Bv[U][J].y;
          B[2] = Bv[U][J].z;
          B[3] = Bv[U][J].w;
        } else {
          // n-tile J, column slot G <-> physical column Nb + 8G + J: pair
          // K rows (8q+2i, 8q+2i+1) of that column.
          const unsigned Sel = (J % 2) ? 0x7632u : 0x5410u;
#pragma unroll
          for (int I = 0; I < 4; ++I)
            B[I] = __byte_perm(word(Bv[U][2 * I], J / 2),
                               word(Bv[U][2 * I + 1], J / 2), Sel);
        }
#pragma unroll
        for (int Mt = 0; Mt < MT; ++Mt) {
          const uint4 A0 = Av[U][Mt][0], A1 = Av[U][Mt][1];
          MmaSync<T>::run(Acc[Mt][J], A0.x, A1.x, A0.y, A1.y, B[0], B[1]);
          MmaSync<T>::run(Acc[Mt][J], A0.z, A1.z, A0.w, A1.w, B[2], B[3]);
        }
      }
    }
  }

  // Accumulator fragment: Acc[Mt][J][0..1] row 16 Mt + G, [2..3] row
  // 16 Mt + G + 8; logical columns 2Q and 2Q + 1 of n-tile J.
#pragma unroll
  for (int Mt = 0; Mt < MT; ++Mt)
#pragma unroll
    for (int J = 0; J < 8; ++J)
#pragma unroll
      for (int E = 0; E < 4; ++E) {
        const int R = 16 * Mt + G + (E / 2) * 8;
        const int L = 2 * Q + (E % 2); // logical column in the n-tile
        const int Cl = BRow ? 8 * L + J : 8 * J + L;
        Red[Warp][R][Cl] = Acc[Mt][J][E];
      }
  __syncthreads();

  if (P.Splits == 1) {
    // 8 adjacent columns per thread: one 16-byte store where C allows.
    for (int It = threadIdx.x; It < MRows * (Cols / 8); It += Threads) {
      const int R = It / (Cols / 8), Cl = (It % (Cols / 8)) * 8;
      const int Col = Nb + Cl;
      if (Col >= P.N)
        continue;
      float V[8];
#pragma unroll
      for (int I = 0; I < 8; ++I)
        V[I] = 0.0f;
#pragma unroll
      for (int W = 0; W < Warps; ++W) {
        const float4 X0 = *reinterpret_cast<const float4 *>(&Red[W][R][Cl]);
        const float4 X1 =
            *reinterpret_cast<const float4 *>(&Red[W][R][Cl + 4]);
        V[0] += X0.x, V[1] += X0.y, V[2] += X0.z, V[3] += X0.w;
        V[4] += X1.x, V[5] += X1.y, V[6] += X1.z, V[7] += X1.w;
      }
      T *C = static_cast<T *>(P.C) + (Mb + R) * P.Ldc + Col;
      if (P.Beta == 0.0f && Col + 8 <= P.N &&
          reinterpret_cast<uintptr_t>(C) % 16 == 0) {
        using P2 = Pack2<T>;
        uint4 Out;
        uint32_t *O = reinterpret_cast<uint32_t *>(&Out);
#pragma unroll
        for (int I = 0; I < 4; ++I) {
          typename P2::Type H = P2::make(P.Alpha * V[2 * I], P.Alpha * V[2 * I + 1]);
          O[I] = *reinterpret_cast<uint32_t *>(&H);
        }
        *reinterpret_cast<uint4 *>(C) = Out;
        continue;
      }
#pragma unroll
      for (int I = 0; I < 8; ++I)
        if (Col + I < P.N)
          storeOut<T>(P, Mb + R, Col + I, V[I]);
    }
    return;
  }
  // K split: the CTA's sums are added into one fp32 accumulator tile in the
  // workspace with vector atomics (RED, performed in L2, all CTAs in
  // parallel); the last CTA of the tile writes C from it and zeroes it.
  const bool Vec4 = P.N % 4 == 0;
  for (int It = threadIdx.x; It < MRows * (Cols / 4); It += Threads) {
    const int R = It / (Cols / 4), Cl = (It % (Cols / 4)) * 4;
    const int Col = Nb + Cl;
    if (Col >= P.N)
      continue;
    float4 V = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int W = 0; W < Warps; ++W) {
      const float4 X = *reinterpret_cast<const float4 *>(&Red[W][R][Cl]);
      V.x += X.x, V.y += X.y, V.z += X.z, V.w += X.w;
    }
    float *Wp = P.Workspace + static_cast<long long>(Mb + R) * P.N + Col;
    if (Vec4) {
      atomicAdd(reinterpret_cast<float4 *>(Wp), V);
    } else {
      atomicAdd(Wp, V.x);
      if (Col + 1 < P.N)
        atomicAdd(Wp + 1, V.y);
      if (Col + 2 < P.N)
        atomicAdd(Wp + 2, V.z);
      if (Col + 3 < P.N)
        atomicAdd(Wp + 3, V.w);
    }
  }
  // Same handshake as the sm_90a split-K epilogue: the barrier orders the
  // CTA's atomics before thread 0's release fence; its fence after the
  // counter update acquires the other CTAs' sums for the whole CTA.
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    IsLast = atomicAdd(&P.Counters[TileId], 1u) == unsigned(P.Splits - 1);
    __threadfence();
  }
  __syncthreads();
  if (!IsLast)
    return;
  for (int It = threadIdx.x; It < MRows * (Cols / 4); It += Threads) {
    const int R = It / (Cols / 4), Cl = (It % (Cols / 4)) * 4;
    const int Col = Nb + Cl;
    if (Col >= P.N)
      continue;
    float *Wp = P.Workspace + static_cast<long long>(Mb + R) * P.N + Col;
    float4 V;
    if (Vec4) {
      V = __ldcg(reinterpret_cast<const float4 *>(Wp));
      __stcg(reinterpret_cast<float4 *>(Wp), make_float4(0.0f, 0.0f, 0.0f, 0.0f));
    } else {
      const int Last = P.N - 1 - Col; // >= 0
      V.x = __ldcg(Wp);
      V.y = __ldcg(Wp + min(1, Last));
      V.z = __ldcg(Wp + min(2, Last));
      V.w = __ldcg(Wp + min(3, Last));
      for (int I = 0; I < 4 && I <= Last; ++I)
        __stcg(Wp + I, 0.0f);
    }
    storeOut<T>(P, Mb + R, Col, V.x);
    if (Col + 1 < P.N)
      storeOut<T>(P, Mb + R, Col + 1, V.y);
    if (Col + 2 < P.N)
      storeOut<T>(P, Mb + R, Col + 2, V.z);
    if (Col + 3 < P.N)
      storeOut<T>(P, Mb + R, Col + 3, V.w);
  }
  if (threadIdx.x == 0)
    P.Counters[TileId] = 0;
}

template <typename T, bool BRow, int MT>
cudaError_t launch(const GemvParams &K, dim3 Grid, cudaStream_t Stream) {
  auto *Kernel = gemvKernel<T, BRow, MT>;
  static const cudaError_t AttrErr = cudaFuncSetAttribute(
      Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(redBytes<MT>()));
  if (AttrErr != cudaSuccess)
    return AttrErr;
  cudaLaunchConfig_t Config = {};
  cudaLaunchAttribute Attr[1];
  Attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  Attr[0].val.programmaticStreamSerializationAllowed = 1;
  Config.gridDim = Grid;
  Config.blockDim = dim3(Threads);
  Config.dynamicSmemBytes = redBytes<MT>();
  Config.stream = Stream;
  Config.attrs = Attr;
  // Launched without it: run 18 measured the decode shapes 1-3% slower
  // with it (the next call's CTAs, 3 per SM, take the free slots early);
  // the griddepcontrol instructions are then no-ops.
  Config.numAttrs = 0;
  return cudaLaunchKernelEx(&Config, Kernel, K);
}

template <int MT>
cudaError_t launchTyped(const cudaoptGemmProblem &P, const GemvParams &K,
                        dim3 Grid, cudaStream_t Stream) {
  const bool Row = P.LayoutB == CUDAOPT_GEMM_B_ROW;
  if (P.Type == CUDAOPT_GEMM_BF16)
    return Row ? launch<__nv_bfloat16, true, MT>(K, Grid, Stream)
               : launch<__nv_bfloat16, false, MT>(K, Grid, Stream);
  return Row ? launch<__half, true, MT>(K, Grid, Stream)
             : launch<__half, false, MT>(K, Grid, Stream);
}

} // namespace

/// Chunks per K split: a multiple of two (the 16-row kernel's unroll).
static int chunksPerSplit(int Chunks, int Splits) {
  Splits = Splits < 1 ? 1 : (Splits > Chunks ? Chunks : Splits);
  int PerCta = (Chunks + Splits - 1) / Splits;
  return (PerCta + 1) / 2 * 2;
}

int gemvSplits(int K, int Splits) {
  int Chunks = (K + Chunk - 1) / Chunk;
  int PerCta = chunksPerSplit(Chunks, Splits);
  return (Chunks + PerCta - 1) / PerCta;
}

cudaError_t launchMmaSync(const cudaoptGemmProblem &P,
                          const cudaoptGemmPlan &Plan, void *Workspace,
                          size_t WorkspaceBytes, cudaStream_t Stream) {
  const int Rows = mmaSyncRows(Plan.Kernel);
  if (Rows == 0)
    return cudaErrorInvalidValue;
  GemvParams K;
  K.A = static_cast<const uint16_t *>(P.A);
  K.B = static_cast<const uint16_t *>(P.B);
  K.C = P.C;
  K.Lda = P.Lda;
  K.Ldb = P.Ldb;
  K.Ldc = P.Ldc;
  K.M = P.M;
  K.N = P.N;
  K.K = P.K;
  K.Alpha = P.Alpha;
  K.Beta = P.Beta;
  K.Chunks = (P.K + Chunk - 1) / Chunk;
  K.ChunksPerCta = chunksPerSplit(K.Chunks, Plan.Splits);
  K.Splits = (K.Chunks + K.ChunksPerCta - 1) / K.ChunksPerCta;
  K.Workspace = nullptr;
  K.Counters = nullptr;
  const int Groups = (P.N + Cols - 1) / Cols;
  const int MTiles = (P.M + Rows - 1) / Rows;
  if (MTiles > 65535)
    return cudaErrorInvalidValue;
  if (K.Splits > 1) {
    if (!Workspace || WorkspaceBytes < splitWorkspaceBytes(P.M, P.N, K.Splits) ||
        static_cast<long long>(Groups) * MTiles > MaxSplitTiles)
      return cudaErrorInvalidValue;
    K.Counters = static_cast<unsigned *>(Workspace);
    K.Workspace = reinterpret_cast<float *>(static_cast<char *>(Workspace) +
                                            SplitCounterBytes);
  }
  dim3 Grid(Groups, K.Splits, MTiles);
  return Rows == 16 ? launchTyped<1>(P, K, Grid, Stream)
                    : launchTyped<4>(P, K, Grid, Stream);
}

} // namespace cudaopt::gemm
