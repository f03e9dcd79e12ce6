//===- SpmmLayout.cuh - SpMM sizes, parameters, positions ------*- CUDA -*-===//
//
// The SpMM kernels' fixed sizes, decode tables, kernel parameters and
// shared-memory layout (the host sizes launches with the same functions),
// and where a thread is: its item (Cursor) and its lane's role (LaneInfo).
// Part of TlsSpmm.cu's single translation unit (see there).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAOPT_SPARSE_SPMMLAYOUT_CUH
#define CUDAOPT_SPARSE_SPMMLAYOUT_CUH

#include "TlsBitDecode.h"
#include "TlsLayout.h"

#include <cstdint>

namespace cudaopt {
namespace sparse {
namespace {

constexpr int HalfCols = BlockCols / 2;
constexpr int XPitch = HalfCols + 8; // halves; 16-byte pad kills conflicts
// A lane's 32 slots (64 bytes) of a chain in shared memory: its k-step K
// fragment (16 bytes) at chunk K ^ laneSwizzle, so that the 16-byte fragment
// loads of a quarter warp hit eight different bank quads.
constexpr int WValBytes = 32 * 64;               // 2048
constexpr int WBitsBytes = BlockBitmapWords * 2; // 256: one chain's words
constexpr int WHeadBytes = 16;    // residual start and end of the block
constexpr int BarrierBytes = 128; // full and empty mbarriers, STAGES <= 8

/// Decode tables, shared memory: EN0/EN1 map a lane's bitmap byte of row g
/// / g + 8 to its empty bits (byte 0) and need bits (byte 2), placed so that
/// EN0[b0] | EN1[b1] is one k-step of a chain; Meta maps a bitmap byte (two
/// groups) to their layer-1 mma.sp metadata.
/// How a kernel decodes the masks and the layer-1 metadata: through the
/// tables below, or bit-sliced (TlsBitDecode.h; pipeline 3 variants with
/// TlsSpmmOptions::Decode = 1), and in addition the gather as
/// gatherRanked (Decode = 2) or gatherRankedMin (Decode = 3, with leaner
/// per-item bookkeeping, see tlsSpmmBulkKernel) instead of gatherChain;
/// Decode = 4: Decode 3 with the gather unrolled by four, the metadata
/// words loaded ready-picked and the item loop unrolled by the stages
/// (consumeStaged).
constexpr int DecodeTables = 0;
constexpr int DecodeBits = 1;
constexpr int DecodeBitsRanked = 2;
constexpr int DecodeBitsMin = 3;
constexpr int DecodeBitsMin4 = 4;
/// Decode 3 and 4 share the min gather's layout and the lean item loop's
/// barrier protocol (every consumer lane arrives on *empty*).
__host__ __device__ constexpr bool isMinDecode(int Decode) {
  return Decode >= DecodeBitsMin;
}

/// The CTAs per SM a pipeline-3 kernel asks ptxas to fit (the second
/// `__launch_bounds__` argument), i.e. its register cap. Registers are
/// allocated per SM sub-partition (16K each, 256 per warp at a time).
/// Min-gather decodes (3, 4): two 9-warp CTAs fit only at <= 96 registers a
/// thread, and Decode 3 at n-tile 32 (100) and Decode 4 at n-tile 16 (104)
/// got one CTA per SM, i.e. half the planner's K splits (H200 A/B,
/// bench/JOURNAL.md session 23). Their decode is a latency chain, so more
/// consumer warps per SM should hide more of it: 8 warps x 2 stages (~70 KB
/// of shared memory at 50 % sparsity) ask for three CTAs (<= 72 registers,
/// 24 consumer warps per SM instead of 16), 12 warps x 2 stages for two
/// (<= 72 as well). The tables' decodes keep ptxas's own choice.
__host__ __device__ constexpr int bulkMinCtasPerSm(int Warps, int Stages,
                                                   int Decode) {
  if (!isMinDecode(Decode))
    return 1;
  return Warps == 8 && Stages == 2 ? 3 : 2;
}

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
  float *Acc32;       // Tiles * 16 rows x Np columns, fp32, zero between calls
  unsigned *Counters; // Tiles * NChunks, zero between calls
  int Ldx, Ldy;
  int M, K, N;
  int Tiles, BlockColumns;
  int NChunks, Np;
  int Hpu;         // items (half blocks) per output tile: 2 * BlockColumns
  long long Items; // MBlocks * NChunks * Hpu
  int RCap;        // residual values staged per warp and stage (multiple of 8)
  int Ablate;      // diagnostics only (TLS_SPMM_ABLATE, wrong results): bit 0
                   // skips the gather, 1 the mask/metadata decode (table
                   // decode only), 2 the mma
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
/// Bytes of a lane's layer-2 buffer: 64, with the lane's fragment swizzle
/// (as its staged values), or, for the ranked gathers (Decode 2 and 3),
/// 80: unswizzled and padded, so that the fragment loads of a quarter warp
/// still hit eight bank quads (lane stride 20 banks) and slot X is at
/// base + 2 X (no XOR per gathered value, no per-item fragment addresses).
__host__ __device__ constexpr int a2LaneBytes(int Decode) {
  return Decode >= DecodeBitsRanked ? 80 : 64;
}
__host__ __device__ constexpr int totalSharedBytes(int NT, int Warps,
                                                   int Stages, int RCap,
                                                   int A2Lane = 64) {
  return TableBytes + BarrierBytes + Stages * stageBytes(NT, Warps, RCap) +
         Warps * 32 * A2Lane;
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

/// The contiguous item range [Begin, Begin + Count) of this CTA: every CTA
/// of the one-wave grid walks the same number of items.
struct CtaItems {
  long long Begin;
  int Count;
  __device__ explicit CtaItems(const Params &P) {
    Begin = P.Items * blockIdx.x / gridDim.x;
    Count = int(P.Items * (blockIdx.x + 1) / gridDim.x - Begin);
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
  // The bit-sliced decode's lane constants (unused by the table decode).
  BitDecodeLane Bit;
  // The bit-sliced variants' address offsets: the lane's values, their
  // fragment K and its row G bitmap words from its warp's W region
  // (header, values, bitmap), and the lane's ldmatrix row in the X
  // half-tile.
  uint32_t VBase, VOff[4], BitsOff, LdmOff;
  // Decode 3: the residual list's start minus the lane's values, in halves
  // (gatherRankedMinZ's Z is ZOff + the residual start Q - |Empty|).
  uint32_t ZOff;
  // Decode 4: the lane's metadata words (k-steps 2 Hi, 2 Hi + 1 of row G)
  // from its warp's W region, and the layer-2 metadata constant, held in a
  // register (left alone, ptxas moves it into one every item).
  uint32_t MetaOff, L2Meta;
  // Decode 4's scan: 0 for lane 0, 1 for the others.
  uint32_t NotLane0;
  __device__ __forceinline__ explicit LaneInfo(int L) {
    const int Tig = L & 3;
    Lane = L;
    G = L >> 2;
    Sh = 4 * Tig;
    MetaRow = Tig >> 1;
    SelLo = 0x4440u | uint32_t(2 * (Tig & 1));
    SelHi = SelLo + 1;
    Sw = uint32_t((L >> 1) & 3) << 4;
    Bit = bitDecodeLane(Tig);
    VBase = uint32_t(WHeadBytes + L * 64);
    for (int K = 0; K < 4; ++K)
      VOff[K] = VBase + ((uint32_t(K) << 4) ^ Sw);
    BitsOff = uint32_t(WHeadBytes + WValBytes + G * 16);
    LdmOff = uint32_t(2 * ((L & 7) * XPitch + (L >> 3) * 8));
    ZOff = uint32_t(WHeadBytes + WValBytes + WBitsBytes - int(VBase)) / 2u;
    MetaOff = BitsOff + 8u * Bit.Hi;
#if defined(__CUDA_ARCH__)
    // A value ptxas cannot fold to the constant (the dynamic shared memory
    // size is below 2^31), so that it stays in a register instead of being
    // moved into one in every item.
    uint32_t Dyn;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(Dyn));
    L2Meta = Layer2Meta | (Dyn >> 31);
#else
    L2Meta = Layer2Meta;
#endif
    NotLane0 = L != 0;
  }
};

} // namespace
} // namespace sparse
} // namespace cudaopt

#endif // CUDAOPT_SPARSE_SPMMLAYOUT_CUH
