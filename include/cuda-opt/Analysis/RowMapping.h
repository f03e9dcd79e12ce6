//===- RowMapping.h - The row index of a 2-D kernel -------------*- C++ -*-===//
//
// Part of cuda-opt. Recognises the row index of a kernel that maps threads
// over a 2-D domain (possibly times planes in blockIdx.z),
//
//   int x = blockIdx.x * blockDim.x + threadIdx.x;   // pure declarations
//   int y = blockIdx.y * blockDim.y + threadIdx.y;   // the row index
//   int p = blockIdx.z;                              // pure declarations
//   if (x < w && y < h && p < planes) { work }
//   (or `if (x >= w || y >= h) return; work`)
//
// for transforms that change which thread computes which rows and leave the
// x and z axes as they are (coarsen{axis=y}). Only the row side is checked:
// how x and z are computed does not matter, since they keep their meaning.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_ROWMAPPING_H
#define CUDA_OPT_ANALYSIS_ROWMAPPING_H

#include "cuda-opt/Analysis/ThreadMapping.h"

namespace cuda_opt {

/// The recognised row shape of a 2-D kernel.
struct RowMapping {
  /// The row index `T y = blockIdx.y * blockDim.y + threadIdx.y;` (Axis 1)
  /// and the bound of the guard's row comparison `y < Bound`.
  MappedIndex Y;
  /// The bounds guard: one of its conjuncts (disjuncts for the early-return
  /// form) is the row comparison.
  const clang::IfStmt *Guard = nullptr;
  /// The guard is `if (... || y >= h) return;` and the work follows it.
  bool EarlyReturn = false;
  /// The guard's conditions in evaluation order (the `&&` operands, or the
  /// `||` operands of the early-return form); Leaves[RowLeaf] is the row
  /// comparison.
  llvm::SmallVector<const clang::Expr *, 4> Leaves;
  unsigned RowLeaf = 0;
  /// Per leaf: pure, and the same for every row of a thread (it reads
  /// neither the row index nor what is computed from it, nor anything the
  /// kernel writes), so one test can stand for all of a thread's rows.
  llvm::SmallVector<bool, 4> RowInvariant;
  /// The declarations between the row index and the guard (pure, reading
  /// no memory), and per declaration whether it is the same for every row
  /// of a thread (reads nothing computed from the row index and is never
  /// written), so that it may be computed once before the rows.
  llvm::SmallVector<const clang::Stmt *, 2> Between;
  llvm::SmallVector<bool, 2> BetweenInvariant;
  /// The per-row work: the guard's then-branch, or the statements after an
  /// early-return guard.
  llvm::SmallVector<const clang::Stmt *, 4> Body;
  /// From the row index declaration to the end of the work: the text a row
  /// loop replaces.
  clang::SourceRange Region;
};

/// Recognise the row shape of \p K, or say why it is not there. \p Pass
/// names the transform in refusal messages. The shape also requires that
/// every launch of \p K has a grid whose y extent is a ceil-div of the
/// guard's row bound by the block's y extent (analyzeLaunches on the y axis
/// alone), and that the work's `return`s can become `continue`.
llvm::Expected<RowMapping> analyzeRowMapping(clang::ASTContext &Ctx,
                                             const KernelInfo &K,
                                             llvm::StringRef Pass);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_ROWMAPPING_H
