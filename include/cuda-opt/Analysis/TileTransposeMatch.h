//===- TileTransposeMatch.h - Prove a 2-D kernel is a transpose -*- C++ -*-===//
//
// Part of cuda-opt. tile-transpose stages a 2-D one-element-per-thread
// kernel through a shared-memory tile when its store is contiguous in one
// thread dimension and its loads in the other (a transpose:
// `out[x * h + y] = in[y * w + x]`). This matcher proves, from the index
// polynomials of the accesses written in terms of the mapped indices x and y,
// that the rewrite keeps every output: the per-element work is declarations
// and one plain store through a pointer parameter; the store maps distinct
// (x, y) of the guarded domain to distinct elements; and which dimension each
// access is contiguous in. Otherwise it says why not.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_TILETRANSPOSEMATCH_H
#define CUDA_OPT_ANALYSIS_TILETRANSPOSEMATCH_H

#include "cuda-opt/Analysis/ThreadMapping.h"
#include "clang/AST/Expr.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

/// A 2-D kernel whose one store is contiguous in one mapped dimension and
/// whose loads are contiguous in the other.
struct TileTransposeMatch {
  /// The 2-D thread mapping (x, y, the guard, the per-element work).
  ThreadMapping M;
  /// The statement `Base[Index] = Value;`, the last of the per-element work.
  const clang::Stmt *StoreStmt = nullptr;
  /// `Base[Index]` and `Value` of the store.
  const clang::Expr *StoreLHS = nullptr;
  const clang::Expr *StoreValue = nullptr;
  /// The pointer parameter stored through.
  const clang::ParmVarDecl *StoreBase = nullptr;
  /// The stored element type (what the shared tile holds).
  clang::QualType Element;
  /// The dimension (0 = x, 1 = y) the store is contiguous in; the loads are
  /// contiguous in the other one (or do not depend on it).
  unsigned StoreAxis = 1;
  /// What was proven, in words, for the report.
  std::string StoreFact;
  std::vector<std::string> LoadFacts;

  unsigned loadAxis() const { return 1 - StoreAxis; }
};

/// Prove that \p K is a 2-D transpose-like kernel that tile-transpose may
/// stage through shared memory, or say why not. Launches are not looked at.
llvm::Expected<TileTransposeMatch>
matchTileTranspose(clang::ASTContext &Ctx, const KernelInfo &K);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_TILETRANSPOSEMATCH_H
