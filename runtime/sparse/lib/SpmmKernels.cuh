//===- SpmmKernels.cuh - The two SpMM kernels ------------------*- CUDA -*-===//
//
// tlsSpmmKernel (pipeline 1: stages shared by the CTA) and
// tlsSpmmRingKernel (pipeline 2: per-warp W rings), built from the copy,
// decode and epilogue pieces. TlsSpmm.cu instantiates them (one translation
// unit: the kernels and their helpers keep internal linkage).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAOPT_SPARSE_SPMMKERNELS_CUH
#define CUDAOPT_SPARSE_SPMMKERNELS_CUH

#include "SpmmCopy.cuh"
#include "SpmmDecode.cuh"
#include "SpmmEpilogue.cuh"
#include "SpmmLayout.cuh"
#include "SpmmPtx.cuh"

namespace cudaopt {
namespace sparse {
namespace {

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

  const CtaItems Range(P);
  const long long Begin = Range.Begin;
  const int Count = Range.Count;
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
    endOfItem<NT, Sets, BF16>(P, Acc, CC, J == Count - 1, HasTile, Tile, Lane,
                              Covered);
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

  const CtaItems Range(P);
  const long long Begin = Range.Begin;
  const int Count = Range.Count;
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
    endOfItem<NT, Sets, BF16>(P, Acc, CC, J == Count - 1, HasTile, Tile, Lane,
                              Covered);
    CC.next(P);
  }
}

} // namespace
} // namespace sparse
} // namespace cudaopt

#endif // CUDAOPT_SPARSE_SPMMKERNELS_CUH
