//===- TlsLayout.h - Three-layer sparse format: layout and lane decode ----===//
//
// The geometry of the three-layer ("TLS") sparse weight format and the
// per-lane decode rules shared by the CPU encoder/decoder and the SpMM kernel.
// Everything here compiles as plain C++17 and, under nvcc, as device code, so
// the CPU round-trip test exercises the very functions the kernel runs.
//
// Geometry (docs/sparse-format.md has the full description):
//   - W (M x K) is cut into blocks of 16 rows x 256 columns (one warp's tile
//     for eight mma.sp m16n8k32 k-steps).
//   - A block stores 2048 16-bit value slots, lane-major, each lane's k-step
//     being one mma.sp A fragment, and a 512-byte occupancy bitmap (one bit
//     per element).
//   - Layer-2 values are relocated inside a "chain": 32 slots of one lane,
//     four k-steps x its two rows x its two groups {tig, 4 + tig} x 2 slots.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_RUNTIME_SPARSE_TLSLAYOUT_H
#define CUDA_OPT_RUNTIME_SPARSE_TLSLAYOUT_H

#include <cstdint>

#if defined(__CUDACC__)
#define TLS_HD __host__ __device__ __forceinline__
#define TLS_UNROLL _Pragma("unroll")
#define TLS_UNROLL_N(N) _Pragma(TLS_STR(unroll N))
#define TLS_STR(X) #X
#else
#define TLS_HD inline
#define TLS_UNROLL
#define TLS_UNROLL_N(N)
#endif

namespace cudaopt {
namespace sparse {

constexpr int TileRows = 16;
constexpr int KStepCols = 32;
constexpr int KStepsPerBlock = 8;
constexpr int BlockCols = KStepCols * KStepsPerBlock; // 256
constexpr int BlockSlots = TileRows * BlockCols / 2;  // 2048 halves
constexpr int BlockBitmapWords = TileRows * KStepsPerBlock; // 128

/// The mma.sp metadata for the layer-2 operand: every group uses indices
/// (2, 3), because the overflow of a group is always among its last two
/// positions once the first two nonzeros went to layer 1.
constexpr uint32_t Layer2Meta = 0xEEEEEEEEu;

TLS_HD int popCount(uint32_t V) {
#if defined(__CUDA_ARCH__)
  return __popc(V);
#else
  return __builtin_popcount(V);
#endif
}

TLS_HD int lowestBit(uint32_t V) {
#if defined(__CUDA_ARCH__)
  return __ffs(V) - 1;
#else
  return __builtin_ctz(V);
#endif
}

/// Layer-1 mma.sp metadata (idx0 | idx1 << 2) for one group's 4-bit
/// occupancy nibble: the first two nonzeros; groups with fewer are padded with
/// a valid increasing pair whose extra slot holds no layer-1 value.
TLS_HD constexpr uint32_t layer1Meta(uint32_t Nib) {
  uint32_t I0 = 4, I1 = 4;
  for (uint32_t P = 0; P < 4; ++P) {
    if (!((Nib >> P) & 1))
      continue;
    if (I0 == 4)
      I0 = P;
    else if (I1 == 4)
      I1 = P;
  }
  if (I0 == 4)
    return 0x4; // (0, 1), both slots empty
  if (I1 == 4)
    return I0 < 3 ? (I0 | (I0 + 1) << 2) : (2 | 3 << 2);
  return I0 | I1 << 2;
}

/// Bit s set when slot s of the group holds a layer-1 value.
TLS_HD constexpr uint32_t layer1Occupancy(uint32_t Nib) {
  int C = ((Nib & 1) != 0) + ((Nib & 2) != 0) + ((Nib & 4) != 0) +
          ((Nib & 8) != 0);
  if (C >= 2)
    return 3;
  if (C == 1)
    return Nib == 8 ? 2 : 1;
  return 0;
}

/// Bit s set when layer-2 slot s of the group (index 2 + s) needs a value:
/// the group's third and fourth nonzeros.
TLS_HD constexpr uint32_t layer2Need(uint32_t Nib) {
  int C = ((Nib & 1) != 0) + ((Nib & 2) != 0) + ((Nib & 4) != 0) +
          ((Nib & 8) != 0);
  if (C == 4)
    return 3;
  if (C == 3)
    return (Nib & 8) ? 2 : 1;
  return 0;
}

/// The byte tables the kernel keeps in shared memory.
/// metaByte(b): layer-1 metadata of the two groups in byte b (low nibble first).
TLS_HD constexpr uint32_t metaByte(uint32_t B) {
  return layer1Meta(B & 0xF) | layer1Meta(B >> 4) << 4;
}
/// infoByte(b): for the lane's two groups of one k-step (low nibble: group
/// tig, high nibble: group 4 + tig), the empty-slot bits (low nibble, bit
/// 2 * half + slot) and the layer-2 need bits (high nibble, same order).
TLS_HD constexpr uint32_t infoByte(uint32_t B) {
  uint32_t E = (~layer1Occupancy(B & 0xF) & 3) |
               (~layer1Occupancy(B >> 4) & 3) << 2;
  uint32_t N = layer2Need(B & 0xF) | layer2Need(B >> 4) << 2;
  return E | N << 4;
}

/// Index of a value slot inside a block (in halves), format version 2.
/// The block is stored as two halves of 128 columns, "chains" C = 0, 1
/// (k-steps 4C .. 4C + 3), each 2048 bytes, so that the kernel can stage and
/// decode half a block at a time. Inside a chain, lane L (= 4 * groupID +
/// tig) owns 32 consecutive halves; its k-step T occupies 8 of them in the
/// order (group half H, row half RH, slot S): H 0 is group tig of the
/// k-step, H 1 group 4 + tig; RH 0 is row groupID, RH 1 row groupID + 8.
/// That is the register order a0..a3 of the mma.sp m16n8k32 A fragment, so
/// one 16-byte load per lane and k-step gives the whole fragment.
TLS_HD constexpr int slotIndex(int T, int L, int RH, int H, int S) {
  return (T >> 2) * 1024 + L * 32 + (T & 3) * 8 + H * 4 + RH * 2 + S;
}

/// The 32 slots of one lane in one chain are also the relocation domain of
/// layer 2. Chain bit X = 8 * (T & 3) + 4 * H + 2 * RH + S is the slot's
/// offset from the lane's chain base, so the kernel addresses a slot with
/// one shift-add.
constexpr int ChainSlots = 32;
constexpr int ChainsPerLane = 2;
TLS_HD constexpr int chainSlotIndex(int L, int C, int X) {
  return C * 1024 + L * 32 + X;
}

/// Index of the bitmap word of block row Row (0..15) and k-step T: the
/// words of a chain are contiguous (256 bytes), row-major inside it.
TLS_HD constexpr int bitmapIndex(int Row, int T) {
  return (T >> 2) * 64 + Row * 4 + (T & 3);
}

/// Spreads the 4-bit (2 * H + S) mask of one row of a k-step to the chain
/// bit positions 4 * H + S (row half 0; shift left by 2 for row half 1).
TLS_HD constexpr uint32_t spreadRowBits(uint32_t B) {
  return (B & 3) | (B & 0xC) << 2;
}

/// The bitmap byte holding groups tig and 4 + tig of one 32-column k-step
/// word (group j is nibble j of the word, bit p = column 4 * j + p).
TLS_HD uint32_t laneGroupsByte(uint32_t Word, int Tig) {
  return ((Word >> (4 * Tig)) & 0xF) | ((Word >> (12 + 4 * Tig)) & 0xF0);
}

/// The empty-slot and layer-2-need masks of chain C of lane L from the
/// block's bitmap. Info is infoByte() tabulated (or any callable).
template <typename InfoFn>
TLS_HD void laneChainMasks(const uint32_t *Bits, int L, int C, InfoFn Info,
                           uint32_t &Empty, uint32_t &Need) {
  uint32_t E = 0, N = 0;
  int G = L >> 2, Tig = L & 3;
TLS_UNROLL
  for (int J = 0; J < 4; ++J) {
    int T = 4 * C + J;
    uint32_t I0 = Info(laneGroupsByte(Bits[bitmapIndex(G, T)], Tig));
    uint32_t I1 = Info(laneGroupsByte(Bits[bitmapIndex(G + 8, T)], Tig));
    E |= (spreadRowBits(I0 & 0xF) | spreadRowBits(I1 & 0xF) << 2) << (8 * J);
    N |= (spreadRowBits(I0 >> 4) | spreadRowBits(I1 >> 4) << 2) << (8 * J);
  }
  Empty = E;
  Need = N;
}

/// Number of layer-2 values of a chain that find no empty slot.
TLS_HD int residualCount(uint32_t Empty, uint32_t Need) {
  int R = popCount(Need) - popCount(Empty);
  return R > 0 ? R : 0;
}

TLS_HD int highestBit(uint32_t V) {
#if defined(__CUDA_ARCH__)
  return 31 - __clz(V);
#else
  return 31 - __builtin_clz(V);
#endif
}

/// Layer-2 decode of one chain: needed positions are taken from the highest
/// bit down, and the j-th of them takes the value of the j-th empty slot
/// (also from the highest down); once the empty slots run out the rest come
/// from the residual list, in order. Slot(y) reads chain slot y,
/// Residual(r) the r-th residual value of the chain, Store(x, v) receives
/// the layer-2 value of position x. Each value needs one find-highest-bit
/// per list (a single FLO on the GPU): the "differential distance" y - x is
/// never stored, it follows from the two prefix counts.
template <typename SlotFn, typename ResFn, typename StoreFn>
TLS_HD void decodeLayer2(uint32_t Empty, uint32_t Need, SlotFn Slot,
                         ResFn Residual, StoreFn Store) {
  int R = 0;
  while (Need) {
    int X = highestBit(Need);
    Need ^= 1u << X;
    if (Empty) {
      int Y = highestBit(Empty);
      Empty ^= 1u << Y;
      Store(X, Slot(Y));
    } else {
      Store(X, Residual(R++));
    }
  }
}

} // namespace sparse
} // namespace cudaopt

#endif // CUDA_OPT_RUNTIME_SPARSE_TLSLAYOUT_H
