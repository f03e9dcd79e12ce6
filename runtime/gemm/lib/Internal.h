//===- Internal.h - shared declarations of the GEMM runtime -----*- C++ -*-===//

#ifndef CUDAOPT_GEMM_INTERNAL_H
#define CUDAOPT_GEMM_INTERNAL_H

#include "cudaopt/gemm.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <stddef.h>

namespace cudaopt::gemm {

using LaunchFn = cudaError_t (*)(const cudaoptGemmProblem &,
                                 const cudaoptGemmPlan &, void *, size_t,
                                 cudaStream_t);

/// Encodes a 2-D 128B-swizzled TMA map over a row-major Outer x Inner matrix
/// of 16-bit elements with leading dimension Ld (elements).
cudaError_t encodeTileMap(CUtensorMap *Map, const void *Base, bool Bf16,
                          long long Inner, long long Outer, long long Ld,
                          int BoxInner, int BoxOuter);

/// SM count of the current device (cached per device).
cudaError_t multiProcessorCount(int *Count);

/// True when the sm_90a kernels can run this problem on this device.
bool sm90Supports(const cudaoptGemmProblem &P);

/// Split-K workspace: a fixed region of per-tile counters (which must be
/// zero; kernels leave them zero), then Splits x M x N fp32 partial tiles.
/// The counter region has a fixed size so plans with different tile counts
/// can share one workspace.
constexpr int MaxSplitTiles = 16384;
constexpr size_t SplitCounterBytes = MaxSplitTiles * 4;
size_t splitWorkspaceBytes(int M, int N, int Splits);

/// The portable fallback (any alignment, any device).
cudaError_t launchFallback(const cudaoptGemmProblem &P, cudaStream_t Stream);

struct KernelInfo {
  int Id, BM, BN, Consumers, Stages;
  double Efficiency;
  LaunchFn Launch;
  const char *Name;
};

/// The compiled configurations, indexed by id.
const KernelInfo *kernelInfo(int Id);
int numKernels();

} // namespace cudaopt::gemm

#endif // CUDAOPT_GEMM_INTERNAL_H
