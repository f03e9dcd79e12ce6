//===- TlsSpmm.cu - SpMM kernel for the three-layer sparse format ---------===//
//
// Each warp owns a 16-row tile of W and walks its K range 256 columns (one
// format block, eight mma.sp k-steps) at a time. The format (version 2) is
// laid out so the per-block decode is short and needs no lane-to-lane
// communication but one shuffle per two k-steps:
//   1. each lane's 64 value slots are contiguous (staged with a 16-byte pad
//      per lane, so the per-k-step 16-byte fragment loads are conflict-free)
//      and split into two relocation chains of 32 slots whose bit order is
//      the slot order: a slot is addressed by one shift-add;
//   2. a lane builds the empty/need masks of its two chains from its rows'
//      bitmap words with one table lookup per row and k-step, and half of
//      the layer-1 metadata of its quad (rows g or g + 8, one table lookup
//      per byte), the other half coming from lane + 2 by a shuffle;
//   3. the layer-2 gather walks the needed positions from the top (one FLO
//      each), takes each value from the matching empty slot (zeroing it for
//      layer 1) or from the staged residual list, and writes it into a
//      zeroed per-warp layer-2 buffer with the same layout;
//   4. per k-step: one 16-byte load each for the layer-1 and layer-2 A
//      fragments (no masking), one ldmatrix.x4 per n8 tile of X, two mma.sp.
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
constexpr int LanePitch = 72;         // halves per lane in shared memory
constexpr int WValBytes = 32 * LanePitch * 2;          // 4608
constexpr int WStageBytes = WValBytes + BlockBitmapWords * 4; // 5120

/// Decode tables, shared memory: EN0/EN1 map a lane's bitmap byte of row g
/// / g + 8 to its empty bits (byte 0) and need bits (byte 2), placed so that
/// EN0[b0] | EN1[b1] is one k-step of a chain; Meta maps a bitmap byte (two
/// groups) to their layer-1 mma.sp metadata.
struct Tables {
  uint32_t EN0[256];
  uint32_t EN1[256];
  uint8_t Meta[256];
};
constexpr int TableBytes = int(sizeof(Tables)); // 2304

constexpr Tables makeTables() {
  Tables T{};
  for (uint32_t B = 0; B < 256; ++B) {
    uint32_t I = infoByte(B);
    T.EN0[B] = (I & 0xF) | (I >> 4) << 16;
    T.EN1[B] = T.EN0[B] << 4;
    T.Meta[B] = uint8_t(metaByte(B));
  }
  return T;
}
__device__ const Tables DecodeTables = makeTables();

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

/// A holds the fragment as stored, {a0, a2, a1, a3}.
__device__ __forceinline__ void mmaSp(float (&C)[4], const uint4 &A,
                                      const uint32_t (&B)[4], uint32_t Meta) {
  asm volatile(
      "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "
      "{%0, %1, %2, %3}, %12, 0x0;\n"
      : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
      : "r"(A.x), "r"(A.z), "r"(A.y), "r"(A.w), "r"(B[0]), "r"(B[1]),
        "r"(B[2]), "r"(B[3]), "r"(Meta));
}

template <int NT, int WARPS> struct Layout {
  static constexpr int XBytes = NT * XPitch * 2;
  __host__ __device__ static int stageBytes(int RCap) {
    return XBytes + WARPS * WStageBytes + WARPS * RCap * 2;
  }
  __host__ __device__ static int offsetsBytes(int MaxWin) {
    return (WARPS * (MaxWin + 1) * 4 + 15) / 16 * 16;
  }
  __host__ __device__ static int totalBytes(int Stages, int RCap,
                                            int MaxWin) {
    return Stages * stageBytes(RCap) + offsetsBytes(MaxWin) +
           WARPS * WValBytes + TableBytes;
  }
};

/// Stage loads: the X tile by the whole CTA, each warp its own W block
/// (values to the lane-padded layout, then the bitmap).
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
  unsigned char *Ws = Stage + Layout<NT, WARPS>::XBytes + Warp * WStageBytes;
  size_t Block = size_t(Tile) * P.BlockColumns + Win;
  const unsigned char *V =
      reinterpret_cast<const unsigned char *>(P.Values + Block * BlockSlots) +
      Lane * 16;
  const unsigned char *B = reinterpret_cast<const unsigned char *>(
      P.Bitmap + Block * BlockBitmapWords);
  unsigned char *D = Ws + (Lane >> 3) * (LanePitch * 2) + (Lane & 7) * 16;
#pragma unroll
  for (int I = 0; I < 8; ++I)
    cpAsync16(D + I * 4 * (LanePitch * 2), V + I * 512);
  cpAsync16(Ws + WValBytes + Lane * 16, B + Lane * 16);
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
                     Stage + Layout<NT, WARPS>::XBytes + WARPS * WStageBytes) +
                 Warp * P.RCap;
  uint32_t Start = RO[J], End = RO[J + 1];
  uint32_t Aligned = Start & ~7u;
  int Chunks = min(int((End - Aligned + 7) >> 3), P.RCap >> 3);
  for (int C = Lane; C < Chunks; C += 32)
    cpAsync16(Rs + C * 8, P.Residual + Aligned + C * 8);
}

/// The lane's bitmap byte of one k-step word: groups Tig and 4 + Tig.
__device__ __forceinline__ uint32_t laneByte(uint32_t W, int Sh) {
  return ((W >> Sh) & 0xF) | ((W >> (Sh + 12)) & 0xF0);
}

template <int NT, int WARPS, int STAGES>
__global__ void __launch_bounds__(WARPS * 32)
    tlsSpmmKernel(const Params P) {
  extern __shared__ __align__(16) unsigned char Smem[];
  using Lay = Layout<NT, WARPS>;
  constexpr int NTiles8 = NT / 8;
  // Two accumulator sets (layer 1, layer 2) halve the mma dependency chain
  // when there are few n-tiles to interleave.
  constexpr int Sets = NTiles8 <= 2 ? 2 : 1;
  const int StageBytes = Lay::stageBytes(P.RCap);
  const int Tid = threadIdx.x, Warp = Tid >> 5, Lane = Tid & 31;
  const int G = Lane >> 2, Tig = Lane & 3;
  unsigned char *Rest = Smem + STAGES * StageBytes;
  uint32_t *RO = reinterpret_cast<uint32_t *>(Rest) + Warp * (P.MaxWin + 1);
  unsigned char *A2Area = Rest + Lay::offsetsBytes(P.MaxWin);
  uint16_t *LaneA2 =
      reinterpret_cast<uint16_t *>(A2Area + Warp * WValBytes) +
      Lane * LanePitch;
  Tables *Tab = reinterpret_cast<Tables *>(A2Area + WARPS * WValBytes);

  int Id = blockIdx.x;
  const int Nc = Id % P.NChunks;
  Id /= P.NChunks;
  const int Split = Id % P.SplitK;
  const int Mb = Id / P.SplitK;
  const int Base = P.BlockColumns / P.SplitK, Rem = P.BlockColumns % P.SplitK;
  const int Win0 = Split * Base + min(Split, Rem);
  const int NumWin = Base + (Split < Rem ? 1 : 0);
  const int Tile = Mb * WARPS + Warp;

  // Start the first stages' X and W copies, copy the decode tables, then
  // fetch the residual offsets this warp will need (one small global read
  // per CTA instead of one per block on the critical path).
#pragma unroll
  for (int S = 0; S < STAGES - 1; ++S)
    if (S < NumWin)
      loadXW<NT, WARPS>(P, Smem + S * StageBytes, Nc, Win0 + S, Tile, Warp,
                        Lane);
  {
    const uint4 *Src = reinterpret_cast<const uint4 *>(&DecodeTables);
    uint4 *Dst = reinterpret_cast<uint4 *>(Tab);
    for (int I = Tid; I < TableBytes / 16; I += WARPS * 32)
      Dst[I] = Src[I];
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

  const int Sh = 4 * Tig;
  // This lane tabulates the metadata of row G + 8 * MetaRow, groups
  // 4 * (Tig & 1) .. + 3 (bytes SelLo, SelLo + 1 of the k-step word).
  const bool MetaRow = Tig >> 1;
  const uint32_t SelLo = 0x4440u | uint32_t(2 * (Tig & 1));
  const uint32_t SelHi = SelLo + 1;

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
    unsigned char *Ws = Stage + Lay::XBytes + Warp * WStageBytes;
    uint16_t *LaneV = reinterpret_cast<uint16_t *>(Ws) + Lane * LanePitch;
    const uint4 *Bits4 = reinterpret_cast<const uint4 *>(Ws + WValBytes);
    const uint16_t *Rs = reinterpret_cast<const uint16_t *>(
                             Stage + Lay::XBytes + WARPS * WStageBytes) +
                         Warp * P.RCap;

    // The layer-2 buffer starts at zero (only needed positions get values).
#pragma unroll
    for (int T = 0; T < KStepsPerBlock; ++T)
      *reinterpret_cast<uint4 *>(LaneA2 + T * 8) = make_uint4(0, 0, 0, 0);

    uint32_t WG[8], WG8[8];
    {
      uint4 V0 = Bits4[G * 2], V1 = Bits4[G * 2 + 1];
      uint4 V2 = Bits4[(G + 8) * 2], V3 = Bits4[(G + 8) * 2 + 1];
      WG[0] = V0.x, WG[1] = V0.y, WG[2] = V0.z, WG[3] = V0.w;
      WG[4] = V1.x, WG[5] = V1.y, WG[6] = V1.z, WG[7] = V1.w;
      WG8[0] = V2.x, WG8[1] = V2.y, WG8[2] = V2.z, WG8[3] = V2.w;
      WG8[4] = V3.x, WG8[5] = V3.y, WG8[6] = V3.z, WG8[7] = V3.w;
    }
    // Empty and need masks of the two chains: one lookup per row and k-step,
    // bytes gathered with byte permutes.
    uint32_t E[2], Nd[2];
#pragma unroll
    for (int C = 0; C < 2; ++C) {
      uint32_t V[4];
#pragma unroll
      for (int J = 0; J < 4; ++J)
        V[J] = Tab->EN0[laneByte(WG[4 * C + J], Sh)] |
               Tab->EN1[laneByte(WG8[4 * C + J], Sh)];
      uint32_t X01 = __byte_perm(V[0], V[1], 0x6240);
      uint32_t X23 = __byte_perm(V[2], V[3], 0x6240);
      E[C] = __byte_perm(X01, X23, 0x5410);
      Nd[C] = __byte_perm(X01, X23, 0x7632);
    }
    // Layer-1 metadata: this lane's half, the row g + 8 half from lane + 2.
    uint32_t Meta[KStepsPerBlock];
#pragma unroll
    for (int T = 0; T < KStepsPerBlock; ++T) {
      uint32_t W = MetaRow ? WG8[T] : WG[T];
      Meta[T] = uint32_t(Tab->Meta[__byte_perm(W, 0, SelLo)]) |
                uint32_t(Tab->Meta[__byte_perm(W, 0, SelHi)]) << 8;
    }
#pragma unroll
    for (int T = 0; T < KStepsPerBlock; T += 2) {
      uint32_t Other =
          __shfl_down_sync(0xffffffffu, Meta[T] | Meta[T + 1] << 16, 2);
      Meta[T] |= Other << 16;
      Meta[T + 1] |= Other & 0xFFFF0000u;
    }

    // Layers 2 and 3: the residual values of this lane start after those of
    // the lanes below it (warp scan of the per-lane counts).
    int R0 = residualCount(E[0], Nd[0]), R1 = residualCount(E[1], Nd[1]);
    int Incl = R0 + R1;
#pragma unroll
    for (int D = 1; D < 32; D <<= 1) {
      int V = __shfl_up_sync(0xffffffffu, Incl, D);
      if (Lane >= D)
        Incl += V;
    }
    const uint32_t RStart = RO[I];
    int Q0 = int(RStart & 7u) + Incl - R0 - R1, Q1 = Q0 + R0;
    const uint16_t *GRes = P.Residual + (RStart & ~7u);
    {
      uint32_t N0 = Nd[0], E0 = E[0], N1 = Nd[1], E1 = E[1];
      uint16_t *V0 = LaneV, *V1 = LaneV + ChainSlots;
      uint16_t *D0 = LaneA2, *D1 = LaneA2 + ChainSlots;
      while (N0 | N1) {
        if (N0) {
          int X = highestBit(N0);
          N0 ^= 1u << X;
          uint16_t V;
          if (E0) {
            int Y = highestBit(E0);
            E0 ^= 1u << Y;
            V = V0[Y];
            V0[Y] = 0;
          } else {
            V = Q0 < P.RCap ? Rs[Q0] : __ldg(GRes + Q0);
            ++Q0;
          }
          D0[X] = V;
        }
        if (N1) {
          int X = highestBit(N1);
          N1 ^= 1u << X;
          uint16_t V;
          if (E1) {
            int Y = highestBit(E1);
            E1 ^= 1u << Y;
            V = V1[Y];
            V1[Y] = 0;
          } else {
            V = Q1 < P.RCap ? Rs[Q1] : __ldg(GRes + Q1);
            ++Q1;
          }
          D1[X] = V;
        }
      }
    }

#pragma unroll
    for (int T = 0; T < KStepsPerBlock; ++T) {
      uint4 A1 = *reinterpret_cast<const uint4 *>(LaneV + T * 8);
      uint4 A2 = *reinterpret_cast<const uint4 *>(LaneA2 + T * 8);
#pragma unroll
      for (int J = 0; J < NTiles8; ++J) {
        uint32_t B[4];
        ldmatrixX4(B, Xs + (J * 8 + (Lane & 7)) * XPitch + T * 32 +
                          (Lane >> 3) * 8);
        mmaSp(Acc[0][J], A1, B, Meta[T]);
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
  void (*Kernel)(Params);
  int (*TotalBytes)(int, int, int);
};

template <int NT, int WARPS, int STAGES> Variant variant() {
  return {NT, WARPS, STAGES, tlsSpmmKernel<NT, WARPS, STAGES>,
          [](int S, int R, int W) {
            return Layout<NT, WARPS>::totalBytes(S, R, W);
          }};
}

const Variant *allVariants(size_t &Count) {
  static const Variant All[] = {
      variant<8, 4, 2>(),  variant<8, 4, 3>(),  variant<8, 8, 2>(),
      variant<16, 4, 2>(), variant<16, 4, 3>(), variant<16, 8, 2>(),
      variant<32, 4, 2>(), variant<32, 8, 2>(), variant<64, 4, 2>(),
      variant<64, 8, 2>()};
  Count = sizeof(All) / sizeof(All[0]);
  return All;
}

const Variant *findVariant(int NT, int Warps, int Stages) {
  size_t Count;
  const Variant *All = allVariants(Count);
  for (size_t I = 0; I < Count; ++I)
    if (All[I].NT == NT && All[I].Warps == Warps &&
        (!Stages || All[I].Stages == Stages))
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
  Plan.Warps = Opts.Warps ? Opts.Warps : 4;
  const Variant *V = findVariant(Plan.NTile, Plan.Warps, Opts.Stages);
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
  const Variant *V = findVariant(Plan.NTile, Plan.Warps, Plan.Stages);
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
