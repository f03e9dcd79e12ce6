//===- Sm90Launch.cuh - host launcher of one configuration -----*- CUDA -*-===//
//
// Builds the TMA descriptors and the Sm90Params for a problem and a plan,
// raises the kernel's shared-memory limit once, and launches the persistent
// grid. Included only by the per-configuration instance files.
//
//===----------------------------------------------------------------------===//

#ifndef CUDAOPT_GEMM_SM90LAUNCH_CUH
#define CUDAOPT_GEMM_SM90LAUNCH_CUH

#include "Internal.h"
#include "Sm90Gemm.cuh"
#include "Sm90PingPong.cuh"

namespace cudaopt::gemm {

/// The kernel parameters every launch path copies from the problem; the
/// rest (tiles, grid, cluster, splits) is the caller's.
inline Sm90Params problemParams(const cudaoptGemmProblem &P) {
  Sm90Params K = {};
  K.M = P.M;
  K.N = P.N;
  K.K = P.K;
  K.Alpha = P.Alpha;
  K.Beta = P.Beta;
  K.C = P.C;
  K.Ldc = P.Ldc;
  return K;
}

/// How many clusters of ClusterSize CTAs of this configuration can run at
/// once (1 CTA per SM; a GPC whose free SMs do not divide evenly leaves some
/// idle), 0 if the query fails. Cached: it depends only on the device.
template <int BM, int BN, int NumConsumers, int Stages>
int maxActiveClustersSm90(int ClusterSize) {
  using Cfg = Sm90Gemm<__half, BM, BN, NumConsumers, Stages, false>;
  auto *Kernel =
      sm90GemmKernel<__half, BM, BN, NumConsumers, Stages, false, true>;
  static int Cached[17] = {};
  if (ClusterSize < 1 || ClusterSize > 16)
    return 0;
  if (Cached[ClusterSize] != 0)
    return Cached[ClusterSize] > 0 ? Cached[ClusterSize] : 0;
  int Sms = 0, Fit = 0;
  cudaLaunchConfig_t Config = {};
  cudaLaunchAttribute Attr[1];
  Attr[0].id = cudaLaunchAttributeClusterDimension;
  Attr[0].val.clusterDim.x = ClusterSize;
  Attr[0].val.clusterDim.y = 1;
  Attr[0].val.clusterDim.z = 1;
  Config.blockDim = dim3(Cfg::Threads);
  Config.dynamicSmemBytes = Cfg::SmemBytes;
  Config.attrs = Attr;
  Config.numAttrs = 1;
  if (multiProcessorCount(&Sms) != cudaSuccess ||
      cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           Cfg::SmemBytes) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  Config.gridDim = dim3(Sms / ClusterSize * ClusterSize);
  if (cudaOccupancyMaxActiveClusters(&Fit, Kernel, &Config) != cudaSuccess) {
    cudaGetLastError();
    Fit = -1;
  }
  Cached[ClusterSize] = Fit;
  return Fit > 0 ? Fit : 0;
}

/// Ext: the kernel instance with the cluster and two-accumulator options
/// compiled in (launchSm90Any picks it only for plans that use them).
/// AMajorM: P's A is stored M-major (a swapped tile on a B row-major
/// problem, launchSm90SwapConfig).
template <typename T, int BM, int BN, int NumConsumers, int Stages,
          bool BRowMajor, bool Ext, bool AMajorM = false>
cudaError_t launchSm90(const cudaoptGemmProblem &P, const cudaoptGemmPlan &Plan,
                       void *Workspace, size_t WorkspaceBytes,
                       cudaStream_t Stream) {
  using Cfg = Sm90Gemm<T, BM, BN, NumConsumers, Stages, BRowMajor>;
  auto *Kernel =
      sm90GemmKernel<T, BM, BN, NumConsumers, Stages, BRowMajor, Ext, AMajorM>;
  static const cudaError_t AttrErr = cudaFuncSetAttribute(
      Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SmemBytes);
  if (AttrErr != cudaSuccess)
    return AttrErr;

  // Clusters: at most one dimension, at most 2 CTAs sharing an operand
  // (multicast), at most 8 splitting K (portable cluster size).
  const int CM = Plan.ClusterM < 1 ? 1 : Plan.ClusterM;
  const int CN = Plan.ClusterN < 1 ? 1 : Plan.ClusterN;
  const int CK = Plan.SplitCluster ? (Plan.Splits < 1 ? 1 : Plan.Splits) : 1;
  if ((CM > 1) + (CN > 1) + (CK > 1) > 1 || CM > 2 || CN > 2 || CK > 8)
    return cudaErrorInvalidValue;
  if ((CM > 1 || CN > 1) && Plan.Splits > 1)
    return cudaErrorInvalidValue;
  if (Plan.DualAcc && !dualAccAllowed(BM, BN, NumConsumers))
    return cudaErrorInvalidValue;

  const bool Bf16 = P.Type == CUDAOPT_GEMM_BF16;
  CUtensorMap MapA, MapB, MapC = {};
  // A CTA of a multicast pair loads 1/2 of the shared tile: the box shrinks
  // along its outer dimension (A rows; B rows, or B's K rows when N-major).
  // A M-major (K x M storage; only from launchSm90SwapConfig, which runs
  // no pairs): 64-row chunks of BlockK K rows, as B N-major.
  cudaError_t Err =
      AMajorM
          ? encodeTileMap(&MapA, P.A, Bf16, P.M, P.K, P.Lda, 64, BlockK)
          : encodeTileMap(&MapA, P.A, Bf16, P.K, P.M, P.Lda, BlockK, BM / CN);
  if (Err != cudaSuccess)
    return Err;
  if (BRowMajor)
    Err = encodeTileMap(&MapB, P.B, Bf16, P.N, P.K, P.Ldb, 64, BlockK / CM);
  else
    Err = encodeTileMap(&MapB, P.B, Bf16, P.K, P.N, P.Ldb, BlockK, BN / CM);
  if (Err != cudaSuccess)
    return Err;

  Sm90Params K = problemParams(P);
  K.TilesM = (P.M + BM - 1) / BM;
  K.TilesN = (P.N + BN - 1) / BN;
  K.ClusterM = CM;
  K.ClusterN = CN;
  K.GridM = (K.TilesM + CM - 1) / CM;
  K.GridN = (K.TilesN + CN - 1) / CN;
  K.DualAcc = Plan.DualAcc ? 1 : 0;
  K.KBlocks = (P.K + BlockK - 1) / BlockK;
  int Splits = Plan.Splits < 1 ? 1 : Plan.Splits;
  if (Splits > K.KBlocks)
    Splits = K.KBlocks;
  K.KBlocksPerSplit = (K.KBlocks + Splits - 1) / Splits;
  // Drop splits that would get no K blocks.
  Splits = (K.KBlocks + K.KBlocksPerSplit - 1) / K.KBlocksPerSplit;
  K.ClusterK = CK > 1 ? Splits : 1;
  K.Splits = CK > 1 ? 1 : Splits;
  K.Group = Plan.Group < 1 ? 1 : Plan.Group;
  K.RasterN = Plan.RasterN ? 1 : 0;
  // TMA stores need Beta == 0 (no read of C), one split, 16-byte rows.
  // The swapped narrow tiles store C transposed, directly.
  K.TmaStore = !Cfg::SwapAB && P.Beta == 0.0f && Splits == 1 &&
               reinterpret_cast<uintptr_t>(P.C) % 16 == 0 && P.Ldc % 8 == 0;
  if (K.TmaStore) {
    Err = encodeTileMap(&MapC, P.C, Bf16, P.N, P.M, P.Ldc, 64, 64);
    if (Err != cudaSuccess)
      return Err;
  }
  K.Workspace = nullptr;
  K.Counters = nullptr;
  if (K.Splits > 1 && !splitKAllowed(BM, BN))
    return cudaErrorInvalidValue;
  if (K.Splits > 1) {
    size_t Need = splitWorkspaceBytes(P.M, P.N, K.Splits);
    if (!Workspace || WorkspaceBytes < Need ||
        K.TilesM * K.TilesN > MaxSplitTiles)
      return cudaErrorInvalidValue;
    K.Counters = static_cast<unsigned *>(Workspace);
    K.Workspace = reinterpret_cast<float *>(static_cast<char *>(Workspace) +
                                            SplitCounterBytes);
  }

  const int ClusterSize = CM * CN * K.ClusterK;
  int Units = K.GridM * K.GridN * K.Splits;
  int Sms = 0;
  Err = multiProcessorCount(&Sms);
  if (Err != cudaSuccess)
    return Err;
  cudaLaunchConfig_t Config = {};
  cudaLaunchAttribute Attr[2];
  int NumAttrs = 0;
  if (ClusterSize > 1) {
    Attr[NumAttrs].id = cudaLaunchAttributeClusterDimension;
    Attr[NumAttrs].val.clusterDim.x = ClusterSize;
    Attr[NumAttrs].val.clusterDim.y = 1;
    Attr[NumAttrs].val.clusterDim.z = 1;
    ++NumAttrs;
  }
  if (pdlEnabled()) {
    // Programmatic dependent launch: the next kernel in the stream may
    // start (and run its prologue) once every CTA of this one has started;
    // the kernel waits (griddepcontrol.wait) for the previous one to
    // complete before it touches global memory.
    Attr[NumAttrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    Attr[NumAttrs].val.programmaticStreamSerializationAllowed = 1;
    ++NumAttrs;
  }
  Config.blockDim = dim3(Cfg::Threads);
  Config.dynamicSmemBytes = Cfg::SmemBytes;
  Config.stream = Stream;
  Config.attrs = Attr;
  Config.numAttrs = NumAttrs;
  int Clusters = Units;
  if (ClusterSize == 1) {
    Clusters = Units < Sms ? Units : Sms;
  } else if (K.ClusterK == 1) {
    // Persistent: as many clusters as fit at once (a GPC may leave an SM
    // idle when its free SMs do not pair up), never more than the units.
    int Fit = maxActiveClustersSm90<BM, BN, NumConsumers, Stages>(ClusterSize);
    if (Fit < 1)
      Fit = Sms / ClusterSize > 0 ? Sms / ClusterSize : 1;
    Clusters = Units < Fit ? Units : Fit;
  }
  // ClusterK: one unit per CTA (the reduction reuses the stage buffers);
  // clusters that do not fit at once run in later waves.
  Config.gridDim = dim3(Clusters * ClusterSize);
  return cudaLaunchKernelEx(&Config, Kernel, MapA, MapB, MapC, K);
}

/// The plain or the Ext instance, by what the plan uses.
template <typename T, int BM, int BN, int NumConsumers, int Stages,
          bool BRowMajor, bool AMajorM = false>
cudaError_t launchSm90Any(const cudaoptGemmProblem &P,
                          const cudaoptGemmPlan &Plan, void *Workspace,
                          size_t WorkspaceBytes, cudaStream_t Stream) {
  const bool Ext = Plan.DualAcc || Plan.ClusterM > 1 || Plan.ClusterN > 1 ||
                   (Plan.SplitCluster && Plan.Splits > 1);
  if (Ext)
    return launchSm90<T, BM, BN, NumConsumers, Stages, BRowMajor, true,
                      AMajorM>(P, Plan, Workspace, WorkspaceBytes, Stream);
  return launchSm90<T, BM, BN, NumConsumers, Stages, BRowMajor, false, AMajorM>(
      P, Plan, Workspace, WorkspaceBytes, Stream);
}

/// The ping-pong instance of configuration BM x BN (two consumers, each on
/// its own BM/2 x BN tile). The plan has been validated: Splits 1, no
/// cluster or two-accumulator option.
template <typename T, int BM, int BN, bool BRowMajor>
cudaError_t launchSm90PingPong(const cudaoptGemmProblem &P,
                               const cudaoptGemmPlan &Plan,
                               cudaStream_t Stream) {
  using L = Sm90PingPongLayout<BM, BN>;
  auto *Kernel = sm90PingPongKernel<T, BM, BN, BRowMajor>;
  static const cudaError_t AttrErr = cudaFuncSetAttribute(
      Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, L::SmemBytes);
  if (AttrErr != cudaSuccess)
    return AttrErr;
  if (Plan.Splits > 1 || Plan.DualAcc || Plan.ClusterM > 1 || Plan.ClusterN > 1)
    return cudaErrorInvalidValue;

  const bool Bf16 = P.Type == CUDAOPT_GEMM_BF16;
  CUtensorMap MapA, MapB, MapC = {};
  cudaError_t Err =
      encodeTileMap(&MapA, P.A, Bf16, P.K, P.M, P.Lda, BlockK, L::TileM);
  if (Err != cudaSuccess)
    return Err;
  if (BRowMajor)
    Err = encodeTileMap(&MapB, P.B, Bf16, P.N, P.K, P.Ldb, 64, BlockK);
  else
    Err = encodeTileMap(&MapB, P.B, Bf16, P.K, P.N, P.Ldb, BlockK, BN);
  if (Err != cudaSuccess)
    return Err;

  Sm90Params K = problemParams(P);
  K.TilesM = (P.M + L::TileM - 1) / L::TileM;
  K.TilesN = (P.N + BN - 1) / BN;
  K.ClusterM = K.ClusterN = K.ClusterK = 1;
  K.GridM = K.TilesM;
  K.GridN = K.TilesN;
  K.KBlocks = (P.K + BlockK - 1) / BlockK;
  K.KBlocksPerSplit = K.KBlocks;
  K.Splits = 1;
  K.Group = Plan.Group < 1 ? 1 : Plan.Group;
  K.RasterN = Plan.RasterN ? 1 : 0;
  K.TmaStore = P.Beta == 0.0f && reinterpret_cast<uintptr_t>(P.C) % 16 == 0 &&
               P.Ldc % 8 == 0;
  if (K.TmaStore) {
    Err = encodeTileMap(&MapC, P.C, Bf16, P.N, P.M, P.Ldc, 64, 64);
    if (Err != cudaSuccess)
      return Err;
  }

  int Sms = 0;
  Err = multiProcessorCount(&Sms);
  if (Err != cudaSuccess)
    return Err;
  const int Units = K.GridM * K.GridN;
  cudaLaunchConfig_t Config = {};
  cudaLaunchAttribute Attr[1];
  int NumAttrs = 0;
  if (pdlEnabled()) {
    Attr[NumAttrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    Attr[NumAttrs].val.programmaticStreamSerializationAllowed = 1;
    ++NumAttrs;
  }
  // Persistent, one CTA per SM; a CTA with a single tile runs it on its
  // first consumer (the second has no turn).
  Config.gridDim = dim3(Units < Sms ? Units : Sms);
  Config.blockDim = dim3(384);
  Config.dynamicSmemBytes = L::SmemBytes;
  Config.stream = Stream;
  Config.attrs = Attr;
  Config.numAttrs = NumAttrs;
  return cudaLaunchKernelEx(&Config, Kernel, MapA, MapB, MapC, K);
}

/// A swapped narrow configuration (Sm90Configs.h): runs C^T = B^T A^T as
/// the problem M' = N, N' = M with A' = B and B' = A (read as a K-major "B
/// col" operand); the kernel's transposed epilogue writes C'(n, m) to
/// C[m * Ldc + n], so C, Ldc, alpha and beta are the caller's. A' is B's
/// storage: K-major (N x K) for B col, M-major (K x N) for B row, which the
/// kernel loads and reads as AMajorM. No multicast pairs or ping-pong
/// (Api.cpp refuses them).
template <int BM, int BN, int NumConsumers, int Stages>
cudaError_t launchSm90SwapConfig(const cudaoptGemmProblem &P,
                                 const cudaoptGemmPlan &Plan, void *Workspace,
                                 size_t WorkspaceBytes, cudaStream_t Stream) {
  static_assert(Sm90Gemm<__half, BM, BN, NumConsumers, Stages, false>::SwapAB,
                "only the narrow configurations swap");
  if (Plan.PingPong || Plan.ClusterM > 1 || Plan.ClusterN > 1)
    return cudaErrorInvalidValue;
  cudaoptGemmProblem Q = P;
  Q.M = P.N;
  Q.N = P.M;
  Q.A = P.B;
  Q.Lda = P.Ldb;
  Q.B = P.A;
  Q.Ldb = P.Lda;
  Q.LayoutB = CUDAOPT_GEMM_B_COL;
  const bool Row = P.LayoutB == CUDAOPT_GEMM_B_ROW;
  if (P.Type == CUDAOPT_GEMM_BF16)
    return Row ? launchSm90Any<__nv_bfloat16, BM, BN, NumConsumers, Stages,
                               false, true>(Q, Plan, Workspace, WorkspaceBytes,
                                            Stream)
               : launchSm90Any<__nv_bfloat16, BM, BN, NumConsumers, Stages,
                               false>(Q, Plan, Workspace, WorkspaceBytes,
                                      Stream);
  return Row ? launchSm90Any<__half, BM, BN, NumConsumers, Stages, false, true>(
                   Q, Plan, Workspace, WorkspaceBytes, Stream)
             : launchSm90Any<__half, BM, BN, NumConsumers, Stages, false>(
                   Q, Plan, Workspace, WorkspaceBytes, Stream);
}

/// Dispatches one configuration over element type and B layout.
template <int BM, int BN, int NumConsumers, int Stages>
cudaError_t launchSm90Config(const cudaoptGemmProblem &P,
                             const cudaoptGemmPlan &Plan, void *Workspace,
                             size_t WorkspaceBytes, cudaStream_t Stream) {
  const bool Row = P.LayoutB == CUDAOPT_GEMM_B_ROW;
  if (Plan.PingPong) {
    if constexpr (pingPongAllowed(BM, BN, NumConsumers)) {
      if (P.Type == CUDAOPT_GEMM_BF16)
        return Row ? launchSm90PingPong<__nv_bfloat16, BM, BN, true>(P, Plan,
                                                                     Stream)
                   : launchSm90PingPong<__nv_bfloat16, BM, BN, false>(P, Plan,
                                                                      Stream);
      return Row ? launchSm90PingPong<__half, BM, BN, true>(P, Plan, Stream)
                 : launchSm90PingPong<__half, BM, BN, false>(P, Plan, Stream);
    } else {
      return cudaErrorInvalidValue; // not compiled for this configuration
    }
  }
  if (P.Type == CUDAOPT_GEMM_BF16)
    return Row ? launchSm90Any<__nv_bfloat16, BM, BN, NumConsumers, Stages, true>(
                     P, Plan, Workspace, WorkspaceBytes, Stream)
               : launchSm90Any<__nv_bfloat16, BM, BN, NumConsumers, Stages, false>(
                     P, Plan, Workspace, WorkspaceBytes, Stream);
  return Row ? launchSm90Any<__half, BM, BN, NumConsumers, Stages, true>(
                   P, Plan, Workspace, WorkspaceBytes, Stream)
             : launchSm90Any<__half, BM, BN, NumConsumers, Stages, false>(
                   P, Plan, Workspace, WorkspaceBytes, Stream);
}

} // namespace cudaopt::gemm

#endif // CUDAOPT_GEMM_SM90LAUNCH_CUH
