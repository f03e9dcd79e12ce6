//===- SpmmDecode.cuh - Decode a half block, multiply ----------*- CUDA -*-===//
//
// Per item a warp decodes its staged chain on chip (empty/need masks and
// layer-1 metadata through tables, or bit-sliced with DECODE = DecodeBits,
// the layer-2 gather; DecodeBitsRanked: bit-sliced and gatherRanked;
// DecodeBitsMin(4): gatherRankedMinZ<2 or 4>) and multiplies it
// with the staged X half-tile by mma.sp (docs/sparse-format.md). Part of
// TlsSpmm.cu's single translation unit (see there).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAOPT_SPARSE_SPMMDECODE_CUH
#define CUDAOPT_SPARSE_SPMMDECODE_CUH

#include "SpmmLayout.cuh"
#include "SpmmPtx.cuh"
#include "TlsBitDecode.h"

namespace cudaopt {
namespace sparse {
namespace {

/// The layer-2 gather of one relocation chain, software-pipelined and
/// predicated (no branch but the loop's): the highest needed position X
/// takes the value of the highest empty slot Y, which is then zeroed for
/// layer 1, or, once the chain has no empty slot left, the next staged
/// residual value. The value of the next step is loaded before this step's
/// stores (it never reads what they write: another empty slot, or the
/// residual list). Vb, Db: shared-memory byte addresses of the chain's slots
/// and of its layer-2 buffer, both laid out with the lane's fragment swizzle
/// (chunk K at K ^ S, S = Sw >> 4): slot Y sits at base + 2 * (Y ^ 8 * S),
/// one LOP3 and one LEA. Rq: the address of the chain's next residual
/// value. A step after the last need changes nothing that is read again: it
/// may zero a remaining empty slot, which holds zero anyway (the encoder
/// leaves unused empty slots zero).
__device__ __forceinline__ void gatherChain(uint32_t N, uint32_t E,
                                            uint32_t Vb, uint32_t Db,
                                            uint32_t Rq, uint32_t Sw) {
  if (!N)
    return;
  uint32_t S8 = Sw >> 1; // the swizzle in slot units (bits 3-4)
  // Opaque to the compiler, so the bases stay in registers instead of being
  // recomputed from the kernel parameters in every step.
  asm("" : "+r"(Db), "+r"(Vb), "+r"(S8));
  int Y = highestBit(E);       // FLO: -1 for zero
  uint32_t A = E ? Vb + 2 * (uint32_t(Y) ^ S8) : Rq;
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
    const uint32_t A2 = E ? Vb + 2 * (uint32_t(Y2) ^ S8) : Rq;
    const uint32_t V2 = lds16(A2);
    sts16If(A, 0, Had);
    sts16(Db + 2 * (uint32_t(X) ^ S8), V);
    if (!N)
      break;
    Y = Y2;
    A = A2;
    V = V2;
  }
}

/// gatherRanked's memory: 16-bit shared-memory loads and stores.
struct SharedMem16 {
  __device__ __forceinline__ uint32_t lds16(uint32_t A) const {
    return ::cudaopt::sparse::lds16(A);
  }
  __device__ __forceinline__ void sts16(uint32_t A, uint32_t V) const {
    ::cudaopt::sparse::sts16(A, V);
  }
};

/// The lane's bitmap byte of one k-step word: groups Tig and 4 + Tig.
__device__ __forceinline__ uint32_t laneByte(uint32_t W, int Sh) {
  return ((W >> Sh) & 0xF) | ((W >> (Sh + 12)) & 0xF0);
}

/// One item of one warp: decodes the staged half block at Wr (chain Chain;
/// for DecodeBitsMin and DecodeBitsMin4 a mask: 0 for chain 0, ~0 for
/// chain 1)
/// and multiplies it with the staged X half-tile Xs into Acc.
template <int NT, int Sets, bool BF16, int DECODE = DecodeTables>
__device__ __forceinline__ void
decodeAndMultiply(float (&Acc)[Sets][NT / 8][4], const Tables *Tab,
                  unsigned char *Wr, const uint16_t *Xs, unsigned char *LaneA2,
                  uint32_t A2Addr, int Chain, const LaneInfo &LI, int Ablate,
                  uint32_t StageAddr = 0, uint32_t WrAddr = 0) {
  constexpr int NTiles8 = NT / 8;
  const int Lane = LI.Lane, G = LI.G, Sh = LI.Sh;
  const uint32_t Sw = LI.Sw;
  const uint32_t *Hdr = reinterpret_cast<const uint32_t *>(Wr);
  unsigned char *LaneV = Wr + WHeadBytes + Lane * 64;
  const uint4 *Bits4 =
      reinterpret_cast<const uint4 *>(Wr + WHeadBytes + WValBytes);
  // The bit-sliced variants get the stage's shared-memory addresses from
  // the kernel (one add per item) instead of converting generic pointers.
  constexpr bool Addrs = DECODE != DecodeTables;
  const uint32_t RsAddr =
      Addrs ? WrAddr + WHeadBytes + WValBytes + WBitsBytes
            : smemAddr(Wr + WHeadBytes + WValBytes + WBitsBytes);
  const uint32_t LaneVAddr = WrAddr + LI.VBase; // if Addrs
  // The layer-2 buffer's swizzle (a2LaneBytes: none with the ranked gather).
  const uint32_t A2Sw = DECODE >= DecodeBitsRanked ? 0u : Sw;

  TLS_SASS_MARK(3);
  // The layer-2 buffer starts at zero (only needed positions get values).
#pragma unroll
  for (int K = 0; K < 4; ++K)
    if constexpr (DECODE >= DecodeBitsRanked)
      sts128Zero(A2Addr + 16 * K);
    else
      *reinterpret_cast<uint4 *>(LaneA2 + ((K << 4) ^ A2Sw)) =
          make_uint4(0, 0, 0, 0);

  TLS_SASS_MARK(4);
  // Bitmap words of rows G and G + 8.
  uint4 BG, BG8;
  if constexpr (Addrs) {
    BG = lds128(WrAddr + LI.BitsOff);
    BG8 = lds128(WrAddr + LI.BitsOff + 8 * 16);
  } else {
    BG = Bits4[G];
    BG8 = Bits4[G + 8];
  }
  const uint32_t WG[4] = {BG.x, BG.y, BG.z, BG.w};
  const uint32_t WG8[4] = {BG8.x, BG8.y, BG8.z, BG8.w};
  uint32_t E = 0, Nd = 0;
  uint32_t Meta[4];
  if constexpr (DECODE != DecodeTables) {
    // Bit-sliced (TlsBitDecode.h): LOP3, shifts and PRMT on the two rows'
    // words, no tables; lanes t = 2, 3 decode metadata k-steps 2 and 3 and
    // hand them to lanes 0 and 1 (two shuffles). Not skipped by
    // TLS_SPMM_ABLATE bit 1: the test and the constants of the skipped
    // path cost five instructions per item here.
    if constexpr (DECODE == DecodeBitsMin4) {
      bitChainMasksPermFirst(WG, WG8, LI.Bit, E, Nd);
      // The metadata words ready-picked: two 8-byte loads, no SELs.
      const uint2 MG = lds64(WrAddr + LI.MetaOff);
      const uint2 MG8 = lds64(WrAddr + LI.MetaOff + 8 * 16);
      bitLayer1MetaPicked(MG.x, MG8.x, MG.y, MG8.y, LI.Bit, Meta,
                          [](uint32_t X, int) { return shflDown2(X); });
    } else if constexpr (DECODE == DecodeBitsMin) {
      bitChainMasksPermFirst(WG, WG8, LI.Bit, E, Nd);
      // shfl.sync in PTX: no divergence check before it.
      bitLayer1Meta(WG, WG8, LI.Bit, Meta,
                    [](uint32_t X, int) { return shflDown2(X); });
    } else {
      bitChainMasks(WG, WG8, LI.Bit, E, Nd);
      bitLayer1Meta(WG, WG8, LI.Bit, Meta, [](uint32_t X, int) {
        return __shfl_down_sync(0xffffffffu, X, 2);
      });
    }
  } else if (Ablate & 2) {
    Meta[0] = Meta[1] = Meta[2] = Meta[3] = 0x44444444u;
  } else {
    // Empty and need masks of the chain: one lookup per row and k-step,
    // bytes gathered with byte permutes.
    const uint4 BM = Bits4[G + 8 * LI.MetaRow]; // the metadata row
    const uint32_t WM[4] = {BM.x, BM.y, BM.z, BM.w};
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

  TLS_SASS_MARK(5);
  // Layers 2 and 3. The block's residual list holds chain 0 of every
  // lane (in lane order), then chain 1: a warp scan of the per-lane
  // counts places this lane's values, from the block's start for chain
  // 0 and back from its end for chain 1.
  {
    // Inclusive shuffle scan (5 steps of two instructions; the bit-sliced
    // ballot scan it replaced took ~48).
    const int R = residualCount(E, Nd);
    int Incl = R;
#pragma unroll
    for (int O = 1; O < 32; O <<= 1) {
      if constexpr (DECODE == DecodeBitsMin4) {
        // The first step as SHFL + IMAD with the lane's 0/1 factor: left
        // to itself ptxas keeps R apart with a SEL (three instructions).
        Incl = O == 1 ? Incl + int(LI.NotLane0) *
                                   __shfl_up_sync(0xffffffffu, Incl, 1)
                      : scanStepUp(Incl, O);
      } else if constexpr (DECODE != DecodeTables) {
        Incl = scanStepUp(Incl, O);
      } else {
        const int V = __shfl_up_sync(0xffffffffu, Incl, O);
        if (Lane >= O)
          Incl += V;
      }
    }
    const int Total = __shfl_sync(0xffffffffu, Incl, 31);
    const int Excl = Incl - R;
    uint32_t Start, Stop;
    if constexpr (DECODE == DecodeBitsMin4) {
      Start = Stop = 0; // unused: the header is produceStages' QHeader
    } else if constexpr (Addrs) {
      const uint2 H = lds64(WrAddr);
      Start = H.x;
      Stop = H.y;
    } else {
      Start = Hdr[0];
      Stop = Hdr[1];
    }
    int Q = int(Start & 7u) + Excl;
    if constexpr (DECODE == DecodeBitsMin4) {
      // The window offset (plus chain 0's count for chain 1) and the
      // chain mask come from the producer.
      const uint2 H = lds64(WrAddr);
      Q = int(residualStartQ(H.x, H.y, uint32_t(Excl), uint32_t(Total)));
    } else if constexpr (isMinDecode(DECODE))
      Q += int(uint32_t(int(Stop - Start) - Total) & uint32_t(Chain));
    else if (Chain)
      Q += int(Stop - Start) - Total;
    TLS_SASS_MARK(6);
    if (Ablate & 1) {
    } else if constexpr (DECODE == DecodeBitsRanked) {
      uint32_t Vb = LaneVAddr, Db = A2Addr, S8 = Sw >> 1;
      // Opaque, so the bases stay in registers (as in gatherChain).
      asm("" : "+r"(Db), "+r"(Vb), "+r"(S8));
      SharedMem16 Mem;
      gatherRanked(Nd, E, Vb, S8, Db, 0, RsAddr + 2 * Q, Mem);
    } else if constexpr (isMinDecode(DECODE)) {
      uint32_t Vb = LaneVAddr, Db = A2Addr, S8 = Sw >> 1;
      asm("" : "+r"(Db), "+r"(Vb), "+r"(S8));
      SharedMem16 Mem;
      // Z of value 0: (Rq - Vb) / 2 - |E|, Rq - Vb = RsAddr + 2 Q - Vb and
      // RsAddr - Vb = 2 ZOff.
      const uint32_t Z = LI.ZOff + uint32_t(Q) - uint32_t(popCount(E));
      gatherRankedMinZ<DECODE == DecodeBitsMin4 ? 4 : 2>(Nd, E, Vb, S8, Db,
                                                          Z, Mem);
    } else {
      gatherChain(Nd, E, smemAddr(LaneV), A2Addr, RsAddr + 2 * Q, Sw);
    }
  }

  TLS_SASS_MARK(7);
  if (!(Ablate & 4))
#pragma unroll
    for (int K = 0; K < 4; ++K) {
      uint4 A1, A2;
      if constexpr (Addrs)
        A1 = lds128(WrAddr + LI.VOff[K]);
      else
        A1 = *reinterpret_cast<const uint4 *>(LaneV + ((K << 4) ^ Sw));
      if constexpr (DECODE >= DecodeBitsRanked)
        A2 = lds128(A2Addr + 16 * K);
      else
        A2 = *reinterpret_cast<const uint4 *>(LaneA2 + ((K << 4) ^ A2Sw));
#pragma unroll
      for (int T = 0; T < NTiles8; ++T) {
        uint32_t B[4];
        if constexpr (Addrs)
          ldmatrixX4At(B, StageAddr + LI.LdmOff +
                              2 * (T * 8 * XPitch + K * 32));
        else
          ldmatrixX4(B, Xs + (T * 8 + (Lane & 7)) * XPitch + K * 32 +
                            (Lane >> 3) * 8);
        mmaSp<BF16>(Acc[0][T], A1, B, Meta[K]);
        mmaSp<BF16>(Acc[Sets - 1][T], A2, B,
                    DECODE == DecodeBitsMin4 ? LI.L2Meta : Layer2Meta);
      }
    }
  TLS_SASS_MARK(8);
}

} // namespace
} // namespace sparse
} // namespace cudaopt

#endif // CUDAOPT_SPARSE_SPMMDECODE_CUH
