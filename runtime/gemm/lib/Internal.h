//===- Internal.h - shared declarations of the GEMM runtime -----*- C++ -*-===//

#ifndef CUDAOPT_GEMM_INTERNAL_H
#define CUDAOPT_GEMM_INTERNAL_H

#include "Sm90Params.h"
#include "cudaopt/gemm.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <stddef.h>

#include <string>

namespace cudaopt::gemm {

using LaunchFn = cudaError_t (*)(const cudaoptGemmProblem &,
                                 const cudaoptGemmPlan &, void *, size_t,
                                 cudaStream_t);

/// Encodes a 2-D 128B-swizzled TMA map over a row-major Outer x Inner matrix
/// of 16-bit elements with leading dimension Ld (elements).
cudaError_t encodeTileMap(CUtensorMap *Map, const void *Base, bool Bf16,
                          long long Inner, long long Outer, long long Ld,
                          int BoxInner, int BoxOuter);

/// Whether the sm_90a kernels are launched with programmatic dependent
/// launch (default; CUDAOPT_GEMM_PDL=0 in the environment turns it off).
bool pdlEnabled();

/// SM count of the current device (cached per device).
cudaError_t multiProcessorCount(int *Count);

/// True when the sm_90a kernels can run this problem on this device.
bool sm90Supports(const cudaoptGemmProblem &P);

/// Split-K workspace: a fixed region of per-tile counters, then one M x N
/// fp32 accumulator that the splits add into. Both must be zero before the
/// first use (cudaMemset after allocation); the kernels leave them zero.
/// The counter region has a fixed size so plans with different tile counts
/// can share one workspace. Splits does not change the size (kept for the
/// callers; older builds kept one slice per split).
constexpr int MaxSplitTiles = 16384;
constexpr size_t SplitCounterBytes = MaxSplitTiles * 4;
size_t splitWorkspaceBytes(int M, int N, int Splits);

/// The register-direct mma.sync kernels (lib/Gemv.cu): 16 x 64 (skinny M,
/// decode) and 64 x 64 (small shapes) output tiles per CTA, M tiled over the
/// grid. Their configuration ids follow the sm_90a ones; a plan's Splits is
/// the K split, Group and RasterN are ignored.
constexpr int GemvMaxM = 16; // the model offers the 16-row one up to here
constexpr int MmaSync16KernelId = 7;
constexpr int MmaSync64KernelId = 8;
constexpr int GemvKernelId = MmaSync16KernelId;
/// The first of the 192-wide sm_90a configurations (Sm90Configs.h).
constexpr int FirstWideKernelId = 9;
/// The first of the swapped narrow configurations (Sm90Configs.h), which
/// run C^T = B^T A^T.
constexpr int FirstSwapKernelId = 11;
/// Rows per CTA of an mma.sync kernel id, 0 for any other id.
constexpr int mmaSyncRows(int Id) {
  return Id == MmaSync16KernelId ? 16 : Id == MmaSync64KernelId ? 64 : 0;
}
cudaError_t launchMmaSync(const cudaoptGemmProblem &P,
                          const cudaoptGemmPlan &Plan, void *Workspace,
                          size_t WorkspaceBytes, cudaStream_t Stream);
/// The K splits launchMmaSync really uses for a requested count.
int gemvSplits(int K, int Splits);

/// The portable fallback (any alignment, any device); for CUDAOPT_GEMM_F32
/// it is the exact fp32 kernel, launchSgemm.
cudaError_t launchFallback(const cudaoptGemmProblem &P, cudaStream_t Stream);

/// fp32 problems with Reassociate: cuBLAS SGEMM, or with LibraryAlgo = k
/// the k-th cuBLASLt fp32 heuristic candidate (lib/CublasSgemm.cpp).
cudaError_t launchCublasSgemm(const cudaoptGemmProblem &P,
                              cudaStream_t Stream);
/// How many cuBLASLt candidates LibraryAlgo picks from for \p P on the
/// current device (0: every LibraryAlgo runs cublasSgemm); for tests.
int cublasLtCandidateCount(const cudaoptGemmProblem &P);

/// The fp32 CUDA-core GEMM (lib/Sgemm.cu): bit-identical to a sequential
/// fp32 FMA chain over k per output.
cudaError_t launchSgemm(const cudaoptGemmProblem &P, cudaStream_t Stream);
/// The compiled forms of that kernel, for bench/gemm/sgemm-bench: how many,
/// a short name of each, and a launch of one (launchSgemm runs the default).
int sgemmVariantCount();
int sgemmDefaultVariant();
std::string sgemmVariantName(int Variant);
cudaError_t launchSgemmVariant(const cudaoptGemmProblem &P, int Variant,
                               cudaStream_t Stream);

struct KernelInfo {
  int Id, BM, BN, Consumers, Stages;
  double Efficiency;
  LaunchFn Launch;
  const char *Name;
  /// Clusters of N CTAs that fit on the device at once (0: unknown; null
  /// for kernels that are never launched as clusters).
  int (*MaxActiveClusters)(int N);
  /// A swapped narrow configuration: BM runs along the problem's N, BN
  /// along its M (the mma.sync kernels' BN is 64).
  bool swapsOperands() const { return isSwappedTile(BN); }
};

/// The compiled configurations, indexed by id.
const KernelInfo *kernelInfo(int Id);
int numKernels();

} // namespace cudaopt::gemm

#endif // CUDAOPT_GEMM_INTERNAL_H
