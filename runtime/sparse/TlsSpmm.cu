//===- TlsSpmm.cu - SpMM kernel for the three-layer sparse format ---------===//
//
// A persistent, stream-K kernel. The work is the list of "items" (M block,
// n-chunk, half block): an M block is WARPS 16-row tiles (one per warp), an
// n-chunk NT columns of X, a half block 128 columns of K (one relocation
// chain of format version 2). The grid is one wave of CTAs; CTA c walks the
// contiguous item range [c * T / G, (c + 1) * T / G), so every CTA streams
// the same number of bytes and its copy pipeline runs on across the
// boundaries between output tiles.
//
// Pipeline: STAGES shared-memory stages, each holding the X half-tile (shared
// by the CTA's warps) and, per warp, its tile's half block: the chain's
// values (2 KB, each lane's four 16-byte fragments XOR-swizzled so the
// per-k-step fragment loads are conflict-free), its bitmap words (256 B) and
// the block's residual values (their offsets are loaded 32 items ahead). Every
// thread copies its share with cp.async and signals the stage's "full" mbarrier
// with cp.async.mbarrier.arrive.noinc; a thread that has consumed a stage
// arrives on its "empty" mbarrier, and the stage is refilled (by all threads)
// one item later, so warps may drift one item apart and no CTA-wide barrier
// sits in the loop.
//
// Per item a warp decodes its chain on chip, as in format version 2
// (docs/sparse-format.md): empty/need masks from the bitmap through a byte
// table, the layer-1 metadata through a second table and one shuffle, the
// residual start through a bit-sliced ballot scan, the layer-2 gather (one
// FLO per value) into a zeroed per-warp buffer; then per k-step two 16-byte
// fragment loads, one ldmatrix.x4 per n8 tile of X and two mma.sp.
//
// Output: a warp that covered a whole output tile writes Y directly; one
// that covered part of it adds its fp32 partial sums into a workspace with
// vector atomics (red.global.add.v2.f32), then counts the halves it covered
// on a per-tile counter; the warp that completes the count converts the
// tile to fp16/bf16, writes Y and zeroes the workspace tile and counter.
//
// Pipeline 2 (tlsSpmmRingKernel, TlsSpmmOptions::Pipeline = 2) keeps the
// per-item work and the output path but gives each warp its own ring of W
// stages, refilled by the warp alone; only the X half-tiles are shared.
// Fewer bytes per warp let 24-32 warps share an SM. The default plan is
// pipeline 1.
//
//===----------------------------------------------------------------------===//

#include "TlsLayout.h"
#include "TlsSpmm.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace cudaopt {
namespace sparse {

namespace {

constexpr int HalfCols = BlockCols / 2;
constexpr int XPitch = HalfCols + 8; // halves; 16-byte pad kills conflicts
// A lane's 32 slots (64 bytes) of a chain in shared memory: its k-step K
// fragment (16 bytes) at chunk K ^ laneSwizzle, so that the 16-byte fragment
// loads of a quarter warp hit eight different bank quads.
constexpr int WValBytes = 32 * 64; // 2048
constexpr int WBitsBytes = BlockBitmapWords * 2; // 256: one chain's words
constexpr int WHeadBytes = 16; // residual start and end of the block
constexpr int BarrierBytes = 128; // full and empty mbarriers, STAGES <= 8

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

/// Fills entry B of the tables (each CTA computes them: no global load at
/// its start).
__device__ __forceinline__ void fillTables(Tables &T, uint32_t B) {
  uint32_t I = infoByte(B);
  T.EN0[B] = spreadRowBits(I & 0xF) | spreadRowBits(I >> 4) << 16;
  T.EN1[B] = T.EN0[B] << 2;
  T.Meta[B] = uint8_t(metaByte(B));
}

struct Params {
  const uint16_t *Values;
  const uint32_t *Bitmap;
  const uint32_t *ResOff;
  const uint16_t *Residual;
  const uint16_t *X; // fp16 or bf16 bits
  uint16_t *Y;
  float *Acc32;      // Tiles * 16 rows x Np columns, fp32, zero between calls
  unsigned *Counters; // Tiles * NChunks, zero between calls
  int Ldx, Ldy;
  int M, K, N;
  int Tiles, BlockColumns;
  int NChunks, Np;
  int Hpu;             // items (half blocks) per output tile: 2 * BlockColumns
  long long Items;     // MBlocks * NChunks * Hpu
  int RCap;    // residual values staged per warp and stage (multiple of 8)
  int Ablate;  // diagnostics only (TLS_SPMM_ABLATE, wrong results): bit 0
               // skips the gather, 1 the mask/metadata decode, 2 the mma
               // phase, 3 the W and residual copies, 4 the fixup of split
               // output tiles (fence, counter, last contributor)
};

/// Shared-memory layout (host and device): tables, barriers, the stages
/// (X half-tile, then one region per warp: header, values, bitmap,
/// residual), the per-warp layer-2 buffers.
__host__ __device__ constexpr int xBytes(int NT) { return NT * XPitch * 2; }
__host__ __device__ constexpr int wRegionBytes(int RCap) {
  return WHeadBytes + WValBytes + WBitsBytes + RCap * 2;
}
__host__ __device__ constexpr int stageBytes(int NT, int Warps, int RCap) {
  return xBytes(NT) + Warps * wRegionBytes(RCap);
}
__host__ __device__ constexpr int totalSharedBytes(int NT, int Warps,
                                                   int Stages, int RCap) {
  return TableBytes + BarrierBytes + Stages * stageBytes(NT, Warps, RCap) +
         Warps * WValBytes;
}

/// The warp-ring kernel (pipeline 2): WStages W stages per warp, refilled by
/// the warp alone, and WStages + 1 X stages shared by the CTA. Layout:
/// tables, barriers (X full, X empty, then WStages W-full barriers per
/// warp), the X stages, per warp its W stages, the per-warp layer-2 buffers.
__host__ __device__ constexpr int ringBarrierBytes(int Warps, int WStages) {
  return ((2 * (WStages + 1) + Warps * WStages) * 8 + 127) / 128 * 128;
}
__host__ __device__ constexpr int ringSharedBytes(int NT, int Warps,
                                                  int WStages, int RCap) {
  return TableBytes + ringBarrierBytes(Warps, WStages) +
         (WStages + 1) * xBytes(NT) +
         Warps * (WStages * wRegionBytes(RCap) + WValBytes);
}

__device__ __forceinline__ uint32_t smemAddr(const void *P) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(P));
}

/// 16-byte cp.async; SrcBytes < 16 zero-fills the rest.
__device__ __forceinline__ void cpAsync16(uint32_t Dst, const void *Src,
                                          int SrcBytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(Dst),
               "l"(Src), "r"(SrcBytes)
               : "memory");
}
__device__ __forceinline__ void cpAsync16(uint32_t Dst, const void *Src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(Dst),
               "l"(Src)
               : "memory");
}

// mbarriers (shared::cta). The full barrier of a stage expects one arrival
// per thread, made by cp.async.mbarrier.arrive.noinc once the thread's
// copies have landed; the empty barrier one arrival per thread once it has
// read the stage.
// (sm_80 has the same barriers but no try_wait: it polls with test_wait.)
__device__ __forceinline__ void mbarInit(uint32_t Bar, unsigned Count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(Bar), "r"(Count)
               : "memory");
}
__device__ __forceinline__ void mbarArriveCpAsync(uint32_t Bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(Bar)
               : "memory");
}
__device__ __forceinline__ void mbarArrive(uint32_t Bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(Bar)
               : "memory");
#else
  asm volatile("{\n .reg .b64 st;\n mbarrier.arrive.shared.b64 st, [%0];\n}\n" ::"r"(
                   Bar)
               : "memory");
#endif
}
__device__ __forceinline__ void mbarWait(uint32_t Bar, uint32_t Parity) {
#if __CUDA_ARCH__ >= 900
  asm volatile("{\n"
               " .reg .pred p;\n"
               "TLS_WAIT:\n"
               " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               " @!p bra TLS_WAIT;\n"
               "}\n" ::"r"(Bar),
               "r"(Parity)
               : "memory");
#else
  asm volatile("{\n"
               " .reg .pred p;\n"
               "TLS_WAIT:\n"
               " mbarrier.test_wait.parity.shared.b64 p, [%0], %1;\n"
               " @!p bra TLS_WAIT;\n"
               "}\n" ::"r"(Bar),
               "r"(Parity)
               : "memory");
#endif
}

/// Adds two floats at an 8-byte aligned address (a vector red on sm_90).
__device__ __forceinline__ void redAdd2(float *P, float A, float B) {
#if __CUDA_ARCH__ >= 900
  atomicAdd(reinterpret_cast<float2 *>(P), make_float2(A, B));
#else
  atomicAdd(P, A);
  atomicAdd(P + 1, B);
#endif
}

__device__ __forceinline__ void ldmatrixX4(uint32_t (&B)[4], const void *P) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
      : "=r"(B[0]), "=r"(B[1]), "=r"(B[2]), "=r"(B[3])
      : "r"(smemAddr(P)));
}

/// 16-bit shared-memory load into (and store from) a 32-bit register: no
/// 16-bit register moves in the gather loop.
__device__ __forceinline__ uint32_t lds16(uint32_t A) {
  uint32_t V;
  asm volatile("ld.shared.u16 %0, [%1];\n" : "=r"(V) : "r"(A) : "memory");
  return V;
}
/// Stores the low 16 bits of V at A when P is nonzero (a predicated STS).
__device__ __forceinline__ void sts16If(uint32_t A, uint32_t V, uint32_t P) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n"
               " @p st.shared.u16 [%0], %1;\n}\n" ::"r"(A),
               "r"(V), "r"(P)
               : "memory");
}
__device__ __forceinline__ void sts16(uint32_t A, uint32_t V) {
  asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(A), "r"(V) : "memory");
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
/// and of its layer-2 buffer (both swizzled by Sw); Rq: of its next residual
/// value. A step after
/// the last need changes nothing that is read again: it may zero a remaining
/// empty slot, which holds zero anyway (the encoder leaves unused empty
/// slots zero).
__device__ __forceinline__ void gatherChain(uint32_t N, uint32_t E,
                                            uint32_t Vb, uint32_t Db,
                                            uint32_t Rq, uint32_t Sw) {
  if (!N)
    return;
  int Y = highestBit(E); // FLO: -1 for zero
  uint32_t A = E ? Vb + (uint32_t(Y << 1) ^ Sw) : Rq;
  uint32_t V = lds16(A);
#pragma unroll 2
  for (;;) {
    const int X = highestBit(N);
    N ^= bitAt(X);
    // The next step's value is loaded before this step's stores.
    const uint32_t Had = E;
    E ^= bitAt(Y);
    Rq += Had ? 0 : 2;
    const int Y2 = highestBit(E);
    const uint32_t A2 = E ? Vb + (uint32_t(Y2 << 1) ^ Sw) : Rq;
    const uint32_t V2 = lds16(A2);
    sts16If(A, 0, Had);
    sts16(Db + (uint32_t(X << 1) ^ Sw), V);
    if (!N)
      break;
    Y = Y2;
    A = A2;
    V = V2;
  }
}

/// One mma.sp m16n8k32 with f32 accumulation; A holds the fragment as
/// stored, {a0, a1, a2, a3}.
template <bool BF16>
__device__ __forceinline__ void mmaSp(float (&C)[4], const uint4 &A,
                                      const uint32_t (&B)[4], uint32_t Meta) {
  if constexpr (BF16)
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32."
                 "bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "
                 "{%0, %1, %2, %3}, %12, 0x0;\n"
                 : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
                 : "r"(A.x), "r"(A.y), "r"(A.z), "r"(A.w), "r"(B[0]),
                   "r"(B[1]), "r"(B[2]), "r"(B[3]), "r"(Meta));
  else
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32."
                 "f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "
                 "{%0, %1, %2, %3}, %12, 0x0;\n"
                 : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
                 : "r"(A.x), "r"(A.y), "r"(A.z), "r"(A.w), "r"(B[0]),
                   "r"(B[1]), "r"(B[2]), "r"(B[3]), "r"(Meta));
}

template <bool BF16> __device__ __forceinline__ uint16_t toBits(float F) {
  if constexpr (BF16)
    return __bfloat16_as_ushort(__float2bfloat16_rn(F));
  else
    return __half_as_ushort(__float2half_rn(F));
}

/// The lane's bitmap byte of one k-step word: groups Tig and 4 + Tig.
__device__ __forceinline__ uint32_t laneByte(uint32_t W, int Sh) {
  return ((W >> Sh) & 0xF) | ((W >> (Sh + 12)) & 0xF0);
}

/// Position in the item list: output tile (M block, n-chunk) and half block.
struct Cursor {
  int Half, Nc, Mb;
  __device__ Cursor(const Params &P, long long Item) {
    long long Unit = Item / P.Hpu;
    Half = int(Item - Unit * P.Hpu);
    Mb = int(Unit / P.NChunks);
    Nc = int(Unit - (long long)Mb * P.NChunks);
  }
  __device__ __forceinline__ void next(const Params &P) {
    if (++Half == P.Hpu) {
      Half = 0;
      if (++Nc == P.NChunks) {
        Nc = 0;
        ++Mb;
      }
    }
  }
};

/// This lane's place in the decode: its quad row G, its bitmap nibble shift,
/// the metadata half it tabulates, its fragment swizzle.
struct LaneInfo {
  int Lane, G, Sh;
  // This lane tabulates the metadata of row G + 8 * MetaRow, groups
  // 4 * (Tig & 1) .. + 3 (bytes SelLo, SelLo + 1 of the k-step word).
  int MetaRow;
  uint32_t SelLo, SelHi;
  // This lane's fragment chunk K lives at byte (16 * K) ^ Sw of its 64.
  uint32_t Sw;
  __device__ __forceinline__ explicit LaneInfo(int L) {
    const int Tig = L & 3;
    Lane = L;
    G = L >> 2;
    Sh = 4 * Tig;
    MetaRow = Tig >> 1;
    SelLo = 0x4440u | uint32_t(2 * (Tig & 1));
    SelHi = SelLo + 1;
    Sw = uint32_t((L >> 1) & 3) << 4;
  }
};

/// The residual offsets (start, end) of the block of a warp's item J, for
/// the lane J - Base (each lane holds one item's pair).
__device__ __forceinline__ void loadResOffsets(const Params &P, int Warps,
                                               long long Begin, int Count,
                                               int Base, int Warp, int Lane,
                                               uint32_t &S, uint32_t &E) {
  S = E = 0;
  if (Base + Lane < Count) {
    Cursor C(P, Begin + Base + Lane);
    const int Tile = C.Mb * Warps + Warp;
    if (Tile < P.Tiles) {
      const size_t Blk = size_t(Tile) * P.BlockColumns + (C.Half >> 1);
      S = __ldg(P.ResOff + Blk);
      E = __ldg(P.ResOff + Blk + 1);
    }
  }
}

/// The residual offsets of a warp's items, 32 at a time: those of item J
/// sit in lane J - Base of (S, E); the next 32 items' in (S2, E2), loaded
/// 32 items ahead so that no copy waits for them.
struct ResidualWindow {
  int Base = 0;
  uint32_t S, E, S2, E2;

  __device__ __forceinline__ void load(const Params &P, int Warps,
                                       long long Begin, int Count, int Warp,
                                       int Lane) {
    loadResOffsets(P, Warps, Begin, Count, 0, Warp, Lane, S, E);
    loadResOffsets(P, Warps, Begin, Count, 32, Warp, Lane, S2, E2);
  }
  /// Moves the window on once item J is past it.
  __device__ __forceinline__ void advanceTo(int J, const Params &P, int Warps,
                                            long long Begin, int Count,
                                            int Warp, int Lane) {
    if (J - Base < 32)
      return;
    Base += 32;
    S = S2;
    E = E2;
    loadResOffsets(P, Warps, Begin, Count, Base + 32, Warp, Lane, S2, E2);
  }
};

/// Copies the X half-tile of the item at IC (NT columns x 128 rows of K,
/// zero-filled past N and K) to the shared-memory stage at St; every thread
/// of the CTA takes its share.
template <int NT, int Threads>
__device__ __forceinline__ void copyX(const Params &P, uint32_t St,
                                      const Cursor &IC, int Tid) {
#pragma unroll
  for (int C0 = 0; C0 < NT * 16; C0 += Threads) {
    const int C = C0 + Tid;
    if ((NT * 16) % Threads == 0 || C < NT * 16) {
      const int Row = C >> 4, Col = C & 15;
      const int Gn = IC.Nc * NT + Row, K0 = IC.Half * HalfCols + Col * 8;
      const int KLeft = P.K - K0;
      const int Bytes = Gn < P.N ? (KLeft >= 8  ? 16
                                    : KLeft > 0 ? 2 * KLeft
                                                : 0)
                                 : 0;
      const uint16_t *Src = Bytes ? P.X + size_t(Gn) * P.Ldx + K0 : P.X;
      cpAsync16(St + (Row * XPitch + Col * 8) * 2, Src, Bytes);
    }
  }
}

/// copyX with the per-thread row and column fixed (Threads a multiple of
/// 16): one source pointer and one destination advanced per chunk row, so
/// no per-chunk address stays live across the item loop.
template <int NT, int Threads>
__device__ __forceinline__ void copyXStrided(const Params &P, uint32_t St,
                                             const Cursor &IC, int Tid) {
  static_assert(Threads % 16 == 0, "rows per pass");
  constexpr int RowsPerPass = Threads / 16;
  const int Col = Tid & 15;
  int Gn = IC.Nc * NT + (Tid >> 4);
  const int K0 = IC.Half * HalfCols + Col * 8;
  const int KLeft = P.K - K0;
  const int RowBytes = KLeft >= 8 ? 16 : KLeft > 0 ? 2 * KLeft : 0;
  const uint16_t *Src = P.X + size_t(Gn) * P.Ldx + K0;
  uint32_t Dst = St + ((Tid >> 4) * XPitch + Col * 8) * 2;
#pragma unroll
  for (int R0 = 0; R0 < NT; R0 += RowsPerPass) {
    if (NT % RowsPerPass == 0 || R0 + (Tid >> 4) < NT) {
      const int Bytes = Gn < P.N ? RowBytes : 0;
      cpAsync16(Dst, Bytes ? Src : P.X, Bytes);
    }
    Gn += RowsPerPass;
    Src += size_t(RowsPerPass) * P.Ldx;
    Dst += RowsPerPass * XPitch * 2;
  }
}

/// Copies one warp's half block (tile Tile, item at IC) to its W region at
/// Wr: values (swizzled), bitmap words, header (residual start and end:
/// lane Idx of RoS/RoE) and the block's residual values.
__device__ __forceinline__ void copyW(const Params &P, uint32_t Wr, int Tile,
                                      const Cursor &IC, int Lane, uint32_t RoS,
                                      uint32_t RoE, int Idx) {
  const size_t Blk = size_t(Tile) * P.BlockColumns + (IC.Half >> 1);
  const int Chain = IC.Half & 1;
  if (!(P.Ablate & 8)) {
    const unsigned char *V =
        reinterpret_cast<const unsigned char *>(P.Values + Blk * BlockSlots) +
        Chain * 2048 + Lane * 16;
    // Chunk Lane & 3 of lane Lane / 4 + 8 * I, whose swizzle is
    // ((Lane >> 3) & 3) << 4 for every I.
    const uint32_t D = Wr + WHeadBytes + (Lane >> 2) * 64 +
                       (((Lane & 3) ^ ((Lane >> 3) & 3)) << 4);
#pragma unroll
    for (int I = 0; I < 4; ++I)
      cpAsync16(D + I * 512, V + I * 512);
    if (Lane < 16)
      cpAsync16(Wr + WHeadBytes + WValBytes + Lane * 16,
                reinterpret_cast<const unsigned char *>(
                    P.Bitmap + Blk * BlockBitmapWords) +
                    Chain * 256 + Lane * 16);
  }
  // The residual copies wait for the offsets (loaded long ago, except
  // for the first items), so they come after the other copies.
  const uint32_t Start = __shfl_sync(0xffffffffu, RoS, Idx);
  const uint32_t Stop = __shfl_sync(0xffffffffu, RoE, Idx);
  // Every lane writes the same header words and reads back its own.
  asm volatile("st.shared.v2.u32 [%0], {%1, %2};\n" ::"r"(Wr), "r"(Start),
               "r"(Stop)
               : "memory");
  if (!(P.Ablate & 8)) {
    const uint32_t Aligned = Start & ~7u;
    const int Chunks = min(int((Stop - Aligned + 7) >> 3), P.RCap >> 3);
    for (int C = Lane; C < Chunks; C += 32)
      cpAsync16(Wr + WHeadBytes + WValBytes + WBitsBytes + C * 16,
                P.Residual + Aligned + C * 8);
  }
}

/// One item of one warp: decodes the staged half block at Wr (chain Chain)
/// and multiplies it with the staged X half-tile Xs into Acc.
template <int NT, int Sets, bool BF16>
__device__ __forceinline__ void
decodeAndMultiply(float (&Acc)[Sets][NT / 8][4], const Tables *Tab,
                  unsigned char *Wr, const uint16_t *Xs, unsigned char *LaneA2,
                  uint32_t A2Addr, int Chain, const LaneInfo &LI, int Ablate) {
  constexpr int NTiles8 = NT / 8;
  const int Lane = LI.Lane, G = LI.G, Sh = LI.Sh;
  const uint32_t Sw = LI.Sw;
  const uint32_t *Hdr = reinterpret_cast<const uint32_t *>(Wr);
  unsigned char *LaneV = Wr + WHeadBytes + Lane * 64;
  const uint4 *Bits4 =
      reinterpret_cast<const uint4 *>(Wr + WHeadBytes + WValBytes);
  const uint32_t RsAddr = smemAddr(Wr + WHeadBytes + WValBytes + WBitsBytes);

  // The layer-2 buffer starts at zero (only needed positions get values).
#pragma unroll
  for (int K = 0; K < 4; ++K)
    *reinterpret_cast<uint4 *>(LaneA2 + ((K << 4) ^ Sw)) =
        make_uint4(0, 0, 0, 0);

  // Bitmap words of rows G and G + 8 (and of the metadata row).
  const uint4 BG = Bits4[G], BG8 = Bits4[G + 8], BM = Bits4[G + 8 * LI.MetaRow];
  const uint32_t WG[4] = {BG.x, BG.y, BG.z, BG.w};
  const uint32_t WG8[4] = {BG8.x, BG8.y, BG8.z, BG8.w};
  const uint32_t WM[4] = {BM.x, BM.y, BM.z, BM.w};
  // Empty and need masks of the chain: one lookup per row and k-step,
  // bytes gathered with byte permutes.
  uint32_t E = 0, Nd = 0;
  uint32_t Meta[4] = {0x44444444u, 0x44444444u, 0x44444444u, 0x44444444u};
  if (!(Ablate & 2)) {
    uint32_t V[4];
#pragma unroll
    for (int K = 0; K < 4; ++K)
      V[K] = Tab->EN0[laneByte(WG[K], Sh)] | Tab->EN1[laneByte(WG8[K], Sh)];
    uint32_t X01 = __byte_perm(V[0], V[1], 0x6240);
    uint32_t X23 = __byte_perm(V[2], V[3], 0x6240);
    E = __byte_perm(X01, X23, 0x5410);
    Nd = __byte_perm(X01, X23, 0x7632);
    // Layer-1 metadata: this lane's half, the row g + 8 half from
    // lane + 2.
#pragma unroll
    for (int K = 0; K < 4; ++K)
      Meta[K] = uint32_t(Tab->Meta[__byte_perm(WM[K], 0, LI.SelLo)]) |
                uint32_t(Tab->Meta[__byte_perm(WM[K], 0, LI.SelHi)]) << 8;
#pragma unroll
    for (int K = 0; K < 4; K += 2) {
      uint32_t Other =
          __shfl_down_sync(0xffffffffu, Meta[K] | Meta[K + 1] << 16, 2);
      Meta[K] |= Other << 16;
      Meta[K + 1] |= Other & 0xFFFF0000u;
    }
  }

  // Layers 2 and 3. The block's residual list holds chain 0 of every
  // lane (in lane order), then chain 1: a warp scan of the per-lane
  // counts places this lane's values, from the block's start for chain
  // 0 and back from its end for chain 1.
  {
    // Bit-sliced scan (counts are at most 32): six independent ballots.
    const int R = residualCount(E, Nd);
    const uint32_t Below = (1u << Lane) - 1;
    int Excl = 0, Total = 0;
#pragma unroll
    for (int B = 0; B < 6; ++B) {
      uint32_t Mk = __ballot_sync(0xffffffffu, (R >> B) & 1);
      Excl += __popc(Mk & Below) << B;
      Total += __popc(Mk) << B;
    }
    const uint32_t Start = Hdr[0], Stop = Hdr[1];
    int Q = int(Start & 7u) + Excl;
    if (Chain)
      Q += int(Stop - Start) - Total;
    if (!(Ablate & 1))
      gatherChain(Nd, E, smemAddr(LaneV), A2Addr, RsAddr + 2 * Q, Sw);
  }

  if (!(Ablate & 4))
#pragma unroll
    for (int K = 0; K < 4; ++K) {
      uint4 A1 = *reinterpret_cast<const uint4 *>(LaneV + ((K << 4) ^ Sw));
      uint4 A2 = *reinterpret_cast<const uint4 *>(LaneA2 + ((K << 4) ^ Sw));
#pragma unroll
      for (int T = 0; T < NTiles8; ++T) {
        uint32_t B[4];
        ldmatrixX4(B, Xs + (T * 8 + (Lane & 7)) * XPitch + K * 32 +
                          (Lane >> 3) * 8);
        mmaSp<BF16>(Acc[0][T], A1, B, Meta[K]);
        mmaSp<BF16>(Acc[Sets - 1][T], A2, B, Layer2Meta);
      }
    }
}

/// The end of an output tile's item range in this CTA: writes Y, or adds
/// the partial sums to the workspace and lets the last contributor write Y.
template <int NT, int Sets, bool BF16>
__device__ __forceinline__ void
finishTile(const Params &P, const float (&Acc)[Sets][NT / 8][4], int Nc,
           int Tile, int Covered, int Lane) {
  constexpr int NTiles8 = NT / 8;
  const int G = Lane >> 2, Tig = Lane & 3;
  float A[NTiles8][4];
#pragma unroll
  for (int J = 0; J < NTiles8; ++J)
#pragma unroll
    for (int E = 0; E < 4; ++E)
      A[J][E] = Sets == 2 ? Acc[0][J][E] + Acc[Sets - 1][J][E] : Acc[0][J][E];
  const int Row0 = Tile * TileRows + G;
  const int Col0 = Nc * NT + 2 * Tig;
  auto store = [&](int M, int N, float V) {
    if (M < P.M && N < P.N)
      P.Y[size_t(N) * P.Ldy + M] = toBits<BF16>(V);
  };
  if (Covered == P.Hpu) {
#pragma unroll
    for (int J = 0; J < NTiles8; ++J)
#pragma unroll
      for (int E = 0; E < 4; ++E)
        store(Row0 + (E >> 1) * 8, Col0 + J * 8 + (E & 1), A[J][E]);
    return;
  }
  // Rows and columns past M and N hold zeros: the workspace has room
  // for whole tiles, so no bounds checks here.
  float *Base = P.Acc32 + size_t(Row0) * P.Np + Col0;
#pragma unroll
  for (int J = 0; J < NTiles8; ++J)
#pragma unroll
    for (int RH = 0; RH < 2; ++RH)
      redAdd2(Base + size_t(RH * 8) * P.Np + J * 8, A[J][2 * RH],
              A[J][2 * RH + 1]);
  if (P.Ablate & 16)
    return;
  __threadfence();
  __syncwarp();
  unsigned *Ctr = P.Counters + size_t(Tile) * P.NChunks + Nc;
  unsigned Old = 0;
  if (Lane == 0)
    Old = atomicAdd(Ctr, unsigned(Covered));
  Old = __shfl_sync(0xffffffffu, Old, 0);
  if (Old + unsigned(Covered) != unsigned(P.Hpu))
    return;
  __threadfence();
#pragma unroll
  for (int J = 0; J < NTiles8; ++J)
#pragma unroll
    for (int RH = 0; RH < 2; ++RH) {
      float2 *Pp =
          reinterpret_cast<float2 *>(Base + size_t(RH * 8) * P.Np + J * 8);
      float2 V = __ldcg(Pp);
      __stcg(Pp, make_float2(0.f, 0.f));
      store(Row0 + RH * 8, Col0 + J * 8, V.x);
      store(Row0 + RH * 8, Col0 + J * 8 + 1, V.y);
    }
  if (Lane == 0)
    *Ctr = 0;
}

template <int NT, int Sets>
__device__ __forceinline__ void zeroAcc(float (&Acc)[Sets][NT / 8][4]) {
#pragma unroll
  for (int S = 0; S < Sets; ++S)
#pragma unroll
    for (int J = 0; J < NT / 8; ++J)
      Acc[S][J][0] = Acc[S][J][1] = Acc[S][J][2] = Acc[S][J][3] = 0.f;
}

/// Pipeline 1: STAGES stages, each holding the X half-tile and every warp's
/// half block; a stage is refilled once all warps have read it.
template <int NT, int WARPS, int STAGES, bool BF16>
__global__ void __launch_bounds__(WARPS * 32, 1) tlsSpmmKernel(const Params P) {
  extern __shared__ __align__(128) unsigned char Smem[];
  constexpr int Threads = WARPS * 32;
  // Two accumulator sets (layer 1, layer 2) halve the mma dependency chain
  // when there are few n-tiles to interleave.
  constexpr int Sets = NT / 8 <= 2 ? 2 : 1;
  constexpr int XB = xBytes(NT);
  const int WRegion = wRegionBytes(P.RCap);
  const int StageB = stageBytes(NT, WARPS, P.RCap);
  const int Tid = threadIdx.x, Warp = Tid >> 5, Lane = Tid & 31;

  const long long Begin = P.Items * blockIdx.x / gridDim.x;
  const long long End = P.Items * (blockIdx.x + 1) / gridDim.x;
  const int Count = int(End - Begin);
  if (Count <= 0)
    return;

  const Tables *Tab = reinterpret_cast<const Tables *>(Smem);
  const uint32_t FullBar = smemAddr(Smem + TableBytes);
  const uint32_t EmptyBar = FullBar + 8 * STAGES;
  unsigned char *Stages = Smem + TableBytes + BarrierBytes;
  const uint32_t StagesAddr = smemAddr(Stages);
  const LaneInfo LI(Lane);
  unsigned char *LaneA2 =
      Stages + STAGES * StageB + Warp * WValBytes + Lane * 64;
  const uint32_t A2Addr = smemAddr(LaneA2);

  ResidualWindow Ro;
  Ro.load(P, WARPS, Begin, Count, Warp, Lane);

  for (int B = Tid; B < 256; B += Threads)
    fillTables(*reinterpret_cast<Tables *>(Smem), uint32_t(B));
  if (Tid == 0)
    for (int S = 0; S < STAGES; ++S) {
      mbarInit(FullBar + 8 * S, Threads);
      mbarInit(EmptyBar + 8 * S, Threads);
    }
  __syncthreads();

  // Producer side: every thread copies its share of an item into its stage
  // and arrives on the stage's full barrier when its copies have landed.
  Cursor IC(P, Begin);
  auto issue = [&](int J) {
    Ro.advanceTo(J, P, WARPS, Begin, Count, Warp, Lane);
    const uint32_t St = StagesAddr + (J % STAGES) * StageB;
    copyX<NT, Threads>(P, St, IC, Tid);
    const int Tile = IC.Mb * WARPS + Warp;
    if (Tile < P.Tiles)
      copyW(P, St + XB + Warp * WRegion, Tile, IC, Lane, Ro.S, Ro.E,
            J - Ro.Base);
    mbarArriveCpAsync(FullBar + 8 * (J % STAGES));
    IC.next(P);
  };

#pragma unroll
  for (int S = 0; S < STAGES - 1; ++S)
    if (S < Count)
      issue(S);

  float Acc[Sets][NT / 8][4];
  zeroAcc<NT, Sets>(Acc);

  Cursor CC(P, Begin);
  int Covered = 0;
  for (int J = 0; J < Count; ++J) {
    const int S = J % STAGES;
    mbarWait(FullBar + 8 * S, (J / STAGES) & 1);
    const int Tile = CC.Mb * WARPS + Warp;
    const bool HasTile = Tile < P.Tiles;
    if (HasTile) {
      unsigned char *Stage = Stages + S * StageB;
      decodeAndMultiply<NT, Sets, BF16>(
          Acc, Tab, Stage + XB + Warp * WRegion,
          reinterpret_cast<const uint16_t *>(Stage), LaneA2, A2Addr,
          CC.Half & 1, LI, P.Ablate);
    }
    mbarArrive(EmptyBar + 8 * S);
    // Refill the stage of the previous item once every warp is done with it.
    const int Jn = J + STAGES - 1;
    if (Jn < Count) {
      if (J >= 1)
        mbarWait(EmptyBar + 8 * ((J - 1) % STAGES), ((J - 1) / STAGES) & 1);
      issue(Jn);
    }
    ++Covered;
    if (CC.Half == P.Hpu - 1 || J == Count - 1) {
      if (HasTile)
        finishTile<NT, Sets, BF16>(P, Acc, CC.Nc, Tile, Covered, Lane);
      zeroAcc<NT, Sets>(Acc);
      Covered = 0;
    }
    CC.next(P);
  }
}

/// Pipeline 2 ("warp rings"): a warp's half blocks go through its own ring
/// of WST W stages, which it refills itself as soon as it has read a stage
/// (no wait for other warps), so one stage fewer per warp gives the same
/// lookahead and more warps fit in shared memory. Only the X half-tiles,
/// WST + 1 stages, are shared by the CTA and refilled once every warp has
/// read them. Item J + WST is issued after item J is consumed: X into the
/// stage of item J - 1 (once every warp has read it), W into the stage J
/// just freed.
template <int NT, int WARPS, int WST, bool BF16>
__global__ void __launch_bounds__(WARPS * 32, 1)
    tlsSpmmRingKernel(const Params P) {
  extern __shared__ __align__(128) unsigned char Smem[];
  constexpr int Threads = WARPS * 32;
  constexpr int XST = WST + 1;
  constexpr int Sets = NT / 8 <= 2 ? 2 : 1;
  constexpr int XB = xBytes(NT);
  const int WRegion = wRegionBytes(P.RCap);
  const int Tid = threadIdx.x, Warp = Tid >> 5, Lane = Tid & 31;

  const long long Begin = P.Items * blockIdx.x / gridDim.x;
  const long long End = P.Items * (blockIdx.x + 1) / gridDim.x;
  const int Count = int(End - Begin);
  if (Count <= 0)
    return;

  const Tables *Tab = reinterpret_cast<const Tables *>(Smem);
  const uint32_t XFull = smemAddr(Smem + TableBytes);
  const uint32_t XEmpty = XFull + 8 * XST;
  const uint32_t WFull = XEmpty + 8 * XST + 8 * WST * Warp;
  unsigned char *XRing = Smem + TableBytes + ringBarrierBytes(WARPS, WST);
  const uint32_t XRingAddr = smemAddr(XRing);
  unsigned char *WRing = XRing + XST * XB + Warp * WST * WRegion;
  const uint32_t WRingAddr = smemAddr(WRing);
  const LaneInfo LI(Lane);
  unsigned char *LaneA2 =
      XRing + XST * XB + WARPS * WST * WRegion + Warp * WValBytes + Lane * 64;
  const uint32_t A2Addr = smemAddr(LaneA2);

  ResidualWindow Ro;
  Ro.load(P, WARPS, Begin, Count, Warp, Lane);

  for (int B = Tid; B < 256; B += Threads)
    fillTables(*reinterpret_cast<Tables *>(Smem), uint32_t(B));
  if (Tid == 0)
    for (int S = 0; S < XST; ++S) {
      mbarInit(XFull + 8 * S, Threads);
      mbarInit(XEmpty + 8 * S, Threads);
    }
  if (Lane == 0)
    for (int S = 0; S < WST; ++S)
      mbarInit(WFull + 8 * S, 32);
  __syncthreads();

  // Copies item J: this thread's share of the X half-tile into X stage
  // J % XST, then this warp's half block into its W stage J % WST; the
  // caller has made sure both stages are free. The X copies come first: a
  // cp.async arrival waits for all earlier copies of the thread, so X stage
  // J completes without waiting for any warp's W copies of item J (a warp
  // whose half block lands late holds up only itself).
  Cursor IC(P, Begin);
  auto issueW = [&](int J) {
    Ro.advanceTo(J, P, WARPS, Begin, Count, Warp, Lane);
    const int Tile = IC.Mb * WARPS + Warp;
    if (Tile < P.Tiles)
      copyW(P, WRingAddr + (J % WST) * WRegion, Tile, IC, Lane, Ro.S, Ro.E,
            J - Ro.Base);
    mbarArriveCpAsync(WFull + 8 * (J % WST));
    IC.next(P);
  };
  auto issueX = [&](int J) {
    copyXStrided<NT, Threads>(P, XRingAddr + (J % XST) * XB, IC, Tid);
    mbarArriveCpAsync(XFull + 8 * (J % XST));
  };

#pragma unroll
  for (int S = 0; S < WST; ++S)
    if (S < Count) {
      issueX(S);
      issueW(S);
    }

  float Acc[Sets][NT / 8][4];
  zeroAcc<NT, Sets>(Acc);

  Cursor CC(P, Begin);
  int Covered = 0;
  for (int J = 0; J < Count; ++J) {
    const int XS = J % XST, WS = J % WST;
    mbarWait(XFull + 8 * XS, (J / XST) & 1);
    // Every item's W phase is waited for, with or without a tile: a phase
    // left pending would make the parity test of a later one pass early.
    mbarWait(WFull + 8 * WS, (J / WST) & 1);
    const int Tile = CC.Mb * WARPS + Warp;
    const bool HasTile = Tile < P.Tiles;
    if (HasTile) {
      decodeAndMultiply<NT, Sets, BF16>(
          Acc, Tab, WRing + WS * WRegion,
          reinterpret_cast<const uint16_t *>(XRing + XS * XB), LaneA2, A2Addr,
          CC.Half & 1, LI, P.Ablate);
    }
    mbarArrive(XEmpty + 8 * XS);
    const int Jn = J + WST;
    if (Jn < Count) {
      // X stage Jn % XST held item J - 1: wait until every warp read it.
      if (J >= 1)
        mbarWait(XEmpty + 8 * ((J - 1) % XST), ((J - 1) / XST) & 1);
      issueX(Jn);
      // Every lane is done with W stage WS (reads, and the zeros the
      // gather wrote into donated slots) before any lane refills it.
      __syncwarp();
      issueW(Jn);
    }
    ++Covered;
    if (CC.Half == P.Hpu - 1 || J == Count - 1) {
      if (HasTile)
        finishTile<NT, Sets, BF16>(P, Acc, CC.Nc, Tile, Covered, Lane);
      zeroAcc<NT, Sets>(Acc);
      Covered = 0;
    }
    CC.next(P);
  }
}

struct Variant {
  int NT, Warps, Stages;
  int Pipeline; // 1: stages shared by the CTA; 2: per-warp W rings
  bool Bf16;
  void (*Kernel)(Params);
};

template <int NT, int WARPS, int STAGES, bool BF16> Variant variant() {
  return {NT, WARPS, STAGES, 1, BF16, tlsSpmmKernel<NT, WARPS, STAGES, BF16>};
}
template <int NT, int WARPS, int WST, bool BF16> Variant ringVariant() {
  return {NT, WARPS, WST, 2, BF16, tlsSpmmRingKernel<NT, WARPS, WST, BF16>};
}

// Per n-tile in order of preference: the planner takes the first that fits
// in shared memory (many residual values per block, at low sparsity, need
// smaller variants).
#define TLS_VARIANTS_SMALL(NT, B)                                              \
  variant<NT, 16, 4, B>(), variant<NT, 16, 3, B>(), variant<NT, 12, 4, B>(),   \
      variant<NT, 8, 4, B>(), variant<NT, 4, 3, B>()
#define TLS_VARIANTS_32(B)                                                     \
  variant<32, 16, 3, B>(), variant<32, 12, 4, B>(), variant<32, 8, 4, B>(),    \
      variant<32, 4, 3, B>()
#define TLS_VARIANTS_64(B)                                                     \
  variant<64, 12, 4, B>(), variant<64, 12, 3, B>(), variant<64, 8, 4, B>(),    \
      variant<64, 4, 3, B>()
// n-tile 128 (one decode per half block for N <= 128), chosen only when
// TlsSpmmOptions::MaxNTile allows it.
#define TLS_VARIANTS_128(B) variant<128, 8, 3, B>(), variant<128, 4, 3, B>()
// Pipeline 2 (TlsSpmmOptions::Pipeline = 2): more warps per SM. Two W
// stages per warp give the lookahead of three shared stages. 32 warps of
// n-tile 8 fit only at >= 60 % sparsity (blocks with few residual values);
// 28 warps leave warps idle on M not a multiple of 448 rows, so they come
// after 24 and are taken on request (Warps = 28).
#define TLS_RING_VARIANTS(B)                                                   \
  ringVariant<8, 32, 2, B>(), ringVariant<8, 24, 2, B>(),                      \
      ringVariant<8, 28, 2, B>(), ringVariant<8, 20, 2, B>(),                  \
      ringVariant<8, 16, 3, B>(), ringVariant<8, 16, 2, B>(),                  \
      ringVariant<16, 24, 2, B>(), ringVariant<16, 28, 2, B>(),                \
      ringVariant<16, 16, 2, B>(), ringVariant<32, 20, 2, B>(),                \
      ringVariant<32, 16, 2, B>(), ringVariant<64, 16, 2, B>(),                \
      ringVariant<64, 12, 2, B>(), ringVariant<128, 8, 2, B>()

const std::vector<Variant> &allVariants() {
  static const std::vector<Variant> All = {
      TLS_VARIANTS_SMALL(8, false), TLS_VARIANTS_SMALL(16, false),
      TLS_VARIANTS_32(false),       TLS_VARIANTS_64(false),
      TLS_VARIANTS_128(false),      TLS_RING_VARIANTS(false),
      TLS_VARIANTS_SMALL(8, true),  TLS_VARIANTS_SMALL(16, true),
      TLS_VARIANTS_32(true),        TLS_VARIANTS_64(true),
      TLS_VARIANTS_128(true),       TLS_RING_VARIANTS(true)};
  return All;
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
  static std::vector<char> Done(allVariants().size(), 0);
  size_t I = size_t(&V - allVariants().data());
  if (Done[I])
    return;
  cudaFuncSetAttribute(V.Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       maxSharedOptin());
  Done[I] = 1;
}

/// CTAs of variant V with SharedBytes of dynamic shared memory that fit on
/// an SM (at least 1). Every launch plans, so the occupancy query is made
/// once per (variant, shared bytes).
int residentCtas(const Variant &V, size_t SharedBytes) {
  static std::mutex Lock;
  static std::map<std::pair<const Variant *, size_t>, int> Known;
  std::lock_guard<std::mutex> Guard(Lock);
  auto [It, New] = Known.try_emplace({&V, SharedBytes}, 0);
  if (New) {
    int PerSm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, V.Kernel,
                                                  V.Warps * 32, SharedBytes);
    It->second = std::max(PerSm, 1);
  }
  return It->second;
}

int residualCap(const TlsDeviceMatrix &W) {
  // Every residual value of a block is staged (plus the misalignment of its
  // start): the gather reads them from shared memory only.
  return int(W.MaxBlockResidual + 7 + 7) / 8 * 8;
}

/// Shared memory of variant V for a matrix whose blocks need RCap residual
/// slots.
int sharedBytes(const Variant &V, int RCap) {
  return V.Pipeline == 2 ? ringSharedBytes(V.NT, V.Warps, V.Stages, RCap)
                         : totalSharedBytes(V.NT, V.Warps, V.Stages, RCap);
}

/// The pipeline the planner prefers for n-tile NT: the one asked for, else
/// the faster one measured for that n-tile (H200, 2026-11-30 A/B in
/// docs/perf-notes.md): shared stages up to n-tile 32 (the warp rings were
/// 0-8 % slower there), warp rings from n-tile 64 (4-11 % faster).
int preferredPipeline(const TlsSpmmOptions &Opts, int NT) {
  if (Opts.Pipeline)
    return Opts.Pipeline;
  return NT >= 64 ? 2 : 1;
}

/// The first variant of one pipeline, in the table's order of preference,
/// that matches the options and fits in shared memory.
const Variant *firstFitting(const TlsDeviceMatrix &W, int NT, int Pipeline,
                            const TlsSpmmOptions &Opts) {
  const bool Bf16 = W.Type == ElemType::BF16;
  const int RCap = residualCap(W);
  for (const Variant &V : allVariants()) {
    if (V.Bf16 != Bf16 || V.NT != NT || V.Pipeline != Pipeline ||
        (Opts.Warps && V.Warps != Opts.Warps) ||
        (Opts.Stages && V.Stages != Opts.Stages))
      continue;
    if (sharedBytes(V, RCap) <= maxSharedOptin())
      return &V;
  }
  return nullptr;
}

const Variant *chooseVariant(const TlsDeviceMatrix &W, int NT,
                             const TlsSpmmOptions &Opts) {
  const int Pipeline = preferredPipeline(Opts, NT);
  if (const Variant *V = firstFitting(W, NT, Pipeline, Opts))
    return V;
  // Left to the planner, the other pipeline is the fallback: a matrix with
  // many residual values per block (low sparsity) may fit only a small
  // pipeline-1 variant.
  return Opts.Pipeline ? nullptr : firstFitting(W, NT, 3 - Pipeline, Opts);
}

} // namespace

std::vector<TlsSpmmOptions> tlsSpmmVariants() {
  std::vector<TlsSpmmOptions> Out;
  for (const Variant &V : allVariants())
    if (!V.Bf16) {
      TlsSpmmOptions O;
      O.NTile = V.NT;
      O.Warps = V.Warps;
      O.Stages = V.Stages;
      O.Pipeline = V.Pipeline;
      Out.push_back(O);
    }
  return Out;
}

TlsSpmmPlan tlsSpmmPlan(const TlsDeviceMatrix &W, int N,
                        const TlsSpmmOptions &Opts) {
  TlsSpmmPlan Plan{};
  // n-tile 128 for N > 64 unless capped: one decode of each half block per
  // 128 columns of X was 4-21 % faster than two at N = 128 and 256.
  const int MaxNTile = Opts.MaxNTile == 0 || Opts.MaxNTile >= 128 ? 128 : 64;
  Plan.NTile = Opts.NTile ? Opts.NTile
               : N <= 8   ? 8
               : N <= 16  ? 16
               : N <= 32  ? 32
               : N <= 64  ? 64
                          : MaxNTile;
  const Variant *V = chooseVariant(W, Plan.NTile, Opts);
  if (!V && !Opts.NTile && Plan.NTile == 128) {
    // n-tile 128 has only 8- and 4-warp variants; blocks with many residual
    // values may fit only n-tile 64.
    Plan.NTile = 64;
    V = chooseVariant(W, Plan.NTile, Opts);
  }
  if (!V || N <= 0)
    return Plan;
  const int RCap = residualCap(W);
  const int Tiles = int((W.Rows + 15) / 16);
  const int BlockColumns = int((W.Cols + 255) / 256);
  Plan.Warps = V->Warps;
  Plan.Stages = V->Stages;
  Plan.Pipeline = V->Pipeline;
  Plan.MBlocks = (Tiles + Plan.Warps - 1) / Plan.Warps;
  Plan.NChunks = (N + Plan.NTile - 1) / Plan.NTile;
  Plan.ResidualCap = RCap;
  Plan.SharedBytes = size_t(sharedBytes(*V, RCap));
  const long long Units = (long long)Plan.MBlocks * Plan.NChunks;
  const long long Items = Units * 2 * BlockColumns;
  // The occupancy query answers 0 for more than the kernel's current
  // dynamic shared-memory limit (48 KB until raised), so raise it first.
  allowMaxShared(*V);
  const int PerSm = residentCtas(*V, Plan.SharedBytes);
  long long Ctas = (long long)PerSm * deviceSms() *
                   std::max(1, Opts.WavesTarget);
  if (Opts.SplitK > 0)
    Ctas = Units * Opts.SplitK;
  Ctas = std::max(1LL, std::min(Ctas, Items));
  Plan.Ctas = int(Ctas);
  Plan.SplitK = int((Ctas + Units - 1) / Units);
  Plan.MaxWin = int((Items + Ctas - 1) / Ctas); // items per CTA (at most)
  return Plan;
}

namespace {
size_t counterBytes(const TlsSpmmPlan &P, const TlsDeviceMatrix &W) {
  size_t Tiles = (W.Rows + 15) / 16;
  return (Tiles * P.NChunks * sizeof(unsigned) + 255) / 256 * 256;
}
size_t accBytes(const TlsSpmmPlan &P, const TlsDeviceMatrix &W) {
  size_t Tiles = (W.Rows + 15) / 16;
  return Tiles * TileRows * size_t(P.NChunks) * P.NTile * sizeof(float);
}
size_t workspaceBytesFor(const TlsSpmmPlan &P, const TlsDeviceMatrix &W) {
  return P.Stages ? counterBytes(P, W) + accBytes(P, W) : 0;
}

cudaError_t launch(const TlsDeviceMatrix &W, const void *X, int Ldx, int N,
                   void *Y, int Ldy, void *Workspace, size_t WorkspaceBytes,
                   cudaStream_t Stream, const TlsSpmmOptions &Opts) {
  if (N <= 0 || Ldx % 8 || Ldx < int(W.Cols) || Ldy < int(W.Rows) ||
      reinterpret_cast<uintptr_t>(X) % 16)
    return cudaErrorInvalidValue;
  TlsSpmmPlan Plan = tlsSpmmPlan(W, N, Opts);
  const Variant *V =
      Plan.Stages ? chooseVariant(W, Plan.NTile, Opts) : nullptr;
  if (!V || WorkspaceBytes < workspaceBytesFor(Plan, W))
    return cudaErrorInvalidValue;
  Params P{};
  P.Values = W.Values;
  P.Bitmap = W.Bitmap;
  P.ResOff = W.ResidualOffsets;
  P.Residual = W.Residual;
  P.X = static_cast<const uint16_t *>(X);
  P.Y = static_cast<uint16_t *>(Y);
  P.Counters = static_cast<unsigned *>(Workspace);
  P.Acc32 = reinterpret_cast<float *>(static_cast<char *>(Workspace) +
                                      counterBytes(Plan, W));
  P.Ldx = Ldx;
  P.Ldy = Ldy;
  P.M = int(W.Rows);
  P.K = int(W.Cols);
  P.N = N;
  P.Tiles = int((W.Rows + 15) / 16);
  P.BlockColumns = int((W.Cols + 255) / 256);
  P.NChunks = Plan.NChunks;
  P.Np = Plan.NChunks * Plan.NTile;
  P.Hpu = 2 * P.BlockColumns;
  P.Items = (long long)Plan.MBlocks * Plan.NChunks * P.Hpu;
  P.RCap = Plan.ResidualCap;
  static const int Ablate = [] {
    const char *E = std::getenv("TLS_SPMM_ABLATE");
    return E ? std::atoi(E) : 0;
  }();
  P.Ablate = Ablate;
  allowMaxShared(*V);
  V->Kernel<<<Plan.Ctas, Plan.Warps * 32, Plan.SharedBytes, Stream>>>(P);
  return cudaGetLastError();
}
} // namespace

size_t tlsSpmmWorkspaceBytes(const TlsDeviceMatrix &W, int N,
                             const TlsSpmmOptions &Opts) {
  return workspaceBytesFor(tlsSpmmPlan(W, N, Opts), W);
}

cudaError_t tlsSpmm(const TlsDeviceMatrix &W, const __half *X, int Ldx, int N,
                    __half *Y, int Ldy, void *Workspace, size_t WorkspaceBytes,
                    cudaStream_t Stream, const TlsSpmmOptions &Opts) {
  if (W.Type != ElemType::F16)
    return cudaErrorInvalidValue;
  return launch(W, X, Ldx, N, Y, Ldy, Workspace, WorkspaceBytes, Stream, Opts);
}

cudaError_t tlsSpmm(const TlsDeviceMatrix &W, const __nv_bfloat16 *X, int Ldx,
                    int N, __nv_bfloat16 *Y, int Ldy, void *Workspace,
                    size_t WorkspaceBytes, cudaStream_t Stream,
                    const TlsSpmmOptions &Opts) {
  if (W.Type != ElemType::BF16)
    return cudaErrorInvalidValue;
  return launch(W, X, Ldx, N, Y, Ldy, Workspace, WorkspaceBytes, Stream, Opts);
}

cudaError_t tlsUpload(const TlsMatrix &M, TlsDeviceMatrix &D) {
  D = TlsDeviceMatrix();
  D.Rows = M.Rows;
  D.Cols = M.Cols;
  D.Type = M.Type;
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
