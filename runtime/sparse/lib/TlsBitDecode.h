//===- TlsBitDecode.h - Bit-sliced mask and metadata decode ---------------===//
//
// The per-lane decode of the SpMM kernel's layer-1 metadata and layer-2
// empty/need masks from the bitmap words, computed with bitwise logic (LOP3),
// shifts and byte permutes (PRMT) instead of the 256-entry shared-memory
// tables of SpmmLayout.cuh (issue 15 item 1). Plain C++17 and, under nvcc,
// device code: runtime/sparse/test/BitDecodeTest.cpp checks these very
// functions on the CPU against the table-based decode, exhaustively for
// every 16-bit input that reaches one output field.
//
// Inputs of a lane (L = 4 g + t) for one chain: W0[K], W1[K], the bitmap
// words of rows g and g + 8 for the chain's k-steps K = 0..3 (group j of a
// word is nibble j, bit p of a nibble is column 4 j + p).
//
// Per group (nibble n0..n3), from TlsLayout.h's layer1Occupancy, layer2Need
// and layer1Meta:
//   empty slot 0 = ~(n0 | n1 | n2)           need slot 0 = n0 & n1 & n2
//   empty slot 1 = ~n3 & ~maj(n0, n1, n2)    need slot 1 = n3 & maj(n0, n1, n2)
//   metadata m0 = n1 & ~n0           (idx0 | idx1 << 2 = m0..m3)
//            m1 = ~n0 & ~n1 & (n2 | n3)
//            m2 = ~(n2 & (n0 ^ n1)) & ~(m0 & ~(n2 | n3))
//            m3 = ~(n0 & n1) & (n1 | n2 | n3)
// Each is one or two LOP3 on words holding many groups at once; the rest is
// moving the lane's groups into place.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_RUNTIME_SPARSE_TLSBITDECODE_H
#define CUDA_OPT_RUNTIME_SPARSE_TLSBITDECODE_H

#include "TlsLayout.h"

#include <cstdint>

namespace cudaopt {
namespace sparse {

/// PRMT in its default mode: byte I of the result is byte Sel[4I+2:4I] of
/// the 8-byte value {B, A} (A is bytes 0-3); selector bit 4I+3 replicates
/// that byte's sign bit (unused here). On the GPU one prmt.b32 (not
/// __byte_perm, whose selector nvcc masks with 0x7777 first).
TLS_HD uint32_t bytePerm(uint32_t A, uint32_t B, uint32_t Sel) {
#if defined(__CUDA_ARCH__)
  uint32_t D;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(D) : "r"(A), "r"(B), "r"(Sel));
  return D;
#else
  const uint64_t V = uint64_t(B) << 32 | A;
  uint32_t R = 0;
  for (int I = 0; I < 4; ++I) {
    const uint32_t S = (Sel >> (4 * I)) & 0xF;
    uint32_t Byte = uint32_t(V >> (8 * (S & 7))) & 0xFF;
    if (S & 8)
      Byte = (Byte & 0x80) ? 0xFF : 0;
    R |= Byte << (8 * I);
  }
  return R;
#endif
}

/// LOP3 with truth table Lut (inputs A = 0xF0, B = 0xCC, C = 0xAA). Written
/// as one lop3.b32 on the GPU: left to itself, nvcc splits a select whose
/// operand has known zero bits (a shifted word) into two.
template <uint32_t Lut>
TLS_HD uint32_t lop3(uint32_t A, uint32_t B, uint32_t C) {
#if defined(__CUDA_ARCH__)
  uint32_t D;
  asm("lop3.b32 %0, %1, %2, %3, %4;"
      : "=r"(D)
      : "r"(A), "r"(B), "r"(C), "n"(Lut));
  return D;
#else
  uint32_t R = 0;
  for (int I = 0; I < 8; ++I)
    if ((Lut >> I) & 1)
      R |= ((I & 4) ? A : ~A) & ((I & 2) ? B : ~B) & ((I & 1) ? C : ~C);
  return R;
#endif
}

/// (A & M) | (B & ~M): one LOP3.
TLS_HD uint32_t bitSelect(uint32_t M, uint32_t A, uint32_t B) {
  return lop3<0xE2>(A, M, B);
}
/// The majority of three bits, bitwise: one LOP3.
TLS_HD uint32_t majority(uint32_t A, uint32_t B, uint32_t C) {
  return lop3<0xE8>(A, B, C);
}

/// The lane constants of the bit-sliced decode (computed once per kernel).
struct BitDecodeLane {
  uint32_t Sr, Sl; // 4 * (t & 1) and 4 - Sr: the lane's nibble in a byte
  uint32_t SelA;   // PRMT: bytes t >> 1 and 2 + (t >> 1) of two words
  uint32_t SelM;   // PRMT: bytes 2 s, 2 s + 1 of W0 then of W1 (s = t & 1)
  uint32_t Hi;     // t >> 1: the lane decodes metadata k-steps 2 Hi, 2 Hi + 1
};
TLS_HD BitDecodeLane bitDecodeLane(int Tig) {
  BitDecodeLane B;
  B.Sr = 4u * uint32_t(Tig & 1);
  B.Sl = 4u - B.Sr;
  B.SelA = 0x6420u + 0x1111u * uint32_t(Tig >> 1);
  B.SelM = 0x5410u + 0x2222u * uint32_t(Tig & 1);
  B.Hi = uint32_t(Tig >> 1);
  return B;
}

TLS_HD void bitChainMasksAB(uint32_t A, uint32_t B, uint32_t &Empty,
                            uint32_t &Need);

/// The empty-slot and layer-2-need masks of a lane's chain (chain bit
/// x = 8 K + 4 h + 2 rh + s, as laneChainMasks in TlsLayout.h).
///
/// 1. Y_K: the lane's two nibbles of rows g and g + 8 paired in bytes
///    t >> 1 (group t) and 2 + (t >> 1) (group 4 + t), row g low; two PRMTs
///    collect them into A (k-steps 0, 1) and B (2, 3) with group
///    q = 4 K + 2 h + rh at nibble q (mod 8): the chain's group order.
/// 2. Each nibble split into its low pair (n0, n1) and its high pair
///    (n2, n3), compacted to two-bit fields: L and H hold group q at bits
///    2q, 2q + 1, which is where the chain's slots s = 0, 1 of q are.
/// 3. The four functions on L and H (16 groups per instruction).
TLS_HD void bitChainMasks(const uint32_t (&W0)[4], const uint32_t (&W1)[4],
                          const BitDecodeLane &Ln, uint32_t &Empty,
                          uint32_t &Need) {
  uint32_t Y[4];
  TLS_UNROLL
  for (int K = 0; K < 4; ++K)
    Y[K] = bitSelect(0x0F0F0F0Fu, W0[K] >> Ln.Sr, W1[K] << Ln.Sl);
  const uint32_t A = bytePerm(Y[0], Y[1], Ln.SelA);
  const uint32_t B = bytePerm(Y[2], Y[3], Ln.SelA);
  bitChainMasksAB(A, B, Empty, Need);
}

/// bitChainMasks with the byte permutes first (Decode 3): Y_K's byte j
/// depends only on byte j of W0[K] and of W1[K] (the nibble a shift moves
/// across a byte boundary is the one the select drops), so the bytes the
/// PRMT keeps can be picked from the words before the shifts and the
/// select, which then run once per two k-steps: 2 PRMT + 2 SHF + 1 LOP3 per
/// pair of k-steps instead of 4 SHF + 2 LOP3 + 1 PRMT.
TLS_HD void bitChainMasksPermFirst(const uint32_t (&W0)[4],
                                   const uint32_t (&W1)[4],
                                   const BitDecodeLane &Ln, uint32_t &Empty,
                                   uint32_t &Need) {
  const uint32_t A =
      bitSelect(0x0F0F0F0Fu, bytePerm(W0[0], W0[1], Ln.SelA) >> Ln.Sr,
                bytePerm(W1[0], W1[1], Ln.SelA) << Ln.Sl);
  const uint32_t B =
      bitSelect(0x0F0F0F0Fu, bytePerm(W0[2], W0[3], Ln.SelA) >> Ln.Sr,
                bytePerm(W1[2], W1[3], Ln.SelA) << Ln.Sl);
  bitChainMasksAB(A, B, Empty, Need);
}

/// The common tail of bitChainMasks: A, B hold the chain's groups q =
/// 4 K + 2 h + rh at nibble q (mod 8), k-steps 0, 1 in A and 2, 3 in B.
TLS_HD void bitChainMasksAB(uint32_t A, uint32_t B, uint32_t &Empty,
                            uint32_t &Need) {
  // Two-bit fields at bits 4 i (low pairs) or 4 i + 2 (high pairs) to bits
  // 2 i of bytes 0 and 2; the PRMT below takes those bytes.
  const uint32_t A2 = A >> 2, B2 = B >> 2;
  const uint32_t ALo = bitSelect(0x03030303u, A, A2);
  const uint32_t AHi = bitSelect(0x03030303u, A2, A >> 4);
  const uint32_t BLo = bitSelect(0x03030303u, B, B2);
  const uint32_t BHi = bitSelect(0x03030303u, B2, B >> 4);
  const uint32_t L =
      bytePerm(bitSelect(0x000F000Fu, ALo, ALo >> 4),
               bitSelect(0x000F000Fu, BLo, BLo >> 4), 0x6420u);
  const uint32_t H =
      bytePerm(bitSelect(0x000F000Fu, AHi, AHi >> 4),
               bitSelect(0x000F000Fu, BHi, BHi >> 4), 0x6420u);
  // Even bits: n0 (L), n1 (S), n2 (H); odd bits of H: n3.
  const uint32_t S = L >> 1;
  const uint32_t Maj = majority(L, S, H);
  const uint32_t Maj1 = Maj << 1; // at the odd bits
  // Empty = select(even: ~(n0 | n1 | n2), odd: ~(n3 | maj)); one LOP3 for
  // the select and the complement.
  Empty = lop3<0x1D>(L | S | H, 0x55555555u, H | Maj1);
  Need = bitSelect(0x55555555u, L & S & H, H & Maj1);
}

/// Two metadata registers (k-steps a and b) of lane 4 g + s in the PTX
/// layout for sparsity selector 0: row g in bits 0-15, row g + 8 in bits
/// 16-31, groups 4 s .. 4 s + 3, four bits each (layer1Meta of each group).
/// Qa, Qb (one PRMT each) already have that nibble layout; the two-bit
/// halves of their nibbles are exchanged so that L holds the (n0, n1) pairs
/// of both and H the (n2, n3) pairs, the metadata bits are computed on 16
/// groups per instruction, and the halves exchanged back.
TLS_HD void bitMetaPair(uint32_t W0a, uint32_t W1a, uint32_t W0b,
                        uint32_t W1b, uint32_t SelM, uint32_t &Ma,
                        uint32_t &Mb) {
  const uint32_t Qa = bytePerm(W0a, W1a, SelM);
  const uint32_t Qb = bytePerm(W0b, W1b, SelM);
  // Nibble j: L = [n0 n1 of Qa][n0 n1 of Qb], H = [n2 n3 of Qa][of Qb].
  const uint32_t L = bitSelect(0x33333333u, Qa, Qb << 2);
  const uint32_t H = bitSelect(0x33333333u, Qa >> 2, Qb);
  // At the even bits: n0 = L, n1 = Lr, n2 = H, n3 = Hr.
  const uint32_t Lr = L >> 1, Hr = H >> 1;
  const uint32_t CD = H | Hr;
  const uint32_t M0 = Lr & ~L;
  const uint32_t M1 = ~L & ~Lr & CD;
  const uint32_t M2 = ~(H & (L ^ Lr)) & ~(M0 & ~CD);
  const uint32_t M3 = ~(L & Lr) & (Lr | CD);
  const uint32_t ML = bitSelect(0x55555555u, M0, M1 << 1); // (m0, m1)
  const uint32_t MH = bitSelect(0x55555555u, M2, M3 << 1); // (m2, m3)
  Ma = bitSelect(0x33333333u, ML, MH << 2);
  Mb = bitSelect(0x33333333u, ML >> 2, MH);
}

/// The layer-1 metadata registers of a lane for k-steps K = 0..3 of the
/// chain. The mma reads them from lanes t = 0, 1 only, so the quad shares
/// the work: lane t decodes k-steps 2 (t >> 1) and 2 (t >> 1) + 1 for
/// s = t & 1 (bitMetaPair), and lanes 0, 1 take k-steps 2 and 3 from lane
/// t + 2: ShflDown2(X, I) returns X of lane + 2 (I = 0, 1: the call's
/// order; a warp shuffle on the GPU, an emulation in the CPU test). Lanes
/// t = 2, 3 end with registers the mma does not read.
template <typename ShflFn>
TLS_HD void bitLayer1Meta(const uint32_t (&W0)[4], const uint32_t (&W1)[4],
                          const BitDecodeLane &Ln, uint32_t (&Meta)[4],
                          ShflFn ShflDown2) {
  const bool Hi = Ln.Hi != 0;
  uint32_t Ma, Mb;
  bitMetaPair(Hi ? W0[2] : W0[0], Hi ? W1[2] : W1[0], Hi ? W0[3] : W0[1],
              Hi ? W1[3] : W1[1], Ln.SelM, Ma, Mb);
  Meta[0] = Ma;
  Meta[1] = Mb;
  Meta[2] = ShflDown2(Ma, 0);
  Meta[3] = ShflDown2(Mb, 1);
}

/// bitLayer1Meta with the lane's words already picked (Decode 4): W0a, W1a,
/// W0b, W1b are rows g and g + 8 of k-steps 2 Hi and 2 Hi + 1, which the
/// kernel loads with two 8-byte loads at the lane's offset instead of
/// selecting them from all four k-steps (four SELs per item).
template <typename ShflFn>
TLS_HD void bitLayer1MetaPicked(uint32_t W0a, uint32_t W1a, uint32_t W0b,
                                uint32_t W1b, const BitDecodeLane &Ln,
                                uint32_t (&Meta)[4], ShflFn ShflDown2) {
  uint32_t Ma, Mb;
  bitMetaPair(W0a, W1a, W0b, W1b, Ln.SelM, Ma, Mb);
  Meta[0] = Ma;
  Meta[1] = Mb;
  Meta[2] = ShflDown2(Ma, 0);
  Meta[3] = ShflDown2(Mb, 1);
}

/// Decode 4's stage header (written by the producer warp, which knows the
/// item's chain; read by the consumer, which then keeps no chain state):
/// Hx = the block's residual start within the staged window (the copy
/// starts at Start rounded down to 8 values) plus, for chain 1, the
/// block's residual count Stop - Start; Hy = the chain as a mask.
TLS_HD void residualHeader(uint32_t Start, uint32_t Stop, int Chain,
                           uint32_t &Hx, uint32_t &Hy) {
  Hy = 0u - uint32_t(Chain & 1);
  Hx = (Start & 7u) + ((Stop - Start) & Hy);
}
/// The lane's first residual value in the staged window, from the header:
/// chain 0 counts Excl (the lanes before it) from the block's start, chain
/// 1 from chain 1's start, Stop - Start - Total (Total: chain 1's count,
/// the scan's sum). Decode 3 computed the same from (Start, Stop) and a
/// chain mask kept per item.
TLS_HD uint32_t residualStartQ(uint32_t Hx, uint32_t Hy, uint32_t Excl,
                               uint32_t Total) {
  return Hx + Excl - (Total & Hy);
}

/// FLO: the highest set bit, -1 for zero (one instruction on the GPU).
TLS_HD int highestBitOrNone(uint32_t V) {
#if defined(__CUDA_ARCH__)
  return 31 - __clz(V);
#else
  return V ? 31 - __builtin_clz(V) : -1;
#endif
}

/// M with bit B and every higher bit cleared: bits below B, i.e. M without
/// its highest set bit B (B = highestBitOrNone(M); M itself for B = -1).
/// One BMSK and one LOP3 on the GPU (no register holding the 1 to shift).
TLS_HD uint32_t belowBit(uint32_t M, int B) {
#if defined(__CUDA_ARCH__)
  uint32_t Mask;
  asm("bmsk.clamp.b32 %0, 0, %1;" : "=r"(Mask) : "r"(B));
  return M & Mask;
#else
  return B < 0 ? M : M & ((1u << B) - 1u);
#endif
}

/// The layer-2 gather of one chain as one tight rank-matching loop (the
/// bit-sliced variants' gather; TlsLayout.h's decodeLayer2 is the rule):
/// the k-th highest needed position X takes the value of the k-th highest
/// empty slot Y, which is then zeroed for layer 1; the needs after the
/// Pairs = min(|Need|, |Empty|) pairs (the lowest ones) take the chain's
/// residual values in order. The residual address is an induction
/// variable, Rk = Rq - 2 |Empty| + 2 k for value k: no counter, no
/// conditionally updated address, one select per value; the bit clears
/// need no predicate (BMSK), and the zero store none either (see below). As in gatherChain, the next value's
/// address is formed and its value loaded before this value's stores (it
/// never reads what they write); the load after the last value reads a
/// slot or the word after the chain's residuals, and is not used.
///
/// Mem supplies lds16(A), sts16(A, V) on byte addresses: shared memory on
/// the GPU, an array in the CPU test. Vb: the lane's slot base, with its
/// fragment swizzle (slot Y at Vb + 2 (Y ^ S8)); Db: its layer-2 buffer,
/// swizzled by DS8 (0 in the kernel: an unswizzled, padded buffer); Rq: the
/// address of the chain's first residual value.
template <typename Mem>
TLS_HD void gatherRanked(uint32_t Need, uint32_t Empty, uint32_t Vb,
                         uint32_t S8, uint32_t Db, uint32_t DS8, uint32_t Rq,
                         Mem &M) {
  if (!Need)
    return;
  // Residuals come only after all |Empty| pairs, so the base is
  // Rq - 2 |Empty| whichever of the two masks is larger.
  uint32_t Rk = Rq - 2u * uint32_t(popCount(Empty));
  // Value k is a pair exactly when Empty has a bit left: with more needs
  // than empty slots the pairs end when it is spent, with fewer the loop
  // ends first (the look-ahead load may then read a slot).
  bool Slot = Empty != 0;
  int Y = highestBitOrNone(Empty);
  Empty = belowBit(Empty, Y);
  uint32_t A = Slot ? Vb + 2u * (uint32_t(Y) ^ S8) : Rk;
  uint32_t V = M.lds16(A);
  TLS_UNROLL_N(2)
  for (;;) {
    const int X = highestBitOrNone(Need);
    Need = belowBit(Need, X);
    // The next value.
    Rk += 2;
    const bool Slot2 = Empty != 0;
    const int Y2 = highestBitOrNone(Empty);
    Empty = belowBit(Empty, Y2);
    const uint32_t A2 = Slot2 ? Vb + 2u * (uint32_t(Y2) ^ S8) : Rk;
    const uint32_t V2 = M.lds16(A2);
    // The value read is zeroed where it was, slot or residual: a donated
    // slot must be zero for layer 1, and a residual value is read once
    // (each lane reads its own, and the stage is refilled by copies).
    M.sts16(A, 0);
    M.sts16(Db + 2u * (uint32_t(X) ^ DS8), V);
    if (!Need)
      break;
    A = A2;
    V = V2;
  }
}

/// belowBit(M, B), and whether the result is nonzero: on the GPU one BMSK
/// and one LOP3 writing both (PTX lop3 with a predicate output; left to
/// itself ptxas computes the test with a second LOP3).
TLS_HD uint32_t belowBitNonZero(uint32_t M, int B, bool &NonZero) {
#if defined(__CUDA_ARCH__)
  uint32_t Mask, D, F;
  asm("bmsk.clamp.b32 %0, 0, %1;" : "=r"(Mask) : "r"(B));
  asm("{\n .reg .pred p, q;\n setp.ne.u32 q, 0, 0;\n"
      " lop3.or.b32 %0|p, %2, %3, 0, 0xC0, q;\n selp.u32 %1, 1, 0, p;\n}"
      : "=r"(D), "=r"(F)
      : "r"(M), "r"(Mask));
  NonZero = F != 0;
  return D;
#else
  const uint32_t D = belowBit(M, B);
  NonZero = D != 0;
  return D;
#endif
}

/// The smaller of two unsigned values: one VIMNMX.U32 on the GPU.
TLS_HD uint32_t minU32(uint32_t A, uint32_t B) {
#if defined(__CUDA_ARCH__)
  return umin(A, B);
#else
  return A < B ? A : B;
#endif
}

/// The layer-2 gather of Decode 3: gatherRanked's rank-matching loop with
/// the choice between an empty slot and a residual value made by one
/// unsigned minimum instead of a test and a select. FLO gives -1 for an
/// exhausted empty mask, so min(Y ^ S8, Z) is the slot Y (swizzled) while
/// empty slots last and the residual index Z after: Z counts in halves from
/// the slot base, Z = (Rq - Vb) / 2 - |Empty| + k for value k, so the
/// source of value k is always Vb + 2 min(Y ^ S8, Z). Per value: three
/// instructions per mask (FLO, BMSK, LOP3), LOP3 + VIMNMX + IMAD for the
/// source, one IMAD for the destination, the load and two stores, the
/// induction step; no predicate but the loop's.
///
/// Needs Rq >= Vb + 128 (in the kernel the residuals lie after all 2 KB of
/// slots and the bitmap, Rq - Vb >= 320), so that Z >= 32 > Y ^ S8 while a
/// slot is taken. Same memory effects as gatherRanked (and decodeLayer2):
/// the k-th highest needed position takes the k-th highest empty slot's
/// value, which is zeroed, then the residual values in order, each zeroed
/// after it is read; the look-ahead load after the last value is unused.
///
/// gatherRankedMinZ takes Z of value 0 directly (the kernel forms it from
/// lane constants and the residual scan). Unroll is the loop's unrolling:
/// 2 for Decode 3, 4 for Decode 4, where Z advances once per four values
/// (one VIADD instead of two) and ptxas folds Z + 1..3 into each value's
/// VIADDMNMX. Either way the loop exits after any value (a predicated LOP3
/// and a branch per value): letting a lane run on to a multiple of two or
/// four values would cost the busiest lane's rounding (half a value on
/// average per multiple of two), which is what the branch saves.
template <int Unroll = 2, typename Mem>
TLS_HD void gatherRankedMinZ(uint32_t Need, uint32_t Empty, uint32_t Vb,
                             uint32_t S8, uint32_t Db, uint32_t Z, Mem &M) {
  if (!Need)
    return;
  int Y = highestBitOrNone(Empty);
  Empty = belowBit(Empty, Y);
  uint32_t A = Vb + 2u * minU32(uint32_t(Y) ^ S8, Z);
  uint32_t V = M.lds16(A);
  TLS_UNROLL_N(Unroll)
  for (;;) {
    const int X = highestBitOrNone(Need);
    bool More;
    Need = belowBitNonZero(Need, X, More);
    ++Z;
    // The next value, loaded before this value's stores (it never reads
    // what they write).
    const int Y2 = highestBitOrNone(Empty);
    Empty = belowBit(Empty, Y2);
    const uint32_t A2 = Vb + 2u * minU32(uint32_t(Y2) ^ S8, Z);
    const uint32_t V2 = M.lds16(A2);
    M.sts16(A, 0);
    M.sts16(Db + 2u * uint32_t(X), V);
    if (!More)
      break;
    A = A2;
    V = V2;
  }
}
template <typename Mem>
TLS_HD void gatherRankedMin4(uint32_t Need, uint32_t Empty, uint32_t Vb,
                             uint32_t S8, uint32_t Db, uint32_t Rq, Mem &M) {
  gatherRankedMinZ<4>(Need, Empty, Vb, S8, Db,
                      (Rq - Vb) / 2u - uint32_t(popCount(Empty)), M);
}

template <typename Mem>
TLS_HD void gatherRankedMin(uint32_t Need, uint32_t Empty, uint32_t Vb,
                            uint32_t S8, uint32_t Db, uint32_t Rq, Mem &M) {
  gatherRankedMinZ(Need, Empty, Vb, S8, Db,
                   (Rq - Vb) / 2u - uint32_t(popCount(Empty)), M);
}

} // namespace sparse
} // namespace cudaopt

#endif // CUDA_OPT_RUNTIME_SPARSE_TLSBITDECODE_H
