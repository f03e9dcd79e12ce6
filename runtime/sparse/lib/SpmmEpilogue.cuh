//===- SpmmEpilogue.cuh - Write an output tile -----------------*- CUDA -*-===//
//
// The end of an output tile: a warp that covered all of it writes Y; one
// that covered part adds its fp32 sums into the workspace, and the last
// contributor writes Y and zeroes the workspace tile. Part of TlsSpmm.cu's
// single translation unit (see there).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAOPT_SPARSE_SPMMEPILOGUE_CUH
#define CUDAOPT_SPARSE_SPMMEPILOGUE_CUH

#include "SpmmLayout.cuh"
#include "SpmmPtx.cuh"

namespace cudaopt {
namespace sparse {
namespace {

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
__device__ __forceinline__ void zeroAcc(float (&Acc)[Sets][NT / 8][4]);

/// After each item of a warp: counts it, and at the end of its output
/// tile's items (the tile's last half, or the CTA's last item) writes or
/// adds the tile and starts the next one from zero.
template <int NT, int Sets, bool BF16>
__device__ __forceinline__ void
endOfItem(const Params &P, float (&Acc)[Sets][NT / 8][4], const Cursor &CC,
          bool LastItem, bool HasTile, int Tile, int Lane, int &Covered) {
  ++Covered;
  if (CC.Half == P.Hpu - 1 || LastItem) {
    if (HasTile)
      finishTile<NT, Sets, BF16>(P, Acc, CC.Nc, Tile, Covered, Lane);
    zeroAcc<NT, Sets>(Acc);
    Covered = 0;
  }
}

/// endOfItem with the accumulators restarted by a mask instead of in the
/// tile-end branch: the branch then only reads them, so the compiler keeps
/// them in place instead of copying all of them around the loop every item
/// (16 moves per item at n-tile 8; bench/spmm/sass-count.py). The bit-sliced
/// pipeline-3 variants use it.
template <int NT, int Sets, bool BF16>
__device__ __forceinline__ void
endOfItemMasked(const Params &P, float (&Acc)[Sets][NT / 8][4],
                const Cursor &CC, bool LastItem, bool HasTile, int Tile,
                int Lane, int &Covered) {
  ++Covered;
  const bool End = CC.Half == P.Hpu - 1 || LastItem;
  if (End && HasTile)
    finishTile<NT, Sets, BF16>(P, Acc, CC.Nc, Tile, Covered, Lane);
  const uint32_t Keep = End ? 0u : ~0u;
  Covered = End ? 0 : Covered;
#pragma unroll
  for (int S = 0; S < Sets; ++S)
#pragma unroll
    for (int J = 0; J < NT / 8; ++J)
#pragma unroll
      for (int E = 0; E < 4; ++E)
        Acc[S][J][E] = __uint_as_float(__float_as_uint(Acc[S][J][E]) & Keep);
}

template <int NT, int Sets>
__device__ __forceinline__ void zeroAcc(float (&Acc)[Sets][NT / 8][4]) {
#pragma unroll
  for (int S = 0; S < Sets; ++S)
#pragma unroll
    for (int J = 0; J < NT / 8; ++J)
      Acc[S][J][0] = Acc[S][J][1] = Acc[S][J][2] = Acc[S][J][3] = 0.f;
}

} // namespace
} // namespace sparse
} // namespace cudaopt

#endif // CUDAOPT_SPARSE_SPMMEPILOGUE_CUH
