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

struct Sm90Params {
  int M, N, K;
  float Alpha, Beta;
  void *C;       // row-major M x N output (and input when Beta != 0)
  long long Ldc; // elements, even
  int TilesM, TilesN;
  int Splits;          // K splits per output tile (1: no split)
  int KBlocks;         // ceil(K / 64)
  int KBlocksPerSplit; // ceil(KBlocks / Splits)
  int Group;           // tiles per raster group
  int RasterN;         // 0: group along M, 1: group along N
  int TmaStore;        // 1: epilogue through shared memory + TMA stores
  float *Workspace;    // M x N fp32 accumulator, zero between launches
  unsigned *Counters;  // one per tile, zero between launches (Splits > 1)
};

} // namespace cudaopt::gemm

#endif // CUDAOPT_GEMM_SM90PARAMS_H
