//===- Sm90Params.h - sm_90a GEMM launch parameters -------------*- C++ -*-===//
//
// Plain data shared by the host launcher and the device kernel. The tensor
// maps for A and B travel separately as __grid_constant__ parameters.
//
//===----------------------------------------------------------------------===//

#ifndef CUDAOPT_GEMM_SM90PARAMS_H
#define CUDAOPT_GEMM_SM90PARAMS_H

namespace cudaopt::gemm {

/// Split-K is compiled only into configurations whose accumulators leave
/// registers to spare: the partial-tile epilogue made the 128x256, 256x128
/// and 64x256 kernels spill.
#ifdef __CUDACC__
__host__ __device__
#endif
    constexpr bool splitKAllowed(int BM, int BN) {
  return BM * BN <= 128 * 128 && BN <= 128;
}

/// Two accumulator sets fit in registers when each consumer's share of
/// the tile (MI m64 atoms x BN) is at most 64 x 128.
#ifdef __CUDACC__
__host__ __device__
#endif
    constexpr bool dualAccAllowed(int BM, int BN, int NumConsumers) {
  return (BM / NumConsumers / 64) * BN <= 128;
}

/// The ping-pong schedule (plan option PingPong, Sm90PingPong.cuh) is
/// compiled for the two-consumer configurations with tiles of at least
/// 128 x 128, the ones large shapes run: each consumer then owns a whole
/// BM/2 x BN tile (64 x 256, 128 x 128 or 64 x 128).
#ifdef __CUDACC__
__host__ __device__
#endif
    constexpr bool pingPongAllowed(int BM, int BN, int NumConsumers) {
  return NumConsumers == 2 && BM * BN >= 128 * 128;
}

/// The swapped narrow tiles (Sm90Configs.h) are the configurations
/// narrower than 64: they run C^T = B^T A^T with direct transposed stores.
#ifdef __CUDACC__
__host__ __device__
#endif
    constexpr bool isSwappedTile(int BN) {
  return BN < 64;
}

struct Sm90Params {
  int M, N, K;
  float Alpha, Beta;
  void *C;       // row-major M x N output (and input when Beta != 0)
  long long Ldc; // elements, even
  int TilesM, TilesN;
  // Thread-block clusters. At most one of these is > 1. ClusterM CTAs on
  // adjacent M tiles share (each loads 1/ClusterM of and multicasts) the B
  // tile; ClusterN CTAs on adjacent N tiles share the A tile; ClusterK CTAs
  // split one tile's K range and reduce through distributed shared memory.
  int ClusterM, ClusterN, ClusterK;
  int GridM, GridN;    // tiles of clusters: ceil(TilesM / ClusterM) x ...
  int DualAcc;         // 1: even/odd K blocks into two accumulator sets
  int Splits;          // K splits per output tile through the workspace
  int KBlocks;         // ceil(K / 64)
  int KBlocksPerSplit; // ceil(KBlocks / (Splits * ClusterK))
  int Group;           // tiles per raster group
  int RasterN;         // 0: group along M, 1: group along N
  int TmaStore;        // 1: epilogue through shared memory + TMA stores
  float *Workspace;    // M x N fp32 accumulator, zero between launches
  unsigned *Counters;  // one per tile, zero between launches (Splits > 1)
};

} // namespace cudaopt::gemm

#endif // CUDAOPT_GEMM_SM90PARAMS_H
