//===- SpmmBulkKernel.cuh - SpMM with a bulk-copy producer warp -*- CUDA
//-*-===//
//
// Pipeline 3 (tlsSpmmBulkKernel): the stage layout of pipeline 1 (X half-tile
// shared by the CTA, one W region per warp: header, values, bitmap,
// residual), filled by one extra producer warp with bulk copies
// (cp.async.bulk, the TMA's 1-D form) instead of every thread's cp.async:
// per stage, lane w of the producer copies consumer warp w's chain values
// (2 KB, already swizzled in device memory by tlsUpload), its bitmap words
// (256 B) and the block's residual values (one aligned window), and the
// lanes together copy the X rows (256 B each). The consumer warps only wait,
// decode and multiply: none of the copy addressing, residual-offset
// bookkeeping or cp.async arrivals of pipeline 1 is in their instruction
// stream. Part of TlsSpmm.cu's single translation unit (see there).
//
// Protocol: full[s] expects 32 arrivals (every producer lane, each with the
// bytes of its own copies) plus those bytes; empty[s] one arrival per
// consumer warp. A consumer warp's gather writes zeros into its staged
// values with generic stores, so it fences them against the async proxy
// before it frees the stage.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAOPT_SPARSE_SPMMBULKKERNEL_CUH
#define CUDAOPT_SPARSE_SPMMBULKKERNEL_CUH

#include "SpmmDecode.cuh"
#include "SpmmEpilogue.cuh"
#include "SpmmLayout.cuh"
#include "SpmmPtx.cuh"

namespace cudaopt {
namespace sparse {
namespace {

/// The residual offsets (start, end) of warp Warp's block at item cursor C
/// (zero when the tile is past the matrix).
__device__ __forceinline__ uint2 residualRange(const Params &P, int Warps,
                                               const Cursor &C, int Warp) {
  const int Tile = C.Mb * Warps + Warp;
  if (Warp >= Warps || Tile >= P.Tiles)
    return make_uint2(0, 0);
  const size_t Blk = size_t(Tile) * P.BlockColumns + (C.Half >> 1);
  return make_uint2(__ldg(P.ResOff + Blk), __ldg(P.ResOff + Blk + 1));
}

/// The X half-tile of the item at IC written with generic loads and stores
/// (zero past N and K): the K tail, whose rows are not whole 16-byte
/// chunks of the source, and the rows past N of the last n-chunk.
template <int NT>
__device__ __forceinline__ void fillXGeneric(const Params &P, unsigned char *Xs,
                                             const Cursor &IC, int FirstRow,
                                             int Lane) {
  for (int C = FirstRow * 16 + Lane; C < NT * 16; C += 32) {
    const int Row = C >> 4, Col = C & 15;
    const int Gn = IC.Nc * NT + Row, K0 = IC.Half * HalfCols + Col * 8;
    uint4 V = make_uint4(0, 0, 0, 0);
    if (Gn < P.N && K0 < P.K) {
      const uint16_t *Src = P.X + size_t(Gn) * P.Ldx + K0;
      if (K0 + 8 <= P.K) {
        V = __ldg(reinterpret_cast<const uint4 *>(Src));
      } else {
        uint32_t Wd[4];
#pragma unroll
        for (int E = 0; E < 4; ++E) {
          const uint32_t Lo = K0 + 2 * E < P.K ? Src[2 * E] : 0u;
          const uint32_t Hi = K0 + 2 * E + 1 < P.K ? Src[2 * E + 1] : 0u;
          Wd[E] = Lo | Hi << 16;
        }
        V = make_uint4(Wd[0], Wd[1], Wd[2], Wd[3]);
      }
    }
    *reinterpret_cast<uint4 *>(Xs + (Row * XPitch + Col * 8) * 2) = V;
  }
}

/// The producer warp: fills stage J % STAGES for every item J of the CTA.
/// Lane w < WARPS keeps the residual offsets of consumer warp w's next
/// three items in registers (loaded two items ahead of their copy).
/// The header of a warp's W region holds the block's residual offsets
/// (start, end), or with QHeader (Decode 4) what the consumer derives from
/// them: the start's offset in the staged window plus, for chain 1, the
/// block's residual count, and a chain mask (0 for chain 0, ~0 for chain
/// 1), so that the consumer's residual start is Q = x + Excl - (Total & y)
/// and it keeps no chain state.
template <int NT, int WARPS, int STAGES, bool QHeader = false>
__device__ __forceinline__ void
produceStages(const Params &P, long long Begin, int Count,
              unsigned char *Stages, uint32_t FullBar, uint32_t EmptyBar,
              int StageB, int WRegion, int Lane) {
  constexpr int XB = xBytes(NT);
  const uint32_t StagesAddr = smemAddr(Stages);
  Cursor IC(P, Begin), PC(P, Begin);
  uint2 R0 = residualRange(P, WARPS, PC, Lane);
  PC.next(P);
  uint2 R1 = Count > 1 ? residualRange(P, WARPS, PC, Lane) : make_uint2(0, 0);
  PC.next(P);
  for (int J = 0; J < Count; ++J) {
    const uint2 R2 =
        J + 2 < Count ? residualRange(P, WARPS, PC, Lane) : make_uint2(0, 0);
    PC.next(P);
    const int S = J % STAGES;
    if (J >= STAGES)
      mbarWait(EmptyBar + 8 * S, ((J / STAGES) - 1) & 1);
    const uint32_t Full = FullBar + 8 * S;
    unsigned char *Stage = Stages + S * StageB;
    const uint32_t StageAddr = StagesAddr + S * StageB;

    // X: whole rows by bulk copies; the K tail and rows past N by stores.
    const bool KTail = IC.Half * HalfCols + HalfCols > P.K;
    const int Rows = min(NT, P.N - IC.Nc * NT);
    if (KTail)
      fillXGeneric<NT>(P, Stage, IC, 0, Lane);
    else if (Rows < NT)
      fillXGeneric<NT>(P, Stage, IC, Rows, Lane);
    uint32_t Bytes = 0;
    if (!KTail && Lane == 0)
      Bytes += uint32_t(Rows) * HalfCols * 2;

    // W: this lane's consumer warp's chain, bitmap and residual window.
    const int Tile = IC.Mb * WARPS + Lane;
    const bool HasW = Lane < WARPS && Tile < P.Tiles;
    const uint32_t Wr = StageAddr + XB + Lane * WRegion;
    uint32_t ResBytes = 0;
    if (HasW) {
      const uint32_t Aligned = R0.x & ~7u;
      ResBytes = min((R0.y - Aligned + 7) >> 3, uint32_t(P.RCap >> 3)) * 16;
      Bytes += WValBytes + WBitsBytes + ResBytes;
      uint2 H = R0;
      if constexpr (QHeader)
        residualHeader(R0.x, R0.y, IC.Half & 1, H.x, H.y);
      asm volatile("st.shared.v2.u32 [%0], {%1, %2};\n" ::"r"(Wr), "r"(H.x),
                   "r"(H.y)
                   : "memory");
    }
    // Every lane arrives (releasing its generic stores above) with the
    // bytes its own copies will deliver.
    mbarArriveExpectTx(Full, Bytes);
    if (HasW) {
      const size_t Blk = size_t(Tile) * P.BlockColumns + (IC.Half >> 1);
      const int Chain = IC.Half & 1;
      bulkCopy(
          Wr + WHeadBytes,
          reinterpret_cast<const unsigned char *>(P.Values + Blk * BlockSlots) +
              Chain * WValBytes,
          WValBytes, Full);
      bulkCopy(Wr + WHeadBytes + WValBytes,
               reinterpret_cast<const unsigned char *>(P.Bitmap +
                                                       Blk * BlockBitmapWords) +
                   Chain * WBitsBytes,
               WBitsBytes, Full);
      if (ResBytes)
        bulkCopy(Wr + WHeadBytes + WValBytes + WBitsBytes,
                 P.Residual + (R0.x & ~7u), ResBytes, Full);
    }
    if (!KTail)
      for (int R = Lane; R < Rows; R += 32)
        bulkCopy(StageAddr + R * XPitch * 2,
                 P.X + size_t(IC.Nc * NT + R) * P.Ldx + IC.Half * HalfCols,
                 HalfCols * 2, Full);
    IC.next(P);
    R0 = R1;
    R1 = R2;
  }
}

/// Where a consumer warp of pipeline 3 is in its CTA's items: the output
/// tile (cursor and tile row), that tile's items still to run here (Left),
/// all of them (Covered) and the CTA's items after them (Rest). Shared by
/// consumeLean and consumeStaged, whose tile-end branches advance it.
template <int WARPS> struct TileItems {
  Cursor CC;
  int Tile, Left, Covered, Rest;
  __device__ TileItems(const Params &P, long long Begin, int Count, int Warp)
      : CC(P, Begin), Tile(CC.Mb * WARPS + Warp),
        Left(min(P.Hpu - CC.Half, Count)), Covered(Left), Rest(Count - Left) {
  }
  /// The next output tile, after the last item of this one.
  __device__ void nextTile(const Params &P, int Warp) {
    if (++CC.Nc == P.NChunks) {
      CC.Nc = 0;
      ++CC.Mb;
    }
    Tile = CC.Mb * WARPS + Warp;
  }
  /// The tile's items in this CTA: the rest, up to a whole tile's.
  __device__ void takeItems(const Params &P) {
    Left = Covered = min(P.Hpu, Rest);
    Rest -= Left;
  }
};

/// The consumer warps' item loop of Decode 3 (DecodeBitsMin): the bit-sliced
/// decode and gatherRankedMin as Decode 2, with the item's bookkeeping
/// moved out of the common path (bench/spmm/sass-count.py counts it):
/// - the stage index and the barrier parity are induction variables (no
///   division by STAGES per item);
/// - the output tile's position (its tile row, whether it exists, the items
///   left in it) changes only in the tile-end branch, which runs once per
///   output tile: per item one count-down and one test;
/// - no TLS_SPMM_ABLATE tests (ablate Decode 2 to time the phases).
/// Results are those of the other pipeline-3 loops (same items, same
/// order, same sums).
template <int NT, int WARPS, int STAGES, bool BF16, int Sets>
__device__ __forceinline__ void
consumeLean(const Params &P, long long Begin, int Count,
            float (&Acc)[Sets][NT / 8][4], const LaneInfo &LI,
            unsigned char *LaneA2, uint32_t A2Addr, uint32_t StagesAddr,
            uint32_t WarpOff, uint32_t StageBytes, uint32_t FullBar,
            uint32_t EmptyBar, int Warp, int Lane) {
  TileItems<WARPS> TI(P, Begin, Count, Warp);
  bool HasTile = TI.Tile < P.Tiles;
  // The item's chain as a mask (0: chain 0, ~0: chain 1), flipped per
  // item: the only use of the cursor's half-block index here.
  int ChainMask = -(TI.CC.Half & 1);
  int S = 0;
  uint32_t Parity = 0;
  for (;;) {
    TLS_SASS_MARK(1);
    mbarWait(FullBar + 8 * S, Parity);
    TLS_SASS_MARK(2);
    if (HasTile) {
      const uint32_t StageAddr = StagesAddr + S * StageBytes;
      decodeAndMultiply<NT, Sets, BF16, DecodeBitsMin>(
          Acc, nullptr, LaneA2, reinterpret_cast<const uint16_t *>(LaneA2),
          LaneA2, A2Addr, ChainMask, LI,
          /*Ablate=*/0, StageAddr, StageAddr + WarpOff);
      fenceProxyAsync();
    }
    // Every lane arrives (the barrier counts 32 per consumer warp here):
    // no __syncwarp, no lane test.
    mbarArrive(EmptyBar + 8 * S);
    TLS_SASS_MARK(9);
    ChainMask = ~ChainMask;
    if (--TI.Left == 0) {
      // The end of the output tile's items in this CTA (its last half
      // block, or the CTA's last item).
      if (HasTile)
        finishTile<NT, Sets, BF16>(P, Acc, TI.CC.Nc, TI.Tile, TI.Covered,
                                   Lane);
      if (TI.Rest == 0)
        break;
      zeroAcc<NT, Sets>(Acc);
      ChainMask = 0; // a tile starts at chain 0 of its first block
      TI.nextTile(P, Warp);
      HasTile = TI.Tile < P.Tiles;
      TI.takeItems(P);
    }
    TLS_SASS_MARK(10);
    if (++S == STAGES) {
      S = 0;
      Parity ^= 1u;
    }
  }
}

/// Items of a warp whose tile is past the matrix (the last M block's
/// trailing warps): only the barrier protocol, from stage S with parity
/// Parity on, for Count items. Such a warp has no item with a tile after
/// them (M blocks are the items' outer order), so it returns after them.
template <int STAGES>
__device__ __noinline__ void idleItems(uint32_t FullBar, uint32_t EmptyBar,
                                       int S, uint32_t Parity, int Count) {
  for (; Count > 0; --Count) {
    mbarWait(FullBar + 8 * S, Parity);
    mbarArrive(EmptyBar + 8 * S);
    if (++S == STAGES) {
      S = 0;
      Parity ^= 1u;
    }
  }
}

/// The consumer warps' item loop of Decode 4 (DecodeBitsMin4): consumeLean
/// unrolled by the stages, so that the stage index, its barrier offsets
/// and its shared-memory addresses are constants of each copy of the body
/// (the addresses in registers, set once) and the parity flips once per
/// round; and the test whether the warp's tile exists moved to the tile
/// end (a warp without one goes to idleItems for the rest); the item's
/// chain comes with the stage's header (produceStages' QHeader). Per
/// item: the wait, the decode and multiply, the release, one count-down
/// and test.
/// Results are those of the other pipeline-3 loops.
template <int NT, int WARPS, int STAGES, bool BF16, int Sets>
__device__ __forceinline__ void
consumeStaged(const Params &P, long long Begin, int Count,
              float (&Acc)[Sets][NT / 8][4], const LaneInfo &LI,
              unsigned char *LaneA2, uint32_t A2Addr, uint32_t StagesAddr,
              uint32_t WarpOff, uint32_t StageBytes, uint32_t FullBar,
              uint32_t EmptyBar, int Warp, int Lane) {
  TileItems<WARPS> TI(P, Begin, Count, Warp);
  if (TI.Tile >= P.Tiles) {
    idleItems<STAGES>(FullBar, EmptyBar, 0, 0u, Count);
    return;
  }
  uint32_t StageAddr[STAGES];
#pragma unroll
  for (int S = 0; S < STAGES; ++S) {
    StageAddr[S] = StagesAddr + S * StageBytes;
    // Opaque: kept in registers, not recomputed per item.
    asm volatile("" : "+r"(StageAddr[S]));
  }
  uint32_t Parity = 0;
  for (;;) {
#pragma unroll
    for (int S = 0; S < STAGES; ++S) {
      TLS_SASS_MARK(1);
      mbarWait(FullBar + 8 * S, Parity);
      TLS_SASS_MARK(2);
      // The chain comes with the stage's header (produceStages' QHeader).
      decodeAndMultiply<NT, Sets, BF16, DecodeBitsMin4>(
          Acc, nullptr, LaneA2, reinterpret_cast<const uint16_t *>(LaneA2),
          LaneA2, A2Addr, /*Chain=*/0, LI,
          /*Ablate=*/0, StageAddr[S], StageAddr[S] + WarpOff);
      fenceProxyAsync();
      // Every lane arrives (32 per consumer warp, as consumeLean).
      mbarArrive(EmptyBar + 8 * S);
      TLS_SASS_MARK(9);
      if (--TI.Left == 0) {
        finishTile<NT, Sets, BF16>(P, Acc, TI.CC.Nc, TI.Tile, TI.Covered,
                                   Lane);
        if (TI.Rest == 0)
          return;
        zeroAcc<NT, Sets>(Acc);
        TI.nextTile(P, Warp);
        if (TI.Tile >= P.Tiles) {
          idleItems<STAGES>(FullBar, EmptyBar, (S + 1) % STAGES,
                            Parity ^ uint32_t(S + 1 == STAGES), TI.Rest);
          return;
        }
        TI.takeItems(P);
      }
      TLS_SASS_MARK(10);
    }
    Parity ^= 1u;
  }
}

/// Pipeline 3: WARPS consumer warps (one 16-row tile each, as pipeline 1)
/// and one producer warp (the last). DECODE: DecodeTables (the masks and
/// metadata through shared-memory tables), DecodeBits (bit-sliced),
/// DecodeBitsRanked (bit-sliced, gatherRanked), DecodeBitsMin
/// (bit-sliced, gatherRankedMin, consumeLean's item loop) or DecodeBitsMin4
/// (gatherRankedMinZ<4>, picked metadata words, consumeStaged's item loop).
///
/// The min-gather decodes ask for bulkMinCtasPerSm CTAs per SM (see there).
template <int NT, int WARPS, int STAGES, bool BF16, int DECODE = DecodeTables>
__global__ void __launch_bounds__((WARPS + 1) * 32,
                                  bulkMinCtasPerSm(WARPS, STAGES, DECODE))
    tlsSpmmBulkKernel(const Params P) {
  extern __shared__ __align__(128) unsigned char Smem[];
  constexpr int Threads = (WARPS + 1) * 32;
  constexpr int Sets = NT / 8 <= 2 ? 2 : 1;
  constexpr int XB = xBytes(NT);
  const int WRegion = wRegionBytes(P.RCap);
  const int StageB = stageBytes(NT, WARPS, P.RCap);
  const int Tid = threadIdx.x, Warp = Tid >> 5, Lane = Tid & 31;

  const CtaItems Range(P);
  const long long Begin = Range.Begin;
  const int Count = Range.Count;
  if (Count <= 0)
    return;

  const Tables *Tab = reinterpret_cast<const Tables *>(Smem);
  const uint32_t FullBar = smemAddr(Smem + TableBytes);
  const uint32_t EmptyBar = FullBar + 8 * STAGES;
  unsigned char *Stages = Smem + TableBytes + BarrierBytes;

  if (DECODE == DecodeTables)
    for (int B = Tid; B < 256; B += Threads)
      fillTables(*reinterpret_cast<Tables *>(Smem), uint32_t(B));
  if (Tid == 0)
    for (int S = 0; S < STAGES; ++S) {
      mbarInit(FullBar + 8 * S, 32);
      mbarInit(EmptyBar + 8 * S, isMinDecode(DECODE) ? 32 * WARPS : WARPS);
    }
  // The barriers' initialisation is visible to the async proxy (the bulk
  // copies complete transactions on them) before any copy is issued.
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
  __syncthreads();

  if (Warp == WARPS) {
    produceStages<NT, WARPS, STAGES, DECODE == DecodeBitsMin4>(
        P, Begin, Count, Stages, FullBar, EmptyBar,
                                     StageB, WRegion, Lane);
    return;
  }

  LaneInfo LI(Lane);
  if constexpr (DECODE != DecodeTables)
    // Opaque, so computed once here instead of in every item.
    asm volatile(""
                 : "+r"(LI.Bit.Sr), "+r"(LI.Bit.Sl), "+r"(LI.Bit.SelA),
                   "+r"(LI.Bit.SelM), "+r"(LI.Bit.Hi), "+r"(LI.VBase),
                   "+r"(LI.VOff[0]),
                   "+r"(LI.VOff[1]), "+r"(LI.VOff[2]), "+r"(LI.VOff[3]),
                   "+r"(LI.BitsOff), "+r"(LI.LdmOff));
  if constexpr (isMinDecode(DECODE))
    asm volatile("" : "+r"(LI.ZOff));
  if constexpr (DECODE == DecodeBitsMin4)
    asm volatile("" : "+r"(LI.MetaOff), "+r"(LI.L2Meta), "+r"(LI.NotLane0));
  constexpr int A2Lane = a2LaneBytes(DECODE);
  unsigned char *LaneA2 =
      Stages + STAGES * StageB + Warp * 32 * A2Lane + Lane * A2Lane;
  uint32_t A2Addr = smemAddr(LaneA2);
  float Acc[Sets][NT / 8][4];
  zeroAcc<NT, Sets>(Acc);

  // The bit-sliced variants address the stages in shared memory directly.
  uint32_t StagesAddr = 0, WarpOff = 0, StageBytes = 0;
  if constexpr (DECODE != DecodeTables) {
    StagesAddr = smemAddr(Stages);
    WarpOff = XB + Warp * WRegion;
    StageBytes = StageB;
    asm volatile(""
                 : "+r"(StagesAddr), "+r"(WarpOff), "+r"(StageBytes),
                   "+r"(A2Addr));
  }
  if constexpr (DECODE == DecodeBitsMin4) {
    consumeStaged<NT, WARPS, STAGES, BF16, Sets>(
        P, Begin, Count, Acc, LI, LaneA2, A2Addr, StagesAddr, WarpOff,
        StageBytes, FullBar, EmptyBar, Warp, Lane);
    return;
  }
  if constexpr (DECODE == DecodeBitsMin) {
    consumeLean<NT, WARPS, STAGES, BF16, Sets>(
        P, Begin, Count, Acc, LI, LaneA2, A2Addr, StagesAddr, WarpOff,
        StageBytes, FullBar, EmptyBar, Warp, Lane);
    return;
  }
  Cursor CC(P, Begin);
  int Covered = 0;
  for (int J = 0; J < Count; ++J) {
    TLS_SASS_MARK(1);
    const int S = J % STAGES;
    mbarWait(FullBar + 8 * S, (J / STAGES) & 1);
    TLS_SASS_MARK(2);
    const int Tile = CC.Mb * WARPS + Warp;
    const bool HasTile = Tile < P.Tiles;
    if (HasTile) {
      unsigned char *Stage = Stages + S * StageB;
      const uint32_t StageAddr =
          DECODE != DecodeTables ? StagesAddr + S * StageBytes : 0u;
      decodeAndMultiply<NT, Sets, BF16, DECODE>(
          Acc, Tab, Stage + XB + Warp * WRegion,
          reinterpret_cast<const uint16_t *>(Stage), LaneA2, A2Addr,
          CC.Half & 1, LI, P.Ablate, StageAddr, StageAddr + WarpOff);
      fenceProxyAsync();
    }
    __syncwarp();
    if (Lane == 0)
      mbarArrive(EmptyBar + 8 * S);
    TLS_SASS_MARK(9);
    if constexpr (DECODE == DecodeTables)
      endOfItem<NT, Sets, BF16>(P, Acc, CC, J == Count - 1, HasTile, Tile,
                                Lane, Covered);
    else
      endOfItemMasked<NT, Sets, BF16>(P, Acc, CC, J == Count - 1, HasTile,
                                      Tile, Lane, Covered);
    TLS_SASS_MARK(10);
    CC.next(P);
  }
}

} // namespace
} // namespace sparse
} // namespace cudaopt

#endif // CUDAOPT_SPARSE_SPMMBULKKERNEL_CUH
