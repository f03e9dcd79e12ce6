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
#include <cstdlib>

namespace cudaopt {
namespace sparse {

namespace {

// The kernel stages and decodes half a block (one chain, 128 columns) at a
// time.
constexpr int HalfCols = BlockCols / 2;
constexpr int XPitch = HalfCols + 8; // halves; 16-byte pad kills conflicts
constexpr int LanePitch = 40;        // halves per lane: 32 slots + 16-byte pad
constexpr int WValBytes = 32 * LanePitch * 2;                   // 2560
constexpr int WStageBytes = WValBytes + BlockBitmapWords * 2;   // + 256

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
    T.EN0[B] = spreadRowBits(I & 0xF) | spreadRowBits(I >> 4) << 16;
    T.EN1[B] = T.EN0[B] << 2;
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
  int Ablate;  // diagnostics only (TLS_SPMM_ABLATE, wrong results): bit 0
               // skips the gather, 1 the mask/metadata decode, 2 the mma
               // phase, 3 the W and residual copies
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

__device__ __forceinline__ uint32_t lds16(uint32_t A) {
  unsigned short V;
  asm volatile("ld.shared.u16 %0, [%1];\n" : "=h"(V) : "r"(A) : "memory");
  return V;
}
/// Stores the low 16 bits of V at A when P is nonzero (a predicated STS).
__device__ __forceinline__ void sts16If(uint32_t A, uint32_t V, uint32_t P) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n"
               " @p st.shared.u16 [%0], %1;\n}\n" ::"r"(A),
               "h"((unsigned short)V), "r"(P)
               : "memory");
}

/// 1 << S for S in 0..31, 0 for S >= 32 (PTX clamps the shift amount; the
/// C++ operator would be undefined for the -1 that FLO gives for zero).
__device__ __forceinline__ uint32_t bitAt(int S) {
  uint32_t R;
  asm("shl.b32 %0, 1, %1;" : "=r"(R) : "r"(S));
  return R;
}

/// The layer-2 gather of one relocation chain, software-pipelined and
/// predicated (no branch but the loop's): the highest needed position X
/// takes the value of the highest empty slot Y, which is then zeroed for
/// layer 1, or, once the chain has no empty slot left, the next staged
/// residual value. The value of the next step is loaded before this step's
/// stores (it never reads what they write: another empty slot, or the
/// residual list). Vb, Db: shared-memory byte addresses of the chain's slots
/// and of its layer-2 buffer; Rq: of its next residual value. A step after
/// the last need changes nothing that is read again: it may zero a remaining
/// empty slot, which holds zero anyway (the encoder leaves unused empty
/// slots zero).
__device__ __forceinline__ void gatherChain(uint32_t N, uint32_t E,
                                            uint32_t Vb, uint32_t Db,
                                            uint32_t Rq) {
  if (!N)
    return;
  int X = highestBit(N); // FLO: -1 for zero
  int Y = highestBit(E);
  uint32_t Ya = Vb + 2 * Y;
  uint32_t V = lds16(E ? Ya : Rq);
  while (true) {
    // State of the next step.
    uint32_t Had = E;
    Rq += E ? 0 : 2;
    E ^= bitAt(Y);
    N ^= bitAt(X);
    int X2 = highestBit(N), Y2 = highestBit(E);
    uint32_t Ya2 = Vb + 2 * Y2;
    uint32_t V2 = lds16(E ? Ya2 : Rq);
    // This step's stores.
    sts16If(Ya, 0, Had);
    sts16If(Db + 2 * X, V, 1);
    if (!N)
      break;
    X = X2, Y = Y2, Ya = Ya2, V = V2;
  }
}

/// A holds the fragment as stored, {a0, a1, a2, a3}.
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

template <int NT, int WARPS> struct Layout {
  static constexpr int XBytes = NT * XPitch * 2;
  __host__ __device__ static int stageBytes(int RCap) {
    return XBytes + WARPS * WStageBytes + WARPS * RCap * 2;
  }
  __host__ __device__ static int offsetsBytes(int MaxWin) {
    return (WARPS * (MaxWin + 1) * 4 + 15) / 16 * 16;
  }
  // Tables first (fixed addresses), then the stages, the residual offsets
  // and the per-warp layer-2 buffers.
  __host__ __device__ static int totalBytes(int Stages, int RCap,
                                            int MaxWin) {
    return TableBytes + Stages * stageBytes(RCap) + offsetsBytes(MaxWin) +
           WARPS * WValBytes;
  }
};

/// This thread's share of the X half-tile copies: rows Row0 + p * RowStep of
/// the n-tile, 16 bytes at column Col * 8 of the 128-column half.
template <int NT, int WARPS> struct XLoader {
  static constexpr int Threads = WARPS * 32;
  static constexpr int RowStep = Threads / 16;
  static constexpr int Passes = (NT + RowStep - 1) / RowStep;
  const __half *Base; // row Row0 of the tile, column Col * 8, half 0
  size_t Stride;      // RowStep rows, in halves
  int Row0, Col, ValidRows;
  __device__ XLoader(const Params &P, int Nc, int Tid) {
    Row0 = Tid >> 4;
    Col = Tid & 15;
    int Gn = Nc * NT + Row0;
    Base = P.X + size_t(min(Gn, P.N - 1)) * P.Ldx + Col * 8;
    Stride = size_t(RowStep) * P.Ldx;
    // Passes p < ValidRows copy a row inside both the tile and N.
    int InN = Gn < P.N ? (P.N - Gn + RowStep - 1) / RowStep : 0;
    int InTile = (NT - Row0 + RowStep - 1) / RowStep;
    ValidRows = min(InN, InTile);
  }
  __device__ __forceinline__ void load(const Params &P, unsigned char *Stage,
                                       int Half) const {
    int KLeft = P.K - Half * HalfCols - Col * 8;
    int Bytes = KLeft >= 8 ? 16 : KLeft > 0 ? 2 * KLeft : 0;
    const __half *Src = Base + size_t(Half) * HalfCols;
    __half *Dst = reinterpret_cast<__half *>(Stage) + Row0 * XPitch + Col * 8;
#pragma unroll
    for (int J = 0; J < Passes; ++J) {
      if (J * RowStep + Row0 >= NT && (NT % RowStep) != 0)
        break;
      bool Ok = J < ValidRows;
      cpAsync16(Dst + J * RowStep * XPitch, Ok ? Src + J * Stride : Base,
                Ok ? Bytes : 0);
    }
  }
};

/// Stage loads of this warp's half block: its chain's values (2048 bytes,
/// to the lane-padded layout) and bitmap words (256 bytes).
template <int NT, int WARPS>
__device__ __forceinline__ void loadW(const Params &P, unsigned char *Stage,
                                      size_t Block, int Chain, int Warp,
                                      int Lane) {
  unsigned char *Ws = Stage + Layout<NT, WARPS>::XBytes + Warp * WStageBytes;
  const unsigned char *V =
      reinterpret_cast<const unsigned char *>(P.Values + Block * BlockSlots) +
      Chain * 2048 + Lane * 16;
  const unsigned char *B = reinterpret_cast<const unsigned char *>(
                               P.Bitmap + Block * BlockBitmapWords) +
                           Chain * 256;
  unsigned char *D = Ws + (Lane >> 2) * (LanePitch * 2) + (Lane & 3) * 16;
#pragma unroll
  for (int I = 0; I < 4; ++I)
    cpAsync16(D + I * 8 * (LanePitch * 2), V + I * 512);
  if (Lane < 16)
    cpAsync16(Ws + WValBytes + Lane * 16, B + Lane * 16);
}

/// The chunks covering this warp's tile's residual values of one block
/// (both halves read from it).
template <int NT, int WARPS>
__device__ __forceinline__ void loadResidual(const Params &P,
                                             unsigned char *Stage,
                                             const uint32_t *RO, int J,
                                             int Warp, int Lane) {
  if (P.RCap == 0)
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
  const Tables *Tab = reinterpret_cast<const Tables *>(Smem);
  unsigned char *Stages = Smem + TableBytes;
  unsigned char *Rest = Stages + STAGES * StageBytes;
  uint32_t *RO = reinterpret_cast<uint32_t *>(Rest) + Warp * (P.MaxWin + 1);
  unsigned char *A2Area = Rest + Lay::offsetsBytes(P.MaxWin);
  uint16_t *LaneA2 =
      reinterpret_cast<uint16_t *>(A2Area + Warp * WValBytes) +
      Lane * LanePitch;
  const uint32_t A2Addr = smemAddr(LaneA2);

  int Id = blockIdx.x;
  const int Nc = Id % P.NChunks;
  Id /= P.NChunks;
  const int Split = Id % P.SplitK;
  const int Mb = Id / P.SplitK;
  const int Base = P.BlockColumns / P.SplitK, Rem = P.BlockColumns % P.SplitK;
  const int Win0 = Split * Base + min(Split, Rem);
  const int NumWin = Base + (Split < Rem ? 1 : 0);
  const int NumHalf = 2 * NumWin;
  const int Tile = Mb * WARPS + Warp;
  const bool HasTile = Tile < P.Tiles;
  const size_t Block0 = size_t(min(Tile, P.Tiles - 1)) * P.BlockColumns + Win0;
  const XLoader<NT, WARPS> XL(P, Nc, Tid);

  auto issue = [&](int H) {
    unsigned char *St = Stages + (H % STAGES) * StageBytes;
    XL.load(P, St, 2 * Win0 + H);
    if (HasTile && !(P.Ablate & 8)) {
      loadW<NT, WARPS>(P, St, Block0 + (H >> 1), H & 1, Warp, Lane);
      loadResidual<NT, WARPS>(P, St, RO, H >> 1, Warp, Lane);
    }
  };

  // Copy the decode tables, fetch the residual offsets this warp will need
  // (one small global read per CTA instead of one per block on the critical
  // path), then start the first stages.
  {
    const uint4 *Src = reinterpret_cast<const uint4 *>(&DecodeTables);
    uint4 *Dst = reinterpret_cast<uint4 *>(Smem);
    for (int I = Tid; I < TableBytes / 16; I += WARPS * 32)
      Dst[I] = Src[I];
  }
  if (HasTile)
    for (int J = Lane; J <= NumWin; J += 32)
      RO[J] = __ldg(P.ResOff + Block0 + J);
  __syncwarp();
#pragma unroll
  for (int S = 0; S < STAGES - 1; ++S) {
    if (S < NumHalf)
      issue(S);
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
  const int MetaRow = Tig >> 1;
  const uint32_t SelLo = 0x4440u | uint32_t(2 * (Tig & 1));
  const uint32_t SelHi = SelLo + 1;

  for (int H = 0; H < NumHalf; ++H) {
    cpAsyncWait<STAGES - 2>();
    __syncthreads();
    if (H + STAGES - 1 < NumHalf)
      issue(H + STAGES - 1);
    cpAsyncCommit();
    if (!HasTile)
      continue;
    const int Chain = H & 1;
    unsigned char *Stage = Stages + (H % STAGES) * StageBytes;
    const __half *Xs = reinterpret_cast<const __half *>(Stage);
    unsigned char *Ws = Stage + Lay::XBytes + Warp * WStageBytes;
    uint16_t *LaneV = reinterpret_cast<uint16_t *>(Ws) + Lane * LanePitch;
    const uint4 *Bits4 = reinterpret_cast<const uint4 *>(Ws + WValBytes);
    const uint32_t RsAddr = smemAddr(Stage + Lay::XBytes +
                                     WARPS * WStageBytes) +
                            Warp * P.RCap * 2;

    // The layer-2 buffer starts at zero (only needed positions get values).
#pragma unroll
    for (int J = 0; J < 4; ++J)
      *reinterpret_cast<uint4 *>(LaneA2 + J * 8) = make_uint4(0, 0, 0, 0);

    // Bitmap words of rows G and G + 8 (and of the metadata row).
    const uint4 BG = Bits4[G], BG8 = Bits4[G + 8], BM = Bits4[G + 8 * MetaRow];
    const uint32_t WG[4] = {BG.x, BG.y, BG.z, BG.w};
    const uint32_t WG8[4] = {BG8.x, BG8.y, BG8.z, BG8.w};
    const uint32_t WM[4] = {BM.x, BM.y, BM.z, BM.w};
    // Empty and need masks of the chain: one lookup per row and k-step,
    // bytes gathered with byte permutes.
    uint32_t E = 0, Nd = 0;
    uint32_t Meta[4] = {0x44444444u, 0x44444444u, 0x44444444u, 0x44444444u};
    if (!(P.Ablate & 2)) {
      uint32_t V[4];
#pragma unroll
      for (int J = 0; J < 4; ++J)
        V[J] = Tab->EN0[laneByte(WG[J], Sh)] | Tab->EN1[laneByte(WG8[J], Sh)];
      uint32_t X01 = __byte_perm(V[0], V[1], 0x6240);
      uint32_t X23 = __byte_perm(V[2], V[3], 0x6240);
      E = __byte_perm(X01, X23, 0x5410);
      Nd = __byte_perm(X01, X23, 0x7632);
    }
    // Layer-1 metadata: this lane's half, the row g + 8 half from lane + 2.
    if (!(P.Ablate & 2)) {
#pragma unroll
    for (int J = 0; J < 4; ++J)
      Meta[J] = uint32_t(Tab->Meta[__byte_perm(WM[J], 0, SelLo)]) |
                uint32_t(Tab->Meta[__byte_perm(WM[J], 0, SelHi)]) << 8;
#pragma unroll
    for (int J = 0; J < 4; J += 2) {
      uint32_t Other =
          __shfl_down_sync(0xffffffffu, Meta[J] | Meta[J + 1] << 16, 2);
      Meta[J] |= Other << 16;
      Meta[J + 1] |= Other & 0xFFFF0000u;
    }
    }

    // Layers 2 and 3. The block's residual list holds chain 0 of every lane
    // (in lane order), then chain 1: a warp scan of the per-lane counts
    // places this lane's values, from the block's start for chain 0 and
    // back from its end for chain 1.
    {
      // Bit-sliced scan (counts are at most 32): six independent ballots.
      const int R = residualCount(E, Nd);
      const uint32_t Below = (1u << Lane) - 1;
      int Excl = 0, Total = 0;
#pragma unroll
      for (int B = 0; B < 6; ++B) {
        uint32_t M = __ballot_sync(0xffffffffu, (R >> B) & 1);
        Excl += __popc(M & Below) << B;
        Total += __popc(M) << B;
      }
      const int W = H >> 1;
      const uint32_t Start = RO[W];
      int Q = int(Start & 7u) + Excl;
      if (Chain)
        Q += int(RO[W + 1] - Start) - Total;
      uint32_t Rq = RsAddr + 2 * Q;
      const uint32_t Vb = smemAddr(LaneV);
      if (!(P.Ablate & 1))
        gatherChain(Nd, E, Vb, A2Addr, Rq);
    }

    if (!(P.Ablate & 4))
#pragma unroll
    for (int J = 0; J < 4; ++J) {
      uint4 A1 = *reinterpret_cast<const uint4 *>(LaneV + J * 8);
      uint4 A2 = *reinterpret_cast<const uint4 *>(LaneA2 + J * 8);
#pragma unroll
      for (int T = 0; T < NTiles8; ++T) {
        uint32_t B[4];
        ldmatrixX4(B, Xs + (T * 8 + (Lane & 7)) * XPitch + J * 32 +
                          (Lane >> 3) * 8);
        mmaSp(Acc[0][T], A1, B, Meta[J]);
        mmaSp(Acc[Sets - 1][T], A2, B, Layer2Meta);
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
      variant<8, 8, 3>(),  variant<16, 4, 2>(), variant<16, 4, 3>(),
      variant<16, 8, 2>(), variant<16, 8, 3>(), variant<32, 4, 2>(),
      variant<32, 4, 3>(), variant<32, 8, 2>(), variant<64, 4, 2>(),
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
  int Tiles = (W.Rows + 15) / 16;
  int BlockColumns = (W.Cols + 255) / 256;
  // Every residual value of a block is staged (plus the misalignment of its
  // start): the gather reads them from shared memory only.
  const int RCap = int(W.MaxBlockResidual + 7 + 7) / 8 * 8;
  const int Limit = maxSharedOptin() - 1024;
  auto Fits = [&](const Variant *C) {
    return C && C->TotalBytes(C->Stages, RCap, BlockColumns) <= Limit;
  };
  const Variant *V = findVariant(Plan.NTile, Plan.Warps, Opts.Stages);
  if (!Fits(V)) {
    // Many residual values (low sparsity): fall back to a smaller variant,
    // unless the caller pinned the shape.
    if (Opts.NTile || Opts.Warps || Opts.Stages)
      return Plan;
    for (const Variant *C : {findVariant(Plan.NTile, 4, 2), findVariant(8, 4, 2)})
      if (Fits(C)) {
        V = C;
        break;
      }
    if (!Fits(V))
      return Plan;
    Plan.NTile = V->NT;
    Plan.Warps = V->Warps;
  }
  Plan.Stages = V->Stages;
  Plan.MBlocks = (Tiles + Plan.Warps - 1) / Plan.Warps;
  Plan.NChunks = (N + Plan.NTile - 1) / Plan.NTile;
  auto Fit = [&](int MaxWin) {
    return size_t(V->TotalBytes(V->Stages, RCap, MaxWin));
  };
  size_t Shared = Fit(BlockColumns);
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
  Plan.SharedBytes = Fit(Plan.MaxWin);
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
  const Variant *V = Plan.Stages
                         ? findVariant(Plan.NTile, Plan.Warps, Plan.Stages)
                         : nullptr;
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
  static const int Ablate = [] {
    const char *E = std::getenv("TLS_SPMM_ABLATE");
    return E ? std::atoi(E) : 0;
  }();
  P.Ablate = Ablate;
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
