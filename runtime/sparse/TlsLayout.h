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
//   - A block stores 2048 16-bit value slots in mma.sp A-fragment order and a
//     512-byte occupancy bitmap (one bit per element).
//   - A "lane-row" is what one lane of the warp owns for one of its two rows:
//     the two 4-column groups {tig, 4 + tig} of each of the 8 k-steps, i.e.
//     16 groups and 32 slots. Slot x = 4 * kstep + 2 * half + slot.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_RUNTIME_SPARSE_TLSLAYOUT_H
#define CUDA_OPT_RUNTIME_SPARSE_TLSLAYOUT_H

#include <cstdint>

#if defined(__CUDACC__)
#define TLS_HD __host__ __device__ __forceinline__
#define TLS_UNROLL _Pragma("unroll")
#else
#define TLS_HD inline
#define TLS_UNROLL
#endif

namespace cudaopt {
namespace sparse {

constexpr int TileRows = 16;
constexpr int KStepCols = 32;
constexpr int KStepsPerBlock = 8;
constexpr int BlockCols = KStepCols * KStepsPerBlock; // 256
constexpr int BlockSlots = TileRows * BlockCols / 2;  // 2048 halves
constexpr int BlockBitmapWords = TileRows * KStepsPerBlock; // 128
constexpr int LaneRowSlots = 32;

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

/// Index of a value slot inside a block (in halves): k-step T, lane L
/// (= 4 * groupID + tig), row half RH (0: row groupID, 1: row groupID + 8),
/// group half H (0: group tig, 1: group 4 + tig), slot S. This is the order
/// of the A-fragment registers a0..a3 of mma.sp m16n8k32, so one 16-byte load
/// per lane and k-step yields the whole fragment.
TLS_HD constexpr int slotIndex(int T, int L, int RH, int H, int S) {
  return (T * 32 + L) * 8 + (H * 2 + RH) * 2 + S;
}

/// Index of lane-row slot X (= 4 * T + 2 * H + S) of lane L, row half RH.
TLS_HD constexpr int laneRowSlotIndex(int L, int RH, int X) {
  return slotIndex(X >> 2, L, RH, (X >> 1) & 1, X & 1);
}

/// The bitmap byte holding groups tig and 4 + tig of one 32-column k-step
/// word (group j is nibble j of the word, bit p = column 4 * j + p).
TLS_HD uint32_t laneGroupsByte(uint32_t Word, int Tig) {
  return ((Word >> (4 * Tig)) & 0xF) | ((Word >> (16 + 4 * Tig)) & 0xF) << 4;
}

/// The empty-slot and layer-2-need masks of one lane-row from the row's 8
/// k-step bitmap words. InfoTable is infoByte() tabulated (or any callable).
template <typename InfoFn>
TLS_HD void laneRowMasks(const uint32_t *RowWords, int Tig, InfoFn Info,
                         uint32_t &Empty, uint32_t &Need) {
  uint32_t E = 0, N = 0;
TLS_UNROLL
  for (int T = 0; T < KStepsPerBlock; ++T) {
    uint32_t I = Info(laneGroupsByte(RowWords[T], Tig));
    E |= (I & 0xF) << (4 * T);
    N |= (I >> 4) << (4 * T);
  }
  Empty = E;
  Need = N;
}

/// Number of layer-2 values of a lane-row that find no empty slot.
TLS_HD int residualCount(uint32_t Empty, uint32_t Need) {
  int R = popCount(Need) - popCount(Empty);
  return R > 0 ? R : 0;
}

/// Layer-2 decode of one lane-row: the j-th needed position (in slot order)
/// takes the value of the j-th empty slot; once the empty slots run out the
/// rest come from the residual list, in order. Slot(y) reads lane-row slot y,
/// Residual(r) the r-th residual value of the lane-row, Store(x, v) receives
/// the layer-2 value of position x. Both lists are consumed front to back,
/// so each value needs only a find-lowest-bit: the "differential distance"
/// y - x is never stored, it follows from the two prefix counts.
template <typename SlotFn, typename ResFn, typename StoreFn>
TLS_HD void decodeLayer2(uint32_t Empty, uint32_t Need, SlotFn Slot,
                         ResFn Residual, StoreFn Store) {
  int R = 0;
  while (Need) {
    int X = lowestBit(Need);
    Need &= Need - 1;
    if (Empty) {
      int Y = lowestBit(Empty);
      Empty &= Empty - 1;
      Store(X, Slot(Y));
    } else {
      Store(X, Residual(R++));
    }
  }
}

/// The 32-bit keep-mask of one A register (two slots) given the two empty
/// bits of its group: empty slots may carry relocated layer-2 values and
/// must read as zero in the layer-1 operand.
TLS_HD uint32_t keepMask(uint32_t EmptyBits) {
  return ~(((EmptyBits & 1) ? 0x0000FFFFu : 0u) |
           ((EmptyBits & 2) ? 0xFFFF0000u : 0u));
}

} // namespace sparse
} // namespace cudaopt

#endif // CUDA_OPT_RUNTIME_SPARSE_TLSLAYOUT_H
