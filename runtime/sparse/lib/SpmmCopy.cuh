//===- SpmmCopy.cuh - Copies into shared memory ----------------*- CUDA -*-===//
//
// The cp.async copies of an item's operands into a stage: the X half-tile
// (shared by the CTA's warps), a warp's half block of W with its residual
// values, and the residual offsets they need, loaded 32 items ahead.
// Part of TlsSpmm.cu's single translation unit (see there).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAOPT_SPARSE_SPMMCOPY_CUH
#define CUDAOPT_SPARSE_SPMMCOPY_CUH

#include "SpmmLayout.cuh"
#include "SpmmPtx.cuh"

namespace cudaopt {
namespace sparse {
namespace {

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
    // The values are swizzled in device memory already (tlsUpload): the
    // chain is copied as it is.
    const unsigned char *V =
        reinterpret_cast<const unsigned char *>(P.Values + Blk * BlockSlots) +
        Chain * 2048 + Lane * 16;
    const uint32_t D = Wr + WHeadBytes + Lane * 16;
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

} // namespace
} // namespace sparse
} // namespace cudaopt

#endif // CUDAOPT_SPARSE_SPMMCOPY_CUH
