//===- TlsSpmm.cu - SpMM kernel for the three-layer sparse format ---------===//
//
// Each warp owns a 16-row tile of W and walks its K range 256 columns (one
// format block, eight mma.sp k-steps) at a time. Per block a lane
//   1. reads its two rows' occupancy words and derives, per lane-row, which
//      of its 32 slots are empty and which layer-2 positions need a value;
//   2. reads its eight layer-1 A fragments (one 16-byte load each, empty
//      slots masked to zero), then gathers the layer-2 values (slot-filled
//      ones from its own empty slots, the rest from the block's residual
//      list) in place into the staged slots, in A-fragment order;
//   3. per k-step: a byte-table lookup gives the layer-1 mma.sp metadata,
//      one 16-byte load (masked by the need bits) the layer-2 fragment
//      (metadata is constant), and each n8 tile of X (one ldmatrix.x4)
//      feeds both mma.sp.
// A variant (L2BUF) gathers into a separate buffer instead; see below.
// The CTA's warps share the X tile. Blocks of W, their residual values and
// the X tile are staged with cp.async, STAGES deep. Split-K partial sums go
// to a workspace; the last CTA of each output tile (an atomic counter) adds
// them up and writes Y, then resets the counter.
//
//===----------------------------------------------------------------------===//

#include "TlsLayout.h"
#include "TlsSpmm.h"

#include <algorithm>

namespace cudaopt {
namespace sparse {

namespace {

constexpr int XPitch = BlockCols + 8; // halves; 16-byte pad kills conflicts
constexpr int WBlockBytes = BlockSlots * 2 + BlockBitmapWords * 4; // 4608

struct Params {
  const uint16_t *Values;
  const uint32_t *Bitmap;
  const uint32_t *ResOff;
  const uint16_t *Residual;
  const __half *X;
  __half *Y;
  float *Partial;
  unsigned *Counters;
  int Ldx, Ldy;
  int M, K, N;
  int Tiles, BlockColumns;
  int SplitK, NChunks, MBlocks;
  int RCap;    // residual values staged per warp and stage (multiple of 8)
  int MaxWin;  // most blocks one CTA walks (its residual offsets are staged)
};

__device__ __forceinline__ uint32_t smemAddr(const void *P) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(P));
}

__device__ __forceinline__ void cpAsync16(void *Dst, const void *Src,
                                          int SrcBytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                   smemAddr(Dst)),
               "l"(Src), "r"(SrcBytes));
}
__device__ __forceinline__ void cpAsync16(void *Dst, const void *Src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(
                   smemAddr(Dst)),
               "l"(Src));
}
__device__ __forceinline__ void cpAsyncCommit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int N> __device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrixX4(uint32_t (&B)[4], const void *P) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
      : "=r"(B[0]), "=r"(B[1]), "=r"(B[2]), "=r"(B[3])
      : "r"(smemAddr(P)));
}

__device__ __forceinline__ void mmaSp(float (&C)[4], const uint4 &A,
                                      const uint32_t (&B)[4], uint32_t Meta) {
  asm volatile(
      "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "
      "{%0, %1, %2, %3}, %12, 0x0;\n"
      : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
      : "r"(A.x), "r"(A.y), "r"(A.z), "r"(A.w), "r"(B[0]), "r"(B[1]),
        "r"(B[2]), "r"(B[3]), "r"(Meta));
}

/// Keeps the halves of a register whose bit in Bits (bit 0: low half) is set.
__device__ __forceinline__ uint32_t keepBits(uint32_t Bits) {
  return ((Bits & 1) ? 0x0000FFFFu : 0u) | ((Bits & 2) ? 0xFFFF0000u : 0u);
}

template <int NT, int WARPS> struct Layout {
  static constexpr int XBytes = NT * XPitch * 2;
  __host__ __device__ static int stageBytes(int RCap) {
    return XBytes + WARPS * WBlockBytes + WARPS * RCap * 2;
  }
  __host__ __device__ static int totalBytes(int Stages, int RCap, int MaxWin,
                                            bool L2Buffer) {
    return Stages * stageBytes(RCap) + WARPS * (MaxWin + 1) * 4 + 512 +
           (L2Buffer ? WARPS * BlockSlots * 2 : 0);
  }
};

/// Stage loads: the X tile by the whole CTA, each warp its own W block.
template <int NT, int WARPS>
__device__ __forceinline__ void loadXW(const Params &P, unsigned char *Stage,
                                       int Nc, int Win, int Tile, int Warp,
                                       int Lane) {
  constexpr int Threads = WARPS * 32;
  __half *Xs = reinterpret_cast<__half *>(Stage);
  for (int I = threadIdx.x; I < NT * 32; I += Threads) {
    int Nl = I >> 5, C = I & 31;
    int Gn = Nc * NT + Nl, Gk = Win * BlockCols + C * 8;
    int Bytes = 0;
    const __half *Src = P.X;
    if (Gn < P.N && Gk < P.K) {
      Bytes = min(16, (P.K - Gk) * 2);
      Src = P.X + size_t(Gn) * P.Ldx + Gk;
    }
    cpAsync16(Xs + Nl * XPitch + C * 8, Src, Bytes);
  }
  if (Tile >= P.Tiles)
    return;
  unsigned char *Ws = Stage + Layout<NT, WARPS>::XBytes + Warp * WBlockBytes;
  size_t Block = size_t(Tile) * P.BlockColumns + Win;
  const unsigned char *V =
      reinterpret_cast<const unsigned char *>(P.Values + Block * BlockSlots);
  const unsigned char *B = reinterpret_cast<const unsigned char *>(
      P.Bitmap + Block * BlockBitmapWords);
#pragma unroll
  for (int C = Lane; C < 256; C += 32)
    cpAsync16(Ws + C * 16, V + C * 16);
  cpAsync16(Ws + 4096 + Lane * 16, B + Lane * 16);
}

/// The chunks covering this warp's residual values of one block.
template <int NT, int WARPS>
__device__ __forceinline__ void loadResidual(const Params &P,
                                             unsigned char *Stage,
                                             const uint32_t *RO, int J,
                                             int Tile, int Warp, int Lane) {
  if (Tile >= P.Tiles || P.RCap == 0)
    return;
  uint16_t *Rs = reinterpret_cast<uint16_t *>(
                     Stage + Layout<NT, WARPS>::XBytes + WARPS * WBlockBytes) +
                 Warp * P.RCap;
  uint32_t Start = RO[J], End = RO[J + 1];
  uint32_t Aligned = Start & ~7u;
  int Chunks = min(int((End - Aligned + 7) >> 3), P.RCap >> 3);
  for (int C = Lane; C < Chunks; C += 32)
    cpAsync16(Rs + C * 8, P.Residual + Aligned + C * 8);
}

/// L2BUF = false: layer-2 values are gathered in place into the staged slots
/// and both operands are masked per k-step. L2BUF = true: they go to a
/// separate zeroed per-warp buffer and the empty slots they came from are
/// zeroed, so neither operand needs masking (more shared memory, fewer
/// instructions).
template <int NT, int WARPS, int STAGES, bool L2BUF>
__global__ void __launch_bounds__(WARPS * 32)
    tlsSpmmKernel(const Params P) {
  extern __shared__ __align__(16) unsigned char Smem[];
  constexpr int NTiles8 = NT / 8;
  // Two accumulator sets (layer 1, layer 2) halve the mma dependency chain
  // when there are few n-tiles to interleave.
  constexpr int Sets = NTiles8 <= 2 ? 2 : 1;
  const int StageBytes = Layout<NT, WARPS>::stageBytes(P.RCap);
  const int Tid = threadIdx.x, Warp = Tid >> 5, Lane = Tid & 31;
  const int G = Lane >> 2, Tig = Lane & 3;
  uint32_t *RO = reinterpret_cast<uint32_t *>(Smem + STAGES * StageBytes) +
                 Warp * (P.MaxWin + 1);
  uint8_t *LutMeta = Smem + STAGES * StageBytes + WARPS * (P.MaxWin + 1) * 4;
  uint8_t *LutInfo = LutMeta + 256;
  uint16_t *L2Buf = reinterpret_cast<uint16_t *>(LutInfo + 256) +
                    Warp * BlockSlots;

  int Id = blockIdx.x;
  const int Nc = Id % P.NChunks;
  Id /= P.NChunks;
  const int Split = Id % P.SplitK;
  const int Mb = Id / P.SplitK;
  const int Base = P.BlockColumns / P.SplitK, Rem = P.BlockColumns % P.SplitK;
  const int Win0 = Split * Base + min(Split, Rem);
  const int NumWin = Base + (Split < Rem ? 1 : 0);
  const int Tile = Mb * WARPS + Warp;

  // Start the first stages' X and W copies, then fetch the residual offsets
  // this warp will need (one small global read per CTA instead of one per
  // block on the critical path).
#pragma unroll
  for (int S = 0; S < STAGES - 1; ++S)
    if (S < NumWin)
      loadXW<NT, WARPS>(P, Smem + S * StageBytes, Nc, Win0 + S, Tile, Warp,
                        Lane);
  for (int I = Tid; I < 256; I += WARPS * 32) {
    LutMeta[I] = uint8_t(metaByte(I));
    LutInfo[I] = uint8_t(infoByte(I));
  }
  if (Tile < P.Tiles)
    for (int J = Lane; J <= NumWin; J += 32)
      RO[J] = __ldg(P.ResOff + size_t(Tile) * P.BlockColumns + Win0 + J);
  __syncwarp();
#pragma unroll
  for (int S = 0; S < STAGES - 1; ++S) {
    if (S < NumWin)
      loadResidual<NT, WARPS>(P, Smem + S * StageBytes, RO, S, Tile, Warp,
                              Lane);
    cpAsyncCommit();
  }

  float Acc[Sets][NTiles8][4];
#pragma unroll
  for (int S = 0; S < Sets; ++S)
#pragma unroll
    for (int J = 0; J < NTiles8; ++J)
      Acc[S][J][0] = Acc[S][J][1] = Acc[S][J][2] = Acc[S][J][3] = 0.f;

  auto Info = [&](uint32_t B) { return uint32_t(LutInfo[B]); };

  for (int I = 0; I < NumWin; ++I) {
    cpAsyncWait<STAGES - 2>();
    __syncthreads();
    {
      int Next = I + STAGES - 1;
      if (Next < NumWin) {
        unsigned char *St = Smem + (Next % STAGES) * StageBytes;
        loadXW<NT, WARPS>(P, St, Nc, Win0 + Next, Tile, Warp, Lane);
        loadResidual<NT, WARPS>(P, St, RO, Next, Tile, Warp, Lane);
      }
      cpAsyncCommit();
    }
    if (Tile >= P.Tiles)
      continue;
    unsigned char *Stage = Smem + (I % STAGES) * StageBytes;
    const __half *Xs = reinterpret_cast<const __half *>(Stage);
    unsigned char *Ws = Stage + Layout<NT, WARPS>::XBytes + Warp * WBlockBytes;
    uint16_t *Vals = reinterpret_cast<uint16_t *>(Ws);
    const uint32_t *Bits = reinterpret_cast<const uint32_t *>(Ws + BlockSlots * 2);
    const uint16_t *Rs =
        reinterpret_cast<const uint16_t *>(Stage + Layout<NT, WARPS>::XBytes +
                                           WARPS * WBlockBytes) +
        Warp * P.RCap;

    uint32_t WG[8], WG8[8];
    {
      const uint4 *B0 = reinterpret_cast<const uint4 *>(Bits + G * 8);
      const uint4 *B1 = reinterpret_cast<const uint4 *>(Bits + (G + 8) * 8);
      uint4 V0 = B0[0], V1 = B0[1], V2 = B1[0], V3 = B1[1];
      WG[0] = V0.x, WG[1] = V0.y, WG[2] = V0.z, WG[3] = V0.w;
      WG[4] = V1.x, WG[5] = V1.y, WG[6] = V1.z, WG[7] = V1.w;
      WG8[0] = V2.x, WG8[1] = V2.y, WG8[2] = V2.z, WG8[3] = V2.w;
      WG8[4] = V3.x, WG8[5] = V3.y, WG8[6] = V3.z, WG8[7] = V3.w;
    }
    uint32_t E0, N0, E1, N1;
    laneRowMasks(WG, Tig, Info, E0, N0);
    laneRowMasks(WG8, Tig, Info, E1, N1);

    // Layer 1 fragments for all eight k-steps, empty slots zeroed (in-place
    // variant: read before the gather overwrites layer-2 positions).
    uint4 A1[KStepsPerBlock];
    if (!L2BUF) {
#pragma unroll
      for (int T = 0; T < KStepsPerBlock; ++T) {
        uint4 A = *reinterpret_cast<const uint4 *>(Vals + slotIndex(T, Lane, 0, 0, 0));
        A.x &= keepMask((E0 >> (4 * T)) & 3);
        A.y &= keepMask((E1 >> (4 * T)) & 3);
        A.z &= keepMask((E0 >> (4 * T + 2)) & 3);
        A.w &= keepMask((E1 >> (4 * T + 2)) & 3);
        A1[T] = A;
      }
    } else {
      uint4 Zero = make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int T = 0; T < KStepsPerBlock; ++T)
        *reinterpret_cast<uint4 *>(L2Buf + slotIndex(T, Lane, 0, 0, 0)) = Zero;
    }
    __syncwarp();

    // Layers 2 and 3. In place: a layer-2 position is never an empty slot
    // (its group has three or more nonzeros), and its layer-1 value is
    // already in A1, so the gathered values overwrite nothing still needed.
    // With the buffer: each consumed empty slot is zeroed for layer 1.
    uint16_t *Dst = L2BUF ? L2Buf : Vals;
    {
      int R0 = residualCount(E0, N0), R1 = residualCount(E1, N1);
      int Incl = R0 + R1;
#pragma unroll
      for (int D = 1; D < 32; D <<= 1) {
        int V = __shfl_up_sync(0xffffffffu, Incl, D);
        if (Lane >= D)
          Incl += V;
      }
      uint32_t RStart = RO[I];
      int Q0 = int(RStart & 7u) + Incl - R0 - R1, Q1 = Q0 + R0;
      const uint16_t *GRes = P.Residual + (RStart & ~7u);
      uint32_t E0r = E0, N0r = N0, E1r = E1, N1r = N1;
      while (N0r | N1r) {
        if (N0r) {
          int X = lowestBit(N0r);
          N0r &= N0r - 1;
          uint16_t V;
          if (E0r) {
            int Y = laneRowSlotIndex(Lane, 0, lowestBit(E0r));
            V = Vals[Y];
            if (L2BUF)
              Vals[Y] = 0;
            E0r &= E0r - 1;
          } else {
            V = Q0 < P.RCap ? Rs[Q0] : __ldg(GRes + Q0);
            ++Q0;
          }
          Dst[laneRowSlotIndex(Lane, 0, X)] = V;
        }
        if (N1r) {
          int X = lowestBit(N1r);
          N1r &= N1r - 1;
          uint16_t V;
          if (E1r) {
            int Y = laneRowSlotIndex(Lane, 1, lowestBit(E1r));
            V = Vals[Y];
            if (L2BUF)
              Vals[Y] = 0;
            E1r &= E1r - 1;
          } else {
            V = Q1 < P.RCap ? Rs[Q1] : __ldg(GRes + Q1);
            ++Q1;
          }
          Dst[laneRowSlotIndex(Lane, 1, X)] = V;
        }
      }
    }
    __syncwarp();

    const int Pair = Tig & 1;
#pragma unroll
    for (int T = 0; T < KStepsPerBlock; ++T) {
      uint32_t Wg = WG[T] >> (16 * Pair), Wg8 = WG8[T] >> (16 * Pair);
      uint32_t Meta = uint32_t(LutMeta[Wg & 0xFF]) |
                      uint32_t(LutMeta[(Wg >> 8) & 0xFF]) << 8 |
                      uint32_t(LutMeta[Wg8 & 0xFF]) << 16 |
                      uint32_t(LutMeta[(Wg8 >> 8) & 0xFF]) << 24;
      uint32_t NT0 = N0 >> (4 * T), NT1 = N1 >> (4 * T);
      bool AnyL2 = __any_sync(0xffffffffu, (NT0 | NT1) & 0xF);
      uint4 A2 = make_uint4(0, 0, 0, 0);
      if (L2BUF) {
        A1[T] = *reinterpret_cast<const uint4 *>(Vals + slotIndex(T, Lane, 0, 0, 0));
        if (AnyL2)
          A2 = *reinterpret_cast<const uint4 *>(L2Buf + slotIndex(T, Lane, 0, 0, 0));
      } else if (AnyL2) {
        A2 = *reinterpret_cast<const uint4 *>(Vals + slotIndex(T, Lane, 0, 0, 0));
        A2.x &= keepBits(NT0 & 3);
        A2.y &= keepBits(NT1 & 3);
        A2.z &= keepBits((NT0 >> 2) & 3);
        A2.w &= keepBits((NT1 >> 2) & 3);
      }
#pragma unroll
      for (int J = 0; J < NTiles8; ++J) {
        uint32_t B[4];
        ldmatrixX4(B, Xs + (J * 8 + (Lane & 7)) * XPitch + T * 32 +
                          (Lane >> 3) * 8);
        mmaSp(Acc[0][J], A1[T], B, Meta);
        if (AnyL2)
          mmaSp(Acc[Sets - 1][J], A2, B, Layer2Meta);
      }
    }
  }
  cpAsyncWait<0>();

  if (Sets == 2)
#pragma unroll
    for (int J = 0; J < NTiles8; ++J)
#pragma unroll
      for (int E = 0; E < 4; ++E)
        Acc[0][J][E] += Acc[Sets - 1][J][E];

  // Epilogue.
  const int Row0 = Tile * TileRows + G;
  if (P.SplitK == 1) {
#pragma unroll
    for (int J = 0; J < NTiles8; ++J)
#pragma unroll
      for (int E = 0; E < 4; ++E) {
        int M = Row0 + (E >> 1) * 8, N = Nc * NT + J * 8 + 2 * Tig + (E & 1);
        if (M < P.M && N < P.N)
          P.Y[size_t(N) * P.Ldy + M] = __float2half_rn(Acc[0][J][E]);
      }
    return;
  }
  const int Mp = P.MBlocks * WARPS * TileRows;
  const int Np = P.NChunks * NT;
#pragma unroll
  for (int J = 0; J < NTiles8; ++J)
#pragma unroll
    for (int E = 0; E < 4; ++E) {
      int M = Row0 + (E >> 1) * 8, N = Nc * NT + J * 8 + 2 * Tig + (E & 1);
      P.Partial[(size_t(Split) * Np + N) * Mp + M] = Acc[0][J][E];
    }
  __threadfence();
  __syncthreads();
  __shared__ int IsLast;
  if (Tid == 0) {
    unsigned Old = atomicAdd(P.Counters + Mb * P.NChunks + Nc, 1u);
    IsLast = Old == unsigned(P.SplitK - 1);
  }
  __syncthreads();
  if (!IsLast)
    return;
  __threadfence();
  constexpr int Rows = WARPS * TileRows;
  for (int I = Tid; I < Rows * NT; I += WARPS * 32) {
    int M = Mb * Rows + I % Rows, N = Nc * NT + I / Rows;
    float Sum = 0.f;
    for (int S = 0; S < P.SplitK; ++S)
      Sum += __ldcg(P.Partial + (size_t(S) * Np + N) * Mp + M);
    if (M < P.M && N < P.N)
      P.Y[size_t(N) * P.Ldy + M] = __float2half_rn(Sum);
  }
  if (Tid == 0)
    P.Counters[Mb * P.NChunks + Nc] = 0;
}

struct Variant {
  int NT, Warps, Stages;
  bool L2Buffer;
  void (*Kernel)(Params);
  int (*TotalBytes)(int, int, int);
};

template <int NT, int WARPS, int STAGES, bool L2BUF = false>
Variant variant() {
  return {NT, WARPS, STAGES, L2BUF, tlsSpmmKernel<NT, WARPS, STAGES, L2BUF>,
          [](int S, int R, int W) {
            return Layout<NT, WARPS>::totalBytes(S, R, W, L2BUF);
          }};
}

const Variant *allVariants(size_t &Count) {
  static const Variant All[] = {
      variant<8, 4, 2>(),        variant<8, 4, 3>(),
      variant<8, 8, 2>(),        variant<16, 4, 2>(),
      variant<16, 4, 3>(),       variant<16, 8, 2>(),
      variant<32, 4, 2>(),       variant<32, 8, 2>(),
      variant<64, 4, 2>(),       variant<64, 8, 2>(),
      variant<8, 4, 2, true>(),  variant<8, 8, 2, true>(),
      variant<16, 4, 2, true>(), variant<16, 8, 2, true>(),
      variant<32, 4, 2, true>(), variant<32, 8, 2, true>()};
  Count = sizeof(All) / sizeof(All[0]);
  return All;
}

const Variant *findVariant(int NT, int Warps, int Stages, bool L2Buffer) {
  size_t Count;
  const Variant *All = allVariants(Count);
  for (size_t I = 0; I < Count; ++I)
    if (All[I].NT == NT && All[I].Warps == Warps &&
        (!Stages || All[I].Stages == Stages) && All[I].L2Buffer == L2Buffer)
      return &All[I];
  return nullptr;
}

int deviceSms() {
  static int Sms = [] {
    int Dev = 0, N = 0;
    cudaGetDevice(&Dev);
    cudaDeviceGetAttribute(&N, cudaDevAttrMultiProcessorCount, Dev);
    return N > 0 ? N : 1;
  }();
  return Sms;
}

int maxSharedOptin() {
  static int Max = [] {
    int Dev = 0, N = 0;
    cudaGetDevice(&Dev);
    cudaDeviceGetAttribute(&N, cudaDevAttrMaxSharedMemoryPerBlockOptin, Dev);
    return N > 0 ? N : 48 * 1024;
  }();
  return Max;
}

void allowMaxShared(const Variant &V) {
  static bool Done[32] = {};
  size_t Count;
  size_t I = size_t(&V - allVariants(Count));
  if (I < 32 && Done[I])
    return;
  cudaFuncSetAttribute(V.Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       maxSharedOptin() - 1024);
  if (I < 32)
    Done[I] = true;
}

} // namespace

TlsSpmmPlan tlsSpmmPlan(const TlsDeviceMatrix &W, int N,
                        const TlsSpmmOptions &Opts) {
  TlsSpmmPlan Plan{};
  Plan.NTile = Opts.NTile ? Opts.NTile
               : N <= 8   ? 8
               : N <= 16  ? 16
               : N <= 32  ? 32
                          : 64;
  Plan.Warps = Opts.Warps ? Opts.Warps : (Plan.NTile >= 16 ? 8 : 4);
  const Variant *V =
      findVariant(Plan.NTile, Plan.Warps, Opts.Stages, Opts.Layer2Buffer);
  if (!V)
    return Plan;
  Plan.Stages = V->Stages;
  int Tiles = (W.Rows + 15) / 16;
  int BlockColumns = (W.Cols + 255) / 256;
  Plan.MBlocks = (Tiles + Plan.Warps - 1) / Plan.Warps;
  Plan.NChunks = (N + Plan.NTile - 1) / Plan.NTile;
  // Stage as many residual values per block as the worst block has (plus
  // the misalignment of its start); blocks beyond that read global memory.
  auto Fit = [&](int MaxWin, int &RCap) {
    RCap = std::min<int>((W.MaxBlockResidual + 7 + 7) / 8 * 8, 2048);
    while (RCap > 0 &&
           V->TotalBytes(V->Stages, RCap, MaxWin) > maxSharedOptin() - 1024)
      RCap -= 8;
    return size_t(V->TotalBytes(V->Stages, RCap, MaxWin));
  };
  int RCap;
  size_t Shared = Fit(BlockColumns, RCap);
  // The occupancy query answers 0 for more than the kernel's current dynamic
  // shared-memory limit (48 KB until raised), so raise it first; otherwise
  // the first plan of each variant would see one CTA per SM.
  allowMaxShared(*V);
  int PerSm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, V->Kernel,
                                                Plan.Warps * 32, Shared);
  PerSm = std::max(PerSm, 1);
  // With one CTA per SM nothing overlaps one CTA's pipeline fill with
  // another's work unless there are more CTAs than SMs: aim for two waves
  // (3584 x 20480, N = 32: 175 -> 116 us in the run of 2026-11-30).
  int Waves = Opts.WavesTarget ? Opts.WavesTarget : (PerSm == 1 ? 2 : 1);
  int Slots = PerSm * deviceSms() * Waves;
  int Split = Opts.SplitK;
  if (!Split)
    Split = std::max(1, Slots / std::max(1, Plan.MBlocks * Plan.NChunks));
  Plan.SplitK = std::max(1, std::min(Split, BlockColumns));
  Plan.MaxWin = (BlockColumns + Plan.SplitK - 1) / Plan.SplitK;
  Plan.SharedBytes = Fit(Plan.MaxWin, RCap);
  Plan.ResidualCap = RCap;
  Plan.Ctas = Plan.MBlocks * Plan.NChunks * Plan.SplitK;
  return Plan;
}

namespace {
/// Counters sit at the start of the workspace in a region of fixed size, so
/// plans for different N or options can share one workspace: every call
/// leaves its counters at zero and never writes partial sums over another
/// plan's counters.
size_t counterBytes(const TlsSpmmPlan &P) {
  size_t Need = size_t(P.MBlocks) * P.NChunks * sizeof(unsigned);
  return std::max<size_t>((Need + 255) / 256 * 256, size_t(256) << 10);
}
} // namespace

size_t tlsSpmmWorkspaceBytes(const TlsDeviceMatrix &W, int N,
                             const TlsSpmmOptions &Opts) {
  TlsSpmmPlan P = tlsSpmmPlan(W, N, Opts);
  if (!P.Stages)
    return 0;
  size_t Mp = size_t(P.MBlocks) * P.Warps * TileRows;
  size_t Np = size_t(P.NChunks) * P.NTile;
  size_t Partial = P.SplitK > 1 ? size_t(P.SplitK) * Np * Mp * sizeof(float) : 0;
  return counterBytes(P) + Partial;
}

cudaError_t tlsSpmm(const TlsDeviceMatrix &W, const __half *X, int Ldx, int N,
                    __half *Y, int Ldy, void *Workspace, size_t WorkspaceBytes,
                    cudaStream_t Stream, const TlsSpmmOptions &Opts) {
  if (N <= 0 || Ldx % 8 || Ldx < int(W.Cols) || Ldy < int(W.Rows) ||
      reinterpret_cast<uintptr_t>(X) % 16)
    return cudaErrorInvalidValue;
  TlsSpmmPlan Plan = tlsSpmmPlan(W, N, Opts);
  const Variant *V = findVariant(Plan.NTile, Plan.Warps, Plan.Stages,
                                 Opts.Layer2Buffer);
  if (!V || WorkspaceBytes < tlsSpmmWorkspaceBytes(W, N, Opts))
    return cudaErrorInvalidValue;
  Params P{};
  P.Values = W.Values;
  P.Bitmap = W.Bitmap;
  P.ResOff = W.ResidualOffsets;
  P.Residual = W.Residual;
  P.X = X;
  P.Y = Y;
  P.Counters = static_cast<unsigned *>(Workspace);
  P.Partial = reinterpret_cast<float *>(static_cast<char *>(Workspace) +
                                        counterBytes(Plan));
  P.Ldx = Ldx;
  P.Ldy = Ldy;
  P.M = int(W.Rows);
  P.K = int(W.Cols);
  P.N = N;
  P.Tiles = int((W.Rows + 15) / 16);
  P.BlockColumns = int((W.Cols + 255) / 256);
  P.SplitK = Plan.SplitK;
  P.NChunks = Plan.NChunks;
  P.MBlocks = Plan.MBlocks;
  P.RCap = Plan.ResidualCap;
  P.MaxWin = Plan.MaxWin;
  allowMaxShared(*V);
  V->Kernel<<<Plan.Ctas, Plan.Warps * 32, Plan.SharedBytes, Stream>>>(P);
  return cudaGetLastError();
}

cudaError_t tlsUpload(const TlsMatrix &M, TlsDeviceMatrix &D) {
  D = TlsDeviceMatrix();
  D.Rows = M.Rows;
  D.Cols = M.Cols;
  D.NumBlocks = M.numBlocks();
  TlsStats S = computeStats(M);
  D.MaxBlockResidual = S.MaxBlockResidual;
  void *Values, *Bitmap, *Offsets, *Residual;
  size_t ResBytes = (M.Residual.size() + 8) * 2;
  cudaError_t Err;
  if ((Err = cudaMalloc(&Values, M.Values.size() * 2)) != cudaSuccess)
    return Err;
  D.Values = static_cast<uint16_t *>(Values);
  if ((Err = cudaMalloc(&Bitmap, M.Bitmap.size() * 4)) != cudaSuccess)
    return Err;
  D.Bitmap = static_cast<uint32_t *>(Bitmap);
  if ((Err = cudaMalloc(&Offsets, M.ResidualOffsets.size() * 4)) != cudaSuccess)
    return Err;
  D.ResidualOffsets = static_cast<uint32_t *>(Offsets);
  if ((Err = cudaMalloc(&Residual, ResBytes)) != cudaSuccess)
    return Err;
  D.Residual = static_cast<uint16_t *>(Residual);
  cudaMemset(Residual, 0, ResBytes);
  cudaMemcpy(Values, M.Values.data(), M.Values.size() * 2,
             cudaMemcpyHostToDevice);
  cudaMemcpy(Bitmap, M.Bitmap.data(), M.Bitmap.size() * 4,
             cudaMemcpyHostToDevice);
  cudaMemcpy(Offsets, M.ResidualOffsets.data(), M.ResidualOffsets.size() * 4,
             cudaMemcpyHostToDevice);
  return cudaMemcpy(Residual, M.Residual.data(), M.Residual.size() * 2,
                    cudaMemcpyHostToDevice);
}

void tlsFree(TlsDeviceMatrix &D) {
  cudaFree(const_cast<uint16_t *>(D.Values));
  cudaFree(const_cast<uint32_t *>(D.Bitmap));
  cudaFree(const_cast<uint32_t *>(D.ResidualOffsets));
  cudaFree(const_cast<uint16_t *>(D.Residual));
  D = TlsDeviceMatrix();
}

} // namespace sparse
} // namespace cudaopt
