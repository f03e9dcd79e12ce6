//===- BinnedAtomics.h - Atomics into a small array of counters -*- C++ -*-===//
//
// Part of cuda-opt. Recognises a one-element-per-thread kernel whose effect
// is atomic updates of a global array at data-dependent indices with a
// proven small range:
//
//   int i = blockIdx.x * blockDim.x + threadIdx.x;
//   if (i < n)
//     atomicAdd(&bins[data[i]], 1u);      // data is unsigned char: [0, 255]
//
// so that privatize-atomics can give each block private copies of the
// array in shared memory.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_BINNEDATOMICS_H
#define CUDA_OPT_ANALYSIS_BINNEDATOMICS_H

#include "cuda-opt/Analysis/AtomicOps.h"
#include "cuda-opt/Analysis/ThreadMapping.h"

namespace cuda_opt {

struct BinnedAtomics {
  ThreadMapping Mapping;
  /// The pointer parameter whose elements are updated.
  const clang::ParmVarDecl *Array = nullptr;
  /// The updated element type and the operation every update applies.
  clang::QualType Type;
  CombineOp Op = CombineOp::Sum;
  /// The updates and, for each, its index expression.
  llvm::SmallVector<AtomicUpdate, 2> Updates;
  llvm::SmallVector<const clang::Expr *, 2> Indices;
  /// One more than the largest index any update can use (0 when BinsParam
  /// bounds the indices instead).
  int64_t Bins = 0;
  /// The kernel parameter that bounds every index when no constant does
  /// (`if (v >= 0 && v < nbins)`); the bin count is then known only at launch.
  const clang::ParmVarDecl *BinsParam = nullptr;
};

/// Recognise the shape in \p K, or say why it is not there. Bins is capped
/// at \p MaxBins (a larger proven range is refused).
llvm::Expected<BinnedAtomics> analyzeBinnedAtomics(clang::ASTContext &Ctx,
                                                   const KernelInfo &K,
                                                   int64_t MaxBins);

/// The same on a mapping the caller recognised (the per-element work of a
/// grid-stride loop, Mapping.Body): the updates in Mapping.Body and their
/// bounds; the launches are not looked at.
llvm::Expected<BinnedAtomics> analyzeBinnedAtomicsIn(clang::ASTContext &Ctx,
                                                     const KernelInfo &K,
                                                     ThreadMapping Mapping,
                                                     int64_t MaxBins);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_BINNEDATOMICS_H
